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
#include <rte_malloc.h>

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

/* The router's own route for @p p (an address's or a neighbour's). */
static int
router(const struct dpr_prefix *p, bool del, uint32_t nh)
{
	struct dpr_route_op op = { .prefix = *p, .del = del, .nh = nh };
	int err = 0;

	if (dpr_route_apply(&rib, &op, 1, &err) == 1)
		return 0;
	if (!del)
		dpr_nh_put(rib.nh, nh);  /* a refused op left the reference here */
	return err;
}

/* The reference rule holds (route.h): checked after every step. */
#define RIB_OK() do { \
	char why_[256] = ""; \
	CHECK(dpr_rib_check(&rib, NULL, NULL, why_, sizeof(why_)) == 0, "rib: %s", why_); \
} while (0)

/* The router's prefixes: refused to the operator, held under them for daemons. */
static void
test_router_owned(void)
{
	struct dpr_prefix p = pf4(IP(198, 51, 100, 1), 32);
	struct dpr_route_cands c;
	uint32_t base = dpr_nh_count(rib.nh);

	CHECK_EQ(router(&p, false, DPR_NH_LOCAL), 0);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(8)), -EPERM);
	CHECK(dpr_route_src_get(&rib, &p, &c) == -ENOENT, "the api's is not kept");
	CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(8)), -EPERM);
	CHECK_EQ(fib_nh(&p), DPR_NH_LOCAL);
	CHECK(dpr_route_src_get(&rib, &p, &c) == 0 && c.router && !c.in_fib,
	      "zebra's is held under the router's");
	RIB_OK();
	/* The router gives it back: zebra's is installed in the same op. */
	CHECK_EQ(router(&p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(8));
	RIB_OK();
	CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), UINT32_MAX);
	CHECK_EQ(dpr_nh_count(rib.nh), base);

	/* Case 3 of issue 50: an address over the operator's route, then
	 * gone: the operator's route is back, listed and forwarding. */
	p = pf4(IP(10, 88, 0, 0), 24);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(9)), 0);
	CHECK_EQ(one(DPR_RSRC_KERNEL, &p, false, gw(15)), 0);
	CHECK_EQ(router(&p, false, (uint32_t)dpr_nh_connected(rib.nh, 1)), 0);
	CHECK(fib_nh(&p) != gw_idx(9) && fib_nh(&p) != gw_idx(15), "the connected route wins");
	CHECK(dpr_route_src_get(&rib, &p, &c) == 0 && c.router &&
	      c.have == ((1u << DPR_RSRC_API) | (1u << DPR_RSRC_KERNEL)), "both wait");
	RIB_OK();
	/* The api's own delete while it waits: the kernel's is left. */
	CHECK_EQ(one(DPR_RSRC_API, &p, true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(9)), -EPERM);  /* told: the router's */
	RIB_OK();
	CHECK_EQ(router(&p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(15));
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(9)), 0);
	CHECK_EQ(fib_nh(&p), gw_idx(9));
	RIB_OK();
	CHECK_EQ(one(DPR_RSRC_API, &p, true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_KERNEL, &p, true, 0), 0);
	CHECK_EQ(fib_nh(&p), UINT32_MAX);
	RIB_OK();
	CHECK_EQ(dpr_nh_count(rib.nh), base);

	/* Case 5: a daemon's interface route shares the connected next hop
	 * with the address's subnet; its delete must not take the subnet. */
	{
		uint32_t conn = (uint32_t)dpr_nh_connected(rib.nh, 1);

		p = pf4(IP(10, 0, 9, 0), 24);
		CHECK_EQ(one(DPR_RSRC_KERNEL, &p, false, conn), 0);
		CHECK_EQ(router(&p, false, (uint32_t)dpr_nh_connected(rib.nh, 1)), 0);
		RIB_OK();
		CHECK_EQ(one(DPR_RSRC_KERNEL, &p, true, 0), 0);
		CHECK_EQ(fib_nh(&p), conn);
		RIB_OK();
		/* A source's delete of the router's prefix it does not hold
		 * changes nothing; the router's own delete takes it. */
		CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), -ENOENT);
		CHECK_EQ(fib_nh(&p), conn);
		CHECK_EQ(router(&p, true, 0), 0);
		CHECK_EQ(fib_nh(&p), UINT32_MAX);
		RIB_OK();
		/* And through FPM, with the address first. */
		CHECK_EQ(router(&p, false, (uint32_t)dpr_nh_connected(rib.nh, 1)), 0);
		CHECK_EQ(one(DPR_RSRC_FPM, &p, false, (uint32_t)dpr_nh_connected(rib.nh, 1)), -EPERM);
		CHECK_EQ(one(DPR_RSRC_FPM, &p, true, 0), 0);
		CHECK_EQ(fib_nh(&p), conn);
		RIB_OK();
		CHECK_EQ(router(&p, true, 0), 0);
		RIB_OK();
	}
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

