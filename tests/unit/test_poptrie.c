/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poptrie on its own: random batches of adds, replaces and deletes, for
 * 32- and 128-bit keys, agree with a plain list of routes on random and
 * boundary probes, and the structure passes dpr_pt_check() after every
 * batch; a failed op changes nothing; the arrays grow with readers
 * looking up under RCU, who never see a wrong answer for routes that do
 * not change.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include "fib/poptrie.h"
#include "nexthop/nexthop.h"
#include "test.h"

struct ref_route {
	dpr_u128 key;
	uint8_t depth;
	uint32_t nh;
};

struct ref {
	struct ref_route *r;
	uint32_t n;
};

static dpr_u128
mask(unsigned int depth)
{
	return depth == 0 ? 0 : ~(dpr_u128)0 << (128 - depth);
}

static int
ref_find(const struct ref *ref, dpr_u128 key, uint8_t depth)
{
	uint32_t i;

	for (i = 0; i < ref->n; i++)
		if (ref->r[i].depth == depth && ref->r[i].key == key)
			return (int)i;
	return -1;
}

static uint32_t
ref_lpm(const struct ref *ref, dpr_u128 key)
{
	uint32_t i, nh = DPR_NH_NONE;
	int best = -1;

	for (i = 0; i < ref->n; i++)
		if ((key & mask(ref->r[i].depth)) == ref->r[i].key && ref->r[i].depth > best) {
			best = ref->r[i].depth;
			nh = ref->r[i].nh;
		}
	return nh;
}

static uint64_t
rnd(void)
{
	return rte_rand();
}

/* A key near the others: one of a few clusters, so subtrees get deep. */
static dpr_u128
random_key(unsigned int bits)
{
	dpr_u128 k = (dpr_u128)rnd() << 64 | rnd();
	static const uint64_t clusters[4] = {
		UINT64_C(0x0a00000000000000), UINT64_C(0x20010db800000000),
		UINT64_C(0xc0a8000000000000), UINT64_C(0x0000000000000000),
	};
	unsigned int c = (unsigned int)(rnd() % 5);

	if (c < 4) {
		/* Same first 16 to 40 bits as the cluster. */
		unsigned int keep = 16 + (unsigned int)(rnd() % 25);

		k = ((dpr_u128)clusters[c] << 64 & mask(keep)) | (k & ~mask(keep));
	}
	return k & mask(bits);
}

static uint8_t
random_depth(unsigned int bits)
{
	switch (rnd() % 4) {
	case 0:
		return (uint8_t)(rnd() % (bits + 1));
	case 1:
		return (uint8_t)(bits >= 24 ? 16 + rnd() % 9 : rnd() % (bits + 1));
	default:
		return (uint8_t)(bits == 32 ? 18 + rnd() % 15 : 18 + rnd() % 111);
	}
}

static uint32_t
lookup(const struct dpr_poptrie *pt, unsigned int bits, dpr_u128 key)
{
	const struct dpr_pt_tables *t = dpr_pt_tables(pt);

	if (bits == 32) {
		uint32_t ip = (uint32_t)(key >> 96), nh;

		dpr_pt_lookup4_bulk(pt, &ip, &nh, 1);
		CHECK_EQ(nh, dpr_pt_lookup4(t, ip));
		return nh;
	} else {
		uint8_t b[16];
		const uint8_t *bp = b;
		uint32_t nh;
		int i;

		for (i = 0; i < 16; i++)
			b[i] = (uint8_t)(key >> (120 - 8 * i));
		dpr_pt_lookup6_bulk(pt, &bp, &nh, 1);
		CHECK_EQ(nh, dpr_pt_lookup6(t, b));
		return nh;
	}
}

/* Probes: random keys, and each route's first and last key and just past. */
static void
compare(const struct dpr_poptrie *pt, const struct ref *ref, unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < 2000; i++) {
		dpr_u128 k = random_key(bits);

		CHECK_EQ(lookup(pt, bits, k), ref_lpm(ref, k));
	}
	for (i = 0; i < ref->n; i++) {
		dpr_u128 lo = ref->r[i].key, hi = lo | (~mask(ref->r[i].depth) & mask(bits));
		dpr_u128 past = hi + ((dpr_u128)1 << (128 - bits));

		CHECK_EQ(lookup(pt, bits, lo), ref_lpm(ref, lo));
		CHECK_EQ(lookup(pt, bits, hi), ref_lpm(ref, hi));
		if (past != 0)
			CHECK_EQ(lookup(pt, bits, past), ref_lpm(ref, past));
	}
}

