/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route ownership (lib/route/source.h): the FIB carries each prefix's
 * candidate from the most preferred source, a source changes only its
 * own, the loser comes back when the winner leaves, the router's own
 * prefixes are refused, stale routes are swept, and next-hop references
 * all come back. Last, random batches of every source against a model
 * that says which next hop each prefix must have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>

#include "fib/fib.h"
#include "fib/fib6.h"
#include "nexthop/nexthop.h"
#include "route/route.h"
#include "route/source.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static struct dpr_rib rib;

static struct dpr_prefix
pf4(uint32_t ip, uint8_t len)
{
	return (struct dpr_prefix){ .addr = { .af = DPR_AF_IP4, .ip4 = ip }, .len = len };
}

static struct dpr_prefix
pf6(uint8_t b1, uint8_t len)
{
	struct dpr_prefix p = { .addr = { .af = DPR_AF_IP6 }, .len = len };

	p.addr.ip6[0] = 0x20;
	p.addr.ip6[1] = 0x01;
	p.addr.ip6[2] = 0x0d;
	p.addr.ip6[3] = 0xb8;
	p.addr.ip6[4] = b1;
	return p;
}

/* A next hop for gateway 10.0.0.@p g (a reference). */
static uint32_t
gw(unsigned int g)
{
	struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 0, g) };
	int idx = dpr_nh_get(rib.nh, &ip, 0);

	CHECK(idx >= 0, "next hop for 10.0.0.%u", g);
	return idx < 0 ? 0 : (uint32_t)idx;
}

/* The next hop of gateway @p g without taking a reference. */
static uint32_t
gw_idx(unsigned int g)
{
	struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 0, g) };
	int idx = dpr_nh_find(rib.nh, &ip);

	return idx < 0 ? UINT32_MAX : (uint32_t)idx;
}

static int
one(enum dpr_route_src src, const struct dpr_prefix *p, bool del, uint32_t nh)
{
	struct dpr_src_op op = { .prefix = *p, .del = del, .nh = nh, .proto = 186 };

	dpr_route_src_apply(&rib, src, &op, 1);
	return op.result;
}

static uint32_t
fib_nh(const struct dpr_prefix *p)
{
	uint32_t nh;

	return dpr_route_get(&rib, p, &nh) == 0 ? nh : UINT32_MAX;
}

static void
test_preference(void)
{
	struct dpr_prefix p = pf4(IP(192, 0, 2, 0), 24);
	struct dpr_route_cands c;
	uint32_t base = dpr_nh_count(rib.nh);

	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(1)), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(1));
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(2)), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(2));          /* api beats fpm */
	CHECK_EQ(one(DPR_RSRC_KERNEL, &p, false, gw(3)), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(2));          /* kernel loses to both */
	CHECK(dpr_route_src_get(&rib, &p, &c) == 0, "candidates");
	CHECK_EQ(c.winner, DPR_RSRC_API);
	CHECK_EQ(c.have, (1u << DPR_RSRC_API) | (1u << DPR_RSRC_FPM) | (1u << DPR_RSRC_KERNEL));
	CHECK(c.in_fib, "winner installed");
	CHECK_EQ(c.proto[DPR_RSRC_FPM], 186);
	CHECK_EQ(one(DPR_RSRC_CONFIG, &p, false, gw(4)), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(4));          /* config beats all */
	/* A source removes only its own: the next one's comes back. */
	CHECK_EQ(one(DPR_RSRC_CONFIG, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(2));
	CHECK_EQ(one(DPR_RSRC_API, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(1));
	CHECK_EQ(one(DPR_RSRC_API, &p, true, 0), -ENOENT);   /* not the api's now */
	CHECK_EQ(fib_nh(&p), gw_idx(1));
	CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(3));
	CHECK_EQ(one(DPR_RSRC_KERNEL, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), UINT32_MAX);
	CHECK(dpr_route_src_get(&rib, &p, &c) == -ENOENT, "no candidates left");
	/* Every reference the candidates and the FIB took is back. */
	CHECK_EQ(dpr_nh_count(rib.nh), base);
}

/* zebra's route update: a delete and an add of the prefix in one batch. */
static void
test_update_in_one_batch(void)
{
	struct dpr_prefix p = pf6(7, 48);
	uint32_t base = dpr_nh_count(rib.nh);
	struct dpr_src_op ops[2];

	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(5)), 0);
	ops[0] = (struct dpr_src_op){ .prefix = p, .del = 1 };
	ops[1] = (struct dpr_src_op){ .prefix = p, .nh = gw(6) };
	CHECK_EQ(dpr_route_src_apply(&rib, DPR_RSRC_FPM, ops, 2), 2);
	CHECK_EQ(fib_nh(&p), gw_idx(6));
	/* Replaced by an add alone. */
	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(7)), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(7));
	CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), 0);
	CHECK_EQ(dpr_nh_count(rib.nh), base);
}

