/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The kernel mirror's copy of the kernel routing tables dpr mirrors (one
 * per VRF; a prefix is keyed by its table too) and of the kernel's
 * next-hop objects, shared by them, and the one function that says, per prefix, what the
 * kernel forwards with (kmirror_select() in kmirror.c). lib/kernel/kroute.c
 * decides which messages are the table's and feeds them in; after each
 * batch it takes the prefixes that changed (dpr_kmirror_flush()) and hands
 * their selected route to the route feed.
 *
 * What the kernel forwards with, per prefix (net/ipv4/fib_trie.c
 * fib_table_lookup(), net/ipv6/route.c find_rr_leaf() and
 * fib6_select_path()):
 *  - IPv4: the routes of a prefix are ordered by TOS (highest first), then
 *    metric (lowest first), then as `ip route prepend/append` placed them.
 *    A packet of TOS 0 (dpr routes on destinations only) uses the first
 *    route of TOS 0 that is a reject kind (blackhole, unreachable,
 *    prohibit: at once) or has a path not marked RTNH_F_DEAD; it spreads
 *    over that route's live paths. A route by next-hop object whose
 *    members are all dead ends the lookup for the prefix (no route).
 *  - IPv6: every path is a route of its own (a fib6_info); gateway routes
 *    of one metric are ECMP siblings. The lowest metric with a live route
 *    wins; its first live route, with its live siblings when it has some.
 *  - Paths marked only RTNH_F_LINKDOWN (carrier lost) are used, as the
 *    kernel does unless ignore_routes_with_linkdown is set.
 *
 * Memory: one record per kernel route (IPv6: per path) of the mirrored
 * table, one per prefix, one per next-hop object; nothing for other tables.
 * Work per message and per prefix evaluation is O(routes of the prefix);
 * a next-hop object event is O(its routes + the objects).
 *
 * Not thread-safe: the control thread owns it (kroute.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "../netlink/netlink.h"
#include "../util/addr.h"

struct dpr_kmirror;

/** What the kernel forwards a prefix's packets with (dpr_kmirror_flush()). */
struct dpr_kmirror_sel {
	uint8_t type;      /**< RTN_UNICAST, RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT... */
	uint8_t protocol;  /**< rtm_protocol of the selected route */
	uint8_t bad;       /**< the caller's reason code given with the route; 0 = usable */
	bool nh_blackhole; /**< a unicast route by a blackhole next-hop object */
	uint32_t priority; /**< its metric */
	uint32_t nhid;     /**< its next-hop object, 0 if none */
	/** The live paths (unicast only): RTNH_F_DEAD ones left out. */
	unsigned int n_paths;
	struct dpr_nl_nh paths[DPR_NL_MAX_NH];
};

/**
 * Told a prefix's new state by dpr_kmirror_flush(): @p sel is what the
 * kernel now forwards with in table @p table, NULL when it has no route
 * for the prefix there any more (called only when the last call for the
 * prefix returned true).
 * @return true when dpr now holds a route for the prefix, false when the
 *   callback withdrew it (a route dpr cannot take).
 */
typedef bool (*dpr_kmirror_cb)(void *arg, uint32_t table, const struct dpr_prefix *pf,
			       const struct dpr_kmirror_sel *sel);

/** An empty mirror; NULL with errno ENOMEM. */
struct dpr_kmirror *dpr_kmirror_create(void);

/** Free @p m and all it holds. NULL is a no-op. */
void dpr_kmirror_free(struct dpr_kmirror *m);

/**
 * Where the next message given to dpr_kmirror_route() or
 * dpr_kmirror_nexthop() came from: its header's nlmsg_seq and nlmsg_pid.
 * The kernel copies the requester's into its notifications, so the routes
 * an `ip nexthop replace` announces again carry the seq and port id of the
 * RTM_NEWNEXTHOP before them, and a later request does not.
 */
void dpr_kmirror_origin(struct dpr_kmirror *m, uint32_t seq, uint32_t pid);

/**
 * dpr_kmirror_route()'s @p bad for a route dpr ignores (an ignored protocol,
 * a local or multicast type): kept in its place, replaced and deleted as
 * the kernel does (a replace by it ends the route it replaces), and never
 * selected: the prefix is what its other routes make it.
 */
#define DPR_KMIRROR_IGNORED UINT8_MAX

/**
 * Apply one route message of a mirrored table (r->table): @p r as decoded, with
 * @p nlmsg_flags (NLM_F_REPLACE, NLM_F_APPEND, NLM_F_CREATE, NLM_F_EXCL
 * say where the kernel put an IPv4 route among those of its prefix, TOS
 * and metric, and whether an IPv6 route replaced its metric's siblings).
 *
 * @param dump
 *   The message is part of the dump of a resync: it refreshes the route's
 *   record (dpr_kmirror_mark_stale()) and places it after the previous
 *   dump message's route of the same prefix (the dump lists them in the
 *   kernel's order).
 * @param bad
 *   0, or the caller's nonzero reason why dpr cannot take this route (a
 *   type with no meaning for dpr, an encapsulation, too many paths): kept
 *   in the table (the kernel may select it), handed back in sel.bad.
 * @return 0, or -ENOMEM (the message is lost: the caller resyncs).
 */
int dpr_kmirror_route(struct dpr_kmirror *m, const struct dpr_nl_route *r, uint16_t nlmsg_flags,
		      bool dump, uint8_t bad);

/**
 * Apply one next-hop object message (an event or a dump's: either
 * refreshes the object for dpr_kmirror_sweep_nexthops()). A delete also
 * removes the routes that used the object, as the kernel does (without an
 * RTM_DELROUTE for IPv4), the object from the groups that held it, and the
 * groups that left empty with their routes.
 * @return 0, or -ENOMEM.
 */
int dpr_kmirror_nexthop(struct dpr_kmirror *m, const struct dpr_nl_nexthop *nh);

/**
 * A next-hop object message the caller could not take (a group wider than
 * DPR_NL_MAX_NH), not a delete: object @p id is what the kernel has now,
 * and a route by it that the kernel selects is handed over with sel.bad
 * @p bad (nonzero). As dpr_kmirror_nexthop(), the routes by it that the
 * same request announces again keep their place.
 * @return 0, or -ENOMEM.
 */
int dpr_kmirror_nexthop_bad(struct dpr_kmirror *m, uint32_t id, uint8_t bad);

/**
 * A resync starts: every route and next-hop object becomes stale until a
 * dump message or an event refreshes it.
 * @return the number of routes marked.
 */
unsigned int dpr_kmirror_mark_stale(struct dpr_kmirror *m);

/**
 * Table @p table is no longer mirrored (its VRF was deleted, and its routes
 * with it): drop its routes, held or not, telling the callback nothing.
 * Events of the table go unseen until it is mirrored again, which starts
 * with a resync.
 * @return the number of routes dropped.
 */
unsigned int dpr_kmirror_drop_table(struct dpr_kmirror *m, uint32_t table);

/**
 * Does the mirror hold a route (or a next-hop object) with a path through
 * interface @p ifindex, or (with @p src not NULL) a route whose preferred
 * source is IPv4 address @p src? The kernel changes such routes without a
 * message when the interface goes down or away, or loses its IPv4 address
 * (IPv4 routes flushed, paths marked dead, objects removed), whichever
 * interface it is. Counted as routes come and go: O(the next-hop objects).
 */
bool dpr_kmirror_uses(const struct dpr_kmirror *m, uint32_t ifindex, const struct dpr_ip *src);

/**
 * Does the mirror hold a next-hop object (not a group) on interface
 * @p ifindex? The kernel removes them without a message when the interface
 * loses its carrier (nh_netdev_event()), as when it goes down.
 */
bool dpr_kmirror_nexthops_on(const struct dpr_kmirror *m, uint32_t ifindex);

/** The next-hop dump ended: forget the objects it did not list. @return how many. */
unsigned int dpr_kmirror_sweep_nexthops(struct dpr_kmirror *m);

/**
 * The route dump ended: remove the routes it did not list, except IPv6
 * routes the kernel's dump cannot list (behind ECMP siblings of their
 * metric: the kernel skips them), which are kept as their events gave them.
 * @return how many were removed.
 */
unsigned int dpr_kmirror_sweep_routes(struct dpr_kmirror *m);

/**
 * Hand @p cb every prefix changed since the last flush, with what the
 * kernel now forwards with.
 * @param keep_dump_cursor
 *   Leave the prefix of the last dump message for the next flush: its
 *   next routes may come in the next datagram.
 * @return the number of prefixes handed over.
 */
unsigned int dpr_kmirror_flush(struct dpr_kmirror *m, dpr_kmirror_cb cb, void *arg,
			       bool keep_dump_cursor);

/** What the mirror holds. */
struct dpr_kmirror_counts {
	uint32_t routes;    /**< kernel routes (IPv6: paths) */
	uint32_t prefixes;
	uint32_t nexthops;  /**< next-hop objects the kernel announced */
	uint32_t held;      /**< prefixes dpr holds a route for */
	/** IPv6 routes the last resync's dump could not list (behind ECMP
	 * siblings: dpr_kmirror_sweep_routes()), kept as their events gave them. */
	uint32_t hidden;
};

void dpr_kmirror_counts(const struct dpr_kmirror *m, struct dpr_kmirror_counts *c);
