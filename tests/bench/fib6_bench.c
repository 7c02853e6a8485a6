/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 FIB micro-benchmark: load a route file ("PREFIX via GATEWAY" lines, as
 * scripts/pyasn6-routes.py writes) into dpr's own FIB (fib6.h), DPDK's
 * rte_fib6 (trie, 4-byte next hops) and rte_lpm6, one after the other, and
 * for each measure the load, cycles per add and per delete (a third of the
 * routes deleted and added again), bulk lookups of 32 random addresses
 * inside the table's prefixes, and the memory it holds. The three must agree
 * on every looked-up address. Prints JSON.
 *
 *   dpr-fib6-bench [EAL] -- ROUTES.txt [TBL8_GROUPS [BATCH]]
 *
 * TBL8_GROUPS sizes dpr's tbl8 and DPDK's tbl8s alike (default 1 << 18); a
 * table whose load does not fit is made again with twice as many.
 * dpr's updates go in batches of BATCH (default 20000, as route.load applies
 * them); DPDK's calls take one route each.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_fib6.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "fib/fib6.h"
#include "util/addr.h"

#define LOOKUPS (1u << 22)
#define MAX_GROUPS (1u << 22)
#define BURST 32

struct route6 {
	uint8_t ip[16];
	uint8_t depth;
	uint32_t nh;
};

/* What one table did, printed as one JSON object. */
struct result {
	const char *name;
	double load_seconds;
	double add_cycles;     /* per route, over the whole load */
	double del_cycles;     /* per route, deleting a third */
	double readd_cycles;   /* per route, adding that third again */
	double lookup_cycles;  /* per address, in bursts of BURST */
	double lookup_one_cycles; /* per address, one at a time (dpr only) */
	double memory_mib;
	double heap_mib;       /* DPDK heap taken while the table exists */
	uint32_t tbl8_groups;  /* configured: TBL8_GROUPS, doubled until the load fits */
	uint32_t tbl8_used;    /* dpr only */
	unsigned int failed;   /* adds that failed during the load */
	uint64_t mismatches;   /* lookups that disagree with dpr */
};

/* The tables under test behind one set of hooks. */
struct table_ops {
	const char *name;
	void *(*create)(unsigned int n_routes, uint32_t groups);
	/* Add or delete r[0..n); returns how many failed. */
	unsigned int (*apply)(void *t, const struct route6 *r, unsigned int n, bool del);
	void (*lookup)(void *t, uint8_t (*ips)[16], const uint8_t **ptrs, uint32_t *nh);
	uint64_t (*memory)(void *t);   /* NULL: the DPDK heap it takes */
	void (*destroy)(void *t);
};

static unsigned int batch = 20000;

static size_t
heap_used(void)
{
	struct rte_malloc_socket_stats s;

	rte_malloc_get_socket_stats(0, &s);
	return s.heap_allocsz_bytes;
}

/* --- dpr -------------------------------------------------------------- */

static void *
dpr_create(unsigned int n_routes, uint32_t groups)
{
	struct dpr_fib6_conf fc = { .max_routes = n_routes + 1024, .tbl8_groups = groups,
				    .socket = 0 };

	return dpr_fib6_create(&fc, NULL);
}

/* In batches of BATCH through dpr_fib6_update(), as route.load does. */
static unsigned int
dpr_apply(void *t, const struct route6 *r, unsigned int n, bool del)
{
	static struct dpr_fib6_op ops[1 << 16];
	unsigned int i, m, done = 0;
	int err = 0;

	while (done < n) {
		m = RTE_MIN(RTE_MIN(n - done, batch), (unsigned int)RTE_DIM(ops));
		for (i = 0; i < m; i++) {
			ops[i] = (struct dpr_fib6_op){ .depth = r[done + i].depth, .del = del,
						       .nh = r[done + i].nh };
			memcpy(ops[i].ip, r[done + i].ip, 16);
		}
		i = dpr_fib6_update(t, ops, m, &err);
		done += i;
		if (i < m)
			return n - done; /* the rest is not tried */
	}
	return 0;
}

static void
dpr_lookup(void *t, uint8_t (*ips)[16], const uint8_t **ptrs, uint32_t *nh)
{
	unsigned int i;

	for (i = 0; i < BURST; i++)
		ptrs[i] = ips[i];
	dpr_fib6_lookup_bulk(t, ptrs, nh, BURST);
}

static uint64_t
dpr_memory(void *t)
{
	return dpr_fib6_memory(t);
}

static void
dpr_destroy(void *t)
{
	dpr_fib6_free(t);
}

/* --- rte_fib6 --------------------------------------------------------- */

static void *
fib6_create(unsigned int n_routes, uint32_t groups)
{
	struct rte_fib6_conf c = {
		.type = RTE_FIB6_TRIE,
		.default_nh = 0,
		.max_routes = (int)n_routes + 1024,
		.trie = { .nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = groups },
	};

	return rte_fib6_create("bench_fib6", 0, &c);
}

