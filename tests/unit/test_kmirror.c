/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel mirror's table (lib/kernel/kmirror.c): route and next-hop
 * messages as lib/netlink decodes them, with the flags the kernel sends
 * (each case's comment names the `ip` command that makes them), in; per
 * prefix, what the kernel forwards with, out. Then the same through
 * lib/kernel/kroute.c into a router: netlink messages in, the FIB out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "api/server.h"
#include "kernel/kmirror.h"
#include "kernel/kroute.h"
#include "rig.h"
#include "test.h"

#define ADD   (NLM_F_CREATE | NLM_F_EXCL)    /* ip route add */
#define APP   (NLM_F_CREATE | NLM_F_APPEND)  /* ip route append */
#define PRE   (NLM_F_CREATE)                 /* ip route prepend */
#define REP   (NLM_F_REPLACE)                /* ip route replace */

/* What the callback was last told, per prefix (a few prefixes per case). */
static struct seen {
	uint32_t table;
	struct dpr_prefix pf;
	bool held;
	struct dpr_kmirror_sel sel;
	unsigned int calls;
} seen[16];
static unsigned int n_seen;

static struct seen *
seen_of(uint32_t table, const struct dpr_prefix *pf)
{
	unsigned int i;

	for (i = 0; i < n_seen; i++)
		if (seen[i].table == table && seen[i].pf.len == pf->len &&
		    dpr_ip_equal(&seen[i].pf.addr, &pf->addr))
			return &seen[i];
	memset(&seen[n_seen], 0, sizeof(seen[0]));
	seen[n_seen].table = table;
	seen[n_seen].pf = *pf;
	return &seen[n_seen++];
}

static bool
record(void *arg, uint32_t table, const struct dpr_prefix *pf, const struct dpr_kmirror_sel *sel)
{
	struct seen *s = seen_of(table, pf);

	(void)arg;
	s->calls++;
	s->held = sel != NULL;
	if (sel != NULL)
		s->sel = *sel;
	return sel != NULL;
}

static struct dpr_prefix
pfx(const char *s)
{
	struct dpr_prefix p;

	if (dpr_prefix_parse(s, false, &p, NULL, 0) < 0)
		abort();
	return p;
}

static struct dpr_nl_nh
hop(const char *gw, uint32_t ifindex, uint8_t flags)
{
	struct dpr_nl_nh h = { .ifindex = ifindex, .weight = 1, .flags = flags };

	if (gw != NULL && dpr_ip_parse(gw, &h.gw) < 0)
		abort();
	return h;
}

/* A route message: prefix, metric, type; paths added with nh(). */
static struct dpr_nl_route
rt(const char *prefix, uint32_t prio, uint8_t type)
{
	struct dpr_nl_route r = { .prefix = pfx(prefix), .priority = prio, .type = type,
				  .table = 100, .protocol = RTPROT_BOOT };
	return r;
}

static struct dpr_nl_route *
nh(struct dpr_nl_route *r, const char *gw, uint32_t ifindex, uint8_t flags)
{
	r->nh[r->n_nh++] = hop(gw, ifindex, flags);
	return r;
}

/* Apply with reason @p bad and flush; the prefix's state as the callback last saw it. */
static const struct seen *
apply_bad(struct dpr_kmirror *m, struct dpr_nl_route r, uint16_t flags, bool del, uint8_t bad)
{
	r.del = del;
	CHECK(dpr_kmirror_route(m, &r, flags, false, bad) == 0, "route message");
	dpr_kmirror_flush(m, record, NULL, false);
	return seen_of(r.table, &r.prefix);
}

static const struct seen *
apply(struct dpr_kmirror *m, struct dpr_nl_route r, uint16_t flags, bool del)
{
	return apply_bad(m, r, flags, del, 0);
}

/* The selected gateway of a one-path answer, as text; "none" without a route. */
static const char *
gw_of(const struct seen *s)
{
	static char buf[64];

	if (!s->held)
		return "none";
	if (s->sel.type != RTN_UNICAST)
		return s->sel.type == RTN_BLACKHOLE ? "blackhole" : "reject";
	if (s->sel.nh_blackhole)
		return "blackhole";
	if (s->sel.n_paths != 1)
		return "multipath";
	return dpr_ip_fmt(&s->sel.paths[0].gw, buf, sizeof(buf));
}

#define CHECK_GW(s, want) do { \
		const char *g_ = gw_of(s); \
		CHECK(strcmp(g_, want) == 0, "selected %s, want %s", g_, want); \
	} while (0)

/* ip route add, append, prepend, replace, del: the kernel's first route wins. */
static void
test_ip4_order(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route a = rt("10.1.0.0/16", 0, RTN_UNICAST), b = a, c = a, d = a;
	const struct seen *s;

	nh(&a, "10.0.2.2", 5, 0);
	nh(&b, "10.0.3.2", 6, 0);
	nh(&c, "10.0.3.3", 6, 0);
	nh(&d, "10.0.2.4", 5, 0);
	s = apply(m, a, ADD, false);
	CHECK_GW(s, "10.0.2.2");
	s = apply(m, b, APP, false);
	CHECK_GW(s, "10.0.2.2"); /* the old "last one wins" said 10.0.3.2 */
	s = apply(m, b, 0, true);
	CHECK_GW(s, "10.0.2.2"); /* the old code withdrew the prefix */
	s = apply(m, c, PRE, false);
	CHECK_GW(s, "10.0.3.3");
	s = apply(m, b, APP, false);
	/* replace takes the first route's place: d, a, b */
	s = apply(m, d, REP, false);
	CHECK_GW(s, "10.0.2.4");
	s = apply(m, d, 0, true);
	CHECK_GW(s, "10.0.2.2");
	s = apply(m, a, 0, true);
	CHECK_GW(s, "10.0.3.2");
	s = apply(m, b, 0, true);
	CHECK_GW(s, "none");
	{
		struct dpr_kmirror_counts n;

		dpr_kmirror_counts(m, &n);
		CHECK(n.routes == 0 && n.prefixes == 0 && n.held == 0,
		      "an emptied prefix is freed: %u routes, %u prefixes, %u held", n.routes,
		      n.prefixes, n.held);
	}
	dpr_kmirror_free(m);
}

/* Metrics and TOS: the lowest metric of TOS 0. */
static void
test_ip4_metric_tos(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route m20 = rt("10.2.0.0/16", 20, RTN_UNICAST), m10 = m20, tos = m20;
	struct dpr_nl_route bh = rt("10.2.0.0/16", 5, RTN_BLACKHOLE);
	const struct seen *s;

	m10.priority = 10;
	tos.tos = 0x10;
	tos.priority = 1;
	nh(&m20, "10.0.3.2", 6, 0);
	nh(&m10, "10.0.2.2", 5, 0);
	nh(&tos, "10.0.3.3", 6, 0);
	apply(m, m20, ADD, false);
	s = apply(m, m10, ADD, false);
	CHECK_GW(s, "10.0.2.2"); /* announced last but metric 10 */
	s = apply(m, tos, ADD, false);
	CHECK_GW(s, "10.0.2.2"); /* TOS 0x10: for packets of that TOS only */
	s = apply(m, bh, ADD, false);
	CHECK_GW(s, "blackhole");
	s = apply(m, bh, 0, true);
	s = apply(m, m10, 0, true);
	CHECK_GW(s, "10.0.3.2");
	CHECK_EQ(s->sel.priority, 20);
	dpr_kmirror_free(m);
}

