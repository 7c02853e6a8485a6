/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Control-plane protection, the worker's part (lib/copp/copp.h says why):
 * classify each exception of a burst, then let it pass its class's rate and
 * ring share, or drop it. Called once a burst that has exceptions, before
 * the ring (dpr_burst_finish()).
 *
 * Reads:  hash.usr (DPR_EXC_META), DPR_EXC_ARG for UNRESOLVED (its next
 *         hop: the bucket), the L3 header of LOCAL packets (protocol, source,
 *         ICMPv6 type).
 * Sets:   the class + 1 in hash.usr's top 4 bits (DPR_EXC_META_COPP), which the
 *         control thread reads back to count the ring share free again.
 * Next:   kept in b->exc, or moved to b->drop as drops.control_plane.
 */
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_jhash.h>

#include "../datapath/datapath.h"
#include "copp.h"

#define DPR_COPP_IPPROTO_OSPF 89
#define DPR_COPP_IPPROTO_PIM 103
#define DPR_COPP_IPPROTO_VRRP 112
#define DPR_COPP_UDP_RIP 520
#define DPR_COPP_UDP_RIPNG 521

/** The filter's bit for IPv4 address @p a (host order) or IPv6 @p a6 in
 * VRF @p vrf: a peer is one in its VRF only, so that a host in another
 * cannot spoof its address into the routing class (the same address may
 * be a tenant's there). */
static inline uint32_t
dpr_copp_peer_bit4(uint32_t a, uint16_t vrf)
{
	return rte_jhash_2words(a, vrf, 0x636f7070) & (DPR_COPP_PEER_BITS - 1);
}

static inline uint32_t
dpr_copp_peer_bit6(const uint8_t *a6, uint16_t vrf)
{
	uint32_t w[4];

	/* A header's address is 2 bytes off 4-byte alignment (after 14 of
	 * Ethernet): words of its own for the hash. */
	memcpy(w, a6, sizeof(w));
	return rte_jhash_32b(w, 4, 0x636f7070 + vrf) & (DPR_COPP_PEER_BITS - 1);
}

static inline bool
dpr_copp_peer_test(const uint64_t *bits, uint32_t bit)
{
	return (__atomic_load_n(&bits[bit / 64], __ATOMIC_RELAXED) >> (bit % 64)) & 1;
}

/* Routing protocols known by their IP protocol or UDP port, the same in
 * both families. */
static inline bool
dpr_copp_routing_proto(uint8_t proto, const uint8_t *l4, const uint8_t *end)
{
	if (proto == DPR_COPP_IPPROTO_OSPF || proto == DPR_COPP_IPPROTO_PIM ||
	    proto == DPR_COPP_IPPROTO_VRRP)
		return true;
	if (proto == IPPROTO_UDP && l4 + 4 <= end) {
		uint16_t dport = (uint16_t)(l4[2] << 8 | l4[3]);

		return dport == DPR_COPP_UDP_RIP || dport == DPR_COPP_UDP_RIPNG;
	}
	return false;
}

/**
 * The protection class of exception @p m (reason @p exc), and the port of
 * its bucket into *@p port.
 */
static inline unsigned int
dpr_copp_classify(const struct dpr_worker *w, struct rte_mbuf *m, uint32_t exc, uint16_t *port)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *end = eth + rte_pktmbuf_data_len(m);
	const uint8_t *l3 = eth + RTE_ETHER_HDR_LEN;
	uint16_t type;

	*port = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);
	switch (exc) {
	case DPR_EXC_ARP:
		return DPR_COPP_ARP_ND;
	case DPR_EXC_L2_CONTROL:
		return DPR_COPP_ROUTING;
	case DPR_EXC_UNRESOLVED:
		/* A bucket per next hop and family (hashed into
		 * DPR_COPP_PORTS): a scan of a subnet goes through that
		 * subnet's next hop alone, and leaves a gateway's, or another
		 * subnet's, its own rate. A port's connected subnets share one
		 * next hop (dpr_nh_connected()) whatever their family: the
		 * family picks another bucket, so that a scan of its IPv6 /64
		 * leaves its IPv4 hosts their rate, as lib/neigh its budget. */
		*port = (uint16_t)((DPR_EXC_ARG(m) ^
				    (eth[12] == 0x86 && eth[13] == 0xdd ? DPR_COPP_PORTS / 2 : 0)) % DPR_COPP_PORTS);
		return DPR_COPP_RESOLVE;
	case DPR_EXC_LOCAL:
		break;
	default:
		return DPR_COPP_TRANSIT;
	}

	if (l3 > end)
		return DPR_COPP_LOCAL;
	type = (uint16_t)(eth[12] << 8 | eth[13]);
	if (type == RTE_ETHER_TYPE_IPV4 && l3 + sizeof(struct rte_ipv4_hdr) <= end) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		const uint8_t *l4 = l3 + (ip->version_ihl & 0xf) * 4;

		if (dpr_copp_routing_proto(ip->next_proto_id, l4, end) ||
		    dpr_copp_peer_test(w->copp.peers, dpr_copp_peer_bit4(rte_be_to_cpu_32(ip->src_addr),
									      w->ports[*port].vrf)))
			return DPR_COPP_ROUTING;
		return ip->next_proto_id == IPPROTO_ICMP ? DPR_COPP_ICMP : DPR_COPP_LOCAL;
	}
	if (type == RTE_ETHER_TYPE_IPV6 && l3 + sizeof(struct rte_ipv6_hdr) <= end) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)l3;
		const uint8_t *l4 = l3 + sizeof(*ip6);
		uint8_t proto = ip6->proto;

		/* One hop-by-hop header (MLD carries a router alert). */
		if (proto == IPPROTO_HOPOPTS && l4 + 8 <= end) {
			proto = l4[0];
			l4 += (l4[1] + 1) * 8;
		}
		/* RFC 4861: router and neighbour solicitation, advertisement,
		 * redirect. */
		if (proto == IPPROTO_ICMPV6 && l4 < end && l4[0] >= 133 && l4[0] <= 137)
			return DPR_COPP_ARP_ND;
		if (dpr_copp_routing_proto(proto, l4, end) ||
		    dpr_copp_peer_test(w->copp.peers, dpr_copp_peer_bit6(ip6->src_addr,
									      w->ports[*port].vrf)))
			return DPR_COPP_ROUTING;
		return proto == IPPROTO_ICMPV6 ? DPR_COPP_ICMP : DPR_COPP_LOCAL;
	}
	return DPR_COPP_LOCAL;
}

