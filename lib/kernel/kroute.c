/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "../api/server.h"
#include "../netlink/netlink.h"
#include "../route/feed.h"
#include "../router/router.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "kmirror.h"
#include "kroute.h"

RTE_LOG_REGISTER(dpr_logtype_kroute, dpr.kernel_routes, INFO);

#define KLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dpr_logtype_kroute, "dpr: kernel_routes: " fmt "\n", \
		##__VA_ARGS__)

/* linux/if.h's, which net/if.h leaves out (and the two do not mix). */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

/* Datagrams read a poll: a resync of a full table does not hold the control thread. */
#define POLL_DATAGRAMS 256
/* A dump that has not ended after this long is asked for again. */
#define DUMP_TIMEOUT_S 10
/* A dump the kernel refused is asked for again after this long. */
#define DUMP_RETRY_MS 200

/* Well-formed messages that are none of the mirror's business. */
enum ignore {
	IGN_TABLE,       /* another table */
	IGN_PROTOCOL,    /* RTPROT_KERNEL or kernel_routes.ignore_protocols */
	IGN_ROUTE_TYPE,  /* local, broadcast, multicast, anycast */
	IGN_CLONED,      /* RTM_F_CLONED: the route cache */
	IGN_FAMILY,      /* neither IPv4 nor IPv6 (multicast routing tables, MPLS) */
	IGN_INTERFACE,   /* a path whose interface is none of dpr's TAPs */
	IGN_SOURCE,      /* source-specific (IPv6 "from") */
	IGN_OLD_DUMP,    /* the rest of a dump given up: a resync's dump comes instead */
	IGN_MAX
};

static const char *const ign_names[IGN_MAX] = {
	[IGN_TABLE] = "table",
	[IGN_PROTOCOL] = "protocol",
	[IGN_ROUTE_TYPE] = "route_type",
	[IGN_CLONED] = "cloned",
	[IGN_FAMILY] = "family",
	[IGN_INTERFACE] = "interface",
	[IGN_SOURCE] = "source_specific",
	[IGN_OLD_DUMP] = "old_dump",
};

/* Routes of the table dpr cannot take: withdrawn. */
enum reject {
	REJ_MALFORMED,   /* the decoder refused it */
	REJ_ROUTE_TYPE,  /* throw, NAT...: no forwarding meaning for dpr */
	REJ_ENCAP,       /* a path with an encapsulation (MPLS, SRv6...) */
	REJ_TOO_MANY,    /* more paths than dpr's ECMP width */
	REJ_NO_PATH,     /* unicast with no path */
	REJ_MAX
};

static const char *const rej_names[REJ_MAX] = {
	[REJ_MALFORMED] = "malformed",
	[REJ_ROUTE_TYPE] = "route_type",
	[REJ_ENCAP] = "encapsulation",
	[REJ_TOO_MANY] = "too_many_paths",
	[REJ_NO_PATH] = "no_path",
};

/* Why a full resync started. */
enum resync {
	RS_START,        /* the first dump */
	RS_OVERFLOW,     /* ENOBUFS: the socket dropped events */
	RS_INTERRUPTED,  /* NLM_F_DUMP_INTR: the tables changed during the dump */
	RS_LINK,         /* a TAP went down, away, or lost an IPv4 address */
	RS_DUMP_FAILED,  /* the kernel refused the dump or it never ended */
	RS_VRF,          /* vrf.add: a table to mirror (again) */
	RS_MAX
};

static const char *const rs_names[RS_MAX] = {
	[RS_START] = "start",
	[RS_OVERFLOW] = "overflow",
	[RS_INTERRUPTED] = "interrupted",
	[RS_LINK] = "link",
	[RS_DUMP_FAILED] = "dump_failed",
	[RS_VRF] = "vrf",
};

/* A resync's dump comes in two parts, one request each. */
enum dump_phase {
	DUMP_NEXTHOPS,   /* RTM_GETNEXTHOP: the objects routes may name */
	DUMP_ROUTES,     /* RTM_GETROUTE, every family */
};

