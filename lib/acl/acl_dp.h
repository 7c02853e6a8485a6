/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * ACLs on the workers' side: one rte_acl_classify() per family per burst.
 *
 * Reads:  the frame's Ethernet header (and one 802.1Q tag: a priority tag
 *         the screen has yet to take off), the IPv4 or IPv6 header, the
 *         IPv6 extension headers, the first bytes of TCP, UDP, SCTP,
 *         ICMP or ICMPv6 header, all from the first segment.
 * Writes: hash.usr of packets it takes away (the drop reason, or the
 *         exception class DPR_ACL_EXC_REJECT and the port).
 * Next:   permitted packets stay in the burst, in order; denied ones are
 *         freed (or captured) and counted as drops.acl; rejected ones
 *         too, and go on the exception ring, through the "transit"
 *         class's gates (lib/copp), for the control thread to answer
 *         with ICMP(v6) administratively prohibited (rate-limited).
 *
 * What a rule sees of each packet (docs/security.md says it for people)
 * is decided in dpr_acl_key_walk() alone: every caller, the control
 * thread's included, classifies through dpr_acl_classify_bulk(), whose
 * fast paths for common packets the unit test holds to the walk's keys.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../capture/capture.h"
#include "../copp/copp_dp.h"
#include "../datapath/datapath.h"
#include "../datapath/vlan_dp.h"
#include "acl.h"

/** A compiled ACL, or a binding's view of one (what workers see): written
 * once by the control thread, then read-only but for the hit counters
 * (row r written by worker r alone; the last row by the control thread).
 * Freed a grace period after it was unbound or replaced. */
struct dpr_acl_dp {
	/** By DPR_ACL_CTX(family, non-first fragment): IPv4, IPv4 non-first
	 * fragments, IPv6, IPv6 non-first fragments (acl.c, rule_in_ctx());
	 * NULL: no rule there, the default applies. */
	struct rte_acl_ctx *ctx[4];
	/** [0]: the default; [i]: rule i - 1's; [DPR_ACL_DEFAULT_RULE()]:
	 * the default again (its rule in every context). */
	const uint8_t *action;
	uint64_t *hits;              /**< [row * stride + i], i as action[] */
	uint32_t stride;
	uint32_t n_rules;
	/** Some rule needs L4 fields: packets whose L4 header cannot be
	 * read (RFC 7112, RFC 1858, a chain past the bound) are dropped. */
	bool l4;
	/** Some rule names a protocol: IPv6 packets whose upper-layer header
	 * is not found (DPR_ACL_K_NO_UL) are dropped, their protocol being
	 * unknown (the last extension header's type would stand for it). */
	bool proto;
	/** One binding's view of its ACL's compiled list (acl.c): the list's
	 * contexts and actions, its own hit counters (per interface and
	 * direction), which fold into the list's when it is unbound. */
	bool view;
};

/** Where workers find each interface's ACLs: written by the control
 * thread with atomic stores, read by workers with atomic loads. */
struct dpr_acl_binds {
	struct dpr_acl_dp *in[DPR_MAX_PORTS];
	struct dpr_acl_dp *out[DPR_MAX_PORTS];
};

/** Bindings of a worker set up without a database (unit tests): none. */
extern const struct dpr_acl_binds dpr_acl_unbound;

/** Exception class of a rejected packet, beside lib/exception's own
 * (OWN_PACKET is DPR_EXC_MAX): never counted as an exception. */
#define DPR_ACL_EXC_REJECT (DPR_EXC_MAX + 1)

/** The userdata (action[] index) of the default's rule in the contexts
 * of a list of @p n rules, after the rules' 1 to n. */
#define DPR_ACL_DEFAULT_RULE(n) ((n) + 1)

/** Packets one classification takes at most: a TX buffer. */
#define DPR_ACL_BULK 64

/** IPv6 extension headers walked before the upper-layer header, at most. */
#define DPR_ACL_EH_MAX 8

/** The IPv6 key's flags byte: a non-first fragment (no L4 fields; never read). */
#define DPR_ACL_F_NONFIRST 0x01

/** Index of struct dpr_acl_dp ctx: @p f 0 for IPv4, 1 for IPv6; @p nf 1
 * for a non-first fragment. */
#define DPR_ACL_CTX(f, nf) (2 * (f) + (nf))

