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
 * The hash key: the address, and for a link-local one the port it is on
 * plus one (0 for every other address). Bytes past the address and the
 * padding are zero.
 */
struct nh_key {
	struct dpr_ip ip;
	uint16_t port;
};

/* Written by the control thread only; workers read words[] (see header). */
struct dpr_nh_table {
	union dpr_nh_word *words;   /**< DPR_NH_MAX entries, shared with workers */
	struct dpr_nh_info *info;   /**< control side only */
	struct rte_hash *by_ip;     /**< struct nh_key -> index */
	uint16_t *key_port;         /**< per index: port + 1 in its key, 0 for none */
	uint32_t *free_list;
	uint32_t n_free;
	uint32_t n_used;
	uint32_t connected[PORTS];  /**< per port, CONNECTED_NONE if not created */
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
	struct dpr_nh_table *t;
	union dpr_nh_word w = { .u64 = 0 };
	uint32_t i;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		goto fail;
	t->words = rte_zmalloc_socket("dpr_nh", DPR_NH_MAX * sizeof(*t->words),
				      RTE_CACHE_LINE_SIZE, socket);
	t->info = calloc(DPR_NH_MAX, sizeof(*t->info));
	t->key_port = calloc(DPR_NH_MAX, sizeof(*t->key_port));
	t->free_list = malloc(DPR_NH_MAX * sizeof(*t->free_list));
	t->by_ip = rte_hash_create(&hp);
	if (t->words == NULL || t->info == NULL || t->key_port == NULL ||
	    t->free_list == NULL || t->by_ip == NULL)
		goto fail;

	/* Hand out low indices first: they share cache lines. */
	for (i = DPR_NH_MAX; i > DPR_NH_FIRST_DYNAMIC; i--)
		t->free_list[t->n_free++] = i - 1;
	for (i = 0; i < RTE_DIM(t->connected); i++)
		t->connected[i] = CONNECTED_NONE;

	w.kind = DPR_NH_KIND_NO_ROUTE;
	word_store(t, DPR_NH_NONE, w);
	w.kind = DPR_NH_KIND_LOCAL;
	word_store(t, DPR_NH_LOCAL, w);
	word_store(t, DPR_NH_BCAST, w);
	t->info[DPR_NH_NONE].in_use = true;
	t->info[DPR_NH_LOCAL].in_use = true;
	t->info[DPR_NH_BCAST].in_use = true;
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
	rte_free(t->words);
	free(t->info);
	free(t->key_port);
	free(t->free_list);
	free(t);
}

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
key_of(const struct dpr_ip *ip, int port)
{
	struct nh_key key;

	memset(&key, 0, sizeof(key));
	key.ip = ip_of(ip);
	key.port = dpr_ip_is_link_local(ip) && port >= 0 ? (uint16_t)(port + 1) : 0;
	return key;
}

static int
lookup(const struct dpr_nh_table *t, const struct nh_key *key)
{
	void *data;

	if (rte_hash_lookup_data(t->by_ip, key, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

int
dpr_nh_find_port(const struct dpr_nh_table *t, const struct dpr_ip *ip, int port)
{
	struct nh_key key;
	int idx, found = -ENOENT;

	if (!dpr_ip_is_link_local(ip) || port >= 0) {
		key = key_of(ip, port);
		return lookup(t, &key);
	}
	/* A link-local address without its port: unambiguous or not found.
	 * Control side and rare (neighbour deletion by address). */
	for (port = 0; port < PORTS; port++) {
		key = key_of(ip, port);
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
	struct nh_key key = key_of(ip, port);
	int idx;

	idx = lookup(t, &key);
	if (idx >= 0) {
		t->info[idx].refcnt++;
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
	return idx;
}

int
dpr_nh_connected(struct dpr_nh_table *t, uint8_t port)
{
	int idx;

	if (t->connected[port] != CONNECTED_NONE) {
		t->info[t->connected[port]].refcnt++;
		return (int)t->connected[port];
	}
	idx = nh_alloc(t, port, DPR_NH_KIND_UNRESOLVED);
	if (idx >= 0)
		t->connected[port] = (uint32_t)idx;
	return idx;
}

void
dpr_nh_put(struct dpr_nh_table *t, uint32_t idx)
{
	struct dpr_nh_info *info = &t->info[idx];
	union dpr_nh_word w = { .u64 = 0 };

	if (idx < DPR_NH_FIRST_DYNAMIC || !info->in_use)
		return;
	if (info->refcnt > 0 && --info->refcnt > 0)
		return;
	if (info->ip.af != 0) {
		struct nh_key key = key_of(&info->ip, (int)t->key_port[idx] - 1);

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
	t->free_list[t->n_free++] = idx;
	t->n_used--;
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
