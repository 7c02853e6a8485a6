/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's side of the exception path (lib/exception with
 * lib/neigh) on a router built here: two ports whose TX queues are rings
 * the test reads, so every check is about what the router sends (or does
 * not), byte for byte, and about mbufs coming back to the pool. Packets go
 * in as a worker would hand them over (hash.usr: class and input port).
 *
 * p0 10.0.1.1/24 (02:00:00:00:01:01)   p1 10.0.2.1/24 (02:00:00:00:02:01),
 * p1's MTU 1000, broadcast_echo and forward_directed_broadcast on; static neighbour 10.0.1.2 on p0;
 * 192.0.2.0/24 via 10.0.1.2; 198.51.100.0/24 via 10.0.2.50 (unresolved);
 * p2 10.0.5.1/24 (neighbor_learning ignore_gratuitous), p3 10.0.6.1/24
 * (static_only, static neighbour 10.0.6.2), 203.0.113.0/24 via 10.0.6.9.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "acl/acl.h"
#include "acl/acl_dp.h"
#include "clock_skew.h"
#include "config/config.h"
#include "datapath/datapath.h"
#include "exception/exc_internal.h"
#include "exception/exception.h"
#include "exception/ip4_options.h"
#include "exception/packet.h"
#include "rig.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static void
clock_forward_ms(uint64_t ms)
{
	clock_skew_ns += ms * 1000000u;
}
#define LEARNED_MAX 8
#define POOL_SIZE 2047

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"mac\": \"02:00:00:00:02:01\","
	"  \"addresses\": [\"10.0.2.1/24\"], \"mtu\": 1000, \"broadcast_echo\": true,"
	"  \"forward_directed_broadcast\": true},"
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"mac\": \"02:00:00:00:05:01\","
	"  \"addresses\": [\"10.0.5.1/24\"], \"neighbor_learning\": \"ignore_gratuitous\"},"
	" {\"name\": \"p3\", \"device\": \"net_null3\", \"mac\": \"02:00:00:00:06:01\","
	"  \"addresses\": [\"10.0.6.1/24\"], \"neighbor_learning\": \"static_only\"}],"
	" \"neighbors\": [{\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"},"
	"                {\"address\": \"10.0.6.2\", \"mac\": \"02:00:00:00:06:02\", \"port\": \"p3\"}],"
	" \"routes\": [{\"prefix\": \"192.0.2.0/24\", \"via\": \"10.0.1.2\"},"
	"             {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.50\"},"
	"             {\"prefix\": \"203.0.113.0/24\", \"via\": \"10.0.6.9\"}],"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 64, \"learned_neighbors_max\": 8}}";

#define N_PORTS 4
static const struct rte_ether_addr mac_p[N_PORTS] = {
	{{ 0x02, 0, 0, 0, 0x01, 0x01 }}, {{ 0x02, 0, 0, 0, 0x02, 0x01 }},
	{{ 0x02, 0, 0, 0, 0x05, 0x01 }}, {{ 0x02, 0, 0, 0, 0x06, 0x01 }},
};
static const struct rte_ether_addr mac_h1 = {{ 0x02, 0, 0, 0, 0x01, 0x02 }};
static const struct rte_ether_addr mac_bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};

static struct dpr_router R;
static struct rte_mempool *pool;
static struct rte_ring *txr[N_PORTS];

static struct rte_ether_addr
host_mac(uint32_t ip)
{
	struct rte_ether_addr m = {{ 0x02, 0xaa, (uint8_t)(ip >> 24), (uint8_t)(ip >> 16),
				     (uint8_t)(ip >> 8), (uint8_t)ip }};
	return m;
}

/* An IPv4/UDP frame to @p dmac, @p opt_len bytes of options from @p opt,
 * @p payload bytes of data (i & 0xff), @p trailer bytes after the packet. */
static struct rte_mbuf *
mk_ip4(const struct rte_ether_addr *dmac, uint32_t src, uint32_t dst, uint8_t ttl,
       const uint8_t *opt, unsigned int opt_len, unsigned int payload, unsigned int trailer)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	unsigned int hlen = sizeof(struct rte_ipv4_hdr) + opt_len, i;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	uint8_t *d;

	eth = m == NULL ? NULL : (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eth) + hlen + payload + trailer);
	if (eth == NULL) {
		fprintf(stderr, "test_exception: mbuf pool exhausted\n");
		abort();
	}
	memset(eth, 0, sizeof(*eth) + hlen);
	eth->dst_addr = *dmac;
	eth->src_addr = mac_h1;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = (uint8_t)(0x40 | (hlen / 4));
	ip->total_length = rte_cpu_to_be_16((uint16_t)(hlen + payload));
	ip->packet_id = rte_cpu_to_be_16(0x4242);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	if (opt_len > 0)
		memcpy(ip + 1, opt, opt_len);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	d = (uint8_t *)ip + hlen;
	for (i = 0; i < payload; i++)
		d[i] = (uint8_t)i;
	memset(d + payload, 0xee, trailer);
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

/* An ARP packet from @p ip, MAC @p mac, arriving on @p in. */
static void
arp_in_mac(uint16_t in, uint16_t op, uint32_t ip, uint32_t target,
	   const struct rte_ether_addr *mac)
{
	struct dpr_arp a = { .op = op, .sha = *mac, .sip = ip, .tip = target };
	struct rte_mbuf *m;

	if (op == RTE_ARP_OP_REPLY)
		a.tha = mac_p[in];
	m = dpr_arp_build(pool, &a, op == RTE_ARP_OP_REPLY ? &mac_p[in] : &mac_bcast);

	inject(m, DPR_EXC_ARP, in, 0);
}

/* An ARP packet from @p ip (MAC host_mac(ip)) arriving on @p in. */
static void
arp_in(uint16_t in, uint16_t op, uint32_t ip, uint32_t target)
{
	struct rte_ether_addr mac = host_mac(ip);

	arp_in_mac(in, op, ip, target, &mac);
}

/* What port @p p sent since the last call, up to @p max packets. */
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

static const struct rte_ether_hdr *
eth_of(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
}

static const struct rte_ipv4_hdr *
ip_of(const struct rte_mbuf *m)
{
	return (const struct rte_ipv4_hdr *)(eth_of(m) + 1);
}

static bool
is_arp_request_for(const struct rte_mbuf *m, uint32_t ip)
{
	struct dpr_arp a;

	return dpr_arp_parse(m, &a) == 0 && a.op == RTE_ARP_OP_REQUEST && a.tip == ip;
}

static const struct rte_icmp_hdr *
icmp_of(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = ip_of(m);

	if (eth_of(m)->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    ip->next_proto_id != IPPROTO_ICMP)
		return NULL;
	return (const struct rte_icmp_hdr *)((const uint8_t *)ip + (ip->version_ihl & 0xf) * 4);
}

static unsigned int
pool_in_use(void)
{
	return POOL_SIZE - rte_mempool_avail_count(pool);
}

static uint32_t
nh_of(uint32_t ip)
{
	return dpr_fib4_lookup(R.fib4, ip);
}

static uint64_t
exc_counter(const char *name)
{
	json_t *o = dpr_exc_stats_json(R.exc);
	uint64_t v = (uint64_t)json_integer_value(json_object_get(o, name));

	json_decref(o);
	return v;
}

/* The neighbour module's side tables agree with the next-hop table. */
static void
neigh_ok(const char *step)
{
	char err[160] = "";

	CHECK(dpr_neigh_check(R.neigh, err, sizeof(err)) == 0, "after %s: %s", step, err);
}

/* Point 198.51.100.0/24 at gateway @p gw (route.replace). */
static void
route_via(uint32_t gw)
{
	struct dpr_ip a = { .af = DPR_AF_IP4, .ip4 = gw };
	struct dpr_fib4_op op = { .ip = IP(198, 51, 100, 0), .depth = 24 };
	int idx = dpr_nh_get(R.nh, &a, 1);

	CHECK(idx >= 0, "next hop for the gateway");
	op.nh = (uint32_t)idx;
	CHECK_EQ(dpr_route4_apply(R.fib4, R.nh, &op, 1, &(int){ 0 }), 1);
}

/*
 * Packets held for one gateway whose route moves to another unresolved
 * gateway before the first answers: all of them wait for the second one,
 * then leave with its MAC, and no mbuf is lost (the hold queue being
 * emptied must not be the one refilled).
 */
static void
test_hold_queue_reuse(void)
{
	struct rte_mbuf *out[16];
	struct rte_ether_addr gw2 = host_mac(IP(10, 0, 2, 60));
	unsigned int base = pool_in_use(), n, i, ok = 0;

	drop_sent();
	for (i = 0; i < 4; i++)
		inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, NULL, 0, 32, 0),
		       DPR_EXC_UNRESOLVED, 0, nh_of(IP(198, 51, 100, 7)));
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 50)), "ARP for 10.0.2.50 on p1");
	rte_pktmbuf_free_bulk(out, n);

	route_via(IP(10, 0, 2, 60));
	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 50), IP(10, 0, 2, 1));
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 60)),
	      "the released packets ask for 10.0.2.60 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(pool_in_use(), base + 4); /* all four held again */

	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 60), IP(10, 0, 2, 1));
	n = sent(1, out, RTE_DIM(out));
	for (i = 0; i < n; i++)
		ok += rte_is_same_ether_addr(&eth_of(out[i])->dst_addr, &gw2) &&
			ip_of(out[i])->time_to_live == 63;
	CHECK(n == 4 && ok == 4, "all 4 held packets leave for 10.0.2.60 (%u sent, %u right)", n, ok);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(pool_in_use(), base);
	route_via(IP(10, 0, 2, 50));
}

static union dpr_nh_word
word_of(uint32_t ip)
{
	int idx = dpr_nh_find(R.nh, &(struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = ip });

	return idx < 0 ? (union dpr_nh_word){ .u64 = 0 } : dpr_nh_word_get(R.nh, (uint32_t)idx);
}

static bool
resolved_to(uint32_t ip, const struct rte_ether_addr *mac)
{
	union dpr_nh_word w = word_of(ip);

	return w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, mac);
}

static void
forget_ip(uint32_t ip)
{
	dpr_neigh_del(R.neigh, &(struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = ip }, -1);
	neigh_ok("neigh.del");
}

/*
 * dpr issue 50 case 6, as Linux does by default: entries come from
 * requests for our addresses and answers to our own requests, never from
 * unsolicited replies or gratuitous ARP; a known MAC changes, but not
 * twice within the lock time (1 s). Per port, ignore_gratuitous ignores
 * gratuitous ARP and replies nobody asked for altogether; static_only
 * learns nothing and asks for nothing.
 */
