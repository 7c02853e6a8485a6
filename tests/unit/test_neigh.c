/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour resolution (lib/neigh, with lib/exception) where VRFs and
 * interfaces that come and go meet it: one address in two VRFs names two
 * hosts, each resolved on its own port; a VLAN interface deleted while
 * packets that came in on it wait for a neighbour. Four ports whose TX
 * queues are rings the test reads; packets go in as a worker hands them
 * over (hash.usr: class and input port).
 *
 * default: p0 10.0.1.1/24, p1 10.0.2.1/24 (static neighbour 10.0.2.2),
 *          10.0.9.0/24 via 10.0.2.2
 * red:     p2 10.0.1.1/24, p3 10.0.9.1/24 (static neighbour 10.0.9.2)
 * both:    198.51.100.0/24 via 10.0.1.50, 203.0.113.0/24 via 10.0.1.60
 *          (unresolved: 10.0.1.50 in the default VRF is on p0, in red on p2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "api/rpc.h"
#include "clock_skew.h"
#include "config/config.h"
#include "datapath/datapath.h"
#include "exception/exception.h"
#include "exception/packet.h"
#include "rig.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

#define POOL_SIZE 2047
#define N_PORTS 4

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"mac\": \"02:00:00:00:02:01\","
	"  \"addresses\": [\"10.0.2.1/24\"]},"
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"mac\": \"02:00:00:00:03:01\", \"vrf\": \"red\","
	"  \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p3\", \"device\": \"net_null3\", \"mac\": \"02:00:00:00:04:01\", \"vrf\": \"red\","
	"  \"addresses\": [\"10.0.9.1/24\"]}],"
	" \"vrfs\": [{\"name\": \"red\", \"table\": 100}],"
	" \"neighbors\": [{\"address\": \"10.0.2.2\", \"mac\": \"02:00:00:00:02:02\", \"port\": \"p1\"},"
	"                {\"address\": \"10.0.9.2\", \"mac\": \"02:00:00:00:04:02\", \"port\": \"p3\"}],"
	" \"routes\": [{\"prefix\": \"10.0.9.0/24\", \"via\": \"10.0.2.2\"},"
	"             {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.1.50\"},"
	"             {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.1.50\", \"vrf\": \"red\"},"
	"             {\"prefix\": \"203.0.113.0/24\", \"via\": \"10.0.1.60\"},"
	"             {\"prefix\": \"203.0.113.0/24\", \"via\": \"10.0.1.60\", \"vrf\": \"red\"}],"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 64, \"learned_neighbors_max\": 8}}";

static const struct rte_ether_addr mac_p[N_PORTS] = {
	{{ 0x02, 0, 0, 0, 0x01, 0x01 }}, {{ 0x02, 0, 0, 0, 0x02, 0x01 }},
	{{ 0x02, 0, 0, 0, 0x03, 0x01 }}, {{ 0x02, 0, 0, 0, 0x04, 0x01 }},
};

static struct dpr_router R;
static struct rte_mempool *pool;
static struct rte_ring *txr[N_PORTS];

static void
clock_forward_ms(uint64_t ms)
{
	clock_skew_ns += ms * 1000000u;
}

/* The control thread's timers over @p ms, a tick (100 ms) at a time. */
static void
timers_for_ms(unsigned int ms)
{
	unsigned int t;

	for (t = 0; t < ms; t += 100) {
		clock_forward_ms(100);
		dpr_exc_timers(R.exc);
	}
}

static struct rte_ether_addr
host_mac(uint32_t ip)
{
	struct rte_ether_addr m = {{ 0x02, 0xaa, (uint8_t)(ip >> 24), (uint8_t)(ip >> 16),
				     (uint8_t)(ip >> 8), (uint8_t)ip }};
	return m;
}

/* An IPv4/UDP frame from @p src to @p dst, TTL @p ttl. */
static struct rte_mbuf *
mk_ip4(uint32_t src, uint32_t dst, uint8_t ttl)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;

	eth = m == NULL ? NULL : (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eth) + sizeof(*ip) + 32);
	if (eth == NULL) {
		fprintf(stderr, "test_neigh: mbuf pool exhausted\n");
		abort();
	}
	memset(eth, 0, sizeof(*eth) + sizeof(*ip) + 32);
	eth->src_addr = host_mac(src);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + 32);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

