/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 FIB, on each of its algorithms (DIR-24-8 and Poptrie): changes
 * reach lookups, failures are partial and reported, next-hop references
 * follow routes, random churn agrees with a plain reference (and Poptrie
 * with its own self-check), and a reader that keeps looking up under RCU
 * never sees a wrong answer while routes churn. DIR-24-8's tbl8 groups come
 * back when their long prefixes go, and run out with -ENOSPC.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include "fib/fib.h"
#include "fib/poptrie.h"
#include "nexthop/nexthop.h"
#include "route/route.h"
#include "test.h"
#include "test_algo.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static struct dpr_fib4 *
create(enum dpr_fib_algo algo, uint32_t max_routes, uint32_t groups, struct rte_rcu_qsbr *qsbr)
{
	struct dpr_fib4_conf fc = { .algorithm = algo, .max_routes = max_routes,
				    .tbl8_groups = groups, .socket = 0 };
	struct dpr_fib4 *fib = dpr_fib4_create(&fc, qsbr);

	CHECK(fib != NULL, "create %s: %s", dpr_fib_algo_name(algo), strerror(errno));
	return fib;
}

/* Whether @p fib has tbl24 and tbl8 groups (what some checks are about). */
static bool
dir24(const struct dpr_fib4 *fib)
{
	return fib->conf.algorithm == DPR_FIB_DIR24_8;
}

static uint32_t
lookup(struct dpr_fib4 *fib, uint32_t ip)
{
	uint32_t nh = UINT32_MAX;

	dpr_fib4_lookup_bulk(fib, &ip, &nh, 1);
	CHECK_EQ(nh, dpr_fib4_lookup(fib, ip));
	return nh;
}

static void
test_update(struct dpr_fib4 *fib)
{
	struct dpr_fib4_op ops[4] = {
		{ .ip = IP(10, 0, 0, 0), .depth = 8, .nh = 5 },
		{ .ip = IP(10, 1, 0, 0), .depth = 16, .nh = 6 },
		{ .ip = IP(10, 1, 2, 128), .depth = 25, .nh = 7 },
	};
	uint32_t nh, prefix;
	uint8_t depth;
	int err;

	CHECK_EQ(dpr_fib4_update(fib, ops, 3, &err), 3);
	CHECK_EQ(err, 0);
	CHECK_EQ(fib->n_routes, 3);
	CHECK_EQ(lookup(fib, IP(10, 9, 9, 9)), 5);
	CHECK_EQ(lookup(fib, IP(10, 1, 2, 3)), 6);
	CHECK_EQ(lookup(fib, IP(10, 1, 2, 200)), 7);
	CHECK_EQ(lookup(fib, IP(11, 0, 0, 1)), DPR_NH_NONE);
	CHECK_EQ(dpr_fib4_lpm(fib, IP(10, 1, 2, 200), &prefix, &depth, &nh), 0);
	CHECK(prefix == IP(10, 1, 2, 128) && depth == 25 && nh == 7, "lpm");

	/* Replace, delete, then a delete of a missing route stops the batch. */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(10, 0, 0, 0), .depth = 8, .nh = 8 };
	ops[1] = (struct dpr_fib4_op){ .ip = IP(10, 1, 2, 128), .depth = 25, .del = 1 };
	ops[2] = (struct dpr_fib4_op){ .ip = IP(172, 16, 0, 0), .depth = 12, .del = 1 };
	ops[3] = (struct dpr_fib4_op){ .ip = IP(172, 16, 0, 0), .depth = 12, .nh = 9 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 4, &err), 2);
	CHECK_EQ(err, -ENOENT);
	CHECK(ops[0].existed && ops[0].old_nh == 5, "replace reports the old next hop");
	CHECK(ops[1].existed && ops[1].old_nh == 7, "delete reports the old next hop");
	CHECK_EQ(fib->n_routes, 2);
	CHECK_EQ(lookup(fib, IP(10, 9, 9, 9)), 8);
	CHECK_EQ(lookup(fib, IP(10, 1, 2, 200)), 6);
	CHECK_EQ(lookup(fib, IP(172, 16, 0, 1)), DPR_NH_NONE);
	CHECK_EQ(dpr_fib4_get(fib, IP(10, 1, 2, 128), 25, &nh), -ENOENT);
	CHECK_EQ(dpr_fib4_lpm(fib, IP(172, 16, 0, 1), &prefix, &depth, &nh), -ENOENT);
	/* The /25 went, and with it the only tbl8 group (none with Poptrie). */
	CHECK_EQ(dpr_fib4_tbl8_used(fib), 0);

	/* Bad ops stop the batch before they change anything. */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 33, .nh = 3 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 24, .nh = 1u << 24 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 33, .del = 1 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	CHECK_EQ(fib->n_routes, 2);
	CHECK_EQ(lookup(fib, IP(192, 0, 2, 1)), DPR_NH_NONE);
	/* The largest next hop index there is fits either way. */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 24, .nh = DPR_NH_MAX - 1 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup(fib, IP(192, 0, 2, 1)), DPR_NH_MAX - 1);
	ops[0].del = 1;
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 1);
	CHECK_EQ(fib->n_routes, 2);

	/* A default route answers what nothing else does, and goes again. */
	ops[0] = (struct dpr_fib4_op){ .ip = 0, .depth = 0, .nh = 4 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup(fib, IP(172, 16, 0, 1)), 4);
	CHECK_EQ(lookup(fib, IP(255, 255, 255, 255)), 4);
	CHECK_EQ(lookup(fib, IP(10, 1, 2, 200)), 6);
	CHECK_EQ(dpr_fib4_lpm(fib, IP(172, 16, 0, 1), &prefix, &depth, &nh), 0);
	CHECK(prefix == 0 && depth == 0 && nh == 4, "lpm of the default route");
	ops[0].del = 1;
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup(fib, IP(172, 16, 0, 1)), DPR_NH_NONE);
	CHECK_EQ(lookup(fib, IP(10, 9, 9, 9)), 8);
}

