/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include <rte_common.h>
#include <rte_log.h>

#include "../router/router.h"
#include "../util/log.h"
#include "feed.h"

_Static_assert(DPR_NL_MAX_NH <= DPR_NH_GROUP_MEMBERS,
	       "every path lib/netlink delivers fits in a multipath group");

/* Ops a batch starts with room for; a full-table replay grows it. */
#define OPS_MIN 1024u

static const char *const refuse_names[DPR_FEED_REF_MAX] = {
	[DPR_FEED_REF_INTERFACE] = "interface_unknown",
	[DPR_FEED_REF_GW_FAMILY] = "gateway_family",
	[DPR_FEED_REF_GW_INVALID] = "gateway_invalid",
	[DPR_FEED_REF_GW_UNCONNECTED] = "gateway_not_connected",
	[DPR_FEED_REF_GW_IPV4LL] = "gateway_169_254_0_1",
	[DPR_FEED_REF_MP_ATTACHED] = "multipath_attached",
	[DPR_FEED_REF_LINK_LOCAL] = "link_local_prefix",
	[DPR_FEED_REF_NH_FULL] = "nexthop_table_full",
	[DPR_FEED_REF_OTHER_VRF] = "interface_other_vrf",
	[DPR_FEED_REF_TABLE] = "table_unknown",
};

static const char *const failure_names[DPR_FEED_FAIL_MAX] = {
	[DPR_FEED_FAIL_OWN_PREFIX] = "own_prefix",
	[DPR_FEED_FAIL_FIB_FULL] = "fib_full",
	[DPR_FEED_FAIL_OTHER] = "other",
};

/* The changes of the batch under way for one VRF. */
struct feed_batch {
	struct dpr_src_op *ops;
	unsigned int n_ops, cap_ops;
};

/* Control thread only. */
struct dpr_route_feed {
	struct dpr_router *r;
	enum dpr_route_src src;
	uint32_t table;           /* the default VRF's kernel table */
	int logtype;
	const char *who;
	/* Per dpr port: the kernel ifindex of its TAP, 0 when it has none. */
	unsigned int ifindex[DPR_MAX_PORTS];
	bool map_fresh;           /* refreshed since the batch began */
	/* Per VRF slot; [0] allocated at create, the others at their first route. */
	struct feed_batch b[DPR_MAX_VRFS];
	unsigned int n_ops;       /* in all of b[] */
	struct dpr_feed_stats st;
};

int
dpr_route_kind_of(uint8_t type)
{
	switch (type) {
	case RTN_UNICAST:
		return DPR_RK_UNICAST;
	case RTN_BLACKHOLE:
		return DPR_RK_BLACKHOLE;
	case RTN_UNREACHABLE:
		return DPR_RK_UNREACHABLE;
	case RTN_PROHIBIT:
		return DPR_RK_PROHIBIT;
	case RTN_LOCAL:
	case RTN_BROADCAST:
	case RTN_ANYCAST:
	case RTN_MULTICAST:
		return -ENOENT;
	default:
		return -EOPNOTSUPP;
	}
}

/* A refused route or a failed install, counted and logged (dpr_log_counted()). */
#define log_counted(f, n, what, reason, ...) do { \
		char w_[96]; \
		snprintf(w_, sizeof(w_), "%s: %s", (f)->who, what); \
		dpr_log_counted((f)->logtype, n, w_, reason, __VA_ARGS__); \
	} while (0)

void
dpr_route_feed_map_refresh(struct dpr_route_feed *f)
{
	const struct dpr_router *r = f->r;
	unsigned int p;

	for (p = 0; p < r->n_ports; p++)
		f->ifindex[p] = r->ports[p].has_tap ? if_nametoindex(r->cfg->ports[p].tap) : 0;
	f->map_fresh = true;
	f->st.map_refreshes++;
}

int
dpr_route_feed_port(struct dpr_route_feed *f, uint32_t ifindex)
{
	unsigned int p, pass;

	if (ifindex == 0)
		return -1;
	for (pass = 0; pass < 2; pass++) {
		for (p = 0; p < f->r->n_ports; p++)
			if (f->ifindex[p] == ifindex)
				return (int)p;
		if (f->map_fresh)
			break;
		dpr_route_feed_map_refresh(f);
	}
	return -1;
}

