package verify

import (
	"math"
	"regexp"
	"sync"
)

// Profiles are the argument profiles of the aiter gfx950 kernel families
// (../shared/corpus/aiter). Each field's offset and name are the code
// object metadata's; how the kernel uses it was read from
// `rocjitsu disasm` (the s_load of the slot and what the loaded SGPR
// feeds), and the values were chosen so that one workgroup runs whole
// tiles: the first tile's main loop, its stores inside the buffer
// ranges the kernel derives from the sizes. The table (and its kernel-name
// patterns) is built on the first call; every call returns the same slice.
var Profiles = sync.OnceValue(func() []Profile {
	return []Profile{
		{
			// bf16gemm_bf16_tn_256x256[_bpreshuffle]: 256x256 output tile of
			// 4 waves. The workgroup's tile follows from Mdim (s43, 0xe0) and
			// Ndim (s44, 0xf0) rounded up to 256; the K loop runs
			// "s_cmp_lt_i32 s49, s50" with s50 = Kdim (0x100), 64 per step;
			// A and B buffer ranges are strideA0*Mdim and strideB0*Ndim bytes
			// (s_mul_i32 s51, s41, s43), the output range
			// min(Mdim-row, 256)*strideC0 (0x80) bytes; is_out_b16 (0x120,
			// "s_cmp_lt_u32 s59, 1") picks bf16 output. Strides are bytes.
			Name:        "aiter-bf16gemm",
			Kernel:      regexp.MustCompile(`^_ZN5aiter\d+bf16gemm_bf16_tn_`),
			KernargSize: 352,
			Fields: []Field{
				f32("alpha", 64, 1), f32("beta", 80, 0),
				u32("strideD0", 96, 512), u32("strideD1", 112, 0),
				u32("strideC0", 128, 512), u32("strideC1", 144, 0),
				u32("strideA0", 160, 256), u32("strideA1", 176, 0),
				u32("strideB0", 192, 256), u32("strideB1", 208, 0),
				u32("Mdim", 224, 256), u32("Ndim", 240, 256), u32("Kdim", 256, 128),
				u32("splitk", 272, 0), u32("is_out_b16", 288, 1), u32("add_bias", 320, 0),
			},
		},
		{
			// f4gemm_bf16_per1x32Fp4_BpreShuffle_128x{128,256}: 128-row
			// tiles (s_add_u32 s51, s43, 0x7f; s_lshr_b32 s62, s51, 7 on
			// Mdim). Strides are elements: strideA0 (0xa0) and strideB0
			// (0xc0) are halved into fp4 bytes (s_lshr_b32 s37, s37, 1),
			// strideC0 (0x80) doubled into bf16 bytes (s_lshl_b32 s36, s36,
			// 1); the scale strides (0x130, 0x150) multiply rows of e8m0
			// bytes, one per 32 K elements. The K loop runs "s_cmp_lt_i32
			// s60, s61" against Kdim (0x100, s61 = s45).
			Name:        "aiter-f4gemm",
			Kernel:      regexp.MustCompile(`^_ZN5aiter\d+f4gemm_bf16_per1x32Fp4_`),
			KernargSize: 384,
			Fields: []Field{
				f32("alpha", 64, 1), f32("beta", 80, 0),
				u32("strideD0", 96, 256), u32("strideD1", 112, 0),
				u32("strideC0", 128, 256), u32("strideC1", 144, 0),
				u32("strideA0", 160, 512), u32("strideA1", 176, 0),
				u32("strideB0", 192, 512), u32("strideB1", 208, 0),
				u32("Mdim", 224, 128), u32("Ndim", 240, 256), u32("Kdim", 256, 512),
				u32("strideScaleA0", 304, 16), u32("strideScaleA1", 320, 0),
				u32("strideScaleB0", 336, 16), u32("strideScaleB1", 352, 0),
				u32("log2_k_split", 368, 0),
			},
		},
		{
			// fmha_fwd_hd128_bf16[_causal]: 8 waves, one 256-row Q tile per
			// workgroup x. The K/V loop runs 64 keys a step up to kv_seq_len
			// (0x110, s7; "s_cmp_le_u32 s7, 0" skips it, s_lshr_b32 s54, s7,
			// 6). Buffer ranges are seq_len (0x60) times Seqs (0x70, Q row
			// stride), kv_seq_len times k_Seqs (0xc0) and v_Seqs (0x150),
			// seq_len times r_Seqs (0x180) and seq_len*4 for LSE; the head
			// and batch strides (Hs, Bs, k_Hs, ...) multiply the workgroup y
			// and z IDs. Strides are bytes: rows of 128 bf16.
			Name:        "aiter-fmha-v3-fwd",
			Kernel:      regexp.MustCompile(`^_ZN5aiter\d+fmha_fwd_hd128_bf16`),
			KernargSize: 512,
			Fields: []Field{
				f32("scalar", 80, 0.08838835), u32("seq_len", 96, 256), u32("Seqs", 112, 256),
				u32("Ts", 128, 256*256), u32("Hs", 144, 256*256), u32("Bs", 160, 256*256),
				u32("gqa", 176, 1), u32("k_Seqs", 192, 256), u32("k_Hs", 208, 128*256), u32("k_Bs", 224, 128*256),
				u32("msk_opt", 240, 0), u32("lse", 256, 1), u32("kv_seq_len", 272, 128),
				u32("qk_head_dim", 288, 128), u32("v_head_dim", 304, 128), u32("q_head_num", 320, 1),
				u32("v_Seqs", 336, 256), u32("v_Hs", 352, 128*256), u32("v_Bs", 368, 128*256),
				u32("r_Seqs", 384, 256), u32("r_Hs", 400, 256*256), u32("r_Bs", 416, 256*256),
				u32("lse_Hs", 464, 256*4),
			},
		},
		{
			// topksoftmax_12x128x4[_bf16]: 12 rows per workgroup (s_mul_i32
			// s21, s19, 12 on the workgroup ID), three per wave, rows of
			// expert (0x40) f32 (or bf16) scores; the input range is
			// batch*expert*4 bytes (s_mul_i32 s20, s16, s17), the outputs'
			// batch*out_stride (0x70, bytes per row of topk results).
			Name:        "aiter-topksoftmax",
			Kernel:      regexp.MustCompile(`^_ZN5aiter\d+topksoftmax_12x128x4`),
			KernargSize: 128,
			Fields: []Field{
				u32("batch", 48, 12), u32("expert", 64, 128), u32("topk", 80, 4),
				u32("renormalize", 96, 1), u32("out_stride", 112, 16),
			},
		},
		{
			// mla_a16w16_qh16_m16x4_n32x1 (MLA decode, 576-wide bf16 keys):
			// the workgroup y ID picks the batch, whose KV range the kernel
			// loads from LTP (s_load_dword s47/s46 at LTP+4*y, the length
			// s46-s47 compared with 32*z: "s_cmp_le_u32 s50, s45" exits), its
			// work split from STP (s85-s86 must exceed the z ID) and its query
			// range from QTP; LTD lists the KV pages (one token each here,
			// log2_plen 0). MQA (0x80) is the query heads (16 per 64-row
			// workgroup x: "s_cmp_le_u32 s65, s80" exits), Q rows 0x480
			// bytes each (s_mul_i32 s74, 0x480, s65). Two batches (the harness's second
			// row of workgroups) of one query over 64 KV tokens each, no split.
			Name:        "aiter-mla-m16x4",
			Kernel:      regexp.MustCompile(`^_ZN5aiter\d+mla_a16w16_qh16_m16x4_`),
			KernargSize: 320,
			Fields: []Field{
				f32("scalar", 112, 0.041666668), u32("MQA", 128, 16), u32("kv_split", 144, 1),
				u32("Q_Bs", 160, 16*0x480), u32("Bs", 176, 1), u32("log2_plen", 192, 0), u32("out16", 288, 1),
			},
			Data: []Data{
				{Arg: "LTP", Words: []uint32{0, 64, 128}},
				{Arg: "LTD", Words: seq(0, 128)},
				{Arg: "LTL", Words: []uint32{1, 1}},
				{Arg: "QTP", Words: []uint32{0, 1, 2}},
				{Arg: "STP", Words: []uint32{0, 1, 2}},
			},
		},
		{
			// mla_a16w16_qh16_m32x1_n16x1: the same MLA decode with the
			// pa-style argument names of its metadata: BT (0x40) holds the KV
			// index pointer (s47/s46 at BT+4*y, length compared with 16*z),
			// CL (0x50) the KV page list, KQ (0x60) the last page lengths, QT
			// (0xd0) the query index pointer (its length must exceed the
			// workgroup x ID: "s_cmp_le_u32 s81, s80" exits); 32 query heads
			// (s_mov_b32 s65, 32) and batch (0x90) scaling the split stride.
			Name:        "aiter-mla-m32x1",
			Kernel:      regexp.MustCompile(`^_ZN5aiter\d+mla_a16w16_qh16_m32x1_`),
			KernargSize: 288,
			Fields: []Field{
				f32("sclg", 112, 0.041666668), u32("mblk", 128, 16), u32("batch", 144, 1),
				u32("Qs", 160, 32*0x480), u32("Bs", 176, 1), u32("Cs", 192, 0),
			},
			Data: []Data{
				{Arg: "BT", Words: []uint32{0, 64, 128}},
				{Arg: "CL", Words: seq(0, 128)},
				{Arg: "KQ", Words: []uint32{1, 1}},
				{Arg: "QT", Words: []uint32{0, 1, 2}},
			},
		},
		fmhaV4Profile("aiter-fmha-v4-fwd-f4f4", "fmha_fwd_hd128_f4f4_"),
		fmhaV4Profile("aiter-fmha-v4-fwd-f6f4", "fmha_fwd_hd128_f6f4_"),
		gemm8Profile("aiter-fp8gemm-blockscale", "fp8gemm_bf16_blockscale_BpreShuffle_", 256),
		gemm8Profile("aiter-i8gemm", "I8gemm_bf16_perTokenI8_BpreShuffle_", 208),
		paProfile("aiter-pa-gqa8", "pa_bf16_noquant_gqa8_", 8),
		paProfile("aiter-pa-gqa16", "pa_bf16_noquant_gqa16_", 16),
	}
})

