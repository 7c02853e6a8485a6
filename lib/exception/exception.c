/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_jhash.h>

#include "../acl/acl_dp.h"
#include "../datapath/ip4_dp.h"
#include "../neigh/neigh.h"
#include "../route/route.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "exc_internal.h"
#include "exception.h"
#include "ip4_options.h"
#include "packet.h"
#include "tap.h"

static void neigh_solicit(void *ctx, uint16_t port, const struct dpr_ip *target,
			  const struct rte_ether_addr *unicast);
static void neigh_release(void *ctx, struct rte_mbuf *m, bool resolved);
static void neigh_release_via(void *ctx, struct rte_mbuf *m, uint32_t nh, uint8_t port,
			      const struct rte_ether_addr *mac);

struct dpr_exc_engine *
dpr_exc_create(struct dpr_router *r)
{
	struct dpr_exc_engine *x = calloc(1, sizeof(*x));

	if (x == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	x->r = r;
	x->hz = DPR_CLOCK_HZ;
	if (r->neigh != NULL)
		dpr_neigh_set_ops(r->neigh, &(struct dpr_neigh_ops){
			.solicit = neigh_solicit, .release = neigh_release,
			.release_via = neigh_release_via, .ctx = x });
	return x;
}

void
dpr_exc_free(struct dpr_exc_engine *x)
{
	free(x);
}

struct rte_mempool *
dpr_exc_pool(struct dpr_exc_engine *x, uint16_t port)
{
	return x->r->pools[x->r->ports[port].socket];
}

static bool is_ip6(const struct rte_mbuf *m);
static void icmp_error(struct dpr_exc_engine *x, struct rte_mbuf *m, uint8_t type,
		       uint8_t code, uint32_t rest);

/*
 * The output ACL of @p port over @p m, which the control thread sends:
 * whether it may leave. A rejected transit packet is answered as a
 * worker's would be; a denied one, and a rejected one the router made
 * itself (OWN_PACKET: there is no one to tell but the router), is freed.
 */
static bool
acl_out_ok(struct dpr_exc_engine *x, uint16_t port, struct rte_mbuf *m)
{
	switch (dpr_acl_ctl_out(x->r->acl, port, m)) {
	case DPR_ACL_PERMIT:
		return true;
	case DPR_ACL_REJECT:
		if (DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET)
			rte_pktmbuf_free(m);
		else if (is_ip6(m))
			dpr_exc6_admin_prohibited(x, m);
		else
			icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_ADMIN, 0);
		return false;
	case DPR_ACL_DENY:
	default:
		rte_pktmbuf_free(m);
		return false;
	}
}

void
dpr_exc_tx(struct dpr_exc_engine *x, uint16_t port, struct rte_mbuf *m)
{
	const struct dpr_port *p = &x->r->ports[port];

	/* No way around an output ACL: the slow path's packets, those held
	 * for a neighbour and the router's own pass it too. */
	if (unlikely(dpr_acl_ctl_out_bound(x->r->acl, port)) && !acl_out_ok(x, port, m))
		return;
	if (unlikely(p->vlan_outer != 0)) {
		if (dpr_qinq_tx_burst(p->port_id, (uint16_t)x->r->n_workers, p->vlan_id,
				      p->vlan_outer, &m, 1) == 1)
			return;
	} else if (dpr_vlan_tx_burst(p->port_id, (uint16_t)x->r->n_workers, p->vlan_id,
				     dpr_port_vlan_insert(p), &m, 1) == 1) {
		return;
	}
	x->c.tx_failed++;
	rte_pktmbuf_free(m);
}

void
dpr_exc_tx_own(struct dpr_exc_engine *x, uint16_t port, struct rte_mbuf *m)
{
	m->hash.usr = DPR_EXC_META(OWN_PACKET, port);
	dpr_exc_tx(x, port, m);
}

/*
 * The router's IPv4 address to speak from on @p port to @p ip
 * (dpr_ifaddr_source()); 0 if it has none.
 */
static uint32_t
port_addr(struct dpr_exc_engine *x, uint16_t port, uint32_t ip)
{
	struct dpr_ip peer = { .af = DPR_AF_IP4, .ip4 = ip }, src;

	return dpr_ifaddr_source(&x->r->addrs, port, &peer, &src) == 0 ? src.ip4 : 0;
}

static bool
is_our_address(struct dpr_exc_engine *x, uint16_t port, uint32_t ip)
{
	return dpr_ifaddr_on(&x->r->addrs, port, &(struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = ip });
}

/* --- packets the router sends ------------------------------------------- */

/*
 * Where a packet to @p dst leaves: its next hop @p *nh and the address the
 * router speaks from there (the output interface's, on the next hop's
 * subnet). @return the output port, or -1 when @p dst has no route out.
 * Through a multipath route, the router's packets to one destination
 * take one member: they are hashed by destination alone.
 */
