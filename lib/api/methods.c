/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control API's methods, shared by the control socket and telemetry.
 * Each takes the request's params and returns a result, or NULL with an
 * error a person can act on ("route.del 10.0.0.0/8: no such route").
 * Control thread only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "../datapath/stats.h"
#include "../exception/exception.h"
#include "../exception/tap.h"
#include "../neigh/neigh.h"
#include "../route/route.h"
#include "methods.h"

#define LIST_DEFAULT 1000
#define LIST_MAX 100000

int __attribute__((format(printf, 3, 4)))
dpr_method_fail(struct dpr_method_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return -1;
}
#define FAIL(code, ...) (dpr_method_fail(e, code, __VA_ARGS__), (json_t *)NULL)

/* --- parameters ------------------------------------------------------ */

static int
param_str(json_t *params, const char *method, const char *key, bool required,
	  const char **out, struct dpr_method_err *e)
{
	json_t *v = params ? json_object_get(params, key) : NULL;

	*out = NULL;
	if (v == NULL) {
		if (required)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: missing parameter \"%s\"", method, key);
		return 0;
	}
	if (!json_is_string(v))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: parameter \"%s\" must be a string", method, key);
	*out = json_string_value(v);
	return 0;
}

static int
param_uint(json_t *params, const char *method, const char *key, uint64_t min,
	   uint64_t max, uint64_t *out, struct dpr_method_err *e)
{
	json_t *v = params ? json_object_get(params, key) : NULL;

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min ||
	    (uint64_t)json_integer_value(v) > max)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: parameter \"%s\" must be an integer from %" PRIu64 " to %" PRIu64,
				       method, key, min, max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* Reject keys a method does not know, so typos do not pass silently. */
static int
param_keys(json_t *params, const char *method, const char *const *known,
	   struct dpr_method_err *e)
{
	const char *key;
	json_t *v;

	if (params == NULL)
		return 0;
	if (!json_is_object(params))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: params must be an object", method);
	json_object_foreach(params, key, v) {
		unsigned int i;

		for (i = 0; known[i] != NULL; i++)
			if (strcmp(known[i], key) == 0)
				break;
		if (known[i] == NULL)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: unknown parameter \"%s\"", method, key);
	}
	return 0;
}

static int
port_by_name(struct dpr_router *r, const char *ctx, const char *name, int *port,
	     struct dpr_method_err *e)
{
	*port = dpr_config_port_index(r->cfg, name);
	if (*port < 0) {
		char list[256] = "";
		size_t n = 0;
		unsigned int i;

		for (i = 0; i < r->cfg->n_ports && n < sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      r->cfg->ports[i].name);
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no port \"%s\" (ports: %s)",
				       ctx, name, list);
	}
	return 0;
}

/* --- routes ------------------------------------------------------------ */

/*
 * Routes the router owns because of its addresses or neighbours; changing
 * them through route.* would break what addr.* and neigh.* promise.
 */
static bool
system_route(struct dpr_router *r, uint32_t ip, uint8_t depth, char *why, size_t len)
{
	char a[DPR_PREFIX_STRLEN];
	unsigned int p, k;
	uint32_t nh;

	for (p = 0; p < r->cfg->n_ports; p++) {
		const struct dpr_port_conf *pc = &r->cfg->ports[p];

		for (k = 0; k < pc->n_addrs; k++) {
			const struct dpr_prefix *ad = &pc->addrs[k];
			uint32_t mask;

			if (ad->addr.af != DPR_AF_IP4)
				continue;
			mask = dpr_ip4_mask(ad->len);
			dpr_prefix_fmt(ad, a, sizeof(a));
			if (depth == ad->len && ad->len < 32 && ip == (ad->addr.ip4 & mask)) {
				snprintf(why, len, "is the connected subnet of address %s on port %s (use addr.del)",
					 a, pc->name);
				return true;
			}
			if (depth == 32 && ip == ad->addr.ip4) {
				snprintf(why, len, "is the router's address %s on port %s (use addr.del)",
					 a, pc->name);
				return true;
			}
			if (depth == 32 && ad->len < 31 && ip == (ad->addr.ip4 | ~mask)) {
				snprintf(why, len, "is the broadcast address of %s on port %s",
					 a, pc->name);
				return true;
			}
		}
	}
	if (depth == 32 && dpr_fib4_get(r->fib4, ip, 32, &nh) == 0) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, nh);

		if (info != NULL && info->ip.af == DPR_AF_IP4 && info->ip.ip4 == ip) {
			snprintf(why, len, "is the host route of neighbour %s (use neigh.del)",
				 dpr_ip4_fmt(ip, a, sizeof(a)));
			return true;
		}
	}
	return false;
}

/*
 * Resolve a route given as prefix, gateway and/or port into a FIB op that
 * holds a reference on its next hop. @p ctx prefixes messages.
 */
