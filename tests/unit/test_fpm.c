/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fpm: the FPM server over a real loopback TCP connection, with this
 * test as zebra: frames built with libmnl the way dplane_fpm_nl builds
 * them, then the frames real zebra 8.4 sent (fpm_frames/, generated into frames.h), checked by what
 * the sink receives and by the counters. No EAL: the module needs none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include <rte_log.h>

#include "test.h"
#include "fpm/fpm.h"
#include "fpm_frames/frames.h"

/* FRR's own protocol numbers (zebra/rt_netlink.h). */
#define FRR_RTPROT_ZSTATIC 196

#define MAX_EV 8192

enum ev_type { EV_ROUTE, EV_BATCH, EV_CONN, EV_DISC };

struct ev {
	enum ev_type type;
	struct dpr_route_upd r;
};

static struct ev evs[MAX_EV];
static unsigned int n_ev;
static struct dpr_fpm *srv;
static int zfd = -1; /* our end, as zebra */
static char *log_text;
static size_t log_len;
static FILE *log_stream;

static void
record(enum ev_type type, const struct dpr_route_upd *r)
{
	if (n_ev == MAX_EV)
		abort();
	evs[n_ev].type = type;
	if (r != NULL)
		evs[n_ev].r = *r;
	n_ev++;
}

/*
 * Every change is followed by a batch_end() before the server rests or
 * the connection goes: checked as the sink is called.
 */
static bool pending;
static unsigned int n_batch;

static void
sink_route(void *arg, const struct dpr_route_upd *r)
{
	CHECK(arg == &evs, "sink arg");
	record(EV_ROUTE, r);
	pending = true;
}

static void
sink_batch(void *arg)
{
	(void)arg;
	CHECK(pending, "a batch of nothing");
	pending = false;
	n_batch++;
	record(EV_BATCH, NULL);
}

static void
sink_conn(void *arg)
{
	(void)arg;
	CHECK(!pending, "connected() before the batch ended");
	record(EV_CONN, NULL);
}

static void
sink_disc(void *arg)
{
	(void)arg;
	CHECK(!pending, "disconnected() before the batch ended");
	record(EV_DISC, NULL);
}

static const struct dpr_fpm_sink sink = {
	.route = sink_route, .batch_end = sink_batch, .connected = sink_conn,
	.disconnected = sink_disc, .arg = evs,
};

/*
 * The server is at rest: its last changes were ended by a batch. Batch
 * events are taken out of the list (n_batch counts them): how many frames
 * one read gathers depends on TCP, and the tests compare changes.
 */
static void
batches_strip(void)
{
	unsigned int i, n = 0;

	CHECK(!pending, "the last changes were not ended by a batch");
	for (i = 0; i < n_ev; i++)
		if (evs[i].type != EV_BATCH)
			evs[n++] = evs[i];
	n_ev = n;
}

/* Serve until the server has had nothing to do for 30 ms. */
static void
pump(void)
{
	struct pollfd p = { .fd = dpr_fpm_fd(srv), .events = POLLIN };
	int i;

	for (i = 0; i < 2000; i++) {
		if (poll(&p, 1, 30) <= 0)
			break;
		dpr_fpm_poll(srv);
	}
	batches_strip();
}

static const struct dpr_fpm_stats *
st(void)
{
	return dpr_fpm_stats(srv);
}

static bool
logged(const char *what)
{
	fflush(log_stream);
	return log_text != NULL && strstr(log_text, what) != NULL;
}

static void
log_reset(void)
{
	fflush(log_stream);
	if (log_text != NULL)
		memset(log_text, 0, log_len);
	rewind(log_stream);
}

static int
zebra_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(dpr_fpm_port(srv)) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	return fd;
}

/* Start over: a new zebra connection and an empty event list. */
static void
reconnect(void)
{
	if (zfd >= 0)
		close(zfd);
	zfd = zebra_connect();
	pump();
	n_ev = 0;
}

static void
send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			abort();
		p += n;
		len -= (size_t)n;
	}
}

/* True when the server closed our connection. */
static bool
zebra_was_reset(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, 200) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

/* ---- frames, built the way zebra 8.4 builds them ---- */

struct frame {
	uint32_t words[1 << 18]; /* several frames */
	size_t len;
	size_t start;
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

static void
msg_done(struct frame *fr, struct nlmsghdr *nlh)
{
	fr->len += MNL_ALIGN(nlh->nlmsg_len);
}

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
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = FRR_RTPROT_ZSTATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = type == RTM_NEWROUTE ? rtype : RTN_UNSPEC;
	if (inet_pton(family, dst, a) != 1)
		abort();
	mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, a);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	return nlh;
}

static struct rtmsg *
rtm_of(struct nlmsghdr *nlh)
{
	return mnl_nlmsg_get_payload(nlh);
}

static void
put_gw(struct nlmsghdr *nlh, uint16_t type, const char *gw)
{
	int family = strchr(gw, ':') ? AF_INET6 : AF_INET;
	uint8_t a[16];

	if (inet_pton(family, gw, a) != 1)
		abort();
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

/* A plain route: RTA_GATEWAY + RTA_OIF, or RTA_NH_ID alone (nh_id != 0). */
static void
route_add(struct frame *fr, const char *dst, uint8_t len, const char *gw, uint32_t oif,
	  uint32_t nh_id)
{
	struct nlmsghdr *nlh = route_begin(fr, RTM_NEWROUTE, dst, len, RTN_UNICAST);

	if (nh_id != 0) {
		mnl_attr_put_u32(nlh, RTA_NH_ID, nh_id);
	} else {
		if (gw != NULL)
			put_gw(nlh, RTA_GATEWAY, gw);
		if (oif != 0)
			mnl_attr_put_u32(nlh, RTA_OIF, oif);
	}
	msg_done(fr, nlh);
}

static void
route_del(struct frame *fr, const char *dst, uint8_t len)
{
	msg_done(fr, route_begin(fr, RTM_DELROUTE, dst, len, 0));
}

static void
route_typed(struct frame *fr, const char *dst, uint8_t len, uint8_t rtype)
{
	msg_done(fr, route_begin(fr, RTM_NEWROUTE, dst, len, rtype));
}

static void
route_multipath(struct frame *fr, const char *dst, uint8_t len, unsigned int n,
		const char *const *gw, const uint32_t *oif, const uint8_t *hops)
{
	struct nlmsghdr *nlh = route_begin(fr, RTM_NEWROUTE, dst, len, RTN_UNICAST);
	struct nlattr *mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);

		memset(rtnh, 0, sizeof(*rtnh));
		rtnh->rtnh_ifindex = (int)oif[i];
		rtnh->rtnh_hops = hops[i];
		nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
		put_gw(nlh, RTA_GATEWAY, gw[i]);
		rtnh->rtnh_len = (uint16_t)((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)rtnh);
	}
	mnl_attr_nest_end(nlh, mp);
	msg_done(fr, nlh);
}

static struct nlmsghdr *
nh_begin(struct frame *fr, uint16_t type, uint8_t family, uint32_t id)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fbytes(fr) + fr->len);
	struct nhmsg *nhm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE |
			   (type == RTM_NEWNEXTHOP ? NLM_F_REPLACE : 0);
	nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	nhm->nh_family = family;
	nhm->nh_protocol = RTPROT_ZEBRA;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	return nlh;
}

static void
nh_single(struct frame *fr, uint32_t id, const char *gw, uint32_t oif)
{
	int family = gw != NULL && strchr(gw, ':') ? AF_INET6 : AF_INET;
	struct nlmsghdr *nlh = nh_begin(fr, RTM_NEWNEXTHOP, (uint8_t)family, id);

	if (gw != NULL)
		put_gw(nlh, NHA_GATEWAY, gw);
	mnl_attr_put_u32(nlh, NHA_OIF, oif);
	msg_done(fr, nlh);
}

static void
nh_blackhole(struct frame *fr, uint32_t id)
{
	struct nlmsghdr *nlh = nh_begin(fr, RTM_NEWNEXTHOP, AF_INET, id);

	mnl_attr_put(nlh, NHA_BLACKHOLE, 0, NULL);
	msg_done(fr, nlh);
}

static void
nh_group(struct frame *fr, uint32_t id, unsigned int n, const uint32_t *ids,
	 const uint8_t *weights)
{
	struct nlmsghdr *nlh = nh_begin(fr, RTM_NEWNEXTHOP, AF_UNSPEC, id);
	struct nexthop_grp g[32];
	unsigned int i;

	memset(g, 0, sizeof(g));
	for (i = 0; i < n; i++) {
		g[i].id = ids[i];
		g[i].weight = weights != NULL ? weights[i] : 0;
	}
	mnl_attr_put(nlh, NHA_GROUP, n * sizeof(g[0]), g);
	msg_done(fr, nlh);
}