static int
egress(struct dpr_exc_engine *x, const struct rte_mbuf *m, uint32_t dst, uint32_t *nh,
       uint32_t *src)
{
	const struct dpr_nh_info *info;
	union dpr_nh_word w;

	*nh = dpr_nh_pick(x->r->nh, dpr_fib4_lookup(dpr_exc_rib(x, m)->fib4, dst),
			  rte_jhash_1word(dst, 4));
	w = dpr_exc_word(x, *nh);
	info = dpr_nh_info(x->r->nh, *nh);
	if ((w.kind != DPR_NH_KIND_FORWARD && w.kind != DPR_NH_KIND_UNRESOLVED) || info == NULL)
		return -1;
	*src = port_addr(x, w.port, info->ip.af == DPR_AF_IP4 ? info->ip.ip4 : dst);
	return w.port;
}

/*
 * Send @p m (an IPv4 packet the router made) towards @p dst through next
 * hop @p nh: now if its MAC is known, else held while it is resolved (an
 * on-link host the router has not heard from yet: RFC 1122 2.3.2.2, which
 * RFC 1812 3.3.2 applies to routers; path-MTU discovery, RFC 1191, needs it).
 */
static void
send_own(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t dst, uint32_t nh)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	union dpr_nh_word w = dpr_exc_word(x, nh);
	struct dpr_ip d = { .af = DPR_AF_IP4, .ip4 = dst };

	if (w.kind == DPR_NH_KIND_FORWARD) {
		eth->dst_addr = w.mac;
		eth->src_addr = x->r->ports[w.port].mac;
		dpr_exc_tx_own(x, w.port, m);
		return;
	}
	m->hash.usr = DPR_EXC_META(OWN_PACKET, w.port);
	if (w.kind == DPR_NH_KIND_UNRESOLVED && x->r->neigh != NULL &&
	    dpr_neigh_hold(x->r->neigh, m, nh, &d))
		return;
	x->c.icmp_unroutable++;
	rte_pktmbuf_free(m);
}

/* Route @p m, a packet the router made, to @p dst again. */
static void
route_own(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t dst)
{
	uint32_t nh, src;

	if (egress(x, m, dst, &nh, &src) < 0) {
		x->c.icmp_unroutable++;
		rte_pktmbuf_free(m);
		return;
	}
	send_own(x, m, dst, nh);
}

/* --- ICMP errors --------------------------------------------------------- */

bool
dpr_exc_rate_ok(struct dpr_exc_engine *x, uint32_t src)
{
	struct bucket *b = &x->rl[rte_jhash_1word(src, 0) % RL_BUCKETS];
	uint64_t now = dpr_clock_now(), add;

	if (b->last == 0) {
		b->tokens = RL_BURST;
		b->last = now;
	}
	/* Sources sharing a bucket share its tokens: colliding is no way
	 * around the limit. */
	b->src = src;
	add = (now - b->last) * RL_RATE / x->hz;
	if (add > 0) {
		b->tokens = (uint32_t)RTE_MIN((uint64_t)RL_BURST, b->tokens + add);
		b->last = now;
	}
	if (b->tokens == 0)
		return false;
	b->tokens--;
	return true;
}

static void
count_error(struct dpr_exc_engine *x, uint8_t type, uint8_t code)
{
	if (type == DPR_ICMP_TIME_EXCEEDED)
		x->c.icmp_time_exceeded++;
	else if (type == DPR_ICMP_PARAM_PROBLEM)
		x->c.icmp_param_problem++;
	else if (code == DPR_ICMP_UNREACH_NET)
		x->c.icmp_net_unreachable++;
	else if (code == DPR_ICMP_UNREACH_HOST)
		x->c.icmp_host_unreachable++;
	else if (code == DPR_ICMP_UNREACH_ADMIN)
		x->c.icmp_admin_prohibited++;
	else
		x->c.icmp_frag_needed++;
}

/*
 * Is @p m (its port in use) to an IP broadcast address: the limited
 * broadcast, or a connected subnet's in its VRF? RFC 1812 4.3.2.7: no
 * ICMP error about such a datagram, whatever frame it came in (multicast
 * and link-layer broadcast are dpr_icmp4_error_allowed()'s).
 */
static bool
to_broadcast(struct dpr_exc_engine *x, const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);

	return dst == UINT32_MAX || dpr_fib4_lookup(dpr_exc_rib(x, m)->fib4, dst) == DPR_NH_BCAST;
}

/* 192.0.0.8, the IPv4 dummy address (RFC 7600 4.8, IANA's special-purpose registry). */
#define DPR_IP4_DUMMY 0xc0000008u

/* Answer @p m (consumed) with an ICMP error, if the rules and the rate allow. */
static void
icmp_error(struct dpr_exc_engine *x, struct rte_mbuf *m, uint8_t type, uint8_t code,
	   uint32_t rest)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint32_t src = rte_be_to_cpu_32(ip->src_addr), nh, from;
	bool port_ok = dpr_exc_port_ok(x, DPR_EXC_META_PORT(m->hash.usr));
	struct rte_mbuf *e;
	int out;

	if (DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET || !dpr_icmp4_error_allowed(m) ||
	    (port_ok && to_broadcast(x, m))) {
		x->c.icmp_not_allowed++;
	} else if (!port_ok || (out = egress(x, m, src, &nh, &from)) < 0) {
		x->c.icmp_unroutable++;
	} else if (!dpr_exc_rate_ok(x, src)) {
		x->c.icmp_rate_limited++;
	} else {
		/* From an address of the interface the error leaves through
		 * (RFC 1812 4.3.2.4), which need not be the one the packet
		 * came in on; with no IPv4 address in its VRF (IPv6-only,
		 * unnumbered links: RFC 8950), from the dummy address of
		 * RFC 7600 4.8, as Linux does, rather than no error. */
		if (from == 0)
			from = DPR_IP4_DUMMY;
		e = dpr_icmp4_error(dpr_exc_pool(x, (uint16_t)out), m, type, code, rest, from);
		if (e == NULL) {
			x->c.no_mbuf++;
		} else {
			count_error(x, type, code);
			send_own(x, e, src, nh);
		}
	}
	rte_pktmbuf_free(m);
}

