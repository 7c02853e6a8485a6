/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multipath routes (ECMP, weighted): next-hop groups in the table (found
 * again, counted, freed with their members' references), the member a
 * flow hash picks (stable, spread by weight, dead members skipped, the
 * hashed one when none lives), the software flow hash, and then on a
 * router built here: the API, a worker's bursts and the control thread's
 * slow path through a group, each member's MAC and port checked; and the
 * config file's multipath routes on a router of their own.
 *
 * p0 10.0.1.1/24 2001:db8:1::1/64   the sender's side (h1 10.0.1.2)
 * p1 10.0.2.1/24 2001:db8:2::1/64   gateways 10.0.2.x, 2001:db8:2::x
 * p2 10.0.3.1/24 2001:db8:3::1/64   gateways 10.0.3.x, 2001:db8:3::x
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "api/rpc.h"
#include "clock_skew.h"
#include "datapath/datapath.h"
#include "datapath/ip4_dp.h"
#include "datapath/stats.h"
#include "exception/exception.h"
#include "exception/packet.h"
#include "rig.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define POOL_SIZE 4095
#define N_PORTS 3

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"mac\": \"02:00:00:00:02:01\","
	"  \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\"]},"
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"mac\": \"02:00:00:00:03:01\","
	"  \"addresses\": [\"10.0.3.1/24\", \"2001:db8:3::1/64\"]}],"
	" \"neighbors\": [{\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"}],"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 64,"
	"  \"ipv6_max_routes\": 4096, \"learned_neighbors_max\": 64}}";

static const struct rte_ether_addr mac_p[N_PORTS] = {
	{{ 0x02, 0, 0, 0, 0x01, 0x01 }}, {{ 0x02, 0, 0, 0, 0x02, 0x01 }},
	{{ 0x02, 0, 0, 0, 0x03, 0x01 }},
};
static const struct rte_ether_addr mac_h1 = {{ 0x02, 0, 0, 0, 0x01, 0x02 }};

static struct dpr_router R;
static struct rte_mempool *pool;
static struct rte_ring *txr[N_PORTS];

static struct dpr_ip
ip4(uint32_t a)
{
	return (struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = a };
}

static struct dpr_ip
ip6(const char *s)
{
	struct dpr_ip a;

	if (dpr_ip_parse(s, &a) < 0 || a.af != DPR_AF_IP6)
		abort();
	return a;
}

/* A gateway's MAC: 02:aa and the last four bytes of its address. */
static struct rte_ether_addr
gw_mac(const struct dpr_ip *a)
{
	const uint8_t *b = a->af == DPR_AF_IP4 ? NULL : a->ip6 + 12;
	struct rte_ether_addr m = {{ 0x02, 0xaa }};

	if (b == NULL) {
		m.addr_bytes[2] = (uint8_t)(a->ip4 >> 24);
		m.addr_bytes[3] = (uint8_t)(a->ip4 >> 16);
		m.addr_bytes[4] = (uint8_t)(a->ip4 >> 8);
		m.addr_bytes[5] = (uint8_t)a->ip4;
	} else {
		memcpy(&m.addr_bytes[2], b, 4);
	}
	return m;
}

static struct rte_mbuf *
alloc_frame(unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		fprintf(stderr, "test_ecmp: mbuf pool exhausted\n");
		abort();
	}
	memset(rte_pktmbuf_mtod(m, void *), 0, len);
	return m;
}

/*
 * An IPv4 frame from h1: protocol @p proto with ports @p sport, @p dport
 * in its first 4 bytes of payload, @p frag as fragment_offset (host
 * order), @p opt_len bytes of NOP options.
 */
