/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "kmirror.h"

/* Prefix hash buckets to start with; doubled when the prefixes outnumber them. */
#define PFX_BUCKETS_MIN 1024u
/* Next-hop objects are few (one per gateway or group): a fixed table. */
#define NH_BUCKETS 1024u
/* Interfaces and preferred sources the routes name are few too. */
#define USE_BUCKETS 256u

struct km_prefix;

/*
 * One kernel route: an IPv4 fib_alias, an IPv6 fib6_info (one path; ECMP
 * siblings are records of one metric).
 */
struct km_route {
	struct km_route *next;        /* the prefix's routes, in the kernel's order */
	struct km_prefix *pfx;
	struct km_route *nh_next;     /* the routes of next-hop object nhid */
	struct km_route **nh_pprev;
	uint32_t priority;
	uint32_t nhid;
	uint32_t gen;                 /* dpr_kmirror.gen when last announced */
	uint32_t listed;              /* dpr_kmirror.gen of the last dump that listed it */
	uint32_t metrics;             /* dpr_nl_route.metrics */
	struct dpr_ip prefsrc;
	uint8_t tos, type, protocol, scope, bad;
	uint8_t n_paths;
	struct dpr_nl_nh paths[];
};

struct km_prefix {
	struct km_prefix *hnext;
	struct km_route *routes;
	struct km_prefix *dirty_next;
	bool dirty;
	bool held;                    /* the callback's last answer was true */
	uint32_t table;               /* with pf, the key: a prefix may be in two tables */
	struct dpr_prefix pf;
};

struct km_nh {
	struct km_nh *hnext;
	struct km_route *users;       /* routes naming it (kept while it is unknown too) */
	uint32_t id;
	uint32_t gen;
	bool known;                   /* the kernel announced it (not only named by routes) */
	bool group;                   /* a group (NHA_GROUP), even once emptied */
	bool blackhole;
	uint8_t bad;                  /* dpr_kmirror_nexthop_bad()'s reason, 0 if none */
	struct dpr_nl_nh nh;
	unsigned int n_grp;
	struct dpr_nl_grp grp[DPR_NL_MAX_NH];
};

/*
 * How many route paths name one interface, or routes one IPv4 preferred
 * source (dpr_kmirror_uses() without a walk of the table).
 */
struct km_use {
	struct km_use *next;
	uint64_t key;                 /* use_if() or use_src() */
	uint32_t n;
};

struct dpr_kmirror {
	struct km_prefix **pfx;       /* hash buckets */
	uint32_t n_buckets;
	struct km_nh *nh[NH_BUCKETS];
	struct km_use *use[USE_BUCKETS];
	bool use_lost;                /* a count had no memory: every question says yes */
	struct km_prefix *dirty;      /* changed since the last flush */
	struct km_route *dump_prev;   /* the last dump message's route */
	uint32_t gen;
	struct dpr_kmirror_counts n;
	/* The message being applied (dpr_kmirror_origin()), and the last
	 * next-hop object announced: the routes that use it, and the groups
	 * holding it, come again with its origin after an `ip nexthop
	 * replace` (reannounced()). */
	uint32_t seq, pid;
	uint32_t nh_seq, nh_pid, nh_id;
	bool nh_valid;
};

