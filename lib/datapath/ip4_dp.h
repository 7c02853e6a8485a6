/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * IPv4 forwarding of one RX burst, inline for the worker loop and the unit
 * tests.
 *
 * Reads:  Ethernet and IPv4 headers, pkt_len, data_len, ol_flags (RX IP
 *         checksum status).
 * Writes: Ethernet addresses, TTL and header checksum (in place, RFC 1624);
 *         trims link-layer padding; hash.usr on packets for the exception
 *         path (class and input port, DPR_EXC_META).
 * Next:   w->tx[out port] (sent by dpr_tx_flush()), w->exc_ring with one
 *         enum dpr_exc class (TTL expiry, no route, unresolved next hop, MTU,
 *         ARP, for the router, IP options), or freed and counted under one
 *         enum dpr_drop reason.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "datapath.h"

#define DPR_PREFETCH_AHEAD 4

/**
 * True if the IPv4 header of @p hlen bytes sums to 0xffff, its checksum
 * included (RFC 1071). The common 20-byte header is five 32-bit words added
 * in 64 bits and folded: a handful of instructions instead of a loop.
 */
static __rte_always_inline bool
dpr_ip4_cksum_ok(const struct rte_ipv4_hdr *ip, uint32_t hlen)
{
	uint32_t w[5];
	uint64_t sum;

	if (unlikely(hlen != sizeof(*ip)))
		return rte_raw_cksum(ip, hlen) == 0xffff;
	memcpy(w, ip, sizeof(w)); /* five plain loads once optimised */
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
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
 * @return DPR_DROP_MARTIAN, DPR_DROP_NONE, or -1 for a local destination.
 */
static __rte_always_inline int
dpr_ip4_check_addrs(rte_be32_t src, rte_be32_t dst)
{
	uint8_t s = ((const uint8_t *)&src)[0];
	uint8_t d = ((const uint8_t *)&dst)[0];

	if (unlikely(s == 0 || s == 127 || s >= 224 || d == 0 || d == 127))
		return DPR_DROP_MARTIAN;
	if (unlikely(d >= 224)) {
		if (d < 240 || dst == RTE_BE32(UINT32_MAX))
			return -1;
		return DPR_DROP_MARTIAN;
	}
	return DPR_DROP_NONE;
}

/** Decrement TTL and update the checksum incrementally (RFC 1624, eqn. 3). */
static __rte_always_inline void
dpr_ip4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint16_t *word = (uint16_t *)(void *)&ip->time_to_live;
	uint16_t old = *word, new;
	uint32_t sum;

	ip->time_to_live--;
	new = *word;
	/* HC' = ~(~HC + ~m + m'). The one's complement sum does not care about
	 * byte order, so the words are used as they lie in memory. */
	sum = (uint16_t)~ip->hdr_checksum + (uint32_t)(uint16_t)~old + new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->hdr_checksum = (uint16_t)~sum;
}

/** Send what is buffered for dpr port @p p; unsent packets are counted drops. */
static __rte_always_inline void
dpr_tx_flush(struct dpr_worker *w, uint16_t p)
{
	struct dpr_txbuf *b = &w->tx[p];
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = rte_eth_tx_burst(w->ports[p].port_id, (uint16_t)w->index, b->pkts, b->n);
	w->stats[p].tx += sent;
	if (unlikely(sent < b->n)) {
		uint16_t i;

		/* Unsent packets are still ours: charge each to the port it
		 * came in on, where it was counted as forwarded. */
		for (i = sent; i < b->n; i++) {
			struct dpr_port_counters *in =
				&w->stats[w->port_index[b->pkts[i]->port]];

			in->forwarded--;
			in->drops[DPR_DROP_TX_FULL]++;
		}
		rte_pktmbuf_free_bulk(&b->pkts[sent], b->n - sent);
	}
	b->n = 0;
}

static __rte_always_inline void
dpr_tx_enqueue(struct dpr_worker *w, uint16_t p, struct rte_mbuf *m)
{
	struct dpr_txbuf *b = &w->tx[p];

	if (unlikely(b->n == DPR_TXBUF))
		dpr_tx_flush(w, p);
	b->pkts[b->n++] = m;
}

/** Forward, divert or drop one burst received on dpr port @p in. */
static inline void
dpr_ip4_input_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts,
		    uint16_t n)
{
	const struct dpr_port_dp *port = &w->ports[in];
	struct dpr_port_counters *st = &w->stats[in];
	struct rte_mbuf *cand[DPR_BURST], *exc[DPR_BURST], *drop[DPR_BURST];
	uint32_t dst[DPR_BURST];
	uint32_t nh[DPR_BURST];
	uint8_t l2_bcast[DPR_BURST];
	uint16_t n_cand = 0, n_exc = 0, n_drop = 0;
	uint16_t i;

#define DROP(m, why) do { st->drops[why]++; drop[n_drop++] = (m); } while (0)
#define EXCEPT(m, cls) do { \
		(m)->hash.usr = DPR_EXC_META(cls, in); \
		exc[n_exc++] = (m); \
	} while (0)
