/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "icmp6.h"

#define ETH_LEN ((uint32_t)sizeof(struct rte_ether_hdr))
#define IP6_LEN ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define L3_OFF ETH_LEN                 /* the IPv6 header, from the frame start */
#define L4_OFF (ETH_LEN + IP6_LEN)     /* what follows it */

/*
 * The addresses as bytes, const when @p ip is: arrays before DPDK 24.11,
 * struct rte_ipv6_addr since.
 */
#define IP6_SRC(ip) ((__typeof__(&(ip)->hop_limits))&(ip)->src_addr)
#define IP6_DST(ip) ((__typeof__(&(ip)->hop_limits))&(ip)->dst_addr)

/* The ICMPv6 header and the word after it (RFC 4443 2.1). */
struct icmp6_hdr {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be32_t word;       /* unused, MTU, pointer, NS/NA reserved/flags */
} __rte_packed;

/* RFC 4861 4.2. */
struct nd_ra_hdr {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	uint8_t cur_hop_limit;
	uint8_t flags;
	rte_be16_t router_lifetime;
	rte_be32_t reachable_time;
	rte_be32_t retrans_timer;
} __rte_packed;

/* RFC 4861 4.6.2. */
struct nd_opt_prefix {
	uint8_t type;
	uint8_t len;
	uint8_t prefix_len;
	uint8_t flags;
	rte_be32_t valid_lifetime;
	rte_be32_t preferred_lifetime;
	rte_be32_t reserved;
	uint8_t prefix[16];
} __rte_packed;

#define ND_RA_MANAGED 0x80          /* RFC 4861 4.2 */
#define ND_RA_OTHER 0x40
#define ND_NA_ROUTER 0x80           /* RFC 4861 4.4, first byte of the word */
#define ND_NA_SOLICITED 0x40
#define ND_NA_OVERRIDE 0x20
#define ND_PREFIX_ON_LINK 0x80      /* RFC 4861 4.6.2 */
#define ND_PREFIX_AUTONOMOUS 0x40
#define ND_OPT_UNIT 8               /* option lengths count 8 octets (4.6) */
#define ND_OPT_LLA_LEN 8            /* Ethernet link-layer address option (RFC 2464 6) */
#define ND_OPT_MTU_LEN 8

#define HBH_PAD1 0x00               /* RFC 8200 4.2 */
#define HBH_PADN 0x01
#define HBH_ROUTER_ALERT 0x05       /* RFC 2711 2.1 */
#define ROUTER_ALERT_MLD 0

/* Fields at any alignment: options and extension headers promise none. */
static inline uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void
dpr_ip6_link_local_from_mac(const struct rte_ether_addr *mac, uint8_t out[16])
{
	const uint8_t *b = mac->addr_bytes;

	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	out[8] = b[0] ^ 0x02;   /* the universal/local bit, inverted (RFC 4291 appendix A) */
	out[9] = b[1];
	out[10] = b[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = b[3];
	out[14] = b[4];
	out[15] = b[5];
}

void
dpr_ip6_solicited_node(const uint8_t *ip, uint8_t out[16])
{
	static const uint8_t base[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	memcpy(out, base, sizeof(base));
	memcpy(out + 13, ip + 13, 3);
}

void
dpr_ip6_mcast_mac(const uint8_t *ip, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], ip + 12, 4);
}

/* ff02::1:ff00:0/104 (RFC 4291 2.7.1). */
static bool
is_solicited_node(const uint8_t *a)
{
	uint8_t sn[16];

	dpr_ip6_solicited_node(a, sn);
	return memcmp(a, sn, sizeof(sn)) == 0;
}

/* Names one node: what may be answered or reported to (RFC 4443 2.4(e.6)). */
static bool
one_node(const uint8_t *a)
{
	return !dpr_ip6_is_unspecified(a) && !dpr_ip6_is_multicast(a) && !dpr_ip6_is_loopback(a);
}

uint16_t
dpr_icmp6_cksum(const struct rte_ipv6_hdr *ip, const void *icmp, uint32_t len)
{
	/* The rest of the pseudo-header (RFC 8200 8.1), after both addresses. */
	const struct {
		rte_be32_t len;
		rte_be32_t next;
	} ph = { rte_cpu_to_be_32(len), rte_cpu_to_be_32(IPPROTO_ICMPV6) };
	uint32_t sum;

	sum = __rte_raw_cksum(IP6_SRC(ip), 2 * 16, 0);   /* source, then destination */
	sum = __rte_raw_cksum(&ph, sizeof(ph), sum);
	sum = __rte_raw_cksum(icmp, len, sum);
	return (uint16_t)~__rte_raw_cksum_reduce(sum);
}

