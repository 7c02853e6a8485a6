/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 in the worker's burst passes (ip4_dp.h, ip6_dp.h): where each crafted
 * packet of a mixed IPv4/IPv6 burst ends up, with its counter, what a
 * forwarded packet looks like, and that the burst code agrees with the
 * reference path (dpr_ip6_slow(), dpr_ip6_act()) packet by packet.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "config/config.h"
#include "copp/copp.h"
#include "copp/copp_dp.h"
#include "datapath/datapath.h"
#include "datapath/ip4_dp.h"
#include "datapath/ip6_dp.h"
#include "datapath/qinq_dp.h"
#include "datapath/stats.h"
#include "datapath/urpf_dp.h"
#include "fib/fib6.h"
#include "nexthop/nexthop.h"
#include "route/route.h"
#include "test.h"
#include "trunk.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

/*
 * Two ports with an IPv4 and an IPv6 subnet and a link-local address each;
 * static neighbours of both families (one link-local, on p1); IPv6 routes
 * through a resolved gateway (p1), an unresolved one, a link-local one, and
 * a longer route inside the first that leads back out of p0.
 */
static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\", \"fe80::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\","
	"  \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\", \"fe80::2/64\"]}],"
	" \"vlans\": ["
	" {\"name\": \"p0.100\", \"port\": \"p0\", \"id\": 100,"
	"  \"addresses\": [\"10.0.3.1/24\", \"2001:db8:3::1/64\"]},"
	" {\"name\": \"p0.200\", \"port\": \"p0\", \"id\": 200,"
	"  \"addresses\": [\"10.0.4.1/24\", \"2001:db8:4::1/64\"]}],"
	" \"neighbors\": ["
	" {\"address\": \"2001:db8:3::2\", \"mac\": \"02:00:00:00:03:02\"},"
	" {\"address\": \"2001:db8:4::2\", \"mac\": \"02:00:00:00:04:02\"},"
	" {\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\"},"
	" {\"address\": \"10.0.2.2\", \"mac\": \"02:00:00:00:02:02\"},"
	" {\"address\": \"2001:db8:1::2\", \"mac\": \"02:00:00:00:01:02\"},"
	" {\"address\": \"2001:db8:2::2\", \"mac\": \"02:00:00:00:02:02\"},"
	" {\"address\": \"fe80::99\", \"port\": \"p1\", \"mac\": \"02:00:00:00:02:99\"}],"
	" \"routes\": ["
	" {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"},"
	" {\"prefix\": \"203.0.113.0/24\", \"via\": \"10.0.2.3\"},"
	" {\"prefix\": \"2001:db8:100::/48\", \"via\": \"2001:db8:2::2\"},"
	" {\"prefix\": \"2001:db8:100:0:1::/80\", \"via\": \"2001:db8:1::2\"},"
	" {\"prefix\": \"2001:db8:200::/48\", \"via\": \"2001:db8:2::3\"},"
	" {\"prefix\": \"2001:db8:300::/48\", \"via\": \"fe80::99\", \"port\": \"p1\"}]}";

/* p1's MTU is below p0's: frames between the two take the reference path
 * and are forwarded to p0 but too big for p1. */
#define MTU_P0 1500
#define MTU_P1 1400

static const struct rte_ether_addr mac_p0 = {{ 0x02, 0, 0, 0, 0x01, 0x01 }};
static const struct rte_ether_addr mac_p1 = {{ 0x02, 0, 0, 0, 0x02, 0x01 }};
static const struct rte_ether_addr mac_h1 = {{ 0x02, 0, 0, 0, 0x01, 0x02 }};
static const struct rte_ether_addr mac_h2 = {{ 0x02, 0, 0, 0, 0x02, 0x02 }};
static const struct rte_ether_addr mac_ll = {{ 0x02, 0, 0, 0, 0x02, 0x99 }};
static const struct rte_ether_addr mac_other = {{ 0x02, 0, 0, 0, 0x07, 0x07 }};
static const struct rte_ether_addr mac_bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
/* IPv6 multicast MACs (RFC 2464 7): all-nodes and a solicited-node group. */
static const struct rte_ether_addr mac_33_1 = {{ 0x33, 0x33, 0, 0, 0, 0x01 }};
static const struct rte_ether_addr mac_33_sn = {{ 0x33, 0x33, 0xff, 0, 0, 0x01 }};

static struct rte_mempool *pool;

/* A textual IPv6 address as 16 bytes; one of 64 static buffers, reused in turn. */
static const uint8_t *
a6(const char *s)
{
	static uint8_t bufs[64][16];
	static unsigned int next;
	uint8_t *b = bufs[next++ % RTE_DIM(bufs)];

	if (inet_pton(AF_INET6, s, b) != 1) {
		fprintf(stderr, "test_ip6: bad address \"%s\"\n", s);
		abort();
	}
	return b;
}

static struct dpr_ip
ip6_of(const char *s)
{
	struct dpr_ip ip = { .af = DPR_AF_IP6 };

	memcpy(ip.ip6, a6(s), 16);
	return ip;
}

static struct rte_mbuf *
alloc_or_die(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL) {
		fprintf(stderr, "test_ip6: mbuf pool exhausted\n");
		abort();
	}
	/* The exception argument of a packet diverted without one is
	 * whatever the mbuf held: make it the same for both copies. */
	m->hash.fdir.hi = 0xa5a5a5a5;
	m->port = 0;
	return m;
}

static struct rte_mbuf *
mk_ip4(const struct rte_ether_addr *dmac, uint32_t src, uint32_t dst, uint8_t ttl,
       uint16_t payload)
{
	struct rte_mbuf *m = alloc_or_die();
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	uint16_t i;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + payload);
	if (eth == NULL)
		abort();
	memset(eth, 0, sizeof(*eth) + sizeof(*ip));
	eth->dst_addr = *dmac;
	eth->src_addr = mac_h1;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + payload);
	ip->packet_id = rte_cpu_to_be_16(0x1234);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (i = 0; i < payload; i++)
		((uint8_t *)(ip + 1))[i] = (uint8_t)(i * 13 + 1);
	return m;
}

/*
 * An IPv6 packet of @p payload bytes after the fixed header, whose first
 * next header is @p proto; the payload is a pattern, so that any change
 * to it shows.
 */
static struct rte_mbuf *
mk_ip6(const struct rte_ether_addr *dmac, const uint8_t *src, const uint8_t *dst,
       uint8_t hops, uint8_t proto, uint16_t payload)
{
	struct rte_mbuf *m = alloc_or_die();
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	uint8_t *pl;
	uint16_t i;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + payload);
	if (eth == NULL) {
		fprintf(stderr, "test_ip6: a %u-byte payload does not fit an mbuf\n", payload);
		abort();
	}
	eth->dst_addr = *dmac;
	eth->src_addr = mac_h1;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	ip->vtc_flow = RTE_BE32(UINT32_C(6) << 28);
	ip->payload_len = rte_cpu_to_be_16(payload);
	ip->proto = proto;
	ip->hop_limits = hops;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	pl = (uint8_t *)(ip + 1);
	/* An extension header's first bytes: its next header (UDP) and
	 * length, as a sender would put them; the router reads neither. */
	for (i = 0; i < payload; i++)
		pl[i] = (uint8_t)(i * 7 + 3);
	if (payload >= 2 && proto != IPPROTO_UDP && proto != IPPROTO_TCP &&
	    proto != IPPROTO_ICMPV6 && proto != IPPROTO_NONE) {
		pl[0] = IPPROTO_UDP;
		pl[1] = 0;
	}
	return m;
}

static struct rte_ipv6_hdr *
ip6_hdr(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
}

static struct rte_ipv4_hdr *
ip4_hdr(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
}

/* @p n bytes of link-layer padding after the packet. */
static void
add_padding(struct rte_mbuf *m, uint16_t n)
{
	memset(rte_pktmbuf_append(m, n), 0xee, n);
}

/* The same bytes in two segments, the second from offset @p cut on. */
static void
split_at(struct rte_mbuf *m, uint16_t cut)
{
	struct rte_mbuf *t = alloc_or_die();
	uint16_t tail = (uint16_t)(m->data_len - cut);

	memcpy(rte_pktmbuf_append(t, tail), rte_pktmbuf_mtod_offset(m, void *, cut), tail);
	rte_pktmbuf_trim(m, tail);
	rte_pktmbuf_chain(m, t);
}

/* Padding in a segment of its own. */
static void
add_padding_seg(struct rte_mbuf *m, uint16_t n)
{
	struct rte_mbuf *t = alloc_or_die();

	memset(rte_pktmbuf_append(t, n), 0xee, n);
	rte_pktmbuf_chain(m, t);
}

/* FNV-1a over the whole packet, segment by segment. */
static uint32_t
pkt_sum(const struct rte_mbuf *m)
{
	uint32_t h = 2166136261u;

	for (; m != NULL; m = m->next) {
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		uint16_t i;

		for (i = 0; i < m->data_len; i++)
			h = (h ^ d[i]) * 16777619u;
	}
	return h;
}

/* The packet's first @p n bytes into @p out (zeros past its end). */
static void
pkt_bytes(const struct rte_mbuf *m, uint8_t *out, uint32_t n)
{
	const void *d;

	memset(out, 0, n);
	n = RTE_MIN(n, m->pkt_len);
	d = rte_pktmbuf_read(m, 0, n, out);
	if (d != NULL && d != out)
		memcpy(out, d, n);
}

static uint64_t
accounted(const struct dpr_port_counters *c)
{
	return c->forwarded + c->exception + dpr_counters_drops(c);
}

/* ------------------------------------------------------------------------ */

struct rig {
	struct dpr_config *cfg;
	struct dpr_ifaddrs addrs;
	struct dpr_nh_table *nh;
	struct dpr_fib4 *fib;
	struct dpr_fib6 *fib6;
	struct dpr_rib rib;
	struct dpr_port_dp *ports;
	struct dpr_worker *w[2];
	/* The workers' RCU, as dpr_worker_main() reports it; the FIBs do not
	 * wait on it (a test thread plays both sides). */
	struct rte_rcu_qsbr *qsbr;
	/* Next hops the expectations name. */
	uint32_t nh_gw_unres;   /* 2001:db8:2::3, gateway without a MAC */
	uint32_t nh_conn_p1;    /* 2001:db8:2::/64, connected to p1 */
	uint32_t nh_blackhole;  /* 2001:db8:dead::/48 */
};

static struct dpr_worker *
worker_new(struct rig *r, unsigned int index)
{
	struct dpr_worker *w = rte_zmalloc(NULL, sizeof(*w), RTE_CACHE_LINE_SIZE);
	char name[32];

	if (w == NULL)
		return NULL;
	w->index = index;
	w->qsbr = r->qsbr;
	rte_rcu_qsbr_thread_register(w->qsbr, index);
	rte_rcu_qsbr_thread_online(w->qsbr, index);
	w->n_ports = 4;
	w->ports = r->ports;
	w->fib = r->fib;
	w->fib6 = r->fib6;
	w->nh = dpr_nh_words(r->nh);
	w->port_index[0] = 0;
	w->port_index[1] = 1;
	dpr_worker_prepare(w);
	snprintf(name, sizeof(name), "test6_exc%u", index);
	w->exc_ring = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->exc_ring == NULL) {
		rte_free(w);
		return NULL;
	}
	return w;
}

static int
rig_init(struct rig *r)
{
	struct dpr_fib4_conf fc = { .max_routes = 1024, .tbl8_groups = 64, .socket = 0 };
	struct dpr_fib6_conf fc6 = { .max_routes = 1024, .tbl8_groups = 128, .socket = 0 };
	struct dpr_ip gw = ip6_of("2001:db8:2::3"), bh = ip6_of("2001:db8:2::bb");
	struct dpr_prefix conn = { .addr = ip6_of("2001:db8:2::"), .len = 64 };
	struct dpr_route_op op;
	char err[512];
	int idx, e;

	r->cfg = dpr_config_parse(config_text, "test_ip6", err, sizeof(err));
	CHECK(r->cfg != NULL, "%s", err);
	r->nh = dpr_nh_table_create(0);
	r->fib = dpr_fib4_create(&fc, NULL);
	r->fib6 = dpr_fib6_create(&fc6, NULL);
	CHECK(r->nh != NULL && r->fib != NULL && r->fib6 != NULL, "tables");
	if (r->cfg == NULL || r->nh == NULL || r->fib == NULL || r->fib6 == NULL)
		return -1;
	r->rib = (struct dpr_rib){ .fib4 = r->fib, .fib6 = r->fib6, .nh = r->nh };
	dpr_config_addresses(r->cfg, &r->addrs);
	e = dpr_route_install_config(&r->rib, r->cfg, &r->addrs, err, sizeof(err));
	CHECK(e == 0, "install the config's routes: %s", err);
	if (e != 0)
		return -1;

	/* No API makes a blackhole next hop yet: one is written as the
	 * control thread would (one atomic store of the word), under a
	 * route of its own. */
	idx = dpr_nh_get(r->nh, &bh, 1);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "next hop for the blackhole");
	if (idx < DPR_NH_FIRST_DYNAMIC)
		return -1;
	r->nh_blackhole = (uint32_t)idx;
	__atomic_store_n(&((union dpr_nh_word *)(uintptr_t)dpr_nh_words(r->nh))[idx].u64,
			 ((union dpr_nh_word){ .port = 1, .kind = DPR_NH_KIND_BLACKHOLE }).u64,
			 __ATOMIC_RELEASE);
	op = (struct dpr_route_op){ .prefix = { .addr = ip6_of("2001:db8:dead::"), .len = 48 },
				    .nh = (uint32_t)idx };
	CHECK_EQ(dpr_route_apply(&r->rib, &op, 1, &e), 1);

	idx = dpr_nh_find(r->nh, &gw);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "next hop of the configured gateway 2001:db8:2::3");
	r->nh_gw_unres = (uint32_t)idx;
	CHECK_EQ(dpr_route_get(&r->rib, &conn, &r->nh_conn_p1), 0);

	r->ports = rte_zmalloc(NULL, sizeof(*r->ports) * 4, 0);
	if (r->ports == NULL)
		return -1;
	r->ports[0] = (struct dpr_port_dp){ .mac = mac_p0, .port_id = 0, .mtu = MTU_P0,
					    .rx_ip_cksum = true };
	r->ports[1] = (struct dpr_port_dp){ .mac = mac_p1, .port_id = 1, .mtu = MTU_P1 };
	/* p0.100 and p0.200: VLAN interfaces on p0, tagged in software;
	 * p0 splits its bursts by tag only in test_tagged(). */
	r->ports[2] = r->ports[0];
	r->ports[2].vlan_tci = 100;
	r->ports[3] = r->ports[0];
	r->ports[3].vlan_tci = 200;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	r->qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(RTE_DIM(r->w)), RTE_CACHE_LINE_SIZE);
	if (r->qsbr == NULL || rte_rcu_qsbr_init(r->qsbr, RTE_DIM(r->w)) != 0)
		return -1;
	r->w[0] = worker_new(r, 0);
	r->w[1] = worker_new(r, 1);
	CHECK(r->w[0] != NULL && r->w[1] != NULL, "workers");
	return r->w[0] != NULL && r->w[1] != NULL ? 0 : -1;
}

static void
rig_free(struct rig *r)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(r->w); i++) {
		if (r->w[i] != NULL)
			rte_ring_free(r->w[i]->exc_ring);
		rte_free(r->w[i]);
	}
	rte_free(r->qsbr);
	rte_free(r->ports);
	dpr_fib6_free(r->fib6);
	dpr_fib4_free(r->fib);
	dpr_nh_table_free(r->nh);
	dpr_config_free(r->cfg);
}

