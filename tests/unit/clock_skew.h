/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The control thread's clock (dpr_clock_now(), CLOCK_MONOTONIC) run
 * clock_skew_ns ahead: a test moves it past a lock, an aging time or a
 * grace period at once, with no sleeping and no race. The test's link
 * wraps clock_gettime (tests/unit/meson.build's list); include this in one
 * file of such a test.
 */
#include <stdint.h>
#include <time.h>

static uint64_t clock_skew_ns;
int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

int
__wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t ns;
	int ret = __real_clock_gettime(id, ts);

	if (ret != 0 || id != CLOCK_MONOTONIC || clock_skew_ns == 0)
		return ret;
	ns = (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec + clock_skew_ns;
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return 0;
}
