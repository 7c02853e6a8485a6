/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 datapath: header checks, incremental checksum, next-hop rewrite and
 * where each crafted packet of a burst ends up, with its counter.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "acl/acl.h"
#include "config/config.h"
#include "datapath/datapath.h"
#include "datapath/ip4_dp.h"
#include "datapath/qinq_dp.h"
#include "datapath/urpf_dp.h"
#include "datapath/stats.h"
#include "route/route.h"
#include "test.h"
#include "trunk.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"vlans\": [{\"name\": \"p0.100\", \"port\": \"p0\", \"id\": 100,"
	"  \"addresses\": [\"10.0.3.1/24\"]},"
	" {\"name\": \"p0.200\", \"port\": \"p0\", \"id\": 200,"
	"  \"addresses\": [\"10.0.4.1/24\"]}],"
	" \"neighbors\": ["
	" {\"address\": \"10.0.3.2\", \"mac\": \"02:00:00:00:03:02\"},"
	" {\"address\": \"10.0.4.2\", \"mac\": \"02:00:00:00:04:02\"},"
	" {\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\"},"
	" {\"address\": \"10.0.2.2\", \"mac\": \"02:00:00:00:02:02\"}],"
	" \"routes\": ["
	" {\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"},"
	" {\"prefix\": \"203.0.113.0/24\", \"via\": \"10.0.2.3\"}]}";

static const struct rte_ether_addr mac_p0 = {{ 0x02, 0, 0, 0, 0x01, 0x01 }};
static const struct rte_ether_addr mac_p1 = {{ 0x02, 0, 0, 0, 0x02, 0x01 }};
static const struct rte_ether_addr mac_h1 = {{ 0x02, 0, 0, 0, 0x01, 0x02 }};
static const struct rte_ether_addr mac_h2 = {{ 0x02, 0, 0, 0, 0x02, 0x02 }};
static const struct rte_ether_addr mac_other = {{ 0x02, 0, 0, 0, 0x07, 0x07 }};
static const struct rte_ether_addr mac_bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};

static struct rte_mempool *pool;

static struct rte_mbuf *
mk_ip4(const struct rte_ether_addr *dmac, uint32_t src, uint32_t dst, uint8_t ttl,
       uint16_t payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;

	eth = m == NULL ? NULL :
		(struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + payload);
	if (eth == NULL) {
		fprintf(stderr, "test_ip4: mbuf pool exhausted\n");
		abort();
	}
	memset(eth, 0, sizeof(*eth) + sizeof(*ip) + payload);
	eth->dst_addr = *dmac;
	eth->src_addr = mac_h1;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + payload);
	ip->packet_id = rte_cpu_to_be_16(0x1234);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	m->port = 0;
	return m;
}

static struct rte_ipv4_hdr *
ip_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
}

static void
reseal(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = ip_of(m);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* RFC 1624: the incremental update must equal a full recompute, for any header. */
static void
test_ttl_checksum(void)
{
	uint8_t buf[20];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
	unsigned int i, j, mismatches = 0;

	for (i = 0; i < 200000; i++) {
		uint16_t want;

		for (j = 0; j < sizeof(buf); j += 8) {
			uint64_t r = rte_rand();

			memcpy(buf + j, &r, RTE_MIN(8u, sizeof(buf) - j));
		}
		ip->version_ihl = 0x45;
		if (ip->time_to_live == 0)
			ip->time_to_live = 1;
		/* Hit the corner cases of one's complement often. */
		if (i % 4 == 1)
			ip->src_addr = 0;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		dpr_ip4_ttl_dec(ip);
		want = ip->hdr_checksum;
		ip->hdr_checksum = 0;
		if (rte_ipv4_cksum(ip) != want)
			mismatches++;
	}
	CHECK(mismatches == 0, "%u of 200000 incremental checksums differ from a full recompute",
	      mismatches);
}

/* The 20-byte fast path of the checksum check agrees with rte_raw_cksum(). */
static void
test_cksum_check(void)
{
	uint8_t buf[20];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
	unsigned int i, j, disagree = 0, good = 0;

	for (i = 0; i < 200000; i++) {
		for (j = 0; j < sizeof(buf); j += 8) {
			uint64_t r = rte_rand();

			memcpy(buf + j, &r, RTE_MIN(8u, sizeof(buf) - j));
		}
		ip->version_ihl = 0x45; /* rte_ipv4_cksum() sums IHL words */
		if (i % 2 == 0) { /* half of them valid */
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		if (i % 7 == 1) /* one's complement corner: all ones */
			memset(buf, 0xff, sizeof(buf));
		good += dpr_ip4_cksum_ok(ip, 20);
		disagree += dpr_ip4_cksum_ok(ip, 20) != (rte_raw_cksum(ip, 20) == 0xffff);
	}
	CHECK(disagree == 0, "%u of 200000 headers judged differently", disagree);
	CHECK(good >= 90000, "only %u valid", good);
}

static void
test_validate(void)
{
	struct rte_mbuf *m = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(10, 0, 2, 2), 64, 20);
	struct rte_ipv4_hdr *ip = ip_of(m);
	uint32_t avail = m->pkt_len - RTE_ETHER_HDR_LEN;

	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_NONE);
	CHECK_EQ(dpr_ip4_validate(ip, 19, 19, 0), DPR_DROP_RUNT);
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, RTE_MBUF_F_RX_IP_CKSUM_BAD),
		 DPR_DROP_BAD_CHECKSUM);
	ip->hdr_checksum ^= 1;
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_BAD_CHECKSUM);
	/* Trust the NIC when it vouches for the checksum. */
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, RTE_MBUF_F_RX_IP_CKSUM_GOOD),
		 DPR_DROP_NONE);
	ip->version_ihl = 0x65;
	reseal(m);
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_BAD_HEADER);
	ip->version_ihl = 0x44;
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_BAD_HEADER);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(avail + 1);
	reseal(m);
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_BAD_LENGTH);
	ip->total_length = rte_cpu_to_be_16(19);
	reseal(m);
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_BAD_LENGTH);
	ip->version_ihl = 0x4f; /* 60-byte header in a 40-byte packet */
	ip->total_length = rte_cpu_to_be_16(avail);
	CHECK_EQ(dpr_ip4_validate(ip, avail, avail, 0), DPR_DROP_RUNT);
	rte_pktmbuf_free(m);

	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(10, 0, 0, 1)), RTE_BE32(IP(10, 0, 0, 2))),
		 DPR_DROP_NONE);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(127, 0, 0, 1)), RTE_BE32(IP(10, 0, 0, 2))),
		 DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(224, 0, 0, 1)), RTE_BE32(IP(10, 0, 0, 2))),
		 DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(10, 0, 0, 1)), RTE_BE32(IP(0, 1, 2, 3))),
		 DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(10, 0, 0, 1)), RTE_BE32(IP(240, 0, 0, 1))),
		 DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(10, 0, 0, 1)), RTE_BE32(IP(224, 0, 0, 5))), -1);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(10, 0, 0, 1)), RTE_BE32(0xffffffff)), -1);
	/* A host without an address yet: DHCP to the limited broadcast,
	 * IGMPv3 to a link-local group are ours; nothing else from 0.0.0.0
	 * (nor from the rest of 0/8) is. */
	CHECK_EQ(dpr_ip4_check_addrs(0, RTE_BE32(0xffffffff)), -1);
	CHECK_EQ(dpr_ip4_check_addrs(0, RTE_BE32(IP(224, 0, 0, 22))), -1);
	CHECK_EQ(dpr_ip4_check_addrs(0, RTE_BE32(IP(224, 0, 1, 22))), DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(0, RTE_BE32(IP(10, 0, 0, 2))), DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(0, RTE_BE32(IP(10, 0, 0, 255))), DPR_DROP_MARTIAN);
	CHECK_EQ(dpr_ip4_check_addrs(RTE_BE32(IP(0, 0, 0, 1)), RTE_BE32(0xffffffff)),
		 DPR_DROP_MARTIAN);
}

struct rig {
	struct dpr_config *cfg;
	struct dpr_ifaddrs addrs;
	struct dpr_nh_table *nh;
	struct dpr_fib4 *fib;
	struct dpr_port_dp *ports;
	struct dpr_worker *w;
};

static int
rig_init(struct rig *r)
{
	struct dpr_fib4_conf fc = { .max_routes = 1024, .tbl8_groups = 64, .socket = 0 };
	char err[512];

	r->cfg = dpr_config_parse(config_text, "test", err, sizeof(err));
	CHECK(r->cfg != NULL, "%s", err);
	r->nh = dpr_nh_table_create(0);
	r->fib = dpr_fib4_create(&fc, NULL);
	CHECK(r->nh != NULL && r->fib != NULL, "tables");
	if (r->cfg == NULL || r->nh == NULL || r->fib == NULL)
		return -1;
	/* IPv4 only: no IPv6 FIB, so the config's IPv6 routes are skipped. */
	dpr_config_addresses(r->cfg, &r->addrs);
	CHECK_EQ(dpr_route_install_config(&(struct dpr_rib){ .fib4 = r->fib, .nh = r->nh },
					  r->cfg, &r->addrs, err, sizeof(err)), 0);

	r->ports = rte_zmalloc(NULL, sizeof(*r->ports) * 4, 0);
	r->ports[0] = (struct dpr_port_dp){ .mac = mac_p0, .port_id = 0, .mtu = 1500,
					    .rx_ip_cksum = true };
	r->ports[1] = (struct dpr_port_dp){ .mac = mac_p1, .port_id = 1, .mtu = 1500 };
	/* p0.100, VLAN 100 on p0; p0 demultiplexes only in test_vlan(). */
	r->ports[2] = r->ports[0];
	r->ports[2].vlan_tci = 100;
	/* p0.200, VLAN 200 on p0: an exit for p0.100 that is tagged too. */
	r->ports[3] = r->ports[2];
	r->ports[3].vlan_tci = 200;
	dpr_port_in_stages_sync(r->ports, 4, NULL); /* the tags (out_stages) */
	r->w = rte_zmalloc(NULL, sizeof(*r->w), RTE_CACHE_LINE_SIZE);
	r->w->n_ports = 4;
	r->w->ports = r->ports;
	r->w->fib = r->fib;
	r->w->nh = dpr_nh_words(r->nh);
	r->w->port_index[0] = 0;
	r->w->port_index[1] = 1;
	dpr_worker_prepare(r->w);
	r->w->exc_ring = rte_ring_create("test_exc", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	return 0;
}

/* Everything rig_init() made. The only pointers to the tables' malloc
 * memory are in DPDK memory, which LeakSanitizer does not scan: left to
 * exit, they were leaks or not as stale stack slots happened to hold them. */
static void
rig_free(struct rig *r)
{
	if (r->w != NULL)
		rte_ring_free(r->w->exc_ring);
	rte_free(r->w);
	rte_free(r->ports);
	dpr_fib4_free(r->fib);
	dpr_nh_table_free(r->nh);
	dpr_config_free(r->cfg);
}

/*
 * Checksums at the edges of the fast path's early TTL update (as stored:
 * 0xfffe and 0xffff need the end-around carry and take the reference
 * path; 0xffff is the other zero of one's complement) are forwarded with
 * a valid checksum and the TTL one lower.
 */
static void
test_checksum_edges(struct rig *r)
{
	static const uint16_t targets[] = { 0x0000, 0x0001, 0xfffd, 0xfffe, 0xffff };
	struct dpr_worker *w = r->w;
	struct rte_mbuf *pkts[RTE_DIM(targets)];
	unsigned int i, found = 0;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < RTE_DIM(targets); i++) {
		uint16_t want = targets[i] == 0xffff ? 0 : targets[i];
		struct rte_ipv4_hdr *ip;
		uint32_t id;

		pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 32);
		ip = ip_of(pkts[i]);
		for (id = 0; id <= UINT16_MAX; id++) {
			ip->packet_id = (rte_be16_t)id;
			reseal(pkts[i]);
			if (ip->hdr_checksum == want)
				break;
		}
		found += id <= UINT16_MAX;
		ip->hdr_checksum = targets[i];
	}
	CHECK_EQ(found, RTE_DIM(targets));
	dpr_ip4_input_burst(w, 0, pkts, RTE_DIM(pkts));
	CHECK_EQ(w->tx[1].n, RTE_DIM(targets));
	for (i = 0; i < w->tx[1].n; i++) {
		struct rte_ipv4_hdr *ip = ip_of(w->tx[1].pkts[i]);

		CHECK(rte_raw_cksum(ip, sizeof(*ip)) == 0xffff,
		      "stored checksum %#x: header does not sum to 0xffff after the TTL update",
		      targets[i]);
		CHECK_EQ(ip->time_to_live, 63);
	}
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
}

/*
 * Frames shorter than an IPv4 header whose total length matches them and
 * whose checksum is right over the 20 bytes the buffer holds (the rest
 * lies past the frame): the fast path must not take them for packets
 * (reference: runt), nor a frame with a total length under 20 that
 * padding makes look long enough (bad length).
 */
static void
test_short_frames(struct rig *r)
{
	static const uint16_t lens[] = { 0, 1, 6, 19 };
	struct dpr_worker *w = r->w;
	struct rte_mbuf *pkts[2 * RTE_DIM(lens)];
	unsigned int i;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < RTE_DIM(lens); i++) {
		struct rte_mbuf *m = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 0);

		ip_of(m)->total_length = rte_cpu_to_be_16(lens[i]);
		reseal(m);
		rte_pktmbuf_trim(m, (uint16_t)(sizeof(struct rte_ipv4_hdr) - lens[i]));
		pkts[i] = m;
		/* The same header in a frame padded to 60 bytes. */
		m = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 26);
		ip_of(m)->total_length = rte_cpu_to_be_16(lens[i]);
		reseal(m);
		pkts[RTE_DIM(lens) + i] = m;
	}
	dpr_ip4_input_burst(w, 0, pkts, RTE_DIM(pkts));
	CHECK_EQ(w->tx[0].n + w->tx[1].n, 0);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_RUNT], RTE_DIM(lens));
	CHECK_EQ(w->stats[0].drops[DPR_DROP_BAD_LENGTH], RTE_DIM(lens));
	CHECK_EQ(w->stats[0].forwarded, 0);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

static uint64_t
accounted(const struct dpr_port_counters *c)
{
	return c->forwarded + c->exception + dpr_counters_drops(c);
}

