/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include <rte_common.h>
#include <rte_jhash.h>
#include <rte_log.h>

#include "../util/log.h"
#include "fpm.h"

extern int dpr_logtype_fpm;
RTE_LOG_REGISTER(dpr_logtype_fpm, dpr.fpm, INFO);

/*
 * The read buffer holds one whole frame (at most 64 KiB) plus room for the
 * next read, so a frame never has to be assembled elsewhere. Frames are a
 * multiple of 4 long and the buffer is compacted to its start, so every
 * frame's messages stay 4-byte aligned for dpr_nl_msg_next().
 */
#define READ_BUF (2u * (DPR_FPM_MAX_FRAME + 1))
/* Bytes read by one dpr_fpm_poll() before it lets the control thread go. */
#define POLL_BUDGET (1u << 20)
#define HASH_MIN 1024u
/* Tables whose routes were not taken, remembered up to this; past it, any counts. */
#define LOST_TABLES 16u

enum { EP_LISTEN, EP_CONN };

/*
 * One of zebra's next-hop objects, or a placeholder for an id something
 * names before (or without) zebra sending it: a route by RTA_NH_ID, or a
 * group listing it. An object lives from zebra's RTM_NEWNEXTHOP (taken or
 * refused) to its RTM_DELNEXTHOP, and after that while a route or a group
 * still names it.
 */
struct nh_obj {
	struct nh_obj *hnext;
	uint32_t id;
	bool have;              /**< nl holds zebra's object */
	bool deleted;           /**< RTM_DELNEXTHOP came while it was still named */
	/** Why zebra's last RTM_NEWNEXTHOP for this id was refused; 0 = it was not. */
	uint8_t refused;
	uint32_t n_refs;        /**< groups listing it */
	LIST_HEAD(, fpm_rt) users; /**< routes naming it by RTA_NH_ID */
	struct dpr_nl_nexthop nl;
};

/*
 * A route that points at a next-hop object: kept so that a change of the
 * object re-delivers it. Routes zebra sends with their paths need no state.
 */
struct fpm_rt {
	struct fpm_rt *hnext;
	LIST_ENTRY(fpm_rt) link;  /**< in nh->users */
	struct nh_obj *nh;
	struct dpr_prefix prefix;
	uint32_t table;           /**< with prefix, the key: one prefix may be in two VRFs */
	uint32_t priority;
	uint8_t protocol;
	bool installed;           /**< the sink holds it (its last delivery was an add) */
};

/* Control thread only, like everything in this module. */
struct dpr_fpm {
	struct dpr_fpm_sink sink;
	uint32_t table;
	int epfd;
	int lfd;                /**< listening socket */
	int cfd;                /**< zebra's connection; -1 when none */
	uint16_t port;
	char peer[INET6_ADDRSTRLEN + 8];
	uint64_t conn_frames;   /**< frames on this connection, for log lines */
	bool delivered;         /**< changes since the last batch_end() */
	uint8_t *buf;
	size_t len;
	struct nh_obj **nh_tbl;
	uint32_t nh_size, nh_count;
	struct fpm_rt **rt_tbl;
	uint32_t rt_size, rt_count;
	/*
	 * Tables this connection sent routes of that the sink does not hold
	 * (no VRF had the table, or its VRF was deleted): a VRF that takes
	 * one later needs zebra's replay (dpr_fpm_table_added()).
	 */
	uint32_t lost_tables[LOST_TABLES];
	unsigned int n_lost_tables;
	bool lost_many;          /**< more than LOST_TABLES of them */
	struct dpr_fpm_stats st;
};

static const char *const ign_names[DPR_FPM_IGN_MAX] = {
	[DPR_FPM_IGN_MSG_TYPE] = "message_type",
	[DPR_FPM_IGN_FAMILY] = "family",
	[DPR_FPM_IGN_TABLE] = "table",
	[DPR_FPM_IGN_PROTOCOL] = "protocol_kernel",
	[DPR_FPM_IGN_ROUTE_TYPE] = "route_type",
};

static const char *const rej_names[DPR_FPM_REJ_MAX] = {
	[DPR_FPM_REJ_NH_UNKNOWN] = "nexthop_unknown",
	[DPR_FPM_REJ_NH_NESTED] = "nexthop_nested",
	[DPR_FPM_REJ_ENCAP] = "encap",
	[DPR_FPM_REJ_NO_OIF] = "no_interface",
	[DPR_FPM_REJ_NO_PATH] = "no_path",
	[DPR_FPM_REJ_ROUTE_TYPE] = "route_type",
	[DPR_FPM_REJ_SOURCE] = "source_specific",
	[DPR_FPM_REJ_TOO_MANY] = "too_many_paths",
};

const char *
dpr_fpm_ignore_name(enum dpr_fpm_ignore i)
{
	return (unsigned int)i < DPR_FPM_IGN_MAX ? ign_names[i] : NULL;
}

const char *
dpr_fpm_reject_name(enum dpr_fpm_reject i)
{
	return (unsigned int)i < DPR_FPM_REJ_MAX ? rej_names[i] : NULL;
}

static void __attribute__((format(printf, 3, 4)))
ignore(struct dpr_fpm *f, enum dpr_fpm_ignore why, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	f->st.ignored[why]++;
	if (rte_log_can_log(dpr_logtype_fpm, RTE_LOG_DEBUG)) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		rte_log(RTE_LOG_DEBUG, dpr_logtype_fpm, "dpr: fpm: ignored (%s): %s\n",
			ign_names[why], msg);
	}
}