/*
 * What rte_acl classifies. rte_acl takes the first byte alone, then groups
 * of 4 bytes (struct rte_acl_field_def); multi-byte fields in network
 * order, as rte_acl expects input.
 *
 * IPv4: the IPv4 header itself and the 20 bytes after it, at the offsets
 * a header without options has them, so that the common packet (TCP or
 * UDP behind a 20-byte header, no non-first fragment: dpr_acl_ip4_inplace())
 * is classified where it lies, as l3fwd's ACL mode does, and every other
 * IPv4 packet through a key built in this image of one (zero where the
 * contexts read nothing). The contexts read: the protocol (byte 9), the
 * DSCP (byte 1, masked 0xfc), the addresses (12-19), the ports (20-23;
 * ICMP's type and code in a built key), TCP's flags (byte 33, in a rule
 * that needs proto tcp); a group no rule looks at is not read at all.
 */
struct dpr_acl_key4 {
	uint8_t version_ihl;  /**< never read */
	uint8_t tos;          /**< the DSCP, in the packet's place */
	uint8_t pad0[7];
	uint8_t proto;        /**< byte 9 */
	uint8_t pad1[2];
	rte_be32_t src;       /**< byte 12 */
	rte_be32_t dst;
	rte_be16_t sport;     /**< byte 20; ICMP: the type */
	rte_be16_t dport;     /**< ICMP: the code */
	uint8_t pad2[9];
	uint8_t tcp_flags;    /**< byte 33: TCP header byte 13 */
	uint8_t pad3[6];
};

/** Bytes of a frame from its IPv4 header that a context may read. */
#define DPR_ACL_IP4_READ ((int32_t)sizeof(struct dpr_acl_key4))

/* IPv6: its own key, built for every packet. */
struct dpr_acl_key6 {
	uint8_t proto;       /**< the upper-layer header's */
	uint8_t pad0[3];
	uint8_t flags;
	uint8_t dscp;
	uint8_t tcp_flags;
	uint8_t pad1;
	uint8_t src[16];
	uint8_t dst[16];
	rte_be16_t sport;
	rte_be16_t dport;
};

/** What dpr_acl_key() found. */
enum dpr_acl_kind {
	/** Not IP, an IP header the screen drops anyway, or NDP (RFC 4861:
	 * to IPv6 what ARP is to IPv4, excepted as ARP is). */
	DPR_ACL_K_OTHER = 0,
	DPR_ACL_K_IP4,
	DPR_ACL_K_IP6,
};
/** Or-ed into the kind: the L4 fields could not be read. */
#define DPR_ACL_K_BAD_L4 0x10
/** Or-ed into the kind, with DPR_ACL_K_BAD_L4: an IPv6 header chain past
 * the bound (DPR_ACL_EH_MAX) or the data, so the protocol is not known. */
#define DPR_ACL_K_NO_UL 0x40
/** Or-ed into the kind: a non-first fragment (an IPv6 key's DPR_ACL_F_NONFIRST). */
#define DPR_ACL_K_NONFIRST 0x20

/*
 * The L4 fields of upper-layer protocol @p proto at @p l4, of which
 * @p avail bytes are there. @return false when its header is cut short
 * (RFC 7112 5 for a first fragment; RFC 1858 for TCP): its fields stay 0.
 */
static __rte_always_inline bool
dpr_acl_key_l4(uint8_t proto, const uint8_t *l4, int32_t avail, rte_be16_t *sport,
	       rte_be16_t *dport, uint8_t *tcp_flags)
{
	switch (proto) {
	case IPPROTO_TCP:
		if (avail < 20)
			return false;
		*tcp_flags = l4[13];
		break;
	case IPPROTO_UDP:
		if (avail < 8)
			return false;
		break;
	case IPPROTO_SCTP:
		if (avail < 12)
			return false;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (avail < 4)
			return false;
		*sport = rte_cpu_to_be_16(l4[0]);
		*dport = rte_cpu_to_be_16(l4[1]);
		return true;
	default:
		return true;
	}
	memcpy(sport, l4, 2);
	memcpy(dport, l4 + 2, 2);
	return true;
}

/*
 * Fill the key of @p m, a frame from its Ethernet header: @p k4 for IPv4,
 * @p k6 for IPv6. @return enum dpr_acl_kind, with DPR_ACL_K_BAD_L4 when
 * the L4 header is cut short or not found, DPR_ACL_K_NONFIRST for a
 * non-first fragment. Every case, walked in full:
 * dpr_acl_key() takes the common ones itself and this for the rest.
 */
