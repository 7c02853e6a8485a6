/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The FIB micro-benchmarks' driver (fib_bench.c for IPv4, fib6_bench.c for
 * IPv6): no I/O, one route file loaded into each table under test, then for
 * each table the load rate, the memory, an update rate, and lookups a second
 * in bursts of BENCH_BURST on the same key sets. A program gives its tables
 * as struct bench_table hooks and its key sets; routes and keys are the
 * family's own (the driver copies them as bytes of the sizes it is told).
 *
 * Lookups run in interleaved rounds: each round times every table once on
 * every key set, the order of the tables turning from round to round, each
 * timed pass after an untimed one over the same keys (the table's lines as a
 * forwarding worker holds them after its first packets). The figures are the
 * medians over the rounds, and each ratio is the median of the per-round
 * ratios (DESIGN.md, Benchmarks: these machines vary 1.5-2.5x run to run).
 * Every table must give the first table's answer for every key.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#define BENCH_BURST 32
#define BENCH_MAX_TABLES 4
#define BENCH_MAX_KEYSETS 8
#define BENCH_MAX_ROUNDS 64

/* One table under test. */
struct bench_table {
	const char *name;
	/* @groups: tbl8 groups, for tables that have them (doubled until the
	 * load fits, up to bench_spec.max_groups). */
	void *(*create)(unsigned int n_routes, uint32_t groups);
	/* Add or delete routes[0..n); returns how many failed. */
	unsigned int (*apply)(void *t, const void *routes, unsigned int n, bool del);
	/* Look up keys[0..n) (n a multiple of BENCH_BURST) in bursts; with
	 * @out, each answer into it (the next hop, 0 for none); returns a
	 * value that depends on the answers. */
	uint32_t (*lookup)(void *t, const void *keys, unsigned int n, uint32_t *out);
	uint64_t (*memory)(void *t);   /* NULL: the DPDK heap it took */
	void (*destroy)(void *t);
	bool has_groups;
};

struct bench_keyset {
	char name[32];
	const void *keys;
	unsigned int n;                /* a multiple of BENCH_BURST */
	char source[256];
};

/* A run: what the program read and its options. */
struct bench_spec {
	int family;
	const char *file;
	const void *routes;
	unsigned int n_routes;
	size_t route_size;
	size_t key_size;
	uint32_t groups, max_groups;
	unsigned int load_batch;       /* dpr's, for the output */
	unsigned int update_batch;
	unsigned int changes;          /* deleted and added again: changes / 2 routes */
	unsigned int rounds;
	unsigned int lookups;          /* at least this many a timed pass */
	int ref;                       /* the DPDK table the ratios compare with */
};

struct bench_result {
	void *t;
	double load_s, add_cycles, del_cycles, readd_cycles, updates_per_s;
	double memory_mib, heap_mib;
	uint32_t groups;
	unsigned int failed;
	uint64_t mismatches;
	double mps[BENCH_MAX_KEYSETS][BENCH_MAX_ROUNDS];
};

/* A goal: table a over table b on one key set, median of the round ratios;
 * bound 0: a ratio to print, no goal. */
struct bench_goal {
	const char *label;
	const char *a, *b, *keyset;
	double bound;
};

static inline double
bench_now(void)
{
	return (double)rte_get_tsc_cycles() / (double)rte_get_tsc_hz();
}

