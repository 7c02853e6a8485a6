/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is a run of update batches, applied side by side to
 * an IPv4 and an IPv6 FIB of each algorithm (DIR-24-8, Poptrie), all with
 * small limits so that max_routes, and DIR-24-8's tbl8 groups, run out. Each
 * FIB has its own reference, a plain list of routes looked up by linear
 * scan, which follows the update contract of fib.h and fib6.h: ops apply
 * from the first, a failed op stops the batch and changes nothing. After
 * every batch each FIB must agree with its reference on what the update
 * returned, every lookup, bulk lookup, lpm, get and list answer, DIR-24-8's
 * tbl8 groups in use, Poptrie's self-check (when the batch applied
 * something) and the IPv4 broadcast marks; any difference aborts. At the end of an input every route goes again, so
 * that each input starts from empty FIBs.
 *
 * Input: batches, each a header byte and that many ops.
 *   header     bit 0: the family (0 IPv4, 1 IPv6); bits 1-7: ops - 1
 *   op         a kind byte, then:
 *     kind & 3 = 0 add, 3 delete: a depth byte and an address (below)
 *     kind & 3 = 1 add, 2 delete: a byte choosing a route of the reference
 *                (a replace, a delete that succeeds; an add when empty)
 *     kind bits 2-4: the next hop (nh_pick()); kind >= 0xe0 with an add
 *                of a /5 or longer: 32 adds, the prefix and the 31 after
 *                it of the same length
 *   depth      below 0xf0: /12-/32 (IPv6 /12-/128); up to 0xfc: /1-/11;
 *              0xfd: /0; 0xfe, 0xff: a depth past the family's (-EINVAL).
 *              A /0 rewrites all of DIR-24-8's tbl24 (2^24 entries, about
 *              a second here with the sanitizers), a /11 2^13 entries: the
 *              short ones are rare
 *   address    IPv4 one byte, IPv6 four: two bits an address byte, from
 *              0x00 0x01 0x80 0xff, so that prefixes nest and meet at
 *              byte edges; then a position and a byte that goes there
 *              (any value)
 * Lookups: the ops' addresses as given (host bits and all), and for every
 * route its first and last address and those just outside it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "fib/fib.h"
#include "fib/fib6.h"
#include "fib/poptrie.h"
#include "nexthop/nexthop.h"
#include "../unit/test.h"

#define MAX_ROUTES 64
#define GROUPS4 16      /* a /25-/32 takes one: 16 /24 blocks */
#define GROUPS6 48      /* a /128 alone takes 13 */
#define FILL 32
#define BATCH_MAX (128 * FILL) /* 128 ops, each of them a fill */

typedef unsigned __int128 u128;

struct ref_route {
	u128 key;       /* left-aligned in 128 bits, bits past depth clear */
	uint8_t depth;
	uint32_t nh;
};

/* An op as the input gives it, before it goes to each FIB's own op type. */
struct op {
	u128 key;       /* host bits and all */
	uint8_t depth;
	uint8_t del;
	uint32_t nh;
};

/* One FIB and its reference. */
struct target {
	const char *name;
	unsigned int bits;          /* 32 or 128 */
	enum dpr_fib_algo algo;
	struct dpr_fib4 *fib4;
	struct dpr_fib6 *fib6;
	struct ref_route ref[MAX_ROUTES];
	unsigned int n;
	unsigned int groups;        /* DIR-24-8's tbl8 groups the routes need */
	/* FUZZ_STATS: ops applied, batches stopped by each error, the most
	 * routes and groups at once. */
	uint64_t applied, einval, enoent, enomem, enospc;
	unsigned int peak, peak_groups;
};

