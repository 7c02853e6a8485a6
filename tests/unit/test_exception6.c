/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 half of the control thread's exception path (lib/exception/
 * exception6.c with lib/neigh) on a router built here: Neighbor Discovery
 * (RFC 4861, RFC 4862 duplicate address detection), router advertisements,
 * ICMPv6 echo and errors (RFC 4443) and Hop-by-Hop options (RFC 8200 4.2).
 * Each port's TX queue is a ring the test reads, so every check is about
 * what the router sends (or does not), read at RFC offsets with a checksum
 * computed here, and about mbufs coming back to the pool. Packets go in as
 * a worker hands them over (hash.usr: class and input port).
 *
 * p0 2001:db8:1::1/64, 2001:db8:11::1/64 (02:00:00:00:01:01), MTU 1480,
 *    router advertisements with the defaults;
 * p1 2001:db8:2::1/64 (02:00:00:00:02:01), MTU 1400, neighbor_learning
 *    ignore_gratuitous;
 * p2 2001:db8:3::1/64 (02:00:00:00:03:01), transparent, its TAP a ring too;
 * each port also has its link-local address from its MAC, as dpr's main()
 * adds it. Static neighbours 2001:db8:1::2 on p0 and 2001:db8:2::2 on p1;
 * 2001:db8:100::/48 via 2001:db8:1::2, 2001:db8:200::/48 via 2001:db8:2::2,
 * 2001:db8:99::/48 via fe80::99 on p0 (unresolved).
 *
 * Offsets in a frame: Ethernet 0-13, IPv6 14-53 (payload length 18, next
 * header 20, hop limit 21, source 22-37, destination 38-53), ICMPv6 from 54.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
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
#include "exception/icmp6.h"
#include "route/route.h"
#include "rig.h"
#include "test.h"

#define N_PORTS 3
#define POOL_SIZE 2047

#define F_PLEN 18
#define F_NH 20
#define F_HOPS 21
#define F_SRC 22
#define F_DST 38
#define F_L4 54

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\", \"mtu\": 1480,"
	"  \"addresses\": [\"2001:db8:1::1/64\", \"2001:db8:11::1/64\"],"
	"  \"router_advertisements\": {}},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"mac\": \"02:00:00:00:02:01\", \"mtu\": 1400,"
	"  \"addresses\": [\"2001:db8:2::1/64\"], \"neighbor_learning\": \"ignore_gratuitous\"},"
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"mac\": \"02:00:00:00:03:01\","
	"  \"addresses\": [\"2001:db8:3::1/64\"], \"transparent\": true}],"
	" \"neighbors\": [{\"address\": \"2001:db8:1::2\", \"mac\": \"02:00:00:00:01:02\"},"
	"                {\"address\": \"2001:db8:2::2\", \"mac\": \"02:00:00:00:02:02\"}],"
	" \"routes\": [{\"prefix\": \"2001:db8:100::/48\", \"via\": \"2001:db8:1::2\"},"
	"             {\"prefix\": \"2001:db8:200::/48\", \"via\": \"2001:db8:2::2\"},"
	"             {\"prefix\": \"2001:db8:99::/48\", \"via\": \"fe80::99\", \"port\": \"p0\"}],"
	" \"fib\": {\"ipv4_max_routes\": 1024, \"ipv4_tbl8_groups\": 64, \"ipv6_max_routes\": 4096,"
	"          \"learned_neighbors_max\": 16}}";

static const struct rte_ether_addr mac_p[N_PORTS] = {
	{{ 0x02, 0, 0, 0, 0x01, 0x01 }}, {{ 0x02, 0, 0, 0, 0x02, 0x01 }},
	{{ 0x02, 0, 0, 0, 0x03, 0x01 }},
};
/* The link-local addresses of mac_p, by RFC 4291 2.5.1 and appendix A. */
static const char *const ll_p[N_PORTS] = {
	"fe80::ff:fe00:101", "fe80::ff:fe00:201", "fe80::ff:fe00:301",
};
static const uint16_t mtu_p[N_PORTS] = { 1480, 1400, 1500 };
static const struct rte_ether_addr mac_n1 = {{ 0x02, 0, 0, 0, 0x01, 0x02 }}; /* 2001:db8:1::2 */
static const struct rte_ether_addr mac_n2 = {{ 0x02, 0, 0, 0, 0x02, 0x02 }}; /* 2001:db8:2::2 */
static const struct rte_ether_addr mac_host = {{ 0x02, 0xaa, 0, 0, 0, 0x01 }};
static const struct rte_ether_addr mac_all_nodes = {{ 0x33, 0x33, 0, 0, 0, 0x01 }};

static struct dpr_router R;

static struct rte_mempool *pool;
static struct rte_ring *txr[N_PORTS];
static struct rte_ring *tapr;

/* --- addresses, fields, the reference checksum ---------------------------------- */

/* Textual IPv6 through libc, so the test does not trust the library's constants. */
static const uint8_t *
A(const char *s)
{
	static uint8_t ring[16][16];
	static unsigned int next;
	uint8_t *a = ring[next++ % RTE_DIM(ring)];

	if (inet_pton(AF_INET6, s, a) != 1)
		abort();
	return a;
}

static bool
same6(const uint8_t *a, const char *s)
{
	return memcmp(a, A(s), 16) == 0;
}

static struct dpr_ip
ip6(const char *s)
{
	struct dpr_ip a = { .af = DPR_AF_IP6 };

	memcpy(a.ip6, A(s), 16);
	return a;
}

static uint8_t *
F(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, uint8_t *);
}

static uint16_t
be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool
mac_at(const uint8_t *p, const struct rte_ether_addr *mac)
{
	return memcmp(p, mac->addr_bytes, RTE_ETHER_ADDR_LEN) == 0;
}

/* The MAC of IPv6 multicast address @p s: 33:33 and its last 32 bits (RFC 2464 7). */
static struct rte_ether_addr
mcast_mac(const char *s)
{
	const uint8_t *a = A(s);
	struct rte_ether_addr m = {{ 0x33, 0x33, a[12], a[13], a[14], a[15] }};

	return m;
}

