/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rte_dev.h>
#include <rte_ethdev.h>

#include "../acl/acl.h"
#include "../datapath/qinq_dp.h"
#include "../datapath/vlan_dp.h"
#include "../kernel/kvrf.h"
#include "../util/log.h"
#include "tap.h"

#define TAP_BURST 32

/* RTM_NEWADDR / RTM_DELADDR for one address on interface @p ifname. */
static int
netlink_addr(const char *ifname, const struct dpr_prefix *a, bool add)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		char attrs[64];
	} req;
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned int ifindex = if_nametoindex(ifname);
	size_t alen = a->addr.af == DPR_AF_IP4 ? 4 : 16;
	struct rtattr *rta;
	uint32_t ip4;
	int fd, ret;

	if (ifindex == 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	req.nh.nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = a->addr.af == DPR_AF_IP4 ? AF_INET : AF_INET6;
	req.ifa.ifa_prefixlen = a->len;
	req.ifa.ifa_index = ifindex;
	req.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	/* dpr answers neighbour solicitations and detects duplicates for
	 * the port (exception6.c): the kernel's own duplicate address
	 * detection would hold the address back, and speak for it. */
	if (a->addr.af == DPR_AF_IP6) {
		req.ifa.ifa_flags = IFA_F_NODAD;
		if (a->addr.ip6[0] == 0xfe && (a->addr.ip6[1] & 0xc0) == 0x80)
			req.ifa.ifa_scope = RT_SCOPE_LINK;
	}
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = IFA_LOCAL;
	rta->rta_len = (unsigned short)RTA_LENGTH(alen);
	if (a->addr.af == DPR_AF_IP4) {
		ip4 = htonl(a->addr.ip4);
		memcpy(RTA_DATA(rta), &ip4, 4);
	} else {
		memcpy(RTA_DATA(rta), a->addr.ip6, 16);
	}
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	/* IPv6 wants IFA_ADDRESS as well. */
	rta = (struct rtattr *)((char *)&req + req.nh.nlmsg_len);
	rta->rta_type = IFA_ADDRESS;
	rta->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), (char *)RTA_DATA((struct rtattr *)((char *)&req +
		NLMSG_ALIGN(NLMSG_LENGTH(sizeof(struct ifaddrmsg))))), alen);
	req.nh.nlmsg_len += RTA_ALIGN(rta->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
	} else {
		struct timeval tv = { .tv_sec = 2 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		ret = recv(fd, &ack, sizeof(ack), 0) < 0 ? -errno :
		      ack.nh.nlmsg_type == NLMSG_ERROR ? ack.err.error : 0;
	}
	close(fd);
	/* Deleting what is not there (the kernel dropped it with the link) is fine. */
	return !add && ret == -EADDRNOTAVAIL ? 0 : ret;
}

/* Write @p value to /proc/sys/net/@p family/conf/@p ifname/@p key. */
static int
conf_sysctl(const char *family, const char *ifname, const char *key, const char *value)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", family, ifname, key);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	if (fputs(value, f) < 0)
		ret = -EIO;
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	return ret;
}

/*
 * The kernel side of a TAP carries the port's IPv6 addresses, dpr's
 * link-local one among them; left alone it would make its own link-local
 * address, run duplicate address detection, solicit routers and take
 * their advertisements: speaking for the port beside dpr. Set before the
 * link comes up.
 */
static void
tap_ipv6_quiet(const char *ifname)
{
	static const char *const settings[][2] = {
		{ "addr_gen_mode", "1" },       /* no link-local of its own */
		{ "accept_dad", "0" },
		{ "dad_transmits", "0" },
		{ "accept_ra", "0" },
		{ "router_solicitations", "0" },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(settings); i++) {
		ret = conf_sysctl("ipv6", ifname, settings[i][0], settings[i][1]);
		if (ret < 0)
			DPR_LOG(WARNING, port, "TAP %s: cannot set net.ipv6.conf.%s.%s=%s: %s",
				ifname, ifname, settings[i][0], settings[i][1], strerror(-ret));
	}
}