/* The IPv6 header of the Ethernet frame @p m, or NULL when it is not one. */
static const struct rte_ipv6_hdr *
ip6_of(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);

	if (m->data_len < L4_OFF || eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return NULL;
	return ip;
}

/* Where the IPv6 packet ends in @p m: at its payload length, or the frame's end if sooner. */
static uint32_t
ip6_end(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip)
{
	return RTE_MIN(m->pkt_len, L4_OFF + rte_be_to_cpu_16(ip->payload_len));
}

/*
 * Walk the extension headers (RFC 8200 4) of the IPv6 packet in @p m, which
 * ends at @p end. Returns the offset of the upper-layer header from the
 * frame start, its protocol in @p proto; -1 when a header runs past @p end.
 * A non-first fragment stops the walk (@p later_frag): what follows is data.
 */
static int
ip6_upper(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t end,
	  uint8_t *proto, bool *later_frag)
{
	uint32_t off = L4_OFF, len;
	uint8_t nh = ip->proto, buf[4];
	const uint8_t *h;

	*later_frag = false;
	for (;;) {
		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_FRAGMENT:
		case IPPROTO_AH:
			break;
		default:
			*proto = nh;
			return (int)off;
		}
		/* Every one of these is at least 8 bytes long. */
		if (off + 8 > end)
			return -1;
		h = rte_pktmbuf_read(m, off, sizeof(buf), buf);
		if (h == NULL)
			return -1;
		if (nh == IPPROTO_FRAGMENT) {
			len = 8;
			if (get_be16(h + 2) & 0xfff8) {   /* Fragment Offset (4.5) */
				*later_frag = true;
				*proto = h[0];
				return (int)(off + len);
			}
		} else if (nh == IPPROTO_AH) {
			len = ((uint32_t)h[1] + 2) * 4;   /* RFC 4302 2.2 */
		} else {
			len = ((uint32_t)h[1] + 1) * 8;
		}
		if (len > end - off)
			return -1;
		nh = h[0];
		off += len;
	}
}

bool
dpr_icmp6_error_allowed(const struct rte_mbuf *m, uint8_t type, uint8_t code)
{
	const struct rte_ipv6_hdr *ip = ip6_of(m);
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	/* RFC 4443 2.4(e.3): these two tell a multicast sender what it must fix. */
	bool exempt = type == DPR_ICMP6_PACKET_TOO_BIG ||
		(type == DPR_ICMP6_PARAM_PROBLEM && code == DPR_ICMP6_PARAM_OPTION);
	uint32_t end;
	uint8_t proto, t;
	const uint8_t *p;
	bool later_frag;
	int off;

	if (ip == NULL)
		return false;
	/* (e.3) IPv6 multicast, (e.4, e.5) link-layer multicast or broadcast. */
	if (!exempt && (rte_is_multicast_ether_addr(&eth->dst_addr) ||
			dpr_ip6_is_multicast(IP6_DST(ip))))
		return false;
	/* (e.6) a source that does not identify a single node. */
	if (!one_node(IP6_SRC(ip)))
		return false;
	end = ip6_end(m, ip);
	off = ip6_upper(m, ip, end, &proto, &later_frag);
	if (off < 0 || later_frag || proto != IPPROTO_ICMPV6)
		return true;
	/* Too short for the ICMPv6 header: cannot tell, stay quiet. */
	if ((uint32_t)off + 4 > end)
		return false;
	p = rte_pktmbuf_read(m, off, 1, &t);
	if (p == NULL)
		return false;
	/* (e.1) an ICMPv6 error (types below 128, RFC 4443 2.1), (e.2) a Redirect. */
	return *p >= 128 && *p != DPR_ICMP6_REDIRECT;
}

/*
 * A zeroed Ethernet/IPv6 frame with @p l4_len bytes of ICMPv6 after the
 * header, hop limit @p hops; NULL MACs are left zero. Sets errno on failure.
 */
static struct rte_mbuf *
ip6_frame(struct rte_mempool *mp, const struct rte_ether_addr *smac,
	  const struct rte_ether_addr *dmac, const uint8_t *src, const uint8_t *dst,
	  uint8_t hops, uint32_t l4_len, struct rte_ipv6_hdr **ipp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;

	if (m == NULL) {
		errno = ENOBUFS;
		return NULL;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(L4_OFF + l4_len));
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		errno = ENOBUFS;
		return NULL;
	}
	memset(eth, 0, L4_OFF + l4_len);
	if (dmac != NULL)
		eth->dst_addr = *dmac;
	if (smac != NULL)
		eth->src_addr = *smac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)l4_len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = hops;
	if (src != NULL)
		memcpy(IP6_SRC(ip), src, 16);
	memcpy(IP6_DST(ip), dst, 16);
	*ipp = ip;
	return m;
}

