/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * IPv4 forwarding of one RX burst, inline for the worker loop and the unit
 * tests.
 *
 * Reads:  Ethernet and IPv4 headers, pkt_len, data_len, ol_flags (RX IP
 *         checksum status, only on ports with that offload enabled).
 * Writes: Ethernet addresses, TTL and header checksum (in place, RFC 1624);
 *         trims link-layer padding; hash.usr on packets for the exception
 *         path (class and input port, DPR_EXC_META).
 * Next:   w->tx[out port] (sent by dpr_tx_flush()), w->exc_ring with one
 *         enum dpr_exc class (TTL expiry, no route, unresolved next hop, MTU,
 *         ARP, for the router, IP options), or freed and counted under one
 *         enum dpr_drop reason.
 *
 * Two paths give the same result. dpr_ip4_slow() (datapath.c) is the
 * reference: every check of RFC 1812 in turn, for one packet. The burst
 * code here screens each packet with a few word compares for the common
 * case (unicast to us, IPv4 without options in one segment, checksum right,
 * ordinary addresses; then a forwarding next hop, TTL > 1, within every
 * port's MTU) and hands anything else to the reference. Packets the
 * reference lets through rejoin the burst in their place, so a burst
 * leaves in the order it came.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "../acl/acl_dp.h"
#include "../capture/capture.h"
#include "../copp/copp_dp.h"
#include "datapath.h"
#include "ip6_dp.h"
#include "qinq_dp.h"
#include "vlan_dp.h"

#define DPR_PREFETCH_AHEAD 4

/**
 * True if the IPv4 header of @p hlen bytes sums to 0xffff, its checksum
 * included (RFC 1071). The common 20-byte header is two 64-bit words and a
 * 32-bit one added with end-around carry (arithmetic modulo 2^64 - 1).
 * 2^16 = 1 modulo 0xffff, so each fold keeps the residue modulo 0xffff, and
 * a non-zero sum folds to 0xffff exactly when it is a multiple of 0xffff:
 * one multiply-and-compare (the compiler's divisibility test) instead of
 * four folds. A valid header is never all zeros (version 4).
 */
static __rte_always_inline bool
dpr_ip4_cksum_ok(const struct rte_ipv4_hdr *ip, uint32_t hlen)
{
	uint64_t a, b, sum;
	uint32_t c;

	if (unlikely(hlen != sizeof(*ip)))
		return rte_raw_cksum(ip, hlen) == 0xffff;
	memcpy(&a, ip, sizeof(a));
	memcpy(&b, (const uint8_t *)ip + 8, sizeof(b));
	memcpy(&c, (const uint8_t *)ip + 16, sizeof(c));
#if defined(RTE_ARCH_X86_64)
	/* The carry chain in three instructions. A carry out of the last
	 * add leaves at most 2^64 - 3, so adding it back cannot carry. */
	sum = a;
	__asm__("addq %[b], %[s]\n\tadcq %[c], %[s]\n\tadcq $0, %[s]"
		: [s] "+r" (sum) : [b] "r" (b), [c] "r" ((uint64_t)c) : "cc");
#else
	sum = a + b;
	sum += sum < a;
	sum += c;
	sum += sum < c;
#endif
	return sum % 0xffff == 0;
}

/**
 * RFC 1812 5.2.2 header checks.
 * @param avail  bytes of the packet from the IP header on
 * @param contig bytes of the first segment from the IP header on
 * @return DPR_DROP_NONE when the header may be forwarded, else the reason.
 */
static __rte_always_inline enum dpr_drop
dpr_ip4_validate(const struct rte_ipv4_hdr *ip, uint32_t avail, uint32_t contig,
		 uint64_t ol_flags)
{
	uint32_t hlen, tlen;

	if (unlikely(contig < sizeof(struct rte_ipv4_hdr)))
		return DPR_DROP_RUNT;
	if (unlikely((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5))
		return DPR_DROP_BAD_HEADER;
	hlen = (uint32_t)(ip->version_ihl & 0xf) * 4;
	if (unlikely(contig < hlen))
		return DPR_DROP_RUNT;
	tlen = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tlen < hlen || tlen > avail))
		return DPR_DROP_BAD_LENGTH;

	switch (ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
		break;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return DPR_DROP_BAD_CHECKSUM;
	default:
		if (unlikely(!dpr_ip4_cksum_ok(ip, hlen)))
			return DPR_DROP_BAD_CHECKSUM;
	}
	return DPR_DROP_NONE;
}

/**
 * Addresses a router must never forward from or to (RFC 1812 5.3.7):
 * 0/8, 127/8 and, as source, multicast and class E. Destinations in 224/4
 * and 255.255.255.255 are for us (control thread), other class E is martian.
 * A host that has no address yet sends from 0.0.0.0 to the limited
 * broadcast (DHCP, RFC 2131 4.1) or a link-local group (IGMPv3 reports,
 * RFC 3376 4.2.13): for us, as Linux takes them, never forwarded.
 * @return DPR_DROP_MARTIAN, DPR_DROP_NONE, or -1 for a local destination.
 */
static __rte_always_inline int
dpr_ip4_check_addrs(rte_be32_t src, rte_be32_t dst)
{
	uint8_t s = ((const uint8_t *)&src)[0];
	uint8_t d = ((const uint8_t *)&dst)[0];

	if (unlikely(s == 0 || s == 127 || s >= 224 || d == 0 || d == 127)) {
		if (src == 0 && (dst == RTE_BE32(UINT32_MAX) ||
				 (dst & RTE_BE32(0xffffff00)) == RTE_BE32(0xe0000000)))
			return -1;
		return DPR_DROP_MARTIAN;
	}
	if (unlikely(d >= 224)) {
		if (d < 240 || dst == RTE_BE32(UINT32_MAX))
			return -1;
		return DPR_DROP_MARTIAN;
	}
	return DPR_DROP_NONE;
}

/*
 * TTL, protocol and checksum as one 32-bit word w, as it lies in memory,
 * read in host order. The TTL update is one addition to it unless the
 * checksum needs the end-around carry. The fast path updates early: the
 * screen checks w and stores the decremented word while the header is in
 * the cache, and pass 3 writes only the MACs. It does so only for the
 * checksums that need no carry, so the update is exactly undone (pass 3
 * does, for a packet it diverts after all); the rest, and TTL <= 1, take
 * the reference path.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
/* w = TTL | protocol << 8 | checksum << 16, the checksum as read on this
 * host: +1 in network order's 0x0100. */
#define DPR_IP4_TTLW_DEC UINT32_C(0xffff)       /* TTL - 1, checksum + 1 */
#define DPR_IP4_TTLW_MAX UINT32_C(0xfffdffff)   /* checksum + 1 <= 0xfffe */
#define DPR_IP4_TTLW_TTL(w) ((uint8_t)(w))
#else
/* w = TTL << 24 | protocol << 16 | checksum, in network order. */
#define DPR_IP4_TTLW_DEC (UINT32_C(0x100) - UINT32_C(0x1000000))
#define DPR_IP4_TTLW_MAX UINT32_C(0xfffffefe)   /* checksum + 0x100 <= 0xfffe */
#define DPR_IP4_TTLW_TTL(w) ((uint8_t)((w) >> 24))
#endif

/** The word of @p ip that holds TTL, protocol and checksum. */
static __rte_always_inline uint32_t
dpr_ip4_ttlw_load(const struct rte_ipv4_hdr *ip)
{
	uint32_t w;

	memcpy(&w, &ip->time_to_live, sizeof(w));
	return w;
}

static __rte_always_inline void
dpr_ip4_ttlw_store(struct rte_ipv4_hdr *ip, uint32_t w)
{
	memcpy(&ip->time_to_live, &w, sizeof(w));
}

/** The checksum in @p w takes the update without an end-around carry. */
static __rte_always_inline bool
dpr_ip4_ttlw_no_carry(uint32_t w)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return w <= DPR_IP4_TTLW_MAX;
#else
	return (w & 0xffff) <= (DPR_IP4_TTLW_MAX & 0xffff);
#endif
}

/** TTL > 1 and a checksum the early update takes without a carry. */
static __rte_always_inline bool
dpr_ip4_ttlw_early_ok(uint32_t w)
{
	return DPR_IP4_TTLW_TTL(w) > 1 && dpr_ip4_ttlw_no_carry(w);
}

/** Undo the early update of a header (a packet diverted after all). */
static __rte_always_inline void
dpr_ip4_ttl_undo(struct rte_ipv4_hdr *ip)
{
	dpr_ip4_ttlw_store(ip, dpr_ip4_ttlw_load(ip) - DPR_IP4_TTLW_DEC);
}

