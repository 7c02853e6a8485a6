/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control API's methods, shared by the control socket and telemetry.
 * Each takes the request's params and returns a result, or NULL with an
 * error a person can act on ("route.del 10.0.0.0/8: no such route").
 * Control thread only.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "../acl/acl.h"
#include "../capture/capture.h"
#include "../datapath/stats.h"
#include "../doctor/doctor.h"
#include "../exception/exception.h"
#include "../exception/icmp6.h"
#include "../exception/tap.h"
#include "../kernel/kroute.h"
#include "../kernel/kvrf.h"
#include "../neigh/neigh.h"
#include "../route/route.h"
#include "../util/clock.h"
#include "acl_methods.h"
#include "iface_methods.h"
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

int
dpr_param_str(json_t *params, const char *method, const char *key, bool required,
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

int
dpr_param_uint(json_t *params, const char *method, const char *key, uint64_t min,
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

int
dpr_param_keys(json_t *params, const char *method, const char *const *known,
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
			if (r->cfg->ports[i].name[0] != '\0')
				n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
					      r->cfg->ports[i].name);
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no port \"%s\" (ports: %s)",
				       ctx, name, list);
	}
	return 0;
}

/*
 * The VRF request @p params names in "vrf" (absent: the default VRF): its
 * tables, or NULL with the error in @p e.
 */
static struct dpr_rib *
vrf_param(struct dpr_router *r, json_t *params, const char *ctx, struct dpr_method_err *e)
{
	const char *name;
	unsigned int v;
	int idx;

	if (dpr_param_str(params, ctx, "vrf", false, &name, e) < 0)
		return NULL;
	idx = dpr_router_vrf_index(r, name);
	if (idx < 0) {
		char list[256] = "";
		size_t n = 0;

		for (v = 0; v < DPR_MAX_VRFS && n < sizeof(list); v++)
			if (r->vrfs[v].rib != NULL)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
						      r->vrfs[v].conf.name);
		dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no VRF \"%s\" (VRFs: %s)", ctx, name,
				list);
		return NULL;
	}
	return r->vrfs[idx].rib;
}

/* --- routes ------------------------------------------------------------ */

static const char *
fib_name(enum dpr_af af)
{
	return af == DPR_AF_IP4 ? "ipv4" : "ipv6";
}

/* Routes of both families. */
static uint32_t
route_count(struct dpr_rib *rib, enum dpr_af af)
{
	if (af == DPR_AF_IP4)
		return rib->fib4 != NULL ? rib->fib4->n_routes : 0;
	return rib->fib6 != NULL ? dpr_fib6_count(rib->fib6) : 0;
}

static uint32_t
routes_total(struct dpr_rib *rib)
{
	return route_count(rib, DPR_AF_IP4) + route_count(rib, DPR_AF_IP6);
}

static uint8_t
host_len(enum dpr_af af)
{
	return af == DPR_AF_IP4 ? 32 : 128;
}

/*
 * Routes the router owns because of its addresses or neighbours; changing
 * them through route.* would break what addr.* and neigh.* promise. Which
 * routes an address implies is dpr_route_addr_ops()'s to say.
 */
static bool
system_route(struct dpr_router *r, struct dpr_rib *rib, const struct dpr_prefix *pf, char *why, size_t len)
{
	char a[DPR_PREFIX_STRLEN];
	struct dpr_prefix ad;
	unsigned int port;
	uint32_t nh;

	switch (dpr_route_owned(&r->addrs, rib->vrf, pf, &port, &ad)) {
	case DPR_ROUTE_OWN_ADDRESS:
		snprintf(why, len, "is the router's address %s on port %s (use addr.del)",
			 dpr_prefix_fmt(&ad, a, sizeof(a)), r->cfg->ports[port].name);
		return true;
	case DPR_ROUTE_OWN_BCAST:
		snprintf(why, len, "is the broadcast address of %s on port %s",
			 dpr_prefix_fmt(&ad, a, sizeof(a)), r->cfg->ports[port].name);
		return true;
	case DPR_ROUTE_OWN_SUBNET:
		snprintf(why, len, "is the connected subnet of address %s on port %s (use addr.del)",
			 dpr_prefix_fmt(&ad, a, sizeof(a)), r->cfg->ports[port].name);
		return true;
	default:
		break;
	}
	if (pf->len == host_len(pf->addr.af) && dpr_route_get(rib, pf, &nh) == 0) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, nh);

		if (info != NULL && dpr_ip_equal(&info->ip, &pf->addr)) {
			snprintf(why, len, "is the host route of neighbour %s (use neigh.del)",
				 dpr_ip_fmt(&pf->addr, a, sizeof(a)));
			return true;
		}
	}
	return false;
}

/* Does source "api" hold @p pf (route.del may remove it)? */
static bool
api_holds(struct dpr_rib *rib, const struct dpr_prefix *pf)
{
	struct dpr_route_cands c;
	uint32_t nh;

	if (rib->srcs == NULL)
		return dpr_route_get(rib, pf, &nh) == 0;
	return dpr_route_src_get(rib, pf, &c) == 0 && (c.have & (1u << DPR_RSRC_API));
}

/*
 * Does source "api" hold @p pf under a route of the router's own (an
 * address added over it)? Its route to delete, the api's own: the
 * router's stays, and the api's does not come back when it goes.
 */
static bool
api_waiting(struct dpr_rib *rib, const struct dpr_prefix *pf)
{
	struct dpr_route_cands c;

	return rib->srcs != NULL && dpr_route_src_get(rib, pf, &c) == 0 && c.router &&
	       (c.have & (1u << DPR_RSRC_API));
}

/* Parse a route's prefix, any family; messages as route_prepare()'s. */
static int
parse_prefix(const char *ctx, const char *prefix, struct dpr_prefix *pf,
	     struct dpr_method_err *e)
{
	char hint[DPR_PREFIX_STRLEN] = "";

	if (dpr_prefix_parse(prefix, false, pf, hint, sizeof(hint)) == 0)
		return 0;
	if (hint[0] != '\0')
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: prefix \"%s\" has host bits set, did you mean \"%s\"?",
				       ctx, prefix, hint);
	return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
			       "%s: \"%s\" is not a prefix like 10.0.0.0/8 or 2001:db8::/32", ctx, prefix);
}

/* --- a route's next hops: parsed, taken, shown --------------------------- */

/* One next hop of a route as given: a gateway and/or a port, a weight. */
struct nh_spec {
	const char *via;
	const char *port;
	uint16_t weight;   /**< 0: not given (1) */
};

/*
 * The next hops of route object @p o (route.add's params, a route.load
 * entry): "via" and/or "port", or "nexthops", an array of objects
 * {"via", "port"?, "weight"?} (multipath). Into @p nhs
 * (DPR_NH_GROUP_MEMBERS entries), their number in *@p n; @p ctx prefixes
 * messages.
 */
static int
nexthops_param(json_t *o, const char *ctx, struct nh_spec *nhs, unsigned int *n,
	       struct dpr_method_err *e)
{
	static const char *const keys[] = { "via", "port", "weight", NULL };
	json_t *a = json_object_get(o, "nexthops"), *v;
	size_t i;

	memset(nhs, 0, sizeof(*nhs));
	*n = 1;
	if (a == NULL)
		return dpr_param_str(o, ctx, "via", false, &nhs[0].via, e) < 0 ||
		       dpr_param_str(o, ctx, "port", false, &nhs[0].port, e) < 0 ? -1 : 0;
	if (json_object_get(o, "via") != NULL || json_object_get(o, "port") != NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: give \"via\" and \"port\", or \"nexthops\", not both", ctx);
	if (!json_is_array(a) || json_array_size(a) < 1 ||
	    json_array_size(a) > DPR_NH_GROUP_MEMBERS)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: \"nexthops\" must be an array of 1 to %u objects like {\"via\": \"10.0.2.2\", \"port\": \"p1\", \"weight\": 2}",
				       ctx, DPR_NH_GROUP_MEMBERS);
	json_array_foreach(a, i, v) {
		char sub[160];
		uint64_t wt = 0;

		snprintf(sub, sizeof(sub), "%s: nexthops[%zu]", ctx, i);
		if (!json_is_object(v))
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: expected an object like {\"via\": \"10.0.2.2\", \"weight\": 2}",
					       sub);
		memset(&nhs[i], 0, sizeof(nhs[i]));
		if (dpr_param_keys(v, sub, keys, e) < 0 ||
		    dpr_param_str(v, sub, "via", true, &nhs[i].via, e) < 0 ||
		    dpr_param_str(v, sub, "port", false, &nhs[i].port, e) < 0 ||
		    dpr_param_uint(v, sub, "weight", 1, DPR_NH_WEIGHT_MAX, &wt, e) < 0)
			return -1;
		nhs[i].weight = (uint16_t)wt;
	}
	*n = (unsigned int)json_array_size(a);
	return 0;
}

/*
 * The next hop for @p nh, a gateway and/or port (dpr port @p p, -1: none)
 * of route @p pf, with a reference taken. @return its index, or -1.
 */
static int
nexthop_take(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, const struct dpr_prefix *pf,
	     const struct nh_spec *nh, int p, struct dpr_method_err *e)
{
	const char *via = nh->via, *port = nh->port;
	struct dpr_ip gw;
	int idx;

	/* No route leaves its VRF: its next hops are on its VRF's links. */
	if (p >= 0 && dpr_router_port_vrf(r, (unsigned int)p) != rib->vrf)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: port %s is in VRF %s, not %s (a route's next hops are in its own VRF)",
				       ctx, port, r->vrfs[dpr_router_port_vrf(r, (unsigned int)p)].conf.name,
				       r->vrfs[rib->vrf].conf.name);
	/* RFC 8200 5: nothing IPv6 leaves through a link below 1280. */
	if (p >= 0 && !dpr_ifaddr_ip6_on(&r->addrs, (unsigned int)p) &&
	    (pf->addr.af == DPR_AF_IP6 || (via != NULL && dpr_ip_parse(via, &gw) == 0 &&
					   gw.af == DPR_AF_IP6)))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "%s: port %s: " DPR_IP6_MTU_WHY,
				       ctx, port);

	if (via != NULL) {
		const char *bad;

		if (dpr_ip_parse(via, &gw) < 0 || !dpr_route_gw_family_ok(pf, &gw))
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: gateway \"%s\" is not an %s address (an IPv6 route's gateway is IPv6; an IPv4 route's IPv4 or IPv6)",
					       ctx, via, pf->addr.af == DPR_AF_IP4 ? "IPv4 or IPv6" : "IPv6");
		/* fe80::1 names a host only on one link (RFC 4291 2.5.6). */
		if (dpr_ip_is_link_local(&gw) && port == NULL)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: link-local gateway %s needs \"port\" (dprctl: dev PORT)",
					       ctx, via);
		bad = dpr_ifaddr_not_a_neighbour(&r->addrs, rib->vrf, &gw, p);
		if (bad != NULL)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: gateway %s is %s", ctx, via, bad);
		idx = dpr_ifaddr_connected(&r->addrs, rib->vrf, &gw, p);
		if (idx < 0)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: gateway %s is not on a connected subnet%s%s%s%s (add an address on its subnet with addr.add)",
					       ctx, via, port ? " of port " : "", port ? port : "",
					       port || rib->vrf == DPR_VRF_DEFAULT ? "" : " in VRF ",
					       port || rib->vrf == DPR_VRF_DEFAULT ? "" :
					       r->vrfs[rib->vrf].conf.name);
		if (pf->len == host_len(pf->addr.af) && dpr_ip_equal(&pf->addr, &gw))
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
	return idx;
}

/*
 * The next hop of a route with the @p n next hops @p nhs (dpr ports
 * @p ports): the one, or the multipath group of them all (weights 1 where
 * none is given), with a reference taken. @return its index, or -1.
 */
static int
nexthops_take(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, const struct dpr_prefix *pf,
	      const struct nh_spec *nhs, const int *ports, unsigned int n,
	      struct dpr_method_err *e)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t weights[DPR_NH_GROUP_MEMBERS];
	unsigned int i, j, k = 0;
	char sub[160];
	int idx = -1;

	if (n == 1)
		return nexthop_take(r, rib, ctx, pf, &nhs[0], ports[0], e);
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s: nexthops[%u]", ctx, i);
		idx = nexthop_take(r, rib, sub, pf, &nhs[i], ports[i], e);
		if (idx < 0)
			goto out;
		members[k] = (uint32_t)idx;
		weights[k++] = nhs[i].weight != 0 ? nhs[i].weight : 1;
		for (j = 0; j + 1 < k; j++) {
			if (members[j] == (uint32_t)idx) {
				idx = dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
						      "%s: gateway %s is nexthops[%u] already (give it a weight instead)",
						      sub, nhs[i].via, j);
				goto out;
			}
		}
	}
	idx = dpr_nh_group_take(r->nh, members, weights, n);
	if (idx < 0)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: %s", ctx, dpr_nh_group_count(r->nh) >= DPR_NH_GROUPS_MAX ?
				       "every multipath group is in use (routes with distinct sets of next hops)" :
				       "the next-hop table is full");
	return idx;
out:
	for (j = 0; j < k; j++)
		dpr_nh_put(r->nh, members[j]);
	return idx;
}

/* The next hops of group @p nh, as route_json() shows them. */
static json_t *
nexthops_json(struct dpr_router *r, uint32_t nh)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t weights[DPR_NH_GROUP_MEMBERS];
	unsigned int n = dpr_nh_group_members(r->nh, nh, members, weights), i;
	json_t *a = json_array();

	for (i = 0; i < n; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, members[i]);
		union dpr_nh_word w = dpr_nh_word_get(r->nh, members[i]);
		char buf[DPR_IP6_STRLEN];

		json_array_append_new(a, json_pack("{s:s,s:s,s:i,s:b}",
			"via", dpr_ip_fmt(&info->ip, buf, sizeof(buf)),
			"port", r->cfg->ports[w.port].name, "weight", (json_int_t)weights[i],
			"resolved", w.kind == DPR_NH_KIND_FORWARD));
	}
	return a;
}

/*
 * Resolve a route given as prefix and next hops (@p n of @p nhs: one
 * gateway and/or port, or several gateways for multipath) into an op that
 * holds a reference on its next hop. @p ctx prefixes messages.
 */
