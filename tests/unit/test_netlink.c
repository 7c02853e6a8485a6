/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/netlink: rtnetlink route and next-hop decoding and FPM framing, on
 * messages built with libmnl the way zebra 8.4 (dplane_fpm_nl) and the
 * kernel send them, on malformed ones (each rejected with its reason), and
 * on 100k random mutations of valid frames (no crash, no read past the
 * buffer under ASan, and every rejection says why).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "test.h"
#include "netlink/netlink.h"

#define CHECK_ERR(err, want) CHECK(strcmp((err), (want)) == 0, "err \"%s\", want \"%s\"", \
				   (err), (want))

/* Message buffers, 4-byte aligned as a reader's would be. */
static uint32_t msg_buf[2048];
static uint32_t msg_buf2[2048];
static char err[256];

static struct nlmsghdr *
route_msg(void *buf, uint16_t type, uint8_t family, uint8_t dst_len, uint8_t rtype)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = dst_len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BGP;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = rtype;
	return nlh;
}

static struct rtmsg *
rtm_of(struct nlmsghdr *nlh)
{
	return mnl_nlmsg_get_payload(nlh);
}

static void
put_ip(struct nlmsghdr *nlh, uint16_t type, int family, const char *s)
{
	uint8_t a[16];

	if (inet_pton(family, s, a) != 1)
		abort();
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

static void
put_via(struct nlmsghdr *nlh, int family, const char *s)
{
	struct {
		struct rtvia v;
		uint8_t a[16];
	} via = { .v.rtvia_family = (uint16_t)family };

	if (inet_pton(family, s, via.a) != 1)
		abort();
	mnl_attr_put(nlh, RTA_VIA, sizeof(via.v) + (family == AF_INET ? 4 : 16), &via);
}

static struct dpr_ip
ip(const char *s)
{
	struct dpr_ip a;

	if (dpr_ip_parse(s, &a) != 0)
		abort();
	return a;
}

/* Start one struct rtnexthop at the message's tail; rtnh_end() closes it. */
static struct rtnexthop *
rtnh_start(struct nlmsghdr *nlh, uint8_t hops, uint8_t flags, int ifindex)
{
	struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);

	memset(rtnh, 0, sizeof(*rtnh));
	rtnh->rtnh_hops = hops;
	rtnh->rtnh_flags = flags;
	rtnh->rtnh_ifindex = ifindex;
	nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
	return rtnh;
}

static void
rtnh_end(struct nlmsghdr *nlh, struct rtnexthop *rtnh)
{
	rtnh->rtnh_len = (uint16_t)((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)rtnh);
}

static struct nlmsghdr *
nh_msg(void *buf, uint16_t type, uint8_t family, uint32_t id)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nhmsg *nhm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE;
	nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	nhm->nh_family = family;
	nhm->nh_protocol = RTPROT_ZEBRA;
	if (id != 0)
		mnl_attr_put_u32(nlh, NHA_ID, id);
	return nlh;
}

static int
route(const struct nlmsghdr *nlh, struct dpr_nl_route *r)
{
	return dpr_nl_route_parse(nlh, r, err, sizeof(err));
}

static int
nexthop(const struct nlmsghdr *nlh, struct dpr_nl_nexthop *nh)
{
	return dpr_nl_nexthop_parse(nlh, nh, err, sizeof(err));
}

