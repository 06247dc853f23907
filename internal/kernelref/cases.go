package kernelref

// registry lists every case in a fixed order, one per kernel of
// testdata/kernels/src (file name = kernel name).
var registry = []entry{
	{"vector_add", vectorAdd},
	{"saxpy", saxpy},
	{"reduce_sum_u32", reduceSumU32},
	{"reduce_sum_f32", reduceSumF32},
	{"prefix_scan_u32", prefixScanU32},
	{"matmul_naive", matmulNaive},
	{"matmul_tiled", matmulTiled},
	{"histogram", histogram},
	{"transpose", transpose},
	{"bitonic_sort_local", bitonicSortLocal},
	{"bitonic_step", bitonicStep},
	{"call_noinline", callNoinline},
	{"private_scratch", privateScratch},
	{"int64_arith", int64Arith},
	{"fp64_arith", fp64Arith},
	{"int_divmod", intDivmod},
	{"mfma_f32_32x32x8f16", mfmaF32x32x32x8f16},
	{"mfma_f32_16x16x16f16", mfmaF32x16x16x16f16},
	{"mfma_i32_16x16x32i8", mfmaI32x16x16x32i8},
	{"wmma_f32_16x16x16f16", wmmaF32x16x16x16f16},
	{"wmma_i32_16x16x16iu8", wmmaI32x16x16x16iu8},
	{"gfx12_buffer_oob", gfx12BufferOOB},
	{"gfx12_permlane", gfx12Permlane},
	{"shuffle_bpermute", shuffleBpermute},
	{"lds_atomics", ldsAtomics},
	{"grid2d", grid2d},
	{"grid3d", grid3d},
	{"bitmanip", bitmanip},
	{"half_arith", halfArith},
	{"conversions", conversions},
	{"select_minmax", selectMinmax},
	{"early_exit_loop", earlyExitLoop},
	{"many_kernargs", manyKernargs},
	{"divergence", divergence},
	{"transcendental", transcendental},
	{"stencil_lds", stencilLDS},
	{"global_atomics", globalAtomics},
	{"atomic_cas", atomicCAS},
	{"vector_float4", vectorFloat4},
	{"byte_short_memory", byteShortMemory},
	{"hidden_args", hiddenArgs},
	{"dynamic_lds", dynamicLDS},
	{"indirect_call", indirectCall},
	{"stream_compact", streamCompact},
	{"lds_big_dynamic", ldsBigDynamic},
	{"fp8_fnuz_to_f32", fp8FNUZToF32},
	{"fp8_ocp_to_f32", fp8OCPToF32},
	{"gfx950_cvt_pk_bf16_f32", gfx950CvtPkBF16F32},
	{"gfx950_cvt_f32_bf16", gfx950CvtF32BF16},
	{"gfx950_permlane16_swap", gfx950Permlane16Swap},
	{"gfx950_permlane32_swap", gfx950Permlane32Swap},
	{"gfx950_bitop3", gfx950Bitop3},
	{"gfx950_mfma_f32_16x16x32_f16", gfx950MfmaF32x16x16x32f16},
	{"gfx950_mfma_f32_32x32x16_f16", gfx950MfmaF32x32x32x16f16},
	{"gfx950_cvt_pk_f16_f32", gfx950CvtPkF16F32},
	{"gfx950_global_load_lds", gfx950GlobalLoadLDS},
	{"gfx950_minmax3", gfx950Minmax3},
	{"gfx950_scalecvt", gfx950ScaleCvt},
	{"gfx950_permlane_self_swap", gfx950PermlaneSelfSwap},
	{"gfx950_mfma_scale_agpr", gfx950MfmaScaleAGPR},
}

// entry names one case constructor.
type entry struct {
	name string
	mk   func() Case
}

func dim(x, y, z uint32) [3]uint32 { return [3]uint32{x, y, z} }

func vectorAdd() Case {
	const n = 1000
	b := newCase("vector_add", "c[i] = a[i] + b[i] (f32); grid larger than n", dim(1024, 1, 1), dim(64, 1, 1))
	a := b.rng.f32s(n, -100, 100)
	bb := b.rng.f32s(n, -100, 100)
	b.in("a", F32, a)
	b.in("b", F32, bb)
	c := b.out("c", F32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]float32, n)
	for i := range want {
		want[i] = a[i] + bb[i]
	}
	b.expect(c, want)
	return b.done()
}

