/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "../util/log.h"
#include "route.h"

unsigned int
dpr_route4_apply(struct dpr_fib4 *fib, struct dpr_nh_table *nh,
		 struct dpr_fib4_op *ops, unsigned int n, int *err)
{
	unsigned int i, done;

	done = dpr_fib4_update(fib, ops, n, err);
	/* dpr_fib4_update() has waited a grace period: no worker still holds
	 * a lookup result pointing at the old next hops. */
	for (i = 0; i < done; i++)
		if (ops[i].existed)
			dpr_nh_put(nh, ops[i].old_nh);
	return done;
}

unsigned int
dpr_route4_addr_ops(const struct dpr_prefix *a, uint32_t connected, bool del,
		    struct dpr_fib4_op ops[3])
{
	uint32_t ip = a->addr.ip4;
	unsigned int n = 0;

	if (a->addr.af != DPR_AF_IP4)
		return 0;
	/* The subnet is on the wire; the address and the subnet broadcast
	 * are for the router itself (a /31 has no broadcast, RFC 3021). */
	if (a->len < 32)
		ops[n++] = (struct dpr_fib4_op){ .ip = ip & dpr_ip4_mask(a->len), .depth = a->len,
						 .del = del, .nh = del ? 0 : connected };
	ops[n++] = (struct dpr_fib4_op){ .ip = ip, .depth = 32, .del = del, .nh = DPR_NH_LOCAL };
	if (a->len < 31)
		ops[n++] = (struct dpr_fib4_op){ .ip = ip | ~dpr_ip4_mask(a->len), .depth = 32,
						 .del = del, .nh = DPR_NH_BCAST };
	return n;
}

/* --- both families ------------------------------------------------------- */

/* One family's run of ops through its FIB; references of the applied ops
 * settled as dpr_route4_apply() does, those of the others left to the caller. */
static unsigned int
apply_run4(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n, int *err)
{
	struct dpr_fib4_op *f = malloc(n * sizeof(*f));
	unsigned int i, done;

	if (f == NULL) {
		*err = -ENOMEM;
		return 0;
	}
	for (i = 0; i < n; i++)
		f[i] = (struct dpr_fib4_op){ .ip = ops[i].prefix.addr.ip4, .depth = ops[i].prefix.len,
					     .del = ops[i].del, .nh = ops[i].nh };
	done = dpr_fib4_update(rib->fib4, f, n, err);
	for (i = 0; i < done; i++) {
		ops[i].existed = f[i].existed;
		ops[i].old_nh = f[i].old_nh;
	}
	free(f);
	return done;
}

static unsigned int
apply_run6(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n, int *err)
{
	struct dpr_fib6_op *f;
	unsigned int i, done;

	if (rib->fib6 == NULL) {
		*err = -EAFNOSUPPORT;
		return 0;
	}
	f = malloc(n * sizeof(*f));
	if (f == NULL) {
		*err = -ENOMEM;
		return 0;
	}
	for (i = 0; i < n; i++) {
		f[i] = (struct dpr_fib6_op){ .depth = ops[i].prefix.len, .del = ops[i].del,
					     .nh = ops[i].nh };
		memcpy(f[i].ip, ops[i].prefix.addr.ip6, sizeof(f[i].ip));
	}
	done = dpr_fib6_update(rib->fib6, f, n, err);
	for (i = 0; i < done; i++) {
		ops[i].existed = f[i].existed;
		ops[i].old_nh = f[i].old_nh;
	}
	free(f);
	return done;
}

unsigned int
dpr_route_fib_apply(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n, int *err)
{
	unsigned int i = 0, j, k, done;

	while (i < n) {
		enum dpr_af af = ops[i].prefix.addr.af;

		for (j = i + 1; j < n && ops[j].prefix.addr.af == af; j++)
			;
		if (af == DPR_AF_IP4) {
			done = apply_run4(rib, &ops[i], j - i, err);
		} else if (af == DPR_AF_IP6) {
			done = apply_run6(rib, &ops[i], j - i, err);
		} else {
			*err = -EAFNOSUPPORT;
			done = 0;
		}
		/* The FIB has waited a grace period if it had to: no worker
		 * still holds a lookup result pointing at the old next hops. */
		for (k = i; k < i + done; k++)
			if (ops[k].existed)
				dpr_nh_put(rib->nh, ops[k].old_nh);
		i += done;
		if (i < j)
			break;
	}
	/* What was not applied keeps its reference: the caller's. */
	return i;
}