static void
icmp6_seal(const struct rte_ipv6_hdr *ip, struct icmp6_hdr *icmp, uint32_t len)
{
	icmp->cksum = 0;
	icmp->cksum = dpr_icmp6_cksum(ip, icmp, len);
}

struct rte_mbuf *
dpr_icmp6_error(struct rte_mempool *mp, const struct rte_mbuf *orig, uint8_t type,
		uint8_t code, uint32_t param, const uint8_t src[16])
{
	const struct rte_ipv6_hdr *oip = ip6_of(orig);
	struct rte_ipv6_hdr *ip;
	struct icmp6_hdr *icmp;
	struct rte_mbuf *m;
	uint32_t quote;
	const void *q;

	if (oip == NULL || type >= 128 || src == NULL || !one_node(src) ||
	    !one_node(IP6_SRC(oip))) {
		errno = EINVAL;
		return NULL;
	}
	/* RFC 4443 2.4(c): as much as fits in the minimum MTU. */
	quote = RTE_MIN(ip6_end(orig, oip) - L3_OFF,
			DPR_ICMP6_ERROR_MAX - IP6_LEN - (uint32_t)sizeof(*icmp));
	m = ip6_frame(mp, NULL, NULL, src, IP6_SRC(oip), 64, sizeof(*icmp) + quote, &ip);
	if (m == NULL)
		return NULL;
	icmp = (struct icmp6_hdr *)(ip + 1);
	icmp->type = type;
	icmp->code = code;
	/* RFC 4443 3.2 (MTU), 3.4 (pointer); unused fields are zero (3.1, 3.3). */
	if (type == DPR_ICMP6_PACKET_TOO_BIG || type == DPR_ICMP6_PARAM_PROBLEM)
		icmp->word = rte_cpu_to_be_32(param);
	/* Points into @p orig when contiguous, else copies into the buffer. */
	q = rte_pktmbuf_read(orig, L3_OFF, quote, icmp + 1);
	if (q != NULL && q != (const void *)(icmp + 1))
		memcpy(icmp + 1, q, quote);
	icmp6_seal(ip, icmp, sizeof(*icmp) + quote);
	return m;
}

int
dpr_icmp6_echo_reply(struct rte_mbuf *m, const uint8_t src[16])
{
	const struct rte_ipv6_hdr *cip = ip6_of(m);
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	struct icmp6_hdr *icmp;
	struct rte_ether_addr mac;
	uint32_t end, off = L4_OFF, ext, len;
	uint8_t nh, *h, a[16];

	if (cip == NULL || !rte_pktmbuf_is_contiguous(m))
		return -EINVAL;
	end = L4_OFF + rte_be_to_cpu_16(cip->payload_len);
	if (end > m->data_len)
		return -EINVAL;
	/* Skip what the request may carry before ICMPv6; a fragment is not answered in place. */
	for (nh = cip->proto; nh == IPPROTO_HOPOPTS || nh == IPPROTO_DSTOPTS ||
	     nh == IPPROTO_ROUTING; off += ext) {
		if (off + 8 > end)
			return -EINVAL;
		h = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
		ext = ((uint32_t)h[1] + 1) * 8;
		/* Segments Left (RFC 8200 4.4): not yet at its final destination. */
		if ((nh == IPPROTO_ROUTING && h[3] != 0) || ext > end - off)
			return -EINVAL;
		nh = h[0];
	}
	len = end - off;
	icmp = rte_pktmbuf_mtod_offset(m, struct icmp6_hdr *, off);
	/* RFC 4443 4.1: type 128, code 0, identifier and sequence number. */
	if (nh != IPPROTO_ICMPV6 || len < sizeof(*icmp) || icmp->type != DPR_ICMP6_ECHO_REQUEST ||
	    icmp->code != 0 || !dpr_icmp6_cksum_ok(cip, icmp, len))
		return -EINVAL;
	/* RFC 4443 4.2: the reply comes from a unicast address, to one node. */
	if (!one_node(IP6_SRC(cip)) ||
	    (src == NULL && dpr_ip6_is_multicast(IP6_DST(cip))) ||
	    (src != NULL && !one_node(src)))
		return -EINVAL;

	/* Drop the extension headers: slide Ethernet and IPv6 headers up to the ICMPv6 one. */
	if (off > L4_OFF) {
		memmove(rte_pktmbuf_mtod_offset(m, uint8_t *, off - L4_OFF),
			rte_pktmbuf_mtod(m, uint8_t *), L4_OFF);
		rte_pktmbuf_adj(m, (uint16_t)(off - L4_OFF));
	}
	if (m->pkt_len > L4_OFF + len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - (L4_OFF + len)));
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	mac = eth->src_addr;
	eth->src_addr = eth->dst_addr;
	eth->dst_addr = mac;
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	/* RFC 4443 4.2: from the address the request went to, unless told otherwise. */
	memcpy(a, IP6_DST(ip), sizeof(a));
	memcpy(IP6_DST(ip), IP6_SRC(ip), sizeof(a));
	memcpy(IP6_SRC(ip), src != NULL ? src : a, sizeof(a));
	icmp = (struct icmp6_hdr *)(ip + 1);
	icmp->type = DPR_ICMP6_ECHO_REPLY;
	icmp6_seal(ip, icmp, len);
	return 0;
}

