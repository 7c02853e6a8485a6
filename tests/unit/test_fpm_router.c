/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fpm/fpm_router.c: zebra's routes as routes of source fpm. The test
 * plays zebra over TCP against a router rig (tests/unit/rig.h) whose port
 * p0's "TAP" is lo, so zebra's ifindex 1 names p0: each route kind becomes
 * its next hop, each refusal is counted and withdraws the prefix, the
 * frames of one read are one batch, api routes win, and a disconnect marks
 * the routes stale until the sweep removes those not sent again. Port p2
 * is in VRF red (table 100) with p0's subnet: routes of table 100 go to
 * red's rib, resolved on p2; a table of no VRF is ignored.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

/* The clock moved by hand (clock_skew.h), so that the grace period is shown
 * to follow CLOCK_MONOTONIC and not the TSC, which this test cannot move
 * and a VM's host can. */
#include "clock_skew.h"
#include "test.h"
#include "rig.h"
#include "api/rpc.h"
#include "api/server.h"
#include "fpm/fpm_router.h"

#define FRR_RTPROT_ZSTATIC 196
#define SOCK_PATH "/tmp/dpr-test-fpm-router.sock"

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"tap\": \"lo\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]},"
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"vrf\": \"red\","
	"  \"addresses\": [\"10.0.1.1/24\"]}],"
	" \"vrfs\": [{\"name\": \"red\", \"table\": 100}],"
	" \"fpm\": {\"listen\": \"127.0.0.1\", \"grace_s\": 0},"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256}}";

static struct dpr_router R;
static uint16_t fpm_port;
static int zebra = -1;


/* ---- frames, as zebra 8.4 builds them (see test_fpm.c) ---- */

struct frame {
	uint32_t words[1 << 14];
	size_t len, start;
};

static uint8_t *
fbytes(struct frame *fr)
{
	return (uint8_t *)fr->words;
}

static void
frame_begin(struct frame *fr)
{
	fr->start = fr->len;
	fr->len += 4;
}

static void
frame_end(struct frame *fr)
{
	uint8_t *h = fbytes(fr) + fr->start;
	size_t l = fr->len - fr->start;

	h[0] = 1;
	h[1] = 1;
	h[2] = (uint8_t)(l >> 8);
	h[3] = (uint8_t)l;
}

/* The table of the routes built next (zebra's VRF table id). */
static uint32_t cur_table = RT_TABLE_MAIN;
/* Their rtm_protocol (RTPROT_KERNEL: zebra's connected and kernel routes). */
static uint8_t cur_proto = FRR_RTPROT_ZSTATIC;

static struct nlmsghdr *
route_begin(struct frame *fr, uint16_t type, const char *dst, uint8_t len, uint8_t rtype)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fbytes(fr) + fr->len);
	int family = strchr(dst, ':') ? AF_INET6 : AF_INET;
	struct rtmsg *rtm;
	uint8_t a[16];

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE |
			   (type == RTM_NEWROUTE ? NLM_F_REPLACE : 0);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = len;
	rtm->rtm_table = cur_table < 256 ? (uint8_t)cur_table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = cur_proto;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = type == RTM_NEWROUTE ? rtype : RTN_UNSPEC;
	if (inet_pton(family, dst, a) != 1)
		abort();
	mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, a);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	if (cur_table != RT_TABLE_MAIN)
		mnl_attr_put_u32(nlh, RTA_TABLE, cur_table);
	return nlh;
}

static void
put_gw(struct nlmsghdr *nlh, const char *gw)
{
	int family = strchr(gw, ':') ? AF_INET6 : AF_INET;
	uint8_t a[16];

	if (inet_pton(family, gw, a) != 1)
		abort();
	mnl_attr_put(nlh, RTA_GATEWAY, family == AF_INET ? 4 : 16, a);
}

/* A gateway of the other family than the route's, as RTA_VIA (RFC 8950:
 * an IPv6 one for an IPv4 route; the reverse means nothing). */
static void
put_via(struct nlmsghdr *nlh, const char *gw)
{
	uint16_t family = strchr(gw, ':') ? AF_INET6 : AF_INET;
	uint8_t v[2 + 16];

	memcpy(v, &family, 2);
	if (inet_pton(family, gw, v + 2) != 1)
		abort();
	mnl_attr_put(nlh, RTA_VIA, 2 + (family == AF_INET ? 4 : 16), v);
}

static void
msg_done(struct frame *fr, struct nlmsghdr *nlh)
{
	fr->len += MNL_ALIGN(nlh->nlmsg_len);
}

/* One frame: a route with one path (@p gw NULL: an interface route). */
static void
add1(struct frame *fr, const char *dst, uint8_t len, const char *gw, uint32_t oif)
{
	struct nlmsghdr *nlh;

	frame_begin(fr);
	nlh = route_begin(fr, RTM_NEWROUTE, dst, len, RTN_UNICAST);
	if (gw != NULL && (strchr(gw, ':') == NULL) != (strchr(dst, ':') == NULL))
		put_via(nlh, gw);
	else if (gw != NULL)
		put_gw(nlh, gw);
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	msg_done(fr, nlh);
	frame_end(fr);
}

