/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The truth about a port, as the device granted it: driver, hardware or
 * software (and the rate to expect of it), link, queues and descriptors
 * against the profile, offloads and RSS fields granted and refused, NUMA
 * placement against the workers and the mempool. Read by port.show,
 * logged at start, and the start-time conditions of the port's watch.
 * Control thread only.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "../util/log.h"
#include "port.h"

/* Names of the bits of @p set, from @p name (NULL: "0x<bit>"), as a JSON array. */
static json_t *
bits_json(uint64_t set, const char *(*name)(uint64_t))
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < 64; i++) {
		uint64_t b = UINT64_C(1) << i;
		const char *n;
		char hex[24];

		if (!(set & b))
			continue;
		n = name(b);
		if (n == NULL) {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, b);
			n = hex;
		}
		json_array_append_new(a, json_string(n));
	}
	return a;
}

static const char *
rx_offload_name(uint64_t b)
{
	return rte_eth_dev_rx_offload_name(b);
}

static const char *
tx_offload_name(uint64_t b)
{
	return rte_eth_dev_tx_offload_name(b);
}

static json_t *
granted_json(uint64_t wanted, uint64_t granted, const char *(*name)(uint64_t))
{
	return json_pack("{s:o,s:o}", "granted", bits_json(granted, name),
			 "refused", bits_json(wanted & ~granted, name));
}

/* Why @p port tags in software in direction @p what ("vlan_strip" or
 * "vlan_insert", the profiles' name; @p bit): "" when the device does it. */
static const char *
vlan_why(const struct dpr_port *port, uint64_t profile, uint64_t capa, uint64_t granted,
	 uint64_t bit, const char *what, char *buf, size_t len)
{
	if (granted & bit)
		return "";
	if (!port->has_vlans)
		snprintf(buf, len, "no VLAN interface at start");
	else if (!(profile & bit))
		snprintf(buf, len, "profile %s does not list %s", port->profile.source, what);
	else if (!(capa & bit))
		snprintf(buf, len, "%s lacks %s", port->driver, what);
	else
		snprintf(buf, len, "not granted");
	return buf;
}

/*
 * How the port's VLAN tags are put on and taken off: "offload" (the
 * device) or "software" (lib/datapath/vlan_dp.h), and why not offloaded.
 */
static json_t *
vlan_json(const struct dpr_port *port, const struct rte_eth_dev_info *info)
{
	char rx[PATH_MAX + 64], tx[PATH_MAX + 64];

	return json_pack("{s:s,s:s,s:s,s:s}",
		"strip", dpr_port_vlan_strip(port) ? "offload" : "software",
		"insert", dpr_port_vlan_insert(port) ? "offload" : "software",
		"strip_why", vlan_why(port, port->profile.rx_offloads, info->rx_offload_capa,
				      port->rx_offloads, RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
				      "vlan_strip", rx, sizeof(rx)),
		"insert_why", vlan_why(port, port->profile.tx_offloads, info->tx_offload_capa,
				       port->tx_offloads, RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
				       "vlan_insert", tx, sizeof(tx)));
}

void
dpr_port_rss_names(uint64_t rss_hf, char *buf, size_t len)
{
	unsigned int i;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; i < 64 && n < len; i++) {
		uint64_t b = UINT64_C(1) << i;
		const char *s;

		if (!(rss_hf & b))
			continue;
		s = dpr_rss_field_name(b);
		n += (size_t)snprintf(buf + n, len - n, n == 0 ? "%s" : ",%s",
				      s != NULL ? s : "other");
	}
}

