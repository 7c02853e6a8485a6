/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "../datapath/datapath.h"
#include "../util/log.h"
#include "port.h"

static bool
looks_like_pci(const char *s)
{
	unsigned int d, b, dev, f;
	char c;

	return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &dev, &f, &c) == 4 ||
	       sscanf(s, "%x:%x.%x%c", &b, &dev, &f, &c) == 3;
}

static bool
looks_like_pci_prefix(const char *s, size_t n)
{
	char buf[64];

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return looks_like_pci(buf);
}

static int
find_port(const char *name, uint16_t *port_id)
{
	uint16_t pid;

	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	/* Some PMDs name the ethdev differently from the device. */
	RTE_ETH_FOREACH_DEV(pid) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(pid, &info) == 0 && info.device != NULL &&
		    strcmp(rte_dev_name(info.device), name) == 0) {
			*port_id = pid;
			return 0;
		}
	}
	return -ENODEV;
}

/*
 * Whether the device of ethdev @p port_id was probed with the arguments of
 * devargs @p device (those after its first comma; none: any will do).
 */
static bool
same_args(uint16_t port_id, const char *device)
{
	const char *want = strchr(device, ',');
	const struct rte_devargs *da;
	struct rte_eth_dev_info info;

	if (want == NULL || want[1] == '\0')
		return true;
	if (rte_eth_dev_info_get(port_id, &info) < 0 || info.device == NULL)
		return true; /* nothing to compare: as before */
	da = rte_dev_devargs(info.device);
	return da != NULL && da->args != NULL && strcmp(da->args, want + 1) == 0;
}

/*
 * Multi-port devices (Chelsio T5/T6 has every port on one PCI function) name
 * their ethdevs "<device>_<n>". Such a name is not valid devargs: probe the
 * device and look the port up by its full name.
 */
static bool
split_port_suffix(const char *device, char *base, size_t len)
{
	const char *us = strrchr(device, '_');
	size_t n;

	if (us == NULL || us[1] == '\0' || strspn(us + 1, "0123456789") != strlen(us + 1) ||
	    strchr(device, ',') != NULL)
		return false;
	n = (size_t)(us - device);
	if (n >= len || !looks_like_pci_prefix(device, n))
		return false;
	memcpy(base, device, n);
	base[n] = '\0';
	return true;
}

int
dpr_port_probe(struct dpr_port *port, const struct dpr_port_conf *conf,
	       unsigned int index, uint16_t n_workers, char *err, size_t err_len)
{
	char base[DPR_DEVICE_MAX], fitted[DPR_DEVICE_MAX + 512], added[256], why[512];
	const char *probe = conf->device, *name;
	struct rte_eth_dev_info info;
	struct rte_devargs da;
	int ret;

	memset(port, 0, sizeof(*port));
	port->conf = conf;
	memset(&da, 0, sizeof(da));

	if (find_port(conf->device, &port->port_id) == 0)
		goto found; /* probed by EAL (--vdev, -a) or an earlier port */
	if (split_port_suffix(conf->device, base, sizeof(base)))
		probe = base;
	ret = dpr_port_fit_devargs(probe, n_workers, fitted, sizeof(fitted), added,
				   sizeof(added), why, sizeof(why));
	if (ret < 0) {
		snprintf(err, err_len, "config: ports[%u].device \"%s\": %s", index, conf->device,
			 why);
		return ret;
	}
	if (ret > 0) {
		DPR_LOG(INFO, port, "port %s: probing %s (dpr added %s for %u workers)",
			conf->name, fitted, added, n_workers);
		probe = fitted;
	}
	if (rte_devargs_parse(&da, probe) < 0) {
		snprintf(err, err_len, "config: ports[%u].device \"%s\": not a PCI address or DPDK devargs string (like \"net_tap0,iface=dpr-p0\")",
			 index, conf->device);
		return -EINVAL;
	}
	name = probe == base ? conf->device : da.name;
	if (find_port(name, &port->port_id) == 0 && !same_args(port->port_id, conf->device)) {
		/* EAL probed it (every device bound to vfio-pci, unless -a
		 * says which; a --vdev) without the arguments the config
		 * gives it: probed again with them, or they would be lost
		 * without a word. */
		struct rte_eth_dev_info old;

		DPR_LOG(NOTICE, port, "port %s: %s was probed by EAL with other arguments: probing it again as %s",
			conf->name, name, probe);
		ret = rte_eth_dev_info_get(port->port_id, &old);
		if (ret == 0)
			ret = old.device != NULL ? rte_dev_remove(old.device) : -ENODEV;
		if (ret < 0) {
			snprintf(err, err_len, "config: ports[%u].device \"%s\": EAL probed %s already, without these arguments, and it cannot be probed again with them (%s): give them to EAL instead (-a %s), or leave them out",
				 index, conf->device, name, rte_strerror(-ret), conf->device);
			rte_devargs_reset(&da);
			return ret;
		}
	}
	if (find_port(name, &port->port_id) < 0) {
		ret = rte_dev_probe(probe);
		if (ret < 0 || find_port(name, &port->port_id) < 0) {
			if (ret == 0 || ret == -1)
				ret = -ENODEV; /* some PMDs fail with a bare -1: the log above says why */
			if (looks_like_pci(probe))
				snprintf(err, err_len, "config: ports[%u].device \"%s\": cannot probe: %s (is it bound to vfio-pci? run: dpdk-devbind.py -b vfio-pci %s; and do not pass --no-pci)",
					 index, conf->device, rte_strerror(-ret), probe);
			else
				snprintf(err, err_len, "config: ports[%u].device \"%s\": cannot probe: %s (check the driver name and its arguments in the DPDK guide for that PMD)",
					 index, conf->device, rte_strerror(-ret));
			rte_devargs_reset(&da);
			return ret;
		}
	}
	rte_devargs_reset(&da);
found:
	port->probed = true;
	ret = rte_eth_dev_info_get(port->port_id, &info);
	if (ret < 0) {
		snprintf(err, err_len, "port %s: cannot read device info: %s", conf->name,
			 rte_strerror(-ret));
		return ret;
	}
	snprintf(port->driver, sizeof(port->driver), "%s", info.driver_name);
	port->socket = rte_eth_dev_socket_id(port->port_id);
	if (port->socket < 0)
		port->socket = 0;
	return 0;
}

