/* SPDX-License-Identifier: BSD-3-Clause */
/* Address, prefix and MAC parsing as the config and control API use it, and
 * the router's address table (lib/ifaddr). */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "ifaddr/ifaddr.h"
#include "util/addr.h"

static void
test_prefixes(void)
{
	struct dpr_prefix p;
	struct dpr_ip ip;
	char hint[DPR_PREFIX_STRLEN] = "", buf[DPR_PREFIX_STRLEN];

	CHECK_EQ(dpr_prefix_parse("10.0.0.0/8", false, &p, NULL, 0), 0);
	CHECK(p.addr.af == DPR_AF_IP4 && p.addr.ip4 == 0x0a000000 && p.len == 8, "10/8");
	CHECK_EQ(dpr_prefix_parse("10.0.0.1/8", false, &p, hint, sizeof(hint)), -EINVAL);
	CHECK(strcmp(hint, "10.0.0.0/8") == 0, "hint %s", hint);
	CHECK_EQ(dpr_prefix_parse("10.0.0.1/8", true, &p, NULL, 0), 0);
	CHECK_EQ(dpr_prefix_parse("10.0.0.1", false, &p, NULL, 0), 0);
	CHECK_EQ(p.len, 32);
	CHECK_EQ(dpr_prefix_parse("0.0.0.0/0", false, &p, NULL, 0), 0);
	CHECK_EQ(dpr_prefix_parse("10.0.0.0/33", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("10.0.0.0/", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("10.0.0.0/8x", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("10.0.0.0/-1", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("10.0.0.256/24", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("/24", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("2001:db8::/32", false, &p, NULL, 0), 0);
	CHECK(p.addr.af == DPR_AF_IP6 && p.len == 32, "v6 prefix");
	CHECK_EQ(dpr_prefix_parse("2001:db8::1/32", false, &p, hint, sizeof(hint)), -EINVAL);
	CHECK(strcmp(hint, "2001:db8::/32") == 0, "v6 hint %s", hint);
	CHECK_EQ(dpr_prefix_parse("2001:db8::/129", false, &p, NULL, 0), -EINVAL);

	dpr_prefix_parse("10.0.1.1/24", true, &p, NULL, 0);
	dpr_ip_parse("10.0.1.200", &ip);
	CHECK(dpr_prefix_contains(&p, &ip), "10.0.1.200 in 10.0.1.1/24");
	dpr_ip_parse("10.0.2.1", &ip);
	CHECK(!dpr_prefix_contains(&p, &ip), "10.0.2.1 not in 10.0.1.1/24");
	dpr_ip_parse("2001:db8::1", &ip);
	CHECK(!dpr_prefix_contains(&p, &ip), "families differ");
	dpr_prefix_parse("2001:db8:1::/48", false, &p, NULL, 0);
	dpr_ip_parse("2001:db8:1:ffff::9", &ip);
	CHECK(dpr_prefix_contains(&p, &ip), "v6 contains");
	CHECK(strcmp(dpr_prefix_fmt(&p, buf, sizeof(buf)), "2001:db8:1::/48") == 0, "%s", buf);
}

/* IPv6 as routes, addresses and the route list's cursor use it. */
static void
test_prefixes6(void)
{
	char hint[DPR_PREFIX_STRLEN] = "", buf[DPR_PREFIX_STRLEN];
	struct dpr_prefix p, q;
	struct dpr_ip ip;

	/* A bare address is a /128; ::/0 is the default route. */
	CHECK_EQ(dpr_prefix_parse("fe80::1", false, &p, NULL, 0), 0);
	CHECK(p.addr.af == DPR_AF_IP6 && p.len == 128 && p.addr.ip6[0] == 0xfe &&
	      p.addr.ip6[15] == 1, "fe80::1 is a /128");
	CHECK_EQ(dpr_prefix_parse("::/0", false, &p, NULL, 0), 0);
	CHECK(p.addr.af == DPR_AF_IP6 && p.len == 0, "::/0");
	CHECK(strcmp(dpr_prefix_fmt(&p, buf, sizeof(buf)), "::/0") == 0, "%s", buf);
	/* Text forms: upper case, leading zeros, embedded IPv4; printed
	 * back in RFC 5952 form. */
	CHECK_EQ(dpr_prefix_parse("2001:DB8:0:0::/48", false, &p, NULL, 0), 0);
	CHECK(strcmp(dpr_prefix_fmt(&p, buf, sizeof(buf)), "2001:db8::/48") == 0, "%s", buf);
	CHECK_EQ(dpr_prefix_parse("::ffff:192.0.2.1/128", false, &p, NULL, 0), 0);
	CHECK(p.addr.ip6[10] == 0xff && p.addr.ip6[12] == 192 && p.addr.ip6[15] == 1, "v4-mapped");
	/* Host bits past a length that is not a multiple of 8. */
	CHECK_EQ(dpr_prefix_parse("2001:db8:0:8::/60", false, &p, hint, sizeof(hint)), -EINVAL);
	CHECK(strcmp(hint, "2001:db8::/60") == 0, "hint %s", hint);
	CHECK_EQ(dpr_prefix_parse("2001:db8:0:8::/61", false, &p, NULL, 0), 0);
	CHECK_EQ(dpr_prefix_parse("2001:db8::1/127", true, &p, NULL, 0), 0);
	q = p;
	dpr_prefix_mask(&q);
	CHECK(q.addr.ip6[15] == 0 && q.len == 127, "/127 masks the last bit");
	/* Not prefixes. */
	CHECK_EQ(dpr_prefix_parse("2001:db8::/", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("2001:db8:::/32", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("2001:db8::g/128", false, &p, NULL, 0), -EINVAL);
	CHECK_EQ(dpr_prefix_parse("fe80::1%eth0", false, &p, NULL, 0), -EINVAL);
	/* fe80::/10 holds fe80:: to febf::, not fec0::. */
	dpr_prefix_parse("fe80::/10", false, &p, NULL, 0);
	dpr_ip_parse("febf::1", &ip);
	CHECK(dpr_prefix_contains(&p, &ip), "febf::1 is link-local");
	dpr_ip_parse("fec0::1", &ip);
	CHECK(!dpr_prefix_contains(&p, &ip), "fec0::1 is not");
	/* Equality ignores nothing of an IPv6 address. */
	dpr_ip_parse("2001:db8::1", &ip);
	dpr_ip_parse("2001:db8::1", &q.addr);
	CHECK(dpr_ip_equal(&ip, &q.addr), "equal");
	dpr_ip_parse("2001:db8::1:0:0:1", &q.addr);
	CHECK(!dpr_ip_equal(&ip, &q.addr), "differ in the middle");
	dpr_ip_parse("10.0.0.1", &q.addr);
	CHECK(!dpr_ip_equal(&ip, &q.addr), "families differ");
}

static void
test_macs(void)
{
	struct rte_ether_addr m;

	CHECK_EQ(dpr_mac_parse("02:00:00:00:01:0a", &m), 0);
	CHECK(m.addr_bytes[0] == 2 && m.addr_bytes[5] == 0x0a, "bytes");
	CHECK_EQ(dpr_mac_parse("02-00-00-00-01-0A", &m), 0);
	CHECK_EQ(dpr_mac_parse("02:00:00:00:01", &m), -EINVAL);
	CHECK_EQ(dpr_mac_parse("02:00:00:00:01:0g", &m), -EINVAL);
	CHECK_EQ(dpr_mac_parse("02:00:00:00:01:0a:", &m), -EINVAL);
	CHECK_EQ(dpr_mac_parse("0200.0000.010a.", &m), -EINVAL);
}

static struct dpr_prefix
P(const char *s)
{
	struct dpr_prefix p;

	CHECK_EQ(dpr_prefix_parse(s, true, &p, NULL, 0), 0);
	return p;
}

static struct dpr_ip
I(const char *s)
{
	struct dpr_ip ip;

	CHECK_EQ(dpr_ip_parse(s, &ip), 0);
	return ip;
}

/*
 * lib/ifaddr: each connected subnet on one port; link-local addresses
 * scoped to their port (RFC 4007 6) and on every link; the subnet-router
 * anycast address (RFC 4291 2.6.1); the source address (RFC 1812 4.3.2.4).
 */
static void
test_ifaddr(void)
{
	static struct dpr_ifaddrs t;
	struct dpr_ifaddr_clash c = { 9, 9 };
	struct dpr_prefix a, b;
	struct dpr_ip ip, src, want;
	char buf[DPR_IP6_STRLEN];
	unsigned int i, n;

	dpr_ifaddr_init(&t, 3);
	a = P("10.0.1.1/24");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0);
	a = P("2001:db8:1::1/64");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0);
	a = P("fe80::1/64");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0);
	a = P("10.0.2.1/24");
	CHECK_EQ(dpr_ifaddr_add(&t, 1, &a, NULL), 0);
	/* The same link-local address on another port is fine; fe80::/64 is
	 * on every link. */
	a = P("fe80::1/64");
	CHECK_EQ(dpr_ifaddr_add(&t, 1, &a, NULL), 0);
	a = P("10.0.1.1/25");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, &c), -EEXIST);
	CHECK(c.port == 0 && c.index == 0, "clash with p0's first (%u, %u)", c.port, c.index);
	a = P("10.0.0.9/16");
	CHECK_EQ(dpr_ifaddr_add(&t, 1, &a, &c), -EINVAL);
	CHECK(c.port == 0 && c.index == 0, "overlap with 10.0.1.1/24 (%u, %u)", c.port, c.index);
	a = P("10.0.1.2/24");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0); /* same subnet, same port */
	CHECK_EQ(dpr_ifaddr_add(&t, 7, &a, NULL), -ENODEV);

	ip = I("10.0.1.2");
	CHECK(dpr_ifaddr_on(&t, 0, &ip) && !dpr_ifaddr_on(&t, 1, &ip), "10.0.1.2 on p0 only");
	CHECK_EQ(dpr_ifaddr_owner(&t, 0, &ip), 0);
	ip = I("10.0.2.1");
	CHECK_EQ(dpr_ifaddr_owner(&t, 0, &ip), 1);
	ip = I("10.0.2.77");
	CHECK_EQ(dpr_ifaddr_owner(&t, 0, &ip), -1);
	CHECK_EQ(dpr_ifaddr_connected(&t, 0, &ip, -1), 1);
	CHECK_EQ(dpr_ifaddr_connected(&t, 0, &ip, 0), -1);
	ip = I("fe80::77");
	CHECK_EQ(dpr_ifaddr_connected(&t, 0, &ip, 2), 2);
	CHECK_EQ(dpr_ifaddr_connected(&t, 0, &ip, -1), -1);
	ip = I("fe80::1");
	CHECK(dpr_ifaddr_on(&t, 1, &ip) && !dpr_ifaddr_on(&t, 2, &ip), "fe80::1 on p0, p1, not p2");

	ip = I("2001:db8:1::");
	CHECK(dpr_ifaddr_anycast_on(&t, 0, &ip) && !dpr_ifaddr_anycast_on(&t, 1, &ip),
	      "2001:db8:1:: is p0's subnet-router anycast address");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, -1) != NULL, "the anycast address is no neighbour");
	ip = I("fe80::");
	CHECK(!dpr_ifaddr_anycast_on(&t, 0, &ip), "no anycast address on fe80::/64");
	ip = I("10.0.1.255");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, -1) != NULL, "broadcast is no neighbour");
	ip = I("10.0.1.1");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, -1) != NULL, "our own is no neighbour");
	ip = I("ff02::1");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, -1) != NULL, "multicast is no neighbour");
	ip = I("10.0.1.77");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, -1) == NULL, "10.0.1.77 can be a neighbour");
	/* fe80::1 is ours on p0 and p1; on p2's link, another host's. */
	ip = I("fe80::1");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, 1) != NULL, "fe80::1 is ours on p1");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, -1) != NULL, "fe80::1 is ours on some link");
	CHECK(dpr_ifaddr_not_a_neighbour(&t, 0, &ip, 2) == NULL, "fe80::1 on p2's link is a host");

	/* Sources: on the peer's subnet; else the port's first; else any
	 * port's; link-local to a link-local peer. */
	ip = I("10.0.1.77");
	CHECK(dpr_ifaddr_source(&t, 0, &ip, &src) == 0 && src.ip4 == I("10.0.1.1").ip4,
	      "to 10.0.1.77 from 10.0.1.1");
	ip = I("192.0.2.1");
	CHECK(dpr_ifaddr_source(&t, 1, &ip, &src) == 0 && src.ip4 == I("10.0.2.1").ip4,
	      "to 192.0.2.1 from p1's 10.0.2.1");
	CHECK(dpr_ifaddr_source(&t, 2, &ip, &src) == 0 && src.ip4 == I("10.0.1.1").ip4,
	      "p2 has none: any port's");
	ip = I("2001:db8:9::1");
	want = I("2001:db8:1::1");
	CHECK(dpr_ifaddr_source(&t, 1, &ip, &src) == 0 && dpr_ip_equal(&src, &want),
	      "IPv6 from p1, which has no global one: p0's (%s)", dpr_ip_fmt(&src, buf, sizeof(buf)));
	ip = I("fe80::99");
	want = I("fe80::1");
	CHECK(dpr_ifaddr_source(&t, 1, &ip, &src) == 0 && dpr_ip_equal(&src, &want),
	      "link-local to link-local");
	CHECK_EQ(dpr_ifaddr_source(&t, 2, &ip, &src), -ENOENT);

	a = P("10.0.1.2/24");
	CHECK_EQ(dpr_ifaddr_del(&t, 0, &a), 0);
	CHECK_EQ(dpr_ifaddr_del(&t, 0, &a), -ENOENT);
	a = P("10.0.1.1/25");
	CHECK_EQ(dpr_ifaddr_del(&t, 0, &a), -ENOENT); /* the length is part of it */

	/* IPv4 on a router with IPv6 only (RFC 8950's unnumbered links): no
	 * source, never a link-local IPv6 one read as IPv4. */
	dpr_ifaddr_init(&t, 1);
	a = P("fe80::1/64");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0);
	ip = I("192.0.2.1");
	CHECK_EQ(dpr_ifaddr_source(&t, 0, &ip, &src), -ENOENT);
	ip = I("2001:db8:9::1");
	want = I("fe80::1");
	CHECK(dpr_ifaddr_source(&t, 0, &ip, &src) == 0 && dpr_ip_equal(&src, &want),
	      "IPv6 with no global one: the link-local one");

	/* Full: one place stays for the link-local address. */
	dpr_ifaddr_init(&t, 1);
	for (i = 0; i < DPR_IFADDR_MAX_PER_PORT - 1; i++) {
		struct dpr_prefix h = { .addr = { .af = DPR_AF_IP4, .ip4 = 0x0a000001 + i },
					.len = 32 };

		CHECK_EQ(dpr_ifaddr_add(&t, 0, &h, NULL), 0);
	}
	a = P("192.0.2.1/32");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), -ENOSPC);
	a = P("fe80::1/64");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0);
	dpr_ifaddr_list(&t, 0, &n);
	CHECK_EQ(n, DPR_IFADDR_MAX_PER_PORT);
	/* A port as the config leaves it (its 16 and its link-local one)
	 * takes back an address addr.del took away. */
	a = P("10.0.0.1/32");
	CHECK_EQ(dpr_ifaddr_del(&t, 0, &a), 0);
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), 0);
	b = P("192.0.2.1/32");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &b, NULL), -ENOSPC);
	/* Without its link-local one, the last place is still that one's. */
	a = P("fe80::1/64");
	CHECK_EQ(dpr_ifaddr_del(&t, 0, &a), 0);
	a = P("192.0.2.1/32");
	CHECK_EQ(dpr_ifaddr_add(&t, 0, &a, NULL), -ENOSPC);
}