/* RTNH_F_DEAD paths are left out; a route all dead gives way to the next. */
static void
test_dead(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route mp = rt("10.3.0.0/16", 10, RTN_UNICAST), m20 = rt("10.3.0.0/16", 20, RTN_UNICAST);
	struct dpr_nl_route v6 = rt("2001:db8:3::/48", 1024, RTN_UNICAST);
	const struct seen *s;

	nh(&m20, "10.0.2.9", 5, 0);
	apply(m, m20, ADD, false);
	nh(&mp, "10.0.2.2", 5, 0);
	nh(&mp, "10.0.3.2", 6, RTNH_F_DEAD | RTNH_F_LINKDOWN);
	s = apply(m, mp, ADD, false);
	CHECK_GW(s, "10.0.2.2");
	/* A resync's dump after the link went down: both dead. */
	mp.nh[0].flags = RTNH_F_DEAD | RTNH_F_LINKDOWN;
	dpr_kmirror_mark_stale(m);
	CHECK(dpr_kmirror_route(m, &mp, NLM_F_MULTI, true, 0) == 0, "dump");
	CHECK(dpr_kmirror_route(m, &m20, NLM_F_MULTI, true, 0) == 0, "dump");
	CHECK_EQ(dpr_kmirror_sweep_routes(m), 0);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s, "10.0.2.9");
	/* LINKDOWN alone (carrier lost): the kernel still uses it. */
	mp.nh[0].flags = RTNH_F_LINKDOWN;
	s = apply(m, mp, REP, false);
	CHECK_GW(s, "10.0.2.2");
	/* IPv6: every path dead: no route at all. */
	nh(&v6, "2001:db8:2::2", 5, RTNH_F_DEAD);
	s = apply(m, v6, ADD, false);
	CHECK_GW(s, "none");
	dpr_kmirror_free(m);
}

static struct dpr_nl_nexthop
nho(uint32_t id, const char *gw, uint32_t ifindex)
{
	struct dpr_nl_nexthop o = { .id = id, .af = DPR_AF_IP4, .nh = hop(gw, ifindex, 0) };

	return o;
}

/* Next-hop objects: a member deleted, the object deleted, a route before its object. */
static void
test_nexthop_objects(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_nexthop n10 = nho(10, "10.0.2.2", 5), n11 = nho(11, "10.0.3.2", 6);
	struct dpr_nl_nexthop g12 = { .id = 12, .n_grp = 2, .grp = { { 10, 1 }, { 11, 3 } } };
	struct dpr_nl_route r1 = rt("10.81.0.0/16", 0, RTN_UNICAST), r2 = rt("10.82.0.0/16", 0, RTN_UNICAST);
	struct dpr_nl_route r3 = rt("10.83.0.0/16", 0, RTN_UNICAST);
	struct dpr_nl_nexthop del = { .del = true };
	const struct seen *s1, *s2, *s3;

	CHECK(dpr_kmirror_nexthop(m, &n10) == 0, "nh 10");
	CHECK(dpr_kmirror_nexthop(m, &n11) == 0, "nh 11");
	CHECK(dpr_kmirror_nexthop(m, &g12) == 0, "group 12");
	r1.nhg_id = 10;
	nh(&r1, "10.0.2.2", 5, 0);
	r2.nhg_id = 12;
	nh(&r2, "10.0.2.2", 5, 0);
	nh(&r2, "10.0.3.2", 6, 0);
	s1 = apply(m, r1, ADD, false);
	s2 = apply(m, r2, ADD, false);
	CHECK_GW(s1, "10.0.2.2");
	CHECK(s2->held && s2->sel.n_paths == 2 && s2->sel.paths[1].weight == 3,
	      "group 12: 2 paths, weights from the group (%u paths)", s2->sel.n_paths);
	/* ip nexthop del id 11: the kernel says so, and announces group 12 again. */
	del.id = 11;
	CHECK(dpr_kmirror_nexthop(m, &del) == 0, "del 11");
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s2, "10.0.2.2");
	/* Object 10 replaced: its routes follow, no route message. */
	n10.nh = hop("10.0.2.7", 5, 0);
	CHECK(dpr_kmirror_nexthop(m, &n10) == 0, "replace 10");
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s1, "10.0.2.7");
	CHECK_GW(s2, "10.0.2.7");
	/* ip nexthop del id 10: its IPv4 routes leave without RTM_DELROUTE. */
	del.id = 10;
	CHECK(dpr_kmirror_nexthop(m, &del) == 0, "del 10");
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s1, "none");
	CHECK_GW(s2, "none");
	/* A route naming an object the mirror does not know yet: its
	 * expanded paths, until the object comes. */
	r3.nhg_id = 30;
	nh(&r3, "10.0.3.3", 6, 0);
	s3 = apply(m, r3, ADD, false);
	CHECK_GW(s3, "10.0.3.3");
	{
		struct dpr_nl_nexthop bh = { .id = 30, .blackhole = true };

		CHECK(dpr_kmirror_nexthop(m, &bh) == 0, "nh 30");
		dpr_kmirror_flush(m, record, NULL, false);
		CHECK_GW(s3, "blackhole");
	}
	/* A next-hop dump that no longer lists 30: forgotten, the route
	 * back to its own paths until the route dump says. */
	dpr_kmirror_mark_stale(m);
	CHECK_EQ(dpr_kmirror_sweep_nexthops(m), 1);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s3, "10.0.3.3");
	CHECK_EQ(dpr_kmirror_sweep_routes(m), 1);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s3, "none");
	dpr_kmirror_free(m);
}

/* IPv6: each path a route; per-path deletes, appends, replaces, metrics. */
static void
test_ip6(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route mp = rt("2001:db8:99::/48", 1024, RTN_UNICAST);
	struct dpr_nl_route p1 = mp, p3 = mp, all = mp, rep = mp, bh = rt("2001:db8:99::/48", 1024, RTN_BLACKHOLE);
	struct dpr_nl_route m10 = rt("2001:db8:99::/48", 10, RTN_UNICAST);
	const struct seen *s;

	nh(&mp, "2001:db8:2::2", 5, 0);
	nh(&mp, "2001:db8:3::2", 6, 0);
	s = apply(m, mp, ADD, false);
	CHECK(s->held && s->sel.n_paths == 2, "two paths (%u)", s->sel.n_paths);
	/* ip -6 route del ... via 2001:db8:2::2: one path's RTM_DELROUTE */
	nh(&p1, "2001:db8:2::2", 5, 0);
	s = apply(m, p1, 0, true);
	CHECK_GW(s, "2001:db8:3::2"); /* the old code withdrew the prefix */
	/* ip -6 route append ... via 2001:db8:2::3: the kernel lists all siblings */
	nh(&all, "2001:db8:2::3", 5, 0);
	nh(&all, "2001:db8:3::2", 6, 0);
	s = apply(m, all, APP, false);
	CHECK(s->held && s->sel.n_paths == 2, "two paths again (%u)", s->sel.n_paths);
	/* a sibling's path dead */
	nh(&p3, "2001:db8:2::3", 5, RTNH_F_DEAD);
	s = apply(m, p3, APP, false);
	CHECK_GW(s, "2001:db8:3::2");
	/* metric 10 wins, and its deletion gives the 1024 siblings back */
	nh(&m10, "2001:db8:2::9", 5, 0);
	s = apply(m, m10, ADD, false);
	CHECK_GW(s, "2001:db8:2::9");
	s = apply(m, m10, 0, true);
	CHECK_GW(s, "2001:db8:3::2");
	/* ip -6 route replace: the siblings go, one route stays */
	nh(&rep, "2001:db8:2::4", 5, 0);
	s = apply(m, rep, REP, false);
	CHECK_GW(s, "2001:db8:2::4");
	{
		struct dpr_kmirror_counts n;

		dpr_kmirror_counts(m, &n);
		CHECK_EQ(n.routes, 1);
	}
	/* replace by a blackhole, then by a gateway again (no route of the
	 * same kind at the metric: the first one's place) */
	s = apply(m, bh, REP, false);
	CHECK_GW(s, "blackhole");
	s = apply(m, rep, REP, false);
	CHECK_GW(s, "2001:db8:2::4");
	/* A replace takes its route's place, behind a route of the metric
	 * before it: ip -6 route add blackhole, append a two-path route,
	 * replace it by one path: the blackhole stays first. */
	{
		struct dpr_nl_route b2 = rt("2001:db8:98::/48", 1024, RTN_BLACKHOLE);
		struct dpr_nl_route two = rt("2001:db8:98::/48", 1024, RTN_UNICAST), one = two;

		nh(&two, "2001:db8:2::2", 5, 0);
		nh(&two, "2001:db8:3::2", 6, 0);
		nh(&one, "2001:db8:2::2", 5, 0);
		apply(m, b2, ADD, false);
		s = apply(m, two, APP, false);
		CHECK_GW(s, "blackhole");
		s = apply(m, one, REP, false);
		CHECK_GW(s, "blackhole");
		s = apply(m, b2, 0, true);
		CHECK_GW(s, "2001:db8:2::2");
	}
	dpr_kmirror_free(m);
}

