/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../exception/exception.h"
#include "../kernel/kvrf.h"
#include "iface_methods.h"
#include "rpc.h"

#define FAIL(code, ...) (dpr_method_fail(e, code, __VA_ARGS__), (json_t *)NULL)

/* Required integer @p key of @p params from @p min to @p max. */
static int
uint_required(json_t *params, const char *method, const char *key, uint64_t min, uint64_t max,
	      uint64_t *out, struct dpr_method_err *e)
{
	if (params == NULL || json_object_get(params, key) == NULL)
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS, "%s: missing parameter \"%s\"",
				       method, key);
	return dpr_param_uint(params, method, key, min, max, out, e);
}

/* The VRF named @p name (NULL: the default one), or -1 with the error. */
static int
vrf_by_name(struct dpr_router *r, const char *ctx, const char *name, struct dpr_method_err *e)
{
	int v = dpr_router_vrf_index(r, name);

	if (v < 0)
		dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no VRF \"%s\" (vrf.list shows them)", ctx,
				name);
	return v;
}

static int
rpc_code(int err)
{
	switch (err) {
	case -EEXIST: return DPR_RPC_EXISTS;
	case -ENOSPC: case -ENOMEM: case -EAGAIN: return DPR_RPC_NO_SPACE;
	case -EPERM: case -EBUSY: case -ENOTSUP: return DPR_RPC_REFUSED;
	case -ENOENT: return DPR_RPC_NOT_FOUND;
	default: return DPR_RPC_INVALID_PARAMS;
	}
}

json_t *
dpr_m_vrf_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", "table", "fib", NULL };
	/* The sizes of a VRF the config file gives (its "fib"), defaults
	 * those of the default VRF. */
	struct dpr_vrf_conf vc = r->vrfs[DPR_VRF_DEFAULT].conf;
	json_t *fib = params != NULL ? json_object_get(params, "fib") : NULL;
	const char *name = NULL;
	char ctx[64], err[512];
	uint64_t table = 0;
	int v, ret;

	if (dpr_param_keys(params, "vrf.add", keys, e) < 0 ||
	    dpr_param_str(params, "vrf.add", "name", true, &name, e) < 0 ||
	    uint_required(params, "vrf.add", "table", 0, UINT32_MAX, &table, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "vrf.add %s", name);
	if (strlen(name) > DPR_VRF_NAME_MAX)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: name longer than %d characters", ctx,
			    DPR_VRF_NAME_MAX);
	snprintf(vc.name, sizeof(vc.name), "%s", name);
	vc.table = (uint32_t)table;
	/* Its "fib" as the config file's vrfs[] take it. */
	if (fib != NULL && dpr_config_vrf_fib(fib, "fib", &vc, err, sizeof(err)) < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: %s", ctx, err);
	ret = dpr_vrf_add(r, &vc, err, sizeof(err));
	if (ret < 0)
		return FAIL(rpc_code(ret), "%s: %s", ctx, err);
	/* Its kernel VRF device, as the config file's VRFs get at start. */
	v = dpr_router_vrf_index(r, vc.name);
	dpr_kvrf_add(r, (unsigned int)v);
	return json_pack("{s:s,s:I,s:s,s:s,s:o}", "name", vc.name, "table", (json_int_t)vc.table,
			 "ipv4_algorithm", dpr_fib_algo_name(vc.ip4_algorithm),
			 "ipv6_algorithm", dpr_fib_algo_name(vc.ip6_algorithm),
			 "kernel_device", dpr_kvrf_json(r, (unsigned int)v));
}

json_t *
dpr_m_vrf_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", NULL };
	const char *name = NULL;
	char ctx[64], err[512];
	int v, ret;

	if (dpr_param_keys(params, "vrf.del", keys, e) < 0 ||
	    dpr_param_str(params, "vrf.del", "name", true, &name, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "vrf.del %s", name);
	v = vrf_by_name(r, ctx, name, e);
	if (v < 0)
		return NULL;
	ret = dpr_vrf_del(r, (unsigned int)v, err, sizeof(err));
	if (ret < 0)
		return FAIL(rpc_code(ret), "%s: %s", ctx, err);
	dpr_kvrf_del(r, (unsigned int)v);
	return json_pack("{s:s}", "name", name);
}

/* Call method @p name of the table (addr.add, addr.del): one copy of what
 * an address brings and takes away. */
static json_t *
call(struct dpr_router *r, const char *name, json_t *params, struct dpr_method_err *e)
{
	const struct dpr_method *m;
	json_t *res = NULL;

	for (m = dpr_method_table; m->name != NULL && strcmp(m->name, name) != 0; m++)
		;
	if (m->name != NULL)
		res = m->fn(r, params, e);
	else
		dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "no method %s", name);
	json_decref(params);
	return res;
}

