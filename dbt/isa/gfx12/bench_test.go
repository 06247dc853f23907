package gfx12

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

type benchObj struct {
	path, cpu string
	target    isa.Target
	text      []objfile.Section
}

func benchObjects(b *testing.B) []benchObj {
	root := projectpath.MustRoot(b)
	var objs []benchObj
	for _, c := range []struct {
		cpu string
		t   isa.Target
	}{{"gfx1200", isa.GFX1200}, {"gfx1201", isa.GFX1201}} {
		files, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", c.cpu, "*.co"))
		for _, p := range files {
			f, err := objfile.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			objs = append(objs, benchObj{p, c.cpu, c.t, f.Sections})
		}
	}
	if len(objs) == 0 {
		b.Fatal("no gfx12 kernel objects")
	}
	return objs
}

// BenchmarkDecodePrintVsObjdump decodes and prints every instruction of the
// gfx1200/gfx1201 kernel objects and, in the same run, times
// llvm-objdump-19 -d on the same objects; it reports our instructions per
// second and the speed ratio.
func BenchmarkDecodePrintVsObjdump(b *testing.B) {
	tool := llvmtool.Require(b, llvmtool.Objdump)
	objs := benchObjects(b)
	var in isa.Inst
	var sb strings.Builder
	var ours, theirs time.Duration
	insts, objdumpInsts := 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, o := range objs {
			for _, s := range o.text {
				for off := 0; off+4 <= len(s.Data); {
					if err := DecodeInto(&in, s.Data[off:], s.Addr+uint64(off), o.target); err != nil {
						off += 4
						continue
					}
					sb.Reset()
					AppendText(&sb, &in)
					off += int(in.Size)
					insts++
				}
			}
		}
		ours += time.Since(t0)
		t1 := time.Now()
		for _, o := range objs {
			cmd := exec.Command(tool, "-d", "--mcpu="+o.cpu, o.path)
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			objdumpInsts += strings.Count(string(out), "\n\t")
		}
		theirs += time.Since(t1)
	}
	_ = io.Discard
	oursRate := float64(insts) / ours.Seconds()
	theirRate := float64(objdumpInsts) / theirs.Seconds()
	b.ReportMetric(oursRate, "insts/s")
	b.ReportMetric(theirRate, "objdump-insts/s")
	b.ReportMetric(oursRate/theirRate, "x-vs-llvm-objdump")
}