static void
test_burst(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct dpr_port_counters *st = &w->stats[0];
	struct rte_mbuf *pkts[32], *m, *exc[32];
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	uint32_t h1 = IP(10, 0, 1, 2);
	unsigned int n = 0, i, q;

	/* 0-1: forwarded to p1, through a gateway and to a connected neighbour */
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(198, 51, 100, 7), 64, 32);
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 2, 32);
	/* 2: frame padded by the link layer: forwarded, padding trimmed */
	pkts[n] = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 0);
	rte_pktmbuf_append(pkts[n], 26);
	n++;
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(198, 51, 100, 7), 1, 32);      /* 3 ttl */
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(192, 0, 2, 1), 64, 32);        /* 4 no route */
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(203, 0, 113, 5), 64, 32);      /* 5 unresolved gw */
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 9), 64, 32);         /* 6 unresolved host */
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(10, 0, 1, 1), 1, 32);          /* 7 local, ttl 1 */
	pkts[n++] = mk_ip4(&mac_other, h1, IP(10, 0, 2, 2), 64, 32);      /* 8 other host */
	pkts[n++] = mk_ip4(&mac_bcast, h1, IP(10, 0, 2, 2), 64, 32);      /* 9 l2 bcast */
	pkts[n++] = mk_ip4(&mac_p0, IP(127, 0, 0, 1), IP(10, 0, 2, 2), 64, 32); /* 10 martian */
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(224, 0, 0, 5), 1, 32);         /* 11 multicast: local */
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 32);                 /* 12 bad checksum */
	ip_of(m)->hdr_checksum ^= 0x0100;
	pkts[n++] = m;
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 32);                 /* 13 options */
	ip_of(m)->version_ihl = 0x46;
	reseal(m);
	pkts[n++] = m;
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 32);                 /* 14 tagged, no VLAN interface */
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_VLAN);
	pkts[n++] = m;
	m = mk_ip4(&mac_bcast, h1, IP(10, 0, 1, 1), 64, 32);              /* 15 ARP */
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	pkts[n++] = m;
	m = rte_pktmbuf_alloc(pool);                                      /* 16 runt */
	memset(rte_pktmbuf_append(m, 10), 0, 10);
	pkts[n++] = m;
	pkts[n++] = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 1600 - 20);  /* 17 > mtu */
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 32);                 /* 18 bad length */
	ip_of(m)->total_length = rte_cpu_to_be_16(100);
	reseal(m);
	pkts[n++] = m;

	dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);

	CHECK_EQ(w->tx[1].n, 3);
	CHECK_EQ(w->tx[0].n, 0);
	CHECK_EQ(st->forwarded, 3);
	for (i = 0; i < w->tx[1].n; i++) {
		m = w->tx[1].pkts[i];
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		ip = ip_of(m);
		CHECK(rte_is_same_ether_addr(&eth->dst_addr, &mac_h2), "dst mac of packet %u", i);
		CHECK(rte_is_same_ether_addr(&eth->src_addr, &mac_p1), "src mac of packet %u", i);
		CHECK(rte_raw_cksum(ip, 20) == 0xffff, "checksum of packet %u after rewrite", i);
	}
	CHECK_EQ(ip_of(w->tx[1].pkts[0])->time_to_live, 63);
	CHECK_EQ(ip_of(w->tx[1].pkts[1])->time_to_live, 1);
	CHECK_EQ(w->tx[1].pkts[2]->pkt_len, RTE_ETHER_HDR_LEN + 20);

	CHECK_EQ(st->exc[DPR_EXC_TTL_EXPIRED], 1);
	CHECK_EQ(st->exc[DPR_EXC_NO_ROUTE], 1);
	CHECK_EQ(st->exc[DPR_EXC_UNRESOLVED], 2);
	CHECK_EQ(st->exc[DPR_EXC_MTU_EXCEEDED], 1);
	CHECK_EQ(st->drops[DPR_DROP_OTHER_HOST], 2);
	CHECK_EQ(st->drops[DPR_DROP_MARTIAN], 1);
	CHECK_EQ(st->drops[DPR_DROP_BAD_CHECKSUM], 1);
	CHECK_EQ(st->drops[DPR_DROP_UNKNOWN_VLAN], 1);
	CHECK_EQ(st->drops[DPR_DROP_RUNT], 1);
	CHECK_EQ(st->drops[DPR_DROP_BAD_LENGTH], 1);
	CHECK_EQ(st->exc[DPR_EXC_LOCAL], 2);
	CHECK_EQ(st->exc[DPR_EXC_ARP], 1);
	CHECK_EQ(st->exc[DPR_EXC_IP_OPTIONS], 1);
	CHECK_EQ(st->exception, 9);
	CHECK_EQ(accounted(st), n);

	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
	CHECK_EQ(q, 9);
	for (i = 0; i < q; i++) {
		uint32_t cls = DPR_EXC_META_CLASS(exc[i]->hash.usr);

		CHECK_EQ(DPR_EXC_META_PORT(exc[i]->hash.usr), 0);
		/* The worker leaves what it diverts untouched: the control
		 * thread quotes it in ICMP errors as it arrived. */
		if (cls == DPR_EXC_TTL_EXPIRED || cls == DPR_EXC_NO_ROUTE)
			CHECK(rte_raw_cksum(ip_of(exc[i]), 20) == 0xffff, "untouched header");
		if (cls == DPR_EXC_MTU_EXCEEDED)
			CHECK_EQ(DPR_EXC_ARG(exc[i]), 1); /* the output port */
	}
	rte_pktmbuf_free_bulk(exc, q);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/* A non-IP frame to @p dmac: EtherType (or 802.3 length) @p type, then
 * @p head (@p hlen bytes, an LLC header), padded to 60 bytes. */
static struct rte_mbuf *
mk_l2(const struct rte_ether_addr *dmac, uint16_t type, const uint8_t *head, uint16_t hlen)
{
	struct rte_mbuf *m = mk_ip4(dmac, 0, 0, 64, 26);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	eth->ether_type = rte_cpu_to_be_16(type);
	memset(eth + 1, 0, 46);
	memcpy(eth + 1, head, hlen);
	return m;
}

/*
 * Link-layer control protocols (dpr_l2_control()): LLDP and IS-IS to the
 * port's MAC or to their groups go to the exception path as l2_control,
 * unchanged; the same protocols to another group, other LLC users (STP),
 * LACP (not handed over yet) and unknown EtherTypes stay unsupported_l3.
 */
static void
test_l2_control(struct rig *r)
{
	static const struct rte_ether_addr lldp_nb = {{ 0x01, 0x80, 0xc2, 0, 0, 0x0e }};
	static const struct rte_ether_addr lldp_tpmr = {{ 0x01, 0x80, 0xc2, 0, 0, 0x03 }};
	static const struct rte_ether_addr bridges = {{ 0x01, 0x80, 0xc2, 0, 0, 0x00 }};
	static const struct rte_ether_addr slow = {{ 0x01, 0x80, 0xc2, 0, 0, 0x02 }};
	static const struct rte_ether_addr l1is = {{ 0x01, 0x80, 0xc2, 0, 0, 0x14 }};
	static const struct rte_ether_addr l2is = {{ 0x01, 0x80, 0xc2, 0, 0, 0x15 }};
	static const struct rte_ether_addr allis = {{ 0x09, 0x00, 0x2b, 0, 0, 0x05 }};
	static const struct rte_ether_addr alles = {{ 0x09, 0x00, 0x2b, 0, 0, 0x04 }};
	static const uint8_t isis[] = { 0xfe, 0xfe, 0x03, 0x83 }, stp[] = { 0x42, 0x42, 0x03 };
	static const uint8_t lldp[] = { 0x02, 0x07, 0x04 };
	struct dpr_worker *w = r->w;
	struct dpr_port_counters *st = &w->stats[0];
	struct rte_mbuf *pkts[32], *exc[32], *m;
	unsigned int n = 0, n_ctl, q, i;

	memset(w->stats, 0, sizeof(w->stats));
	/* 0-8: handed over */
	pkts[n++] = mk_l2(&lldp_nb, RTE_ETHER_TYPE_LLDP, lldp, sizeof(lldp));
	pkts[n++] = mk_l2(&lldp_tpmr, RTE_ETHER_TYPE_LLDP, lldp, sizeof(lldp));
	pkts[n++] = mk_l2(&bridges, RTE_ETHER_TYPE_LLDP, lldp, sizeof(lldp));
	pkts[n++] = mk_l2(&mac_p0, RTE_ETHER_TYPE_LLDP, lldp, sizeof(lldp));
	pkts[n++] = mk_l2(&l1is, 46, isis, sizeof(isis));
	pkts[n++] = mk_l2(&l2is, 1500, isis, sizeof(isis));
	pkts[n++] = mk_l2(&allis, 46, isis, sizeof(isis));
	pkts[n++] = mk_l2(&alles, 46, isis, sizeof(isis));
	pkts[n++] = mk_l2(&mac_p0, 46, isis, sizeof(isis));
	n_ctl = n;
	/* 9-15: unsupported_l3 */
	pkts[n++] = mk_l2(&l1is, RTE_ETHER_TYPE_LLDP, lldp, sizeof(lldp)); /* LLDP, IS-IS group */
	pkts[n++] = mk_l2(&lldp_nb, 46, isis, sizeof(isis));       /* IS-IS, LLDP group */
	pkts[n++] = mk_l2(&l1is, 0x0600, isis, sizeof(isis));      /* an EtherType, not a length */
	pkts[n++] = mk_l2(&bridges, 38, stp, sizeof(stp));         /* STP BPDU */
	pkts[n++] = mk_l2(&slow, RTE_ETHER_TYPE_SLOW, lldp, 1);    /* LACP */
	pkts[n++] = mk_l2(&mac_p0, 0x88b5, lldp, sizeof(lldp));    /* IEEE 802 local experimental */
	m = mk_l2(&l1is, 46, isis, sizeof(isis));                 /* LLC header cut short */
	rte_pktmbuf_trim(m, (uint16_t)(m->data_len - RTE_ETHER_HDR_LEN - 2));
	pkts[n++] = m;
	/* 16: LLDP to another host */
	pkts[n++] = mk_l2(&mac_other, RTE_ETHER_TYPE_LLDP, lldp, sizeof(lldp));

	dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);

	CHECK_EQ(st->exc[DPR_EXC_L2_CONTROL], n_ctl);
	CHECK_EQ(st->exception, n_ctl);
	CHECK_EQ(st->drops[DPR_DROP_UNSUPPORTED_L3], n - n_ctl - 1);
	CHECK_EQ(st->drops[DPR_DROP_OTHER_HOST], 1);
	CHECK_EQ(st->forwarded, 0);
	CHECK_EQ(accounted(st), n);
	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
	CHECK_EQ(q, n_ctl);
	for (i = 0; i < q; i++) {
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(exc[i], struct rte_ether_hdr *);

		CHECK_EQ(DPR_EXC_META_CLASS(exc[i]->hash.usr), DPR_EXC_L2_CONTROL);
		CHECK_EQ(DPR_EXC_META_PORT(exc[i]->hash.usr), 0);
		/* Untouched: the daemon on the TAP reads the frame as sent. */
		CHECK(exc[i]->pkt_len == 60 && rte_is_same_ether_addr(&eth->src_addr, &mac_h1),
		      "frame %u handed over as it came", i);
	}
	rte_pktmbuf_free_bulk(exc, q);
}

/*
 * Hairpinning: packets that leave through the port they came in on. With
 * the port's redirects on, the worker hands one to the control thread as
 * class redirect (which sends the redirect and forwards it), as it came in
 * (TTL and checksum restored), counted as an exception; the rest of the
 * burst within redirect_gap TSC cycles is forwarded. With redirects off,
 * all are forwarded. Either way rx == forwarded + exception + drops.
 */
static void
test_hairpin(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct dpr_port_counters *st = &w->stats[0];
	struct rte_mbuf *pkts[4], *exc[8];
	uint64_t gap = w->redirect_gap;
	unsigned int i, q, round;

	for (round = 0; round < 3; round++) {
		/* 0: redirects on, one divert a burst; 1: on, every packet
		 * (no gap); 2: off. */
		r->ports[0].redirects = round < 2;
		w->redirect_gap = round == 0 ? UINT64_MAX / 2 : 0;
		/* The last divert long ago (modulo 2^64): the first is due. */
		memset(w->redirect_tsc, 0, sizeof(w->redirect_tsc));
		w->redirect_tsc[0] = rte_rdtsc() - UINT64_MAX / 2 - 1;
		memset(w->stats, 0, sizeof(w->stats));
		for (i = 0; i < 3; i++)
			pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 9), IP(10, 0, 1, 2), 64, 32);
		pkts[3] = mk_ip4(&mac_p0, IP(10, 0, 1, 9), IP(198, 51, 100, 7), 64, 32);
		dpr_ip4_input_burst(w, 0, pkts, 4);
		q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
		CHECK_EQ(q, round == 0 ? 1u : round == 1 ? 3u : 0u);
		CHECK_EQ(st->exc[DPR_EXC_REDIRECT], q);
		CHECK_EQ(w->tx[0].n, 3 - q);
		CHECK_EQ(w->tx[1].n, 1);
		CHECK_EQ(st->forwarded, 4 - q);
		CHECK_EQ(accounted(st), 4);
		for (i = 0; i < q; i++) {
			CHECK_EQ(DPR_EXC_META_CLASS(exc[i]->hash.usr), DPR_EXC_REDIRECT);
			CHECK_EQ(DPR_EXC_META_PORT(exc[i]->hash.usr), 0);
			CHECK(ip_of(exc[i])->time_to_live == 64 &&
			      rte_raw_cksum(ip_of(exc[i]), 20) == 0xffff,
			      "round %u: diverted as it came in (TTL 64, checksum valid)", round);
		}
		for (i = 0; i < w->tx[0].n; i++)
			CHECK(ip_of(w->tx[0].pkts[i])->time_to_live == 63 &&
			      rte_is_same_ether_addr(&rte_pktmbuf_mtod(w->tx[0].pkts[i],
						     struct rte_ether_hdr *)->dst_addr, &mac_h1),
			      "round %u: the others forwarded back out of p0 to 10.0.1.2", round);
		rte_pktmbuf_free_bulk(exc, q);
		rte_pktmbuf_free_bulk(w->tx[0].pkts, w->tx[0].n);
		rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
		w->tx[0].n = w->tx[1].n = 0;
	}
	r->ports[0].redirects = false;
	w->redirect_gap = gap;
	memset(w->stats, 0, sizeof(w->stats));
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/* A full exception ring is a counted drop. */
static void
test_exception_full(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct rte_mbuf *pkts[32];
	unsigned int i, free_slots = rte_ring_free_count(w->exc_ring);

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < free_slots + 5; i += 32) {
		unsigned int j, n = RTE_MIN(32u, free_slots + 5 - i);

		for (j = 0; j < n; j++)
			pkts[j] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(10, 0, 1, 1), 64, 8);
		dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);
	}
	CHECK_EQ(w->stats[0].exception, free_slots);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_EXCEPTION_FULL], 5);
	while ((i = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)pkts, 32, NULL)) > 0)
		rte_pktmbuf_free_bulk(pkts, i);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * What the worker settles before anything goes the slow way: a frame sent
 * as link-layer broadcast or multicast is not forwarded even with IP
 * options (RFC 1812 5.3.4); link-layer bytes past the IP packet are cut
 * before the options exit and from chains too (RFC 1812 5.2.2: the frame
 * that leaves is the packet); a connected subnet's broadcast address is no
 * source to forward from (RFC 1812 5.3.7), by the fast path or the reference.
 */
static void
test_rfc1812_screen(struct rig *r)
{
	static const struct rte_ether_addr mac_mcast = {{ 0x01, 0, 0x5e, 0, 0, 5 }};
	struct dpr_worker *w = r->w;
	struct dpr_port_counters *st = &w->stats[0];
	struct rte_mbuf *pkts[10], *m, *seg, *exc[8];
	uint32_t h1 = IP(10, 0, 1, 2);
	unsigned int n = 0, q, i;

	memset(w->stats, 0, sizeof(w->stats));
	/* 0-1: options, to a forwardable destination, as L2 broadcast/multicast */
	m = mk_ip4(&mac_bcast, h1, IP(10, 0, 2, 2), 64, 32);
	ip_of(m)->version_ihl = 0x46;
	reseal(m);
	pkts[n++] = m;
	m = mk_ip4(&mac_mcast, h1, IP(198, 51, 100, 7), 64, 32);
	ip_of(m)->version_ihl = 0x46;
	reseal(m);
	pkts[n++] = m;
	/* 2: options and 40 bytes after the packet: diverted, cut */
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 32);
	ip_of(m)->version_ihl = 0x46;
	reseal(m);
	memset(rte_pktmbuf_append(m, 40), 0xee, 40);
	pkts[n++] = m;
	/* 3: a chain whose trailer is longer than its last segment */
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 66);
	ip_of(m)->total_length = rte_cpu_to_be_16(20 + 50);
	reseal(m);
	seg = rte_pktmbuf_alloc(pool);
	memset(rte_pktmbuf_append(seg, 30), 0xee, 30);
	CHECK_EQ(rte_pktmbuf_chain(m, seg), 0);
	pkts[n++] = m;
	/* 4-5: from the broadcast address of a connected subnet */
	pkts[n++] = mk_ip4(&mac_p0, IP(10, 0, 1, 255), IP(10, 0, 2, 2), 64, 32);
	m = mk_ip4(&mac_p0, IP(10, 0, 2, 255), IP(10, 0, 2, 2), 64, 32);
	ip_of(m)->version_ihl = 0x46;
	reseal(m);
	pkts[n++] = m;
	/* 6: a source ending in .255 that is no broadcast: forwarded */
	pkts[n++] = mk_ip4(&mac_p0, IP(172, 16, 1, 255), IP(10, 0, 2, 2), 64, 32);
	/* 7: a DHCP discover (RFC 2131 4.1), for the host stack; 8: from
	 * 0.0.0.0 to a host, never forwarded (RFC 1812 5.3.7) */
	pkts[n++] = mk_ip4(&mac_bcast, 0, 0xffffffff, 64, 32);
	pkts[n++] = mk_ip4(&mac_p0, 0, IP(10, 0, 2, 2), 64, 32);

	dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);

	CHECK_EQ(st->drops[DPR_DROP_OTHER_HOST], 2);
	CHECK_EQ(st->drops[DPR_DROP_MARTIAN], 3);
	CHECK_EQ(st->exc[DPR_EXC_IP_OPTIONS], 1);
	CHECK_EQ(st->exc[DPR_EXC_LOCAL], 1);
	CHECK_EQ(st->forwarded, 2);
	CHECK_EQ(accounted(st), n);
	CHECK_EQ(w->tx[1].n, 2);
	m = w->tx[1].pkts[0];
	CHECK(m->pkt_len == RTE_ETHER_HDR_LEN + 70 && m->data_len == RTE_ETHER_HDR_LEN + 70 &&
	      m->nb_segs == 1, "the chain is cut to its packet (%u bytes, %u segments)",
	      m->pkt_len, m->nb_segs);
	CHECK(ip_of(w->tx[1].pkts[1])->src_addr == RTE_BE32(IP(172, 16, 1, 255)),
	      "a .255 source that is no broadcast is forwarded");
	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
	CHECK_EQ(q, 2);
	for (i = 0; i < q; i++)
		CHECK(DPR_EXC_META_CLASS(exc[i]->hash.usr) != DPR_EXC_IP_OPTIONS ||
		      exc[i]->pkt_len == RTE_ETHER_HDR_LEN + 52,
		      "the packet with options goes to the slow path without its trailer (%u)",
		      exc[i]->pkt_len);
	rte_pktmbuf_free_bulk(exc, q);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * RFC 3927 7: a router MUST NOT forward a packet with an IPv4 link-local
 * (169.254/16) source or destination, whatever its routes say; the
 * router's own 169.254 address still takes its packets, and the rest of
 * 169/8 is forwarded as any address.
 */
