/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Neighbours: which MAC each next hop's address has, and everything that
 * keeps that true. Learning from what neighbours say (RFC 826: ARP; RFC 4861 7.2:
 * NDP, through the same hooks), resolving a next hop a packet needs (a
 * small hold queue per address, retries, then host unreachable), aging what
 * was learned (probe when stale, forget when silent), static entries that
 * never age, and a budget for learned entries so that traffic from the wire
 * can never take the next hops that configured gateways need.
 *
 * The one owner of neighbour policy: the exception path (ARP input, packets
 * for unresolved next hops) and the control API (neigh.add, neigh.del,
 * addr.add, addr.del) call it. It changes next-hop words (lib/nexthop) and
 * host routes (lib/route); workers only ever see those.
 *
 * Control thread only. How to ask a neighbour (ARP request, neighbour
 * solicitation) and what to do with a held packet once its fate is known
 * are hooks (struct dpr_neigh_ops), set by the exception path.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "../util/addr.h"

struct dpr_router;
struct dpr_neigh;
struct dpr_rib;

/** What the neighbour module asks of the exception path. */
struct dpr_neigh_ops {
	/**
	 * Ask who has @p target on dpr port @p port (ARP request, neighbour
	 * solicitation): to everyone when @p unicast is NULL (resolution), or
	 * to @p unicast alone, the MAC cached for it (a reachability probe:
	 * RFC 4861 7.3.3, RFC 1122 2.3.2.1).
	 */
	void (*solicit)(void *ctx, uint16_t port, const struct dpr_ip *target,
			const struct rte_ether_addr *unicast);
	/**
	 * A held packet's turn (takes @p m): its neighbour was resolved, so
	 * route it again; or resolution failed, so answer host unreachable.
	 */
	void (*release)(void *ctx, struct rte_mbuf *m, bool resolved);
	/**
	 * As release(resolved), while next hop @p nh has its answer, @p mac
	 * on dpr port @p port, but workers do not see it yet
	 * (dpr_neigh_set_ordered_release()): route @p m again as if they did.
	 */
	void (*release_via)(void *ctx, struct rte_mbuf *m, uint32_t nh, uint8_t port,
			    const struct rte_ether_addr *mac);
	void *ctx;
};

/**
 * The neighbour state of router @p r; learned entries limited to
 * @p max_learned next hops. Without ops (dpr_neigh_set_ops()) it solicits
 * nothing and frees what it would release.
 * @return the module, or NULL with errno set (ENOMEM).
 */
struct dpr_neigh *dpr_neigh_create(struct dpr_router *r, uint32_t max_learned);
void dpr_neigh_free(struct dpr_neigh *n);
void dpr_neigh_set_ops(struct dpr_neigh *n, const struct dpr_neigh_ops *ops);

/** What a neighbour's message was, which decides what it may change. */
enum dpr_neigh_msg {
	DPR_NEIGH_REQUEST,  /**< ARP request, neighbour or router solicitation */
	DPR_NEIGH_REPLY,    /**< ARP reply */
	DPR_NEIGH_ADVERT,   /**< neighbour advertisement (RFC 4861 7.2.5) */
};

/** A neighbour's message, as dpr_neigh_seen() weighs it. */
struct dpr_neigh_heard {
	uint8_t msg;        /**< enum dpr_neigh_msg */
	bool for_us;        /**< a request for one of the router's addresses */
	bool gratuitous;    /**< ARP whose sender and target address are one (RFC 5227 2.3) */
	bool solicited;     /**< advertisement: S flag */
	bool override;      /**< advertisement: O flag */
};

/**
 * Neighbour @p ip, on dpr port @p port, said it has @p mac in message
 * @p h. What that may change is the port's neighbor_learning policy
 * (docs/security.md):
 * - a new entry (next hop and /32 or /128 host route) only from a request
 *   for one of our addresses (RFC 826, RFC 4861 7.2.3) or the answer to a
 *   resolution under way; never from an unsolicited reply or advertisement;
 * - an unresolved next hop (a gateway nobody asked for yet) likewise;
 * - a known MAC: refreshed when the same by any ARP message, but for IPv6
 *   only by a solicited advertisement answering our own solicitation (RFC
 *   4861 7.2.5; anything else leaves its state as it is); replaced by
 *   another from an ARP message or a solicitation only when the last
 *   change is older than the lock time (1 s, as Linux's locktime), stale
 *   after a solicitation's (7.2.3: probed at its new MAC at once); an
 *   advertisement replaces it only when solicited by us and with the
 *   override flag, else the entry goes stale: kept, and probed at its MAC
 *   (RFC 4861 7.2.5, 7.3.3);
 * - static entries never.
 */
