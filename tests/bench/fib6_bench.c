/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 FIB micro-benchmark, no I/O: one route file ("PREFIX via GATEWAY"
 * lines, as scripts/pyasn6-routes.py and make-pcap.py write) in dpr's own
 * DIR-24-8-style FIB (fib6.h), dpr's Poptrie, DPDK's rte_fib6 (trie, 4-byte
 * next hops) and rte_lpm6, each measured as bench_fib.h says (load, cycles
 * per add and per delete, memory, updates, M lookups a second in bursts of
 * 32) on the same key sets:
 *   uniform  random addresses inside random prefixes of the table;
 *   NAME     with -k NAME=PCAP: the IPv6 destinations of a scripts/bench.sh
 *            pcap, in packet order (scripts/bench.sh MICRO=1 passes the
 *            pyasn6 traffic's as "cached").
 * The four must agree on every key. Prints JSON.
 *
 *   dpr-fib6-bench [EAL] -- ROUTES.txt [TBL8_GROUPS [BATCH]] [-k NAME=PCAP]...
 *                  [-r ROUNDS] [-u CHANGES] [-U UPDATE_BATCH] [-n UNIFORM_KEYS]
 *
 * TBL8_GROUPS sizes dpr's tbl8 and DPDK's tbl8s alike (default 1 << 18); a
 * table whose load does not fit is made again with twice as many.
 * dpr's loads go in batches of BATCH (default 20000, as route.load applies
 * them); DPDK's calls take one route each. CHANGES (default 20000): route
 * changes timed, half of them random routes deleted, the other half the same
 * added again, UPDATE_BATCH (1000) a dpr call. ROUNDS: 5; UNIFORM_KEYS:
 * 1 << 22.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_fib6.h>
#include <rte_lpm6.h>

#include "fib/fib6.h"
#include "nexthop/nexthop.h"
#include "util/addr.h"

#include "bench_fib.h"

struct route6 {
	uint8_t ip[16];
	uint8_t depth;
	uint32_t nh;
};

static unsigned int batch = 20000;

/* --- dpr -------------------------------------------------------------- */

static void *
dpr_create(unsigned int n_routes, uint32_t groups, bool poptrie)
{
	struct dpr_fib6_conf fc = { .max_routes = n_routes + 1024, .tbl8_groups = groups,
				    .socket = 0 };

#ifdef DPR_BENCH_POPTRIE
	fc.algorithm = poptrie ? DPR_FIB_POPTRIE : DPR_FIB_DIR24_8;
#else
	if (poptrie)
		return NULL;
#endif
	return dpr_fib6_create(&fc, NULL);
}

static void *
dir_create(unsigned int n_routes, uint32_t groups)
{
	return dpr_create(n_routes, groups, false);
}

#ifdef DPR_BENCH_POPTRIE
static void *
pt_create(unsigned int n_routes, uint32_t groups)
{
	return dpr_create(n_routes, groups, true);
}
#endif