uint16_t
dpr_port_max_mtu(const struct rte_eth_dev_info *info)
{
	/* eth_dev_get_overhead_len() and eth_dev_validate_mtu() of ethdev. */
	uint32_t overhead = info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu ?
		info->max_rx_pktlen - info->max_mtu : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	uint32_t max = info->max_mtu;

	if (info->max_rx_pktlen < max + overhead)
		max = info->max_rx_pktlen > overhead ? info->max_rx_pktlen - overhead : 0;
	return (uint16_t)max;
}

unsigned int
dpr_port_mbufs_needed(const struct dpr_port *port, uint16_t n_workers)
{
	/* Full RX and TX rings, plus what each worker can hold in its TX
	 * buffer and its current burst. */
	unsigned int rxq = port->profile.equal_queues ? n_workers + 1u : n_workers;

	return rxq * port->profile.rx_desc +
	       (unsigned int)(n_workers + 1) * port->profile.tx_desc +
	       (unsigned int)n_workers * (DPR_TXBUF + DPR_BURST);
}

static void
log_dropped(const char *port, const char *what, uint64_t wanted, uint64_t have,
	    const char *(*name)(uint64_t))
{
	uint64_t missing = wanted & ~have;
	unsigned int i;

	for (i = 0; i < 64; i++) {
		uint64_t b = UINT64_C(1) << i;

		if (!(missing & b))
			continue;
		if (name != NULL)
			DPR_LOG(INFO, port, "port %s: device lacks %s %s: left out",
				port, what, name(b));
		else
			DPR_LOG(INFO, port, "port %s: device cannot hash on RSS field 0x%" PRIx64 ": left out",
				port, b);
	}
}

/*
 * A "link_state": "iface" port reads its kernel interface: the iface= of
 * the devargs it was probed with (config or EAL's --vdev). Without one
 * its link is not read at all.
 */
static void
find_link_iface(struct dpr_port *port, const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da = info->device != NULL ? rte_dev_devargs(info->device) : NULL;
	struct rte_kvargs *kv = da != NULL && da->args != NULL ? rte_kvargs_parse(da->args, NULL) :
								NULL;
	const char *iface = kv != NULL ? rte_kvargs_get(kv, "iface") : NULL;

	if (iface != NULL && strlen(iface) < sizeof(port->link_iface)) {
		snprintf(port->link_iface, sizeof(port->link_iface), "%s", iface);
	} else {
		DPR_LOG(WARNING, port, "port %s (%s): profile %s reads the link from the kernel interface (\"link_state\": \"iface\") but the device names no iface=IF: its link is not read (taken as up)",
			port->conf->name, port->driver, port->profile.source);
		port->profile.link = DPR_LINK_NONE;
	}
	rte_kvargs_free(kv);
}