static __rte_noinline unsigned int
dpr_acl_key_walk(const struct rte_mbuf *m, struct dpr_acl_key4 *k4, struct dpr_acl_key6 *k6)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	int32_t len = m->data_len, off = RTE_ETHER_HDR_LEN, avail;
	rte_be16_t type;

	if (len < RTE_ETHER_HDR_LEN)
		return DPR_ACL_K_OTHER;
	type = ((const struct rte_ether_hdr *)p)->ether_type;
	if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		if (len < RTE_ETHER_HDR_LEN + 4)
			return DPR_ACL_K_OTHER;
		memcpy(&type, p + RTE_ETHER_HDR_LEN + 2, 2);
		off += 4;
	}
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + off);
		uint32_t hlen, tot;
		uint16_t frag;

		if (len - off < (int32_t)sizeof(*ip) || (ip->version_ihl >> 4) != 4 ||
		    (ip->version_ihl & 0xf) < 5)
			return DPR_ACL_K_OTHER;
		hlen = (uint32_t)(ip->version_ihl & 0xf) * 4;
		tot = rte_be_to_cpu_16(ip->total_length);
		if ((uint32_t)(len - off) < hlen || tot < hlen)
			return DPR_ACL_K_OTHER;
		memset(k4, 0, sizeof(*k4));
		k4->proto = ip->next_proto_id;
		k4->tos = ip->type_of_service & 0xfc;
		k4->src = ip->src_addr;
		k4->dst = ip->dst_addr;
		frag = rte_be_to_cpu_16(ip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK;
		if (frag != 0) {
			/* RFC 1858 3.4: a TCP fragment at offset 1 (8 bytes)
			 * can only be there to overwrite the first's flags. */
			return DPR_ACL_K_IP4 | DPR_ACL_K_NONFIRST |
				(frag == 1 && k4->proto == IPPROTO_TCP ? DPR_ACL_K_BAD_L4 : 0);
		}
		avail = (int32_t)RTE_MIN((uint32_t)(len - off), tot) - (int32_t)hlen;
		return DPR_ACL_K_IP4 |
			(dpr_acl_key_l4(k4->proto, (const uint8_t *)ip + hlen, avail, &k4->sport,
					&k4->dport, &k4->tcp_flags) ? 0 : DPR_ACL_K_BAD_L4);
	}
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + off);
		const uint8_t *h = (const uint8_t *)(ip + 1);
		uint32_t vtc;
		int32_t pos = 0;
		uint8_t nh;
		unsigned int i;

		if (len - off < (int32_t)sizeof(*ip))
			return DPR_ACL_K_OTHER;
		vtc = rte_be_to_cpu_32(ip->vtc_flow);
		if ((vtc >> 28) != 6)
			return DPR_ACL_K_OTHER;
		memset(k6, 0, sizeof(*k6));
		k6->dscp = (uint8_t)((vtc >> 22) & 0x3f);
		memcpy(k6->src, ip->src_addr, 16);
		memcpy(k6->dst, ip->dst_addr, 16);
		avail = RTE_MIN(len - off - (int32_t)sizeof(*ip),
				(int32_t)rte_be_to_cpu_16(ip->payload_len));
		nh = ip->proto;
		/* RFC 8200 4: the chain, to the upper-layer header; RFC 7112:
		 * a first fragment must hold all of it. @p i counts the
		 * extension headers walked: DPR_ACL_EH_MAX of them may stand
		 * before the upper-layer header, one more is past the bound. */
		for (i = 0;; i++) {
			switch (nh) {
			case IPPROTO_HOPOPTS:
			case IPPROTO_ROUTING:
			case IPPROTO_DSTOPTS:
			case 135: /* Mobility, RFC 6275 */
			case 139: /* HIP, RFC 7401 */
			case 140: /* Shim6, RFC 5533 */
				if (i == DPR_ACL_EH_MAX || pos + 8 > avail)
					goto bad;
				nh = h[pos];
				pos += ((int32_t)h[pos + 1] + 1) * 8;
				continue;
			case IPPROTO_AH: /* RFC 4302 2.2: in 4-byte units, less 2 */
				if (i == DPR_ACL_EH_MAX || pos + 8 > avail)
					goto bad;
				nh = h[pos];
				pos += ((int32_t)h[pos + 1] + 2) * 4;
				continue;
			case IPPROTO_FRAGMENT:
				if (i == DPR_ACL_EH_MAX || pos + 8 > avail)
					goto bad;
				nh = h[pos];
				if ((rte_be_to_cpu_16(*(const unaligned_uint16_t *)(h + pos + 2)) >> 3) != 0) {
					k6->proto = nh;
					k6->flags = DPR_ACL_F_NONFIRST;
					return DPR_ACL_K_IP6 | DPR_ACL_K_NONFIRST;
				}
				pos += 8;
				continue;
			default:
				/* The last extension header ends past the data
				 * (RFC 7112: a first fragment must hold the whole
				 * chain); a protocol with L4 fields finds it out
				 * below, any other would be classified as whole. */
				if (pos > avail)
					goto bad;
				/* NDP is excepted as ARP is (docs/security.md), so
				 * that an ACL denying by default leaves the link
				 * its neighbours: ICMPv6 133-137 (RFC 4861 4) as a
				 * receiver takes it (6.1.1, 7.1.1: hop limit 255,
				 * code 0), so never a forwarded packet, and right
				 * after the IPv6 header (never fragmented, RFC 6980). */
				if (nh == IPPROTO_ICMPV6 && i == 0 && ip->hop_limits == 255 &&
				    avail >= 2 && h[0] >= 133 && h[0] <= 137 && h[1] == 0)
					return DPR_ACL_K_OTHER;
				k6->proto = nh;
				return DPR_ACL_K_IP6 |
					(dpr_acl_key_l4(nh, h + pos, avail - pos, &k6->sport, &k6->dport,
							&k6->tcp_flags) ? 0 : DPR_ACL_K_BAD_L4);
			}
		}