/* RFC 1071 sum over RFC 8200 8.1's pseudo-header and the ICMPv6 message at F_L4. */
static uint16_t
ref_sum(const struct rte_mbuf *m)
{
	const uint8_t *f = F(m);
	uint32_t len = be16_at(f + F_PLEN), s = 0, i;
	const uint8_t ph[8] = { len >> 24, len >> 16, len >> 8, len, 0, 0, 0, IPPROTO_ICMPV6 };

	for (i = 0; i < 32; i++)
		s += (i & 1) ? f[F_SRC + i] : (uint32_t)f[F_SRC + i] << 8;
	for (i = 0; i < sizeof(ph); i++)
		s += (i & 1) ? ph[i] : (uint32_t)ph[i] << 8;
	for (i = 0; i < len; i++)
		s += (i & 1) ? f[F_L4 + i] : (uint32_t)f[F_L4 + i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static bool
cksum_ok(const struct rte_mbuf *m)
{
	return m->pkt_len >= F_L4 + 4u && m->pkt_len >= F_L4 + (uint32_t)be16_at(F(m) + F_PLEN) &&
		ref_sum(m) == 0xffff;
}

static void
cksum_fix(struct rte_mbuf *m)
{
	uint8_t *f = F(m);
	uint16_t v;

	f[F_L4 + 2] = f[F_L4 + 3] = 0;
	v = (uint16_t)~ref_sum(m);
	f[F_L4 + 2] = v >> 8;
	f[F_L4 + 3] = v & 0xff;
}

/* --- packets in ------------------------------------------------------------------ */

/* An Ethernet/IPv6 frame from @p smac carrying @p plen bytes of @p payload. */
static struct rte_mbuf *
mk6(const struct rte_ether_addr *dmac, const struct rte_ether_addr *smac, const char *src,
    const char *dst, uint8_t nh, uint8_t hops, const void *payload, uint16_t plen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, F_L4 + plen) : NULL;

	if (f == NULL) {
		fprintf(stderr, "test_exception6: mbuf pool exhausted\n");
		abort();
	}
	memset(f, 0, F_L4 + plen);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[F_PLEN] = plen >> 8;
	f[F_PLEN + 1] = plen & 0xff;
	f[F_NH] = nh;
	f[F_HOPS] = hops;
	memcpy(f + F_SRC, A(src), 16);
	memcpy(f + F_DST, A(dst), 16);
	if (payload != NULL)
		memcpy(f + F_L4, payload, plen);
	return m;
}

/* A UDP datagram of @p plen bytes (data i & 0xff): something to forward or report. */
static struct rte_mbuf *
mk_udp(const struct rte_ether_addr *dmac, const char *src, const char *dst, uint8_t hops,
       uint16_t plen)
{
	struct rte_mbuf *m = mk6(dmac, &mac_host, src, dst, IPPROTO_UDP, hops, NULL, plen);
	uint16_t i;

	for (i = 0; i < plen; i++)
		F(m)[F_L4 + i] = (uint8_t)i;
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

/* How a Neighbor Discovery message is spoiled for the 7.1 validity checks. */
enum spoil { GOOD, HOPS_254, BAD_CKSUM, CODE_1 };

/*
 * A neighbour solicitation for @p target from @p src (MAC @p smac, also its
 * SLLA when @p slla), to the target's solicited-node group (RFC 4861 7.2.2),
 * arriving on @p in.
 */
static void
ns_in(uint16_t in, const struct rte_ether_addr *smac, const char *src, const char *target,
      bool slla, enum spoil spoil)
{
	uint8_t msg[32] = { DPR_ICMP6_NEIGH_SOLICIT }, sn[16];
	char dst[INET6_ADDRSTRLEN];
	struct rte_mbuf *m;

	memcpy(msg + 8, A(target), 16);
	msg[24] = DPR_NDP_OPT_SLLA;
	msg[25] = 1;
	memcpy(msg + 26, smac, 6);
	memcpy(sn, A("ff02::1:ff00:0"), 16);
	memcpy(sn + 13, A(target) + 13, 3);
	inet_ntop(AF_INET6, sn, dst, sizeof(dst));
	m = mk6(&(struct rte_ether_addr){{ 0x33, 0x33, 0xff, sn[13], sn[14], sn[15] }}, smac,
		src, dst, IPPROTO_ICMPV6, spoil == HOPS_254 ? 254 : 255, msg, slla ? 32 : 24);
	if (spoil == CODE_1)
		F(m)[F_L4 + 1] = 1;
	cksum_fix(m);
	if (spoil == BAD_CKSUM)
		F(m)[F_L4 + 2] ^= 0x5a;
	inject(m, DPR_EXC_LOCAL, in, 0);
}

/* A neighbour advertisement for @p target with TLLA @p tlla, from @p src to @p dst. */
static void
na_in(uint16_t in, const struct rte_ether_addr *smac, const char *src, const char *dst,
      const char *target, const struct rte_ether_addr *tlla, bool solicited, bool override,
      enum spoil spoil)
{
	uint8_t msg[32] = { DPR_ICMP6_NEIGH_ADVERT };
	struct rte_mbuf *m;
	struct rte_ether_addr dmac = A(dst)[0] == 0xff ? mcast_mac(dst) : mac_p[in];

	msg[4] = (solicited ? 0x40 : 0) | (override ? 0x20 : 0);
	memcpy(msg + 8, A(target), 16);
	/* No TLLA (NULL): as a node may answer a unicast solicitation (7.2.4). */
	if (tlla != NULL) {
		msg[24] = DPR_NDP_OPT_TLLA;
		msg[25] = 1;
		memcpy(msg + 26, tlla, 6);
	}
	m = mk6(&dmac, smac, src, dst, IPPROTO_ICMPV6, spoil == HOPS_254 ? 254 : 255, msg,
		tlla != NULL ? sizeof(msg) : 24);
	if (spoil == CODE_1)
		F(m)[F_L4 + 1] = 1;
	cksum_fix(m);
	if (spoil == BAD_CKSUM)
		F(m)[F_L4 + 2] ^= 0x5a;
	inject(m, DPR_EXC_LOCAL, in, 0);
}

/* A router solicitation from @p src with SLLA @p smac to all routers (RFC 4861 6.3.7). */
static void
rs_in(uint16_t in, const struct rte_ether_addr *smac, const char *src)
{
	uint8_t msg[16] = { DPR_ICMP6_ROUTER_SOLICIT };
	struct rte_mbuf *m;

	msg[8] = DPR_NDP_OPT_SLLA;
	msg[9] = 1;
	memcpy(msg + 10, smac, 6);
	m = mk6(&(struct rte_ether_addr){{ 0x33, 0x33, 0, 0, 0, 0x02 }}, smac, src, "ff02::2",
		IPPROTO_ICMPV6, 255, msg, sizeof(msg));
	cksum_fix(m);
	inject(m, DPR_EXC_LOCAL, in, 0);
}

/* An echo request, identifier 0x1234, sequence 7, 24 bytes of data. */
static struct rte_mbuf *
echo_req(const struct rte_ether_addr *dmac, const char *src, const char *dst)
{
	uint8_t msg[32] = { DPR_ICMP6_ECHO_REQUEST, 0, 0, 0, 0x12, 0x34, 0, 7 };
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 8; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(0xa0 + i);
	m = mk6(dmac, &mac_host, src, dst, IPPROTO_ICMPV6, 64, msg, sizeof(msg));
	cksum_fix(m);
	return m;
}

/* --- what the router sent --------------------------------------------------------- */

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
	while ((n = rte_ring_sc_dequeue_burst(tapr, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

static unsigned int
pool_in_use(void)
{
	return POOL_SIZE - rte_mempool_avail_count(pool);
}

/* An ICMPv6 message of @p type right after the IPv6 header? */
static bool
is_icmp6(const struct rte_mbuf *m, uint8_t type)
{
	const uint8_t *f = F(m);

	return m->pkt_len > F_L4 + 4u && f[12] == 0x86 && f[13] == 0xdd && f[F_NH] == IPPROTO_ICMPV6 &&
		f[F_L4] == type;
}

/* Neighbor Discovery option @p type of the message in @p m, whose options start at @p at. */
static const uint8_t *
nd_opt(const struct rte_mbuf *m, uint32_t at, uint8_t type, unsigned int nth)
{
	const uint8_t *f = F(m);
	uint32_t end = F_L4 + be16_at(f + F_PLEN), off = F_L4 + at;

	if (end > m->pkt_len)
		return NULL;
	while (off + 2 <= end && f[off + 1] != 0 && off + f[off + 1] * 8u <= end) {
		if (f[off] == type && nth-- == 0)
			return f + off;
		off += f[off + 1] * 8u;
	}
	return NULL;
}

/* Is @p a one of the addresses of port @p p (link-local included)? */
static bool
addr_of_port(const uint8_t *a, unsigned int p)
{
	struct dpr_ip ip = { .af = DPR_AF_IP6 };

	memcpy(ip.ip6, a, 16);
	return dpr_ifaddr_on(&R.addrs, p, &ip);
}

static uint64_t
counter(const char *family, const char *name)
{
	json_t *o = dpr_exc_stats_json(R.exc);
	json_t *c = family != NULL ? json_object_get(o, family) : o;
	uint64_t v = (uint64_t)json_integer_value(json_object_get(c, name));

	json_decref(o);
	return v;
}

static uint64_t
c6(const char *name)
{
	return counter("ipv6", name);
}

/* The neighbour module's side tables agree with the next-hop table. */
static void
neigh_ok(const char *step)
{
	char err[160] = "";

	CHECK(dpr_neigh_check(R.neigh, err, sizeof(err)) == 0, "after %s: %s", step, err);
}

/* The next hop a lookup of @p s finds now. */
static union dpr_nh_word
route_word(const char *s)
{
	return dpr_nh_word_get(R.nh, dpr_fib6_lookup(R.fib6, A(s)));
}

/* A solicited advertisement of ours: RFC 4861 4.4 fields, 7.2.4 values. */
static void
check_na(const struct rte_mbuf *m, unsigned int port, const char *dst,
	 const struct rte_ether_addr *dmac, const char *target, bool solicited, bool override,
	 const char *what)
{
	const uint8_t *f = F(m), *o;

	CHECK(mac_at(f, dmac) && mac_at(f + 6, &mac_p[port]),
	      "%s: from p%u's MAC to the solicitor's", what, port);
	/* 7.1.2: receivers drop anything with hop limit below 255. */
	CHECK(f[F_HOPS] == 255, "%s: hop limit 255 (got %u)", what, f[F_HOPS]);
	CHECK(same6(f + F_DST, dst), "%s: to %s", what, dst);
	/* 7.2.4: from an address assigned to the interface. */
	CHECK(addr_of_port(f + F_SRC, port), "%s: from an address of p%u", what, port);
	CHECK(f[F_L4 + 1] == 0 && cksum_ok(m), "%s: code 0, checksum right", what);
	/* 4.4: R set by a router; S when solicited (to a unicast solicitor); O. */
	CHECK(f[F_L4 + 4] == (0x80 | (solicited ? 0x40 : 0) | (override ? 0x20 : 0)),
	      "%s: flags R=1 S=%d O=%d (got %#x)", what, solicited, override, f[F_L4 + 4]);
	CHECK(same6(f + F_L4 + 8, target), "%s: target %s", what, target);
	/* 7.2.4: the target link-layer address is included on Ethernet. */
	o = nd_opt(m, 24, DPR_NDP_OPT_TLLA, 0);
	CHECK(o != NULL && o[1] == 1 && mac_at(o + 2, &mac_p[port]),
	      "%s: TLLA is p%u's MAC", what, port);
}

/* --- neighbour solicitations for the router's addresses ------------------------------ */

/* Unicast NSs for @p who (to @p mac, if not NULL) sent on dpr port @p port now. */
static unsigned int
probes_on(uint16_t port, const char *who, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *out[64];
	unsigned int n, i, hit = 0;

	n = sent(port, out, RTE_DIM(out));
	for (i = 0; i < n; i++) {
		const uint8_t *f = F(out[i]);

		hit += f[F_L4] == DPR_ICMP6_NEIGH_SOLICIT &&
		       memcmp(f + F_L4 + 8, A(who), 16) == 0 &&
		       memcmp(f + 14 + 24, A(who), 16) == 0 && (mac == NULL || mac_at(f, mac));
	}
	rte_pktmbuf_free_bulk(out, n);
	return hit;
}

/* probes_on() p0. */
static unsigned int
probes_for(const char *who, const struct rte_ether_addr *mac)
{
	return probes_on(0, who, mac);
}

/*
 * RFC 4861 7.2.3: neighbour @p who, just learned on dpr port @p port from
 * its solicitation of @p ours with MAC @p mac, is STALE: probed there at
 * once (7.3.3, dpr has no DELAY state); its solicited answer makes it
 * REACHABLE (7.2.5), as the checks that follow expect.
 */
static void
answer_stale_probe(uint16_t port, const struct rte_ether_addr *mac, const char *who,
		   const char *ours)
{
	unsigned int hit;

	dpr_exc_timers(R.exc);
	hit = probes_on(port, who, mac);
	CHECK(hit == 1, "RFC 4861 7.2.3: %s, learned from its NS, is STALE: probed at its MAC at once (%u)",
	      who, hit);
	na_in(port, mac, who, ours, who, mac, true, true, GOOD);
	dpr_exc_timers(R.exc);
	CHECK_EQ(probes_on(port, who, NULL), 0);
	drop_sent();
}

/*
 * RFC 4861 7.2.3, 7.2.4: an NS for an address of the receiving interface
 * is answered with a solicited NA (S=1, R=1, O=1) to the solicitor, and the
 * solicitor's SLLA is learned; an NS for any other address is not answered;
 * for the subnet-router anycast address (RFC 4291 2.6.1) the answer has O=0
 * (7.2.7) and, as dpr chooses, a unicast source.
 */
static void
test_ns_for_us(void)
{
	const struct rte_ether_addr evil = {{ 0x02, 0xee, 0, 0, 0, 0x99 }};
	const struct rte_ether_addr h50 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x50 }};
	const struct rte_ether_addr h99 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x99 }};
	const struct rte_ether_addr h52 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x52 }};
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();
	union dpr_nh_word w;

	drop_sent();
	/* A global solicitor asking for the port's global address. */
	ns_in(0, &h50, "2001:db8:1::50", "2001:db8:1::1", true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_ADVERT),
	      "RFC 4861 7.2.4: NS for 2001:db8:1::1 answered with one NA (%u sent)", n);
	if (n == 1)
		check_na(out[0], 0, "2001:db8:1::50", &h50, "2001:db8:1::1", true, true,
			 "NA for 2001:db8:1::1");
	rte_pktmbuf_free_bulk(out, n);
	/* 7.2.3: the solicitor's address with its SLLA goes into the cache. */
	w = route_word("2001:db8:1::50");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && w.port == 0 && rte_is_same_ether_addr(&w.mac, &h50),
	      "RFC 4861 7.2.3: the solicitor 2001:db8:1::50 is learned on p0 (kind %u)", w.kind);
	answer_stale_probe(0, &h50, "2001:db8:1::50", "2001:db8:1::1");

	/* The second global address of the port, from the same host. */
	ns_in(0, &h50, "2001:db8:1::50", "2001:db8:11::1", true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_ADVERT),
	      "RFC 4861 7.2.4: NS for 2001:db8:11::1 answered (%u sent)", n);
	if (n == 1)
		check_na(out[0], 0, "2001:db8:1::50", &h50, "2001:db8:11::1", true, true,
			 "NA for 2001:db8:11::1");
	rte_pktmbuf_free_bulk(out, n);

	/* The port's link-local address, from a link-local solicitor that a
	 * route uses as its gateway (2001:db8:99::/48 via fe80::99). */
	CHECK(route_word("2001:db8:99::1").kind == DPR_NH_KIND_UNRESOLVED,
	      "fe80::99 unresolved to begin with");
	/* dpr issue 50 case 6: advertisements nobody asked for, one claiming
	 * to be solicited, do not give the gateway to their sender (RFC 4861
	 * 7.2.5: no entry is being resolved). */
	na_in(0, &evil, "fe80::99", "ff02::1", "fe80::99", &evil, false, true, GOOD);
	neigh_ok("an unsolicited NA for a gateway");
	na_in(0, &evil, "fe80::99", ll_p[0], "fe80::99", &evil, true, true, GOOD);
	neigh_ok("an NA claiming S for a gateway");
	CHECK(route_word("2001:db8:99::1").kind == DPR_NH_KIND_UNRESOLVED,
	      "unsolicited NAs leave the gateway fe80::99 unresolved");
	drop_sent();
	ns_in(0, &h99, "fe80::99", ll_p[0], true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_ADVERT),
	      "RFC 4861 7.2.4: NS for the link-local %s answered (%u sent)", ll_p[0], n);
	if (n == 1)
		check_na(out[0], 0, "fe80::99", &h99, ll_p[0], true, true, "NA for the link-local");
	rte_pktmbuf_free_bulk(out, n);
	w = route_word("2001:db8:99::1");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && w.port == 0 && rte_is_same_ether_addr(&w.mac, &h99),
	      "RFC 4861 7.2.3: the link-local solicitor fe80::99 is learned: the route via it forwards (kind %u)",
	      w.kind);
	answer_stale_probe(0, &h99, "fe80::99", ll_p[0]);

	/* 7.2.3: only a target assigned to the receiving interface is answered:
	 * not someone else's, not p1's address asked on p0. */
	ns_in(0, &h52, "2001:db8:1::52", "2001:db8:1::77", true, GOOD);
	ns_in(0, &h52, "2001:db8:1::52", "2001:db8:2::1", true, GOOD);
	ns_in(0, &h52, "2001:db8:1::52", ll_p[1], true, GOOD);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	/* RFC 826 as dpr applies it to NDP: no entry for one asking for others. */
	CHECK(route_word("2001:db8:1::52").kind != DPR_NH_KIND_FORWARD,
	      "a host asking for another's address is not learned");
	CHECK_EQ(pool_in_use(), base);
}

/*
 * RFC 8950: an IPv4 route through an IPv6 link-local neighbour not resolved
 * yet (10.98.0.0/16 via fe80::98 on p0). An IPv4 packet that finds it so
 * is held while neighbour discovery asks for fe80::98 (RFC 4861 7.2.2), as
 * ARP would for an IPv4 gateway, and leaves with the advertised MAC and
 * its IPv4 EtherType once the answer comes.
 */
static void
test_v4_via_link_local(void)
{
	const struct rte_ether_addr h98 = {{ 0x02, 0xaa, 0, 0, 0x09, 0x98 }};
	struct dpr_ip gw = ip6("fe80::98");
	struct dpr_route_op op = { .prefix = { .addr = { .af = DPR_AF_IP4, .ip4 = 0x0a620000 },
					       .len = 16 } };
	struct rte_mbuf *out[8], *m;
	unsigned int n, base = pool_in_use();
	struct rte_ipv4_hdr *ip;
	int idx, err = 0;
	uint8_t *b;

	drop_sent();
	idx = dpr_nh_get(R.nh, &gw, 0);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "a next hop for fe80::98 on p0");
	op.nh = (uint32_t)idx;
	CHECK_EQ(dpr_route_apply(&R.rib, &op, 1, &err), 1);
	CHECK_EQ(dpr_fib4_lookup(R.fib4, 0x0a620005), (uint32_t)idx);

	/* An IPv4/UDP frame in on p1, from a host behind it. */
	m = rte_pktmbuf_alloc(pool);
	b = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, 14 + 20 + 8 + 32) : NULL;
	if (b == NULL)
		abort();
	memset(b, 0, 14 + 20 + 8 + 32);
	memcpy(b, &mac_p[1], 6);
	memcpy(b + 6, &mac_host, 6);
	b[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(b + 14);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + 32);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = RTE_BE32(0xc0000201);
	ip->dst_addr = RTE_BE32(0x0a620005);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	inject(m, DPR_EXC_UNRESOLVED, 1, (uint32_t)idx);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_SOLICIT) &&
	      same6(F(out[0]) + F_L4 + 8, "fe80::98") && same6(F(out[0]) + F_DST, "ff02::1:ff00:98"),
	      "an IPv4 packet for 10.98.0.5: NDP asks for fe80::98 on p0 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK_EQ(pool_in_use(), base + 1); /* the held packet */

	na_in(0, &h98, "fe80::98", ll_p[0], "fe80::98", &h98, true, true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[12] == 0x08 && F(out[0])[13] == 0x00,
	      "the NA releases the held IPv4 packet on p0 (%u sent)", n);
	if (n == 1) {
		ip = (struct rte_ipv4_hdr *)(F(out[0]) + 14);
		CHECK(mac_at(F(out[0]), &h98) && mac_at(F(out[0]) + 6, &mac_p[0]),
		      "to fe80::98's MAC, from p0's");
		CHECK(ip->time_to_live == 63 && rte_raw_cksum(ip, 20) == 0xffff &&
		      ip->dst_addr == RTE_BE32(0x0a620005),
		      "TTL 63, checksum valid, destination unchanged");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK(dpr_nh_word_get(R.nh, (uint32_t)idx).kind == DPR_NH_KIND_FORWARD,
	      "fe80::98 resolved: the workers forward 10.98.0.0/16 from now on");
	op.del = 1;
	CHECK_EQ(dpr_route_apply(&R.rib, &op, 1, &err), 1);
	CHECK_EQ(pool_in_use(), base);
}

/*
 * RFC 8950 on a router with no IPv4 address at all (this rig's ports are
 * IPv6 only, as an unnumbered BGP fabric's are): an ICMP error about an
 * IPv4 packet still needs an IPv4 source. Not an IPv6 address's first four
 * bytes read as one (fe80:: gave 0.0.128.254), not none: 192.0.0.8, the
 * dummy address of RFC 7600 4.8, as Linux sends (RFC 8950 leaves it to the
 * implementation).
 */
