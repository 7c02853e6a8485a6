/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 FIB micro-benchmark, no I/O: one route file ("PREFIX via GATEWAY"
 * lines, as scripts/pyasn-routes.py and make-pcap.py write) in dpr's
 * DIR-24-8, dpr's Poptrie and DPDK's rte_lpm, each measured as bench_fib.h
 * says (load, memory, updates, M lookups a second in bursts of 32 through
 * dpr_fib4_lookup_bulk() and rte_lpm_lookup_bulk()) on the same key sets:
 *   uniform  random addresses that some route covers (drawn over the whole
 *            32-bit space, kept when the table has an answer): a full table's
 *            lookups spread over all of it, far past any L3 for DIR-24-8;
 *   NAME     with -k NAME=PCAP: the destinations of a scripts/bench.sh pcap,
 *            in packet order (scripts/bench.sh MICRO=1 passes the cached
 *            regime's as "cached" and the DRAM-bound one's as "dram").
 * Prints JSON, with the goals of issue 46 (Poptrie over DIR-24-8) beside
 * their ratios.
 *
 *   dpr-fib-bench [EAL] -- ROUTES.txt [BATCH] [-k NAME=PCAP]... [-r ROUNDS]
 *                 [-u CHANGES] [-U UPDATE_BATCH] [-n UNIFORM_KEYS]
 *
 * BATCH: routes a dpr_fib4_update() call while loading (20000, as
 * route.load); CHANGES: route changes timed (20000: 10000 random routes
 * deleted and added again, UPDATE_BATCH (1000) a call; rte_lpm takes one
 * route a call); ROUNDS: 5; UNIFORM_KEYS: 1 << 22.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lpm.h>

#include "config/config.h"
#include "fib/fib.h"
#include "nexthop/nexthop.h"
#include "util/addr.h"

#include "bench_fib.h"

struct route4 {
	uint32_t ip;
	uint8_t depth;
	uint32_t nh;
};

static unsigned int batch = 20000;

/* --- dpr (both algorithms) -------------------------------------------- */

static void *
dpr_create(unsigned int n_routes, uint32_t groups, bool poptrie)
{
	struct dpr_fib4_conf fc = {
		.max_routes = RTE_MAX(n_routes + 1024, DPR_DEFAULT_IP4_MAX_ROUTES),
		.tbl8_groups = groups, .socket = 0,
	};

#ifdef DPR_BENCH_POPTRIE
	fc.algorithm = poptrie ? DPR_FIB_POPTRIE : DPR_FIB_DIR24_8;
#else
	if (poptrie)
		return NULL;
#endif
	return dpr_fib4_create(&fc, NULL);
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

/* In batches of BATCH through dpr_fib4_update(), as route.load does. */
static unsigned int
dpr_apply(void *t, const void *routes, unsigned int n, bool del)
{
	static struct dpr_fib4_op ops[1 << 16];
	const struct route4 *r = routes;
	unsigned int i, m, done = 0;
	int err = 0;

	while (done < n) {
		m = RTE_MIN(RTE_MIN(n - done, batch), (unsigned int)RTE_DIM(ops));
		for (i = 0; i < m; i++)
			ops[i] = (struct dpr_fib4_op){ .ip = r[done + i].ip,
						       .depth = r[done + i].depth,
						       .del = del, .nh = r[done + i].nh };
		i = dpr_fib4_update(t, ops, m, &err);
		done += i;
		if (i < m)
			return n - done; /* the rest is not tried */
	}
	return 0;
}

static uint32_t
dpr_lookup(void *t, const void *keys, unsigned int n, uint32_t *out)
{
	const uint32_t *ip = keys;
	uint32_t nh[BENCH_BURST], sink = 0, *o;
	unsigned int i;

	for (i = 0; i < n; i += BENCH_BURST) {
		o = out != NULL ? &out[i] : nh;
		dpr_fib4_lookup_bulk(t, &ip[i], o, BENCH_BURST);
		sink += o[0];
	}
	return sink;
}

static uint64_t
dpr_memory(void *t)
{
	return dpr_fib4_memory(t);
}

static void
dpr_destroy(void *t)
{
	dpr_fib4_free(t);
}

/* --- rte_lpm ---------------------------------------------------------- */

static void *
lpm_create(unsigned int n_routes, uint32_t groups)
{
	struct rte_lpm_config c = { .max_rules = n_routes + 1024, .number_tbl8s = groups };

	return rte_lpm_create("bench_lpm", 0, &c);
}

static unsigned int
lpm_apply(void *t, const void *routes, unsigned int n, bool del)
{
	const struct route4 *r = routes;
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++)
		failed += (del ? rte_lpm_delete(t, r[i].ip, r[i].depth) :
			   rte_lpm_add(t, r[i].ip, r[i].depth, r[i].nh)) < 0;
	return failed;
}