/* Rounds of random batches: fewer under ASan, where each full check of
 * the structure costs ten times as much (the release run does them all). */
#ifdef __SANITIZE_ADDRESS__
#define RANDOM_ROUNDS 120
#else
#define RANDOM_ROUNDS 300
#endif

static void
test_random(unsigned int bits)
{
	struct dpr_poptrie *pt = dpr_pt_create(&(struct dpr_poptrie_conf){
		.key_bits = (uint8_t)bits, .max_routes = 1500, .socket = -1, .name = "test" }, NULL);
	struct ref ref = { calloc(1600, sizeof(struct ref_route)), 0 };
	struct dpr_pt_op ops[64];
	unsigned int round;

	CHECK(pt != NULL && ref.r != NULL, "create");
	for (round = 0; round < RANDOM_ROUNDS; round++) {
		unsigned int n = 1 + (unsigned int)(rnd() % 64), i, done;
		int err;

		for (i = 0; i < n; i++) {
			struct dpr_pt_op *op = &ops[i];

			memset(op, 0, sizeof(*op));
			/* Delete an existing route a third of the time. */
			if (ref.n > 0 && rnd() % 3 == 0) {
				struct ref_route *r = &ref.r[rnd() % ref.n];

				op->key = r->key;
				op->depth = r->depth;
				op->del = 1;
			} else {
				op->depth = random_depth(bits);
				op->key = random_key(bits) & mask(op->depth);
				/* Few next hops: runs of equal leaves. */
				op->nh = DPR_NH_FIRST_DYNAMIC + (uint32_t)(rnd() % 4);
			}
		}
		/* Apply to the reference the way the table must: in order,
		 * stopping at the first failure (a delete made twice). */
		done = dpr_pt_update(pt, ops, n, &err);
		for (i = 0; i < n; i++) {
			struct dpr_pt_op *op = &ops[i];
			int at = ref_find(&ref, op->key & mask(op->depth), op->depth);

			if (op->del && at < 0) {
				CHECK_EQ(done, i);
				CHECK_EQ(err, -ENOENT);
				break;
			}
			if (!op->del && at < 0 && ref.n >= 1500) {
				CHECK_EQ(done, i);
				CHECK_EQ(err, -ENOMEM);
				break;
			}
			CHECK(i < done, "op %u applied", i);
			CHECK_EQ(op->existed, at >= 0);
			if (at >= 0)
				CHECK_EQ(op->old_nh, ref.r[at].nh);
			if (op->del)
				ref.r[at] = ref.r[--ref.n];
			else if (at >= 0)
				ref.r[at].nh = op->nh;
			else
				ref.r[ref.n++] = (struct ref_route){ op->key & mask(op->depth),
								     op->depth, op->nh };
		}
		CHECK_EQ(pt->n_routes, ref.n);
		CHECK_EQ(dpr_pt_check(pt), 0);
		if (round % 10 == 0)
			compare(pt, &ref, bits);
	}
	compare(pt, &ref, bits);

	/* The walk: sorted, complete, resumable after any route. */
	{
		const struct dpr_pt_route *w;
		uint32_t wn, from, i;

		CHECK_EQ(dpr_pt_walk(pt, false, 0, 0, &w, &wn, &from), 0);
		CHECK_EQ(wn, ref.n);
		CHECK_EQ(from, 0);
		for (i = 0; i < wn; i++) {
			uint32_t nh;

			CHECK_EQ(dpr_pt_get(pt, w[i].key, w[i].depth, &nh), 0);
			CHECK_EQ(nh, w[i].nh);
			if (i > 0)
				CHECK(w[i - 1].key < w[i].key ||
				      (w[i - 1].key == w[i].key && w[i - 1].depth < w[i].depth),
				      "walk sorted at %u", i);
		}
		if (wn > 2) {
			CHECK_EQ(dpr_pt_walk(pt, true, w[1].key, w[1].depth, &w, &wn, &from), 0);
			CHECK_EQ(from, 2);
		}
	}
	/* lpm agrees with the lookup. */
	{
		unsigned int i;

		for (i = 0; i < 500; i++) {
			dpr_u128 k = random_key(bits), p;
			uint8_t depth;
			uint32_t nh;

			if (dpr_pt_lpm(pt, k, &p, &depth, &nh) == 0) {
				CHECK_EQ(nh, lookup(pt, bits, k));
				CHECK(p == (k & mask(depth)), "lpm prefix");
			} else {
				CHECK_EQ(lookup(pt, bits, k), DPR_NH_NONE);
			}
		}
	}
	/* Delete everything: back to one leaf per entry, nothing in use. */
	while (ref.n > 0) {
		struct dpr_pt_op op = { .key = ref.r[ref.n - 1].key, .depth = ref.r[ref.n - 1].depth,
					.del = 1 };
		int err;

		CHECK_EQ(dpr_pt_update(pt, &op, 1, &err), 1);
		ref.n--;
	}
	{
		uint32_t nodes, leaves;

		CHECK_EQ(dpr_pt_check(pt), 0);
		dpr_pt_usage(pt, &nodes, &leaves);
		CHECK_EQ(nodes, 0);
		CHECK_EQ(leaves, 0);
	}
	free(ref.r);
	dpr_pt_free(pt);
}