static void
test_v4_error_without_v4_address(void)
{
	const struct rte_ether_addr h97 = {{ 0x02, 0xaa, 0, 0, 0x09, 0x97 }};
	struct dpr_ip gw = ip6("fe80::97");
	struct dpr_route_op op = { .prefix = { .addr = { .af = DPR_AF_IP4, .ip4 = 0xc0000200 },
					       .len = 24 } };
	struct rte_mbuf *out[8], *m;
	unsigned int n, base = pool_in_use();
	struct rte_ipv4_hdr *ip;
	char err[160];
	int idx, r, e = 0;
	uint8_t *b;

	drop_sent();
	r = dpr_neigh_add_static(R.neigh, &gw, &h97, 1, err, sizeof(err));
	CHECK(r >= 0, "fe80::97 a static neighbour on p1 (%s)", r < 0 ? err : "");
	idx = dpr_nh_get(R.nh, &gw, 1);
	CHECK(idx >= DPR_NH_FIRST_DYNAMIC, "a next hop for fe80::97 on p1");
	op.nh = (uint32_t)idx;
	CHECK_EQ(dpr_route_apply(&R.rib, &op, 1, &e), 1);

	/* 192.0.2.1, behind fe80::97 on p1, sends with TTL 1. */
	m = rte_pktmbuf_alloc(pool);
	b = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, 14 + 20 + 8) : NULL;
	if (b == NULL)
		abort();
	memset(b, 0, 14 + 20 + 8);
	memcpy(b, &mac_p[1], 6);
	memcpy(b + 6, &h97, 6);
	b[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(b + 14);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 8);
	ip->time_to_live = 1;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = RTE_BE32(0xc0000201);
	ip->dst_addr = RTE_BE32(0x0a620005);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	inject(m, DPR_EXC_TTL_EXPIRED, 1, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[12] == 0x08 && F(out[0])[13] == 0x00 &&
	      F(out[0])[14 + 20] == 11, "time exceeded back to 192.0.2.1 through p1 (%u sent)", n);
	if (n == 1) {
		ip = (struct rte_ipv4_hdr *)(F(out[0]) + 14);
		CHECK(ip->src_addr == RTE_BE32(0xc0000008),
		      "from 192.0.0.8 (RFC 7600 4.8), not %08x", rte_be_to_cpu_32(ip->src_addr));
		CHECK(ip->dst_addr == RTE_BE32(0xc0000201) && rte_raw_cksum(ip, 20) == 0xffff &&
		      mac_at(F(out[0]), &h97) && mac_at(F(out[0]) + 6, &mac_p[1]),
		      "to 192.0.2.1 at fe80::97's MAC, from p1's");
	}
	rte_pktmbuf_free_bulk(out, n);
	op.del = 1;
	CHECK_EQ(dpr_route_apply(&R.rib, &op, 1, &e), 1); /* its reference with it */
	CHECK_EQ(dpr_neigh_del(R.neigh, &gw, 1), 0);
	neigh_ok("an IPv4 error without an IPv4 address");
	CHECK_EQ(pool_in_use(), base);
}

/*
 * RFC 4861 7.1.1, 7.1.2: an NS or NA with a hop limit other than 255, a
 * wrong checksum or a code other than 0 is silently discarded: nothing is
 * sent, nothing learned, nothing claimed (counted ndp_invalid).
 */
static void
test_ndp_invalid(void)
{
	const struct rte_ether_addr h51 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x51 }};
	const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	const struct rte_ether_addr mc = {{ 0x33, 0x33, 0, 0, 0, 0x01 }};
	static const enum spoil spoils[] = { HOPS_254, BAD_CKSUM, CODE_1 };
	static const char *const names[] = { "hop limit 254", "bad checksum", "code 1" };
	struct rte_mbuf *out[8];
	unsigned int i, base = pool_in_use();

	drop_sent();
	for (i = 0; i < RTE_DIM(spoils); i++) {
		uint64_t inv = c6("ndp_invalid"), dad = c6("dad_conflicts");

		ns_in(0, &h51, "2001:db8:1::51", "2001:db8:1::1", true, spoils[i]);
		CHECK(sent(0, out, RTE_DIM(out)) == 0,
		      "RFC 4861 7.1.1: NS with %s not answered", names[i]);
		CHECK(route_word("2001:db8:1::51").kind != DPR_NH_KIND_FORWARD,
		      "RFC 4861 7.1.1: NS with %s teaches nothing", names[i]);
		/* An NA claiming our address would count a conflict if taken. */
		na_in(0, &h51, "2001:db8:1::51", "ff02::1", "2001:db8:1::1", &h51, false, true,
		      spoils[i]);
		CHECK_EQ(c6("ndp_invalid") - inv, 2);
		CHECK(c6("dad_conflicts") == dad, "RFC 4861 7.1.2: NA with %s ignored", names[i]);
	}
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	/* A link-layer address option naming no one host: learned, the
	 * neighbour's traffic would go to the whole link (or to no one). */
	for (i = 0; i < 2; i++) {
		const struct rte_ether_addr *bad = i == 0 ? &bcast : &mc;
		uint64_t inv = c6("ndp_invalid");

		ns_in(0, bad, "2001:db8:1::53", "2001:db8:1::1", true, GOOD);
		CHECK(route_word("2001:db8:1::53").kind != DPR_NH_KIND_FORWARD,
		      "an NS with SLLA %02x:%02x:..: teaches nothing", bad->addr_bytes[0],
		      bad->addr_bytes[1]);
		CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
		CHECK_EQ(c6("ndp_invalid") - inv, 1);
	}
	neigh_ok("an NS with a multicast SLLA");
	CHECK_EQ(pool_in_use(), base);
}

/*
 * RFC 4861 7.2.5: an advertisement updates a cache entry, never creates
 * one; for an entry being resolved (a packet held for it) it resolves it,
 * and the held packet leaves (7.2.2 says how to ask: an NS to the target's
 * solicited-node group with our SLLA).
 */
static void
test_na_and_resolution(void)
{
	const struct rte_ether_addr h60 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x60 }};
	const struct rte_ether_addr h77 = {{ 0x02, 0xaa, 0, 0, 0x02, 0x77 }};
	const struct rte_ether_addr h50b = {{ 0x02, 0xbb, 0, 0, 0x01, 0x50 }};
	const struct rte_ether_addr h50c = {{ 0x02, 0xcc, 0, 0, 0x01, 0x50 }};
	const struct rte_ether_addr h50 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x50 }};
	struct rte_ether_addr sn_mac = mcast_mac("ff02::1:ff00:77");
	struct dpr_ip h60_ip = ip6("2001:db8:1::60");
	struct rte_mbuf *out[8];
	const uint8_t *f, *o;
	unsigned int n, i, base = pool_in_use(), data_ok;
	union dpr_nh_word w;
	uint64_t stale;

	drop_sent();
	/* Unsolicited, for a host the router never heard of. */
	na_in(0, &h60, "2001:db8:1::60", "ff02::1", "2001:db8:1::60", &h60, false, true, GOOD);
	CHECK(dpr_nh_find(R.nh, &h60_ip) < 0 &&
	      route_word("2001:db8:1::60").kind != DPR_NH_KIND_FORWARD,
	      "RFC 4861 7.2.5: an unsolicited NA for an unknown host creates no entry");
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);

	/* A packet for 2001:db8:2::77, on p1's subnet and unknown: held, and asked for. */
	inject(mk_udp(&mac_p[0], "2001:db8:100::40", "2001:db8:2::77", 64, 100),
	       DPR_EXC_UNRESOLVED, 0, dpr_fib6_lookup(R.fib6, A("2001:db8:2::77")));
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_SOLICIT),
	      "RFC 4861 7.2.2: one NS for 2001:db8:2::77 on p1 (%u sent)", n);
	if (n == 1) {
		f = F(out[0]);
		CHECK(mac_at(f, &sn_mac) && mac_at(f + 6, &mac_p[1]),
		      "RFC 4861 7.2.2, RFC 2464 7: NS to 33:33:ff:00:00:77 from p1's MAC");
		CHECK(same6(f + F_DST, "ff02::1:ff00:77"),
		      "RFC 4861 7.2.2, RFC 4291 2.7.1: to the solicited-node address");
		CHECK(f[F_HOPS] == 255 && cksum_ok(out[0]) && f[F_L4 + 1] == 0,
		      "RFC 4861 7.1.1: hop limit 255, code 0, checksum right");
		CHECK(addr_of_port(f + F_SRC, 1), "RFC 4861 7.2.2: from an address of p1");
		CHECK(same6(f + F_L4 + 8, "2001:db8:2::77"), "NS target 2001:db8:2::77");
		o = nd_opt(out[0], 24, DPR_NDP_OPT_SLLA, 0);
		CHECK(o != NULL && o[1] == 1 && mac_at(o + 2, &mac_p[1]),
		      "RFC 4861 7.2.2: a multicast NS carries the SLLA, p1's MAC");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(pool_in_use(), base + 1); /* the held packet */

	/* The answer: solicited, to the address the NS came from. */
	na_in(1, &h77, "2001:db8:2::77", "2001:db8:2::1", "2001:db8:2::77", &h77, true, true, GOOD);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[F_NH] == IPPROTO_UDP,
	      "RFC 4861 7.2.5: the NA resolves 2001:db8:2::77 and the held packet leaves p1 (%u sent)", n);
	if (n == 1) {
		f = F(out[0]);
		CHECK(mac_at(f, &h77) && mac_at(f + 6, &mac_p[1]),
		      "the held packet goes to the advertised MAC from p1's");
		/* RFC 8200 3: each node forwarding the packet decrements it. */
		CHECK(f[F_HOPS] == 63, "hop limit 64 - 1 (got %u)", f[F_HOPS]);
		CHECK(same6(f + F_SRC, "2001:db8:100::40") && same6(f + F_DST, "2001:db8:2::77") &&
		      be16_at(f + F_PLEN) == 100 && out[0]->pkt_len == F_L4 + 100u,
		      "the held packet's addresses and length unchanged");
		for (i = 0, data_ok = 0; i < 100 && out[0]->pkt_len >= F_L4 + 100u; i++)
			data_ok += f[F_L4 + i] == (uint8_t)i;
		CHECK_EQ(data_ok, 100);
	}
	rte_pktmbuf_free_bulk(out, n);
	w = route_word("2001:db8:2::77");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h77),
	      "2001:db8:2::77 resolved");

	/*
	 * 7.2.5 on an entry that exists (2001:db8:1::50, learned from its NS,
	 * MAC h50): an advertisement with another link-layer address that
	 * does not answer a solicitation of ours, override or not, never
	 * replaces it: the entry goes STALE, keeps h50, and is probed there
	 * by a unicast NS (7.3.3). RFC 4861 would take an unsolicited one with
	 * O=1; dpr does not (dpr issue 50 case 6, docs/security.md).
	 */
	stale = counter(NULL, "neighbor_stale_probed");
	na_in(0, &h50b, "2001:db8:1::50", "ff02::1", "2001:db8:1::50", &h50b, false, true, GOOD);
	w = route_word("2001:db8:1::50");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h50),
	      "an unsolicited NA with O=1 and another MAC keeps the known one (now %02x:..:%02x)",
	      w.mac.addr_bytes[1], w.mac.addr_bytes[5]);
	CHECK_EQ(counter(NULL, "neighbor_stale_probed"), stale + 1);
	neigh_ok("an unsolicited override NA with another MAC");
	na_in(0, &h50c, "2001:db8:1::50", "2001:db8:1::1", "2001:db8:1::50", &h50c, true, false,
	      GOOD);
	w = route_word("2001:db8:1::50");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h50),
	      "RFC 4861 7.2.5: an NA with O=0 and another link-layer address MUST NOT change the cached one (now %02x:..:%02x)",
	      w.mac.addr_bytes[1], w.mac.addr_bytes[5]);
	dpr_exc_timers(R.exc);
	neigh_ok("the probe");
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_SOLICIT),
	      "RFC 4861 7.3.3: the stale entry is probed at once (%u sent)", n);
	if (n == 1) {
		f = F(out[0]);
		CHECK(mac_at(f, &h50) && same6(f + F_DST, "2001:db8:1::50") &&
		      same6(f + F_L4 + 8, "2001:db8:1::50"),
		      "RFC 4861 7.3.3: a unicast NS to the cached MAC and the address itself");
	}
	rte_pktmbuf_free_bulk(out, n);
	/* The neighbour answers its probe: reachable again, same MAC. */
	na_in(0, &h50, "2001:db8:1::50", "2001:db8:1::1", "2001:db8:1::50", &h50, true, true, GOOD);
	w = route_word("2001:db8:1::50");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h50),
	      "the answer to the probe keeps the neighbour");
	/* While probing, a solicited NA with O=1 and a new MAC is the answer
	 * RFC 4861 7.2.5 lets replace it. */
	na_in(0, &h50b, "2001:db8:1::50", "ff02::1", "2001:db8:1::50", &h50b, false, true, GOOD);
	dpr_exc_timers(R.exc);
	drop_sent();
	na_in(0, &h50b, "2001:db8:1::50", "2001:db8:1::1", "2001:db8:1::50", &h50b, true, true,
	      GOOD);
	w = route_word("2001:db8:1::50");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h50b),
	      "RFC 4861 7.2.5: a solicited NA with O=1 answering our probe updates the MAC");
	neigh_ok("the answer to the probe");
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK_EQ(pool_in_use(), base);
}

/*
 * neighbor_learning ignore_gratuitous (p1): an unsolicited advertisement
 * with another MAC is ignored altogether: the entry keeps its MAC and is
 * not even probed.
 */
static void
test_ignore_gratuitous6(void)
{
	const struct rte_ether_addr h61 = {{ 0x02, 0xaa, 0, 0, 0x02, 0x61 }};
	const struct rte_ether_addr evil = {{ 0x02, 0xee, 0, 0, 0x02, 0x61 }};
	struct dpr_ip ip = ip6("2001:db8:2::61");
	uint64_t ignored = counter(NULL, "neighbor_ignored");
	uint64_t stale = counter(NULL, "neighbor_stale_probed");
	union dpr_nh_word w;

	drop_sent();
	ns_in(1, &h61, "2001:db8:2::61", "2001:db8:2::1", true, GOOD);
	w = route_word("2001:db8:2::61");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h61),
	      "p1: 2001:db8:2::61 learned from its NS");
	answer_stale_probe(1, &h61, "2001:db8:2::61", "2001:db8:2::1");
	drop_sent();
	na_in(1, &evil, "2001:db8:2::61", "ff02::1", "2001:db8:2::61", &evil, false, true, GOOD);
	neigh_ok("an unsolicited NA on an ignore_gratuitous port");
	w = route_word("2001:db8:2::61");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h61),
	      "ignore_gratuitous: the known MAC stays");
	CHECK_EQ(counter(NULL, "neighbor_ignored"), ignored + 1);
	CHECK_EQ(counter(NULL, "neighbor_stale_probed"), stale);
	dpr_exc_timers(R.exc);
	CHECK_EQ(rte_ring_count(txr[1]), 0); /* no probe */
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip, -1), 0);
	neigh_ok("neigh.del");
	drop_sent();
}