static struct rte_mbuf *
mk4(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport, uint8_t ttl,
    uint16_t frag, unsigned int opt_len)
{
	unsigned int hlen = sizeof(struct rte_ipv4_hdr) + opt_len, payload = 16;
	struct rte_mbuf *m = alloc_frame(sizeof(struct rte_ether_hdr) + hlen + payload);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint8_t *l4 = (uint8_t *)ip + hlen;

	eth->dst_addr = mac_p[0];
	eth->src_addr = mac_h1;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = (uint8_t)(0x40 | (hlen / 4));
	ip->total_length = rte_cpu_to_be_16((uint16_t)(hlen + payload));
	ip->packet_id = rte_cpu_to_be_16(sport ^ 0x5555);
	ip->fragment_offset = rte_cpu_to_be_16(frag);
	ip->time_to_live = ttl;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	memset(ip + 1, 1, opt_len); /* NOP options */
	if (opt_len > 0)
		((uint8_t *)(ip + 1))[opt_len - 1] = 0; /* end of options */
	l4[0] = (uint8_t)(sport >> 8);
	l4[1] = (uint8_t)sport;
	l4[2] = (uint8_t)(dport >> 8);
	l4[3] = (uint8_t)dport;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static struct rte_mbuf *
udp4(uint32_t dst, uint16_t sport)
{
	return mk4(IP(10, 0, 1, 2), dst, IPPROTO_UDP, sport, 5001, 64, 0, 0);
}

static struct rte_mbuf *
mk6(const char *src, const char *dst, uint8_t proto, uint16_t sport, uint16_t dport)
{
	struct rte_mbuf *m = alloc_frame(sizeof(struct rte_ether_hdr) +
					 sizeof(struct rte_ipv6_hdr) + 16);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct dpr_ip s = ip6(src), d = ip6(dst);
	uint8_t *l4 = (uint8_t *)(ip + 1);

	eth->dst_addr = mac_p[0];
	eth->src_addr = mac_h1;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = RTE_BE32(0x60000000);
	ip->payload_len = RTE_BE16(16);
	ip->proto = proto;
	ip->hop_limits = 64;
	memcpy(&ip->src_addr, s.ip6, 16);
	memcpy(&ip->dst_addr, d.ip6, 16);
	l4[0] = (uint8_t)(sport >> 8);
	l4[1] = (uint8_t)sport;
	l4[2] = (uint8_t)(dport >> 8);
	l4[3] = (uint8_t)dport;
	return m;
}

static const struct rte_ether_hdr *
eth_of(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
}

/* A hash series that covers [0, 2^32) evenly (Weyl sequence). */
static uint32_t
hash_at(uint32_t i)
{
	return i * 2654435761u;
}

/* --- the table --------------------------------------------------------------- */

static int
gw(struct dpr_nh_table *t, uint32_t a, uint8_t port)
{
	struct dpr_ip ip = ip4(a);
	int idx = dpr_nh_get(t, &ip, port);

	CHECK(idx >= 0, "next hop for a gateway");
	return idx;
}

static uint32_t
refs(const struct dpr_nh_table *t, int idx)
{
	const struct dpr_nh_info *info = dpr_nh_info(t, (uint32_t)idx);

	return info != NULL ? info->refcnt : 0;
}

static const struct dpr_nh_group *
group_of(const struct dpr_nh_table *t, int idx)
{
	return dpr_nh_group_rcu(dpr_nh_words(t), dpr_nh_word_get(t, (uint32_t)idx));
}

/* Slots agree with slots_of[], and add up. */
static void
check_slots(const struct dpr_nh_group *g, const char *what)
{
	unsigned int count[DPR_NH_GROUP_MEMBERS] = { 0 }, i, sum = 0;

	for (i = 0; i < g->n_slots; i++) {
		CHECK(g->slot[i] < g->n_members, "%s: slot %u names member %u", what, i, g->slot[i]);
		if (g->slot[i] < g->n_members)
			count[g->slot[i]]++;
	}
	for (i = 0; i < g->n_members; i++) {
		CHECK(g->slots_of[i] >= 1 && count[i] == g->slots_of[i],
		      "%s: member %u has %u slots, slots_of says %u", what, i, count[i],
		      g->slots_of[i]);
		sum += g->slots_of[i];
	}
	CHECK(sum == g->n_slots && g->n_slots <= DPR_NH_GROUP_SLOTS, "%s: %u slots, %u shared",
	      what, g->n_slots, sum);
}

static void
test_group_table(void)
{
	struct dpr_nh_table *t = dpr_nh_table_create(0);
	uint32_t m[DPR_NH_GROUP_MEMBERS + 1], got[DPR_NH_GROUP_MEMBERS];
	uint32_t seventeen[DPR_NH_GROUP_MEMBERS + 1];
	uint16_t wt[DPR_NH_GROUP_MEMBERS + 1], gwt[DPR_NH_GROUP_MEMBERS];
	uint32_t base, i, j, n;
	int a, b, c, g, g2, gw21, one;
	const struct dpr_nh_group *grp;
	static int many[DPR_NH_GROUPS_MAX];
	uint32_t many_gw[130];

	CHECK(t != NULL, "table");
	if (t == NULL)
		return;
	base = dpr_nh_count(t);
	a = gw(t, IP(10, 0, 2, 2), 1);
	b = gw(t, IP(10, 0, 3, 2), 2);
	c = gw(t, IP(10, 0, 2, 3), 1);

	/* Create; the same members in another order find it again. */
	m[0] = (uint32_t)a, m[1] = (uint32_t)b;
	g = dpr_nh_group_get(t, m, NULL, 2);
	CHECK(g >= DPR_NH_FIRST_DYNAMIC, "group created (%d)", g);
	CHECK_EQ(dpr_nh_word_get(t, (uint32_t)g).kind, DPR_NH_KIND_GROUP);
	CHECK(dpr_nh_word_fwd_port(dpr_nh_word_get(t, (uint32_t)g).u64) > 0xff,
	      "a group's word sends the fast path to the slow one");
	CHECK_EQ(refs(t, g), 1);
	CHECK_EQ(refs(t, a), 2);
	CHECK_EQ(dpr_nh_info(t, (uint32_t)a)->groups, 1);
	CHECK_EQ(dpr_nh_group_count(t), 1);
	CHECK_EQ(dpr_nh_count(t), base + 4);
	m[0] = (uint32_t)b, m[1] = (uint32_t)a;
	wt[0] = 1, wt[1] = 1;
	g2 = dpr_nh_group_get(t, m, wt, 2);
	CHECK_EQ(g2, g);
	CHECK_EQ(refs(t, g), 2);
	CHECK_EQ(refs(t, a), 2);
	CHECK_EQ(dpr_nh_group_count(t), 1);

	/* Other weights: another group. Weights that fit are the slots. */
	m[0] = (uint32_t)b, m[1] = (uint32_t)a;
	wt[0] = 1, wt[1] = 2;
	gw21 = dpr_nh_group_get(t, m, wt, 2);
	CHECK(gw21 >= 0 && gw21 != g, "weights 2:1 are another group (%d, %d)", gw21, g);
	CHECK_EQ(dpr_nh_group_count(t), 2);
	n = dpr_nh_group_members(t, (uint32_t)gw21, got, gwt);
	CHECK(n == 2 && got[0] == (uint32_t)a && gwt[0] == 2 && got[1] == (uint32_t)b && gwt[1] == 1,
	      "members listed in index order with their weights");
	grp = group_of(t, gw21);
	CHECK(grp->n_members == 2 && grp->n_slots == 3 && grp->slots_of[0] == 2 &&
	      grp->member[0] == a && grp->member[1] == b, "2:1 is 3 slots, 2 for a");
	check_slots(grp, "2:1");
	CHECK_EQ(dpr_nh_group_members(t, (uint32_t)a, got, gwt), 0);

	/* One member is no group. */
	m[0] = (uint32_t)c;
	wt[0] = 7;
	one = dpr_nh_group_get(t, m, wt, 1);
	CHECK_EQ(one, c);
	CHECK_EQ(refs(t, c), 2);
	dpr_nh_put(t, (uint32_t)c);

	/* Refused, and nothing taken. */
	m[0] = (uint32_t)a, m[1] = (uint32_t)a;
	CHECK_EQ(dpr_nh_group_get(t, m, NULL, 2), -EINVAL);
	m[1] = (uint32_t)b;
	wt[0] = 0, wt[1] = 1;
	CHECK_EQ(dpr_nh_group_get(t, m, wt, 2), -EINVAL);
	wt[0] = DPR_NH_WEIGHT_MAX + 1;
	CHECK_EQ(dpr_nh_group_get(t, m, wt, 2), -EINVAL);
	CHECK_EQ(dpr_nh_group_get(t, m, NULL, 0), -EINVAL);
	m[1] = DPR_NH_LOCAL;
	CHECK_EQ(dpr_nh_group_get(t, m, NULL, 2), -EINVAL);
	m[1] = (uint32_t)g;
	CHECK_EQ(dpr_nh_group_get(t, m, NULL, 2), -EINVAL);
	m[1] = DPR_NH_MAX - 1; /* not in use */
	CHECK_EQ(dpr_nh_group_get(t, m, NULL, 2), -EINVAL);
	for (i = 0; i <= DPR_NH_GROUP_MEMBERS; i++)
		seventeen[i] = (uint32_t)gw(t, IP(10, 0, 2, 100 + i), 1);
	CHECK_EQ(dpr_nh_group_get(t, seventeen, NULL, DPR_NH_GROUP_MEMBERS + 1), -EINVAL);

	/* Weights over the slots: shared in proportion, each at least one. */
	for (i = 0; i < DPR_NH_GROUP_MEMBERS; i++)
		wt[i] = (uint16_t)(i + 1);
	g2 = dpr_nh_group_get(t, seventeen, wt, DPR_NH_GROUP_MEMBERS);
	CHECK(g2 >= 0, "16 members");
	grp = group_of(t, g2);
	CHECK_EQ(grp->n_slots, DPR_NH_GROUP_SLOTS);
	check_slots(grp, "1..16");
	for (i = 0; i < DPR_NH_GROUP_MEMBERS; i++) {
		double want = (double)DPR_NH_GROUP_SLOTS * (i + 1) / 136.0;

		CHECK(grp->slots_of[i] >= want - 1.0 && grp->slots_of[i] <= want + 1.0,
		      "weight %u of 136: %u of 64 slots, want %.1f", i + 1, grp->slots_of[i], want);
	}
	dpr_nh_put(t, (uint32_t)g2);
	m[0] = (uint32_t)a, m[1] = (uint32_t)b, m[2] = (uint32_t)c;
	wt[0] = 256, wt[1] = 1, wt[2] = 1;
	g2 = dpr_nh_group_get(t, m, wt, 3);
	grp = group_of(t, g2);
	CHECK(grp->n_slots == 64 && grp->slots_of[0] == 62 && grp->slots_of[1] == 1 &&
	      grp->slots_of[2] == 1, "256:1:1 is 62:1:1 of 64 slots");
	check_slots(grp, "256:1:1");
	dpr_nh_put(t, (uint32_t)g2);
	for (i = 0; i <= DPR_NH_GROUP_MEMBERS; i++)
		dpr_nh_put(t, seventeen[i]);
	CHECK_EQ(dpr_nh_group_count(t), 2);
	CHECK_EQ(dpr_nh_count(t), base + 5);

	/* The last reference frees the group, and its hold on the members. */
	dpr_nh_put(t, (uint32_t)g);
	CHECK_EQ(refs(t, g), 1);
	dpr_nh_put(t, (uint32_t)g);
	CHECK(dpr_nh_info(t, (uint32_t)g) == NULL, "group freed");
	CHECK_EQ(dpr_nh_word_get(t, (uint32_t)g).kind, DPR_NH_KIND_NO_ROUTE);
	CHECK_EQ(dpr_nh_group_count(t), 1);
	CHECK_EQ(refs(t, a), 2); /* ours and gw21's */
	CHECK_EQ(dpr_nh_info(t, (uint32_t)a)->groups, 1);
	dpr_nh_put(t, (uint32_t)a);
	dpr_nh_put(t, (uint32_t)b);
	CHECK(dpr_nh_info(t, (uint32_t)a) != NULL, "a group keeps its members");
	dpr_nh_put(t, (uint32_t)gw21);
	CHECK(dpr_nh_info(t, (uint32_t)a) == NULL && dpr_nh_info(t, (uint32_t)b) == NULL,
	      "members go with the group's references");
	CHECK_EQ(dpr_nh_group_count(t), 0);
	dpr_nh_put(t, (uint32_t)c);
	CHECK_EQ(dpr_nh_count(t), base);

	/* Every group in use: -ENOSPC, until one is freed. Pairs of 130
	 * gateways make 8385 distinct groups. */
	for (i = 0; i < 130; i++)
		many_gw[i] = (uint32_t)gw(t, IP(10, 0, 2 + i / 100, i % 100 + 10),
					  (uint8_t)(1 + i / 100));
	n = 0;
	for (i = 0; i < 130 && n < DPR_NH_GROUPS_MAX; i++) {
		for (j = i + 1; j < 130 && n < DPR_NH_GROUPS_MAX; j++) {
			uint32_t pair[2] = { many_gw[i], many_gw[j] };

			many[n] = dpr_nh_group_get(t, pair, NULL, 2);
			if (many[n] < 0)
				break;
			n++;
		}
	}
	CHECK_EQ(n, DPR_NH_GROUPS_MAX);
	CHECK_EQ(dpr_nh_group_count(t), DPR_NH_GROUPS_MAX);
	m[0] = many_gw[128], m[1] = many_gw[129];
	CHECK_EQ(dpr_nh_group_get(t, m, NULL, 2), -ENOSPC);
	dpr_nh_put(t, (uint32_t)many[0]);
	g = dpr_nh_group_get(t, m, NULL, 2);
	CHECK(g >= 0, "a freed group is there to take");
	dpr_nh_put(t, (uint32_t)g);
	for (i = 1; i < n; i++)
		dpr_nh_put(t, (uint32_t)many[i]);
	for (i = 0; i < 130; i++)
		dpr_nh_put(t, many_gw[i]);
	CHECK_EQ(dpr_nh_group_count(t), 0);
	CHECK_EQ(dpr_nh_count(t), base);
	dpr_nh_table_free(t);
}

/* --- the pick ----------------------------------------------------------------- */

#define FLOWS 30000

static void
resolve(struct dpr_nh_table *t, int idx, uint8_t port)
{
	struct rte_ether_addr mac = {{ 0x02, 0xbb, 0, 0, (uint8_t)(idx >> 8), (uint8_t)idx }};

	dpr_nh_resolve(t, (uint32_t)idx, port, &mac, false);
}

static void
test_pick(void)
{
	struct dpr_nh_table *t = dpr_nh_table_create(0);
	static uint32_t before[FLOWS];
	const union dpr_nh_word *words;
	uint32_t m[3], on[3] = { 0 }, stayed = 0, moved_to[2] = { 0 }, i, k;
	uint16_t wt[2] = { 3, 1 };
	int a, b, c, g, gw31;

	CHECK(t != NULL, "table");
	if (t == NULL)
		return;
	words = dpr_nh_words(t);
	a = gw(t, IP(10, 0, 2, 2), 1);
	b = gw(t, IP(10, 0, 3, 2), 2);
	c = gw(t, IP(10, 0, 2, 3), 1);
	resolve(t, a, 1);
	resolve(t, b, 2);
	resolve(t, c, 1);
	m[0] = (uint32_t)a, m[1] = (uint32_t)b, m[2] = (uint32_t)c;
	g = dpr_nh_group_get(t, m, NULL, 3);
	gw31 = dpr_nh_group_get(t, m, wt, 2);
	CHECK(g >= 0 && gw31 >= 0, "groups");

	/* Not a group: itself. */
	CHECK_EQ(dpr_nh_pick(t, (uint32_t)a, 12345), (uint32_t)a);

	/* Same hash, same member; all members used about equally. */
	for (i = 0; i < FLOWS; i++) {
		before[i] = dpr_nh_pick(t, (uint32_t)g, hash_at(i));
		CHECK(before[i] == dpr_nh_pick(t, (uint32_t)g, hash_at(i)), "hash %u moved", i);
		for (k = 0; k < 3; k++)
			on[k] += before[i] == m[k];
	}
	for (k = 0; k < 3; k++)
		CHECK(on[k] > FLOWS * 0.30 && on[k] < FLOWS * 0.37, "member %u has %u of %u flows",
		      k, on[k], FLOWS);

	/* Weights 3:1 give shares 3/4 and 1/4. */
	for (i = 0, on[0] = 0; i < FLOWS; i++)
		on[0] += dpr_nh_pick(t, (uint32_t)gw31, hash_at(i)) == m[0];
	CHECK(on[0] > FLOWS * 0.72 && on[0] < FLOWS * 0.78, "3:1: %u of %u flows on the 3", on[0],
	      FLOWS);

	/* RSS hashes whose low bits chose one RX queue still spread. */
	for (i = 0, on[0] = on[1] = on[2] = 0; i < FLOWS; i++) {
		uint32_t p = dpr_nh_pick(t, (uint32_t)g, (hash_at(i) & ~0x7fu) | 0x5);

		for (k = 0; k < 3; k++)
			on[k] += p == m[k];
	}
	for (k = 0; k < 3; k++)
		CHECK(on[k] > FLOWS * 0.30 && on[k] < FLOWS * 0.37,
		      "fixed low bits: member %u has %u of %u flows", k, on[k], FLOWS);

	/* A member without a MAC drops out: its flows spread over the
	 * others, by weight; every other flow stays where it was. */
	dpr_nh_unresolve(t, (uint32_t)c, 1);
	for (i = 0, k = 0; i < FLOWS; i++) {
		uint32_t p = dpr_nh_pick(t, (uint32_t)g, hash_at(i));

		CHECK(p != (uint32_t)c, "hash %u picked the unresolved member", i);
		if (before[i] != (uint32_t)c) {
			stayed += p == before[i];
		} else {
			k++;
			moved_to[p == (uint32_t)a ? 0 : 1]++;
		}
	}
	CHECK_EQ(stayed, FLOWS - k);
	CHECK(moved_to[0] > k * 0.40 && moved_to[1] > k * 0.40,
	      "the unresolved member's %u flows spread: %u and %u", k, moved_to[0], moved_to[1]);

	/* It comes back: every flow is where it was at first. */
	resolve(t, c, 1);
	for (i = 0, k = 0; i < FLOWS; i++)
		k += dpr_nh_pick(t, (uint32_t)g, hash_at(i)) == before[i];
	CHECK_EQ(k, FLOWS);

	/* None forwardable: the hashed member, to be resolved as for a plain
	 * route. */
	dpr_nh_unresolve(t, (uint32_t)a, 1);
	dpr_nh_unresolve(t, (uint32_t)b, 2);
	dpr_nh_unresolve(t, (uint32_t)c, 1);
	for (i = 0, k = 0; i < FLOWS; i++)
		k += dpr_nh_pick(t, (uint32_t)g, hash_at(i)) == before[i];
	CHECK_EQ(k, FLOWS);
	/* The worker's pick is the same function on the same words. */
	resolve(t, b, 2);
	for (i = 0, k = 0; i < 1000; i++)
		k += dpr_nh_group_pick_rcu(words, dpr_nh_word_get(t, (uint32_t)g), hash_at(i)) ==
			(uint32_t)b;
	CHECK_EQ(k, 1000);

	dpr_nh_put(t, (uint32_t)g);
	dpr_nh_put(t, (uint32_t)gw31);
	dpr_nh_put(t, (uint32_t)a);
	dpr_nh_put(t, (uint32_t)b);
	dpr_nh_put(t, (uint32_t)c);
	CHECK_EQ(dpr_nh_count(t), DPR_NH_FIRST_DYNAMIC);
	dpr_nh_table_free(t);
}

/* --- the software hash -------------------------------------------------------- */

static uint32_t
hash_free(struct rte_mbuf *m)
{
	uint32_t h = dpr_flow_hash_sw(m);

	rte_pktmbuf_free(m);
	return h;
}

static void
test_flow_hash(void)
{
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_TCP };
	uint32_t base, h, seen[200];
	unsigned int i, j, distinct;
	struct rte_mbuf *m;

	for (j = 0; j < RTE_DIM(protos); j++) {
		uint8_t pr = protos[j];

		/* The 5-tuple, nothing else: TTL, ID and payload do not count. */
		base = hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 1000, 5001, 64, 0, 0));
		m = mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 1000, 5001, 7, 0, 0);
		rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 20 + 8)[0] = 0x77;
		CHECK_EQ(hash_free(m), base);
		CHECK(hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 1000, 5002, 64, 0, 0)) != base,
		      "destination port counts (proto %u)", pr);
		CHECK(hash_free(mk4(IP(10, 0, 1, 3), IP(10, 9, 0, 5), pr, 1000, 5001, 64, 0, 0)) != base,
		      "source address counts");
		CHECK(hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 6), pr, 1000, 5001, 64, 0, 0)) != base,
		      "destination address counts");
		/* Options move the ports: still found. */
		CHECK(hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 1000, 5001, 64, 0, 8)) ==
		      base, "ports behind IP options (proto %u)", pr);
		for (i = 0, distinct = 0; i < RTE_DIM(seen); i++) {
			seen[i] = hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr,
						(uint16_t)(2000 + i), 5001, 64, 0, 0));
			distinct++;
			for (unsigned int k = 0; k < i; k++)
				if (seen[k] == seen[i]) {
					distinct--;
					break;
				}
		}
		CHECK(distinct >= RTE_DIM(seen) - 1, "200 source ports, %u hashes (proto %u)",
		      distinct, pr);

		/* Fragments: first (MF) and later (offset) hash alike, ports not read. */
		h = hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 1000, 5001, 64,
				  RTE_IPV4_HDR_MF_FLAG, 0));
		CHECK_EQ(hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 3000, 9, 64,
				       RTE_IPV4_HDR_MF_FLAG, 0)), h);
		CHECK_EQ(hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), pr, 4000, 7, 64, 185, 0)), h);
		CHECK(h != base, "a fragment hashes without ports");
	}
	/* Other protocols: addresses and protocol only. */
	CHECK_EQ(hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), IPPROTO_ICMP, 1, 2, 64, 0, 0)),
		 hash_free(mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), IPPROTO_ICMP, 3, 4, 64, 0, 0)));
	/* A UDP header cut off by the segment: not read. */
	m = mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), IPPROTO_UDP, 1000, 5001, 64, 0, 0);
	m->data_len = 14 + 20 + 2;
	m->pkt_len = m->data_len;
	h = hash_free(m);
	m = mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), IPPROTO_UDP, 1, 2, 64, 0, 0);
	m->data_len = 14 + 20 + 2;
	m->pkt_len = m->data_len;
	CHECK_EQ(hash_free(m), h);

	/* IPv6: the same rules; a fragment header hides the ports. */
	base = hash_free(mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_UDP, 1000, 5001));
	CHECK_EQ(hash_free(mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_UDP, 1000, 5001)), base);
	CHECK(hash_free(mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_UDP, 1001, 5001)) != base,
	      "IPv6: source port counts");
	CHECK(hash_free(mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_TCP, 1000, 5001)) != base,
	      "IPv6: protocol counts");
	CHECK(hash_free(mk6("2001:db8:1::3", "2001:db8:9::5", IPPROTO_UDP, 1000, 5001)) != base,
	      "IPv6: source counts");
	CHECK(hash_free(mk6("2001:db8:1::2", "2001:db8:9::6", IPPROTO_UDP, 1000, 5001)) != base,
	      "IPv6: destination counts");
	CHECK_EQ(hash_free(mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_FRAGMENT, 1000, 5001)),
		 hash_free(mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_FRAGMENT, 2000, 6001)));

	/* The NIC's RSS hash when it gave one. */
	m = udp4(IP(10, 9, 0, 5), 1000);
	h = dpr_flow_hash_sw(m);
	CHECK_EQ(dpr_flow_hash_rx(m), h);
	m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	m->hash.rss = h ^ 0x5a5a5a5a;
	CHECK_EQ(dpr_flow_hash_rx(m), h ^ 0x5a5a5a5a);
	rte_pktmbuf_free(m);
}