/*
 * The next hop of path @p h of route @p pf, with a reference taken (as
 * route.add's: lib/api/methods.c nexthop_take()). A path with no gateway
 * is directly attached on its port.
 * @return its index, or -1 with the reason in *@p why.
 */
static int
path_nh(struct dpr_route_feed *f, uint16_t vrf, const struct dpr_prefix *pf,
	const struct dpr_route_path *h, bool multipath, enum dpr_feed_refuse *why)
{
	struct dpr_router *r = f->r;
	int port = -1, idx;

	if (h->ifindex != 0) {
		port = dpr_route_feed_port(f, h->ifindex);
		if (port < 0) {
			*why = DPR_FEED_REF_INTERFACE;
			return -1;
		}
		/* No leaking: a table's routes leave through its VRF's
		 * interfaces only. */
		if (dpr_router_port_vrf(r, (unsigned int)port) != vrf) {
			*why = DPR_FEED_REF_OTHER_VRF;
			return -1;
		}
	}
	if (h->gw.af == 0) {
		if (multipath) {
			*why = DPR_FEED_REF_MP_ATTACHED;
			return -1;
		}
		/* No IPv6 leaves through a link below 1280 (RFC 8200 5). */
		if (port < 0 || (pf->addr.af == DPR_AF_IP6 &&
				 !dpr_ifaddr_ip6_on(&r->addrs, (unsigned int)port))) {
			*why = DPR_FEED_REF_INTERFACE;
			return -1;
		}
		idx = dpr_nh_connected(r->nh, (uint8_t)port);
	} else {
		if (!dpr_route_gw_family_ok(pf, &h->gw)) {
			*why = DPR_FEED_REF_GW_FAMILY;
			return -1;
		}
		if (dpr_ifaddr_not_a_neighbour(&r->addrs, vrf, &h->gw, port) != NULL ||
		    (pf->len == (pf->addr.af == DPR_AF_IP4 ? 32 : 128) &&
		     dpr_ip_equal(&pf->addr, &h->gw))) {
			*why = DPR_FEED_REF_GW_INVALID;
			return -1;
		}
		/* fe80::1 names a host only with its link (RFC 4291 2.5.6). */
		if (dpr_ip_is_link_local(&h->gw) && port < 0) {
			*why = DPR_FEED_REF_INTERFACE;
			return -1;
		}
		port = dpr_ifaddr_connected(&r->addrs, vrf, &h->gw, port);
		if (port < 0) {
			/* zebra (FRR 8.4, zebra/rt_netlink.c) writes an IPv4
			 * route through an IPv6 neighbour as "via 169.254.0.1
			 * onlink" when it sends no next-hop objects, the MAC
			 * in a kernel neighbour entry dpr never sees: the
			 * neighbour cannot be named; told apart for the fix
			 * (fpm use-next-hop-groups). */
			*why = h->gw.af == DPR_AF_IP4 && h->gw.ip4 == UINT32_C(0xa9fe0001) ?
			       DPR_FEED_REF_GW_IPV4LL : DPR_FEED_REF_GW_UNCONNECTED;
			return -1;
		}
		idx = dpr_nh_get(r->nh, &h->gw, (uint8_t)port);
	}
	if (idx < 0) {
		*why = DPR_FEED_REF_NH_FULL;
		return -1;
	}
	return idx;
}

/*
 * The next hop of unicast route @p u: its path's, or the group of its
 * paths' gateways with their weights (a gateway named twice gets the sum).
 * @return the index with a reference taken, or -1 with *@p why.
 */
