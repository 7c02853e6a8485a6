/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * IPv6 in the worker's burst passes (ip4_dp.h): what the IPv6 family plugs
 * into them. The screen splits a burst by EtherType once: a burst whose
 * first packet is IPv6 is screened by dpr_ip6_screen_loop(), which calls
 * the IPv6 screen inline and the IPv4 one for IPv4 packets; in a burst led
 * by IPv4, an IPv6 frame fails the IPv4 fast compare and comes here through
 * dpr_l3_screen_other(). Either way an IPv6 packet never meets an IPv4
 * check again.
 *
 * Reads:  Ethernet and IPv6 headers, pkt_len, data_len.
 * Writes: Ethernet addresses, hop limit (RFC 8200 3: no header checksum to
 *         fix); trims link-layer padding; hash.usr on packets for the
 *         exception path.
 * Next:   as IPv4 (ip4_dp.h), with the IPv6 classes: multicast (NDP, MLD)
 *         and the router's addresses are LOCAL, hop-by-hop options are
 *         IP_OPTIONS, a link-local source leaving its link BEYOND_SCOPE.
 *
 * Two paths again: dpr_ip6_slow() (datapath.c) is the reference, every
 * check in turn; the screen here takes the common case (unicast to us,
 * version 6, no hop-by-hop header, in one segment, within every MTU, hop
 * limit > 1, global addresses) with a few compares and gives the reference
 * everything else.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "../fib/fib6.h"
#include "datapath.h"
#include "vlan_dp.h"

/** 1 for the first bytes of addresses the screen leaves to the reference. */
extern const uint8_t dpr_ip6_special_byte[256];

/** What an IPv6 address is, for forwarding (RFC 4291 2.4). */
enum dpr_ip6_addr_class {
	DPR_IP6_ADDR_GLOBAL = 0,    /**< anything forwardable */
	DPR_IP6_ADDR_UNSPECIFIED,   /**< :: */
	DPR_IP6_ADDR_NEVER,         /**< ::1, ::ffff:0:0/96: never on the wire */
	DPR_IP6_ADDR_LINK_LOCAL,    /**< fe80::/10 */
	DPR_IP6_ADDR_MULTICAST,     /**< ff00::/8 */
};

static inline enum dpr_ip6_addr_class
dpr_ip6_addr_class(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	uint64_t hi, lo;

	if (a[0] == 0xff)
		return DPR_IP6_ADDR_MULTICAST;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return DPR_IP6_ADDR_LINK_LOCAL;
	if (a[0] != 0)
		return DPR_IP6_ADDR_GLOBAL;
	memcpy(&hi, a, sizeof(hi));
	memcpy(&lo, a + 8, sizeof(lo));
	if (hi == 0 && lo == 0)
		return DPR_IP6_ADDR_UNSPECIFIED;
	if (hi == 0 && lo == rte_cpu_to_be_64(1))
		return DPR_IP6_ADDR_NEVER;
	if (memcmp(a, mapped, sizeof(mapped)) == 0)
		return DPR_IP6_ADDR_NEVER;
	return DPR_IP6_ADDR_GLOBAL;
}

/**
 * The IPv6 header checks of the reference screen (dpr_ip6_slow()), also
 * the control thread's for packets that met an input ACL before the
 * screen: version 6 (RFC 8200 3); the payload within the @p avail bytes
 * from @p ip on (what follows it is link-layer padding), and no payload
 * length of 0 announcing a jumbogram (RFC 2675), which no link of ours
 * carries; never from a multicast address (RFC 4291 2.7), never from or to
 * the unspecified or loopback address (2.5.2, 2.5.3: the unspecified
 * source of duplicate address detection goes to a multicast destination,
 * which is ours), nor an IPv4-mapped one (RFC 6890: not forwardable).
 * @p ip must lie whole in the first segment. @p sc, @p dc: the classes of
 * the source and destination, when the addresses were read.
 * @return DPR_DROP_NONE, or the reason to drop.
 */
