/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DIR-24-8 FIB: changes reach lookups, failures are partial and
 * reported, next-hop references follow routes, tbl8 groups come back when
 * their long prefixes go, and a reader that keeps looking up under RCU never
 * sees a wrong answer while routes churn.
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
#include "nexthop/nexthop.h"
#include "route/route.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

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
	/* The /25 went, and with it the only tbl8 group. */
	CHECK_EQ(dpr_fib4_tbl8_used(fib), 0);

	/* Bad ops stop the batch before they change anything. */
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 33, .nh = 3 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	ops[0] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 24, .nh = 1u << 24 };
	CHECK_EQ(dpr_fib4_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
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

/* A long prefix with its covering route's next hop, added and deleted over
 * and over, must not use up tbl8 groups: each delete gives its group back. */
static void
test_tbl8_accounting(void)
{
	struct dpr_fib4_conf fc = { .max_routes = 1024, .tbl8_groups = 64, .socket = 0 };
	struct dpr_fib4 *fib = dpr_fib4_create(&fc, NULL);
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
	dpr_nh_resolve(t, (uint32_t)idx, &mac, true);
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
test_rcu_churn(void)
{
	struct dpr_fib4_conf fc = { .max_routes = 1 << 16, .tbl8_groups = 4096, .socket = 0 };
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), 64);
	struct dpr_fib4_op op = { .ip = IP(198, 51, 100, 0), .depth = 24, .nh = 42 };
	struct dpr_fib4_op *ops = calloc(1000, sizeof(*ops));
	struct reader r = { 0 };
	struct dpr_fib4 *fib;
	pthread_t th;
	unsigned int round, i;
	int err;

	rte_rcu_qsbr_init(qsbr, 1);
	fib = dpr_fib4_create(&fc, qsbr);
	CHECK_EQ(dpr_fib4_update(fib, &op, 1, &err), 1);
	r.fib = fib;
	r.qsbr = qsbr;
	pthread_create(&th, NULL, reader_main, &r);
	for (round = 0; round < 40; round++) {
		unsigned int n = 0;

		if (round % 2 == 0) {
			/* Long prefixes use tbl8 groups: the memory a reader
			 * would trip over without RCU. Some split the /24 the
			 * reader looks up, with the same next hop. */
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
	dpr_fib4_free(fib);
	rte_free(qsbr);
	free(ops);
}

int
main(int argc, char **argv)
{
	struct dpr_fib4_conf fc = { .max_routes = 1024, .tbl8_groups = 64, .socket = 0 };
	struct dpr_fib4 *fib;

	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	fib = dpr_fib4_create(&fc, NULL);
	CHECK(fib != NULL, "create");
	if (fib != NULL) {
		test_update(fib);
		test_refcounts(fib);
		dpr_fib4_free(fib);
	}
	test_tbl8_accounting();
	test_rcu_churn();
	return test_done("test_fib");
}
