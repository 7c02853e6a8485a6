/* SPDX-License-Identifier: BSD-3-Clause */
/* Address, prefix and MAC parsing as the config and control API use it. */
#include <errno.h>
#include <string.h>

#include "test.h"
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

int
main(void)
{
	test_prefixes();
	test_prefixes6();
	test_macs();
	printf("test_addr: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