/* Highest speed in a speed_capa mask, in Mb/s; 0 when it says none. */
static uint32_t
best_speed(uint32_t capa)
{
	static const struct { uint32_t flag, mbps; } speeds[] = {
		{ RTE_ETH_LINK_SPEED_200G, 200000 }, { RTE_ETH_LINK_SPEED_100G, 100000 },
		{ RTE_ETH_LINK_SPEED_56G, 56000 }, { RTE_ETH_LINK_SPEED_50G, 50000 },
		{ RTE_ETH_LINK_SPEED_40G, 40000 }, { RTE_ETH_LINK_SPEED_25G, 25000 },
		{ RTE_ETH_LINK_SPEED_20G, 20000 }, { RTE_ETH_LINK_SPEED_10G, 10000 },
		{ RTE_ETH_LINK_SPEED_5G, 5000 }, { RTE_ETH_LINK_SPEED_2_5G, 2500 },
		{ RTE_ETH_LINK_SPEED_1G, 1000 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(speeds); i++)
		if (capa & speeds[i].flag)
			return speeds[i].mbps;
	return 0;
}

bool
dpr_port_is_hardware(const struct dpr_port *port)
{
	struct rte_eth_dev_info info;
	const struct rte_bus *bus;

	if (rte_eth_dev_info_get(port->port_id, &info) < 0 || info.device == NULL)
		return false;
	bus = rte_dev_bus(info.device);
	return bus != NULL && strcmp(rte_bus_name(bus), "pci") == 0 &&
	       strcmp(port->driver, "net_virtio") != 0 && strcmp(port->driver, "net_vmxnet3") != 0;
}

/* What to expect of the port: its profile's word, or for a NIC the line rate. */
static void
expectation(const struct dpr_port *port, uint32_t speed, char *buf, size_t len)
{
	if (port->profile.expect[0] != '\0')
		snprintf(buf, len, "%s", port->profile.expect);
	else if (speed != 0)
		/* 64-byte frames take 84 bytes of wire (preamble, gap). */
		snprintf(buf, len, "hardware: the link's line rate with enough workers, %.2f Mpps of 64-byte packets at %" PRIu32 " Mb/s",
			 speed * 1e6 / (84 * 8) / 1e6, speed);
	else
		snprintf(buf, len, "hardware: the link's line rate with enough workers");
}

json_t *
dpr_port_facts_json(const struct dpr_port *port, const unsigned int *lcores, unsigned int n_lcores,
		    int pool_socket)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link = { 0 };
	enum dpr_link_state state;
	json_t *o, *ws;
	uint32_t speed;
	char expect[320];
	unsigned int i;
	bool numa_ok = true;

	if (rte_eth_dev_info_get(port->port_id, &info) < 0)
		memset(&info, 0, sizeof(info));
	state = dpr_port_link(port, &speed);
	rte_eth_link_get_nowait(port->port_id, &link);
	expectation(port, speed, expect, sizeof(expect));

	o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}",
		      "name", port->conf->name, "device", port->conf->device,
		      "driver", port->driver,
		      "bus", info.device != NULL && rte_dev_bus(info.device) != NULL ?
			     rte_bus_name(rte_dev_bus(info.device)) : "?",
		      "kind", dpr_port_is_hardware(port) ? "hardware" : "software",
		      "expect", expect);
	json_object_set_new(o, "link", json_pack("{s:s,s:I,s:s,s:b,s:I}",
		"state", dpr_link_state_name(state), "speed_mbps", (json_int_t)speed,
		"duplex", link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX ? "full" : "half",
		"autoneg", link.link_autoneg == RTE_ETH_LINK_AUTONEG,
		"best_speed_mbps", (json_int_t)best_speed(info.speed_capa)));
	json_object_set_new(o, "queues", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}",
		"rx", port->nb_rxq, "tx", port->nb_txq,
		"rx_max", info.max_rx_queues, "tx_max", info.max_tx_queues,
		"rx_desc", port->nb_rxd, "rx_desc_profile", port->profile.rx_desc,
		"tx_desc", port->nb_txd, "tx_desc_profile", port->profile.tx_desc));
	json_object_set_new(o, "rx_offloads", granted_json(dpr_port_rx_asked(port),
		port->rx_offloads, rx_offload_name));
	json_object_set_new(o, "tx_offloads", granted_json(dpr_port_tx_asked(port),
		port->tx_offloads, tx_offload_name));
	json_object_set_new(o, "vlan", vlan_json(port, &info));
	/* With one worker RSS is not asked for at all: nothing is refused. */
	json_object_set_new(o, "rss", json_pack("{s:o,s:o,s:i,s:i}",
		"granted", bits_json(port->rss_hf, dpr_rss_field_name),
		"refused", bits_json(port->nb_rxq > 1 || port->rss_hf != 0 ?
				     port->profile.rss_hf & ~info.flow_type_rss_offloads : 0,
				     dpr_rss_field_name),
		"key_size", info.hash_key_size, "reta_size", info.reta_size));

	ws = json_array();
	for (i = 0; i < n_lcores; i++) {
		int s = (int)rte_lcore_to_socket_id(lcores[i]);

		json_array_append_new(ws, json_pack("{s:i,s:i}", "lcore", lcores[i], "socket", s));
		numa_ok &= s == port->socket;
	}
	numa_ok &= pool_socket < 0 || pool_socket == port->socket;
	json_object_set_new(o, "numa", json_pack("{s:i,s:i,s:o,s:b}",
		"port_socket", port->socket, "mempool_socket", pool_socket,
		"workers", ws, "ok", numa_ok));
	json_object_set_new(o, "profile", json_string(port->profile.source));
	return o;
}

