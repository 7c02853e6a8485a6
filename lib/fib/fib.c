/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rib.h>

#include "../nexthop/nexthop.h"
#include "../util/log.h"
#include "fib.h"

static uint64_t
heap_allocated(int socket)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(socket, &st) < 0)
		return 0;
	return st.heap_allocsz_bytes;
}

struct dpr_fib4 *
dpr_fib4_create(const struct dpr_fib4_conf *conf, struct rte_rcu_qsbr *qsbr)
{
	struct rte_fib_conf fc = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = DPR_NH_NONE,
		.max_routes = (int)conf->max_routes,
		.dir24_8 = {
			.nh_sz = RTE_FIB_DIR24_8_4B,
			.num_tbl8 = conf->tbl8_groups,
		},
	};
	struct dpr_fib4 *fib;
	uint64_t before;
	int i, socket = conf->socket < 0 ? 0 : conf->socket;

	fib = calloc(1, sizeof(*fib));
	if (fib == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	fib->conf = *conf;
	fib->qsbr = qsbr;
	before = heap_allocated(socket);
	for (i = 0; i < 2; i++) {
		char name[64];

		snprintf(name, sizeof(name), "dpr_fib4_%d", i);
		fib->copy[i] = rte_fib_create(name, conf->socket, &fc);
		if (fib->copy[i] == NULL) {
			int e = rte_errno;

			DPR_LOG(ERR, fib, "cannot create IPv4 FIB for %u routes and %u tbl8 groups: %s (reserve more hugepages, or lower fib.ipv4_max_routes)",
				conf->max_routes, conf->tbl8_groups, rte_strerror(e));
			dpr_fib4_free(fib);
			errno = e;
			return NULL;
		}
	}
	fib->active = fib->copy[0];
	fib->memory = heap_allocated(socket) - before;
	DPR_LOG(INFO, fib, "IPv4 FIB: DIR-24-8, 2 copies, %u routes, %u tbl8 groups, %.1f MiB",
		conf->max_routes, conf->tbl8_groups, (double)fib->memory / (1 << 20));
	return fib;
}

void
dpr_fib4_free(struct dpr_fib4 *fib)
{
	if (fib == NULL)
		return;
	rte_fib_free(fib->copy[0]);
	rte_fib_free(fib->copy[1]);
	free(fib);
}

static int
apply(struct rte_fib *f, const struct dpr_fib4_op *op)
{
	if (op->del)
		return rte_fib_delete(f, op->ip, op->depth);
	return rte_fib_add(f, op->ip, op->depth,
			   op->depth > 24 ? op->nh | DPR_FIB4_LONG : op->nh);
}

static bool
exists(struct rte_fib *f, uint32_t ip, uint8_t depth, uint32_t *nh)
{
	struct rte_rib_node *node = rte_rib_lookup_exact(rte_fib_get_rib(f), ip, depth);
	uint64_t v = 0;

	if (node == NULL)
		return false;
	rte_rib_get_nh(node, &v);
	*nh = (uint32_t)(v & DPR_FIB4_NH_MASK);
	return true;
}

unsigned int
dpr_fib4_update(struct dpr_fib4 *fib, struct dpr_fib4_op *ops,
		unsigned int n, int *err)
{
	struct rte_fib *active = fib->active;
	struct rte_fib *shadow = active == fib->copy[0] ? fib->copy[1] : fib->copy[0];
	unsigned int i, done = 0;
	int ret = 0;

	*err = 0;
	for (i = 0; i < n; i++) {
		bool had = exists(shadow, ops[i].ip, ops[i].depth, &ops[i].old_nh);

		ops[i].existed = had;
		if (ops[i].del && !had) {
			ret = -ENOENT;
			break;
		}
		ret = apply(shadow, &ops[i]);
		if (ret < 0)
			break;
		if (ops[i].del)
			fib->n_routes--;
		else if (!had)
			fib->n_routes++;
		done++;
	}
	*err = ret;
	if (done == 0)
		return 0;

	/* Publish, then wait until no worker can still hold the old copy. */
	__atomic_store_n(&fib->active, shadow, __ATOMIC_RELEASE);
	if (fib->qsbr != NULL)
		rte_rcu_qsbr_synchronize(fib->qsbr, RTE_QSBR_THRID_INVALID);

	for (i = 0; i < done; i++) {
		ret = apply(active, &ops[i]);
		if (ret < 0)
			/* Both copies held the same routes, so this cannot
			 * fail unless memory is corrupt: say so loudly. */
			DPR_LOG(CRIT, fib, "FIB copies diverged at op %u: %s", i,
				rte_strerror(-ret));
	}
	return done;
}

int
dpr_fib4_get(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth, uint32_t *nh)
{
	struct rte_rib_node *node;
	uint64_t v;

	node = rte_rib_lookup_exact(rte_fib_get_rib(fib->active), ip, depth);
	if (node == NULL)
		return -ENOENT;
	rte_rib_get_nh(node, &v);
	*nh = (uint32_t)(v & DPR_FIB4_NH_MASK);
	return 0;
}

int
dpr_fib4_lpm(const struct dpr_fib4 *fib, uint32_t ip, uint32_t *prefix,
	     uint8_t *depth, uint32_t *nh)
{
	struct rte_rib_node *node;
	uint64_t v;

	node = rte_rib_lookup(rte_fib_get_rib(fib->active), ip);
	if (node == NULL)
		return -ENOENT;
	rte_rib_get_ip(node, prefix);
	rte_rib_get_depth(node, depth);
	rte_rib_get_nh(node, &v);
	*nh = (uint32_t)(v & DPR_FIB4_NH_MASK);
	return 0;
}

uint64_t
dpr_fib4_memory(const struct dpr_fib4 *fib)
{
	return fib->memory;
}

struct rte_rib_node *
dpr_fib4_next(const struct dpr_fib4 *fib, struct rte_rib_node *last, uint32_t *ip,
	      uint8_t *depth, uint32_t *nh)
{
	struct rte_rib_node *node;
	uint64_t v;

	node = rte_rib_get_nxt(rte_fib_get_rib(fib->active), 0, 0, last, RTE_RIB_GET_NXT_ALL);
	if (node == NULL)
		return NULL;
	rte_rib_get_ip(node, ip);
	rte_rib_get_depth(node, depth);
	rte_rib_get_nh(node, &v);
	*nh = (uint32_t)(v & DPR_FIB4_NH_MASK);
	return node;
}

struct rte_rib_node *
dpr_fib4_next_after(const struct dpr_fib4 *fib, uint32_t ip, uint8_t depth,
		    uint32_t *nip, uint8_t *ndepth, uint32_t *nh)
{
	struct rte_rib *rib = rte_fib_get_rib(fib->active);
	struct rte_rib_node *node, *next;
	bool placeholder = false;

	node = rte_rib_lookup_exact(rib, ip, depth);
	if (node == NULL) {
		/* Put a node where the cursor was to find its successor, and
		 * take it out at once. Only the RIB changes, which workers
		 * never read (they read the DIR-24-8 tables). */
		node = rte_rib_insert(rib, ip, depth);
		if (node == NULL)
			return NULL;
		placeholder = true;
	}
	next = dpr_fib4_next(fib, node, nip, ndepth, nh);
	if (placeholder)
		rte_rib_remove(rib, ip, depth);
	return next;
}