/* --- on a router: the API ------------------------------------------------------ */

static json_t *
rpc(const char *method, const char *params_fmt, ...)
{
	char params[2048], req[2200];
	va_list ap;
	char *out;
	json_t *res;

	va_start(ap, params_fmt);
	vsnprintf(params, sizeof(params), params_fmt, ap);
	va_end(ap);
	for (char *p = params; *p; p++)
		if (*p == '\'')
			*p = '"';
	snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}",
		 method, params);
	out = dpr_rpc_handle_text(&R, req, strlen(req));
	res = out != NULL ? json_loads(out, 0, NULL) : NULL;
	CHECK(res != NULL, "response to %s", req);
	free(out);
	return res;
}

/* The result of a call that must succeed (a new reference), or NULL. */
static json_t *
ok(const char *method, const char *params_fmt, const char *params)
{
	json_t *res = rpc(method, params_fmt, params), *r = json_object_get(res, "result");

	CHECK(r != NULL, "%s %s: %s", method, params,
	      json_string_value(json_object_get(json_object_get(res, "error"), "message")));
	json_incref(r);
	json_decref(res);
	return r;
}

/* A call that must fail with @p code and a message holding @p part. */
static void
fails(int code, const char *part, const char *method, const char *params)
{
	json_t *res = rpc(method, "%s", params), *e = json_object_get(res, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));

	CHECK(e != NULL && json_integer_value(json_object_get(e, "code")) == code &&
	      msg != NULL && strstr(msg, part) != NULL, "%s %s: want %d \"%s\", got %s %s", method,
	      params, code, part, e != NULL ? "error" : "success", msg != NULL ? msg : "");
	json_decref(res);
}

/* route.add PREFIX through gateways @p a and @p b, weights 1. */
static void
add_multipath(const char *prefix, const char *a, const char *b)
{
	char params[256];

	snprintf(params, sizeof(params), "{'prefix':'%s','nexthops':[{'via':'%s'},{'via':'%s'}]}",
		 prefix, a, b);
	json_decref(ok("route.add", "%s", params));
}

