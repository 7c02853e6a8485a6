/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The IPv6 FIB: the IPv4 FIB's scheme (fib.h) stretched to 128 bits, mapping
 * a destination to a next hop index (see nexthop.h), and beside it the set
 * of routes (rules) the control plane installed.
 *
 * Tables: tbl24 has one entry per /24 block, indexed by the address's first
 * three bytes. An entry without DPR_FIB6_LEAF links a tbl8 group of 256
 * entries indexed by the next byte, whose entries may point to groups in
 * turn: a chain of up to 13 groups (bytes 3 to 15) for a /128. The group
 * under an entry that stands for a /L block (L = 24, 32, ..., 120) exists
 * exactly while some route longer than /L lies in that block.
 *
 * Sharing: the control thread is the only writer and changes the one copy in
 * place, entry by entry, with 32-bit atomic release stores (a worker that
 * sees an entry sees the group or next hop it names); workers read the
 * tables without locks while online in the RCU variable. Each store turns
 * one valid answer into another (never an empty entry in between), so a
 * worker sees every change on its own as soon as it is made. A new tbl8
 * group is filled before the entry above it links it (release store). A
 * group that is unlinked goes on a pending list and is reused only after an
 * RCU grace period, so a worker that is still walking a chain never reads a
 * group that is being refilled.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "algo.h"
#include "poptrie.h"

/*
 * An entry: a link, the index of its group's first entry in tbl8 (group <<
 * 8, bit 31 clear), or a leaf, LEAF | VALID | depth << 22 | next hop. The
 * depth (0 to 128) is that of the route that set the entry; the empty leaf
 * DPR_FIB6_EMPTY reads as DPR_NH_NONE, so readers need no check. A link
 * being its group's first index, the next level's entry for byte b is
 * tbl8[e + b]: one add a level, no shift or mask (dpr_fib6_tbl8_entry()).
 */
#define DPR_FIB6_LEAF (UINT32_C(1) << 31)
#define DPR_FIB6_VALID (UINT32_C(1) << 30)
#define DPR_FIB6_EMPTY DPR_FIB6_LEAF
#define DPR_FIB6_DEPTH_SHIFT 22
#define DPR_FIB6_DEPTH_MASK UINT32_C(0xff)
#define DPR_FIB6_NH_BITS UINT32_C(0x3fffff)
/** Groups a FIB may have: a link's first index stays below bit 31. */
#define DPR_FIB6_GROUPS_MAX (UINT32_C(1) << 23)
#define DPR_FIB6_TBL24_SIZE (UINT32_C(1) << 24)
/*
 * The worker's walk is written out in x86-64 instructions where GCC's code
 * for it took more (dpr_fib6_load(), dpr_fib6_step(), dpr_fib6_prefetch());
 * elsewhere, or with DPR_FIB6_NO_ASM defined
 * (test_fib6_generic checks that path on x86 too), it is plain C.
 */
#if defined(RTE_ARCH_X86_64) && !defined(DPR_FIB6_NO_ASM)
#define DPR_FIB6_ASM 1
#else
#define DPR_FIB6_ASM 0
#endif

/** Addresses dpr_fib6_lookup_bulk() walks in lockstep; larger bursts go in pieces. */
#define DPR_FIB6_BULK_MAX 64u

struct dpr_fib6_conf {
	enum dpr_fib_algo algorithm;
	uint32_t max_routes;
	uint32_t tbl8_groups;   /**< 1 KiB each, at most DPR_FIB6_GROUPS_MAX */
	/** Groups in use above which the FIB is deep (struct dpr_fib6);
	 * 0: as many as the L2 cache holds. */
	uint32_t deep_groups;
	int socket;
};

/* A change for dpr_fib6_update(). */
struct dpr_fib6_op {
	uint8_t ip[16]; /**< network byte order; bits past depth are ignored */
	uint8_t depth;
	uint8_t del;    /**< 1: delete, 0: add or replace */
	uint32_t nh;    /**< next hop index when adding */
	/* Filled in by dpr_fib6_update() for each op it applied: */
	uint8_t existed; /**< the prefix was in the FIB before the op */
	uint32_t old_nh; /**< its next hop then */
};

