#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/apt-packages.txt that are
# missing, then prepares the Debian 13 ROCm root (scripts/rocm-root.sh
# ensure). Idempotent: prints nothing to install when all are present, runs
# apt-get update once when it must install; the root is reused while its
# package list is unchanged.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
missing=()
while read -r line; do
	pkg=${line%%#*}
	pkg=$(echo "$pkg" | tr -d '[:space:]')
	[ -n "$pkg" ] || continue
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done <"$here/apt-packages.txt"
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all Debian packages present"
else
	echo "deps: installing ${missing[*]}"
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq "${missing[@]}"
fi
bash "$here/rocm-root.sh" ensure