/* What zebra sends without next-hop groups, and the kernel for a plain route. */
static void
test_unicast(void)
{
	struct dpr_nl_route r;
	struct dpr_ip a6 = ip("2001:db8:1::");
	struct nlmsghdr *nlh;

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 16, RTN_UNICAST);
	rtm_of(nlh)->rtm_flags = RTNH_F_ONLINK;
	put_ip(nlh, RTA_DST, AF_INET, "10.1.0.0");
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "192.0.2.1");
	mnl_attr_put_u32(nlh, RTA_OIF, 7);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_ERR(err, "");
	CHECK(!r.del, "new");
	CHECK_EQ(r.prefix.addr.af, DPR_AF_IP4);
	CHECK_EQ(r.prefix.addr.ip4, 0x0a010000);
	CHECK_EQ(r.prefix.len, 16);
	CHECK_EQ(r.table, RT_TABLE_MAIN);
	CHECK_EQ(r.protocol, RTPROT_BGP);
	CHECK_EQ(r.type, RTN_UNICAST);
	CHECK_EQ(r.scope, RT_SCOPE_UNIVERSE);
	CHECK_EQ(r.priority, 20);
	CHECK_EQ(r.nhg_id, 0);
	CHECK_EQ(r.n_nh, 1);
	CHECK_EQ(r.nh[0].gw.af, DPR_AF_IP4);
	CHECK_EQ(r.nh[0].gw.ip4, 0xc0000201);
	CHECK_EQ(r.nh[0].ifindex, 7);
	CHECK_EQ(r.nh[0].weight, 1);
	CHECK_EQ(r.nh[0].flags, RTNH_F_ONLINK);
	CHECK_EQ(r.nh[0].encap_type, 0);
	CHECK_EQ(r.prefsrc.af, 0);
	CHECK_EQ(r.metrics, 0);

	/* The same with src 10.0.1.1 and mtu 1400, then mtu 1500: what
	 * tells kernel routes apart (the kernel mirror's identity). */
	put_ip(nlh, RTA_PREFSRC, AF_INET, "10.0.1.1");
	{
		struct nlattr *nest = mnl_attr_nest_start(nlh, RTA_METRICS);
		struct dpr_nl_route r2;

		mnl_attr_put_u32(nlh, RTAX_MTU, 1400);
		mnl_attr_nest_end(nlh, nest);
		CHECK_EQ(route(nlh, &r), 0);
		CHECK(dpr_ip_equal(&r.prefsrc, &(struct dpr_ip){ .af = DPR_AF_IP4,
								 .ip4 = 0x0a000101 }), "prefsrc");
		CHECK(r.metrics != 0, "metrics");
		mnl_attr_put_u32(nlh, RTA_METRICS, 0); /* the last of a type wins */
		CHECK_EQ(route(nlh, &r2), 0);
		CHECK(r2.metrics != 0 && r2.metrics != r.metrics, "other metrics");
	}

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 48, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET6, "2001:db8:1::");
	put_ip(nlh, RTA_GATEWAY, AF_INET6, "fe80::1");
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_MPLS);
	mnl_attr_put_u32(nlh, RTA_UID, 1000); /* ignored */
	CHECK_EQ(route(nlh, &r), 0);
	CHECK(dpr_ip_equal(&r.prefix.addr, &a6), "IPv6 prefix");
	CHECK_EQ(r.prefix.len, 48);
	CHECK_EQ(r.n_nh, 1);
	CHECK(r.nh[0].gw.af == DPR_AF_IP6 && r.nh[0].gw.ip6[0] == 0xfe &&
	      r.nh[0].gw.ip6[1] == 0x80 && r.nh[0].gw.ip6[15] == 1, "fe80::1");
	CHECK_EQ(r.nh[0].ifindex, 3);
	CHECK_EQ(r.nh[0].encap_type, LWTUNNEL_ENCAP_MPLS);

	/* The kernel leaves RTA_DST out of a default route; a connected
	 * route has an interface and no gateway. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK(r.prefix.addr.af == DPR_AF_IP4 && r.prefix.addr.ip4 == 0 && r.prefix.len == 0,
	      "0.0.0.0/0");
	CHECK_EQ(r.n_nh, 1);
	CHECK_EQ(r.nh[0].gw.af, 0);
	CHECK_EQ(r.nh[0].ifindex, 2);

	/* A host route. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 128, RTN_LOCAL);
	put_ip(nlh, RTA_DST, AF_INET6, "2001:db8::1");
	rtm_of(nlh)->rtm_table = RT_TABLE_LOCAL;
	rtm_of(nlh)->rtm_protocol = RTPROT_KERNEL;
	rtm_of(nlh)->rtm_scope = RT_SCOPE_HOST;
	mnl_attr_put_u32(nlh, RTA_OIF, 9);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.type, RTN_LOCAL);
	CHECK_EQ(r.scope, RT_SCOPE_HOST);
	CHECK_EQ(r.protocol, RTPROT_KERNEL);
	CHECK_EQ(r.table, RT_TABLE_LOCAL);
	CHECK_EQ(r.prefix.addr.ip6[15], 1);
	CHECK_EQ(r.prefix.len, 128);

	/* RFC 5549 from the kernel: an IPv4 route through an IPv6 neighbour. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "198.51.100.0");
	put_via(nlh, AF_INET6, "fe80::2");
	mnl_attr_put_u32(nlh, RTA_OIF, 4);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.n_nh, 1);
	CHECK(r.nh[0].gw.af == DPR_AF_IP6 && r.nh[0].gw.ip6[0] == 0xfe && r.nh[0].gw.ip6[15] == 2,
	      "via inet6 fe80::2");
	CHECK_EQ(r.nh[0].ifindex, 4);

	/* RFC 8950 as an IPv6 address in RTA_GATEWAY itself, in a multipath
	 * hop beside an IPv4 one. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "198.51.100.0");
	{
		struct nlattr *nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
		struct rtnexthop *h = rtnh_start(nlh, 0, 0, 4);

		put_ip(nlh, RTA_GATEWAY, AF_INET6, "fe80::3");
		rtnh_end(nlh, h);
		h = rtnh_start(nlh, 0, 0, 5);
		put_ip(nlh, RTA_GATEWAY, AF_INET, "192.0.2.9");
		rtnh_end(nlh, h);
		mnl_attr_nest_end(nlh, nest);
	}
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.n_nh, 2);
	CHECK(r.nh[0].gw.af == DPR_AF_IP6 && r.nh[0].gw.ip6[15] == 3, "gateway fe80::3");
	CHECK(r.nh[1].gw.af == DPR_AF_IP4 && r.nh[1].gw.ip4 == 0xc0000209, "gateway 192.0.2.9");
}

static void
test_multipath(void)
{
	struct dpr_nl_route r;
	struct nlmsghdr *nlh;
	struct rtnexthop *rtnh;
	struct nlattr *nest;
	uint8_t blob[256];
	size_t off = 0;
	int k;

	/* With NLA_F_NESTED in the type, as zebra and libmnl's nest helpers
	 * build it. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 8, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "10.0.0.0");
	nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh = rtnh_start(nlh, 0, 0, 11);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "192.0.2.1");
	rtnh_end(nlh, rtnh);
	rtnh = rtnh_start(nlh, 4, RTNH_F_LINKDOWN, 12);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "192.0.2.2");
	mnl_attr_put_u32(nlh, RTA_FLOW, 5); /* ignored */
	rtnh_end(nlh, rtnh);
	rtnh = rtnh_start(nlh, 255, 0, 13);
	put_via(nlh, AF_INET6, "fe80::3");
	rtnh_end(nlh, rtnh);
	mnl_attr_nest_end(nlh, nest);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_ERR(err, "");
	CHECK_EQ(r.prefix.addr.ip4, 0x0a000000);
	CHECK_EQ(r.n_nh, 3);
	CHECK_EQ(r.nh[0].gw.ip4, 0xc0000201);
	CHECK_EQ(r.nh[0].ifindex, 11);
	CHECK_EQ(r.nh[0].weight, 1);
	CHECK_EQ(r.nh[0].flags, 0);
	CHECK_EQ(r.nh[1].gw.ip4, 0xc0000202);
	CHECK_EQ(r.nh[1].ifindex, 12);
	CHECK_EQ(r.nh[1].weight, 5);
	CHECK_EQ(r.nh[1].flags, RTNH_F_LINKDOWN);
	CHECK_EQ(r.nh[2].gw.af, DPR_AF_IP6);
	CHECK_EQ(r.nh[2].gw.ip6[15], 3);
	CHECK_EQ(r.nh[2].ifindex, 13);
	CHECK_EQ(r.nh[2].weight, 256);

	/* Without NLA_F_NESTED (the kernel's and iproute2's form; zebra's
	 * nl_attr_nest sets it, as libmnl does above), IPv6, 16 hops: the
	 * most dpr takes. */
	memset(blob, 0, sizeof(blob));
	for (k = 0; k < DPR_NL_MAX_NH; k++) {
		rtnh = (struct rtnexthop *)(blob + off);
		rtnh->rtnh_len = sizeof(*rtnh);
		rtnh->rtnh_hops = (uint8_t)k;
		rtnh->rtnh_ifindex = 100 + k;
		off += RTNH_ALIGN(sizeof(*rtnh));
	}
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_MULTIPATH, off, blob);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.n_nh, DPR_NL_MAX_NH);
	CHECK_EQ(r.nh[15].ifindex, 115);
	CHECK_EQ(r.nh[15].weight, 16);
	CHECK_EQ(r.nh[15].gw.af, 0);
	CHECK_EQ(r.prefix.addr.af, DPR_AF_IP6);
}

