/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_jhash.h>

#include "../datapath/ip4_dp.h"
#include "../route/route.h"
#include "../util/log.h"
#include "exception.h"
#include "packet.h"
#include "tap.h"

#define PENDING_MAX 256       /* neighbours being resolved at once */
#define HOLD_MAX 4            /* packets held per unresolved neighbour */
#define ARP_TRIES 3
#define ARP_RETRY_MS 1000
#define FAILED_HOLD_MS 5000   /* after failing, answer host unreachable this long */
#define REACHABLE_MS 30000    /* a learned neighbour is probed after this */
#define RL_BUCKETS 1024       /* ICMP error rate limit: per source hash bucket */
#define RL_RATE 10            /* errors per second per source */
#define RL_BURST 10

#define COUNTERS(X) \
	X(arp_requests_in) X(arp_replies_in) X(arp_invalid) X(arp_replies_sent) \
	X(arp_requests_sent) X(neighbors_learned) X(neighbors_expired) \
	X(resolve_failed) X(held) X(hold_overflow) X(held_sent) \
	X(echo_replies) X(echo_invalid) X(icmp_time_exceeded) X(icmp_net_unreachable) \
	X(icmp_host_unreachable) X(icmp_frag_needed) X(icmp_rate_limited) \
	X(icmp_not_allowed) X(icmp_unroutable) X(fragmented) X(slow_forwarded) \
	X(local_unhandled) X(tx_failed) X(no_mbuf)

struct pending {
	bool used;
	uint32_t ip;           /**< neighbour being resolved, host order */
	uint16_t port;
	uint8_t tries;
	uint64_t next;         /**< TSC of the next ARP request or of giving up */
	uint64_t failed_until; /**< nonzero: resolution failed, answer unreachable */
	uint16_t n_held;
	struct rte_mbuf *held[HOLD_MAX];
};

struct bucket {
	uint32_t src;
	uint32_t tokens;
	uint64_t last;
};

/* Control thread only. */
struct dpr_exc_engine {
	struct dpr_router *r;
	uint64_t hz;
	uint64_t next_tick;
	struct pending pending[PENDING_MAX];
	unsigned int n_pending;
	struct bucket rl[RL_BUCKETS];
	uint64_t *confirmed;   /**< per next hop: TSC of the last sign of life */
	uint8_t *probes;       /**< per next hop: unanswered probes */
	struct {
#define X(n) uint64_t n;
		COUNTERS(X)
#undef X
	} c;
};

static uint64_t
ms(const struct dpr_exc_engine *x, uint64_t n)
{
	return x->hz * n / 1000;
}

struct dpr_exc_engine *
dpr_exc_create(struct dpr_router *r)
{
	struct dpr_exc_engine *x = calloc(1, sizeof(*x));

	if (x == NULL)
		goto fail;
	x->r = r;
	x->hz = rte_get_tsc_hz();
	x->confirmed = calloc(DPR_NH_MAX, sizeof(*x->confirmed));
	x->probes = calloc(DPR_NH_MAX, sizeof(*x->probes));
	if (x->confirmed == NULL || x->probes == NULL)
		goto fail;
	return x;
fail:
	dpr_exc_free(x);
	errno = ENOMEM;
	return NULL;
}

void
dpr_exc_free(struct dpr_exc_engine *x)
{
	unsigned int i;

	if (x == NULL)
		return;
	for (i = 0; i < PENDING_MAX; i++)
		if (x->pending[i].used)
			rte_pktmbuf_free_bulk(x->pending[i].held, x->pending[i].n_held);
	free(x->confirmed);
	free(x->probes);
	free(x);
}

static struct rte_mempool *
pool(struct dpr_exc_engine *x, uint16_t port)
{
	return x->r->pools[x->r->ports[port].socket];
}

/* Send on the control thread's TX queue of @p port. */
static void
tx(struct dpr_exc_engine *x, uint16_t port, struct rte_mbuf *m)
{
	if (rte_eth_tx_burst(x->r->ports[port].port_id, (uint16_t)x->r->n_workers, &m, 1) == 1)
		return;
	x->c.tx_failed++;
	rte_pktmbuf_free(m);
}

/*
 * The router's IPv4 address on @p port whose subnet holds @p ip, else the
 * port's first, else any of the router's; 0 if it has none.
 */
