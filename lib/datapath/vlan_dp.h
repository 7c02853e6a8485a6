/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * 802.1Q tags in software, for VLAN interfaces (docs/architecture.md,
 * "VLAN interfaces"): found and taken off on RX, put on before TX. No
 * offload is asked of the device, so the same code serves every PMD.
 *
 * A received tag comes in one of two forms: in the frame (EtherType
 * 0x8100), as most PMDs give it without the strip offload, and as
 * net_af_packet gives it too (DPDK 22.11 puts the tag the kernel took off
 * back into the data, yet sets RTE_MBUF_F_RX_VLAN_STRIPPED); or taken off
 * by a NIC that strips, in vlan_tci with RTE_MBUF_F_RX_VLAN_STRIPPED and
 * untagged data. The data is read first: the flag alone proves nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

/** Where dpr_vlan_rx_tag() found a frame's tag. */
enum dpr_vlan_form {
	DPR_VLAN_UNTAGGED = 0,
	DPR_VLAN_IN_DATA,     /**< EtherType 0x8100 in the frame */
	DPR_VLAN_IN_MBUF,     /**< the PMD took it off: vlan_tci */
};

#define DPR_VLAN_VID(tci) ((uint16_t)((tci) & 0xfff))

/**
 * The 802.1Q tag of received frame @p m, its TCI into *@p tci.
 * A frame too short to hold a tag is untagged here (the screen drops it).
 */
static __rte_always_inline enum dpr_vlan_form
dpr_vlan_rx_tag(const struct rte_mbuf *m, uint16_t *tci)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		if (unlikely(m->data_len < sizeof(*eth) + sizeof(struct rte_vlan_hdr)))
			return DPR_VLAN_UNTAGGED;
		*tci = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(eth + 1))->vlan_tci);
		return DPR_VLAN_IN_DATA;
	}
	if (unlikely(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) {
		*tci = m->vlan_tci;
		return DPR_VLAN_IN_MBUF;
	}
	return DPR_VLAN_UNTAGGED;
}

/**
 * Take the tag dpr_vlan_rx_tag() found in form @p form off @p m: the frame
 * is untagged and its RX VLAN flags cleared, so that nothing downstream
 * (the exception path, a TAP) takes it for tagged.
 */
static __rte_always_inline void
dpr_vlan_untag(struct rte_mbuf *m, enum dpr_vlan_form form)
{
	if (form == DPR_VLAN_IN_DATA)
		(void)rte_vlan_strip(m); /* cannot fail: the tag is there */
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
}

/**
 * Take a priority tag (VLAN id 0, in the data) off @p m: 802.1Q makes the
 * frame the port's, untagged. @return whether it had one.
 */
static inline bool
dpr_vlan_untag_priority(struct rte_mbuf *m)
{
	uint16_t tci;

	if (dpr_vlan_rx_tag(m, &tci) != DPR_VLAN_IN_DATA || DPR_VLAN_VID(tci) != 0)
		return false;
	dpr_vlan_untag(m, DPR_VLAN_IN_DATA);
	return true;
}

/**
 * Put tag @p tci on each of the @p n frames at @p pkts (rte_vlan_insert()).
 * A frame that cannot take one (shared, or without headroom: never one a
 * PMD or dpr's control thread made) is moved after the others.
 * @return the number tagged: pkts[0, return) are ready to send.
 * Out of line: inlined into dpr_tx_flush(), its loop cost the untagged
 * path's pass 3 half an instruction a packet (callgrind, small table).
 */
static __rte_noinline uint16_t
dpr_vlan_tag_bulk(struct rte_mbuf **pkts, uint16_t n, uint16_t tci)
{
	uint16_t i = 0;

	while (i < n) {
		struct rte_mbuf *bad = pkts[i];

		bad->vlan_tci = tci;
		if (likely(rte_vlan_insert(&pkts[i]) == 0)) {
			i++;
			continue;
		}
		memmove(&pkts[i], &pkts[i + 1], (size_t)(n - i - 1) * sizeof(*pkts));
		pkts[--n] = bad;
	}
	return n;
}

/**
 * rte_eth_tx_burst() for dpr port or VLAN interface with tag @p tci (0: a
 * port, untagged) on DPDK port @p port_id: the control thread's sends
 * (ARP, NDP, ICMP, frames from a TAP). @return the number sent, from the
 * start of @p pkts; the caller frees the rest, as after rte_eth_tx_burst().
 */
static inline uint16_t
dpr_vlan_tx_burst(uint16_t port_id, uint16_t queue, uint16_t tci, struct rte_mbuf **pkts,
		  uint16_t n)
{
	if (unlikely(tci != 0))
		n = dpr_vlan_tag_bulk(pkts, n, tci);
	return rte_eth_tx_burst(port_id, queue, pkts, n);
}
