/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is a burst of up to DPR_BURST arbitrary frames
 * arriving on one port, through a worker's screen, lookups and rewrite
 * (IPv4 and IPv6, dpr_ip4_input_burst()), and what it diverts through the
 * control thread's exception path (ARP, NDP, ICMP and ICMPv6 input, every
 * error it builds, the hold queue), on a router built here whose two ports
 * send into rings. Each port has VLAN interfaces in two VRFs, red (VLAN
 * 100, DIR-24-8) and blue (VLAN 200, Poptrie), whose subnets are the
 * default VRF's own, so the port's bursts go first through the worker's
 * input stages (dpr_input_stages_burst(): p0 also has a QinQ interface,
 * 802.1ad 100 then 7, whose frames dpr_qinq_demux_burst() takes out first;
 * a burst all of one VLAN goes on as that interface's, a mixed one is split
 * by tag) and each part is looked up in its VRF. Both ports have an input ACL (dpr_acl_input(), as
 * app/dpr/worker.c runs it before the screen) and p1 an output one (the
 * control thread's sends): ports, ICMP, TCP flags, fragments, IPv6
 * extension headers, deny and reject. Checked: every frame of the burst is
 * forwarded, diverted or dropped exactly once, on the port or one of its
 * VLAN interfaces, and no mbuf is lost.
 *
 * Input: byte 0 picks the port (bit 0), the RX offload flags the frames
 * carry (bits 1-3: IP checksum good/bad/unknown, RSS hash) and a tag the
 * PMD took off (bits 4-5: none, VLAN 100, VLAN 200, VLAN 300 with
 * priority 5, in vlan_tci with RTE_MBUF_F_RX_VLAN_STRIPPED), and whether
 * p0's device is taken to strip (bit 6: dpr_qinq_map.strip, which says
 * where a QinQ frame's outer tag is when that flag is set); then frames,
 * each a 2-byte big-endian length and that many bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "acl/acl.h"
#include "acl/acl_dp.h"
#include "datapath/datapath.h"
#include "datapath/ip4_dp.h"
#include "datapath/stats.h"
#include "exception/exception.h"
#include "../unit/test.h"
#include "../unit/rig.h"

#define POOL_SIZE 4095

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"], \"acl_in\": \"edge\"},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"mac\": \"02:00:00:00:02:01\","
	"  \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\"], \"mtu\": 1280,"
	"  \"broadcast_echo\": true, \"acl_in\": \"edge\", \"acl_out\": \"edge\"}],"
	" \"acls\": [{\"name\": \"edge\", \"default\": \"permit\", \"rules\": ["
	"   {\"action\": \"deny\", \"proto\": \"tcp\", \"dst\": \"192.0.2.0/25\", \"dst_port\": 22},"
	"   {\"action\": \"reject\", \"proto\": \"udp\", \"dst_port\": \"1000-2000\"},"
	"   {\"action\": \"deny\", \"family\": \"ipv6\", \"proto\": \"tcp\", \"tcp_flags\": \"syn,!ack\"},"
	"   {\"action\": \"reject\", \"proto\": \"icmp\", \"icmp_type\": 13},"
	"   {\"action\": \"deny\", \"fragment\": \"non-first\", \"dscp\": 46},"
	"   {\"action\": \"reject\", \"src\": \"2001:db8:1::/64\", \"dst\": \"2001:db8:77::/48\","
	"    \"proto\": \"udp\", \"src_port\": 53}]}],"
	" \"vrfs\": [{\"name\": \"red\", \"table\": 100},"
	"           {\"name\": \"blue\", \"table\": 200, \"fib\": {\"ipv4_algorithm\": \"poptrie\","
	"            \"ipv6_algorithm\": \"poptrie\"}}],"
	" \"vlans\": [{\"name\": \"p0.100\", \"port\": \"p0\", \"id\": 100, \"vrf\": \"red\","
	"             \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	"            {\"name\": \"p1.100\", \"port\": \"p1\", \"id\": 100, \"vrf\": \"red\","
	"             \"addresses\": [\"10.0.2.1/24\"], \"mtu\": 1280, \"redirects\": false},"
	"            {\"name\": \"p0.200\", \"port\": \"p0\", \"id\": 200, \"vrf\": \"blue\","
	"             \"addresses\": [\"10.0.1.1/24\"], \"broadcast_echo\": true},"
	"            {\"name\": \"p1.200\", \"port\": \"p1\", \"id\": 200, \"vrf\": \"blue\","
	"             \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\"]},"
	"            {\"name\": \"p0.100.7\", \"port\": \"p0\", \"outer_id\": 100, \"id\": 7,"
	"             \"addresses\": [\"10.0.7.1/24\"]}],"
	" \"neighbors\": [{\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"},"
	"               {\"address\": \"2001:db8:1::2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"},"
	"               {\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:03\", \"port\": \"p0.100\"},"
	"               {\"address\": \"2001:db8:1::2\", \"mac\": \"02:00:00:00:01:03\", \"port\": \"p0.100\"},"
	"               {\"address\": \"10.0.2.2\", \"mac\": \"02:00:00:00:02:04\", \"port\": \"p1.200\"}],"
	" \"routes\": [{\"prefix\": \"192.0.2.0/24\", \"via\": \"10.0.1.2\"},"
	"             {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.50\"},"
	"             {\"prefix\": \"2001:db8:77::/48\", \"via\": \"2001:db8:2::50\"},"
	"             {\"prefix\": \"2001:db8:78::/48\", \"via\": \"2001:db8:1::2\"},"
	"             {\"prefix\": \"192.0.2.0/24\", \"via\": \"10.0.2.50\", \"vrf\": \"red\"},"
	"             {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.1.2\", \"vrf\": \"red\"},"
	"             {\"prefix\": \"2001:db8:78::/48\", \"via\": \"2001:db8:1::2\", \"vrf\": \"red\"},"
	"             {\"prefix\": \"192.0.2.0/24\", \"via\": \"10.0.2.2\", \"vrf\": \"blue\"},"
	"             {\"prefix\": \"0.0.0.0/0\", \"via\": \"10.0.1.9\", \"vrf\": \"blue\"},"
	"             {\"prefix\": \"2001:db8:77::/48\", \"via\": \"2001:db8:2::50\", \"vrf\": \"blue\"}],"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 64,"
	"          \"ipv6_max_routes\": 4096, \"learned_neighbors_max\": 16}}";