/* A prefix the FIB holds that no source put there is the router's. */
static void
test_router_owned(void)
{
	struct dpr_prefix p = pf4(IP(198, 51, 100, 1), 32);
	struct dpr_route_op op = { .prefix = p, .nh = DPR_NH_LOCAL };
	uint32_t base;
	int err = 0;

	CHECK_EQ(dpr_route_apply(&rib, &op, 1, &err), 1);
	base = dpr_nh_count(rib.nh);
	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(8)), -EPERM);
	CHECK_EQ(fib_nh(&p), DPR_NH_LOCAL);
	CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), -ENOENT);
	CHECK_EQ(fib_nh(&p), DPR_NH_LOCAL);
	CHECK_EQ(dpr_nh_count(rib.nh), base);     /* the refused op's reference dropped */
	/* An address added over a source's route owns it from then on: the
	 * source's delete leaves it alone. */
	p = pf4(IP(198, 51, 100, 2), 32);
	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(9)), 0);
	op = (struct dpr_route_op){ .prefix = p, .nh = DPR_NH_LOCAL };
	CHECK_EQ(dpr_route_apply(&rib, &op, 1, &err), 1);
	if (op.existed)
		dpr_nh_put(rib.nh, op.old_nh);
	CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), DPR_NH_LOCAL);
	op = (struct dpr_route_op){ .prefix = p, .del = 1 };
	CHECK_EQ(dpr_route_apply(&rib, &op, 1, &err), 1);

	/* Told at once: the installed candidate goes with the reference the
	 * router's op dropped; the other stays, and is installed when the
	 * router gives the prefix back. */
	p = pf4(IP(198, 51, 100, 3), 32);
	base = dpr_nh_count(rib.nh);
	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(14)), 0);
	CHECK_EQ(one(DPR_RSRC_KERNEL, &p, false, gw(15)), 0);
	op = (struct dpr_route_op){ .prefix = p, .nh = DPR_NH_LOCAL };
	CHECK_EQ(dpr_route_apply(&rib, &op, 1, &err), 1);
	if (op.existed)
		dpr_nh_put(rib.nh, op.old_nh);
	dpr_route_src_router_changed(&rib, &p, 1);
	{
		struct dpr_route_cands c;

		CHECK(dpr_route_src_get(&rib, &p, &c) == 0, "kernel's kept");
		CHECK_EQ(c.have, 1u << DPR_RSRC_KERNEL);
		CHECK(!c.in_fib, "not installed under the router's");
	}
	CHECK_EQ(fib_nh(&p), DPR_NH_LOCAL);
	op = (struct dpr_route_op){ .prefix = p, .del = 1 };
	CHECK_EQ(dpr_route_apply(&rib, &op, 1, &err), 1);
	dpr_route_src_router_changed(&rib, &p, 1);
	CHECK_EQ(fib_nh(&p), gw_idx(15));
	CHECK_EQ(one(DPR_RSRC_KERNEL, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), UINT32_MAX);
	CHECK_EQ(dpr_nh_count(rib.nh), base);
}

static void
test_stale_sweep(void)
{
	struct dpr_prefix a = pf4(IP(203, 0, 113, 0), 25), b = pf4(IP(203, 0, 113, 128), 25);
	struct dpr_prefix c = pf6(9, 64);
	struct dpr_route_src_counts n;
	uint32_t base = dpr_nh_count(rib.nh);

	CHECK_EQ(one(DPR_RSRC_FPM, &a, false, gw(10)), 0);
	CHECK_EQ(one(DPR_RSRC_FPM, &b, false, gw(11)), 0);
	CHECK_EQ(one(DPR_RSRC_FPM, &c, false, gw(12)), 0);
	CHECK_EQ(one(DPR_RSRC_API, &b, false, gw(13)), 0);
	CHECK_EQ(dpr_route_src_mark_stale(&rib, DPR_RSRC_FPM), 3);
	dpr_route_src_counts(&rib, &n);
	CHECK_EQ(n.stale[DPR_RSRC_FPM], 3);
	CHECK_EQ(n.held[DPR_RSRC_FPM], 3);
	CHECK_EQ(n.active[DPR_RSRC_FPM], 2);
	CHECK_EQ(n.active[DPR_RSRC_API], 1);
	/* Stale routes still forward; a replayed one is fresh again. */
	CHECK_EQ(fib_nh(&a), gw_idx(10));
	CHECK_EQ(one(DPR_RSRC_FPM, &a, false, gw(10)), 0);
	CHECK_EQ(dpr_route_src_sweep(&rib, DPR_RSRC_FPM), 2);
	CHECK_EQ(fib_nh(&a), gw_idx(10));
	CHECK_EQ(fib_nh(&b), gw_idx(13));         /* the api's stays */
	CHECK_EQ(fib_nh(&c), UINT32_MAX);
	CHECK_EQ(dpr_route_src_sweep(&rib, DPR_RSRC_FPM), 0);
	CHECK_EQ(one(DPR_RSRC_FPM, &a, true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_API, &b, true, 0), 0);
	CHECK_EQ(dpr_nh_count(rib.nh), base);
}