static void
nh_del(struct frame *fr, uint32_t id)
{
	msg_done(fr, nh_begin(fr, RTM_DELNEXTHOP, AF_UNSPEC, id));
}

/* Send @p fr whole and serve it. */
static void
send_frames(struct frame *fr)
{
	send_all(zfd, fbytes(fr), fr->len);
	pump();
	fr->len = 0;
}

/* One frame of one message built by @p build. */
#define ONE_FRAME(fr, build) do { frame_begin(fr); build; frame_end(fr); } while (0)

/* ---- checks on what the sink got ---- */

static struct dpr_prefix
pfx(const char *s)
{
	struct dpr_prefix p;

	if (dpr_prefix_parse(s, false, &p, NULL, 0) != 0)
		abort();
	return p;
}

static struct dpr_ip
ipa(const char *s)
{
	struct dpr_ip a;

	if (dpr_ip_parse(s, &a) != 0)
		abort();
	return a;
}

static bool
is_route(unsigned int i, bool del, const char *prefix)
{
	struct dpr_prefix p = pfx(prefix);

	return i < n_ev && evs[i].type == EV_ROUTE && evs[i].r.del == del &&
	       evs[i].r.prefix.len == p.len && dpr_ip_equal(&evs[i].r.prefix.addr, &p.addr);
}

static bool
has_path(const struct dpr_route_upd *r, unsigned int i, const char *gw, uint32_t oif,
	 uint16_t weight)
{
	struct dpr_ip a;

	if (i >= r->n_paths || r->paths[i].ifindex != oif || r->paths[i].weight != weight)
		return false;
	if (gw == NULL)
		return r->paths[i].gw.af == 0;
	a = ipa(gw);
	return dpr_ip_equal(&r->paths[i].gw, &a);
}

#define CHECK_EV(i, type_) CHECK((i) < n_ev && evs[i].type == (type_), \
				 "event %u: type %d, want %d (%u events)", (unsigned int)(i), \
				 (i) < n_ev ? (int)evs[i].type : -1, (int)(type_), n_ev)
#define CHECK_ROUTE(i, del, prefix) CHECK(is_route((i), (del), (prefix)), \
					  "event %u is not %s %s", (unsigned int)(i), \
					  (del) ? "del" : "add", (prefix))

/* ---- the tests ---- */

static void
test_listen(void)
{
	static const char *const bad[] = {
		"", "localhost:2620", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:x",
		"[::1", "[::1]x", "[]:1", "1.2.3.4.5", "127.0.0.1:-1", "127.0.0.1: 1",
	};
	struct dpr_fpm_sink no_route = { 0 };
	struct dpr_fpm *f;
	char err[200];
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		errno = 0;
		f = dpr_fpm_create(bad[i], 0, &sink, err, sizeof(err));
		CHECK(f == NULL && errno == EINVAL, "\"%s\" accepted", bad[i]);
		CHECK(strstr(err, "want ADDR[:PORT]") != NULL, "err \"%s\"", err);
		dpr_fpm_free(f);
	}
	f = dpr_fpm_create("127.0.0.1:0", 0, &no_route, err, sizeof(err));
	CHECK(f == NULL && errno == EINVAL, "a sink without route()");

	f = dpr_fpm_create("[::1]:0", 0, &sink, err, sizeof(err));
	if (f == NULL) {
		printf("test_fpm: no IPv6 loopback here (%s): [::1] not tried\n", err);
	} else {
		CHECK(dpr_fpm_port(f) != 0, "a port was picked");
		dpr_fpm_free(f);
	}
	f = dpr_fpm_create("::1", 0, &sink, err, sizeof(err));
	CHECK(f != NULL || errno != EINVAL, "bare ::1 parses");
	if (f != NULL)
		CHECK_EQ(dpr_fpm_port(f), DPR_FPM_PORT);
	dpr_fpm_free(f);

	/* Two servers on one address: the second says why it cannot. */
	f = dpr_fpm_create("127.0.0.1:0", 0, &sink, err, sizeof(err));
	CHECK(f != NULL, "%s", err);
	if (f != NULL) {
		char addr[40];
		struct dpr_fpm *g;

		snprintf(addr, sizeof(addr), "127.0.0.1:%u", dpr_fpm_port(f));
		g = dpr_fpm_create(addr, 0, &sink, err, sizeof(err));
		CHECK(g == NULL && errno == EADDRINUSE, "second bind");
		CHECK(strstr(err, "Address already in use") != NULL, "err \"%s\"", err);
		dpr_fpm_free(g);
	}
	dpr_fpm_free(f);
	dpr_fpm_free(NULL);
}

static void
test_connect(void)
{
	CHECK(!dpr_fpm_is_connected(srv), "not connected yet");
	zfd = zebra_connect();
	pump();
	CHECK(dpr_fpm_is_connected(srv), "connected");
	CHECK_EQ(n_ev, 1);
	CHECK_EV(0, EV_CONN);
	CHECK_EQ(st()->connections, 1);
	n_ev = 0;
}

static void
test_single(void)
{
	static struct frame fr;
	const struct dpr_route_upd *r;

	ONE_FRAME(&fr, route_add(&fr, "10.1.0.0", 16, "192.0.2.1", 7, 0));
	ONE_FRAME(&fr, route_add(&fr, "2001:db8:1::", 48, "fe80::1", 3, 0));
	ONE_FRAME(&fr, route_add(&fr, "0.0.0.0", 0, NULL, 5, 0)); /* via an interface */
	n_batch = 0;
	send_frames(&fr);
	CHECK_EQ(n_ev, 3);
	CHECK_ROUTE(0, false, "10.1.0.0/16");
	r = &evs[0].r;
	CHECK_EQ(r->kind, DPR_RK_UNICAST);
	CHECK_EQ(r->protocol, FRR_RTPROT_ZSTATIC);
	CHECK_EQ(r->priority, 20);
	CHECK_EQ(r->nhg_id, 0);
	CHECK_EQ(r->n_paths, 1);
	CHECK(has_path(r, 0, "192.0.2.1", 7, 1), "path 192.0.2.1 dev 7");
	CHECK_ROUTE(1, false, "2001:db8:1::/48");
	CHECK(has_path(&evs[1].r, 0, "fe80::1", 3, 1), "path fe80::1 dev 3");
	CHECK_ROUTE(2, false, "0.0.0.0/0");
	CHECK(has_path(&evs[2].r, 0, NULL, 5, 1), "path dev 5");
	CHECK_EQ(st()->frames, 3);
	CHECK_EQ(st()->messages, 3);
	/* Three frames in one write, read at once: one batch. */
	CHECK_EQ(n_batch, 1);
	CHECK_EQ(st()->batches, 1);
	CHECK_EQ(st()->routes_added, 3);
	n_ev = 0;

	ONE_FRAME(&fr, route_del(&fr, "10.1.0.0", 16));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, true, "10.1.0.0/16");
	CHECK_EQ(st()->routes_deleted, 1);
	n_ev = 0;
}

/*
 * zebra 8.4's route update: RTM_DELROUTE then RTM_NEWROUTE in one frame.
 * Sent a byte at a time and served after each byte, so that every frame
 * completes in its own poll: the delete and the add still share a batch.
 */
static void
test_update(void)
{
	static struct frame fr;
	size_t off;
	int i;

	frame_begin(&fr);
	route_del(&fr, "10.2.0.0", 16);
	route_add(&fr, "10.2.0.0", 16, "192.0.2.9", 7, 0);
	frame_end(&fr);
	ONE_FRAME(&fr, route_add(&fr, "10.2.1.0", 24, "192.0.2.9", 7, 0));
	for (off = 0; off < fr.len; off++) {
		send_all(zfd, fbytes(&fr) + off, 1);
		for (i = 0; i < 3; i++)
			dpr_fpm_poll(srv);
	}
	fr.len = 0;
	for (i = 0; i < 100 && n_ev < 5; i++) {
		usleep(1000);
		dpr_fpm_poll(srv);
	}
	CHECK_EQ(n_ev, 5);
	CHECK_ROUTE(0, true, "10.2.0.0/16");
	CHECK_ROUTE(1, false, "10.2.0.0/16");
	CHECK(has_path(&evs[1].r, 0, "192.0.2.9", 7, 1), "new path");
	CHECK_EV(2, EV_BATCH);
	CHECK_ROUTE(3, false, "10.2.1.0/24");
	CHECK_EV(4, EV_BATCH);
	pump();
	n_ev = 0;
}