static struct target targets[4] = {
	{ .name = "IPv4 dir-24-8", .bits = 32, .algo = DPR_FIB_DIR24_8 },
	{ .name = "IPv4 poptrie", .bits = 32, .algo = DPR_FIB_POPTRIE },
	{ .name = "IPv6 dir-24-8", .bits = 128, .algo = DPR_FIB_DIR24_8 },
	{ .name = "IPv6 poptrie", .bits = 128, .algo = DPR_FIB_POPTRIE },
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_STATS=1: what the inputs did, at exit (do they reach every refusal?). */
static void
print_stats(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(targets); i++) {
		const struct target *t = &targets[i];

		fprintf(stderr, "fuzz_fib: %s: %" PRIu64 " ops applied; stopped by -EINVAL %" PRIu64
			", -ENOENT %" PRIu64 ", -ENOMEM %" PRIu64 ", -ENOSPC %" PRIu64
			"; at most %u routes, %u tbl8 groups\n", t->name, t->applied, t->einval,
			t->enoent, t->enomem, t->enospc, t->peak, t->peak_groups);
	}
}

static void __attribute__((format(printf, 2, 3), noreturn))
fail(const struct target *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_fib: %s: ", t->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

static u128
mask(unsigned int depth)
{
	return depth == 0 ? 0 : ~(u128)0 << (128 - depth);
}

/* The top 64 and bottom 64 bits, for messages. */
#define HI(k) ((unsigned long long)((k) >> 64))
#define LO(k) ((unsigned long long)(k))

static uint32_t
key_ip4(u128 key)
{
	return (uint32_t)(key >> 96);
}

static void
key_ip6(u128 key, uint8_t ip[16])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		ip[i] = (uint8_t)(key >> (120 - 8 * i));
}

static u128
ip6_key(const uint8_t ip[16])
{
	u128 k = 0;
	unsigned int i;

	for (i = 0; i < 16; i++)
		k = k << 8 | ip[i];
	return k;
}

/* --- the reference ------------------------------------------------------ */

static int
ref_find(const struct target *t, u128 key, uint8_t depth)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->ref[i].depth == depth && t->ref[i].key == key)
			return (int)i;
	return -1;
}

/* Longest match by linear scan; -1 when no route covers @p key. */
static int
ref_lpm(const struct target *t, u128 key)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if ((key & mask(t->ref[i].depth)) == t->ref[i].key &&
		    (best < 0 || t->ref[i].depth > t->ref[best].depth))
			best = (int)i;
	return best;
}

/*
 * DIR-24-8's groups that only a route @p key/@p depth needs: one for each
 * /L block (L = 24, and for IPv6 32, ..., 120, below depth) holding no
 * other route longer than L. A group exists exactly while some route
 * longer than its block does (fib.h, fib6.h).
 */
static unsigned int
groups_alone(const struct target *t, u128 key, uint8_t depth)
{
	unsigned int len, i, n = 0;

	for (len = 24; len < depth && len < t->bits; len += 8) {
		for (i = 0; i < t->n; i++)
			if (t->ref[i].depth > len && (t->ref[i].key & mask(len)) == (key & mask(len)) &&
			    !(t->ref[i].key == key && t->ref[i].depth == depth))
				break;
		n += i == t->n;
	}
	return n;
}

static uint32_t
nh_max(const struct target *t)
{
	if (t->algo == DPR_FIB_POPTRIE)
		return DPR_PT_NH_MAX;
	return t->bits == 32 ? DPR_FIB4_NH_BITS : DPR_FIB6_NH_BITS;
}

/*
 * @p op applied to the reference, as the FIB must: 0, or the error that
 * stops the batch there (nothing changed). *@p existed, *@p old_nh: what
 * the FIB reports for an applied op.
 */
static int
ref_apply(struct target *t, const struct op *op, uint8_t *existed, uint32_t *old_nh)
{
	u128 key;
	int k;

	if (op->depth > t->bits)
		return -EINVAL;
	key = op->key & mask(op->depth);
	k = ref_find(t, key, op->depth);
	*existed = k >= 0;
	*old_nh = k >= 0 ? t->ref[k].nh : 0;
	if (op->del) {
		if (k < 0)
			return -ENOENT;
		t->ref[k] = t->ref[--t->n];
		if (t->algo == DPR_FIB_DIR24_8)
			t->groups -= groups_alone(t, key, op->depth);
		return 0;
	}
	if (op->nh > nh_max(t))
		return -EINVAL;
	if (k >= 0) {
		t->ref[k].nh = op->nh;
		return 0;
	}
	if (t->n >= MAX_ROUTES)
		return -ENOMEM;
	if (t->algo == DPR_FIB_DIR24_8) {
		unsigned int need = groups_alone(t, key, op->depth);

		if (t->groups + need > (t->bits == 32 ? GROUPS4 : GROUPS6))
			return -ENOSPC;
		t->groups += need;
	}
	t->ref[t->n++] = (struct ref_route){ key, op->depth, op->nh };
	return 0;
}