bad:
		/* Past the bound or past the data: no upper layer found. */
		k6->proto = nh;
		return DPR_ACL_K_IP6 | DPR_ACL_K_BAD_L4 | DPR_ACL_K_NO_UL;
	}
	return DPR_ACL_K_OTHER;
}

/*
 * The common IPv4 packet, classified in place: untagged TCP or UDP whose
 * whole header is there, right behind an IPv4 header without options
 * that is no non-first fragment, in a segment that holds the
 * DPR_ACL_IP4_READ bytes a context may read. What a context reads of it
 * is what dpr_acl_key_walk() puts in its key (tests/unit/test_acl.c holds
 * the two together). @return its IPv4 header, or NULL (a key is built).
 */
static __rte_always_inline const uint8_t *
dpr_acl_ip4_inplace(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	uint16_t tot;

	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    m->data_len < RTE_ETHER_HDR_LEN + DPR_ACL_IP4_READ || ip->version_ihl != 0x45 ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return NULL;
	/* The segment holds 40 bytes of it: the L4 header is cut short only
	 * by the total length. */
	tot = rte_be_to_cpu_16(ip->total_length);
	if (!((ip->next_proto_id == IPPROTO_UDP && tot >= 20 + 8) ||
	      (ip->next_proto_id == IPPROTO_TCP && tot >= 20 + 20)))
		return NULL;
	return (const uint8_t *)ip;
}

/*
 * The common IPv6 packet's key, built without the walk: TCP or UDP whose
 * whole header is right behind the IPv6 header. Its fields are what
 * dpr_acl_key_walk() reads for such a packet (tests/unit/test_acl.c holds
 * dpr_acl_key() to the walk's keys). @return whether @p m is one (the key
 * filled).
 */
static __rte_always_inline bool
dpr_acl_key6_fast(const struct rte_mbuf *m, struct dpr_acl_key6 *k)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);
	const uint8_t *l4 = (const uint8_t *)(ip + 1);
	int32_t len = (int32_t)m->data_len - RTE_ETHER_HDR_LEN, avail;
	uint32_t vtc;
	uint8_t proto;

	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    len < (int32_t)sizeof(struct rte_ipv6_hdr) + 8)
		return false;
	vtc = rte_be_to_cpu_32(ip->vtc_flow);
	proto = ip->proto;
	avail = RTE_MIN(len - (int32_t)sizeof(*ip), (int32_t)rte_be_to_cpu_16(ip->payload_len));
	if ((vtc >> 28) != 6 ||
	    !((proto == IPPROTO_UDP && avail >= 8) || (proto == IPPROTO_TCP && avail >= 20)))
		return false;
	*k = (struct dpr_acl_key6){
		.proto = proto,
		.dscp = (uint8_t)((vtc >> 22) & 0x3f),
		.tcp_flags = proto == IPPROTO_TCP ? l4[13] : 0,
	};
	memcpy(k->src, ip->src_addr, 16);
	memcpy(k->dst, ip->dst_addr, 16);
	memcpy(&k->sport, l4, 4);
	return true;
}