/* A refused route, counted under @p why and logged (dpr_log_counted()). */
#define reject(f, why, ...) \
	dpr_log_counted(dpr_logtype_fpm, ++(f)->st.rejected[why], "fpm: refused", \
			rej_names[why], __VA_ARGS__)

/* ---- next-hop objects ---- */

static struct nh_obj **
nh_slot(const struct dpr_fpm *f, uint32_t id)
{
	return &f->nh_tbl[rte_jhash_1word(id, 0) & (f->nh_size - 1)];
}

static struct nh_obj *
nh_find(const struct dpr_fpm *f, uint32_t id)
{
	struct nh_obj *o;

	for (o = *nh_slot(f, id); o != NULL; o = o->hnext)
		if (o->id == id)
			return o;
	return NULL;
}

/* Double the table past one entry a bucket; on ENOMEM, keep the long chains. */
static void
nh_grow(struct dpr_fpm *f)
{
	uint32_t old = f->nh_size, i;
	struct nh_obj **tbl = f->nh_tbl, *o, *next;

	f->nh_tbl = calloc(old * 2, sizeof(*f->nh_tbl));
	if (f->nh_tbl == NULL) {
		f->nh_tbl = tbl;
		return;
	}
	f->nh_size = old * 2;
	for (i = 0; i < old; i++) {
		for (o = tbl[i]; o != NULL; o = next) {
			struct nh_obj **s = nh_slot(f, o->id);

			next = o->hnext;
			o->hnext = *s;
			*s = o;
		}
	}
	free(tbl);
}

static struct nh_obj *
nh_get(struct dpr_fpm *f, uint32_t id)
{
	struct nh_obj *o = nh_find(f, id), **s;

	if (o != NULL)
		return o;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return NULL;
	o->id = id;
	LIST_INIT(&o->users);
	if (++f->nh_count > f->nh_size)
		nh_grow(f);
	s = nh_slot(f, id);
	o->hnext = *s;
	*s = o;
	return o;
}

static void nh_unref(struct dpr_fpm *f, struct nh_obj *o);

/* Drop the content: a group lets go of its members. */
static void
nh_clear(struct dpr_fpm *f, struct nh_obj *o)
{
	unsigned int i;

	if (!o->have)
		return;
	o->have = false;
	f->st.nexthops--;
	for (i = 0; i < o->nl.n_grp; i++) {
		struct nh_obj *m = nh_find(f, o->nl.grp[i].id);

		if (m != NULL)
			nh_unref(f, m);
	}
	o->nl.n_grp = 0;
}

/*
 * Free @p o once nothing needs it. Groups never list groups (nh_new()
 * refuses them), so nh_clear() recurses one level at most.
 */
static void
nh_maybe_free(struct dpr_fpm *f, struct nh_obj *o)
{
	struct nh_obj **s;

	if (((o->have || o->refused) && !o->deleted) || !LIST_EMPTY(&o->users) || o->n_refs > 0)
		return;
	nh_clear(f, o);
	for (s = nh_slot(f, o->id); *s != o; s = &(*s)->hnext)
		;
	*s = o->hnext;
	f->nh_count--;
	free(o);
}

static void
nh_unref(struct dpr_fpm *f, struct nh_obj *o)
{
	o->n_refs--;
	nh_maybe_free(f, o);
}

static bool
nh_same(const struct dpr_nl_nexthop *a, const struct dpr_nl_nexthop *b)
{
	unsigned int i;

	if (a->af != b->af || a->blackhole != b->blackhole || a->n_grp != b->n_grp ||
	    !dpr_ip_equal(&a->nh.gw, &b->nh.gw) || a->nh.ifindex != b->nh.ifindex ||
	    a->nh.flags != b->nh.flags || a->nh.encap_type != b->nh.encap_type)
		return false;
	for (i = 0; i < a->n_grp; i++)
		if (a->grp[i].id != b->grp[i].id || a->grp[i].weight != b->grp[i].weight)
			return false;
	return true;
}

/* ---- routes held by next-hop id ---- */

static uint32_t
prefix_hash(uint32_t table, const struct dpr_prefix *p)
{
	if (p->addr.af == DPR_AF_IP4)
		return rte_jhash_3words(p->addr.ip4, p->len, table, 0);
	return rte_jhash(p->addr.ip6, sizeof(p->addr.ip6), p->len ^ (table << 8));
}

static bool
prefix_equal(const struct dpr_prefix *a, const struct dpr_prefix *b)
{
	return a->len == b->len && dpr_ip_equal(&a->addr, &b->addr);
}

static struct fpm_rt **
rt_slot(const struct dpr_fpm *f, uint32_t table, const struct dpr_prefix *p)
{
	return &f->rt_tbl[prefix_hash(table, p) & (f->rt_size - 1)];
}

static struct fpm_rt **
rt_find(const struct dpr_fpm *f, uint32_t table, const struct dpr_prefix *p)
{
	struct fpm_rt **s;

	for (s = rt_slot(f, table, p); *s != NULL; s = &(*s)->hnext)
		if ((*s)->table == table && prefix_equal(&(*s)->prefix, p))
			return s;
	return NULL;
}

static void
rt_grow(struct dpr_fpm *f)
{
	uint32_t old = f->rt_size, i;
	struct fpm_rt **tbl = f->rt_tbl, *rt, *next;

	f->rt_tbl = calloc(old * 2, sizeof(*f->rt_tbl));
	if (f->rt_tbl == NULL) {
		f->rt_tbl = tbl;
		return;
	}
	f->rt_size = old * 2;
	for (i = 0; i < old; i++) {
		for (rt = tbl[i]; rt != NULL; rt = next) {
			struct fpm_rt **s = rt_slot(f, rt->table, &rt->prefix);

			next = rt->hnext;
			rt->hnext = *s;
			*s = rt;
		}
	}
	free(tbl);
}

