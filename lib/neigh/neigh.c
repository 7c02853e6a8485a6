/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_jhash.h>

#include "../route/route.h"
#include "../router/router.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "neigh.h"

#define PENDING_MAX 512       /* addresses being resolved at once */
#define BUDGET_DEFAULT 64     /* ordinary ones per interface and family (dpr_neigh_set_budget()) */
#define FORMER_MAX 4096       /* addresses that were neighbours, remembered (a power of 2) */
#define HOLD_MAX 4            /* packets held per address */
#define SOLICIT_TRIES 3
#define RETRY_MS 1000
#define FAILED_HOLD_MS 5000   /* after failing, answer host unreachable this long */
#define REACHABLE_MS 30000    /* a learned neighbour is probed after this */
#define LOCK_MS 1000          /* a MAC replaced is not replaced again before this (Linux's locktime) */

#define COUNTERS(X) \
	X(neighbors_learned) X(neighbors_expired) X(neighbors_evicted) X(learn_refused) \
	X(resolve_failed) X(unreachable) X(held) X(hold_overflow) X(held_sent) \
	X(neighbor_mac_changed) X(neighbor_mac_change_locked) X(neighbor_stale_probed) \
	X(neighbor_ignored) X(resolve_refused_budget) X(resolve_refused_full) \
	X(resolve_preempted) X(resolve_priority) X(held_iface_deleted) X(host_route_yielded)

/* An address being resolved and the packets waiting for it. */
struct pending {
	bool used;
	/* A gateway of a route, an address with a next hop of its own, or one
	 * that was a neighbour before: outside the interface's budget, and may
	 * take an ordinary entry's place when all are used (RFC 6583 7.1). */
	bool priority;
	struct dpr_ip ip;      /**< in VRF vrf; a link-local one on port alone */
	uint16_t vrf;          /**< port's when it started (ports keep theirs) */
	uint16_t port;
	uint8_t tries;
	uint64_t next;         /**< dpr_clock_now() of the next solicitation or of giving up */
	uint64_t failed_until; /**< nonzero: resolution failed, answer unreachable */
	uint16_t n_held;
	struct rte_mbuf *held[HOLD_MAX];
	/* Answered, not yet published (dpr_neigh_set_ordered_release()): */
	bool answered;
	uint64_t answered_at;  /**< dpr_clock_now() of the answer */
	uint8_t mac_port;
	uint32_t idx;
	struct rte_ether_addr mac;
};

/* An address that was a neighbour: in its VRF, and a link-local one on
 * its port alone (as a pending entry's). */
struct former {
	struct dpr_ip ip;
	uint16_t vrf;
	uint16_t port;
};

/* Control thread only. */
struct dpr_neigh {
	struct dpr_router *r;
	struct dpr_neigh_ops ops;
	uint64_t hz;            /**< DPR_CLOCK_HZ: the timers tick on dpr_clock_now() */
	uint64_t next_tick;
	uint64_t next_members;  /**< dpr_clock_now() of the next resolve_members() */
	struct pending pending[PENDING_MAX];
	unsigned int n_pending;
	/* Ordinary (not priority) entries per port and family (0: IPv4, 1:
	 * IPv6), at most budget each: a scan of one subnet, which asks for
	 * addresses nobody has, fills its own budget and no other's. */
	uint16_t n_ordinary[DPR_MAX_PORTS][2];
	uint32_t budget;
	/* Addresses that were neighbours (learned or static), by hash,
	 * the newest in a slot: their resolution has priority. */
	struct former former[FORMER_MAX];
	unsigned int n_answered; /**< pending entries answered, not yet published */
	bool ordered;            /**< dpr_neigh_set_ordered_release() */
	bool in_release_via;     /**< within ops.release_via (via()) */
	/*
	 * Per next-hop index, cleared when lib/nexthop frees the index
	 * (refs_changed()). For those resolved by learning (not static):
	 */
	uint64_t *confirmed;   /**< dpr_clock_now() of the last sign of life; 0: not aging */
	uint64_t *changed;     /**< dpr_clock_now() when its MAC was last set (LOCK_MS) */
	uint8_t *probes;       /**< unanswered probes */
	bool *learned;         /**< resolved from the wire, with a host route */
	bool *counted;         /**< learned and held by nothing but that host route:
				    in the budget (n_learned) */
	bool *static_ref;      /**< a static link-local entry holds a reference */
	/* Static neighbours whose port's link went down: their MAC, and the
	 * port + 1 (0: none), to resolve them again when it comes back. */
	struct rte_ether_addr *parked_mac;
	uint8_t *parked_port;
	uint32_t n_learned;    /**< counted entries */
	uint32_t max_learned;
	struct {
#define X(n) uint64_t n;
		COUNTERS(X)
#undef X
	} c;
};

/* Index of @p ip's family in per-family tables: 0 IPv4, 1 IPv6. */
static unsigned int
fam(const struct dpr_ip *ip)
{
	return ip->af == DPR_AF_IP6;
}

static uint64_t
ms(const struct dpr_neigh *n, uint64_t v)
{
	return n->hz * v / 1000;
}

static void
no_solicit(void *ctx, uint16_t port, const struct dpr_ip *target,
	   const struct rte_ether_addr *unicast)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(port);
	RTE_SET_USED(target);
	RTE_SET_USED(unicast);
}

static void
just_free(void *ctx, struct rte_mbuf *m, bool resolved)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(resolved);
	rte_pktmbuf_free(m);
}

static void
just_free_via(void *ctx, struct rte_mbuf *m, uint32_t nh, uint8_t port,
	      const struct rte_ether_addr *mac)
{
	RTE_SET_USED(nh);
	RTE_SET_USED(port);
	RTE_SET_USED(mac);
	just_free(ctx, m, true);
}

/*
 * The learned-entry budget counts the neighbours that only the wire gave
 * us: learned, and held by nothing but their host route. A host that a
 * route later uses as its gateway leaves the budget; a gateway whose last
 * route goes joins it (and can be evicted).
 */
static void
budget_update(struct dpr_neigh *n, uint32_t idx, uint32_t refcnt)
{
	bool want = n->learned[idx] && refcnt == 1;

	if (want == n->counted[idx])
		return;
	n->counted[idx] = want;
	if (want)
		n->n_learned++;
	else
		n->n_learned--;
}

static void
set_learned(struct dpr_neigh *n, uint32_t idx, bool learned)
{
	const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, idx);

	n->learned[idx] = learned;
	budget_update(n, idx, info != NULL ? info->refcnt : 0);
}

/*
 * The reference count of next hop @p idx changed (lib/nexthop calls this):
 * its place in the budget may have; and once it is freed (0) nothing kept
 * per index may outlive it, or the next next hop given that index would
 * start with a stranger's state (a parked static MAC coming back on link
 * up, a place in the budget).
 */
static void
refs_changed(void *ctx, uint32_t idx, uint32_t refcnt)
{
	struct dpr_neigh *n = ctx;
	unsigned int i;

	if (refcnt != 0) {
		budget_update(n, idx, refcnt);
		return;
	}
	/* An answer kept from workers names it: nothing to publish now. */
	for (i = 0; i < PENDING_MAX && n->n_answered > 0; i++)
		if (n->pending[i].used && n->pending[i].answered && n->pending[i].idx == idx) {
			n->pending[i].answered = false;
			n->n_answered--;
		}
	n->learned[idx] = false;
	budget_update(n, idx, 0);
	n->confirmed[idx] = 0;
	n->changed[idx] = 0;
	n->probes[idx] = 0;
	n->static_ref[idx] = false;
	memset(&n->parked_mac[idx], 0, sizeof(n->parked_mac[idx]));
	n->parked_port[idx] = 0;
}