/* The key of @p m as dpr_acl_key_walk() fills it, the common IPv6 ones
 * faster. */
static __rte_always_inline unsigned int
dpr_acl_key(const struct rte_mbuf *m, struct dpr_acl_key4 *k4, struct dpr_acl_key6 *k6)
{
	if (dpr_acl_key6_fast(m, k6))
		return DPR_ACL_K_IP6;
	return dpr_acl_key_walk(m, k4, k6);
}

/*
 * The general case of dpr_acl_classify_bulk(): packets @p i on, the @p i
 * before them classified in place (in order: data0 holds them).
 */
static __rte_noinline unsigned int
dpr_acl_classify_rest(const struct dpr_acl_dp *a, uint64_t *hits, struct rte_mbuf *const *pkts,
		      unsigned int i, unsigned int n, uint8_t *act, const uint8_t **data0)
{
	struct dpr_acl_key4 k4[DPR_ACL_BULK];
	struct dpr_acl_key6 k6[DPR_ACL_BULK];
	const uint8_t *data[RTE_DIM(a->ctx)][DPR_ACL_BULK];
	uint32_t res[DPR_ACL_BULK];
	uint8_t idx[RTE_DIM(a->ctx)][DPR_ACL_BULK];
	unsigned int cnt[RTE_DIM(a->ctx)] = { 0 }, n0, n4 = 0, n6 = 0, c, j, denied = 0;
	const uint8_t *action = a->action;

	for (n0 = 0; n0 < i; n0++) {
		data[0][n0] = data0[n0];
		idx[0][n0] = (uint8_t)n0;
	}
	for (; i < n; i++) {
		const uint8_t *ip4 = dpr_acl_ip4_inplace(pkts[i]);
		unsigned int kind;

		if (ip4 != NULL) {
			data[0][n0] = ip4;
			idx[0][n0++] = (uint8_t)i;
			continue;
		}
		if (dpr_acl_key6_fast(pkts[i], &k6[n6]))
			kind = DPR_ACL_K_IP6;
		else
			kind = dpr_acl_key_walk(pkts[i], &k4[n4], &k6[n6]);
		if (kind == DPR_ACL_K_OTHER) {
			act[i] = DPR_ACL_PERMIT;
			continue;
		}
		if ((kind & DPR_ACL_K_BAD_L4) &&
		    (a->l4 || ((kind & DPR_ACL_K_NO_UL) && a->proto))) {
			act[i] = DPR_ACL_DENY;
			denied++;
			continue;
		}
		if ((kind & (DPR_ACL_K_IP4 | DPR_ACL_K_IP6)) == DPR_ACL_K_IP4) {
			if (kind & DPR_ACL_K_NONFIRST) {
				c = DPR_ACL_CTX(0, 1);
				data[c][cnt[c]] = (const uint8_t *)&k4[n4++];
				idx[c][cnt[c]++] = (uint8_t)i;
			} else {
				data[0][n0] = (const uint8_t *)&k4[n4++];
				idx[0][n0++] = (uint8_t)i;
			}
			continue;
		}
		c = DPR_ACL_CTX(1, (kind & DPR_ACL_K_NONFIRST) != 0);
		data[c][cnt[c]] = (const uint8_t *)&k6[n6++];
		idx[c][cnt[c]++] = (uint8_t)i;
	}
	cnt[0] = n0;
	for (c = 0; c < RTE_DIM(a->ctx); c++) {
		if (cnt[c] == 0)
			continue;
		if (a->ctx[c] == NULL || rte_acl_classify(a->ctx[c], data[c], res, cnt[c], 1) != 0)
			memset(res, 0, cnt[c] * sizeof(res[0]));
		for (j = 0; j < cnt[c]; j++) {
			uint8_t x = action[res[j]];

			act[idx[c][j]] = x;
			denied += x != DPR_ACL_PERMIT;
			hits[res[j]]++;
		}
	}
	return denied;
}

