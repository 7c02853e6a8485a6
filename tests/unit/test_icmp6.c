/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv6, Neighbor Discovery and Hop-by-Hop checks (lib/exception/icmp6):
 * every field of what the builders make, read at its RFC offset and checked
 * with a checksum written here (not the library's); the parser's validity
 * rules one at a time; when ICMPv6 errors must not be sent (RFC 4443 2.4),
 * and what a router does with Hop-by-Hop options (RFC 8200 4.2).
 *
 * Offsets in a frame: Ethernet 0-13, IPv6 14-53 (next header 20, hop limit
 * 21, source 22-37, destination 38-53), ICMPv6 from 54 when no extension
 * header sits between.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "exception/icmp6.h"
#include "test.h"

#define F_HOPS 21
#define F_SRC 22
#define F_DST 38
#define F_L4 54

static struct rte_mempool *pool;
static const struct rte_ether_addr mac_r = {{ 0x02, 0, 0, 0, 0x01, 0x01 }};
static const struct rte_ether_addr mac_h = {{ 0x02, 0, 0, 0, 0x01, 0x02 }};
static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
static const struct rte_ether_addr mc_all_nodes = {{ 0x33, 0x33, 0, 0, 0, 0x01 }};

/* Textual IPv6 through libc, so the test does not trust the library's constants. */
static const uint8_t *
A(const char *s)
{
	static uint8_t ring[8][16];
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

static uint8_t *
F(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, uint8_t *);
}

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t
be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* --- a reference checksum: RFC 1071 sum over RFC 8200 8.1's pseudo-header --- */

static uint32_t
ref_add(uint32_t sum, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	return sum;
}

/* The folded sum of the pseudo-header and the @p len bytes of ICMPv6 at frame offset @p off. */
static uint16_t
ref_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	const uint8_t *f = F(m);
	const uint8_t ph[8] = { len >> 24, len >> 16, len >> 8, len, 0, 0, 0, IPPROTO_ICMPV6 };
	uint32_t s = ref_add(0, f + F_SRC, 32);

	s = ref_add(s, ph, sizeof(ph));
	s = ref_add(s, f + off, len);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The ICMPv6 message at @p off runs to the end of the IPv6 payload. */
static uint32_t
l4_len(const struct rte_mbuf *m, uint32_t off)
{
	return 14 + 40 + be16_at(F(m) + 18) - off;
}

static bool
ref_ok_at(const struct rte_mbuf *m, uint32_t off)
{
	return ref_sum(m, off, l4_len(m, off)) == 0xffff;
}

static bool
ref_ok(const struct rte_mbuf *m)
{
	return ref_ok_at(m, F_L4);
}

static void
ref_fix_at(struct rte_mbuf *m, uint32_t off)
{
	uint8_t *f = F(m);
	uint16_t v;

	f[off + 2] = f[off + 3] = 0;
	v = (uint16_t)~ref_sum(m, off, l4_len(m, off));
	f[off + 2] = v >> 8;
	f[off + 3] = v & 0xff;
}

static void
ref_fix(struct rte_mbuf *m)
{
	ref_fix_at(m, F_L4);
}

/* An Ethernet/IPv6 frame carrying @p plen bytes of @p payload (zeros when NULL). */
static struct rte_mbuf *
mk6(const struct rte_ether_addr *dmac, const char *src, const char *dst, uint8_t nh,
    uint8_t hops, const void *payload, uint16_t plen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, 54 + plen) : NULL;

	if (f == NULL)
		abort();
	memset(f, 0, 54 + plen);
	memcpy(f, dmac, 6);
	memcpy(f + 6, &mac_h, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[18] = plen >> 8;
	f[19] = plen & 0xff;
	f[20] = nh;
	f[F_HOPS] = hops;
	memcpy(f + F_SRC, A(src), 16);
	memcpy(f + F_DST, A(dst), 16);
	if (payload != NULL)
		memcpy(f + F_L4, payload, plen);
	return m;
}

/* An ICMPv6 message with a right checksum. */
static struct rte_mbuf *
mk_icmp(const struct rte_ether_addr *dmac, const char *src, const char *dst, uint8_t hops,
	const void *msg, uint16_t len)
{
	struct rte_mbuf *m = mk6(dmac, src, dst, IPPROTO_ICMPV6, hops, msg, len);

	ref_fix(m);
	return m;
}

/* Ethernet and IPv6 header fields every builder must get right. */
static void
check_ip6(const struct rte_mbuf *m, const struct rte_ether_addr *dmac,
	  const struct rte_ether_addr *smac, const char *src, const char *dst, uint8_t hops,
	  uint32_t icmp_len, const char *what)
{
	const uint8_t *f = F(m);
	static const uint8_t zero[6];

	CHECK(memcmp(f, dmac != NULL ? dmac->addr_bytes : zero, 6) == 0, "%s: destination MAC", what);
	CHECK(memcmp(f + 6, smac != NULL ? smac->addr_bytes : zero, 6) == 0, "%s: source MAC", what);
	CHECK(f[12] == 0x86 && f[13] == 0xdd, "%s: EtherType IPv6", what);
	CHECK(f[14] == 0x60 && f[15] == 0 && f[16] == 0 && f[17] == 0,
	      "%s: version 6, traffic class and flow label 0", what);
	CHECK_EQ(be16_at(f + 18), icmp_len);
	CHECK_EQ(f[20], IPPROTO_ICMPV6);
	CHECK_EQ(f[F_HOPS], hops);
	CHECK(same6(f + F_SRC, src), "%s: source %s", what, src);
	CHECK(same6(f + F_DST, dst), "%s: destination %s", what, dst);
	CHECK_EQ(m->pkt_len, 54 + icmp_len);
	CHECK_EQ(m->nb_segs, 1);
	CHECK(ref_ok(m), "%s: ICMPv6 checksum (reference)", what);
}

/* --- addresses --- */

static void
test_addresses(void)
{
	const struct rte_ether_addr m1 = {{ 0x02, 0, 0, 0, 0, 0x01 }};
	const struct rte_ether_addr m2 = {{ 0x00, 0x1b, 0x21, 0xaa, 0xbb, 0xcc }};
	struct rte_ether_addr mac;
	uint8_t a[16];

	/* RFC 4291 appendix A: the u/l bit inverted, ff:fe in the middle. */
	dpr_ip6_link_local_from_mac(&m1, a);
	CHECK(same6(a, "fe80::ff:fe00:1"), "02:00:00:00:00:01 -> fe80::ff:fe00:1");
	dpr_ip6_link_local_from_mac(&m2, a);
	CHECK(same6(a, "fe80::21b:21ff:feaa:bbcc"), "00:1b:21:aa:bb:cc -> fe80::21b:21ff:feaa:bbcc");
	/* RFC 4291 2.7.1: ff02::1:ff00:0/104 and the low 24 bits. */
	dpr_ip6_solicited_node(A("2001:db8::1:2:3"), a);
	CHECK(same6(a, "ff02::1:ff02:3"), "solicited-node of 2001:db8::1:2:3");
	dpr_ip6_solicited_node(A("fe80::21b:21ff:feaa:bbcc"), a);
	CHECK(same6(a, "ff02::1:ffaa:bbcc"), "solicited-node of a link-local address");
	/* RFC 2464 7: 33:33 and the low 32 bits. */
	dpr_ip6_mcast_mac(A("ff02::1:ff02:3"), &mac);
	CHECK(memcmp(mac.addr_bytes, "\x33\x33\xff\x02\x00\x03", 6) == 0, "33:33:ff:02:00:03");
	dpr_ip6_mcast_mac(A("ff02::1"), &mac);
	CHECK(rte_is_same_ether_addr(&mac, &mc_all_nodes), "ff02::1 -> 33:33:00:00:00:01");

	CHECK(dpr_ip6_is_link_local(A("fe80::1")), "fe80::1 link-local");
	CHECK(dpr_ip6_is_link_local(A("febf:ffff::1")), "febf:: still fe80::/10");
	CHECK(!dpr_ip6_is_link_local(A("fec0::1")), "fec0:: is not fe80::/10");
	CHECK(!dpr_ip6_is_link_local(A("2001:db8::1")), "global is not link-local");
	CHECK(dpr_ip6_is_multicast(A("ff02::1")), "ff02::1 multicast");
	CHECK(!dpr_ip6_is_multicast(A("fe80::1")), "fe80::1 not multicast");
	CHECK(dpr_ip6_is_unspecified(A("::")), ":: unspecified");
	CHECK(!dpr_ip6_is_unspecified(A("::1")), "::1 is not ::");
	CHECK(dpr_ip6_is_loopback(A("::1")), "::1 loopback");
	CHECK(!dpr_ip6_is_loopback(A("::")), ":: is not loopback");
	CHECK(!dpr_ip6_is_loopback(A("100::1")), "100::1 is not loopback");
}

/* --- checksum --- */

static void
test_cksum(void)
{
	uint8_t msg[61];
	struct rte_mbuf *m;
	const struct rte_ipv6_hdr *ip;
	uint16_t v;
	unsigned int i;

	/* Odd length, so the last byte counts as a high-order byte. */
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 37 + 11);
	msg[0] = DPR_ICMP6_ECHO_REQUEST;
	msg[1] = 0;
	msg[2] = msg[3] = 0;
	m = mk6(&mac_r, "2001:db8:1::2", "2001:db8:2::1", IPPROTO_ICMPV6, 64, msg, sizeof(msg));
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, 14);
	v = dpr_icmp6_cksum(ip, F(m) + F_L4, sizeof(msg));
	memcpy(F(m) + F_L4 + 2, &v, 2);
	CHECK(ref_ok(m), "the library's checksum passes the reference");
	CHECK_EQ(dpr_icmp6_cksum(ip, F(m) + F_L4, sizeof(msg)), 0);
	CHECK(dpr_icmp6_cksum_ok(ip, F(m) + F_L4, sizeof(msg)), "verifies");
	/* One bit off anywhere (payload, pseudo-header source, length) is caught. */
	F(m)[F_L4 + 60] ^= 0x01;
	CHECK(!dpr_icmp6_cksum_ok(ip, F(m) + F_L4, sizeof(msg)), "payload bit flipped");
	F(m)[F_L4 + 60] ^= 0x01;
	F(m)[F_SRC + 15] ^= 0x80;
	CHECK(!dpr_icmp6_cksum_ok(ip, F(m) + F_L4, sizeof(msg)), "source in the pseudo-header");
	F(m)[F_SRC + 15] ^= 0x80;
	CHECK(!dpr_icmp6_cksum_ok(ip, F(m) + F_L4, sizeof(msg) - 1), "length in the pseudo-header");
	rte_pktmbuf_free(m);
}

