/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 FIB's control side: the rule table, the in-place updates of
 * tbl24 and the chains of tbl8 groups, and the group allocator with
 * RCU-deferred reuse. See fib6.h for the layout and how workers are
 * protected.
 *
 * Invariants kept by every op:
 *  - each address's entry (the leaf its chain ends in) holds the longest
 *    installed route covering it (VALID, its depth and next hop), or
 *    DPR_FIB6_EMPTY when none does;
 *  - the group under an entry standing for a /L block is linked exactly
 *    while some route longer than /L lies in the block; otherwise its 256
 *    entries would all be equal and the entry above holds that value itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "../util/log.h"
#include "fib6.h"

#define GROUP_SIZE 256u
#define LEVELS 13 /* groups on the chain of a /128: bytes 3 to 15 */

/*
 * A rule: the prefix as two host-order halves (bits past depth clear), so
 * that masking, hashing and sorting work on integers. An unused slot has
 * used 0.
 */
struct dpr_fib6_rule {
	uint64_t hi;
	uint64_t lo;
	uint32_t nh;
	uint8_t depth;
	uint8_t used;
};

#define RULES_MIN_SLOTS (1u << 14)
#define NOT_FOUND UINT32_MAX

struct key {
	uint64_t hi;
	uint64_t lo;
};

static inline struct key
key_load(const uint8_t ip[16], uint8_t depth)
{
	uint64_t hi, lo;

	memcpy(&hi, ip, 8);
	memcpy(&lo, ip + 8, 8);
	hi = rte_be_to_cpu_64(hi);
	lo = rte_be_to_cpu_64(lo);
	if (depth <= 64) {
		hi &= depth == 0 ? 0 : UINT64_MAX << (64 - depth);
		lo = 0;
	} else {
		lo &= UINT64_MAX << (128 - depth);
	}
	return (struct key){ hi, lo };
}

static inline void
key_store(uint8_t ip[16], uint64_t hi, uint64_t lo)
{
	hi = rte_cpu_to_be_64(hi);
	lo = rte_cpu_to_be_64(lo);
	memcpy(ip, &hi, 8);
	memcpy(ip + 8, &lo, 8);
}

static inline struct key
key_mask(struct key k, uint8_t depth)
{
	if (depth <= 64)
		return (struct key){ depth == 0 ? 0 : k.hi & UINT64_MAX << (64 - depth), 0 };
	return (struct key){ k.hi, k.lo & UINT64_MAX << (128 - depth) };
}

/* A 64-bit finaliser (MurmurHash3's) over both halves and the depth. */
static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static inline uint32_t
rule_home(uint64_t hi, uint64_t lo, uint8_t depth, uint32_t mask)
{
	return (uint32_t)mix64(hi ^ mix64(lo ^ depth)) & mask;
}

static uint32_t
rule_find(const struct dpr_fib6 *fib, struct key k, uint8_t depth)
{
	uint32_t i = rule_home(k.hi, k.lo, depth, fib->rules_mask);

	for (;; i = (i + 1) & fib->rules_mask) {
		const struct dpr_fib6_rule *r = &fib->rules[i];

		if (!r->used)
			return NOT_FOUND;
		if (r->hi == k.hi && r->lo == k.lo && r->depth == depth)
			return i;
	}
}

/* @p r is not in @p slots, which has a free slot. */
static void
rule_put(struct dpr_fib6_rule *slots, uint32_t mask, const struct dpr_fib6_rule *r)
{
	uint32_t i = rule_home(r->hi, r->lo, r->depth, mask);

	while (slots[i].used)
		i = (i + 1) & mask;
	slots[i] = *r;
}