/* zebra: blackhole routes never use next-hop objects; the type says what to do. */
static void
test_blackhole(void)
{
	static const uint8_t types[] = { RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT };
	struct dpr_nl_route r;
	struct nlmsghdr *nlh;
	unsigned int k;

	for (k = 0; k < RTE_DIM(types); k++) {
		nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, types[k]);
		put_ip(nlh, RTA_DST, AF_INET, "203.0.113.0");
		mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
		CHECK_EQ(route(nlh, &r), 0);
		CHECK_EQ(r.type, types[k]);
		CHECK_EQ(r.n_nh, 0);
		CHECK_EQ(r.nhg_id, 0);
		CHECK_EQ(r.prefix.addr.ip4, 0xcb007100);
	}
}

static void
test_nh_id(void)
{
	struct dpr_nl_route r;
	struct nlmsghdr *nlh;

	/* zebra 8.4's default (fpm use-next-hop-groups): the id alone. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	nlh->nlmsg_flags |= NLM_F_REPLACE;
	put_ip(nlh, RTA_DST, AF_INET, "192.0.2.0");
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	mnl_attr_put_u32(nlh, RTA_NH_ID, 42);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.nhg_id, 42);
	CHECK_EQ(r.n_nh, 0);

	/* The kernel with nexthop_compat_mode 1: the id and its expansion. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "192.0.2.0");
	mnl_attr_put_u32(nlh, RTA_NH_ID, 43);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "198.51.100.1");
	mnl_attr_put_u32(nlh, RTA_OIF, 5);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.nhg_id, 43);
	CHECK_EQ(r.n_nh, 1);
	CHECK_EQ(r.nh[0].gw.ip4, 0xc6336401);
}

/* zebra's RTM_DELROUTE: RTA_DST and RTA_PRIORITY, rtm_type RTN_UNSPEC. */
static void
test_del(void)
{
	struct dpr_nl_route r;
	struct dpr_nl_nexthop nh;
	struct nlmsghdr *nlh;

	nlh = route_msg(msg_buf, RTM_DELROUTE, AF_INET6, 32, RTN_UNSPEC);
	put_ip(nlh, RTA_DST, AF_INET6, "2001:db8::");
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK(r.del, "del");
	CHECK_EQ(r.type, RTN_UNSPEC);
	CHECK_EQ(r.n_nh, 0);
	CHECK_EQ(r.prefix.len, 32);
	CHECK(r.prefix.addr.ip6[0] == 0x20 && r.prefix.addr.ip6[3] == 0xb8, "2001:db8::/32");

	nlh = nh_msg(msg_buf, RTM_DELNEXTHOP, AF_UNSPEC, 77);
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK(nh.del, "del");
	CHECK_EQ(nh.id, 77);
	CHECK_EQ(nh.af, 0);
	CHECK_EQ(nh.n_grp, 0);
}

/* zebra puts a table id under 256 in rtm_table, a bigger one in RTA_TABLE. */
static void
test_table(void)
{
	struct dpr_nl_route r;
	struct nlmsghdr *nlh;

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, RTA_TABLE, 1000);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.table, 1000);

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = 100;
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.table, 100);

	/* The kernel sends both; RTA_TABLE has the whole id. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = RT_TABLE_COMPAT;
	mnl_attr_put_u32(nlh, RTA_TABLE, 70000);
	CHECK_EQ(route(nlh, &r), 0);
	CHECK_EQ(r.table, 70000);
}

static void
test_nexthop(void)
{
	struct nexthop_grp g[3] = {
		{ .id = 10, .weight = 0 }, { .id = 11, .weight = 9 }, { .id = 12, .weight = 255 },
	};
	struct dpr_nl_nexthop nh;
	struct nlmsghdr *nlh;

	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 10);
	((struct nhmsg *)mnl_nlmsg_get_payload(nlh))->nh_flags = RTNH_F_ONLINK;
	put_ip(nlh, NHA_GATEWAY, AF_INET, "192.0.2.9");
	mnl_attr_put_u32(nlh, NHA_OIF, 6);
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK_ERR(err, "");
	CHECK(!nh.del, "new");
	CHECK_EQ(nh.id, 10);
	CHECK_EQ(nh.af, DPR_AF_IP4);
	CHECK_EQ(nh.protocol, RTPROT_ZEBRA);
	CHECK(!nh.blackhole, "not a blackhole");
	CHECK_EQ(nh.nh.gw.ip4, 0xc0000209);
	CHECK_EQ(nh.nh.ifindex, 6);
	CHECK_EQ(nh.nh.flags, RTNH_F_ONLINK);
	CHECK_EQ(nh.nh.weight, 1);
	CHECK_EQ(nh.n_grp, 0);

	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET6, 11);
	put_ip(nlh, NHA_GATEWAY, AF_INET6, "fe80::11");
	mnl_attr_put_u32(nlh, NHA_OIF, 6);
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK_EQ(nh.af, DPR_AF_IP6);
	CHECK(nh.nh.gw.af == DPR_AF_IP6 && nh.nh.gw.ip6[15] == 0x11, "fe80::11");

	/* NEXTHOP_TYPE_IFINDEX: the interface alone. */
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 12);
	mnl_attr_put_u32(nlh, NHA_OIF, 8);
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK_EQ(nh.nh.gw.af, 0);
	CHECK_EQ(nh.nh.ifindex, 8);

	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 13);
	mnl_attr_put(nlh, NHA_BLACKHOLE, 0, "");
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK(nh.blackhole, "blackhole");

	/* A group: family unspecified, members weighted. */
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 100);
	mnl_attr_put(nlh, NHA_GROUP, sizeof(g), g);
	mnl_attr_put_u16(nlh, NHA_GROUP_TYPE, NEXTHOP_GRP_TYPE_MPATH);
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK_EQ(nh.id, 100);
	CHECK_EQ(nh.af, 0);
	CHECK_EQ(nh.n_grp, 3);
	CHECK(nh.grp[0].id == 10 && nh.grp[0].weight == 1, "member 1");
	CHECK(nh.grp[1].id == 11 && nh.grp[1].weight == 10, "member 2");
	CHECK(nh.grp[2].id == 12 && nh.grp[2].weight == 256, "member 3");
}

