/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * 802.1Q tags of VLAN interfaces (docs/architecture.md, "VLAN
 * interfaces"): found and taken off on RX, put on before TX. A port with
 * VLAN interfaces asks its device for VLAN strip and insert where its
 * profile grants them (lib/port); what the device does not do is done
 * here, in software.
 *
 * A received tag comes in one of two forms: in the frame (EtherType
 * 0x8100), as most PMDs give it without the strip offload, and as
 * net_af_packet gives it too (DPDK 22.11 puts the tag the kernel took off
 * back into the data with rte_vlan_insert(), which clears
 * RTE_MBUF_F_RX_VLAN_STRIPPED but leaves RTE_MBUF_F_RX_VLAN); or taken off
 * by a NIC that strips, in vlan_tci with RTE_MBUF_F_RX_VLAN_STRIPPED and
 * untagged data. RTE_MBUF_F_RX_VLAN alone proves nothing;
 * RTE_MBUF_F_RX_VLAN_STRIPPED is read first: a double-tagged frame keeps
 * its inner tag in the data, and its VLAN is the outer one, in vlan_tci
 * (read the other way round, the inner tag picked the interface: VLAN
 * hopping).
 *
 * On TX a device that inserts (dpr_port_dp.vlan_insert) gets the tag in
 * vlan_tci with RTE_MBUF_F_TX_VLAN; otherwise it goes into the data.
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

	if (unlikely(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) {
		*tci = m->vlan_tci;
		return DPR_VLAN_IN_MBUF;
	}
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		if (unlikely(m->data_len < sizeof(*eth) + sizeof(struct rte_vlan_hdr)))
			return DPR_VLAN_UNTAGGED;
		*tci = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(eth + 1))->vlan_tci);
		return DPR_VLAN_IN_DATA;
	}
	return DPR_VLAN_UNTAGGED;
}

/*
 * The 802.1Q tag of a frame as one 32-bit word: its bytes 12-15 (EtherType
 * 0x8100, then the TCI) as they lie in memory. Masked with
 * DPR_VLAN_WORD_MASK (priority and DEI bits off), it equals
 * DPR_VLAN_WORD(vid) for a tag of VLAN vid: one load and compare a packet
 * tells a burst that is all of one VLAN (vlan.c).
 */
#define DPR_VLAN_WORD(tci) rte_cpu_to_be_32((uint32_t)RTE_ETHER_TYPE_VLAN << 16 | (tci))
#define DPR_VLAN_WORD_MASK rte_cpu_to_be_32(UINT32_C(0xffff0fff))

/** The tag word (DPR_VLAN_WORD) of the frame at @p eth, 16 bytes readable. */
static __rte_always_inline uint32_t
dpr_vlan_word(const uint8_t *eth)
{
	uint32_t v;

	memcpy(&v, eth + 2 * RTE_ETHER_ADDR_LEN, sizeof(v));
	return v;
}

/** The VLAN id in tag word @p v (DPR_VLAN_WORD). */
static __rte_always_inline uint16_t
dpr_vlan_word_vid(uint32_t v)
{
	return DPR_VLAN_VID(rte_be_to_cpu_32(v));
}

/**
 * Take the tag in the data off @p m, which has one and the 18 bytes it
 * needs: rte_vlan_strip() less those checks and the TCI it would store.
 * The 12 MAC bytes move 4 forward, loaded before they are stored since the
 * two overlap (no memmove() call), and the RX VLAN flags are cleared, so
 * that nothing downstream (the exception path, a TAP) takes it for tagged.
 */
static __rte_always_inline void
dpr_vlan_untag_data(struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint64_t mac8;
	uint32_t mac4;

	memcpy(&mac8, eth, sizeof(mac8));
	memcpy(&mac4, eth + 8, sizeof(mac4));
	memcpy(eth + 4, &mac8, sizeof(mac8));
	memcpy(eth + 12, &mac4, sizeof(mac4));
	m->data_off += sizeof(struct rte_vlan_hdr);
	m->data_len -= sizeof(struct rte_vlan_hdr);
	m->pkt_len -= sizeof(struct rte_vlan_hdr);
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
}

/**
 * Take the tag dpr_vlan_rx_tag() found in form @p form off @p m: the frame
 * is untagged and its RX VLAN flags cleared (dpr_vlan_untag_data()).
 */