static void
test_arp_learning_policy(void)
{
	const struct rte_ether_addr evil = {{ 0x02, 0xee, 0, 0, 0, 0x01 }};
	const struct rte_ether_addr h62 = host_mac(IP(10, 0, 1, 62));
	const struct rte_ether_addr h7 = host_mac(IP(10, 0, 5, 7));
	uint64_t locked = exc_counter("neighbor_mac_change_locked");
	uint64_t changed = exc_counter("neighbor_mac_changed");
	uint64_t ignored = exc_counter("neighbor_ignored");
	struct rte_mbuf *out[8];
	const struct rte_icmp_hdr *ic;
	unsigned int n;

	drop_sent();
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 60), IP(10, 0, 1, 1));
	CHECK(word_of(IP(10, 0, 1, 60)).kind == 0,
	      "an ARP reply nobody asked for creates no entry");
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 61), IP(10, 0, 1, 61));
	CHECK(word_of(IP(10, 0, 1, 61)).kind == 0, "a gratuitous ARP creates no entry");
	neigh_ok("unsolicited ARP");
	/* A gateway nobody has asked for yet is not given to whoever claims it. */
	route_via(IP(10, 0, 2, 70));
	arp_in_mac(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 70), IP(10, 0, 2, 1), &evil);
	CHECK(dpr_nh_word_get(R.nh, nh_of(IP(198, 51, 100, 1))).kind == DPR_NH_KIND_UNRESOLVED,
	      "an unsolicited ARP reply does not resolve a gateway");
	route_via(IP(10, 0, 2, 50));
	neigh_ok("gateway back");

	/* Learned from its request for us; then another MAC claims it at once. */
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 62), IP(10, 0, 1, 1));
	CHECK(resolved_to(IP(10, 0, 1, 62), &h62), "a request for us creates the entry");
	arp_in_mac(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 62), IP(10, 0, 1, 1), &evil);
	CHECK(resolved_to(IP(10, 0, 1, 62), &h62),
	      "another MAC within the lock time does not replace it");
	CHECK_EQ(exc_counter("neighbor_mac_change_locked"), locked + 1);
	/* On p2 (ignore_gratuitous), the same. */
	arp_in(2, RTE_ARP_OP_REQUEST, IP(10, 0, 5, 7), IP(10, 0, 5, 1));
	CHECK(resolved_to(IP(10, 0, 5, 7), &h7), "p2: a request for us creates the entry");
	neigh_ok("learned two");
	drop_sent();

	/* Past the lock time. */
	clock_forward_ms(1100);
	arp_in_mac(2, RTE_ARP_OP_REQUEST, IP(10, 0, 5, 7), IP(10, 0, 5, 7), &evil);
	arp_in_mac(2, RTE_ARP_OP_REPLY, IP(10, 0, 5, 7), IP(10, 0, 5, 1), &evil);
	CHECK(resolved_to(IP(10, 0, 5, 7), &h7),
	      "p2 ignores a gratuitous ARP and an unsolicited reply with another MAC");
	CHECK_EQ(exc_counter("neighbor_ignored"), ignored + 2);
	arp_in_mac(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 62), IP(10, 0, 1, 1), &evil);
	CHECK(resolved_to(IP(10, 0, 1, 62), &evil),
	      "p0 (learn, as Linux): past the lock time another MAC replaces it");
	CHECK_EQ(exc_counter("neighbor_mac_changed"), changed + 1);
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 62), IP(10, 0, 1, 1));
	CHECK(resolved_to(IP(10, 0, 1, 62), &evil), "and is not replaced again at once");
	arp_in_mac(2, RTE_ARP_OP_REQUEST, IP(10, 0, 5, 7), IP(10, 0, 5, 1), &evil);
	CHECK(resolved_to(IP(10, 0, 5, 7), &evil),
	      "p2: a request for us still changes it past the lock time");
	neigh_ok("MAC changes");
	forget_ip(IP(10, 0, 1, 62));
	forget_ip(IP(10, 0, 5, 7));

	/* p3, static_only: answered, not learned; nothing asked for. */
	drop_sent();
	arp_in(3, RTE_ARP_OP_REQUEST, IP(10, 0, 6, 20), IP(10, 0, 6, 1));
	n = sent(3, out, RTE_DIM(out));
	CHECK_EQ(n, 1);
	rte_pktmbuf_free_bulk(out, n);
	CHECK(word_of(IP(10, 0, 6, 20)).kind == 0, "static_only: a request for us learns nothing");
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(203, 0, 113, 5), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh_of(IP(203, 0, 113, 5)));
	CHECK_EQ(sent(3, out, RTE_DIM(out)), 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_DEST_UNREACH &&
	      ic->icmp_code == DPR_ICMP_UNREACH_HOST,
	      "static_only: no ARP for 10.0.6.9, host unreachable at once (%u sent on p0)", n);
	rte_pktmbuf_free_bulk(out, n);
	neigh_ok("static_only");
}

/*
 * RFC 5227 2.4: a host claiming one of our addresses is counted and logged,
 * and the address defended with one ARP announcement, at most once per
 * DEFEND_INTERVAL (10 s).
 */
static void
test_address_conflict(void)
{
	const struct rte_ether_addr evil = {{ 0x02, 0xee, 0, 0, 0, 0x02 }};
	uint64_t conflicts = exc_counter("address_conflicts");
	uint64_t defended = exc_counter("address_defended");
	struct rte_mbuf *out[8];
	struct dpr_arp a;
	unsigned int n;

	drop_sent();
	arp_in_mac(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 1), IP(10, 0, 1, 1), &evil);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && dpr_arp_parse(out[0], &a) == 0 && a.op == RTE_ARP_OP_REQUEST &&
	      a.sip == IP(10, 0, 1, 1) && a.tip == IP(10, 0, 1, 1) &&
	      rte_is_same_ether_addr(&a.sha, &mac_p[0]) &&
	      rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &mac_bcast),
	      "RFC 5227 2.4 (c): one ARP announcement of 10.0.1.1 with p0's MAC (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("address_conflicts"), conflicts + 1);
	CHECK_EQ(exc_counter("address_defended"), defended + 1);
	arp_in_mac(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 1), IP(10, 0, 1, 9), &evil);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(exc_counter("address_conflicts"), conflicts + 2);
	CHECK_EQ(exc_counter("address_defended"), defended + 1);
	neigh_ok("address conflict");
}

/*
 * The learned budget counts neighbours that nothing but their host route
 * holds: a learned host made a gateway leaves it, and joins it again when
 * the route goes; a gateway resolved by ARP joins it when its route goes.
 */
static void
test_budget_gateways(void)
{
	uint32_t base = dpr_neigh_learned(R.neigh);
	struct dpr_ip g63 = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 63) };
	struct dpr_ip g64 = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 64) };
	struct dpr_fib4_op op = { .ip = IP(100, 64, 0, 0), .depth = 16 };
	struct dpr_fib4_op op2 = { .ip = IP(100, 65, 0, 0), .depth = 16 };
	struct dpr_fib4_op del;
	int idx;

	drop_sent();
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 63), IP(10, 0, 1, 1));
	CHECK_EQ(dpr_neigh_learned(R.neigh), base + 1);
	idx = dpr_nh_get(R.nh, &g63, 0);
	op.nh = (uint32_t)idx;
	CHECK_EQ(dpr_route4_apply(R.fib4, R.nh, &op, 1, &(int){ 0 }), 1);
	CHECK(dpr_neigh_learned(R.neigh) == base,
	      "a learned host made a gateway leaves the budget (%u, was %u)",
	      dpr_neigh_learned(R.neigh), base + 1);
	neigh_ok("host made a gateway");
	del = (struct dpr_fib4_op){ .ip = op.ip, .depth = 16, .del = 1 };
	CHECK_EQ(dpr_route4_apply(R.fib4, R.nh, &del, 1, &(int){ 0 }), 1);
	CHECK_EQ(dpr_neigh_learned(R.neigh), base + 1);
	neigh_ok("its route gone");

	idx = dpr_nh_get(R.nh, &g64, 0);
	op2.nh = (uint32_t)idx;
	CHECK_EQ(dpr_route4_apply(R.fib4, R.nh, &op2, 1, &(int){ 0 }), 1);
	inject(mk_ip4(&mac_p[1], IP(10, 0, 2, 9), IP(100, 65, 0, 1), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 1, (uint32_t)idx);
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 64), IP(10, 0, 1, 1));
	CHECK(word_of(IP(10, 0, 1, 64)).kind == DPR_NH_KIND_FORWARD, "gateway 10.0.1.64 resolved");
	CHECK_EQ(dpr_neigh_learned(R.neigh), base + 1);
	neigh_ok("gateway resolved");
	del = (struct dpr_fib4_op){ .ip = op2.ip, .depth = 16, .del = 1 };
	CHECK_EQ(dpr_route4_apply(R.fib4, R.nh, &del, 1, &(int){ 0 }), 1);
	CHECK(dpr_neigh_learned(R.neigh) == base + 2,
	      "a gateway whose route went joins the budget (%u, want %u)",
	      dpr_neigh_learned(R.neigh), base + 2);
	neigh_ok("gateway's route gone");
	forget_ip(IP(10, 0, 1, 63));
	forget_ip(IP(10, 0, 1, 64));
	CHECK_EQ(dpr_neigh_learned(R.neigh), base);
	drop_sent();
}

/*
 * A host that asks for our address while a /32 someone configured routes
 * it elsewhere (route.add 10.0.1.77/32 via 10.0.1.2) is not learned: a
 * next hop made for it would be held by nothing, and goes at once. None
 * of it stays behind: the gateway of a route added next, given the freed
 * index, is no learned neighbour (in the budget, the "learned" gauge,
 * once a second route through it came and went).
 */