/* One case of a message each decoder must refuse. */
#define REJECT(call, rc, reason) do { \
		CHECK_EQ((call), (rc)); \
		CHECK_ERR(err, (reason)); \
	} while (0)

static void
test_bad_routes(void)
{
	struct dpr_nl_route r;
	struct nlmsghdr *nlh;
	struct rtnexthop *rtnh;
	struct nlattr *nest, *a;
	uint8_t blob[512];
	int k;

	nlh = route_msg(msg_buf, RTM_NEWLINK, AF_INET, 0, RTN_UNICAST);
	REJECT(route(nlh, &r), -EINVAL, "message type 16 is not a route");

	/* Truncated: an nlmsg_len too short for the header that follows. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	nlh->nlmsg_len = 20;
	REJECT(route(nlh, &r), -EBADMSG, "nlmsg_len 20 too short for struct rtmsg");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, 7, 0, RTN_UNICAST);
	REJECT(route(nlh, &r), -EAFNOSUPPORT, "route family 7 is neither IPv4 nor IPv6");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_MPLS, 20, RTN_UNICAST);
	REJECT(route(nlh, &r), -EAFNOSUPPORT, "route family 28 (MPLS) is neither IPv4 nor IPv6");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 33, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "10.0.0.0");
	REJECT(route(nlh, &r), -EBADMSG, "prefix length 33 for IPv4");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 129, RTN_UNICAST);
	REJECT(route(nlh, &r), -EBADMSG, "prefix length 129 for IPv6");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_DST, 3, "\x0a\x00\x00");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_DST length 3 for IPv4");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 64, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "10.0.0.0");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_DST length 4 for IPv6");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 64, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET6, "2001:db8::");
	put_ip(nlh, RTA_GATEWAY, AF_INET, "10.0.0.1");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_GATEWAY length 4 for IPv6");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	REJECT(route(nlh, &r), -EBADMSG, "RTA_DST missing for a /24");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 8, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET, "10.0.0.1");
	REJECT(route(nlh, &r), -EBADMSG, "prefix 10.0.0.1/8 has bits set past its length");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 60, RTN_UNICAST);
	put_ip(nlh, RTA_DST, AF_INET6, "2001:db8:0:8::");
	REJECT(route(nlh, &r), -EBADMSG, "prefix 2001:db8:0:8::/60 has bits set past its length");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 0, RTN_UNICAST);
	rtm_of(nlh)->rtm_src_len = 64;
	REJECT(route(nlh, &r), -EOPNOTSUPP, "source-specific route (from a /64) is not supported");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put_u16(nlh, RTA_OIF, 2);
	REJECT(route(nlh, &r), -EBADMSG, "RTA_OIF length 2, want 4");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put_u64(nlh, RTA_TABLE, 1);
	REJECT(route(nlh, &r), -EBADMSG, "RTA_TABLE length 8, want 4");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_NH_ID, 0);
	REJECT(route(nlh, &r), -EBADMSG, "RTA_NH_ID 0");

	/* An attribute longer than the message: RTA_DST is the last 8 bytes. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 8, RTN_UNICAST);
	a = mnl_nlmsg_get_payload_tail(nlh);
	put_ip(nlh, RTA_DST, AF_INET, "10.0.0.0");
	a->nla_len = 200;
	REJECT(route(nlh, &r), -EBADMSG,
	       "attribute type 1: length 200 runs past the end (8 bytes left)");
	a->nla_len = 2;
	REJECT(route(nlh, &r), -EBADMSG, "attribute type 1: length 2 shorter than its header");
	a->nla_len = 8;
	nlh->nlmsg_len += 2;
	REJECT(route(nlh, &r), -EBADMSG, "2 stray bytes after the attributes");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "10.0.0.1");
	put_via(nlh, AF_INET6, "fe80::1");
	REJECT(route(nlh, &r), -EBADMSG, "both RTA_GATEWAY and RTA_VIA");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_VIA, 6, "\x1c\x00\x01\x02\x03\x04");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_VIA family 28 is neither IPv4 nor IPv6");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_VIA, 6, "\x0a\x00\x01\x02\x03\x04");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_VIA length 6 for IPv6, want 18");
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_VIA, 1, "\x02");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_VIA length 1 too short for its family");

	/* RTA_MULTIPATH: empty, mixed with a single path, a hop cut short,
	 * a hop longer than the attribute, a bad gateway in hop 2. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_MULTIPATH, 0, "");
	REJECT(route(nlh, &r), -EBADMSG, "RTA_MULTIPATH holds no next hop");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 1);
	nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh_end(nlh, rtnh_start(nlh, 0, 0, 1));
	mnl_attr_nest_end(nlh, nest);
	REJECT(route(nlh, &r), -EBADMSG,
	       "RTA_MULTIPATH together with RTA_GATEWAY, RTA_VIA or RTA_OIF");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh_end(nlh, rtnh_start(nlh, 0, 0, 1));
	rtnh = rtnh_start(nlh, 0, 0, 2);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "192.0.2.1");
	rtnh_end(nlh, rtnh);
	mnl_attr_nest_end(nlh, nest);
	CHECK_EQ(route(nlh, &r), 0);
	rtnh->rtnh_len = 40;
	REJECT(route(nlh, &r), -EBADMSG,
	       "RTA_MULTIPATH: hop 2: rtnh_len 40 past the attribute (16 bytes left)");
	rtnh->rtnh_len = 4;
	REJECT(route(nlh, &r), -EBADMSG,
	       "RTA_MULTIPATH: hop 2: rtnh_len 4 shorter than struct rtnexthop");
	memset(blob, 0, sizeof(blob));
	((struct rtnexthop *)blob)->rtnh_len = sizeof(*rtnh);
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_MULTIPATH, sizeof(*rtnh) + 4, blob);
	REJECT(route(nlh, &r), -EBADMSG, "RTA_MULTIPATH: 4 stray bytes after hop 1");

	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh_end(nlh, rtnh_start(nlh, 0, 0, 1));
	rtnh = rtnh_start(nlh, 0, 0, 2);
	mnl_attr_put(nlh, RTA_GATEWAY, 8, blob);
	rtnh_end(nlh, rtnh);
	mnl_attr_nest_end(nlh, nest);
	REJECT(route(nlh, &r), -EBADMSG, "RTA_MULTIPATH hop 2: RTA_GATEWAY length 8 for IPv4");

	/* An attribute inside a hop running past the hop. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh = rtnh_start(nlh, 0, 0, 2);
	a = mnl_nlmsg_get_payload_tail(nlh);
	put_ip(nlh, RTA_GATEWAY, AF_INET, "192.0.2.1");
	rtnh_end(nlh, rtnh);
	mnl_attr_nest_end(nlh, nest);
	a->nla_len = 12;
	REJECT(route(nlh, &r), -EBADMSG,
	       "RTA_MULTIPATH hop 1: attribute type 5: length 12 runs past the end (8 bytes left)");

	/* 17 hops. */
	memset(blob, 0, sizeof(blob));
	for (k = 0; k <= DPR_NL_MAX_NH; k++) {
		rtnh = (struct rtnexthop *)(blob + k * sizeof(*rtnh));
		rtnh->rtnh_len = sizeof(*rtnh);
		rtnh->rtnh_ifindex = k + 1;
	}
	nlh = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 0, RTN_UNICAST);
	mnl_attr_put(nlh, RTA_MULTIPATH, (DPR_NL_MAX_NH + 1) * sizeof(*rtnh), blob);
	REJECT(route(nlh, &r), -E2BIG, "more than 16 next hops");

	/* A reason that does not fit is cut, never overrun; err may be NULL. */
	nlh = route_msg(msg_buf, RTM_NEWROUTE, 7, 0, RTN_UNICAST);
	memset(err, 'x', sizeof(err));
	CHECK_EQ(dpr_nl_route_parse(nlh, &r, err, 6), -EAFNOSUPPORT);
	CHECK(strcmp(err, "route") == 0 && err[6] == 'x', "cut to 6: %.8s", err);
	CHECK_EQ(dpr_nl_route_parse(nlh, &r, NULL, 0), -EAFNOSUPPORT);
}

