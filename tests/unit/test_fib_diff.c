/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The four FIBs (IPv4 and IPv6, DIR-24-8 and Poptrie) against a plain
 * longest-prefix match over a list, with batches that mix adds, deletes
 * and replaces of prefixes packed into a few small regions, so that they
 * nest: a prefix and its halves, the same prefix deleted then added in one
 * batch, a default route, prefixes at the direct-pointing boundary (/18)
 * and the tbl8 levels (/24, /32, ...). DIR-24-8 runs with few tbl8 groups,
 * so that batches run out of them part-way: an op fails with -ENOSPC
 * exactly when the groups its prefix needs pass the configured number, and
 * what was applied before it is what the FIB holds. After each batch:
 * every route's first and last address and the ones next to them, single
 * and bulk lookups, exact matches, the route count, the groups in use, and
 * Poptrie's self-check. Some ops are refused (-EINVAL) part-way through a
 * batch. Poptrie also runs under a reader that never reports quiescence
 * (test_stuck_reader()).
 *
 * DPR_TEST_SEEDS=FIRST-LAST adds seeds (with fewer groups, some with 1500
 * routes), DPR_TEST_BATCHES the batches a seed runs (250),
 * DPR_TEST_CHECK_EVERY how often Poptrie's self-check runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include "fib/fib.h"
#include "fib/fib6.h"
#include "fib/poptrie.h"
#include "nexthop/nexthop.h"
#include "test.h"
#include "test_algo.h"

#define REF_MAX 2048
#define BATCH_MAX 64

struct rule {
	dpr_u128 key; /* left-aligned, bits past depth clear */
	uint8_t depth;
	uint32_t nh;
};

struct ref {
	struct rule r[REF_MAX];
	unsigned int n;
};

struct fam {
	unsigned int bits;      /* 32 or 128 */
	enum dpr_fib_algo algo;
	uint32_t groups;        /* DIR-24-8's tbl8 groups */
	struct dpr_fib4 *f4;
	struct dpr_fib6 *f6;
};

struct op {
	dpr_u128 key;
	uint8_t depth, del, existed;
	uint32_t nh, old_nh;
};

static unsigned int diff_bad;
static unsigned int check_every = TEST_CHECK_EVERY;

#define DIFF(cond, ...) do { \
		if (!(cond) && diff_bad++ < 8) \
			CHECK(cond, __VA_ARGS__); \
	} while (0)

static inline dpr_u128
mask(unsigned int depth)
{
	return depth == 0 ? 0 : ~(dpr_u128)0 << (128 - depth);
}

static void
store6(dpr_u128 k, uint8_t ip[16])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		ip[i] = (uint8_t)(k >> (120 - 8 * i));
}

static int
ref_find(const struct ref *ref, dpr_u128 key, uint8_t depth)
{
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if (ref->r[i].key == key && ref->r[i].depth == depth)
			return (int)i;
	return -1;
}

static uint32_t
ref_lpm(const struct ref *ref, dpr_u128 key)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if ((key & mask(ref->r[i].depth)) == ref->r[i].key &&
		    (best < 0 || ref->r[i].depth > ref->r[best].depth))
			best = (int)i;
	return best < 0 ? DPR_NH_NONE : ref->r[best].nh;
}

/* Groups DIR-24-8 needs: one per /L block (L = 24, 32, ..., bits - 8)
 * with a longer route in it. */
static unsigned int
groups_needed(const struct ref *ref, unsigned int bits)
{
	static dpr_u128 blk[REF_MAX * 13];
	static uint8_t len[REF_MAX * 13];
	unsigned int i, j, n = 0, l;

	for (i = 0; i < ref->n; i++)
		for (l = 24; l < ref->r[i].depth && l < bits; l += 8) {
			dpr_u128 b = ref->r[i].key & mask(l);

			for (j = 0; j < n && !(blk[j] == b && len[j] == l); j++)
				;
			if (j == n) {
				blk[n] = b;
				len[n++] = (uint8_t)l;
			}
		}
	return n;
}

/* ---- the FIB under test, either family ---- */

