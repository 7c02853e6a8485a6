/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * DPDK telemetry commands under /dpr/: read-only views (/dpr/ports,
 * /dpr/stats, /dpr/workers, /dpr/routes) and /dpr/rpc,<JSON-RPC request>.
 * Telemetry calls arrive on DPDK's telemetry thread; each is handed to the
 * control thread, which answers through the same dispatcher as the control
 * socket, so no method is implemented twice.
 */
#include "../api/server.h"
#include "../router/router.h"

/**
 * Register the commands and make @p s wake the control thread for them.
 * @return 0 or a negative errno.
 */
int dpr_telemetry_init(struct dpr_router *r, struct dpr_server *s);

/** Refuse further telemetry calls (they answer "shutting down"). */
void dpr_telemetry_stop(void);
