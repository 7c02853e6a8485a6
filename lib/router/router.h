/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The router's control-side state: what the daemon set up and what the
 * control API reads and changes. Owned by the control thread (main lcore);
 * nothing here is touched by workers, which get their own struct
 * dpr_worker and reach shared tables only through it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include "../config/config.h"
#include "../datapath/datapath.h"
#include "../fib/fib.h"
#include "../fib/fib6.h"
#include "../ifaddr/ifaddr.h"
#include "../nexthop/nexthop.h"
#include "../port/port.h"
#include "../route/route.h"

struct dpr_options {
	const char *config;
	const char *drivers_cfg;
	const char *stats_file;
	uint64_t max_packets;      /**< 0: run until stopped */
	uint32_t idle_sleep_us;
	uint8_t pipeline;           /**< enum dpr_pipeline (--pipeline) */
	unsigned int pool_size;    /**< 0: computed */
	bool check_only;
};

/**
 * A VRF: its name, kernel table and FIBs (lib/router/vrf.c). Slot 0 is the
 * default VRF, whose rib is the router's own (struct dpr_router's rib,
 * fib4, fib6); a slot with rib NULL is free. Which VRF each interface is
 * in: the address table's vrf[] (lib/ifaddr), on the control side, and
 * each struct dpr_port_dp's FIB pointers, for the workers.
 */
struct dpr_vrf {
	struct dpr_vrf_conf conf;   /**< name, table, FIB sizes */
	struct dpr_rib *rib;
};

struct dpr_neigh;
struct dpr_fpm_router;
struct dpr_kroute;
struct dpr_kvrf;
struct dpr_metrics;
struct dpr_acl_db;

struct dpr_router {
	/*
	 * Set up by main() before the workers start, then read-only, but for
	 * the interfaces, which vlan.add and vlan.del change at run time
	 * (lib/router/iface.c): ports[] of cfg, n_ports, ports[], port_names[]
	 * and port_dp[] of a slot no worker can reach. cfg is the router's
	 * copy of the parsed file (conf): its interfaces (cfg->ports[],
	 * cfg->n_ports) are the router's, a free slot's name is "" (and its
	 * port_names[] NULL), and so are its VRFs (cfg->vrfs[], cfg->n_vrfs:
	 * vrfs[] of the slots here, kept by vrf.add and vrf.del, "" for a
	 * free one), which the interfaces' "vrf" index; the rest is the file's.
	 */
	struct dpr_options opt;
	const struct dpr_config *cfg;           /**< what every reader reads: conf */
	/** cfg, writable by the control thread; NULL where cfg is not the
	 * router's own (no interfaces can come or go then). */
	struct dpr_config *conf;
	unsigned int n_ports;                   /**< 1 + the highest interface slot in use */
	struct dpr_port ports[DPR_MAX_PORTS];
	const char *port_names[DPR_MAX_PORTS];
	struct dpr_port_dp *port_dp;            /**< read by workers */
	struct rte_mempool *pools[RTE_MAX_NUMA_NODES];
	unsigned int n_workers;
	struct dpr_worker *workers[RTE_MAX_LCORE]; /**< each written by its worker */
	struct rte_rcu_qsbr *qsbr;

	/*
	 * Tables workers read without locks: written by the control thread
	 * only, in place with atomic stores, memory reused after an RCU grace
	 * period (lib/fib, lib/nexthop say how).
	 */
	struct dpr_nh_table *nh;
	struct dpr_fib4 *fib4;
	struct dpr_fib6 *fib6;
	struct dpr_rib rib;                     /**< the default VRF's fib4, fib6 and nh */
	struct dpr_vrf vrfs[DPR_MAX_VRFS];      /**< [0]: the default VRF */

	/*
	 * Read by every worker every loop, written once at exit: a cache line
	 * of its own, so that no store of the control thread to a neighbour
	 * (exception counts, TAP counts, addresses) takes the line from the
	 * workers (false sharing; asserted below).
	 */
	volatile bool quit __rte_cache_aligned;