/*
 * The rig's FIB answers as the config says (what every other test here
 * relies on): our addresses, global and link-local, are LOCAL /128s; the
 * neighbours and routes resolve to the right next hops.
 */
static void
test_rig_routes(struct rig *r)
{
	const union dpr_nh_word *nhw = dpr_nh_words(r->nh);
	static const struct {
		const char *dst;
		uint8_t kind;
		uint8_t port;
		const struct rte_ether_addr *mac;
	} want[] = {
		{ "2001:db8:1::1", DPR_NH_KIND_LOCAL, 0, NULL },
		{ "2001:db8:2::1", DPR_NH_KIND_LOCAL, 0, NULL },
		{ "fe80::1", DPR_NH_KIND_LOCAL, 0, NULL },
		{ "fe80::2", DPR_NH_KIND_LOCAL, 0, NULL },
		{ "2001:db8:1::2", DPR_NH_KIND_FORWARD, 0, &mac_h1 },
		{ "2001:db8:2::2", DPR_NH_KIND_FORWARD, 1, &mac_h2 },
		{ "2001:db8:100::7", DPR_NH_KIND_FORWARD, 1, &mac_h2 },
		{ "2001:db8:100:0:1::7", DPR_NH_KIND_FORWARD, 0, &mac_h1 },
		{ "2001:db8:300::1", DPR_NH_KIND_FORWARD, 1, &mac_ll },
		{ "2001:db8:200::5", DPR_NH_KIND_UNRESOLVED, 1, NULL },
		{ "2001:db8:2::9", DPR_NH_KIND_UNRESOLVED, 1, NULL },
		{ "2001:db8:dead::1", DPR_NH_KIND_BLACKHOLE, 1, NULL },
		{ "3fff::1", DPR_NH_KIND_NO_ROUTE, 0, NULL },
		{ "fe80::5", DPR_NH_KIND_NO_ROUTE, 0, NULL },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(want); i++) {
		union dpr_nh_word h = nhw[dpr_fib6_lookup(r->fib6, a6(want[i].dst))];

		CHECK(h.kind == want[i].kind, "%s: next hop kind %u, want %u", want[i].dst,
		      h.kind, want[i].kind);
		if (want[i].kind == DPR_NH_KIND_FORWARD || want[i].kind == DPR_NH_KIND_UNRESOLVED)
			CHECK(h.port == want[i].port, "%s: port %u, want %u", want[i].dst, h.port,
			      want[i].port);
		if (want[i].mac != NULL)
			CHECK(rte_is_same_ether_addr(&h.mac, want[i].mac), "%s: neighbour MAC",
			      want[i].dst);
	}
}

/* RFC 4291 2.4-2.7 and RFC 4007: what each kind of address is to a router. */
static void
test_addr_class(void)
{
	static const struct {
		const char *a;
		enum dpr_ip6_addr_class c;
	} want[] = {
		{ "::", DPR_IP6_ADDR_UNSPECIFIED },          /* 2.5.2 */
		{ "::1", DPR_IP6_ADDR_NEVER },               /* 2.5.3 */
		{ "::ffff:1.2.3.4", DPR_IP6_ADDR_NEVER },    /* 2.5.5.2, RFC 6890 */
		{ "::ffff:0:0", DPR_IP6_ADDR_NEVER },
		{ "::2", DPR_IP6_ADDR_GLOBAL },
		{ "::1:ffff:1.2.3.4", DPR_IP6_ADDR_GLOBAL },
		{ "fe80::1", DPR_IP6_ADDR_LINK_LOCAL },      /* 2.5.6: fe80::/10 */
		{ "febf:ffff::1", DPR_IP6_ADDR_LINK_LOCAL },
		{ "fec0::1", DPR_IP6_ADDR_GLOBAL },          /* site-local, deprecated (RFC 3879) */
		{ "fe7f::1", DPR_IP6_ADDR_GLOBAL },
		{ "ff02::1", DPR_IP6_ADDR_MULTICAST },       /* 2.7 */
		{ "ff05::2", DPR_IP6_ADDR_MULTICAST },
		{ "2001:db8::1", DPR_IP6_ADDR_GLOBAL },
		{ "100::1", DPR_IP6_ADDR_GLOBAL },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(want); i++)
		CHECK(dpr_ip6_addr_class(a6(want[i].a)) == want[i].c, "%s: class %d, want %d",
		      want[i].a, dpr_ip6_addr_class(a6(want[i].a)), want[i].c);
}

/* ------------------------------------------------------------------------ */

/* What became of one packet. */
struct outcome {
	int kind;          /* 0 dropped, 1 forwarded, 2 exception */
	uint32_t where;    /* output port, or exception class */
	uint32_t arg;      /* forwarded: its place on the port; exception: DPR_EXC_ARG */
	uint32_t in;       /* exception: the input port in its metadata */
	uint32_t len;
	uint16_t segs;
	bool sane;         /* the mbuf's lengths and segments agree */
	uint32_t sum;      /* of the whole packet */
	uint8_t bytes[80];
};

static void
record(struct outcome *o, int kind, uint32_t where, uint32_t arg, uint32_t in,
       struct rte_mbuf *m)
{
	const char *why;

	o->kind = kind;
	o->where = where;
	o->arg = arg;
	o->in = in;
	o->len = m->pkt_len;
	o->segs = m->nb_segs;
	o->sane = rte_mbuf_check(m, 1, &why) == 0;
	o->sum = pkt_sum(m);
	pkt_bytes(m, o->bytes, sizeof(o->bytes));
}

/*
 * Forwarded packets are numbered in the order they leave, per output port
 * and family: a mixed burst leaves family by family (dpr_ip4_pass3()), so
 * that only each family's order, and so each flow's, is kept.
 */
#define SEQS (2 * DPR_MAX_PORTS)

static uint32_t
next_seq(uint32_t *seqs, uint16_t port, const struct rte_mbuf *m)
{
	bool v6 = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
		RTE_BE16(RTE_ETHER_TYPE_IPV6);

	return seqs[2 * port + v6]++;
}

/* Record and free what worker @p w diverted so far (its exception ring). */
static void
drain_exc(struct dpr_worker *w, struct outcome *out)
{
	struct rte_mbuf *exc[256];
	unsigned int j, q;

	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
	for (j = 0; j < q; j++)
		record(&out[exc[j]->dynfield1[0]], 2, DPR_EXC_META_CLASS(exc[j]->hash.usr),
		       DPR_EXC_ARG(exc[j]), DPR_EXC_META_PORT(exc[j]->hash.usr), exc[j]);
	rte_pktmbuf_free_bulk(exc, q);
}

/* Record and free what worker @p w sent and diverted so far; packets are
 * named by dynfield1[0]. */
static void
drain(struct dpr_worker *w, struct outcome *out, uint32_t *seqs)
{
	unsigned int j;
	uint16_t p;

	for (p = 0; p < w->n_ports; p++) {
		for (j = 0; j < w->tx[p].n; j++) {
			struct rte_mbuf *m = w->tx[p].pkts[j];

			record(&out[m->dynfield1[0]], 1, p, next_seq(seqs, p, m), 0, m);
		}
		rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
		w->tx[p].n = 0;
	}
	drain_exc(w, out);
}

/*
 * The reference for one packet received on @p in, alone: the burst code
 * splits by EtherType (read even from a runt's buffer, as the burst code
 * does), then dpr_ip6_slow(), a FIB6 lookup and dpr_ip6_act(); a packet to
 * forward is rewritten here, independently of the code under test: the
 * next hop's MAC and the port's as addresses, EtherType IPv6, hop limit
 * one lower (RFC 8200 3). IPv4 as test_ip4.c does it.
 */
static void
reference_one(struct dpr_worker *w, uint16_t in, struct rte_mbuf *m, struct outcome *o,
	      uint32_t *seqs)
{
	struct dpr_burst b;
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	union dpr_nh_word h;
	bool fwd = false;
	uint32_t j;

	dpr_burst_begin(w, &b, in);
	if (((struct rte_ether_hdr *)eth)->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		if (dpr_ip6_slow(w, &b, m)) {
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + RTE_ETHER_HDR_LEN);
			uint32_t nh = dpr_fib6_lookup(w->fib6, ip->dst_addr);

			if (dpr_ip6_act(w, &b, m, nh, false, &h)) {
				struct rte_ether_hdr *e = (struct rte_ether_hdr *)eth;

				e->dst_addr = h.mac;
				e->src_addr = w->ports[h.port].mac;
				e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
				ip->hop_limits--;
				fwd = true;
			}
		}
	} else {
		uint32_t dst;

		if (dpr_ip4_slow(w, &b, m, &dst) &&
		    dpr_ip4_act(w, &b, m, dpr_fib4_lookup(w->fib, dst), false, &h)) {
			dpr_ip4_rewrite(w, m, h.u64, h.port);
			fwd = true;
		}
	}
	if (fwd) {
		w->stats[in].forwarded++;
		record(o, 1, h.port, next_seq(seqs, h.port, m), 0, m);
		rte_pktmbuf_free(m);
	}
	for (j = 0; j < b.n_exc; j++)
		record(o, 2, DPR_EXC_META_CLASS(b.exc[j]->hash.usr), DPR_EXC_ARG(b.exc[j]),
		       DPR_EXC_META_PORT(b.exc[j]->hash.usr), b.exc[j]);
	rte_pktmbuf_free_bulk(b.exc, b.n_exc);
	rte_pktmbuf_free_bulk(b.drop, b.n_drop);
}

/* ------------------------------------------------------------------------ */

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static const char *const srcs6[] = {
	"2001:db8:1::2", "fe80::99", "fe80::1234", "::", "::1", "::ffff:1.2.3.4",
	"ff02::1", "ff05::2", "2001:db8:1::1", "fe80::1", "3fff::1", "fec0::1", "febf::1",
	"2001:db8:2::2",
};
static const char *const dsts6[] = {
	"2001:db8:100::7", "2001:db8:2::2", "2001:db8:2::9", "2001:db8:200::5",
	"2001:db8:300::1", "2001:db8:1::2", "2001:db8:100:0:1::7", "2001:db8:1::1",
	"2001:db8:2::1", "fe80::1", "fe80::2", "fe80::5", "3fff::1", "2001:db8:dead::1",
	"ff02::1", "ff05::2", "ff02::1:ff00:1", "::", "::1", "::ffff:1.2.3.4", "fec0::1",
	"febf::1",
};
static uint8_t srcs6_bin[RTE_DIM(srcs6)][16];
static uint8_t dsts6_bin[RTE_DIM(dsts6)][16];

static void
gen_init(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(srcs6); i++)
		memcpy(srcs6_bin[i], a6(srcs6[i]), 16);
	for (i = 0; i < RTE_DIM(dsts6); i++)
		memcpy(dsts6_bin[i], a6(dsts6[i]), 16);
}

/*
 * One packet of the random mix, received on port @p in, the same for the
 * same seed: a quarter simple IPv4 packets, the rest IPv6 with every first
 * next header (hop-by-hop, routing, fragment, destination options, none,
 * TCP, UDP, ICMPv6), hop limits 0, 1, 2, 64, 255, addresses of every scope,
 * payload lengths short, exact and long, link-layer padding, chains, runts,
 * frames to other MACs, broadcast and 33:33 multicast, wrong versions,
 * traffic class and flow label, sizes past either port's MTU; among the
 * IPv4 ones, VLAN, ARP, LLDP and IS-IS frames.
 */
static struct rte_mbuf *
gen_packet(uint64_t seed, uint16_t in, const struct dpr_port_dp *ports)
{
	static const uint8_t protos[] = {
		IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT, IPPROTO_DSTOPTS,
		IPPROTO_NONE, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6,
	};
	static const uint8_t hops[] = { 0, 1, 2, 64, 255 };
	static const uint32_t dsts4[] = {
		IP(198, 51, 100, 7), IP(10, 0, 2, 2), IP(10, 0, 1, 1), IP(192, 0, 2, 1),
		IP(10, 0, 1, 2), IP(203, 0, 113, 5),
	};
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 12345;
	const struct rte_ether_addr *own = &ports[in].mac, *dmac;
	struct rte_mbuf *m;
	uint16_t payload;
	uint64_t r;

	/* Warm up the generator: the first outputs of a small seed are small. */
	xorshift(&x);
	r = xorshift(&x);
	if (r % 4 == 0) {
		uint32_t dst = xorshift(&x) % 2 ? dsts4[0] : dsts4[x % RTE_DIM(dsts4)];
		uint8_t ttl = xorshift(&x) % 4 ? 64 : 1;

		m = mk_ip4(xorshift(&x) % 10 ? own : &mac_other, IP(10, 0, 1, 2), dst, ttl,
			   (uint16_t)(xorshift(&x) % 80));
		/* Neither IPv4 nor IPv6: the IPv4 reference's. */
		r = xorshift(&x);
		if (r % 16 == 0)
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
				RTE_BE16(RTE_ETHER_TYPE_VLAN);
		else if (r % 16 == 1)
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
				RTE_BE16(RTE_ETHER_TYPE_ARP);
		else if (r % 16 == 2)
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
				RTE_BE16(RTE_ETHER_TYPE_LLDP);
		else if (r % 16 == 3)
			/* IS-IS: an 802.3 length, LLC 0xFE 0xFE UI */
			memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, 12),
			       (const uint8_t[]){ 0x00, 0x40, 0xfe, 0xfe, 0x03 }, 5);
		else if (r % 16 == 4)
			/* IEEE 802's local experimental EtherType: unsupported_l3 */
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(0x88b5);
	} else {
		const uint8_t *src, *dst;
		struct rte_ipv6_hdr *ip;
		uint8_t hl, proto;

		r = xorshift(&x);
		if (r % 10 < 7)
			dmac = own;
		else if (r % 10 == 7)
			dmac = (r >> 8) % 2 ? &mac_33_1 : &mac_33_sn;
		else
			dmac = (const struct rte_ether_addr *[]){
				&mac_other, &mac_bcast, &mac_h1, &ports[in ^ 1].mac,
			}[(r >> 8) % 4];
		src = xorshift(&x) % 3 ? srcs6_bin[0] : srcs6_bin[x % RTE_DIM(srcs6)];
		dst = xorshift(&x) % 3 ? dsts6_bin[0] : dsts6_bin[x % RTE_DIM(dsts6)];
		hl = xorshift(&x) % 3 ? 64 : hops[x % RTE_DIM(hops)];
		proto = xorshift(&x) % 3 ? IPPROTO_UDP : protos[x % RTE_DIM(protos)];
		payload = (uint16_t)(xorshift(&x) % 8 ? x % 64 : (x >> 8) % 1480);
		m = mk_ip6(dmac, src, dst, hl, proto, payload);
		ip = ip6_hdr(m);
		r = xorshift(&x);
		if (r % 12 == 0) {
			static const uint8_t bad_versions[] = { 4, 0, 7, 15, 5 };
			uint32_t v = bad_versions[(r >> 8) % RTE_DIM(bad_versions)];

			ip->vtc_flow = rte_cpu_to_be_32(v << 28);
		}
		else if (r % 12 == 1)
			ip->vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28 | UINT32_C(0xb8) << 20 |
							UINT32_C(0x12345));
		r = xorshift(&x);
		if (r % 10 == 0)
			ip->payload_len = rte_cpu_to_be_16((uint16_t)((r >> 8) % 1600));
		else if (r % 10 == 1 && payload > 0)
			ip->payload_len =
				rte_cpu_to_be_16((uint16_t)(payload - 1 - (r >> 8) % payload));
	}
	/* The rest of the frame, either family. */
	r = xorshift(&x);
	if (r % 12 == 0) {
		add_padding(m, (uint16_t)(1 + (r >> 8) % 30));
	} else if (r % 12 == 1 && m->data_len > 40) {
		split_at(m, (uint16_t)(14 + (r >> 8) % (m->data_len - 14)));
	} else if (r % 12 == 3) {
		add_padding_seg(m, 6);
	} else if (r % 12 == 2) {
		/* truncated: a runt or a frame shorter than its packet */
		rte_pktmbuf_trim(m, (uint16_t)((r >> 8) % m->data_len));
	}
	return m;
}