/**
 * Whether one packet of class @p c, bucket @p port, may pass worker @p cp's
 * gates at TSC @p now: within the class's rate and its share of the ring.
 * One that passes is counted as passed (the caller takes the count back
 * if the ring then refuses it: dpr_copp_unpass()); one that does not, as
 * over_rate or over_share.
 */
static __rte_always_inline bool
dpr_copp_admit(struct dpr_copp_worker *cp, unsigned int c, uint16_t port, uint64_t now)
{
	uint64_t *tat = &cp->tat[c][port % DPR_COPP_PORTS];
	uint64_t t, held;

	/* Never more than a burst and a packet ahead, unless the TSC went
	 * back (a VM restored, util/clock.h): start again. */
	if (unlikely(*tat > now + cp->tau[c] + cp->interval[c]))
		*tat = now;
	t = RTE_MAX(*tat, now);
	held = cp->passed[c] - __atomic_load_n(&cp->drained[c], __ATOMIC_RELAXED);
	if (t - now > cp->tau[c]) {
		cp->over_rate[c]++;
		return false;
	}
	if (held >= cp->ring_cap[c]) {
		cp->over_share[c]++;
		return false;
	}
	*tat = t + cp->interval[c];
	cp->passed[c]++;
	return true;
}

/** Packet @p m passed its gate but the ring refused it: its class's
 * count of what it holds there goes back. */
static __rte_always_inline void
dpr_copp_unpass(struct dpr_copp_worker *cp, const struct rte_mbuf *m)
{
	uint32_t meta = DPR_EXC_META_COPP(m->hash.usr);

	if (meta != 0)
		cp->passed[meta - 1]--;
}

/**
 * Let the exceptions of burst @p b through their classes' gates: those
 * that pass stay in b->exc, marked with their class and counted as passed
 * (dpr_burst_finish() takes back the count of any the ring then refuses),
 * the others go to b->drop (drops.control_plane). Their exception counts
 * were taken when diverted; a drop moves its count, as the ring's refusal
 * does. @p now: the TSC (the worker reads it: lib/datapath).
 */
static inline void
dpr_copp_gate_burst(struct dpr_worker *w, struct dpr_burst *b, uint64_t now)
{
	struct dpr_copp_worker *cp = &w->copp;
	struct dpr_port_counters *st = &w->stats[b->in];
	unsigned int i, k = 0;

	for (i = 0; i < b->n_exc; i++) {
		struct rte_mbuf *m = b->exc[i];
		uint32_t exc = DPR_EXC_META_CLASS(m->hash.usr);
		uint16_t port;
		unsigned int c = dpr_copp_classify(w, m, exc, &port);

		if (dpr_copp_admit(cp, c, port, now)) {
			m->hash.usr |= (uint32_t)(c + 1) << DPR_EXC_META_COPP_SHIFT;
			b->exc[k++] = m;
			continue;
		}
		st->exc[exc]--;
		st->exception--;
		st->drops[DPR_DROP_CONTROL_PLANE]++;
		m->hash.usr = DPR_DROP_CONTROL_PLANE;
		b->drop[b->n_drop++] = m;
	}
	b->n_exc = (uint16_t)k;
}