static const struct rte_ether_addr mac_p[2] = {
	{{ 0x02, 0, 0, 0, 0x01, 0x01 }}, {{ 0x02, 0, 0, 0, 0x02, 0x01 }},
};

static struct dpr_router R;
static struct rte_mempool *pool;
static struct rte_ring *txr[2];
static struct dpr_worker *W;
static unsigned int n_phys;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
port_on_ring(unsigned int p)
{
	char name[32];

	snprintf(name, sizeof(name), "fuzz_tx%u", p);
	if (test_port_on_ring(&R, p, name, pool, &mac_p[p], &txr[p]) < 0)
		return -1;
	/* As on a NIC: the fast path trusts p0's IPv4 checksum flags. */
	R.port_dp[p].rx_ip_cksum = p == 0;
	R.ports[p].conf = &R.cfg->ports[p];
	R.port_dp[p].redirects = R.cfg->ports[p].redirects;
	return 0;
}

/* VLAN interface @p p (vlans[]) on its port, as dpr's setup_vlans() makes
 * one: in its port's VLAN map, its own MTU, tag and VRF's FIBs. */
static int
vlan_on_port(unsigned int p)
{
	const struct dpr_port_conf *pc = &R.cfg->ports[p];
	struct dpr_port_dp *parent = &R.port_dp[pc->parent];
	uint8_t *map = (uint8_t *)(uintptr_t)parent->vlan_if;

	if (map == NULL) {
		map = rte_zmalloc(NULL, DPR_VLAN_ID_MAX + 1, 0);
		if (map == NULL)
			return -1;
		parent->vlan_if = map;
	}
	if (pc->outer_id == 0)
		map[pc->vlan_id] = (uint8_t)(p + 1);
	else if (dpr_qinq_map_set(parent, pc->outer_id, pc->vlan_id, (uint8_t)(p + 1),
				  SOCKET_ID_ANY, false) < 0)
		return -1;
	dpr_port_vlan_init(&R.ports[p], &R.ports[pc->parent], pc);
	R.port_names[p] = pc->name;
	R.port_dp[p] = *parent;
	R.port_dp[p].vlan_if = NULL;
	R.port_dp[p].qinq = NULL;
	R.port_dp[p].vlan_outer = R.ports[p].vlan_outer;
	R.port_dp[p].mtu = pc->mtu;
	R.port_dp[p].vlan_tci = pc->vlan_id;
	R.port_dp[p].redirects = pc->redirects;
	R.port_dp[p].fib4 = dpr_router_port_rib(&R, p)->fib4;
	R.port_dp[p].fib6 = dpr_router_port_rib(&R, p)->fib6;
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256] = "";
	unsigned int p;

	(void)argc;
	if (test_eal_init((*argv)[0]) < 0)
		abort();
	rte_log_set_global_level(RTE_LOG_CRIT);
	pool = rte_pktmbuf_pool_create("fuzz", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || test_router_init(&R, config_text, "fuzz_dataplane") < 0)
		abort();
	n_phys = R.cfg->n_phys;
	R.n_ports = R.cfg->n_ports;
	R.n_workers = 0; /* the control thread sends on TX queue n_workers */
	R.pools[0] = pool;
	R.port_dp = rte_zmalloc(NULL, sizeof(*R.port_dp) * DPR_MAX_PORTS, 0);
	if (R.port_dp == NULL || n_phys != 2 || port_on_ring(0) < 0 || port_on_ring(1) < 0)
		abort();
	for (p = n_phys; p < R.n_ports; p++)
		if (vlan_on_port(p) < 0)
			abort();
	R.acl = dpr_acl_db_create(NULL, 1, 0);
	if (R.acl == NULL || dpr_acl_load_config(R.acl, R.cfg->acls, R.cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_dataplane: %s\n", err);
		abort();
	}
	/* Which input stages each interface runs, as dpr sets them at start. */
	dpr_router_in_stages_sync(&R);
	R.exc = dpr_exc_create(&R);
	W = rte_zmalloc(NULL, sizeof(*W), RTE_CACHE_LINE_SIZE);
	if (R.exc == NULL || W == NULL)
		abort();
	W->n_ports = (uint16_t)R.n_ports;
	W->ports = R.port_dp;
	W->fib = R.fib4;
	W->fib6 = R.fib6;
	W->nh = dpr_nh_words(R.nh);
	for (p = 0; p < 2; p++)
		W->port_index[R.port_dp[p].port_id] = (uint8_t)p;
	W->acl = dpr_acl_db_binds(R.acl);
	dpr_worker_prepare(W);
	W->exc_ring = rte_ring_create("fuzz_exc", 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (W->exc_ring == NULL)
		abort();
	return 0;
}

/* What port @p in and its VLAN interfaces accounted for. */
static uint64_t
accounted(uint16_t in)
{
	uint64_t n = 0;
	unsigned int p;

	for (p = 0; p < R.n_ports; p++) {
		const struct dpr_port_counters *c = &W->stats[p];

		if (p == in || (p >= n_phys && R.cfg->ports[p].parent == in))
			n += c->forwarded + c->exception + dpr_counters_drops(c);
	}
	return n;
}

static void
drain_tx(void)
{
	struct rte_mbuf *m[64];
	unsigned int p, n;

	for (p = 0; p < R.n_ports; p++) {
		rte_pktmbuf_free_bulk(W->tx[p].pkts, W->tx[p].n);
		W->tx[p].n = 0;
	}
	for (p = 0; p < 2; p++) {
		while ((n = rte_ring_sc_dequeue_burst(txr[p], (void **)m, RTE_DIM(m), NULL)) > 0)
			rte_pktmbuf_free_bulk(m, n);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t cksum[4] = {
		0, RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD,
		RTE_MBUF_F_RX_IP_CKSUM_NONE,
	};
	static const uint16_t stripped[4] = { 0, 100, 200, 0xa000 | 300 };
	struct rte_mbuf *pkts[DPR_BURST], *m;
	uint16_t in, rx_in, n = 0, keep;
	uint64_t before;
	size_t off = 1;

	if (size < 1)
		return 0;
	in = data[0] & 1;
	while (n < DPR_BURST && off + 2 <= size) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];
		char *d;

		off += 2;
		len = RTE_MIN(len, size - off);
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL) {
			fprintf(stderr, "fuzz_dataplane: mbuf pool empty: mbufs are lost\n");
			abort();
		}
		len = RTE_MIN(len, (size_t)rte_pktmbuf_tailroom(m));
		d = rte_pktmbuf_append(m, (uint16_t)len);
		memcpy(d, data + off, len);
		off += len;
		m->port = R.port_dp[in].port_id;
		m->ol_flags = cksum[(data[0] >> 1) & 3];
		if (data[0] & 8) {
			m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
			m->hash.rss = (uint32_t)off * 0x9e3779b9u;
		}
		if (data[0] & 0x30) {
			m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
			m->vlan_tci = stripped[(data[0] >> 4) & 3];
		}
		m->packet_type = 0;
		pkts[n++] = m;
	}
	if (n == 0)
		return 0;

	/* The rig's own map: no worker runs beside it. */
	((struct dpr_qinq_map *)(uintptr_t)R.port_dp[0].qinq)->strip = (data[0] & 0x40) != 0;
	before = accounted(in);
	/* As the worker: a burst all of one VLAN interface goes on as its,
	 * a mixed one is split, the VLAN interfaces' frames first; then
	 * the input ACL and the rest. */
	rx_in = in;
	keep = dpr_input_stages_burst(W, &rx_in, pkts, n);
	if (keep > 0)
		dpr_ip4_input_burst(W, rx_in, pkts, keep);
	if (accounted(in) - before != n) {
		fprintf(stderr, "fuzz_dataplane: %u frames in, %llu accounted for\n", n,
			(unsigned long long)(accounted(in) - before));
		abort();
	}
	drain_tx();
	/* The control thread's turn: what the worker diverted. */
	while (rte_ring_sc_dequeue(W->exc_ring, (void **)&m) == 0)
		dpr_exc_input(R.exc, m);
	drain_tx();
	return 0;
}
