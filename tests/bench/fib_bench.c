/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB micro-benchmark: load a route file ("PREFIX via GATEWAY" lines, as
 * scripts/pyasn-routes.py writes) into dpr's DIR-24-8 with the default
 * sizes, then measure the update rate, dpr_fib4_lookup_bulk() lookups per
 * second on random addresses drawn from the table (bursts of 32), the tbl8
 * groups used and the memory the FIB holds, before and after one
 * route.list-style walk builds its snapshot. Prints JSON.
 *
 *   dpr-fib-bench [EAL] -- ROUTES.txt [BATCH]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "config/config.h"
#include "fib/fib.h"
#include "util/addr.h"

#define LOOKUPS (1u << 24)
#define BURST 32

static double
now(void)
{
	return (double)rte_get_tsc_cycles() / (double)rte_get_tsc_hz();
}

int
main(int argc, char **argv)
{
	struct dpr_fib4_conf fc = { .max_routes = DPR_DEFAULT_IP4_MAX_ROUTES,
				    .tbl8_groups = DPR_DEFAULT_IP4_TBL8, .socket = 0 };
	struct dpr_fib4_route page[1024], cur, *after = NULL;
	uint64_t mem_tables;
	uint32_t tbl8_used;
	bool more = true;
	int got;
	struct dpr_fib4_op *ops;
	struct dpr_fib4 *fib;
	unsigned int n = 0, cap = 1 << 20, batch = 20000, i, done;
	uint32_t *addrs, ips[BURST], nh[BURST];
	uint64_t sink = 0, t0c;
	double t0, t_load, t_upd, t_lookup;
	char line[256];
	FILE *f;
	int ret, err;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc < 2) {
		fprintf(stderr, "usage: dpr-fib-bench [EAL] -- ROUTES.txt [BATCH]\n");
		return 2;
	}
	if (argc > 2)
		batch = (unsigned int)atoi(argv[2]);
	f = fopen(argv[1], "r");
	ops = calloc(cap, sizeof(*ops));
	if (f == NULL || ops == NULL) {
		perror(argv[1]);
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
		ops[n++] = (struct dpr_fib4_op){ .ip = p.addr.ip4, .depth = p.len,
						 .nh = 2 + (uint32_t)(rte_rand() % 4) };
	}
	fclose(f);

	fib = dpr_fib4_create(&fc, NULL);
	if (fib == NULL)
		return 1;

	/* Load, in batches as route.load applies them. */
	t0 = now();
	for (i = 0; i < n; i += batch) {
		done = dpr_fib4_update(fib, &ops[i], RTE_MIN(batch, n - i), &err);
		if (done < RTE_MIN(batch, n - i)) {
			fprintf(stderr, "load failed at %u: %s\n", i + done, strerror(-err));
			return 1;
		}
	}
	t_load = now() - t0;
	tbl8_used = dpr_fib4_tbl8_used(fib);

	/* Updates: delete and re-add the last 100k routes, twice. */
	t0 = now();
	{
		unsigned int m = RTE_MIN(n, 100000u), k, r;

		for (r = 0; r < 2; r++) {
			for (k = n - m; k < n; k++)
				ops[k].del = 1;
			for (k = n - m; k < n; k += batch)
				dpr_fib4_update(fib, &ops[k], RTE_MIN(batch, n - k), &err);
			for (k = n - m; k < n; k++)
				ops[k].del = 0;
			for (k = n - m; k < n; k += batch)
				dpr_fib4_update(fib, &ops[k], RTE_MIN(batch, n - k), &err);
		}
		t_upd = (now() - t0) / (4.0 * m);
	}

	/* Lookups: random hosts inside random prefixes of the table. */
	addrs = malloc(LOOKUPS * sizeof(*addrs));
	for (i = 0; i < LOOKUPS; i++) {
		const struct dpr_fib4_op *o = &ops[rte_rand() % n];

		addrs[i] = o->ip | ((uint32_t)rte_rand() & ~dpr_ip4_mask(o->depth));
	}
	t0c = rte_get_tsc_cycles();
	t0 = now();
	for (i = 0; i < LOOKUPS; i += BURST) {
		memcpy(ips, &addrs[i], sizeof(ips));
		dpr_fib4_lookup_bulk(fib, ips, nh, BURST);
		sink += nh[0];
	}
	t_lookup = now() - t0;
	t0c = rte_get_tsc_cycles() - t0c;

	/* Memory without, then with the snapshot route.list keeps. */
	mem_tables = dpr_fib4_memory(fib);
	while (more && (got = dpr_fib4_list(fib, after, page, RTE_DIM(page), &more)) > 0) {
		cur = page[got - 1];
		after = &cur;
	}

	printf("{\"routes\": %u, \"load_seconds\": %.3f, \"load_routes_per_second\": %.0f, "
	       "\"update_us\": %.3f, \"updates_per_second\": %.0f, "
	       "\"lookups_per_second\": %.0f, \"lookup_cycles\": %.1f, "
	       "\"tbl8_groups_used\": %u, \"memory_mib\": %.1f, \"memory_mib_with_list\": %.1f, "
	       "\"tbl8_groups\": %u, \"max_routes\": %u, \"sink\": %" PRIu64 "}\n",
	       n, t_load, n / t_load, t_upd * 1e6, 1.0 / t_upd, LOOKUPS / t_lookup,
	       (double)t0c / LOOKUPS, tbl8_used, (double)mem_tables / (1 << 20),
	       (double)dpr_fib4_memory(fib) / (1 << 20), fc.tbl8_groups, fc.max_routes,
	       sink % 2);
	dpr_fib4_free(fib);
	free(addrs);
	free(ops);
	rte_eal_cleanup();
	return 0;
}