static inline enum dpr_drop
dpr_ip6_validate(const struct rte_ipv6_hdr *ip, uint32_t avail, enum dpr_ip6_addr_class *sc,
		 enum dpr_ip6_addr_class *dc)
{
	uint32_t plen = rte_be_to_cpu_16(ip->payload_len);

	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return DPR_DROP_BAD_HEADER;
	if (plen + sizeof(*ip) > avail || (plen == 0 && ip->proto == IPPROTO_HOPOPTS))
		return DPR_DROP_BAD_LENGTH;
	*sc = dpr_ip6_addr_class(ip->src_addr);
	*dc = dpr_ip6_addr_class(ip->dst_addr);
	if (*sc == DPR_IP6_ADDR_MULTICAST || *sc == DPR_IP6_ADDR_NEVER ||
	    *dc == DPR_IP6_ADDR_NEVER ||
	    (*sc == DPR_IP6_ADDR_UNSPECIFIED && *dc != DPR_IP6_ADDR_MULTICAST) ||
	    *dc == DPR_IP6_ADDR_UNSPECIFIED)
		return DPR_DROP_MARTIAN;
	return DPR_DROP_NONE;
}

/* Where the IPv6 header and its destination lie in a frame. */
#define DPR_IP6_HDR(eth) ((struct rte_ipv6_hdr *)((eth) + RTE_ETHER_HDR_LEN))
#define DPR_IP6_DST(eth) \
	((eth) + RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, dst_addr))

/**
 * The 16 bytes at @p eth match @p head where @p mask has bits (a port's
 * head[] or head6[]: MAC, EtherType, version). @p tagged (a constant):
 * @p eth is 4 bytes into a frame kept tagged (head_tag[], head6_tag[]),
 * and bytes 4-7 of what is compared are the frame's first 4 (the
 * destination MAC's, one load into the vector) instead of those at @p eth
 * (the source MAC's, never compared). @p own (a constant): a load of its
 * own, for a screen that may give the frame to the IPv4 one next
 * (dpr_ip6_screen_at()): GCC shared a plain load with the IPv4 screen's
 * of the same bytes and kept it, xoring into a copy of head (one
 * instruction more a packet, objdump).
 */
static __rte_always_inline bool
dpr_head_ok(const uint8_t *eth, const rte_xmm_t *head, const rte_xmm_t *mask,
	    const bool tagged, const bool own)
{
#if defined(RTE_ARCH_X86)
	__m128i v;

	if (own)
		__asm__("movdqu %1, %0" : "=x" (v) : "m" (*(const uint8_t (*)[16])eth));
	else
		v = _mm_loadu_si128((const __m128i *)(const void *)eth);
	if (tagged) {
		uint32_t dst4;

		memcpy(&dst4, eth - sizeof(struct rte_vlan_hdr), sizeof(dst4));
		v = _mm_insert_epi32(v, (int)dst4, 1);
	}
	return _mm_testz_si128(_mm_xor_si128(v, head->x), mask->x);
#else
	uint64_t v[2];

	RTE_SET_USED(own);
	memcpy(v, eth, sizeof(v));
	if (tagged)
		memcpy((uint8_t *)v + 4, eth - sizeof(struct rte_vlan_hdr), sizeof(uint32_t));
	return ((v[0] ^ head->u64[0]) & mask->u64[0]) == 0 &&
		((v[1] ^ head->u64[1]) & mask->u64[1]) == 0;
#endif
}

/* What the screen made of a packet it did not forward the common way
 * (dpr_l3_screen_other()). */
#define DPR_SCREEN_GONE 1u  /**< dropped or diverted */
#define DPR_SCREEN_SLOW 2u  /**< came the reference path, goes on */
#define DPR_SCREEN_V6 4u    /**< an IPv6 packet, goes on */

/**
 * What the IPv6 screen of a burst received on one port compares against,
 * loaded once a burst: held in registers, not reloaded from the worker
 * after every store to the burst (which the compiler must assume could
 * alias it).
 */
struct dpr_ip6_fast {
	rte_xmm_t head;         /**< w->head6[in] */
	rte_xmm_t head_mask;    /**< w->head6_mask */
	uint32_t max_span;      /**< w->fast_max_len less a bare header */
	const uint32_t *tbl24;  /**< the IPv6 FIB's first level, to prefetch from */
	uint32_t t24_shift;     /**< from a /24 index to tbl24's (dpr_fib6_first_level()) */
	struct dpr_vlan_kept kept; /**< a burst kept tagged only (vlan.c) */
};