	/* Written by the control thread only. */
	struct dpr_ifaddrs addrs __rte_cache_aligned; /**< the router's addresses (lib/ifaddr) */
	uint64_t exc_received[DPR_EXC_MAX];     /**< taken off the exception rings */
	struct dpr_server *server;              /**< control socket */
	struct dpr_exc_engine *exc;             /**< exception path */
	struct dpr_neigh *neigh;                /**< neighbours (lib/neigh) */
	struct dpr_fpm_router *fpm;             /**< routes from zebra (lib/fpm); NULL: off */
	struct dpr_kroute *kroute;              /**< the kernel table mirror (lib/kernel); NULL: off */
	struct dpr_kvrf *kvrf;                  /**< kernel VRF devices (lib/kernel/kvrf.h); NULL: none */
	struct dpr_capture *capture;            /**< dprctl capture (lib/capture); NULL: never used */
	struct dpr_metrics *metrics;            /**< Prometheus endpoint (lib/metrics); NULL: off */
	struct dpr_acl_db *acl;                 /**< ACLs and their bindings (lib/acl); NULL: none */
	/** Interface slots vlan.del freed that an exception ring may still
	 * name (bit per slot): vlan.add takes them again only once every ring
	 * ran empty after (dpr_router_slots_drained()). */
	uint32_t slots_draining;
	/** Per worker, what the interfaces vlan.del freed had counted: still
	 * in each worker's totals, so that they never go back. */
	struct dpr_port_counters retired[RTE_MAX_LCORE];
	struct dpr_copp *copp;                  /**< control-plane protection's peer filter (lib/copp) */
	struct {
		uint64_t to_kernel, to_kernel_dropped;
		uint64_t from_kernel, from_kernel_dropped;
		uint64_t lost;       /**< TAPs whose kernel interface went away */
		uint64_t recreated;  /**< ... and were made again */
		uint64_t addrs_restored; /**< addresses gone from an up TAP, put back */
	} tap_stats;                            /**< host stack traffic */
};

_Static_assert(offsetof(struct dpr_router, quit) % RTE_CACHE_LINE_SIZE == 0 &&
	       offsetof(struct dpr_router, addrs) - offsetof(struct dpr_router, quit) ==
	       RTE_CACHE_LINE_SIZE, "quit, which workers poll, has a cache line of its own");

struct dpr_server;
struct dpr_exc_engine;

/** VRF @p vrf's tables, or NULL for none (a free slot, out of range). */
static inline struct dpr_rib *
dpr_router_rib(struct dpr_router *r, unsigned int vrf)
{
	return vrf < DPR_MAX_VRFS ? r->vrfs[vrf].rib : NULL;
}

/** The VRF of dpr port or VLAN interface @p port (control side). */
static inline uint16_t
dpr_router_port_vrf(const struct dpr_router *r, unsigned int port)
{
	return port < DPR_IFADDR_MAX_PORTS ? r->addrs.vrf[port] : DPR_VRF_DEFAULT;
}

/** The tables of the VRF of @p port: where what it receives is looked up. */
static inline struct dpr_rib *
dpr_router_port_rib(struct dpr_router *r, unsigned int port)
{
	return r->vrfs[dpr_router_port_vrf(r, port)].rib;
}

/** Whether interface slot @p port holds a port or VLAN interface (vlan.del
 * frees slots: a free one has no name). */
static inline bool
dpr_router_iface_used(const struct dpr_router *r, unsigned int port)
{
	return port < DPR_MAX_PORTS && r->cfg->ports[port].name[0] != '\0';
}

/** The index of the VRF named @p name, or -1 (none, or "" for NULL: the
 * default VRF). */
int dpr_router_vrf_index(const struct dpr_router *r, const char *name);

/**
 * Make VRF slot @p id (free) from @p conf: its FIBs, sized and of the
 * algorithms @p conf says, and its route sources; slot 0 fills the
 * router's own rib. No route yet.
 * @return 0, or a negative errno with what to change in @p err.
 */
int dpr_vrf_open(struct dpr_router *r, unsigned int id, const struct dpr_vrf_conf *conf,
		 char *err, size_t len);

/**
 * Free VRF slot @p id's tables, with every route gone already and no
 * worker able to read them (after a grace period, or at exit).
 */
void dpr_vrf_close(struct dpr_router *r, unsigned int id);

/**
 * vrf.add: a new VRF from @p conf (name, table, FIB sizes) in a free slot,
 * checked as the config file's vrfs[] are (a valid name and a table no
 * other VRF, nor fpm or kernel_routes, has; not the kernel's own).
 * @return its index, or a negative errno with what to change in @p err:
 *   -EINVAL (name, table), -EEXIST (taken), -ENOSPC (DPR_MAX_VRFS),
 *   -ENOMEM (no memory for its FIBs).
 */
int dpr_vrf_add(struct dpr_router *r, const struct dpr_vrf_conf *conf, char *err, size_t len);

/**
 * vrf.del: VRF @p id's routes go (every source's, next-hop references
 * released), then after a grace period no worker reads its FIBs and they
 * are freed. Refused for the default VRF and while interfaces are in it.
 * @return 0, or a negative errno with why in @p err: -EPERM (the default
 *   VRF), -EBUSY (interfaces in it), -ENOENT (no such VRF).
 */
int dpr_vrf_del(struct dpr_router *r, unsigned int id, char *err, size_t len);

/**
 * Interface @p p's port (itself, or a VLAN interface's parent): the
 * multicast groups its addresses, its VLAN interfaces' and what the kernel
 * joined on their TAPs need (dpr_mcast_groups()) again, and into its
 * device if they changed (dpr_port_mcast_set()). After an address or a
 * VLAN interface comes or goes. Control thread; reads /proc/net/dev_mcast.
 */
void dpr_router_mcast_sync(struct dpr_router *r, unsigned int p);