/* One frame: a route over @p n paths (a NULL gateway: an interface path). */
static void
add_mp(struct frame *fr, const char *dst, uint8_t len, unsigned int n,
       const char *const *gw, const uint32_t *oif, const uint8_t *weight)
{
	struct nlmsghdr *nlh;
	struct nlattr *mp;
	unsigned int i;

	frame_begin(fr);
	nlh = route_begin(fr, RTM_NEWROUTE, dst, len, RTN_UNICAST);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	for (i = 0; i < n; i++) {
		struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);

		memset(rtnh, 0, sizeof(*rtnh));
		rtnh->rtnh_ifindex = (int)oif[i];
		rtnh->rtnh_hops = (uint8_t)(weight[i] - 1);
		nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
		if (gw[i] != NULL)
			put_gw(nlh, gw[i]);
		rtnh->rtnh_len = (uint16_t)((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)rtnh);
	}
	mnl_attr_nest_end(nlh, mp);
	msg_done(fr, nlh);
	frame_end(fr);
}

static void
add_typed(struct frame *fr, const char *dst, uint8_t len, uint8_t rtype)
{
	frame_begin(fr);
	msg_done(fr, route_begin(fr, RTM_NEWROUTE, dst, len, rtype));
	frame_end(fr);
}

static void
del(struct frame *fr, const char *dst, uint8_t len)
{
	frame_begin(fr);
	msg_done(fr, route_begin(fr, RTM_DELROUTE, dst, len, 0));
	frame_end(fr);
}

/* ---- zebra's side ---- */

/* Let the control loop serve what is there (a few rounds: accept, then read). */
static void
serve(void)
{
	int i;

	for (i = 0; i < 5; i++)
		dpr_server_poll(R.server, 20);
}

static void
zebra_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(fpm_port) };

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	zebra = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(zebra >= 0 && connect(zebra, (struct sockaddr *)&sa, sizeof(sa)) == 0,
	      "connect to the FPM port %u: %s", fpm_port, strerror(errno));
	serve();
}

static void
zebra_close(void)
{
	close(zebra);
	zebra = -1;
	serve();
}

/* Send all the frames of @p fr in one write, let dpr read them, start over. */
static void
send_frames(struct frame *fr)
{
	CHECK(write(zebra, fbytes(fr), fr->len) == (ssize_t)fr->len, "write: %s", strerror(errno));
	serve();
	fr->len = 0;
}

/* ---- what dpr made of it ---- */

static json_t *stats;

static json_int_t
st(const char *key)
{
	json_t *v;

	json_decref(stats);
	stats = dpr_fpm_router_stats_json(&R);
	v = json_object_get(stats, key);
	return json_integer_value(v);
}

static json_int_t
st2(const char *obj, const char *key)
{
	st(obj);
	return json_integer_value(json_object_get(json_object_get(stats, obj), key));
}

static bool
is_connected(void)
{
	st("connected");
	return json_is_true(json_object_get(stats, "connected"));
}

/* VRF @p vrf's FIB's next hop for @p text, or -1 when it has no route there. */
static long
vrf_fib_nh(unsigned int vrf, const char *text)
{
	struct dpr_prefix pf;
	uint32_t nh;

	if (dpr_prefix_parse(text, false, &pf, NULL, 0) < 0)
		abort();
	return dpr_route_get(R.vrfs[vrf].rib, &pf, &nh) == 0 ? (long)nh : -1;
}

/* The FIB's next hop for @p text ("10.77.0.0/16"), or -1 when it has no route there. */
static long
fib_nh(const char *text)
{
	return vrf_fib_nh(0, text);
}

/* stats.get's fpm.vrfs.VRF.KEY */
static json_int_t
st_vrf(const char *vrf, const char *key)
{
	st("vrfs");
	return json_integer_value(json_object_get(json_object_get(json_object_get(stats, "vrfs"),
								  vrf), key));
}

static int
nh_of(const char *gw, int port)
{
	struct dpr_ip ip;

	if (dpr_ip_parse(gw, &ip) < 0)
		abort();
	return dpr_nh_find_port(R.nh, &ip, port);
}

/* The connected next hop of @p port, no reference kept. */
static long
conn_of(int port)
{
	int idx = dpr_nh_connected(R.nh, (uint8_t)port);

	if (idx >= 0)
		dpr_nh_put(R.nh, (uint32_t)idx);
	return idx;
}

/* ---- the cases ---- */

static struct frame fr;