/* A resync rebuilds the same, in the dump's order, and sweeps what it did not list. */
static void
test_resync(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route a = rt("10.5.0.0/16", 0, RTN_UNICAST), b = a, gone = rt("10.6.0.0/16", 0, RTN_UNICAST);
	const struct seen *s, *sg;
	unsigned int calls;

	nh(&a, "10.0.2.2", 5, 0);
	nh(&b, "10.0.3.2", 6, 0);
	nh(&gone, "10.0.3.2", 6, 0);
	apply(m, a, ADD, false);
	s = apply(m, b, APP, false);
	sg = apply(m, gone, ADD, false);
	CHECK_GW(s, "10.0.2.2");
	/* Events were lost: the kernel now has b before a, and no 10.6/16. */
	CHECK_EQ(dpr_kmirror_mark_stale(m), 3);
	CHECK(dpr_kmirror_route(m, &b, NLM_F_MULTI, true, 0) == 0, "dump b");
	/* The dump's last prefix waits: its next route may be in the next datagram. */
	calls = s->calls;
	dpr_kmirror_flush(m, record, NULL, true);
	CHECK_EQ(s->calls, calls);
	CHECK(dpr_kmirror_route(m, &a, NLM_F_MULTI, true, 0) == 0, "dump a");
	CHECK_EQ(dpr_kmirror_sweep_routes(m), 1);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(s, "10.0.3.2");
	CHECK_GW(sg, "none");
	dpr_kmirror_free(m);
}

/*
 * Linux dumps an IPv6 route with ECMP siblings as one message and skips to
 * its last sibling: a blackhole appended between the first sibling and a
 * later one is in no dump. A resync keeps it from its events, and the
 * kernel's choice with it (found with seed 17339 of kernel_mirror.sh's
 * random sequence: the blackhole was swept, and once the siblings were
 * deleted the kernel dropped with it while dpr had no route).
 */
static void
test_ip6_hidden(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route s1 = rt("2001:db8:90::/64", 1024, RTN_UNICAST), both = s1, dead = s1;
	struct dpr_nl_route bh = rt("2001:db8:90::/64", 1024, RTN_BLACKHOLE);
	struct dpr_nl_route one = rt("2001:db8:91::/64", 1024, RTN_UNICAST);
	struct dpr_nl_route bh1 = rt("2001:db8:91::/64", 1024, RTN_BLACKHOLE);
	struct dpr_kmirror_counts c;
	const struct seen *s, *s91;

	n_seen = 0;
	/* ip -6 route append P via 2001:db8:3::2; append blackhole P;
	 * append P via 2001:db8:2::3: the kernel has [3::2, blackhole, 2::3]
	 * and announces the siblings together. */
	nh(&s1, "2001:db8:3::2", 6, 0);
	apply(m, s1, APP, false);
	CHECK_GW(apply(m, bh, APP, false), "2001:db8:3::2");
	nh(&both, "2001:db8:3::2", 6, 0);
	nh(&both, "2001:db8:2::3", 5, 0);
	s = apply(m, both, APP, false);
	CHECK(s->held && s->sel.n_paths == 2, "two paths (%u)", s->sel.n_paths);
	/* Beside it, a blackhole behind a lone gateway route: a dump lists it. */
	nh(&one, "2001:db8:2::2", 5, 0);
	apply(m, one, ADD, false);
	s91 = apply(m, bh1, APP, false);
	CHECK_GW(s91, "2001:db8:2::2");

	/* A resync after the TAP of 2001:db8:3::2 went down: the dump lists
	 * the siblings, the first one dead, and neither blackhole; the second
	 * blackhole is really gone. */
	nh(&dead, "2001:db8:3::2", 6, RTNH_F_DEAD | RTNH_F_LINKDOWN);
	nh(&dead, "2001:db8:2::3", 5, 0);
	dpr_kmirror_mark_stale(m);
	CHECK(dpr_kmirror_route(m, &dead, NLM_F_MULTI, true, 0) == 0, "dump siblings");
	CHECK(dpr_kmirror_route(m, &one, NLM_F_MULTI, true, 0) == 0, "dump lone route");
	CHECK_EQ(dpr_kmirror_sweep_routes(m), 1);
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.hidden, 1);
	CHECK_EQ(c.routes, 4);
	dpr_kmirror_flush(m, record, NULL, false);
	/* The kernel's lookup: 3::2 is dead, the blackhole is next
	 * (`ip -6 route get` answers EINVAL, a blackhole's error). */
	CHECK_GW(s, "blackhole");
	CHECK_GW(s91, "2001:db8:2::2");

	/* The link is back: another resync, the siblings live again. */
	dpr_kmirror_mark_stale(m);
	CHECK(dpr_kmirror_route(m, &both, NLM_F_MULTI, true, 0) == 0, "dump siblings");
	CHECK(dpr_kmirror_route(m, &one, NLM_F_MULTI, true, 0) == 0, "dump lone route");
	CHECK_EQ(dpr_kmirror_sweep_routes(m), 0);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK(s->held && s->sel.type == RTN_UNICAST && s->sel.n_paths == 2,
	      "the siblings again (%s)", gw_of(s));
	/* ip -6 route del P: the siblings go in one message, the blackhole stays. */
	CHECK_GW(apply(m, both, 0, true), "blackhole");
	dpr_kmirror_free(m);
}

/*
 * `ip nexthop replace` announces the IPv6 routes by that object (and by
 * the groups holding it) again with NLM_F_REPLACE (fib6_rt_update()),
 * with the request's seq and port id, after the object's RTM_NEWNEXTHOP:
 * such a route keeps its place, behind a blackhole of its metric, and
 * replaces nothing (found with seed 20004 of kernel_mirror.sh's random
 * sequence: the blackhole was replaced, and dpr forwarded where the kernel
 * dropped). An `ip -6 route replace ... nhid 4`, a request of its own,
 * comes with the same flags and does replace the blackhole, though a
 * route by 4 is there already: the kernel then holds two (seeds 50094,
 * 50096 and 50137: dpr kept the blackhole and dropped what the kernel
 * forwarded).
 */
