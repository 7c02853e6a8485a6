/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "../api/server.h"
#include "../router/router.h"
#include "../util/log.h"
#include "fpm.h"
#include "fpm_router.h"

extern int dpr_logtype_fpm; /* registered in fpm.c */

_Static_assert(DPR_NL_MAX_NH <= DPR_NH_GROUP_MEMBERS,
	       "every path lib/fpm delivers fits in a multipath group");

/* Ops a batch starts with room for; a full-table replay grows it. */
#define OPS_MIN 1024u

/* Why a route zebra sent is refused here (lib/fpm refuses others before). */
enum refuse {
	REF_INTERFACE,      /* an ifindex that is no dpr port's TAP */
	REF_GW_FAMILY,      /* an IPv6 gateway for an IPv4 route (RFC 5549) or the reverse */
	REF_GW_INVALID,     /* a gateway that cannot be a neighbour, or the destination itself */
	REF_GW_UNCONNECTED, /* a gateway on no connected subnet of its port */
	REF_MP_ATTACHED,    /* a multipath route with an interface-only path */
	REF_LINK_LOCAL,     /* a route for link-local destinations, never forwarded */
	REF_NH_FULL,        /* next-hop table or multipath groups full */
	REF_MAX
};

static const char *const refuse_names[REF_MAX] = {
	[REF_INTERFACE] = "interface_unknown",
	[REF_GW_FAMILY] = "gateway_family",
	[REF_GW_INVALID] = "gateway_invalid",
	[REF_GW_UNCONNECTED] = "gateway_not_connected",
	[REF_MP_ATTACHED] = "multipath_attached",
	[REF_LINK_LOCAL] = "link_local_prefix",
	[REF_NH_FULL] = "nexthop_table_full",
};

/* Why the route table did not take a route this module handed it. */
enum failure {
	FAIL_OWN_PREFIX, /* -EPERM: an address's route, a neighbour's host route */
	FAIL_FIB_FULL,   /* -ENOSPC, -ENOMEM: held, not installed */
	FAIL_OTHER,
	FAIL_MAX
};

static const char *const failure_names[FAIL_MAX] = {
	[FAIL_OWN_PREFIX] = "own_prefix",
	[FAIL_FIB_FULL] = "fib_full",
	[FAIL_OTHER] = "other",
};

/* Control thread only. */
struct dpr_fpm_router {
	struct dpr_router *r;
	struct dpr_fpm *fpm;
	/* Per dpr port: the kernel ifindex of its TAP, 0 when it has none. */
	unsigned int ifindex[DPR_MAX_PORTS];
	bool map_fresh;           /* refreshed since the batch began */
	struct dpr_src_op *ops;   /* changes of the batch under way */
	unsigned int n_ops, cap_ops;
	uint64_t sweep_at;        /* TSC of the sweep; 0: none due */
	struct {
		uint64_t refused[REF_MAX];
		uint64_t failed[FAIL_MAX];
		uint64_t installed;       /* adds the route table took */
		uint64_t withdrawn;       /* deletes of routes it held */
		uint64_t withdrawn_unheld; /* deletes of routes it did not hold (refused ones) */
		uint64_t batches;
		uint64_t map_refreshes;
		uint64_t stale_marked;    /* routes marked, all disconnects */
		uint64_t sweeps;
		uint64_t swept;
		uint32_t last_marked;     /* at the last disconnect */
		uint32_t last_swept;      /* by the last sweep */
	} st;
};


/* Read each port's TAP ifindex again (TAPs can be recreated by hand). */
static void
map_refresh(struct dpr_fpm_router *f)
{
	const struct dpr_router *r = f->r;
	unsigned int p;

	for (p = 0; p < r->n_ports; p++)
		f->ifindex[p] = r->ports[p].has_tap ? if_nametoindex(r->cfg->ports[p].tap) : 0;
	f->map_fresh = true;
	f->st.map_refreshes++;
}

