package mfma

import (
	"math/rand/v2"
	"testing"
)

// lanesOf packs an M x K matrix (A, row-major; for B pass the transpose)
// into per-lane element arrays for a layout with elems elements per lane.
func lanesOf(mat [][]int64, m, elems int) [64][]int64 {
	var lanes [64][]int64
	for l := 0; l < 64; l++ {
		lanes[l] = make([]int64, elems)
		for e := 0; e < elems; e++ {
			r, k := Element(m, elems, l, e)
			lanes[l][e] = mat[r][k]
		}
	}
	return lanes
}

// mfma runs one matrix instruction on lane-resident operands: it decodes
// the layout back into matrices (as the matrix core does) and accumulates.
func mfma(a, b [64][]int64, m, n, elems int, c [][]int64) [][]int64 {
	k := elems * 64 / m
	A := make([][]int64, m)
	for i := range A {
		A[i] = make([]int64, k)
	}
	B := make([][]int64, n)
	for i := range B {
		B[i] = make([]int64, k)
	}
	for l := 0; l < 64; l++ {
		for e := 0; e < elems; e++ {
			r, kk := Element(m, elems, l, e)
			A[r][kk] = a[l][e]
			col, kk := Element(n, elems, l, e)
			B[col][kk] = b[l][e]
		}
	}
	d := make([][]int64, m)
	for i := 0; i < m; i++ {
		d[i] = make([]int64, n)
		for j := 0; j < n; j++ {
			d[i][j] = c[i][j]
			for kk := 0; kk < k; kk++ {
				d[i][j] += A[i][kk] * B[j][kk]
			}
		}
	}
	return d
}

func randMat(r *rand.Rand, rows, cols int) [][]int64 {
	out := make([][]int64, rows)
	for i := range out {
		out[i] = make([]int64, cols)
		for j := range out[i] {
			out[i][j] = int64(r.IntN(255) - 127)
		}
	}
	return out
}

// TestSplitComputesGuestProduct checks, for every split, that the host
// parts on register slices of the guest operands compute A*B + C.
func TestSplitComputesGuestProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, s := range All() {
		if s.Parts*s.HostK != s.GuestK || s.Parts < 2 {
			t.Fatalf("%s: parts %d * host K %d != guest K %d", s.Guest, s.Parts, s.HostK, s.GuestK)
		}
		if s.GuestABRegs()*32 != s.GuestElems()*s.ElemBits {
			t.Fatalf("%s: guest regs %d do not hold %d elements", s.Guest, s.GuestABRegs(), s.GuestElems())
		}
		A := randMat(r, s.M, s.GuestK)
		Bt := randMat(r, s.N, s.GuestK)
		C := randMat(r, s.M, s.N)
		ga := lanesOf(A, s.M, s.GuestElems())
		gb := lanesOf(Bt, s.N, s.GuestElems())
		want := mfma(ga, gb, s.M, s.N, s.GuestElems(), C)
		// Host: part p reads the register slice [p*R, (p+1)*R), i.e.
		// elements [p*HostElems, (p+1)*HostElems) of every lane.
		acc := C
		he := s.HostElems()
		for p := 0; p < s.Parts; p++ {
			var pa, pb [64][]int64
			for l := 0; l < 64; l++ {
				pa[l] = ga[l][p*he : (p+1)*he]
				pb[l] = gb[l][p*he : (p+1)*he]
			}
			acc = mfma(pa, pb, s.M, s.N, he, acc)
		}
		for i := range want {
			for j := range want[i] {
				if acc[i][j] != want[i][j] {
					t.Fatalf("%s: D[%d][%d] = %d, want %d", s.Guest, i, j, acc[i][j], want[i][j])
				}
			}
		}
	}
}

func TestLookup(t *testing.T) {
	s, ok := Lookup("v_mfma_f32_16x16x32_f16_e64")
	if !ok || s.Host != "v_mfma_f32_16x16x16_f16" || s.HostABRegs() != 2 || s.CDRegs() != 4 || s.Exact() || s.Bound() == "" {
		t.Fatalf("Lookup 16x16x32_f16 = %+v, %v", s, ok)
	}
	s, ok = Lookup("v_mfma_i32_32x32x32_i8")
	if !ok || s.HostABRegs() != 2 || s.CDRegs() != 16 || !s.Exact() {
		t.Fatalf("Lookup 32x32x32_i8 = %+v, %v", s, ok)
	}
	if _, ok := Lookup("v_mfma_f32_16x16x128_f8f6f4"); ok {
		t.Fatal("f8f6f4 has no plain split (OCP formats); it must not be in the table")
	}
}
