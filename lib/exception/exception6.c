/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 half of the exception path: Neighbor Discovery (RFC 4861) for
 * the router's addresses and its next hops, router advertisements, ICMPv6
 * echo and errors (RFC 4443), and the slow path for packets with hop-by-hop
 * options or held for a neighbour. The packets themselves are built and
 * checked by icmp6.c; neighbour policy is lib/neigh's; the decision on a
 * next hop is dpr_l3_decide()'s, as for the workers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_random.h>

#include "../acl/acl_dp.h"
#include "../datapath/datapath.h"
#include "../datapath/ip6_dp.h"
#include "../fib/fib6.h"
#include "../neigh/neigh.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "exc_internal.h"
#include "exception.h"
#include "icmp6.h"
#include "tap.h"

/* RFC 4861 10: router constants. */
#define MAX_INITIAL_RTR_ADVERT_INTERVAL 16  /* seconds */
#define MAX_INITIAL_RTR_ADVERTISEMENTS 3
#define MAX_FINAL_RTR_ADVERTISEMENTS 3
#define MIN_DELAY_BETWEEN_RAS_MS 3000
#define MAX_RA_DELAY_TIME_MS 500
#define MAX_ANYCAST_DELAY_TIME_MS 1000
/* RFC 4861 6.2.1 defaults for a prefix with no lifetimes configured. */
#define DEFAULT_VALID_LIFETIME 2592000u     /* 30 days */
#define DEFAULT_PREFERRED_LIFETIME 604800u  /* 7 days */

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };

static struct rte_ipv6_hdr *
ip6_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, sizeof(struct rte_ether_hdr));
}

/* --- the router's addresses ------------------------------------------------- */

/* Is @p ip one of the router's addresses on @p port (link-local included)? */
static bool
ours_on(const struct dpr_exc_engine *x, uint16_t port, const uint8_t *ip)
{
	struct dpr_ip a = { .af = DPR_AF_IP6 };

	memcpy(a.ip6, ip, 16);
	return dpr_ifaddr_on(&x->r->addrs, port, &a);
}

/*
 * The link-local address @p port speaks from (RAs, redirects: RFC 4861
 * 6.1.2, 8.1): the one made from its MAC while the port has it, else
 * another link-local address of the port (addr.del may take the first,
 * as an operator who gives the port fe80::1 does): hosts resolve an RA's
 * source as their default router, and one the port does not answer for
 * would leave them none.
 */
static void
link_local(const struct dpr_exc_engine *x, uint16_t port, uint8_t out[16])
{
	const struct dpr_prefix *a;
	unsigned int k, n;

	dpr_ip6_link_local_from_mac(&x->r->ports[port].mac, out);
	if (ours_on(x, port, out))
		return;
	a = dpr_ifaddr_list(&x->r->addrs, port, &n);
	for (k = 0; k < n; k++) {
		if (a[k].addr.af == DPR_AF_IP6 && dpr_ip_is_link_local(&a[k].addr)) {
			memcpy(out, a[k].addr.ip6, 16);
			return;
		}
	}
}

/* Is @p ip the subnet-router anycast address of a subnet of @p port? */
static bool
anycast_on(const struct dpr_exc_engine *x, uint16_t port, const uint8_t *ip)
{
	struct dpr_ip a = { .af = DPR_AF_IP6 };

	memcpy(a.ip6, ip, 16);
	return dpr_ifaddr_anycast_on(&x->r->addrs, port, &a);
}

/*
 * Is @p ip the subnet-router anycast address of a subnet of an interface
 * in the VRF of @p in: "an address known by the ICMP message originator to
 * be an IPv6 anycast address" (RFC 4443 2.4 e.6)?
 */
static bool
anycast_in_vrf(const struct dpr_exc_engine *x, uint16_t in, const uint8_t *ip)
{
	const struct dpr_ifaddrs *t = &x->r->addrs;
	uint16_t vrf = dpr_router_port_vrf(x->r, in);
	unsigned int p;

	for (p = 0; p < t->n_ports; p++)
		if (t->vrf[p] == vrf && anycast_on(x, (uint16_t)p, ip))
			return true;
	return false;
}

/* The address the router speaks from on @p port to @p peer
 * (dpr_ifaddr_source()); the port's link-local one without a better. */
static void
source_for(const struct dpr_exc_engine *x, uint16_t port, const uint8_t *peer, uint8_t out[16])
{
	struct dpr_ip p = { .af = DPR_AF_IP6 }, src;

	memcpy(p.ip6, peer, 16);
	if (dpr_ifaddr_source(&x->r->addrs, port, &p, &src) == 0)
		memcpy(out, src.ip6, 16);
	else
		link_local(x, port, out);
}

/* --- neighbour discovery ------------------------------------------------------ */

void
dpr_exc6_solicit(struct dpr_exc_engine *x, uint16_t port, const uint8_t *target,
		 const struct rte_ether_addr *unicast)
{
	uint8_t src[16];
	struct rte_mbuf *m;

	source_for(x, port, target, src);
	m = dpr_ndp_ns_build(dpr_exc_pool(x, port), &x->r->ports[port].mac, src, target,
			     unicast != NULL, unicast);
	if (m == NULL) {
		x->c.no_mbuf++;
		return;
	}
	x->c6.ns_sent++;
	dpr_exc_tx_own(x, port, m);
}

