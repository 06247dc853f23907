package main

import (
	"github.com/rocjitsu/rocjitsu/shim/internal/dbtbridge"
	"github.com/rocjitsu/rocjitsu/shim/internal/translate"
)

// The DBT is the translator behind ROCJITSU_TRANSLATOR=auto (and =dbt).
// Registration only: it runs nothing until a code object is loaded.
func init() { translate.Register("dbt", dbtbridge.New) }
