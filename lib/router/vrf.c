/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "../route/source.h"
#include "router.h"

int
dpr_router_vrf_index(const struct dpr_router *r, const char *name)
{
	unsigned int v;

	if (name == NULL)
		return DPR_VRF_DEFAULT;
	for (v = 0; v < DPR_MAX_VRFS; v++)
		if (r->vrfs[v].rib != NULL && strcmp(r->vrfs[v].conf.name, name) == 0)
			return (int)v;
	return -1;
}

int
dpr_vrf_open(struct dpr_router *r, unsigned int id, const struct dpr_vrf_conf *conf, char *err,
	     size_t len)
{
	struct dpr_fib4_conf fc = {
		.max_routes = conf->ip4_max_routes,
		.tbl8_groups = conf->ip4_tbl8_groups,
		.algorithm = conf->ip4_algorithm,
		.socket = (int)rte_socket_id(),
	};
	struct dpr_fib6_conf fc6 = {
		.max_routes = conf->ip6_max_routes,
		.tbl8_groups = conf->ip6_tbl8_groups,
		.algorithm = conf->ip6_algorithm,
		.socket = fc.socket,
	};
	const char *hint = id == 0 ? "fib" : "the VRF's fib";
	struct dpr_rib *rib;

	if (id >= DPR_MAX_VRFS || r->vrfs[id].rib != NULL) {
		snprintf(err, len, "VRF slot %u is taken", id);
		return -EEXIST;
	}
	rib = id == 0 ? &r->rib : calloc(1, sizeof(*rib));
	if (rib == NULL) {
		snprintf(err, len, "VRF %s: out of memory", conf->name);
		return -ENOMEM;
	}
	*rib = (struct dpr_rib){ .vrf = (uint16_t)id, .nh = r->nh };
	rib->fib4 = dpr_fib4_create(&fc, r->qsbr);
	if (rib->fib4 == NULL) {
		snprintf(err, len, "cannot allocate VRF %s's IPv4 FIB for %u routes: %s (reserve more hugepages with scripts/setup.sh, lower %s.ipv4_max_routes, or use \"ipv4_algorithm\": \"poptrie\")",
			 conf->name, fc.max_routes, strerror(errno), hint);
		goto fail;
	}
	rib->fib6 = dpr_fib6_create(&fc6, r->qsbr);
	if (rib->fib6 == NULL) {
		snprintf(err, len, "cannot allocate VRF %s's IPv6 FIB for %u routes: %s (reserve more hugepages with scripts/setup.sh, lower %s.ipv6_max_routes, or use \"ipv6_algorithm\": \"poptrie\")",
			 conf->name, fc6.max_routes, strerror(errno), hint);
		goto fail;
	}
	rib->srcs = dpr_route_srcs_create();
	if (rib->srcs == NULL) {
		snprintf(err, len, "VRF %s: cannot allocate the route source table: %s",
			 conf->name, strerror(errno));
		goto fail;
	}
	r->vrfs[id].conf = *conf;
	r->vrfs[id].rib = rib;
	if (id == 0) {
		r->fib4 = rib->fib4;
		r->fib6 = rib->fib6;
	}
	return 0;
fail:
	dpr_fib4_free(rib->fib4);
	dpr_fib6_free(rib->fib6);
	if (id != 0)
		free(rib);
	else
		memset(rib, 0, sizeof(*rib));
	return -ENOMEM;
}

void
dpr_vrf_close(struct dpr_router *r, unsigned int id)
{
	struct dpr_rib *rib = dpr_router_rib(r, id);

	if (rib == NULL)
		return;
	dpr_route_srcs_free(rib->srcs, r->nh);
	dpr_fib4_free(rib->fib4);
	dpr_fib6_free(rib->fib6);
	r->vrfs[id].rib = NULL;
	if (id != 0) {
		free(rib);
	} else {
		r->fib4 = NULL;
		r->fib6 = NULL;
	}
}