/** One route, as dpr_fib6_list() returns it. */
struct dpr_fib6_route {
	uint8_t ip[16]; /**< network byte order, bits past depth clear */
	uint8_t depth;
	uint32_t nh;
};

/** A rule of the control side's hash table (fib6.c). */
struct dpr_fib6_rule;

/**
 * The FIB. Workers read tbl24 and tbl8 only (the pointers never change) with
 * dpr_fib6_lookup() and dpr_fib6_lookup_bulk(); everything else belongs to
 * the control thread.
 */
struct dpr_fib6 {
	uint32_t *tbl24;            /**< 1 << 24 entries; NULL with Poptrie */
	uint32_t *tbl8;             /**< tbl8_groups x 256 entries */
	struct dpr_poptrie *pt;     /**< Poptrie's table; NULL with DIR-24-8 */
	/** More groups are in use than conf.deep_groups (and, once set,
	 * until no more than 7/8 of them are): a walk's second
	 * tbl8 level is likely to miss L2, so workers read each chain's
	 * first two levels a step ahead (dpr_ip6_step()). A hint, written by
	 * the control thread when it changes, read once a burst. */
	uint32_t deep;

	/* Control thread only, on its own cache lines. */
	uint32_t n_routes __rte_cache_aligned;
	struct dpr_fib6_conf conf;
	struct rte_rcu_qsbr *qsbr;  /**< NULL: no readers to wait for */
	struct dpr_fib6_rule *rules; /**< open addressing, linear probing */
	uint32_t rules_mask;        /**< slots - 1 */
	uint32_t depth_routes[129]; /**< routes by length: the covers to try */
	uint32_t *tbl8_free;        /**< stack of free group indices */
	uint32_t n_free;
	uint32_t *tbl8_pending;     /**< unlinked, free after a grace period */
	uint32_t n_pending;
	uint64_t gen;               /**< bumped by every applied op */
	uint64_t grace_periods;     /**< waited by dpr_fib6_update() (tests, stats) */
	struct dpr_fib6_rule *walk; /**< sorted routes for dpr_fib6_list() */
	uint32_t walk_n;
	uint32_t walk_cap;
	uint64_t walk_gen;
};

/**
 * Allocate the tables, tbl24 (64 MiB) and every tbl8 group (1 KiB each), in
 * hugepage memory on @p conf->socket.
 * @return the FIB, or NULL with errno set (ENOMEM, EINVAL: tbl8_groups 0 or
 *   over DPR_FIB6_GROUPS_MAX).
 */
struct dpr_fib6 *dpr_fib6_create(const struct dpr_fib6_conf *conf,
				  struct rte_rcu_qsbr *qsbr);

/** Free the tables and the rules; no worker may be reading them. NULL is a no-op. */
void dpr_fib6_free(struct dpr_fib6 *fib);

/**
 * Apply @p n changes in order. Each becomes visible to workers as it is
 * made. When an applied op replaced or deleted a route, or unlinked a tbl8
 * group, waits one RCU grace period before returning, so that no worker
 * still holds a next hop index a change replaced or deleted, and the groups
 * are free again; a batch of new prefixes only returns at once.
 * @return the number of ops applied, from the first. When it is less than
 *   @p n, op number <return> failed and *@p err says why (-ENOSPC: too few
 *   free tbl8 groups for the chain a route longer than /24 needs, -ENOMEM:
 *   max_routes routes are installed already, or no memory to grow the rule
 *   table, -ENOENT: deleting a missing route, -EINVAL: depth over 128 or
 *   next hop index over the algorithm's limit: DPR_FIB6_NH_BITS for
 *   DIR-24-8, DPR_PT_NH_MAX for Poptrie); the ops before it stay applied,
 *   none after it, and the failed op changed nothing.
 */
