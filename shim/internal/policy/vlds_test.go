package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/shim/internal/dbtbridge"
	"github.com/rocjitsu/rocjitsu/shim/internal/translate"
)

func init() { translate.Register("dbt-for-policy-tests", dbtbridge.New) }

// TestFreezeVirtualLDS: the DBT's .rocjitsu.lds is read at load time and
// Freeze derives the sidecar's kernel object from the normal one's load
// base; with virtual_lds false in the configuration it is not used.
func TestFreezeVirtualLDS(t *testing.T) {
	g, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "lds_big_dynamic.co"))
	if err != nil {
		t.Fatal(err)
	}
	const loadBase = 0x7f1234560000
	for _, allow := range []bool{true, false} {
		vars := map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "dbt-for-policy-tests", "ROCJITSU_CACHE": "off", "ROCJITSU_LOG_FILE": os.DevNull}
		if !allow {
			cfg := filepath.Join(t.TempDir(), "cfg.json")
			if err := os.WriteFile(cfg, []byte(`{"guest": {"isa": "gfx950", "lds_size": 65536}, "virtual_lds": false}`), 0o644); err != nil {
				t.Fatal(err)
			}
			vars["ROCJITSU_CONFIG"] = cfg
			delete(vars, "ROCJITSU_GUEST")
		}
		e, err := Start(env(vars), []string{host}, false)
		if err != nil {
			t.Fatal(err)
		}
		out, id, ok := e.Translate(7, 8, g, host)
		if !ok {
			t.Fatal("not translated")
		}
		e.LoadResult(id, true)
		f, err := loader.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := vlds.Parse(f.Section(vlds.SectionName).Data)
		if err != nil || len(meta.Entries) != 1 {
			t.Fatalf("section: %v %+v", err, meta)
		}
		me := meta.Entries[0]
		rws := e.Freeze(7, func(agent uint64, name string) (uint64, error) {
			for _, k := range f.Kernels() {
				if k.Symbol == name {
					return loadBase + k.DescriptorAddr, nil
				}
			}
			t.Fatalf("lookup of %s", name)
			return 0, nil
		})
		if !allow {
			for _, rw := range rws {
				if rw.Entry.VLDS != nil {
					t.Fatalf("virtual_lds false: rewrite %s", rw.Entry)
				}
			}
			continue
		}
		if len(rws) != 1 || rws[0].Entry.VLDS == nil {
			t.Fatalf("rewrites %+v", rws)
		}
		v := rws[0].Entry.VLDS
		if v.KernelObject != loadBase+me.Sidecar || v.HostLDS != 65536 || v.StaticLDS != me.StaticLDS ||
			v.WrapperSize != me.Wrapper.Size || v.StateOffset != me.Wrapper.State || v.PtrOffset != me.Wrapper.OrigPtr ||
			v.Flags&vlds.FlagWorkgroupIDX == 0 {
			t.Fatalf("VLDS %+v for entry %+v", v, me)
		}
		if rws[0].KernelObject != loadBase+me.Normal {
			t.Fatalf("kernel object %#x", rws[0].KernelObject)
		}
	}
}

// TestSidecarsMalformed: a malformed section means no sidecars.
func TestSidecarsMalformed(t *testing.T) {
	e, err := Start(env(map[string]string{"ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	if m, n := sidecars(e.Log, []byte("not an ELF")); m != nil || n != 0 {
		t.Fatal("sidecars from garbage")
	}
}