/* A neighbour advertisement for our @p target from @p port to @p dst. */
static void
send_na(struct dpr_exc_engine *x, uint16_t port, const uint8_t *target, const uint8_t *dst,
	const struct rte_ether_addr *dmac, bool solicited, bool override)
{
	uint8_t src[16];
	struct rte_mbuf *m;

	/* From the target itself, unless it is an anycast address (a source
	 * must be unicast, RFC 4291 2.6). */
	if (override)
		memcpy(src, target, 16);
	else
		source_for(x, port, dst, src);
	m = dpr_ndp_na_build(dpr_exc_pool(x, port), &x->r->ports[port].mac, src, dst, dmac,
			     target, true, solicited, override);

	if (m == NULL) {
		x->c.no_mbuf++;
		return;
	}
	x->c6.na_sent++;
	dpr_exc_tx_own(x, port, m);
}

/*
 * Answer a solicitation for the anycast address @p target (the subnet-router
 * address, RFC 4291 2.6.1) later: after a random delay of up to
 * MAX_ANYCAST_DELAY_TIME (RFC 4861 7.2.7), and without the override flag,
 * so that another router's answer may stand (7.2.4). With every place
 * taken the solicitation goes unanswered, counted: the host asks again.
 */
static void
anycast_na_later(struct dpr_exc_engine *x, uint16_t port, const uint8_t *target,
		 const uint8_t *dst, const struct rte_ether_addr *dmac)
{
	struct anycast_na *a;

	if (x->n_na_wait == ANYCAST_NA_WAITING) {
		x->c6.anycast_na_dropped++;
		return;
	}
	a = &x->na_wait[x->n_na_wait++];
	a->at = dpr_clock_now() + rte_rand() % (x->hz * MAX_ANYCAST_DELAY_TIME_MS / 1000 + 1);
	a->port = port;
	memcpy(a->target, target, 16);
	memcpy(a->dst, dst, 16);
	a->dmac = *dmac;
	x->c6.anycast_na_delayed++;
}

/* Send the anycast answers that are due. */
static void
anycast_na_due(struct dpr_exc_engine *x, uint64_t now)
{
	unsigned int i = 0;

	while (i < x->n_na_wait) {
		struct anycast_na *a = &x->na_wait[i];

		if (now < a->at) {
			i++;
			continue;
		}
		/* Still ours: an address may have gone meanwhile. */
		if (anycast_on(x, a->port, a->target))
			send_na(x, a->port, a->target, a->dst, &a->dmac, true, false);
		*a = x->na_wait[--x->n_na_wait];
	}
}

void
dpr_exc_unsolicited_na(struct dpr_exc_engine *x, unsigned int port, const struct dpr_ip *a)
{
	struct rte_mbuf *m;

	if (a->af != DPR_AF_IP6 || x->r->cfg->ports[port].transparent)
		return;
	/* Duplicate address detection (RFC 4862 5.4): dpr uses the address at
	 * once, but asks, so that a duplicate shows in dad_conflicts and the
	 * log rather than as silently lost traffic. */
	m = dpr_ndp_ns_build(dpr_exc_pool(x, (uint16_t)port), &x->r->ports[port].mac, NULL,
			     a->ip6, false, NULL);
	if (m != NULL) {
		x->c6.ns_sent++;
		dpr_exc_tx_own(x, (uint16_t)port, m);
	} else {
		x->c.no_mbuf++;
	}
	send_na(x, (uint16_t)port, a->ip6, all_nodes, NULL, false, true);
}

static void
dad_conflict(struct dpr_exc_engine *x, uint16_t port, const uint8_t *target,
	     const struct rte_ether_addr *mac)
{
	char a[DPR_IP6_STRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];
	struct dpr_ip ip = { .af = DPR_AF_IP6 };

	memcpy(ip.ip6, target, 16);
	x->c6.dad_conflicts++;
	/* Counted every time, logged once per DEFEND_INTERVAL, as ARP's. */
	if (!dpr_exc_conflict_due(x, port, &ip))
		return;
	rte_ether_format_addr(m, sizeof(m), mac);
	DPR_LOG(ERR, main, "port %s: duplicate address %s: %s claims it too (RFC 4862 5.4)",
		x->r->cfg->ports[port].name, dpr_ip_fmt(&ip, a, sizeof(a)), m);
}

static void ra_solicited(struct dpr_exc_engine *x, uint16_t port);

