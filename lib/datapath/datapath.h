/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Worker state and counters. One struct dpr_worker per worker lcore,
 * cache-aligned and allocated on the lcore's NUMA socket. The worker is the
 * only writer of everything in it; the control thread reads the counters
 * (64-bit loads, never torn on the 64-bit targets DPDK supports) and writes
 * nothing in it after launch; the tables the worker reads (FIB entries,
 * next-hop words) it changes in place with atomic stores.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_vect.h>

#include "../config/config.h"
#include "../copp/copp.h"
#include "../fib/fib.h"
#include "../nexthop/nexthop.h"

struct dpr_fib6;
struct dpr_acl_binds;

#define DPR_BURST 32
/* 63 packets and the count make a 512-byte buffer: indexed by a shift. */
#define DPR_TXBUF 63

/** Why a packet was dropped. Every drop in the datapath has one reason. */
enum dpr_drop {
	DPR_DROP_NONE = 0,        /**< not a drop (kept so reasons index from 1) */
	DPR_DROP_RUNT,            /**< frame too short for its headers */
	DPR_DROP_OTHER_HOST,      /**< unicast to another MAC */
	DPR_DROP_UNSUPPORTED_L3,  /**< neither IPv4, IPv6, ARP nor a link protocol the host
				       stack speaks (dpr_l2_control()): STP, LACP, ...; or
				       IPv6 on an interface below 1280 (DPR_IN_NO_IP6) */
	/** 802.1Q-tagged for a VLAN id that no VLAN interface of the port has
	 * (any id but 0 on a port without VLAN interfaces) */
	DPR_DROP_UNKNOWN_VLAN,
	DPR_DROP_BAD_HEADER,      /**< IP version or IHL wrong (RFC 1812 5.2.2, RFC 8200 3) */
	DPR_DROP_BAD_LENGTH,      /**< total or payload length vs header or frame */
	DPR_DROP_BAD_CHECKSUM,    /**< IPv4 header checksum */
	DPR_DROP_MARTIAN,         /**< source or destination never routed (RFC 1812 5.3.7,
				       RFC 4291 2.5.2-2.5.6, a link-local destination not ours) */
	DPR_DROP_BLACKHOLE,
	DPR_DROP_EXCEPTION_FULL,  /**< exception ring to the control thread full */
	DPR_DROP_TX_FULL,         /**< TX queue did not take it */
	DPR_DROP_ACL,             /**< denied or rejected by an ACL, or its L4 header
				       unreadable where an ACL needs it (lib/acl) */
	DPR_DROP_URPF,            /**< its source fails the interface's uRPF check
				       (RFC 3704, urpf_dp.h) */
	/** an exception over its protection class's rate or ring share (lib/copp) */
	DPR_DROP_CONTROL_PLANE,
	DPR_DROP_MAX
};

/**
 * Why a packet went to the control thread, which answers it (ARP, ICMP),
 * resolves for it, forwards it the slow way or hands it to the kernel.
 */
enum dpr_exc {
	DPR_EXC_ARP = 0,
	DPR_EXC_LOCAL,        /**< for one of the router's addresses, broadcast, multicast
				   (NDP and MLD among them) */
	DPR_EXC_IP_OPTIONS,   /**< IPv4 IHL > 5, IPv6 hop-by-hop options: forwarded by
				   the control thread */
	DPR_EXC_TTL_EXPIRED,  /**< TTL or hop limit would reach 0: ICMP time exceeded */
	DPR_EXC_NO_ROUTE,     /**< ICMP net / ICMPv6 no route unreachable */
	DPR_EXC_UNRESOLVED,   /**< next hop without a MAC: ARP or NDP, hold, send */
	DPR_EXC_MTU_EXCEEDED, /**< larger than the output MTU: ICMP frag needed / fragment,
				   ICMPv6 packet too big */
	DPR_EXC_BEYOND_SCOPE, /**< IPv6 link-local source to leave its link: ICMPv6
				   unreachable, beyond scope of source (RFC 4007 9) */
	DPR_EXC_L2_CONTROL,   /**< a link protocol the host stack speaks (LLDP, IS-IS):
				   to the port's TAP (dpr_l2_control()) */
	DPR_EXC_REDIRECT,     /**< forwarded back out of the port it came in on: the
				   control thread sends a redirect and forwards it
				   (dpr_l3_hairpin()) */
	DPR_EXC_MAX
};

extern const char *const dpr_drop_names[DPR_DROP_MAX];
extern const char *const dpr_exc_names[DPR_EXC_MAX];

/**
 * Counters of one worker for one port. Everything but tx is counted on the
 * input port, so rx == forwarded + exception + sum(drops) holds per port and
 * per worker at any quiescent moment; tx counts what left through the port.
 */
struct dpr_port_counters {
	uint64_t rx;
	uint64_t forwarded;   /**< received here and handed to a TX queue */
	uint64_t tx;          /**< sent out of this port */
	/** Its TX queue did not take them (each is drops.tx_full on the port
	 * it came in on): which link is congested. */
	uint64_t tx_refused;
	uint64_t exception;
	uint64_t exc[DPR_EXC_MAX];
	uint64_t drops[DPR_DROP_MAX];
} __rte_cache_aligned;

/**
 * What workers need of a port or VLAN interface (a logical port, sharing
 * its parent's DPDK port, MAC and queues); written before workers start,
 * then read-only, but for a slot no worker can reach: a VLAN interface's
 * before vlan.add publishes it in its parent's vlan_if map, with a release
 * store there (the map itself likewise), and a freed one after vlan.del
 * unpublished it and a grace period passed (lib/router/iface.c).
 */
