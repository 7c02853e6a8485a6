/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The IPv4 FIB: DPDK's DIR-24-8 (rte_fib), mapping a destination to a next
 * hop index (see nexthop.h).
 *
 * Sharing: the control thread is the only writer. DPDK 22.11's rte_fib cannot
 * defer freeing its tbl8 groups until readers are done, so two copies are
 * kept: a batch of changes goes into the copy workers do not use, that copy
 * is published with one atomic pointer store, and after one RCU grace period
 * (every worker has since reported quiescence, so none still holds the old
 * pointer) the same batch is applied to the other copy. A worker therefore
 * never reads a tbl8 group being changed or freed.
 */
#include <stdint.h>

/*
 * Values stored in rte_fib are next-hop indices, with DPR_FIB4_LONG set for
 * prefixes longer than /24. DIR-24-8 (22.11 and later, as far as read) skips
 * its tbl8 reservation when a new /25-/32 has the same value as its covering
 * route, but releases one when that route goes: the counter underflows and
 * from then on every long prefix fails with ENOSPC. Making long prefixes'
 * values differ from any /0-/24 parent keeps the count balanced. Readers
 * mask the bit off (DPR_FIB4_NH_MASK).
 */
#define DPR_FIB4_LONG (UINT64_C(1) << 30)
#define DPR_FIB4_NH_MASK (DPR_FIB4_LONG - 1)

#include <rte_fib.h>
#include <rte_rcu_qsbr.h>

struct dpr_fib4_conf {
	uint32_t max_routes;
	uint32_t tbl8_groups;
	int socket;
};

/* A change for dpr_fib4_update(). */
struct dpr_fib4_op {
	uint32_t ip;    /**< host byte order, masked to depth */
	uint8_t depth;
	uint8_t del;    /**< 1: delete, 0: add or replace */
	uint32_t nh;    /**< next hop index when adding */
	/* Filled in by dpr_fib4_update() for each op it applied: */
	uint8_t existed; /**< the prefix was in the FIB before the op */
	uint32_t old_nh; /**< its next hop then */
};

/**
 * The FIB, its two copies and the RCU variable workers report to.
 * Workers use dpr_fib4_active_rcu() only.
 */
struct dpr_fib4 {
	struct rte_fib *active;     /**< read by workers (acquire) */
	struct rte_fib *copy[2];
	struct rte_rcu_qsbr *qsbr;
	uint32_t n_routes;
	uint64_t memory;            /**< bytes of DPDK heap, both copies */
	struct dpr_fib4_conf conf;
};

/**
 * Create both copies.
 * @return the FIB, or NULL with errno set (ENOMEM, EINVAL).
 */
struct dpr_fib4 *dpr_fib4_create(const struct dpr_fib4_conf *conf,
				  struct rte_rcu_qsbr *qsbr);
void dpr_fib4_free(struct dpr_fib4 *fib);

/**
 * Apply @p n changes so that every worker sees all of them at once.
 * Blocks for one RCU grace period.
 * @return the number of ops applied, from the first. When it is less than
 *   @p n, op number <return> failed and *@p err says why (-ENOSPC: no room
 *   for the route's tbl8 groups, -ENOMEM: no room for its RIB node, -ENOENT:
 *   deleting a missing route);
 *   the ops before it are applied to both copies, none after it.
 */
unsigned int dpr_fib4_update(struct dpr_fib4 *fib, struct dpr_fib4_op *ops,
			     unsigned int n, int *err);

/** Exact-match lookup of a route; 0 with *nh set, or -ENOENT. */
int dpr_fib4_get(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t *nh);

/** Longest-prefix match on the control side (from the RIB). */
int dpr_fib4_lpm(const struct dpr_fib4 *fib, uint32_t ip, uint32_t *prefix,
		 uint8_t *depth, uint32_t *nh);

struct rte_rib_node;

/**
 * Walk the routes in the RIB's order (a subtree's longer prefixes before
 * the prefix that covers them): start with
 * @p last NULL, pass back what it returned. Control thread only, and only
 * within one call chain: any update may change the copy being walked.
 * @return the next route's node with its fields filled in, or NULL at the end.
 */
struct rte_rib_node *dpr_fib4_next(const struct dpr_fib4 *fib, struct rte_rib_node *last,
				   uint32_t *ip, uint8_t *depth, uint32_t *nh);

/**
 * Like dpr_fib4_next(), from the route @p ip/@p depth, which may have been
 * deleted since it was seen: a walk resumes where that route would be.
 */
struct rte_rib_node *dpr_fib4_next_after(const struct dpr_fib4 *fib, uint32_t ip,
					 uint8_t depth, uint32_t *nip, uint8_t *ndepth,
					 uint32_t *nh);

/** Bytes of hugepage memory the FIB holds (both copies). */
uint64_t dpr_fib4_memory(const struct dpr_fib4 *fib);

/** The copy workers read now. Only for readers online in @p fib->qsbr. */
static inline struct rte_fib *
dpr_fib4_active_rcu(struct dpr_fib4 *fib)
{
	return __atomic_load_n(&fib->active, __ATOMIC_ACQUIRE);
}