/* --- neighbours ---------------------------------------------------------- */

/* Ask who has @p ip on @p port: broadcast, or a unicast probe to @p unicast. */
static void
arp_request(struct dpr_exc_engine *x, uint16_t port, uint32_t ip,
	    const struct rte_ether_addr *unicast)
{
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	struct dpr_arp a = {
		.op = RTE_ARP_OP_REQUEST,
		.sha = x->r->ports[port].mac,
		.sip = port_addr(x, port, ip),
		.tip = ip,
	};
	struct rte_mbuf *m = dpr_arp_build(dpr_exc_pool(x, port), &a,
					   unicast != NULL ? unicast : &bcast);

	if (m == NULL) {
		x->c.no_mbuf++;
		return;
	}
	if (unicast != NULL)
		x->c.arp_probes_sent++;
	else
		x->c.arp_requests_sent++;
	dpr_exc_tx_own(x, port, m);
}

void
dpr_exc_garp(struct dpr_exc_engine *x, unsigned int port, uint32_t ip)
{
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	struct dpr_arp a = {
		.op = RTE_ARP_OP_REQUEST, .sha = x->r->ports[port].mac, .sip = ip, .tip = ip,
	};
	struct rte_mbuf *m = dpr_arp_build(dpr_exc_pool(x, (uint16_t)port), &a, &bcast);

	if (m != NULL) {
		x->c.arp_requests_sent++;
		dpr_exc_tx_own(x, (uint16_t)port, m);
	}
}

static void
neigh_solicit(void *ctx, uint16_t port, const struct dpr_ip *target,
	      const struct rte_ether_addr *unicast)
{
	if (target->af == DPR_AF_IP4)
		arp_request(ctx, port, target->ip4, unicast);
	else
		dpr_exc6_solicit(ctx, port, target->ip6, unicast);
}

/*
 * Another host (@p mac) on @p port sent ARP with our address @p ip as its
 * sender: an address conflict (RFC 5227 2.4), which moves the link's
 * hosts' traffic for @p ip to it. Always counted; logged and defended with
 * one ARP announcement at most once per DEFEND_INTERVAL (10 s) per
 * address: a router keeps its address whatever happens, as 2.4 (c) allows
 * "the link's default router", and the rate limit is what 2.4 (c) asks
 * of it. On a transparent port the kernel owns ARP: dpr only reports.
 */
bool
dpr_exc_conflict_due(struct dpr_exc_engine *x, uint16_t port, const struct dpr_ip *ip)
{
	struct defended *d = NULL, *oldest = &x->defended[0];
	uint64_t now = dpr_clock_now();
	unsigned int i;

	for (i = 0; i < DEFENDED_ADDRS && d == NULL; i++) {
		if (x->defended[i].last != 0 && dpr_ip_equal(&x->defended[i].ip, ip) &&
		    x->defended[i].port == port)
			d = &x->defended[i];
		else if (x->defended[i].last < oldest->last)
			oldest = &x->defended[i];
	}
	if (d != NULL && now - d->last < x->hz * DEFEND_INTERVAL_MS / 1000)
		return false;
	if (d == NULL)
		d = oldest;
	*d = (struct defended){ .last = now, .ip = *ip, .port = port };
	return true;
}

static void
address_conflict(struct dpr_exc_engine *x, uint16_t port, uint32_t ip,
		 const struct rte_ether_addr *mac)
{
	struct dpr_ip a = { .af = DPR_AF_IP4, .ip4 = ip };
	char s[DPR_IP6_STRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];

	x->c.address_conflicts++;
	if (!dpr_exc_conflict_due(x, port, &a))
		return;
	rte_ether_format_addr(m, sizeof(m), mac);
	DPR_LOG(ERR, main, "port %s: address conflict: %s claims %s, an address of ours (RFC 5227 2.4)%s",
		x->r->cfg->ports[port].name, m, dpr_ip_fmt(&a, s, sizeof(s)),
		x->r->cfg->ports[port].transparent ? "" : "; defending it");
	if (x->r->cfg->ports[port].transparent)
		return;
	x->c.address_defended++;
	dpr_exc_garp(x, port, ip);
}

static bool
is_ip6(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
		RTE_BE16(RTE_ETHER_TYPE_IPV6);
}

static void forward_slow(struct dpr_exc_engine *x, struct rte_mbuf *m);

/*
 * Whether transit packet @p m, held for a neighbour that did not answer,
 * has a way on now: its route leads to a next hop that forwards, a
 * multipath route's member that did answer (the flow's own failed:
 * dpr_nh_pick() spreads its flows over the others) or a route that
 * changed meanwhile.
 */