static int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @p v[0..n), n > 0. */
static inline double
bench_median(const double *v, unsigned int n)
{
	double s[BENCH_MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), bench_cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static size_t
bench_heap_used(void)
{
	struct rte_malloc_socket_stats s;

	rte_malloc_get_socket_stats(0, &s);
	return s.heap_allocsz_bytes;
}

/*
 * The destinations of @p path's frames of one family (@p ethertype 0x0800:
 * 4-byte keys in host order; 0x86dd: 16-byte keys as on the wire), in packet
 * order, into a malloc'd array of a multiple of BENCH_BURST keys (the tail
 * dropped); *@p n their number. scripts/make-pcap.py writes the files. NULL
 * (with a message) when the file is not a little-endian pcap or holds fewer
 * than BENCH_BURST such frames.
 */
static void *
bench_pcap_keys(const char *path, uint16_t ethertype, unsigned int *n)
{
	size_t ksz = ethertype == 0x0800 ? 4 : 16, cap = 1 << 16;
	unsigned int dst_off = ethertype == 0x0800 ? 14 + 16 : 14 + 24;
	uint8_t hdr[24], rec[16], frame[256];
	uint8_t *keys = malloc(cap * ksz), *grown;
	uint32_t magic, caplen;
	FILE *f = fopen(path, "rb");

	*n = 0;
	if (f == NULL || keys == NULL || fread(hdr, sizeof(hdr), 1, f) != 1) {
		fprintf(stderr, "%s: cannot read a pcap header\n", path);
		goto fail;
	}
	memcpy(&magic, hdr, 4);
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
		fprintf(stderr, "%s: not a little-endian pcap file\n", path);
		goto fail;
	}
	while (fread(rec, sizeof(rec), 1, f) == 1) {
		memcpy(&caplen, rec + 8, 4);
		if (caplen > sizeof(frame)) {
			if (fseek(f, caplen, SEEK_CUR) != 0)
				break;
			continue;
		}
		if (fread(frame, 1, caplen, f) != caplen)
			break;
		if (caplen < dst_off + ksz || (frame[12] << 8 | frame[13]) != ethertype)
			continue;
		if (*n == cap) {
			grown = realloc(keys, 2 * cap * ksz);
			if (grown == NULL)
				goto fail;
			keys = grown;
			cap *= 2;
		}
		if (ksz == 4) {
			uint32_t be;

			memcpy(&be, frame + dst_off, 4);
			((uint32_t *)keys)[*n] = rte_be_to_cpu_32(be);
		} else {
			memcpy(keys + (size_t)*n * 16, frame + dst_off, 16);
		}
		(*n)++;
	}
	fclose(f);
	*n -= *n % BENCH_BURST;
	if (*n == 0) {
		fprintf(stderr, "%s: fewer than %u IPv%c frames\n", path, BENCH_BURST,
			ksz == 4 ? '4' : '6');
		free(keys);
		return NULL;
	}
	return keys;
fail:
	if (f != NULL)
		fclose(f);
	free(keys);
	*n = 0;
	return NULL;
}

/*
 * Create each table and load the routes (in one apply: dpr's hooks split it
 * into batches of load_batch, as route.load does), then time the updates:
 * changes / 2 random routes, in batches of update_batch, each batch deleted
 * and added again. Returns 0, or -1 when a table cannot be made.
 */
static int
bench_build(const struct bench_spec *s, const struct bench_table *tabs, unsigned int nt,
	    struct bench_result *res)
{
	unsigned int m = RTE_MIN(s->changes / 2, s->n_routes), i, k, b;
	uint8_t *picked = malloc((size_t)RTE_MAX(m, 1u) * s->route_size);
	unsigned int *idx = malloc(s->n_routes * sizeof(*idx));
	uint64_t c0, c_del, c_add;

	if (picked == NULL || idx == NULL)
		return -1;
	for (i = 0; i < s->n_routes; i++)
		idx[i] = i;
	for (i = 0; i < m; i++) {
		k = i + (unsigned int)(rte_rand() % (s->n_routes - i));
		RTE_SWAP(idx[i], idx[k]);
		memcpy(picked + (size_t)i * s->route_size,
		       (const uint8_t *)s->routes + (size_t)idx[i] * s->route_size, s->route_size);
	}
	for (i = 0; i < nt; i++) {
		struct bench_result *r = &res[i];
		uint32_t groups = s->groups;
		size_t heap0 = bench_heap_used();

		memset(r, 0, sizeof(*r));
		for (;;) {
			r->t = tabs[i].create(s->n_routes, groups);
			if (r->t == NULL) {
				fprintf(stderr, "%s: cannot create%s\n", tabs[i].name,
					tabs[i].has_groups ? " (tbl8 groups)" : "");
				free(picked);
				free(idx);
				return -1;
			}
			c0 = rte_get_tsc_cycles();
			r->failed = tabs[i].apply(r->t, s->routes, s->n_routes, false);
			c0 = rte_get_tsc_cycles() - c0;
			if (r->failed == 0 || !tabs[i].has_groups || groups >= s->max_groups)
				break;
			tabs[i].destroy(r->t);
			groups *= 2;
		}
		r->groups = tabs[i].has_groups ? groups : 0;
		r->load_s = (double)c0 / (double)rte_get_tsc_hz();
		r->add_cycles = (double)c0 / s->n_routes;
		r->heap_mib = (double)(bench_heap_used() - heap0) / (1 << 20);
		r->memory_mib = tabs[i].memory != NULL ?
			(double)tabs[i].memory(r->t) / (1 << 20) : r->heap_mib;

		c_del = c_add = 0;
		for (b = 0; b < m; b += s->update_batch) {
			unsigned int nb = RTE_MIN(s->update_batch, m - b);
			const uint8_t *batch = picked + (size_t)b * s->route_size;

			c0 = rte_get_tsc_cycles();
			tabs[i].apply(r->t, batch, nb, true);
			c_del += rte_get_tsc_cycles() - c0;
			c0 = rte_get_tsc_cycles();
			tabs[i].apply(r->t, batch, nb, false);
			c_add += rte_get_tsc_cycles() - c0;
		}
		if (m > 0) {
			r->del_cycles = (double)c_del / m;
			r->readd_cycles = (double)c_add / m;
			r->updates_per_s = 2.0 * m * (double)rte_get_tsc_hz() / (double)(c_del + c_add);
		}
	}
	free(picked);
	free(idx);
	return 0;
}