/* --- Neighbor Solicitation --- */

static void
test_ns_build(void)
{
	struct rte_ether_addr mc = {{ 0x33, 0x33, 0xff, 0x02, 0x00, 0x03 }};
	struct rte_mbuf *m;
	struct dpr_ndp n;
	const uint8_t *f;

	/* Address resolution: to the target's solicited-node group, with SLLA (RFC 4861 4.3, 7.2.2). */
	m = dpr_ndp_ns_build(pool, &mac_r, A("2001:db8::1"), A("2001:db8::1:2:3"), false, NULL);
	CHECK(m != NULL, "multicast NS built");
	f = F(m);
	check_ip6(m, &mc, &mac_r, "2001:db8::1", "ff02::1:ff02:3", 255, 32, "NS");
	CHECK_EQ(f[F_L4], 135);
	CHECK_EQ(f[F_L4 + 1], 0);
	CHECK_EQ(be32_at(f + F_L4 + 4), 0);          /* reserved */
	CHECK(same6(f + F_L4 + 8, "2001:db8::1:2:3"), "target");
	CHECK_EQ(f[F_L4 + 24], 1);                   /* SLLA */
	CHECK_EQ(f[F_L4 + 25], 1);                   /* 8 octets */
	CHECK(memcmp(f + F_L4 + 26, &mac_r, 6) == 0, "SLLA is the sender's MAC");
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.type == 135 && n.has_lladdr && rte_is_same_ether_addr(&n.lladdr, &mac_r) &&
	      same6(n.target, "2001:db8::1:2:3"), "NS parsed back");
	rte_pktmbuf_free(m);

	/* DAD (RFC 4862 5.4.2): from ::, no SLLA. */
	m = dpr_ndp_ns_build(pool, &mac_r, NULL, A("fe80::ff:fe00:101"), false, NULL);
	CHECK(m != NULL, "DAD NS built");
	mc = (struct rte_ether_addr){{ 0x33, 0x33, 0xff, 0x00, 0x01, 0x01 }};
	check_ip6(m, &mc, &mac_r, "::", "ff02::1:ff00:101", 255, 24, "DAD NS");
	CHECK_EQ(F(m)[F_L4], 135);
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(!n.has_lladdr, "DAD NS carries no SLLA");
	rte_pktmbuf_free(m);

	/* Unicast probe (7.3.1): to the target and its MAC. */
	m = dpr_ndp_ns_build(pool, &mac_r, A("2001:db8::1"), A("2001:db8::2"), true, &mac_h);
	CHECK(m != NULL, "unicast NS built");
	check_ip6(m, &mac_h, &mac_r, "2001:db8::1", "2001:db8::2", 255, 32, "unicast NS");
	CHECK_EQ(F(m)[F_L4 + 24], 1);
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	rte_pktmbuf_free(m);

	errno = 0;
	CHECK(dpr_ndp_ns_build(pool, &mac_r, A("2001:db8::1"), A("ff02::1"), false, NULL) == NULL &&
	      errno == EINVAL, "multicast target refused");
	CHECK(dpr_ndp_ns_build(pool, &mac_r, A("2001:db8::1"), A("2001:db8::2"), true, NULL) == NULL,
	      "unicast probe without a MAC refused");
	CHECK(dpr_ndp_ns_build(pool, &mac_r, NULL, A("2001:db8::2"), true, &mac_h) == NULL,
	      "unicast DAD refused");
	CHECK(dpr_ndp_ns_build(pool, &mac_r, A("ff02::1"), A("2001:db8::2"), false, NULL) == NULL,
	      "multicast source refused");
}

/* --- Neighbor Advertisement --- */

