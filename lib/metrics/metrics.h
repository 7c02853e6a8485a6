/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The Prometheus endpoint ("metrics" in the config): GET /metrics answers
 * what stats.get answers, in the text exposition format 0.0.4, through
 * libmicrohttpd. MHD runs no thread of its own: its epoll descriptor is one
 * more thing the control socket's loop waits on, and dpr_metrics_poll()
 * runs its timeouts, so every request is answered on the control thread
 * from the same state stats.get reads, and workers never see it.
 *
 * Control thread only.
 */
#include <stddef.h>

#include <jansson.h>

struct dpr_router;
struct dpr_metrics;

/** Largest answer served; a bigger one is refused with 500. */
#define DPR_METRICS_TEXT_MAX (16u << 20)

/**
 * Listen on @p listen ("127.0.0.1:9111", "[::1]:9111") and serve router
 * @p r, whose control socket (r->server) must exist: its loop waits on the
 * endpoint's descriptor.
 * @return the endpoint, or NULL with errno set (EINVAL: a bad address;
 *   EADDRINUSE, EACCES...: from bind() or listen(); ENOMEM) and a message
 *   that names the address in @p err.
 */
struct dpr_metrics *dpr_metrics_create(struct dpr_router *r, const char *listen,
				       char *err, size_t err_len);

/**
 * Run libmicrohttpd's timeouts when one is due (idle or slow clients);
 * call once per control loop. Cheap when nothing is due: no system call.
 * Does nothing for a NULL endpoint.
 */
void dpr_metrics_poll(struct dpr_metrics *m);

/** Stop listening, close every client and free @p m (NULL: nothing). */
void dpr_metrics_free(struct dpr_metrics *m);

/**
 * The exposition text for @p stats, an answer of stats.get
 * (dpr_router_stats_json(), read, not changed): every metric with # HELP and # TYPE, names as
 * docs/metrics.md lists them.
 * @return a malloc()ed text of *@p len bytes (not NUL-terminated), or NULL
 *   with errno set: ENOMEM, or EFBIG past DPR_METRICS_TEXT_MAX.
 */
char *dpr_metrics_text(json_t *stats, size_t *len);

/*
 * Counters a worker takes back. A worker counts a packet forwarded or
 * diverted and, later in the same loop, may take the count back (a full TX
 * queue or an output ACL: forwarded; control-plane protection or a full
 * exception ring: exception, exceptions by class, control_plane passed).
 * A scrape between the two reads a value that then falls, which Prometheus
 * takes for a reset. The floor remembers what was last exported of each such
 * series and raises a later, lower value to it: the series never falls and
 * may lead stats.get by the packets of a loop. Series are keyed by what
 * labels them (an interface by its name and VRF, a worker by its index);
 * those absent from a snapshot are forgotten with it, so the table holds at
 * most the series of one snapshot (and never more than
 * DPR_METRICS_FLOOR_MAX).
 */
struct dpr_metrics_floor;

/** Series a floor keeps at most; past it, the rest are exported as read. */
#define DPR_METRICS_FLOOR_MAX 16384u

/** @return an empty floor, or NULL with errno ENOMEM. */
struct dpr_metrics_floor *dpr_metrics_floor_create(void);

/** Free @p f (NULL: nothing). */
void dpr_metrics_floor_free(struct dpr_metrics_floor *f);

/**
 * Raise the counters of @p stats (a stats.get answer, changed in place)
 * that workers take back to what @p f last exported of each, and remember
 * the result. Call once per exposition, before dpr_metrics_text().
 */
void dpr_metrics_floor_apply(struct dpr_metrics_floor *f, json_t *stats);

/**
 * Forget the series of interface @p name (vlan.del): an interface made
 * later under the same name, in the same slot or not, starts from its own
 * counters, not from the deleted one's.
 */
void dpr_metrics_floor_forget(struct dpr_metrics_floor *f, const char *name);

/** dpr_metrics_floor_forget() on endpoint @p m's floor (NULL: nothing). */
void dpr_metrics_iface_gone(struct dpr_metrics *m, const char *name);
