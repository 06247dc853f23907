#!/usr/bin/env bash
# The Debian 13 (trixie) root holding the real ROCm userland (ROCR 6.1,
# libhsakmt, HIP 5.7, hipcc, rocminfo) that the tests run on the simulated
# GPU of librocjitsu.so.
#
#   scripts/rocm-root.sh ensure
#       Creates the root if it is missing or was made from another package
#       list: debootstrap --variant=minbase trixie into a temporary folder,
#       then the packages of scripts/rocm-root-packages.txt, then a stamp file,
#       then a rename into place. Prints one line and returns at once when the
#       root is ready. Needs root (uses sudo otherwise) and debootstrap.
#   scripts/rocm-root.sh path
#       Prints the root's location.
#   scripts/rocm-root.sh run [--bind HOSTDIR:ROOTDIR]... [--env K=V]... [--cwd DIR] -- CMD ARGS...
#       Runs CMD inside the root in a private mount namespace (/proc, /sys,
#       /dev and the binds mounted, a private tmpfs on /tmp), with a clean
#       environment: PATH, HOME, LANG, TERM, every ROCJITSU_*, HSA_*, HIP_*,
#       AMD_* and LD_PRELOAD variable of the caller, then the --env ones.
#       Exits with CMD's status (125 when the root is missing or the
#       namespace cannot be set up).
#
# The root lives at ${ROCJITSU_ROCM_ROOT:-/var/cache/rocjitsu/debian13-rocm}.
# The Debian mirror is the one the host's apt uses (its sources), or
# ROCJITSU_DEBIAN_MIRROR.
set -euo pipefail

# The caller's LD_PRELOAD is meant for CMD inside the root, not for the host
# tools this script runs.
caller_preload=${LD_PRELOAD-}
caller_preload_set=${LD_PRELOAD+set}
unset LD_PRELOAD

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
root=${ROCJITSU_ROCM_ROOT:-/var/cache/rocjitsu/debian13-rocm}
suite=trixie
stampname=.rocjitsu-root-stamp

die() {
	echo "rocm-root: $*" >&2
	exit 125
}

# packages prints the package list, one a line, comments removed.
packages() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/rocm-root-packages.txt" | sed -e '/^$/d'
}

# stamp prints what the root must have been made from.
stamp() {
	echo "suite $suite"
	echo "variant minbase"
	packages | sed -e 's/^/package /'
}

# mirror prints the Debian mirror of the host's apt sources: the first
# enabled "deb" source whose suites are not security suites.
mirror() {
	if [ -n "${ROCJITSU_DEBIAN_MIRROR-}" ]; then
		echo "$ROCJITSU_DEBIAN_MIRROR"
		return
	fi
	local f m
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		m=$(awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "" && suites != "" && suites !~ /security/ && found == "") {
					split(uris, u, " "); found = u[1]
				}
				types = ""; uris = ""; suites = ""; enabled = ""
			}
			/^[[:space:]]*#/ { next }
			/^[[:space:]]*$/ { flush(); next }
			{
				key = tolower($1); sub(/:$/, "", key)
				val = $0; sub(/^[^:]*:[[:space:]]*/, "", val)
				if (key == "types") types = val
				else if (key == "uris") uris = val
				else if (key == "suites") suites = val
				else if (key == "enabled") enabled = tolower(val)
			}
			END { flush(); if (found != "") print found }
		' "$f")
		if [ -n "$m" ]; then
			echo "$m"
			return
		fi
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		m=$(awk '
			$1 != "deb" { next }
			{
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				uri = $i; s = $(i + 1)
				if (uri != "" && s !~ /security/) { print uri; exit }
			}
		' "$f")
		if [ -n "$m" ]; then
			echo "$m"
			return
		fi
	done
	die "no Debian mirror found in the host's apt sources; set ROCJITSU_DEBIAN_MIRROR"
}

# in_build_root DIR CMD...: runs CMD chrooted in DIR with /proc, /sys and
# /dev mounted in a private mount namespace (used while building).
in_build_root() {
	local dir=$1
	shift
	unshare --mount --propagation private --kill-child -- bash -c '
		set -e
		d=$1; shift
		mount --rbind /proc "$d/proc"
		mount --rbind /sys "$d/sys"
		mount --rbind /dev "$d/dev"
		exec chroot "$d" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' _ "$dir" "$@"
}