static void
ndp_input(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t in)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	bool transparent = x->r->cfg->ports[in].transparent;
	struct dpr_ip peer = { .af = DPR_AF_IP6 };
	struct dpr_ndp nd;
	int ret;

	ret = dpr_ndp_parse(m, &nd);
	if (ret == -ENOTSUP)
		goto kernel;
	if (ret < 0) {
		/* RFC 4861 7.1: invalid messages are dropped silently. */
		x->c6.ndp_invalid++;
		rte_pktmbuf_free(m);
		return;
	}
	switch (nd.type) {
	case DPR_ICMP6_NEIGH_SOLICIT:
		x->c6.ns_in++;
		if (dpr_ip6_is_unspecified(nd.src)) {
			/* Someone's duplicate address detection: if it is
			 * for an address of ours, defend it (RFC 4862 5.4.3);
			 * on a transparent port the kernel answers for the
			 * router, so it gets the probe to defend with. */
			if (ours_on(x, in, nd.target)) {
				dad_conflict(x, in, nd.target, &eth->src_addr);
				if (transparent)
					goto kernel;
				send_na(x, in, nd.target, all_nodes, NULL, false, true);
			}
			break;
		}
		/* RFC 4861 7.2.3: the solicitor's address, when it gave its
		 * link-layer address, and only when it asked for one of ours
		 * (anycast included): a solicitation for any other target
		 * MUST be silently discarded, its SLLA taken for nothing, not
		 * even to replace a known neighbour's MAC. */
		memcpy(peer.ip6, nd.src, 16);
		if (nd.has_lladdr && x->r->neigh != NULL &&
		    (ours_on(x, in, nd.target) || anycast_on(x, in, nd.target)))
			dpr_neigh_seen(x->r->neigh, in, &peer, &nd.lladdr,
				       &(struct dpr_neigh_heard){
					       .msg = DPR_NEIGH_REQUEST, .for_us = true });
		if (transparent)
			goto kernel;
		if (ours_on(x, in, nd.target))
			send_na(x, in, nd.target, nd.src,
				nd.has_lladdr ? &nd.lladdr : &eth->src_addr, true, true);
		else if (anycast_on(x, in, nd.target))
			anycast_na_later(x, in, nd.target, nd.src,
					 nd.has_lladdr ? &nd.lladdr : &eth->src_addr);
		break;
	case DPR_ICMP6_NEIGH_ADVERT:
		x->c6.na_in++;
		if (ours_on(x, in, nd.target)) {
			/* On a transparent port the kernel owns the address:
			 * it hears of the duplicate too (RFC 4862 5.4.4). */
			dad_conflict(x, in, nd.target, &eth->src_addr);
			if (transparent)
				goto kernel;
			break;
		}
		/* RFC 4861 7.2.5: an advertisement updates an entry that
		 * exists (or is being resolved), never creates one; lib/neigh
		 * says what it may change. */
		memcpy(peer.ip6, nd.target, 16);
		if (nd.has_lladdr && x->r->neigh != NULL)
			dpr_neigh_seen(x->r->neigh, in, &peer, &nd.lladdr,
				       &(struct dpr_neigh_heard){
					       .msg = DPR_NEIGH_ADVERT, .solicited = nd.solicited,
					       .override = nd.override });
		else if (nd.solicited && x->r->neigh != NULL)
			dpr_neigh_confirmed(x->r->neigh, in, &peer);
		/* Maybe an answer to the kernel's own solicitation: it
		 * learns too. */
		goto kernel;
	case DPR_ICMP6_ROUTER_SOLICIT:
		x->c6.rs_in++;
		memcpy(peer.ip6, nd.src, 16);
		if (nd.has_lladdr && x->r->neigh != NULL)
			dpr_neigh_seen(x->r->neigh, in, &peer, &nd.lladdr,
				       &(struct dpr_neigh_heard){ .msg = DPR_NEIGH_REQUEST });
		if (transparent)
			goto kernel; /* the host's router daemon answers, if any */
		if (x->r->cfg->ports[in].ra.enabled)
			ra_solicited(x, in);
		break;
	case DPR_ICMP6_ROUTER_ADVERT:
		/* Another router's: a router does not configure itself from
		 * them (RFC 4861 6.2.7 only asks to check consistency). On
		 * a transparent port everything for the router is the
		 * kernel's to judge, these too. */
		x->c6.ra_in++;
		if (transparent)
			goto kernel;
		break;
	case DPR_ICMP6_REDIRECT:
	default:
		/* Routers ignore redirects (RFC 4861 8.1: hosts act on them). */
		x->c6.redirect_in++;
		if (transparent)
			goto kernel;
		break;
	}
	rte_pktmbuf_free(m);
	return;
kernel:
	if (dpr_tap_to_kernel(x->r, in, m) < 0) {
		x->c6.local_unhandled++;
		rte_pktmbuf_free(m);
	}
}

/* --- router advertisements ------------------------------------------------------ */