/* Hand @p m to the exception path as a worker would. */
static void
inject(struct rte_mbuf *m, enum dpr_exc cls, uint16_t in, uint32_t arg)
{
	m->hash.usr = DPR_EXC_META(cls, in);
	DPR_EXC_ARG(m) = arg;
	dpr_exc_input(R.exc, m);
}

/* A packet from @p src on @p in to @p dst, whose next hop in @p in's VRF
 * has no MAC (as a worker hands it over). */
static void
unresolved_in(uint16_t in, uint32_t src, uint32_t dst)
{
	uint32_t nh = dpr_fib4_lookup(dpr_router_port_rib(&R, in)->fib4, dst);

	inject(mk_ip4(src, dst, 64), DPR_EXC_UNRESOLVED, in, nh);
}

/* An ARP reply from @p ip (MAC host_mac(ip)) to our @p target on @p in. */
static void
arp_reply_in(uint16_t in, uint32_t ip, uint32_t target)
{
	struct dpr_arp a = { .op = RTE_ARP_OP_REPLY, .sha = host_mac(ip), .sip = ip,
			     .tip = target, .tha = mac_p[in] };

	inject(dpr_arp_build(pool, &a, &mac_p[in]), DPR_EXC_ARP, in, 0);
}

/* What port @p p sent since it was last read, up to @p max packets. */
static unsigned int
sent(unsigned int p, struct rte_mbuf **out, unsigned int max)
{
	return rte_ring_sc_dequeue_burst(txr[p], (void **)out, max, NULL);
}

static void
drop_sent(void)
{
	struct rte_mbuf *m[64];
	unsigned int p, n;

	for (p = 0; p < N_PORTS; p++)
		while ((n = sent(p, m, RTE_DIM(m))) > 0)
			rte_pktmbuf_free_bulk(m, n);
}

/* What port @p p sent since it was last read (all freed). */
struct seen {
	unsigned int n;        /**< packets */
	unsigned int arp_for;  /**< ARP requests for the address asked about */
	unsigned int udp_to;   /**< UDP packets to the address asked about */
	unsigned int unreach;  /**< ICMP host unreachable errors */
	struct rte_ether_addr udp_dmac; /**< the last UDP packet's destination MAC */
	uint8_t udp_ttl;
};

static struct seen
seen_on(unsigned int p, uint32_t arp_ip, uint32_t udp_dst)
{
	struct seen s = { 0 };
	struct rte_mbuf *m[64];
	unsigned int n, i;
	struct dpr_arp a;

	while ((n = sent(p, m, RTE_DIM(m))) > 0) {
		for (i = 0; i < n; i++) {
			const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m[i], const struct rte_ether_hdr *);
			const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
			const struct rte_icmp_hdr *ic = (const struct rte_icmp_hdr *)(ip + 1);

			s.n++;
			if (dpr_arp_parse(m[i], &a) == 0) {
				s.arp_for += a.op == RTE_ARP_OP_REQUEST && a.tip == arp_ip;
				continue;
			}
			if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
				continue;
			if (ip->next_proto_id == IPPROTO_UDP &&
			    rte_be_to_cpu_32(ip->dst_addr) == udp_dst) {
				s.udp_to++;
				s.udp_dmac = eth->dst_addr;
				s.udp_ttl = ip->time_to_live;
			} else if (ip->next_proto_id == IPPROTO_ICMP &&
				   ic->icmp_type == DPR_ICMP_DEST_UNREACH &&
				   ic->icmp_code == DPR_ICMP_UNREACH_HOST) {
				s.unreach++;
			}
		}
		rte_pktmbuf_free_bulk(m, n);
	}
	return s;
}

static uint64_t
exc_counter(const char *name)
{
	json_t *o = dpr_exc_stats_json(R.exc);
	uint64_t v = (uint64_t)json_integer_value(json_object_get(o, name));

	json_decref(o);
	return v;
}

static unsigned int
pool_in_use(void)
{
	return POOL_SIZE - rte_mempool_avail_count(pool);
}

