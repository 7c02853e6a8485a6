/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The configuration file: parsed and checked in full before EAL starts, so
 * a bad file never touches a port. The schema is documented in
 * config/schema.json and docs/configuration.md.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "../copp/copp.h"
#include "../fib/algo.h"
#include "../util/addr.h"

/* Ports and VLAN interfaces together (ports[] then vlans[] in struct
 * dpr_config): each has its own counters and TX buffer in every worker. */
#define DPR_MAX_PORTS 32
#define DPR_MAX_PORT_ADDRS 16
/* Port names become part of kernel interface names ("dpr-<name>"), so they
 * must fit IFNAMSIZ with the prefix. */
#define DPR_PORT_NAME_MAX 11
#define DPR_DEVICE_MAX 256

#define DPR_DEFAULT_SOCKET "/run/dpr/dpr.sock"
#define DPR_DEFAULT_IP4_MAX_ROUTES (2u << 20)
#define DPR_DEFAULT_IP4_TBL8 (1u << 16)
#define DPR_DEFAULT_IP6_MAX_ROUTES (1u << 19)
/* The pyasn IPv6 table (28k routes) takes 12,386 groups, a synthetic 524k one
 * 180,388 (dpr-fib6-bench): 131,072 covers today's ~230k-route table. */
#define DPR_DEFAULT_IP6_TBL8 (1u << 17)
#define DPR_DEFAULT_MTU 1500

/* Learned neighbours by default and at most: a quarter of the next-hop
 * table by default, so gateways and static neighbours always find room. */
#define DPR_LEARNED_NEIGHBORS_DEFAULT 16384
#define DPR_LEARNED_NEIGHBORS_LIMIT 49152

#define DPR_RA_MAX_PREFIXES 8

/** A prefix a port advertises (RFC 4861 4.6.2). */
struct dpr_ra_prefix_conf {
	struct dpr_prefix prefix;
	bool on_link;             /**< L flag */
	bool autonomous;          /**< A flag: hosts form addresses in it (SLAAC) */
	uint32_t valid_lifetime;  /**< seconds, UINT32_MAX: infinity */
	uint32_t preferred_lifetime;
};

/**
 * Router advertisements of a port (ports[].router_advertisements, RFC 4861
 * 6.2.1 names). Without "prefixes", every IPv6 subnet of the port up to /64
 * is advertised on-link and autonomous with the RFC's default lifetimes.
 */
struct dpr_ra_conf_port {
	bool enabled;
	uint32_t max_interval;     /**< MaxRtrAdvInterval, seconds (4-1800, default 600) */
	uint32_t min_interval;     /**< MinRtrAdvInterval (3-0.75 max, default 0.33 max) */
	uint16_t router_lifetime;  /**< AdvDefaultLifetime, seconds (default 3 x max) */
	uint8_t cur_hop_limit;     /**< AdvCurHopLimit (default 64) */
	bool managed;              /**< M flag */
	bool other;                /**< O flag */
	bool send_mtu;             /**< MTU option with the port's MTU (default true) */
	uint32_t reachable_time;   /**< ms, 0: unspecified */
	uint32_t retrans_timer;    /**< ms, 0: unspecified */
	unsigned int n_prefixes;   /**< 0: the port's subnets */
	struct dpr_ra_prefix_conf prefixes[DPR_RA_MAX_PREFIXES];
};

/**
 * What a port learns about its neighbours from the wire
 * (ports[].neighbor_learning; docs/security.md says what each guards against).
 */
enum dpr_neigh_learning {
	/** As Linux by default: entries from requests for the router's
	 * addresses and answers to its own; a known MAC may change, not
	 * within the lock time of its last change. */
	DPR_NEIGH_LEARN = 0,
	/** As LEARN, but gratuitous ARP, unsolicited ARP replies and
	 * unsolicited neighbour advertisements are ignored. */
	DPR_NEIGH_IGNORE_GRATUITOUS,
	/** Nothing from the wire: only static neighbours; no requests sent. */
	DPR_NEIGH_STATIC_ONLY,
};

/*
 * VRFs: vrfs[0] is the default VRF, which every interface is in unless it
 * says otherwise; the file's vrfs[] follow, in file order. A VRF's index
 * is what interfaces, routes and the router's tables use.
 */
#define DPR_MAX_VRFS 16
#define DPR_VRF_DEFAULT 0
#define DPR_VRF_NAME_MAX 15
#define DPR_VRF_DEFAULT_NAME "default"

/** A VRF (vrfs[]): its own IPv4 and IPv6 FIB, sized as "fib" unless it
 * says otherwise. */
