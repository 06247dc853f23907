// Command shim is librocjitsu.so, built with
//
//	go build -buildmode=c-shared -o librocjitsu.so ./shim
//
// ROCR loads it as a tool (HSA_TOOLS_LIB=librocjitsu.so) or finds it through
// its HSA_AMD_TOOL_PRIORITY symbol when it is LD_PRELOADed (ROCm >= 5.3),
// and calls OnLoad with the live HSA API table. The C half (shim.c) installs
// the wrappers and owns the per-packet path; this file holds the cold-path
// policy: guest identity and its checks (shim/internal/guest), translation
// with the on-disk cache (shim/internal/translate, shim/internal/cocache)
// and the dispatch rewrite plan computed at freeze time
// (shim/internal/dispatch). Nothing runs in init(): the Go runtime starts
// when the library is loaded, and all work waits for OnLoad.
//
// Environment: ROCJITSU_GUEST (e.g. gfx950), ROCJITSU_CONFIG (JSON guest/host
// description), ROCJITSU_TRANSLATOR (auto, identity, retarget, grow, reject,
// or dbt once registered), ROCJITSU_CACHE_DIR, ROCJITSU_CACHE=off,
// ROCJITSU_DISPATCH=off, ROCJITSU_LOG (error, warn, info, debug),
// ROCJITSU_LOG_FILE, ROCJITSU_FAULT (fault injection for tests:
// translate-panic, freeze-panic).
//
// The real translator plugs in by registering itself: a file in this
// package with
//
//	func init() { translate.Register("dbt", func() translate.Translator { ... }) }
//
// (registration only; no work in init) makes ROCJITSU_TRANSLATOR=auto use it.
package main

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/../c/include -Wall -Wno-unused-function
#cgo LDFLAGS: ${SRCDIR}/exports.map.so
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/shim/internal/cocache"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
	"github.com/rocjitsu/rocjitsu/shim/internal/dispatch"
	"github.com/rocjitsu/rocjitsu/shim/internal/guest"
	"github.com/rocjitsu/rocjitsu/shim/internal/logx"
	"github.com/rocjitsu/rocjitsu/shim/internal/translate"
)

func main() {}

// loadRec is one code object swapped at load time.
type loadRec struct {
	id, exec, agent uint64
	host            string
	guest, out      *codeobj.Object
	confirmed       bool
	planned         bool
}

// shimState is everything the Go half knows between OnLoad and OnUnload.
type shimState struct {
	mu     sync.Mutex
	log    *logx.Logger
	cfg    *guest.Config
	tr     translate.Translator
	fault  string
	loads  map[uint64]*loadRec
	nextID uint64
}

var (
	stMu sync.Mutex
	st   *shimState
)

func current() *shimState {
	stMu.Lock()
	defer stMu.Unlock()
	return st
}

// guard recovers a panic in a callback, logs it, and runs onPanic.
func guard(s *shimState, where string, onPanic func()) {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("panic in %s (recovered; continuing untranslated): %v\n%s", where, r, debug.Stack())
		if s != nil && s.log != nil {
			s.log.Errorf("%s", msg)
		} else {
			fmt.Fprintf(os.Stderr, "rocjitsu: %s\n", msg)
		}
		if onPanic != nil {
			onPanic()
		}
	}
}

//export rjGoRefuse
func rjGoRefuse(why *C.char) {
	defer guard(nil, "OnLoad", nil)
	lg := logx.FromEnv(os.Getenv)
	lg.Errorf("not loading: %s", C.GoString(why))
}