/* Control thread only. */
struct dpr_kroute {
	struct dpr_router *r;
	struct mnl_socket *nl;
	struct dpr_route_feed *feed;
	struct dpr_kmirror *mirror; /* the kernel's table and next-hop objects */
	uint32_t portid;
	uint32_t seq;              /* of the last dump asked for */
	bool dumping;              /* a dump is under way: its DONE sweeps */
	enum dump_phase phase;     /* of the dump asked for last */
	bool nh_unsupported;       /* the kernel refused a next-hop dump (said once) */
	bool resync_wanted;        /* another one after this dump, or when retry_at comes */
	bool resync_drained;       /* ...or as soon as the socket is drained (overflow()) */
	enum resync resync_why;    /* of the resync wanted */
	uint64_t dump_deadline;    /* dpr_clock_now(): a dump still running then is asked for again */
	uint64_t retry_at;         /* dpr_clock_now() of the next dump request; 0: none due */
	unsigned int rcvbuf;       /* what the kernel gave */
	bool tap_up[DPR_MAX_PORTS]; /* IFF_UP of each TAP, from link events */
	struct {
		uint64_t datagrams;
		uint64_t messages;
		uint64_t routes_added;    /* route adds handed to the feed */
		uint64_t routes_deleted;  /* route deletes and withdrawals handed to it */
		uint64_t ignored[IGN_MAX];
		uint64_t rejected[REJ_MAX];
		uint64_t resyncs[RS_MAX];
		uint64_t dumps_done;
		uint64_t dump_errors;
		uint64_t read_errors;
		uint64_t nexthop_events;  /* next-hop object messages taken */
		uint64_t stale_marked;
		uint64_t swept;
		uint64_t nexthops_swept;
		uint32_t last_marked, last_swept;
	} st;
	uint8_t buf[1 << 16];      /* one datagram (dumps send up to 32 KiB) */
};

static bool
proto_ignored(const struct dpr_kroute *k, uint8_t proto)
{
	return (k->r->cfg->kernel_routes.ignore_protocols[proto / 64] >> (proto % 64)) & 1;
}

static void
ignore(struct dpr_kroute *k, enum ignore why, const struct dpr_prefix *p)
{
	char buf[DPR_PREFIX_STRLEN];

	k->st.ignored[why]++;
	if (rte_log_can_log(dpr_logtype_kroute, RTE_LOG_DEBUG))
		KLOG(DEBUG, "ignored (%s): %s", ign_names[why],
		     p != NULL ? dpr_prefix_fmt(p, buf, sizeof(buf)) : "-");
}

/*
 * A route of the table dpr cannot take: counted and logged. It stays in
 * the mirror (the kernel may forward with it), and while it is what the
 * kernel selects for its prefix, dpr holds no route there.
 * @return its reason code for the mirror (dpr_kmirror_sel.bad).
 */
static uint8_t
reject(struct dpr_kroute *k, enum reject why, const struct dpr_prefix *p, const char *detail)
{
	uint64_t n = ++k->st.rejected[why];
	char buf[DPR_PREFIX_STRLEN];

	rte_log((n & (n - 1)) == 0 ? RTE_LOG_WARNING : RTE_LOG_DEBUG, dpr_logtype_kroute,
		"dpr: kernel_routes: refused (%s, %" PRIu64 " so far): %s: %s (withdrawn from dpr while the kernel uses it)\n",
		rej_names[why], n, dpr_prefix_fmt(p, buf, sizeof(buf)), detail);
	return (uint8_t)(why + 1);
}

/* Not (or no longer) a route dpr holds: withdraw its prefix from @p table's VRF. */
static void
withdraw(struct dpr_kroute *k, uint32_t table, const struct dpr_prefix *p, uint8_t proto)
{
	struct dpr_route_upd u = { .del = true, .prefix = *p, .table = table, .protocol = proto };

	k->st.routes_deleted++;
	dpr_route_feed_add(k->feed, &u);
}

/*
 * The mirror's answer for one prefix (dpr_kmirror_cb): what the kernel now
 * forwards with becomes the source's route, or the prefix is withdrawn.
 */
static bool
selected(void *arg, uint32_t table, const struct dpr_prefix *pf, const struct dpr_kmirror_sel *s)
{
	struct dpr_kroute *k = arg;
	struct dpr_route_upd u = { .prefix = *pf, .table = table };
	unsigned int i;
	int kind;

	if (s == NULL || s->bad != 0) {
		withdraw(k, table, pf, s != NULL ? s->protocol : 0);
		return false;
	}
	kind = dpr_route_kind_of(s->type);
	if (kind < 0) { /* the mirror holds no other kinds */
		withdraw(k, table, pf, s->protocol);
		return false;
	}
	u.kind = s->nh_blackhole ? DPR_RK_BLACKHOLE : (enum dpr_route_kind)kind;
	u.protocol = s->protocol;
	u.priority = s->priority;
	u.nhg_id = s->nhid;
	if (u.kind == DPR_RK_UNICAST) {
		for (i = 0; i < s->n_paths; i++) {
			/* A path through an interface that is none of dpr's
			 * (a next-hop object's, or a TAP gone): the kernel
			 * sends that traffic elsewhere. */
			if (dpr_route_feed_port(k->feed, s->paths[i].ifindex) < 0 ||
			    s->paths[i].encap_type != 0) {
				withdraw(k, table, pf, s->protocol);
				return false;
			}
			u.paths[i].gw = s->paths[i].gw;
			u.paths[i].ifindex = s->paths[i].ifindex;
			u.paths[i].weight = s->paths[i].weight;
		}
		u.n_paths = s->n_paths;
		if (u.n_paths == 0) {
			withdraw(k, table, pf, s->protocol);
			return false;
		}
	}
	k->st.routes_added++;
	dpr_route_feed_add(k->feed, &u);
	return true;
}