static int
route_prepare(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, const char *prefix,
	      const struct nh_spec *nhs, unsigned int n, struct dpr_route_op *op,
	      struct dpr_method_err *e)
{
	int ports[DPR_NH_GROUP_MEMBERS];
	char why[160];
	struct dpr_prefix pf;
	unsigned int i;
	int idx;

	if (parse_prefix(ctx, prefix, &pf, e) < 0)
		return -1;
	if (pf.len >= 10 && dpr_ip_is_link_local(&pf.addr))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: %s is link-local, never forwarded (RFC 4291 2.5.6); route a global prefix",
				       ctx, prefix);
	if (dpr_route_never_forwarded(&pf) != NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: %s is in %s, never forwarded; route a unicast prefix",
				       ctx, prefix, dpr_route_never_forwarded(&pf));
	for (i = 0; i < n; i++) {
		ports[i] = -1;
		if (nhs[i].port != NULL && port_by_name(r, ctx, nhs[i].port, &ports[i], e) < 0)
			return -1;
		if (nhs[i].via == NULL && nhs[i].port == NULL)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: give \"via\" (a gateway) or \"port\" (directly attached)", ctx);
		if (nhs[i].via == NULL && n > 1)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: nexthops[%u]: give \"via\": the next hops of a multipath route are gateways",
					       ctx, i);
	}
	if (system_route(r, rib, &pf, why, sizeof(why)))
		return dpr_method_fail(e, DPR_RPC_REFUSED, "%s: %s", ctx, why);
	idx = nexthops_take(r, rib, ctx, &pf, nhs, ports, n, e);
	if (idx < 0)
		return -1;
	memset(op, 0, sizeof(*op));
	op->prefix = pf;
	op->nh = (uint32_t)idx;
	return 0;
}

/* A route to delete in a batch: it must exist now. */
static int
route_prepare_del(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, const char *prefix,
		  struct dpr_route_op *op, struct dpr_method_err *e)
{
	char why[160];
	struct dpr_prefix pf;
	uint32_t old;

	if (parse_prefix(ctx, prefix, &pf, e) < 0)
		return -1;
	if (dpr_route_get(rib, &pf, &old) < 0)
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: del %s: no such route", ctx, prefix);
	if (!api_waiting(rib, &pf) && system_route(r, rib, &pf, why, sizeof(why)))
		return dpr_method_fail(e, DPR_RPC_REFUSED, "%s: del %s: %s", ctx, prefix, why);
	if (!api_holds(rib, &pf))
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND,
				       "%s: del %s: no such route from the api (route.list shows its source)",
				       ctx, prefix);
	memset(op, 0, sizeof(*op));
	op->prefix = pf;
	op->del = 1;
	return 0;
}

/*
 * "PREFIX via GATEWAY [dev PORT] [weight W] [via GATEWAY ...]...",
 * "PREFIX dev PORT" or "del PREFIX". Each "via" starts a next hop; "dev"
 * and "weight" belong to the one they follow (or, before any "via", to
 * the first). A gateway may carry its family as iproute2 prints it
 * ("via inet6 fe80::1", an IPv4 route over an IPv6 next hop).
 */
static int
route_prepare_text(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, const char *text,
		   struct dpr_route_op *op, struct dpr_method_err *e)
{
	char buf[1024], *tok[1 + 6 * DPR_NH_GROUP_MEMBERS], *save = NULL, *t, *end;
	struct nh_spec nhs[DPR_NH_GROUP_MEMBERS] = { { 0 } };
	unsigned int n = 0, i, k = 0;
	unsigned long wt;

	if (strlen(text) >= sizeof(buf))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "%s: line too long", ctx);
	strcpy(buf, text);
	for (t = strtok_r(buf, " \t", &save); t != NULL && n < RTE_DIM(tok);
	     t = strtok_r(NULL, " \t", &save)) {
		/* "via inet6 GW": the family word goes, once checked. */
		if (n > 0 && strcmp(tok[n - 1], "via") == 0 &&
		    (strcmp(t, "inet") == 0 || strcmp(t, "inet6") == 0)) {
			char *gw = strtok_r(NULL, " \t", &save);

			if (gw == NULL || (strchr(gw, ':') != NULL) != (strcmp(t, "inet6") == 0))
				return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
						       "%s: \"via %s %s\": not an %s address", ctx, t,
						       gw != NULL ? gw : "", t);
			t = gw;
		}
		tok[n++] = t;
	}
	if (t == NULL && n == 2 && strcmp(tok[0], "del") == 0)
		return route_prepare_del(r, rib, ctx, tok[1], op, e);
	if (t != NULL || n < 3 || n % 2 == 0)
		goto bad;
	for (i = 1; i + 1 < n; i += 2) {
		if (strcmp(tok[i], "via") == 0) {
			if (nhs[k].via != NULL && ++k == DPR_NH_GROUP_MEMBERS)
				return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
						       "%s: more than %u gateways", ctx,
						       DPR_NH_GROUP_MEMBERS);
			nhs[k].via = tok[i + 1];
		} else if (strcmp(tok[i], "dev") == 0 && nhs[k].port == NULL) {
			nhs[k].port = tok[i + 1];
		} else if (strcmp(tok[i], "weight") == 0 && nhs[k].weight == 0) {
			wt = strtoul(tok[i + 1], &end, 10);
			if (*end != '\0' || wt < 1 || wt > DPR_NH_WEIGHT_MAX)
				return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
						       "%s: weight \"%s\" must be an integer from 1 to %u",
						       ctx, tok[i + 1], DPR_NH_WEIGHT_MAX);
			nhs[k].weight = (uint16_t)wt;
		} else {
			goto bad;
		}
	}
	return route_prepare(r, rib, ctx, tok[0], nhs, k + 1, op, e);
bad:
	return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
			       "%s: \"%s\": expected \"PREFIX via GATEWAY [dev PORT] [weight W] [via ...]\", \"PREFIX dev PORT\" or \"del PREFIX\"",
			       ctx, text);
}

/*
 * Who holds route @p pf (source.h): "source" (the winner's; "router" for
 * the routes its addresses and neighbours imply), the daemon's
 * "protocol", "stale" while a daemon that went away has not replayed it,
 * and "sources" when more than one source holds it.
 */
static void
route_source_json(struct dpr_rib *rib, const struct dpr_prefix *pf, json_t *o)
{
	struct dpr_route_cands c;
	const char *proto;
	unsigned int s;

	if (rib->srcs == NULL)
		return;
	if (dpr_route_src_get(rib, pf, &c) < 0) {
		json_object_set_new(o, "source", json_string("router"));
		return;
	}
	if (!c.in_fib) {
		/* The router's own route, with sources' routes waiting under
		 * it (source.h): they come back when it goes. */
		json_t *a = json_array();

		for (s = 0; s < DPR_RSRC_MAX; s++)
			if (c.have & (1u << s))
				json_array_append_new(a, json_string(dpr_route_src_name(s)));
		json_object_set_new(o, "source", json_string("router"));
		json_object_set_new(o, "waiting", a);
		return;
	}
	json_object_set_new(o, "source", json_string(dpr_route_src_name(c.winner)));
	proto = dpr_route_proto_name(c.proto[c.winner]);
	if (proto != NULL)
		json_object_set_new(o, "protocol", json_string(proto));
	if (c.stale & (1u << c.winner))
		json_object_set_new(o, "stale", json_true());
	if (c.have & (c.have - 1)) {
		json_t *a = json_array();

		for (s = 0; s < DPR_RSRC_MAX; s++)
			if (c.have & (1u << s))
				json_array_append_new(a, json_string(dpr_route_src_name(s)));
		json_object_set_new(o, "sources", a);
	}
}


/* The next-hop part of a route's JSON, into @p o. */
static json_t *
route_nh_json(struct dpr_router *r, const struct dpr_prefix *pf, uint32_t nh, json_t *o)
{
	const struct dpr_nh_info *info = dpr_nh_info(r->nh, nh);
	union dpr_nh_word w = dpr_nh_word_get(r->nh, nh);
	char buf[DPR_PREFIX_STRLEN];

	json_object_set_new(o, "prefix", json_string(dpr_prefix_fmt(pf, buf, sizeof(buf))));
	if (w.kind == DPR_NH_KIND_GROUP && info != NULL) {
		json_object_set_new(o, "type", json_string("multipath"));
		json_object_set_new(o, "nexthops", nexthops_json(r, nh));
		return o;
	}
	if (nh < DPR_NH_FIRST_DYNAMIC || info == NULL) {
		/* A daemon's reject routes (lib/fpm/fpm_router.h) point at the
		 * fixed ones: blackhole drops, none answers "unreachable". */
		json_object_set_new(o, "type", json_string(nh == DPR_NH_LOCAL ? "local" :
							   nh == DPR_NH_BCAST ? "broadcast" :
							   nh == DPR_NH_BLACKHOLE ? "blackhole" :
							   "unreachable"));
		return o;
	}
	if (info->ip.af == 0) {
		json_object_set_new(o, "port", json_string(r->cfg->ports[w.port].name));
		json_object_set_new(o, "type", json_string("connected"));
		return o;
	}
	json_object_set_new(o, "via", json_string(dpr_ip_fmt(&info->ip, buf, sizeof(buf))));
	json_object_set_new(o, "port", json_string(r->cfg->ports[w.port].name));
	json_object_set_new(o, "type", json_string(pf->len == host_len(pf->addr.af) &&
						   dpr_ip_equal(&info->ip, &pf->addr) ?
						   "neighbor" : "gateway"));
	json_object_set_new(o, "resolved", json_boolean(w.kind == DPR_NH_KIND_FORWARD));
	return o;
}

json_t *
dpr_route_json(struct dpr_router *r, struct dpr_rib *rib, const struct dpr_prefix *pf, uint32_t nh)
{
	json_t *o = route_nh_json(r, pf, nh, json_object());

	route_source_json(rib, pf, o);
	return o;
}

static int apply_fail(struct dpr_rib *rib, const char *ctx, const struct dpr_route_op *ops,
		      unsigned int done, unsigned int n, int err, struct dpr_method_err *e);
static int apply_fail_af(struct dpr_rib *rib, const char *ctx, enum dpr_af af,
			 unsigned int done, unsigned int n, int err, struct dpr_method_err *e);

/*
 * Apply ops as source "api" (source.h): the route of a prefix that config
 * also holds stays config's; one that a daemon holds is the api's until
 * route.del gives it back. Each op carries its own next-hop reference.
 */
static int
apply_src(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, struct dpr_route_op *ops, unsigned int n,
	  struct dpr_method_err *e)
{
	struct dpr_src_op *so = malloc((n + 1) * sizeof(*so));
	char buf[DPR_PREFIX_STRLEN];
	unsigned int i, ok;
	int ret = 0;

	if (so == NULL) {
		for (i = 0; i < n; i++)
			if (!ops[i].del)
				dpr_nh_put(r->nh, ops[i].nh);
		return dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "%s: out of memory", ctx);
	}
	for (i = 0; i < n; i++)
		so[i] = (struct dpr_src_op){ .prefix = ops[i].prefix, .del = ops[i].del,
					     .nh = ops[i].nh };
	ok = dpr_route_src_apply(rib, DPR_RSRC_API, so, n);
	for (i = 0; ok < n && i < n; i++) {
		if (so[i].result == 0)
			continue;
		dpr_prefix_fmt(&so[i].prefix, buf, sizeof(buf));
		if (so[i].result == -ENOENT)
			ret = dpr_method_fail(e, DPR_RPC_NOT_FOUND,
					      "%s: del %s: no such route from the api (route.list shows who holds it)",
					      ctx, buf);
		else if (so[i].result == -EPERM)
			ret = dpr_method_fail(e, DPR_RPC_REFUSED,
					      "%s: %s is a route the router's addresses or neighbours own",
					      ctx, buf);
		else
			/* The batch went by rank, not in order (source.c:
			 * deletes, replaces, then new prefixes, short ones
			 * first): say how many went in, not where it stopped. */
			ret = apply_fail_af(rib, ctx, ops[i].prefix.addr.af, ok, n, so[i].result, e);
		break;
	}
	free(so);
	return ret;
}

/*
 * Apply the router's own ops (addresses, neighbours) to the FIB; on a
 * partial failure drop the references of the ops not applied and say how
 * far it got and what to raise.
 */
static int
apply(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, struct dpr_route_op *ops, unsigned int n,
      struct dpr_method_err *e)
{
	unsigned int done, i;
	int err = 0;

	done = dpr_route_apply(rib, ops, n, &err);
	if (done == n)
		return 0;
	for (i = done; i < n; i++)
		if (!ops[i].del)
			dpr_nh_put(r->nh, ops[i].nh);
	return apply_fail(rib, ctx, ops, done, n, err, e);
}

/* Apply route.* ops: as source "api" where the router has sources. */
static int
apply_routes(struct dpr_router *r, struct dpr_rib *rib, const char *ctx, struct dpr_route_op *ops, unsigned int n,
	     struct dpr_method_err *e)
{
	if (rib->srcs != NULL)
		return apply_src(r, rib, ctx, ops, n, e);
	return apply(r, rib, ctx, ops, n, e);
}

/* Op @p done of @p n failed with @p err: say how far it got, what to raise. */
static int
apply_fail(struct dpr_rib *rib, const char *ctx, const struct dpr_route_op *ops,
	   unsigned int done, unsigned int n, int err, struct dpr_method_err *e)
{
	return apply_fail_af(rib, ctx, ops[done].prefix.addr.af, done, n, err, e);
}

