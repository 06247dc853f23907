#!/usr/bin/env bash
# The main job on this machine: take gfx950 (MI355) guest code objects,
# translate them for gfx942 (MI300) and run guest and translation on the
# simulator (the default backend when no GPU is present), checking that both
# compute the same bytes. Then translate a real gfx950 kernel library and
# print its fidelity report.
set -euo pipefail
cd "$(dirname "$0")/.."
rj=bin/rocjitsu
out=${DEMO_OUT:-$(mktemp -d)}
mkdir -p "$out"
shared=${ROCJITSU_SHARED:-../shared}
k=testdata/kernels

# first/last N: like head/tail, but read all input (no SIGPIPE under pipefail).
first() { awk -v n="$1" 'NR <= n'; }
last() { tail -n "$1"; }
step() { printf '\n== %s\n' "$*"; }

# Deterministic inputs: bytes of a committed object stand in for random data.
seed=$k/gfx942/matmul_tiled.co
dd if="$seed" of="$out/a.bin" bs=1024 count=1 status=none
dd if="$seed" of="$out/b.bin" bs=1024 skip=1 count=1 status=none
dd if="$seed" of="$out/c.bin" bs=1024 skip=2 count=1 status=none

guest=$k/gfx950/gfx950_bitop3.co
step "rocjitsu inspect $guest"
"$rj" inspect "$guest" | first 25

step "rocjitsu translate --to gfx942 $guest (v_bitop3_b32 has no gfx942 encoding)"
"$rj" translate --to gfx942 "$guest" -o "$out/bitop3.gfx942.co" --report "$out/bitop3.report.json" --diff | first 40

args=(--grid 256 --block 64 --arg "buf:@$out/a.bin" --arg "buf:@$out/b.bin" --arg "buf:@$out/c.bin" --arg buf:4096 --arg u32:256)
step "rocjitsu run (guest as gfx950, simulator)"
"$rj" run "$guest" gfx950_bitop3 "${args[@]}" --dump "3=$out/guest.out"
step "rocjitsu run (translation as gfx942, simulator)"
"$rj" run "$out/bitop3.gfx942.co" gfx950_bitop3 "${args[@]}" --dump "3=$out/host.out"
if cmp -s "$out/guest.out" "$out/host.out"; then
	echo "guest (gfx950) and translation (gfx942) wrote identical bytes ($(wc -c <"$out/host.out") bytes)"
else
	echo "MISMATCH between guest and translation" >&2
	exit 1
fi

step "every gfx950 guest of testdata/kernels: translate to gfx942, run on the simulated gfx942, compare with the CPU reference"
ok=0 bad=0 rej=0 vlds=0
"$rj" corpus list | awk '{print $1}' >"$out/cases.txt"
for g in $k/gfx950/*.co; do
	name=$(basename "$g" .co)
	grep -qx "$name" "$out/cases.txt" || continue
	if "$rj" translate --to gfx942 "$g" -o "$out/$name.gfx942.co" >"$out/$name.translate.txt" 2>&1; then
		if "$rj" corpus check --target gfx942 --object "$out/$name.gfx942.co" "$name" >"$out/$name.check.txt" 2>&1; then
			ok=$((ok + 1))
			printf '  %-34s translated, matches the reference (%s)\n' "$name" "$(sed -n 's/.*-> gfx942: \([a-z]*\).*/\1/p' "$out/$name.translate.txt" | head -n 1)"
		elif grep -q 'exceeds the 65536 bytes of LDS' "$out/$name.check.txt"; then
			vlds=$((vlds + 1))
			printf '  %-34s translated, needs a virtual-LDS sidecar: %s\n' "$name" "$(grep -m1 -o 'group segment.*' "$out/$name.check.txt")"
		else
			bad=$((bad + 1))
			printf '  %-34s translated, MISMATCH: %s\n' "$name" "$(tail -n 1 "$out/$name.check.txt")"
		fi
	else
		rej=$((rej + 1))
		printf '  %-34s rejected (fail closed): %s\n' "$name" "$(grep -m1 'rejected at' "$out/$name.translate.txt" | sed 's/^ *//')"
	fi