func saxpy() Case {
	const n = 1000
	const alpha = float32(2.5)
	b := newCase("saxpy", "y[i] = a*x[i] + y[i] (f32, multiply and add rounded separately)", dim(1024, 1, 1), dim(128, 1, 1))
	x := b.rng.f32s(n, -10, 10)
	y := b.rng.f32s(n, -10, 10)
	b.scalar("a", F32, alpha)
	b.in("x", F32, x)
	yi := b.inout("y", F32, y)
	b.scalar("n", U32, uint32(n))
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(alpha*x[i]) + y[i]
	}
	b.expect(yi, want)
	return b.done()
}

func reduceSumU32() Case {
	const groups, wg = 8, 256
	b := newCase("reduce_sum_u32", "per-group sum of 256 u32 in LDS (tree, barriers)", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.u32s(groups * wg)
	b.in("in", U32, in)
	o := b.out("out", U32, groups)
	want := make([]uint32, groups)
	for g := range want {
		for _, v := range in[g*wg : (g+1)*wg] {
			want[g] += v
		}
	}
	b.expect(o, want)
	return b.done()
}

func reduceSumF32() Case {
	const groups, wg = 8, 256
	b := newCase("reduce_sum_f32", "per-group f32 sum in LDS, halving tree order", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.f32s(groups*wg, -1, 1)
	b.in("in", F32, in)
	o := b.out("out", F32, groups)
	want := make([]float32, groups)
	for g := range want {
		s := append([]float32(nil), in[g*wg:(g+1)*wg]...)
		for stride := wg / 2; stride > 0; stride >>= 1 {
			for t := 0; t < stride; t++ {
				s[t] += s[t+stride]
			}
		}
		want[g] = s[0]
	}
	b.expect(o, want)
	return b.done()
}

func prefixScanU32() Case {
	const groups, wg = 4, 128
	b := newCase("prefix_scan_u32", "inclusive u32 prefix sum per 128-item group (Hillis-Steele in LDS)", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.u32s(groups * wg)
	b.in("in", U32, in)
	o := b.out("out", U32, groups*wg)
	want := make([]uint32, groups*wg)
	for g := 0; g < groups; g++ {
		var s uint32
		for t := 0; t < wg; t++ {
			s += in[g*wg+t]
			want[g*wg+t] = s
		}
	}
	b.expect(o, want)
	return b.done()
}

// matmulRef is C = A*B with one rounding per multiply and per add, k in
// increasing order, starting from +0.
func matmulRef(A, B []float32, M, N, K int) []float32 {
	C := make([]float32, M*N)
	for r := 0; r < M; r++ {
		for c := 0; c < N; c++ {
			var acc float32
			for k := 0; k < K; k++ {
				acc += float32(A[r*K+k] * B[k*N+c])
			}
			C[r*N+c] = acc
		}
	}
	return C
}

func matmulCase(name, doc string, M, N, K int) Case {
	b := newCase(name, doc, dim(uint32(N), uint32(M), 1), dim(16, 16, 1))
	A := b.rng.f32s(M*K, -2, 2)
	B := b.rng.f32s(K*N, -2, 2)
	b.in("A", F32, A)
	b.in("B", F32, B)
	c := b.out("C", F32, M*N)
	b.scalar("M", U32, uint32(M))
	b.scalar("N", U32, uint32(N))
	b.scalar("K", U32, uint32(K))
	b.expect(c, matmulRef(A, B, M, N, K))
	return b.done()
}

func matmulNaive() Case {
	return matmulCase("matmul_naive", "C = A*B (f32, 32x24 * 24x48), one item per element, 2-D grid", 32, 48, 24)
}

func matmulTiled() Case {
	return matmulCase("matmul_tiled", "C = A*B (f32, 32x32 * 32x48) through 16x16 LDS tiles", 32, 48, 32)
}

func histogram() Case {
	const n, nbins = 4000, 37
	b := newCase("histogram", "37-bin histogram with global atomic adds", dim(4096, 1, 1), dim(256, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	bins := b.out("bins", U32, nbins)
	b.scalar("n", U32, uint32(n))
	b.scalar("nbins", U32, uint32(nbins))
	want := make([]uint32, nbins)
	for _, v := range in {
		want[v%nbins]++
	}
	b.expect(bins, want)
	return b.done()
}

func transpose() Case {
	const W, H = 64, 32
	b := newCase("transpose", "u32 transpose of a 32x64 matrix through a padded LDS tile", dim(W, H, 1), dim(16, 16, 1))
	in := b.rng.u32s(W * H)
	b.in("in", U32, in)
	o := b.out("out", U32, W*H)
	b.scalar("W", U32, uint32(W))
	b.scalar("H", U32, uint32(H))
	want := make([]uint32, W*H)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			want[x*H+y] = in[y*W+x]
		}
	}
	b.expect(o, want)
	return b.done()
}

// bitonicStepRef is one compare-exchange step (j, k) over s.
func bitonicStepRef(s []uint32, j, k int) {
	for t := range s {
		p := t ^ j
		if p > t {
			a, bb := s[t], s[p]
			up := t&k == 0
			if (a > bb) == up {
				s[t], s[p] = bb, a
			}
		}
	}
}

func bitonicSortLocal() Case {
	const groups, wg = 4, 256
	b := newCase("bitonic_sort_local", "sort each group's 256 u32 keys in LDS (bitonic network)", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.u32sBelow(groups*wg, 5000) // duplicates on purpose
	d := b.inout("data", U32, in)
	want := append([]uint32(nil), in...)
	for g := 0; g < groups; g++ {
		s := want[g*wg : (g+1)*wg]
		for k := 2; k <= wg; k <<= 1 {
			for j := k >> 1; j > 0; j >>= 1 {
				bitonicStepRef(s, j, k)
			}
		}
	}
	b.expect(d, want)
	return b.done()
}

func bitonicStep() Case {
	const n, j, k = 1024, 4, 32
	b := newCase("bitonic_step", "one global bitonic compare-exchange step (j=4, k=32)", dim(n, 1, 1), dim(256, 1, 1))
	in := b.rng.u32s(n)
	d := b.inout("data", U32, in)
	b.scalar("j", U32, uint32(j))
	b.scalar("k", U32, uint32(k))
	want := append([]uint32(nil), in...)
	bitonicStepRef(want, j, k)
	b.expect(d, want)
	return b.done()
}

func rotl32(x, r uint32) uint32 { return x<<(r&31) | x>>((32-r)&31) }

func callNoinline() Case {
	const n = 500
	b := newCase("call_noinline", "hash through two non-inlined device functions", dim(512, 1, 1), dim(64, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	o := b.out("out", U32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, n)
	for i := range want {
		x := in[i] ^ uint32(i)*0x9e3779b9
		x = rotl32(x, uint32(i)&31) * 0x85ebca6b
		want[i] = x ^ x>>13
	}
	b.expect(o, want)
	return b.done()
}

func privateScratch() Case {
	const n = 256
	b := newCase("private_scratch", "64-entry private array with dynamic indexes (scratch memory)", dim(n, 1, 1), dim(64, 1, 1))
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	o := b.out("out", U32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, n)
	for i := range want {
		var arr [64]uint32
		v := in[i]
		for j := range arr {
			arr[j] = uint32(j*j) ^ v
		}
		for r := uint32(0); r < 16; r++ {
			idx := (v >> ((r % 4) * 8)) % 64
			arr[(idx+r)%64] += arr[idx]
		}
		var acc uint32
		for r := uint32(0); r < 8; r++ {
			acc += arr[(v>>r)%64] * (r + 1)
		}
		want[i] = acc
	}
	b.expect(o, want)
	return b.done()
}

func hiddenArgs() Case {
	const n, off = 200, 7
	b := newCase("hidden_args", "reads implicit kernel arguments (block counts, group size, remainder, global offset, grid dims)", dim(n, 1, 1), dim(64, 1, 1))
	o := b.out("out", U32, 4*n)
	b.scalar("n", U32, uint32(n))
	b.hidden([3]uint64{off, 0, 0}, 1)
	want := make([]uint32, 4*n)
	for i := range n {
		g := i / 64
		want[4*i] = uint32(i + off)
		want[4*i+1] = 64
		if g == n/64 {
			want[4*i+1] = n % 64
		}
		want[4*i+2] = (n + 63) / 64
		want[4*i+3] = 1
	}
	b.expect(o, want)
	return b.done()
}

func dynamicLDS() Case {
	const groups, wg = 4, 128
	b := newCase("dynamic_lds", "__local pointer argument: LDS sized at dispatch, per-group reversal", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	in := b.rng.u32s(groups * wg)
	b.in("in", U32, in)
	o := b.out("out", U32, groups*wg)
	b.dynLDS("tmp", U32, wg)
	want := make([]uint32, groups*wg)
	for g := 0; g < groups; g++ {
		for t := 0; t < wg; t++ {
			want[g*wg+t] = in[g*wg+wg-1-t]*2 + uint32(t)
		}
	}
	b.expect(o, want)
	return b.done()
}