static bool
forwards_now(struct dpr_exc_engine *x, const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint32_t nh = dpr_nh_pick(x->r->nh, dpr_fib4_lookup(dpr_exc_rib(x, m)->fib4,
							    rte_be_to_cpu_32(ip->dst_addr)),
				  dpr_flow_hash_ctl(m));

	return dpr_exc_word(x, nh).kind == DPR_NH_KIND_FORWARD;
}

/* A packet held for a neighbour: its neighbour answered (route it again),
 * or did not: routed again if another way forwards now (forwards_now()),
 * else host unreachable (RFC 1812 4.3.3.1). */
static void
neigh_release(void *ctx, struct rte_mbuf *m, bool resolved)
{
	struct dpr_exc_engine *x = ctx;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));

	if (is_ip6(m)) {
		dpr_exc6_release(x, m, resolved);
		return;
	}
	if (DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET) {
		if (resolved) {
			route_own(x, m, rte_be_to_cpu_32(ip->dst_addr));
		} else {
			x->c.icmp_unroutable++;
			rte_pktmbuf_free(m);
		}
	} else if (resolved || forwards_now(x, m)) {
		forward_slow(x, m);
	} else {
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_HOST, 0);
	}
}

/* A held packet whose neighbour answered, before workers know (see
 * struct dpr_neigh_ops): forwarded as if next hop @p nh had that MAC. */
static void
neigh_release_via(void *ctx, struct rte_mbuf *m, uint32_t nh, uint8_t port,
		  const struct rte_ether_addr *mac)
{
	struct dpr_exc_engine *x = ctx;
	union dpr_nh_word w = { .u64 = 0 };

	w.mac = *mac;
	w.port = port;
	w.kind = DPR_NH_KIND_FORWARD;
	x->ovr_nh = nh;
	x->ovr_w = w;
	neigh_release(x, m, true);
	x->ovr_nh = DPR_NH_NONE;
}

/* A packet whose next hop @p nh has no MAC: hold it while it is resolved. */
static void
resolve(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t nh)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	struct dpr_ip dst = { .af = DPR_AF_IP4, .ip4 = rte_be_to_cpu_32(ip->dst_addr) };

	if (x->r->neigh == NULL || !dpr_neigh_hold(x->r->neigh, m, nh, &dst))
		forward_slow(x, m); /* resolved or gone meanwhile: route it again */
}

/* --- slow-path forwarding ------------------------------------------------- */

/*
 * @p m, a packet to forward to @p dst through next hop @p nh, leaves
 * through the port it came in on: send its source an ICMP host redirect
 * (RFC 792) where RFC 1812 5.2.7.2 allows one: the port's redirects are on
 * (ports[].redirects), the packet is a transit one (not the router's own),
 * from a source that names one host and not about an ICMP error
 * (dpr_icmp4_error_allowed()), and the source and the better first hop
 * (the next hop's IPv4 gateway, or the destination itself on a connected
 * subnet) are on one subnet of the port; never about a datagram to a
 * broadcast address (to_broadcast(), RFC 1812 4.3.2.7). A next hop that is an IPv6
 * neighbour (RFC 8950) names no IPv4 gateway: none then. Source-routed
 * packets never come here (options_forward() refused them). From the
 * port's address on the source's subnet (hosts take redirects only from
 * their first hop, RFC 1122 3.2.2.2), to the source's MAC (it sent this
 * frame), rate-limited with ICMP errors. @p m itself is left to forward.
 */
static void
redirect4(struct dpr_exc_engine *x, const struct rte_mbuf *m, uint16_t in, uint32_t nh,
	  uint32_t dst)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct dpr_nh_info *info = dpr_nh_info(x->r->nh, nh);
	struct dpr_ip src = { .af = DPR_AF_IP4, .ip4 = rte_be_to_cpu_32(ip->src_addr) };
	struct dpr_ip gw = { .af = DPR_AF_IP4 };
	struct rte_mbuf *e;

	if (!x->r->cfg->ports[in].redirects || DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET)
		return;
	if (info != NULL && (info->ip.af == DPR_AF_IP4 || info->ip.af == 0))
		gw.ip4 = info->ip.af == DPR_AF_IP4 ? info->ip.ip4 : dst;
	if (gw.ip4 == 0 || gw.ip4 == src.ip4 || !dpr_icmp4_error_allowed(m) || to_broadcast(x, m) ||
	    !dpr_ifaddr_same_subnet(&x->r->addrs, in, &src, &gw)) {
		x->c.icmp_redirect_not_allowed++;
		return;
	}
	if (!dpr_exc_rate_ok(x, src.ip4)) {
		x->c.icmp_rate_limited++;
		return;
	}
	e = dpr_icmp4_error(dpr_exc_pool(x, in), m, DPR_ICMP_REDIRECT, DPR_ICMP_REDIRECT_HOST,
			    gw.ip4, port_addr(x, in, src.ip4));
	if (e == NULL) {
		x->c.no_mbuf++;
		return;
	}
	rte_pktmbuf_mtod(e, struct rte_ether_hdr *)->dst_addr = eth->src_addr;
	rte_pktmbuf_mtod(e, struct rte_ether_hdr *)->src_addr = x->r->ports[in].mac;
	x->c.icmp_redirect_sent++;
	dpr_exc_tx_own(x, in, e);
}