/*
 * RFC 4862 5.4.3: an NS from :: for one of our addresses is someone's
 * duplicate address detection; dpr counts a conflict (docs/architecture.md,
 * "Departures") and defends the address: an NA to all nodes (RFC 4861
 * 7.2.4: S=0 to a solicitation from ::). An NA for one of our addresses
 * (RFC 4862 5.4.4) is a conflict too.
 */
static void
test_dad(void)
{
	const struct rte_ether_addr h80 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x80 }};
	uint64_t dad = c6("dad_conflicts");
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();

	drop_sent();
	ns_in(0, &h80, "::", "2001:db8:1::1", false, GOOD);
	CHECK_EQ(c6("dad_conflicts") - dad, 1);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_ADVERT),
	      "RFC 4862 5.4.3: DAD probe for 2001:db8:1::1 answered (%u sent)", n);
	if (n == 1)
		check_na(out[0], 0, "ff02::1", &mac_all_nodes, "2001:db8:1::1", false, true,
			 "RFC 4861 7.2.4: NA to all nodes for a solicitation from ::");
	rte_pktmbuf_free_bulk(out, n);
	CHECK(route_word("::").kind != DPR_NH_KIND_FORWARD, "nothing learned for ::");

	/* A DAD probe for an address that is not ours: not a conflict. */
	ns_in(0, &h80, "::", "2001:db8:1::80", false, GOOD);
	CHECK_EQ(c6("dad_conflicts") - dad, 1);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);

	/* Somebody else advertising the port's address. */
	na_in(0, &h80, "2001:db8:1::80", "ff02::1", "2001:db8:1::1", &h80, false, true, GOOD);
	CHECK(c6("dad_conflicts") - dad == 2, "RFC 4862 5.4.4: an NA for 2001:db8:1::1 is a conflict");
	na_in(0, &h80, "fe80::80", "ff02::1", ll_p[0], &h80, false, true, GOOD);
	CHECK(c6("dad_conflicts") - dad == 3, "RFC 4862 5.4.4: an NA for our link-local is a conflict");
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(pool_in_use(), base);
}

/* --- router advertisements --------------------------------------------------------- */

/*
 * RFC 4861 4.2, 6.2.1, 6.2.3: an advertisement of p0 with the defaults,
 * to @p dst / @p dmac.
 */
static void
check_ra(const struct rte_mbuf *m, const char *dst, const struct rte_ether_addr *dmac,
	 const char *what)
{
	static const char *const prefixes[] = { "2001:db8:1::", "2001:db8:11::" };
	const uint8_t *f = F(m), *o;
	unsigned int i, k;

	CHECK(mac_at(f, dmac) && mac_at(f + 6, &mac_p[0]), "%s: MACs", what);
	/* 6.1.2: hosts take only hop limit 255 from a link-local source. */
	CHECK(f[F_HOPS] == 255, "%s: hop limit 255 (got %u)", what, f[F_HOPS]);
	CHECK(same6(f + F_SRC, ll_p[0]), "%s: from p0's link-local address %s", what, ll_p[0]);
	CHECK(same6(f + F_DST, dst), "%s: to %s", what, dst);
	CHECK(f[F_L4 + 1] == 0 && cksum_ok(m), "%s: code 0, checksum right", what);
	/* 6.2.1: AdvCurHopLimit 64 (Assigned Numbers), no M/O, AdvDefaultLifetime
	 * 3 x MaxRtrAdvInterval (600 s), reachable time and retrans timer unspecified. */
	CHECK(f[F_L4 + 4] == 64 && f[F_L4 + 5] == 0, "%s: cur hop limit 64, no M/O flags", what);
	CHECK(be16_at(f + F_L4 + 6) == 1800, "%s: router lifetime 1800 (got %u)", what,
	      be16_at(f + F_L4 + 6));
	CHECK(be32_at(f + F_L4 + 8) == 0 && be32_at(f + F_L4 + 12) == 0,
	      "%s: reachable time and retrans timer 0", what);
	o = nd_opt(m, 16, DPR_NDP_OPT_SLLA, 0);
	CHECK(o != NULL && o[1] == 1 && mac_at(o + 2, &mac_p[0]), "%s: SLLA p0's MAC (6.2.3)", what);
	/* 4.6.4: AdvLinkMTU, the port's. */
	o = nd_opt(m, 16, DPR_NDP_OPT_MTU, 0);
	CHECK(o != NULL && o[1] == 1 && be16_at(o + 2) == 0 && be32_at(o + 4) == mtu_p[0],
	      "%s: MTU option %u (got %u)", what, mtu_p[0], o != NULL ? be32_at(o + 4) : 0);
	/* 6.2.1 AdvPrefixList: the port's on-link prefixes, not link-local; L and A
	 * (RFC 4862 5.5.3 with a 64-bit interface id); valid 30 days, preferred 7. */
	for (k = 0; k < RTE_DIM(prefixes); k++) {
		bool found = false;

		for (i = 0; (o = nd_opt(m, 16, DPR_NDP_OPT_PREFIX, i)) != NULL; i++) {
			if (o[1] != 4 || !same6(o + 16, prefixes[k]))
				continue;
			found = true;
			CHECK(o[2] == 64 && o[3] == 0xc0, "%s: %s/64 with L and A (flags %#x)", what,
			      prefixes[k], o[3]);
			CHECK(be32_at(o + 4) == 2592000 && be32_at(o + 8) == 604800,
			      "%s: %s/64 valid 2592000 preferred 604800 (got %u %u)", what,
			      prefixes[k], be32_at(o + 4), be32_at(o + 8));
			CHECK(be32_at(o + 12) == 0, "%s: PIO reserved2 zero", what);
		}
		CHECK(found, "%s: a prefix information option for %s/64", what, prefixes[k]);
	}
	for (i = 0; nd_opt(m, 16, DPR_NDP_OPT_PREFIX, i) != NULL; i++)
		;
	CHECK(i == RTE_DIM(prefixes), "%s: one prefix option per /64 of p0, no link-local (%u)",
	      what, i);
}

/* RAs among what the ports sent; those of p0 go to @p ra0, the count of others to @p others. */
static void
collect_ra(struct rte_mbuf **ra0, unsigned int *n_ra0, unsigned int *others)
{
	struct rte_mbuf *out[64];
	unsigned int p, n, i;

	for (p = 0; p < N_PORTS; p++) {
		while ((n = sent(p, out, RTE_DIM(out))) > 0) {
			for (i = 0; i < n; i++) {
				if (!is_icmp6(out[i], DPR_ICMP6_ROUTER_ADVERT)) {
					rte_pktmbuf_free(out[i]);
				} else if (p == 0 && *ra0 == NULL) {
					*ra0 = out[i];
					(*n_ra0)++;
				} else {
					if (p == 0)
						(*n_ra0)++;
					else
						(*others)++;
					rte_pktmbuf_free(out[i]);
				}
			}
		}
	}
}

/*
 * RFC 4861 6.2.4: unsolicited advertisements to all nodes, the first soon
 * after start (dpr: half a second), only on ports that advertise.
 */
static void
test_ra_periodic(void)
{
	struct rte_mbuf *ra = NULL;
	unsigned int n_ra = 0, others = 0, ms;

	drop_sent();
	for (ms = 0; ms <= 2000 && ra == NULL; ms += 20) {
		dpr_exc_timers(R.exc);
		collect_ra(&ra, &n_ra, &others);
		if (ra == NULL)
			rte_delay_ms(20);
	}
	CHECK(ra != NULL && n_ra == 1, "RFC 4861 6.2.4: one unsolicited RA on p0 (%u)", n_ra);
	if (ra != NULL)
		check_ra(ra, "ff02::1", &mac_all_nodes, "periodic RA");
	CHECK(others == 0, "no RA on p1 and p2, which do not advertise (%u)", others);
	rte_pktmbuf_free(ra);
}

/*
 * RFC 4861 6.2.6: a router solicitation on an advertising interface is
 * answered (to the host, or to all nodes), "delayed by a random time
 * between 0 and MAX_RA_DELAY_TIME seconds" (MUST); one on an interface
 * that does not advertise is not.
 */
static void
test_ra_solicited(void)
{
	const struct rte_ether_addr h70 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x70 }};
	const struct rte_ether_addr h71 = {{ 0x02, 0xaa, 0, 0, 0x02, 0x71 }};
	struct rte_mbuf *ra = NULL;
	unsigned int n_ra = 0, others = 0, ms, at_once, base = pool_in_use();
	bool unicast;

	drop_sent();
	rs_in(1, &h71, "fe80::71");
	rs_in(0, &h70, "fe80::70");
	at_once = rte_ring_count(txr[0]);
	/* Up to 3.5 s: an answer to all nodes may wait out MIN_DELAY_BETWEEN_RAS
	 * after the periodic one; then 0.6 s more for p1 to stay quiet. */
	for (ms = 0; ms <= 3600 && (ra == NULL || ms < 600); ms += 20) {
		collect_ra(&ra, &n_ra, &others);
		rte_delay_ms(20);
		dpr_exc_timers(R.exc);
	}
	collect_ra(&ra, &n_ra, &others);
	CHECK(ra != NULL && n_ra == 1, "RFC 4861 6.2.6: one RA on p0 for the RS (%u)", n_ra);
	if (ra != NULL) {
		unicast = same6(F(ra) + F_DST, "fe80::70");
		check_ra(ra, unicast ? "fe80::70" : "ff02::1", unicast ? &h70 : &mac_all_nodes,
			 "solicited RA");
	}
	CHECK(others == 0, "RFC 4861 6.2.6: no RA on p1, which does not advertise (%u)", others);
	CHECK(at_once == 0,
	      "RFC 4861 6.2.6: a solicited RA MUST be delayed by a random 0-MAX_RA_DELAY_TIME (0.5 s); %u went out at once",
	      at_once);
	rte_pktmbuf_free(ra);
	CHECK_EQ(pool_in_use(), base);
}

/* --- echo -------------------------------------------------------------------------- */

/* RFC 4443 4.2: an echo reply to the request that echo_req() made. */
static void
check_echo_reply(const struct rte_mbuf *m, uint16_t port, const char *dst, const char *what)
{
	const uint8_t *f = F(m);
	unsigned int i, ok = 0;

	CHECK(is_icmp6(m, DPR_ICMP6_ECHO_REPLY) && f[F_L4 + 1] == 0, "%s: type 129 code 0", what);
	CHECK(mac_at(f, &mac_host) && mac_at(f + 6, &mac_p[port]),
	      "%s: to the requester's MAC from p%u's", what, port);
	CHECK(same6(f + F_DST, dst), "%s: to %s", what, dst);
	CHECK(f[F_HOPS] == 64, "%s: hop limit 64 (got %u)", what, f[F_HOPS]);
	CHECK(cksum_ok(m), "%s: checksum right", what);
	CHECK(be16_at(f + F_PLEN) == 32 && m->pkt_len == F_L4 + 32u, "%s: length", what);
	for (i = 4; i < 32 && m->pkt_len >= F_L4 + 32u; i++)
		ok += f[F_L4 + i] == (i < 8 ? (uint8_t[]){ 0x12, 0x34, 0, 7 }[i - 4] : 0xa0 + i);
	CHECK(ok == 28, "%s: identifier, sequence and data returned (%u of 28)", what, ok);
}