struct dpr_neigh *
dpr_neigh_create(struct dpr_router *r, uint32_t max_learned)
{
	struct dpr_neigh *n = calloc(1, sizeof(*n));
	unsigned int i;

	if (n == NULL)
		goto fail;
	n->r = r;
	n->hz = DPR_CLOCK_HZ;
	n->max_learned = max_learned;
	n->budget = BUDGET_DEFAULT;
	n->ops = (struct dpr_neigh_ops){ .solicit = no_solicit, .release = just_free,
					 .release_via = just_free_via };
	n->confirmed = calloc(DPR_NH_MAX, sizeof(*n->confirmed));
	n->changed = calloc(DPR_NH_MAX, sizeof(*n->changed));
	n->probes = calloc(DPR_NH_MAX, sizeof(*n->probes));
	n->learned = calloc(DPR_NH_MAX, sizeof(*n->learned));
	n->counted = calloc(DPR_NH_MAX, sizeof(*n->counted));
	n->static_ref = calloc(DPR_NH_MAX, sizeof(*n->static_ref));
	n->parked_mac = calloc(DPR_NH_MAX, sizeof(*n->parked_mac));
	n->parked_port = calloc(DPR_NH_MAX, sizeof(*n->parked_port));
	if (n->confirmed == NULL || n->changed == NULL || n->probes == NULL ||
	    n->learned == NULL || n->counted == NULL || n->static_ref == NULL ||
	    n->parked_mac == NULL || n->parked_port == NULL)
		goto fail;
	dpr_nh_set_ref_hook(r->nh, refs_changed, n);
	/* Link-local static neighbours from the config have no host route:
	 * their entry holds the reference the config install took. */
	for (i = 0; i < r->cfg->n_neighs; i++) {
		const struct dpr_neigh_conf *nc = &r->cfg->neighs[i];
		int idx;

		if (!dpr_ip_is_link_local(&nc->addr))
			continue;
		idx = dpr_nh_find_port(r->nh, &nc->addr, nc->port);
		if (idx >= 0)
			n->static_ref[idx] = true;
	}
	return n;
fail:
	dpr_neigh_free(n);
	errno = ENOMEM;
	return NULL;
}

void
dpr_neigh_free(struct dpr_neigh *n)
{
	unsigned int i;

	if (n == NULL)
		return;
	dpr_nh_set_ref_hook(n->r->nh, NULL, NULL);
	for (i = 0; i < PENDING_MAX; i++)
		if (n->pending[i].used)
			rte_pktmbuf_free_bulk(n->pending[i].held, n->pending[i].n_held);
	free(n->confirmed);
	free(n->changed);
	free(n->probes);
	free(n->learned);
	free(n->counted);
	free(n->static_ref);
	free(n->parked_mac);
	free(n->parked_port);
	free(n);
}

void
dpr_neigh_set_ops(struct dpr_neigh *n, const struct dpr_neigh_ops *ops)
{
	n->ops = *ops;
}

uint32_t
dpr_neigh_learned(const struct dpr_neigh *n)
{
	return n->n_learned;
}

bool
dpr_neigh_static_get(const struct dpr_neigh *n, uint32_t idx, struct rte_ether_addr *mac,
		     uint16_t *port)
{
	const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, idx);
	union dpr_nh_word w;

	if (idx >= DPR_NH_MAX || info == NULL || info->ip.af == 0)
		return false;
	/* Unresolved while its link is down, its MAC kept aside. */
	if (n->parked_port[idx] != 0) {
		*mac = n->parked_mac[idx];
		*port = (uint16_t)(n->parked_port[idx] - 1);
		return true;
	}
	if (!info->is_static)
		return false;
	w = dpr_nh_word_get(n->r->nh, idx);
	*mac = w.mac;
	*port = w.port;
	return true;
}

unsigned int
dpr_neigh_refs_held(const struct dpr_neigh *n, uint32_t idx)
{
	return idx < DPR_NH_MAX && n->static_ref[idx] ? 1 : 0;
}

int
dpr_neigh_check(const struct dpr_neigh *n, char *err, size_t len)
{
	static const struct rte_ether_addr zero;
	uint32_t idx, counted = 0, end = dpr_nh_index_end(n->r->nh);
	const char *bad;

	/* Past the end no index was ever handed out, nor written here. */
	for (idx = 0; idx < end; idx++) {
		const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, idx);

		counted += n->counted[idx];
		if (info != NULL) {
			if (n->counted[idx] != (n->learned[idx] && info->refcnt == 1)) {
				snprintf(err, len, "next hop %u (learned %d, %u references) is %s the budget",
					 idx, n->learned[idx], info->refcnt,
					 n->counted[idx] ? "in" : "not in");
				return -EINVAL;
			}
			continue;
		}
		bad = n->learned[idx] ? "learned" :
		      n->counted[idx] ? "counted" :
		      n->confirmed[idx] != 0 ? "confirmed" :
		      n->changed[idx] != 0 ? "changed" :
		      n->probes[idx] != 0 ? "probes" :
		      n->static_ref[idx] ? "static_ref" :
		      !rte_is_same_ether_addr(&n->parked_mac[idx], &zero) ? "parked_mac" :
		      n->parked_port[idx] != 0 ? "parked_port" : NULL;
		if (bad != NULL) {
			snprintf(err, len, "next hop %u is free but its %s entry is set", idx, bad);
			return -EINVAL;
		}
	}
	if (counted != n->n_learned) {
		snprintf(err, len, "n_learned is %u but %u entries are counted", n->n_learned,
			 counted);
		return -EINVAL;
	}
	for (idx = 0, counted = 0; idx < PENDING_MAX; idx++) {
		const struct pending *p = &n->pending[idx];
		const struct dpr_nh_info *info;

		if (!p->used || !p->answered)
			continue;
		counted++;
		info = dpr_nh_info(n->r->nh, p->idx);
		if (info == NULL || !dpr_ip_equal(&info->ip, &p->ip)) {
			snprintf(err, len, "pending entry %u is answered for next hop %u, %s", idx,
				 p->idx, info == NULL ? "which is free" : "another address's");
			return -EINVAL;
		}
	}
	if (counted != n->n_answered) {
		snprintf(err, len, "n_answered is %u but %u pending entries are answered",
			 n->n_answered, counted);
		return -EINVAL;
	}
	/* Each interface's budget counts its ordinary entries, no more. */
	for (idx = 0; idx < DPR_MAX_PORTS * 2; idx++) {
		unsigned int i, k = 0;

		for (i = 0; i < PENDING_MAX; i++)
			k += n->pending[i].used && !n->pending[i].priority &&
			     n->pending[i].port == idx / 2 && fam(&n->pending[i].ip) == idx % 2;
		if (k != n->n_ordinary[idx / 2][idx % 2]) {
			snprintf(err, len, "port %u family %s: %u ordinary entries resolving, %u counted",
				 idx / 2, idx % 2 ? "IPv6" : "IPv4", k, n->n_ordinary[idx / 2][idx % 2]);
			return -EINVAL;
		}
	}
	return 0;
}

/* --- resolution ---------------------------------------------------------- */