static __rte_always_inline struct dpr_ip6_fast
dpr_ip6_fast_init(const struct dpr_worker *w, const struct dpr_burst *b)
{
	struct dpr_ip6_fast f = {
		.head = w->head6[b->in], .head_mask = w->head6_mask,
		.max_span = w->fast_max_len -
			(uint32_t)(RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr)),
	};

	f.tbl24 = dpr_fib6_first_level(b->fib6, &f.t24_shift);
	return f;
}

/**
 * dpr_ip6_fast_init() for a burst of VLAN interface b->in received still
 * tagged (vlan.c), whose frames not the interface's go to @p left.
 */
static __rte_always_inline struct dpr_ip6_fast
dpr_ip6_fast_init_tagged(const struct dpr_worker *w, const struct dpr_burst *b,
			 struct dpr_vlan_left *left)
{
	struct dpr_ip6_fast f = dpr_ip6_fast_init(w, b);

	f.head = w->head6_tag[b->in];
	f.head_mask = w->head6_tag_mask;
	f.kept = dpr_vlan_kept_init(w->tag_word[b->in], dpr_mbuf_port(w->ports, b->in), left);
	return f;
}

/**
 * Screen the IPv6 packet @p m (frame @p eth) that dpr port @p in received
 * in burst @p b (pass 1), against @p f (dpr_ip6_fast_init() for @p in):
 * DPR_SCREEN_V6 when it goes on, its FIB entry prefetched and that entry's
 * tbl24 index in *@p idx, with DPR_SCREEN_SLOW when the reference let it
 * through (pass 3 decides its next hop the long way: hop limit, MTU);
 * DPR_SCREEN_GONE when it was dropped or diverted (*@p idx unspecified).
 * @p head_ok, a constant: the caller found the frame's head to match
 * (dpr_head_ok()), which then is not compared again.
 */
static __rte_always_inline unsigned int
dpr_ip6_screen(struct dpr_worker *w, const struct dpr_ip6_fast *f, struct dpr_burst *b,
	       struct rte_mbuf *m, const uint8_t *eth, uint32_t *idx, const bool head_ok,
	       const bool tagged)
{
	/* As in dpr_ip4_screen(): a tagged frame's eth is 4 bytes into it. */
	const uint32_t l2 = tagged ? RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr) :
		RTE_ETHER_HDR_LEN;
	const struct rte_ipv6_hdr *ip = DPR_IP6_HDR(eth);
	uint32_t dlen = m->data_len;
	uint32_t span;
	uint64_t t;

	if (!head_ok && unlikely(!dpr_head_ok(eth, &f->head, &f->head_mask, tagged, false)))
		goto slow;
	/* max_span is the IP packet's (less a bare header) either way. */
	span = dlen - (uint32_t)(l2 + sizeof(*ip));
	if (unlikely(span > f->max_span))
		goto slow;
	if (unlikely(ip->hop_limits <= 1 || ip->proto == IPPROTO_HOPOPTS))
		goto slow;
	if (unlikely(dpr_ip6_special_byte[ip->src_addr[0]] |
		     dpr_ip6_special_byte[ip->dst_addr[0]]))
		goto slow;
	/* The payload fills the frame. span is at most max_span, under 2^16
	 * (an MTU is at most 9702), so its low 16 bits are all of it,
	 * compared in network order: a byte swap, not the field's swap,
	 * widening and add (3 instructions fewer). */
	if (unlikely(ip->payload_len != rte_cpu_to_be_16((uint16_t)span) || m->pkt_len != dlen))
		goto slow;
	t = dpr_fib6_tbl24_index(ip->dst_addr);
	dpr_fib6_prefetch(f->tbl24, t >> f->t24_shift);
	*idx = (uint32_t)t;
	if (tagged)
		m->port = f->kept.mport;
	return DPR_SCREEN_V6;
slow:
	if (tagged && !dpr_vlan_kept_untag(&f->kept, m, eth))
		return DPR_SCREEN_GONE;
	if (!dpr_ip6_slow(w, b, m))
		return DPR_SCREEN_GONE;
	t = dpr_fib6_tbl24_index(ip->dst_addr);
	dpr_fib6_prefetch(f->tbl24, t >> f->t24_shift);
	*idx = (uint32_t)t;
	return DPR_SCREEN_V6 | DPR_SCREEN_SLOW;
}