/* Backward-shift deletion: no tombstones, probes stay short. */
static void
rule_remove(struct dpr_fib6 *fib, uint32_t i)
{
	struct dpr_fib6_rule *rules = fib->rules;
	uint32_t mask = fib->rules_mask, j = i;

	for (;;) {
		uint32_t home;

		j = (j + 1) & mask;
		if (!rules[j].used)
			break;
		home = rule_home(rules[j].hi, rules[j].lo, rules[j].depth, mask);
		/* Slot j may move into the hole at i unless its home lies
		 * cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			rules[i] = rules[j];
			i = j;
		}
	}
	rules[i].used = 0;
}

/* Double the table when one more rule would pass a load of 0.6. */
static int
rules_reserve(struct dpr_fib6 *fib)
{
	uint64_t slots = (uint64_t)fib->rules_mask + 1;
	struct dpr_fib6_rule *bigger;
	uint32_t i;

	if (((uint64_t)fib->n_routes + 1) * 5 <= slots * 3)
		return 0;
	if (slots * 2 > (UINT64_C(1) << 32))
		return -ENOMEM;
	bigger = calloc(slots * 2, sizeof(*bigger));
	if (bigger == NULL)
		return -ENOMEM;
	for (i = 0; i < slots; i++)
		if (fib->rules[i].used)
			rule_put(bigger, (uint32_t)(slots * 2 - 1), &fib->rules[i]);
	free(fib->rules);
	fib->rules = bigger;
	fib->rules_mask = (uint32_t)(slots * 2 - 1);
	return 0;
}

static inline uint32_t
entry_make(uint32_t nh, uint8_t depth)
{
	return DPR_FIB6_LEAF | DPR_FIB6_VALID | (uint32_t)depth << DPR_FIB6_DEPTH_SHIFT | nh;
}

/* Depth of a leaf; 0 for the empty one. */
static inline uint8_t
entry_depth(uint32_t e)
{
	return (uint8_t)((e >> DPR_FIB6_DEPTH_SHIFT) & DPR_FIB6_DEPTH_MASK);
}

/* Release: see fib.c's entry_store(); the same reasoning holds per level. */
static inline void
entry_store(uint32_t *p, uint32_t e)
{
	__atomic_store_n(p, e, __ATOMIC_RELEASE);
}

/* The entries of the group that @p link links (dpr_fib6_link()). */
static inline uint32_t *
group_entries(const struct dpr_fib6 *fib, uint32_t link)
{
	return &fib->tbl8[link];
}

/* The group that @p link links: dpr_fib6_link() undone. */
static inline uint32_t
link_group(uint32_t link)
{
	return link / GROUP_SIZE;
}

/* Wait for readers, then make the groups unlinked so far reusable. */
static void
tbl8_reclaim(struct dpr_fib6 *fib)
{
	if (fib->qsbr != NULL)
		rte_rcu_qsbr_synchronize(fib->qsbr, RTE_QSBR_THRID_INVALID);
	fib->grace_periods++;
	while (fib->n_pending > 0)
		fib->tbl8_free[fib->n_free++] = fib->tbl8_pending[--fib->n_pending];
}

/*
 * Make sure @p need groups can be taken. When that needs unlinked ones (a
 * batch that deletes and adds long prefixes), wait the grace period now.
 */
static int
tbl8_reserve(struct dpr_fib6 *fib, unsigned int need)
{
	if (fib->n_free < need && fib->n_pending > 0)
		tbl8_reclaim(fib);
	return fib->n_free >= need ? 0 : -ENOSPC;
}

/*
 * Entries [first, first + count) of a table (tbl24 or a group), and every
 * group below them, that are no deeper than @p depth get @p e: the
 * addresses a route of that depth covers, minus those of longer routes.
 */
static void
range_set(struct dpr_fib6 *fib, uint32_t *t, uint32_t first, uint32_t count, uint32_t e,
	  uint8_t depth)
{
	uint32_t j;

	for (j = first; j < first + count; j++) {
		if (dpr_fib6_is_link(t[j]))
			range_set(fib, group_entries(fib, t[j]), 0, GROUP_SIZE, e, depth);
		else if (entry_depth(t[j]) <= depth)
			entry_store(&t[j], e);
	}
}

/* Groups an add of @p ip/@p depth (over 24) must create below what exists. */
static unsigned int
groups_missing(const struct dpr_fib6 *fib, const uint8_t *ip, uint8_t depth)
{
	uint32_t t = fib->tbl24[dpr_fib6_tbl24_index(ip)];
	unsigned int b = 3, len = 24;

	for (; len < depth; len += 8, b++) {
		if (!dpr_fib6_is_link(t))
			return (depth - len + 7) / 8;
		t = group_entries(fib, t)[ip[b]];
	}
	return 0;
}

/*
 * Add or replace a /25-/128 whose missing groups tbl8_reserve() secured:
 * down its chain, linking a new group, filled with the value of the entry
 * it replaces, wherever the chain ends too early; then the route's range in
 * the last group.
 */
static void
add_long(struct dpr_fib6 *fib, const uint8_t *ip, uint8_t depth, uint32_t e)
{
	uint32_t *t = &fib->tbl24[dpr_fib6_tbl24_index(ip)];
	unsigned int b = 3, len = 24;

	for (;; len += 8, b++) {
		uint32_t *g;

		if (dpr_fib6_is_link(*t)) {
			g = group_entries(fib, *t);
		} else {
			/* No reader can see the group until *t links it. */
			uint32_t idx = fib->tbl8_free[--fib->n_free], j;

			g = group_entries(fib, dpr_fib6_link(idx));
			for (j = 0; j < GROUP_SIZE; j++)
				g[j] = *t;
			entry_store(t, dpr_fib6_link(idx));
		}
		if (depth <= len + 8) {
			range_set(fib, g, ip[b], UINT32_C(1) << (len + 8 - depth), e, depth);
			return;
		}
		t = &g[ip[b]];
	}
}

/* A group under a /@p len block is needed while it holds a link or a route longer than /len. */
static bool
group_needed(const uint32_t *g, unsigned int len)
{
	unsigned int j;

	for (j = 0; j < GROUP_SIZE; j++)
		if (dpr_fib6_is_link(g[j]) || entry_depth(g[j]) > len)
			return true;
	return false;
}

/*
 * Delete a /25-/128: its range gets @p repl, then the groups on its chain
 * that nothing longer than their block is left in are unlinked, deepest
 * first (each holds no links by then).
 */
static void
del_long(struct dpr_fib6 *fib, const uint8_t *ip, uint8_t depth, uint32_t repl)
{
	uint32_t *link[LEVELS];
	uint32_t *t = &fib->tbl24[dpr_fib6_tbl24_index(ip)];
	unsigned int b = 3, len = 24, lvl = 0;

	for (;; len += 8, b++, lvl++) {
		uint32_t *g = group_entries(fib, *t);

		link[lvl] = t;
		if (depth <= len + 8) {
			range_set(fib, g, ip[b], UINT32_C(1) << (len + 8 - depth), repl, depth);
			break;
		}
		t = &g[ip[b]];
	}
	for (;; lvl--, len -= 8) {
		uint32_t *g = group_entries(fib, *link[lvl]);

		if (group_needed(g, len))
			return;
		/* Readers that still follow the old link find the same answers
		 * in the group, which stays untouched until a grace period. */
		fib->tbl8_pending[fib->n_pending++] = link_group(*link[lvl]);
		entry_store(link[lvl], g[0]);
		if (lvl == 0)
			return;
	}
}

/*
 * What the addresses of a deleted route fall back to: its longest cover.
 * A /48 has a dozen or more shorter lengths in use in a full table, each a
 * likely cache miss in the rule table: their home slots are prefetched all
 * at once before the probes, so that the misses overlap (deletes on the
 * 524k-route table of dpr-fib6-bench: 10.7k -> 9.4k cycles).
 */
static uint32_t
covering_entry(const struct dpr_fib6 *fib, struct key k, uint8_t depth)
{
	uint8_t lens[128];
	unsigned int n = 0, i;
	uint8_t d;

	for (d = depth; d-- > 0;) {
		if (fib->depth_routes[d] != 0) {
			struct key m = key_mask(k, d);

			rte_prefetch0(&fib->rules[rule_home(m.hi, m.lo, d, fib->rules_mask)]);
			lens[n++] = d;
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t slot = rule_find(fib, key_mask(k, lens[i]), lens[i]);

		if (slot != NOT_FOUND)
			return entry_make(fib->rules[slot].nh, lens[i]);
	}
	return DPR_FIB6_EMPTY;
}

static int
apply(struct dpr_fib6 *fib, struct dpr_fib6_op *op)
{
	uint8_t depth = op->depth, ip[16];
	struct dpr_fib6_rule r;
	struct key k;
	uint32_t slot, e;
	int ret;

	if (depth > 128)
		return -EINVAL;
	k = key_load(op->ip, depth);
	key_store(ip, k.hi, k.lo);
	slot = fib->depth_routes[depth] == 0 ? NOT_FOUND : rule_find(fib, k, depth);
	op->existed = slot != NOT_FOUND;
	op->old_nh = op->existed ? fib->rules[slot].nh : 0;

	if (op->del) {
		if (!op->existed)
			return -ENOENT;
		rule_remove(fib, slot);
		fib->n_routes--;
		fib->depth_routes[depth]--;
		e = covering_entry(fib, k, depth);
		if (depth <= 24)
			range_set(fib, fib->tbl24, dpr_fib6_tbl24_index(ip),
				  UINT32_C(1) << (24 - depth), e, depth);
		else
			del_long(fib, ip, depth, e);
		return 0;
	}

	if (op->nh > DPR_FIB6_NH_BITS)
		return -EINVAL;
	if (op->existed) {
		fib->rules[slot].nh = op->nh;
	} else {
		if (fib->n_routes >= fib->conf.max_routes)
			return -ENOMEM;
		if (depth > 24 && tbl8_reserve(fib, groups_missing(fib, ip, depth)) < 0)
			return -ENOSPC;
		ret = rules_reserve(fib);
		if (ret < 0)
			return ret;
		r = (struct dpr_fib6_rule){ .hi = k.hi, .lo = k.lo, .nh = op->nh,
					    .depth = depth, .used = 1 };
		rule_put(fib->rules, fib->rules_mask, &r);
		fib->n_routes++;
		fib->depth_routes[depth]++;
	}
	e = entry_make(op->nh, depth);
	if (depth <= 24)
		range_set(fib, fib->tbl24, dpr_fib6_tbl24_index(ip),
			  UINT32_C(1) << (24 - depth), e, depth);
	else
		add_long(fib, ip, depth, e);
	return 0;
}

static bool
replaced(const struct dpr_fib6_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ops[i].existed)
			return true;
	return false;
}

/*
 * fib->deep from the groups now in use (a hint: no ordering needed), with
 * hysteresis: deep above conf.deep_groups, shallow again only at or below
 * seven eighths of it, so that route churn around the threshold does not
 * switch the workers' walk back and forth with every update.
 */
static void
set_deep(struct dpr_fib6 *fib)
{
	uint32_t used = dpr_fib6_tbl8_used(fib), t = fib->conf.deep_groups;
	uint32_t deep = fib->deep ? used > t - t / 8 : used > t;

	if (deep != fib->deep)
		__atomic_store_n(&fib->deep, deep, __ATOMIC_RELAXED);
}

void
dpr_fib6_set_deep_groups(struct dpr_fib6 *fib, uint32_t groups)
{
	/* Poptrie's walks are whole in pass 2: never deep. */
	if (fib->pt != NULL)
		return;
	fib->conf.deep_groups = groups;
	set_deep(fib);
}

static inline dpr_u128
pt_key(const uint8_t ip[16])
{
	struct key k = key_load(ip, 128);

	return (dpr_u128)k.hi << 64 | k.lo;
}

static inline void
pt_key_store(uint8_t ip[16], dpr_u128 key)
{
	key_store(ip, (uint64_t)(key >> 64), (uint64_t)key);
}

/* Ops a Poptrie batch takes at most (dpr_pt_update()). */
#define PT_BATCH_MAX 16384u

/* The ops through Poptrie, in pieces of its own op type. */
static unsigned int
pt_update(struct dpr_fib6 *fib, struct dpr_fib6_op *ops, unsigned int n, int *err)
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
			ops[done + k].existed = pops[k].existed;
			ops[done + k].old_nh = pops[k].old_nh;
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
dpr_fib6_update(struct dpr_fib6 *fib, struct dpr_fib6_op *ops,
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
	/* As in dpr_fib4_update(): one grace period when something is to be
	 * freed (replaced or deleted routes' next hops, unlinked groups), none
	 * for a batch of new prefixes. */
	if (fib->n_pending > 0 || replaced(ops, done))
		tbl8_reclaim(fib);
	set_deep(fib);
	return done;
}

static struct dpr_fib6 *
create_poptrie(const struct dpr_fib6_conf *conf, struct rte_rcu_qsbr *qsbr)
{
	int socket = conf->socket < 0 ? SOCKET_ID_ANY : conf->socket;
	struct dpr_fib6 *fib;

	fib = rte_zmalloc_socket("dpr_fib6", sizeof(*fib), RTE_CACHE_LINE_SIZE, socket);
	if (fib == NULL)
		goto nomem;
	fib->conf = *conf;
	fib->qsbr = qsbr;
	fib->gen = 1;
	fib->pt = dpr_pt_create(&(struct dpr_poptrie_conf){ .key_bits = 128,
		.max_routes = conf->max_routes, .socket = conf->socket, .name = "IPv6" }, qsbr);
	if (fib->pt == NULL)
		goto nomem;
	DPR_LOG(INFO, fib, "IPv6 FIB: Poptrie, %u routes, %.1f MiB to start", conf->max_routes,
		(double)dpr_fib6_memory(fib) / (1 << 20));
	return fib;
nomem:
	DPR_LOG(ERR, fib, "cannot allocate the IPv6 FIB (Poptrie) on socket %d", conf->socket);
	rte_free(fib);
	errno = ENOMEM;
	return NULL;
}

struct dpr_fib6 *
dpr_fib6_create(const struct dpr_fib6_conf *conf, struct rte_rcu_qsbr *qsbr)
{
	int socket = conf->socket < 0 ? SOCKET_ID_ANY : conf->socket;
	struct dpr_fib6 *fib;
	uint32_t i;

	if (conf->algorithm == DPR_FIB_POPTRIE)
		return create_poptrie(conf, qsbr);
	if (conf->tbl8_groups == 0 || conf->tbl8_groups > DPR_FIB6_GROUPS_MAX) {
		DPR_LOG(ERR, fib, "fib.ipv6_tbl8_groups %u: must be from 1 to %u",
			conf->tbl8_groups, DPR_FIB6_GROUPS_MAX);
		errno = EINVAL;
		return NULL;
	}
	fib = rte_zmalloc_socket("dpr_fib6", sizeof(*fib), RTE_CACHE_LINE_SIZE, socket);
	if (fib == NULL)
		goto nomem;
	fib->conf = *conf;
	if (fib->conf.deep_groups == 0) {
		long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);

		fib->conf.deep_groups = (uint32_t)((l2 > 0 ? l2 : 512 << 10) /
						   (GROUP_SIZE * sizeof(*fib->tbl8)));
	}
	fib->qsbr = qsbr;
	fib->gen = 1;
	fib->tbl24 = rte_malloc_socket("dpr_fib6_tbl24",
				       DPR_FIB6_TBL24_SIZE * sizeof(*fib->tbl24),
				       RTE_CACHE_LINE_SIZE, socket);
	fib->tbl8 = rte_zmalloc_socket("dpr_fib6_tbl8",
				       (size_t)conf->tbl8_groups * GROUP_SIZE * sizeof(*fib->tbl8),
				       RTE_CACHE_LINE_SIZE, socket);
	fib->tbl8_free = malloc(conf->tbl8_groups * sizeof(*fib->tbl8_free));
	fib->tbl8_pending = malloc(conf->tbl8_groups * sizeof(*fib->tbl8_pending));
	fib->rules = calloc(RULES_MIN_SLOTS, sizeof(*fib->rules));
	if (fib->tbl24 == NULL || fib->tbl8 == NULL || fib->tbl8_free == NULL ||
	    fib->tbl8_pending == NULL || fib->rules == NULL)
		goto nomem;
	fib->rules_mask = RULES_MIN_SLOTS - 1;
	for (i = 0; i < DPR_FIB6_TBL24_SIZE; i++)
		fib->tbl24[i] = DPR_FIB6_EMPTY;
	/* Hand out group 0 first. */
	for (i = 0; i < conf->tbl8_groups; i++)
		fib->tbl8_free[i] = conf->tbl8_groups - 1 - i;
	fib->n_free = conf->tbl8_groups;
	DPR_LOG(INFO, fib, "IPv6 FIB: tbl24 and tbl8 chains, %u routes, %u tbl8 groups, %.1f MiB",
		conf->max_routes, conf->tbl8_groups, (double)dpr_fib6_memory(fib) / (1 << 20));
	return fib;

nomem:
	DPR_LOG(ERR, fib, "cannot allocate the IPv6 FIB (%.1f MiB for tbl24 and %u tbl8 groups) on socket %d (reserve more hugepages, or lower fib.ipv6_tbl8_groups)",
		(double)(DPR_FIB6_TBL24_SIZE * 4 + (uint64_t)conf->tbl8_groups * GROUP_SIZE * 4) /
		(1 << 20), conf->tbl8_groups, conf->socket);
	dpr_fib6_free(fib);
	errno = ENOMEM;
	return NULL;
}

void
dpr_fib6_free(struct dpr_fib6 *fib)
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
dpr_fib6_get(const struct dpr_fib6 *fib, const uint8_t ip[16], uint8_t depth, uint32_t *nh)
{
	uint32_t slot;

	if (fib->pt != NULL)
		return dpr_pt_get(fib->pt, pt_key(ip), depth, nh);
	if (depth > 128 || fib->depth_routes[depth] == 0)
		return -ENOENT;
	slot = rule_find(fib, key_load(ip, depth), depth);
	if (slot == NOT_FOUND)
		return -ENOENT;
	*nh = fib->rules[slot].nh;
	return 0;
}

int
dpr_fib6_lpm(const struct dpr_fib6 *fib, const uint8_t ip[16], uint8_t prefix[16],
	     uint8_t *depth, uint32_t *nh)
{
	uint32_t e;
	unsigned int b = 3;
	struct key k;

	if (fib->pt != NULL) {
		dpr_u128 p;
		int ret = dpr_pt_lpm(fib->pt, pt_key(ip), &p, depth, nh);

		if (ret == 0)
			pt_key_store(prefix, p);
		return ret;
	}
	e = fib->tbl24[dpr_fib6_tbl24_index(ip)];
	while (dpr_fib6_is_link(e))
		e = group_entries(fib, e)[ip[b++]];
	if (!(e & DPR_FIB6_VALID))
		return -ENOENT;
	*depth = entry_depth(e);
	*nh = e & DPR_FIB6_NH_BITS;
	k = key_load(ip, *depth);
	key_store(prefix, k.hi, k.lo);
	return 0;
}

static int
rule_cmp(const struct dpr_fib6_rule *x, const struct dpr_fib6_rule *y)
{
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->depth - (int)y->depth;
}

static int
cmp_rule(const void *a, const void *b)
{
	return rule_cmp(a, b);
}

static int
walk_build(struct dpr_fib6 *fib)
{
	uint32_t i, n = 0;

	if (fib->walk_cap < fib->n_routes || fib->walk == NULL) {
		uint32_t cap = fib->n_routes + fib->n_routes / 8 + 64;
		struct dpr_fib6_rule *w = realloc(fib->walk, (size_t)cap * sizeof(*w));

		if (w == NULL)
			return -ENOMEM;
		fib->walk = w;
		fib->walk_cap = cap;
	}
	for (i = 0; i <= fib->rules_mask; i++)
		if (fib->rules[i].used)
			fib->walk[n++] = fib->rules[i];
	qsort(fib->walk, n, sizeof(*fib->walk), cmp_rule);
	fib->walk_n = n;
	fib->walk_gen = fib->gen;
	return 0;
}

int
dpr_fib6_list(struct dpr_fib6 *fib, const struct dpr_fib6_route *after,
	      struct dpr_fib6_route *out, unsigned int max, bool *more)
{
	uint32_t lo = 0, hi, k;
	unsigned int n;

	if (fib->pt != NULL) {
		const struct dpr_pt_route *w;
		uint32_t wn, from;

		if (dpr_pt_walk(fib->pt, after != NULL, after != NULL ? pt_key(after->ip) : 0,
				after != NULL ? after->depth : 0, &w, &wn, &from) < 0)
			return -ENOMEM;
		for (n = 0, k = from; n < max && k < wn; n++, k++) {
			pt_key_store(out[n].ip, w[k].key);
			out[n].depth = w[k].depth;
			out[n].nh = w[k].nh;
		}
		*more = k < wn;
		return (int)n;
	}
	if (fib->walk_gen != fib->gen && walk_build(fib) < 0)
		return -ENOMEM;
	hi = fib->walk_n;
	if (after != NULL) {
		/* The first route past after's (ip, depth), as given. */
		struct key a = key_load(after->ip, 128);
		struct dpr_fib6_rule bound = { .hi = a.hi, .lo = a.lo, .depth = after->depth };

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (rule_cmp(&fib->walk[mid], &bound) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (n = 0, k = lo; n < max && k < fib->walk_n; n++, k++) {
		key_store(out[n].ip, fib->walk[k].hi, fib->walk[k].lo);
		out[n].depth = fib->walk[k].depth;
		out[n].nh = fib->walk[k].nh;
	}
	*more = k < fib->walk_n;
	return (int)n;
}

uint64_t
dpr_fib6_memory(const struct dpr_fib6 *fib)
{
	if (fib->pt != NULL)
		return sizeof(*fib) + dpr_pt_memory(fib->pt);
	return sizeof(*fib) +
		(uint64_t)DPR_FIB6_TBL24_SIZE * sizeof(*fib->tbl24) +
		(uint64_t)fib->conf.tbl8_groups * GROUP_SIZE * sizeof(*fib->tbl8);
}

uint64_t
dpr_fib6_control_memory(const struct dpr_fib6 *fib)
{
	if (fib->pt != NULL)
		return dpr_pt_control_memory(fib->pt);
	return (uint64_t)fib->conf.tbl8_groups *
		(sizeof(*fib->tbl8_free) + sizeof(*fib->tbl8_pending)) +
		((uint64_t)fib->rules_mask + 1) * sizeof(*fib->rules) +
		(uint64_t)fib->walk_cap * sizeof(*fib->walk);
}

uint32_t
dpr_fib6_tbl8_used(const struct dpr_fib6 *fib)
{
	if (fib->pt != NULL)
		return 0;
	return fib->conf.tbl8_groups - fib->n_free;
}

uint32_t
dpr_fib6_count(const struct dpr_fib6 *fib)
{
	return fib->n_routes;
}