static bool
same_outcome(const struct outcome *a, const struct outcome *b)
{
	return a->kind == b->kind && a->where == b->where && a->arg == b->arg &&
		a->in == b->in && a->len == b->len && a->segs == b->segs &&
		a->sum == b->sum && (a->kind == 0 || (a->sane && b->sane)) &&
		memcmp(a->bytes, b->bytes, sizeof(a->bytes)) == 0;
}

/*
 * The burst code and the reference agree (every RFC 8200 / RFC 4291 rule
 * the reference applies, the same on the screen's fast path). Each packet
 * of the random mix (gen_packet()) is made twice from one seed: one copy
 * goes through the burst code in bursts of 1 to 32 on port @p in, pipelined
 * (dpr_ip4_pipeline(), each burst's pass 1 between the pass 2 and pass 3
 * of the one before) or at once (dpr_ip4_input_burst()); the other alone
 * through the reference (reference_one()). Forwarded packets must leave by
 * the same port, in the same order within their family (next_seq()), with
 * the same bytes; diverted ones with the same class, input port and
 * argument; and every counter must match.
 */
static void
test_fast_matches_reference(struct rig *r, uint16_t in, bool pipelined)
{
	enum { N = 20000 };
	struct dpr_worker *w = r->w[0];
	struct outcome *fast = calloc(N, sizeof(*fast)), *ref = calloc(N, sizeof(*ref));
	struct dpr_port_counters fast_st, ref_st;
	struct dpr_ip4_pending pend[2], *waiting = NULL;
	struct rte_mbuf *pkts[DPR_BURST];
	uint32_t seqs[2][SEQS] = { { 0 } };
	unsigned int i, j, k, cur = 0, differ = 0, fast_v6 = 0, n_v6 = 0;
	unsigned int forwarded = 0, diverted = 0;

	if (fast == NULL || ref == NULL)
		abort();
	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i += k) {
		k = RTE_MIN(N - i, 1 + (unsigned int)(rte_rand() % DPR_BURST));
		for (j = 0; j < k; j++) {
			pkts[j] = gen_packet(i + j, in, r->ports);
			pkts[j]->dynfield1[0] = i + j;
			n_v6 += rte_pktmbuf_mtod(pkts[j], struct rte_ether_hdr *)->ether_type ==
				RTE_BE16(RTE_ETHER_TYPE_IPV6);
		}
		if (pipelined) {
			memcpy(pend[cur].pkts, pkts, k * sizeof(pkts[0]));
			waiting = dpr_ip4_pipeline(w, in, (uint16_t)k, &pend[cur], waiting);
			/* IPv6 packets the screen passed without the reference. */
			fast_v6 += (unsigned int)__builtin_popcount(waiting->v6 & ~waiting->v6_slow);
			cur ^= 1;
		} else {
			dpr_ip4_input_burst(w, in, pkts, (uint16_t)k);
		}
		drain(w, fast, seqs[0]);
	}
	if (waiting != NULL)
		dpr_ip4_finish_burst(w, waiting);
	drain(w, fast, seqs[0]);
	fast_st = w->stats[in];
	CHECK_EQ(accounted(&fast_st), N);

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i++) {
		struct rte_mbuf *m = gen_packet(i, in, r->ports);

		reference_one(w, in, m, &ref[i], seqs[1]);
	}
	ref_st = w->stats[in];

	for (i = 0; i < N; i++) {
		const struct outcome *a = &fast[i], *b = &ref[i];

		forwarded += a->kind == 1;
		diverted += a->kind == 2;
		if (!same_outcome(a, b) && differ++ < 5) {
			unsigned int at = 0;

			while (at < sizeof(a->bytes) && a->bytes[at] == b->bytes[at])
				at++;
			CHECK(false, "%s, in p%u: packet %u: fast kind %d/%u/%u in %u len %u segs %u sane %d, reference kind %d/%u/%u in %u len %u segs %u sane %d, first %u bytes equal, sums %s",
			      pipelined ? "pipelined" : "at once", in, i,
			      a->kind, a->where, a->arg, a->in, a->len, a->segs, a->sane,
			      b->kind, b->where, b->arg, b->in, b->len, b->segs, b->sane, at,
			      a->sum == b->sum ? "equal" : "differ");
		}
	}
	CHECK(differ == 0, "%s, in p%u: %u of %u packets differ", pipelined ? "pipelined" : "at once",
	      in, differ, (unsigned int)N);
	CHECK_EQ(fast_st.forwarded, ref_st.forwarded);
	CHECK_EQ(fast_st.exception, ref_st.exception);
	for (i = 0; i < DPR_DROP_MAX; i++)
		CHECK(fast_st.drops[i] == ref_st.drops[i], "drop %s: fast %" PRIu64 ", reference %" PRIu64,
		      dpr_drop_names[i], fast_st.drops[i], ref_st.drops[i]);
	for (i = 0; i < DPR_EXC_MAX; i++)
		CHECK(fast_st.exc[i] == ref_st.exc[i], "exception %s: fast %" PRIu64 ", reference %" PRIu64,
		      dpr_exc_names[i], fast_st.exc[i], ref_st.exc[i]);
	/* The mix reaches every outcome an IPv6 packet can have, in bulk,
	 * and the screen's fast path: a comparison of the reference with
	 * itself would prove nothing. */
	CHECK(forwarded > N / 8 && diverted > N / 20 && dpr_counters_drops(&ref_st) > N / 20,
	      "%u forwarded, %u diverted", forwarded, diverted);
	for (i = DPR_DROP_RUNT; i <= DPR_DROP_BLACKHOLE; i++)
		CHECK(i == DPR_DROP_BAD_CHECKSUM || ref_st.drops[i] > 10,
		      "the mix has only %" PRIu64 " drops for %s", ref_st.drops[i], dpr_drop_names[i]);
	/* Redirects are off in this rig (test_exception6.c has them). */
	for (i = 0; i < DPR_EXC_MAX; i++)
		CHECK(i == DPR_EXC_REDIRECT || ref_st.exc[i] > 10,
		      "the mix has only %" PRIu64 " %s exceptions",
		      ref_st.exc[i], dpr_exc_names[i]);
	printf("random mix, %s, in p%u: %u packets: %u forwarded, %u diverted, %" PRIu64 " dropped",
	       pipelined ? "pipelined" : "at once", in, (unsigned int)N, forwarded, diverted,
	       dpr_counters_drops(&ref_st));
	if (pipelined)
		printf("; %u of %u IPv6 packets passed the screen's fast path", fast_v6, n_v6);
	printf("\n");
	if (pipelined)
		CHECK(fast_v6 > N / 40, "only %u of %u IPv6 packets on the screen's fast path",
		      fast_v6, n_v6);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	free(fast);
	free(ref);
}

/* ------------------------------------------------------------------------ */

/* Directed cases: one packet each, its exact fate. */
enum dmac_kind { D_OWN, D_OTHER, D_BCAST, D_MC_ALL, D_MC_SN, D_PEER_PORT };
enum mutation {
	M_NONE,
	M_PAD,         /* 20 bytes of link-layer padding */
	M_PAD_SEG,     /* padding in a segment of its own */
	M_CHAIN,       /* the payload split across two segments */
	M_RUNT,        /* a frame of 53 bytes: less than Ethernet and IPv6 headers */
	M_RUNT_SHORT,  /* 10 bytes */
	M_VERSION4,    /* version nibble 4 in an IPv6 frame */
	M_VERSION0,
	M_PLEN_LONG,   /* payload length one past the frame */
	M_JUMBO,       /* payload length 0 with a hop-by-hop header */
	M_TCLASS,      /* traffic class and flow label set */
	M_PLEN_SHORT,  /* payload length 10 bytes less than the frame's: padding */
};
enum { K_DROP, K_FWD, K_EXC };
/* Exception arguments known only at run time. */
#define ARG_NONE UINT32_C(0xa5a5a5a5)
#define ARG_GW_UNRES UINT32_C(0xf0000001)
#define ARG_CONN_P1 UINT32_C(0xf0000002)

struct case6 {
	const char *what;
	enum dmac_kind dmac;
	const char *src, *dst;
	uint8_t hops, proto;
	uint16_t payload;
	enum mutation mut;
	int kind;
	uint32_t where;   /* drop reason, output port or exception class */
	uint32_t arg;     /* exception argument */
	const struct rte_ether_addr *nh_mac;
};

#define H1 "2001:db8:1::2"
#define FAR "2001:db8:100::7"
/* The input port's own link-local address: fe80::1 on p0, fe80::2 on p1. */
#define OWN_LL "own-ll"
/* A destination routed out of the other port: FAR from p0, one behind
 * 2001:db8:1::2 from p1. (A link-local source leaving by the link it came
 * in on stays in its zone, RFC 4007 9: not asserted here.) */
#define OFF_LINK "off-link"