static void local_input(struct dpr_exc_engine *x, struct rte_mbuf *m);

/*
 * The most fragments one packet is cut into: enough for a 9000-byte packet
 * at an MTU of 164 or more. One needing more (a jumbo frame onto an MTU below that)
 * is dropped, counted as frag_too_many.
 */
#define FRAGMENTS_MAX 64

/* DF clear and too big: fragment (RFC 791), then send each piece. */
static void
fragment(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t out, uint16_t mtu,
	 const struct rte_ether_addr *dst)
{
	struct rte_mbuf *frags[FRAGMENTS_MAX];
	struct rte_mempool *mp = dpr_exc_pool(x, out);
	uint32_t meta = m->hash.usr;
	int n, i;

	/* The fragmenter splits the buffer: it must hold the IP packet and
	 * nothing past it (forward_slow() cut it to the total length). */
	rte_pktmbuf_adj(m, sizeof(struct rte_ether_hdr));
	n = rte_ipv4_fragment_packet(m, frags, RTE_DIM(frags), mtu, mp, mp);
	rte_pktmbuf_free(m);
	/* -ENOMEM: out of mbufs; -EINVAL: more pieces than frags[] holds
	 * (its other cause, no room for 8 bytes past the header, cannot
	 * be: an MTU is 68 or more, RFC 791). */
	if (n == -ENOMEM) {
		x->c.no_mbuf++;
		return;
	}
	if (n < 0) {
		x->c.frag_too_many++;
		return;
	}
	x->c.fragmented++;
	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eth = (struct rte_ether_hdr *)
			rte_pktmbuf_prepend(frags[i], sizeof(*eth));
		struct rte_ipv4_hdr *ip;

		/* Fragments are header + indirect data segments; not every PMD
		 * sends chains (22.11 af_packet sends the first segment only). */
		if (eth == NULL || rte_pktmbuf_linearize(frags[i]) < 0) {
			x->c.no_mbuf++;
			rte_pktmbuf_free(frags[i]);
			continue;
		}
		ip = (struct rte_ipv4_hdr *)(eth + 1);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		/* The fragmenter's new mbufs keep no metadata: each piece is
		 * the transit packet's (an output ACL's reject answers it). */
		frags[i]->hash.usr = meta;
		eth->dst_addr = *dst;
		eth->src_addr = x->r->ports[out].mac;
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		dpr_exc_tx(x, out, frags[i]);
	}
}

/* Milliseconds since midnight UT, for the timestamp option (RFC 791). */
static uint32_t
ms_since_midnight(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return DPR_IP4_TS_NONSTANDARD;
	return (uint32_t)((ts.tv_sec % 86400) * 1000 + ts.tv_nsec / 1000000);
}

static bool
is_router_address(uint32_t addr, const void *arg)
{
	const struct dpr_fib4 *fib = arg; /* the packet's VRF's */

	return dpr_fib4_lookup(fib, addr) == DPR_NH_LOCAL;
}

/*
 * Act on the verdict on @p m's options: a source route is not honoured
 * (see ip4_options.h), a malformed option gets a parameter problem pointing
 * at byte @p ptr (RFC 1812 4.3.2.7 rules apply). @return true when @p m
 * goes on; otherwise it was consumed.
 */
static bool
options_ok(struct dpr_exc_engine *x, struct rte_mbuf *m, enum dpr_ip4_opt_verdict v, uint8_t ptr)
{
	switch (v) {
	case DPR_IP4_OPT_OK:
		return true;
	case DPR_IP4_OPT_SOURCE_ROUTE:
		x->c.source_routed++;
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_ADMIN, 0);
		return false;
	case DPR_IP4_OPT_BAD:
	default:
		x->c.ip_options_bad++;
		icmp_error(x, m, DPR_ICMP_PARAM_PROBLEM, 0, (uint32_t)ptr << 24);
		return false;
	}
}

/*
 * The options of @p m, a packet to forward out of @p out towards next hop
 * (or destination) @p gw, checked and with record route and timestamp
 * filled in (RFC 1812 5.3.13). @return true when @p m goes on.
 */
static bool
options_forward(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t out, uint32_t gw)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  sizeof(struct rte_ether_hdr));
	struct dpr_ip4_opt_hop hop = {
		.out_addr = port_addr(x, out, gw), .ts_ms = ms_since_midnight(),
		.is_local = is_router_address, .arg = dpr_exc_rib(x, m)->fib4,
	};
	uint8_t ptr = 0;
	enum dpr_ip4_opt_verdict v = dpr_ip4_options_forward(ip, &hop, &ptr);

	if (!options_ok(x, m, v, ptr))
		return false;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return true;
}

/* Options of a packet for the router: checked before the host stack sees
 * it; source routes are not honoured here either. */
static bool
options_local(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint8_t ptr = 0;
	enum dpr_ip4_opt_verdict v = dpr_ip4_options_check(ip, &ptr);

	return options_ok(x, m, v, ptr);
}

