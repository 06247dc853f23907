package pipeline

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/clock"
	"github.com/rocjitsu/rocjitsu/sqtt/flame"
	"github.com/rocjitsu/rocjitsu/sqtt/perfetto"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// FuzzRecords feeds arbitrary record streams (8 bytes a record: time
// delta, marker word, slot, flags) through clock correction, stack
// reconstruction and both writers, with funcmaps that have a packed layout,
// payload rows and an address-trace marker. The Perfetto output must parse
// and its slices must nest on every track.
func FuzzRecords(f *testing.F) {
	enc := sqtt.MarkerEncoding{ShaderClockBits: 12, ShaderClockShift: 4}
	seed := func(words ...uint32) []byte {
		var b []byte
		for i, w := range words {
			var rec [8]byte
			rec[0] = byte(3 + i%5)
			binary.LittleEndian.PutUint32(rec[1:], w)
			rec[5] = byte(i % 3)
			b = append(b, rec[:]...)
		}
		return b
	}
	f.Add(seed(sqtt.Encode(1, true, false), sqtt.Encode(2, true, false), 1, 1))
	f.Add(seed(enc.Encode(1, true, false, 7), enc.Encode(3, false, false, 9), 0xdeadbeef, enc.Encode(0, false, true, 12)))
	f.Add(seed(sqtt.Encode(4, false, false), 3, 0, 1, 2, 3, 4, sqtt.Encode(2, true, true), 1))
	dir := f.TempDir() // one directory per worker; Finish removes each spill file
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, data, func() {
			packed := sqtt.ParseFuncmap([]byte("M:shader_clock_bits=12;shader_clock_shift=4\nK:k\nF:1:f\nU:2:u\nP:3:p\n"))
			plain := sqtt.ParseFuncmap([]byte("K:j\nW:32\nF:1:g\nU:2:v\nP:3:d\nR:3:extra_payload_count=2\nP:4:addr_trace_lds_load\n"))
			fms := map[uint64]*sqtt.Funcmap{5: packed, 6: plain}
			occ := &attdir.Occupancy{Dispatches: map[uint64]string{1: "k", 2: "j", 3: "0 / 0x0"}, Slots: map[attdir.Slot]*attdir.SlotEvents{}}
			for w := uint8(0); w < 3; w++ {
				occ.Slots[attdir.Slot{WaveID: w}] = &attdir.SlotEvents{Launches: []attdir.Launch{
					{Time: 50, Retire: 300, KernelID: uint64(1 + w%3)}, {Time: 400, Retire: attdir.MaxTime, KernelID: uint64(1 + (w+1)%3)}}}
			}
			var recs []attdir.Record
			tm := int64(0)
			for len(data) >= 8 {
				tm += int64(data[0] % 64)
				recs = append(recs, attdir.Record{Time: tm, Value: uint64(binary.LittleEndian.Uint32(data[1:])), WaveID: data[5] % 4, SIMD: data[6] % 2, Flags: data[7] % 4})
				data = data[8:]
			}
			src := func(fn func(attdir.Record) error) error {
				for _, r := range recs {
					if err := fn(r); err != nil {
						return err
					}
				}
				return nil
			}
			kco := KernelCodeObject(fms)
			coAt := func(s attdir.Slot, t int64) (uint64, bool) {
				ev := occ.Slots[s]
				if ev == nil || t < ev.Launches[0].Time {
					return 0, false
				}
				i, _ := ev.At(t)
				return kco(occ.Dispatches[ev.Launches[i].KernelID])
			}
			w, err := perfetto.NewWriter(dir, perfetto.Options{ClockRateGHz: 1.5, BufferSize: 4096})
			if err != nil {
				t.Fatal(err)
			}
			trie := waves.NewTrie()
			pw := waves.NewProcessor(waves.Config{Funcmaps: fms, Occupancy: occ}, w)
			pf := waves.NewProcessor(waves.Config{Funcmaps: fms, Occupancy: occ, Trie: trie}, &flame.Collector{})
			if _, err := clock.Stream(src, fms, coAt, func(r attdir.Record) error { pw.Record(r); pf.Record(r); return nil }); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			pf.Close()
			var out bytes.Buffer
			if err := w.Finish(&out); err != nil {
				t.Fatal(err)
			}
			checkBalanced(t, out.Bytes())
			stacks := flame.Stacks(trie, true)
			var svg bytes.Buffer
			if err := flame.WriteSVG(&svg, stacks, flame.SVGOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, s := range stacks {
				if s.Cycles <= 0 || s.Execs <= 0 {
					t.Fatalf("stack %v has %d cycles, %d execs", s.Frames, s.Cycles, s.Execs)
				}
			}
		})
	})
}