static void
test_multipath(void)
{
	static const char *const gw[] = { "192.0.2.1", "192.0.2.2", "198.51.100.1" };
	static const uint32_t oif[] = { 7, 7, 8 };
	static const uint8_t hops[] = { 0, 1, 255 };
	static struct frame fr;
	const struct dpr_route_upd *r;

	ONE_FRAME(&fr, route_multipath(&fr, "10.3.0.0", 16, 3, gw, oif, hops));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, false, "10.3.0.0/16");
	r = &evs[0].r;
	CHECK_EQ(r->n_paths, 3);
	CHECK(has_path(r, 0, "192.0.2.1", 7, 1), "path 1");
	CHECK(has_path(r, 1, "192.0.2.2", 7, 2), "path 2");
	CHECK(has_path(r, 2, "198.51.100.1", 8, 256), "path 3");
	n_ev = 0;
}

static void
test_types(void)
{
	static struct frame fr;

	frame_begin(&fr);
	route_typed(&fr, "10.4.0.0", 16, RTN_BLACKHOLE);
	route_typed(&fr, "10.5.0.0", 16, RTN_UNREACHABLE);
	route_typed(&fr, "2001:db8:6::", 48, RTN_PROHIBIT);
	route_typed(&fr, "10.6.0.0", 16, RTN_THROW);
	frame_end(&fr);
	send_frames(&fr);
	CHECK_EQ(n_ev, 4);
	CHECK(is_route(0, false, "10.4.0.0/16") && evs[0].r.kind == DPR_RK_BLACKHOLE &&
	      evs[0].r.n_paths == 0, "blackhole");
	CHECK(is_route(1, false, "10.5.0.0/16") && evs[1].r.kind == DPR_RK_UNREACHABLE,
	      "unreachable");
	CHECK(is_route(2, false, "2001:db8:6::/48") && evs[2].r.kind == DPR_RK_PROHIBIT,
	      "prohibit");
	/* A type with no meaning here is refused: withdrawn, counted. */
	CHECK_ROUTE(3, true, "10.6.0.0/16");
	CHECK_EQ(st()->rejected[DPR_FPM_REJ_ROUTE_TYPE], 1);
	n_ev = 0;
}

static void
test_nexthop_groups(void)
{
	static const uint32_t both[] = { 1, 2 }, one[] = { 1 }, three[] = { 1, 2, 3 };
	static const uint8_t w[] = { 0, 2, 0 };
	static struct frame fr;
	const struct dpr_route_upd *r;
	const struct dpr_fpm_stats *s = st();
	uint64_t redelivered = s->routes_redelivered;

	/* Objects alone deliver nothing: no batch either. */
	n_batch = 0;
	frame_begin(&fr);
	nh_single(&fr, 1, "192.0.2.1", 7);
	frame_end(&fr);
	ONE_FRAME(&fr, nh_single(&fr, 2, "192.0.2.2", 8));
	ONE_FRAME(&fr, nh_group(&fr, 10, 2, both, w));
	ONE_FRAME(&fr, nh_single(&fr, 4, NULL, 9));
	send_frames(&fr);
	CHECK_EQ(n_ev, 0);
	CHECK_EQ(n_batch, 0);
	CHECK_EQ(s->nexthops, 4);
	CHECK_EQ(s->nexthops_added, 4);

	ONE_FRAME(&fr, route_add(&fr, "10.10.0.0", 16, NULL, 0, 10));
	ONE_FRAME(&fr, route_add(&fr, "10.11.0.0", 16, NULL, 0, 1));
	ONE_FRAME(&fr, route_add(&fr, "2001:db8:10::", 48, NULL, 0, 10));
	ONE_FRAME(&fr, route_add(&fr, "10.12.0.0", 16, NULL, 0, 4));
	send_frames(&fr);
	CHECK_EQ(n_ev, 4);
	CHECK_ROUTE(0, false, "10.10.0.0/16");
	r = &evs[0].r;
	CHECK_EQ(r->nhg_id, 10);
	CHECK_EQ(r->kind, DPR_RK_UNICAST);
	CHECK_EQ(r->n_paths, 2);
	CHECK(has_path(r, 0, "192.0.2.1", 7, 1), "member 1");
	CHECK(has_path(r, 1, "192.0.2.2", 8, 3), "member 2, weight 3");
	CHECK_ROUTE(1, false, "10.11.0.0/16");
	CHECK(evs[1].r.n_paths == 1 && has_path(&evs[1].r, 0, "192.0.2.1", 7, 1), "single");
	CHECK_ROUTE(2, false, "2001:db8:10::/48");
	CHECK_ROUTE(3, false, "10.12.0.0/16");
	CHECK(has_path(&evs[3].r, 0, NULL, 9, 1), "interface only");
	CHECK_EQ(s->routes_by_id, 4);
	n_ev = 0;

	/* The group shrinks: both routes using it come again, in one batch. */
	n_batch = 0;
	ONE_FRAME(&fr, nh_group(&fr, 10, 1, one, NULL));
	send_frames(&fr);
	CHECK_EQ(n_ev, 2);
	CHECK_EQ(n_batch, 1);
	CHECK(is_route(0, false, "10.10.0.0/16") || is_route(0, false, "2001:db8:10::/48"),
	      "re-delivered");
	CHECK(evs[0].r.n_paths == 1 && evs[1].r.n_paths == 1, "one path each");
	CHECK(has_path(&evs[1].r, 0, "192.0.2.1", 7, 1), "member 1 left");
	CHECK_EQ(s->routes_redelivered, redelivered + 2);
	n_ev = 0;

	/* The same object again: nothing moves. */
	ONE_FRAME(&fr, nh_group(&fr, 10, 1, one, NULL));
	send_frames(&fr);
	CHECK_EQ(n_ev, 0);

	/* A member changes: routes through the group and through the member
	 * itself come again. */
	ONE_FRAME(&fr, nh_single(&fr, 1, "192.0.2.100", 7));
	send_frames(&fr);
	CHECK_EQ(n_ev, 3);
	CHECK(evs[0].type == EV_ROUTE && evs[1].type == EV_ROUTE && evs[2].type == EV_ROUTE,
	      "three routes");
	CHECK(has_path(&evs[0].r, 0, "192.0.2.100", 7, 1) &&
	      has_path(&evs[1].r, 0, "192.0.2.100", 7, 1) &&
	      has_path(&evs[2].r, 0, "192.0.2.100", 7, 1), "new gateway everywhere");
	n_ev = 0;

	/* A route update re-points a route: the old object stops calling it. */
	frame_begin(&fr);
	route_del(&fr, "10.11.0.0", 16);
	route_add(&fr, "10.11.0.0", 16, NULL, 0, 2);
	frame_end(&fr);
	send_frames(&fr);
	CHECK_EQ(n_ev, 2);
	CHECK(is_route(1, false, "10.11.0.0/16") && has_path(&evs[1].r, 0, "192.0.2.2", 8, 1),
	      "via 2");
	n_ev = 0;
	ONE_FRAME(&fr, nh_single(&fr, 1, "192.0.2.101", 7));
	send_frames(&fr);
	CHECK_EQ(n_ev, 2); /* the two routes through group 10 */
	n_ev = 0;

	/* An unknown id (zebra 8.4 can send one): refused, counted, withdrawn,
	 * no reset; installed once zebra sends the object. */
	ONE_FRAME(&fr, route_add(&fr, "10.13.0.0", 16, NULL, 0, 99));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, true, "10.13.0.0/16");
	CHECK_EQ(s->rejected[DPR_FPM_REJ_NH_UNKNOWN], 1);
	CHECK(logged("10.13.0.0/16 via next-hop 99: no such next-hop object"), "logged");
	CHECK(dpr_fpm_is_connected(srv), "still connected");
	n_ev = 0;
	ONE_FRAME(&fr, nh_single(&fr, 99, "192.0.2.99", 7));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK(is_route(0, false, "10.13.0.0/16") && has_path(&evs[0].r, 0, "192.0.2.99", 7, 1),
	      "installed late");
	n_ev = 0;

	/* A group naming an unknown member: its routes wait for it. */
	ONE_FRAME(&fr, nh_group(&fr, 11, 3, three, NULL));
	ONE_FRAME(&fr, route_add(&fr, "10.14.0.0", 16, NULL, 0, 11));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, true, "10.14.0.0/16");
	CHECK_EQ(s->rejected[DPR_FPM_REJ_NH_UNKNOWN], 2);
	n_ev = 0;
	ONE_FRAME(&fr, nh_single(&fr, 3, "192.0.2.3", 9));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK(is_route(0, false, "10.14.0.0/16") && evs[0].r.n_paths == 3, "three members");
	n_ev = 0;

	/* A blackhole object. */
	ONE_FRAME(&fr, nh_blackhole(&fr, 12));
	ONE_FRAME(&fr, route_add(&fr, "10.15.0.0", 16, NULL, 0, 12));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK(is_route(0, false, "10.15.0.0/16") && evs[0].r.kind == DPR_RK_BLACKHOLE &&
	      evs[0].r.n_paths == 0, "blackhole object");
	n_ev = 0;

	/* Groups of groups and groups of blackholes are refused. */
	{
		static const uint32_t g[] = { 10 }, bh[] = { 12 };

		ONE_FRAME(&fr, nh_group(&fr, 13, 1, g, NULL));
		ONE_FRAME(&fr, nh_group(&fr, 14, 1, bh, NULL));
		ONE_FRAME(&fr, route_add(&fr, "10.16.0.0", 16, NULL, 0, 13));
		ONE_FRAME(&fr, route_add(&fr, "10.17.0.0", 16, NULL, 0, 14));
		send_frames(&fr);
		CHECK_EQ(n_ev, 2);
		CHECK_ROUTE(0, true, "10.16.0.0/16");
		CHECK_ROUTE(1, true, "10.17.0.0/16");
		CHECK_EQ(s->rejected[DPR_FPM_REJ_NH_NESTED], 3); /* object 13, two routes */
		n_ev = 0;
	}

	/* Deleting an object still in use keeps it (zebra deletes routes
	 * first); it goes with its last route. */
	{
		uint32_t held = s->nexthops;

		ONE_FRAME(&fr, nh_del(&fr, 99));
		send_frames(&fr);
		CHECK_EQ(n_ev, 0);
		CHECK_EQ(s->nexthops_in_use, 1);
		CHECK_EQ(s->nexthops, held);
		ONE_FRAME(&fr, route_del(&fr, "10.13.0.0", 16));
		send_frames(&fr);
		CHECK_EQ(n_ev, 1);
		CHECK_EQ(s->nexthops, held - 1);
		n_ev = 0;
		/* An object nobody uses goes at once. */
		ONE_FRAME(&fr, nh_single(&fr, 20, "192.0.2.20", 7));
		ONE_FRAME(&fr, nh_del(&fr, 20));
		send_frames(&fr);
		CHECK_EQ(s->nexthops, held - 1);
		CHECK_EQ(s->nexthops_in_use, 1);
	}

	/* A route with paths replaces one by id: no longer re-delivered. */
	ONE_FRAME(&fr, route_add(&fr, "10.12.0.0", 16, "192.0.2.50", 7, 0));
	ONE_FRAME(&fr, nh_single(&fr, 4, NULL, 10));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK(is_route(0, false, "10.12.0.0/16") && has_path(&evs[0].r, 0, "192.0.2.50", 7, 1),
	      "plain route");
	n_ev = 0;
}

