// Package policy is the Go half of librocjitsu.so's decisions, kept apart
// from cgo so that it can be tested (and raced) as ordinary Go: it reads the
// guest configuration and checks it against the GPUs, picks the translator
// and its cache, translates code objects at load time, remembers what it
// swapped, and at freeze time turns guest/host kernel descriptor pairs into
// dispatch rewrites. The shim's package main only moves bytes and handles
// between this package and its C half.
package policy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/shim/internal/cocache"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
	"github.com/rocjitsu/rocjitsu/shim/internal/dispatch"
	"github.com/rocjitsu/rocjitsu/shim/internal/guest"
	"github.com/rocjitsu/rocjitsu/shim/internal/logx"
	"github.com/rocjitsu/rocjitsu/shim/internal/translate"
)

// Engine holds the policy state between OnLoad and OnUnload. Its methods are
// safe for concurrent use.
type Engine struct {
	Log      *logx.Logger
	Config   *guest.Config        // nil: no guest advertised
	T        translate.Translator // nil: nothing is translated
	Dispatch bool                 // dispatch rewriting on
	Fault    string               // fault injection (ROCJITSU_FAULT)

	mu     sync.Mutex
	loads  map[uint64]*load
	nextID uint64
}

type load struct {
	exec, agent uint64
	host        string
	guest, out  *codeobj.Object
	appKernarg  map[string]uint32     // .kd name -> metadata .kernarg_segment_size
	sidecars    map[string]vlds.Entry // .kd name -> .rocjitsu.lds entry
	hostLDS     uint32
	confirmed   bool
	planned     bool
}

// ErrRefused is wrapped by Start's error when the shim must not load.
var ErrRefused = errors.New("rocjitsu refuses to load")

// Start builds an engine from the environment for the GPUs whose ISA names
// are hosts. It returns an error wrapping ErrRefused when the guest cannot be
// served by one of them (the message says which limit).
//
// simulated says that the process's GPUs are the shim's simulated ones
// (its driver boundary is active), which is what the "simulator" host
// backend of a config asks for.
func Start(getenv func(string) string, hosts []string, simulated bool) (*Engine, error) {
	e := &Engine{Log: logx.FromEnv(getenv), Dispatch: getenv("ROCJITSU_DISPATCH") != "off", Fault: getenv("ROCJITSU_FAULT"), loads: map[uint64]*load{}}
	cfg, err := guest.FromEnv(getenv)
	if err != nil {
		return e, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if cfg != nil {
		cfg.Simulated = simulated
		for _, h := range hosts {
			if err := cfg.Check(h); err != nil {
				return e, fmt.Errorf("%w: %v", ErrRefused, err)
			}
		}
		e.Config = cfg
	}
	name := getenv("ROCJITSU_TRANSLATOR")
	if cfg == nil && name == "" {
		return e, nil
	}
	tr, err := translate.ByName(name)
	if err != nil {
		e.Log.Errorf("%v; code objects load untranslated", err)
		return e, nil
	}
	e.T = tr
	if getenv("ROCJITSU_CACHE") != "off" {
		dir, err := cocache.DefaultDir(getenv)
		if err != nil {
			e.Log.Warnf("translation cache off: %v", err)
		} else {
			e.T = &translate.Cached{T: tr, Cache: &cocache.Cache{Dir: dir}, OnEvent: func(ev string, k cocache.Key, err error) {
				if err != nil {
					e.Log.Warnf("cache %s %s: %v", ev, k, err)
				} else {
					e.Log.Debugf("cache %s %s", ev, k)
				}
			}}
		}
	}
	e.Log.Infof("translator %s", tr.Name())
	if len(hosts) > 0 && cfg != nil {
		g := cfg.Guest
		e.Log.Infof("advertising guest %s (%s, %d bytes LDS, wave%d, %d waves/SIMD) on %s", g.Name, cfg.ISAName(), g.LDSSize, g.WavefrontSize, g.WavesPerSIMD, strings.Join(hosts, ", "))
	}
	return e, nil
}

// Translate is called at load time with the bytes behind the application's
// reader and the agent's ISA name. It returns the bytes to load instead and
// an id for LoadResult, or ok=false to load the original (the reason is
// logged).
func (e *Engine) Translate(exec, agent uint64, in []byte, hostISA string) (out []byte, id uint64, ok bool) {
	if e.T == nil {
		return nil, 0, false
	}
	if e.Fault == "translate-panic" {
		panic("fault injection: ROCJITSU_FAULT=translate-panic")
	}
	host := guest.Processor(hostISA)
	g, err := codeobj.Parse(in)
	if err != nil {
		e.Log.Warnf("code object (%d bytes) not translated: %v; loading it unchanged", len(in), err)
		return nil, 0, false
	}
	proc := procName(g.Mach())
	if e.Config != nil && proc != e.Config.Guest.ISA {
		e.Log.Debugf("code object for %s is not for the guest %s: loading it unchanged", proc, e.Config.Guest.ISA)
		return nil, 0, false
	}
	start := time.Now()
	res, report, err := e.T.Translate(in, host)
	took := time.Since(start)
	if err != nil {
		e.Log.Warnf("code object for %s (%d bytes, %d kernels) not translated for %s (%s): %v; loading it unchanged", proc, len(in), len(g.Kernels), host, ms(took), err)
		return nil, 0, false
	}
	o, err := codeobj.Parse(res)
	if err != nil {
		e.Log.Warnf("translator %s produced an unreadable code object for %s: %v; loading the original", e.T.Name(), host, err)
		return nil, 0, false
	}
	e.mu.Lock()
	e.nextID++
	id = e.nextID
	sc, hostLDS := sidecars(e.Log, res)
	e.loads[id] = &load{exec: exec, agent: agent, host: host, guest: g, out: o, appKernarg: metadataKernarg(e.Log, in), sidecars: sc, hostLDS: hostLDS}
	e.mu.Unlock()
	e.Log.Infof("translated code object for %s -> %s (%d -> %d bytes, %s): %s", proc, host, len(in), len(res), ms(took), report)
	return res, id, true
}

// ms prints a duration as milliseconds with two decimals, as the log reports
// the time a translation (or a cache look-up) took.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func procName(mach uint8) string {
	if p, ok := codeobj.ProcessorOf(mach); ok {
		return p
	}
	return fmt.Sprintf("machine %#x", mach)
}