static void
test_kinds(void)
{
	static const char *const gws[] = { "10.0.1.2", "10.0.1.3", "10.0.1.2" };
	static const uint32_t oifs[] = { 1, 1, 1 };
	static const uint8_t weights[] = { 1, 2, 3 };
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t w[DPR_NH_GROUP_MEMBERS];
	json_int_t batches;
	unsigned int n;
	long nh;

	zebra_connect();
	CHECK(is_connected(), "zebra connected");
	batches = st("batches_applied");
	add1(&fr, "10.77.0.0", 16, "10.0.1.2", 1);
	add1(&fr, "2001:db8:77::", 48, "2001:db8:1::2", 1);
	add1(&fr, "10.55.0.0", 16, NULL, 1);
	add_mp(&fr, "10.88.0.0", 16, 3, gws, oifs, weights);
	add_typed(&fr, "10.99.0.0", 16, RTN_BLACKHOLE);
	add_typed(&fr, "10.98.0.0", 16, RTN_UNREACHABLE);
	add_typed(&fr, "10.97.0.0", 16, RTN_PROHIBIT);
	send_frames(&fr);
	CHECK_EQ(st("batches_applied"), batches + 1);
	CHECK_EQ(st("installed"), 7);
	CHECK_EQ(st("routes"), 7);

	CHECK(nh_of("10.0.1.2", 0) >= DPR_NH_FIRST_DYNAMIC, "gateway 10.0.1.2 has a next hop");
	CHECK_EQ(fib_nh("10.77.0.0/16"), nh_of("10.0.1.2", 0));
	CHECK_EQ(fib_nh("2001:db8:77::/48"), nh_of("2001:db8:1::2", 0));
	CHECK_EQ(fib_nh("10.55.0.0/16"), conn_of(0));
	nh = fib_nh("10.88.0.0/16");
	n = nh < 0 ? 0 : dpr_nh_group_members(R.nh, (uint32_t)nh, members, w);
	/* 10.0.1.2 twice: one member with the weights summed. */
	CHECK(n == 2 && ((members[0] == (uint32_t)nh_of("10.0.1.2", 0) && w[0] == 4 && w[1] == 2) ||
			 (members[1] == (uint32_t)nh_of("10.0.1.2", 0) && w[1] == 4 && w[0] == 2)),
	      "10.88.0.0/16 is a group of 10.0.1.2 (weight 4) and 10.0.1.3 (2): %u members", n);
	CHECK_EQ(fib_nh("10.99.0.0/16"), DPR_NH_BLACKHOLE);
	CHECK_EQ(dpr_nh_word_get(R.nh, DPR_NH_BLACKHOLE).kind, DPR_NH_KIND_BLACKHOLE);
	CHECK_EQ(fib_nh("10.98.0.0/16"), DPR_NH_NONE);
	CHECK_EQ(fib_nh("10.97.0.0/16"), DPR_NH_NONE);

	/* A delete; zebra's update (delete and add in one frame) is a plain replace. */
	del(&fr, "10.98.0.0", 16);
	frame_begin(&fr);
	msg_done(&fr, route_begin(&fr, RTM_DELROUTE, "10.77.0.0", 16, 0));
	{
		struct nlmsghdr *nlh = route_begin(&fr, RTM_NEWROUTE, "10.77.0.0", 16, RTN_UNICAST);

		put_gw(nlh, "10.0.1.3");
		mnl_attr_put_u32(nlh, RTA_OIF, 1);
		msg_done(&fr, nlh);
	}
	frame_end(&fr);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.98.0.0/16"), -1);
	CHECK_EQ(fib_nh("10.77.0.0/16"), nh_of("10.0.1.3", 0));
	CHECK_EQ(st("withdrawn"), 2);
	CHECK_EQ(st("routes"), 6);
}

/*
 * RFC 8950: IPv4 routes through IPv6 neighbours, as RTA_VIA (the kernel's
 * way), as an RTA_GATEWAY of 16 bytes, and as a multipath member beside
 * an IPv4 gateway: each next hop is the IPv6 neighbour's, the same one an
 * IPv6 route through it has.
 */
static void
test_v4_via_v6(void)
{
	static const char *const gws[] = { "10.0.1.3", "fe80::2" };
	static const uint32_t oifs[] = { 1, 1 };
	static const uint8_t weights[] = { 1, 1 };
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t w[DPR_NH_GROUP_MEMBERS];
	struct nlmsghdr *nlh;
	unsigned int n;
	long nh;

	add1(&fr, "10.81.0.0", 16, "fe80::2", 1);
	frame_begin(&fr);
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.82.0.0", 16, RTN_UNICAST);
	put_gw(nlh, "2001:db8:1::2");
	mnl_attr_put_u32(nlh, RTA_OIF, 1);
	msg_done(&fr, nlh);
	frame_end(&fr);
	add_mp(&fr, "10.83.0.0", 16, 2, gws, oifs, weights);
	add1(&fr, "2001:db8:81::", 48, "fe80::2", 1);
	send_frames(&fr);
	CHECK(nh_of("fe80::2", 0) >= DPR_NH_FIRST_DYNAMIC, "fe80::2 on p0 has a next hop");
	CHECK_EQ(fib_nh("10.81.0.0/16"), nh_of("fe80::2", 0));
	CHECK_EQ(fib_nh("2001:db8:81::/48"), nh_of("fe80::2", 0));
	CHECK_EQ(fib_nh("10.82.0.0/16"), nh_of("2001:db8:1::2", 0));
	nh = fib_nh("10.83.0.0/16");
	n = nh < 0 ? 0 : dpr_nh_group_members(R.nh, (uint32_t)nh, members, w);
	CHECK(n == 2 && (members[0] == (uint32_t)nh_of("fe80::2", 0) ||
			 members[1] == (uint32_t)nh_of("fe80::2", 0)),
	      "10.83.0.0/16 is a group holding fe80::2: %u members", n);
	CHECK_EQ(st2("refused", "gateway_family"), 0);
	del(&fr, "10.81.0.0", 16);
	del(&fr, "10.82.0.0", 16);
	del(&fr, "10.83.0.0", 16);
	del(&fr, "2001:db8:81::", 48);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.81.0.0/16"), -1);
}

