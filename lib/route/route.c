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
	for (; i < n; i++)
		if (!ops[i].del)
			dpr_nh_put(nh, ops[i].nh);
	return done;
}

struct batch {
	struct dpr_fib4_op *ops;
	unsigned int n;
	unsigned int cap;
};

static int
push(struct batch *b, uint32_t ip, uint8_t depth, int nh)
{
	if (nh < 0)
		return nh;
	if (b->n == b->cap) {
		unsigned int cap = b->cap ? b->cap * 2 : 64;
		struct dpr_fib4_op *ops = realloc(b->ops, cap * sizeof(*ops));

		if (ops == NULL)
			return -ENOMEM;
		b->ops = ops;
		b->cap = cap;
	}
	b->ops[b->n++] = (struct dpr_fib4_op){
		.ip = ip & dpr_ip4_mask(depth), .depth = depth, .nh = (uint32_t)nh,
	};
	return 0;
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

static bool
is_own_address(const struct dpr_config *cfg, uint32_t ip)
{
	unsigned int p, a;

	for (p = 0; p < cfg->n_ports; p++)
		for (a = 0; a < cfg->ports[p].n_addrs; a++)
			if (cfg->ports[p].addrs[a].addr.af == DPR_AF_IP4 &&
			    cfg->ports[p].addrs[a].addr.ip4 == ip)
				return true;
	return false;
}

int
dpr_route_install_config(struct dpr_fib4 *fib, struct dpr_nh_table *nh,
			 const struct dpr_config *cfg, char *err, size_t err_len)
{
	struct batch b = { 0 };
	unsigned int p, a, i, done;
	int ret = 0;

	for (p = 0; p < cfg->n_ports && ret == 0; p++) {
		for (a = 0; a < cfg->ports[p].n_addrs && ret == 0; a++) {
			const struct dpr_prefix *pf = &cfg->ports[p].addrs[a];
			struct dpr_fib4_op ops[3];
			unsigned int k, n;
			int conn;

			if (pf->addr.af != DPR_AF_IP4)
				continue; /* IPv6 forwarding is not there yet */
			conn = pf->len < 32 ? dpr_nh_connected(nh, (uint8_t)p) : 0;
			if (conn < 0) {
				ret = conn;
				break;
			}
			n = dpr_route4_addr_ops(pf, (uint32_t)conn, false, ops);
			for (k = 0; k < n && ret == 0; k++)
				ret = push(&b, ops[k].ip, ops[k].depth, (int)ops[k].nh);
		}
	}
	for (i = 0; i < cfg->n_neighs && ret == 0; i++) {
		const struct dpr_neigh_conf *nc = &cfg->neighs[i];
		int idx;

		if (nc->addr.af != DPR_AF_IP4)
			continue;
		if (is_own_address(cfg, nc->addr.ip4)) {
			snprintf(err, err_len, "config: neighbors[%u]: address is the router's own", i);
			ret = -EINVAL;
			break;
		}
		idx = dpr_nh_get(nh, &nc->addr, (uint8_t)nc->port);
		if (idx >= 0)
			dpr_nh_resolve(nh, (uint32_t)idx, (uint8_t)nc->port, &nc->mac, true);
		ret = push(&b, nc->addr.ip4, 32, idx);
	}
	for (i = 0; i < cfg->n_routes && ret == 0; i++) {
		const struct dpr_route_conf *rc = &cfg->routes[i];
		int idx;

		if (rc->has_via)
			idx = dpr_nh_get(nh, &rc->via, (uint8_t)rc->port);
		else
			idx = dpr_nh_connected(nh, (uint8_t)rc->port);
		ret = push(&b, rc->prefix.addr.ip4, rc->prefix.len, idx);
	}

	if (ret < 0) {
		if (ret != -EINVAL)
			snprintf(err, err_len, "routes: cannot install the configured routes: %s",
				 strerror(-ret));
		for (i = 0; i < b.n; i++)
			dpr_nh_put(nh, b.ops[i].nh);
		free(b.ops);
		return ret;
	}

	done = dpr_route4_apply(fib, nh, b.ops, b.n, &ret);
	if (done < b.n)
		snprintf(err, err_len, "routes: installed %u of %u routes from the config: %s (raise fib.ipv4_max_routes or fib.ipv4_tbl8_groups)",
			 done, b.n, strerror(-ret));
	else
		DPR_LOG(INFO, fib, "installed %u IPv4 routes from %s (connected, local, neighbours, static)",
			b.n, cfg->path);
	free(b.ops);
	return done < b.n ? ret : 0;
}
