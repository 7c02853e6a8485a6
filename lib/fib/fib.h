/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The IPv4 FIB: a DIR-24-8 table of our own, mapping a destination to a
 * next hop index (see nexthop.h), and beside it the set of routes (rules)
 * the control plane installed.
 *
 * Tables: tbl24 has one entry per /24 block; an entry with DPR_FIB4_EXT set
 * points to a tbl8 group of 256 entries, one per address of that block.
 * A group exists exactly while some route longer than /24 lies in its block.
 *
 * Sharing: the control thread is the only writer and changes the one copy in
 * place, entry by entry, with 32-bit atomic release stores (a worker that
 * sees an entry sees the next hop it names); workers read the tables
 * without locks while online in the RCU variable. Each store turns one valid
 * answer into another (never an empty entry in between), so a worker sees
 * every change on its own as soon as it is made, not a whole batch at once.
 * A new tbl8 group is filled before tbl24 links it (release store). A group
 * that is unlinked goes on a pending list and is reused only after an RCU
 * grace period, so a worker never reads a group that is being refilled.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "algo.h"
#include "poptrie.h"

/*
 * An entry: EXT | group index (tbl24 only), or VALID | depth << 24 | next
 * hop. The empty entry 0 reads as DPR_NH_NONE, so readers need no check.
 */
#define DPR_FIB4_EXT (UINT32_C(1) << 31)
#define DPR_FIB4_VALID (UINT32_C(1) << 30)
#define DPR_FIB4_DEPTH_SHIFT 24
#define DPR_FIB4_DEPTH_MASK UINT32_C(0x3f)
#define DPR_FIB4_NH_BITS UINT32_C(0xffffff)
#define DPR_FIB4_TBL24_SIZE (UINT32_C(1) << 24)

struct dpr_fib4_conf {
	enum dpr_fib_algo algorithm;
	uint32_t max_routes;
	uint32_t tbl8_groups;   /**< at most 1 << 24 */
	int socket;
};

/* A change for dpr_fib4_update(). */
struct dpr_fib4_op {
	uint32_t ip;    /**< host byte order; bits past depth are ignored */
	uint8_t depth;
	uint8_t del;    /**< 1: delete, 0: add or replace */
	uint32_t nh;    /**< next hop index when adding */
	/* Filled in by dpr_fib4_update() for each op it applied: */
	uint8_t existed; /**< the prefix was in the FIB before the op */
	uint32_t old_nh; /**< its next hop then */
};

/** One route, as dpr_fib4_list() returns it. */
struct dpr_fib4_route {
	uint32_t ip;
	uint8_t depth;
	uint32_t nh;
};

/** 1 for first octets never forwarded as such: 0, 127, 224-255. */
extern const uint8_t dpr_ip4_special_octet[256];

/**
 * 1 for the first octets the workers' screens send to the reference path:
 * dpr_ip4_special_octet's, and 169, whose 169.254/16 is never forwarded
 * (RFC 3927 7, dpr_ip4_decide()) while the rest of 169/8 is.
 */
extern const uint8_t dpr_ip4_screen_octet[256];

/** Offsets in struct dpr_fib4's marks. */
#define DPR_FIB4_MARK_FIRST 0
#define DPR_FIB4_MARK_SRC_BCAST 256
#define DPR_FIB4_MARKS 512

/**
 * The FIB. Workers read tbl24 and tbl8 only (the pointers never change) with
 * dpr_fib4_lookup() and dpr_fib4_lookup_bulk(); everything else belongs to
 * the control thread.
 */
