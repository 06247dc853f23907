package wave

// The opcode tables are generated from LLVM's own disassembler so that the
// interpreter names instructions exactly as llvm-objdump-19 does.
//go:generate go run ./internal/genops -o opcodes_gen.go -gfx950 ../../../../shared/isa-oracle/gfx950-only-instructions.tsv