/* The route at @p p of @p table no longer names a next-hop object. */
static void
rt_forget(struct dpr_fpm *f, uint32_t table, const struct dpr_prefix *p)
{
	struct fpm_rt **s = rt_find(f, table, p), *rt;

	if (s == NULL)
		return;
	rt = *s;
	*s = rt->hnext;
	LIST_REMOVE(rt, link);
	nh_maybe_free(f, rt->nh);
	f->rt_count--;
	f->st.routes_by_id--;
	free(rt);
}

/* Hold the route at @p p of @p table as naming object @p id; NULL on ENOMEM. */
static struct fpm_rt *
rt_set(struct dpr_fpm *f, uint32_t table, const struct dpr_prefix *p, uint32_t id)
{
	struct nh_obj *o = nh_get(f, id), *old;
	struct fpm_rt **s, *rt;

	if (o == NULL)
		return NULL;
	s = rt_find(f, table, p);
	if (s != NULL) {
		rt = *s;
		if (rt->nh != o) {
			old = rt->nh;
			LIST_REMOVE(rt, link);
			rt->nh = o;
			LIST_INSERT_HEAD(&o->users, rt, link);
			nh_maybe_free(f, old);
		}
		return rt;
	}
	rt = calloc(1, sizeof(*rt));
	if (rt == NULL) {
		nh_maybe_free(f, o);
		return NULL;
	}
	rt->prefix = *p;
	rt->table = table;
	rt->nh = o;
	LIST_INSERT_HEAD(&o->users, rt, link);
	if (++f->rt_count > f->rt_size)
		rt_grow(f);
	s = rt_slot(f, table, p);
	rt->hnext = *s;
	*s = rt;
	f->st.routes_by_id++;
	return rt;
}

static void
table_lost(struct dpr_fpm *f, uint32_t table)
{
	unsigned int i;

	for (i = 0; i < f->n_lost_tables; i++)
		if (f->lost_tables[i] == table)
			return;
	if (f->n_lost_tables < LOST_TABLES)
		f->lost_tables[f->n_lost_tables++] = table;
	else
		f->lost_many = true;
}

static bool
table_was_lost(const struct dpr_fpm *f, uint32_t table)
{
	unsigned int i;

	for (i = 0; i < f->n_lost_tables; i++)
		if (f->lost_tables[i] == table)
			return true;
	return f->lost_many;
}

void
dpr_fpm_forget_table(struct dpr_fpm *f, uint32_t table)
{
	struct fpm_rt *rt, *next;
	uint32_t i;

	for (i = 0; i < f->rt_size; i++) {
		for (rt = f->rt_tbl[i]; rt != NULL; rt = next) {
			next = rt->hnext;
			if (rt->table == table)
				rt_forget(f, table, &rt->prefix);
		}
	}
	/* The sink drops the table's routes; zebra keeps them. */
	if (f->cfd >= 0)
		table_lost(f, table);
}

/* Everything zebra told this connection; the sink keeps its routes. */
static void
state_clear(struct dpr_fpm *f)
{
	uint32_t i;

	for (i = 0; i < f->rt_size; i++) {
		while (f->rt_tbl[i] != NULL) {
			struct fpm_rt *rt = f->rt_tbl[i];

			f->rt_tbl[i] = rt->hnext;
			free(rt);
		}
	}
	for (i = 0; i < f->nh_size; i++) {
		while (f->nh_tbl[i] != NULL) {
			struct nh_obj *o = f->nh_tbl[i];

			f->nh_tbl[i] = o->hnext;
			free(o);
		}
	}
	f->rt_count = f->nh_count = 0;
	f->st.routes_by_id = f->st.nexthops = 0;
}

/* ---- delivery ---- */

static void
deliver(struct dpr_fpm *f, const struct dpr_route_upd *r)
{
	f->sink.route(f->sink.arg, r);
	if (r->del)
		f->st.routes_deleted++;
	else
		f->st.routes_added++;
	f->delivered = true;
}

static void
deliver_del(struct dpr_fpm *f, uint32_t table, const struct dpr_prefix *p, uint8_t protocol)
{
	struct dpr_route_upd r = { .del = true, .prefix = *p, .table = table, .protocol = protocol };

	deliver(f, &r);
}

/* A path dpr can forward on, or why not. */
static int
path_add(struct dpr_route_upd *r, const struct dpr_nl_nh *nh, uint16_t weight)
{
	struct dpr_route_path *p;

	if (nh->encap_type != 0)
		return DPR_FPM_REJ_ENCAP;
	if (nh->gw.af == 0 && nh->ifindex == 0)
		return DPR_FPM_REJ_NO_OIF;
	if (r->n_paths == DPR_NL_MAX_NH)
		return DPR_FPM_REJ_TOO_MANY;
	p = &r->paths[r->n_paths++];
	p->gw = nh->gw;
	p->ifindex = nh->ifindex;
	p->weight = weight;
	return -1;
}

/*
 * Fill @p r's kind and paths from object @p o. Returns -1 when done, or
 * the dpr_fpm_reject reason, with @p what naming the offending object.
 */