static const struct case6 cases[] = {
	/* Forwarded: RFC 8200 3, hop limit - 1; MACs rewritten; the rest,
	 * extension headers included (RFC 8200 4: only hop-by-hop is for
	 * routers), untouched. */
	{ "forwarded, UDP", D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, hop limit 2",
	  D_OWN, H1, FAR, 2, IPPROTO_UDP, 40, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, hop limit 255",
	  D_OWN, H1, FAR, 255, IPPROTO_TCP, 40, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, routing header",
	  D_OWN, H1, FAR, 64, IPPROTO_ROUTING, 24, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, fragment header",
	  D_OWN, H1, FAR, 64, IPPROTO_FRAGMENT, 24, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, destination options",
	  D_OWN, H1, FAR, 64, IPPROTO_DSTOPTS, 24, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, no next header",
	  D_OWN, H1, FAR, 64, IPPROTO_NONE, 0, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, ICMPv6",
	  D_OWN, H1, FAR, 64, IPPROTO_ICMPV6, 8, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, padding trimmed",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 4, M_PAD, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, padding segment freed",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 4, M_PAD_SEG, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, payload length short of the frame",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 30, M_PLEN_SHORT, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, chained",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 300, M_CHAIN, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, traffic class and flow label kept",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_TCLASS, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, to a connected neighbour",
	  D_OWN, H1, "2001:db8:2::2", 64, IPPROTO_UDP, 40, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, via a link-local gateway",
	  D_OWN, H1, "2001:db8:300::1", 64, IPPROTO_UDP, 40, M_NONE, K_FWD, 1, 0, &mac_ll },
	{ "forwarded, longer route, back out of p0",
	  D_OWN, "2001:db8:2::2", "2001:db8:100:0:1::7", 64, IPPROTO_UDP, 40, M_NONE, K_FWD, 0, 0, &mac_h1 },
	{ "forwarded, site-local source (not link-local)",
	  D_OWN, "fec0::1", FAR, 64, IPPROTO_UDP, 40, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, exactly p1's MTU",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, MTU_P1 - 40, M_NONE, K_FWD, 1, 0, &mac_h2 },
	{ "forwarded, exactly p0's MTU",
	  D_OWN, "2001:db8:2::2", H1, 64, IPPROTO_UDP, MTU_P0 - 40, M_NONE, K_FWD, 0, 0, &mac_h1 },

	/* Drops. */
	{ "runt: 53 bytes",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_RUNT, K_DROP, DPR_DROP_RUNT, 0, NULL },
	{ "runt: 10 bytes",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_RUNT_SHORT, K_DROP, DPR_DROP_RUNT, 0, NULL },
	{ "unicast to another MAC",
	  D_OTHER, H1, FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_OTHER_HOST, 0, NULL },
	{ "unicast to the other port's MAC",
	  D_PEER_PORT, H1, FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_OTHER_HOST, 0, NULL },
	/* RFC 4443 2.4 (e.3): never forwarded, nor answered. */
	{ "L2 broadcast to a forwardable unicast",
	  D_BCAST, H1, FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_OTHER_HOST, 0, NULL },
	{ "L2 multicast to a forwardable unicast",
	  D_MC_ALL, H1, FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_OTHER_HOST, 0, NULL },
	{ "L2 multicast to no route",
	  D_MC_SN, H1, "3fff::1", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_OTHER_HOST, 0, NULL },
	{ "L2 broadcast to a link-local not ours",
	  D_BCAST, H1, "fe80::5", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_OTHER_HOST, 0, NULL },
	/* RFC 8200 3: version 6. */
	{ "version 4 in an IPv6 frame",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_VERSION4, K_DROP, DPR_DROP_BAD_HEADER, 0, NULL },
	{ "version 0",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_VERSION0, K_DROP, DPR_DROP_BAD_HEADER, 0, NULL },
	/* RFC 8200 3 payload length; RFC 2675 jumbogram. */
	{ "payload length past the frame",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, 40, M_PLEN_LONG, K_DROP, DPR_DROP_BAD_LENGTH, 0, NULL },
	{ "jumbogram",
	  D_OWN, H1, FAR, 64, IPPROTO_HOPOPTS, 8, M_JUMBO, K_DROP, DPR_DROP_BAD_LENGTH, 0, NULL },
	/* RFC 4291 2.7: multicast is never a source. */
	{ "multicast source ff02::1",
	  D_OWN, "ff02::1", FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "multicast source ff05::2",
	  D_OWN, "ff05::2", FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	/* RFC 4291 2.5.3 loopback, 2.5.2 unspecified, RFC 6890 mapped. */
	{ "loopback source",
	  D_OWN, "::1", FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "IPv4-mapped source",
	  D_OWN, "::ffff:1.2.3.4", FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "unspecified source to unicast",
	  D_OWN, "::", FAR, 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "unspecified source to our address",
	  D_OWN, "::", "2001:db8:1::1", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "loopback destination",
	  D_OWN, H1, "::1", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "unspecified destination",
	  D_OWN, H1, "::", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "IPv4-mapped destination",
	  D_OWN, H1, "::ffff:1.2.3.4", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	/* RFC 4291 2.5.6: a link-local destination not ours is never forwarded. */
	{ "link-local destination not ours",
	  D_OWN, H1, "fe80::5", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "link-local to link-local not ours",
	  D_OWN, "fe80::99", "fe80::5", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_MARTIAN, 0, NULL },
	{ "blackhole route",
	  D_OWN, H1, "2001:db8:dead::1", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_BLACKHOLE, 0, NULL },
	{ "blackhole route, hop limit 1",
	  D_OWN, H1, "2001:db8:dead::1", 1, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_BLACKHOLE, 0, NULL },

	/* Exceptions. Multicast is the control thread's (NDP, MLD). */
	{ "multicast ff02::1",
	  D_MC_ALL, "fe80::99", "ff02::1", 255, IPPROTO_ICMPV6, 24, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "multicast ff05::2 in a unicast frame",
	  D_OWN, H1, "ff05::2", 64, IPPROTO_UDP, 24, M_PAD, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "DAD: unspecified source to solicited-node",
	  D_MC_SN, "::", "ff02::1:ff00:1", 255, IPPROTO_ICMPV6, 24, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "MLD report with hop-by-hop",
	  D_MC_ALL, "fe80::99", "ff02::16", 1, IPPROTO_HOPOPTS, 36, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "our global address, hop limit 1",
	  D_OWN, H1, "2001:db8:1::1", 1, IPPROTO_ICMPV6, 16, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "our other port's address",
	  D_OWN, H1, "2001:db8:2::1", 64, IPPROTO_ICMPV6, 16, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "our link-local address",
	  D_OWN, "fe80::99", OWN_LL, 255, IPPROTO_ICMPV6, 16, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "our link-local address from a global source",
	  D_OWN, H1, OWN_LL, 64, IPPROTO_ICMPV6, 16, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "our global address from a link-local source",
	  D_OWN, "fe80::99", "2001:db8:1::1", 64, IPPROTO_ICMPV6, 16, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "L2 multicast to our address (NS)",
	  D_MC_SN, H1, "2001:db8:1::1", 255, IPPROTO_ICMPV6, 24, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	{ "L2 broadcast to our link-local address",
	  D_BCAST, "fe80::99", OWN_LL, 255, IPPROTO_ICMPV6, 24, M_NONE, K_EXC, DPR_EXC_LOCAL, ARG_NONE, NULL },
	/* RFC 8200 4: hop-by-hop options are examined by routers. */
	{ "hop-by-hop options",
	  D_OWN, H1, FAR, 64, IPPROTO_HOPOPTS, 16, M_NONE,
	  K_EXC, DPR_EXC_IP_OPTIONS, ARG_NONE, NULL },
	{ "hop-by-hop options, padded",
	  D_OWN, H1, FAR, 64, IPPROTO_HOPOPTS, 16, M_PAD,
	  K_EXC, DPR_EXC_IP_OPTIONS, ARG_NONE, NULL },
	/* RFC 4007 9: a link-local source never leaves its link. */
	{ "link-local source leaving its link",
	  D_OWN, "fe80::99", OFF_LINK, 64, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_BEYOND_SCOPE, ARG_NONE, NULL },
	{ "link-local source to no route",
	  D_OWN, "fe80::99", "3fff::1", 64, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_BEYOND_SCOPE, ARG_NONE, NULL },
	/* A blackhole discards silently, whatever the source (dpr_l3_decide()). */
	{ "link-local source to a blackhole route",
	  D_OWN, "fe80::99", "2001:db8:dead::1", 64, IPPROTO_UDP, 40, M_NONE, K_DROP, DPR_DROP_BLACKHOLE, 0, NULL },
	/* RFC 8200 3, RFC 4443 3.3: hop limit would reach 0. */
	{ "hop limit 1",
	  D_OWN, H1, FAR, 1, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_TTL_EXPIRED, ARG_NONE, NULL },
	{ "hop limit 0",
	  D_OWN, H1, FAR, 0, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_TTL_EXPIRED, ARG_NONE, NULL },
	{ "hop limit 1, padded",
	  D_OWN, H1, FAR, 1, IPPROTO_UDP, 4, M_PAD, K_EXC, DPR_EXC_TTL_EXPIRED, ARG_NONE, NULL },
	/* RFC 4443 3.1 code 0. */
	{ "no route",
	  D_OWN, H1, "3fff::1", 64, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_NO_ROUTE, ARG_NONE, NULL },
	{ "no route, hop limit 1",
	  D_OWN, H1, "3fff::1", 1, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_NO_ROUTE, ARG_NONE, NULL },
	/* RFC 4861 7.2.2: resolve, hold. */
	{ "unresolved gateway",
	  D_OWN, H1, "2001:db8:200::5", 64, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_UNRESOLVED, ARG_GW_UNRES, NULL },
	{ "unresolved neighbour on a connected subnet",
	  D_OWN, H1, "2001:db8:2::9", 64, IPPROTO_UDP, 40, M_NONE, K_EXC, DPR_EXC_UNRESOLVED, ARG_CONN_P1, NULL },
	/* RFC 8200 5, RFC 4443 3.2: packet too big, the output port. */
	{ "one past p1's MTU",
	  D_OWN, H1, FAR, 64, IPPROTO_UDP, MTU_P1 - 40 + 1, M_NONE,
	  K_EXC, DPR_EXC_MTU_EXCEEDED, 1, NULL },
	{ "past p1's MTU, chained",
	  D_OWN, H1, FAR, 64, IPPROTO_FRAGMENT, MTU_P1, M_CHAIN,
	  K_EXC, DPR_EXC_MTU_EXCEEDED, 1, NULL },
};

static const struct rte_ether_addr *
dmac_of(enum dmac_kind k, const struct dpr_port_dp *ports, uint16_t in)
{
	switch (k) {
	case D_OWN: return &ports[in].mac;
	case D_OTHER: return &mac_other;
	case D_BCAST: return &mac_bcast;
	case D_MC_ALL: return &mac_33_1;
	case D_MC_SN: return &mac_33_sn;
	case D_PEER_PORT: return &ports[in ^ 1].mac;
	}
	return NULL;
}

static const uint8_t *
case_addr(const char *s, uint16_t in)
{
	if (strcmp(s, OWN_LL) == 0)
		return a6(in == 0 ? "fe80::1" : "fe80::2");
	if (strcmp(s, OFF_LINK) == 0)
		return a6(in == 0 ? FAR : "2001:db8:100:0:1::7");
	return a6(s);
}

static struct rte_mbuf *
build_case(const struct case6 *c, const struct dpr_port_dp *ports, uint16_t in)
{
	struct rte_mbuf *m = mk_ip6(dmac_of(c->dmac, ports, in), case_addr(c->src, in),
				    case_addr(c->dst, in), c->hops, c->proto, c->payload);
	struct rte_ipv6_hdr *ip = ip6_hdr(m);

	switch (c->mut) {
	case M_NONE:
		break;
	case M_PAD:
		add_padding(m, 20);
		break;
	case M_PAD_SEG:
		add_padding_seg(m, 20);
		break;
	case M_CHAIN:
		split_at(m, RTE_ETHER_HDR_LEN + sizeof(*ip) + 10);
		break;
	case M_RUNT:
		rte_pktmbuf_trim(m, (uint16_t)(m->data_len - 53));
		break;
	case M_RUNT_SHORT:
		rte_pktmbuf_trim(m, (uint16_t)(m->data_len - 10));
		break;
	case M_VERSION4:
		ip->vtc_flow = RTE_BE32(UINT32_C(4) << 28);
		break;
	case M_VERSION0:
		ip->vtc_flow = 0;
		break;
	case M_PLEN_LONG:
		ip->payload_len = rte_cpu_to_be_16(c->payload + 1);
		break;
	case M_JUMBO:
		ip->payload_len = 0;
		break;
	case M_TCLASS:
		ip->vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28 | UINT32_C(0xb8) << 20 | 0xabcde);
		break;
	case M_PLEN_SHORT:
		ip->payload_len = rte_cpu_to_be_16(c->payload - 10);
		break;
	}
	return m;
}

/* The length of the IPv6 packet the case's frame holds (payload length + 40). */
static uint32_t
case_ip_len(const struct case6 *c)
{
	return sizeof(struct rte_ipv6_hdr) +
		(c->mut == M_PLEN_SHORT ? c->payload - 10u : c->payload);
}

static uint32_t
case_arg(const struct rig *r, const struct case6 *c)
{
	if (c->arg == ARG_GW_UNRES)
		return r->nh_gw_unres;
	if (c->arg == ARG_CONN_P1)
		return r->nh_conn_p1;
	return c->arg;
}

/*
 * Where one directed case went and what it looks like, against @p orig,
 * the packet's bytes as sent. A forwarded packet: out by the expected port
 * with the neighbour's MAC, the port's own as source, EtherType IPv6, hop
 * limit one lower and every other byte of the IPv6 packet as sent,
 * padding trimmed. A diverted one: class, input port, argument, and
 * untouched (the control thread quotes it in ICMPv6 errors, RFC 4443 2.4
 * (c)), padding trimmed.
 */
static void
check_case(const struct rig *r, const struct case6 *c, uint16_t in, const struct outcome *o,
	   const uint8_t *orig, uint32_t want_sum, const char *mode)
{
	uint32_t ip_len = case_ip_len(c);
	uint8_t want[sizeof(o->bytes)];
	size_t cmp = RTE_MIN(sizeof(want), (size_t)(RTE_ETHER_HDR_LEN + ip_len));
	const struct dpr_port_dp *ports = r->ports;

	CHECK(o->kind == c->kind, "%s, in p%u: %s: went %s, want %s", mode, in, c->what,
	      (const char *[]){ "drop", "forward", "exception" }[o->kind],
	      (const char *[]){ "drop", "forward", "exception" }[c->kind]);
	if (o->kind != c->kind)
		return;
	memcpy(want, orig, sizeof(want));
	if (c->kind == K_FWD) {
		struct rte_ether_hdr *e = (struct rte_ether_hdr *)want;
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(e + 1);

		CHECK(o->where == c->where, "%s, in p%u: %s: out by p%u, want p%u", mode, in,
		      c->what, o->where, c->where);
		e->dst_addr = *c->nh_mac;
		e->src_addr = ports[c->where].mac;
		e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		ip->hop_limits--;
		CHECK(o->len == RTE_ETHER_HDR_LEN + ip_len, "%s, in p%u: %s: %u bytes, want %u (padding trimmed)",
		      mode, in, c->what, o->len, RTE_ETHER_HDR_LEN + ip_len);
		CHECK(o->sane, "%s, in p%u: %s: mbuf lengths and segments disagree", mode, in, c->what);
		CHECK(memcmp(o->bytes, want, cmp) == 0,
		      "%s, in p%u: %s: headers not as expected (MACs, EtherType, hop limit %u -> %u)",
		      mode, in, c->what, c->hops, o->bytes[RTE_ETHER_HDR_LEN + 7]);
		CHECK(o->sum == want_sum, "%s, in p%u: %s: payload changed", mode, in, c->what);
	} else if (c->kind == K_EXC) {
		CHECK(o->where == c->where, "%s, in p%u: %s: exception %s, want %s", mode, in,
		      c->what, o->where < DPR_EXC_MAX ? dpr_exc_names[o->where] : "?",
		      dpr_exc_names[c->where]);
		CHECK(o->in == in, "%s, in p%u: %s: metadata says input port %u", mode, in, c->what,
		      o->in);
		if (c->where == DPR_EXC_UNRESOLVED || c->where == DPR_EXC_MTU_EXCEEDED)
			CHECK(o->arg == case_arg(r, c), "%s, in p%u: %s: argument %#x, want %#x",
			      mode, in, c->what, o->arg, case_arg(r, c));
		CHECK(o->len == RTE_ETHER_HDR_LEN + ip_len, "%s, in p%u: %s: %u bytes, want %u",
		      mode, in, c->what, o->len, RTE_ETHER_HDR_LEN + ip_len);
		CHECK(memcmp(o->bytes, want, cmp) == 0 &&
		      o->sum == want_sum,
		      "%s, in p%u: %s: the diverted packet was changed", mode, in, c->what);
	}
}

/*
 * Every directed case in a burst of its own between two IPv4 packets (a
 * mixed burst: the EtherType split), at once and pipelined, on both input
 * ports: its outcome exactly, and exactly one counter moved for it.
 */
static void
test_directed(struct rig *r, uint16_t in, bool pipelined)
{
	struct dpr_worker *w = r->w[0];
	const char *mode = pipelined ? "pipelined" : "at once";
	unsigned int i, j;

	for (i = 0; i < RTE_DIM(cases); i++) {
		const struct case6 *c = &cases[i];
		struct outcome out[3];
		uint32_t seqs[SEQS] = { 0 };
		struct dpr_ip4_pending pend;
		struct rte_mbuf *pkts[3], *m;
		uint8_t orig[sizeof(out[0].bytes)];
		uint32_t want_sum = 0;
		struct dpr_port_counters *st = &w->stats[in];

		memset(w->stats, 0, sizeof(w->stats));
		memset(out, 0, sizeof(out));
		m = build_case(c, r->ports, in);
		pkt_bytes(m, orig, sizeof(orig));
		if (c->kind != K_DROP) {
			/* The whole packet as it should leave, built by hand:
			 * padding cut; forwarded, the rewrite (all of it in
			 * the first segment). */
			struct rte_mbuf *t = build_case(c, r->ports, in);
			struct rte_ether_hdr *e = rte_pktmbuf_mtod(t, struct rte_ether_hdr *);

			dpr_pktmbuf_cut(t, RTE_ETHER_HDR_LEN + case_ip_len(c));
			if (c->kind == K_FWD) {
				e->dst_addr = *c->nh_mac;
				e->src_addr = r->ports[c->where].mac;
				ip6_hdr(t)->hop_limits--;
			}
			want_sum = pkt_sum(t);
			rte_pktmbuf_free(t);
		}
		pkts[0] = mk_ip4(&r->ports[in].mac, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 16);
		pkts[1] = m;
		pkts[2] = mk_ip4(&r->ports[in].mac, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 16);
		for (j = 0; j < 3; j++)
			pkts[j]->dynfield1[0] = j;
		if (pipelined) {
			memcpy(pend.pkts, pkts, sizeof(pkts));
			dpr_ip4_pipeline(w, in, 3, &pend, NULL);
			/* Nothing leaves before pass 3. */
			CHECK(w->tx[0].n + w->tx[1].n == 0, "%s: sent before its pass 3", c->what);
			dpr_ip4_finish_burst(w, &pend);
		} else {
			dpr_ip4_input_burst(w, in, pkts, 3);
		}
		drain(w, out, seqs);
		check_case(r, c, in, &out[1], orig, want_sum, mode);
		CHECK(out[0].kind == 1 && out[0].where == 1 && out[0].arg == 0 &&
		      out[2].kind == 1 && out[2].where == 1,
		      "%s, in p%u: %s: the IPv4 packets around it were not forwarded in order",
		      mode, in, c->what);
		CHECK(st->forwarded == 2u + (c->kind == K_FWD), "%s, in p%u: %s: forwarded %" PRIu64,
		      mode, in, c->what, st->forwarded);
		CHECK(st->exception == (c->kind == K_EXC) &&
		      (c->kind != K_EXC || st->exc[c->where] == 1),
		      "%s, in p%u: %s: exception counters", mode, in, c->what);
		CHECK(dpr_counters_drops(st) == (c->kind == K_DROP) &&
		      (c->kind != K_DROP || st->drops[c->where] == 1),
		      "%s, in p%u: %s: drop counters (want one %s)", mode, in, c->what,
		      c->kind == K_DROP ? dpr_drop_names[c->where] : "none");
		CHECK_EQ(accounted(st), 3);
		CHECK_EQ(accounted(&w->stats[in ^ 1]), 0);
	}
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * All directed cases at once, in full bursts with IPv4 between them: the
 * same totals per reason and class as one by one.
 */
static void
test_directed_bursts(struct rig *r, bool pipelined)
{
	struct dpr_worker *w = r->w[0];
	struct dpr_ip4_pending pend[2], *waiting = NULL;
	uint64_t want_drops[DPR_DROP_MAX] = { 0 }, want_exc[DPR_EXC_MAX] = { 0 };
	uint64_t want_fwd = 0, n = 0;
	struct outcome *out = calloc(2 * RTE_DIM(cases), sizeof(*out));
	uint32_t seqs[SEQS] = { 0 };
	unsigned int i = 0, cur = 0, k;

	memset(w->stats, 0, sizeof(w->stats));
	while (i < RTE_DIM(cases)) {
		struct rte_mbuf *pkts[DPR_BURST];

		for (k = 0; k < DPR_BURST && i < RTE_DIM(cases); k++) {
			const struct case6 *c = &cases[i];

			if (k % 3 == 1) {
				pkts[k] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7),
						 64, 8);
				want_fwd++;
			} else {
				pkts[k] = build_case(c, r->ports, 0);
				if (c->kind == K_FWD)
					want_fwd++;
				else if (c->kind == K_EXC)
					want_exc[c->where]++;
				else
					want_drops[c->where]++;
				i++;
			}
			pkts[k]->dynfield1[0] = (uint32_t)n++;
		}
		if (pipelined) {
			memcpy(pend[cur].pkts, pkts, k * sizeof(pkts[0]));
			waiting = dpr_ip4_pipeline(w, 0, (uint16_t)k, &pend[cur], waiting);
			cur ^= 1;
		} else {
			dpr_ip4_input_burst(w, 0, pkts, (uint16_t)k);
		}
		drain(w, out, seqs);
	}
	if (waiting != NULL)
		dpr_ip4_finish_burst(w, waiting);
	drain(w, out, seqs);
	CHECK_EQ(w->stats[0].forwarded, want_fwd);
	for (i = 0; i < DPR_DROP_MAX; i++)
		CHECK(w->stats[0].drops[i] == want_drops[i], "%s bursts: drop %s %" PRIu64 ", want %" PRIu64,
		      pipelined ? "pipelined" : "at-once", dpr_drop_names[i], w->stats[0].drops[i],
		      want_drops[i]);
	for (i = 0; i < DPR_EXC_MAX; i++)
		CHECK(w->stats[0].exc[i] == want_exc[i], "%s bursts: exception %s %" PRIu64 ", want %" PRIu64,
		      pipelined ? "pipelined" : "at-once", dpr_exc_names[i], w->stats[0].exc[i],
		      want_exc[i]);
	CHECK_EQ(accounted(&w->stats[0]), n);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	free(out);
}

/*
 * In a deep FIB, a burst of IPv6 packets only goes ahead while pipelined:
 * its tbl24 entries are read at the end of the call that screened it
 * (dpr_ip4_pipeline()), so it waits holding FIB entries. The worker must
 * not report RCU quiescence between calls then (dpr_ip4_holds_entries()),
 * and the next call must report it itself, between the waiting burst's
 * pass 3 and the next burst's pass 2: otherwise a grace period could end
 * while entries are held (a group freed under a worker), or, with IPv6
 * traffic flowing, never end (every route change would hang). A burst
 * with IPv6 in it goes ahead too; an IPv4 burst, or any burst in a
 * shallow FIB, waits with addresses only, as before.
 */
static void
test_ahead_rcu(struct rig *r, bool deep)
{
	struct dpr_worker *w = r->w[0];
	struct dpr_ip4_pending pend[4], *waiting;
	unsigned int i, b, p;
	uint64_t token;

	memset(w->stats, 0, sizeof(w->stats));
	w->tx[0].n = w->tx[1].n = 0;
	for (b = 0; b < 3; b++) {
		for (i = 0; i < 8; i++) {
			char a[64];

			snprintf(a, sizeof(a), "2001:db8:100:%x::1", 8 * b + i + 1);
			pend[b].pkts[i] = mk_ip6(&mac_p0, a6("2001:db8:1::2"), a6(a), 64,
						 IPPROTO_UDP, 32);
		}
	}
	/* The third burst has an IPv4 packet, the fourth only IPv4 ones. */
	rte_pktmbuf_free(pend[2].pkts[3]);
	pend[2].pkts[3] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 8);
	for (i = 0; i < 8; i++)
		pend[3].pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 8 + i), 64, 8);

	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[0], NULL);
	CHECK(dpr_ip4_holds_entries(waiting) == deep,
	      "an IPv6 burst waits %s FIB entries in a %s FIB", deep ? "with" : "without",
	      deep ? "deep" : "shallow");
	token = rte_rcu_qsbr_start(r->qsbr);
	rte_rcu_qsbr_quiescent(r->qsbr, 1);
	CHECK(rte_rcu_qsbr_check(r->qsbr, token, false) == 0,
	      "no grace period ends between calls before the worker reports");
	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[1], waiting);
	CHECK(rte_rcu_qsbr_check(r->qsbr, token, false) == (deep ? 1 : 0),
	      "the next call reports quiescence itself in a %s FIB", deep ? "deep" : "shallow");
	CHECK(dpr_ip4_holds_entries(waiting) == deep, "the next IPv6 burst waits the same way");
	CHECK_EQ(w->tx[1].n, 8);
	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[2], waiting);
	CHECK(dpr_ip4_holds_entries(waiting) == deep, "a mixed burst waits the same way");
	CHECK_EQ(w->tx[1].n, 16);
	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[3], waiting);
	CHECK(!dpr_ip4_holds_entries(waiting), "an IPv4 burst waits with addresses only");
	CHECK_EQ(w->tx[1].n, 24);
	dpr_ip4_finish_burst(w, waiting);
	CHECK_EQ(w->tx[1].n, 32);
	CHECK_EQ(w->stats[0].forwarded, 32);
	for (p = 0; p < 2; p++) {
		for (i = 0; i < w->tx[p].n; i++) {
			const struct rte_ether_hdr *eth =
				rte_pktmbuf_mtod(w->tx[p].pkts[i], struct rte_ether_hdr *);
			/* A mixed burst goes family by family, its IPv4 packet
			 * first, each family in arrival order (pass 3). */
			static const uint8_t mixed[8] = { 3, 0, 1, 2, 4, 5, 6, 7 };
			unsigned int want = i / 8 == 2 ? mixed[i % 8] : i % 8;

			CHECK(w->tx[p].pkts[i] == pend[i / 8].pkts[want],
			      "packet %u left by p%u in order (burst %u's packet %u)", i, p, i / 8,
			      want);
			CHECK(rte_is_same_ether_addr(&eth->dst_addr, &mac_h2), "to 2001:db8:2::2's MAC");
		}
		rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
		w->tx[p].n = 0;
	}
	rte_rcu_qsbr_quiescent(r->qsbr, 0);

	/* A burst all of VLAN interface p0.100 (untagged already, as the
	 * VLAN stage hands it on) never reports: the worker finishes it at
	 * once, and vlan.del counts on no report coming inside one. */
	for (i = 0; i < 8; i++) {
		char a[64];

		snprintf(a, sizeof(a), "2001:db8:100:%x::1", i + 1);
		pend[0].pkts[i] = mk_ip6(&mac_p0, a6("2001:db8:1::2"), a6(a), 64, IPPROTO_UDP, 32);
	}
	token = rte_rcu_qsbr_start(r->qsbr);
	rte_rcu_qsbr_quiescent(r->qsbr, 1);
	waiting = dpr_ip4_pipeline(w, 2, 8, &pend[0], NULL);
	CHECK(rte_rcu_qsbr_check(r->qsbr, token, false) == 0,
	      "no report inside a VLAN interface's burst (%s FIB)", deep ? "deep" : "shallow");
	dpr_ip4_finish_burst(w, waiting);
	CHECK_EQ(w->stats[2].forwarded, 8);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	rte_rcu_qsbr_quiescent(r->qsbr, 0);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * The deep hint switches with hysteresis (fib6.c set_deep()): on above the
 * threshold, off only at or below 7/8 of it, so that churn around the
 * threshold leaves the workers' walk alone.
 */