unsigned int
dpr_route_apply(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n, int *err)
{
	if (rib->srcs != NULL)
		return dpr_route_src_router_apply(rib, ops, n, err);
	return dpr_route_fib_apply(rib, ops, n, err);
}

int
dpr_route_get(const struct dpr_rib *rib, const struct dpr_prefix *pf, uint32_t *nh)
{
	if (pf->addr.af == DPR_AF_IP4)
		return dpr_fib4_get(rib->fib4, pf->addr.ip4, pf->len, nh);
	if (pf->addr.af == DPR_AF_IP6 && rib->fib6 != NULL)
		return dpr_fib6_get(rib->fib6, pf->addr.ip6, pf->len, nh);
	return -ENOENT;
}

int
dpr_route_lpm(const struct dpr_rib *rib, const struct dpr_ip *ip, struct dpr_prefix *pf,
	      uint32_t *nh)
{
	memset(pf, 0, sizeof(*pf));
	pf->addr.af = ip->af;
	if (ip->af == DPR_AF_IP4)
		return dpr_fib4_lpm(rib->fib4, ip->ip4, &pf->addr.ip4, &pf->len, nh);
	if (ip->af == DPR_AF_IP6 && rib->fib6 != NULL)
		return dpr_fib6_lpm(rib->fib6, ip->ip6, pf->addr.ip6, &pf->len, nh);
	return -ENOENT;
}

unsigned int
dpr_route_addr_ops(const struct dpr_prefix *a, uint32_t connected, bool del,
		   struct dpr_route_op ops[3])
{
	struct dpr_fib4_op f[3];
	unsigned int i, n = 0;

	if (a->addr.af == DPR_AF_IP4) {
		n = dpr_route4_addr_ops(a, connected, del, f);
		for (i = 0; i < n; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].prefix.addr.af = DPR_AF_IP4;
			ops[i].prefix.addr.ip4 = f[i].ip;
			ops[i].prefix.len = f[i].depth;
			ops[i].del = f[i].del;
			ops[i].nh = f[i].nh;
		}
		return n;
	}
	if (a->addr.af != DPR_AF_IP6)
		return 0;
	/* The subnet is on the wire, the address is the router's; IPv6 has
	 * no broadcast (RFC 4291 2). Every port is on fe80::/64, so a
	 * link-local address implies no route to its subnet: which port
	 * would it name? (RFC 4291 2.5.6: never forwarded anyway.) */
	if (a->len < 128 && !dpr_ip_is_link_local(&a->addr)) {
		memset(&ops[n], 0, sizeof(ops[n]));
		ops[n].prefix = *a;
		dpr_prefix_mask(&ops[n].prefix);
		ops[n].del = del;
		ops[n].nh = del ? 0 : connected;
		n++;
	}
	memset(&ops[n], 0, sizeof(ops[n]));
	ops[n].prefix.addr = a->addr;
	ops[n].prefix.len = 128;
	ops[n].del = del;
	ops[n].nh = DPR_NH_LOCAL;
	n++;
	/* The subnet-router anycast address (the subnet with a zero
	 * interface identifier) is the router's too: RFC 4291 2.6.1 requires
	 * routers to answer it. Not on a /127 (RFC 6164 6) or a /128. */
	if (a->len < 127 && !dpr_ip_is_link_local(&a->addr)) {
		struct dpr_prefix any = *a;

		dpr_prefix_mask(&any);
		if (!dpr_ip_equal(&any.addr, &a->addr)) {
			memset(&ops[n], 0, sizeof(ops[n]));
			ops[n].prefix.addr = any.addr;
			ops[n].prefix.len = 128;
			ops[n].del = del;
			ops[n].nh = DPR_NH_LOCAL;
			n++;
		}
	}
	return n;
}

/* --- the config ---------------------------------------------------------- */

struct batch {
	struct dpr_route_op *ops;
	unsigned int n;
	unsigned int cap;
};

/*
 * Add route @p pf to next hop @p nh (a reference, or a negative errno) to
 * @p b; a reference that finds no room is dropped.
 */