/*
 * The limits: tbl8 groups (-ENOSPC, DIR-24-8 only: Poptrie has none, and
 * takes every route), then fib.ipv4_max_routes routes (-ENOMEM, both).
 */
static void
test_limits(enum dpr_fib_algo algo)
{
	struct dpr_fib4 *fib = create(algo, 20, 4, NULL);
	struct dpr_fib4_op ops[24];
	unsigned int i;
	uint32_t nh;
	int err;

	if (fib == NULL)
		return;
	/* Five /32s in five /24 blocks: with DIR-24-8 the fifth finds no group. */
	for (i = 0; i < 5; i++)
		ops[i] = (struct dpr_fib4_op){ .ip = IP(192, 0, i, 1), .depth = 32, .nh = 2 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 5, &err), dir24(fib) ? 4 : 5);
	CHECK_EQ(err, dir24(fib) ? -ENOSPC : 0);
	CHECK_EQ(dpr_fib4_tbl8_used(fib), dir24(fib) ? 4 : 0);
	CHECK_EQ(lookup(fib, IP(192, 0, 4, 1)), dir24(fib) ? DPR_NH_NONE : 2);
	/* Another /25-/32 in a block that has a group still fits. */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 3, 128), .depth = 25, .nh = 3 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup(fib, IP(192, 0, 3, 200)), 3);
	/* Deleting one block's routes and adding another block's in the same
	 * batch reuses the group: the batch waits for it. (With Poptrie the
	 * add replaces the /32 that went in above.) */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 0, 1), .depth = 32, .del = 1 };
	ops[1] = (struct dpr_fib4_op){ .ip = IP(192, 0, 4, 1), .depth = 32, .nh = 2 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 2, &err), 2);
	CHECK_EQ(ops[1].existed, !dir24(fib));
	CHECK_EQ(lookup(fib, IP(192, 0, 4, 1)), 2);
	CHECK_EQ(lookup(fib, IP(192, 0, 0, 1)), DPR_NH_NONE);
	CHECK_EQ(dpr_fib4_tbl8_used(fib), dir24(fib) ? 4 : 0);
	CHECK_EQ(fib->n_routes, 5);

	/* Up to max_routes /24s, then -ENOMEM; a replace still works. */
	for (i = 0; i < 20; i++)
		ops[i] = (struct dpr_fib4_op){ .ip = IP(10, 0, i, 0), .depth = 24, .nh = 5 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 20, &err), 15);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(fib->n_routes, 20);
	CHECK_EQ(lookup(fib, IP(10, 0, 14, 1)), 5);
	CHECK_EQ(lookup(fib, IP(10, 0, 15, 1)), DPR_NH_NONE);
	CHECK_EQ(dpr_fib4_get(fib, IP(10, 0, 15, 0), 24, &nh), -ENOENT);
	ops[0] = (struct dpr_fib4_op){ .ip = IP(10, 0, 0, 0), .depth = 24, .nh = 6 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 1);
	CHECK(ops[0].existed && ops[0].old_nh == 5, "replace at capacity");
	CHECK_EQ(lookup(fib, IP(10, 0, 0, 1)), 6);
	/* A delete makes room for one more, in the same batch. */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(10, 0, 1, 0), .depth = 24, .del = 1 };
	ops[1] = (struct dpr_fib4_op){ .ip = IP(10, 0, 15, 0), .depth = 24, .nh = 7 };
	ops[2] = (struct dpr_fib4_op){ .ip = IP(10, 0, 16, 0), .depth = 24, .nh = 7 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 3, &err), 2);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(lookup(fib, IP(10, 0, 1, 1)), DPR_NH_NONE);
	CHECK_EQ(lookup(fib, IP(10, 0, 15, 1)), 7);
	CHECK_EQ(lookup(fib, IP(10, 0, 16, 1)), DPR_NH_NONE);
	CHECK_EQ(fib->n_routes, 20);
	dpr_fib4_free(fib);
}

