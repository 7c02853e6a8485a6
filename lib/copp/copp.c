/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "../datapath/datapath.h"
#include "../neigh/neigh.h"
#include "../nexthop/nexthop.h"
#include "../router/router.h"
#include "../util/clock.h"
#include "copp.h"
#include "copp_dp.h"

_Static_assert(DPR_MAX_PORTS <= DPR_COPP_PORTS, "a bucket per port");
_Static_assert(DPR_COPP_MAX <= 15, "the class + 1 fits hash.usr's top 4 bits");

#define PEER_WORDS (DPR_COPP_PEER_BITS / 64)
#define SYNC_MS 1000

const char *const dpr_copp_class_names[DPR_COPP_MAX] = {
	[DPR_COPP_ARP_ND] = "arp_nd",
	[DPR_COPP_ICMP] = "icmp",
	[DPR_COPP_ROUTING] = "routing",
	[DPR_COPP_LOCAL] = "local",
	[DPR_COPP_TRANSIT] = "transit",
	[DPR_COPP_RESOLVE] = "resolve",
};

/*
 * The defaults. A Python sender on the test machines makes 20-50k packets
 * a second, a real attacker millions; the control thread answers some
 * hundreds of thousands. Per port: ARP/NDP and ICMP at what a busy LAN
 * and pings need, routing at what a full BGP table's TCP session over the
 * TAP takes, the rest and transit errors below; shares add up to 100 %, so
 * that every class always has its own room in the ring.
 */
static const struct dpr_copp_class_conf defaults[DPR_COPP_MAX] = {
	[DPR_COPP_ARP_ND] = { .rate = 10000, .burst = 1000, .share = 20 },
	[DPR_COPP_ICMP] = { .rate = 5000, .burst = 500, .share = 10 },
	[DPR_COPP_ROUTING] = { .rate = 100000, .burst = 5000, .share = 30 },
	[DPR_COPP_LOCAL] = { .rate = 20000, .burst = 2000, .share = 15 },
	[DPR_COPP_TRANSIT] = { .rate = 10000, .burst = 1000, .share = 10 },
	[DPR_COPP_RESOLVE] = { .rate = 5000, .burst = 500, .share = 15 },
};

#define RESOLVE_PER_INTERFACE 64

/* Control thread only, but for the filter that workers read. */
struct dpr_copp {
	struct dpr_copp_conf conf;
	uint64_t *bits;                /**< the filter workers read (atomic stores) */
	uint64_t next[PEER_WORDS];     /**< the filter being built */
	uint64_t next_sync;            /**< dpr_clock_now() of the next sync */
	uint32_t n_peers;              /**< addresses in the filter at the last sync */
};

void
dpr_copp_conf_defaults(struct dpr_copp_conf *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->cls, defaults, sizeof(defaults));
	c->resolve_per_interface = RESOLVE_PER_INTERFACE;
}

static int
get_u32(json_t *o, const char *key, const char *path, uint32_t min, uint32_t max, uint32_t *out,
	char *err, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
		snprintf(err, len, "%s.%s: expected an integer from %" PRIu32 " to %" PRIu32, path,
			 key, min, max);
		return -EINVAL;
	}
	*out = (uint32_t)json_integer_value(v);
	return 0;
}

static int
unknown_key(json_t *o, const char *const *known, const char *path, char *err, size_t len)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		char list[256] = "";
		size_t n = 0;
		bool ok = false;
		unsigned int i;

		for (i = 0; known[i] != NULL; i++) {
			ok |= strcmp(key, known[i]) == 0;
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
					      "%s%s", i ? ", " : "", known[i]);
		}
		if (!ok) {
			snprintf(err, len, "%s: unknown key \"%s\" (expected one of: %s)", path, key,
				 list);
			return -EINVAL;
		}
	}
	return 0;
}