/* The neighbour module's side tables agree with the next-hop table. */
static void
neigh_ok(const char *step)
{
	char err[160] = "";

	CHECK(dpr_neigh_check(R.neigh, err, sizeof(err)) == 0, "after %s: %s", step, err);
}

/* A JSON-RPC request: whether it succeeded. */
static bool
rpc(const char *method, const char *params)
{
	char text[512], *out;
	json_t *j;
	bool ok;

	snprintf(text, sizeof(text), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}",
		 method, params);
	out = dpr_rpc_handle_text(&R, text, strlen(text));
	j = out != NULL ? json_loads(out, 0, NULL) : NULL;
	ok = j != NULL && json_object_get(j, "result") != NULL;
	if (!ok)
		fprintf(stderr, "rpc %s -> %s\n", text, out != NULL ? out : "(null)");
	json_decref(j);
	free(out);
	return ok;
}

/*
 * Gateway 10.0.1.60 in the default VRF (on p0) gives no answer: its
 * resolution fails, and for 5 s its packets are answered host unreachable
 * at once. Red's 10.0.1.60 (on p2) is another host: red's packet asks for
 * it on p2 and leaves when it answers, whatever the default VRF's failed.
 */
static void
test_failure_is_per_vrf(void)
{
	const struct rte_ether_addr mac = host_mac(IP(10, 0, 1, 60));
	struct seen s0, s1, s2, s3;

	drop_sent();
	unresolved_in(1, IP(10, 0, 2, 2), IP(203, 0, 113, 7));
	s0 = seen_on(0, IP(10, 0, 1, 60), 0);
	s2 = seen_on(2, IP(10, 0, 1, 60), 0);
	CHECK(s0.arp_for == 1 && s2.n == 0, "the default VRF asks for 10.0.1.60 on p0 (%u), not p2 (%u)",
	      s0.arp_for, s2.n);
	timers_for_ms(3500);
	s0 = seen_on(0, IP(10, 0, 1, 60), 0);
	s1 = seen_on(1, 0, 0);
	CHECK(s0.arp_for == 2 && s1.unreach == 1,
	      "2 more ARP requests on p0 (%u), then host unreachable to 10.0.2.2 (%u)", s0.arp_for,
	      s1.unreach);

	unresolved_in(3, IP(10, 0, 9, 2), IP(203, 0, 113, 7));
	s2 = seen_on(2, IP(10, 0, 1, 60), 0);
	s3 = seen_on(3, 0, 0);
	CHECK(s2.arp_for == 1 && s3.unreach == 0,
	      "red asks for its own 10.0.1.60 on p2 (%u), no host unreachable to 10.0.9.2 (%u)",
	      s2.arp_for, s3.unreach);
	arp_reply_in(2, IP(10, 0, 1, 60), IP(10, 0, 1, 1));
	s2 = seen_on(2, 0, IP(203, 0, 113, 7));
	CHECK(s2.udp_to == 1 && rte_is_same_ether_addr(&s2.udp_dmac, &mac) && s2.udp_ttl == 63,
	      "red's packet leaves on p2 for red's 10.0.1.60 (%u)", s2.udp_to);
	neigh_ok("red's answer");

	/* The default VRF's failure stands. */
	unresolved_in(1, IP(10, 0, 2, 2), IP(203, 0, 113, 8));
	s0 = seen_on(0, IP(10, 0, 1, 60), 0);
	s1 = seen_on(1, 0, 0);
	CHECK(s0.n == 0 && s1.unreach == 1, "the default VRF's next packet: host unreachable (%u, %u on p0)",
	      s1.unreach, s0.n);
	timers_for_ms(6000);
	drop_sent();
}

/*
 * Both VRFs resolve their own 10.0.1.50 at once: each asks on its own
 * port, red's answer sends red's packet only, and the default VRF's
 * failure answers the default VRF's packet only.
 */