/* A long prefix with its covering route's next hop, added and deleted over
 * and over, must not use up tbl8 groups: each delete gives its group back.
 * DIR-24-8 only (its tbl8 groups). */
static void
test_tbl8_accounting(void)
{
	struct dpr_fib4 *fib = create(DPR_FIB_DIR24_8, 1024, 64, NULL);
	struct dpr_fib4_op op = { .ip = IP(192, 0, 2, 0), .depth = 24, .nh = 3 };
	unsigned int i, ok = 0;
	int err;

	dpr_fib4_update(fib, &op, 1, &err);
	for (i = 0; i < 200; i++) {
		op = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 16), .depth = 28, .nh = 3 };
		dpr_fib4_update(fib, &op, 1, &err);
		op.del = 1;
		dpr_fib4_update(fib, &op, 1, &err);
	}
	for (i = 0; i < 64; i++) {
		op = (struct dpr_fib4_op){ .ip = IP(10, 0, i, 16), .depth = 28, .nh = 4 };
		ok += dpr_fib4_update(fib, &op, 1, &err);
	}
	CHECK(ok == 64, "only %u of 64 long prefixes fit after churn: %s", ok, strerror(-err));
	CHECK_EQ(dpr_fib4_tbl8_used(fib), 64);
	CHECK_EQ(lookup(fib, IP(192, 0, 2, 17)), 3);
	CHECK_EQ(lookup(fib, IP(10, 0, 5, 17)), 4);
	dpr_fib4_free(fib);
}

static void
test_refcounts(struct dpr_fib4 *fib)
{
	struct dpr_nh_table *t = dpr_nh_table_create(0);
	struct dpr_ip gw = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 2) };
	struct rte_ether_addr mac = {{ 2, 0, 0, 0, 2, 2 }};
	struct dpr_fib4_op ops[2];
	uint32_t base = dpr_nh_count(t);
	int idx, err;

	idx = dpr_nh_get(t, &gw, 1);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "next hop allocated");
	CHECK_EQ(dpr_nh_word_get(t, (uint32_t)idx).kind, DPR_NH_KIND_UNRESOLVED);
	dpr_nh_resolve(t, (uint32_t)idx, 1, &mac, true);
	CHECK_EQ(dpr_nh_word_get(t, (uint32_t)idx).kind, DPR_NH_KIND_FORWARD);
	CHECK_EQ(dpr_nh_word_get(t, (uint32_t)idx).port, 1);
	CHECK_EQ(dpr_nh_get(t, &gw, 1), idx); /* second reference */

	ops[0] = (struct dpr_fib4_op){ .ip = IP(100, 0, 0, 0), .depth = 8, .nh = (uint32_t)idx };
	ops[1] = (struct dpr_fib4_op){ .ip = IP(101, 0, 0, 0), .depth = 8, .nh = (uint32_t)idx };
	CHECK_EQ(dpr_route4_apply(fib, t, ops, 2, &err), 2);
	CHECK_EQ(dpr_nh_info(t, (uint32_t)idx)->refcnt, 2);

	ops[0] = (struct dpr_fib4_op){ .ip = IP(100, 0, 0, 0), .depth = 8, .del = 1 };
	CHECK_EQ(dpr_route4_apply(fib, t, ops, 1, &err), 1);
	CHECK_EQ(dpr_nh_info(t, (uint32_t)idx)->refcnt, 1);
	ops[0] = (struct dpr_fib4_op){ .ip = IP(101, 0, 0, 0), .depth = 8, .del = 1 };
	CHECK_EQ(dpr_route4_apply(fib, t, ops, 1, &err), 1);
	CHECK(dpr_nh_info(t, (uint32_t)idx) == NULL, "next hop freed with its last route");
	CHECK_EQ(dpr_nh_count(t), base);
	CHECK_EQ(dpr_nh_find(t, &gw), -ENOENT);
	dpr_nh_table_free(t);
}

/* RCU: a reader online in the QSBR variable looks up a fixed address
 * while the writer churns thousands of other routes. */
struct reader {
	struct dpr_fib4 *fib;
	struct rte_rcu_qsbr *qsbr;
	volatile bool stop;
	uint64_t lookups;
	uint64_t wrong;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	uint32_t ips[32];
	uint32_t nh[32];
	unsigned int i;