/**
 * Decrement TTL and update the checksum incrementally (RFC 1624, eqn. 3):
 * HC' = ~(~HC + ~m + m'). The TTL is the high byte of its 16-bit word, so
 * ~m + m' is ~0x0100 whatever the other byte, and the one's complement sum
 * does not care about byte order: the checksum is used as it lies in memory
 * with the constant in network order. Worked through, eqn. 3 is HC + 0x0100
 * with one correction: a sum of 0xffff or more gets one more (the end-around
 * carry, and ~0 becomes 0 as in eqn. 3).
 */
static __rte_always_inline void
dpr_ip4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint32_t sum;

	uint32_t w = dpr_ip4_ttlw_load(ip);

	/* One addition to the word (the TTL, at least 1 here, loses 1; the
	 * checksum gains 0x0100 in network order), unless the checksum needs
	 * the end-around carry below. */
	if (likely(dpr_ip4_ttlw_no_carry(w))) {
		dpr_ip4_ttlw_store(ip, w + DPR_IP4_TTLW_DEC);
		return;
	}
	sum = (uint32_t)ip->hdr_checksum + RTE_BE16(0x0100);
	ip->time_to_live--;
	/* sum <= 0x100ff, so (sum + 1) >> 16 is 1 exactly when sum >= 0xffff. */
	ip->hdr_checksum = (uint16_t)(sum + ((sum + 1) >> 16));
}

/**
 * The output stages of dpr port @p p (out_stages set) over its TX buffer
 * @p b: its output ACL, then its tags as it sends. Out of line: a port
 * with neither pays one test a flush (dpr_tx_flush()).
 * @return how many of b->n (which the ACL may have lowered) were sent.
 */
static __rte_noinline uint16_t
dpr_tx_stages(struct dpr_worker *w, uint16_t p, struct dpr_txbuf *b)
{
	const struct dpr_acl_dp *acl = __atomic_load_n(&w->acl->out[p], __ATOMIC_ACQUIRE);
	uint16_t pretagged = b->pretagged;

	b->pretagged = 0;
	/* Frames pass 3 tagged (DPR_OUT_PRETAG, the ACL bound since): the
	 * ACL and the taggers below see every frame untagged. */
	if (unlikely(pretagged != 0 && (acl != NULL || pretagged != b->n))) {
		dpr_vlan_untag_pretagged(b->pkts, b->n, w->tag_word[p]);
		pretagged = 0;
	}
	if (acl != NULL) {
		b->n = dpr_acl_out_burst(w, acl, p, b->pkts, b->n);
		if (b->n == 0)
			return 0;
	}
	/* A VLAN interface's packets take its tag (a QinQ interface's, both)
	 * and leave through its port's DPDK port, on this worker's queue;
	 * those of a burst received tagged have it already, all of them (the
	 * common case on a trunk) or none. */
	if (w->ports[p].vlan_tci != 0 && pretagged == 0)
		return dpr_vif_tx_burst(&w->ports[p], (uint16_t)w->index, b->pkts, b->n);
	return rte_eth_tx_burst(w->ports[p].port_id, (uint16_t)w->index, b->pkts, b->n);
}

/** Send what is buffered for dpr port @p p; unsent packets are counted drops. */
static __rte_always_inline void
dpr_tx_flush(struct dpr_worker *w, uint16_t p)
{
	struct dpr_txbuf *b = &w->tx[p];
	uint16_t sent;
	uint8_t stages;

	if (b->n == 0)
		return;
	stages = __atomic_load_n(&w->ports[p].out_stages, __ATOMIC_RELAXED);
	/* A VLAN interface's buffer whose frames pass 3 all tagged (a trunk's
	 * common case) goes as it is, as a port's. */
	if (likely(stages == 0)) {
		sent = rte_eth_tx_burst(w->ports[p].port_id, (uint16_t)w->index, b->pkts, b->n);
	} else if (stages == (DPR_OUT_TAG | DPR_OUT_PRETAG) && b->pretagged == b->n) {
		b->pretagged = 0;
		sent = rte_eth_tx_burst(w->ports[p].port_id, (uint16_t)w->index, b->pkts, b->n);
	} else {
		sent = dpr_tx_stages(w, p, b);
	}
	w->stats[p].tx += sent;
	if (unlikely(sent < b->n)) {
		uint16_t i;

		w->stats[p].tx_refused += b->n - sent;

		/* Unsent packets are still ours: charge each to the port it
		 * came in on, where it was counted as forwarded (mbuf->port,
		 * which the screen made sure of, dpr_mbuf_port(); p if it is
		 * none of ours). */
		for (i = sent; i < b->n; i++) {
			struct dpr_port_counters *in = &w->stats[dpr_mbuf_in_port(w, b->pkts[i], p)];

			in->forwarded--;
			in->drops[DPR_DROP_TX_FULL]++;
			b->pkts[i]->hash.usr = DPR_DROP_TX_FULL;
		}
		if (unlikely(__atomic_load_n(&w->cap_drops, __ATOMIC_RELAXED) &
			     (1u << DPR_DROP_TX_FULL)))
			dpr_capture_drops_bulk(w, &b->pkts[sent], b->n - sent, 1u << DPR_DROP_TX_FULL);
		else
			rte_pktmbuf_free_bulk(&b->pkts[sent], b->n - sent);
	}
	/* Last: vlan.del waits for it (lib/router/iface.c). */
	__atomic_store_n(&b->n, 0, __ATOMIC_RELEASE);
}

/** Send what every TX buffer holds. */
static inline void
dpr_tx_flush_all(struct dpr_worker *w)
{
	uint16_t p;

	for (p = 0; p < w->n_ports; p++)
		dpr_tx_flush(w, p);
}

/** Make room for a whole burst in every TX buffer: the fast path then
 * appends without checking. */
static __rte_always_inline void
dpr_tx_reserve(struct dpr_worker *w)
{
	uint16_t p;

	for (p = 0; p < w->n_ports; p++)
		if (unlikely(w->tx[p].n > DPR_TXBUF - DPR_BURST))
			dpr_tx_flush(w, p);
}

/** Ethernet header for next-hop word @p h, whose port is @p port. */
static __rte_always_inline void
dpr_ip4_set_macs(struct dpr_worker *w, uint8_t *eth, uint64_t h, uint64_t port)
{
	/* Two 8-byte stores: the next hop's MAC (its last two bytes spill
	 * into the source MAC), then the port's MAC and the IPv4 type. */
	memcpy(eth, &h, sizeof(h));
	memcpy(eth + RTE_ETHER_ADDR_LEN, &w->src_mac_type[port], sizeof(uint64_t));
}

/**
 * Whether VLAN interface @p port takes its tag from pass 3 of a burst
 * received still tagged (DPR_OUT_PRETAG; vlan_tagged_burst(),
 * vlan.c).
 */
static __rte_always_inline bool
dpr_port_pretags(const struct dpr_worker *w, uint64_t port)
{
	return (__atomic_load_n(&w->ports[port].out_stages, __ATOMIC_RELAXED) &
		DPR_OUT_PRETAG) != 0;
}

/**
 * Pass 3 of a burst received still tagged leaves exit @p tport, whose
 * frames of the burst are those from @p run to @p tx, @p untagged of them
 * untagged: if it takes its tag from pass 3 (@p tpre is @p tport), count
 * those tagged (dpr_txbuf.pretagged), and write back its TX count.
 */
static __rte_always_inline void
dpr_pass3_tagged_exit(struct dpr_worker *w, uint64_t tport, uint64_t tpre,
		      struct rte_mbuf **tx, struct rte_mbuf **run, unsigned int untagged)
{
	w->tx[tport].n = (uint16_t)(tx - w->tx[tport].pkts);
	if (tport == tpre)
		w->tx[tport].pretagged += (uint16_t)(tx - run - untagged);
}

/**
 * Ethernet header and tag for next-hop word @p h, whose port @p port
 * takes its tag from pass 3 (dpr_port_pretags()), of a frame received
 * still tagged, @p eth 4 bytes into it (where the untagged frame would
 * start): the next hop's MAC, then the port's MAC and tag (tag_head[]),
 * one 16-byte store blended from the two; no byte moved, the frame's
 * length unchanged.
 */
