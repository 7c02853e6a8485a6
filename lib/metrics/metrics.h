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
