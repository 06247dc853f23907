#!/usr/bin/env bash
# Runs every go test -fuzz target in the module for FUZZTIME (default 10s)
# each. Targets are found by their 'func FuzzXxx(f *testing.F)' lines.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
status=0
while IFS=: read -r file _ rest; do
	name=$(echo "$rest" | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/')
	pkg=./$(dirname "$file")
	echo "fuzz: $pkg $name ($fuzztime)"
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"; then
		status=1
	fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . | grep -v '^./bin/' | sort)
exit $status