static __rte_always_inline void
dpr_set_macs_tag(const struct dpr_worker *w, uint8_t *eth, uint64_t h, uint64_t port)
{
	uint8_t *frame = eth - sizeof(struct rte_vlan_hdr);
#if defined(RTE_ARCH_X86)
	/* The next hop's MAC in 16-bit lanes 0-2, tag_head[] in 3-7 (h's
	 * last 2 bytes, its port, are not the frame's). */
	__m128i v = _mm_blend_epi16(_mm_cvtsi64_si128((long long)h), w->tag_head[port].x, 0xf8);

	_mm_storeu_si128((__m128i *)(void *)frame, v);
#else
	/* The next hop's MAC (its last 2 bytes spill), the port's MAC and
	 * tag over them. */
	memcpy(frame, &h, sizeof(h));
	memcpy(frame + RTE_ETHER_ADDR_LEN, &w->tag_head[port].u8[RTE_ETHER_ADDR_LEN],
	       RTE_ETHER_ADDR_LEN + sizeof(uint32_t));
#endif
}

/**
 * Ethernet header for next-hop word @p h, whose port is @p port (any other
 * than dpr_port_pretags() takes), of frame @p m received still tagged,
 * @p eth 4 bytes into it: the MACs at @p eth (the port's, with the
 * EtherType, from @p smt[port]), where the frame now starts.
 */
static __rte_always_inline void
dpr_set_macs_untag(struct rte_mbuf *m, const uint64_t *smt, uint8_t *eth, uint64_t h,
		   uint64_t port)
{
	memcpy(eth, &h, sizeof(h));
	memcpy(eth + RTE_ETHER_ADDR_LEN, &smt[port], sizeof(uint64_t));
	m->data_off += sizeof(struct rte_vlan_hdr);
	m->data_len -= sizeof(struct rte_vlan_hdr);
	m->pkt_len -= sizeof(struct rte_vlan_hdr);
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
}

/**
 * Rewrite a packet for next-hop word @p h, whose port is @p port: TTL,
 * checksum, MACs. Its header passed.
 */
static __rte_always_inline void
dpr_ip4_rewrite(struct dpr_worker *w, struct rte_mbuf *m, uint64_t h, uint64_t port)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

	dpr_ip4_ttl_dec((struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN));
	dpr_ip4_set_macs(w, eth, h, port);
}

/** Hand the burst's exceptions to the control thread, free its drops. */
static __rte_always_inline void
dpr_burst_finish(struct dpr_worker *w, struct dpr_burst *b)
{
	struct dpr_port_counters *st = &w->stats[b->in];
	unsigned int i, q;

	if (b->n_exc > 0 && likely(w->copp.enabled))
		dpr_copp_gate_burst(w, b, rte_rdtsc());
	if (b->n_exc > 0) {
		/* Exceptions were counted when diverted: an mbuf on the ring
		 * is the control thread's, which may have freed it already,
		 * and is never read here again. What the ring refused is
		 * still ours: its count moves to the drop. */
		q = rte_ring_sp_enqueue_burst(w->exc_ring, (void **)b->exc, b->n_exc, NULL);
		for (i = q; i < b->n_exc; i++) {
			dpr_copp_unpass(&w->copp, b->exc[i]);
			st->exc[DPR_EXC_META_CLASS(b->exc[i]->hash.usr)]--;
			st->exception--;
			st->drops[DPR_DROP_EXCEPTION_FULL]++;
			b->exc[i]->hash.usr = DPR_DROP_EXCEPTION_FULL;
			b->drop[b->n_drop++] = b->exc[i];
		}
	}
	if (b->n_drop > 0) {
		uint32_t cap = __atomic_load_n(&w->cap_drops, __ATOMIC_RELAXED);

		if (unlikely(cap != 0))
			dpr_capture_drops_bulk(w, b->drop, b->n_drop, cap);
		else
			rte_pktmbuf_free_bulk(b->drop, b->n_drop);
	}
}

/**
 * A burst from its RX poll through its screening (pass 1) to the rest: the
 * packets as received, each with what pass 1 found, and what pass 1
 * diverted or dropped. Pipelined, the worker finishes it only after its
 * next RX poll (dpr_ip4_pipeline()), so the misses of one burst overlap
 * other work.
 * Packets stay in their RX slots: a packet pass 1 took away is marked in
 * @c gone, one that came the slow path and goes on in @c slow; a burst with
 * neither (nearly all) is forwarded with no test for them.
 */
struct dpr_ip4_pending {
	struct dpr_burst b;
	uint16_t n;                     /**< packets received */
	uint8_t stage;                  /**< how far past pass 1 (enum dpr_pend_stage) */
	/** A burst kept tagged (vlan.c), led by IPv6: its IPv6 packets the
	 * screen passed are still tagged; led by IPv4, they were untagged
	 * for dpr_l3_screen_other(). Read by the tagged pass 3 only. */
	uint8_t v6_tagged;
	uint32_t slow;                  /**< bit i: packet i came the slow path, goes on */
	uint32_t gone;                  /**< bit i: pass 1 dropped or diverted packet i */
	uint32_t v6;                    /**< bit i: packet i is IPv6 (ip6_dp.h) */
	uint32_t v6_slow;               /**< bit i: IPv6 packet i came the slow path */
	/* The arrays pass 1 writes share a stride: one index register
	 * addresses them all. */
	struct rte_mbuf *pkts[DPR_BURST]; /**< as received: RX writes here */
	/* Each packet's frame, so pass 3 need not read the mbuf again (its
	 * line may have left the cache by then). */
	uint8_t *eth[DPR_BURST];
	/* tbl24 index of each destination (address >> 8; 0 for a packet
	 * gone or IPv6); a tbl8 group's entry takes the last octet from the
	 * header. */
	uint64_t t24[DPR_BURST];
	/* tbl24 entries (IPv4) or next hops (IPv6), from pass 2 to pass 3. */
	uint32_t ent[DPR_BURST];
};

/**
 * How far a burst has gone past pass 1 (struct dpr_ip4_pending): in a
 * deep FIB, a burst's IPv6 packets go ahead while pipelined
 * (dpr_ip4_pipeline()).
 */
enum dpr_pend_stage {
	DPR_PEND_SCREENED, /**< pass 1 only: it holds addresses, no FIB entry */
	DPR_PEND_LOOKED,   /**< pass 2 of its IPv6 packets: their tbl24 entries in ent[] */
	DPR_PEND_STEPPED,  /**< pass 2 of all, and the IPv6 packets' first tbl8
			    *  entries (dpr_ip6_first_step_burst()) */
};

/* The destination's last octet, in the frame at eth. */
#define DPR_IP4_DST_LAST(eth) \
	((eth)[RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv4_hdr, dst_addr) + 3])

/** What the fast path compares against, loaded once per burst. */
struct dpr_ip4_fast {
	/* The first 16 bytes of a frame to forward: destination MAC, then
	 * (masked) source MAC, EtherType IPv4, version 4 and IHL 5. */
	rte_xmm_t head;
	rte_xmm_t head_mask;
	uint32_t max_span;       /**< w->fast_max_len less a bare header */
	const uint32_t *tbl24;   /**< the FIB's first level, to prefetch from */
	uint32_t t24_shift;      /**< from a /24 index to tbl24's (dpr_fib4_first_level()) */
	const uint8_t *marks;    /**< the FIB's screen marks (struct dpr_fib4) */
	uint32_t slow;           /**< as struct dpr_ip4_pending's */
	uint32_t gone;
	struct dpr_vlan_kept kept; /**< a burst kept tagged only (vlan.c) */
};

/**
 * Pass 1 for packet @p m of burst @p b when it is not IPv4 of the common
 * kind. The burst splits by EtherType here, once: an IPv6 packet is the
 * IPv6 screen's from now on (ip6_dp.h), anything else takes the IPv4
 * reference path (dpr_ip4_slow(), which also settles ARP and the other
 * EtherTypes). Out of line, with the IPv4 reference's own signature, so
 * the IPv4 screen compiles as it did without IPv6: *@p dst brings the
 * packet's index in (for the IPv6 marks it sets in its pending burst) and
 * takes the IPv4 destination out.
 * @return true when the packet goes on: the caller marks it slow (for an
 *   IPv6 packet that means nothing: pass 3 reads its own marks).
 */
static __rte_noinline bool
dpr_l3_screen_other(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m,
		    uint32_t *dst)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dpr_ip4_pending *p = container_of(b, struct dpr_ip4_pending, b);
	const uint32_t bit = UINT32_C(1) << *dst;
	struct dpr_ip6_fast f6;
	unsigned int r;

	/* A priority tag (VLAN id 0) says nothing of the VLAN: the frame is
	 * the port's, untagged (802.1Q), of whichever family. Any other tag
	 * left here is for no VLAN interface (dpr_ip4_slow() drops it). */
	if (unlikely(((const struct rte_ether_hdr *)eth)->ether_type ==
		     RTE_BE16(RTE_ETHER_TYPE_VLAN)) && dpr_vlan_untag_priority(m)) {
		eth = rte_pktmbuf_mtod(m, const uint8_t *);
		p->eth[*dst] = (uint8_t *)(uintptr_t)eth;
	}
	if (((const struct rte_ether_hdr *)eth)->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return dpr_ip4_slow(w, b, m, dst);
	f6 = dpr_ip6_fast_init(w, b);
	r = dpr_ip6_screen(w, &f6, b, m, eth, &p->ent[*dst], false, false);
	*dst = 0;
	if (r & DPR_SCREEN_V6)
		p->v6 |= bit;
	if (r & DPR_SCREEN_SLOW)
		p->v6_slow |= bit;
	return (r & DPR_SCREEN_V6) != 0;
}

