/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP and ICMP construction: checksums, addresses, the quoted header, and
 * when an ICMP error must not be sent (RFC 792, RFC 826, RFC 1812 4.3).
 */
#include <string.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "exception/packet.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static struct rte_mempool *pool;
static const struct rte_ether_addr mac_r = {{ 0x02, 0, 0, 0, 0x01, 0x01 }};
static const struct rte_ether_addr mac_h = {{ 0x02, 0, 0, 0, 0x01, 0x02 }};
static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};

static struct rte_mbuf *
mk(const struct rte_ether_addr *dst, uint32_t src_ip, uint32_t dst_ip, uint8_t proto,
   uint16_t payload, uint16_t frag)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)
		rte_pktmbuf_append(m, sizeof(*eth) + 20 + payload);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	unsigned int i;

	eth->dst_addr = *dst;
	eth->src_addr = mac_h;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + payload);
	ip->fragment_offset = rte_cpu_to_be_16(frag);
	ip->time_to_live = 1;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src_ip);
	ip->dst_addr = rte_cpu_to_be_32(dst_ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (i = 0; i < payload; i++)
		((uint8_t *)(ip + 1))[i] = (uint8_t)i;
	return m;
}

static void
test_arp(void)
{
	struct dpr_arp a = { .op = RTE_ARP_OP_REQUEST, .sha = mac_r, .sip = IP(10, 0, 1, 1),
			     .tip = IP(10, 0, 1, 2) }, b;
	struct rte_mbuf *m = dpr_arp_build(pool, &a, &bcast);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	CHECK(rte_is_broadcast_ether_addr(&eth->dst_addr), "request to broadcast");
	CHECK(rte_is_same_ether_addr(&eth->src_addr, &mac_r), "from our MAC");
	CHECK_EQ(m->pkt_len, sizeof(*eth) + sizeof(struct rte_arp_hdr));
	CHECK_EQ(dpr_arp_parse(m, &b), 0);
	CHECK(b.op == a.op && b.sip == a.sip && b.tip == a.tip &&
	      rte_is_same_ether_addr(&b.sha, &mac_r), "round trip");
	/* Not Ethernet/IPv4, or a multicast sender: refused. */
	((struct rte_arp_hdr *)(eth + 1))->arp_plen = 16;
	CHECK_EQ(dpr_arp_parse(m, &b), -EINVAL);
	rte_pktmbuf_free(m);
	a.sha = bcast;
	m = dpr_arp_build(pool, &a, &bcast);
	CHECK_EQ(dpr_arp_parse(m, &b), -EINVAL);
	rte_pktmbuf_free(m);
}

static void
test_icmp_error(void)
{
	struct rte_mbuf *orig = mk(&mac_r, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_UDP, 1000, 0);
	struct rte_mbuf *e = dpr_icmp4_error(pool, orig, DPR_ICMP_DEST_UNREACH,
					     DPR_ICMP_UNREACH_FRAG_NEEDED, 1400, IP(10, 0, 1, 1));
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(e, struct rte_ipv4_hdr *, 14);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
	uint32_t len = rte_be_to_cpu_16(ip->total_length);

	CHECK_EQ(len, DPR_ICMP_ERROR_MAX);       /* quoted as much as fits in 576 */
	CHECK_EQ(e->pkt_len, 14 + len);
	CHECK(rte_raw_cksum(ip, 20) == 0xffff, "IP checksum");
	CHECK(rte_raw_cksum(icmp, len - 20) == 0xffff, "ICMP checksum");
	CHECK_EQ(rte_be_to_cpu_32(ip->src_addr), IP(10, 0, 1, 1));
	CHECK_EQ(rte_be_to_cpu_32(ip->dst_addr), IP(10, 0, 1, 2));
	CHECK_EQ(ip->next_proto_id, IPPROTO_ICMP);
	CHECK_EQ(icmp->icmp_type, 3);
	CHECK_EQ(icmp->icmp_code, 4);
	CHECK_EQ(rte_be_to_cpu_16(icmp->icmp_seq_nb), 1400); /* next-hop MTU (RFC 1191) */
	CHECK(memcmp(icmp + 1, rte_pktmbuf_mtod_offset(orig, void *, 14), len - 28) == 0,
	      "the offending datagram is quoted as it arrived");
	rte_pktmbuf_free(e);
	rte_pktmbuf_free(orig);

	/* A small datagram is quoted whole. */
	orig = mk(&mac_r, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_UDP, 8, 0);
	e = dpr_icmp4_error(pool, orig, DPR_ICMP_TIME_EXCEEDED, 0, 0, IP(10, 0, 1, 1));
	ip = rte_pktmbuf_mtod_offset(e, struct rte_ipv4_hdr *, 14);
	CHECK_EQ(rte_be_to_cpu_16(ip->total_length), 20 + 8 + 28);
	CHECK(rte_raw_cksum(ip + 1, 8 + 28) == 0xffff, "ICMP checksum, short quote");
	rte_pktmbuf_free(e);
	rte_pktmbuf_free(orig);
}