static int
route_nh(const char *prefix)
{
	struct dpr_prefix pf;
	uint32_t nh;

	if (dpr_prefix_parse(prefix, false, &pf, NULL, 0) < 0 || dpr_route_get(&R.rib, &pf, &nh) < 0)
		return -1;
	return (int)nh;
}

static int
nh_of_ip(struct dpr_ip a)
{
	return dpr_nh_find(R.nh, &a);
}

/* route.get's next hops: "via/port/weight/resolved" each, in @p out. */
static void
nexthops_text(const char *addr, char *out, size_t len)
{
	json_t *r = ok("route.get", "{'address':'%s'}", addr), *nh;
	size_t i, n = 0;

	out[0] = '\0';
	n += (size_t)snprintf(out, len, "%s:", json_string_value(json_object_get(r, "type")));
	json_array_foreach(json_object_get(r, "nexthops"), i, nh)
		n += (size_t)snprintf(out + n, len - RTE_MIN(n, len), " %s/%s/%lld/%d",
				      json_string_value(json_object_get(nh, "via")),
				      json_string_value(json_object_get(nh, "port")),
				      (long long)json_integer_value(json_object_get(nh, "weight")),
				      json_is_true(json_object_get(nh, "resolved")));
	json_decref(r);
}

/*
 * route.get with a flow names the member dpr_nh_pick() gives for the
 * software hash of that flow's packets (what a worker does without RSS).
 */
static const char *
flow_member(const char *params, char *out, size_t len)
{
	json_t *r = ok("route.get", "%s", params), *m = json_object_get(r, "member");

	snprintf(out, len, "%s/%s", m ? json_string_value(json_object_get(m, "via")) : "none",
		 m ? json_string_value(json_object_get(m, "port")) : "none");
	json_decref(r);
	return out;
}

/* "via/port" of the member the worker's hash of @p m picks from route @p prefix. */
static const char *
picked(const char *prefix, struct rte_mbuf *m, char *out, size_t len)
{
	uint32_t nh = dpr_nh_pick(R.nh, (uint32_t)route_nh(prefix), dpr_flow_hash_sw(m));
	char buf[DPR_IP6_STRLEN];

	snprintf(out, len, "%s/%s", dpr_ip_fmt(&dpr_nh_info(R.nh, nh)->ip, buf, sizeof(buf)),
		 R.cfg->ports[dpr_nh_word_get(R.nh, nh).port].name);
	rte_pktmbuf_free(m);
	return out;
}

static void
test_route_get_flow(void)
{
	char params[256], got[96], want[96];
	unsigned int seen4 = 0, seen6 = 0, same = 0, i;
	json_t *r;

	for (i = 0; i < 64; i++) {
		uint16_t sport = (uint16_t)(40000 + i * 7);

		snprintf(params, sizeof(params), "{'address':'10.8.1.1','source':'10.0.1.2',"
			 "'protocol':'udp','source_port':%u,'destination_port':5001}", sport);
		flow_member(params, got, sizeof(got));
		picked("10.8.0.0/16", mk4(IP(10, 0, 1, 2), IP(10, 8, 1, 1), IPPROTO_UDP, sport, 5001,
					 64, 0, 0), want, sizeof(want));
		same += strcmp(got, want) == 0;
		seen4 |= strcmp(got, "10.0.2.2/p1") == 0 ? 1 : strcmp(got, "10.0.3.2/p2") == 0 ? 2 : 4;
		snprintf(params, sizeof(params), "{'address':'2001:db8:9::1','source':'2001:db8:1::2',"
			 "'protocol':6,'source_port':%u,'destination_port':443}", sport);
		flow_member(params, got, sizeof(got));
		picked("2001:db8:9::/48", mk6("2001:db8:1::2", "2001:db8:9::1", IPPROTO_TCP, sport,
					      443), want, sizeof(want));
		same += strcmp(got, want) == 0;
		seen6 |= strcmp(got, "2001:db8:2::2/p1") == 0 ? 1 :
			 strcmp(got, "2001:db8:3::2/p2") == 0 ? 2 : 4;
	}
	CHECK(same == 128, "route.get's member is the worker's pick for %u of 128 flows", same);
	CHECK(seen4 == 3, "IPv4 flows by source port spread over both members (seen %#x)", seen4);
	CHECK(seen6 == 3, "IPv6 flows by source port spread over both members (seen %#x)", seen6);
	/* ICMP hashes by addresses and protocol, as a worker does. */
	flow_member("{'address':'10.8.1.1','source':'10.0.1.2','protocol':'icmp'}", got, sizeof(got));
	picked("10.8.0.0/16", mk4(IP(10, 0, 1, 2), IP(10, 8, 1, 1), IPPROTO_ICMP, 0x0800, 0x1234,
				 64, 0, 0), want, sizeof(want));
	CHECK(strcmp(got, want) == 0, "icmp flow: route.get %s, worker %s", got, want);
	/* Without a flow, or on a route of one next hop: no member. */
	flow_member("{'address':'10.8.1.1'}", got, sizeof(got));
	CHECK(strcmp(got, "none/none") == 0, "no flow, no member: %s", got);
	r = ok("route.get", "%s", "{'address':'10.0.2.7','source':'10.0.1.2','protocol':'udp',"
	       "'source_port':1,'destination_port':2}");
	CHECK(r != NULL && json_object_get(r, "member") == NULL &&
	      strcmp(json_string_value(json_object_get(r, "type")), "connected") == 0,
	      "a flow to a plain route: answered without a member");
	json_decref(r);

	fails(DPR_RPC_INVALID_PARAMS, "a flow needs \"source\"", "route.get",
	      "{'address':'10.8.1.1','protocol':'udp','source_port':1,'destination_port':2}");
	fails(DPR_RPC_INVALID_PARAMS, "source \"2001:db8:1::2\": not an IPv4 address", "route.get",
	      "{'address':'10.8.1.1','source':'2001:db8:1::2','protocol':'icmp'}");
	fails(DPR_RPC_INVALID_PARAMS, "a flow needs \"protocol\"", "route.get",
	      "{'address':'10.8.1.1','source':'10.0.1.2'}");
	fails(DPR_RPC_INVALID_PARAMS, "\"protocol\" must be \"tcp\", \"udp\"", "route.get",
	      "{'address':'10.8.1.1','source':'10.0.1.2','protocol':'sctp'}");
	fails(DPR_RPC_INVALID_PARAMS, "\"protocol\" must be", "route.get",
	      "{'address':'10.8.1.1','source':'10.0.1.2','protocol':256}");
	fails(DPR_RPC_INVALID_PARAMS, "a udp flow needs \"source_port\" and \"destination_port\"",
	      "route.get", "{'address':'10.8.1.1','source':'10.0.1.2','protocol':'udp','source_port':1}");
	fails(DPR_RPC_INVALID_PARAMS, "ports are for tcp and udp only, not protocol 1", "route.get",
	      "{'address':'10.8.1.1','source':'10.0.1.2','protocol':'icmp','destination_port':2}");
	fails(DPR_RPC_INVALID_PARAMS, "\"source_port\" must be an integer from 0 to 65535",
	      "route.get", "{'address':'10.8.1.1','source':'10.0.1.2','protocol':'tcp',"
	      "'source_port':65536,'destination_port':2}");
	fails(DPR_RPC_INVALID_PARAMS, "unknown parameter \"src\"", "route.get",
	      "{'address':'10.8.1.1','src':'10.0.1.2'}");
}

