/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 FIB, on each of its algorithms (DIR-24-8 and Poptrie): changes
 * reach lookups, failures are partial, reported and change nothing, random
 * churn agrees with a plain reference (and Poptrie with its own
 * self-check), and a reader on another lcore that keeps looking up under
 * RCU never sees a wrong answer while routes churn. DIR-24-8's chains of
 * tbl8 groups: groups come back when their long prefixes go, run out with
 * -ENOSPC, and a group unlinked under a reader is not reused before the
 * reader's quiescent state.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include "fib/fib6.h"
#include "fib/poptrie.h"
#include "nexthop/nexthop.h"
#include "test.h"
#include "test_algo.h"

#define READER_LCORE 1

/* --- addresses as two host-order halves -------------------------------- */

struct a6 {
	uint64_t hi;
	uint64_t lo;
};

static struct a6
a6_load(const uint8_t *b)
{
	uint64_t hi, lo;

	memcpy(&hi, b, 8);
	memcpy(&lo, b + 8, 8);
	return (struct a6){ rte_be_to_cpu_64(hi), rte_be_to_cpu_64(lo) };
}

static void
a6_store(struct a6 a, uint8_t *b)
{
	uint64_t hi = rte_cpu_to_be_64(a.hi), lo = rte_cpu_to_be_64(a.lo);

	memcpy(b, &hi, 8);
	memcpy(b + 8, &lo, 8);
}

static struct a6
a6_mask(struct a6 a, uint8_t depth)
{
	if (depth <= 64)
		return (struct a6){ depth == 0 ? 0 : a.hi & UINT64_MAX << (64 - depth), 0 };
	return (struct a6){ a.hi, a.lo & UINT64_MAX << (128 - depth) };
}

/* The last address of @p a/@p depth. */
static struct a6
a6_last(struct a6 a, uint8_t depth)
{
	struct a6 m = a6_mask((struct a6){ UINT64_MAX, UINT64_MAX }, depth);

	return (struct a6){ a.hi | ~m.hi, a.lo | ~m.lo };
}

static struct a6
a6_step(struct a6 a, bool up)
{
	if (up)
		return (struct a6){ a.hi + (a.lo == UINT64_MAX), a.lo + 1 };
	return (struct a6){ a.hi - (a.lo == 0), a.lo - 1 };
}

static bool
a6_eq(struct a6 x, struct a6 y)
{
	return x.hi == y.hi && x.lo == y.lo;
}

static void
parse(const char *s, uint8_t ip[16])
{
	if (inet_pton(AF_INET6, s, ip) != 1) {
		fprintf(stderr, "bad address %s\n", s);
		abort();
	}
}

static const char *
fmt(const uint8_t ip[16], char *buf)
{
	return inet_ntop(AF_INET6, ip, buf, INET6_ADDRSTRLEN);
}

static uint32_t
lookup(const struct dpr_fib6 *fib, const uint8_t ip[16])
{
	const uint8_t *p = ip;
	uint32_t nh = UINT32_MAX;

	dpr_fib6_lookup_bulk(fib, &p, &nh, 1);
	CHECK_EQ(nh, dpr_fib6_lookup(fib, ip));
	return nh;
}

static uint32_t
lookup_s(const struct dpr_fib6 *fib, const char *s)
{
	uint8_t ip[16];

	parse(s, ip);
	return lookup(fib, ip);
}

static struct dpr_fib6_op
op_add(const char *s, uint8_t depth, uint32_t nh)
{
	struct dpr_fib6_op op = { .depth = depth, .nh = nh };

	parse(s, op.ip);
	return op;
}

static struct dpr_fib6_op
op_del(const char *s, uint8_t depth)
{
	struct dpr_fib6_op op = { .depth = depth, .del = 1 };

	parse(s, op.ip);
	return op;
}

static struct dpr_fib6 *
create(enum dpr_fib_algo algo, uint32_t max_routes, uint32_t groups, struct rte_rcu_qsbr *qsbr)
{
	struct dpr_fib6_conf fc = { .algorithm = algo, .max_routes = max_routes,
				    .tbl8_groups = groups, .socket = 0 };
	struct dpr_fib6 *fib = dpr_fib6_create(&fc, qsbr);

	CHECK(fib != NULL, "create %s with %u groups: %s", dpr_fib_algo_name(algo), groups,
	      strerror(errno));
	return fib;
}

/* Whether @p fib has tbl24 and chains of tbl8 groups (what some checks are about). */
static bool
dir24(const struct dpr_fib6 *fib)
{
	return fib->conf.algorithm == DPR_FIB_DIR24_8;
}

