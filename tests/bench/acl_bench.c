/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL build time and memory, no I/O: an ACL file (dprctl acl set's JSON,
 * as scripts/acl-rules.py writes) parsed once, then built ROUNDS times
 * through dpr_acl_set() as acl.set does, each build timed; the memory is
 * what DPDK's heap grew by with the ACL in place (rte_acl contexts and the
 * hit counters). Prints one JSON object: each build's wall-clock time and
 * the thread's CPU time (what a loaded machine disturbs less). Timing is
 * reported, never judged.
 *
 *   dpr-acl-bench [EAL] -- RULES.json [ROUNDS]      (ROUNDS: 5)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_malloc.h>

#include "acl/acl.h"
#include "util/clock.h"

static size_t
heap_used(void)
{
	struct rte_malloc_socket_stats s;

	if (rte_malloc_get_socket_stats((int)rte_socket_id(), &s) < 0)
		return 0;
	return s.heap_allocsz_bytes;
}

static int cmp_u64(const void *a, const void *b);

static uint64_t
cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void
print_ms(const char *name, uint64_t *us, unsigned int n)
{
	unsigned int i;

	printf(", \"%s\": [", name);
	for (i = 0; i < n; i++)
		printf("%s%.1f", i ? ", " : "", us[i] / 1000.0);
	qsort(us, n, sizeof(us[0]), cmp_u64);
	printf("], \"%s_median\": %.1f", name, us[n / 2] / 1000.0);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	uint64_t us[64], cpu[64];
	struct dpr_acl_db *db;
	struct dpr_acl_list l;
	json_error_t jerr;
	unsigned int rounds = 5, i;
	char err[512];
	size_t mem0, mem = 0;
	json_t *j;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "dpr-acl-bench: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	if (argc < 2) {
		fprintf(stderr, "usage: dpr-acl-bench [EAL] -- RULES.json [ROUNDS]\n");
		return 2;
	}
	if (argc > 2)
		rounds = RTE_MIN((unsigned int)atoi(argv[2]), RTE_DIM(us));
	if (rounds == 0)
		rounds = 1;
	j = json_load_file(argv[1], 0, &jerr);
	if (j == NULL) {
		fprintf(stderr, "dpr-acl-bench: %s: %s\n", argv[1], jerr.text);
		return 1;
	}
	db = dpr_acl_db_create(NULL, 1, (int)rte_socket_id());
	if (db == NULL) {
		fprintf(stderr, "dpr-acl-bench: no memory\n");
		return 1;
	}
	mem0 = heap_used();
	for (i = 0; i < rounds; i++) {
		uint64_t t0, c0;

		if (dpr_acl_list_parse(j, argv[1], "bench", &l, err, sizeof(err)) < 0) {
			fprintf(stderr, "dpr-acl-bench: %s\n", err);
			return 1;
		}
		/* Each round replaces the last: its old build is freed first,
		 * so the heap holds one ACL when it is measured. */
		dpr_acl_del(db, "bench", err, sizeof(err));
		if (i == rounds - 1)
			mem0 = heap_used();
		n = (int)l.n_rules;
		c0 = cpu_us();
		t0 = dpr_clock_now();
		if (dpr_acl_set(db, &l, err, sizeof(err)) < 0) {
			fprintf(stderr, "dpr-acl-bench: %s\n", err);
			return 1;
		}
		us[i] = (dpr_clock_now() - t0) / 1000;
		cpu[i] = cpu_us() - c0;
		if (i == rounds - 1)
			mem = heap_used() - mem0;
	}
	printf("{\"file\": \"%s\", \"rules\": %d", argv[1], n);
	print_ms("build_ms", us, rounds);
	print_ms("cpu_ms", cpu, rounds);
	printf(", \"memory_bytes\": %zu}\n", mem);
	dpr_acl_db_free(db);
	json_decref(j);
	rte_eal_cleanup();
	return 0;
}