static int
expand(const struct dpr_fpm *f, const struct nh_obj *o, struct dpr_route_upd *r,
       uint32_t *what)
{
	unsigned int i;
	int why;

	*what = o->id;
	r->kind = DPR_RK_UNICAST;
	r->n_paths = 0;
	if (!o->have)
		return o->refused ? o->refused : DPR_FPM_REJ_NH_UNKNOWN;
	if (o->nl.blackhole) {
		r->kind = DPR_RK_BLACKHOLE;
		return -1;
	}
	if (o->nl.n_grp == 0)
		return path_add(r, &o->nl.nh, 1);
	for (i = 0; i < o->nl.n_grp; i++) {
		const struct nh_obj *m = nh_find(f, o->nl.grp[i].id);

		*what = o->nl.grp[i].id;
		if (m == NULL || !m->have)
			return DPR_FPM_REJ_NH_UNKNOWN;
		if (m->nl.blackhole || m->nl.n_grp > 0)
			return DPR_FPM_REJ_NH_NESTED;
		why = path_add(r, &m->nl.nh, o->nl.grp[i].weight);
		if (why >= 0)
			return why;
	}
	return -1;
}

static const char *const why_text[DPR_FPM_REJ_MAX] = {
	[DPR_FPM_REJ_NH_UNKNOWN] = "no such next-hop object",
	[DPR_FPM_REJ_NH_NESTED] = "a group member is a group or a blackhole",
	[DPR_FPM_REJ_ENCAP] = "a path has an encapsulation (MPLS, SRv6...)",
	[DPR_FPM_REJ_NO_OIF] = "a path has neither gateway nor interface",
	[DPR_FPM_REJ_NO_PATH] = "no path",
	[DPR_FPM_REJ_ROUTE_TYPE] = "route type",
	[DPR_FPM_REJ_SOURCE] = "source-specific",
	[DPR_FPM_REJ_TOO_MANY] = "more paths than dpr's ECMP width",
};

/* Deliver a held route again after its next-hop object changed. */
static void
rt_redeliver(struct dpr_fpm *f, struct fpm_rt *rt)
{
	struct dpr_route_upd r = {
		.prefix = rt->prefix, .table = rt->table, .protocol = rt->protocol,
		.priority = rt->priority, .nhg_id = rt->nh->id,
	};
	char buf[DPR_PREFIX_STRLEN];
	uint32_t what;
	int why = expand(f, rt->nh, &r, &what);

	if (why < 0) {
		rt->installed = true;
		f->st.routes_redelivered++;
		deliver(f, &r);
		return;
	}
	if (!rt->installed)
		return; /* refused before, refused still */
	rt->installed = false;
	f->st.routes_redelivered++;
	reject(f, why, "%s via next-hop %u: %s (%u), withdrawn",
	       dpr_prefix_fmt(&rt->prefix, buf, sizeof(buf)), rt->nh->id, why_text[why], what);
	deliver_del(f, rt->table, &rt->prefix, rt->protocol);
}

static bool
grp_lists(const struct nh_obj *g, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < g->nl.n_grp; i++)
		if (g->nl.grp[i].id == id)
			return true;
	return false;
}

/*
 * Object @p o changed: every route naming it, directly or through a group,
 * gets its new paths. Groups listing @p o are found by a walk of the
 * objects (a few thousand even with a full table), only when it has any.
 */
static void
nh_changed(struct dpr_fpm *f, struct nh_obj *o)
{
	struct fpm_rt *rt;
	uint32_t i;

	LIST_FOREACH(rt, &o->users, link)
		rt_redeliver(f, rt);
	if (o->n_refs == 0)
		return;
	for (i = 0; i < f->nh_size; i++) {
		struct nh_obj *g;

		for (g = f->nh_tbl[i]; g != NULL; g = g->hnext) {
			if (!g->have || !grp_lists(g, o->id))
				continue;
			LIST_FOREACH(rt, &g->users, link)
				rt_redeliver(f, rt);
		}
	}
}

/* ---- messages ---- */

/* Whether routes of kernel table @p table are the sink's (a VRF's). */
static bool
table_ours(struct dpr_fpm *f, const struct dpr_prefix *p, uint32_t table)
{
	char buf[DPR_PREFIX_STRLEN];

	if (f->sink.table != NULL ? !f->sink.table(f->sink.arg, table) : table != f->table) {
		ignore(f, DPR_FPM_IGN_TABLE, "%s in table %u",
		       dpr_prefix_fmt(p, buf, sizeof(buf)), table);
		table_lost(f, table);
		return false;
	}
	return true;
}

/*
 * A route of the sink's table that dpr does not take: zebra's connected and
 * kernel routes (RTPROT_KERNEL), or a kind of the kernel's own. zebra sends
 * the route it selected for each prefix, so such an RTM_NEWROUTE replaces
 * the one it sent before, for dpr too: that one is withdrawn. FRR 9.1 and
 * later (fpm use-route-replace, their default) send a route update as that
 * one message, with no RTM_DELROUTE of the old route before it.
 */
static void
ignore_replacing(struct dpr_fpm *f, const struct nlmsghdr *nlh, const struct dpr_prefix *p,
		 uint32_t table, uint8_t protocol)
{
	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return;
	rt_forget(f, table, p);
	deliver_del(f, table, p, protocol);
}