static void
test_refused(void)
{
	static const char *const gws[] = { "10.0.1.2", NULL };
	static const uint32_t oifs[] = { 1, 1 };
	static const uint8_t weights[] = { 1, 1 };

	/* Each refusal withdraws what dpr held for the prefix: 10.77.0.0/16. */
	add1(&fr, "10.77.0.0", 16, "10.0.1.2", 9999);
	send_frames(&fr);
	CHECK_EQ(st2("refused", "interface_unknown"), 1);
	CHECK_EQ(fib_nh("10.77.0.0/16"), -1);
	CHECK(st("interface_map_refreshes") >= 3, "an unknown ifindex read the TAPs again");
	add1(&fr, "10.60.0.0", 16, "10.9.9.9", 1);
	add1(&fr, "2001:db8:61::", 48, "10.0.1.2", 1);
	add1(&fr, "10.62.0.0", 16, "10.0.1.1", 1);
	add1(&fr, "10.64.0.0", 16, "169.254.0.1", 1); /* zebra's RFC 5549 stand-in */
	add1(&fr, "10.0.1.7", 32, "10.0.1.7", 1);
	add_mp(&fr, "10.63.0.0", 16, 2, gws, oifs, weights);
	add1(&fr, "fe80::", 64, "2001:db8:1::2", 1);
	send_frames(&fr);
	CHECK_EQ(st2("refused", "gateway_not_connected"), 1);
	CHECK_EQ(st2("refused", "gateway_169_254_0_1"), 1);
	CHECK_EQ(st2("refused", "gateway_family"), 1);
	CHECK_EQ(st2("refused", "gateway_invalid"), 2);
	CHECK_EQ(st2("refused", "multipath_attached"), 1);
	CHECK_EQ(st2("refused", "link_local_prefix"), 1);
	CHECK_EQ(fib_nh("10.60.0.0/16") + fib_nh("2001:db8:61::/48") + fib_nh("10.62.0.0/16") +
		 fib_nh("10.63.0.0/16"), -4);
	/* Refused routes go as deletes of what dpr did not hold. */
	CHECK(st("withdrawn_unheld") >= 6, "refusals withdrawn");

	/* The router's own prefix: counted, not installed, held under the
	 * router's route (zebra's delete then finds it). */
	add1(&fr, "10.0.1.0", 24, "10.0.1.2", 1);
	send_frames(&fr);
	CHECK_EQ(st2("not_installed", "own_prefix"), 1);
	CHECK_EQ(fib_nh("10.0.1.0/24"), conn_of(0));
	{
		json_int_t w = st("withdrawn");

		del(&fr, "10.0.1.0", 24);
		send_frames(&fr);
		CHECK_EQ(st("withdrawn"), w + 1);
		CHECK_EQ(fib_nh("10.0.1.0/24"), conn_of(0));
	}
}

/*
 * Every multipath group in use: a multipath route from zebra goes over its
 * heaviest path, counted, rather than being withdrawn to whatever covers
 * its prefix; its next change gets a group once one is free.
 */
static void
test_groups_full(void)
{
	static const char *const gws[] = { "10.0.1.2", "10.0.1.4" };
	static const uint32_t oifs[] = { 1, 1 };
	static const uint8_t weights[] = { 1, 3 };
	static int many[DPR_NH_GROUPS_MAX];
	uint32_t gw[130], members[DPR_NH_GROUP_MEMBERS];
	uint16_t w[DPR_NH_GROUP_MEMBERS];
	unsigned int i, j, n = 0, base = dpr_nh_group_count(R.nh);
	json_int_t one = st("multipath_one_path");
	long nh;

	for (i = 0; i < 130; i++) {
		struct dpr_ip ip = { .af = DPR_AF_IP4, .ip4 = RTE_IPV4(10, 0, 9, 10 + i) };
		int g = dpr_nh_get(R.nh, &ip, 1);

		CHECK(g >= 0, "gateway %u", i);
		gw[i] = (uint32_t)g;
	}
	for (i = 0; i < 130 && n + base < DPR_NH_GROUPS_MAX; i++) {
		for (j = i + 1; j < 130 && n + base < DPR_NH_GROUPS_MAX; j++) {
			uint32_t pair[2] = { gw[i], gw[j] };

			many[n] = dpr_nh_group_get(R.nh, pair, NULL, 2);
			if (many[n] < 0)
				break;
			n++;
		}
	}
	CHECK_EQ(dpr_nh_group_count(R.nh), DPR_NH_GROUPS_MAX);

	add_mp(&fr, "10.66.0.0", 16, 2, gws, oifs, weights);
	send_frames(&fr);
	CHECK_EQ(st("multipath_one_path"), one + 1);
	nh = fib_nh("10.66.0.0/16");
	CHECK_EQ(nh, nh_of("10.0.1.4", 0));
	CHECK_EQ(st2("refused", "nexthop_table_full"), 0);

	/* A group freed: the route's next change is a group again. */
	dpr_nh_put(R.nh, (uint32_t)many[--n]);
	add_mp(&fr, "10.66.0.0", 16, 2, gws, oifs, weights);
	send_frames(&fr);
	nh = fib_nh("10.66.0.0/16");
	CHECK_EQ(nh < 0 ? 0 : dpr_nh_group_members(R.nh, (uint32_t)nh, members, w), 2);
	CHECK_EQ(st("multipath_one_path"), one + 1);

	del(&fr, "10.66.0.0", 16);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.66.0.0/16"), -1);
	while (n > 0)
		dpr_nh_put(R.nh, (uint32_t)many[--n]);
	for (i = 0; i < 130; i++)
		dpr_nh_put(R.nh, gw[i]);
	CHECK_EQ(dpr_nh_group_count(R.nh), base);
}

/* One JSON-RPC request on the router; 0 when it answered a result. */
static int
rpc(const char *text)
{
	char *out = dpr_rpc_handle_text(&R, text, strlen(text));
	int ok = out != NULL && strstr(out, "\"result\"") != NULL ? 0 : -1;

	CHECK(ok == 0, "%s: %s", text, out ? out : "no answer");
	free(out);
	return ok;
}

#define RIB_OK() do { \
	char why_[512] = ""; \
	CHECK(dpr_router_check(&R, why_, sizeof(why_)) == 0, "rib: %s", why_); \
} while (0)