static void
expect_deep(struct rig *r, uint32_t threshold, bool deep, const char *why)
{
	dpr_fib6_set_deep_groups(r->fib6, threshold);
	CHECK(r->fib6->deep == deep, "deep hint with %u groups in use and threshold %u (%s): %s",
	      dpr_fib6_tbl8_used(r->fib6), threshold, why, r->fib6->deep ? "deep" : "shallow");
}

static void
test_deep_hysteresis(struct rig *r)
{
	uint32_t used = dpr_fib6_tbl8_used(r->fib6);

	CHECK(used >= 8, "the rig's IPv6 routes use at least 8 tbl8 groups (%u)", used);
	if (used < 8)
		return;
	expect_deep(r, UINT32_MAX, false, "never deep");
	expect_deep(r, used, false, "shallow before, not over the threshold");
	expect_deep(r, used - 1, true, "over the threshold");
	expect_deep(r, used, true, "deep before, over 7/8 of the threshold");
	expect_deep(r, used + used / 4, false, "at or below 7/8 of the threshold");
	expect_deep(r, used, false, "shallow before, not over the threshold");
	/* Deep again, as the tests after this one ran before it. */
	expect_deep(r, 0, true, "over a threshold of 0");
}

/*
 * rx == forwarded + exception + sum(drops), per port and per worker, with
 * the random mix arriving on both ports of two workers, bursts pipelined
 * and at once in turn: every packet counted once, on its input port, and
 * what the counters say left matches what left (TX buffers, the exception
 * ring) and the pool (every dropped mbuf freed, chains whole).
 */
static void
test_identity(struct rig *r)
{
	struct outcome *out = calloc(8192, sizeof(*out));
	struct dpr_port_counters total, per_w[2];
	uint64_t sent[2] = { 0 }, diverted[2] = { 0 };
	unsigned int wi, p, round, seed = 500000;

	if (out == NULL)
		abort();
	for (wi = 0; wi < 2; wi++)
		memset(r->w[wi]->stats, 0, sizeof(r->w[wi]->stats));
	for (round = 0; round < 64; round++) {
		for (wi = 0; wi < 2; wi++) {
			struct dpr_worker *w = r->w[wi];
			uint16_t in = (uint16_t)((round / 2 + wi) % 2);
			struct dpr_ip4_pending pend;
			struct rte_mbuf *pkts[DPR_BURST];
			uint16_t k = (uint16_t)(1 + (round * 7 + wi) % DPR_BURST), j;
			uint32_t seqs[SEQS] = { 0 };
			unsigned int before_tx = w->tx[0].n + w->tx[1].n;

			for (j = 0; j < k; j++) {
				pkts[j] = gen_packet(seed++, in, r->ports);
				pkts[j]->dynfield1[0] = j;
			}
			w->stats[in].rx += k; /* as the worker counts them, at RX */
			if (round % 2) {
				memcpy(pend.pkts, pkts, k * sizeof(pkts[0]));
				dpr_ip4_pipeline(w, in, k, &pend, NULL);
				dpr_ip4_finish_burst(w, &pend);
			} else {
				dpr_ip4_input_burst(w, in, pkts, k);
			}
			sent[wi] += w->tx[0].n + w->tx[1].n - before_tx;
			diverted[wi] += rte_ring_count(w->exc_ring);
			drain(w, out, seqs);
		}
	}
	memset(&total, 0, sizeof(total));
	for (wi = 0; wi < 2; wi++) {
		memset(&per_w[wi], 0, sizeof(per_w[wi]));
		for (p = 0; p < 2; p++) {
			const struct dpr_port_counters *c = &r->w[wi]->stats[p];
			uint64_t exc = 0;
			unsigned int e;

			for (e = 0; e < DPR_EXC_MAX; e++)
				exc += c->exc[e];
			CHECK(c->rx == accounted(c), "worker %u port %u: rx %" PRIu64 " != forwarded %" PRIu64 " + exception %" PRIu64 " + drops %" PRIu64,
			      wi, p, c->rx, c->forwarded, c->exception, dpr_counters_drops(c));
			CHECK(exc == c->exception, "worker %u port %u: exceptions by class %" PRIu64 ", total %" PRIu64,
			      wi, p, exc, c->exception);
			CHECK(c->rx > 0 && c->forwarded > 0 && c->exception > 0 &&
			      dpr_counters_drops(c) > 0, "worker %u port %u: a mixed load", wi, p);
			dpr_counters_add(&per_w[wi], c);
		}
		CHECK_EQ(per_w[wi].rx, accounted(&per_w[wi]));
		CHECK_EQ(per_w[wi].forwarded, sent[wi]);
		CHECK_EQ(per_w[wi].exception, diverted[wi]);
		dpr_counters_add(&total, &per_w[wi]);
	}
	CHECK_EQ(total.rx, seed - 500000);
	CHECK_EQ(total.rx, accounted(&total));
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	free(out);
}

/*
 * A full exception ring: the IPv6 packets it refuses are exception_full
 * drops, their exception counts taken back.
 */
static void
test_exception_full(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	struct rte_mbuf *pkts[DPR_BURST];
	unsigned int i, n, free_slots = rte_ring_free_count(w->exc_ring);

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < free_slots + 5; i += n) {
		unsigned int j;

		n = RTE_MIN((unsigned int)DPR_BURST, free_slots + 5 - i);
		for (j = 0; j < n; j++)
			pkts[j] = mk_ip6(&mac_p0, a6("fe80::99"), a6("ff02::1"), 255,
					 IPPROTO_ICMPV6, 24);
		dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);
	}
	CHECK_EQ(w->stats[0].exception, free_slots);
	CHECK_EQ(w->stats[0].exc[DPR_EXC_LOCAL], free_slots);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_EXCEPTION_FULL], 5);
	CHECK_EQ(accounted(&w->stats[0]), free_slots + 5);
	while ((i = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)pkts, DPR_BURST, NULL)) > 0)
		rte_pktmbuf_free_bulk(pkts, i);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * IPv4 keeps its own path. A burst of plain IPv4 takes the screen's fast
 * path with nothing marked IPv6, slow or gone, and leaves as before (TTL,
 * RFC 1624 checksum, MACs, EtherType IPv4, payload); with IPv6 packets
 * between them, exactly the IPv6 frames are marked, the IPv4 ones are
 * still fast and leave byte for byte as in the IPv4-only burst. An IPv4
 * frame whose version says 6 is an IPv4 bad header (RFC 1812 5.2.2), never
 * the IPv6 path's; an IPv6 frame whose version says 4 the reverse.
 */
/*
 * RFC 4007 9: a link-local source is confined to its link (zone), so a
 * packet from one may be forwarded back out of the link it came in on, and
 * only that: out of any other, beyond scope. From fe80::99 on p1, to
 * 2001:db8:100::7 (routed out of p1) and to 2001:db8:1::2 (out of p0).
 */
/*
 * The route of a packet from a link-local source, back out of the link it
 * came from when pass 1 screened it, leads out of another link when its
 * pass 3 comes (pipelined, a route added between): beyond scope, never
 * forwarded there (RFC 4291 2.5.6).
 */