static void
test_ip6_nexthop_update(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route bh = rt("2001:db8:93::/64", 10, RTN_BLACKHOLE);
	struct dpr_nl_route byobj = rt("2001:db8:93::/64", 10, RTN_UNICAST);
	struct dpr_nl_route bygrp = rt("2001:db8:93::/64", 10, RTN_UNICAST);
	struct dpr_nl_nexthop n4 = nho(4, "2001:db8:2::2", 5);
	struct dpr_nl_nexthop g6 = { .id = 6, .n_grp = 1, .grp = { { 4, 1 } } };
	struct dpr_kmirror_counts c;
	const struct seen *s;

	n_seen = 0;
	n4.af = DPR_AF_IP6;
	dpr_kmirror_origin(m, 1, 100);
	CHECK(dpr_kmirror_nexthop(m, &n4) == 0, "nh 4");
	dpr_kmirror_origin(m, 2, 100);
	CHECK(dpr_kmirror_nexthop(m, &g6) == 0, "group 6");
	byobj.nhg_id = 4;
	nh(&byobj, "2001:db8:2::2", 5, 0); /* as nexthop_compat_mode expands it */
	bygrp.nhg_id = 6;
	nh(&bygrp, "2001:db8:2::2", 5, 0);
	dpr_kmirror_origin(m, 3, 100);
	apply(m, bh, APP, false);
	dpr_kmirror_origin(m, 4, 100);
	s = apply(m, byobj, APP, false);
	dpr_kmirror_origin(m, 5, 100);
	s = apply(m, bygrp, APP, false);
	CHECK_GW(s, "blackhole");
	/* ip nexthop replace id 4 via 2001:db8:2::3 dev ... (request 6):
	 * the object, then its route and its group's route again. */
	n4.nh = hop("2001:db8:2::3", 5, 0);
	dpr_kmirror_origin(m, 6, 100);
	CHECK(dpr_kmirror_nexthop(m, &n4) == 0, "replace 4");
	byobj.nh[0] = hop("2001:db8:2::3", 5, 0);
	bygrp.nh[0] = byobj.nh[0];
	s = apply(m, byobj, REP, false);
	CHECK_GW(s, "blackhole");
	s = apply(m, bygrp, REP, false);
	CHECK_GW(s, "blackhole");
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.routes, 3);
	/* ip -6 route replace 2001:db8:93::/64 nhid 4 (request 7, another
	 * process): the blackhole, first of the metric, is replaced. */
	dpr_kmirror_origin(m, 7, 200);
	s = apply(m, byobj, REP, false);
	CHECK(s->held && s->sel.type == RTN_UNICAST && s->sel.nhid == 4,
	      "the blackhole replaced by a route by object 4 (%s)", gw_of(s));
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.routes, 3);
	/* ip -6 route del ... nhid 4: the first of the two goes, the other
	 * is still first of the metric. */
	s = apply(m, byobj, 0, true);
	CHECK(s->held && s->sel.type == RTN_UNICAST && s->sel.nhid == 4,
	      "the other route by object 4 (%s)", gw_of(s));
	dpr_kmirror_free(m);
}

/*
 * IPv4 alike: `ip nexthop replace` announces the route by the object again
 * (fib_info_notify_update()) and it keeps its place behind a blackhole of
 * its metric; an `ip route replace ... nhid 4 proto static` (a request of
 * its own) replaces the first route of the TOS and metric, the blackhole,
 * though the mirror holds a route by 4 that differs only in what it does
 * not compare (the protocol: the kernel has no duplicate to refuse).
 */
static void
test_ip4_nexthop_update(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route bh = rt("10.94.0.0/24", 10, RTN_BLACKHOLE);
	struct dpr_nl_route byobj = rt("10.94.0.0/24", 10, RTN_UNICAST);
	struct dpr_nl_nexthop n4 = nho(4, "10.0.2.2", 5);
	struct dpr_kmirror_counts c;
	const struct seen *s;

	n_seen = 0;
	dpr_kmirror_origin(m, 1, 100);
	CHECK(dpr_kmirror_nexthop(m, &n4) == 0, "nh 4");
	byobj.nhg_id = 4;
	nh(&byobj, "10.0.2.2", 5, 0);
	dpr_kmirror_origin(m, 2, 100);
	apply(m, bh, APP, false);
	dpr_kmirror_origin(m, 3, 100);
	s = apply(m, byobj, APP, false);
	CHECK_GW(s, "blackhole");
	/* ip nexthop replace id 4 via 10.0.2.3 ... (request 4) */
	n4.nh = hop("10.0.2.3", 5, 0);
	dpr_kmirror_origin(m, 4, 100);
	CHECK(dpr_kmirror_nexthop(m, &n4) == 0, "replace 4");
	byobj.nh[0] = hop("10.0.2.3", 5, 0);
	s = apply(m, byobj, REP, false);
	CHECK_GW(s, "blackhole");
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.routes, 2);
	/* ip route replace 10.94.0.0/24 nhid 4 metric 10 proto static (request 5) */
	byobj.protocol = RTPROT_STATIC;
	dpr_kmirror_origin(m, 5, 200);
	s = apply(m, byobj, REP, false);
	CHECK(s->held && s->sel.type == RTN_UNICAST && s->sel.nhid == 4,
	      "the blackhole replaced by a route by object 4 (%s)", gw_of(s));
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.routes, 2);
	dpr_kmirror_free(m);
}

/* One mirror, two tables (two VRFs): the same prefix in each is its own. */
static void
test_tables(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route a = rt("10.5.0.0/16", 0, RTN_UNICAST), b = a;
	struct dpr_kmirror_counts c;

	n_seen = 0;
	nh(&a, "10.0.1.2", 3, 0);
	b.table = 254;
	nh(&b, "10.0.2.2", 4, 0);
	CHECK_GW(apply(m, a, ADD, false), "10.0.1.2");
	CHECK_GW(apply(m, b, ADD, false), "10.0.2.2");
	CHECK_GW(seen_of(100, &a.prefix), "10.0.1.2");
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.prefixes, 2);
	CHECK_GW(apply(m, a, 0, true), "none");
	CHECK_GW(seen_of(254, &b.prefix), "10.0.2.2");
	dpr_kmirror_mark_stale(m);
	CHECK(dpr_kmirror_route(m, &b, 0, true, 0) == 0, "dump message");
	CHECK_EQ(dpr_kmirror_sweep_routes(m), 0);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(seen_of(254, &b.prefix), "10.0.2.2");
	dpr_kmirror_free(m);
}

/*
 * IPv4 routes of one prefix, TOS, metric and paths that differ in
 * protocol, scope, preferred source or metrics are two routes in the
 * kernel (fib_find_info() gives each its fib_info), deleted one by one.
 */
static void
test_ip4_apart(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route a = rt("10.9.0.0/16", 0, RTN_UNICAST), b[4];
	struct dpr_kmirror_counts c;
	unsigned int i;

	n_seen = 0;
	nh(&a, "10.0.1.2", 1, 0);
	a.protocol = RTPROT_STATIC;
	for (i = 0; i < 4; i++)
		b[i] = a;
	/* ip route append 10.9.0.0/16 via 10.0.1.2 proto bird */
	b[0].protocol = RTPROT_BIRD;
	/* ... scope link */
	b[1].scope = RT_SCOPE_LINK;
	/* ... src 10.0.1.1 */
	dpr_ip_parse("10.0.1.1", &b[2].prefsrc);
	/* ... mtu 1400 */
	b[3].metrics = 0x1234;
	for (i = 0; i < 4; i++) {
		CHECK_GW(apply(m, a, ADD, false), "10.0.1.2");
		CHECK_GW(apply(m, b[i], APP, false), "10.0.1.2");
		dpr_kmirror_counts(m, &c);
		CHECK_EQ(c.routes, 2);
		/* ip route del 10.9.0.0/16 via 10.0.1.2 proto static: the other stays */
		CHECK_GW(apply(m, a, 0, true), "10.0.1.2");
		CHECK_GW(apply(m, b[i], 0, true), "none");
	}
	/* A resync's dump lists both: two records still. */
	CHECK_GW(apply(m, a, ADD, false), "10.0.1.2");
	CHECK_GW(apply(m, b[0], APP, false), "10.0.1.2");
	dpr_kmirror_mark_stale(m);
	CHECK(dpr_kmirror_route(m, &a, NLM_F_MULTI, true, 0) == 0, "dump a");
	CHECK(dpr_kmirror_route(m, &b[0], NLM_F_MULTI, true, 0) == 0, "dump b");
	i = dpr_kmirror_sweep_routes(m);
	CHECK_EQ(i, 0);
	dpr_kmirror_flush(m, record, NULL, false);
	CHECK_GW(apply(m, a, 0, true), "10.0.1.2");
	dpr_kmirror_free(m);
}

