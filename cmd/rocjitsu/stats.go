package main

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/simcost"
)

// addDynamicCost runs every kernel of rep that has a reference case (the
// project's test kernels, with their inputs) on the simulator twice, the
// guest object on the guest target and the translation on the host, and
// records the executed instructions by class and their issue-cycle
// model weight in the kernel's Dynamic field. A kernel whose runs fail or whose translated results differ from
// the reference gets a note instead.
func addDynamicCost(rep *report.Object, guest, host []byte) {
	for i := range rep.Kernels {
		k := &rep.Kernels[i]
		c, ok := kernelref.Lookup(k.Name)
		if !ok || c.DynamicLDS() != 0 {
			continue
		}
		gc, _, err := simcost.Measure(&c, guest, rep.Guest)
		if err != nil {
			k.Notes = append(k.Notes, fmt.Sprintf("stats: guest run: %v", err))
			continue
		}
		hc, out, err := simcost.Measure(&c, host, rep.Host)
		if err != nil {
			k.Notes = append(k.Notes, fmt.Sprintf("stats: host run: %v", err))
			continue
		}
		if err := c.Check(out); err != nil {
			k.Notes = append(k.Notes, fmt.Sprintf("stats: the translation's results differ from the reference: %v", err))
			continue
		}
		k.Dynamic = &report.Cost{Guest: dbt.ClassCounts(gc.Counts), Host: dbt.ClassCounts(hc.Counts),
			GuestPasses: gc.Passes, HostPasses: hc.Passes}
	}
}
