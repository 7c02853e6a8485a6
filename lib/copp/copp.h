/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Control-plane protection: what a worker may hand to the control thread.
 *
 * Every exception a worker diverts falls into one protection class (enum
 * dpr_copp_class): ARP and NDP, ICMP, routing protocols and traffic from
 * peers, the rest for the router, transit exceptions, and packets waiting
 * for a neighbour to resolve. Before the exception ring, each class passes
 * two gates on the worker:
 *   - a rate: a token bucket (GCRA: one timestamp) per class and input
 *     port ("resolve": per next hop and family, hashed into DPR_COPP_PORTS
 *     buckets, so that a scan of one subnet spends its subnet's rate only), each worker
 *     holding its share of the configured rate;
 *   - a share of the ring: the entries of this worker's exception ring a
 *     class may hold at once (what it put there less what the control
 *     thread took off). With the default shares summing to 100 %, each
 *     class always finds its own share free, however full another keeps it.
 * What fails either gate is a counted drop (drops.control_plane on the input
 * port, and over_rate or over_share on the class), never a stall.
 *
 * The worker needs no lock, allocation or system call: its buckets and
 * counters are its own, the control thread's "drained" counts are one
 * writer's 64-bit stores that the worker reads (a stale read only makes a
 * class look fuller than it is), and the peer filter is a bitmap the
 * control thread rewrites word by word with atomic stores.
 *
 * Who is a peer (class "routing" for anything it sends to the router): the
 * config's control_plane.peers, and every gateway of an installed route
 * (static, FPM, kernel): a next hop that a route holds, not only its own
 * host route. The filter is one hashed bit per address, rebuilt once a
 * second by dpr_copp_timers(): an address that collides with a peer's bit
 * is taken for a peer (one chance in 65536 per peer), and an attacker who
 * spoofs a peer's address gets the routing class's rate, no more.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_common.h>

#include "../util/addr.h"

/** Ports a bucket set covers (asserted against DPR_MAX_PORTS in copp.c). */
#define DPR_COPP_PORTS 32
/** Peers the config may name. */
#define DPR_COPP_MAX_PEERS 256
/** A VRF's name, at most (lib/config DPR_VRF_NAME_MAX). */
#define DPR_COPP_VRF_NAME_MAX 15
/** Bits of the peer filter (a power of 2). */
#define DPR_COPP_PEER_BITS (1u << 16)

enum dpr_copp_class {
	DPR_COPP_ARP_ND = 0, /**< ARP, NDP (ICMPv6 133-137) */
	DPR_COPP_ICMP,       /**< other ICMP and ICMPv6 for the router */
	DPR_COPP_ROUTING,    /**< routing protocols (OSPF, IS-IS, PIM, VRRP, RIP,
				  LLDP: l2_control) and anything from a peer */
	DPR_COPP_LOCAL,      /**< the rest for the router: to its TAP */
	DPR_COPP_TRANSIT,    /**< TTL expiry, no route, MTU, IP options, redirects */
	DPR_COPP_RESOLVE,    /**< for a next hop not resolved yet (bucket per next hop) */
	DPR_COPP_MAX
};

extern const char *const dpr_copp_class_names[DPR_COPP_MAX];

struct dpr_copp_class_conf {
	uint32_t rate;   /**< packets a second, per input port ("resolve": per next
			      hop), the whole router */
	uint32_t burst;  /**< packets above the rate a port may send at once */
	uint32_t share;  /**< percent of each exception ring the class may fill */
};

/** "control_plane" of the config file. */
struct dpr_copp_conf {
	struct dpr_copp_class_conf cls[DPR_COPP_MAX];
	unsigned int n_peers;
	struct dpr_ip peers[DPR_COPP_MAX_PEERS];
	/** Each peer's VRF by name ("": the default VRF), found when the
	 * filter is built: a VRF deleted and added again keeps its peers. */
	char peer_vrf[DPR_COPP_MAX_PEERS][DPR_COPP_VRF_NAME_MAX + 1];
	/** Addresses being resolved at once per interface and family, not
	 * counting those with priority (lib/neigh). */
	uint32_t resolve_per_interface;
};

/**
 * One worker's gates and counters. The parameters are set before launch
 * (dpr_copp_worker_init()); the worker alone writes tat and the counters;
 * the control thread alone writes drained (dpr_copp_drained()), on a cache
 * line of its own.
 */