/*
 * Two routes the kernel holds apart in what the mirror does not keep (a
 * realm, a path's onlink flag): a dump lists both, and the second message
 * does not refresh the record the first made; deleting one leaves the other.
 */
static void
test_dump_alike(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route a = rt("10.9.0.0/16", 0, RTN_UNICAST);
	struct dpr_kmirror_counts c;
	unsigned int n;

	n_seen = 0;
	nh(&a, "10.0.1.2", 1, 0);
	/* ip route add ... realm 1; ip route append ... realm 2 */
	CHECK_GW(apply(m, a, ADD, false), "10.0.1.2");
	CHECK_GW(apply(m, a, APP, false), "10.0.1.2");
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.routes, 2);
	dpr_kmirror_mark_stale(m);
	CHECK(dpr_kmirror_route(m, &a, NLM_F_MULTI, true, 0) == 0, "dump first");
	CHECK(dpr_kmirror_route(m, &a, NLM_F_MULTI, true, 0) == 0, "dump second");
	n = dpr_kmirror_sweep_routes(m);
	CHECK_EQ(n, 0);
	dpr_kmirror_flush(m, record, NULL, false);
	dpr_kmirror_counts(m, &c);
	CHECK_EQ(c.routes, 2);
	/* ip route del 10.9.0.0/16 via 10.0.1.2 realm 1: realm 2's stays */
	CHECK_GW(apply(m, a, 0, true), "10.0.1.2");
	CHECK_GW(apply(m, a, 0, true), "none");
	dpr_kmirror_free(m);
}

/*
 * Routes dpr ignores (kernel_routes.ignore_protocols) are placed, replace
 * and are deleted like the others, and never selected.
 */
static void
test_ignored(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route st = rt("10.9.0.0/16", 0, RTN_UNICAST), dh = st;
	struct dpr_nl_route st6 = rt("2001:db8:9::/48", 1024, RTN_UNICAST), dh6 = st6;
	const uint8_t ign = DPR_KMIRROR_IGNORED;

	n_seen = 0;
	nh(&st, "10.0.1.2", 1, 0);
	st.protocol = RTPROT_STATIC;
	dh.protocol = RTPROT_DHCP;
	nh(&dh, "10.0.1.3", 1, 0);
	/* ip route prepend ... proto dhcp before the static one: passed over */
	CHECK_GW(apply(m, st, ADD, false), "10.0.1.2");
	CHECK_GW(apply_bad(m, dh, PRE, false, ign), "10.0.1.2");
	CHECK_GW(apply_bad(m, dh, 0, true, ign), "10.0.1.2");
	/* ip route replace ... via 10.0.1.3 proto dhcp: the static one is gone */
	CHECK_GW(apply_bad(m, dh, REP, false, ign), "none");
	CHECK_GW(apply(m, st, ADD, false), "10.0.1.2");
	CHECK_GW(apply(m, st, 0, true), "none");
	CHECK_GW(apply_bad(m, dh, 0, true, ign), "none");

	/* IPv6: a sibling of the static route that dpr ignores is not a path */
	st6.protocol = RTPROT_STATIC;
	nh(&st6, "2001:db8:1::2", 1, 0);
	dh6.protocol = RTPROT_RA;
	nh(&dh6, "2001:db8:1::3", 1, 0);
	CHECK_GW(apply(m, st6, ADD, false), "2001:db8:1::2");
	CHECK_GW(apply_bad(m, dh6, APP, false, ign), "2001:db8:1::2");
	/* ip -6 route replace ... proto ra: ends the static route */
	CHECK_GW(apply_bad(m, dh6, REP, false, ign), "none");
	dpr_kmirror_free(m);
}

/*
 * What dpr_kmirror_uses() says as routes come and go: a path's interface,
 * an IPv4 preferred source, a next-hop object's interface.
 */
static void
test_uses(void)
{
	struct dpr_kmirror *m = dpr_kmirror_create();
	struct dpr_nl_route a = rt("10.1.0.0/16", 0, RTN_UNICAST), b = a;
	struct dpr_nl_nexthop o = { .id = 7, .af = DPR_AF_IP4, .nh = hop("10.0.4.2", 9, 0) };
	struct dpr_ip src;

	n_seen = 0;
	CHECK(dpr_ip_parse("10.9.9.9", &src) == 0, "10.9.9.9");
	nh(&a, "10.0.2.2", 5, 0);
	nh(&b, "10.0.3.2", 6, 0);
	nh(&b, "10.0.2.3", 5, 0);
	b.prefsrc = src;
	apply(m, a, ADD, false);
	apply(m, b, APP, false);
	CHECK(dpr_kmirror_uses(m, 5, NULL) && dpr_kmirror_uses(m, 6, NULL), "interfaces 5, 6");
	CHECK(!dpr_kmirror_uses(m, 8, NULL), "not interface 8");
	CHECK(dpr_kmirror_uses(m, 8, &src), "a route with src 10.9.9.9");
	apply(m, b, 0, true);
	CHECK(dpr_kmirror_uses(m, 5, NULL), "interface 5 (route a)");
	CHECK(!dpr_kmirror_uses(m, 6, NULL) && !dpr_kmirror_uses(m, 8, &src), "nothing of b left");
	CHECK(!dpr_kmirror_uses(m, 9, NULL), "not interface 9");
	CHECK(dpr_kmirror_nexthop(m, &o) == 0, "object 7");
	CHECK(dpr_kmirror_uses(m, 9, NULL), "object 7 on interface 9");
	apply(m, a, 0, true);
	CHECK(!dpr_kmirror_uses(m, 5, NULL), "no route left on interface 5");
	dpr_kmirror_free(m);
}

/* ---- through lib/kernel/kroute.c into a router ---- */

#define SOCK_PATH "/tmp/dpr-test-kmirror.sock"

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"tap\": \"lo\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"vrfs\": [{\"name\": \"red\", \"table\": 100}],"
	" \"kernel_routes\": {\"ignore_protocols\": [\"dhcp\"]},"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256}}";

static struct dpr_router R;
static uint8_t kbuf[8192];

/* A route message as the kernel sends it; lo (the rig's p0 TAP) is ifindex 1. */
static struct nlmsghdr *
kmsg(uint16_t type, uint16_t flags, uint32_t table, const char *dst, uint8_t len, uint8_t proto,
     uint8_t rtype, uint32_t metric)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(kbuf, 0, sizeof(kbuf)));
	int family = strchr(dst, ':') ? AF_INET6 : AF_INET;
	struct rtmsg *rtm;
	uint8_t a[16];

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = 12345;
	nlh->nlmsg_pid = 4242;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = len;
	rtm->rtm_table = (uint8_t)table;
	rtm->rtm_protocol = proto;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = rtype;
	if (inet_pton(family, dst, a) != 1)
		abort();
	if (len > 0)
		mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, a);
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (metric != 0)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, metric);
	return nlh;
}

static struct nlmsghdr *
kgw_dev(struct nlmsghdr *nlh, const char *g, uint32_t ifindex)
{
	int family = strchr(g, ':') ? AF_INET6 : AF_INET;
	uint8_t a[16];

	if (inet_pton(family, g, a) != 1)
		abort();
	mnl_attr_put(nlh, RTA_GATEWAY, family == AF_INET ? 4 : 16, a);
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	return nlh;
}

static struct nlmsghdr *
kgw(struct nlmsghdr *nlh, const char *g)
{
	return kgw_dev(nlh, g, 1);
}

static void
ksend(struct nlmsghdr *nlh)
{
	dpr_kroute_input(&R, nlh, nlh->nlmsg_len);
}

