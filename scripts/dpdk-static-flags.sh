#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Link flags for a static DPDK, for meson (-Dstatic_dpdk=true).
# pkg-config --static wraps the PMDs in --whole-archive so their
# constructors register the drivers; meson reorders separate arguments and
# would break that group, so it is handed over as one -Wl argument.
set -e
pkg-config --static --libs libdpdk | awk '{
	group = ""; out = ""; inside = 0
	for (i = 1; i <= NF; i++) {
		if ($i == "-Wl,--whole-archive") { inside = 1; group = "-Wl,--whole-archive"; continue }
		if ($i == "-Wl,--no-whole-archive") {
			if (inside) { out = out " " group ",--no-whole-archive"; inside = 0 }
			continue
		}
		if (inside) {
			a = $i
			sub(/^-Wl,/, "", a)
			group = group "," a
		} else {
			out = out " " $i
		}
	}
	print out
}'
