/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Unicast reverse-path forwarding (RFC 3704) on input, per interface: a
 * packet whose source the interface's VRF would not route back the way
 * RFC 3704 asks is dropped, counted as drops.urpf.
 *  - strict (3704 2.2): the best route to the source leaves through the
 *    interface the packet came in on (a multipath route: any member);
 *  - loose (3704 2.4): the source has a route that is not a blackhole,
 *    unreachable or the router's own address. A default route counts, as
 *    in Linux's rp_filter 2: with one, loose checks little (docs say so).
 * Exempt: IPv6 link-local and unspecified sources (NDP, DAD, routing
 * protocols: fe80::/64 is on every link and in no FIB) and the IPv4
 * source 0.0.0.0 (DHCP); the screen judges those as it does without uRPF.
 * Frames that are not IPv4 or IPv6, or too short for the source address,
 * go on to the screen, which drops what is malformed.
 *
 * Reads: the interface's VRF FIBs (dpr_port_dp), the next-hop words.
 * Nothing is written but the counters and, for packets it drops, hash.usr
 * (the drop reason, for a capture).
 */
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "../capture/capture.h"
#include "../fib/fib.h"
#include "../fib/fib6.h"
#include "datapath.h"

/** ports[].urpf (config "urpf"). */
enum dpr_urpf {
	DPR_URPF_OFF = 0,
	DPR_URPF_LOOSE,
	DPR_URPF_STRICT,
};

/* Does next hop @p nh pass the check of @p mode for a packet from @p in? */
static inline bool
dpr_urpf_nh_ok(const union dpr_nh_word *words, uint32_t nh, uint16_t in, uint8_t mode)
{
	union dpr_nh_word h = words[nh];
	unsigned int k;

	if (mode == DPR_URPF_LOOSE)
		return h.kind == DPR_NH_KIND_FORWARD || h.kind == DPR_NH_KIND_UNRESOLVED ||
		       h.kind == DPR_NH_KIND_GROUP;
	if (h.kind == DPR_NH_KIND_GROUP) {
		const struct dpr_nh_group *g = dpr_nh_group_rcu(words, h);

		for (k = 0; k < g->n_members; k++) {
			union dpr_nh_word m = words[g->member[k]];

			if ((m.kind == DPR_NH_KIND_FORWARD || m.kind == DPR_NH_KIND_UNRESOLVED) &&
			    m.port == in)
				return true;
		}
		return false;
	}
	return (h.kind == DPR_NH_KIND_FORWARD || h.kind == DPR_NH_KIND_UNRESOLVED) &&
	       h.port == in;
}

static bool dpr_urpf_ok_tagged(const struct dpr_worker *w, const struct dpr_fib4 *f4,
			       const struct dpr_fib6 *f6, const struct rte_mbuf *m, uint16_t in,
			       uint8_t mode);

/*
 * Does the packet of EtherType @p type at @p l3 (@p l2 bytes into frame
 * @p m) from @p in pass interface @p in's check (@p mode)? One tag in the
 * data of a frame (@p l2 14, EtherType 0x8100) is looked through
 * (dpr_urpf_ok_tagged()).
 */
static __rte_always_inline bool
dpr_urpf_ok_at(const struct dpr_worker *w, const struct dpr_fib4 *f4, const struct dpr_fib6 *f6,
	       const struct rte_mbuf *m, uint16_t in, uint8_t mode, rte_be16_t type,
	       const uint8_t *l3, const uint32_t l2)
{
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	    m->data_len >= l2 + sizeof(struct rte_ipv4_hdr)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		uint32_t src = rte_be_to_cpu_32(ip->src_addr);

		return src == 0 || dpr_urpf_nh_ok(w->nh, dpr_fib4_lookup(f4, src), in, mode);
	}
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && f6 != NULL &&
	    m->data_len >= l2 + sizeof(struct rte_ipv6_hdr)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
		const uint8_t *src = ip->src_addr;
		static const uint8_t zero[16];

		if ((src[0] == 0xfe && (src[1] & 0xc0) == 0x80) || memcmp(src, zero, 16) == 0)
			return true;
		return dpr_urpf_nh_ok(w->nh, dpr_fib6_lookup(f6, src), in, mode);
	}
	return l2 != RTE_ETHER_HDR_LEN || type != RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
		dpr_urpf_ok_tagged(w, f4, f6, m, in, mode);
}

/*
 * dpr_urpf_ok() of a frame with a tag in its data, checked through it: a
 * priority tag (VLAN id 0) leaves the frame the port's, and the screen
 * takes it off only after this (another VLAN's is an unknown_vlan drop
 * there anyway).
 */
