/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "datapath.h"
#include "ip4_dp.h"
#include "qinq_dp.h"
#include "urpf_dp.h"

/*
 * RX demultiplexing of a port with QinQ interfaces (qinq_dp.h has the
 * forms a pair of tags comes in). A frame with two tags, or with an
 * 802.1ad one, is the QinQ interfaces': delivered untagged to the one its
 * (outer, inner) pair names, if the outer TPID, where known, is that
 * interface's; dropped as unknown_vlan on the port otherwise. Single
 * 0x8100 tags and untagged frames stay in the burst, in order.
 */

/* Whether @p m is a QinQ frame (1), not one (0), or one that is no
 * interface's (-1: an 802.1ad tag alone, or too short). For 1: its pair in
 * *@p outer and *@p inner, the outer TPID in *@p tpid (0: unknown), and
 * how many bytes of tags its data holds in *@p bytes. */
static int
qinq_tags(const struct rte_mbuf *m, bool strip, uint16_t *outer, uint16_t *inner,
	  uint16_t *tpid, uint16_t *bytes)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)d;
	const struct rte_vlan_hdr *t1 = (const struct rte_vlan_hdr *)(eth + 1);
	uint64_t fl = m->ol_flags;

	if (fl & RTE_MBUF_F_RX_QINQ_STRIPPED) {
		*outer = m->vlan_tci_outer;
		*inner = m->vlan_tci;
		*tpid = 0;
		*bytes = 0;
		return 1;
	}
	if ((fl & RTE_MBUF_F_RX_VLAN_STRIPPED) && strip) {
		/* The device took the outer tag off; a second one is the
		 * inner tag, in the data. */
		if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN))
			return 0;
		if (m->data_len < sizeof(*eth) + sizeof(*t1))
			return -1;
		*outer = m->vlan_tci;
		*inner = rte_be_to_cpu_16(t1->vlan_tci);
		*tpid = 0;
		*bytes = sizeof(*t1);
		return 1;
	}
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_QINQ) &&
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		return 0;
	if (m->data_len < sizeof(*eth) + 2 * sizeof(*t1) ||
	    t1->eth_proto != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		/* One 0x8100 tag: the VLAN demux's; one 0x88a8 tag: no
		 * interface's (an S-VLAN is not an interface here). */
		return eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ? 0 : -1;
	*outer = rte_be_to_cpu_16(t1->vlan_tci);
	*inner = rte_be_to_cpu_16(t1[1].vlan_tci);
	/* net_af_packet put back as 0x8100 what the kernel took off
	 * (rte_vlan_insert(), which leaves RTE_MBUF_F_RX_VLAN set and clears
	 * RTE_MBUF_F_RX_VLAN_STRIPPED): the outer TPID is unknown. */
	*tpid = (fl & (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED)) ? 0 :
		rte_be_to_cpu_16(eth->ether_type);
	*bytes = 2 * sizeof(*t1);
	return 1;
}

