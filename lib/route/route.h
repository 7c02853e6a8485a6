/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Routes on the control side: FIB changes that keep next-hop reference
 * counts right, and installing what the config file gives (connected
 * subnets, the router's own addresses, static neighbours and routes).
 * Control thread only.
 *
 * Next-hop references, the whole rule (dpr_rib_check() verifies it):
 *  - a next hop's refcnt is the number of holders: each FIB entry that
 *    points at it (the router's own routes and installed candidates, whose
 *    reference is their candidate's: source.c), each source candidate not
 *    in the FIB, each multipath group that has it as a member, and each
 *    static link-local neighbour entry (lib/neigh);
 *  - whoever asks for a next hop (dpr_nh_get(), dpr_nh_connected(),
 *    dpr_nh_group_take()) holds the reference it got, and hands it on with
 *    an add op: an op that is applied gives it to the FIB; an op that is
 *    not applied, or refused, changes no count: the reference is still the
 *    caller's, to keep or to dpr_nh_put();
 *  - the FIB drops the reference of what it held after the grace period
 *    that follows the op replacing or deleting it (dpr_route_fib_apply()),
 *    so an index is reused only when no worker can still read it.
 */
#include <stdbool.h>
#include <stddef.h>

#include "../config/config.h"
#include "../fib/fib.h"
#include "../fib/fib6.h"
#include "../ifaddr/ifaddr.h"
#include "../nexthop/nexthop.h"
#include "source.h"

/**
 * One VRF's FIBs and the next hops they point at (shared by every VRF):
 * what the route layer changes.
 */
struct dpr_rib {
	uint16_t vrf;            /**< which VRF (config.h's index) */
	struct dpr_fib4 *fib4;
	struct dpr_fib6 *fib6;
	struct dpr_nh_table *nh;
	/** Who holds which route (source.h); NULL: no sources (unit rigs). */
	struct dpr_route_srcs *srcs;
};

/** A change of either family for dpr_route_apply(). */
struct dpr_route_op {
	struct dpr_prefix prefix; /**< bits past the length must be clear */
	uint8_t del;              /**< 1: delete, 0: add or replace */
	uint32_t nh;              /**< next hop index when adding (a reference taken) */
	/* Filled in by dpr_route_apply() for each op it applied: */
	uint8_t existed;          /**< the prefix was in the FIB before the op */
	uint32_t old_nh;          /**< its next hop then */
};

/**
 * Apply a batch of the router's own route changes (the routes its
 * addresses imply, static and learned neighbours' host routes) of both
 * families, in order. A prefix the router takes from a source's candidate
 * keeps that candidate, not installed, and gives it back to the FIB when
 * the router deletes its route (source.h). A delete of a prefix the router
 * does not hold (a source's route) changes nothing and counts as applied.
 * References as in the rule above.
 * @return the number of ops applied, from the first; when fewer than @p n,
 *   *@p err says why op number <return> failed (as dpr_fib4_update() and
 *   dpr_fib6_update(); -EAFNOSUPPORT for a prefix of neither family).
 */
unsigned int dpr_route_apply(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n,
			     int *err);

/**
 * Apply a batch of ops to the FIBs as they are, with no regard for who
 * holds the prefixes: for lib/route only (source.c, which owns them, and
 * dpr_route_apply()). A run of one family goes to its FIB as one batch.
 * @return as dpr_route_apply().
 */
unsigned int dpr_route_fib_apply(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n,
				 int *err);

/**
 * Check the reference rule above: recompute every next hop's count from
 * its holders (both FIBs, the sources' candidates, the multipath groups,
 * and @p held(@p arg, idx) for those outside lib/route, e.g. lib/neigh's;
 * @p held may be NULL) and compare it with the table's, and check the
 * sources' state against the FIB (dpr_route_src_check()). Walks every route
 * and next hop: for tests, fuzzers and rib.check.
 * @return 0, or -EINVAL with the first mismatch in @p err, or -ENOMEM.
 */
int dpr_rib_check(struct dpr_rib *rib, uint32_t (*held)(void *arg, uint32_t idx), void *arg,
		  char *err, size_t len);

/**
 * dpr_rib_check() over the @p n_ribs VRFs at @p ribs, which share one
 * next-hop table (ribs[0]'s): each next hop's holders in all of them.
 */
int dpr_ribs_check(struct dpr_rib *const *ribs, unsigned int n_ribs,
		   uint32_t (*held)(void *arg, uint32_t idx), void *arg, char *err, size_t len);

/**
 * May a route to @p pf go through gateway @p gw? A gateway is of its
 * route's family, except that an IPv4 route may go through an IPv6
 * neighbour (RFC 8950, formerly RFC 5549: BGP's extended next hop, FRR's
 * unnumbered peering): the packet only needs the neighbour's MAC, which
 * NDP gives as well as ARP. An IPv6 route through an IPv4 gateway means
 * nothing. The one place that says which gateways a route may have:
 * config, route.* and the daemons' feeds call it.
 */
static inline bool
dpr_route_gw_family_ok(const struct dpr_prefix *pf, const struct dpr_ip *gw)
{
	return gw->af == pf->addr.af || (pf->addr.af == DPR_AF_IP4 && gw->af == DPR_AF_IP6);
}

/** Exact match of @p pf: 0 with *@p nh set, or -ENOENT. */
int dpr_route_get(const struct dpr_rib *rib, const struct dpr_prefix *pf, uint32_t *nh);

/**
 * Longest-prefix match of @p ip on the control side.
 * @return 0 with the matching prefix in *@p pf and its next hop, or -ENOENT.
 */
int dpr_route_lpm(const struct dpr_rib *rib, const struct dpr_ip *ip, struct dpr_prefix *pf,
		  uint32_t *nh);

/**
 * The routes address @p a of a port implies, of either family: see
 * dpr_route4_addr_ops() for IPv4; for IPv6 its connected subnet (next hop
 * @p connected; none for a /128 or a link-local address, whose subnet every
 * port has), the address itself and its subnet's subnet-router anycast
 * address (RFC 4291 2.6.1; not for a /127, /128 or link-local), both
 * DPR_NH_LOCAL. The one place that says which routes an address implies.
 * @return the number of ops written to @p ops (at most 3).
 */
unsigned int dpr_route_addr_ops(const struct dpr_prefix *a, uint32_t connected, bool del,
				struct dpr_route_op ops[3]);

/**
 * Apply a batch of FIB ops. Each add must carry a next-hop reference taken
 * by the caller; it is kept by the route if the op is applied, and is still
 * the caller's if not.
 * Next hops of replaced and deleted routes are released after every worker
 * has stopped using them.
 * @return as dpr_fib4_update().
 */
unsigned int dpr_route4_apply(struct dpr_fib4 *fib, struct dpr_nh_table *nh,
			      struct dpr_fib4_op *ops, unsigned int n, int *err);

/**
 * The routes IPv4 address @p a of a port implies, as ops for
 * dpr_route4_apply(): its connected subnet (next hop @p connected, a
 * reference the caller took; ignored when deleting), the address itself
 * (DPR_NH_LOCAL) and the subnet's broadcast address (DPR_NH_BCAST). The one
 * place that says which routes an address implies.
 * @return the number of ops written to @p ops (at most 3; 0 for IPv6).
 */
unsigned int dpr_route4_addr_ops(const struct dpr_prefix *a, uint32_t connected, bool del,
				 struct dpr_fib4_op ops[3]);

/**
 * What the destinations of @p pf are, when no packet to any of them is
 * ever forwarded (the workers' screens, dpr_ip4_check_addrs() and
 * dpr_ip6_validate(), drop them or keep them for the router): a route
 * there would be shown by route.get and followed by nothing. The rule for
 * the config file's routes and route.add alike.
 * @return what they are, for a message; NULL when some of them are forwarded.
 */
const char *dpr_route_never_forwarded(const struct dpr_prefix *pf);

/** What the router's addresses make of a prefix (dpr_route_owned()). */
enum dpr_route_owner_kind {
	DPR_ROUTE_NOT_OWNED = 0,
	DPR_ROUTE_OWN_ADDRESS,   /**< the router's address (or subnet-router anycast) */
	DPR_ROUTE_OWN_BCAST,     /**< a connected subnet's broadcast address */
	DPR_ROUTE_OWN_SUBNET,    /**< a connected subnet */
};

/**
 * Is @p pf a route that an address of the router in VRF @p vrf implies
 * (dpr_route_addr_ops()), which route.* and static routes may not replace?
 * @return its kind, with the address that implies it in *@p addr and its
 *   port in *@p port; DPR_ROUTE_NOT_OWNED when none does.
 */
enum dpr_route_owner_kind dpr_route_owned(const struct dpr_ifaddrs *t, uint16_t vrf,
					  const struct dpr_prefix *pf, unsigned int *port,
					  struct dpr_prefix *addr);

/**
 * Give port @p port the link-local address @p ll (its EUI-64 one, RFC 4862
 * 5.3) besides those configured: into @p addrs and as a local /128 (no
 * connected route: every port has fe80::/64). A port without IPv6 (MTU
 * below 1280, dpr_ifaddr_ip6_on()) gets none.
 * @return 0 (also when the port has it already or has no IPv6), or a negative errno
 *   (dpr_ifaddr_add(), dpr_route_apply()).
 */
int dpr_route_link_local(struct dpr_rib *rib, struct dpr_ifaddrs *addrs, unsigned int port,
			 const uint8_t ll[16]);

/**
 * Install the routes the router's addresses @p addrs and the config imply
 * in @p rib's VRF, in one batch per family: the addresses' (dpr_route_addr_ops()), static
 * neighbours' host routes (/32, /128; none for a link-local neighbour,
 * whose next hop keeps the reference itself) and the static routes. IPv6
 * is skipped when @p rib->fib6 is NULL.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_route_install_config(struct dpr_rib *rib, const struct dpr_config *cfg,
			     const struct dpr_ifaddrs *addrs, char *err, size_t err_len);
