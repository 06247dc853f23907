// Package legalize decides, for one guest instruction and a host target,
// which legalization action the translator takes: identity (the host has
// the same operation with the same encoding and the same numerics),
// substitute (a registered rename), expand (a hand-written rule in
// dbt/rules) or reject (fail closed, with the reason).
//
// The decision is derived from the ISA tables (dbt/isa's generated OpInfo:
// which targets have an operation and whether its numerics differ between
// them) and from a re-decode of the instruction's bytes for the host, so
// that an encoding the host reads differently is never passed through. It
// never assumes semantics from structure: a mnemonic is only identical to
// itself, and a different mnemonic only through the Renames table.
//go:generate go run ./internal/gen -o table_gfx950_gfx942.go

package legalize

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// DecodeFunc decodes one instruction for the host target.
type DecodeFunc func(code []byte, pc uint64) (isa.Inst, error)

// DecodeIntoFunc decodes one instruction for the host target into dst,
// reusing dst's operand storage.
type DecodeIntoFunc func(dst *isa.Inst, code []byte, pc uint64) error

// Decision is the action for one instruction.
type Decision struct {
	Action   report.Action
	Rule     *rules.Rule
	Fidelity report.Fidelity
	Bound    string
	// Reason explains a rejection.
	Reason string
}

// Renames registers reviewed guest -> host renames (Substitute). The
// gfx950 -> gfx942 pair has none: every shared operation keeps its name.
var Renames = map[rules.Pair]map[string]string{}

// Decide returns the action for in (raw are its bytes).
func Decide(in *isa.Inst, raw []byte, guest, host isa.Target, hostDecode DecodeFunc) Decision {
	return decide(in, raw, guest, host, hostDecode, nil, nil, nil)
}

// DecideInto is Decide with the host re-decode written into scratch, which
// one goroutine reuses from call to call (nil: a new one each time).
// in must be the guest's decode of raw, and hostDecode host's decoder
// that, apart from the decoded PC and its errors, depends on the bytes
// only (as gfx9.DecodeInto does): bytes that once passed through (no rule,
// shared operation, same host decode) pass again without the checks and
// the re-decode.
func DecideInto(in *isa.Inst, raw []byte, guest, host isa.Target, hostDecode DecodeIntoFunc, scratch *isa.Inst) Decision {
	return DecideCached(in, raw, guest, host, hostDecode, scratch, nil)
}

// DecideCached is DecideInto with the caller's pass-through cache (nil:
// one taken for the call); a nil scratch with a cache uses the cache's.
func DecideCached(in *isa.Inst, raw []byte, guest, host isa.Target, hostDecode DecodeIntoFunc, scratch *isa.Inst, cache *Cache) Decision {
	if scratch == nil && cache != nil {
		scratch = &cache.scratch
	}
	if guest == host {
		return decide(in, raw, guest, host, nil, hostDecode, scratch, nil)
	}
	c := cache
	if c == nil {
		c = AcquireCache()
		defer c.Release()
	}
	return decide(in, raw, guest, host, nil, hostDecode, scratch, c.c)
}

// Cache remembers instruction bytes that passed through unchanged (most
// instructions a kernel passes through repeat an earlier encoding), and
// holds an instruction for the host re-decode. One goroutine uses it at a
// time, from AcquireCache to Release.
type Cache struct {
	c       *hostCache
	scratch isa.Inst
}

// AcquireCache takes a cache no goroutine is using, or makes one.
func AcquireCache() *Cache { return &Cache{c: getHostCache()} }

// Release gives the cache back; c must not be used after it.
func (c *Cache) Release() {
	if c.c != nil {
		putHostCache(c.c)
		c.c = nil
	}
}

// decide is Decide with either host decoder, and with the pass-through
// cache c when into is given (nil: none).
func decide(in *isa.Inst, raw []byte, guest, host isa.Target, hostDecode DecodeFunc, into DecodeIntoFunc, scratch *isa.Inst, c *hostCache) Decision {
	if into == nil || guest == host {
		c = nil
	}
	// Bytes remembered passed every check below, the rule lookup too
	// (rules.ForInst depends on the decoded bytes only): they pass again.
	if c != nil && in.Info != nil && c.identical(guest, host, in, raw) {
		return Decision{Action: report.Identity, Fidelity: report.Exact}
	}
	name := in.Name()
	if r := rules.ForInst(guest, host, in); r != nil {
		return Decision{Action: report.Expand, Rule: r, Fidelity: r.Fidelity, Bound: r.Bound}
	}
	info := in.Info
	if info == nil {
		return reject("instruction has no operation description")
	}
	// Two independent sources must agree before bytes pass through: the
	// instruction model's OpInfo and the oracle-generated GFX950Only
	// table (plus the FP8/BF8 naming rule for shared opcodes whose
	// numerics changed).
	key := name
	if in.Mod.LDS {
		key += " lds"
	}
	if guest == isa.GFX950 && host != isa.GFX950 {
		if _, only := GFX950Only[key]; only {
			if why := rules.Unsupported(guest, host, key); why != "" {
				return reject(fmt.Sprintf("%s is gfx950-only and has no rule: %s", key, why))
			}
			return reject(fmt.Sprintf("%s is gfx950-only (ISA oracle table) and has no rule", key))
		}
		if fp8Named(name) {
			return reject(fmt.Sprintf("%s reads or writes FP8/BF8, which is OCP on gfx950 and FNUZ on %s; no conversion rule", name, host))
		}
	}
	if guest != host && info.Has(isa.FlagNumericsDiffer) {
		return reject(fmt.Sprintf("%s has the same encoding on %s and %s but different numerics (FP8/BF8: OCP on gfx950, FNUZ on gfx942) and no conversion rule", name, guest, host))
	}
	if guest != host && info.Mem == isa.MemBuffer && in.Mod.LDS && (name == "buffer_load_dwordx2" || name == "buffer_load_dwordx3" || name == "buffer_load_dwordx4") {
		return reject(name + " ... lds (load-to-LDS wider than a dword) is gfx950-only and has no rule for this width")
	}
	if !info.Targets.Has(host) {
		if to, ok := Renames[rules.Pair{Guest: guest, Host: host}][name]; ok {
			return Decision{Action: report.Substitute, Fidelity: report.Exact, Reason: "renamed to " + to}
		}
		return reject(fmt.Sprintf("%s is not a %s operation and has no rule", name, host))
	}
	if guest == host {
		return Decision{Action: report.Identity, Fidelity: report.Exact}
	}
	var h *isa.Inst
	var err error
	if into != nil {
		if scratch == nil {
			scratch = new(isa.Inst)
		}
		h, err = scratch, into(scratch, raw, in.PC)
	} else {
		var v isa.Inst
		v, err = hostDecode(raw, in.PC)
		h = &v
	}
	if err != nil {
		return reject(fmt.Sprintf("%s does not decode for %s: %v", name, host, err))
	}
	if h.Name() != name || h.Size != in.Size || !sameOperands(h.Operands, in.Operands) || h.Mod != in.Mod {
		return reject(fmt.Sprintf("%s decodes differently for %s (%s)", name, host, h.Name()))
	}
	if c != nil {
		c.remember(guest, host, in, raw)
	}
	return Decision{Action: report.Identity, Fidelity: report.Exact}
}