/**
 * Screen packet @p i of @p p: the common case has its TTL updated and its
 * FIB entry prefetched, anything else takes the slow path.
 * One compare and branch per check: fewest instructions when all pass,
 * and each branch is predictable. @p hw_cksum (a constant): the input port
 * has the NIC verify IPv4 checksums, so ol_flags carry a verdict; without
 * it they carry none and are not read.
 */
static __rte_always_inline void
dpr_ip4_screen(struct dpr_worker *w, struct dpr_ip4_fast *f, struct dpr_ip4_pending *p,
	       unsigned int i, const bool hw_cksum, const bool tagged)
{
	/* The frame's link-layer header: a tagged one's is 4 bytes longer,
	 * and eth points 4 bytes into it, where an untagged one would start
	 * (vlan_tagged_burst(), vlan.c). */
	const uint32_t l2 = tagged ? RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr) :
		RTE_ETHER_HDR_LEN;
	struct rte_mbuf *m = p->pkts[i];
	const uint8_t *eth = p->eth[i];
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);
	uint32_t dlen, tlen, daddr, sdst, ttlw;

	/* Reading before the length check stays inside the mbuf's data
	 * room, which is far larger than these 34 bytes. */
	/* A tagged frame's covers its whole MAC and the tag (priority bits
	 * aside). */
	if (unlikely(!dpr_head_ok(eth, &f->head, &f->head_mask, tagged, false)))
		goto slow;
	/* The lengths are checked from the frame's side: data_len from a
	 * bare header up to what every port's MTU takes here, and the IP
	 * total length against it below, where a mismatch can still be
	 * padding. */
	dlen = m->data_len;
	if (unlikely(dlen - (uint32_t)(l2 + sizeof(*ip)) > f->max_span))
		goto slow;
	ttlw = dpr_ip4_ttlw_load(ip);
	if (unlikely(!dpr_ip4_ttlw_early_ok(ttlw)))
		goto slow;
	daddr = rte_be_to_cpu_32(ip->dst_addr);
	/* Both first octets straight from the header (one load each, no
	 * shift of daddr); and the source's last octet, when it ends some
	 * connected subnet's broadcast address (the reference looks the
	 * source up). */
	if (unlikely(f->marks[DPR_FIB4_MARK_FIRST + ((const uint8_t *)&ip->src_addr)[0]] |
		     f->marks[DPR_FIB4_MARK_FIRST + ((const uint8_t *)&ip->dst_addr)[0]] |
		     f->marks[DPR_FIB4_MARK_SRC_BCAST + ((const uint8_t *)&ip->src_addr)[3]]))
		goto slow;
	if (hw_cksum) {
		/* One bit test each: BAD and NONE (both have the BAD bit)
		 * go to the reference; GOOD skips the sum; UNKNOWN sums. */
		uint64_t ol = m->ol_flags;

		if (unlikely(ol & RTE_MBUF_F_RX_IP_CKSUM_BAD))
			goto slow;
		if (!(ol & RTE_MBUF_F_RX_IP_CKSUM_GOOD) &&
		    unlikely(!dpr_ip4_cksum_ok(ip, sizeof(*ip))))
			goto slow;
	} else if (unlikely(!dpr_ip4_cksum_ok(ip, sizeof(*ip)))) {
		goto slow;
	}
	/* Last, as it may change the packet: the frame is the IP packet, in
	 * one segment (the total length compared in network order, as
	 * stored). Link-layer padding (short packets, TCP ACKs) is trimmed,
	 * after the range check the total length then still needs; a chain
	 * or a frame shorter than its packet is the reference's. */
	if (unlikely(ip->total_length != rte_cpu_to_be_16((uint16_t)(dlen - l2)) ||
		     m->pkt_len != dlen)) {
		/* Reload here: the compares above can then use memory
		 * operands instead of loading into registers for this. */
		rte_compiler_barrier();
		tlen = rte_be_to_cpu_16(ip->total_length);
		if (m->pkt_len != dlen || tlen < sizeof(*ip) || dlen < tlen + l2)
			goto slow;
		m->data_len = (uint16_t)(tlen + l2);
		m->pkt_len = tlen + l2;
	}
	/* TTL and checksum now, while the line is at hand (see above). */
	dpr_ip4_ttlw_store((struct rte_ipv4_hdr *)(uintptr_t)ip, ttlw + DPR_IP4_TTLW_DEC);
	rte_prefetch0(&f->tbl24[daddr >> 8 >> f->t24_shift]);
	p->t24[i] = daddr >> 8;
	if (tagged)
		m->port = f->kept.mport;
	return;
slow:
	if (tagged && !dpr_vlan_kept_untag(&f->kept, m, eth)) {
		f->gone |= UINT32_C(1) << i;
		p->t24[i] = 0;
		return;
	}
	/* Its own variable: daddr's address is never taken, so it stays in
	 * a register on the fast path. It brings the packet's index in. */
	sdst = i;
	if (dpr_l3_screen_other(w, &p->b, m, &sdst)) {
		f->slow |= UINT32_C(1) << i;
		p->t24[i] = sdst >> 8;
	} else {
		f->gone |= UINT32_C(1) << i;
		p->t24[i] = 0;
	}
}

/** What the IPv4 screen of burst @p b (dpr_burst_begin()) works with. */
static __rte_always_inline struct dpr_ip4_fast
dpr_ip4_fast_init(const struct dpr_worker *w, const struct dpr_burst *b)
{
	struct dpr_ip4_fast f = {
		.head = w->head[b->in], .head_mask = w->head_mask,
		.max_span = w->fast_max_len - (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)),
		.marks = b->fib4->marks, .slow = 0, .gone = 0,
	};

	f.tbl24 = dpr_fib4_first_level(b->fib4, &f.t24_shift);
	return f;
}

/**
 * dpr_ip4_fast_init() for a burst of VLAN interface b->in received still
 * tagged (vlan.c), whose frames not the interface's go to @p left: the
 * head compared 4 bytes into a frame (head_tag), the MAC's first 4 bytes
 * put in (dpr_head_ok()).
 */
static __rte_always_inline struct dpr_ip4_fast
dpr_ip4_fast_init_tagged(const struct dpr_worker *w, const struct dpr_burst *b,
			 struct dpr_vlan_left *left)
{
	struct dpr_ip4_fast f = dpr_ip4_fast_init(w, b);

	f.head = w->head_tag[b->in];
	f.head_mask = w->head_tag_mask;
	f.kept = dpr_vlan_kept_init(w->tag_word[b->in], dpr_mbuf_port(w->ports, b->in), left);
	return f;
}

/**
 * The marks of a burst that starts with an IPv6 packet, as pass 1 sets
 * them: the packets that are not IPv6 packets going on (IPv4 ones, and
 * IPv6 ones gone), so that the common packet sets no mark.
 */
struct dpr_l3_marks {
	uint32_t not_v6, v6_slow;
};

/** Pass 1 for packet @p i of a burst led by IPv6: either family's screen. */
static __rte_always_inline void
dpr_ip6_screen_at(struct dpr_worker *w, struct dpr_ip4_fast *f, const struct dpr_ip6_fast *f6,
		  struct dpr_ip4_pending *p, struct dpr_l3_marks *k, unsigned int i,
		  const bool hw_cksum, const bool tagged)
{
	const uint8_t *eth = p->eth[i];
	unsigned int r;
	uint32_t bit;

	/* No t24 if it goes on: pass 2 reads its tbl24 index from ent[].
	 * The IPv6 head compare first: it covers the EtherType, so the
	 * common packet tests its family no further (2 instructions). */
	if (likely(dpr_head_ok(eth, &f6->head, &f6->head_mask, tagged, true))) {
		r = dpr_ip6_screen(w, f6, &p->b, p->pkts[i], eth, &p->ent[i], true, tagged);
	} else if (((const struct rte_ether_hdr *)eth)->ether_type !=
		   RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		k->not_v6 |= UINT32_C(1) << i;
		dpr_ip4_screen(w, f, p, i, hw_cksum, tagged);
		/* An IPv6 packet the IPv4 screen passed on (a priority tag
		 * inside the VLAN's, dpr_l3_screen_other()) is untagged now:
		 * marked slow, pass 3 does not take it for still tagged
		 * (v6_tagged). */
		if (tagged)
			k->v6_slow |= p->v6 & (UINT32_C(1) << i);
		return;
	} else {
		r = dpr_ip6_screen(w, f6, &p->b, p->pkts[i], eth, &p->ent[i], false, tagged);
	}
	if (likely(r == DPR_SCREEN_V6))
		return;
	bit = UINT32_C(1) << i;
	if (!(r & DPR_SCREEN_V6)) {
		k->not_v6 |= bit;
		f->gone |= bit;
		p->t24[i] = 0; /* pass 2 reads entry 0 for it, as IPv4 */
	}
	if (r & DPR_SCREEN_SLOW)
		k->v6_slow |= bit;
}