/* End entry @p p (its packets gone). */
static void
pending_end(struct dpr_neigh *n, struct pending *p)
{
	p->used = false;
	n->n_pending--;
	if (!p->priority)
		n->n_ordinary[p->port][fam(&p->ip)]--;
}

/*
 * Whether @p ip, heard of on @p port, names the host that @p b, @p b_vrf,
 * @p b_port name: an address names one host in its VRF (another VRF's
 * same address is another host), a link-local one on its own link only.
 */
static bool
same_host(const struct dpr_neigh *n, const struct dpr_ip *ip, uint16_t port,
	  const struct dpr_ip *b, uint16_t b_vrf, uint16_t b_port)
{
	if (!dpr_ip_equal(ip, b))
		return false;
	if (dpr_ip_is_link_local(ip))
		return port == b_port;
	return dpr_router_port_vrf(n->r, port) == b_vrf;
}

static uint32_t
former_slot(const struct dpr_neigh *n, const struct dpr_ip *ip, uint16_t port)
{
	uint32_t scope = dpr_ip_is_link_local(ip) ? port : dpr_router_port_vrf(n->r, port);

	return (ip->af == DPR_AF_IP4 ? rte_jhash_1word(ip->ip4, scope) :
					rte_jhash(ip->ip6, 16, scope)) & (FORMER_MAX - 1);
}

/* @p ip on @p port is a neighbour now: remember it. */
static void
former_add(struct dpr_neigh *n, const struct dpr_ip *ip, uint16_t port)
{
	n->former[former_slot(n, ip, port)] = (struct former){
		.ip = *ip, .vrf = dpr_router_port_vrf(n->r, port), .port = port };
}

static bool
former_has(const struct dpr_neigh *n, const struct dpr_ip *ip, uint16_t port)
{
	const struct former *f = &n->former[former_slot(n, ip, port)];

	return same_host(n, ip, port, &f->ip, f->vrf, f->port);
}

/* The resolution of @p ip, to be asked on @p port, under way (same_host()). */
static struct pending *
pending_find(struct dpr_neigh *n, const struct dpr_ip *ip, int port)
{
	unsigned int i;

	for (i = 0; i < PENDING_MAX && n->n_pending > 0; i++)
		if (n->pending[i].used &&
		    same_host(n, ip, (uint16_t)port, &n->pending[i].ip, n->pending[i].vrf,
			      n->pending[i].port))
			return &n->pending[i];
	return NULL;
}

/*
 * Take the packets held in @p p, end the entry (unless it is to stay as a
 * failure marker: @p keep), then hand each to the release hook. The hook
 * may route a packet straight back into dpr_neigh_hold() (the FIB changed
 * while it waited), which may take a pending entry, this one included: the
 * packets are off the entry before anything runs.
 */
static void
pending_release(struct dpr_neigh *n, struct pending *p, bool resolved, bool keep)
{
	struct rte_mbuf *held[HOLD_MAX];
	uint16_t i, k = p->n_held;

	memcpy(held, p->held, k * sizeof(held[0]));
	p->n_held = 0;
	if (p->answered) {
		p->answered = false;
		n->n_answered--;
	}
	if (!keep)
		pending_end(n, p);
	for (i = 0; i < k; i++) {
		if (resolved)
			n->c.held_sent++;
		n->ops.release(n->ops.ctx, held[i], resolved);
	}
}

/*
 * An ordinary entry to give up when every entry is used, on a port and
 * family with more than @p above ordinary entries: a failure marker first,
 * else the one that has waited longest for an answer, on the port and
 * family with the most ordinary entries.
 */
static struct pending *
pending_victim(struct dpr_neigh *n, unsigned int above)
{
	struct pending *best = NULL;
	unsigned int i;

	for (i = 0; i < PENDING_MAX; i++) {
		struct pending *p = &n->pending[i];

		if (!p->used || p->priority || p->answered ||
		    n->n_ordinary[p->port][fam(&p->ip)] <= above)
			continue;
		if (p->failed_until != 0)
			return p;
		if (best == NULL ||
		    n->n_ordinary[p->port][fam(&p->ip)] > n->n_ordinary[best->port][fam(&best->ip)] ||
		    (n->n_ordinary[p->port][fam(&p->ip)] == n->n_ordinary[best->port][fam(&best->ip)] &&
		     p->next < best->next))
			best = p;
	}
	return best;
}

/*
 * Start resolving @p target on @p port: its entry, or NULL when the
 * interface's budget for its family is spent (an ordinary address) or
 * every entry is taken (RFC 6583 7.1: a scan of one subnet must not stop
 * resolution elsewhere, nor of the addresses a router needs most). When
 * every entry is taken, a priority address takes an ordinary one's place,
 * and so does an ordinary address whose interface and family have fewer
 * entries than another's by two or more: budgets summed over interfaces
 * may exceed PENDING_MAX, and scans elsewhere must not hold them all.
 */
static struct pending *
pending_start(struct dpr_neigh *n, const struct dpr_ip *target, int port, bool priority)
{
	struct pending *p;
	unsigned int i;

	if (!priority && n->n_ordinary[port][fam(target)] >= n->budget) {
		n->c.resolve_refused_budget++;
		return NULL;
	}
	for (i = 0; i < PENDING_MAX && n->pending[i].used; i++)
		;
	if (i == PENDING_MAX) {
		struct pending *v = pending_victim(n, priority ? 0 :
						   n->n_ordinary[port][fam(target)] + 1u);

		if (v == NULL) {
			n->c.resolve_refused_full++;
			return NULL;
		}
		/* Its packets are told host unreachable, as after a failure. */
		n->c.resolve_preempted++;
		pending_release(n, v, false, false);
		for (i = 0; i < PENDING_MAX && n->pending[i].used; i++)
			;
		if (i == PENDING_MAX)
			return NULL; /* the release hook took it back */
	}
	p = &n->pending[i];
	*p = (struct pending){ .used = true, .priority = priority, .ip = *target,
			       .vrf = dpr_router_port_vrf(n->r, (unsigned int)port),
			       .port = (uint16_t)port, .tries = 1,
			       .next = dpr_clock_now() + ms(n, RETRY_MS) };
	n->n_pending++;
	if (priority)
		n->c.resolve_priority++;
	else
		n->n_ordinary[port][fam(target)]++;
	n->ops.solicit(n->ops.ctx, (uint16_t)port, target, NULL);
	return p;
}

/* Packet @p m goes by next hop @p nh as if it had @p mac on dpr port
 * @p port (struct dpr_neigh_ops release_via); back here from the hook, it
 * is not handed to an answer again (dpr_neigh_hold()). */
static void
release_by(struct dpr_neigh *n, struct rte_mbuf *m, uint32_t nh, uint8_t port,
	   const struct rte_ether_addr *mac)
{
	n->in_release_via = true;
	n->ops.release_via(n->ops.ctx, m, nh, port, mac);
	n->in_release_via = false;
}

/* Packet @p m goes by the answer of @p p, not yet published. */
static void
via(struct dpr_neigh *n, const struct pending *p, struct rte_mbuf *m)
{
	n->c.held_sent++;
	release_by(n, m, p->idx, p->mac_port, &p->mac);
}

/*
 * The held packets of @p p, answered but not published: out now, in the
 * order they came, by the answer (struct dpr_neigh_ops release_via). The
 * hook may route one back into dpr_neigh_hold(): they are off the entry
 * before anything runs.
 */
