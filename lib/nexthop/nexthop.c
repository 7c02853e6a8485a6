/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "../util/log.h"
#include "nexthop.h"

#define CONNECTED_NONE UINT32_MAX
#define PORTS 256 /* a next-hop word's port is 8 bits */

/*
 * The hash key: the address, for a link-local one the port it is on plus
 * one (0 for every other address), and the VRF of the port it was asked
 * for (the same address may be a neighbour in two VRFs). Bytes past the
 * address and the padding are zero.
 */
struct nh_key {
	struct dpr_ip ip;
	uint16_t port;
	uint16_t vrf;
};

/*
 * A group's hash key and listing: members sorted by index, their weights
 * beside them, the rest zero (keys are compared as bytes).
 */
struct group_key {
	uint16_t n;
	uint16_t member[DPR_NH_GROUP_MEMBERS];
	uint16_t weight[DPR_NH_GROUP_MEMBERS];
	uint16_t pad;
};

/* Written by the control thread only; workers read words[] and groups[]
 * (see header). */
struct dpr_nh_table {
	union dpr_nh_word *words;   /**< DPR_NH_MAX entries, then groups[]: shared with workers */
	struct dpr_nh_group *groups; /**< DPR_NH_GROUPS_MAX entries */
	struct dpr_nh_info *info;   /**< control side only */
	struct rte_hash *by_ip;     /**< struct nh_key -> index */
	uint16_t *key_port;         /**< per index: port + 1 in its key, 0 for none */
	uint16_t *key_vrf;          /**< per index: the VRF in its key */
	uint16_t port_vrf[PORTS];   /**< each port's VRF (dpr_nh_set_port_vrf()) */
	uint32_t *free_list;
	uint32_t n_free;
	uint32_t n_used;
	uint32_t end;               /**< one past the highest index ever handed out */
	uint32_t connected[PORTS];  /**< per port, CONNECTED_NONE if not created */
	struct rte_hash *by_group;  /**< struct group_key -> next-hop index */
	struct group_key *group_keys; /**< per group, as its slots were built */
	uint32_t *group_free;       /**< free group indices */
	uint32_t n_group_free;
	/* Freed indices waiting for the exception rings to be read past
	 * their free (dpr_nh_set_quarantine()): a FIFO of DPR_NH_MAX, entries
	 * q_head (released) to q_tail (freed) counted since creation. */
	uint32_t *quarantine;
	uint64_t q_head, q_tail;
	bool q_on;
	dpr_nh_ref_fn ref_fn;       /**< dpr_nh_set_ref_hook() */
	void *ref_ctx;
};

static void
word_store(struct dpr_nh_table *t, uint32_t idx, union dpr_nh_word w)
{
	__atomic_store_n(&t->words[idx].u64, w.u64, __ATOMIC_RELEASE);
}

union dpr_nh_word
dpr_nh_word_get(const struct dpr_nh_table *t, uint32_t idx)
{
	union dpr_nh_word w;

	w.u64 = __atomic_load_n(&t->words[idx].u64, __ATOMIC_ACQUIRE);
	return w;
}

const union dpr_nh_word *
dpr_nh_words(const struct dpr_nh_table *t)
{
	return t->words;
}

