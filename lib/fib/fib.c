/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 FIB's control side: the rule table, the DIR-24-8 updates and the
 * tbl8 group allocator with RCU-deferred reuse. See fib.h for the layout and
 * how workers are protected.
 *
 * Invariants kept by every op:
 *  - each address's entry holds the longest installed route covering it
 *    (VALID, its depth and next hop), or 0 when none does;
 *  - a tbl8 group is linked from tbl24 exactly while one of its entries is
 *    deeper than /24; otherwise its 256 entries would all be equal and the
 *    tbl24 entry holds that value itself.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include "../nexthop/nexthop.h"
#include "../util/addr.h"
#include "../util/log.h"
#include "fib.h"

#define GROUP_SIZE 256u
#define GROUPS_MAX (DPR_FIB4_NH_BITS + 1)

/*
 * A rule, one 64-bit slot of the open-addressing table: bit 63 used,
 * ip << 30, depth << 24, next hop. An unused slot is 0.
 */
#define RULE_USED (UINT64_C(1) << 63)
#define RULE_KEY_MASK ((UINT64_C(1) << 38) - 1) /* ip << 6 | depth, from bit 24 */
#define RULES_MIN_SLOTS (1u << 16)
#define NOT_FOUND UINT32_MAX

static inline uint64_t
rule_make(uint32_t ip, uint8_t depth, uint32_t nh)
{
	return RULE_USED | (uint64_t)ip << 30 | (uint64_t)depth << 24 | nh;
}

static inline uint64_t
rule_key(uint64_t r)
{
	return (r >> 24) & RULE_KEY_MASK;
}

static inline uint32_t
rule_ip(uint64_t r)
{
	return (uint32_t)(r >> 30);
}

static inline uint8_t
rule_depth(uint64_t r)
{
	return (uint8_t)((r >> 24) & 0x3f);
}

static inline uint32_t
rule_nh(uint64_t r)
{
	return (uint32_t)(r & DPR_FIB4_NH_BITS);
}

/* Fibonacci hashing: the top bits of key times 2^64 / golden ratio. */
static inline uint32_t
rule_home(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;
}

static uint32_t
rule_find(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth)
{
	uint64_t key = (uint64_t)ip << 6 | depth;
	uint32_t i = rule_home(key, fib->rules_mask);

	for (;; i = (i + 1) & fib->rules_mask) {
		uint64_t r = fib->rules[i];

		if (r == 0)
			return NOT_FOUND;
		if (rule_key(r) == key)
			return i;
	}
}

/* @p r is not in @p slots, which has a free slot. */
static void
rule_put(uint64_t *slots, uint32_t mask, uint64_t r)
{
	uint32_t i = rule_home(rule_key(r), mask);

	while (slots[i] != 0)
		i = (i + 1) & mask;
	slots[i] = r;
}

