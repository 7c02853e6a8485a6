/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Next hops: what the FIB points at. A FIB entry holds an index into this
 * table; a next hop holds the output port and the neighbour's MAC. Neighbour
 * resolution changes next hops, never routes.
 *
 * Sharing: the control thread is the only writer. Everything a worker needs
 * for one next hop is packed in one 64-bit word (MAC, port, kind) that is
 * stored atomically, so a worker never sees a torn MAC. Indices are reused
 * only after no route references them and an RCU grace period has passed.
 *
 * Multipath (ECMP, weighted): a group is a next hop of kind GROUP in the
 * same table, so a FIB entry stays one index. Its word holds the index of a
 * struct dpr_nh_group: up to DPR_NH_GROUP_MEMBERS member next hops (never
 * groups) and their weights spread over up to DPR_NH_GROUP_SLOTS hash slots
 * (dpr_nh_group_get() says how). A group's slots are written once, before
 * the release store of its word that publishes them, and never changed
 * while its index is in use: another set of members or weights is another
 * group, and a route changes group by the FIB's one-word store. They are
 * reused with the index, after the routes are gone and a grace period has
 * passed. Members keep their own words: resolving or forgetting one changes
 * the spread of every group that holds it, with no store to the group.
 * dpr_nh_group_pick_rcu() chooses; dpr_nh_word_fwd_port() of a group's word
 * is above 0xff, so the fast path hands it to the slow one.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "../util/addr.h"

/**
 * Fixed indices. The FIB's default (no route) value is DPR_NH_NONE.
 * DPR_NH_LOCAL marks the router's own addresses, DPR_NH_BCAST the broadcast
 * addresses of its connected subnets: both are for the router (kind LOCAL),
 * and a source address that looks up to DPR_NH_BCAST is never forwarded
 * (RFC 1812 5.3.7). DPR_NH_BLACKHOLE (kind BLACKHOLE) drops silently, counted
 * as drops.blackhole: a blackhole route points there. A route may point at
 * DPR_NH_NONE too: an unreachable one, answered with ICMP destination
 * unreachable as for no route at all, but covering its prefix.
 */
#define DPR_NH_NONE 0
#define DPR_NH_LOCAL 1
#define DPR_NH_BCAST 2
#define DPR_NH_BLACKHOLE 3
#define DPR_NH_FIRST_DYNAMIC 4
#define DPR_NH_MAX (1u << 16)

/** What a worker does with a packet whose route points here. */
enum dpr_nh_kind {
	DPR_NH_KIND_NO_ROUTE = 0,   /**< drop, no route */
	DPR_NH_KIND_LOCAL = 1,      /**< for the router itself: exception path */
	DPR_NH_KIND_UNRESOLVED = 2, /**< neighbour MAC unknown */
	DPR_NH_KIND_FORWARD = 3,    /**< rewrite and send */
	DPR_NH_KIND_BLACKHOLE = 4,  /**< drop on purpose */
	DPR_NH_KIND_GROUP = 5,      /**< multipath: a member chosen per flow */
};

#define DPR_NH_GROUP_MEMBERS 16  /**< next hops in a group at most */
#define DPR_NH_GROUP_SLOTS 64    /**< hash slots a group's weights share */
#define DPR_NH_WEIGHT_MAX 256
#define DPR_NH_GROUPS_MAX 8192   /**< distinct groups at once */

/** The worker's view of a next hop, as one atomic 64-bit word. */
union dpr_nh_word {
	uint64_t u64;
	struct {
		struct rte_ether_addr mac; /**< destination MAC */
		uint8_t port;              /**< dpr port index */
		uint8_t kind;              /**< enum dpr_nh_kind */
	};
	struct {
		uint32_t index;            /**< DPR_NH_KIND_GROUP: its struct dpr_nh_group */
	} group;
};
_Static_assert(sizeof(union dpr_nh_word) == 8, "a next-hop word is one atomic store");

/**
 * The output port of next-hop word @p u held as an integer if its kind is
 * FORWARD, else a value above 0xff. On little-endian machines kind and
 * port are the top 16 bits, kind above: one shift and one subtraction,
 * and the word stays in a register (a union read goes through memory).
 */
static inline uint64_t
dpr_nh_word_fwd_port(uint64_t u)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (u >> 48) - (DPR_NH_KIND_FORWARD << 8);
#else
	return (uint8_t)u == DPR_NH_KIND_FORWARD ? (uint8_t)(u >> 8) : 0x100;
#endif
}