void
dpr_tap_addr(struct dpr_router *r, uint16_t port, const struct dpr_prefix *a, bool add)
{
	char buf[DPR_PREFIX_STRLEN];
	int ret;

	if (!r->ports[port].has_tap)
		return;
	ret = netlink_addr(r->cfg->ports[port].tap, a, add);
	if (ret < 0)
		DPR_LOG(WARNING, port, "TAP %s: cannot %s %s: %s", r->cfg->ports[port].tap,
			add ? "add" : "remove", dpr_prefix_fmt(a, buf, sizeof(buf)), strerror(-ret));
}

/* Give port @p p's TAP every address of the port (again: NLM_F_REPLACE). */
static void
tap_addrs_add(struct dpr_router *r, unsigned int p)
{
	const struct dpr_prefix *a;
	unsigned int k, n;

	a = dpr_ifaddr_list(&r->addrs, p, &n);
	for (k = 0; k < n; k++)
		dpr_tap_addr(r, (uint16_t)p, &a[k], true);
}

/* The prefix length of netmask @p m (a contiguous one, as the kernel's). */
static unsigned int
mask_len(const struct sockaddr *m)
{
	const uint8_t *b;
	unsigned int n, i, len = 0;

	if (m == NULL)
		return 0;
	if (m->sa_family == AF_INET) {
		b = (const uint8_t *)&((const struct sockaddr_in *)(const void *)m)->sin_addr;
		n = 4;
	} else {
		b = (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)m)->sin6_addr;
		n = 16;
	}
	for (i = 0; i < n; i++)
		len += (unsigned int)__builtin_popcount(b[i]);
	return len;
}

/* Whether host interface @p ifname holds @p a with its prefix length, in
 * getifaddrs()' list @p list. */
static bool
host_holds(const struct ifaddrs *list, const char *ifname, const struct dpr_prefix *a)
{
	const struct ifaddrs *i;

	for (i = list; i != NULL; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;

		if (sa == NULL || strcmp(i->ifa_name, ifname) != 0 || mask_len(i->ifa_netmask) != a->len)
			continue;
		if (a->addr.af == DPR_AF_IP4 && sa->sa_family == AF_INET &&
		    ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr ==
		    htonl(a->addr.ip4))
			return true;
		if (a->addr.af == DPR_AF_IP6 && sa->sa_family == AF_INET6 &&
		    memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, a->addr.ip6,
			   16) == 0)
			return true;
	}
	return false;
}

/*
 * The port's addresses are dpr's: the host stack speaks from them (BGP, SSH)
 * and dpr hands their packets up. One that is gone from an up TAP (ip addr
 * del, ip addr flush, a network manager) is put back and said: the kernel
 * would otherwise drop what dpr hands it for that address, and the host's
 * sessions from it would stop without a word. @p list: getifaddrs()'.
 */
static void
tap_addrs_keep(struct dpr_router *r, unsigned int p, const struct ifaddrs *list)
{
	const struct dpr_prefix *a;
	char buf[DPR_PREFIX_STRLEN];
	unsigned int k, n;

	a = dpr_ifaddr_list(&r->addrs, p, &n);
	for (k = 0; k < n; k++) {
		if (host_holds(list, r->cfg->ports[p].tap, &a[k]))
			continue;
		DPR_LOG(WARNING, port, "port %s: TAP %s lost the port's address %s on the host (ip addr del or flush?): put back; change a port's addresses with dprctl addr",
			r->cfg->ports[p].name, r->cfg->ports[p].tap,
			dpr_prefix_fmt(&a[k], buf, sizeof(buf)));
		r->tap_stats.addrs_restored++;
		dpr_tap_addr(r, (uint16_t)p, &a[k], true);
	}
}