/*
 * Forward @p m from the control thread: what the worker does, for packets
 * it handed over (held for resolution, IP options, MTU), with the same
 * decision (dpr_ip4_decide()), through the multipath member the rest of
 * its flow takes (dpr_flow_hash_ctl(): the RSS hash the worker kept).
 */
static void
forward_slow(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	bool options = (ip->version_ihl & 0xf) > 5;
	const struct dpr_nh_info *info;
	const struct dpr_port_dp *out;
	union dpr_nh_word w;
	uint32_t nh;

	/* Whatever path it came by, the frame is the IP packet from here on:
	 * nothing past the total length is sent or fragmented. */
	dpr_pktmbuf_cut(m, sizeof(*eth) + rte_be_to_cpu_16(ip->total_length));
	nh = dpr_nh_pick(x->r->nh, dpr_fib4_lookup(dpr_exc_rib(x, m)->fib4, dst),
			 dpr_flow_hash_ctl(m));
	w = dpr_exc_word(x, nh);
	switch (dpr_ip4_decide(w, ip, !rte_is_unicast_ether_addr(&eth->dst_addr), x->r->port_dp)) {
	case DPR_L3_FORWARD:
	case DPR_L3_TOO_BIG:
		break;
	case DPR_L3_LOCAL:
		if (!options || options_local(x, m))
			local_input(x, m);
		return;
	case DPR_L3_UNRESOLVED:
		resolve(x, m, nh);
		return;
	case DPR_L3_L2_BCAST:
		x->c.l2_broadcast_dropped++;
		rte_pktmbuf_free(m);
		return;
	case DPR_L3_BLACKHOLE:
		x->c.blackholed++;
		rte_pktmbuf_free(m);
		return;
	case DPR_L3_LINK_LOCAL:
		x->c.link_local_dropped++;
		rte_pktmbuf_free(m);
		return;
	case DPR_L3_TTL_EXPIRED:
		icmp_error(x, m, DPR_ICMP_TIME_EXCEEDED, 0, 0);
		return;
	case DPR_L3_NO_ROUTE:
	default:
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_NET, 0);
		return;
	}
	out = &x->r->port_dp[w.port];
	if (rte_be_to_cpu_16(ip->total_length) > out->mtu &&
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG))) {
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_FRAG_NEEDED, out->mtu);
		return;
	}
	info = dpr_nh_info(x->r->nh, nh);
	if (options && !options_forward(x, m, w.port,
					info != NULL && info->ip.af == DPR_AF_IP4 ? info->ip.ip4 : dst))
		return;
	if (w.port == DPR_EXC_META_PORT(m->hash.usr))
		redirect4(x, m, w.port, nh, dst);
	dpr_ip4_ttl_dec(ip);
	if (rte_be_to_cpu_16(ip->total_length) > out->mtu) {
		fragment(x, m, w.port, out->mtu, &w.mac);
		return;
	}
	eth->dst_addr = w.mac;
	eth->src_addr = out->mac;
	x->c.slow_forwarded++;
	dpr_exc_tx(x, w.port, m);
}

/* --- input ------------------------------------------------------------------ */

static void
arp_input(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t in)
{
	struct dpr_arp a, reply;
	struct rte_mbuf *r;

	/* The sender must be one host: 0.0.0.0 (an RFC 5227 probe) or a
	 * unicast address, never loopback, multicast, class E or a connected
	 * subnet's broadcast (learning those would turn broadcasts into
	 * unicasts to whoever claimed them). */
	if (dpr_arp_parse(m, &a) < 0 ||
	    (a.sip != 0 && (dpr_ip4_special_octet[a.sip >> 24] ||
			    dpr_fib4_lookup(dpr_exc_rib(x, m)->fib4, a.sip) == DPR_NH_BCAST))) {
		x->c.arp_invalid++;
		rte_pktmbuf_free(m);
		return;
	}
	if (a.op == RTE_ARP_OP_REQUEST)
		x->c.arp_requests_in++;
	else
		x->c.arp_replies_in++;
	if (a.sip != 0 && is_our_address(x, in, a.sip) &&
	    !rte_is_same_ether_addr(&a.sha, &x->r->ports[in].mac)) {
		address_conflict(x, in, a.sip, &a.sha);
		if (!x->r->cfg->ports[in].transparent) {
			rte_pktmbuf_free(m);
			return;
		}
	}
	/* What the sender says of itself: lib/neigh decides what it may
	 * create or change (RFC 826; the port's neighbor_learning). */
	if (x->r->neigh != NULL && a.sip != 0)
		dpr_neigh_seen(x->r->neigh, in, &(struct dpr_ip){ .af = DPR_AF_IP4, .ip4 = a.sip },
			       &a.sha, &(struct dpr_neigh_heard){
				       .msg = a.op == RTE_ARP_OP_REQUEST ? DPR_NEIGH_REQUEST :
									   DPR_NEIGH_REPLY,
				       .for_us = a.op == RTE_ARP_OP_REQUEST &&
						 is_our_address(x, in, a.tip),
				       .gratuitous = a.sip == a.tip });
	if (x->r->cfg->ports[in].transparent) {
		/* The kernel answers for the router on this port. */
		if (dpr_tap_to_kernel(x->r, in, m) < 0)
			rte_pktmbuf_free(m);
		return;
	}
	if (a.op == RTE_ARP_OP_REPLY && rte_is_same_ether_addr(&a.tha, &x->r->ports[in].mac)) {
		/* Maybe an answer to the kernel's own request: it learns too. */
		if (dpr_tap_to_kernel(x->r, in, m) == 0)
			return;
	}
	if (a.op == RTE_ARP_OP_REQUEST && is_our_address(x, in, a.tip) && a.sip != a.tip) {
		reply = (struct dpr_arp){
			.op = RTE_ARP_OP_REPLY, .sha = x->r->ports[in].mac, .sip = a.tip,
			.tha = a.sha, .tip = a.sip,
		};
		r = dpr_arp_build(dpr_exc_pool(x, in), &reply, &a.sha);
		if (r == NULL) {
			x->c.no_mbuf++;
		} else {
			x->c.arp_replies_sent++;
			dpr_exc_tx_own(x, in, r);
		}
	}
	rte_pktmbuf_free(m);
}