static void
test_update(enum dpr_fib_algo algo)
{
	struct dpr_fib6 *fib = create(algo, 1024, 64, NULL);
	struct dpr_fib6_op ops[6];
	uint8_t ip[16], prefix[16], want[16], depth;
	uint32_t nh;
	int err;

	if (fib == NULL)
		return;
	ops[0] = op_add("2001:db8::", 32, 5);
	ops[1] = op_add("2001:db8:1::", 48, 6);
	ops[2] = op_add("2001:db8:1:2::", 64, 7);
	ops[3] = op_add("2001:db8:1:2::1", 128, 8);
	ops[4] = op_add("2001:db8:1:2:8000::", 65, 9);
	ops[5] = op_add("2001:1a00::", 20, 3);
	CHECK_EQ(dpr_fib6_update(fib, ops, 6, &err), 6);
	CHECK_EQ(err, 0);
	CHECK_EQ(dpr_fib6_count(fib), 6);
	CHECK_EQ(lookup_s(fib, "2001:db8:ffff::1"), 5);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:ffff::1"), 6);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2::2"), 7);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2::1"), 8);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2:8000::5"), 9);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2:7fff:ffff:ffff:ffff"), 7);
	CHECK_EQ(lookup_s(fib, "2001:1fff:ffff::1"), 3);
	CHECK_EQ(lookup_s(fib, "2001:1000::"), 3);
	CHECK_EQ(lookup_s(fib, "2001:fff:ffff::1"), DPR_NH_NONE);
	CHECK_EQ(lookup_s(fib, "2001:2000::1"), DPR_NH_NONE);
	CHECK_EQ(lookup_s(fib, "2001:db9::1"), DPR_NH_NONE);
	CHECK_EQ(lookup_s(fib, "::"), DPR_NH_NONE);
	/* The /128's chain: one group for each of bytes 3 to 15, which the
	 * others share (DIR-24-8; Poptrie has none). */
	CHECK_EQ(dpr_fib6_tbl8_used(fib), dir24(fib) ? 13 : 0);
	parse("2001:db8:1:2:8000::5", ip);
	CHECK_EQ(dpr_fib6_lpm(fib, ip, prefix, &depth, &nh), 0);
	parse("2001:db8:1:2:8000::", want);
	CHECK(memcmp(prefix, want, 16) == 0 && depth == 65 && nh == 9, "lpm /65");
	/* get() ignores the bits past the depth. */
	parse("2001:db8:1:2::ffff", ip);
	CHECK_EQ(dpr_fib6_get(fib, ip, 64, &nh), 0);
	CHECK_EQ(nh, 7);
	CHECK_EQ(dpr_fib6_get(fib, ip, 63, &nh), -ENOENT);
	CHECK_EQ(dpr_fib6_get(fib, ip, 129, &nh), -ENOENT);

	/* Replace, delete, then a delete of a missing route stops the batch. */
	ops[0] = op_add("2001:db8:1::", 48, 10);
	ops[1] = op_del("2001:db8:1:2::1", 128);
	ops[2] = op_del("2001:db8:1::", 40);
	ops[3] = op_add("2001:db8:1::", 40, 11);
	CHECK_EQ(dpr_fib6_update(fib, ops, 4, &err), 2);
	CHECK_EQ(err, -ENOENT);
	CHECK(ops[0].existed && ops[0].old_nh == 6, "replace reports the old next hop");
	CHECK(ops[1].existed && ops[1].old_nh == 8, "delete reports the old next hop");
	CHECK(!ops[2].existed, "the missing route");
	CHECK_EQ(dpr_fib6_count(fib), 5);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:ffff::1"), 10);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2::1"), 7);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2:8000::1"), 9);
	/* Bytes 9 to 15 held only the /128: their groups went with it. */
	CHECK_EQ(dpr_fib6_tbl8_used(fib), dir24(fib) ? 6 : 0);
	ops[0] = op_del("2001:db8:1:2:8000::", 65);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2:8000::1"), 7);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), dir24(fib) ? 5 : 0);
	parse("2001:db8:1:2:8000::1", ip);
	CHECK_EQ(dpr_fib6_lpm(fib, ip, prefix, &depth, &nh), 0);
	parse("2001:db8:1:2::", want);
	CHECK(memcmp(prefix, want, 16) == 0 && depth == 64 && nh == 7, "lpm /64");

	/* Bad ops stop the batch before they change anything. */
	ops[0] = op_add("2001:db8::1", 129, 3);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	ops[0] = op_add("2001:db8:5::", 48, DPR_FIB6_NH_BITS + 1);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	ops[0] = op_del("2001:db8::", 129);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -EINVAL);
	CHECK_EQ(dpr_fib6_count(fib), 4);
	CHECK_EQ(lookup_s(fib, "2001:db8:5::1"), 5);
	ops[0] = op_add("2001:db8:5::", 48, DPR_NH_MAX - 1);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup_s(fib, "2001:db8:5::1"), DPR_NH_MAX - 1);

	/* A default route answers what nothing else does, and goes again. */
	ops[0] = op_add("::", 0, 4);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup_s(fib, "3fff::1"), 4);
	CHECK_EQ(lookup_s(fib, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 4);
	CHECK_EQ(lookup_s(fib, "2001:2000::1"), 4);
	CHECK_EQ(lookup_s(fib, "2001:1000::1"), 3);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2::1"), 7);
	parse("3fff::1", ip);
	CHECK_EQ(dpr_fib6_lpm(fib, ip, prefix, &depth, &nh), 0);
	memset(want, 0, sizeof(want));
	CHECK(memcmp(prefix, want, 16) == 0 && depth == 0 && nh == 4, "lpm of the default route");
	ops[0].del = 1;
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 1);
	CHECK_EQ(lookup_s(fib, "3fff::1"), DPR_NH_NONE);
	CHECK_EQ(lookup_s(fib, "2001:db8:1:2::1"), 7);
	CHECK_EQ(dpr_fib6_lpm(fib, ip, prefix, &depth, &nh), -ENOENT);
	dpr_fib6_free(fib);
}

/*
 * DIR-24-8's groups run out: a route whose chain needs more groups than
 * are free fails with -ENOSPC and changes nothing, one that needs fewer
 * still fits. On a FIB of 14 groups, with room for 8 routes; ends with
 * 3001:db8::/32 to 4 and 3001:db8::1/128 to 3.
 */
static void
limits_groups(struct dpr_fib6 *fib)
{
	struct dpr_fib6_op ops[3];
	uint64_t g;
	int err;

	ops[0] = op_add("2001:db8::1", 128, 2);
	ops[1] = op_add("3001:db8::1", 128, 3);
	CHECK_EQ(dpr_fib6_update(fib, ops, 2, &err), 1);
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 13);
	CHECK_EQ(dpr_fib6_count(fib), 1);
	CHECK_EQ(lookup_s(fib, "3001:db8::1"), DPR_NH_NONE);
	CHECK_EQ(lookup_s(fib, "2001:db8::1"), 2);
	CHECK_EQ(lookup_s(fib, "2001:db8::"), DPR_NH_NONE);
	/* A /33 needs two groups, for bytes 3 and 4; a /32 needs one. */
	ops[0] = op_add("3001:db8::", 33, 4);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 13);
	/* One group left: a /32 fits, and so does a /128 on the chain there is. */
	ops[0] = op_add("3001:db8::", 32, 4);
	ops[1] = op_add("2001:db8::2", 128, 5);
	CHECK_EQ(dpr_fib6_update(fib, ops, 2, &err), 2);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 14);
	CHECK_EQ(lookup_s(fib, "3001:db8::1"), 4);
	CHECK_EQ(lookup_s(fib, "2001:db8::2"), 5);
	/* Deleting one chain and adding another in the same batch reuses its
	 * groups: the batch waits for them. */
	g = fib->grace_periods;
	ops[0] = op_del("2001:db8::1", 128);
	ops[1] = op_del("2001:db8::2", 128);
	ops[2] = op_add("3001:db8::1", 128, 3);
	CHECK_EQ(dpr_fib6_update(fib, ops, 3, &err), 3);
	CHECK_EQ(err, 0);
	CHECK_EQ(fib->grace_periods, g + 2); /* before the add, and at the end */
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 13);
	CHECK_EQ(lookup_s(fib, "3001:db8::1"), 3);
	CHECK_EQ(lookup_s(fib, "3001:db8::2"), 4);
	CHECK_EQ(lookup_s(fib, "2001:db8::1"), DPR_NH_NONE);

	/* A /48 in a /24 without groups needs three; one is free. */
	ops[0] = op_add("2001:db8:1::", 48, 6);
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 0);
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 13);
}