static int
route_prepare(struct dpr_router *r, const char *ctx, const char *prefix,
	      const char *via, const char *port, struct dpr_fib4_op *op,
	      struct dpr_method_err *e)
{
	char hint[DPR_PREFIX_STRLEN] = "", why[160];
	struct dpr_prefix pf;
	struct dpr_ip gw;
	int p = -1, idx;

	if (dpr_prefix_parse(prefix, false, &pf, hint, sizeof(hint)) < 0) {
		if (hint[0] != '\0')
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: prefix \"%s\" has host bits set, did you mean \"%s\"?",
					       ctx, prefix, hint);
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: \"%s\" is not a prefix like 10.0.0.0/8", ctx, prefix);
	}
	if (pf.addr.af != DPR_AF_IP4)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: IPv6 routes are not supported yet", ctx);
	if (port != NULL && port_by_name(r, ctx, port, &p, e) < 0)
		return -1;
	if (via == NULL && port == NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: give \"via\" (a gateway) or \"port\" (directly attached)", ctx);
	if (system_route(r, pf.addr.ip4, pf.len, why, sizeof(why)))
		return dpr_method_fail(e, DPR_RPC_REFUSED, "%s: %s", ctx, why);

	if (via != NULL) {
		const char *bad;

		if (dpr_ip_parse(via, &gw) < 0 || gw.af != DPR_AF_IP4)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: gateway \"%s\" is not an IPv4 address", ctx, via);
		idx = dpr_config_port_for(r->cfg, &gw, p);
		if (idx < 0)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: gateway %s is not on a connected subnet%s%s",
					       ctx, via, port ? " of port " : "", port ? port : "");
		bad = dpr_config_not_a_neighbour(r->cfg, &gw);
		if (bad != NULL)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: gateway %s is %s", ctx, via, bad);
		if (pf.len == 32 && pf.addr.ip4 == gw.ip4)
			return dpr_method_fail(e, DPR_RPC_REFUSED,
					       "%s: a host route through the host itself is a neighbour's (use neigh.add)",
					       ctx);
		idx = dpr_nh_get(r->nh, &gw, (uint8_t)idx);
	} else {
		idx = dpr_nh_connected(r->nh, (uint8_t)p);
	}
	if (idx < 0)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the next-hop table is full (%u entries)", ctx, DPR_NH_MAX);
	*op = (struct dpr_fib4_op){ .ip = pf.addr.ip4, .depth = pf.len, .nh = (uint32_t)idx };
	return 0;
}

/* A route to delete in a batch: it must exist now. */
static int
route_prepare_del(struct dpr_router *r, const char *ctx, const char *prefix,
		  struct dpr_fib4_op *op, struct dpr_method_err *e)
{
	char hint[DPR_PREFIX_STRLEN] = "", why[160];
	struct dpr_prefix pf;
	uint32_t old;

	if (dpr_prefix_parse(prefix, false, &pf, hint, sizeof(hint)) < 0 ||
	    pf.addr.af != DPR_AF_IP4) {
		if (hint[0] != '\0')
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: prefix \"%s\" has host bits set, did you mean \"%s\"?",
					       ctx, prefix, hint);
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: \"%s\" is not an IPv4 prefix like 10.0.0.0/8", ctx, prefix);
	}
	if (dpr_fib4_get(r->fib4, pf.addr.ip4, pf.len, &old) < 0)
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: del %s: no such route", ctx, prefix);
	if (system_route(r, pf.addr.ip4, pf.len, why, sizeof(why)))
		return dpr_method_fail(e, DPR_RPC_REFUSED, "%s: del %s: %s", ctx, prefix, why);
	*op = (struct dpr_fib4_op){ .ip = pf.addr.ip4, .depth = pf.len, .del = 1 };
	return 0;
}

/* "PREFIX via GATEWAY [dev PORT]", "PREFIX dev PORT" or "del PREFIX" */
static int
route_prepare_text(struct dpr_router *r, const char *ctx, const char *text,
		   struct dpr_fib4_op *op, struct dpr_method_err *e)
{
	char buf[256], *tok[6], *save = NULL, *t;
	const char *via = NULL, *port = NULL;
	unsigned int n = 0, i;

	if (strlen(text) >= sizeof(buf))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "%s: line too long", ctx);
	strcpy(buf, text);
	for (t = strtok_r(buf, " \t", &save); t != NULL && n < RTE_DIM(tok);
	     t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (t == NULL && n == 2 && strcmp(tok[0], "del") == 0)
		return route_prepare_del(r, ctx, tok[1], op, e);
	if (t != NULL || n < 3 || n % 2 == 0)
		goto bad;
	for (i = 1; i + 1 < n; i += 2) {
		if (strcmp(tok[i], "via") == 0 && via == NULL)
			via = tok[i + 1];
		else if (strcmp(tok[i], "dev") == 0 && port == NULL)
			port = tok[i + 1];
		else
			goto bad;
	}
	return route_prepare(r, ctx, tok[0], via, port, op, e);
bad:
	return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
			       "%s: \"%s\": expected \"PREFIX via GATEWAY\", \"PREFIX dev PORT\" or \"del PREFIX\"",
			       ctx, text);
}