/* Backward-shift deletion: no tombstones, probes stay short. */
static void
rule_remove(struct dpr_fib4 *fib, uint32_t i)
{
	uint32_t mask = fib->rules_mask, j = i;

	for (;;) {
		uint32_t home;

		j = (j + 1) & mask;
		if (fib->rules[j] == 0)
			break;
		home = rule_home(rule_key(fib->rules[j]), mask);
		/* Slot j may move into the hole at i unless its home lies
		 * cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			fib->rules[i] = fib->rules[j];
			i = j;
		}
	}
	fib->rules[i] = 0;
}

/* Double the table when one more rule would pass a load of 0.6. */
static int
rules_reserve(struct dpr_fib4 *fib)
{
	uint64_t slots = (uint64_t)fib->rules_mask + 1, *bigger;
	uint32_t i;

	if (((uint64_t)fib->n_routes + 1) * 5 <= slots * 3)
		return 0;
	if (slots * 2 > (UINT64_C(1) << 32))
		return -ENOMEM;
	bigger = calloc(slots * 2, sizeof(*bigger));
	if (bigger == NULL)
		return -ENOMEM;
	for (i = 0; i < slots; i++)
		if (fib->rules[i] != 0)
			rule_put(bigger, (uint32_t)(slots * 2 - 1), fib->rules[i]);
	free(fib->rules);
	fib->rules = bigger;
	fib->rules_mask = (uint32_t)(slots * 2 - 1);
	return 0;
}

static inline uint32_t
entry_make(uint32_t nh, uint8_t depth)
{
	return DPR_FIB4_VALID | (uint32_t)depth << DPR_FIB4_DEPTH_SHIFT | nh;
}

/* Depth of a non-EXT entry; 0 for the empty one. */
static inline uint8_t
entry_depth(uint32_t e)
{
	return (uint8_t)((e >> DPR_FIB4_DEPTH_SHIFT) & DPR_FIB4_DEPTH_MASK);
}

/*
 * Release: a worker that reads the entry then reads the next-hop word it
 * names (or the tbl8 group) must see what was written there before. The
 * reader's side is the address dependency of those loads, which orders them
 * on every CPU DPDK supports (x86-64, ARMv8, POWER; not Alpha), as
 * rcu_dereference() relies on. On x86 a release store is a plain store.
 */
static inline void
entry_store(uint32_t *p, uint32_t e)
{
	__atomic_store_n(p, e, __ATOMIC_RELEASE);
}

static inline uint32_t *
group_entries(const struct dpr_fib4 *fib, uint32_t tbl24_entry)
{
	return &fib->tbl8[(size_t)(tbl24_entry & DPR_FIB4_NH_BITS) * GROUP_SIZE];
}

/* Wait for readers, then make the groups unlinked so far reusable. */
static void
tbl8_reclaim(struct dpr_fib4 *fib)
{
	if (fib->qsbr != NULL)
		rte_rcu_qsbr_synchronize(fib->qsbr, RTE_QSBR_THRID_INVALID);
	fib->grace_periods++;
	while (fib->n_pending > 0)
		fib->tbl8_free[fib->n_free++] = fib->tbl8_pending[--fib->n_pending];
}

/*
 * Make sure a group can be taken. When only unlinked ones are left (a batch
 * that deletes and adds long prefixes), wait the grace period now.
 */
static int
tbl8_reserve(struct dpr_fib4 *fib)
{
	if (fib->n_free == 0 && fib->n_pending > 0)
		tbl8_reclaim(fib);
	return fib->n_free > 0 ? 0 : -ENOSPC;
}

/* Entries [first, first + count) of a group no deeper than @p depth get @p e. */
static void
group_set(uint32_t *g, uint32_t first, uint32_t count, uint32_t e, uint8_t depth)
{
	uint32_t j;

	for (j = first; j < first + count; j++)
		if (entry_depth(g[j]) <= depth)
			entry_store(&g[j], e);
}

/* Set a /0-/24's addresses, in tbl24 and in the groups below it. */
static void
set_short(struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t e)
{
	uint32_t i, first = ip >> 8, count = UINT32_C(1) << (24 - depth);

	for (i = first; i < first + count; i++) {
		uint32_t t = fib->tbl24[i];

		if (t & DPR_FIB4_EXT)
			group_set(group_entries(fib, t), 0, GROUP_SIZE, e, depth);
		else if (entry_depth(t) <= depth)
			entry_store(&fib->tbl24[i], e);
	}
}

/* Add a /25-/32; its block has a group, or tbl8_reserve() succeeded. */
static void
add_long(struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t e)
{
	uint32_t *t = &fib->tbl24[ip >> 8];
	uint32_t first = ip & 0xff, count = UINT32_C(1) << (32 - depth);
	uint32_t *g, idx, j;

	if (*t & DPR_FIB4_EXT) {
		group_set(group_entries(fib, *t), first, count, e, depth);
		return;
	}
	/* A new group: no reader can see it until tbl24 links it. */
	idx = fib->tbl8_free[--fib->n_free];
	g = &fib->tbl8[(size_t)idx * GROUP_SIZE];
	for (j = 0; j < GROUP_SIZE; j++)
		g[j] = j - first < count ? e : *t;
	__atomic_store_n(t, DPR_FIB4_EXT | idx, __ATOMIC_RELEASE);
}

/* Delete a /25-/32; unlink its group when nothing deeper than /24 is left. */
static void
del_long(struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t repl)
{
	uint32_t *t = &fib->tbl24[ip >> 8];
	uint32_t first = ip & 0xff, count = UINT32_C(1) << (32 - depth);
	uint32_t idx = *t & DPR_FIB4_NH_BITS, *g = group_entries(fib, *t), j;

	group_set(g, first, count, repl, depth);
	for (j = 0; j < GROUP_SIZE; j++)
		if (entry_depth(g[j]) > 24)
			return;
	/* Readers that still follow the old link find the same answers in the
	 * group, which stays untouched until a grace period has passed. */
	entry_store(t, g[0]);
	fib->tbl8_pending[fib->n_pending++] = idx;
}

/* What the addresses of a deleted route fall back to: its longest cover. */
static uint32_t
covering_entry(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth)
{
	while (depth-- > 0) {
		uint32_t slot = rule_find(fib, ip & dpr_ip4_mask(depth), depth);

		if (slot != NOT_FOUND)
			return entry_make(rule_nh(fib->rules[slot]), depth);
	}
	return 0;
}

const uint8_t dpr_ip4_special_octet[256] = {
	[0] = 1, [127] = 1, [224 ... 255] = 1,
};

const uint8_t dpr_ip4_screen_octet[256] = {
	[0] = 1, [127] = 1, [169] = 1, [224 ... 255] = 1,
};

/* The screen's first-octet marks (dpr_ip4_screen_octet). */
static void
marks_init(struct dpr_fib4 *fib)
{
	memcpy(&fib->marks[DPR_FIB4_MARK_FIRST], dpr_ip4_screen_octet,
	       sizeof(dpr_ip4_screen_octet));
}

/* Keep the source broadcast marks in step with the /32 routes to
 * DPR_NH_BCAST: @p was and @p now say whether the route at @p ip pointed
 * there before and after. */
static void
bcast_mark(struct dpr_fib4 *fib, uint32_t ip, bool was, bool now)
{
	uint8_t o = (uint8_t)ip;

	if (was == now)
		return;
	fib->bcast_routes[o] += now ? 1 : (uint32_t)-1;
	__atomic_store_n(&fib->marks[DPR_FIB4_MARK_SRC_BCAST + o], fib->bcast_routes[o] != 0,
			 __ATOMIC_RELAXED);
}

static int
apply(struct dpr_fib4 *fib, struct dpr_fib4_op *op)
{
	uint8_t depth = op->depth;
	uint32_t ip, slot, e;
	int ret;

	if (depth > 32)
		return -EINVAL;
	ip = op->ip & dpr_ip4_mask(depth);
	slot = rule_find(fib, ip, depth);
	op->existed = slot != NOT_FOUND;
	op->old_nh = op->existed ? rule_nh(fib->rules[slot]) : 0;

	if (op->del) {
		if (!op->existed)
			return -ENOENT;
		if (depth == 32)
			bcast_mark(fib, ip, op->old_nh == DPR_NH_BCAST, false);
		rule_remove(fib, slot);
		fib->n_routes--;
		e = covering_entry(fib, ip, depth);
		if (depth <= 24)
			set_short(fib, ip, depth, e);
		else
			del_long(fib, ip, depth, e);
		return 0;
	}

	if (op->nh > DPR_FIB4_NH_BITS)
		return -EINVAL;
	if (op->existed) {
		fib->rules[slot] = rule_make(ip, depth, op->nh);
	} else {
		if (fib->n_routes >= fib->conf.max_routes)
			return -ENOMEM;
		if (depth > 24 && !(fib->tbl24[ip >> 8] & DPR_FIB4_EXT) &&
		    tbl8_reserve(fib) < 0)
			return -ENOSPC;
		ret = rules_reserve(fib);
		if (ret < 0)
			return ret;
		rule_put(fib->rules, fib->rules_mask, rule_make(ip, depth, op->nh));
		fib->n_routes++;
	}
	e = entry_make(op->nh, depth);
	if (depth <= 24)
		set_short(fib, ip, depth, e);
	else
		add_long(fib, ip, depth, e);
	if (depth == 32)
		bcast_mark(fib, ip, op->existed && op->old_nh == DPR_NH_BCAST,
			   op->nh == DPR_NH_BCAST);
	return 0;
}

static bool
replaced(const struct dpr_fib4_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ops[i].existed)
			return true;
	return false;
}

const char *
dpr_fib_algo_name(enum dpr_fib_algo a)
{
	return a == DPR_FIB_POPTRIE ? "poptrie" : "dir-24-8";
}

static inline dpr_u128
pt_key(uint32_t ip)
{
	return (dpr_u128)ip << 96;
}

/* Ops a Poptrie batch takes at most (dpr_pt_update()). */
#define PT_BATCH_MAX 16384u

/* The ops through Poptrie, in pieces of its own op type. */
static unsigned int
pt_update(struct dpr_fib4 *fib, struct dpr_fib4_op *ops, unsigned int n, int *err)
{
	/* Batches as large as the caller's, up to PT_BATCH_MAX: a batch
	 * rebuilds the nodes its changes share once. */
	struct dpr_pt_op spare[64], *pops;
	unsigned int done = 0, k, m, got, max = RTE_MIN(n, PT_BATCH_MAX);

	pops = max > RTE_DIM(spare) ? malloc(max * sizeof(*pops)) : NULL;
	if (pops == NULL) {
		pops = spare;
		max = RTE_MIN(max, (unsigned int)RTE_DIM(spare));
	}
	*err = 0;
	while (done < n) {
		m = RTE_MIN(n - done, max);
		for (k = 0; k < m; k++)
			pops[k] = (struct dpr_pt_op){ .key = pt_key(ops[done + k].ip),
				.depth = ops[done + k].depth, .del = ops[done + k].del,
				.nh = ops[done + k].nh };
		got = dpr_pt_update(fib->pt, pops, m, err);
		for (k = 0; k < got; k++) {
			struct dpr_fib4_op *op = &ops[done + k];

			op->existed = pops[k].existed;
			op->old_nh = pops[k].old_nh;
			if (op->depth == 32)
				bcast_mark(fib, op->ip, op->existed && op->old_nh == DPR_NH_BCAST,
					   !op->del && op->nh == DPR_NH_BCAST);
		}
		done += got;
		if (got < m)
			break;
	}
	if (pops != spare)
		free(pops);
	fib->n_routes = fib->pt->n_routes;
	fib->gen += done;
	fib->grace_periods = fib->pt->grace_periods;
	return done;
}

unsigned int
dpr_fib4_update(struct dpr_fib4 *fib, struct dpr_fib4_op *ops,
		unsigned int n, int *err)
{
	unsigned int done;
	int ret = 0;

	if (fib->pt != NULL)
		return pt_update(fib, ops, n, err);

	for (done = 0; done < n; done++) {
		ret = apply(fib, &ops[done]);
		if (ret < 0)
			break;
	}
	*err = ret;
	if (done == 0)
		return 0;
	fib->gen += done;
	/* One grace period when something is to be freed: workers are done
	 * with the replaced or deleted routes' next hops (route.c frees them
	 * next) and with the groups unlinked above. A batch that only adds new
	 * prefixes frees nothing and waits for nobody (a learned neighbour's
	 * host route, one a time, costs no grace period). */
	if (fib->n_pending > 0 || replaced(ops, done))
		tbl8_reclaim(fib);
	return done;
}

static struct dpr_fib4 *
create_poptrie(const struct dpr_fib4_conf *conf, struct rte_rcu_qsbr *qsbr)
{
	int socket = conf->socket < 0 ? SOCKET_ID_ANY : conf->socket;
	struct dpr_fib4 *fib;

	fib = rte_zmalloc_socket("dpr_fib4", sizeof(*fib), RTE_CACHE_LINE_SIZE, socket);
	if (fib == NULL)
		goto nomem;
	fib->conf = *conf;
	fib->qsbr = qsbr;
	fib->gen = 1;
	marks_init(fib);
	fib->pt = dpr_pt_create(&(struct dpr_poptrie_conf){ .key_bits = 32,
		.max_routes = conf->max_routes, .socket = conf->socket, .name = "IPv4" }, qsbr);
	if (fib->pt == NULL)
		goto nomem;
	DPR_LOG(INFO, fib, "IPv4 FIB: Poptrie, %u routes, %.1f MiB to start", conf->max_routes,
		(double)dpr_fib4_memory(fib) / (1 << 20));
	return fib;
nomem:
	DPR_LOG(ERR, fib, "cannot allocate the IPv4 FIB (Poptrie) on socket %d", conf->socket);
	rte_free(fib);
	errno = ENOMEM;
	return NULL;
}

struct dpr_fib4 *
dpr_fib4_create(const struct dpr_fib4_conf *conf, struct rte_rcu_qsbr *qsbr)
{
	int socket = conf->socket < 0 ? SOCKET_ID_ANY : conf->socket;
	struct dpr_fib4 *fib;
	uint32_t i;

	if (conf->algorithm == DPR_FIB_POPTRIE)
		return create_poptrie(conf, qsbr);
	if (conf->tbl8_groups == 0 || conf->tbl8_groups > GROUPS_MAX) {
		DPR_LOG(ERR, fib, "fib.ipv4_tbl8_groups %u: must be from 1 to %u",
			conf->tbl8_groups, GROUPS_MAX);
		errno = EINVAL;
		return NULL;
	}
	fib = rte_zmalloc_socket("dpr_fib4", sizeof(*fib), RTE_CACHE_LINE_SIZE, socket);
	if (fib == NULL)
		goto nomem;
	fib->conf = *conf;
	fib->qsbr = qsbr;
	fib->gen = 1;
	marks_init(fib);
	fib->tbl24 = rte_zmalloc_socket("dpr_fib4_tbl24",
					DPR_FIB4_TBL24_SIZE * sizeof(*fib->tbl24),
					RTE_CACHE_LINE_SIZE, socket);
	fib->tbl8 = rte_zmalloc_socket("dpr_fib4_tbl8",
				       (size_t)conf->tbl8_groups * GROUP_SIZE * sizeof(*fib->tbl8),
				       RTE_CACHE_LINE_SIZE, socket);
	fib->tbl8_free = malloc(conf->tbl8_groups * sizeof(*fib->tbl8_free));
	fib->tbl8_pending = malloc(conf->tbl8_groups * sizeof(*fib->tbl8_pending));
	fib->rules = calloc(RULES_MIN_SLOTS, sizeof(*fib->rules));
	if (fib->tbl24 == NULL || fib->tbl8 == NULL || fib->tbl8_free == NULL ||
	    fib->tbl8_pending == NULL || fib->rules == NULL)
		goto nomem;
	fib->rules_mask = RULES_MIN_SLOTS - 1;
	/* Hand out group 0 first. */
	for (i = 0; i < conf->tbl8_groups; i++)
		fib->tbl8_free[i] = conf->tbl8_groups - 1 - i;
	fib->n_free = conf->tbl8_groups;
	DPR_LOG(INFO, fib, "IPv4 FIB: DIR-24-8, %u routes, %u tbl8 groups, %.1f MiB",
		conf->max_routes, conf->tbl8_groups, (double)dpr_fib4_memory(fib) / (1 << 20));
	return fib;

nomem:
	DPR_LOG(ERR, fib, "cannot allocate the IPv4 FIB (%.1f MiB for tbl24 and %u tbl8 groups) on socket %d (reserve more hugepages, or lower fib.ipv4_tbl8_groups)",
		(double)(DPR_FIB4_TBL24_SIZE * 4 + (uint64_t)conf->tbl8_groups * GROUP_SIZE * 4) /
		(1 << 20), conf->tbl8_groups, conf->socket);
	dpr_fib4_free(fib);
	errno = ENOMEM;
	return NULL;
}

void
dpr_fib4_free(struct dpr_fib4 *fib)
{
	if (fib == NULL)
		return;
	dpr_pt_free(fib->pt);
	rte_free(fib->tbl24);
	rte_free(fib->tbl8);
	free(fib->tbl8_free);
	free(fib->tbl8_pending);
	free(fib->rules);
	free(fib->walk);
	rte_free(fib);
}

int
dpr_fib4_get(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t *nh)
{
	uint32_t slot;

	if (fib->pt != NULL)
		return dpr_pt_get(fib->pt, pt_key(ip), depth, nh);
	if (depth > 32)
		return -ENOENT;
	slot = rule_find(fib, ip & dpr_ip4_mask(depth), depth);
	if (slot == NOT_FOUND)
		return -ENOENT;
	*nh = rule_nh(fib->rules[slot]);
	return 0;
}

int
dpr_fib4_lpm(const struct dpr_fib4 *fib, uint32_t ip, uint32_t *prefix,
	     uint8_t *depth, uint32_t *nh)
{
	uint32_t e;

	if (fib->pt != NULL) {
		dpr_u128 p;
		int ret = dpr_pt_lpm(fib->pt, pt_key(ip), &p, depth, nh);

		*prefix = (uint32_t)(p >> 96);
		return ret;
	}
	e = fib->tbl24[ip >> 8];
	if (e & DPR_FIB4_EXT)
		e = group_entries(fib, e)[ip & 0xff];
	if (!(e & DPR_FIB4_VALID))
		return -ENOENT;
	*depth = entry_depth(e);
	*prefix = ip & dpr_ip4_mask(*depth);
	*nh = e & DPR_FIB4_NH_BITS;
	return 0;
}

/* Walk keys: ip << 32 | depth << 24 | nh, so they sort by (ip, depth). */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
walk_build(struct dpr_fib4 *fib)
{
	uint32_t i, n = 0;

	if (fib->walk_cap < fib->n_routes || fib->walk == NULL) {
		uint32_t cap = fib->n_routes + fib->n_routes / 8 + 64;
		uint64_t *w = realloc(fib->walk, (size_t)cap * sizeof(*w));

		if (w == NULL)
			return -ENOMEM;
		fib->walk = w;
		fib->walk_cap = cap;
	}
	for (i = 0; i <= fib->rules_mask; i++) {
		uint64_t r = fib->rules[i];

		if (r != 0)
			fib->walk[n++] = (uint64_t)rule_ip(r) << 32 |
				(uint64_t)rule_depth(r) << 24 | rule_nh(r);
	}
	qsort(fib->walk, n, sizeof(*fib->walk), cmp_u64);
	fib->walk_n = n;
	fib->walk_gen = fib->gen;
	return 0;
}

int
dpr_fib4_list(struct dpr_fib4 *fib, const struct dpr_fib4_route *after,
	      struct dpr_fib4_route *out, unsigned int max, bool *more)
{
	uint32_t lo = 0, hi, k;
	unsigned int n;

	if (fib->pt != NULL) {
		const struct dpr_pt_route *w;
		uint32_t wn, from;

		if (dpr_pt_walk(fib->pt, after != NULL, pt_key(after != NULL ? after->ip : 0),
				after != NULL ? after->depth : 0, &w, &wn, &from) < 0)
			return -ENOMEM;
		for (n = 0, k = from; n < max && k < wn; n++, k++)
			out[n] = (struct dpr_fib4_route){ .ip = (uint32_t)(w[k].key >> 96),
				.depth = w[k].depth, .nh = w[k].nh };
		*more = k < wn;
		return (int)n;
	}
	if (fib->walk_gen != fib->gen && walk_build(fib) < 0)
		return -ENOMEM;
	hi = fib->walk_n;
	if (after != NULL) {
		/* The first key past every key of after's (ip, depth). */
		uint64_t bound = (uint64_t)after->ip << 32 | (uint64_t)after->depth << 24 |
			DPR_FIB4_NH_BITS;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (fib->walk[mid] <= bound)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (n = 0, k = lo; n < max && k < fib->walk_n; n++, k++)
		out[n] = (struct dpr_fib4_route){
			.ip = (uint32_t)(fib->walk[k] >> 32),
			.depth = (uint8_t)((fib->walk[k] >> 24) & 0xff),
			.nh = (uint32_t)(fib->walk[k] & DPR_FIB4_NH_BITS),
		};
	*more = k < fib->walk_n;
	return (int)n;
}

uint64_t
dpr_fib4_memory(const struct dpr_fib4 *fib)
{
	if (fib->pt != NULL)
		return sizeof(*fib) + dpr_pt_memory(fib->pt);
	return sizeof(*fib) +
		(uint64_t)DPR_FIB4_TBL24_SIZE * sizeof(*fib->tbl24) +
		(uint64_t)fib->conf.tbl8_groups * GROUP_SIZE * sizeof(*fib->tbl8);
}

uint64_t
dpr_fib4_control_memory(const struct dpr_fib4 *fib)
{
	if (fib->pt != NULL)
		return dpr_pt_control_memory(fib->pt);
	return (uint64_t)fib->conf.tbl8_groups *
		(sizeof(*fib->tbl8_free) + sizeof(*fib->tbl8_pending)) +
		((uint64_t)fib->rules_mask + 1) * sizeof(*fib->rules) +
		(uint64_t)fib->walk_cap * sizeof(*fib->walk);
}

uint32_t
dpr_fib4_tbl8_used(const struct dpr_fib4 *fib)
{
	if (fib->pt != NULL)
		return 0;
	return fib->conf.tbl8_groups - fib->n_free;
}