/*
 * The limits: DIR-24-8's tbl8 groups (-ENOSPC; Poptrie has none), then
 * max_routes routes (-ENOMEM, both).
 */
static void
test_limits(enum dpr_fib_algo algo)
{
	struct dpr_fib6 *fib = create(algo, 8, 14, NULL);
	struct dpr_fib6_op ops[8];
	unsigned int i;
	uint32_t nh;
	int err;

	if (fib == NULL)
		return;
	if (dir24(fib)) {
		limits_groups(fib);
	} else {
		ops[0] = op_add("3001:db8::1", 128, 3);
		ops[1] = op_add("3001:db8::", 32, 4);
		CHECK_EQ(dpr_fib6_update(fib, ops, 2, &err), 2);
	}

	/* Up to max_routes routes, then -ENOMEM; a replace still works. */
	for (i = 0; i < 8; i++) {
		char s[32];

		snprintf(s, sizeof(s), "%x::", 0x4000 + i);
		ops[i] = op_add(s, 16, 6);
	}
	CHECK_EQ(dpr_fib6_update(fib, ops, 8, &err), 6);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(dpr_fib6_count(fib), 8);
	CHECK_EQ(lookup_s(fib, "4005::1"), 6);
	CHECK_EQ(lookup_s(fib, "4006::1"), DPR_NH_NONE);
	CHECK_EQ(dpr_fib6_get(fib, ops[6].ip, 16, &nh), -ENOENT);
	ops[0].nh = 7;
	CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 1);
	CHECK(ops[0].existed && ops[0].old_nh == 6, "replace at capacity");
	CHECK_EQ(lookup_s(fib, "4000::1"), 7);
	CHECK_EQ(lookup_s(fib, "3001:db8::1"), 3);
	CHECK_EQ(lookup_s(fib, "3001:db8::2"), 4);
	/* A delete makes room for one more, in the same batch. */
	ops[0] = op_del("4001::", 16);
	ops[1] = op_add("4006::", 16, 8);
	ops[2] = op_add("4007::", 16, 8);
	CHECK_EQ(dpr_fib6_update(fib, ops, 3, &err), 2);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(lookup_s(fib, "4001::1"), DPR_NH_NONE);
	CHECK_EQ(lookup_s(fib, "4006::1"), 8);
	CHECK_EQ(lookup_s(fib, "4007::1"), DPR_NH_NONE);
	CHECK_EQ(dpr_fib6_count(fib), 8);
	dpr_fib6_free(fib);
}

/* @p op alone through dpr_fib6_update(), which must wait @p want grace periods. */
static void
check_waits(struct dpr_fib6 *fib, struct dpr_fib6_op op, uint64_t want, const char *what)
{
	uint64_t g = fib->grace_periods;
	int err;

	CHECK_EQ(dpr_fib6_update(fib, &op, 1, &err), 1);
	CHECK(fib->grace_periods - g == want, "%s %s: %" PRIu64 " grace periods, want %" PRIu64,
	      dpr_fib_algo_name(fib->conf.algorithm), what, fib->grace_periods - g, want);
}

/*
 * A batch that only adds new prefixes waits for no grace period; replacing
 * or deleting a route, or unlinking groups, waits exactly one: route.c
 * frees the old next hop when the update returns. An RCU variable with no
 * reader registered: each wait returns at once, but counts.
 */
static void
test_grace_periods(enum dpr_fib_algo algo)
{
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), 64);
	struct dpr_fib6_op host = op_add("2001:db8:1:2::1", 128, 5);
	struct dpr_fib6_op net = op_add("2001:db8::", 32, 5);
	struct dpr_fib6_op alone = op_add("3000::", 16, 5);
	struct dpr_fib6 *fib = NULL;

	CHECK(qsbr != NULL && rte_rcu_qsbr_init(qsbr, 1) == 0, "qsbr");
	if (qsbr == NULL || (fib = create(algo, 1024, 64, qsbr)) == NULL)
		goto out;
	check_waits(fib, host, 0, "add 2001:db8:1:2::1/128");
	check_waits(fib, net, 0, "add 2001:db8::/32");
	net.nh = 6;
	check_waits(fib, net, 1, "replace 2001:db8::/32");
	host.del = 1;
	check_waits(fib, host, 1, "delete 2001:db8:1:2::1/128 (and twelve tbl8 groups)");
	CHECK_EQ(dpr_fib6_tbl8_used(fib), dir24(fib) ? 1 : 0);
	/* The same for a route with nothing longer below it. */
	check_waits(fib, alone, 0, "add 3000::/16");
	alone.nh = 6;
	check_waits(fib, alone, 1, "replace 3000::/16");
	alone.del = 1;
	check_waits(fib, alone, 1, "delete 3000::/16");
out:
	dpr_fib6_free(fib);
	rte_free(qsbr);
}

/* --- random churn against a plain reference ---------------------------- */

struct ref_rule {
	struct a6 ip;
	uint8_t depth;
	uint32_t nh;
	struct a6 mask; /* for ref_lpm(), the hot loop of the test */
};

#define REF_MAX 8192

struct ref {
	struct ref_rule r[REF_MAX];
	unsigned int n;
};

static unsigned int diff_bad;

/* Report the first few mismatches in full, count the rest. */
#define DIFF(cond, ...) do { \
		if (!(cond) && diff_bad++ < 5) \
			CHECK(cond, __VA_ARGS__); \
	} while (0)

static int
ref_find(const struct ref *ref, struct a6 ip, uint8_t depth)
{
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if (a6_eq(ref->r[i].ip, ip) && ref->r[i].depth == depth)
			return (int)i;
	return -1;
}

/* Longest match by brute force; -1 when no rule covers @p ip. */
static int
ref_lpm(const struct ref *ref, struct a6 ip)
{
	const struct ref_rule *r = ref->r;
	int best = -1, best_depth = -1;
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if ((ip.hi & r[i].mask.hi) == r[i].ip.hi && (ip.lo & r[i].mask.lo) == r[i].ip.lo &&
		    r[i].depth > best_depth) {
			best = (int)i;
			best_depth = r[i].depth;
		}
	return best;
}

/*
 * Addresses cluster: hot ones lie under 16 /32s, and their later bytes come
 * mostly from four values, so that long prefixes share groups deep down
 * their chains, and groups collapse and come back as routes go and come.
 */