/* Hand the feed what changed and apply it as one batch. */
static void
flush(struct dpr_kroute *k)
{
	dpr_kmirror_flush(k->mirror, selected, k, k->dumping && k->phase == DUMP_ROUTES);
	dpr_route_feed_apply(k->feed);
}

static void
mirror_error(struct dpr_kroute *k)
{
	/* Out of memory: the mirror lost a change; start again from a dump. */
	KLOG(WARNING, "out of memory for the kernel table's copy: resync");
	k->resync_wanted = true;
	k->resync_why = RS_OVERFLOW;
	k->retry_at = dpr_clock_now() + DUMP_RETRY_MS * DPR_CLOCK_HZ / 1000;
}

static void
route_msg(struct dpr_kroute *k, const struct nlmsghdr *nlh, bool dump)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct dpr_nl_route nl;
	struct dpr_prefix pf;
	uint8_t proto, bad = 0;
	uint32_t table;
	unsigned int i;
	char err[128];
	int rc, kind;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm))) {
		k->st.rejected[REJ_MALFORMED]++;
		return;
	}
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) {
		ignore(k, IGN_FAMILY, NULL);
		return;
	}
	if (rtm->rtm_flags & RTM_F_CLONED) {
		ignore(k, IGN_CLONED, NULL);
		return;
	}
	rc = dpr_nl_route_parse(nlh, &nl, err, sizeof(err));
	if (rc < 0 && rc != -E2BIG) {
		dpr_nl_route_peek(nlh, &pf, &table, &proto);
		if (dpr_route_feed_vrf(k->feed, table) < 0) {
			ignore(k, IGN_TABLE, &pf);
		} else if (rc == -EOPNOTSUPP) {
			/* Its key is (destination, source): not what any
			 * destination's packets use. */
			ignore(k, IGN_SOURCE, &pf);
		} else {
			/* The kernel does not send those: count, keep going. */
			k->st.rejected[REJ_MALFORMED]++;
			KLOG(WARNING, "malformed route message: %s", err);
		}
		return;
	}
	/* kernel_routes.table for the default VRF, each VRF's "table" for it. */
	if (dpr_route_feed_vrf(k->feed, nl.table) < 0) {
		ignore(k, IGN_TABLE, &nl.prefix);
		return;
	}
	/* Ignored routes are the table's all the same: a replace by one
	 * ends the route it replaces (the kernel says nothing of that one),
	 * so the mirror places them, never to be selected. */
	if (proto_ignored(k, nl.protocol)) {
		ignore(k, IGN_PROTOCOL, &nl.prefix);
		bad = DPR_KMIRROR_IGNORED;
		goto mirror;
	}
	kind = dpr_route_kind_of(nl.type);
	if (kind == -ENOENT) {
		ignore(k, IGN_ROUTE_TYPE, &nl.prefix);
		bad = DPR_KMIRROR_IGNORED;
		goto mirror;
	}
	if (nl.del)
		goto mirror;
	if (rc == -E2BIG) {
		bad = reject(k, REJ_TOO_MANY, &nl.prefix, err);
	} else if (kind < 0) {
		snprintf(err, sizeof(err), "type %u (throw, NAT...) means nothing to dpr", nl.type);
		bad = reject(k, REJ_ROUTE_TYPE, &nl.prefix, err);
	} else if (kind == DPR_RK_UNICAST && nl.n_nh == 0 && nl.nhg_id == 0) {
		bad = reject(k, REJ_NO_PATH, &nl.prefix, "no path");
	} else if (kind == DPR_RK_UNICAST) {
		for (i = 0; i < nl.n_nh; i++) {
			if (nl.nh[i].encap_type != 0) {
				bad = reject(k, REJ_ENCAP, &nl.prefix,
					     "a path has an encapsulation (MPLS, SRv6...)");
				break;
			}
		}
		for (i = 0; i < nl.n_nh && bad == 0; i++) {
			/* Kept: the kernel may forward with it, and then
			 * dpr must not (selected() withdraws it). */
			if (dpr_route_feed_port(k->feed, nl.nh[i].ifindex) < 0) {
				ignore(k, IGN_INTERFACE, &nl.prefix);
				break;
			}
		}
	}