/* @p done of @p n ops went in, a route of family @p af failed with @p err. */
static int
apply_fail_af(struct dpr_rib *rib, const char *ctx, enum dpr_af af, unsigned int done,
	      unsigned int n, int err, struct dpr_method_err *e)
{
	if (err == -ENOENT)
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no such route", ctx);
	if (err == -ENOSPC && af == DPR_AF_IP4)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the FIB has no tbl8 group left for a route longer than /24 after %u of %u routes (all %u in use, raise fib.ipv4_tbl8_groups)",
				       ctx, done, n, rib->fib4->conf.tbl8_groups);
	if (err == -ENOSPC)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the IPv6 FIB has too few tbl8 groups left for a route longer than /24 after %u of %u routes (%u of %u in use, raise fib.ipv6_tbl8_groups)",
				       ctx, done, n, dpr_fib6_tbl8_used(rib->fib6), rib->fib6->conf.tbl8_groups);
	if (err == -ENOMEM && af == DPR_AF_IP4 && rib->fib4->n_routes >= rib->fib4->conf.max_routes)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the FIB is full after %u of %u routes (%u routes, raise fib.ipv4_max_routes)",
				       ctx, done, n, rib->fib4->n_routes);
	if (err == -ENOMEM && af == DPR_AF_IP6 && rib->fib6 != NULL &&
	    dpr_fib6_count(rib->fib6) >= rib->fib6->conf.max_routes)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the IPv6 FIB is full after %u of %u routes (%u routes, raise fib.ipv6_max_routes)",
				       ctx, done, n, dpr_fib6_count(rib->fib6));
	if (err == -ENOMEM)
		return dpr_method_fail(e, DPR_RPC_NO_SPACE,
				       "%s: the %s FIB cannot grow after %u of %u routes: no hugepage memory left (reserve more with scripts/setup.sh)",
				       ctx, af == DPR_AF_IP4 ? "IPv4" : "IPv6", done, n);
	return dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "%s: %s FIB: %s (after %u of %u)", ctx,
			       fib_name(af), strerror(-err), done, n);
}

/* A route's JSON (dpr_route_json()) as a person reads it: "via 192.0.2.1
 * dev p1", "dev p0 (connected)", "via A dev p1, via B dev p2" or its
 * type; then its source. */
static const char *
route_text(json_t *o, char *buf, size_t len)
{
	const char *type = json_string_value(json_object_get(o, "type"));
	json_t *nhs = json_object_get(o, "nexthops"), *nh;
	size_t i, n = 0;

	buf[0] = '\0';
	if (json_is_array(nhs)) {
		json_array_foreach(nhs, i, nh)
			if (n < len)
				n += (size_t)snprintf(buf + n, len - n, "%svia %s dev %s", i ? ", " : "",
						      json_string_value(json_object_get(nh, "via")),
						      json_string_value(json_object_get(nh, "port")));
	} else if (json_is_string(json_object_get(o, "via"))) {
		n = (size_t)snprintf(buf, len, "via %s dev %s",
				     json_string_value(json_object_get(o, "via")),
				     json_string_value(json_object_get(o, "port")));
	} else if (json_is_string(json_object_get(o, "port"))) {
		n = (size_t)snprintf(buf, len, "dev %s (%s)",
				     json_string_value(json_object_get(o, "port")),
				     type != NULL ? type : "connected");
	} else {
		n = (size_t)snprintf(buf, len, "%s", type != NULL ? type : "?");
	}
	if (n < len && json_is_string(json_object_get(o, "source")))
		snprintf(buf + n, len - n, ", source %s",
			 json_string_value(json_object_get(o, "source")));
	return buf;
}

static json_t *
route_add_common(struct dpr_router *r, json_t *params, struct dpr_method_err *e,
		 const char *method, bool replace)
{
	static const char *const keys[] = { "prefix", "via", "port", "nexthops", "vrf", NULL };
	struct nh_spec nhs[DPR_NH_GROUP_MEMBERS];
	struct dpr_route_op op;
	struct dpr_rib *rib;
	const char *prefix;
	unsigned int n;
	char ctx[128];
	uint32_t old;

	if (dpr_param_keys(params, method, keys, e) < 0 ||
	    dpr_param_str(params, method, "prefix", true, &prefix, e) < 0 ||
	    nexthops_param(params, method, nhs, &n, e) < 0 ||
	    (rib = vrf_param(r, params, method, e)) == NULL)
		return NULL;
	snprintf(ctx, sizeof(ctx), "%s %s", method, prefix);
	if (route_prepare(r, rib, ctx, prefix, nhs, n, &op, e) < 0)
		return NULL;
	if (!replace && api_holds(rib, &op.prefix) && dpr_route_get(rib, &op.prefix, &old) == 0) {
		json_t *cur = dpr_route_json(r, rib, &op.prefix, old);
		char text[256];

		dpr_nh_put(r->nh, op.nh);
		dpr_method_fail(e, DPR_RPC_EXISTS, "%s: exists (%s); use route.replace",
				ctx, route_text(cur, text, sizeof(text)));
		json_decref(cur);
		return NULL;
	}
	if (apply_routes(r, rib, ctx, &op, 1, e) < 0)
		return NULL;
	if (dpr_route_get(rib, &op.prefix, &old) == 0)
		return dpr_route_json(r, rib, &op.prefix, old);
	return dpr_route_json(r, rib, &op.prefix, op.nh);
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
	static const char *const keys[] = { "prefix", "vrf", NULL };
	char ctx[128], hint[DPR_PREFIX_STRLEN] = "", why[160];
	struct dpr_route_op op = { .del = 1 };
	struct dpr_rib *rib;
	const char *prefix;
	uint32_t old;

	if (dpr_param_keys(params, "route.del", keys, e) < 0 ||
	    dpr_param_str(params, "route.del", "prefix", true, &prefix, e) < 0 ||
	    (rib = vrf_param(r, params, "route.del", e)) == NULL)
		return NULL;
	snprintf(ctx, sizeof(ctx), "route.del %s", prefix);
	if (dpr_prefix_parse(prefix, false, &op.prefix, hint, sizeof(hint)) < 0) {
		if (hint[0] != '\0')
			return FAIL(DPR_RPC_INVALID_PARAMS, "%s: host bits set, did you mean \"%s\"?",
				    ctx, hint);
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: not a prefix like 10.0.0.0/8 or 2001:db8::/32",
			    ctx);
	}
	if (dpr_route_get(rib, &op.prefix, &old) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: no such route", ctx);
	if (!api_waiting(rib, &op.prefix) && system_route(r, rib, &op.prefix, why, sizeof(why)))
		return FAIL(DPR_RPC_REFUSED, "%s: %s", ctx, why);
	if (!api_holds(rib, &op.prefix)) {
		json_t *cur = dpr_route_json(r, rib, &op.prefix, old);
		json_t *src = json_object_get(cur, "source");

		snprintf(why, sizeof(why), "%s", json_is_string(src) ? json_string_value(src) : "?");
		json_decref(cur);
		return FAIL(DPR_RPC_NOT_FOUND,
			    "%s: the route is source %s's, not the api's: remove it there", ctx, why);
	}
	if (apply_routes(r, rib, ctx, &op, 1, e) < 0)
		return NULL;
	return json_pack("{s:s}", "deleted", prefix);
}

/*
 * route.get's flow fields: the protocol by name or number, and the ports
 * TCP and UDP have (a flow of theirs always has both).
 */
static int
flow_parse(json_t *params, const char *addr, const struct dpr_ip *dst, struct dpr_ip *src,
	   uint8_t *proto, uint16_t *sport, uint16_t *dport, struct dpr_method_err *e)
{
	static const struct { const char *name; uint8_t num; } protos[] = {
		{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP }, { "icmp", IPPROTO_ICMP },
		{ "icmpv6", IPPROTO_ICMPV6 },
	};
	json_t *p = json_object_get(params, "protocol");
	uint64_t sp = UINT64_MAX, dp = UINT64_MAX;
	const char *s;
	unsigned int i;

	if (json_object_get(params, "source") == NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "route.get %s: a flow needs \"source\" (an address of the destination's family)",
				       addr);
	if (dpr_param_str(params, "route.get", "source", true, &s, e) < 0)
		return -1;
	if (dpr_ip_parse(s, src) < 0 || src->af != dst->af)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "route.get %s: source \"%s\": not an %s address", addr, s,
				       dst->af == DPR_AF_IP4 ? "IPv4" : "IPv6");
	if (p == NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "route.get %s: a flow needs \"protocol\" (\"tcp\", \"udp\", \"icmp\", \"icmpv6\" or a number from 0 to 255)",
				       addr);
	if (json_is_integer(p) && json_integer_value(p) >= 0 && json_integer_value(p) <= 255) {
		*proto = (uint8_t)json_integer_value(p);
	} else {
		for (i = 0; json_is_string(p) && i < RTE_DIM(protos); i++)
			if (strcmp(json_string_value(p), protos[i].name) == 0)
				break;
		if (!json_is_string(p) || i == RTE_DIM(protos))
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "route.get %s: parameter \"protocol\" must be \"tcp\", \"udp\", \"icmp\", \"icmpv6\" or a number from 0 to 255",
					       addr);
		*proto = protos[i].num;
	}
	if (dpr_param_uint(params, "route.get", "source_port", 0, UINT16_MAX, &sp, e) < 0 ||
	    dpr_param_uint(params, "route.get", "destination_port", 0, UINT16_MAX, &dp, e) < 0)
		return -1;
	if (*proto == IPPROTO_TCP || *proto == IPPROTO_UDP) {
		if (sp == UINT64_MAX || dp == UINT64_MAX)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "route.get %s: a %s flow needs \"source_port\" and \"destination_port\"",
					       addr, *proto == IPPROTO_TCP ? "tcp" : "udp");
	} else if (sp != UINT64_MAX || dp != UINT64_MAX) {
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "route.get %s: ports are for tcp and udp only, not protocol %u",
				       addr, *proto);
	}
	*sport = sp == UINT64_MAX ? 0 : (uint16_t)sp;
	*dport = dp == UINT64_MAX ? 0 : (uint16_t)dp;
	return 0;
}

/*
 * With a flow, a multipath route also answers the member that flow takes
 * by the software hash (dpr_flow_hash_tuple()), as a worker picks it when
 * the NIC gives no RSS hash (with one, the NIC's Toeplitz hash decides).
 */
static json_t *
m_route_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "address", "source", "protocol", "source_port",
					    "destination_port", "vrf", NULL };
	uint16_t sport = 0, dport = 0;
	struct dpr_ip ip, src = { 0 };
	struct dpr_prefix pf;
	struct dpr_rib *rib;
	const char *addr;
	uint8_t proto = 0;
	bool flow;
	uint32_t nh;
	json_t *o;

	if (dpr_param_keys(params, "route.get", keys, e) < 0 ||
	    dpr_param_str(params, "route.get", "address", true, &addr, e) < 0 ||
	    (rib = vrf_param(r, params, "route.get", e)) == NULL)
		return NULL;
	if (dpr_ip_parse(addr, &ip) < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "route.get %s: not an IPv4 or IPv6 address (like 10.1.2.3 or 2001:db8::1)",
			    addr);
	flow = json_object_size(params) > 1 + (json_object_get(params, "vrf") != NULL);
	if (flow && flow_parse(params, addr, &ip, &src, &proto, &sport, &dport, e) < 0)
		return NULL;
	if (dpr_route_lpm(rib, &ip, &pf, &nh) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "route.get %s: no route", addr);
	o = dpr_route_json(r, rib, &pf, nh);
	json_object_set_new(o, "address", json_string(addr));
	if (flow && dpr_nh_word_get(r->nh, nh).kind == DPR_NH_KIND_GROUP) {
		uint32_t m = dpr_nh_pick(r->nh, nh,
					 dpr_flow_hash_tuple(&src, &ip, proto, sport, dport));
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, m);
		char buf[DPR_IP6_STRLEN];

		if (info != NULL)
			json_object_set_new(o, "member", json_pack("{s:s,s:s}",
				"via", dpr_ip_fmt(&info->ip, buf, sizeof(buf)),
				"port", r->cfg->ports[dpr_nh_word_get(r->nh, m).port].name));
	}
	return o;
}

/* Route @p o into @p routes unless @p source or @p port (NULL: any) say
 * otherwise: a multipath route is a port's when one of its members is. */
static void
list_append(json_t *routes, json_t *o, const char *source, const char *port)
{
	json_t *s = json_object_get(o, "source"), *nh;
	bool on_port = port == NULL;
	size_t i;

	if (port != NULL) {
		on_port = json_is_string(json_object_get(o, "port")) &&
			  strcmp(json_string_value(json_object_get(o, "port")), port) == 0;
		json_array_foreach(json_object_get(o, "nexthops"), i, nh)
			on_port |= json_is_string(json_object_get(nh, "port")) &&
				   strcmp(json_string_value(json_object_get(nh, "port")), port) == 0;
	}
	if (!on_port ||
	    (source != NULL && (!json_is_string(s) || strcmp(json_string_value(s), source) != 0))) {
		json_decref(o);
		return;
	}
	json_array_append_new(routes, o);
}

/*
 * route.list: IPv4 routes, then IPv6, each in ascending (address, length)
 * order; the cursor is the last prefix shown, of either family. With
 * "source", a page holds the routes of that source among the "limit" it
 * walked (it may hold fewer, even none, with "next" still set).
 */