static void
test_na_build(void)
{
	struct rte_mbuf *m;
	struct dpr_ndp n;
	const uint8_t *f;

	/* Solicited answer (RFC 4861 4.4, 7.2.4): unicast, R S O, TLLA. */
	m = dpr_ndp_na_build(pool, &mac_r, A("2001:db8::1"), A("2001:db8::2"), &mac_h,
			     A("2001:db8::1"), true, true, true);
	CHECK(m != NULL, "NA built");
	f = F(m);
	check_ip6(m, &mac_h, &mac_r, "2001:db8::1", "2001:db8::2", 255, 32, "NA");
	CHECK_EQ(f[F_L4], 136);
	CHECK_EQ(f[F_L4 + 1], 0);
	CHECK_EQ(f[F_L4 + 4], 0xe0);                 /* R, S, O */
	CHECK(f[F_L4 + 5] == 0 && f[F_L4 + 6] == 0 && f[F_L4 + 7] == 0, "reserved bits zero");
	CHECK(same6(f + F_L4 + 8, "2001:db8::1"), "target");
	CHECK_EQ(f[F_L4 + 24], 2);                   /* TLLA */
	CHECK_EQ(f[F_L4 + 25], 1);
	CHECK(memcmp(f + F_L4 + 26, &mac_r, 6) == 0, "TLLA is the sender's MAC");
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.router && n.solicited && n.override && n.has_lladdr &&
	      rte_is_same_ether_addr(&n.lladdr, &mac_r), "NA flags and TLLA parsed back");
	rte_pktmbuf_free(m);

	/* Unsolicited, to all nodes: S clear, the MAC from the group. */
	m = dpr_ndp_na_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), NULL, A("2001:db8::1"),
			     false, false, true);
	CHECK(m != NULL, "unsolicited NA built");
	check_ip6(m, &mc_all_nodes, &mac_r, "fe80::1", "ff02::1", 255, 32, "unsolicited NA");
	CHECK_EQ(F(m)[F_L4 + 4], 0x20);              /* O only */
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(!n.router && !n.solicited && n.override, "flags parsed back");
	rte_pktmbuf_free(m);

	/* A MAC given for a multicast destination does not override the group's (RFC 2464 7). */
	m = dpr_ndp_na_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), &mac_h, A("2001:db8::1"),
			     false, false, true);
	CHECK(m != NULL && memcmp(F(m), &mc_all_nodes, 6) == 0, "multicast NA to 33:33:00:00:00:01");
	rte_pktmbuf_free(m);

	/* Router flag alone: 0x80. */
	m = dpr_ndp_na_build(pool, &mac_r, A("fe80::1"), A("fe80::2"), &mac_h, A("fe80::1"),
			     true, false, false);
	CHECK_EQ(F(m)[F_L4 + 4], 0x80);
	rte_pktmbuf_free(m);

	errno = 0;
	CHECK(dpr_ndp_na_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), NULL, A("2001:db8::1"),
			       false, true, true) == NULL && errno == EINVAL,
	      "a multicast NA cannot be solicited (7.2.4)");
	CHECK(dpr_ndp_na_build(pool, &mac_r, A("fe80::1"), A("fe80::2"), NULL, A("2001:db8::1"),
			       false, true, true) == NULL, "unicast NA without a MAC refused");
	CHECK(dpr_ndp_na_build(pool, &mac_r, A("fe80::1"), A("fe80::2"), &mac_h, A("ff02::1"),
			       false, true, true) == NULL, "multicast target refused");
	CHECK(dpr_ndp_na_build(pool, &mac_r, A("::"), A("ff02::1"), NULL, A("2001:db8::1"),
			       false, false, true) == NULL, "NA from :: refused");
}

/* --- Router Advertisement --- */

static void
test_ra_build(void)
{
	struct dpr_ra_conf ra = {
		.cur_hop_limit = 64, .managed = true, .other = false, .router_lifetime = 1800,
		.reachable_time = 30000, .retrans_timer = 1000, .mtu = 1500, .n_prefixes = 2,
	};
	struct rte_mbuf *m;
	struct dpr_ndp n;
	const uint8_t *f, *o;

	memcpy(ra.prefixes[0].prefix, A("2001:db8:1::"), 16);
	ra.prefixes[0].len = 64;
	ra.prefixes[0].on_link = true;
	ra.prefixes[0].autonomous = true;
	ra.prefixes[0].valid_lifetime = 2592000;
	ra.prefixes[0].preferred_lifetime = 604800;
	/* Host bits set past /48: sent as zero (RFC 4861 4.6.2). */
	memcpy(ra.prefixes[1].prefix, A("2001:db8:2:ffff::1"), 16);
	ra.prefixes[1].len = 48;
	ra.prefixes[1].on_link = true;
	ra.prefixes[1].valid_lifetime = 0xffffffff;
	ra.prefixes[1].preferred_lifetime = 0xffffffff;

	m = dpr_ndp_ra_build(pool, &mac_r, A("fe80::ff:fe00:101"), A("ff02::1"), NULL, &ra);
	CHECK(m != NULL, "RA built");
	f = F(m);
	check_ip6(m, &mc_all_nodes, &mac_r, "fe80::ff:fe00:101", "ff02::1", 255,
		  16 + 8 + 8 + 2 * 32, "RA");
	/* RFC 4861 4.2 */
	CHECK_EQ(f[F_L4], 134);
	CHECK_EQ(f[F_L4 + 1], 0);
	CHECK_EQ(f[F_L4 + 4], 64);
	CHECK_EQ(f[F_L4 + 5], 0x80);                 /* M set, O clear, reserved 0 */
	CHECK_EQ(be16_at(f + F_L4 + 6), 1800);
	CHECK_EQ(be32_at(f + F_L4 + 8), 30000);
	CHECK_EQ(be32_at(f + F_L4 + 12), 1000);
	/* 4.6.1 SLLA */
	o = f + F_L4 + 16;
	CHECK(o[0] == 1 && o[1] == 1 && memcmp(o + 2, &mac_r, 6) == 0, "SLLA option");
	/* 4.6.4 MTU */
	o += 8;
	CHECK(o[0] == 5 && o[1] == 1 && o[2] == 0 && o[3] == 0, "MTU option header");
	CHECK_EQ(be32_at(o + 4), 1500);
	/* 4.6.2 prefix information */
	o += 8;
	CHECK(o[0] == 3 && o[1] == 4, "prefix option, 32 bytes");
	CHECK_EQ(o[2], 64);
	CHECK_EQ(o[3], 0xc0);                        /* L, A */
	CHECK_EQ(be32_at(o + 4), 2592000);
	CHECK_EQ(be32_at(o + 8), 604800);
	CHECK_EQ(be32_at(o + 12), 0);                /* reserved2 */
	CHECK(same6(o + 16, "2001:db8:1::"), "prefix 1");
	o += 32;
	CHECK(o[0] == 3 && o[1] == 4 && o[2] == 48, "second prefix option");
	CHECK_EQ(o[3], 0x80);                        /* L only */
	CHECK_EQ(be32_at(o + 4), 0xffffffff);
	CHECK_EQ(be32_at(o + 8), 0xffffffff);
	CHECK(same6(o + 16, "2001:db8:2::"), "bits past /48 sent as zero");

	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.type == 134 && n.ra.cur_hop_limit == 64 && n.ra.managed && !n.ra.other &&
	      n.ra.router_lifetime == 1800 && n.ra.reachable_time == 30000 &&
	      n.ra.retrans_timer == 1000 && n.ra.mtu == 1500 && n.ra.n_prefixes == 2,
	      "RA parsed back");
	CHECK(n.has_lladdr && rte_is_same_ether_addr(&n.lladdr, &mac_r), "RA SLLA parsed back");
	CHECK(n.ra.prefixes[0].len == 64 && n.ra.prefixes[0].on_link &&
	      n.ra.prefixes[0].autonomous && n.ra.prefixes[0].valid_lifetime == 2592000 &&
	      n.ra.prefixes[0].preferred_lifetime == 604800 &&
	      same6(n.ra.prefixes[0].prefix, "2001:db8:1::"), "prefix 1 parsed back");
	CHECK(n.ra.prefixes[1].len == 48 && n.ra.prefixes[1].on_link &&
	      !n.ra.prefixes[1].autonomous, "prefix 2 parsed back");
	rte_pktmbuf_free(m);

	/* To a soliciting host, no MTU option, no prefix. */
	ra.mtu = 0;
	ra.n_prefixes = 0;
	ra.managed = false;
	ra.other = true;
	m = dpr_ndp_ra_build(pool, &mac_r, A("fe80::1"), A("fe80::2"), &mac_h, &ra);
	CHECK(m != NULL, "unicast RA built");
	check_ip6(m, &mac_h, &mac_r, "fe80::1", "fe80::2", 255, 24, "unicast RA");
	CHECK_EQ(F(m)[F_L4 + 5], 0x40);              /* O only */
	CHECK_EQ(F(m)[F_L4 + 16], 1);                /* SLLA, nothing after it */
	rte_pktmbuf_free(m);

	errno = 0;
	CHECK(dpr_ndp_ra_build(pool, &mac_r, A("2001:db8::1"), A("ff02::1"), NULL, &ra) == NULL &&
	      errno == EINVAL, "an RA from a global address refused (6.1.2)");
	ra.n_prefixes = 9;
	CHECK(dpr_ndp_ra_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), NULL, &ra) == NULL,
	      "nine prefixes refused");
	ra.n_prefixes = 1;
	ra.prefixes[0].len = 129;
	CHECK(dpr_ndp_ra_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), NULL, &ra) == NULL,
	      "/129 refused");
	ra.prefixes[0].len = 64;
	ra.prefixes[0].preferred_lifetime = ra.prefixes[0].valid_lifetime + 1;
	CHECK(dpr_ndp_ra_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), NULL, &ra) == NULL,
	      "preferred > valid refused (RFC 4862 5.5.3(c))");
	ra.prefixes[0].preferred_lifetime = ra.prefixes[0].valid_lifetime;
	m = dpr_ndp_ra_build(pool, &mac_r, A("fe80::1"), A("ff02::1"), NULL, &ra);
	CHECK(m != NULL, "preferred == valid accepted");
	rte_pktmbuf_free(m);
}

