/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "../datapath/datapath.h"
#include "mcast.h"

/* IPv4 all-systems and all-routers (224.0.0.1, .2), IPv6 all-nodes and
 * all-routers (ff02::1, ::2): RFC 1112 6.4 and RFC 2464 7 map them. */
static const struct rte_ether_addr fixed_groups[] = {
	{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } },
	{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x02 } },
	{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
	{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x02 } },
};

void
dpr_mcast_solicited_mac(const uint8_t ip6[16], struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	mac->addr_bytes[2] = 0xff;
	memcpy(&mac->addr_bytes[3], &ip6[13], 3);
}

/* Put @p g in sorted set @p out of *@p n (room for @p max), unless there. */
static int
set_add(struct rte_ether_addr *out, unsigned int *n, unsigned int max,
	const struct rte_ether_addr *g)
{
	unsigned int lo = 0, hi = *n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		int c = memcmp(&out[mid], g, sizeof(*g));

		if (c == 0)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (*n == max)
		return -ENOSPC;
	memmove(&out[lo + 1], &out[lo], (*n - lo) * sizeof(*out));
	out[lo] = *g;
	(*n)++;
	return 0;
}

int
dpr_mcast_groups(const struct dpr_prefix *addrs, unsigned int n_addrs,
		 const struct rte_ether_addr *joined, unsigned int n_joined,
		 struct rte_ether_addr *out, unsigned int max)
{
	struct rte_ether_addr g;
	unsigned int n = 0, k;
	int ret = 0;

	for (k = 0; k < DPR_L2_CONTROL_GROUPS && ret == 0; k++)
		ret = set_add(out, &n, max, &dpr_l2_control_groups[k]);
	for (k = 0; k < RTE_DIM(fixed_groups) && ret == 0; k++)
		ret = set_add(out, &n, max, &fixed_groups[k]);
	for (k = 0; k < n_addrs && ret == 0; k++) {
		struct dpr_prefix net = addrs[k];

		if (addrs[k].addr.af != DPR_AF_IP6)
			continue;
		dpr_mcast_solicited_mac(addrs[k].addr.ip6, &g);
		ret = set_add(out, &n, max, &g);
		/* The subnet's Subnet-Router anycast address, which the
		 * router answers for (RFC 4291 2.6.1; dpr_ifaddr_anycast_on()
		 * says which subnets have one): its solicited-node group
		 * too (RFC 4291 2.8), or hosts' solicitations for it stop
		 * at the NIC. */
		if (ret < 0 || net.len >= 127 || dpr_ip_is_link_local(&net.addr))
			continue;
		dpr_prefix_mask(&net);
		dpr_mcast_solicited_mac(net.addr.ip6, &g);
		ret = set_add(out, &n, max, &g);
	}
	/* The kernel lists unicast and broadcast nowhere here, but a
	 * device's list takes multicast only. */
	for (k = 0; k < n_joined && ret == 0; k++)
		if (rte_is_multicast_ether_addr(&joined[k]) &&
		    !rte_is_broadcast_ether_addr(&joined[k]))
			ret = set_add(out, &n, max, &joined[k]);
	return ret < 0 ? ret : (int)n;
}