static void
test_ignored(void)
{
	static struct frame fr;
	const struct dpr_fpm_stats *s = st();
	struct nlmsghdr *nlh;

	frame_begin(&fr);
	/* A connected route. */
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.20.0.0", 24, RTN_UNICAST);
	rtm_of(nlh)->rtm_protocol = RTPROT_KERNEL;
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	msg_done(&fr, nlh);
	/* Another table, in rtm_table and in RTA_TABLE. */
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.21.0.0", 24, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = 10;
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	msg_done(&fr, nlh);
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.22.0.0", 24, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, RTA_TABLE, 1000);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	msg_done(&fr, nlh);
	nlh = route_begin(&fr, RTM_DELROUTE, "10.22.0.0", 24, 0);
	rtm_of(nlh)->rtm_table = 100;
	msg_done(&fr, nlh);
	/* Local and broadcast. */
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.23.0.1", 32, RTN_LOCAL);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	msg_done(&fr, nlh);
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.23.0.255", 32, RTN_BROADCAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	msg_done(&fr, nlh);
	/* An MPLS LSP and an EVPN MAC. */
	nlh = mnl_nlmsg_put_header(fbytes(&fr) + fr.len);
	nlh->nlmsg_type = RTM_NEWROUTE;
	((struct rtmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtmsg)))->rtm_family =
		AF_MPLS;
	msg_done(&fr, nlh);
	nlh = mnl_nlmsg_put_header(fbytes(&fr) + fr.len);
	nlh->nlmsg_type = RTM_NEWNEIGH;
	mnl_nlmsg_put_extra_header(nlh, 12);
	msg_done(&fr, nlh);
	frame_end(&fr);
	send_frames(&fr);

	/* Nothing installed. The connected, local and broadcast routes of the
	 * sink's table replace what zebra sent for their prefixes before:
	 * withdrawn; those of other tables, families and kinds deliver
	 * nothing. */
	CHECK_EQ(n_ev, 3);
	CHECK_ROUTE(0, true, "10.20.0.0/24");
	CHECK_ROUTE(1, true, "10.23.0.1/32");
	CHECK_ROUTE(2, true, "10.23.0.255/32");
	n_ev = 0;
	CHECK_EQ(s->ignored[DPR_FPM_IGN_PROTOCOL], 1);
	CHECK_EQ(s->ignored[DPR_FPM_IGN_TABLE], 3);
	CHECK_EQ(s->ignored[DPR_FPM_IGN_ROUTE_TYPE], 2);
	CHECK_EQ(s->ignored[DPR_FPM_IGN_FAMILY], 1);
	CHECK_EQ(s->ignored[DPR_FPM_IGN_MSG_TYPE], 1);
	CHECK(strcmp(dpr_fpm_ignore_name(DPR_FPM_IGN_TABLE), "table") == 0, "name");
	CHECK(dpr_fpm_ignore_name(DPR_FPM_IGN_MAX) == NULL, "past the end");
	CHECK(strcmp(dpr_fpm_reject_name(DPR_FPM_REJ_ENCAP), "encap") == 0, "name");
	CHECK(dpr_fpm_reject_name(DPR_FPM_REJ_MAX) == NULL, "past the end");
}

static void
test_table(void)
{
	static struct frame fr;
	struct dpr_fpm *main_srv = srv;
	struct nlmsghdr *nlh;
	char err[200];
	int fd;

	/* A server for table 1000: main routes are the ignored ones now. */
	srv = dpr_fpm_create("127.0.0.1:0", 1000, &sink, err, sizeof(err));
	CHECK(srv != NULL, "%s", err);
	if (srv == NULL) {
		srv = main_srv;
		return;
	}
	fd = zebra_connect();
	pump();
	n_ev = 0;
	frame_begin(&fr);
	route_add(&fr, "10.30.0.0", 16, "192.0.2.1", 7, 0);
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.31.0.0", 16, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, RTA_TABLE, 1000);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	msg_done(&fr, nlh);
	frame_end(&fr);
	send_all(fd, fbytes(&fr), fr.len);
	fr.len = 0;
	pump();
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, false, "10.31.0.0/16");
	CHECK_EQ(st()->ignored[DPR_FPM_IGN_TABLE], 1);
	close(fd);
	pump();
	dpr_fpm_free(srv);
	srv = main_srv;
	n_ev = 0;
}

/* The tables of VRFs: main, and 100 while red_on (red deleted and added again). */
static bool red_on;

static bool
sink_table(void *arg, uint32_t table)
{
	(void)arg;
	return table == RT_TABLE_MAIN || (table == 100 && red_on);
}

/* Send next-hop object 7 (via 192.0.2.1) and 10.60.0.0/16 of table 100 by it. */
static void
red_route_by_7(int fd, struct frame *fr)
{
	struct nlmsghdr *nlh;

	frame_begin(fr);
	nh_single(fr, 7, "192.0.2.1", 3);
	nlh = route_begin(fr, RTM_NEWROUTE, "10.60.0.0", 16, RTN_UNICAST);
	rtm_of(nlh)->rtm_table = 100;
	mnl_attr_put_u32(nlh, RTA_NH_ID, 7);
	msg_done(fr, nlh);
	frame_end(fr);
	send_all(fd, fbytes(fr), fr->len);
	fr->len = 0;
	pump();
}

/* zebra gives id 7 to another next hop, and main's 10.70.0.0/16 by it. */
static void
id_7_reused(int fd, struct frame *fr)
{
	frame_begin(fr);
	nh_single(fr, 7, "198.51.100.9", 4);
	route_add(fr, "10.70.0.0", 16, NULL, 0, 7);
	frame_end(fr);
	send_all(fd, fbytes(fr), fr->len);
	fr->len = 0;
	pump();
}

/*
 * A VRF's table goes (vrf.del) and comes back (vrf.add), and zebra gives
 * the next-hop id its routes named to another next hop: only the route
 * that now names it is delivered, not the VRF's old one by it.
 *  - zebra deletes the route after the table went (its delete is for a
 *    table of no VRF now), then the object;
 *  - zebra deletes nothing (dpr's vrf.del alone): dpr_fpm_forget_table().
 */