// paProfile is the profile of the paged-attention decode kernels
// pa_bf16_noquant_gqaG_1tg_4w: the workgroup y ID picks the sequence,
// whose context length the kernel loads from CL (s_load_dword s72,
// s[28:29] after adding 4*y) and whose block table row of mblk (0x90)
// words starts at BT + y*mblk*4; ceil(len/16) blocks of 16 tokens are
// read (s_add_u32 s73, s72, 15; s_lshr_b32 s73, s73, 4). Q's head group
// is 256*GQA bytes (s_mul_i32 s67, 0x100, s77 on GQA, 0xf0), Qs (0xb0)
// its batch stride; K and V advance KVs (0xd0) per KV head and Bs (0xc0)
// per cache block. Two sequences (the harness's second row of
// workgroups) of 256 tokens each, in blocks 0..15 and 16..31.
func paProfile(name, kernel string, gqa uint32) Profile {
	return Profile{
		Name:        name,
		Kernel:      regexp.MustCompile(`^_ZN5aiter\d+` + kernel),
		KernargSize: 272,
		Fields: []Field{
			f32("sclg", 128, 0.08838835), u32("mblk", 144, 16), u32("batch", 160, 1),
			u32("Qs", 176, 256*gqa), u32("Bs", 192, 16*256), u32("KVs", 208, 16*16*256),
			u32("mtp", 224, 0), u32("GQA", 240, gqa),
		},
		Data: []Data{
			{Arg: "CL", Words: []uint32{256, 256}},
			{Arg: "BT", Words: seq(0, 32)},
		},
	}
}