/*
 * Case 1 of issue 50: a FIB of 16 routes refuses some of a batch. Every
 * refused route keeps its next hop (no reference dropped twice), waits,
 * and is installed when deletes make room; no route ever points at a next
 * hop freed and given to another gateway.
 */
static void
test_full_fib(void)
{
	struct dpr_prefix p[12], big = pf4(IP(172, 31, 0, 0), 16);
	struct dpr_src_op ops[12];
	struct dpr_route_src_counts n;
	uint32_t base = dpr_nh_count(rib.nh), members[2];
	unsigned int i, refused = 0;
	int grp;

	for (i = 0; i < 12; i++) {
		p[i] = pf4(IP(192, 168, i + 1, 0), 24);
		ops[i] = (struct dpr_src_op){ .prefix = p[i], .nh = gw(3) };
	}
	/* The FIB holds 16: 10 taken by the router's own below. */
	for (i = 0; i < 10; i++)
		CHECK_EQ(router(&(struct dpr_prefix){ .addr = { .af = DPR_AF_IP4,
							     .ip4 = IP(10, 9, 9, i + 1) },
						   .len = 32 }, false, DPR_NH_LOCAL), 0);
	CHECK_EQ(dpr_route_src_apply(&rib, DPR_RSRC_KERNEL, ops, 12), 6);
	for (i = 0; i < 12; i++)
		refused += ops[i].result == -ENOMEM;
	CHECK_EQ(refused, 6);
	dpr_route_src_counts(&rib, &n);
	CHECK_EQ(n.not_installed, 6);
	RIB_OK();
	/* Delete four refused and four installed ones, as the kernel did. */
	for (i = 0; i < 12; i++)
		ops[i] = (struct dpr_src_op){ .prefix = p[i], .del = 1 };
	CHECK_EQ(dpr_route_src_apply(&rib, DPR_RSRC_KERNEL, ops + 8, 4), 4);
	RIB_OK();
	CHECK_EQ(dpr_route_src_apply(&rib, DPR_RSRC_KERNEL, ops, 4), 4);
	RIB_OK();
	/* A route via another gateway may not take 10.0.0.3's next hop. */
	CHECK_EQ(one(DPR_RSRC_KERNEL, &big, false, gw(99)), 0);
	RIB_OK();
	for (i = 4; i < 8; i++)
		CHECK_EQ(fib_nh(&p[i]), gw_idx(3));  /* refused ones installed since */
	CHECK_EQ(fib_nh(&big), gw_idx(99));
	dpr_route_src_counts(&rib, &n);
	CHECK_EQ(n.not_installed, 0);

	/* A multipath group among the refused. */
	members[0] = gw(3);
	members[1] = gw(4);
	grp = dpr_nh_group_take(rib.nh, members, NULL, 2);
	CHECK(grp > 0, "group");
	for (i = 0; i < 4; i++)
		ops[i] = (struct dpr_src_op){ .prefix = p[i], .nh = gw(4) };
	ops[4] = (struct dpr_src_op){ .prefix = pf4(IP(192, 168, 100, 0), 24),
				      .nh = (uint32_t)grp };
	CHECK_EQ(dpr_route_src_apply(&rib, DPR_RSRC_FPM, ops, 5), 1);
	RIB_OK();
	/* The router gives back four of its own: the waiting ones go in. */
	for (i = 0; i < 4; i++)
		CHECK_EQ(router(&(struct dpr_prefix){ .addr = { .af = DPR_AF_IP4,
							     .ip4 = IP(10, 9, 9, i + 1) },
						   .len = 32 }, true, 0), 0);
	RIB_OK();
	CHECK_EQ(fib_nh(&ops[4].prefix), (uint32_t)grp);
	for (i = 0; i < 4; i++)
		CHECK_EQ(fib_nh(&p[i]), gw_idx(4));
	/* Everything away: every reference back. */
	for (i = 0; i < 4; i++)
		CHECK_EQ(one(DPR_RSRC_FPM, &p[i], true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_FPM, &ops[4].prefix, true, 0), 0);
	for (i = 4; i < 8; i++)
		CHECK_EQ(one(DPR_RSRC_KERNEL, &p[i], true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_KERNEL, &big, true, 0), 0);
	for (i = 4; i < 10; i++)
		CHECK_EQ(router(&(struct dpr_prefix){ .addr = { .af = DPR_AF_IP4,
							     .ip4 = IP(10, 9, 9, i + 1) },
						   .len = 32 }, true, 0), 0);
	RIB_OK();
	CHECK_EQ(dpr_nh_count(rib.nh), base);
}