/* Make port @p p's TAP: the device, its queues, MTU, addresses. */
static int
tap_open(struct dpr_router *r, unsigned int p, char *err, size_t err_len)
{
	const struct dpr_port_conf *pc = &r->cfg->ports[p];
	struct dpr_port *port = &r->ports[p];
	struct rte_eth_conf ec = { 0 };
	char name[32], args[128], mac[RTE_ETHER_ADDR_FMT_SIZE];
	int ret;

	/* net_tap would join it as one more queue: another dpr's TAP. */
	if (if_nametoindex(pc->tap) != 0) {
		if (p < r->cfg->n_phys)
			snprintf(err, err_len, "port %s: interface %s exists already (another dpr's host-stack TAP?): set ports[%u].tap to another name (or false)",
				 pc->name, pc->tap, p);
		else /* a VLAN interface, of the file or of vlan.add */
			snprintf(err, err_len, "port %s: interface %s exists already (another dpr's host-stack TAP?): give %s another \"tap\", or none (\"tap\": false; dprctl vlan add ... notap)",
				 pc->name, pc->tap, pc->name);
		return -EEXIST;
	}
	/* Each TAP is a DPDK port: net_tap's probe would only say EINVAL. */
	if (rte_eth_dev_count_total() >= RTE_MAX_ETHPORTS) {
		snprintf(err, err_len, "port %s: no DPDK port id left for TAP %s (RTE_MAX_ETHPORTS %d counts ports and TAPs together): make it without a TAP (\"tap\": false, vlan add ... notap)",
			 pc->name, pc->tap, RTE_MAX_ETHPORTS);
		return -ENOSPC;
	}
	rte_ether_format_addr(mac, sizeof(mac), &port->mac);
	snprintf(name, sizeof(name), "net_tap_dpr%u", p);
	snprintf(args, sizeof(args), "%s,iface=%s,mac=%s", name, pc->tap, mac);
	ret = rte_dev_probe(args);
	if (ret == 0)
		ret = rte_eth_dev_get_port_by_name(name, &port->tap_port);
	if (ret < 0) {
		snprintf(err, err_len, "port %s: cannot create TAP %s for the host stack: %s (is /dev/net/tun there? is %s taken? set \"tap\" to another name, or false)",
			 pc->name, pc->tap, rte_strerror(-ret), pc->tap);
		return ret;
	}
	tap_ipv6_quiet(pc->tap);
	/* A port's second IPv4 address on a subnet is a secondary one to
	 * the kernel, which deletes it with the first unless it promotes
	 * it: addr.del of the first would take the second from the host
	 * stack while dpr keeps handing its packets up. */
	ret = conf_sysctl("ipv4", pc->tap, "promote_secondaries", "1");
	if (ret < 0)
		DPR_LOG(WARNING, port, "TAP %s: cannot set net.ipv4.conf.%s.promote_secondaries=1: %s",
			pc->tap, pc->tap, strerror(-ret));
	/* The kernel answers ARP for the port only where dpr hands it
	 * requests (a transparent port): for the TAP's own addresses, as
	 * dpr would, not for any address of the host (its management
	 * address, a container bridge's), whose traffic the answer would
	 * draw into dpr on the port's link. */
	ret = conf_sysctl("ipv4", pc->tap, "arp_ignore", "1");
	if (ret < 0)
		DPR_LOG(WARNING, port, "TAP %s: cannot set net.ipv4.conf.%s.arp_ignore=1: %s",
			pc->tap, pc->tap, strerror(-ret));
	ret = rte_eth_dev_configure(port->tap_port, 1, 1, &ec);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port->tap_port, 0, DPR_TAP_DESC, port->socket, NULL,
					     r->pools[port->socket]);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port->tap_port, 0, DPR_TAP_DESC, port->socket, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port->tap_port);
	if (ret < 0) {
		snprintf(err, err_len, "port %s: TAP %s: %s", pc->name, pc->tap, rte_strerror(-ret));
		rte_eal_hotplug_remove("vdev", name);
		return ret;
	}
	port->has_tap = true;
	port->tap_link_up = true;
	port->tap_down_said = false;
	if (rte_eth_dev_set_mtu(port->tap_port, port->mtu) < 0)
		DPR_LOG(WARNING, port, "TAP %s: cannot set MTU %u", pc->tap, port->mtu);
	tap_addrs_add(r, p);
	return 0;
}