/**
 * A multipath group as workers read it (see the top of this file): member
 * next hops in slot order, and for each hash slot the member's position.
 * Member i has slots_of[i] slots, its weight's share. Written by the
 * control thread before its word is published; read-only while in use.
 */
struct dpr_nh_group {
	uint8_t n_members;                        /**< 2..DPR_NH_GROUP_MEMBERS */
	uint8_t n_slots;                          /**< n_members..DPR_NH_GROUP_SLOTS */
	uint8_t slots_of[DPR_NH_GROUP_MEMBERS];
	uint16_t member[DPR_NH_GROUP_MEMBERS];    /**< next-hop indices */
	uint8_t slot[DPR_NH_GROUP_SLOTS] __rte_cache_aligned;
} __rte_cache_aligned;
_Static_assert(DPR_NH_MAX <= 1u << 16, "a group member is a 16-bit index");

/**
 * The group of word @p h (kind GROUP), from the array @p words that
 * dpr_nh_words() gives: the group table lies right after the
 * DPR_NH_MAX words in the same allocation, so the one pointer a worker
 * has reaches both.
 */
static inline const struct dpr_nh_group *
dpr_nh_group_rcu(const union dpr_nh_word *words, union dpr_nh_word h)
{
	return (const struct dpr_nh_group *)(const void *)(words + DPR_NH_MAX) + h.group.index;
}

/** Can a packet leave through next-hop word @p u now (kind FORWARD)? */
static inline bool
dpr_nh_word_forwardable(uint64_t u)
{
	return dpr_nh_word_fwd_port(u) <= 0xff;
}

/*
 * A hash in [0, 2^32) scaled to [0, @p n): the high bits decide. An RSS
 * hash's low bits chose the packet's RX queue, so on one worker they are
 * nearly constant; the high bits still vary.
 */
static inline uint32_t
dpr_nh_hash_scale(uint32_t hash, uint32_t n)
{
	return (uint32_t)(((uint64_t)hash * n) >> 32);
}

/**
 * The member of group word @p h (kind GROUP) that a flow with hash @p hash
 * takes: the one in its hash slot while that one is forwardable (kind
 * FORWARD), so flows stay where they are whatever happens to other members.
 * Flows whose member is not forwardable are spread again, by a remix of
 * the hash and by weight, over the members that are; when none is, the
 * slot's member is returned all the same, so that the caller resolves it
 * (and holds or answers the packet) as for a route with one next hop. A
 * port's link state does not count: dpr keeps none in next hops (a member
 * on a port that is down stays forwardable until its neighbour is
 * forgotten). Workers and the control thread both call it; it reads member
 * words with relaxed loads, so one that changes meanwhile is seen either
 * way, and never loops more than twice over the members.
 * @return the member's next-hop index.
 */
static inline uint32_t
dpr_nh_group_pick_rcu(const union dpr_nh_word *words, union dpr_nh_word h, uint32_t hash)
{
	const struct dpr_nh_group *g;
	uint32_t first, alive = 0, r, i;

	/* Pairs with the release store that published the group (the word
	 * was loaded relaxed): its slots are read after it. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	g = dpr_nh_group_rcu(words, h);
	first = g->member[g->slot[dpr_nh_hash_scale(hash, g->n_slots)]];
	if (dpr_nh_word_forwardable(__atomic_load_n(&words[first].u64, __ATOMIC_RELAXED)))
		return first;
	for (i = 0; i < g->n_members; i++)
		if (dpr_nh_word_forwardable(__atomic_load_n(&words[g->member[i]].u64,
							     __ATOMIC_RELAXED)))
			alive += g->slots_of[i];
	if (alive == 0)
		return first;
	/* The murmur3 finaliser: the flows that hashed to one slot share
	 * their high bits, and must not all move to one neighbour slot. */
	hash ^= hash >> 16;
	hash *= 0x85ebca6bu;
	hash ^= hash >> 13;
	hash *= 0xc2b2ae35u;
	hash ^= hash >> 16;
	r = dpr_nh_hash_scale(hash, alive);
	for (i = 0; i < g->n_members; i++) {
		if (!dpr_nh_word_forwardable(__atomic_load_n(&words[g->member[i]].u64,
							     __ATOMIC_RELAXED)))
			continue;
		if (r < g->slots_of[i])
			return g->member[i];
		r -= g->slots_of[i];
	}
	return first; /* a member went down between the two loops */
}

