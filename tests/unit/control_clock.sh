#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The control thread's timers run on CLOCK_MONOTONIC (lib/util/clock.h),
# never on the TSC, which a VM's host can move by hours (test_fpm_router
# shows the grace period follows the clock). Only the workers' cycle
# counting reads the TSC: lib/datapath/ and app/dpr/worker.c. This fails on
# any other rte_rdtsc() or rte_get_timer_cycles(), so that a new timer does
# not bring the TSC back. Comment lines (starting with *, /* or //) may
# name the functions.
# Usage: control_clock.sh SOURCE_ROOT
root=${1:?usage: control_clock.sh SOURCE_ROOT}
hits=$(cd "$root" && grep -rn -E 'rte_rdtsc(_precise)?\(|rte_get_timer_cycles\(|rte_get_tsc_cycles\(' lib app \
	--include='*.c' --include='*.h' |
	grep -v -E '^lib/datapath/|^app/dpr/worker\.c:' |
	grep -v -E '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
	grep -v -E '^lib/capture/capture\.c:.*rte_pcapng_copy')
if [ -n "$hits" ]; then
	echo "not ok - the control thread reads the TSC; use dpr_clock_now() (lib/util/clock.h):"
	echo "$hits" | sed 's/^/#   /'
	exit 1
fi
echo "ok - no TSC outside the workers' cycle counting"