/**
 * Pass 1 over @p n packets of a burst that starts with an IPv6 one: the
 * IPv6 screen inline for IPv6 packets, the IPv4 screen for the others, so
 * that an IPv6 burst pays no call a packet (dpr_l3_screen_other() costs
 * an IPv6 packet in an IPv4 burst 31 instructions more). IPv6 packets are
 * marked slow as well, so that pass 3 reads the marks. Frames are
 * prefetched ahead as in dpr_ip4_screen_loop(), in two loops so that no
 * packet tests whether one is left to prefetch.
 * @return the slow marks in the low 32 bits, the gone ones in the high.
 */
static __rte_always_inline uint64_t
dpr_ip6_screen_loop_(struct dpr_worker *w, struct dpr_ip4_pending *p, unsigned int n,
		     const bool hw_cksum, const bool tagged, struct dpr_vlan_left *left)
{
	struct dpr_ip4_fast f = tagged ? dpr_ip4_fast_init_tagged(w, &p->b, left) :
		dpr_ip4_fast_init(w, &p->b);
	const struct dpr_ip6_fast f6 = tagged ? dpr_ip6_fast_init_tagged(w, &p->b, left) :
		dpr_ip6_fast_init(w, &p->b);
	/* As in dpr_ip4_screen_loop(). */
	const unsigned int skip = tagged ? sizeof(struct rte_vlan_hdr) : 0;
	struct dpr_l3_marks k = { 0, 0 };
	unsigned int i;
	uint32_t v6;

	for (i = 0; i < n && i < DPR_PREFETCH_AHEAD; i++) {
		p->eth[i] = rte_pktmbuf_mtod_offset(p->pkts[i], uint8_t *, skip);
		rte_prefetch0(p->eth[i]);
	}
	for (i = 0; i + DPR_PREFETCH_AHEAD < n; i++) {
		uint8_t *next = rte_pktmbuf_mtod_offset(p->pkts[i + DPR_PREFETCH_AHEAD], uint8_t *,
							skip);

		p->eth[i + DPR_PREFETCH_AHEAD] = next;
		rte_prefetch0(next);
		dpr_ip6_screen_at(w, &f, &f6, p, &k, i, hw_cksum, tagged);
	}
	for (; i < n; i++)
		dpr_ip6_screen_at(w, &f, &f6, p, &k, i, hw_cksum, tagged);
	v6 = dpr_burst_all(n) & ~k.not_v6;
	p->v6 |= v6;
	p->v6_slow |= k.v6_slow;
	return (f.slow | v6) | (uint64_t)f.gone << 32;
}

/* dpr_ip6_screen_loop_() of a burst received untagged. */
static __rte_noinline uint64_t
dpr_ip6_screen_loop(struct dpr_worker *w, struct dpr_ip4_pending *p, unsigned int n,
		    const bool hw_cksum)
{
	return dpr_ip6_screen_loop_(w, p, n, hw_cksum, false, NULL);
}

/**
 * Pass 1 over @p n packets, @p hw_cksum and @p tagged constants (see
 * dpr_ip4_screen()).
 */
static __rte_always_inline void
dpr_ip4_screen_loop(struct dpr_worker *w, struct dpr_ip4_fast *f, struct dpr_ip4_pending *p,
		    unsigned int n, const bool hw_cksum, const bool tagged)
{
	/* A tagged frame's eth: where its untagged form starts, past the
	 * tag (which the reference's untagging moves the MACs over). */
	const unsigned int skip = tagged ? sizeof(struct rte_vlan_hdr) : 0;
	unsigned int i;

	/* Each frame's address is taken when it is prefetched, and kept
	 * for the screen and pass 3 (nothing in pass 1 moves the data start
	 * but the untagging of a tagged frame, to eth; pass 2 may read a gone
	 * packet's header, its mbuf still ours). */
	for (i = 0; i < n && i < DPR_PREFETCH_AHEAD; i++) {
		p->eth[i] = rte_pktmbuf_mtod_offset(p->pkts[i], uint8_t *, skip);
		rte_prefetch0(p->eth[i]);
	}
#pragma GCC unroll 2
	for (i = 0; i + DPR_PREFETCH_AHEAD < n; i++) {
		uint8_t *eth = rte_pktmbuf_mtod_offset(p->pkts[i + DPR_PREFETCH_AHEAD], uint8_t *,
						       skip);

		p->eth[i + DPR_PREFETCH_AHEAD] = eth;
		rte_prefetch0(eth);
		dpr_ip4_screen(w, f, p, i, hw_cksum, tagged);
	}
	for (; i < n; i++)
		dpr_ip4_screen(w, f, p, i, hw_cksum, tagged);
}

/**
 * Pass 1 of the @p n packets (at most DPR_BURST) that dpr port @p in
 * received into @p p->pkts.
 */
static __rte_always_inline void
dpr_ip4_screen_burst(struct dpr_worker *w, uint16_t in, uint16_t n,
		     struct dpr_ip4_pending *p, const bool v6_first)
{
	const uint16_t port_id = dpr_mbuf_port(w->ports, in);
	struct dpr_ip4_fast f;

	dpr_burst_begin(w, &p->b, in);
	f = dpr_ip4_fast_init(w, &p->b);

	/* dpr_tx_flush() charges a packet its TX queue refused to the port it
	 * came in on, by mbuf->port. Most PMDs set it; some (net_ring) leave
	 * RTE_MBUF_PORT_INVALID. A PMD sets it on all or none: one test a
	 * burst. */
	if (unlikely(n > 0 && p->pkts[0]->port != port_id)) {
		uint16_t i;

		for (i = 0; i < n; i++)
			p->pkts[i]->port = port_id;
	}
	p->n = n;
	p->v6 = 0;
	p->v6_slow = 0;
	/* Screen the headers, prefetching packets ahead and the FIB entries
	 * of the whole burst (all of them before any is read: with a full
	 * table they miss the cache, and the misses overlap). */
	if (v6_first) {
		uint64_t marks = w->ports[in].rx_ip_cksum ? dpr_ip6_screen_loop(w, p, n, true) :
			dpr_ip6_screen_loop(w, p, n, false);

		f.slow = (uint32_t)marks;
		f.gone = (uint32_t)(marks >> 32);
	} else if (w->ports[in].rx_ip_cksum)
		dpr_ip4_screen_loop(w, &f, p, n, true, false);
	else
		dpr_ip4_screen_loop(w, &f, p, n, false, false);
	p->slow = f.slow;
	p->gone = f.gone;
}

/**
 * Does the burst of @p n packets at @p pkts start with an IPv6 packet? The
 * worker splits bursts by family once, here: an IPv6 burst is screened by
 * dpr_ip6_first_screen_burst(). Asked before the IPv4 screen is entered,
 * not inside it, where the test cost IPv4 1.5 instructions a packet
 * (callgrind, small table).
 */
static __rte_always_inline bool
dpr_burst_v6_first(struct rte_mbuf *const *pkts, uint16_t n)
{
	return n > 0 && rte_pktmbuf_mtod(pkts[0], const struct rte_ether_hdr *)->ether_type ==
		RTE_BE16(RTE_ETHER_TYPE_IPV6);
}

/** Pass 1 of a burst that starts with an IPv6 packet (dpr_burst_v6_first()). */
static __rte_noinline void
dpr_ip6_first_screen_burst(struct dpr_worker *w, uint16_t in, uint16_t n,
			   struct dpr_ip4_pending *p)
{
	dpr_ip4_screen_burst(w, in, n, p, true);
}