static void
test_link_local4(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct dpr_port_counters *st = &w->stats[0];
	struct rte_mbuf *pkts[4], *exc[4];
	uint32_t nh = dpr_fib4_lookup(r->fib, IP(198, 51, 100, 1));
	struct dpr_fib4_op op = { .ip = IP(169, 254, 0, 0), .depth = 16, .nh = nh };
	unsigned int n = 0, q;
	int err = 0;

	dpr_nh_hold(r->nh, nh);
	CHECK_EQ(dpr_fib4_update(r->fib, &op, 1, &err), 1);
	memset(w->stats, 0, sizeof(w->stats));
	pkts[n++] = mk_ip4(&mac_p0, IP(169, 254, 1, 1), IP(10, 0, 2, 2), 64, 32);
	pkts[n++] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(169, 254, 7, 7), 64, 32);
	pkts[n++] = mk_ip4(&mac_p0, IP(169, 254, 1, 1), IP(10, 0, 1, 1), 64, 32);
	pkts[n++] = mk_ip4(&mac_p0, IP(169, 1, 2, 3), IP(10, 0, 2, 2), 64, 32);
	dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);
	CHECK_EQ(st->drops[DPR_DROP_MARTIAN], 2);
	CHECK_EQ(st->exc[DPR_EXC_LOCAL], 1);
	CHECK_EQ(st->forwarded, 1);
	CHECK_EQ(accounted(st), n);
	CHECK_EQ(w->tx[1].n, 1);
	CHECK(w->tx[1].n == 1 && ip_of(w->tx[1].pkts[0])->src_addr == RTE_BE32(IP(169, 1, 2, 3)),
	      "169/8 outside 169.254/16 is forwarded");
	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
	CHECK_EQ(q, 1);
	rte_pktmbuf_free_bulk(exc, q);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	op.del = 1;
	CHECK_EQ(dpr_fib4_update(r->fib, &op, 1, &err), 1);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/*
 * When the counting identity holds: a burst screened and waiting for its
 * pass 3 (pipelined, across the worker's quiescent report) is in rx and not
 * yet forwarded; once no burst waits, every packet is accounted for.
 */
static void
test_identity_waiting(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct dpr_port_counters *st = &w->stats[0];
	struct dpr_ip4_pending pend;
	unsigned int i;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < 8; i++)
		pend.pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 7), 64, 8);
	st->rx += 8; /* as the worker counts them, at RX */
	dpr_ip4_pipeline(w, 0, 8, &pend, NULL);
	CHECK(accounted(st) < st->rx, "a waiting burst is not settled yet (%llu of %llu)",
	      (unsigned long long)accounted(st), (unsigned long long)st->rx);
	dpr_ip4_finish_burst(w, &pend);
	CHECK_EQ(accounted(st), st->rx);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
}

/* Ethdev @p pid (or a failed creation's -1, checked as @p what) set up on
 * one queue each way and started. @return @p pid. */
static int
ring_start(int pid, const char *what)
{
	struct rte_eth_conf conf = { 0 };

	CHECK(pid >= 0, "%s", what);
	if (pid < 0)
		return -1;
	rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf);
	rte_eth_rx_queue_setup((uint16_t)pid, 0, 64, 0, NULL, pool);
	rte_eth_tx_queue_setup((uint16_t)pid, 0, 64, 0, NULL);
	rte_eth_dev_start((uint16_t)pid);
	return pid;
}

/* A started ethdev that sends into @p txr, or -1 (a failed check). */
static int
ring_port(struct rte_ring *txr)
{
	return ring_start(rte_eth_from_ring(txr), "ring port");
}

static struct rte_mbuf *tag(struct rte_mbuf *m, uint16_t vid);

/* A started ethdev that receives from @p rx and sends into @p tx, or -1. */
static int
ring_port2(const char *name, struct rte_ring *rx, struct rte_ring *tx)
{
	return ring_start(rte_eth_from_rings(name, &rx, 1, &tx, 1, 0), name);
}

/*
 * The worker loop (dpr_worker_main()), pipelined, polling p1 and trunk p0:
 * a burst of p1 waits for the next poll; p0's bursts all go to its VLAN
 * interfaces (VLANs 100 and 200 in turn), so that nothing of them is left
 * to forward as p0's. The waiting burst must go at that poll, not wait for
 * as long as the trunk's bursts come: its packet leaves after the trunk's
 * first burst, before the second.
 */
static void
test_worker_waiting(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct rte_ring *rx0 = rte_ring_create("test_ww_rx0", 128, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_ring *tx0 = rte_ring_create("test_ww_tx0", 128, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_ring *rx1 = rte_ring_create("test_ww_rx1", 128, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_ring *tx1 = rte_ring_create("test_ww_tx1", 128, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct rte_rcu_qsbr *qs = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	const struct dpr_port_dp saved[4] = { r->ports[0], r->ports[1], r->ports[2], r->ports[3] };
	const uint16_t trunk = 2 * DPR_BURST;
	struct rte_mbuf *m, *out[128];
	volatile bool quit = false;
	int p0, p1, at = -1;
	unsigned int i, n;

	if (rx0 == NULL || tx0 == NULL || rx1 == NULL || tx1 == NULL || map == NULL || qs == NULL ||
	    rte_rcu_qsbr_init(qs, 1) != 0) {
		CHECK(0, "alloc");
		return;
	}
	p0 = ring_port2("test_ww_p0", rx0, tx0);
	p1 = ring_port2("test_ww_p1", rx1, tx1);
	if (p0 < 0 || p1 < 0)
		return;
	map[100] = 3;
	map[200] = 4;
	r->ports[0].port_id = (uint16_t)p0;
	r->ports[0].vlan_if = map;
	r->ports[2].port_id = (uint16_t)p0;
	r->ports[3].port_id = (uint16_t)p0;
	r->ports[1].port_id = (uint16_t)p1;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	w->port_index[p0] = 0;
	w->port_index[p1] = 1;
	w->rxq[0] = (struct dpr_rxq){ .port = 1, .queue = 0 };
	w->rxq[1] = (struct dpr_rxq){ .port = 0, .queue = 0 };
	w->n_rxq = 2;
	w->qsbr = qs;
	w->quit = &quit;
	w->pipeline = DPR_PIPELINE_ON;
	dpr_tune_init(&w->tune, true);
	memset(w->stats, 0, sizeof(w->stats));

	/* p1: one packet, back out of p1 (redirects off). */
	m = mk_ip4(&mac_p1, IP(10, 0, 2, 5), IP(198, 51, 100, 99), 64, 8);
	CHECK_EQ(rte_ring_enqueue(rx1, m), 0);
	/* p0: two bursts, VLAN 100 and 200 in turn. */
	for (i = 0; i < trunk; i++) {
		m = tag(mk_ip4(&mac_p0, i % 2 ? IP(10, 0, 4, 2) : IP(10, 0, 3, 2),
			       IP(198, 51, 100, 1 + i % 50), 64, 8), i % 2 ? 200 : 100);
		CHECK_EQ(rte_ring_enqueue(rx0, m), 0);
	}
	w->max_rx = 1 + trunk;
	w->rx_total = 0;
	dpr_worker_main(w);

	n = rte_ring_sc_dequeue_burst(tx1, (void **)out, RTE_DIM(out), NULL);
	CHECK_EQ(n, 1u + trunk);
	for (i = 0; i < n; i++)
		if (rte_pktmbuf_mtod_offset(out[i], const uint8_t *, RTE_ETHER_HDR_LEN + 19)[0] == 99)
			at = (int)i;
	CHECK(at >= 0 && at <= DPR_BURST,
	      "p1's packet left after the trunk's first burst (%d packets before it), not after its last",
	      at);
	CHECK(w->stats[1].rx == 1 && w->stats[1].forwarded == 1, "p1: received and forwarded 1");
	CHECK_EQ(w->stats[2].forwarded + w->stats[3].forwarded, trunk);
	rte_pktmbuf_free_bulk(out, n);

	w->max_rx = 0;
	w->n_rxq = 0;
	w->qsbr = NULL;
	w->quit = NULL;
	w->pipeline = DPR_PIPELINE_AUTO;
	dpr_tune_init(&w->tune, false);
	w->done = false;
	for (i = 0; i < 4; i++)
		r->ports[i] = saved[i];
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	memset(w->stats, 0, sizeof(w->stats));
	rte_free(map);
	rte_free(qs);
}

/* A TX queue that takes only part of a burst: the rest are tx_full drops,
 * charged to the input port, and the counters still add up. */
static void
test_tx_full(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct rte_ring *txr = rte_ring_create("test_txr", 4, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_mbuf *pkts[8];
	unsigned int i;
	int pid;

	pid = ring_port(txr);
	if (pid < 0)
		return;
	r->ports[1].port_id = (uint16_t)pid;
	w->port_index[pid] = 1;

	memset(w->stats, 0, sizeof(w->stats));
	/* As net_ring delivers them: no input port in the mbuf. */
	for (i = 0; i < RTE_DIM(pkts); i++) {
		pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 1), 64, 8);
		pkts[i]->port = RTE_MBUF_PORT_INVALID;
	}
	dpr_ip4_input_burst(w, 0, pkts, RTE_DIM(pkts));
	dpr_tx_flush(w, 1);
	CHECK_EQ(w->stats[1].tx, rte_ring_get_capacity(txr));
	CHECK_EQ(w->stats[0].forwarded, rte_ring_get_capacity(txr));
	CHECK_EQ(w->stats[0].drops[DPR_DROP_TX_FULL], RTE_DIM(pkts) - rte_ring_get_capacity(txr));
	CHECK_EQ(accounted(&w->stats[0]), RTE_DIM(pkts));
	while (rte_ring_sc_dequeue_burst(txr, (void **)pkts, 8, NULL) > 0)
		rte_pktmbuf_free_bulk(pkts, rte_ring_get_capacity(txr));
}

/*
 * An output ACL on p1, run as the worker flushes p1's TX buffer
 * (dpr_tx_flush()): what it denies or rejects had been counted as
 * forwarded on the interface it came in on (p0, or p0.100 for a frame
 * received there); each is taken back there and counted drops.acl, so that
 * rx == forwarded + exception + drops holds on each, forwarded equals what
 * left p1, and each reject reaches the exception ring for its ICMP error.
 */
static void
test_out_acl(struct rig *r)
{
	static const char rules[] =
		"{\"name\": \"o\", \"rules\": ["
		" {\"action\": \"deny\", \"dst\": \"198.51.100.7/32\"},"
		" {\"action\": \"reject\", \"dst\": \"198.51.100.8/32\"}]}";
	static const uint32_t dst[] = { 1, 7, 8, 1, 7, 8, 2 };
	struct dpr_worker *w = r->w;
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct rte_ring *txr = rte_ring_create("test_oacl_txr", 64, 0,
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
	const struct dpr_acl_binds *saved = w->acl;
	uint16_t saved_pid = r->ports[1].port_id;
	struct rte_mbuf *pkts[RTE_DIM(dst)], *vif[2], *got[16];
	struct dpr_acl_list l;
	json_t *j = json_loads(rules, 0, NULL);
	unsigned int i, n;
	char err[256] = "";
	int pid;

	pid = txr != NULL ? ring_port(txr) : -1;
	CHECK(db != NULL && j != NULL && pid >= 0 &&
	      dpr_acl_list_parse(j, "o", NULL, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "o", 1, DPR_ACL_OUT, err, sizeof(err)) == 0, "ACL o on p1: %s", err);
	json_decref(j);
	if (db == NULL || pid < 0)
		return;
	r->ports[1].port_id = (uint16_t)pid;
	w->port_index[pid] = 1;
	w->acl = dpr_acl_db_binds(db);
	dpr_port_in_stages_sync(r->ports, 4, w->acl);
	memset(w->stats, 0, sizeof(w->stats));

	for (i = 0; i < RTE_DIM(dst); i++)
		pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, dst[i]), 64, 8);
	/* p0.100's, untagged by the demux: marked as its by the screen. */
	vif[0] = mk_ip4(&mac_p0, IP(10, 0, 3, 2), IP(198, 51, 100, 1), 64, 8);
	vif[1] = mk_ip4(&mac_p0, IP(10, 0, 3, 2), IP(198, 51, 100, 7), 64, 8);
	/* As the worker counts them, at RX. */
	w->stats[0].rx += RTE_DIM(pkts);
	w->stats[2].rx += RTE_DIM(vif);
	dpr_ip4_input_burst(w, 0, pkts, RTE_DIM(pkts));
	dpr_ip4_input_burst(w, 2, vif, RTE_DIM(vif));
	CHECK_EQ(w->stats[0].forwarded + w->stats[2].forwarded, RTE_DIM(pkts) + RTE_DIM(vif));
	dpr_tx_flush(w, 1);

	n = rte_ring_sc_dequeue_burst(txr, (void **)got, RTE_DIM(got), NULL);
	CHECK_EQ(n, 4);
	CHECK_EQ(w->stats[1].tx, 4);
	rte_pktmbuf_free_bulk(got, n);
	CHECK_EQ(w->stats[0].forwarded, 3);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_ACL], 4);
	CHECK_EQ(accounted(&w->stats[0]), w->stats[0].rx);
	CHECK_EQ(w->stats[2].forwarded, 1);
	CHECK_EQ(w->stats[2].drops[DPR_DROP_ACL], 1);
	CHECK_EQ(accounted(&w->stats[2]), w->stats[2].rx);
	CHECK_EQ(accounted(&w->stats[1]), 0);
	CHECK_EQ(w->stats[1].tx_refused, 0);
	n = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)got, RTE_DIM(got), NULL);
	CHECK_EQ(n, 2);
	for (i = 0; i < n; i++)
		CHECK(DPR_EXC_META_CLASS(got[i]->hash.usr) == DPR_ACL_EXC_REJECT &&
		      DPR_EXC_META_PORT(got[i]->hash.usr) == 0,
		      "reject %u: to the control thread, as p0's", i);
	rte_pktmbuf_free_bulk(got, n);

	dpr_acl_bind(db, NULL, 1, DPR_ACL_OUT, err, sizeof(err));
	w->acl = saved;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	r->ports[1].port_id = saved_pid;
	w->port_index[pid] = 0;
	dpr_acl_db_free(db);
	memset(w->stats, 0, sizeof(w->stats));
}

