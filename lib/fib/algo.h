/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/**
 * The lookup structure behind a FIB (fib.ipv4_algorithm, ipv6_algorithm):
 * DIR-24-8 (this file's, and fib6.h's) or Poptrie (poptrie.h). The rules,
 * the update contract and the lookups' signatures are the same; a FIB
 * holds one of them, chosen at creation.
 */
enum dpr_fib_algo {
	DPR_FIB_DIR24_8 = 0,
	DPR_FIB_POPTRIE = 1,
};

/** "dir-24-8" or "poptrie". */
const char *dpr_fib_algo_name(enum dpr_fib_algo a);
