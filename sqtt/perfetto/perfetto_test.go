package perfetto

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

func TestTIDAndNames(t *testing.T) {
	k := waves.WaveKey{Slot: attdir.Slot{SE: 3, CU: 1, SIMD: 2, WaveID: 3}, Instance: 4}
	if got, want := TID(k), uint64(3)<<32|1<<20|2<<16|3<<8|4; got != want {
		t.Errorf("TID %d, want %d", got, want)
	}
	if ThreadName(k) != "SE3/CU1/SIMD2/W3#4" {
		t.Errorf("ThreadName %q", ThreadName(k))
	}
}

// TestEvents drives the writer directly: microsecond conversion,
// demangled names, user category, open frames closed at last+1.
func TestEvents(t *testing.T) {
	w, err := NewWriter(t.TempDir(), Options{ClockRateGHz: 2, Demangle: true})
	if err != nil {
		t.Fatal(err)
	}
	trie := waves.NewTrie()
	kern := trie.Child(trie.Root, "_Z6kernelPf", sqtt.KindKernel)
	fn := trie.Child(kern, "_Z4syncv", sqtt.KindFunction)
	user := trie.Child(fn, "phase", sqtt.KindUser)
	wave := &waves.Wave{Key: waves.WaveKey{Slot: attdir.Slot{CU: 1}}, Dispatch: 5, HasDispatch: true, Kernel: "_Z6kernelPf", Base: kern, Top: kern}
	w.WaveStart(wave)
	w.Enter(wave, 3000, fn)
	wave.Top = fn
	w.Enter(wave, 4000, user)
	wave.Top = user
	w.Point(wave, 4500, &sqtt.Entry{Kind: sqtt.KindPoint, Name: "barrier"})
	wave.Last = 4999
	w.WaveEnd(wave)
	var out bytes.Buffer
	if err := w.Finish(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	ev := doc.TraceEvents
	if len(ev) != 7 {
		t.Fatalf("%d events: %s", len(ev), out.String())
	}
	if ev[0]["args"].(map[string]any)["name"] != "dispatch 5: kernel(float*)" {
		t.Errorf("process name %v", ev[0])
	}
	if ev[2]["ts"] != 1.5 || ev[2]["name"] != "sync()" || ev[2]["cat"] != "sqtt.function" {
		t.Errorf("B %v", ev[2])
	}
	if ev[3]["cat"] != "sqtt.user" || ev[4]["ph"] != "i" || ev[4]["s"] != "t" || ev[4]["cat"] != "sqtt.point" {
		t.Errorf("user/point %v %v", ev[3], ev[4])
	}
	if ev[5]["ph"] != "E" || ev[5]["ts"] != 2.5 || ev[6]["ph"] != "E" {
		t.Errorf("closing %v %v", ev[5], ev[6])
	}
}