static const uint8_t hot24[][3] = {
	{ 0x20, 0x01, 0x0d }, { 0x2a, 0x00, 0x14 }, { 0x24, 0x00, 0xcb }, { 0x26, 0x00, 0x1f },
};
static const uint8_t hot_byte[] = { 0x00, 0x01, 0x80, 0xff };

static struct a6
random_addr(bool hot)
{
	uint8_t b[16];
	unsigned int i;

	if (!hot)
		return (struct a6){ rte_rand(), rte_rand() };
	/* 16 /32s: 0xb0-0xb3 under each /24. */
	memcpy(b, hot24[rte_rand() % RTE_DIM(hot24)], 3);
	b[3] = (uint8_t)(0xb0 + rte_rand() % 4);
	for (i = 4; i < 16; i++)
		b[i] = rte_rand() % 4 != 0 ? hot_byte[rte_rand() % RTE_DIM(hot_byte)] :
			(uint8_t)rte_rand();
	return a6_load(b);
}

static void
random_prefix(struct a6 *ip, uint8_t *depth)
{
	unsigned int pick = (unsigned int)(rte_rand() % 10000);

	/* Short prefixes rewrite up to 2^24 tbl24 entries: a few are enough. */
	if (pick < 1)
		*depth = 0;
	else if (pick < 8)
		*depth = (uint8_t)(1 + rte_rand() % 11);
	else if (pick < 1500)
		*depth = (uint8_t)(12 + rte_rand() % 13);
	else if (pick < 5500)
		*depth = (uint8_t)(25 + rte_rand() % 40);
	else
		*depth = (uint8_t)(65 + rte_rand() % 64);
	/* A short prefix over a hot /32 rewrites every group below it: some,
	 * not most, should. */
	*ip = a6_mask(random_addr(*depth > 40 || rte_rand() % 8 == 0), *depth);
}

struct node {
	struct a6 ip;
	uint8_t len;
};

static int
cmp_node(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	if (x->len != y->len)
		return (int)x->len - (int)y->len;
	if (x->ip.hi != y->ip.hi)
		return x->ip.hi < y->ip.hi ? -1 : 1;
	if (x->ip.lo != y->ip.lo)
		return x->ip.lo < y->ip.lo ? -1 : 1;
	return 0;
}

/* One group for each /L block (L = 24, 32, ..., 120) with a longer route in it. */
static unsigned int
groups_needed(const struct ref *ref)
{
	static struct node nodes[REF_MAX * 13];
	unsigned int i, n = 0, distinct = 0;

	for (i = 0; i < ref->n; i++) {
		uint8_t len;

		for (len = 24; len < ref->r[i].depth; len += 8)
			nodes[n++] = (struct node){ a6_mask(ref->r[i].ip, len), len };
	}
	qsort(nodes, n, sizeof(nodes[0]), cmp_node);
	for (i = 0; i < n; i++)
		distinct += i == 0 || cmp_node(&nodes[i], &nodes[i - 1]) != 0;
	return distinct;
}

/*
 * The walk as a worker makes it in a deep FIB: the first @p steps levels
 * below tbl24 taken by dpr_fib6_step() (no branch; a leaf stays itself),
 * the rest by dpr_fib6_walk_at().
 */
static uint32_t
lookup_stepped(const struct dpr_fib6 *fib, const uint8_t ip[16], unsigned int steps)
{
	uint32_t e = fib->tbl24[dpr_fib6_tbl24_index(ip)];
	unsigned int k;

	for (k = 3; k < 3 + steps; k++)
		e = dpr_fib6_step(fib->tbl8, e, ip[k]);
	return dpr_fib6_walk_at(fib->tbl8, e, ip, 3 + steps);
}

static void
check_addrs(struct dpr_fib6 *fib, const struct ref *ref, const struct a6 *addrs, unsigned int n)
{
	uint8_t bytes[32][16], prefix[16], want_prefix[16];
	const uint8_t *p[32];
	uint32_t nh[32], got_nh;
	unsigned int i, k;
	char s[2][INET6_ADDRSTRLEN];
	uint8_t depth;

	for (i = 0; i < n; i += 32) {
		unsigned int m = RTE_MIN(32u, n - i);

		for (k = 0; k < m; k++) {
			a6_store(addrs[i + k], bytes[k]);
			p[k] = bytes[k];
		}
		dpr_fib6_lookup_bulk(fib, p, nh, m);
		for (k = 0; k < m; k++) {
			int best = ref_lpm(ref, addrs[i + k]);
			uint32_t want = best < 0 ? DPR_NH_NONE : ref->r[best].nh;
			int ret = dpr_fib6_lpm(fib, bytes[k], prefix, &depth, &got_nh);

			DIFF(nh[k] == want, "%s: bulk lookup %u, want %u", fmt(bytes[k], s[0]),
			     nh[k], want);
			DIFF(dpr_fib6_lookup(fib, bytes[k]) == want, "%s: lookup %u, want %u",
			     fmt(bytes[k], s[0]), dpr_fib6_lookup(fib, bytes[k]), want);
			/* 0 to 13 steps (byte 15's level holds leaves only):
			 * a deep DIR-24-8 FIB's walk. */
			if (dir24(fib))
				DIFF(lookup_stepped(fib, bytes[k], (i + k) % 14) == want,
				     "%s: %u steps then the walk: %u, want %u", fmt(bytes[k], s[0]),
				     (i + k) % 14, lookup_stepped(fib, bytes[k], (i + k) % 14),
				     want);
			if (best < 0) {
				DIFF(ret == -ENOENT, "%s: lpm found %s/%u, want none",
				     fmt(bytes[k], s[0]), fmt(prefix, s[1]), depth);
				continue;
			}
			a6_store(ref->r[best].ip, want_prefix);
			DIFF(ret == 0 && memcmp(prefix, want_prefix, 16) == 0 &&
			     depth == ref->r[best].depth && got_nh == want,
			     "%s: lpm %d %s/%u nh %u, want /%u nh %u", fmt(bytes[k], s[0]), ret,
			     fmt(prefix, s[1]), depth, got_nh, ref->r[best].depth, want);
		}
	}
}

/* Random addresses, both ends of some routes and the addresses just past
 * them, every route by exact match, the route count, and DIR-24-8's tbl8
 * groups (Poptrie's self-check runs after every batch). */