const char *
dpr_link_state_name(enum dpr_link_state s)
{
	return s == DPR_LINK_UP ? "up" : s == DPR_LINK_DOWN ? "down" : "unknown";
}

enum dpr_link_state
dpr_port_link(const struct dpr_port *port, uint32_t *speed_mbps)
{
	struct rte_eth_link link = { 0 };

	if (speed_mbps != NULL)
		*speed_mbps = 0;
	if (port->profile.link == DPR_LINK_NONE)
		return DPR_LINK_UNKNOWN;
	if (rte_eth_link_get_nowait(port->port_id, &link) < 0)
		return DPR_LINK_UNKNOWN;
	if (speed_mbps != NULL && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		*speed_mbps = link.link_speed;
	if (port->profile.link == DPR_LINK_PMD)
		return link.link_status == RTE_ETH_LINK_UP ? DPR_LINK_UP : DPR_LINK_DOWN;

	return dpr_iface_link(port->link_iface);
}

enum dpr_link_state
dpr_iface_link(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int fd, ret;

	/* IFF_RUNNING is the kernel's operational state: carrier (a veth
	 * whose peer is down has none), dormant or not. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return DPR_LINK_UNKNOWN;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	close(fd);
	if (ret < 0)
		return DPR_LINK_UNKNOWN; /* not in this namespace (moved, or gone) */
	return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING) ? DPR_LINK_UP :
									   DPR_LINK_DOWN;
}

const char *
dpr_port_mcast_name(enum dpr_port_mcast m)
{
	switch (m) {
	case DPR_MCAST_LIST:
		return "groups";
	case DPR_MCAST_ALL:
		return "all";
	case DPR_MCAST_NONE:
	default:
		return "none";
	}
}

/*
 * Put @p n groups (n < 0: more than DPR_MCAST_MAX_GROUPS) in port @p port's
 * multicast filter, whatever it had. A NIC drops multicast it was not
 * given before any queue: the exact groups where the PMD keeps a list
 * (ixgbe, iavf, mlx5, net_tap), so that other multicast on the link (IPTV,
 * say) never reaches the workers; all multicast where it keeps none (i40e,
 * ice, cxgbe) or refuses this one. af_packet has neither: what its kernel
 * interface lets in is the kernel's to say (a veth lets everything in).
 * Failing is no reason not to forward: said, and port.list shows it.
 */
static void
mcast_apply(struct dpr_port *port, const struct rte_ether_addr *groups, int n)
{
	const char *name = port->conf->name;
	int ret = -ENOSPC;

	if (n >= 0)
		memmove(port->groups, groups, (size_t)n * sizeof(*groups));
	port->n_groups = n;
	if (port->mc_no_list)
		return; /* all multicast or none, for good */
	if (n >= 0)
		ret = rte_eth_dev_set_mc_addr_list(port->port_id, port->groups, (uint32_t)n);
	if (ret == 0) {
		if (port->mcast == DPR_MCAST_ALL) {
			rte_eth_allmulticast_disable(port->port_id);
			DPR_LOG(NOTICE, port, "port %s (%s): multicast list of %d groups taken: other multicast kept out again",
				name, port->driver, n);
		}
		port->mcast = DPR_MCAST_LIST;
		return;
	}
	if (ret == -ENOTSUP)
		port->mc_no_list = true;
	if (port->mcast == DPR_MCAST_ALL)
		return; /* said already */
	if (rte_eth_allmulticast_enable(port->port_id) == 0) {
		port->mcast = DPR_MCAST_ALL;
		if (ret == -ENOTSUP)
			DPR_LOG(INFO, port, "port %s (%s): no multicast list: all multicast let in, for NDP, OSPF, LLDP, IS-IS and the host stack's groups",
				name, port->driver);
		else if (n < 0)
			DPR_LOG(WARNING, port, "port %s (%s): needs more than %d multicast groups: all multicast let in instead of a list",
				name, port->driver, DPR_MCAST_MAX_GROUPS);
		else
			DPR_LOG(WARNING, port, "port %s (%s): multicast list of %d groups refused (%s): all multicast let in instead",
				name, port->driver, n, rte_strerror(-ret));
		return;
	}
	port->mcast = DPR_MCAST_NONE;
	DPR_LOG(INFO, port, "port %s (%s): no multicast filter to open for NDP, OSPF, LLDP and IS-IS; on a kernel interface, the kernel's filter decides (ip link set IFACE allmulticast on)",
		name, port->driver);
}

