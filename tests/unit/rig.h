/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * A router for unit tests that drive the control side (API methods,
 * telemetry, the exception path): the configuration parsed from a string,
 * the next-hop table, a FIB with no RCU readers, the config's routes and
 * neighbours installed, and the neighbour module. No ports and no workers:
 * a test that sends packets sets up its own ports.
 */
#include <stdio.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "config/config.h"
#include "fib/fib.h"
#include "kernel/kvrf.h"
#include "neigh/neigh.h"
#include "nexthop/nexthop.h"
#include "route/route.h"
#include "router/router.h"

/** Build @p r from config @p text (@p origin names it); 0, or -1 with why on stderr. */
static inline int
test_router_init(struct dpr_router *r, const char *text, const char *origin)
{
	struct dpr_fib4_conf fc = { .socket = 0 };
	struct dpr_fib6_conf fc6 = { .socket = 0 };
	char err[512];
	unsigned int p, v;

	r->cfg = dpr_config_parse(text, origin, err, sizeof(err));
	if (r->cfg == NULL) {
		fprintf(stderr, "%s: config: %s\n", origin, err);
		return -1;
	}
	for (p = 0; p < r->cfg->n_ports; p++)
		r->port_names[p] = r->cfg->ports[p].name;
	dpr_config_addresses(r->cfg, &r->addrs);
	fc.max_routes = r->cfg->ip4_max_routes;
	fc.tbl8_groups = r->cfg->ip4_tbl8_groups;
	fc6.max_routes = r->cfg->ip6_max_routes;
	fc6.tbl8_groups = 1024;
	r->nh = dpr_nh_table_create(0);
	for (p = 0; r->nh != NULL && p < r->cfg->n_ports; p++)
		dpr_nh_set_port_vrf(r->nh, (uint8_t)p, r->cfg->ports[p].vrf);
	r->fib4 = dpr_fib4_create(&fc, NULL);
	r->fib6 = dpr_fib6_create(&fc6, NULL);
	r->rib = (struct dpr_rib){ .fib4 = r->fib4, .fib6 = r->fib6, .nh = r->nh,
				   .srcs = dpr_route_srcs_create() };
	if (r->nh == NULL || r->fib4 == NULL || r->fib6 == NULL || r->rib.srcs == NULL ||
	    dpr_route_install_config(&r->rib, r->cfg, &r->addrs, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: router: %s\n", origin, err);
		return -1;
	}
	r->vrfs[0] = (struct dpr_vrf){ .conf = r->cfg->vrfs[0], .rib = &r->rib };
	dpr_route_srcs_set_yield(r->rib.srcs, dpr_neigh_yield_host, r);
	/* The other VRFs small: the rigs' tables hold a few routes. */
	for (v = 1; v < r->cfg->n_vrfs; v++) {
		struct dpr_vrf_conf vc = r->cfg->vrfs[v];

		vc.ip6_tbl8_groups = 1024;
		if (dpr_vrf_open(r, v, &vc, err, sizeof(err)) < 0 ||
		    dpr_route_install_config(r->vrfs[v].rib, r->cfg, &r->addrs, err,
					     sizeof(err)) < 0) {
			fprintf(stderr, "%s: router: %s\n", origin, err);
			return -1;
		}
	}
	r->neigh = dpr_neigh_create(r, r->cfg->learned_neighbors_max);
	if (r->neigh == NULL) {
		fprintf(stderr, "%s: no memory for the neighbour table\n", origin);
		return -1;
	}
	return 0;
}

/** Free what test_router_init() built. */
static inline void
test_router_free(struct dpr_router *r)
{
	unsigned int v;

	dpr_neigh_free(r->neigh);
	dpr_kvrf_close(r); /* vrf.add's kernel devices, tried */
	for (v = 1; v < DPR_MAX_VRFS; v++)
		dpr_vrf_close(r, v);
	dpr_route_srcs_free(r->rib.srcs, r->nh);
	dpr_fib4_free(r->fib4);
	dpr_fib6_free(r->fib6);
	dpr_nh_table_free(r->nh);
	dpr_config_free((struct dpr_config *)(uintptr_t)r->cfg);
}

/**
 * A DPDK port on a ring (net_ring), one RX and one TX queue: what is sent
 * on it lands in *@p txr (named @p name), for the test to read with
 * rte_ring_sc_dequeue_burst(). @return its port id, or -1.
 */
static inline int
test_ring_port(const char *name, struct rte_mempool *pool, struct rte_ring **txr)
{
	struct rte_eth_conf conf = { 0 };
	int pid;

	*txr = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	pid = *txr != NULL ? rte_eth_from_ring(*txr) : -1;
	if (pid < 0 || rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup((uint16_t)pid, 0, 64, 0, NULL, pool) < 0 ||
	    rte_eth_tx_queue_setup((uint16_t)pid, 0, 64, 0, NULL) < 0 ||
	    rte_eth_dev_start((uint16_t)pid) < 0)
		return -1;
	return pid;
}

/**
 * Make dpr port @p p of @p r a ring port (test_ring_port()) with MAC
 * @p mac and the config's MTU. @return 0, or -1.
 */
static inline int
test_port_on_ring(struct dpr_router *r, unsigned int p, const char *name,
		  struct rte_mempool *pool, const struct rte_ether_addr *mac,
		  struct rte_ring **txr)
{
	int pid = test_ring_port(name, pool, txr);

	if (pid < 0)
		return -1;
	r->ports[p].port_id = (uint16_t)pid;
	r->ports[p].mac = *mac;
	r->ports[p].socket = 0;
	r->port_dp[p] = (struct dpr_port_dp){ .mac = *mac, .port_id = (uint16_t)pid,
					      .mtu = r->cfg->ports[p].mtu };
	return 0;
}
