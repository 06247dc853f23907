#!/bin/sh
# Rebuilds the marker test kernels with clang-19 and ld.lld-19: compile to
# assembly, append the .sqtt_funcmap section, assemble and link.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() { # name mcpu defines funcmap
	clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$2" -nogpulib -O2 $3 -S markers.cl -o "$tmp/$1.s"
	printf '\t.section .sqtt_funcmap,"",@progbits\n\t.asciz "%s"\n' "$4" >> "$tmp/$1.s"
	clang-19 -target amdgcn-amd-amdhsa -mcpu="$2" -c "$tmp/$1.s" -o "$tmp/$1.o"
	ld.lld-19 -shared "$tmp/$1.o" -o "$1.co"
}
fm='K:nested\nK:barrier_sync\nF:1:outer\nF:2:inner\nP:3:tick\nP:4:before\nP:5:after\n'
build gfx942_markers gfx942 "-DWAVE=64" "$fm"
build gfx1201_markers gfx1201 "-DUSE_IMM -DWAVE=32" "$fm"
build gfx1201_markers_clock gfx1201 "-DCLOCK_PACKED -DWAVE=32" "${fm}M:shader_clock_bits=12;shader_clock_shift=4\n"
