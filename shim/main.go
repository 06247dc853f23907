// Command shim is librocjitsu.so, built with
//
//	go build -buildmode=c-shared -o librocjitsu.so ./shim
//
// ROCR loads it as a tool (HSA_TOOLS_LIB=librocjitsu.so) or finds it through
// its HSA_AMD_TOOL_PRIORITY symbol when it is LD_PRELOADed (ROCm >= 5.3),
// and calls OnLoad with the live HSA API table. The C half (shim.c) installs
// the wrappers and owns the per-packet path; this file holds the cold-path
// glue to the policy (shim/internal/policy: guest identity and its checks,
// translation with the on-disk cache, and the dispatch rewrite plan
// computed at freeze time). Nothing runs in init(): the Go runtime starts
// when the library is loaded, and all work waits for OnLoad.
//
// Environment: ROCJITSU_GUEST (e.g. gfx950), ROCJITSU_CONFIG (JSON guest/host
// description), ROCJITSU_TRANSLATOR (auto = dbt, identity, retarget, grow,
// reject), ROCJITSU_CACHE_DIR, ROCJITSU_CACHE=off,
// ROCJITSU_DISPATCH=off, ROCJITSU_LOG (error, warn, info, debug),
// ROCJITSU_LOG_FILE, ROCJITSU_FAULT=translate-panic (fault injection for
// tests: a panic inside the load hook, which must be recovered).
//
// Translators plug in by registering themselves: dbt.go registers the DBT
// (registration only; no work in init), which ROCJITSU_TRANSLATOR=auto uses.
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
	"syscall"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
	"github.com/rocjitsu/rocjitsu/shim/internal/dispatch"
	"github.com/rocjitsu/rocjitsu/shim/internal/logx"
	"github.com/rocjitsu/rocjitsu/shim/internal/policy"
)

func main() {}

var (
	engMu sync.Mutex
	eng   *policy.Engine
)

func current() *policy.Engine {
	engMu.Lock()
	defer engMu.Unlock()
	return eng
}

