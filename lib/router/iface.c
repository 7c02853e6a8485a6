/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VLAN interfaces added and removed at run time (vlan.add, vlan.del), with
 * the discipline routes follow: what workers read is written while no
 * worker can reach it, published with one atomic store, and unpublished
 * a grace period before it is taken apart or reused.
 *
 * Workers reach an interface slot p in two ways only: its parent's VLAN
 * map (vlan_if[id] = p + 1, the RX side: dpr_vlan_demux_burst()), and a
 * next hop whose port is p (the TX side: tx[p], src_mac_type[p], ports[p]).
 * vlan.add fills the slot, raises the workers' n_ports (so that they drain
 * tx[p]), waits a grace period and only then stores the map entry; next
 * hops on p come after, from its addresses and neighbours. vlan.del
 * unpublishes the map entry, waits, removes the addresses (their routes)
 * and neighbours (their next hops), waits again, and then every worker has
 * flushed tx[p] for the last time: the slot is free.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "../acl/acl.h"
#include "../capture/capture.h"
#include "../datapath/qinq_dp.h"
#include "../datapath/stats.h"
#include "../exception/icmp6.h"
#include "../exception/tap.h"
#include "../metrics/metrics.h"
#include "../neigh/neigh.h"
#include "../util/log.h"
#include "router.h"

static void
grace_period(struct dpr_router *r)
{
	if (r->qsbr != NULL && r->n_workers > 0)
		rte_rcu_qsbr_synchronize(r->qsbr, RTE_QSBR_THRID_INVALID);
}

/* The lowest free interface slot past the ports, or -1. */
static int
free_slot(const struct dpr_router *r)
{
	unsigned int p;

	RTE_BUILD_BUG_ON(DPR_MAX_PORTS > 32); /* slots_draining */
	for (p = r->cfg->n_phys; p < DPR_MAX_PORTS; p++)
		if (r->cfg->ports[p].name[0] == '\0' && !(r->slots_draining & (UINT32_C(1) << p)))
			return (int)p;
	return -1;
}

/* Trim free slots off the end of the interface table. */
static void
trim_slots(struct dpr_router *r)
{
	while (r->n_ports > r->cfg->n_phys && !dpr_router_iface_used(r, r->n_ports - 1))
		r->n_ports--;
	r->conf->n_ports = r->n_ports;
}

/*
 * The workers' fast_max_len once the interface with the smallest MTU may
 * have gone (vlan.del): every interface in use takes frames up to it, so
 * that a frame a deleted interface's MTU held to the reference path takes
 * the fast path again. After a grace period in which the deleted one
 * became unreachable (no next hop sends there).
 */
static void
fast_max_len_sync(struct dpr_router *r)
{
	uint32_t mtu = UINT32_MAX, fast;
	unsigned int p, w;

	for (p = 0; p < r->n_ports; p++)
		if (dpr_router_iface_used(r, p))
			mtu = RTE_MIN(mtu, (uint32_t)r->port_dp[p].mtu);
	if (mtu == UINT32_MAX)
		return;
	fast = mtu + RTE_ETHER_HDR_LEN;
	for (w = 0; w < r->n_workers; w++)
		if (fast > r->workers[w]->fast_max_len)
			__atomic_store_n(&r->workers[w]->fast_max_len, fast, __ATOMIC_RELAXED);
}

/* Slot @p p's control-side state back to free (its datapath state, which
 * workers may still hold, is left to dpr_vlan_close()). */
static void
release_slot(struct dpr_router *r, unsigned int p)
{
	unsigned int n, k;
	const struct dpr_prefix *a = dpr_ifaddr_list(&r->addrs, p, &n);
	struct dpr_prefix left[DPR_IFADDR_MAX_PER_PORT];

	/* Anything addr.del left (nothing, normally). */
	memcpy(left, a, n * sizeof(*a));
	for (k = 0; k < n; k++)
		dpr_ifaddr_del(&r->addrs, p, &left[k]);
	dpr_ifaddr_set_vrf(&r->addrs, p, DPR_VRF_DEFAULT);
	dpr_ifaddr_set_mtu(&r->addrs, p, DPR_IP6_MIN_MTU);
	dpr_nh_set_port_vrf(r->nh, (uint8_t)p, DPR_VRF_DEFAULT);
	r->port_names[p] = NULL;
	r->ports[p].has_tap = false;
	r->ports[p].tap_lost = false;
	memset(&r->conf->ports[p], 0, sizeof(r->conf->ports[p]));
	r->conf->ports[p].parent = -1;
	/* Packets of the interface may still be on an exception ring: the
	 * slot is nobody's until they are gone (dpr_exc_input() frees them
	 * then, its name being ""). */
	r->slots_draining |= UINT32_C(1) << p;
	trim_slots(r);
	/* Its MTU no longer limits the fast path. */
	fast_max_len_sync(r);
}