static unsigned int
fib6_apply(void *t, const struct route6 *r, unsigned int n, bool del)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++)
		failed += (del ? rte_fib6_delete(t, r[i].ip, r[i].depth) :
			   rte_fib6_add(t, r[i].ip, r[i].depth, r[i].nh)) < 0;
	return failed;
}

static void
fib6_lookup(void *t, uint8_t (*ips)[16], const uint8_t **ptrs, uint32_t *nh)
{
	uint64_t nh64[BURST];
	unsigned int i;

	(void)ptrs;
	rte_fib6_lookup_bulk(t, ips, nh64, BURST);
	for (i = 0; i < BURST; i++)
		nh[i] = (uint32_t)nh64[i];
}

static void
fib6_destroy(void *t)
{
	rte_fib6_free(t);
}

/* --- rte_lpm6 --------------------------------------------------------- */

static void *
lpm6_create(unsigned int n_routes, uint32_t groups)
{
	struct rte_lpm6_config c = { .max_rules = n_routes + 1024, .number_tbl8s = groups };

	return rte_lpm6_create("bench_lpm6", 0, &c);
}

static unsigned int
lpm6_apply(void *t, const struct route6 *r, unsigned int n, bool del)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++)
		failed += (del ? rte_lpm6_delete(t, r[i].ip, r[i].depth) :
			   rte_lpm6_add(t, r[i].ip, r[i].depth, r[i].nh)) < 0;
	return failed;
}

static void
lpm6_lookup(void *t, uint8_t (*ips)[16], const uint8_t **ptrs, uint32_t *nh)
{
	int32_t nh32[BURST];
	unsigned int i;

	(void)ptrs;
	rte_lpm6_lookup_bulk_func(t, ips, nh32, BURST);
	for (i = 0; i < BURST; i++)
		nh[i] = nh32[i] < 0 ? 0 : (uint32_t)nh32[i];
}

static void
lpm6_destroy(void *t)
{
	rte_lpm6_free(t);
}

/* --- the runs --------------------------------------------------------- */

static void
run(const struct table_ops *o, struct route6 *routes, unsigned int n, uint32_t groups,
    uint8_t (*addrs)[16], uint32_t *answers, bool reference, struct result *res)
{
	unsigned int third = n / 3, i, k;
	const uint8_t *ptrs[BURST];
	uint32_t nh[BURST];
	size_t heap0 = heap_used();
	uint64_t c0;
	void *t;

	memset(res, 0, sizeof(*res));
	res->name = o->name;
	for (;;) {
		t = o->create(n, groups);
		if (t == NULL) {
			fprintf(stderr, "%s: cannot create with %u tbl8 groups\n", o->name, groups);
			res->failed = n;
			return;
		}
		c0 = rte_get_tsc_cycles();
		res->failed = o->apply(t, routes, n, false);
		c0 = rte_get_tsc_cycles() - c0;
		if (res->failed == 0 || groups >= MAX_GROUPS)
			break;
		o->destroy(t);
		groups *= 2;
	}
	res->tbl8_groups = groups;
	res->load_seconds = (double)c0 / (double)rte_get_tsc_hz();
	res->add_cycles = (double)c0 / n;
	res->heap_mib = (double)(heap_used() - heap0) / (1 << 20);
	if (o->memory != NULL) {
		res->memory_mib = (double)o->memory(t) / (1 << 20);
		res->tbl8_used = dpr_fib6_tbl8_used(t); /* the only o->memory */
	} else {
		res->memory_mib = res->heap_mib;
	}

	/* The last third goes and comes back. */
	c0 = rte_get_tsc_cycles();
	o->apply(t, &routes[n - third], third, true);
	res->del_cycles = (double)(rte_get_tsc_cycles() - c0) / third;
	c0 = rte_get_tsc_cycles();
	o->apply(t, &routes[n - third], third, false);
	res->readd_cycles = (double)(rte_get_tsc_cycles() - c0) / third;

	/* A first pass, untimed, touches the tables and checks the answers. */
	for (i = 0; i < LOOKUPS; i += BURST) {
		o->lookup(t, &addrs[i], ptrs, nh);
		if (reference)
			memcpy(&answers[i], nh, sizeof(nh));
		else
			for (k = 0; k < BURST; k++)
				res->mismatches += nh[k] != answers[i + k];
	}
	c0 = rte_get_tsc_cycles();
	for (i = 0; i < LOOKUPS; i += BURST)
		o->lookup(t, &addrs[i], ptrs, nh);
	res->lookup_cycles = (double)(rte_get_tsc_cycles() - c0) / LOOKUPS;
	if (reference) {
		/* dpr alone, to see what the lockstep walk saves; it must
		 * agree with its bulk answers. */
		volatile uint32_t sink = 0;

		c0 = rte_get_tsc_cycles();
		for (i = 0; i < LOOKUPS; i++)
			sink += dpr_fib6_lookup(t, addrs[i]);
		res->lookup_one_cycles = (double)(rte_get_tsc_cycles() - c0) / LOOKUPS;
		for (i = 0; i < LOOKUPS; i++)
			res->mismatches += dpr_fib6_lookup(t, addrs[i]) != answers[i];
		(void)sink;
	}
	o->destroy(t);
}