	rte_rcu_qsbr_thread_register(r->qsbr, 0);
	rte_rcu_qsbr_thread_online(r->qsbr, 0);
	for (i = 0; i < 32; i++)
		ips[i] = IP(198, 51, 100, i);
	while (!r->stop) {
		dpr_fib4_lookup_bulk(r->fib, ips, nh, 32);
		for (i = 0; i < 32; i++)
			r->wrong += nh[i] != 42;
		r->lookups += 32;
		rte_rcu_qsbr_quiescent(r->qsbr, 0);
	}
	rte_rcu_qsbr_thread_offline(r->qsbr, 0);
	rte_rcu_qsbr_thread_unregister(r->qsbr, 0);
	return NULL;
}

static void
test_rcu_churn(enum dpr_fib_algo algo)
{
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), 64);
	struct dpr_fib4_op op = { .ip = IP(198, 51, 100, 0), .depth = 24, .nh = 42 };
	struct dpr_fib4_op *ops = calloc(1000, sizeof(*ops));
	struct reader r = { 0 };
	struct dpr_fib4 *fib = NULL;
	pthread_t th;
	unsigned int round, i;
	int err;

	rte_rcu_qsbr_init(qsbr, 1);
	fib = create(algo, 1 << 16, 4096, qsbr);
	if (fib == NULL)
		goto out;
	CHECK_EQ(dpr_fib4_update(fib, &op, 1, &err), 1);
	r.fib = fib;
	r.qsbr = qsbr;
	pthread_create(&th, NULL, reader_main, &r);
	for (round = 0; round < 40; round++) {
		unsigned int n = 0;

		if (round % 2 == 0) {
			/* Long prefixes use tbl8 groups, or Poptrie's nodes:
			 * the memory a reader would trip over without RCU. Some
			 * split the /24 the reader looks up, with the same next
			 * hop. */
			for (i = 0; i < 1000; i++) {
				uint32_t ip = (uint32_t)rte_rand();

				if (i % 100 == 0)
					ip = IP(198, 51, 100, 0) | (ip & 0xff);
				ops[n++] = (struct dpr_fib4_op){
					.ip = ip & dpr_ip4_mask(28), .depth = 28, .nh = 42,
				};
			}
		} else {
			/* Delete every /28 the last round added. */
			struct dpr_fib4_route page[64], cur, *last = NULL;
			bool more = true;
			int k, got;

			while (more && (got = dpr_fib4_list(fib, last, page, 64, &more)) > 0) {
				for (k = 0; k < got && n < 1000; k++)
					if (page[k].depth == 28)
						ops[n++] = (struct dpr_fib4_op){
							.ip = page[k].ip, .depth = 28, .del = 1,
						};
				cur = page[got - 1];
				last = &cur;
			}
		}
		i = dpr_fib4_update(fib, ops, n, &err);
		CHECK(i == n && err == 0, "round %u: %u of %u applied: %s", round, i, n,
		      strerror(-err));
	}
	CHECK_EQ(fib->n_routes, 1);
	CHECK_EQ(dpr_fib4_tbl8_used(fib), 0);
	r.stop = true;
	pthread_join(th, NULL);
	CHECK(r.lookups > 0, "reader ran");
	CHECK(r.wrong == 0, "%" PRIu64 " of %" PRIu64 " lookups saw a wrong next hop",
	      r.wrong, r.lookups);
out:
	dpr_fib4_free(fib);
	rte_free(qsbr);
	free(ops);
}

/* --- random churn against a plain reference ---------------------------- */

struct ref_rule {
	uint32_t ip;
	uint8_t depth;
	uint32_t nh;
};

struct ref {
	struct ref_rule r[4096];
	unsigned int n;
};

static unsigned int diff_bad;

/* Report the first few mismatches in full, count the rest. */
#define DIFF(cond, ...) do { \
		if (!(cond) && diff_bad++ < 5) \
			CHECK(cond, __VA_ARGS__); \
	} while (0)

static int
ref_find(const struct ref *ref, uint32_t ip, uint8_t depth)
{
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if (ref->r[i].ip == ip && ref->r[i].depth == depth)
			return (int)i;
	return -1;
}

/* Longest match by brute force; -1 when no rule covers @p ip. */
static int
ref_lpm(const struct ref *ref, uint32_t ip)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if ((ip & dpr_ip4_mask(ref->r[i].depth)) == ref->r[i].ip &&
		    (best < 0 || ref->r[i].depth > ref->r[best].depth))
			best = (int)i;
	return best;
}

/* /25-/32 land in 16 /24 blocks of each of these /16s, so that many of
 * them share a tbl8 group, and groups collapse and come back as they go. */