/*
 * Issue 50, case 5: zebra's interface route and the connected subnet of
 * an address added after it share the port's connected next hop; zebra's
 * delete takes its own candidate, never the address's subnet. Then the
 * other way round, and an address over a gateway route that comes back.
 */
static void
test_interface_route(void)
{
	long conn;

	add1(&fr, "10.0.9.0", 24, NULL, 1);
	send_frames(&fr);
	conn = fib_nh("10.0.9.0/24");
	CHECK(conn >= DPR_NH_FIRST_DYNAMIC, "zebra's interface route");
	RIB_OK();
	rpc("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"addr.add\",\"params\":{\"port\":\"p0\",\"address\":\"10.0.9.1/24\"}}");
	RIB_OK();
	del(&fr, "10.0.9.0", 24);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.0.9.0/24"), conn);
	CHECK_EQ(fib_nh("10.0.9.1/32"), DPR_NH_LOCAL);
	RIB_OK();
	/* Address first: zebra's is held under it, its delete leaves it. */
	add1(&fr, "10.0.9.0", 24, NULL, 1);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.0.9.0/24"), conn);
	del(&fr, "10.0.9.0", 24);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.0.9.0/24"), conn);
	RIB_OK();
	/* zebra's gateway route there waits, and comes back with addr.del. */
	add1(&fr, "10.0.9.0", 24, "10.0.1.2", 1);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.0.9.0/24"), conn);
	rpc("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"addr.del\",\"params\":{\"port\":\"p0\",\"address\":\"10.0.9.1/24\"}}");
	CHECK_EQ(fib_nh("10.0.9.0/24"), nh_of("10.0.1.2", 0));
	CHECK_EQ(fib_nh("10.0.9.1/32"), -1);
	RIB_OK();
	del(&fr, "10.0.9.0", 24);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.0.9.0/24"), -1);
	RIB_OK();
}

/*
 * The differential check of issue 50 for FPM: random frames of route adds
 * (one path or two), replaces and deletes from "zebra", mixed with the
 * router's own addresses coming and going over the same prefixes; after
 * every write, each prefix's FIB entry is what zebra's last word and the
 * addresses say: the address's connected subnet, else zebra's gateway or
 * the group of its two gateways, else nothing. And the tables agree.
 */
#define DIFF_PF 12

static void
diff_prefix(unsigned int k, char *dst, size_t len, uint8_t *plen)
{
	if (k % 2) {
		snprintf(dst, len, "10.60.%u.0", k);
		*plen = 24;
	} else {
		snprintf(dst, len, "2001:db8:%x::", 0x600 + k);
		*plen = 48;
	}
}

static void
diff_gw(unsigned int k, unsigned int g, char *gw, size_t len)
{
	if (k % 2)
		snprintf(gw, len, "10.0.1.%u", 20 + g);
	else
		snprintf(gw, len, "2001:db8:1::%u", 20 + g);
}

static void
test_differential(unsigned int seed)
{
	unsigned int gw_a[DIFF_PF] = { 0 }, gw_b[DIFF_PF] = { 0 }; /* 0: none, else g + 1 */
	bool addr[DIFF_PF] = { false };
	unsigned int step, k, wrong = 0;
	static const uint8_t w11[2] = { 1, 1 };
	uint32_t oifs[2] = { 1, 1 };
	char dst[64], ga[64], gb[64], req[512], why[512];
	uint8_t plen;

	srandom(seed);
	for (step = 0; step < 120; step++) {
		unsigned int n = 1 + (unsigned int)random() % 5, i;

		if (random() % 6 == 0) {
			/* The router: an address over prefix k comes or goes. */
			k = (unsigned int)random() % DIFF_PF;
			diff_prefix(k, dst, sizeof(dst), &plen);
			snprintf(req, sizeof(req),
				 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"addr.%s\",\"params\":{\"port\":\"p0\",\"address\":\"%.*s1/%u\"}}",
				 addr[k] ? "del" : "add", (int)strlen(dst) - (k % 2 ? 1 : 0), dst, plen);
			rpc(req);
			addr[k] = !addr[k];
		} else {
			for (i = 0; i < n; i++) {
				unsigned int what = (unsigned int)random() % 3;
				unsigned int a = (unsigned int)random() % 4, b = (a + 1) % 4;

				k = (unsigned int)random() % DIFF_PF;
				diff_prefix(k, dst, sizeof(dst), &plen);
				diff_gw(k, a, ga, sizeof(ga));
				diff_gw(k, b, gb, sizeof(gb));
				if (what == 0) {
					del(&fr, dst, plen);
					gw_a[k] = gw_b[k] = 0;
				} else if (what == 1) {
					add1(&fr, dst, plen, ga, 1);
					gw_a[k] = a + 1;
					gw_b[k] = 0;
				} else {
					const char *gws[2] = { ga, gb };

					add_mp(&fr, dst, plen, 2, gws, oifs, w11);
					gw_a[k] = a + 1;
					gw_b[k] = b + 1;
				}
			}
			send_frames(&fr);
		}
		for (k = 0; k < DIFF_PF; k++) {
			long want = -1, got;
			char pfx[80];

			diff_prefix(k, dst, sizeof(dst), &plen);
			snprintf(pfx, sizeof(pfx), "%s/%u", dst, plen);
			got = fib_nh(pfx);
			if (addr[k]) {
				want = conn_of(0);
			} else if (gw_b[k] != 0) {
				uint32_t m[DPR_NH_GROUP_MEMBERS];
				uint16_t wt[DPR_NH_GROUP_MEMBERS];
				unsigned int nm = got >= 0 ? dpr_nh_group_members(R.nh, (uint32_t)got, m, wt) : 0;

				diff_gw(k, gw_a[k] - 1, ga, sizeof(ga));
				diff_gw(k, gw_b[k] - 1, gb, sizeof(gb));
				want = nm == 2 && ((m[0] == (uint32_t)nh_of(ga, 0) && m[1] == (uint32_t)nh_of(gb, 0)) ||
						   (m[1] == (uint32_t)nh_of(ga, 0) && m[0] == (uint32_t)nh_of(gb, 0))) ?
				       got : -2;
			} else if (gw_a[k] != 0) {
				diff_gw(k, gw_a[k] - 1, ga, sizeof(ga));
				want = nh_of(ga, 0);
			}
			if (got != want && wrong++ < 5)
				CHECK(false, "seed %u step %u: %s: FIB next hop %ld, want %ld", seed,
				      step, pfx, got, want);
		}
		if (dpr_router_check(&R, why, sizeof(why)) < 0 && wrong++ < 5)
			CHECK(false, "seed %u step %u: %s", seed, step, why);
	}
	CHECK_EQ(wrong, 0);
	/* Clean up: zebra's routes and the addresses go. */
	for (k = 0; k < DIFF_PF; k++) {
		diff_prefix(k, dst, sizeof(dst), &plen);
		del(&fr, dst, plen);
		if (addr[k]) {
			snprintf(req, sizeof(req),
				 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"addr.del\",\"params\":{\"port\":\"p0\",\"address\":\"%.*s1/%u\"}}",
				 (int)strlen(dst) - (k % 2 ? 1 : 0), dst, plen);
			rpc(req);
		}
	}
	send_frames(&fr);
	RIB_OK();
}