/* What port @p port advertises (struct dpr_ra_conf_port, made concrete). */
static void
ra_conf(const struct dpr_exc_engine *x, uint16_t port, struct dpr_ra_conf *ra)
{
	const struct dpr_port_conf *pc = &x->r->cfg->ports[port];
	const struct dpr_ra_conf_port *c = &pc->ra;
	const struct dpr_prefix *addrs;
	unsigned int k, n;

	memset(ra, 0, sizeof(*ra));
	ra->cur_hop_limit = c->cur_hop_limit;
	ra->managed = c->managed;
	ra->other = c->other;
	ra->router_lifetime = c->router_lifetime;
	ra->reachable_time = c->reachable_time;
	ra->retrans_timer = c->retrans_timer;
	ra->mtu = c->send_mtu ? x->r->port_dp[port].mtu : 0;
	if (c->n_prefixes > 0) {
		for (k = 0; k < c->n_prefixes && k < DPR_RA_PREFIXES_MAX; k++) {
			const struct dpr_ra_prefix_conf *p = &c->prefixes[k];
			struct dpr_ra_prefix *o = &ra->prefixes[ra->n_prefixes++];

			memcpy(o->prefix, p->prefix.addr.ip6, 16);
			o->len = p->prefix.len;
			o->on_link = p->on_link;
			o->autonomous = p->autonomous;
			o->valid_lifetime = p->valid_lifetime;
			o->preferred_lifetime = p->preferred_lifetime;
		}
		return;
	}
	/* The port's own subnets: on-link, and autonomous where hosts can
	 * form an address in them (a /64, RFC 4862 5.5.3 with RFC 4291's
	 * 64-bit interface identifiers). */
	addrs = dpr_ifaddr_list(&x->r->addrs, port, &n);
	for (k = 0; k < n && ra->n_prefixes < DPR_RA_PREFIXES_MAX; k++) {
		const struct dpr_prefix *a = &addrs[k];
		struct dpr_ra_prefix *o;
		struct dpr_prefix net;

		if (a->addr.af != DPR_AF_IP6 || dpr_ip6_is_link_local(a->addr.ip6) || a->len > 64)
			continue;
		net = *a;
		dpr_prefix_mask(&net);
		o = &ra->prefixes[ra->n_prefixes++];
		memcpy(o->prefix, net.addr.ip6, 16);
		o->len = net.len;
		o->on_link = true;
		o->autonomous = net.len == 64;
		o->valid_lifetime = DEFAULT_VALID_LIFETIME;
		o->preferred_lifetime = DEFAULT_PREFERRED_LIFETIME;
	}
}

/* An advertisement from @p port's link-local address to all nodes; a
 * @p final one with Router Lifetime 0 (RFC 4861 6.2.5). */
static void
send_ra(struct dpr_exc_engine *x, uint16_t port, bool final)
{
	struct dpr_ra_conf ra;
	uint8_t src[16];
	struct rte_mbuf *m;

	ra_conf(x, port, &ra);
	if (final)
		ra.router_lifetime = 0;
	link_local(x, port, src);
	x->ra[port].last_mcast = dpr_clock_now();
	m = dpr_ndp_ra_build(dpr_exc_pool(x, port), &x->r->ports[port].mac, src, all_nodes,
			     NULL, &ra);
	if (m == NULL) {
		x->c.no_mbuf++;
		return;
	}
	x->c6.ra_sent++;
	dpr_exc_tx_own(x, port, m);
}

/*
 * A router solicitation on @p port: RFC 4861 6.2.6 wants the answer delayed
 * by a random 0 to MAX_RA_DELAY_TIME (0.5 s), and multicast ones at most
 * every MIN_DELAY_BETWEEN_RAS (3 s); it goes to all nodes, where the
 * soliciting host and any other that asked meanwhile hear it. Brought
 * forward if the next unsolicited one is later; the interval restarts
 * after it.
 */
static void
ra_solicited(struct dpr_exc_engine *x, uint16_t port)
{
	struct ra_state *s = &x->ra[port];
	uint64_t now = dpr_clock_now();
	uint64_t at = now + rte_rand() % (x->hz * MAX_RA_DELAY_TIME_MS / 1000 + 1);
	uint64_t earliest = s->last_mcast + x->hz * MIN_DELAY_BETWEEN_RAS_MS / 1000;

	if (s->last_mcast != 0 && at < earliest)
		at = earliest;
	if (s->next == 0 || at < s->next)
		s->next = at;
}

/* Seconds to the next unsolicited advertisement (RFC 4861 6.2.4). */
static uint64_t
ra_delay_ms(struct dpr_exc_engine *x, uint16_t port)
{
	const struct dpr_ra_conf_port *c = &x->r->cfg->ports[port].ra;
	uint64_t lo = (uint64_t)c->min_interval * 1000, hi = (uint64_t)c->max_interval * 1000;
	uint64_t d = lo + (hi > lo ? rte_rand() % (hi - lo) : 0);

	if (x->ra[port].initial < MAX_INITIAL_RTR_ADVERTISEMENTS)
		d = RTE_MIN(d, (uint64_t)MAX_INITIAL_RTR_ADVERT_INTERVAL * 1000);
	return d;
}

void
dpr_exc6_timers(struct dpr_exc_engine *x)
{
	uint64_t now = dpr_clock_now();
	uint16_t p;

	anycast_na_due(x, now);
	for (p = 0; p < x->r->n_ports; p++) {
		struct ra_state *s = &x->ra[p];

		if (!x->r->cfg->ports[p].ra.enabled || x->r->cfg->ports[p].transparent)
			continue;
		if (s->next == 0) {
			/* The first soon after start (6.2.4 sends the first
			 * at once; a moment lets the link come up). */
			s->next = now + x->hz / 2;
			continue;
		}
		if (now < s->next)
			continue;
		/* RFC 4861 6.2.6: multicast ones at most every 3 s (the
		 * intervals are longer; a solicited one may fall closer). */
		if (s->last_mcast != 0 &&
		    now - s->last_mcast < x->hz * MIN_DELAY_BETWEEN_RAS_MS / 1000) {
			s->next = s->last_mcast + x->hz * MIN_DELAY_BETWEEN_RAS_MS / 1000;
			continue;
		}
		send_ra(x, p, false);
		if (s->initial < MAX_INITIAL_RTR_ADVERTISEMENTS)
			s->initial++;
		s->next = now + x->hz * ra_delay_ms(x, p) / 1000;
	}
}