static __rte_always_inline void
dpr_vlan_untag(struct rte_mbuf *m, enum dpr_vlan_form form)
{
	if (form == DPR_VLAN_IN_DATA)
		dpr_vlan_untag_data(m);
	else
		m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
}

/**
 * Whether dpr_vlan_push_in_place() may tag @p m: the mbufs a PMD or dpr's
 * control thread made (direct, not shared, with headroom for the tag).
 */
static __rte_always_inline bool
dpr_vlan_push_in_place_ok(const struct rte_mbuf *m)
{
	return RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	       m->data_off >= sizeof(struct rte_vlan_hdr) &&
	       m->data_len >= 2 * RTE_ETHER_ADDR_LEN;
}

/**
 * Put tag word @p tag (DPR_VLAN_WORD() of the TCI) into the data of @p m,
 * which dpr_vlan_push_in_place_ok() accepts: rte_vlan_insert() with the 12
 * MAC bytes moved 4 back by fixed-size loads and stores.
 */
static __rte_always_inline void
dpr_vlan_push_in_place(struct rte_mbuf *m, uint32_t tag)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint64_t mac8;
	uint32_t mac4;

	memcpy(&mac8, eth, sizeof(mac8));
	memcpy(&mac4, eth + 8, sizeof(mac4));
	memcpy(eth - 4, &mac8, sizeof(mac8));
	memcpy(eth + 4, &mac4, sizeof(mac4));
	/* EtherType 0x8100 and the TCI, one store. */
	memcpy(eth + 8, &tag, sizeof(tag));
	m->data_off -= sizeof(struct rte_vlan_hdr);
	m->data_len += sizeof(struct rte_vlan_hdr);
	m->pkt_len += sizeof(struct rte_vlan_hdr);
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_TX_VLAN);
}

/**
 * Put tag @p tci into the data of @p m: dpr_vlan_push_in_place() where it
 * may, rte_vlan_insert() itself for any other mbuf (which refuses those it
 * cannot tag). @return whether @p m is tagged.
 */
static __rte_always_inline bool
dpr_vlan_push(struct rte_mbuf *m, uint16_t tci)
{
	if (unlikely(!dpr_vlan_push_in_place_ok(m))) {
		m->vlan_tci = tci;
		return rte_vlan_insert(&m) == 0;
	}
	dpr_vlan_push_in_place(m, DPR_VLAN_WORD(tci));
	return true;
}

/**
 * Frames a burst kept tagged leaves to the port's demultiplexer (vlan.c):
 * those not of its VLAN interface.
 */
struct dpr_vlan_left {
	struct rte_mbuf **pkts;
	uint16_t n;
};

/**
 * What the screens of a burst kept tagged (vlan.c) check and mark besides
 * their head compare (dpr_head_ok(), 4 bytes into a frame, with the MAC's
 * first 4 bytes): one for both families (dpr_ip4_screen(),
 * dpr_ip6_screen()).
 */
struct dpr_vlan_kept {
	uint32_t tag;               /**< the tag word, masked (DPR_VLAN_WORD_MASK) */
	uint16_t mport;             /**< mbuf->port of the interface's packets */
	struct dpr_vlan_left *left; /**< where frames not of the interface go */
};

/** The checks of a burst of the VLAN interface of @p tag_word, @p mport. */
static __rte_always_inline struct dpr_vlan_kept
dpr_vlan_kept_init(uint32_t tag_word, uint16_t mport, struct dpr_vlan_left *left)
{
	return (struct dpr_vlan_kept){
		.tag = tag_word & DPR_VLAN_WORD_MASK, .mport = mport, .left = left,
	};
}

/**
 * The slow branch of a screen of a burst kept tagged for frame @p m:
 * false when it is not the interface's (another VLAN, untagged, too short
 * for a tag: it goes to k->left, for the port's demultiplexer after the
 * burst, vlan.c); else true, the frame untagged now, as the reference
 * takes it, starting at @p eth, and marked as the interface's.
 */
static __rte_always_inline bool
dpr_vlan_kept_untag(const struct dpr_vlan_kept *k, struct rte_mbuf *m, const uint8_t *eth)
{
	if (unlikely((dpr_vlan_word(eth - sizeof(struct rte_vlan_hdr)) & DPR_VLAN_WORD_MASK) !=
		     k->tag || m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))) {
		k->left->pkts[k->left->n++] = m;
		return false;
	}
	dpr_vlan_untag_data(m);
	m->port = k->mport;
	return true;
}

