/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Ports: probing the device a config names, choosing its profile from
 * drivers-cfg/ by PMD name, and setting up one RX queue per worker (RSS) and
 * one TX queue per worker plus one for the control thread.
 * Control thread only.
 */
#include <limits.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mempool.h>

#include "../config/config.h"
#include "mcast.h"
#include "watch.h"

/** Where a port's link state is read (profile key "link_state"). */
enum dpr_link_src {
	DPR_LINK_PMD,   /**< "pmd": rte_eth_link_get (NICs) */
	/** "iface": the kernel interface named by the devargs' iface= (IFF_UP
	 * and IFF_RUNNING, i.e. carrier), for PMDs on a kernel interface that
	 * report their link up whatever it does (af_packet, af_xdp) or that
	 * cannot see it once it moved to another namespace (net_tap). */
	DPR_LINK_IFACE,
	DPR_LINK_NONE,  /**< "none": the link is never read; taken as up */
};

/** A port profile, from drivers-cfg/<driver>.json. */
struct dpr_profile {
	char source[PATH_MAX];   /**< file it came from, or "built-in" */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint64_t rss_hf;         /**< RTE_ETH_RSS_* */
	uint64_t rx_offloads;    /**< RTE_ETH_RX_OFFLOAD_* */
	uint64_t tx_offloads;    /**< RTE_ETH_TX_OFFLOAD_* */
	/** The PMD needs as many RX as TX queues (net_tap, af_packet): the
	 * RX queue matching the control thread's TX queue is then polled by
	 * the first worker, so nothing the device spreads there is lost. */
	bool equal_queues;
	enum dpr_link_src link;
	char expect[256];        /**< the rate to expect of the PMD ("" : not said) */
};

/** How a port lets in the multicast groups it needs (dpr_mcast_groups()). */
enum dpr_port_mcast {
	DPR_MCAST_NONE = 0, /**< the device keeps no multicast filter dpr can open */
	DPR_MCAST_LIST,     /**< the groups are in its multicast list */
	DPR_MCAST_ALL,      /**< no list, or one refused: all multicast (allmulticast) */
};

/*
 * A port, or a VLAN interface (conf->parent >= 0): a logical port with an
 * index of its own for everything kept per port (addresses, neighbours,
 * next hops, TAP, counters, MTU) that shares its parent's DPDK port id,
 * MAC, socket, queues and link (dpr_port_vlan_init()). It is neither
 * probed nor started: closing it closes nothing.
 */
struct dpr_port {
	const struct dpr_port_conf *conf;
	uint16_t port_id;
	uint16_t vlan_id;        /**< a VLAN interface's id (conf->vlan_id); 0: a port */
	/** A QinQ interface's outer tag, DPR_QINQ_OUTER(conf->outer_tpid,
	 * conf->outer_id) of lib/datapath/qinq_dp.h; 0: none. */
	uint32_t vlan_outer;
	int socket;
	char driver[64];
	struct rte_ether_addr mac;
	uint16_t mtu;
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	uint64_t rss_hf;
	uint64_t rx_offloads;
	uint64_t tx_offloads;
	struct dpr_profile profile;
	/** VLAN interfaces are configured on it (set before dpr_port_start()):
	 * only then does it ask for the VLAN strip and insert offloads its
	 * profile grants (dpr_port_rx_asked()). */
	bool has_vlans;
	bool probed;             /**< port_id is this port's (dpr_port_close() closes it) */
	/* Its multicast filter (dpr_port_mcast_set()); a VLAN interface's
	 * copy is stale: its parent's is the device's. Control thread. */
	enum dpr_port_mcast mcast;
	bool mc_no_list;         /**< the PMD keeps no list (-ENOTSUP): mcast never changes */
	/** The groups it needs, as last computed (sorted); < 0: more than
	 * DPR_MCAST_MAX_GROUPS. In its list when mcast is DPR_MCAST_LIST. */
	int n_groups;
	struct rte_ether_addr groups[DPR_MCAST_MAX_GROUPS];
	bool started;
	bool has_tap;            /**< a TAP to the host stack (lib/exception/tap.c) */
	uint16_t tap_port;       /**< its DPDK port id */
	bool tap_link_up;
	bool tap_lost;           /**< configured, its kernel interface gone, not made again yet */
	uint32_t tap_failures;   /**< attempts to make it again that failed (logged 1, 2, 4...) */
	bool tap_down_said;      /**< "set down from the host" was logged */
	char link_iface[IF_NAMESIZE]; /**< DPR_LINK_IFACE: the kernel interface */
	bool link_down;          /**< the last link poll found it down (control thread) */
	struct dpr_port_watch watch; /**< its warnings (control thread) */
};