static void
test_table_gone(void)
{
	static struct frame fr;
	struct dpr_fpm *main_srv = srv;
	struct dpr_fpm_sink s2 = sink;
	struct nlmsghdr *nlh;
	char err[200];
	int fd;

	s2.table = sink_table;
	srv = dpr_fpm_create("127.0.0.1:0", 0, &s2, err, sizeof(err));
	CHECK(srv != NULL, "%s", err);
	if (srv == NULL) {
		srv = main_srv;
		return;
	}
	fd = zebra_connect();
	pump();
	n_ev = 0;
	red_on = true;
	red_route_by_7(fd, &fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, false, "10.60.0.0/16");
	n_ev = 0;
	/* vrf.del red; zebra withdraws the route, then frees object 7 */
	red_on = false;
	frame_begin(&fr);
	nlh = route_begin(&fr, RTM_DELROUTE, "10.60.0.0", 16, 0);
	rtm_of(nlh)->rtm_table = 100;
	msg_done(&fr, nlh);
	frame_end(&fr);
	frame_begin(&fr);
	nh_del(&fr, 7);
	frame_end(&fr);
	send_all(fd, fbytes(&fr), fr.len);
	fr.len = 0;
	pump();
	CHECK_EQ(n_ev, 0);
	CHECK_EQ(st()->routes_by_id, 0);
	/* vrf.add red; id 7 is main's next hop now */
	red_on = true;
	id_7_reused(fd, &fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, false, "10.70.0.0/16");
	CHECK_EQ(st()->routes_by_id, 1);

	/* Again, with no word from zebra about red's route. */
	n_ev = 0;
	red_route_by_7(fd, &fr);
	CHECK_EQ(n_ev, 2); /* 10.70.0.0/16 again (object 7 changed), 10.60.0.0/16 */
	CHECK_EQ(st()->routes_by_id, 2);
	n_ev = 0;
	red_on = false;
	dpr_fpm_forget_table(srv, 100);
	CHECK_EQ(st()->routes_by_id, 1);
	red_on = true;
	id_7_reused(fd, &fr);
	/* 10.70.0.0/16 by the object's change and by its own message */
	CHECK_EQ(n_ev, 2);
	CHECK_ROUTE(0, false, "10.70.0.0/16");
	CHECK_ROUTE(1, false, "10.70.0.0/16");
	close(fd);
	pump();
	dpr_fpm_free(srv);
	srv = main_srv;
	n_ev = 0;
}

static void
test_rejected(void)
{
	static struct frame fr;
	const struct dpr_fpm_stats *s = st();
	struct nlmsghdr *nlh;

	frame_begin(&fr);
	/* MPLS labels on the path. */
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.40.0.0", 16, RTN_UNICAST);
	put_gw(nlh, RTA_GATEWAY, "192.0.2.1");
	mnl_attr_put_u32(nlh, RTA_OIF, 7);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_MPLS);
	msg_done(&fr, nlh);
	/* No path at all. */
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.41.0.0", 16, RTN_UNICAST);
	msg_done(&fr, nlh);
	/* A path with neither gateway nor interface: RTA_OIF 0. */
	nlh = route_begin(&fr, RTM_NEWROUTE, "10.42.0.0", 16, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 0);
	msg_done(&fr, nlh);
	frame_end(&fr);
	/* An object with labels, and a route through it. */
	frame_begin(&fr);
	nlh = nh_begin(&fr, RTM_NEWNEXTHOP, AF_INET, 30);
	put_gw(nlh, NHA_GATEWAY, "192.0.2.1");
	mnl_attr_put_u32(nlh, NHA_OIF, 7);
	mnl_attr_put_u16(nlh, NHA_ENCAP_TYPE, LWTUNNEL_ENCAP_MPLS);
	msg_done(&fr, nlh);
	route_add(&fr, "10.43.0.0", 16, NULL, 0, 30);
	frame_end(&fr);
	send_frames(&fr);

	CHECK_EQ(n_ev, 4);
	CHECK_ROUTE(0, true, "10.40.0.0/16");
	CHECK_ROUTE(1, true, "10.41.0.0/16");
	CHECK_ROUTE(2, true, "10.42.0.0/16");
	CHECK_ROUTE(3, true, "10.43.0.0/16");
	CHECK_EQ(s->rejected[DPR_FPM_REJ_ENCAP], 2);
	CHECK_EQ(s->rejected[DPR_FPM_REJ_NO_PATH], 1);
	CHECK_EQ(s->rejected[DPR_FPM_REJ_NO_OIF], 1);
	CHECK(logged("refused (encap, 1 so far): 10.40.0.0/16"), "logged");
	n_ev = 0;

	/* Source-specific: counted, nothing withdrawn (its key has a source). */
	ONE_FRAME(&fr, nlh = route_begin(&fr, RTM_NEWROUTE, "2001:db8:44::", 48, RTN_UNICAST);
		  rtm_of(nlh)->rtm_src_len = 64; put_gw(nlh, RTA_SRC, "2001:db8:99::");
		  put_gw(nlh, RTA_GATEWAY, "fe80::1"); mnl_attr_put_u32(nlh, RTA_OIF, 3);
		  msg_done(&fr, nlh));
	send_frames(&fr);
	CHECK_EQ(n_ev, 0);
	CHECK_EQ(s->rejected[DPR_FPM_REJ_SOURCE], 1);
	/* Its delete leaves alone the route of the same destination from any
	 * source: that one still follows its next-hop object. */
	ONE_FRAME(&fr, nh_single(&fr, 60, "fe80::60", 3));
	ONE_FRAME(&fr, route_add(&fr, "2001:db8:44::", 48, NULL, 0, 60));
	ONE_FRAME(&fr, nlh = route_begin(&fr, RTM_DELROUTE, "2001:db8:44::", 48, 0);
		  rtm_of(nlh)->rtm_src_len = 64; put_gw(nlh, RTA_SRC, "2001:db8:99::");
		  msg_done(&fr, nlh));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK_ROUTE(0, false, "2001:db8:44::/48");
	n_ev = 0;
	ONE_FRAME(&fr, nh_single(&fr, 60, "fe80::61", 3));
	send_frames(&fr);
	CHECK_EQ(n_ev, 1);
	CHECK(is_route(0, false, "2001:db8:44::/48") && has_path(&evs[0].r, 0, "fe80::61", 3, 1),
	      "the route by id follows its object after a source-specific delete");
	n_ev = 0;
	ONE_FRAME(&fr, route_del(&fr, "2001:db8:44::", 48));
	send_frames(&fr);
	n_ev = 0;

	/* 17 paths, and a group of 17. */
	{
		const char *gw[17];
		uint32_t oif[17], ids[17];
		uint8_t hops[17] = { 0 };
		char names[17][16];
		unsigned int i;

		for (i = 0; i < 17; i++) {
			snprintf(names[i], sizeof(names[i]), "192.0.2.%u", i + 1);
			gw[i] = names[i];
			oif[i] = 7;
			ids[i] = 200 + i;
		}
		ONE_FRAME(&fr, route_multipath(&fr, "10.45.0.0", 16, 17, gw, oif, hops));
		for (i = 0; i < 17; i++)
			ONE_FRAME(&fr, nh_single(&fr, ids[i], gw[i], 7));
		ONE_FRAME(&fr, nh_group(&fr, 300, 17, ids, NULL));
		ONE_FRAME(&fr, route_add(&fr, "10.46.0.0", 16, NULL, 0, 300));
		send_frames(&fr);
		CHECK_EQ(n_ev, 2);
		CHECK_ROUTE(0, true, "10.45.0.0/16");
		CHECK_ROUTE(1, true, "10.46.0.0/16");
		CHECK_EQ(s->rejected[DPR_FPM_REJ_TOO_MANY], 3); /* route, object, route */
		n_ev = 0;
	}
	CHECK(dpr_fpm_is_connected(srv), "no reset for any of these");
}