static json_t *
m_route_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "limit", "after", "source", "prefix", "port", "vrf",
					    NULL };
	struct dpr_fib4_route *page4 = NULL;
	struct dpr_fib6_route *page6 = NULL;
	struct dpr_prefix cursor, last = { .len = 0 };
	uint64_t limit = LIST_DEFAULT;
	unsigned int shown = 0;
	bool more = false, more6 = false;
	json_t *res, *routes;
	const char *after, *source = NULL, *prefix = NULL, *port = NULL;
	char buf[DPR_PREFIX_STRLEN];
	struct dpr_rib *rib;
	int i, n;

	if (dpr_param_keys(params, "route.list", keys, e) < 0 ||
	    dpr_param_uint(params, "route.list", "limit", 1, LIST_MAX, &limit, e) < 0 ||
	    dpr_param_str(params, "route.list", "after", false, &after, e) < 0 ||
	    dpr_param_str(params, "route.list", "source", false, &source, e) < 0 ||
	    dpr_param_str(params, "route.list", "prefix", false, &prefix, e) < 0 ||
	    dpr_param_str(params, "route.list", "port", false, &port, e) < 0 ||
	    (rib = vrf_param(r, params, "route.list", e)) == NULL)
		return NULL;
	if (source != NULL && strcmp(source, "router") != 0 && dpr_route_src_parse(source) < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "route.list: source \"%s\": one of router, config, api, fpm, kernel",
			    source);
	if (port != NULL && port_by_name(r, "route.list", port, &i, e) < 0)
		return NULL;
	/* An interface without "vrf": its own VRF's routes through it, the
	 * only ones it can have (iproute2 would list the main table's: none). */
	if (port != NULL && json_object_get(params, "vrf") == NULL)
		rib = r->vrfs[dpr_router_port_vrf(r, (unsigned int)i)].rib;
	if (prefix != NULL) {
		/* That prefix's route alone, as iproute2's "ip route list PREFIX". */
		uint32_t nh;

		if (parse_prefix("route.list", prefix, &cursor, e) < 0)
			return NULL;
		routes = json_array();
		if (dpr_route_get(rib, &cursor, &nh) == 0)
			list_append(routes, dpr_route_json(r, rib, &cursor, nh), source, port);
		res = json_pack("{s:o,s:n}", "routes", routes, "next");
		json_object_set_new(res, "total", json_integer(routes_total(rib)));
		return res;
	}
	if (after != NULL && dpr_prefix_parse(after, false, &cursor, NULL, 0) < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "route.list: \"after\" must be a prefix from a previous page's \"next\"");
	routes = json_array();
	if (after == NULL || cursor.addr.af == DPR_AF_IP4) {
		struct dpr_fib4_route cur = { .ip = after != NULL ? cursor.addr.ip4 : 0,
					      .depth = after != NULL ? cursor.len : 0 };

		page4 = malloc(limit * sizeof(*page4));
		n = page4 == NULL ? -ENOMEM :
		    dpr_fib4_list(rib->fib4, after != NULL ? &cur : NULL, page4, (unsigned int)limit,
				  &more);
		if (n < 0)
			goto nomem;
		for (i = 0; i < n; i++) {
			last = (struct dpr_prefix){ .addr = { .af = DPR_AF_IP4, .ip4 = page4[i].ip },
						    .len = page4[i].depth };
			list_append(routes, dpr_route_json(r, rib, &last, page4[i].nh), source, port);
		}
		shown = (unsigned int)n;
		/* IPv6 follows the last IPv4 route. */
		if (!more && route_count(rib, DPR_AF_IP6) > 0)
			more = shown == limit;
	}
	if (rib->fib6 != NULL && !more && shown < limit) {
		struct dpr_fib6_route cur = { .depth = 0 };

		if (after != NULL && cursor.addr.af == DPR_AF_IP6) {
			memcpy(cur.ip, cursor.addr.ip6, sizeof(cur.ip));
			cur.depth = cursor.len;
		}
		page6 = malloc((limit - shown) * sizeof(*page6));
		n = page6 == NULL ? -ENOMEM :
		    dpr_fib6_list(rib->fib6, after != NULL && cursor.addr.af == DPR_AF_IP6 ? &cur : NULL,
				  page6, (unsigned int)(limit - shown), &more6);
		if (n < 0)
			goto nomem;
		for (i = 0; i < n; i++) {
			memset(&last, 0, sizeof(last));
			last.addr.af = DPR_AF_IP6;
			memcpy(last.addr.ip6, page6[i].ip, sizeof(last.addr.ip6));
			last.len = page6[i].depth;
			list_append(routes, dpr_route_json(r, rib, &last, page6[i].nh), source, port);
		}
		shown += (unsigned int)n;
		more = more6;
	}
	res = json_object();
	json_object_set_new(res, "routes", routes);
	/* More to come: the last prefix of this page is the next cursor. */
	json_object_set_new(res, "next", more && shown > 0 ?
			    json_string(dpr_prefix_fmt(&last, buf, sizeof(buf))) : json_null());
	json_object_set_new(res, "total", json_integer(routes_total(rib)));
	json_object_set_new(res, "ipv4_routes", json_integer(route_count(rib, DPR_AF_IP4)));
	json_object_set_new(res, "ipv6_routes", json_integer(route_count(rib, DPR_AF_IP6)));
	free(page4);
	free(page6);
	return res;
nomem:
	json_decref(routes);
	free(page4);
	free(page6);
	return FAIL(DPR_RPC_INTERNAL_ERROR, "route.list: out of memory for %u routes (ask for a smaller \"limit\")",
		    (unsigned int)limit);
}

/* Deletes by prefix, then position (the later one is reported). */
static int
cmp_del(const void *a, const void *b)
{
	const struct dpr_route_op *x = *(const struct dpr_route_op *const *)a;
	const struct dpr_route_op *y = *(const struct dpr_route_op *const *)b;
	int c;

	if (x->prefix.addr.af != y->prefix.addr.af)
		return x->prefix.addr.af < y->prefix.addr.af ? -1 : 1;
	if (x->prefix.addr.af == DPR_AF_IP4) {
		if (x->prefix.addr.ip4 != y->prefix.addr.ip4)
			return x->prefix.addr.ip4 < y->prefix.addr.ip4 ? -1 : 1;
	} else {
		c = memcmp(x->prefix.addr.ip6, y->prefix.addr.ip6, sizeof(x->prefix.addr.ip6));
		if (c != 0)
			return c;
	}
	if (x->prefix.len != y->prefix.len)
		return x->prefix.len < y->prefix.len ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Each del was checked against the FIB as it is; two of one prefix would
 * pass that check and fail halfway through the batch. */
static int
dup_deletes(struct dpr_route_op *ops, unsigned int n, struct dpr_method_err *e)
{
	struct dpr_route_op **dels = malloc((n + 1) * sizeof(*dels));
	unsigned int i, k = 0;
	int ret = 0;

	if (dels == NULL)
		return dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "route.load: out of memory");
	for (i = 0; i < n; i++)
		if (ops[i].del)
			dels[k++] = &ops[i];
	qsort(dels, k, sizeof(*dels), cmp_del);
	for (i = 1; i < k && ret == 0; i++) {
		const struct dpr_prefix *a = &dels[i - 1]->prefix, *b = &dels[i]->prefix;

		if (a->len == b->len && dpr_ip_equal(&a->addr, &b->addr)) {
			char buf[DPR_PREFIX_STRLEN];

			ret = dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					      "route.load: routes[%td]: del %s: deleted twice in one request",
					      dels[i] - ops, dpr_prefix_fmt(b, buf, sizeof(buf)));
		}
	}
	free(dels);
	return ret;
}

static json_t *
m_route_load(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "routes", "check", "vrf", NULL };
	json_t *routes = params ? json_object_get(params, "routes") : NULL, *v;
	json_t *check = params ? json_object_get(params, "check") : NULL;
	struct dpr_route_op *ops;
	unsigned int n = 0, i, dels = 0;
	struct dpr_rib *rib;
	size_t idx;

	if (dpr_param_keys(params, "route.load", keys, e) < 0 ||
	    (rib = vrf_param(r, params, "route.load", e)) == NULL)
		return NULL;
	if (check != NULL && !json_is_boolean(check))
		return FAIL(DPR_RPC_INVALID_PARAMS, "route.load: \"check\" must be true or false");
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
			ret = route_prepare_text(r, rib, ctx, json_string_value(v), &ops[n], e);
		} else if (json_is_object(v)) {
			static const char *const rkeys[] = { "prefix", "via", "port", "nexthops", NULL };
			struct nh_spec nhs[DPR_NH_GROUP_MEMBERS];
			const char *prefix;
			unsigned int k;

			ret = dpr_param_keys(v, ctx, rkeys, e);
			if (ret == 0)
				ret = dpr_param_str(v, ctx, "prefix", true, &prefix, e);
			if (ret == 0)
				ret = nexthops_param(v, ctx, nhs, &k, e);
			if (ret == 0)
				ret = route_prepare(r, rib, ctx, prefix, nhs, k, &ops[n], e);
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
	for (i = 0; i < n; i++)
		dels += ops[i].del;
	if (json_is_true(check)) {
		/* Checked, nothing applied: each entry as route.load would
		 * take it against the FIB as it is now. */
		for (i = 0; i < n; i++)
			if (!ops[i].del)
				dpr_nh_put(r->nh, ops[i].nh);
	} else if (apply_routes(r, rib, "route.load", ops, n, e) < 0) {
		free(ops);
		return NULL;
	}
	free(ops);
	return json_pack("{s:I,s:I,s:I,s:b,s:I,s:I,s:I}", "loaded", (json_int_t)n,
			 "added", (json_int_t)(n - dels), "deleted", (json_int_t)dels,
			 "checked_only", json_is_true(check),
			 "routes", (json_int_t)routes_total(rib),
			 "ipv4_routes", (json_int_t)route_count(rib, DPR_AF_IP4),
			 "ipv6_routes", (json_int_t)route_count(rib, DPR_AF_IP6));
}

/* --- addresses --------------------------------------------------------- */

/*
 * The routes interface address @p a implies (dpr_route_addr_ops()), with a
 * reference on the port's connected next hop for the subnet when adding.
 * @return the number of ops, or -ENOSPC (next-hop table full).
 */
static int
addr_ops(struct dpr_router *r, int port, const struct dpr_prefix *a,
	 struct dpr_route_op *ops, bool del)
{
	unsigned int n = dpr_route_addr_ops(a, 0, del, ops), k;
	int conn;

	for (k = 0; k < n && !del; k++) {
		if (ops[k].nh != DPR_NH_NONE)
			continue;
		conn = dpr_nh_connected(r->nh, (uint8_t)port);
		if (conn < 0)
			return -ENOSPC;
		ops[k].nh = (uint32_t)conn;
	}
	return (int)n;
}

/*
 * Whether route @p op, which an address of port @p port implied, stays now
 * that the address is gone (removed from r->addrs already): another address
 * of the VRF implies it too. That may be one of another length: 10.0.3.1/24
 * and 10.0.3.129/25 share the broadcast address 10.0.3.255, 2001:db8::1/64
 * and 2001:db8::1:1/48 the subnet-router anycast 2001:db8:: (a link-local
 * address may be on several ports).
 */
static bool
addr_route_kept(struct dpr_router *r, int port, const struct dpr_route_op *op)
{
	struct dpr_prefix other;
	unsigned int p;

	return dpr_route_owned(&r->addrs, dpr_router_port_vrf(r, (unsigned int)port), &op->prefix,
			       &p, &other) != DPR_ROUTE_NOT_OWNED;
}

/*
 * Delete the routes @p ops (@p n of them) that an address of port @p port
 * implied and no address left implies (addr_route_kept()).
 */
static void
addr_routes_del(struct dpr_router *r, struct dpr_rib *rib, int port,
		const struct dpr_route_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct dpr_route_op one = { .prefix = ops[i].prefix, .del = 1 };
		uint32_t nh;

		if (addr_route_kept(r, port, &one))
			continue;
		/* A route may have been replaced meanwhile; delete what is there. */
		if (dpr_route_get(rib, &one.prefix, &nh) == 0)
			dpr_route_apply(rib, &one, 1, &(int){ 0 });
	}
}

/*
 * Whether address @p a of interface @p port is the link-local one dpr
 * derives from its MAC (setup_link_local()) and the config file did not
 * give: config.get leaves it out, and it has its own place beside the
 * DPR_MAX_PORT_ADDRS of the file (lib/ifaddr).
 */
static bool
addr_derived(struct dpr_router *r, unsigned int port, const struct dpr_prefix *a)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[port];
	struct dpr_prefix ll = { .addr = { .af = DPR_AF_IP6 }, .len = 64 };
	unsigned int j;

	dpr_ip6_link_local_from_mac(&r->ports[port].mac, ll.addr.ip6);
	if (a->len != ll.len || !dpr_ip_equal(&a->addr, &ll.addr))
		return false;
	for (j = 0; j < pc->n_addrs; j++)
		if (pc->addrs[j].len == ll.len && dpr_ip_equal(&pc->addrs[j].addr, &ll.addr))
			return false;
	return true;
}

/* The addresses of interface @p port a config file holds (addr_derived()). */
static unsigned int
addr_count_saved(struct dpr_router *r, unsigned int port)
{
	const struct dpr_prefix *list;
	unsigned int k, n, c = 0;

	list = dpr_ifaddr_list(&r->addrs, port, &n);
	for (k = 0; k < n; k++)
		c += !addr_derived(r, port, &list[k]);
	return c;
}

static json_t *
m_addr_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", "address", NULL };
	const char *port, *addr;
	struct dpr_route_op ops[3];
	struct dpr_ifaddr_clash clash;
	struct dpr_prefix a;
	char ctx[128], err[512], other[DPR_PREFIX_STRLEN];
	struct dpr_rib *rib;
	unsigned int done, i;
	int p, ret, n;

	if (dpr_param_keys(params, "addr.add", keys, e) < 0 ||
	    dpr_param_str(params, "addr.add", "port", true, &port, e) < 0 ||
	    dpr_param_str(params, "addr.add", "address", true, &addr, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "addr.add %s %s", port, addr);
	if (port_by_name(r, ctx, port, &p, e) < 0)
		return NULL;
	rib = dpr_router_port_rib(r, (unsigned int)p);
	if (dpr_config_check_address(port, addr, &a, err, sizeof(err)) < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS, "addr.add: %s", err);
	ret = dpr_ifaddr_add(&r->addrs, (unsigned int)p, &a, &clash);
	/* Without the link-local address dpr derives (deleted), its place
	 * would take a 17th address of the file's kind, which the config
	 * file refuses: config.get could not save it. */
	if (ret == 0 && addr_count_saved(r, (unsigned int)p) > DPR_MAX_PORT_ADDRS) {
		dpr_ifaddr_del(&r->addrs, (unsigned int)p, &a);
		return FAIL(DPR_RPC_NO_SPACE,
			    "addr.add: port %s: has %d addresses already besides the link-local one dpr derives from its MAC, the most a config file takes",
			    port, DPR_MAX_PORT_ADDRS);
	}
	if (ret == -EAFNOSUPPORT)
		return FAIL(DPR_RPC_INVALID_PARAMS, "addr.add: port %s: address \"%s\": " DPR_IP6_MTU_WHY,
			    port, addr);
	if (ret == -ENOSPC) {
		unsigned int n_now;

		dpr_ifaddr_list(&r->addrs, (unsigned int)p, &n_now);
		return FAIL(DPR_RPC_NO_SPACE,
			    "addr.add: port %s: has %u addresses already, the most a port takes (%d and a link-local one)",
			    port, n_now, DPR_MAX_PORT_ADDRS);
	}
	if (ret < 0) {
		unsigned int n_other;
		const struct dpr_prefix *o = dpr_ifaddr_list(&r->addrs, clash.port, &n_other);

		dpr_prefix_fmt(&o[clash.index], other, sizeof(other));
		if (ret == -EEXIST)
			return FAIL(DPR_RPC_INVALID_PARAMS,
				    "addr.add: port %s: address \"%s\": already given as %s",
				    port, addr, other);
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "addr.add: port %s: address \"%s\": subnet overlaps %s on port %s (each connected subnet must belong to one port of a VRF)",
			    port, addr, other, r->cfg->ports[clash.port].name);
	}
	n = addr_ops(r, p, &a, ops, false);
	if (n < 0) {
		dpr_ifaddr_del(&r->addrs, (unsigned int)p, &a);
		return FAIL(DPR_RPC_NO_SPACE, "%s: the next-hop table is full", ctx);
	}
	ret = 0;
	done = n > 0 ? dpr_route_apply(rib, ops, (unsigned int)n, &ret) : 0;
	if (done < (unsigned int)n) {
		/* What went in goes again: no route to a subnet the router
		 * does not have. */
		for (i = done; i < (unsigned int)n; i++)
			dpr_nh_put(r->nh, ops[i].nh);
		dpr_ifaddr_del(&r->addrs, (unsigned int)p, &a);
		addr_routes_del(r, rib, p, ops, done);
		apply_fail(rib, ctx, ops, done, (unsigned int)n, ret, e);
		return NULL;
	}
	/* A subnet that moved here takes its next hops along. */
	dpr_neigh_addresses_changed(r->neigh);
	if (r->exc != NULL && a.addr.af == DPR_AF_IP4)
		dpr_exc_garp(r->exc, (unsigned int)p, a.addr.ip4);
	else if (r->exc != NULL)
		dpr_exc_unsolicited_na(r->exc, (unsigned int)p, &a.addr);
	if (p < (int)r->n_ports)
		dpr_tap_addr(r, (uint16_t)p, &a, true);
	/* Its solicited-node group, or neighbour solicitations for it stop
	 * at the NIC. */
	dpr_router_mcast_sync(r, (unsigned int)p);
	return json_pack("{s:s,s:s}", "port", port, "address", addr);
}