int
dpr_copp_conf_parse(json_t *o, struct dpr_copp_conf *c, char *err, size_t len)
{
	static const char *const keys[] = { "classes", "peers", "resolving_per_interface", NULL };
	static const char *const class_keys[] = { "rate", "burst", "ring_share", NULL };
	json_t *classes, *peers, *v;
	unsigned int i, total = 0;
	size_t k;
	int ret;

	if (!json_is_object(o)) {
		snprintf(err, len, "control_plane: expected an object like {\"classes\": {\"icmp\": {\"rate\": 1000}}}");
		return -EINVAL;
	}
	if ((ret = unknown_key(o, keys, "control_plane", err, len)) < 0)
		return ret;
	classes = json_object_get(o, "classes");
	if (classes != NULL) {
		const char *name;

		if (!json_is_object(classes)) {
			snprintf(err, len, "control_plane.classes: expected an object of classes (%s, %s, %s, %s, %s, %s)",
				 dpr_copp_class_names[0], dpr_copp_class_names[1],
				 dpr_copp_class_names[2], dpr_copp_class_names[3],
				 dpr_copp_class_names[4], dpr_copp_class_names[5]);
			return -EINVAL;
		}
		json_object_foreach(classes, name, v) {
			char path[96];

			for (i = 0; i < DPR_COPP_MAX; i++)
				if (strcmp(name, dpr_copp_class_names[i]) == 0)
					break;
			if (i == DPR_COPP_MAX) {
				snprintf(err, len, "control_plane.classes: unknown class \"%s\" (expected one of: arp_nd, icmp, routing, local, transit, resolve)",
					 name);
				return -EINVAL;
			}
			snprintf(path, sizeof(path), "control_plane.classes.%s", name);
			if (!json_is_object(v)) {
				snprintf(err, len, "%s: expected an object like {\"rate\": 1000, \"burst\": 100, \"ring_share\": 10}",
					 path);
				return -EINVAL;
			}
			if ((ret = unknown_key(v, class_keys, path, err, len)) < 0 ||
			    (ret = get_u32(v, "rate", path, 1, 10000000, &c->cls[i].rate, err, len)) < 0 ||
			    (ret = get_u32(v, "burst", path, 1, 1000000, &c->cls[i].burst, err,
					   len)) < 0 ||
			    (ret = get_u32(v, "ring_share", path, 1, 100, &c->cls[i].share, err,
					   len)) < 0)
				return ret;
		}
	}
	for (i = 0; i < DPR_COPP_MAX; i++)
		total += c->cls[i].share;
	if (total > 100) {
		snprintf(err, len, "control_plane.classes: ring shares add up to %u %% (defaults: arp_nd 20, icmp 10, routing 30, local 15, transit 10, resolve 15): at most 100, so that each class always finds its own share free",
			 total);
		return -EINVAL;
	}
	peers = json_object_get(o, "peers");
	if (peers != NULL) {
		if (!json_is_array(peers) || json_array_size(peers) > DPR_COPP_MAX_PEERS) {
			snprintf(err, len, "control_plane.peers: expected an array of at most %u IPv4 or IPv6 addresses",
				 DPR_COPP_MAX_PEERS);
			return -EINVAL;
		}
		c->n_peers = 0;
		json_array_foreach(peers, k, v) {
			/* "ADDRESS" (the default VRF's) or {"address", "vrf"}. */
			static const char *const peer_keys[] = { "address", "vrf", NULL };
			json_t *a = json_is_object(v) ? json_object_get(v, "address") : v;
			json_t *vrf = json_is_object(v) ? json_object_get(v, "vrf") : NULL;
			char path[64];

			snprintf(path, sizeof(path), "control_plane.peers[%zu]", k);
			if (json_is_object(v) && (ret = unknown_key(v, peer_keys, path, err, len)) < 0)
				return ret;
			if (!json_is_string(a) ||
			    dpr_ip_parse(json_string_value(a), &c->peers[c->n_peers]) < 0) {
				snprintf(err, len, "%s: expected an IPv4 or IPv6 address like \"192.0.2.1\" or \"fe80::1\", or {\"address\": \"192.0.2.1\", \"vrf\": \"red\"}",
					 path);
				return -EINVAL;
			}
			if (vrf != NULL && (!json_is_string(vrf) || json_string_length(vrf) == 0 ||
					    json_string_length(vrf) > DPR_COPP_VRF_NAME_MAX)) {
				snprintf(err, len, "%s.vrf: expected the name of a VRF (1 to %d characters)",
					 path, DPR_COPP_VRF_NAME_MAX);
				return -EINVAL;
			}
			snprintf(c->peer_vrf[c->n_peers], sizeof(c->peer_vrf[0]), "%s",
				 vrf != NULL ? json_string_value(vrf) : "");
			c->n_peers++;
		}
	}
	return get_u32(o, "resolving_per_interface", "control_plane", 1, 4096,
		       &c->resolve_per_interface, err, len);
}