static void
check_fib(struct dpr_fib6 *fib, const struct ref *ref, unsigned int n_edges)
{
	static struct a6 addrs[1024 + 4 * REF_MAX];
	unsigned int i, n = 0;
	uint8_t ip[16];
	uint32_t nh;

	for (i = 0; i < 1024; i++)
		addrs[n++] = random_addr(i % 4 != 0);
	for (i = 0; i < n_edges && ref->n > 0; i++) {
		const struct ref_rule *r = &ref->r[n_edges >= ref->n ? i % ref->n :
						     rte_rand() % ref->n];
		struct a6 last = a6_last(r->ip, r->depth);

		addrs[n++] = r->ip;
		addrs[n++] = last;
		addrs[n++] = a6_step(r->ip, false);
		addrs[n++] = a6_step(last, true);
	}
	check_addrs(fib, ref, addrs, n);
	for (i = 0; i < ref->n; i++) {
		int ret;

		a6_store(ref->r[i].ip, ip);
		ret = dpr_fib6_get(fib, ip, ref->r[i].depth, &nh);
		DIFF(ret == 0 && nh == ref->r[i].nh, "get #%u /%u: %d nh %u, want %u", i,
		     ref->r[i].depth, ret, nh, ref->r[i].nh);
	}
	DIFF(dpr_fib6_count(fib) == ref->n, "%u routes, want %u", dpr_fib6_count(fib), ref->n);
	if (dir24(fib))
		DIFF(dpr_fib6_tbl8_used(fib) == groups_needed(ref), "%u tbl8 groups used, want %u",
		     dpr_fib6_tbl8_used(fib), groups_needed(ref));
}

static int
cmp_rule(const void *a, const void *b)
{
	const struct ref_rule *x = a, *y = b;

	if (x->ip.hi != y->ip.hi)
		return x->ip.hi < y->ip.hi ? -1 : 1;
	if (x->ip.lo != y->ip.lo)
		return x->ip.lo < y->ip.lo ? -1 : 1;
	return (int)x->depth - (int)y->depth;
}

/* dpr_fib6_list() in pages of 97 gives the routes sorted by (ip, depth). */
static void
check_list(struct dpr_fib6 *fib, const struct ref *ref)
{
	static struct ref sorted;
	struct dpr_fib6_route page[97], cur, *after = NULL;
	unsigned int seen = 0;
	bool more = true;
	int i, n;

	sorted = *ref;
	qsort(sorted.r, sorted.n, sizeof(sorted.r[0]), cmp_rule);
	while (more) {
		n = dpr_fib6_list(fib, after, page, RTE_DIM(page), &more);
		CHECK(n > 0 || (n == 0 && !more && seen == sorted.n), "list page: %d", n);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++, seen++)
			DIFF(seen < sorted.n && a6_eq(a6_load(page[i].ip), sorted.r[seen].ip) &&
			     page[i].depth == sorted.r[seen].depth && page[i].nh == sorted.r[seen].nh,
			     "list #%u: /%u nh %u", seen, page[i].depth, page[i].nh);
		cur = page[n - 1];
		after = &cur;
	}
	CHECK_EQ(seen, sorted.n);
	/* A cursor that is no route resumes at the next one. */
	if (sorted.n > 1) {
		struct ref_rule c = { sorted.r[0].ip, sorted.r[0].depth, 0 };

		while (c.depth < 128 && ref_find(ref, c.ip, c.depth) >= 0)
			c.depth++;
		a6_store(c.ip, cur.ip);
		cur.depth = c.depth;
		n = dpr_fib6_list(fib, &cur, page, 1, &more);
		CHECK(n == 1 && cmp_rule(&(struct ref_rule){ a6_load(page[0].ip), page[0].depth, 0 },
					 &c) > 0, "resume after /%u: /%u", c.depth, page[0].depth);
	}
}

static void
test_random_churn(enum dpr_fib_algo algo)
{
	struct dpr_fib6 *fib = create(algo, 1 << 16, 1 << 16, NULL);
	static struct ref ref;
	struct dpr_fib6_op ops[8], want[8];
	unsigned int batch, i, n, zero = 0, added = 0, deleted = 0, replaced = 0, peak = 0;
	unsigned int long_routes = 0, peak_groups = 0;
	uint32_t t, used0;
	int err;

	if (fib == NULL)
		return;
	used0 = dpr_fib6_tbl8_used(fib);
	rte_srand(20240602);
	ref.n = 0;
	diff_bad = 0;
	for (batch = 0; batch < 3000; batch++) {
		/* A default route from the start and again half-way (random
		 * ops draw /0 rarely): deletes fall back to it. */
		if ((batch == 0 || batch == 1500) && ref_find(&ref, (struct a6){ 0, 0 }, 0) < 0) {
			ops[0] = (struct dpr_fib6_op){ .depth = 0, .nh = 1 };
			CHECK_EQ(dpr_fib6_update(fib, ops, 1, &err), 1);
			ref.r[ref.n++] = (struct ref_rule){ { 0, 0 }, 0, 1, { 0, 0 } };
		}
		n = 1 + (unsigned int)(rte_rand() % RTE_DIM(ops));
		for (i = 0; i < n; i++) {
			bool del = ref.n > 0 && rte_rand() % 100 < (ref.n < 2500 ? 35u : 60u);
			struct a6 ip;
			uint8_t depth;
			int k;

			if (del) {
				const struct ref_rule *r = &ref.r[rte_rand() % ref.n];

				ip = r->ip;
				depth = r->depth;
				ops[i] = (struct dpr_fib6_op){ .depth = depth, .del = 1 };
			} else {
				random_prefix(&ip, &depth);
				ops[i] = (struct dpr_fib6_op){ .depth = depth,
							       .nh = 2 + (uint32_t)(rte_rand() % 1000) };
			}
			/* Host bits in the op are ignored. */
			if (rte_rand() % 2) {
				struct a6 m = a6_mask((struct a6){ UINT64_MAX, UINT64_MAX }, depth);

				a6_store((struct a6){ ip.hi | (rte_rand() & ~m.hi),
						      ip.lo | (rte_rand() & ~m.lo) }, ops[i].ip);
			} else {
				a6_store(ip, ops[i].ip);
			}
			/* The reference, op by op (a batch may delete what it added). */
			want[i] = ops[i];
			k = ref_find(&ref, ip, depth);
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
				ref.r[ref.n++] = (struct ref_rule){
					ip, depth, ops[i].nh,
					a6_mask((struct a6){ UINT64_MAX, UINT64_MAX }, depth),
				};
				added++;
				long_routes += depth > 64;
			}
			/* A delete of what the batch already deleted is an
			 * error; end the batch with it. */
			if (ops[i].del && !want[i].existed)
				break;
		}
		if (i < n) {
			/* The last op deletes a missing route: all before it apply. */
			CHECK_EQ(dpr_fib6_update(fib, ops, i + 1, &err), i);
			CHECK_EQ(err, -ENOENT);
			n = i;
		} else {
			CHECK_EQ(dpr_fib6_update(fib, ops, n, &err), n);
			CHECK_EQ(err, 0);
		}
		for (i = 0; i < n; i++)
			DIFF(ops[i].existed == want[i].existed &&
			     (!want[i].existed || ops[i].old_nh == want[i].old_nh),
			     "batch %u op %u /%u: existed %u old %u, want %u %u", batch, i,
			     ops[i].depth, ops[i].existed, ops[i].old_nh, want[i].existed,
			     want[i].old_nh);
		if (!dir24(fib) && batch % TEST_CHECK_EVERY == 0)
			DIFF(dpr_pt_check(fib->pt) == 0, "poptrie self-check after batch %u", batch);
		peak = RTE_MAX(peak, ref.n);
		peak_groups = RTE_MAX(peak_groups, dpr_fib6_tbl8_used(fib));
		if (batch % 100 == 99)
			check_fib(fib, &ref, 200);
	}
	check_fib(fib, &ref, ref.n);
	check_list(fib, &ref);
	CHECK(added > 4000 && deleted > 3000 && replaced > 20 && peak > 2000 &&
	      long_routes > 2000 && (peak_groups > 1000 || !dir24(fib)),
	      "the churn covers adds %u (%u over /64), deletes %u, replaces %u, %u routes, %u groups at peak",
	      added, long_routes, deleted, replaced, peak, peak_groups);

	/* Everything goes: every group is free again and tbl24 is empty, or
	 * every direct-pointing entry of Poptrie an empty leaf. */
	while (ref.n > 0) {
		n = RTE_MIN(ref.n, RTE_DIM(ops));
		for (i = 0; i < n; i++) {
			unsigned int k = (unsigned int)(rte_rand() % ref.n);

			ops[i] = (struct dpr_fib6_op){ .depth = ref.r[k].depth, .del = 1 };
			a6_store(ref.r[k].ip, ops[i].ip);
			ref.r[k] = ref.r[--ref.n];
		}
		CHECK_EQ(dpr_fib6_update(fib, ops, n, &err), n);
		if (!dir24(fib) && ref.n % (TEST_CHECK_EVERY * RTE_DIM(ops)) < RTE_DIM(ops))
			DIFF(dpr_pt_check(fib->pt) == 0, "poptrie self-check with %u routes", ref.n);
		if (ref.n % 128 == 0)
			check_fib(fib, &ref, 16);
	}
	CHECK_EQ(dpr_fib6_count(fib), 0);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), used0);
	if (dir24(fib)) {
		for (t = 0; t < DPR_FIB6_TBL24_SIZE; t++)
			zero += fib->tbl24[t] == DPR_FIB6_EMPTY;
		CHECK_EQ(zero, DPR_FIB6_TBL24_SIZE);
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
	dpr_fib6_free(fib);
}