/* The same stream whole, in pieces of every size down to one byte. */
static void
test_split(void)
{
	static const char *const gw[] = { "192.0.2.1", "192.0.2.2" };
	static const uint32_t oif[] = { 7, 8 };
	static const uint8_t hops[] = { 0, 0 };
	static const uint32_t both[] = { 51, 52 };
	static struct frame fr;
	static struct ev want[64];
	unsigned int n_want, piece, i;
	size_t len, off;

	frame_begin(&fr);
	nh_single(&fr, 51, "192.0.2.51", 7);
	nh_single(&fr, 52, "2001:db8::52", 7);
	frame_end(&fr);
	ONE_FRAME(&fr, nh_group(&fr, 53, 2, both, NULL));
	ONE_FRAME(&fr, route_add(&fr, "10.50.0.0", 16, NULL, 0, 53));
	frame_begin(&fr);
	route_del(&fr, "10.51.0.0", 16);
	route_multipath(&fr, "10.51.0.0", 16, 2, gw, oif, hops);
	frame_end(&fr);
	ONE_FRAME(&fr, route_typed(&fr, "2001:db8:52::", 48, RTN_BLACKHOLE));
	ONE_FRAME(&fr, route_del(&fr, "10.50.0.0", 16));
	len = fr.len;

	/* Several frames in one write. */
	send_all(zfd, fbytes(&fr), len);
	pump();
	n_want = n_ev;
	CHECK_EQ(n_want, 5);
	CHECK(is_route(0, false, "10.50.0.0/16") && evs[0].r.n_paths == 2 &&
	      has_path(&evs[0].r, 1, "2001:db8::52", 7, 1), "IPv4 over an IPv6 gateway");
	memcpy(want, evs, n_want * sizeof(evs[0]));

	for (piece = 1; piece <= 7; piece += piece < 3 ? 1 : 4) {
		n_ev = 0;
		for (off = 0; off < len; off += piece) {
			send_all(zfd, fbytes(&fr) + off, RTE_MIN((size_t)piece, len - off));
			/* Serve every piece, to read partial frames. */
			for (i = 0; i < 3; i++)
				dpr_fpm_poll(srv);
		}
		pump();
		CHECK(n_ev == n_want, "pieces of %u: %u events, want %u", piece, n_ev, n_want);
		for (i = 0; i < n_want && i < n_ev; i++)
			CHECK(evs[i].type == want[i].type &&
			      memcmp(&evs[i].r, &want[i].r, sizeof(evs[i].r)) == 0,
			      "pieces of %u: event %u differs", piece, i);
	}
	CHECK(dpr_fpm_is_connected(srv), "still connected");
	n_ev = 0;
	fr.len = 0;
}

/* A frame as big as zebra may send: 64 KiB - 4, hundreds of routes, one batch. */
static void
test_big_frame(void)
{
	static struct frame fr;
	unsigned int n = 0, i;
	char dst[32];

	frame_begin(&fr);
	while (fr.len + 64 + 4 <= DPR_FPM_MAX_FRAME) {
		snprintf(dst, sizeof(dst), "10.%u.%u.0", 100 + n / 256, n % 256);
		route_add(&fr, dst, 24, "192.0.2.1", 7, 0);
		n++;
	}
	frame_end(&fr);
	CHECK(fr.len > 60000, "frame of %zu bytes", fr.len);
	send_frames(&fr);
	CHECK_EQ(n_ev, n);
	for (i = 0; i < n; i++)
		if (evs[i].type != EV_ROUTE || evs[i].r.del)
			break;
	CHECK_EQ(i, n);
	n_ev = 0;
}

/*
 * Bad frames: the reason is logged, the connection reset, and nothing of
 * the frame reaches the sink, not even its valid messages.
 */
static void
bad_case(const char *name, void (*build)(struct frame *fr), const char *reason)
{
	static struct frame fr;
	uint64_t bad = st()->bad_frames, resets = st()->resets;

	reconnect();
	log_reset();
	/* A good frame first: it is applied, then the bad one is not. */
	ONE_FRAME(&fr, route_add(&fr, "10.60.0.0", 16, "192.0.2.1", 7, 0));
	build(&fr);
	send_all(zfd, fbytes(&fr), fr.len);
	fr.len = 0;
	pump();
	CHECK(n_ev == 2 && is_route(0, false, "10.60.0.0/16") && evs[1].type == EV_DISC,
	      "%s: %u events", name, n_ev);
	CHECK(st()->bad_frames == bad + 1 && st()->resets == resets + 1, "%s: counted", name);
	CHECK(!dpr_fpm_is_connected(srv), "%s: reset", name);
	CHECK(zebra_was_reset(zfd), "%s: zebra sees the reset", name);
	CHECK(logged(reason), "%s: reason \"%s\" not logged: %s", name, reason,
	      log_text != NULL ? log_text : "");
	CHECK(logged("connection reset"), "%s", name);
}

static void
bad_version(struct frame *fr)
{
	ONE_FRAME(fr, route_add(fr, "10.61.0.0", 16, "192.0.2.1", 7, 0));
	fbytes(fr)[fr->start] = 2;
}

static void
bad_type(struct frame *fr)
{
	ONE_FRAME(fr, route_add(fr, "10.61.0.0", 16, "192.0.2.1", 7, 0));
	fbytes(fr)[fr->start + 1] = 2;
}

static void
bad_frame_len(struct frame *fr)
{
	ONE_FRAME(fr, route_add(fr, "10.61.0.0", 16, "192.0.2.1", 7, 0));
	fbytes(fr)[fr->start + 3] = 2;
	fbytes(fr)[fr->start + 2] = 0;
}

/* The netlink length runs past the frame. */
static void
bad_nl_len(struct frame *fr)
{
	struct nlmsghdr *nlh;

	frame_begin(fr);
	route_add(fr, "10.61.0.0", 16, "192.0.2.1", 7, 0);
	nlh = (struct nlmsghdr *)(fbytes(fr) + fr->len);
	route_add(fr, "10.62.0.0", 16, "192.0.2.1", 7, 0);
	nlh->nlmsg_len += 8;
	frame_end(fr);
}

/* A message cut short: the frame ends 4 bytes into its header. */
static void
truncated(struct frame *fr)
{
	frame_begin(fr);
	route_add(fr, "10.61.0.0", 16, "192.0.2.1", 7, 0);
	fr->len += 4;
	memset(fbytes(fr) + fr->len - 4, 0x20, 4);
	frame_end(fr);
}

/* Valid, then nonsense: RTA_DST of 3 bytes in the second message. */
static void
bad_attr(struct frame *fr)
{
	struct nlmsghdr *nlh;

	frame_begin(fr);
	route_add(fr, "10.61.0.0", 16, "192.0.2.1", 7, 0);
	nh_single(fr, 70, "192.0.2.70", 7);
	nlh = mnl_nlmsg_put_header(fbytes(fr) + fr->len);
	nlh->nlmsg_type = RTM_NEWROUTE;
	((struct rtmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtmsg)))->rtm_family =
		AF_INET;
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_dst_len = 24;
	mnl_attr_put(nlh, RTA_DST, 3, "abc");
	msg_done(fr, nlh);
	frame_end(fr);
}

/* A next-hop group with a member listed twice. */
static void
bad_group(struct frame *fr)
{
	static const uint32_t twice[] = { 1, 1 };

	ONE_FRAME(fr, nh_group(fr, 71, 2, twice, NULL));
}

static void
test_bad_frames(void)
{
	uint64_t nh_before;

	bad_case("version 2", bad_version, "FPM version 2, want 1");
	bad_case("protobuf", bad_type, "FPM message type 2 (protobuf) is not netlink");
	bad_case("length 2", bad_frame_len, "FPM length 2 shorter than its header");
	bad_case("nlmsg_len past the frame", bad_nl_len, "runs past the buffer");
	bad_case("truncated", truncated, "too few for a netlink header");
	bad_case("RTA_DST of 3 bytes", bad_attr, "message 3 (type 24): RTA_DST length 3 for IPv4");
	bad_case("group member twice", bad_group, "id 1 listed twice");

	/* Object 70 came in the refused frame: it was never taken. */
	nh_before = st()->nexthops_added;
	reconnect();
	{
		static struct frame fr;

		ONE_FRAME(&fr, route_add(&fr, "10.63.0.0", 16, NULL, 0, 70));
		send_frames(&fr);
	}
	CHECK(is_route(0, true, "10.63.0.0/16"), "object 70 unknown");
	CHECK_EQ(st()->nexthops_added, nh_before);
	n_ev = 0;
}

