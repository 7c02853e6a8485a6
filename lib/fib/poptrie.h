/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Poptrie (Asai and Ohara, SIGCOMM 2015): a longest-prefix-match table small
 * enough to stay in the CPU's cache with a full Internet table, one structure
 * for both families (IPv4 keys are 32 bits, IPv6 keys 128). fib.h and fib6.h
 * put it behind the same interface as their DIR-24-8 (the "algorithm" of
 * struct dpr_fib4_conf); this file is that interface's second algorithm.
 *
 * Lookup structure (what workers read, struct dpr_pt_tables):
 *  - dp: direct pointing on the first DPR_PT_DP_BITS bits of the key, 2^18
 *    32-bit entries: DPR_PT_LEAF | next hop, or the index of a node;
 *  - nodes: a node covers the next DPR_PT_STRIDE (6) bits of the key, 64
 *    slots. Bit v of vector: slot v has a child node, the
 *    popcnt(vector & ((2 << v) - 1))th of the block that starts at base1.
 *    Otherwise slot v is a leaf: runs of equal leaves share one, bit v of
 *    leafvec marks where a run starts, and the leaf is the
 *    popcnt(leafvec & ((2 << v) - 1))th of the block at base0;
 *  - leaves: 16-bit next hops (DPR_NH_MAX is 1 << 16).
 * Key bits past the key's length read as 0 (the last IPv4 level, at bit 30,
 * has 2 bits of key and 4 of zeros).
 *
 * Control side: a binary trie of the routes (the RIB) in ordinary memory;
 * a change rebuilds, from the trie, the subtree under each direct-pointing
 * entry whose answer it changes (one entry for a route longer than /18,
 * those of its range otherwise), into free blocks, and publishes it with one
 * release store of the entry: a worker sees the old subtree or the new one,
 * never a mix. The old subtree's blocks wait for an RCU grace period before
 * they are reused (see poptrie.c for the block allocator). When the arrays
 * are full, bigger ones are made, filled with a copy, and published as a
 * new struct dpr_pt_tables; a worker that still holds the old one reads a
 * frozen, consistent copy until its grace period ends.
 *
 * Readers: workers online in the RCU variable, and the control thread. A
 * reader loads the tables pointer once (dpr_pt_tables()) and every later
 * load depends on the value before it through its address, which orders it
 * after the release store that published that value.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#define DPR_PT_DP_BITS 18u
#define DPR_PT_STRIDE 6u
#define DPR_PT_LEAF (UINT32_C(1) << 31)
/** The largest next hop a leaf holds. */
#define DPR_PT_NH_MAX UINT32_C(0xffff)

typedef unsigned __int128 dpr_u128;

/** A node: 24 bytes, as in the paper. */
struct dpr_pt_node {
	uint64_t vector;   /**< bit v: slot v is a child node */
	uint64_t leafvec;  /**< bit v: a run of equal leaves starts at slot v */
	uint32_t base0;    /**< first leaf of the node's leaf block */
	uint32_t base1;    /**< first node of the node's child block */
};

/** What a worker reads, published as a whole (struct dpr_poptrie). */
struct dpr_pt_tables {
	uint32_t *dp;               /**< 1 << DPR_PT_DP_BITS entries */
	struct dpr_pt_node *nodes;
	uint16_t *leaves;
	uint32_t node_cap, leaf_cap;
};

struct dpr_poptrie_conf {
	uint8_t key_bits;           /**< 32 (IPv4) or 128 (IPv6) */
	uint32_t max_routes;
	int socket;
	const char *name;           /**< for logs: "IPv4", "IPv6" */
};

/** A change for dpr_pt_update(); keys are left-aligned in 128 bits. */
struct dpr_pt_op {
	dpr_u128 key;   /**< bits past depth are ignored */
	uint8_t depth;
	uint8_t del;    /**< 1: delete, 0: add or replace */
	uint32_t nh;    /**< next hop when adding, at most DPR_PT_NH_MAX */
	/* Filled in by dpr_pt_update() for each op it applied: */
	uint8_t existed;
	uint32_t old_nh;
};

/** One route of the sorted snapshot dpr_pt_walk() gives. */
struct dpr_pt_route {
	dpr_u128 key;
	uint8_t depth;
	uint32_t nh;
};

struct dpr_pt_rib; /* poptrie.c */