static int
push(struct batch *b, struct dpr_nh_table *t, const struct dpr_prefix *pf, int nh)
{
	if (nh < 0)
		return nh;
	if (b->n == b->cap) {
		unsigned int cap = b->cap ? b->cap * 2 : 64;
		struct dpr_route_op *ops = realloc(b->ops, cap * sizeof(*ops));

		if (ops == NULL) {
			dpr_nh_put(t, (uint32_t)nh);
			return -ENOMEM;
		}
		b->ops = ops;
		b->cap = cap;
	}
	memset(&b->ops[b->n], 0, sizeof(b->ops[b->n]));
	b->ops[b->n].prefix = *pf;
	dpr_prefix_mask(&b->ops[b->n].prefix);
	b->ops[b->n].nh = (uint32_t)nh;
	b->n++;
	return 0;
}

int
dpr_route_link_local(struct dpr_rib *rib, struct dpr_ifaddrs *addrs, unsigned int port,
		     const uint8_t ll[16])
{
	struct dpr_prefix a = { .addr = { .af = DPR_AF_IP6 }, .len = 64 };
	struct dpr_route_op ops[3];
	unsigned int n;
	int err;

	memcpy(a.addr.ip6, ll, 16);
	err = dpr_ifaddr_add(addrs, port, &a, NULL);
	if (err == -EEXIST || err == -EAFNOSUPPORT)
		return 0; /* configured as such; no IPv6 on the port (RFC 8200 5) */
	if (err < 0)
		return err;
	n = dpr_route_addr_ops(&a, 0, false, ops);
	if (dpr_route_apply(rib, ops, n, &err) != n) {
		dpr_ifaddr_del(addrs, port, &a);
		return err;
	}
	return 0;
}

const char *
dpr_route_never_forwarded(const struct dpr_prefix *pf)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff }, zero[15];
	const uint8_t *a = pf->addr.ip6;
	uint8_t d = (uint8_t)(pf->addr.ip4 >> 24);

	if (pf->addr.af == DPR_AF_IP4) {
		if (pf->len >= 8 && d == 0)
			return "\"this network\" 0.0.0.0/8 (RFC 1812 5.3.7)";
		if (pf->len >= 8 && d == 127)
			return "loopback 127.0.0.0/8 (RFC 1812 5.3.7)";
		if (pf->len >= 4 && d >= 224 && d < 240)
			return "multicast 224.0.0.0/4, the router's to receive";
		if (pf->len >= 4 && d >= 240)
			return "class E 240.0.0.0/4 (RFC 1812 5.3.7) or the broadcast address";
		if (pf->len >= 3 && d >= 224)
			return "multicast and class E 224.0.0.0/3";
		return NULL;
	}
	if (pf->len >= 8 && a[0] == 0xff)
		return "multicast ff00::/8, the router's to receive (RFC 4291 2.7)";
	if (pf->len >= 96 && memcmp(a, mapped, sizeof(mapped)) == 0)
		return "IPv4-mapped ::ffff:0:0/96 (RFC 6890)";
	if (pf->len == 128 && memcmp(a, zero, sizeof(zero)) == 0 && a[15] <= 1)
		return "the unspecified or loopback address (RFC 4291 2.5.2, 2.5.3)";
	return NULL;
}

enum dpr_route_owner_kind
dpr_route_owned(const struct dpr_ifaddrs *t, uint16_t vrf, const struct dpr_prefix *pf,
		unsigned int *port, struct dpr_prefix *addr)
{
	unsigned int p, k, i, n, na;

	for (p = 0; p < t->n_ports; p++) {
		const struct dpr_prefix *a = dpr_ifaddr_list(t, p, &na);

		if (t->vrf[p] != vrf)
			continue;
		for (k = 0; k < na; k++) {
			struct dpr_route_op ops[3];

			if (a[k].addr.af != pf->addr.af)
				continue;
			n = dpr_route_addr_ops(&a[k], 0, true, ops);
			for (i = 0; i < n; i++) {
				if (ops[i].prefix.len != pf->len ||
				    !dpr_ip_equal(&ops[i].prefix.addr, &pf->addr))
					continue;
				*port = p;
				*addr = a[k];
				return ops[i].nh == DPR_NH_LOCAL ? DPR_ROUTE_OWN_ADDRESS :
				       ops[i].nh == DPR_NH_BCAST ? DPR_ROUTE_OWN_BCAST :
				       DPR_ROUTE_OWN_SUBNET;
			}
		}
	}
	return DPR_ROUTE_NOT_OWNED;
}

