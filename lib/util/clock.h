/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The control thread's clock, for its timers (neighbour retries and
 * aging, router advertisements, the FPM and kernel-table grace periods,
 * capture deadlines, link polling): CLOCK_MONOTONIC, in nanoseconds.
 *
 * Not the TSC. A virtual machine's TSC can jump, backwards too, when the
 * VM is paused and restored or moved to another host; Linux then marks it
 * unstable and keeps time with another clocksource (kvm-clock), but
 * DPDK's rte_rdtsc still reads the raw counter. A deadline set on the TSC
 * before such a jump can fall hours away: a test once saw an FPM sweep due
 * 11 s after zebra came back still 12 hours away a minute later
 * (sweep_in_ms 43530140), on a VM booted with tsc=unstable. Workers keep
 * the TSC: they count cycles over short windows and make no system calls.
 */
#include <stdint.h>
#include <time.h>

#define DPR_CLOCK_HZ UINT64_C(1000000000)

/** Now, in ns on CLOCK_MONOTONIC; control thread only. */
static inline uint64_t
dpr_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * DPR_CLOCK_HZ + (uint64_t)ts.tv_nsec;
}

/** Now, in whole seconds on the same clock. */
static inline uint64_t
dpr_clock_s(void)
{
	return dpr_clock_now() / DPR_CLOCK_HZ;
}