/* --- the parser on hand-made messages --- */

static void
test_parse_valid(void)
{
	/* RS from :: (6.1.1), and from an address with SLLA. */
	const uint8_t rs[8] = { 133 };
	const uint8_t rs_slla[16] = { 133, [8] = 1, 1, 0x02, 0, 0, 0, 0x01, 0x02 };
	/* A Redirect (4.5): target fe80::9 is a better first hop for 2001:db8:5::1, TLLA. */
	uint8_t redir[48] = { 137 };
	/* An RA with an option the parser does not know (RDNSS, 24 bytes) and a short MTU. */
	uint8_t ra[16 + 24] = { 134, 0, 0, 0, 0, 0, 0, 0 };
	/* An NA whose unknown option comes before the TLLA. */
	uint8_t na[24 + 8 + 8] = { 136, 0, 0, 0, 0x40 };
	struct rte_mbuf *m;
	struct dpr_ndp n;

	m = mk_icmp(&mc_all_nodes, "::", "ff02::2", 255, rs, sizeof(rs));
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.type == 133 && n.hop_limit == 255 && !n.has_lladdr && same6(n.dst, "ff02::2"),
	      "RS from ::");
	rte_pktmbuf_free(m);
	m = mk_icmp(&mc_all_nodes, "fe80::2", "ff02::2", 255, rs_slla, sizeof(rs_slla));
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.has_lladdr && rte_is_same_ether_addr(&n.lladdr, &mac_h), "RS SLLA");
	CHECK(same6(n.src, "fe80::2"), "RS source");
	rte_pktmbuf_free(m);

	memcpy(redir + 8, A("fe80::9"), 16);
	memcpy(redir + 24, A("2001:db8:5::1"), 16);
	redir[40] = 2;
	redir[41] = 1;
	memcpy(redir + 42, &mac_r, 6);
	m = mk_icmp(&mac_h, "fe80::1", "2001:db8::2", 255, redir, sizeof(redir));
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.type == 137 && same6(n.target, "fe80::9") && same6(n.dest, "2001:db8:5::1") &&
	      n.has_lladdr && rte_is_same_ether_addr(&n.lladdr, &mac_r), "Redirect");
	rte_pktmbuf_free(m);

	ra[16] = 25;   /* RDNSS (RFC 8106), length 3 */
	ra[17] = 3;
	m = mk_icmp(&mc_all_nodes, "fe80::1", "ff02::1", 255, ra, sizeof(ra));
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.ra.mtu == 0 && n.ra.n_prefixes == 0 && !n.has_lladdr, "unknown RA option skipped");
	rte_pktmbuf_free(m);

	memcpy(na + 8, A("2001:db8::7"), 16);
	na[24] = 1;    /* an SLLA in an NA: not its option, ignored (7.1.2) */
	na[25] = 1;
	memcpy(na + 26, &mac_r, 6);
	na[32] = 2;
	na[33] = 1;
	memcpy(na + 34, &mac_h, 6);
	m = mk_icmp(&mac_r, "2001:db8::7", "2001:db8::1", 255, na, sizeof(na));
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(n.has_lladdr && rte_is_same_ether_addr(&n.lladdr, &mac_h) && n.solicited &&
	      !n.router && !n.override, "NA takes its TLLA, not an SLLA");
	rte_pktmbuf_free(m);
	/* Two TLLAs: the first counts (as Linux's ndisc_parse_options does). */
	na[24] = 2;
	m = mk_icmp(&mac_r, "2001:db8::7", "2001:db8::1", 255, na, sizeof(na));
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	CHECK(rte_is_same_ether_addr(&n.lladdr, &mac_r), "the first TLLA is taken");
	rte_pktmbuf_free(m);

	/* Not Neighbor Discovery: an echo request, an MLD report. */
	m = mk_icmp(&mac_r, "2001:db8::7", "2001:db8::1", 255,
		    (const uint8_t[8]){ DPR_ICMP6_ECHO_REQUEST }, 8);
	CHECK_EQ(dpr_ndp_parse(m, &n), -ENOTSUP);
	rte_pktmbuf_free(m);
	m = mk_icmp(&mac_r, "fe80::7", "ff02::16", 1, (const uint8_t[8]){ DPR_ICMP6_MLD2_REPORT }, 8);
	CHECK_EQ(dpr_ndp_parse(m, &n), -ENOTSUP);
	rte_pktmbuf_free(m);
	/* Not ICMPv6, or behind an extension header. */
	m = mk6(&mac_r, "fe80::7", "fe80::1", IPPROTO_UDP, 255, rs, sizeof(rs));
	CHECK_EQ(dpr_ndp_parse(m, &n), -EINVAL);
	rte_pktmbuf_free(m);
	{
		uint8_t hbh_rs[8 + 8] = { IPPROTO_ICMPV6, 0, 1, 4, 0, 0, 0, 0, 133 };

		m = mk6(&mac_r, "fe80::7", "ff02::2", IPPROTO_HOPOPTS, 255, hbh_rs, sizeof(hbh_rs));
		ref_fix_at(m, F_L4 + 8);
		CHECK_EQ(dpr_ndp_parse(m, &n), -EINVAL);
		rte_pktmbuf_free(m);
	}
}

/* One validity rule (RFC 4861 6.1.1, 6.1.2, 7.1.1, 7.1.2, 8.1) broken at a time. */
enum build { B_NS, B_NS_DAD, B_NA, B_RS, B_RA, B_REDIRECT };

static struct rte_mbuf *
valid(enum build b)
{
	static const struct dpr_ra_conf ra = { .cur_hop_limit = 64, .router_lifetime = 600 };
	uint8_t msg[40] = { 137 };

	switch (b) {
	case B_NS:
		return dpr_ndp_ns_build(pool, &mac_h, A("2001:db8::2"), A("2001:db8::1"), false, NULL);
	case B_NS_DAD:
		return dpr_ndp_ns_build(pool, &mac_h, NULL, A("2001:db8::1"), false, NULL);
	case B_NA:
		return dpr_ndp_na_build(pool, &mac_h, A("2001:db8::2"), A("2001:db8::1"), &mac_r,
					A("2001:db8::2"), false, true, true);
	case B_RS:
		return mk_icmp(&mc_all_nodes, "fe80::2", "ff02::2", 255,
			       (const uint8_t[8]){ 133 }, 8);
	case B_RA:
		return dpr_ndp_ra_build(pool, &mac_h, A("fe80::2"), A("ff02::1"), NULL, &ra);
	case B_REDIRECT:
		/* A link-local router as the better first hop. */
		memcpy(msg + 8, A("fe80::9"), 16);
		memcpy(msg + 24, A("2001:db8:5::1"), 16);
		return mk_icmp(&mac_r, "fe80::2", "2001:db8::1", 255, msg, sizeof(msg));
	}
	return NULL;
}