/* --- the FIBs ----------------------------------------------------------- */

/* The batch through @p t's FIB; what it reports back lands in @p existed, @p old_nh. */
static unsigned int
fib_update(struct target *t, const struct op *ops, unsigned int n, uint8_t *existed,
	   uint32_t *old_nh, int *err)
{
	static struct dpr_fib4_op o4[BATCH_MAX];
	static struct dpr_fib6_op o6[BATCH_MAX];
	unsigned int i, done;

	if (t->bits == 32) {
		for (i = 0; i < n; i++)
			o4[i] = (struct dpr_fib4_op){ .ip = key_ip4(ops[i].key), .depth = ops[i].depth,
						      .del = ops[i].del, .nh = ops[i].nh };
		done = dpr_fib4_update(t->fib4, o4, n, err);
		for (i = 0; i < done; i++) {
			existed[i] = o4[i].existed;
			old_nh[i] = o4[i].old_nh;
		}
		return done;
	}
	for (i = 0; i < n; i++) {
		o6[i] = (struct dpr_fib6_op){ .depth = ops[i].depth, .del = ops[i].del,
					      .nh = ops[i].nh };
		key_ip6(ops[i].key, o6[i].ip);
	}
	done = dpr_fib6_update(t->fib6, o6, n, err);
	for (i = 0; i < done; i++) {
		existed[i] = o6[i].existed;
		old_nh[i] = o6[i].old_nh;
	}
	return done;
}

static uint32_t
fib_count(const struct target *t)
{
	return t->bits == 32 ? t->fib4->n_routes : dpr_fib6_count(t->fib6);
}

static uint32_t
fib_tbl8_used(const struct target *t)
{
	return t->bits == 32 ? dpr_fib4_tbl8_used(t->fib4) : dpr_fib6_tbl8_used(t->fib6);
}

static struct dpr_poptrie *
fib_pt(const struct target *t)
{
	return t->bits == 32 ? t->fib4->pt : t->fib6->pt;
}

static int
fib_get(const struct target *t, u128 key, uint8_t depth, uint32_t *nh)
{
	uint8_t ip[16];

	if (t->bits == 32)
		return dpr_fib4_get(t->fib4, key_ip4(key), depth, nh);
	key_ip6(key, ip);
	return dpr_fib6_get(t->fib6, ip, depth, nh);
}

static int
fib_lpm(const struct target *t, u128 key, u128 *prefix, uint8_t *depth, uint32_t *nh)
{
	uint8_t ip[16], p[16];
	uint32_t p4;
	int ret;

	if (t->bits == 32) {
		ret = dpr_fib4_lpm(t->fib4, key_ip4(key), &p4, depth, nh);
		*prefix = (u128)p4 << 96;
		return ret;
	}
	key_ip6(key, ip);
	ret = dpr_fib6_lpm(t->fib6, ip, p, depth, nh);
	*prefix = ip6_key(p);
	return ret;
}

/* Up to @p max routes after (@p key, @p depth) (@p after false: from the start). */
static int
fib_list(struct target *t, bool after, u128 key, uint8_t depth, struct ref_route *out,
	 unsigned int max, bool *more)
{
	struct dpr_fib4_route r4[MAX_ROUTES], a4 = { key_ip4(key), depth, 0 };
	struct dpr_fib6_route r6[MAX_ROUTES], a6 = { .depth = depth };
	int n, i;

	if (t->bits == 32) {
		n = dpr_fib4_list(t->fib4, after ? &a4 : NULL, r4, max, more);
		for (i = 0; i < n; i++)
			out[i] = (struct ref_route){ (u128)r4[i].ip << 96, r4[i].depth, r4[i].nh };
		return n;
	}
	key_ip6(key, a6.ip);
	n = dpr_fib6_list(t->fib6, after ? &a6 : NULL, r6, max, more);
	for (i = 0; i < n; i++)
		out[i] = (struct ref_route){ ip6_key(r6[i].ip), r6[i].depth, r6[i].nh };
	return n;
}