static void
pending_forward(struct dpr_neigh *n, struct pending *p)
{
	struct rte_mbuf *held[HOLD_MAX];
	uint16_t i, k = p->n_held;

	memcpy(held, p->held, k * sizeof(held[0]));
	p->n_held = 0;
	for (i = 0; i < k; i++)
		via(n, p, held[i]);
}

/*
 * Publish the MAC that answered @p p to workers, and end the entry (its
 * packets have gone by pending_forward() and dpr_neigh_hold()). Unless
 * the next hop went or changed meanwhile (forgotten, made static).
 */
static void
pending_publish(struct dpr_neigh *n, struct pending *p)
{
	const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, p->idx);
	union dpr_nh_word w = dpr_nh_word_get(n->r->nh, p->idx);

	if (info != NULL && !info->is_static && dpr_ip_equal(&info->ip, &p->ip) &&
	    w.kind == DPR_NH_KIND_UNRESOLVED && n->parked_port[p->idx] == 0)
		dpr_nh_resolve(n->r->nh, p->idx, p->mac_port, &p->mac, false);
	pending_release(n, p, true, false);
}

void
dpr_neigh_set_ordered_release(struct dpr_neigh *n, bool on)
{
	n->ordered = on;
}

/* Publish the answers kept back since before @p before (UINT64_MAX: all). */
static void
publish_older(struct dpr_neigh *n, uint64_t before)
{
	unsigned int i;

	for (i = 0; i < PENDING_MAX && n->n_answered > 0; i++)
		if (n->pending[i].used && n->pending[i].answered &&
		    n->pending[i].answered_at < before)
			pending_publish(n, &n->pending[i]);
}

void
dpr_neigh_publish(struct dpr_neigh *n)
{
	publish_older(n, UINT64_MAX);
}

bool
dpr_neigh_hold(struct dpr_neigh *n, struct rte_mbuf *m, uint32_t nh, const struct dpr_ip *dst)
{
	const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, nh);
	union dpr_nh_word w = dpr_nh_word_get(n->r->nh, nh);
	struct dpr_ip target;
	struct pending *p;
	bool priority;
	int port;

	if (info == NULL || w.kind != DPR_NH_KIND_UNRESOLVED)
		return false; /* gone or resolved meanwhile */
	/* A gateway is resolved by its address; a connected subnet by the
	 * destination's. Asked where its subnet is now, not where it was. */
	target = info->ip.af != 0 ? info->ip : *dst;
	port = dpr_ip_is_link_local(&target) ? w.port :
	       dpr_ifaddr_connected(&n->r->addrs, dpr_router_port_vrf(n->r, w.port), &target, -1);
	if (port < 0 || n->r->cfg->ports[port].neighbor_learning == DPR_NEIGH_STATIC_ONLY) {
		/* On no connected subnet (an address went), or on a port
		 * that resolves nothing (static neighbours only): nobody to
		 * ask. */
		n->c.unreachable++;
		n->ops.release(n->ops.ctx, m, false);
		return true;
	}
	/* A gateway, or a host with a next hop of its own, is resolved
	 * before any address of a subnet that nobody asked for yet. */
	priority = info->ip.af != 0;
	if (info->ip.af == 0) {
		int own = dpr_nh_find_port(n->r->nh, &target, port);
		union dpr_nh_word ow = own >= 0 ? dpr_nh_word_get(n->r->nh, (uint32_t)own) :
			(union dpr_nh_word){ .u64 = 0 };

		/* For the subnet, but the host has a next hop of its own,
		 * resolved (an answer since, or it is a gateway too): it goes
		 * now, to that MAC, as if by its host route. Not routed again
		 * by the FIB: where its host route is missing (refused for
		 * room, learn_refused) that leads back here, for ever. Held
		 * for a new resolution, it would leave after the newer
		 * packets workers forward to that next hop meanwhile. */
		if (ow.kind == DPR_NH_KIND_FORWARD) {
			release_by(n, m, nh, ow.port, &ow.mac);
			return true;
		}
		priority = own >= 0 || former_has(n, &target, (uint16_t)port);
	}
	p = pending_find(n, &target, port);
	if (p != NULL && p->failed_until != 0) {
		n->ops.release(n->ops.ctx, m, false);
		return true;
	}
	if (p == NULL)
		p = pending_start(n, &target, port, priority);
	if (p == NULL) {
		n->c.hold_overflow++;
		rte_pktmbuf_free(m);
		return true;
	}
	if (p->answered && !n->in_release_via) {
		/* Answered, not yet published: it goes now, after those
		 * before it. (Back here from the hook, its route did not lead
		 * to the answered next hop: it waits for the publication.) */
		via(n, p, m);
		return true;
	}
	if (p->n_held == HOLD_MAX) {
		/* Keep the newest: drop the oldest. */
		n->c.hold_overflow++;
		rte_pktmbuf_free(p->held[0]);
		memmove(&p->held[0], &p->held[1], (HOLD_MAX - 1) * sizeof(p->held[0]));
		p->n_held--;
	}
	n->c.held++;
	p->held[p->n_held++] = m;
	return true;
}

/* --- learning ------------------------------------------------------------- */

/*
 * The host route of neighbour @p ip (/32, /128). A link-local neighbour has
 * none: its address names it only on its own link, and is never forwarded
 * to (workers drop link-local destinations that are not ours).
 */
static bool
host_prefix(const struct dpr_ip *ip, struct dpr_prefix *pf)
{
	pf->addr = *ip;
	pf->len = ip->af == DPR_AF_IP4 ? 32 : 128;
	return !dpr_ip_is_link_local(ip);
}

/* Delete the host route of next hop @p idx, if it is the one there. */
static void
host_route_del(struct dpr_neigh *n, uint32_t idx, const struct dpr_ip *ip)
{
	struct dpr_route_op op = { .del = 1 };
	uint32_t cur;

	struct dpr_rib *rib = dpr_router_rib(n->r, dpr_nh_vrf(n->r->nh, idx));

	if (rib != NULL && host_prefix(ip, &op.prefix) && dpr_route_get(rib, &op.prefix, &cur) == 0 &&
	    cur == idx)
		dpr_route_apply(rib, &op, 1, &(int){ 0 });
}

/*
 * Next hop @p idx no longer has a MAC (aged out, evicted, deleted): its host
 * route goes, routes through it wait for resolution again on @p port.
 */
static void
forget(struct dpr_neigh *n, uint32_t idx, uint8_t port)
{
	const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, idx);
	struct dpr_ip ip = info->ip;
	struct pending *p = ip.af != 0 ? pending_find(n, &ip, port) : NULL;

	/* An answer not yet published is forgotten with it. */
	if (p != NULL && p->answered) {
		p->answered = false;
		n->n_answered--;
	}

	set_learned(n, idx, false);
	n->confirmed[idx] = 0;
	n->changed[idx] = 0;
	n->probes[idx] = 0;
	/* A static entry parked on a down link is forgotten too: it must not
	 * come back with the link. */
	memset(&n->parked_mac[idx], 0, sizeof(n->parked_mac[idx]));
	n->parked_port[idx] = 0;
	dpr_nh_unresolve(n->r->nh, idx, port);
	if (ip.af != 0)
		host_route_del(n, idx, &ip);
	if (n->static_ref[idx]) {
		/* Last: the next hop may go with this reference. */
		n->static_ref[idx] = false;
		dpr_nh_put(n->r->nh, idx);
	}
}

/*
 * Room for one more learned entry: forget the learned neighbour heard from
 * longest ago that only its host route uses (not a gateway).
 */