/* 100k routes: the control side (DIR-24-8's rule table, Poptrie's trie)
 * grows past its first size and keeps every route findable while half of
 * them go in random order. */
static void
test_many_routes(enum dpr_fib_algo algo)
{
	struct dpr_fib6 *fib = create(algo, 1 << 18, 4096, NULL);
	enum { N = 100000 };
	struct dpr_fib6_op *ops = calloc(N, sizeof(*ops));
	uint8_t *gone = calloc(N, 1);
	uint64_t mem0, grown;
	unsigned int i, bad = 0;
	uint32_t nh;
	int err;

	if (fib == NULL || ops == NULL || gone == NULL)
		goto out;
	mem0 = dpr_fib6_control_memory(fib);
	/* A rule table of 24-byte slots at most 3/5 full; a trie of at
	 * least a node of 8 bytes a route. */
	grown = dir24(fib) ? (N * 5 / 3 - (1 << 14)) * 24 : N * sizeof(uint64_t);
	/* /48s under 2001:db8::/32 and 2001:db9::/32 (65536 each), a /40 over
	 * every 256 of them. */
	for (i = 0; i < N; i++) {
		uint8_t *ip = ops[i].ip;

		ip[0] = 0x20;
		ip[1] = 0x01;
		ip[2] = 0x0d;
		ip[3] = (uint8_t)(0xb8 + (i >> 16));
		ip[4] = (uint8_t)(i >> 8);
		ip[5] = (uint8_t)i;
		ops[i].depth = i % 256 == 255 ? 40 : 48;
		ops[i].nh = i % 256 == 255 ? 7 : 8 + i % 64;
	}
	CHECK_EQ(dpr_fib6_update(fib, ops, N, &err), N);
	CHECK_EQ(dpr_fib6_count(fib), N);
	CHECK(dpr_fib6_control_memory(fib) >= mem0 + grown,
	      "the control side grew: %" PRIu64 " -> %" PRIu64 " bytes", mem0,
	      dpr_fib6_control_memory(fib));
	for (i = 0; i < N; i++) {
		unsigned int k = (unsigned int)(rte_rand() % N);
		struct dpr_fib6_op del = ops[k];

		if (gone[k])
			continue;
		gone[k] = 1;
		del.del = 1;
		if (dpr_fib6_update(fib, &del, 1, &err) != 1)
			bad++;
	}
	for (i = 0; i < N; i++) {
		int ret = dpr_fib6_get(fib, ops[i].ip, ops[i].depth, &nh);

		bad += gone[i] ? ret != -ENOENT : (ret != 0 || nh != ops[i].nh);
		if (!gone[i] && ops[i].depth == 48)
			bad += lookup(fib, ops[i].ip) != ops[i].nh;
	}
	CHECK(bad == 0, "%u routes wrong after deleting some", bad);
	if (!dir24(fib))
		CHECK_EQ(dpr_pt_check(fib->pt), 0);
out:
	dpr_fib6_free(fib);
	free(ops);
	free(gone);
}

/* --- readers on another lcore ------------------------------------------ */

/*
 * A reader that holds on to a group: it follows a link, sees the writer
 * unlink the group (the entry now holds the one answer the group has left),
 * and then waits, without a quiescent state, until the writer has started a
 * grace period (or returned without one). The group must still give that
 * answer everywhere: a writer that reused it before the reader's quiescent
 * state would have refilled it by then. DIR-24-8 only (its tbl8 groups;
 * test_poptrie.c holds a reader over Poptrie's arrays).
 */