/* dpr_fibX_lookup() of each of @p keys and dpr_fibX_lookup_bulk() of them all. */
static void
fib_lookup(const struct target *t, const u128 *keys, unsigned int n, uint32_t *nh,
	   uint32_t *bulk)
{
	static uint32_t ip4[BATCH_MAX * 2 + MAX_ROUTES * 4];
	static uint8_t ip6[BATCH_MAX * 2 + MAX_ROUTES * 4][16];
	static const uint8_t *p6[BATCH_MAX * 2 + MAX_ROUTES * 4];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (t->bits == 32) {
			ip4[i] = key_ip4(keys[i]);
			nh[i] = dpr_fib4_lookup(t->fib4, ip4[i]);
		} else {
			key_ip6(keys[i], ip6[i]);
			p6[i] = ip6[i];
			nh[i] = dpr_fib6_lookup(t->fib6, ip6[i]);
		}
	}
	if (t->bits == 32)
		dpr_fib4_lookup_bulk(t->fib4, ip4, bulk, n);
	else
		dpr_fib6_lookup_bulk(t->fib6, p6, bulk, n);
}

/* --- the checks --------------------------------------------------------- */

static int
cmp_route(const void *a, const void *b)
{
	const struct ref_route *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (int)x->depth - (int)y->depth;
}

/* The routes, in pages of @p page, in (address, depth) order; and from a
 * cursor that need not be a route. */
static void
check_list(struct target *t, unsigned int page, u128 cursor, uint8_t cursor_depth)
{
	struct ref_route sorted[MAX_ROUTES], got[MAX_ROUTES];
	unsigned int seen = 0, i;
	bool more = true;
	int n;

	memcpy(sorted, t->ref, t->n * sizeof(sorted[0]));
	qsort(sorted, t->n, sizeof(sorted[0]), cmp_route);
	while (more) {
		n = fib_list(t, seen > 0, seen > 0 ? sorted[seen - 1].key : 0,
			     seen > 0 ? sorted[seen - 1].depth : 0, got, page, &more);
		if (n < 0 || seen + (unsigned int)n > t->n || (n == 0 && more))
			fail(t, "list after %u routes: %d (more %d) of %u", seen, n, more, t->n);
		for (i = 0; i < (unsigned int)n; i++, seen++)
			if (cmp_route(&got[i], &sorted[seen]) != 0 || got[i].nh != sorted[seen].nh)
				fail(t, "list #%u: %016llx%016llx/%u nh %u, want %016llx%016llx/%u nh %u",
				     seen, HI(got[i].key), LO(got[i].key), got[i].depth, got[i].nh,
				     HI(sorted[seen].key), LO(sorted[seen].key), sorted[seen].depth,
				     sorted[seen].nh);
	}
	if (seen != t->n)
		fail(t, "list gave %u routes of %u", seen, t->n);
	/* The first route past the cursor. */
	if (cursor_depth > t->bits)
		return;
	cursor &= mask(cursor_depth);
	for (i = 0; i < t->n; i++)
		if (cmp_route(&sorted[i], &(struct ref_route){ cursor, cursor_depth, 0 }) > 0)
			break;
	n = fib_list(t, true, cursor, cursor_depth, got, 1, &more);
	if (i == t->n ? n != 0 || more : n != 1 || cmp_route(&got[0], &sorted[i]) != 0 ||
	    more != (i + 1 < t->n))
		fail(t, "list after %016llx%016llx/%u: %d routes, more %d; want route #%u of %u",
		     HI(cursor), LO(cursor), cursor_depth, n, more, i, t->n);
}

/*
 * Everything a FIB answers, against its reference. Poptrie's self-check
 * walks all 2^18 direct-pointing entries (tens of milliseconds here, most
 * of a run): only after a batch that changed something (@p changed).
 */
