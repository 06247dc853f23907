package kernelref

// wmmaI32x16x16x16iu8 is the gfx12 iu8 WMMA case: D = A (signed 8-bit) *
// B (unsigned 8-bit) + C, 16x16x16, 32-bit wrapping sums; one group of 64
// lanes (two wave32 or one wave64, each computing the whole product).
func wmmaI32x16x16x16iu8() Case {
	const M, N, K = 16, 16, 16
	b := newCase("wmma_i32_16x16x16iu8", "gfx12 v_wmma_i32_16x16x16_iu8: D = A(i8) * B(u8) + C (i32), wave32 and wave64", dim(64, 1, 1), dim(64, 1, 1))
	b.targets(wmmaTargets)
	A := make([]int8, M*K)
	B := make([]uint8, K*N)
	C := make([]int32, M*N)
	for i := range A {
		A[i] = int8(b.rng.u32())
	}
	for i := range B {
		B[i] = uint8(b.rng.u32())
	}
	for i := range C {
		C[i] = int32(b.rng.u32())
	}
	b.in("A", I8, A)
	b.in("B", U8, B)
	b.in("C", I32, C)
	d := b.out("D", I32, M*N)
	want := make([]int32, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := C[i*N+j]
			for k := 0; k < K; k++ {
				s += int32(A[i*K+k]) * int32(B[k*N+j])
			}
			want[i*N+j] = s
		}
	}
	b.expect(d, want)
	return b.done()
}

// gfx12BufferOOB is the gfx12 VBUFFER case: raw buffer resources whose
// NUM_RECORDS cut the loads at nbytes and the stores at 128 elements.
func gfx12BufferOOB() Case {
	const n, nbytes = 256, 4 * 200
	b := newCase("gfx12_buffer_oob", "gfx12 VBUFFER raw loads/stores, OOB_SELECT 3 range checks (reads 0, drops writes)", dim(n, 1, 1), dim(64, 1, 1))
	b.targets(wmmaTargets)
	in := make([]int32, n)
	st := make([]int32, n)
	for i := range in {
		in[i] = int32(b.rng.u32() >> 4)
		st[i] = int32(b.rng.u32())
	}
	b.in("in", I32, in)
	b.scalar("nbytes", U32, uint32(nbytes))
	out := b.out("out", I32, n)
	sti := b.inout("st", I32, st)
	wantOut := make([]int32, n)
	wantSt := append([]int32(nil), st...)
	for i := range in {
		var v int32
		if 4*i+4 <= nbytes {
			v = in[i]
		}
		wantOut[i] = v + 1
		if i < 128 {
			wantSt[i] = v * 3
		}
	}
	b.expect(out, wantOut)
	b.expect(sti, wantSt)
	return b.done()
}