/* Listen addresses (fpm.listen, metrics.listen). */
static void
test_sockaddr(void)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	CHECK_EQ(dpr_sockaddr_parse("127.0.0.1:9111", -1, &ss, &sl), 0);
	CHECK(ss.ss_family == AF_INET && dpr_sockaddr_port(&ss) == 9111, "v4");
	CHECK_EQ(dpr_sockaddr_parse("[::1]:9111", -1, &ss, &sl), 0);
	CHECK(ss.ss_family == AF_INET6 && dpr_sockaddr_port(&ss) == 9111, "v6");
	CHECK_EQ(dpr_sockaddr_parse("127.0.0.1", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("::1", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("[::1]", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("127.0.0.1", 2620, &ss, &sl), 0);
	CHECK_EQ(dpr_sockaddr_port(&ss), 2620);
	CHECK_EQ(dpr_sockaddr_parse("::1", 2620, &ss, &sl), 0);
	CHECK(ss.ss_family == AF_INET6 && dpr_sockaddr_port(&ss) == 2620, "bare v6");
	CHECK_EQ(dpr_sockaddr_parse("localhost:9111", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("127.0.0.1:65536", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("127.0.0.1:-1", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("127.0.0.1:", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse("[::1]x", -1, &ss, &sl), -EINVAL);
	CHECK_EQ(dpr_sockaddr_parse(":9111", -1, &ss, &sl), -EINVAL);
}

int
main(void)
{
	test_prefixes();
	test_prefixes6();
	test_macs();
	test_ifaddr();
	test_sockaddr();
	printf("test_addr: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