static void
test_learn_over_host_route(void)
{
	struct dpr_ip host = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 77) };
	struct dpr_ip gw = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 9) };
	struct dpr_route_op op = { .prefix = { .addr = host, .len = 32 } };
	uint64_t learned = exc_counter("learned");
	uint32_t via = nh_of(IP(10, 0, 1, 2));
	int idx;

	drop_sent();
	idx = dpr_nh_get(R.nh, &(struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 2) }, 0);
	CHECK_EQ((uint32_t)idx, via);
	op.nh = (uint32_t)idx;
	CHECK_EQ(dpr_route_apply(&R.rib, &op, 1, &(int){ 0 }), 1);
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 77), IP(10, 0, 1, 1));
	drop_sent(); /* the ARP reply */
	neigh_ok("an ARP request from a host its /32 routes elsewhere");
	CHECK(dpr_nh_find(R.nh, &host) < 0, "10.0.1.77 has no next hop of its own");
	CHECK_EQ(nh_of(IP(10, 0, 1, 77)), via);
	CHECK_EQ(exc_counter("learned"), learned);

	idx = dpr_nh_get(R.nh, &gw, 0);
	CHECK(idx >= 0, "next hop for gateway 10.0.1.9");
	neigh_ok("a gateway next");
	/* A second route through it comes and goes: its budget is weighed. */
	CHECK_EQ(dpr_nh_get(R.nh, &gw, 0), idx);
	if (idx >= 0)
		dpr_nh_put(R.nh, (uint32_t)idx);
	CHECK(exc_counter("learned") == learned,
	      "gateway 10.0.1.9, which never answered, is not a learned neighbour (learned %llu, was %llu)",
	      (unsigned long long)exc_counter("learned"), (unsigned long long)learned);
	if (idx >= 0)
		dpr_nh_put(R.nh, (uint32_t)idx);
	neigh_ok("the gateway gone");
	op.del = 1;
	CHECK_EQ(dpr_route_apply(&R.rib, &op, 1, &(int){ 0 }), 1);
	CHECK_EQ(nh_of(IP(10, 0, 1, 77)), nh_of(IP(10, 0, 1, 78)));
}

/*
 * A daemon's /32 for a host the router learned (a blackhole from BGP, say,
 * to shed a DDoS aimed at it) takes the host route's place, whichever comes
 * first, as a route does over the kernel's neighbour cache; the host is
 * not learned again while the route is there, and its traffic follows the
 * subnet (resolution) once the route goes. A learned neighbour that is
 * also a gateway gives up its host route and stays resolved for its
 * routes. The operator's own route.add on it is still refused (-EPERM).
 */
static void
test_daemon_route_over_learned(void)
{
	struct dpr_prefix h77 = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 77) }, .len = 32 };
	struct dpr_prefix h78 = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 78) }, .len = 32 };
	struct dpr_prefix far = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(198, 18, 7, 0) }, .len = 24 };
	struct dpr_src_op op = { .prefix = h77, .nh = DPR_NH_BLACKHOLE, .proto = 186 };
	uint64_t yielded = exc_counter("host_route_yielded");
	uint32_t subnet = nh_of(IP(10, 0, 1, 200));
	int idx;

	drop_sent();
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 77), IP(10, 0, 1, 1));
	drop_sent(); /* the ARP reply */
	idx = dpr_nh_find(R.nh, &h77.addr);
	CHECK(idx >= 0 && nh_of(IP(10, 0, 1, 77)) == (uint32_t)idx, "10.0.1.77 learned, its /32 routed");
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
	CHECK(op.result == 0 && nh_of(IP(10, 0, 1, 77)) == DPR_NH_BLACKHOLE,
	      "zebra's blackhole 10.0.1.77/32 installed over the learned host route (%d, nh %u)",
	      op.result, nh_of(IP(10, 0, 1, 77)));
	CHECK(dpr_nh_find(R.nh, &h77.addr) < 0, "the learned neighbour forgotten");
	CHECK_EQ(exc_counter("host_route_yielded"), yielded + 1);
	neigh_ok("a blackhole over a learned host route");
	/* It speaks again: not learned under the blackhole. */
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 77), IP(10, 0, 1, 1));
	drop_sent();
	CHECK_EQ(nh_of(IP(10, 0, 1, 77)), DPR_NH_BLACKHOLE);
	/* The blackhole goes: the subnet's again. */
	op.del = 1;
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
	CHECK_EQ(nh_of(IP(10, 0, 1, 77)), subnet);

	/* The other order: the blackhole first, then the host speaks. */
	op = (struct dpr_src_op){ .prefix = h78, .nh = DPR_NH_BLACKHOLE, .proto = 186 };
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_KERNEL, &op, 1), 1);
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 78), IP(10, 0, 1, 1));
	drop_sent();
	CHECK_EQ(nh_of(IP(10, 0, 1, 78)), DPR_NH_BLACKHOLE);
	op.del = 1;
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_KERNEL, &op, 1), 1);

	/* A learned neighbour that is a gateway too keeps its next hop. */
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 77), IP(10, 0, 1, 1));
	drop_sent();
	idx = dpr_nh_find(R.nh, &h77.addr);
	CHECK(idx >= 0, "10.0.1.77 learned again");
	if (idx < 0)
		return;
	dpr_nh_hold(R.nh, (uint32_t)idx);
	op = (struct dpr_src_op){ .prefix = far, .nh = (uint32_t)idx, .proto = 186 };
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
	op = (struct dpr_src_op){ .prefix = h77, .nh = DPR_NH_BLACKHOLE, .proto = 186 };
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
	CHECK_EQ(nh_of(IP(10, 0, 1, 77)), DPR_NH_BLACKHOLE);
	CHECK(nh_of(IP(198, 18, 7, 1)) == (uint32_t)idx &&
	      dpr_nh_word_get(R.nh, (uint32_t)idx).kind == DPR_NH_KIND_FORWARD,
	      "198.18.7.0/24 still goes via 10.0.1.77, resolved");
	neigh_ok("a gateway's host route yielded");
	op.del = 1;
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
	op = (struct dpr_src_op){ .prefix = far, .del = 1 };
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
	neigh_ok("the routes gone");
}

/*
 * dpr issue 50 case 7: a next-hop index freed while a packet carrying it
 * may still wait in an exception ring is not handed out again until the
 * control thread has read the rings past its free; a packet that still
 * names it then finds no next hop (routed again), not a stranger.
 */
static void
test_quarantine(void)
{
	struct dpr_ip a = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 80) };
	struct dpr_ip b = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 81) };
	struct rte_mbuf *out[8];
	uint64_t before_free, after_free;
	unsigned int n;
	int ia, ib, ic;

	drop_sent();
	dpr_nh_set_quarantine(R.nh, true);
	ia = dpr_nh_get(R.nh, &a, 1);
	before_free = dpr_nh_quarantine_mark(R.nh);
	dpr_nh_put(R.nh, (uint32_t)ia);
	neigh_ok("freed into quarantine");
	ib = dpr_nh_get(R.nh, &b, 1);
	CHECK(ib >= 0 && ib != ia, "a freed index waits (%d, then %d)", ia, ib);
	/* A pass that began before the free proves nothing. */
	dpr_nh_quarantine_release(R.nh, before_free);
	ic = dpr_nh_get(R.nh, &a, 1);
	CHECK(ic >= 0 && ic != ia, "still waiting after a pass begun before its free (%d)", ic);
	/* A packet held for it meanwhile: no next hop there, routed again
	 * (198.51.100.0/24 via 10.0.2.50, unresolved: ARP for that one). */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 9), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, (uint32_t)ia);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && (is_arp_request_for(out[0], IP(10, 0, 2, 50)) ||
			 (resolved_to(IP(10, 0, 2, 50), &eth_of(out[0])->dst_addr) &&
			  ip_of(out[0])->dst_addr == RTE_BE32(IP(198, 51, 100, 9)))),
	      "the stale index's packet is routed again, by its route's gateway (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	after_free = dpr_nh_quarantine_mark(R.nh);
	dpr_nh_put(R.nh, (uint32_t)ib);
	dpr_nh_put(R.nh, (uint32_t)ic);
	dpr_nh_quarantine_release(R.nh, after_free);
	CHECK_EQ(dpr_nh_get(R.nh, &b, 1), ia); /* free again, and first in line */
	dpr_nh_put(R.nh, (uint32_t)ia);
	dpr_nh_set_quarantine(R.nh, false);
	neigh_ok("quarantine off");
	drop_sent();
}

/*
 * dpr issue 50 case 6: packets held for a neighbour leave before the newer
 * packets of their flow. Once the answer comes, the held packets leave by
 * it at once, but the next hop stays unresolved for workers until the
 * control thread has read its exception rings empty: what a worker queued
 * meanwhile leaves after them, through the control thread too; only then
 * does the word turn FORWARD, with nothing of the flow left behind.
 */
static void
test_ordered_release(void)
{
	const struct rte_ether_addr h = host_mac(IP(10, 0, 2, 90));
	const struct rte_ether_addr evil = {{ 0x02, 0xee, 0, 0, 0, 0x03 }};
	struct rte_mbuf *out[8], *all[8];
	unsigned int n, i, k = 0, ok = 0;

	drop_sent();
	dpr_neigh_set_ordered_release(R.neigh, true);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 90), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh_of(IP(10, 0, 2, 90)));
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 90)), "ARP for 10.0.2.90");
	rte_pktmbuf_free_bulk(out, n);
	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 90), IP(10, 0, 2, 1));
	CHECK(word_of(IP(10, 0, 2, 90)).kind == DPR_NH_KIND_UNRESOLVED,
	      "answered, but not yet FORWARD for workers (kind %u)", word_of(IP(10, 0, 2, 90)).kind);
	k += sent(1, all + k, RTE_DIM(all) - k);
	CHECK_EQ(k, 1); /* the held packet, at once */
	/* A second answer, another MAC, before the first is published: the
	 * first stands. */
	arp_in_mac(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 90), IP(10, 0, 2, 1), &evil);
	neigh_ok("a second answer");
	/* Queued by a worker behind the answer, packets 1 and 2. */
	for (i = 1; i < 3; i++) {
		struct rte_mbuf *m = mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 90), 64, NULL,
					    0, 16, 0);

		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
					sizeof(struct rte_ether_hdr))->packet_id =
			rte_cpu_to_be_16((uint16_t)i);
		inject(m, DPR_EXC_UNRESOLVED, 0, nh_of(IP(10, 0, 2, 90)));
	}
	CHECK(word_of(IP(10, 0, 2, 90)).kind == DPR_NH_KIND_UNRESOLVED,
	      "still not FORWARD for workers while the rings bring packets for it");
	k += sent(1, all + k, RTE_DIM(all) - k);
	dpr_neigh_publish(R.neigh);
	CHECK(resolved_to(IP(10, 0, 2, 90), &h), "published");
	k += sent(1, all + k, RTE_DIM(all) - k);
	for (i = 0; i < k; i++)
		ok += ip_of(all[i])->packet_id == rte_cpu_to_be_16(i == 0 ? 0x4242 : (uint16_t)i) &&
			rte_is_same_ether_addr(&eth_of(all[i])->dst_addr, &h);
	CHECK(k == 3 && ok == 3, "the three leave in order, with its MAC (%u sent, %u right)", k, ok);
	rte_pktmbuf_free_bulk(all, k);
	neigh_ok("ordered release");
	dpr_neigh_set_ordered_release(R.neigh, false);
	forget_ip(IP(10, 0, 2, 90));
}