/* @p m with an 802.1Q tag of VLAN @p vid in its data. */
static struct rte_mbuf *
tag(struct rte_mbuf *m, uint16_t vid)
{
	m->vlan_tci = vid;
	CHECK_EQ(rte_vlan_insert(&m), 0);
	return m;
}

/* The VLAN id in @p m's data, or -1 when it is untagged. */
static int
vid_of(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		return -1;
	return rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(eth + 1))->vlan_tci) & 0xfff;
}

/*
 * VLAN interfaces: a burst on p0, which has p0.100 (dpr port 2), splits by
 * tag (dpr_vlan_demux_burst()): VLAN 100, in the data or taken off by the
 * PMD (vlan_tci), is p0.100's, untagged and counted there; untagged and
 * priority-tagged frames stay p0's, and so do tags for no interface, which
 * the screen drops as unknown_vlan. What leaves through p0.100 is tagged
 * 100 and goes out on p0's DPDK port; what it refuses is charged to the
 * interface it came in on.
 */
static void
test_vlan(struct rig *r)
{
	struct dpr_worker *w = r->w;
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct rte_ring *txr = rte_ring_create("test_vlan_txr", 2, 0,
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
	const uint32_t h1 = IP(10, 0, 1, 2), h2 = IP(10, 0, 2, 2), v2 = IP(10, 0, 3, 2);
	struct rte_mbuf *pkts[9], *m, *a, *d, *e, *f, *out[4];
	const struct rte_ether_hdr *eth;
	uint16_t n, k = 0, saved_pid = r->ports[2].port_id;
	unsigned int i;
	int pid;

	memset(w->stats, 0, sizeof(w->stats));
	map[100] = 3;
	r->ports[0].vlan_if = map;
	pkts[k++] = a = mk_ip4(&mac_p0, h1, h2, 64, 8);             /* untagged: p0 */
	pkts[k++] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);       /* p0.100 */
	m = mk_ip4(&mac_p0, v2, h2, 64, 8);                         /* p0.100, tag taken off */
	m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	m->vlan_tci = 100;
	pkts[k++] = m;
	pkts[k++] = d = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 300);   /* unknown VLAN */
	pkts[k++] = e = tag(mk_ip4(&mac_p0, h1, h2, 64, 8), 0);     /* priority: p0 */
	f = mk_ip4(&mac_p0, v2, h2, 64, 8);                         /* unknown, taken off */
	f->ol_flags |= RTE_MBUF_F_RX_VLAN_STRIPPED;
	f->vlan_tci = 300;
	pkts[k++] = f;
	pkts[k++] = tag(mk_ip4(&mac_p0, v2, h1, 64, 8), 100);       /* p0.100 -> p0 */
	pkts[k++] = mk_ip4(&mac_p0, h1, v2, 64, 8);                 /* p0 -> p0.100 */
	pkts[k++] = tag(mk_ip4(&mac_p0, h1, h2, 64, 8), 0xa064);    /* PCP 5, VLAN 100 */

	n = dpr_vlan_demux_burst(w, 0, pkts, k);
	CHECK_EQ(n, 5);
	CHECK(pkts[0] == a && pkts[1] == d && pkts[2] == e && pkts[3] == f,
	      "p0 keeps its own frames in order");
	CHECK_EQ(vid_of(f), 300);
	CHECK_EQ(w->stats[2].rx, 4);
	CHECK_EQ(w->stats[2].forwarded, 4);
	w->stats[0].rx += n;
	dpr_ip4_input_burst(w, 0, pkts, n);
	CHECK_EQ(w->stats[0].forwarded, 3);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_UNKNOWN_VLAN], 2);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_UNSUPPORTED_L3], 0);
	CHECK_EQ(accounted(&w->stats[0]), 5);
	CHECK_EQ(accounted(&w->stats[2]), 4);
	/* To h2: p0.100's three (the last with priority bits), then p0's
	 * two, all untagged now. */
	CHECK_EQ(w->tx[1].n, 5);
	for (i = 0; i < w->tx[1].n; i++) {
		m = w->tx[1].pkts[i];
		eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		CHECK(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
		      rte_is_same_ether_addr(&eth->dst_addr, &mac_h2) &&
		      m->pkt_len == RTE_ETHER_HDR_LEN + 28 &&
		      !(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED),
		      "packet %u to h2 untagged, of its length", i);
	}
	CHECK(w->tx[1].pkts[4] == e, "the priority-tagged frame forwarded as p0's");
	CHECK_EQ(w->tx[0].n, 1);
	CHECK_EQ(w->tx[2].n, 1);

	/* Out of p0.100: on a ring standing in for p0's DPDK port, which
	 * takes 1 of 2; the refused one is charged to p0, where it came in. */
	pid = ring_port(txr);
	if (pid >= 0) {
		r->ports[2].port_id = (uint16_t)pid;
		w->tx[2].pkts[w->tx[2].n++] = w->tx[0].pkts[0];
		w->tx[0].n = 0;
		dpr_tx_flush(w, 2);
		CHECK_EQ(w->stats[2].tx, 1);
		CHECK_EQ(w->stats[2].tx_refused, 1);
		CHECK_EQ(w->stats[0].drops[DPR_DROP_TX_FULL], 0);
		CHECK_EQ(w->stats[2].drops[DPR_DROP_TX_FULL], 1);
		CHECK_EQ(w->stats[2].forwarded, 3);
		CHECK_EQ(rte_ring_sc_dequeue_burst(txr, (void **)out, 4, NULL), 1);
		eth = rte_pktmbuf_mtod(out[0], const struct rte_ether_hdr *);
		CHECK_EQ(vid_of(out[0]), 100);
		CHECK(((const struct rte_vlan_hdr *)(eth + 1))->eth_proto ==
		      RTE_BE16(RTE_ETHER_TYPE_IPV4), "IPv4 inside the tag");
		CHECK(rte_is_same_ether_addr(&eth->src_addr, &mac_p0), "p0's MAC as source");
		CHECK_EQ(out[0]->pkt_len, RTE_ETHER_HDR_LEN + 4 + 28);
		rte_pktmbuf_free(out[0]);
	}
	/* Software tagging moves what it cannot tag (shared) after the rest. */
	m = mk_ip4(&mac_h2, h1, h2, 64, 8);
	out[0] = m;
	out[1] = rte_pktmbuf_clone(m, pool);
	out[2] = a = mk_ip4(&mac_h2, h1, h2, 64, 8);
	CHECK_EQ(dpr_vlan_tag_bulk(out, 3, 7), 1);
	CHECK(out[0] == a && vid_of(a) == 7 && vid_of(m) == -1, "the frame it tagged first");

	for (i = 0; i < 3; i++)
		rte_pktmbuf_free(out[i]);

	/* A tag the PMD took off, for no VLAN interface, that cannot be put
	 * back (no headroom): dropped as unknown_vlan, never taken for an
	 * untagged frame of the port. */
	memset(w->stats, 0, sizeof(w->stats));
	f = mk_ip4(&mac_p0, v2, h2, 64, 8);
	f->ol_flags |= RTE_MBUF_F_RX_VLAN_STRIPPED;
	f->vlan_tci = 300;
	f->data_off = 0;
	memmove(rte_pktmbuf_mtod(f, uint8_t *), (uint8_t *)f->buf_addr + RTE_PKTMBUF_HEADROOM,
		f->data_len);
	pkts[0] = a = mk_ip4(&mac_p0, h1, h2, 64, 8);
	pkts[1] = f;
	n = dpr_vlan_demux_burst(w, 0, pkts, 2);
	CHECK(n == 1 && pkts[0] == a, "only the untagged frame stays p0's");
	CHECK_EQ(w->stats[0].drops[DPR_DROP_UNKNOWN_VLAN], 1);
	CHECK_EQ(w->stats[0].rx, 1);
	rte_pktmbuf_free(a);
	memset(w->stats, 0, sizeof(w->stats));

	for (i = 0; i < 2; i++) {
		rte_pktmbuf_free_bulk(w->tx[i].pkts, w->tx[i].n);
		w->tx[i].n = 0;
	}
	while (rte_ring_sc_dequeue_burst(txr, (void **)out, 4, NULL) > 0)
		rte_pktmbuf_free(out[0]);
	r->ports[2].port_id = saved_pid;
	r->ports[0].vlan_if = NULL;
	rte_free(map);
}

/*
 * A NIC that strips (RTE_ETH_RX_OFFLOAD_VLAN_STRIP) takes the outer tag
 * of a double-tagged frame off into vlan_tci and leaves the inner one in
 * the data. The frame is on the outer tag's VLAN, as it is when no device
 * strips: outer VLAN 100 (p0.100), inner 200, must never be forwarded as
 * p0.200's (VLAN hopping), whichever path takes it (the burst's first
 * frame, a run, the per-frame split). It is p0.100's, and dropped there as
 * unknown_vlan (a tag inside, as the untagging path does).
 */
static void
test_vlan_stripped_outer(struct rig *r)
{
	struct dpr_worker *w = r->w;
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	const uint32_t h2 = IP(10, 0, 2, 2), v2 = IP(10, 0, 3, 2);
	struct rte_mbuf *pkts[3];
	unsigned int k, p, fwd;
	uint16_t n, in;

	map[100] = 3;
	map[200] = 4;
	r->ports[0].vlan_if = map;
	r->ports[0].vlan_strip = true;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	/* k = 0: alone; 1: after a frame of p0.200 (a run of VLAN 200);
	 * 2: after an untagged frame (the per-frame split). */
	for (k = 0; k < 3; k++) {
		struct rte_mbuf *m = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 200);
		uint16_t nb = 0;

		memset(w->stats, 0, sizeof(w->stats));
		if (k == 1)
			pkts[nb++] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 200);
		else if (k == 2)
			pkts[nb++] = mk_ip4(&mac_p0, v2, h2, 64, 8);
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = 100;
		pkts[nb++] = m;
		in = 0;
		n = dpr_input_stages_burst(w, &in, pkts, nb);
		if (n > 0)
			dpr_ip4_input_burst(w, in, pkts, n);
		fwd = k == 1; /* the other frame, p0.200's */
		CHECK(w->stats[3].rx == fwd && w->stats[3].forwarded == fwd,
		      "case %u: outer VLAN 100 taken for p0.200's (rx %" PRIu64 ")", k,
		      w->stats[3].rx);
		CHECK(w->stats[2].rx == 1 && w->stats[2].drops[DPR_DROP_UNKNOWN_VLAN] == 1,
		      "case %u: outer VLAN 100's frame dropped on p0.100 as unknown_vlan", k);
		for (p = 0; p < 4; p++)
			CHECK_EQ(accounted(&w->stats[p]), w->stats[p].rx);
		for (p = 0; p < 4; p++) {
			rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
			w->tx[p].n = 0;
			w->tx[p].pretagged = 0;
		}
	}
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[0].vlan_if = NULL;
	r->ports[0].vlan_strip = false;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	rte_free(map);
}

/*
 * The worker's input stages (dpr_input_stages_burst()): a burst all of
 * VLAN 100 (priority bits aside), led by IPv4, is forwarded there and
 * then as p0.100's, still tagged through the L3 stages: counted in its
 * rx and forwarded, marked as received there, and untagged only as it
 * leaves by p1; with uRPF on p0.100, it goes on whole as p0.100's,
 * untagged and marked; a burst with one frame of another VLAN, or one too short for
 * its tag, is split as before (p0 keeps what is its own) and stays p0's.
 */
static void
test_vlan_one_burst(struct rig *r)
{
	struct dpr_worker *w = r->w;
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	const uint32_t h2 = IP(10, 0, 2, 2), v2 = IP(10, 0, 3, 2);
	struct rte_mbuf *pkts[4], *a, *b;
	uint16_t n, in;
	unsigned int i;

	memset(w->stats, 0, sizeof(w->stats));
	map[100] = 3;
	r->ports[0].vlan_if = map;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	CHECK_EQ(r->ports[0].in_stages, DPR_IN_VLAN);
	pkts[0] = a = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	pkts[1] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 0xa064); /* PCP 5, VLAN 100 */
	pkts[2] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	in = 0;
	n = dpr_input_stages_burst(w, &in, pkts, 3);
	CHECK(n == 0, "one VLAN's IPv4 burst is forwarded as p0.100's, still tagged");
	CHECK_EQ(w->stats[2].rx, 3);
	CHECK_EQ(w->stats[2].forwarded, 3);
	CHECK_EQ(w->stats[0].rx, 0);
	CHECK_EQ(w->tx[1].n, 3);
	CHECK(w->tx[1].pkts[0] == a, "in order");
	for (i = 0; i < w->tx[1].n; i++) {
		const struct rte_mbuf *m = w->tx[1].pkts[i];
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		CHECK(vid_of(m) == -1 && m->port == RTE_MAX_ETHPORTS + 2 &&
		      m->pkt_len == RTE_ETHER_HDR_LEN + 28 && m->data_len == m->pkt_len &&
		      rte_is_same_ether_addr(&eth->dst_addr, &mac_h2) &&
		      rte_is_same_ether_addr(&eth->src_addr, &mac_p1) &&
		      ip_of((struct rte_mbuf *)(uintptr_t)m)->time_to_live == 63,
		      "frame %u out of p1 untagged, as p0.100's", i);
	}
	CHECK_EQ(w->tx[1].pretagged, 0);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;

	/* To p0.200: MACs and tag 200 written in place, counted as such;
	 * its flush sends them as they are. */
	memset(w->stats, 0, sizeof(w->stats));
	pkts[0] = a = tag(mk_ip4(&mac_p0, v2, IP(10, 0, 4, 2), 64, 8), 100);
	pkts[1] = tag(mk_ip4(&mac_p0, v2, IP(10, 0, 4, 2), 64, 8), 100);
	in = 0;
	CHECK_EQ(dpr_input_stages_burst(w, &in, pkts, 2), 0);
	CHECK_EQ(w->tx[3].n, 2);
	CHECK_EQ(w->tx[3].pretagged, 2);
	for (i = 0; i < w->tx[3].n; i++) {
		const struct rte_mbuf *m = w->tx[3].pkts[i];
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		CHECK(vid_of(m) == 200 && m->pkt_len == RTE_ETHER_HDR_LEN + 4 + 28 &&
		      eth->dst_addr.addr_bytes[4] == 4 && eth->dst_addr.addr_bytes[5] == 2 &&
		      rte_is_same_ether_addr(&eth->src_addr, &mac_p0),
		      "frame %u out of p0.200 tagged 200 in place", i);
	}
	rte_pktmbuf_free_bulk(w->tx[3].pkts, w->tx[3].n);
	w->tx[3].n = 0;
	w->tx[3].pretagged = 0;

	/* With uRPF on p0.100 (which reads frames untagged): untagged here,
	 * on to the worker's pipeline. */
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[2].urpf = DPR_URPF_STRICT;
	dpr_port_in_stages_sync(r->ports, 3, NULL);
	for (i = 0; i < 2; i++)
		pkts[i] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	a = pkts[0];
	in = 0;
	n = dpr_input_stages_burst(w, &in, pkts, 2);
	CHECK(n == 2 && in == 2 && pkts[0] == a,
	      "a burst of an interface with uRPF goes on whole as p0.100's");
	CHECK_EQ(w->stats[2].rx, 2);
	CHECK_EQ(w->stats[0].rx, 0);
	for (i = 0; i < n; i++)
		CHECK(vid_of(pkts[i]) == -1 && pkts[i]->port == RTE_MAX_ETHPORTS + 2 &&
		      pkts[i]->pkt_len == RTE_ETHER_HDR_LEN + 28,
		      "frame %u untagged, as p0.100's", i);
	r->ports[2].urpf = DPR_URPF_OFF;
	dpr_port_in_stages_sync(r->ports, 3, NULL);
	rte_pktmbuf_free_bulk(pkts, n);

	/* Mixed: VLAN 100 then VLAN 300; a runt after a good frame. */
	memset(w->stats, 0, sizeof(w->stats));
	pkts[0] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	pkts[1] = b = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 300);
	in = 0;
	n = dpr_input_stages_burst(w, &in, pkts, 2);
	CHECK(n == 1 && in == 0 && pkts[0] == b && vid_of(b) == 300,
	      "a mixed burst is split: p0 keeps the unknown VLAN's frame");
	CHECK_EQ(w->stats[2].rx, 1);
	CHECK_EQ(w->stats[2].forwarded, 1);
	CHECK_EQ(w->stats[0].rx, 1);
	rte_pktmbuf_free(b);
	pkts[0] = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	pkts[1] = b = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	b->data_len = b->pkt_len = RTE_ETHER_HDR_LEN + 2;
	in = 0;
	n = dpr_input_stages_burst(w, &in, pkts, 2);
	CHECK(n == 1 && in == 0 && pkts[0] == b, "a runt is not taken for VLAN 100's");
	rte_pktmbuf_free(b);
	for (i = 0; i < 3; i++) {
		rte_pktmbuf_free_bulk(w->tx[i].pkts, w->tx[i].n);
		w->tx[i].n = 0;
	}
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[0].vlan_if = NULL;
	/* The map gone (vlan.del of the port's last VLAN interface) while a
	 * worker splits a burst: every frame stays the port's, nothing is
	 * read through the map. */
	pkts[0] = a = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);
	pkts[1] = b = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 300);
	CHECK_EQ(dpr_vlan_demux_burst(w, 0, pkts, 2), 2);
	CHECK(pkts[0] == a && pkts[1] == b && vid_of(a) == 100 && vid_of(b) == 300,
	      "with no VLAN map, tagged frames stay p0's, as they came");
	CHECK_EQ(w->stats[2].rx, 0);
	rte_pktmbuf_free_bulk(pkts, 2);
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	CHECK_EQ(r->ports[0].in_stages, 0);
	rte_free(map);
}