static int
route_nh(struct dpr_route_feed *f, uint16_t vrf, const struct dpr_route_upd *u,
	 enum dpr_feed_refuse *why)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS] = { 0 };
	uint16_t weights[DPR_NH_GROUP_MEMBERS] = { 0 };
	unsigned int i, j, k = 0;
	int idx = -1;

	if (u->n_paths == 1)
		return path_nh(f, vrf, &u->prefix, &u->paths[0], false, why);
	for (i = 0; i < u->n_paths && i < DPR_NH_GROUP_MEMBERS; i++) {
		uint16_t w = u->paths[i].weight != 0 ? u->paths[i].weight : 1;

		idx = path_nh(f, vrf, &u->prefix, &u->paths[i], true, why);
		if (idx < 0)
			goto out;
		for (j = 0; j < k && members[j] != (uint32_t)idx; j++)
			;
		if (j < k) {
			weights[j] = (uint16_t)RTE_MIN(weights[j] + w, DPR_NH_WEIGHT_MAX);
			dpr_nh_put(f->r->nh, (uint32_t)idx);
			continue;
		}
		members[k] = (uint32_t)idx;
		weights[k++] = (uint16_t)RTE_MIN(w, DPR_NH_WEIGHT_MAX);
	}
	/* The heaviest path (the first of equals), held for the case below. */
	for (i = 1, j = 0; i < k; i++)
		if (weights[i] > weights[j])
			j = i;
	dpr_nh_hold(f->r->nh, members[j]);
	/* Duplicates merged, one member left may be no group: that member. */
	idx = dpr_nh_group_take(f->r->nh, members, weights, k);
	if (idx >= 0) {
		dpr_nh_put(f->r->nh, members[j]);
		return idx;
	}
	/* No room for another multipath group: the route goes over one of
	 * the daemon's paths, not withdrawn to whatever covers its prefix
	 * (which may lead anywhere). Its next change tries a group again. */
	idx = (int)members[j];
	{
		char buf[DPR_PREFIX_STRLEN];

		log_counted(f, ++f->st.one_path, "multipath route over one path",
			    "multipath_one_path",
			    "%s (%u paths): no multipath group left (%u in use at most), installed over its heaviest path alone",
			    dpr_prefix_fmt(&u->prefix, buf, sizeof(buf)), k, DPR_NH_GROUPS_MAX);
	}
	return idx;
out:
	for (j = 0; j < k; j++)
		dpr_nh_put(f->r->nh, members[j]);
	return -1;
}

static void
op_drop(struct dpr_route_feed *f, const struct dpr_src_op *op)
{
	if (!op->del)
		dpr_nh_put(f->r->nh, op->nh);
}

int
dpr_route_feed_vrf(const struct dpr_route_feed *f, uint32_t table)
{
	unsigned int v;

	if (table == f->table)
		return DPR_VRF_DEFAULT;
	for (v = 1; v < DPR_MAX_VRFS; v++)
		if (f->r->vrfs[v].rib != NULL && f->r->vrfs[v].conf.table == table)
			return (int)v;
	return -1;
}

uint32_t
dpr_route_feed_table(const struct dpr_route_feed *f, unsigned int vrf)
{
	if (vrf == DPR_VRF_DEFAULT)
		return f->table;
	return dpr_router_rib(f->r, vrf) != NULL ? f->r->vrfs[vrf].conf.table : 0;
}

/* Apply VRF @p v's queued ops, counting each one's outcome. */
static void
batch_apply(struct dpr_route_feed *f, unsigned int v)
{
	struct feed_batch *b = &f->b[v];
	struct dpr_rib *rib = dpr_router_rib(f->r, v);
	char buf[DPR_PREFIX_STRLEN], what[48];
	unsigned int i, n = b->n_ops;

	b->n_ops = 0;
	if (v == DPR_VRF_DEFAULT)
		snprintf(what, sizeof(what), "not installed");
	else
		snprintf(what, sizeof(what), "vrf %s: not installed", f->r->vrfs[v].conf.name);
	if (rib != NULL) {
		dpr_route_src_apply(rib, f->src, b->ops, n);
		f->st.batches++;
	}
	for (i = 0; i < n; i++) {
		struct dpr_src_op *op = &b->ops[i];
		enum dpr_feed_failure why;

		if (rib == NULL) { /* the VRF went away with the batch queued */
			op_drop(f, op);
			op->result = -ENODEV;
		}
		switch (op->result) {
		case 0:
			if (op->del)
				f->st.withdrawn++;
			else
				f->st.installed++;
			continue;
		case -ENOENT:
			f->st.withdrawn_unheld++;
			continue;
		case -EPERM:
			why = DPR_FEED_FAIL_OWN_PREFIX;
			break;
		case -ENOSPC:
		case -ENOMEM:
			why = DPR_FEED_FAIL_FIB_FULL;
			break;
		default:
			why = DPR_FEED_FAIL_OTHER;
			break;
		}
		log_counted(f, ++f->st.failed[why], what, failure_names[why], "%s %s",
			    dpr_prefix_fmt(&op->prefix, buf, sizeof(buf)),
			    why == DPR_FEED_FAIL_OWN_PREFIX ? "is the router's own (an address, its subnet or a static neighbour)" :
			    why == DPR_FEED_FAIL_FIB_FULL ? "does not fit in the FIB (kept, installed with a later change of its prefix; raise fib.ipv4_max_routes, fib.ipv4_tbl8_groups or the ipv6 ones)" :
			    strerror(-op->result));
	}
}