// guard recovers a panic in a callback, logs it, and runs onPanic (which
// sets the fail-open result).
func guard(e *policy.Engine, where string, onPanic func()) {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("panic in %s (recovered; continuing untranslated): %v\n%s", where, r, debug.Stack())
		if e != nil && e.Log != nil {
			e.Log.Errorf("%s", msg)
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
	msg := C.GoString(why)
	lg := logx.FromEnv(os.Getenv)
	lg.Errorf("not loading: %s", msg)
	if lg.Fd() != 2 {
		fmt.Fprintf(os.Stderr, "rocjitsu: not loading: %s\n", msg)
	}
}

//export rjGoStart
func rjGoStart(runtimeVersion C.uint64_t, rootMajor C.uint32_t, amdSize C.uint32_t, n C.int, isas **C.char) (rc C.int) {
	var e *policy.Engine
	defer guard(e, "OnLoad", func() { rc = -1 })
	hosts := make([]string, int(n))
	for i, p := range unsafe.Slice(isas, int(n)) {
		hosts[i] = C.GoString(p)
	}
	d := driver()
	e, err := policy.Start(os.Getenv, hosts, d != nil && d.Serving())
	// C gets its own descriptor: the Go logger's file may be closed once
	// this engine is dropped at OnUnload, and handlers of live queues may
	// still log after that.
	if fd, err := syscall.Dup(e.Log.Fd()); err == nil {
		C.rj_set_log(C.int(e.Log.Level()), C.int(fd))
	} else {
		C.rj_set_log(C.int(e.Log.Level()), 2)
	}
	layout := "before ROCm 5.6"
	if amdSize >= 456 {
		layout = "ROCm 5.6 and later"
	}
	e.Log.Infof("OnLoad: runtime %d, table major %d, AmdExtTable %d bytes (%s layout), GPUs %s", uint64(runtimeVersion), rootMajor, amdSize, layout, strings.Join(hosts, ", "))
	if err != nil {
		e.Log.Errorf("%v", err)
		if e.Log.Fd() != 2 { // the refusal is always on standard error too
			fmt.Fprintf(os.Stderr, "rocjitsu: %v\n", err)
		}
		return -1
	}
	if e.Config != nil && len(hosts) > 0 {
		g := e.Config.Guest
		name, isa, product := C.CString(g.Name), C.CString(e.Config.ISAName()), C.CString(g.MarketingName)
		C.rj_set_guest(name, isa, product, C.uint32_t(g.LDSSize), C.uint32_t(g.WavefrontSize), C.uint32_t(g.WavesPerSIMD))
		C.free(unsafe.Pointer(name))
		C.free(unsafe.Pointer(isa))
		C.free(unsafe.Pointer(product))
	}
	if e.Dispatch {
		C.rj_set_dispatch(1)
	} else {
		C.rj_set_dispatch(0)
		e.Log.Infof("dispatch rewriting off (ROCJITSU_DISPATCH=off)")
	}
	engMu.Lock()
	eng = e
	engMu.Unlock()
	return 0
}

//export rjGoTranslate
func rjGoTranslate(exec, agent C.uint64_t, data unsafe.Pointer, size C.size_t, isa *C.char, out *unsafe.Pointer, outSize *C.size_t, id *C.uint64_t) (ok C.int) {
	e := current()
	if e == nil {
		return 0
	}
	defer guard(e, "code-object load", func() { ok = 0 })
	if size > 1<<30 {
		e.Log.Warnf("code object of %d bytes is too large to translate; loading it unchanged", uint64(size))
		return 0
	}
	res, lid, done := e.Translate(uint64(exec), uint64(agent), C.GoBytes(data, C.int(size)), C.GoString(isa))
	if !done {
		return 0
	}
	buf := C.malloc(C.size_t(len(res)))
	if buf == nil {
		e.Log.Errorf("out of memory for a %d-byte translated code object", len(res))
		e.LoadResult(lid, false)
		return 0
	}
	copy(unsafe.Slice((*byte)(buf), len(res)), res)
	*out = buf
	*outSize = C.size_t(len(res))
	*id = C.uint64_t(lid)
	return 1
}

//export rjGoCheckBounds
func rjGoCheckBounds(data unsafe.Pointer, size C.size_t) (ok C.int) {
	defer guard(current(), "code-object check", func() { ok = 1 })
	if size > 1<<30 {
		return 1 // not ours to judge; the translator declines such sizes too
	}
	if err := codeobj.CheckBounds(unsafe.Slice((*byte)(data), int(size))); err != nil {
		msg := fmt.Sprintf("refusing a code object of %d bytes: %v (the runtime's loader would read past its end); the load fails with HSA_STATUS_ERROR_INVALID_CODE_OBJECT", uint64(size), err)
		if e := current(); e != nil {
			e.Log.Errorf("%s", msg)
		} else {
			fmt.Fprintf(os.Stderr, "rocjitsu: %s\n", msg)
		}
		return 0
	}
	return 1
}

//export rjGoLoadResult
func rjGoLoadResult(id C.uint64_t, ok C.int) {
	e := current()
	if e == nil {
		return
	}
	defer guard(e, "code-object load", nil)
	e.LoadResult(uint64(id), ok != 0)
}

//export rjGoFreeze
func rjGoFreeze(exec C.uint64_t) {
	e := current()
	if e == nil {
		return
	}
	defer guard(e, "executable freeze", nil)
	rws := e.Freeze(uint64(exec), func(agent uint64, name string) (uint64, error) {
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		var kobj C.uint64_t
		if rc := C.rj_kernel_object(exec, C.uint64_t(agent), cname, &kobj); rc != 0 {
			return 0, fmt.Errorf("symbol lookup failed (%d)", int(rc))
		}
		return uint64(kobj), nil
	})
	for _, rw := range rws {
		put(uint64(exec), rw.KernelObject, rw.Entry)
	}
}

func put(exec, kobj uint64, en dispatch.Entry) {
	var payload unsafe.Pointer
	if len(en.Payload) > 0 {
		payload = C.CBytes(en.Payload)
		defer C.free(payload)
	}
	group0 := C.int(0)
	if en.GroupZero {
		group0 = 1
	}
	var vp *C.rj_vlds
	if v := en.VLDS; v != nil && v.KernelObject != 0 {
		vp = (*C.rj_vlds)(C.calloc(1, C.size_t(unsafe.Sizeof(C.rj_vlds{}))))
		defer C.free(unsafe.Pointer(vp))
		*vp = C.rj_vlds{kobj: C.uint64_t(v.KernelObject), static_lds: C.uint32_t(v.StaticLDS), host_lds: C.uint32_t(v.HostLDS),
			private_size: C.uint32_t(v.Private), prefix: C.uint32_t(v.Prefix), ptr_offset: C.uint32_t(v.PtrOffset),
			state_offset: C.uint32_t(v.StateOffset), wrapper_size: C.uint32_t(v.WrapperSize), flags: C.uint32_t(v.Flags)}
	}
	C.rj_map_put(C.uint64_t(exec), C.uint64_t(kobj), C.uint64_t(en.NewKernelObject), C.uint32_t(en.GroupAdd), group0,
		C.uint32_t(en.PrivateMin), C.uint32_t(en.KernargSize), C.uint32_t(en.CopySize), C.uint32_t(en.PtrOffset),
		payload, C.uint32_t(len(en.Payload)), vp)
}

//export rjGoDestroy
func rjGoDestroy(exec C.uint64_t) {
	e := current()
	if e == nil {
		return
	}
	defer guard(e, "executable destroy", nil)
	e.Destroy(uint64(exec))
}

//export rjGoUnload
func rjGoUnload() {
	e := current()
	if e == nil {
		return
	}
	defer guard(e, "OnUnload", nil)
	var c C.rj_counters
	C.rj_get_counters(&c)
	e.Log.Infof("OnUnload: %d dispatches rewritten, %d passed through, %d kernarg-pool waits, %d fall-backs, %d virtual-LDS sidecar dispatches",
		uint64(c.rewritten), uint64(c.passed), uint64(c.pool_waits), uint64(c.fallbacks), uint64(c.vlds))
	engMu.Lock()
	eng = nil
	engMu.Unlock()
}