static bool
evict_one(struct dpr_neigh *n)
{
	uint64_t oldest = UINT64_MAX;
	uint32_t i, victim = 0;

	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		if (!n->counted[i] || n->confirmed[i] >= oldest)
			continue;
		oldest = n->confirmed[i];
		victim = i;
	}
	if (victim == 0)
		return false;
	n->c.neighbors_evicted++;
	forget(n, victim, dpr_nh_word_get(n->r->nh, victim).port);
	return true;
}

bool
dpr_neigh_yield_host(void *ctx, struct dpr_rib *rib, const struct dpr_prefix *pf)
{
	struct dpr_router *r = ctx;
	struct dpr_neigh *n = r->neigh;
	const struct dpr_nh_info *info;
	struct dpr_prefix hp;
	uint32_t cur;

	if (n == NULL || dpr_route_get(rib, pf, &cur) != 0 || cur < DPR_NH_FIRST_DYNAMIC ||
	    cur >= DPR_NH_MAX || !n->learned[cur])
		return false;
	info = dpr_nh_info(r->nh, cur);
	if (info == NULL || !host_prefix(&info->ip, &hp) || hp.len != pf->len ||
	    !dpr_ip_equal(&hp.addr, &pf->addr))
		return false;
	n->c.host_route_yielded++;
	if (info->refcnt == 1) {
		/* Nothing but its host route holds it: forgotten, as an
		 * evicted one is (and not learned again while the route is
		 * there, dpr_neigh_seen()). */
		forget(n, cur, dpr_nh_word_get(r->nh, cur).port);
	} else {
		/* A gateway too: still resolved for its routes, out of the
		 * learned ones. */
		set_learned(n, cur, false);
		host_route_del(n, cur, &hp.addr);
	}
	return true;
}

/* Log a neighbour's MAC change: what an operator looks for after an attack
 * or a failover. At most once per LOCK_MS per neighbour (the lock). */