mirror:
	dpr_kmirror_origin(k->mirror, nlh->nlmsg_seq, nlh->nlmsg_pid);
	if (dpr_kmirror_route(k->mirror, &nl, nlh->nlmsg_flags, dump, bad) < 0)
		mirror_error(k);
}

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP: the objects routes may name (RTA_NH_ID). */
static void
nexthop_msg(struct dpr_kroute *k, const struct nlmsghdr *nlh)
{
	struct dpr_nl_nexthop nh;
	char err[128];
	int rc;

	rc = dpr_nl_nexthop_parse(nlh, &nh, err, sizeof(err));
	if (rc == -EAFNOSUPPORT) {
		ignore(k, IGN_FAMILY, NULL);
		return;
	}
	if (rc < 0 && rc != -E2BIG) {
		k->st.rejected[REJ_MALFORMED]++;
		KLOG(WARNING, "next-hop object message not taken: %s", err);
		return;
	}
	k->st.nexthop_events++;
	dpr_kmirror_origin(k->mirror, nlh->nlmsg_seq, nlh->nlmsg_pid);
	if (rc == -E2BIG && !nh.del) {
		/* A group wider than dpr's ECMP: the kernel spreads its
		 * routes over every member, dpr cannot (its routes come
		 * without paths when nexthop_compat_mode is 0). Known
		 * all the same, as refused: the members it had before must
		 * not stay, and the routes the request announces again are
		 * not `ip route replace`s. */
		k->st.rejected[REJ_TOO_MANY]++;
		KLOG(WARNING, "next-hop object %u refused (its routes withdrawn from dpr): %s",
		     nh.id, err);
		rc = dpr_kmirror_nexthop_bad(k->mirror, nh.id, (uint8_t)(REJ_TOO_MANY + 1));
	} else {
		/* A wide group's delete needs no member. */
		rc = dpr_kmirror_nexthop(k->mirror, &nh);
	}
	if (rc < 0)
		mirror_error(k);
}

/*
 * Ask for a dump: the next-hop objects (RTM_GETNEXTHOP), then every
 * family's routes; each reply's DONE ends its part (dump_done()).
 */
