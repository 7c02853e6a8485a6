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

struct dpr_neigh;
struct dpr_fpm_router;
struct dpr_kroute;
struct dpr_metrics;

struct dpr_router {
	/*
	 * Set up by main() before the workers start, then read-only. The
	 * config is the file as parsed: an input, never changed.
	 */
	struct dpr_options opt;
	const struct dpr_config *cfg;           /**< the parsed file */
	unsigned int n_ports;
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
	struct dpr_rib rib;                     /**< fib4, fib6 and nh, for lib/route */

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
	struct dpr_capture *capture;            /**< dprctl capture (lib/capture); NULL: never used */
	struct dpr_metrics *metrics;            /**< Prometheus endpoint (lib/metrics); NULL: off */
	struct dpr_copp *copp;                  /**< control-plane protection's peer filter (lib/copp) */
	struct {
		uint64_t to_kernel, to_kernel_dropped;
		uint64_t from_kernel, from_kernel_dropped;
		uint64_t lost;       /**< TAPs whose kernel interface went away */
		uint64_t recreated;  /**< ... and were made again */
	} tap_stats;                            /**< host stack traffic */
};

_Static_assert(offsetof(struct dpr_router, quit) % RTE_CACHE_LINE_SIZE == 0 &&
	       offsetof(struct dpr_router, addrs) - offsetof(struct dpr_router, quit) ==
	       RTE_CACHE_LINE_SIZE, "quit, which workers poll, has a cache line of its own");

struct dpr_server;
struct dpr_exc_engine;

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