/* The fixed part of each Neighbor Discovery message, before its options (RFC 4861 4.1-4.5). */
static uint32_t
ndp_min_len(uint8_t type)
{
	switch (type) {
	case DPR_ICMP6_ROUTER_SOLICIT:
		return 8;
	case DPR_ICMP6_ROUTER_ADVERT:
		return 16;
	case DPR_ICMP6_NEIGH_SOLICIT:
	case DPR_ICMP6_NEIGH_ADVERT:
		return 24;
	case DPR_ICMP6_REDIRECT:
		return 40;
	default:
		return 0;
	}
}

/*
 * Take the options this message uses (RFC 4861 4.6); the others are ignored.
 * @return false for a link-layer address option that names no one unicast
 * host (multicast, broadcast, zero): learned, it would send a neighbour's
 * traffic to the whole link or nowhere (dpr_arp_parse() refuses such a
 * sender too; RFC 1812 3.3.2 for ARP).
 */
static bool
ndp_option(struct dpr_ndp *n, const uint8_t *o, uint32_t olen)
{
	const struct nd_opt_prefix *pi = (const struct nd_opt_prefix *)o;
	struct dpr_ra_prefix *p;
	uint8_t lla = (n->type == DPR_ICMP6_NEIGH_ADVERT || n->type == DPR_ICMP6_REDIRECT) ?
		DPR_NDP_OPT_TLLA : DPR_NDP_OPT_SLLA;

	if (o[0] == lla && olen == ND_OPT_LLA_LEN && !n->has_lladdr) {
		n->has_lladdr = true;
		memcpy(&n->lladdr, o + 2, RTE_ETHER_ADDR_LEN);
		if (!rte_is_unicast_ether_addr(&n->lladdr) || rte_is_zero_ether_addr(&n->lladdr))
			return false;
	} else if (n->type == DPR_ICMP6_ROUTER_ADVERT && o[0] == DPR_NDP_OPT_MTU &&
		   olen == ND_OPT_MTU_LEN) {
		n->ra.mtu = get_be32(o + 4);
	} else if (n->type == DPR_ICMP6_ROUTER_ADVERT && o[0] == DPR_NDP_OPT_PREFIX &&
		   olen == sizeof(*pi) && n->ra.n_prefixes < DPR_RA_PREFIXES_MAX) {
		p = &n->ra.prefixes[n->ra.n_prefixes++];
		memcpy(p->prefix, pi->prefix, sizeof(p->prefix));
		p->len = pi->prefix_len;
		p->on_link = pi->flags & ND_PREFIX_ON_LINK;
		p->autonomous = pi->flags & ND_PREFIX_AUTONOMOUS;
		p->valid_lifetime = rte_be_to_cpu_32(pi->valid_lifetime);
		p->preferred_lifetime = rte_be_to_cpu_32(pi->preferred_lifetime);
	}
	return true;
}

