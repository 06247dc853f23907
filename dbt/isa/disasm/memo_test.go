package disasm

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestMemoSameListing: the GFX9 instruction memo changes neither the
// listing nor the statistics, for the gfx942 and gfx950 corpus and test
// kernels decoded for their own target and for the other GFX9 target
// (gfx950 reads past an 8-byte MAI opcode 0x2c, gfx942 does not).
func TestMemoSameListing(t *testing.T) {
	var files []string
	for _, arch := range []string{"gfx942", "gfx950"} {
		files = append(files, corpus(t, arch)...)
		tk, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", arch, "*.co"))
		files = append(files, tk...)
	}
	hits := 0
	for _, p := range files {
		f, err := objfile.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		other := isa.GFX950
		if f.Target == isa.GFX950 {
			other = isa.GFX942
		}
		for _, c := range []struct {
			tg    isa.Target
			stats bool
		}{{0, false}, {0, true}, {other, false}} {
			opt := Options{Target: c.tg, NoListing: c.stats}
			st1, out1, err1 := AppendListing(nil, f, p, opt)
			opt.noMemo = true
			st2, out2, err2 := AppendListing(nil, f, p, opt)
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(out1, out2) || !reflect.DeepEqual(st1, st2) {
				t.Fatalf("%s (target %v, stats %v): the memo changes the listing", filepath.Base(p), c.tg, c.stats)
			}
			if st1 != nil {
				hits += st1.Instructions
			}
		}
	}
	if hits == 0 {
		t.Fatal("nothing listed")
	}
}