/** Pass 1 of a burst of either family, split by its first packet. */
static __rte_always_inline void
dpr_l3_screen_burst(struct dpr_worker *w, uint16_t in, uint16_t n, struct dpr_ip4_pending *p)
{
	p->stage = DPR_PEND_SCREENED;
	if (unlikely(dpr_burst_v6_first(p->pkts, n)))
		dpr_ip6_first_screen_burst(w, in, n, p);
	else
		dpr_ip4_screen_burst(w, in, n, p, false);
}

/**
 * Queue packet @p m of a burst kept tagged (vlan.c), still tagged, @p eth 4
 * bytes into its frame, for next-hop word @p h, whose port is @p port;
 * @p smt: the ports' MACs with the packet's EtherType (src_mac_type or
 * src_mac_type6). Pass 3's exit (*@p tport, its TX slot *@p tx, and
 * *@p tpre, *@p run, *@p untagged as there) changes here if need be. Most
 * packets leave by the exit of the one before, which takes the tag from
 * pass 3: one compare.
 */
static __rte_always_inline void
dpr_pass3_tagged_queue(struct dpr_worker *w, struct rte_mbuf *m, uint8_t *eth, uint64_t h,
		       uint64_t port, const uint64_t *smt, uint64_t *tport, uint64_t *tpre,
		       struct rte_mbuf ***tx, struct rte_mbuf ***run, unsigned int *untagged)
{
	if (likely(port == *tpre)) {
		dpr_set_macs_tag(w, eth, h, port);
		*(*tx)++ = m;
		return;
	}
	if (port != *tport) {
		dpr_pass3_tagged_exit(w, *tport, *tpre, *tx, *run, *untagged);
		*untagged = 0;
		*tport = port;
		*tx = &w->tx[port].pkts[w->tx[port].n];
		*run = *tx;
		*tpre = dpr_port_pretags(w, port) ? port : UINT64_MAX;
		if (port == *tpre) {
			dpr_set_macs_tag(w, eth, h, port);
			*(*tx)++ = m;
			return;
		}
	}
	dpr_set_macs_untag(m, smt, eth, h, port);
	*(*tx)++ = m;
}

/** Which packets a burst holds, for pass 3 (a constant in each copy). */
enum dpr_l3_mix {
	DPR_L3_IP4,   /**< IPv4 only, none gone or slow: no mark is tested */
	DPR_L3_MIXED, /**< anything: every packet's marks are tested */
	DPR_L3_IP6,   /**< IPv6 only, none gone or slow: no mark is tested */
	DPR_L3_IP6_DEEP, /**< as DPR_L3_IP6, in a deep FIB (struct dpr_fib6), its
			  *  first step taken (dpr_ip6_first_step_burst()) */
};

/**
 * Pass 3 of a burst: every FIB entry has been asked for; read them and
 * forward. Other next hops, and packets that came the slow path (TTL, MTU
 * and broadcast still to check), go to dpr_ip4_act(); packets gone in
 * pass 1 are skipped. Only when @p mix, a constant, is DPR_L3_MIXED are
 * the marks tested: the common burst, of either family, has no test for
 * them. The TX buffer being
 * filled is held as a cursor in a register and written back when the
 * output port changes (rarely within a burst).
 * @return the number of packets forwarded.
 */
static __rte_always_inline unsigned int
dpr_ip4_pass3(struct dpr_worker *w, struct dpr_ip4_pending *p, const enum dpr_l3_mix mix,
	      const bool tagged)
{
	const bool irregular = mix == DPR_L3_MIXED;
	const union dpr_nh_word *nhw = w->nh;
	const struct dpr_fib4 *fib = p->b.fib4;
	/* A worker of an IPv4-only test may have no IPv6 FIB. */
	const uint32_t *tbl8 = mix != DPR_L3_IP4 && p->v6 != 0 ? p->b.fib6->tbl8 : NULL;
	/* Locals, not p->: the header stores below could alias p's fields,
	 * which would make the compiler reload them for every packet. */
	struct rte_mbuf *const *pkts = p->pkts;
	uint8_t *const *ethp = p->eth;
	const uint32_t *ent = p->ent;
	const unsigned int n = p->n;
	const uint32_t slow = p->slow, gone = p->gone, v6 = p->v6;
	const uint64_t in = p->b.in;
	unsigned int n_out = 0, i, k, n4 = n;
	/* Most bursts leave by the port the last one did. */
	uint64_t tport = w->tx_last;
	struct rte_mbuf **tx = &w->tx[tport].pkts[w->tx[tport].n];
	/* @p tagged: tport if it takes its tag from pass 3, else none
	 * (UINT64_MAX), so that the common packet has one compare; where
	 * tport's frames of this burst start, and how many of them are not
	 * tagged (packets that left the fast path and came back). */
	uint64_t tpre = tagged && dpr_port_pretags(w, tport) ? tport : UINT64_MAX;
	struct rte_mbuf **run = tx;
	unsigned int untagged = 0;
	/* A mixed burst goes family by family, its IPv4 packets first: the
	 * test of each packet's family is then true from one point of the
	 * burst on, where in arrival order (a dual-stack link's) it went
	 * either way at random, a mispredicted branch every other packet
	 * (callgrind --branch-sim, 50/50 mix: 1.77 mispredicted branches a
	 * packet against 0.33 and 0.85 for IPv4 and IPv6 alone). Each
	 * family's packets keep their order, so every flow does. */
	uint8_t order[DPR_BURST];

	/* Whether pass 3's IPv6 walks go on from the /48 level: in a deep
	 * FIB, each chain's /32 and /40 levels are read a step ahead for the
	 * whole burst (dpr_ip6_step()). */
	bool deep6 = false;

	/* The first step went before (dpr_ip6_first_step_burst()). */
	if (mix == DPR_L3_IP6_DEEP) {
#pragma GCC unroll 2
		for (i = 0; i < n; i++)
			dpr_ip6_step(tbl8, ethp, i, p->ent, 4);
		deep6 = true;
	}
	if (irregular) {
		uint32_t m4 = dpr_burst_all(n) & ~v6, m6 = v6;

		for (k = 0; m4 != 0; m4 &= m4 - 1)
			order[k++] = (uint8_t)__builtin_ctz(m4);
		n4 = k;
		for (; m6 != 0; m6 &= m6 - 1)
			order[k++] = (uint8_t)__builtin_ctz(m6);
		/* A stepped burst's IPv6 entries are the first tbl8 level's,
		 * whatever the hint says now. */
		if (v6 != 0 && (p->stage == DPR_PEND_STEPPED ||
				__atomic_load_n(&p->b.fib6->deep, __ATOMIC_RELAXED))) {
			if (p->stage != DPR_PEND_STEPPED)
				for (i = n4; i < n; i++)
					dpr_ip6_step(tbl8, ethp, order[i], p->ent, 3);
			for (i = n4; i < n; i++)
				dpr_ip6_step(tbl8, ethp, order[i], p->ent, 4);
			deep6 = true;
		}
	}

#pragma GCC unroll 2
	for (k = 0; k < n; k++) {
		struct rte_mbuf *m;
		uint8_t *eth;
		/* Indices as 64-bit values: no zero-extension before each use. */
		uint64_t nh, h, port;
		/* Still tagged (@p tagged: a packet the screen passed). */
		bool lazy = false;

		i = irregular ? order[k] : k;
		m = pkts[i];
		eth = ethp[i];

		if (mix == DPR_L3_IP6 || mix == DPR_L3_IP6_DEEP) {
			lazy = tagged;
			if (!dpr_ip6_forward(w, &p->b, m, eth, ent[i], deep6, false, tbl8,
					     nhw, &h, &port, tagged ? &lazy : NULL)) {
				n_out++;
				continue;
			}
			goto out6;
		}
		if (irregular && unlikely(gone & (UINT32_C(1) << i))) {
			n_out++;
			continue;
		}
		if (irregular && k >= n4) {
			lazy = tagged && p->v6_tagged && !(p->v6_slow & (UINT32_C(1) << i));
			if (!dpr_ip6_forward(w, &p->b, m, eth, ent[i], deep6,
					     p->v6_slow & (UINT32_C(1) << i), tbl8, nhw, &h,
					     &port, tagged ? &lazy : NULL)) {
				n_out++;
				continue;
			}
			goto out6;
		}
		lazy = tagged && !(irregular && (slow & (UINT32_C(1) << i)));
		nh = dpr_fib4_resolve(fib, ent[i], DPR_IP4_DST_LAST(eth));
		h = __atomic_load_n(&nhw[nh].u64, __ATOMIC_RELAXED);
		port = dpr_nh_word_fwd_port(h);
		if (unlikely(port > 0xff || (irregular && (slow & (UINT32_C(1) << i))))) {
			struct rte_ipv4_hdr *ip =
				(struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);
			union dpr_nh_word hs;

			/* A screened packet had its TTL updated early: the
			 * reference sees the header as it came, untagged. */
			if (!(irregular && (slow & (UINT32_C(1) << i))))
				dpr_ip4_ttl_undo(ip);
			if (lazy) {
				dpr_vlan_untag_data(m);
				lazy = false;
			}
			/* nh once more, from memory: kept live from above, it
			 * costs every packet a register move. */
			rte_compiler_barrier();
			nh = dpr_fib4_resolve(fib, ent[i], DPR_IP4_DST_LAST(eth));
			if (!dpr_ip4_act(w, &p->b, m, (uint32_t)nh, false, &hs)) {
				n_out++;
				continue;
			}
			h = hs.u64;
			port = hs.port;
			dpr_ip4_ttl_dec(ip);
		}
		/* Back out where it came in: a redirect may be due. */
		if (unlikely(port == in)) {
			if (lazy) {
				dpr_vlan_untag_data(m);
				lazy = false;
			}
			if (dpr_l3_hairpin(w, &p->b, m, eth, false)) {
				n_out++;
				continue;
			}
		}
		if (lazy) {
			dpr_pass3_tagged_queue(w, m, eth, h, port, w->src_mac_type, &tport, &tpre, &tx,
					       &run, &untagged);
			continue;
		}
		dpr_ip4_set_macs(w, eth, h, port);
		goto queue;
out6:
		if (unlikely(port == in)) {
			if (lazy) {
				dpr_vlan_untag_data(m);
				lazy = false;
			}
			if (dpr_l3_hairpin(w, &p->b, m, eth, true)) {
				n_out++;
				continue;
			}
		}
		if (lazy) {
			dpr_pass3_tagged_queue(w, m, eth, h, port, w->src_mac_type6, &tport, &tpre,
					       &tx, &run, &untagged);
			continue;
		}
		dpr_ip6_set_macs(w, eth, h, port);
		goto queue;
queue:
		if (likely(port == tport)) {
			/* Its own exit: tport then needs no move here. */
			*tx++ = m;
			if (tagged && port == tpre)
				untagged++;
			continue;
		}
		w->tx[tport].n = (uint16_t)(tx - w->tx[tport].pkts);
		if (tagged) {
			dpr_pass3_tagged_exit(w, tport, tpre, tx, run, untagged);
			tpre = dpr_port_pretags(w, port) ? port : UINT64_MAX;
			untagged = tagged && port == tpre;
		}
		tport = port;
		tx = &w->tx[tport].pkts[w->tx[tport].n];
		run = tx;
		*tx++ = m;
	}
	w->tx[tport].n = (uint16_t)(tx - w->tx[tport].pkts);
	if (tagged)
		dpr_pass3_tagged_exit(w, tport, tpre, tx, run, untagged);
	w->tx_last = tport;
	return n - n_out;
}

