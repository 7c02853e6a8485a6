/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "../api/server.h"
#include "../route/feed.h"
#include "../router/router.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "fpm.h"
#include "fpm_router.h"

extern int dpr_logtype_fpm; /* registered in fpm.c */

/* Control thread only. */
struct dpr_fpm_router {
	struct dpr_router *r;
	struct dpr_fpm *fpm;
	struct dpr_route_feed *feed; /* zebra's routes to source fpm */
	uint64_t sweep_at;        /* dpr_clock_now() of the sweep; 0: none due */
	struct {
		uint64_t stale_marked;    /* routes marked, all disconnects */
		uint64_t sweeps;
		uint64_t swept;
		uint32_t last_marked;     /* at the last disconnect */
		uint32_t last_swept;      /* by the last sweep */
	} st;
};

/* lib/fpm's sink. */

static void
on_route(void *arg, const struct dpr_route_upd *u)
{
	struct dpr_fpm_router *f = arg;

	dpr_route_feed_add(f->feed, u);
}

static bool
on_table(void *arg, uint32_t table)
{
	struct dpr_fpm_router *f = arg;

	return dpr_route_feed_vrf(f->feed, table) >= 0;
}

static void
on_batch_end(void *arg)
{
	struct dpr_fpm_router *f = arg;

	dpr_route_feed_apply(f->feed);
}

static void
on_connected(void *arg)
{
	struct dpr_fpm_router *f = arg;

	dpr_route_feed_map_refresh(f->feed);
	if (f->sweep_at != 0)
		DPR_LOG(INFO, fpm, "fpm: zebra connected: it replays its routes; those it has not sent again in %.1f s go",
			(double)(f->sweep_at - RTE_MIN(f->sweep_at, dpr_clock_now())) /
			(double)DPR_CLOCK_HZ);
	else
		DPR_LOG(INFO, fpm, "fpm: zebra connected");
}

static void
on_disconnected(void *arg)
{
	struct dpr_fpm_router *f = arg;
	uint32_t grace = f->r->cfg->fpm.grace_s;
	unsigned int n;

	n = dpr_route_feed_mark_stale(f->feed);
	f->st.last_marked = n;
	f->st.stale_marked += n;
	if (n == 0) {
		DPR_LOG(INFO, fpm, "fpm: zebra went away (it had no routes in dpr)");
		return;
	}
	/* A later disconnect gives the next connection the whole grace
	 * period again: its replay restarts from the beginning. */
	f->sweep_at = dpr_clock_now() + (uint64_t)grace * DPR_CLOCK_HZ;
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

	if (f == NULL || f->sweep_at == 0 || dpr_clock_now() < f->sweep_at)
		return;
	f->sweep_at = 0;
	n = dpr_route_feed_sweep(f->feed);
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
		.table = on_table,
	};
	struct dpr_fpm_router *f;
	unsigned int v;
	int ret;

	if (!fc->enabled)
		return 0;
	if (r->rib.srcs == NULL) {
		snprintf(err, err_len, "fpm: no route source table to put zebra's routes in");
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (f != NULL)
		f->feed = dpr_route_feed_create(r, DPR_RSRC_FPM, fc->table, dpr_logtype_fpm, "fpm");
	if (f == NULL || f->feed == NULL) {
		snprintf(err, err_len, "fpm: out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	f->r = r;
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
	for (v = 1; v < DPR_MAX_VRFS; v++)
		if (dpr_router_rib(r, v) != NULL)
			DPR_LOG(INFO, fpm, "fpm: VRF %s's routes come with table %u",
				r->vrfs[v].conf.name, r->vrfs[v].conf.table);
	return 0;
fail:
	if (f != NULL) {
		dpr_fpm_free(f->fpm);
		dpr_route_feed_free(f->feed);
	}
	free(f);
	return ret;
}

int
dpr_fpm_router_feed(struct dpr_router *r, const uint8_t *buf, size_t len)
{
	return r->fpm == NULL ? -ENODEV : dpr_fpm_feed(r->fpm->fpm, buf, len);
}

void
dpr_fpm_router_vrf_del(struct dpr_router *r, uint32_t table)
{
	if (r->fpm != NULL)
		dpr_fpm_forget_table(r->fpm->fpm, table);
}

void
dpr_fpm_router_vrf_add(struct dpr_router *r, uint32_t table)
{
	if (r->fpm != NULL)
		dpr_fpm_table_added(r->fpm->fpm, table);
}

void
dpr_fpm_router_free(struct dpr_router *r)
{
	struct dpr_fpm_router *f = r->fpm;

	if (f == NULL)
		return;
	dpr_fpm_free(f->fpm);
	/* dpr_fpm_free() ends no batch: what it collected is dropped. */
	dpr_route_feed_free(f->feed);
	free(f);
	r->fpm = NULL;
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
	json_t *o, *vrfs;

	if (f == NULL)
		return json_pack("{s:b}", "enabled", false);
	s = dpr_fpm_stats(f->fpm);
	vrfs = dpr_route_feed_vrfs_json(f->feed, &c);
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
	if (o == NULL) {
		json_decref(vrfs);
		return json_object();
	}
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
	json_object_set_new(o, "ignored", dpr_counters_json(s->ignored, ign, DPR_FPM_IGN_MAX));
	json_object_set_new(o, "rejected", dpr_counters_json(s->rejected, rej, DPR_FPM_REJ_MAX));
	/* What became of the routes here (lib/route/feed). */
	dpr_route_feed_stats_json(f->feed, o);
	json_object_set_new(o, "routes", json_integer(c.held[DPR_RSRC_FPM]));
	json_object_set_new(o, "routes_active", json_integer(c.active[DPR_RSRC_FPM]));
	json_object_set_new(o, "routes_stale", json_integer(c.stale[DPR_RSRC_FPM]));
	/* Per VRF, by table (the sums above are over all of them). */
	json_object_set_new(o, "vrfs", vrfs);
	json_object_set_new(o, "stale_marked", json_integer((json_int_t)f->st.stale_marked));
	json_object_set_new(o, "stale_marked_last", json_integer(f->st.last_marked));
	json_object_set_new(o, "sweeps", json_integer((json_int_t)f->st.sweeps));
	json_object_set_new(o, "swept", json_integer((json_int_t)f->st.swept));
	json_object_set_new(o, "swept_last", json_integer(f->st.last_swept));
	now = dpr_clock_now();
	json_object_set_new(o, "sweep_in_ms", f->sweep_at == 0 ? json_null() :
			    json_integer((json_int_t)((f->sweep_at - RTE_MIN(f->sweep_at, now)) *
						      1000 / DPR_CLOCK_HZ)));
	return o;
}
