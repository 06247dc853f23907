//go:build ignore

// gentables reads the ROCR API table offset dumps in
// ../shared/docs/research/layouts and writes tables.go (Go constants) and
// ../../c/include/rocjitsu_hsa_tables.h (the same offsets for C).
//
// Run with: go generate ./hsa/abi
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/rocjitsu/rocjitsu/hsa/abi"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func main() {
	dir, err := projectpath.Shared("docs", "research", "layouts")
	if err != nil {
		log.Fatal(err)
	}
	goSrc, cSrc, err := abi.GenerateTables(dir)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("tables.go", goSrc, 0o644); err != nil {
		log.Fatal(err)
	}
	root, err := projectpath.Root()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "c", "include", "rocjitsu_hsa_tables.h"), cSrc, 0o644); err != nil {
		log.Fatal(err)
	}
}