/* In batches of BATCH through dpr_fib6_update(), as route.load does. */
static unsigned int
dpr_apply(void *t, const void *routes, unsigned int n, bool del)
{
	static struct dpr_fib6_op ops[1 << 16];
	const struct route6 *r = routes;
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

static uint32_t
dpr_lookup(void *t, const void *keys, unsigned int n, uint32_t *out)
{
	const uint8_t (*ip)[16] = keys;
	const uint8_t *ptrs[BENCH_BURST];
	uint32_t nh[BENCH_BURST], sink = 0, *o;
	unsigned int i, k;

	for (i = 0; i < n; i += BENCH_BURST) {
		o = out != NULL ? &out[i] : nh;
		for (k = 0; k < BENCH_BURST; k++)
			ptrs[k] = ip[i + k];
		dpr_fib6_lookup_bulk(t, ptrs, o, BENCH_BURST);
		sink += o[0];
	}
	return sink;
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
fib6_apply(void *t, const void *routes, unsigned int n, bool del)
{
	const struct route6 *r = routes;
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++)
		failed += (del ? rte_fib6_delete(t, r[i].ip, r[i].depth) :
			   rte_fib6_add(t, r[i].ip, r[i].depth, r[i].nh)) < 0;
	return failed;
}

static uint32_t
fib6_lookup(void *t, const void *keys, unsigned int n, uint32_t *out)
{
	uint8_t (*ip)[16] = (uint8_t (*)[16])(uintptr_t)keys;
	uint64_t nh64[BENCH_BURST];
	uint32_t sink = 0;
	unsigned int i, k;

	for (i = 0; i < n; i += BENCH_BURST) {
		rte_fib6_lookup_bulk(t, &ip[i], nh64, BENCH_BURST);
		sink += (uint32_t)nh64[0];
		if (out != NULL)
			for (k = 0; k < BENCH_BURST; k++)
				out[i + k] = (uint32_t)nh64[k];
	}
	return sink;
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
lpm6_apply(void *t, const void *routes, unsigned int n, bool del)
{
	const struct route6 *r = routes;
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++)
		failed += (del ? rte_lpm6_delete(t, r[i].ip, r[i].depth) :
			   rte_lpm6_add(t, r[i].ip, r[i].depth, r[i].nh)) < 0;
	return failed;
}

static uint32_t
lpm6_lookup(void *t, const void *keys, unsigned int n, uint32_t *out)
{
	uint8_t (*ip)[16] = (uint8_t (*)[16])(uintptr_t)keys;
	int32_t nh32[BENCH_BURST];
	uint32_t sink = 0;
	unsigned int i, k;

	for (i = 0; i < n; i += BENCH_BURST) {
		rte_lpm6_lookup_bulk_func(t, &ip[i], nh32, BENCH_BURST);
		sink += (uint32_t)nh32[0];
		if (out != NULL)
			for (k = 0; k < BENCH_BURST; k++)
				out[i + k] = nh32[k] < 0 ? DPR_NH_NONE : (uint32_t)nh32[k];
	}
	return sink;
}

static void
lpm6_destroy(void *t)
{
	rte_lpm6_free(t);
}

/* --- the run ---------------------------------------------------------- */

static const struct bench_table tables[] = {
	{ "dpr_dir24_8", dir_create, dpr_apply, dpr_lookup, dpr_memory, dpr_destroy, true },
#ifdef DPR_BENCH_POPTRIE
	{ "dpr_poptrie", pt_create, dpr_apply, dpr_lookup, dpr_memory, dpr_destroy, false },
#endif
	{ "rte_fib6", fib6_create, fib6_apply, fib6_lookup, NULL, fib6_destroy, true },
	{ "rte_lpm6", lpm6_create, lpm6_apply, lpm6_lookup, NULL, lpm6_destroy, true },
};

static const struct bench_goal goals[] = {
	{ "Poptrie / DIR-24-8, uniform keys (no goal)",
	  "dpr_poptrie", "dpr_dir24_8", "uniform", 0 },
	{ "Poptrie / DIR-24-8, cached keys (no goal)",
	  "dpr_poptrie", "dpr_dir24_8", "cached", 0 },
};

static void
usage(void)
{
	fprintf(stderr, "usage: dpr-fib6-bench [EAL] -- ROUTES.txt [TBL8_GROUPS [BATCH]] "
		"[-k NAME=PCAP]... [-r ROUNDS] [-u CHANGES] [-U UPDATE_BATCH] "
		"[-n UNIFORM_KEYS]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct bench_spec s = { .family = 6, .route_size = sizeof(struct route6),
				.key_size = 16, .groups = 1u << 18,
				.max_groups = 1u << 22, .update_batch = 1000,
				.changes = 20000, .rounds = 5, .lookups = 1u << 22 };
	struct bench_keyset ks[BENCH_MAX_KEYSETS];
	struct bench_result res[RTE_DIM(tables)];
	unsigned int n = 0, cap = 1 << 21, nk = 1, n_uniform = 1u << 22, i, positional = 0;
	struct route6 *routes;
	uint8_t (*uniform)[16];
	char line[256];
	int ret, a;
	FILE *f;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	for (a = 1; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (argv[a][0] != '-') {
			if (positional == 0)
				s.file = argv[a];
			else if (positional == 1)
				s.groups = (uint32_t)strtoul(argv[a], NULL, 0);
			else
				batch = (unsigned int)atoi(argv[a]);
			positional++;
			continue;
		}
		if (v == NULL || argv[a][1] == '\0' || argv[a][2] != '\0')
			usage();
		a++;
		switch (argv[a - 1][1]) {
		case 'k': {
			const char *eq = strchr(v, '=');

			if (eq == NULL || eq == v || (size_t)(eq - v) >= sizeof(ks[0].name) ||
			    nk == BENCH_MAX_KEYSETS)
				usage();
			snprintf(ks[nk].name, sizeof(ks[nk].name), "%.*s", (int)(eq - v), v);
			snprintf(ks[nk].source, sizeof(ks[nk].source), "%s", eq + 1);
			ks[nk].keys = bench_pcap_keys(eq + 1, 0x86dd, &ks[nk].n);
			if (ks[nk].keys == NULL)
				return 1;
			nk++;
			break;
		}
		case 'r':
			s.rounds = (unsigned int)atoi(v);
			break;
		case 'u':
			s.changes = (unsigned int)atoi(v);
			break;
		case 'U':
			s.update_batch = (unsigned int)atoi(v);
			break;
		case 'n':
			n_uniform = (unsigned int)atoi(v) & ~(BENCH_BURST - 1u);
			break;
		default:
			usage();
		}
	}
	if (s.file == NULL || batch == 0 || s.groups == 0 || s.update_batch == 0 ||
	    s.rounds == 0 || s.rounds > BENCH_MAX_ROUNDS || n_uniform == 0)
		usage();
	s.load_batch = batch;
	s.ref = (int)RTE_DIM(tables) - 1;

	f = fopen(s.file, "r");
	routes = calloc(cap, sizeof(*routes));
	uniform = malloc((size_t)n_uniform * sizeof(*uniform));
	if (f == NULL || routes == NULL || uniform == NULL) {
		perror(s.file);
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
		routes[n].nh = DPR_NH_FIRST_DYNAMIC + (uint32_t)(rte_rand() % 4);
		n++;
	}
	fclose(f);
	if (n < 3) {
		fprintf(stderr, "%s: no IPv6 routes\n", s.file);
		return 1;
	}
	s.routes = routes;
	s.n_routes = n;

	/* Random hosts inside random prefixes of the table. */
	for (i = 0; i < n_uniform; i++) {
		const struct route6 *r = &routes[rte_rand() % n];
		unsigned int b;

		for (b = 0; b < 16; b++) {
			int keep = RTE_MIN(RTE_MAX((int)r->depth - 8 * (int)b, 0), 8);
			uint8_t mask = (uint8_t)(0xff00 >> keep);

			uniform[i][b] = (uint8_t)((r->ip[b] & mask) | ((uint8_t)rte_rand() & ~mask));
		}
	}
	snprintf(ks[0].name, sizeof(ks[0].name), "uniform");
	snprintf(ks[0].source, sizeof(ks[0].source),
		 "random addresses inside random prefixes of the table");
	ks[0].keys = uniform;
	ks[0].n = n_uniform;

	if (bench_build(&s, tables, RTE_DIM(tables), res) < 0)
		return 1;
	bench_lookups(&s, tables, RTE_DIM(tables), res, ks, nk);
	bench_print(&s, tables, RTE_DIM(tables), res, ks, nk, goals, RTE_DIM(goals),
#ifdef DPR_BENCH_POPTRIE
		    NULL
#else
		    "dpr_poptrie: this dpr has no Poptrie (struct dpr_fib6_conf has no algorithm)"
#endif
		    );
	for (i = 0; i < RTE_DIM(tables); i++)
		tables[i].destroy(res[i].t);
	for (i = 0; i < nk; i++)
		free((void *)(uintptr_t)ks[i].keys);
	free(routes);
	rte_eal_cleanup();
	return 0;
}