unsigned int
dpr_route_feed_apply(struct dpr_route_feed *f)
{
	unsigned int v, n = f->n_ops;

	f->map_fresh = false;
	if (n == 0)
		return 0;
	/* One batch per VRF: the order that matters (a prefix's delete
	 * and add) is within one VRF's table, kept in its batch. */
	for (v = 0; v < DPR_MAX_VRFS; v++)
		if (f->b[v].n_ops != 0)
			batch_apply(f, v);
	f->n_ops = 0;
	return n;
}

/* Add @p op to VRF @p v's batch; its next-hop reference goes with it. */
static void
push(struct dpr_route_feed *f, unsigned int v, const struct dpr_src_op *op)
{
	struct feed_batch *b = &f->b[v];

	if (b->n_ops == b->cap_ops) {
		unsigned int cap = b->cap_ops != 0 ? 2 * b->cap_ops : OPS_MIN;
		struct dpr_src_op *a = realloc(b->ops, cap * sizeof(*a));

		if (a != NULL) {
			b->ops = a;
			b->cap_ops = cap;
		} else if (b->n_ops != 0) {
			/* Out of memory: apply what is there now (a route
			 * update's delete and add may then land in two
			 * batches) and go on in the same room. */
			rte_log(RTE_LOG_WARNING, f->logtype,
				"dpr: %s: out of memory for a batch of %u routes: applying it early\n",
				f->who, f->n_ops);
			dpr_route_feed_apply(f);
		} else {
			/* No room at all for this VRF's first route: lost,
			 * counted; the daemon's next change of it retries. */
			op_drop(f, op);
			f->st.failed[DPR_FEED_FAIL_OTHER]++;
			return;
		}
	}
	b->ops[b->n_ops++] = *op;
	f->n_ops++;
}

void
dpr_route_feed_add(struct dpr_route_feed *f, const struct dpr_route_upd *u)
{
	struct dpr_src_op op = { .prefix = u->prefix, .del = u->del, .proto = u->protocol };
	enum dpr_feed_refuse why = DPR_FEED_REF_MAX;
	char buf[DPR_PREFIX_STRLEN], what[48];
	int idx, vrf = dpr_route_feed_vrf(f, u->table);

	if (vrf < 0) {
		/* No VRF to withdraw it from either. */
		log_counted(f, ++f->st.refused[DPR_FEED_REF_TABLE], "refused",
			    refuse_names[DPR_FEED_REF_TABLE], "%s in table %u, no VRF's",
			    dpr_prefix_fmt(&u->prefix, buf, sizeof(buf)), u->table);
		return;
	}
	if (!op.del && u->prefix.len >= 10 && dpr_ip_is_link_local(&u->prefix.addr)) {
		why = DPR_FEED_REF_LINK_LOCAL;
	} else if (!op.del) {
		switch (u->kind) {
		case DPR_RK_BLACKHOLE:
			op.nh = DPR_NH_BLACKHOLE;
			break;
		case DPR_RK_UNREACHABLE:
		case DPR_RK_PROHIBIT:
			op.nh = DPR_NH_NONE;
			break;
		case DPR_RK_UNICAST:
		default:
			idx = route_nh(f, (uint16_t)vrf, u, &why);
			if (idx >= 0)
				op.nh = (uint32_t)idx;
			break;
		}
	}
	if (why != DPR_FEED_REF_MAX) {
		if (vrf == DPR_VRF_DEFAULT)
			snprintf(what, sizeof(what), "refused");
		else
			snprintf(what, sizeof(what), "vrf %s: refused", f->r->vrfs[vrf].conf.name);
		log_counted(f, ++f->st.refused[why], what, refuse_names[why],
			    "%s (withdrawn from dpr)%s", dpr_prefix_fmt(&u->prefix, buf, sizeof(buf)),
			    why == DPR_FEED_REF_GW_IPV4LL ?
			    "; an IPv4 route through an IPv6 neighbour as zebra writes it without next-hop objects: turn zebra's \"fpm use-next-hop-groups\" on" :
			    why == DPR_FEED_REF_OTHER_VRF ?
			    "; its interface is in another VRF than its table's" : "");
		/* Never keep forwarding on what the daemon has replaced. */
		op.del = 1;
		op.nh = 0;
	}
	push(f, (unsigned int)vrf, &op);
}

