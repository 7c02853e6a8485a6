/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/* The method table behind dpr_rpc_handle(). Control thread only. */
#include <jansson.h>

#include "../fpm/fpm_router.h"
#include "../router/router.h"
#include "rpc.h"

struct dpr_method_err {
	int code;
	char message[512];
};

struct dpr_method {
	const char *name;
	json_t *(*fn)(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
	const char *help;
};

extern const struct dpr_method dpr_method_table[];

/** Set @p e; returns -1 so callers can `return dpr_method_fail(...)`. */
int dpr_method_fail(struct dpr_method_err *e, int code, const char *fmt, ...);

/** Route @p pf to next hop @p nh, of either family, as the API shows it. */
json_t *dpr_route_json(struct dpr_router *r, struct dpr_rib *rib, const struct dpr_prefix *pf,
		       uint32_t nh);

/** What stats.get answers (also written by --stats-file). */
json_t *dpr_router_stats_json(struct dpr_router *r);
