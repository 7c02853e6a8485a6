/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The FIB tests run on one algorithm per process, named by the first
 * argument ("dir-24-8" or "poptrie"), so that each has a test of its own
 * (and its own timeout); with no argument, on both.
 */
#include <stdio.h>
#include <string.h>

#include "fib/algo.h"

/* The randomized tests walk the whole structure (dpr_pt_check()) after
 * one step in TEST_CHECK_EVERY, not after each: the same operations, fewer
 * full walks (those were 95 % of the release test's time, 18 s for
 * IPv6). The lookups are compared with the reference as often as before,
 * and the fuzzer (tests/fuzz) walks after every operation. Under the
 * sanitizers, 10-20x slower, fewer still. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_CHECK_EVERY 32u
#else
#define TEST_CHECK_EVERY 4u
#endif

/* Fill @algos from argv; returns how many, 0 on an unknown name. */
static inline unsigned int
test_algos(int argc, char **argv, enum dpr_fib_algo algos[2])
{
	static const enum dpr_fib_algo all[] = { DPR_FIB_DIR24_8, DPR_FIB_POPTRIE };
	unsigned int i;

	if (argc < 2) {
		algos[0] = all[0];
		algos[1] = all[1];
		return 2;
	}
	for (i = 0; i < 2; i++)
		if (strcmp(argv[1], dpr_fib_algo_name(all[i])) == 0) {
			algos[0] = all[i];
			return 1;
		}
	fprintf(stderr, "%s: unknown FIB algorithm \"%s\" (expected \"dir-24-8\" or \"poptrie\")\n",
		argv[0], argv[1]);
	return 0;
}