struct dpr_port_dp {
	struct rte_ether_addr mac;
	uint16_t port_id;   /**< DPDK port id (a VLAN interface's: its parent's) */
	uint16_t mtu;
	bool rx_ip_cksum;   /**< the NIC checks IPv4 checksums: ol_flags say so */
	bool redirects;     /**< redirects for what leaves where it came in (config) */
	uint8_t urpf;       /**< enum dpr_urpf (urpf_dp.h): the check on input */
	/** The device puts VLAN tags on (RTE_MBUF_F_TX_VLAN): a VLAN
	 * interface's tag goes in vlan_tci, not the data (vlan_dp.h). */
	bool vlan_insert;
	/** The device takes VLAN tags off on RX (RTE_ETH_RX_OFFLOAD_VLAN_STRIP
	 * granted): a tag in a frame's data is an inner one, the outer in
	 * vlan_tci (vlan_dp.h), so its bursts never go by the data's tag
	 * (vlan.c). */
	bool vlan_strip;
	uint16_t vlan_tci;  /**< a VLAN interface's tag, put on at TX; 0: a port */
	/** The interface's VRF (its slot in the router's vrfs[]): the
	 * control-plane peer filter's (lib/copp) is per VRF. */
	uint16_t vrf;
	/** A port with VLAN interfaces: 1 + the dpr port index of the VLAN
	 * interface of each VLAN id, 0 for none (4096 entries); NULL: the
	 * port has none, and its bursts are not demultiplexed. */
	const uint8_t *vlan_if;
	/** A QinQ interface's outer tag (DPR_QINQ_OUTER(): TPID, VLAN id),
	 * put on outside vlan_tci at TX; 0: none (qinq_dp.h). */
	uint32_t vlan_outer;
	/** A port with QinQ interfaces: their map, never NULL again once
	 * set (its vlan_if is not either); NULL: none (qinq_dp.h). */
	const struct dpr_qinq_map *qinq;
	/** The FIBs of the interface's VRF, where what it receives is looked
	 * up; NULL: the worker's own (w->fib, w->fib6: a unit rig's). */
	struct dpr_fib4 *fib4;
	struct dpr_fib6 *fib6;
	/** Which input stages a burst received here goes through before L3
	 * (enum dpr_in_stage bits; 0: none, the common case: one test a
	 * burst, dpr_input_stages_burst()). Derived from vlan_if, urpf and
	 * the ACL bound in (dpr_port_in_stages_sync()), rewritten by the
	 * control thread (an atomic store) when one of those changes; each
	 * stage tests its own setting again, so a worker that sees the
	 * byte a moment late runs a stage that is off, or skips one just
	 * turned on, as it would have a burst earlier. */
	uint8_t in_stages;
	/** Which output stages a flush to here goes through (enum
	 * dpr_out_stage bits; 0: none, one test a flush, dpr_tx_flush()):
	 * the ACL bound out, the interface's tags (vlan_tci). Kept as
	 * in_stages is; the tag bit is set before any worker can send here
	 * and stays while the interface exists. */
	uint8_t out_stages;
};

/** Bits of dpr_port_dp.in_stages. */
enum dpr_in_stage {
	DPR_IN_VLAN = 1 << 0, /**< vlan_if: bursts split by VLAN (vlan.c) */
	DPR_IN_ACL = 1 << 1,  /**< an input ACL (lib/acl/acl_dp.h) */
	DPR_IN_URPF = 1 << 2, /**< uRPF on (urpf_dp.h) */
	/** MTU below 1280: no IPv6 here (RFC 8200 5), what comes in is
	 * dropped as unsupported_l3 (dpr_no_ip6_burst()). */
	DPR_IN_NO_IP6 = 1 << 3,
};

/** Bits of dpr_port_dp.out_stages. */
enum dpr_out_stage {
	DPR_OUT_ACL = 1 << 0, /**< an output ACL (lib/acl/acl_dp.h) */
	DPR_OUT_TAG = 1 << 1, /**< a VLAN or QinQ interface: tags put on (vlan.c) */
	/** A VLAN interface (one tag) whose device does not insert tags and
	 * with no output ACL: pass 3 of a burst received still tagged writes
	 * the tag with the MACs (vlan_tagged_burst(), vlan.c). */
	DPR_OUT_PRETAG = 1 << 2,
};

/**
 * Set in_stages and out_stages of the @p n interfaces at @p ports from
 * their settings and the ACLs bound in @p acl (NULL: none). The control
 * thread's, at start, for a new interface before workers reach it, and
 * after any change of a VLAN map, uRPF or an ACL binding.
 */
void dpr_port_in_stages_sync(struct dpr_port_dp *ports, unsigned int n,
			     const struct dpr_acl_binds *acl);

/*
 * mbuf->port of a packet received on dpr port @p p of @p ports: a port's
 * packets keep the PMD's port id; a VLAN interface's get RTE_MAX_ETHPORTS
 * + p, past every DPDK port id, so that dpr_tx_flush() charges a refused
 * one to the interface it came in on (lib/capture reads it too).
 */
static inline uint16_t
dpr_mbuf_port(const struct dpr_port_dp *ports, uint16_t p)
{
	return ports[p].vlan_tci != 0 ? (uint16_t)(RTE_MAX_ETHPORTS + p) : ports[p].port_id;
}

/**
 * The dpr port packet @p m, which a worker forwards out of port @p p,
 * came in on and was counted as forwarded on (mbuf->port, which the screen
 * made sure of, dpr_mbuf_port(); @p p if it is none of ours).
 */
#define dpr_mbuf_in_port(w, m, p) dpr_mbuf_in_port_((w)->ports, (w)->port_index, \
						    (w)->n_ports, (m), (p))