int
dpr_ndp_parse(const struct rte_mbuf *m, struct dpr_ndp *n)
{
	const struct rte_ipv6_hdr *ip = ip6_of(m);
	const uint8_t *icmp, *o;
	uint32_t len, min, off, olen;

	/* No extension headers: Neighbor Discovery never needs one. */
	if (ip == NULL || ip->proto != IPPROTO_ICMPV6)
		return -EINVAL;
	len = rte_be_to_cpu_16(ip->payload_len);
	if (len < 1 || L4_OFF + len > m->data_len)
		return -EINVAL;
	icmp = (const uint8_t *)(ip + 1);
	min = ndp_min_len(icmp[0]);
	if (min == 0)
		return -ENOTSUP;

	memset(n, 0, sizeof(*n));
	n->type = icmp[0];
	n->code = icmp[1];
	n->hop_limit = ip->hop_limits;
	memcpy(n->src, IP6_SRC(ip), sizeof(n->src));
	memcpy(n->dst, IP6_DST(ip), sizeof(n->dst));
	/*
	 * 6.1.1, 6.1.2, 7.1.1, 7.1.2, 8.1: hop limit 255 (it proves the sender
	 * is on the link), a right checksum, code 0, the type's length.
	 */
	if (n->hop_limit != DPR_NDP_HOP_LIMIT || n->code != 0 || len < min ||
	    !dpr_icmp6_cksum_ok(ip, icmp, len))
		return -EINVAL;

	/* Every option longer than 0 and inside the message. */
	for (off = min; off < len; off += olen) {
		o = icmp + off;
		if (len - off < 2)
			return -EINVAL;
		olen = (uint32_t)o[1] * ND_OPT_UNIT;
		if (olen == 0 || olen > len - off || !ndp_option(n, o, olen))
			return -EINVAL;
	}

	switch (n->type) {
	case DPR_ICMP6_ROUTER_SOLICIT:
		/* 6.1.1: no SLLA from the unspecified address. */
		if (dpr_ip6_is_unspecified(n->src) && n->has_lladdr)
			return -EINVAL;
		break;
	case DPR_ICMP6_ROUTER_ADVERT: {
		const struct nd_ra_hdr *ra = (const struct nd_ra_hdr *)icmp;

		/* 6.1.2: routers speak from their link-local address. */
		if (!dpr_ip6_is_link_local(n->src))
			return -EINVAL;
		n->ra.cur_hop_limit = ra->cur_hop_limit;
		n->ra.managed = ra->flags & ND_RA_MANAGED;
		n->ra.other = ra->flags & ND_RA_OTHER;
		n->ra.router_lifetime = rte_be_to_cpu_16(ra->router_lifetime);
		n->ra.reachable_time = rte_be_to_cpu_32(ra->reachable_time);
		n->ra.retrans_timer = rte_be_to_cpu_32(ra->retrans_timer);
		break;
	}
	case DPR_ICMP6_NEIGH_SOLICIT:
		memcpy(n->target, icmp + 8, sizeof(n->target));
		/* 7.1.1: a multicast target; DAD from :: goes to a solicited-node group, without SLLA. */
		if (dpr_ip6_is_multicast(n->target))
			return -EINVAL;
		if (dpr_ip6_is_unspecified(n->src) &&
		    (!is_solicited_node(n->dst) || n->has_lladdr))
			return -EINVAL;
		break;
	case DPR_ICMP6_NEIGH_ADVERT:
		memcpy(n->target, icmp + 8, sizeof(n->target));
		n->router = icmp[4] & ND_NA_ROUTER;
		n->solicited = icmp[4] & ND_NA_SOLICITED;
		n->override = icmp[4] & ND_NA_OVERRIDE;
		/* 7.1.2: a multicast target; a multicast answer cannot be solicited. */
		if (dpr_ip6_is_multicast(n->target) ||
		    (dpr_ip6_is_multicast(n->dst) && n->solicited))
			return -EINVAL;
		break;
	case DPR_ICMP6_REDIRECT:
		memcpy(n->target, icmp + 8, sizeof(n->target));
		memcpy(n->dest, icmp + 24, sizeof(n->dest));
		/*
		 * 8.1: from a router's link-local address, about a unicast
		 * destination, to a target that is a link-local router or the
		 * destination itself (on-link).
		 */
		if (!dpr_ip6_is_link_local(n->src) || dpr_ip6_is_multicast(n->dest) ||
		    (!dpr_ip6_is_link_local(n->target) &&
		     memcmp(n->target, n->dest, sizeof(n->dest)) != 0))
			return -EINVAL;
		break;
	}
	return 0;
}

/* An Ethernet link-layer address option (RFC 4861 4.6.1, RFC 2464 6). */
static uint8_t *
put_lla(uint8_t *o, uint8_t type, const struct rte_ether_addr *mac)
{
	o[0] = type;
	o[1] = ND_OPT_LLA_LEN / ND_OPT_UNIT;
	memcpy(o + 2, mac, RTE_ETHER_ADDR_LEN);
	return o + ND_OPT_LLA_LEN;
}

/* The destination MAC for @p dst: derived for multicast (RFC 2464 7), else @p dmac. */
static const struct rte_ether_addr *
dst_mac(const uint8_t *dst, const struct rte_ether_addr *dmac, struct rte_ether_addr *buf)
{
	if (!dpr_ip6_is_multicast(dst))
		return dmac;
	dpr_ip6_mcast_mac(dst, buf);
	return buf;
}