static json_t *
m_addr_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", "address", NULL };
	struct dpr_route_op ops[3];
	const char *port, *addr;
	struct dpr_prefix a;
	struct dpr_rib *rib;
	char ctx[128];
	int p, n;

	if (dpr_param_keys(params, "addr.del", keys, e) < 0 ||
	    dpr_param_str(params, "addr.del", "port", true, &port, e) < 0 ||
	    dpr_param_str(params, "addr.del", "address", true, &addr, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "addr.del %s %s", port, addr);
	if (port_by_name(r, ctx, port, &p, e) < 0)
		return NULL;
	rib = dpr_router_port_rib(r, (unsigned int)p);
	if (dpr_prefix_parse(addr, true, &a, NULL, 0) < 0 || strchr(addr, '/') == NULL)
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "%s: expected an address with its length, like 10.0.1.1/24 or 2001:db8:1::1/64",
			    ctx);
	if (dpr_ifaddr_del(&r->addrs, (unsigned int)p, &a) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: port %s has no such address (addr.list shows them)",
			    ctx, port);
	if (p < (int)r->n_ports)
		dpr_tap_addr(r, (uint16_t)p, &a, false);
	n = addr_ops(r, p, &a, ops, true);
	addr_routes_del(r, rib, p, ops, (unsigned int)n);
	/* Next hops follow their subnet; neighbours left on none are
	 * forgotten (lib/neigh). */
	dpr_neigh_addresses_changed(r->neigh);
	dpr_router_mcast_sync(r, (unsigned int)p);
	return json_pack("{s:s,s:s}", "port", port, "address", addr);
}

static json_t *
addr_list_json(struct dpr_router *r, int port)
{
	json_t *a = json_array();
	char buf[DPR_PREFIX_STRLEN];
	unsigned int k, n;
	const struct dpr_prefix *list = dpr_ifaddr_list(&r->addrs, (unsigned int)port, &n);

	for (k = 0; k < n; k++)
		json_array_append_new(a, json_string(dpr_prefix_fmt(&list[k], buf, sizeof(buf))));
	return a;
}

static json_t *
m_addr_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", NULL };
	json_t *res = json_array();
	const char *port;
	unsigned int i, k, n;
	int only = -1;

	if (dpr_param_keys(params, "addr.list", keys, e) < 0 ||
	    dpr_param_str(params, "addr.list", "port", false, &port, e) < 0 ||
	    (port != NULL && port_by_name(r, "addr.list", port, &only, e) < 0)) {
		json_decref(res);
		return NULL;
	}
	for (i = 0; i < r->cfg->n_ports; i++) {
		const struct dpr_prefix *list = dpr_ifaddr_list(&r->addrs, i, &n);

		if (only >= 0 && (int)i != only)
			continue;
		for (k = 0; k < n; k++) {
			char buf[DPR_PREFIX_STRLEN];

			json_array_append_new(res, json_pack("{s:s,s:s}", "port",
				r->cfg->ports[i].name, "address",
				dpr_prefix_fmt(&list[k], buf, sizeof(buf))));
		}
	}
	return res;
}

/* --- neighbours -------------------------------------------------------- */

/* A neighbour's state as the API shows it: "reachable" with its MAC known,
 * else "incomplete". */
static bool
neigh_reachable(union dpr_nh_word w)
{
	return w.kind == DPR_NH_KIND_FORWARD;
}

/*
 * A static neighbour whose port's link is down is parked: unresolved, its
 * MAC kept aside (lib/neigh) until the link comes back. It is still
 * static, with that MAC and port: state "link_down", not "incomplete"
 * (nothing resolves it). @return whether @p idx is parked so.
 */
static bool
neigh_parked(struct dpr_router *r, uint32_t idx, const struct dpr_nh_info *info,
	     struct rte_ether_addr *mac, uint16_t *port)
{
	return !info->is_static && r->neigh != NULL &&
	       dpr_neigh_static_get(r->neigh, idx, mac, port);
}

static json_t *
neigh_json(struct dpr_router *r, uint32_t idx)
{
	const struct dpr_nh_info *info = dpr_nh_info(r->nh, idx);
	union dpr_nh_word w = dpr_nh_word_get(r->nh, idx);
	char ip[DPR_IP6_STRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct rte_ether_addr parked_mac;
	uint16_t port = w.port;
	bool parked = neigh_parked(r, idx, info, &parked_mac, &port);
	json_t *o;

	o = json_pack("{s:s,s:s,s:s,s:s,s:b,s:i}", "address", dpr_ip_fmt(&info->ip, ip, sizeof(ip)),
		      "port", r->cfg->ports[port].name,
		      "vrf", r->vrfs[dpr_nh_vrf(r->nh, idx)].conf.name,
		      "state", parked ? "link_down" : neigh_reachable(w) ? "reachable" : "incomplete",
		      "static", info->is_static || parked, "refs", (json_int_t)info->refcnt);
	if (parked || neigh_reachable(w)) {
		rte_ether_format_addr(mac, sizeof(mac), parked ? &parked_mac : &w.mac);
		json_object_set_new(o, "mac", json_string(mac));
	}
	return o;
}

/* A neighbour's address, and its port (-1: none given) where one is named:
 * a link-local address must have it. */
static int
neigh_addr(struct dpr_router *r, json_t *params, const char *ctx, const char *addr,
	   const char *port, struct dpr_ip *ip, int *p, struct dpr_method_err *e)
{
	struct dpr_rib *rib = vrf_param(r, params, ctx, e);

	*p = -1;
	if (rib == NULL)
		return -1;
	if (dpr_ip_parse(addr, ip) < 0)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: not an IPv4 or IPv6 address (like 10.0.1.2 or 2001:db8:1::2)",
				       ctx);
	if (port != NULL && port_by_name(r, ctx, port, p, e) < 0)
		return -1;
	if (dpr_ip_is_link_local(ip) && port == NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: link-local neighbour %s needs \"port\" (dprctl: dev PORT)",
				       ctx, addr);
	if (port != NULL && ip->af == DPR_AF_IP6 && !dpr_ifaddr_ip6_on(&r->addrs, (unsigned int)*p))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "%s: port %s: " DPR_IP6_MTU_WHY,
				       ctx, port);
	if (port != NULL && json_object_get(params, "vrf") != NULL &&
	    dpr_router_port_vrf(r, (unsigned int)*p) != rib->vrf)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "%s: port %s is in VRF %s, not %s",
				       ctx, port, r->vrfs[dpr_router_port_vrf(r, (unsigned int)*p)].conf.name,
				       r->vrfs[rib->vrf].conf.name);
	/* Without a port, the port of the VRF whose subnet holds it. */
	if (port == NULL && rib->vrf != DPR_VRF_DEFAULT) {
		*p = dpr_ifaddr_connected(&r->addrs, rib->vrf, ip, -1);
		if (*p < 0)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "%s: not on a connected subnet of VRF %s", ctx,
					       r->vrfs[rib->vrf].conf.name);
	}
	return 0;
}

static json_t *
m_neigh_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "address", "mac", "port", "vrf", NULL };
	const char *addr, *mac, *port;
	struct rte_ether_addr ea;
	struct dpr_ip ip;
	char ctx[128], err[256];
	int p, idx;

	if (dpr_param_keys(params, "neigh.add", keys, e) < 0 ||
	    dpr_param_str(params, "neigh.add", "address", true, &addr, e) < 0 ||
	    dpr_param_str(params, "neigh.add", "mac", true, &mac, e) < 0 ||
	    dpr_param_str(params, "neigh.add", "port", false, &port, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "neigh.add %s", addr);
	if (neigh_addr(r, params, ctx, addr, port, &ip, &p, e) < 0)
		return NULL;
	if (dpr_mac_parse(mac, &ea) < 0 || !rte_is_unicast_ether_addr(&ea) ||
	    rte_is_zero_ether_addr(&ea))
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: mac \"%s\" is not a unicast MAC like 02:00:00:00:00:01",
			    ctx, mac);
	idx = dpr_neigh_add_static(r->neigh, &ip, &ea, p, err, sizeof(err));
	if (idx < 0)
		return FAIL(idx == -ENOSPC ? DPR_RPC_NO_SPACE : idx == -EEXIST ? DPR_RPC_EXISTS :
			    DPR_RPC_INVALID_PARAMS, "%s: %s", ctx, err);
	return neigh_json(r, (uint32_t)idx);
}

static json_t *
m_neigh_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "address", "port", "vrf", NULL };
	const char *addr, *port;
	struct dpr_ip ip;
	char ctx[128];
	int p;

	if (dpr_param_keys(params, "neigh.del", keys, e) < 0 ||
	    dpr_param_str(params, "neigh.del", "address", true, &addr, e) < 0 ||
	    dpr_param_str(params, "neigh.del", "port", false, &port, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "neigh.del %s", addr);
	if (neigh_addr(r, params, ctx, addr, port, &ip, &p, e) < 0)
		return NULL;
	if (dpr_neigh_del(r->neigh, &ip, p) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: no such neighbour%s%s (neigh.list shows them)",
			    ctx, port != NULL ? " on port " : "", port != NULL ? port : "");
	return json_pack("{s:s}", "deleted", addr);
}

static json_t *
m_neigh_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "vrf", NULL };
	struct dpr_rib *rib;
	json_t *res;
	uint32_t i;

	if (dpr_param_keys(params, "neigh.list", keys, e) < 0 ||
	    (rib = vrf_param(r, params, "neigh.list", e)) == NULL)
		return NULL;
	res = json_array();
	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, i);

		/* With "vrf", that VRF's; without, all. */
		if (info != NULL && info->ip.af != 0 &&
		    (json_object_get(params, "vrf") == NULL || dpr_nh_vrf(r->nh, i) == rib->vrf))
			json_array_append_new(res, neigh_json(r, i));
	}
	return res;
}

/* --- ports, stats, config ---------------------------------------------- */

/* Port @p p's multicast filter, into @p o (a VLAN interface's is its
 * port's): "multicast", "groups", "all" or "none"; "multicast_groups",
 * the groups it needs (in its list for "groups"); null: more than a list
 * takes. */
static void
mcast_json(struct dpr_router *r, const struct dpr_port *p, json_t *o)
{
	const struct dpr_port *dev = dpr_port_is_vlan(p) ? &r->ports[p->conf->parent] : p;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	json_t *g = dev->n_groups < 0 ? json_null() : json_array();
	int k;

	for (k = 0; k < dev->n_groups; k++) {
		rte_ether_format_addr(mac, sizeof(mac), &dev->groups[k]);
		json_array_append_new(g, json_string(mac));
	}
	json_object_set_new(o, "multicast", json_string(dpr_port_mcast_name(dev->mcast)));
	json_object_set_new(o, "multicast_groups", g);
}

static json_t *
m_port_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };
	json_t *res;
	unsigned int i;

	if (dpr_param_keys(params, "port.list", keys, e) < 0)
		return NULL;
	res = json_array();
	for (i = 0; i < r->n_ports; i++) {
		const struct dpr_port *p = &r->ports[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		enum dpr_link_state link;
		uint32_t speed;
		json_t *o;

		if (!dpr_router_iface_used(r, i))
			continue;
		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		link = dpr_port_link(p, &speed);
		o = json_pack("{s:s,s:s,s:s,s:i,s:s,s:i,s:i,s:b,s:s,s:I,s:i,s:i,s:i,s:i,s:I}",
			      "name", p->conf->name, "device", p->conf->device,
			      "driver", p->driver, "port_id", p->port_id, "mac", mac,
			      "mtu", p->mtu, "socket", p->socket,
			      "link_up", link != DPR_LINK_DOWN, "link", dpr_link_state_name(link),
			      "speed_mbps", (json_int_t)speed,
			      "rx_queues", p->nb_rxq, "tx_queues", p->nb_txq,
			      "rx_desc", p->nb_rxd, "tx_desc", p->nb_txd,
			      "rss_hf", (json_int_t)p->rss_hf);
		json_object_set_new(o, "addresses", addr_list_json(r, (int)i));
		json_object_set_new(o, "vrf", json_string(r->vrfs[dpr_router_port_vrf(r, i)].conf.name));
		json_object_set_new(o, "profile", json_string(p->profile.source));
		mcast_json(r, p, o);
		/* A VLAN interface: on which port, with which id (its device,
		 * driver, queues and link above are that port's). */
		if (dpr_port_is_vlan(p)) {
			json_object_set_new(o, "type", json_string("vlan"));
			json_object_set_new(o, "parent", json_string(
				r->cfg->ports[p->conf->parent].name));
			json_object_set_new(o, "vlan_id", json_integer(p->conf->vlan_id));
			if (p->conf->outer_id != 0) {
				json_object_set_new(o, "outer_id", json_integer(p->conf->outer_id));
				json_object_set_new(o, "outer_proto", json_string(
					dpr_config_outer_proto_name(p->conf->outer_tpid)));
			}
		} else {
			json_object_set_new(o, "type", json_string("port"));
		}
		/* The host stack's TAP: "up", "down" (on the host), "missing"
		 * (gone, being made again), or none. */
		if (p->conf->tap[0] != '\0') {
			json_object_set_new(o, "tap", json_string(p->conf->tap));
			json_object_set_new(o, "tap_state", json_string(
				!p->has_tap ? "missing" :
				dpr_iface_link(p->conf->tap) == DPR_LINK_UP ? "up" : "down"));
		}
		json_array_append_new(res, o);
	}
	return res;
}