// gemm8Profile is the profile of the 8-bit preshuffled-B GEMMs
// (fp8gemm_bf16_blockscale_BpreShuffle_*, I8gemm_bf16_perTokenI8_BpreShuffle_*):
// M (0x60), Ndim (0x70) and K (0x80) are elements; the workgroup x ID is
// split by KS (0xc0, the split-K count, a divisor: v_rcp_iflag_f32 on
// s38) into N tiles of 128 and K parts; A's rows advance PA (0x90) bytes,
// B's PB (0xa0), C's PC (0xb0, bf16 rows: s_mul_i32 s51, s50, s37 on
// 128-row tiles); the buffer ranges are min(M-row, tile)*stride. The
// block-scale variant's scale_m/n/k (0xd0..0xf0) count the per-token and
// 128-wide block scales. Problem: 128x128 output, K = 512.
func gemm8Profile(name, kernel string, size int) Profile {
	p := Profile{
		Name:        name,
		Kernel:      regexp.MustCompile(`^_ZN5aiter\d+` + kernel),
		KernargSize: size,
		Fields: []Field{
			u32("M", 96, 128), u32("Ndim", 112, 128), u32("K", 128, 512),
			u32("PA", 144, 512), u32("PB", 160, 512), u32("PC", 176, 256), u32("KS", 192, 1),
		},
	}
	if size >= 256 {
		p.Fields = append(p.Fields, u32("scale_m", 208, 128), u32("scale_n", 224, 1), u32("scale_k", 240, 4))
	}
	return p
}