static int
dump_request(struct dpr_kroute *k, enum dump_phase phase)
{
	char req[NLMSG_ALIGN(sizeof(struct nlmsghdr)) + NLMSG_ALIGN(sizeof(struct rtmsg))];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(req, 0, sizeof(req)));

	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++k->seq;
	if (phase == DUMP_NEXTHOPS) {
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

		nlh->nlmsg_type = RTM_GETNEXTHOP;
		nhm->nh_family = AF_UNSPEC;
	} else {
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		nlh->nlmsg_type = RTM_GETROUTE;
		rtm->rtm_family = AF_UNSPEC;
	}
	k->phase = phase;
	if (k->nl == NULL) { /* no socket (tests): the caller plays the dump */
		k->dumping = true;
		return 0;
	}
	if (mnl_socket_sendto(k->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	k->dumping = true;
	k->dump_deadline = dpr_clock_now() + DUMP_TIMEOUT_S * DPR_CLOCK_HZ;
	return 0;
}

static void
dump_failed(struct dpr_kroute *k, int err)
{
	k->st.dump_errors++;
	KLOG(WARNING, "cannot ask for a dump: %s (retrying)", strerror(-err));
	k->resync_wanted = true;
	k->resync_why = RS_DUMP_FAILED;
	k->retry_at = dpr_clock_now() + DUMP_RETRY_MS * DPR_CLOCK_HZ / 1000;
}

static int64_t
resync(struct dpr_kroute *k, enum resync why)
{
	unsigned int n;
	int ret;

	if (k->dumping) {
		/* Changes were lost after parts of this dump were read: the
		 * next one starts at its end. */
		k->resync_wanted = true;
		k->resync_why = why;
		return k->seq;
	}
	k->resync_wanted = false;
	k->resync_drained = false;
	k->retry_at = 0;
	/* What was read before the loss goes in first. */
	flush(k);
	n = dpr_kmirror_mark_stale(k->mirror);
	k->st.last_marked = n;
	k->st.stale_marked += n;
	k->st.resyncs[why]++;
	if (why != RS_START)
		KLOG(WARNING, "full resync (%s): %u kernel routes marked stale, dumping the tables again",
		     rs_names[why], n);
	ret = dump_request(k, DUMP_NEXTHOPS);
	if (ret < 0) {
		dump_failed(k, ret);
		return ret;
	}
	return k->seq;
}

/*
 * An overflow (ENOBUFS): events were dropped, and the mirror cannot say
 * which. A dump under way is given up too: what was dropped may be the
 * kernel's answer to its request (EBUSY while an earlier dump still ran on
 * the socket, ENOBUFS when the request met a full buffer), and then no
 * NLMSG_DONE ever comes. The new dump is asked for once the socket is
 * drained (poll_cb()), so that its answer finds room and no earlier dump
 * is still running. Asked for at once, into the full buffer, its answer
 * was lost (a suite run: refused with ENOBUFS, then EBUSY, then nothing
 * until the 10 s dump timeout); given up and asked again on the timer
 * alone, it was lost ten times in a row in the kernel_routes test.
 * retry_at asks anyway if events never stop.
 */
static void
overflow(struct dpr_kroute *k)
{
	k->dumping = false;
	k->resync_wanted = true;
	k->resync_why = RS_OVERFLOW;
	k->resync_drained = true;
	k->retry_at = dpr_clock_now() + DUMP_RETRY_MS * DPR_CLOCK_HZ / 1000;
}

/* The DONE of our dump's part, or its refusal (@p err < 0). */
static void
dump_done(struct dpr_kroute *k, int err)
{
	unsigned int n;
	int ret;

	k->dumping = false;
	if (k->phase == DUMP_NEXTHOPS && (err == -EBUSY || err == -ENOBUFS || err == -ENOMEM ||
					  err == -EAGAIN || err == -EINTR)) {
		/* Refused for now (EBUSY: an earlier dump still runs on the
		 * socket; ENOBUFS), not for want of next-hop objects: those
		 * it would have refreshed or swept (one whose deletion was
		 * lost, still a member of its groups) stay as they are; go
		 * again, next-hop dump first. */
		k->st.dump_errors++;
		KLOG(WARNING, "the kernel refused the next-hop dump: %s (retrying)", strerror(-err));
		k->resync_wanted = true;
		k->resync_why = RS_DUMP_FAILED;
		k->retry_at = dpr_clock_now() + DUMP_RETRY_MS * DPR_CLOCK_HZ / 1000;
		return;
	}
	if (k->phase == DUMP_NEXTHOPS) {
		if (err < 0 && !k->nh_unsupported) {
			/* A kernel without next-hop objects (before 5.3):
			 * routes come with their paths alone. */
			k->nh_unsupported = true;
			KLOG(INFO, "no next-hop objects to dump (%s): routes only", strerror(-err));
		}
		if (err == 0)
			k->st.nexthops_swept += dpr_kmirror_sweep_nexthops(k->mirror);
		ret = dump_request(k, DUMP_ROUTES);
		if (ret < 0)
			dump_failed(k, ret);
		return;
	}
	if (err < 0) {
		k->st.dump_errors++;
		KLOG(WARNING, "the kernel refused the dump: %s (retrying)", strerror(-err));
		k->resync_wanted = true;
		k->resync_why = RS_DUMP_FAILED;
		k->retry_at = dpr_clock_now() + DUMP_RETRY_MS * DPR_CLOCK_HZ / 1000;
		return;
	}
	k->st.dumps_done++;
	n = dpr_kmirror_sweep_routes(k->mirror);
	flush(k);
	k->st.last_swept = n;
	k->st.swept += n;
	if (n != 0 || k->st.dumps_done > 1)
		KLOG(INFO, "dump done: %u kernel routes no longer in the mirrored tables removed", n);
	if (k->resync_wanted)
		resync(k, k->resync_why);
}

/* IFA_LOCAL (else IFA_ADDRESS) of an IPv4 RTM_DELADDR into *@p ip; false without one. */
static bool
ifa_local(const struct nlmsghdr *nlh, struct dpr_ip *ip)
{
	const struct nlattr *a, *local = NULL, *addr = NULL;
	uint32_t be;

	mnl_attr_for_each(a, nlh, sizeof(struct ifaddrmsg)) {
		if (mnl_attr_get_payload_len(a) != sizeof(be))
			continue;
		if (mnl_attr_get_type(a) == IFA_LOCAL)
			local = a;
		else if (mnl_attr_get_type(a) == IFA_ADDRESS)
			addr = a;
	}
	if (local == NULL)
		local = addr;
	if (local == NULL)
		return false;
	memcpy(&be, mnl_attr_get_payload(local), sizeof(be));
	memset(ip, 0, sizeof(*ip));
	ip->af = DPR_AF_IP4;
	ip->ip4 = ntohl(be);
	return true;
}

/*
 * An interface's link or IPv4 address changed: the kernel may have dropped
 * routes (IPv4 ones whose every path went dead, those whose preferred
 * source left, next-hop objects on the link) or marked paths dead or alive
 * again, and tells nobody. A TAP's change always resyncs; another
 * interface's (none of dpr's: its routes leave a prefix without a dpr
 * route while the kernel selects them, and a route of a higher metric
 * through a TAP takes over once they are flushed) when the mirror holds a
 * route it touches.
 */
static void
link_msg(struct dpr_kroute *k, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	bool has_src, no_carrier;
	struct dpr_ip src;
	uint32_t ifindex;
	int port;

	if (nlh->nlmsg_type == RTM_DELADDR) {
		const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) || ifa->ifa_family != AF_INET)
			return;
		ifindex = ifa->ifa_index;
		if (dpr_route_feed_port(k->feed, ifindex) >= 0) {
			resync(k, RS_LINK);
			return;
		}
		has_src = ifa_local(nlh, &src);
		if (dpr_kmirror_uses(k->mirror, ifindex, has_src ? &src : NULL)) {
			KLOG(INFO, "interface %u lost an IPv4 address that kernel routes use: resync",
			     ifindex);
			resync(k, RS_LINK);
		}
		return;
	}
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	ifindex = (uint32_t)ifi->ifi_index;
	/* Without carrier the kernel removes the next-hop objects on the
	 * link, and the routes by them, and says nothing (a carrier change
	 * comes with ifi_change 0); once resynced there are none left to
	 * ask again for. */
	no_carrier = nlh->nlmsg_type == RTM_NEWLINK &&
		     (ifi->ifi_flags & (IFF_RUNNING | IFF_LOWER_UP)) == 0 &&
		     dpr_kmirror_nexthops_on(k->mirror, ifindex);
	port = dpr_route_feed_port(k->feed, ifindex);
	if (port < 0) {
		/* ifi_change says which flags the notification is for. */
		if (no_carrier || ((nlh->nlmsg_type == RTM_DELLINK || (ifi->ifi_change & IFF_UP)) &&
				   dpr_kmirror_uses(k->mirror, ifindex, NULL))) {
			KLOG(INFO, "interface %u that kernel routes use went %s: resync", ifindex,
			     nlh->nlmsg_type != RTM_NEWLINK ? "away" :
			     !(ifi->ifi_flags & IFF_UP) ? "down" :
			     no_carrier ? "without carrier" : "up");
			resync(k, RS_LINK);
		}
		return;
	}
	if (nlh->nlmsg_type == RTM_NEWLINK) {
		bool up = (ifi->ifi_flags & IFF_UP) != 0, was = k->tap_up[port];

		k->tap_up[port] = up;
		if (up == was && !no_carrier)
			return;
	}
	KLOG(INFO, "TAP %s went %s: resync", k->r->cfg->ports[port].tap,
	     nlh->nlmsg_type != RTM_NEWLINK ? "away" :
	     !k->tap_up[port] ? "down" : no_carrier ? "without carrier" : "up");
	dpr_route_feed_map_refresh(k->feed);
	resync(k, RS_LINK);
}