static void
test_echo(void)
{
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();
	uint64_t replies = c6("echo_replies"), elsewhere;

	drop_sent();
	/* RFC 4443 2.2 (a): to our unicast address, from that address. */
	inject(echo_req(&mac_p[0], "2001:db8:1::2", "2001:db8:11::1"), DPR_EXC_LOCAL, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "echo to 2001:db8:11::1 answered (%u sent)", n);
	if (n == 1) {
		check_echo_reply(out[0], 0, "2001:db8:1::2", "echo to 2001:db8:11::1");
		CHECK(same6(F(out[0]) + F_SRC, "2001:db8:11::1"),
		      "RFC 4443 2.2 (a): reply from the address the request went to");
	}
	rte_pktmbuf_free_bulk(out, n);

	/* RFC 4443 2.2 (b), 4.2: to all nodes, from a unicast address of the port. */
	inject(echo_req(&mac_all_nodes, "2001:db8:1::2", "ff02::1"), DPR_EXC_LOCAL, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 4443 4.2: echo to ff02::1 answered (%u sent)", n);
	if (n == 1) {
		check_echo_reply(out[0], 0, "2001:db8:1::2", "echo to ff02::1");
		CHECK(addr_of_port(F(out[0]) + F_SRC, 0) && F(out[0])[F_SRC] != 0xff,
		      "RFC 4443 2.2 (b): reply from a unicast address of p0");
	}
	rte_pktmbuf_free_bulk(out, n);

	/* RFC 4443 2.2 (b): to the subnet-router anycast address, from a unicast one. */
	inject(echo_req(&mac_p[0], "2001:db8:1::2", "2001:db8:1::"), DPR_EXC_LOCAL, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "echo to the anycast 2001:db8:1:: answered (%u sent)", n);
	if (n == 1) {
		check_echo_reply(out[0], 0, "2001:db8:1::2", "echo to 2001:db8:1::");
		CHECK(addr_of_port(F(out[0]) + F_SRC, 0),
		      "RFC 4443 2.2 (b): reply from a unicast address of p0, not the anycast one");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(c6("echo_replies") - replies, 3);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);

	/* RFC 4007 6, RFC 4291 2.5.6: a link-local address is the router's
	 * on its own link only. p0's is answered there; p1's, asked for on
	 * p0 (its /128 is in the FIB all the same), is someone else's. */
	elsewhere = c6("link_local_elsewhere");
	inject(echo_req(&mac_p[0], "fe80::99", ll_p[0]), DPR_EXC_LOCAL, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "echo to p0's link-local %s on p0 answered (%u sent)", ll_p[0], n);
	if (n == 1)
		check_echo_reply(out[0], 0, "fe80::99", "echo to p0's link-local");
	rte_pktmbuf_free_bulk(out, n);
	inject(echo_req(&mac_p[0], "fe80::99", ll_p[1]), DPR_EXC_LOCAL, 0, 0);
	n = sent(0, out, RTE_DIM(out)) + sent(1, out, RTE_DIM(out));
	CHECK(n == 0, "echo to p1's link-local %s arriving on p0: not ours there (%u sent)",
	      ll_p[1], n);
	CHECK_EQ(c6("link_local_elsewhere") - elsewhere, 1);
	CHECK_EQ(c6("echo_replies") - replies, 4);
	CHECK_EQ(pool_in_use(), base);
}

/* --- ICMPv6 errors --------------------------------------------------------------------- */

/*
 * RFC 4443 2.2, 2.4, 3: an error of @p type / @p code to @p dst through
 * @p dmac, leaving p@p port, quoting the start of @p orig (a copy of the
 * offending frame).
 */
static void
check_error(const struct rte_mbuf *m, uint16_t port, const struct rte_ether_addr *dmac,
	    const char *dst, uint8_t type, uint8_t code, uint32_t param, const uint8_t *orig,
	    uint32_t orig_len, const char *what)
{
	const uint8_t *f = F(m);
	/* 2.4 (c): 1280 bytes less the IPv6 and ICMPv6 headers. */
	uint32_t quote = RTE_MIN(orig_len - 14, 1280u - 40 - 8);

	CHECK(is_icmp6(m, type) && f[F_L4 + 1] == code, "%s: type %u code %u (got %u %u)", what,
	      type, code, f[F_L4], f[F_L4 + 1]);
	CHECK(mac_at(f, dmac) && mac_at(f + 6, &mac_p[port]), "%s: MACs, leaving p%u", what, port);
	CHECK(same6(f + F_DST, dst), "%s: to the offending packet's source %s", what, dst);
	/* 2.2 (b): a unicast address of the node, picked as for its other packets;
	 * dpr's rule (docs/architecture.md): of the port the error leaves by. */
	CHECK(addr_of_port(f + F_SRC, port), "%s: from an address of p%u", what, port);
	CHECK(f[F_HOPS] == 64, "%s: hop limit 64", what);
	CHECK(cksum_ok(m), "%s: checksum right", what);
	/* 3.1, 3.3 unused zero; 3.2 MTU; 3.4 pointer. */
	CHECK(be32_at(f + F_L4 + 4) == param, "%s: word after the checksum %u (got %u)", what, param,
	      be32_at(f + F_L4 + 4));
	CHECK(be16_at(f + F_PLEN) == 8 + quote && m->pkt_len == F_L4 + 8 + quote,
	      "%s: quotes as much as fits in 1280 bytes, %u (payload %u)", what, quote, be16_at(f + F_PLEN));
	CHECK(m->pkt_len >= F_L4 + 8 + quote && memcmp(f + F_L4 + 8, orig + 14, quote) == 0,
	      "%s: the quote is the offending packet", what);
}

/* Inject a copy-kept packet: returns its bytes in @p copy (at most @p max). */
static uint32_t
inject_kept(struct rte_mbuf *m, enum dpr_exc cls, uint16_t in, uint8_t *copy, uint32_t max)
{
	uint32_t len = RTE_MIN(m->pkt_len, max);

	memcpy(copy, F(m), len);
	inject(m, cls, in, 0);
	return len;
}

static void
test_errors(void)
{
	static uint8_t orig[1600];
	const struct rte_ether_addr ll_host = {{ 0x02, 0xaa, 0, 0, 0x0a, 0xbc }};
	struct rte_mbuf *out[8], *m;
	unsigned int n, base = pool_in_use();
	uint64_t na = c6("not_allowed"), un;
	uint32_t len;

	drop_sent();
	/* In on p1 from a host behind p0: time exceeded leaves p0 (RFC 4443 3.3). */
	len = inject_kept(mk_udp(&mac_p[1], "2001:db8:100::10", "2001:db8:200::5", 1, 40),
			  DPR_EXC_TTL_EXPIRED, 1, orig, sizeof(orig));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 4443 3.3: time exceeded sent on p0 (%u)", n);
	if (n == 1)
		check_error(out[0], 0, &mac_n1, "2001:db8:100::10", DPR_ICMP6_TIME_EXCEEDED, 0, 0,
			    orig, len, "time exceeded");
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);

	/* RFC 4443 3.1 code 0: no route to destination. */
	len = inject_kept(mk_udp(&mac_p[0], "2001:db8:100::11", "2001:db8:dead::1", 64, 40),
			  DPR_EXC_NO_ROUTE, 0, orig, sizeof(orig));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 4443 3.1: no route sent (%u)", n);
	if (n == 1)
		check_error(out[0], 0, &mac_n1, "2001:db8:100::11", DPR_ICMP6_DEST_UNREACH, 0, 0,
			    orig, len, "no route");
	rte_pktmbuf_free_bulk(out, n);

	/* RFC 4443 3.1 code 2: a link-local source would leave its link
	 * (RFC 4007 9); the error goes back on that link, from our link-local. */
	m = mk_udp(&mac_p[0], "fe80::abc", "2001:db8:200::5", 64, 40);
	memcpy(F(m) + 6, &ll_host, 6);
	len = inject_kept(m, DPR_EXC_BEYOND_SCOPE, 0, orig, sizeof(orig));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 4443 3.1: beyond scope sent (%u)", n);
	if (n == 1) {
		check_error(out[0], 0, &ll_host, "fe80::abc", DPR_ICMP6_DEST_UNREACH, 2, 0, orig,
			    len, "beyond scope");
		CHECK(same6(F(out[0]) + F_SRC, ll_p[0]),
		      "beyond scope to a link-local source: from p0's link-local (RFC 4007 9)");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);

	/* RFC 4443 3.2: 1500 bytes for p1 (MTU 1400): packet too big with 1400,
	 * and 2.4 (c): the error is at most 1280 bytes of IPv6. */
	len = inject_kept(mk_udp(&mac_p[0], "2001:db8:100::12", "2001:db8:200::5", 64, 1460),
			  DPR_EXC_MTU_EXCEEDED, 0, orig, sizeof(orig));
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 4443 3.2: packet too big sent (%u)", n);
	if (n == 1) {
		check_error(out[0], 0, &mac_n1, "2001:db8:100::12", DPR_ICMP6_PACKET_TOO_BIG, 0,
			    mtu_p[1], orig, len, "packet too big");
		CHECK(40u + be16_at(F(out[0]) + F_PLEN) <= 1280,
		      "RFC 4443 2.4 (c): at most 1280 bytes of IPv6 (%u)",
		      40u + be16_at(F(out[0]) + F_PLEN));
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);

	/* RFC 4443 2.4 (e.1): never about an ICMPv6 error message. */
	{
		uint8_t err[48] = { DPR_ICMP6_DEST_UNREACH, 0 };

		m = mk6(&mac_p[0], &mac_host, "2001:db8:100::13", "2001:db8:200::5",
			IPPROTO_ICMPV6, 1, err, sizeof(err));
		cksum_fix(m);
		inject(m, DPR_EXC_TTL_EXPIRED, 0, 0);
	}
	/* (e.3): nor about a packet to a multicast address (in a unicast frame,
	 * so that only the IPv6 destination stands in the way). */
	inject(mk_udp(&mac_p[0], "2001:db8:100::14", "ff0e::1234", 1, 40),
	       DPR_EXC_TTL_EXPIRED, 0, 0);
	inject(mk_udp(&mac_p[0], "2001:db8:100::14", "ff0e::1234", 64, 40),
	       DPR_EXC_NO_ROUTE, 0, 0);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK_EQ(c6("not_allowed") - na, 3);

	/* (e.6): nor about a packet from a subnet-router anycast address
	 * (RFC 4291 2.6.1), which the router knows is no single node: its
	 * in port's, or another interface's of its VRF. Counted as not
	 * allowed, not as a source without a route back. */
	un = c6("unroutable");
	inject(mk_udp(&mac_p[0], "2001:db8:1::", "2001:db8:200::5", 1, 40), DPR_EXC_TTL_EXPIRED, 0, 0);
	inject(mk_udp(&mac_p[0], "2001:db8:2::", "2001:db8:200::5", 64, 40), DPR_EXC_NO_ROUTE, 0, 0);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK_EQ(c6("not_allowed") - na, 5);
	CHECK_EQ(c6("unroutable") - un, 0);
	CHECK_EQ(pool_in_use(), base);
}