done
echo "$ok match the reference, $bad mismatch, $rej rejected, $vlds need more LDS than gfx942 has"
[ "$bad" -eq 0 ] || exit 1

real=$shared/corpus/aiter/gfx950
if [ -d "$real" ]; then
	f=$real/fmha_v3_fwd_fwd_hd128_bf16.co
	"$rj" disasm --stats "$f" | first 16
	step "rocjitsu translate --to gfx942 $f"
	"$rj" translate --to gfx942 "$f" -o "$out/fmha.gfx942.co" --report "$out/fmha.report.json" | last 14 || true
	step "the real gfx950 kernels of $real, translated for gfx942"
	n=0 t=0
	mkdir -p "$out/aiter"
	for f in "$real"/*.co; do
		n=$((n + 1))
		b=$(basename "$f" .co)
		if "$rj" translate --to gfx942 "$f" -o "$out/aiter/$b.gfx942.co" >"$out/aiter/$b.translate.txt" 2>&1; then
			t=$((t + 1))
		fi
		sed -n 's/^[^:]*: gfx950 -> gfx942: \([a-z]*\).*/\1/p' "$out/aiter/$b.translate.txt" | first 1 | xargs printf '  %-60s %s\n' "$b"
	done
	echo "$t of $n translated (the tests check every output with llvm-readelf-19 and llvm-objdump-19 --mcpu=gfx942)"
	if [ "$t" -lt "$n" ]; then
		echo "rejected objects by first reason:"
		for f in "$out"/aiter/*.translate.txt; do grep -m1 -o 'rejected at 0x[0-9a-f]* [a-z0-9_]*' "$f" || true; done | awk '{print $4}' | sort | uniq -c | sort -rn
	fi
fi
step "RDNA4 host: every gfx950 test kernel translated for gfx1201 and run there (simulated), against the guest on the simulated gfx950"
echo "\$ rocjitsu verify --host gfx1201 $k/gfx950/*.co"
"$rj" verify --host gfx1201 "$k"/gfx950/*.co >"$out/verify.gfx1201.txt" 2>&1 || true
grep -E ': (different|fault-differs)' "$out/verify.gfx1201.txt" || true
last 1 <"$out/verify.gfx1201.txt"
if grep -qE ': (different|fault-differs)' "$out/verify.gfx1201.txt" || ! grep -q ' kernels: ' "$out/verify.gfx1201.txt"; then
	echo "MISMATCH between a gfx950 guest and its gfx1201 translation" >&2
	exit 1
fi
if [ -d "$real" ]; then
	echo "\$ rocjitsu verify --host gfx1201 --fill int --workgroups 1 $real/*.co"
	"$rj" verify --host gfx1201 --fill int --workgroups 1 "$real"/*.co >"$out/verify.aiter.gfx1201.txt" 2>&1 || true
	grep -E ': (identical|within-bound|different|fault)' "$out/verify.aiter.gfx1201.txt" | sed 's/^/  /' || true
	last 1 <"$out/verify.aiter.gfx1201.txt"
	echo "not run, by the translator's reason:"
	grep -o 'not-run: translation rejected: .*' "$out/verify.aiter.gfx1201.txt" |
		sed -E 's/^not-run: translation rejected: 0x[0-9a-f]+ //; s/^: the guest needs [0-9]+ VGPRs.*/more than the 256 VGPRs of a gfx12 wave64 (no spilling yet)/' |
		sort | uniq -c | sort -rn || true
	if grep -qE ': (different|fault-differs)' "$out/verify.aiter.gfx1201.txt"; then
		echo "MISMATCH between an aiter guest and its gfx1201 translation" >&2
		exit 1
	fi