static const uint32_t hot16[] = {
	IP(10, 1, 0, 0), IP(10, 200, 0, 0), IP(172, 16, 0, 0), IP(192, 168, 0, 0),
};

static uint32_t
random_hot_addr(void)
{
	return hot16[rte_rand() % RTE_DIM(hot16)] | (uint32_t)(rte_rand() % 16) << 8 |
		(uint32_t)(rte_rand() & 0xff);
}

static uint32_t
random_addr(void)
{
	return rte_rand() % 2 ? random_hot_addr() : (uint32_t)rte_rand();
}

static void
random_prefix(uint32_t *ip, uint8_t *depth)
{
	unsigned int pick = (unsigned int)(rte_rand() % 1000);

	/* A /0 rewrites all of tbl24: a few are enough. */
	if (pick < 3)
		*depth = 0;
	else if (pick < 350)
		*depth = (uint8_t)(8 + rte_rand() % 17);
	else
		*depth = (uint8_t)(25 + rte_rand() % 8);
	*ip = (*depth > 24 ? random_hot_addr() : random_addr()) & dpr_ip4_mask(*depth);
}

static unsigned int
groups_needed(const struct ref *ref)
{
	uint32_t blocks[4096];
	unsigned int i, j, n = 0;

	for (i = 0; i < ref->n; i++) {
		if (ref->r[i].depth <= 24)
			continue;
		for (j = 0; j < n && blocks[j] != ref->r[i].ip >> 8; j++)
			;
		if (j == n)
			blocks[n++] = ref->r[i].ip >> 8;
	}
	return n;
}

static void
check_addrs(struct dpr_fib4 *fib, const struct ref *ref, const uint32_t *addrs, unsigned int n)
{
	uint32_t nh[32], prefix, got_nh;
	unsigned int i, k;
	uint8_t depth;

	for (i = 0; i < n; i += 32) {
		unsigned int m = RTE_MIN(32u, n - i);

		dpr_fib4_lookup_bulk(fib, &addrs[i], nh, m);
		for (k = 0; k < m; k++) {
			uint32_t a = addrs[i + k];
			int best = ref_lpm(ref, a);
			uint32_t want = best < 0 ? DPR_NH_NONE : ref->r[best].nh;
			int ret = dpr_fib4_lpm(fib, a, &prefix, &depth, &got_nh);

			DIFF(nh[k] == want, "%08x: bulk lookup %u, want %u", a, nh[k], want);
			DIFF(dpr_fib4_lookup(fib, a) == want, "%08x: lookup %u, want %u", a,
			     dpr_fib4_lookup(fib, a), want);
			if (best < 0) {
				DIFF(ret == -ENOENT, "%08x: lpm found %08x/%u, want none", a, prefix,
				     depth);
				continue;
			}
			DIFF(ret == 0 && prefix == ref->r[best].ip && depth == ref->r[best].depth &&
			     got_nh == want, "%08x: lpm %d %08x/%u nh %u, want %08x/%u nh %u", a, ret,
			     prefix, depth, got_nh, ref->r[best].ip, ref->r[best].depth, want);
		}
	}
}

/* Random addresses, both ends of some routes and the addresses just past
 * them, every route by exact match, the route count, and DIR-24-8's tbl8
 * groups (Poptrie's self-check runs after every batch). */
static void
check_fib(struct dpr_fib4 *fib, const struct ref *ref, unsigned int n_edges)
{
	static uint32_t addrs[1024 + 4 * 4096];
	unsigned int i, n = 0;
	uint32_t nh;

	for (i = 0; i < 1024; i++)
		addrs[n++] = random_addr();
	for (i = 0; i < n_edges && ref->n > 0; i++) {
		const struct ref_rule *r = &ref->r[n_edges >= ref->n ? i % ref->n :
						     rte_rand() % ref->n];
		uint32_t last = r->ip | ~dpr_ip4_mask(r->depth);

		addrs[n++] = r->ip;
		addrs[n++] = last;
		addrs[n++] = r->ip - 1;
		addrs[n++] = last + 1;
	}
	check_addrs(fib, ref, addrs, n);
	for (i = 0; i < ref->n; i++) {
		int ret = dpr_fib4_get(fib, ref->r[i].ip, ref->r[i].depth, &nh);

		DIFF(ret == 0 && nh == ref->r[i].nh, "get %08x/%u: %d nh %u, want %u",
		     ref->r[i].ip, ref->r[i].depth, ret, nh, ref->r[i].nh);
	}
	DIFF(fib->n_routes == ref->n, "%u routes, want %u", fib->n_routes, ref->n);
	if (dir24(fib))
		DIFF(dpr_fib4_tbl8_used(fib) == groups_needed(ref), "%u tbl8 groups used, want %u",
		     dpr_fib4_tbl8_used(fib), groups_needed(ref));
}

