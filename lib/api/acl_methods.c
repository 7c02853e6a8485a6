/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "../acl/acl.h"
#include "acl_methods.h"
#include "rpc.h"

#define FAIL(code, ...) (dpr_method_fail(e, code, __VA_ARGS__), (json_t *)NULL)

/* Parameter @p key, a string, or NULL with the error in @p e. */
static const char *
string_param(json_t *params, const char *method, const char *key, struct dpr_method_err *e)
{
	const char *v = NULL;

	return dpr_param_str(params, method, key, true, &v, e) < 0 ? NULL : v;
}

static int
ready(struct dpr_router *r, const char *method, struct dpr_method_err *e)
{
	if (r->acl == NULL)
		return dpr_method_fail(e, DPR_RPC_INTERNAL_ERROR, "%s: this dpr has no ACL support running",
				       method);
	return 0;
}

/* The interface and direction of acl.bind and acl.unbind. */
static int
iface_dir(struct dpr_router *r, json_t *params, const char *method, int *port,
	  enum dpr_acl_dir *dir, struct dpr_method_err *e)
{
	const char *ifc = string_param(params, method, "interface", e), *d;

	if (ifc == NULL || (d = string_param(params, method, "direction", e)) == NULL)
		return -1;
	*port = dpr_config_port_index(r->cfg, ifc);
	if (*port < 0)
		return dpr_method_fail(e, DPR_RPC_NOT_FOUND, "%s: no interface \"%s\" (dprctl port list)",
				       method, ifc);
	if (strcmp(d, "in") == 0)
		*dir = DPR_ACL_IN;
	else if (strcmp(d, "out") == 0)
		*dir = DPR_ACL_OUT;
	else
		return dpr_method_fail(e, DPR_RPC_INVALID_PARAMS,
				       "%s: direction \"%s\": expected \"in\" or \"out\"", method, d);
	return 0;
}

json_t *
dpr_m_acl_set(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	struct dpr_acl_list l;
	const char *name;
	char err[512];
	int ret;

	if (ready(r, "acl.set", e) < 0 || (name = string_param(params, "acl.set", "name", e)) == NULL)
		return NULL;
	/* The old list stays until the new one is whole and built. */
	ret = dpr_acl_list_parse(params, name, NULL, &l, err, sizeof(err));
	if (ret < 0)
		return FAIL(ret == -ENOMEM ? DPR_RPC_NO_SPACE : DPR_RPC_INVALID_PARAMS,
			    "acl.set: %s (the ACL is unchanged)", err);
	ret = dpr_acl_set(r->acl, &l, err, sizeof(err));
	if (ret < 0)
		return FAIL(DPR_RPC_NO_SPACE, "acl.set: %s (the ACL is unchanged)", err);
	return dpr_acl_get_json(r->acl, name, r->port_names, r->n_ports);
}

json_t *
dpr_m_acl_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", NULL };
	const char *name;
	char err[256];
	int ret;

	if (ready(r, "acl.del", e) < 0 || dpr_param_keys(params, "acl.del", keys, e) < 0 ||
	    (name = string_param(params, "acl.del", "name", e)) == NULL)
		return NULL;
	ret = dpr_acl_del(r->acl, name, err, sizeof(err));
	if (ret < 0)
		return FAIL(ret == -ENOENT ? DPR_RPC_NOT_FOUND : DPR_RPC_REFUSED, "acl.del: %s", err);
	return json_pack("{s:s}", "deleted", name);
}

json_t *
dpr_m_acl_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { NULL };

	if (ready(r, "acl.list", e) < 0 || dpr_param_keys(params, "acl.list", keys, e) < 0)
		return NULL;
	return json_pack("{s:o,s:o}", "acls", dpr_acl_list_json(r->acl, r->port_names, r->n_ports),
			 "warnings", dpr_acl_warnings_json(r->acl));
}

json_t *
dpr_m_acl_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", NULL };
	const char *name;
	json_t *res;

	if (ready(r, "acl.get", e) < 0 || dpr_param_keys(params, "acl.get", keys, e) < 0 ||
	    (name = string_param(params, "acl.get", "name", e)) == NULL)
		return NULL;
	res = dpr_acl_get_json(r->acl, name, r->port_names, r->n_ports);
	if (res == NULL)
		return FAIL(DPR_RPC_NOT_FOUND, "acl.get: no ACL \"%s\" (dprctl acl list)", name);
	return res;
}

json_t *
dpr_m_acl_bind(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", "interface", "direction", NULL };
	enum dpr_acl_dir dir;
	const char *name;
	char err[256];
	int port;

	if (ready(r, "acl.bind", e) < 0 || dpr_param_keys(params, "acl.bind", keys, e) < 0 ||
	    (name = string_param(params, "acl.bind", "name", e)) == NULL ||
	    iface_dir(r, params, "acl.bind", &port, &dir, e) < 0)
		return NULL;
	if (dpr_acl_bind(r->acl, name, (unsigned int)port, dir, err, sizeof(err)) < 0)
		return FAIL(DPR_RPC_NOT_FOUND, "acl.bind: %s", err);
	dpr_router_in_stages_sync(r);
	return json_pack("{s:s,s:s,s:s}", "name", name, "interface", r->port_names[port],
			 "direction", dir == DPR_ACL_IN ? "in" : "out");
}

json_t *
dpr_m_acl_unbind(struct dpr_router *r, json_t *params, struct dpr_method_err *e)
{
	static const char *const keys[] = { "name", "interface", "direction", NULL };
	enum dpr_acl_dir dir;
	const char *was;
	char err[256];
	int port;

	if (ready(r, "acl.unbind", e) < 0 || dpr_param_keys(params, "acl.unbind", keys, e) < 0 ||
	    iface_dir(r, params, "acl.unbind", &port, &dir, e) < 0)
		return NULL;
	was = dpr_acl_bound(r->acl, (unsigned int)port, dir);
	if (was == NULL)
		return FAIL(DPR_RPC_NOT_FOUND, "acl.unbind: no ACL bound %s on %s",
			    dir == DPR_ACL_IN ? "in" : "out", r->port_names[port]);
	if (json_object_get(params, "name") != NULL &&
	    (!json_is_string(json_object_get(params, "name")) ||
	     strcmp(json_string_value(json_object_get(params, "name")), was) != 0))
		return FAIL(DPR_RPC_NOT_FOUND, "acl.unbind: %s %s is bound to ACL %s, not that one",
			    r->port_names[port], dir == DPR_ACL_IN ? "in" : "out", was);
	dpr_acl_bind(r->acl, NULL, (unsigned int)port, dir, err, sizeof(err));
	dpr_router_in_stages_sync(r);
	return json_pack("{s:s,s:s}", "interface", r->port_names[port],
			 "direction", dir == DPR_ACL_IN ? "in" : "out");
}