static void
test_bad_ops(void)
{
	struct dpr_poptrie *pt = dpr_pt_create(&(struct dpr_poptrie_conf){
		.key_bits = 32, .max_routes = 2, .socket = -1, .name = "test" }, NULL);
	struct dpr_pt_op ops[3] = {
		{ .key = (dpr_u128)0x0a000000 << 96, .depth = 8, .nh = 5 },
		{ .key = (dpr_u128)0x0a010000 << 96, .depth = 33, .nh = 5 },
	};
	uint32_t nh;
	int err;

	CHECK_EQ(dpr_pt_update(pt, ops, 2, &err), 1);
	CHECK_EQ(err, -EINVAL);
	ops[0] = (struct dpr_pt_op){ .key = (dpr_u128)0x0b000000 << 96, .depth = 8,
				     .nh = DPR_PT_NH_MAX + 1 };
	CHECK_EQ(dpr_pt_update(pt, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	ops[0] = (struct dpr_pt_op){ .key = (dpr_u128)0x0b000000 << 96, .depth = 8, .del = 1 };
	CHECK_EQ(dpr_pt_update(pt, ops, 1, &err), 0);
	CHECK_EQ(err, -ENOENT);
	ops[0] = (struct dpr_pt_op){ .key = (dpr_u128)0x0b000000 << 96, .depth = 8, .nh = 6 };
	ops[1] = (struct dpr_pt_op){ .key = (dpr_u128)0x0c000000 << 96, .depth = 8, .nh = 7 };
	CHECK_EQ(dpr_pt_update(pt, ops, 2, &err), 1);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(pt->n_routes, 2);
	CHECK_EQ(dpr_pt_get(pt, (dpr_u128)0x0c000000 << 96, 8, &nh), -ENOENT);
	CHECK_EQ(dpr_pt_lookup4(dpr_pt_tables(pt), 0x0c000001), DPR_NH_NONE);
	CHECK_EQ(dpr_pt_lookup4(dpr_pt_tables(pt), 0x0b000001), 6);
	CHECK_EQ(dpr_pt_check(pt), 0);
	dpr_pt_free(pt);
}

/* ---- readers under RCU while the arrays grow and routes churn ---- */

struct reader {
	struct dpr_poptrie *pt;
	struct rte_rcu_qsbr *qsbr;
	unsigned int id;
	volatile int stop;
	uint64_t lookups, wrong;
};

/* 10.<k>.0.0/16 -> nh 100 + k % 50, never changed: their /24s are
 * 10.<k>.<j>.0/24 with k odd -> nh 200 + j % 7, never changed either. */
static uint32_t
stable_answer(uint32_t ip)
{
	uint32_t k = (ip >> 16) & 0xff, j = (ip >> 8) & 0xff;

	return (k & 1) && j < 64 ? 200 + j % 7 : 100 + k % 50;
}

static void *
reader_main(void *arg)
{
	struct reader *rd = arg;

	rte_rcu_qsbr_thread_register(rd->qsbr, rd->id);
	rte_rcu_qsbr_thread_online(rd->qsbr, rd->id);
	while (!rd->stop) {
		uint32_t ip[32], nh[32];
		unsigned int i;

		for (i = 0; i < 32; i++)
			ip[i] = 0x0a000000 | (uint32_t)(rte_rand() & 0xffffff);
		dpr_pt_lookup4_bulk(rd->pt, ip, nh, 32);
		for (i = 0; i < 32; i++) {
			/* Churned routes are /25-/32 under 10.<even>.x.x/16. */
			uint32_t k = (ip[i] >> 16) & 0xff;

			if ((k & 1) && nh[i] != stable_answer(ip[i]))
				rd->wrong++;
		}
		rd->lookups += 32;
		rte_rcu_qsbr_quiescent(rd->qsbr, rd->id);
	}
	rte_rcu_qsbr_thread_offline(rd->qsbr, rd->id);
	rte_rcu_qsbr_thread_unregister(rd->qsbr, rd->id);
	return NULL;
}

static void
test_rcu_growth(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(2);
	struct rte_rcu_qsbr *qsbr = rte_zmalloc("qsbr", sz, RTE_CACHE_LINE_SIZE);
	struct dpr_poptrie *pt;
	struct reader rd[2];
	pthread_t th[2];
	struct dpr_pt_op ops[256];
	unsigned int k, j, i, round;
	uint64_t mem0;
	int err;

	CHECK(qsbr != NULL && rte_rcu_qsbr_init(qsbr, 2) == 0, "qsbr");
	pt = dpr_pt_create(&(struct dpr_poptrie_conf){ .key_bits = 32, .max_routes = 1 << 20,
						       .socket = -1, .name = "test" }, qsbr);
	CHECK(pt != NULL, "create");
	mem0 = dpr_pt_memory(pt);
	/* The stable routes first. */
	for (k = 0; k < 256; k++)
		ops[k] = (struct dpr_pt_op){ .key = (dpr_u128)(0x0a000000 | k << 16) << 96,
					     .depth = 16, .nh = 100 + k % 50 };
	CHECK_EQ(dpr_pt_update(pt, ops, 256, &err), 256);
	for (k = 1; k < 256; k += 2) {
		for (j = 0; j < 64; j++)
			ops[j] = (struct dpr_pt_op){
				.key = (dpr_u128)(0x0a000000 | k << 16 | j << 8) << 96,
				.depth = 24, .nh = 200 + j % 7 };
		CHECK_EQ(dpr_pt_update(pt, ops, 64, &err), 64);
	}
	for (i = 0; i < 2; i++) {
		rd[i] = (struct reader){ .pt = pt, .qsbr = qsbr, .id = i };
		CHECK_EQ(pthread_create(&th[i], NULL, reader_main, &rd[i]), 0);
	}
	/* Churn long routes under the even /16s: adds grow the arrays, then
	 * deletes and re-adds reuse their blocks. */
	for (round = 0; round < 60; round++) {
		for (i = 0; i < 256; i++) {
			uint32_t ip = 0x0a000000 | (uint32_t)(rte_rand() % 128) << 17 |
				(uint32_t)(rte_rand() & 0xffff);

			ops[i] = (struct dpr_pt_op){ .key = (dpr_u128)ip << 96,
				.depth = (uint8_t)(25 + rte_rand() % 8),
				.nh = DPR_NH_FIRST_DYNAMIC + (uint32_t)(rte_rand() % 9) };
		}
		CHECK_EQ(dpr_pt_update(pt, ops, 256, &err), 256);
		if (round % 3 == 2) {
			const struct dpr_pt_route *w;
			uint32_t wn, from, n = 0;

			CHECK_EQ(dpr_pt_walk(pt, false, 0, 0, &w, &wn, &from), 0);
			for (i = 0; i < wn && n < 256; i++)
				if (w[i].depth > 24)
					ops[n++] = (struct dpr_pt_op){ .key = w[i].key,
						.depth = w[i].depth, .del = 1 };
			CHECK_EQ(dpr_pt_update(pt, ops, n, &err), n);
		}
	}
	CHECK(dpr_pt_memory(pt) > mem0, "the arrays grew (%" PRIu64 " -> %" PRIu64 ")", mem0,
	      dpr_pt_memory(pt));
	for (i = 0; i < 2; i++) {
		rd[i].stop = 1;
		pthread_join(th[i], NULL);
		CHECK(rd[i].lookups > 0, "reader %u looked up", i);
		CHECK_EQ(rd[i].wrong, 0);
	}
	CHECK_EQ(dpr_pt_check(pt), 0);
	dpr_pt_free(pt);
	rte_free(qsbr);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	test_bad_ops();
	test_random(32);
	test_random(128);
	test_rcu_growth();
	return test_done("test_poptrie");
}