static void
test_api(void)
{
	uint32_t groups = dpr_nh_group_count(R.nh), nhs = dpr_nh_count(R.nh);
	char text[512];
	json_t *r;
	int g;

	r = ok("route.add", "%s", "{'prefix':'10.8.0.0/16','nexthops':[{'via':'10.0.2.2'},"
	       "{'via':'10.0.3.2','port':'p2','weight':3}]}");
	CHECK(strcmp(json_string_value(json_object_get(r, "type")), "multipath") == 0,
	      "route.add answers the multipath route");
	json_decref(r);
	nexthops_text("10.8.1.1", text, sizeof(text));
	CHECK(strcmp(text, "multipath: 10.0.2.2/p1/1/0 10.0.3.2/p2/3/0") == 0, "route.get: %s", text);
	g = route_nh("10.8.0.0/16");
	CHECK(g >= 0 && dpr_nh_word_get(R.nh, (uint32_t)g).kind == DPR_NH_KIND_GROUP,
	      "the FIB points at a group");
	CHECK_EQ(dpr_nh_group_count(R.nh), groups + 1);

	/* The same next hops in another order, by route.load lines: the same
	 * group. */
	r = ok("route.load", "%s", "{'routes':['10.7.0.0/16 via 10.0.3.2 dev p2 weight 3 via 10.0.2.2',"
	       " {'prefix':'2001:db8:9::/48','nexthops':[{'via':'2001:db8:2::2'},{'via':'2001:db8:3::2'}]},"
	       " '2001:db8:8::/48 via 2001:db8:3::2 via 2001:db8:2::2 weight 1']}");
	json_decref(r);
	CHECK_EQ(route_nh("10.7.0.0/16"), g);
	CHECK_EQ(dpr_nh_group_count(R.nh), groups + 2);
	CHECK_EQ(route_nh("2001:db8:9::/48"), route_nh("2001:db8:8::/48"));
	nexthops_text("2001:db8:9::1", text, sizeof(text));
	CHECK(strcmp(text, "multipath: 2001:db8:2::2/p1/1/0 2001:db8:3::2/p2/1/0") == 0,
	      "route.get, IPv6: %s", text);
	test_route_get_flow();
	/* One next hop in "nexthops" is a plain route. */
	r = ok("route.add", "%s", "{'prefix':'10.6.0.0/16','nexthops':[{'via':'10.0.2.2','weight':9}]}");
	CHECK(strcmp(json_string_value(json_object_get(r, "type")), "gateway") == 0, "plain: %s",
	      json_string_value(json_object_get(r, "type")));
	json_decref(r);
	CHECK_EQ(route_nh("10.6.0.0/16"), nh_of_ip(ip4(IP(10, 0, 2, 2))));
	/* route.list shows them. */
	r = ok("route.list", "%s", "{'after':'10.7.0.0/16','limit':1}");
	{
		json_t *first = json_array_get(json_object_get(r, "routes"), 0);

		CHECK(first != NULL &&
		      strcmp(json_string_value(json_object_get(first, "prefix")), "10.8.0.0/16") == 0 &&
		      json_array_size(json_object_get(first, "nexthops")) == 2,
		      "route.list shows 10.8.0.0/16 with its two next hops");
	}
	json_decref(r);

	/* Refused, with nothing left behind. */
	fails(DPR_RPC_INVALID_PARAMS, "not both", "route.add",
	      "{'prefix':'10.5.0.0/16','via':'10.0.2.2','nexthops':[{'via':'10.0.3.2'}]}");
	fails(DPR_RPC_INVALID_PARAMS, "nexthops[1]: gateway 10.0.2.2 is nexthops[0] already",
	      "route.add",
	      "{'prefix':'10.5.0.0/16','nexthops':[{'via':'10.0.2.2'},{'via':'10.0.2.2'}]}");
	fails(DPR_RPC_INVALID_PARAMS, "nexthops[1]: missing parameter \"via\"", "route.add",
	      "{'prefix':'10.5.0.0/16','nexthops':[{'via':'10.0.2.2'},{'port':'p1'}]}");
	fails(DPR_RPC_INVALID_PARAMS, "\"weight\" must be an integer from 1 to 256", "route.add",
	      "{'prefix':'10.5.0.0/16','nexthops':[{'via':'10.0.2.2','weight':0},{'via':'10.0.3.2'}]}");
	fails(DPR_RPC_INVALID_PARAMS, "nexthops[1]: gateway 10.0.9.2 is not on a connected subnet",
	      "route.add",
	      "{'prefix':'10.5.0.0/16','nexthops':[{'via':'10.0.2.2'},{'via':'10.0.9.2'}]}");
	fails(DPR_RPC_INVALID_PARAMS, "1 to 16 objects", "route.add",
	      "{'prefix':'10.5.0.0/16','nexthops':[]}");
	fails(DPR_RPC_INVALID_PARAMS, "unknown parameter \"metric\"", "route.add",
	      "{'prefix':'10.5.0.0/16','nexthops':[{'via':'10.0.2.2','metric':1}]}");
	fails(DPR_RPC_INVALID_PARAMS, "weight \"0\" must be", "route.load",
	      "{'routes':['10.5.0.0/16 via 10.0.2.2 weight 0 via 10.0.3.2']}");
	fails(DPR_RPC_INVALID_PARAMS, "routes[0]", "route.load",
	      "{'routes':['10.5.0.0/16 via 10.0.2.2 weight 2 weight 3']}");
	fails(DPR_RPC_INVALID_PARAMS, "not an IPv6 address", "route.add",
	      "{'prefix':'2001:db8:5::/48','nexthops':[{'via':'2001:db8:2::2'},{'via':'10.0.3.2'}]}");
	CHECK_EQ(route_nh("10.5.0.0/16"), -1);
	CHECK_EQ(dpr_nh_group_count(R.nh), groups + 2);

	/* Deleting the routes frees the groups and their hold on the gateways. */
	json_decref(ok("route.del", "%s", "{'prefix':'10.8.0.0/16'}"));
	CHECK_EQ(dpr_nh_group_count(R.nh), groups + 2);
	json_decref(ok("route.load", "%s", "{'routes':['del 10.7.0.0/16','del 10.6.0.0/16',"
		       "'del 2001:db8:9::/48','del 2001:db8:8::/48']}"));
	CHECK_EQ(dpr_nh_group_count(R.nh), groups);
	CHECK_EQ(dpr_nh_count(R.nh), nhs);
	CHECK_EQ(nh_of_ip(ip4(IP(10, 0, 3, 2))), -ENOENT);
}

/* --- on a router: multipath routes of the config file ------------------------------ */

#define CONFIG_PORTS \
	"{\"ports\": [" \
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]}," \
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\"]}," \
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"addresses\": [\"10.0.3.1/24\", \"2001:db8:3::1/64\"]}]," \
	" \"neighbors\": [{\"address\": \"10.0.2.2\", \"mac\": \"02:00:00:00:02:02\"}]," \
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 64, \"ipv6_max_routes\": 4096}"

static const char config_multipath_text[] = CONFIG_PORTS ", \"routes\": ["
	" {\"prefix\": \"10.9.0.0/16\", \"nexthops\": [{\"via\": \"10.0.2.2\", \"weight\": 2},"
	"  {\"via\": \"10.0.3.2\", \"port\": \"p2\"}]},"
	" {\"prefix\": \"2001:db8:9::/48\", \"nexthops\": [{\"via\": \"2001:db8:2::2\"},"
	"  {\"via\": \"fe80::2\", \"port\": \"p2\", \"weight\": 5}]},"
	" {\"prefix\": \"10.10.0.0/16\", \"nexthops\": [{\"via\": \"10.0.3.2\"},"
	"  {\"via\": \"10.0.2.2\", \"weight\": 2}]},"
	" {\"prefix\": \"10.11.0.0/16\", \"nexthops\": [{\"via\": \"10.0.2.3\", \"weight\": 7}]}]}";

/* Member @p i of group @p g as "via/port/weight/kind". */
static void
member_text(const struct dpr_nh_table *t, uint32_t g, char *out, size_t len)
{
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t weights[DPR_NH_GROUP_MEMBERS];
	unsigned int n = dpr_nh_group_members(t, g, members, weights), i;
	size_t k = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		char ip[DPR_IP6_STRLEN];
		union dpr_nh_word w = dpr_nh_word_get(t, members[i]);

		dpr_ip_fmt(&dpr_nh_info(t, members[i])->ip, ip, sizeof(ip));
		k += (size_t)snprintf(out + k, len - RTE_MIN(k, len), "%s%s/%u/%u/%u", i ? " " : "",
				      ip, w.port, weights[i], w.kind);
	}
}

/* Is string member @p key of @p o @p want? */
static bool
str_is(const json_t *o, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v != NULL && strcmp(v, want) == 0;
}

/* The weight of member @p via on @p port in config.get's "nexthops", or 0. */
static json_int_t
weight_of(const json_t *nhs, const char *via, const char *port)
{
	const json_t *m;
	size_t i;

	json_array_foreach(nhs, i, m)
		if (str_is(m, "via", via) && str_is(m, "port", port))
			return json_integer_value(json_object_get(m, "weight"));
	return 0;
}

/* member_text() of two groups: the same members, in any order. */
static bool
same_members(const char *x, const char *y)
{
	char *a = strdup(x), *save = NULL, *t;
	unsigned int n = 0;
	bool same = a != NULL;

	for (t = same ? strtok_r(a, " ", &save) : NULL; t != NULL; t = strtok_r(NULL, " ", &save)) {
		const char *at = strstr(y, t);
		size_t len = strlen(t);

		n++;
		if (at == NULL || (at != y && at[-1] != ' ') || (at[len] != ' ' && at[len] != '\0'))
			same = false;
	}
	free(a);
	for (t = strchr(y, ' '); t != NULL; t = strchr(t + 1, ' '))
		n--;
	return same && (y[0] != '\0' ? n == 1 : n == 0);
}

static uint32_t
config_route_nh(struct dpr_router *r, const char *prefix)
{
	struct dpr_prefix pf;
	uint32_t nh = UINT32_MAX;

	if (dpr_prefix_parse(prefix, false, &pf, NULL, 0) == 0)
		(void)dpr_route_get(&r->rib, &pf, &nh);
	return nh;
}

/*
 * "routes" with "nexthops": installed at start as one route of source
 * config pointing at a group of the gateways with their weights (the same
 * members in another order: the same group), shown back by config.get,
 * and removing the routes gives back every reference they took.
 */