// raw is a 4-byte integer at off inside a struct argument.
func raw(off int, v uint32) Field {
	return Field{Offset: off, Size: 4, Value: uint64(v)}
}

// fmhaV4Profile is the profile of the fmha_fwd_hd128_{f4f4,f6f4}_gfx950
// kernels, whose 656-byte argument is one struct (_kernarg_raw): the
// pointers are the slots the code loads with s_load_dwordx2 (0x0 output,
// 0x10 Q, 0x20 K, 0x30 V, 0x200, 0x210, 0x220 LSE and scales), the sizes
// the dwords it loads: seq_len at 0x60 (256-row Q tiles: "s_cmp_le_u32
// s66, 0x100" clamps the last), kv_seq_len at 0x110 (K and V ranges
// kv*k_Seqs at 0xc0 and ceil(kv/128)*128*v_Seqs at 0x150), Q's row, tile,
// head and batch strides at 0x70, 0x80, 0x90, 0xa0, the GQA ratio at 0xb0
// (a shift: s_cmp_ge_u32 s58, 2/4/8/16), K's head and batch strides at
// 0xd0, 0xe0, the query heads at 0x140, V's at 0x160, 0x170, the bf16
// output's row, head and batch strides at 0x180, 0x190, 0x1a0. Rows of
// 128 4-bit elements are 64 bytes. One head, 256 queries, 512 keys (the main loop runs 128 keys a step
// while a full tile remains, then the masked tail).
func fmhaV4Profile(name, kernel string) Profile {
	return Profile{
		Name:        name,
		Kernel:      regexp.MustCompile(`^_ZN5aiter\d+` + kernel),
		KernargSize: 656,
		Fields: []Field{
			{Offset: 0x50, Size: 4, Value: uint64(math.Float32bits(0.08838835))},
			raw(0x60, 256), raw(0x70, 64), raw(0x80, 256*64), raw(0x90, 256*64), raw(0xa0, 256*64),
			raw(0xb0, 1), raw(0xc0, 64), raw(0xd0, 512*64), raw(0xe0, 512*64),
			raw(0x110, 512), raw(0x140, 1),
			raw(0x150, 64), raw(0x160, 512*64), raw(0x170, 512*64),
			raw(0x180, 256), raw(0x190, 256*256), raw(0x1a0, 256*256),
		},
	}
}