/* The actions and hits of @p n packets in order whose rules are @p res. */
static __rte_noinline unsigned int
dpr_acl_results(const struct dpr_acl_dp *a, uint64_t *hits, const uint32_t *res, unsigned int n,
		uint8_t *act)
{
	unsigned int j, denied = 0;

	for (j = 0; j < n; j++) {
		uint8_t x = a->action[res[j]];

		act[j] = x;
		denied += x != DPR_ACL_PERMIT;
		hits[res[j]]++;
	}
	return denied;
}

/**
 * Whether frame @p m, which the input ACL of interface @p in rejected, may be
 * answered. The ACL runs before the screen, which drops a frame sent to
 * another host's MAC (other_host) and answers no link-layer broadcast or
 * multicast (RFC 1812 4.3.2.7, RFC 4443 2.4): only one sent to the
 * interface's MAC is. The screen also takes a priority tag (VLAN id 0, in
 * the data) off, so that the control thread would read its IP header 4
 * bytes early (and answer a source made of other fields): it is taken off
 * here; a frame tagged for another VLAN (no interface's, an unknown_vlan
 * drop otherwise) is not answered. What is not answered is only dropped.
 */
static inline bool
dpr_acl_reject_ok(const struct dpr_worker *w, struct rte_mbuf *m, uint16_t in)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (!rte_is_same_ether_addr(&eth->dst_addr, &w->ports[in].mac))
		return false;
	if (likely(eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN)))
		return true;
	return dpr_vlan_untag_priority(m);
}

/**
 * The action ACL @p a takes on each of the @p n (at most DPR_ACL_BULK)
 * packets at @p pkts, into @p act; hits counted in row @p row. One
 * rte_acl_classify() per context that has packets: nearly always one,
 * for the whole burst. @return how many are not permitted.
 */
static inline unsigned int
dpr_acl_classify_bulk(const struct dpr_acl_dp *a, unsigned int row, struct rte_mbuf *const *pkts,
		      unsigned int n, uint8_t *act)
{
	const uint8_t *data[DPR_ACL_BULK];
	uint32_t res[DPR_ACL_BULK], dflt = DPR_ACL_DEFAULT_RULE(a->n_rules), diff = 0;
	uint64_t *hits = a->hits + (size_t)row * a->stride;
	unsigned int i;
	uint8_t x;

	/* The common burst: every packet an IPv4 TCP or UDP one, classified
	 * in place, and none matching a rule (the default's rule for all,
	 * counted at once); anything else, from the first packet that is
	 * not one of them, in the general case's loops. */
	for (i = 0; i < n; i++) {
		data[i] = dpr_acl_ip4_inplace(pkts[i]);
		if (unlikely(data[i] == NULL))
			return dpr_acl_classify_rest(a, hits, pkts, i, n, act, data);
	}
	if (unlikely(a->ctx[0] == NULL || rte_acl_classify(a->ctx[0], data, res, n, 1) != 0)) {
		memset(res, 0, n * sizeof(res[0]));
		return dpr_acl_results(a, hits, res, n, act);
	}
	for (i = 0; i < n; i++)
		diff |= res[i] ^ dflt;
	if (unlikely(diff != 0))
		return dpr_acl_results(a, hits, res, n, act);
	hits[dflt] += n;
	x = a->action[dflt];
	memset(act, x, n);
	return x == DPR_ACL_PERMIT ? 0 : n;
}

/* Free @p n dropped packets of worker @p w, or capture them. */
static inline void
dpr_acl_drop_bulk(struct dpr_worker *w, struct rte_mbuf **pkts, unsigned int n)
{
	if (n > 0)
		dpr_drops_free(w, pkts, n, DPR_DROP_ACL);
}

/*
 * Rejected packets to the control thread, for their ICMP errors. They pass
 * the "transit" class's gates first (lib/copp), as the other exceptions
 * that only draw an ICMP error do, so that a flood of them spends that
 * class's rate and ring share, not ARP's, BGP's or the ICMP rate limiter's
 * time on the control thread. What a gate or the ring refuses is only
 * dropped (no error: as a rate limit would); it is counted as drops.acl
 * already, and by the class's over_rate or over_share, and goes to a
 * capture of drops.acl as the ACL's other drops do.
 */
