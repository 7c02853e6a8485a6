/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_pdump.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "acl/acl.h"
#include "api/server.h"
#include "capture/capture.h"
#include "datapath/qinq_dp.h"
#include "dpr.h"
#include "dpr_paths.h"
#include "exception/exception.h"
#include "exception/icmp6.h"
#include "exception/tap.h"
#include "fpm/fpm_router.h"
#include "kernel/kroute.h"
#include "kernel/kvrf.h"
#include "metrics/metrics.h"
#include "neigh/neigh.h"
#include "route/route.h"
#include "telemetry/telemetry.h"
#include "util/clock.h"
#include "util/log.h"

#define EXC_RING_SIZE 1024
/* Drops a worker may hold for a running capture (lib/capture). */
#define CAP_RING_SIZE 256
#define POOL_CACHE 256

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- -c CONFIG.json [options]\n"
		"\n"
		"  -c, --config FILE       configuration (see docs/configuration.md)\n"
		"      --check             check the configuration and exit\n"
		"      --drivers-cfg DIR   port profiles (default: $DPR_DRIVERS_CFG, else drivers-cfg/\n"
		"                          of the source tree when run from its build directory,\n"
		"                          else ../share/dpr/drivers-cfg from the executable's\n"
		"                          directory, else " DPR_INSTALL_DRIVERS_CFG ")\n"
		"      --idle-sleep US     let a worker idle for 256 polls sleep US microseconds\n"
		"                          (for CPUs shared by several lcores; default 0: busy-poll)\n"
		"      --max-packets N     exit once N packets have been received (benchmarks, callgrind)\n"
		"      --pipeline MODE     auto (default): each worker measures which way of running its\n"
		"                          bursts costs fewer cycles a packet and keeps it; on: a burst\n"
		"                          waits across the next RX poll (large FIBs); off: at once\n"
		"      --pool-size N       mbufs per NUMA socket (default: computed from queues)\n"
		"      --stats-file FILE   write counters as JSON there at exit and on SIGUSR1\n"
		"  -h, --help              this text\n"
		"  -V, --version           dpr's version and DPDK's\n"
		"\n"
		"Every non-main EAL lcore runs a worker; give EAL at least two (e.g. -l 0,1).\n",
		prog);
}

static int
parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || s[0] == '\0' || s[0] == '-' || *out > max) {
		fprintf(stderr, "dpr: %s \"%s\": expected an integer from 0 to %" PRIu64 "\n",
			opt, s, max);
		return -EINVAL;
	}
	return 0;
}