static uint32_t
lpm_lookup(void *t, const void *keys, unsigned int n, uint32_t *out)
{
	const uint32_t *ip = keys;
	uint32_t nh[BENCH_BURST], sink = 0, *o;
	unsigned int i, k;

	for (i = 0; i < n; i += BENCH_BURST) {
		o = out != NULL ? &out[i] : nh;
		rte_lpm_lookup_bulk(t, &ip[i], o, BENCH_BURST);
		sink += o[0];
	}
	if (out != NULL)
		for (k = 0; k < n; k++)
			out[k] = out[k] & RTE_LPM_LOOKUP_SUCCESS ? out[k] & 0xffffff : DPR_NH_NONE;
	return sink;
}

static void
lpm_destroy(void *t)
{
	rte_lpm_free(t);
}

/* --- the run ---------------------------------------------------------- */

static const struct bench_table tables[] = {
	{ "dpr_dir24_8", dir_create, dpr_apply, dpr_lookup, dpr_memory, dpr_destroy, true },
#ifdef DPR_BENCH_POPTRIE
	{ "dpr_poptrie", pt_create, dpr_apply, dpr_lookup, dpr_memory, dpr_destroy, false },
#endif
	{ "rte_lpm", lpm_create, lpm_apply, lpm_lookup, NULL, lpm_destroy, true },
};

static const struct bench_goal goals[] = {
	{ "Poptrie / DIR-24-8, uniformly random keys over a full table (goal >= 2)",
	  "dpr_poptrie", "dpr_dir24_8", "uniform", 2.0 },
	{ "Poptrie / DIR-24-8, cached keys (goal: within 5 %, >= 0.95)",
	  "dpr_poptrie", "dpr_dir24_8", "cached", 0.95 },
};

static void
usage(void)
{
	fprintf(stderr, "usage: dpr-fib-bench [EAL] -- ROUTES.txt [BATCH] [-k NAME=PCAP]... "
		"[-r ROUNDS] [-u CHANGES] [-U UPDATE_BATCH] [-n UNIFORM_KEYS]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct bench_spec s = { .family = 4, .route_size = sizeof(struct route4),
				.key_size = 4, .groups = DPR_DEFAULT_IP4_TBL8,
				.max_groups = 1u << 20, .update_batch = 1000,
				.changes = 20000, .rounds = 5, .lookups = 1u << 22 };
	struct bench_keyset ks[BENCH_MAX_KEYSETS];
	struct bench_result res[RTE_DIM(tables)];
	unsigned int n = 0, cap = 1 << 22, nk = 1, n_uniform = 1u << 22, i;
	struct route4 *routes;
	uint32_t *uniform;
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
			if (s.file == NULL)
				s.file = argv[a];
			else
				batch = (unsigned int)atoi(argv[a]);
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
			ks[nk].keys = bench_pcap_keys(eq + 1, 0x0800, &ks[nk].n);
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
	if (s.file == NULL || batch == 0 || s.update_batch == 0 || s.rounds == 0 ||
	    s.rounds > BENCH_MAX_ROUNDS || n_uniform == 0)
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
		if (dpr_prefix_parse(line, false, &p, NULL, 0) < 0 || p.addr.af != DPR_AF_IP4)
			continue;
		routes[n++] = (struct route4){ .ip = p.addr.ip4, .depth = p.len,
					       .nh = DPR_NH_FIRST_DYNAMIC +
						     (uint32_t)(rte_rand() % 4) };
	}
	fclose(f);
	if (n == 0) {
		fprintf(stderr, "%s: no IPv4 routes\n", s.file);
		return 1;
	}
	s.routes = routes;
	s.n_routes = n;

	if (bench_build(&s, tables, RTE_DIM(tables), res) < 0)
		return 1;

	/* Random addresses the table answers for (DIR-24-8 says which). */
	for (i = 0; i < n_uniform;) {
		uint32_t ip = (uint32_t)rte_rand();

		if (dpr_fib4_lookup(res[0].t, ip) != DPR_NH_NONE)
			uniform[i++] = ip;
	}
	snprintf(ks[0].name, sizeof(ks[0].name), "uniform");
	snprintf(ks[0].source, sizeof(ks[0].source),
		 "random 32-bit addresses that some route covers");
	ks[0].keys = uniform;
	ks[0].n = n_uniform;

	bench_lookups(&s, tables, RTE_DIM(tables), res, ks, nk);
	bench_print(&s, tables, RTE_DIM(tables), res, ks, nk, goals, RTE_DIM(goals),
#ifdef DPR_BENCH_POPTRIE
		    NULL
#else
		    "dpr_poptrie: this dpr has no Poptrie (struct dpr_fib4_conf has no algorithm)"
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