static uint32_t
port_addr(struct dpr_exc_engine *x, uint16_t port, uint32_t ip)
{
	const struct dpr_port_conf *pc = &x->r->cfg->ports[port];
	uint32_t first = 0;
	unsigned int k, p;

	for (k = 0; k < pc->n_addrs; k++) {
		const struct dpr_prefix *a = &pc->addrs[k];

		if (a->addr.af != DPR_AF_IP4)
			continue;
		if (first == 0)
			first = a->addr.ip4;
		if (((a->addr.ip4 ^ ip) & dpr_ip4_mask(a->len)) == 0)
			return a->addr.ip4;
	}
	for (p = 0; first == 0 && p < x->r->cfg->n_ports; p++)
		for (k = 0; first == 0 && k < x->r->cfg->ports[p].n_addrs; k++)
			if (x->r->cfg->ports[p].addrs[k].addr.af == DPR_AF_IP4)
				first = x->r->cfg->ports[p].addrs[k].addr.ip4;
	return first;
}

static bool
is_our_address(struct dpr_exc_engine *x, uint16_t port, uint32_t ip)
{
	const struct dpr_port_conf *pc = &x->r->cfg->ports[port];
	unsigned int k;

	for (k = 0; k < pc->n_addrs; k++)
		if (pc->addrs[k].addr.af == DPR_AF_IP4 && pc->addrs[k].addr.ip4 == ip)
			return true;
	return false;
}

/* --- ICMP errors --------------------------------------------------------- */

/* Token bucket per source: RL_RATE a second, bursts of RL_BURST. */
static bool
rate_ok(struct dpr_exc_engine *x, uint32_t src)
{
	struct bucket *b = &x->rl[rte_jhash_1word(src, 0) % RL_BUCKETS];
	uint64_t now = rte_rdtsc(), add;

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

/* Look @p dst up and send @p m (an IPv4 packet from the router) there. */
static void
route_out(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t dst)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	union dpr_nh_word w;

	w = dpr_nh_word_get(x->r->nh, dpr_fib4_lookup(x->r->fib4, dst));
	if (w.kind != DPR_NH_KIND_FORWARD) {
		x->c.icmp_unroutable++;
		rte_pktmbuf_free(m);
		return;
	}
	eth->dst_addr = w.mac;
	eth->src_addr = x->r->ports[w.port].mac;
	tx(x, w.port, m);
}

/* Answer @p m (consumed) with an ICMP error, if the rules and the rate allow. */
static void
icmp_error(struct dpr_exc_engine *x, struct rte_mbuf *m, uint8_t type, uint8_t code,
	   uint32_t rest)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	struct rte_mbuf *e;

	if (!dpr_icmp4_error_allowed(m) || port_addr(x, in, src) == 0) {
		x->c.icmp_not_allowed++;
	} else if (!rate_ok(x, src)) {
		x->c.icmp_rate_limited++;
	} else {
		/* From the address the packet came in on (RFC 1812 4.3.2.4). */
		e = dpr_icmp4_error(pool(x, in), m, type, code, rest, port_addr(x, in, src));
		if (e == NULL) {
			x->c.no_mbuf++;
		} else {
			if (type == DPR_ICMP_TIME_EXCEEDED)
				x->c.icmp_time_exceeded++;
			else if (code == DPR_ICMP_UNREACH_NET)
				x->c.icmp_net_unreachable++;
			else if (code == DPR_ICMP_UNREACH_HOST)
				x->c.icmp_host_unreachable++;
			else
				x->c.icmp_frag_needed++;
			route_out(x, e, src);
		}
	}
	rte_pktmbuf_free(m);
}

/* --- neighbours ---------------------------------------------------------- */

static void
arp_request(struct dpr_exc_engine *x, uint16_t port, uint32_t ip)
{
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	struct dpr_arp a = {
		.op = RTE_ARP_OP_REQUEST,
		.sha = x->r->ports[port].mac,
		.sip = port_addr(x, port, ip),
		.tip = ip,
	};
	struct rte_mbuf *m = dpr_arp_build(pool(x, port), &a, &bcast);

	if (m == NULL) {
		x->c.no_mbuf++;
		return;
	}
	x->c.arp_requests_sent++;
	tx(x, port, m);
}