static void
log_mac_change(const struct dpr_neigh *n, uint16_t port, const struct dpr_ip *ip,
	       const struct rte_ether_addr *from, const struct rte_ether_addr *to,
	       const char *what)
{
	char a[DPR_IP6_STRLEN], f[RTE_ETHER_ADDR_FMT_SIZE], t[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(f, sizeof(f), from);
	rte_ether_format_addr(t, sizeof(t), to);
	DPR_LOG(NOTICE, main, "port %s: neighbour %s: %s claims it (was %s): %s",
		n->r->cfg->ports[port].name, dpr_ip_fmt(ip, a, sizeof(a)), t, f, what);
}

/*
 * Make learned neighbour @p idx STALE (RFC 4861 7.3.2): nothing says it is
 * reachable at the MAC it has, so it is due for its first unicast probe
 * now (dpr has no DELAY state: the probe goes at once, 7.3.3).
 */
static void
set_stale(struct dpr_neigh *n, uint32_t idx)
{
	uint64_t now = dpr_clock_now(), age = ms(n, REACHABLE_MS);

	n->confirmed[idx] = now > age ? now - age : 1;
	n->next_tick = 0;
}

/*
 * Known neighbour @p idx (resolved, learned, @p w its word) heard with
 * another MAC or port. Linux's rules by default: an ARP message or a
 * solicitation replaces the MAC, unless the last change is younger than
 * the lock time (neigh locktime: the first of several answers stands); an
 * advertisement replaces it only when it answers our own solicitation and
 * says override (RFC 4861 7.2.5), else the entry goes stale: it keeps its
 * MAC and is probed there at once (7.3.3), so that a host claiming a
 * neighbour's address does not take its traffic while the neighbour still
 * answers. RFC 4861 7.2.5 would take the new MAC of an unsolicited
 * advertisement with override set; dpr does not, on purpose
 * (docs/security.md): the old one is forgotten and the address resolved
 * afresh only when the probes go unanswered.
 */
static void
mac_change(struct dpr_neigh *n, uint32_t idx, union dpr_nh_word w, uint16_t port,
	   const struct dpr_ip *ip, const struct rte_ether_addr *mac,
	   const struct dpr_neigh_heard *h, bool asked)
{
	uint64_t now = dpr_clock_now();

	if (h->msg == DPR_NEIGH_ADVERT && !(h->solicited && h->override && asked)) {
		if (n->probes[idx] == 0) {
			n->c.neighbor_stale_probed++;
			log_mac_change(n, port, ip, &w.mac, mac,
				       "kept, probing the known MAC (RFC 4861 7.2.5)");
			set_stale(n, idx);
		}
		return;
	}
	/* The lock is ARP's and the solicitation's: an advertisement that
	 * got here answers our own probe. */
	if (h->msg != DPR_NEIGH_ADVERT && n->changed[idx] != 0 &&
	    now - n->changed[idx] < ms(n, LOCK_MS)) {
		n->c.neighbor_mac_change_locked++;
		return;
	}
	n->c.neighbor_mac_changed++;
	log_mac_change(n, port, ip, &w.mac, mac, "replaced");
	dpr_nh_resolve(n->r->nh, idx, (uint8_t)port, mac, false);
	n->changed[idx] = now;
	n->probes[idx] = 0;
	if (ip->af == DPR_AF_IP6 && h->msg != DPR_NEIGH_ADVERT) {
		/* RFC 4861 7.2.3 (6.2.6 for a router solicitation): a new
		 * address from a solicitation leaves the entry STALE, nothing
		 * said it is reachable there: due for its first probe now. */
		set_stale(n, idx);
	} else {
		n->confirmed[idx] = now;
	}
}

/*
 * Does message @p h, which carries the MAC the entry has, confirm that the
 * neighbour @p ip is reachable (its probing starts again REACHABLE_MS on)?
 * IPv6: only a solicited advertisement that answers a solicitation of ours
 * (@p asked): RFC 4861 7.2.5 sets REACHABLE on the S flag, and any other
 * message with the cached address leaves the state as it is (7.2.5, 7.2.3),
 * so that unsolicited ones, which any host on the link can send, do not
 * keep a silent neighbour from being probed and forgotten. IPv4: any ARP
 * packet (RFC 826's merge refreshes the sender's entry).
 */
static bool
confirms(const struct dpr_ip *ip, const struct dpr_neigh_heard *h, bool asked)
{
	return ip->af == DPR_AF_IP4 || (h->msg == DPR_NEIGH_ADVERT && h->solicited && asked);
}

void
dpr_neigh_seen(struct dpr_neigh *n, uint16_t port, const struct dpr_ip *ip,
	       const struct rte_ether_addr *mac, const struct dpr_neigh_heard *h)
{
	uint8_t policy = n->r->cfg->ports[port].neighbor_learning;
	struct dpr_route_op op = { .del = 0 };
	const struct dpr_nh_info *info;
	union dpr_nh_word w = { .u64 = 0 };
	bool fresh, host, asked, unsolicited, defer;
	struct pending *p;
	uint32_t cur;
	int idx;

	if (dpr_ifaddr_connected(&n->r->addrs, 0, ip, port) < 0 ||
	    dpr_ifaddr_not_a_neighbour(&n->r->addrs, dpr_router_port_vrf(n->r, port), ip, port) != NULL)
		return;
	if (policy == DPR_NEIGH_STATIC_ONLY) {
		n->c.neighbor_ignored++;
		return;
	}
	idx = dpr_nh_find_port(n->r->nh, ip, port);
	p = pending_find(n, ip, port);
	host = host_prefix(ip, &op.prefix);
	if (idx >= 0) {
		info = dpr_nh_info(n->r->nh, (uint32_t)idx);
		/* A static entry parked on a down link is still static. */
		if (info->is_static || n->parked_port[idx] != 0)
			return;
		w = dpr_nh_word_get(n->r->nh, (uint32_t)idx);
	}
	/* Did we ask: a resolution under way, or a probe of a known MAC? */
	asked = (p != NULL && p->failed_until == 0) || (idx >= 0 && n->probes[idx] > 0);
	unsolicited = (h->msg == DPR_NEIGH_REPLY && !asked) ||
		      (h->msg == DPR_NEIGH_ADVERT && !(h->solicited && asked));
	if (policy == DPR_NEIGH_IGNORE_GRATUITOUS && (h->gratuitous || unsolicited)) {
		n->c.neighbor_ignored++;
		return;
	}

	if (idx >= 0 && w.kind == DPR_NH_KIND_FORWARD) {
		if (w.port == port && rte_is_same_ether_addr(&w.mac, mac)) {
			if (confirms(ip, h, asked)) {
				n->confirmed[idx] = dpr_clock_now();
				n->probes[idx] = 0;
			}
		} else {
			mac_change(n, (uint32_t)idx, w, port, ip, mac, h, asked);
		}
		if (p != NULL && p->failed_until == 0)
			pending_release(n, p, true, false);
		return;
	}

	/* Answered, not yet published: the first answer stands (as the lock
	 * would have it once published, within a second). */
	if (p != NULL && p->answered) {
		if (p->mac_port != port || !rte_is_same_ether_addr(&p->mac, mac))
			n->c.neighbor_mac_change_locked++;
		return;
	}

	/*
	 * Unknown, or a next hop nobody has resolved yet: only a request for
	 * one of our addresses (RFC 826; RFC 4861 7.2.3) or the answer to our
	 * own request (a late one too) makes an entry. An unsolicited reply
	 * or advertisement does not (Linux's arp_accept 0): whoever sends one
	 * first would otherwise own any address the router has not asked for.
	 */
	if (!(h->msg == DPR_NEIGH_REQUEST && h->for_us) && p == NULL)
		return;
	/* A link-local neighbour matters only as a next hop some route or
	 * static entry holds already (it has no host route to hold one). */
	if (idx < 0 && !host)
		return;
	fresh = idx < 0;
	/* A /32 or /128 someone configured for this host (route.add) stays
	 * as it is, and nothing else would hold a next hop made for it now:
	 * nothing to learn; what waited goes by that route. */
	if (fresh && dpr_route_get(dpr_router_port_rib(n->r, port), &op.prefix, &cur) == 0) {
		if (p != NULL && p->failed_until == 0)
			pending_release(n, p, true, false);
		return;
	}
	/* Budget spent: a neighbour that only spoke to us is not worth a
	 * next hop; one we asked for takes the stalest (more than one when
	 * gateways whose routes went have joined the budget meanwhile). */
	while (fresh && p != NULL && n->n_learned >= n->max_learned && evict_one(n))
		;
	if (fresh && n->n_learned >= n->max_learned) {
		n->c.learn_refused++;
		if (p != NULL && p->failed_until == 0)
			pending_release(n, p, false, false);
		return;
	}
	if (host)
		idx = dpr_nh_get(n->r->nh, ip, (uint8_t)port);
	if (idx < 0) {
		n->c.learn_refused++;
		if (p != NULL && p->failed_until == 0)
			pending_release(n, p, false, false);
		return;
	}
	n->c.neighbors_learned++;
	former_add(n, ip, port);
	/* Packets wait for it: publish the MAC with their release (see
	 * dpr_neigh_set_ordered_release()). */
	defer = n->ordered && p != NULL && p->failed_until == 0 && p->n_held > 0;
	if (!defer)
		dpr_nh_resolve(n->r->nh, (uint32_t)idx, (uint8_t)port, mac, false);
	n->changed[idx] = dpr_clock_now();
	n->confirmed[idx] = n->changed[idx];
	n->probes[idx] = 0;
	/* RFC 4861 7.2.3 (6.2.6 for a router solicitation): an entry a
	 * solicitation creates, or resolves, is STALE: the solicitation says
	 * where its sender is, not that it is reachable there. So is one an
	 * advertisement resolves unless it is solicited (7.2.5: "otherwise,
	 * it is set to STALE"): only the answer to our own request makes it
	 * REACHABLE. ARP has no such states (RFC 826). */
	if (!confirms(ip, h, asked))
		set_stale(n, (uint32_t)idx);
	/* The host route holds the reference taken above; a /32 or /128
	 * someone configured for this host stays as it is (the next hop is
	 * not fresh then: others hold it). */
	op.nh = (uint32_t)idx;
	if (!host) {
		/* no reference taken, no host route */
	} else if (dpr_route_get(dpr_router_port_rib(n->r, port), &op.prefix, &cur) == 0) {
		dpr_nh_put(n->r->nh, (uint32_t)idx);
		set_learned(n, (uint32_t)idx, true);
	} else if (dpr_route_apply(dpr_router_port_rib(n->r, port), &op, 1, &(int){ 0 }) != 1) {
		/* No room for the host route: the held packets would only
		 * come back here. The reference is still ours; the next hop
		 * may go with it. */
		if (fresh)
			n->confirmed[idx] = 0;
		n->c.learn_refused++;
		if (p != NULL && p->failed_until == 0)
			pending_release(n, p, false, false);
		dpr_nh_put(n->r->nh, (uint32_t)idx);
		return;
	} else {
		set_learned(n, (uint32_t)idx, true);
	}
	if (defer) {
		if (!p->answered) {
			n->n_answered++;
			p->answered_at = dpr_clock_now();
		}
		p->answered = true;
		p->idx = (uint32_t)idx;
		p->mac_port = (uint8_t)port;
		p->mac = *mac;
		pending_forward(n, p);
	} else if (p != NULL) {
		pending_release(n, p, true, false);
	}
}

void
dpr_neigh_confirmed(struct dpr_neigh *n, uint16_t port, const struct dpr_ip *ip)
{
	int idx = dpr_nh_find_port(n->r->nh, ip, port);
	union dpr_nh_word w;

	if (idx < 0 || dpr_nh_info(n->r->nh, (uint32_t)idx)->is_static)
		return;
	w = dpr_nh_word_get(n->r->nh, (uint32_t)idx);
	/* Only an answer to a probe of ours (confirms()). */
	if (w.kind != DPR_NH_KIND_FORWARD || w.port != port || n->probes[idx] == 0)
		return;
	n->confirmed[idx] = dpr_clock_now();
	n->probes[idx] = 0;
}

/* --- static entries --------------------------------------------------------- */

int
dpr_neigh_add_static(struct dpr_neigh *n, const struct dpr_ip *ip,
		     const struct rte_ether_addr *mac, int port, char *err, size_t len)
{
	struct dpr_route_op op = { .del = 0 };
	const char *bad;
	struct pending *p;
	int want = port, idx;

	if (dpr_ip_is_link_local(ip) && want < 0) {
		snprintf(err, len, "is link-local: give its port");
		return -EINVAL;
	}
	port = dpr_ifaddr_connected(&n->r->addrs, DPR_VRF_DEFAULT, ip, want);
	if (port < 0) {
		snprintf(err, len, "not on a connected subnet%s%s", want >= 0 ? " of port " : "",
			 want >= 0 ? n->r->cfg->ports[want].name : "");
		return -EINVAL;
	}
	bad = dpr_ifaddr_not_a_neighbour(&n->r->addrs, dpr_router_port_vrf(n->r, port), ip, port);
	if (bad != NULL) {
		snprintf(err, len, "is %s", bad);
		return -EINVAL;
	}
	idx = dpr_nh_find_port(n->r->nh, ip, port);
	if (idx >= 0 && dpr_nh_info(n->r->nh, (uint32_t)idx)->is_static &&
	    dpr_nh_word_get(n->r->nh, (uint32_t)idx).port != port) {
		snprintf(err, len, "known on port %s; neigh.del it first",
			 n->r->cfg->ports[dpr_nh_word_get(n->r->nh, (uint32_t)idx).port].name);
		return -EEXIST;
	}
	idx = dpr_nh_get(n->r->nh, ip, (uint8_t)port);
	if (idx < 0) {
		snprintf(err, len, "the next-hop table is full");
		return -ENOSPC;
	}
	/* The host route first: refused, it leaves the entry as it was (a
	 * gateway's, learned or unresolved), not static with this MAC. */
	op.nh = (uint32_t)idx;
	if (host_prefix(ip, &op.prefix) &&
	    dpr_route_apply(dpr_router_port_rib(n->r, port), &op, 1, &(int){ 0 }) != 1) {
		snprintf(err, len, "no room for its host route (raise fib.%s_max_routes or fib.%s_tbl8_groups)",
			 ip->af == DPR_AF_IP4 ? "ipv4" : "ipv6", ip->af == DPR_AF_IP4 ? "ipv4" : "ipv6");
		dpr_nh_put(n->r->nh, (uint32_t)idx);
		return -ENOSPC;
	}
	/* Static now: no longer the budget's. */
	set_learned(n, (uint32_t)idx, false);
	n->confirmed[idx] = 0;
	n->changed[idx] = 0;
	n->probes[idx] = 0;
	/* This MAC, not one parked when the link went down. */
	memset(&n->parked_mac[idx], 0, sizeof(n->parked_mac[idx]));
	n->parked_port[idx] = 0;
	dpr_nh_resolve(n->r->nh, (uint32_t)idx, (uint8_t)port, mac, true);
	if (!host_prefix(ip, &op.prefix)) {
		/* Link-local: no host route; the static entry itself holds
		 * the reference taken above (one, however often added). */
		if (n->static_ref[idx])
			dpr_nh_put(n->r->nh, (uint32_t)idx);
		n->static_ref[idx] = true;
	}
	/* Whatever waited for it goes now, not host unreachable later. */
	p = pending_find(n, ip, port);
	if (p != NULL)
		pending_release(n, p, true, false);
	return idx;
}

int
dpr_neigh_del(struct dpr_neigh *n, const struct dpr_ip *ip, int port)
{
	int idx = dpr_nh_find_port(n->r->nh, ip, port);
	union dpr_nh_word w;

	if (idx < 0)
		return -ENOENT;
	w = dpr_nh_word_get(n->r->nh, (uint32_t)idx);
	/* A static entry whose link is down has no MAC in its word, but is
	 * still there (parked) to come back with the link: it can go too. */
	if (w.kind != DPR_NH_KIND_FORWARD && n->parked_port[idx] == 0)
		return -ENOENT;
	/* A global address is one entry per VRF, found whatever the port;
	 * the port named must be the one it is on ("dev p0" deleting the
	 * neighbour of p1 is not what was asked). */
	if (port >= 0 && (n->parked_port[idx] != 0 ? n->parked_port[idx] - 1 : w.port) != port)
		return -ENOENT;
	/* The host route goes; gateway routes keep the (now unresolved)
	 * next hop. */
	forget(n, (uint32_t)idx, w.port);
	return 0;
}

void
dpr_neigh_link(struct dpr_neigh *n, uint16_t port, bool up)
{
	struct dpr_nh_table *t = n->r->nh;
	unsigned int changed = 0;
	uint32_t idx;

	for (idx = DPR_NH_FIRST_DYNAMIC; idx < DPR_NH_MAX; idx++) {
		const struct dpr_nh_info *info = dpr_nh_info(t, idx);
		union dpr_nh_word w;

		if (info == NULL)
			continue;
		w = dpr_nh_word_get(t, idx);
		if (up) {
			if (n->parked_port[idx] != port + 1)
				continue;
			n->parked_port[idx] = 0;
			if (w.kind == DPR_NH_KIND_UNRESOLVED && w.port == port) {
				struct dpr_ip ip = info->ip;
				struct pending *p;

				dpr_nh_resolve(t, idx, (uint8_t)port, &n->parked_mac[idx], true);
				/* What waited for it while the link was down
				 * goes now, not host unreachable later (as
				 * after neigh.add). */
				p = pending_find(n, &ip, port);
				if (p != NULL && p->failed_until == 0)
					pending_release(n, p, true, false);
			}
			memset(&n->parked_mac[idx], 0, sizeof(n->parked_mac[idx]));
			changed++;
			continue;
		}
		if (w.kind != DPR_NH_KIND_FORWARD || w.port != port)
			continue;
		if (info->is_static) {
			n->parked_mac[idx] = w.mac;
			n->parked_port[idx] = (uint8_t)(port + 1);
		}
		/* Learned ones are resolved again on demand (and multipath
		 * members by dpr_neigh_timers()) once the link is back. */
		n->confirmed[idx] = 0;
		n->probes[idx] = 0;
		dpr_nh_unresolve(t, idx, (uint8_t)port);
		changed++;
	}
	DPR_LOG(INFO, main, "port %s: link %s: %u next hops %s", n->r->cfg->ports[port].name,
		up ? "up" : "down", changed,
		up ? "static, resolved again" : "unresolved (out of multipath spreads)");
}

/*
 * Resolutions follow their address's subnet as next hops do: one whose
 * subnet moved to another port asks there, afresh (an answer from the old
 * link, not yet published, is dropped with it; a failure there says
 * nothing of the new one); one on no connected subnet any more ends, its
 * packets told host unreachable as dpr_neigh_hold() tells them then.
 * Retries out of the old port would go unanswered, and their failure be
 * taken for the new port's. Link-local addresses stay with their port.
 */
static void
pending_follow_subnets(struct dpr_neigh *n)
{
	unsigned int i;

	for (i = 0; i < PENDING_MAX && n->n_pending > 0; i++) {
		struct pending *p = &n->pending[i];
		int port;

		if (!p->used || dpr_ip_is_link_local(&p->ip))
			continue;
		port = dpr_ifaddr_connected(&n->r->addrs, p->vrf, &p->ip, -1);
		if (port == p->port)
			continue;
		if (port < 0 || p->failed_until != 0) {
			n->c.unreachable += p->n_held;
			pending_release(n, p, false, false);
			continue;
		}
		if (p->answered) {
			p->answered = false;
			n->n_answered--;
		}
		if (!p->priority) {
			n->n_ordinary[p->port][fam(&p->ip)]--;
			n->n_ordinary[port][fam(&p->ip)]++;
		}
		p->port = (uint16_t)port;
		p->tries = 1;
		p->next = dpr_clock_now() + ms(n, RETRY_MS);
		n->ops.solicit(n->ops.ctx, p->port, &p->ip, NULL);
	}
}

void
dpr_neigh_addresses_changed(struct dpr_neigh *n)
{
	uint32_t i;

	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, i);
		union dpr_nh_word w;
		int port;

		if (info == NULL || info->ip.af == 0 || dpr_ip_is_link_local(&info->ip))
			continue;
		w = dpr_nh_word_get(n->r->nh, i);
		port = dpr_ifaddr_connected(&n->r->addrs, dpr_nh_vrf(n->r->nh, i), &info->ip, -1);
		if (port == w.port)
			continue;
		/* On no connected subnet: forgotten, host route and all, as a
		 * host forgets them with the address. Moved to another port:
		 * its MAC was the old link's; resolve it again there. */
		if (w.kind == DPR_NH_KIND_FORWARD || port < 0)
			forget(n, i, port < 0 ? w.port : (uint8_t)port);
		else
			dpr_nh_unresolve(n->r->nh, i, (uint8_t)port);
	}
	pending_follow_subnets(n);
}