struct dpr_copp_worker {
	uint64_t interval[DPR_COPP_MAX]; /**< TSC cycles a packet at this worker's rate */
	uint64_t tau[DPR_COPP_MAX];      /**< burst tolerance, TSC cycles */
	uint32_t ring_cap[DPR_COPP_MAX]; /**< ring entries the class may hold */
	const uint64_t *peers;           /**< the peer filter (DPR_COPP_PEER_BITS) */
	bool enabled;                    /**< false (a test's bare worker): no gate */
	/** Theoretical arrival time of the next packet (GCRA), per class and port. */
	uint64_t tat[DPR_COPP_MAX][DPR_COPP_PORTS];
	uint64_t passed[DPR_COPP_MAX];     /**< put on the exception ring */
	uint64_t over_rate[DPR_COPP_MAX];  /**< dropped: above the rate */
	uint64_t over_share[DPR_COPP_MAX]; /**< dropped: the class's share of the ring full */
	/** Taken off the ring by the control thread, per class. */
	uint64_t drained[DPR_COPP_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

/** Control-side state: the peer filter workers read. */
struct dpr_copp;
struct dpr_router;

/** The defaults: a router stays reachable without tuning (docs/configuration.md). */
void dpr_copp_conf_defaults(struct dpr_copp_conf *c);

/**
 * Read "control_plane" object @p o into @p c (defaults already there).
 * @return 0, or -EINVAL with a message naming the key, the value and what
 *   is expected in @p err (after "control_plane").
 */
int dpr_copp_conf_parse(json_t *o, struct dpr_copp_conf *c, char *err, size_t len);

/** @p c as the config file writes it (config.get). */
json_t *dpr_copp_conf_json(const struct dpr_copp_conf *c);

/**
 * The control-side state for config @p c, its filter on NUMA @p socket.
 * @return it, or NULL with errno set (ENOMEM).
 */
struct dpr_copp *dpr_copp_create(const struct dpr_copp_conf *c, int socket);
void dpr_copp_free(struct dpr_copp *cp);

/**
 * Set worker state @p w for config @p c: this worker's share of each rate
 * (one of @p n_workers), ring shares of an exception ring of @p ring_size
 * entries, the filter of @p cp. Before the worker starts.
 */
void dpr_copp_worker_init(const struct dpr_copp *cp, const struct dpr_copp_conf *c,
			  struct dpr_copp_worker *w, unsigned int n_workers, uint64_t tsc_hz,
			  unsigned int ring_size);

/**
 * Rebuild the peer filter of router @p r now: the config's peers and the
 * gateways of its routes. dpr_copp_timers() calls it once a second.
 */
void dpr_copp_peers_sync(struct dpr_copp *cp, struct dpr_router *r);
void dpr_copp_timers(struct dpr_copp *cp, struct dpr_router *r);

/** Whether @p ip is in the peer filter @p bits in VRF @p vrf (its slot in
 * the router's vrfs[]). */
bool dpr_copp_is_peer(const uint64_t *bits, const struct dpr_ip *ip, uint16_t vrf);

/**
 * The control thread took a packet off worker @p w's ring whose
 * DPR_EXC_META_COPP is @p meta: its class + 1, or 0 for one no gate let
 * through (a worker without the gate), which holds no class's share.
 */
static inline void
dpr_copp_drained(struct dpr_copp_worker *w, unsigned int meta)
{
	unsigned int cls = meta - 1;

	if (meta != 0 && cls < DPR_COPP_MAX)
		__atomic_store_n(&w->drained[cls], w->drained[cls] + 1, __ATOMIC_RELAXED);
}

/**
 * The classes' counters summed over the workers of @p r, with the config's
 * rates: {"classes": {"arp_nd": {"passed", "dropped", "over_rate",
 * "over_share", "rate", "burst", "ring_share"}, ...}, "peers": N,
 * "resolving": {"p0": {"ipv4": N, "ipv6": N}, ...}} (stats.get's
 * "control_plane"; resolving: addresses without priority being resolved
 * per interface and family, against control_plane.resolving_per_interface).
 */
json_t *dpr_copp_stats_json(const struct dpr_router *r);