// LoadResult tells the engine whether the runtime accepted the translated
// object of load id.
func (e *Engine) LoadResult(id uint64, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l := e.loads[id]; l != nil {
		if ok {
			l.confirmed = true
		} else {
			delete(e.loads, id)
		}
	}
}

// Rewrite is one dispatch rewrite decided at freeze time.
type Rewrite struct {
	KernelObject uint64
	Name         string
	Entry        dispatch.Entry
}

// Freeze plans the dispatch rewrites of an executable's swapped code
// objects. lookup returns the KERNEL_OBJECT of a symbol for an agent.
func (e *Engine) Freeze(exec uint64, lookup func(agent uint64, name string) (uint64, error)) []Rewrite {
	e.mu.Lock()
	var todo []*load
	for _, l := range e.loads {
		if l.exec == exec && l.confirmed && !l.planned {
			l.planned = true
			todo = append(todo, l)
		}
	}
	e.mu.Unlock()
	var out []Rewrite
	for _, l := range todo {
		for _, k := range l.guest.Kernels {
			hk, ok := l.out.Kernel(k.Name)
			if !ok {
				e.Log.Warnf("kernel %s is missing from the translated code object", k.Name)
				continue
			}
			ent, err := dispatch.PlanArgs(k.Desc, hk.Desc, l.appKernarg[k.Name])
			if err != nil {
				e.Log.Warnf("kernel %s: %v; dispatching it unchanged", k.Name, err)
				continue
			}
			sc, hasSidecar := l.sidecars[k.Name]
			if hasSidecar && e.Config != nil && !e.Config.AllowVirtualLDS() {
				e.Log.Infof("kernel %s: virtual-LDS sidecar not used (virtual_lds is false)", k.Name)
				hasSidecar = false
			}
			if hi, ok := guest.Lookup(l.host); ok && hk.Desc.GroupSegmentFixedSize > hi.LDSSize && !hasSidecar {
				e.Log.Warnf("kernel %s needs %d bytes of LDS, %s has %d and the translation has no virtual-LDS sidecar: its dispatches will fault",
					k.Name, hk.Desc.GroupSegmentFixedSize, l.host, hi.LDSSize)
			}
			if hasSidecar {
				ent.VLDS = &dispatch.VirtualLDS{} // filled in once the kernel object is known
			}
			if ent.IsZero() {
				e.Log.Debugf("kernel %s: packets pass through", k.Name)
				continue
			}
			if !e.Dispatch {
				e.Log.Warnf("kernel %s needs %s but dispatch rewriting is off", k.Name, ent)
				continue
			}
			kobj, err := lookup(l.agent, k.Name)
			if err != nil {
				e.Log.Warnf("kernel %s: no KERNEL_OBJECT after freeze: %v", k.Name, err)
				continue
			}
			if hasSidecar {
				// The image's load base follows from the normal descriptor.
				base := kobj - sc.Normal
				ent.VLDS = &dispatch.VirtualLDS{
					KernelObject: base + sc.Sidecar, StaticLDS: sc.StaticLDS, HostLDS: l.hostLDS, Private: sc.Private,
					Prefix: sc.Wrapper.Prefix, PtrOffset: sc.Wrapper.OrigPtr, StateOffset: sc.Wrapper.State, WrapperSize: sc.Wrapper.Size,
					Flags: sc.Flags,
				}
				if sc.Wrapper.Size > dispatch.MaxKernarg {
					e.Log.Warnf("kernel %s: virtual-LDS wrapper of %d bytes exceeds the %d-byte kernarg slot; the sidecar is not used", k.Name, sc.Wrapper.Size, dispatch.MaxKernarg)
					ent.VLDS = nil
					if ent.IsZero() {
						continue
					}
				}
			}
			e.Log.Infof("kernel %s (kernel_object %#x): %s", k.Name, kobj, ent)
			out = append(out, Rewrite{KernelObject: kobj, Name: k.Name, Entry: ent})
		}
	}
	return out
}