/** Control-side description of a next hop (for listing and refcounts). */
struct dpr_nh_info {
	struct dpr_ip ip;     /**< gateway or neighbour address (link-local: see dpr_nh_get()) */
	uint32_t refcnt;      /**< routes, host entries and groups pointing here */
	uint32_t groups;      /**< groups holding it as a member */
	bool is_static;       /**< neighbour from config or neigh.add: never ages */
	bool in_use;
};

struct dpr_nh_table;

/**
 * Create the table with its fixed entries (no route, local) on @p socket.
 * @return the table, or NULL with errno set (ENOMEM).
 */
struct dpr_nh_table *dpr_nh_table_create(int socket);
void dpr_nh_table_free(struct dpr_nh_table *t);

/** The array workers read; index it with a FIB result. */
const union dpr_nh_word *dpr_nh_words(const struct dpr_nh_table *t);

/**
 * Find or create the next hop for neighbour @p ip reached through @p port.
 * Next hops are keyed by address, and a link-local one by address and
 * @p port (fe80::1 on p0 and fe80::1 on p1 are two next hops); the info's
 * ip is the address itself either way. A new one starts unresolved. Takes
 * a reference.
 * @return the index, or -ENOSPC when the table is full.
 */
int dpr_nh_get(struct dpr_nh_table *t, const struct dpr_ip *ip, uint8_t port);

/**
 * Put @p port in VRF @p vrf (0 by default): the next hops asked for on it
 * are that VRF's, apart from another VRF's of the same address. Set before
 * the port's first next hop.
 */
void dpr_nh_set_port_vrf(struct dpr_nh_table *t, uint8_t port, uint16_t vrf);

/** The VRF next hop @p idx (a neighbour's, of an address) belongs to. */
uint16_t dpr_nh_vrf(const struct dpr_nh_table *t, uint32_t idx);

/**
 * Index of the next hop for @p ip on dpr port @p port, or -ENOENT. @p port
 * only counts for a link-local @p ip (see dpr_nh_get()); a negative one
 * then finds it only where a single port has a next hop for that address.
 * No reference taken.
 */
int dpr_nh_find_port(const struct dpr_nh_table *t, const struct dpr_ip *ip, int port);

/**
 * dpr_nh_find_port() with no port: the next hop of a global address, or of
 * a link-local one that a single port knows; else -ENOENT.
 */
int dpr_nh_find(const struct dpr_nh_table *t, const struct dpr_ip *ip);

/**
 * Next hop that marks a connected subnet of @p port: destinations in it are
 * neighbours still to be resolved. Created on first use; takes a reference.
 */
int dpr_nh_connected(struct dpr_nh_table *t, uint8_t port);

/**
 * Drop a reference; the entry is freed when none are left, a group's with
 * the references it held on its members.
 */
void dpr_nh_put(struct dpr_nh_table *t, uint32_t idx);

/** See dpr_nh_set_ref_hook(). */
typedef void (*dpr_nh_ref_fn)(void *ctx, uint32_t idx, uint32_t refcnt);

/**
 * Call @p fn(@p ctx, idx, refcnt) each time the reference count of an
 * existing dynamic next hop idx changes, with the new count; 0 means it was
 * freed: dpr_nh_info() of it is NULL already, and the index is not handed
 * out again before the call returns. Whoever keeps data per index beside
 * the table (lib/neigh: its learned-entry budget counts next hops that
 * nothing but their host route holds) keeps it true here, and must clear
 * it on 0, so that a next hop created later at the same index starts
 * clean. @p fn must not change the table. One hook per table; @p fn NULL
 * removes it.
 */
void dpr_nh_set_ref_hook(struct dpr_nh_table *t, dpr_nh_ref_fn fn, void *ctx);

/**
 * Take one more reference on next hop @p idx, which the caller holds one
 * on already (the fixed indices need none: a no-op for them).
 */
void dpr_nh_hold(struct dpr_nh_table *t, uint32_t idx);

/**
 * Find or create the multipath group of the @p n next hops @p members
 * (in use, neither fixed nor groups, each once) with @p weights (1 to
 * DPR_NH_WEIGHT_MAX each; NULL: all equal), and take a reference on it.
 * The order of the members does not matter: the same members with the
 * same weights are one group. A new group takes a reference on each
 * member; the caller keeps its own. One member is no group: its index is
 * returned, with a reference taken.
 *
 * Weights become hash slots: with a sum of at most DPR_NH_GROUP_SLOTS each
 * member gets exactly its weight in slots (weights 2 and 1: 3 slots, a
 * share of 2/3 and 1/3); above that the DPR_NH_GROUP_SLOTS slots are
 * shared in proportion to the weights (each member at least one, largest
 * quotient first): a share is within 1/DPR_NH_GROUP_SLOTS of its weight's
 * unless light members' one slot each is more than their weights' share
 * (256 and 15 of 1: the heavy member gets 49 of 64 slots, 76.6 %, not
 * 94.5 %).
 *
 * @return the group's index, or -EINVAL (a bad member or weight, a member
 *   twice, @p n is 0 or above DPR_NH_GROUP_MEMBERS) or -ENOSPC (no group
 *   or next hop left).
 */