struct holder {
	struct dpr_fib6 *fib;
	struct rte_rcu_qsbr *qsbr;
	uint8_t ip[16];
	uint32_t link;
	uint32_t leaf;
	unsigned int changed;
	int state; /* 1: holding the group, 2: the writer's batch returned */
};

static int
holder_main(void *arg)
{
	struct holder *h = arg;
	const uint32_t *t = &h->fib->tbl24[dpr_fib6_tbl24_index(h->ip)], *g;
	uint64_t token;
	unsigned int j;

	rte_rcu_qsbr_thread_register(h->qsbr, READER_LCORE);
	rte_rcu_qsbr_thread_online(h->qsbr, READER_LCORE);
	h->link = __atomic_load_n(t, __ATOMIC_RELAXED);
	g = dpr_fib6_tbl8_entry(h->fib->tbl8, h->link, 0);
	token = __atomic_load_n(&h->qsbr->token, __ATOMIC_ACQUIRE);
	__atomic_store_n(&h->state, 1, __ATOMIC_RELEASE);
	while ((h->leaf = __atomic_load_n(t, __ATOMIC_ACQUIRE)) == h->link)
		rte_pause();
	while (__atomic_load_n(&h->qsbr->token, __ATOMIC_ACQUIRE) == token &&
	       __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != 2)
		rte_pause();
	for (j = 0; j < 256; j++)
		h->changed += __atomic_load_n(&g[j], __ATOMIC_RELAXED) != h->leaf;
	rte_rcu_qsbr_quiescent(h->qsbr, READER_LCORE);
	rte_rcu_qsbr_thread_offline(h->qsbr, READER_LCORE);
	rte_rcu_qsbr_thread_unregister(h->qsbr, READER_LCORE);
	return 0;
}

static void
test_no_reuse_before_grace(struct rte_rcu_qsbr *qsbr)
{
	struct dpr_fib6 *fib = create(DPR_FIB_DIR24_8, 64, 1, qsbr);
	struct dpr_fib6_op ops[2];
	struct holder h = { .fib = fib, .qsbr = qsbr };
	uint64_t g;
	int err;

	if (fib == NULL)
		return;
	ops[0] = op_add("::", 0, 1);
	ops[1] = op_add("2001:db8::", 32, 5);
	CHECK_EQ(dpr_fib6_update(fib, ops, 2, &err), 2);
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 1);
	parse("2001:db8::1", h.ip);
	CHECK_EQ(rte_eal_remote_launch(holder_main, &h, READER_LCORE), 0);
	while (__atomic_load_n(&h.state, __ATOMIC_ACQUIRE) != 1)
		rte_pause();
	CHECK(dpr_fib6_is_link(h.link), "the reader follows a link");
	/* The only group goes from 2001:db8::/32 to 3001:db8::/32. */
	g = fib->grace_periods;
	ops[0] = op_del("2001:db8::", 32);
	ops[1] = op_add("3001:db8::", 32, 9);
	CHECK_EQ(dpr_fib6_update(fib, ops, 2, &err), 2);
	__atomic_store_n(&h.state, 2, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(READER_LCORE);
	CHECK(!dpr_fib6_is_link(h.leaf) && (h.leaf & DPR_FIB6_NH_BITS) == 1,
	      "unlinked: the entry holds %08x", h.leaf);
	CHECK(h.changed == 0, "%u entries of the group changed while a reader held it",
	      h.changed);
	CHECK(fib->grace_periods > g, "the batch waited for the reader");
	CHECK_EQ(dpr_fib6_tbl8_used(fib), 1);
	CHECK_EQ(lookup_s(fib, "3001:db8::1"), 9);
	CHECK_EQ(lookup_s(fib, "2001:db8::1"), 1);
	dpr_fib6_free(fib);
}

/*
 * Churn under a reader: each of 32 regions 2001:db8:KK00::/40 always has its
 * route to base(K) = 100 + 2K, and the writer adds and deletes longer
 * prefixes inside it to base(K) + 1 (and elsewhere, to 5), so every answer
 * for an address of region K is base(K) or base(K) + 1. Their groups are
 * unlinked and reused round after round; a group reused under the reader
 * would hand it another region's next hop.
 */
#define REGIONS 32
#define READER_ADDRS 256

struct reader {
	struct dpr_fib6 *fib;
	struct rte_rcu_qsbr *qsbr;
	uint8_t ip[READER_ADDRS][16];
	bool stop;
	uint64_t lookups;
	uint64_t longer;   /* answers base(K) + 1 */
	uint64_t wrong;
	uint32_t first_wrong;
};

static uint32_t
region_base(unsigned int i)
{
	return 100 + 2 * (i % REGIONS);
}

static int
reader_main(void *arg)
{
	struct reader *r = arg;
	const uint8_t *p[32];
	uint32_t nh[32];
	unsigned int i, k;

	rte_rcu_qsbr_thread_register(r->qsbr, READER_LCORE);
	rte_rcu_qsbr_thread_online(r->qsbr, READER_LCORE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < READER_ADDRS; i += 32) {
			for (k = 0; k < 32; k++)
				p[k] = r->ip[i + k];
			dpr_fib6_lookup_bulk(r->fib, p, nh, 32);
			for (k = 0; k < 33; k++) {
				/* One more: the first address, alone. */
				uint32_t got = k < 32 ? nh[k] : dpr_fib6_lookup(r->fib, p[0]);
				uint32_t base = region_base(k < 32 ? i + k : i);

				if (got != base && got != base + 1 && r->wrong++ == 0)
					r->first_wrong = got;
				r->longer += got == base + 1;
			}
			r->lookups += 32;
			/* A worker reports once per burst it handles. */
			rte_rcu_qsbr_quiescent(r->qsbr, READER_LCORE);
		}
	}
	rte_rcu_qsbr_thread_offline(r->qsbr, READER_LCORE);
	rte_rcu_qsbr_thread_unregister(r->qsbr, READER_LCORE);
	return 0;
}

static void
region_addr(unsigned int i, uint8_t ip[16])
{
	unsigned int j;

	ip[0] = 0x20;
	ip[1] = 0x01;
	ip[2] = 0x0d;
	ip[3] = 0xb8;
	ip[4] = (uint8_t)(i % REGIONS);
	for (j = 5; j < 16; j++)
		ip[j] = rte_rand() % 2 ? hot_byte[rte_rand() % RTE_DIM(hot_byte)] :
			(uint8_t)rte_rand();
}

/* Whether ops[n]'s prefix is one of ops[0..n). */
static bool
in_batch(const struct dpr_fib6_op *ops, unsigned int n)
{
	struct a6 p = a6_mask(a6_load(ops[n].ip), ops[n].depth);
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ops[i].depth == ops[n].depth &&
		    a6_eq(a6_mask(a6_load(ops[i].ip), ops[i].depth), p))
			return true;
	return false;
}