/** Pass 2 for IPv4 packet @p i: its tbl24 entry, and its tbl8 entry asked for. */
static __rte_always_inline void
dpr_ip4_lookup_one(const struct dpr_fib4 *fib, const uint64_t *t24, uint8_t *const *ethp,
		   unsigned int i, uint32_t *ent)
{
	uint32_t e = __atomic_load_n(&fib->tbl24[t24[i]], __ATOMIC_RELAXED);

	if (unlikely(e & DPR_FIB4_EXT))
		rte_prefetch0(dpr_fib4_tbl8_entry(fib, e, DPR_IP4_DST_LAST(ethp[i])));
	ent[i] = e;
}

/**
 * Pass 2 for the IPv4 packets in @p v4 (bit i: packet i) of a burst in a
 * Poptrie FIB: the whole lookup, into @p ent[i] (a next hop, which
 * dpr_fib4_resolve() gives back as it is). The direct-pointing entries were
 * prefetched in pass 1; each walk's first node is asked for before any
 * walk starts, and the walks go in lockstep (dpr_pt_walk4_burst()).
 */
static __rte_noinline void
dpr_pt4_lookup_burst(const struct dpr_fib4 *fib, const uint64_t *t24, uint8_t *const *ethp,
		     uint32_t v4, uint32_t *ent)
{
	const struct dpr_pt_tables *t = dpr_pt_tables(fib->pt);
	const uint32_t *dp = t->dp;
	uint32_t node[DPR_PT_BURST_MAX];
	uint32_t addr[DPR_PT_BURST_MAX];
	uint64_t todo = 0;
	unsigned int i;
	uint32_t a, e;

	/* No branch on the entry, as dpr_pt_lookup4_bulk(). */
	for (; v4 != 0; v4 &= v4 - 1) {
		uint32_t walk;

		i = (unsigned int)__builtin_ctz(v4);
		a = (uint32_t)t24[i] << 8;
		e = __atomic_load_n(&dp[a >> (32 - DPR_PT_DP_BITS)], __ATOMIC_RELAXED);
		walk = (e >> 31) ^ 1;
		ent[i] = e & ~DPR_PT_LEAF;
		node[i] = e;
		addr[i] = a | DPR_IP4_DST_LAST(ethp[i]);
		todo |= (uint64_t)walk << i;
		rte_prefetch0(&t->nodes[e & (0 - walk)]);
	}
	if (todo != 0)
		dpr_pt_walk4_burst(t, node, addr, todo, ent);
}

/**
 * Pass 2 of a screened burst: read its tbl24 entries, asked for in pass 1;
 * where a block has a tbl8 group, ask for that entry too before any is read
 * (a route longer than /24 costs a second miss otherwise). Pipelined, the
 * worker then screens the next burst before pass 3 (dpr_ip4_pipeline()),
 * which gives the tbl8 entries time to arrive. On the full pyasn table, reading tbl24 in
 * pass 3 instead saved 5-8 instructions a packet but lost about 5 % of the
 * throughput. The entries are FIB state: pass 3 must follow before the
 * worker reports quiescence. Packets gone in pass 1 read entry 0 (harmless,
 * and no test).
 *
 * Passes 2 and 3 are functions of their own, not inlined: the worker calls
 * them from three places (pipelined, at once, idle), and inlined copies
 * came out unlike each other (GCC peeled the at-once copy's loops and
 * spilled): 303.7 instructions a packet at once, 299.7 pipelined; called,
 * 298.9 both ways (callgrind, small table).
 *
 * A burst of one family has a loop of its own: an IPv6 burst skips the
 * IPv4 loop (7 instructions a packet, callgrind), and neither tests a
 * packet's family; a mixed burst walks each family's bits.
 */
static __rte_noinline void
dpr_ip4_lookup_burst(struct dpr_ip4_pending *p)
{
	const struct dpr_fib4 *fib = p->b.fib4;
	const uint64_t *t24 = p->t24;
	uint8_t *const *ethp = p->eth;
	const unsigned int n = p->n;
	uint32_t *ent = p->ent;
	const uint32_t v6 = p->v6;
	uint32_t v4;
	unsigned int i;

	if (unlikely(fib->pt != NULL)) {
		if (v6 != 0)
			dpr_ip6_lookup_burst(p->b.fib6, ethp, v6, n, ent);
		dpr_pt4_lookup_burst(fib, t24, ethp, dpr_burst_all(n) & ~v6, ent);
		return;
	}
	if (likely(v6 == 0)) {
#pragma GCC unroll 4
		for (i = 0; i < n; i++)
			dpr_ip4_lookup_one(fib, t24, ethp, i, ent);
		return;
	}
	/* IPv6 packets hold their tbl24 index in ent[] (dpr_ip6_screen()). */
	dpr_ip6_lookup_burst(p->b.fib6, ethp, v6, n, ent);
	if (v6 == dpr_burst_all(n))
		return;
	for (v4 = dpr_burst_all(n) & ~v6; v4 != 0; v4 &= v4 - 1)
		dpr_ip4_lookup_one(fib, t24, ethp, (unsigned int)__builtin_ctz(v4), ent);
}

/*
 * Pass 3 of a burst with marks or of both families, out of line: its copy
 * of the loop holds the family order on the stack, which inlined beside
 * the common copies cost every IPv4 burst its frame (4 instructions a
 * burst, callgrind).
 */
static __rte_noinline unsigned int
dpr_l3_pass3_mixed(struct dpr_worker *w, struct dpr_ip4_pending *p)
{
	return dpr_ip4_pass3(w, p, DPR_L3_MIXED, false);
}

/** Whether @p p, screened, holds IPv6 packets only, none gone or slow. */
static __rte_always_inline bool
dpr_ip6_only_burst(const struct dpr_ip4_pending *p)
{
	return (p->gone | p->v6_slow) == 0 && p->v6 == dpr_burst_all(p->n);
}