void
dpr_kroute_input(struct dpr_router *r, const void *data, size_t len)
{
	struct dpr_kroute *k = r->kroute;
	const uint8_t *p = data;
	const struct nlmsghdr *nlh;
	char err[128];
	int rc;

	if (k == NULL)
		return;
	k->st.datagrams++;
	while ((rc = dpr_nl_msg_next(&p, &len, &nlh, err, sizeof(err))) > 0) {
		bool ours = k->dumping && nlh->nlmsg_seq == k->seq &&
			    (k->nl == NULL || nlh->nlmsg_pid == k->portid);

		k->st.messages++;
		/*
		 * Only dump answers carry this socket's port id (it asks
		 * for no change). One of a dump given up (overflow(), the
		 * dump deadline) goes on coming in the kernel's time; taken
		 * as an event, a route it lists would go in a second time
		 * (IPv4: before the first of its metric), and the route's
		 * delete would leave that second record. The resync due
		 * since then lists it again.
		 */
		if (!ours && k->nl != NULL && nlh->nlmsg_pid == k->portid) {
			k->st.ignored[IGN_OLD_DUMP]++;
			continue;
		}
		if (ours && (nlh->nlmsg_flags & NLM_F_DUMP_INTR) && !k->resync_wanted) {
			k->resync_wanted = true;
			k->resync_why = RS_INTERRUPTED;
		}
		switch (nlh->nlmsg_type) {
		case NLMSG_DONE:
			if (ours)
				dump_done(k, 0);
			break;
		case NLMSG_ERROR:
			if (ours) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

				dump_done(k, nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
					  e->error < 0 ? e->error : -EPROTO);
			}
			break;
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
			route_msg(k, nlh, ours);
			break;
		case RTM_NEWNEXTHOP:
		case RTM_DELNEXTHOP:
			nexthop_msg(k, nlh);
			break;
		case RTM_NEWLINK:
		case RTM_DELLINK:
		case RTM_DELADDR:
			link_msg(k, nlh);
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		k->st.rejected[REJ_MALFORMED]++;
		KLOG(WARNING, "malformed datagram: %s", err);
	}
	flush(k);
}