int
dpr_vlan_open(struct dpr_router *r, const struct dpr_port_conf *pc, char *err, size_t len)
{
	const struct dpr_port_conf *parent;
	struct dpr_rib *rib;
	uint8_t ll[16];
	unsigned int w;
	int p, ret;

	if (r->conf == NULL || r->port_dp == NULL) {
		snprintf(err, len, "this dpr cannot add interfaces at run time");
		return -ENOTSUP;
	}
	if (!dpr_port_name_valid(pc->name, true)) {
		snprintf(err, len, "name \"%s\": expected 1 to %d letters, digits, '-', '_' or '.'",
			 pc->name, DPR_PORT_NAME_MAX);
		return -EINVAL;
	}
	if (dpr_config_port_index(r->cfg, pc->name) >= 0) {
		snprintf(err, len, "name \"%s\": an interface of that name exists already",
			 pc->name);
		return -EEXIST;
	}
	ret = dpr_config_port_clash(r->cfg, pc->name);
	if (ret >= 0) {
		snprintf(err, len, "name \"%s\": reads as interface %s's in DPDK telemetry keys ('-' and '.' become '_' there): choose another",
			 pc->name, r->cfg->ports[ret].name);
		return -EEXIST;
	}
	if (pc->parent < 0 || (unsigned int)pc->parent >= r->cfg->n_phys) {
		snprintf(err, len, "a VLAN interface is on a port of \"ports\", not on another VLAN interface");
		return -EINVAL;
	}
	parent = &r->cfg->ports[pc->parent];
	ret = dpr_config_vlan_check(r->cfg, pc, r->n_ports, err, len);
	if (ret < 0)
		return ret;
	rib = dpr_router_rib(r, pc->vrf);
	if (rib == NULL) {
		snprintf(err, len, "no VRF in slot %u", pc->vrf);
		return -EINVAL;
	}
	if (pc->mtu > parent->mtu || pc->mtu < 68) {
		snprintf(err, len, "mtu %u: expected 68 to its port %s's (%u)", pc->mtu, parent->name,
			 parent->mtu);
		return -EINVAL;
	}
	if (pc->n_addrs != 0) {
		snprintf(err, len, "addresses come after (addr.add)");
		return -EINVAL;
	}
	p = free_slot(r);
	if (p < 0 && r->slots_draining != 0) {
		snprintf(err, len, "no free interface slot yet: the %u that vlan.del freed wait for the deleted interfaces' packets on their way to the control thread; retry",
			 (unsigned int)__builtin_popcount(r->slots_draining));
		return -EAGAIN;
	}
	if (p < 0) {
		snprintf(err, len, "no free interface slot: dpr has %d ports and VLAN interfaces at most (DPR_MAX_PORTS); delete one first (vlan.del)",
			 DPR_MAX_PORTS);
		return -ENOSPC;
	}

	/* The control side's view: name, conf, VRF. */
	r->conf->ports[p] = *pc;
	if ((unsigned int)p >= r->n_ports) {
		r->n_ports = (unsigned int)p + 1;
		r->conf->n_ports = r->n_ports;
	}
	if (r->addrs.n_ports <= (unsigned int)p)
		r->addrs.n_ports = (unsigned int)p + 1;
	dpr_ifaddr_set_vrf(&r->addrs, (unsigned int)p, pc->vrf);
	dpr_ifaddr_set_mtu(&r->addrs, (unsigned int)p, pc->mtu);
	dpr_nh_set_port_vrf(r->nh, (uint8_t)p, pc->vrf);
	dpr_port_vlan_init(&r->ports[p], &r->ports[pc->parent], &r->cfg->ports[p]);
	r->port_names[p] = r->cfg->ports[p].name;

	/* The workers' view, which none of them reaches yet. */
	r->port_dp[p] = r->port_dp[pc->parent];
	r->port_dp[p].vlan_if = NULL;
	r->port_dp[p].qinq = NULL;
	r->port_dp[p].vlan_outer = r->ports[p].vlan_outer;
	r->port_dp[p].mtu = pc->mtu;
	r->port_dp[p].redirects = pc->redirects;
	r->port_dp[p].urpf = pc->urpf; /* its own, not its port's */
	r->port_dp[p].vlan_tci = pc->vlan_id;
	r->port_dp[p].fib4 = rib->fib4;
	r->port_dp[p].fib6 = rib->fib6;
	r->port_dp[p].vrf = pc->vrf;
	dpr_port_in_stages_sync(&r->port_dp[p], 1, NULL); /* no ACL bound yet */
	for (w = 0; w < r->n_workers; w++) {
		struct dpr_worker *wk = r->workers[w];
		uint32_t fast = (uint32_t)pc->mtu + RTE_ETHER_HDR_LEN;

		dpr_worker_prepare_port(wk, (uint16_t)p);
		memset(&wk->stats[p], 0, sizeof(wk->stats[p]));
		/* Its last flush reset it; a slot a port had never set it. */
		wk->tx[p].pretagged = 0;
		if (fast < wk->fast_max_len)
			__atomic_store_n(&wk->fast_max_len, fast, __ATOMIC_RELAXED);
		if (wk->n_ports <= p)
			__atomic_store_n(&wk->n_ports, (uint16_t)(p + 1), __ATOMIC_RELEASE);
	}

	/* Its link-local address (as every port's, from its MAC; none below
	 * 1280, RFC 8200 5), then the host stack's side. */
	dpr_ip6_link_local_from_mac(&r->ports[p].mac, ll);
	ret = dpr_route_link_local(rib, &r->addrs, (unsigned int)p, ll);
	if (ret < 0) {
		snprintf(err, len, "cannot add its link-local address: %s", strerror(-ret));
		goto fail;
	}
	ret = dpr_tap_open_port(r, (unsigned int)p, err, len);
	if (ret < 0)
		goto fail;
	if (r->ports[p].link_down)
		dpr_tap_link(r, (uint16_t)p, false);
	/* What its TAP joined; its addresses come with addr.add. */
	dpr_router_mcast_sync(r, (unsigned int)p);
	return p;
fail:
	/* Nothing was published: no grace period needed. */
	{
		struct dpr_prefix a = { .addr = { .af = DPR_AF_IP6 }, .len = 64 };
		struct dpr_route_op ops[3];
		unsigned int n;
		int e2;

		memcpy(a.addr.ip6, ll, 16);
		if (dpr_ifaddr_del(&r->addrs, (unsigned int)p, &a) == 0) {
			n = dpr_route_addr_ops(&a, 0, true, ops);
			/* The parent (or another port of the VRF) may have the
			 * same link-local address: its route stays then. */
			if (dpr_ifaddr_owner(&r->addrs, pc->vrf, &a.addr) < 0)
				dpr_route_apply(rib, ops, n, &e2);
		}
	}
	release_slot(r, (unsigned int)p);
	return ret;
}