static inline uint16_t
dpr_mbuf_in_port_(const struct dpr_port_dp *ports, const uint8_t *port_index, uint16_t n_ports,
		  const struct rte_mbuf *m, uint16_t p)
{
	uint16_t pid = m->port;

	if (pid < RTE_MAX_ETHPORTS && ports[port_index[pid]].port_id == pid)
		return port_index[pid];
	if (pid >= RTE_MAX_ETHPORTS && pid - RTE_MAX_ETHPORTS < n_ports)
		return (uint16_t)(pid - RTE_MAX_ETHPORTS);
	return p;
}

struct dpr_txbuf {
	uint16_t n;
	/** How many of the n already carry the interface's tag in their data,
	 * written by pass 3 of a burst received still tagged (vlan.c): only
	 * an interface with DPR_OUT_PRETAG has any; its flush resets it. */
	uint16_t pretagged;
	struct rte_mbuf *pkts[DPR_TXBUF];
};
_Static_assert(sizeof(struct dpr_txbuf) == 512, "TX buffer size");

struct dpr_rxq {
	uint16_t port;      /**< dpr port index */
	uint16_t queue;
};

/** How a worker runs its bursts (dpr --pipeline). */
enum dpr_pipeline {
	DPR_PIPELINE_AUTO = 0, /**< whichever costs fewer cycles a packet here */
	DPR_PIPELINE_ON,       /**< a burst waits across the next RX poll */
	DPR_PIPELINE_OFF,      /**< each burst forwarded at once */
};

/*
 * The tuner behind DPR_PIPELINE_AUTO. Pipelined, a burst waits across the
 * next RX poll while its FIB entries come in: best when they miss the
 * caches (a full table). At once, half as many packets are in flight, so
 * the PMD's lines (mbufs, packet data) stay in L1: best when the FIB is
 * cached anyway. Measured on net_pcap, each wins by 6-8 % where it is best,
 * and a NIC, a CPU or the traffic can move the line, so the worker measures
 * its busy cycles per packet in both ways, in windows that alternate in
 * pairs, keeps the cheaper and measures again later. dpr_tune_step() is all
 * of it: a pure function of the worker's own counters (no timer, no system
 * call).
 *
 * The windows run A B, B A, A B... (A: the way before the probe), so that
 * a cost that drifts through a probe, or a window that runs cheaper for
 * coming second in its pair, favours neither way: in pairs that all ran
 * A B, the way second in each (pipelined) looked cheaper, and the tuner
 * chose it where the other was faster by 10 % (benchmarks.md). The verdict
 * is the median over the 8 pairs of pipelined's cycles a packet over at
 * once's, against 1: a moment of noise (a neighbour on the host) sways a
 * pair or two, not the verdict, where it could sway a sum.
 */
#define DPR_TUNE_WINDOW (UINT64_C(1) << 19)  /**< packets a window */
#define DPR_TUNE_WINDOWS 16                  /**< windows a probe, half each way */
#define DPR_TUNE_SETTLE (UINT64_C(1) << 28)  /**< packets between probes */
/** Packets before the first probe: while the caches and the pools warm up
 * after a start, each window costs less than the one before (benchmarks.md). */
#define DPR_TUNE_FIRST (UINT64_C(1) << 24)

struct dpr_tune {
	uint64_t next_rx;      /**< rx_total at which to step */
	uint64_t mark_rx;      /**< rx_total and busy cycles at the window's start */
	uint64_t mark_cycles;
	/** The probe under way: each window's packets and busy cycles. */
	uint64_t win_pkts[DPR_TUNE_WINDOWS];
	uint64_t win_cycles[DPR_TUNE_WINDOWS];
	uint32_t window;       /**< window of the probe under way; 0: settled */
	bool pipelined;        /**< how bursts run now */
	bool settled_way;      /**< how they ran before this probe */
	uint64_t probes;       /**< probes finished */
	uint64_t changes;      /**< probes that changed the way */
	/** The last probe finished, for the operator (written by the worker
	 * at its end, read by the control thread, each field on its own: a
	 * read as a probe ends may mix two probes): cycles a packet in all,
	 * at once / pipelined, in hundredths; the median ratio; the pairs
	 * pipelined won; each window's cycles a packet, in hundredths, and
	 * its way (bit k set: window k ran pipelined). */
	uint64_t last_cpp100[2];
	uint64_t last_median_ratio; /**< the verdict's ratio (below), 2^-16 units */
	uint32_t last_pipe_pairs;
	uint32_t last_win_pipe;
	uint32_t last_win_cpp100[DPR_TUNE_WINDOWS];
};

/**
 * The busy cycles between two of a worker's TSC reads (@p start, then
 * @p now), which are 16 busy loops apart at most: none when the TSC went
 * backwards or leapt by more than DPR_TSC_SPAN_MAX cycles (seconds at any
 * clock rate). A VM's TSC can do either when the VM is paused and
 * restored (util/clock.h); counted, a jump back would wrap busy_cycles
 * and a leap forward would add hours to it, and to a tuner window.
 */
#define DPR_TSC_SPAN_MAX (UINT64_C(1) << 33)

static inline uint64_t
dpr_tsc_span(uint64_t now, uint64_t start)
{
	uint64_t d = now - start;

	return d <= DPR_TSC_SPAN_MAX ? d : 0;
}

/** Whether window @p window (1 to DPR_TUNE_WINDOWS) of a probe that
 * started from way @p settled runs pipelined: A B, B A, A B... */
static inline bool
dpr_tune_way(bool settled, uint32_t window)
{
	uint32_t k = window - 1;

	return settled ^ (((k >> 1) ^ k) & 1);
}

