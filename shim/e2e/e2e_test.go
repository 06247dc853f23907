package e2e

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

// Exported dynamic symbols: the tool entry points only (the silk C ABI may
// add silk_*), none of the Go runtime's C helpers.
func TestExports(t *testing.T) {
	bt := setup(t)
	f, err := elf.Open(bt.shim)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && s.Name != "" {
			got = append(got, s.Name)
		}
	}
	sort.Strings(got)
	var core []string
	for _, s := range got {
		if !strings.HasPrefix(s, "silk_") {
			core = append(core, s)
		}
	}
	// The tool entry points, and the libc names of the simulated GPU's
	// driver boundary (shim/kfd.c), which pass through unless a simulated
	// GPU is asked for.
	want := "HSA_AMD_TOOL_PRIORITY OnLoad OnUnload __fxstat __fxstat64 __lxstat __lxstat64 __open64_2 __open_2 __openat64_2 __openat_2 __xstat __xstat64 access close dup dup2 dup3 faccessat fcntl fcntl64 fopen fopen64 fstat fstat64 fstatat fstatat64 ioctl lstat lstat64 mmap mmap64 open open64 openat openat64 opendir readlink readlinkat realpath stat stat64 statx"
	if strings.Join(core, " ") != want {
		t.Errorf("exported symbols %v, want %s (+ silk_*)", got, want)
	}
}

// Without a tool the host object runs and the guest object is refused by
// the runtime, as ROCR refuses a code object for another processor.
func TestNoTool(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, nil, bt.kargs("-n", "100", bt.host)...)
	ok(t, r)
	want(t, r, r.stdout, "parent dispatched 100 of 100 faults 0 errors 0", "tools_loaded 0")
	r = bt.run(t, nil, bt.kargs("-n", "1", bt.guest)...)
	if r.rc == 0 {
		t.Fatalf("the guest object loaded on gfx942 without rocjitsu\n%s", r)
	}
	want(t, r, r.stdout, "load_status 0x100d")
	r = bt.run(t, map[string]string{"STANDIN_GPUS": "gfx1201"}, "-info")
	ok(t, r)
	want(t, r, r.stdout, "agent gfx1201\n", "wavefront 32\n", "isa_wavefront 32\n", "lds 65536\n", "isa amdgcn-amd-amdhsa--gfx1201\n")
}

func TestLoadRoutes(t *testing.T) {
	bt := setup(t)
	for _, c := range []struct {
		name   string
		env    map[string]string
		loaded bool
	}{
		{"HSA_TOOLS_LIB", map[string]string{"HSA_TOOLS_LIB": bt.shim}, true},
		{"LD_PRELOAD", map[string]string{"LD_PRELOAD": bt.shim}, true},
		{"both/one-OnLoad", map[string]string{"LD_PRELOAD": bt.shim, "HSA_TOOLS_LIB": bt.shim}, true},
		{"quoted-HSA_TOOLS_LIB", map[string]string{"HSA_TOOLS_LIB": `"` + bt.shim + `"`}, true},
		// ROCm 5.2 has no HSA_AMD_TOOL_PRIORITY scan: a preload alone is not a tool there.
		{"LD_PRELOAD-on-5.2", map[string]string{"LD_PRELOAD": bt.shim, "STANDIN_ABI": "5.2"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "retarget"}
			for k, v := range c.env {
				env[k] = v
			}
			r := bt.run(t, env, bt.kargs("-n", "50", bt.guest)...)
			if !c.loaded {
				if r.rc == 0 || !strings.Contains(r.stdout, "load_status 0x100d") {
					t.Fatalf("the shim was active without a tool mechanism\n%s", r)
				}
				return
			}
			ok(t, r)
			want(t, r, r.stdout, "parent dispatched 50 of 50 faults 0", "tools_loaded 1 onload_calls 1")
			want(t, r, r.log, "translated code object for gfx950 -> gfx942")
		})
	}
	t.Run("bad-path-reported", func(t *testing.T) {
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": "/nonexistent/librocjitsu.so"}, bt.kargs("-n", "5", bt.host)...)
		ok(t, r)
		want(t, r, r.stderr, `Tool lib "/nonexistent/librocjitsu.so" failed to load.`)
	})
	t.Run("no-gpu-no-tool", func(t *testing.T) {
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": bt.shim, "STANDIN_NO_GPU": "1", "ROCJITSU_GUEST": "gfx950"}, bt.kargs("-n", "5", bt.host)...)
		want(t, r, r.stdout, "hsa_init 0x1008")
		if r.log != "" {
			t.Errorf("the shim logged without being loaded:\n%s", r.log)
		}
	})
}

