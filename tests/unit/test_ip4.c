/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 datapath: header checks, incremental checksum, next-hop rewrite and
 * where each crafted packet of a burst ends up, with its counter.
 */
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "config/config.h"
#include "datapath/datapath.h"
#include "datapath/ip4_dp.h"
#include "datapath/stats.h"
#include "route/route.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"neighbors\": ["
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

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + payload);
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
}

struct rig {
	struct dpr_config *cfg;
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
	CHECK_EQ(dpr_route_install_config(r->fib, r->nh, r->cfg, err, sizeof(err)), 0);

	r->ports = rte_zmalloc(NULL, sizeof(*r->ports) * 2, 0);
	r->ports[0] = (struct dpr_port_dp){ .mac = mac_p0, .port_id = 0, .mtu = 1500 };
	r->ports[1] = (struct dpr_port_dp){ .mac = mac_p1, .port_id = 1, .mtu = 1500 };
	r->w = rte_zmalloc(NULL, sizeof(*r->w), RTE_CACHE_LINE_SIZE);
	r->w->n_ports = 2;
	r->w->ports = r->ports;
	r->w->fib = r->fib;
	r->w->nh = dpr_nh_words(r->nh);
	r->w->port_index[0] = 0;
	r->w->port_index[1] = 1;
	r->w->exc_ring = rte_ring_create("test_exc", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	return 0;
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
	m = mk_ip4(&mac_p0, h1, IP(10, 0, 2, 2), 64, 32);                 /* 14 IPv6 ethertype */
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
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
	CHECK_EQ(st->drops[DPR_DROP_UNSUPPORTED_L3], 1);
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
	while (rte_ring_sc_dequeue_burst(w->exc_ring, (void **)pkts, 32, NULL) > 0)
		;
}

/* A TX queue that takes only part of a burst: the rest are tx_full drops,
 * charged to the input port, and the counters still add up. */
static void
test_tx_full(struct rig *r)
{
	struct dpr_worker *w = r->w;
	struct rte_ring *txr = rte_ring_create("test_txr", 4, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *pkts[8];
	unsigned int i;
	int pid;

	pid = rte_eth_from_ring(txr);
	CHECK(pid >= 0, "ring port");
	if (pid < 0)
		return;
	rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf);
	rte_eth_rx_queue_setup((uint16_t)pid, 0, 64, 0, NULL, pool);
	rte_eth_tx_queue_setup((uint16_t)pid, 0, 64, 0, NULL);
	rte_eth_dev_start((uint16_t)pid);
	r->ports[1].port_id = (uint16_t)pid;
	w->port_index[pid] = 1;

	memset(w->stats, 0, sizeof(w->stats));
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = mk_ip4(&mac_p0, IP(10, 0, 1, 2), IP(198, 51, 100, 1), 64, 8);
	dpr_ip4_input_burst(w, 0, pkts, RTE_DIM(pkts));
	dpr_tx_flush(w, 1);
	CHECK_EQ(w->stats[1].tx, rte_ring_get_capacity(txr));
	CHECK_EQ(w->stats[0].forwarded, rte_ring_get_capacity(txr));
	CHECK_EQ(w->stats[0].drops[DPR_DROP_TX_FULL], RTE_DIM(pkts) - rte_ring_get_capacity(txr));
	CHECK_EQ(accounted(&w->stats[0]), RTE_DIM(pkts));
	while (rte_ring_sc_dequeue_burst(txr, (void **)pkts, 8, NULL) > 0)
		rte_pktmbuf_free_bulk(pkts, rte_ring_get_capacity(txr));
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
	if (rig_init(&r) == 0) {
		test_burst(&r);
		test_exception_full(&r);
		test_tx_full(&r);
	}
	return test_done("test_ip4");
}