/* RFC 4443 2.4 (f): errors to one source are rate-limited. */
static void
test_rate_limit(void)
{
	struct rte_mbuf *out[32];
	uint64_t limited = c6("rate_limited");
	unsigned int i, n, total = RL_BURST + 6, base = pool_in_use();

	drop_sent();
	for (i = 0; i < total; i++)
		inject(mk_udp(&mac_p[0], "2001:db8:100::20", "2001:db8:dead::2", 64, 16),
		       DPR_EXC_NO_ROUTE, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	rte_pktmbuf_free_bulk(out, n);
	/* A token may come back while the loop runs; no more. */
	CHECK(n >= RL_BURST && n <= RL_BURST + 1,
	      "RFC 4443 2.4 (f): a burst of %u errors to one source: %u sent, RL_BURST %u", total, n,
	      RL_BURST);
	CHECK(c6("rate_limited") - limited == total - n, "the rest counted rate_limited (%" PRIu64 ")",
	      c6("rate_limited") - limited);
	/* Another source still gets its error. */
	inject(mk_udp(&mac_p[0], "2001:db8:100::21", "2001:db8:dead::2", 64, 16),
	       DPR_EXC_NO_ROUTE, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "the limit is per source (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(pool_in_use(), base);
}

/* --- redirects (RFC 4861 8.2) ------------------------------------------------------------ */

/* The first packet of @p out[0..n) that is an ICMPv6 Redirect, or NULL. */
static struct rte_mbuf *
find_redirect(struct rte_mbuf **out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (is_icmp6(out[i], DPR_ICMP6_REDIRECT))
			return out[i];
	return NULL;
}

/*
 * Packets that leave through the port they came in on (a worker hands
 * them over as class redirect): each is forwarded, and its source gets a
 * Redirect where RFC 4861 8.2 has a router send one, as 4.5 lays it out:
 * from the port's link-local address (8.1: hosts drop others), hop limit
 * 255, target = the better first hop or the on-link destination itself,
 * the target's link-layer option when known, and the Redirected Header
 * with as much of the packet as fits in 1280 bytes (8.2).
 */
static void
test_redirects(void)
{
	struct dpr_config *cfg = (struct dpr_config *)(uintptr_t)R.cfg;
	static uint8_t orig[1600];
	struct rte_mbuf *out[8], *r, *m;
	uint64_t sent0 = c6("redirect_sent"), na = c6("redirect_not_allowed");
	unsigned int n, base = pool_in_use(), i;
	const uint8_t *f, *o;
	uint32_t len, plen, olen;
	bool tlla = false, fwd = false;

	drop_sent();
	/* A host on p0's subnet sends 2001:db8:1::2's packets to the router:
	 * the destination is on the link, the target is the destination. */
	len = inject_kept(mk_udp(&mac_p[0], "2001:db8:1::10", "2001:db8:1::2", 64, 1400),
			  DPR_EXC_REDIRECT, 0, orig, sizeof(orig));
	n = sent(0, out, RTE_DIM(out));
	r = find_redirect(out, n);
	CHECK(n == 2 && r != NULL, "a redirect and the packet on p0 (%u sent)", n);
	for (i = 0; i < n; i++)
		if (out[i] != r && !is_icmp6(out[i], DPR_ICMP6_REDIRECT))
			fwd = mac_at(F(out[i]), &mac_n1) && F(out[i])[F_HOPS] == 63 &&
			      memcmp(F(out[i]) + F_SRC, orig + F_SRC, 32) == 0;
	CHECK(fwd, "the packet itself is forwarded to 2001:db8:1::2's MAC, hop limit 63");
	if (r != NULL) {
		f = F(r);
		plen = be16_at(f + F_PLEN);
		CHECK(mac_at(f, &mac_host) && mac_at(f + 6, &mac_p[0]),
		      "to the source's MAC, from p0's");
		CHECK(same6(f + F_SRC, ll_p[0]), "8.1: from p0's link-local address");
		CHECK(same6(f + F_DST, "2001:db8:1::10"), "to the packet's source");
		CHECK_EQ(f[F_HOPS], 255);
		CHECK(cksum_ok(r), "ICMPv6 checksum (RFC 4443 2.3)");
		CHECK(f[F_L4 + 1] == 0 && be32_at(f + F_L4 + 4) == 0, "4.5: code 0, reserved 0");
		CHECK(same6(f + F_L4 + 8, "2001:db8:1::2") && same6(f + F_L4 + 24, "2001:db8:1::2"),
		      "4.5: target = destination, for a destination on the link");
		CHECK(40 + plen <= 1280, "8.2: at most 1280 bytes (%u)", 40 + plen);
		/* Options from F_L4 + 40: TLLA, then the Redirected Header. */
		for (o = f + F_L4 + 40; o + 8 <= f + F_L4 + plen && o[1] != 0; o += o[1] * 8) {
			if (o[0] == DPR_NDP_OPT_TLLA)
				tlla = o[1] == 1 && mac_at(o + 2, &mac_n1);
			if (o[0] != DPR_NDP_OPT_REDIRECTED)
				continue;
			olen = o[1] * 8u - 8;
			CHECK(o + 8 + olen == f + F_L4 + plen, "the Redirected Header ends the message");
			CHECK(olen >= 1280 - 40 - 40 - 8 - 8 - 7 && olen <= len - 14 + 7,
			      "4.6.3: as much of the packet as fits (%u of %u)", olen, len - 14);
			CHECK(memcmp(o + 8, orig + 14, RTE_MIN(olen, len - 14)) == 0,
			      "4.6.3: the packet as it came in (hop limit 64)");
		}
		CHECK(tlla, "4.5: the target's link-layer address option, its MAC");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(c6("redirect_sent") - sent0, 1);

	/* Through a global gateway (2001:db8:100::/48 via 2001:db8:1::2):
	 * its link-local address, the only target 8.2 allows, is unknown. */
	inject(mk_udp(&mac_p[0], "2001:db8:1::10", "2001:db8:100::5", 64, 40),
	       DPR_EXC_REDIRECT, 0, 0);
	/* From a source that is no neighbour: none either. */
	inject(mk_udp(&mac_p[0], "2001:db8:77::1", "2001:db8:1::2", 64, 40),
	       DPR_EXC_REDIRECT, 0, 0);
	/* A source route (a Routing header): never. */
	{
		uint8_t rh[8 + 16] = { IPPROTO_UDP, 2, 0, 0 };

		inject(mk6(&mac_p[0], &mac_host, "2001:db8:1::10", "2001:db8:1::2", IPPROTO_ROUTING,
			   64, rh, sizeof(rh)), DPR_EXC_REDIRECT, 0, 0);
	}
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 3 && find_redirect(out, n) == NULL, "three forwarded, no redirect (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(c6("redirect_not_allowed") - na, 3);

	/* "redirects": false on the port: forwarded, nothing else. */
	cfg->ports[0].redirects = false;
	inject(mk_udp(&mac_p[0], "2001:db8:1::10", "2001:db8:1::2", 64, 40), DPR_EXC_REDIRECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && find_redirect(out, n) == NULL, "redirects off: only the packet (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	cfg->ports[0].redirects = true;
	CHECK_EQ(c6("redirect_sent") - sent0, 1);

	/* Rate-limited with ICMPv6 errors, per source; every packet forwarded. */
	for (i = 0; i < RL_BURST + 4; i++) {
		m = mk_udp(&mac_p[0], "2001:db8:1::11", "2001:db8:1::2", 64, 40);
		inject(m, DPR_EXC_REDIRECT, 0, 0);
	}
	for (i = 0, len = 0; (n = sent(0, out, RTE_DIM(out))) > 0; rte_pktmbuf_free_bulk(out, n))
		for (i = 0; i < n; i++)
			len += is_icmp6(out[i], DPR_ICMP6_REDIRECT);
	CHECK(len >= RL_BURST && len <= RL_BURST + 1, "%u redirects for %u packets", len,
	      RL_BURST + 4);
	CHECK_EQ(pool_in_use(), base);
}

/* --- hop-by-hop options ----------------------------------------------------------------- */

/* A UDP packet to 2001:db8:200::5 with the 8-byte Hop-by-Hop header @p hbh. */
static struct rte_mbuf *
mk_hbh(const char *src, const uint8_t hbh[8])
{
	uint8_t p[8 + 24];
	unsigned int i;

	memcpy(p, hbh, 8);
	for (i = 8; i < sizeof(p); i++)
		p[i] = (uint8_t)i;
	return mk6(&mac_p[0], &mac_host, src, "2001:db8:200::5", IPPROTO_HOPOPTS, 64, p,
		   sizeof(p));
}

/*
 * RFC 8200 4.2, 4.3: a router reads the Hop-by-Hop header; padding only:
 * forwarded; an unrecognized option whose type's high-order bits are 10:
 * discarded with a parameter problem code 2 pointing at it; 01: discarded
 * silently.
 */
static void
test_hop_by_hop(void)
{
	static const uint8_t padn[8] = { IPPROTO_UDP, 0, 0x01, 0x04, 0, 0, 0, 0 };
	/* PadN of 2 bytes, then option 0x8a (action 10) at offset 4 of the header. */
	static const uint8_t act10[8] = { IPPROTO_UDP, 0, 0x01, 0x00, 0x8a, 0x02, 0xaa, 0xbb };
	static const uint8_t act01[8] = { IPPROTO_UDP, 0, 0x4a, 0x04, 0, 0, 0, 0 };
	static uint8_t orig[256];
	uint64_t slow = c6("slow_forwarded"), dropped = c6("hop_by_hop_dropped");
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();
	uint32_t len;
	const uint8_t *f;

	drop_sent();
	inject(mk_hbh("2001:db8:100::30", padn), DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 8200 4.2: PadN only: forwarded on p1 (%u sent)", n);
	if (n == 1) {
		f = F(out[0]);
		CHECK(mac_at(f, &mac_n2) && mac_at(f + 6, &mac_p[1]) && f[F_HOPS] == 63,
		      "forwarded to 2001:db8:2::2's MAC from p1's, hop limit 63 (got %u)", f[F_HOPS]);
		CHECK(f[F_NH] == IPPROTO_HOPOPTS && memcmp(f + F_L4, padn, 8) == 0,
		      "RFC 8200 4: the Hop-by-Hop header is left as it was");
	}
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(c6("slow_forwarded") - slow, 1);

	len = inject_kept(mk_hbh("2001:db8:100::31", act10), DPR_EXC_IP_OPTIONS, 0, orig,
			  sizeof(orig));
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1, "RFC 8200 4.2: unknown option, action 10: parameter problem (%u sent)", n);
	if (n == 1)
		check_error(out[0], 0, &mac_n1, "2001:db8:100::31", DPR_ICMP6_PARAM_PROBLEM, 2,
			    40 + 4, orig, len, "RFC 4443 3.4: code 2, pointer 44 at the option");
	rte_pktmbuf_free_bulk(out, n);

	inject(mk_hbh("2001:db8:100::32", act01), DPR_EXC_IP_OPTIONS, 0, 0);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
	CHECK(c6("hop_by_hop_dropped") - dropped == 1,
	      "RFC 8200 4.2: unknown option, action 01: dropped silently and counted");

	/* From a link-local source: forwarded back out of the link it came
	 * from only (RFC 4007 9, RFC 4291 2.5.6). The worker sends such a
	 * packet here when its route leads back out of its input port; the
	 * route may have changed since (as for one held for a neighbour). */
	inject(mk_hbh("fe80::77", padn), DPR_EXC_IP_OPTIONS, 1, 0);
	n = sent(1, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[F_NH] == IPPROTO_HOPOPTS,
	      "link-local source, in on p1, routed out of p1: forwarded (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	inject(mk_hbh("fe80::77", padn), DPR_EXC_IP_OPTIONS, 0, 0);
	CHECK(sent(1, out, RTE_DIM(out)) == 0,
	      "RFC 4291 2.5.6: a link-local source is never forwarded to another link");
	n = sent(0, out, RTE_DIM(out));
	f = n == 1 ? F(out[0]) : NULL;
	CHECK(f != NULL && f[F_L4] == DPR_ICMP6_DEST_UNREACH &&
	      f[F_L4 + 1] == DPR_ICMP6_UNREACH_BEYOND_SCOPE && same6(f + F_DST, "fe80::77") &&
	      mac_at(f, &mac_host),
	      "RFC 4007 9, RFC 4443 3.1: destination unreachable, beyond scope of source, "
	      "back on p0 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	inject(mk_udp(&mac_p[0], "fe80::78", "2001:db8:200::6", 64, 20), DPR_EXC_UNRESOLVED, 0,
	       dpr_fib6_lookup(R.fib6, A("2001:db8:200::6")));
	CHECK(sent(1, out, RTE_DIM(out)) == 0,
	      "RFC 4291 2.5.6: nor one held for a neighbour of another link");
	drop_sent();
	CHECK_EQ(pool_in_use(), base);
}

/*
 * RFC 4443 2.2 (a): an error about a packet sent to one of the router's
 * unicast addresses comes from that same address, whatever interface it
 * leaves by: here a packet to p1's 2001:db8:2::1 that came in on p0 with an
 * option the router must refuse (RFC 8200 4.2, action 10), answered on p0.
 */
static void
test_error_source_own_address(void)
{
	static const uint8_t act10[8] = { IPPROTO_UDP, 0, 0x01, 0x00, 0x8a, 0x02, 0xaa, 0xbb };
	struct rte_mbuf *out[8], *m;
	unsigned int n;
	const uint8_t *f;

	drop_sent();
	m = mk_hbh("2001:db8:100::34", act10);
	memcpy(F(m) + F_DST, A("2001:db8:2::1"), 16);
	inject(m, DPR_EXC_IP_OPTIONS, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	f = n == 1 ? F(out[0]) : NULL;
	CHECK(f != NULL && f[F_L4] == DPR_ICMP6_PARAM_PROBLEM && f[F_L4 + 1] == 2,
	      "parameter problem code 2 on p0 (%u sent)", n);
	CHECK(f != NULL && memcmp(f + F_SRC, A("2001:db8:2::1"), 16) == 0,
	      "RFC 4443 2.2 (a): the error about a packet to 2001:db8:2::1 comes from "
	      "2001:db8:2::1, not from p0's address");
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent(1, out, RTE_DIM(out)), 0);
}

/*
 * A packet with Hop-by-Hop options to a blackhole route is dropped on the
 * slow path as a worker drops one without, with no error (RFC 4443 leaves a
 * discard by policy silent), and counted: every packet is accounted for
 * (DESIGN.md, Counting).
 */
static void
test_blackhole_slow(void)
{
	static const uint8_t padn[8] = { IPPROTO_UDP, 0, 0x01, 0x04, 0, 0, 0, 0 };
	struct dpr_src_op op = { .nh = DPR_NH_BLACKHOLE, .proto = 186 };
	uint64_t before = c6("blackholed");
	struct rte_mbuf *out[8], *m;
	unsigned int p, n = 0, base = pool_in_use();

	op.prefix.addr.af = DPR_AF_IP6;
	memcpy(op.prefix.addr.ip6, A("2001:db8:bad::"), 16);
	op.prefix.len = 48;
	drop_sent();
	CHECK(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1) == 1 && op.result == 0,
	      "blackhole 2001:db8:bad::/48 installed");
	m = mk_hbh("2001:db8:100::40", padn);
	memcpy(F(m) + F_DST, A("2001:db8:bad::1"), 16);
	inject(m, DPR_EXC_IP_OPTIONS, 0, 0);
	for (p = 0; p < N_PORTS; p++)
		n += sent(p, out, RTE_DIM(out));
	CHECK_EQ(n, 0);
	CHECK(c6("blackholed") - before == 1,
	      "a packet with Hop-by-Hop options to a blackhole route: dropped and counted "
	      "`ipv6.blackholed`");
	CHECK_EQ(pool_in_use(), base);
	op.del = 1;
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_FPM, &op, 1), 1);
}

/* --- transparent ports -------------------------------------------------------------------- */

/*
 * docs/configuration.md, architecture.md: on a transparent port the kernel
 * answers for the router: a neighbour solicitation for the port's address
 * and an echo request go to the TAP unanswered by dpr; without a TAP they
 * are freed and counted (local_unhandled: "for the router, for the kernel,
 * but the port has no TAP").
 */
static void
test_transparent(void)
{
	const struct rte_ether_addr h = {{ 0x02, 0xaa, 0, 0, 0x03, 0x50 }};
	struct rte_mbuf *out[8];
	uint64_t to_kernel = R.tap_stats.to_kernel, unhandled;
	unsigned int n, base = pool_in_use();

	drop_sent();
	ns_in(2, &h, "2001:db8:3::50", "2001:db8:3::1", true, GOOD);
	inject(echo_req(&mac_p[2], "2001:db8:3::50", "2001:db8:3::1"), DPR_EXC_LOCAL, 2, 0);
	CHECK_EQ(sent(2, out, RTE_DIM(out)), 0);
	n = rte_ring_sc_dequeue_burst(tapr, (void **)out, RTE_DIM(out), NULL);
	CHECK(n == 2 && is_icmp6(out[0], DPR_ICMP6_NEIGH_SOLICIT) &&
	      is_icmp6(out[1], DPR_ICMP6_ECHO_REQUEST),
	      "transparent: the NS and the echo request go to the TAP as they came (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(R.tap_stats.to_kernel - to_kernel, 2);

	/* Another node's duplicate address detection for the port's address
	 * (RFC 4862 5.4.3): dpr answers nothing here, the kernel defends it,
	 * so the probe must reach it (it was freed: nobody defended). */
	to_kernel = R.tap_stats.to_kernel;
	ns_in(2, &h, "::", "2001:db8:3::1", false, GOOD);
	CHECK_EQ(sent(2, out, RTE_DIM(out)), 0);
	n = rte_ring_sc_dequeue_burst(tapr, (void **)out, RTE_DIM(out), NULL);
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_SOLICIT),
	      "transparent: a DAD probe for 2001:db8:3::1 goes to the TAP for the kernel to defend (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(R.tap_stats.to_kernel - to_kernel, 1);

	/* Everything else NDP for the router reaches the kernel as well:
	 * an NA for its address (its own DAD hears of the duplicate, RFC
	 * 4862 5.4.4) and another router's advertisement. */
	to_kernel = R.tap_stats.to_kernel;
	na_in(2, &h, "2001:db8:3::50", "ff02::1", "2001:db8:3::1", &h, false, true, GOOD);
	{
		static const struct dpr_ra_conf ra = { .cur_hop_limit = 64, .router_lifetime = 600 };
		struct rte_mbuf *m = dpr_ndp_ra_build(pool, &h, A("fe80::350"), A("ff02::1"), NULL,
						      &ra);

		if (m == NULL)
			abort();
		inject(m, DPR_EXC_LOCAL, 2, 0);
	}
	CHECK_EQ(sent(2, out, RTE_DIM(out)), 0);
	n = rte_ring_sc_dequeue_burst(tapr, (void **)out, RTE_DIM(out), NULL);
	CHECK(n == 2 && is_icmp6(out[0], DPR_ICMP6_NEIGH_ADVERT) &&
	      is_icmp6(out[1], DPR_ICMP6_ROUTER_ADVERT),
	      "transparent: an NA for 2001:db8:3::1 and a router's RA go to the TAP (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(R.tap_stats.to_kernel - to_kernel, 2);

	R.ports[2].has_tap = false;
	unhandled = c6("local_unhandled") + counter(NULL, "local_unhandled");
	ns_in(2, &h, "2001:db8:3::50", "2001:db8:3::1", true, GOOD);
	CHECK_EQ(sent(2, out, RTE_DIM(out)), 0);
	CHECK_EQ(rte_ring_count(tapr), 0);
	CHECK_EQ(pool_in_use(), base);
	CHECK(c6("local_unhandled") + counter(NULL, "local_unhandled") - unhandled == 1,
	      "transparent without a TAP: the NS for 2001:db8:3::1 is counted local_unhandled");
	unhandled = c6("local_unhandled") + counter(NULL, "local_unhandled");
	inject(echo_req(&mac_p[2], "2001:db8:3::50", "2001:db8:3::1"), DPR_EXC_LOCAL, 2, 0);
	CHECK_EQ(sent(2, out, RTE_DIM(out)), 0);
	CHECK(c6("local_unhandled") + counter(NULL, "local_unhandled") - unhandled == 1,
	      "transparent without a TAP: the echo request is counted local_unhandled");
	R.ports[2].has_tap = true;
	CHECK_EQ(pool_in_use(), base);
}

/* --- the rig -------------------------------------------------------------------------------- */


static int
port_on_ring(unsigned int p)
{
	char name[32];

	snprintf(name, sizeof(name), "test_exc6_tx%u", p);
	return test_port_on_ring(&R, p, name, pool, &mac_p[p], &txr[p]);
}

/* Each port's link-local address, as main() adds it. */
static int
add_link_local(unsigned int p)
{
	return dpr_route_link_local(&R.rib, &R.addrs, p, A(ll_p[p]));
}

/*
 * The subnet-router anycast address of 2001:db8:1::/64 (RFC 4291 2.6.1):
 * every router on the link has it, so the answer does not override (RFC
 * 4861 7.2.4) and comes after a random delay of up to
 * MAX_ANYCAST_DELAY_TIME, 1 s (7.2.7 SHOULD): never at once. dpr answers
 * from a unicast address of the port (send_na()): RFC 4291 allows either,
 * RFC 3513 2.6 did not.
 */
static void
test_anycast_na(void)
{
	const struct rte_ether_addr h50 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x50 }};
	struct rte_mbuf *out[8], *na = NULL;
	unsigned int n, i, ms, n_na = 0, base = pool_in_use();
	uint64_t delayed = c6("anycast_na_delayed");

	drop_sent();
	ns_in(0, &h50, "2001:db8:1::50", "2001:db8:1::", true, GOOD);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	CHECK_EQ(c6("anycast_na_delayed") - delayed, 1);
	/* Router advertisements may leave p0 meanwhile: only NAs count. */
	for (ms = 0; ms <= 1200 && na == NULL; ms += 20) {
		rte_delay_ms(20);
		dpr_exc_timers(R.exc);
		n = sent(0, out, RTE_DIM(out));
		for (i = 0; i < n; i++) {
			if (na == NULL && is_icmp6(out[i], DPR_ICMP6_NEIGH_ADVERT)) {
				na = out[i];
				n_na++;
			} else {
				n_na += is_icmp6(out[i], DPR_ICMP6_NEIGH_ADVERT);
				rte_pktmbuf_free(out[i]);
			}
		}
	}
	CHECK(na != NULL && n_na == 1,
	      "RFC 4861 7.2.7: NS for the anycast address answered within 1 s (%u NAs)", n_na);
	if (na != NULL) {
		check_na(na, 0, "2001:db8:1::50", &h50, "2001:db8:1::", true, false,
			 "NA for the anycast 2001:db8:1::");
		CHECK(!same6(F(na) + F_SRC, "2001:db8:1::"),
		      "the anycast NA is from a unicast address, not 2001:db8:1::");
	}
	rte_pktmbuf_free(na);
	CHECK_EQ(pool_in_use(), base);
}

static unsigned int
probes6_sent(void)
{
	return probes_for("2001:db8:1::70", NULL);
}

/*
 * A learned neighbour is probed with a unicast NS after 30 s (RFC 4861
 * 7.3.3); Linux answers a unicast NS with a solicited NA without the
 * target link-layer option (7.2.4 allows it): that confirms the entry with
 * its MAC (7.2.5), it is not forgotten. Unanswered probes still forget it.
 */
static void
test_probe_answer_without_tlla(void)
{
	const struct rte_ether_addr h = {{ 0x02, 0, 0, 0, 0x01, 0x70 }};
	unsigned int i, hit;

	drop_sent();
	ns_in(0, &h, "2001:db8:1::70", "2001:db8:1::1", true, GOOD);
	CHECK(route_word("2001:db8:1::70").kind == DPR_NH_KIND_FORWARD, "2001:db8:1::70 learned");
	drop_sent();
	clock_skew_ns += 30100ull * 1000000u;
	dpr_exc_timers(R.exc);
	CHECK_EQ(probes6_sent(), 1);
	na_in(0, &h, "2001:db8:1::70", "2001:db8:1::1", "2001:db8:1::70", NULL, true, false, GOOD);
	for (i = 0; i < 4; i++) {
		clock_skew_ns += 1100ull * 1000000u;
		dpr_exc_timers(R.exc);
	}
	hit = probes6_sent();
	CHECK(hit == 0 && route_word("2001:db8:1::70").kind == DPR_NH_KIND_FORWARD,
	      "the answer without TLLA keeps it (%u probes more)", hit);
	neigh_ok("a probe answered without TLLA");
	/* Silent now: probed three times, then forgotten. */
	clock_skew_ns += 30000ull * 1000000u;
	for (i = 0; i < 4; i++) {
		dpr_exc_timers(R.exc);
		clock_skew_ns += 1100ull * 1000000u;
	}
	CHECK(route_word("2001:db8:1::70").kind != DPR_NH_KIND_FORWARD, "unanswered: forgotten");
	neigh_ok("aged out");
	drop_sent();
}

/*
 * The router's own packets meet an output ACL that rejects them: dropped,
 * never answered (there is no one to tell but the router), whatever a fresh
 * mbuf's hash.usr holds from its last user (an RSS hash, another port's
 * exception metadata, a number past the port table), which an answer would
 * have read as the input port. Here: the echo reply to a ping of
 * 2001:db8:11::1 from 2001:db8:1::2, rejected on p0 (not an NA: NDP is
 * excepted from ACLs as ARP is, docs/security.md).
 */
static void
test_out_acl_own(void)
{
	static const uint32_t junk[] = { DPR_EXC_META(0, 1), 2, 0x4000e, 0xffff };
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct rte_mbuf *all[POOL_SIZE], *out[8];
	struct dpr_acl_list l;
	char err[256] = "";
	json_error_t je;
	json_t *j = json_loads("{\"name\":\"out\",\"default\":\"permit\",\"rules\":["
			       "{\"action\":\"reject\",\"proto\":\"icmpv6\",\"icmp_type\":129}]}",
			       0, &je);
	unsigned int i, n, p, total;
	uint64_t before;

	CHECK(db != NULL && j != NULL && dpr_acl_list_parse(j, "t", NULL, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "out", 0, DPR_ACL_OUT, err, sizeof(err)) == 0, "acl: %s", err);
	json_decref(j);
	R.acl = db;
	drop_sent();
	for (i = 0; i < RTE_DIM(junk); i++) {
		/* Every free mbuf as a previous user left it. */
		n = 0;
		while (n < RTE_DIM(all) && (all[n] = rte_pktmbuf_alloc(pool)) != NULL)
			all[n++]->hash.usr = junk[i];
		rte_pktmbuf_free_bulk(all, n);
		before = c6("admin_prohibited");
		inject(echo_req(&mac_p[0], "2001:db8:1::2", "2001:db8:11::1"), DPR_EXC_LOCAL, 0, 0);
		for (p = 0, total = 0; p < N_PORTS; p++) {
			n = sent(p, out, RTE_DIM(out));
			total += n;
			rte_pktmbuf_free_bulk(out, n);
		}
		CHECK(total == 0 && c6("admin_prohibited") == before,
		      "hash.usr %#x: the rejected reply is dropped, unanswered (%u sent, %" PRIu64
		      " admin prohibited)", junk[i], total, c6("admin_prohibited") - before);
	}
	R.acl = NULL;
	dpr_acl_db_free(db);
	/* Without the ACL the same request is answered on p0. */
	inject(echo_req(&mac_p[0], "2001:db8:1::2", "2001:db8:11::1"), DPR_EXC_LOCAL, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_ECHO_REPLY), "answered without the ACL (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	drop_sent();
}

/*
 * An input ACL classifies before the screen: a rejected packet the screen
 * would have discarded silently (not version 6, a payload past the frame,
 * a multicast source, a loopback destination) is discarded silently here
 * too; a well-formed one is answered with administratively prohibited.
 */
static void
test_acl_reject_invalid(void)
{
	struct rte_mbuf *out[8], *m;
	uint64_t na = c6("not_allowed"), ap = c6("admin_prohibited");
	unsigned int n, p, total = 0;

	drop_sent();
	m = mk_udp(&mac_p[0], "2001:db8:100::21", "2001:db8:200::5", 64, 40);
	F(m)[14] = 0x40; /* version 4 */
	inject(m, (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	m = mk_udp(&mac_p[0], "2001:db8:100::21", "2001:db8:200::5", 64, 40);
	F(m)[F_PLEN] = 0x05; /* 1320 bytes of payload in a 40-byte one */
	inject(m, (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	inject(mk_udp(&mac_p[0], "ff0e::21", "2001:db8:200::5", 64, 40),
	       (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	inject(mk_udp(&mac_p[0], "2001:db8:100::21", "::1", 64, 40),
	       (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	for (p = 0; p < N_PORTS; p++) {
		n = sent(p, out, RTE_DIM(out));
		total += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK(total == 0, "rejected packets the screen would drop: none answered (%u sent)", total);
	CHECK_EQ(c6("not_allowed") - na, 4);
	CHECK_EQ(c6("admin_prohibited"), ap);

	inject(mk_udp(&mac_p[0], "2001:db8:100::21", "2001:db8:200::5", 64, 40),
	       (enum dpr_exc)DPR_ACL_EXC_REJECT, 0, 0);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_DEST_UNREACH) &&
	      F(out[0])[F_L4 + 1] == DPR_ICMP6_UNREACH_ADMIN && same6(F(out[0]) + F_DST, "2001:db8:100::21"),
	      "a valid rejected packet: administratively prohibited on p0 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	drop_sent();
}

/* Move the clock @p ms on in steps of at most 1.1 s, running the timers:
 * the probes sent for @p who meanwhile. */
static unsigned int
run_for(uint64_t ms, const char *who, const struct rte_ether_addr *mac)
{
	unsigned int hit = 0;

	while (ms > 0) {
		uint64_t step = RTE_MIN(ms, (uint64_t)1100);

		clock_skew_ns += step * 1000000u;
		ms -= step;
		dpr_exc_timers(R.exc);
		hit += probes_for(who, mac);
	}
	return hit;
}

/*
 * RFC 4861 7.2.5: a solicited advertisement (S=1) makes an entry REACHABLE;
 * any other message that carries the cached link-layer address leaves its
 * state as it is, and 7.2.3: a solicitation with another address makes it
 * STALE. Else a spoofed unsolicited advertisement, or a solicitation, with
 * a dead neighbour's MAC would keep it from being probed and forgotten.
 */
static void
test_only_answers_confirm(void)
{
	const struct rte_ether_addr h = {{ 0x02, 0, 0, 0, 0x01, 0x71 }};
	const struct rte_ether_addr h2 = {{ 0x02, 0, 0, 0, 0x01, 0x72 }};
	union dpr_nh_word w;
	unsigned int hit;

	/* Learned from its NS, STALE (7.2.3): probed at once. An unsolicited
	 * NA with its MAC arrives: the probes go on, and unanswered, it is
	 * forgotten. */
	drop_sent();
	ns_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", true, GOOD);
	CHECK(route_word("2001:db8:1::71").kind == DPR_NH_KIND_FORWARD, "2001:db8:1::71 learned");
	drop_sent();
	hit = run_for(500, "2001:db8:1::71", &h);
	CHECK(hit == 1, "RFC 4861 7.2.3: learned from its NS, STALE: probed at once (%u)", hit);
	na_in(0, &h, "2001:db8:1::71", "ff02::1", "2001:db8:1::71", &h, false, false, GOOD);
	hit = run_for(5500, "2001:db8:1::71", &h);
	CHECK(hit == 2 && route_word("2001:db8:1::71").kind != DPR_NH_KIND_FORWARD,
	      "an unsolicited NA confirms nothing: probed on (%u more), then forgotten", hit);
	neigh_ok("unsolicited NA while probing");

	/* Likewise a solicitation from it with the same MAC. */
	ns_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", true, GOOD);
	drop_sent();
	hit = run_for(500, "2001:db8:1::71", &h);
	CHECK_EQ(hit, 1);
	ns_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", true, GOOD);
	hit = run_for(5500, "2001:db8:1::71", &h);
	CHECK(hit == 2 && route_word("2001:db8:1::71").kind != DPR_NH_KIND_FORWARD,
	      "an NS with the same MAC confirms nothing: probed on (%u more), then forgotten", hit);

	/* A solicited NA while no probe is out: the entry ages from when it
	 * was confirmed all the same. */
	ns_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", true, GOOD);
	answer_stale_probe(0, &h, "2001:db8:1::71", "2001:db8:1::1");
	hit = run_for(20000, "2001:db8:1::71", &h);
	na_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", "2001:db8:1::71", &h, true, true, GOOD);
	na_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", "2001:db8:1::71", NULL, true, false, GOOD);
	hit += run_for(10100, "2001:db8:1::71", &h);
	CHECK(hit == 1, "a solicited NA nobody asked for: probed 30 s after the last answer (%u)", hit);
	/* The answer to that probe confirms it: no probe for 30 s more. */
	na_in(0, &h, "2001:db8:1::71", "2001:db8:1::1", "2001:db8:1::71", &h, true, true, GOOD);
	hit = run_for(29000, "2001:db8:1::71", &h);
	CHECK(hit == 0 && route_word("2001:db8:1::71").kind == DPR_NH_KIND_FORWARD,
	      "a solicited NA answering the probe confirms it (%u probes)", hit);

	/* An NS with another MAC (past the 1 s lock) replaces it, STALE:
	 * probed at the new MAC at once. */
	ns_in(0, &h2, "2001:db8:1::71", "2001:db8:1::1", true, GOOD);
	w = route_word("2001:db8:1::71");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h2), "the MAC is replaced");
	drop_sent();
	hit = run_for(1000, "2001:db8:1::71", &h2);
	CHECK(hit == 1, "an NS's new MAC is STALE: probed there at once (%u)", hit);
	na_in(0, &h2, "2001:db8:1::71", "2001:db8:1::1", "2001:db8:1::71", &h2, true, true, GOOD);
	hit = run_for(5500, "2001:db8:1::71", NULL);
	CHECK(hit == 0 && route_word("2001:db8:1::71").kind == DPR_NH_KIND_FORWARD,
	      "answered: kept (%u probes)", hit);
	neigh_ok("only answers confirm");
	drop_sent();
}

/*
 * RFC 4861 7.2.3: a solicitation whose target is not an address of the
 * receiving interface MUST be silently discarded: its SLLA neither
 * replaces a known neighbour's MAC (past the lock time) nor answers a
 * resolution under way; the neighbour's own answer does.
 */
static void
test_ns_for_others(void)
{
	const struct rte_ether_addr h = {{ 0x02, 0, 0, 0, 0x01, 0x73 }};
	const struct rte_ether_addr h2 = {{ 0x02, 0, 0, 0, 0x01, 0x83 }};
	const struct rte_ether_addr h74 = {{ 0x02, 0, 0, 0, 0x01, 0x74 }};
	struct dpr_ip ip73 = ip6("2001:db8:1::73"), ip74 = ip6("2001:db8:1::74");
	struct rte_mbuf *out[8];
	unsigned int n, base = pool_in_use();
	union dpr_nh_word w;

	drop_sent();
	ns_in(0, &h, "2001:db8:1::73", "2001:db8:1::1", true, GOOD);
	answer_stale_probe(0, &h, "2001:db8:1::73", "2001:db8:1::1");
	run_for(1100, "2001:db8:1::73", NULL); /* past the lock */
	ns_in(0, &h2, "2001:db8:1::73", "2001:db8:1::77", true, GOOD);
	w = route_word("2001:db8:1::73");
	CHECK(w.kind == DPR_NH_KIND_FORWARD && rte_is_same_ether_addr(&w.mac, &h),
	      "RFC 4861 7.2.3: an NS for another's address keeps the known MAC (now %02x)",
	      w.mac.addr_bytes[5]);
	neigh_ok("an NS for another's address");

	/* A packet for 2001:db8:1::74 waits for its resolution. */
	inject(mk_udp(&mac_p[1], "2001:db8:200::40", "2001:db8:1::74", 64, 60),
	       DPR_EXC_UNRESOLVED, 1, dpr_fib6_lookup(R.fib6, A("2001:db8:1::74")));
	drop_sent();
	ns_in(0, &h74, "2001:db8:1::74", "2001:db8:1::77", true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 0 && route_word("2001:db8:1::74").kind != DPR_NH_KIND_FORWARD,
	      "RFC 4861 7.2.3: an NS for another's address does not resolve 2001:db8:1::74 (%u sent)",
	      n);
	rte_pktmbuf_free_bulk(out, n);
	na_in(0, &h74, "2001:db8:1::74", "2001:db8:1::1", "2001:db8:1::74", &h74, true, true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[F_NH] == IPPROTO_UDP && mac_at(F(out[0]), &h74),
	      "its NA resolves it: the held packet leaves p0 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip73, -1), 0);
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip74, -1), 0);
	neigh_ok("an NS for another's address, cleaned up");
	drop_sent();
	CHECK_EQ(pool_in_use(), base);
}

/*
 * RFC 4861 7.2.5: an advertisement for an entry being resolved (INCOMPLETE)
 * records its address, and the entry is REACHABLE only when the Solicited
 * flag is set; "otherwise, it is set to STALE": probed at once (dpr has no
 * DELAY state), not trusted for 30 s on the word of an unsolicited one.
 */
static void
test_unsolicited_na_resolves_stale(void)
{
	const struct rte_ether_addr h75 = {{ 0x02, 0, 0, 0, 0x01, 0x75 }};
	struct dpr_ip ip75 = ip6("2001:db8:1::75");
	struct rte_mbuf *out[8];
	unsigned int n, hit, base = pool_in_use();

	drop_sent();
	inject(mk_udp(&mac_p[1], "2001:db8:200::40", "2001:db8:1::75", 64, 60),
	       DPR_EXC_UNRESOLVED, 1, dpr_fib6_lookup(R.fib6, A("2001:db8:1::75")));
	drop_sent();
	na_in(0, &h75, "2001:db8:1::75", "ff02::1", "2001:db8:1::75", &h75, false, true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[F_NH] == IPPROTO_UDP && mac_at(F(out[0]), &h75),
	      "RFC 4861 7.2.5: the unsolicited NA resolves 2001:db8:1::75 (%u sent)", n);
	rte_pktmbuf_free_bulk(out, n);
	hit = run_for(500, "2001:db8:1::75", &h75);
	CHECK(hit == 1, "RFC 4861 7.2.5: resolved by an unsolicited NA, it is STALE: probed at once (%u)",
	      hit);
	CHECK_EQ(dpr_neigh_del(R.neigh, &ip75, -1), 0);
	neigh_ok("an unsolicited NA for an entry being resolved");
	drop_sent();
	CHECK_EQ(pool_in_use(), base);
}

/*
 * dpr_neigh_set_ordered_release() (a router with workers): an answer kept
 * from workers until the rings run empty may meet a timer tick first. The
 * neighbour it resolves must still age once published: probed 30 s on
 * (RFC 4861 7.3.3), forgotten if silent, never kept for ever at a MAC
 * nobody checks.
 */
static void
test_ordered_answer_ages(void)
{
	const struct rte_ether_addr h76 = {{ 0x02, 0, 0, 0, 0x01, 0x76 }};
	struct rte_mbuf *out[8];
	unsigned int n, hit, base = pool_in_use();

	drop_sent();
	dpr_neigh_set_ordered_release(R.neigh, true);
	dpr_exc_timers(R.exc);            /* the next tick 100 ms on */
	inject(mk_udp(&mac_p[1], "2001:db8:200::40", "2001:db8:1::76", 64, 60),
	       DPR_EXC_UNRESOLVED, 1, dpr_fib6_lookup(R.fib6, A("2001:db8:1::76")));
	drop_sent();
	clock_skew_ns += 100ull * 1000000u;
	na_in(0, &h76, "2001:db8:1::76", "2001:db8:1::1", "2001:db8:1::76", &h76, true, true, GOOD);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && F(out[0])[F_NH] == IPPROTO_UDP, "the held packet leaves by the answer (%u)", n);
	rte_pktmbuf_free_bulk(out, n);
	/* A tick while the answer is kept back (rings that did not run
	 * empty), then the publication. */
	dpr_exc_timers(R.exc);
	dpr_neigh_publish(R.neigh);
	CHECK(route_word("2001:db8:1::76").kind == DPR_NH_KIND_FORWARD, "2001:db8:1::76 published");
	neigh_ok("an answer published after a tick");
	hit = run_for(30500, "2001:db8:1::76", &h76);
	CHECK(hit == 1, "RFC 4861 7.3.3: probed 30 s after its answer (%u probes)", hit);
	hit = run_for(3500, "2001:db8:1::76", &h76);
	CHECK(route_word("2001:db8:1::76").kind != DPR_NH_KIND_FORWARD,
	      "silent: forgotten after its probes (%u more)", hit);
	dpr_neigh_set_ordered_release(R.neigh, false);
	neigh_ok("an answer published after a tick, aged out");
	drop_sent();
	CHECK_EQ(pool_in_use(), base);
}

/*
 * The announcement of an address (addr.add, start: a DAD probe and an
 * unsolicited NA, RFC 4862 5.4.2, RFC 4861 7.2.6) with no mbuf to build
 * them: each one that cannot go is counted no_mbuf, as every other packet
 * the router fails to make.
 */
static void
test_announce_no_mbuf(void)
{
	struct rte_mbuf *all[POOL_SIZE];
	struct dpr_ip a = ip6("2001:db8:1::1");
	uint64_t before = counter(NULL, "no_mbuf"), ns = c6("ns_sent"), na = c6("na_sent");
	unsigned int n = 0;

	drop_sent();
	while (n < RTE_DIM(all) && (all[n] = rte_pktmbuf_alloc(pool)) != NULL)
		n++;
	dpr_exc_unsolicited_na(R.exc, 0, &a);
	rte_pktmbuf_free_bulk(all, n);
	CHECK(c6("ns_sent") == ns && c6("na_sent") == na, "nothing sent from an empty pool");
	CHECK(counter(NULL, "no_mbuf") - before == 2,
	      "the DAD probe and the NA that could not be made: no_mbuf 2 (got %" PRIu64 ")",
	      counter(NULL, "no_mbuf") - before);
	dpr_exc_unsolicited_na(R.exc, 0, &a);
	CHECK(c6("ns_sent") == ns + 1 && c6("na_sent") == na + 1, "with mbufs, both go");
	drop_sent();
}

/*
 * A host that keeps claiming an address of ours (NAs for it, or DAD
 * probes): every claim is counted and a DAD probe answered, but the log
 * says so once per DEFEND_INTERVAL (10 s) per address, as for ARP: a
 * host on the link must not make the control thread write a line per
 * packet.
 */
static void
test_dad_log_limited(void)
{
	const struct rte_ether_addr h81 = {{ 0x02, 0xaa, 0, 0, 0x01, 0x81 }};
	uint64_t dad = c6("dad_conflicts");
	unsigned int i, lines, nas;
	struct rte_mbuf *out[8];
	char *text = NULL, *at;
	size_t len = 0;
	FILE *log;

	drop_sent();
	log = open_memstream(&text, &len);
	if (log == NULL || rte_openlog_stream(log) != 0)
		abort();
	for (i = 0, nas = 0; i < 20; i++) {
		unsigned int n;

		na_in(0, &h81, "2001:db8:11::81", "ff02::1", "2001:db8:11::1", &h81, false, true,
		      GOOD);
		ns_in(0, &h81, "::", "2001:db8:11::1", false, GOOD);
		n = sent(0, out, RTE_DIM(out));
		nas += n == 1 && is_icmp6(out[0], DPR_ICMP6_NEIGH_ADVERT);
		rte_pktmbuf_free_bulk(out, n);
	}
	clock_skew_ns += 10100ull * 1000000u;
	ns_in(0, &h81, "::", "2001:db8:11::1", false, GOOD);
	rte_openlog_stream(NULL);
	fclose(log);
	for (lines = 0, at = text; (at = strstr(at, "duplicate address 2001:db8:11::1")) != NULL; at++)
		lines++;
	free(text);
	CHECK_EQ(c6("dad_conflicts") - dad, 41);
	CHECK(nas == 20, "every DAD probe for 2001:db8:11::1 answered (%u of 20)", nas);
	CHECK(lines == 2, "41 claims in 10 s: logged once, then once more after 10 s (%u lines)",
	      lines);
	drop_sent();
}

/*
 * RFC 4861 6.2.5: an interface that stops advertising (vlan.del, shutdown:
 * dpr_exc_ra_cease()) sends a final RA with Router Lifetime 0 to all
 * nodes; one that never advertised (p1) or whose kernel does (p2,
 * transparent) sends none, nor does p0 a second time.
 */
static void
test_ra_final(void)
{
	struct dpr_prefix mac_ll = { .addr = { .af = DPR_AF_IP6 }, .len = 64 };
	struct dpr_prefix ll1 = { .addr = { .af = DPR_AF_IP6 }, .len = 64 };
	struct rte_mbuf *out[8];
	const uint8_t *f;
	uint64_t before = c6("ra_sent");
	unsigned int n, p, others = 0;

	/* p0's link-local address is fe80::1 now, the one made from its
	 * MAC gone (addr.add, addr.del): hosts take an RA's source for
	 * their default router's address, and resolve it (RFC 4861 6.1.2:
	 * the link-local address assigned to the interface). */
	memcpy(mac_ll.addr.ip6, A(ll_p[0]), 16);
	memcpy(ll1.addr.ip6, A("fe80::1"), 16);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 0, &ll1, NULL), 0);
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 0, &mac_ll), 0);
	drop_sent();
	for (p = 0; p < N_PORTS; p++)
		dpr_exc_ra_cease(R.exc, p);
	n = sent(0, out, RTE_DIM(out));
	CHECK(n == 1 && is_icmp6(out[0], DPR_ICMP6_ROUTER_ADVERT), "one final RA on p0 (%u)", n);
	if (n == 1) {
		f = F(out[0]);
		CHECK(mac_at(f, &mac_all_nodes) && same6(f + F_DST, "ff02::1") &&
		      same6(f + F_SRC, "fe80::1") && f[F_HOPS] == 255 && cksum_ok(out[0]),
		      "the final RA: to all nodes, from p0's link-local address fe80::1, hop limit 255");
		CHECK(be16_at(f + F_L4 + 6) == 0, "the final RA: router lifetime 0 (got %u)",
		      be16_at(f + F_L4 + 6));
	}
	rte_pktmbuf_free_bulk(out, n);
	for (p = 1; p < N_PORTS; p++) {
		n = sent(p, out, RTE_DIM(out));
		others += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK(others == 0, "no final RA where none was sent (%u)", others);
	CHECK_EQ(c6("ra_sent") - before, 1);
	dpr_exc_ra_cease(R.exc, 0);
	CHECK_EQ(sent(0, out, RTE_DIM(out)), 0);
	drop_sent();
	CHECK_EQ(dpr_ifaddr_del(&R.addrs, 0, &ll1), 0);
	CHECK_EQ(dpr_ifaddr_add(&R.addrs, 0, &mac_ll, NULL), 0);
}

int
main(int argc, char **argv)
{
	unsigned int p;
	int tap;

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	pool = rte_pktmbuf_pool_create("test_exc6", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || test_router_init(&R, config_text, "test_exception6") < 0)
		return EXIT_FAILURE;
	R.n_ports = N_PORTS;
	R.n_workers = 0;
	R.pools[0] = pool;
	R.port_dp = rte_zmalloc(NULL, sizeof(*R.port_dp) * DPR_MAX_PORTS, 0);
	if (R.port_dp == NULL)
		return EXIT_FAILURE;
	for (p = 0; p < N_PORTS; p++)
		if (port_on_ring(p) < 0 || add_link_local(p) < 0)
			return EXIT_FAILURE;
	/* p2's TAP to the host stack: a ring as well. */
	tap = test_ring_port("test_exc6_tap", pool, &tapr);
	if (tap < 0)
		return EXIT_FAILURE;
	R.ports[2].has_tap = true;
	R.ports[2].tap_port = (uint16_t)tap;
	R.exc = dpr_exc_create(&R);
	if (R.exc == NULL)
		return EXIT_FAILURE;

	test_out_acl_own();
	test_ns_for_us();
	test_ndp_invalid();
	test_na_and_resolution();
	test_v4_via_link_local();
	test_v4_error_without_v4_address();
	test_ignore_gratuitous6();
	test_dad();
	test_echo();
	test_errors();
	test_acl_reject_invalid();
	test_rate_limit();
	test_redirects();
	test_hop_by_hop();
	test_error_source_own_address();
	test_blackhole_slow();
	test_transparent();
	test_ra_periodic();
	test_ra_solicited();
	test_ra_final();
	test_anycast_na();
	/* Last: it moves the clock a minute on. */
	test_probe_answer_without_tlla();
	test_only_answers_confirm();
	test_ns_for_others();
	test_unsolicited_na_resolves_stale();
	test_dad_log_limited();
	test_ordered_answer_ages();
	test_announce_no_mbuf();

	drop_sent();
	dpr_exc_free(R.exc);
	rte_free(R.port_dp);
	test_router_free(&R);
	return test_done("test_exception6");
}
