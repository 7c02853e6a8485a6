/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "packet.h"

int
dpr_arp_parse(const struct rte_mbuf *m, struct dpr_arp *a)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);

	if (m->data_len < sizeof(*eth) + sizeof(*arp) ||
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_ARP) ||
	    arp->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4)
		return -EINVAL;
	a->op = rte_be_to_cpu_16(arp->arp_opcode);
	if (a->op != RTE_ARP_OP_REQUEST && a->op != RTE_ARP_OP_REPLY)
		return -EINVAL;
	a->sha = arp->arp_data.arp_sha;
	a->tha = arp->arp_data.arp_tha;
	a->sip = rte_be_to_cpu_32(arp->arp_data.arp_sip);
	a->tip = rte_be_to_cpu_32(arp->arp_data.arp_tip);
	/* A sender must be one unicast host. */
	if (!rte_is_unicast_ether_addr(&a->sha) || rte_is_zero_ether_addr(&a->sha))
		return -EINVAL;
	return 0;
}

struct rte_mbuf *
dpr_arp_build(struct rte_mempool *mp, const struct dpr_arp *a,
	      const struct rte_ether_addr *dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*arp));
	arp = (struct rte_arp_hdr *)(eth + 1);
	eth->dst_addr = *dst;
	eth->src_addr = a->sha;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(a->op);
	arp->arp_data.arp_sha = a->sha;
	arp->arp_data.arp_sip = rte_cpu_to_be_32(a->sip);
	arp->arp_data.arp_tha = a->tha;
	arp->arp_data.arp_tip = rte_cpu_to_be_32(a->tip);
	return m;
}

static bool
one_host(uint32_t a)
{
	uint8_t b = a >> 24;

	return a != 0 && b != 0 && b != 127 && b < 224;
}

bool
dpr_icmp4_error_allowed(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	uint32_t hlen = (uint32_t)(ip->version_ihl & 0xf) * 4;

	if (!rte_is_unicast_ether_addr(&eth->dst_addr))
		return false;
	if (!one_host(rte_be_to_cpu_32(ip->src_addr)) ||
	    (rte_be_to_cpu_32(ip->dst_addr) >> 28) >= 0xe)
		return false;
	if (rte_be_to_cpu_16(ip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK)
		return false;
	if (ip->next_proto_id == IPPROTO_ICMP) {
		const struct rte_icmp_hdr *icmp;

		if (m->data_len < sizeof(*eth) + hlen + 1)
			return false; /* cannot tell: stay quiet */
		icmp = (const struct rte_icmp_hdr *)((const uint8_t *)ip + hlen);
		/* Only queries (echo, timestamp, ...) may draw an error. */
		switch (icmp->icmp_type) {
		case 0: case 8: case 13: case 14: case 15: case 16: case 17: case 18:
			break;
		default:
			return false;
		}
	}
	return true;
}

struct rte_mbuf *
dpr_icmp4_error(struct rte_mempool *mp, const struct rte_mbuf *orig, uint8_t type,
		uint8_t code, uint32_t rest, uint32_t src)
{
	const struct rte_ipv4_hdr *oip = rte_pktmbuf_mtod_offset(orig, const struct rte_ipv4_hdr *,
								 sizeof(struct rte_ether_hdr));
	uint32_t olen = RTE_MIN((uint32_t)rte_be_to_cpu_16(oip->total_length),
				orig->pkt_len - (uint32_t)sizeof(struct rte_ether_hdr));
	uint32_t quote = RTE_MIN(olen, (uint32_t)(DPR_ICMP_ERROR_MAX - sizeof(struct rte_ipv4_hdr) -
					       sizeof(struct rte_icmp_hdr)));
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *icmp;
	uint32_t len = sizeof(*ip) + sizeof(*icmp) + quote;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + len);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eth, 0, sizeof(*eth));
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0xc0; /* internetwork control (RFC 1812 4.3.2.5) */
	ip->total_length = rte_cpu_to_be_16(len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = oip->src_addr;
	ip->hdr_checksum = rte_ipv4_cksum(ip);

	icmp = (struct rte_icmp_hdr *)(ip + 1);
	icmp->icmp_type = type;
	icmp->icmp_code = code;
	icmp->icmp_cksum = 0;
	/* The second word: unused, or the next-hop MTU (RFC 1191). */
	icmp->icmp_ident = rte_cpu_to_be_16((uint16_t)(rest >> 16));
	icmp->icmp_seq_nb = rte_cpu_to_be_16((uint16_t)rest);
	{
		/* Points into @p orig when contiguous, else copies into the buffer. */
		const void *q = rte_pktmbuf_read(orig, sizeof(struct rte_ether_hdr), quote, icmp + 1);

		if (q != NULL && q != (const void *)(icmp + 1))
			memcpy(icmp + 1, q, quote);
	}
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, sizeof(*icmp) + quote);
	return m;
}

int
dpr_icmp4_echo_reply(struct rte_mbuf *m, uint32_t src)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint32_t hlen = (uint32_t)(ip->version_ihl & 0xf) * 4;
	uint32_t len = rte_be_to_cpu_16(ip->total_length);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + hlen);
	struct rte_ether_addr mac;
	rte_be32_t a;

	if (ip->next_proto_id != IPPROTO_ICMP || len < hlen + sizeof(*icmp) ||
	    m->data_len < sizeof(*eth) + len || icmp->icmp_type != DPR_ICMP_ECHO_REQUEST ||
	    icmp->icmp_code != 0 || rte_raw_cksum(icmp, len - hlen) != 0xffff ||
	    (rte_be_to_cpu_16(ip->fragment_offset) & (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)))
		return -EINVAL;
	mac = eth->src_addr;
	eth->src_addr = eth->dst_addr;
	eth->dst_addr = mac;
	a = ip->src_addr;
	ip->src_addr = src != 0 ? rte_cpu_to_be_32(src) : ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp->icmp_type = DPR_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, len - hlen);
	return 0;
}
