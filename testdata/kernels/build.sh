#!/usr/bin/env bash
# build.sh [OUTDIR]: rebuild the test-kernel corpus byte-identically.
#
# Every src/NAME.cl holds one kernel NAME. It is compiled for each target
# it lists in a "// targets: ..." line (default: gfx942 gfx1200 gfx1201)
# with clang-19 (OpenCL C 2.0, -O2, -ffp-contract=off, no device libs) and
# linked with ld.lld-19 -shared into OUTDIR/TARGET/NAME.co. The gfx942
# objects are then retargeted to gfx950 (OUTDIR/gfx950/NAME.co) by
# internal/kernelcorpus/cmd/retarget. A source whose targets line names
# gfx950 is a gfx950-only guest (raw gfx950 instruction words, see
# src/gfx950.h) or one whose meaning differs on gfx950: it is compiled for
# gfx942 into a staging folder and only its retargeted copy is kept. A
# "// retarget: none" line keeps a gfx942 object out of gfx950 (the same
# code means something else there). OUTDIR defaults to this folder.
#
# Determinism: sources are compiled from inside src/ by relative name, no
# debug info is emitted and the linker adds no build id, so no path or time
# reaches the objects.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)

CLANG=${CLANG:-clang-19}
LLD=${LLD:-ld.lld-19}
GO=${GO:-go}
JOBS=${JOBS:-2}
default_targets="gfx942 gfx1200 gfx1201"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in gfx942 gfx1200 gfx1201 gfx950; do
  mkdir -p "$out/$t"
  rm -f "$out/$t"/*.co
done

mkdir -p "$tmp/stage950"
cd "$here/src"
jobs_file="$tmp/jobs"
: >"$jobs_file"
no_retarget=" "
for src in *.cl; do
  name=${src%.cl}
  if grep -q '^// retarget: none' "$src"; then
    no_retarget="$no_retarget$name "
  fi
  targets=$(sed -n 's|^// targets: *||p' "$src" | head -n1)
  [ -n "$targets" ] || targets=$default_targets
  for t in $targets; do
    printf '%s %s\n' "$name" "$t" >>"$jobs_file"
  done
done

build_one() {
  name=$1 t=$2
  mcpu=$t dest=$out/$t
  if [ "$t" = gfx950 ]; then
    mcpu=gfx942 dest=$tmp/stage950
  fi
  "$CLANG" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$mcpu" -nogpulib \
    -O2 -ffp-contract=off -I. -c "$name.cl" -o "$tmp/$name.$t.o"
  "$LLD" -shared --build-id=none "$tmp/$name.$t.o" -o "$dest/$name.co"
}
export -f build_one
export CLANG LLD tmp out
xargs -P "$JOBS" -n 2 bash -c 'build_one "$0" "$1"' <"$jobs_file"

cd "$root"
shopt -s nullglob
gfx942=()
for f in "$out"/gfx942/*.co "$tmp"/stage950/*.co; do
  case "$no_retarget" in *" $(basename "$f" .co) "*) continue ;; esac
  gfx942+=("$f")
done
if [ ${#gfx942[@]} -gt 0 ]; then
  "$GO" run ./internal/kernelcorpus/cmd/retarget -o "$out/gfx950" "${gfx942[@]}"
fi
echo "build.sh: $(wc -l <"$jobs_file") objects + ${#gfx942[@]} gfx950 copies in $out"