// TestMemoScaledMFMAPair: on gfx950 the first 8 bytes of a 128-bit scaled
// MFMA are a v_mfma_ld_scale_b32 of their own when the MFMA half does not
// follow; the memo must not reuse the standalone decoding where it does.
func TestMemoScaledMFMAPair(t *testing.T) {
	// v_mfma_scale_f32_16x16x128_f8f6f4 (aiter gfx950 corpus): ld_scale
	// half, MFMA half; s_nop 0.
	ld := []uint32{0xD3AC6000, 0x0003118C}
	mf := []uint32{0xD3AD8C00, 0x84021148}
	nop := uint32(0xBF800000)
	var words []uint32
	words = append(words, ld...)
	words = append(words, nop, nop)
	words = append(words, ld...)
	words = append(words, mf...)
	words = append(words, nop, nop)
	data := make([]byte, 4*len(words))
	for i, w := range words {
		data[4*i], data[4*i+1], data[4*i+2], data[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	f := &objfile.File{Target: isa.GFX950, Sections: []objfile.Section{{Name: ".text", Addr: 0x1000, Data: data}},
		Symbols: []objfile.Symbol{{Name: "k", Addr: 0x1000, Func: true}}}
	_, with, err := AppendListing(nil, f, "t.co", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, without, _ := AppendListing(nil, f, "t.co", Options{noMemo: true})
	if !bytes.Equal(with, without) {
		t.Fatalf("memo changes the listing:\n%s\nwant\n%s", with, without)
	}
	if !bytes.Contains(with, []byte("v_mfma_scale_f32_16x16x128_f8f6f4")) || !bytes.Contains(with, []byte("v_mfma_ld_scale_b32")) {
		t.Fatalf("listing lacks the standalone ld_scale or the scaled MFMA:\n%s", with)
	}
}

// TestMemoZeroLiteral: an 8-byte instruction whose literal is zero has the
// key of its first word alone; the memo must not take it for the same
// instruction with another literal (nor the 4-byte instruction that is
// followed by a zero word for an 8-byte one).
func TestMemoZeroLiteral(t *testing.T) {
	movLit := uint32(0xBE8000FF) // s_mov_b32 s0, literal
	nop := uint32(0xBF800000)    // s_nop 0
	words := []uint32{movLit, 0, movLit, 0x12345678, nop, 0, nop, 0x7f, movLit, 0}
	data := make([]byte, 4*len(words))
	for i, w := range words {
		data[4*i], data[4*i+1], data[4*i+2], data[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	f := &objfile.File{Target: isa.GFX942, Sections: []objfile.Section{{Name: ".text", Addr: 0x1000, Data: data}},
		Symbols: []objfile.Symbol{{Name: "k", Addr: 0x1000, Func: true}}}
	_, with, err := AppendListing(nil, f, "t.co", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, without, _ := AppendListing(nil, f, "t.co", Options{noMemo: true})
	if !bytes.Equal(with, without) {
		t.Fatalf("memo changes the listing:\n%s\nwant\n%s", with, without)
	}
	if !bytes.Contains(with, []byte("0x12345678")) {
		t.Fatalf("listing lacks the second literal:\n%s", with)
	}
}

// TestMemoTable checks the table of entry indexes against a map, with
// colliding and zero keys and keys put twice (the first entry stays).
func TestMemoTable(t *testing.T) {
	if memoMaxEntries > memoSlotIndex {
		t.Fatalf("a slot's index bits (%#x) cannot hold %d entries", memoSlotIndex, memoMaxEntries)
	}
	var tab memoTable
	tab.init(1 << 16)
	entries := make([]memoEntry, 1<<15)
	ref := map[uint64]int{}
	x := uint64(1)
	for i := range entries {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		k := x & 0x3fff // many repeats
		if i%7 == 0 {
			k = uint64(i) << 40 // same low bits
		}
		if i == 3 {
			k = 0
		}
		entries[i].key = k
		tab.put(k, i, entries)
		if _, ok := ref[k]; !ok {
			ref[k] = i
		}
	}
	for grown := range 2 {
		for k, v := range ref {
			if got := tab.get(k, entries); got != v {
				t.Fatalf("grown %d: get(%#x) = %d; want %d", grown, k, got, v)
			}
		}
		for k := uint64(1 << 20); k < 1<<20+1000; k++ {
			if tab.get(k, entries) >= 0 {
				t.Fatalf("grown %d: get(%#x) found a key never put", grown, k)
			}
		}
		tab.grow(entries)
	}
	if len(tab.slots) != 1<<18 {
		t.Fatalf("grow: %d slots; want %d", len(tab.slots), 1<<18)
	}
}

// TestMemoGrows: a memo with one user starts with a table smaller than
// its entries and doubles it as entries come, so that the table is never
// more than three quarters full and every entry stays found.
func TestMemoGrows(t *testing.T) {
	m := newMemo(1<<12, false)
	if got := len(m.table.slots); got != 1<<11 {
		t.Fatalf("initial table: %d slots; want %d", got, 1<<11)
	}
	u := newMemoUser(m)
	var raw [4]byte
	for i := range 1 << 12 {
		w := uint32(i) * 2654435761
		raw[0], raw[1], raw[2], raw[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		u.putCount(raw[:], uint16(i))
		if n := len(m.table.slots); 4*(i+1) > 3*n {
			t.Fatalf("%d entries in a table of %d slots", i+1, n)
		}
	}
	for i := range 1 << 12 {
		w := uint32(i) * 2654435761
		if got := m.table.get(uint64(w), m.entries); got != i {
			t.Fatalf("entry %d (key %#x) found at %d", i, w, got)
		}
	}
	if s := newMemo(1<<12, true); len(s.table.slots) != 1<<13 {
		t.Fatalf("shared table: %d slots; want %d", len(s.table.slots), 1<<13)
	}
}

// TestListerAcrossObjects: one Lister listing every gfx942 and gfx950
// object in turn, for its own target, for the other GFX9 target and in
// counting mode (so that its memo carries entries from object to object
// and starts over when the target or the mode changes), prints each
// listing as a memo-less listing of that object alone, and its Stats are
// the sum of theirs.
func TestListerAcrossObjects(t *testing.T) {
	var files []string
	for _, arch := range []string{"gfx942", "gfx950"} {
		files = append(files, corpus(t, arch)...)
		tk, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", arch, "*.co"))
		files = append(files, tk...)
	}
	var l Lister
	want := &Stats{ByMnemonic: map[string]int{}}
	var buf []byte
	for round := 0; round < 2; round++ {
		for i, p := range files {
			f, err := objfile.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			other := isa.GFX950
			if f.Target == isa.GFX950 {
				other = isa.GFX942
			}
			opts := []Options{{}, {Target: other}}
			if i%5 == 0 {
				opts = append(opts, Options{NoListing: true})
			}
			for _, opt := range opts {
				buf, err = l.AppendListing(buf[:0], f, p, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.noMemo = true
				st, ref, err := AppendListing(nil, f, p, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf, ref) {
					t.Fatalf("%s (round %d, %+v): the Lister's listing differs from the object's own", filepath.Base(p), round, opt)
				}
				want.Add(st)
			}
		}
	}
	if got := l.Stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Lister stats: %d instructions, %d unknown; want %d, %d", got.Instructions, got.Unknown, want.Instructions, want.Unknown)
	}
}

// TestListersConcurrent: the Listers of NewListers, listing the GFX9
// objects on their own goroutines through their shared memo, each print
// every object as a memo-less listing of that object alone (run with -race
// to check the memo's publication order).
func TestListersConcurrent(t *testing.T) {
	var files []*objfile.File
	var names []string
	for _, arch := range []string{"gfx942", "gfx950"} {
		for _, p := range corpus(t, arch) {
			f, err := objfile.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			files, names = append(files, f), append(names, p)
		}
	}
	want := make([][]byte, len(files))
	for i, f := range files {
		_, want[i], _ = AppendListing(nil, f, names[i], Options{noMemo: true})
	}
	ls := NewListers(3, 1<<20)
	errs := make(chan error, len(ls))
	for w, l := range ls {
		go func() {
			var buf []byte
			for round := 0; round < 2; round++ {
				for k := range files {
					i := (k + w*len(files)/len(ls)) % len(files)
					var err error
					buf, err = l.AppendListing(buf[:0], files[i], names[i], Options{})
					if err == nil && !bytes.Equal(buf, want[i]) {
						err = fmt.Errorf("%s (Lister %d, round %d): listing differs from the memo-less one", filepath.Base(names[i]), w, round)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range ls {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteListing: WriteListing and Flush write what AppendListing lists,
// object after object, the end of one listing joined to the next.
func TestWriteListing(t *testing.T) {
	var want []byte
	var got bytes.Buffer
	var l Lister
	for round := 0; round < 2; round++ {
		for _, p := range corpus(t, "gfx942") {
			f, err := objfile.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			_, ref, err := AppendListing(nil, f, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, ref...)
			if err := l.WriteListing(&got, f, p, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.Flush(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("WriteListing wrote %d bytes, want the %d of AppendListing", got.Len(), len(want))
	}
}