struct dpr_vrf_conf {
	char name[DPR_VRF_NAME_MAX + 1];
	uint32_t table;          /**< its kernel table (FPM's RTA_TABLE, the mirror's) */
	uint32_t ip4_max_routes;
	uint32_t ip4_tbl8_groups;
	uint32_t ip6_max_routes;
	uint32_t ip6_tbl8_groups;
	enum dpr_fib_algo ip4_algorithm;
	enum dpr_fib_algo ip6_algorithm;
};

/** The lowest and highest VLAN id of a VLAN interface (802.1Q: 0 tags
 * priority only, 4095 is reserved). */
#define DPR_VLAN_ID_MIN 1
#define DPR_VLAN_ID_MAX 4094
/** Entries of a map indexed by a received tag's VID (12 bits: 0 to 4095,
 * the reserved 4095 included, which a frame may still carry). */
#define DPR_VLAN_MAP_SIZE 4096

/** The outer tag's TPID of a QinQ interface (vlans[].outer_proto):
 * 802.1ad's S-tag (the default) or 802.1Q's C-tag ("double tagged"). */
#define DPR_QINQ_TPID_AD 0x88a8
#define DPR_QINQ_TPID_Q 0x8100

/**
 * A port (ports[]) or a VLAN interface (vlans[]): the same per-interface
 * settings; a VLAN interface has no device of its own but a parent port
 * whose device, MAC and queues it shares.
 */
struct dpr_port_conf {
	char name[DPR_PORT_NAME_MAX + 1];
	int parent;              /**< -1: a port; else vlans[]: index of its port */
	uint16_t vlan_id;        /**< DPR_VLAN_ID_MIN to DPR_VLAN_ID_MAX; 0 for a port */
	/** A QinQ interface's outer (service) VLAN id, vlan_id its inner
	 * (customer) one; 0: single-tagged, or a port. */
	uint16_t outer_id;
	uint16_t outer_tpid;     /**< DPR_QINQ_TPID_AD or _Q with outer_id; else 0 */
	uint16_t vrf;            /**< index into vrfs[] (0: the default VRF) */
	char device[DPR_DEVICE_MAX]; /**< "" for a VLAN interface */
	bool has_mac;
	struct rte_ether_addr mac;
	uint16_t mtu;
	char tap[16];            /**< kernel TAP interface, "" for none */
	bool transparent;        /**< ARP and ICMP for the router go to the kernel */
	bool broadcast_echo;     /**< answer echo requests to the subnet broadcast */
	/** Forward what other ports receive for this port's subnet broadcasts
	 * (RFC 2644: off by default). */
	bool forward_directed_broadcast;
	/** Send ICMP and ICMPv6 redirects for what this port forwards back
	 * out of itself (RFC 1812 5.2.7.2, RFC 4861 8.2); on by default. */
	bool redirects;
	/** Unicast RPF on input, both families (RFC 3704): enum dpr_urpf of
	 * lib/datapath/urpf_dp.h, 0 off (default), 1 loose, 2 strict. */
	uint8_t urpf;
	uint8_t neighbor_learning;  /**< enum dpr_neigh_learning */
	char acl_in[32];            /**< ACL for what enters, "" for none (lib/acl) */
	char acl_out[32];           /**< ACL for what leaves */
	struct dpr_ra_conf_port ra; /**< router advertisements (IPv6) */
	unsigned int n_addrs;
	struct dpr_prefix addrs[DPR_MAX_PORT_ADDRS]; /**< address + subnet length */
};

/** One next hop of a multipath route (routes[].nexthops[]). */
struct dpr_route_nh_conf {
	struct dpr_ip via;       /**< the gateway */
	int port;                /**< index into ports[]: the gateway's link */
	uint16_t weight;         /**< 1 to DPR_NH_WEIGHT_MAX (default 1) */
};

/**
 * A static route: one next hop (via and/or port), or with "nexthops" a
 * multipath group of gateways (n_nexthops > 0, via and port unused).
 */
struct dpr_route_conf {
	struct dpr_prefix prefix;
	uint16_t vrf;            /**< index into vrfs[] */
	bool has_via;
	struct dpr_ip via;
	int port; /**< index into ports[], -1 when resolved from via */
	unsigned int n_nexthops;               /**< 0: via/port; 1 to DPR_NH_GROUP_MEMBERS */
	struct dpr_route_nh_conf *nexthops;    /**< n_nexthops of them, freed with the config */
};

