package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func guestObject(t *testing.T) []byte {
	b, err := os.ReadFile(projectpath.MustShared(t, "corpus", "aiter", "gfx950", "fmha_v3_fwd_fwd_hd128_bf16.co"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const host = "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"

func TestStartRefuses(t *testing.T) {
	_, err := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx1201", "ROCJITSU_LOG": "error", "ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "wave32") {
		t.Fatalf("gfx1201 on gfx942: %v", err)
	}
	e, err := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	if err != nil || e.Config == nil || e.T == nil {
		t.Fatalf("gfx950 on gfx942: %v %+v", err, e)
	}
	e, err = Start(env(map[string]string{"ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	if err != nil || e.T != nil {
		t.Fatalf("no guest: translator %v err %v", e.T, err)
	}
}

func TestTranslateAndFreeze(t *testing.T) {
	dir := t.TempDir()
	e, err := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow", "ROCJITSU_CACHE_DIR": dir, "ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	g := guestObject(t)
	out, id, ok := e.Translate(1, 2, g, host)
	if !ok {
		t.Fatal("not translated")
	}
	o, err := codeobj.Parse(out)
	if err != nil || o.Mach() != 0x4c {
		t.Fatalf("output: %v mach %#x", err, o.Mach())
	}
	if rw := e.Freeze(1, nil); len(rw) != 0 {
		t.Fatalf("unconfirmed load planned: %v", rw)
	}
	e.LoadResult(id, true)
	rw := e.Freeze(1, func(agent uint64, name string) (uint64, error) {
		if agent != 2 {
			return 0, fmt.Errorf("agent %d", agent)
		}
		return 0x1000, nil
	})
	if len(rw) != 1 || rw[0].KernelObject != 0x1000 || rw[0].Entry.GroupAdd != 1024 {
		t.Fatalf("rewrites %+v", rw)
	}
	if rw := e.Freeze(1, nil); len(rw) != 0 {
		t.Fatalf("second freeze planned again: %v", rw)
	}
	e.Destroy(1)
	if e.Pending() != 0 {
		t.Errorf("%d loads left after destroy", e.Pending())
	}
	// Not the guest ISA: loaded unchanged.
	if _, _, ok := e.Translate(1, 2, out, host); ok {
		t.Error("a gfx942 object was translated for a gfx950 guest")
	}
	// Corrupt: loaded unchanged.
	if _, _, ok := e.Translate(1, 2, g[:200], host); ok {
		t.Error("a truncated object was translated")
	}
}

func TestTranslatePanicInjection(t *testing.T) {
	e, _ := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_FAULT": "translate-panic", "ROCJITSU_CACHE": "off", "ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	defer func() {
		if recover() == nil {
			t.Error("no panic with ROCJITSU_FAULT=translate-panic")
		}
	}()
	e.Translate(1, 2, guestObject(t), host)
}

// Loads, freezes and destroys from many goroutines, as threads of an
// application do; run under -race by make test.
func TestConcurrentExecutables(t *testing.T) {
	e, err := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "grow", "ROCJITSU_CACHE_DIR": t.TempDir(), "ROCJITSU_LOG_FILE": os.DevNull}), []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	g := guestObject(t)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				exec := uint64(w*1000 + i + 1)
				_, id, ok := e.Translate(exec, 7, g, host)
				if !ok {
					t.Error("not translated")
					return
				}
				e.LoadResult(id, true)
				rw := e.Freeze(exec, func(uint64, string) (uint64, error) { return exec << 8, nil })
				if len(rw) != 1 || rw[0].KernelObject != exec<<8 {
					t.Errorf("exec %d: %+v", exec, rw)
				}
				e.Destroy(exec)
			}
		}(w)
	}
	wg.Wait()
	if e.Pending() != 0 {
		t.Errorf("%d loads left", e.Pending())
	}
}

func TestLDSWarning(t *testing.T) {
	logPath := t.TempDir() + "/log"
	e, err := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "retarget", "ROCJITSU_CACHE": "off", "ROCJITSU_LOG_FILE": logPath}), []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	_, id, ok := e.Translate(1, 2, guestObject(t), host) // fmha: 160 KiB of LDS
	if !ok {
		t.Fatal("not translated")
	}
	e.LoadResult(id, true)
	e.Freeze(1, func(uint64, string) (uint64, error) { return 1, nil })
	data, _ := os.ReadFile(logPath)
	if !strings.Contains(string(data), "needs 163840 bytes of LDS, gfx942 has 65536 and the translation has no virtual-LDS sidecar") {
		t.Errorf("log:\n%s", data)
	}
}

func TestSimulatorBackend(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sim.json")
	if err := os.WriteFile(cfg, []byte(`{"guest": {"isa": "gfx950"}, "host": {"isa": "gfx942", "backend": "simulator"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"ROCJITSU_CONFIG": cfg, "ROCJITSU_CACHE": "off", "ROCJITSU_LOG_FILE": os.DevNull}
	host := "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
	if _, err := Start(env(vars), []string{host}, false); err == nil || !strings.Contains(err.Error(), "are not the simulated ones") {
		t.Errorf("simulator backend without the simulated GPU: %v", err)
	}
	e, err := Start(env(vars), []string{host}, true)
	if err != nil || e.Config == nil || e.Config.Guest.ISA != "gfx950" {
		t.Fatalf("simulator backend on the simulated GPU: %v", err)
	}
}

// TestTranslationTimeLogged: the log line of a translated load says how long
// the translation took, the first time (translated) and the second (a hit in
// the code-object cache).
func TestTranslationTimeLogged(t *testing.T) {
	logPath := t.TempDir() + "/log"
	e, err := Start(env(map[string]string{"ROCJITSU_GUEST": "gfx950", "ROCJITSU_TRANSLATOR": "retarget", "ROCJITSU_CACHE_DIR": t.TempDir(), "ROCJITSU_LOG": "info", "ROCJITSU_LOG_FILE": logPath}), []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, ok := e.Translate(1, 2, guestObject(t), host); !ok {
			t.Fatal("not translated")
		}
	}
	data, _ := os.ReadFile(logPath)
	re := regexp.MustCompile(`translated code object for gfx950 -> gfx942 \(\d+ -> \d+ bytes, \d+\.\d\d ms\): (.*)`)
	m := re.FindAllStringSubmatch(string(data), -1)
	if len(m) != 2 || strings.Contains(m[0][1], "cache hit") || !strings.Contains(m[1][1], "cache hit") {
		t.Errorf("want a translation then a cache hit, each with its time; log:\n%s", data)
	}
}