/*
 * A packet a worker queued for a connected subnet's next hop before its
 * host answered (and got a next hop of its own) is forwarded at once by
 * that next hop, not held for a second resolution while the worker sends
 * the newer packets of its flow (dpr issue 50 case 6: 0,3,4,5,1,2).
 */
static void
test_subnet_packet_after_answer(void)
{
	const struct rte_ether_addr h = host_mac(IP(10, 0, 2, 91));
	uint32_t subnet = nh_of(IP(10, 0, 2, 91));
	struct rte_mbuf *out[8];
	unsigned int n;

	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 91), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, subnet);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 91)), "ARP for 10.0.2.91");
	rte_pktmbuf_free_bulk(out, n);
	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 91), IP(10, 0, 2, 1));
	n = sent(1, out, RTE_DIM(out));
	CHECK_EQ(n, 1); /* the held packet */
	rte_pktmbuf_free_bulk(out, n);
	CHECK(nh_of(IP(10, 0, 2, 91)) != subnet, "10.0.2.91 has a next hop of its own");
	/* Queued by a worker before that: it names the subnet's next hop. */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 91), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, subnet);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && !is_arp_request_for(out[0], IP(10, 0, 2, 91)) &&
	      rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &h),
	      "it leaves at once, to 10.0.2.91's MAC, no second ARP (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	neigh_ok("subnet packet after the answer");
	forget_ip(IP(10, 0, 2, 91));
}

/*
 * dpr issue 50 case 6: a learned neighbour heard from 30 s ago is probed
 * with ARP requests sent unicast to its known MAC (RFC 1122 2.3.2.1, RFC
 * 4861 7.3.3 for NDP), not broadcast where whoever claims the address
 * could answer; an answer keeps it, three unanswered probes forget it.
 */
/* ARP requests sent on p0 now: for 10.0.1.70 to @p mac into *@p hit, broadcast into *@p bcast. */
static void
probes_sent(const struct rte_ether_addr *mac, unsigned int *hit, unsigned int *bcast)
{
	struct rte_mbuf *out[64];
	struct dpr_arp a;
	unsigned int n, i;

	*hit = *bcast = 0;
	n = sent(0, out, RTE_DIM(out));
	for (i = 0; i < n; i++) {
		if (dpr_arp_parse(out[i], &a) < 0 || a.op != RTE_ARP_OP_REQUEST)
			continue;
		*bcast += rte_is_same_ether_addr(&eth_of(out[i])->dst_addr, &mac_bcast);
		*hit += a.tip == IP(10, 0, 1, 70) &&
			rte_is_same_ether_addr(&eth_of(out[i])->dst_addr, mac);
	}
	rte_pktmbuf_free_bulk(out, n);
}

static void
test_unicast_probes(void)
{
	const struct rte_ether_addr h = host_mac(IP(10, 0, 1, 70));
	uint64_t expired = exc_counter("neighbors_expired");
	unsigned int hit, bcast, i;

	drop_sent();
	arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 70), IP(10, 0, 1, 1));
	CHECK(resolved_to(IP(10, 0, 1, 70), &h), "10.0.1.70 learned");
	drop_sent();
	clock_forward_ms(30100);
	dpr_exc_timers(R.exc);
	probes_sent(&h, &hit, &bcast);
	CHECK(hit == 1 && bcast == 0,
	      "30 s on: an ARP request for 10.0.1.70 unicast to its MAC (%u), none broadcast (%u)",
	      hit, bcast);
	CHECK(exc_counter("arp_probes_sent") >= 1, "counted arp_probes_sent");
	/* It answers: kept, and not probed again before another 30 s. */
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 70), IP(10, 0, 1, 1));
	clock_forward_ms(1100);
	dpr_exc_timers(R.exc);
	probes_sent(&h, &hit, &bcast);
	CHECK(hit == 0 && resolved_to(IP(10, 0, 1, 70), &h), "the answer to its probe keeps it");
	neigh_ok("a probe answered");
	/* Silent: three unicast probes a second apart, then forgotten. */
	clock_forward_ms(30000);
	for (i = 0; i < 4; i++) {
		dpr_exc_timers(R.exc);
		probes_sent(&h, &hit, &bcast);
		CHECK(hit == (i < 3) && bcast == 0, "probe %u: %u to its MAC, %u broadcast", i + 1,
		      hit, bcast);
		clock_forward_ms(1100);
	}
	CHECK(word_of(IP(10, 0, 1, 70)).kind == 0, "three unanswered probes forget it");
	CHECK(exc_counter("neighbors_expired") > expired, "counted neighbors_expired");
	neigh_ok("aged out");
	drop_sent();
}

/*
 * ARP from many hosts on a subnet learns at most fib.learned_neighbors_max
 * of them; configured gateways and static neighbours still find next hops;
 * a neighbour the router asks for itself takes the stalest learned entry.
 */
static void
test_learned_budget(void)
{
	struct rte_ether_addr mac = {{ 0x02, 0, 0, 0, 0x01, 0x77 }};
	struct dpr_ip ip = { .af = DPR_AF_IP4 };
	uint64_t refused = exc_counter("learn_refused");
	uint32_t before = dpr_neigh_learned(R.neigh);
	struct rte_mbuf *out[64];
	unsigned int i, n, base = pool_in_use();
	char err[128];

	drop_sent();
	for (i = 0; i < 40; i++)
		arp_in(0, RTE_ARP_OP_REQUEST, IP(10, 0, 1, 100 + i), IP(10, 0, 1, 1));
	CHECK_EQ(dpr_neigh_learned(R.neigh), LEARNED_MAX);
	CHECK_EQ(exc_counter("learn_refused") - refused, 40 - (LEARNED_MAX - before));
	n = sent(0, out, RTE_DIM(out));
	CHECK_EQ(n, 40); /* every request answered all the same */
	rte_pktmbuf_free_bulk(out, n);

	ip.ip4 = IP(10, 0, 1, 77);
	CHECK(dpr_neigh_add_static(R.neigh, &ip, &mac, -1, err, sizeof(err)) >= 0,
	      "a static neighbour still fits: %s", err);
	route_via(IP(10, 0, 2, 61));
	CHECK(dpr_nh_find(R.nh, &(struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 61) }) >= 0,
	      "a new gateway still fits");

	/* Traffic to an unknown host: asked, answered, learned by evicting. */
	inject(mk_ip4(&mac_p[1], IP(10, 0, 2, 9), IP(10, 0, 1, 200), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 1, nh_of(IP(10, 0, 1, 200)));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 1, 200)), "ARP for 10.0.1.200");
	rte_pktmbuf_free_bulk(out, n);
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 200), IP(10, 0, 1, 1));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && ip_of(out[0])->dst_addr == RTE_BE32(IP(10, 0, 1, 200)),
	      "the packet for 10.0.1.200 leaves once it answers (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(dpr_neigh_learned(R.neigh), LEARNED_MAX);
	CHECK(exc_counter("neighbors_evicted") >= 1, "evicted the stalest");
	CHECK_EQ(pool_in_use(), base);
	ip.ip4 = IP(10, 0, 1, 77);
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip, -1), 0);
	route_via(IP(10, 0, 2, 50));
}

/*
 * dpr issue 50 case 2: a static neighbour parked by a link going down, then
 * forgotten with its subnet, leaves nothing behind at its next-hop index:
 * a gateway given that index later is not resolved with the old MAC (nor
 * made static) when the link comes back.
 */
static void
test_freed_index_starts_clean(void)
{
	struct rte_ether_addr mac = {{ 0x02, 0, 0, 0, 0x02, 0x02 }};
	struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 2) };
	struct dpr_ip gw = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 3, 5) };
	struct dpr_prefix a2 = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 1) }, .len = 24 };
	struct dpr_prefix a3 = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 3, 1) }, .len = 24 };
	union dpr_nh_word w;
	char err[128];
	int idx, idx2;

	drop_sent();
	idx = dpr_neigh_add_static(R.neigh, &ip, &mac, 1, err, sizeof(err));
	CHECK(idx >= 0, "static neighbour 10.0.2.2 on p1: %s", err);
	neigh_ok("neigh.add");
	dpr_neigh_link(R.neigh, 1, false);
	neigh_ok("link down");
	CHECK_EQ(dpr_nh_word_get(R.nh, (uint32_t)idx).kind, DPR_NH_KIND_UNRESOLVED);
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 1, &a2), 0);
	dpr_neigh_addresses_changed(R.neigh);
	neigh_ok("addr.del 10.0.2.1/24");
	CHECK(dpr_nh_info(R.nh, (uint32_t)idx) == NULL, "10.0.2.2 forgotten with its subnet");

	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 1, &a3, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	idx2 = dpr_nh_get(R.nh, &gw, 1);
	CHECK_EQ(idx2, idx); /* the index is reused: the case under test */
	neigh_ok("a gateway at the freed index");
	dpr_neigh_link(R.neigh, 1, true);
	neigh_ok("link up");
	w = dpr_nh_word_get(R.nh, (uint32_t)idx2);
	CHECK(w.kind == DPR_NH_KIND_UNRESOLVED && !dpr_nh_info(R.nh, (uint32_t)idx2)->is_static,
	      "10.0.3.5, which never answered, is unresolved and not static after link up "
	      "(kind %u, MAC %02x:..:%02x)", w.kind, w.mac.addr_bytes[0], w.mac.addr_bytes[5]);

	if (idx2 >= 0)
		dpr_nh_put(R.nh, (uint32_t)idx2);
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 1, &a3), 0);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 1, &a2, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	neigh_ok("addresses back");
}

/*
 * dpr issue 50 case 7: a static neighbour on a link that is down can be
 * deleted, and stays deleted when the link comes back.
 */
static void
test_del_static_on_down_link(void)
{
	struct rte_ether_addr mac = {{ 0x02, 0, 0, 0, 0x02, 0x03 }};
	struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 3) };
	char err[128];
	int idx;

	idx = dpr_neigh_add_static(R.neigh, &ip, &mac, 1, err, sizeof(err));
	CHECK(idx >= 0, "static neighbour 10.0.2.3 on p1: %s", err);
	dpr_neigh_link(R.neigh, 1, false);
	neigh_ok("link down");
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip, -1), 0);
	neigh_ok("neigh.del on a down link");
	CHECK(dpr_nh_find(R.nh, &ip) < 0, "10.0.2.3 is gone, host route and next hop");
	dpr_neigh_link(R.neigh, 1, true);
	neigh_ok("link up");
	CHECK(dpr_nh_find(R.nh, &ip) < 0, "and does not come back with the link");
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip, -1), -ENOENT);
}

