/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control-plane protection (lib/copp) and neighbour resolution budgets
 * (lib/neigh, RFC 6583):
 *   - control_plane config: defaults, values read, bad values refused
 *     with the path named;
 *   - the worker's gate on crafted exceptions: each packet's class, a
 *     class over its rate or ring share dropped and counted (class and
 *     drops.control_plane), another class or port unharmed, the rate
 *     refilling with the TSC, a TSC gone back, peers;
 *   - the neighbour module: ordinary addresses limited per interface and
 *     family, a gateway and a former neighbour resolved past the budget,
 *     each refusal counted, the tables consistent (dpr_neigh_check()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "copp/copp.h"
#include "copp/copp_dp.h"
#include "datapath/datapath.h"
#include "rig.h"
#include "test.h"

#define HZ UINT64_C(1000000000)

static struct rte_mempool *pool;

static const char *const conf_text =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]},"
	" {\"name\": \"p2\", \"device\": \"net_null2\", \"addresses\": [\"10.0.3.1/24\"],"
	"  \"vrf\": \"red\"}],"
	" \"vrfs\": [{\"name\": \"red\", \"table\": 100}, {\"name\": \"green\", \"table\": 101}],"
	" \"routes\": [{\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.1.50\"},"
	"  {\"prefix\": \"203.0.113.0/24\", \"via\": \"10.0.3.60\", \"vrf\": \"red\"}],"
	" \"control_plane\": {\"classes\": {\"local\": {\"rate\": 1000, \"burst\": 4},"
	"  \"icmp\": {\"ring_share\": 5}}, \"peers\": [\"192.0.2.7\","
	"  {\"address\": \"192.0.2.9\", \"vrf\": \"red\"},"
	"  {\"address\": \"192.0.2.11\", \"vrf\": \"green\"}],"
	"  \"resolving_per_interface\": 4}}";

static void
test_config(void)
{
	static const struct {
		const char *cp;
		const char *want;
	} bad[] = {
		{ "{\"classes\": {\"bgp\": {}}}", "unknown class \"bgp\"" },
		{ "{\"classes\": {\"icmp\": {\"rate\": 0}}}", "control_plane.classes.icmp.rate: expected an integer from 1" },
		{ "{\"classes\": {\"icmp\": {\"rate\": \"fast\"}}}", "classes.icmp.rate" },
		{ "{\"classes\": {\"icmp\": {\"ring_share\": 60}}}", "ring shares add up to 150" },
		{ "{\"classes\": {\"icmp\": {\"depth\": 1}}}", "unknown key \"depth\"" },
		{ "{\"peers\": [\"10.0.0.300\"]}", "control_plane.peers[0]" },
		{ "{\"peers\": [{\"address\": \"10.0.0.3\", \"vrf\": \"blue\"}]}",
		  "control_plane.peers[0]: vrf \"blue\": no VRF of that name" },
		{ "{\"peers\": [{\"address\": \"10.0.0.3\", \"table\": 5}]}",
		  "control_plane.peers[0]: unknown key \"table\"" },
		{ "{\"peers\": [{\"vrf\": \"default\"}]}", "control_plane.peers[0]: expected an IPv4" },
		{ "{\"resolving_per_interface\": 0}", "control_plane.resolving_per_interface" },
		{ "{\"shares\": 1}", "unknown key \"shares\"" },
		{ "[]", "control_plane: expected an object" },
	};
	struct dpr_config *cfg;
	char text[512], err[1024];
	unsigned int i;

	cfg = dpr_config_parse(conf_text, "copp.json", err, sizeof(err));
	CHECK(cfg != NULL, "%s", err);
	if (cfg != NULL) {
		const struct dpr_copp_conf *c = &cfg->control_plane;

		CHECK_EQ(c->cls[DPR_COPP_LOCAL].rate, 1000);
		CHECK_EQ(c->cls[DPR_COPP_LOCAL].burst, 4);
		CHECK_EQ(c->cls[DPR_COPP_LOCAL].share, 15); /* default kept */
		CHECK_EQ(c->cls[DPR_COPP_ICMP].share, 5);
		CHECK_EQ(c->cls[DPR_COPP_ARP_ND].rate, 10000);
		CHECK_EQ(c->n_peers, 3);
		CHECK(strcmp(c->peer_vrf[0], "") == 0 && strcmp(c->peer_vrf[1], "red") == 0,
		      "peers' VRFs: \"%s\", \"%s\"", c->peer_vrf[0], c->peer_vrf[1]);
		CHECK_EQ(c->resolve_per_interface, 4);
		dpr_config_free(cfg);
	}
	for (i = 0; i < RTE_DIM(bad); i++) {
		snprintf(text, sizeof(text),
			 "{\"ports\": [{\"name\": \"p0\", \"device\": \"net_null0\"}], \"control_plane\": %s}",
			 bad[i].cp);
		cfg = dpr_config_parse(text, "bad.json", err, sizeof(err));
		CHECK(cfg == NULL, "%s accepted", bad[i].cp);
		CHECK(cfg != NULL || strstr(err, bad[i].want) != NULL, "%s: \"%s\" lacks \"%s\"",
		      bad[i].cp, err, bad[i].want);
		dpr_config_free(cfg);
	}
}

