/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * A route feed: the one translation from a daemon's route (zebra's through
 * FPM, the kernel table's through rtnetlink) to a change of that daemon's
 * route source (lib/route/source.h). Both speak rtnetlink; lib/netlink
 * decodes the bytes, the daemon's module decides which routes are its
 * business, and this module turns each into a dpr_src_op:
 *  - unicast, one path: the next hop of its gateway on the dpr port whose
 *    TAP has the path's ifindex (dpr_nh_get()), or, with no gateway, the
 *    port's connected next hop (directly attached: the destination is the
 *    neighbour); several paths: the multipath group of their gateways with
 *    their weights (dpr_nh_group_get());
 *  - blackhole: DPR_NH_BLACKHOLE, a counted silent drop;
 *  - unreachable and prohibit: DPR_NH_NONE, answered like no route at all
 *    (ICMP destination unreachable, network; prohibit's code 13 is not
 *    sent);
 *  - a path dpr cannot use (an ifindex that is no dpr port's TAP, a
 *    gateway that is not on a connected subnet or cannot be a neighbour, an
 *    IPv4 gateway for an IPv6 route, an interface route inside a multipath
 *    one), a link-local destination or a full next-hop table: the route is
 *    refused, counted under its reason, and withdrawn, so dpr never keeps
 *    forwarding on what the daemon has replaced.
 * Changes are queued and handed to the route table by
 * dpr_route_feed_apply() as one dpr_route_src_apply() per VRF: one FIB
 * batch, one RCU grace period each.
 *
 * VRFs: a route's kernel table (RTA_TABLE) names its VRF: the feed's
 * default table (fpm.table, kernel_routes.table) the default VRF, each
 * other VRF's "table" that VRF (dpr_route_feed_vrf()). Its paths must be
 * on that VRF's interfaces (a TAP of another VRF is refused as
 * interface_other_vrf) and its gateways on that VRF's connected subnets;
 * the route goes to that VRF's source (the same prefix may be in two).
 *
 * Threads: control thread only.
 */
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "../netlink/netlink.h"
#include "../util/addr.h"
#include "source.h"

struct dpr_router;

/** What a route does with a packet. */
enum dpr_route_kind {
	DPR_RK_UNICAST,     /**< forward over paths[] */
	DPR_RK_BLACKHOLE,   /**< drop silently (RTN_BLACKHOLE, or a blackhole next-hop object) */
	DPR_RK_UNREACHABLE, /**< drop, ICMP unreachable (RTN_UNREACHABLE) */
	DPR_RK_PROHIBIT,    /**< drop, ICMP administratively prohibited (RTN_PROHIBIT) */
};

/** One path of a unicast route. */
struct dpr_route_path {
	/**
	 * Gateway; af 0 when directly attached (ifindex is then set). May be
	 * IPv6 for an IPv4 route (RFC 5549).
	 */
	struct dpr_ip gw;
	uint32_t ifindex; /**< kernel ifindex of the output interface; 0 = any */
	uint16_t weight;  /**< 1..256, relative share among the paths */
};

/** One route change a daemon makes. */
struct dpr_route_upd {
	/**
	 * Withdraw @p prefix. A delete may name a prefix the source does not
	 * hold (a route refused before). Only prefix and protocol mean
	 * something in a delete.
	 */
	bool del;
	struct dpr_prefix prefix;
	/**
	 * The kernel table it is in (RTA_TABLE, else rtm_table): its VRF
	 * (dpr_route_feed_vrf()).
	 */
	uint32_t table;
	/** What an add installs or replaces (an add replaces the prefix's route). */
	enum dpr_route_kind kind;
	uint8_t protocol;      /**< rtm_protocol: RTPROT_BGP, RTPROT_BIRD, RTPROT_ZSTATIC (196)... */
	uint32_t priority;     /**< RTA_PRIORITY (metric) */
	uint32_t nhg_id;       /**< the next-hop object it named, 0 when it came with paths */
	unsigned int n_paths;  /**< 1..DPR_NL_MAX_NH for UNICAST adds, else 0 */
	struct dpr_route_path paths[DPR_NL_MAX_NH];
};

/**
 * The kind of a route of rtm_type @p type (RTN_*).
 * @return the enum dpr_route_kind;
 *   -ENOENT for the kernel's own kinds that forward nothing (RTN_LOCAL,
 *   RTN_BROADCAST, RTN_ANYCAST, RTN_MULTICAST): none of dpr's business;
 *   -EOPNOTSUPP for the others (RTN_THROW, RTN_NAT...): no forwarding
 *   meaning dpr has.
 */
int dpr_route_kind_of(uint8_t type);