/**
 * Pass 2 of the IPv6 packets of burst @p p ahead of its IPv4 ones, in a
 * deep FIB (dpr_ip4_pipeline()): their tbl24 entries read, the first tbl8
 * ones asked for.
 */
static __rte_noinline void
dpr_ip6_ahead_burst(struct dpr_ip4_pending *p)
{
	dpr_ip6_lookup_burst(p->b.fib6, p->eth, p->v6, p->n, p->ent);
	p->stage = DPR_PEND_LOOKED;
}

/**
 * The first step of pass 3 for the IPv6 packets of a burst in a deep FIB,
 * after their pass 2: each one's first tbl8 entry read, the second asked
 * for (dpr_ip6_step()). Pipelined, it runs before the next burst's pass 1,
 * which gives those second entries time to arrive (dpr_ip4_pipeline()).
 * The burst's IPv4 packets, if any, have their pass 2 here too, when the
 * IPv6 ones went ahead (DPR_PEND_LOOKED).
 */
static __rte_noinline void
dpr_ip6_first_step_burst(struct dpr_ip4_pending *p)
{
	const uint32_t *tbl8 = p->b.fib6->tbl8;
	uint8_t *const *ethp = p->eth;
	uint32_t *ent = p->ent;
	const unsigned int n = p->n;
	const uint32_t v6 = p->v6;
	uint32_t m;
	unsigned int i;

	if (v6 == dpr_burst_all(n)) {
#pragma GCC unroll 2
		for (i = 0; i < n; i++)
			dpr_ip6_step(tbl8, ethp, i, ent, 3);
	} else {
		if (p->stage == DPR_PEND_LOOKED)
			for (m = dpr_burst_all(n) & ~v6; m != 0; m &= m - 1)
				dpr_ip4_lookup_one(p->b.fib4, p->t24, ethp,
						   (unsigned int)__builtin_ctz(m), ent);
		for (m = v6; m != 0; m &= m - 1)
			dpr_ip6_step(tbl8, ethp, (unsigned int)__builtin_ctz(m), ent, 3);
	}
	p->stage = DPR_PEND_STEPPED;
}

/** Pass 3 of a burst after dpr_ip4_lookup_burst(): forward, divert, drop. */
static __rte_noinline void
dpr_ip4_forward_burst(struct dpr_worker *w, struct dpr_ip4_pending *p)
{
	unsigned int n_fwd;

	dpr_tx_reserve(w);
	/* IPv6 packets are marked slow too: an IPv4 burst has one test. */
	if (likely((p->slow | p->gone) == 0)) {
		n_fwd = dpr_ip4_pass3(w, p, DPR_L3_IP4, false);
	} else if (dpr_ip6_only_burst(p)) {
		/* A stepped burst's entries are the first tbl8 level's, whatever
		 * the hint says now. */
		if (p->stage == DPR_PEND_STEPPED) {
			n_fwd = dpr_ip4_pass3(w, p, DPR_L3_IP6_DEEP, false);
		} else if (__atomic_load_n(&p->b.fib6->deep, __ATOMIC_RELAXED)) {
			dpr_ip6_first_step_burst(p);
			n_fwd = dpr_ip4_pass3(w, p, DPR_L3_IP6_DEEP, false);
		} else {
			n_fwd = dpr_ip4_pass3(w, p, DPR_L3_IP6, false);
		}
	} else {
		n_fwd = dpr_l3_pass3_mixed(w, p);
	}
	w->stats[p->b.in].forwarded += n_fwd;
	dpr_burst_finish(w, &p->b);
}

/**
 * One burst through the worker's pipeline: pass 2 of the burst @p waiting
 * (NULL: none), pass 1 of the @p n packets dpr port @p in received into
 * @p next->pkts, then pass 3 of @p waiting. The misses of each pass are in
 * flight while the next one runs: a burst's packet data arrives during the
 * RX poll, its tbl24 entries during the next poll, its tbl8 entries during
 * the next burst's pass 1.
 *
 * In a deep FIB, IPv6 packets walk three tbl8 levels a step at a time
 * (dpr_ip6_step()), and a step over one burst is too short for the next
 * level's misses: each level is pulled one stage earlier. A burst's IPv6
 * packets have their pass 2 at the end of the call that screened it, their
 * first step at the start of the next call (with the IPv4 packets' pass
 * 2), before the next burst's pass 1, and pass 3 goes on from the second
 * level: the first level's entries have an RX poll to arrive, the
 * second's a pass 1.
 *
 * RCU: the call reports quiescence itself, after pass 3 of @p waiting and
 * before it reads @p next's tbl24 entries, the only point where it holds
 * no FIB entry, unless @p next is a VLAN interface's; the caller may
 * report it between calls only while the
 * waiting burst holds addresses alone (dpr_ip4_holds_entries()).
 * @return @p next, the burst now waiting.
 */
static __rte_always_inline struct dpr_ip4_pending *
dpr_ip4_pipeline(struct dpr_worker *w, uint16_t in, uint16_t n,
		 struct dpr_ip4_pending *next, struct dpr_ip4_pending *waiting)
{
	if (waiting != NULL) {
		if (waiting->stage == DPR_PEND_LOOKED)
			dpr_ip6_first_step_burst(waiting);
		else
			dpr_ip4_lookup_burst(waiting);
	}
	dpr_l3_screen_burst(w, in, n, next);
	if (waiting != NULL)
		dpr_ip4_forward_burst(w, waiting);
	if (next->v6 != 0 && __atomic_load_n(&next->b.fib6->deep, __ATOMIC_RELAXED)) {
		/* Never inside a VLAN interface's burst (the caller finishes
		 * it at once, then reports): vlan.del counts on a report
		 * meaning that the worker is in none (lib/router/iface.c). */
		if (likely(w->ports[in].vlan_tci == 0))
			rte_rcu_qsbr_quiescent(w->qsbr, w->index);
		dpr_ip6_ahead_burst(next);
	}
	return next;
}

/**
 * Whether the waiting burst @p p (NULL: none) holds FIB entries, so that
 * the worker must not report RCU quiescence before its pass 3.
 */
static __rte_always_inline bool
dpr_ip4_holds_entries(const struct dpr_ip4_pending *p)
{
	return p != NULL && p->stage != DPR_PEND_SCREENED;
}

/** Passes 2 and 3 of a burst at once, or what is left of them. */
static __rte_always_inline void
dpr_ip4_finish_burst(struct dpr_worker *w, struct dpr_ip4_pending *p)
{
	if (p->stage == DPR_PEND_SCREENED)
		dpr_ip4_lookup_burst(p);
	else if (p->stage == DPR_PEND_LOOKED)
		dpr_ip6_first_step_burst(p);
	dpr_ip4_forward_burst(w, p);
}

/**
 * Forward, divert or drop one burst of @p n packets (at most DPR_BURST)
 * received on dpr port @p in, at once.
 */
static inline void
dpr_ip4_input_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts,
		    uint16_t n)
{
	struct dpr_ip4_pending p;

	RTE_ASSERT(n <= DPR_BURST);
	memcpy(p.pkts, pkts, n * sizeof(*pkts));
	dpr_l3_screen_burst(w, in, n, &p);
	dpr_ip4_finish_burst(w, &p);
}

/* Pass 3 of a burst kept tagged (vlan.c) with marks or of both families. */
static __rte_noinline unsigned int
dpr_l3_pass3_mixed_tagged(struct dpr_worker *w, struct dpr_ip4_pending *p)
{
	return dpr_ip4_pass3(w, p, DPR_L3_MIXED, true);
}

/**
 * Pass 3 of a burst kept tagged (vlan.c) and led by @p v6 (a constant),
 * after its pass 2, as dpr_ip4_forward_burst() does it for one received
 * untagged. @return the number of packets forwarded.
 */
static __rte_always_inline unsigned int
dpr_l3_pass3_tagged(struct dpr_worker *w, struct dpr_ip4_pending *p, const bool v6)
{
	dpr_tx_reserve(w);
	if (!v6 && likely((p->slow | p->gone) == 0))
		return dpr_ip4_pass3(w, p, DPR_L3_IP4, true);
	if (v6 && dpr_ip6_only_burst(p)) {
		if (__atomic_load_n(&p->b.fib6->deep, __ATOMIC_RELAXED)) {
			dpr_ip6_first_step_burst(p);
			return dpr_ip4_pass3(w, p, DPR_L3_IP6_DEEP, true);
		}
		return dpr_ip4_pass3(w, p, DPR_L3_IP6, true);
	}
	return dpr_l3_pass3_mixed_tagged(w, p);
}
