/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * What the two halves of the exception path share: exception.c (dispatch,
 * ARP, ICMP, IPv4 slow path) and exception6.c (NDP, ICMPv6, router
 * advertisements, IPv6 slow path). Not for other modules. Everything here
 * is the control thread's.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "../router/router.h"

#define RL_BUCKETS 1024       /* ICMP error rate limit: per source hash bucket */
#define RL_RATE 10            /* errors per second per source */
#define RL_BURST 10

/* hash.usr class of a packet the router made itself (an ICMP error held
 * for its destination's MAC, anything dpr_exc_tx_own() sends): routed
 * again when released, never forwarded as a transit packet, never answered
 * with an ICMP error (an output ACL's reject only drops it). A fresh mbuf's
 * hash.usr is whatever its last user left there (an RSS hash): every
 * packet the router builds is marked before it is sent or held. */
#define OWN_PACKET DPR_EXC_MAX

#define COUNTERS(X) \
	X(arp_requests_in) X(arp_replies_in) X(arp_invalid) X(arp_replies_sent) \
	X(arp_requests_sent) X(arp_probes_sent) X(address_conflicts) X(address_defended) \
	X(echo_replies) X(echo_invalid) X(echo_broadcast_ignored) \
	X(icmp_time_exceeded) X(icmp_net_unreachable) \
	X(icmp_host_unreachable) X(icmp_frag_needed) X(icmp_param_problem) \
	X(icmp_admin_prohibited) X(icmp_rate_limited) \
	X(icmp_not_allowed) X(icmp_unroutable) X(ip_options_bad) X(source_routed) \
	X(fragmented) X(frag_too_many) X(slow_forwarded) X(blackholed) X(l2_broadcast_dropped) \
	X(link_local_dropped) X(local_unhandled) X(l2_control_unhandled) X(tx_failed) X(no_mbuf) \
	X(directed_broadcast_forwarded) X(directed_broadcast_dropped) \
	X(icmp_redirect_sent) X(icmp_redirect_not_allowed) X(iface_deleted)

/* IPv6's own counters (stats.get exception_path.ipv6). */
#define COUNTERS6(X) \
	X(ns_in) X(na_in) X(rs_in) X(ra_in) X(redirect_in) X(ndp_invalid) \
	X(ns_sent) X(na_sent) X(ra_sent) X(dad_conflicts) \
	X(echo_replies) X(echo_invalid) \
	X(time_exceeded) X(no_route) X(address_unreachable) X(beyond_scope) \
	X(packet_too_big) X(param_problem) X(rate_limited) X(not_allowed) \
	X(admin_prohibited) X(unroutable) X(hop_by_hop_dropped) X(slow_forwarded) X(blackholed) X(l2_broadcast_dropped) \
	X(local_unhandled) X(link_local_elsewhere) X(anycast_na_delayed) X(anycast_na_dropped) \
	X(redirect_sent) X(redirect_not_allowed)

struct bucket {
	uint32_t src;
	uint32_t tokens;
	uint64_t last;
};

/* RFC 5227 2.4: an address of ours that another host claimed, and when
 * we last reported (and for IPv4 defended) it: at most once per
 * DEFEND_INTERVAL (dpr_exc_conflict_due()). */
#define DEFENDED_ADDRS 16
#define DEFEND_INTERVAL_MS 10000  /* RFC 5227 1.1 DEFEND_INTERVAL */
struct defended {
	uint64_t last;       /**< dpr_clock_now(); 0: slot free */
	struct dpr_ip ip;
	uint16_t port;
};

/* Router advertisement state of one port. */
struct ra_state {
	uint64_t next;       /**< dpr_clock_now() of the next unsolicited advertisement; 0: off */
	uint32_t initial;    /**< initial advertisements sent (RFC 4861 6.2.4) */
	uint64_t last_mcast; /**< dpr_clock_now() of the last multicast one (6.2.6 MIN_DELAY_BETWEEN_RAS) */
};

/* An answer for an anycast target, sent after a random delay (RFC 4861
 * 7.2.7) so that the answers of several routers spread out. */
#define ANYCAST_NA_WAITING 16
struct anycast_na {
	uint64_t at;                /**< dpr_clock_now() when due */
	uint16_t port;
	uint8_t target[16], dst[16];
	struct rte_ether_addr dmac;
};