unsigned int dpr_fib6_update(struct dpr_fib6 *fib, struct dpr_fib6_op *ops,
			     unsigned int n, int *err);

/**
 * Exact-match lookup of a route (bits of @p ip past @p depth are ignored).
 * @return 0 with *@p nh set, or -ENOENT (no such route, or depth over 128).
 */
int dpr_fib6_get(const struct dpr_fib6 *fib, const uint8_t ip[16], uint8_t depth,
		 uint32_t *nh);

/**
 * Longest-prefix match on the control side, from the tables.
 * @return 0 with the matching route's prefix, depth and next hop, or -ENOENT
 *   (no route covers @p ip).
 */
int dpr_fib6_lpm(const struct dpr_fib6 *fib, const uint8_t ip[16], uint8_t prefix[16],
		 uint8_t *depth, uint32_t *nh);

/**
 * Walk the routes in ascending (ip, depth) order, a page at a time: up to
 * @p max routes into @p out, from the first route after @p after (NULL: from
 * the start; it need not exist any more, the walk resumes where it would be).
 * Works on a sorted snapshot, rebuilt when routes changed since the last
 * call. Control thread only.
 * @return the number of routes written, with *@p more telling whether any
 *   follow them, or -ENOMEM (no memory for the snapshot).
 */
int dpr_fib6_list(struct dpr_fib6 *fib, const struct dpr_fib6_route *after,
		  struct dpr_fib6_route *out, unsigned int max, bool *more);

/**
 * Bytes of the lookup structure workers read: tbl24 and the tbl8 groups, or
 * Poptrie's arrays as allocated. Cannot fail.
 */
uint64_t dpr_fib6_memory(const struct dpr_fib6 *fib);

/** Bytes the control side holds beside it (dpr_fib4_control_memory()). */
uint64_t dpr_fib6_control_memory(const struct dpr_fib6 *fib);

/**
 * Count the FIB as deep once more than @p groups tbl8 groups are in use,
 * and until no more than 7/8 of @p groups are (struct dpr_fib6;
 * dpr_fib6_create() takes the L2 cache's size). Control thread; tests use
 * it to run workers both ways on one table (0: deep with any group in use,
 * UINT32_MAX: never).
 */
void dpr_fib6_set_deep_groups(struct dpr_fib6 *fib, uint32_t groups);

/** tbl8 groups in use or waiting for a grace period (for tests, benchmarks). */
uint32_t dpr_fib6_tbl8_used(const struct dpr_fib6 *fib);

/** Routes installed. */
uint32_t dpr_fib6_count(const struct dpr_fib6 *fib);

/**
 * The tbl24 index of @p ip (16 bytes, network byte order): its first 24
 * bits, from one 32-bit load (3 instructions; byte by byte took 7).
 */
static __rte_always_inline uint64_t
dpr_fib6_tbl24_index(const uint8_t *ip)
{
	uint32_t v;

	memcpy(&v, ip, sizeof(v));
	/* 64-bit, as the callers index with it (GCC still widens it with a
	 * register copy in the screen: objdump). */
	return rte_be_to_cpu_32(v) >> 8;
}

/** Whether entry @p e links a group (else it is a leaf). */
static __rte_always_inline bool
dpr_fib6_is_link(uint32_t e)
{
	return !(e & DPR_FIB6_LEAF);
}

/** The link to group @p g (below DPR_FIB6_GROUPS_MAX). */
static __rte_always_inline uint32_t
dpr_fib6_link(uint32_t g)
{
	return g << 8;
}

/**
 * The entry for byte @p b of an address in the group that @p e (a link)
 * links, in the tbl8 array @p tbl8 (fixed for the FIB's life). 64-bit, so
 * that the index needs no zero-extension.
 */
static __rte_always_inline const uint32_t *
dpr_fib6_tbl8_entry(const uint32_t *tbl8, uint32_t e, uint8_t b)
{
	return &tbl8[(uint64_t)e + b];
}