static void
link_local_route_moved(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	struct dpr_port_counters *st = &w->stats[1];
	struct dpr_ip gw = ip6_of(H1);
	struct dpr_ip4_pending pend;
	struct dpr_route_op op;
	struct rte_mbuf *m = NULL;
	int idx, err;

	memset(w->stats, 0, sizeof(w->stats));
	pend.pkts[0] = mk_ip6(&mac_p1, a6("fe80::99"), a6(FAR), 64, IPPROTO_UDP, 40);
	CHECK(dpr_ip4_pipeline(w, 1, 1, &pend, NULL) == &pend, "the burst waits");
	idx = dpr_nh_get(r->nh, &gw, 0);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "next hop for %s", H1);
	op = (struct dpr_route_op){ .prefix = { .addr = ip6_of(FAR), .len = 128 },
				    .nh = (uint32_t)idx };
	CHECK_EQ(dpr_route_apply(&r->rib, &op, 1, &err), 1);
	dpr_ip4_finish_burst(w, &pend);
	CHECK(w->tx[0].n == 0 && w->tx[1].n == 0,
	      "link-local source, its route moved to p0: not forwarded (tx p0 %u, p1 %u)",
	      w->tx[0].n, w->tx[1].n);
	CHECK_EQ(st->exc[DPR_EXC_BEYOND_SCOPE], 1);
	CHECK_EQ(accounted(st), 1);
	op.del = 1;
	CHECK_EQ(dpr_route_apply(&r->rib, &op, 1, &err), 1);
	rte_pktmbuf_free_bulk(w->tx[0].pkts, w->tx[0].n);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[0].n = w->tx[1].n = 0;
	while (rte_ring_sc_dequeue(w->exc_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static void
test_link_local_source_same_link(struct rig *r, bool pipelined)
{
	struct dpr_worker *w = r->w[0];
	struct dpr_port_counters *st = &w->stats[1];
	struct dpr_ip4_pending pend[2], *waiting;
	struct rte_mbuf *m;

	memset(w->stats, 0, sizeof(w->stats));
	w->tx[0].n = w->tx[1].n = 0;
	pend[0].pkts[0] = mk_ip6(&mac_p1, a6("fe80::99"), a6(FAR), 64, IPPROTO_UDP, 40);
	pend[0].pkts[1] = mk_ip6(&mac_p1, a6("fe80::99"), a6("2001:db8:1::2"), 64, IPPROTO_UDP, 40);
	/* Hop-by-hop options are the control thread's (RFC 8200 4.3), from
	 * a link-local source as from any other. */
	pend[0].pkts[2] = mk_ip6(&mac_p1, a6("fe80::99"), a6(FAR), 64, IPPROTO_HOPOPTS, 40);
	if (pipelined) {
		waiting = dpr_ip4_pipeline(w, 1, 3, &pend[0], NULL);
		dpr_ip4_finish_burst(w, waiting);
	} else {
		dpr_ip4_input_burst(w, 1, pend[0].pkts, 3);
	}
	CHECK_EQ(st->forwarded, 1);
	CHECK_EQ(st->exc[DPR_EXC_BEYOND_SCOPE], 1);
	CHECK_EQ(st->exc[DPR_EXC_IP_OPTIONS], 1);
	CHECK(w->tx[1].n == 1 && w->tx[0].n == 0,
	      "link-local source: forwarded back out of p1 only (tx p0 %u, p1 %u)",
	      w->tx[0].n, w->tx[1].n);
	if (w->tx[1].n == 1) {
		m = w->tx[1].pkts[0];
		CHECK_EQ(ip6_hdr(m)->hop_limits, 63);
		rte_pktmbuf_free(m);
	}
	w->tx[1].n = 0;
	while (rte_ring_sc_dequeue(w->exc_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	if (pipelined && !r->fib6->deep)
		link_local_route_moved(r);
}

static void
test_ip4_unchanged(struct rig *r)
{
	enum { N4 = 16 };
	struct dpr_worker *w = r->w[0];
	struct dpr_port_counters *st = &w->stats[0];
	struct dpr_ip4_pending p;
	uint8_t first[N4][80];
	uint32_t first_sum[N4], v6_bits = 0;
	unsigned int i, n;
	struct rte_mbuf *m;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N4; i++)
		p.pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 1 + i), 64,
				   (uint16_t)(8 + i));
	dpr_l3_screen_burst(w, 0, N4, &p);
	CHECK(p.v6 == 0 && p.slow == 0 && p.gone == 0,
	      "IPv4-only burst: marks v6 %#x slow %#x gone %#x, want none", p.v6, p.slow, p.gone);
	dpr_ip4_finish_burst(w, &p);
	CHECK_EQ(w->tx[1].n, N4);
	CHECK_EQ(st->forwarded, N4);
	CHECK_EQ(st->exception + dpr_counters_drops(st), 0);
	for (i = 0; i < w->tx[1].n && i < N4; i++) {
		const struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;
		unsigned int b;
		bool payload_ok = true;

		m = w->tx[1].pkts[i];
		eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		ip = ip4_hdr(m);
		CHECK(m == p.pkts[i], "IPv4 packet %u left in its place", i);
		CHECK(rte_is_same_ether_addr(&eth->dst_addr, &mac_h2) &&
		      rte_is_same_ether_addr(&eth->src_addr, &mac_p1) &&
		      eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4),
		      "IPv4 packet %u: MACs and EtherType", i);
		CHECK_EQ(ip->time_to_live, 63);
		CHECK(rte_raw_cksum(ip, sizeof(*ip)) == 0xffff, "IPv4 packet %u: checksum", i);
		CHECK_EQ(m->pkt_len, RTE_ETHER_HDR_LEN + sizeof(*ip) + 8 + i);
		for (b = 0; b < 8 + i; b++)
			payload_ok &= ((uint8_t *)(ip + 1))[b] == (uint8_t)(b * 13 + 1);
		CHECK(payload_ok, "IPv4 packet %u: payload", i);
		pkt_bytes(m, first[i], sizeof(first[i]));
		first_sum[i] = pkt_sum(m);
	}
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;

	/* The same IPv4 packets with IPv6 ones (fast, slow, gone) between. */
	memset(w->stats, 0, sizeof(w->stats));
	n = 0;
	for (i = 0; i < N4; i++) {
		p.pkts[n++] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 1 + i), 64,
				     (uint16_t)(8 + i));
		v6_bits |= UINT32_C(1) << n;
		p.pkts[n++] = mk_ip6(&mac_p0, a6(H1), a6(i % 3 == 2 ? "::1" : FAR),
				     i % 3 == 1 ? 1 : 64, IPPROTO_UDP, 16);
	}
	dpr_l3_screen_burst(w, 0, (uint16_t)n, &p);
	CHECK((p.v6 | p.gone) == v6_bits && ((p.slow | p.gone) & ~v6_bits) == 0,
	      "mixed burst: IPv6 frames %#x, marked v6 %#x gone %#x slow %#x", v6_bits, p.v6,
	      p.gone, p.slow);
	dpr_ip4_finish_burst(w, &p);
	CHECK_EQ(st->forwarded, N4 + 6);
	CHECK_EQ(st->exc[DPR_EXC_TTL_EXPIRED], 5);
	CHECK_EQ(st->drops[DPR_DROP_MARTIAN], 5);
	CHECK_EQ(w->tx[1].n, N4 + 6);
	for (i = 0, n = 0; i < w->tx[1].n; i++) {
		uint8_t bytes[80];

		m = w->tx[1].pkts[i];
		if (rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type !=
		    RTE_BE16(RTE_ETHER_TYPE_IPV4))
			continue;
		pkt_bytes(m, bytes, sizeof(bytes));
		CHECK(n < N4 && memcmp(bytes, first[n], sizeof(bytes)) == 0 &&
		      pkt_sum(m) == first_sum[n],
		      "IPv4 packet %u in a mixed burst differs from the IPv4-only burst", n);
		n++;
	}
	CHECK_EQ(n, N4);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	while ((i = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)p.pkts, DPR_BURST, NULL)) > 0)
		rte_pktmbuf_free_bulk(p.pkts, i);

	/* Version against EtherType. */
	memset(w->stats, 0, sizeof(w->stats));
	m = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 40);
	ip4_hdr(m)->version_ihl = 0x65;
	ip4_hdr(m)->hdr_checksum = 0;
	ip4_hdr(m)->hdr_checksum = rte_ipv4_cksum(ip4_hdr(m));
	p.pkts[0] = m;
	m = mk_ip6(&mac_p0, a6(H1), a6(FAR), 64, IPPROTO_UDP, 40);
	ip6_hdr(m)->vtc_flow = RTE_BE32(UINT32_C(4) << 28);
	p.pkts[1] = m;
	dpr_l3_screen_burst(w, 0, 2, &p);
	CHECK(p.gone == 3 && p.v6 == 0, "both frames gone in pass 1 (gone %#x v6 %#x)",
	      p.gone, p.v6);
	dpr_ip4_finish_burst(w, &p);
	CHECK_EQ(st->drops[DPR_DROP_BAD_HEADER], 2);
	CHECK_EQ(accounted(st), 2);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * In a FIB that is not deep, a burst the pipeline holds across a quiescent
 * report keeps addresses, not FIB entries (a deep one: test_ahead_rcu()):
 * an IPv6 route added after its pass 1 applies to it
 * (the lookup is pass 2's). Here a /64 inside 2001:db8:100::/48 sends the
 * waiting burst back out of p0; the next burst, outside it, still goes by
 * p1.
 */
static void
test_pipeline_route_change(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	struct dpr_ip gw = ip6_of(H1);
	struct dpr_ip4_pending pend[2], *waiting;
	struct dpr_route_op op;
	unsigned int i;
	int idx, err;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < 8; i++) {
		char a[64];

		snprintf(a, sizeof(a), "2001:db8:100:5::%x", i + 1);
		pend[0].pkts[i] = mk_ip6(&mac_p0, a6("2001:db8:2::2"), a6(a), 64, IPPROTO_UDP, 32);
		snprintf(a, sizeof(a), "2001:db8:100:6::%x", i + 1);
		pend[1].pkts[i] = mk_ip6(&mac_p0, a6("2001:db8:2::2"), a6(a), 64, IPPROTO_UDP, 32);
	}
	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[0], NULL);
	CHECK_EQ(w->tx[0].n + w->tx[1].n, 0);

	idx = dpr_nh_get(r->nh, &gw, 0);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "next hop for %s", H1);
	op = (struct dpr_route_op){ .prefix = { .addr = ip6_of("2001:db8:100:5::"), .len = 64 },
				    .nh = (uint32_t)idx };
	CHECK_EQ(dpr_route_apply(&r->rib, &op, 1, &err), 1);

	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[1], waiting);
	CHECK_EQ(w->tx[0].n, 8);
	CHECK_EQ(w->tx[1].n, 0);
	dpr_ip4_finish_burst(w, waiting);
	CHECK_EQ(w->tx[1].n, 8);
	for (i = 0; i < w->tx[0].n; i++) {
		struct rte_mbuf *m = w->tx[0].pkts[i];
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

		CHECK(m == pend[0].pkts[i], "packet %u of the first burst left by p0, in order", i);
		CHECK(rte_is_same_ether_addr(&eth->dst_addr, &mac_h1), "to %s's MAC", H1);
		CHECK(rte_is_same_ether_addr(&eth->src_addr, &mac_p0), "from p0's MAC");
		CHECK_EQ(ip6_hdr(m)->hop_limits, 63);
	}
	for (i = 0; i < w->tx[1].n; i++)
		CHECK(w->tx[1].pkts[i] == pend[1].pkts[i], "packet %u of the second burst left by p1", i);
	CHECK_EQ(w->stats[0].forwarded, 16);

	op = (struct dpr_route_op){ .prefix = { .addr = ip6_of("2001:db8:100:5::"), .len = 64 },
				    .del = 1 };
	CHECK_EQ(dpr_route_apply(&r->rib, &op, 1, &err), 1);
	for (i = 0; i < 2; i++) {
		rte_pktmbuf_free_bulk(w->tx[i].pkts, w->tx[i].n);
		w->tx[i].n = 0;
	}
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * A TX queue that takes only part of a burst of IPv6 packets: the rest are
 * tx_full drops charged to the input port (the mbuf's, which the screen
 * sets when the PMD did not), and the counters still add up.
 */
static void
test_tx_full(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	struct rte_ring *txr = rte_ring_create("test6_txr", 4, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *pkts[8];
	unsigned int i, cap;
	int pid;

	CHECK(txr != NULL, "ring");
	if (txr == NULL)
		return;
	cap = rte_ring_get_capacity(txr);
	pid = rte_eth_from_ring(txr);
	CHECK(pid >= 0, "ring port");
	if (pid < 0)
		return;
	CHECK_EQ(rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf), 0);
	CHECK_EQ(rte_eth_rx_queue_setup((uint16_t)pid, 0, 64, 0, NULL, pool), 0);
	CHECK_EQ(rte_eth_tx_queue_setup((uint16_t)pid, 0, 64, 0, NULL), 0);
	CHECK_EQ(rte_eth_dev_start((uint16_t)pid), 0);
	r->ports[1].port_id = (uint16_t)pid;
	w->port_index[pid] = 1;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < RTE_DIM(pkts); i++) {
		pkts[i] = mk_ip6(&mac_p0, a6(H1), a6(FAR), 64, IPPROTO_UDP, 8);
		pkts[i]->port = RTE_MBUF_PORT_INVALID;
	}
	dpr_ip4_input_burst(w, 0, pkts, RTE_DIM(pkts));
	dpr_tx_flush(w, 1);
	CHECK_EQ(w->stats[1].tx, cap);
	CHECK_EQ(w->stats[0].forwarded, cap);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_TX_FULL], RTE_DIM(pkts) - cap);
	CHECK_EQ(accounted(&w->stats[0]), RTE_DIM(pkts));
	CHECK_EQ(accounted(&w->stats[1]), 0);
	while ((i = rte_ring_sc_dequeue_burst(txr, (void **)pkts, RTE_DIM(pkts), NULL)) > 0)
		rte_pktmbuf_free_bulk(pkts, i);
	rte_eth_dev_stop((uint16_t)pid);
	r->ports[1].port_id = 1;
	w->port_index[pid] = 0;
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * gen_packet() as it comes in on trunk p0: mostly tagged VLAN 100 (p0.100,
 * some with priority bits), else VLAN 300 (no interface), a priority tag,
 * or untagged; a third of the IPv6 ones go to 2001:db8:4::2 (out of
 * p0.200, tagged), 2001:db8:3::2 (back out of p0.100), 2001:db8:1::2 (out
 * of p0, untagged) or 2001:db8:2::2 (p1); a few are for a MAC that differs
 * from p0's in its first 4 bytes only. *@p from: the interface it is for
 * (2: p0.100, 0: p0).
 */
static struct rte_mbuf *
gen_tagged(uint64_t seed, const struct dpr_port_dp *ports, uint16_t *from)
{
	static const char *const dsts[] = {
		"2001:db8:4::2", "2001:db8:4::2", "2001:db8:3::2", "2001:db8:1::2", "2001:db8:2::2",
	};
	struct rte_mbuf *m = gen_packet(seed, 2, ports);
	uint64_t x = seed * 0x2545f4914f6cdd1dull + 7;
	uint64_t r = xorshift(&x);

	if (r % 3 == 0 && rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type ==
	    RTE_BE16(RTE_ETHER_TYPE_IPV6) && m->data_len >= RTE_ETHER_HDR_LEN + 40)
		memcpy(ip6_hdr(m)->dst_addr, a6(dsts[(r >> 8) % RTE_DIM(dsts)]), 16);
	r = xorshift(&x);
	*from = trunk_tag(&m, r, xorshift(&x));
	return m;
}

/*
 * drain() for a trunk's bursts: each sent packet numbered within what came
 * in on its interface (@p from, by packet), by port and family; frames
 * pass 3 tagged for a VLAN interface (counted in its pretagged, checked
 * here) are untagged to compare with the untagging path's.
 */
