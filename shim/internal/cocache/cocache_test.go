package cocache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

func TestRoundTrip(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	k := MakeKey([]byte("guest"), "gfx942", "retarget", "v1")
	if _, ok, err := c.Get(k); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	if err := c.Put(k, []byte("host bytes")); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(k)
	if !ok || err != nil || string(got) != "host bytes" {
		t.Fatalf("Get = %q %v %v", got, ok, err)
	}
}

func TestKeyInputs(t *testing.T) {
	base := MakeKey([]byte("g"), "gfx942", "t", "v")
	for _, k := range []Key{
		MakeKey([]byte("h"), "gfx942", "t", "v"),
		MakeKey([]byte("g"), "gfx1201", "t", "v"),
		MakeKey([]byte("g"), "gfx942", "u", "v"),
		MakeKey([]byte("g"), "gfx942", "t", "w"),
		MakeKey([]byte("g"), "gfx942t", "", "v"),
	} {
		if k == base {
			t.Errorf("key collision for a changed input")
		}
	}
}

func TestCorruptEntryIsMiss(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	k := MakeKey([]byte("x"), "gfx942", "t", "v")
	if err := c.Put(k, bytes.Repeat([]byte{7}, 100)); err != nil {
		t.Fatal(err)
	}
	p := c.path(k)
	data, _ := os.ReadFile(p)
	data[len(data)-1] ^= 1
	os.WriteFile(p, data, 0o644)
	_, ok, err := c.Get(k)
	if ok || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt entry: ok=%v err=%v", ok, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("corrupt entry not removed")
	}
}

func TestConcurrentWriters(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				k := MakeKey([]byte(fmt.Sprint(j)), "gfx942", "t", "v")
				if err := c.Put(k, []byte(fmt.Sprint("payload", j))); err != nil {
					t.Error(err)
				}
				if got, ok, err := c.Get(k); !ok || err != nil || string(got) != fmt.Sprint("payload", j) {
					t.Errorf("Get %d = %q %v %v", j, got, ok, err)
				}
			}
		}(i)
	}
	wg.Wait()
	left, _ := filepath.Glob(filepath.Join(c.Dir, "*", ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestDefaultDir(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ROCJITSU_CACHE_DIR": "/a", "XDG_CACHE_HOME": "/b"}, "/a"},
		{map[string]string{"XDG_CACHE_HOME": "/b", "HOME": "/h"}, "/b/rocjitsu"},
		{map[string]string{"HOME": "/h"}, "/h/.cache/rocjitsu"},
	} {
		got, err := DefaultDir(func(k string) string { return c.env[k] })
		if err != nil || got != c.want {
			t.Errorf("DefaultDir(%v) = %q %v", c.env, got, err)
		}
	}
	if _, err := DefaultDir(func(string) string { return "" }); err == nil {
		t.Error("no env: no error")
	}
}

// FuzzGet feeds arbitrary file contents to Get: it must return either the
// exact payload that was hashed into the header, a miss, or an error. One
// cache directory serves every input of a worker (a directory per input
// held the target at about 1,100 executions per second); each entry is
// removed after its input.
func FuzzGet(f *testing.F) {
	dir := f.TempDir()
	f.Add([]byte(magic))
	f.Add([]byte("RJCOC1\nshort"))
	good := append([]byte(magic), make([]byte, 32)...)
	f.Add(good)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, data, func() {
			c := &Cache{Dir: dir}
			k := MakeKey(data, "gfx942", "t", "v")
			p := c.path(k)
			os.MkdirAll(filepath.Dir(p), 0o755)
			defer os.Remove(p)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, ok, err := c.Get(k)
			if ok {
				if err != nil || len(data) < len(magic)+32 || !bytes.Equal(got, data[len(magic)+32:]) {
					t.Fatalf("Get accepted %q as %q (%v)", data, got, err)
				}
			} else if err == nil {
				t.Fatalf("existing entry %q: miss without error", data)
			}
		})
	})
}