static int
cmp_rule(const void *a, const void *b)
{
	const struct ref_rule *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return (int)x->depth - (int)y->depth;
}

/* dpr_fib4_list() in pages of 97 gives the routes sorted by (ip, depth). */
static void
check_list(struct dpr_fib4 *fib, const struct ref *ref)
{
	static struct ref sorted;
	struct dpr_fib4_route page[97], cur, *after = NULL;
	unsigned int seen = 0;
	bool more = true;
	int i, n;

	sorted = *ref;
	qsort(sorted.r, sorted.n, sizeof(sorted.r[0]), cmp_rule);
	while (more) {
		n = dpr_fib4_list(fib, after, page, RTE_DIM(page), &more);
		CHECK(n > 0 || (n == 0 && !more && seen == sorted.n), "list page: %d", n);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++, seen++)
			DIFF(seen < sorted.n && page[i].ip == sorted.r[seen].ip &&
			     page[i].depth == sorted.r[seen].depth && page[i].nh == sorted.r[seen].nh,
			     "list #%u: %08x/%u nh %u", seen, page[i].ip, page[i].depth, page[i].nh);
		cur = page[n - 1];
		after = &cur;
	}
	CHECK_EQ(seen, sorted.n);
	/* A cursor that is no route resumes at the next one. */
	if (sorted.n > 1) {
		cur = (struct dpr_fib4_route){ .ip = sorted.r[0].ip, .depth = sorted.r[0].depth };
		while (cur.depth < 32 && ref_find(ref, cur.ip, cur.depth) >= 0)
			cur.depth++;
		n = dpr_fib4_list(fib, &cur, page, 1, &more);
		CHECK(n == 1 && cmp_rule(&(struct ref_rule){ page[0].ip, page[0].depth, 0 },
					 &(struct ref_rule){ cur.ip, cur.depth, 0 }) > 0,
		      "resume after %08x/%u: %08x/%u", cur.ip, cur.depth, page[0].ip, page[0].depth);
	}
}