static bool
is_echo_request(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint32_t hlen = (uint32_t)(ip->version_ihl & 0xf) * 4;

	return m->data_len > sizeof(struct rte_ether_hdr) + hlen &&
		((const uint8_t *)ip)[hlen] == DPR_ICMP_ECHO_REQUEST;
}

/*
 * A packet for the broadcast address of a connected subnet (a directed
 * broadcast, RFC 1812 5.3.5.2) that came in on another port: forward a
 * copy onto that subnet's link if its port says so ("forward_directed_
 * broadcast", off by default as RFC 2644 has it); the router keeps the
 * packet itself, as one of the subnet's hosts. Not forwarded: what came as
 * a link-layer broadcast (5.3.4), carries options, would expire or does
 * not fit the link.
 */
static void
directed_broadcast(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t in)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	struct dpr_ip dst = { .af = DPR_AF_IP4, .ip4 = rte_be_to_cpu_32(ip->dst_addr) };
	uint16_t len = rte_be_to_cpu_16(ip->total_length);
	struct rte_ether_hdr *ceth;
	struct rte_ipv4_hdr *cip;
	struct rte_mbuf *c;
	int out;

	if (dst.ip4 == UINT32_MAX ||
	    dpr_fib4_lookup(dpr_router_port_rib(x->r, in)->fib4, dst.ip4) != DPR_NH_BCAST)
		return;
	out = dpr_ifaddr_connected(&x->r->addrs, dpr_router_port_vrf(x->r, in), &dst, -1);
	if (out < 0 || out == in || !x->r->cfg->ports[out].forward_directed_broadcast)
		return;
	if (!rte_is_unicast_ether_addr(&eth->dst_addr) || (ip->version_ihl & 0xf) != 5 ||
	    ip->time_to_live <= 1 || len > x->r->port_dp[out].mtu) {
		x->c.directed_broadcast_dropped++;
		return;
	}
	c = rte_pktmbuf_copy(m, dpr_exc_pool(x, (uint16_t)out), 0, UINT32_MAX);
	if (c == NULL) {
		x->c.no_mbuf++;
		return;
	}
	dpr_pktmbuf_cut(c, sizeof(*eth) + len);
	ceth = rte_pktmbuf_mtod(c, struct rte_ether_hdr *);
	cip = (struct rte_ipv4_hdr *)(ceth + 1);
	memset(&ceth->dst_addr, 0xff, sizeof(ceth->dst_addr));
	ceth->src_addr = x->r->ports[out].mac;
	dpr_ip4_ttl_dec(cip);
	x->c.directed_broadcast_forwarded++;
	dpr_exc_tx(x, (uint16_t)out, c);
}

/*
 * @p m, an echo reply dpr_icmp4_echo_reply() made of a request with
 * options: record route and timestamp updated to include the router, as
 * it would for a packet it forwards, so that they cover the round trip
 * (RFC 1812 4.3.3.6). The router's address is the reply's source. Options
 * it cannot update (a malformed list, a timestamp overflow count at 15)
 * are left as they came.
 */
static void
echo_options(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  sizeof(struct rte_ether_hdr));
	struct dpr_ip4_opt_hop hop = {
		.out_addr = rte_be_to_cpu_32(ip->src_addr), .ts_ms = ms_since_midnight(),
		.is_local = is_router_address, .arg = dpr_exc_rib(x, m)->fib4,
	};
	uint8_t ptr;

	if ((ip->version_ihl & 0xf) == 5 ||
	    dpr_ip4_options_forward(ip, &hop, &ptr) != DPR_IP4_OPT_OK)
		return;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static void
