/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The acl.* methods (lib/api/acl_methods.c): each parses, calls lib/acl
 * and answers. Listed in dpr_method_table through DPR_ACL_METHODS.
 */
#include <jansson.h>

#include "../router/router.h"
#include "methods.h"

json_t *dpr_m_acl_set(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_acl_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_acl_list(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_acl_get(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_acl_bind(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_acl_unbind(struct dpr_router *r, json_t *params, struct dpr_method_err *e);

#define DPR_ACL_METHODS \
	{ "acl.set", dpr_m_acl_set, "create or replace an ACL atomically: name, [default], rules" }, \
	{ "acl.del", dpr_m_acl_del, "delete an ACL bound nowhere: name" }, \
	{ "acl.list", dpr_m_acl_list, "ACLs: name, default, rule count, where bound" }, \
	{ "acl.get", dpr_m_acl_get, "an ACL's rules with their hits summed over workers: name" }, \
	{ "acl.bind", dpr_m_acl_bind, "filter an interface with an ACL: name, interface, direction (in|out)" }, \
	{ "acl.unbind", dpr_m_acl_unbind, "stop filtering an interface: interface, direction (in|out)" },