static void
test_api_wins(void)
{
	struct dpr_src_op op = { .nh = DPR_NH_BLACKHOLE };

	add1(&fr, "10.77.0.0", 16, "10.0.1.2", 1);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.77.0.0/16"), nh_of("10.0.1.2", 0));
	if (dpr_prefix_parse("10.77.0.0/16", false, &op.prefix, NULL, 0) < 0)
		abort();
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_API, &op, 1), 1);
	CHECK_EQ(fib_nh("10.77.0.0/16"), DPR_NH_BLACKHOLE);
	CHECK_EQ(st("routes_active"), st("routes") - 1);
	op.del = 1;
	CHECK_EQ(dpr_route_src_apply(&R.rib, DPR_RSRC_API, &op, 1), 1);
	CHECK_EQ(fib_nh("10.77.0.0/16"), nh_of("10.0.1.2", 0));
}

/*
 * zebra's best route for a prefix becomes a connected or kernel one
 * (RTPROT_KERNEL, which dpr does not install). FRR 9.1 and later (fpm
 * use-route-replace, their default) send that as one RTM_NEWROUTE that
 * replaces the old route: the route dpr held must go with it, or packets
 * keep going to the old gateway. Then the route comes back from zebra.
 */
static void
test_replaced_by_kernel(void)
{
	json_int_t ign = st2("ignored", "protocol_kernel");

	add1(&fr, "10.78.0.0", 16, "10.0.1.2", 1);
	add1(&fr, "2001:db8:78::", 48, "2001:db8:1::2", 1);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.78.0.0/16"), nh_of("10.0.1.2", 0));
	CHECK_EQ(fib_nh("2001:db8:78::/48"), nh_of("2001:db8:1::2", 0));
	cur_proto = RTPROT_KERNEL;
	add1(&fr, "10.78.0.0", 16, NULL, 1);
	add1(&fr, "2001:db8:78::", 48, NULL, 1);
	cur_proto = FRR_RTPROT_ZSTATIC;
	send_frames(&fr);
	CHECK_EQ(st2("ignored", "protocol_kernel"), ign + 2);
	CHECK_EQ(fib_nh("10.78.0.0/16"), -1);
	CHECK_EQ(fib_nh("2001:db8:78::/48"), -1);
	add1(&fr, "10.78.0.0", 16, "10.0.1.3", 1);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.78.0.0/16"), nh_of("10.0.1.3", 0));
	del(&fr, "10.78.0.0", 16);
	send_frames(&fr);
	CHECK_EQ(fib_nh("10.78.0.0/16"), -1);
}