/**
 * The tuner's step, when rx_total reaches @p t->next_rx: close the window
 * (its packets and busy cycles go to the way it ran), alternate, or at the
 * probe's end keep the way with fewer cycles a packet and settle; a settled
 * tuner starts a probe. @p rx and @p cycles: the worker's rx_total and
 * busy_cycles now. @return whether bursts run pipelined from now on.
 */
bool dpr_tune_step(struct dpr_tune *t, uint64_t rx, uint64_t cycles);

/** A worker's tuner at start: running @p pipelined, its first probe due
 * after DPR_TUNE_FIRST packets. */
void dpr_tune_init(struct dpr_tune *t, bool pipelined);

struct dpr_worker {
	/*
	 * Read-mostly, set up by the control thread before launch. A VLAN
	 * interface added at run time (lib/router/iface.c) is the exception:
	 * the control thread raises n_ports, lowers fast_max_len to its MTU
	 * (atomic stores; vlan.del raises it back) and fills the
	 * per-interface fields of its slot (head[p] ...) while no worker can
	 * reach that slot, a grace period before it publishes the interface.
	 */
	unsigned int lcore;
	unsigned int index;          /**< TX queue id and RCU thread id */
	uint16_t n_ports;            /**< interfaces' slots in use or freed: 1 + the highest */
	uint16_t n_rxq;
	struct dpr_rxq rxq[2 * DPR_MAX_PORTS];
	const struct dpr_port_dp *ports;
	uint8_t port_index[RTE_MAX_ETHPORTS]; /**< DPDK port id -> dpr port */
	/* The default VRF's FIBs: those of a port whose dpr_port_dp names
	 * none (unit rigs); dpr's own ports all name their VRF's. */
	struct dpr_fib4 *fib;
	struct dpr_fib6 *fib6;
	const union dpr_nh_word *nh;
	/** Where the worker reports quiescence; dpr_ip4_pipeline() does too
	 * (IPv6 in a deep FIB), so a harness that sends IPv6 through a deep
	 * FIB must set it. */
	struct rte_rcu_qsbr *qsbr;
	struct rte_ring *exc_ring;   /**< single producer: this worker */
	struct rte_ring *cap_ring;   /**< captured drops, to the control thread (lib/capture) */
	/** Each interface's ACLs (lib/acl/acl_dp.h); dpr_worker_prepare()
	 * points it at none when left NULL. */
	const struct dpr_acl_binds *acl;
	/** Drop reasons being captured (bit per enum dpr_drop), 0: none.
	 * Written by the control thread, read once a burst that dropped. */
	uint32_t cap_drops;
	uint64_t max_rx;             /**< 0: unbounded */
	uint32_t idle_sleep_us;      /**< 0: busy-poll */
	uint8_t pipeline;            /**< enum dpr_pipeline */
	const volatile bool *quit;
	/* Derived by dpr_worker_prepare() for the fast path. */
	uint32_t fast_max_len;       /**< frames up to this fit every port's MTU */
	rte_xmm_t head_mask;         /**< what dpr_head_ok() compares of head[] */
	rte_xmm_t head[DPR_MAX_PORTS];        /**< port MAC, IPv4, version 4, IHL 5 */
	uint64_t src_mac_type[DPR_MAX_PORTS]; /**< port MAC + IPv4 ether type */
	rte_xmm_t head6_mask;        /**< what dpr_ip6_screen() compares */
	rte_xmm_t head6[DPR_MAX_PORTS];       /**< port MAC, IPv6, version 6 */
	uint64_t src_mac_type6[DPR_MAX_PORTS]; /**< port MAC + IPv6 ether type */
	/** A VLAN interface's tag as it lies in a frame (DPR_VLAN_WORD()); 0 for
	 * a port or a QinQ interface. */
	uint32_t tag_word[DPR_MAX_PORTS];
	/** A VLAN interface's head[] as seen 4 bytes into a tagged frame (the
	 * MAC's last 2 bytes, the tag, the inner EtherType, version and IHL),
	 * where the screen of a burst kept tagged compares (vlan.c), with the
	 * MAC's first 4 bytes in bytes 4-7 (the source MAC's there: the
	 * screen puts the frame's first 4 bytes in their place,
	 * dpr_head_ok()). */
	rte_xmm_t head_tag[DPR_MAX_PORTS];
	rte_xmm_t head_tag_mask;
	rte_xmm_t head6_tag[DPR_MAX_PORTS];   /**< the same for IPv6 (head6[]) */
	rte_xmm_t head6_tag_mask;
	/** A VLAN interface's tagged frame's first 16 bytes as pass 3 writes
	 * them, less the next hop's MAC (bytes 0-5, zero): its MAC, its tag
	 * (dpr_set_macs_tag()). */
	rte_xmm_t tag_head[DPR_MAX_PORTS];
	uint64_t redirect_gap;       /**< TSC cycles between two hairpin diverts of a port */

	/* Written by the worker only; a freed interface's slot of redirect_tsc,
	 * tx and stats (empty, unreached since a grace period) is reset by the
	 * control thread for its next interface (lib/router/iface.c). */
	volatile bool done;
	uint64_t busy_cycles __rte_cache_aligned;
	uint64_t rx_total;
	uint64_t loops;
	uint64_t rx_bursts;          /**< RX bursts that brought packets */
	uint64_t tx_last;            /**< port pass 3 last sent to: where it starts */
	uint64_t cap_missed;         /**< captured drops the capture ring refused */
	uint64_t redirect_tsc[DPR_MAX_PORTS]; /**< TSC of the last hairpin divert, per input port */
	struct dpr_tune tune;        /**< tune.pipelined: how bursts run now */
	struct dpr_txbuf tx[DPR_MAX_PORTS];
	struct dpr_port_counters stats[DPR_MAX_PORTS];
	/** Control-plane protection (lib/copp): the worker's buckets and
	 * counters; its drained counts alone are the control thread's. */
	struct dpr_copp_worker copp;
} __rte_cache_aligned;