/* An exception as a worker diverts it: frame, class and input port. */
static struct rte_mbuf *
exc4(uint8_t proto, uint32_t src, enum dpr_exc cls, uint16_t port, uint32_t arg)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *eth = (uint8_t *)rte_pktmbuf_append(m, 14 + 20 + 8);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 14);

	memset(eth, 0, 14 + 20 + 8);
	eth[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000101);
	m->hash.usr = DPR_EXC_META(cls, port);
	DPR_EXC_ARG(m) = arg;
	return m;
}

static struct rte_mbuf *
exc6_icmp(uint8_t type)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *eth = (uint8_t *)rte_pktmbuf_append(m, 14 + 40 + 8);

	memset(eth, 0, 14 + 40 + 8);
	eth[12] = 0x86;
	eth[13] = 0xdd;
	eth[14] = 0x60;
	eth[14 + 6] = IPPROTO_ICMPV6;
	eth[14 + 40] = type;
	m->hash.usr = DPR_EXC_META(DPR_EXC_LOCAL, 0);
	return m;
}

/* Run burst @p b through the gate at TSC @p now; the classes of those that
 * passed into @p cls. @return how many passed. */
static unsigned int
gate(struct dpr_worker *w, struct dpr_burst *b, uint64_t now, unsigned int *cls)
{
	unsigned int i, n;

	b->n_drop = 0;
	dpr_copp_gate_burst(w, b, now);
	n = b->n_exc;
	for (i = 0; i < n; i++) {
		if (cls != NULL)
			cls[i] = DPR_EXC_META_COPP(b->exc[i]->hash.usr) - 1;
		/* As the control thread, taking it off the ring. */
		dpr_copp_drained(&w->copp, DPR_EXC_META_COPP(b->exc[i]->hash.usr));
	}
	rte_pktmbuf_free_bulk(b->exc, n);
	rte_pktmbuf_free_bulk(b->drop, b->n_drop);
	b->n_exc = 0;
	return n;
}

static void
add(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m)
{
	uint32_t exc = DPR_EXC_META_CLASS(m->hash.usr);

	/* As EXCEPT() counts it. */
	w->stats[b->in].exc[exc]++;
	w->stats[b->in].exception++;
	b->exc[b->n_exc++] = m;
}