void
dpr_router_in_stages_sync(struct dpr_router *r)
{
	/* A router without workers (a unit test's) has no port_dp. */
	if (r->port_dp != NULL)
		dpr_port_in_stages_sync(r->port_dp, r->n_ports,
					r->acl != NULL ? dpr_acl_db_binds(r->acl) : NULL);
}

int
dpr_vlan_publish(struct dpr_router *r, unsigned int p)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[p];
	struct dpr_port_dp *parent = &r->port_dp[pc->parent];
	uint8_t *map = (uint8_t *)(uintptr_t)parent->vlan_if;

	/* Every worker has left the loop in which it could read an old
	 * n_ports or an unfilled head[p]. */
	grace_period(r);
	if (map == NULL) {
		map = rte_zmalloc_socket("dpr_vlan_if", DPR_VLAN_MAP_SIZE, RTE_CACHE_LINE_SIZE,
					 r->ports[pc->parent].socket);
		if (map == NULL)
			return -ENOMEM;
		__atomic_store_n(&parent->vlan_if, map, __ATOMIC_RELEASE);
	}
	if (pc->outer_id != 0) {
		/* The QinQ map first: a worker that sees the VLAN map it
		 * may need for the first time sees this one too. */
		if (dpr_qinq_map_set(parent, pc->outer_id, pc->vlan_id, (uint8_t)(p + 1),
				     r->ports[pc->parent].socket,
				     dpr_port_vlan_strip(&r->ports[pc->parent])) < 0)
			return -ENOMEM;
		/* A port that had no VLAN map until now is split from now
		 * on (DPR_IN_VLAN), its QinQ frames first. */
		dpr_router_in_stages_sync(r);
		DPR_LOG(INFO, port, "QinQ interface %s: VLAN %u (%s) then %u on port %s, VRF %s (added)",
			pc->name, pc->outer_id, dpr_config_outer_proto_name(pc->outer_tpid),
			pc->vlan_id, r->cfg->ports[pc->parent].name, r->vrfs[pc->vrf].conf.name);
		return 0;
	}
	__atomic_store_n(&map[pc->vlan_id], (uint8_t)(p + 1), __ATOMIC_RELEASE);
	dpr_router_in_stages_sync(r);
	DPR_LOG(INFO, port, "VLAN interface %s: VLAN %u on port %s, VRF %s (added)", pc->name,
		pc->vlan_id, r->cfg->ports[pc->parent].name, r->vrfs[pc->vrf].conf.name);
	return 0;
}