static unsigned int
fam_update(struct fam *f, struct op *ops, unsigned int n, int *err)
{
	unsigned int i, done;

	if (f->bits == 32) {
		struct dpr_fib4_op o[BATCH_MAX];

		for (i = 0; i < n; i++)
			o[i] = (struct dpr_fib4_op){ .ip = (uint32_t)(ops[i].key >> 96),
				.depth = ops[i].depth, .del = ops[i].del, .nh = ops[i].nh };
		done = dpr_fib4_update(f->f4, o, n, err);
		for (i = 0; i < done; i++) {
			ops[i].existed = o[i].existed;
			ops[i].old_nh = o[i].old_nh;
		}
	} else {
		struct dpr_fib6_op o[BATCH_MAX];

		for (i = 0; i < n; i++) {
			o[i] = (struct dpr_fib6_op){ .depth = ops[i].depth, .del = ops[i].del,
				.nh = ops[i].nh };
			store6(ops[i].key, o[i].ip);
		}
		done = dpr_fib6_update(f->f6, o, n, err);
		for (i = 0; i < done; i++) {
			ops[i].existed = o[i].existed;
			ops[i].old_nh = o[i].old_nh;
		}
	}
	return done;
}

/* Lookups of @p n keys one by one and in bulk, compared with the reference. */
static void
fam_check_keys(struct fam *f, const struct ref *ref, const dpr_u128 *keys, unsigned int n)
{
	uint32_t nh[64], want;
	unsigned int i, k;

	for (i = 0; i < n; i += 64) {
		unsigned int m = RTE_MIN(64u, n - i);

		if (f->bits == 32) {
			uint32_t ip[64];

			for (k = 0; k < m; k++)
				ip[k] = (uint32_t)(keys[i + k] >> 96);
			dpr_fib4_lookup_bulk(f->f4, ip, nh, m);
			for (k = 0; k < m; k++) {
				want = ref_lpm(ref, keys[i + k]);
				DIFF(nh[k] == want, "%08x: bulk %u, want %u", ip[k], nh[k], want);
				DIFF(dpr_fib4_lookup(f->f4, ip[k]) == want, "%08x: lookup %u, want %u",
				     ip[k], dpr_fib4_lookup(f->f4, ip[k]), want);
			}
		} else {
			uint8_t b[64][16];
			const uint8_t *p[64];

			for (k = 0; k < m; k++) {
				store6(keys[i + k], b[k]);
				p[k] = b[k];
			}
			dpr_fib6_lookup_bulk(f->f6, p, nh, m);
			for (k = 0; k < m; k++) {
				want = ref_lpm(ref, keys[i + k]);
				DIFF(nh[k] == want, "%016llx%016llx: bulk %u, want %u",
				     (unsigned long long)(keys[i + k] >> 64),
				     (unsigned long long)keys[i + k], nh[k], want);
				DIFF(dpr_fib6_lookup(f->f6, b[k]) == want,
				     "%016llx%016llx: lookup %u, want %u",
				     (unsigned long long)(keys[i + k] >> 64),
				     (unsigned long long)keys[i + k], dpr_fib6_lookup(f->f6, b[k]),
				     want);
			}
		}
	}
}