/**
 * Pass 2 for IPv6 packet @p i of a burst (frames @p ethp): its tbl24
 * entry, prefetched in pass 1 and whose index pass 1 left in @p ent[i],
 * into @p ent[i], and the first tbl8 entry asked for when it has one; pass
 * 3 finishes the walk (dpr_fib6_resolve()). The split of IPv4 (ip4_dp.h),
 * and for the same reason: the misses of a burst overlap across the
 * passes. Walking every level of the whole burst in lockstep here instead
 * (dpr_fib6_lookup_bulk()) cost 553 instructions a packet against 437 on
 * l3fwd's 16 /64s (callgrind) and ran 22 % slower there, 4 % faster on the
 * pyasn IPv6 table (B ahead in 3 of 5 rounds: noise; TABLES="small6
 * pyasn6" scripts/bench-ab.sh, one lcore).
 */
static __rte_always_inline void
dpr_ip6_lookup_one(const uint32_t *tbl24, const uint32_t *tbl8, uint8_t *const *ethp,
		   unsigned int i, uint32_t *ent)
{
	uint64_t e = dpr_fib6_load(tbl24, ent[i]);

	if (dpr_fib6_is_link((uint32_t)e))
		dpr_fib6_prefetch_next(tbl8, e, DPR_IP6_DST(ethp[i])[3]);
	ent[i] = (uint32_t)e;
}

/**
 * Pass 2 for the IPv6 packets in @p v6 (bit i: packet i) of a burst in a
 * Poptrie FIB: the whole lookup, into @p ent[i] as a leaf entry
 * (DPR_FIB6_LEAF | next hop), which pass 3 takes as it is. @p ent[i] holds
 * the /24 index pass 1 prefetched from; the address is read only past /18,
 * and the walks below go in lockstep (dpr_pt_walk6_burst()).
 */
static __rte_noinline void
dpr_pt6_lookup_burst(const struct dpr_fib6 *fib, uint8_t *const *ethp, uint32_t v6,
		     uint32_t *ent)
{
	const struct dpr_pt_tables *t = dpr_pt_tables(fib->pt);
	const uint32_t *dp = t->dp;
	uint32_t node[DPR_PT_BURST_MAX], nh[DPR_PT_BURST_MAX];
	uint64_t hi[DPR_PT_BURST_MAX], lo[DPR_PT_BURST_MAX], todo = 0, m;
	unsigned int i;
	uint32_t e;

	for (; v6 != 0; v6 &= v6 - 1) {
		i = (unsigned int)__builtin_ctz(v6);
		e = __atomic_load_n(&dp[ent[i] >> (24 - DPR_PT_DP_BITS)], __ATOMIC_RELAXED);
		if (likely(e & DPR_PT_LEAF)) {
			ent[i] = DPR_FIB6_LEAF | (e & ~DPR_PT_LEAF);
			continue;
		}
		node[i] = e;
		dpr_pt_key6(DPR_IP6_DST(ethp[i]), &hi[i], &lo[i]);
		todo |= UINT64_C(1) << i;
		rte_prefetch0(&t->nodes[e]);
	}
	if (todo == 0)
		return;
	dpr_pt_walk6_burst(t, node, hi, lo, todo, nh);
	for (m = todo; m != 0; m &= m - 1) {
		i = (unsigned int)__builtin_ctzll(m);
		ent[i] = DPR_FIB6_LEAF | nh[i];
	}
}

/**
 * dpr_ip6_lookup_one() for the packets of a burst in @p v6 (bit i: packet
 * i), or for all @p n of them when @p v6 is every packet. The table
 * pointers are held for the burst: read through @p fib, they were loaded
 * again for every packet, after each store to ent[] (which could alias).
 */
static __rte_always_inline void
dpr_ip6_lookup_burst(const struct dpr_fib6 *fib, uint8_t *const *ethp, uint32_t v6,
		     unsigned int n, uint32_t *ent)
{
	const uint32_t *tbl24 = fib->tbl24, *tbl8 = fib->tbl8;
	unsigned int i;

	if (unlikely(fib->pt != NULL)) {
		dpr_pt6_lookup_burst(fib, ethp, v6, ent);
		return;
	}
	if (v6 == dpr_burst_all(n)) {
#pragma GCC unroll 2
		for (i = 0; i < n; i++)
			dpr_ip6_lookup_one(tbl24, tbl8, ethp, i, ent);
		return;
	}
	while (v6 != 0) {
		i = (unsigned int)__builtin_ctz(v6);
		v6 &= v6 - 1;
		dpr_ip6_lookup_one(tbl24, tbl8, ethp, i, ent);
	}
}

