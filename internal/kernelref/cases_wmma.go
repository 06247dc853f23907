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
