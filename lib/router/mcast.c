/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each port's multicast filter, kept to what its interfaces need
 * (dpr_mcast_groups() says what, dpr_port_mcast_set() puts it in the
 * device): recomputed when an address or a VLAN interface comes or goes,
 * and once a second for the groups the host stack joins on the TAPs
 * (an OSPF daemon's 224.0.0.5, MLD's, ...), which dpr learns of from
 * nobody: the kernel lists them in /proc/net/dev_mcast. Control thread
 * only; workers never see the filter.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "../util/log.h"
#include "router.h"

/* Groups kept of the TAPs, all together: the kernel holds half a dozen
 * on each, and a daemon a few more. */
#define MAX_JOINED 1024

struct joined {
	uint8_t port;               /**< the port whose device it is on */
	struct rte_ether_addr mac;
};

/* The port whose device interface slot @p q is on. */
static unsigned int
device_of(const struct dpr_router *r, unsigned int q)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[q];

	return pc->parent >= 0 ? (unsigned int)pc->parent : q;
}

/* The interface whose TAP is kernel interface @p ifname, or -1. */
static int
tap_owner(const struct dpr_router *r, const char *ifname)
{
	unsigned int q;

	for (q = 0; q < r->n_ports; q++)
		if (dpr_router_iface_used(r, q) && r->ports[q].has_tap &&
		    strcmp(r->cfg->ports[q].tap, ifname) == 0)
			return (int)q;
	return -1;
}

/*
 * The link-layer multicast addresses the kernel has on the TAPs, from
 * /proc/net/dev_mcast ("ifindex name users global-users hexaddress" a
 * line), into @p j. @return how many; none when the file cannot be read
 * (said once: the host stack's groups then stay out).
 */
static unsigned int
read_joined(const struct dpr_router *r, struct joined *j, unsigned int max)
{
	static bool said;
	char line[256], name[IF_NAMESIZE], hex[64];
	unsigned int n = 0;
	FILE *f;

	f = fopen("/proc/net/dev_mcast", "re");
	if (f == NULL) {
		if (!said)
			DPR_LOG(WARNING, port, "cannot read /proc/net/dev_mcast (%s): groups the host stack joins on the TAPs stay out of the ports' multicast lists",
				strerror(errno));
		said = true;
		return 0;
	}
	while (n < max && fgets(line, sizeof(line), f) != NULL) {
		struct rte_ether_addr *mac = &j[n].mac;
		int q;

		if (sscanf(line, "%*u %15s %*d %*d %63s", name, hex) != 2 || strlen(hex) != 12 ||
		    sscanf(hex, "%2hhx%2hhx%2hhx%2hhx%2hhx%2hhx", &mac->addr_bytes[0],
			   &mac->addr_bytes[1], &mac->addr_bytes[2], &mac->addr_bytes[3],
			   &mac->addr_bytes[4], &mac->addr_bytes[5]) != 6)
			continue;
		q = tap_owner(r, name);
		if (q < 0)
			continue;
		j[n].port = (uint8_t)device_of(r, (unsigned int)q);
		n++;
	}
	fclose(f);
	return n;
}

/* The ports of @p mask: their groups again, and into their devices where
 * they changed. */
static void
sync_ports(struct dpr_router *r, uint32_t mask)
{
	struct dpr_prefix addrs[DPR_MAX_PORTS * DPR_IFADDR_MAX_PER_PORT];
	struct rte_ether_addr macs[MAX_JOINED], groups[DPR_MCAST_MAX_GROUPS];
	struct joined j[MAX_JOINED];
	unsigned int n_j, p, q, k;

	RTE_BUILD_BUG_ON(DPR_MAX_PORTS > 32);
	n_j = read_joined(r, j, RTE_DIM(j));
	for (p = 0; p < r->cfg->n_phys; p++) {
		unsigned int n_addrs = 0, n_macs = 0;

		if (!(mask & (UINT32_C(1) << p)) || !r->ports[p].started)
			continue;
		/* Its own addresses and its VLAN interfaces': tagged or
		 * not, a frame passes the device's filter by its MAC. */
		for (q = 0; q < r->n_ports && q < r->addrs.n_ports; q++) {
			const struct dpr_prefix *a;
			unsigned int n;

			if (!dpr_router_iface_used(r, q) || device_of(r, q) != p)
				continue;
			a = dpr_ifaddr_list(&r->addrs, q, &n);
			memcpy(&addrs[n_addrs], a, n * sizeof(*a));
			n_addrs += n;
		}
		for (k = 0; k < n_j; k++)
			if (j[k].port == p)
				macs[n_macs++] = j[k].mac;
		dpr_port_mcast_set(&r->ports[p], groups,
				   dpr_mcast_groups(addrs, n_addrs, macs, n_macs, groups,
						    RTE_DIM(groups)));
	}
}

void
dpr_router_mcast_sync(struct dpr_router *r, unsigned int p)
{
	if (p < r->n_ports && r->cfg->ports[p].parent < (int)r->cfg->n_phys)
		sync_ports(r, UINT32_C(1) << device_of(r, p));
}

void
dpr_router_mcast_sync_all(struct dpr_router *r)
{
	sync_ports(r, UINT32_MAX);
}
