package translate

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/shim/internal/cocache"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

func guestObject(t *testing.T) []byte {
	b, err := os.ReadFile(projectpath.MustShared(t, "corpus", "aiter", "gfx950", "fmha_v3_fwd_fwd_hd128_bf16.co"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIdentity(t *testing.T) {
	g := guestObject(t)
	out, rep, err := Identity{}.Translate(g, "gfx942")
	if err != nil || !bytes.Equal(out, g) || !strings.Contains(rep, "1 kernels") {
		t.Fatalf("identity: %v %q", err, rep)
	}
	if _, _, err := (Identity{}).Translate(g[:100], "gfx942"); err == nil {
		t.Error("identity accepted a truncated object")
	}
}

func TestRetarget(t *testing.T) {
	g := guestObject(t)
	for host, mach := range map[string]uint32{"gfx942": 0x4c, "gfx1200": 0x48, "gfx1201": 0x4e} {
		out, _, err := Retarget{}.Translate(g, host)
		if err != nil {
			t.Fatal(err)
		}
		o, err := codeobj.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		if o.EFlags != 0x500|mach {
			t.Errorf("%s: e_flags %#x", host, o.EFlags)
		}
		if d := bytes.Compare(out[:48], g[:48]); d != 0 || !bytes.Equal(out[52:], g[52:]) {
			t.Errorf("%s: bytes other than e_flags changed", host)
		}
	}
	if _, _, err := (Retarget{}).Translate(g, "gfx803"); err == nil {
		t.Error("retarget to unknown host succeeded")
	}
}

func TestGrow(t *testing.T) {
	g := guestObject(t)
	out, _, err := Grow{}.Translate(g, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	go_, _ := codeobj.Parse(g)
	ho, err := codeobj.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	gk, hk := go_.Kernels[0].Desc, ho.Kernels[0].Desc
	if hk.GroupSegmentFixedSize != gk.GroupSegmentFixedSize+GrowGroup || hk.PrivateSegmentFixedSize != gk.PrivateSegmentFixedSize+GrowPrivate ||
		hk.KernargSize != (gk.KernargSize+7)&^7+8+GrowPayload {
		t.Errorf("guest %+v host %+v", gk, hk)
	}
}

func TestByName(t *testing.T) {
	for _, n := range []string{"identity", "retarget", "grow", "reject"} {
		tr, err := ByName(n)
		if err != nil || tr.Name() != n {
			t.Errorf("ByName(%s) = %v, %v", n, tr, err)
		}
	}
	if tr, _ := ByName("auto"); tr.Name() != "identity" {
		t.Errorf("auto without dbt = %s", tr.Name())
	}
	if _, err := ByName("magic"); err == nil {
		t.Error("unknown name accepted")
	}
	if _, _, err := (Reject{}).Translate(nil, "gfx942"); err == nil {
		t.Error("reject succeeded")
	}
}

type counting struct {
	Translator
	n int
}

func (c *counting) Translate(g []byte, h string) ([]byte, string, error) {
	c.n++
	return c.Translator.Translate(g, h)
}

func TestCached(t *testing.T) {
	g := guestObject(t)
	inner := &counting{Translator: Retarget{}}
	var events []string
	c := &Cached{T: inner, Cache: &cocache.Cache{Dir: t.TempDir()}, OnEvent: func(e string, _ cocache.Key, _ error) { events = append(events, e) }}
	a, _, err := c.Translate(g, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	b, rep, err := c.Translate(g, "gfx942")
	if err != nil || !bytes.Equal(a, b) || !strings.Contains(rep, "cache hit") {
		t.Fatalf("second translate: %v %q", err, rep)
	}
	if inner.n != 1 {
		t.Errorf("inner translator ran %d times, want 1", inner.n)
	}
	if _, _, err := c.Translate(g, "gfx1201"); err != nil || inner.n != 2 {
		t.Errorf("other host should miss: n=%d err=%v", inner.n, err)
	}
	if strings.Join(events, ",") != "stored,hit,stored" {
		t.Errorf("events %v", events)
	}
}