/* Routes by table id: 254 the default VRF's, 100 red's, 200 no VRF's. */
static void
test_vrf(void)
{
	json_int_t ign = st2("ignored", "table"), inst = st("installed");

	/* The same prefix and gateway in two tables: two VRFs, two ports. */
	add1(&fr, "10.88.0.0", 16, "10.0.1.2", 1);
	cur_table = 100;
	add1(&fr, "10.88.0.0", 16, "10.0.1.2", 0);
	add1(&fr, "10.89.0.0", 16, "10.0.1.3", 0);
	cur_table = 200;
	add1(&fr, "10.90.0.0", 16, "10.0.1.2", 0);
	send_frames(&fr);
	CHECK_EQ(st("installed"), inst + 3);
	CHECK_EQ(st2("ignored", "table"), ign + 1);
	CHECK_EQ(fib_nh("10.88.0.0/16"), nh_of("10.0.1.2", 0));
	CHECK_EQ(vrf_fib_nh(1, "10.88.0.0/16"), nh_of("10.0.1.2", 2));
	CHECK(nh_of("10.0.1.2", 0) != nh_of("10.0.1.2", 2), "one next hop per VRF");
	CHECK_EQ(vrf_fib_nh(1, "10.89.0.0/16"), nh_of("10.0.1.3", 2));
	CHECK_EQ(fib_nh("10.89.0.0/16"), -1);
	CHECK_EQ(fib_nh("10.90.0.0/16") + vrf_fib_nh(1, "10.90.0.0/16"), -2);
	CHECK_EQ(st_vrf("red", "routes"), 2);
	CHECK_EQ(st_vrf("red", "table"), 100);
	CHECK_EQ(st_vrf("default", "table"), 254);

	/* Red's table naming p0's TAP (ifindex 1, the default VRF): refused,
	 * withdrawn from red only. */
	cur_table = 100;
	add1(&fr, "10.88.0.0", 16, "10.0.1.2", 1);
	send_frames(&fr);
	CHECK_EQ(st2("refused", "interface_other_vrf"), 1);
	CHECK_EQ(vrf_fib_nh(1, "10.88.0.0/16"), -1);
	CHECK_EQ(fib_nh("10.88.0.0/16"), nh_of("10.0.1.2", 0));
	/* A delete in red leaves the default VRF's route. */
	del(&fr, "10.89.0.0", 16);
	cur_table = RT_TABLE_MAIN;
	del(&fr, "10.88.0.0", 16);
	send_frames(&fr);
	CHECK_EQ(vrf_fib_nh(1, "10.89.0.0/16"), -1);
	CHECK_EQ(fib_nh("10.88.0.0/16"), -1);
	CHECK_EQ(st_vrf("red", "routes"), 0);
	/* One left in red for the stale test. */
	cur_table = 100;
	add1(&fr, "10.91.0.0", 16, "10.0.1.2", 0);
	cur_table = RT_TABLE_MAIN;
	send_frames(&fr);
	CHECK_EQ(vrf_fib_nh(1, "10.91.0.0/16"), nh_of("10.0.1.2", 2));
}

static void
test_stale(void)
{
	struct dpr_config *cfg = (struct dpr_config *)(uintptr_t)R.cfg;
	json_int_t held = st("routes"), in_ms;

	CHECK(held >= 5, "routes held before the disconnect: %lld", (long long)held);
	cfg->fpm.grace_s = 15;
	zebra_close();
	CHECK(!is_connected(), "zebra gone");
	CHECK_EQ(st("routes_stale"), held);
	CHECK_EQ(st("stale_marked_last"), held);
	CHECK_EQ(st_vrf("red", "routes_stale"), 1);
	CHECK_EQ(vrf_fib_nh(1, "10.91.0.0/16"), nh_of("10.0.1.2", 2));
	in_ms = st("sweep_in_ms");
	CHECK(in_ms > 14000 && in_ms <= 15000, "the sweep is due in grace_s (15 s): in %lld ms",
	      (long long)in_ms);
	CHECK_EQ(fib_nh("10.77.0.0/16"), nh_of("10.0.1.2", 0));

	/* zebra back: it replays one route. The sweep waits for the rest. */
	zebra_connect();
	add1(&fr, "10.77.0.0", 16, "10.0.1.2", 1);
	send_frames(&fr);
	CHECK_EQ(st("routes_stale"), held - 1);
	dpr_fpm_router_timers(&R);
	CHECK_EQ(st("sweeps"), 0);
	/* 14.5 s later on CLOCK_MONOTONIC, whatever the TSC says: not yet. */
	clock_skew_ns += UINT64_C(14500000000);
	dpr_fpm_router_timers(&R);
	CHECK_EQ(st("sweeps"), 0);
	CHECK_EQ(st("routes_stale"), held - 1);
	in_ms = st("sweep_in_ms");
	CHECK(in_ms >= 0 && in_ms <= 500, "the sweep is due within 0.5 s: in %lld ms", (long long)in_ms);
	/* 15.5 s: the grace period is over. */
	clock_skew_ns += UINT64_C(1000000000);
	dpr_fpm_router_timers(&R);
	CHECK_EQ(st("sweeps"), 1);
	CHECK_EQ(st("swept_last"), held - 1);
	CHECK_EQ(st("routes"), 1);
	CHECK_EQ(st("routes_stale"), 0);
	CHECK(json_is_null(json_object_get(stats, "sweep_in_ms")), "no sweep due");
	CHECK_EQ(fib_nh("10.77.0.0/16"), nh_of("10.0.1.2", 0));
	CHECK_EQ(fib_nh("10.99.0.0/16"), -1);
	CHECK_EQ(fib_nh("2001:db8:77::/48"), -1);
	/* Red's route, not sent again, swept from red too. */
	CHECK_EQ(vrf_fib_nh(1, "10.91.0.0/16"), -1);
	CHECK_EQ(st_vrf("red", "routes"), 0);
	/* Sweeping again removes nothing. */
	dpr_fpm_router_timers(&R);
	CHECK_EQ(st("sweeps"), 1);
	/* With grace_s 0, the sweep is due at once. */
	cfg->fpm.grace_s = 0;
	zebra_close();
	dpr_fpm_router_timers(&R);
	CHECK_EQ(fib_nh("10.77.0.0/16"), -1);
	CHECK_EQ(st("routes"), 0);
}

/*
 * zebra says whether it has more routes for a table on connect only. What
 * dpr ignored for a table of no VRF, and what vrf.del dropped, is asked
 * for again (the connection reset: zebra reconnects and replays) when a
 * VRF takes that table. zebra here replays when dpr closes its connection.
 */