func TestGuestIdentity(t *testing.T) {
	bt := setup(t)
	t.Run("ROCJITSU_GUEST", func(t *testing.T) {
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950"}, "-info")
		ok(t, r)
		want(t, r, r.stdout, "agent gfx950\n", "product AMD Instinct MI355X\n", "wavefront 64\n", "waves_per_simd 8\n",
			"agent_isa amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-\n", "\nisa amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-\n",
			"lds 163840\n", "region_lds 163840\n", "isa_wavefront 64\n", "round_method 1 exception_policies 3 compatible 1\n")
		wantNot(t, r, r.stdout, "gfx942")
	})
	t.Run("config-file", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "guest.json")
		os.WriteFile(cfg, []byte(`{"guest":{"isa":"gfx950","name":"gfx950","marketing_name":"Guest 950","lds_size":98304,"waves_per_simd":4},
			"host":{"isa":"gfx1201","backend":"hardware"}}`), 0o644)
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_CONFIG": cfg, "STANDIN_GPUS": "gfx1201"}, "-info")
		ok(t, r)
		want(t, r, r.stdout, "agent gfx950\n", "product Guest 950\n", "waves_per_simd 4\n", "lds 98304\n", "wavefront 64\n",
			"isa_wavefront 64\n", "round_method 1 exception_policies 3 compatible 1\n") // the host (gfx1201) alone would say 32
	})
	for _, c := range []struct {
		name, why string
		env       map[string]string
		cfg       string
	}{
		{"wave32-guest-on-gfx942", "the host cannot run wave32 code", map[string]string{"ROCJITSU_GUEST": "gfx1201"}, ""},
		{"lds-without-virtual-lds", "guest LDS 163840 bytes exceeds the host's 65536 and virtual_lds is false", nil,
			`{"guest":{"isa":"gfx950"},"virtual_lds":false}`},
		{"waves-per-simd", "16 waves per SIMD advertised, the host provides 8", nil, `{"guest":{"isa":"gfx1201","wavefront_size":64,"waves_per_simd":16}}`},
		{"host-mismatch", "the config names host gfx1201 but the GPU is gfx942", nil, `{"guest":{"isa":"gfx950"},"host":{"isa":"gfx1201"}}`},
		{"simulator-backend", "are not the simulated ones", nil, `{"guest":{"isa":"gfx950"},"host":{"backend":"simulator"}}`},
		{"misspelt-field", `unknown field "ldssize"`, nil, `{"guest":{"isa":"gfx950","ldssize":1}}`},
	} {
		t.Run("rejected/"+c.name, func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": bt.shim}
			for k, v := range c.env {
				env[k] = v
			}
			if c.cfg != "" {
				p := filepath.Join(t.TempDir(), "g.json")
				os.WriteFile(p, []byte(c.cfg), 0o644)
				env["ROCJITSU_CONFIG"] = p
			}
			r := bt.run(t, env, append([]string{"-info"}, bt.kargs("-n", "10", bt.host)...)...)
			ok(t, r) // the application runs on, without rocjitsu
			want(t, r, r.stderr, "rocjitsu: ", c.why)
			want(t, r, r.stdout, "agent gfx942\n", "tools_loaded 0 onload_calls 1", "parent dispatched 10 of 10")
		})
	}
}