/* Connected-subnet routes interface @p p's addresses imply: each holds a
 * reference on its connected next hop. */
static unsigned int
connected_routes(struct dpr_router *r, unsigned int p)
{
	struct dpr_prefix seen[DPR_IFADDR_MAX_PER_PORT];
	unsigned int n, k, i, j, n_seen = 0;
	const struct dpr_prefix *a = dpr_ifaddr_list(&r->addrs, p, &n);

	for (k = 0; k < n; k++) {
		struct dpr_route_op ops[3];
		unsigned int n_ops = dpr_route_addr_ops(&a[k], DPR_NH_NONE, false, ops);

		for (i = 0; i < n_ops; i++) {
			if (ops[i].nh != DPR_NH_NONE)
				continue;
			for (j = 0; j < n_seen && memcmp(&seen[j], &ops[i].prefix,
							 sizeof(seen[j])) != 0; j++)
				;
			if (j == n_seen && n_seen < RTE_DIM(seen))
				seen[n_seen++] = ops[i].prefix;
		}
	}
	return n_seen;
}

int
dpr_vlan_busy(struct dpr_router *r, unsigned int p, char *err, size_t len)
{
	struct dpr_rib *rib = dpr_router_port_rib(r, p);
	uint32_t idx, end = dpr_nh_index_end(r->nh);

	for (idx = DPR_NH_FIRST_DYNAMIC; idx < end; idx++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, idx);
		union dpr_nh_word w;
		uint32_t own;

		if (info == NULL)
			continue;
		w = dpr_nh_word_get(r->nh, idx);
		if (w.kind == DPR_NH_KIND_GROUP || w.port != p)
			continue;
		if (info->ip.af == 0) {
			/* Its connected next hop: held by its subnets' routes. */
			own = connected_routes(r, p);
			if (info->refcnt > own) {
				snprintf(err, len, "%u route(s) go out of it with no gateway (\"dev %s\"): delete them first (route list vrf %s)",
					 info->refcnt - own, r->cfg->ports[p].name,
					 r->vrfs[dpr_router_port_vrf(r, p)].conf.name);
				return -EBUSY;
			}
			continue;
		}
		/* A neighbour: its host route and static entry hold it. */
		own = r->neigh != NULL ? dpr_neigh_refs_held(r->neigh, idx) : 0;
		{
			struct dpr_prefix host = { .addr = info->ip,
						   .len = info->ip.af == DPR_AF_IP4 ? 32 : 128 };
			uint32_t nh;

			if (dpr_route_get(rib, &host, &nh) == 0 && nh == idx)
				own++;
		}
		if (info->refcnt > own) {
			char a[DPR_IP6_STRLEN];

			snprintf(err, len, "routes go through gateway %s on it%s: delete them first (route list vrf %s)",
				 dpr_ip_fmt(&info->ip, a, sizeof(a)),
				 info->groups > 0 ? " (a multipath route's member)" : "",
				 r->vrfs[dpr_router_port_vrf(r, p)].conf.name);
			return -EBUSY;
		}
	}
	return 0;
}