struct dpr_fib4 {
	uint32_t *tbl24;            /**< 1 << 24 entries; NULL with Poptrie */
	uint32_t *tbl8;             /**< tbl8_groups x 256 entries */
	struct dpr_poptrie *pt;     /**< Poptrie's table; NULL with DIR-24-8 */
	/*
	 * The worker's screen marks, one base for both (a register fewer in
	 * its loop; dpr_ip4_screen()):
	 * [DPR_FIB4_MARK_FIRST + o]: 1 for first octets the reference path
	 * must judge (dpr_ip4_screen_octet, a copy made at creation);
	 * [DPR_FIB4_MARK_SRC_BCAST + o]: 1 for each last octet that some /32
	 * route to DPR_NH_BCAST (a connected subnet's broadcast address) ends
	 * in: the screen sends a source ending in one of them to the reference
	 * path, which looks the source up (RFC 1812 5.3.7). Written with byte
	 * stores as those routes come and go; a worker seeing a mark late only
	 * forwards as before the route existed.
	 */
	uint8_t marks[DPR_FIB4_MARKS];

	/* Control thread only, on its own cache lines. */
	uint32_t n_routes __rte_cache_aligned;
	struct dpr_fib4_conf conf;
	struct rte_rcu_qsbr *qsbr;  /**< NULL: no readers to wait for */
	uint64_t *rules;            /**< open addressing, linear probing */
	uint32_t rules_mask;        /**< slots - 1 */
	uint32_t *tbl8_free;        /**< stack of free group indices */
	uint32_t n_free;
	uint32_t *tbl8_pending;     /**< unlinked, free after a grace period */
	uint32_t n_pending;
	uint64_t gen;               /**< bumped by every applied op */
	uint32_t bcast_routes[256]; /**< /32 routes to DPR_NH_BCAST by last octet */
	uint64_t grace_periods;     /**< waited by dpr_fib4_update() (tests, stats) */
	uint64_t *walk;             /**< sorted routes for dpr_fib4_list() */
	uint32_t walk_n;
	uint32_t walk_cap;
	uint64_t walk_gen;
};

/**
 * Allocate the tables, tbl24 and every tbl8 group, in hugepage memory on
 * @p conf->socket.
 * @return the FIB, or NULL with errno set (ENOMEM, EINVAL: tbl8_groups 0 or
 *   over 1 << 24).
 */
struct dpr_fib4 *dpr_fib4_create(const struct dpr_fib4_conf *conf,
				  struct rte_rcu_qsbr *qsbr);
void dpr_fib4_free(struct dpr_fib4 *fib);

/**
 * Apply @p n changes in order. Each becomes visible to workers as it is
 * made. When an applied op replaced or deleted a route, or unlinked a tbl8
 * group, waits one RCU grace period before returning, so that no worker
 * still holds a next hop index a change replaced or deleted, and the groups
 * are free again; a batch of new prefixes only returns at once.
 * @return the number of ops applied, from the first. When it is less than
 *   @p n, op number <return> failed and *@p err says why (-ENOSPC: no free
 *   tbl8 group for a route longer than /24, -ENOMEM: fib.ipv4_max_routes
 *   routes are installed already, or no memory to grow the rule table,
 *   -ENOENT: deleting a missing route, -EINVAL: depth over 32 or next hop
 *   index over the algorithm's limit: DPR_FIB4_NH_BITS for DIR-24-8,
 *   DPR_PT_NH_MAX for Poptrie); the ops before it stay applied, none after
 *   it.
 */
unsigned int dpr_fib4_update(struct dpr_fib4 *fib, struct dpr_fib4_op *ops,
			     unsigned int n, int *err);

/** Exact-match lookup of a route; 0 with *nh set, or -ENOENT. */
int dpr_fib4_get(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t *nh);

/**
 * Longest-prefix match on the control side, from the tables.
 * @return 0 with the matching route's prefix, depth and next hop, or -ENOENT.
 */
