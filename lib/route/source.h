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
 * The router's own routes (its addresses, their subnets, static and
 * learned neighbours' host routes: lib/route/route.c and lib/ifaddr say
 * which) come before every source, through dpr_route_apply(). The
 * operator's sources (config, api) may not put a candidate on such a prefix
 * (-EPERM, to say so at once); a daemon's candidate there is held under the
 * router's route (-EPERM too: not installed), unless that route yields (a
 * learned neighbour's: dpr_route_srcs_set_yield()), and installed when the
 * router deletes its route, as are the candidates the prefix had before the router
 * took it. A daemon's winner the FIB has no room for stays a candidate
 * (-ENOSPC, -ENOMEM) and is installed when a later change makes room; the
 * operator's is dropped (the error tells them).
 *
 * Control thread only: the table is read and written there, the FIB it
 * drives is what workers read (RCU, lib/fib).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/addr.h"

struct dpr_rib;
struct dpr_nh_table;
struct dpr_route_op;

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

/**
 * Asked whether the router's route for @p pf in @p rib yields to a daemon's
 * candidate: a learned neighbour's host route does (lib/neigh), as a
 * neighbour cache entry yields to a /32 route in the kernel (a blackhole of
 * that host, say). It deletes that route (dpr_route_apply()), and the
 * candidate takes the prefix in the same FIB op. @return whether it did.
 */
typedef bool (*dpr_route_yield_fn)(void *ctx, struct dpr_rib *rib, const struct dpr_prefix *pf);

/** Set @p t's yield hook (NULL: the router's routes never yield). */
void dpr_route_srcs_set_yield(struct dpr_route_srcs *t, dpr_route_yield_fn fn, void *ctx);

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
 * The router's own route changes (dpr_route_apply() with sources): what
 * the FIB holds for each prefix is then the router's, its candidates wait
 * under it (an installed one takes back its own reference); a delete of a
 * prefix the router holds installs the most preferred waiting candidate in
 * the same op, and a delete of a prefix the router does not hold (a
 * source's) changes nothing and counts as applied. References as
 * dpr_route_fib_apply() (route.h).
 * @return as dpr_route_apply().
 */
unsigned int dpr_route_src_router_apply(struct dpr_rib *rib, struct dpr_route_op *ops,
					unsigned int n, int *err);

/**
 * The references the candidates hold (those the FIB holds for installed
 * ones not counted): add one to @p refs[i] for each on next hop i
 * (DPR_NH_MAX entries), and check the table's own state against the FIB:
 * an installed candidate's route is in the FIB, the router's prefixes have
 * no candidate installed, a refused winner waits for room.
 * @return 0, or -EINVAL with what is wrong in @p err.
 */
int dpr_route_src_check(const struct dpr_rib *rib, uint32_t *refs, char *err, size_t len);

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
	bool router;                    /**< the router's own route is there instead */
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
	uint32_t shadowed;       /**< winners waiting under the router's own route */
};

void dpr_route_src_counts(const struct dpr_rib *rib, struct dpr_route_src_counts *c);

/** "bgp", "ospf", "static", "kernel"... for an RTPROT_* value; NULL if unknown. */
const char *dpr_route_proto_name(uint8_t proto);