void
dpr_port_mcast_set(struct dpr_port *port, const struct rte_ether_addr *groups, int n)
{
	if (!port->started)
		return;
	if (n == port->n_groups &&
	    (n < 0 || memcmp(groups, port->groups, (size_t)n * sizeof(*groups)) == 0))
		return;
	mcast_apply(port, groups, n);
}

/* The groups a port needs before it has addresses or TAPs: the rest come
 * with them (lib/router/mcast.c). */
static void
open_groups(struct dpr_port *port)
{
	struct rte_ether_addr groups[DPR_MCAST_MAX_GROUPS];

	mcast_apply(port, groups, dpr_mcast_groups(NULL, 0, NULL, 0, groups, RTE_DIM(groups)));
}

int
dpr_port_start(struct dpr_port *port, uint16_t n_workers, struct rte_mempool *pool,
	       char *err, size_t err_len)
{
	const struct dpr_port_conf *conf = port->conf;
	struct rte_eth_conf ec;
	struct rte_eth_dev_info info;
	struct rte_eth_rxconf rxc;
	struct rte_eth_txconf txc;
	uint16_t q;
	int ret;

	ret = rte_eth_dev_info_get(port->port_id, &info);
	if (ret < 0)
		goto fail_ret;
	if (port->profile.link == DPR_LINK_IFACE)
		find_link_iface(port, &info);

	port->nb_txq = n_workers + 1;
	port->nb_rxq = port->profile.equal_queues ? port->nb_txq : n_workers;
	if (port->nb_rxq > info.max_rx_queues || port->nb_txq > info.max_tx_queues) {
		char hint[96] = "";

		/* Probed by dpr, these got what they need (dpr_port_fit_devargs):
		 * the device came from EAL's --vdev. */
		if (strcmp(port->driver, "net_af_packet") == 0)
			snprintf(hint, sizeof(hint), ", or set qpairs=%u in --vdev or leave it to dpr",
				 port->nb_txq);
		else if (strcmp(port->driver, "net_pcap") == 0)
			snprintf(hint, sizeof(hint), ", or name the device in the config, not --vdev");
		else if (strcmp(port->driver, "net_af_xdp") == 0)
			snprintf(hint, sizeof(hint), ", or add queue_count=%u to the af_xdp devargs",
				 port->nb_txq);
		snprintf(err, err_len, "port %s (%s): needs %u RX and %u TX queues for %u workers (one TX queue each and one for the control thread), the device has %u and %u (give EAL fewer lcores%s)",
			 conf->name, port->driver, port->nb_rxq, port->nb_txq, n_workers,
			 info.max_rx_queues, info.max_tx_queues, hint);
		return -EINVAL;
	}

	memset(&ec, 0, sizeof(ec));
	port->rss_hf = port->profile.rss_hf & info.flow_type_rss_offloads;
	if (n_workers > 1) {
		log_dropped(conf->name, "RSS", port->profile.rss_hf,
			    info.flow_type_rss_offloads, NULL);
		if (port->rss_hf != 0) {
			ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			ec.rx_adv_conf.rss_conf.rss_hf = port->rss_hf;
		} else {
			DPR_LOG(INFO, port, "port %s (%s): no RSS; the device spreads packets over its %u RX queues itself, if at all",
				conf->name, port->driver, port->nb_rxq);
		}
	} else {
		port->rss_hf = 0;
	}
	port->rx_offloads = dpr_port_rx_asked(port) & info.rx_offload_capa;
	port->tx_offloads = dpr_port_tx_asked(port) & info.tx_offload_capa;
	log_dropped(conf->name, "RX offload", dpr_port_rx_asked(port),
		    info.rx_offload_capa, rte_eth_dev_rx_offload_name);
	log_dropped(conf->name, "TX offload", dpr_port_tx_asked(port),
		    info.tx_offload_capa, rte_eth_dev_tx_offload_name);
	ec.rxmode.offloads = port->rx_offloads;
	ec.txmode.offloads = port->tx_offloads;

	port->mtu = conf->mtu;
	/* Checked here as rte_eth_dev_configure() would, which says only
	 * "Invalid argument": the frame must fit max_rx_pktlen too. */
	if (info.max_mtu != 0 &&
	    (port->mtu > dpr_port_max_mtu(&info) || port->mtu < info.min_mtu)) {
		snprintf(err, err_len, "config: port %s: mtu %u is outside what %s supports (%u to %u): set its \"mtu\" within them",
			 conf->name, port->mtu, port->driver, info.min_mtu,
			 dpr_port_max_mtu(&info));
		return -EINVAL;
	}
	ec.rxmode.mtu = port->mtu;

	ret = rte_eth_dev_configure(port->port_id, port->nb_rxq, port->nb_txq, &ec);
	if (ret < 0)
		goto fail_ret;

	port->nb_rxd = port->profile.rx_desc;
	port->nb_txd = port->profile.tx_desc;
	/* Pause frames stall a router's queues behind one slow peer: off,
	 * where the device lets us (virtual ones have no such thing). */
	{
		struct rte_eth_fc_conf fc;

		if (rte_eth_dev_flow_ctrl_get(port->port_id, &fc) == 0 &&
		    fc.mode != RTE_ETH_FC_NONE) {
			fc.mode = RTE_ETH_FC_NONE;
			if (rte_eth_dev_flow_ctrl_set(port->port_id, &fc) == 0)
				DPR_LOG(INFO, port, "port %s: flow control turned off", conf->name);
		}
	}

	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port->port_id, &port->nb_rxd, &port->nb_txd);
	if (ret < 0)
		goto fail_ret;

	rxc = info.default_rxconf;
	rxc.offloads = port->rx_offloads;
	for (q = 0; q < port->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(port->port_id, q, port->nb_rxd, port->socket,
					     &rxc, pool);
		if (ret < 0)
			goto fail_ret;
	}
	txc = info.default_txconf;
	txc.offloads = port->tx_offloads;
	for (q = 0; q < port->nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(port->port_id, q, port->nb_txd, port->socket, &txc);
		if (ret < 0)
			goto fail_ret;
	}

	if (conf->has_mac) {
		ret = rte_eth_dev_default_mac_addr_set(port->port_id,
						       (struct rte_ether_addr *)&conf->mac);
		if (ret < 0) {
			snprintf(err, err_len, "config: port %s: cannot set mac on %s: %s (leave \"mac\" out to use the device's own)",
				 conf->name, port->driver, rte_strerror(-ret));
			return ret;
		}
	}
	ret = rte_eth_macaddr_get(port->port_id, &port->mac);
	if (ret < 0)
		goto fail_ret;
	/* Some virtual PMDs cannot change MTU once started; not worth failing. */
	ret = rte_eth_dev_set_mtu(port->port_id, port->mtu);
	if (ret < 0 && ret != -ENOTSUP)
		DPR_LOG(WARNING, port, "port %s: cannot set MTU %u: %s", conf->name, port->mtu,
			rte_strerror(-ret));

	ret = rte_eth_dev_start(port->port_id);
	if (ret < 0)
		goto fail_ret;
	port->started = true;
	open_groups(port);
	if (port->has_vlans)
		DPR_LOG(INFO, port, "port %s: VLAN tags %s on RX, %s on TX", conf->name,
			dpr_port_vlan_strip(port) ? "taken off by the device" : "taken off in software",
			dpr_port_vlan_insert(port) ? "put on by the device" : "put on in software");

	{
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(mac, sizeof(mac), &port->mac);
		DPR_LOG(INFO, port, "port %s: %s (%s, dpdk port %u, socket %d), mac %s, mtu %u, %u rxq x %u desc, %u txq x %u desc, rss 0x%" PRIx64 ", profile %s",
			conf->name, conf->device, port->driver, port->port_id, port->socket,
			mac, port->mtu, port->nb_rxq, port->nb_rxd, port->nb_txq, port->nb_txd,
			port->rss_hf, port->profile.source);
	}
	return 0;

fail_ret:
	snprintf(err, err_len, "port %s (%s): setup failed: %s", conf->name, port->driver,
		 rte_strerror(-ret));
	return ret;
}

void
dpr_port_vlan_init(struct dpr_port *v, const struct dpr_port *parent,
		   const struct dpr_port_conf *conf)
{
	*v = *parent;
	v->conf = conf;
	v->vlan_id = conf->vlan_id;
	v->vlan_outer = conf->outer_id != 0 ? (uint32_t)conf->outer_tpid << 16 | conf->outer_id : 0;
	v->mtu = conf->mtu;
	v->probed = false;
	v->started = false;
	v->has_tap = false;
	v->tap_link_up = false;
	v->tap_lost = false;
	v->tap_failures = 0;
	v->tap_down_said = false;
	memset(&v->watch, 0, sizeof(v->watch));
}

void
dpr_port_close(struct dpr_port *port)
{
	if (!port->probed)
		return; /* its probe failed: port_id is nobody's, or another port's */
	if (port->started) {
		rte_eth_dev_stop(port->port_id);
		port->started = false;
	}
	rte_eth_dev_close(port->port_id);
	port->probed = false;
}