#define EXCEPT_ARG(m, cls, arg) do { \
		DPR_EXC_ARG(m) = (arg); \
		EXCEPT(m, cls); \
	} while (0)

	for (i = 0; i < n && i < DPR_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	/* Pass 1: Ethernet and IPv4 header checks. */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;
		enum dpr_drop why;
		int addr;
		bool bcast;

		if (i + DPR_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + DPR_PREFETCH_AHEAD], void *));

		if (unlikely(m->data_len < sizeof(*eth))) {
			DROP(m, DPR_DROP_RUNT);
			continue;
		}
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		bcast = !rte_is_unicast_ether_addr(&eth->dst_addr);
		if (unlikely(!bcast && !rte_is_same_ether_addr(&eth->dst_addr, &port->mac))) {
			DROP(m, DPR_DROP_OTHER_HOST);
			continue;
		}
		if (unlikely(eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))) {
			if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
				EXCEPT(m, DPR_EXC_ARP);
			else
				DROP(m, DPR_DROP_UNSUPPORTED_L3);
			continue;
		}

		ip = (struct rte_ipv4_hdr *)(eth + 1);
		why = dpr_ip4_validate(ip, m->pkt_len - sizeof(*eth),
				       m->data_len - sizeof(*eth), m->ol_flags);
		if (unlikely(why != DPR_DROP_NONE)) {
			DROP(m, why);
			continue;
		}
		addr = dpr_ip4_check_addrs(ip->src_addr, ip->dst_addr);
		if (unlikely(addr != DPR_DROP_NONE)) {
			if (addr < 0)
				EXCEPT(m, DPR_EXC_LOCAL);
			else
				DROP(m, (enum dpr_drop)addr);
			continue;
		}
		if (unlikely((ip->version_ihl & 0xf) != 5)) {
			EXCEPT(m, DPR_EXC_IP_OPTIONS);
			continue;
		}
		/* Drop link-layer padding (and anything past the IP packet). */
		if (unlikely(m->pkt_len > sizeof(*eth) + rte_be_to_cpu_16(ip->total_length)))
			rte_pktmbuf_trim(m, m->pkt_len - sizeof(*eth) -
					 rte_be_to_cpu_16(ip->total_length));

		dst[n_cand] = rte_be_to_cpu_32(ip->dst_addr);
		l2_bcast[n_cand] = bcast;
		cand[n_cand++] = m;
	}

	/* Pass 2: one FIB lookup for the whole burst. */
	if (n_cand > 0)
		dpr_fib4_lookup_bulk(w->fib, dst, nh, n_cand);

	/* Pass 3: act on each next hop. */
	for (i = 0; i < n_cand; i++) {
		struct rte_mbuf *m = cand[i];
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		union dpr_nh_word h;

		h.u64 = __atomic_load_n(&w->nh[nh[i]].u64, __ATOMIC_RELAXED);
		if (likely(h.kind == DPR_NH_KIND_FORWARD)) {
			/* RFC 1812 5.3.4: never forward what arrived as
			 * link-layer broadcast to a unicast IP destination. */
			if (unlikely(l2_bcast[i])) {
				DROP(m, DPR_DROP_OTHER_HOST);
				continue;
			}
			if (unlikely(ip->time_to_live <= 1)) {
				EXCEPT(m, DPR_EXC_TTL_EXPIRED);
				continue;
			}
			if (unlikely(rte_be_to_cpu_16(ip->total_length) >
				     w->ports[h.port].mtu)) {
				EXCEPT_ARG(m, DPR_EXC_MTU_EXCEEDED, h.port);
				continue;
			}
			dpr_ip4_ttl_dec(ip);
			rte_ether_addr_copy(&h.mac, &eth->dst_addr);
			rte_ether_addr_copy(&w->ports[h.port].mac, &eth->src_addr);
			st->forwarded++;
			dpr_tx_enqueue(w, h.port, m);
			continue;
		}
		switch (h.kind) {
		case DPR_NH_KIND_LOCAL:
			EXCEPT(m, DPR_EXC_LOCAL);
			break;
		case DPR_NH_KIND_UNRESOLVED:
			if (l2_bcast[i])
				DROP(m, DPR_DROP_OTHER_HOST);
			else
				EXCEPT_ARG(m, DPR_EXC_UNRESOLVED, nh[i]);
			break;
		case DPR_NH_KIND_BLACKHOLE:
			DROP(m, DPR_DROP_BLACKHOLE);
			break;
		default:
			if (l2_bcast[i])
				DROP(m, DPR_DROP_OTHER_HOST);
			else
				EXCEPT(m, DPR_EXC_NO_ROUTE);
			break;
		}
	}

	if (n_exc > 0) {
		unsigned int q = rte_ring_sp_enqueue_burst(w->exc_ring, (void **)exc,
							   n_exc, NULL);

		for (i = 0; i < q; i++)
			st->exc[DPR_EXC_META_CLASS(exc[i]->hash.usr)]++;
		st->exception += q;
		for (; i < n_exc; i++)
			DROP(exc[i], DPR_DROP_EXCEPTION_FULL);
	}
	if (n_drop > 0)
		rte_pktmbuf_free_bulk(drop, n_drop);
#undef DROP
#undef EXCEPT
#undef EXCEPT_ARG
}