/* Random batches of every source on a few prefixes, against a model. */
#define N_PF 24
#define N_GW 6

static void
test_random(void)
{
	uint32_t model[N_PF][DPR_RSRC_MAX]; /* gateway number, 0 = none */
	struct dpr_prefix p[N_PF];
	uint32_t base = dpr_nh_count(rib.nh);
	unsigned int i, s, round, wrong = 0;

	srandom(12345);
	memset(model, 0, sizeof(model));
	for (i = 0; i < N_PF; i++)
		p[i] = i % 2 ? pf4(IP(100, 64 + i, 0, 0), 16) : pf6((uint8_t)(16 + i), 40);
	for (round = 0; round < 3000; round++) {
		struct dpr_src_op ops[8];
		unsigned int n = 1 + (unsigned int)random() % 8;
		enum dpr_route_src src = (enum dpr_route_src)(random() % DPR_RSRC_MAX);

		for (i = 0; i < n; i++) {
			unsigned int k = (unsigned int)random() % N_PF;
			bool del = random() % 3 == 0;
			unsigned int g = 20 + (unsigned int)random() % N_GW;

			ops[i] = (struct dpr_src_op){ .prefix = p[k], .del = del,
						      .nh = del ? 0 : gw(g) };
			if (del && model[k][src] == 0)
				continue; /* -ENOENT, checked below */
			model[k][src] = del ? 0 : g;
		}
		dpr_route_src_apply(&rib, src, ops, n);
		for (i = 0; i < N_PF; i++) {
			uint32_t want = UINT32_MAX;

			for (s = 0; s < DPR_RSRC_MAX; s++) {
				if (model[i][s] != 0) {
					want = gw_idx(model[i][s]);
					break;
				}
			}
			wrong += fib_nh(&p[i]) != want;
		}
	}
	CHECK_EQ(wrong, 0);
	for (i = 0; i < N_PF; i++)
		for (s = 0; s < DPR_RSRC_MAX; s++)
			if (model[i][s] != 0)
				CHECK_EQ(one((enum dpr_route_src)s, &p[i], true, 0), 0);
	CHECK_EQ(dpr_nh_count(rib.nh), base);
	for (i = 0; i < N_PF; i++)
		CHECK_EQ(fib_nh(&p[i]), UINT32_MAX);
}

int
main(int argc, char **argv)
{
	struct dpr_fib4_conf fc = { .max_routes = 1024, .tbl8_groups = 64, .socket = 0 };
	struct dpr_fib6_conf fc6 = { .max_routes = 1024, .tbl8_groups = 256, .socket = 0 };

	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	rib.nh = dpr_nh_table_create(0);
	rib.fib4 = dpr_fib4_create(&fc, NULL);
	rib.fib6 = dpr_fib6_create(&fc6, NULL);
	rib.srcs = dpr_route_srcs_create();
	CHECK(rib.nh != NULL && rib.fib4 != NULL && rib.fib6 != NULL && rib.srcs != NULL,
	      "create");
	if (rib.srcs != NULL) {
		CHECK(strcmp(dpr_route_src_name(DPR_RSRC_FPM), "fpm") == 0, "name");
		CHECK_EQ(dpr_route_src_parse("kernel"), DPR_RSRC_KERNEL);
		CHECK_EQ(dpr_route_src_parse("bgp"), -EINVAL);
		test_preference();
		test_update_in_one_batch();
		test_router_owned();
		test_stale_sweep();
		test_random();
	}
	dpr_route_srcs_free(rib.srcs, rib.nh);
	dpr_fib4_free(rib.fib4);
	dpr_fib6_free(rib.fib6);
	dpr_nh_table_free(rib.nh);
	rte_eal_cleanup();
	return test_done("source");
}