/* The dpr port whose TAP is @p ifindex, or -1; an unknown one reads the TAPs again, once a batch. */
static int
port_of(struct dpr_fpm_router *f, uint32_t ifindex)
{
	unsigned int p, pass;

	for (pass = 0; pass < 2; pass++) {
		for (p = 0; p < f->r->n_ports; p++)
			if (f->ifindex[p] == ifindex)
				return (int)p;
		if (f->map_fresh)
			break;
		map_refresh(f);
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
path_nh(struct dpr_fpm_router *f, const struct dpr_prefix *pf, const struct dpr_fpm_path *h,
	bool multipath, enum refuse *why)
{
	struct dpr_router *r = f->r;
	int port = -1, idx;

	if (h->ifindex != 0) {
		port = port_of(f, h->ifindex);
		if (port < 0) {
			*why = REF_INTERFACE;
			return -1;
		}
	}
	if (h->gw.af == 0) {
		if (multipath) {
			*why = REF_MP_ATTACHED;
			return -1;
		}
		if (port < 0) { /* lib/fpm refuses those already */
			*why = REF_INTERFACE;
			return -1;
		}
		idx = dpr_nh_connected(r->nh, (uint8_t)port);
	} else {
		if (h->gw.af != pf->addr.af) {
			*why = REF_GW_FAMILY;
			return -1;
		}
		if (dpr_ifaddr_not_a_neighbour(&r->addrs, &h->gw) != NULL ||
		    (pf->len == (pf->addr.af == DPR_AF_IP4 ? 32 : 128) &&
		     dpr_ip_equal(&pf->addr, &h->gw))) {
			*why = REF_GW_INVALID;
			return -1;
		}
		/* fe80::1 names a host only with its link (RFC 4291 2.5.6). */
		if (dpr_ip_is_link_local(&h->gw) && port < 0) {
			*why = REF_INTERFACE;
			return -1;
		}
		port = dpr_ifaddr_connected(&r->addrs, &h->gw, port);
		if (port < 0) {
			*why = REF_GW_UNCONNECTED;
			return -1;
		}
		idx = dpr_nh_get(r->nh, &h->gw, (uint8_t)port);
	}
	if (idx < 0) {
		*why = REF_NH_FULL;
		return -1;
	}
	return idx;
}

/*
 * The next hop of unicast route @p fr: its path's, or the group of its
 * paths' gateways with their weights (a gateway named twice gets the sum).
 * @return the index with a reference taken, or -1 with *@p why.
 */
static int
route_nh(struct dpr_fpm_router *f, const struct dpr_fpm_route *fr, enum refuse *why)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS] = { 0 };
	uint16_t weights[DPR_NH_GROUP_MEMBERS] = { 0 };
	unsigned int i, j, k = 0;
	int idx = -1;

	if (fr->n_paths == 1)
		return path_nh(f, &fr->prefix, &fr->paths[0], false, why);
	for (i = 0; i < fr->n_paths && i < DPR_NH_GROUP_MEMBERS; i++) {
		uint16_t w = fr->paths[i].weight != 0 ? fr->paths[i].weight : 1;

		idx = path_nh(f, &fr->prefix, &fr->paths[i], true, why);
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
	if (k == 1) {
		/* Keep the member's reference: it is the route's next hop. */
		return (int)members[--k];
	}
	idx = dpr_nh_group_get(f->r->nh, members, weights, k);
	if (idx < 0)
		*why = REF_NH_FULL;
out:
	/* A group holds its own references on its members. */
	for (j = 0; j < k; j++)
		dpr_nh_put(f->r->nh, members[j]);
	return idx < 0 ? -1 : idx;
}

static void
op_drop(struct dpr_fpm_router *f, const struct dpr_src_op *op)
{
	if (!op->del)
		dpr_nh_put(f->r->nh, op->nh);
}

/* Hand the batch's ops to the route table: one FIB batch, one grace period. */
static void
apply(struct dpr_fpm_router *f)
{
	char buf[DPR_PREFIX_STRLEN];
	unsigned int i;

	if (f->n_ops == 0)
		return;
	dpr_route_src_apply(&f->r->rib, DPR_RSRC_FPM, f->ops, f->n_ops);
	f->st.batches++;
	for (i = 0; i < f->n_ops; i++) {
		const struct dpr_src_op *op = &f->ops[i];
		enum failure why;

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
			why = FAIL_OWN_PREFIX;
			break;
		case -ENOSPC:
		case -ENOMEM:
			why = FAIL_FIB_FULL;
			break;
		default:
			why = FAIL_OTHER;
			break;
		}
		dpr_log_counted(dpr_logtype_fpm, ++f->st.failed[why], "fpm: not installed", failure_names[why], "%s %s",
			    dpr_prefix_fmt(&op->prefix, buf, sizeof(buf)),
			    why == FAIL_OWN_PREFIX ? "is the router's own (an address, its subnet or a static neighbour)" :
			    why == FAIL_FIB_FULL ? "does not fit in the FIB (kept, installed with a later change of its prefix; raise fib.ipv4_max_routes, fib.ipv4_tbl8_groups or the ipv6 ones)" :
			    strerror(-op->result));
	}
	f->n_ops = 0;
}