/* RTM_NEWROUTE / RTM_DELROUTE, decoded to @p rc / @p nl. Returns -ENOMEM or 0. */
static int
route_msg(struct dpr_fpm *f, const struct nlmsghdr *nlh, int rc, const struct dpr_nl_route *nl,
	  const char *err)
{
	struct dpr_route_upd r = { 0 };
	char buf[DPR_PREFIX_STRLEN];
	struct fpm_rt *rt;
	unsigned int i;
	uint32_t table, what;
	uint8_t proto;
	int why = -1, kind;

	if (rc == -EAFNOSUPPORT) {
		ignore(f, DPR_FPM_IGN_FAMILY, "%s", err);
		return 0;
	}
	if (rc < 0) { /* -EOPNOTSUPP, -E2BIG: see dpr_nl_route_parse() */
		dpr_nl_route_peek(nlh, &r.prefix, &table, &proto);
		/* A delete ends the route's next-hop object, ours or not
		 * (below); a source-specific route's key has its source,
		 * and the route held is of the destination alone. */
		if (nlh->nlmsg_type == RTM_DELROUTE && rc != -EOPNOTSUPP)
			rt_forget(f, table, &r.prefix);
		if (!table_ours(f, &r.prefix, table))
			return 0;
		dpr_prefix_fmt(&r.prefix, buf, sizeof(buf));
		if (proto == RTPROT_KERNEL) {
			ignore(f, DPR_FPM_IGN_PROTOCOL, "%s (connected or kernel)", buf);
			if (rc != -EOPNOTSUPP)
				ignore_replacing(f, nlh, &r.prefix, table, proto);
			return 0;
		}
		if (rc == -EOPNOTSUPP) {
			/* Its key is (destination, source): withdrawing the
			 * destination alone would hit another route. */
			reject(f, DPR_FPM_REJ_SOURCE, "%s: %s", buf, err);
			return 0;
		}
		if (nlh->nlmsg_type == RTM_NEWROUTE)
			reject(f, DPR_FPM_REJ_TOO_MANY, "%s: %s", buf, err);
		rt_forget(f, table, &r.prefix);
		deliver_del(f, table, &r.prefix, proto);
		return 0;
	}

	/* A delete ends the route's next-hop object first, whatever the
	 * table: one whose VRF is gone now (vrf.del, then zebra's delete)
	 * still names the object, and once zebra gives the id to another
	 * next hop the route would come back by it (rt_redeliver()). */
	if (nl->del)
		rt_forget(f, nl->table, &nl->prefix);
	if (!table_ours(f, &nl->prefix, nl->table))
		return 0;
	dpr_prefix_fmt(&nl->prefix, buf, sizeof(buf));
	if (nl->protocol == RTPROT_KERNEL) {
		ignore(f, DPR_FPM_IGN_PROTOCOL, "%s (connected or kernel)", buf);
		ignore_replacing(f, nlh, &nl->prefix, nl->table, nl->protocol);
		return 0;
	}
	if (nl->del) {
		deliver_del(f, nl->table, &nl->prefix, nl->protocol);
		return 0;
	}
	r.prefix = nl->prefix;
	r.table = nl->table;
	r.protocol = nl->protocol;
	r.priority = nl->priority;
	kind = dpr_route_kind_of(nl->type);
	if (kind == -ENOENT) {
		ignore(f, DPR_FPM_IGN_ROUTE_TYPE, "%s of type %u", buf, nl->type);
		ignore_replacing(f, nlh, &nl->prefix, nl->table, nl->protocol);
		return 0;
	}
	if (kind < 0) {
		why = DPR_FPM_REJ_ROUTE_TYPE;
		reject(f, why, "%s: type %u (throw, NAT...) means nothing to dpr", buf,
		       nl->type);
	} else {
		r.kind = (enum dpr_route_kind)kind;
	}

	if (why < 0 && r.kind == DPR_RK_UNICAST && nl->nhg_id != 0) {
		r.nhg_id = nl->nhg_id;
		rt = rt_set(f, nl->table, &nl->prefix, nl->nhg_id);
		if (rt == NULL)
			return -ENOMEM;
		rt->protocol = nl->protocol;
		rt->priority = nl->priority;
		why = expand(f, rt->nh, &r, &what);
		rt->installed = why < 0;
		if (why >= 0)
			reject(f, why, "%s via next-hop %u: %s (%u)", buf, nl->nhg_id,
			       why_text[why], what);
	} else {
		/* A route of another kind, or with its own paths, names no object. */
		rt_forget(f, nl->table, &nl->prefix);
		if (why < 0 && r.kind == DPR_RK_UNICAST) {
			if (nl->n_nh == 0)
				why = DPR_FPM_REJ_NO_PATH;
			for (i = 0; i < nl->n_nh && why < 0; i++)
				why = path_add(&r, &nl->nh[i], nl->nh[i].weight);
			if (why >= 0)
				reject(f, why, "%s: %s", buf, why_text[why]);
		}
	}
	if (why >= 0) {
		deliver_del(f, nl->table, &nl->prefix, nl->protocol);
		return 0;
	}
	deliver(f, &r);
	return 0;
}

/* The id of a next-hop message the decoder refused; 0 if none. */
static uint32_t
nexthop_peek_id(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nhmsg)) {
		if (mnl_attr_get_type(a) == NHA_ID && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			return mnl_attr_get_u32(a);
	}
	return 0;
}

/* Zebra's new content for @p o is refused: routes naming it are withdrawn. */
static void
nh_refuse(struct dpr_fpm *f, struct nh_obj *o, enum dpr_fpm_reject why, const char *err)
{
	reject(f, why, "next-hop object %u: %s", o->id, err);
	nh_clear(f, o);
	o->deleted = false;
	o->refused = (uint8_t)why;
	nh_changed(f, o);
	nh_maybe_free(f, o);
}