static void
zebra_send_blue(void)
{
	cur_table = 300;
	add_typed(&fr, "10.93.0.0", 16, RTN_BLACKHOLE);
	cur_table = RT_TABLE_MAIN;
	add_typed(&fr, "10.94.0.0", 16, RTN_BLACKHOLE);
	send_frames(&fr);
}

static void
zebra_replay_if_closed(void)
{
	uint8_t b;

	serve();
	if (recv(zebra, &b, 1, MSG_DONTWAIT) == 0) {
		zebra_close();
		zebra_connect();
		zebra_send_blue();
	}
}

static void
test_vrf_added(void)
{
	struct dpr_config *cfg = (struct dpr_config *)(uintptr_t)R.cfg;
	struct dpr_vrf_conf vc = R.vrfs[1].conf;
	json_int_t ign = st2("ignored", "table");
	char err[256];
	int v;

	cfg->fpm.grace_s = 15;
	zebra_connect();
	zebra_send_blue();
	CHECK_EQ(st2("ignored", "table"), ign + 1);
	CHECK_EQ(fib_nh("10.94.0.0/16"), DPR_NH_BLACKHOLE);
	snprintf(vc.name, sizeof(vc.name), "blue");
	vc.table = 300;
	v = dpr_vrf_add(&R, &vc, err, sizeof(err));
	CHECK(v > 0, "vrf.add: %s", err);
	if (v <= 0)
		return;
	zebra_replay_if_closed();
	CHECK_EQ(vrf_fib_nh((unsigned int)v, "10.93.0.0/16"), DPR_NH_BLACKHOLE);
	CHECK_EQ(fib_nh("10.94.0.0/16"), DPR_NH_BLACKHOLE);
	CHECK_EQ(st("routes_stale"), 0);

	/* Deleted and added again: zebra still has blue's route. */
	CHECK_EQ(dpr_vrf_del(&R, (unsigned int)v, err, sizeof(err)), 0);
	v = dpr_vrf_add(&R, &vc, err, sizeof(err));
	CHECK(v > 0, "vrf.add again: %s", err);
	if (v <= 0)
		return;
	zebra_replay_if_closed();
	CHECK_EQ(vrf_fib_nh((unsigned int)v, "10.93.0.0/16"), DPR_NH_BLACKHOLE);

	/* A table zebra sent nothing of costs no replay. */
	vc.table = 301;
	snprintf(vc.name, sizeof(vc.name), "green");
	ign = st("connections");
	CHECK(dpr_vrf_add(&R, &vc, err, sizeof(err)) > 0, "vrf.add green: %s", err);
	serve();
	CHECK(is_connected(), "still connected");
	CHECK_EQ(st("connections"), ign);

	CHECK_EQ(dpr_vrf_del(&R, (unsigned int)dpr_router_vrf_index(&R, "green"), err,
			     sizeof(err)), 0);
	CHECK_EQ(dpr_vrf_del(&R, (unsigned int)v, err, sizeof(err)), 0);
	cfg->fpm.grace_s = 0;
	zebra_close();
	dpr_fpm_router_timers(&R);
	CHECK_EQ(st("routes"), 0);
}

int
main(int argc, char **argv)
{
	struct dpr_config *cfg;
	uint32_t nh_before;
	unsigned int seed, seed_first, seed_last;
	char err[512];

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	if (test_router_init(&R, config_text, "test_fpm_router") < 0)
		return EXIT_FAILURE;
	/* Port 0 (any free one) is for tests only: the config checker refuses it. */
	cfg = (struct dpr_config *)(uintptr_t)R.cfg;
	snprintf(cfg->fpm.listen, sizeof(cfg->fpm.listen), "127.0.0.1:0");
	/* p0's "TAP" is lo: zebra's ifindex 1 is p0. */
	R.n_ports = 3;
	R.ports[0].has_tap = true;
	CHECK_EQ(if_nametoindex("lo"), 1);
	unlink(SOCK_PATH);
	R.server = dpr_server_create(&R, SOCK_PATH, "", err, sizeof(err));
	CHECK(R.server != NULL, "control server: %s", err);
	if (R.server == NULL)
		return test_done("test_fpm_router");
	nh_before = dpr_nh_count(R.nh);
	CHECK(dpr_fpm_router_start(&R, err, sizeof(err)) == 0, "start: %s", err);
	if (R.fpm == NULL)
		return test_done("test_fpm_router");
	fpm_port = (uint16_t)st("port");
	CHECK(fpm_port != 0, "listening");

	RIB_OK();
	test_kinds();
	RIB_OK();
	test_v4_via_v6();
	RIB_OK();
	test_refused();
	RIB_OK();
	test_groups_full();
	RIB_OK();
	test_api_wins();
	RIB_OK();
	test_replaced_by_kernel();
	RIB_OK();
	test_interface_route();
	RIB_OK();
	test_differential(50);
	RIB_OK();
	/* The differential with DPR_TEST_SEEDS's seeds too. */
	test_seeds(&seed_first, &seed_last);
	for (seed = seed_first; seed <= seed_last; seed++) {
		test_differential(seed);
		RIB_OK();
	}
	test_vrf();
	RIB_OK();
	test_stale();
	RIB_OK();
	test_vrf_added();
	RIB_OK();
	/* Every next hop zebra's routes took is given back. */
	CHECK_EQ(dpr_nh_count(R.nh), nh_before);

	json_decref(stats);
	dpr_fpm_router_free(&R);
	CHECK(R.fpm == NULL, "freed");
	dpr_server_free(R.server);
	test_router_free(&R);
	return test_done("test_fpm_router");
}