/** dpr_router_mcast_sync() for every port: at start, and once a second
 * for the groups the host stack joins or leaves on the TAPs. */
void dpr_router_mcast_sync_all(struct dpr_router *r);

/**
 * First half of vlan.add: VLAN interface @p pc (name, parent, VLAN id, VRF,
 * MTU, TAP and flags; no addresses) in a free interface slot, with
 * everything workers and the control thread read for it (its struct
 * dpr_port and dpr_port_dp, the workers' derived fields, its VRF in the
 * address and next-hop tables, its link-local address, its TAP), but not
 * yet in its parent's VLAN map: no worker hands it a packet. Add its
 * addresses, then dpr_vlan_publish().
 * @return its slot, or a negative errno with what to change in @p err:
 *   -EINVAL (name, id, MTU, port, VRF), -EEXIST (the name, or the id on
 *   the port), -ENOSPC (DPR_MAX_PORTS), -EAGAIN (the only free slots
 *   still draining, dpr_router_slots_mark()), -ENOTSUP (no router-owned conf),
 *   or the TAP's error.
 */
int dpr_vlan_open(struct dpr_router *r, const struct dpr_port_conf *pc, char *err, size_t len);

/**
 * Second half of vlan.add: after a grace period (workers see the slot's
 * fields), store the interface in its parent's VLAN map (allocated, and
 * its pointer stored with release, if the parent had none).
 * @return 0, or -ENOMEM (no memory for the parent's map).
 */
int dpr_vlan_publish(struct dpr_router *r, unsigned int p);

/**
 * Whether routes other than those its own addresses and neighbours imply go
 * through interface @p p (a gateway on it, "dev" it, a multipath member):
 * vlan.del refuses then. @return 0, or -EBUSY with the first one in @p err.
 */
int dpr_vlan_busy(struct dpr_router *r, unsigned int p, char *err, size_t len);

/**
 * First half of vlan.del: take VLAN interface @p p out of its parent's VLAN
 * map and wait a grace period: no worker receives on it any more. Its
 * addresses go next (addr.del's way), then dpr_vlan_close().
 */
void dpr_vlan_unpublish(struct dpr_router *r, unsigned int p);

/**
 * Last half of vlan.del, its addresses gone: its neighbours, link-local
 * address, TAP and ACL bindings go; after a grace period no worker sends
 * on it either, and its slot is free for the next vlan.add (the workers'
 * TX buffers for it are empty; its counters are reset).
 */
void dpr_vlan_close(struct dpr_router *r, unsigned int p);

/**
 * The interface slots freed so far whose packets an exception ring may
 * still hold: call before reading the rings, and pass the answer to
 * dpr_router_slots_drained() once every ring ran empty in that pass.
 * Until then vlan.add gives them to no new interface, whose packets the
 * deleted one's would otherwise pass for (its VRF, its TAP).
 */
static inline uint32_t
dpr_router_slots_mark(const struct dpr_router *r)
{
	return r->slots_draining;
}

/** Slots @p mark (dpr_router_slots_mark()) are in no exception ring now. */
static inline void
dpr_router_slots_drained(struct dpr_router *r, uint32_t mark)
{
	r->slots_draining &= ~mark;
}

/**
 * Store each interface's in_stages (dpr_port_in_stages_sync()) from its
 * VLAN map, uRPF and input ACL binding: at start, and after each change of
 * one of those (vlan.add, vlan.del, acl.bind, acl.unbind).
 */
void dpr_router_in_stages_sync(struct dpr_router *r);

/** The workers' lcores, in worker order, into @p lcores (room for RTE_MAX_LCORE). */
static inline unsigned int
dpr_router_worker_lcores(const struct dpr_router *r, unsigned int *lcores)
{
	unsigned int w;

	for (w = 0; w < r->n_workers; w++)
		lcores[w] = r->workers[w]->lcore;
	return r->n_workers;
}

/** The NUMA socket of the mbuf pool @p port receives into; -1: it has none. */
static inline int
dpr_router_pool_socket(const struct dpr_router *r, const struct dpr_port *port)
{
	const struct rte_mempool *pool = r->pools[port->socket];

	return pool != NULL ? pool->socket_id : -1;
}

/**
 * Check the router's tables against each other: dpr_rib_check() with the
 * references lib/neigh holds itself, then dpr_neigh_check(). Walks every
 * route and next hop: for tests, fuzzers, the soak and rib.check.
 * @return 0, or a negative errno with the first mismatch in @p err.
 */
int dpr_router_check(struct dpr_router *r, char *err, size_t len);

/**
 * Whatever would make this configuration's dpr refuse to start once it
 * has probed ports: a live control socket, a kernel interface it would
 * create that exists already (host-stack TAPs, net_tap ports' iface=), a
 * metrics or FPM address in use. Before EAL; the listeners check again.
 * @return 0, or a negative errno with what to change in @p err.
 */
int dpr_preflight(const struct dpr_config *cfg, char *err, size_t len);