json_t *
dpr_copp_conf_json(const struct dpr_copp_conf *c)
{
	json_t *classes = json_object(), *peers = json_array();
	char buf[DPR_IP6_STRLEN];
	unsigned int i;

	for (i = 0; i < DPR_COPP_MAX; i++)
		json_object_set_new(classes, dpr_copp_class_names[i],
				    json_pack("{s:I,s:I,s:I}", "rate", (json_int_t)c->cls[i].rate,
					      "burst", (json_int_t)c->cls[i].burst,
					      "ring_share", (json_int_t)c->cls[i].share));
	for (i = 0; i < c->n_peers; i++) {
		dpr_ip_fmt(&c->peers[i], buf, sizeof(buf));
		json_array_append_new(peers, c->peer_vrf[i][0] == '\0' ? json_string(buf) :
				      json_pack("{s:s,s:s}", "address", buf, "vrf", c->peer_vrf[i]));
	}
	return json_pack("{s:o,s:o,s:I}", "classes", classes, "peers", peers,
			 "resolving_per_interface", (json_int_t)c->resolve_per_interface);
}

struct dpr_copp *
dpr_copp_create(const struct dpr_copp_conf *c, int socket)
{
	struct dpr_copp *cp = calloc(1, sizeof(*cp));

	if (cp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	cp->conf = *c;
	cp->bits = rte_zmalloc_socket("dpr_copp_peers", PEER_WORDS * sizeof(uint64_t),
				      RTE_CACHE_LINE_SIZE, socket);
	if (cp->bits == NULL) {
		free(cp);
		errno = ENOMEM;
		return NULL;
	}
	return cp;
}

void
dpr_copp_free(struct dpr_copp *cp)
{
	if (cp == NULL)
		return;
	rte_free(cp->bits);
	free(cp);
}

void
dpr_copp_worker_init(const struct dpr_copp *cp, const struct dpr_copp_conf *c,
		     struct dpr_copp_worker *w, unsigned int n_workers, uint64_t tsc_hz,
		     unsigned int ring_size)
{
	unsigned int i;

	memset(w, 0, sizeof(*w));
	if (n_workers == 0)
		n_workers = 1;
	for (i = 0; i < DPR_COPP_MAX; i++) {
		/* This worker's share of the rate and of the burst: RSS
		 * spreads a port's flows, a flood's and the rest alike. */
		uint64_t burst = RTE_MAX(c->cls[i].burst / n_workers, 1u);

		w->interval[i] = RTE_MAX(tsc_hz * n_workers / c->cls[i].rate, UINT64_C(1));
		w->tau[i] = w->interval[i] * (burst - 1);
		/* A ring of ring_size entries holds ring_size - 1. */
		w->ring_cap[i] = RTE_MAX((ring_size - 1) * c->cls[i].share / 100, 1u);
	}
	w->peers = cp->bits;
	w->enabled = true;
}

static uint32_t
peer_bit(const struct dpr_ip *ip, uint16_t vrf)
{
	return ip->af == DPR_AF_IP4 ? dpr_copp_peer_bit4(ip->ip4, vrf) :
	       dpr_copp_peer_bit6(ip->ip6, vrf);
}

bool
dpr_copp_is_peer(const uint64_t *bits, const struct dpr_ip *ip, uint16_t vrf)
{
	return dpr_copp_peer_test(bits, peer_bit(ip, vrf));
}

static void
peer_set(struct dpr_copp *cp, const struct dpr_ip *ip, uint16_t vrf)
{
	uint32_t bit = peer_bit(ip, vrf);

	cp->next[bit / 64] |= UINT64_C(1) << (bit % 64);
	cp->n_peers++;
}

void
dpr_copp_peers_sync(struct dpr_copp *cp, struct dpr_router *r)
{
	unsigned int i;
	uint32_t k;

	memset(cp->next, 0, sizeof(cp->next));
	cp->n_peers = 0;
	for (i = 0; i < cp->conf.n_peers; i++) {
		int v = cp->conf.peer_vrf[i][0] == '\0' ? DPR_VRF_DEFAULT :
			dpr_router_vrf_index(r, cp->conf.peer_vrf[i]);

		/* A VRF deleted since: no peer until it is back. */
		if (v >= 0)
			peer_set(cp, &cp->conf.peers[i], (uint16_t)v);
	}
	/* Gateways: next hops with an address that something besides their
	 * own host route and the neighbour module holds (a route through
	 * them, a multipath group). A neighbour, learned or static, that only
	 * its host route holds is not one: any host on a link could make
	 * itself a learned one. */
	for (k = DPR_NH_FIRST_DYNAMIC; r->nh != NULL && k < DPR_NH_MAX; k++) {
		const struct dpr_nh_info *info = dpr_nh_info(r->nh, k);
		uint32_t own;

		if (info == NULL || info->ip.af == 0)
			continue;
		own = r->neigh != NULL ? dpr_neigh_refs_held(r->neigh, k) : 0;
		/* A resolved or static neighbour off link-local has a host route. */
		if (!dpr_ip_is_link_local(&info->ip) &&
		    (info->is_static || dpr_nh_word_get(r->nh, k).kind == DPR_NH_KIND_FORWARD))
			own++;
		/* A peer in the VRF of the port it is reached through. */
		if (info->refcnt > own)
			peer_set(cp, &info->ip,
				 (uint16_t)dpr_router_port_vrf(r, dpr_nh_word_get(r->nh, k).port));
	}
	for (i = 0; i < PEER_WORDS; i++)
		if (cp->bits[i] != cp->next[i])
			__atomic_store_n(&cp->bits[i], cp->next[i], __ATOMIC_RELAXED);
}

void
dpr_copp_timers(struct dpr_copp *cp, struct dpr_router *r)
{
	uint64_t now = dpr_clock_now();

	if (now < cp->next_sync)
		return;
	cp->next_sync = now + DPR_CLOCK_HZ * SYNC_MS / 1000;
	dpr_copp_peers_sync(cp, r);
}

json_t *
dpr_copp_stats_json(const struct dpr_router *r)
{
	const struct dpr_copp_conf *c = &r->cfg->control_plane;
	json_t *classes = json_object();
	unsigned int i, w;

	for (i = 0; i < DPR_COPP_MAX; i++) {
		uint64_t passed = 0, rate = 0, share = 0;

		for (w = 0; w < r->n_workers; w++) {
			const struct dpr_copp_worker *cw = &r->workers[w]->copp;

			passed += __atomic_load_n(&cw->passed[i], __ATOMIC_RELAXED);
			rate += __atomic_load_n(&cw->over_rate[i], __ATOMIC_RELAXED);
			share += __atomic_load_n(&cw->over_share[i], __ATOMIC_RELAXED);
		}
		json_object_set_new(classes, dpr_copp_class_names[i],
			json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
				  "passed", (json_int_t)passed, "dropped", (json_int_t)(rate + share),
				  "over_rate", (json_int_t)rate, "over_share", (json_int_t)share,
				  "rate", (json_int_t)c->cls[i].rate, "burst", (json_int_t)c->cls[i].burst,
				  "ring_share", (json_int_t)c->cls[i].share));
	}
	return json_pack("{s:o,s:I,s:o}", "classes", classes, "peers",
			 (json_int_t)(r->copp != NULL ? r->copp->n_peers : 0),
			 "resolving", r->neigh != NULL ?
			 dpr_neigh_resolving_json(r->neigh, r->port_names, r->n_ports) : json_object());
}