struct dpr_poptrie {
	/** Workers read this pointer, once per burst (dpr_pt_tables()). */
	const struct dpr_pt_tables *tables;
	/* Control thread only, on its own cache lines. */
	struct dpr_poptrie_conf conf __rte_cache_aligned;
	struct rte_rcu_qsbr *qsbr;  /**< NULL: no readers to wait for */
	struct dpr_pt_rib *rib;
	uint32_t n_routes;
	uint64_t gen;               /**< bumped by every applied op */
	uint64_t grace_periods;     /**< waited by dpr_pt_update() */
};

/**
 * Create an empty table (every key looks up to next hop 0) with its arrays
 * in hugepage memory on @p conf->socket.
 * @return the table, or NULL with errno set (ENOMEM; EINVAL: key_bits not
 *   32 or 128).
 */
struct dpr_poptrie *dpr_pt_create(const struct dpr_poptrie_conf *conf,
				  struct rte_rcu_qsbr *qsbr);

/** Free everything; no worker may be reading it. NULL is a no-op. */
void dpr_pt_free(struct dpr_poptrie *pt);

/**
 * Apply @p n changes in order; when the call returns, every applied change
 * is what workers see (each direct-pointing entry is published once, after
 * the whole batch went into the trie). When an applied op replaced or
 * deleted a route, waits one RCU grace period before returning, so that no
 * worker still holds a next hop index a change replaced or deleted. The
 * blocks a batch unlinked are reused after a later grace period, waited for
 * only when memory is short.
 * @return the number of ops applied, from the first. When it is less than
 *   @p n, op number <return> failed and *@p err says why (-ENOMEM:
 *   max_routes routes are installed, or no memory for the arrays or the
 *   trie, in which case the whole batch is undone and 0 returned;
 *   -ENOENT: deleting a missing route; -EINVAL: depth over key_bits or
 *   next hop over DPR_PT_NH_MAX); the ops before it stay applied, none
 *   after it, and the failed op changed nothing.
 */
unsigned int dpr_pt_update(struct dpr_poptrie *pt, struct dpr_pt_op *ops, unsigned int n,
			   int *err);

/** Exact match (bits past @p depth ignored): 0 with *@p nh, or -ENOENT. */
int dpr_pt_get(const struct dpr_poptrie *pt, dpr_u128 key, uint8_t depth, uint32_t *nh);

/**
 * Longest-prefix match from the trie (control side).
 * @return 0 with the route's prefix (bits past depth clear), depth and next
 *   hop, or -ENOENT.
 */
int dpr_pt_lpm(const struct dpr_poptrie *pt, dpr_u128 key, dpr_u128 *prefix, uint8_t *depth,
	       uint32_t *nh);

/**
 * The routes in ascending (key, depth) order, as a snapshot rebuilt when
 * routes changed since the last call: *@p routes and its length in *@p n,
 * and in *@p from the index of the first route after (@p key, @p depth)
 * when @p after is true (it need not exist), 0 otherwise.
 * @return 0, or -ENOMEM (no memory for the snapshot).
 */
int dpr_pt_walk(struct dpr_poptrie *pt, bool after, dpr_u128 key, uint8_t depth,
		const struct dpr_pt_route **routes, uint32_t *n, uint32_t *from);

/** Bytes of the lookup structure (the arrays workers read, as allocated). */
uint64_t dpr_pt_memory(const struct dpr_poptrie *pt);

/** Bytes the control side holds: the trie, free lists and walk snapshot. */
uint64_t dpr_pt_control_memory(const struct dpr_poptrie *pt);

/** Nodes and leaves in use (tests, stats). */
void dpr_pt_usage(const struct dpr_poptrie *pt, uint32_t *nodes, uint32_t *leaves);

/**
 * Check the lookup structure against the trie: every direct-pointing entry
 * and node answers what the trie's longest match does for every slot, with
 * leaves compressed into runs and no node where a leaf would do, and the
 * allocator's accounting adds up. Control thread; tests and fuzzers.
 * @return 0, or -EFAULT with what differs logged.
 */
int dpr_pt_check(const struct dpr_poptrie *pt);

/** The tables a reader works with until its next quiescent state. */
static __rte_always_inline const struct dpr_pt_tables *
dpr_pt_tables(const struct dpr_poptrie *pt)
{
	return __atomic_load_n(&pt->tables, __ATOMIC_ACQUIRE);
}