static __rte_noinline __rte_cold __rte_unused bool
dpr_urpf_ok_tagged(const struct dpr_worker *w, const struct dpr_fib4 *f4,
		   const struct dpr_fib6 *f6, const struct rte_mbuf *m, uint16_t in, uint8_t mode)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr));
	rte_be16_t type;

	if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))
		return true;
	memcpy(&type, l3 - sizeof(type), sizeof(type));
	return dpr_urpf_ok_at(w, f4, f6, m, in, mode, type, l3,
			      RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr));
}

/* Does frame @p m from @p in pass interface @p in's check (@p mode)? */
static inline bool
dpr_urpf_ok(const struct dpr_worker *w, const struct dpr_fib4 *f4, const struct dpr_fib6 *f6,
	    const struct rte_mbuf *m, uint16_t in, uint8_t mode)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return dpr_urpf_ok_at(w, f4, f6, m, in, mode, eth->ether_type,
			      (const uint8_t *)(eth + 1), RTE_ETHER_HDR_LEN);
}

/**
 * The check of interface @p in (mode @p mode) over a burst it received:
 * the packets that fail are counted, then captured or freed.
 * @return how many stay, in order, at the start of @p pkts.
 */
static __rte_noinline __rte_unused uint16_t
dpr_urpf_burst(struct dpr_worker *w, uint16_t in, uint8_t mode, struct rte_mbuf **pkts,
	       uint16_t n)
{
	const struct dpr_port_dp *pd = &w->ports[in];
	const struct dpr_fib4 *f4 = pd->fib4 != NULL ? pd->fib4 : w->fib;
	const struct dpr_fib6 *f6 = pd->fib6 != NULL ? pd->fib6 : w->fib6;
	struct rte_mbuf *drop[DPR_BURST];
	uint16_t i, keep = 0, nd = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (likely(dpr_urpf_ok(w, f4, f6, m, in, mode))) {
			pkts[keep++] = m;
		} else {
			m->hash.usr = DPR_DROP_URPF;
			drop[nd++] = m;
		}
	}
	if (nd == 0)
		return keep;
	w->stats[in].drops[DPR_DROP_URPF] += nd;
	dpr_drops_free(w, drop, nd, DPR_DROP_URPF);
	return keep;
}

/**
 * uRPF of interface @p in, if on, over a burst it received: one test a
 * burst when off. @return how many packets stay.
 */
static __rte_always_inline uint16_t
dpr_urpf_input(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	uint8_t mode = __atomic_load_n(&w->ports[in].urpf, __ATOMIC_RELAXED);

	if (likely(mode == DPR_URPF_OFF))
		return n;
	return dpr_urpf_burst(w, in, mode, pkts, n);
}

/**
 * The input stages after the VLAN split for a burst of @p n packets that
 * interface @p in received: counted (rx), then, below 1280, its IPv6
 * dropped (dpr_no_ip6_burst()), then its input ACL and uRPF, each one
 * test a burst when off. @return how many packets stay.
 */
static __rte_always_inline uint16_t
dpr_input_acl_urpf(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	w->stats[in].rx += n;
	if (unlikely(__atomic_load_n(&w->ports[in].in_stages, __ATOMIC_RELAXED) &
		     DPR_IN_NO_IP6)) {
		n = dpr_no_ip6_burst(w, in, pkts, n);
		if (n == 0)
			return 0;
	}
	n = dpr_acl_input(w, in, pkts, n);
	if (n == 0)
		return 0;
	return dpr_urpf_input(w, in, pkts, n);
}

/**
 * All input stages of dpr port *@p in, whose in_stages are @p stages (not
 * 0), over a burst of @p n packets it received: the VLAN split
 * (dpr_vlan_input_burst(), out of line; *@p in may become a VLAN
 * interface), then dpr_input_acl_urpf(), inline, so that a port with an
 * ACL or uRPF alone pays no call for them.
 * @return how many packets stay, to forward as received on *@p in.
 */
static __rte_always_inline uint16_t
dpr_input_stages(struct dpr_worker *w, uint16_t *in, struct rte_mbuf **pkts, uint16_t n,
		 uint8_t stages)
{
	if (stages & DPR_IN_VLAN) {
		n = dpr_vlan_input_burst(w, in, pkts, n);
		if (n == 0)
			return 0;
	}
	return dpr_input_acl_urpf(w, *in, pkts, n);
}