fi
step "SQTT markers without recompiling: instrument a test kernel, capture it on the simulator, read the trace"
sq=$k/gfx942/divergence.co
dd if="$seed" of="$out/div.in.bin" bs=1024 count=2 status=none
echo "\$ rocjitsu sqtt instrument $sq -o $out/div.sqtt.co --barriers --memory 4:8 --loops"
"$rj" sqtt instrument "$sq" -o "$out/div.sqtt.co" --barriers --memory 4:8 --loops
"$rj" sqtt funcmap "$out/div.sqtt.co"
echo "\$ rocjitsu run $out/div.sqtt.co divergence --grid 512 --block 64 ... --att $out/att"
"$rj" run "$out/div.sqtt.co" divergence --grid 512 --block 64 --arg "buf:@$out/div.in.bin" --arg buf:2048 --arg u32:512 --att "$out/att"
echo "\$ rocjitsu sqtt flamegraph -format folded -o - $out/att   (stack, modelled cycles; nested loops show as loop;loop)"
"$rj" sqtt flamegraph -format folded -o - "$out/att" 2>/dev/null
echo "\$ rocjitsu sqtt decode $out/att   (summary: events by kind and name)"
"$rj" sqtt decode "$out/att" 2>/dev/null | awk '!/^#/ {n[$3 " " $4]++} END {for (k in n) printf "  %5d %s\n", n[k], k}' | sort -k2
"$rj" sqtt flamegraph -o "$out/att.svg" "$out/att" 2>/dev/null && echo "flamegraph SVG: $out/att.svg"

step "an unmodified ROCm application on the simulated GPU (Debian 13's ROCR 6.1, HIP 5.7, hipcc, rocminfo; no GPU)"
root=scripts/rocm-root.sh
inroot() { "$root" run --bind "$PWD/bin:/opt/rocjitsu" --bind "$PWD/c/rocm:/src" --bind "$out:/out" -- "$@"; }
echo "rocminfo through rocjitsu exec --gpu gfx942:"
inroot /opt/rocjitsu/rocjitsu exec --gpu gfx942 -- rocminfo | grep -E '^  (Name|Marketing Name|Compute Unit|Wavefront Size):' | sed 's/^/  /'
echo "hip_kernels (c/rocm/hip_kernels.hip, built by hipcc --offload-arch=gfx942; shared memory, atomics, shuffles, ballots, 2-D/3-D grids):"
inroot sh -c 'hipcc --offload-arch=gfx942 -O2 -w -o /out/hip_kernels /src/hip_kernels.hip && /opt/rocjitsu/rocjitsu exec --gpu gfx942 -- /out/hip_kernels' >"$out/hip_kernels.txt" 2>&1 || {
	cat "$out/hip_kernels.txt" >&2
	echo "hip_kernels FAILED on the simulated gfx942" >&2
	exit 1
}
grep -c '^ok ' "$out/hip_kernels.txt" | xargs printf '  %s checks ok: '
last 1 <"$out/hip_kernels.txt"

step "a gfx950 guest on the simulated gfx942: every gfx950 test kernel loaded by the real ROCR through the shim's translation, checked against its CPU reference"
echo "(HIP 5.7 has no gfx950 in its ISA table, so the guest runs through HSA: c/rocm/hsa_run)"
if go test -count=1 -v -run 'TestHSAGuestGFX950$' ./shim/e2erocm >"$out/guest.txt" 2>&1; then
	notrun=$(grep -c 'not run: ' "$out/guest.txt" || true)
	echo "  $(($(grep -c -- '^    --- PASS' "$out/guest.txt") - notrun)) kernels ran as gfx950 guests and matched; $notrun not run:"
	grep -o 'not run: [^(]*' "$out/guest.txt" | sed 's/^not run: /    /'
else
	grep -E -- '--- FAIL|FAIL ' "$out/guest.txt" | first 20 >&2
	echo "the gfx950 guest on the simulated gfx942 FAILED" >&2
	exit 1
fi

echo
echo "demo outputs in $out"