static void
test_rcu_churn(enum dpr_fib_algo algo, struct rte_rcu_qsbr *qsbr)
{
	enum { ROUNDS = 40, ADDS = 300 };
	struct dpr_fib6 *fib = create(algo, 1 << 16, 8192, qsbr);
	struct dpr_fib6_op *ops = calloc(ADDS, sizeof(*ops));
	struct reader *r = rte_zmalloc(NULL, sizeof(*r), 64);
	unsigned int round, i, k, n;
	uint32_t used0, nh;
	int err;

	if (fib == NULL || ops == NULL || r == NULL)
		goto out;
	rte_srand(20240603);
	for (i = 0; i < REGIONS; i++) {
		ops[i] = (struct dpr_fib6_op){ .depth = 40, .nh = region_base(i) };
		region_addr(i, ops[i].ip);
	}
	CHECK_EQ(dpr_fib6_update(fib, ops, REGIONS, &err), REGIONS);
	used0 = dpr_fib6_tbl8_used(fib);
	r->fib = fib;
	r->qsbr = qsbr;
	for (i = 0; i < READER_ADDRS; i++)
		region_addr(i, r->ip[i]);
	CHECK_EQ(rte_eal_remote_launch(reader_main, r, READER_LCORE), 0);

	for (round = 0; round < ROUNDS; round++) {
		/* Longer prefixes around the reader's addresses, and some of
		 * the same shapes under 3fff::/16, which the reader never
		 * looks up but whose groups it could be handed. */
		for (n = 0; n < ADDS; ) {
			struct dpr_fib6_op *o = &ops[n];

			i = (unsigned int)(rte_rand() % READER_ADDRS);
			*o = (struct dpr_fib6_op){ .depth = (uint8_t)(41 + rte_rand() % 88),
						   .nh = region_base(i) + 1 };
			memcpy(o->ip, r->ip[i], 16);
			if (n % 4 == 3) {
				o->ip[0] = 0x3f;
				o->ip[1] = 0xff;
				o->nh = 5;
			}
			if (dpr_fib6_get(fib, o->ip, o->depth, &nh) == 0 || in_batch(ops, n))
				continue;
			/* The whole batch goes in at once or one by one. */
			if (round % 2 == 0 && dpr_fib6_update(fib, o, 1, &err) != 1)
				break;
			n++;
		}
		if (round % 2 != 0)
			CHECK_EQ(dpr_fib6_update(fib, ops, n, &err), n);
		CHECK(n == ADDS && dpr_fib6_count(fib) == REGIONS + ADDS,
		      "round %u: %u routes: %s", round, dpr_fib6_count(fib), strerror(-err));
		/* And all of them go again, in random order, in batches (every
		 * fourth round, the first 64 one by one: a grace period each),
		 * unlinking groups the next round reuses. */
		for (i = n; i > 1; i--) {
			struct dpr_fib6_op t;

			k = (unsigned int)(rte_rand() % i);
			t = ops[i - 1];
			ops[i - 1] = ops[k];
			ops[k] = t;
		}
		for (i = 0; i < n; i++)
			ops[i].del = 1;
		for (i = 0; i < n; i += k) {
			k = round % 4 == 0 && i < 64 ? 1 : RTE_MIN(50u, n - i);
			CHECK_EQ(dpr_fib6_update(fib, &ops[i], k, &err), k);
		}
		CHECK_EQ(dpr_fib6_count(fib), REGIONS);
		CHECK_EQ(dpr_fib6_tbl8_used(fib), used0);
	}
	__atomic_store_n(&r->stop, true, __ATOMIC_RELAXED);
	rte_eal_wait_lcore(READER_LCORE);
	CHECK(r->lookups > 0 && r->longer > 0, "the reader ran (%" PRIu64 " lookups, %" PRIu64
	      " answers from longer prefixes)", r->lookups, r->longer);
	CHECK(r->wrong == 0, "%" PRIu64 " of %" PRIu64 " lookups saw a wrong next hop (first %u)",
	      r->wrong, r->lookups, r->first_wrong);
out:
	dpr_fib6_free(fib);
	rte_free(r);
	free(ops);
}

/*
 * EAL with a second lcore for the readers, on a second CPU when the process
 * may use one, else sharing the first.
 */
static int
eal_init(const char *prog)
{
	char lcores[32];
	char *args[] = {
		(char *)prog, "--no-huge", "-m", "768", "--no-pci", "--no-shconf",
		"--lcores", lcores, "--log-level", "lib.eal:error",
	};
	int cpu[2] = { 0, 0 }, n = 0, c;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (c = 0; c < CPU_SETSIZE && n < 2; c++)
			if (CPU_ISSET(c, &set))
				cpu[n++] = c;
	if (n == 1)
		cpu[1] = cpu[0];
	snprintf(lcores, sizeof(lcores), "0@%d,%d@%d", cpu[0], READER_LCORE, cpu[1]);
	return rte_eal_init(RTE_DIM(args), args);
}

/* Every test but the tbl8 ones (DIR-24-8's own) on @p algo. */
static void
test_algo(enum dpr_fib_algo algo, struct rte_rcu_qsbr *qsbr)
{
	test_update(algo);
	test_limits(algo);
	test_grace_periods(algo);
	test_random_churn(algo);
	test_many_routes(algo);
	if (qsbr != NULL)
		test_rcu_churn(algo, qsbr);
}

int
main(int argc, char **argv)
{
	enum dpr_fib_algo algos[2];
	unsigned int i, n = test_algos(argc, argv, algos);
	struct rte_rcu_qsbr *qsbr;

	if (n == 0 || eal_init(argv[0]) < 0)
		return 1;
	qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(READER_LCORE + 1), RTE_CACHE_LINE_SIZE);
	CHECK(qsbr != NULL && rte_rcu_qsbr_init(qsbr, READER_LCORE + 1) == 0, "qsbr");
	for (i = 0; i < n; i++) {
		int checks = test_checks, failures = test_failures;

		test_algo(algos[i], qsbr);
		printf("test_fib6: %s: %d checks, %d failed\n", dpr_fib_algo_name(algos[i]),
		       test_checks - checks, test_failures - failures);
		if (algos[i] == DPR_FIB_DIR24_8 && qsbr != NULL)
			test_no_reuse_before_grace(qsbr);
	}
	rte_free(qsbr);
	return test_done("test_fib6");
}