static void
test_error_rules(void)
{
	struct {
		struct rte_mbuf *m;
		bool allowed;
		const char *what;
	} c[] = {
		{ mk(&mac_r, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_UDP, 8, 0), true, "UDP" },
		{ mk(&bcast, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_UDP, 8, 0), false, "L2 broadcast" },
		{ mk(&mac_r, IP(10, 0, 1, 2), IP(224, 0, 0, 9), IPPROTO_UDP, 8, 0), false, "multicast" },
		{ mk(&mac_r, IP(0, 0, 0, 0), IP(192, 0, 2, 1), IPPROTO_UDP, 8, 0), false, "from 0.0.0.0" },
		{ mk(&mac_r, IP(127, 0, 0, 1), IP(192, 0, 2, 1), IPPROTO_UDP, 8, 0), false, "from loopback" },
		{ mk(&mac_r, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_UDP, 8, 185), false, "non-first fragment" },
		{ mk(&mac_r, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_ICMP, 8, 0), false, "ICMP error (type 0 payload?)" },
	};
	struct rte_icmp_hdr *icmp;
	unsigned int i;

	/* Make the last one an ICMP error (type 3), then an echo request. */
	icmp = rte_pktmbuf_mtod_offset(c[6].m, struct rte_icmp_hdr *, 34);
	icmp->icmp_type = 3;
	for (i = 0; i < RTE_DIM(c); i++) {
		CHECK(dpr_icmp4_error_allowed(c[i].m) == c[i].allowed, "%s", c[i].what);
		rte_pktmbuf_free(c[i].m);
	}
	c[0].m = mk(&mac_r, IP(10, 0, 1, 2), IP(192, 0, 2, 1), IPPROTO_ICMP, 8, 0);
	rte_pktmbuf_mtod_offset(c[0].m, struct rte_icmp_hdr *, 34)->icmp_type = 8;
	CHECK(dpr_icmp4_error_allowed(c[0].m), "an echo request may draw an error");
	rte_pktmbuf_free(c[0].m);
}

static void
test_echo(void)
{
	struct rte_mbuf *m = mk(&mac_r, IP(10, 0, 1, 2), IP(10, 0, 1, 1), IPPROTO_ICMP, 64, 0);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);

	icmp->icmp_type = 8;
	icmp->icmp_code = 0;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, 64);
	CHECK_EQ(dpr_icmp4_echo_reply(m, 0), 0);
	CHECK_EQ(icmp->icmp_type, 0);
	CHECK(rte_raw_cksum(icmp, 64) == 0xffff, "reply checksum");
	CHECK(rte_raw_cksum(ip, 20) == 0xffff, "IP checksum");
	CHECK_EQ(rte_be_to_cpu_32(ip->src_addr), IP(10, 0, 1, 1));
	CHECK_EQ(rte_be_to_cpu_32(ip->dst_addr), IP(10, 0, 1, 2));
	CHECK(rte_is_same_ether_addr(&eth->dst_addr, &mac_h), "back to the sender's MAC");
	/* A reply is not a request; a bad checksum is not answered. */
	CHECK_EQ(dpr_icmp4_echo_reply(m, 0), -EINVAL);
	icmp->icmp_type = 8;
	CHECK_EQ(dpr_icmp4_echo_reply(m, 0), -EINVAL);
	rte_pktmbuf_free(m);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("test_pool", 256, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	test_arp();
	test_icmp_error();
	test_error_rules();
	test_echo();
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	return test_done("test_packet");
}