static void
test_same_address_two_vrfs(void)
{
	const struct rte_ether_addr mac = host_mac(IP(10, 0, 1, 50));
	uint64_t failed = exc_counter("resolve_failed");
	struct seen s0, s1, s2, s3;

	drop_sent();
	unresolved_in(1, IP(10, 0, 2, 2), IP(198, 51, 100, 7));
	unresolved_in(3, IP(10, 0, 9, 2), IP(198, 51, 100, 7));
	s0 = seen_on(0, IP(10, 0, 1, 50), 0);
	s2 = seen_on(2, IP(10, 0, 1, 50), 0);
	CHECK(s0.arp_for == 1 && s2.arp_for == 1,
	      "each VRF asks for its 10.0.1.50 on its port: p0 %u, p2 %u", s0.arp_for, s2.arp_for);

	arp_reply_in(2, IP(10, 0, 1, 50), IP(10, 0, 1, 1));
	s0 = seen_on(0, 0, IP(198, 51, 100, 7));
	s1 = seen_on(1, 0, IP(198, 51, 100, 7));
	s2 = seen_on(2, 0, IP(198, 51, 100, 7));
	CHECK(s2.udp_to == 1 && rte_is_same_ether_addr(&s2.udp_dmac, &mac),
	      "red's packet leaves on p2 (%u)", s2.udp_to);
	CHECK(s0.udp_to == 0 && s1.udp_to == 0,
	      "the default VRF's packet waits for its own 10.0.1.50 (sent on p0 %u, p1 %u)",
	      s0.udp_to, s1.udp_to);
	neigh_ok("red's answer");

	timers_for_ms(3500);
	s1 = seen_on(1, 0, 0);
	s3 = seen_on(3, 0, 0);
	CHECK(s1.unreach == 1 && s3.unreach == 0,
	      "the default VRF's failure: host unreachable to 10.0.2.2 (%u), none to red's 10.0.9.2 (%u)",
	      s1.unreach, s3.unreach);
	CHECK_EQ(exc_counter("resolve_failed"), failed + 1);
	timers_for_ms(6000);
	drop_sent();
	neigh_ok("the failure forgotten");
}

/*
 * A packet that came in on red VLAN interface p0.100 waits for red's
 * 10.0.9.5 (on p3), and an ICMP error the router sends out of p0.100 for
 * 10.0.7.6's MAC, when vlan.del p0.100 comes. Both go with the interface,
 * never sent. The answer that comes after must not send the
 * first by the default VRF (which the freed slot has then: 10.0.9.0/24
 * via 10.0.2.2 on p1) nor by red's; 10.0.7.6 is not asked for any more.
 */
static void
test_held_after_vlan_del(void)
{
	uint64_t gone = exc_counter("held_iface_deleted");
	unsigned int base = pool_in_use();
	struct seen s1, s3;
	int p;

	drop_sent();
	CHECK(rpc("vlan.add", "{\"name\":\"p0.100\",\"port\":\"p0\",\"id\":100,\"vrf\":\"red\","
		  "\"tap\":false,\"addresses\":[\"10.0.7.1/24\"]}"), "vlan.add p0.100");
	p = dpr_config_port_index(R.cfg, "p0.100");
	CHECK(p >= N_PORTS && dpr_router_port_vrf(&R, (unsigned int)p) == 1,
	      "p0.100 is in red (slot %d)", p);
	if (p < N_PORTS)
		return;
	unresolved_in((uint16_t)p, IP(10, 0, 7, 5), IP(10, 0, 9, 5));
	s3 = seen_on(3, IP(10, 0, 9, 5), 0);
	CHECK_EQ(s3.arp_for, 1);
	inject(mk_ip4(IP(10, 0, 7, 6), IP(10, 0, 9, 6), 1), DPR_EXC_TTL_EXPIRED, (uint16_t)p, 0);
	drop_sent(); /* the ARP request for 10.0.7.6, tagged, on p0 */
	CHECK_EQ(pool_in_use(), base + 2);

	CHECK(rpc("vlan.del", "{\"name\":\"p0.100\"}"), "vlan.del p0.100");
	CHECK_EQ(dpr_router_port_vrf(&R, (unsigned int)p), 0);
	/* The error for 10.0.7.6 went with 10.0.7.0/24 (vlan.del deletes
	 * the interface's addresses first): the transit packet is left. */
	CHECK_EQ(exc_counter("held_iface_deleted"), gone + 1);
	CHECK_EQ(pool_in_use(), base);
	neigh_ok("vlan.del");

	arp_reply_in(3, IP(10, 0, 9, 5), IP(10, 0, 9, 1));
	s1 = seen_on(1, 0, IP(10, 0, 9, 5));
	s3 = seen_on(3, 0, IP(10, 0, 9, 5));
	CHECK(s1.udp_to == 0 && s3.udp_to == 0,
	      "the packet from p0.100 is not sent once red's 10.0.9.5 answers (p1 %u, p3 %u)",
	      s1.udp_to, s3.udp_to);
	/* Nor is 10.0.7.6 asked for again, out of a freed slot. */
	CHECK_EQ(exc_counter("resolving"), 0);
	neigh_ok("the answer after vlan.del");
	drop_sent();
}