struct rte_mbuf *
dpr_ndp_ns_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
		 const uint8_t src[16], const uint8_t target[16], bool unicast_probe,
		 const struct rte_ether_addr *dmac)
{
	static const uint8_t unspec[16];
	struct rte_ether_addr mcast;
	struct rte_ipv6_hdr *ip;
	struct icmp6_hdr *icmp;
	struct rte_mbuf *m;
	uint8_t dst[16];
	/* 7.2.2: no SLLA from ::, else always (multicast needs it, unicast should have it). */
	uint32_t len = 24 + (src != NULL ? ND_OPT_LLA_LEN : 0);

	/* RFC 4862 5.4.2: DAD goes to the solicited-node group. */
	if (smac == NULL || target == NULL || dpr_ip6_is_multicast(target) ||
	    dpr_ip6_is_unspecified(target) || (src != NULL && dpr_ip6_is_multicast(src)) ||
	    (unicast_probe && (dmac == NULL || src == NULL))) {
		errno = EINVAL;
		return NULL;
	}
	if (unicast_probe)
		memcpy(dst, target, sizeof(dst));
	else
		dpr_ip6_solicited_node(target, dst);
	m = ip6_frame(mp, smac, dst_mac(dst, dmac, &mcast), src != NULL ? src : unspec, dst,
		      DPR_NDP_HOP_LIMIT, len, &ip);
	if (m == NULL)
		return NULL;
	icmp = (struct icmp6_hdr *)(ip + 1);
	icmp->type = DPR_ICMP6_NEIGH_SOLICIT;
	memcpy(icmp + 1, target, 16);
	if (src != NULL)
		put_lla((uint8_t *)icmp + 24, DPR_NDP_OPT_SLLA, smac);
	icmp6_seal(ip, icmp, len);
	return m;
}