/*
 * A static neighbour parked while its link is down: packets for it meanwhile
 * are held (and asked for, unanswered); when the link comes back the
 * neighbour is restored and they leave at once with its MAC, not host
 * unreachable when the resolution gives up.
 */
static void
test_static_link_up_releases(void)
{
	struct rte_ether_addr mac = {{ 0x02, 0, 0, 0, 0x02, 0x04 }};
	struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 4) };
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();
	char err[128];
	int idx;

	idx = dpr_neigh_add_static(R.neigh, &ip, &mac, 1, err, sizeof(err));
	CHECK(idx >= 0, "static neighbour 10.0.2.4 on p1: %s", err);
	dpr_neigh_link(R.neigh, 1, false);
	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 4), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh_of(IP(10, 0, 2, 4)));
	drop_sent(); /* the ARP request */
	CHECK_EQ(pool_in_use(), base + 1);
	dpr_neigh_link(R.neigh, 1, true);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &mac),
	      "the packet held while the link was down leaves with the static MAC (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(pool_in_use(), base);
	neigh_ok("link up, held packets released");
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip, -1), 0);
}

/* neigh.add of an address being resolved sends what waits for it now. */
static void
test_static_cancels_pending(void)
{
	struct rte_ether_addr mac = {{ 0x02, 0, 0, 0, 0x01, 0x55 }};
	struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 55) };
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();
	char err[128];

	drop_sent();
	inject(mk_ip4(&mac_p[1], IP(10, 0, 2, 9), IP(10, 0, 1, 55), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 1, nh_of(IP(10, 0, 1, 55)));
	drop_sent(); /* the ARP request */
	CHECK(dpr_neigh_add_static(R.neigh, &ip, &mac, -1, err, sizeof(err)) >= 0, "%s", err);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &mac),
	      "the held packet leaves with the static MAC at once (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(pool_in_use(), base);
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip, -1), 0);
}

/* A gateway whose subnet moves to another port is resolved there. */
static void
test_next_hop_follows_subnet(void)
{
	struct dpr_prefix a = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 1) }, .len = 24 };
	struct dpr_prefix moved;
	struct rte_mbuf *out[8];
	uint32_t nh = nh_of(IP(198, 51, 100, 1));
	unsigned int n;

	drop_sent();
	CHECK_EQ(dpr_nh_word_get(R.nh, nh).port, 1);
	moved = a;
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 1, &a), 0);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 0, &moved, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	CHECK_EQ(dpr_nh_word_get(R.nh, nh).port, 0);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 1), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 50)),
	      "ARP for the gateway on p0, where its subnet is now (%u on p0)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);

	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 0, &moved), 0);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 1, &moved, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	CHECK_EQ(dpr_nh_word_get(R.nh, nh).port, 1);
	drop_sent();
}

/*
 * A resolution under way follows its address's subnet too: moved to p0,
 * the gateway is asked for there at once (not by retries out of p1, whose
 * failure would answer host unreachable while it sits on p0), answers
 * there, and the packet leaves by p0. With its subnet gone, what waits is
 * told host unreachable at once, and nothing is asked any more.
 */
static void
test_pending_follows_subnet(void)
{
	struct dpr_prefix a = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 2, 1) }, .len = 24 };
	struct rte_ether_addr gw = host_mac(IP(10, 0, 2, 50));
	uint32_t nh = nh_of(IP(198, 51, 100, 1));
	uint64_t unreach, unreachable;
	struct rte_mbuf *out[8];
	unsigned int n, t, on0 = 0, on1 = 0;

	/* The last test's resolution of 10.0.2.50 fails and is forgotten. */
	for (t = 0; t < 100; t++) {
		clock_forward_ms(100);
		dpr_exc_timers(R.exc);
	}
	drop_sent();
	unreach = exc_counter("icmp_host_unreachable");
	unreachable = exc_counter("unreachable");
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 1), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 50)), "ARP for 10.0.2.50 on p1");
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 1, &a), 0);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 0, &a, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	neigh_ok("10.0.2.0/24 moved to p0 while 10.0.2.50 is resolved");
	for (t = 0; t < 25; t++) {
		while ((n = sent(0, out, RTE_DIM(out))) > 0) {
			while (n-- > 0) {
				on0 += is_arp_request_for(out[n], IP(10, 0, 2, 50));
				rte_pktmbuf_free(out[n]);
			}
		}
		while ((n = sent(1, out, RTE_DIM(out))) > 0)
			on1 += n, rte_pktmbuf_free_bulk(out, n);
		clock_forward_ms(100);
		dpr_exc_timers(R.exc);
	}
	CHECK(on0 == 3 && on1 == 0, "asked for on p0 (%u times), not p1 (%u packets)", on0, on1);
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 2, 50), IP(10, 0, 2, 1));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &gw),
	      "the held packet leaves on p0 for 10.0.2.50 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("icmp_host_unreachable"), unreach);
	neigh_ok("the answer on p0");

	/* Back on p1 (10.0.2.50 forgotten: its MAC was p0's), then gone. */
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 0, &a), 0);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 1, &a, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 1), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 2, 50)), "ARP for 10.0.2.50 on p1");
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 1, &a), 0);
	dpr_neigh_addresses_changed(R.neigh);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && icmp_of(out[0]) != NULL &&
	      icmp_of(out[0])->icmp_code == DPR_ICMP_UNREACH_HOST,
	      "10.0.2.0/24 gone: host unreachable to 10.0.1.2 at once (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("unreachable"), unreachable + 1);
	CHECK_EQ(exc_counter("resolving"), 0);
	neigh_ok("10.0.2.0/24 gone");
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 1, &a, NULL), 0);
	dpr_neigh_addresses_changed(R.neigh);
	/* As the last test left it: 10.0.2.50 being resolved (the tests
	 * after answer it). */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 1), 64, NULL, 0, 16, 0),
	       DPR_EXC_UNRESOLVED, 0, nh);
	drop_sent();
}

/*
 * ICMP errors: to an on-link source not yet learned, the error waits for
 * ARP instead of being dropped (RFC 1812 5.3.1, RFC 1191); its source is an
 * address of the interface it leaves through (RFC 1812 4.3.2.4).
 */
static void
test_icmp_errors(void)
{
	struct rte_ether_addr h9 = host_mac(IP(10, 0, 1, 9));
	struct rte_mbuf *out[8];
	const struct rte_icmp_hdr *ic;
	unsigned int n;

	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 9), IP(10, 0, 2, 7), 1, NULL, 0, 16, 0),
	       DPR_EXC_TTL_EXPIRED, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_arp_request_for(out[0], IP(10, 0, 1, 9)),
	      "time exceeded to an unknown on-link source: ARP for it first (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	arp_in(0, RTE_ARP_OP_REPLY, IP(10, 0, 1, 9), IP(10, 0, 1, 1));
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_TIME_EXCEEDED &&
	      rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &h9) &&
	      ip_of(out[0])->src_addr == RTE_BE32(IP(10, 0, 1, 1)),
	      "then time exceeded from 10.0.1.1 reaches it (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);

	/* In on p1 from 192.0.2.10, which is reached through p0. */
	inject(mk_ip4(&mac_p[1], IP(192, 0, 2, 10), IP(10, 0, 1, 2), 1, NULL, 0, 16, 0),
	       DPR_EXC_TTL_EXPIRED, 1, 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_TIME_EXCEEDED &&
	      ip_of(out[0])->src_addr == RTE_BE32(IP(10, 0, 1, 1)),
	      "an error leaving p0 comes from p0's address, not the input port's (src %08x)",
	      n == 1 ? rte_be_to_cpu_32(ip_of(out[0])->src_addr) : 0);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
}

/* Echo requests to a subnet broadcast: ignored by default; where allowed,
 * answered from the interface's address, never from the broadcast. */
/*
 * Directed broadcasts (RFC 1812 5.3.5.2, RFC 2644): one for p1's subnet
 * that came in on p0 as unicast is sent onto p1's link to the broadcast
 * MAC, TTL one lower, since p1 forwards them; the router keeps it too (no
 * TAP here: local_unhandled). Not forwarded: one for p0's subnet (p0 does
 * not forward them), one that came in on p1 itself, one that came as a
 * link-layer broadcast, one whose TTL would expire, one with options.
 */
static void
test_directed_broadcast(void)
{
	static const uint8_t nop[4] = { 1, 1, 1, 0 };
	uint64_t fwd = exc_counter("directed_broadcast_forwarded");
	uint64_t refused = exc_counter("directed_broadcast_dropped");
	uint64_t local = exc_counter("local_unhandled");
	struct rte_mbuf *out[8];
	struct rte_ether_hdr *eth;
	unsigned int n;

	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 255), 64, NULL, 0, 32, 6),
	       DPR_EXC_LOCAL, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK_EQ(n, 1);
	if (n == 1) {
		eth = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
		CHECK(rte_is_broadcast_ether_addr(&eth->dst_addr) &&
		      rte_is_same_ether_addr(&eth->src_addr, &mac_p[1]),
		      "to the broadcast MAC, from p1's");
		CHECK_EQ(ip_of(out[0])->time_to_live, 63);
		CHECK_EQ(rte_raw_cksum(ip_of(out[0]), sizeof(struct rte_ipv4_hdr)), 0xffff);
		CHECK_EQ(out[0]->pkt_len, sizeof(*eth) + sizeof(struct rte_ipv4_hdr) + 32);
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(exc_counter("directed_broadcast_forwarded") - fwd, 1);
	CHECK_EQ(exc_counter("local_unhandled") - local, 1);

	/* p0 does not forward its subnet's broadcasts; p1's own link is not
	 * forwarded to. */
	inject(mk_ip4(&mac_p[1], IP(10, 0, 2, 2), IP(10, 0, 1, 255), 64, NULL, 0, 32, 0),
	       DPR_EXC_LOCAL, 1, 0);
	inject(mk_ip4(&mac_p[1], IP(10, 0, 2, 2), IP(10, 0, 2, 255), 64, NULL, 0, 32, 0),
	       DPR_EXC_LOCAL, 1, 0);
	CHECK_EQ(exc_counter("directed_broadcast_forwarded") - fwd, 1);
	CHECK_EQ(exc_counter("directed_broadcast_dropped") - refused, 0);
	/* Refused: a link-layer broadcast, TTL 1, options. */
	inject(mk_ip4(&mac_bcast, IP(10, 0, 1, 2), IP(10, 0, 2, 255), 64, NULL, 0, 32, 0),
	       DPR_EXC_LOCAL, 0, 0);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 255), 1, NULL, 0, 32, 0),
	       DPR_EXC_LOCAL, 0, 0);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 255), 64, nop, 4, 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK_EQ(exc_counter("directed_broadcast_forwarded") - fwd, 1);
	CHECK_EQ(exc_counter("directed_broadcast_dropped") - refused, 3);
	CHECK_EQ(exc_counter("local_unhandled") - local, 6);
	drop_sent();
}