/* lib/capture/capture.h's, declared here for dpr_drops_free(). */
void dpr_capture_drops_bulk(struct dpr_worker *w, struct rte_mbuf **pkts, unsigned int n,
			    uint32_t cap);

/**
 * Free the @p n packets at @p pkts that worker @p w drops for reason
 * @p why (each carries it in hash.usr, counted by the caller), or hand them
 * to a running capture of that reason (lib/capture).
 */
static inline void
dpr_drops_free(struct dpr_worker *w, struct rte_mbuf **pkts, unsigned int n, enum dpr_drop why)
{
	uint32_t cap = __atomic_load_n(&w->cap_drops, __ATOMIC_RELAXED);

	if (unlikely(cap & (1u << why)))
		dpr_capture_drops_bulk(w, pkts, n, cap);
	else
		rte_pktmbuf_free_bulk(pkts, n);
}

/**
 * The TSC, for a worker's gates and cycle counts, read where a stage
 * outside lib/datapath needs it (an ACL's rejects: lib/acl/acl_dp.h). The
 * control thread's timers use dpr_clock_now() (lib/util/clock.h), never
 * this (tests/unit/control_clock.sh).
 */
static __rte_always_inline uint64_t
dpr_worker_tsc(void)
{
	return rte_rdtsc();
}

/**
 * Exception metadata the worker stores in the mbuf: class and input port in
 * hash.usr, an argument in hash.fdir.hi (the next hop for UNRESOLVED, the
 * output port for MTU_EXCEEDED). The top 4 bits of hash.usr: its
 * protection class + 1 (lib/copp), set as it passes the gate; 0 for what
 * no gate let through (a worker without the gate).
 */
#define DPR_EXC_META(cls, port) (((uint32_t)(cls) << 16) | (port))
#define DPR_EXC_META_CLASS(u) (((u) >> 16) & 0xfff)
#define DPR_EXC_META_COPP_SHIFT 28
#define DPR_EXC_META_COPP(u) ((u) >> DPR_EXC_META_COPP_SHIFT)
#define DPR_EXC_META_PORT(u) ((u) & 0xffff)
#define DPR_EXC_ARG(m) ((m)->hash.fdir.hi)

/** What leaves a burst other than through a TX buffer, gathered per burst. */
struct dpr_burst {
	uint16_t in;          /**< dpr port the burst came in on */
	/* The FIBs of its VRF (dpr_burst_begin()). */
	struct dpr_fib4 *fib4;
	struct dpr_fib6 *fib6;
	uint16_t n_exc;
	uint16_t n_drop;
	struct rte_mbuf *exc[DPR_BURST];
	struct rte_mbuf *drop[DPR_BURST];
};

/**
 * Start burst @p b of dpr port @p in: nothing dropped or diverted yet, and
 * the FIBs of the port's VRF, which every lookup of the burst reads.
 */
static __rte_always_inline void
dpr_burst_begin(const struct dpr_worker *w, struct dpr_burst *b, uint16_t in)
{
	const struct dpr_port_dp *pd = &w->ports[in];

	b->in = in;
	b->n_exc = 0;
	b->n_drop = 0;
	b->fib4 = pd->fib4 != NULL ? pd->fib4 : w->fib;
	b->fib6 = pd->fib6 != NULL ? pd->fib6 : w->fib6;
}

/** Bits 0 to @p n - 1 (@p n at most 32): every packet of a burst of @p n. */
static __rte_always_inline uint32_t
dpr_burst_all(unsigned int n)
{
	return (uint32_t)((UINT64_C(1) << n) - 1);
}

/** Fill in the fields the fast path derives from ports (after w->ports). */
void dpr_worker_prepare(struct dpr_worker *w);

/**
 * Derive the fast path's fields of interface @p p alone (head[p],
 * src_mac_type[p] ..., redirect_tsc[p] cleared) from w->ports[p]: at start
 * for every port, and for a VLAN interface added at run time, by the
 * control thread, before any worker can reach slot @p p (lib/router/iface.c).
 */
void dpr_worker_prepare_port(struct dpr_worker *w, uint16_t p);

/**
 * Whether frame @p m, which came in on a port with MAC @p mac, belongs to
 * a link-layer control protocol the host stack speaks through the port's
 * TAP (lldpd, FRR's isisd): LLDP (EtherType 0x88CC) or IS-IS (an 802.3
 * length with LLC DSAP and SSAP 0xFE), addressed to @p mac or to one of
 * that protocol's link-local groups. The one place that decides which
 * non-IP frames are handed to the host stack (DPR_EXC_L2_CONTROL); the
 * multicast filter a port opens at start (lib/port) lets in
 * dpr_l2_control_groups.
 */
bool dpr_l2_control(const struct rte_mbuf *m, const struct rte_ether_addr *mac);

/** The link-local groups of the protocols dpr_l2_control() accepts. */
#define DPR_L2_CONTROL_GROUPS 7
extern const struct rte_ether_addr dpr_l2_control_groups[DPR_L2_CONTROL_GROUPS];

/**
 * The reference path for one packet of burst @p b, from its Ethernet header
 * on: RFC 1812 checks in order. A packet to look up and forward is trimmed
 * of link-layer padding and returned (true, *@p dst set) to rejoin the
 * burst; any other is diverted or dropped (false).
 */
bool dpr_ip4_slow(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m,
		  uint32_t *dst);

/**
 * The reference path for one IPv6 packet of burst @p b, from its Ethernet
 * header on: RFC 8200 and RFC 4291 checks in order. A packet to look up and
 * forward is trimmed of link-layer padding and returned (true) to rejoin the
 * burst; any other is diverted or dropped (false).
 */
