/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "../copp/copp.h"
#include "../fpm/fpm_router.h"
#include "../kernel/kroute.h"
#include "../neigh/neigh.h"
#include "../route/source.h"
#include "../util/log.h"
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
	/* A daemon's /32 or /128 takes a learned neighbour's host route's
	 * place (lib/neigh). */
	dpr_route_srcs_set_yield(rib->srcs, dpr_neigh_yield_host, r);
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

/* Wait until no worker can still read what the control thread just
 * unlinked (none in unit rigs, which have no workers). */
static void
grace_period(struct dpr_router *r)
{
	if (r->qsbr != NULL && r->n_workers > 0)
		rte_rcu_qsbr_synchronize(r->qsbr, RTE_QSBR_THRID_INVALID);
}

int
dpr_vrf_add(struct dpr_router *r, const struct dpr_vrf_conf *conf, char *err, size_t len)
{
	const char *by = NULL;
	unsigned int v, free_slot = DPR_MAX_VRFS;
	int ret;

	if (!dpr_vrf_name_valid(conf->name)) {
		snprintf(err, len, "name \"%s\": expected 1 to %d letters, digits, '-' or '_' (\"%s\" is the default VRF's)",
			 conf->name, DPR_VRF_NAME_MAX, DPR_VRF_DEFAULT_NAME);
		return -EINVAL;
	}
	if (conf->table == 0 || (conf->table >= 253 && conf->table <= 255)) {
		snprintf(err, len, "table %u: the kernel's own (0 unspec, 253 default, 254 main, 255 local); give another, like 100",
			 conf->table);
		return -EINVAL;
	}
	if (r->cfg->fpm.enabled && r->cfg->fpm.table == conf->table)
		by = "fpm";
	else if (r->cfg->kernel_routes.enabled && r->cfg->kernel_routes.table == conf->table)
		by = "kernel_routes";
	if (by != NULL) {
		snprintf(err, len, "table %u is %s.table, the default VRF's; give the VRF another",
			 conf->table, by);
		return -EINVAL;
	}
	for (v = 0; v < DPR_MAX_VRFS; v++) {
		if (r->vrfs[v].rib == NULL) {
			if (v > 0 && free_slot == DPR_MAX_VRFS)
				free_slot = v;
			continue;
		}
		if (strcmp(r->vrfs[v].conf.name, conf->name) == 0) {
			snprintf(err, len, "VRF \"%s\" exists already (table %u)", conf->name,
				 r->vrfs[v].conf.table);
			return -EEXIST;
		}
		if (v > 0 && r->vrfs[v].conf.table == conf->table) {
			snprintf(err, len, "table %u is VRF %s's already", conf->table,
				 r->vrfs[v].conf.name);
			return -EEXIST;
		}
	}
	if (free_slot == DPR_MAX_VRFS) {
		snprintf(err, len, "no room for another VRF: dpr has at most %d, the default one included (DPR_MAX_VRFS); delete one first (vrf.del)",
			 DPR_MAX_VRFS);
		return -ENOSPC;
	}
	ret = dpr_vrf_open(r, free_slot, conf, err, len);
	if (ret < 0)
		return ret;
	/* The router's copy of the config has it too: its interfaces' "vrf"
	 * are slots of this table (doctor.get reads them together). */
	if (r->conf != NULL) {
		r->conf->vrfs[free_slot] = *conf;
		if (free_slot >= r->conf->n_vrfs)
			r->conf->n_vrfs = free_slot + 1;
	}
	/* The kernel's routes already in the table, and any change the
	 * mirror ignored while no VRF had it. */
	dpr_kroute_vrf_add(r, conf->table);
	/* zebra's, which it sends again only on a new connection. */
	dpr_fpm_router_vrf_add(r, conf->table);
	/* Control-plane peers are per VRF slot: none of a VRF that had the
	 * slot before, its own (by name) at once, not at the next sync. */
	if (r->copp != NULL)
		dpr_copp_peers_sync(r->copp, r);
	return (int)free_slot;
}

/*
 * Delete every route still in @p rib's FIBs that no source holds (the
 * router's own), a page at a time. @return the number deleted.
 */