struct dpr_nh_table *
dpr_nh_table_create(int socket)
{
	struct rte_hash_parameters hp = {
		.name = "dpr_nh_by_ip",
		.entries = DPR_NH_MAX,
		.key_len = sizeof(struct nh_key),
		.hash_func = rte_jhash,
		.socket_id = socket,
	};
	struct rte_hash_parameters gp = {
		.name = "dpr_nh_by_group",
		.entries = DPR_NH_GROUPS_MAX,
		.key_len = sizeof(struct group_key),
		.hash_func = rte_jhash,
		.socket_id = socket,
		/* Every group has room: a full cuckoo table refuses keys early. */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct dpr_nh_table *t;
	union dpr_nh_word w = { .u64 = 0 };
	uint32_t i;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		goto fail;
	/* Groups right after the words: dpr_nh_group_rcu() finds them so. */
	t->words = rte_zmalloc_socket("dpr_nh", DPR_NH_MAX * sizeof(*t->words) +
				      DPR_NH_GROUPS_MAX * sizeof(*t->groups),
				      RTE_CACHE_LINE_SIZE, socket);
	if (t->words != NULL)
		t->groups = (struct dpr_nh_group *)(void *)(t->words + DPR_NH_MAX);
	t->info = calloc(DPR_NH_MAX, sizeof(*t->info));
	t->key_port = calloc(DPR_NH_MAX, sizeof(*t->key_port));
	t->key_vrf = calloc(DPR_NH_MAX, sizeof(*t->key_vrf));
	t->free_list = malloc(DPR_NH_MAX * sizeof(*t->free_list));
	t->quarantine = malloc(DPR_NH_MAX * sizeof(*t->quarantine));
	t->by_ip = rte_hash_create(&hp);
	t->by_group = rte_hash_create(&gp);
	t->group_keys = calloc(DPR_NH_GROUPS_MAX, sizeof(*t->group_keys));
	t->group_free = malloc(DPR_NH_GROUPS_MAX * sizeof(*t->group_free));
	if (t->words == NULL || t->info == NULL || t->key_port == NULL || t->key_vrf == NULL ||
	    t->free_list == NULL || t->quarantine == NULL || t->by_ip == NULL || t->by_group == NULL ||
	    t->group_keys == NULL || t->group_free == NULL)
		goto fail;

	/* Hand out low indices first: they share cache lines. */
	for (i = DPR_NH_MAX; i > DPR_NH_FIRST_DYNAMIC; i--)
		t->free_list[t->n_free++] = i - 1;
	for (i = DPR_NH_GROUPS_MAX; i > 0; i--)
		t->group_free[t->n_group_free++] = i - 1;
	for (i = 0; i < RTE_DIM(t->connected); i++)
		t->connected[i] = CONNECTED_NONE;

	w.kind = DPR_NH_KIND_NO_ROUTE;
	word_store(t, DPR_NH_NONE, w);
	w.kind = DPR_NH_KIND_LOCAL;
	word_store(t, DPR_NH_LOCAL, w);
	word_store(t, DPR_NH_BCAST, w);
	w.kind = DPR_NH_KIND_BLACKHOLE;
	word_store(t, DPR_NH_BLACKHOLE, w);
	t->info[DPR_NH_NONE].in_use = true;
	t->info[DPR_NH_LOCAL].in_use = true;
	t->info[DPR_NH_BCAST].in_use = true;
	t->info[DPR_NH_BLACKHOLE].in_use = true;
	t->n_used = DPR_NH_FIRST_DYNAMIC;
	return t;
fail:
	dpr_nh_table_free(t);
	errno = ENOMEM;
	return NULL;
}

void
dpr_nh_table_free(struct dpr_nh_table *t)
{
	if (t == NULL)
		return;
	rte_hash_free(t->by_ip);
	rte_hash_free(t->by_group);
	rte_free(t->words);
	free(t->info);
	free(t->key_port);
	free(t->key_vrf);
	free(t->free_list);
	free(t->quarantine);
	free(t->group_keys);
	free(t->group_free);
	free(t);
}

static void ref_inc(struct dpr_nh_table *t, uint32_t idx);
static void ref_changed(struct dpr_nh_table *t, uint32_t idx);

static int
nh_alloc(struct dpr_nh_table *t, uint8_t port, uint8_t kind)
{
	union dpr_nh_word w = { .u64 = 0 };
	uint32_t idx;

	if (t->n_free == 0)
		return -ENOSPC;
	idx = t->free_list[--t->n_free];
	memset(&t->info[idx], 0, sizeof(t->info[idx]));
	t->info[idx].in_use = true;
	t->info[idx].refcnt = 1;
	w.port = port;
	w.kind = kind;
	word_store(t, idx, w);
	t->n_used++;
	if (idx >= t->end)
		t->end = idx + 1;
	return (int)idx;
}

/* The address alone, with the bytes past it zero (info->ip, key.ip). */
static struct dpr_ip
ip_of(const struct dpr_ip *ip)
{
	struct dpr_ip a;

	memset(&a, 0, sizeof(a));
	a.af = ip->af;
	if (ip->af == DPR_AF_IP4)
		a.ip4 = ip->ip4;
	else
		memcpy(a.ip6, ip->ip6, sizeof(a.ip6));
	return a;
}

/* Hash keys are compared as bytes: built whole, padding included. */
static struct nh_key
key_of(const struct dpr_nh_table *t, const struct dpr_ip *ip, int port)
{
	struct nh_key key;

	memset(&key, 0, sizeof(key));
	key.ip = ip_of(ip);
	key.port = dpr_ip_is_link_local(ip) && port >= 0 ? (uint16_t)(port + 1) : 0;
	key.vrf = port >= 0 && port < PORTS ? t->port_vrf[port] : 0;
	return key;
}

void
dpr_nh_set_port_vrf(struct dpr_nh_table *t, uint8_t port, uint16_t vrf)
{
	t->port_vrf[port] = vrf;
}

uint16_t
dpr_nh_vrf(const struct dpr_nh_table *t, uint32_t idx)
{
	return idx < DPR_NH_MAX ? t->key_vrf[idx] : 0;
}

static int
lookup(const struct dpr_nh_table *t, const struct nh_key *key)
{
	void *data;

	if (rte_hash_lookup_data(t->by_ip, key, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

static int
lookup_group(const struct dpr_nh_table *t, const struct group_key *key)
{
	void *data;

	if (rte_hash_lookup_data(t->by_group, key, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

int
dpr_nh_find_port(const struct dpr_nh_table *t, const struct dpr_ip *ip, int port)
{
	struct nh_key key;
	int idx, found = -ENOENT;

	if (!dpr_ip_is_link_local(ip) || port >= 0) {
		key = key_of(t, ip, port);
		return lookup(t, &key);
	}
	/* A link-local address without its port: unambiguous or not found.
	 * Control side and rare (neighbour deletion by address). */
	for (port = 0; port < PORTS; port++) {
		key = key_of(t, ip, port);
		idx = lookup(t, &key);
		if (idx >= 0 && found >= 0)
			return -ENOENT;
		if (idx >= 0)
			found = idx;
	}
	return found;
}

int
dpr_nh_find(const struct dpr_nh_table *t, const struct dpr_ip *ip)
{
	return dpr_nh_find_port(t, ip, -1);
}

int
dpr_nh_get(struct dpr_nh_table *t, const struct dpr_ip *ip, uint8_t port)
{
	struct nh_key key = key_of(t, ip, port);
	int idx;

	idx = lookup(t, &key);
	if (idx >= 0) {
		ref_inc(t, (uint32_t)idx);
		return idx;
	}
	idx = nh_alloc(t, port, DPR_NH_KIND_UNRESOLVED);
	if (idx < 0)
		return idx;
	if (rte_hash_add_key_data(t->by_ip, &key, (void *)(uintptr_t)idx) < 0) {
		t->info[idx].refcnt = 0;
		dpr_nh_put(t, (uint32_t)idx);
		return -ENOSPC;
	}
	t->info[idx].ip = key.ip;
	t->key_port[idx] = key.port;
	t->key_vrf[idx] = key.vrf;
	return idx;
}

int
dpr_nh_connected(struct dpr_nh_table *t, uint8_t port)
{
	int idx;

	if (t->connected[port] != CONNECTED_NONE) {
		ref_inc(t, t->connected[port]);
		return (int)t->connected[port];
	}
	idx = nh_alloc(t, port, DPR_NH_KIND_UNRESOLVED);
	if (idx >= 0)
		t->connected[port] = (uint32_t)idx;
	return idx;
}

static void group_free(struct dpr_nh_table *t, uint32_t idx);

void
dpr_nh_set_ref_hook(struct dpr_nh_table *t, dpr_nh_ref_fn fn, void *ctx)
{
	t->ref_fn = fn;
	t->ref_ctx = ctx;
}

/* The reference count of @p idx changed: tell the hook. */
static void
ref_changed(struct dpr_nh_table *t, uint32_t idx)
{
	if (t->ref_fn != NULL)
		t->ref_fn(t->ref_ctx, idx, t->info[idx].refcnt);
}

/* One more reference on @p idx, in use. */
static void
ref_inc(struct dpr_nh_table *t, uint32_t idx)
{
	t->info[idx].refcnt++;
	ref_changed(t, idx);
}

/* Index @p idx is free: on the free list (or in quarantine), its owner's
 * side data cleared. */
static void
nh_release(struct dpr_nh_table *t, uint32_t idx)
{
	if (t->q_on)
		t->quarantine[t->q_tail++ % DPR_NH_MAX] = idx;
	else
		t->free_list[t->n_free++] = idx;
	t->n_used--;
	if (t->ref_fn != NULL)
		t->ref_fn(t->ref_ctx, idx, 0);
}

void
dpr_nh_hold(struct dpr_nh_table *t, uint32_t idx)
{
	if (idx >= DPR_NH_FIRST_DYNAMIC && t->info[idx].in_use)
		ref_inc(t, idx);
}

void
dpr_nh_put(struct dpr_nh_table *t, uint32_t idx)
{
	struct dpr_nh_info *info = &t->info[idx];
	union dpr_nh_word w = { .u64 = 0 };

	if (idx < DPR_NH_FIRST_DYNAMIC || !info->in_use)
		return;
	if (info->refcnt > 0 && --info->refcnt > 0) {
		ref_changed(t, idx);
		return;
	}
	if (t->words[idx].kind == DPR_NH_KIND_GROUP) {
		group_free(t, idx);
		return;
	}
	if (info->ip.af != 0) {
		struct nh_key key = key_of(t, &info->ip, -1);

		key.port = t->key_port[idx];
		key.vrf = t->key_vrf[idx];
		rte_hash_del_key(t->by_ip, &key);
	}
	t->key_port[idx] = 0;
	for (unsigned int p = 0; p < PORTS; p++)
		if (t->connected[p] == idx)
			t->connected[p] = CONNECTED_NONE;
	/* Callers drop the last reference only after the routes that used it
	 * are gone from every FIB copy workers can see. */
	w.kind = DPR_NH_KIND_NO_ROUTE;
	word_store(t, idx, w);
	memset(info, 0, sizeof(*info));
	nh_release(t, idx);
}

void
dpr_nh_resolve(struct dpr_nh_table *t, uint32_t idx, uint8_t port,
	       const struct rte_ether_addr *mac, bool is_static)
{
	union dpr_nh_word w = dpr_nh_word_get(t, idx);

	w.mac = *mac;
	w.port = port;
	w.kind = DPR_NH_KIND_FORWARD;
	word_store(t, idx, w);
	t->info[idx].is_static = is_static;
}

void
dpr_nh_unresolve(struct dpr_nh_table *t, uint32_t idx, uint8_t port)
{
	union dpr_nh_word w = dpr_nh_word_get(t, idx);

	memset(&w.mac, 0, sizeof(w.mac));
	w.port = port;
	w.kind = DPR_NH_KIND_UNRESOLVED;
	word_store(t, idx, w);
	t->info[idx].is_static = false;
}

/* --- multipath groups ------------------------------------------------------ */

/*
 * Weights into slots (see dpr_nh_group_get()): exactly the weights when
 * they fit, else one slot each and the rest, one at a time, to the member
 * with the largest weight per slot held (the Adams divisor method: every
 * member keeps one slot, shares as close to the weights as whole slots go).
 */
static unsigned int
group_slots(const struct group_key *k, uint8_t *slots_of)
{
	unsigned int i, best, total = 0, n = 0;

	for (i = 0; i < k->n; i++)
		total += k->weight[i];
	if (total <= DPR_NH_GROUP_SLOTS) {
		for (i = 0; i < k->n; i++)
			slots_of[i] = (uint8_t)k->weight[i];
		return total;
	}
	for (i = 0; i < k->n; i++)
		slots_of[i] = 1;
	for (n = k->n; n < DPR_NH_GROUP_SLOTS; n++) {
		best = 0;
		for (i = 1; i < k->n; i++)
			if ((uint32_t)k->weight[i] * slots_of[best] >
			    (uint32_t)k->weight[best] * slots_of[i])
				best = i;
		slots_of[best]++;
	}
	return DPR_NH_GROUP_SLOTS;
}

/* The key of members @p m with weights @p wt: checked, sorted by member. */
static int
group_key_of(const struct dpr_nh_table *t, const uint32_t *m, const uint16_t *wt,
	     unsigned int n, struct group_key *k)
{
	unsigned int i, j;

	memset(k, 0, sizeof(*k));
	if (n == 0 || n > DPR_NH_GROUP_MEMBERS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		uint16_t w = wt != NULL ? wt[i] : 1;

		if (m[i] < DPR_NH_FIRST_DYNAMIC || m[i] >= DPR_NH_MAX || !t->info[m[i]].in_use ||
		    t->words[m[i]].kind == DPR_NH_KIND_GROUP || w < 1 || w > DPR_NH_WEIGHT_MAX)
			return -EINVAL;
		/* Insertion sort: 16 at most. */
		for (j = i; j > 0 && k->member[j - 1] > m[i]; j--) {
			k->member[j] = k->member[j - 1];
			k->weight[j] = k->weight[j - 1];
		}
		if (j > 0 && k->member[j - 1] == m[i])
			return -EINVAL;
		k->member[j] = (uint16_t)m[i];
		k->weight[j] = w;
	}
	k->n = (uint16_t)n;
	return 0;
}

int
dpr_nh_group_take(struct dpr_nh_table *t, const uint32_t *members, const uint16_t *weights,
		  unsigned int n)
{
	int idx = dpr_nh_group_get(t, members, weights, n);
	unsigned int i;

	for (i = 0; i < n; i++)
		dpr_nh_put(t, members[i]);
	return idx;
}

int
dpr_nh_group_get(struct dpr_nh_table *t, const uint32_t *members, const uint16_t *weights,
		 unsigned int n)
{
	union dpr_nh_word w = { .u64 = 0 };
	struct dpr_nh_group *g;
	struct group_key k;
	unsigned int i, j, s;
	uint32_t gi;
	int idx, ret;

	ret = group_key_of(t, members, weights, n, &k);
	if (ret < 0)
		return ret;
	if (n == 1) {
		ref_inc(t, members[0]);
		return (int)members[0];
	}
	idx = lookup_group(t, &k);
	if (idx >= 0) {
		ref_inc(t, (uint32_t)idx);
		return idx;
	}
	if (t->n_group_free == 0)
		return -ENOSPC;
	idx = nh_alloc(t, 0, DPR_NH_KIND_NO_ROUTE);
	if (idx < 0)
		return idx;
	gi = t->group_free[t->n_group_free - 1];
	if (rte_hash_add_key_data(t->by_group, &k, (void *)(uintptr_t)idx) < 0) {
		t->info[idx].refcnt = 0;
		dpr_nh_put(t, (uint32_t)idx);
		return -ENOSPC;
	}
	t->n_group_free--;
	t->group_keys[gi] = k;

	/* Nothing reads this group yet: the store of its word below is what
	 * publishes it (release), and it never changes after. */
	g = &t->groups[gi];
	memset(g, 0, sizeof(*g));
	g->n_members = (uint8_t)k.n;
	g->n_slots = (uint8_t)group_slots(&k, g->slots_of);
	for (i = 0, s = 0; i < k.n; i++) {
		g->member[i] = k.member[i];
		for (j = 0; j < g->slots_of[i]; j++)
			g->slot[s++] = (uint8_t)i;
		t->info[k.member[i]].groups++;
		ref_inc(t, k.member[i]);
	}
	w.group.index = gi;
	w.kind = DPR_NH_KIND_GROUP;
	word_store(t, (uint32_t)idx, w);
	return idx;
}

/* The last reference to group @p idx is gone: free it, then let go of its members. */
static void
group_free(struct dpr_nh_table *t, uint32_t idx)
{
	union dpr_nh_word w = t->words[idx];
	struct group_key k = t->group_keys[w.group.index];
	unsigned int i;

	rte_hash_del_key(t->by_group, &k);
	memset(&t->group_keys[w.group.index], 0, sizeof(k));
	t->group_free[t->n_group_free++] = w.group.index;
	/* As any next hop: no route has pointed here for a grace period. */
	w.u64 = 0;
	w.kind = DPR_NH_KIND_NO_ROUTE;
	word_store(t, idx, w);
	memset(&t->info[idx], 0, sizeof(t->info[idx]));
	nh_release(t, idx);
	for (i = 0; i < k.n; i++) {
		t->info[k.member[i]].groups--;
		dpr_nh_put(t, k.member[i]);
	}
}

unsigned int
dpr_nh_group_members(const struct dpr_nh_table *t, uint32_t idx, uint32_t *members,
		     uint16_t *weights)
{
	const struct group_key *k;
	unsigned int i;

	if (idx >= DPR_NH_MAX || !t->info[idx].in_use ||
	    t->words[idx].kind != DPR_NH_KIND_GROUP)
		return 0;
	k = &t->group_keys[t->words[idx].group.index];
	for (i = 0; i < k->n; i++) {
		members[i] = k->member[i];
		weights[i] = k->weight[i];
	}
	return k->n;
}

uint32_t
dpr_nh_pick(const struct dpr_nh_table *t, uint32_t idx, uint32_t hash)
{
	union dpr_nh_word w = dpr_nh_word_get(t, idx);

	return w.kind == DPR_NH_KIND_GROUP ? dpr_nh_group_pick_rcu(t->words, w, hash) : idx;
}

uint32_t
dpr_nh_group_count(const struct dpr_nh_table *t)
{
	return DPR_NH_GROUPS_MAX - t->n_group_free;
}

const struct dpr_nh_info *
dpr_nh_info(const struct dpr_nh_table *t, uint32_t idx)
{
	if (idx >= DPR_NH_MAX || !t->info[idx].in_use)
		return NULL;
	return &t->info[idx];
}

uint32_t
dpr_nh_count(const struct dpr_nh_table *t)
{
	return t->n_used;
}

uint32_t
dpr_nh_index_end(const struct dpr_nh_table *t)
{
	return RTE_MAX(t->end, (uint32_t)DPR_NH_FIRST_DYNAMIC);
}

void
dpr_nh_set_quarantine(struct dpr_nh_table *t, bool on)
{
	if (!on)
		dpr_nh_quarantine_release(t, t->q_tail);
	t->q_on = on;
}

uint64_t
dpr_nh_quarantine_mark(const struct dpr_nh_table *t)
{
	return t->q_tail;
}

void
dpr_nh_quarantine_release(struct dpr_nh_table *t, uint64_t mark)
{
	/* At most DPR_NH_MAX wait: every index is in one place at a time
	 * (in use, free or here), so the FIFO never overflows. */
	while (t->q_head < mark)
		t->free_list[t->n_free++] = t->quarantine[t->q_head++ % DPR_NH_MAX];
}