// fp8Named reports whether a mnemonic names an FP8/BF8 operand type (the
// ISA oracle's rule for opcodes whose numerics differ between targets).
func fp8Named(name string) bool {
	return strings.Contains(name, "fp8") || strings.Contains(name, "bf8") || strings.Contains(name, "f8f6f4")
}

func sameOperands(a, b []isa.Operand) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func reject(why string) Decision {
	return Decision{Action: report.Reject, Fidelity: report.Rejected, Reason: why}
}

// hostCaches holds the caches of the instruction bytes that passed
// through unchanged (most instructions a kernel passes through repeat an
// earlier encoding) that no goroutine is using. A free list rather than a
// sync.Pool: the pool drops its caches at every collection, and each
// decision after one started from an empty cache (and allocated it anew).
// There are at most as many caches as goroutines deciding at once.
var hostCaches struct {
	sync.Mutex
	free []*hostCache
}

// getHostCache takes a cache from hostCaches, or makes one.
func getHostCache() *hostCache {
	hostCaches.Lock()
	defer hostCaches.Unlock()
	if n := len(hostCaches.free); n > 0 {
		c := hostCaches.free[n-1]
		hostCaches.free = hostCaches.free[:n-1]
		return c
	}
	return new(hostCache)
}

// putHostCache returns c to hostCaches.
func putHostCache(c *hostCache) {
	hostCaches.Lock()
	defer hostCaches.Unlock()
	hostCaches.free = append(hostCaches.free, c)
}

// hostCacheSlots is the number of slots of a hostCache (a power of two):
// 4096 slots of 24 bytes, which stay in a core's cache. A pass over the 83
// gfx950 inputs re-decodes 24,146 instructions with it and a second pass
// 23,781; with 32768 slots 18,569 and 8,055, but each lookup then waits
// for memory, which cost more than the re-decodes it saved
// (BenchmarkTranslateThroughput's -cpuprofile).
const hostCacheSlots = 1 << hostCacheBits

// hostCacheBits is log2(hostCacheSlots).
const hostCacheBits = 12

// hostCache remembers, one entry per slot chosen by a hash of the bytes,
// instruction bytes that decode for a host as they did for the guest.
// It holds no pointers, so the collector does not scan it.
type hostCache struct {
	slots [hostCacheSlots]hostSlot
}

// hostSlot is one remembered pass-through: raw[:n], decoded for guest as
// the operation with encoding index enc and opcode op, passed every check
// and decodes identically for host (n == 0: empty).
type hostSlot struct {
	raw         [16]byte
	enc         uint16
	op          uint16
	guest, host isa.Target
	n           uint8
}

// slot returns raw's slot, or nil when raw is too long to remember.
func (c *hostCache) slot(raw []byte) *hostSlot {
	if len(raw) == 0 || len(raw) > len(hostSlot{}.raw) {
		return nil
	}
	// The bytes as two words (zero-padded), mixed by multiplication.
	var w [16]byte
	copy(w[:], raw)
	a, b := binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
	h := (a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f ^ uint64(len(raw))) * 0xff51afd7ed558ccd
	return &c.slots[h>>(64-hostCacheBits)] // the best-mixed bits
}

// identical reports whether in's bytes raw were remembered as passing
// through from guest to host.
func (c *hostCache) identical(guest, host isa.Target, in *isa.Inst, raw []byte) bool {
	s := c.slot(raw)
	return s != nil && int(s.n) == len(raw) && s.guest == guest && s.host == host && s.enc == in.Enc && s.op == in.Opcode && string(s.raw[:s.n]) == string(raw)
}

// remember records that in's bytes raw pass through from guest to host.
func (c *hostCache) remember(guest, host isa.Target, in *isa.Inst, raw []byte) {
	s := c.slot(raw)
	if s == nil {
		return
	}
	s.guest, s.host, s.enc, s.op, s.n = guest, host, in.Enc, in.Opcode, uint8(len(raw))
	copy(s.raw[:], raw)
}