uint16_t
dpr_qinq_demux_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	const struct dpr_qinq_map *q = w->ports[in].qinq;
	struct rte_mbuf *tagged[DPR_BURST], *drop[DPR_BURST];
	uint8_t to[DPR_BURST];
	uint16_t i, keep = 0, nt = 0, nd = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t outer = 0, inner = 0, tpid = 0, bytes = 0;
		const uint8_t *map;
		uint8_t v = 0;
		int kind;

		kind = qinq_tags(m, q->strip, &outer, &inner, &tpid, &bytes);
		if (kind == 0) {
			pkts[keep++] = m;
			continue;
		}
		if (kind > 0) {
			map = __atomic_load_n(&q->inner[DPR_VLAN_VID(outer)], __ATOMIC_ACQUIRE);
			/* An outer 0x8100 tag (or one of unknown TPID) that no
			 * QinQ interface has as its outer id is a VLAN's, with a
			 * tag inside (a priority tag, forwarded there): the VLAN
			 * demux's, as on a port without QinQ interfaces. Not
			 * from a device that stripped both (vlan_tci holds the
			 * inner tag then). */
			if (map == NULL && tpid != RTE_ETHER_TYPE_QINQ &&
			    !(m->ol_flags & RTE_MBUF_F_RX_QINQ_STRIPPED)) {
				pkts[keep++] = m;
				continue;
			}
			if (map != NULL)
				v = __atomic_load_n(&map[DPR_VLAN_VID(inner)], __ATOMIC_ACQUIRE);
		}
		if (v == 0 || (tpid != 0 && w->ports[v - 1].vlan_outer >> 16 != tpid)) {
			w->stats[in].rx++;
			w->stats[in].drops[DPR_DROP_UNKNOWN_VLAN]++;
			m->hash.usr = DPR_DROP_UNKNOWN_VLAN; /* for a capture */
			drop[nd++] = m;
			continue;
		}
		if (bytes != 0) {
			/* The MAC addresses move over the tags in the data. */
			uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

			memmove(eth + bytes, eth, 2 * RTE_ETHER_ADDR_LEN);
			rte_pktmbuf_adj(m, bytes);
		}
		m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED |
				 RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED);
		tagged[nt] = m;
		to[nt++] = (uint8_t)(v - 1);
	}

	if (nd > 0)
		dpr_drops_free(w, drop, nd, DPR_DROP_UNKNOWN_VLAN);
	/* By interface, as dpr_vlan_demux_burst() does it: the sub-bursts
	 * never report RCU quiescence. */
	dpr_vif_deliver(w, tagged, to, nt);
	return keep;
}

uint16_t
dpr_qinq_tx_burst(uint16_t port_id, uint16_t queue, uint16_t tci, uint32_t outer,
		  struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i = 0, ok = n;

	while (i < ok) {
		struct rte_mbuf *bad = pkts[i];

		if (likely(dpr_qinq_push(bad, tci, outer))) {
			i++;
			continue;
		}
		memmove(&pkts[i], &pkts[i + 1], (size_t)(ok - i - 1) * sizeof(*pkts));
		pkts[--ok] = bad;
	}
	return rte_eth_tx_burst(port_id, queue, pkts, ok);
}

int
dpr_qinq_map_set(struct dpr_port_dp *parent, uint16_t outer, uint16_t inner, uint8_t v,
		 int socket, bool strip)
{
	struct dpr_qinq_map *q = (struct dpr_qinq_map *)(uintptr_t)parent->qinq;
	uint8_t *map;

	if (q == NULL) {
		if (v == 0)
			return 0;
		q = rte_zmalloc_socket("dpr_qinq", sizeof(*q), RTE_CACHE_LINE_SIZE, socket);
		if (q == NULL)
			return -ENOMEM;
		q->strip = strip;
		__atomic_store_n(&parent->qinq, q, __ATOMIC_RELEASE);
	}
	map = (uint8_t *)(uintptr_t)q->inner[outer];
	if (map == NULL) {
		if (v == 0)
			return 0;
		map = rte_zmalloc_socket("dpr_qinq_inner", DPR_VLAN_MAP_SIZE, RTE_CACHE_LINE_SIZE,
					 socket);
		if (map == NULL)
			return -ENOMEM;
		__atomic_store_n(&q->inner[outer], map, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&map[inner], v, __ATOMIC_RELEASE);
	return 0;
}

void
dpr_qinq_map_free(struct dpr_port_dp *parent)
{
	struct dpr_qinq_map *q = (struct dpr_qinq_map *)(uintptr_t)parent->qinq;
	unsigned int id;

	if (q == NULL)
		return;
	for (id = 0; id < RTE_DIM(q->inner); id++)
		rte_free((void *)(uintptr_t)q->inner[id]);
	rte_free(q);
	parent->qinq = NULL;
}