static void
fam_check(struct fam *f, const struct ref *ref, unsigned int batch)
{
	static dpr_u128 keys[REF_MAX * 4 + 256];
	dpr_u128 kmask = mask(f->bits);
	unsigned int i, n = 0;
	uint32_t nh, count;
	int ret;

	for (i = 0; i < RTE_MIN(ref->n, 384u); i++) {
		const struct rule *r = &ref->r[ref->n <= 384 ? i : rte_rand() % ref->n];
		dpr_u128 first = r->key, last = first | (~mask(r->depth) & kmask);

		keys[n++] = first;
		keys[n++] = last;
		keys[n++] = (first - ((dpr_u128)1 << (128 - f->bits))) & kmask;
		keys[n++] = (last + ((dpr_u128)1 << (128 - f->bits))) & kmask;
	}
	for (i = 0; i < 256 && ref->n > 0; i++) {
		const struct rule *r = &ref->r[rte_rand() % ref->n];
		dpr_u128 rnd = ((dpr_u128)rte_rand() << 64 | rte_rand()) & ~mask(r->depth) & kmask;

		keys[n++] = r->key | rnd;
	}
	fam_check_keys(f, ref, keys, n);
	for (i = 0; i < ref->n; i++) {
		if (f->bits == 32) {
			ret = dpr_fib4_get(f->f4, (uint32_t)(ref->r[i].key >> 96), ref->r[i].depth,
					   &nh);
		} else {
			uint8_t ip[16];

			store6(ref->r[i].key, ip);
			ret = dpr_fib6_get(f->f6, ip, ref->r[i].depth, &nh);
		}
		DIFF(ret == 0 && nh == ref->r[i].nh, "batch %u: get /%u: %d nh %u, want %u", batch,
		     ref->r[i].depth, ret, nh, ref->r[i].nh);
	}
	count = f->bits == 32 ? f->f4->n_routes : dpr_fib6_count(f->f6);
	DIFF(count == ref->n, "batch %u: %u routes, want %u", batch, count, ref->n);
	if (f->algo == DPR_FIB_DIR24_8) {
		uint32_t used = f->bits == 32 ? dpr_fib4_tbl8_used(f->f4) :
			dpr_fib6_tbl8_used(f->f6);

		DIFF(used == groups_needed(ref, f->bits), "batch %u: %u groups used, want %u",
		     batch, used, groups_needed(ref, f->bits));
	} else {
		struct dpr_poptrie *pt = f->bits == 32 ? f->f4->pt : f->f6->pt;

		if (batch % check_every == 0)
			DIFF(dpr_pt_check(pt) == 0, "batch %u: poptrie self-check", batch);
	}
}

/* ---- random prefixes packed into a few regions ---- */

static const uint8_t depths4[] = {
	0, 8, 12, 15, 16, 16, 17, 17, 18, 18, 18, 19, 19, 20, 21, 22, 23, 24, 24, 24,
	25, 25, 26, 27, 28, 29, 30, 31, 32, 32, 32,
};
static const uint8_t depths6[] = {
	0, 8, 16, 17, 18, 18, 19, 20, 23, 24, 24, 25, 28, 31, 32, 32, 33, 36, 40, 40,
	41, 44, 47, 48, 48, 48, 49, 52, 56, 56, 60, 63, 64, 64, 64, 65, 72, 80, 96, 112,
	119, 120, 121, 127, 128, 128,
};
static const uint8_t hot_byte[] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };

static dpr_u128
random_key(unsigned int bits)
{
	/* Two regions of 16 bits each, the rest of the bytes mostly from
	 * hot_byte. */
	static const uint32_t region4[] = { 0x0a010000, 0xc0a80000 };
	static const uint32_t region6[] = { 0x20010db8, 0x2a001450 };
	dpr_u128 k;
	unsigned int b;

	if (bits == 32)
		k = (dpr_u128)(region4[rte_rand() % 2] >> 16) << 112;
	else
		k = (dpr_u128)region6[rte_rand() % 2] << 96;
	for (b = bits == 32 ? 2 : 4; b < bits / 8; b++) {
		uint8_t v = rte_rand() % 4 != 0 ? hot_byte[rte_rand() % RTE_DIM(hot_byte)] :
			(uint8_t)rte_rand();

		k |= (dpr_u128)v << (120 - 8 * b);
	}
	if (bits == 32 && rte_rand() % 2) /* sometimes across the /18 boundary */
		k ^= (dpr_u128)(rte_rand() % 4) << (128 - 18);
	return k;
}

static void
random_prefix(unsigned int bits, dpr_u128 *key, uint8_t *depth)
{
	*depth = bits == 32 ? depths4[rte_rand() % RTE_DIM(depths4)] :
		depths6[rte_rand() % RTE_DIM(depths6)];
	*key = random_key(bits) & mask(*depth);
}