void
dpr_neigh_port_closed(struct dpr_neigh *n, uint16_t port)
{
	unsigned int i;
	uint16_t k, kept;

	for (i = 0; i < PENDING_MAX && n->n_pending > 0; i++) {
		struct pending *p = &n->pending[i];

		if (!p->used)
			continue;
		for (k = 0, kept = 0; k < p->n_held; k++) {
			if (DPR_EXC_META_PORT(p->held[k]->hash.usr) == port) {
				n->c.held_iface_deleted++;
				rte_pktmbuf_free(p->held[k]);
			} else {
				p->held[kept++] = p->held[k];
			}
		}
		p->n_held = kept;
		/* What is left came in elsewhere: told host unreachable. */
		if (p->port == port)
			pending_release(n, p, false, false);
	}
}

/* --- timers ------------------------------------------------------------------ */

/*
 * Members of multipath groups that have no MAC: a group spreads flows over
 * the others (dpr_nh_group_pick_rcu()), so no packet asks for them. Ask for
 * each (every RETRY_MS: a tick) while no resolution of it is under way or
 * recently failed, so that a gateway joins the spread once it answers.
 */
static void
resolve_members(struct dpr_neigh *n)
{
	uint32_t k;

	if (dpr_nh_group_count(n->r->nh) == 0)
		return;
	for (k = DPR_NH_FIRST_DYNAMIC; k < DPR_NH_MAX; k++) {
		const struct dpr_nh_info *info = dpr_nh_info(n->r->nh, k);
		union dpr_nh_word w;
		int port;

		if (info == NULL || info->groups == 0 || info->ip.af == 0)
			continue;
		w = dpr_nh_word_get(n->r->nh, k);
		if (w.kind != DPR_NH_KIND_UNRESOLVED)
			continue;
		port = dpr_ip_is_link_local(&info->ip) ? w.port :
		       dpr_ifaddr_connected(&n->r->addrs, dpr_nh_vrf(n->r->nh, k), &info->ip, -1);
		if (port < 0 || pending_find(n, &info->ip, port) != NULL ||
		    n->r->cfg->ports[port].neighbor_learning == DPR_NEIGH_STATIC_ONLY)
			continue;
		if (pending_start(n, &info->ip, port, true) == NULL)
			return;
	}
}