/** The first @p v + 1 bits of @p x (a helper of the lookups). */
static __rte_always_inline uint64_t
dpr_pt_upto(uint64_t x, uint64_t v)
{
	return x & ((UINT64_C(2) << v) - 1);
}

/**
 * The rest of a lookup from node @p i, the key's bits not yet used
 * left-aligned in @p k (64 bits are enough for IPv4).
 */
static __rte_always_inline uint32_t
dpr_pt_walk4(const struct dpr_pt_tables *t, uint32_t i, uint64_t k)
{
	const struct dpr_pt_node *n = &t->nodes[i];

	for (;;) {
		uint64_t v = k >> (64 - DPR_PT_STRIDE);
		uint64_t vec = n->vector;

		if (!(vec & (UINT64_C(1) << v)))
			return t->leaves[n->base0 +
				(uint32_t)__builtin_popcountll(dpr_pt_upto(n->leafvec, v)) - 1];
		n = &t->nodes[n->base1 + (uint32_t)__builtin_popcountll(dpr_pt_upto(vec, v)) - 1];
		k <<= DPR_PT_STRIDE;
	}
}

/** Next hop for IPv4 address @p ip (host byte order) in tables @p t. */
static __rte_always_inline uint32_t
dpr_pt_lookup4(const struct dpr_pt_tables *t, uint32_t ip)
{
	uint32_t e = __atomic_load_n(&t->dp[ip >> (32 - DPR_PT_DP_BITS)], __ATOMIC_RELAXED);

	if (likely(e & DPR_PT_LEAF))
		return e & ~DPR_PT_LEAF;
	return dpr_pt_walk4(t, e, (uint64_t)ip << (32 + DPR_PT_DP_BITS));
}

/** The top DPR_PT_DP_BITS bits of an IPv6 address (network order). */
static __rte_always_inline uint32_t
dpr_pt_dp_index6(const uint8_t ip[16])
{
	return ((uint32_t)ip[0] << 10 | (uint32_t)ip[1] << 2 | (uint32_t)ip[2] >> 6);
}

/** Next hop for IPv6 address @p ip (16 bytes, network order) in tables @p t. */
static __rte_always_inline uint32_t
dpr_pt_lookup6(const struct dpr_pt_tables *t, const uint8_t ip[16])
{
	uint32_t e = __atomic_load_n(&t->dp[dpr_pt_dp_index6(ip)], __ATOMIC_RELAXED);
	const struct dpr_pt_node *n;
	uint64_t hi, lo;

	if (e & DPR_PT_LEAF)
		return e & ~DPR_PT_LEAF;
	memcpy(&hi, ip, 8);
	memcpy(&lo, ip + 8, 8);
	hi = __builtin_bswap64(hi);
	lo = __builtin_bswap64(lo);
	/* The 110 bits after the first 18, left-aligned in hi:lo. */
	hi = hi << DPR_PT_DP_BITS | lo >> (64 - DPR_PT_DP_BITS);
	lo <<= DPR_PT_DP_BITS;
	n = &t->nodes[e];
	for (;;) {
		uint64_t v = hi >> (64 - DPR_PT_STRIDE);
		uint64_t vec = n->vector;

		if (!(vec & (UINT64_C(1) << v)))
			return t->leaves[n->base0 +
				(uint32_t)__builtin_popcountll(dpr_pt_upto(n->leafvec, v)) - 1];
		n = &t->nodes[n->base1 + (uint32_t)__builtin_popcountll(dpr_pt_upto(vec, v)) - 1];
		hi = hi << DPR_PT_STRIDE | lo >> (64 - DPR_PT_STRIDE);
		lo <<= DPR_PT_STRIDE;
	}
}

/** Lookups that one lockstep walk takes (a mask of them is 64 bits). */
#define DPR_PT_BURST_MAX 64u

/**
 * One level of a lockstep walk for lookup @p i at node @p node[i], slot
 * @p v: @p node[i] becomes the child node's index or the leaf's, that one
 * is asked for, and the returned mask has bit @p i set when the walk goes
 * on. With @p branchless (a constant), there is no branch on the node's
 * answer: IPv6 walks end at any level, a coin toss for the predictor, and
 * computing both answers costs less than its mispredicts. IPv4 walks
 * nearly all end at their first node (routes past /24 are rare), which the
 * predictor learns, and the branch is cheaper there.
 */