/* An LLDP frame (l2_control) on a port without a TAP: nowhere to go, so
 * counted and freed, never sent back out of a port. */
static void
test_l2_control_no_tap(void)
{
	uint64_t before = exc_counter("l2_control_unhandled");
	struct rte_mbuf *m = mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 1, 1), 64, NULL, 0, 32, 0);
	struct rte_mbuf *out[4];
	unsigned int p;

	drop_sent();
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_LLDP);
	inject(m, DPR_EXC_L2_CONTROL, 0, 0);
	CHECK_EQ(exc_counter("l2_control_unhandled") - before, 1);
	for (p = 0; p < N_PORTS; p++)
		CHECK_EQ(sent(p, out, RTE_DIM(out)), 0);
}

static void
test_broadcast_echo(void)
{
	uint8_t echo[8] = { DPR_ICMP_ECHO_REQUEST, 0, 0, 0, 0, 1, 0, 1 };
	struct rte_mbuf *out[8], *m;
	uint64_t ignored = exc_counter("echo_broadcast_ignored");
	unsigned int n;

	drop_sent();
	((uint16_t *)echo)[1] = (uint16_t)~rte_raw_cksum(echo, sizeof(echo));
	m = mk_ip4(&mac_bcast, IP(10, 0, 1, 2), IP(10, 0, 1, 255), 64, NULL, 0, 0, 0);
	memcpy(rte_pktmbuf_append(m, sizeof(echo)), echo, sizeof(echo));
	((struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1))->next_proto_id =
		IPPROTO_ICMP;
	{
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1);

		ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + sizeof(echo));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	inject(m, DPR_EXC_LOCAL, 0, 0);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(exc_counter("echo_broadcast_ignored") - ignored, 1);

	m = mk_ip4(&mac_bcast, IP(10, 0, 2, 2), IP(10, 0, 2, 255), 64, NULL, 0, 0, 0);
	memcpy(rte_pktmbuf_append(m, sizeof(echo)), echo, sizeof(echo));
	{
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1);

		ip->next_proto_id = IPPROTO_ICMP;
		ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + sizeof(echo));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	inject(m, DPR_EXC_LOCAL, 1, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && icmp_of(out[0]) != NULL && icmp_of(out[0])->icmp_type == DPR_ICMP_ECHO_REPLY &&
	      ip_of(out[0])->dst_addr == RTE_BE32(IP(10, 0, 2, 2)),
	      "broadcast_echo on p1: answered (%u sent)", n);
	CHECK(n == 1 && ip_of(out[0])->src_addr == RTE_BE32(IP(10, 0, 2, 1)) &&
	      rte_raw_cksum(ip_of(out[0]), sizeof(struct rte_ipv4_hdr)) == 0xffff,
	      "the reply's source is the interface address 10.0.2.1, not 10.0.2.255");
	CHECK(n == 1 && rte_is_same_ether_addr(&eth_of(out[0])->src_addr, &mac_p[1]) &&
	      rte_is_same_ether_addr(&eth_of(out[0])->dst_addr, &mac_h1),
	      "a request on the broadcast MAC is answered from p1's MAC to the sender's");
	rte_pktmbuf_free_bulk(out, n);
}

/*
 * The slow path on a packet with options that came in a longer frame and
 * is fragmented for p1 (MTU 1000): the fragments carry exactly the
 * datagram, not the frame's trailer.
 */
static void
test_fragment_trailer(void)
{
	static const uint8_t nops[4] = { 1, 1, 1, 0 };
	struct rte_mbuf *out[8];
	unsigned int n, i, data = 0, last_end = 0;
	uint16_t total = 1400;

	/* 198.51.100.0/24 via 10.0.2.50, resolved now. */
	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 50), IP(10, 0, 2, 1));
	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, nops, sizeof(nops),
		      total - 24, 40),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 2, "fragmented in two (%u)", n);
	for (i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = ip_of(out[i]);
		unsigned int hl = (ip->version_ihl & 0xf) * 4u;
		unsigned int tl = rte_be_to_cpu_16(ip->total_length);
		unsigned int off = (rte_be_to_cpu_16(ip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK) * 8u;

		CHECK_EQ(out[i]->pkt_len, sizeof(struct rte_ether_hdr) + tl);
		data += tl - hl;
		if (!(ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG)))
			last_end = off + tl - hl;
	}
	CHECK_EQ(data, total - 24u);
	CHECK_EQ(last_end, total - 24u);
	rte_pktmbuf_free_bulk(out, n);
}

/*
 * A packet that would need more fragments than the exception path cuts
 * one into (64) at p1's MTU, set to 68 (RFC 791's least): dropped and
 * counted as frag_too_many, not as no_mbuf (no mbuf ran out); 63 pieces
 * are sent, counted as fragmented.
 */
static void
test_fragment_too_many(void)
{
	struct rte_mempool *small = pool;
	struct rte_mbuf *out[128];
	uint64_t too_many = exc_counter("frag_too_many"), no_mbuf = exc_counter("no_mbuf");
	uint64_t fragmented = exc_counter("fragmented");
	uint16_t mtu = R.port_dp[1].mtu;
	unsigned int n;

	/* Input packets bigger than one mbuf of the rig's pool. */
	pool = rte_pktmbuf_pool_create("test_exc_big", 63, 0, 0, RTE_PKTMBUF_HEADROOM + 9100, 0);
	CHECK(pool != NULL, "a pool for 9000-byte packets");
	if (pool == NULL) {
		pool = small;
		return;
	}
	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 50), IP(10, 0, 2, 1));
	drop_sent();
	R.port_dp[1].mtu = 68;
	/* 48 bytes a fragment: 3072 bytes of data in 64, 3073 need 65. */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, NULL, 0, 3073, 0),
	       DPR_EXC_MTU_EXCEEDED, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 0, "nothing sent for a packet of 65 fragments (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("frag_too_many"), too_many + 1);
	CHECK_EQ(exc_counter("no_mbuf"), no_mbuf);
	CHECK_EQ(exc_counter("fragmented"), fragmented);

	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, NULL, 0, 3000, 0),
	       DPR_EXC_MTU_EXCEEDED, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 63, "a packet of 63 fragments sent as 63 (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("frag_too_many"), too_many + 1);
	CHECK_EQ(exc_counter("fragmented"), fragmented + 1);
	CHECK_EQ(exc_counter("no_mbuf"), no_mbuf);

	R.port_dp[1].mtu = mtu;
	drop_sent();
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	rte_mempool_free(pool);
	pool = small;
}

/*
 * A transit packet fragmented for p1 (MTU 1000), whose output ACL rejects
 * UDP: the first fragment is answered with administratively prohibited on
 * p0, as the worker's reject would be, and the others are dropped quietly
 * (RFC 1812 4.3.2.7: no error about a non-first fragment). The fragmenter's
 * mbufs come fresh from the pool, their hash.usr what a previous user left
 * (here: the router's own class, a port past the table): each fragment
 * must carry the packet's own metadata.
 */
static void
test_out_acl_fragments(void)
{
	static const uint32_t junk[] = { DPR_EXC_META(OWN_PACKET, 0), 0xffff };
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct rte_mbuf *all[POOL_SIZE], *out[8];
	struct dpr_acl_list l;
	char err[256] = "";
	json_error_t je;
	json_t *j = json_loads("{\"name\":\"out\",\"default\":\"permit\",\"rules\":["
			       "{\"action\":\"reject\",\"proto\":\"udp\"}]}", 0, &je);
	unsigned int i, n, n1;
	const struct rte_icmp_hdr *ic;

	CHECK(db != NULL && j != NULL && dpr_acl_list_parse(j, "t", NULL, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "out", 1, DPR_ACL_OUT, err, sizeof(err)) == 0, "acl: %s", err);
	json_decref(j);
	arp_in(1, RTE_ARP_OP_REPLY, IP(10, 0, 2, 50), IP(10, 0, 2, 1));
	R.acl = db;
	drop_sent();
	for (i = 0; i < RTE_DIM(junk); i++) {
		n = 0;
		while (n < RTE_DIM(all) && (all[n] = rte_pktmbuf_alloc(pool)) != NULL)
			all[n++]->hash.usr = junk[i];
		rte_pktmbuf_free_bulk(all, n);
		clock_forward_ms(2000); /* a full rate-limit bucket */
		inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, NULL, 0, 1400, 0),
		       DPR_EXC_MTU_EXCEEDED, 0, 0);
		n1 = sent(1, out, RTE_DIM(out));
		rte_pktmbuf_free_bulk(out, n1);
		n = sent(0, out, RTE_DIM(out));
		ic = n == 1 ? icmp_of(out[0]) : NULL;
		CHECK(n1 == 0 && ic != NULL && ic->icmp_type == DPR_ICMP_DEST_UNREACH &&
		      ic->icmp_code == DPR_ICMP_UNREACH_ADMIN &&
		      ip_of(out[0])->dst_addr == RTE_BE32(IP(10, 0, 1, 2)),
		      "hash.usr %#x: one admin prohibited on p0 for the first fragment "
		      "(%u on p1, %u on p0)", junk[i], n1, n);
		rte_pktmbuf_free_bulk(out, n);
	}
	R.acl = NULL;
	dpr_acl_db_free(db);
	drop_sent();
}

/*
 * An input ACL classifies before the screen: a rejected packet the screen
 * would have discarded silently (RFC 1812 5.2.2 header checks, 5.3.7
 * addresses) is discarded silently here too, never answered (4.3.2.7);
 * a well-formed one is answered with administratively prohibited.
 */