json_t *
dpr_route_json(struct dpr_router *r, uint32_t ip, uint8_t depth, uint32_t nh)
{
	struct dpr_prefix pf = { .addr = { .af = DPR_AF_IP4, .ip4 = ip }, .len = depth };
	const struct dpr_nh_info *info = dpr_nh_info(r->nh, nh);
	union dpr_nh_word w = dpr_nh_word_get(r->nh, nh);
	char buf[DPR_PREFIX_STRLEN];
	json_t *o = json_object();

	json_object_set_new(o, "prefix", json_string(dpr_prefix_fmt(&pf, buf, sizeof(buf))));
	if (nh == DPR_NH_LOCAL || nh == DPR_NH_BCAST || info == NULL) {
		json_object_set_new(o, "type", json_string(nh == DPR_NH_LOCAL ? "local" :
							   nh == DPR_NH_BCAST ? "broadcast" : "none"));
		return o;
	}
	if (info->ip.af == 0) {
		json_object_set_new(o, "port", json_string(r->cfg->ports[w.port].name));
		json_object_set_new(o, "type", json_string("connected"));
		return o;
	}
	json_object_set_new(o, "via", json_string(dpr_ip_fmt(&info->ip, buf, sizeof(buf))));
	json_object_set_new(o, "port", json_string(r->cfg->ports[w.port].name));
	json_object_set_new(o, "type", json_string(depth == 32 && info->ip.ip4 == ip ?
						   "neighbor" : "gateway"));
	json_object_set_new(o, "resolved", json_boolean(w.kind == DPR_NH_KIND_FORWARD));
	return o;
}

/* Apply ops; on a partial failure say how far it got. */
static int
apply(struct dpr_router *r, const char *ctx, struct dpr_fib4_op *ops, unsigned int n,
      struct dpr_method_err *e)
{
	unsigned int done;
	int err;

	done = dpr_route4_apply(r->fib4, r->nh, ops, n, &err);
	if (done == n)
		return 0;
	if (err == -ENOENT)
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no such route", ctx);
	if (err == -ENOSPC)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the FIB has no tbl8 group left for a route longer than /24 after %u of %u routes (all %u in use, raise fib.ipv4_tbl8_groups)",
				       ctx, done, n, r->fib4->conf.tbl8_groups);
	if (err == -ENOMEM && r->fib4->n_routes >= r->fib4->conf.max_routes)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the FIB is full after %u of %u routes (%u routes, raise fib.ipv4_max_routes)",
				       ctx, done, n, r->fib4->n_routes);
	return dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "%s: %s (after %u of %u)", ctx,
			       strerror(-err), done, n);
}

static json_t *
route_add_common(struct dpr_router *r, json_t *params, struct dpr_method_err *e,
		 const char *method, bool replace)
{
	static const char *const keys[] = { "prefix", "via", "port", NULL };
	const char *prefix, *via, *port;
	struct dpr_fib4_op op;
	char ctx[128];
	uint32_t old;

	if (param_keys(params, method, keys, e) < 0 ||
	    param_str(params, method, "prefix", true, &prefix, e) < 0 ||
	    param_str(params, method, "via", false, &via, e) < 0 ||
	    param_str(params, method, "port", false, &port, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "%s %s", method, prefix);
	if (route_prepare(r, ctx, prefix, via, port, &op, e) < 0)
		return NULL;
	if (!replace && dpr_fib4_get(r->fib4, op.ip, op.depth, &old) == 0) {
		json_t *cur = dpr_route_json(r, op.ip, op.depth, old);
		char *s = json_dumps(cur, JSON_COMPACT);

		dpr_nh_put(r->nh, op.nh);
		dpr_method_fail(e, DPR_RPC_EXISTS, "%s: exists (%s); use route.replace",
				ctx, s ? s : "");
		free(s);
		json_decref(cur);
		return NULL;
	}
	if (apply(r, ctx, &op, 1, e) < 0)
		return NULL;
	return dpr_route_json(r, op.ip, op.depth, op.nh);
}

static json_t *
m_route_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	return route_add_common(r, params, e, "route.add", false);
}

static json_t *
m_route_replace(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	return route_add_common(r, params, e, "route.replace", true);
}