//export rjGoStart
func rjGoStart(runtimeVersion C.uint64_t, rootMajor C.uint32_t, amdSize C.uint32_t, n C.int, isas **C.char) (rc C.int) {
	s := &shimState{log: logx.FromEnv(os.Getenv), loads: map[uint64]*loadRec{}, fault: os.Getenv("ROCJITSU_FAULT")}
	defer guard(s, "OnLoad", func() { rc = -1 })
	C.rj_set_log(C.int(s.log.Level()), C.int(s.log.Fd()))
	layout := "before ROCm 5.6"
	if amdSize >= 456 {
		layout = "ROCm 5.6 and later"
	}
	hosts := make([]string, int(n))
	for i, p := range unsafe.Slice(isas, int(n)) {
		hosts[i] = C.GoString(p)
	}
	s.log.Infof("OnLoad: runtime table major %d, AmdExtTable %d bytes (%s layout), GPUs %s", rootMajor, amdSize, layout, strings.Join(hosts, ", "))
	_ = runtimeVersion
	cfg, err := guest.FromEnv(os.Getenv)
	if err != nil {
		s.log.Errorf("not loading: %v", err)
		fmt.Fprintf(os.Stderr, "rocjitsu: not loading: %v\n", err)
		return -1
	}
	if cfg != nil {
		for _, h := range hosts {
			if err := cfg.Check(h); err != nil {
				s.log.Errorf("not loading: %v", err)
				fmt.Fprintf(os.Stderr, "rocjitsu: not loading: %v\n", err)
				return -1
			}
		}
		if len(hosts) == 0 {
			s.log.Warnf("no GPU agents: nothing to advertise")
		} else {
			g := cfg.Guest
			cs := func(s string) *C.char { return C.CString(s) } // kept: copied by C, freed below
			name, isa, product := cs(g.Name), cs(cfg.ISAName()), cs(g.MarketingName)
			C.rj_set_guest(name, isa, product, C.uint32_t(g.LDSSize), C.uint32_t(g.WavefrontSize), C.uint32_t(g.WavesPerSIMD))
			C.free(unsafe.Pointer(name))
			C.free(unsafe.Pointer(isa))
			C.free(unsafe.Pointer(product))
			s.log.Infof("advertising guest %s (%s, %d bytes LDS, wave%d, %d waves/SIMD) on %s", g.Name, cfg.ISAName(), g.LDSSize, g.WavefrontSize, g.WavesPerSIMD, strings.Join(hosts, ", "))
		}
		s.cfg = cfg
	}
	trName := os.Getenv("ROCJITSU_TRANSLATOR")
	if cfg != nil || trName != "" {
		tr, err := translate.ByName(trName)
		if err != nil {
			s.log.Errorf("%v; code objects load untranslated", err)
		} else {
			s.tr = tr
			if os.Getenv("ROCJITSU_CACHE") != "off" {
				if dir, err := cocache.DefaultDir(os.Getenv); err != nil {
					s.log.Warnf("translation cache off: %v", err)
				} else {
					s.tr = &translate.Cached{T: tr, Cache: &cocache.Cache{Dir: dir}, OnEvent: func(e string, k cocache.Key, err error) {
						if err != nil {
							s.log.Warnf("cache %s %s: %v", e, k, err)
						} else {
							s.log.Debugf("cache %s %s", e, k)
						}
					}}
				}
			}
			s.log.Infof("translator %s", tr.Name())
		}
	}
	if os.Getenv("ROCJITSU_DISPATCH") == "off" {
		C.rj_set_dispatch(0)
		s.log.Infof("dispatch rewriting off (ROCJITSU_DISPATCH=off)")
	} else {
		C.rj_set_dispatch(1)
	}
	stMu.Lock()
	st = s
	stMu.Unlock()
	return 0
}

//export rjGoTranslate
func rjGoTranslate(exec, agent C.uint64_t, data unsafe.Pointer, size C.size_t, isa *C.char, out *unsafe.Pointer, outSize *C.size_t, id *C.uint64_t) (ok C.int) {
	s := current()
	if s == nil || s.tr == nil {
		return 0
	}
	defer guard(s, "code-object load", func() { ok = 0 })
	host := guest.Processor(C.GoString(isa))
	in := C.GoBytes(data, C.int(size))
	if s.fault == "translate-panic" {
		panic("fault injection: ROCJITSU_FAULT=translate-panic")
	}
	g, err := codeobj.Parse(in)
	if err != nil {
		s.log.Warnf("code object (%d bytes) not translated: %v; loading it unchanged", len(in), err)
		return 0
	}
	proc, _ := codeobj.ProcessorOf(g.Mach())
	if s.cfg != nil && proc != s.cfg.Guest.ISA {
		s.log.Debugf("code object for %s (not the guest %s): loading it unchanged", orUnknown(proc, g.Mach()), s.cfg.Guest.ISA)
		return 0
	}
	res, report, err := s.tr.Translate(in, host)
	if err != nil {
		s.log.Warnf("code object for %s (%d bytes, %d kernels) not translated for %s: %v; loading it unchanged", orUnknown(proc, g.Mach()), len(in), len(g.Kernels), host, err)
		return 0
	}
	o, err := codeobj.Parse(res)
	if err != nil {
		s.log.Warnf("translator %s produced an unreadable code object for %s: %v; loading the original", s.tr.Name(), host, err)
		return 0
	}
	buf := C.malloc(C.size_t(len(res)))
	if buf == nil {
		s.log.Errorf("out of memory for a %d-byte translated code object", len(res))
		return 0
	}
	copy(unsafe.Slice((*byte)(buf), len(res)), res)
	s.mu.Lock()
	s.nextID++
	rec := &loadRec{id: s.nextID, exec: uint64(exec), agent: uint64(agent), host: host, guest: g, out: o}
	s.loads[rec.id] = rec
	s.mu.Unlock()
	s.log.Infof("translated code object for %s -> %s (%d -> %d bytes): %s", orUnknown(proc, g.Mach()), host, len(in), len(res), report)
	*out = buf
	*outSize = C.size_t(len(res))
	*id = C.uint64_t(rec.id)
	return 1
}