/** Link states dpr_port_link() returns. */
enum dpr_link_state { DPR_LINK_DOWN, DPR_LINK_UP, DPR_LINK_UNKNOWN };

/**
 * Port @p port's link, read where its profile says (enum dpr_link_src).
 * DPR_LINK_UNKNOWN: "none", or an "iface" port whose kernel interface is
 * not in dpr's network namespace (a net_tap moved away); callers take it
 * as up. @p speed_mbps, if not NULL, gets the PMD's speed (0: unknown).
 * Control thread; one ioctl for an "iface" port.
 */
enum dpr_link_state dpr_port_link(const struct dpr_port *port, uint32_t *speed_mbps);

/**
 * Kernel interface @p ifname in dpr's network namespace: DPR_LINK_UP when
 * it is up and running (carrier), DPR_LINK_DOWN when not, DPR_LINK_UNKNOWN
 * when there is no such interface here.
 */
enum dpr_link_state dpr_iface_link(const char *ifname);

/** "groups", "all" or "none" (port.list "multicast"). */
const char *dpr_port_mcast_name(enum dpr_port_mcast m);

/**
 * Let in the @p n multicast groups @p groups of started port @p port
 * (dpr_mcast_groups(): sorted; @p n < 0: too many), when they differ from
 * the last ones: its device's multicast list where the PMD keeps one, so
 * that other multicast on the link never reaches the workers; all
 * multicast where the PMD keeps none (i40e, ice, cxgbe) or refuses the
 * list (too long), said once, and the list again once it takes one. A PMD
 * with neither (af_packet) leaves it to its kernel interface. Control
 * thread; a device call only when the groups changed.
 */
void dpr_port_mcast_set(struct dpr_port *port, const struct rte_ether_addr *groups, int n);

/** "up", "down" or "unknown". */
const char *dpr_link_state_name(enum dpr_link_state s);

/**
 * Load the profile for PMD @p driver from @p dir: <driver>.json, else
 * default.json, else built-in defaults.
 * @return 0, or -EINVAL with a message naming the file and key in @p err.
 */
int dpr_profile_load(const char *dir, const char *driver, struct dpr_profile *p,
		     char *err, size_t err_len);

/**
 * The drivers-cfg directory to use when none is given, for executable
 * @p exe (an absolute path, or NULL when unknown), first found of:
 * $DPR_DRIVERS_CFG; the source tree's drivers-cfg/ when @p exe lies in the
 * meson build directory it was built in; <dir of exe>/../share/dpr/drivers-cfg
 * (an installed tree, wherever it was moved or DESTDIR put it); the
 * configured install directory (<prefix>/share/dpr/drivers-cfg).
 * @p buf (of @p len bytes) may hold the answer; @p why gets a few words
 * saying which rule chose it.
 */
const char *dpr_profile_find_dir(const char *exe, char *buf, size_t len, const char **why);

/** dpr_profile_find_dir() for the running executable (/proc/self/exe). */
const char *dpr_profile_default_dir(const char **why);

/**
 * Fit the devargs of a software PMD that fixes its queue counts at probe
 * to dpr's layout for @p n_workers workers (one RX queue per worker, one TX
 * queue per worker and one for the control thread): net_af_packet without
 * qpairs= gets qpairs=N+1; net_pcap gets its /dev/null or interface TX
 * streams repeated, /dev/null dumpers when it has none, and iface=IF (one
 * worker) turned into rx_iface_in=IF and tx_iface=IF per TX queue. Other
 * devices are left alone. No EAL needed.
 * @return 1 when @p out holds new devargs and @p added (of @p added_len
 * bytes) says what changed; 0 when @p device needs nothing (@p out then
 * holds nothing useful); -EINVAL with the reason in @p err when what the
 * user gave cannot give dpr its queues; -ENOSPC when @p out is too short.
 */
/**
 * The kernel interface a net_tap device creates, named by its iface=.
 * @return 1 with the name in @p out, 0 when @p device is no net_tap or
 *   names none (net_tap then picks dtapN itself).
 */
int dpr_port_tap_iface(const char *device, char *out, size_t out_len);

/**
 * A kernel interface that a net_af_packet, net_af_xdp or net_pcap device
 * names (iface=, rx_iface=, rx_iface_in=, tx_iface=) and that does not
 * exist. @return 1 with "KEY=NAME" in @p out, else 0.
 */
int dpr_port_missing_iface(const char *device, char *out, size_t out_len);

int dpr_port_fit_devargs(const char *device, uint16_t n_workers, char *out, size_t out_len,
			 char *added, size_t added_len, char *err, size_t err_len);