local_input(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);

	directed_broadcast(x, m, in);
	if (ip->next_proto_id == IPPROTO_ICMP && !x->r->cfg->ports[in].transparent) {
		uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
		uint32_t nh = dpr_fib4_lookup(dpr_router_port_rib(x->r, in)->fib4, dst);

		if (nh == DPR_NH_BCAST && is_echo_request(m)) {
			/* To a connected subnet's broadcast: ignored unless the
			 * port says otherwise (RFC 1122 3.2.2.6 allows either;
			 * answering is what smurf attacks use), and answered from
			 * the interface's address: a router never sources a
			 * broadcast address (RFC 1812 4.2.2.11). */
			if (!x->r->cfg->ports[in].broadcast_echo) {
				x->c.echo_broadcast_ignored++;
				rte_pktmbuf_free(m);
				return;
			}
			if (dpr_icmp4_echo_reply(m, port_addr(x, in, dst)) == 0) {
				echo_options(x, m);
				/* It may have come to the broadcast MAC: the
				 * reply is from the port's own. */
				eth->src_addr = x->r->ports[in].mac;
				x->c.echo_replies++;
				dpr_exc_tx_own(x, in, m);
				return;
			}
			x->c.echo_invalid++;
		} else if (nh == DPR_NH_LOCAL && rte_is_unicast_ether_addr(&eth->dst_addr)) {
			if (dpr_icmp4_echo_reply(m, 0) == 0) {
				echo_options(x, m);
				x->c.echo_replies++;
				dpr_exc_tx_own(x, in, m);
				return;
			}
			x->c.echo_invalid++;
		}
	}
	/* Everything else for the router goes to the host stack (TAP). */
	if (dpr_tap_to_kernel(x->r, in, m) < 0) {
		x->c.local_unhandled++;
		rte_pktmbuf_free(m);
	}
}

/*
 * A packet an ACL rejected (lib/acl/acl_dp.h): answered with
 * administratively prohibited. An input ACL classifies before the screen,
 * so the screen's header and address checks (dpr_ip4_slow()'s) are made
 * here first: a datagram that fails them is discarded silently, as the
 * screen would have, never answered (RFC 1812 4.3.2.7, 5.2.2, 5.3.7).
 */
static void
acl_reject(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	const uint32_t eth = sizeof(struct rte_ether_hdr);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, eth);

	if (m->data_len < eth ||
	    dpr_ip4_validate(ip, m->pkt_len - eth, m->data_len - eth, 0) != DPR_DROP_NONE ||
	    dpr_ip4_check_addrs(ip->src_addr, ip->dst_addr) == DPR_DROP_MARTIAN ||
	    dpr_fib4_lookup(dpr_exc_rib(x, m)->fib4, rte_be_to_cpu_32(ip->src_addr)) == DPR_NH_BCAST) {
		x->c.icmp_not_allowed++;
		rte_pktmbuf_free(m);
		return;
	}
	icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_ADMIN, 0);
}

void
dpr_exc_input(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	uint32_t cls = DPR_EXC_META_CLASS(m->hash.usr);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);

	/* Received on a VLAN interface deleted since (vlan.del): a worker
	 * counted it as an exception, it is dropped here. */
	if (unlikely(in >= DPR_MAX_PORTS || x->r->cfg->ports[in].name[0] == '\0')) {
		x->c.iface_deleted++;
		rte_pktmbuf_free(m);
		return;
	}
	if (is_ip6(m)) {
		dpr_exc6_input(x, m, cls, in);
		return;
	}
	switch (cls) {
	case DPR_EXC_ARP:
		arp_input(x, m, in);
		break;
	case DPR_EXC_LOCAL:
		local_input(x, m);
		break;
	case DPR_EXC_TTL_EXPIRED:
		icmp_error(x, m, DPR_ICMP_TIME_EXCEEDED, 0, 0);
		break;
	case DPR_EXC_NO_ROUTE:
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_NET, 0);
		break;
	case DPR_EXC_UNRESOLVED:
		resolve(x, m, DPR_EXC_ARG(m));
		break;
	case DPR_EXC_MTU_EXCEEDED:
	case DPR_EXC_IP_OPTIONS:
	case DPR_EXC_REDIRECT:
		forward_slow(x, m);
		break;
	case DPR_ACL_EXC_REJECT:
		acl_reject(x, m);
		break;
	case DPR_EXC_L2_CONTROL:
		/* LLDP, IS-IS: the daemons on the TAP answer, as they would
		 * on a host's own interface. */
		if (dpr_tap_to_kernel(x->r, in, m) < 0) {
			x->c.l2_control_unhandled++;
			rte_pktmbuf_free(m);
		}
		break;
	default:
		rte_pktmbuf_free(m);
	}
}

/* --- timers ------------------------------------------------------------------ */

void
dpr_exc_rings_drained(struct dpr_exc_engine *x)
{
	if (x->r->neigh != NULL)
		dpr_neigh_publish(x->r->neigh);
}

void
dpr_exc_timers(struct dpr_exc_engine *x)
{
	if (x->r->neigh != NULL)
		dpr_neigh_timers(x->r->neigh);
	dpr_exc6_timers(x);
}

json_t *
dpr_exc_stats_json(const struct dpr_exc_engine *x)
{
	json_t *o = json_object();

	json_t *o6 = json_object();

#define X(n) json_object_set_new(o, #n, json_integer((json_int_t)x->c.n));
	COUNTERS(X)
#undef X
#define X(n) json_object_set_new(o6, #n, json_integer((json_int_t)x->c6.n));
	COUNTERS6(X)
#undef X
	json_object_set_new(o, "ipv6", o6);
	if (x->r->neigh != NULL)
		dpr_neigh_stats_json(x->r->neigh, o);
	return o;
}