static void
test_config(void)
{
	static const char *const prefixes[] = {
		"10.9.0.0/16", "2001:db8:9::/48", "10.10.0.0/16", "10.11.0.0/16"
	};
	static const char get[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"config.get\"}";
	struct dpr_prefix p10_9 = { .addr = ip4(IP(10, 9, 0, 0)), .len = 16 };
	struct dpr_router C = { 0 }, B = { 0 };
	struct dpr_src_op ops[RTE_DIM(prefixes)];
	struct dpr_route_cands cands;
	uint32_t base_nhs, g, g6, plain;
	json_t *res, *routes, *nhs;
	char text[512], before[RTE_DIM(prefixes)][512], *out, *text_out;
	struct dpr_ip a;
	unsigned int i;

	/* What the same ports and neighbours take without the routes. */
	if (test_router_init(&B, CONFIG_PORTS "}", "test_ecmp (no routes)") < 0) {
		CHECK(false, "rig without routes");
		return;
	}
	base_nhs = dpr_nh_count(B.nh);
	test_router_free(&B);

	if (test_router_init(&C, config_multipath_text, "test_ecmp (config)") < 0) {
		CHECK(false, "rig with multipath routes");
		return;
	}
	g = config_route_nh(&C, "10.9.0.0/16");
	CHECK(g != UINT32_MAX && dpr_nh_word_get(C.nh, g).kind == DPR_NH_KIND_GROUP,
	      "10.9.0.0/16 points at a group");
	member_text(C.nh, g, text, sizeof(text));
	/* 10.0.2.2 is a static neighbour: forwardable from the start. */
	CHECK(strcmp(text, "10.0.2.2/1/2/3 10.0.3.2/2/1/2") == 0 ||
	      strcmp(text, "10.0.3.2/2/1/2 10.0.2.2/1/2/3") == 0, "IPv4 members: %s", text);
	check_slots(group_of(C.nh, (int)g), "config group");
	CHECK_EQ(group_of(C.nh, (int)g)->n_slots, 3);
	CHECK_EQ(config_route_nh(&C, "10.10.0.0/16"), g);
	CHECK_EQ(refs(C.nh, (int)g), 2);
	CHECK(dpr_route_src_get(&C.rib, &p10_9, &cands) == 0 && cands.have == 1u << DPR_RSRC_CONFIG &&
	      cands.winner == DPR_RSRC_CONFIG && cands.in_fib, "a route of source config");
	/* The group holds its members; the config keeps no reference of its own. */
	a = ip4(IP(10, 0, 3, 2));
	CHECK(dpr_nh_find(C.nh, &a) >= 0 && refs(C.nh, dpr_nh_find(C.nh, &a)) == 1 &&
	      dpr_nh_info(C.nh, (uint32_t)dpr_nh_find(C.nh, &a))->groups == 1,
	      "10.0.3.2 is held by its group only");

	g6 = config_route_nh(&C, "2001:db8:9::/48");
	CHECK(g6 != UINT32_MAX && g6 != g && dpr_nh_word_get(C.nh, g6).kind == DPR_NH_KIND_GROUP,
	      "2001:db8:9::/48 points at a group");
	member_text(C.nh, g6, text, sizeof(text));
	CHECK(strcmp(text, "2001:db8:2::2/1/1/2 fe80::2/2/5/2") == 0 ||
	      strcmp(text, "fe80::2/2/5/2 2001:db8:2::2/1/1/2") == 0, "IPv6 members: %s", text);
	check_slots(group_of(C.nh, (int)g6), "config IPv6 group");
	CHECK_EQ(group_of(C.nh, (int)g6)->n_slots, 6);

	/* One next hop in "nexthops" is a plain route, its weight moot. */
	plain = config_route_nh(&C, "10.11.0.0/16");
	a = ip4(IP(10, 0, 2, 3));
	CHECK_EQ(plain, (uint32_t)dpr_nh_find(C.nh, &a));
	CHECK_EQ(dpr_nh_group_count(C.nh), 2);

	/* config.get shows them in the file's shape (route.list's order:
	 * IPv4, then IPv6). */
	out = dpr_rpc_handle_text(&C, get, strlen(get));
	res = out != NULL ? json_loads(out, 0, NULL) : NULL;
	routes = json_object_get(json_object_get(res, "result"), "routes");
	CHECK_EQ(json_array_size(routes), RTE_DIM(prefixes));
	nhs = json_object_get(json_array_get(routes, 0), "nexthops");
	CHECK(json_array_size(nhs) == 2 && json_object_get(json_array_get(routes, 0), "via") == NULL &&
	      str_is(json_array_get(routes, 0), "prefix", "10.9.0.0/16") &&
	      weight_of(nhs, "10.0.2.2", "p1") == 2 && weight_of(nhs, "10.0.3.2", "p2") == 1,
	      "config.get: %s", out != NULL ? out : "(none)");
	nhs = json_object_get(json_array_get(routes, 3), "nexthops");
	CHECK(json_array_size(nhs) == 2 && str_is(json_array_get(routes, 3), "prefix", "2001:db8:9::/48") &&
	      weight_of(nhs, "fe80::2", "p2") == 5 && weight_of(nhs, "2001:db8:2::2", "p1") == 1,
	      "config.get, IPv6: %s", out != NULL ? out : "(none)");
	text_out = json_dumps(json_object_get(res, "result"), 0);
	for (i = 0; i < RTE_DIM(prefixes); i++)
		member_text(C.nh, config_route_nh(&C, prefixes[i]), before[i], sizeof(before[i]));
	json_decref(res);
	free(out);

	/* Removing them gives back the groups and the gateways they held. */
	for (i = 0; i < RTE_DIM(prefixes); i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		CHECK_EQ(dpr_prefix_parse(prefixes[i], false, &ops[i].prefix, NULL, 0), 0);
		ops[i].del = 1;
	}
	CHECK_EQ(dpr_route_src_apply(&C.rib, DPR_RSRC_CONFIG, ops, RTE_DIM(ops)), RTE_DIM(ops));
	CHECK_EQ(dpr_nh_group_count(C.nh), 0);
	CHECK_EQ(dpr_nh_count(C.nh), base_nhs);
	a = ip4(IP(10, 0, 3, 2));
	CHECK_EQ(dpr_nh_find(C.nh, &a), -ENOENT);
	a = ip4(IP(10, 0, 2, 2));
	CHECK(dpr_nh_find(C.nh, &a) >= 0, "the static neighbour stays");
	test_router_free(&C);

	/* A router started from config.get's answer has the same groups
	 * (one rig at a time: they share the FIB's memory names). */
	if (text_out != NULL && test_router_init(&C, text_out, "test_ecmp (config.get)") == 0) {
		for (i = 0; i < RTE_DIM(prefixes); i++) {
			member_text(C.nh, config_route_nh(&C, prefixes[i]), text, sizeof(text));
			CHECK(same_members(before[i], text), "%s after config.get: %s, was %s",
			      prefixes[i], text, before[i]);
		}
		test_router_free(&C);
	} else {
		CHECK(false, "a router from config.get's answer: %s", text_out ? text_out : "(none)");
	}
	free(text_out);
}

/* --- on a router: a worker ------------------------------------------------------- */

static struct dpr_worker *
worker_new(void)
{
	struct dpr_worker *w = rte_zmalloc(NULL, sizeof(*w), RTE_CACHE_LINE_SIZE);

	if (w == NULL)
		abort();
	w->n_ports = N_PORTS;
	w->ports = R.port_dp;
	w->fib = R.fib4;
	w->fib6 = R.fib6;
	w->nh = dpr_nh_words(R.nh);
	dpr_worker_prepare(w);
	w->exc_ring = rte_ring_create("ecmp_exc", 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->exc_ring == NULL)
		abort();
	return w;
}

static void
resolve_gw(struct dpr_ip a, uint8_t port)
{
	struct rte_ether_addr mac = gw_mac(&a);
	int idx = nh_of_ip(a);

	CHECK(idx >= 0, "gateway known");
	if (idx >= 0)
		dpr_nh_resolve(R.nh, (uint32_t)idx, port, &mac, false);
}

static void
unresolve_gw(struct dpr_ip a, uint8_t port)
{
	int idx = nh_of_ip(a);

	if (idx >= 0)
		dpr_nh_unresolve(R.nh, (uint32_t)idx, port);
}

static uint64_t
accounted(const struct dpr_port_counters *c)
{
	return c->forwarded + c->exception + dpr_counters_drops(c);
}

/*
 * Send @p n packets made by @p mk (flow i: source port 1000 + i) through
 * worker @p w from p0; record each flow's output port (-1: none) in
 * @p port_of, and check each left with its member's MAC, the one
 * dpr_nh_pick() names for its software hash.
 */
static void
burst(struct dpr_worker *w, struct rte_mbuf *(*mk)(uint16_t), unsigned int n, int *port_of,
      int group)
{
	struct rte_mbuf *pkts[DPR_BURST];
	int member[DPR_BURST];
	unsigned int i, p, k;

	for (i = 0; i < n; i++) {
		pkts[i] = mk((uint16_t)(1000 + i));
		member[i] = (int)dpr_nh_pick(R.nh, (uint32_t)group, dpr_flow_hash_sw(pkts[i]));
		port_of[i] = -1;
	}
	dpr_ip4_input_burst(w, 0, pkts, (uint16_t)n);
	for (p = 0; p < N_PORTS; p++) {
		for (k = 0; k < w->tx[p].n; k++) {
			struct rte_mbuf *m = w->tx[p].pkts[k];
			const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
				14 + (eth_of(m)->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) ? 40 : 20));
			unsigned int flow = (unsigned int)((l4[0] << 8 | l4[1]) - 1000);
			union dpr_nh_word h;

			if (flow >= n)
				continue;
			port_of[flow] = (int)p;
			h = dpr_nh_word_get(R.nh, (uint32_t)member[flow]);
			CHECK(h.port == p && rte_is_same_ether_addr(&eth_of(m)->dst_addr, &h.mac) &&
			      rte_is_same_ether_addr(&eth_of(m)->src_addr, &mac_p[p]),
			      "flow %u left by p%u for the member of its hash (p%u)", flow, p, h.port);
		}
		rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
		w->tx[p].n = 0;
	}
}

static struct rte_mbuf *
mk_flow4(uint16_t sport)
{
	return udp4(IP(10, 9, 0, 5), sport);
}

static struct rte_mbuf *
mk_flow6(uint16_t sport)
{
	return mk6("2001:db8:1::2", "2001:db8:9::5", IPPROTO_UDP, sport, 5001);
}

static unsigned int sent_on(unsigned int p, struct rte_mbuf **out, unsigned int max);