struct rte_mbuf *
dpr_ndp_na_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
		 const uint8_t src[16], const uint8_t dst[16], const struct rte_ether_addr *dmac,
		 const uint8_t target[16], bool router, bool solicited, bool override)
{
	const uint32_t len = 24 + ND_OPT_LLA_LEN;
	struct rte_ether_addr mcast;
	struct rte_ipv6_hdr *ip;
	struct icmp6_hdr *icmp;
	struct rte_mbuf *m;
	uint8_t *p;

	/* 7.1.2: a multicast NA is never solicited; 7.2.4: answers come from an address of ours. */
	if (smac == NULL || src == NULL || dst == NULL || target == NULL ||
	    !one_node(src) || dpr_ip6_is_multicast(target) || dpr_ip6_is_unspecified(target) ||
	    dpr_ip6_is_unspecified(dst) || (dpr_ip6_is_multicast(dst) && solicited) ||
	    (!dpr_ip6_is_multicast(dst) && dmac == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	m = ip6_frame(mp, smac, dst_mac(dst, dmac, &mcast), src, dst, DPR_NDP_HOP_LIMIT,
		      len, &ip);
	if (m == NULL)
		return NULL;
	icmp = (struct icmp6_hdr *)(ip + 1);
	icmp->type = DPR_ICMP6_NEIGH_ADVERT;
	p = (uint8_t *)icmp;
	p[4] = (router ? ND_NA_ROUTER : 0) | (solicited ? ND_NA_SOLICITED : 0) |
		(override ? ND_NA_OVERRIDE : 0);
	memcpy(p + 8, target, 16);
	/* 7.2.4: the TLLA is included in every answer on Ethernet. */
	put_lla(p + 24, DPR_NDP_OPT_TLLA, smac);
	icmp6_seal(ip, icmp, len);
	return m;
}

struct rte_mbuf *
dpr_ndp_redirect_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
		       const uint8_t src[16], const struct rte_ether_addr *dmac,
		       const uint8_t target[16], const uint8_t dest[16],
		       const struct rte_ether_addr *tlla, const struct rte_mbuf *orig)
{
	const struct rte_ipv6_hdr *oip = orig != NULL ? ip6_of(orig) : NULL;
	/* 4.5: type, code, checksum, reserved, target, destination. */
	const uint32_t head = 8 + 16 + 16, opt = tlla != NULL ? ND_OPT_LLA_LEN : 0;
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint32_t quote, padded;
	uint8_t *p, *rh;
	const void *q;

	if (oip == NULL || smac == NULL || src == NULL || dmac == NULL || target == NULL ||
	    dest == NULL || !dpr_ip6_is_link_local(src) || !one_node(IP6_SRC(oip)) ||
	    (!dpr_ip6_is_link_local(target) && memcmp(target, dest, 16) != 0)) {
		errno = EINVAL;
		return NULL;
	}
	/* 8.2: the Redirected Header holds as much of the packet as keeps the
	 * redirect within the minimum MTU; options count 8 octets. */
	quote = RTE_MIN(ip6_end(orig, oip) - L3_OFF,
			DPR_ICMP6_ERROR_MAX - IP6_LEN - head - opt - ND_OPT_UNIT);
	/* That room is a multiple of 8 octets: the padding fits in it. */
	padded = RTE_ALIGN_CEIL(quote, ND_OPT_UNIT);
	m = ip6_frame(mp, smac, dmac, src, IP6_SRC(oip), DPR_NDP_HOP_LIMIT,
		      head + opt + ND_OPT_UNIT + padded, &ip);
	if (m == NULL)
		return NULL;
	p = (uint8_t *)(ip + 1);
	p[0] = DPR_ICMP6_REDIRECT;
	memcpy(p + 8, target, 16);
	memcpy(p + 24, dest, 16);
	rh = p + head;
	if (tlla != NULL)
		rh = put_lla(rh, DPR_NDP_OPT_TLLA, tlla);
	rh[0] = DPR_NDP_OPT_REDIRECTED;
	rh[1] = (uint8_t)(1 + padded / ND_OPT_UNIT);
	/* Points into @p orig when contiguous, else copies into the buffer. */
	q = rte_pktmbuf_read(orig, L3_OFF, quote, rh + ND_OPT_UNIT);
	if (q != NULL && q != (const void *)(rh + ND_OPT_UNIT))
		memcpy(rh + ND_OPT_UNIT, q, quote);
	icmp6_seal(ip, (struct icmp6_hdr *)p, head + opt + ND_OPT_UNIT + padded);
	return m;
}

struct rte_mbuf *
dpr_ndp_ra_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
		 const uint8_t src[16], const uint8_t dst[16], const struct rte_ether_addr *dmac,
		 const struct dpr_ra_conf *ra)
{
	struct rte_ether_addr mcast;
	struct rte_ipv6_hdr *ip;
	struct nd_ra_hdr *h;
	struct rte_mbuf *m;
	unsigned int i;
	uint32_t len;
	uint8_t *o;

	if (smac == NULL || src == NULL || dst == NULL || ra == NULL ||
	    !dpr_ip6_is_link_local(src) || dpr_ip6_is_unspecified(dst) ||
	    (!dpr_ip6_is_multicast(dst) && dmac == NULL) || ra->n_prefixes > DPR_RA_PREFIXES_MAX)
		goto inval;
	for (i = 0; i < ra->n_prefixes; i++)
		if (ra->prefixes[i].len > 128 ||
		    ra->prefixes[i].preferred_lifetime > ra->prefixes[i].valid_lifetime)
			goto inval;
	len = (uint32_t)sizeof(*h) + ND_OPT_LLA_LEN + (ra->mtu != 0 ? ND_OPT_MTU_LEN : 0) +
		ra->n_prefixes * (uint32_t)sizeof(struct nd_opt_prefix);
	m = ip6_frame(mp, smac, dst_mac(dst, dmac, &mcast), src, dst, DPR_NDP_HOP_LIMIT,
		      len, &ip);
	if (m == NULL)
		return NULL;
	h = (struct nd_ra_hdr *)(ip + 1);
	h->type = DPR_ICMP6_ROUTER_ADVERT;
	h->cur_hop_limit = ra->cur_hop_limit;
	h->flags = (ra->managed ? ND_RA_MANAGED : 0) | (ra->other ? ND_RA_OTHER : 0);
	h->router_lifetime = rte_cpu_to_be_16(ra->router_lifetime);
	h->reachable_time = rte_cpu_to_be_32(ra->reachable_time);
	h->retrans_timer = rte_cpu_to_be_32(ra->retrans_timer);
	o = put_lla((uint8_t *)(h + 1), DPR_NDP_OPT_SLLA, smac);
	if (ra->mtu != 0) {
		/* 4.6.4: type, length 1, 16 reserved bits, the MTU. */
		o[0] = DPR_NDP_OPT_MTU;
		o[1] = ND_OPT_MTU_LEN / ND_OPT_UNIT;
		put_be32(o + 4, ra->mtu);
		o += ND_OPT_MTU_LEN;
	}
	for (i = 0; i < ra->n_prefixes; i++, o += sizeof(struct nd_opt_prefix)) {
		const struct dpr_ra_prefix *p = &ra->prefixes[i];
		struct nd_opt_prefix *pi = (struct nd_opt_prefix *)o;
		uint8_t bits = p->len;
		unsigned int b;

		pi->type = DPR_NDP_OPT_PREFIX;
		pi->len = sizeof(*pi) / ND_OPT_UNIT;
		pi->prefix_len = p->len;
		pi->flags = (p->on_link ? ND_PREFIX_ON_LINK : 0) |
			(p->autonomous ? ND_PREFIX_AUTONOMOUS : 0);
		pi->valid_lifetime = rte_cpu_to_be_32(p->valid_lifetime);
		pi->preferred_lifetime = rte_cpu_to_be_32(p->preferred_lifetime);
		/* 4.6.2: the bits past the prefix length are zero when sent. */
		for (b = 0; b < 16; b++, bits = bits > 8 ? bits - 8 : 0)
			pi->prefix[b] = bits >= 8 ? p->prefix[b] :
				(uint8_t)(p->prefix[b] & (0xff00 >> bits));
	}
	icmp6_seal(ip, (struct icmp6_hdr *)h, len);
	return m;
inval:
	errno = EINVAL;
	return NULL;
}