/* Remove every address of interface @p p (addr.del's way: routes, TAP,
 * neighbours follow), its link-local one too. */
static void
del_addresses(struct dpr_router *r, unsigned int p)
{
	struct dpr_prefix a[DPR_IFADDR_MAX_PER_PORT];
	const struct dpr_prefix *list;
	char buf[DPR_PREFIX_STRLEN];
	unsigned int n, k;

	list = dpr_ifaddr_list(&r->addrs, p, &n);
	memcpy(a, list, n * sizeof(*a));
	for (k = 0; k < n; k++) {
		struct dpr_method_err e2 = { 0 };

		json_decref(call(r, "addr.del", json_pack("{s:s,s:s}", "port",
			r->cfg->ports[p].name, "address", dpr_prefix_fmt(&a[k], buf, sizeof(buf))),
			&e2));
	}
}

json_t *
dpr_m_vlan_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = {
		"name", "port", "id", "outer_id", "outer_proto", "vrf", "addresses", "mtu", "tap",
		"urpf", NULL
	};
	struct dpr_port_conf pc = { .parent = -1, .redirects = true };
	json_t *addrs = params != NULL ? json_object_get(params, "addresses") : NULL;
	json_t *tap = params != NULL ? json_object_get(params, "tap") : NULL, *a, *res;
	const char *name = NULL, *port = NULL, *vrf = NULL, *proto = NULL, *urpf = NULL;
	char ctx[96], err[512];
	uint64_t id = 0, outer = 0, mtu = 0;
	int parent, v, p, ret, mode;
	size_t i;

	if (dpr_param_keys(params, "vlan.add", keys, e) < 0 ||
	    dpr_param_str(params, "vlan.add", "name", true, &name, e) < 0 ||
	    dpr_param_str(params, "vlan.add", "port", true, &port, e) < 0 ||
	    uint_required(params, "vlan.add", "id", 0, UINT16_MAX, &id, e) < 0 ||
	    dpr_param_uint(params, "vlan.add", "outer_id", 1, UINT16_MAX, &outer, e) < 0 ||
	    dpr_param_str(params, "vlan.add", "outer_proto", false, &proto, e) < 0 ||
	    dpr_param_str(params, "vlan.add", "vrf", false, &vrf, e) < 0 ||
	    dpr_param_uint(params, "vlan.add", "mtu", 68, 9702, &mtu, e) < 0 ||
	    dpr_param_str(params, "vlan.add", "urpf", false, &urpf, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "vlan.add %s", name);
	/* Its own, as the file's vlans[] (default off), not its port's. */
	mode = urpf != NULL ? dpr_config_urpf_mode(urpf) : 0;
	if (mode < 0)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: urpf \"%s\": %s", ctx, urpf,
			    DPR_CONFIG_URPF_EXPECTED);
	pc.urpf = (uint8_t)mode;
	/* A QinQ interface: outer_id, and its TPID as the file's vlans[]. */
	if (proto != NULL && outer == 0)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: outer_proto \"%s\": only a QinQ interface (with outer_id) has an outer tag",
			    ctx, proto);
	if (proto != NULL && strcmp(proto, "802.1ad") != 0 && strcmp(proto, "802.1q") != 0)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: outer_proto \"%s\": expected \"802.1ad\" (TPID 0x88a8, the default) or \"802.1q\" (0x8100)",
			    ctx, proto);
	pc.outer_id = (uint16_t)outer;
	pc.outer_tpid = outer == 0 ? 0 :
			proto != NULL && strcmp(proto, "802.1q") == 0 ? DPR_QINQ_TPID_Q : DPR_QINQ_TPID_AD;
	if (strlen(name) > DPR_PORT_NAME_MAX)
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: name longer than %d characters", ctx,
			    DPR_PORT_NAME_MAX);
	parent = dpr_config_port_index(r->cfg, port);
	if (parent < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: no port \"%s\" (port.list shows them)", ctx,
			    port);
	if (dpr_port_conf_is_vlan(&r->cfg->ports[parent]))
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: %s is a VLAN interface: a VLAN interface is on a port",
			    ctx, port);
	v = vrf_by_name(r, ctx, vrf, e);
	if (v < 0)
		return NULL;
	snprintf(pc.name, sizeof(pc.name), "%s", name);
	pc.parent = parent;
	pc.vlan_id = (uint16_t)RTE_MIN(id, (uint64_t)UINT16_MAX);
	pc.vrf = (uint16_t)v;
	pc.mtu = mtu != 0 ? (uint16_t)mtu : r->cfg->ports[parent].mtu;
	/* The host stack's side: a TAP named dpr-<name> unless given, or
	 * none with "tap": false (as the file's vlans[]). */
	snprintf(pc.tap, sizeof(pc.tap), "dpr-%s", name);
	if (tap != NULL && json_is_false(tap)) {
		pc.tap[0] = '\0';
	} else if (tap != NULL) {
		const char *t = json_is_string(tap) ? json_string_value(tap) : "";

		/* As the file's: the name goes into net_tap's devargs. */
		if (!dpr_tap_name_valid(t))
			return FAIL(DPR_RPC_INVALID_PARAMS, "%s: tap \"%.32s\": " DPR_TAP_NAME_EXPECTED,
				    ctx, t);
		snprintf(pc.tap, sizeof(pc.tap), "%s", t);
	}
	/* The addresses checked before anything changes. */
	if (addrs != NULL && (!json_is_array(addrs) ||
			      json_array_size(addrs) > DPR_MAX_PORT_ADDRS))
		return FAIL(DPR_RPC_INVALID_PARAMS, "%s: addresses: expected an array of at most %d strings like \"10.0.1.1/24\"",
			    ctx, DPR_MAX_PORT_ADDRS);
	json_array_foreach(addrs, i, a) {
		struct dpr_prefix pf;

		if (!json_is_string(a))
			return FAIL(DPR_RPC_INVALID_PARAMS, "%s: addresses[%zu]: expected a string like \"10.0.1.1/24\"",
				    ctx, i);
		if (dpr_config_check_address(name, json_string_value(a), &pf, err, sizeof(err)) < 0)
			return FAIL(DPR_RPC_INVALID_PARAMS, "%s: %s", ctx, err);
		if (pf.addr.af == DPR_AF_IP6 && !dpr_mtu_carries_ip6(pc.mtu))
			return FAIL(DPR_RPC_INVALID_PARAMS, "%s: addresses[%zu] \"%s\": an IPv6 address on mtu %u: " DPR_IP6_MTU_WHY,
				    ctx, i, json_string_value(a), pc.mtu);
	}

	p = dpr_vlan_open(r, &pc, err, sizeof(err));
	if (p < 0)
		return FAIL(rpc_code(p), "%s: %s", ctx, err);
	json_array_foreach(addrs, i, a) {
		json_t *res = call(r, "addr.add", json_pack("{s:s,s:O}", "port", name, "address", a),
				   e);

		if (res == NULL) {
			/* Never published: no worker saw it. */
			del_addresses(r, (unsigned int)p);
			dpr_vlan_close(r, (unsigned int)p);
			return NULL;
		}
		json_decref(res);
	}
	ret = dpr_vlan_publish(r, (unsigned int)p);
	if (ret < 0) {
		del_addresses(r, (unsigned int)p);
		dpr_vlan_close(r, (unsigned int)p);
		return FAIL(DPR_RPC_NO_SPACE, "%s: no memory for port %s's VLAN map", ctx, port);
	}
	res = json_pack("{s:s,s:s,s:i,s:s,s:i,s:s}", "name", name, "port", port, "id", (int)id,
			"vrf", r->vrfs[v].conf.name, "mtu", (int)pc.mtu,
			"urpf", mode == 2 ? "strict" : mode == 1 ? "loose" : "off");
	if (res != NULL && pc.outer_id != 0) {
		json_object_set_new(res, "outer_id", json_integer(pc.outer_id));
		json_object_set_new(res, "outer_proto",
				    json_string(dpr_config_outer_proto_name(pc.outer_tpid)));
	}
	return res;
}