/** Why a feed refused a route. */
enum dpr_feed_refuse {
	DPR_FEED_REF_INTERFACE,      /**< an ifindex that is no dpr port's TAP, or an IPv6 route
					  onto a link below 1280 (RFC 8200 5) */
	DPR_FEED_REF_GW_FAMILY,      /**< an IPv4 gateway for an IPv6 route (an IPv6 one for an
					  IPv4 route is RFC 8950's, taken) */
	DPR_FEED_REF_GW_INVALID,     /**< a gateway that cannot be a neighbour, or the destination itself */
	DPR_FEED_REF_GW_UNCONNECTED, /**< a gateway on no connected subnet of its port */
	/** 169.254.0.1 on no connected subnet: zebra's stand-in for an IPv6
	 * neighbour of an IPv4 route (RFC 5549) without next-hop objects */
	DPR_FEED_REF_GW_IPV4LL,
	DPR_FEED_REF_MP_ATTACHED,    /**< a multipath route with an interface-only path */
	DPR_FEED_REF_LINK_LOCAL,     /**< a route for link-local destinations, never forwarded */
	DPR_FEED_REF_NH_FULL,        /**< next-hop table or multipath groups full */
	DPR_FEED_REF_OTHER_VRF,      /**< a path on a TAP of another VRF than its table's */
	DPR_FEED_REF_TABLE,          /**< a table of no VRF (the daemon modules ignore those first) */
	DPR_FEED_REF_MAX
};

/** Why the route table did not take a route a feed handed it. */
enum dpr_feed_failure {
	DPR_FEED_FAIL_OWN_PREFIX, /**< -EPERM: an address's route, a neighbour's host route */
	DPR_FEED_FAIL_FIB_FULL,   /**< -ENOSPC, -ENOMEM: held, not installed */
	DPR_FEED_FAIL_OTHER,
	DPR_FEED_FAIL_MAX
};

/** Counters since create. */
struct dpr_feed_stats {
	uint64_t refused[DPR_FEED_REF_MAX];
	uint64_t failed[DPR_FEED_FAIL_MAX];
	uint64_t installed;        /**< adds the route table took */
	uint64_t withdrawn;        /**< deletes of routes it held */
	uint64_t withdrawn_unheld; /**< deletes of routes it did not hold (refused ones, or replaced by one dpr ignores) */
	uint64_t one_path;         /**< multipath routes installed over one path: no group left */
	uint64_t batches;          /**< dpr_route_src_apply() calls */
	uint64_t map_refreshes;    /**< TAP ifindexes read again */
};

struct dpr_route_feed;

/**
 * A feed of routes for source @p src of router @p r.
 *
 * @param table
 *   The kernel table of the default VRF's routes (0: main, 254); the
 *   other VRFs' are their "table".
 * @param logtype
 *   The daemon module's DPDK log type.
 * @param who
 *   What its log lines start with ("fpm", "kernel_routes").
 * @return the feed, or NULL with errno set (ENOMEM).
 */
struct dpr_route_feed *dpr_route_feed_create(struct dpr_router *r, enum dpr_route_src src,
					     uint32_t table, int logtype, const char *who);

/**
 * The VRF whose routes kernel table @p table holds for this feed: 0 (the
 * default VRF) for the feed's default table, else the VRF with that
 * "table"; -1 for none (a table dpr does not take).
 */
int dpr_route_feed_vrf(const struct dpr_route_feed *f, uint32_t table);

/** The kernel table of VRF @p vrf's routes for this feed; 0 for no such VRF. */
uint32_t dpr_route_feed_table(const struct dpr_route_feed *f, unsigned int vrf);

/**
 * Mark every VRF's routes of the feed's source stale (the daemon went
 * away), dpr_route_src_mark_stale() on each.
 * @return the number of routes marked.
 */
unsigned int dpr_route_feed_mark_stale(struct dpr_route_feed *f);

/** Remove the stale routes of the feed's source from every VRF. @return how many. */
unsigned int dpr_route_feed_sweep(struct dpr_route_feed *f);

/**
 * Routes of the feed's source per VRF, as {"VRF": {"table", "routes",
 * "routes_active", "routes_stale"}}, and their sums in *@p sum. A new
 * reference.
 */
json_t *dpr_route_feed_vrfs_json(const struct dpr_route_feed *f,
				 struct dpr_route_src_counts *sum);

/**
 * The dpr port whose TAP is the kernel interface @p ifindex, or -1. An
 * unknown ifindex makes the feed read the TAPs' ifindexes again, once a
 * batch (a TAP can be recreated by hand).
 */
int dpr_route_feed_port(struct dpr_route_feed *f, uint32_t ifindex);

/** Read every TAP's ifindex again now. */
void dpr_route_feed_map_refresh(struct dpr_route_feed *f);

/**
 * Queue the change @p u makes: the route it becomes, or its withdrawal
 * when it is a delete or refused (counted and logged).
 */
void dpr_route_feed_add(struct dpr_route_feed *f, const struct dpr_route_upd *u);

/**
 * Apply what was queued as one batch (nothing when nothing was), counting
 * each op's outcome.
 * @return the number of ops applied.
 */
unsigned int dpr_route_feed_apply(struct dpr_route_feed *f);

/** Counters. */
const struct dpr_feed_stats *dpr_route_feed_stats(const struct dpr_route_feed *f);

/**
 * Put the feed's counters in @p o: "refused" and "not_installed" by reason,
 * "installed", "withdrawn", "withdrawn_unheld", "multipath_one_path", "batches_applied",
 * "interface_map_refreshes".
 */
void dpr_route_feed_stats_json(const struct dpr_route_feed *f, json_t *o);

/** {names[i]: v[i]} for @p n counters, a new reference (for stats.get). */
json_t *dpr_counters_json(const uint64_t *v, const char *const *names, unsigned int n);

/** Drop what is queued and free @p f. NULL is a no-op. */
void dpr_route_feed_free(struct dpr_route_feed *f);