static void
test_bad_nexthops(void)
{
	struct nexthop_grp g[DPR_NL_MAX_NH + 1];
	struct dpr_nl_nexthop nh;
	struct nlmsghdr *nlh;
	unsigned int k;

	for (k = 0; k < RTE_DIM(g); k++)
		g[k] = (struct nexthop_grp){ .id = k + 1 };

	nlh = nh_msg(msg_buf, RTM_NEWROUTE, AF_INET, 1);
	REJECT(nexthop(nlh, &nh), -EINVAL, "message type 24 is not a next hop");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 1);
	nlh->nlmsg_len = 20;
	REJECT(nexthop(nlh, &nh), -EBADMSG, "nlmsg_len 20 too short for struct nhmsg");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_MPLS, 1);
	REJECT(nexthop(nlh, &nh), -EAFNOSUPPORT, "next-hop family 28 is neither IPv4 nor IPv6");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 0);
	mnl_attr_put_u32(nlh, NHA_OIF, 1);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_ID missing");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 0);
	mnl_attr_put_u32(nlh, NHA_ID, 0);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_ID 0");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 0);
	mnl_attr_put_u16(nlh, NHA_ID, 5);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_ID length 2, want 4");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 5);
	REJECT(nexthop(nlh, &nh), -EBADMSG,
	       "next hop 5 has neither NHA_GROUP, NHA_BLACKHOLE, NHA_GATEWAY nor NHA_OIF");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 5);
	put_ip(nlh, NHA_GATEWAY, AF_INET6, "fe80::1");
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_GATEWAY length 16 for IPv4");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 5);
	put_ip(nlh, NHA_GATEWAY, AF_INET, "10.0.0.1");
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_GATEWAY in a next hop of no family");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 5);
	mnl_attr_put_u32(nlh, NHA_BLACKHOLE, 1);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_BLACKHOLE length 4, want 0");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 5);
	mnl_attr_put(nlh, NHA_BLACKHOLE, 0, "");
	mnl_attr_put_u32(nlh, NHA_OIF, 1);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_BLACKHOLE together with NHA_GATEWAY or NHA_OIF");

	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, 12, g);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_GROUP length 12 is not a positive multiple of 8");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, 0, "");
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_GROUP length 0 is not a positive multiple of 8");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, sizeof(g), g);
	REJECT(nexthop(nlh, &nh), -E2BIG, "NHA_GROUP: more than 16 next hops (17)");
	g[1].id = 0;
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, 3 * sizeof(g[0]), g);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_GROUP member 2: id 0");
	g[1].id = 1;
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, 3 * sizeof(g[0]), g);
	REJECT(nexthop(nlh, &nh), -EBADMSG, "NHA_GROUP member 2: id 1 listed twice");
	g[1].id = 2;
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, 3 * sizeof(g[0]), g);
	mnl_attr_put_u32(nlh, NHA_OIF, 1);
	REJECT(nexthop(nlh, &nh), -EBADMSG,
	       "NHA_GROUP together with NHA_GATEWAY, NHA_OIF or NHA_BLACKHOLE");
	nlh = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 50);
	mnl_attr_put(nlh, NHA_GROUP, DPR_NL_MAX_NH * sizeof(g[0]), g);
	CHECK_EQ(nexthop(nlh, &nh), 0);
	CHECK_EQ(nh.n_grp, DPR_NL_MAX_NH);
	CHECK_EQ(nh.grp[15].id, 16);
}

