/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Route ownership: every route a source puts in dpr (the config file, the
 * control API, zebra through FPM, the kernel table) is that source's
 * candidate for its prefix. Each prefix's FIB entry is the candidate of
 * the most preferred source holding one (enum dpr_route_src order, like a
 * router's administrative distance); a source replaces or removes only its
 * own candidates, and when the winner leaves, the next one's route comes
 * back in the same FIB batch.
 *
 * Routes that no source holds are the router's own (its addresses, their
 * subnets, static neighbours' host routes: lib/route/route.c and
 * lib/ifaddr say which): a source may not put a candidate on such a prefix
 * (-EPERM).
 *
 * Control thread only: the table is read and written there, the FIB it
 * drives is what workers read (RCU, lib/fib).
 */
#include <stdbool.h>
#include <stdint.h>

#include "../util/addr.h"

struct dpr_rib;
struct dpr_nh_table;

/** Who put a route in dpr. The order is the preference: lower wins. */
enum dpr_route_src {
	DPR_RSRC_CONFIG = 0, /**< "routes" of the config file */
	DPR_RSRC_API,        /**< route.add / route.replace / route.load */
	DPR_RSRC_FPM,        /**< FRR's zebra through FPM */
	DPR_RSRC_KERNEL,     /**< the kernel table mirror */
	DPR_RSRC_MAX,
};

/** "config", "api", "fpm", "kernel". */
const char *dpr_route_src_name(enum dpr_route_src s);

/** The source named @p name, or -EINVAL. */
int dpr_route_src_parse(const char *name);

/** The candidates of every source, per prefix. */
struct dpr_route_srcs;

/**
 * An empty table.
 * @return the table, or NULL with errno set (ENOMEM).
 */
struct dpr_route_srcs *dpr_route_srcs_create(void);

/** Free @p t, dropping the next-hop references its candidates hold. */
void dpr_route_srcs_free(struct dpr_route_srcs *t, struct dpr_nh_table *nh);

/** One change a source makes to its own routes. */
struct dpr_src_op {
	struct dpr_prefix prefix; /**< bits past the length clear */
	uint8_t del;              /**< 1: remove the source's route */
	uint8_t proto;            /**< daemon protocol (RTPROT_*: bgp 186...); 0 for config, api */
	/**
	 * When adding: the next hop, a reference the caller gives up (kept
	 * by the candidate, or dropped when the op fails).
	 */
	uint32_t nh;
	/**
	 * Out: 0; -ENOENT for a delete of a route the source does not hold;
	 * -EPERM for a prefix that is the router's own; -ENOSPC or -ENOMEM
	 * when the FIB could not take the winner (the candidate is kept,
	 * not installed: see dpr_route_cands.in_fib).
	 */
	int result;
};

/**
 * Apply @p n changes of source @p src, in order, as one FIB batch (one RCU
 * grace period). Each prefix they touch gets one FIB op at most, from its
 * state before the batch to its state after: a delete and an add of the
 * same prefix in one batch (zebra's route update) never leave a gap.
 * @return the number of ops whose result is 0.
 */
unsigned int dpr_route_src_apply(struct dpr_rib *rib, enum dpr_route_src src,
				 struct dpr_src_op *ops, unsigned int n);

/**
 * The router changed its own routes for @p n prefixes @p pfs in the FIB
 * directly (addr.add, addr.del, neigh.*): a source's route an address now
 * owns is no longer installed (and its candidate, whose reference the
 * router's op dropped, goes); one that an address gave back is installed
 * again.
 */
void dpr_route_src_router_changed(struct dpr_rib *rib, const struct dpr_prefix *pfs,
				  unsigned int n);

/**
 * Mark every route of @p src stale (a daemon went away): it keeps
 * forwarding; an add from @p src for the prefix clears the mark.
 * @return the number of routes marked.
 */
unsigned int dpr_route_src_mark_stale(struct dpr_rib *rib, enum dpr_route_src src);

/**
 * Remove the routes of @p src still stale, as one FIB batch.
 * @return the number removed.
 */
unsigned int dpr_route_src_sweep(struct dpr_rib *rib, enum dpr_route_src src);

/** One prefix's candidates (dpr_route_src_get()). */
struct dpr_route_cands {
	uint8_t have;                   /**< bit s: source s holds a candidate */
	uint8_t stale;                  /**< bit s: its candidate is stale */
	uint8_t proto[DPR_RSRC_MAX];    /**< each candidate's protocol */
	uint32_t nh[DPR_RSRC_MAX];      /**< each candidate's next hop */
	bool in_fib;                    /**< the winner is in the FIB */
	uint8_t winner;                 /**< enum dpr_route_src; DPR_RSRC_MAX if none */
};

/** The candidates for @p pf: 0, or -ENOENT when no source holds it. */
int dpr_route_src_get(const struct dpr_rib *rib, const struct dpr_prefix *pf,
		      struct dpr_route_cands *c);

/** Per source: routes held (candidates) and routes winning (in the FIB). */
struct dpr_route_src_counts {
	uint32_t held[DPR_RSRC_MAX];
	uint32_t active[DPR_RSRC_MAX];
	uint32_t stale[DPR_RSRC_MAX];
	uint32_t not_installed;  /**< winners the FIB had no room for */
};

void dpr_route_src_counts(const struct dpr_rib *rib, struct dpr_route_src_counts *c);

/** "bgp", "ospf", "static", "kernel"... for an RTPROT_* value; NULL if unknown. */
const char *dpr_route_proto_name(uint8_t proto);