static unsigned int
flush_router_routes(struct dpr_rib *rib)
{
	struct dpr_fib4_route r4[256], after4;
	struct dpr_fib6_route r6[256], after6;
	struct dpr_route_op ops[256];
	unsigned int total = 0;
	bool more = true, first = true;
	int n, i, err;

	/* Page by page from where the last one ended: a route that will not
	 * go is passed, not met again. */
	while (more && (n = dpr_fib4_list(rib->fib4, first ? NULL : &after4, r4, RTE_DIM(r4),
					  &more)) > 0) {
		for (i = 0; i < n; i++)
			ops[i] = (struct dpr_route_op){ .prefix = { .addr = { .af = DPR_AF_IP4,
				.ip4 = r4[i].ip }, .len = r4[i].depth }, .del = 1 };
		total += dpr_route_apply(rib, ops, (unsigned int)n, &err);
		after4 = r4[n - 1];
		first = false;
	}
	more = true;
	first = true;
	while (more && (n = dpr_fib6_list(rib->fib6, first ? NULL : &after6, r6, RTE_DIM(r6),
					  &more)) > 0) {
		for (i = 0; i < n; i++) {
			ops[i] = (struct dpr_route_op){ .prefix = { .addr = { .af = DPR_AF_IP6 },
				.len = r6[i].depth }, .del = 1 };
			memcpy(ops[i].prefix.addr.ip6, r6[i].ip, 16);
		}
		total += dpr_route_apply(rib, ops, (unsigned int)n, &err);
		after6 = r6[n - 1];
		first = false;
	}
	return total;
}

int
dpr_vrf_del(struct dpr_router *r, unsigned int id, char *err, size_t len)
{
	struct dpr_rib *rib = dpr_router_rib(r, id);
	char ifs[256] = "";
	size_t n = 0;
	unsigned int p, s;

	if (id == DPR_VRF_DEFAULT) {
		snprintf(err, len, "VRF %s is the default VRF: it cannot be deleted",
			 DPR_VRF_DEFAULT_NAME);
		return -EPERM;
	}
	if (rib == NULL) {
		snprintf(err, len, "no VRF in slot %u", id);
		return -ENOENT;
	}
	for (p = 0; p < r->n_ports; p++)
		if (dpr_router_iface_used(r, p) && dpr_router_port_vrf(r, p) == id &&
		    n < sizeof(ifs))
			n += (size_t)snprintf(ifs + n, sizeof(ifs) - n, "%s%s", n ? ", " : "",
					      r->cfg->ports[p].name);
	if (n > 0) {
		snprintf(err, len, "VRF %s has interfaces in it: %s (delete them, vlan.del, or move them out first)",
			 r->vrfs[id].conf.name, ifs);
		return -EBUSY;
	}
	/* What the route feeds know of the table goes too: its events are
	 * ignored from now on, so what they kept would be stale for a VRF
	 * given the table again (FPM's routes by next-hop id, which a
	 * reused id would bring back; the kernel mirror's records). */
	dpr_fpm_router_vrf_del(r, r->vrfs[id].conf.table);
	dpr_kroute_vrf_del(r, r->vrfs[id].conf.table);
	/* Every source's routes, as a daemon's go when it leaves: their
	 * candidates and next-hop references with them; then whatever the
	 * router itself still holds there. */
	for (s = 0; rib->srcs != NULL && s < DPR_RSRC_MAX; s++)
		if (dpr_route_src_mark_stale(rib, (enum dpr_route_src)s) > 0)
			dpr_route_src_sweep(rib, (enum dpr_route_src)s);
	flush_router_routes(rib);
	/* No interface points at these FIBs any more: after a grace period
	 * no burst is looking them up. */
	grace_period(r);
	DPR_LOG(INFO, main, "VRF %s (table %u) deleted", r->vrfs[id].conf.name,
		r->vrfs[id].conf.table);
	dpr_vrf_close(r, id);
	memset(&r->vrfs[id].conf, 0, sizeof(r->vrfs[id].conf));
	/* Its control-plane peers go with it (dpr_vrf_add()). */
	if (r->copp != NULL)
		dpr_copp_peers_sync(r->copp, r);
	/* Out of the router's copy of the config too: a free slot has no
	 * name there either. */
	if (r->conf != NULL && id < r->conf->n_vrfs) {
		memset(&r->conf->vrfs[id], 0, sizeof(r->conf->vrfs[id]));
		while (r->conf->n_vrfs > 1 && r->conf->vrfs[r->conf->n_vrfs - 1].name[0] == '\0')
			r->conf->n_vrfs--;
	}
	return 0;
}
