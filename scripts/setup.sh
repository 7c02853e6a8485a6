#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Prepare a Debian 12 machine for dpr: install the packages it builds and
# tests with, reserve and mount 2 MiB hugepages. Idempotent; says what it did.
#
#   scripts/setup.sh            packages + hugepages (default 1024 x 2 MiB)
#   scripts/setup.sh --minimal  only what building and running dpr needs
#                               (scripts/demo.sh), not the test suite's
#   HUGEPAGES=2048 scripts/setup.sh
#   scripts/setup.sh --no-hugepages
#   scripts/setup.sh --static   also what -Dstatic_dpdk=true links against
set -euo pipefail

# Building dpr and running it between network namespaces (scripts/demo.sh).
PACKAGES=(
	build-essential meson ninja-build pkg-config
	dpdk dpdk-dev libdpdk-dev libjansson-dev libmnl-dev libnuma-dev libpcap-dev
	libmicrohttpd-dev # the Prometheus endpoint (lib/metrics)
	iproute2 iputils-ping ethtool procps
	python3 python3-pyasn # the RouteViews table (scripts/pyasn-routes.py)
	tcpdump # reads the demo's capture back
)
# What the test suite (scripts/test.sh, scripts/fuzz.sh) uses besides.
TEST_PACKAGES=(
	iputils-tracepath traceroute kmod valgrind
	scdoc # man pages (docs/man), built by meson when present
	man-db # man -l renders them in tests/smoke/install.sh
	frr # zebra, staticd, bgpd, isisd for tests/smoke/fpm.sh, bgp.sh, bgp_scale.sh, isis.sh
	lldpd # tests/smoke/lldp.sh
	bird2 # kernel protocol (kernel_routes.sh), the BGP peers of bgp.sh, bgp_scale.sh
	clang libclang-rt-14-dev # libFuzzer: scripts/fuzz.sh, tests/fuzz
	prometheus # promtool check metrics in tests/smoke/metrics.sh
	thc-ipv6 # atk6-ndpexhaust26: the IPv6 scan of tests/smoke/cp_session.sh
)
# What a static DPDK link (meson -Dstatic_dpdk=true) pulls in.
STATIC_PACKAGES=(
	libsystemd-dev libisal-dev libipsec-mb-dev libibverbs-dev libfdt-dev libxdp-dev
	libbpf-dev libnl-3-dev libnl-route-3-dev libdbus-1-dev libelf-dev zlib1g-dev
	libmd-dev libbsd-dev libssl-dev
)
HUGEPAGES=${HUGEPAGES:-1024}
want_huge=1
want_test=1
for arg in "$@"; do
	case $arg in
	--no-hugepages) want_huge=0 ;;
	--minimal) want_test=0 ;;
	--static) PACKAGES+=("${STATIC_PACKAGES[@]}") ;;
	*) echo "usage: $0 [--minimal] [--no-hugepages] [--static]" >&2; exit 2 ;;
	esac
done
[ $want_test -eq 0 ] || PACKAGES+=("${TEST_PACKAGES[@]}")

say() { printf 'setup: %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	say "must run as root (installs packages, reserves hugepages)" >&2
	exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
else
	say "packages: all present"
fi

if [ $want_huge -eq 1 ]; then
	nr=/proc/sys/vm/nr_hugepages
	have=$(cat $nr 2>/dev/null || echo 0)
	if [ "$have" -lt "$HUGEPAGES" ]; then
		if echo "$HUGEPAGES" > $nr 2>/dev/null; then
			say "hugepages: reserved $(cat $nr) x 2 MiB (asked for $HUGEPAGES)"
		else
			say "hugepages: cannot reserve here (read-only /proc/sys?); tests fall back to --no-huge"
		fi
	else
		say "hugepages: $have x 2 MiB already reserved"
	fi
	if ! grep -qs ' hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		if mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null; then
			say "hugetlbfs: mounted on /dev/hugepages"
		else
			say "hugetlbfs: cannot mount; tests fall back to --no-huge"
		fi
	else
		say "hugetlbfs: mounted on $(awk '$3 == "hugetlbfs" {print $2; exit}' /proc/mounts)"
	fi
fi