/* Add @p op to the batch; its next-hop reference goes with it. */
static void
push(struct dpr_fpm_router *f, const struct dpr_src_op *op)
{
	if (f->n_ops == f->cap_ops) {
		struct dpr_src_op *a = realloc(f->ops, 2 * f->cap_ops * sizeof(*a));

		if (a == NULL) {
			/* Out of memory: apply what is there now (a route
			 * update's delete and add may then land in two
			 * batches) and go on in the same room. */
			DPR_LOG(WARNING, fpm, "fpm: out of memory for a batch of %u routes: applying it early",
				f->n_ops);
			apply(f);
		} else {
			f->ops = a;
			f->cap_ops *= 2;
		}
	}
	f->ops[f->n_ops++] = *op;
}

/* lib/fpm's sink. */

static void
on_route(void *arg, const struct dpr_fpm_route *fr)
{
	struct dpr_fpm_router *f = arg;
	struct dpr_src_op op = { .prefix = fr->prefix, .del = fr->del, .proto = fr->protocol };
	char buf[DPR_PREFIX_STRLEN];
	enum refuse why = REF_MAX;
	int idx;

	if (!op.del && fr->prefix.len >= 10 && dpr_ip_is_link_local(&fr->prefix.addr)) {
		why = REF_LINK_LOCAL;
	} else if (!op.del) {
		switch (fr->kind) {
		case DPR_FPM_BLACKHOLE:
			op.nh = DPR_NH_BLACKHOLE;
			break;
		case DPR_FPM_UNREACHABLE:
		case DPR_FPM_PROHIBIT:
			op.nh = DPR_NH_NONE;
			break;
		case DPR_FPM_UNICAST:
		default:
			idx = route_nh(f, fr, &why);
			if (idx >= 0)
				op.nh = (uint32_t)idx;
			break;
		}
	}
	if (why != REF_MAX) {
		dpr_log_counted(dpr_logtype_fpm, ++f->st.refused[why], "fpm: refused", refuse_names[why],
			    "%s (withdrawn from dpr)", dpr_prefix_fmt(&fr->prefix, buf, sizeof(buf)));
		/* Never keep forwarding on what zebra has replaced. */
		op.del = 1;
		op.nh = 0;
	}
	push(f, &op);
}

static void
on_batch_end(void *arg)
{
	struct dpr_fpm_router *f = arg;

	apply(f);
	f->map_fresh = false;
}

static void
on_connected(void *arg)
{
	struct dpr_fpm_router *f = arg;

	map_refresh(f);
	if (f->sweep_at != 0)
		DPR_LOG(INFO, fpm, "fpm: zebra connected: it replays its routes; those it has not sent again in %.1f s go",
			(double)(f->sweep_at - RTE_MIN(f->sweep_at, rte_rdtsc())) /
			(double)rte_get_tsc_hz());
	else
		DPR_LOG(INFO, fpm, "fpm: zebra connected");
}

static void
on_disconnected(void *arg)
{
	struct dpr_fpm_router *f = arg;
	uint32_t grace = f->r->cfg->fpm.grace_s;
	unsigned int n;

	n = dpr_route_src_mark_stale(&f->r->rib, DPR_RSRC_FPM);
	f->st.last_marked = n;
	f->st.stale_marked += n;
	if (n == 0) {
		DPR_LOG(INFO, fpm, "fpm: zebra went away (it had no routes in dpr)");
		return;
	}
	/* A later disconnect gives the next connection the whole grace
	 * period again: its replay restarts from the beginning. */
	f->sweep_at = rte_rdtsc() + (uint64_t)grace * rte_get_tsc_hz();
	if (f->sweep_at == 0)
		f->sweep_at = 1;
	DPR_LOG(WARNING, fpm, "fpm: zebra went away: its %u routes keep forwarding, stale; those it does not send again within %u s (fpm.grace_s) go",
		n, grace);
}