/* Port @p p's facts (lib/port/facts.c), with its warnings going on. */
static json_t *
port_facts(struct dpr_router *r, unsigned int p, uint64_t now)
{
	const struct dpr_port *port = &r->ports[p];
	unsigned int lcores[RTE_MAX_LCORE], n = dpr_router_worker_lcores(r, lcores);
	json_t *o, *warn = json_array();

	o = dpr_port_facts_json(port, lcores, n, dpr_router_pool_socket(r, port));
	dpr_port_watch_json(&port->watch, now, warn);
	json_object_set_new(o, "warnings", warn);
	return o;
}

static uint64_t
now_s(void)
{
	return dpr_clock_s();
}

static json_t *
m_port_show(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "port", NULL };
	const char *name;
	int p;

	if (dpr_param_keys(params, "port.show", keys, e) < 0 ||
	    dpr_param_str(params, "port.show", "port", true, &name, e) < 0 ||
	    port_by_name(r, "port.show", name, &p, e) < 0)
		return NULL;
	return port_facts(r, (unsigned int)p, now_s());
}

/*
 * dpr-doctor's machine checks (lib/doctor) for this dpr: its config's
 * ports and the CPUs of its EAL lcores, on this machine. Reads sysfs and
 * /proc on the control thread: an operator's request, not a hot path.
 */
static json_t *
machine_findings(struct dpr_router *r)
{
	struct dpr_doctor_port ports[DPR_MAX_PORTS];
	struct dpr_doctor_input in = { 0 };
	struct dpr_doctor_report rep = { 0 };
	unsigned int i, lcore;
	json_t *out;

	for (i = 0; i < r->cfg->n_phys && i < DPR_MAX_PORTS; i++) {
		ports[i].name = r->cfg->ports[i].name;
		ports[i].device = r->cfg->ports[i].device;
	}
	in.ports = ports;
	in.n_ports = i;
	in.config_path = r->opt.config;
	/* The main lcore first: the checks take the lowest CPU as it. */
	RTE_LCORE_FOREACH(lcore) {
		unsigned int cpu = rte_lcore_to_cpu_id((int)lcore);

		if (cpu < DPR_DOCTOR_MAX_CPUS && !(in.lcores[cpu / 64] & (UINT64_C(1) << (cpu % 64)))) {
			in.lcores[cpu / 64] |= UINT64_C(1) << (cpu % 64);
			in.n_lcores++;
		}
	}
	if (dpr_doctor_run(&in, &rep) < 0) {
		dpr_doctor_report_free(&rep);
		return json_array();
	}
	out = dpr_doctor_to_json(&rep, false);
	dpr_doctor_report_free(&rep);
	return out != NULL ? out : json_array();
}

/* The doctor's advice on the running config's VRFs and VLAN interfaces
 * (lib/doctor/vrf.c), with the ports' links as the router sees them. */
static json_t *
config_findings(struct dpr_router *r)
{
	struct dpr_doctor_report rep = { 0 };
	bool up[DPR_MAX_PORTS] = { false };
	unsigned int p;
	uint32_t speed;
	json_t *out;

	for (p = 0; p < r->n_ports && p < DPR_MAX_PORTS; p++)
		up[p] = dpr_port_link(&r->ports[p], &speed) != DPR_LINK_DOWN;
	if (dpr_doctor_check_vrfs(r->cfg, r->opt.config, &rep) < 0 ||
	    dpr_doctor_check_vlan_links(r->cfg, NULL, up, &rep) < 0) {
		dpr_doctor_report_free(&rep);
		return json_array();
	}
	out = dpr_doctor_to_json(&rep, false);
	dpr_doctor_report_free(&rep);
	return out != NULL ? out : json_array();
}

static json_t *
m_doctor_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "machine", NULL };
	json_t *warn, *ports, *res, *v = params ? json_object_get(params, "machine") : NULL;
	uint64_t now = now_s();
	unsigned int p;

	if (dpr_param_keys(params, "doctor.get", keys, e) < 0)
		return NULL;
	if (v != NULL && !json_is_boolean(v)) {
		dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "doctor.get: \"machine\" must be true or false");
		return NULL;
	}
	warn = json_array();
	ports = json_array();
	for (p = 0; p < r->n_ports; p++) {
		if (!dpr_router_iface_used(r, p))
			continue;
		dpr_port_watch_json(&r->ports[p].watch, now, warn);
		json_array_append_new(ports, port_facts(r, p, now));
	}
	res = json_pack("{s:o,s:o}", "warnings", warn, "ports", ports);
	json_object_set_new(res, "config", config_findings(r));
	/* ACLs bound nowhere, rules shadowed by an earlier one (lib/acl). */
	json_object_set_new(res, "acl", r->acl != NULL ? dpr_acl_warnings_json(r->acl) : json_array());
	if (v == NULL || json_is_true(v))
		json_object_set_new(res, "machine", machine_findings(r));
	return res;
}

/* --- capture -------------------------------------------------------------- */

/*
 * Names from @p names[first..n) into bits: a list of them, or "all".
 * An unknown name is an error that lists the known ones.
 */
static int
names_param(json_t *params, const char *key, const char *const *names, unsigned int first,
	    unsigned int n, uint32_t *bits, struct dpr_method_err *e)
{
	json_t *v = json_object_get(params, key), *x;
	char known[512];
	unsigned int i;
	size_t k, len = 0;

	*bits = 0;
	if (v == NULL)
		return 0;
	if (json_is_string(v) && strcmp(json_string_value(v), "all") == 0) {
		for (i = first; i < n; i++)
			*bits |= 1u << i;
		return 0;
	}
	known[0] = '\0';
	for (i = first; i < n && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i > first ? ", " : "",
					names[i]);
	if (!json_is_array(v))
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "capture.start: \"%s\" must be \"all\" or a list of: %s", key, known);
	json_array_foreach(v, k, x) {
		for (i = first; i < n; i++)
			if (json_is_string(x) && strcmp(json_string_value(x), names[i]) == 0)
				break;
		if (i == n)
			return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
					       "capture.start: %s[%zu]: not one of: %s", key, k, known);
		*bits |= 1u << i;
	}
	return 0;
}

static json_t *
m_capture_start(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "file", "ports", "drops", "exceptions", "count",
					    "max_bytes", "snaplen", "seconds", NULL };
	struct dpr_capture_spec spec = { 0 };
	json_t *ports;
	uint64_t snaplen = 0, seconds = 0;
	char err[512];
	size_t k;
	json_t *x;

	if (dpr_param_keys(params, "capture.start", keys, e) < 0 ||
	    dpr_param_str(params, "capture.start", "file", true, &spec.file, e) < 0 ||
	    names_param(params, "drops", dpr_drop_names, 1, DPR_DROP_MAX, &spec.drops, e) < 0 ||
	    names_param(params, "exceptions", dpr_exc_names, 0, DPR_EXC_MAX, &spec.exceptions,
			e) < 0 ||
	    dpr_param_uint(params, "capture.start", "count", 1, 1000000, &spec.max_packets, e) < 0 ||
	    dpr_param_uint(params, "capture.start", "max_bytes", 4096, UINT64_C(1) << 32,
		       &spec.max_bytes, e) < 0 ||
	    dpr_param_uint(params, "capture.start", "snaplen", 64, DPR_CAPTURE_SNAPLEN_MAX, &snaplen,
		       e) < 0 ||
	    dpr_param_uint(params, "capture.start", "seconds", 1, 86400, &seconds, e) < 0)
		return NULL;
	spec.snaplen = (uint32_t)snaplen;
	spec.seconds = (uint32_t)seconds;
	ports = json_object_get(params, "ports");
	if (ports != NULL && !json_is_array(ports)) {
		dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "capture.start: \"ports\" must be a list of port names");
		return NULL;
	}
	json_array_foreach(ports, k, x) {
		int p;

		if (!json_is_string(x)) {
			dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "capture.start: ports[%zu]: expected a port name", k);
			return NULL;
		}
		if (port_by_name(r, "capture.start", json_string_value(x), &p, e) < 0)
			return NULL;
		spec.ports |= UINT64_C(1) << p;
	}
	if (dpr_capture_start(r, &spec, err, sizeof(err)) < 0) {
		/* Named by the method, as every answer (dprctl shows "capture: "). */
		dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "capture.start: %s",
				strncmp(err, "capture: ", 9) == 0 ? err + 9 : err);
		return NULL;
	}
	return dpr_capture_json(r);
}

static json_t *
m_capture_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };

	if (dpr_param_keys(params, "capture.get", keys, e) < 0)
		return NULL;
	return dpr_capture_json(r);
}

static json_t *
m_capture_stop(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };

	if (dpr_param_keys(params, "capture.stop", keys, e) < 0)
		return NULL;
	dpr_capture_stop(r, "stopped by request");
	return dpr_capture_json(r);
}

/* What neigh.list lists, counted by state; "static": how many are static. */
static json_t *
neigh_counts_json(struct dpr_router *r)
{
	json_int_t reachable = 0, incomplete = 0, link_down = 0, stat = 0;
	struct rte_ether_addr mac;
	uint16_t port;
	uint32_t i;

	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, i);

		if (info == NULL || info->ip.af == 0)
			continue;
		if (neigh_parked(r, i, info, &mac, &port)) {
			link_down++;
			stat++;
			continue;
		}
		if (neigh_reachable(dpr_nh_word_get(r->nh, i)))
			reachable++;
		else
			incomplete++;
		stat += info->is_static;
	}
	return json_pack("{s:I,s:I,s:I,s:I}", "reachable", reachable, "incomplete", incomplete,
			 "link_down", link_down, "static", stat);
}