static void
check(struct target *t, const struct op *ops, unsigned int n_ops, unsigned int page,
      bool changed)
{
	static u128 keys[BATCH_MAX * 2 + MAX_ROUTES * 4];
	static uint32_t nh[RTE_DIM(keys)], bulk[RTE_DIM(keys)];
	unsigned int i, n = 0;

	for (i = 0; i < n_ops; i++) {
		keys[n++] = ops[i].key;
		keys[n++] = ops[i].key ^ ((u128)1 << (128 - t->bits)); /* the last bit */
	}
	for (i = 0; i < t->n; i++) {
		u128 first = t->ref[i].key, last = first | (~mask(t->ref[i].depth) &
							    mask(t->bits));
		u128 one = (u128)1 << (128 - t->bits);

		keys[n++] = first;
		keys[n++] = last;
		keys[n++] = first - one;
		keys[n++] = last + one;
	}
	for (i = 0; i < n; i++)
		keys[i] &= mask(t->bits);
	fib_lookup(t, keys, n, nh, bulk);
	for (i = 0; i < n; i++) {
		int best = ref_lpm(t, keys[i]), ret;
		uint32_t want = best < 0 ? DPR_NH_NONE : t->ref[best].nh, got_nh = 0;
		uint8_t depth = 0;
		u128 prefix = 0;

		if (nh[i] != want || bulk[i] != want)
			fail(t, "%016llx%016llx: lookup %u, bulk %u, want %u", HI(keys[i]),
			     LO(keys[i]), nh[i], bulk[i], want);
		ret = fib_lpm(t, keys[i], &prefix, &depth, &got_nh);
		if (best < 0 ? ret != -ENOENT :
		    ret != 0 || prefix != t->ref[best].key || depth != t->ref[best].depth ||
		    got_nh != want)
			fail(t, "%016llx%016llx: lpm %d %016llx%016llx/%u nh %u, want route %d",
			     HI(keys[i]), LO(keys[i]), ret, HI(prefix), LO(prefix), depth, got_nh,
			     best);
	}
	for (i = 0; i < t->n; i++) {
		uint32_t got = 0;
		int ret = fib_get(t, t->ref[i].key, t->ref[i].depth, &got);

		if (ret != 0 || got != t->ref[i].nh)
			fail(t, "get %016llx%016llx/%u: %d nh %u, want %u", HI(t->ref[i].key),
			     LO(t->ref[i].key), t->ref[i].depth, ret, got, t->ref[i].nh);
	}
	for (i = 0; i < n_ops; i++) {
		uint32_t got;
		int want = ops[i].depth <= t->bits &&
			ref_find(t, ops[i].key & mask(ops[i].depth), ops[i].depth) >= 0 ?
			0 : -ENOENT;

		if ((fib_get(t, ops[i].key, ops[i].depth, &got) == 0) != (want == 0))
			fail(t, "get %016llx%016llx/%u: not %d", HI(ops[i].key), LO(ops[i].key),
			     ops[i].depth, want);
	}
	if (fib_count(t) != t->n)
		fail(t, "%u routes, want %u", fib_count(t), t->n);
	if (t->algo == DPR_FIB_DIR24_8 && fib_tbl8_used(t) != t->groups)
		fail(t, "%u tbl8 groups in use, want %u", fib_tbl8_used(t), t->groups);
	if (t->algo == DPR_FIB_POPTRIE && changed && dpr_pt_check(fib_pt(t)) != 0)
		fail(t, "dpr_pt_check() failed (logged above)");
	if (t->bits == 32) {
		unsigned int marks[256] = { 0 };

		/* RFC 1812 5.3.7's screen: a mark for the last octet of each
		 * /32 route to DPR_NH_BCAST. */
		for (i = 0; i < t->n; i++)
			if (t->ref[i].depth == 32 && t->ref[i].nh == DPR_NH_BCAST)
				marks[key_ip4(t->ref[i].key) & 0xff]++;
		for (i = 0; i < 256; i++) {
			const uint8_t *m = t->fib4->marks;
			unsigned int want = dpr_ip4_screen_octet[i];

			if (m[DPR_FIB4_MARK_SRC_BCAST + i] != (marks[i] != 0))
				fail(t, "source broadcast mark %u: %u, want %u", i,
				     m[DPR_FIB4_MARK_SRC_BCAST + i], marks[i] != 0);
			if (m[DPR_FIB4_MARK_FIRST + i] != want)
				fail(t, "first octet mark %u: %u, want %u", i,
				     m[DPR_FIB4_MARK_FIRST + i], want);
		}
	}
	if (n_ops > 0)
		check_list(t, page, ops[0].key, ops[0].depth);
	else
		check_list(t, page, 0, 0);
}