// Destroy forgets an executable.
func (e *Engine) Destroy(exec uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, l := range e.loads {
		if l.exec == exec {
			delete(e.loads, id)
		}
	}
}

// Pending returns the number of swapped loads the engine remembers.
func (e *Engine) Pending() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.loads)
}

// sidecars reads the translated object's .rocjitsu.lds section: the
// virtual-LDS sidecar of each kernel (by descriptor symbol) and the host LDS
// limit the sidecars were made for. A missing or malformed section means no
// sidecars (the normal kernels run; malformed is logged).
func sidecars(lg *logx.Logger, b []byte) (map[string]vlds.Entry, uint32) {
	f, err := loader.Parse(b)
	if err != nil {
		return nil, 0
	}
	sec := f.Section(vlds.SectionName)
	if sec == nil || sec.Data == nil {
		return nil, 0
	}
	s, err := vlds.Parse(sec.Data)
	if err != nil {
		lg.Warnf("translated object: %v; no virtual-LDS sidecars", err)
		return nil, 0
	}
	out := map[string]vlds.Entry{}
	for _, k := range f.Kernels() {
		if e, ok := s.Lookup(k.DescriptorAddr); ok {
			out[k.Symbol] = e
		}
	}
	lg.Debugf("translated object has %d virtual-LDS sidecars (host LDS %d)", len(out), s.HostLDS)
	return out, s.HostLDS
}

// metadataKernarg reads each kernel's .kernarg_segment_size from the code
// object's metadata note: the size of the buffer HIP fills.
func metadataKernarg(lg *logx.Logger, b []byte) map[string]uint32 {
	f, err := loader.Parse(b)
	if err != nil {
		lg.Debugf("metadata unreadable (%v): kernarg sizes from the descriptors", err)
		return nil
	}
	out := map[string]uint32{}
	for _, k := range f.Kernels() {
		if k.Metadata != nil && k.Metadata.KernargSegmentSize <= 1<<20 {
			out[k.Symbol] = uint32(k.Metadata.KernargSegmentSize)
		}
	}
	return out
}
