package verify

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/loader"
)

// Compare runs every kernel of the code object plain and the same kernel
// of other (an object for the same target with the same kernels, such as
// an instrumented copy of plain) on simulated agents of plain's own
// target, with identical synthesized inputs, and compares how the runs
// ended and every page either touched, as Object does for a translation.
// In the results "guest" is plain and "host" is other; opt.Host is
// ignored (Result.Host is the target). Without a PC map between the two,
// faults count as alike when both runs faulted on the same instruction
// (mnemonic) for the same cause. It returns an error when either object
// cannot be read or their targets differ.
func Compare(name string, plain, other []byte, opt Options) ([]Result, error) {
	pf, err := loader.Parse(plain)
	if err != nil {
		return nil, fmt.Errorf("verify: %s: %w", name, err)
	}
	of, err := loader.Parse(other)
	if err != nil {
		return nil, fmt.Errorf("verify: %s: other object: %w", name, err)
	}
	t, err := isa.TargetFromMach(uint32(pf.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("verify: %s: e_flags machine: %w", name, err)
	}
	ot, err := isa.TargetFromMach(uint32(of.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("verify: %s: other object: e_flags machine: %w", name, err)
	}
	if ot != t {
		return nil, fmt.Errorf("verify: %s: targets differ: %s and %s", name, t, ot)
	}
	opt.Host = t.String()
	opt.defaults()
	md := kernelMetadata(pf)
	names, err := kernelNames(name, pf, opt.Kernel)
	if err != nil {
		return nil, err
	}
	tr := &dbt.SidecarResult{Result: &dbt.Result{Object: other}}
	code := codeNames{guest: pf, guestISA: t, host: of, hostISA: t, paired: true}
	var out []Result
	for _, k := range names {
		r := Result{Object: name, Name: k, Host: opt.Host, Seed: opt.Seed, Fill: opt.Fill.String()}
		if _, ok := of.Kernel(k); !ok {
			r.Outcome, r.Reason = NotRun, "other object has no kernel "+k
		} else {
			kernelRun(&r, plain, tr, md[k], report.Kernel{Name: k, Fidelity: report.Exact}, code, t, opt)
		}
		out = append(out, r)
	}
	return out, nil
}