static json_t *
m_route_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "prefix", NULL };
	char ctx[128], hint[DPR_PREFIX_STRLEN] = "", why[160];
	struct dpr_fib4_op op = { .del = 1 };
	const char *prefix;
	struct dpr_prefix pf;
	uint32_t old;

	if (param_keys(params, "route.del", keys, e) < 0 ||
	    param_str(params, "route.del", "prefix", true, &prefix, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "route.del %s", prefix);
	if (dpr_prefix_parse(prefix, false, &pf, hint, sizeof(hint)) < 0 ||
	    pf.addr.af != DPR_AF_IP4) {
		if (hint[0] != '\0')
			return FAIL(DPR_RPC_INVALID_PARAMS, "%s: host bits set, did you mean \"%s\"?",
				    ctx, hint);
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: not an IPv4 prefix like 10.0.0.0/8", ctx);
	}
	if (dpr_fib4_get(r->fib4, pf.addr.ip4, pf.len, &old) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: no such route", ctx);
	if (system_route(r, pf.addr.ip4, pf.len, why, sizeof(why)))
		return FAIL(DPR_RPC_REFUSED, "%s: %s", ctx, why);
	op.ip = pf.addr.ip4;
	op.depth = pf.len;
	if (apply(r, ctx, &op, 1, e) < 0)
		return NULL;
	return json_pack("{s:s}", "deleted", prefix);
}

static json_t *
m_route_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "address", NULL };
	const char *addr;
	struct dpr_ip ip;
	uint32_t prefix, nh;
	uint8_t depth;
	json_t *o;

	if (param_keys(params, "route.get", keys, e) < 0 ||
	    param_str(params, "route.get", "address", true, &addr, e) < 0)
		return NULL;
	if (dpr_ip_parse(addr, &ip) < 0 || ip.af != DPR_AF_IP4)
		return FAIL(DPR_RPC_INVALID_PARAMS, "route.get %s: not an IPv4 address", addr);
	if (dpr_fib4_lpm(r->fib4, ip.ip4, &prefix, &depth, &nh) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "route.get %s: no route", addr);
	o = dpr_route_json(r, prefix, depth, nh);
	json_object_set_new(o, "address", json_string(addr));
	return o;
}

static json_t *
m_route_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "limit", "after", NULL };
	struct dpr_fib4_route cur, *page;
	struct dpr_prefix cursor;
	uint64_t limit = LIST_DEFAULT;
	json_t *res, *routes;
	const char *after;
	bool more;
	int i, n;

	if (param_keys(params, "route.list", keys, e) < 0 ||
	    param_uint(params, "route.list", "limit", 1, LIST_MAX, &limit, e) < 0 ||
	    param_str(params, "route.list", "after", false, &after, e) < 0)
		return NULL;
	if (after != NULL &&
	    (dpr_prefix_parse(after, false, &cursor, NULL, 0) < 0 || cursor.addr.af != DPR_AF_IP4))
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "route.list: \"after\" must be a prefix from a previous page's \"next\"");
	page = malloc(limit * sizeof(*page));
	if (page == NULL)
		return FAIL(DPR_RPC_INTERNAL_ERROR, "route.list: out of memory for %u routes (ask for a smaller \"limit\")",
			    (unsigned int)limit);
	/* Resume after the cursor, even if that route went away meanwhile. */
	cur = (struct dpr_fib4_route){ .ip = after != NULL ? cursor.addr.ip4 : 0,
				       .depth = after != NULL ? cursor.len : 0 };
	n = dpr_fib4_list(r->fib4, after != NULL ? &cur : NULL, page, (unsigned int)limit, &more);
	if (n < 0) {
		free(page);
		return FAIL(DPR_RPC_INTERNAL_ERROR, "route.list: out of memory for the sorted route list (%u routes)",
			    r->fib4->n_routes);
	}
	res = json_object();
	routes = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(routes, dpr_route_json(r, page[i].ip, page[i].depth, page[i].nh));
	json_object_set_new(res, "routes", routes);
	/* More to come: the last prefix of this page is the next cursor. */
	if (more && n > 0) {
		struct dpr_prefix last = { .addr = { .af = DPR_AF_IP4, .ip4 = page[n - 1].ip },
					   .len = page[n - 1].depth };
		char buf[DPR_PREFIX_STRLEN];

		json_object_set_new(res, "next", json_string(dpr_prefix_fmt(&last, buf, sizeof(buf))));
	} else {
		json_object_set_new(res, "next", json_null());
	}
	json_object_set_new(res, "total", json_integer(r->fib4->n_routes));
	free(page);
	return res;
}

static int
cmp_del(const void *a, const void *b)
{
	const struct dpr_fib4_op *x = *(const struct dpr_fib4_op *const *)a;
	const struct dpr_fib4_op *y = *(const struct dpr_fib4_op *const *)b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x < y ? -1 : x > y; /* by position: report the later one */
}

/* Each del was checked against the FIB as it is; two of one prefix would
 * pass that check and fail halfway through the batch. */