/**
 * Entry @p i of table @p t (tbl24, or tbl8 with i = link + byte) read as
 * one 32-bit load (relaxed: see dpr_fib6_walk_at()), zero-extended. On
 * x86 the load is written out, base and index in the instruction: GCC's
 * relaxed atomic load took a separate lea for the address at every level
 * after the first, and a register copy to zero-extend the entry for the
 * next index (objdump).
 */
static __rte_always_inline uint64_t
dpr_fib6_load(const uint32_t *t, uint64_t i)
{
#if DPR_FIB6_ASM
	uint64_t v;

	__asm__("movl (%[t], %[i], 4), %k[v]"
		: [v] "=r" (v)
		: [t] "r" (t), [i] "r" (i),
		  "m" (*(const uint32_t (*)[(size_t)DPR_FIB6_GROUPS_MAX << 8])t));
	return v;
#else
	return __atomic_load_n(&t[i], __ATOMIC_RELAXED);
#endif
}

/** The entry for byte @p b in the group that link @p e links (dpr_fib6_load()). */
static __rte_always_inline uint64_t
dpr_fib6_tbl8_load(const uint32_t *tbl8, uint64_t e, uint64_t b)
{
	return dpr_fib6_load(tbl8, e + b);
}

/**
 * The rest of a walk: the next hop given entry @p e, read at the level of
 * address byte @p from - 1 (tbl24: from = 3), for the address @p ip (16
 * bytes), in the tbl8 array @p tbl8. @p from: a constant. Unrolled: each
 * level is a load and a test with the byte at a fixed offset, and its own
 * branch, which predicts how far the chains of that depth go; a loop over
 * the address paid a pointer increment and a copy of the entry a level (8
 * instructions a level, 6 unrolled, 5 since a link is its group's first
 * index: byte, add, load, test, branch; objdump). Each load depends on the
 * entry before it through its address, which orders it after the release
 * store that linked the group (fib.h). No unlikely(): most IPv6 routes are
 * /29-/48, below tbl24.
 */
static __rte_always_inline uint64_t
dpr_fib6_walk_at(const uint32_t *tbl8, uint64_t e, const uint8_t *ip, const unsigned int from)
{
	unsigned int k;

	/* No level past byte 15: the /128 level holds leaves only. */
#pragma GCC unroll 16
	for (k = from; k < 16; k++) {
		if (!dpr_fib6_is_link((uint32_t)e))
			break;
		e = dpr_fib6_tbl8_load(tbl8, e, ip[k]);
	}
	return e & DPR_FIB6_NH_BITS;
}

/**
 * The next hop of @p ip given its tbl24 entry @p e, in the FIB whose tbl8
 * array is @p tbl8 (fixed for the FIB's life: a worker may hold it for a
 * whole burst, out of reach of the aliasing of its header stores).
 */
static __rte_always_inline uint32_t
dpr_fib6_walk(const uint32_t *tbl8, uint32_t e, const uint8_t *ip)
{
	return (uint32_t)dpr_fib6_walk_at(tbl8, e, ip, 3);
}

/**
 * The next hop of @p ip given its tbl24 entry @p e: the rest of the walk,
 * one address at a time (a helper of the lookups, and of the worker's
 * pass 3, which reads tbl24 in pass 2 as for IPv4).
 */
static __rte_always_inline uint32_t
dpr_fib6_resolve(const struct dpr_fib6 *fib, uint32_t e, const uint8_t *ip)
{
	return dpr_fib6_walk(fib->tbl8, e, ip);
}

/**
 * Next hop index for @p ip (16 bytes, network byte order); DPR_NH_NONE when
 * no route covers it. For workers online in the RCU variable, and the
 * control thread.
 */