int dpr_fib4_lpm(const struct dpr_fib4 *fib, uint32_t ip, uint32_t *prefix,
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
int dpr_fib4_list(struct dpr_fib4 *fib, const struct dpr_fib4_route *after,
		  struct dpr_fib4_route *out, unsigned int max, bool *more);

/**
 * Bytes of the lookup structure workers read: DIR-24-8's tbl24 and tbl8
 * groups, or Poptrie's arrays as allocated.
 */
uint64_t dpr_fib4_memory(const struct dpr_fib4 *fib);

/**
 * Bytes the control side holds beside it: DIR-24-8's rule table and group
 * free lists, or Poptrie's trie and free lists; and the walk snapshot.
 */
uint64_t dpr_fib4_control_memory(const struct dpr_fib4 *fib);

/** tbl8 groups in use or waiting for a grace period (for tests, benchmarks);
 * 0 with Poptrie. */
uint32_t dpr_fib4_tbl8_used(const struct dpr_fib4 *fib);

/** Where the tbl8 entry of @p ip lies, given its tbl24 entry @p e (EXT set). */
static __rte_always_inline const uint32_t *
dpr_fib4_tbl8_entry(const struct dpr_fib4 *fib, uint32_t e, uint32_t ip)
{
	return &fib->tbl8[((size_t)(e & DPR_FIB4_NH_BITS) << 8) | (ip & 0xff)];
}

/** The next hop of @p ip given its tbl24 entry @p e (a helper of the lookups). */
static __rte_always_inline uint32_t
dpr_fib4_resolve(const struct dpr_fib4 *fib, uint32_t e, uint32_t ip)
{
	/* The tbl8 load depends on the tbl24 value's address bits, which
	 * orders it after the release store that linked the group. */
	if (unlikely(e & DPR_FIB4_EXT))
		e = __atomic_load_n(dpr_fib4_tbl8_entry(fib, e, ip), __ATOMIC_RELAXED);
	return e & DPR_FIB4_NH_BITS;
}

/**
 * Next hop index for @p ip (host byte order); DPR_NH_NONE when no route
 * covers it. For workers online in the RCU variable, and the control thread.
 */
static __rte_always_inline uint32_t
dpr_fib4_lookup(const struct dpr_fib4 *fib, uint32_t ip)
{
	if (fib->pt != NULL)
		return dpr_pt_lookup4(dpr_pt_tables(fib->pt), ip);
	return dpr_fib4_resolve(fib,
		__atomic_load_n(&fib->tbl24[ip >> 8], __ATOMIC_RELAXED), ip);
}

/**
 * The first-level array a worker prefetches a destination's entry from
 * before it looks the destination up, and in *@p shift how far to shift the
 * destination's /24 index (address >> 8) for that entry's index: tbl24 and
 * 0, or Poptrie's direct pointing and 6 (its first 18 bits). A Poptrie's
 * arrays move when they grow: valid for one burst, online in the RCU
 * variable.
 */
static __rte_always_inline const uint32_t *
dpr_fib4_first_level(const struct dpr_fib4 *fib, uint32_t *shift)
{
	if (fib->pt != NULL) {
		*shift = 24 - DPR_PT_DP_BITS;
		return dpr_pt_tables(fib->pt)->dp;
	}
	*shift = 0;
	return fib->tbl24;
}

/**
 * dpr_fib4_lookup() for a burst: prefetches the tbl24 entries of all @p n
 * addresses first, then resolves them, so their cache misses overlap.
 */
static __rte_always_inline void
dpr_fib4_lookup_bulk(const struct dpr_fib4 *fib, const uint32_t *ip, uint32_t *nh,
		     unsigned int n)
{
	const uint32_t *tbl24 = fib->tbl24;
	unsigned int i;

	if (fib->pt != NULL) {
		dpr_pt_lookup4_bulk(fib->pt, ip, nh, n);
		return;
	}
	for (i = 0; i < n; i++)
		rte_prefetch0(&tbl24[ip[i] >> 8]);
	for (i = 0; i < n; i++)
		nh[i] = dpr_fib4_resolve(fib,
			__atomic_load_n(&tbl24[ip[i] >> 8], __ATOMIC_RELAXED), ip[i]);
}