/*
 * The flush of a VLAN interface whose frames pass 3 tagged
 * (dpr_txbuf.pretagged): all of them go as they are; a buffer that also
 * holds untagged frames (from p1 here) has every frame tagged exactly
 * once, in order.
 */
static void
test_vlan_pretagged_flush(struct rig *r)
{
	struct dpr_worker *w = r->w;
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct rte_ring *txr = rte_ring_create("test_pretag_txr", 8, 0,
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
	const uint32_t v2 = IP(10, 0, 3, 2), u2 = IP(10, 0, 4, 2);
	struct rte_mbuf *pkts[3], *out[8];
	uint16_t saved_pid = r->ports[3].port_id, in;
	unsigned int i, q, round;
	int pid;

	map[100] = 3;
	r->ports[0].vlan_if = map;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	pid = ring_port(txr);
	if (pid < 0)
		goto out;
	r->ports[3].port_id = (uint16_t)pid;

	for (round = 0; round < 2; round++) {
		memset(w->stats, 0, sizeof(w->stats));
		pkts[0] = tag(mk_ip4(&mac_p0, v2, u2, 64, 8), 100);
		pkts[1] = tag(mk_ip4(&mac_p0, v2, u2, 64, 9), 100);
		in = 0;
		CHECK_EQ(dpr_input_stages_burst(w, &in, pkts, 2), 0);
		if (round == 1) {
			pkts[2] = mk_ip4(&mac_p1, IP(10, 0, 2, 2), u2, 64, 10);
			w->stats[1].rx++;
			dpr_ip4_input_burst(w, 1, &pkts[2], 1);
		}
		CHECK_EQ(w->tx[3].n, 2 + round);
		CHECK_EQ(w->tx[3].pretagged, 2);
		dpr_tx_flush(w, 3);
		CHECK_EQ(w->tx[3].pretagged, 0);
		CHECK_EQ(w->stats[3].tx, 2 + round);
		q = rte_ring_sc_dequeue_burst(txr, (void **)out, RTE_DIM(out), NULL);
		CHECK_EQ(q, 2 + round);
		for (i = 0; i < q; i++) {
			const struct rte_ether_hdr *eth =
				rte_pktmbuf_mtod(out[i], const struct rte_ether_hdr *);

			CHECK(vid_of(out[i]) == 200 &&
			      out[i]->pkt_len == RTE_ETHER_HDR_LEN + 4 + 28 + i &&
			      rte_pktmbuf_mtod_offset(out[i], struct rte_vlan_hdr *,
						      RTE_ETHER_HDR_LEN)->eth_proto ==
			      RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
			      eth->dst_addr.addr_bytes[4] == 4 && eth->dst_addr.addr_bytes[5] == 2,
			      "round %u, frame %u: tagged 200 once, in order", round, i);
		}
		rte_pktmbuf_free_bulk(out, q);
	}
	r->ports[3].port_id = saved_pid;
	rte_eth_dev_stop((uint16_t)pid);
	rte_eth_dev_close((uint16_t)pid);
out:
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[0].vlan_if = NULL;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	rte_ring_free(txr);
	rte_free(map);
}

/*
 * VLAN offloads and the software tag's fixed-size moves. A device that
 * inserts (dpr_port_dp.vlan_insert) gets p0.100's frames untagged, with
 * vlan_tci 100 and RTE_MBUF_F_TX_VLAN; a priority tag a device took off
 * (vlan_tci 0) leaves p0's frame as p0's, its RX VLAN flags cleared. The
 * software tag and untag give the bytes rte_vlan_insert() and
 * rte_vlan_strip() give.
 */
static void
test_vlan_offload(struct rig *r)
{
	struct dpr_worker *w = r->w;
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct rte_ring *txr = rte_ring_create("test_vlan_off_txr", 4, 0,
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
	const uint32_t h1 = IP(10, 0, 1, 2), h2 = IP(10, 0, 2, 2), v2 = IP(10, 0, 3, 2);
	struct rte_mbuf *pkts[2], *m, *g, *out[4];
	const struct rte_ether_hdr *eth;
	uint16_t n, saved_pid = r->ports[2].port_id;
	int pid;

	memset(w->stats, 0, sizeof(w->stats));
	map[100] = 3;
	r->ports[0].vlan_if = map;
	r->ports[2].vlan_insert = true;
	pid = ring_port(txr);
	if (pid < 0)
		goto out;
	r->ports[2].port_id = (uint16_t)pid;

	/* p0 -> p0.100 (h1 to v2), out of a device that inserts. */
	pkts[0] = mk_ip4(&mac_p0, h1, v2, 64, 8);
	w->stats[0].rx++;
	dpr_ip4_input_burst(w, 0, pkts, 1);
	CHECK_EQ(w->tx[2].n, 1);
	dpr_tx_flush(w, 2);
	CHECK_EQ(w->stats[2].tx, 1);
	CHECK_EQ(rte_ring_sc_dequeue_burst(txr, (void **)out, 4, NULL), 1);
	m = out[0];
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	CHECK(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	      m->pkt_len == RTE_ETHER_HDR_LEN + 28 && m->data_len == m->pkt_len,
	      "the data left untagged for the device");
	CHECK((m->ol_flags & RTE_MBUF_F_TX_VLAN) && m->vlan_tci == 100,
	      "vlan_tci 100 and RTE_MBUF_F_TX_VLAN for the device");
	CHECK(rte_is_same_ether_addr(&eth->src_addr, &mac_p0), "p0's MAC as source");
	rte_pktmbuf_free(m);

	/* Control-thread form (dpr_vlan_tx_burst()): the same. */
	m = mk_ip4(&mac_h2, h1, h2, 64, 8);
	CHECK_EQ(dpr_vlan_tx_burst((uint16_t)pid, 0, 100, true, &m, 1), 1);
	CHECK_EQ(rte_ring_sc_dequeue_burst(txr, (void **)out, 4, NULL), 1);
	CHECK(out[0] == m && (m->ol_flags & RTE_MBUF_F_TX_VLAN) && m->vlan_tci == 100 &&
	      vid_of(m) == -1, "dpr_vlan_tx_burst() leaves the tag to the device");
	rte_pktmbuf_free(m);

	/* A priority tag the device took off: p0's frame, flags cleared. */
	memset(w->stats, 0, sizeof(w->stats));
	m = mk_ip4(&mac_p0, h1, h2, 64, 8);
	m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	m->vlan_tci = 0xa000; /* PCP 5, VLAN 0 */
	pkts[0] = m;
	n = dpr_vlan_demux_burst(w, 0, pkts, 1);
	CHECK(n == 1 && pkts[0] == m && vid_of(m) == -1 &&
	      !(m->ol_flags & (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED)),
	      "a stripped priority tag leaves p0's frame untagged, flags cleared");
	w->stats[0].rx += n;
	dpr_ip4_input_burst(w, 0, pkts, n);
	CHECK_EQ(w->stats[0].forwarded, 1);
	CHECK_EQ(w->tx[1].n, 1);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;

	/* Software: dpr_vlan_tag_bulk() and dpr_vlan_untag() against DPDK's
	 * generic functions, byte for byte. */
	m = mk_ip4(&mac_h2, h1, h2, 64, 8);
	g = mk_ip4(&mac_h2, h1, h2, 64, 8);
	out[0] = m;
	CHECK_EQ(dpr_vlan_tag_bulk(out, 1, 0xa064), 1);
	g->vlan_tci = 0xa064;
	CHECK_EQ(rte_vlan_insert(&g), 0);
	CHECK(m->data_off == g->data_off && m->data_len == g->data_len &&
	      m->pkt_len == g->pkt_len &&
	      memcmp(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_mtod(g, void *), m->data_len) == 0,
	      "software tag as rte_vlan_insert() puts it");
	dpr_vlan_untag(m, DPR_VLAN_IN_DATA);
	CHECK_EQ(rte_vlan_strip(g), 0);
	CHECK(m->data_off == g->data_off && m->data_len == g->data_len &&
	      m->pkt_len == g->pkt_len && vid_of(m) == -1 &&
	      memcmp(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_mtod(g, void *), m->data_len) == 0,
	      "software untag as rte_vlan_strip() takes it off");
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(g);
	rte_eth_dev_stop((uint16_t)pid);
out:
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[2].port_id = saved_pid;
	r->ports[2].vlan_insert = false;
	r->ports[0].vlan_if = NULL;
	rte_ring_free(txr);
	rte_free(map);
}

/*
 * The burst code and the reference path agree. Each packet of a random mix
 * (every field the fast path screens, valid or not; padding, chains, runts,
 * NIC checksum verdicts) is made twice from one seed: one copy goes through
 * dpr_ip4_input_burst() in bursts, the other alone through dpr_ip4_slow()
 * and dpr_ip4_act(). Forwarded packets must leave in the same order with
 * the same bytes, diverted ones with the same class and argument, and the
 * drop counters must match reason by reason.
 */
struct outcome {
	int kind;          /* 0 dropped, 1 forwarded, 2 exception */
	uint32_t port_or_class;
	uint32_t arg;
	uint32_t len;
	bool sane;         /* the mbuf's lengths and segments agree */
	uint8_t bytes[64];
};

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static struct rte_mbuf *
gen_packet(uint64_t seed)
{
	static const uint32_t dsts[] = {
		IP(198, 51, 100, 7), IP(10, 0, 2, 2), IP(10, 0, 2, 9), IP(203, 0, 113, 5),
		IP(10, 0, 1, 1), IP(192, 0, 2, 1), IP(224, 0, 0, 5), 0xffffffff,
		IP(0, 1, 2, 3), IP(127, 0, 0, 1), IP(240, 0, 0, 1), IP(10, 0, 2, 255),
		IP(10, 0, 1, 2), /* back out of p0: bursts that switch output ports */
	};
	static const uint32_t srcs[] = {
		IP(10, 0, 1, 2), IP(0, 0, 0, 1), IP(127, 1, 1, 1), IP(224, 1, 1, 1),
		IP(240, 0, 0, 9), IP(223, 255, 255, 255), IP(1, 2, 3, 4),
	};
	static const uint8_t ttls[] = { 0, 1, 2, 64, 255 };
	const struct rte_ether_addr *macs[] = { &mac_p0, &mac_other, &mac_bcast, &mac_h1 };
	struct rte_ether_addr mcast = {{ 0x01, 0x00, 0x5e, 0, 0, 5 }};
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	uint64_t r = xorshift(&x);
	const struct rte_ether_addr *dmac = r % 10 < 7 ? &mac_p0 : r % 10 == 7 ? &mcast :
					    macs[(r >> 8) % RTE_DIM(macs)];
	uint32_t src = xorshift(&x) % 3 ? srcs[0] : srcs[x % RTE_DIM(srcs)];
	uint32_t dst = xorshift(&x) % 3 ? dsts[0] : dsts[x % RTE_DIM(dsts)];
	uint8_t ttl = xorshift(&x) % 3 ? 64 : ttls[x % RTE_DIM(ttls)];
	uint16_t payload = xorshift(&x) % 8 ? x % 64 : (x >> 8) % 1520;
	struct rte_mbuf *m = mk_ip4(dmac, src, dst, ttl, payload);
	struct rte_ipv4_hdr *ip = ip_of(m);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	r = xorshift(&x);
	if (r % 16 == 0)
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	else if (r % 16 == 1)
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_VLAN);
	r = xorshift(&x);
	if (r % 12 == 0)
		ip->version_ihl = (uint8_t[]){ 0x46, 0x44, 0x55, 0x4f, 0x40 }[(r >> 8) % 5];
	else if (r % 12 == 1)
		ip->type_of_service = 0xb8;
	r = xorshift(&x);
	if (r % 10 == 0)
		ip->total_length = rte_cpu_to_be_16((uint16_t)((r >> 8) % 1600));
	/* Reseal only over bytes the packet has: a longer header would sum
	 * whatever the mbuf held before, and the two copies would differ. */
	if (ip->version_ihl >= 0x45 && ip->version_ihl <= 0x4f &&
	    rte_be_to_cpu_16(ip->total_length) >= (ip->version_ihl & 0xf) * 4u &&
	    m->data_len >= RTE_ETHER_HDR_LEN + (ip->version_ihl & 0xf) * 4u)
		reseal(m);
	r = xorshift(&x);
	if (r % 10 == 0)
		ip->hdr_checksum ^= RTE_BE16(1 << ((r >> 8) % 16));
	r = xorshift(&x);
	if (r % 8 == 0)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	else if (r % 8 == 1)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	r = xorshift(&x);
	if (r % 8 == 0) {
		/* link-layer padding */
		memset(rte_pktmbuf_append(m, (uint16_t)(1 + (r >> 8) % 30)), 0xee, 1 + (r >> 8) % 30);
	} else if (r % 8 == 1 && m->data_len > 40) {
		/* the same bytes in two segments */
		struct rte_mbuf *t = rte_pktmbuf_alloc(pool);
		uint16_t cut = (uint16_t)(14 + (r >> 8) % (m->data_len - 14));
		uint16_t tail = (uint16_t)(m->data_len - cut);

		memcpy(rte_pktmbuf_append(t, tail), rte_pktmbuf_mtod_offset(m, void *, cut), tail);
		rte_pktmbuf_trim(m, tail);
		rte_pktmbuf_chain(m, t);
	} else if (r % 8 == 3) {
		/* padding in a segment of its own */
		struct rte_mbuf *t = rte_pktmbuf_alloc(pool);

		memset(rte_pktmbuf_append(t, 6), 0xee, 6);
		rte_pktmbuf_chain(m, t);
	} else if (r % 8 == 2) {
		/* truncated: a runt or a frame shorter than its IP length */
		rte_pktmbuf_trim(m, (uint16_t)((r >> 8) % m->data_len));
	}
	return m;
}

static void
record(struct outcome *o, int kind, uint32_t a, uint32_t arg, struct rte_mbuf *m)
{
	const char *why;
	const void *d;
	uint32_t n;

	o->kind = kind;
	o->port_or_class = a;
	o->arg = arg;
	o->len = m->pkt_len;
	o->sane = rte_mbuf_check(m, 1, &why) == 0;
	memset(o->bytes, 0, sizeof(o->bytes));
	n = RTE_MIN((uint32_t)sizeof(o->bytes), m->pkt_len);
	/* rte_pktmbuf_read() copies only when the bytes span segments;
	 * otherwise it points into the mbuf. */
	d = rte_pktmbuf_read(m, 0, n, o->bytes);
	if (d != NULL && d != o->bytes)
		memcpy(o->bytes, d, n);
}

/* Record and free what the worker diverted so far (its exception ring). */
static void
drain_exc(struct dpr_worker *w, struct outcome *o)
{
	struct rte_mbuf *out[64];
	unsigned int j, q;

	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)out, RTE_DIM(out), NULL);
	for (j = 0; j < q; j++)
		record(&o[out[j]->dynfield1[0]], 2, DPR_EXC_META_CLASS(out[j]->hash.usr),
		       DPR_EXC_ARG(out[j]), out[j]);
	rte_pktmbuf_free_bulk(out, q);
}