static int
dup_deletes(struct dpr_fib4_op *ops, unsigned int n, struct dpr_method_err *e)
{
	struct dpr_fib4_op **dels = malloc((n + 1) * sizeof(*dels));
	unsigned int i, k = 0;
	int ret = 0;

	if (dels == NULL)
		return dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "route.load: out of memory");
	for (i = 0; i < n; i++)
		if (ops[i].del)
			dels[k++] = &ops[i];
	qsort(dels, k, sizeof(*dels), cmp_del);
	for (i = 1; i < k && ret == 0; i++) {
		if (dels[i]->ip == dels[i - 1]->ip && dels[i]->depth == dels[i - 1]->depth) {
			struct dpr_prefix p = { .addr = { .af = DPR_AF_IP4, .ip4 = dels[i]->ip },
						.len = dels[i]->depth };
			char buf[DPR_PREFIX_STRLEN];

			ret = dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					      "route.load: routes[%td]: del %s: deleted twice in one request",
					      dels[i] - ops, dpr_prefix_fmt(&p, buf, sizeof(buf)));
		}
	}
	free(dels);
	return ret;
}

static json_t *
m_route_load(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "routes", NULL };
	json_t *routes = params ? json_object_get(params, "routes") : NULL, *v;
	struct dpr_fib4_op *ops;
	unsigned int n = 0, i;
	size_t idx;

	if (param_keys(params, "route.load", keys, e) < 0)
		return NULL;
	if (!json_is_array(routes))
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "route.load: \"routes\" must be an array of \"PREFIX via GATEWAY\" strings or route objects");
	ops = malloc((json_array_size(routes) + 1) * sizeof(*ops));
	if (ops == NULL)
		return FAIL(DPR_RPC_INTERNAL_ERROR, "route.load: out of memory");

	/* All or nothing for bad input: check every entry before applying. */
	json_array_foreach(routes, idx, v) {
		/* Messages say "route.load: ..."; the entry's index goes in
		 * only on failure (formatting it for each of 600k routes
		 * showed in profiles). */
		const char *ctx = "route.load";
		int ret;

		if (json_is_string(v)) {
			ret = route_prepare_text(r, ctx, json_string_value(v), &ops[n], e);
		} else if (json_is_object(v)) {
			static const char *const rkeys[] = { "prefix", "via", "port", NULL };
			const char *prefix, *via, *port;

			ret = param_keys(v, ctx, rkeys, e);
			if (ret == 0)
				ret = param_str(v, ctx, "prefix", true, &prefix, e);
			if (ret == 0)
				ret = param_str(v, ctx, "via", false, &via, e);
			if (ret == 0)
				ret = param_str(v, ctx, "port", false, &port, e);
			if (ret == 0)
				ret = route_prepare(r, ctx, prefix, via, port, &ops[n], e);
		} else {
			ret = dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					      "%s: expected a string or an object", ctx);
		}
		if (ret < 0) {
			char msg[sizeof(e->message) + 64];
			size_t len, skip = strncmp(e->message, "route.load: ", 12) == 0 ? 12 : 0;

			snprintf(msg, sizeof(msg), "route.load: routes[%zu]: %s", idx,
				 e->message + skip);
			len = RTE_MIN(strlen(msg), sizeof(e->message) - 1);
			memcpy(e->message, msg, len);
			e->message[len] = '\0';
			for (i = 0; i < n; i++)
				if (!ops[i].del)
					dpr_nh_put(r->nh, ops[i].nh);
			free(ops);
			return NULL;
		}
		n++;
	}
	if (dup_deletes(ops, n, e) < 0) {
		for (i = 0; i < n; i++)
			if (!ops[i].del)
				dpr_nh_put(r->nh, ops[i].nh);
		free(ops);
		return NULL;
	}
	if (apply(r, "route.load", ops, n, e) < 0) {
		free(ops);
		return NULL;
	}
	free(ops);
	return json_pack("{s:i,s:i}", "loaded", (json_int_t)n, "routes",
			 (json_int_t)r->fib4->n_routes);
}

/* --- addresses --------------------------------------------------------- */

/* The routes an IPv4 interface address implies, with a connected next-hop
 * reference when adding (ops[0].nh -ENOSPC when the table is full). */
static unsigned int
addr_ops(struct dpr_router *r, int port, const struct dpr_prefix *a,
	 struct dpr_fib4_op *ops, bool del)
{
	int conn = 0;

	if (!del && a->addr.af == DPR_AF_IP4 && a->len < 32)
		conn = dpr_nh_connected(r->nh, (uint8_t)port);
	return dpr_route4_addr_ops(a, (uint32_t)conn, del, ops);
}

