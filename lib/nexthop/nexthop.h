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
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "../util/addr.h"

/**
 * Fixed indices. The FIB's default (no route) value is DPR_NH_NONE.
 * DPR_NH_LOCAL marks the router's own addresses, DPR_NH_BCAST the broadcast
 * addresses of its connected subnets: both are for the router (kind LOCAL),
 * and a source address that looks up to DPR_NH_BCAST is never forwarded
 * (RFC 1812 5.3.7).
 */
#define DPR_NH_NONE 0
#define DPR_NH_LOCAL 1
#define DPR_NH_BCAST 2
#define DPR_NH_FIRST_DYNAMIC 3
#define DPR_NH_MAX (1u << 16)

/** What a worker does with a packet whose route points here. */
enum dpr_nh_kind {
	DPR_NH_KIND_NO_ROUTE = 0,   /**< drop, no route */
	DPR_NH_KIND_LOCAL = 1,      /**< for the router itself: exception path */
	DPR_NH_KIND_UNRESOLVED = 2, /**< neighbour MAC unknown */
	DPR_NH_KIND_FORWARD = 3,    /**< rewrite and send */
	DPR_NH_KIND_BLACKHOLE = 4,  /**< drop on purpose */
};

/** The worker's view of a next hop, as one atomic 64-bit word. */
union dpr_nh_word {
	uint64_t u64;
	struct {
		struct rte_ether_addr mac; /**< destination MAC */
		uint8_t port;              /**< dpr port index */
		uint8_t kind;              /**< enum dpr_nh_kind */
	};
};

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

/** Control-side description of a next hop (for listing and refcounts). */
struct dpr_nh_info {
	struct dpr_ip ip;     /**< gateway or neighbour address (link-local: see dpr_nh_get()) */
	uint32_t refcnt;      /**< routes and host entries pointing here */
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

/** Drop a reference; the entry is freed when none are left. */
void dpr_nh_put(struct dpr_nh_table *t, uint32_t idx);

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