/* Does an answer kept from workers (dpr_neigh_set_ordered_release()) name
 * next hop @p idx? */
static bool
answer_kept(const struct dpr_neigh *n, uint32_t idx)
{
	unsigned int i;

	for (i = 0; i < PENDING_MAX && n->n_answered > 0; i++)
		if (n->pending[i].used && n->pending[i].answered && n->pending[i].idx == idx)
			return true;
	return false;
}

void
dpr_neigh_timers(struct dpr_neigh *n)
{
	uint64_t now = dpr_clock_now();
	unsigned int i;
	uint32_t k;

	if (now < n->next_tick)
		return;
	n->next_tick = now + ms(n, 100);
	/* Rings that never run empty (overload) must not keep an answer
	 * back for ever: a tick late, it goes out. */
	if (n->n_answered > 0)
		publish_older(n, now - ms(n, 100));
	if (now >= n->next_members) {
		n->next_members = now + ms(n, RETRY_MS);
		resolve_members(n);
	}

	for (i = 0; i < PENDING_MAX && n->n_pending > 0; i++) {
		struct pending *p = &n->pending[i];

		/* An answered entry waits for its publication, not a retry. */
		if (!p->used || p->answered || now < p->next)
			continue;
		if (p->failed_until != 0) {
			pending_end(n, p);
		} else if (p->tries < SOLICIT_TRIES) {
			p->tries++;
			p->next = now + ms(n, RETRY_MS);
			n->ops.solicit(n->ops.ctx, p->port, &p->ip, NULL);
		} else {
			/* No answer: tell the senders (RFC 1812 4.3.3.1, host
			 * unreachable), and keep saying so for a while. */
			n->c.resolve_failed++;
			p->failed_until = now + ms(n, FAILED_HOLD_MS);
			p->next = p->failed_until;
			pending_release(n, p, false, true);
		}
	}

	/* Learned neighbours: probe when stale, forget when silent. */
	for (k = DPR_NH_FIRST_DYNAMIC; k < DPR_NH_MAX; k++) {
		const struct dpr_nh_info *info;
		union dpr_nh_word w;

		if (n->confirmed[k] == 0)
			continue;
		info = dpr_nh_info(n->r->nh, k);
		w = dpr_nh_word_get(n->r->nh, k);
		if (info == NULL || info->is_static || w.kind != DPR_NH_KIND_FORWARD) {
			/* An answer not yet published is not FORWARD yet
			 * either: it keeps the age it got, or once published
			 * it would never be probed nor forgotten. */
			if (info != NULL && !info->is_static && answer_kept(n, k))
				continue;
			n->confirmed[k] = 0;
			continue;
		}
		if (now - n->confirmed[k] <
		    ms(n, REACHABLE_MS + (uint64_t)n->probes[k] * RETRY_MS))
			continue;
		if (n->probes[k] < SOLICIT_TRIES) {
			/* Unicast, to the MAC we have: is it still there?
			 * (RFC 4861 7.3.3 PROBE; RFC 1122 2.3.2.1, as Linux's
			 * ucast_solicit.) Whoever else has the address does not
			 * hear it, and cannot answer in its place. */
			n->probes[k]++;
			n->ops.solicit(n->ops.ctx, w.port, &info->ip, &w.mac);
		} else {
			n->c.neighbors_expired++;
			forget(n, k, w.port);
		}
	}
}

void
dpr_neigh_stats_json(const struct dpr_neigh *n, json_t *o)
{
#define X(k) json_object_set_new(o, #k, json_integer((json_int_t)n->c.k));
	COUNTERS(X)
#undef X
	json_object_set_new(o, "resolving", json_integer(n->n_pending));
	json_object_set_new(o, "resolving_per_interface", json_integer(n->budget));
	json_object_set_new(o, "learned", json_integer(n->n_learned));
	json_object_set_new(o, "learned_max", json_integer(n->max_learned));
}

void
dpr_neigh_set_budget(struct dpr_neigh *n, uint32_t per_interface)
{
	n->budget = per_interface;
}

json_t *
dpr_neigh_resolving_json(const struct dpr_neigh *n, const char *const *port_names,
			 unsigned int n_ports)
{
	json_t *o = json_object();
	unsigned int p;

	for (p = 0; p < n_ports && p < DPR_MAX_PORTS; p++)
		json_object_set_new(o, port_names[p], json_pack("{s:i,s:i}",
			"ipv4", (int)n->n_ordinary[p][0], "ipv6", (int)n->n_ordinary[p][1]));
	return o;
}