static json_t *
m_addr_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", "address", NULL };
	const char *port, *addr;
	struct dpr_fib4_op ops[3];
	struct dpr_prefix a;
	char ctx[128], err[512];
	unsigned int n;
	int p, ret;

	if (param_keys(params, "addr.add", keys, e) < 0 ||
	    param_str(params, "addr.add", "port", true, &port, e) < 0 ||
	    param_str(params, "addr.add", "address", true, &addr, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "addr.add %s %s", port, addr);
	if (port_by_name(r, ctx, port, &p, e) < 0)
		return NULL;
	ret = dpr_config_addr_add(r->cfg, p, addr, &a, err, sizeof(err));
	if (ret < 0)
		return FAIL(ret == -ENOSPC ? DPR_RPC_NO_SPACE : DPR_RPC_INVALID_PARAMS,
			    "addr.add: %s", err);
	n = addr_ops(r, p, &a, ops, false);
	if (n > 0 && ops[0].nh == (uint32_t)-ENOSPC) {
		dpr_config_addr_del(r->cfg, p, &a);
		return FAIL(DPR_RPC_NO_SPACE, "%s: the next-hop table is full", ctx);
	}
	if (n > 0 && apply(r, ctx, ops, n, e) < 0) {
		dpr_config_addr_del(r->cfg, p, &a);
		return NULL;
	}
	/* A subnet that moved here takes its next hops along. */
	dpr_neigh_addresses_changed(r->neigh);
	if (r->exc != NULL && a.addr.af == DPR_AF_IP4)
		dpr_exc_garp(r->exc, (unsigned int)p, a.addr.ip4);
	if (p < (int)r->n_ports)
		dpr_tap_addr(r, (uint16_t)p, &a, true);
	return json_pack("{s:s,s:s}", "port", port, "address", addr);
}

static json_t *
m_addr_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", "address", NULL };
	struct dpr_fib4_op ops[3];
	const char *port, *addr;
	struct dpr_prefix a;
	char ctx[128];
	unsigned int n, i, k;
	int p;

	if (param_keys(params, "addr.del", keys, e) < 0 ||
	    param_str(params, "addr.del", "port", true, &port, e) < 0 ||
	    param_str(params, "addr.del", "address", true, &addr, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "addr.del %s %s", port, addr);
	if (port_by_name(r, ctx, port, &p, e) < 0)
		return NULL;
	if (dpr_prefix_parse(addr, true, &a, NULL, 0) < 0 || strchr(addr, '/') == NULL)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: expected an address with its length, like 10.0.1.1/24",
			    ctx);
	if (dpr_config_addr_del(r->cfg, p, &a) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: port %s has no such address", ctx, port);
	if (p < (int)r->n_ports)
		dpr_tap_addr(r, (uint16_t)p, &a, false);
	n = addr_ops(r, p, &a, ops, true);
	/* Keep the subnet and its broadcast while another address of the
	 * port is on it: only this address's /32 goes. */
	for (k = 0; n > 0 && a.len < 32 && k < r->cfg->ports[p].n_addrs; k++) {
		const struct dpr_prefix *o = &r->cfg->ports[p].addrs[k];

		if (o->addr.af == DPR_AF_IP4 && o->len == a.len &&
		    (o->addr.ip4 & dpr_ip4_mask(o->len)) == ops[0].ip) {
			ops[0] = ops[1]; /* the address's own /32 */
			n = 1;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		struct dpr_fib4_op one = ops[i];
		uint32_t nh;

		/* A route may have been replaced meanwhile; delete what is there. */
		if (dpr_fib4_get(r->fib4, one.ip, one.depth, &nh) == 0)
			dpr_route4_apply(r->fib4, r->nh, &one, 1, &(int){ 0 });
	}
	/* Next hops follow their subnet; neighbours left on none are
	 * forgotten (lib/neigh). */
	dpr_neigh_addresses_changed(r->neigh);
	return json_pack("{s:s,s:s}", "port", port, "address", addr);
}

static json_t *
addr_list_json(struct dpr_router *r, int port)
{
	json_t *a = json_array();
	char buf[DPR_PREFIX_STRLEN];
	unsigned int k;

	for (k = 0; k < r->cfg->ports[port].n_addrs; k++)
		json_array_append_new(a, json_string(dpr_prefix_fmt(&r->cfg->ports[port].addrs[k],
								    buf, sizeof(buf))));
	return a;
}

static json_t *
m_addr_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", NULL };
	json_t *res = json_array();
	const char *port;
	unsigned int i, k;
	int only = -1;

	if (param_keys(params, "addr.list", keys, e) < 0 ||
	    param_str(params, "addr.list", "port", false, &port, e) < 0 ||
	    (port != NULL && port_by_name(r, "addr.list", port, &only, e) < 0)) {
		json_decref(res);
		return NULL;
	}
	for (i = 0; i < r->cfg->n_ports; i++) {
		if (only >= 0 && (int)i != only)
			continue;
		for (k = 0; k < r->cfg->ports[i].n_addrs; k++) {
			char buf[DPR_PREFIX_STRLEN];

			json_array_append_new(res, json_pack("{s:s,s:s}", "port",
				r->cfg->ports[i].name, "address",
				dpr_prefix_fmt(&r->cfg->ports[i].addrs[k], buf, sizeof(buf))));
		}
	}
	return res;
}

/* --- neighbours -------------------------------------------------------- */