void
dpr_exc_ra_cease(struct dpr_exc_engine *x, unsigned int port)
{
	struct ra_state *s;

	if (port >= DPR_MAX_PORTS)
		return;
	s = &x->ra[port];
	/* RFC 4861 6.2.5: one final multicast advertisement with Router
	 * Lifetime 0 (MAX_FINAL_RTR_ADVERTISEMENTS allows up to 3), so that
	 * hosts stop using the router now rather than when the lifetime they
	 * hold runs out; only from an interface that has advertised. One: a
	 * deletion or a shutdown does not wait MIN_DELAY_BETWEEN_RAS for more. */
	RTE_BUILD_BUG_ON(MAX_FINAL_RTR_ADVERTISEMENTS < 1);
	if (dpr_exc_port_ok(x, port) && x->r->cfg->ports[port].ra.enabled &&
	    !x->r->cfg->ports[port].transparent && s->last_mcast != 0)
		send_ra(x, (uint16_t)port, true);
	/* A slot vlan.add fills again starts over (6.2.4's initial ones). */
	memset(s, 0, sizeof(*s));
}

/* --- sending the router's own packets ---------------------------------------------- */

static uint32_t
hash6(const uint8_t *a)
{
	uint32_t w[4];

	/* Copied: an address in a frame is only 2-byte aligned. */
	memcpy(w, a, sizeof(w));
	return rte_jhash_32b(w, 4, 0x6);
}

/*
 * Where a packet to @p dst leaves: port, next hop and the router's address
 * there, in the VRF of port @p in. A link-local @p dst is on the link of
 * @p in only.
 * @return the output port, or -1 when @p dst has no route out.
 */
static int
egress6(struct dpr_exc_engine *x, const uint8_t *dst, uint16_t in, uint32_t *nh, uint8_t src[16])
{
	const struct dpr_nh_info *info;
	union dpr_nh_word w;

	if (!dpr_exc_port_ok(x, in))
		return -1;
	if (dpr_ip6_is_link_local(dst)) {
		*nh = DPR_NH_NONE;
		source_for(x, in, dst, src);
		return in;
	}
	/* A multipath route: one member per destination, as IPv4's egress(). */
	*nh = dpr_nh_pick(x->r->nh, dpr_fib6_lookup(dpr_router_port_rib(x->r, in)->fib6, dst),
			  hash6(dst));
	w = dpr_exc_word(x, *nh);
	info = dpr_nh_info(x->r->nh, *nh);
	if ((w.kind != DPR_NH_KIND_FORWARD && w.kind != DPR_NH_KIND_UNRESOLVED) || info == NULL)
		return -1;
	source_for(x, w.port, dst, src);
	return w.port;
}

/*
 * Send @p m, an IPv6 packet the router made, to @p dst: through next hop
 * @p nh (held while it is resolved, as IPv4's send_own()), or, for a
 * link-local @p dst (nh DPR_NH_NONE), straight to @p dmac on @p out.
 */
static void
send_own6(struct dpr_exc_engine *x, struct rte_mbuf *m, const uint8_t *dst, uint32_t nh,
	  uint16_t out, const struct rte_ether_addr *dmac)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	union dpr_nh_word w = dpr_exc_word(x, nh);
	struct dpr_ip d = { .af = DPR_AF_IP6 };

	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	if (nh == DPR_NH_NONE) {
		eth->dst_addr = *dmac;
		eth->src_addr = x->r->ports[out].mac;
		dpr_exc_tx_own(x, out, m);
		return;
	}
	if (w.kind == DPR_NH_KIND_FORWARD) {
		eth->dst_addr = w.mac;
		eth->src_addr = x->r->ports[w.port].mac;
		dpr_exc_tx_own(x, w.port, m);
		return;
	}
	memcpy(d.ip6, dst, 16);
	m->hash.usr = DPR_EXC_META(OWN_PACKET, w.port);
	if (w.kind == DPR_NH_KIND_UNRESOLVED && x->r->neigh != NULL &&
	    dpr_neigh_hold(x->r->neigh, m, nh, &d))
		return;
	x->c6.unroutable++;
	rte_pktmbuf_free(m);
}

static void
count_error6(struct dpr_exc_engine *x, uint8_t type, uint8_t code)
{
	switch (type) {
	case DPR_ICMP6_TIME_EXCEEDED:
		x->c6.time_exceeded++;
		break;
	case DPR_ICMP6_PACKET_TOO_BIG:
		x->c6.packet_too_big++;
		break;
	case DPR_ICMP6_PARAM_PROBLEM:
		x->c6.param_problem++;
		break;
	default:
		if (code == DPR_ICMP6_UNREACH_ADDR)
			x->c6.address_unreachable++;
		else if (code == DPR_ICMP6_UNREACH_ADMIN)
			x->c6.admin_prohibited++;
		else if (code == DPR_ICMP6_UNREACH_BEYOND_SCOPE)
			x->c6.beyond_scope++;
		else
			x->c6.no_route++;
	}
}