/* A batch through @p t and its reference, and all of the checks after it. */
static void
run_batch(struct target *t, const struct op *ops, unsigned int n, unsigned int page)
{
	static uint8_t existed[BATCH_MAX], want_existed[BATCH_MAX];
	static uint32_t old_nh[BATCH_MAX], want_old[BATCH_MAX];
	unsigned int want_done, done, i;
	int want_err = 0, err = 0;

	for (want_done = 0; want_done < n; want_done++) {
		want_err = ref_apply(t, &ops[want_done], &want_existed[want_done],
				     &want_old[want_done]);
		if (want_err < 0)
			break;
	}
	done = fib_update(t, ops, n, existed, old_nh, &err);
	if (done != want_done || err != want_err)
		fail(t, "batch of %u: %u applied (%s), want %u (%s)", n, done, strerror(-err),
		     want_done, strerror(-want_err));
	t->applied += done;
	t->einval += err == -EINVAL;
	t->enoent += err == -ENOENT;
	t->enomem += err == -ENOMEM;
	t->enospc += err == -ENOSPC;
	t->peak = RTE_MAX(t->peak, t->n);
	t->peak_groups = RTE_MAX(t->peak_groups, t->groups);
	for (i = 0; i < done; i++)
		if (existed[i] != want_existed[i] || (existed[i] && old_nh[i] != want_old[i]))
			fail(t, "op %u %016llx%016llx/%u: existed %u old %u, want %u %u", i,
			     HI(ops[i].key), LO(ops[i].key), ops[i].depth, existed[i], old_nh[i],
			     want_existed[i], want_old[i]);
	check(t, ops, n, page, done > 0);
}

/* --- the input ---------------------------------------------------------- */

struct input {
	const uint8_t *p;
	size_t left;
};

static bool
next(struct input *in, uint8_t *b)
{
	if (in->left == 0)
		return false;
	*b = *in->p++;
	in->left--;
	return true;
}

/* Next hops: the broadcast one (IPv4's screen marks), ordinary ones, the
 * largest a next-hop table has, and past what Poptrie's 16-bit leaves or
 * any FIB holds (-EINVAL). */
static uint32_t
nh_pick(uint8_t kind)
{
	static const uint32_t nh[8] = {
		DPR_NH_NONE, DPR_NH_BCAST, 5, 6, 0x1234, DPR_NH_MAX - 1, DPR_NH_MAX, UINT32_MAX,
	};

	return nh[(kind >> 2) & 7];
}

static bool
read_depth(struct input *in, unsigned int bits, uint8_t *depth)
{
	uint8_t d;

	if (!next(in, &d))
		return false;
	if (d < 0xf0)
		*depth = (uint8_t)(12 + d % (bits - 12 + 1));
	else if (d < 0xfd)
		*depth = (uint8_t)(1 + (d - 0xf0) % 11);
	else if (d == 0xfd)
		*depth = 0;
	else
		*depth = d == 0xfe ? (uint8_t)(bits + 1) : UINT8_MAX;
	return true;
}