/* An FPM frame around @p n messages (packed back to back, as zebra does). */
static size_t
fpm_frame(uint8_t *out, const struct nlmsghdr *const *m, unsigned int n)
{
	size_t len = DPR_FPM_HDR_LEN;
	unsigned int k;

	for (k = 0; k < n; k++) {
		memcpy(out + len, m[k], m[k]->nlmsg_len);
		len += MNL_ALIGN(m[k]->nlmsg_len);
	}
	out[0] = DPR_FPM_VERSION;
	out[1] = DPR_FPM_TYPE_NETLINK;
	out[2] = (uint8_t)(len >> 8);
	out[3] = (uint8_t)len;
	return len;
}

static void
test_fpm(void)
{
	static uint32_t stream_words[1024];
	uint8_t *stream = (uint8_t *)stream_words;
	const struct nlmsghdr *m[2], *got;
	const uint8_t *payload, *p;
	struct nlmsghdr *del, *add;
	struct dpr_nl_route r;
	size_t plen, left, f1, f2;
	uint8_t hdr[4];

	/* zebra 8.4's route update: RTM_DELROUTE then RTM_NEWROUTE, one frame. */
	del = route_msg(msg_buf, RTM_DELROUTE, AF_INET, 24, RTN_UNSPEC);
	put_ip(del, RTA_DST, AF_INET, "192.0.2.0");
	mnl_attr_put_u32(del, RTA_PRIORITY, 20);
	add = route_msg(msg_buf2, RTM_NEWROUTE, AF_INET, 24, RTN_UNICAST);
	add->nlmsg_flags |= NLM_F_REPLACE;
	put_ip(add, RTA_DST, AF_INET, "192.0.2.0");
	mnl_attr_put_u32(add, RTA_PRIORITY, 20);
	mnl_attr_put_u32(add, RTA_NH_ID, 9);
	m[0] = del;
	m[1] = add;
	f1 = fpm_frame(stream, m, 2);
	CHECK_EQ(f1, 4 + del->nlmsg_len + add->nlmsg_len);

	/* A second frame right behind it: one message. */
	f2 = fpm_frame(stream + f1, &m[1], 1);

	CHECK_EQ(dpr_fpm_frame(stream, 0, &payload, &plen, err, sizeof(err)), 0);
	CHECK_EQ(dpr_fpm_frame(stream, 3, &payload, &plen, err, sizeof(err)), 0);
	CHECK_EQ(dpr_fpm_frame(stream, 4, &payload, &plen, err, sizeof(err)), 0);
	CHECK_EQ(dpr_fpm_frame(stream, f1 - 1, &payload, &plen, err, sizeof(err)), 0);
	CHECK_ERR(err, "");
	CHECK_EQ(dpr_fpm_frame(stream, f1 + f2, &payload, &plen, err, sizeof(err)), (int)f1);
	CHECK(payload == stream + 4, "payload after the header");
	CHECK_EQ(plen, f1 - 4);

	p = payload;
	left = plen;
	CHECK_EQ(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), 1);
	CHECK(got == (const void *)(stream + 4), "first message");
	CHECK_EQ(route(got, &r), 0);
	CHECK(r.del && r.prefix.addr.ip4 == 0xc0000200 && r.prefix.len == 24, "the delete");
	CHECK_EQ(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), 1);
	CHECK_EQ(route(got, &r), 0);
	CHECK(!r.del && r.nhg_id == 9 && r.prefix.addr.ip4 == 0xc0000200, "the add");
	CHECK_EQ(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), 0);
	CHECK_EQ(left, 0);

	CHECK_EQ(dpr_fpm_frame(stream + f1, f2, &payload, &plen, err, sizeof(err)), (int)f2);
	CHECK_EQ(plen, add->nlmsg_len);
	p = payload;
	left = plen;
	CHECK_EQ(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), 1);
	CHECK_EQ(got->nlmsg_type, RTM_NEWROUTE);
	CHECK_EQ(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), 0);

	memcpy(hdr, "\x02\x01\x00\x08", 4);
	REJECT(dpr_fpm_frame(hdr, 4, &payload, &plen, err, sizeof(err)), -EPROTO,
	       "FPM version 2, want 1");
	memcpy(hdr, "\x01\x02\x00\x08", 4);
	REJECT(dpr_fpm_frame(hdr, 4, &payload, &plen, err, sizeof(err)), -EPROTO,
	       "FPM message type 2 (protobuf) is not netlink (1)");
	memcpy(hdr, "\x01\x01\x00\x03", 4);
	REJECT(dpr_fpm_frame(hdr, 4, &payload, &plen, err, sizeof(err)), -EBADMSG,
	       "FPM length 3 shorter than its header");
	memcpy(hdr, "\x01\x01\x00\x06", 4);
	REJECT(dpr_fpm_frame(hdr, 4, &payload, &plen, err, sizeof(err)), -EBADMSG,
	       "FPM length 6 is not a multiple of 4");
	/* An empty frame is framing, not an error; a 64 KiB one fits. */
	memcpy(hdr, "\x01\x01\x00\x04", 4);
	CHECK_EQ(dpr_fpm_frame(hdr, 4, &payload, &plen, err, sizeof(err)), 4);
	CHECK_EQ(plen, 0);
	memcpy(hdr, "\x01\x01\xff\xfc", 4);
	CHECK_EQ(dpr_fpm_frame(hdr, 4, &payload, &plen, err, sizeof(err)), 0);

	/* Messages that do not fit their payload. */
	p = stream + 4;
	left = 40;
	REJECT(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), -EBADMSG,
	       "nlmsg_len 44 runs past the buffer (40 bytes left)");
	left = 8;
	REJECT(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), -EBADMSG,
	       "8 bytes left, too few for a netlink header");
	/* libmnl's mnl_nlmsg_ok() alone takes this one (it compares as int). */
	left = 64;
	((struct nlmsghdr *)(stream + 4))->nlmsg_len = 0x80000010;
	REJECT(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), -EBADMSG,
	       "nlmsg_len 2147483664 runs past the buffer (64 bytes left)");
	del->nlmsg_len = 12;
	p = (const uint8_t *)del;
	left = 64;
	REJECT(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), -EBADMSG,
	       "nlmsg_len 12 shorter than its header");
	p = stream + 2;
	CHECK_EQ(dpr_nl_msg_next(&p, &left, &got, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not 4-byte aligned") != NULL, "%s", err);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Parse every message of every frame in @p buf; count outcomes. */
static void
parse_all(const uint8_t *buf, size_t len, unsigned int *ok, unsigned int *bad)
{
	const struct nlmsghdr *nlh;
	struct dpr_nl_nexthop nh;
	struct dpr_nl_route r;
	const uint8_t *payload;
	size_t plen;
	int rc;

	while ((rc = dpr_fpm_frame(buf, len, &payload, &plen, err, sizeof(err))) > 0) {
		buf += rc;
		len -= rc;
		while ((rc = dpr_nl_msg_next(&payload, &plen, &nlh, err, sizeof(err))) > 0) {
			if (nlh->nlmsg_type == RTM_NEWNEXTHOP || nlh->nlmsg_type == RTM_DELNEXTHOP)
				rc = dpr_nl_nexthop_parse(nlh, &nh, err, sizeof(err));
			else
				rc = dpr_nl_route_parse(nlh, &r, err, sizeof(err));
			CHECK(rc == 0 ? err[0] == '\0' : err[0] != '\0', "rc %d err \"%s\"", rc,
			      err);
			*(rc == 0 ? ok : bad) += 1;
		}
		CHECK(rc == 0 ? err[0] == '\0' : err[0] != '\0', "msg rc %d err \"%s\"", rc, err);
		if (rc < 0)
			*bad += 1;
	}
	CHECK(rc == 0 ? err[0] == '\0' : err[0] != '\0', "frame rc %d err \"%s\"", rc, err);
	if (rc < 0)
		*bad += 1;
}

/*
 * 100k mutations of valid frames, each copied into a heap buffer of its
 * exact length so ASan sees any read past it. Some mutations keep the
 * FPM and netlink lengths consistent, so the attribute decoders get
 * garbage, not only the framing.
 */
static void
test_mutations(void)
{
	static uint8_t corpus[8][1024] __attribute__((aligned(4)));
	struct nexthop_grp g[3] = { { .id = 1 }, { .id = 2, .weight = 3 }, { .id = 3 } };
	const struct nlmsghdr *m[3];
	struct nlmsghdr *a, *b, *c;
	struct rtnexthop *rtnh;
	struct nlattr *nest;
	unsigned int ok = 0, bad = 0, i, k, n;
	int failures;
	size_t len[8], l, off;
	uint8_t *buf;

	a = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 8, RTN_UNICAST);
	put_ip(a, RTA_DST, AF_INET, "10.0.0.0");
	mnl_attr_put_u32(a, RTA_TABLE, 1000);
	nest = mnl_attr_nest_start(a, RTA_MULTIPATH);
	for (k = 0; k < 3; k++) {
		rtnh = rtnh_start(a, (uint8_t)k, 0, (int)k + 1);
		put_ip(a, RTA_GATEWAY, AF_INET, "192.0.2.1");
		rtnh_end(a, rtnh);
	}
	rtnh = rtnh_start(a, 0, 0, 4);
	put_via(a, AF_INET6, "fe80::1");
	rtnh_end(a, rtnh);
	mnl_attr_nest_end(a, nest);
	b = route_msg(msg_buf2, RTM_DELROUTE, AF_INET6, 64, RTN_UNSPEC);
	put_ip(b, RTA_DST, AF_INET6, "2001:db8::");
	mnl_attr_put_u32(b, RTA_PRIORITY, 20);
	m[0] = b;
	m[1] = a;
	len[0] = fpm_frame(corpus[0], m, 2);

	a = route_msg(msg_buf, RTM_NEWROUTE, AF_INET6, 48, RTN_UNICAST);
	put_ip(a, RTA_DST, AF_INET6, "2001:db8:1::");
	put_ip(a, RTA_GATEWAY, AF_INET6, "fe80::1");
	mnl_attr_put_u32(a, RTA_OIF, 3);
	mnl_attr_put_u32(a, RTA_NH_ID, 8);
	m[0] = a;
	len[1] = fpm_frame(corpus[1], m, 1);

	a = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_UNSPEC, 9);
	mnl_attr_put(a, NHA_GROUP, sizeof(g), g);
	b = nh_msg(msg_buf2, RTM_NEWNEXTHOP, AF_INET6, 1);
	put_ip(b, NHA_GATEWAY, AF_INET6, "fe80::9");
	mnl_attr_put_u32(b, NHA_OIF, 2);
	m[0] = b;
	m[1] = a;
	len[2] = fpm_frame(corpus[2], m, 2);

	a = nh_msg(msg_buf, RTM_NEWNEXTHOP, AF_INET, 4);
	mnl_attr_put(a, NHA_BLACKHOLE, 0, "");
	b = nh_msg(msg_buf2, RTM_DELNEXTHOP, AF_UNSPEC, 4);
	m[0] = a;
	m[1] = b;
	len[3] = fpm_frame(corpus[3], m, 2);

	c = route_msg(msg_buf, RTM_NEWROUTE, AF_INET, 24, RTN_BLACKHOLE);
	put_ip(c, RTA_DST, AF_INET, "203.0.113.0");
	mnl_attr_put_u32(c, RTA_PRIORITY, 20);
	m[0] = c;
	len[4] = fpm_frame(corpus[4], m, 1);
	/* Two frames back to back in one read. */
	memcpy(corpus[5], corpus[4], len[4]);
	memcpy(corpus[5] + len[4], corpus[1], len[1]);
	len[5] = len[4] + len[1];

	/* The corpus itself parses clean. */
	for (i = 0; i < 6; i++)
		parse_all(corpus[i], len[i], &ok, &bad);
	CHECK_EQ(bad, 0);
	CHECK_EQ(ok, 10);

	failures = test_failures;
	ok = bad = 0;
	for (i = 0; i < 100000 && test_failures == failures; i++) {
		k = rnd() % 6;
		l = len[k];
		buf = malloc(l);
		memcpy(buf, corpus[k], l);
		for (n = 1 + rnd() % 4; n > 0; n--) {
			off = rnd() % l;
			switch (rnd() % 5) {
			case 0: /* a random byte */
				buf[off] = (uint8_t)rnd();
				break;
			case 1: /* a bit */
				buf[off] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			case 2: /* a small value in a 16-bit length field */
				off &= ~(size_t)3;
				buf[off] = (uint8_t)(rnd() % 64);
				if (off + 1 < l)
					buf[off + 1] = 0;
				break;
			case 3: /* cut the frame short, FPM length to match */
				l = (off + 4) & ~(size_t)3;
				if (l > len[k])
					l = len[k];
				buf[2] = (uint8_t)(l >> 8);
				buf[3] = (uint8_t)l;
				break;
			default: /* a small nlmsg_len in the first message */
				if (l >= 8)
					buf[4] = (uint8_t)(rnd() % 80);
				break;
			}
		}
		/* Exactly l bytes: ASan catches any read past them. */
		buf = realloc(buf, l);
		parse_all(buf, l, &ok, &bad);
		free(buf);
	}
	CHECK_EQ(i, 100000);
	/* Both outcomes happen: the harness mutates, and not everything dies. */
	CHECK(ok > 1000 && bad > 1000, "ok %u bad %u", ok, bad);
	printf("test_netlink: mutations: %u messages decoded, %u rejected\n", ok, bad);
}

int
main(void)
{
	test_unicast();
	test_multipath();
	test_blackhole();
	test_nh_id();
	test_del();
	test_table();
	test_nexthop();
	test_bad_routes();
	test_bad_nexthops();
	test_fpm();
	test_mutations();
	printf("test_netlink: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