/* One timed pass of table @p t over key set @p ks: at least s->lookups
 * lookups, whole passes over the keys; M lookups a second. */
static double
bench_pass(const struct bench_spec *s, const struct bench_table *t, void *tab,
	   const struct bench_keyset *ks, volatile uint32_t *sink)
{
	unsigned int reps = (s->lookups + ks->n - 1) / ks->n, r;
	uint64_t c0;

	*sink += t->lookup(tab, ks->keys, ks->n, NULL);   /* untimed: warm */
	c0 = rte_get_tsc_cycles();
	for (r = 0; r < reps; r++)
		*sink += t->lookup(tab, ks->keys, ks->n, NULL);
	c0 = rte_get_tsc_cycles() - c0;
	return (double)reps * ks->n / ((double)c0 / (double)rte_get_tsc_hz()) / 1e6;
}

/* Check every table against the first on every key, then the rounds. */
static void
bench_lookups(const struct bench_spec *s, const struct bench_table *tabs, unsigned int nt,
	      struct bench_result *res, const struct bench_keyset *ks, unsigned int nk)
{
	volatile uint32_t sink = 0;
	unsigned int i, k, r, j, n_max = 0;
	uint32_t *want, *got;

	for (k = 0; k < nk; k++)
		n_max = RTE_MAX(n_max, ks[k].n);
	want = malloc((size_t)n_max * sizeof(*want));
	got = malloc((size_t)n_max * sizeof(*got));
	if (want == NULL || got == NULL) {
		fprintf(stderr, "no memory for the answers\n");
		exit(1);
	}
	for (k = 0; k < nk; k++) {
		tabs[0].lookup(res[0].t, ks[k].keys, ks[k].n, want);
		for (i = 1; i < nt; i++) {
			tabs[i].lookup(res[i].t, ks[k].keys, ks[k].n, got);
			for (j = 0; j < ks[k].n; j++)
				res[i].mismatches += got[j] != want[j];
		}
	}
	free(want);
	free(got);
	for (r = 0; r < s->rounds; r++)
		for (k = 0; k < nk; k++)
			for (j = 0; j < nt; j++) {
				i = (j + r) % nt;
				res[i].mps[k][r] = bench_pass(s, &tabs[i], res[i].t, &ks[k], &sink);
			}
}