/* Apply @p o to @p ref, filling what the FIB should report. 0, or the error. */
static int
ref_apply(struct ref *ref, struct op *o, unsigned int bits, uint32_t groups, bool dir24)
{
	int k;

	if (o->depth > bits || (!o->del && o->nh > DPR_PT_NH_MAX))
		return -EINVAL;
	k = ref_find(ref, o->key, o->depth);
	o->existed = k >= 0;
	o->old_nh = k >= 0 ? ref->r[k].nh : 0;
	if (o->del) {
		if (k < 0)
			return -ENOENT;
		ref->r[k] = ref->r[--ref->n];
		return 0;
	}
	if (k >= 0) {
		ref->r[k].nh = o->nh;
		return 0;
	}
	if (ref->n == REF_MAX)
		return -ENOMEM;
	ref->r[ref->n++] = (struct rule){ o->key, o->depth, o->nh };
	if (dir24 && o->depth > 24 && groups_needed(ref, bits) > groups) {
		ref->n--;
		return -ENOSPC;
	}
	return 0;
}

static void
run(unsigned int bits, enum dpr_fib_algo algo, uint64_t seed, unsigned int batches,
    uint32_t groups, bool must_run_out)
{
	struct fam f = { .bits = bits, .algo = algo, .groups = groups };
	static struct ref ref, before;
	struct op ops[BATCH_MAX], want[BATCH_MAX];
	unsigned int batch, i, n, done, enospc = 0, keep = seed % 2 ? 1500 : 300;
	int err, werr;

	if (bits == 32) {
		f.f4 = dpr_fib4_create(&(struct dpr_fib4_conf){ .algorithm = algo,
			.max_routes = REF_MAX, .tbl8_groups = groups, .socket = 0 }, NULL);
		CHECK(f.f4 != NULL, "create");
		if (f.f4 == NULL)
			return;
	} else {
		f.f6 = dpr_fib6_create(&(struct dpr_fib6_conf){ .algorithm = algo,
			.max_routes = REF_MAX, .tbl8_groups = groups, .socket = 0 }, NULL);
		CHECK(f.f6 != NULL, "create");
		if (f.f6 == NULL)
			return;
	}
	rte_srand(seed);
	ref.n = 0;
	diff_bad = 0;
	for (batch = 0; batch < batches && diff_bad == 0; batch++) {
		bool dels = ref.n > keep || (ref.n > 0 && rte_rand() % 100 < 45);

		n = 1 + (unsigned int)(rte_rand() % (rte_rand() % 8 == 0 ? BATCH_MAX : 12));
		/* The ops, as the reference would take them in turn. */
		before = ref;
		werr = 0;
		for (i = 0; i < n; i++) {
			unsigned int pick = (unsigned int)(rte_rand() % 100);
			struct op *o = &ops[i];

			*o = (struct op){ .nh = 1 + (uint32_t)(rte_rand() % 200) };
			if (ref.n > 0 && pick < (dels ? 50u : 15u)) {
				const struct rule *r = &ref.r[rte_rand() % ref.n];

				o->key = r->key;
				o->depth = r->depth;
				o->del = 1;
			} else if (ref.n > 0 && pick < (dels ? 65u : 35u)) {
				const struct rule *r = &ref.r[rte_rand() % ref.n];

				o->key = r->key; /* replace */
				o->depth = r->depth;
			} else if (i > 0 && pick < 45) {
				o->key = ops[i - 1].key; /* again: delete then add, ... */
				o->depth = ops[i - 1].depth;
				o->del = !ops[i - 1].del;
			} else if (pick < 46 && rte_rand() % 4 == 0) {
				/* Refused: too long, or a next hop past the limits. */
				random_prefix(bits, &o->key, &o->depth);
				if (rte_rand() % 2) {
					o->depth = (uint8_t)(bits + 1);
					o->del = rte_rand() % 2;
				} else {
					o->nh = 1u << 24;
				}
			} else if (pick < 47) {
				o->depth = 0;
				o->del = ref_find(&ref, 0, 0) >= 0 && rte_rand() % 2;
			} else {
				random_prefix(bits, &o->key, &o->depth);
				/* Sometimes a half or a cover of the one before. */
				if (i > 0 && rte_rand() % 4 == 0 && ops[i - 1].depth < bits) {
					o->depth = (uint8_t)(ops[i - 1].depth + 1);
					o->key = (ops[i - 1].key | (dpr_u128)(rte_rand() % 2) <<
						  (128 - o->depth)) & mask(o->depth);
				}
			}
			want[i] = *o;
			werr = ref_apply(&ref, &want[i], bits, groups, algo == DPR_FIB_DIR24_8);
			if (werr != 0)
				break;
		}
		if (i < n)
			n = i + 1; /* the failing op last */
		done = fam_update(&f, ops, n, &err);
		DIFF(done == (werr != 0 ? n - 1 : n) && err == werr,
		     "batch %u: %u of %u ops applied, error %d; want %u, %d", batch, done, n, err,
		     werr != 0 ? n - 1 : n, werr);
		enospc += err == -ENOSPC;
		/* The reference takes what the FIB applied. */
		if (done != (werr != 0 ? n - 1 : n)) {
			ref = before;
			for (i = 0; i < done; i++)
				(void)ref_apply(&ref, &want[i], bits, UINT32_MAX, false);
		}
		for (i = 0; i < done; i++)
			DIFF(ops[i].existed == want[i].existed &&
			     (!want[i].existed || ops[i].old_nh == want[i].old_nh),
			     "batch %u op %u /%u del %u: existed %u old %u, want %u %u", batch, i,
			     ops[i].depth, ops[i].del, ops[i].existed, ops[i].old_nh,
			     want[i].existed, want[i].old_nh);
		fam_check(&f, &ref, batch);
	}
	if (getenv("DPR_TEST_VERBOSE") != NULL && algo == DPR_FIB_POPTRIE) {
		const struct dpr_pt_tables *pt = dpr_pt_tables(bits == 32 ? f.f4->pt : f.f6->pt);

		printf("IPv%u seed %llu: %u node cap, %u leaf cap\n", bits == 32 ? 4 : 6,
		       (unsigned long long)seed, pt->node_cap, pt->leaf_cap);
	}
	if (algo == DPR_FIB_DIR24_8)
		CHECK(enospc > 0 || !must_run_out, "IPv%u seed %llu: no batch ran out of groups",
		      bits == 32 ? 4 : 6, (unsigned long long)seed);
	CHECK(diff_bad == 0, "IPv%u %s seed %llu: %u mismatches", bits == 32 ? 4 : 6,
	      dpr_fib_algo_name(algo), (unsigned long long)seed, diff_bad);
	dpr_fib4_free(f.f4);
	dpr_fib6_free(f.f6);
}

