/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/* A few macros for unit tests: each failed check prints where and what. */
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_eal.h>

static int test_failures;
static int test_checks;

#define CHECK(cond, ...) do { \
		test_checks++; \
		if (!(cond)) { \
			test_failures++; \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
		} \
	} while (0)

#define CHECK_EQ(a, b) CHECK((a) == (b), "%lld != %lld", (long long)(a), (long long)(b))

static inline int
test_eal_init(const char *prog)
{
	char *args[] = {
		(char *)prog, "--no-huge", "-m", "768", "--no-pci",
		"--no-shconf", "-l", "0", "--log-level", "lib.eal:error",
		"--vdev", "net_null0",
	};

	return rte_eal_init(RTE_DIM(args), args);
}

/*
 * The extra seeds a random test runs, from DPR_TEST_SEEDS=FIRST-LAST (a
 * search for sequences its fixed seeds miss): *@p first to *@p last, an
 * empty range (1 to 0) when unset. A malformed value is a failed check.
 */
static inline void
test_seeds(unsigned int *first, unsigned int *last)
{
	const char *v = getenv("DPR_TEST_SEEDS");

	*first = 1;
	*last = 0;
	if (v != NULL && sscanf(v, "%u-%u", first, last) != 2) {
		CHECK(false, "DPR_TEST_SEEDS: FIRST-LAST, not \"%s\"", v);
		*first = 1;
		*last = 0;
	}
}

static inline int
test_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	rte_eal_cleanup();
	return test_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
