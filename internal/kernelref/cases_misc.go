package kernelref

// smallIntHalves returns n binary16 values holding integers in [-4, 4], so
// every product and partial sum of a matrix multiply-accumulate is exact in
// f32 and the result does not depend on the hardware's summation order.
func (r *rng) smallIntHalves(n int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = F16FromFloat64(float64(int(r.below(9)) - 4))
	}
	return s
}

func (r *rng) smallIntFloats(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(int(r.below(201)) - 100)
	}
	return s
}

// mmaHalfRef is D = A (MxK) * B (KxN) + C for f16 inputs with exact
// (integer-valued) data.
func mmaHalfRef(A, B []uint16, C []float32, M, N, K int) []float32 {
	D := make([]float32, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s := float64(C[i*N+j])
			for k := 0; k < K; k++ {
				s += F16ToFloat64(A[i*K+k]) * F16ToFloat64(B[k*N+j])
			}
			D[i*N+j] = float32(s)
		}
	}
	return D
}

func mmaHalfCase(name, doc string, grid, block [3]uint32, targets []string, M, N, K, count int) Case {
	b := newCase(name, doc, grid, block)
	b.targets(targets)
	A := b.rng.smallIntHalves(count * M * K)
	B := b.rng.smallIntHalves(count * K * N)
	C := b.rng.smallIntFloats(count * M * N)
	b.in("A", F16, A)
	b.in("B", F16, B)
	b.in("C", F32, C)
	d := b.out("D", F32, count*M*N)
	var want []float32
	for w := 0; w < count; w++ {
		want = append(want, mmaHalfRef(A[w*M*K:(w+1)*M*K], B[w*K*N:(w+1)*K*N], C[w*M*N:(w+1)*M*N], M, N, K)...)
	}
	b.expect(d, want)
	return b.done()
}

func mfmaF32x32x32x8f16() Case {
	return mmaHalfCase("mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16: D = A(32x8) * B(8x32) + C, one wave64",
		dim(64, 1, 1), dim(64, 1, 1), mfmaTargets, 32, 32, 8, 1)
}

func mfmaF32x16x16x16f16() Case {
	return mmaHalfCase("mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16: four waves, one 16x16x16 product each",
		dim(256, 1, 1), dim(128, 1, 1), mfmaTargets, 16, 16, 16, 4)
}

func wmmaF32x16x16x16f16() Case {
	return mmaHalfCase("wmma_f32_16x16x16f16", "gfx12 v_wmma_f32_16x16x16_f16: D = A * B + C, one wave32",
		dim(32, 1, 1), dim(32, 1, 1), wmmaTargets, 16, 16, 16, 1)
}