/* The next hop VRF @p vrf's FIB has for @p text; -1 with none, -2 with no VRF there. */
static long
fib_nh(unsigned int vrf, const char *text)
{
	struct dpr_prefix pf = pfx(text);
	uint32_t n;

	if (R.vrfs[vrf].rib == NULL)
		return -2;
	return dpr_route_get(R.vrfs[vrf].rib, &pf, &n) == 0 ? (long)n : -1;
}

/* The next hop to gateway @p g; -1 when there is none. */
static long
gw_nh(const char *g)
{
	struct dpr_ip ip;

	if (dpr_ip_parse(g, &ip) < 0)
		abort();
	return dpr_nh_find_port(R.nh, &ip, 0);
}

/*
 * kernel_routes.ignore_protocols ["dhcp"]: `ip route add 10.9.0.0/16 via
 * 10.0.1.2 proto static`, then `ip route replace 10.9.0.0/16 via 10.0.1.3
 * proto dhcp`. The kernel announces only the new route (NLM_F_REPLACE,
 * no RTM_DELROUTE for the static one): dpr must stop forwarding via
 * 10.0.1.2, and hold nothing once the dhcp route is deleted too.
 */
static void
test_kroute_replace_by_ignored(void)
{
	CHECK_EQ(fib_nh(0, "10.9.0.0/16"), -1);
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.9.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 0), "10.0.1.2"));
	CHECK(gw_nh("10.0.1.2") >= 0, "a next hop for 10.0.1.2");
	CHECK_EQ(fib_nh(0, "10.9.0.0/16"), gw_nh("10.0.1.2"));
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_REPLACE, RT_TABLE_MAIN, "10.9.0.0", 16, RTPROT_DHCP,
		       RTN_UNICAST, 0), "10.0.1.3"));
	CHECK_EQ(fib_nh(0, "10.9.0.0/16"), -1);
	ksend(kgw(kmsg(RTM_DELROUTE, 0, RT_TABLE_MAIN, "10.9.0.0", 16, RTPROT_DHCP, RTN_UNICAST,
		       0), "10.0.1.3"));
	CHECK_EQ(fib_nh(0, "10.9.0.0/16"), -1);
	/* A static route beside an ignored one of a lower metric is the one dpr follows. */
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.9.0.0", 16,
		       RTPROT_DHCP, RTN_UNICAST, 0), "10.0.1.3"));
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.9.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 100), "10.0.1.2"));
	CHECK_EQ(fib_nh(0, "10.9.0.0/16"), gw_nh("10.0.1.2"));
	ksend(kgw(kmsg(RTM_DELROUTE, 0, RT_TABLE_MAIN, "10.9.0.0", 16, RTPROT_STATIC, RTN_UNICAST,
		       100), "10.0.1.2"));
	CHECK_EQ(fib_nh(0, "10.9.0.0/16"), -1);
}

/* stats.get's kernel_routes.kernel_table.@p key: what the mirror holds. */
static long
kernel_table(const char *key)
{
	json_t *o = dpr_kroute_stats_json(&R);
	long n = (long)json_integer_value(json_object_get(json_object_get(o, "kernel_table"), key));

	json_decref(o);
	return n;
}

/*
 * VRF red (table 100) has two kernel routes, blackholes 10.50/16 and
 * 10.51/16. vrf.del red; meanwhile 10.51/16 is deleted in the kernel
 * (unseen: no VRF has table 100); vrf.add red table 100 again; then `ip
 * route add unreachable 10.51.0.0/16 table 100 metric 100`. What red holds
 * must not come from what the mirror kept of the old VRF: the blackhole,
 * deleted in the kernel, would win over the new route (lower metric).
 * (What is still in the kernel, 10.50/16, comes back with the resync's
 * dump: tests/smoke/vrf_routes.sh.)
 */
static void
test_kroute_vrf_del_add(void)
{
	long routes, held;
	struct dpr_vrf_conf vc;
	char err[256];
	int v;

	v = dpr_router_vrf_index(&R, "red");
	CHECK(v > 0, "red");
	if (v <= 0)
		return;
	vc = R.vrfs[v].conf;
	routes = kernel_table("routes");
	held = kernel_table("prefixes_held");
	ksend(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, 100, "10.50.0.0", 16, RTPROT_STATIC,
		   RTN_BLACKHOLE, 0));
	ksend(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, 100, "10.51.0.0", 16, RTPROT_STATIC,
		   RTN_BLACKHOLE, 0));
	CHECK_EQ(fib_nh((unsigned int)v, "10.50.0.0/16"), DPR_NH_BLACKHOLE);
	CHECK_EQ(fib_nh((unsigned int)v, "10.51.0.0/16"), DPR_NH_BLACKHOLE);
	CHECK_EQ(kernel_table("routes"), routes + 2);
	CHECK_EQ(dpr_vrf_del(&R, (unsigned int)v, err, sizeof(err)), 0);
	/* The mirror keeps nothing of red's table, held or not. */
	CHECK_EQ(kernel_table("routes"), routes);
	CHECK_EQ(kernel_table("prefixes_held"), held);
	ksend(kmsg(RTM_DELROUTE, 0, 100, "10.51.0.0", 16, RTPROT_STATIC, RTN_BLACKHOLE, 0));
	v = dpr_vrf_add(&R, &vc, err, sizeof(err));
	CHECK(v > 0, "vrf.add: %s", err);
	if (v <= 0)
		return;
	ksend(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, 100, "10.51.0.0", 16, RTPROT_STATIC,
		   RTN_UNREACHABLE, 100));
	CHECK_EQ(fib_nh((unsigned int)v, "10.51.0.0/16"), DPR_NH_NONE);
}

/* stats.get's kernel_routes.resyncs.link. */
static long
link_resyncs(void)
{
	json_t *o = dpr_kroute_stats_json(&R);
	long n = (long)json_integer_value(json_object_get(json_object_get(o, "resyncs"), "link"));

	json_decref(o);
	return n;
}

static bool
kroute_dumping(void)
{
	json_t *o = dpr_kroute_stats_json(&R);
	bool d = json_is_true(json_object_get(o, "dumping"));

	json_decref(o);
	return d;
}

/* Let the resync under way (the host's table, dumped for real) end. */
static void
kroute_settle(void)
{
	unsigned int i;

	for (i = 0; i < 1000 && kroute_dumping(); i++) {
		dpr_server_poll(R.server, 10);
		dpr_kroute_timers(&R);
	}
	CHECK(!kroute_dumping(), "the resync's dump ended");
}

/* RTM_NEWLINK or RTM_DELLINK of interface @p ifindex, @p change the flags it is for. */
static struct nlmsghdr *
klink(uint16_t type, uint32_t ifindex, unsigned int flags, unsigned int change)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(kbuf, 0, sizeof(kbuf)));
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = flags;
	ifi->ifi_change = change;
	return nlh;
}

/* RTM_DELADDR of IPv4 address @p a on interface @p ifindex. */
static struct nlmsghdr *
kdeladdr(uint32_t ifindex, const char *a)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(kbuf, 0, sizeof(kbuf)));
	struct ifaddrmsg *ifa;
	uint8_t ip[4];

	nlh->nlmsg_type = RTM_DELADDR;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 32;
	ifa->ifa_index = ifindex;
	if (inet_pton(AF_INET, a, ip) != 1)
		abort();
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(ip), ip);
	mnl_attr_put(nlh, IFA_ADDRESS, sizeof(ip), ip);
	return nlh;
}

/*
 * `ip route add 10.60.0.0/16 via 10.0.1.2 dev eth9 metric 10` (eth9: no
 * TAP of dpr's), `ip route add 10.60.0.0/16 via 10.0.1.3 dev lo metric
 * 20` (p0's TAP): the kernel forwards through eth9, dpr holds nothing.
 * `ip link set eth9 down` flushes the metric 10 route without a message
 * (fib_disable_ip()); the kernel forwards through the TAP then, so dpr
 * must resync to learn it. Likewise the kernel flushes `... src
 * 10.9.9.9` routes when 10.9.9.9 leaves whichever interface held it. A
 * change of an interface no mirrored route uses, or of its carrier only,
 * resyncs nothing.
 */