void
dpr_vlan_unpublish(struct dpr_router *r, unsigned int p)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[p];
	uint8_t *map = (uint8_t *)(uintptr_t)r->port_dp[pc->parent].vlan_if;

	if (pc->outer_id != 0)
		(void)dpr_qinq_map_set(&r->port_dp[pc->parent], pc->outer_id, pc->vlan_id, 0, 0,
				       false); /* clears: never allocates */
	else if (map != NULL)
		__atomic_store_n(&map[pc->vlan_id], 0, __ATOMIC_RELEASE);
	/* No worker is in a sub-burst of it any more. */
	grace_period(r);
}

void
dpr_vlan_close(struct dpr_router *r, unsigned int p)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[p];
	unsigned int port = (unsigned int)pc->parent;
	struct dpr_port_dp *parent = &r->port_dp[pc->parent];
	uint8_t *map = (uint8_t *)(uintptr_t)parent->vlan_if;
	uint32_t idx, end = dpr_nh_index_end(r->nh);
	unsigned int w, id;

	DPR_LOG(INFO, port, "VLAN interface %s: VLAN %u on port %s (deleted)", pc->name,
		pc->vlan_id, r->cfg->ports[pc->parent].name);
	/* Its neighbours (link-local ones too, which no subnet holds). */
	for (idx = DPR_NH_FIRST_DYNAMIC; r->neigh != NULL && idx < end; idx++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, idx);
		union dpr_nh_word wd;

		if (info == NULL || info->ip.af == 0)
			continue;
		wd = dpr_nh_word_get(r->nh, idx);
		if (wd.kind != DPR_NH_KIND_GROUP && wd.port == p) {
			struct dpr_ip ip = info->ip;

			dpr_neigh_del(r->neigh, &ip, (int)p);
		}
	}
	/* Packets held for neighbours that came in on it (or that dpr sends
	 * out of it) and resolutions asked on it: before release_slot()
	 * gives the slot the default VRF. */
	if (r->neigh != NULL)
		dpr_neigh_port_closed(r->neigh, (uint16_t)p);
	if (r->acl != NULL)
		dpr_acl_iface_gone(r->acl, p);
	dpr_tap_close_port(r, p);
	/* A port left with no VLAN interface is not demultiplexed any more,
	 * unless its device strips tags: then its map stays, empty, so that
	 * a tag the device took off is still seen (dpr_vlan_demux_burst()),
	 * or it has a QinQ map (which stays, qinq_dp.h, and needs it). */
	for (id = 0; map != NULL && id <= DPR_VLAN_ID_MAX && map[id] == 0; id++)
		;
	if (map != NULL && id > DPR_VLAN_ID_MAX && !dpr_port_vlan_strip(&r->ports[pc->parent]) &&
	    parent->qinq == NULL)
		__atomic_store_n(&parent->vlan_if, NULL, __ATOMIC_RELEASE);
	else
		map = NULL;
	dpr_router_in_stages_sync(r);
	/* Nothing routes to it now: after this, no worker queues a frame
	 * for it any more. */
	grace_period(r);
	rte_free(map);
	for (w = 0; w < r->n_workers; w++) {
		struct dpr_worker *wk = r->workers[w];

		/* What a worker queued before its report goes at the end of
		 * that loop (a report may come earlier in it, before the
		 * flush: dpr_ip4_pipeline()); then it counts nothing more on
		 * the slot. A loop or two of waiting. */
		while (__atomic_load_n(&wk->tx[p].n, __ATOMIC_ACQUIRE) != 0 &&
		       !__atomic_load_n(&wk->done, __ATOMIC_ACQUIRE))
			rte_pause();
		dpr_counters_add(&r->retired[w], &wk->stats[p]);
		memset(&wk->stats[p], 0, sizeof(wk->stats[p]));
	}
	/* Its counters start again from 0: an interface of the same name
	 * made later must not be held to the deleted one's. */
	if (r->acl != NULL)
		dpr_acl_iface_closed(r->acl, p);
	dpr_metrics_iface_gone(r->metrics, pc->name);
	dpr_capture_iface_gone(r, p);
	release_slot(r, p);
	/* Its groups (its TAP's) leave its port's filter. */
	dpr_router_mcast_sync(r, port);
}