// The code-object swap with each load route of the application.
func TestSwap(t *testing.T) {
	bt := setup(t)
	for _, tr := range []string{"identity", "retarget"} {
		for _, load := range []string{"memory", "file", "fileoff", "program"} {
			t.Run(tr+"/"+load, func(t *testing.T) {
				env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": tr}
				if tr == "identity" {
					env["STANDIN_ISA_CHECK"] = "0" // identity keeps gfx950 bits: only a lenient runtime loads them
				}
				r := bt.run(t, env, bt.kargs("-n", "20", "-load", load, bt.guest)...)
				ok(t, r)
				want(t, r, r.stdout, "parent dispatched 20 of 20 faults 0 errors 0", "symbol scale.kd kernarg 24 group 1024")
				want(t, r, r.log, "translated code object for gfx950 -> gfx942", tr+": ")
				if load == "memory" || load == "program" {
					want(t, r, r.stdout, "storage other") // the runtime loaded the shim's bytes, not the app's
				}
			})
		}
	}
	t.Run("cache", func(t *testing.T) {
		cache := t.TempDir()
		env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "retarget",
			"ROCJITSU_CACHE_DIR": cache, "ROCJITSU_LOG": "debug"}
		r := bt.run(t, env, bt.kargs("-n", "5", bt.guest)...)
		ok(t, r)
		want(t, r, r.log, "cache stored ")
		r = bt.run(t, env, bt.kargs("-n", "5", bt.guest)...)
		ok(t, r)
		want(t, r, r.log, "cache hit ", "retarget: cache hit")
		// Corrupt every entry: it is detected, dropped, and the object translated again.
		files, _ := filepath.Glob(filepath.Join(cache, "*", "*.co"))
		if len(files) != 1 {
			t.Fatalf("cache files %v", files)
		}
		data, _ := os.ReadFile(files[0])
		data[len(data)-1] ^= 0xff
		os.WriteFile(files[0], data, 0o644)
		r = bt.run(t, env, bt.kargs("-n", "5", bt.guest)...)
		ok(t, r)
		want(t, r, r.log, "corrupt entry", "cache stored ")
	})
}

