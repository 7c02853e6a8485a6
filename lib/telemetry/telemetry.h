/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * DPDK telemetry commands under /dpr/: read-only views (/dpr/ports,
 * /dpr/stats, /dpr/workers, /dpr/routes, /dpr/fpm) and /dpr/rpc,<JSON-RPC
 * request>.
 * Telemetry calls arrive on DPDK's telemetry thread; each is handed to the
 * control thread, which answers through the same dispatcher as the control
 * socket, so no method is implemented twice.
 */
#include <jansson.h>

#include "../api/server.h"
#include "../router/router.h"

/**
 * Register the commands and make @p s wake the control thread for them.
 * @return 0 or a negative errno.
 */
int dpr_telemetry_init(struct dpr_router *r, struct dpr_server *s);

/** Refuse further telemetry calls (they answer "shutting down"). */
void dpr_telemetry_stop(void);

/**
 * Run @p req on the control thread and wait for its response, as the
 * /dpr/ commands do. Any thread but the control thread, which must be
 * polling the server given to dpr_telemetry_init(). Takes the reference to
 * @p req. A request that times out before the control thread starts it is
 * withdrawn and never runs; one already running finishes, and its response
 * is freed, never given to a later call.
 * @return the response (a new reference), NULL for a notification, or a
 *   JSON-RPC error saying the control thread did not answer in time or that
 *   dpr is shutting down.
 */
json_t *dpr_telemetry_call(json_t *req);

/**
 * How long dpr_telemetry_call() waits for the control thread, in ms
 * (0: the default, 5 s). For tests, which need a call to time out.
 */
void dpr_telemetry_set_wait(unsigned int ms);