void dpr_neigh_seen(struct dpr_neigh *n, uint16_t port, const struct dpr_ip *ip,
		    const struct rte_ether_addr *mac, const struct dpr_neigh_heard *h);

/**
 * Neighbour @p ip on dpr port @p port confirmed it is reachable without
 * saying its link-layer address: a solicited advertisement with no target
 * link-layer option, which RFC 4861 7.2.4 lets a node send in answer to a
 * unicast solicitation (Linux does, to dpr's unicast probes). A resolved,
 * learned entry on @p port that dpr is probing is fresh again with the MAC
 * it has (7.2.5: the cached address stands); anything else is left alone
 * (an entry being resolved cannot be, 7.2.5: such an advertisement is
 * discarded; one not being probed has no solicitation out to answer).
 */
void dpr_neigh_confirmed(struct dpr_neigh *n, uint16_t port, const struct dpr_ip *ip);

/**
 * Packet @p m (taken) needs next hop @p nh, unresolved; @p dst is its
 * destination (the address to resolve when @p nh is a connected subnet).
 * Holds it and solicits, or answers it through the release hook when the
 * address failed to resolve lately.
 * @return true if @p m was held or released; false if @p nh is resolved or
 *   gone meanwhile: the caller routes it again.
 */
bool dpr_neigh_hold(struct dpr_neigh *n, struct rte_mbuf *m, uint32_t nh,
		    const struct dpr_ip *dst);

/**
 * Order held packets before newer ones of the same flows (@p on), off by
 * default. Workers keep forwarding while the control thread works: once a
 * next hop's word says FORWARD, a worker sends a flow's newer packets at
 * once, while packets of that flow still queued in the exception rings
 * (classified before) would leave after them (0, 3, 4, 5, 1, 2). On, an
 * answer to a resolution with packets waiting is kept from workers until
 * dpr_neigh_publish(), which the control thread calls once it has read
 * every exception ring until empty (dpr_exc_rings_drained()): the held
 * packets leave at once through the release_via hook, and so does every
 * packet for that next hop the rings bring meanwhile, in the order they
 * came; then the word turns FORWARD, with nothing of theirs left behind.
 * dpr_neigh_timers() publishes an answer kept back longer than 100 ms
 * (rings that never run empty). What a worker classified in the burst it
 * was in as the word changed can still come later (docs/architecture.md).
 * For a router with workers.
 */
void dpr_neigh_set_ordered_release(struct dpr_neigh *n, bool on);

/** Publish every answer dpr_neigh_set_ordered_release() kept back and
 * release its packets. */
void dpr_neigh_publish(struct dpr_neigh *n);

/**
 * Make @p ip a static neighbour with @p mac, on dpr port @p port or (-1)
 * the port whose subnet holds it. Packets held for it go now.
 * @return its next-hop index, or a negative errno with a message in @p err:
 *   -EINVAL (not on a connected subnet, not a neighbour's address),
 *   -EEXIST (known on another port), -ENOSPC (next-hop table or FIB full).
 */
int dpr_neigh_add_static(struct dpr_neigh *n, const struct dpr_ip *ip,
			 const struct rte_ether_addr *mac, int port, char *err, size_t len);

/**
 * Forget neighbour @p ip (static or learned) on dpr port @p port (-1: any;
 * a link-local one needs it unless on one port only): its host route goes,
 * next hops through it are unresolved again. A static entry parked by its
 * link going down (dpr_neigh_link()) goes too, and does not come back with
 * the link.
 * @return 0, or -ENOENT if it is neither a resolved neighbour nor a parked
 *   static one, or is on another port than @p port.
 */
int dpr_neigh_del(struct dpr_neigh *n, const struct dpr_ip *ip, int port);

/**
 * Dpr port @p port's link went down (@p up false) or came back: down, its
 * resolved next hops become unresolved, so that multipath groups leave
 * them out of their spread at once and their routes' packets wait for
 * resolution instead of leaving by a dead link; static neighbours keep
 * their MAC aside and are resolved again when the link comes back.
 */