static void
test_gate(struct dpr_router *r)
{
	struct dpr_worker *w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	struct dpr_burst b = { .in = 0 };
	struct dpr_copp *cp = dpr_copp_create(&r->cfg->control_plane, 0);
	static struct dpr_port_dp ports[DPR_MAX_PORTS];
	const struct dpr_copp_conf *c = &r->cfg->control_plane;
	unsigned int cls[DPR_BURST], i, n;
	uint64_t now = HZ * 10000;

	CHECK(w != NULL && cp != NULL, "no memory");
	if (w == NULL || cp == NULL)
		return;
	w->nh = dpr_nh_words(r->nh);
	ports[2].vrf = 1; /* p2 is in red */
	w->ports = ports;
	dpr_copp_worker_init(cp, c, &w->copp, 1, HZ, 1024);
	CHECK_EQ(w->copp.interval[DPR_COPP_LOCAL], HZ / 1000);
	CHECK_EQ(w->copp.ring_cap[DPR_COPP_ICMP], 1023 * 5 / 100);

	/* Each class. */
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	add(w, &b, exc4(IPPROTO_ICMP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	add(w, &b, exc4(89, 0x0a000102, DPR_EXC_LOCAL, 0, 0));         /* OSPF */
	add(w, &b, exc4(IPPROTO_TCP, 0xc0000207, DPR_EXC_LOCAL, 0, 0)); /* a peer, not yet synced */
	add(w, &b, exc4(0, 0, DPR_EXC_ARP, 0, 0));
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_TTL_EXPIRED, 0, 0));
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_UNRESOLVED, 0, 5));
	add(w, &b, exc6_icmp(135));
	add(w, &b, exc6_icmp(128));
	add(w, &b, exc4(0, 0, DPR_EXC_L2_CONTROL, 0, 0));
	n = gate(w, &b, now, cls);
	CHECK_EQ(n, 10);
	{
		static const unsigned int want[] = {
			DPR_COPP_LOCAL, DPR_COPP_ICMP, DPR_COPP_ROUTING, DPR_COPP_LOCAL,
			DPR_COPP_ARP_ND, DPR_COPP_TRANSIT, DPR_COPP_RESOLVE, DPR_COPP_ARP_ND,
			DPR_COPP_ICMP, DPR_COPP_ROUTING,
		};
		for (i = 0; i < n && i < RTE_DIM(want); i++)
			CHECK(cls[i] == want[i], "packet %u: class %s, expected %s", i,
			      dpr_copp_class_names[cls[i]], dpr_copp_class_names[want[i]]);
	}
	/* The config's peer, once synced: anything it sends is routing. */
	dpr_copp_peers_sync(cp, r);
	add(w, &b, exc4(IPPROTO_TCP, 0xc0000207, DPR_EXC_LOCAL, 0, 0));
	/* The gateway of 198.51.100.0/24 is one too. */
	add(w, &b, exc4(IPPROTO_TCP, 0x0a000132, DPR_EXC_LOCAL, 0, 0));
	n = gate(w, &b, now, cls);
	CHECK(n == 2 && cls[0] == DPR_COPP_ROUTING && cls[1] == DPR_COPP_ROUTING,
	      "peers: %u passed, classes %u %u", n, cls[0], cls[1]);
	/* Peers are per VRF: the default VRF's peer and gateway, spoofed by a
	 * host in red (p2), are no peers there; red's configured peer and
	 * gateway are, on p2 only. */
	add(w, &b, exc4(IPPROTO_TCP, 0xc0000207, DPR_EXC_LOCAL, 2, 0));
	add(w, &b, exc4(IPPROTO_TCP, 0x0a000132, DPR_EXC_LOCAL, 2, 0));
	add(w, &b, exc4(IPPROTO_TCP, 0xc0000209, DPR_EXC_LOCAL, 2, 0));
	add(w, &b, exc4(IPPROTO_TCP, 0x0a00033c, DPR_EXC_LOCAL, 2, 0));
	add(w, &b, exc4(IPPROTO_TCP, 0xc0000209, DPR_EXC_LOCAL, 0, 0));
	add(w, &b, exc4(IPPROTO_TCP, 0x0a00033c, DPR_EXC_LOCAL, 0, 0));
	n = gate(w, &b, now, cls);
	{
		static const unsigned int want[] = {
			DPR_COPP_LOCAL, DPR_COPP_LOCAL, DPR_COPP_ROUTING, DPR_COPP_ROUTING,
			DPR_COPP_LOCAL, DPR_COPP_LOCAL,
		};
		CHECK_EQ(n, RTE_DIM(want));
		for (i = 0; i < n && i < RTE_DIM(want); i++)
			CHECK(cls[i] == want[i], "VRF peers, packet %u: class %s, expected %s", i,
			      dpr_copp_class_names[cls[i]], dpr_copp_class_names[want[i]]);
	}

	/* A flood of local: its burst (4) and no more, at one instant; ICMP
	 * on the same port and local on another pass. */
	now += HZ;
	for (i = 0; i < 30; i++)
		add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	add(w, &b, exc4(IPPROTO_ICMP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	n = gate(w, &b, now, cls);
	CHECK_EQ(n, 5);
	CHECK_EQ(w->copp.over_rate[DPR_COPP_LOCAL], 26);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_CONTROL_PLANE], 26);
	CHECK_EQ(w->stats[0].exception, 12 + 6 + 5);
	CHECK_EQ(w->stats[0].exc[DPR_EXC_LOCAL], 6 + 2 + 6 + 5);
	CHECK_EQ(cls[4], DPR_COPP_ICMP);
	b.in = 1;
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000202, DPR_EXC_LOCAL, 1, 0));
	CHECK_EQ(gate(w, &b, now, NULL), 1);
	b.in = 0;
	/* A millisecond later: one more. */
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	CHECK_EQ(gate(w, &b, now + HZ / 1000, NULL), 1);
	/* The TSC went back an hour (a VM restored): the bucket starts again. */
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	CHECK_EQ(gate(w, &b, now - 3600 * HZ, NULL), 1);

	/* Unresolved: a bucket per next hop. Next hop 5's spent, 6's not. */
	for (i = 0; i < DPR_BURST - 1; i++)
		add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_UNRESOLVED, 0, 5));
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_UNRESOLVED, 0, 6));
	now += 10 * HZ;
	n = gate(w, &b, now, NULL);
	CHECK_EQ(n, c->cls[DPR_COPP_RESOLVE].burst >= DPR_BURST - 1 ? DPR_BURST :
		 c->cls[DPR_COPP_RESOLVE].burst + 1);

	/* A port's connected subnets share its next hop: a scan of its IPv6
	 * /64 spends that next hop's IPv4 rate no more than lib/neigh's IPv4
	 * budget. Next hop 5's IPv6 packets flood: its IPv4 ones pass. */
	now += 10 * HZ;
	for (n = 0, i = 0; i < c->cls[DPR_COPP_RESOLVE].burst / 16 + 2; i++) {
		unsigned int k;

		for (k = 0; k < 16; k++) {
			struct rte_mbuf *m = exc6_icmp(128);

			m->hash.usr = DPR_EXC_META(DPR_EXC_UNRESOLVED, 0);
			DPR_EXC_ARG(m) = 5;
			add(w, &b, m);
		}
		n += gate(w, &b, now, NULL);
	}
	CHECK_EQ(n, c->cls[DPR_COPP_RESOLVE].burst);
	add(w, &b, exc4(IPPROTO_UDP, 0x0a000102, DPR_EXC_UNRESOLVED, 0, 5));
	CHECK_EQ(gate(w, &b, now, NULL), 1);

	/* The ring share: ICMP may hold 51 entries; the control thread took
	 * none of these off (no drained count). */
	now += 10 * HZ;
	for (n = 0, i = 0; i < 4; i++) {
		unsigned int k;

		for (k = 0; k < 20; k++)
			add(w, &b, exc4(IPPROTO_ICMP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
		b.n_drop = 0;
		dpr_copp_gate_burst(w, &b, now);
		n += b.n_exc;
		rte_pktmbuf_free_bulk(b.exc, b.n_exc);
		rte_pktmbuf_free_bulk(b.drop, b.n_drop);
		b.n_exc = 0;
	}
	CHECK_EQ(n, 1023 * 5 / 100);
	CHECK_EQ(w->copp.over_share[DPR_COPP_ICMP], 80 - n);
	/* ARP finds its own share free. */
	add(w, &b, exc4(0, 0, DPR_EXC_ARP, 0, 0));
	CHECK_EQ(gate(w, &b, now, NULL), 1);
	/* Drained, ICMP passes again. */
	for (i = 0; i < n; i++)
		dpr_copp_drained(&w->copp, DPR_COPP_ICMP + 1); /* as DPR_EXC_META_COPP gives it */
	add(w, &b, exc4(IPPROTO_ICMP, 0x0a000102, DPR_EXC_LOCAL, 0, 0));
	CHECK_EQ(gate(w, &b, now + HZ, NULL), 1);

	/* A VRF slot given again takes none of the old VRF's peers, at once:
	 * green's peer 192.0.2.11 is one on an interface of green's slot (2,
	 * p3 here); after vrf.del green and vrf.add blue, which takes slot 2,
	 * a host of blue's at that address is none, before the next sync. */
	now += 10 * HZ;
	ports[3].vrf = 2;
	r->copp = cp;
	dpr_copp_peers_sync(cp, r);
	add(w, &b, exc4(IPPROTO_TCP, 0xc000020b, DPR_EXC_LOCAL, 3, 0));
	n = gate(w, &b, now, cls);
	CHECK(n == 1 && cls[0] == DPR_COPP_ROUTING, "green's peer: %u passed, class %u", n, cls[0]);
	{
		struct dpr_vrf_conf vc = r->vrfs[2].conf;
		char err[256];

		snprintf(vc.name, sizeof(vc.name), "blue");
		vc.table = 102;
		CHECK_EQ(dpr_vrf_del(r, 2, err, sizeof(err)), 0);
		CHECK_EQ(dpr_vrf_add(r, &vc, err, sizeof(err)), 2);
		add(w, &b, exc4(IPPROTO_TCP, 0xc000020b, DPR_EXC_LOCAL, 3, 0));
		n = gate(w, &b, now, cls);
		CHECK(n == 1 && cls[0] == DPR_COPP_LOCAL,
		      "green's peer's address in blue, in green's slot: class %s, expected local",
		      n == 1 ? dpr_copp_class_names[cls[0]] : "none");
		CHECK_EQ(dpr_vrf_del(r, 2, err, sizeof(err)), 0);
	}
	r->copp = NULL;
	ports[3].vrf = 0;
	CHECK_EQ(rte_mempool_in_use_count(pool), 0);

	dpr_copp_free(cp);
	rte_free(w);
}

static uint64_t
neigh_counter(struct dpr_router *r, const char *key)
{
	json_t *o = json_object();
	uint64_t v;

	dpr_neigh_stats_json(r->neigh, o);
	v = (uint64_t)json_integer_value(json_object_get(o, key));
	json_decref(o);
	return v;
}

/* Hold a packet for @p dst, through the route that covers it. */
static bool
hold(struct dpr_router *r, const char *dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct dpr_prefix pf;
	struct dpr_ip ip;
	uint32_t nh;

	if (dpr_ip_parse(dst, &ip) < 0 || dpr_route_lpm(&r->rib, &ip, &pf, &nh) < 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	return dpr_neigh_hold(r->neigh, m, nh, &ip);
}

static void
test_budget(struct dpr_router *r)
{
	char addr[64], err[256];
	unsigned int i;

	dpr_neigh_set_budget(r->neigh, r->cfg->control_plane.resolve_per_interface);
	/* A scan of p0's IPv4 subnet: 4 resolve, the rest are refused. */
	for (i = 0; i < 20; i++) {
		snprintf(addr, sizeof(addr), "10.0.1.%u", 100 + i);
		CHECK(hold(r, addr), "%s not taken", addr);
	}
	CHECK_EQ(neigh_counter(r, "resolving"), 4);
	CHECK_EQ(neigh_counter(r, "resolve_refused_budget"), 16);
	/* p0's IPv6 and p1's IPv4 have budgets of their own. */
	CHECK(hold(r, "2001:db8:1::77"), "held");
	CHECK(hold(r, "10.0.2.9"), "held");
	CHECK_EQ(neigh_counter(r, "resolving"), 6);
	/* The gateway of 198.51.100.0/24, on the scanned subnet: priority. */
	CHECK(hold(r, "198.51.100.1"), "held");
	CHECK_EQ(neigh_counter(r, "resolving"), 7);
	CHECK_EQ(neigh_counter(r, "resolve_priority"), 1);
	CHECK_EQ(neigh_counter(r, "resolve_refused_budget"), 16);
	/* Another scanned address: still refused. */
	CHECK(hold(r, "10.0.1.200"), "held");
	CHECK_EQ(neigh_counter(r, "resolve_refused_budget"), 17);
	CHECK(dpr_neigh_check(r->neigh, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ(rte_mempool_in_use_count(pool) > 0, 1);

	/*
	 * A budget that, summed over interfaces, exceeds the 512 entries (the
	 * config allows up to 4096): a scan of p0's IPv6 /64 takes every free
	 * entry, and then a new host on p1 still resolves, in the place of one
	 * of the scan's (RFC 6583 7.1: a scan must not stop resolution on
	 * another interface).
	 */
	dpr_neigh_set_budget(r->neigh, 4096);
	for (i = 0; i < 600; i++) {
		snprintf(addr, sizeof(addr), "2001:db8:1::%x", 0x1000 + i);
		CHECK(hold(r, addr), "%s not taken", addr);
	}
	CHECK_EQ(neigh_counter(r, "resolving"), 512);
	{
		uint64_t full = neigh_counter(r, "resolve_refused_full");
		uint64_t preempted = neigh_counter(r, "resolve_preempted");

		CHECK(full > 0, "the scan filled every entry");
		CHECK(hold(r, "10.0.2.10"), "held");
		CHECK_EQ(neigh_counter(r, "resolve_refused_full"), full);
		CHECK_EQ(neigh_counter(r, "resolve_preempted"), preempted + 1);
		/* The scan gains nothing back from another interface's entry. */
		CHECK(hold(r, "2001:db8:1::ffff"), "held");
		CHECK_EQ(neigh_counter(r, "resolve_refused_full"), full + 1);
	}
	CHECK(dpr_neigh_check(r->neigh, err, sizeof(err)) == 0, "%s", err);
}

int
main(int argc, char **argv)
{
	struct dpr_router r = { 0 };

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("copp", 1024, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || test_router_init(&r, conf_text, "copp.json") < 0)
		return 1;
	test_config();
	test_gate(&r);
	test_budget(&r);
	test_router_free(&r);
	return test_done("copp");
}