/*
 * The next hop of multipath route @p rc: the group of its gateways (one
 * gateway alone is no group), with a reference taken, as route.add takes
 * one (lib/api/methods.c).
 * @return its index, or a negative errno (dpr_nh_get(), dpr_nh_group_get()).
 */
static int
config_group(struct dpr_nh_table *nh, const struct dpr_route_conf *rc)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t weights[DPR_NH_GROUP_MEMBERS];
	unsigned int i, k = 0;
	int idx = 0;

	for (i = 0; i < rc->n_nexthops && idx >= 0; i++) {
		idx = dpr_nh_get(nh, &rc->nexthops[i].via, (uint8_t)rc->nexthops[i].port);
		if (idx >= 0) {
			members[k] = (uint32_t)idx;
			weights[k++] = rc->nexthops[i].weight;
		}
	}
	if (idx >= 0)
		return dpr_nh_group_take(nh, members, weights, k);
	for (i = 0; i < k; i++)
		dpr_nh_put(nh, members[i]);
	return idx;
}

/* The routes of family @p af the config implies, into @p b. */
static int
config_ops(struct dpr_rib *rib, const struct dpr_config *cfg, const struct dpr_ifaddrs *addrs,
	   enum dpr_af af, struct batch *b, struct batch *st, char *err, size_t err_len)
{
	struct dpr_nh_table *nh = rib->nh;
	unsigned int p, a, i, na;
	int ret = 0;

	for (p = 0; p < addrs->n_ports && ret == 0; p++) {
		const struct dpr_prefix *list = dpr_ifaddr_list(addrs, p, &na);

		for (a = 0; addrs->vrf[p] == rib->vrf && a < na && ret == 0; a++) {
			const struct dpr_prefix *pf = &list[a];
			struct dpr_route_op ops[3];
			unsigned int k, n;

			/* The same link-local address on two ports is one
			 * local route. */
			if (pf->addr.af != af || dpr_ifaddr_owner(addrs, rib->vrf, &pf->addr) < (int)p)
				continue;
			n = dpr_route_addr_ops(pf, 0, false, ops);
			/* Only the connected subnet takes a reference. */
			for (k = 0; k < n && ret == 0; k++) {
				int to = ops[k].nh != DPR_NH_NONE ? (int)ops[k].nh :
					 dpr_nh_connected(nh, (uint8_t)p);

				ret = push(b, nh, &ops[k].prefix, to);
			}
		}
	}
	for (i = 0; i < cfg->n_neighs && ret == 0; i++) {
		const struct dpr_neigh_conf *nc = &cfg->neighs[i];
		struct dpr_prefix host = { .addr = nc->addr, .len = af == DPR_AF_IP4 ? 32 : 128 };
		int idx;

		if (nc->addr.af != af || addrs->vrf[nc->port] != rib->vrf)
			continue;
		/* A link-local one is ours only on its own link (RFC 4007 6). */
		if (dpr_ip_is_link_local(&nc->addr) ?
			    dpr_ifaddr_on(addrs, nc->port, &nc->addr) :
			    dpr_ifaddr_owner(addrs, rib->vrf, &nc->addr) >= 0) {
			snprintf(err, err_len, "config: neighbors[%u]: address is the router's own", i);
			return -EINVAL;
		}
		idx = dpr_nh_get(nh, &nc->addr, (uint8_t)nc->port);
		if (idx >= 0)
			dpr_nh_resolve(nh, (uint32_t)idx, (uint8_t)nc->port, &nc->mac, true);
		/* A link-local neighbour has no host route (its address
		 * names it on its own link only): the next hop keeps the
		 * reference as the static entry's. */
		if (idx >= 0 && dpr_ip_is_link_local(&nc->addr))
			continue;
		ret = push(b, nh, &host, idx);
	}
	for (i = 0; i < cfg->n_routes && ret == 0; i++) {
		const struct dpr_route_conf *rc = &cfg->routes[i];
		int idx;

		if (rc->prefix.addr.af != af || rc->vrf != rib->vrf)
			continue;
		if (rc->n_nexthops > 0)
			idx = config_group(nh, rc);
		else if (rc->has_via)
			idx = dpr_nh_get(nh, &rc->via, (uint8_t)rc->port);
		else
			idx = dpr_nh_connected(nh, (uint8_t)rc->port);
		if (idx < 0 && rc->n_nexthops > 1 && dpr_nh_group_count(nh) >= DPR_NH_GROUPS_MAX) {
			snprintf(err, err_len, "routes: routes[%u] in %s: every one of the %u multipath groups is in use (routes with distinct sets of next hops); give fewer distinct \"nexthops\" sets",
				 i, cfg->path, DPR_NH_GROUPS_MAX);
			return idx;
		}
		/* Static routes are source "config" (source.h) where there
		 * are sources: after the router's own, which they may not
		 * replace. */
		ret = push(rib->srcs != NULL ? st : b, nh, &rc->prefix, idx);
	}
	if (ret < 0 && ret != -EINVAL)
		snprintf(err, err_len, "routes: cannot install the configured routes: %s",
			 strerror(-ret));
	return ret;
}

