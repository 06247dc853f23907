package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

func TestInspectJSON(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter")
	files, _ := filepath.Glob(filepath.Join(dir, "gfx9*", "*.co"))
	if len(files) < 2 {
		t.Fatalf("corpus has %d files", len(files))
	}
	for _, path := range []string{files[0], files[len(files)-1]} {
		var out, errb bytes.Buffer
		if code := runMain([]string{"inspect", path, "--json"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", path, code, errb.String())
		}
		var rep struct {
			Header struct {
				EFlags            uint32 `json:"e_flags"`
				CodeObjectVersion int    `json:"code_object_version"`
			} `json:"header"`
			Target struct {
				Processor string `json:"processor"`
				ID        string `json:"id"`
			} `json:"target"`
			Kernels  []map[string]any `json:"kernels"`
			Sections []struct {
				Name string `json:"name"`
				Size uint64 `json:"size"`
			} `json:"sections"`
			Segments []struct {
				Type string `json:"type"`
			} `json:"segments"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b, _ := os.ReadFile(path)
		f, err := loader.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Header.EFlags != f.Header.Flags || rep.Target.Processor != f.Processor.Name || rep.Target.ID != f.Target.String() {
			t.Errorf("%s: header/target %+v %+v", path, rep.Header, rep.Target)
		}
		if len(rep.Kernels) != len(f.Kernels()) || len(rep.Sections) != len(f.Sections) || len(rep.Segments) != len(f.Segments) {
			t.Fatalf("%s: %d kernels, %d sections, %d segments", path, len(rep.Kernels), len(rep.Sections), len(rep.Segments))
		}
		for i, k := range f.Kernels() {
			jk := rep.Kernels[i]
			md := k.Metadata
			for key, want := range map[string]float64{
				"group_segment_fixed_size":   float64(md.GroupSegmentFixedSize),
				"private_segment_fixed_size": float64(md.PrivateSegmentFixedSize),
				"kernarg_segment_size":       float64(md.KernargSegmentSize),
				"vgpr_count":                 float64(md.VGPRCount),
				"sgpr_count":                 float64(md.SGPRCount),
				"wavefront_size":             float64(md.WavefrontSize),
				"entry_address":              float64(k.EntryAddr),
			} {
				if got, ok := jk[key].(float64); !ok || got != want {
					t.Errorf("%s: kernel %s %s = %v, want %v", path, k.Name, key, jk[key], want)
				}
			}
			if jk["name"] != k.Name || jk["symbol"] != k.Symbol {
				t.Errorf("%s: name/symbol %v %v", path, jk["name"], jk["symbol"])
			}
			args, _ := jk["args"].([]any)
			if len(args) != len(md.Args) {
				t.Errorf("%s: %d args, want %d", path, len(args), len(md.Args))
			} else if a0, _ := args[0].(map[string]any); a0["value_kind"] != md.Args[0].ValueKind {
				t.Errorf("%s: arg 0 %v", path, a0)
			}
			d, _ := jk["descriptor"].(map[string]any)
			if d == nil || d["compute_pgm_rsrc1"] != float64(k.Descriptor.ComputePgmRsrc1) || d["next_free_vgpr"] != float64(k.Descriptor.NextFreeVGPR(f.Processor)) {
				t.Errorf("%s: descriptor %v", path, d)
			}
			fields, _ := d["fields"].(map[string]any)
			if fields["COMPUTE_PGM_RSRC3.ACCUM_OFFSET"] == nil {
				t.Errorf("%s: descriptor fields lack ACCUM_OFFSET", path)
			}
		}
		// Stable: a second run prints the same bytes.
		var again bytes.Buffer
		runMain([]string{"inspect", "--json", path}, &again, &errb)
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Errorf("%s: two runs differ", path)
		}
	}
}

func TestInspectText(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter")
	files, _ := filepath.Glob(filepath.Join(dir, "gfx950", "*.co"))
	if len(files) == 0 {
		t.Fatal("no gfx950 objects")
	}
	var out, errb bytes.Buffer
	if code := runMain([]string{"inspect", files[0]}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"code object v", "gfx950", "kernels (", ".amdhsa_next_free_vgpr", ".amdhsa_accum_offset", "sections (", ".text", "segments (", "LOAD", "args ("} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.co")
	os.WriteFile(bad, append([]byte("\x7fELF\x02\x01\x01\x40\x09"), make([]byte, 60)...), 0o644)
	var out, errb bytes.Buffer
	if code := runMain([]string{"inspect", bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "offset 0x8") || !strings.Contains(errb.String(), "EI_ABIVERSION") {
		t.Errorf("bad object: exit %d, stderr %q", code, errb.String())
	}
	if code := runMain([]string{"inspect"}, &out, &errb); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	if code := runMain([]string{"inspect", "--frob", bad}, &out, &errb); code != 2 {
		t.Errorf("unknown option: exit %d", code)
	}
}