/* Control thread only. */
struct dpr_exc_engine {
	struct dpr_router *r;
	uint64_t hz;                /**< DPR_CLOCK_HZ: the timers tick on dpr_clock_now() */
	struct bucket rl[RL_BUCKETS];
	struct ra_state ra[DPR_MAX_PORTS];
	struct anycast_na na_wait[ANYCAST_NA_WAITING];
	unsigned int n_na_wait;
	struct defended defended[DEFENDED_ADDRS];
	/* While lib/neigh hands over a packet for a neighbour whose answer
	 * it keeps from workers (struct dpr_neigh_ops release_via): next hop
	 * ovr_nh reads as ovr_w here. 0 (DPR_NH_NONE): none. */
	uint32_t ovr_nh;
	union dpr_nh_word ovr_w;
	struct {
#define X(n) uint64_t n;
		COUNTERS(X)
#undef X
	} c;
	struct {
#define X(n) uint64_t n;
		COUNTERS6(X)
#undef X
	} c6;
};

/*
 * The tables of the VRF packet @p m belongs to: that of the port in its
 * exception metadata (where it came in; for the router's own packets,
 * where they leave, which routes of the same VRF chose).
 */
static inline struct dpr_rib *
dpr_exc_rib(const struct dpr_exc_engine *x, const struct rte_mbuf *m)
{
	return dpr_router_port_rib(x->r, DPR_EXC_META_PORT(m->hash.usr));
}

/**
 * Whether @p port, read from a packet's exception metadata, names an
 * interface in use: the port an ICMP error's way back is looked up from.
 */
static inline bool
dpr_exc_port_ok(const struct dpr_exc_engine *x, uint32_t port)
{
	return port < x->r->n_ports && dpr_router_iface_used(x->r, port);
}

/** Next hop @p nh as the control thread forwards by it now (ovr_nh above). */
static inline union dpr_nh_word
dpr_exc_word(const struct dpr_exc_engine *x, uint32_t nh)
{
	return nh == x->ovr_nh && nh != DPR_NH_NONE ? x->ovr_w : dpr_nh_word_get(x->r->nh, nh);
}

/** The mempool of @p port's socket. */
struct rte_mempool *dpr_exc_pool(struct dpr_exc_engine *x, uint16_t port);

/** Send @p m on the control thread's TX queue of @p port (consumed). */
void dpr_exc_tx(struct dpr_exc_engine *x, uint16_t port, struct rte_mbuf *m);

/** Send @p m, a packet the router made, on @p port (consumed): dpr_exc_tx()
 * with @p m marked the router's own (OWN_PACKET). */
void dpr_exc_tx_own(struct dpr_exc_engine *x, uint16_t port, struct rte_mbuf *m);

/** Token bucket per source hash @p src: RL_RATE a second, bursts of RL_BURST. */
bool dpr_exc_rate_ok(struct dpr_exc_engine *x, uint32_t src);

/**
 * Another host claims @p ip, an address of ours on @p port (ARP, or
 * neighbour discovery): is it time to log it (and for IPv4 to defend it)?
 * At most once per DEFEND_INTERVAL per address and port, so that a host
 * repeating its claim, on purpose or not, cannot make the control thread
 * write a log line per packet. Records that it was.
 */
bool dpr_exc_conflict_due(struct dpr_exc_engine *x, uint16_t port, const struct dpr_ip *ip);

/* exception6.c */

/** An IPv6 packet of exception class @p cls from dpr port @p in (consumed). */
void dpr_exc6_input(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t cls, uint16_t in);

/**
 * Ask who has @p target on @p port (neighbour solicitation): multicast, or
 * unicast to @p unicast (a reachability probe, RFC 4861 7.3.3) if not NULL.
 */
void dpr_exc6_solicit(struct dpr_exc_engine *x, uint16_t port, const uint8_t *target,
		      const struct rte_ether_addr *unicast);

/** Answer @p m (consumed) with ICMPv6 administratively prohibited (an ACL's reject). */
void dpr_exc6_admin_prohibited(struct dpr_exc_engine *x, struct rte_mbuf *m);

/** A held IPv6 packet's turn (see struct dpr_neigh_ops release). */
void dpr_exc6_release(struct dpr_exc_engine *x, struct rte_mbuf *m, bool resolved);

/** Unsolicited router advertisements that are due. */
void dpr_exc6_timers(struct dpr_exc_engine *x);