unsigned int
dpr_route_feed_mark_stale(struct dpr_route_feed *f)
{
	unsigned int v, n = 0;

	for (v = 0; v < DPR_MAX_VRFS; v++)
		if (dpr_router_rib(f->r, v) != NULL)
			n += dpr_route_src_mark_stale(dpr_router_rib(f->r, v), f->src);
	return n;
}

unsigned int
dpr_route_feed_sweep(struct dpr_route_feed *f)
{
	unsigned int v, n = 0;

	for (v = 0; v < DPR_MAX_VRFS; v++)
		if (dpr_router_rib(f->r, v) != NULL)
			n += dpr_route_src_sweep(dpr_router_rib(f->r, v), f->src);
	return n;
}

json_t *
dpr_route_feed_vrfs_json(const struct dpr_route_feed *f, struct dpr_route_src_counts *sum)
{
	struct dpr_route_src_counts c;
	json_t *o = json_object();
	unsigned int v;

	memset(sum, 0, sizeof(*sum));
	for (v = 0; v < DPR_MAX_VRFS; v++) {
		const struct dpr_rib *rib = dpr_router_rib(f->r, v);

		if (rib == NULL || rib->srcs == NULL)
			continue;
		dpr_route_src_counts(rib, &c);
		sum->held[f->src] += c.held[f->src];
		sum->active[f->src] += c.active[f->src];
		sum->stale[f->src] += c.stale[f->src];
		json_object_set_new(o, f->r->vrfs[v].conf.name, json_pack("{s:I,s:i,s:i,s:i}",
			"table", (json_int_t)dpr_route_feed_table(f, v),
			"routes", (int)c.held[f->src],
			"routes_active", (int)c.active[f->src],
			"routes_stale", (int)c.stale[f->src]));
	}
	return o;
}

struct dpr_route_feed *
dpr_route_feed_create(struct dpr_router *r, enum dpr_route_src src, uint32_t table, int logtype,
		      const char *who)
{
	struct dpr_route_feed *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	f->b[0].ops = malloc(OPS_MIN * sizeof(*f->b[0].ops));
	if (f->b[0].ops == NULL) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	f->r = r;
	f->src = src;
	f->table = table != 0 ? table : RT_TABLE_MAIN;
	f->logtype = logtype;
	f->who = who;
	f->b[0].cap_ops = OPS_MIN;
	dpr_route_feed_map_refresh(f);
	return f;
}

void
dpr_route_feed_free(struct dpr_route_feed *f)
{
	unsigned int i, v;

	if (f == NULL)
		return;
	for (v = 0; v < DPR_MAX_VRFS; v++) {
		for (i = 0; i < f->b[v].n_ops; i++)
			op_drop(f, &f->b[v].ops[i]);
		free(f->b[v].ops);
	}
	free(f);
}

const struct dpr_feed_stats *
dpr_route_feed_stats(const struct dpr_route_feed *f)
{
	return &f->st;
}

json_t *
dpr_counters_json(const uint64_t *v, const char *const *names, unsigned int n)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, names[i], json_integer((json_int_t)v[i]));
	return o;
}

void
dpr_route_feed_stats_json(const struct dpr_route_feed *f, json_t *o)
{
	json_object_set_new(o, "refused", dpr_counters_json(f->st.refused, refuse_names, DPR_FEED_REF_MAX));
	json_object_set_new(o, "not_installed",
			    dpr_counters_json(f->st.failed, failure_names, DPR_FEED_FAIL_MAX));
	json_object_set_new(o, "installed", json_integer((json_int_t)f->st.installed));
	json_object_set_new(o, "withdrawn", json_integer((json_int_t)f->st.withdrawn));
	json_object_set_new(o, "withdrawn_unheld", json_integer((json_int_t)f->st.withdrawn_unheld));
	json_object_set_new(o, "multipath_one_path", json_integer((json_int_t)f->st.one_path));
	json_object_set_new(o, "batches_applied", json_integer((json_int_t)f->st.batches));
	json_object_set_new(o, "interface_map_refreshes",
			    json_integer((json_int_t)f->st.map_refreshes));
}
