/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "ifaddr.h"

void
dpr_ifaddr_init(struct dpr_ifaddrs *t, unsigned int n_ports)
{
	memset(t, 0, sizeof(*t));
	t->n_ports = n_ports < DPR_IFADDR_MAX_PORTS ? n_ports : DPR_IFADDR_MAX_PORTS;
}

void
dpr_ifaddr_set_vrf(struct dpr_ifaddrs *t, unsigned int port, uint16_t vrf)
{
	if (port < t->n_ports)
		t->vrf[port] = vrf;
}

void
dpr_ifaddr_set_mtu(struct dpr_ifaddrs *t, unsigned int port, unsigned int mtu)
{
	if (port < DPR_IFADDR_MAX_PORTS)
		t->no_ip6[port] = !dpr_mtu_carries_ip6(mtu);
}

/* Do connected subnets @p a and @p b overlap? Link-local ones never count:
 * every link has fe80::/64. */
static bool
overlap(const struct dpr_prefix *a, const struct dpr_prefix *b)
{
	if (a->addr.af != b->addr.af || dpr_ip_is_link_local(&a->addr) ||
	    dpr_ip_is_link_local(&b->addr))
		return false;
	return dpr_prefix_contains(a, &b->addr) || dpr_prefix_contains(b, &a->addr);
}

/* Has port @p port a link-local address? */
static bool
has_link_local(const struct dpr_ifaddrs *t, unsigned int port)
{
	unsigned int k;

	for (k = 0; k < t->n[port]; k++)
		if (dpr_ip_is_link_local(&t->a[port][k].addr))
			return true;
	return false;
}

int
dpr_ifaddr_add(struct dpr_ifaddrs *t, unsigned int port, const struct dpr_prefix *a,
	       struct dpr_ifaddr_clash *clash)
{
	unsigned int p, k;

	if (port >= t->n_ports)
		return -ENODEV;
	if (a->addr.af == DPR_AF_IP6 && !dpr_ifaddr_ip6_on(t, port))
		return -EAFNOSUPPORT;
	for (k = 0; k < t->n[port]; k++) {
		if (dpr_ip_equal(&t->a[port][k].addr, &a->addr)) {
			if (clash != NULL)
				*clash = (struct dpr_ifaddr_clash){ port, k };
			return -EEXIST;
		}
	}
	/* Several addresses of one port may share a subnet; two ports of a
	 * VRF may not (which one would the connected route name?). */
	for (p = 0; p < t->n_ports; p++) {
		for (k = 0; p != port && t->vrf[p] == t->vrf[port] && k < t->n[p]; k++) {
			if (overlap(&t->a[p][k], a)) {
				if (clash != NULL)
					*clash = (struct dpr_ifaddr_clash){ p, k };
				return -EINVAL;
			}
		}
	}
	/* The last place is the link-local address's (ifaddr.h), unless the
	 * port has one already: then it may hold as many others as the
	 * config gave it. */
	if (t->n[port] == DPR_IFADDR_MAX_PER_PORT ||
	    (t->n[port] == DPR_IFADDR_MAX_PER_PORT - 1 && !dpr_ip_is_link_local(&a->addr) &&
	     !has_link_local(t, port)))
		return -ENOSPC;
	t->a[port][t->n[port]++] = *a;
	return 0;
}

int
dpr_ifaddr_del(struct dpr_ifaddrs *t, unsigned int port, const struct dpr_prefix *a)
{
	unsigned int k;

	for (k = 0; port < t->n_ports && k < t->n[port]; k++) {
		if (t->a[port][k].len == a->len && dpr_ip_equal(&t->a[port][k].addr, &a->addr)) {
			memmove(&t->a[port][k], &t->a[port][k + 1],
				(t->n[port] - k - 1) * sizeof(t->a[port][0]));
			t->n[port]--;
			return 0;
		}
	}
	return -ENOENT;
}

const struct dpr_prefix *
dpr_ifaddr_list(const struct dpr_ifaddrs *t, unsigned int port, unsigned int *n)
{
	*n = port < t->n_ports ? t->n[port] : 0;
	return port < t->n_ports ? t->a[port] : NULL;
}

bool
dpr_ifaddr_on(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *ip)
{
	unsigned int k;

	for (k = 0; port < t->n_ports && k < t->n[port]; k++)
		if (dpr_ip_equal(&t->a[port][k].addr, ip))
			return true;
	return false;
}

int
dpr_ifaddr_owner(const struct dpr_ifaddrs *t, uint16_t vrf, const struct dpr_ip *ip)
{
	unsigned int p;

	for (p = 0; p < t->n_ports; p++)
		if (t->vrf[p] == vrf && dpr_ifaddr_on(t, p, ip))
			return (int)p;
	return -1;
}