static void
test_worker(void)
{
	const struct dpr_ip g1 = ip4(IP(10, 0, 2, 2)), g2 = ip4(IP(10, 0, 3, 2));
	const struct dpr_ip g61 = ip6("2001:db8:2::2"), g62 = ip6("2001:db8:3::2");
	struct dpr_worker *w = worker_new();
	struct dpr_port_counters *st = &w->stats[0];
	int first[DPR_BURST], again[DPR_BURST], member[DPR_BURST];
	struct rte_mbuf *exc[DPR_BURST * 2], *pkts[2];
	unsigned int i, on[N_PORTS] = { 0 }, q, sent = 0;
	int g, g6;

	add_multipath("10.9.0.0/16", "10.0.2.2", "10.0.3.2");
	add_multipath("2001:db8:9::/48", "2001:db8:2::2", "2001:db8:3::2");
	g = route_nh("10.9.0.0/16");
	g6 = route_nh("2001:db8:9::/48");
	resolve_gw(g1, 1);
	resolve_gw(g2, 2);
	resolve_gw(g61, 1);
	resolve_gw(g62, 2);

	/* 32 flows: both gateways, each flow where its hash says. */
	memset(st, 0, sizeof(*st));
	burst(w, mk_flow4, DPR_BURST, first, g);
	sent += DPR_BURST;
	for (i = 0; i < DPR_BURST; i++)
		on[first[i] < 0 ? 0 : first[i]]++;
	CHECK(on[1] > 0 && on[2] > 0 && on[1] + on[2] == DPR_BURST,
	      "32 flows over both gateways: %u on p1, %u on p2", on[1], on[2]);
	CHECK_EQ(st->forwarded, DPR_BURST);
	/* The same flows again: the same ways. */
	burst(w, mk_flow4, DPR_BURST, again, g);
	sent += DPR_BURST;
	CHECK(memcmp(first, again, sizeof(first)) == 0, "flows kept their gateways");

	/* Gateway 2 without a MAC: every flow through gateway 1, none held. */
	unresolve_gw(g2, 2);
	burst(w, mk_flow4, DPR_BURST, again, g);
	sent += DPR_BURST;
	for (i = 0, q = 0; i < DPR_BURST; i++)
		q += again[i] == 1;
	CHECK_EQ(q, DPR_BURST);
	CHECK_EQ(st->exception, 0);

	/* Neither has one: each packet waits for its own flow's gateway. */
	unresolve_gw(g1, 1);
	for (i = 0; i < DPR_BURST; i++) {
		struct rte_mbuf *m = mk_flow4((uint16_t)(1000 + i));

		member[i] = (int)dpr_nh_pick(R.nh, (uint32_t)g, dpr_flow_hash_sw(m));
		rte_pktmbuf_free(m);
	}
	burst(w, mk_flow4, DPR_BURST, again, g);
	sent += DPR_BURST;
	CHECK_EQ(st->exc[DPR_EXC_UNRESOLVED], DPR_BURST);
	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
	CHECK_EQ(q, DPR_BURST);
	for (i = 0; i < q; i++) {
		const uint8_t *l4 = rte_pktmbuf_mtod_offset(exc[i], const uint8_t *, 14 + 20);
		unsigned int flow = (unsigned int)((l4[0] << 8 | l4[1]) - 1000);

		CHECK(flow < DPR_BURST && DPR_EXC_ARG(exc[i]) == (uint32_t)member[flow] &&
		      dpr_nh_word_get(R.nh, (uint32_t)member[flow]).port == first[flow],
		      "flow %u is held for the gateway its hash names", flow);
	}
	rte_pktmbuf_free_bulk(exc, q);
	resolve_gw(g1, 1);
	resolve_gw(g2, 2);

	/* The NIC's hash decides where it gives one: the lowest hash takes
	 * the first slot, the highest the last. */
	pkts[0] = mk_flow4(1000);
	pkts[1] = mk_flow4(1000);
	for (i = 0; i < 2; i++) {
		pkts[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		pkts[i]->hash.rss = i == 0 ? 0 : UINT32_MAX;
	}
	dpr_ip4_input_burst(w, 0, pkts, 2);
	sent += 2;
	CHECK(w->tx[1].n == 1 && w->tx[2].n == 1, "RSS hashes 0 and 2^32-1: p1 and p2 (%u, %u)",
	      w->tx[1].n, w->tx[2].n);
	for (i = 1; i < N_PORTS; i++) {
		rte_pktmbuf_free_bulk(w->tx[i].pkts, w->tx[i].n);
		w->tx[i].n = 0;
	}

	/* IPv6, the same. */
	memset(on, 0, sizeof(on));
	burst(w, mk_flow6, DPR_BURST, first, g6);
	sent += DPR_BURST;
	for (i = 0; i < DPR_BURST; i++)
		on[first[i] < 0 ? 0 : first[i]]++;
	CHECK(on[1] > 0 && on[2] > 0 && on[1] + on[2] == DPR_BURST,
	      "IPv6: 32 flows over both gateways: %u on p1, %u on p2", on[1], on[2]);
	unresolve_gw(g62, 2);
	burst(w, mk_flow6, DPR_BURST, again, g6);
	sent += DPR_BURST;
	for (i = 0, q = 0; i < DPR_BURST; i++)
		q += again[i] == 1;
	CHECK_EQ(q, DPR_BURST);
	resolve_gw(g62, 2);

	/* A packet the worker hands to the control thread (IP options) keeps
	 * its RSS hash there: it leaves by its flow's member, not by the one
	 * the software hash would name. */
	for (i = 0; i < 16; i++) {
		struct rte_mbuf *m = mk4(IP(10, 0, 1, 2), IP(10, 9, 0, 5), IPPROTO_UDP, 1000, 5001,
					 64, 0, 4);
		uint32_t rss = i * 0x11111111u, want;
		struct rte_mbuf *out[4];
		unsigned int n, p;

		m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		m->hash.rss = rss;
		want = dpr_nh_pick(R.nh, (uint32_t)g, rss);
		dpr_ip4_input_burst(w, 0, &m, 1);
		sent++;
		q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)exc, RTE_DIM(exc), NULL);
		CHECK_EQ(q, 1);
		if (q != 1)
			continue;
		dpr_exc_input(R.exc, exc[0]);
		p = dpr_nh_word_get(R.nh, want).port;
		n = sent_on(p, out, RTE_DIM(out));
		CHECK(n == 1, "RSS hash %#x: the control thread sent it by p%u, its flow's member",
		      rss, p);
		rte_pktmbuf_free_bulk(out, n);
		n = sent_on(3 - p, out, RTE_DIM(out));
		CHECK_EQ(n, 0);
		rte_pktmbuf_free_bulk(out, n);
	}

	CHECK_EQ(accounted(st), sent);
	CHECK_EQ(st->forwarded + st->exception, sent);
	json_decref(ok("route.load", "%s", "{'routes':['del 10.9.0.0/16','del 2001:db8:9::/48']}"));
	rte_ring_free(w->exc_ring);
	rte_free(w);
}

/* --- on a router: the control thread ---------------------------------------------- */

static unsigned int
sent_on(unsigned int p, struct rte_mbuf **out, unsigned int max)
{
	return rte_ring_sc_dequeue_burst(txr[p], (void **)out, max, NULL);
}

static void
drop_sent(void)
{
	struct rte_mbuf *m[64];
	unsigned int p, n;

	for (p = 0; p < N_PORTS; p++)
		while ((n = sent_on(p, m, RTE_DIM(m))) > 0)
			rte_pktmbuf_free_bulk(m, n);
}

static void
inject(struct rte_mbuf *m, enum dpr_exc cls, uint32_t arg)
{
	m->hash.usr = DPR_EXC_META(cls, 0);
	DPR_EXC_ARG(m) = arg;
	dpr_exc_input(R.exc, m);
}

static bool
arp_request_for(const struct rte_mbuf *m, uint32_t ip)
{
	struct dpr_arp a;

	return dpr_arp_parse(m, &a) == 0 && a.op == RTE_ARP_OP_REQUEST && a.tip == ip;
}

/* An ARP reply from gateway @p a on port @p p. */
static void
arp_reply(struct dpr_ip a, uint16_t p)
{
	struct dpr_arp r = { .op = RTE_ARP_OP_REPLY, .sha = gw_mac(&a), .sip = a.ip4,
			     .tha = mac_p[p], .tip = IP(10, 0, 1 + p, 1) };
	struct rte_mbuf *m = dpr_arp_build(pool, &r, &mac_p[p]);

	m->hash.usr = DPR_EXC_META(DPR_EXC_ARP, p);
	dpr_exc_input(R.exc, m);
}

/* The port packet @p m left by for @p member, checked: its MAC, TTL 63. */
static bool
left_for(unsigned int p, const struct rte_mbuf *m, uint32_t member)
{
	union dpr_nh_word h = dpr_nh_word_get(R.nh, member);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth_of(m) + 1);

	return h.kind == DPR_NH_KIND_FORWARD && h.port == p &&
		rte_is_same_ether_addr(&eth_of(m)->dst_addr, &h.mac) &&
		(eth_of(m)->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
		 ip->time_to_live == 63);
}

