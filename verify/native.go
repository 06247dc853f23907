package verify

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
)

// NativeBuild is the Approximate entry of a Native result: the native
// build is another compilation of the kernel, so its results may round
// differently from the guest's and count as alike within Bound.
const NativeBuild = "native build (another compilation of the kernel)"

// Native runs every kernel of the guest code object and the same-named
// kernel of native, a build of the same source for the host target (its
// target must be opt.Host), with the same synthesized inputs and
// argument profile: the guest on its own target as Object does, the
// native build on the host instead of a translation. It compares the runs
// as Object does ("host" in the results is the native build), so a
// native run's executed instructions are the baseline of the
// translation's when both end alike. A kernel whose native build is
// missing or lays out its kernel arguments (offsets, sizes, kinds,
// segment size) or workgroup differently is NotRun with the reason; the
// native build's results count as WithinBound of the guest's within
// Bound (NativeBuild). It returns an error when either object cannot be
// read or native is not for opt.Host.
func Native(name string, guest, native []byte, opt Options) ([]Result, error) {
	opt.defaults()
	gf, err := loader.Parse(guest)
	if err != nil {
		return nil, fmt.Errorf("verify: %s: %w", name, err)
	}
	nf, err := loader.Parse(native)
	if err != nil {
		return nil, fmt.Errorf("verify: %s: native object: %w", name, err)
	}
	gt, err := isa.TargetFromMach(uint32(gf.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("verify: %s: e_flags machine: %w", name, err)
	}
	nt, err := isa.TargetFromMach(uint32(nf.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("verify: %s: native object: e_flags machine: %w", name, err)
	}
	if nt.String() != opt.Host {
		return nil, fmt.Errorf("verify: %s: the native object is for %s, not the host %s", name, nt, opt.Host)
	}
	gmd, nmd := kernelMetadata(gf), kernelMetadata(nf)
	names, err := kernelNames(name, gf, opt.Kernel)
	if err != nil {
		return nil, err
	}
	tr := &dbt.SidecarResult{Result: &dbt.Result{Object: native}}
	code := codeNames{guest: gf, guestISA: gt, host: nf, hostISA: nt, paired: true}
	var out []Result
	for _, k := range names {
		r := Result{Object: name, Name: k, Host: opt.Host, Seed: opt.Seed, Fill: opt.Fill.String()}
		if _, ok := nf.Kernel(k); !ok {
			r.Outcome, r.Reason = NotRun, "the native object has no kernel "+k
		} else if why := layoutDiffers(gmd[k], nmd[k], opt.MaxBlock); why != "" {
			r.Outcome, r.Reason = NotRun, "the native build differs: "+why
		} else {
			r.Approximate = []string{NativeBuild}
			kernelRun(&r, guest, tr, gmd[k], report.Kernel{Name: k, Fidelity: report.Exact}, code, gt, opt)
		}
		out = append(out, r)
	}
	return out, nil
}

// layoutDiffers says how the native kernel n takes its arguments or its
// workgroup differently from the guest kernel g ("" when alike).
func layoutDiffers(g, n metadata.Kernel, maxBlock int) string {
	if g.KernargSegmentSize != n.KernargSegmentSize {
		return fmt.Sprintf("kernarg segment of %d bytes, the guest's %d", n.KernargSegmentSize, g.KernargSegmentSize)
	}
	if len(g.Args) != len(n.Args) {
		return fmt.Sprintf("%d kernel arguments, the guest has %d", len(n.Args), len(g.Args))
	}
	for i, a := range g.Args {
		b := n.Args[i]
		if a.Offset != b.Offset || a.Size != b.Size || a.ValueKind != b.ValueKind {
			return fmt.Sprintf("argument %d is %s of %d bytes at %d, the guest's %s of %d bytes at %d", i, b.ValueKind, b.Size, b.Offset, a.ValueKind, a.Size, a.Offset)
		}
	}
	if gb, nb := blockOf(g, maxBlock), blockOf(n, maxBlock); gb != nb {
		return fmt.Sprintf("workgroup %v, the guest's %v", nb, gb)
	}
	return ""
}