/* Make the IPv6 payload @p len bytes long, growing or shrinking the frame. */
static void
resize(struct rte_mbuf *m, uint16_t len)
{
	uint16_t old = be16_at(F(m) + 18);

	if (len > old)
		memset(rte_pktmbuf_append(m, len - old), 0, len - old);
	else
		rte_pktmbuf_trim(m, old - len);
	F(m)[18] = len >> 8;
	F(m)[19] = len & 0xff;
}

static void
test_parse_rules(void)
{
	struct {
		enum build b;
		const char *what;
		int field;          /* frame offset to set, or -1 */
		int value;
		int new_len;        /* IPv6 payload length to force, or 0 */
		const char *addr;   /* replaces the 16 bytes at field, if set */
		bool keep_cksum;    /* leave the checksum as it is after the change */
	} c[] = {
		{ B_NS, "NS hop limit 254", F_HOPS, 254 },
		{ B_NA, "NA hop limit 254", F_HOPS, 254 },
		{ B_RS, "RS hop limit 254", F_HOPS, 254 },
		{ B_RA, "RA hop limit 254", F_HOPS, 254 },
		{ B_REDIRECT, "Redirect hop limit 254", F_HOPS, 254 },
		{ B_NS, "NS bad checksum", F_L4 + 3, -1, .keep_cksum = true },
		{ B_RA, "RA bad checksum", F_L4 + 2, -1, .keep_cksum = true },
		{ B_NS, "NS code 1", F_L4 + 1, 1 },
		{ B_NA, "NA code 1", F_L4 + 1, 1 },
		{ B_RS, "RS code 1", F_L4 + 1, 1 },
		{ B_RA, "RA code 1", F_L4 + 1, 1 },
		{ B_REDIRECT, "Redirect code 1", F_L4 + 1, 1 },
		{ B_NS_DAD, "NS of 23 bytes", -1, 0, 23 },
		{ B_NA, "NA of 16 bytes", -1, 0, 16 },
		{ B_RS, "RS of 4 bytes", -1, 0, 4 },
		{ B_RA, "RA of 12 bytes", -1, 0, 12 },
		{ B_REDIRECT, "Redirect of 32 bytes", -1, 0, 32 },
		{ B_NS, "NS option length 0", F_L4 + 25, 0 },
		{ B_RA, "RA option length 0", F_L4 + 17, 0 },
		{ B_NA, "NA option past the end", F_L4 + 25, 2 },
		{ B_RA, "RA option past the end", F_L4 + 17, 3 },
		{ B_NS_DAD, "one byte of option", -1, 0, 25 },
		/* A link-layer address that names no one host (the group bit). */
		{ B_NS, "NS with a multicast SLLA", F_L4 + 26, 0x33 },
		{ B_NA, "NA with a multicast TLLA", F_L4 + 26, 0x01 },
		{ B_NS, "NS multicast target", F_L4 + 8, 0, 0, "ff02::1" },
		{ B_NA, "NA multicast target", F_L4 + 8, 0, 0, "ff02::1" },
		{ B_NS, "DAD NS with SLLA", F_SRC, 0, 0, "::" },
		{ B_NS_DAD, "DAD NS to a unicast address", F_DST, 0, 0, "2001:db8::1" },
		{ B_NS_DAD, "DAD NS to all nodes", F_DST, 0, 0, "ff02::1" },
		{ B_NA, "NA to multicast with S set", F_DST, 0, 0, "ff02::1" },
		{ B_RA, "RA from a global source", F_SRC, 0, 0, "2001:db8::2" },
		{ B_RS, "RS from :: with SLLA", -1, 0, 16, "::" },
		{ B_REDIRECT, "Redirect from a global source", F_SRC, 0, 0, "2001:db8::2" },
		{ B_REDIRECT, "Redirect about a multicast destination", F_L4 + 24, 0, 0, "ff0e::1" },
		{ B_REDIRECT, "Redirect to a global target off the destination",
		  F_L4 + 8, 0, 0, "2001:db8:5::9" },
	};
	struct rte_mbuf *m;
	struct dpr_ndp n;
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		m = valid(c[i].b);
		CHECK(m != NULL && dpr_ndp_parse(m, &n) == 0, "%s: the unbroken one is valid", c[i].what);
		if (m == NULL)
			continue;
		if (c[i].new_len != 0)
			resize(m, c[i].new_len);
		if (c[i].b == B_RS && c[i].new_len == 16) {
			/* An SLLA, then the source made ::. */
			F(m)[F_L4 + 8] = 1;
			F(m)[F_L4 + 9] = 1;
			memcpy(F(m) + F_SRC, A(c[i].addr), 16);
		} else if (c[i].addr != NULL) {
			memcpy(F(m) + c[i].field, A(c[i].addr), 16);
		} else if (c[i].field >= 0) {
			F(m)[c[i].field] = c[i].value < 0 ? F(m)[c[i].field] ^ 0x40 :
				(uint8_t)c[i].value;
		}
		if (!c[i].keep_cksum)
			ref_fix(m);
		CHECK_EQ(dpr_ndp_parse(m, &n), -EINVAL);
		if (dpr_ndp_parse(m, &n) != -EINVAL)
			fprintf(stderr, "  ... %s accepted\n", c[i].what);
		rte_pktmbuf_free(m);
	}

	/* What the rules allow: an NA to multicast with S clear, a frame with trailing padding. */
	m = valid(B_NA);
	F(m)[F_L4 + 4] = 0x20;
	memcpy(F(m) + F_DST, A("ff02::1"), 16);
	ref_fix(m);
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	memset(rte_pktmbuf_append(m, 6), 0xee, 6);
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	rte_pktmbuf_free(m);
	/* A payload length past the frame's end, with a checksum that would fit the whole. */
	m = valid(B_NA);
	resize(m, 40);
	F(m)[F_L4 + 32] = 200;   /* an unknown option, 8 bytes */
	F(m)[F_L4 + 33] = 1;
	ref_fix(m);
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	rte_pktmbuf_trim(m, 8);
	CHECK_EQ(dpr_ndp_parse(m, &n), -EINVAL);
	rte_pktmbuf_free(m);
	/* An all-zero link-layer address names no host either. */
	m = valid(B_NS);
	memset(F(m) + F_L4 + 26, 0, RTE_ETHER_ADDR_LEN);
	ref_fix(m);
	CHECK(dpr_ndp_parse(m, &n) == -EINVAL, "an NS whose SLLA is 00:00:00:00:00:00 is invalid");
	rte_pktmbuf_free(m);
	/* A Redirect to the destination itself: it is on-link (RFC 4861 4.5). */
	m = valid(B_REDIRECT);
	memcpy(F(m) + F_L4 + 8, A("2001:db8:5::1"), 16);
	ref_fix(m);
	CHECK_EQ(dpr_ndp_parse(m, &n), 0);
	rte_pktmbuf_free(m);
}

/* --- ICMPv6 errors --- */

static struct rte_mbuf *
mk_udp(const struct rte_ether_addr *dmac, const char *src, const char *dst, uint16_t plen)
{
	struct rte_mbuf *m = mk6(dmac, src, dst, IPPROTO_UDP, 1, NULL, plen);
	uint16_t i;

	for (i = 0; i < plen; i++)
		F(m)[F_L4 + i] = (uint8_t)(i * 7 + 3);
	return m;
}

