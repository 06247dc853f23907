// Package translate defines the shim's translator interface and the simple
// translators that exercise the code-object swap path before (and beside)
// the real DBT: identity, retarget (rewrite the e_flags machine bits), grow
// (retarget plus larger descriptor requirements, to exercise the dispatch
// rewrite) and reject (always fails, to exercise the fall-back). The real
// translator is plugged in with Register("dbt", ...); ByName("auto") picks
// it when present.
package translate

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/shim/internal/cocache"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

// Version is the rocjitsu version that goes into cache keys; bump it when a
// translator's output changes.
const Version = "0.1.0"

// Translator turns a guest code object into one for the host processor.
// It must be safe for concurrent use, deterministic, and fail closed: an
// error means "run the guest object untranslated".
type Translator interface {
	// Name identifies the translator in logs and cache keys.
	Name() string
	// Translate returns the host code object and a human-readable report.
	Translate(guest []byte, host string) (out []byte, report string, err error)
}

var (
	regMu    sync.Mutex
	registry = map[string]func() Translator{
		"identity": func() Translator { return Identity{} },
		"retarget": func() Translator { return Retarget{} },
		"grow":     func() Translator { return Grow{} },
		"reject":   func() Translator { return Reject{} },
	}
)

// Register makes a translator available to ByName. The DBT registers itself
// as "dbt".
func Register(name string, f func() Translator) {
	regMu.Lock()
	defer regMu.Unlock()
	registry[name] = f
}

// Names lists the registered translators, sorted.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ByName returns a registered translator. "auto" (and "") is "dbt" when
// registered, else "identity".
func ByName(name string) (Translator, error) {
	regMu.Lock()
	defer regMu.Unlock()
	if name == "" || name == "auto" {
		name = "identity"
		if _, ok := registry["dbt"]; ok {
			name = "dbt"
		}
	}
	f, ok := registry[name]
	if !ok {
		var names []string
		for n := range registry {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("translate: unknown translator %q (have auto, %s)", name, strings.Join(names, ", "))
	}
	return f(), nil
}

// Identity returns the guest bytes unchanged, after checking that they are a
// code object.
type Identity struct{}

// Name implements Translator.
func (Identity) Name() string { return "identity" }

// Translate implements Translator.
func (Identity) Translate(guest []byte, host string) ([]byte, string, error) {
	o, err := codeobj.Parse(guest)
	if err != nil {
		return nil, "", err
	}
	return append([]byte(nil), guest...), fmt.Sprintf("identity: %d kernels, %d bytes unchanged", len(o.Kernels), len(guest)), nil
}

// Retarget rewrites the e_flags machine bits to the host's and keeps
// everything else; correct only where the guest code uses nothing the host
// lacks.
type Retarget struct{}

// Name implements Translator.
func (Retarget) Name() string { return "retarget" }

// Translate implements Translator.
func (Retarget) Translate(guest []byte, host string) ([]byte, string, error) {
	out, o, err := retarget(guest, host)
	if err != nil {
		return nil, "", err
	}
	return out, fmt.Sprintf("retarget: e_flags %#x -> %#x, %d kernels", o.EFlags, o.EFlags&^codeobj.MachMask|uint32(out[codeobj.EFlagsOffset]), len(o.Kernels)), nil
}

func retarget(guest []byte, host string) ([]byte, *codeobj.Object, error) {
	o, err := codeobj.Parse(guest)
	if err != nil {
		return nil, nil, err
	}
	m, ok := codeobj.MachOf(host)
	if !ok {
		return nil, nil, fmt.Errorf("translate: host %q has no known e_flags machine value", host)
	}
	out := append([]byte(nil), guest...)
	if err := codeobj.SetMach(out, m); err != nil {
		return nil, nil, err
	}
	return out, o, nil
}

// Grow is Retarget plus the resource growth a real translation can cause:
// every kernel descriptor asks for GrowGroup more bytes of LDS, GrowPrivate
// more bytes of scratch per work-item, and a kernarg segment extended by the
// seed's wrapper (guest bytes, 8-byte aligned original pointer, 16-byte
// payload). It exists to test the dispatch rewrite.
type Grow struct{}

// Growth applied by Grow.
const (
	GrowGroup   = 1024
	GrowPrivate = 16
	GrowPayload = 16
)

// Name implements Translator.
func (Grow) Name() string { return "grow" }

// Translate implements Translator.
func (Grow) Translate(guest []byte, host string) ([]byte, string, error) {
	out, o, err := retarget(guest, host)
	if err != nil {
		return nil, "", err
	}
	for _, k := range o.Kernels {
		d := k.Desc
		d.GroupSegmentFixedSize += GrowGroup
		d.PrivateSegmentFixedSize += GrowPrivate
		d.KernargSize = (d.KernargSize+7)&^7 + 8 + GrowPayload
		d.PutSizes(out[k.Offset:])
	}
	return out, fmt.Sprintf("grow: retargeted to %s, %d kernels grown", host, len(o.Kernels)), nil
}

// Reject refuses every object. It exists to test the fall-back path.
type Reject struct{}

// Name implements Translator.
func (Reject) Name() string { return "reject" }

// Translate implements Translator.
func (Reject) Translate(guest []byte, host string) ([]byte, string, error) {
	return nil, "", fmt.Errorf("translate: the reject translator refuses every code object")
}

// Cached wraps a translator with the on-disk cache.
type Cached struct {
	T     Translator
	Cache *cocache.Cache
	// Hits and misses are reported through OnEvent when set.
	OnEvent func(event string, key cocache.Key, err error)
}

// Name implements Translator.
func (c *Cached) Name() string { return c.T.Name() }

// Translate implements Translator, consulting the cache first.
func (c *Cached) Translate(guest []byte, host string) ([]byte, string, error) {
	k := cocache.MakeKey(guest, host, c.T.Name(), Version)
	ev := func(e string, err error) {
		if c.OnEvent != nil {
			c.OnEvent(e, k, err)
		}
	}
	if out, ok, err := c.Cache.Get(k); ok {
		ev("hit", nil)
		return out, fmt.Sprintf("%s: cache hit %s", c.T.Name(), k), nil
	} else if err != nil {
		ev("corrupt", err)
	}
	out, report, err := c.T.Translate(guest, host)
	if err != nil {
		return nil, report, err
	}
	if err := c.Cache.Put(k, out); err != nil {
		ev("put-failed", err)
	} else {
		ev("stored", nil)
	}
	return out, report, nil
}