/* Source "config": the static routes in @p st, after the router's own. */
static int
install_static(struct dpr_rib *rib, const struct dpr_config *cfg, struct batch *st, char *err,
	       size_t err_len)
{
	struct dpr_src_op *ops;
	char a[DPR_PREFIX_STRLEN];
	unsigned int i, ok;

	if (st->n == 0)
		return 0;
	ops = calloc(st->n, sizeof(*ops));
	if (ops == NULL) {
		for (i = 0; i < st->n; i++)
			dpr_nh_put(rib->nh, st->ops[i].nh);
		snprintf(err, err_len, "routes: cannot install the configured routes: %s",
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < st->n; i++)
		ops[i] = (struct dpr_src_op){ .prefix = st->ops[i].prefix, .nh = st->ops[i].nh };
	ok = dpr_route_src_apply(rib, DPR_RSRC_CONFIG, ops, st->n);
	for (i = 0; ok < st->n && i < st->n; i++) {
		int r = ops[i].result;

		if (r == 0)
			continue;
		dpr_prefix_fmt(&ops[i].prefix, a, sizeof(a));
		if (r == -EPERM)
			snprintf(err, err_len, "routes: %s in %s is a route the router's addresses or neighbours own (its subnet, address or host route): remove it from \"routes\"",
				 a, cfg->path);
		else
			snprintf(err, err_len, "routes: %s: %s (raise fib.ipv4_max_routes/ipv6_max_routes, or with DIR-24-8 the tbl8 groups)",
				 a, strerror(-r));
		free(ops);
		return r;
	}
	free(ops);
	return 0;
}

int
dpr_route_install_config(struct dpr_rib *rib, const struct dpr_config *cfg,
			 const struct dpr_ifaddrs *addrs, char *err, size_t err_len)
{
	struct batch b = { 0 }, st = { 0 };
	unsigned int i, done, n4;
	int ret;

	/* One batch per family, IPv4 first: one FIB update each. */
	ret = config_ops(rib, cfg, addrs, DPR_AF_IP4, &b, &st, err, err_len);
	n4 = b.n;
	if (ret == 0 && rib->fib6 != NULL)
		ret = config_ops(rib, cfg, addrs, DPR_AF_IP6, &b, &st, err, err_len);
	if (ret < 0) {
		for (i = 0; i < b.n; i++)
			dpr_nh_put(rib->nh, b.ops[i].nh);
		for (i = 0; i < st.n; i++)
			dpr_nh_put(rib->nh, st.ops[i].nh);
		free(b.ops);
		free(st.ops);
		return ret;
	}

	done = dpr_route_apply(rib, b.ops, b.n, &ret);
	if (done < b.n) {
		const char *fam = b.ops[done].prefix.addr.af == DPR_AF_IP4 ? "ipv4" : "ipv6";

		snprintf(err, err_len, "routes: installed %u of %u routes from the config: %s (raise fib.%s_max_routes or fib.%s_tbl8_groups)",
			 done, b.n, strerror(-ret), fam, fam);
		for (i = done; i < b.n; i++)
			dpr_nh_put(rib->nh, b.ops[i].nh);
		for (i = 0; i < st.n; i++)
			dpr_nh_put(rib->nh, st.ops[i].nh);
	} else {
		ret = install_static(rib, cfg, &st, err, err_len);
		if (ret == 0)
			DPR_LOG(INFO, fib, "installed %u IPv4 and %u IPv6 routes from %s (connected, local, neighbours%s) and %u static routes as source config",
				n4, b.n - n4, cfg->path, rib->srcs != NULL ? "" : ", static", st.n);
	}
	free(b.ops);
	free(st.ops);
	return done < b.n || ret < 0 ? ret : 0;
}