static uint32_t
pfx_hash(uint32_t table, const struct dpr_prefix *p)
{
	uint64_t h = (uint64_t)table << 32 | (uint64_t)p->len << 8 | p->addr.af;
	uint32_t w[4];
	unsigned int i;

	if (p->addr.af == DPR_AF_IP4) {
		h ^= (uint64_t)p->addr.ip4 << 16;
	} else {
		memcpy(w, p->addr.ip6, sizeof(w));
		for (i = 0; i < 4; i++)
			h = (h ^ w[i]) * 0x9E3779B97F4A7C15ull;
	}
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static bool
pfx_equal(const struct dpr_prefix *a, const struct dpr_prefix *b)
{
	return a->len == b->len && dpr_ip_equal(&a->addr, &b->addr);
}

static struct km_prefix **
pfx_slot(const struct dpr_kmirror *m, uint32_t table, const struct dpr_prefix *p)
{
	struct km_prefix **s = &m->pfx[pfx_hash(table, p) & (m->n_buckets - 1)];

	while (*s != NULL && ((*s)->table != table || !pfx_equal(&(*s)->pf, p)))
		s = &(*s)->hnext;
	return s;
}

/* Double the buckets; on no memory keep the chains longer. */
static void
pfx_grow(struct dpr_kmirror *m)
{
	uint32_t n = m->n_buckets * 2, i;
	struct km_prefix **b = calloc(n, sizeof(*b)), *p, *next;

	if (b == NULL)
		return;
	for (i = 0; i < m->n_buckets; i++) {
		for (p = m->pfx[i]; p != NULL; p = next) {
			uint32_t h = pfx_hash(p->table, &p->pf) & (n - 1);

			next = p->hnext;
			p->hnext = b[h];
			b[h] = p;
		}
	}
	free(m->pfx);
	m->pfx = b;
	m->n_buckets = n;
}

static struct km_prefix *
pfx_get(struct dpr_kmirror *m, uint32_t table, const struct dpr_prefix *pf)
{
	struct km_prefix **s = pfx_slot(m, table, pf), *p;

	if (*s != NULL)
		return *s;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pf = *pf;
	p->table = table;
	*s = p;
	if (++m->n.prefixes > m->n_buckets)
		pfx_grow(m);
	return p;
}

static void
dirty(struct dpr_kmirror *m, struct km_prefix *p)
{
	if (p->dirty)
		return;
	p->dirty = true;
	p->dirty_next = m->dirty;
	m->dirty = p;
}

static struct km_nh **
nh_slot(struct dpr_kmirror *m, uint32_t id)
{
	struct km_nh **s = &m->nh[(id * 2654435761u) % NH_BUCKETS];

	while (*s != NULL && (*s)->id != id)
		s = &(*s)->hnext;
	return s;
}

static struct km_nh *
nh_find(const struct dpr_kmirror *m, uint32_t id)
{
	return *nh_slot((struct dpr_kmirror *)(uintptr_t)m, id);
}

static struct km_nh *
nh_get(struct dpr_kmirror *m, uint32_t id)
{
	struct km_nh **s = nh_slot(m, id), *o;

	if (*s != NULL)
		return *s;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return NULL;
	o->id = id;
	*s = o;
	return o;
}

/* Free @p o when nothing names it and the kernel does not have it. */
static void
nh_put(struct dpr_kmirror *m, struct km_nh *o)
{
	struct km_nh **s;

	if (o->known || o->users != NULL)
		return;
	s = nh_slot(m, o->id);
	*s = o->hnext;
	free(o);
}

static struct km_route *
route_new(struct dpr_kmirror *m, const struct dpr_nl_route *r, unsigned int first,
	  unsigned int n, uint8_t bad)
{
	struct km_route *e = malloc(sizeof(*e) + n * sizeof(e->paths[0]));

	if (e == NULL)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->priority = r->priority;
	e->nhid = r->nhg_id;
	e->gen = m->gen;
	e->listed = m->gen - 1;
	e->metrics = r->metrics;
	e->prefsrc = r->prefsrc;
	e->tos = r->tos;
	e->type = r->type;
	e->protocol = r->protocol;
	e->scope = r->scope;
	e->bad = bad;
	e->n_paths = (uint8_t)n;
	memcpy(e->paths, &r->nh[first], n * sizeof(e->paths[0]));
	return e;
}

static uint64_t
use_if(uint32_t ifindex)
{
	return (uint64_t)1 << 32 | ifindex;
}

static uint64_t
use_src(uint32_t ip4)
{
	return (uint64_t)2 << 32 | ip4;
}

static struct km_use **
use_slot(const struct dpr_kmirror *m, uint64_t key)
{
	struct km_use **s = (struct km_use **)(uintptr_t)
			    &m->use[(uint32_t)(key * 0x9E3779B97F4A7C15ull >> 56) % USE_BUCKETS];

	while (*s != NULL && (*s)->key != key)
		s = &(*s)->next;
	return s;
}

/* Count one more (@p d 1) or one less (-1) use of @p key. */
static void
use_count(struct dpr_kmirror *m, uint64_t key, int d)
{
	struct km_use **s = use_slot(m, key), *u = *s;

	if (u == NULL && d > 0) {
		u = calloc(1, sizeof(*u));
		if (u == NULL) {
			m->use_lost = true;
			return;
		}
		u->key = key;
		*s = u;
	}
	if (u == NULL)
		return;
	u->n += (uint32_t)d;
	if (u->n == 0) {
		*s = u->next;
		free(u);
	}
}

/* What route @p e names that dpr_kmirror_uses() asks about, counted by @p d. */
static void
route_uses(struct dpr_kmirror *m, const struct km_route *e, int d)
{
	unsigned int i;

	for (i = 0; i < e->n_paths; i++)
		if (e->paths[i].ifindex != 0)
			use_count(m, use_if(e->paths[i].ifindex), d);
	if (e->prefsrc.af == DPR_AF_IP4)
		use_count(m, use_src(e->prefsrc.ip4), d);
}

/* Link @p e into its prefix @p p after *@p at (a link of p's list). */
static int
route_link(struct dpr_kmirror *m, struct km_prefix *p, struct km_route **at, struct km_route *e)
{
	e->pfx = p;
	e->next = *at;
	*at = e;
	if (e->nhid != 0) {
		struct km_nh *o = nh_get(m, e->nhid);

		if (o == NULL) {
			*at = e->next;
			return -ENOMEM;
		}
		e->nh_next = o->users;
		if (o->users != NULL)
			o->users->nh_pprev = &e->nh_next;
		o->users = e;
		e->nh_pprev = &o->users;
	}
	route_uses(m, e, 1);
	m->n.routes++;
	dirty(m, p);
	return 0;
}

static void
route_unlink(struct dpr_kmirror *m, struct km_route **at)
{
	struct km_route *e = *at;

	*at = e->next;
	if (e->nhid != 0) {
		*e->nh_pprev = e->nh_next;
		if (e->nh_next != NULL)
			e->nh_next->nh_pprev = e->nh_pprev;
		nh_put(m, nh_find(m, e->nhid));
	}
	if (m->dump_prev == e)
		m->dump_prev = NULL;
	route_uses(m, e, -1);
	m->n.routes--;
	dirty(m, e->pfx);
	free(e);
}

/*
 * Put @p e in the place of the record at *@p at (the same route announced
 * again). Linked before the old one goes, so that a next-hop object they
 * share is held throughout: nothing to allocate, and on -ENOMEM (a new
 * object's record) the mirror is as it was.
 */
static int
route_relink(struct dpr_kmirror *m, struct km_prefix *p, struct km_route **at, struct km_route *e)
{
	int rc = route_link(m, p, at, e);

	if (rc == 0)
		route_unlink(m, &e->next);
	return rc;
}

static bool
path_equal(const struct dpr_nl_nh *a, const struct dpr_nl_nh *b)
{
	return a->ifindex == b->ifindex && dpr_ip_equal(&a->gw, &b->gw) &&
	       a->weight == b->weight && a->encap_type == b->encap_type;
}

/*
 * The same IPv4 kernel route: what the kernel compares to refuse a
 * duplicate (fib_table_insert(): type and fib_info, which fib_find_info()
 * tells apart by protocol, scope, prefsrc, metrics and paths). Routes that
 * differ in any of these are two routes in the kernel, deleted one by one.
 */
static bool
route_same(const struct km_route *a, const struct km_route *b)
{
	unsigned int i;

	if (a->tos != b->tos || a->priority != b->priority || a->type != b->type ||
	    a->nhid != b->nhid || a->protocol != b->protocol || a->scope != b->scope ||
	    a->metrics != b->metrics || !dpr_ip_equal(&a->prefsrc, &b->prefsrc))
		return false;
	if (a->nhid != 0)
		return true;
	if (a->n_paths != b->n_paths)
		return false;
	for (i = 0; i < a->n_paths; i++)
		if (!path_equal(&a->paths[i], &b->paths[i]))
			return false;
	return true;
}

/*
 * The record of route @p e; with @p dump, not one that dump (its
 * generation) has listed already.
 */
static struct km_route **
route_find(struct km_prefix *p, const struct km_route *e, const uint32_t *dump)
{
	struct km_route **at;

	for (at = &p->routes; *at != NULL; at = &(*at)->next)
		if ((dump == NULL || (*at)->listed != *dump) && route_same(*at, e))
			return at;
	return NULL;
}

/* Where a dump message's route goes: after the previous one of its prefix. */
static struct km_route **
dump_pos(struct dpr_kmirror *m, struct km_prefix *p)
{
	return m->dump_prev != NULL && m->dump_prev->pfx == p ? &m->dump_prev->next : &p->routes;
}

/*
 * A dump message's route @p e: refresh the record the mirror has for it,
 * or add it, in the dump's order (stale records end up behind, swept at
 * the dump's end). A record this dump listed already is another kernel
 * route (one the mirror cannot tell from this one): it stays.
 */
static int
dump_route(struct dpr_kmirror *m, struct km_prefix *p, struct km_route *e)
{
	struct km_route **old = route_find(p, e, &m->gen), **at;

	/* The flags (dead, linkdown) may differ: the new record replaces it. */
	if (old != NULL)
		route_unlink(m, old);
	at = dump_pos(m, p);
	if (route_link(m, p, at, e) < 0)
		return -ENOMEM;
	e->listed = m->gen;
	m->dump_prev = e;
	return 0;
}

/*
 * IPv4 (net/ipv4/fib_trie.c fib_find_alias(), fib_table_insert()): a
 * prefix's routes go by TOS, highest first, then metric, lowest first.
 * @return the link before which a route of (@p tos, @p prio) goes: before
 *   the first of that TOS and metric, or past the last with @p after.
 */
static struct km_route **
ip4_pos(struct km_prefix *p, uint8_t tos, uint32_t prio, bool after)
{
	struct km_route **at;

	for (at = &p->routes; *at != NULL; at = &(*at)->next) {
		const struct km_route *r = *at;

		if (r->tos < tos || (r->tos == tos && (after ? r->priority > prio :
						       r->priority >= prio)))
			break;
	}
	return at;
}

/*
 * Whether a route by object @p nhid, announced with NLM_F_REPLACE, is the
 * kernel announcing it again after `ip nexthop replace` (for the object
 * and each group holding it: fib_info_notify_update() for IPv4,
 * fib6_rt_update() for IPv6) rather than an `ip route replace`, which takes
 * the place of the first route of its metric (IPv6: that is as ECMP-able),
 * even where a route by the same object is there already (IPv6; IPv4 when
 * they differ in what the mirror does not keep: a realm, a path's flags).
 * Both come with NLM_F_REPLACE; only the first follows the
 * object's RTM_NEWNEXTHOP within the same request (dpr_kmirror_origin()).
 */
static bool
reannounced(const struct dpr_kmirror *m, uint32_t nhid)
{
	const struct km_nh *o;
	unsigned int i;

	if (!m->nh_valid || m->seq != m->nh_seq || m->pid != m->nh_pid)
		return false;
	if (nhid == m->nh_id)
		return true;
	o = nh_find(m, nhid);
	for (i = 0; o != NULL && o->group && i < o->n_grp; i++)
		if (o->grp[i].id == m->nh_id)
			return true;
	return false;
}

static int
ip4_route(struct dpr_kmirror *m, struct km_prefix *p, struct km_route *e, uint16_t flags)
{
	struct km_route **at, **old;

	/* A next-hop object's change (`ip nexthop replace`) announces the
	 * routes that use it again with NLM_F_REPLACE (the kernel's
	 * fib_info_notify_update()): the record stays where it is, it
	 * replaces no other route of its metric. */
	if ((flags & NLM_F_REPLACE) && e->nhid != 0 && reannounced(m, e->nhid) &&
	    (old = route_find(p, e, NULL)) != NULL)
		return route_relink(m, p, old, e);
	if (flags & NLM_F_REPLACE) {
		/* `ip route replace`: the first route of the TOS and metric. */
		at = ip4_pos(p, e->tos, e->priority, false);
		if (*at != NULL && (*at)->tos == e->tos && (*at)->priority == e->priority)
			route_unlink(m, at);
		return route_link(m, p, at, e);
	}
	/* The kernel refuses a duplicate (-EEXIST, no message): a route
	 * the mirror finds already is one it cannot tell apart (routes that
	 * differ in what it does not keep), and goes in as another, unless
	 * it is announced again after its object's change (the record stays
	 * where it is). */
	if (e->nhid != 0 && reannounced(m, e->nhid) &&
	    (old = route_find(p, e, NULL)) != NULL)
		return route_relink(m, p, old, e);
	/* NLM_F_APPEND: `ip route append`, after the last of its TOS and
	 * metric; otherwise before the first (`ip route add`, `prepend`). */
	return route_link(m, p, ip4_pos(p, e->tos, e->priority, (flags & NLM_F_APPEND) != 0), e);
}

/* An IPv6 route that the kernel can make an ECMP sibling (rt6_qualify_for_ecmp()). */
static bool
ip6_ecmp(const struct km_route *e)
{
	return e->type == RTN_UNICAST && e->nhid == 0 && e->n_paths == 1 &&
	       e->paths[0].gw.af != 0;
}

/* IPv6 routes go by metric; one path each. */
static struct km_route **
ip6_pos(struct km_prefix *p, uint32_t prio)
{
	struct km_route **at;

	for (at = &p->routes; *at != NULL && (*at)->priority <= prio; at = &(*at)->next)
		;
	return at;
}

/* Does @p a name the same IPv6 path as @p b (what a per-path delete names)? */
static bool
ip6_same(const struct km_route *a, const struct km_route *b)
{
	if (a->priority != b->priority || a->type != b->type || a->nhid != b->nhid)
		return false;
	if (a->nhid != 0)
		return true;
	if (a->n_paths == 0 || b->n_paths == 0)
		return a->n_paths == b->n_paths;
	return a->paths[0].ifindex == b->paths[0].ifindex &&
	       dpr_ip_equal(&a->paths[0].gw, &b->paths[0].gw);
}

static struct km_route **
ip6_find(struct km_prefix *p, const struct km_route *e)
{
	struct km_route **at;

	for (at = &p->routes; *at != NULL; at = &(*at)->next)
		if (ip6_same(*at, e))
			return at;
	return NULL;
}

/*
 * The routes one IPv6 message names: one per path of RTA_MULTIPATH (the
 * kernel lists all the siblings of the metric), one for a route by
 * next-hop object or with no path.
 */
static unsigned int
ip6_split(struct dpr_kmirror *m, const struct dpr_nl_route *r, uint8_t bad,
	  struct km_route **out)
{
	unsigned int i, n = 0;

	if (r->nhg_id != 0 || r->n_nh <= 1) {
		/* A route by object keeps the path the kernel expanded it
		 * to (nexthop_compat_mode): used while the object is unknown. */
		out[0] = route_new(m, r, 0, r->n_nh, bad);
		return out[0] != NULL ? 1 : 0;
	}
	for (i = 0; i < r->n_nh; i++) {
		out[n] = route_new(m, r, i, 1, bad);
		if (out[n] == NULL)
			break;
		n++;
	}
	if (n < r->n_nh) {
		while (n > 0)
			free(out[--n]);
	}
	return n;
}

/*
 * The route an IPv6 replace takes the place of (fib6_add_rt2node()): the
 * first of its metric that is as ECMP-able as @p e, else the first of its
 * metric; NULL when the metric has none (the replace adds).
 */
static struct km_route **
ip6_replaced(struct km_prefix *p, const struct km_route *e)
{
	struct km_route **at, **first = NULL;

	for (at = &p->routes; *at != NULL; at = &(*at)->next) {
		if ((*at)->priority != e->priority)
			continue;
		if (ip6_ecmp(*at) == ip6_ecmp(e))
			return at;
		if (first == NULL)
			first = at;
	}
	return first;
}

static int
ip6_route(struct dpr_kmirror *m, struct km_prefix *p, const struct dpr_nl_route *r,
	  uint16_t flags, bool dump, uint8_t bad)
{
	struct km_route *e[DPR_NL_MAX_NH], **at;
	unsigned int i, n = ip6_split(m, r, bad, e);
	int rc = 0;

	if (n == 0)
		return -ENOMEM;
	/* A next-hop object's change (`ip nexthop replace`) announces the
	 * routes that use it again with NLM_F_REPLACE (the kernel's
	 * fib6_rt_update()), as for IPv4: the record stays where it is, it
	 * replaces no other route of its metric (a blackhole before it).
	 * Not so `ip -6 route replace ... nhid N`, below, even when a route
	 * by N is there already (the kernel then holds two: reannounced()). */
	if (!dump && (flags & NLM_F_REPLACE) && e[0]->nhid != 0 &&
	    reannounced(m, e[0]->nhid) && (at = ip6_find(p, e[0])) != NULL) {
		rc = route_relink(m, p, at, e[0]);
		if (rc < 0)
			free(e[0]);
		return rc;
	}
	if (!dump && (flags & NLM_F_REPLACE)) {
		struct km_route **t = ip6_replaced(p, e[0]);

		if (t != NULL) {
			bool siblings = ip6_ecmp(*t);

			route_unlink(m, t);
			/* An ECMP route goes with all its siblings (they
			 * follow it); the new routes take its place. */
			for (at = t; siblings && *at != NULL;) {
				if ((*at)->priority == r->priority && ip6_ecmp(*at))
					route_unlink(m, at);
				else
					at = &(*at)->next;
			}
			at = t;
			for (i = 0; i < n; i++) {
				if (rc == 0 && (rc = route_link(m, p, at, e[i])) == 0)
					at = &e[i]->next;
				else
					free(e[i]);
			}
			return rc;
		}
	}
	for (i = 0; i < n; i++) {
		if (dump) {
			at = ip6_find(p, e[i]);
			if (at != NULL)
				route_unlink(m, at);
			at = dump_pos(m, p);
			if (rc == 0 && (rc = route_link(m, p, at, e[i])) == 0)
				m->dump_prev = e[i];
			else
				free(e[i]);
			continue;
		}
		at = ip6_find(p, e[i]);
		if (at != NULL) {
			/* Listed again (an append lists all siblings): keep
			 * the place, take the new flags. */
			route_unlink(m, at);
		} else {
			at = ip6_pos(p, r->priority);
		}
		if (rc == 0)
			rc = route_link(m, p, at, e[i]);
		if (rc < 0)
			free(e[i]);
	}
	return rc;
}

static void
ip4_del(struct dpr_kmirror *m, struct km_prefix *p, const struct km_route *e)
{
	struct km_route **at = route_find(p, e, NULL);

	if (at == NULL) {
		/* Not the route the mirror has (flags or weights it missed):
		 * the first of its TOS, metric and type, as the kernel finds it. */
		for (at = &p->routes; *at != NULL; at = &(*at)->next)
			if ((*at)->tos == e->tos && (*at)->priority == e->priority &&
			    (*at)->type == e->type)
				break;
	}
	if (*at != NULL)
		route_unlink(m, at);
}

int
dpr_kmirror_route(struct dpr_kmirror *m, const struct dpr_nl_route *r, uint16_t nlmsg_flags,
		  bool dump, uint8_t bad)
{
	struct km_prefix *p;
	struct km_route *e;
	unsigned int i, n;

	if (r->del) {
		struct km_route *d[DPR_NL_MAX_NH], **at;

		p = *pfx_slot(m, r->table, &r->prefix);
		if (p == NULL)
			return 0;
		if (r->prefix.addr.af == DPR_AF_IP6) {
			n = ip6_split(m, r, bad, d);
			for (i = 0; i < n; i++) {
				at = ip6_find(p, d[i]);
				if (at != NULL)
					route_unlink(m, at);
				free(d[i]);
			}
			return n == 0 ? -ENOMEM : 0;
		}
		e = route_new(m, r, 0, r->n_nh, bad);
		if (e == NULL)
			return -ENOMEM;
		ip4_del(m, p, e);
		free(e);
		return 0;
	}
	p = pfx_get(m, r->table, &r->prefix);
	if (p == NULL)
		return -ENOMEM;
	dirty(m, p);
	if (r->prefix.addr.af == DPR_AF_IP6)
		return ip6_route(m, p, r, nlmsg_flags, dump, bad);
	/* A route by object keeps the expanded paths the kernel sent
	 * (nexthop_compat_mode): used while the object is unknown. */
	e = route_new(m, r, 0, r->n_nh, bad);
	if (e == NULL)
		return -ENOMEM;
	if ((dump ? dump_route(m, p, e) : ip4_route(m, p, e, nlmsg_flags)) < 0) {
		free(e);
		return -ENOMEM;
	}
	return 0;
}

/* Mark the prefixes of the routes using object @p o, and of the groups holding it, changed. */
static void
nh_users_dirty(struct dpr_kmirror *m, const struct km_nh *o)
{
	const struct km_route *e;
	const struct km_nh *g;
	unsigned int b, i;

	for (e = o->users; e != NULL; e = e->nh_next)
		dirty(m, e->pfx);
	for (b = 0; b < NH_BUCKETS; b++)
		for (g = m->nh[b]; g != NULL; g = g->hnext)
			for (i = 0; i < g->n_grp; i++)
				if (g->grp[i].id == o->id)
					for (e = g->users; e != NULL; e = e->nh_next)
						dirty(m, e->pfx);
}

/* A group left with no member, which the kernel removes too; NULL if none. */
static struct km_nh *
nh_empty_group(const struct dpr_kmirror *m)
{
	struct km_nh *g;
	unsigned int b;

	for (b = 0; b < NH_BUCKETS; b++)
		for (g = m->nh[b]; g != NULL; g = g->hnext)
			if (g->known && g->group && g->n_grp == 0)
				return g;
	return NULL;
}

/* The kernel removed object @p o (remove_nexthop()): its routes go with it. */
static void
nh_remove(struct dpr_kmirror *m, struct km_nh *o)
{
	struct km_route **at;
	struct km_nh *g;
	unsigned int b, i;

	nh_users_dirty(m, o);
	/* The kernel takes it out of its groups (remove_nh_grp_entry())
	 * and announces them again; doing it here too keeps the mirror
	 * right if that message was lost. */
	for (b = 0; b < NH_BUCKETS; b++) {
		for (g = m->nh[b]; g != NULL; g = g->hnext) {
			for (i = 0; i < g->n_grp; i++) {
				if (g->grp[i].id != o->id)
					continue;
				memmove(&g->grp[i], &g->grp[i + 1],
					(g->n_grp - i - 1) * sizeof(g->grp[0]));
				g->n_grp--;
				break;
			}
		}
	}
	/* Its routes: IPv4's leave without an RTM_DELROUTE. The object
	 * stays known (not freed) while they go. */
	o->known = true;
	o->group = false;
	o->n_grp = 0;
	while (o->users != NULL) {
		struct km_route *e = o->users;

		for (at = &e->pfx->routes; *at != e; at = &(*at)->next)
			;
		route_unlink(m, at);
	}
	o->known = false;
	nh_put(m, o);
	/* Groups it emptied go the same way (groups hold no groups). */
	while ((g = nh_empty_group(m)) != NULL)
		nh_remove(m, g);
}

void
dpr_kmirror_origin(struct dpr_kmirror *m, uint32_t seq, uint32_t pid)
{
	m->seq = seq;
	m->pid = pid;
}

int
dpr_kmirror_nexthop(struct dpr_kmirror *m, const struct dpr_nl_nexthop *nh)
{
	struct km_nh *o;

	m->nh_valid = !nh->del;
	m->nh_seq = m->seq;
	m->nh_pid = m->pid;
	m->nh_id = nh->id;
	if (nh->del) {
		o = nh_find(m, nh->id);
		if (o != NULL)
			nh_remove(m, o);
		return 0;
	}
	o = nh_get(m, nh->id);
	if (o == NULL)
		return -ENOMEM;
	o->known = true;
	o->gen = m->gen;
	o->bad = 0;
	o->group = nh->n_grp != 0;
	o->blackhole = nh->blackhole;
	o->nh = nh->nh;
	o->n_grp = nh->n_grp;
	memcpy(o->grp, nh->grp, nh->n_grp * sizeof(o->grp[0]));
	nh_users_dirty(m, o);
	return 0;
}

int
dpr_kmirror_nexthop_bad(struct dpr_kmirror *m, uint32_t id, uint8_t bad)
{
	struct dpr_nl_nexthop nh = { .id = id };
	int rc = dpr_kmirror_nexthop(m, &nh);

	/* No path and no member: nothing for a group to spread over. */
	if (rc == 0)
		nh_find(m, id)->bad = bad;
	return rc;
}

unsigned int
dpr_kmirror_mark_stale(struct dpr_kmirror *m)
{
	m->gen++;
	m->dump_prev = NULL;
	return m->n.routes;
}

unsigned int
dpr_kmirror_drop_table(struct dpr_kmirror *m, uint32_t table)
{
	struct km_prefix *p;
	unsigned int b, n = 0;

	for (b = 0; b < m->n_buckets; b++) {
		for (p = m->pfx[b]; p != NULL; p = p->hnext) {
			if (p->table != table)
				continue;
			while (p->routes != NULL) {
				route_unlink(m, &p->routes);
				n++;
			}
			/* Its VRF's routes went with the VRF: the next flush
			 * tells nobody, and frees the prefix (dirty now). */
			if (p->held)
				m->n.held--;
			p->held = false;
		}
	}
	return n;
}

unsigned int
dpr_kmirror_sweep_nexthops(struct dpr_kmirror *m)
{
	struct km_nh *o, *next;
	unsigned int b, n = 0;

	for (b = 0; b < NH_BUCKETS; b++) {
		for (o = m->nh[b]; o != NULL; o = next) {
			next = o->hnext;
			if (!o->known || o->gen == m->gen)
				continue;
			/* Its routes are in the route dump if the kernel kept them. */
			nh_users_dirty(m, o);
			o->known = false;
			o->n_grp = 0;
			n++;
			nh_put(m, o);
		}
	}
	return n;
}

/*
 * Where the kernel's dump may have hidden stale route @p e of IPv6 prefix
 * @p p: the first
 * of the ECMP siblings (two or more) of its metric that the dump listed;
 * NULL when the dump could not have hidden it.
 *
 * fib6_dump_node() dumps a route with siblings as one message and then
 * jumps to its last sibling, skipping whatever lies between them in the
 * kernel's list. A route that cannot be a sibling (a blackhole, a route by
 * object or without gateway) appended after the first sibling and before
 * a later one is there: no dump lists it (`ip -6 route show` neither), yet
 * the kernel selects it once the siblings before it are dead or deleted.
 * Only its events told the mirror of it.
 */
static struct km_route **
ip6_hidden_behind(struct km_prefix *p, const struct km_route *e, uint32_t gen)
{
	struct km_route **at, **first = NULL;
	unsigned int n = 0;

	if (ip6_ecmp(e))
		return NULL;
	for (at = &p->routes; *at != NULL; at = &(*at)->next) {
		if ((*at)->gen != gen || (*at)->priority != e->priority || !ip6_ecmp(*at))
			continue;
		if (first == NULL)
			first = at;
		n++;
	}
	return n >= 2 ? first : NULL;
}

/*
 * Keep @p p's stale IPv6 routes that the dump could not list (see
 * ip6_hidden_behind()), behind the first sibling of their metric in their
 * old order, as the kernel has them. @return how many.
 */
static unsigned int
ip6_keep_hidden(struct dpr_kmirror *m, struct km_prefix *p)
{
	struct km_route *kept = NULL, **tail = &kept, **at, **first, *e;
	unsigned int n = 0;

	if (p->pf.addr.af != DPR_AF_IP6)
		return 0;
	for (at = &p->routes; *at != NULL;) {
		e = *at;
		if (e->gen == m->gen || ip6_hidden_behind(p, e, m->gen) == NULL) {
			at = &e->next;
			continue;
		}
		*at = e->next;
		e->next = NULL;
		e->gen = m->gen;
		*tail = e;
		tail = &e->next;
	}
	while ((e = kept) != NULL) {
		kept = e->next;
		first = ip6_hidden_behind(p, e, m->gen);
		/* After the first sibling and the routes kept before it. */
		for (at = &(*first)->next; *at != NULL && (*at)->priority == e->priority &&
		     !ip6_ecmp(*at); at = &(*at)->next)
			;
		e->next = *at;
		*at = e;
		n++;
	}
	if (n > 0)
		dirty(m, p);
	return n;
}

unsigned int
dpr_kmirror_sweep_routes(struct dpr_kmirror *m)
{
	struct km_prefix *p;
	struct km_route **at;
	unsigned int b, n = 0;

	m->dump_prev = NULL;
	m->n.hidden = 0;
	for (b = 0; b < m->n_buckets; b++) {
		for (p = m->pfx[b]; p != NULL; p = p->hnext) {
			m->n.hidden += ip6_keep_hidden(m, p);
			for (at = &p->routes; *at != NULL;) {
				if ((*at)->gen != m->gen) {
					route_unlink(m, at);
					n++;
				} else {
					at = &(*at)->next;
				}
			}
		}
	}
	return n;
}

bool
dpr_kmirror_nexthops_on(const struct dpr_kmirror *m, uint32_t ifindex)
{
	const struct km_nh *o;
	unsigned int b;

	for (b = 0; b < NH_BUCKETS; b++)
		for (o = m->nh[b]; o != NULL; o = o->hnext)
			if (o->known && !o->group && o->nh.ifindex == ifindex)
				return true;
	return false;
}

bool
dpr_kmirror_uses(const struct dpr_kmirror *m, uint32_t ifindex, const struct dpr_ip *src)
{
	return m->use_lost || *use_slot(m, use_if(ifindex)) != NULL ||
	       (src != NULL && src->af == DPR_AF_IP4 && *use_slot(m, use_src(src->ip4)) != NULL) ||
	       dpr_kmirror_nexthops_on(m, ifindex);
}

/* Is path @p h one the kernel forwards on? */
static bool
path_live(const struct dpr_nl_nh *h)
{
	return (h->flags & RTNH_F_DEAD) == 0;
}

/*
 * The live paths of route @p e into @p s: its next-hop object's when the
 * kernel announced it, else the paths the route came with.
 * @return the number of live paths; 1 with s->nh_blackhole for a
 *   blackhole object.
 */
static unsigned int
route_paths(const struct dpr_kmirror *m, const struct km_route *e, struct dpr_kmirror_sel *s)
{
	const struct km_nh *o = e->nhid != 0 ? nh_find(m, e->nhid) : NULL;
	unsigned int i, n = 0;

	s->nh_blackhole = false;
	if (o != NULL && o->known) {
		if (o->blackhole) {
			s->nh_blackhole = true;
			s->n_paths = 0;
			return 1;
		}
		if (!o->group) {
			if (path_live(&o->nh))
				s->paths[n++] = o->nh;
		}
		for (i = 0; i < o->n_grp; i++) {
			const struct km_nh *g = nh_find(m, o->grp[i].id);

			if (g == NULL || !g->known || g->blackhole || g->group ||
			    !path_live(&g->nh))
				continue;
			s->paths[n] = g->nh;
			s->paths[n++].weight = o->grp[i].weight;
		}
	} else {
		for (i = 0; i < e->n_paths; i++)
			if (path_live(&e->paths[i]))
				s->paths[n++] = e->paths[i];
	}
	s->n_paths = n;
	return n;
}

/* Why dpr cannot take route @p e: its own reason, else its next-hop object's; 0 if none. */
static uint8_t
route_bad(const struct dpr_kmirror *m, const struct km_route *e)
{
	const struct km_nh *o;

	if (e->bad != 0 || e->nhid == 0)
		return e->bad;
	o = nh_find(m, e->nhid);
	return o != NULL && o->known ? o->bad : 0;
}

static void
sel_route(const struct dpr_kmirror *m, struct dpr_kmirror_sel *s, const struct km_route *e)
{
	s->type = e->type;
	s->protocol = e->protocol;
	s->bad = route_bad(m, e);
	s->priority = e->priority;
	s->nhid = e->nhid;
}

/* Is the kernel's lookup satisfied by @p e (fib_table_lookup(), find_match())? */
static bool
route_live(const struct dpr_kmirror *m, const struct km_route *e, struct dpr_kmirror_sel *s)
{
	if (e->type != RTN_UNICAST || route_bad(m, e) != 0) {
		s->n_paths = 0;
		s->nh_blackhole = false;
		return true;
	}
	return route_paths(m, e, s) > 0;
}

static bool
ip4_select(const struct dpr_kmirror *m, const struct km_prefix *p, struct dpr_kmirror_sel *s)
{
	const struct km_route *e;

	for (e = p->routes; e != NULL; e = e->next) {
		/* A route for one TOS only: not for every packet. */
		if (e->tos != 0 || e->bad == DPR_KMIRROR_IGNORED)
			continue;
		if (route_live(m, e, s)) {
			sel_route(m, s, e);
			return true;
		}
		/* A route by object with no live member ends the lookup
		 * (fib_table_lookup(): "goto miss"). */
		if (e->nhid != 0)
			return false;
	}
	return false;
}

static bool
ip6_select(const struct dpr_kmirror *m, const struct km_prefix *p, struct dpr_kmirror_sel *s)
{
	const struct km_route *e, *best = NULL;
	struct dpr_kmirror_sel t;
	unsigned int n;

	/* The lowest metric with a live route; its first one. */
	for (e = p->routes; e != NULL; e = e->next)
		if (e->bad != DPR_KMIRROR_IGNORED &&
		    (best == NULL || e->priority < best->priority) && route_live(m, e, &t))
			best = e;
	if (best == NULL)
		return false;
	route_live(m, best, s);
	sel_route(m, s, best);
	if (!ip6_ecmp(best))
		return true;
	/* ECMP: its live siblings too (fib6_select_path()). */
	n = 0;
	for (e = p->routes; e != NULL; e = e->next) {
		if (e->priority != best->priority || !ip6_ecmp(e) || !path_live(&e->paths[0]) ||
		    e->bad == DPR_KMIRROR_IGNORED)
			continue;
		if (n == DPR_NL_MAX_NH)
			break;
		s->paths[n++] = e->paths[0];
	}
	s->n_paths = n;
	return true;
}

unsigned int
dpr_kmirror_flush(struct dpr_kmirror *m, dpr_kmirror_cb cb, void *arg, bool keep_dump_cursor)
{
	struct km_prefix *p, *keep = NULL;
	struct dpr_kmirror_sel s;
	unsigned int n = 0;
	bool found;

	if (keep_dump_cursor && m->dump_prev != NULL)
		keep = m->dump_prev->pfx;
	while ((p = m->dirty) != NULL) {
		m->dirty = p->dirty_next;
		p->dirty = false;
		if (p == keep)
			continue;
		memset(&s, 0, sizeof(s));
		found = p->pf.addr.af == DPR_AF_IP4 ? ip4_select(m, p, &s) : ip6_select(m, p, &s);
		if (found || p->held) {
			bool held = cb(arg, p->table, &p->pf, found ? &s : NULL);

			if (held != p->held)
				m->n.held += held ? 1 : -1;
			p->held = held;
			n++;
		}
		if (p->routes == NULL && !p->held) {
			struct km_prefix **slot = pfx_slot(m, p->table, &p->pf);

			*slot = p->hnext;
			m->n.prefixes--;
			free(p);
		}
	}
	if (keep != NULL)
		dirty(m, keep);
	return n;
}

struct dpr_kmirror *
dpr_kmirror_create(void)
{
	struct dpr_kmirror *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->n_buckets = PFX_BUCKETS_MIN;
	m->pfx = calloc(m->n_buckets, sizeof(*m->pfx));
	if (m->pfx == NULL) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void
dpr_kmirror_free(struct dpr_kmirror *m)
{
	struct km_prefix *p, *pn;
	struct km_route *e, *en;
	struct km_nh *o, *on;
	unsigned int b;

	if (m == NULL)
		return;
	for (b = 0; b < m->n_buckets; b++) {
		for (p = m->pfx[b]; p != NULL; p = pn) {
			pn = p->hnext;
			for (e = p->routes; e != NULL; e = en) {
				en = e->next;
				free(e);
			}
			free(p);
		}
	}
	for (b = 0; b < NH_BUCKETS; b++) {
		for (o = m->nh[b]; o != NULL; o = on) {
			on = o->hnext;
			free(o);
		}
	}
	for (b = 0; b < USE_BUCKETS; b++) {
		while (m->use[b] != NULL) {
			struct km_use *u = m->use[b];

			m->use[b] = u->next;
			free(u);
		}
	}
	free(m->pfx);
	free(m);
}

void
dpr_kmirror_counts(const struct dpr_kmirror *m, struct dpr_kmirror_counts *c)
{
	struct km_nh *o;
	unsigned int b;

	*c = m->n;
	c->nexthops = 0;
	for (b = 0; b < NH_BUCKETS; b++)
		for (o = m->nh[b]; o != NULL; o = o->hnext)
			c->nexthops += o->known;
}