static void
test_error(void)
{
	struct rte_mbuf *orig = mk_udp(&mac_r, "2001:db8:1::2", "2001:db8:2::9", 1460);
	struct rte_mbuf *e;
	const uint8_t *f;

	/* Packet Too Big for a 1500-byte packet: quoted up to 1280 bytes of IPv6 packet. */
	e = dpr_icmp6_error(pool, orig, DPR_ICMP6_PACKET_TOO_BIG, 0, 1400, A("2001:db8:1::1"));
	CHECK(e != NULL, "PTB built");
	f = F(e);
	check_ip6(e, NULL, NULL, "2001:db8:1::1", "2001:db8:1::2", 64, 1280 - 40, "PTB");
	CHECK_EQ(e->pkt_len, 14 + DPR_ICMP6_ERROR_MAX);
	CHECK_EQ(f[F_L4], 2);
	CHECK_EQ(f[F_L4 + 1], 0);
	CHECK_EQ(be32_at(f + F_L4 + 4), 1400);       /* MTU (RFC 4443 3.2) */
	CHECK(memcmp(f + F_L4 + 8, F(orig) + 14, 1280 - 48) == 0,
	      "the invoking packet quoted from its IPv6 header on");
	rte_pktmbuf_free(e);

	/* A short packet is quoted whole; the unused field stays zero whatever param says. */
	rte_pktmbuf_free(orig);
	orig = mk_udp(&mac_r, "2001:db8:1::2", "2001:db8:2::9", 20);
	e = dpr_icmp6_error(pool, orig, DPR_ICMP6_TIME_EXCEEDED, DPR_ICMP6_TIME_HOP_LIMIT,
			    0xdeadbeef, A("2001:db8:1::1"));
	f = F(e);
	check_ip6(e, NULL, NULL, "2001:db8:1::1", "2001:db8:1::2", 64, 8 + 60, "time exceeded");
	CHECK(f[F_L4] == 3 && f[F_L4 + 1] == 0, "type 3 code 0");
	CHECK_EQ(be32_at(f + F_L4 + 4), 0);
	CHECK(memcmp(f + F_L4 + 8, F(orig) + 14, 60) == 0, "quoted whole");
	rte_pktmbuf_free(e);

	e = dpr_icmp6_error(pool, orig, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_NO_ROUTE, 7,
			    A("2001:db8:1::1"));
	CHECK(F(e)[F_L4] == 1 && F(e)[F_L4 + 1] == 0 && be32_at(F(e) + F_L4 + 4) == 0,
	      "unreachable, no route, unused field zero");
	CHECK(ref_ok(e), "unreachable checksum");
	rte_pktmbuf_free(e);

	/* Parameter Problem: the pointer (RFC 4443 3.4). */
	e = dpr_icmp6_error(pool, orig, DPR_ICMP6_PARAM_PROBLEM, DPR_ICMP6_PARAM_OPTION, 42,
			    A("2001:db8:1::1"));
	CHECK(F(e)[F_L4] == 4 && F(e)[F_L4 + 1] == 2, "type 4 code 2");
	CHECK_EQ(be32_at(F(e) + F_L4 + 4), 42);
	CHECK(ref_ok(e), "param problem checksum");
	rte_pktmbuf_free(e);

	/* Ethernet padding after the IPv6 packet is not quoted. */
	rte_pktmbuf_free(orig);
	orig = mk_udp(&mac_r, "2001:db8:1::2", "2001:db8:2::9", 2);
	memset(rte_pktmbuf_append(orig, 4), 0xee, 4);
	e = dpr_icmp6_error(pool, orig, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_ADDR, 0,
			    A("2001:db8:1::1"));
	CHECK_EQ(be16_at(F(e) + 18), 8 + 42);
	rte_pktmbuf_free(e);

	errno = 0;
	CHECK(dpr_icmp6_error(pool, orig, DPR_ICMP6_ECHO_REPLY, 0, 0, A("2001:db8:1::1")) == NULL &&
	      errno == EINVAL, "not an error type");
	CHECK(dpr_icmp6_error(pool, orig, 1, 0, 0, A("ff02::1")) == NULL, "from multicast");
	CHECK(dpr_icmp6_error(pool, orig, 1, 0, 0, A("::")) == NULL, "from ::");
	F(orig)[13] = 0x00;     /* EtherType 0x8600: not IPv6 */
	CHECK(dpr_icmp6_error(pool, orig, 1, 0, 0, A("2001:db8:1::1")) == NULL, "not IPv6");
	rte_pktmbuf_free(orig);
}

/* An ICMPv6 message of @p type after @p hbh bytes of Hop-by-Hop header (0: none). */
static struct rte_mbuf *
mk_icmp_about(const struct rte_ether_addr *dmac, const char *src, const char *dst,
	      uint8_t type, unsigned int hbh, uint16_t icmp_len)
{
	uint8_t p[64] = { 0 };
	struct rte_mbuf *m;

	if (hbh != 0) {
		p[0] = IPPROTO_ICMPV6;
		p[1] = hbh / 8 - 1;
		p[2] = 1;                       /* PadN over the rest */
		p[3] = hbh - 4;
	}
	p[hbh] = type;
	m = mk6(dmac, src, dst, hbh != 0 ? IPPROTO_HOPOPTS : IPPROTO_ICMPV6, 64, p, hbh + icmp_len);
	if (icmp_len >= 4)
		ref_fix_at(m, F_L4 + hbh);
	return m;
}

