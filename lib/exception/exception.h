/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The exception path on the control thread: what workers could not forward
 * arrives here (struct dpr_worker exc_ring, enum dpr_exc class). This module
 * answers ARP, NDP and ICMP/ICMPv6 echo for the router, sends router
 * advertisements, resolves next hops with a small
 * hold queue per unresolved neighbour, sends ICMP errors (rate-limited per
 * source), forwards what needs the slow path (IP options, fragmentation) and
 * ages learned neighbours. Everything here runs on the control thread and
 * sends through its own TX queue (index n_workers) on each port.
 */
#include <stdint.h>

#include <jansson.h>
#include <rte_mbuf.h>

#include "../router/router.h"

struct dpr_exc_engine;

/**
 * @return the engine, or NULL with errno set (ENOMEM).
 */
struct dpr_exc_engine *dpr_exc_create(struct dpr_router *r);
void dpr_exc_free(struct dpr_exc_engine *x);

/** Handle one packet from a worker's exception ring (takes ownership). */
void dpr_exc_input(struct dpr_exc_engine *x, struct rte_mbuf *m);

/**
 * Every exception ring was read until it was found empty: answers to
 * resolutions kept back for order (dpr_neigh_set_ordered_release()) are
 * published now, and their packets released.
 */
void dpr_exc_rings_drained(struct dpr_exc_engine *x);

/** Retries, timeouts and neighbour aging; call often (cheap when idle). */
void dpr_exc_timers(struct dpr_exc_engine *x);

/** Announce @p ip (host order) on port @p port with a gratuitous ARP request. */
void dpr_exc_garp(struct dpr_exc_engine *x, unsigned int port, uint32_t ip);

/**
 * Announce IPv6 address @p a of port @p port with an unsolicited neighbour
 * advertisement to all nodes (RFC 4861 7.2.6), as a new address or a
 * restart makes its owner's link-layer address news to the link.
 */
void dpr_exc_unsolicited_na(struct dpr_exc_engine *x, unsigned int port,
			    const struct dpr_ip *a);

/**
 * Port @p port stops advertising (vlan.del, shutdown): if it has sent
 * router advertisements, send a final one with Router Lifetime 0 to all
 * nodes (RFC 4861 6.2.5); its advertisement state starts over.
 */
void dpr_exc_ra_cease(struct dpr_exc_engine *x, unsigned int port);

/** Counters of the control thread's side, for stats.get. */
json_t *dpr_exc_stats_json(const struct dpr_exc_engine *x);