static int
nh_new(struct dpr_fpm *f, const struct dpr_nl_nexthop *nl)
{
	struct nh_obj *o = nh_get(f, nl->id), *m;
	struct nh_obj *mem[DPR_NL_MAX_NH];
	unsigned int i, j;
	char err[80];

	if (o == NULL)
		return -ENOMEM;
	if (o->have && nh_same(&o->nl, nl)) {
		f->st.nexthops_added++;
		o->deleted = false; /* zebra sent it again: nothing moves */
		return 0;
	}
	/* Groups of groups: the kernel refuses them, and so does dpr, which
	 * keeps expansion (and nh_maybe_free()) one level deep. */
	if (nl->n_grp > 0 && o->n_refs > 0) {
		nh_refuse(f, o, DPR_FPM_REJ_NH_NESTED, "a group, listed in another group");
		return 0;
	}
	for (i = 0; i < nl->n_grp; i++) {
		m = nh_get(f, nl->grp[i].id);
		if (m != NULL && m != o && !(m->have && m->nl.n_grp > 0)) {
			m->n_refs++;
			mem[i] = m;
			continue;
		}
		for (j = 0; j < i; j++)
			nh_unref(f, mem[j]);
		if (m == NULL) {
			nh_maybe_free(f, o);
			return -ENOMEM;
		}
		snprintf(err, sizeof(err), "member %u is %s", nl->grp[i].id,
			 m == o ? "the group itself" : "a group");
		if (m != o)
			nh_maybe_free(f, m);
		nh_refuse(f, o, DPR_FPM_REJ_NH_NESTED, err);
		return 0;
	}
	nh_clear(f, o); /* after the new members are held: they may be the old ones */
	o->nl = *nl;
	o->have = true;
	o->deleted = false;
	o->refused = 0;
	f->st.nexthops++;
	f->st.nexthops_added++;
	nh_changed(f, o);
	return 0;
}

static void
nh_del(struct dpr_fpm *f, uint32_t id)
{
	struct nh_obj *o = nh_find(f, id);

	f->st.nexthops_deleted++;
	if (o == NULL || !(o->have || o->refused)) {
		DPR_LOG(DEBUG, fpm, "fpm: delete of next-hop object %u, which dpr does not hold", id);
		return;
	}
	if (!LIST_EMPTY(&o->users) || o->n_refs > 0) {
		/* zebra withdraws routes before their objects; if one is
		 * still named, it keeps forwarding until it is re-pointed or
		 * deleted, as zebra's own next-hop entry would. */
		f->st.nexthops_in_use++;
		DPR_LOG(NOTICE, fpm, "fpm: next-hop object %u deleted while still in use: kept until its routes go",
			id);
	}
	o->deleted = true;
	nh_maybe_free(f, o);
}

static int
nexthop_msg(struct dpr_fpm *f, const struct nlmsghdr *nlh, int rc,
	    const struct dpr_nl_nexthop *nl, const char *err)
{
	struct nh_obj *o;
	uint32_t id;

	if (rc == -EAFNOSUPPORT) {
		ignore(f, DPR_FPM_IGN_FAMILY, "%s", err);
		return 0;
	}
	if (rc < 0) { /* -E2BIG */
		id = nexthop_peek_id(nlh);
		o = id != 0 ? nh_get(f, id) : NULL;
		if (o == NULL)
			return id != 0 ? -ENOMEM : 0;
		nh_refuse(f, o, DPR_FPM_REJ_TOO_MANY, err);
		return 0;
	}
	if (nl->del) {
		nh_del(f, nl->id);
		return 0;
	}
	return nh_new(f, nl);
}

/* Whether the decoder calls @p nlh malformed: such a frame is refused whole. */
static bool
msg_malformed(const struct nlmsghdr *nlh, char *err, size_t err_len)
{
	union {
		struct dpr_nl_route r;
		struct dpr_nl_nexthop nh;
	} u;

	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		return dpr_nl_route_parse(nlh, &u.r, err, err_len) == -EBADMSG;
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		return dpr_nl_nexthop_parse(nlh, &u.nh, err, err_len) == -EBADMSG;
	default:
		return false;
	}
}

static int
msg_apply(struct dpr_fpm *f, const struct nlmsghdr *nlh)
{
	union {
		struct dpr_nl_route r;
		struct dpr_nl_nexthop nh;
	} u;
	char err[160];
	int rc;

	f->st.messages++;
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		rc = dpr_nl_route_parse(nlh, &u.r, err, sizeof(err));
		return route_msg(f, nlh, rc, &u.r, err);
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		rc = dpr_nl_nexthop_parse(nlh, &u.nh, err, sizeof(err));
		return nexthop_msg(f, nlh, rc, &u.nh, err);
	default:
		ignore(f, DPR_FPM_IGN_MSG_TYPE, "netlink message type %u", nlh->nlmsg_type);
		return 0;
	}
}

/* ---- the connection ---- */

/*
 * End the batch of whole frames delivered so far: called when a poll has
 * read what it may, and before a disconnect, never inside a frame.
 */
static void
batch_end(struct dpr_fpm *f)
{
	if (!f->delivered)
		return;
	f->delivered = false;
	f->st.batches++;
	if (f->sink.batch_end != NULL)
		f->sink.batch_end(f->sink.arg);
}

static void
conn_close(struct dpr_fpm *f)
{
	if (f->cfd < 0)
		return;
	batch_end(f);
	epoll_ctl(f->epfd, EPOLL_CTL_DEL, f->cfd, NULL);
	close(f->cfd);
	f->cfd = -1;
	f->len = 0;
	f->n_lost_tables = 0;
	f->lost_many = false;
	state_clear(f);
	if (f->sink.disconnected != NULL)
		f->sink.disconnected(f->sink.arg);
}

static void __attribute__((format(printf, 2, 3)))
bad_frame(struct dpr_fpm *f, const char *fmt, ...)
{
	char msg[240];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f->st.bad_frames++;
	f->st.resets++;
	DPR_LOG(WARNING, fpm, "fpm: frame %" PRIu64 " from zebra at %s: %s: nothing of it applied, connection reset (zebra reconnects and replays)",
		f->conn_frames + 1, f->peer, msg);
	conn_close(f);
}