/* What one VRF's FIBs hold and take (stats.get "fib" and "vrfs"). */
static json_t *
fib_stats_json(const struct dpr_rib *rib)
{
	/* tbl8 groups are DIR-24-8's: Poptrie has none (0, not the setting). */
	bool dir4 = rib->fib4->conf.algorithm == DPR_FIB_DIR24_8;
	bool dir6 = rib->fib6 != NULL && rib->fib6->conf.algorithm == DPR_FIB_DIR24_8;
	json_t *fib = json_pack("{s:i,s:I,s:i,s:i}",
		"ipv4_routes", (json_int_t)rib->fib4->n_routes,
		"ipv4_memory_bytes", (json_int_t)dpr_fib4_memory(rib->fib4),
		"ipv4_max_routes", (json_int_t)rib->fib4->conf.max_routes,
		"ipv4_tbl8_groups", (json_int_t)(dir4 ? rib->fib4->conf.tbl8_groups : 0));

	json_object_set_new(fib, "ipv4_tbl8_used", json_integer(dpr_fib4_tbl8_used(rib->fib4)));
	json_object_set_new(fib, "ipv4_algorithm",
			    json_string(dpr_fib_algo_name(rib->fib4->conf.algorithm)));
	json_object_set_new(fib, "ipv4_control_bytes",
			    json_integer((json_int_t)dpr_fib4_control_memory(rib->fib4)));
	if (rib->fib6 != NULL) {
		json_object_set_new(fib, "ipv6_algorithm",
				    json_string(dpr_fib_algo_name(rib->fib6->conf.algorithm)));
		json_object_set_new(fib, "ipv6_control_bytes",
				    json_integer((json_int_t)dpr_fib6_control_memory(rib->fib6)));
		json_object_set_new(fib, "ipv6_routes", json_integer(dpr_fib6_count(rib->fib6)));
		json_object_set_new(fib, "ipv6_memory_bytes",
				    json_integer((json_int_t)dpr_fib6_memory(rib->fib6)));
		json_object_set_new(fib, "ipv6_max_routes",
				    json_integer(rib->fib6->conf.max_routes));
		json_object_set_new(fib, "ipv6_tbl8_groups",
				    json_integer(dir6 ? rib->fib6->conf.tbl8_groups : 0));
		json_object_set_new(fib, "ipv6_tbl8_used",
				    json_integer(dpr_fib6_tbl8_used(rib->fib6)));
		json_object_set_new(fib, "ipv6_deep", json_boolean(rib->fib6->deep));
		json_object_set_new(fib, "ipv6_deep_groups",
				    json_integer(dir6 ? rib->fib6->conf.deep_groups : 0));
	}
	return fib;
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
		.retired = r->retired,
	};
	json_t *j = dpr_stats_json(&src), *ctl = json_object(), *po;
	unsigned int i, next = 0;
	size_t k, e;

	/* What the device counted before dpr saw anything: frames the RX ring
	 * had no room for, that found no mbuf, or that were bad on arrival. */
	json_array_foreach(json_object_get(j, "ports"), e, po) {
		struct rte_eth_stats es;

		/* Entry e is the interface of slot k: the array leaves out the
		 * free slots (vlan.del), as dpr_stats_json() does. */
		for (k = next; k < r->n_ports && r->port_names[k] == NULL; k++)
			;
		next = (unsigned int)k + 1;
		/* Which VRF the interface is in, and for a VLAN interface its
		 * port and id: for the metrics' labels and the doctor. */
		if (k < r->n_ports && r->vrfs[dpr_router_port_vrf(r, k)].rib != NULL)
			json_object_set_new(po, "vrf", json_string(
				r->vrfs[dpr_router_port_vrf(r, k)].conf.name));
		if (k < r->n_ports && dpr_port_is_vlan(&r->ports[k])) {
			json_object_set_new(po, "parent", json_string(
				r->cfg->ports[r->ports[k].conf->parent].name));
			json_object_set_new(po, "vlan_id", json_integer(r->ports[k].vlan_id));
			if (r->ports[k].conf->outer_id != 0)
				json_object_set_new(po, "outer_id",
						    json_integer(r->ports[k].conf->outer_id));
		}
		if (k >= r->n_ports || dpr_port_is_vlan(&r->ports[k]) ||
		    rte_eth_stats_get(r->ports[k].port_id, &es) < 0)
			continue;
		json_object_set_new(po, "nic", json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}",
			"rx_packets", (json_int_t)es.ipackets, "rx_missed", (json_int_t)es.imissed,
			"rx_nombuf", (json_int_t)es.rx_nombuf, "rx_errors", (json_int_t)es.ierrors,
			"tx_packets", (json_int_t)es.opackets, "tx_errors", (json_int_t)es.oerrors));
	}

	for (i = 0; i < DPR_EXC_MAX; i++)
		json_object_set_new(ctl, dpr_exc_names[i], json_integer((json_int_t)r->exc_received[i]));
	json_object_set_new(j, "control_exceptions", ctl);
	/* mbufs: what is in use, to tell a leak from a load. */
	po = json_array();
	for (i = 0; i < RTE_DIM(r->pools); i++)
		if (r->pools[i] != NULL)
			json_array_append_new(po, json_pack("{s:i,s:i,s:i}", "socket", (int)i,
				"size", (int)r->pools[i]->size,
				"in_use", (int)rte_mempool_in_use_count(r->pools[i])));
	json_object_set_new(j, "mbufs", po);
	if (r->exc != NULL)
		json_object_set_new(j, "exception_path", dpr_exc_stats_json(r->exc));
	if (r->acl != NULL)
		json_object_set_new(j, "acl", dpr_acl_stats_json(r->acl, r->port_names, r->n_ports));
	if (r->cfg != NULL)
		json_object_set_new(j, "control_plane", dpr_copp_stats_json(r));
	json_object_set_new(j, "host_stack", json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
		"to_kernel", (json_int_t)r->tap_stats.to_kernel,
		"to_kernel_dropped", (json_int_t)r->tap_stats.to_kernel_dropped,
		"from_kernel", (json_int_t)r->tap_stats.from_kernel,
		"from_kernel_dropped", (json_int_t)r->tap_stats.from_kernel_dropped,
		"taps_lost", (json_int_t)r->tap_stats.lost,
		"taps_recreated", (json_int_t)r->tap_stats.recreated,
		"tap_addresses_restored", (json_int_t)r->tap_stats.addrs_restored));
	if (r->fib4 != NULL) {
		json_t *vrfs = json_array();
		unsigned int v;

		/* "fib": the default VRF's, as before VRFs; "vrfs": each one's. */
		json_object_set_new(j, "fib", fib_stats_json(&r->rib));
		for (v = 0; v < DPR_MAX_VRFS; v++) {
			json_t *o;

			if (r->vrfs[v].rib == NULL)
				continue;
			o = json_pack("{s:s,s:I}", "name", r->vrfs[v].conf.name,
				      "table", (json_int_t)r->vrfs[v].conf.table);
			json_object_set_new(o, "fib", fib_stats_json(r->vrfs[v].rib));
			json_object_set_new(o, "kernel_device", dpr_kvrf_json(r, v));
			json_array_append_new(vrfs, o);
		}
		json_object_set_new(j, "vrfs", vrfs);
	}
	if (r->nh != NULL) {
		json_object_set_new(j, "nexthops", json_integer(dpr_nh_count(r->nh)));
		json_object_set_new(j, "neighbors", neigh_counts_json(r));
	}
	if (r->rib.srcs != NULL) {
		struct dpr_route_src_counts c;
		json_t *by = json_object();

		dpr_route_src_counts(&r->rib, &c);
		for (i = 0; i < DPR_RSRC_MAX; i++)
			json_object_set_new(by, dpr_route_src_name(i), json_pack("{s:i,s:i,s:i}",
				"held", (json_int_t)c.held[i], "active", (json_int_t)c.active[i],
				"stale", (json_int_t)c.stale[i]));
		json_object_set_new(by, "not_installed", json_integer(c.not_installed));
		json_object_set_new(by, "shadowed", json_integer(c.shadowed));
		json_object_set_new(j, "route_sources", by);
	}
	json_object_set_new(j, "fpm", dpr_fpm_router_stats_json(r));
	json_object_set_new(j, "kernel_routes", dpr_kroute_stats_json(r));
	return j;
}

static json_t *
m_stats_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };

	if (dpr_param_keys(params, "stats.get", keys, e) < 0)
		return NULL;
	return dpr_router_stats_json(r);
}

/* A port's router advertisement settings, as the config file names them. */
static json_t *
ra_json(const struct dpr_ra_conf_port *ra)
{
	json_t *o = json_pack("{s:b,s:i,s:i,s:i,s:i,s:b,s:b,s:b,s:I,s:I}",
			      "enabled", ra->enabled, "max_interval", (json_int_t)ra->max_interval,
			      "min_interval", (json_int_t)ra->min_interval,
			      "router_lifetime", (json_int_t)ra->router_lifetime,
			      "hop_limit", (json_int_t)ra->cur_hop_limit, "managed", ra->managed,
			      "other", ra->other, "mtu", ra->send_mtu,
			      "reachable_time", (json_int_t)ra->reachable_time,
			      "retrans_timer", (json_int_t)ra->retrans_timer);
	json_t *prefixes = json_array();
	char buf[DPR_PREFIX_STRLEN];
	unsigned int i;

	for (i = 0; i < ra->n_prefixes; i++) {
		const struct dpr_ra_prefix_conf *p = &ra->prefixes[i];

		json_array_append_new(prefixes, json_pack("{s:s,s:b,s:b,s:I,s:I}",
			"prefix", dpr_prefix_fmt(&p->prefix, buf, sizeof(buf)),
			"on_link", p->on_link, "autonomous", p->autonomous,
			"valid_lifetime", (json_int_t)p->valid_lifetime,
			"preferred_lifetime", (json_int_t)p->preferred_lifetime));
	}
	json_object_set_new(o, "prefixes", prefixes);
	return o;
}

/* --- config.get: the running state as a config file ------------------- */

/*
 * Does a config file reproduce route @p pf? Those of sources config and
 * api the FIB holds. FPM's and the kernel mirror's come back from their
 * daemons, the router's own from its addresses and neighbours, and a route
 * waiting under the router's own would make the file invalid.
 */
static bool
route_saved(struct dpr_router *r, struct dpr_rib *rib, const struct dpr_prefix *pf)
{
	struct dpr_route_cands c;
	char why[160];

	if (rib->srcs == NULL)
		return !system_route(r, rib, pf, why, sizeof(why));
	return dpr_route_src_get(rib, pf, &c) == 0 && c.in_fib &&
	       (c.winner == DPR_RSRC_CONFIG || c.winner == DPR_RSRC_API);
}

/* The routes route_saved() keeps: at most this many in one answer. */
static uint32_t
saved_route_count(struct dpr_rib *rib)
{
	struct dpr_route_src_counts c;

	if (rib->srcs == NULL)
		return routes_total(rib);
	dpr_route_src_counts(rib, &c);
	return c.active[DPR_RSRC_CONFIG] + c.active[DPR_RSRC_API];
}

/*
 * Whether gateway or static neighbour @p idx on interface @p port passes
 * the config file's checks (lib/config: check_gateway(), parse_neigh())
 * with the addresses as they are now. An address deleted or added since
 * it was given can leave it on no connected subnet of its port, or make it
 * the router's own or a subnet's network or broadcast address: the router
 * keeps it (it waits for its subnet), but a file with it would not load.
 */
static bool
conf_neighbour_ok(struct dpr_router *r, uint32_t idx, unsigned int port)
{
	const struct dpr_nh_info *info = dpr_nh_info(r->nh, idx);
	uint16_t vrf = dpr_router_port_vrf(r, port);

	return info != NULL &&
	       dpr_ifaddr_connected(&r->addrs, vrf, &info->ip, (int)port) == (int)port &&
	       dpr_ifaddr_not_a_neighbour(&r->addrs, vrf, &info->ip, (int)port) == NULL;
}

/*
 * Route @p pf as the file's "routes" give it: "via" and "port", "port"
 * alone (attached), or "nexthops" with each gateway's port and weight.
 * The API's shape (route_nh_json()) less what the router works out, and
 * less the gateways conf_neighbour_ok() refuses: NULL when none is left.
 */
static json_t *
route_conf_json(struct dpr_router *r, const struct dpr_prefix *pf, uint32_t nh)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t weights[DPR_NH_GROUP_MEMBERS];
	json_t *o = route_nh_json(r, pf, nh, json_object()), *a, *m;
	unsigned int n, k;
	size_t i;

	json_object_del(o, "type");
	json_object_del(o, "resolved");
	a = json_object_get(o, "nexthops");
	if (a != NULL) {
		n = dpr_nh_group_members(r->nh, nh, members, weights);
		for (k = n; k-- > 0;)
			if (!conf_neighbour_ok(r, members[k], dpr_nh_word_get(r->nh, members[k]).port))
				json_array_remove(a, k);
		json_array_foreach(a, i, m)
			json_object_del(m, "resolved");
		if (json_array_size(a) == 0)
			goto none;
	} else if (json_object_get(o, "via") != NULL &&
		   !conf_neighbour_ok(r, nh, dpr_nh_word_get(r->nh, nh).port)) {
		goto none;
	}
	return o;
none:
	json_decref(o);
	return NULL;
}

/* One step of saved_routes_json()'s walk: route @p pf, next hop @p nh. */
static void
saved_route_append(struct dpr_router *r, struct dpr_rib *rib, json_t *routes, const struct dpr_prefix *pf,
		   uint32_t nh)
{
	json_t *o;

	/* No file states a fixed next hop (a daemon's reject routes). */
	if (nh >= DPR_NH_FIRST_DYNAMIC && dpr_nh_info(r->nh, nh) != NULL && route_saved(r, rib, pf) &&
	    (o = route_conf_json(r, pf, nh)) != NULL)
		json_array_append_new(routes, o);
}

/*
 * The routes a config file reproduces (route_saved()), in route.list's
 * order from after @p after (NULL: the first), at most @p limit of them.
 * The walk goes on past routes not saved (a full FPM table) in chunks.
 */
static json_t *
saved_routes_json(struct dpr_router *r, struct dpr_rib *rib, const struct dpr_prefix *after, size_t limit)
{
	enum { CHUNK = 4096 };
	struct dpr_fib4_route *c4 = malloc(CHUNK * sizeof(*c4));
	struct dpr_fib6_route *c6 = malloc(CHUNK * sizeof(*c6));
	struct dpr_fib4_route cur4 = { 0 };
	struct dpr_fib6_route cur6 = { 0 };
	bool from4 = after != NULL && after->addr.af == DPR_AF_IP4;
	bool from6 = after != NULL && after->addr.af == DPR_AF_IP6;
	json_t *routes = json_array();
	struct dpr_prefix pf;
	bool more = true;
	int i, n;

	if (c4 == NULL || c6 == NULL)
		goto fail;
	if (from4)
		cur4 = (struct dpr_fib4_route){ .ip = after->addr.ip4, .depth = after->len };
	if (from6) {
		memcpy(cur6.ip, after->addr.ip6, sizeof(cur6.ip));
		cur6.depth = after->len;
	}
	while (!from6 && more && json_array_size(routes) < limit) {
		n = dpr_fib4_list(rib->fib4, from4 ? &cur4 : NULL, c4, CHUNK, &more);
		if (n < 0)
			goto fail;
		for (i = 0; i < n && json_array_size(routes) < limit; i++) {
			pf = (struct dpr_prefix){ .addr = { .af = DPR_AF_IP4, .ip4 = c4[i].ip },
						  .len = c4[i].depth };
			saved_route_append(r, rib, routes, &pf, c4[i].nh);
			cur4 = c4[i];
			from4 = true;
		}
	}
	more = rib->fib6 != NULL;
	while (more && json_array_size(routes) < limit) {
		n = dpr_fib6_list(rib->fib6, from6 ? &cur6 : NULL, c6, CHUNK, &more);
		if (n < 0)
			goto fail;
		for (i = 0; i < n && json_array_size(routes) < limit; i++) {
			memset(&pf, 0, sizeof(pf));
			pf.addr.af = DPR_AF_IP6;
			memcpy(pf.addr.ip6, c6[i].ip, sizeof(pf.addr.ip6));
			pf.len = c6[i].depth;
			saved_route_append(r, rib, routes, &pf, c6[i].nh);
			cur6 = c6[i];
			from6 = true;
		}
	}
	free(c4);
	free(c6);
	return routes;
fail:
	json_decref(routes);
	free(c4);
	free(c6);
	return NULL;
}

/*
 * A port's addresses for the file: all it has now, less the link-local
 * one dpr derives from its MAC (addr_derived()), so a new MAC gets a new
 * one. *@p has6: one of them is IPv6.
 */
static json_t *
port_addrs_conf_json(struct dpr_router *r, unsigned int port, bool *has6)
{
	const struct dpr_prefix *list;
	char buf[DPR_PREFIX_STRLEN];
	json_t *a = json_array();
	unsigned int k, n;

	list = dpr_ifaddr_list(&r->addrs, port, &n);
	*has6 = false;
	for (k = 0; k < n; k++) {
		if (addr_derived(r, port, &list[k]))
			continue;
		*has6 |= list[k].addr.af == DPR_AF_IP6;
		json_array_append_new(a, json_string(dpr_prefix_fmt(&list[k], buf, sizeof(buf))));
	}
	return a;
}