static __rte_always_inline uint32_t
dpr_fib6_lookup(const struct dpr_fib6 *fib, const uint8_t *ip)
{
	if (fib->pt != NULL)
		return dpr_pt_lookup6(dpr_pt_tables(fib->pt), ip);
	return dpr_fib6_resolve(fib,
		__atomic_load_n(&fib->tbl24[dpr_fib6_tbl24_index(ip)], __ATOMIC_RELAXED), ip);
}

/**
 * dpr_fib4_first_level() for IPv6: the array a destination's first entry
 * is in, and the shift from its /24 index (dpr_fib6_tbl24_index()) to that
 * entry's.
 */
static __rte_always_inline const uint32_t *
dpr_fib6_first_level(const struct dpr_fib6 *fib, uint32_t *shift)
{
	if (fib->pt != NULL) {
		*shift = 24 - DPR_PT_DP_BITS;
		return dpr_pt_tables(fib->pt)->dp;
	}
	*shift = 0;
	return fib->tbl24;
}

/** All ones when entry @p e links a group (LEAF is its sign bit), else 0. */
static __rte_always_inline uint32_t
dpr_fib6_link_mask(uint32_t e)
{
	return ~(uint32_t)((int32_t)e >> 31);
}

/*
 * The entry after entry @p e for byte @p b, in the tbl8 array @p tbl8: the
 * one in the group e links, or when e is a leaf, one in group 0 (a valid
 * address, likely cached), so that no branch is needed
 * (dpr_fib6_lookup_lockstep() prefetches it, dpr_fib6_step() reads it).
 */
static __rte_always_inline const uint32_t *
dpr_fib6_prefetch_target(const uint32_t *tbl8, uint32_t e, uint8_t b)
{
	return &tbl8[(uint64_t)(e & dpr_fib6_link_mask(e)) + b];
}

/**
 * One level of a walk without a branch: the entry for byte @p b in the
 * group that @p e links, or @p e itself when it is a leaf (which reads an
 * entry of group 0 for nothing). A deep FIB's chains differ in length from
 * packet to packet; walked this way their first levels cost no mispredicted
 * loop exit while the loads miss, and several packets' walks overlap.
 */
static __rte_always_inline uint64_t
dpr_fib6_step(const uint32_t *tbl8, uint64_t e, uint64_t b)
{
#if DPR_FIB6_ASM
	uint64_t at, next;

	/* Two conditional moves after one test, whose flags outlive the
	 * load: 5 instructions with the index, fewer than the masks below
	 * need. Not a C conditional, for the reason below. The 32-bit move and
	 * cmov clear the upper half: the result is zero-extended, as the
	 * callers' next index wants. The "m" operand tells the compiler that
	 * the asm reads tbl8. */
	__asm__("leaq (%[e], %[b]), %[at]\n\t"
		"testl %k[e], %k[e]\n\t"
		"cmovsq %[b], %[at]\n\t"
		"movl (%[t], %[at], 4), %k[n]\n\t"
		"cmovsl %k[e], %k[n]"
		: [at] "=&r" (at), [n] "=&r" (next)
		: [e] "r" (e), [b] "r" (b), [t] "r" (tbl8),
		  "m" (*(const uint32_t (*)[(size_t)DPR_FIB6_GROUPS_MAX << 8])tbl8)
		: "cc");
	return next;
#else
	uint32_t e32 = (uint32_t)e;
	uint32_t next = __atomic_load_n(dpr_fib6_prefetch_target(tbl8, e32, (uint8_t)b),
					__ATOMIC_RELAXED);

	/* Masks, not a conditional: GCC makes a branch of that, whose
	 * mispredictions (of the pyasn IPv6 table's chains, 27 % end at the
	 * first tbl8 level, 16 % at the second) throw away the loads in
	 * flight behind it. */
	return e32 ^ ((e32 ^ next) & dpr_fib6_link_mask(e32));
#endif
}

/**
 * Ask for entry @p i of table @p t (tbl24, or tbl8), which may lie past
 * the table's end (a prefetch never faults). On x86 the base and index go
 * to the instruction as they are: no out-of-bounds pointer is formed, and
 * no separate address computation.
 */