static void
test_random_churn(enum dpr_fib_algo algo)
{
	struct dpr_fib4 *fib = create(algo, 1 << 16, 256, NULL);
	static struct ref ref;
	struct dpr_fib4_op ops[8];
	unsigned int batch, i, n, zero = 0, added = 0, deleted = 0, replaced = 0;
	uint32_t t;
	int err;

	if (fib == NULL)
		return;
	rte_srand(20240601);
	ref.n = 0;
	diff_bad = 0;
	for (batch = 0; batch < 4000; batch++) {
		struct dpr_fib4_op want[8];

		n = 1 + (unsigned int)(rte_rand() % RTE_DIM(ops));
		for (i = 0; i < n; i++) {
			bool del = ref.n > 0 && rte_rand() % 100 < (ref.n < 1000 ? 40u : 60u);

			if (del) {
				const struct ref_rule *r = &ref.r[rte_rand() % ref.n];

				ops[i] = (struct dpr_fib4_op){ .ip = r->ip, .depth = r->depth, .del = 1 };
			} else {
				ops[i] = (struct dpr_fib4_op){ .nh = 2 + (uint32_t)(rte_rand() % 1000) };
				random_prefix(&ops[i].ip, &ops[i].depth);
			}
			/* The reference, op by op (a batch may delete what it added). */
			want[i] = ops[i];
			{
				int k = ref_find(&ref, ops[i].ip, ops[i].depth);

				want[i].existed = k >= 0;
				want[i].old_nh = k >= 0 ? ref.r[k].nh : 0;
				if (ops[i].del) {
					if (k >= 0)
						ref.r[k] = ref.r[--ref.n];
					deleted++;
				} else if (k >= 0) {
					ref.r[k].nh = ops[i].nh;
					replaced++;
				} else {
					ref.r[ref.n++] = (struct ref_rule){ ops[i].ip, ops[i].depth,
									    ops[i].nh };
					added++;
				}
			}
			/* A delete of what the batch already deleted is an
			 * error; end the batch before it. */
			if (ops[i].del && !want[i].existed)
				break;
		}
		if (i < n) {
			/* The last op deletes a missing route: all before it apply. */
			CHECK_EQ(dpr_fib4_update(fib, ops, i + 1, &err), i);
			CHECK_EQ(err, -ENOENT);
			n = i;
		} else {
			CHECK_EQ(dpr_fib4_update(fib, ops, n, &err), n);
			CHECK_EQ(err, 0);
		}
		for (i = 0; i < n; i++)
			DIFF(ops[i].existed == want[i].existed &&
			     (!want[i].existed || ops[i].old_nh == want[i].old_nh),
			     "batch %u op %u %08x/%u: existed %u old %u, want %u %u", batch, i,
			     ops[i].ip, ops[i].depth, ops[i].existed, ops[i].old_nh,
			     want[i].existed, want[i].old_nh);
		if (!dir24(fib) && batch % TEST_CHECK_EVERY == 0)
			DIFF(dpr_pt_check(fib->pt) == 0, "poptrie self-check after batch %u", batch);
		if (batch % 100 == 99)
			check_fib(fib, &ref, 200);
	}
	check_fib(fib, &ref, ref.n);
	check_list(fib, &ref);
	CHECK(added > 2000 && deleted > 2000 && replaced > 50 && groups_needed(&ref) > 10,
	      "the churn covers adds %u, deletes %u, replaces %u, %u groups", added, deleted,
	      replaced, groups_needed(&ref));

	/* Everything goes: every group is free again and tbl24 is empty, or
	 * every direct-pointing entry of Poptrie an empty leaf. */
	while (ref.n > 0) {
		n = RTE_MIN(ref.n, RTE_DIM(ops));
		for (i = 0; i < n; i++) {
			unsigned int k = (unsigned int)(rte_rand() % ref.n);

			ops[i] = (struct dpr_fib4_op){ .ip = ref.r[k].ip, .depth = ref.r[k].depth,
						       .del = 1 };
			ref.r[k] = ref.r[--ref.n];
		}
		CHECK_EQ(dpr_fib4_update(fib, ops, n, &err), n);
		if (!dir24(fib) && ref.n % (TEST_CHECK_EVERY * RTE_DIM(ops)) < RTE_DIM(ops))
			DIFF(dpr_pt_check(fib->pt) == 0, "poptrie self-check with %u routes", ref.n);
		if (ref.n % 64 == 0)
			check_fib(fib, &ref, 16);
	}
	CHECK_EQ(fib->n_routes, 0);
	CHECK_EQ(dpr_fib4_tbl8_used(fib), 0);
	if (dir24(fib)) {
		for (t = 0; t < DPR_FIB4_TBL24_SIZE; t++)
			zero += fib->tbl24[t] == 0;
		CHECK_EQ(zero, DPR_FIB4_TBL24_SIZE);
	} else {
		const struct dpr_pt_tables *pt = dpr_pt_tables(fib->pt);
		uint32_t nodes, leaves;

		for (t = 0; t < 1u << DPR_PT_DP_BITS; t++)
			zero += pt->dp[t] == (DPR_PT_LEAF | DPR_NH_NONE);
		CHECK_EQ(zero, 1u << DPR_PT_DP_BITS);
		dpr_pt_usage(fib->pt, &nodes, &leaves);
		CHECK(nodes == 0 && leaves == 0, "%u nodes, %u leaves left", nodes, leaves);
	}
	CHECK(diff_bad == 0, "%u mismatches with the reference", diff_bad);
	dpr_fib4_free(fib);
}

/* 150k routes: the control side (DIR-24-8's rule table, Poptrie's trie)
 * grows past its first size and keeps every route findable while half of
 * them go in random order. */
static void
test_many_routes(enum dpr_fib_algo algo)
{
	struct dpr_fib4 *fib = create(algo, 1 << 18, 16, NULL);
	enum { N = 150000 };
	struct dpr_fib4_op *ops = calloc(N, sizeof(*ops));
	uint8_t *gone = calloc(N, 1);
	uint64_t mem0, grown;
	unsigned int i, bad = 0;
	uint32_t nh;
	int err;

	if (fib == NULL || ops == NULL || gone == NULL)
		goto out;
	mem0 = dpr_fib4_control_memory(fib);
	/* A rule table of 8-byte slots at most 3/5 full; a trie of at
	 * least a node of 8 bytes a route. */
	grown = dir24(fib) ? (N * 5 / 3 - (1 << 16)) * sizeof(uint64_t) : N * sizeof(uint64_t);

	/* /24s from 1.0.0.0 on, and a /16 over every 256 of them. */
	for (i = 0; i < N; i++)
		ops[i] = i % 256 == 255 ?
			(struct dpr_fib4_op){ .ip = IP(1, 0, 0, 0) + (i & ~255u) * 256, .depth = 16,
					      .nh = 7 } :
			(struct dpr_fib4_op){ .ip = IP(1, 0, 0, 0) + i * 256, .depth = 24,
					      .nh = 8 + i % 64 };
	CHECK_EQ(dpr_fib4_update(fib, ops, N, &err), N);
	CHECK_EQ(fib->n_routes, N);
	CHECK(dpr_fib4_control_memory(fib) >= mem0 + grown,
	      "the control side grew: %" PRIu64 " -> %" PRIu64 " bytes", mem0,
	      dpr_fib4_control_memory(fib));
	for (i = 0; i < N; i++) {
		unsigned int k = (unsigned int)(rte_rand() % N);
		struct dpr_fib4_op del = ops[k];

		if (gone[k])
			continue;
		gone[k] = 1;
		del.del = 1;
		if (dpr_fib4_update(fib, &del, 1, &err) != 1)
			bad++;
	}
	for (i = 0; i < N; i++) {
		int ret = dpr_fib4_get(fib, ops[i].ip, ops[i].depth, &nh);

		bad += gone[i] ? ret != -ENOENT : (ret != 0 || nh != ops[i].nh);
		if (!gone[i] && ops[i].depth == 24)
			bad += lookup(fib, ops[i].ip + 1) != ops[i].nh;
	}
	CHECK(bad == 0, "%u routes wrong after deleting some", bad);
	if (!dir24(fib))
		CHECK_EQ(dpr_pt_check(fib->pt), 0);
out:
	dpr_fib4_free(fib);
	free(ops);
	free(gone);
}