static void
drain_tagged(struct dpr_worker *w, struct outcome *out, const uint16_t *from,
	     uint32_t seqs[][SEQS])
{
	unsigned int j, tagged;
	uint16_t p;

	for (p = 0; p < w->n_ports; p++) {
		tagged = 0;
		for (j = 0; j < w->tx[p].n; j++) {
			struct rte_mbuf *m = w->tx[p].pkts[j];
			uint32_t id = m->dynfield1[0];

			tagged += (unsigned int)trunk_untag_sent(w, p, m);
			record(&out[id], 1, p, next_seq(seqs[from[id]], p, m), 0, m);
		}
		trunk_tx_done(w, p, tagged);
	}
	drain_exc(w, out);
}

/*
 * The trunk's bursts kept tagged through the L3 stages (vlan.c), led by
 * either family, against the same packets one at a time through the
 * untagging demultiplexer (dpr_vlan_demux_burst()) and the burst code:
 * byte-exact outcomes, each interface's packets in their order out of
 * each port and family, the same counters on p0 and p0.100, and the
 * frames pass 3 tagged counted as such. @p redirects: hairpins out of
 * p0.100 are all diverted for their redirect, or all forwarded.
 */
static void
test_tagged(struct rig *r, bool redirects)
{
	enum { N = 20000 };
	struct dpr_worker *w = r->w[0];
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct outcome *fast = calloc(N, sizeof(*fast)), *ref = calloc(N, sizeof(*ref));
	uint16_t *from = calloc(N, sizeof(*from));
	struct dpr_port_counters got[4];
	struct rte_mbuf *pkts[DPR_BURST];
	static uint32_t seqs[2][4][SEQS];
	unsigned int i, j, k, differ = 0, fwd6 = 0, led6 = 0;
	uint16_t n, in;

	if (fast == NULL || ref == NULL || from == NULL || map == NULL)
		abort();
	memset(seqs, 0, sizeof(seqs));
	map[100] = 3;
	map[200] = 4;
	r->ports[0].vlan_if = map;
	r->ports[2].redirects = redirects;
	w->redirect_gap = 0;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	CHECK(r->ports[3].out_stages & DPR_OUT_PRETAG, "p0.200 takes its tag from pass 3");
	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i += k) {
		k = RTE_MIN(N - i, 1 + (unsigned int)(rte_rand() % DPR_BURST));
		for (j = 0; j < k; j++) {
			pkts[j] = gen_tagged(i + j, r->ports, &from[i + j]);
			pkts[j]->dynfield1[0] = i + j;
		}
		led6 += from[i] == 2 && rte_pktmbuf_mtod_offset(pkts[0], struct rte_vlan_hdr *,
							       RTE_ETHER_HDR_LEN)->eth_proto ==
			RTE_BE16(RTE_ETHER_TYPE_IPV6);
		in = 0;
		n = dpr_input_stages_burst(w, &in, pkts, (uint16_t)k);
		if (n > 0)
			dpr_ip4_input_burst(w, in, pkts, n);
		drain_tagged(w, fast, from, seqs[0]);
	}
	memcpy(got, w->stats, sizeof(got));

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i++) {
		pkts[0] = gen_tagged(i, r->ports, &in);
		pkts[0]->dynfield1[0] = i;
		n = dpr_vlan_demux_burst(w, 0, pkts, 1);
		if (n > 0) {
			w->stats[0].rx += n;
			dpr_ip4_input_burst(w, 0, pkts, n);
		}
		drain_tagged(w, ref, from, seqs[1]);
	}

	for (i = 0; i < N; i++) {
		const struct outcome *a = &fast[i], *b = &ref[i];

		fwd6 += a->kind == 1 && from[i] == 2 && a->bytes[12] == 0x86 && a->bytes[13] == 0xdd;
		if (!same_outcome(a, b) && differ++ < 5) {
			unsigned int at = 0;

			while (at < sizeof(a->bytes) && a->bytes[at] == b->bytes[at])
				at++;
			CHECK(false, "packet %u (from p%u): tagged kind %d/%u/%u in %u len %u segs %u sane %d, untagged kind %d/%u/%u in %u len %u segs %u sane %d, first %u bytes equal, sums %s",
			      i, from[i], a->kind, a->where, a->arg, a->in, a->len, a->segs, a->sane,
			      b->kind, b->where, b->arg, b->in, b->len, b->segs, b->sane, at,
			      a->sum == b->sum ? "equal" : "differ");
		}
	}
	CHECK(differ == 0, "tagged: %u of %u packets differ", differ, (unsigned int)N);
	trunk_same_counters(got, w->stats);
	CHECK_EQ(accounted(&got[0]) + accounted(&got[2]) + accounted(&got[3]), N);
	printf("tagged mix: %u packets, %u bursts led by p0.100's IPv6, %u IPv6 forwarded from p0.100, %" PRIu64 " redirects\n",
	       (unsigned int)N, led6, fwd6, got[2].exc[DPR_EXC_REDIRECT]);
	CHECK(led6 > 50 && fwd6 > N / 20 && (got[2].exc[DPR_EXC_REDIRECT] > 10) == redirects &&
	      got[0].drops[DPR_DROP_UNKNOWN_VLAN] > 0, "the mix reaches the tagged paths");
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[0].vlan_if = NULL;
	r->ports[2].redirects = false;
	dpr_worker_prepare(w);
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	rte_free(map);
	free(fast);
	free(ref);
	free(from);
}

/* Tag @p m (untagged) with 802.1Q VLAN id @p vid, in the data. */
static void
tag_in_data(struct rte_mbuf *m, uint16_t vid)
{
	uint8_t *eth = (uint8_t *)rte_pktmbuf_prepend(m, sizeof(struct rte_vlan_hdr));
	struct rte_vlan_hdr *vh;

	if (eth == NULL)
		abort();
	memmove(eth, eth + sizeof(*vh), 2 * RTE_ETHER_ADDR_LEN);
	*(uint16_t *)(eth + 2 * RTE_ETHER_ADDR_LEN) = RTE_BE16(RTE_ETHER_TYPE_VLAN);
	vh = (struct rte_vlan_hdr *)(eth + RTE_ETHER_HDR_LEN);
	vh->vlan_tci = rte_cpu_to_be_16(vid);
	vh->eth_proto = RTE_BE16(RTE_ETHER_TYPE_IPV6);
}

/*
 * RFC 8200 5: an IPv6 link MUST have an MTU of at least 1280. An interface
 * below it has no IPv6: what IPv6 it receives (untagged, priority-tagged,
 * or in its VLAN) is dropped as unsupported_l3, on that interface, before
 * any lookup, while its IPv4 is forwarded as ever; at 1280 IPv6 flows.
 */
static void
test_no_ip6_below_1280(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct rte_mbuf *pkts[8], *m;
	unsigned int k, p;
	uint16_t n, in;

	if (map == NULL)
		abort();
	r->ports[1].mtu = 1279;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	CHECK(r->ports[1].in_stages & DPR_IN_NO_IP6, "p1 (MTU 1279) has no IPv6");
	CHECK(!(r->ports[0].in_stages & DPR_IN_NO_IP6), "p0 (MTU 1500) has IPv6");
	dpr_worker_prepare(w);

	memset(w->stats, 0, sizeof(w->stats));
	pkts[0] = mk_ip6(&mac_p1, a6("2001:db8:2::2"), a6("2001:db8:1::2"), 64, IPPROTO_UDP, 40);
	pkts[1] = mk_ip4(&mac_p1, RTE_IPV4(10, 0, 2, 2), RTE_IPV4(10, 0, 1, 2), 64, 40);
	pkts[2] = mk_ip6(&mac_p1, a6("2001:db8:2::2"), a6("2001:db8:1::1"), 64, IPPROTO_UDP, 40);
	pkts[3] = mk_ip6(&mac_p1, a6("fe80::99"), a6("fe80::2"), 255, IPPROTO_ICMPV6, 32);
	pkts[4] = mk_ip4(&mac_p1, RTE_IPV4(10, 0, 2, 3), RTE_IPV4(10, 0, 1, 2), 64, 40);
	/* A priority tag (VLAN id 0) hides nothing. */
	pkts[5] = mk_ip6(&mac_p1, a6("2001:db8:2::2"), a6("2001:db8:1::2"), 64, IPPROTO_UDP, 40);
	tag_in_data(pkts[5], 0);
	in = 1;
	n = dpr_input_stages_burst(w, &in, pkts, 6);
	CHECK(n == 2 && in == 1, "p1 keeps its 2 IPv4 packets of 6 (%u)", n);
	if (n > 0)
		dpr_ip4_input_burst(w, in, pkts, n);
	CHECK_EQ(w->stats[1].rx, 6);
	CHECK_EQ(w->stats[1].drops[DPR_DROP_UNSUPPORTED_L3], 4);
	CHECK_EQ(w->stats[1].forwarded, 2);
	CHECK_EQ(accounted(&w->stats[1]), 6);
	CHECK(w->tx[0].n == 2, "both IPv4 packets leave through p0 (%u)", w->tx[0].n);

	/* A VLAN interface below 1280 on a port above: its IPv6 dropped,
	 * counted on it, still tagged or split from a mixed burst. */
	map[100] = 3;
	r->ports[0].vlan_if = map;
	r->ports[1].mtu = MTU_P1;
	r->ports[2].mtu = 1000;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	dpr_worker_prepare(w);
	for (k = 0; k < 3; k++) {
		pkts[k] = mk_ip6(&mac_p0, a6("2001:db8:1::2"), a6("2001:db8:2::2"), 64,
				 IPPROTO_UDP, 40);
		tag_in_data(pkts[k], 100);
	}
	pkts[3] = mk_ip6(&mac_p0, a6("2001:db8:1::2"), a6("2001:db8:2::2"), 64, IPPROTO_UDP, 40);
	in = 0;
	n = dpr_input_stages_burst(w, &in, pkts, 3);
	CHECK_EQ(n, 0);
	in = 0;
	pkts[0] = pkts[3];
	pkts[1] = mk_ip6(&mac_p0, a6("2001:db8:1::2"), a6("2001:db8:2::2"), 64, IPPROTO_UDP, 40);
	tag_in_data(pkts[1], 100);
	n = dpr_input_stages_burst(w, &in, pkts, 2);
	CHECK(n == 1 && in == 0, "p0 keeps its own IPv6 packet (%u)", n);
	if (n > 0)
		dpr_ip4_input_burst(w, in, pkts, n);
	CHECK_EQ(w->stats[2].drops[DPR_DROP_UNSUPPORTED_L3], 4);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_UNSUPPORTED_L3], 0);
	CHECK_EQ(w->stats[0].forwarded, 1);

	/* At 1280, IPv6's least, it flows. */
	r->ports[2].mtu = 1280;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	CHECK(!(r->ports[2].in_stages & DPR_IN_NO_IP6), "p0.100 at MTU 1280 has IPv6");

	r->ports[0].vlan_if = NULL;
	r->ports[2].mtu = MTU_P0;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	dpr_worker_prepare(w);
	for (p = 0; p < 4; p++) {
		for (k = 0; k < w->tx[p].n; k++)
			rte_pktmbuf_free(w->tx[p].pkts[k]);
		w->tx[p].n = 0;
	}
	while (rte_ring_sc_dequeue(w->exc_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	memset(w->stats, 0, sizeof(w->stats));
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	rte_free(map);
}

/*
 * Hairpinning, IPv6 (RFC 4861 8.2): packets from p0 routed back out of p0
 * (2001:db8:100:0:1::/80 via 2001:db8:1::2). With p0's redirects on, the
 * worker hands one a burst to the control thread as class redirect (which
 * sends the redirect and forwards it), as it came in (hop limit 64);
 * with no gap between diverts, every one; with redirects off, none. The
 * rest are forwarded with the hop limit decremented; a packet for p1 is
 * never diverted. Either way rx == forwarded + exception + drops.
 */
static void
test_hairpin6(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	struct dpr_port_counters *st = &w->stats[0];
	const uint8_t *src = a6("2001:db8:1::9"), *back = a6("2001:db8:100:0:1::5");
	const uint8_t *onward = a6("2001:db8:100::7");
	struct rte_mbuf *pkts[4], *exc[8];
	uint64_t gap = w->redirect_gap;
	unsigned int i, q, round;

	for (round = 0; round < 3; round++) {
		r->ports[0].redirects = round < 2;
		w->redirect_gap = round == 0 ? UINT64_MAX / 2 : 0;
		/* The last divert long ago (modulo 2^64): the first is due. */
		memset(w->redirect_tsc, 0, sizeof(w->redirect_tsc));
		w->redirect_tsc[0] = rte_rdtsc() - UINT64_MAX / 2 - 1;
		memset(w->stats, 0, sizeof(w->stats));
		for (i = 0; i < 3; i++)
			pkts[i] = mk_ip6(&mac_p0, src, back, 64, IPPROTO_UDP, 32);
		pkts[3] = mk_ip6(&mac_p0, src, onward, 64, IPPROTO_UDP, 32);
		dpr_ip4_input_burst(w, 0, pkts, 4);
		q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
		CHECK_EQ(q, round == 0 ? 1u : round == 1 ? 3u : 0u);
		CHECK_EQ(st->exc[DPR_EXC_REDIRECT], q);
		CHECK_EQ(w->tx[0].n, 3 - q);
		CHECK_EQ(w->tx[1].n, 1);
		CHECK_EQ(st->forwarded, 4 - q);
		CHECK_EQ(accounted(st), 4);
		for (i = 0; i < q; i++) {
			CHECK_EQ(DPR_EXC_META_CLASS(exc[i]->hash.usr), DPR_EXC_REDIRECT);
			CHECK_EQ(DPR_EXC_META_PORT(exc[i]->hash.usr), 0);
			CHECK(ip6_hdr(exc[i])->hop_limits == 64,
			      "round %u: diverted as it came in (hop limit 64)", round);
		}
		for (i = 0; i < w->tx[0].n; i++)
			CHECK(ip6_hdr(w->tx[0].pkts[i])->hop_limits == 63 &&
			      rte_is_same_ether_addr(&rte_pktmbuf_mtod(w->tx[0].pkts[i],
						     struct rte_ether_hdr *)->dst_addr, &mac_h1),
			      "round %u: the others forwarded back out of p0 to 2001:db8:1::2", round);
		CHECK(ip6_hdr(w->tx[1].pkts[0])->hop_limits == 63, "round %u: p1's forwarded", round);
		rte_pktmbuf_free_bulk(exc, q);
		rte_pktmbuf_free_bulk(w->tx[0].pkts, w->tx[0].n);
		rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
		w->tx[0].n = w->tx[1].n = 0;
	}
	r->ports[0].redirects = false;
	w->redirect_gap = gap;
	memset(w->stats, 0, sizeof(w->stats));
}

/* A frame of VLAN @p vid (0: a priority tag) whose payload starts with
 * @p b0 (an ICMPv6 type), @p payload bytes in all. */
static struct rte_mbuf *
copp_frame6(const struct rte_ether_addr *dmac, const char *src, const char *dst, uint8_t hops,
	    uint8_t proto, uint8_t b0, int vid)
{
	struct rte_mbuf *m = mk_ip6(dmac, a6(src), a6(dst), hops, proto, 24);

	rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))[0] =
		b0;
	if (vid >= 0)
		tag_in_data(m, (uint16_t)vid);
	return m;
}