/*
 * A frame is applied whole or not at all: every message is decoded before
 * any is applied, so a malformed one leaves nothing half-done. Returns -1
 * when the connection was closed.
 */
static int
frame_apply(struct dpr_fpm *f, const uint8_t *payload, size_t plen)
{
	const struct nlmsghdr *nlh;
	const uint8_t *p = payload;
	size_t left = plen;
	unsigned int i = 0;
	char err[160];
	int rc;

	while ((rc = dpr_nl_msg_next(&p, &left, &nlh, err, sizeof(err))) > 0) {
		i++;
		if (msg_malformed(nlh, err, sizeof(err))) {
			bad_frame(f, "message %u (type %u): %s", i, nlh->nlmsg_type, err);
			return -1;
		}
	}
	if (rc < 0) {
		bad_frame(f, "after message %u: %s", i, err);
		return -1;
	}

	f->st.frames++;
	f->conn_frames++;
	p = payload;
	left = plen;
	rc = 0;
	while (rc == 0 && dpr_nl_msg_next(&p, &left, &nlh, NULL, 0) > 0)
		rc = msg_apply(f, nlh);
	if (rc < 0) {
		/* What was delivered is a consistent state (conn_close() ends
		 * the batch); the rest comes again with zebra's replay. */
		f->st.resets++;
		DPR_LOG(ERR, fpm, "fpm: out of memory for zebra's next-hop objects: connection reset");
		conn_close(f);
		return -1;
	}
	return 0;
}

void
dpr_fpm_table_added(struct dpr_fpm *f, uint32_t table)
{
	if (f->cfd < 0 || !table_was_lost(f, table))
		return;
	/* zebra sends a table again only on connect: a reset asks for it.
	 * The other routes keep forwarding, stale until replayed. */
	DPR_LOG(NOTICE, fpm, "fpm: table %u now has a VRF, and zebra at %s sent routes of it before: connection reset for zebra to send them again",
		table, f->peer);
	f->st.resets++;
	conn_close(f);
}

/* Apply every complete frame in the buffer; keep the tail. */
static int
frames_apply(struct dpr_fpm *f)
{
	const uint8_t *payload;
	size_t off = 0, plen;
	char err[160];
	int n;

	while ((n = dpr_fpm_frame(f->buf + off, f->len - off, &payload, &plen, err,
				  sizeof(err))) > 0) {
		if (frame_apply(f, payload, plen) < 0)
			return -1;
		off += (size_t)n;
	}
	if (n < 0) {
		bad_frame(f, "%s", err);
		return -1;
	}
	if (off > 0) {
		memmove(f->buf, f->buf + off, f->len - off);
		f->len -= off;
	}
	return 0;
}

/*
 * Read and apply whole frames, up to the budget, then end the batch: zebra
 * sends one change a frame, and a replay of a full table as one grace
 * period per frame would take minutes.
 */
static void
conn_read(struct dpr_fpm *f)
{
	size_t budget = POLL_BUDGET;

	while (f->cfd >= 0 && budget > 0) {
		/* At most one incomplete frame is left: room for more. */
		ssize_t n = recv(f->cfd, f->buf + f->len, READ_BUF - f->len, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			if (n == 0)
				DPR_LOG(INFO, fpm, "fpm: zebra at %s closed the connection%s", f->peer,
					f->len > 0 ? " in the middle of a frame" : "");
			else
				DPR_LOG(WARNING, fpm, "fpm: reading from zebra at %s: %s", f->peer,
					strerror(errno));
			f->st.closed++;
			conn_close(f);
			return;
		}
		f->len += (size_t)n;
		f->st.bytes += (uint64_t)n;
		budget -= RTE_MIN((size_t)n, budget);
		if (frames_apply(f) < 0)
			return;
	}
	batch_end(f);
}

static void
addr_fmt(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	}
}

static void
conn_accept(struct dpr_fpm *f)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EP_CONN };
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char peer[sizeof(f->peer)];
		int fd;

		fd = accept4(f->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				DPR_LOG(WARNING, fpm, "fpm: accept: %s", strerror(errno));
			return;
		}
		addr_fmt(&ss, peer, sizeof(peer));
		if (f->cfd >= 0) {
			/* zebra has one FPM connection: a new one means it
			 * restarted or gave up on the old one. */
			DPR_LOG(NOTICE, fpm, "fpm: zebra connects again from %s: dropping the connection from %s",
				peer, f->peer);
			f->st.replaced++;
			conn_close(f);
		}
		if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			DPR_LOG(ERR, fpm, "fpm: cannot watch zebra's connection from %s: %s", peer,
				strerror(errno));
			close(fd);
			continue;
		}
		f->cfd = fd;
		f->len = 0;
		f->conn_frames = 0;
		memcpy(f->peer, peer, sizeof(f->peer));
		f->st.connections++;
		DPR_LOG(INFO, fpm, "fpm: zebra connected from %s", f->peer);
		if (f->sink.connected != NULL)
			f->sink.connected(f->sink.arg);
	}
}