/*
 * Random batches of every source and of the router on a few prefixes,
 * against a model that says which next hop each prefix must have, in a
 * FIB of @p room routes so that refusals happen all the time: a prefix's
 * FIB entry is the router's route or its most preferred candidate, or
 * (refused) nothing, never another one; the reference rule holds after
 * every batch.
 */
#define N_PF 24
#define N_GW 6

static void
test_random(unsigned int seed)
{
	uint32_t model[N_PF][DPR_RSRC_MAX]; /* gateway number, 0 = none */
	uint32_t rmodel[N_PF];              /* the router's: next hop + 1, 0 = none */
	struct dpr_prefix p[N_PF];
	uint32_t base = dpr_nh_count(rib.nh);
	unsigned int i, s, round, wrong = 0, bad_rib = 0, missing = 0;
	char why[256] = "";

	srandom(seed);
	memset(model, 0, sizeof(model));
	memset(rmodel, 0, sizeof(rmodel));
	for (i = 0; i < N_PF; i++)
		p[i] = i % 2 ? pf4(IP(100, 64 + i, 0, 0), 16) : pf6((uint8_t)(16 + i), 40);
	for (round = 0; round < 3000; round++) {
		struct dpr_src_op ops[8];
		unsigned int n = 1 + (unsigned int)random() % 8, ks[8];
		enum dpr_route_src src = (enum dpr_route_src)(random() % DPR_RSRC_MAX);
		bool told = src == DPR_RSRC_CONFIG || src == DPR_RSRC_API;

		if (random() % 5 == 0) {
			/* The router: an address's route comes or goes. */
			unsigned int k = (unsigned int)random() % N_PF;
			bool del = rmodel[k] != 0;
			uint32_t nh = del || random() % 2 ? DPR_NH_LOCAL :
				      (uint32_t)dpr_nh_connected(rib.nh, 2);

			if (router(&p[k], del, del ? 0 : nh) == 0)
				rmodel[k] = del ? 0 : nh + 1;
			else if (del)
				wrong++; /* a delete always fits */
		} else {
			for (i = 0; i < n; i++) {
				unsigned int k = (unsigned int)random() % N_PF;
				bool del = random() % 3 == 0;
				unsigned int g = 20 + (unsigned int)random() % N_GW;

				ks[i] = k;
				ops[i] = (struct dpr_src_op){ .prefix = p[k], .del = del,
							      .nh = del ? 0 : gw(g) };
				if (del && model[k][src] == 0)
					continue; /* -ENOENT */
				if (!del && told && rmodel[k] != 0)
					continue; /* -EPERM, not kept */
				model[k][src] = del ? 0 : g;
			}
			dpr_route_src_apply(&rib, src, ops, n);
			/* The operator's routes the FIB refused are not kept. */
			for (i = 0; i < n && told; i++)
				if (ops[i].result == -ENOSPC || ops[i].result == -ENOMEM)
					model[ks[i]][src] = 0;
		}
		for (i = 0; i < N_PF; i++) {
			uint32_t want = UINT32_MAX, got = fib_nh(&p[i]);

			for (s = 0; s < DPR_RSRC_MAX && rmodel[i] == 0; s++) {
				if (model[i][s] != 0) {
					want = gw_idx(model[i][s]);
					break;
				}
			}
			if (rmodel[i] != 0)
				want = rmodel[i] - 1;
			bool full = p[i].addr.af == DPR_AF_IP4 ?
				    rib.fib4->n_routes >= rib.fib4->conf.max_routes :
				    dpr_fib6_count(rib.fib6) >= rib.fib6->conf.max_routes;

			if (got == UINT32_MAX && want != UINT32_MAX && rmodel[i] == 0 && full)
				missing++;   /* refused: the FIB is full */
			else
				wrong += got != want;
		}
		if (dpr_rib_check(&rib, NULL, NULL, why, sizeof(why)) < 0 && bad_rib++ == 0)
			CHECK(false, "seed %u round %u: %s", seed, round, why);
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(bad_rib, 0);
	printf("seed %u: %u prefix-rounds waiting for room\n", seed, missing);
	for (i = 0; i < N_PF; i++) {
		for (s = 0; s < DPR_RSRC_MAX; s++)
			if (model[i][s] != 0)
				CHECK_EQ(one((enum dpr_route_src)s, &p[i], true, 0), 0);
		if (rmodel[i] != 0)
			CHECK_EQ(router(&p[i], true, 0), 0);
	}
	RIB_OK();
	CHECK_EQ(dpr_nh_count(rib.nh), base);
	for (i = 0; i < N_PF; i++)
		CHECK_EQ(fib_nh(&p[i]), UINT32_MAX);
}

/*
 * Issue 50, case 7: a delete on a full FIB makes room at once, for routes
 * and for tbl8 groups (the FIB waits the grace period itself when it has
 * to), not only after a grace period has passed.
 */
static void
test_room_at_once(void)
{
	struct dpr_prefix p, q;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		/* Two /25s take both tbl8 groups. */
		p = i < 2 ? pf4(IP(10, 1, i, 0), 25) : pf4(IP(10, 2 + i, 0, 0), 16);
		CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(30)), 0);
	}
	p = pf4(IP(10, 100, 0, 0), 16);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(30)), -ENOMEM);
	q = pf4(IP(10, 5, 0, 0), 16);
	CHECK_EQ(one(DPR_RSRC_API, &q, true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(30)), 0);         /* right away */
	p = pf4(IP(10, 1, 9, 0), 25);
	q = pf4(IP(10, 1, 0, 0), 25);
	CHECK_EQ(one(DPR_RSRC_API, &q, true, 0), 0);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(31)), 0);         /* a group freed just now */
	CHECK_EQ(fib_nh(&p), gw_idx(31));
	RIB_OK();
}