/* @p op alone through dpr_fib4_update(), which must wait @p want grace periods. */
static void
check_waits(struct dpr_fib4 *fib, struct dpr_fib4_op op, uint64_t want, const char *what)
{
	uint64_t g = fib->grace_periods;
	int err;

	CHECK_EQ(dpr_fib4_update(fib, &op, 1, &err), 1);
	CHECK(fib->grace_periods - g == want, "%s %s: %" PRIu64 " grace periods, want %" PRIu64,
	      dpr_fib_algo_name(fib->conf.algorithm), what, fib->grace_periods - g, want);
}

/*
 * A batch that only adds new prefixes frees nothing and waits for no grace
 * period (a learned neighbour's /32 at a time costs none); replacing or
 * deleting a route, or unlinking a tbl8 group, waits exactly one: route.c
 * frees the old next hop when the update returns. An RCU variable with no
 * reader registered: each wait returns at once, but counts.
 */
static void
test_grace_periods(enum dpr_fib_algo algo)
{
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), 64);
	struct dpr_fib4_op host = { .ip = IP(10, 9, 8, 7), .depth = 32, .nh = 5 };
	struct dpr_fib4_op net = { .ip = IP(10, 9, 0, 0), .depth = 16, .nh = 5 };
	struct dpr_fib4_op alone = { .ip = IP(10, 10, 0, 0), .depth = 16, .nh = 5 };
	struct dpr_fib4 *fib = NULL;

	CHECK(qsbr != NULL && rte_rcu_qsbr_init(qsbr, 1) == 0, "qsbr");
	if (qsbr == NULL || (fib = create(algo, 1024, 64, qsbr)) == NULL)
		goto out;
	check_waits(fib, host, 0, "add 10.9.8.7/32");
	check_waits(fib, net, 0, "add 10.9.0.0/16");
	net.nh = 6;
	check_waits(fib, net, 1, "replace 10.9.0.0/16");
	host.del = 1;
	check_waits(fib, host, 1, "delete 10.9.8.7/32 (and its tbl8 group)");
	/* The same for a route with nothing longer below it. */
	check_waits(fib, alone, 0, "add 10.10.0.0/16");
	alone.nh = 6;
	check_waits(fib, alone, 1, "replace 10.10.0.0/16");
	alone.del = 1;
	check_waits(fib, alone, 1, "delete 10.10.0.0/16");
out:
	dpr_fib4_free(fib);
	rte_free(qsbr);
}

/* Every test but the tbl8 ones (DIR-24-8's own) on @p algo. */
static void
test_algo(enum dpr_fib_algo algo)
{
	struct dpr_fib4 *fib = create(algo, 1024, 64, NULL);

	if (fib != NULL) {
		test_update(fib);
		test_refcounts(fib);
		dpr_fib4_free(fib);
	}
	test_limits(algo);
	test_random_churn(algo);
	test_many_routes(algo);
	test_rcu_churn(algo);
	test_grace_periods(algo);
}

int
main(int argc, char **argv)
{
	enum dpr_fib_algo algos[2];
	unsigned int i, n = test_algos(argc, argv, algos);

	if (n == 0 || test_eal_init(argv[0]) < 0)
		return 1;
	for (i = 0; i < n; i++) {
		int checks = test_checks, failures = test_failures;

		test_algo(algos[i]);
		printf("test_fib: %s: %d checks, %d failed\n", dpr_fib_algo_name(algos[i]),
		       test_checks - checks, test_failures - failures);
		if (algos[i] == DPR_FIB_DIR24_8)
			test_tbl8_accounting();
	}
	return test_done("test_fib");
}