static int
port_on_ring(unsigned int p)
{
	char name[32];

	snprintf(name, sizeof(name), "test_neigh_tx%u", p);
	return test_port_on_ring(&R, p, name, pool, &mac_p[p], &txr[p]);
}

/*
 * A host on a connected subnet whose next hop is resolved (it is a
 * gateway too) but whose host route is not in the FIB (refused when the
 * FIB had no room: learn_refused): the FIB leads a packet for it to the
 * subnet, unresolved; holding it finds the host resolved. It leaves by
 * the host's MAC, where it used to be routed again to the same subnet,
 * held again, and so on until the control thread's stack ran out.
 */
static void
test_resolved_host_without_route(void)
{
	const uint32_t gw = IP(10, 0, 1, 60);
	struct dpr_fib4_op op = { .ip = gw, .depth = 32, .del = 1 };
	struct rte_ether_addr want = host_mac(gw);
	struct seen s;
	int err = 0;

	drop_sent();
	/* 10.0.1.60, 203.0.113.0/24's gateway, resolved for a packet there. */
	unresolved_in(1, IP(10, 0, 2, 9), IP(203, 0, 113, 5));
	arp_reply_in(0, gw, IP(10, 0, 1, 1));
	drop_sent();
	CHECK(dpr_fib4_update(R.rib.fib4, &op, 1, &err) == 1,
	      "10.0.1.60/32 out of the FIB, as if refused (err %d)", err);
	CHECK(dpr_fib4_lookup(R.rib.fib4, gw) != dpr_fib4_lookup(R.rib.fib4, IP(203, 0, 113, 5)),
	      "the FIB leads 10.0.1.60 to its subnet, not the gateway's next hop");
	unresolved_in(1, IP(10, 0, 2, 9), gw);
	s = seen_on(0, gw, gw);
	CHECK(s.udp_to == 1 && rte_is_same_ether_addr(&s.udp_dmac, &want) && s.arp_for == 0,
	      "the packet for the resolved host left p0 to its MAC (%u, %u ARP)", s.udp_to,
	      s.arp_for);
	op.del = 0;
	op.nh = dpr_fib4_lookup(R.rib.fib4, IP(203, 0, 113, 5));
	CHECK_EQ(dpr_fib4_update(R.rib.fib4, &op, 1, &err), 1u);
	neigh_ok("a resolved host without its host route");
	drop_sent();
}

int
main(int argc, char **argv)
{
	static struct dpr_port_dp dp[DPR_MAX_PORTS];
	unsigned int p;

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	pool = rte_pktmbuf_pool_create("test_neigh", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || test_router_init(&R, config_text, "test_neigh") < 0)
		return EXIT_FAILURE;
	R.n_ports = N_PORTS;
	R.n_workers = 0;
	R.pools[0] = pool;
	R.port_dp = dp;
	if (port_on_ring(0) < 0 || port_on_ring(1) < 0 || port_on_ring(2) < 0 ||
	    port_on_ring(3) < 0)
		return EXIT_FAILURE;
	/* vlan.add and vlan.del change the interface table: the live one. */
	R.conf = (struct dpr_config *)(uintptr_t)R.cfg;
	for (p = 0; p < R.n_ports; p++)
		R.ports[p].conf = &R.cfg->ports[p];
	R.exc = dpr_exc_create(&R);
	if (R.exc == NULL)
		return EXIT_FAILURE;

	test_failure_is_per_vrf();
	test_same_address_two_vrfs();
	test_held_after_vlan_del();
	test_resolved_host_without_route();

	drop_sent();
	dpr_exc_free(R.exc);
	test_router_free(&R);
	return test_done("test_neigh");
}