/*
 * A FIB out of tbl8 groups still has room for routes of /24 and shorter:
 * one long prefix it refuses must not hold back the short ones of the same
 * batch, or their cover forwards their traffic to its own gateway.
 */
static void
test_short_after_long_refused(void)
{
	struct dpr_prefix cover = pf4(IP(10, 0, 0, 0), 8), p[4];
	struct dpr_src_op ops[4];
	unsigned int i, ok;

	CHECK_EQ(one(DPR_RSRC_FPM, &cover, false, gw(40)), 0);
	p[0] = pf4(IP(10, 1, 1, 0), 25);    /* takes the only group */
	p[1] = pf4(IP(10, 2, 1, 0), 25);    /* no group left */
	p[2] = pf4(IP(10, 3, 0, 0), 16);
	p[3] = pf6(0x42, 48);
	for (i = 0; i < 4; i++)
		ops[i] = (struct dpr_src_op){ .prefix = p[i], .nh = gw(41 + i) };
	ok = dpr_route_src_apply(&rib, DPR_RSRC_FPM, ops, 4);
	CHECK_EQ(ok, 3);
	CHECK_EQ(ops[1].result, -ENOSPC);
	CHECK_EQ(ops[2].result, 0);
	CHECK_EQ(fib_nh(&p[0]), gw_idx(41));
	CHECK_EQ(fib_nh(&p[2]), gw_idx(43));
	CHECK_EQ(fib_nh(&p[3]), gw_idx(44));
	RIB_OK();
	/* Its group back: the refused one goes in. */
	CHECK_EQ(one(DPR_RSRC_FPM, &p[0], true, 0), 0);
	CHECK_EQ(fib_nh(&p[1]), gw_idx(42));
	RIB_OK();
}