func mfmaI32x16x16x32i8() Case {
	const M, N, K = 16, 16, 32
	b := newCase("mfma_i32_16x16x32i8", "v_mfma_i32_16x16x32_i8: D = A(16x32 i8) * B(32x16 i8) + C (i32)", dim(64, 1, 1), dim(64, 1, 1))
	b.targets(mfmaTargets)
	A := make([]int8, M*K)
	B := make([]int8, K*N)
	C := make([]int32, M*N)
	for i := range A {
		A[i] = int8(b.rng.u32())
	}
	for i := range B {
		B[i] = int8(b.rng.u32())
	}
	for i := range C {
		C[i] = int32(b.rng.u32() >> 8)
	}
	b.in("A", I8, A)
	b.in("B", I8, B)
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

func shuffleBpermute() Case {
	const n, k = 256, 5
	b := newCase("shuffle_bpermute", "ds_bpermute rotate and xor-butterfly sum within 32-lane groups", dim(n, 1, 1), dim(64, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	rot := b.out("rot", U32, n)
	sum := b.out("sum", U32, n)
	b.scalar("k", U32, uint32(k))
	wr, ws := make([]uint32, n), make([]uint32, n)
	for i := range in {
		wr[i] = in[i&^31|(i+k)&31]
		var s uint32
		for _, v := range in[i&^31 : i&^31+32] {
			s += v
		}
		ws[i] = s
	}
	b.expect(rot, wr)
	b.expect(sum, ws)
	return b.done()
}

func ldsAtomics() Case {
	const groups, wg, nb = 4, 256, 32
	b := newCase("lds_atomics", "per-group 32-bin histogram and max with LDS atomics", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.u32s(groups * wg)
	b.in("in", U32, in)
	o := b.out("out", U32, groups*(nb+1))
	want := make([]uint32, groups*(nb+1))
	for g := 0; g < groups; g++ {
		w := want[g*(nb+1) : (g+1)*(nb+1)]
		for _, v := range in[g*wg : (g+1)*wg] {
			w[v%nb]++
			w[nb] = max(w[nb], v)
		}
	}
	b.expect(o, want)
	return b.done()
}

func grid2d() Case {
	const W, H = 50, 30
	b := newCase("grid2d", "2-D grid with partial groups (50x30 over 8x8 groups)", dim(W, H, 1), dim(8, 8, 1))
	in := b.rng.u32s(W * H)
	b.in("in", U32, in)
	o := b.out("out", U32, W*H)
	b.scalar("W", U32, uint32(W))
	b.scalar("H", U32, uint32(H))
	want := make([]uint32, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			want[y*W+x] = in[y*W+x]*3 + uint32(x)*1000 + uint32(y)
		}
	}
	b.expect(o, want)
	return b.done()
}

func grid3d() Case {
	const G = 8
	b := newCase("grid3d", "3-D grid (8x8x8 of 4x4x4 groups) writing packed ids", dim(G, G, G), dim(4, 4, 4))
	o := b.out("out", U32, G*G*G)
	want := make([]uint32, G*G*G)
	for z := uint32(0); z < G; z++ {
		for y := uint32(0); y < G; y++ {
			for x := uint32(0); x < G; x++ {
				want[(z*G+y)*G+x] = x%4 | (y%4)<<2 | (z%4)<<4 | (x/4)<<8 | (y/4)<<16 | (z/4)<<24
			}
		}
	}
	b.expect(o, want)
	return b.done()
}

func earlyExitLoop() Case {
	const n, L, threshold = 128, 64, 0xfc000000
	b := newCase("early_exit_loop", "per-item scan with a data-dependent break", dim(n, 1, 1), dim(64, 1, 1))
	rows := b.rng.u32s(n * L)
	b.in("rows", U32, rows)
	o := b.out("out", U32, n)
	st := b.out("steps", U32, n)
	b.scalar("L", U32, uint32(L))
	b.scalar("threshold", U32, uint32(threshold))
	b.scalar("n", U32, uint32(n))
	wo, ws := make([]uint32, n), make([]uint32, n)
	for i := 0; i < n; i++ {
		j, acc := 0, uint32(0)
		for ; j < L; j++ {
			v := rows[i*L+j]
			if v >= threshold {
				break
			}
			acc += v
		}
		wo[i], ws[i] = uint32(j), acc
	}
	b.expect(o, wo)
	b.expect(st, ws)
	return b.done()
}

func divergenceRef(v, i uint32) uint32 {
	switch v % 8 {
	case 0:
		x, steps := v|1, uint32(0)
		for x != 1 && steps < 200 {
			if x&1 != 0 {
				x = 3*x + 1
			} else {
				x >>= 1
			}
			steps++
		}
		return steps
	case 1:
		return v * 2654435761
	case 2:
		r := uint32(0)
		for bb := v; bb != 0; bb &= bb - 1 {
			r += 7
		}
		return r
	case 3:
		if v&0x100 != 0 {
			return v >> 3
		}
		return v << 3
	case 4:
		r := uint32(1)
		for a := uint32(0); a < (v>>4)%9; a++ {
			for bb := uint32(0); bb <= a; bb++ {
				r = r*31 + a*bb
			}
		}
		return r
	case 5:
		switch {
		case v > 0x80000000:
			return ^v
		case v > 0x40000000:
			return v ^ 0x5a5a5a5a
		}
		return v + i
	case 6:
		x := v
		for {
			x = x/3 + x&5
			if x <= 1000 {
				return x
			}
		}
	}
	return i
}

func divergence() Case {
	const n = 512
	b := newCase("divergence", "eight per-lane paths with data-dependent loops", dim(n, 1, 1), dim(64, 1, 1))
	in := b.rng.u32s(n)
	for i := range in {
		if i%3 == 0 {
			in[i] = in[i]&^0xfff | uint32(i)&0xfff // small Collatz starts too
			in[i] >>= 16
		}
	}
	b.in("in", U32, in)
	o := b.out("out", U32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, n)
	for i := range want {
		want[i] = divergenceRef(in[i], uint32(i))
	}
	b.expect(o, want)
	return b.done()
}

func stencilLDS() Case {
	const n = 512
	b := newCase("stencil_lds", "1-D 3-point stencil with an LDS halo, clamped edges", dim(n, 1, 1), dim(128, 1, 1))
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(b.rng.u32())
	}
	b.in("in", I32, in)
	o := b.out("out", I32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]int32, n)
	for i := range want {
		l, r := max(i-1, 0), min(i+1, n-1)
		want[i] = in[l] + 2*in[i] + in[r]
	}
	b.expect(o, want)
	return b.done()
}

func globalAtomics() Case {
	const n = 1000
	b := newCase("global_atomics", "device-scope add/max/min/or/and/xor (u32) and 64-bit add", dim(1024, 1, 1), dim(256, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	acc := b.inout("acc", U32, []uint32{0, 0, 0xffffffff, 0, 0xffffffff, 0})
	wide := b.inout("wide", U64, []uint64{0})
	b.scalar("n", U32, uint32(n))
	w := []uint32{0, 0, 0xffffffff, 0, 0xffffffff, 0}
	var ww uint64
	for i, v := range in {
		w[0] += v
		w[1] = max(w[1], v)
		w[2] = min(w[2], v)
		w[3] |= v
		w[4] &= v | 0xff000000
		w[5] ^= v
		ww += uint64(v) * uint64(i+1)
	}
	b.expect(acc, w)
	b.expect(wide, []uint64{ww})
	return b.done()
}

func atomicCAS() Case {
	const n, nb = 1000, 13
	b := newCase("atomic_cas", "compare-and-swap retry loop adding into 13 buckets", dim(1024, 1, 1), dim(256, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	c := b.out("counter", U32, nb)
	b.scalar("nbuckets", U32, uint32(nb))
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, nb)
	for _, v := range in {
		want[v%nb] += v
	}
	b.expect(c, want)
	return b.done()
}

func indirectCall() Case {
	const n = 500
	b := newCase("indirect_call", "calls through a function-pointer table (relocated code addresses, waterfall loop)", dim(512, 1, 1), dim(64, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	o := b.out("out", U32, n)
	b.scalar("n", U32, uint32(n))
	b.hiddenWithPointers([3]uint64{}, 1)
	want := make([]uint32, n)
	for i, v := range in {
		switch v & 3 {
		case 0:
			want[i] = v*3 + 1
		case 1:
			want[i] = v ^ 0xdeadbeef
		case 2:
			want[i] = v<<5 | v>>27
		default:
			want[i] = v / 7
		}
	}
	b.expect(o, want)
	return b.done()
}

func ldsBigDynamic() Case {
	const groups, wg, words = 4, 256, 96 * 1024 / 4
	b := newCase("lds_big_dynamic", "96 KiB of dynamic LDS per group: needs virtual LDS on 64 KiB hosts", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	b.targets(gfx950Only)
	in := b.rng.u32s(groups)
	b.in("in", U32, in)
	o := b.out("out", U32, groups*wg)
	b.dynLDS("tmp", U32, words)
	b.scalar("words", U32, uint32(words))
	want := make([]uint32, groups*wg)
	for g := uint32(0); g < groups; g++ {
		for t := uint32(0); t < wg; t++ {
			var acc uint32
			for k := uint32(0); k < 64; k++ {
				j := (t*97 + k*389) % words
				acc += in[g]*j + g
			}
			want[g*wg+t] = acc
		}
	}
	b.expect(o, want)
	return b.done()
}

func streamCompact() Case {
	const groups, wg = 4, 256
	b := newCase("stream_compact", "per-group stable compaction with wave ballots and v_mbcnt ranks", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.u32s(groups * wg)
	b.in("in", U32, in)
	o := b.out("out", U32, groups*wg)
	cnt := b.out("count", U32, groups)
	wo, wc := make([]uint32, groups*wg), make([]uint32, groups)
	for g := 0; g < groups; g++ {
		for _, v := range in[g*wg : (g+1)*wg] {
			if v%3 == 0 {
				wo[g*wg+int(wc[g])] = v
				wc[g]++
			}
		}
	}
	b.expect(o, wo)
	b.expect(cnt, wc)
	return b.done()
}