int
dpr_ifaddr_connected(const struct dpr_ifaddrs *t, uint16_t vrf, const struct dpr_ip *ip,
		     int port)
{
	unsigned int p, k;

	if (ip->af == DPR_AF_IP6 && port >= 0 && !dpr_ifaddr_ip6_on(t, (unsigned int)port))
		return -1;
	if (dpr_ip_is_link_local(ip))
		return port < (int)t->n_ports ? port : -1;
	for (p = 0; p < t->n_ports; p++) {
		if (port >= 0 ? (int)p != port : t->vrf[p] != vrf)
			continue;
		for (k = 0; k < t->n[p]; k++)
			if (dpr_prefix_contains(&t->a[p][k], ip))
				return (int)p;
	}
	return -1;
}

bool
dpr_ifaddr_same_subnet(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *a,
		       const struct dpr_ip *b)
{
	unsigned int k;

	for (k = 0; port < t->n_ports && k < t->n[port]; k++)
		if (dpr_prefix_contains(&t->a[port][k], a) && dpr_prefix_contains(&t->a[port][k], b))
			return true;
	return false;
}

/* The subnet-router anycast address of @p a, if it has one, in *@p any. */
static bool
anycast_of(const struct dpr_prefix *a, struct dpr_ip *any)
{
	struct dpr_prefix net = *a;

	if (a->addr.af != DPR_AF_IP6 || a->len >= 127 || dpr_ip_is_link_local(&a->addr))
		return false;
	dpr_prefix_mask(&net);
	*any = net.addr;
	return true;
}

bool
dpr_ifaddr_anycast_on(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *ip)
{
	struct dpr_ip any;
	unsigned int k;

	for (k = 0; port < t->n_ports && k < t->n[port]; k++)
		if (anycast_of(&t->a[port][k], &any) && dpr_ip_equal(&any, ip))
			return true;
	return false;
}

const char *
dpr_ifaddr_not_a_neighbour(const struct dpr_ifaddrs *t, uint16_t vrf, const struct dpr_ip *ip,
			   int port)
{
	unsigned int p, k;

	if (ip->af == DPR_AF_IP6 && ip->ip6[0] == 0xff)
		return "a multicast address";
	if (port >= 0 && dpr_ip_is_link_local(ip))
		return dpr_ifaddr_on(t, (unsigned int)port, ip) ? "the router's own address" : NULL;
	for (p = 0; p < t->n_ports; p++) {
		for (k = 0; t->vrf[p] == vrf && k < t->n[p]; k++) {
			const struct dpr_prefix *a = &t->a[p][k];
			struct dpr_ip any;

			if (dpr_ip_equal(&a->addr, ip))
				return "the router's own address";
			if (!dpr_prefix_contains(a, ip))
				continue;
			if (ip->af == DPR_AF_IP4 && a->len < 31 &&
			    ((ip->ip4 & ~dpr_ip4_mask(a->len)) == 0 ||
			     (ip->ip4 | dpr_ip4_mask(a->len)) == UINT32_MAX))
				return "the subnet's network or broadcast address";
			if (anycast_of(a, &any) && dpr_ip_equal(&any, ip))
				return "the subnet-router anycast address";
		}
	}
	return NULL;
}

/* A global address of @p port of family @p af: on @p peer's subnet if any
 * is, else the first; NULL if none. */
static const struct dpr_prefix *
global_on(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *peer)
{
	const struct dpr_prefix *first = NULL;
	unsigned int k;

	for (k = 0; k < t->n[port]; k++) {
		const struct dpr_prefix *a = &t->a[port][k];

		if (a->addr.af != peer->af || dpr_ip_is_link_local(&a->addr))
			continue;
		if (dpr_prefix_contains(a, peer))
			return a;
		if (first == NULL)
			first = a;
	}
	return first;
}

int
dpr_ifaddr_source(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *peer,
		  struct dpr_ip *out)
{
	const struct dpr_prefix *a = NULL;
	unsigned int p, k;

	if (port >= t->n_ports)
		return -ENOENT;
	if (!dpr_ip_is_link_local(peer)) {
		a = global_on(t, port, peer);
		for (p = 0; a == NULL && p < t->n_ports; p++)
			if (t->vrf[p] == t->vrf[port])
				a = global_on(t, p, peer);
	}
	/* IPv6 only: an IPv4 peer has no link-local source here. */
	for (k = 0; a == NULL && peer->af == DPR_AF_IP6 && k < t->n[port]; k++)
		if (dpr_ip_is_link_local(&t->a[port][k].addr))
			a = &t->a[port][k];
	if (a == NULL)
		return -ENOENT;
	*out = a->addr;
	return 0;
}