static void
test_slow_path(void)
{
	const struct dpr_ip g1 = ip4(IP(10, 0, 2, 7)), g2 = ip4(IP(10, 0, 3, 7));
	const struct dpr_ip g3 = ip4(IP(10, 0, 2, 8)), g4 = ip4(IP(10, 0, 3, 8));
	const struct rte_ether_addr mac_of[2] = { gw_mac(&g1), gw_mac(&g2) };
	struct rte_mbuf *out[16], *m;
	unsigned int n, i, p, on[N_PORTS] = { 0 }, seen;
	uint32_t member, other;
	int g;

	drop_sent();
	add_multipath("10.7.0.0/16", "10.0.2.7", "10.0.3.7");
	g = route_nh("10.7.0.0/16");

	/* A packet the worker held for its flow's gateway: ARP for that one,
	 * then out through it (the slow path picks it again, by the same
	 * hash). */
	m = mk4(IP(10, 0, 1, 2), IP(10, 7, 0, 5), IPPROTO_UDP, 4242, 53, 64, 0, 0);
	member = dpr_nh_pick(R.nh, (uint32_t)g, dpr_flow_hash_sw(m));
	other = member == (uint32_t)nh_of_ip(g1) ? (uint32_t)nh_of_ip(g2) : (uint32_t)nh_of_ip(g1);
	p = dpr_nh_word_get(R.nh, member).port;
	inject(m, DPR_EXC_UNRESOLVED, member);
	n = sent_on(p, out, RTE_DIM(out));
	CHECK(n == 1 && arp_request_for(out[0], dpr_nh_info(R.nh, member)->ip.ip4),
	      "ARP for the flow's gateway on p%u (%u sent)", p, n);
	rte_pktmbuf_free_bulk(out, n);
	CHECK_EQ(sent_on(3 - p, out, RTE_DIM(out)), 0);
	arp_reply(dpr_nh_info(R.nh, member)->ip, (uint16_t)p);
	n = sent_on(p, out, RTE_DIM(out));
	CHECK(n == 1 && left_for(p, out[0], member), "the held packet left for its gateway");
	rte_pktmbuf_free_bulk(out, n);

	/* The other gateway answers too, once asked (an ARP reply nobody
	 * asked for resolves nothing: lib/neigh): IP options packets
	 * (forwarded by the control thread) of many flows leave by both,
	 * each by the member its hash names. */
	m = mk4(IP(10, 0, 1, 2), IP(10, 7, 0, 6), IPPROTO_UDP, 4243, 53, 64, 0, 0);
	inject(m, DPR_EXC_UNRESOLVED, other);
	arp_reply(dpr_nh_info(R.nh, other)->ip, (uint16_t)dpr_nh_word_get(R.nh, other).port);
	drop_sent();
	for (i = 0; i < 32; i++) {
		m = mk4(IP(10, 0, 1, 2), IP(10, 7, 0, 5), IPPROTO_UDP, (uint16_t)(3000 + i), 53,
			64, 0, 4);
		member = dpr_nh_pick(R.nh, (uint32_t)g, dpr_flow_hash_sw(m));
		p = dpr_nh_word_get(R.nh, member).port;
		inject(m, DPR_EXC_IP_OPTIONS, 0);
		n = sent_on(p, out, RTE_DIM(out));
		CHECK(n == 1 && left_for(p, out[0], member), "options flow %u left for its gateway", i);
		rte_pktmbuf_free_bulk(out, n);
		on[p]++;
	}
	CHECK(on[1] > 0 && on[2] > 0, "the control thread's flows take both (%u, %u)", on[1], on[2]);

	/* The router's own packets (an ICMP error to a host behind the group)
	 * leave through a member. */
	m = mk4(IP(10, 7, 3, 3), IP(10, 0, 1, 2), IPPROTO_UDP, 7, 7, 1, 0, 0);
	inject(m, DPR_EXC_TTL_EXPIRED, 0);
	seen = 0;
	for (p = 1; p < N_PORTS; p++) {
		n = sent_on(p, out, RTE_DIM(out));
		for (i = 0; i < n; i++)
			seen += rte_is_same_ether_addr(&eth_of(out[i])->dst_addr,
						       &mac_of[p - 1]);
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK_EQ(seen, 1);

	/* Members no packet asks for are asked for by the timers. */
	drop_sent();
	add_multipath("10.6.0.0/16", "10.0.2.8", "10.0.3.8");
	for (i = 0, seen = 0; i < 100 && seen != 3; i++) {
		dpr_exc_timers(R.exc);
		for (p = 1; p < N_PORTS; p++) {
			n = sent_on(p, out, RTE_DIM(out));
			while (n-- > 0) {
				if (arp_request_for(out[n], p == 1 ? g3.ip4 : g4.ip4))
					seen |= 1u << (p - 1);
				rte_pktmbuf_free(out[n]);
			}
		}
		rte_delay_ms(20);
	}
	CHECK_EQ(seen, 3);

	json_decref(ok("route.load", "%s", "{'routes':['del 10.7.0.0/16','del 10.6.0.0/16']}"));
	drop_sent();
}

/*
 * A packet held for its flow's member of a multipath route whose members
 * were all unresolved, when that member's resolution fails and another
 * member has answered meanwhile: it leaves through the one that answered
 * (the route still forwards, dpr_nh_pick() spreads the flow there), not
 * answered host unreachable, which RFC 1812 4.3.3.1 keeps for a
 * destination that cannot be reached.
 */
static void
test_held_other_member(void)
{
	struct rte_mbuf *out[16], *m, *m2;
	uint32_t member, other, po, pm;
	unsigned int n, i, hit = 0, back;
	uint16_t sport;
	int g;

	drop_sent();
	add_multipath("10.8.0.0/16", "10.0.2.9", "10.0.3.9");
	g = route_nh("10.8.0.0/16");
	m = mk4(IP(10, 0, 1, 2), IP(10, 8, 0, 5), IPPROTO_UDP, 4242, 53, 64, 0, 0);
	member = dpr_nh_pick(R.nh, (uint32_t)g, dpr_flow_hash_sw(m));
	other = member == (uint32_t)nh_of_ip(ip4(IP(10, 0, 2, 9))) ?
		(uint32_t)nh_of_ip(ip4(IP(10, 0, 3, 9))) : (uint32_t)nh_of_ip(ip4(IP(10, 0, 2, 9)));
	pm = dpr_nh_word_get(R.nh, member).port;
	po = dpr_nh_word_get(R.nh, other).port;
	inject(m, DPR_EXC_UNRESOLVED, member);
	/* A flow of the other member's, held for it, and its answer. */
	for (sport = 5000, m2 = NULL; sport < 5100; sport++) {
		m2 = mk4(IP(10, 0, 1, 2), IP(10, 8, 0, 6), IPPROTO_UDP, sport, 53, 64, 0, 0);
		if (dpr_nh_pick(R.nh, (uint32_t)g, dpr_flow_hash_sw(m2)) == other)
			break;
		rte_pktmbuf_free(m2);
		m2 = NULL;
	}
	CHECK(m2 != NULL, "a flow for the other member");
	if (m2 == NULL)
		return;
	inject(m2, DPR_EXC_UNRESOLVED, other);
	arp_reply(dpr_nh_info(R.nh, other)->ip, (uint16_t)po);
	n = sent_on(po, out, RTE_DIM(out));
	for (i = 0; i < n; i++)
		hit += left_for(po, out[i], other);
	rte_pktmbuf_free_bulk(out, n);
	CHECK(hit == 1, "the other member's flow left once it answered (%u)", hit);
	drop_sent();

	/* The flow's own member never answers: its three tries, then the
	 * held packet goes by the other. */
	for (i = 0, hit = 0, back = 0; i < 6; i++) {
		clock_skew_ns += 1100ull * 1000000u;
		dpr_exc_timers(R.exc);
		n = sent_on(po, out, RTE_DIM(out));
		while (n-- > 0) {
			hit += left_for(po, out[n], other);
			rte_pktmbuf_free(out[n]);
		}
		n = sent_on(0, out, RTE_DIM(out));
		back += n;
		rte_pktmbuf_free_bulk(out, n);
		n = sent_on(pm, out, RTE_DIM(out)); /* its ARP requests */
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK(hit == 1 && back == 0,
	      "RFC 1812 4.3.3.1: the packet held for a gateway that failed left by the member that answered (%u), no host unreachable back to its source (%u sent on p0)",
	      hit, back);
	json_decref(ok("route.load", "%s", "{'routes':['del 10.8.0.0/16']}"));
	drop_sent();
}

/* A port's link down: its next hops leave the spread at once; a static
 * neighbour there is resolved again when the link comes back, a learned
 * one when it answers again. */
static void
test_link_down(void)
{
	const struct dpr_ip g1 = ip4(IP(10, 0, 2, 9)), g2 = ip4(IP(10, 0, 3, 9));
	const struct dpr_ip h1 = ip4(IP(10, 0, 1, 2));
	unsigned int i, on[N_PORTS] = { 0 };
	union dpr_nh_word w;
	int g;

	add_multipath("10.5.0.0/16", "10.0.2.9", "10.0.3.9");
	g = route_nh("10.5.0.0/16");
	resolve_gw(g1, 1);
	resolve_gw(g2, 2);
	for (i = 0; i < 256; i++)
		on[dpr_nh_word_get(R.nh, dpr_nh_pick(R.nh, (uint32_t)g, i * 0x01010101u)).port]++;
	CHECK(on[1] > 0 && on[2] > 0, "both members while both links are up (%u, %u)", on[1],
	      on[2]);

	dpr_neigh_link(R.neigh, 2, false);
	CHECK_EQ(dpr_nh_word_get(R.nh, (uint32_t)nh_of_ip(g2)).kind, DPR_NH_KIND_UNRESOLVED);
	memset(on, 0, sizeof(on));
	for (i = 0; i < 256; i++) {
		w = dpr_nh_word_get(R.nh, dpr_nh_pick(R.nh, (uint32_t)g, i * 0x01010101u));
		on[w.kind == DPR_NH_KIND_FORWARD ? w.port : 0]++;
	}
	CHECK(on[1] == 256, "p2 down: every flow by p1 (%u of 256)", on[1]);
	dpr_neigh_link(R.neigh, 2, true);
	CHECK_EQ(dpr_nh_word_get(R.nh, (uint32_t)nh_of_ip(g2)).kind, DPR_NH_KIND_UNRESOLVED);
	resolve_gw(g2, 2);

	/* The static neighbour 10.0.1.2 on p0 keeps its MAC aside. */
	dpr_neigh_link(R.neigh, 0, false);
	w = dpr_nh_word_get(R.nh, (uint32_t)nh_of_ip(h1));
	CHECK_EQ(w.kind, DPR_NH_KIND_UNRESOLVED);
	dpr_neigh_link(R.neigh, 0, true);
	w = dpr_nh_word_get(R.nh, (uint32_t)nh_of_ip(h1));
	CHECK(w.kind == DPR_NH_KIND_FORWARD && w.port == 0 && rte_is_same_ether_addr(&w.mac, &mac_h1),
	      "p0 up: the static neighbour is resolved again (kind %u)", w.kind);
	CHECK(dpr_nh_info(R.nh, (uint32_t)nh_of_ip(h1))->is_static, "and still static");

	json_decref(ok("route.load", "%s", "{'routes':['del 10.5.0.0/16']}"));
}

/* --- the rig ---------------------------------------------------------------------- */

static int
port_on_ring(unsigned int p)
{
	char name[32];

	snprintf(name, sizeof(name), "ecmp_tx%u", p);
	return test_port_on_ring(&R, p, name, pool, &mac_p[p], &txr[p]);
}

int
main(int argc, char **argv)
{
	unsigned int p;

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	if (dpr_flow_hash_register() < 0) {
		fprintf(stderr, "test_ecmp: cannot register the RSS hash field\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_ecmp", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL)
		return EXIT_FAILURE;
	test_group_table();
	test_pick();
	test_flow_hash();
	test_config();

	if (test_router_init(&R, config_text, "test_ecmp") < 0)
		return EXIT_FAILURE;
	R.n_ports = N_PORTS;
	R.pools[0] = pool;
	R.port_dp = rte_zmalloc(NULL, sizeof(*R.port_dp) * DPR_MAX_PORTS, 0);
	if (R.port_dp == NULL)
		return EXIT_FAILURE;
	for (p = 0; p < N_PORTS; p++)
		if (port_on_ring(p) < 0)
			return EXIT_FAILURE;
	R.exc = dpr_exc_create(&R);
	if (R.exc == NULL)
		return EXIT_FAILURE;
	test_api();
	test_worker();
	test_slow_path();
	test_held_other_member();
	test_link_down();
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);

	dpr_exc_free(R.exc);
	test_router_free(&R);
	return test_done("test_ecmp");
}