static void
test_kroute_other_link(void)
{
	const uint32_t eth9 = 1000077, unused = 1000078, dum = 1000079;
	struct nlmsghdr *nlh;
	uint8_t src[4];
	long n;

	kroute_settle();
	ksend(kgw_dev(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.60.0.0",
			   16, RTPROT_STATIC, RTN_UNICAST, 10), "10.0.1.2", eth9));
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.60.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 20), "10.0.1.3"));
	CHECK_EQ(fib_nh(0, "10.60.0.0/16"), -1);
	n = link_resyncs();
	ksend(klink(RTM_NEWLINK, unused, 0, IFF_UP));
	CHECK_EQ(link_resyncs(), n);
	ksend(klink(RTM_NEWLINK, eth9, IFF_UP, 0)); /* carrier lost: routes kept */
	CHECK_EQ(link_resyncs(), n);
	ksend(klink(RTM_NEWLINK, eth9, 0, IFF_UP));
	CHECK_EQ(link_resyncs(), n + 1);
	kroute_settle();

	nlh = kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.61.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 0), "10.0.1.3");
	inet_pton(AF_INET, "10.9.9.9", src);
	mnl_attr_put(nlh, RTA_PREFSRC, sizeof(src), src);
	ksend(nlh);
	CHECK_EQ(fib_nh(0, "10.61.0.0/16"), gw_nh("10.0.1.3"));
	n = link_resyncs();
	ksend(kdeladdr(dum, "10.9.9.8"));
	CHECK_EQ(link_resyncs(), n);
	ksend(kdeladdr(dum, "10.9.9.9"));
	CHECK_EQ(link_resyncs(), n + 1);
	kroute_settle();
	n = link_resyncs();
	ksend(kgw_dev(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.62.0.0",
			   16, RTPROT_STATIC, RTN_UNICAST, 0), "10.0.1.2", eth9));
	ksend(klink(RTM_DELLINK, eth9, 0, ~0u));
	CHECK_EQ(link_resyncs(), n + 1);
	kroute_settle();
}

/* The port id of the mirror's rtnetlink socket (the one bound to route events). */
static uint32_t
kroute_portid(void)
{
	struct sockaddr_nl sa;
	socklen_t len;
	int fd;

	for (fd = 3; fd < 1024; fd++) {
		len = sizeof(sa);
		if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
		    sa.nl_family == AF_NETLINK && (sa.nl_groups & RTMGRP_IPV4_ROUTE))
			return sa.nl_pid;
	}
	return 0;
}

/*
 * A dump given up (an overflow while it ran, or its 10 s deadline) goes on
 * in the kernel: its remaining messages still come, with dpr's own port id
 * and the old seq. `ip route add 10.63.0.0/16 via 10.0.1.2`, then `ip
 * route append 10.63.0.0/16 via 10.0.1.3`: the kernel forwards via
 * 10.0.1.2. The given-up dump's message for the appended route, taken for
 * an `ip route add`, put a second record of it first: dpr forwarded via
 * 10.0.1.3 until the next dump ended.
 */
static void
test_kroute_old_dump(void)
{
	uint32_t portid = kroute_portid();
	struct nlmsghdr *nlh;

	CHECK(portid != 0, "the mirror's socket");
	kroute_settle();
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.63.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 0), "10.0.1.2"));
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_APPEND, RT_TABLE_MAIN, "10.63.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 0), "10.0.1.3"));
	CHECK_EQ(fib_nh(0, "10.63.0.0/16"), gw_nh("10.0.1.2"));
	nlh = kgw(kmsg(RTM_NEWROUTE, NLM_F_MULTI, RT_TABLE_MAIN, "10.63.0.0", 16, RTPROT_STATIC,
		       RTN_UNICAST, 0), "10.0.1.3");
	nlh->nlmsg_seq = 1;
	nlh->nlmsg_pid = portid;
	ksend(nlh);
	CHECK_EQ(fib_nh(0, "10.63.0.0/16"), gw_nh("10.0.1.2"));
	ksend(kgw(kmsg(RTM_DELROUTE, 0, RT_TABLE_MAIN, "10.63.0.0", 16, RTPROT_STATIC,
		       RTN_UNICAST, 0), "10.0.1.2"));
	ksend(kgw(kmsg(RTM_DELROUTE, 0, RT_TABLE_MAIN, "10.63.0.0", 16, RTPROT_STATIC,
		       RTN_UNICAST, 0), "10.0.1.3"));
	CHECK_EQ(fib_nh(0, "10.63.0.0/16"), -1);
}

/* stats.get's kernel_routes.@p key, a number. */
static long
kroute_stat(const char *key)
{
	json_t *o = dpr_kroute_stats_json(&R);
	long n = (long)json_integer_value(json_object_get(o, key));

	json_decref(o);
	return n;
}

/*
 * A resync's next-hop dump refused with EBUSY (an earlier dump still runs
 * on the socket: after an overflow, the kernel_routes smoke test saw
 * ENOBUFS, then EBUSY). `ip nexthop add id 50 via 10.0.1.2 dev lo`, its
 * RTM_DELNEXTHOP lost in the overflow: only a next-hop dump can tell the
 * mirror it is gone (a group naming it would spread over it). Taken for a
 * kernel without next-hop objects, the refusal went on to the route dump
 * and the object was never swept; the resync must be done again.
 */
static void
test_kroute_nexthop_dump_busy(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(kbuf, 0, sizeof(kbuf)));
	uint32_t portid = kroute_portid();
	struct nlmsgerr *e;
	struct nhmsg *nhm;
	uint8_t gw[4];
	long nexthops, done;
	unsigned int i;
	int64_t seq;

	kroute_settle();
	nexthops = kernel_table("nexthops");
	nlh->nlmsg_type = RTM_NEWNEXTHOP;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	nhm->nh_family = AF_INET;
	mnl_attr_put_u32(nlh, NHA_ID, 50);
	inet_pton(AF_INET, "10.0.1.2", gw);
	mnl_attr_put(nlh, NHA_GATEWAY, sizeof(gw), gw);
	mnl_attr_put_u32(nlh, NHA_OIF, 1);
	ksend(nlh);
	CHECK_EQ(kernel_table("nexthops"), nexthops + 1);
	done = kroute_stat("dumps_done");
	seq = dpr_kroute_resync(&R);
	CHECK(seq >= 0, "resync: %" PRId64, seq);
	nlh = mnl_nlmsg_put_header(memset(kbuf, 0, sizeof(kbuf)));
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = (uint32_t)seq;
	nlh->nlmsg_pid = portid;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -EBUSY;
	ksend(nlh);
	for (i = 0; i < 1000 && (kroute_dumping() || kroute_stat("dumps_done") == done); i++) {
		dpr_server_poll(R.server, 10);
		dpr_kroute_timers(&R);
	}
	CHECK(kroute_stat("dumps_done") > done, "the resync ended");
	CHECK_EQ(kernel_table("nexthops"), nexthops);
}

static struct nlmsghdr *knh_dev(uint16_t flags, uint32_t seq, uint32_t id, const char *gw,
			       uint32_t oif, const uint32_t *grp, unsigned int n);

/* RTM_NEWNEXTHOP of object @p id: a gateway on lo, or the group of @p n members @p grp. */
static struct nlmsghdr *
knh(uint16_t flags, uint32_t seq, uint32_t id, const char *gw, const uint32_t *grp,
    unsigned int n)
{
	return knh_dev(flags, seq, id, gw, 1, grp, n);
}