static struct rte_mbuf *
copp_frame4(uint32_t src, uint32_t dst, uint8_t proto, int vid)
{
	struct rte_mbuf *m = mk_ip4(&mac_p0, src, dst, 64, 24);
	struct rte_ipv4_hdr *ip = ip4_hdr(m);

	ip->next_proto_id = proto;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (vid >= 0) {
		tag_in_data(m, (uint16_t)vid);
		rte_pktmbuf_mtod_offset(m, struct rte_vlan_hdr *, RTE_ETHER_HDR_LEN)->eth_proto =
			RTE_BE16(RTE_ETHER_TYPE_IPV4);
	}
	return m;
}

/* Set bit @p bit of peer filter @p bits (as dpr_copp_peers_sync() would). */
static void
copp_peer(uint64_t *bits, uint32_t bit)
{
	bits[bit / 64] |= UINT64_C(1) << (bit % 64);
}

/*
 * Control-plane protection of frames that come in tagged (lib/copp): on
 * a VLAN interface, its bursts kept tagged (vlan.c) led by either family,
 * with a priority tag inside the VLAN's, and priority-tagged on the port
 * itself. Each exception is classed as the same packet untagged would be:
 * BGP from a peer and OSPF routing, ICMP echo icmp, NDP arp_nd, the rest
 * local; one waiting for an IPv6 next hop takes that family's resolve
 * bucket. What reaches the control thread is untagged.
 */
static void
test_tagged_copp(struct rig *r)
{
	struct dpr_worker *w = r->w[0];
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	static uint64_t peers[DPR_COPP_PEER_BITS / 64];
	struct dpr_copp_conf c;
	struct dpr_copp *cp;
	struct rte_mbuf *pkts[16], *exc[32], *m = NULL;
	unsigned int cls[16], i, j, k, q, round;
	uint16_t n, in;
	struct dpr_ip peer4 = { .af = DPR_AF_IP4, .ip4 = RTE_IPV4(10, 0, 3, 2) };
	struct dpr_ip peer6 = ip6_of("2001:db8:3::2");
	struct dpr_ip peer6p = ip6_of("2001:db8:1::2");
	struct dpr_ip peer6q = ip6_of("2001:db8:4::2");
	const uint32_t peer4q = RTE_IPV4(10, 0, 4, 2);

	dpr_copp_conf_defaults(&c);
	for (i = 0; i < DPR_COPP_MAX; i++)
		c.cls[i] = (struct dpr_copp_class_conf){ .rate = 1000000, .burst = 1000,
							 .share = 100 };
	cp = dpr_copp_create(&c, 0);
	if (cp == NULL || map == NULL)
		abort();
	dpr_copp_worker_init(cp, &c, &w->copp, 1, rte_get_tsc_hz(), 256);
	/* The rig's interfaces are all in the default VRF. */
	memset(peers, 0, sizeof(peers));
	copp_peer(peers, dpr_copp_peer_bit4(peer4.ip4, DPR_VRF_DEFAULT));
	copp_peer(peers, dpr_copp_peer_bit6(peer6.ip6, DPR_VRF_DEFAULT));
	copp_peer(peers, dpr_copp_peer_bit6(peer6p.ip6, DPR_VRF_DEFAULT));
	copp_peer(peers, dpr_copp_peer_bit6(peer6q.ip6, DPR_VRF_DEFAULT));
	copp_peer(peers, dpr_copp_peer_bit4(peer4q, DPR_VRF_DEFAULT));
	w->copp.peers = peers;
	map[100] = 3;
	r->ports[0].vlan_if = map;
	r->ports[3].vlan_outer = DPR_QINQ_OUTER(0x88a8, 10);
	CHECK_EQ(dpr_qinq_map_set(&r->ports[0], 10, 200, 4, 0, false), 0);
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	dpr_worker_prepare(w);
	memset(w->stats, 0, sizeof(w->stats));

	/* Rounds: 0 and 1, VLAN 100 led by IPv6 then IPv4 (kept tagged);
	 * 2, VLAN 100 with a priority tag inside; 3 and 4, priority-tagged
	 * on p0 led by IPv6 then IPv4; 5 and 6, VLAN 100 and a priority tag
	 * the device took off (vlan_tci); 7, p0.200 made a QinQ interface
	 * (802.1ad 10, then 200). */
	for (round = 0; round < 8; round++) {
		const uint16_t port = round == 7 ? 3 : round < 3 || round == 5 ? 2 : 0;
		const bool vif = port != 0;
		const int vid = round >= 5 && round < 7 ? -1 : round == 7 ? 200 :
			round == 2 ? 0 : vif ? 100 : 0;
		const unsigned int net = port == 3 ? 4 : port == 2 ? 3 : 1;
		char own[32], peer[32], host[32];
		const uint32_t own4 = RTE_IPV4(10, 0, net, 1);
		const uint32_t peer4a = RTE_IPV4(10, 0, net, vif ? 2 : 9);
		const uint32_t host4 = RTE_IPV4(10, 0, net, 9);

		snprintf(own, sizeof(own), "2001:db8:%u::1", net);
		snprintf(peer, sizeof(peer), "2001:db8:%u::2", net);
		snprintf(host, sizeof(host), "2001:db8:%u::9", net);
		k = 0;
		if (round == 1 || round == 4) {
			cls[k] = DPR_COPP_ICMP;
			pkts[k++] = copp_frame4(host4, own4, IPPROTO_ICMP, vid);
		}
		cls[k] = DPR_COPP_ROUTING; /* BGP from a peer */
		pkts[k++] = copp_frame6(&mac_p0, peer, own, 64, IPPROTO_TCP, 0, vid);
		cls[k] = DPR_COPP_ICMP; /* echo request */
		pkts[k++] = copp_frame6(&mac_p0, host, own, 64, IPPROTO_ICMPV6, 128, vid);
		cls[k] = DPR_COPP_ARP_ND; /* neighbour solicitation */
		pkts[k++] = copp_frame6(&mac_33_sn, host, "ff02::1:ff00:1", 255, IPPROTO_ICMPV6,
					135, vid);
		cls[k] = DPR_COPP_ARP_ND; /* neighbour solicitation, unicast */
		pkts[k++] = copp_frame6(&mac_p0, host, own, 255, IPPROTO_ICMPV6, 135, vid);
		cls[k] = DPR_COPP_ROUTING; /* OSPFv3 */
		pkts[k++] = copp_frame6(&mac_33_1, "fe80::9", "ff02::5", 1, 89, 0, vid);
		cls[k] = DPR_COPP_LOCAL;
		pkts[k++] = copp_frame6(&mac_p0, host, own, 64, IPPROTO_UDP, 0, vid);
		cls[k] = DPR_COPP_ICMP;
		pkts[k++] = copp_frame4(host4, own4, IPPROTO_ICMP, vid);
		cls[k] = vif ? DPR_COPP_ROUTING : DPR_COPP_LOCAL; /* BGP, a peer on p0.100 */
		pkts[k++] = copp_frame4(peer4a, own4, IPPROTO_TCP, vid);
		cls[k] = DPR_COPP_ROUTING; /* OSPF */
		pkts[k++] = copp_frame4(host4, UINT32_C(0xe0000005) /* 224.0.0.5 */, 89, vid);
		if (!vif) {
			/* For 2001:db8:200::/48, via 2001:db8:2::3, unresolved. */
			cls[k] = DPR_COPP_RESOLVE;
			pkts[k++] = copp_frame6(&mac_p0, host, "2001:db8:200::7", 64, IPPROTO_UDP,
						0, vid);
		}
		if (round == 2)
			for (i = 0; i < k; i++) {
				tag_in_data(pkts[i], 100);
				rte_pktmbuf_mtod_offset(pkts[i], struct rte_vlan_hdr *,
							RTE_ETHER_HDR_LEN)->eth_proto =
					RTE_BE16(RTE_ETHER_TYPE_VLAN);
			}
		for (i = 0; i < k; i++) {
			pkts[i]->dynfield1[0] = i;
			if (round == 7) {
				uint8_t *eth;

				tag_in_data(pkts[i], 10);
				eth = rte_pktmbuf_mtod(pkts[i], uint8_t *);
				eth[12] = 0x88;
				eth[13] = 0xa8;
				eth[16] = 0x81;
				eth[17] = 0x00;
			}
			if (round >= 5) {
				pkts[i]->vlan_tci = round == 5 ? 100 : 0x6000;
				pkts[i]->ol_flags |= RTE_MBUF_F_RX_VLAN |
					RTE_MBUF_F_RX_VLAN_STRIPPED;
			}
		}
		memset(w->copp.tat, 0, sizeof(w->copp.tat));
		in = 0;
		n = dpr_input_stages_burst(w, &in, pkts, (uint16_t)k);
		if (n > 0)
			dpr_ip4_input_burst(w, in, pkts, n);
		q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
		CHECK(q == k, "round %u: %u of %u diverted", round, q, k);
		for (j = 0; j < q; j++) {
			const uint8_t *eth = rte_pktmbuf_mtod(exc[j], const uint8_t *);
			unsigned int got = DPR_EXC_META_COPP(exc[j]->hash.usr) - 1;
			uint32_t id = exc[j]->dynfield1[0];

			if (id >= k)
				continue;
			CHECK(got == cls[id], "round %u, packet %u (%s, %s): class %s, want %s",
			      round, id, dpr_exc_names[DPR_EXC_META_CLASS(exc[j]->hash.usr)],
			      eth[12] == 0x86 ? "IPv6" : eth[12] == 0x08 ? "IPv4" : "tagged",
			      got < DPR_COPP_MAX ? dpr_copp_class_names[got] : "none",
			      dpr_copp_class_names[cls[id]]);
			CHECK((eth[12] == 0x86 && eth[13] == 0xdd) ||
			      (eth[12] == 0x08 && eth[13] == 0),
			      "round %u, packet %u: to the control thread untagged", round, j);
			CHECK(DPR_EXC_META_PORT(exc[j]->hash.usr) == port,
			      "round %u, packet %u: input port %u", round, j,
			      DPR_EXC_META_PORT(exc[j]->hash.usr));
		}
		if (!vif) {
			uint32_t nh = r->nh_gw_unres;

			const uint64_t *tat = w->copp.tat[DPR_COPP_RESOLVE];

			CHECK(tat[(nh ^ DPR_COPP_PORTS / 2) % DPR_COPP_PORTS] != 0 &&
			      tat[nh % DPR_COPP_PORTS] == 0,
			      "round %u: IPv6 next hop %u waits in its IPv6 resolve bucket", round,
			      nh);
		}
		rte_pktmbuf_free_bulk(exc, q);
		for (i = 0; i < DPR_COPP_MAX; i++)
			w->copp.drained[i] = w->copp.passed[i];
	}
	for (i = 0; i < 4; i++)
		CHECK_EQ(w->stats[i].drops[DPR_DROP_CONTROL_PLANE], 0);

	r->ports[0].vlan_if = NULL;
	r->ports[3].vlan_outer = 0;
	dpr_qinq_map_free(&r->ports[0]);
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	dpr_worker_prepare(w);
	memset(&w->copp, 0, sizeof(w->copp));
	while (rte_ring_sc_dequeue(w->exc_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	for (i = 0; i < 4; i++) {
		rte_pktmbuf_free_bulk(w->tx[i].pkts, w->tx[i].n);
		w->tx[i].n = 0;
	}
	memset(w->stats, 0, sizeof(w->stats));
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	dpr_copp_free(cp);
	rte_free(map);
}

/*
 * uRPF (RFC 3704) of IPv6 sources, straight from dpr_urpf_ok(): strict on
 * p0 and p1, loose on p0. Link-local (NDP, routing protocols) and
 * unspecified (DAD) sources are exempt; the router's own address, a
 * blackhole route's and one of no route fail both modes.
 */
static void
test_urpf6_sources(struct rig *r)
{
	static const struct {
		const char *src;
		uint8_t strict[2], loose;
	} cases[] = {
		{ "2001:db8:1::2", { 1, 0 }, 1 },
		{ "2001:db8:2::2", { 0, 1 }, 1 },
		{ "2001:db8:100::1", { 0, 1 }, 1 },     /* via 2001:db8:2::2 (p1) */
		{ "2001:db8:100:0:1::1", { 1, 0 }, 1 }, /* the longer route, back out of p0 */
		{ "2001:db8:300::1", { 0, 1 }, 1 },     /* via fe80::99 on p1 */
		{ "2001:db8:200::1", { 0, 1 }, 1 },     /* via an unresolved gateway on p1 */
		{ "2001:db8:dead::1", { 0, 0 }, 0 },    /* blackhole */
		{ "2001:db8:1::1", { 0, 0 }, 0 },       /* the router's own */
		{ "2001:db8:9999::1", { 0, 0 }, 0 },    /* no route */
		{ "fe80::99", { 1, 1 }, 1 },            /* link-local: NDP */
		{ "::", { 1, 1 }, 1 },                  /* unspecified: DAD */
	};
	struct dpr_worker *w = r->w[0];
	unsigned int i, in;

	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_mbuf *m = mk_ip6(&mac_p0, a6(cases[i].src), a6("2001:db8:2::2"), 64,
					    IPPROTO_UDP, 8);

		for (in = 0; in < 2; in++)
			CHECK(dpr_urpf_ok(w, r->fib, r->fib6, m, (uint16_t)in, DPR_URPF_STRICT) ==
			      (cases[i].strict[in] != 0),
			      "strict on p%u: source %s should %s", in, cases[i].src,
			      cases[i].strict[in] ? "pass" : "fail");
		CHECK(dpr_urpf_ok(w, r->fib, r->fib6, m, 0, DPR_URPF_LOOSE) == (cases[i].loose != 0),
		      "loose: source %s should %s", cases[i].src, cases[i].loose ? "pass" : "fail");
		rte_pktmbuf_free(m);
	}
}

int
main(int argc, char **argv)
{
	struct rig r = { 0 };

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "cannot init EAL\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test6_pool", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(pool != NULL, "pool");
	if (pool == NULL)
		return test_done("test_ip6");
	gen_init();
	test_addr_class();
	if (rig_init(&r) == 0) {
		unsigned int deep;
		uint16_t in;

		test_urpf6_sources(&r);
		test_rig_routes(&r);
		for (in = 0; in < 2; in++) {
			test_directed(&r, in, false);
			test_directed(&r, in, true);
		}
		test_directed_bursts(&r, false);
		test_directed_bursts(&r, true);
		test_ip4_unchanged(&r);
		test_link_local_source_same_link(&r, false);
		test_link_local_source_same_link(&r, true);
		test_exception_full(&r);
		test_pipeline_route_change(&r);
		/* Both ways of pass 3's IPv6 walk: from tbl24, and with each
		 * chain's first level read a step ahead (a deep FIB). */
		for (deep = 0; deep < 2; deep++) {
			dpr_fib6_set_deep_groups(r.fib6, deep ? 0 : UINT32_MAX);
			CHECK(r.fib6->deep == deep, "the FIB with %u tbl8 groups in use is %s",
			      dpr_fib6_tbl8_used(r.fib6), deep ? "deep" : "not deep");
			test_directed_bursts(&r, false);
			test_directed_bursts(&r, true);
			test_ahead_rcu(&r, deep);
			for (in = 0; in < 2; in++) {
				test_fast_matches_reference(&r, in, false);
				test_fast_matches_reference(&r, in, true);
			}
			test_tagged(&r, true);
			test_tagged(&r, false);
		}
		test_deep_hysteresis(&r);
		test_identity(&r);
		test_tx_full(&r);
		test_hairpin6(&r);
		test_no_ip6_below_1280(&r);
		test_tagged_copp(&r);
	}
	rig_free(&r);
	rte_mempool_free(pool);
	return test_done("test_ip6");
}