void dpr_neigh_link(struct dpr_neigh *n, uint16_t port, bool up);

/**
 * The router's addresses changed (addr.add, addr.del): next hops follow
 * their address's subnet to its port (unresolved again when it moved), and
 * neighbours on no connected subnet are forgotten. Resolutions under way
 * follow too (asked afresh on the new port), or end (their packets told
 * host unreachable) when their subnet went.
 */
void dpr_neigh_addresses_changed(struct dpr_neigh *n);

/**
 * Interface slot @p port goes (vlan.del, before the slot is freed and its
 * VRF reset; its neighbours forgotten already). Held packets name a slot
 * in their exception metadata (hash.usr, DPR_EXC_META_PORT): the one they
 * came in on, whose VRF routes them when released, or for the router's
 * own packets the one they leave by. Those naming @p port are dropped
 * (counted in held_iface_deleted): released later, they would be routed
 * in whatever VRF the slot has then. Resolutions asked on @p port end,
 * their other packets told host unreachable as after a failure: no more
 * solicitations tagged for the old interface out of a freed slot.
 */
void dpr_neigh_port_closed(struct dpr_neigh *n, uint16_t port);

/**
 * Retries, timeouts and aging, and resolution of multipath members that no
 * packet asks for (once a second); call often (cheap when nothing is due).
 */
void dpr_neigh_timers(struct dpr_neigh *n);

/**
 * The route sources' yield hook (dpr_route_yield_fn, lib/route/source.h;
 * @p ctx the router): a learned neighbour's host route for @p pf in
 * @p rib gives way to a daemon's route for that host (a blackhole, say):
 * deleted, the neighbour forgotten unless it is a gateway too
 * (`host_route_yielded`). Static neighbours' host routes do not yield.
 * @return whether it did.
 */
bool dpr_neigh_yield_host(void *ctx, struct dpr_rib *rib, const struct dpr_prefix *pf);

/**
 * Learned next hops now: those resolved from the wire that nothing but
 * their host route holds (a gateway's route or a multipath group holding
 * one takes it out of the budget until it lets go).
 */
uint32_t dpr_neigh_learned(const struct dpr_neigh *n);

/**
 * Is next hop @p idx a static neighbour (neighbors of the config,
 * neigh.add), one parked by its link going down included? If so its MAC
 * and dpr port into *@p mac and *@p port: what the config file states.
 */
bool dpr_neigh_static_get(const struct dpr_neigh *n, uint32_t idx, struct rte_ether_addr *mac,
			  uint16_t *port);

/**
 * References module neigh holds itself on next hop @p idx, besides its host
 * route's (which is the FIB's): 0 or 1 (a static link-local entry's).
 */
unsigned int dpr_neigh_refs_held(const struct dpr_neigh *n, uint32_t idx);

/**
 * Check the per-index side tables: every index that is not in use
 * (dpr_nh_info() NULL) has all of them clear (learned, counted, confirmed,
 * probes, changed, static_ref, parked MAC/port: every one); an index in
 * use is counted in the budget exactly when it is learned and only its
 * host route holds it; n_learned equals the number counted; and every
 * answer kept from workers (dpr_neigh_set_ordered_release()) names a next
 * hop in use with its address.
 * @return 0, or -EINVAL with a message naming the index and the table in
 *   @p err.
 */
int dpr_neigh_check(const struct dpr_neigh *n, char *err, size_t len);

/**
 * Resolve at most @p per_interface addresses at once per interface and
 * family that have no priority (control_plane.resolving_per_interface;
 * 64 by default). Priority, outside that budget: gateways of routes,
 * addresses with a next hop of their own, and those that were neighbours
 * before (RFC 6583 7.1). Counted: resolve_refused_budget (an ordinary
 * address over its interface's budget), resolve_refused_full (every entry
 * used), resolve_preempted (an ordinary entry given up for a priority one),
 * resolve_priority (priority resolutions started).
 */
void dpr_neigh_set_budget(struct dpr_neigh *n, uint32_t per_interface);

/** Ordinary resolutions under way per port and family:
 * {"p0": {"ipv4": N, "ipv6": N}, ...}. */
json_t *dpr_neigh_resolving_json(const struct dpr_neigh *n, const char *const *port_names,
				 unsigned int n_ports);

/** Add the module's counters to @p o (stats.get's exception_path). */
void dpr_neigh_stats_json(const struct dpr_neigh *n, json_t *o);