// The grow translator makes every translated descriptor ask for more LDS,
// scratch and kernarg space than the app's packets carry: without the
// dispatch rewrite the fake GPU faults, with it every packet is fixed.
func TestDispatchRewrite(t *testing.T) {
	bt := setup(t)
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow"}
	ptr := (bt.kernarg + 7) &^ 7
	// Every 10th packet on a queue is a barrier-AND: it passes untouched. The
	// shim appends one retire barrier per 16 rewritten dispatches of a queue
	// for its kernarg pool (300/16 = 18 per queue).
	r := bt.run(t, env, bt.kargs("-n", "300", "-q", "2", "-barrier-every", "10", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)
	ok(t, r)
	want(t, r, r.stdout, fmt.Sprintf("symbol scale.kd kernarg %d group %d private %d", ptr+8+16, bt.group+1024, bt.private+16),
		"parent dispatched 600 of 600 faults 0 errors 0", "barriers_sent 60 barriers_run 96")
	want(t, r, r.log, "kernel scale.kd (kernel_object", "group+1024 private>=16 kernarg 24->48 (original pointer at 24, 16 payload bytes)",
		"OnUnload: 600 dispatches rewritten, 60 passed through")

	env["ROCJITSU_DISPATCH"] = "off"
	r = bt.run(t, env, bt.kargs("-n", "5", bt.guest)...)
	if r.rc == 0 {
		t.Fatalf("swapped kernels ran with the app's packet sizes and no fault\n%s", r)
	}
	want(t, r, r.stdout, "group_segment_size 1024 below the descriptor's 2048")
	want(t, r, r.log, "dispatch rewriting is off")

	// Dynamic LDS from the app is kept on top of the translated kernel's.
	delete(env, "ROCJITSU_DISPATCH")
	r = bt.run(t, env, bt.kargs("-n", "5", "-dyn", "4096", bt.guest)...)
	ok(t, r)

	// Every load route gets its dispatches fixed.
	for _, load := range []string{"file", "fileoff", "program"} {
		r = bt.run(t, env, bt.kargs("-n", "50", "-load", load, "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)
		ok(t, r)
		want(t, r, r.log, "OnUnload: 50 dispatches rewritten")
	}
}

func TestFork(t *testing.T) {
	bt := setup(t)
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow"}
	ptr := (bt.kernarg + 7) &^ 7
	r := bt.run(t, env, bt.kargs("-n", "200", "-q", "2", "-fork", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)
	ok(t, r)
	want(t, r, r.stdout, "parent dispatched 400 of 400 faults 0", "child dispatched 400 of 400 faults 0 errors 0", "child_exit 0")
	// The child never entered Go: only the parent's OnUnload is in the log.
	if n := strings.Count(r.log, "OnUnload:"); n != 1 {
		t.Errorf("%d OnUnload lines, want 1 (the parent's)\n%s", n, r.log)
	}
}

// Fail open: whatever goes wrong in translation, the app runs the original
// code and the log says why.
func TestFailOpen(t *testing.T) {
	bt := setup(t)
	guest, err := os.ReadFile(bt.guest)
	if err != nil {
		t.Fatal(err)
	}
	// Corrupt the section header of .symtab (not used by the loader) so the
	// shim's parser rejects the object while the runtime still loads it.
	f, err := elf.Open(bt.guest)
	if err != nil {
		t.Fatal(err)
	}
	var idx int = -1
	for i, s := range f.Sections {
		if s.Name == ".symtab" {
			idx = i
		}
	}
	f.Close()
	if idx < 0 {
		t.Fatal("no .symtab")
	}
	shoff := int(uint64(guest[40]) | uint64(guest[41])<<8 | uint64(guest[42])<<16 | uint64(guest[43])<<24)
	corrupt := append([]byte(nil), guest...)
	p := shoff + idx*64 + 24 // sh_offset
	for i := 0; i < 8; i++ {
		corrupt[p+i] = 0xff
	}
	corruptPath := filepath.Join(t.TempDir(), "corrupt.co")
	os.WriteFile(corruptPath, corrupt, 0o644)

	for _, c := range []struct {
		name, obj string
		env       map[string]string
		why       string
	}{
		{"failing-translator", bt.guest, map[string]string{"ROCJITSU_TRANSLATOR": "reject"}, "the reject translator refuses every code object; loading it unchanged"},
		{"corrupt-object", corruptPath, map[string]string{"ROCJITSU_TRANSLATOR": "retarget"}, "runs past the end of the"},
		{"panic-in-hook", bt.guest, map[string]string{"ROCJITSU_TRANSLATOR": "retarget", "ROCJITSU_FAULT": "translate-panic"}, "panic in code-object load (recovered; continuing untranslated)"},
		{"unknown-translator", bt.guest, map[string]string{"ROCJITSU_TRANSLATOR": "nonesuch"}, `unknown translator "nonesuch"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_ISA_CHECK": "0", "STANDIN_LOG": filepath.Join(t.TempDir(), "standin.log")}
			for k, v := range c.env {
				env[k] = v
			}
			r := bt.run(t, env, bt.kargs("-n", "20", c.obj)...)
			ok(t, r)
			want(t, r, r.stdout, "storage app", "parent dispatched 20 of 20 faults 0 errors 0")
			want(t, r, r.log, c.why)
			wantNot(t, r, r.log, "translated code object")
			data, _ := os.ReadFile(env["STANDIN_LOG"])
			if !strings.Contains(string(data), "scale.kd was built for mach 0x4f, running on gfx942") {
				t.Errorf("the fake GPU did not run the untranslated gfx950 kernel:\n%s", data)
			}
		})
	}
	// The runtime refuses the translation (identity keeps the gfx950 bits and
	// the runtime is strict): the shim loads the original instead and returns
	// the runtime's own answer for it.
	t.Run("runtime-refuses-translation", func(t *testing.T) {
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "identity"},
			bt.kargs("-n", "5", bt.guest)...)
		want(t, r, r.stdout, "load_status 0x100d")
		want(t, r, r.log, "the runtime refused the translated code object (status 0x100d); loading the original")
	})
	t.Run("unknown-table-major", func(t *testing.T) {
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_TABLE_MAJOR": "9", "STANDIN_ISA_CHECK": "0"},
			bt.kargs("-n", "5", bt.guest)...)
		ok(t, r)
		want(t, r, r.stdout, "tools_loaded 0 onload_calls 1", "storage app")
		want(t, r, r.stderr, "not loading: HsaApiTable major 9 is not one rocjitsu knows")
	})
}

func TestChainedTools(t *testing.T) {
	bt := setup(t)
	ptr := (bt.kernarg + 7) &^ 7
	args := bt.kargs("-n", "500", "-q", "2", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)
	for _, order := range [][2]string{{bt.chaintool, bt.shim}, {bt.shim, bt.chaintool}} {
		t.Run(filepath.Base(order[0])+"-first", func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": order[0] + " " + order[1], "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow"}
			r := bt.run(t, env, args...)
			ok(t, r)
			want(t, r, r.stdout, "parent dispatched 1000 of 1000 faults 0 errors 0", "tools_loaded 2 onload_calls 2")
			want(t, r, r.stderr, "chaintool: loads 1 queues 2 dispatches 1000")
			want(t, r, r.log, "OnUnload: 1000 dispatches rewritten")
		})
	}
	// A tool loaded after rocjitsu that creates its own intercept queues
	// without calling the previous hsa_queue_create (as rocprofiler-sdk does)
	// hides rocjitsu's queue hook: the documented limitation.
	t.Run("non-chaining-tool-last", func(t *testing.T) {
		env := map[string]string{"HSA_TOOLS_LIB": bt.shim + " " + bt.chaintool, "CHAINTOOL_MODE": "nochain", "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow"}
		r := bt.run(t, env, bt.kargs("-n", "5", bt.guest)...)
		if r.rc == 0 {
			t.Fatalf("expected faults when a non-chaining tool hides the queue hook\n%s", r)
		}
		want(t, r, r.stdout, "below the descriptor's")
	})
}

func TestTableLayouts(t *testing.T) {
	bt := setup(t)
	ptr := (bt.kernarg + 7) &^ 7
	for _, c := range []struct{ abi, size, layout string }{
		{"5.2", "400", "before ROCm 5.6"},
		{"5.7", "456", "ROCm 5.6 and later"},
		{"7.0", "608", "ROCm 5.6 and later"},
	} {
		t.Run(c.abi, func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "STANDIN_ABI": c.abi, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow"}
			r := bt.run(t, env, append([]string{"-info"}, bt.kargs("-n", "100", "-q", "2", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)...)
			ok(t, r)
			want(t, r, r.stdout, "agent gfx950\n", "lds 163840\n", "parent dispatched 200 of 200 faults 0 errors 0")
			want(t, r, r.log, "AmdExtTable "+c.size+" bytes ("+c.layout+" layout)", "OnUnload: 200 dispatches rewritten")
		})
	}
}

// 8 threads x 8 shared queues x 10,000 dispatches through the rewrite: every
// packet arrives once, in order, on its queue, with its kernargs. With the
// asynchronous fake GPU, completions lag behind submission and the per-queue
// kernarg pools fill up and are recycled through their retire signals.
func TestStress(t *testing.T) {
	bt := setup(t)
	ptr := (bt.kernarg + 7) &^ 7
	for _, gpu := range []string{"sync", "async"} {
		t.Run(gpu, func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow", "STANDIN_GPU": gpu}
			r := bt.run(t, env, bt.kargs("-n", "10000", "-t", "8", "-q", "8", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)
			ok(t, r)
			want(t, r, r.stdout, "parent dispatched 640000 of 640000 faults 0 errors 0")
			want(t, r, r.log, "OnUnload: 640000 dispatches rewritten, 0 passed through", "0 fall-backs")
		})
	}
}

// A full hsa_shut_down followed by hsa_init calls OnLoad again on a fresh
// table; the shim re-hooks and drops the old state.
func TestReload(t *testing.T) {
	bt := setup(t)
	ptr := (bt.kernarg + 7) &^ 7
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow"}
	r := bt.run(t, env, append([]string{"-info", "-cycles", "3"}, bt.kargs("-n", "100", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)...)
	ok(t, r)
	want(t, r, r.stdout, "cycle 2 rc 0", "tools_loaded 3 onload_calls 3")
	if n := strings.Count(r.stdout, "agent gfx950\n"); n != 3 {
		t.Errorf("guest identity in %d of 3 cycles\n%s", n, r)
	}
	if n := strings.Count(r.log, "OnUnload: 100 dispatches rewritten"); n != 3 {
		t.Errorf("%d of 3 sessions rewrote their 100 dispatches\n%s", n, r)
	}
}

// The DBT inside the shim (ROCJITSU_TRANSLATOR=auto): each real gfx950
// corpus object whose LDS fits the host either runs translated or, when the
// DBT rejects it (it fails closed), runs unchanged with the reason logged.
func TestDBT(t *testing.T) {
	bt := setup(t)
	files, _ := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), "*.co"))
	translated, rejected := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := codeobj.Parse(data)
		if err != nil || len(o.Kernels) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		k := o.Kernels[0]
		if k.Desc.GroupSegmentFixedSize > 65536 {
			continue // needs virtual LDS on gfx942
		}
		name := strings.TrimSuffix(k.Name, ".kd")
		r := bt.run(t, map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_ISA_CHECK": "0"},
			"-k", name, "-kernarg", "64", "-group", fmt.Sprint(k.Desc.GroupSegmentFixedSize), "-private", fmt.Sprint(k.Desc.PrivateSegmentFixedSize), "-n", "10", f)
		if r.rc != 0 {
			t.Errorf("%s: application failed\n%s", filepath.Base(f), r)
			continue
		}
		switch {
		case strings.Contains(r.log, "translated code object for gfx950 -> gfx942"):
			translated++
			want(t, r, r.stdout, "storage other")
		case strings.Contains(r.log, "not translated for gfx942: dbt:"):
			rejected++
			want(t, r, r.stdout, "storage app")
		default:
			t.Errorf("%s: the log says neither translated nor rejected\n%s", filepath.Base(f), r)
		}
	}
	t.Logf("DBT in the shim: %d objects ran translated, %d ran unchanged after a rejection", translated, rejected)
	if translated+rejected == 0 {
		t.Fatal("no corpus object ran")
	}
}

// Debian's real ROCR 5.2.3 (libhsa-runtime64-1, installed with
// libhsa-runtime-dev) without a GPU: hsa_init fails before any tool is
// loaded. With librocjitsu.so preloaded or named as a tool, the application
// still gets the runtime's own clean error: the Go runtime in the process
// neither hangs nor crashes it.
func TestRealROCRWithoutGPU(t *testing.T) {
	bt := setup(t)
	const lib = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("%s missing (apt-get install libhsa-runtime-dev, listed in scripts/apt-packages.txt): %v", lib, err)
	}
	for _, env := range []map[string]string{
		{"LD_PRELOAD": bt.shim},
		{"HSA_TOOLS_LIB": bt.shim},
		{"LD_PRELOAD": bt.shim, "HSA_TOOLS_LIB": bt.shim},
	} {
		env["LD_LIBRARY_PATH"] = "" // the system's libhsa-runtime64.so.1, not the stand-in
		env["ROCJITSU_GUEST"] = "gfx950"
		r := bt.run(t, env, "-info")
		if r.rc != 6 || !strings.Contains(r.stdout, "hsa_init 0x1008") {
			t.Fatalf("%v: want the runtime's HSA_STATUS_ERROR_OUT_OF_RESOURCES\n%s", env, r)
		}
	}
}

// Two Go runtimes in one process are unsupported: with another Go c-shared
// library loaded, the shim refuses to start and the application runs on.
func TestSecondGoRuntime(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, map[string]string{"LD_PRELOAD": bt.other, "HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950"},
		append([]string{"-info"}, bt.kargs("-n", "10", bt.host)...)...)
	ok(t, r)
	want(t, r, r.stderr, "not loading: another Go runtime is loaded in this process")
	want(t, r, r.stdout, "agent gfx942\n", "tools_loaded 0 onload_calls 1", "parent dispatched 10 of 10 faults 0")
}

// Eight threads each load, freeze, dispatch on a shared queue and destroy
// their own executable 100 times at once: the load and freeze hooks enter Go
// from many threads, and the kernel_object map is rebuilt while other
// threads' packets go through the handler.
func TestLoadStorm(t *testing.T) {
	bt := setup(t)
	ptr := (bt.kernarg + 7) &^ 7
	for _, gpu := range []string{"sync", "async"} {
		t.Run(gpu, func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow", "STANDIN_GPU": gpu}
			r := bt.run(t, env, bt.kargs("-load-storm", "-t", "8", "-n", "100", "-check-wrapper", fmt.Sprint(ptr), "-copy", fmt.Sprint(bt.kernarg), bt.guest)...)
			ok(t, r)
			want(t, r, r.stdout, "parent dispatched 800 of 800 faults 0 errors 0")
			want(t, r, r.log, "OnUnload: 800 dispatches rewritten, 0 passed through")
			// 800 storm loads plus the main thread's one.
			if n := strings.Count(r.log, "translated code object for gfx950 -> gfx942"); n != 801 {
				t.Errorf("%d translated loads, want 801", n)
			}
			if n := strings.Count(r.log, "kernel scale.kd (kernel_object"); n != 801 {
				t.Errorf("%d rewrite plans, want 801", n)
			}
		})
	}
}

// Two different GPUs: both advertise the guest, and each load is translated
// for the ISA of the agent it is loaded on.
func TestTwoGPUs(t *testing.T) {
	bt := setup(t)
	for _, c := range []struct {
		gpu, host string
	}{{"0", "gfx942"}, {"1", "gfx1201"}} {
		t.Run(c.host, func(t *testing.T) {
			env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "retarget", "STANDIN_GPUS": "gfx942,gfx1201"}
			r := bt.run(t, env, append([]string{"-info", "-gpu", c.gpu}, bt.kargs("-n", "20", bt.guest)...)...)
			ok(t, r)
			want(t, r, r.stdout, "agent gfx950\n", "wavefront 64\n", "parent dispatched 20 of 20 faults 0 errors 0")
			want(t, r, r.log, "translated code object for gfx950 -> "+c.host)
		})
	}
}