/*
 * A Poptrie FIB that cannot grow (no hugepage memory left) refuses every
 * op of a batch, deletes too. A daemon's withdrawn route must then wait
 * for room like a refused add, and go when room comes back: not stay in
 * the FIB for good, forwarding to a gateway the daemon has dropped.
 */
static void
test_refused_delete(void)
{
	static void *hog[4096];
	struct dpr_prefix p, gone = pf4(IP(11, 0, 0, 0), 24), other = pf4(IP(11, 0, 25, 0), 24);
	static struct dpr_src_op ops[200];
	struct dpr_route_cands c;
	struct dpr_prefix kept;
	unsigned int i, n_hog = 0, sz, done, tries, left;
	char *text = NULL;
	const char *at;
	size_t len = 0;
	bool full = false;
	FILE *log;

	for (i = 0; i < 3000; i++) {
		p = pf4(IP(11, i / 40, (i % 40) * 5, 0), 24 + (i % 5));
		CHECK_EQ(one(DPR_RSRC_FPM, &p, false, gw(50)), 0);
	}
	p = pf4(IP(11, 0, 50, 0), 24);
	CHECK_EQ(one(DPR_RSRC_API, &p, false, gw(52)), 0);
	/* Every byte of memory taken, then routes until the FIB must grow. */
	for (sz = 64u << 20; sz >= 64; sz /= 2)
		while (n_hog < RTE_DIM(hog) && (hog[n_hog] = rte_malloc(NULL, sz, 0)) != NULL)
			n_hog++;
	for (i = 0; i < 100000 && !full; i++) {
		p = pf4(IP(12, i / 40 % 256, (i % 40) * 5, 0), 24 + (i % 5));
		full = one(DPR_RSRC_FPM, &p, false, gw(50)) == -ENOMEM;
	}
	CHECK(full, "the Poptrie FIB found no memory to grow into");
	CHECK_EQ(one(DPR_RSRC_FPM, &gone, true, 0), 0);
	RIB_OK();
	/* The operator's route.replace refused: the route it replaced stays
	 * the api's, now and once room comes back. */
	kept = pf4(IP(11, 0, 50, 0), 24);
	CHECK_EQ(one(DPR_RSRC_API, &kept, false, gw(53)), -ENOMEM);
	CHECK_EQ(fib_nh(&kept), gw_idx(52));
	RIB_OK();
	/* Many replaces in one batch (a gateway's routes moving): tried
	 * once, not once an op (each try logs the failure to grow). */
	for (i = 0; i < RTE_DIM(ops); i++)
		ops[i] = (struct dpr_src_op){ .nh = gw(51),
			.prefix = pf4(IP(11, (1000 + i) / 40, ((1000 + i) % 40) * 5, 0),
				      24 + ((1000 + i) % 5)) };
	log = open_memstream(&text, &len);
	if (log == NULL || rte_openlog_stream(log) != 0)
		abort();
	done = dpr_route_src_apply(&rib, DPR_RSRC_FPM, ops, RTE_DIM(ops));
	rte_openlog_stream(NULL);
	fclose(log);
	CHECK_EQ(done, 0);
	CHECK_EQ(ops[RTE_DIM(ops) - 1].result, -ENOMEM);
	for (tries = 0, at = text; (at = strstr(at, "no memory to grow")) != NULL; at++)
		tries++;
	CHECK(tries <= 2, "%u tries to grow the FIB for one batch", tries);
	free(text);
	RIB_OK();
	while (n_hog > 0)
		rte_free(hog[--n_hog]);
	/* Room again: the next change that makes some retries the rest. */
	CHECK_EQ(one(DPR_RSRC_FPM, &other, true, 0), 0);
	CHECK_EQ(fib_nh(&other), UINT32_MAX);
	CHECK_EQ(fib_nh(&gone), UINT32_MAX);
	CHECK_EQ(fib_nh(&kept), gw_idx(52));
	CHECK(dpr_route_src_get(&rib, &kept, &c) == 0 && c.winner == DPR_RSRC_API &&
	      c.nh[DPR_RSRC_API] == gw_idx(52), "the api's route stays the api's");
	for (i = 0, left = 0; i < RTE_DIM(ops); i++)
		left += fib_nh(&ops[i].prefix) != gw_idx(51);
	CHECK_EQ(left, 0);
	RIB_OK();
}