/**
 * Probe the device of @p conf (a PCI address or DPDK devargs) unless EAL
 * already did, its devargs fitted to @p n_workers (dpr_port_fit_devargs),
 * and fill in port_id, socket and driver.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_port_probe(struct dpr_port *port, const struct dpr_port_conf *conf,
		   unsigned int index, uint16_t n_workers, char *err, size_t err_len);

/**
 * Configure queues for @p n_workers workers from the profile (intersected
 * with what the device reports; what it lacks is logged and left out),
 * set the MAC and MTU, and start the port.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_port_start(struct dpr_port *port, uint16_t n_workers,
		   struct rte_mempool *pool, char *err, size_t err_len);

/**
 * The largest MTU a device whose info is @p info accepts, as
 * rte_eth_dev_configure() judges it: its max_mtu, and its max_rx_pktlen
 * less the frame overhead (what max_rx_pktlen has over max_mtu, else the
 * Ethernet header and CRC). Many software PMDs give only max_rx_pktlen
 * (net_af_packet 1518, net_tap 1522: an MTU of 1500 and 1504).
 */
uint16_t dpr_port_max_mtu(const struct rte_eth_dev_info *info);

/** Mbufs port @p port needs for its queues with @p n_workers workers. */
unsigned int dpr_port_mbufs_needed(const struct dpr_port *port, uint16_t n_workers);

/**
 * Make @p v the VLAN interface @p conf on port @p parent (started): its
 * DPDK port, MAC, queues, profile and link are the parent's, its MTU its
 * own. Tags are put on and taken off by the device where the parent asked
 * for VLAN offloads and got them (dpr_port_vlan_strip(),
 * dpr_port_vlan_insert()), in software otherwise (lib/datapath/vlan_dp.h).
 */
void dpr_port_vlan_init(struct dpr_port *v, const struct dpr_port *parent,
			const struct dpr_port_conf *conf);

/**
 * The RX offloads @p port asks of its device: its profile's, less VLAN
 * strip on a port without VLAN interfaces (there it would only cost: the
 * tag of a frame for no interface is put back for the screen to drop).
 */
static inline uint64_t
dpr_port_rx_asked(const struct dpr_port *port)
{
	return port->has_vlans ? port->profile.rx_offloads :
				 port->profile.rx_offloads & ~RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
}

/**
 * The TX offloads @p port asks of its device: its profile's, less VLAN
 * insert on a port without VLAN interfaces (some PMDs leave their vector
 * TX path for any TX offload).
 */
static inline uint64_t
dpr_port_tx_asked(const struct dpr_port *port)
{
	return port->has_vlans ? port->profile.tx_offloads :
				 port->profile.tx_offloads & ~RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
}

/** Whether the device of @p port (or of a VLAN interface's parent) takes
 * VLAN tags off on RX: tags come in vlan_tci, the data untagged. */
static inline bool
dpr_port_vlan_strip(const struct dpr_port *port)
{
	return (port->rx_offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
}

/** Whether the device of @p port (or of a VLAN interface's parent) puts
 * the tag of an mbuf with RTE_MBUF_F_TX_VLAN on at TX. */
static inline bool
dpr_port_vlan_insert(const struct dpr_port *port)
{
	return (port->tx_offloads & RTE_ETH_TX_OFFLOAD_VLAN_INSERT) != 0;
}

/** Whether @p port is a VLAN interface (it has no device of its own). */
static inline bool
dpr_port_is_vlan(const struct dpr_port *port)
{
	return port->vlan_id != 0;
}

/** Stop and close; safe on a port that never started. */
void dpr_port_close(struct dpr_port *port);

/** The profiles' name of RSS field @p bit ("ipv4", ...), or NULL. */
const char *dpr_rss_field_name(uint64_t bit);

/** RSS fields @p rss_hf by name, comma-separated, into @p buf. */
void dpr_port_rss_names(uint64_t rss_hf, char *buf, size_t len);

/** Whether @p port is a physical NIC (PCI, not a paravirtual device). */
bool dpr_port_is_hardware(const struct dpr_port *port);

/**
 * What the device granted @p port, as JSON (lib/port/facts.c): driver,
 * hardware or software and the rate to expect, link, queues and
 * descriptors against the profile, offloads and RSS fields granted and
 * refused, and NUMA: the port's node against those of the worker lcores
 * @p lcores and of its mempool, @p pool_socket.
 */
json_t *dpr_port_facts_json(const struct dpr_port *port, const unsigned int *lcores,
			    unsigned int n_lcores, int pool_socket);

/**
 * Log what to expect of a started port and start its watch (port->watch),
 * with the conditions found at start: NUMA placement against @p lcores and
 * @p pool_socket, descriptors the device cut. @p now: seconds, the clock
 * the control thread's dpr_port_watch_step() calls use.
 */
void dpr_port_watch_start(struct dpr_port *port, const unsigned int *lcores,
			  unsigned int n_lcores, int pool_socket, uint64_t now);
