/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * QinQ interfaces (docs/architecture.md, "VLAN interfaces"): two tags, an
 * outer (service) one of TPID 0x88a8 (802.1ad) or 0x8100 ("double
 * tagged"), then an inner (customer) 0x8100 one. Kept apart from the
 * single-tagged path of vlan_dp.h and vlan.c: a port with QinQ interfaces
 * has a QinQ map (dpr_port_dp.qinq), and only its bursts pass
 * dpr_qinq_demux_burst() (lib/datapath/qinq.c), before the VLAN demux
 * sees what is left; a QinQ interface's frames get both tags in software
 * on TX, never through the insert offload (which would put its 0x8100
 * tag outside them).
 *
 * On RX the two tags come in one of these forms:
 * - both in the data (any PMD without strip; net_tap);
 * - the outer in vlan_tci with RTE_MBUF_F_RX_VLAN_STRIPPED, the inner in
 *   the data: a device that strips (the port's VLAN strip offload granted,
 *   dpr_qinq_map.strip), net_af_packet with strip among them;
 * - both in the mbuf (RTE_MBUF_F_RX_QINQ_STRIPPED: vlan_tci_outer and
 *   vlan_tci), from a device that strips QinQ;
 * - both in the data with RTE_MBUF_F_RX_VLAN on a port that does not
 *   strip: net_af_packet put the outer tag the kernel took off back, as
 *   0x8100 whatever it was (DPDK 22.11, rte_vlan_insert(), which clears
 *   RTE_MBUF_F_RX_VLAN_STRIPPED). The outer TPID is then
 *   unknown, and the pair alone names the interface; that is why a pair
 *   names one interface on a port whatever its outer TPID
 *   (dpr_config_vlan_check()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "../config/config.h"

/**
 * A port's QinQ interfaces by their outer, then inner VLAN id. Written by
 * the control thread only: an inner map is allocated before it is stored
 * here (release store), and its entries change with single release
 * stores (vlan.add, vlan.del); neither is freed while the port runs (at
 * most one 4 KiB inner map per outer id ever used), so a worker never
 * reads freed memory.
 */
struct dpr_qinq_map {
	/** The port's device strips VLAN tags (the offload granted): with
	 * RTE_MBUF_F_RX_VLAN_STRIPPED, the outer tag is in vlan_tci. */
	bool strip;
	/** Per outer VLAN id (all 4096 TCI values, 4095 too): 1 + the dpr port index of the QinQ
	 * interface of each inner VLAN id (0: none); NULL: none at all. */
	const uint8_t *inner[4096];
};

/** A QinQ interface's outer tag in dpr_port_dp.vlan_outer: TPID and TCI. */
#define DPR_QINQ_OUTER(tpid, id) ((uint32_t)(tpid) << 16 | (uint32_t)(id))

/**
 * Put the QinQ tags on @p m: @p outer (DPR_QINQ_OUTER()) outside, the
 * 0x8100 tag @p tci inside, in the data (the 12 MAC bytes move 8 back).
 * @return false, @p m unchanged, for an mbuf that cannot take them
 * (shared, indirect, or without 8 bytes of headroom: never one that a PMD
 * or dpr's control thread made).
 */
static inline bool
dpr_qinq_push(struct rte_mbuf *m, uint16_t tci, uint32_t outer)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t tags[2];

	if (unlikely(!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1 ||
		     m->data_off < 2 * sizeof(struct rte_vlan_hdr) ||
		     m->data_len < 2 * RTE_ETHER_ADDR_LEN))
		return false;
	memmove(eth - 8, eth, 2 * RTE_ETHER_ADDR_LEN);
	tags[0] = rte_cpu_to_be_32(outer);
	tags[1] = rte_cpu_to_be_32((uint32_t)RTE_ETHER_TYPE_VLAN << 16 | tci);
	memcpy(eth + 4, tags, sizeof(tags));
	m->data_off -= 2 * sizeof(struct rte_vlan_hdr);
	m->data_len += 2 * sizeof(struct rte_vlan_hdr);
	m->pkt_len += 2 * sizeof(struct rte_vlan_hdr);
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_QINQ_STRIPPED |
			 RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_QINQ);
	return true;
}

/**
 * rte_eth_tx_burst() for a QinQ interface with inner tag @p tci and outer
 * tag @p outer (dpr_port_dp.vlan_outer), both put on here
 * (dpr_qinq_push()), out of line (lib/datapath/qinq.c). A frame that
 * cannot take them is moved after the others and left unsent. @return the number sent, from the start of
 * @p pkts; the caller frees the rest, as after rte_eth_tx_burst().
 */
uint16_t dpr_qinq_tx_burst(uint16_t port_id, uint16_t queue, uint16_t tci, uint32_t outer,
			   struct rte_mbuf **pkts, uint16_t n);

struct dpr_port_dp;

/**
 * Control side: set the entry of pair (@p outer, @p inner) in the QinQ map
 * of port @p parent (its dpr_port_dp) to @p v (1 + dpr port index; 0 to
 * clear), allocating the map (on NUMA socket @p socket, with @p strip as
 * dpr_qinq_map.strip) and the outer id's inner map as needed, each
 * published with a release store. @return 0, or -ENOMEM.
 */
int dpr_qinq_map_set(struct dpr_port_dp *parent, uint16_t outer, uint16_t inner, uint8_t v,
		     int socket, bool strip);

/** Free the QinQ map of port @p parent, which no worker reads any more. */
void dpr_qinq_map_free(struct dpr_port_dp *parent);