static __rte_always_inline uint64_t
dpr_pt_step(const struct dpr_pt_tables *t, uint32_t *node, unsigned int i, uint64_t v,
	    const bool branchless)
{
	const struct dpr_pt_node *n = &t->nodes[node[i]];
	uint64_t vec = n->vector, more = (vec >> v) & 1;
	uint32_t child, leaf;
	uint64_t pick;
	uintptr_t next;

	if (!branchless) {
		if (likely(!more)) {
			leaf = n->base0 +
				(uint32_t)__builtin_popcountll(dpr_pt_upto(n->leafvec, v)) - 1;
			node[i] = leaf;
			rte_prefetch0(&t->leaves[leaf]);
			return 0;
		}
		child = n->base1 + (uint32_t)__builtin_popcountll(dpr_pt_upto(vec, v)) - 1;
		node[i] = child;
		rte_prefetch0(&t->nodes[child]);
		return UINT64_C(1) << i;
	}
	child = n->base1 + (uint32_t)__builtin_popcountll(dpr_pt_upto(vec, v)) - 1;
	leaf = n->base0 + (uint32_t)__builtin_popcountll(dpr_pt_upto(n->leafvec, v)) - 1;
	/* Masks, not ?:, which GCC turns back into a branch. */
	pick = 0 - more;
	/* Addresses as integers: the one not taken may be past its array. */
	next = (((uintptr_t)t->nodes + (uintptr_t)child * sizeof(*t->nodes)) & pick) |
	       (((uintptr_t)t->leaves + (uintptr_t)leaf * sizeof(*t->leaves)) & ~pick);
	node[i] = (child & (uint32_t)pick) | (leaf & ~(uint32_t)pick);
	rte_prefetch0((const void *)next);
	return more << i;
}

/**
 * The walks of a burst below the direct-pointing array in lockstep, a level
 * at a time (IPv4): lookup i (bit i of @p todo) is at node @p node[i], for
 * address @p ip[i] (host order). At each level every walk reads its node,
 * which the level before asked for, and asks for the next node or its leaf,
 * so that the burst's misses overlap instead of each walk waiting for its
 * own; the leaves are read last. The answers go to @p nh[i]; @p node is
 * clobbered.
 */
static __rte_always_inline void
dpr_pt_walk4_burst(const struct dpr_pt_tables *t, uint32_t *node, const uint32_t *ip,
		   uint64_t todo, uint32_t *nh)
{
	uint64_t m, walk, more;
	unsigned int i, used;

	/* The walks of a level have all used the same bits of their keys;
	 * the last level, at bit 30, reads 2 bits of key and 4 zeros. */
	for (walk = todo, used = DPR_PT_DP_BITS; todo != 0; todo = more, used += DPR_PT_STRIDE) {
		more = 0;
		for (m = todo; m != 0; m &= m - 1) {
			i = (unsigned int)__builtin_ctzll(m);
			more |= dpr_pt_step(t, node, i, ip[i] << used >> (32 - DPR_PT_STRIDE), false);
		}
	}
	for (; walk != 0; walk &= walk - 1) {
		i = (unsigned int)__builtin_ctzll(walk);
		nh[i] = t->leaves[node[i]];
	}
}

/**
 * dpr_pt_walk4_burst() for IPv6, the key's bits not yet used left-aligned
 * in @p hi[i]:@p lo[i] (a /48 is five levels below the direct-pointing
 * array).
 */
static __rte_always_inline void
dpr_pt_walk6_burst(const struct dpr_pt_tables *t, uint32_t *node, uint64_t *hi, uint64_t *lo,
		   uint64_t todo, uint32_t *nh)
{
	uint64_t m, walk, more;
	unsigned int i, used;

	/* As dpr_pt_walk4_burst(), @p hi[i] shifted only when a level's
	 * bits would leave it (past /82). */
	for (walk = todo, used = 0; todo != 0; todo = more, used += DPR_PT_STRIDE) {
		if (unlikely(used + DPR_PT_STRIDE > 64)) {
			for (m = todo; m != 0; m &= m - 1) {
				i = (unsigned int)__builtin_ctzll(m);
				hi[i] = hi[i] << used | lo[i] >> (64 - used);
				lo[i] <<= used;
			}
			used = 0;
		}
		more = 0;
		for (m = todo; m != 0; m &= m - 1) {
			i = (unsigned int)__builtin_ctzll(m);
			more |= dpr_pt_step(t, node, i, hi[i] << used >> (64 - DPR_PT_STRIDE), true);
		}
	}
	for (; walk != 0; walk &= walk - 1) {
		i = (unsigned int)__builtin_ctzll(walk);
		nh[i] = t->leaves[node[i]];
	}
}