static json_t *
neigh_json(struct dpr_router *r, uint32_t idx)
{
	const struct dpr_nh_info *info = dpr_nh_info(r->nh, idx);
	union dpr_nh_word w = dpr_nh_word_get(r->nh, idx);
	char ip[DPR_IP6_STRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	json_t *o;

	o = json_pack("{s:s,s:s,s:s,s:b,s:i}", "address", dpr_ip_fmt(&info->ip, ip, sizeof(ip)),
		      "port", r->cfg->ports[w.port].name,
		      "state", w.kind == DPR_NH_KIND_FORWARD ? "reachable" : "incomplete",
		      "static", info->is_static, "refs", (json_int_t)info->refcnt);
	if (w.kind == DPR_NH_KIND_FORWARD) {
		rte_ether_format_addr(mac, sizeof(mac), &w.mac);
		json_object_set_new(o, "mac", json_string(mac));
	}
	return o;
}

static json_t *
m_neigh_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "address", "mac", "port", NULL };
	const char *addr, *mac, *port;
	struct rte_ether_addr ea;
	struct dpr_ip ip;
	char ctx[128], err[256];
	int p = -1, idx;

	if (param_keys(params, "neigh.add", keys, e) < 0 ||
	    param_str(params, "neigh.add", "address", true, &addr, e) < 0 ||
	    param_str(params, "neigh.add", "mac", true, &mac, e) < 0 ||
	    param_str(params, "neigh.add", "port", false, &port, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "neigh.add %s", addr);
	if (dpr_ip_parse(addr, &ip) < 0 || ip.af != DPR_AF_IP4)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: not an IPv4 address", ctx);
	if (dpr_mac_parse(mac, &ea) < 0 || !rte_is_unicast_ether_addr(&ea) ||
	    rte_is_zero_ether_addr(&ea))
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: mac \"%s\" is not a unicast MAC like 02:00:00:00:00:01",
			    ctx, mac);
	if (port != NULL && port_by_name(r, ctx, port, &p, e) < 0)
		return NULL;
	idx = dpr_neigh_add_static(r->neigh, &ip, &ea, p, err, sizeof(err));
	if (idx < 0)
		return FAIL(idx == -ENOSPC ? DPR_RPC_NO_SPACE : idx == -EEXIST ? DPR_RPC_EXISTS :
			    DPR_RPC_INVALID_PARAMS, "%s: %s", ctx, err);
	return neigh_json(r, (uint32_t)idx);
}

static json_t *
m_neigh_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "address", NULL };
	const char *addr;
	struct dpr_ip ip;
	char ctx[128];

	if (param_keys(params, "neigh.del", keys, e) < 0 ||
	    param_str(params, "neigh.del", "address", true, &addr, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "neigh.del %s", addr);
	if (dpr_ip_parse(addr, &ip) < 0 || ip.af != DPR_AF_IP4)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: not an IPv4 address", ctx);
	if (dpr_neigh_del(r->neigh, &ip) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: no such neighbour", ctx);
	return json_pack("{s:s}", "deleted", addr);
}

static json_t *
m_neigh_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };
	json_t *res;
	uint32_t i;

	if (param_keys(params, "neigh.list", keys, e) < 0)
		return NULL;
	res = json_array();
	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, i);

		if (info != NULL && info->ip.af != 0)
			json_array_append_new(res, neigh_json(r, i));
	}
	return res;
}

/* --- ports, stats, config ---------------------------------------------- */

static json_t *
m_port_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };
	json_t *res;
	unsigned int i;

	if (param_keys(params, "port.list", keys, e) < 0)
		return NULL;
	res = json_array();
	for (i = 0; i < r->n_ports; i++) {
		const struct dpr_port *p = &r->ports[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_eth_link link = { 0 };
		json_t *o;

		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		rte_eth_link_get_nowait(p->port_id, &link);
		o = json_pack("{s:s,s:s,s:s,s:i,s:s,s:i,s:i,s:b,s:i,s:i,s:i,s:i,s:i,s:I}",
			      "name", p->conf->name, "device", p->conf->device,
			      "driver", p->driver, "port_id", p->port_id, "mac", mac,
			      "mtu", p->mtu, "socket", p->socket,
			      "link_up", link.link_status == RTE_ETH_LINK_UP,
			      "speed_mbps", (json_int_t)(link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ?
							 0 : link.link_speed),
			      "rx_queues", p->nb_rxq, "tx_queues", p->nb_txq,
			      "rx_desc", p->nb_rxd, "tx_desc", p->nb_txd,
			      "rss_hf", (json_int_t)p->rss_hf);
		json_object_set_new(o, "addresses", addr_list_json(r, (int)i));
		json_object_set_new(o, "profile", json_string(p->profile.source));
		json_array_append_new(res, o);
	}
	return res;
}