json_t *
dpr_m_vlan_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", NULL };
	const char *name = NULL;
	char ctx[96], err[512];
	int p;

	if (dpr_param_keys(params, "vlan.del", keys, e) < 0 ||
	    dpr_param_str(params, "vlan.del", "name", true, &name, e) < 0)
		return NULL;
	snprintf(ctx, sizeof(ctx), "vlan.del %s", name);
	p = dpr_config_port_index(r->cfg, name);
	if (p < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "%s: no VLAN interface \"%s\" (port.list shows them)",
			    ctx, name);
	if (!dpr_port_conf_is_vlan(&r->cfg->ports[p]))
		return FAIL(DPR_RPC_REFUSED, "%s: %s is a port, not a VLAN interface", ctx, name);
	if (r->conf == NULL || r->port_dp == NULL)
		return FAIL(DPR_RPC_REFUSED, "%s: this dpr cannot remove interfaces at run time", ctx);
	if (dpr_vlan_busy(r, (unsigned int)p, err, sizeof(err)) < 0)
		return FAIL(DPR_RPC_REFUSED, "%s: %s", ctx, err);
	/* While it still has its addresses and link: RFC 4861 6.2.5. */
	if (r->exc != NULL)
		dpr_exc_ra_cease(r->exc, (unsigned int)p);
	dpr_vlan_unpublish(r, (unsigned int)p);
	del_addresses(r, (unsigned int)p);
	dpr_vlan_close(r, (unsigned int)p);
	return json_pack("{s:s}", "name", name);
}