static bool
read_key(struct input *in, unsigned int bits, u128 *key)
{
	static const uint8_t pal[4] = { 0x00, 0x01, 0x80, 0xff };
	unsigned int len = bits / 8, i;
	uint8_t sel = 0, pos, val, b[16];

	for (i = 0; i < len; i++) {
		if (i % 4 == 0 && !next(in, &sel))
			return false;
		b[i] = pal[(sel >> (2 * (i % 4))) & 3];
	}
	if (!next(in, &pos) || !next(in, &val))
		return false;
	b[pos % len] = val;
	*key = 0;
	for (i = 0; i < len; i++)
		*key |= (u128)b[i] << (120 - 8 * i);
	return true;
}

/*
 * The ops of one batch for family @p bits, against the routes of @p t (the
 * family's DIR-24-8 reference: the same routes as Poptrie's as far as a
 * pick goes, and any route will do): @p want of them, fewer when the
 * input ends. @return the ops of the batch, a fill counting 32.
 */
static unsigned int
read_ops(struct input *in, const struct target *t, unsigned int want, struct op *ops)
{
	unsigned int n = 0, j, k;
	uint8_t kind, pick;

	for (k = 0; k < want && next(in, &kind); k++) {
		struct op op = { .del = (kind & 3) >= 2, .nh = nh_pick(kind) };

		if ((kind & 3) == 1 || (kind & 3) == 2) {
			if (!next(in, &pick))
				break;
			if (t->n == 0)
				continue;
			op.key = t->ref[pick % t->n].key;
			op.depth = t->ref[pick % t->n].depth;
		} else if (!read_depth(in, t->bits, &op.depth) ||
			   !read_key(in, t->bits, &op.key)) {
			break;
		}
		if (kind >= 0xe0 && !op.del && op.depth >= 5 && op.depth <= t->bits) {
			/* The prefix and the next 31 of its length. */
			u128 step = (u128)1 << (128 - op.depth);

			op.key &= mask(op.depth);
			for (j = 0; j < FILL; j++, op.key += step)
				ops[n++] = op;
			continue;
		}
		ops[n++] = op;
	}
	return n;
}

/* Every route goes, in one batch, and the FIBs are empty again. */
static void
drain(void)
{
	struct op ops[MAX_ROUTES];
	unsigned int i, k, n;

	for (i = 0; i < RTE_DIM(targets); i++) {
		struct target *t = &targets[i];

		while (t->n > 0) {
			n = RTE_MIN(t->n, (unsigned int)RTE_DIM(ops));
			for (k = 0; k < n; k++)
				ops[k] = (struct op){ .key = t->ref[t->n - 1 - k].key,
						      .depth = t->ref[t->n - 1 - k].depth, .del = 1 };
			run_batch(t, ops, n, MAX_ROUTES);
		}
		if (fib_tbl8_used(t) != 0 || t->groups != 0)
			fail(t, "empty, but %u tbl8 groups in use", fib_tbl8_used(t));
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned int i;

	(void)argc;
	if (test_eal_init((*argv)[0]) < 0)
		abort();
	rte_log_set_global_level(RTE_LOG_CRIT);
	for (i = 0; i < RTE_DIM(targets); i++) {
		struct target *t = &targets[i];

		if (t->bits == 32)
			t->fib4 = dpr_fib4_create(&(struct dpr_fib4_conf){ .algorithm = t->algo,
				.max_routes = MAX_ROUTES, .tbl8_groups = GROUPS4, .socket = 0 }, NULL);
		else
			t->fib6 = dpr_fib6_create(&(struct dpr_fib6_conf){ .algorithm = t->algo,
				.max_routes = MAX_ROUTES, .tbl8_groups = GROUPS6, .socket = 0 }, NULL);
		if (t->fib4 == NULL && t->fib6 == NULL)
			fail(t, "cannot create: %s", strerror(errno));
	}
	if (getenv("FUZZ_STATS") != NULL)
		atexit(print_stats);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct op ops[BATCH_MAX];
	struct input in = { data, size };
	uint8_t hdr;

	while (next(&in, &hdr)) {
		unsigned int fam = hdr & 1, n, i;

		n = read_ops(&in, &targets[2 * fam], (hdr >> 1) + 1u, ops);
		for (i = 0; i < 2; i++)
			run_batch(&targets[2 * fam + i], ops, n, 1 + hdr % 16);
	}
	drain();
	return 0;
}