void
dpr_fpm_router_timers(struct dpr_router *r)
{
	struct dpr_fpm_router *f = r->fpm;
	unsigned int n;

	if (f == NULL || f->sweep_at == 0 || rte_rdtsc() < f->sweep_at)
		return;
	f->sweep_at = 0;
	n = dpr_route_src_sweep(&r->rib, DPR_RSRC_FPM);
	f->st.sweeps++;
	f->st.swept += n;
	f->st.last_swept = n;
	rte_log(n != 0 ? RTE_LOG_WARNING : RTE_LOG_INFO, dpr_logtype_fpm,
		"dpr: fpm: grace period over: %u stale routes removed (%s)\n", n,
		dpr_fpm_is_connected(f->fpm) ? "zebra did not send them again" : "zebra is still away");
}

int
dpr_fpm_router_start(struct dpr_router *r, char *err, size_t err_len)
{
	const struct dpr_fpm_conf *fc = &r->cfg->fpm;
	struct dpr_fpm_sink sink = {
		.route = on_route,
		.batch_end = on_batch_end,
		.connected = on_connected,
		.disconnected = on_disconnected,
	};
	struct dpr_fpm_router *f;
	int ret;

	if (!fc->enabled)
		return 0;
	if (r->rib.srcs == NULL) {
		snprintf(err, err_len, "fpm: no route source table to put zebra's routes in");
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (f != NULL)
		f->ops = malloc(OPS_MIN * sizeof(*f->ops));
	if (f == NULL || f->ops == NULL) {
		snprintf(err, err_len, "fpm: out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	f->r = r;
	f->cap_ops = OPS_MIN;
	map_refresh(f);
	sink.arg = f;
	f->fpm = dpr_fpm_create(fc->listen, fc->table, &sink, err, err_len);
	if (f->fpm == NULL) {
		ret = -errno;
		goto fail;
	}
	ret = dpr_server_watch(r->server, dpr_fpm_fd(f->fpm), dpr_fpm_poll_cb, f->fpm);
	if (ret < 0) {
		snprintf(err, err_len, "fpm: cannot watch the FPM socket: %s", strerror(-ret));
		goto fail;
	}
	r->fpm = f;
	return 0;
fail:
	if (f != NULL) {
		dpr_fpm_free(f->fpm);
		free(f->ops);
	}
	free(f);
	return ret;
}

void
dpr_fpm_router_free(struct dpr_router *r)
{
	struct dpr_fpm_router *f = r->fpm;
	unsigned int i;

	if (f == NULL)
		return;
	dpr_fpm_free(f->fpm);
	/* dpr_fpm_free() ends no batch: what it collected is dropped. */
	for (i = 0; i < f->n_ops; i++)
		op_drop(f, &f->ops[i]);
	free(f->ops);
	free(f);
	r->fpm = NULL;
}

static json_t *
counters_json(const uint64_t *v, const char *const *names, unsigned int n)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, names[i], json_integer((json_int_t)v[i]));
	return o;
}

json_t *
dpr_fpm_router_stats_json(struct dpr_router *r)
{
	const struct dpr_fpm_router *f = r->fpm;
	const char *ign[DPR_FPM_IGN_MAX], *rej[DPR_FPM_REJ_MAX];
	const struct dpr_fpm_stats *s;
	struct dpr_route_src_counts c;
	uint64_t now;
	unsigned int i;
	json_t *o;

	if (f == NULL)
		return json_pack("{s:b}", "enabled", false);
	s = dpr_fpm_stats(f->fpm);
	dpr_route_src_counts(&r->rib, &c);
	for (i = 0; i < DPR_FPM_IGN_MAX; i++)
		ign[i] = dpr_fpm_ignore_name(i);
	for (i = 0; i < DPR_FPM_REJ_MAX; i++)
		rej[i] = dpr_fpm_reject_name(i);
	o = json_pack("{s:b,s:s,s:i,s:I,s:I,s:b}",
		"enabled", true,
		"listen", r->cfg->fpm.listen,
		"port", (int)dpr_fpm_port(f->fpm),
		"table", (json_int_t)r->cfg->fpm.table,
		"grace_s", (json_int_t)r->cfg->fpm.grace_s,
		"connected", dpr_fpm_is_connected(f->fpm));
	if (o == NULL)
		return json_object();
	/* The connection and the stream (lib/fpm). */
	json_object_set_new(o, "connections", json_integer((json_int_t)s->connections));
	json_object_set_new(o, "replaced", json_integer((json_int_t)s->replaced));
	json_object_set_new(o, "closed", json_integer((json_int_t)s->closed));
	json_object_set_new(o, "resets", json_integer((json_int_t)s->resets));
	json_object_set_new(o, "bytes", json_integer((json_int_t)s->bytes));
	json_object_set_new(o, "frames", json_integer((json_int_t)s->frames));
	json_object_set_new(o, "bad_frames", json_integer((json_int_t)s->bad_frames));
	json_object_set_new(o, "messages", json_integer((json_int_t)s->messages));
	json_object_set_new(o, "batches", json_integer((json_int_t)s->batches));
	json_object_set_new(o, "routes_added", json_integer((json_int_t)s->routes_added));
	json_object_set_new(o, "routes_deleted", json_integer((json_int_t)s->routes_deleted));
	json_object_set_new(o, "routes_redelivered",
			    json_integer((json_int_t)s->routes_redelivered));
	json_object_set_new(o, "nexthops_added", json_integer((json_int_t)s->nexthops_added));
	json_object_set_new(o, "nexthops_deleted", json_integer((json_int_t)s->nexthops_deleted));
	json_object_set_new(o, "nexthops_in_use", json_integer((json_int_t)s->nexthops_in_use));
	json_object_set_new(o, "nexthop_objects", json_integer(s->nexthops));
	json_object_set_new(o, "routes_by_nexthop_id", json_integer(s->routes_by_id));
	json_object_set_new(o, "ignored", counters_json(s->ignored, ign, DPR_FPM_IGN_MAX));
	json_object_set_new(o, "rejected", counters_json(s->rejected, rej, DPR_FPM_REJ_MAX));
	/* What became of the routes here. */
	json_object_set_new(o, "refused", counters_json(f->st.refused, refuse_names, REF_MAX));
	json_object_set_new(o, "not_installed",
			    counters_json(f->st.failed, failure_names, FAIL_MAX));
	json_object_set_new(o, "installed", json_integer((json_int_t)f->st.installed));
	json_object_set_new(o, "withdrawn", json_integer((json_int_t)f->st.withdrawn));
	json_object_set_new(o, "withdrawn_unheld", json_integer((json_int_t)f->st.withdrawn_unheld));
	json_object_set_new(o, "batches_applied", json_integer((json_int_t)f->st.batches));
	json_object_set_new(o, "interface_map_refreshes",
			    json_integer((json_int_t)f->st.map_refreshes));
	json_object_set_new(o, "routes", json_integer(c.held[DPR_RSRC_FPM]));
	json_object_set_new(o, "routes_active", json_integer(c.active[DPR_RSRC_FPM]));
	json_object_set_new(o, "routes_stale", json_integer(c.stale[DPR_RSRC_FPM]));
	json_object_set_new(o, "stale_marked", json_integer((json_int_t)f->st.stale_marked));
	json_object_set_new(o, "stale_marked_last", json_integer(f->st.last_marked));
	json_object_set_new(o, "sweeps", json_integer((json_int_t)f->st.sweeps));
	json_object_set_new(o, "swept", json_integer((json_int_t)f->st.swept));
	json_object_set_new(o, "swept_last", json_integer(f->st.last_swept));
	now = rte_rdtsc();
	json_object_set_new(o, "sweep_in_ms", f->sweep_at == 0 ? json_null() :
			    json_integer((json_int_t)((f->sweep_at - RTE_MIN(f->sweep_at, now)) *
						      1000 / rte_get_tsc_hz())));
	return o;
}
