package dbt

import (
	"fmt"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/loader"
)

// Count is one row of an instruction histogram.
type Count struct {
	Mnemonic string
	Count    int
	// Action is what the translator does with it for the host.
	Action report.Action
	// Rule is the rule name for Expand.
	Rule string
}

// GuestOnly counts, over the code reachable from every kernel of a code
// object, the instructions that the host cannot run as they are (any
// legalization decision other than identity, or for a re-encoding host
// other than a generated one-to-one lowering), by mnemonic. It is the
// measure that orders the hand-written rules.
func GuestOnly(obj []byte, host isa.Target) (map[string]Count, error) {
	f, err := loader.Parse(obj)
	if err != nil {
		return nil, fmt.Errorf("dbt: %w", err)
	}
	gt, err := isa.TargetFromMach(uint32(f.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("dbt: %w", err)
	}
	ts := f.Section(".text")
	if ts == nil {
		return nil, fmt.Errorf("dbt: no .text section")
	}
	var roots []cfg.Root
	for i, k := range f.Kernels() {
		roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr})
	}
	g, err := cfg.Build(cfg.Text{Addr: ts.Addr, Data: ts.Data}, roots, func(code []byte, pc uint64) (isa.Inst, error) {
		return gfx9.Decode(code, pc, gt)
	}, cfg.Options{})
	if err != nil {
		return nil, fmt.Errorf("dbt: %w", err)
	}
	pr, err := pairFor(gt, host)
	if err != nil {
		return nil, err
	}
	out := map[string]Count{}
	var site pair.Site
	if ks := f.Kernels(); len(ks) > 0 {
		site.Kernel = &ks[0]
	}
	for _, in := range g.Instructions() {
		if in.Info.Branch != isa.BranchNone || in.Name() == "s_getpc_b64" {
			continue
		}
		off := in.PC - ts.Addr
		// The histogram has no kernel scope: AGPRs are counted as mapped
		// from v0 (any fitting base decides the same way).
		d := pr.Decide(in, ts.Data[off:off+uint64(in.Size)], gt, site)
		if d.Action == report.Identity || d.Action == report.Lower && d.Rule != nil && d.Rule.Name == "" {
			continue
		}
		key := in.Name()
		if in.Mod.LDS {
			key += " lds"
		}
		c := out[key]
		c.Mnemonic, c.Action = key, d.Action
		if d.Rule != nil {
			c.Rule = d.Rule.Name
		}
		c.Count++
		out[key] = c
	}
	return out, nil
}

// SortCounts returns the rows by descending count, then mnemonic.
func SortCounts(m map[string]Count) []Count {
	out := make([]Count, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Mnemonic < out[j].Mnemonic
	})
	return out
}