static json_t *
port_conf_json(struct dpr_router *r, unsigned int port)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[port];
	json_t *o = json_pack("{s:s}", "name", pc->name), *ra;
	const char *acl;
	bool has6;

	if (r->acl != NULL && (acl = dpr_acl_bound(r->acl, port, DPR_ACL_IN)) != NULL)
		json_object_set_new(o, "acl_in", json_string(acl));
	if (r->acl != NULL && (acl = dpr_acl_bound(r->acl, port, DPR_ACL_OUT)) != NULL)
		json_object_set_new(o, "acl_out", json_string(acl));

	if (dpr_port_conf_is_vlan(pc)) {
		json_object_set_new(o, "port", json_string(r->cfg->ports[pc->parent].name));
		json_object_set_new(o, "id", json_integer(pc->vlan_id));
		if (pc->outer_id != 0) {
			json_object_set_new(o, "outer_id", json_integer(pc->outer_id));
			if (pc->outer_tpid == DPR_QINQ_TPID_Q)
				json_object_set_new(o, "outer_proto", json_string("802.1q"));
		}
	} else {
		json_object_set_new(o, "device", json_string(pc->device));
	}
	if (pc->has_mac) {
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(mac, sizeof(mac), &pc->mac);
		json_object_set_new(o, "mac", json_string(mac));
	}
	if (dpr_router_port_vrf(r, port) != DPR_VRF_DEFAULT)
		json_object_set_new(o, "vrf",
				    json_string(r->vrfs[dpr_router_port_vrf(r, port)].conf.name));
	json_object_set_new(o, "mtu", json_integer(pc->mtu));
	json_object_set_new(o, "tap", pc->tap[0] ? json_string(pc->tap) : json_false());
	json_object_set_new(o, "transparent", json_boolean(pc->transparent));
	json_object_set_new(o, "broadcast_echo", json_boolean(pc->broadcast_echo));
	json_object_set_new(o, "forward_directed_broadcast",
			    json_boolean(pc->forward_directed_broadcast));
	json_object_set_new(o, "redirects", json_boolean(pc->redirects));
	if (pc->urpf != 0)
		json_object_set_new(o, "urpf", json_string(pc->urpf == 2 ? "strict" : "loose"));
	json_object_set_new(o, "neighbor_learning",
			    json_string(dpr_config_neigh_learning_name(pc->neighbor_learning)));
	json_object_set_new(o, "addresses", port_addrs_conf_json(r, port, &has6));
	if (pc->ra.enabled) {
		ra = ra_json(&pc->ra);
		/* Its last IPv6 address deleted, the port advertises nothing;
		 * the file must say so to be accepted. */
		if (!has6)
			json_object_set_new(ra, "enabled", json_false());
		json_object_set_new(o, "router_advertisements", ra);
	}
	return o;
}

/* The static neighbours (config and neigh.add; those of a port whose link
 * is down too), not the learned ones. */
static json_t *
static_neighs_json(struct dpr_router *r)
{
	json_t *neighs = json_array();
	struct rte_ether_addr ea;
	uint16_t port;
	uint32_t i;

	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		char ip[DPR_IP6_STRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!dpr_neigh_static_get(r->neigh, i, &ea, &port) || !conf_neighbour_ok(r, i, port))
			continue;
		rte_ether_format_addr(mac, sizeof(mac), &ea);
		json_array_append_new(neighs, json_pack("{s:s,s:s,s:s}", "address",
			dpr_ip_fmt(&dpr_nh_info(r->nh, i)->ip, ip, sizeof(ip)), "mac", mac,
			"port", r->cfg->ports[port].name));
	}
	return neighs;
}

/* "kernel_routes", as the file gives it (RTPROT_KERNEL, always ignored, left out). */
static json_t *
kernel_routes_conf_json(const struct dpr_kroute_conf *kc)
{
	json_t *ignore = json_array();
	unsigned int p;

	for (p = 0; p <= UINT8_MAX; p++) {
		const char *name = dpr_route_proto_name((uint8_t)p);

		if (p == RTPROT_KERNEL || !(kc->ignore_protocols[p / 64] & (UINT64_C(1) << (p % 64))))
			continue;
		json_array_append_new(ignore, name != NULL ? json_string(name) : json_integer(p));
	}
	return json_pack("{s:I,s:o,s:I}", "table", (json_int_t)kc->table, "ignore_protocols", ignore,
			 "socket_buffer", (json_int_t)kc->socket_buffer);
}

/*
 * config.get: the running state as a config file dpr --check accepts and
 * that reproduces it at the next start: the file's settings, the
 * addresses, static neighbours and the routes route_saved() keeps as they
 * are now. Routes: all of them in one answer up to LIST_MAX; beyond, in
 * pages of "limit" after the last one of the previous page ("after"),
 * each page a whole file with its share of the routes.
 */
static json_t *
m_config_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "limit", "after", NULL };
	const struct dpr_config *cfg = r->cfg;
	uint64_t limit = LIST_MAX + 1;
	struct dpr_prefix cursor;
	json_t *res, *ports, *vlans, *routes, *acls = NULL;
	const char *after;
	unsigned int i;

	if (dpr_param_keys(params, "config.get", keys, e) < 0 ||
	    dpr_param_uint(params, "config.get", "limit", 1, LIST_MAX, &limit, e) < 0 ||
	    dpr_param_str(params, "config.get", "after", false, &after, e) < 0)
		return NULL;
	if (after != NULL && dpr_prefix_parse(after, false, &cursor, NULL, 0) < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS,
			    "config.get: \"after\" must be the last route prefix of the previous page");
	if (limit > LIST_MAX && saved_route_count(&r->rib) > LIST_MAX)
		return FAIL(DPR_RPC_NO_SPACE,
			    "config.get: %u routes to save are more than one answer holds (%u): page them with \"limit\" and \"after\" (dprctl config save does)",
			    saved_route_count(&r->rib), LIST_MAX);
	/* The other VRFs' routes come whole with the first page: one that
	 * holds more than an answer would lose the rest from the file. */
	for (i = 1; after == NULL && i < DPR_MAX_VRFS; i++)
		if (r->vrfs[i].rib != NULL && saved_route_count(r->vrfs[i].rib) > LIST_MAX)
			return FAIL(DPR_RPC_NO_SPACE,
				    "config.get: VRF %s has %u routes to save, more than one answer holds (%u): only the default VRF's routes page with \"limit\" and \"after\"",
				    r->vrfs[i].conf.name, saved_route_count(r->vrfs[i].rib), LIST_MAX);
	/* The other VRFs' routes come with the first page, each with its
	 * "vrf", and before the default VRF's: pages go on through the
	 * default VRF's from the last route of a page (dprctl config save's
	 * cursor), which must be one of its own. */
	routes = json_array();
	for (i = 1; after == NULL && i < DPR_MAX_VRFS; i++) {
		json_t *vr, *o;
		size_t k;

		if (r->vrfs[i].rib == NULL)
			continue;
		vr = saved_routes_json(r, r->vrfs[i].rib, NULL, LIST_MAX);
		if (vr == NULL) {
			json_decref(routes);
			return FAIL(DPR_RPC_INTERNAL_ERROR, "config.get: out of memory");
		}
		json_array_foreach(vr, k, o) {
			json_object_set_new(o, "vrf", json_string(r->vrfs[i].conf.name));
			json_array_append(routes, o);
		}
		json_decref(vr);
	}
	{
		json_t *dr = saved_routes_json(r, &r->rib, after != NULL ? &cursor : NULL,
					       (size_t)limit);

		if (dr == NULL) {
			json_decref(routes);
			return FAIL(DPR_RPC_INTERNAL_ERROR, "config.get: out of memory");
		}
		json_array_extend(routes, dr);
		json_decref(dr);
	}
	ports = json_array();
	vlans = json_array();
	for (i = 0; i < cfg->n_ports; i++)
		if (dpr_router_iface_used(r, i))
			json_array_append_new(i < cfg->n_phys ? ports : vlans, port_conf_json(r, i));
	res = json_pack("{s:o,s:o,s:o,s:{s:s},s:{s:i,s:i,s:s,s:i,s:i,s:s,s:i}}",
			"ports", ports, "routes", routes, "neighbors", static_neighs_json(r),
			"control", "socket", cfg->socket,
			"fib", "ipv4_max_routes", (json_int_t)cfg->ip4_max_routes,
			"ipv4_tbl8_groups", (json_int_t)cfg->ip4_tbl8_groups,
			"ipv4_algorithm", dpr_fib_algo_name(cfg->ip4_algorithm),
			"ipv6_max_routes", (json_int_t)cfg->ip6_max_routes,
			"ipv6_tbl8_groups", (json_int_t)cfg->ip6_tbl8_groups,
			"ipv6_algorithm", dpr_fib_algo_name(cfg->ip6_algorithm),
			"learned_neighbors_max", (json_int_t)cfg->learned_neighbors_max);
	if (r->acl != NULL && json_array_size(acls = dpr_acl_config_json(r->acl)) > 0)
		json_object_set_new(res, "acls", acls);
	else
		json_decref(acls);
	if (json_array_size(vlans) > 0)
		json_object_set_new(res, "vlans", vlans);
	else
		json_decref(vlans);
	for (i = 1; i < DPR_MAX_VRFS; i++) {
		const struct dpr_vrf_conf *vc = &r->vrfs[i].conf;

		if (r->vrfs[i].rib == NULL)
			continue;
		if (json_object_get(res, "vrfs") == NULL)
			json_object_set_new(res, "vrfs", json_array());
		json_array_append_new(json_object_get(res, "vrfs"), json_pack(
			"{s:s,s:I,s:{s:i,s:i,s:s,s:i,s:i,s:s}}", "name", vc->name,
			"table", (json_int_t)vc->table,
			"fib", "ipv4_max_routes", (json_int_t)vc->ip4_max_routes,
			"ipv4_tbl8_groups", (json_int_t)vc->ip4_tbl8_groups,
			"ipv4_algorithm", dpr_fib_algo_name(vc->ip4_algorithm),
			"ipv6_max_routes", (json_int_t)vc->ip6_max_routes,
			"ipv6_tbl8_groups", (json_int_t)vc->ip6_tbl8_groups,
			"ipv6_algorithm", dpr_fib_algo_name(vc->ip6_algorithm)));
	}
	if (cfg->socket_group[0] != '\0')
		json_object_set_new(json_object_get(res, "control"), "group",
				    json_string(cfg->socket_group));
	/* The route feeds and the metrics endpoint, defaults filled in. */
	if (cfg->fpm.enabled)
		json_object_set_new(res, "fpm", json_pack("{s:s,s:I,s:I}",
			"listen", cfg->fpm.listen, "table", (json_int_t)cfg->fpm.table,
			"grace_s", (json_int_t)cfg->fpm.grace_s));
	if (cfg->kernel_routes.enabled)
		json_object_set_new(res, "kernel_routes", kernel_routes_conf_json(&cfg->kernel_routes));
	if (cfg->metrics.enabled)
		json_object_set_new(res, "metrics", json_pack("{s:s}", "listen", cfg->metrics.listen));
	json_object_set_new(res, "control_plane", dpr_copp_conf_json(&cfg->control_plane));
	return res;
}

/*
 * The router's tables checked against each other (dpr_router_check()):
 * what the soak and an operator who suspects a wrong route run.
 */
static json_t *
m_rib_check(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };
	char why[512];

	if (dpr_param_keys(params, "rib.check", keys, e) < 0)
		return NULL;
	if (dpr_router_check(r, why, sizeof(why)) < 0)
		return FAIL(DPR_RPC_INTERNAL_ERROR, "rib.check: %s (a defect: please report it with this line)",
			    why);
	return json_pack("{s:b,s:I,s:I,s:I}", "ok", 1, "nexthops", (json_int_t)dpr_nh_count(r->nh),
			 "ipv4_routes", (json_int_t)route_count(&r->rib, DPR_AF_IP4),
			 "ipv6_routes", (json_int_t)route_count(&r->rib, DPR_AF_IP6));
}

/* The VRFs: name, kernel table, interfaces, routes. */
static json_t *
m_vrf_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };
	json_t *res;
	unsigned int v, p;

	if (dpr_param_keys(params, "vrf.list", keys, e) < 0)
		return NULL;
	res = json_array();
	for (v = 0; v < DPR_MAX_VRFS; v++) {
		struct dpr_rib *rib = r->vrfs[v].rib;
		json_t *ifs = json_array();

		if (rib == NULL) {
			json_decref(ifs);
			continue;
		}
		for (p = 0; p < r->n_ports; p++)
			if (dpr_router_iface_used(r, p) && dpr_router_port_vrf(r, p) == v)
				json_array_append_new(ifs, json_string(r->cfg->ports[p].name));
		json_array_append_new(res, json_pack("{s:s,s:I,s:o,s:i,s:i,s:s,s:s}",
			"name", r->vrfs[v].conf.name, "table", (json_int_t)r->vrfs[v].conf.table,
			"interfaces", ifs,
			"ipv4_routes", (json_int_t)route_count(rib, DPR_AF_IP4),
			"ipv6_routes", (json_int_t)route_count(rib, DPR_AF_IP6),
			"ipv4_algorithm", dpr_fib_algo_name(rib->fib4->conf.algorithm),
			"ipv6_algorithm", dpr_fib_algo_name(rib->fib6->conf.algorithm)));
	}
	return res;
}

const struct dpr_method dpr_method_table[] = {
	{ "route.add", m_route_add, "add a route: prefix, via and/or port, or nexthops" },
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
	{ "port.show", m_port_show, "what the device granted a port, and its warnings: port" },
	{ "doctor.get", m_doctor_get, "warnings going on, ACL advice, every port's facts, and dpr-doctor's machine checks ([machine: false] leaves them out)" },
	{ "capture.start", m_capture_start, "capture drops and exceptions to pcapng: file, [ports], drops and/or exceptions (names or \"all\"), [count, max_bytes, snaplen, seconds]" },
	{ "capture.get", m_capture_get, "the capture's state and counts" },
	{ "capture.stop", m_capture_stop, "stop the capture" },
	{ "stats.get", m_stats_get, "counters per port and worker" },
	{ "config.get", m_config_get, "the running configuration as a config file: [limit, after] to page its routes" },
	{ "vrf.list", m_vrf_list, "VRFs: name, kernel table, interfaces, route counts" },
	{ "rib.check", m_rib_check, "check every next hop's references against the routes, candidates and neighbours holding it" },
	DPR_ACL_METHODS
	DPR_IFACE_METHODS
	{ NULL, NULL, NULL },
};