/*
 * Poptrie with a reader that never reports quiescence: it holds the tables
 * and the direct-pointing entries it read before a run of batches that
 * only add new prefixes (which wait for no grace period), while those
 * batches rebuild the subtrees under it and grow the arrays. Its walks
 * from what it read must keep their answers: no block it can reach is
 * written or reused before its grace period.
 */
static void
test_stuck_reader(unsigned int bits)
{
	enum { PROBES = 4096, BATCHES = 40, OPS = 128 };
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1),
						RTE_CACHE_LINE_SIZE);
	static dpr_u128 probe[PROBES];
	static uint32_t want[PROBES];
	static struct dpr_pt_op ops[OPS];
	struct dpr_pt_tables held;
	const struct dpr_pt_tables *t0;
	struct dpr_poptrie *pt;
	unsigned int i, b, n, bad = 0, grown = 0;
	uint64_t waited;
	int err;

	CHECK(qsbr != NULL && rte_rcu_qsbr_init(qsbr, 1) == 0, "qsbr");
	pt = dpr_pt_create(&(struct dpr_poptrie_conf){ .key_bits = (uint8_t)bits,
		.max_routes = 1 << 20, .socket = 0, .name = "stuck" }, qsbr);
	CHECK(pt != NULL, "create");
	if (qsbr == NULL || pt == NULL)
		goto out;
	rte_srand(bits);
	/* Routes before the reader comes. */
	for (b = 0; b < 4; b++) {
		for (n = 0; n < OPS; n++) {
			ops[n] = (struct dpr_pt_op){ .nh = 1 + (uint32_t)(rte_rand() % 200) };
			random_prefix(bits, &ops[n].key, &ops[n].depth);
		}
		CHECK_EQ(dpr_pt_update(pt, ops, OPS, &err), OPS);
	}
	waited = pt->grace_periods;
	rte_rcu_qsbr_thread_register(qsbr, 0);
	rte_rcu_qsbr_thread_online(qsbr, 0);
	/* What the reader holds: the tables, and the entries it read. */
	t0 = dpr_pt_tables(pt);
	held = *t0;
	held.dp = malloc((1u << DPR_PT_DP_BITS) * sizeof(*held.dp));
	CHECK(held.dp != NULL, "malloc");
	if (held.dp == NULL)
		goto out;
	memcpy(held.dp, t0->dp, (1u << DPR_PT_DP_BITS) * sizeof(*held.dp));
	for (i = 0; i < PROBES; i++) {
		uint8_t ip[16];

		probe[i] = random_key(bits) ^ (rte_rand() % 4 == 0 ? (dpr_u128)rte_rand() << 64 : 0);
		if (bits == 32) {
			probe[i] &= mask(32);
			want[i] = dpr_pt_lookup4(&held, (uint32_t)(probe[i] >> 96));
		} else {
			store6(probe[i], ip);
			want[i] = dpr_pt_lookup6(&held, ip);
		}
	}
	for (b = 0; b < BATCHES && bad == 0; b++) {
		uint32_t nh;

		/* New prefixes only: a replace would wait for the reader. */
		for (n = 0; n < OPS;) {
			ops[n] = (struct dpr_pt_op){ .nh = 1 + (uint32_t)(rte_rand() % 200) };
			random_prefix(bits, &ops[n].key, &ops[n].depth);
			if (ops[n].depth > 0 && dpr_pt_get(pt, ops[n].key, ops[n].depth, &nh) < 0) {
				for (i = 0; i < n && !(ops[i].key == ops[n].key &&
						       ops[i].depth == ops[n].depth); i++)
					;
				n += i == n;
			}
		}
		CHECK_EQ(dpr_pt_update(pt, ops, OPS, &err), OPS);
		grown += dpr_pt_tables(pt) != t0;
		for (i = 0; i < PROBES; i++) {
			uint8_t ip[16];
			uint32_t got;

			if (bits == 32) {
				got = dpr_pt_lookup4(&held, (uint32_t)(probe[i] >> 96));
			} else {
				store6(probe[i], ip);
				got = dpr_pt_lookup6(&held, ip);
			}
			if (got != want[i] && bad++ < 5)
				CHECK(got == want[i], "IPv%u batch %u: the held tables answer %u, not %u",
				      bits == 32 ? 4 : 6, b, got, want[i]);
		}
	}
	CHECK(grown > 0, "IPv%u: the arrays grew under the reader", bits == 32 ? 4 : 6);
	CHECK(pt->grace_periods == waited, "%llu grace periods waited",
	      (unsigned long long)(pt->grace_periods - waited));
	rte_rcu_qsbr_thread_offline(qsbr, 0);
	rte_rcu_qsbr_thread_unregister(qsbr, 0);
	CHECK_EQ(dpr_pt_check(pt), 0);
	free(held.dp);
out:
	dpr_pt_free(pt);
	rte_free(qsbr);
}

int
main(int argc, char **argv)
{
	enum dpr_fib_algo algos[2];
	unsigned int i, na = test_algos(argc, argv, algos), first, last, s;
	const char *b = getenv("DPR_TEST_BATCHES");
	unsigned int batches = b != NULL ? (unsigned int)atoi(b) : 250;

	if (getenv("DPR_TEST_CHECK_EVERY") != NULL)
		check_every = (unsigned int)atoi(getenv("DPR_TEST_CHECK_EVERY"));
	if (na == 0 || test_eal_init(argv[0]) < 0)
		return 1;
	test_seeds(&first, &last);
	for (i = 0; i < na; i++) {
		if (algos[i] == DPR_FIB_POPTRIE) {
			test_stuck_reader(32);
			test_stuck_reader(128);
		}
		run(32, algos[i], 1, batches, 24, true);
		run(128, algos[i], 2, batches, 40, true);
		for (s = first; s <= last && s >= first; s++) {
			run(32, algos[i], s, batches, 8 + s % 40, false);
			run(128, algos[i], s, batches, 12 + s % 80, false);
		}
	}
	return test_done("test_fib_diff");
}