static void
test_acl_reject_invalid(void)
{
	struct rte_mbuf *out[8], *m;
	struct rte_ipv4_hdr *ip;
	const struct rte_icmp_hdr *ic;
	uint64_t na = exc_counter("icmp_not_allowed");
	unsigned int n, i, total = 0;

	drop_sent();
	clock_forward_ms(2000); /* a full rate-limit bucket */
	/* A bad header checksum. */
	m = mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(192, 0, 2, 9), 64, NULL, 0, 32, 0);
	ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1);
	ip->hdr_checksum ^= 0x1234;
	inject(m, (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	/* A total length past the frame. */
	m = mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(192, 0, 2, 9), 64, NULL, 0, 32, 0);
	ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1);
	ip->total_length = rte_cpu_to_be_16(1400);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	inject(m, (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	/* Version 6 in an IPv4 frame. */
	m = mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(192, 0, 2, 9), 64, NULL, 0, 32, 0);
	ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1);
	ip->version_ihl = 0x65;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	inject(m, (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	/* Martian destinations: 127/8 and 0/8. */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(127, 0, 0, 1), 64, NULL, 0, 32, 0),
	       (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(0, 1, 2, 3), 64, NULL, 0, 32, 0),
	       (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	for (i = 0; i < N_PORTS; i++) {
		n = sent(i, out, RTE_DIM(out));
		total += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK(total == 0, "rejected packets the screen would drop: none answered (%u sent)", total);
	CHECK_EQ(exc_counter("icmp_not_allowed") - na, 5);

	/* A well-formed one is answered. */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(192, 0, 2, 9), 64, NULL, 0, 32, 0),
	       (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_DEST_UNREACH &&
	      ic->icmp_code == DPR_ICMP_UNREACH_ADMIN &&
	      ip_of(out[0])->dst_addr == RTE_BE32(IP(10, 0, 1, 2)),
	      "a valid rejected packet: administratively prohibited on p0 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	drop_sent();
}

/*
 * RFC 1812 4.3.2.7: no ICMP error about a datagram to an IP broadcast
 * address, here a connected subnet's, in a unicast frame: neither the
 * parameter problem a malformed option draws (to 10.0.2.255) nor the
 * administratively prohibited a source route draws (to 10.0.1.255). The
 * same malformed option to the router's address is answered.
 */
static void
test_no_error_about_broadcast(void)
{
	static const uint8_t bad[4] = { 1, DPR_IP4_OPT_RR, 9, 4 };
	static const uint8_t lsrr[8] = { DPR_IP4_OPT_LSRR, 7, 4, 10, 0, 2, 50, 0 };
	uint64_t na = exc_counter("icmp_not_allowed");
	struct rte_mbuf *out[8];
	const struct rte_icmp_hdr *ic;
	unsigned int n, p, i, total = 0;

	drop_sent();
	clock_forward_ms(2000); /* a full rate-limit bucket */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 2, 255), 64, bad, sizeof(bad), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 1, 255), 64, lsrr, sizeof(lsrr), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	for (p = 0; p < N_PORTS; p++) {
		n = sent(p, out, RTE_DIM(out));
		for (i = 0; i < n; i++)
			total += icmp_of(out[i]) != NULL;
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK(total == 0, "no ICMP error about a datagram to a subnet broadcast (%u sent)", total);
	CHECK_EQ(exc_counter("icmp_not_allowed") - na, 2);

	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 1, 1), 64, bad, sizeof(bad), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_PARAM_PROBLEM,
	      "the malformed option to 10.0.1.1: parameter problem (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	drop_sent();
}

/* A frame sent as link-layer broadcast is not forwarded by the slow path
 * either (RFC 1812 5.3.4). */
static void
test_slow_path_l2_broadcast(void)
{
	static const uint8_t nops[4] = { 1, 1, 1, 0 };
	struct rte_mbuf *out[8];

	drop_sent();
	inject(mk_ip4(&mac_bcast, IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, nops, sizeof(nops), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK(exc_counter("l2_broadcast_dropped") >= 1, "counted");
}

/* The ICMP redirect among @p out[0..n), or NULL. */
static struct rte_mbuf *
find_redirect(struct rte_mbuf **out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (icmp_of(out[i]) != NULL && icmp_of(out[i])->icmp_type == DPR_ICMP_REDIRECT)
			return out[i];
	return NULL;
}

/*
 * Packets that leave through the port they came in on (a worker hands
 * them over as class redirect): each is forwarded, and RFC 1812 5.2.7.2
 * decides whether its source also gets a host redirect (RFC 792: type 5,
 * code 1, the better gateway, the packet's IP header and first 64 bits of
 * data): the source and the gateway on one subnet of the port, no source
 * route. From the router's address on that subnet (RFC 1122 3.2.2.2: hosts
 * believe only their first hop).
 */
static void
test_redirects(void)
{
	static const uint8_t lsrr[8] = { DPR_IP4_OPT_LSRR, 7, 4, 10, 0, 1, 2, 0 };
	struct dpr_config *cfg = (struct dpr_config *)(uintptr_t)R.cfg;
	uint64_t sent0 = exc_counter("icmp_redirect_sent");
	uint64_t na = exc_counter("icmp_redirect_not_allowed");
	unsigned int n, i, k, base = pool_in_use();
	const struct rte_icmp_hdr *icmp;
	const struct rte_ipv4_hdr *q;
	struct rte_mbuf *out[32], *r;
	bool fwd = false;

	drop_sent();
	/* 10.0.1.77 on p0's subnet sends 192.0.2.0/24's packets to the router,
	 * whose gateway 10.0.1.2 is on the same subnet. */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 77), IP(192, 0, 2, 5), 64, NULL, 0, 100, 0),
	       DPR_EXC_REDIRECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	r = find_redirect(out, n);
	CHECK(n == 2 && r != NULL, "a redirect and the packet on p0 (%u sent)", n);
	for (i = 0; i < n; i++)
		if (out[i] != r)
			fwd = ip_of(out[i])->time_to_live == 63 &&
			      rte_is_same_ether_addr(&eth_of(out[i])->dst_addr, &mac_h1) &&
			      ip_of(out[i])->dst_addr == RTE_BE32(IP(192, 0, 2, 5));
	CHECK(fwd, "the packet itself is forwarded to 10.0.1.2, TTL 63");
	if (r != NULL) {
		icmp = icmp_of(r);
		q = (const struct rte_ipv4_hdr *)(icmp + 1);
		CHECK(rte_is_same_ether_addr(&eth_of(r)->dst_addr, &mac_h1) &&
		      rte_is_same_ether_addr(&eth_of(r)->src_addr, &mac_p[0]),
		      "to the source's MAC (it sent the frame), from p0's");
		CHECK(ip_of(r)->src_addr == RTE_BE32(IP(10, 0, 1, 1)) &&
		      ip_of(r)->dst_addr == RTE_BE32(IP(10, 0, 1, 77)),
		      "RFC 1122 3.2.2.2: from 10.0.1.1, the host's first hop, to the source");
		CHECK(rte_ipv4_cksum(ip_of(r)) == 0 || ip_of(r)->hdr_checksum != 0, "IP checksum");
		CHECK_EQ(icmp->icmp_code, DPR_ICMP_REDIRECT_HOST);
		CHECK(icmp->icmp_ident == RTE_BE16(0x0a00) && icmp->icmp_seq_nb == RTE_BE16(0x0102),
		      "RFC 792: the gateway field is 10.0.1.2");
		CHECK(rte_raw_cksum(icmp, rte_be_to_cpu_16(ip_of(r)->total_length) - 20) == 0xffff,
		      "ICMP checksum");
		CHECK(rte_be_to_cpu_16(ip_of(r)->total_length) >= 20 + 8 + 20 + 8 &&
		      q->dst_addr == RTE_BE32(IP(192, 0, 2, 5)) && q->time_to_live == 64,
		      "RFC 792: the packet's header as it came (TTL 64) and 64 bits of its data");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("icmp_redirect_sent") - sent0, 1);

	/* From a source on no subnet of p0: none (RFC 1812 5.2.7.2). */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 9, 9), IP(192, 0, 2, 6), 64, NULL, 0, 20, 0),
	       DPR_EXC_REDIRECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && find_redirect(out, n) == NULL, "an off-subnet source: forwarded only (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(exc_counter("icmp_redirect_not_allowed") - na, 1);

	/* A source route through 192.0.2.0/24's gateway on the source's
	 * subnet: refused as ever (administratively prohibited), no redirect.
	 * 10.0.1.77 is a static neighbour for the time of it: the error goes
	 * at once, not held for ARP. */
	{
		struct dpr_ip h = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 77) };
		char err[128];

		CHECK(dpr_neigh_add_static(R.neigh, &h, &mac_h1, 0, err, sizeof(err)) >= 0, "%s",
		      err);
		inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 77), IP(192, 0, 2, 7), 64, lsrr, sizeof(lsrr),
			      20, 0), DPR_EXC_IP_OPTIONS, 0, 0);
		CHECK(dpr_neigh_del(R.neigh, &h, 0) >= 0, "neigh del 10.0.1.77");
	}
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && find_redirect(out, n) == NULL && icmp_of(out[0]) != NULL &&
	      icmp_of(out[0])->icmp_type == DPR_ICMP_DEST_UNREACH,
	      "a source-routed packet draws no redirect (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);

	/* "redirects": false on p0: forwarded, nothing else. */
	cfg->ports[0].redirects = false;
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 77), IP(192, 0, 2, 8), 64, NULL, 0, 20, 0),
	       DPR_EXC_REDIRECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && find_redirect(out, n) == NULL, "redirects off: only the packet (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	cfg->ports[0].redirects = true;
	CHECK_EQ(exc_counter("icmp_redirect_sent") - sent0, 1);

	/* Rate-limited with ICMP errors, per source; every packet forwarded. */
	for (i = 0; i < 14; i++)
		inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 78), IP(192, 0, 2, 9), 64, NULL, 0, 20, 0),
		       DPR_EXC_REDIRECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	for (i = 0, k = 0; i < n; i++)
		k += find_redirect(&out[i], 1) != NULL;
	CHECK(n - k == 14 && k >= 10 && k <= 11, "14 forwarded (%u), 10 or 11 redirects (%u)",
	      n - k, k);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(pool_in_use(), base);
}

/*
 * Options on the slow path (RFC 1812 5.3.13, RFC 7126): record route gets
 * the address of the interface the packet leaves by; a source route is not
 * honoured (administratively prohibited); a malformed option gets a
 * parameter problem pointing at the bad byte.
 */