void
dpr_exc_garp(struct dpr_exc_engine *x, unsigned int port, uint32_t ip)
{
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	struct dpr_arp a = {
		.op = RTE_ARP_OP_REQUEST, .sha = x->r->ports[port].mac, .sip = ip, .tip = ip,
	};
	struct rte_mbuf *m = dpr_arp_build(pool(x, (uint16_t)port), &a, &bcast);

	if (m != NULL) {
		x->c.arp_requests_sent++;
		tx(x, (uint16_t)port, m);
	}
}

static struct pending *
pending_find(struct dpr_exc_engine *x, uint32_t ip)
{
	unsigned int i;

	for (i = 0; i < PENDING_MAX && x->n_pending > 0; i++)
		if (x->pending[i].used && x->pending[i].ip == ip)
			return &x->pending[i];
	return NULL;
}

/* Rewrite and send a packet held for a neighbour now resolved. */
static void forward_slow(struct dpr_exc_engine *x, struct rte_mbuf *m);

static void
pending_release(struct dpr_exc_engine *x, struct pending *p, bool resolved)
{
	unsigned int i;

	for (i = 0; i < p->n_held; i++) {
		if (resolved) {
			x->c.held_sent++;
			forward_slow(x, p->held[i]);
		} else {
			icmp_error(x, p->held[i], DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_HOST, 0);
		}
	}
	p->n_held = 0;
}

/*
 * @p ip on @p port has MAC @p mac (it spoke to us). Learn it: a next hop
 * with a /32 host route, or a refresh of the one there; static entries stay.
 */
static void
learn(struct dpr_exc_engine *x, uint16_t port, uint32_t ip, const struct rte_ether_addr *mac,
      bool create)
{
	struct dpr_ip a = { .af = DPR_AF_IP4, .ip4 = ip };
	const struct dpr_nh_info *info;
	struct pending *p;
	int idx;

	if (dpr_config_port_for(x->r->cfg, &a, port) < 0 ||
	    dpr_config_not_a_neighbour(x->r->cfg, &a) != NULL)
		return;
	idx = dpr_nh_find(x->r->nh, &a);
	p = pending_find(x, ip);
	if (idx < 0 && !create && p == NULL)
		return; /* RFC 826: only update what we know, unless asked */
	if (idx >= 0) {
		info = dpr_nh_info(x->r->nh, (uint32_t)idx);
		if (info->is_static)
			return;
	}
	idx = dpr_nh_get(x->r->nh, &a, (uint8_t)port);
	if (idx < 0)
		return;
	{
		union dpr_nh_word w = dpr_nh_word_get(x->r->nh, (uint32_t)idx);
		struct dpr_fib4_op op = { .ip = ip, .depth = 32, .nh = (uint32_t)idx };
		uint32_t cur;

		if (w.kind != DPR_NH_KIND_FORWARD)
			x->c.neighbors_learned++;
		if (w.kind != DPR_NH_KIND_FORWARD || !rte_is_same_ether_addr(&w.mac, mac))
			dpr_nh_resolve(x->r->nh, (uint32_t)idx, mac, false);
		x->confirmed[idx] = rte_rdtsc();
		x->probes[idx] = 0;
		/* The host route holds the reference taken above; a /32 someone
		 * configured for this host stays as it is. */
		if (dpr_fib4_get(x->r->fib4, ip, 32, &cur) == 0) {
			dpr_nh_put(x->r->nh, (uint32_t)idx);
		} else if (dpr_route4_apply(x->r->fib4, x->r->nh, &op, 1, &(int){ 0 }) != 1) {
			/* No room for the host route: the held packets would only
			 * come back here. Tell their senders instead. */
			if (p != NULL) {
				pending_release(x, p, false);
				p->used = false;
				x->n_pending--;
			}
			return;
		}
	}
	if (p != NULL) {
		/* Off the pending list first: a packet that still cannot be
		 * sent must not land in the queue being emptied. */
		p->used = false;
		x->n_pending--;
		pending_release(x, p, true);
	}
}

