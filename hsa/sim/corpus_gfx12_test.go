package sim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestCorpusGFX12 runs every gfx1200 and gfx1201 object of testdata/kernels
// (wave32, as built) on agents for those targets and compares the buffers
// with the Go CPU reference of internal/kernelref.
func TestCorpusGFX12(t *testing.T) {
	cases := kernelref.AllCases()
	ran := 0
	for _, target := range []string{"gfx1200", "gfx1201"} {
		for i := range cases {
			c := &cases[i]
			if !c.HasTarget(target) {
				continue
			}
			t.Run(target+"/"+c.Name, func(t *testing.T) {
				out, _, err := runCase(t, c, target, target)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Check(out); err != nil {
					t.Fatal(err)
				}
				ran++
			})
		}
	}
	if ran == 0 {
		t.Fatal("no gfx12 corpus kernel ran")
	}
	t.Logf("%d gfx12 wave32 kernels match their references", ran)
}

// wave64Dir holds the corpus sources compiled for gfx1200/gfx1201 with
// clang-19 -mwavefrontsize64 (the build.sh flags otherwise), built once per
// test binary; wave64Fail maps objects that cannot be built to the reason.
var (
	wave64Once sync.Once
	wave64Dir  string
	wave64Fail map[string]string
	wave64Err  error
)

func buildWave64(t *testing.T) (string, map[string]string) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	wave64Once.Do(func() {
		wave64Dir, wave64Err = os.MkdirTemp("", "rocjitsu-gfx12-wave64-")
		if wave64Err != nil {
			return
		}
		wave64Fail = map[string]string{}
		src := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "src")
		type job struct{ name, arch string }
		var jobs []job
		for _, c := range kernelref.AllCases() {
			for _, arch := range []string{"gfx1200", "gfx1201"} {
				if c.HasTarget(arch) {
					jobs = append(jobs, job{c.Name, arch})
				}
			}
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for _, j := range jobs {
			wg.Add(1)
			go func(j job) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				obj := filepath.Join(wave64Dir, j.name+"."+j.arch+".o")
				co := filepath.Join(wave64Dir, j.name+"."+j.arch+".co")
				cmd := exec.Command(clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu="+j.arch,
					"-mwavefrontsize64", "-nogpulib", "-O2", "-ffp-contract=off", "-I.", "-c", j.name+".cl", "-o", obj)
				cmd.Dir = src
				out, err := cmd.CombinedOutput()
				if err == nil {
					out, err = exec.Command(lld, "-shared", "--build-id=none", obj, "-o", co).CombinedOutput()
				}
				if err != nil {
					mu.Lock()
					wave64Fail[j.name+"."+j.arch] = strings.TrimSpace(string(out))
					mu.Unlock()
				}
			}(j)
		}
		wg.Wait()
	})
	if wave64Err != nil {
		t.Fatal(wave64Err)
	}
	return wave64Dir, wave64Fail
}

// TestCorpusGFX12Wave64 compiles the gfx12 corpus as wave64
// (-mwavefrontsize64) and runs every kernel on the same agents: the
// descriptor selects the wave size. Kernels written with wave32-only
// builtins (the WMMA kernel's _w32 intrinsic) cannot be built as wave64 and
// are skipped with the compiler's message.
func TestCorpusGFX12Wave64(t *testing.T) {
	dir, fail := buildWave64(t)
	cases := kernelref.AllCases()
	ran := 0
	for _, target := range []string{"gfx1200", "gfx1201"} {
		for i := range cases {
			c := &cases[i]
			if !c.HasTarget(target) {
				continue
			}
			t.Run(target+"/"+c.Name, func(t *testing.T) {
				key := c.Name + "." + target
				if msg, bad := fail[key]; bad {
					if strings.Contains(msg, "wavefrontsize32") {
						t.Skipf("no wave64 build: %s", firstLine(msg))
					}
					t.Fatalf("wave64 build failed: %s", msg)
				}
				path := filepath.Join(dir, key+".co")
				image, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(image), ".wavefront_size: 32") {
					t.Fatalf("%s is not a wave64 object", path)
				}
				out, _, err := runImage(t, c, image, path, target)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Check(out); err != nil {
					t.Fatal(err)
				}
				ran++
			})
		}
	}
	if ran == 0 {
		t.Fatal("no gfx12 wave64 corpus kernel ran")
	}
	t.Logf("%d gfx12 wave64 kernels match their references", ran)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