int
dpr_tap_setup(struct dpr_router *r, char *err, size_t err_len)
{
	unsigned int p;
	int ret;

	for (p = 0; p < r->n_ports; p++) {
		const struct dpr_port_conf *pc = &r->cfg->ports[p];

		if (pc->tap[0] == '\0')
			continue;
		ret = tap_open(r, p, err, err_len);
		if (ret < 0)
			return ret;
		DPR_LOG(INFO, port, "port %s: host stack on TAP %s%s", pc->name, pc->tap,
			pc->transparent ? " (transparent: the kernel answers ARP and ICMP)" : "");
	}
	return 0;
}

void
dpr_tap_check(struct dpr_router *r)
{
	struct ifaddrs *list = NULL;
	unsigned int p;

	if (getifaddrs(&list) < 0)
		list = NULL;
	for (p = 0; p < r->n_ports; p++) {
		const struct dpr_port_conf *pc = &r->cfg->ports[p];
		struct dpr_port *port = &r->ports[p];
		enum dpr_link_state s;
		char name[32], err[256];

		if (pc->tap[0] == '\0' || (!port->has_tap && !port->tap_lost))
			continue;
		s = dpr_iface_link(pc->tap);
		if (port->has_tap && s == DPR_LINK_UNKNOWN) {
			/* Deleted (ip link del), or moved to another namespace:
			 * what dpr writes there reaches nobody. */
			DPR_LOG(WARNING, port, "port %s: TAP %s is gone from the host (deleted or moved): making it again",
				pc->name, pc->tap);
			r->tap_stats.lost++;
			port->has_tap = false;
			port->tap_lost = true;
			port->tap_failures = 0;
			rte_eth_dev_stop(port->tap_port);
			snprintf(name, sizeof(name), "net_tap_dpr%u", p);
			rte_eal_hotplug_remove("vdev", name);
		}
		if (port->tap_lost) {
			if (tap_open(r, p, err, sizeof(err)) < 0) {
				port->tap_failures++;
				if ((port->tap_failures & (port->tap_failures - 1)) == 0)
					DPR_LOG(WARNING, port, "%s; tried %u times, trying again every second",
						err, port->tap_failures);
				continue;
			}
			port->tap_lost = false;
			r->tap_stats.recreated++;
			DPR_LOG(NOTICE, port, "port %s: TAP %s made again, with the port's addresses",
				pc->name, pc->tap);
			dpr_kvrf_enslave(r, p);
			if (port->link_down)
				dpr_tap_link(r, (uint16_t)p, false);
			continue;
		}
		/* Set down from the host while dpr holds it up: say so once. */
		if (s == DPR_LINK_DOWN && port->tap_link_up && !port->tap_down_said) {
			DPR_LOG(WARNING, port, "port %s: TAP %s was set down on the host: the host stack cannot reach port %s (ip link set %s up)",
				pc->name, pc->tap, pc->name, pc->tap);
			port->tap_down_said = true;
		} else if (s == DPR_LINK_UP) {
			/* Up again: its IPv6 addresses went with the down
			 * (dpr_tap_link()). */
			if (port->tap_down_said)
				tap_addrs_add(r, p);
			else if (list != NULL && port->has_tap && !port->link_down)
				tap_addrs_keep(r, p, list);
			port->tap_down_said = false;
		}
	}
	if (list != NULL)
		freeifaddrs(list);
}