/* A packet whose next hop has no MAC: hold it and ask, or say it failed. */
static void
resolve(struct dpr_exc_engine *x, struct rte_mbuf *m, uint32_t nh_idx)
{
	const struct dpr_nh_info *info = dpr_nh_info(x->r->nh, nh_idx);
	union dpr_nh_word w = dpr_nh_word_get(x->r->nh, nh_idx);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								sizeof(struct rte_ether_hdr));
	uint32_t target;
	struct pending *p;
	unsigned int i;

	if (info == NULL) { /* gone meanwhile: route it again */
		forward_slow(x, m);
		return;
	}
	if (w.kind == DPR_NH_KIND_FORWARD) { /* resolved meanwhile */
		forward_slow(x, m);
		return;
	}
	/* A gateway is resolved by its address; a connected subnet by the destination's. */
	target = info->ip.af == DPR_AF_IP4 ? info->ip.ip4 : rte_be_to_cpu_32(ip->dst_addr);
	p = pending_find(x, target);
	if (p != NULL && p->failed_until != 0) {
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_HOST, 0);
		return;
	}
	if (p == NULL) {
		for (i = 0; i < PENDING_MAX && x->pending[i].used; i++)
			;
		if (i == PENDING_MAX) {
			x->c.hold_overflow++;
			rte_pktmbuf_free(m);
			return;
		}
		p = &x->pending[i];
		*p = (struct pending){ .used = true, .ip = target, .port = w.port };
		x->n_pending++;
		p->tries = 1;
		p->next = rte_rdtsc() + ms(x, ARP_RETRY_MS);
		arp_request(x, w.port, target);
	}
	if (p->n_held == HOLD_MAX) {
		/* Keep the newest: drop the oldest. */
		x->c.hold_overflow++;
		rte_pktmbuf_free(p->held[0]);
		memmove(&p->held[0], &p->held[1], (HOLD_MAX - 1) * sizeof(p->held[0]));
		p->n_held--;
	}
	x->c.held++;
	p->held[p->n_held++] = m;
}

/* --- slow-path forwarding ------------------------------------------------- */

static void local_input(struct dpr_exc_engine *x, struct rte_mbuf *m);

/* DF clear and too big: fragment (RFC 791), then send each piece. */
static void
fragment(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t out, uint16_t mtu,
	 const struct rte_ether_addr *dst)
{
	struct rte_mbuf *frags[64];
	struct rte_mempool *mp = pool(x, out);
	int n, i;

	rte_pktmbuf_adj(m, sizeof(struct rte_ether_hdr));
	n = rte_ipv4_fragment_packet(m, frags, RTE_DIM(frags), mtu, mp, mp);
	rte_pktmbuf_free(m);
	if (n < 0) {
		x->c.no_mbuf++;
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
		eth->dst_addr = *dst;
		eth->src_addr = x->r->ports[out].mac;
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		tx(x, out, frags[i]);
	}
}

/*
 * Forward @p m from the control thread: what the worker does, for packets
 * it handed over (held for resolution, IP options, MTU).
 */
static void
forward_slow(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	const struct dpr_port_dp *out;
	union dpr_nh_word w;
	uint32_t nh;

	nh = dpr_fib4_lookup(x->r->fib4, dst);
	w = dpr_nh_word_get(x->r->nh, nh);
	switch (w.kind) {
	case DPR_NH_KIND_FORWARD:
		break;
	case DPR_NH_KIND_LOCAL:
		local_input(x, m);
		return;
	case DPR_NH_KIND_UNRESOLVED:
		resolve(x, m, nh);
		return;
	case DPR_NH_KIND_BLACKHOLE:
		rte_pktmbuf_free(m);
		return;
	default:
		icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_NET, 0);
		return;
	}
	if (ip->time_to_live <= 1) {
		icmp_error(x, m, DPR_ICMP_TIME_EXCEEDED, 0, 0);
		return;
	}
	out = &x->r->port_dp[w.port];
	if (rte_be_to_cpu_16(ip->total_length) > out->mtu) {
		if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG)) {
			icmp_error(x, m, DPR_ICMP_DEST_UNREACH, DPR_ICMP_UNREACH_FRAG_NEEDED, out->mtu);
			return;
		}
		dpr_ip4_ttl_dec(ip);
		fragment(x, m, w.port, out->mtu, &w.mac);
		return;
	}
	dpr_ip4_ttl_dec(ip);
	eth->dst_addr = w.mac;
	eth->src_addr = out->mac;
	x->c.slow_forwarded++;
	tx(x, w.port, m);
}

/* --- input ------------------------------------------------------------------ */