struct dpr_neigh_conf {
	struct dpr_ip addr;
	struct rte_ether_addr mac;
	int port; /**< index into ports[] */
};

/** "fpm": routes from FRR's zebra (dplane_fpm_nl), lib/fpm/fpm_router.h. */
struct dpr_fpm_conf {
	bool enabled;            /**< the key is there */
	char listen[64];         /**< "ADDR:PORT" (default DPR_FPM_LISTEN_DEFAULT) */
	uint32_t table;          /**< kernel table taken (default 254, main) */
	uint32_t grace_s;        /**< stale routes kept after zebra goes (default 30) */
};

#define DPR_FPM_GRACE_DEFAULT 30
#define DPR_FPM_GRACE_MAX 3600

/** "kernel_routes": the kernel table mirror, lib/kernel/kroute.h. */
struct dpr_kroute_conf {
	bool enabled;            /**< the key is there */
	uint32_t table;          /**< kernel table mirrored (default 254, main) */
	uint32_t socket_buffer;  /**< netlink receive buffer, bytes (default 8 MiB) */
	/** Bit p: routes of protocol p (RTPROT_*) are ignored; RTPROT_KERNEL always. */
	uint64_t ignore_protocols[4];
};

#define DPR_KROUTE_TABLE_MAIN 254
#define DPR_KROUTE_SOCKET_BUFFER_DEFAULT (8u << 20)
#define DPR_KROUTE_SOCKET_BUFFER_MIN 4096u
#define DPR_KROUTE_SOCKET_BUFFER_MAX (1u << 30)

/** "metrics": the Prometheus endpoint, lib/metrics/metrics.h. */
struct dpr_metrics_conf {
	bool enabled;            /**< the key is there */
	char listen[64];         /**< "ADDR:PORT" */
};

struct dpr_config {
	char path[PATH_MAX];
	/** ports[0, n_phys) are the file's ports[], ports[n_phys, n_ports) its
	 * vlans[] (VLAN interfaces, parent < n_phys), in file order. */
	unsigned int n_ports;
	unsigned int n_phys;
	struct dpr_port_conf ports[DPR_MAX_PORTS];
	unsigned int n_vrfs;     /**< at least 1: the default VRF */
	struct dpr_vrf_conf vrfs[DPR_MAX_VRFS];
	unsigned int n_routes;
	struct dpr_route_conf *routes;
	unsigned int n_neighs;
	struct dpr_neigh_conf *neighs;
	char socket[108];
	char socket_group[64];   /**< group allowed on the socket, "" = root only */
	uint32_t ip4_max_routes;
	uint32_t ip4_tbl8_groups;
	uint32_t ip6_max_routes;
	uint32_t ip6_tbl8_groups;
	enum dpr_fib_algo ip4_algorithm; /**< fib.ipv4_algorithm */
	enum dpr_fib_algo ip6_algorithm; /**< fib.ipv6_algorithm */
	uint32_t learned_neighbors_max; /**< next hops ARP may create (fib.learned_neighbors_max) */
	struct dpr_fpm_conf fpm;
	struct dpr_kroute_conf kernel_routes;
	struct dpr_metrics_conf metrics;
	/** "acls" as the file gives them (checked by lib/acl), NULL: none. */
	struct json_t *acls;
	struct dpr_copp_conf control_plane; /**< control-plane protection (lib/copp) */
};

/**
 * Load and check a configuration file.
 *
 * @return
 *   A new configuration, or NULL with errno set (EINVAL for a bad file,
 *   ENOENT/EACCES for one that cannot be read, ENOMEM) and a message that
 *   names the JSON path, the value and what is expected written to @p err.
 */
struct dpr_config *dpr_config_load(const char *path, char *err, size_t err_len);

/** Same as dpr_config_load() on a string; @p origin names it in messages. */
struct dpr_config *dpr_config_parse(const char *text, const char *origin,
				    char *err, size_t err_len);

void dpr_config_free(struct dpr_config *cfg);

/**
 * Check @p text ("10.0.3.1/24") as an address for port @p port_name, as the
 * file's addresses are checked (a unicast host address with its subnet
 * length); whether it clashes with the router's other addresses is
 * dpr_ifaddr_add()'s to say.
 * @return 0 with the address in @p out, or -EINVAL with a message.
 */
int dpr_config_check_address(const char *port_name, const char *text, struct dpr_prefix *out,
			     char *err, size_t err_len);

struct dpr_ifaddrs;

/**
 * The ports' addresses as the file gives them, into @p t (the table the
 * router then owns; the config is only its input).
 */