ensure() {
	if [ -f "$root/$stampname" ] && [ "$(cat "$root/$stampname")" = "$(stamp)" ]; then
		echo "rocm-root: ready at $root"
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || die "creating $root needs root (and sudo is missing)"
		exec sudo ROCJITSU_ROCM_ROOT="$root" ${ROCJITSU_DEBIAN_MIRROR:+ROCJITSU_DEBIAN_MIRROR="$ROCJITSU_DEBIAN_MIRROR"} bash "$self" ensure
	fi
	command -v debootstrap >/dev/null || die "debootstrap is missing: run make deps (scripts/apt-packages.txt installs it)"
	mkdir -p "$(dirname "$root")"
	exec 9>"$root.lock"
	flock 9
	# Another ensure may have finished while this one waited.
	if [ -f "$root/$stampname" ] && [ "$(cat "$root/$stampname")" = "$(stamp)" ]; then
		echo "rocm-root: ready at $root"
		return 0
	fi
	rm -rf "$root".tmp.* "$root".old.*
	local tmp="$root.tmp.$$" m log start
	m=$(mirror)
	log="$(dirname "$root")/$(basename "$root").log"
	start=$(date +%s)
	if [ -e "$root" ]; then
		echo "rocm-root: $root was made from another package list (or by hand); rebuilding"
	fi
	echo "rocm-root: debootstrap --variant=minbase $suite (log: $log)"
	mkdir -p "$tmp"
	if ! debootstrap --variant=minbase "$suite" "$tmp" "$m" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		rm -rf "$tmp"
		die "debootstrap failed (log: $log)"
	fi
	mapfile -t pkgs < <(packages)
	echo "rocm-root: installing ${pkgs[*]}"
	if ! in_build_root "$tmp" sh -c 'apt-get update -qq && apt-get install -y -qq "$@" && apt-get clean' _ "${pkgs[@]}" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		rm -rf "$tmp"
		die "installing the packages failed (log: $log)"
	fi
	stamp >"$tmp/$stampname"
	if [ -e "$root" ]; then
		mv "$root" "$root.old.$$"
	fi
	mv "$tmp" "$root"
	rm -rf "$root.old.$$"
	echo "rocm-root: ready at $root ($(($(date +%s) - start)) s)"
}

run() {
	local binds=() envs=() cwd=/
	while [ $# -gt 0 ]; do
		case $1 in
		--bind)
			[ $# -ge 2 ] || die "--bind needs HOSTDIR:ROOTDIR"
			case $2 in *:/*) ;; *) die "--bind $2: want HOSTDIR:ROOTDIR with an absolute ROOTDIR" ;; esac
			binds+=("$2")
			shift 2
			;;
		--bind=*)
			binds+=("${1#--bind=}")
			shift
			;;
		--env)
			[ $# -ge 2 ] || die "--env needs K=V"
			case $2 in *=*) ;; *) die "--env $2: want K=V" ;; esac
			envs+=("$2")
			shift 2
			;;
		--cwd)
			[ $# -ge 2 ] || die "--cwd needs a directory"
			cwd=$2
			shift 2
			;;
		--)
			shift
			break
			;;
		*) die "run: unknown option $1 (usage: run [--bind HOSTDIR:ROOTDIR]... [--env K=V]... [--cwd DIR] -- CMD ARGS...)" ;;
		esac
	done
	[ $# -gt 0 ] || die "run: no command (usage: run [--bind HOSTDIR:ROOTDIR]... [--env K=V]... [--cwd DIR] -- CMD ARGS...)"
	[ -f "$root/$stampname" ] || die "no ROCm root at $root: run make deps (or scripts/rocm-root.sh ensure)"
	local env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)
	[ -z "${TERM-}" ] || env+=("TERM=$TERM")
	local name
	while IFS= read -r name; do
		case $name in
		ROCJITSU_* | HSA_* | HIP_* | AMD_*) env+=("$name=${!name}") ;;
		esac
	done < <(compgen -e)
	[ -z "$caller_preload_set" ] || env+=("LD_PRELOAD=$caller_preload")
	env+=("${envs[@]}")
	local ns=(unshare --mount --propagation private --kill-child)
	if [ "$(id -u)" != 0 ]; then
		ns=(unshare --map-root-user --mount --propagation private --kill-child)
	fi
	exec "${ns[@]}" -- bash "$self" __inner "$root" "$cwd" "${#binds[@]}" "${binds[@]}" "${#env[@]}" "${env[@]}" "$@"
}

# __inner ROOT CWD NBINDS BINDS... NENV ENV... CMD...: the part of run that
# executes inside the new mount namespace.
inner() {
	local r=$1 cwd=$2 n i b host dst
	shift 2
	n=$1
	shift
	local binds=("${@:1:n}")
	shift "$n"
	n=$1
	shift
	local env=("${@:1:n}")
	shift "$n"
	mount --rbind /proc "$r/proc" || die "cannot mount /proc in $r"
	mount --rbind /sys "$r/sys" || die "cannot mount /sys in $r"
	mount --rbind /dev "$r/dev" || die "cannot mount /dev in $r"
	mount -t tmpfs -o mode=1777 tmpfs "$r/tmp" || die "cannot mount a tmpfs on $r/tmp"
	for b in "${binds[@]}"; do
		host=${b%%:/*}
		dst=/${b#*:/}
		[ -e "$host" ] || die "--bind $b: $host does not exist"
		if [ -d "$host" ]; then
			mkdir -p "$r$dst"
		else
			mkdir -p "$(dirname "$r$dst")"
			[ -e "$r$dst" ] || : >"$r$dst"
		fi
		mount --bind "$host" "$r$dst" || die "cannot bind $host on $dst"
	done
	exec chroot "$r" /usr/bin/env -i -C "$cwd" "${env[@]}" "$@"
}

case ${1-} in
ensure) ensure ;;
path) echo "$root" ;;
run)
	shift
	run "$@"
	;;
__inner)
	shift
	inner "$@"
	;;
*)
	echo "usage: $0 ensure | path | run [--bind HOSTDIR:ROOTDIR]... [--env K=V]... [--cwd DIR] -- CMD ARGS..." >&2
	exit 2
	;;
esac