static void
test_error_rules(void)
{
	const struct rte_ether_addr l2mc = {{ 0x33, 0x33, 0, 0, 0, 0x09 }};
	const uint8_t TE = DPR_ICMP6_TIME_EXCEEDED, PTB = DPR_ICMP6_PACKET_TOO_BIG,
		PP = DPR_ICMP6_PARAM_PROBLEM;
	uint8_t frag[8 + 8] = { IPPROTO_ICMPV6, 0, 0, 0, 0, 0, 0, 1, 1 /* dest unreach */ };
	struct {
		struct rte_mbuf *m;
		uint8_t type, code;
		bool allowed;
		const char *what;
	} c[] = {
		{ mk_udp(&mac_r, "2001:db8::2", "2001:db8:2::9", 8), TE, 0, true, "UDP" },
		{ mk_udp(&bcast, "2001:db8::2", "2001:db8:2::9", 8), TE, 0, false, "L2 broadcast" },
		{ mk_udp(&l2mc, "2001:db8::2", "2001:db8:2::9", 8), TE, 0, false, "L2 multicast" },
		{ mk_udp(&l2mc, "2001:db8::2", "2001:db8:2::9", 8), PTB, 0, true, "L2 multicast, PTB" },
		{ mk_udp(&bcast, "2001:db8::2", "2001:db8:2::9", 8), PP, 2, true,
		  "L2 broadcast, param problem code 2" },
		{ mk_udp(&mac_r, "2001:db8::2", "ff0e::9", 8), TE, 0, false, "to multicast" },
		{ mk_udp(&mac_r, "2001:db8::2", "ff0e::9", 8), DPR_ICMP6_DEST_UNREACH, 0, false,
		  "to multicast, unreachable" },
		{ mk_udp(&mac_r, "2001:db8::2", "ff0e::9", 8), PTB, 0, true, "to multicast, PTB" },
		{ mk_udp(&mac_r, "2001:db8::2", "ff0e::9", 8), PP, 2, true,
		  "to multicast, param problem code 2" },
		{ mk_udp(&mac_r, "2001:db8::2", "ff0e::9", 8), PP, 0, false,
		  "to multicast, param problem code 0" },
		{ mk_udp(&mac_r, "::", "2001:db8:2::9", 8), TE, 0, false, "from ::" },
		{ mk_udp(&mac_r, "ff02::1", "2001:db8:2::9", 8), PTB, 0, false, "from multicast" },
		{ mk_udp(&mac_r, "::1", "2001:db8:2::9", 8), TE, 0, false, "from ::1" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 1, 0, 48), TE, 0, false,
		  "about an unreachable" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 2, 0, 48), PTB, 0, false,
		  "about a PTB, even a PTB" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 127, 0, 8), TE, 0, false,
		  "about type 127 (an error)" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 137, 0, 40), TE, 0, false,
		  "about a Redirect (2.4(e.2))" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 128, 0, 16), TE, 0, true,
		  "about an echo request" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 135, 0, 24), TE, 0, true,
		  "about an NS" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 3, 8, 48), TE, 0, false,
		  "about an error behind a Hop-by-Hop header" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 128, 16, 16), TE, 0, true,
		  "about an echo request behind a Hop-by-Hop header" },
		{ mk_icmp_about(&mac_r, "2001:db8::2", "2001:db8:2::9", 128, 0, 3), TE, 0, false,
		  "about a truncated ICMPv6 header" },
		{ mk6(&mac_r, "2001:db8::2", "2001:db8:2::9", IPPROTO_FRAGMENT, 64, frag, 16), TE, 0,
		  false, "about a first fragment of an error" },
		{ mk6(&mac_r, "2001:db8::2", "2001:db8:2::9", IPPROTO_FRAGMENT, 64, frag, 16), TE, 0,
		  true, "about a later fragment" },
		{ mk6(&mac_r, "2001:db8::2", "2001:db8:2::9", IPPROTO_HOPOPTS, 64,
		      (const uint8_t[8]){ IPPROTO_ICMPV6, 3 }, 8), PP, 0, true,
		  "about a Hop-by-Hop header past the payload" },
	};
	struct rte_mbuf *m;
	unsigned int i;

	/* The later fragment: offset 8 (RFC 8200 4.5). */
	F(c[23].m)[F_L4 + 3] = 8;
	for (i = 0; i < RTE_DIM(c); i++) {
		CHECK(dpr_icmp6_error_allowed(c[i].m, c[i].type, c[i].code) == c[i].allowed,
		      "%s: %s", c[i].what, c[i].allowed ? "allowed" : "refused");
		rte_pktmbuf_free(c[i].m);
	}
	/* Not an IPv6 frame. */
	m = mk_udp(&mac_r, "2001:db8::2", "2001:db8:2::9", 8);
	F(m)[12] = 0x08;
	F(m)[13] = 0x00;
	CHECK(!dpr_icmp6_error_allowed(m, TE, 0), "IPv4 EtherType");
	rte_pktmbuf_free(m);
}

/* --- echo --- */

static struct rte_mbuf *
mk_echo(const struct rte_ether_addr *dmac, const char *src, const char *dst, const uint8_t *ext,
	uint16_t ext_len, uint8_t first_nh)
{
	uint8_t p[16 + 64];
	struct rte_mbuf *m;
	unsigned int i;

	if (ext_len != 0)
		memcpy(p, ext, ext_len);
	memset(p + ext_len, 0, 8);
	p[ext_len] = DPR_ICMP6_ECHO_REQUEST;
	p[ext_len + 4] = 0x12;           /* identifier 0x1234, sequence 7 */
	p[ext_len + 5] = 0x34;
	p[ext_len + 7] = 7;
	for (i = 8; i < 64; i++)
		p[ext_len + i] = (uint8_t)(i ^ 0x5a);
	m = mk6(dmac, src, dst, first_nh, 64, p, ext_len + 64);
	ref_fix_at(m, F_L4 + ext_len);
	return m;
}

static void
test_echo(void)
{
	struct rte_mbuf *m = mk_echo(&mac_r, "2001:db8::2", "2001:db8::1", NULL, 0, IPPROTO_ICMPV6);
	uint8_t data[64], before[54 + 64];
	const uint8_t *f = F(m);

	memcpy(data, f + F_L4, 64);
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), 0);
	f = F(m);
	check_ip6(m, &mac_h, &mac_r, "2001:db8::1", "2001:db8::2", 64, 64, "echo reply");
	CHECK(f[F_L4] == 129 && f[F_L4 + 1] == 0, "type 129 code 0");
	CHECK(memcmp(f + F_L4 + 4, data + 4, 60) == 0, "identifier, sequence, data unchanged");
	/* A reply is not a request. */
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
	rte_pktmbuf_free(m);

	/* Bad checksum, code 1: refused and left alone. */
	m = mk_echo(&mac_r, "2001:db8::2", "2001:db8::1", NULL, 0, IPPROTO_ICMPV6);
	F(m)[F_L4 + 20] ^= 1;
	memcpy(before, F(m), sizeof(before));
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
	CHECK(memcmp(before, F(m), sizeof(before)) == 0, "refused request unchanged");
	F(m)[F_L4 + 20] ^= 1;
	F(m)[F_L4 + 1] = 1;
	ref_fix(m);
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
	rte_pktmbuf_free(m);

	/* To a multicast group: only from a unicast address we name (RFC 4443 4.2). */
	m = mk_echo(&mc_all_nodes, "fe80::2", "ff02::1", NULL, 0, IPPROTO_ICMPV6);
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
	CHECK_EQ(dpr_icmp6_echo_reply(m, A("fe80::1")), 0);
	check_ip6(m, &mac_h, &mc_all_nodes, "fe80::1", "fe80::2", 64, 64, "reply to multicast");
	rte_pktmbuf_free(m);

	/* From :: or multicast: nobody to answer. */
	m = mk_echo(&mac_r, "::", "2001:db8::1", NULL, 0, IPPROTO_ICMPV6);
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
	rte_pktmbuf_free(m);

	/* Behind a Hop-by-Hop header: the reply drops it, trailing padding trimmed. */
	{
		const uint8_t hbh[8] = { IPPROTO_ICMPV6, 0, 1, 4 };
		const uint8_t rh[8] = { IPPROTO_ICMPV6, 0, 0, 1 };   /* segments left 1 */

		m = mk_echo(&mac_r, "2001:db8::2", "2001:db8::1", hbh, 8, IPPROTO_HOPOPTS);
		memcpy(data, F(m) + F_L4 + 8, 64);
		memset(rte_pktmbuf_append(m, 5), 0xee, 5);
		CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), 0);
		check_ip6(m, &mac_h, &mac_r, "2001:db8::1", "2001:db8::2", 64, 64,
			  "reply without the Hop-by-Hop header");
		CHECK(memcmp(F(m) + F_L4 + 4, data + 4, 60) == 0, "data unchanged past a stripped header");
		rte_pktmbuf_free(m);

		m = mk_echo(&mac_r, "2001:db8::2", "2001:db8::1", rh, 8, IPPROTO_ROUTING);
		CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
		rte_pktmbuf_free(m);
	}

	/*
	 * Cut short of its payload length: the checksum is made for the whole
	 * message and the last two (zero) bytes then trimmed off the frame, so
	 * only the length check can refuse it.
	 */
	m = mk_echo(&mac_r, "2001:db8::2", "2001:db8::1", NULL, 0, IPPROTO_ICMPV6);
	resize(m, 66);
	ref_fix(m);
	rte_pktmbuf_trim(m, 2);
	CHECK_EQ(dpr_icmp6_echo_reply(m, NULL), -EINVAL);
	rte_pktmbuf_free(m);
}

/* --- Hop-by-Hop --- */

