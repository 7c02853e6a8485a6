/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * vrf.add, vrf.del, vlan.add, vlan.del (lib/api/iface_methods.c): each
 * parses, calls lib/router (vrf.c, iface.c) and answers. Listed in
 * dpr_method_table through DPR_IFACE_METHODS.
 */
#include <jansson.h>

#include "../router/router.h"
#include "methods.h"

json_t *dpr_m_vrf_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_vrf_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_vlan_add(struct dpr_router *r, json_t *params, struct dpr_method_err *e);
json_t *dpr_m_vlan_del(struct dpr_router *r, json_t *params, struct dpr_method_err *e);

#define DPR_IFACE_METHODS \
	{ "vrf.add", dpr_m_vrf_add, "add a VRF at run time: name, table, [fib]" }, \
	{ "vrf.del", dpr_m_vrf_del, "delete a VRF no interface is in, its routes with it: name" }, \
	{ "vlan.add", dpr_m_vlan_add, "add a VLAN interface at run time: name, port, id, [outer_id], [outer_proto], [vrf], [addresses], [mtu], [tap]" }, \
	{ "vlan.del", dpr_m_vlan_del, "delete a VLAN interface, its addresses, routes and neighbours: name" },