static __rte_always_inline void
dpr_fib6_prefetch(const uint32_t *t, uint64_t i)
{
#if DPR_FIB6_ASM
	__asm__ volatile("prefetcht0 (%[t], %[i], 4)" : : [t] "r" (t), [i] "r" (i));
#else
	rte_prefetch0((const void *)((uintptr_t)t + (uintptr_t)i * sizeof(*t)));
#endif
}

/**
 * Ask for the entry a walk reads after @p e (zero-extended), for byte
 * @p b, with no test of whether e links a group: for a leaf the address
 * lies 8 GiB or more past tbl8, which a prefetch may touch.
 */
static __rte_always_inline void
dpr_fib6_prefetch_next(const uint32_t *tbl8, uint64_t e, uint64_t b)
{
	dpr_fib6_prefetch(tbl8, e + b);
}

/*
 * One piece of dpr_fib6_lookup_bulk(), n <= DPR_FIB6_BULK_MAX: the addresses
 * go down the levels together, so that each level's cache misses overlap.
 * Every pass reads the entries the pass before prefetched and prefetches the
 * next level's; the addresses still on a chain are kept in todo without a
 * branch (each is written, and counted only when its entry links a group),
 * as a mispredicted chain length costs more than the prefetch of a leaf.
 */
static __rte_always_inline void
dpr_fib6_lookup_lockstep(const struct dpr_fib6 *fib, const uint8_t *const *ip,
			 uint32_t *nh, unsigned int n)
{
	uint32_t e[DPR_FIB6_BULK_MAX];
	uint8_t todo[DPR_FIB6_BULK_MAX];
	unsigned int i, k, left = 0, b;

	for (i = 0; i < n; i++)
		rte_prefetch0(&fib->tbl24[dpr_fib6_tbl24_index(ip[i])]);
	for (i = 0; i < n; i++) {
		e[i] = __atomic_load_n(&fib->tbl24[dpr_fib6_tbl24_index(ip[i])],
				       __ATOMIC_RELAXED);
		rte_prefetch0(dpr_fib6_prefetch_target(fib->tbl8, e[i], ip[i][3]));
		todo[left] = (uint8_t)i;
		left += dpr_fib6_is_link(e[i]);
	}
	for (b = 3; left > 0; b++) {
		unsigned int still = 0;

		for (k = 0; k < left; k++) {
			i = todo[k];
			e[i] = __atomic_load_n(dpr_fib6_tbl8_entry(fib->tbl8, e[i], ip[i][b]),
					       __ATOMIC_RELAXED);
			/* A group of byte 15 holds only leaves, which need no
			 * byte 16: & 15 keeps the read inside the address. */
			rte_prefetch0(dpr_fib6_prefetch_target(fib->tbl8, e[i], ip[i][(b + 1) & 15]));
			todo[still] = (uint8_t)i;
			still += dpr_fib6_is_link(e[i]);
		}
		left = still;
	}
	for (i = 0; i < n; i++)
		nh[i] = e[i] & DPR_FIB6_NH_BITS;
}

/**
 * dpr_fib6_lookup() for a burst of @p n addresses (pointers to 16 bytes each,
 * e.g. into the packets' headers): all of them walk the levels in lockstep,
 * DPR_FIB6_BULK_MAX at a time, so their cache misses overlap.
 */
static __rte_always_inline void
dpr_fib6_lookup_bulk(const struct dpr_fib6 *fib, const uint8_t *const *ip, uint32_t *nh,
		     unsigned int n)
{
	unsigned int i;

	if (fib->pt != NULL) {
		dpr_pt_lookup6_bulk(fib->pt, ip, nh, n);
		return;
	}
	for (i = 0; i < n; i += DPR_FIB6_BULK_MAX)
		dpr_fib6_lookup_lockstep(fib, &ip[i], &nh[i], RTE_MIN(n - i, DPR_FIB6_BULK_MAX));
}