static void
test_options(void)
{
	static const uint8_t rr[8] = { DPR_IP4_OPT_RR, 7, 4, 0, 0, 0, 0, 0 };
	static const uint8_t lsrr[8] = { DPR_IP4_OPT_LSRR, 7, 4, 10, 0, 2, 50, 0 };
	static const uint8_t bad[4] = { 1, DPR_IP4_OPT_RR, 9, 4 }; /* runs past the header */
	struct rte_mbuf *out[8];
	const struct rte_icmp_hdr *ic;
	const uint8_t *o;
	unsigned int n;

	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, rr, sizeof(rr), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	o = n == 1 ? (const uint8_t *)(ip_of(out[0]) + 1) : NULL;
	CHECK(o != NULL && o[2] == 8 && o[3] == 10 && o[4] == 0 && o[5] == 2 && o[6] == 1,
	      "record route: 10.0.2.1 recorded, pointer 8 (%u sent)", n);
	CHECK(n == 1 && rte_raw_cksum(ip_of(out[0]), 28) == 0xffff, "header checksum right");
	rte_pktmbuf_free_bulk(out, n);

	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, lsrr, sizeof(lsrr), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_DEST_UNREACH &&
	      ic->icmp_code == DPR_ICMP_UNREACH_ADMIN,
	      "source route: not forwarded, administratively prohibited (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);

	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, bad, sizeof(bad), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_PARAM_PROBLEM &&
	      ((const uint8_t *)ic)[4] == 22,
	      "malformed option: parameter problem pointing at byte 22 (%u sent, pointer %u)", n,
	      ic != NULL ? ((const uint8_t *)ic)[4] : 0);
	rte_pktmbuf_free_bulk(out, n);
	/* To the router itself: a source route is not honoured either. */
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 1, 1), 64, lsrr, sizeof(lsrr), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_code == DPR_ICMP_UNREACH_ADMIN,
	      "source-routed packet for the router: refused, not handed to the host stack");
	rte_pktmbuf_free_bulk(out, n);
	CHECK(exc_counter("source_routed") >= 2 && exc_counter("ip_options_bad") >= 1, "counted");
}

/*
 * Fragmenting a packet with options (RFC 791 3.2, RFC 1812 5.2.6): an
 * option whose copied flag is set (stream ID, 136) goes into every
 * fragment, one without it (record route, 7) into the first only.
 */
static void
test_fragment_options(void)
{
	static const uint8_t opts[12] = { DPR_IP4_OPT_RR, 7, 4, 0, 0, 0, 0, DPR_IP4_OPT_NOP,
					  DPR_IP4_OPT_SID, 4, 0x12, 0x34 };
	struct rte_mbuf *out[8];
	unsigned int n, i;

	drop_sent();
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 3), 64, opts, sizeof(opts),
		      1400 - 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 2, "fragmented in two (%u)", n);
	for (i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = ip_of(out[i]);
		const uint8_t *o = (const uint8_t *)(ip + 1);
		unsigned int hl = (ip->version_ihl & 0xf) * 4u, k = 0;
		bool first = (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) == 0;
		bool rr = false, sid = false;

		while (k < hl - sizeof(*ip) && o[k] != DPR_IP4_OPT_EOL) {
			if (o[k] == DPR_IP4_OPT_NOP) {
				k++;
				continue;
			}
			rr |= o[k] == DPR_IP4_OPT_RR;
			sid |= o[k] == DPR_IP4_OPT_SID;
			k += o[k + 1] >= 2 ? o[k + 1] : hl;
		}
		CHECK(sid, "RFC 791 3.1: the stream ID option (copied flag set) is in fragment %u", i);
		CHECK(rr == first, "RFC 791 3.1: record route (copied flag clear) goes in the first "
		      "fragment only (fragment %u, offset %u, has it: %d)", i,
		      (rte_be_to_cpu_16(ip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK) * 8u, rr);
		CHECK(rte_raw_cksum(ip, hl) == 0xffff, "fragment %u: header checksum right", i);
		if (first)
			CHECK(o[2] == 8, "RFC 1812 5.3.13.5: record route filled in the first fragment");
	}
	rte_pktmbuf_free_bulk(out, n);
}

/*
 * A packet with options to a blackhole route is dropped on the slow path
 * as a worker drops one without (RFC 1812 5.3.7 lets a router discard
 * silently, no ICMP error), and counted: every packet is accounted for
 * (DESIGN.md, Counting).
 */
static void
test_blackhole_slow(void)
{
	static const uint8_t nops[4] = { 1, 1, 1, 0 };
	struct dpr_src_op op = {
		.prefix = { .addr = { .af = DPR_AF_IP4, .ip4 = IP(198, 18, 9, 0) }, .len = 24 },
		.nh = DPR_NH_BLACKHOLE, .proto = 186,
	};
	uint64_t before = exc_counter("blackholed");
	struct rte_mbuf *out[8];
	unsigned int p, n = 0, base = pool_in_use();

	drop_sent();
	CHECK(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1) == 1 && op.result == 0,
	      "blackhole 198.18.9.0/24 installed");
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 18, 9, 1), 64, nops, sizeof(nops), 32, 0),
	       DPR_EXC_IP_OPTIONS, 0, 0);
	for (p = 0; p < N_PORTS; p++)
		n += sent(p, out, RTE_DIM(out));
	CHECK_EQ(n, 0);
	CHECK(exc_counter("blackholed") - before == 1,
	      "a packet with options to a blackhole route: dropped and counted `blackholed`");
	CHECK_EQ(pool_in_use(), base);
	op.del = 1;
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
}

/*
 * Exceptions of an interface deleted since they were put on a ring
 * (vlan.del: its slot's name is "" until the rings drained): dropped, and
 * counted (iface_deleted), as every other fate of a packet handed over is.
 */
static void
test_iface_deleted(void)
{
	uint64_t before = exc_counter("iface_deleted");
	unsigned int base = pool_in_use();

	CHECK(R.cfg->ports[N_PORTS].name[0] == '\0', "slot %u is free", N_PORTS);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(10, 0, 1, 1), 64, NULL, 0, 32, 0),
	       DPR_EXC_LOCAL, N_PORTS, 0);
	inject(mk_ip4(&mac_p[0], IP(10, 0, 1, 2), IP(198, 51, 100, 1), 1, NULL, 0, 32, 0),
	       DPR_EXC_TTL_EXPIRED, N_PORTS, 0);
	CHECK(exc_counter("iface_deleted") - before == 2,
	      "exceptions of a deleted interface: counted iface_deleted (%" PRIu64 ")",
	      exc_counter("iface_deleted") - before);
	CHECK_EQ(pool_in_use(), base);
	drop_sent();
}

/* An ICMP echo request from 10.0.1.2 to @p dst with @p opt_len bytes of options. */
static struct rte_mbuf *
mk_echo4(uint32_t dst, const uint8_t *opt, unsigned int opt_len)
{
	uint8_t echo[8] = { DPR_ICMP_ECHO_REQUEST, 0, 0, 0, 0, 1, 0, 1 };
	struct rte_mbuf *m = mk_ip4(&mac_p[0], IP(10, 0, 1, 2), dst, 64, opt, opt_len, 0, 0);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m, struct rte_ether_hdr *) + 1);

	((uint16_t *)echo)[1] = (uint16_t)~rte_raw_cksum(echo, sizeof(echo));
	memcpy(rte_pktmbuf_append(m, sizeof(echo)), echo, sizeof(echo));
	ip->next_proto_id = IPPROTO_ICMP;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + opt_len + sizeof(echo)));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

/*
 * An echo request to the router with record route and timestamp options
 * (RFC 1812 4.3.3.6): the reply carries them updated to include the
 * router, so that they cover the whole round trip.
 */
static void
test_echo_options(void)
{
	static const uint8_t opts[24] = {
		DPR_IP4_OPT_RR, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0, DPR_IP4_OPT_NOP,
		DPR_IP4_OPT_TS, 12, 5, DPR_IP4_TS_ADDR, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct rte_mbuf *out[8];
	const struct rte_icmp_hdr *ic;
	const uint8_t *o;
	unsigned int n;

	drop_sent();
	inject(mk_echo4(IP(10, 0, 1, 1), opts, sizeof(opts)), DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	ic = n == 1 ? icmp_of(out[0]) : NULL;
	CHECK(ic != NULL && ic->icmp_type == DPR_ICMP_ECHO_REPLY &&
	      (ip_of(out[0])->version_ihl & 0xf) == 11, "echo reply with the options (%u sent)", n);
	o = ic != NULL ? (const uint8_t *)(ip_of(out[0]) + 1) : NULL;
	CHECK(o != NULL && o[2] == 8 && o[3] == 10 && o[4] == 0 && o[5] == 1 && o[6] == 1,
	      "RFC 1812 4.3.3.6: the reply's record route includes the router (10.0.1.1), "
	      "pointer 8 (pointer %u)", o != NULL ? o[2] : 0);
	CHECK(o != NULL && o[14] == 13 && o[16] == 10 && o[17] == 0 && o[18] == 1 && o[19] == 1,
	      "RFC 1812 4.3.3.6: the reply's timestamp option includes the router, pointer 13 "
	      "(pointer %u)", o != NULL ? o[14] : 0);
	CHECK(n == 1 && rte_raw_cksum(ip_of(out[0]), 44) == 0xffff, "header checksum right");
	CHECK(n == 1 && rte_raw_cksum(ic, 8) == 0xffff, "ICMP checksum right");
	rte_pktmbuf_free_bulk(out, n);
}

static int
port_on_ring(unsigned int p)
{
	char name[32];

	snprintf(name, sizeof(name), "test_exc_tx%u", p);
	return test_port_on_ring(&R, p, name, pool, &mac_p[p], &txr[p]);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	pool = rte_pktmbuf_pool_create("test_exc", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || test_router_init(&R, config_text, "test_exception") < 0)
		return EXIT_FAILURE;
	R.n_ports = N_PORTS;
	R.n_workers = 0;
	R.pools[0] = pool;
	R.port_dp = rte_zmalloc(NULL, sizeof(*R.port_dp) * DPR_MAX_PORTS, 0);
	if (R.port_dp == NULL || port_on_ring(0) < 0 || port_on_ring(1) < 0 ||
	    port_on_ring(2) < 0 || port_on_ring(3) < 0)
		return EXIT_FAILURE;
	R.exc = dpr_exc_create(&R);
	if (R.exc == NULL)
		return EXIT_FAILURE;

	test_hold_queue_reuse();
	test_freed_index_starts_clean();
	test_learn_over_host_route();
	test_daemon_route_over_learned();
	test_del_static_on_down_link();
	test_static_link_up_releases();
	test_static_cancels_pending();
	test_next_hop_follows_subnet();
	test_pending_follows_subnet();
	test_icmp_errors();
	test_broadcast_echo();
	test_directed_broadcast();
	test_l2_control_no_tap();
	test_fragment_trailer();
	test_fragment_too_many();
	test_out_acl_fragments();
	test_acl_reject_invalid();
	test_slow_path_l2_broadcast();
	test_options();
	test_fragment_options();
	test_echo_options();
	test_blackhole_slow();
	test_iface_deleted();
	test_no_error_about_broadcast();
	test_redirects();
	test_arp_learning_policy();
	test_address_conflict();
	test_budget_gateways();
	test_quarantine();
	test_ordered_release();
	test_subnet_packet_after_answer();
	test_unicast_probes();
	test_learned_budget();

	drop_sent();
	dpr_exc_free(R.exc);
	test_router_free(&R);
	return test_done("test_exception");
}
