/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/* The daemon's own functions: control loop and reporting. */
#include "router/router.h"

/**
 * Catch SIGINT and SIGTERM (stop) and SIGUSR1 (counters) from the start
 * on: one during start-up stops dpr as soon as it has started, through
 * the same clean-up as at run time, rather than killing it half set up.
 */
void dpr_control_signals(void);

/** Run the control loop until a signal or the packet limit stops it. */
void dpr_control_run(struct dpr_router *d);

/**
 * Once the workers stopped: hand what they left on the exception rings to
 * the exception path (answered, sent on or counted there), so that the
 * exit report's control_exceptions covers every exception they counted.
 */
void dpr_control_drain(struct dpr_router *d);

/** Print counters to stdout and, if asked, write them as JSON. */
void dpr_stats_report(struct dpr_router *d, const char *why);