static void
poll_cb(void *arg)
{
	struct dpr_router *r = arg;
	struct dpr_kroute *k = r->kroute;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < POLL_DATAGRAMS; i++) {
		n = recv(mnl_socket_get_fd(k->nl), k->buf, sizeof(k->buf), MSG_DONTWAIT);
		if (n > 0) {
			dpr_kroute_input(r, k->buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			overflow(k);
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			k->st.read_errors++;
			KLOG(WARNING, "read: %s", strerror(errno));
		} else if (n < 0 && k->resync_drained) {
			resync(k, k->resync_why);
		}
		break;
	}
}

void
dpr_kroute_timers(struct dpr_router *r)
{
	struct dpr_kroute *k = r->kroute;
	uint64_t now;

	if (k == NULL)
		return;
	now = dpr_clock_now();
	if (k->dumping && k->nl != NULL && now > k->dump_deadline) {
		KLOG(WARNING, "the dump did not end within %u s: asking again", DUMP_TIMEOUT_S);
		k->dumping = false;
		resync(k, RS_DUMP_FAILED);
	} else if (!k->dumping && k->retry_at != 0 && now >= k->retry_at) {
		resync(k, k->resync_why);
	}
}

int64_t
dpr_kroute_resync(struct dpr_router *r)
{
	return r->kroute != NULL ? resync(r->kroute, RS_OVERFLOW) : -ENOENT;
}

void
dpr_kroute_vrf_del(struct dpr_router *r, uint32_t table)
{
	struct dpr_kroute *k = r->kroute;
	unsigned int n;

	if (k == NULL)
		return;
	/* Held records of it would outlive its events (ignored while the
	 * VRF is gone) and come back stale with a VRF of the same table. */
	n = dpr_kmirror_drop_table(k->mirror, table);
	flush(k);
	KLOG(INFO, "no longer mirroring kernel table %u (its VRF deleted): %u routes dropped",
	     table, n);
}

void
dpr_kroute_vrf_add(struct dpr_router *r, uint32_t table)
{
	struct dpr_kroute *k = r->kroute;
	int v;

	if (k == NULL || (v = dpr_route_feed_vrf(k->feed, table)) < 0)
		return;
	KLOG(INFO, "mirroring kernel table %u into VRF %s: resync", table, r->vrfs[v].conf.name);
	resync(k, RS_VRF);
}

int
dpr_kroute_start(struct dpr_router *r, char *err, size_t err_len)
{
	const struct dpr_kroute_conf *kc = &r->cfg->kernel_routes;
	unsigned int groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_LINK |
			      RTMGRP_IPV4_IFADDR;
	struct dpr_kroute *k;
	socklen_t sl = sizeof(int);
	int ret, fd, v, p;

	if (!kc->enabled)
		return 0;
	if (r->rib.srcs == NULL) {
		snprintf(err, err_len, "kernel_routes: no route source table to put the kernel's routes in");
		return -EINVAL;
	}
	k = calloc(1, sizeof(*k));
	if (k == NULL) {
		snprintf(err, err_len, "kernel_routes: out of memory");
		return -ENOMEM;
	}
	k->r = r;
	for (p = 0; p < (int)r->n_ports; p++)
		k->tap_up[p] = true;
	k->feed = dpr_route_feed_create(r, DPR_RSRC_KERNEL, kc->table, dpr_logtype_kroute,
					"kernel_routes");
	k->mirror = dpr_kmirror_create();
	if (k->feed == NULL || k->mirror == NULL) {
		snprintf(err, err_len, "kernel_routes: out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	k->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (k->nl == NULL) {
		ret = -errno;
		snprintf(err, err_len, "kernel_routes: cannot open an rtnetlink socket: %s",
			 strerror(errno));
		goto fail;
	}
	fd = mnl_socket_get_fd(k->nl);
	/* Room for a burst of changes (BIRD's start); FORCE passes
	 * net.core.rmem_max when dpr has CAP_NET_ADMIN. */
	v = (int)kc->socket_buffer;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &sl) == 0)
		k->rcvbuf = (unsigned int)v;
	/* Overflows must be reported (NETLINK_NO_ENOBUFS off, the default). */
	v = 0;
	setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &v, sizeof(v));
	if (mnl_socket_bind(k->nl, groups, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		snprintf(err, err_len, "kernel_routes: cannot subscribe to route events: %s",
			 strerror(errno));
		goto fail;
	}
	/* Next-hop objects have no RTMGRP_ bit (RTNLGRP_NEXTHOP is 32);
	 * a kernel without them (before 5.3) refuses: routes come
	 * expanded there anyway. */
	v = RTNLGRP_NEXTHOP;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &v, sizeof(v)) < 0)
		KLOG(INFO, "no next-hop object events (%s): routes only", strerror(errno));
	k->portid = mnl_socket_get_portid(k->nl);
	k->seq = (uint32_t)time(NULL);
	ret = dpr_server_watch(r->server, fd, poll_cb, r);
	if (ret < 0) {
		snprintf(err, err_len, "kernel_routes: cannot watch the rtnetlink socket: %s",
			 strerror(-ret));
		goto fail;
	}
	r->kroute = k;
	KLOG(INFO, "mirroring kernel table %u (routes through dpr's TAPs; socket buffer %u bytes)",
	     kc->table, k->rcvbuf);
	for (p = 1; p < DPR_MAX_VRFS; p++)
		if (dpr_router_rib(r, (unsigned int)p) != NULL)
			KLOG(INFO, "mirroring kernel table %u into VRF %s",
			     r->vrfs[p].conf.table, r->vrfs[p].conf.name);
	if (resync(k, RS_START) < 0)
		KLOG(WARNING, "the first dump could not be asked for; retrying");
	return 0;