bool dpr_ip6_slow(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m);

/** As dpr_ip4_act(), for an IPv6 packet. */
bool dpr_ip6_act(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m,
		 uint32_t nh, bool l2_bcast, union dpr_nh_word *h);

/** What a next hop does to a packet of either family whose headers passed. */
enum dpr_l3_verdict {
	DPR_L3_FORWARD = 0,   /**< rewrite and send through the next hop's port */
	DPR_L3_LOCAL,         /**< for the router itself */
	DPR_L3_UNRESOLVED,    /**< next hop without a MAC: resolve, hold */
	DPR_L3_BLACKHOLE,     /**< drop on purpose, silently */
	DPR_L3_NO_ROUTE,      /**< ICMP(v6) destination unreachable */
	DPR_L3_TTL_EXPIRED,   /**< TTL or hop limit: ICMP(v6) time exceeded */
	DPR_L3_TOO_BIG,       /**< over the output MTU: fragment, or frag needed / packet too big */
	DPR_L3_L2_BCAST,      /**< link-layer broadcast not for us: drop */
	DPR_L3_LINK_LOCAL,    /**< IPv4 link-local (169.254/16) source or destination: never
				   forwarded (RFC 3927 7), drop as martian */
};

/**
 * Decide what next-hop word @p h does to a packet with TTL or hop limit
 * @p ttl and @p len bytes of IP packet, that arrived as link-layer broadcast
 * or multicast when @p l2_bcast. The one place that decides, for both
 * families: the worker's reference paths (dpr_ip4_act(), dpr_ip6_act()) and
 * the control thread's slow path (lib/exception) call it. @p ports: MTUs.
 * @p h is never a multipath group's: callers decide by the member the
 * packet's flow takes (dpr_nh_group_pick_rcu(), dpr_nh_pick()).
 */
static inline enum dpr_l3_verdict
dpr_l3_decide(union dpr_nh_word h, uint8_t ttl, uint32_t len, bool l2_bcast,
	      const struct dpr_port_dp *ports)
{
	switch (h.kind) {
	case DPR_NH_KIND_LOCAL:
		return DPR_L3_LOCAL;
	case DPR_NH_KIND_BLACKHOLE:
		return DPR_L3_BLACKHOLE;
	case DPR_NH_KIND_FORWARD:
	case DPR_NH_KIND_UNRESOLVED:
	default:
		break;
	}
	/* RFC 1812 5.3.4: never forward what arrived as link-layer broadcast
	 * or multicast to a unicast IP destination (nor answer it with an
	 * error, 4.3.2.7); RFC 4443 2.4 (e.3) says the same for IPv6. */
	if (l2_bcast)
		return DPR_L3_L2_BCAST;
	if (h.kind == DPR_NH_KIND_UNRESOLVED)
		return DPR_L3_UNRESOLVED;
	if (h.kind != DPR_NH_KIND_FORWARD)
		return DPR_L3_NO_ROUTE;
	/* RFC 1812 5.3.1: TTL 1 or 0 is not forwarded; RFC 8200 3: nor is
	 * hop limit 1 or 0 (it would reach 0 here). */
	if (ttl <= 1)
		return DPR_L3_TTL_EXPIRED;
	if (len > ports[h.port].mtu)
		return DPR_L3_TOO_BIG;
	return DPR_L3_FORWARD;
}

/** Whether @p a (network order) is an IPv4 link-local address, 169.254/16. */
static inline bool
dpr_ip4_is_link_local(rte_be32_t a)
{
	return (a & RTE_BE32(0xffff0000)) == RTE_BE32(0xa9fe0000);
}

/**
 * dpr_l3_decide() for the IPv4 packet @p ip. A router MUST NOT forward a
 * packet with an IPv4 link-local source or destination, whatever its
 * routes say (RFC 3927 7), back onto its own link included: one that
 * would be sent on (or fragmented, or held for a neighbour) is
 * DPR_L3_LINK_LOCAL. The workers' screens send every 169/8 address to
 * the reference path (lib/fib's marks), which decides here.
 */
static inline enum dpr_l3_verdict
dpr_ip4_decide(union dpr_nh_word h, const struct rte_ipv4_hdr *ip, bool l2_bcast,
	       const struct dpr_port_dp *ports)
{
	enum dpr_l3_verdict v = dpr_l3_decide(h, ip->time_to_live,
					      rte_be_to_cpu_16(ip->total_length), l2_bcast, ports);

	if ((v == DPR_L3_FORWARD || v == DPR_L3_UNRESOLVED || v == DPR_L3_TOO_BIG) &&
	    (dpr_ip4_is_link_local(ip->src_addr) || dpr_ip4_is_link_local(ip->dst_addr)))
		return DPR_L3_LINK_LOCAL;
	return v;
}

/** dpr_l3_decide() for the IPv6 packet @p ip. */
static inline enum dpr_l3_verdict
dpr_ip6_decide(union dpr_nh_word h, const struct rte_ipv6_hdr *ip, bool l2_bcast,
	       const struct dpr_port_dp *ports)
{
	return dpr_l3_decide(h, ip->hop_limits,
			     rte_be_to_cpu_16(ip->payload_len) + (uint32_t)sizeof(*ip),
			     l2_bcast, ports);
}

/*
 * Flow hashes for multipath (dpr_nh_group_pick_rcu()): whatever a flow's
 * packets share, so that a flow keeps its path and is not reordered.
 * Ports count only in a TCP or UDP packet that is no fragment: the
 * fragments of a datagram (and an IPv6 packet with extension headers)
 * hash by addresses and protocol alone, all of them alike.
 */