/* knh() with a gateway on interface @p oif. */
static struct nlmsghdr *
knh_dev(uint16_t flags, uint32_t seq, uint32_t id, const char *gw, uint32_t oif,
	const uint32_t *grp, unsigned int n)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(kbuf, 0, sizeof(kbuf)));
	struct nexthop_grp g[32];
	struct nhmsg *nhm;
	unsigned int i;
	uint8_t a[4];

	nlh->nlmsg_type = RTM_NEWNEXTHOP;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = 4242;
	nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	nhm->nh_family = gw != NULL ? AF_INET : AF_UNSPEC;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	if (gw != NULL) {
		if (inet_pton(AF_INET, gw, a) != 1)
			abort();
		mnl_attr_put(nlh, NHA_GATEWAY, sizeof(a), a);
		mnl_attr_put_u32(nlh, NHA_OIF, oif);
		return nlh;
	}
	memset(g, 0, sizeof(g));
	for (i = 0; i < n; i++)
		g[i].id = grp[i];
	mnl_attr_put(nlh, NHA_GROUP, n * sizeof(g[0]), g);
	return nlh;
}

/* A route message of request @p seq by next-hop object @p nhid (nexthop_compat_mode 0). */
static struct nlmsghdr *
kroute_nhid(uint16_t flags, uint32_t seq, const char *dst, uint32_t nhid)
{
	struct nlmsghdr *nlh = kmsg(RTM_NEWROUTE, flags, RT_TABLE_MAIN, dst, 16, RTPROT_STATIC,
				    RTN_UNICAST, 0);

	nlh->nlmsg_seq = seq;
	mnl_attr_put_u32(nlh, RTA_NH_ID, nhid);
	return nlh;
}

/*
 * Group 62 = 60/61, `ip route add 10.64.0.0/16 nhid 62`; `ip route add
 * 10.65.0.0/16 via 10.0.1.5`, `ip route append 10.65.0.0/16 nhid 62`.
 * Then `ip nexthop replace id 62 group` of 17 members, wider than dpr's
 * ECMP: the kernel announces 62 (refused by the decoder, E2BIG) and the
 * routes by it again with NLM_F_REPLACE in the same request. 10.64/16 is
 * spread over 17 gateways in the kernel: dpr must hold no route (it kept
 * 60/61); 10.65/16 stays via 10.0.1.5 (dpr took the announcement for an
 * `ip route replace` and dropped that route). `ip nexthop del id 62`
 * (its message as wide) takes the routes by it away: 10.65/16 via
 * 10.0.1.5 again in dpr too.
 */
static void
test_kroute_wide_group(void)
{
	static const uint32_t pair[] = { 60, 61 };
	uint32_t wide[17];
	struct nlmsghdr *nlh;
	unsigned int i;

	kroute_settle();
	ksend(knh(NLM_F_CREATE, 100, 60, "10.0.1.2", NULL, 0));
	ksend(knh(NLM_F_CREATE, 101, 61, "10.0.1.3", NULL, 0));
	for (i = 0; i < 17; i++) {
		char gw[16];

		wide[i] = i < 2 ? pair[i] : 70 + i;
		snprintf(gw, sizeof(gw), "10.0.1.%u", 20 + i);
		if (i >= 2)
			ksend(knh(NLM_F_CREATE, 102 + i, wide[i], gw, NULL, 0));
	}
	ksend(knh(NLM_F_CREATE, 120, 62, NULL, pair, 2));
	ksend(kroute_nhid(NLM_F_CREATE | NLM_F_EXCL, 121, "10.64.0.0", 62));
	ksend(kgw(kmsg(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, RT_TABLE_MAIN, "10.65.0.0", 16,
		       RTPROT_STATIC, RTN_UNICAST, 0), "10.0.1.5"));
	ksend(kroute_nhid(NLM_F_CREATE | NLM_F_APPEND, 122, "10.65.0.0", 62));
	CHECK(fib_nh(0, "10.64.0.0/16") >= 0, "10.64/16 by group 62");
	CHECK_EQ(fib_nh(0, "10.65.0.0/16"), gw_nh("10.0.1.5"));
	/* ip nexthop replace id 62 group 60/61/72/.../86 */
	ksend(knh(NLM_F_REPLACE, 130, 62, NULL, wide, 17));
	ksend(kroute_nhid(NLM_F_REPLACE, 130, "10.64.0.0", 62));
	ksend(kroute_nhid(NLM_F_REPLACE, 130, "10.65.0.0", 62));
	CHECK_EQ(fib_nh(0, "10.64.0.0/16"), -1);
	CHECK_EQ(fib_nh(0, "10.65.0.0/16"), gw_nh("10.0.1.5"));
	/* ip nexthop del id 62 */
	nlh = knh(0, 140, 62, NULL, wide, 17);
	nlh->nlmsg_type = RTM_DELNEXTHOP;
	ksend(nlh);
	CHECK_EQ(fib_nh(0, "10.65.0.0/16"), gw_nh("10.0.1.5"));
	CHECK_EQ(fib_nh(0, "10.64.0.0/16"), -1);
	ksend(kgw(kmsg(RTM_DELROUTE, 0, RT_TABLE_MAIN, "10.65.0.0", 16, RTPROT_STATIC,
		       RTN_UNICAST, 0), "10.0.1.5"));
	CHECK_EQ(fib_nh(0, "10.65.0.0/16"), -1);
}

/*
 * `ip nexthop add id 90 via 10.0.1.2 dev eth9` (no TAP of dpr's), then
 * eth9 loses its carrier (a veth's peer set down): the kernel removes
 * object 90 and the routes by it without a message (nh_netdev_event()),
 * and the notification of the carrier change has ifi_change 0. dpr must
 * resync; once the object is gone, later notifications of the link
 * without carrier ask for nothing more.
 */
static void
test_kroute_no_carrier(void)
{
	const uint32_t eth9 = 1000077;
	long n;

	kroute_settle();
	ksend(knh_dev(NLM_F_CREATE, 150, 90, "10.0.1.2", eth9, NULL, 0));
	n = link_resyncs();
	ksend(klink(RTM_NEWLINK, eth9, IFF_UP | IFF_RUNNING | 0x10000, 0));
	CHECK_EQ(link_resyncs(), n);
	ksend(klink(RTM_NEWLINK, eth9, IFF_UP, 0));
	CHECK_EQ(link_resyncs(), n + 1);
	kroute_settle();
	ksend(klink(RTM_NEWLINK, eth9, IFF_UP, 0));
	CHECK_EQ(link_resyncs(), n + 1);
}

static void
test_kroute(void)
{
	char err[512];

	if (test_router_init(&R, config_text, "test_kmirror") < 0) {
		CHECK(false, "router rig");
		return;
	}
	R.n_ports = 2;
	R.ports[0].has_tap = true;
	unlink(SOCK_PATH);
	R.server = dpr_server_create(&R, SOCK_PATH, "", err, sizeof(err));
	CHECK(R.server != NULL, "control server: %s", err);
	CHECK(dpr_kroute_start(&R, err, sizeof(err)) == 0, "kernel_routes: %s", err);
	if (R.server == NULL || R.kroute == NULL)
		return;
	test_kroute_replace_by_ignored();
	test_kroute_vrf_del_add();
	test_kroute_other_link();
	test_kroute_old_dump();
	test_kroute_nexthop_dump_busy();
	test_kroute_wide_group();
	test_kroute_no_carrier();
	dpr_kroute_free(&R);
	dpr_server_free(R.server);
	unlink(SOCK_PATH);
	test_router_free(&R);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	test_ip4_order();
	test_ip4_metric_tos();
	test_dead();
	test_nexthop_objects();
	test_ip6();
	test_resync();
	test_ip6_hidden();
	test_ip6_nexthop_update();
	test_ip4_nexthop_update();
	test_tables();
	test_ip4_apart();
	test_dump_alike();
	test_ignored();
	test_uses();
	test_kroute();
	return test_done("kmirror");
}