void
dpr_port_watch_start(struct dpr_port *port, const unsigned int *lcores, unsigned int n_lcores,
		     int pool_socket, uint64_t now)
{
	struct rte_eth_dev_info info;
	struct dpr_port_watch *w = &port->watch;
	const char *name = port->conf->name;
	char rss[160], expect[320];
	unsigned int i;
	uint32_t speed;

	if (rte_eth_dev_info_get(port->port_id, &info) < 0)
		memset(&info, 0, sizeof(info));
	dpr_port_rss_names(port->rss_hf, rss, sizeof(rss));
	dpr_port_watch_init(w, name, port->nb_rxd, port->nb_txd, best_speed(info.speed_capa), rss);

	dpr_port_link(port, &speed);
	expectation(port, speed, expect, sizeof(expect));
	DPR_LOG(INFO, port, "port %s: %s on %s, %s", name, port->driver,
		dpr_port_is_hardware(port) ? "hardware" : "a software PMD", expect);

	for (i = 0; i < n_lcores; i++) {
		int s = (int)rte_lcore_to_socket_id(lcores[i]);

		if (s == port->socket || s < 0)
			continue;
		dpr_port_watch_set(w, DPR_WARN_NUMA, now, "port %s is on NUMA node %d, worker lcore %u on node %d: every packet it polls crosses the interconnect; give EAL lcores on node %d for the workers of this port (lscpu shows each CPU's node)",
				   name, port->socket, lcores[i], s, port->socket);
		break;
	}
	if (pool_socket >= 0 && pool_socket != port->socket)
		dpr_port_watch_set(w, DPR_WARN_NUMA, now, "port %s is on NUMA node %d, its mbufs on node %d: reserve hugepages on node %d (echo N > /sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages)",
				   name, port->socket, pool_socket, port->socket, port->socket);
	if (port->nb_rxd < port->profile.rx_desc || port->nb_txd < port->profile.tx_desc)
		dpr_port_watch_set(w, DPR_WARN_DESC, now, "port %s: the device granted %u RX and %u TX descriptors, its profile %s asks %u and %u: bursts overflow sooner; lower the profile to what the device takes or check its limits (dpdk-testpmd: show port info)",
				   name, port->nb_rxd, port->nb_txd, port->profile.source,
				   port->profile.rx_desc, port->profile.tx_desc);
	for (i = 0; i < DPR_WARN_MAX; i++)
		if (w->warn[i].active)
			DPR_LOG(WARNING, port, "%s", w->warn[i].text);
}