/*
 * Is @p ip, the destination of a packet that came in on @p in, one of the
 * router's unicast addresses (a link-local one only on its own link, RFC
 * 4007 6; anycast addresses are no unicast ones)?
 */
static bool
own_unicast(const struct dpr_exc_engine *x, uint16_t in, const uint8_t *ip)
{
	struct dpr_ip a = { .af = DPR_AF_IP6 };

	if (dpr_ip6_is_link_local(ip))
		return ours_on(x, in, ip);
	memcpy(a.ip6, ip, 16);
	return dpr_ifaddr_owner(&x->r->addrs, dpr_router_port_vrf(x->r, in), &a) >= 0;
}

/*
 * Answer @p m (consumed) with an ICMPv6 error, if RFC 4443 2.4 and the rate
 * limit (2.4 f: per source, as IPv4's) allow. From the address @p m was
 * sent to when that is one of the router's unicast ones (RFC 4443 2.2 a),
 * else from an address of the interface the error leaves by (2.2 c).
 */
static void
icmp6_error(struct dpr_exc_engine *x, struct rte_mbuf *m, uint8_t type, uint8_t code,
	    uint32_t param)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = ip6_of(m);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);
	uint8_t from[16];
	struct rte_mbuf *e;
	uint32_t nh;
	int out;

	if (DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET ||
	    !dpr_icmp6_error_allowed(m, type, code)) {
		x->c6.not_allowed++;
	} else if (!dpr_exc_port_ok(x, in)) {
		x->c6.unroutable++;
	} else if (anycast_in_vrf(x, in, ip->src_addr)) {
		/* RFC 4443 2.4 (e.6): no single node to tell. */
		x->c6.not_allowed++;
	} else if ((out = egress6(x, ip->src_addr, in, &nh, from)) < 0) {
		x->c6.unroutable++;
	} else if (!dpr_exc_rate_ok(x, hash6(ip->src_addr))) {
		x->c6.rate_limited++;
	} else {
		/* A link-local one only while the error stays on its link. */
		if (own_unicast(x, in, ip->dst_addr) &&
		    (!dpr_ip6_is_link_local(ip->dst_addr) || out == in))
			memcpy(from, ip->dst_addr, 16);
		e = dpr_icmp6_error(dpr_exc_pool(x, (uint16_t)out), m, type, code, param, from);
		if (e == NULL) {
			x->c.no_mbuf++;
		} else {
			count_error6(x, type, code);
			send_own6(x, e, ip->src_addr, nh, (uint16_t)out, &eth->src_addr);
		}
	}
	rte_pktmbuf_free(m);
}

void
dpr_exc6_admin_prohibited(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_ADMIN, 0);
}

/* --- input ------------------------------------------------------------------------ */

/* The upper-layer protocol of @p m when no extension header precedes it. */
static bool
is_icmp6(const struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								sizeof(struct rte_ether_hdr));

	return ip->proto == IPPROTO_ICMPV6 &&
		m->data_len >= sizeof(struct rte_ether_hdr) + sizeof(*ip) + 4;
}

