// Package dbtbridge adapts rocjitsu's binary translator (package dbt) to the
// shim's translate.Translator interface, so that ROCJITSU_TRANSLATOR=dbt (and
// auto) use it inside librocjitsu.so. The translator fails closed: a
// rejected object comes back as an error with the fidelity report, and the
// shim loads the original.
package dbtbridge

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	gguest "github.com/rocjitsu/rocjitsu/shim/internal/guest"
	"github.com/rocjitsu/rocjitsu/shim/internal/translate"
)

// Translator is the DBT as a translate.Translator.
type Translator struct{}

// New returns the DBT translator.
func New() translate.Translator { return Translator{} }

// Name implements translate.Translator.
func (Translator) Name() string { return "dbt" }

// Translate implements translate.Translator.
func (Translator) Translate(guest []byte, host string) (out []byte, report string, err error) {
	defer func() {
		// The translator is young: a panic inside it is a rejection, not a
		// crash of the application.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("dbt: internal error (panic): %v", r)
		}
	}()
	t, err := isa.ParseTarget(host)
	if err != nil {
		return nil, "", fmt.Errorf("dbt: host %q: %w", host, err)
	}
	// Kernels that use LDS get virtual-LDS sidecars, which the dispatch
	// path selects when a dispatch asks for more LDS than the host has.
	opt := dbt.Options{Host: t}
	if hi, ok := gguest.Lookup(host); ok {
		opt.HostLDS = hi.LDSSize
	}
	sres, terr := dbt.TranslateWithSidecars(guest, opt, dbt.SidecarOptions{AllLDS: true})
	var res *dbt.Result
	if sres != nil {
		res = sres.Result
	}
	var b strings.Builder
	if res != nil {
		res.Report.WriteText(&b)
	}
	report = strings.TrimSpace(b.String())
	if terr != nil {
		return nil, report, terr
	}
	if res == nil || res.Object == nil {
		return nil, report, fmt.Errorf("dbt: no object produced")
	}
	return res.Object, report, nil
}