/*
 * Whether two outcomes of a packet are the same: kind, port or class, the
 * TX sequence (the MTU for a packet too big), length, sane mbufs, bytes;
 * else a failed check naming @p what (first 5 only: *@p differ counts).
 */
static bool
same_outcome(const struct outcome *a, const struct outcome *b, const char *what,
	     unsigned int i, unsigned int *differ)
{
	bool same = a->kind == b->kind && a->port_or_class == b->port_or_class &&
		(a->kind != 2 || b->port_or_class != DPR_EXC_MTU_EXCEEDED || a->arg == b->arg) &&
		(a->kind != 1 || a->arg == b->arg) &&
		a->len == b->len && (a->kind == 0 || (a->sane && b->sane)) &&
		memcmp(a->bytes, b->bytes, sizeof(a->bytes)) == 0;

	if (!same && (*differ)++ < 5) {
		unsigned int at = 0;

		while (at < sizeof(a->bytes) && a->bytes[at] == b->bytes[at])
			at++;
		CHECK(false, "packet %u (%s): kind %d/%u/%u len %u sane %d against %d/%u/%u len %u sane %d, bytes differ from %u",
		      i, what, a->kind, a->port_or_class, a->arg, a->len, a->sane,
		      b->kind, b->port_or_class, b->arg, b->len, b->sane, at);
	}
	return same;
}

/* Record and free what the fast path sent and diverted so far. */
static void
drain_fast(struct dpr_worker *w, struct outcome *fast, uint32_t *seqs)
{
	unsigned int j;
	uint16_t p;

	for (p = 0; p < w->n_ports; p++) {
		for (j = 0; j < w->tx[p].n; j++) {
			struct rte_mbuf *m = w->tx[p].pkts[j];

			record(&fast[m->dynfield1[0]], 1, p, seqs[p]++, m);
		}
		rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
		w->tx[p].n = 0;
	}
	drain_exc(w, fast);
}

/*
 * Random packets (see gen_packet()) through the burst code and, one at a
 * time, through the reference: byte-exact outcomes and the same counters.
 * @p pipelined: bursts go as the worker sends them, each one's pass 1
 * between the pass 2 and pass 3 of the one before (dpr_ip4_pipeline()).
 */
static void
test_fast_matches_reference(struct rig *r, bool pipelined)
{
	enum { N = 20000 };
	struct dpr_worker *w = r->w;
	struct outcome *fast = calloc(N, sizeof(*fast)), *ref = calloc(N, sizeof(*ref));
	uint64_t fast_drops[DPR_DROP_MAX], ref_drops[DPR_DROP_MAX];
	struct dpr_ip4_pending pend[2], *waiting = NULL;
	struct rte_mbuf *pkts[32];
	uint32_t seqs[2][DPR_MAX_PORTS] = { { 0 } };
	unsigned int i, j, k, cur = 0, differ = 0, forwarded = 0, diverted = 0;
	uint16_t p;

	/* Fast: bursts of 1 to 32. The payload's first bytes name the
	 * packet, so outcomes can be matched to it. */
	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i += k) {
		k = RTE_MIN(N - i, 1 + (unsigned int)(rte_rand() % 32));
		for (j = 0; j < k; j++) {
			pkts[j] = gen_packet(i + j);
			pkts[j]->hash.fdir.lo = i + j;
			pkts[j]->dynfield1[0] = i + j;
		}
		if (pipelined) {
			/* As the worker's RX poll leaves them. */
			memcpy(pend[cur].pkts, pkts, k * sizeof(pkts[0]));
			waiting = dpr_ip4_pipeline(w, 0, (uint16_t)k, &pend[cur], waiting);
			cur ^= 1;
		} else {
			dpr_ip4_input_burst(w, 0, pkts, (uint16_t)k);
		}
		drain_fast(w, fast, seqs[0]);
	}
	if (waiting != NULL)
		dpr_ip4_finish_burst(w, waiting);
	drain_fast(w, fast, seqs[0]);
	memcpy(fast_drops, w->stats[0].drops, sizeof(fast_drops));
	CHECK_EQ(accounted(&w->stats[0]), N);

	/* Reference: one packet at a time. */
	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i++) {
		struct rte_mbuf *m = gen_packet(i);
		struct dpr_burst b;
		uint32_t dst, nh;

		dpr_burst_begin(w, &b, 0);
		if (dpr_ip4_slow(w, &b, m, &dst)) {
			union dpr_nh_word h;

			nh = dpr_fib4_lookup(w->fib, dst);
			if (dpr_ip4_act(w, &b, m, nh, false, &h)) {
				/* What pass 3 does; buffers drained per packet. */
				dpr_ip4_rewrite(w, m, h.u64, h.port);
				w->tx[h.port].pkts[w->tx[h.port].n++] = m;
			}
		}
		for (p = 0; p < w->n_ports; p++) {
			for (j = 0; j < w->tx[p].n; j++)
				record(&ref[i], 1, p, seqs[1][p]++, w->tx[p].pkts[j]);
			rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
			w->tx[p].n = 0;
		}
		for (j = 0; j < b.n_exc; j++)
			record(&ref[i], 2, DPR_EXC_META_CLASS(b.exc[j]->hash.usr),
			       DPR_EXC_ARG(b.exc[j]), b.exc[j]);
		rte_pktmbuf_free_bulk(b.exc, b.n_exc);
		rte_pktmbuf_free_bulk(b.drop, b.n_drop);
	}
	memcpy(ref_drops, w->stats[0].drops, sizeof(ref_drops));

	for (i = 0; i < N; i++) {
		(void)same_outcome(&fast[i], &ref[i], "fast against reference", i, &differ);
		forwarded += fast[i].kind == 1;
		diverted += fast[i].kind == 2;
	}
	CHECK(differ == 0, "%u of %u packets differ", differ, (unsigned int)N);
	for (i = 0; i < DPR_DROP_MAX; i++)
		CHECK(fast_drops[i] == ref_drops[i], "drop %s: fast %" PRIu64 ", reference %" PRIu64,
		      dpr_drop_names[i], fast_drops[i], ref_drops[i]);
	/* The mix exercises all three outcomes in bulk. */
	CHECK(forwarded > N / 8 && diverted > N / 20 && dpr_counters_drops(&w->stats[0]) > N / 20,
	      "%u forwarded, %u diverted", forwarded, diverted);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
	free(fast);
	free(ref);
}

/*
 * gen_packet(@p seed) as it comes in on trunk p0: mostly tagged VLAN 100
 * (p0.100, some with priority bits), else VLAN 300 (no interface), a
 * priority tag, or untagged; a third go to 10.0.4.2, out of p0.200
 * (tagged), to 10.0.3.2, back out of p0.100 (a hairpin), or to 10.0.1.2,
 * out of p0 (untagged); a few are for a MAC that differs from p0's in its
 * first 4 bytes only.
 * *@p in: the interface it is for (2: p0.100, 0: p0).
 */
static struct rte_mbuf *
gen_tagged(uint64_t seed, uint16_t *in)
{
	static const uint32_t dsts[] = { IP(10, 0, 3, 2), IP(10, 0, 1, 2), IP(10, 0, 4, 2),
					 IP(10, 0, 4, 2) };
	struct rte_mbuf *m = gen_packet(seed);
	uint64_t x = seed * 0x2545f4914f6cdd1dull + 7;
	uint64_t r = xorshift(&x);

	if (r % 3 == 0 && m->data_len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)) {
		struct rte_ipv4_hdr *ip = ip_of(m);
		uint32_t dst = rte_cpu_to_be_32(dsts[(r >> 8) % RTE_DIM(dsts)]);
		uint32_t sum = (uint16_t)~rte_be_to_cpu_16(ip->hdr_checksum);

		/* RFC 1624: a checksum gen_packet() spoiled stays spoiled. */
		sum += (uint16_t)~rte_be_to_cpu_16((uint16_t)ip->dst_addr) +
			(uint16_t)~rte_be_to_cpu_16((uint16_t)(ip->dst_addr >> 16)) +
			rte_be_to_cpu_16((uint16_t)dst) + rte_be_to_cpu_16((uint16_t)(dst >> 16));
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip->hdr_checksum = rte_cpu_to_be_16((uint16_t)~sum);
		ip->dst_addr = dst;
	}
	r = xorshift(&x);
	*in = trunk_tag(&m, r, xorshift(&x));
	return m;
}

/*
 * Record and free what went out and was diverted, as drain_fast(), each
 * sent packet numbered within what came in on its interface (*@p from,
 * by packet) and left by its port: bursts of p0's trunk go interface by
 * interface, each in its order. Frames pass 3 tagged for a VLAN
 * interface count in its pretagged, and are untagged here to compare
 * with the untagged path's.
 */
static void
drain_tagged(struct dpr_worker *w, struct outcome *o, const uint16_t *from,
	     uint32_t seqs[][4])
{
	unsigned int j, tagged;
	uint16_t p;

	for (p = 0; p < w->n_ports; p++) {
		tagged = 0;
		for (j = 0; j < w->tx[p].n; j++) {
			struct rte_mbuf *m = w->tx[p].pkts[j];
			uint32_t id = m->dynfield1[0];

			tagged += (unsigned int)trunk_untag_sent(w, p, m);
			record(&o[id], 1, p, seqs[p][from[id]]++, m);
		}
		trunk_tx_done(w, p, tagged);
	}
	drain_exc(w, o);
}

/*
 * Flush every TX buffer (dpr_tx_flush(): the VLAN interfaces' tags put on,
 * or sent as pass 3 wrote them) into rings @p txr[0] (p0's DPDK port, which
 * p0.100 and p0.200 share) and @p txr[1] (p1's), then record and free what
 * the rings hold as drain_tagged() does, tags and all: a frame's dpr port
 * is its ring's, or for p0's the VLAN interface its tag names.
 */
static void
drain_wire(struct dpr_worker *w, struct rte_ring *const *txr, struct outcome *o,
	   const uint16_t *from, uint32_t seqs[][4])
{
	struct rte_mbuf *out[64];
	unsigned int r, j, q;
	uint16_t p;

	for (p = 0; p < w->n_ports; p++)
		dpr_tx_flush(w, p);
	for (r = 0; r < 2; r++) {
		while ((q = rte_ring_sc_dequeue_burst(txr[r], (void **)out, RTE_DIM(out),
						      NULL)) > 0) {
			for (j = 0; j < q; j++) {
				uint32_t id = out[j]->dynfield1[0];
				int vid = vid_of(out[j]);

				p = r == 1 ? 1 : vid == 100 ? 2 : vid == 200 ? 3 : 0;
				record(&o[id], 1, p, seqs[p][from[id]]++, out[j]);
			}
			rte_pktmbuf_free_bulk(out, q);
		}
	}
	drain_exc(w, o);
}

/*
 * The trunk's bursts still tagged (vlan_tagged_burst(): tags kept
 * through the L3 stages, written by pass 3) against the same packets one
 * at a time through the untagging demultiplexer (dpr_vlan_demux_burst()):
 * byte-exact outcomes, each interface's packets in their order out of
 * each port, the same counters on every interface, and the count of
 * frames pass 3 tagged equal to the tagged frames in each TX buffer.
 * @p redirects: hairpins out of p0.100 go to the control thread, or are
 * forwarded. @p wire: what leaves is compared as sent (drain_wire()), the
 * tagged way's TX buffers flushed only every few bursts, so that frames
 * pass 3 tagged and ones it did not share a buffer and a flush.
 */
static void
test_tagged_matches_untagged(struct rig *r, bool redirects, bool wire)
{
	enum { N = 20000 };
	struct dpr_worker *w = r->w;
	uint8_t *map = rte_zmalloc(NULL, 4096, 0);
	struct outcome *fast = calloc(N, sizeof(*fast)), *ref = calloc(N, sizeof(*ref));
	uint16_t *from = calloc(N, sizeof(*from));
	struct dpr_port_counters got[4];
	struct rte_mbuf *pkts[32];
	uint32_t seqs[2][DPR_MAX_PORTS][4];
	unsigned int i, j, k, differ = 0, fwd_tagged = 0, diverted = 0, held = 0;
	uint16_t n, in, saved[4] = { 0 }, p;
	struct rte_ring *txr[2] = { NULL, NULL };
	int pid[2] = { -1, -1 };

	memset(seqs, 0, sizeof(seqs));
	/* @p wire: both ways flush through the ports onto rings; the tagged
	 * way holds its TX buffers over 1 to 4 bursts first. */
	if (wire) {
		for (j = 0; j < 2; j++) {
			char name[32];

			snprintf(name, sizeof(name), "test_wire%u", j);
			txr[j] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
			pid[j] = txr[j] != NULL ? ring_port(txr[j]) : -1;
			if (pid[j] < 0)
				goto out;
		}
		for (p = 0; p < 4; p++) {
			saved[p] = r->ports[p].port_id;
			r->ports[p].port_id = (uint16_t)pid[p == 1];
		}
		w->port_index[pid[0]] = 0;
		w->port_index[pid[1]] = 1;
	}
	map[100] = 3;
	map[200] = 4;
	r->ports[0].vlan_if = map;
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	CHECK(r->ports[3].out_stages & DPR_OUT_PRETAG, "p0.200 takes its tag from pass 3");
	/* With @p redirects, every hairpin out of p0.100 goes to the control
	 * thread for its redirect: no rate limit, which reads the clock. */
	r->ports[2].redirects = redirects;
	w->redirect_gap = 0;
	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i += k) {
		k = RTE_MIN(N - i, 1 + (unsigned int)(rte_rand() % 32));
		for (j = 0; j < k; j++) {
			pkts[j] = gen_tagged(i + j, &from[i + j]);
			pkts[j]->dynfield1[0] = i + j;
		}
		in = 0;
		n = dpr_input_stages_burst(w, &in, pkts, (uint16_t)k);
		if (n > 0)
			dpr_ip4_input_burst(w, in, pkts, n);
		if (!wire)
			drain_tagged(w, fast, from, seqs[0]);
		else if (held-- == 0 || i + k == N) {
			drain_wire(w, txr, fast, from, seqs[0]);
			held = (unsigned int)(rte_rand() % 4);
		}
	}
	memcpy(got, w->stats, sizeof(got));

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < N; i++) {
		pkts[0] = gen_tagged(i, &in);
		pkts[0]->dynfield1[0] = i;
		n = dpr_vlan_demux_burst(w, 0, pkts, 1);
		if (n > 0) {
			w->stats[0].rx += n;
			dpr_ip4_input_burst(w, 0, pkts, n);
		}
		if (wire)
			drain_wire(w, txr, ref, from, seqs[1]);
		else
			drain_tagged(w, ref, from, seqs[1]);
	}

	for (i = 0; i < N; i++) {
		(void)same_outcome(&fast[i], &ref[i],
				   from[i] == 2 ? "p0.100, tagged against untagged" :
				   from[i] == 3 ? "p0.200, tagged against untagged" :
				   "p0, tagged against untagged", i, &differ);
		fwd_tagged += fast[i].kind == 1 && from[i] == 2;
		diverted += fast[i].kind == 2;
	}
	CHECK(differ == 0, "%u of %u packets differ", differ, (unsigned int)N);
	trunk_same_counters(got, w->stats);
	CHECK_EQ(accounted(&got[0]) + accounted(&got[2]) + accounted(&got[3]), N);
	CHECK(fwd_tagged > N / 8 && diverted > N / 20 && got[2].drops[DPR_DROP_BAD_CHECKSUM] > 0 &&
	      got[0].drops[DPR_DROP_UNKNOWN_VLAN] > 0, "%u forwarded from p0.100, %u diverted",
	      fwd_tagged, diverted);
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
out:
	if (wire) {
		for (p = 0; p < 4 && pid[0] >= 0 && pid[1] >= 0; p++)
			r->ports[p].port_id = saved[p];
		for (j = 0; j < 2; j++) {
			if (pid[j] >= 0) {
				rte_eth_dev_stop((uint16_t)pid[j]);
				rte_eth_dev_close((uint16_t)pid[j]);
			}
			rte_ring_free(txr[j]);
		}
	}
	memset(w->stats, 0, sizeof(w->stats));
	r->ports[0].vlan_if = NULL;
	r->ports[2].redirects = false;
	dpr_worker_prepare(w);
	dpr_port_in_stages_sync(r->ports, 4, NULL);
	rte_free(map);
	free(fast);
	free(ref);
	free(from);
}