fail:
	if (k->nl != NULL)
		mnl_socket_close(k->nl);
	dpr_route_feed_free(k->feed);
	dpr_kmirror_free(k->mirror);
	free(k);
	return ret;
}

void
dpr_kroute_free(struct dpr_router *r)
{
	struct dpr_kroute *k = r->kroute;

	if (k == NULL)
		return;
	if (k->nl != NULL)
		mnl_socket_close(k->nl);
	dpr_route_feed_free(k->feed);
	dpr_kmirror_free(k->mirror);
	free(k);
	r->kroute = NULL;
}

json_t *
dpr_kroute_stats_json(struct dpr_router *r)
{
	const struct dpr_kroute *k = r->kroute;
	struct dpr_route_src_counts c;
	struct dpr_kmirror_counts mc;
	json_t *o, *vrfs;

	if (k == NULL)
		return json_pack("{s:b}", "enabled", false);
	vrfs = dpr_route_feed_vrfs_json(k->feed, &c);
	o = json_pack("{s:b,s:I,s:I,s:b}",
		"enabled", true,
		"table", (json_int_t)r->cfg->kernel_routes.table,
		"socket_buffer", (json_int_t)k->rcvbuf,
		"dumping", k->dumping);
	if (o == NULL) {
		json_decref(vrfs);
		return json_object();
	}
	json_object_set_new(o, "datagrams", json_integer((json_int_t)k->st.datagrams));
	json_object_set_new(o, "messages", json_integer((json_int_t)k->st.messages));
	json_object_set_new(o, "routes_added", json_integer((json_int_t)k->st.routes_added));
	json_object_set_new(o, "routes_deleted", json_integer((json_int_t)k->st.routes_deleted));
	json_object_set_new(o, "ignored", dpr_counters_json(k->st.ignored, ign_names, IGN_MAX));
	json_object_set_new(o, "rejected", dpr_counters_json(k->st.rejected, rej_names, REJ_MAX));
	json_object_set_new(o, "resyncs", dpr_counters_json(k->st.resyncs, rs_names, RS_MAX));
	json_object_set_new(o, "dumps_done", json_integer((json_int_t)k->st.dumps_done));
	json_object_set_new(o, "dump_errors", json_integer((json_int_t)k->st.dump_errors));
	json_object_set_new(o, "read_errors", json_integer((json_int_t)k->st.read_errors));
	dpr_route_feed_stats_json(k->feed, o);
	json_object_set_new(o, "routes", json_integer(c.held[DPR_RSRC_KERNEL]));
	json_object_set_new(o, "routes_active", json_integer(c.active[DPR_RSRC_KERNEL]));
	json_object_set_new(o, "routes_stale", json_integer(c.stale[DPR_RSRC_KERNEL]));
	/* Per VRF, by table (the sums above are over all of them). */
	json_object_set_new(o, "vrfs", vrfs);
	json_object_set_new(o, "stale_marked", json_integer((json_int_t)k->st.stale_marked));
	json_object_set_new(o, "stale_marked_last", json_integer(k->st.last_marked));
	json_object_set_new(o, "swept", json_integer((json_int_t)k->st.swept));
	json_object_set_new(o, "swept_last", json_integer(k->st.last_swept));
	dpr_kmirror_counts(k->mirror, &mc);
	json_object_set_new(o, "kernel_table", json_pack("{s:I,s:I,s:I,s:I,s:I}",
		"routes", (json_int_t)mc.routes, "prefixes", (json_int_t)mc.prefixes,
		"nexthops", (json_int_t)mc.nexthops, "prefixes_held", (json_int_t)mc.held,
		"hidden_from_dump", (json_int_t)mc.hidden));
	json_object_set_new(o, "nexthop_events", json_integer((json_int_t)k->st.nexthop_events));
	json_object_set_new(o, "nexthops_swept", json_integer((json_int_t)k->st.nexthops_swept));
	return o;
}