static void
test_hbh(void)
{
	struct {
		const char *dst;
		uint8_t nh;
		uint8_t hdr[16];
		uint16_t len;        /* IPv6 payload length */
		enum dpr_ip6_hbh want;
		uint8_t code;
		uint32_t pointer;
		const char *what;
	} c[] = {
		{ "2001:db8::9", IPPROTO_UDP, { 17, 0, 0x5e }, 16, DPR_IP6_HBH_FORWARD, 0, 0,
		  "no HBH (the UDP bytes would read as an 01 option)" },
		{ "2001:db8::9", 0, { 17, 0, 1, 4 }, 16, DPR_IP6_HBH_FORWARD, 0, 0, "PadN" },
		{ "2001:db8::9", 0, { 17, 0, 0, 0, 0, 0, 0, 0 }, 16, DPR_IP6_HBH_FORWARD, 0, 0, "Pad1s" },
		{ "ff02::16", 0, { 58, 0, 5, 2, 0, 0, 1, 0 }, 16, DPR_IP6_HBH_LOCAL, 0, 0,
		  "Router Alert MLD" },
		{ "2001:db8::9", 0, { 17, 0, 5, 2, 0, 1, 1, 0 }, 16, DPR_IP6_HBH_FORWARD, 0, 0,
		  "Router Alert RSVP (not ours, RFC 2711 2.2)" },
		{ "ff02::16", 0, { 58, 0, 5, 2, 0, 0, 0x5e, 0 }, 16, DPR_IP6_HBH_DROP, 0, 0,
		  "Router Alert, then an 01 option" },
		{ "2001:db8::9", 0, { 17, 1, 1, 2, 0, 0, 0x1e, 0, 1, 6 }, 16, DPR_IP6_HBH_FORWARD, 0, 0,
		  "unknown 00: skipped" },
		{ "2001:db8::9", 0, { 17, 1, 1, 2, 0, 0, 0x5e, 0, 1, 6 }, 16, DPR_IP6_HBH_DROP, 0, 0,
		  "unknown 01: dropped" },
		{ "2001:db8::9", 0, { 17, 1, 1, 2, 0, 0, 0x9e, 0, 1, 6 }, 16,
		  DPR_IP6_HBH_PARAM_PROBLEM, 2, 46, "unknown 10" },
		{ "ff0e::9", 0, { 17, 1, 1, 2, 0, 0, 0x9e, 0, 1, 6 }, 16,
		  DPR_IP6_HBH_PARAM_PROBLEM, 2, 46, "unknown 10 to multicast" },
		{ "2001:db8::9", 0, { 17, 1, 1, 2, 0, 0, 0xde, 0, 1, 6 }, 16,
		  DPR_IP6_HBH_PARAM_PROBLEM, 2, 46, "unknown 11" },
		{ "ff0e::9", 0, { 17, 1, 1, 2, 0, 0, 0xde, 0, 1, 6 }, 16, DPR_IP6_HBH_DROP, 0, 0,
		  "unknown 11 to multicast" },
		{ "2001:db8::9", 0, { 17, 1, 1, 4 }, 8, DPR_IP6_HBH_PARAM_PROBLEM, 0, 41,
		  "header longer than the payload" },
		{ "2001:db8::9", 0, { 17 }, 1, DPR_IP6_HBH_PARAM_PROBLEM, 0, 4,
		  "payload too short for a header" },
		{ "2001:db8::9", 0, { 17, 0, 1, 10 }, 16, DPR_IP6_HBH_PARAM_PROBLEM, 0, 43,
		  "PadN past the header" },
		{ "2001:db8::9", 0, { 17, 0, 1, 5 }, 16, DPR_IP6_HBH_PARAM_PROBLEM, 0, 43,
		  "PadN one byte past the header" },
		{ "2001:db8::9", 0, { 17, 0, 0, 0, 0, 0, 0, 1 }, 16, DPR_IP6_HBH_PARAM_PROBLEM, 0, 47,
		  "an option cut before its length" },
		{ "2001:db8::9", 0, { 17, 0, 5, 4, 0, 0, 0, 0 }, 16, DPR_IP6_HBH_PARAM_PROBLEM, 0, 43,
		  "Router Alert of 4 bytes" },
	};
	struct rte_mbuf *m;
	enum dpr_ip6_hbh r;
	uint32_t pointer;
	uint8_t code;
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		m = mk6(&mac_r, "2001:db8::2", c[i].dst, c[i].nh, 64, NULL, 16);
		memcpy(F(m) + F_L4, c[i].hdr, 16);
		F(m)[19] = (uint8_t)c[i].len;
		code = 0xff;
		pointer = 0xffffffff;
		r = dpr_ip6_hbh_check(m, &code, &pointer);
		CHECK(r == c[i].want, "%s: %d, want %d", c[i].what, r, c[i].want);
		if (c[i].want == DPR_IP6_HBH_PARAM_PROBLEM)
			CHECK(code == c[i].code && pointer == c[i].pointer,
			      "%s: code %u pointer %u, want %u %u", c[i].what, code, pointer,
			      c[i].code, c[i].pointer);
		rte_pktmbuf_free(m);
	}

	/* A frame shorter than its payload length is damaged: dropped. */
	m = mk6(&mac_r, "2001:db8::2", "2001:db8::9", 0, 64, (const uint8_t[8]){ 17, 0, 1, 4 }, 8);
	F(m)[19] = 16;
	CHECK_EQ(dpr_ip6_hbh_check(m, &code, &pointer), DPR_IP6_HBH_DROP);
	rte_pktmbuf_free(m);

	/* The pointer leads a Parameter Problem that the multicast exception lets out. */
	m = mk6(&mac_r, "2001:db8::2", "ff0e::9", 0, 64,
		(const uint8_t[16]){ 17, 1, 1, 2, 0, 0, 0x9e, 0, 1, 6 }, 16);
	CHECK_EQ(dpr_ip6_hbh_check(m, &code, &pointer), DPR_IP6_HBH_PARAM_PROBLEM);
	CHECK(dpr_icmp6_error_allowed(m, DPR_ICMP6_PARAM_PROBLEM, code),
	      "code 2 about a multicast packet may be sent");
	{
		struct rte_mbuf *e = dpr_icmp6_error(pool, m, DPR_ICMP6_PARAM_PROBLEM, code, pointer,
						     A("2001:db8::1"));

		CHECK_EQ(be32_at(F(e) + F_L4 + 4), 46);
		CHECK_EQ(F(e)[F_L4 + 8 + pointer], 0x9e);   /* it points at the option type */
		rte_pktmbuf_free(e);
	}
	rte_pktmbuf_free(m);
}

/* --- an empty pool --- */

static void
test_empty_pool(void)
{
	struct rte_mempool *tiny = rte_pktmbuf_pool_create("tiny", 1, 0, 0,
							   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	struct rte_mbuf *held = rte_pktmbuf_alloc(tiny);
	struct dpr_ra_conf ra = { 0 };

	CHECK(held != NULL, "the one mbuf");
	errno = 0;
	CHECK(dpr_ndp_ns_build(tiny, &mac_r, NULL, A("2001:db8::1"), false, NULL) == NULL &&
	      errno == ENOBUFS, "NS from an empty pool");
	CHECK(dpr_ndp_na_build(tiny, &mac_r, A("fe80::1"), A("ff02::1"), NULL, A("2001:db8::1"),
			       false, false, true) == NULL, "NA from an empty pool");
	CHECK(dpr_ndp_ra_build(tiny, &mac_r, A("fe80::1"), A("ff02::1"), NULL, &ra) == NULL,
	      "RA from an empty pool");
	rte_pktmbuf_free(held);
	rte_mempool_free(tiny);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("test_pool", 256, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	test_addresses();
	test_cksum();
	test_ns_build();
	test_na_build();
	test_ra_build();
	test_parse_valid();
	test_parse_rules();
	test_error();
	test_error_rules();
	test_echo();
	test_hbh();
	test_empty_pool();
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	return test_done("test_icmp6");
}