static int
parse_args(int argc, char **argv, struct dpr_options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "drivers-cfg", required_argument, NULL, 'D' },
		{ "idle-sleep", required_argument, NULL, 'I' },
		{ "max-packets", required_argument, NULL, 'M' },
		{ "pipeline", required_argument, NULL, 'L' },
		{ "pool-size", required_argument, NULL, 'P' },
		{ "stats-file", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'C':
			o->check_only = true;
			break;
		case 'D':
			o->drivers_cfg = optarg;
			break;
		case 'I':
			if (parse_u64("--idle-sleep", optarg, 1000000, &v) < 0)
				return -EINVAL;
			o->idle_sleep_us = (uint32_t)v;
			break;
		case 'M':
			if (parse_u64("--max-packets", optarg, UINT64_MAX >> 1, &v) < 0)
				return -EINVAL;
			o->max_packets = v;
			break;
		case 'L':
			if (strcmp(optarg, "auto") == 0) {
				o->pipeline = DPR_PIPELINE_AUTO;
			} else if (strcmp(optarg, "on") == 0) {
				o->pipeline = DPR_PIPELINE_ON;
			} else if (strcmp(optarg, "off") == 0) {
				o->pipeline = DPR_PIPELINE_OFF;
			} else {
				fprintf(stderr, "dpr: --pipeline \"%s\": expected auto, on or off\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'P':
			if (parse_u64("--pool-size", optarg, 1u << 30, &v) < 0)
				return -EINVAL;
			o->pool_size = (unsigned int)v;
			break;
		case 'S':
			o->stats_file = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		case 'V':
			printf("dpr %s (%s)\n", DPR_VERSION, rte_version());
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dpr: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	if (o->config == NULL) {
		fprintf(stderr, "dpr: no configuration given (-c CONFIG.json after \"--\")\n");
		usage(stderr, argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int
create_pools(struct dpr_router *d)
{
	unsigned int need[RTE_MAX_NUMA_NODES] = { 0 };
	uint16_t max_mtu = 0;
	unsigned int p, s;

	/* Before any mbuf exists: the field that keeps a packet's RSS hash
	 * on the exception path (ECMP, dpr_flow_hash_ctl()). */
	if (dpr_flow_hash_register() < 0) {
		fprintf(stderr, "dpr: cannot register the mbuf field for RSS hashes: %s\n",
			rte_strerror(rte_errno));
		return -ENOSPC;
	}

	for (p = 0; p < d->cfg->n_phys; p++) {
		need[d->ports[p].socket] += dpr_port_mbufs_needed(&d->ports[p], d->n_workers);
		max_mtu = RTE_MAX(max_mtu, d->cfg->ports[p].mtu);
	}
	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		char name[RTE_MEMPOOL_NAMESIZE];
		unsigned int n;
		uint16_t room;

		if (need[s] == 0)
			continue;
		/* Rings and buffers of the ports, each worker's cache and
		 * exception ring, the host-stack TAPs' RX rings (of every
		 * interface dpr can have: VLAN interfaces come at run time)
		 * and the exception path's held packets (256 x 4). */
		n = d->opt.pool_size != 0 ? d->opt.pool_size :
			need[s] + (d->n_workers + 1) * (POOL_CACHE + EXC_RING_SIZE) +
			d->n_workers * CAP_RING_SIZE +
			DPR_MAX_PORTS * DPR_TAP_DESC + 1024 + 4096;
		room = (uint16_t)RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_BUF_SIZE,
					 (unsigned int)max_mtu + RTE_ETHER_HDR_LEN +
					 RTE_ETHER_CRC_LEN + 8 + RTE_PKTMBUF_HEADROOM);
		snprintf(name, sizeof(name), "dpr_mbuf_s%u", s);
		d->pools[s] = rte_pktmbuf_pool_create(name, n, POOL_CACHE, 0, room, (int)s);
		if (d->pools[s] == NULL) {
			fprintf(stderr, "dpr: cannot allocate %u mbufs on socket %u: %s (reserve more hugepages: scripts/setup.sh)\n",
				n, s, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		DPR_LOG(INFO, main, "mbuf pool %s: %u mbufs of %u bytes", name, n, room);
	}
	return 0;
}

/*
 * The VLAN interfaces, after their ports started: each a logical port of
 * its own index (ports[n_phys...]) on its parent's DPDK port, and in its
 * parent's VLAN map, which makes the workers demultiplex that port's
 * bursts (dpr_vlan_demux_burst()).
 */
static int
setup_vlans(struct dpr_router *d)
{
	unsigned int p;

	for (p = d->cfg->n_phys; p < d->cfg->n_ports; p++) {
		const struct dpr_port_conf *pc = &d->cfg->ports[p];
		struct dpr_port_dp *parent = &d->port_dp[pc->parent];
		uint8_t *map = (uint8_t *)(uintptr_t)parent->vlan_if;

		if (map == NULL) {
			map = rte_zmalloc_socket("dpr_vlan_if", DPR_VLAN_MAP_SIZE, RTE_CACHE_LINE_SIZE,
						 d->ports[pc->parent].socket);
			if (map == NULL)
				return -ENOMEM;
			parent->vlan_if = map;
		}
		/* A QinQ interface's port keeps a VLAN map too, empty
		 * maybe (dpr_qinq_demux_burst() runs before the VLAN demux). */
		if (pc->outer_id == 0)
			map[pc->vlan_id] = (uint8_t)(p + 1);
		else if (dpr_qinq_map_set(parent, pc->outer_id, pc->vlan_id, (uint8_t)(p + 1),
					  d->ports[pc->parent].socket,
					  dpr_port_vlan_strip(&d->ports[pc->parent])) < 0)
			return -ENOMEM;
		dpr_port_vlan_init(&d->ports[p], &d->ports[pc->parent], pc);
		d->port_names[p] = pc->name;
		d->port_dp[p] = *parent;
		d->port_dp[p].vlan_if = NULL;
		d->port_dp[p].qinq = NULL;
		d->port_dp[p].vlan_outer = d->ports[p].vlan_outer;
		d->port_dp[p].mtu = pc->mtu;
		d->port_dp[p].vlan_tci = pc->vlan_id;
		d->port_dp[p].redirects = pc->redirects;
		d->port_dp[p].urpf = pc->urpf;
		d->port_dp[p].fib4 = dpr_router_port_rib(d, p)->fib4;
		d->port_dp[p].fib6 = dpr_router_port_rib(d, p)->fib6;
		d->port_dp[p].vrf = (uint16_t)dpr_router_port_vrf(d, p);
		if (pc->outer_id != 0)
			DPR_LOG(INFO, port, "QinQ interface %s: VLAN %u (%s) then %u on port %s",
				pc->name, pc->outer_id, dpr_config_outer_proto_name(pc->outer_tpid),
				pc->vlan_id, d->cfg->ports[pc->parent].name);
		else
			DPR_LOG(INFO, port, "VLAN interface %s: VLAN %u on port %s", pc->name,
				pc->vlan_id, d->cfg->ports[pc->parent].name);
	}
	d->n_ports = d->cfg->n_ports;
	return 0;
}

static int
setup_ports(struct dpr_router *d)
{
	const char *why = "--drivers-cfg";
	const char *dir = d->opt.drivers_cfg ? d->opt.drivers_cfg : dpr_profile_default_dir(&why);
	char err[1024];
	unsigned int p;
	int ret;

	DPR_LOG(INFO, port, "port profiles from %s (%s)", dir, why);

	d->n_ports = d->cfg->n_phys;
	for (p = 0; p < d->n_ports; p++) {
		struct dpr_port *port = &d->ports[p];

		ret = dpr_port_probe(port, &d->cfg->ports[p], p, (uint16_t)d->n_workers, err,
				     sizeof(err));
		if (ret == 0)
			ret = dpr_profile_load(dir, port->driver, &port->profile, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "dpr: %s\n", err);
			return ret;
		}
		d->port_names[p] = d->cfg->ports[p].name;
	}
	/* Before they start: a port with VLAN interfaces asks for the VLAN
	 * offloads its profile grants. */
	for (p = d->cfg->n_phys; p < d->cfg->n_ports; p++)
		d->ports[d->cfg->ports[p].parent].has_vlans = true;
	ret = create_pools(d);
	if (ret < 0)
		return ret;

	d->port_dp = rte_zmalloc("dpr_ports", sizeof(*d->port_dp) * DPR_MAX_PORTS,
				 RTE_CACHE_LINE_SIZE);
	if (d->port_dp == NULL)
		return -ENOMEM;
	for (p = 0; p < d->n_ports; p++) {
		struct dpr_port *port = &d->ports[p];

		ret = dpr_port_start(port, (uint16_t)d->n_workers, d->pools[port->socket],
				     err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "dpr: %s\n", err);
			return ret;
		}
		d->port_dp[p].mac = port->mac;
		d->port_dp[p].port_id = port->port_id;
		d->port_dp[p].mtu = port->mtu;
		d->port_dp[p].redirects = d->cfg->ports[p].redirects;
		d->port_dp[p].urpf = d->cfg->ports[p].urpf;
		d->port_dp[p].rx_ip_cksum =
			(port->rx_offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
		d->port_dp[p].vlan_insert = dpr_port_vlan_insert(port);
		d->port_dp[p].vlan_strip = dpr_port_vlan_strip(port);
		d->port_dp[p].fib4 = dpr_router_port_rib(d, p)->fib4;
		d->port_dp[p].fib6 = dpr_router_port_rib(d, p)->fib6;
		d->port_dp[p].vrf = (uint16_t)dpr_router_port_vrf(d, p);
	}
	return setup_vlans(d);
}

/* Control-plane protection for worker @p w: its share of each class. */
static void
copp_worker_init(struct dpr_router *d, struct dpr_worker *w)
{
	dpr_copp_worker_init(d->copp, &d->cfg->control_plane, &w->copp, d->n_workers,
			     rte_get_tsc_hz(), EXC_RING_SIZE);
}

static int
setup_workers(struct dpr_router *d)
{
	unsigned int lcore, i = 0, p;

	RTE_LCORE_FOREACH_WORKER(lcore) {
		int socket = (int)rte_lcore_to_socket_id(lcore);
		struct dpr_worker *w;
		char name[RTE_RING_NAMESIZE];

		w = rte_zmalloc_socket("dpr_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
		if (w == NULL)
			return -ENOMEM;
		d->workers[i] = w;
		w->lcore = lcore;
		w->index = i;
		w->n_ports = (uint16_t)d->n_ports;
		w->ports = d->port_dp;
		w->fib = d->fib4;
		w->fib6 = d->fib6;
		w->nh = dpr_nh_words(d->nh);
		w->qsbr = d->qsbr;
		w->max_rx = d->opt.max_packets;
		w->idle_sleep_us = d->opt.idle_sleep_us;
		w->pipeline = d->opt.pipeline;
		dpr_tune_init(&w->tune, d->opt.pipeline == DPR_PIPELINE_ON);
		w->quit = &d->quit;
		w->acl = dpr_acl_db_binds(d->acl);
		dpr_worker_prepare(w);
		/* Worker i owns RX queue i of every port; the first worker
		 * also polls any RX queue beyond the workers' (equal_queues). */
		for (p = 0; p < d->cfg->n_phys; p++) {
			uint16_t q;

			w->rxq[w->n_rxq++] = (struct dpr_rxq){ .port = (uint16_t)p,
							       .queue = (uint16_t)i };
			for (q = (uint16_t)d->n_workers; i == 0 && q < d->ports[p].nb_rxq; q++)
				w->rxq[w->n_rxq++] = (struct dpr_rxq){ .port = (uint16_t)p,
								       .queue = q };
			w->port_index[d->ports[p].port_id] = (uint8_t)p;
		}
		copp_worker_init(d, w);
		snprintf(name, sizeof(name), "dpr_exc_%u", i);
		w->exc_ring = rte_ring_create(name, EXC_RING_SIZE, socket,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->exc_ring == NULL)
			return -ENOMEM;
		snprintf(name, sizeof(name), "dpr_cap_%u", i);
		w->cap_ring = rte_ring_create(name, CAP_RING_SIZE, socket,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->cap_ring == NULL)
			return -ENOMEM;
		i++;
	}
	return 0;
}

/* What to expect of each port, and what is wrong with it from the start. */
static void
watch_ports(struct dpr_router *d)
{
	unsigned int lcores[RTE_MAX_LCORE], p, n = dpr_router_worker_lcores(d, lcores);

	for (p = 0; p < d->cfg->n_phys; p++)
		dpr_port_watch_start(&d->ports[p], lcores, n,
				     dpr_router_pool_socket(d, &d->ports[p]),
				     dpr_clock_s());
}

/*
 * Every port has a link-local address from its MAC (RFC 4291 2.1, 2.5.1,
 * RFC 4862 5.3), besides those configured: in the router's address table
 * (so the TAP, addr.list and neighbour checks see it) and as a local /128.
 * No connected route: every port has fe80::/64, and link-local traffic is
 * never routed.
 */
static int
setup_link_local(struct dpr_router *d)
{
	unsigned int p;
	uint8_t ll[16];
	int err;

	for (p = 0; p < d->n_ports; p++) {
		dpr_ip6_link_local_from_mac(&d->ports[p].mac, ll);
		err = dpr_route_link_local(dpr_router_port_rib(d, p), &d->addrs, p, ll);
		if (err < 0) {
			fprintf(stderr, "dpr: port %s: cannot add its link-local address: %s\n",
				d->cfg->ports[p].name, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int
setup_tables(struct dpr_router *d)
{
	size_t sz = rte_rcu_qsbr_get_memsize(d->n_workers);
	char err[1024];
	unsigned int v;
	int ret;

	d->qsbr = rte_zmalloc("dpr_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (d->qsbr == NULL || rte_rcu_qsbr_init(d->qsbr, d->n_workers) < 0)
		return -ENOMEM;
	d->acl = dpr_acl_db_create(d->qsbr, d->n_workers, (int)rte_socket_id());
	if (d->acl == NULL)
		return -ENOMEM;
	d->nh = dpr_nh_table_create((int)rte_socket_id());
	if (d->nh == NULL) {
		fprintf(stderr, "dpr: cannot allocate the next-hop table (reserve more hugepages: scripts/setup.sh)\n");
		return -ENOMEM;
	}
	/* Workers carry next-hop indices through the exception rings: a freed
	 * one waits until the control thread has read them past its free. */
	dpr_nh_set_quarantine(d->nh, true);
	dpr_config_addresses(d->cfg, &d->addrs);
	for (v = 0; v < d->cfg->n_ports; v++)
		dpr_nh_set_port_vrf(d->nh, (uint8_t)v, d->cfg->ports[v].vrf);
	/* Each VRF's FIBs, then the routes its addresses and the config
	 * imply: the default VRF's are d->rib. */
	for (v = 0; v < d->cfg->n_vrfs; v++) {
		ret = dpr_vrf_open(d, v, &d->cfg->vrfs[v], err, sizeof(err));
		if (ret == 0)
			ret = dpr_route_install_config(d->vrfs[v].rib, d->cfg, &d->addrs, err,
						       sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "dpr: %s\n", err);
			return ret;
		}
	}
	d->neigh = dpr_neigh_create(d, d->cfg->learned_neighbors_max);
	if (d->neigh == NULL)
		return -ENOMEM;
	dpr_neigh_set_budget(d->neigh, d->cfg->control_plane.resolve_per_interface);
	/* The config's peers and its routes' gateways, before any packet. */
	d->copp = dpr_copp_create(&d->cfg->control_plane, (int)rte_socket_id());
	if (d->copp == NULL)
		return -ENOMEM;
	dpr_copp_peers_sync(d->copp, d);
	/* Workers forward while the control thread resolves: held packets
	 * must leave before the newer ones of their flows. */
	dpr_neigh_set_ordered_release(d->neigh, true);
	return 0;
}

/* rte_pdump_init() succeeded: dpdk-dumpcap can attach. */
static bool pdump_on;

static void
teardown(struct dpr_router *d)
{
	unsigned int i;

	dpr_telemetry_stop();
	dpr_capture_free(d);
	if (pdump_on)
		rte_pdump_uninit();
	dpr_metrics_free(d->metrics);
	dpr_kroute_free(d);
	dpr_fpm_router_free(d);
	dpr_server_free(d->server);
	dpr_exc_free(d->exc);
	dpr_neigh_free(d->neigh);
	dpr_kvrf_close(d);
	dpr_tap_close(d);

	for (i = 0; i < d->n_ports; i++)
		if (d->ports[i].conf != NULL)
			dpr_port_close(&d->ports[i]);
	for (i = 0; i < d->n_workers; i++) {
		if (d->workers[i] == NULL)
			continue;
		rte_ring_free(d->workers[i]->exc_ring);
		rte_ring_free(d->workers[i]->cap_ring);
		rte_free(d->workers[i]);
	}
	for (i = DPR_MAX_VRFS; i-- > 0;)
		dpr_vrf_close(d, i);
	dpr_nh_table_free(d->nh);
	dpr_acl_db_free(d->acl); /* the workers are gone */
	dpr_copp_free(d->copp);
	rte_free(d->qsbr);
	for (i = 0; d->port_dp != NULL && i < d->n_ports; i++) {
		rte_free((void *)(uintptr_t)d->port_dp[i].vlan_if);
		dpr_qinq_map_free(&d->port_dp[i]);
	}
	rte_free(d->port_dp);
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		rte_mempool_free(d->pools[i]);
}

int
main(int argc, char **argv)
{
	static struct dpr_router d;
	static struct dpr_config running;
	struct dpr_config *cfg;
	char err[1024];
	int app_argc, eal_argc, i, ret, status = EXIT_FAILURE;
	unsigned int w;

	/* Split at "--" and check our own arguments and the configuration
	 * before EAL starts, so a mistake never touches a port. */
	for (eal_argc = 1; eal_argc < argc; eal_argc++)
		if (strcmp(argv[eal_argc], "--") == 0)
			break;
	app_argc = argc - eal_argc;
	if (app_argc > 0) {
		argv[eal_argc] = argv[0];
		if (parse_args(app_argc, argv + eal_argc, &d.opt) < 0)
			return 2;
	} else {
		for (i = 1; i < argc; i++) {
			if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
				usage(stdout, argv[0]);
				return 0;
			}
			if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
				printf("dpr %s (%s)\n", DPR_VERSION, rte_version());
				return 0;
			}
		}
		fprintf(stderr, "dpr: no configuration given\n");
		usage(stderr, argv[0]);
		return 2;
	}

	cfg = dpr_config_load(d.opt.config, err, sizeof(err));
	if (cfg == NULL) {
		fprintf(stderr, "dpr: %s\n", err);
		return 1;
	}
	/* The router's own copy, whose interfaces vlan.add and vlan.del
	 * change; what it points to (routes, neighbours, ACLs) stays the
	 * parsed file's, freed with it. */
	running = *cfg;
	d.cfg = d.conf = &running;
	if (d.opt.check_only) {
		printf("dpr: %s: configuration OK (%u ports, %u routes, %u neighbours)\n",
		       d.opt.config, d.cfg->n_ports, d.cfg->n_routes, d.cfg->n_neighs);
		dpr_config_free(cfg);
		return 0;
	}

	dpr_control_signals();
	dpr_log_init();
	/* Another dpr's socket, TAPs or listeners: refused before EAL
	 * probes a port (EAL options may name devices) or anything starts. */
	if (dpr_preflight(cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpr: %s\n", err);
		dpr_config_free(cfg);
		return 1;
	}
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dpr: cannot initialise EAL: %s (hugepages reserved? run scripts/setup.sh, or pass --in-memory)\n",
			rte_strerror(rte_errno));
		dpr_config_free(cfg);
		return 1;
	}
	d.n_workers = rte_lcore_count() - 1;
	if (d.n_workers == 0) {
		fprintf(stderr, "dpr: no worker lcores: give EAL at least two lcores, e.g. -l 0,1 (the first one runs the control thread)\n");
		goto out;
	}

	if (setup_tables(&d) < 0 || setup_ports(&d) < 0 || setup_link_local(&d) < 0 ||
	    setup_workers(&d) < 0)
		goto out;
	if (dpr_acl_load_config(d.acl, d.cfg->acls, d.cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpr: %s\n", err);
		goto out;
	}
	dpr_router_in_stages_sync(&d);
	watch_ports(&d);
	d.server = dpr_server_create(&d, d.cfg->socket, d.cfg->socket_group, err, sizeof(err));
	if (d.server == NULL) {
		fprintf(stderr, "dpr: %s\n", err);
		goto out;
	}
	d.exc = dpr_exc_create(&d);
	if (d.exc == NULL) {
		fprintf(stderr, "dpr: cannot set up the exception path: %s\n", strerror(errno));
		goto out;
	}
	if (dpr_tap_setup(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpr: %s\n", err);
		goto out;
	}
	/* Each VRF's TAPs in a kernel VRF device of its table, for the daemons. */
	dpr_kvrf_setup(&d);
	/* The ports' multicast filters: their addresses' groups and their
	 * TAPs'. */
	dpr_router_mcast_sync_all(&d);
	/* zebra's routes come after the config's, and name the TAPs' ifindexes. */
	if (dpr_fpm_router_start(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpr: %s\n", err);
		goto out;
	}
	if (dpr_kroute_start(&d, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpr: %s\n", err);
		goto out;
	}
	if (d.cfg->metrics.enabled) {
		d.metrics = dpr_metrics_create(&d, d.cfg->metrics.listen, err, sizeof(err));
		if (d.metrics == NULL) {
			fprintf(stderr, "dpr: %s\n", err);
			goto out;
		}
	}
	ret = dpr_telemetry_init(&d, d.server);
	if (ret < 0)
		DPR_LOG(WARNING, main, "telemetry commands unavailable: %s", strerror(-ret));
	dpr_capture_clock_init();
	/* dpdk-dumpcap asks over EAL's multi-process channel, which
	 * --in-memory and --no-shconf leave out. */
	if (rte_pdump_init() == 0)
		pdump_on = true;
	else
		DPR_LOG(INFO, main, "dpdk-dumpcap cannot attach: %s (it needs EAL without --in-memory and --no-shconf; dprctl capture works either way)",
			rte_strerror(rte_errno));

	for (w = 0; w < d.n_workers; w++)
		rte_eal_remote_launch(dpr_worker_main, d.workers[w], d.workers[w]->lcore);
	/* Tell the links who we are (gratuitous ARP, unsolicited neighbour
	 * advertisements). */
	for (w = 0; w < d.n_ports; w++) {
		unsigned int n;
		const struct dpr_prefix *a = dpr_ifaddr_list(&d.addrs, w, &n);

		for (i = 0; i < (int)n; i++)
			if (a[i].addr.af == DPR_AF_IP4)
				dpr_exc_garp(d.exc, w, a[i].addr.ip4);
			else
				dpr_exc_unsolicited_na(d.exc, w, &a[i].addr);
	}
	dpr_control_run(&d);
	/* Hosts stop using the router now (RFC 4861 6.2.5). */
	for (w = 0; w < d.n_ports; w++)
		dpr_exc_ra_cease(d.exc, w);
	d.quit = true;
	rte_eal_mp_wait_lcore();
	/* The last bursts' exceptions, still on the rings (the control loop
	 * stops as soon as the packet limit is reached, or at a signal). */
	dpr_control_drain(&d);
	dpr_stats_report(&d, "exit");
	status = EXIT_SUCCESS;
out:
	d.quit = true;
	rte_eal_mp_wait_lcore();
	teardown(&d);
	dpr_config_free(cfg);
	rte_eal_cleanup();
	return status;
}