/**
 * Untag those of the @p n frames at @p pkts whose data carries tag word
 * @p tag (DPR_VLAN_WORD()): pass 3's tagged frames in a TX buffer that
 * also holds untagged ones, or that an output ACL (bound since) is to see
 * (dpr_tx_stages()). Every other frame a worker queues there is IP, its
 * EtherType where the tag's would be.
 */
static __rte_noinline __rte_cold __rte_unused void
dpr_vlan_untag_pretagged(struct rte_mbuf **pkts, uint16_t n, uint32_t tag)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		if (dpr_vlan_word(rte_pktmbuf_mtod(pkts[i], const uint8_t *)) == tag)
			dpr_vlan_untag_data(pkts[i]);
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
 * dpr_vlan_tag_bulk() from the first frame dpr_vlan_push_in_place() may
 * not tag (shared, or without headroom: never one a PMD or dpr's control
 * thread made): each is tagged by dpr_vlan_push(), and one that cannot take
 * a tag is moved after the others. @return the number tagged.
 */
static __rte_noinline __rte_cold uint16_t
dpr_vlan_tag_bulk_slow(struct rte_mbuf **pkts, uint16_t n, uint16_t tci)
{
	uint16_t i = 0;

	while (i < n) {
		struct rte_mbuf *bad = pkts[i];

		if (likely(dpr_vlan_push(bad, tci))) {
			i++;
			continue;
		}
		memmove(&pkts[i], &pkts[i + 1], (size_t)(n - i - 1) * sizeof(*pkts));
		pkts[--n] = bad;
	}
	return n;
}

/**
 * Put tag @p tci into the data of each of the @p n frames at @p pkts
 * (dpr_vlan_push()). A frame that cannot take one is moved after the
 * others. @return the number tagged: pkts[0, return) are ready to send.
 * Out of line: inlined into dpr_tx_flush(), its loop cost the untagged
 * path's pass 3 half an instruction a packet (callgrind, small table).
 * The common frame costs one test of dpr_vlan_push_in_place_ok() and the
 * push; the rest is dpr_vlan_tag_bulk_slow()'s.
 */
static __rte_noinline uint16_t
dpr_vlan_tag_bulk(struct rte_mbuf **pkts, uint16_t n, uint16_t tci)
{
	const uint32_t tag = DPR_VLAN_WORD(tci);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (unlikely(!dpr_vlan_push_in_place_ok(pkts[i])))
			return (uint16_t)(i + dpr_vlan_tag_bulk_slow(&pkts[i], (uint16_t)(n - i),
								     tci));
		dpr_vlan_push_in_place(pkts[i], tag);
	}
	return n;
}

/**
 * Have the device put tag @p tci on each of the @p n frames at @p pkts
 * (RTE_ETH_TX_OFFLOAD_VLAN_INSERT): the tag in vlan_tci and
 * RTE_MBUF_F_TX_VLAN set, the data left untagged. Every frame can take it.
 * Out of line for the reason dpr_vlan_tag_bulk() is.
 */
static __rte_noinline void
dpr_vlan_tag_offload_bulk(struct rte_mbuf **pkts, uint16_t n, uint16_t tci)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		pkts[i]->vlan_tci = tci;
		pkts[i]->ol_flags |= RTE_MBUF_F_TX_VLAN;
	}
}

/**
 * rte_eth_tx_burst() for dpr port or VLAN interface with tag @p tci (0: a
 * port, untagged) on DPDK port @p port_id, whose device puts tags on if
 * @p offload (dpr_port_dp.vlan_insert): the worker's flush and the control
 * thread's sends (ARP, NDP, ICMP, frames from a TAP). @return the number
 * sent, from the start of @p pkts; the caller frees the rest, as after
 * rte_eth_tx_burst().
 */
static inline uint16_t
dpr_vlan_tx_burst(uint16_t port_id, uint16_t queue, uint16_t tci, bool offload,
		  struct rte_mbuf **pkts, uint16_t n)
{
	if (unlikely(tci != 0)) {
		if (offload)
			dpr_vlan_tag_offload_bulk(pkts, n, tci);
		else
			n = dpr_vlan_tag_bulk(pkts, n, tci);
	}
	return rte_eth_tx_burst(port_id, queue, pkts, n);
}
