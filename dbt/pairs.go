package dbt

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	gfx942gfx12 "github.com/rocjitsu/rocjitsu/dbt/pair/gfx942_gfx12"
	gfx950gfx12 "github.com/rocjitsu/rocjitsu/dbt/pair/gfx950_gfx12"
	gfx950gfx942 "github.com/rocjitsu/rocjitsu/dbt/pair/gfx950_gfx942"
)

// pairs are the translation pairs the translator knows (dbt/pair/...).
var pairs = []pair.Pair{
	gfx950gfx942.New(),
	gfx950gfx12.New(isa.GFX1201),
	gfx950gfx12.New(isa.GFX1200),
	gfx942gfx12.New(isa.GFX1201),
	gfx942gfx12.New(isa.GFX1200),
}

// pairFor returns the pair translating guest code for host.
func pairFor(guest, host isa.Target) (pair.Pair, error) {
	var hosts []string
	for _, p := range pairs {
		if p.Host() == host && p.Guests().Has(guest) {
			return p, nil
		}
		if p.Guests().Has(guest) {
			hosts = append(hosts, p.Host().String())
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("dbt: guest %s is not supported", guest)
	}
	return nil, fmt.Errorf("dbt: host %s is not supported for guest %s (hosts: %s)", host, guest, strings.Join(hosts, ", "))
}