static void
print(const struct result *r, bool last)
{
	printf("  \"%s\": {\"load_seconds\": %.3f, \"add_cycles\": %.0f, \"delete_cycles\": %.0f, "
	       "\"readd_cycles\": %.0f, \"lookup_cycles\": %.1f, ",
	       r->name, r->load_seconds, r->add_cycles, r->del_cycles, r->readd_cycles,
	       r->lookup_cycles);
	if (r->lookup_one_cycles > 0)
		printf("\"lookup_one_cycles\": %.1f, \"tbl8_used\": %u, ", r->lookup_one_cycles,
		       r->tbl8_used);
	printf("\"tbl8_groups\": %u, \"memory_mib\": %.1f, \"heap_mib\": %.1f, "
	       "\"failed_adds\": %u, \"lookup_mismatches\": %" PRIu64 "}%s\n",
	       r->tbl8_groups, r->memory_mib, r->heap_mib, r->failed, r->mismatches,
	       last ? "" : ",");
}

int
main(int argc, char **argv)
{
	static const struct table_ops tables[] = {
		{ "dpr_fib6", dpr_create, dpr_apply, dpr_lookup, dpr_memory, dpr_destroy },
		{ "rte_fib6", fib6_create, fib6_apply, fib6_lookup, NULL, fib6_destroy },
		{ "rte_lpm6", lpm6_create, lpm6_apply, lpm6_lookup, NULL, lpm6_destroy },
	};
	struct result res[RTE_DIM(tables)];
	unsigned int n = 0, cap = 1 << 21, i;
	uint32_t groups = 1 << 18, *answers;
	uint8_t (*addrs)[16];
	struct route6 *routes;
	char line[256];
	FILE *f;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc < 2) {
		fprintf(stderr, "usage: dpr-fib6-bench [EAL] -- ROUTES.txt [TBL8_GROUPS [BATCH]]\n");
		return 2;
	}
	if (argc > 2)
		groups = (uint32_t)strtoul(argv[2], NULL, 0);
	if (argc > 3)
		batch = (unsigned int)atoi(argv[3]);
	f = fopen(argv[1], "r");
	routes = calloc(cap, sizeof(*routes));
	addrs = malloc(LOOKUPS * sizeof(*addrs));
	answers = malloc(LOOKUPS * sizeof(*answers));
	if (f == NULL || routes == NULL || addrs == NULL || answers == NULL) {
		perror(argv[1]);
		return 1;
	}
	while (n < cap && fgets(line, sizeof(line), f) != NULL) {
		struct dpr_prefix p;
		char *sp = strchr(line, ' ');

		if (sp == NULL)
			continue;
		*sp = '\0';
		if (dpr_prefix_parse(line, false, &p, NULL, 0) < 0 || p.addr.af != DPR_AF_IP6)
			continue;
		memcpy(routes[n].ip, p.addr.ip6, 16);
		routes[n].depth = p.len;
		routes[n].nh = 2 + (uint32_t)(rte_rand() % 4);
		n++;
	}
	fclose(f);
	if (n < 3) {
		fprintf(stderr, "%s: no IPv6 routes\n", argv[1]);
		return 1;
	}

	/* Lookups: random hosts inside random prefixes of the table. */
	for (i = 0; i < LOOKUPS; i++) {
		const struct route6 *r = &routes[rte_rand() % n];
		unsigned int b;

		for (b = 0; b < 16; b++) {
			int keep = RTE_MIN(RTE_MAX((int)r->depth - 8 * (int)b, 0), 8);
			uint8_t mask = (uint8_t)(0xff00 >> keep);

			addrs[i][b] = (uint8_t)((r->ip[b] & mask) | ((uint8_t)rte_rand() & ~mask));
		}
	}

	for (i = 0; i < RTE_DIM(tables); i++)
		run(&tables[i], routes, n, groups, addrs, answers, i == 0, &res[i]);

	printf("{\"file\": \"%s\", \"routes\": %u, \"tbl8_groups\": %u, \"batch\": %u, "
	       "\"lookups\": %u, \"burst\": %u,\n", argv[1], n, groups, batch, LOOKUPS, BURST);
	for (i = 0; i < RTE_DIM(tables); i++)
		print(&res[i], i + 1 == RTE_DIM(tables));
	printf("}\n");
	free(routes);
	free(addrs);
	free(answers);
	rte_eal_cleanup();
	return 0;
}