json_t *
dpr_router_stats_json(struct dpr_router *r)
{
	struct dpr_stats_src src = {
		.workers = r->workers,
		.n_workers = r->n_workers,
		.port_names = r->port_names,
		.n_ports = r->n_ports,
		.tsc_hz = rte_get_tsc_hz(),
	};
	json_t *j = dpr_stats_json(&src), *ctl = json_object();
	unsigned int i;

	for (i = 0; i < DPR_EXC_MAX; i++)
		json_object_set_new(ctl, dpr_exc_names[i], json_integer((json_int_t)r->exc_received[i]));
	json_object_set_new(j, "control_exceptions", ctl);
	if (r->exc != NULL)
		json_object_set_new(j, "exception_path", dpr_exc_stats_json(r->exc));
	json_object_set_new(j, "host_stack", json_pack("{s:I,s:I,s:I,s:I}",
		"to_kernel", (json_int_t)r->tap_stats.to_kernel,
		"to_kernel_dropped", (json_int_t)r->tap_stats.to_kernel_dropped,
		"from_kernel", (json_int_t)r->tap_stats.from_kernel,
		"from_kernel_dropped", (json_int_t)r->tap_stats.from_kernel_dropped));
	if (r->fib4 != NULL)
		json_object_set_new(j, "fib", json_pack("{s:i,s:I,s:i,s:i}",
			"ipv4_routes", (json_int_t)r->fib4->n_routes,
			"ipv4_memory_bytes", (json_int_t)dpr_fib4_memory(r->fib4),
			"ipv4_max_routes", (json_int_t)r->fib4->conf.max_routes,
			"ipv4_tbl8_groups", (json_int_t)r->fib4->conf.tbl8_groups));
	if (r->nh != NULL)
		json_object_set_new(j, "nexthops", json_integer(dpr_nh_count(r->nh)));
	return j;
}

static json_t *
m_stats_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };

	if (param_keys(params, "stats.get", keys, e) < 0)
		return NULL;
	return dpr_router_stats_json(r);
}

static json_t *
m_config_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };
	json_t *res, *ports, *neighs;
	unsigned int i;

	if (param_keys(params, "config.get", keys, e) < 0)
		return NULL;
	ports = json_array();
	for (i = 0; i < r->cfg->n_ports; i++) {
		const struct dpr_port_conf *pc = &r->cfg->ports[i];
		json_t *o = json_pack("{s:s,s:s,s:i,s:b,s:b}", "name", pc->name, "device", pc->device,
				      "mtu", pc->mtu, "transparent", pc->transparent,
				      "broadcast_echo", pc->broadcast_echo);

		json_object_set_new(o, "tap", pc->tap[0] ? json_string(pc->tap) : json_false());

		if (pc->has_mac) {
			char mac[RTE_ETHER_ADDR_FMT_SIZE];

			rte_ether_format_addr(mac, sizeof(mac), &pc->mac);
			json_object_set_new(o, "mac", json_string(mac));
		}
		json_object_set_new(o, "addresses", addr_list_json(r, (int)i));
		json_array_append_new(ports, o);
	}
	neighs = json_array();
	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, i);
		union dpr_nh_word w;
		char ip[DPR_IP6_STRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (info == NULL || info->ip.af == 0 || !info->is_static)
			continue;
		w = dpr_nh_word_get(r->nh, i);
		rte_ether_format_addr(mac, sizeof(mac), &w.mac);
		json_array_append_new(neighs, json_pack("{s:s,s:s,s:s}", "address",
			dpr_ip_fmt(&info->ip, ip, sizeof(ip)), "mac", mac,
			"port", r->cfg->ports[w.port].name));
	}
	res = json_pack("{s:s,s:o,s:o,s:{s:s,s:s},s:{s:i,s:i,s:i},s:i}",
			"file", r->cfg->path, "ports", ports, "neighbors", neighs,
			"control", "socket", r->cfg->socket, "group", r->cfg->socket_group,
			"fib", "ipv4_max_routes", (json_int_t)r->cfg->ip4_max_routes,
			"ipv4_tbl8_groups", (json_int_t)r->cfg->ip4_tbl8_groups,
			"learned_neighbors_max", (json_int_t)r->cfg->learned_neighbors_max,
			"routes", (json_int_t)r->fib4->n_routes);
	return res;
}

const struct dpr_method dpr_method_table[] = {
	{ "route.add", m_route_add, "add a route: prefix, via or port" },
	{ "route.replace", m_route_replace, "add or replace a route" },
	{ "route.del", m_route_del, "delete a route: prefix" },
	{ "route.get", m_route_get, "longest-prefix match: address" },
	{ "route.list", m_route_list, "routes, paged: limit, after" },
	{ "route.load", m_route_load, "add or replace many routes: routes" },
	{ "addr.add", m_addr_add, "add an address to a port: port, address" },
	{ "addr.del", m_addr_del, "remove an address: port, address" },
	{ "addr.list", m_addr_list, "addresses: [port]" },
	{ "neigh.add", m_neigh_add, "static neighbour: address, mac, [port]" },
	{ "neigh.del", m_neigh_del, "forget a neighbour: address" },
	{ "neigh.list", m_neigh_list, "neighbours and gateways" },
	{ "port.list", m_port_list, "ports" },
	{ "stats.get", m_stats_get, "counters per port and worker" },
	{ "config.get", m_config_get, "the running configuration" },
	{ NULL, NULL, NULL },
};