/** Where pass 3's walks go on in a deep FIB, after two steps (dpr_ip6_step()). */
#define DPR_IP6_DEEP_FROM 5u

/**
 * A step of pass 3 for IPv6 packet @p i of a burst (frames @p ethp), in a
 * deep FIB: the entry for address byte @p b, which the pass before asked
 * for, read into @p ent[i] in place of the entry above it, and the entry
 * of the level below asked for in turn, so that a burst's misses at that
 * level overlap as its first-level ones did. Pass 3 takes two steps over
 * the whole burst (bytes 3 and 4: the /32 and /40 levels), then walks from
 * the /48 level (DPR_IP6_DEEP_FROM; dpr_ip6_forward()). A leaf stays as it
 * is; neither the read nor the prefetch takes a branch (dpr_fib6_step()).
 */
static __rte_always_inline void
dpr_ip6_step(const uint32_t *tbl8, uint8_t *const *ethp, unsigned int i, uint32_t *ent,
	     const unsigned int b)
{
	const uint8_t *dst = DPR_IP6_DST(ethp[i]);
	uint64_t e = dpr_fib6_step(tbl8, ent[i], dst[b]);

	dpr_fib6_prefetch_next(tbl8, e, dst[b + 1]);
	ent[i] = (uint32_t)e;
}

/**
 * Pass 3 for IPv6 packet @p m (frame @p eth) whose tbl24 entry pass 2
 * read, or whose /40 entry pass 3's steps read (@p e; @p deep: true
 * after the steps, when the walk goes on at DPR_IP6_DEEP_FROM with its
 * first level taken without a branch, as most chains of a full table end
 * there): true with its next-hop word and output port when it is to be
 * sent, its hop limit decremented; otherwise it was diverted or dropped.
 * @p slow: the reference let it through, so its next hop is decided the
 * long way. @p tbl8 and @p nhw are the burst's IPv6 FIB's tbl8 array and w->nh, held by
 * the caller for the burst. @p lazy (NULL: never): *@p lazy when the frame
 * is still tagged (vlan.c), cleared when it is untagged for the reference.
 */
static __rte_always_inline bool
dpr_ip6_forward(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m,
		uint8_t *eth, uint32_t e, bool deep, bool slow, const uint32_t *tbl8,
		const union dpr_nh_word *nhw, uint64_t *hp, uint64_t *portp, bool *lazy)
{
	const uint8_t *dst = DPR_IP6_DST(eth);
	uint64_t h, port, nh;

	if (deep) {
		nh = dpr_fib6_walk_at(tbl8, dpr_fib6_step(tbl8, e, dst[DPR_IP6_DEEP_FROM]), dst,
				      DPR_IP6_DEEP_FROM + 1);
	} else {
		nh = dpr_fib6_walk_at(tbl8, e, dst, 3);
	}
	h = __atomic_load_n(&nhw[nh].u64, __ATOMIC_RELAXED);
	port = dpr_nh_word_fwd_port(h);
	if (unlikely(port > 0xff || slow)) {
		union dpr_nh_word hs;

		/* Still tagged (a burst kept tagged, vlan.c): untagged for
		 * the reference. */
		if (lazy != NULL && *lazy) {
			dpr_vlan_untag_data(m);
			*lazy = false;
		}
		if (!dpr_ip6_act(w, b, m, (uint32_t)nh, false, &hs))
			return false;
		h = hs.u64;
		port = hs.port;
	}
	DPR_IP6_HDR(eth)->hop_limits--;
	*hp = h;
	*portp = port;
	return true;
}

/** Ethernet header for next-hop word @p h on @p port, IPv6 EtherType. */
static __rte_always_inline void
dpr_ip6_set_macs(struct dpr_worker *w, uint8_t *eth, uint64_t h, uint64_t port)
{
	memcpy(eth, &h, sizeof(h));
	memcpy(eth + RTE_ETHER_ADDR_LEN, &w->src_mac_type6[port], sizeof(uint64_t));
}
