package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// islandKernel writes a gfx950 test kernel whose far branches only go out
// of SOPP range once translated: between a loop head and its latch sit n
// v_bitop3_b32 words (gfx950-only, 8 bytes each, expanded to several
// instructions on the host). The loop head branches forward over them
// (s_cbranch_scc1, taken when the buffer's first dword is 0), the latch
// branches back unconditionally and leaves through a near conditional.
// Every SGPR below the descriptor's count minus 6 (s0-s25) holds a value
// stored at the end, so no SGPR pair is dead at any far branch: a long
// window is impossible and the translator must use branch islands.
func islandKernel(t *testing.T, n int) string {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n")
	s.WriteString("  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n  s_load_dword s10, s[8:9], 0x0\n")
	for r := 2; r < 26; r++ {
		if r >= 8 && r <= 10 {
			continue
		}
		fmt.Fprintf(&s, "  s_mov_b32 s%d, %#x\n", r, 0x1000*r+r)
	}
	s.WriteString("  s_mov_b32 s11, 0\n  v_mov_b32 v1, 0xf0f0f0f0\n  v_mov_b32 v2, 0xcccc3333\n  v_mov_b32 v3, 0x5a5aa5a5\n  v_mov_b32 v5, v0\n  v_mov_b32 v6, 0\n  s_waitcnt lgkmcnt(0)\n")
	s.WriteString("LOOP:\n  v_add_u32 v6, v6, 1\n  s_cmp_eq_u32 s10, 0\n  s_cbranch_scc1 FAR\n")
	for i := 0; i < n; i++ {
		lut := uint32(i*37+11) & 0xff
		abs, neg, omod := lut&7, lut>>3&7, lut>>6&3
		src1 := uint32(256 + 2 + i%2) // v2 or v3
		w0 := 0xd2340000 | abs<<8 | 5
		w1 := neg<<29 | omod<<27 | (256+1)<<18 | src1<<9 | (256 + 5)
		fmt.Fprintf(&s, "  .long %#x, %#x\n", w0, w1)
		if i%64 == 63 {
			s.WriteString("  v_add_u32 v5, v5, v0\n")
		}
	}
	s.WriteString("FAR:\n  s_add_u32 s11, s11, 1\n  s_cmp_ge_u32 s11, 3\n  s_cbranch_scc1 DONE\n  s_branch LOOP\nDONE:\n")
	s.WriteString("  v_lshlrev_b32 v4, 2, v0\n  global_store_dword v4, v5, s[8:9] offset:256\n  global_store_dword v4, v6, s[8:9] offset:512\n")
	for r := 0; r < 26; r++ {
		fmt.Fprintf(&s, "  v_mov_b32 v7, s%d\n  v_add_u32 v8, %d, v4\n  global_store_dword v8, v7, s[8:9]\n", r, 768+256*r)
	}
	s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 16\n  .amdhsa_next_free_sgpr 26\n  .amdhsa_accum_offset 16\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "islands.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// islandBufSize is the test kernel's buffer: the mode dword, v5, v6 and
// the 26 SGPRs per lane.
const islandBufSize = 768 + 256*26

// TestBranchIslandsGFX942 and TestBranchIslandsGFX12 translate the
// island kernel (guest distances below 96 KiB, host distances of several
// hundred KiB) and run guest (simulated gfx950) and translation (simulated
// host) with the far paths taken and not taken: memory must be equal bit
// for bit, the report must show island branches and no long window. It
// runs with dead scratch registers and with every scratch VGPR of the
// expansions borrowed (saved to private memory around them).
func TestBranchIslandsGFX942(t *testing.T) { testBranchIslands(t, isa.GFX942, "gfx942") }

// TestBranchIslandsGFX12 is TestBranchIslandsGFX942 for gfx1201 (wave64).
func TestBranchIslandsGFX12(t *testing.T) { testBranchIslands(t, isa.GFX1201, "gfx1201") }

func testBranchIslands(t *testing.T, host isa.Target, hostName string) {
	if testing.Short() {
		t.Skip("large kernel")
	}
	guest := buildGuestFrom(t, islandKernel(t, 15000))
	for _, spill := range []bool{false, true} {
		t.Run(map[bool]string{false: "dead-scratch", true: "borrowed-scratch"}[spill], func(t *testing.T) {
			branchIslands(t, guest, host, hostName, spill)
		})
	}
}

// branchIslands translates the island kernel (with every scratch VGPR
// borrowed when spill) and compares guest and host runs.
func branchIslands(t *testing.T, guest []byte, host isa.Target, hostName string, spill bool) {
	res, err := Translate(guest, Options{Name: "islands", Host: host, forceSpill: spill})
	if err != nil {
		var b strings.Builder
		_ = res.Report.WriteText(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	k := res.Report.Kernels[0]
	if k.IslandBranches < 2 || k.LongBranches != 0 {
		t.Fatalf("island branches %d, long windows %d; want >= 2 and 0", k.IslandBranches, k.LongBranches)
	}
	// Every word decodes for the host and every branch lands on an
	// instruction (LLVM oracles).
	if host == isa.GFX942 {
		verifyObject(t, "islands", guest, res.Object)
	} else {
		verifyObject12(t, "islands", host, guest, res.Object)
	}
	if k.IslandHops < 2*k.IslandBranches {
		t.Fatalf("%d island stubs on the routes of %d branches: want chains (at least 2 each)", k.IslandHops, k.IslandBranches)
	}
	if k.HostBytes < 2*128<<10 {
		t.Fatalf("host body %d bytes: too small for chained islands", k.HostBytes)
	}
	t.Logf("%s: guest .text %d bytes, host body %d bytes, %d island branches, %d stubs on their routes", hostName, res.Report.SourceText, k.HostBytes, k.IslandBranches, k.IslandHops)
	for mode := uint32(0); mode < 2; mode++ {
		init := make([]byte, islandBufSize)
		binary.LittleEndian.PutUint32(init, mode)
		want := runKernelInit(t, guest, "gfx950", init)
		got := runKernelInit(t, res.Object, hostName, init)
		for _, r := range []int{0, 1, 8, 9} { // kernarg and buffer addresses differ between agents
			clear(want[768+256*r : 1024+256*r])
			clear(got[768+256*r : 1024+256*r])
		}
		if !bytes.Equal(want, got) {
			for i := 0; i < len(want); i += 4 {
				if !bytes.Equal(want[i:i+4], got[i:i+4]) {
					t.Fatalf("mode %d: dword %d: guest %#x, host %#x", mode, i/4, binary.LittleEndian.Uint32(want[i:]), binary.LittleEndian.Uint32(got[i:]))
				}
			}
		}
		if v6 := binary.LittleEndian.Uint32(want[512:]); v6 != 3 {
			t.Fatalf("mode %d: the loop ran %d times, want 3", mode, v6)
		}
	}
}

// TestFarCallNeverThroughIslandsKernel: a gfx950 kernel calls a helper
// (s_call_b64) across v_bitop3_b32 words that put it out of SOPP range
// once translated, with every SGPR below the descriptor's count minus 6
// live. The forward s_branch over the helper goes through islands; the
// call may not, so the translation is rejected at the call with that
// reason, instead of routing a call (whose return address is the window's
// own PC) through a stub.
func TestFarCallNeverThroughIslandsKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("large kernel")
	}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n")
	s.WriteString("  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	for r := 2; r < 42; r++ {
		if r == 8 || r == 9 || r == 30 || r == 31 {
			continue
		}
		fmt.Fprintf(&s, "  s_mov_b32 s%d, %d\n", r, r)
	}
	s.WriteString("  v_mov_b32 v1, 1\n  v_mov_b32 v2, 2\n  v_mov_b32 v5, v0\n  s_branch MAIN\nHELPER:\n")
	for i := 0; i < 15000; i++ {
		fmt.Fprintf(&s, "  .long %#x, %#x\n", 0xd2340000|uint32(i&7)<<8|5, uint32(i>>3&7)<<29|(256+1)<<18|(256+2)<<9|(256+5))
	}
	s.WriteString("  s_setpc_b64 s[30:31]\nMAIN:\n  s_call_b64 s[30:31], HELPER\n  s_waitcnt lgkmcnt(0)\n  v_lshlrev_b32 v4, 2, v0\n")
	for r := 0; r < 42; r++ {
		fmt.Fprintf(&s, "  v_mov_b32 v7, s%d\n  global_store_dword v4, v7, s[8:9]\n", r)
	}
	s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 16\n  .amdhsa_next_free_sgpr 42\n  .amdhsa_accum_offset 16\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "farcall.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	res, err := Translate(guest, Options{Name: "farcall"})
	if err == nil {
		t.Fatal("a far call with no scratch SGPR pair translated")
	}
	rej := res.Report.Kernels[0].Rejections
	if len(rej) != 1 || rej[0].Mnemonic != "s_call_b64" || !strings.Contains(rej[0].Reason, "direct calls cannot") {
		t.Fatalf("want one rejection at s_call_b64 naming islands, got %+v", rej)
	}
	if res.Report.Kernels[0].IslandBranches != 1 {
		t.Fatalf("the s_branch over the helper: %d island branches, want 1", res.Report.Kernels[0].IslandBranches)
	}
}