static void
arp_input(struct dpr_exc_engine *x, struct rte_mbuf *m, uint16_t in)
{
	struct dpr_arp a, reply;
	struct rte_mbuf *r;

	if (dpr_arp_parse(m, &a) < 0) {
		x->c.arp_invalid++;
		rte_pktmbuf_free(m);
		return;
	}
	if (a.op == RTE_ARP_OP_REQUEST)
		x->c.arp_requests_in++;
	else
		x->c.arp_replies_in++;
	/* Learn from whoever asks us or answers us (RFC 826); refresh others. */
	learn(x, in, a.sip, &a.sha, is_our_address(x, in, a.tip));
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
		r = dpr_arp_build(pool(x, in), &reply, &a.sha);
		if (r == NULL) {
			x->c.no_mbuf++;
		} else {
			x->c.arp_replies_sent++;
			tx(x, in, r);
		}
	}
	rte_pktmbuf_free(m);
}

static void
local_input(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);

	if (ip->next_proto_id == IPPROTO_ICMP && rte_is_unicast_ether_addr(&eth->dst_addr) &&
	    !x->r->cfg->ports[in].transparent) {
		uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);

		if (dpr_fib4_lookup(x->r->fib4, dst) == DPR_NH_LOCAL && (dst >> 28) < 0xe) {
			if (dpr_icmp4_echo_reply(m) == 0) {
				x->c.echo_replies++;
				tx(x, in, m);
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

void
dpr_exc_input(struct dpr_exc_engine *x, struct rte_mbuf *m)
{
	uint32_t cls = DPR_EXC_META_CLASS(m->hash.usr);
	uint16_t in = (uint16_t)DPR_EXC_META_PORT(m->hash.usr);

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
		forward_slow(x, m);
		break;
	default:
		rte_pktmbuf_free(m);
	}
}

/* --- timers ------------------------------------------------------------------ */

static void
forget(struct dpr_exc_engine *x, uint32_t idx)
{
	const struct dpr_nh_info *info = dpr_nh_info(x->r->nh, idx);
	struct dpr_fib4_op op = { .depth = 32, .del = 1 };
	uint32_t cur;

	op.ip = info->ip.ip4;
	dpr_nh_unresolve(x->r->nh, idx);
	x->c.neighbors_expired++;
	if (dpr_fib4_get(x->r->fib4, op.ip, 32, &cur) == 0 && cur == idx)
		dpr_route4_apply(x->r->fib4, x->r->nh, &op, 1, &(int){ 0 });
}

void
dpr_exc_timers(struct dpr_exc_engine *x)
{
	uint64_t now = rte_rdtsc();
	unsigned int i;
	uint32_t n;

	if (now < x->next_tick)
		return;
	x->next_tick = now + ms(x, 100);

	for (i = 0; i < PENDING_MAX && x->n_pending > 0; i++) {
		struct pending *p = &x->pending[i];

		if (!p->used || now < p->next)
			continue;
		if (p->failed_until != 0) {
			p->used = false;
			x->n_pending--;
		} else if (p->tries < ARP_TRIES) {
			p->tries++;
			p->next = now + ms(x, ARP_RETRY_MS);
			arp_request(x, p->port, p->ip);
		} else {
			/* No answer: tell the senders (RFC 1812 4.3.3.1, host unreachable). */
			x->c.resolve_failed++;
			pending_release(x, p, false);
			p->failed_until = now + ms(x, FAILED_HOLD_MS);
			p->next = p->failed_until;
		}
	}

	/* Learned neighbours: probe when stale, forget when silent. */
	for (n = DPR_NH_FIRST_DYNAMIC; n < DPR_NH_MAX; n++) {
		const struct dpr_nh_info *info;
		union dpr_nh_word w;

		if (x->confirmed[n] == 0)
			continue;
		info = dpr_nh_info(x->r->nh, n);
		w = dpr_nh_word_get(x->r->nh, n);
		if (info == NULL || info->is_static || w.kind != DPR_NH_KIND_FORWARD) {
			x->confirmed[n] = 0;
			continue;
		}
		if (now - x->confirmed[n] < ms(x, REACHABLE_MS + (uint64_t)x->probes[n] * ARP_RETRY_MS))
			continue;
		if (x->probes[n] < ARP_TRIES) {
			x->probes[n]++;
			arp_request(x, w.port, info->ip.ip4);
		} else {
			x->confirmed[n] = 0;
			forget(x, n);
		}
	}
}

json_t *
dpr_exc_stats_json(const struct dpr_exc_engine *x)
{
	json_t *o = json_object();

#define X(n) json_object_set_new(o, #n, json_integer((json_int_t)x->c.n));
	COUNTERS(X)
#undef X
	json_object_set_new(o, "resolving", json_integer(x->n_pending));
	return o;
}