static void
test_reconnect(void)
{
	static struct frame fr;
	uint64_t conns, replaced = st()->replaced, closed;
	int old;

	reconnect();
	conns = st()->connections;
	closed = st()->closed;
	ONE_FRAME(&fr, nh_single(&fr, 80, "192.0.2.80", 7));
	ONE_FRAME(&fr, route_add(&fr, "10.70.0.0", 16, NULL, 0, 80));
	send_frames(&fr);
	CHECK_EQ(st()->nexthops, 1);
	n_ev = 0;

	/* zebra restarted: a new connection while the old one is open. */
	old = zfd;
	zfd = zebra_connect();
	pump();
	CHECK_EQ(n_ev, 2);
	CHECK_EV(0, EV_DISC);
	CHECK_EV(1, EV_CONN);
	CHECK_EQ(st()->replaced, replaced + 1);
	CHECK_EQ(st()->connections, conns + 1);
	CHECK(zebra_was_reset(old), "old connection closed");
	close(old);
	/* Objects belong to a connection: zebra replays them. */
	CHECK_EQ(st()->nexthops, 0);
	CHECK_EQ(st()->routes_by_id, 0);
	n_ev = 0;
	ONE_FRAME(&fr, route_add(&fr, "10.70.0.0", 16, NULL, 0, 80));
	send_frames(&fr);
	CHECK_ROUTE(0, true, "10.70.0.0/16");
	n_ev = 0;

	/* zebra closes: disconnected(), then connected() again. */
	close(zfd);
	pump();
	CHECK_EQ(n_ev, 1);
	CHECK_EV(0, EV_DISC);
	CHECK_EQ(st()->closed, closed + 1);
	CHECK(!dpr_fpm_is_connected(srv), "closed");
	zfd = zebra_connect();
	pump();
	CHECK_EQ(n_ev, 2);
	CHECK_EV(1, EV_CONN);
	n_ev = 0;

	/* zebra dies in the middle of a frame: the part is dropped. */
	ONE_FRAME(&fr, route_add(&fr, "10.71.0.0", 16, "192.0.2.1", 7, 0));
	send_all(zfd, fbytes(&fr), fr.len - 3);
	fr.len = 0;
	pump();
	close(zfd);
	zfd = -1;
	pump();
	CHECK_EQ(n_ev, 1);
	CHECK_EV(0, EV_DISC);
	n_ev = 0;
}

/* ---- what real zebra 8.4 sent (fpm_frames/, docs/routing-daemons.md) ---- */

struct part {
	const uint8_t *bytes;
	size_t len;
};

#define PART(a) { a, sizeof(a) }

/* A route the sink must have received last for its prefix. */
struct expect {
	bool del;
	const char *prefix;
	enum dpr_route_kind kind;
	unsigned int n_paths;
	const char *gw[2];
	uint32_t oif[2];
};

/* One zebra connection: recordings sent back to back, and what comes out. */
struct session {
	const char *name;
	struct part parts[8];
	unsigned int adds, dels, unknown;
	bool kernel; /* has connected routes (RTPROT_KERNEL) to ignore */
	struct expect expect[8];
};

static const struct session sessions[] = {
	{ "nhg: static v4, v6, ECMP, blackholes, change, delete",
	  { PART(zebra_setup), PART(zebra_nhg_static4), PART(zebra_nhg_static6),
	    PART(zebra_nhg_ecmp), PART(zebra_nhg_blackhole), PART(zebra_nhg_change),
	    PART(zebra_nhg_delete) },
	  8, 3, 0, true,
	  { { true, "10.1.0.0/16" },
	    { true, "2001:db8:10::/48" },
	    { false, "10.2.0.0/16", DPR_RK_UNICAST, 2, { "192.0.2.2", "198.51.100.2" }, { 3, 5 } },
	    { false, "2001:db8:20::/48", DPR_RK_UNICAST, 2, { "2001:db8:1::2", "2001:db8:2::2" },
	      { 3, 5 } },
	    { false, "10.3.0.0/16", DPR_RK_BLACKHOLE },
	    { false, "10.4.0.0/16", DPR_RK_UNREACHABLE },
	    { false, "2001:db8:30::/48", DPR_RK_BLACKHOLE } } },
	{ "nhg: the change alone, as one frame",
	  { PART(zebra_setup), PART(zebra_nhg_static4), PART(zebra_nhg_static6),
	    PART(zebra_nhg_ecmp), PART(zebra_nhg_change) },
	  5, 1, 0, true,
	  { { false, "10.1.0.0/16", DPR_RK_UNICAST, 1, { "198.51.100.2" }, { 5 } } } },
	{ "nhg: replay (a group before its members)",
	  { PART(zebra_nhg_replay) },
	  5, 0, 0, true,
	  { { false, "10.2.0.0/16", DPR_RK_UNICAST, 2, { "192.0.2.2", "198.51.100.2" }, { 3, 5 } },
	    { false, "2001:db8:20::/48", DPR_RK_UNICAST, 2, { "2001:db8:1::2", "2001:db8:2::2" },
	      { 3, 5 } },
	    { false, "10.4.0.0/16", DPR_RK_UNREACHABLE } } },
	{ "nhg: replay, then RTM_DELNEXTHOP of the unused group and member",
	  { PART(zebra_nhg_replay), PART(zebra_nhg_delnexthop) },
	  6, 1, 0, true,
	  { { false, "10.2.0.0/16", DPR_RK_UNICAST, 1, { "192.0.2.2" }, { 3 } } } },
	{ "nhg: zebra restarted",
	  { PART(zebra_nhg_restart) },
	  5, 0, 0, true,
	  { { false, "10.2.0.0/16", DPR_RK_UNICAST, 2, { "192.0.2.2", "198.51.100.2" }, { 3, 5 } } } },
	{ "nhg: link down (connected routes only)",
	  { PART(zebra_setup), PART(zebra_nhg_linkdown) },
	  0, 0, 0, true },
	{ "nhg: zebra nexthop proto only (ids never sent)",
	  { PART(zebra_nhg_unknown) },
	  6, 4, 4, true,
	  { { true, "10.2.0.0/16" }, { true, "2001:db8:50::/48" },
	    { false, "10.3.0.0/16", DPR_RK_BLACKHOLE } } },
	{ "plain: toggle, static v4, v6, ECMP, blackholes, change, delete",
	  { PART(zebra_plain_toggle), PART(zebra_plain_static4), PART(zebra_plain_static6),
	    PART(zebra_plain_ecmp), PART(zebra_plain_blackhole), PART(zebra_plain_change),
	    PART(zebra_plain_delete) },
	  13, 3, 0, true,
	  { { true, "10.1.0.0/16" },
	    { true, "2001:db8:10::/48" },
	    { false, "10.2.0.0/16", DPR_RK_UNICAST, 1, { "192.0.2.2" }, { 3 } },
	    { false, "10.5.0.0/16", DPR_RK_UNICAST, 2, { "192.0.2.2", "198.51.100.2" }, { 3, 5 } },
	    { false, "2001:db8:50::/48", DPR_RK_UNICAST, 2, { "2001:db8:1::2", "2001:db8:2::2" },
	      { 3, 5 } },
	    { false, "10.6.0.0/16", DPR_RK_BLACKHOLE },
	    { false, "10.7.0.0/16", DPR_RK_UNREACHABLE },
	    { false, "2001:db8:60::/48", DPR_RK_BLACKHOLE } } },
	{ "plain: the change alone, as one frame",
	  { PART(zebra_plain_change) },
	  1, 1, 0, false,
	  { { false, "10.1.0.0/16", DPR_RK_UNICAST, 1, { "198.51.100.2" }, { 5 } } } },
	{ "plain: replay",
	  { PART(zebra_plain_replay) },
	  10, 0, 0, true,
	  { { false, "10.5.0.0/16", DPR_RK_UNICAST, 2, { "192.0.2.2", "198.51.100.2" }, { 3, 5 } },
	    { false, "2001:db8:20::/48", DPR_RK_UNICAST, 2, { "2001:db8:1::2", "2001:db8:2::2" },
	      { 3, 5 } } } },
	{ "plain: zebra restarted",
	  { PART(zebra_plain_restart) },
	  10, 0, 0, true,
	  { { false, "10.5.0.0/16", DPR_RK_UNICAST, 2, { "192.0.2.2", "198.51.100.2" }, { 3, 5 } } } },
};

/* The last route the sink got for @p prefix. */
static const struct dpr_route_upd *
last_route(const char *prefix)
{
	unsigned int i;

	for (i = n_ev; i-- > 0;)
		if (is_route(i, false, prefix) || is_route(i, true, prefix))
			return &evs[i].r;
	return NULL;
}

/* Send a session whole, or in pieces of @p piece bytes. */
static void
session_send(const struct session *z, size_t piece)
{
	unsigned int i;
	size_t off, n;

	for (i = 0; i < RTE_DIM(z->parts) && z->parts[i].bytes != NULL; i++) {
		for (off = 0; off < z->parts[i].len; off += n) {
			n = piece == 0 ? z->parts[i].len : RTE_MIN(piece, z->parts[i].len - off);
			send_all(zfd, z->parts[i].bytes + off, n);
			if (piece != 0)
				dpr_fpm_poll(srv);
		}
	}
	pump();
}