void dpr_config_addresses(const struct dpr_config *cfg, struct dpr_ifaddrs *t);

/** "learn", "ignore_gratuitous", "static_only": as the file names @p mode. */
const char *dpr_config_neigh_learning_name(enum dpr_neigh_learning mode);

/** Whether interface @p pc is a VLAN interface (vlans[]), not a port. */
static inline bool
dpr_port_conf_is_vlan(const struct dpr_port_conf *pc)
{
	return pc->parent >= 0;
}

/** Index of the VRF named @p name (vrfs[]; "default" is 0), or -1. */
int dpr_config_vrf_index(const struct dpr_config *cfg, const char *name);

/**
 * A VRF's "fib" object @p fib (sizes and algorithms; @p path names it in
 * messages) into @p v, which holds what applies to a key left out: the
 * config file's vrfs[] and vrf.add take it alike.
 * @return 0, or -EINVAL with "PATH.KEY: what is wrong" in @p err.
 */
int dpr_config_vrf_fib(struct json_t *fib, const char *path, struct dpr_vrf_conf *v,
		       char *err, size_t len);

/**
 * Whether @p name may name a host-stack TAP ("tap" of ports[], vlans[]
 * and vlan.add): 1 to 15 (IFNAMSIZ - 1) letters, digits, '-', '_' or '.',
 * not "." or ".." (which Linux refuses).
 * It goes into net_tap's devargs ("iface=NAME,mac=..."): a ',' or '='
 * would add arguments of its own.
 */
bool dpr_tap_name_valid(const char *name);

/** The message for a "tap" that dpr_tap_name_valid() refuses. */
#define DPR_TAP_NAME_EXPECTED \
	"expected a Linux interface name (1 to 15 letters, digits, '-', '_' or '.', not \".\" or \"..\") or false"

/** Is @p name one a VRF of vrfs[] may have: 1 to DPR_VRF_NAME_MAX letters,
 * digits, '-' or '_', and not the default VRF's? */
bool dpr_vrf_name_valid(const char *name);

/**
 * Whether VLAN interface @p pc (parent, vlan_id, outer_id, outer_tpid)
 * may join the VLAN interfaces of @p cfg: its ids in range, and no other
 * interface on its port with the same (outer, inner) pair, whatever the
 * outer TPID (net_af_packet loses it), nor a single-tagged one whose id is
 * a 0x8100 outer id of @p pc, or the reverse (the one tag would name both).
 * Interfaces of @p cfg from @p skip on are not compared (the config file
 * checks each against those before it). @return 0, or -EINVAL (a range)
 * or -EEXIST with what is wrong in @p err.
 */
int dpr_config_vlan_check(const struct dpr_config *cfg, const struct dpr_port_conf *pc,
			  unsigned int skip, char *err, size_t len);

/** "802.1ad" or "802.1q" for TPID @p tpid (outer_proto). */
const char *dpr_config_outer_proto_name(uint16_t tpid);

/** The message for a uRPF mode that is none of dpr_config_urpf_mode()'s. */
#define DPR_CONFIG_URPF_EXPECTED \
	"expected \"strict\", \"loose\" or \"off\" (RFC 3704 unicast reverse-path forwarding)"

/**
 * A port's or VLAN interface's "urpf" (the file's and vlan.add's):
 * @return 0 "off", 1 "loose", 2 "strict" (enum dpr_urpf), or -1 for
 *   anything else (NULL included).
 */
int dpr_config_urpf_mode(const char *text);

/** Whether @p name may name a port (@p vlan false) or a VLAN interface
 * (which may have '.' too): 1 to DPR_PORT_NAME_MAX letters, digits, '-', '_'. */
bool dpr_port_name_valid(const char *name, bool vlan);

/** The config file's path of interface @p i, "ports[i]" or "vlans[k]", into
 * @p buf. @return @p buf. */
const char *dpr_config_iface_path(const struct dpr_config *cfg, unsigned int i, char *buf,
				  size_t len);

/** Index of the port or VLAN interface named @p name, or -1. */
int dpr_config_port_index(const struct dpr_config *cfg, const char *name);

/**
 * Index of the port or VLAN interface whose name is not @p name but reads
 * the same once '-' and '.' read as '_' ("p0_10" and "p0.10"), or -1. DPDK
 * telemetry keys take neither '-' nor '.' (lib/telemetry writes '_'), so
 * two such interfaces would share their keys: the config file and vlan.add
 * refuse the second.
 */
int dpr_config_port_clash(const struct dpr_config *cfg, const char *name);