int
dpr_fpm_feed(struct dpr_fpm *f, const uint8_t *buf, size_t len)
{
	uint64_t resets = f->st.resets;

	if (f->cfd >= 0)
		return -EBUSY;
	/* A connection with nothing behind it: conn_close() closes it. */
	f->cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->cfd < 0)
		return -errno;
	f->len = 0;
	f->conn_frames = 0;
	snprintf(f->peer, sizeof(f->peer), "(fed)");
	f->st.connections++;
	if (f->sink.connected != NULL)
		f->sink.connected(f->sink.arg);
	/* In the pieces a read could bring: up to the buffer's free room. */
	while (f->cfd >= 0 && len > 0) {
		size_t n = RTE_MIN(len, (size_t)READ_BUF - f->len);

		memcpy(f->buf + f->len, buf, n);
		f->len += n;
		f->st.bytes += n;
		buf += n;
		len -= n;
		if (frames_apply(f) < 0)
			break;
		batch_end(f);
	}
	if (f->cfd >= 0) {
		f->st.closed++;
		conn_close(f);
	}
	return f->st.resets == resets ? 0 : -EBADMSG;
}

void
dpr_fpm_poll(struct dpr_fpm *f)
{
	struct epoll_event ev[2];
	bool conn = false, listen = false;
	int n, i;

	n = epoll_wait(f->epfd, ev, RTE_DIM(ev), 0);
	for (i = 0; i < n; i++) {
		if (ev[i].data.u32 == EP_CONN)
			conn = true;
		else
			listen = true;
	}
	/* Read what the current connection sent before a new one replaces it. */
	if (conn)
		conn_read(f);
	if (listen)
		conn_accept(f);
}

void
dpr_fpm_poll_cb(void *fpm)
{
	dpr_fpm_poll(fpm);
}

/* "ADDR[:PORT]", "[ADDR6]:PORT", or a bare IPv6 address. */
static int
listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *sl)
{
	return dpr_sockaddr_parse(s, DPR_FPM_PORT, ss, sl);
}

int
dpr_fpm_listen_check(const char *listen_addr, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	if (listen_addr == NULL || listen_parse(listen_addr, &ss, &sl) < 0)
		return -EINVAL;
	*port = dpr_sockaddr_port(&ss);
	return 0;
}

struct dpr_fpm *
dpr_fpm_create(const char *listen_addr, uint32_t table, const struct dpr_fpm_sink *sink,
	       char *err, size_t err_len)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EP_LISTEN };
	struct sockaddr_storage ss;
	struct dpr_fpm *f;
	socklen_t sl;
	int one = 1, e;

	if (listen_addr == NULL)
		listen_addr = DPR_FPM_LISTEN_DEFAULT;
	if (sink == NULL || sink->route == NULL) {
		snprintf(err, err_len, "fpm: a sink with a route callback is required");
		errno = EINVAL;
		return NULL;
	}
	if (listen_parse(listen_addr, &ss, &sl) < 0) {
		snprintf(err, err_len,
			 "fpm: listen address \"%s\": want ADDR[:PORT] with a numeric address, e.g. 127.0.0.1:2620 or [::1]:2620",
			 listen_addr);
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	f->sink = *sink;
	f->table = table != 0 ? table : DPR_FPM_TABLE_MAIN;
	f->epfd = f->lfd = f->cfd = -1;
	f->buf = malloc(READ_BUF);
	f->nh_size = f->rt_size = HASH_MIN;
	f->nh_tbl = calloc(f->nh_size, sizeof(*f->nh_tbl));
	f->rt_tbl = calloc(f->rt_size, sizeof(*f->rt_tbl));
	if (f->buf == NULL || f->nh_tbl == NULL || f->rt_tbl == NULL) {
		errno = ENOMEM;
		snprintf(err, err_len, "fpm: out of memory");
		goto fail;
	}
	f->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->lfd < 0)
		goto fail_errno;
	/* Restarting dpr must not wait for the old socket's TIME_WAIT. */
	if (setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		goto fail_errno;
	/* zebra keeps one connection, but a burst of connects (a restarting
	 * peer, a scan) must not have its SYNs dropped and retried a second
	 * later while the control thread is busy: the kernel's full queue. */
	if (bind(f->lfd, (struct sockaddr *)&ss, sl) < 0 || listen(f->lfd, SOMAXCONN) < 0)
		goto fail_errno;
	sl = sizeof(ss);
	if (getsockname(f->lfd, (struct sockaddr *)&ss, &sl) < 0)
		goto fail_errno;
	f->port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
			((struct sockaddr_in6 *)&ss)->sin6_port);
	f->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (f->epfd < 0 || epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->lfd, &ev) < 0)
		goto fail_errno;
	DPR_LOG(INFO, fpm, "fpm: listening for zebra (dplane_fpm_nl) on %s, table %u",
		listen_addr, f->table);
	return f;

fail_errno:
	e = errno;
	snprintf(err, err_len, "fpm: listen on %s: %s%s", listen_addr, strerror(e),
		 e == EADDRINUSE ? " (another FPM server? set another address)" : "");
	errno = e;
fail:
	e = errno;
	dpr_fpm_free(f);
	errno = e;
	return NULL;
}

int
dpr_fpm_fd(const struct dpr_fpm *f)
{
	return f->epfd;
}

bool
dpr_fpm_is_connected(const struct dpr_fpm *f)
{
	return f->cfd >= 0;
}

uint16_t
dpr_fpm_port(const struct dpr_fpm *f)
{
	return f->port;
}

const struct dpr_fpm_stats *
dpr_fpm_stats(const struct dpr_fpm *f)
{
	return &f->st;
}

void
dpr_fpm_free(struct dpr_fpm *f)
{
	if (f == NULL)
		return;
	if (f->cfd >= 0)
		close(f->cfd);
	if (f->nh_tbl != NULL && f->rt_tbl != NULL)
		state_clear(f);
	if (f->lfd >= 0)
		close(f->lfd);
	if (f->epfd >= 0)
		close(f->epfd);
	free(f->nh_tbl);
	free(f->rt_tbl);
	free(f->buf);
	free(f);
}