static void
test_zebra(void)
{
	static struct ev whole[256];
	const struct dpr_route_upd *r;
	unsigned int i, j, k, n_whole;

	for (i = 0; i < RTE_DIM(sessions); i++) {
		const struct session *z = &sessions[i];
		struct dpr_fpm_stats before;
		unsigned int adds = 0, dels = 0, kdels = 0;

		reconnect();
		before = *st();
		session_send(z, 0);
		for (j = 0; j < n_ev; j++) {
			if (evs[j].type != EV_ROUTE)
				continue;
			/* A connected route withdraws what zebra had sent for
			 * its prefix (none in these sessions). */
			if (evs[j].r.protocol == RTPROT_KERNEL) {
				kdels++;
				CHECK(evs[j].r.del, "%s: event %u: a connected route withdraws",
				      z->name, j);
				continue;
			}
			adds += !evs[j].r.del;
			dels += evs[j].r.del;
			CHECK(evs[j].r.protocol == 196, "%s: event %u protocol %u", z->name, j,
			      evs[j].r.protocol);
		}
		CHECK((kdels > 0) == z->kernel, "%s: %u withdrawals by connected routes", z->name,
		      kdels);
		CHECK(adds == z->adds && dels == z->dels, "%s: %u adds, %u deletes; want %u and %u",
		      z->name, adds, dels, z->adds, z->dels);
		CHECK(dpr_fpm_is_connected(srv), "%s: connection kept", z->name);
		CHECK_EQ(st()->bad_frames, before.bad_frames);
		CHECK(st()->rejected[DPR_FPM_REJ_NH_UNKNOWN] - before.rejected[DPR_FPM_REJ_NH_UNKNOWN] ==
		      z->unknown, "%s: unknown ids", z->name);
		CHECK((st()->ignored[DPR_FPM_IGN_PROTOCOL] > before.ignored[DPR_FPM_IGN_PROTOCOL]) ==
		      z->kernel, "%s: connected routes ignored", z->name);
		for (j = 0; j < RTE_DIM(z->expect) && z->expect[j].prefix != NULL; j++) {
			const struct expect *e = &z->expect[j];

			r = last_route(e->prefix);
			CHECK(r != NULL && r->del == e->del, "%s: %s not %s last", z->name, e->prefix,
			      e->del ? "deleted" : "added");
			if (r == NULL || e->del)
				continue;
			CHECK(r->kind == e->kind && r->n_paths == e->n_paths,
			      "%s: %s kind %d, %u paths", z->name, e->prefix, r->kind, r->n_paths);
			for (k = 0; k < e->n_paths && k < 2; k++)
				CHECK(has_path(r, k, e->gw[k], e->oif[k], 1), "%s: %s path %u", z->name,
				      e->prefix, k);
		}

		/* Byte by byte, and in pieces of 7: the same changes. */
		n_whole = RTE_MIN(n_ev, RTE_DIM(whole));
		memcpy(whole, evs, n_whole * sizeof(evs[0]));
		for (k = 1; k <= 7; k += 6) {
			reconnect();
			session_send(z, k);
			CHECK(n_ev == n_whole, "%s: pieces of %u: %u events, want %u", z->name, k, n_ev,
			      n_whole);
			for (j = 0; j < n_whole && j < n_ev; j++)
				CHECK(evs[j].type == whole[j].type &&
				      memcmp(&evs[j].r, &whole[j].r, sizeof(evs[j].r)) == 0,
				      "%s: pieces of %u: event %u differs", z->name, k, j);
		}
	}
	n_ev = 0;
}

/*
 * Many objects and routes: the tables grow, a changed object re-delivers
 * every route through it, and a disconnect frees it all (ASan would tell).
 */
static void
test_scale(void)
{
	static struct frame fr;
	const unsigned int n_nh = 3000, n_rt = 6000;
	uint64_t redelivered;
	unsigned int i, routes = 0;
	char a[32];

	reconnect();
	for (i = 0; i < n_nh; i++) {
		if (i % 500 == 0) {
			if (i > 0)
				frame_end(&fr);
			frame_begin(&fr);
		}
		snprintf(a, sizeof(a), "10.%u.%u.1", 200 + i / 256, i % 256);
		nh_single(&fr, 1000 + i, a, 7);
	}
	frame_end(&fr);
	send_frames(&fr);
	for (i = 0; i < n_rt; i++) {
		if (i % 1000 == 0) {
			if (i > 0)
				frame_end(&fr);
			frame_begin(&fr);
		}
		snprintf(a, sizeof(a), "172.%u.%u.0", 16 + i / 256, i % 256);
		route_add(&fr, a, 24, NULL, 0, 1000 + i % n_nh);
	}
	frame_end(&fr);
	send_frames(&fr);
	CHECK_EQ(st()->nexthops, n_nh);
	CHECK_EQ(st()->routes_by_id, n_rt);
	for (i = 0; i < n_ev; i++)
		routes += evs[i].type == EV_ROUTE && !evs[i].r.del && evs[i].r.n_paths == 1;
	CHECK_EQ(routes, n_rt);
	n_ev = 0;

	redelivered = st()->routes_redelivered;
	ONE_FRAME(&fr, nh_single(&fr, 1000, "192.0.2.77", 9));
	send_frames(&fr);
	CHECK_EQ(st()->routes_redelivered, redelivered + 2);
	CHECK(n_ev == 2 && has_path(&evs[0].r, 0, "192.0.2.77", 9, 1) &&
	      has_path(&evs[1].r, 0, "192.0.2.77", 9, 1), "routes of object 1000 moved");
	n_ev = 0;
	close(zfd);
	zfd = -1;
	pump();
	CHECK_EQ(st()->nexthops, 0);
	CHECK_EQ(st()->routes_by_id, 0);
	n_ev = 0;
}

static uint32_t rnd_state = 12345;

static uint32_t
rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/*
 * Real zebra sessions with a few random bytes changed, each over its own
 * connection: nothing crashes or leaks (under ASan), at most one bad frame
 * a connection, and a reset always follows it.
 */
static void
test_mutations(void)
{
	static uint8_t buf[8192];
	unsigned int iter, i, resets = 0;

	for (iter = 0; iter < 3000; iter++) {
		const struct session *z = &sessions[iter % RTE_DIM(sessions)];
		uint64_t bad = st()->bad_frames, rs = st()->resets;
		size_t len = 0;
		bool done = false;

		for (i = 0; i < RTE_DIM(z->parts) && z->parts[i].bytes != NULL; i++) {
			memcpy(buf + len, z->parts[i].bytes, z->parts[i].len);
			len += z->parts[i].len;
		}
		for (i = 0; i <= rnd() % 4; i++)
			buf[rnd() % len] = (uint8_t)rnd();
		n_ev = 0;
		zfd = zebra_connect();
		send_all(zfd, buf, len);
		close(zfd);
		zfd = -1;
		for (i = 0; i < 1000 && !done; i++) {
			struct pollfd p = { .fd = dpr_fpm_fd(srv), .events = POLLIN };

			if (poll(&p, 1, 1000) > 0)
				dpr_fpm_poll(srv);
			done = n_ev > 0 && evs[n_ev - 1].type == EV_DISC;
		}
		CHECK(done, "mutation %u: no disconnect", iter);
		batches_strip();
		CHECK(st()->bad_frames - bad <= 1, "mutation %u: %" PRIu64 " bad frames", iter,
		      st()->bad_frames - bad);
		CHECK_EQ(st()->resets - rs, st()->bad_frames - bad);
		resets += (unsigned int)(st()->resets - rs);
	}
	/* Both outcomes happen. */
	CHECK(resets > 100 && resets < 2900, "%u resets in 3000", resets);
	printf("test_fpm: mutations: %u of 3000 connections reset\n", resets);
	n_ev = 0;
}

int
main(void)
{
	char err[200];

	log_stream = open_memstream(&log_text, &log_len);
	if (log_stream == NULL || rte_openlog_stream(log_stream) != 0)
		abort();
	test_listen();
	srv = dpr_fpm_create("127.0.0.1:0", 0, &sink, err, sizeof(err));
	if (srv == NULL) {
		fprintf(stderr, "test_fpm: %s\n", err);
		return 1;
	}
	test_connect();
	test_single();
	test_update();
	test_multipath();
	test_types();
	test_nexthop_groups();
	test_ignored();
	test_table();
	test_table_gone();
	test_rejected();
	test_split();
	test_big_frame();
	test_bad_frames();
	test_reconnect();
	test_zebra();
	test_scale();
	test_mutations();
	dpr_fpm_free(srv);
	if (zfd >= 0)
		close(zfd);
	rte_openlog_stream(NULL);
	fclose(log_stream);
	free(log_text);
	printf("test_fpm: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