/* A Parameter Problem of @p c about the byte at @p p of the IPv6 packet. */
static enum dpr_ip6_hbh
param_problem(uint8_t *code, uint32_t *pointer, uint8_t c, uint32_t p)
{
	*code = c;
	*pointer = p;
	return DPR_IP6_HBH_PARAM_PROBLEM;
}

enum dpr_ip6_hbh
dpr_ip6_hbh_check(const struct rte_mbuf *m, uint8_t *code, uint32_t *pointer)
{
	const struct rte_ipv6_hdr *ip = ip6_of(m);
	uint8_t buf[2048], lbuf[2];   /* the longest header: (255 + 1) * 8 bytes */
	uint32_t plen, hlen, i, olen;
	const uint8_t *h;
	bool local = false;

	if (ip == NULL)
		return DPR_IP6_HBH_DROP;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (m->pkt_len < L4_OFF + plen)
		return DPR_IP6_HBH_DROP;
	/* RFC 8200 4.1: only right after the IPv6 header. */
	if (ip->proto != IPPROTO_HOPOPTS)
		return DPR_IP6_HBH_FORWARD;
	/* Not even its length fits: the payload length is what is wrong. */
	if (plen < 2)
		return param_problem(code, pointer, DPR_ICMP6_PARAM_HEADER,
				     offsetof(struct rte_ipv6_hdr, payload_len));
	h = rte_pktmbuf_read(m, L4_OFF, sizeof(lbuf), lbuf);
	hlen = ((uint32_t)h[1] + 1) * 8;
	if (hlen > plen)
		return param_problem(code, pointer, DPR_ICMP6_PARAM_HEADER, IP6_LEN + 1);
	h = rte_pktmbuf_read(m, L4_OFF, hlen, buf);

	/* RFC 8200 4.2: type-length-value options; Pad1 is a lone type byte. */
	i = 2;
	while (i < hlen) {
		if (h[i] == HBH_PAD1) {
			i++;
			continue;
		}
		/* The option's length byte is missing, or says more than is left. */
		if (hlen - i < 2)
			return param_problem(code, pointer, DPR_ICMP6_PARAM_HEADER, IP6_LEN + i);
		olen = h[i + 1];
		if (olen > hlen - i - 2)
			return param_problem(code, pointer, DPR_ICMP6_PARAM_HEADER,
					     IP6_LEN + i + 1);
		switch (h[i]) {
		case HBH_PADN:
			break;
		case HBH_ROUTER_ALERT:
			/* RFC 2711 2.1: two bytes of value; others are ignored (2.2). */
			if (olen != 2)
				return param_problem(code, pointer, DPR_ICMP6_PARAM_HEADER,
						     IP6_LEN + i + 1);
			if (get_be16(h + i + 2) == ROUTER_ALERT_MLD)
				local = true;
			break;
		default:
			/* Unrecognized: its two high-order bits say what to do (RFC 8200 4.2). */
			switch (h[i] >> 6) {
			case 1:
				return DPR_IP6_HBH_DROP;
			case 3:
				if (dpr_ip6_is_multicast(IP6_DST(ip)))
					return DPR_IP6_HBH_DROP;
				/* fall through */
			case 2:
				return param_problem(code, pointer, DPR_ICMP6_PARAM_OPTION,
						     IP6_LEN + i);
			}
		}
		i += 2 + olen;
	}
	return local ? DPR_IP6_HBH_LOCAL : DPR_IP6_HBH_FORWARD;
}
