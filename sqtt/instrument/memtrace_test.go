package instrument

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/memtrace"
	"github.com/rocjitsu/rocjitsu/sqtt/pipeline"
)

// TestMemtraceEndToEnd: the records an instrumented kernel's address
// blocks write (from the scalar model of TestAddressBlocks), interleaved
// with another wave's and stored as an --att trace with the instrumented
// object, come back from memtrace as the active lanes' addresses; the JSON
// is byte-identical to Python's json.dump(indent=2) of the same rows.
func TestMemtraceEndToEnd(t *testing.T) {
	obj := build(t, "gfx942", `
global_load_dword v1, v[2:3], off offset:16
ds_read_b32 v1, v2 offset:8
buffer_load_dword v1, v5, s[8:11], s3 offen offset:4
s_endpgm
`)
	res, err := Instrument(obj, Options{Addresses: AddrMemory | AddrLDS})
	if err != nil {
		t.Fatal(err)
	}
	out := insts(t, res.Object)
	base := t.TempDir()
	ui := filepath.Join(base, "ui_output_agent_1_dispatch_1")
	if err := os.MkdirAll(ui, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(base, "x_code_object_id_1.out"), res.Object)
	sw := attdir.NewShaderdataWriter(ui, 0)
	tm := int64(1000)
	var want []memtrace.Trace
	fm := sqtt.ParseFuncmap(res.Funcmap)
	for wave := uint8(0); wave < 2; wave++ {
		for _, site := range res.Sites {
			m := &blockMachine{v: func(r, lane int) uint32 { return uint32(r)<<20 | uint32(lane)*8 | uint32(wave)<<16 }, exec: [2]uint32{0x0000ff0f, 0x80000000 >> wave}}
			for r := range m.s {
				m.s[r] = uint32(r) * 0x100
			}
			start := -1
			for j, x := range out {
				if x.Name() == "s_mov_b32" && x.HasLiteral && x.Literal == site.Values[0] {
					start = j
				}
			}
			m.run(t, out, start)
			for _, v := range m.tokens {
				tm += 3
				if err := sw.Write(attdir.Record{Time: tm, Value: uint64(v), SE: 0, CU: 1, SIMD: 2, WaveID: wave}); err != nil {
					t.Fatal(err)
				}
			}
			e, _ := fm.Lookup(site.Values[0] >> 2)
			name, loc := e.Name, e.SourceLoc
			p, _ := sqtt.AddressProtocolFor(name)
			blk, err := sqtt.DecodeAddressBlock(p, 64, m.tokens[1:])
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, memtrace.Trace{Kind: strings.TrimPrefix(name, "addr_trace_"), MarkerID: site.Values[0] >> 2, Time: tm - 3*int64(len(m.tokens)-1),
				CU: 1, SIMD: 2, Wave: wave, Exec: blk.Exec, Lanes: blk.Lanes, Addresses: blk.Addresses, Source: loc})
		}
	}
	if _, err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := pipeline.Open(base, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, n, err := memtrace.Collect(c, ui, memtrace.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("memtrace (%d records):\n got %+v\nwant %+v", n, got, want)
	}
	if len(got[0].Addresses) != 13 || got[0].Addresses[0] != uint64(3<<20)<<32|uint64(2<<20)+16 {
		t.Errorf("first block %+v", got[0])
	}
	// Format: Python's json.dump(rows, indent=2) + "\n".
	var b bytes.Buffer
	if err := memtrace.WriteJSON(&b, got); err != nil {
		t.Fatal(err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 for the JSON format check")
	}
	var rows []map[string]any
	for _, tr := range got {
		var addrs []string
		for _, a := range tr.Addresses {
			if tr.Kind == "lds_load" {
				addrs = append(addrs, fmt.Sprintf("0x%08x", a))
			} else {
				addrs = append(addrs, fmt.Sprintf("0x%016x", a))
			}
		}
		rows = append(rows, map[string]any{"kind": tr.Kind, "marker_id": tr.MarkerID, "time": tr.Time, "shader_engine": tr.SE,
			"cu": tr.CU, "simd": tr.SIMD, "wave": tr.Wave, "exec_mask": fmt.Sprintf("0x%016x", tr.Exec), "active_lanes": len(tr.Lanes), "addresses": addrs,
			"source": tr.Source})
	}
	in, _ := json.Marshal(rows)
	script := `import json,sys
keys=["kind","marker_id","time","shader_engine","cu","simd","wave","exec_mask","active_lanes","addresses"]
rows=[{k:r[k] for k in keys+(["source"] if r["source"] else [])} for r in json.load(sys.stdin)]
json.dump(rows, sys.stdout, indent=2)
sys.stdout.write("\n")`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	ref, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), ref) {
		t.Errorf("JSON differs from json.dump(indent=2):\n%s\n---\n%s", b.String()[:min(400, b.Len())], string(ref)[:min(400, len(ref))])
	}
	var sum bytes.Buffer
	memtrace.WriteSummary(&sum, got)
	for _, s := range []string{"Total operations: 6", "By kind:\n    buffer_load: 2\n    lds_load: 2\n    load: 2", "wave SE=0 CU=1 SIMD=2 wave=1  (1 samples)", "deltas=[8,40,384]"} {
		if !strings.Contains(sum.String(), s) {
			t.Errorf("summary lacks %q:\n%s", s, sum.String())
		}
	}
}