/**
 * The key bits of IPv6 address @p ip past the direct-pointing ones,
 * left-aligned in *@p hi and *@p lo.
 */
static __rte_always_inline void
dpr_pt_key6(const uint8_t ip[16], uint64_t *hi, uint64_t *lo)
{
	uint64_t h, l;

	memcpy(&h, ip, 8);
	memcpy(&l, ip + 8, 8);
	h = __builtin_bswap64(h);
	l = __builtin_bswap64(l);
	*hi = h << DPR_PT_DP_BITS | l >> (64 - DPR_PT_DP_BITS);
	*lo = l << DPR_PT_DP_BITS;
}

/**
 * dpr_pt_lookup4() for @p n addresses: their direct-pointing entries are
 * prefetched first, so that the misses of a burst overlap, then read with
 * no branch on what they hold (about a third of uniform keys over a full
 * table need a node: a branch there is mispredicted for most of them), and
 * the walks go in lockstep (dpr_pt_walk4_burst()).
 */
static __rte_always_inline void
dpr_pt_lookup4_bulk(const struct dpr_poptrie *pt, const uint32_t *ip, uint32_t *nh,
		    unsigned int n)
{
	const struct dpr_pt_tables *t = dpr_pt_tables(pt);
	const uint32_t *dp = t->dp;
	uint32_t node[DPR_PT_BURST_MAX];
	uint64_t todo;
	unsigned int i, b, m;

	for (b = 0; b < n; b += m) {
		m = RTE_MIN(n - b, DPR_PT_BURST_MAX);
		for (i = 0; i < m; i++)
			rte_prefetch0(&dp[ip[b + i] >> (32 - DPR_PT_DP_BITS)]);
		todo = 0;
		for (i = 0; i < m; i++) {
			uint32_t e = __atomic_load_n(&dp[ip[b + i] >> (32 - DPR_PT_DP_BITS)],
						     __ATOMIC_RELAXED);
			uint32_t walk = (e >> 31) ^ 1;

			/* A node's index, for now, where the walk answers. */
			nh[b + i] = e & ~DPR_PT_LEAF;
			node[i] = e;
			todo |= (uint64_t)walk << i;
			rte_prefetch0(&t->nodes[e & (0 - walk)]);
		}
		dpr_pt_walk4_burst(t, node, ip + b, todo, nh + b);
	}
}

/** dpr_pt_lookup4_bulk() for IPv6 addresses (16 bytes each, network order). */
static __rte_always_inline void
dpr_pt_lookup6_bulk(const struct dpr_poptrie *pt, const uint8_t *const *ip, uint32_t *nh,
		    unsigned int n)
{
	const struct dpr_pt_tables *t = dpr_pt_tables(pt);
	const uint32_t *dp = t->dp;
	uint32_t node[DPR_PT_BURST_MAX];
	uint64_t hi[DPR_PT_BURST_MAX], lo[DPR_PT_BURST_MAX], todo;
	unsigned int i, b, m;

	for (b = 0; b < n; b += m) {
		m = RTE_MIN(n - b, DPR_PT_BURST_MAX);
		for (i = 0; i < m; i++)
			rte_prefetch0(&dp[dpr_pt_dp_index6(ip[b + i])]);
		todo = 0;
		for (i = 0; i < m; i++) {
			uint32_t e = __atomic_load_n(&dp[dpr_pt_dp_index6(ip[b + i])],
						     __ATOMIC_RELAXED);

			uint32_t walk = (e >> 31) ^ 1;

			nh[b + i] = e & ~DPR_PT_LEAF;
			node[i] = e;
			dpr_pt_key6(ip[b + i], &hi[i], &lo[i]);
			todo |= (uint64_t)walk << i;
			rte_prefetch0(&t->nodes[e & (0 - walk)]);
		}
		dpr_pt_walk6_burst(t, node, hi, lo, todo, nh + b);
	}
}