static int
bench_table_index(const struct bench_table *tabs, unsigned int nt, const char *name)
{
	unsigned int i;

	for (i = 0; i < nt; i++)
		if (strcmp(tabs[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The median over the rounds of table a's rate over table b's, or 0. */
static double
bench_round_ratio(const struct bench_spec *s, const struct bench_result *a,
		  const struct bench_result *b, unsigned int k)
{
	double q[BENCH_MAX_ROUNDS];
	unsigned int r;

	for (r = 0; r < s->rounds; r++)
		q[r] = b->mps[k][r] > 0 ? a->mps[k][r] / b->mps[k][r] : 0;
	return bench_median(q, s->rounds);
}

/* The whole run as one JSON object; @missing: a note on tables left out. */
static void
bench_print(const struct bench_spec *s, const struct bench_table *tabs, unsigned int nt,
	    const struct bench_result *res, const struct bench_keyset *ks, unsigned int nk,
	    const struct bench_goal *goals, unsigned int ng, const char *missing)
{
	unsigned int i, k, r;

	printf("{\"family\": %d, \"file\": \"%s\", \"routes\": %u, \"burst\": %u, "
	       "\"rounds\": %u, \"lookups_per_pass\": %u, \"load_batch\": %u, "
	       "\"update_batch\": %u, \"changes\": %u,\n \"key_sets\": {",
	       s->family, s->file, s->n_routes, BENCH_BURST, s->rounds, s->lookups,
	       s->load_batch, s->update_batch, 2 * RTE_MIN(s->changes / 2, s->n_routes));
	for (k = 0; k < nk; k++)
		printf("%s\"%s\": {\"keys\": %u, \"source\": \"%s\"}", k ? ", " : "",
		       ks[k].name, ks[k].n, ks[k].source);
	printf("},\n \"tables\": {\n");
	for (i = 0; i < nt; i++) {
		const struct bench_result *x = &res[i];

		printf("  \"%s\": {\"load_seconds\": %.3f, \"load_routes_per_second\": %.0f, "
		       "\"add_cycles\": %.0f, \"delete_cycles\": %.0f, \"readd_cycles\": %.0f, "
		       "\"updates_per_second\": %.0f, \"memory_mib\": %.1f, \"heap_mib\": %.1f, ",
		       tabs[i].name, x->load_s, x->load_s > 0 ? s->n_routes / x->load_s : 0,
		       x->add_cycles, x->del_cycles, x->readd_cycles, x->updates_per_s,
		       x->memory_mib, x->heap_mib);
		if (tabs[i].has_groups)
			printf("\"tbl8_groups\": %u, ", x->groups);
		printf("\"failed_adds\": %u, \"lookup_mismatches\": %" PRIu64 ",\n"
		       "    \"mlookups_per_second\": {", x->failed, x->mismatches);
		for (k = 0; k < nk; k++)
			printf("%s\"%s\": %.1f", k ? ", " : "", ks[k].name,
			       bench_median(x->mps[k], s->rounds));
		printf("},\n    \"mlookups_per_second_rounds\": {");
		for (k = 0; k < nk; k++) {
			printf("%s\"%s\": [", k ? ", " : "", ks[k].name);
			for (r = 0; r < s->rounds; r++)
				printf("%s%.1f", r ? ", " : "", x->mps[k][r]);
			printf("]");
		}
		printf("}}%s\n", i + 1 < nt ? "," : "");
	}
	printf(" },\n \"ratio_to_%s\": {", tabs[s->ref].name);
	for (i = 0, r = 0; i < nt; i++) {
		if ((int)i == s->ref)
			continue;
		printf("%s\"%s\": {", r++ ? ", " : "", tabs[i].name);
		for (k = 0; k < nk; k++)
			printf("%s\"%s\": %.3f", k ? ", " : "", ks[k].name,
			       bench_round_ratio(s, &res[i], &res[s->ref], k));
		printf("}");
	}
	printf("},\n \"goals\": [");
	for (i = 0, r = 0; i < ng; i++) {
		int a = bench_table_index(tabs, nt, goals[i].a);
		int b = bench_table_index(tabs, nt, goals[i].b);
		double q;

		for (k = 0; k < nk && strcmp(ks[k].name, goals[i].keyset) != 0; k++)
			;
		if (a < 0 || b < 0 || k == nk)
			continue;
		q = bench_round_ratio(s, &res[a], &res[b], k);
		printf("%s\n  {\"goal\": \"%s\", \"ratio\": %.3f, ", r++ ? "," : "",
		       goals[i].label, q);
		if (goals[i].bound > 0)
			printf("\"bound\": %.2f, \"met\": %s}", goals[i].bound,
			       q >= goals[i].bound ? "true" : "false");
		else
			printf("\"bound\": null, \"met\": null}");
	}
	printf("]%s%s%s\n}\n", missing ? ",\n \"missing\": \"" : "", missing ? missing : "",
	       missing ? "\"" : "");
}