/*
 * The two hashes below take the addresses as they lie in the header and
 * @p ports as the first 4 bytes of the TCP or UDP header read as one word
 * (0 when ports do not count). dpr_flow_hash_tuple() feeds them a flow
 * given by its fields, so that route.get answers what a worker does.
 */
static inline uint32_t
dpr_flow_hash4(rte_be32_t src, rte_be32_t dst, uint8_t proto, uint32_t ports)
{
	return rte_jhash_3words(src, dst, ports, proto);
}

/** @p addrs: the source then the destination address, 32 bytes. */
static inline uint32_t
dpr_flow_hash6(const void *addrs, uint8_t proto, uint32_t ports)
{
	uint32_t k[9];

	/* Copied: a frame aligns the addresses to 2 only. */
	memcpy(k, addrs, 32);
	k[8] = ports;
	return rte_jhash_32b(k, RTE_DIM(k), proto);
}

/** The hash of IPv4 packet @p ip, of which @p len bytes are contiguous. */
static inline uint32_t
dpr_flow_hash_ip4(const struct rte_ipv4_hdr *ip, uint32_t len)
{
	uint32_t hlen = (uint32_t)(ip->version_ihl & 0xf) * 4, ports = 0;

	if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) == 0 &&
	    len >= hlen + 4)
		memcpy(&ports, (const uint8_t *)ip + hlen, sizeof(ports));
	return dpr_flow_hash4(ip->src_addr, ip->dst_addr, ip->next_proto_id, ports);
}

/** The hash of IPv6 packet @p ip, of which @p len bytes are contiguous. */
static inline uint32_t
dpr_flow_hash_ip6(const struct rte_ipv6_hdr *ip, uint32_t len)
{
	uint32_t ports = 0;

	if ((ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP) && len >= sizeof(*ip) + 4)
		memcpy(&ports, ip + 1, sizeof(ports));
	return dpr_flow_hash6(&ip->src_addr, ip->proto, ports);
}

/**
 * dpr_flow_hash_sw() of an unfragmented packet from @p src to @p dst (one
 * family), protocol @p proto, ports @p sport and @p dport (host order;
 * they count for TCP and UDP only). The control thread's, for route.get.
 */
static inline uint32_t
dpr_flow_hash_tuple(const struct dpr_ip *src, const struct dpr_ip *dst, uint8_t proto,
		    uint16_t sport, uint16_t dport)
{
	rte_be16_t p[2] = { rte_cpu_to_be_16(sport), rte_cpu_to_be_16(dport) };
	uint32_t ports = 0;
	uint8_t addrs[32];

	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP)
		memcpy(&ports, p, sizeof(ports));
	if (dst->af == DPR_AF_IP4)
		return dpr_flow_hash4(rte_cpu_to_be_32(src->ip4), rte_cpu_to_be_32(dst->ip4),
				      proto, ports);
	memcpy(addrs, src->ip6, 16);
	memcpy(addrs + 16, dst->ip6, 16);
	return dpr_flow_hash6(addrs, proto, ports);
}

/**
 * The software flow hash of the IPv4 or IPv6 packet in @p m (frame from
 * its Ethernet header, the IP header in the first segment), for packets
 * the NIC gave no RSS hash (dpr_flow_hash_rx(), dpr_flow_hash_ctl()).
 */
static inline uint32_t
dpr_flow_hash_sw(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint32_t len = m->data_len - (uint32_t)sizeof(*eth);

	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return dpr_flow_hash_ip6((const struct rte_ipv6_hdr *)(eth + 1), len);
	return dpr_flow_hash_ip4((const struct rte_ipv4_hdr *)(eth + 1), len);
}

/**
 * The flow hash of received packet @p m: the NIC's RSS hash where it gave
 * one (free, and over the same fields where its RSS covers TCP and UDP),
 * else dpr_flow_hash_sw(). Workers' (the control thread's is
 * dpr_flow_hash_ctl()).
 */
static inline uint32_t
dpr_flow_hash_rx(const struct rte_mbuf *m)
{
	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	return dpr_flow_hash_sw(m);
}

/**
 * Offset of the mbuf dynamic field that keeps a packet's RSS hash once the
 * exception metadata has taken hash.usr (which shares its bytes), so that
 * the control thread picks the ECMP member a worker would have; -1 until
 * dpr_flow_hash_register(). Written once at start, then read-only.
 */
extern int dpr_rss_dynfield;

/**
 * Register that field (idempotent).
 * @return 0, or a negative errno (rte_mbuf_dynfield_register()).
 */
int dpr_flow_hash_register(void);