static inline void
dpr_acl_reject_bulk(struct dpr_worker *w, struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_mbuf *lost[DPR_ACL_BULK];
	unsigned int i, q, k = n, nl = 0;

	if (n == 0)
		return;
	if (likely(w->copp.enabled)) {
		uint64_t now = dpr_worker_tsc();

		for (i = k = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];

			if (dpr_copp_admit(&w->copp, DPR_COPP_TRANSIT,
					   (uint16_t)DPR_EXC_META_PORT(m->hash.usr), now)) {
				m->hash.usr |= (uint32_t)(DPR_COPP_TRANSIT + 1) << DPR_EXC_META_COPP_SHIFT;
				pkts[k++] = m;
			} else {
				lost[nl++] = m;
			}
		}
	}
	q = k == 0 ? 0 : rte_ring_sp_enqueue_burst(w->exc_ring, (void **)pkts, k, NULL);
	for (i = q; i < k; i++) {
		dpr_copp_unpass(&w->copp, pkts[i]);
		lost[nl++] = pkts[i];
	}
	/* Its drop reason, for a capture, in place of the exception's
	 * class. */
	for (i = 0; i < nl; i++)
		lost[i]->hash.usr = DPR_DROP_ACL;
	dpr_acl_drop_bulk(w, lost, nl);
}

/*
 * Apply ACL @p a to the @p n packets at @p pkts: permitted ones are kept
 * in order at the start; the others are charged through @p charge
 * (input: the port; output: the port each came in on), then dropped or
 * rejected. @return how many are kept.
 */
static __rte_always_inline uint16_t
dpr_acl_apply_burst(struct dpr_worker *w, const struct dpr_acl_dp *a, uint16_t port, bool out,
		    struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *drop[DPR_ACL_BULK], *rej[DPR_ACL_BULK];
	uint8_t act[DPR_ACL_BULK];
	uint16_t i, keep = 0, nd = 0, nr = 0;

	if (likely(dpr_acl_classify_bulk(a, w->index, pkts, n, act) == 0))
		return n;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t in = port;

		if (likely(act[i] == DPR_ACL_PERMIT)) {
			pkts[keep++] = m;
			continue;
		}
		if (out) {
			/* Counted as forwarded on the port it came in on:
			 * dropped there now, as dpr_tx_flush() does. */
			in = dpr_mbuf_in_port(w, m, port);
			w->stats[in].forwarded--;
		}
		w->stats[in].drops[DPR_DROP_ACL]++;
		if (act[i] == DPR_ACL_REJECT && (out || dpr_acl_reject_ok(w, m, in))) {
			m->hash.usr = DPR_EXC_META(DPR_ACL_EXC_REJECT, in);
			rej[nr++] = m;
		} else {
			m->hash.usr = DPR_DROP_ACL;
			drop[nd++] = m;
		}
	}
	dpr_acl_reject_bulk(w, rej, nr);
	dpr_acl_drop_bulk(w, drop, nd);
	return keep;
}

/**
 * Input ACL @p a of interface @p in over the @p n packets just received
 * there (counted in rx): @return how many stay, in order at @p pkts.
 */
static __rte_noinline __rte_unused uint16_t
dpr_acl_in_burst(struct dpr_worker *w, const struct dpr_acl_dp *a, uint16_t in,
		 struct rte_mbuf **pkts, uint16_t n)
{
	return dpr_acl_apply_burst(w, a, in, false, pkts, n);
}

/**
 * Output ACL @p a of interface @p out over its TX buffer's @p n packets
 * (at most DPR_ACL_BULK): @return how many stay, in order.
 */
static __rte_noinline __rte_unused uint16_t
dpr_acl_out_burst(struct dpr_worker *w, const struct dpr_acl_dp *a, uint16_t out,
		  struct rte_mbuf **pkts, uint16_t n)
{
	return dpr_acl_apply_burst(w, a, out, true, pkts, n);
}

/**
 * The input ACL of interface @p in, if any, over a burst it received:
 * one load and one predictable test when none is bound.
 * @return how many packets stay.
 */
static __rte_always_inline uint16_t
dpr_acl_input(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	const struct dpr_acl_dp *a = __atomic_load_n(&w->acl->in[in], __ATOMIC_ACQUIRE);

	if (likely(a == NULL))
		return n;
	return dpr_acl_in_burst(w, a, in, pkts, n);
}