static void
local6_input(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t in)
{
	struct rte_ipv6_hdr *ip = ip6_of(m);
	const uint8_t *icmp = (const uint8_t *)(ip + 1);

	/* The FIB holds every port's link-local address, but each is ours
	 * only on its own link (RFC 4007 6): another port's, asked for here,
	 * is someone else's address, never forwarded (RFC 4291 2.5.6). */
	if (dpr_ip6_is_link_local(ip->dst_addr) && !ours_on(x, in, ip->dst_addr)) {
		x->c6.link_local_elsewhere++;
		rte_pktmbuf_free(m);
		return;
	}
	if (is_icmp6(m)) {
		uint8_t type = icmp[0];

		if (type >= DPR_ICMP6_ROUTER_SOLICIT && type <= DPR_ICMP6_REDIRECT) {
			ndp_input(x, m, in);
			return;
		}
		if (type == DPR_ICMP6_ECHO_REQUEST && !x->r->cfg->ports[in].transparent) {
			uint8_t src[16];
			int ret;

			/* RFC 4443 2.2 (b), 4.2: to a multicast or anycast
			 * address, answered from a unicast address of the
			 * interface. */
			if (dpr_ip6_is_multicast(ip->dst_addr) || anycast_on(x, in, ip->dst_addr)) {
				source_for(x, in, ip->src_addr, src);
				ret = dpr_icmp6_echo_reply(m, src);
			} else {
				ret = dpr_icmp6_echo_reply(m, NULL);
			}
			if (ret == 0) {
				rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr =
					x->r->ports[in].mac;
				x->c6.echo_replies++;
				dpr_exc_tx_own(x, in, m);
				return;
			}
			x->c6.echo_invalid++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	/* Everything else for the router goes to the host stack (TAP). */
	if (dpr_tap_to_kernel(x->r, in, m) < 0) {
		x->c6.local_unhandled++;
		rte_pktmbuf_free(m);
	}
}

/*
 * @p m, a packet to forward through next hop @p nh (word @p w), leaves
 * through the port it came in on: send its source an ICMPv6 Redirect where
 * RFC 4861 8.2 has a router send one: the port's redirects are on
 * (ports[].redirects), the packet is a transit one, may draw an ICMPv6
 * message at all (dpr_icmp6_error_allowed(): not to a multicast
 * destination, from a source that names one node, not about an error),
 * carries no Routing header (no source route), its source is a neighbour
 * (link-local, or on a subnet of the port), and the better first hop can be
 * named: the next hop's link-local address, or the destination itself when
 * it is on the link (a global gateway's link-local address is unknown
 * here). From the port's link-local address, hop limit 255 (8.1), to the
 * source's MAC, with the target's MAC when resolved; rate-limited with
 * ICMPv6 errors. @p m itself is left to forward.
 */
static void
redirect6(struct dpr_exc_engine *x, const struct rte_mbuf *m, uint16_t in, uint32_t nh,
	  union dpr_nh_word w)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);
	const struct dpr_nh_info *info = dpr_nh_info(x->r->nh, nh);
	struct dpr_ip src = { .af = DPR_AF_IP6 };
	const uint8_t *target = NULL;
	struct rte_mbuf *e;
	uint8_t ll[16];

	if (!x->r->cfg->ports[in].redirects || DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET)
		return;
	memcpy(src.ip6, ip->src_addr, 16);
	if (info != NULL && info->ip.af == DPR_AF_IP6 &&
	    (dpr_ip6_is_link_local(info->ip.ip6) || memcmp(info->ip.ip6, ip->dst_addr, 16) == 0))
		target = info->ip.ip6;
	else if (info != NULL && info->ip.af == 0)
		target = ip->dst_addr;
	if (target == NULL || ip->proto == IPPROTO_ROUTING ||
	    memcmp(target, ip->src_addr, 16) == 0 ||
	    !dpr_icmp6_error_allowed(m, DPR_ICMP6_REDIRECT, 0) ||
	    (!dpr_ip6_is_link_local(ip->src_addr) &&
	     dpr_ifaddr_connected(&x->r->addrs, dpr_router_port_vrf(x->r, in), &src, in) != in)) {
		x->c6.redirect_not_allowed++;
		return;
	}
	if (!dpr_exc_rate_ok(x, hash6(ip->src_addr))) {
		x->c6.rate_limited++;
		return;
	}
	link_local(x, in, ll);
	e = dpr_ndp_redirect_build(dpr_exc_pool(x, in), &x->r->ports[in].mac, ll, &eth->src_addr,
				   target, ip->dst_addr,
				   w.kind == DPR_NH_KIND_FORWARD ? &w.mac : NULL, m);
	if (e == NULL) {
		x->c.no_mbuf++;
		return;
	}
	x->c6.redirect_sent++;
	dpr_exc_tx_own(x, in, e);
}

/*
 * Forward @p m from the control thread, with the workers' decision
 * (dpr_ip6_decide()): packets held for a neighbour, and those with
 * hop-by-hop options once checked. Routers never fragment IPv6 (RFC 8200 5).
 * A multipath route's member is the one the rest of its flow takes
 * (dpr_flow_hash_ctl()).
 */
static void
forward6_slow(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);
	struct dpr_ip dst = { .af = DPR_AF_IP6 };
	union dpr_nh_word w;
	uint32_t nh;

	dpr_pktmbuf_cut(m, sizeof(*eth) + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len));
	nh = dpr_nh_pick(x->r->nh, dpr_fib6_lookup(dpr_router_port_rib(x->r, in)->fib6, ip->dst_addr),
			 dpr_flow_hash_ctl(m));
	w = dpr_exc_word(x, nh);
	switch (dpr_ip6_decide(w, ip, !rte_is_unicast_ether_addr(&eth->dst_addr), x->r->port_dp)) {
	case DPR_L3_FORWARD:
		break;
	case DPR_L3_LOCAL:
		local6_input(x, m, in);
		return;
	case DPR_L3_UNRESOLVED:
		memcpy(dst.ip6, ip->dst_addr, 16);
		if (x->r->neigh == NULL)
			icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_ADDR, 0);
		else if (!dpr_neigh_hold(x->r->neigh, m, nh, &dst))
			forward6_slow(x, m); /* resolved or gone meanwhile: again */
		return;
	case DPR_L3_L2_BCAST:
		x->c6.l2_broadcast_dropped++;
		rte_pktmbuf_free(m);
		return;
	case DPR_L3_BLACKHOLE:
		x->c6.blackholed++;
		rte_pktmbuf_free(m);
		return;
	case DPR_L3_TTL_EXPIRED:
		icmp6_error(x, m, DPR_ICMP6_TIME_EXCEEDED, DPR_ICMP6_TIME_HOP_LIMIT, 0);
		return;
	case DPR_L3_TOO_BIG:
		icmp6_error(x, m, DPR_ICMP6_PACKET_TOO_BIG, 0, x->r->port_dp[w.port].mtu);
		return;
	case DPR_L3_NO_ROUTE:
	default:
		icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_NO_ROUTE, 0);
		return;
	}
	/* A link-local source stays on its link (RFC 4291 2.5.6, RFC 4007
	 * 9), as dpr_ip6_slow() has it: the route the worker found back out
	 * of it may lead elsewhere now (a packet held for a neighbour). */
	if (w.port != in && dpr_ip6_is_link_local(ip->src_addr)) {
		icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_BEYOND_SCOPE, 0);
		return;
	}
	if (w.port == in)
		redirect6(x, m, in, nh, w);
	ip->hop_limits--;
	eth->dst_addr = w.mac;
	eth->src_addr = x->r->ports[w.port].mac;
	x->c6.slow_forwarded++;
	dpr_exc_tx(x, w.port, m);
}