/*
 * A burst the worker's pipeline holds across an RCU quiescent report keeps
 * addresses, not FIB entries: a route changed after its pass 1 applies to
 * it. Here a /25 (so a tbl8 group, whose entry takes the last octet from
 * the header) is added under the waiting burst's destinations, sending
 * them back out of p0; the next burst, outside the /25, still goes by p1.
 */
static void
test_pipeline_route_change(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct dpr_ip gw = { .af = DPR_AF_IP4, .ip4 = IP(10, 0, 1, 2) };
	struct dpr_ip4_pending pend[2], *waiting;
	struct dpr_fib4_op op;
	unsigned int i;
	int idx, err;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < 8; i++) {
		pend[0].pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 2, 2), IP(198, 51, 100, 1 + 9 * i), 64, 32);
		pend[1].pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 2, 2), IP(198, 51, 100, 128 + i), 64, 32);
	}
	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[0], NULL);
	CHECK_EQ(w->tx[0].n + w->tx[1].n, 0);

	idx = dpr_nh_get(r->nh, &gw, 0);
	CHECK(idx >= 0, "next hop for 10.0.1.2");
	op = (struct dpr_fib4_op){ .ip = IP(198, 51, 100, 0), .depth = 25, .nh = (uint32_t)idx };
	CHECK_EQ(dpr_route4_apply(r->fib, r->nh, &op, 1, &err), 1);

	waiting = dpr_ip4_pipeline(w, 0, 8, &pend[1], waiting);
	CHECK_EQ(w->tx[0].n, 8);
	CHECK_EQ(w->tx[1].n, 0);
	dpr_ip4_finish_burst(w, waiting);
	CHECK_EQ(w->tx[1].n, 8);
	for (i = 0; i < w->tx[0].n; i++) {
		struct rte_mbuf *m = w->tx[0].pkts[i];
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

		CHECK(m == pend[0].pkts[i], "packet %u of the first burst left by p0, in order", i);
		CHECK(rte_is_same_ether_addr(&eth->dst_addr, &mac_h1), "to 10.0.1.2's MAC");
		CHECK(rte_is_same_ether_addr(&eth->src_addr, &mac_p0), "from p0's MAC");
		CHECK_EQ(ip_of(m)->time_to_live, 63);
		CHECK(rte_raw_cksum(ip_of(m), sizeof(struct rte_ipv4_hdr)) == 0xffff, "checksum");
	}
	for (i = 0; i < w->tx[1].n; i++)
		CHECK(w->tx[1].pkts[i] == pend[1].pkts[i], "packet %u of the second burst left by p1", i);
	CHECK_EQ(w->stats[0].forwarded, 16);

	op = (struct dpr_fib4_op){ .ip = IP(198, 51, 100, 0), .depth = 25, .del = 1 };
	CHECK_EQ(dpr_route4_apply(r->fib, r->nh, &op, 1, &err), 1);
	for (i = 0; i < 2; i++) {
		rte_pktmbuf_free_bulk(w->tx[i].pkts, w->tx[i].n);
		w->tx[i].n = 0;
	}
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);
}

/* Made-up costs, cycles a packet, for window @p k (0-based) of a probe
 * in the way @p pipe. */
typedef uint64_t tune_cost_fn(unsigned int k, bool pipe, const void *arg);

/* The same cost in every window: [0] at once, [1] pipelined. */
static uint64_t
tune_cost_flat(unsigned int k, bool pipe, const void *arg)
{
	(void)k;
	return ((const uint64_t *)arg)[pipe];
}

/*
 * Drive the pipeline tuner as the worker does, on costs from @p cost,
 * through one probe; each step lands a few packets past next_rx, as a
 * burst would. @p windows: how many windows ran each way; @p ways, unless
 * NULL: bit k set where window k ran pipelined. @return the way it kept.
 */
static bool
tune_probe_by(struct dpr_tune *t, uint64_t *rx, uint64_t *cyc, tune_cost_fn *cost,
	      const void *arg, unsigned int *windows, uint32_t *ways)
{
	unsigned int steps = 0, k = 0;

	windows[0] = windows[1] = 0;
	if (ways != NULL)
		*ways = 0;
	do {
		uint64_t n = t->next_rx - *rx + 17;

		*rx += n;
		*cyc += n * cost(k, t->pipelined, arg);
		if (t->window != 0) {
			windows[t->pipelined]++;
			if (ways != NULL)
				*ways |= (uint32_t)t->pipelined << k;
			k++;
		}
		dpr_tune_step(t, *rx, *cyc);
	} while (t->window != 0 && ++steps < 100);
	return t->pipelined;
}

static bool
tune_probe(struct dpr_tune *t, uint64_t *rx, uint64_t *cyc, uint64_t at_once, uint64_t pipe,
	   unsigned int *windows)
{
	const uint64_t c[2] = { at_once, pipe };

	return tune_probe_by(t, rx, cyc, tune_cost_flat, c, windows, NULL);
}

/* A warming worker: every window 3 cycles a packet cheaper than the one
 * before, on top of [0] at once, [1] pipelined. */
static uint64_t
tune_cost_warming(unsigned int k, bool pipe, const void *arg)
{
	return ((const uint64_t *)arg)[pipe] + 3 * (DPR_TUNE_WINDOWS - k);
}

/* A loud host: window 1 (pipelined, the second of the first pair) costs
 * ten times as much. */
static uint64_t
tune_cost_spike(unsigned int k, bool pipe, const void *arg)
{
	return ((const uint64_t *)arg)[pipe] * (k == 1 ? 10 : 1);
}

/* Pairs that split 4 to 4: pipelined 1 % cheaper in the even pairs, 3 %
 * dearer in the odd ones; and the first pair's at-once window five times
 * as dear. */
static uint64_t
tune_cost_split(unsigned int k, bool pipe, const void *arg)
{
	(void)arg;
	if (k / 2 % 2 == 0)
		return pipe ? 100 : (k / 2 == 0 ? 505 : 101);
	return pipe ? 103 : 100;
}

/* A fresh tuner running at once, its first probe started. */
static void
tune_start(struct dpr_tune *t, uint64_t *rx, uint64_t *cyc)
{
	dpr_tune_init(t, false);
	*cyc = DPR_TUNE_FIRST * 100;
	*rx = DPR_TUNE_FIRST;
	dpr_tune_step(t, *rx, *cyc);
}

/*
 * The pipeline tuner keeps the way that costs fewer cycles a packet,
 * measured in windows that alternate in pairs (A B, B A...), half each
 * way; settles for DPR_TUNE_SETTLE packets; changes its mind when the
 * costs change; goes by the median of the pairs' ratios, so that neither a
 * steady drift nor a loud window decides; and keeps what its last probe
 * measured.
 */
/* A worker's busy cycles between two TSC reads, when a VM's TSC jumps. */
static void
test_tsc_span(void)
{
	const uint64_t t = UINT64_C(1) << 50;

	CHECK_EQ(dpr_tsc_span(t + 1000, t), 1000);
	CHECK_EQ(dpr_tsc_span(t, t), 0);
	CHECK_EQ(dpr_tsc_span(t + DPR_TSC_SPAN_MAX, t), DPR_TSC_SPAN_MAX);
	/* Back by 12 hours at 2.7 GHz, as a restored VM's TSC once went:
	 * nothing, where the difference would wrap busy_cycles. */
	CHECK_EQ(dpr_tsc_span(t - UINT64_C(116640000000000), t), 0);
	CHECK_EQ(dpr_tsc_span(t - 1, t), 0);
	/* Forward by more than seconds: not busy work either. */
	CHECK_EQ(dpr_tsc_span(t + DPR_TSC_SPAN_MAX + 1, t), 0);
	CHECK_EQ(dpr_tsc_span(t + UINT64_C(116640000000000), t), 0);
}

static void
test_tune(void)
{
	struct dpr_tune t;
	uint64_t rx = 0, cyc = 0;
	unsigned int win[2];
	uint32_t ways;

	/* A worker's tuner runs DPR_TUNE_FIRST packets the way it starts,
	 * then steps and starts a probe. */
	dpr_tune_init(&t, false);
	CHECK_EQ(t.next_rx, DPR_TUNE_FIRST);
	CHECK_EQ(t.window, 0);
	cyc = DPR_TUNE_FIRST * 100;
	rx = DPR_TUNE_FIRST;
	CHECK(!dpr_tune_step(&t, rx, cyc), "starts at once");
	CHECK_EQ(t.window, 1);
	CHECK_EQ(t.next_rx, rx + DPR_TUNE_WINDOW);

	{
		const uint64_t c[2] = { 100, 90 };

		CHECK(tune_probe_by(&t, &rx, &cyc, tune_cost_flat, c, win, &ways),
		      "pipelined: 90 < 100 cycles a packet");
	}
	CHECK_EQ(win[0], DPR_TUNE_WINDOWS / 2);
	CHECK_EQ(win[1], DPR_TUNE_WINDOWS / 2);
	/* From at once: A B B A A B B A..., bit k set for pipelined. */
	CHECK_EQ(ways, 0x6666);
	CHECK_EQ(t.probes, 1);
	CHECK_EQ(t.changes, 1);
	CHECK_EQ(t.window, 0);
	CHECK_EQ(t.next_rx, rx + DPR_TUNE_SETTLE);
	/* What it measured, for stats.get: the packets of a window are a
	 * few past 2^19, so cycles a packet come out exact. */
	CHECK_EQ(t.last_cpp100[0], 10000);
	CHECK_EQ(t.last_cpp100[1], 9000);
	CHECK_EQ(t.last_pipe_pairs, DPR_TUNE_WINDOWS / 2);
	CHECK_EQ(t.last_win_pipe, 0x6666);
	CHECK_EQ(t.last_win_cpp100[0], 10000);
	CHECK_EQ(t.last_win_cpp100[1], 9000);
	CHECK_EQ(t.last_win_cpp100[2], 9000);
	CHECK_EQ(t.last_win_cpp100[3], 10000);

	/* Settled: the next step starts a probe, in the way it runs; from
	 * pipelined the pairs run B A, A B... */
	cyc += (t.next_rx - rx) * 90;
	rx = t.next_rx;
	CHECK(dpr_tune_step(&t, rx, cyc), "a probe starts pipelined");
	{
		const uint64_t c[2] = { 80, 90 };

		CHECK(!tune_probe_by(&t, &rx, &cyc, tune_cost_flat, c, win, &ways),
		      "at once: 80 < 90");
	}
	CHECK_EQ(ways, 0x9999);
	CHECK_EQ(t.changes, 2);
	CHECK_EQ(t.last_pipe_pairs, 0);
	CHECK_EQ(win[0] + win[1], DPR_TUNE_WINDOWS);

	/* A tie keeps the way it has. */
	cyc += (t.next_rx - rx) * 80;
	rx = t.next_rx;
	dpr_tune_step(&t, rx, cyc);
	CHECK(!tune_probe(&t, &rx, &cyc, 85, 85, win), "tie: unchanged");
	CHECK_EQ(t.probes, 3);
	CHECK_EQ(t.changes, 2);
	dpr_tune_init(&t, true);
	rx = DPR_TUNE_FIRST;
	cyc = DPR_TUNE_FIRST * 85;
	CHECK(dpr_tune_step(&t, rx, cyc), "pipelined from the start");
	CHECK(tune_probe(&t, &rx, &cyc, 85, 85, win), "tie from pipelined: unchanged");

	/* Warming up, each window 3 cycles a packet cheaper than the last:
	 * in pairs that all ran A B the second way would win every pair by
	 * 1 where it costs 2 more. Alternated, the pairs split, and the
	 * drift cancels in the sums: at once, the cheaper by 2, stays. */
	tune_start(&t, &rx, &cyc);
	{
		const uint64_t c[2] = { 100, 102 };

		CHECK(!tune_probe_by(&t, &rx, &cyc, tune_cost_warming, c, win, NULL),
		      "warming: at once, 2 cheaper, stays");
	}
	CHECK_EQ(t.last_pipe_pairs, DPR_TUNE_WINDOWS / 4);
	CHECK(t.last_cpp100[0] < t.last_cpp100[1], "warming: at once cheaper in all");
	tune_start(&t, &rx, &cyc);
	{
		const uint64_t c[2] = { 102, 100 };

		CHECK(tune_probe_by(&t, &rx, &cyc, tune_cost_warming, c, win, NULL),
		      "warming: pipelined, 2 cheaper, wins");
	}

	/* One window ten times as dear (a neighbour on the host): in the
	 * sums pipelined would cost 153 to 100; it still wins 7 pairs of 8. */
	tune_start(&t, &rx, &cyc);
	{
		const uint64_t c[2] = { 100, 90 };

		CHECK(tune_probe_by(&t, &rx, &cyc, tune_cost_spike, c, win, NULL),
		      "one loud window: pipelined, cheaper in 7 pairs, wins");
	}
	CHECK_EQ(t.last_pipe_pairs, DPR_TUNE_WINDOWS / 2 - 1);
	CHECK(t.last_cpp100[1] > t.last_cpp100[0], "the loud window counts in the sums");
	CHECK_EQ(t.last_median_ratio, (uint64_t)(0.9 * 65536));

	/* Pairs split evenly, a loud at-once window: the sums say
	 * pipelined (151 to 101.5), the median of the ratios (1.01) says at
	 * once, dearer in the pairs by more. */
	tune_start(&t, &rx, &cyc);
	CHECK(!tune_probe_by(&t, &rx, &cyc, tune_cost_split, NULL, win, NULL),
	      "split pairs: at once, by the median");
	CHECK_EQ(t.last_pipe_pairs, DPR_TUNE_WINDOWS / 4);
	CHECK(t.last_cpp100[1] < t.last_cpp100[0], "split pairs: the sums said pipelined");
	CHECK(t.last_median_ratio > UINT64_C(1) << 16, "split pairs: median above 1");
}

/* @p m with QinQ tags in its data: outer @p outer of TPID @p tpid, then
 * 0x8100 @p inner. */
static struct rte_mbuf *
qtag(struct rte_mbuf *m, uint16_t tpid, uint16_t outer, uint16_t inner)
{
	m = tag(tag(m, inner), outer);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = rte_cpu_to_be_16(tpid);
	return m;
}

/*
 * QinQ: p0.100 (dpr port 2) made a QinQ interface, 802.1ad 100 then 20, in
 * p0's QinQ map. dpr_qinq_demux_burst() takes its frames in every form
 * (both tags in the data; the outer put back as 0x8100 by net_af_packet,
 * RTE_MBUF_F_RX_VLAN; both in the mbuf; the outer in vlan_tci where the
 * device strips), untagged, counted there; drops a wrong outer TPID, a
 * pair for no interface and a lone S-tag as unknown_vlan on p0; leaves
 * untagged and single-tagged frames to p0, in order. dpr_qinq_tx_burst()
 * puts 0x88a8 100 and 0x8100 20 on, and moves a shared frame after the rest.
 */