func orUnknown(proc string, mach uint8) string {
	if proc == "" {
		return fmt.Sprintf("machine %#x", mach)
	}
	return proc
}

//export rjGoLoadResult
func rjGoLoadResult(id C.uint64_t, ok C.int) {
	s := current()
	if s == nil {
		return
	}
	defer guard(s, "code-object load", nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec := s.loads[uint64(id)]; rec != nil {
		if ok != 0 {
			rec.confirmed = true
		} else {
			delete(s.loads, uint64(id))
		}
	}
}

//export rjGoFreeze
func rjGoFreeze(exec C.uint64_t) {
	s := current()
	if s == nil {
		return
	}
	defer guard(s, "executable freeze", nil)
	if s.fault == "freeze-panic" {
		panic("fault injection: ROCJITSU_FAULT=freeze-panic")
	}
	s.mu.Lock()
	var recs []*loadRec
	for _, r := range s.loads {
		if r.exec == uint64(exec) && r.confirmed && !r.planned {
			r.planned = true
			recs = append(recs, r)
		}
	}
	s.mu.Unlock()
	for _, r := range recs {
		for _, k := range r.guest.Kernels {
			hk, ok := r.out.Kernel(k.Name)
			if !ok {
				s.log.Warnf("kernel %s is missing from the translated code object; its dispatches will fault", k.Name)
				continue
			}
			e, err := dispatch.Plan(k.Desc, hk.Desc)
			if err != nil {
				s.log.Warnf("kernel %s: %v; dispatching it unchanged", k.Name, err)
				continue
			}
			if e.IsZero() {
				s.log.Debugf("kernel %s: packets pass through", k.Name)
				continue
			}
			name := C.CString(k.Name)
			var kobj C.uint64_t
			rc := C.rj_kernel_object(C.uint64_t(r.exec), C.uint64_t(r.agent), name, &kobj)
			C.free(unsafe.Pointer(name))
			if rc != 0 {
				s.log.Warnf("kernel %s: no KERNEL_OBJECT after freeze (%d); dispatching it unchanged", k.Name, rc)
				continue
			}
			var payload unsafe.Pointer
			if len(e.Payload) > 0 {
				payload = C.CBytes(e.Payload)
			}
			C.rj_map_put(C.uint64_t(r.exec), kobj, C.uint64_t(e.NewKernelObject), C.uint32_t(e.GroupAdd), boolInt(e.GroupZero),
				C.uint32_t(e.PrivateMin), C.uint32_t(e.KernargSize), C.uint32_t(e.CopySize), C.uint32_t(e.PtrOffset),
				payload, C.uint32_t(len(e.Payload)))
			if payload != nil {
				C.free(payload)
			}
			s.log.Infof("kernel %s (kernel_object %#x): %s", k.Name, uint64(kobj), e)
		}
	}
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

//export rjGoDestroy
func rjGoDestroy(exec C.uint64_t) {
	s := current()
	if s == nil {
		return
	}
	defer guard(s, "executable destroy", nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, r := range s.loads {
		if r.exec == uint64(exec) {
			delete(s.loads, id)
		}
	}
}

//export rjGoUnload
func rjGoUnload() {
	s := current()
	if s == nil {
		return
	}
	defer guard(s, "OnUnload", nil)
	var c C.rj_counters
	C.rj_get_counters(&c)
	s.log.Infof("OnUnload: %d dispatches rewritten, %d passed through, %d kernarg-pool waits, %d fall-backs",
		uint64(c.rewritten), uint64(c.passed), uint64(c.pool_waits), uint64(c.fallbacks))
	stMu.Lock()
	st = nil
	stMu.Unlock()
}