/** A worker hands @p m to the exception ring: keep its RSS hash. */
static inline void
dpr_flow_hash_keep(struct rte_mbuf *m)
{
	if (dpr_rss_dynfield >= 0 && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
		*RTE_MBUF_DYNFIELD(m, dpr_rss_dynfield, uint32_t *) = m->hash.rss;
}

/**
 * The flow hash of @p m on the control thread (a packet a worker handed
 * over): the RSS hash dpr_flow_hash_keep() kept, or dpr_flow_hash_sw()
 * where the NIC gave none; the same member as the rest of its flow.
 */
static inline uint32_t
dpr_flow_hash_ctl(const struct rte_mbuf *m)
{
	if (dpr_rss_dynfield >= 0 && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
		return *RTE_MBUF_DYNFIELD(m, dpr_rss_dynfield, const uint32_t *);
	return dpr_flow_hash_sw(m);
}

/**
 * Cut the packet in @p m (frame from the Ethernet header) to @p len bytes,
 * dropping link-layer padding or anything past the IP packet, in one segment
 * or a chain (segments past the end are freed).
 */
static inline void
dpr_pktmbuf_cut(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *s = m;
	uint32_t before = 0;
	uint16_t segs = 1;

	if (m->pkt_len <= len)
		return;
	while (before + s->data_len < len && s->next != NULL) {
		before += s->data_len;
		s = s->next;
		segs++;
	}
	s->data_len = (uint16_t)(len - before);
	if (s->next != NULL) {
		rte_pktmbuf_free(s->next);
		s->next = NULL;
	}
	m->nb_segs = segs;
	m->pkt_len = len;
}

/**
 * Act on next hop @p nh for a packet whose headers passed, as
 * dpr_ip4_decide() says: divert or drop it, or, when it is to be forwarded,
 * return true with its next hop in *@p h: the caller rewrites and queues
 * it, and counts it. Never true for @p l2_bcast. A multipath group
 * decides by the member the packet's flow takes (dpr_flow_hash_rx()).
 */
bool dpr_ip4_act(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m,
		 uint32_t nh, bool l2_bcast, union dpr_nh_word *h);

/**
 * Diverts a second of one input port's hairpinned packets on one worker,
 * at most: dpr_l3_hairpin().
 */
#define DPR_REDIRECT_DIVERTS_PER_S 1000

/**
 * Packet @p m of burst @p b is to leave through the port it came in on
 * (@p eth its frame, TTL or hop limit already decremented; IPv6 when
 * @p v6): on a port with redirects on, hand it to the control thread,
 * which sends the redirect (RFC 1812 5.2.7.2, RFC 4861 8.2: it decides
 * whether one is due) and forwards it, and return true; it is counted as
 * exceptions.redirect, not as forwarded. Otherwise (redirects off, or
 * another packet of this port went less than 1/DPR_REDIRECT_DIVERTS_PER_S
 * s ago: the control thread's rate limit allows 10 a second per source
 * anyway, and a flow that hosts keep hairpinning must not all take the
 * slow way) return false: the caller forwards it. Called only when the
 * ports are equal, so the fast path pays one compare for redirects.
 */
bool dpr_l3_hairpin(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint8_t *eth,
		    bool v6);

/**
 * Forward @p nt untagged frames @p tagged, frame k received on VLAN (or
 * QinQ) interface @p to[k], as sub-bursts of their interfaces, each in the
 * order received: counted as received there, its input ACL and uRPF, then
 * dpr_ip4_input_burst(). Both arrays are reordered. The VLAN and QinQ
 * demuxes' common tail.
 */
void dpr_vif_deliver(struct dpr_worker *w, struct rte_mbuf **tagged, uint8_t *to, uint16_t nt);

/**
 * Split a burst of @p n packets received on dpr port @p in, which has VLAN
 * interfaces (w->ports[in].vlan_if), by VLAN (lib/datapath/vlan.c): the
 * packets of its VLAN interfaces are untagged, counted and forwarded as
 * received there; the port's own (untagged, priority-tagged, or tagged
 * for no interface) stay at the start of @p pkts, in order.
 * @return how many stay, for the caller to count and forward as the port's.
 */
uint16_t dpr_vlan_demux_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts,
			      uint16_t n);

/**
 * Take out of a burst of @p n packets received on dpr port @p in, which
 * has QinQ interfaces (w->ports[in].qinq), the double-tagged and the
 * 0x88a8-tagged frames (lib/datapath/qinq.c): those of its QinQ interfaces
 * are untagged, counted and forwarded as received there, the others
 * dropped as unknown_vlan on the port; the rest (single 0x8100 tags,
 * untagged) stay at the start of @p pkts, in order, for
 * dpr_vlan_demux_burst(). @return how many stay.
 */
uint16_t dpr_qinq_demux_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts,
			      uint16_t n);

/**
 * The VLAN stage of dpr port *@p in, which has VLAN interfaces, over a
 * burst of @p n packets it received at @p pkts (vlan.c): the frames of the
 * VLAN interface of the first one are forwarded there and then, still
 * tagged, where that interface may (vlan_tagged_burst()); else a burst all
 * of one of its VLAN interfaces becomes that interface's (*@p in set to
 * it); what is left is split (dpr_vlan_demux_burst()); a port with QinQ
 * interfaces passes dpr_qinq_demux_burst() first.
 * @return how many packets stay, in order at the start of @p pkts, for
 *   *@p in, not counted yet (dpr_input_stages(), urpf_dp.h).
 */
uint16_t dpr_vlan_input_burst(struct dpr_worker *w, uint16_t *in, struct rte_mbuf **pkts,
			      uint16_t n);

/**
 * Send @p n packets of VLAN or QinQ interface @p pd (vlan_tci != 0) through
 * its port's DPDK port, on queue @p queue: its tags put on, in the data or
 * by the device (vlan.c). @return how many were sent; the rest are the
 * caller's, untagged or not.
 */
uint16_t dpr_vif_tx_burst(const struct dpr_port_dp *pd, uint16_t queue, struct rte_mbuf **pkts,
			  uint16_t n);

/**
 * dpr_input_stages() (urpf_dp.h) out of line, for harnesses: every input
 * stage of dpr port *@p in as its in_stages say.
 */
uint16_t dpr_input_stages_burst(struct dpr_worker *w, uint16_t *in, struct rte_mbuf **pkts,
				uint16_t n);

/**
 * Drop the IPv6 frames (untagged, or priority-tagged) of a burst of @p n
 * that interface @p in, which has no IPv6 (DPR_IN_NO_IP6), received:
 * counted as drops.unsupported_l3. The rest keep their order.
 * @return how many stay.
 */
uint16_t dpr_no_ip6_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n);

/** Per worker lcore entry point for rte_eal_remote_launch(). */
int dpr_worker_main(void *arg);