unsigned int
dpr_tap_poll(struct dpr_router *r)
{
	struct rte_mbuf *pkts[TAP_BURST];
	unsigned int p, total = 0;

	for (p = 0; p < r->n_ports; p++) {
		struct dpr_port *port = &r->ports[p];
		uint16_t n, sent;

		if (!port->has_tap)
			continue;
		n = rte_eth_rx_burst(port->tap_port, 0, pkts, TAP_BURST);
		if (n == 0)
			continue;
		total += n;
		/* The output ACL sees the host stack's packets too. */
		if (dpr_acl_ctl_out_bound(r->acl, p)) {
			uint16_t i, keep = 0;

			for (i = 0; i < n; i++) {
				if (dpr_acl_ctl_out(r->acl, p, pkts[i]) == DPR_ACL_PERMIT)
					pkts[keep++] = pkts[i];
				else
					rte_pktmbuf_free(pkts[i]);
			}
			n = keep;
		}
		/* The kernel built the frames (ARP, addresses, MACs): send as is
		 * (a VLAN interface's tagged), on the control thread's TX queue. */
		if (port->vlan_outer != 0)
			sent = dpr_qinq_tx_burst(port->port_id, (uint16_t)r->n_workers,
						 port->vlan_id, port->vlan_outer, pkts, n);
		else
			sent = dpr_vlan_tx_burst(port->port_id, (uint16_t)r->n_workers,
						 port->vlan_id, dpr_port_vlan_insert(port), pkts, n);
		r->tap_stats.from_kernel += sent;
		if (sent < n) {
			r->tap_stats.from_kernel_dropped += n - sent;
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
		}
	}
	return total;
}

int
dpr_tap_to_kernel(struct dpr_router *r, uint16_t port, struct rte_mbuf *m)
{
	struct dpr_port *p = &r->ports[port];

	if (!p->has_tap)
		return -ENODEV;
	if (rte_eth_tx_burst(p->tap_port, 0, &m, 1) == 1) {
		r->tap_stats.to_kernel++;
	} else {
		r->tap_stats.to_kernel_dropped++;
		rte_pktmbuf_free(m);
	}
	return 0;
}

void
dpr_tap_link(struct dpr_router *r, uint16_t p, bool up)
{
	struct dpr_port *port = &r->ports[p];

	if (!port->has_tap || up == port->tap_link_up)
		return;
	port->tap_link_up = up;
	if (up) {
		rte_eth_dev_set_link_up(port->tap_port);
		/* Set down, the kernel flushed the TAP's IPv6 addresses
		 * (unless keep_addr_on_down, which never keeps a link-local
		 * one, and the TAP makes none of its own: addr_gen_mode=1):
		 * the host stack would have no IPv6 on the port after a
		 * link flap. */
		tap_addrs_add(r, p);
	} else {
		rte_eth_dev_set_link_down(port->tap_port);
	}
	DPR_LOG(INFO, port, "port %s: TAP %s set %s", r->cfg->ports[p].name, r->cfg->ports[p].tap,
		up ? "up" : "down");
}

int
dpr_tap_open_port(struct dpr_router *r, unsigned int p, char *err, size_t err_len)
{
	int ret;

	if (r->cfg->ports[p].tap[0] == '\0')
		return 0;
	ret = tap_open(r, p, err, err_len);
	if (ret == 0)
		dpr_kvrf_enslave(r, p); /* a VRF's interface added at run time */
	return ret;
}

void
dpr_tap_close_port(struct dpr_router *r, unsigned int p)
{
	struct dpr_port *port = &r->ports[p];
	char name[32];

	if (!port->has_tap)
		return;
	rte_eth_dev_stop(port->tap_port);
	snprintf(name, sizeof(name), "net_tap_dpr%u", p);
	rte_eal_hotplug_remove("vdev", name);
	port->has_tap = false;
	port->tap_lost = false;
}

void
dpr_tap_close(struct dpr_router *r)
{
	unsigned int p;

	for (p = 0; p < r->n_ports; p++) {
		struct dpr_port *port = &r->ports[p];

		if (!port->has_tap)
			continue;
		rte_eth_dev_stop(port->tap_port);
		rte_eth_dev_close(port->tap_port);
		port->has_tap = false;
	}
}
