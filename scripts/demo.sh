#!/usr/bin/env bash
# The main job on this machine: inspect and disassemble a shipped gfx950
# object. It grows into translate + run-on-simulator as those land.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/rocjitsu
obj=${DEMO_OBJECT:-../shared/corpus/aiter/gfx950/fmha_v3_fwd_fwd_hd128_bf16.co}
if "$bin" help | grep -q '^  inspect '; then
	echo "== rocjitsu inspect $obj"
	"$bin" inspect "$obj"
fi
if "$bin" help | grep -q '^  disasm '; then
	echo "== rocjitsu disasm --stats $obj"
	"$bin" disasm --stats "$obj"
fi