/* A rib of its own with room for @p v4 and @p v6 routes, as the global one. */
/* The rib of FIBs @p fc and @p fc6. */
static int
rib_make(const struct dpr_fib4_conf *fc, const struct dpr_fib6_conf *fc6)
{
	rib.nh = dpr_nh_table_create(0);
	rib.fib4 = dpr_fib4_create(fc, NULL);
	rib.fib6 = dpr_fib6_create(fc6, NULL);
	rib.srcs = dpr_route_srcs_create();
	CHECK(rib.nh != NULL && rib.fib4 != NULL && rib.fib6 != NULL && rib.srcs != NULL,
	      "create");
	return rib.srcs != NULL ? 0 : -1;
}

static int
rib_open(uint32_t v4, uint32_t v6, uint32_t tbl8)
{
	return rib_make(&(struct dpr_fib4_conf){ .max_routes = v4, .tbl8_groups = tbl8, .socket = 0 },
			&(struct dpr_fib6_conf){ .max_routes = v6, .tbl8_groups = 256, .socket = 0 });
}

/* A rib whose IPv4 FIB is a Poptrie, which grows as it needs. */
static int
rib_open_poptrie(void)
{
	return rib_make(&(struct dpr_fib4_conf){ .algorithm = DPR_FIB_POPTRIE,
						 .max_routes = 1 << 20, .socket = 0 },
			&(struct dpr_fib6_conf){ .max_routes = 64, .tbl8_groups = 16, .socket = 0 });
}

static void
rib_close(void)
{
	dpr_route_srcs_free(rib.srcs, rib.nh);
	dpr_fib4_free(rib.fib4);
	dpr_fib6_free(rib.fib6);
	dpr_nh_table_free(rib.nh);
	memset(&rib, 0, sizeof(rib));
}

int
main(int argc, char **argv)
{
	/* test_random() with DPR_TEST_SEEDS's seeds too, in both FIBs. */
	unsigned int seed, seed_first, seed_last;

	(void)argc;
	test_seeds(&seed_first, &seed_last);
	if (test_eal_init(argv[0]) < 0)
		return 1;
	if (rib_open(1024, 1024, 64) == 0) {
		CHECK(strcmp(dpr_route_src_name(DPR_RSRC_FPM), "fpm") == 0, "name");
		CHECK_EQ(dpr_route_src_parse("kernel"), DPR_RSRC_KERNEL);
		CHECK_EQ(dpr_route_src_parse("bgp"), -EINVAL);
		test_preference();
		RIB_OK();
		test_update_in_one_batch();
		RIB_OK();
		test_router_owned();
		test_stale_sweep();
		RIB_OK();
		test_random(12345);
		for (seed = seed_first; seed <= seed_last; seed++)
			test_random(seed);
	}
	rib_close();
	/* A FIB of a few routes: refusals all the time. */
	if (rib_open(16, 8, 64) == 0) {
		test_full_fib();
		test_random(1);
		test_random(2);
		for (seed = seed_first; seed <= seed_last; seed++)
			test_random(seed);
	}
	rib_close();
	if (rib_open(16, 8, 2) == 0)
		test_room_at_once();
	rib_close();
	if (rib_open(64, 64, 1) == 0)
		test_short_after_long_refused();
	rib_close();
	if (rib_open_poptrie() == 0)
		test_refused_delete();
	rib_close();
	rte_eal_cleanup();
	return test_done("source");
}