int dpr_nh_group_get(struct dpr_nh_table *t, const uint32_t *members, const uint16_t *weights,
		     unsigned int n);

/**
 * dpr_nh_group_get() for @p n members the caller holds a reference on
 * each (as dpr_nh_get() gave them), which it gives up: the group holds its
 * own, and a single member's reference becomes the answer's. What route.*,
 * the config's multipath routes and the daemons' feeds do with the members
 * they took.
 * @return as dpr_nh_group_get(); the members' references are dropped
 *   either way.
 */
int dpr_nh_group_take(struct dpr_nh_table *t, const uint32_t *members, const uint16_t *weights,
		      unsigned int n);

/**
 * The members of @p idx with their weights, in the group's order, into
 * @p members and @p weights (DPR_NH_GROUP_MEMBERS entries each).
 * @return their number, or 0 when @p idx is no group.
 */
unsigned int dpr_nh_group_members(const struct dpr_nh_table *t, uint32_t idx, uint32_t *members,
				  uint16_t *weights);

/**
 * The next hop that acts for @p idx for a flow of hash @p hash: @p idx, or
 * for a group the member dpr_nh_group_pick_rcu() picks. The control
 * thread's: routes it resolves for packets it forwards or makes.
 */
uint32_t dpr_nh_pick(const struct dpr_nh_table *t, uint32_t idx, uint32_t hash);

/** Number of groups in use. */
uint32_t dpr_nh_group_count(const struct dpr_nh_table *t);

/**
 * Next hop @p idx is reached through dpr port @p port at @p mac: it is
 * forwardable. Port and MAC change in one atomic store.
 */
void dpr_nh_resolve(struct dpr_nh_table *t, uint32_t idx, uint8_t port,
		    const struct rte_ether_addr *mac, bool is_static);

/**
 * Forget the MAC of next hop @p idx: it is unresolved again, to be resolved
 * on dpr port @p port (its address's subnet may have moved).
 */
void dpr_nh_unresolve(struct dpr_nh_table *t, uint32_t idx, uint8_t port);

/** Control-side data of @p idx, or NULL if unused. */
const struct dpr_nh_info *dpr_nh_info(const struct dpr_nh_table *t, uint32_t idx);

/** Worker view of @p idx (atomic load). */
union dpr_nh_word dpr_nh_word_get(const struct dpr_nh_table *t, uint32_t idx);

/** Number of next hops in use. */
uint32_t dpr_nh_count(const struct dpr_nh_table *t);

/**
 * One past the highest index ever in use: no index from there on has
 * been handed out (indices are handed out low first), so a walk over
 * every next hop (checks, listings) may stop there.
 */
uint32_t dpr_nh_index_end(const struct dpr_nh_table *t);

/**
 * Quarantine freed indices (@p on), off by default. Workers hand the
 * control thread a next-hop index with each packet held for resolution
 * (DPR_EXC_ARG through the exception rings); an index freed while such a
 * packet waits in a ring must not name another next hop by the time the
 * control thread reads it (a packet held for, and an ARP sent to, the
 * wrong neighbour, then a false host unreachable). With the quarantine on,
 * a freed index is handed out again only after dpr_nh_quarantine_release()
 * says every ring has been read past its free. For a router with workers;
 * tests without rings leave it off.
 */
void dpr_nh_set_quarantine(struct dpr_nh_table *t, bool on);

/**
 * Where the quarantine stands: call before reading the exception rings,
 * and pass the answer to dpr_nh_quarantine_release() once every ring has
 * been read until it was found empty.
 */
uint64_t dpr_nh_quarantine_mark(const struct dpr_nh_table *t);

/**
 * Every exception ring was read until found empty since @p mark
 * (dpr_nh_quarantine_mark()) was taken: no ring entry can carry an index
 * freed before it (a worker never finds a freed index: the routes to it
 * were gone a grace period before it was freed), so those indices can be
 * handed out again.
 */
void dpr_nh_quarantine_release(struct dpr_nh_table *t, uint64_t mark);