static void
test_qinq(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct dpr_qinq_map *q = rte_zmalloc(NULL, sizeof(*q), 0);
	uint8_t *inner = rte_zmalloc(NULL, 4096, 0);
	struct rte_ring *txr = rte_ring_create("test_qinq_txr", 4, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	const uint32_t h1 = IP(10, 0, 1, 2), h2 = IP(10, 0, 2, 2), v2 = IP(10, 0, 3, 2);
	static const uint8_t want[] = { 0x88, 0xa8, 0x00, 0x64, 0x81, 0x00, 0x00, 0x14, 0x08, 0x00 };
	struct rte_mbuf *pkts[10], *m, *a, *d, *out[4];
	const struct rte_ether_hdr *eth;
	uint16_t n, k = 0, saved_pid = r->ports[2].port_id;
	unsigned int i;
	int pid;

	memset(w->stats, 0, sizeof(w->stats));
	inner[20] = 3;
	q->inner[100] = inner;
	r->ports[0].qinq = q;
	r->ports[2].vlan_tci = 20;
	r->ports[2].vlan_outer = DPR_QINQ_OUTER(0x88a8, 100);

	pkts[k++] = a = mk_ip4(&mac_p0, h1, h2, 64, 8);                          /* p0 */
	pkts[k++] = qtag(mk_ip4(&mac_p0, v2, h2, 64, 8), 0x88a8, 100, 20);       /* 100.20 */
	pkts[k++] = qtag(mk_ip4(&mac_p0, v2, h2, 64, 8), 0x8100, 100, 20);       /* wrong TPID */
	m = qtag(mk_ip4(&mac_p0, v2, h2, 64, 8), 0x8100, 100, 20);               /* af_packet's */
	m->ol_flags |= RTE_MBUF_F_RX_VLAN;
	pkts[k++] = m;
	pkts[k++] = d = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 20);                 /* VLAN 20: p0 */
	m = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 100);                            /* S-tag alone */
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(0x88a8);
	pkts[k++] = m;
	pkts[k++] = qtag(mk_ip4(&mac_p0, v2, h2, 64, 8), 0x88a8, 100, 21);       /* no pair */
	m = mk_ip4(&mac_p0, v2, h2, 64, 8);                                      /* both off */
	m->ol_flags |= RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED | RTE_MBUF_F_RX_VLAN |
		       RTE_MBUF_F_RX_VLAN_STRIPPED;
	m->vlan_tci_outer = 100;
	m->vlan_tci = 20;
	pkts[k++] = m;
	n = dpr_qinq_demux_burst(w, 0, pkts, k);
	CHECK(n == 2 && pkts[0] == a && pkts[1] == d, "p0 keeps its untagged and VLAN 20 frames");
	CHECK_EQ(w->stats[0].rx, 3);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_UNKNOWN_VLAN], 3);
	CHECK_EQ(w->stats[2].rx, 3);
	CHECK_EQ(w->stats[2].forwarded, 3);
	CHECK_EQ(w->tx[1].n, 3);
	for (i = 0; i < w->tx[1].n; i++) {
		m = w->tx[1].pkts[i];
		eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		CHECK(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
		      rte_is_same_ether_addr(&eth->dst_addr, &mac_h2) &&
		      m->pkt_len == RTE_ETHER_HDR_LEN + 28 &&
		      !(m->ol_flags & (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_QINQ_STRIPPED)),
		      "100.20 packet %u to h2 untagged, of its length", i);
	}
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	rte_pktmbuf_free_bulk(pkts, n);

	/* A device that strips: the outer tag in vlan_tci, the inner in the
	 * data; a single stripped tag stays p0's (the VLAN demux's). */
	memset(w->stats, 0, sizeof(w->stats));
	q->strip = true;
	m = tag(mk_ip4(&mac_p0, v2, h2, 64, 8), 20);
	m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	m->vlan_tci = 100;
	pkts[0] = m;
	a = mk_ip4(&mac_p0, v2, h2, 64, 8);
	a->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	a->vlan_tci = 100;
	pkts[1] = a;
	n = dpr_qinq_demux_burst(w, 0, pkts, 2);
	CHECK(n == 1 && pkts[0] == a, "a single stripped tag stays p0's");
	CHECK_EQ(w->stats[2].forwarded, 1);
	CHECK_EQ(w->tx[1].n, 1);
	rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
	w->tx[1].n = 0;
	rte_pktmbuf_free(a);

	/* VLAN 200 (p0.200, single-tagged) on the same port, a priority tag
	 * inside its tag (802.1Q, as a switch forwards a priority-tagged
	 * frame into a VLAN): no QinQ interface has outer id 200, so the
	 * frame is p0.200's, as on a port without QinQ interfaces. */
	{
		uint8_t *map = rte_zmalloc(NULL, 4096, 0);
		uint16_t in = 0;

		memset(w->stats, 0, sizeof(w->stats));
		map[200] = 4;
		r->ports[0].vlan_if = map;
		dpr_port_in_stages_sync(r->ports, 1, NULL);
		pkts[0] = qtag(mk_ip4(&mac_p0, v2, h2, 64, 8), 0x8100, 200, 0);
		n = dpr_input_stages_burst(w, &in, pkts, 1);
		if (n > 0)
			dpr_ip4_input_burst(w, in, pkts, n);
		CHECK(w->stats[3].rx == 1 && w->stats[3].forwarded == 1 && w->tx[1].n == 1,
		      "VLAN 200 with a priority tag inside forwarded as p0.200's (p0 unknown_vlan %" PRIu64 ")",
		      w->stats[0].drops[DPR_DROP_UNKNOWN_VLAN]);
		rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
		w->tx[1].n = 0;
		r->ports[0].vlan_if = NULL;
		dpr_port_in_stages_sync(r->ports, 1, NULL);
		rte_free(map);
	}

	/* Out of it: both tags, 0x88a8 100 outside 0x8100 20; a shared frame
	 * is left unsent, after the rest. */
	pid = ring_port(txr);
	if (pid >= 0) {
		m = mk_ip4(&mac_h2, h1, h2, 64, 8);
		out[0] = m;
		out[1] = rte_pktmbuf_clone(m, pool);
		out[2] = a = mk_ip4(&mac_h2, h1, h2, 64, 8);
		CHECK_EQ(dpr_qinq_tx_burst((uint16_t)pid, 0, 20, DPR_QINQ_OUTER(0x88a8, 100), out, 3), 1);
		CHECK(out[0] == a, "the frame it could tag is sent first");
		CHECK_EQ(rte_ring_sc_dequeue_burst(txr, (void **)pkts, 4, NULL), 1);
		CHECK(pkts[0] == a && a->pkt_len == RTE_ETHER_HDR_LEN + 8 + 28 &&
		      memcmp(rte_pktmbuf_mtod(a, uint8_t *) + 12, want, sizeof(want)) == 0 &&
		      rte_is_same_ether_addr(rte_pktmbuf_mtod(a, struct rte_ether_addr *), &mac_h2),
		      "0x88a8 100, 0x8100 20, IPv4, behind the same MACs");
		rte_pktmbuf_free(a);
		rte_pktmbuf_free(out[1]);
		rte_pktmbuf_free(out[2]);
	}

	memset(w->stats, 0, sizeof(w->stats));
	r->ports[2].port_id = saved_pid;
	r->ports[2].vlan_tci = 100;
	r->ports[2].vlan_outer = 0;
	r->ports[0].qinq = NULL;
	rte_free(inner);
	rte_free(q);
}

/*
 * Strict uRPF on p0 over a spoofed source (no route back): dropped
 * untagged, and priority-tagged (VLAN id 0 in the data, which the screen
 * takes off after uRPF and forwards as p0's own frame); a valid source
 * priority-tagged goes on.
 */
static void
test_urpf_priority_tag(struct rig *r)
{
	struct dpr_worker *w = r->w;
	const uint32_t spoof = IP(192, 0, 2, 9), h2 = IP(10, 0, 2, 2);
	struct rte_mbuf *pkts[1];
	uint16_t n, in;
	unsigned int k;

	r->ports[0].urpf = DPR_URPF_STRICT;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	for (k = 0; k < 3; k++) {
		memset(w->stats, 0, sizeof(w->stats));
		pkts[0] = mk_ip4(&mac_p0, k == 2 ? IP(10, 0, 1, 2) : spoof, h2, 64, 8);
		if (k > 0)
			pkts[0] = tag(pkts[0], 0);
		in = 0;
		n = dpr_input_stages_burst(w, &in, pkts, 1);
		if (n > 0)
			dpr_ip4_input_burst(w, in, pkts, n);
		if (k < 2)
			CHECK(w->stats[0].drops[DPR_DROP_URPF] == 1 && w->tx[1].n == 0,
			      "a spoofed source %s is dropped by strict uRPF",
			      k == 0 ? "untagged" : "priority-tagged");
		else
			CHECK(w->stats[0].drops[DPR_DROP_URPF] == 0 && w->tx[1].n == 1 &&
			      vid_of(w->tx[1].pkts[0]) == -1,
			      "a valid source priority-tagged goes on, untagged");
		rte_pktmbuf_free_bulk(w->tx[1].pkts, w->tx[1].n);
		w->tx[1].n = 0;
	}
	r->ports[0].urpf = DPR_URPF_OFF;
	dpr_port_in_stages_sync(r->ports, 1, NULL);
	memset(w->stats, 0, sizeof(w->stats));
}

/*
 * uRPF (RFC 3704) of one IPv4 source on each interface, strict and loose,
 * straight from dpr_urpf_ok(): p0 10.0.1.0/24, p1 10.0.2.0/24, p0.100
 * (VLAN interface 2) 10.0.3.0/24, 198.51.100.0/24 via p1; added here:
 * 172.16.0.0/16 multipath over p0 and p1, 192.0.2.0/25 blackhole,
 * 192.0.2.128/25 unreachable, and a default route via p1.
 */
static void
test_urpf_sources(struct rig *r)
{
	/* Strict on p0, p1, p0.100, then loose on p0: 1 passes, 0 fails. */
	static const struct {
		uint32_t src;
		uint8_t strict[3], loose;
		const char *what;
	} cases[] = {
		{ IP(10, 0, 1, 2), { 1, 0, 0 }, 1, "p0's subnet" },
		{ IP(10, 0, 2, 2), { 0, 1, 0 }, 1, "p1's subnet" },
		{ IP(10, 0, 3, 2), { 0, 0, 1 }, 1, "p0.100's subnet (a VLAN interface)" },
		{ IP(198, 51, 100, 9), { 0, 1, 0 }, 1, "routed via p1" },
		{ IP(172, 16, 9, 9), { 1, 1, 0 }, 1, "multipath over p0 and p1" },
		{ IP(8, 8, 8, 8), { 0, 1, 0 }, 1, "the default route's only (via p1)" },
		{ IP(192, 0, 2, 9), { 0, 0, 0 }, 0, "a blackhole route's" },
		{ IP(192, 0, 2, 200), { 0, 0, 0 }, 0, "an unreachable route's" },
		{ IP(10, 0, 1, 1), { 0, 0, 0 }, 0, "the router's own (p0)" },
		{ IP(10, 0, 2, 1), { 0, 0, 0 }, 0, "the router's own (p1)" },
		{ IP(10, 0, 1, 255), { 0, 0, 0 }, 0, "p0's subnet broadcast" },
		{ 0, { 1, 1, 1 }, 1, "0.0.0.0 (DHCP)" },
	};
	struct dpr_ip gw0 = { .af = DPR_AF_IP4 }, gw1 = { .af = DPR_AF_IP4 };
	struct dpr_worker *w = r->w;
	struct dpr_fib4_op ops[4];
	uint32_t members[2];
	unsigned int i, in;
	int g, d, err;

	gw0.ip4 = IP(10, 0, 1, 2);
	gw1.ip4 = IP(10, 0, 2, 2);
	d = dpr_nh_get(r->nh, &gw1, 1);
	CHECK(d >= DPR_NH_FIRST_DYNAMIC, "next hop 10.0.2.2");
	g = dpr_nh_find(r->nh, &gw0);
	CHECK(g >= DPR_NH_FIRST_DYNAMIC, "next hop 10.0.1.2");
	members[0] = (uint32_t)g;
	members[1] = (uint32_t)d;
	g = dpr_nh_group_get(r->nh, members, NULL, 2);
	CHECK(g >= DPR_NH_FIRST_DYNAMIC, "a group of 10.0.1.2 and 10.0.2.2");
	if (d < DPR_NH_FIRST_DYNAMIC || g < DPR_NH_FIRST_DYNAMIC)
		return;
	ops[0] = (struct dpr_fib4_op){ .ip = IP(172, 16, 0, 0), .depth = 16, .nh = (uint32_t)g };
	ops[1] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 0), .depth = 25,
				       .nh = DPR_NH_BLACKHOLE };
	ops[2] = (struct dpr_fib4_op){ .ip = IP(192, 0, 2, 128), .depth = 25, .nh = DPR_NH_NONE };
	ops[3] = (struct dpr_fib4_op){ .ip = 0, .depth = 0, .nh = (uint32_t)d };
	CHECK_EQ(dpr_route4_apply(r->fib, r->nh, ops, 4, &err), 4);

	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_mbuf *m = mk_ip4(&mac_p0, cases[i].src, IP(10, 0, 2, 2), 64, 8);
		char a[16];

		snprintf(a, sizeof(a), "%u.%u.%u.%u", cases[i].src >> 24, (cases[i].src >> 16) & 0xff,
			 (cases[i].src >> 8) & 0xff, cases[i].src & 0xff);
		for (in = 0; in < 3; in++)
			CHECK(dpr_urpf_ok(w, r->fib, NULL, m, (uint16_t)in, DPR_URPF_STRICT) ==
			      (cases[i].strict[in] != 0),
			      "strict on interface %u: source %s, %s, should %s", in, a,
			      cases[i].what, cases[i].strict[in] ? "pass" : "fail");
		CHECK(dpr_urpf_ok(w, r->fib, NULL, m, 0, DPR_URPF_LOOSE) == (cases[i].loose != 0),
		      "loose: source %s, %s, should %s", a, cases[i].what,
		      cases[i].loose ? "pass" : "fail");
		rte_pktmbuf_free(m);
	}

	for (i = 0; i < RTE_DIM(ops); i++)
		ops[i] = (struct dpr_fib4_op){ .ip = ops[i].ip, .depth = ops[i].depth, .del = 1 };
	CHECK_EQ(dpr_route4_apply(r->fib, r->nh, ops, 4, &err), 4);
}

int
main(int argc, char **argv)
{
	struct rig r = { 0 };

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "cannot init EAL\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_pool", 2048, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(pool != NULL, "pool");
	test_ttl_checksum();
	test_cksum_check();
	test_validate();
	test_tsc_span();
	test_tune();
	if (rig_init(&r) == 0) {
		test_urpf_priority_tag(&r);
		test_urpf_sources(&r);
		test_burst(&r);
		test_hairpin(&r);
		test_exception_full(&r);
		test_l2_control(&r);
		test_checksum_edges(&r);
		test_short_frames(&r);
		test_fast_matches_reference(&r, false);
		test_fast_matches_reference(&r, true);
		/* Again on a port without checksum offload: ol_flags are
		 * ignored on both paths. */
		r.ports[0].rx_ip_cksum = false;
		test_fast_matches_reference(&r, true);
		r.ports[0].rx_ip_cksum = true;
		test_pipeline_route_change(&r);
		test_rfc1812_screen(&r);
		test_link_local4(&r);
		test_identity_waiting(&r);
		test_tx_full(&r);
		test_out_acl(&r);
		test_worker_waiting(&r);
		test_vlan(&r);
		test_vlan_one_burst(&r);
		test_vlan_stripped_outer(&r);
		test_tagged_matches_untagged(&r, true, false);
		test_tagged_matches_untagged(&r, false, false);
		test_tagged_matches_untagged(&r, true, true);
		test_vlan_pretagged_flush(&r);
		test_vlan_offload(&r);
		test_qinq(&r);
	}
	rig_free(&r);
	return test_done("test_ip4");
}