/* Whether transit packet @p m, held for a neighbour that did not answer,
 * has a next hop that forwards now (forwards_now() in exception.c). */
static bool
forwards6_now(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip = ip6_of(m);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);
	uint32_t nh = dpr_nh_pick(x->r->nh,
				  dpr_fib6_lookup(dpr_router_port_rib(x->r, in)->fib6, ip->dst_addr),
				  dpr_flow_hash_ctl(m));

	return dpr_exc_word(x, nh).kind == DPR_NH_KIND_FORWARD;
}

void
dpr_exc6_release(struct dpr_exc_engine *x, struct rte_mbuf *m, bool resolved)
{
	if (DPR_EXC_META_CLASS(m->hash.usr) == OWN_PACKET) {
		if (resolved) {
			const struct rte_ipv6_hdr *ip = ip6_of(m);
			uint8_t src[16];
			uint32_t nh;
			int out = egress6(x, ip->dst_addr, (uint16_t)DPR_EXC_META_PORT(m->hash.usr),
					  &nh, src);

			if (out >= 0 && nh != DPR_NH_NONE &&
			    dpr_exc_word(x, nh).kind == DPR_NH_KIND_FORWARD) {
				send_own6(x, m, ip->dst_addr, nh, (uint16_t)out, NULL);
				return;
			}
		}
		x->c6.unroutable++;
		rte_pktmbuf_free(m);
	} else if (resolved || forwards6_now(x, m)) {
		/* Or its neighbour did not answer, but a multipath route's
		 * other member did (or the route changed): as forwards_now()
		 * in exception.c. */
		forward6_slow(x, m);
	} else {
		/* RFC 4443 3.1: code 3, address unreachable. */
		icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_ADDR, 0);
	}
}

/* Hop-by-hop options, as a router must read them (RFC 8200 4.3). */
static void
hop_by_hop(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t in)
{
	uint32_t pointer = 0;
	uint8_t code = 0;

	switch (dpr_ip6_hbh_check(m, &code, &pointer)) {
	case DPR_IP6_HBH_FORWARD:
		forward6_slow(x, m);
		return;
	case DPR_IP6_HBH_LOCAL:
		local6_input(x, m, in);
		return;
	case DPR_IP6_HBH_PARAM_PROBLEM:
		icmp6_error(x, m, DPR_ICMP6_PARAM_PROBLEM, code, pointer);
		return;
	case DPR_IP6_HBH_DROP:
	default:
		x->c6.hop_by_hop_dropped++;
		rte_pktmbuf_free(m);
	}
}

/*
 * A packet an ACL rejected: answered with administratively prohibited,
 * once it passes the header and address checks the screen makes of every
 * packet (dpr_ip6_validate()), which an input ACL comes before. One that
 * fails them is discarded silently, as the screen would have discarded it.
 */
static void
acl_reject6(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	enum dpr_ip6_addr_class sc, dc;

	if (m->data_len < sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv6_hdr) ||
	    dpr_ip6_validate(ip6_of(m), m->pkt_len - (uint32_t)sizeof(struct rte_ether_hdr),
			     &sc, &dc) != DPR_DROP_NONE) {
		x->c6.not_allowed++;
		rte_pktmbuf_free(m);
		return;
	}
	dpr_exc6_admin_prohibited(x, m);
}

void
dpr_exc6_input(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t cls, uint16_t in)
{
	switch (cls) {
	case DPR_EXC_LOCAL:
		local6_input(x, m, in);
		break;
	case DPR_EXC_TTL_EXPIRED:
		icmp6_error(x, m, DPR_ICMP6_TIME_EXCEEDED, DPR_ICMP6_TIME_HOP_LIMIT, 0);
		break;
	case DPR_EXC_NO_ROUTE:
		icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_NO_ROUTE, 0);
		break;
	case DPR_EXC_BEYOND_SCOPE:
		icmp6_error(x, m, DPR_ICMP6_DEST_UNREACH, DPR_ICMP6_UNREACH_BEYOND_SCOPE, 0);
		break;
	case DPR_EXC_UNRESOLVED:
		forward6_slow(x, m);
		break;
	case DPR_EXC_MTU_EXCEEDED:
		/* The worker found it too big for the next hop's port. */
	case DPR_EXC_REDIRECT:
		forward6_slow(x, m);
		break;
	case DPR_EXC_IP_OPTIONS:
		hop_by_hop(x, m, in);
		break;
	case DPR_ACL_EXC_REJECT:
		acl_reject6(x, m);
		break;
	default:
		rte_pktmbuf_free(m);
	}
}
