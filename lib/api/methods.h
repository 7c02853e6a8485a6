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

/*
 * A method's parameters, checked with messages that name the method
 * (@p method) and the key: every method file takes them from here.
 */

/** String @p key of @p params into *@p out (NULL when absent and not @p required). */
int dpr_param_str(json_t *params, const char *method, const char *key, bool required,
		  const char **out, struct dpr_method_err *e);

/** Integer @p key of @p params from @p min to @p max into *@p out, left as it is when absent. */
int dpr_param_uint(json_t *params, const char *method, const char *key, uint64_t min,
		   uint64_t max, uint64_t *out, struct dpr_method_err *e);

/** Refuse keys of @p params not in @p known (NULL-terminated), so typos do not pass
 * silently; @p params must be an object or NULL. */
int dpr_param_keys(json_t *params, const char *method, const char *const *known,
		   struct dpr_method_err *e);

/** Route @p pf to next hop @p nh, of either family, as the API shows it. */
json_t *dpr_route_json(struct dpr_router *r, struct dpr_rib *rib, const struct dpr_prefix *pf,
		       uint32_t nh);

/** What stats.get answers (also written by --stats-file). */
json_t *dpr_router_stats_json(struct dpr_router *r);
