/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poptrie's control side: the trie of routes, the planner that turns a part
 * of it into nodes and leaves, the block allocator with RCU-deferred reuse,
 * and the update driver. See poptrie.h for the lookup structure and how
 * workers are protected.
 *
 * Invariants kept by every update:
 *  - every direct-pointing entry and every node slot answers the trie's
 *    longest match for all keys under it;
 *  - a subtree whose keys all have one answer is a leaf, never a node;
 *  - blocks reachable from the published tables are never written; blocks
 *    unlinked by a batch are reused only after a grace period that began
 *    after they were unlinked, the arrays of replaced tables freed likewise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "../nexthop/nexthop.h"
#include "../util/log.h"
#include "poptrie.h"

_Static_assert(DPR_NH_MAX - 1 <= DPR_PT_NH_MAX, "next hops must fit a 16-bit leaf");

#define SLOTS (1u << DPR_PT_STRIDE)
#define DP_SIZE (1u << DPR_PT_DP_BITS)
#define NODES_MIN 1024u
#define LEAVES_MIN 4096u

/* ---- the trie of routes ---- */

/* A trie node: children by the next key bit (0: none; the root, index 0,
 * is nobody's child), and a route's next hop with T_ROUTE set. During a
 * batch, T_PATH marks the nodes on the path of a change (the root to the
 * changed prefix), T_SUB the changed prefix itself when its node stays:
 * what the rebuild may not reuse (inc()). */
#define T_ROUTE (UINT32_C(1) << 31)
#define T_PATH (UINT32_C(1) << 30)
#define T_SUB (UINT32_C(1) << 29)
#define T_NH UINT32_C(0xffff)
struct tnode {
	uint32_t child[2];
	uint32_t nh;
};

/* A block of nodes or leaves, as the allocator hands it out. */
struct block {
	uint32_t off;
	uint8_t size;  /* 1 to SLOTS */
	uint8_t leaf;  /* 0: nodes, 1: leaves */
};

struct u32vec {
	uint32_t *v;
	uint32_t n, cap;
};

/* One array's allocator: free blocks by size, then the untouched end. */
struct pool {
	uint32_t top;                 /* elements below top were handed out once */
	uint32_t used;                /* in live blocks */
	uint32_t pending;             /* in blocks waiting for a grace period */
	struct u32vec free[SLOTS + 1];
};

struct dpr_pt_rib {
	struct tnode *t;
	uint32_t t_n, t_cap, t_free; /* nodes handed out, allocated, free list head (0: none) */
	uint32_t t_used;

	struct pool nodes, leaves;
	/* Blocks unlinked, waiting for the grace period of token. */
	struct block *pend;
	uint32_t n_pend, cap_pend;
	uint64_t token;
	/* Tables replaced by bigger ones, freed with the pending blocks. */
	struct dpr_pt_tables **retired;
	uint32_t n_retired, cap_retired;

	/* Direct-pointing entries a batch changes, each once; forced: a
	 * change at or above the entry's depth, its subtree is rebuilt
	 * whole. */
	uint64_t dirty_bits[DP_SIZE / 64];
	uint64_t forced_bits[DP_SIZE / 64];
	uint32_t *dirty;
	uint32_t n_dirty;
	/* Trie nodes a batch marked (T_PATH, T_SUB), to clear after it. */
	struct u32vec marked;

	struct dpr_pt_route *walk;
	uint32_t walk_n, walk_cap;
	uint64_t walk_gen;
};

static int
vec_push(struct u32vec *v, uint32_t x)
{
	if (v->n == v->cap) {
		uint32_t cap = v->cap != 0 ? v->cap * 2 : 64;
		uint32_t *p = realloc(v->v, (size_t)cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

static inline dpr_u128
key_mask(unsigned int depth)
{
	return depth == 0 ? 0 : ~(dpr_u128)0 << (128 - depth);
}

static inline unsigned int
key_bit(dpr_u128 key, unsigned int d)
{
	return (unsigned int)(key >> (127 - d)) & 1;
}

static inline bool
t_route(const struct tnode *t)
{
	return (t->nh & T_ROUTE) != 0;
}

static inline bool
t_leafy(const struct tnode *t)
{
	return t->child[0] == 0 && t->child[1] == 0;
}

static uint32_t
t_alloc(struct dpr_pt_rib *r)
{
	uint32_t i;

	if (r->t_free != 0) {
		i = r->t_free;
		r->t_free = r->t[i].child[0];
	} else {
		if (r->t_n == r->t_cap) {
			uint32_t cap = r->t_cap * 2;
			struct tnode *p = realloc(r->t, (size_t)cap * sizeof(*p));

			if (p == NULL)
				return 0;
			r->t = p;
			r->t_cap = cap;
		}
		i = r->t_n++;
	}
	r->t[i] = (struct tnode){ { 0, 0 }, 0 };
	r->t_used++;
	return i;
}

static void
t_release(struct dpr_pt_rib *r, uint32_t i)
{
	r->t[i].child[0] = r->t_free;
	r->t_free = i;
	r->t_used--;
}

/* The node of (key, depth), or UINT32_MAX when the trie has none. */
static uint32_t
t_find(const struct dpr_pt_rib *r, dpr_u128 key, unsigned int depth)
{
	uint32_t i = 0;
	unsigned int d;

	for (d = 0; d < depth; d++) {
		i = r->t[i].child[key_bit(key, d)];
		if (i == 0)
			return UINT32_MAX;
	}
	return i;
}

/*
 * Remove the nodes of the path to (key, depth) that hold no route and have
 * no child, from the bottom up.
 */
static void
t_prune(struct dpr_pt_rib *r, dpr_u128 key, unsigned int depth)
{
	uint32_t path[129];
	unsigned int d;

	path[0] = 0;
	for (d = 0; d < depth; d++) {
		path[d + 1] = r->t[path[d]].child[key_bit(key, d)];
		if (path[d + 1] == 0)
			return;
	}
	for (d = depth; d > 0; d--) {
		struct tnode *t = &r->t[path[d]];

		if (t_route(t) || !t_leafy(t))
			return;
		r->t[path[d - 1]].child[key_bit(key, d - 1)] = 0;
		t_release(r, path[d]);
	}
}

/* Set the route of (key, depth), making its path. */
static int
t_set(struct dpr_pt_rib *r, dpr_u128 key, unsigned int depth, uint32_t nh)
{
	uint32_t i = 0;
	unsigned int d;

	for (d = 0; d < depth; d++) {
		unsigned int b = key_bit(key, d);
		uint32_t c = r->t[i].child[b];

		if (c == 0) {
			c = t_alloc(r);
			if (c == 0) {
				t_prune(r, key, depth);
				return -ENOMEM;
			}
			r->t[i].child[b] = c;
		}
		i = c;
	}
	r->t[i].nh = T_ROUTE | nh;
	return 0;
}

static void
t_clear(struct dpr_pt_rib *r, dpr_u128 key, unsigned int depth)
{
	uint32_t i = t_find(r, key, depth);

	r->t[i].nh = 0;
	t_prune(r, key, depth);
}

/* ---- the planner: one node's 64 slots from the trie ---- */

/* A node as it is to be: each slot's child (a trie node at off + 6 with
 * routes below it) or leaf value, and their compressed form. */
struct plan {
	uint64_t vector, leafvec;
	uint32_t nc, nl;
	uint64_t sub;           /* bit v: a change at or above slot v's child, below the node */
	const struct dpr_pt_node *old; /* the node it replaces (inc()), or NULL */
	uint32_t child[SLOTS];  /* trie node, for slots with a child */
	uint32_t inh[SLOTS];    /* a child's inherited next hop, or the slot's leaf */
	uint16_t leaf[SLOTS];   /* the runs' values, nl of them */
};

/* Whether every route strictly below trie node @p t has next hop @p nh. */
static bool
uniform(const struct dpr_pt_rib *r, uint32_t t, uint32_t nh)
{
	unsigned int b;

	for (b = 0; b < 2; b++) {
		uint32_t c = r->t[t].child[b];

		if (c == 0)
			continue;
		if (t_route(&r->t[c]) && (r->t[c].nh & T_NH) != nh)
			return false;
		if (!uniform(r, c, nh))
			return false;
	}
	return true;
}

/*
 * Fill slots [lo, lo + (SLOTS >> rel)) from trie node @p t at @p rel bits
 * below the node's offset, @p inh the longest match above it.
 */
static void
plan_fill(const struct dpr_pt_rib *r, uint32_t t, unsigned int rel, unsigned int lo,
	  uint32_t inh, bool sub, struct plan *p)
{
	unsigned int b, w = SLOTS >> rel, i;

	if (rel > 0 && t_route(&r->t[t]))
		inh = r->t[t].nh & T_NH;
	if (rel > 0 && (r->t[t].nh & T_SUB))
		sub = true;
	if (rel == DPR_PT_STRIDE) {
		p->inh[lo] = inh;
		/* A slot no change reached is a child as it was: uniform()
		 * walks the subtree, the old node knows. */
		if (p->old != NULL && !sub && !(r->t[t].nh & T_PATH))
			p->child[lo] = p->old->vector & (UINT64_C(1) << lo) ? t : 0;
		else
			p->child[lo] = !t_leafy(&r->t[t]) && !uniform(r, t, inh) ? t : 0;
		if (sub)
			p->sub |= UINT64_C(1) << lo;
		return;
	}
	for (b = 0; b < 2; b++) {
		uint32_t c = r->t[t].child[b];
		unsigned int first = lo + b * (w / 2);

		if (c != 0) {
			plan_fill(r, c, rel + 1, first, inh, sub, p);
			continue;
		}
		for (i = first; i < first + w / 2; i++) {
			p->inh[i] = inh;
			p->child[i] = 0;
		}
	}
}

/* The node for trie node @p t (at the node's offset), whose own route is
 * in @p inh already; @p old, if not NULL, the node it replaces (inc()). */
static void
plan_node(const struct dpr_pt_rib *r, uint32_t t, uint32_t inh, const struct dpr_pt_node *old,
	  struct plan *p)
{
	unsigned int v;
	uint32_t last = UINT32_MAX;

	p->sub = 0;
	p->old = old;
	plan_fill(r, t, 0, 0, inh, false, p);
	p->vector = p->leafvec = 0;
	p->nc = p->nl = 0;
	for (v = 0; v < SLOTS; v++) {
		if (p->child[v] != 0) {
			p->vector |= UINT64_C(1) << v;
			p->nc++;
		} else if (p->inh[v] != last) {
			last = p->inh[v];
			p->leafvec |= UINT64_C(1) << v;
			p->leaf[p->nl++] = (uint16_t)last;
		}
	}
}

/* Nodes and leaves the subtree of @p t (inherited @p inh) takes. */
static void
plan_size(const struct dpr_pt_rib *r, uint32_t t, uint32_t inh, uint64_t *nodes,
	  uint64_t *leaves)
{
	struct plan p;
	unsigned int v;

	plan_node(r, t, inh, NULL, &p);
	*nodes += 1;
	*leaves += p.nl;
	for (v = 0; v < SLOTS; v++)
		if (p.child[v] != 0)
			plan_size(r, p.child[v], p.inh[v], nodes, leaves);
}

/*
 * Where direct-pointing entry @p idx leads in the trie: its trie node at
 * depth DPR_PT_DP_BITS (0: none) and the longest match down to it.
 */
static uint32_t
entry_locate(const struct dpr_pt_rib *r, uint32_t idx, uint32_t *inh)
{
	uint32_t t = 0;
	unsigned int d;

	*inh = t_route(&r->t[0]) ? r->t[0].nh & T_NH : DPR_NH_NONE;
	for (d = 0; d < DPR_PT_DP_BITS; d++) {
		t = r->t[t].child[(idx >> (DPR_PT_DP_BITS - 1 - d)) & 1];
		if (t == 0)
			return 0;
		if (t_route(&r->t[t]))
			*inh = r->t[t].nh & T_NH;
	}
	return t_leafy(&r->t[t]) || uniform(r, t, *inh) ? 0 : t;
}

/* ---- the block allocator ---- */

static uint32_t
pool_alloc(struct pool *p, uint32_t size)
{
	uint32_t m, off;

	p->used += size;
	if (p->free[size].n > 0)
		return p->free[size].v[--p->free[size].n];
	for (m = size + 1; m <= SLOTS; m++) {
		if (p->free[m].n == 0)
			continue;
		off = p->free[m].v[--p->free[m].n];
		/* The rest goes back as a smaller block; the vector has room,
		 * a block of that size having been freed as often. */
		/* On no memory, the rest is lost to this pool (counted
		 * nowhere; the tables only ever grow past it). */
		(void)vec_push(&p->free[m - size], off + size);
		return off;
	}
	off = p->top;
	p->top += size;
	return off;
}

/* Unlinked: reused after a grace period (pt_reclaim()). */
static void
block_retire(struct dpr_pt_rib *r, uint32_t off, uint32_t size, bool leaf)
{
	struct pool *p = leaf ? &r->leaves : &r->nodes;

	p->used -= size;
	p->pending += size;
	if (r->n_pend == r->cap_pend) {
		uint32_t cap = r->cap_pend != 0 ? r->cap_pend * 2 : 256;
		struct block *b = realloc(r->pend, (size_t)cap * sizeof(*b));

		if (b == NULL) {
			/* Leaked until the tables are rebuilt; never reused
			 * early. */
			p->pending -= size;
			return;
		}
		r->pend = b;
		r->cap_pend = cap;
	}
	r->pend[r->n_pend++] = (struct block){ off, (uint8_t)size, leaf };
}

/* Retire the blocks of the subtree under node @p i (not @p i itself). */
static void
subtree_retire(struct dpr_pt_rib *r, const struct dpr_pt_tables *t, uint32_t i)
{
	const struct dpr_pt_node *n = &t->nodes[i];
	uint32_t nc = (uint32_t)__builtin_popcountll(n->vector);
	uint32_t nl = (uint32_t)__builtin_popcountll(n->leafvec);
	uint32_t j;

	if (nl > 0)
		block_retire(r, n->base0, nl, true);
	for (j = 0; j < nc; j++)
		subtree_retire(r, t, n->base1 + j);
	if (nc > 0)
		block_retire(r, n->base1, nc, false);
}

/* The pending blocks and retired tables, once no reader can hold them. */
static void
pt_reclaim(struct dpr_poptrie *pt, bool wait)
{
	struct dpr_pt_rib *r = pt->rib;
	uint32_t i;

	if (r->n_pend == 0 && r->n_retired == 0)
		return;
	if (pt->qsbr != NULL) {
		if (wait) {
			rte_rcu_qsbr_synchronize(pt->qsbr, RTE_QSBR_THRID_INVALID);
			pt->grace_periods++;
		} else if (rte_rcu_qsbr_check(pt->qsbr, r->token, false) != 1) {
			return;
		}
	}
	for (i = 0; i < r->n_pend; i++) {
		struct block *b = &r->pend[i];
		struct pool *p = b->leaf ? &r->leaves : &r->nodes;

		p->pending -= b->size;
		if (vec_push(&p->free[b->size], b->off) < 0)
			continue; /* lost until the tables grow */
	}
	r->n_pend = 0;
	for (i = 0; i < r->n_retired; i++) {
		rte_free(r->retired[i]->dp);
		rte_free(r->retired[i]->nodes);
		rte_free(r->retired[i]->leaves);
		rte_free(r->retired[i]);
	}
	r->n_retired = 0;
}

static struct dpr_pt_tables *
tables_alloc(const struct dpr_poptrie *pt, uint32_t node_cap, uint32_t leaf_cap)
{
	int socket = pt->conf.socket < 0 ? SOCKET_ID_ANY : pt->conf.socket;
	struct dpr_pt_tables *t;

	t = rte_zmalloc_socket("dpr_pt_tables", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL)
		return NULL;
	t->dp = rte_malloc_socket("dpr_pt_dp", DP_SIZE * sizeof(*t->dp), RTE_CACHE_LINE_SIZE,
				  socket);
	t->nodes = rte_malloc_socket("dpr_pt_nodes", (size_t)node_cap * sizeof(*t->nodes),
				     RTE_CACHE_LINE_SIZE, socket);
	t->leaves = rte_malloc_socket("dpr_pt_leaves", (size_t)leaf_cap * sizeof(*t->leaves),
				      RTE_CACHE_LINE_SIZE, socket);
	if (t->dp == NULL || t->nodes == NULL || t->leaves == NULL) {
		rte_free(t->dp);
		rte_free(t->nodes);
		rte_free(t->leaves);
		rte_free(t);
		return NULL;
	}
	t->node_cap = node_cap;
	t->leaf_cap = leaf_cap;
	return t;
}

static uint32_t
grown(uint32_t cap, uint64_t need)
{
	uint64_t c = cap;

	while (c < need)
		c += c / 2 > 1024 ? c / 2 : 1024;
	return c > UINT32_MAX / 2 ? 0 : (uint32_t)c;
}

/*
 * Room for @p nodes nodes and @p leaves leaves past the pools' tops: when
 * the arrays lack it, bigger ones take a copy of everything and are
 * published; the old ones are retired.
 */
static int
pt_reserve(struct dpr_poptrie *pt, uint64_t nodes, uint64_t leaves)
{
	struct dpr_pt_rib *r = pt->rib;
	const struct dpr_pt_tables *old = pt->tables;
	struct dpr_pt_tables *t;
	uint32_t nc, lc;

	if (r->nodes.top + nodes <= old->node_cap && r->leaves.top + leaves <= old->leaf_cap)
		return 0;
	nc = grown(old->node_cap, r->nodes.top + nodes);
	lc = grown(old->leaf_cap, r->leaves.top + leaves);
	if (nc == 0 || lc == 0)
		return -ENOMEM;
	if (r->n_retired == r->cap_retired) {
		uint32_t cap = r->cap_retired != 0 ? r->cap_retired * 2 : 4;
		struct dpr_pt_tables **p = realloc(r->retired, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		r->retired = p;
		r->cap_retired = cap;
	}
	t = tables_alloc(pt, nc, lc);
	if (t == NULL) {
		DPR_LOG(ERR, fib, "%s poptrie: no memory to grow to %u nodes and %u leaves (%.1f MiB)",
			pt->conf.name, nc, lc,
			(double)((uint64_t)nc * sizeof(struct dpr_pt_node) + (uint64_t)lc * 2) /
			(1 << 20));
		return -ENOMEM;
	}
	memcpy(t->dp, old->dp, DP_SIZE * sizeof(*t->dp));
	memcpy(t->nodes, old->nodes, (size_t)r->nodes.top * sizeof(*t->nodes));
	memcpy(t->leaves, old->leaves, (size_t)r->leaves.top * sizeof(*t->leaves));
	__atomic_store_n(&pt->tables, t, __ATOMIC_RELEASE);
	r->retired[r->n_retired++] = (struct dpr_pt_tables *)(uintptr_t)old;
	return 0;
}

/* ---- building ---- */

/* Write the node for trie node @p tn (inherited @p inh) at @p dst, and its
 * subtree. Room was reserved (pt_reserve()). */
static void
build(struct dpr_pt_rib *r, struct dpr_pt_tables *t, uint32_t dst, uint32_t tn, uint32_t inh)
{
	struct plan p;
	struct dpr_pt_node n;
	unsigned int v, j = 0;

	plan_node(r, tn, inh, NULL, &p);
	n.vector = p.vector;
	n.leafvec = p.leafvec;
	n.base0 = 0;
	n.base1 = 0;
	if (p.nl > 0) {
		n.base0 = pool_alloc(&r->leaves, p.nl);
		memcpy(&t->leaves[n.base0], p.leaf, p.nl * sizeof(*p.leaf));
	}
	if (p.nc > 0) {
		n.base1 = pool_alloc(&r->nodes, p.nc);
		for (v = 0; v < SLOTS; v++)
			if (p.child[v] != 0)
				build(r, t, n.base1 + j++, p.child[v], p.inh[v]);
	}
	t->nodes[dst] = n;
}

/* The child of node @p n at slot @p v, which has one. */
static inline uint32_t
node_child(const struct dpr_pt_node *n, unsigned int v)
{
	return n->base1 + (uint32_t)__builtin_popcountll(dpr_pt_upto(n->vector, v)) - 1;
}

/* What a rebuild takes from the pools (count mode of inc()). */
struct need {
	uint64_t nodes, leaves;
};

/*
 * The incremental update (the paper's): the node for trie node @p tn
 * (inherited @p inh) at @p dst, replacing node @p old of tables @p t, whose
 * subtree a batch changed below its own prefix (T_PATH, no T_SUB). It gets
 * new leaf and child blocks; a child whose trie subtree no change touched
 * keeps its subtree (its node is copied, its blocks stay); one with a
 * change below it is rebuilt this way in turn; one under a changed prefix
 * (T_SUB, which may change every answer below it) is built whole. The
 * blocks it no longer uses are retired.
 * Count mode (@p need not NULL): writes nothing, adds what it would take.
 */
static void
inc(struct dpr_pt_rib *r, struct dpr_pt_tables *t, uint32_t dst, uint32_t old, uint32_t tn,
    uint32_t inh, struct need *need)
{
	const struct dpr_pt_node on = t->nodes[old];
	uint64_t done = 0, left;
	struct dpr_pt_node n;
	struct plan p;
	unsigned int v, j = 0;
	uint32_t oc, c;

	plan_node(r, tn, inh, &on, &p);
	if (need != NULL) {
		need->leaves += p.nl;
		need->nodes += p.nc;
	} else {
		n = (struct dpr_pt_node){ .vector = p.vector, .leafvec = p.leafvec };
		if (p.nl > 0) {
			n.base0 = pool_alloc(&r->leaves, p.nl);
			memcpy(&t->leaves[n.base0], p.leaf, p.nl * sizeof(*p.leaf));
		}
		if (p.nc > 0)
			n.base1 = pool_alloc(&r->nodes, p.nc);
	}
	for (v = 0; v < SLOTS; v++) {
		if (!(p.vector & (UINT64_C(1) << v)))
			continue;
		c = p.child[v];
		oc = on.vector & (UINT64_C(1) << v) ? node_child(&on, v) : UINT32_MAX;
		if (oc == UINT32_MAX || (p.sub & (UINT64_C(1) << v))) {
			if (need != NULL) {
				plan_size(r, c, p.inh[v], &need->nodes, &need->leaves);
				need->nodes--; /* the node itself is in this block */
			} else {
				build(r, t, n.base1 + j, c, p.inh[v]);
			}
		} else if (r->t[c].nh & T_PATH) {
			inc(r, t, need != NULL ? 0 : n.base1 + j, oc, c, p.inh[v], need);
			done |= UINT64_C(1) << v;
		} else {
			if (need == NULL)
				t->nodes[n.base1 + j] = t->nodes[oc];
			done |= UINT64_C(1) << v;
		}
		j++;
	}
	if (need != NULL)
		return;
	t->nodes[dst] = n;
	/* The old children not kept or rebuilt in place go whole. */
	for (left = on.vector & ~done; left != 0; left &= left - 1)
		subtree_retire(r, t, node_child(&on, (unsigned int)__builtin_ctzll(left)));
	if (on.leafvec != 0)
		block_retire(r, on.base0, (uint32_t)__builtin_popcountll(on.leafvec), true);
	if (on.vector != 0)
		block_retire(r, on.base1, (uint32_t)__builtin_popcountll(on.vector), false);
}

/*
 * Rebuild direct-pointing entry @p idx from the trie and publish it:
 * incrementally (inc()) unless a change at or above its depth forced it
 * whole. Count mode (@p need not NULL): only add what it would take.
 */
static void
entry_rebuild(struct dpr_pt_rib *r, struct dpr_pt_tables *t, uint32_t idx, struct need *need)
{
	uint32_t inh, tn = entry_locate(r, idx, &inh), old = t->dp[idx], e;
	bool forced = (r->forced_bits[idx >> 6] >> (idx & 63)) & 1;

	if (tn == 0) {
		e = DPR_PT_LEAF | inh;
		if (e == old || need != NULL)
			return;
	} else if (need != NULL) {
		if (forced || (old & DPR_PT_LEAF)) {
			plan_size(r, tn, inh, &need->nodes, &need->leaves);
		} else {
			need->nodes++;
			inc(r, t, 0, old, tn, inh, need);
		}
		return;
	} else {
		e = pool_alloc(&r->nodes, 1);
		if (forced || (old & DPR_PT_LEAF)) {
			build(r, t, e, tn, inh);
		} else {
			inc(r, t, e, old, tn, inh, NULL);
			/* inc() retired what the old root held, not itself. */
			__atomic_store_n(&t->dp[idx], e, __ATOMIC_RELEASE);
			block_retire(r, old, 1, false);
			return;
		}
	}
	/* Release: the subtree's blocks were written before (poptrie.h). */
	__atomic_store_n(&t->dp[idx], e, __ATOMIC_RELEASE);
	if (!(old & DPR_PT_LEAF)) {
		subtree_retire(r, t, old);
		block_retire(r, old, 1, false);
	}
}

/* ---- the update driver ---- */

/*
 * After a change of (key, depth) went into the trie: the direct-pointing
 * entries under it are dirty (forced when the change is at or above their
 * depth), and the trie nodes on its path are marked for inc(). A failed
 * mark (no memory) forces the entry instead, which needs none.
 */
static void
mark_dirty(struct dpr_pt_rib *r, dpr_u128 key, unsigned int depth)
{
	uint32_t first = (uint32_t)(key >> (128 - DPR_PT_DP_BITS));
	uint32_t count = depth >= DPR_PT_DP_BITS ? 1 : 1u << (DPR_PT_DP_BITS - depth);
	bool forced = depth <= DPR_PT_DP_BITS;
	uint32_t i = 0;
	unsigned int d;

	for (d = 0; !forced; d++) {
		if (!(r->t[i].nh & (T_PATH | T_SUB)) && vec_push(&r->marked, i) < 0)
			forced = true;
		r->t[i].nh |= T_PATH;
		if (d == depth) {
			r->t[i].nh |= T_SUB;
			break;
		}
		i = r->t[i].child[key_bit(key, d)];
		if (i == 0)
			break;
	}
	for (i = first; i < first + count; i++) {
		uint64_t bit = UINT64_C(1) << (i & 63);

		if (forced)
			r->forced_bits[i >> 6] |= bit;
		if (r->dirty_bits[i >> 6] & bit)
			continue;
		r->dirty_bits[i >> 6] |= bit;
		r->dirty[r->n_dirty++] = i;
	}
}

static int
op_apply(struct dpr_poptrie *pt, struct dpr_pt_op *op)
{
	struct dpr_pt_rib *r = pt->rib;
	unsigned int depth = op->depth;
	dpr_u128 key;
	uint32_t i;
	int ret;

	if (depth > pt->conf.key_bits)
		return -EINVAL;
	key = op->key & key_mask(depth);
	i = t_find(r, key, depth);
	op->existed = i != UINT32_MAX && t_route(&r->t[i]);
	op->old_nh = op->existed ? r->t[i].nh & T_NH : 0;
	if (op->del) {
		if (!op->existed)
			return -ENOENT;
		t_clear(r, key, depth);
		pt->n_routes--;
	} else {
		if (op->nh > DPR_PT_NH_MAX)
			return -EINVAL;
		if (!op->existed && pt->n_routes >= pt->conf.max_routes)
			return -ENOMEM;
		ret = t_set(r, key, depth, op->nh);
		if (ret < 0)
			return ret;
		if (!op->existed)
			pt->n_routes++;
	}
	mark_dirty(r, key, depth);
	return 0;
}

/* Undo an applied op in the trie (its entries are rebuilt after). */
static void
op_undo(struct dpr_poptrie *pt, const struct dpr_pt_op *op)
{
	struct dpr_pt_rib *r = pt->rib;
	dpr_u128 key = op->key & key_mask(op->depth);

	if (op->existed) {
		/* The path's nodes went to the free list: no allocation fails. */
		(void)t_set(r, key, op->depth, op->old_nh);
		if (op->del)
			pt->n_routes++;
	} else {
		t_clear(r, key, op->depth);
		pt->n_routes--;
	}
}

static void
dirty_clear(struct dpr_pt_rib *r)
{
	uint32_t k;

	for (k = 0; k < r->n_dirty; k++) {
		r->dirty_bits[r->dirty[k] >> 6] = 0;
		r->forced_bits[r->dirty[k] >> 6] = 0;
	}
	r->n_dirty = 0;
	/* Nodes released since keep no marks that matter: t_alloc()
	 * clears a node it hands out again. */
	for (k = 0; k < r->marked.n; k++)
		r->t[r->marked.v[k]].nh &= ~(T_PATH | T_SUB);
	r->marked.n = 0;
}

unsigned int
dpr_pt_update(struct dpr_poptrie *pt, struct dpr_pt_op *ops, unsigned int n, int *err)
{
	struct dpr_pt_rib *r = pt->rib;
	struct dpr_pt_tables *t;
	struct need need = { 0, 0 };
	bool replaced = false;
	unsigned int done, k;
	int ret = 0;

	pt_reclaim(pt, false);
	for (done = 0; done < n; done++) {
		ret = op_apply(pt, &ops[done]);
		if (ret < 0)
			break;
		replaced |= ops[done].existed;
	}
	*err = ret;
	if (done == 0)
		return 0;
	t = (struct dpr_pt_tables *)(uintptr_t)pt->tables;
	for (k = 0; k < r->n_dirty; k++)
		entry_rebuild(r, t, r->dirty[k], &need);
	/* Every entry's new blocks are fresh: the old ones are unlinked
	 * only after it is published. */
	if (pt_reserve(pt, need.nodes, need.leaves) < 0) {
		while (done > 0)
			op_undo(pt, &ops[--done]);
		dirty_clear(r);
		*err = -ENOMEM;
		return 0;
	}
	t = (struct dpr_pt_tables *)(uintptr_t)pt->tables;
	for (k = 0; k < r->n_dirty; k++)
		entry_rebuild(r, t, r->dirty[k], NULL);
	dirty_clear(r);
	pt->gen += done;
	/* No worker may still hold a next hop a route replaced or deleted
	 * when the caller frees it: wait now. Otherwise the unlinked blocks
	 * wait for a grace period that starts here, checked at the next
	 * update. */
	if (replaced && pt->qsbr != NULL) {
		/* Even when the batch unlinked no block (a short route with
		 * nothing below it): the caller frees the old next hops. */
		rte_rcu_qsbr_synchronize(pt->qsbr, RTE_QSBR_THRID_INVALID);
		pt->grace_periods++;
		pt_reclaim(pt, false);
	} else if (replaced)
		pt_reclaim(pt, true);
	else if ((r->n_pend > 0 || r->n_retired > 0) && pt->qsbr != NULL)
		r->token = rte_rcu_qsbr_start(pt->qsbr);
	else
		pt_reclaim(pt, true);
	return done;
}

/* ---- create, free ---- */

struct dpr_poptrie *
dpr_pt_create(const struct dpr_poptrie_conf *conf, struct rte_rcu_qsbr *qsbr)
{
	struct dpr_poptrie *pt;
	struct dpr_pt_tables *t;
	uint32_t i;

	if (conf->key_bits != 32 && conf->key_bits != 128) {
		errno = EINVAL;
		return NULL;
	}
	/* Aligned: workers read the first line, the control thread writes
	 * the others. */
	pt = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sizeof(*pt), RTE_CACHE_LINE_SIZE));
	if (pt == NULL)
		goto nomem;
	memset(pt, 0, sizeof(*pt));
	pt->conf = *conf;
	pt->qsbr = qsbr;
	pt->gen = 1;
	pt->rib = calloc(1, sizeof(*pt->rib));
	if (pt->rib == NULL)
		goto nomem;
	pt->rib->t_cap = 4096;
	pt->rib->t = malloc(pt->rib->t_cap * sizeof(*pt->rib->t));
	pt->rib->dirty = malloc(DP_SIZE * sizeof(*pt->rib->dirty));
	if (pt->rib->t == NULL || pt->rib->dirty == NULL)
		goto nomem;
	pt->rib->t[0] = (struct tnode){ { 0, 0 }, 0 };
	pt->rib->t_n = 1;
	pt->rib->t_used = 1;
	t = tables_alloc(pt, NODES_MIN, LEAVES_MIN);
	if (t == NULL)
		goto nomem;
	for (i = 0; i < DP_SIZE; i++)
		t->dp[i] = DPR_PT_LEAF | DPR_NH_NONE;
	pt->tables = t;
	return pt;
nomem:
	dpr_pt_free(pt);
	errno = ENOMEM;
	return NULL;
}

void
dpr_pt_free(struct dpr_poptrie *pt)
{
	struct dpr_pt_rib *r;
	unsigned int s;

	if (pt == NULL)
		return;
	r = pt->rib;
	if (r != NULL) {
		r->token = 0;
		pt->qsbr = NULL;
		pt_reclaim(pt, true);
		for (s = 0; s <= SLOTS; s++) {
			free(r->nodes.free[s].v);
			free(r->leaves.free[s].v);
		}
		free(r->t);
		free(r->dirty);
		free(r->marked.v);
		free(r->pend);
		free(r->retired);
		free(r->walk);
		free(r);
	}
	if (pt->tables != NULL) {
		rte_free(pt->tables->dp);
		rte_free(pt->tables->nodes);
		rte_free(pt->tables->leaves);
		rte_free((void *)(uintptr_t)pt->tables);
	}
	free(pt);
}

/* ---- reading the routes ---- */

int
dpr_pt_get(const struct dpr_poptrie *pt, dpr_u128 key, uint8_t depth, uint32_t *nh)
{
	uint32_t i;

	if (depth > pt->conf.key_bits)
		return -ENOENT;
	i = t_find(pt->rib, key & key_mask(depth), depth);
	if (i == UINT32_MAX || !t_route(&pt->rib->t[i]))
		return -ENOENT;
	*nh = pt->rib->t[i].nh & T_NH;
	return 0;
}

int
dpr_pt_lpm(const struct dpr_poptrie *pt, dpr_u128 key, dpr_u128 *prefix, uint8_t *depth,
	   uint32_t *nh)
{
	const struct dpr_pt_rib *r = pt->rib;
	uint32_t i = 0;
	unsigned int d;
	int ret = -ENOENT;

	for (d = 0;; d++) {
		if (t_route(&r->t[i])) {
			*depth = (uint8_t)d;
			*nh = r->t[i].nh & T_NH;
			*prefix = key & key_mask(d);
			ret = 0;
		}
		if (d == pt->conf.key_bits)
			break;
		i = r->t[i].child[key_bit(key, d)];
		if (i == 0)
			break;
	}
	return ret;
}

static int
walk_build(struct dpr_poptrie *pt)
{
	struct dpr_pt_rib *r = pt->rib;
	struct { uint32_t t; uint8_t depth; dpr_u128 key; } stack[2 * 129 + 2];
	unsigned int sp = 0;
	uint32_t n = 0;

	if (r->walk_cap < pt->n_routes || r->walk == NULL) {
		uint32_t cap = pt->n_routes + pt->n_routes / 8 + 64;
		struct dpr_pt_route *w = realloc(r->walk, (size_t)cap * sizeof(*w));

		if (w == NULL)
			return -ENOMEM;
		r->walk = w;
		r->walk_cap = cap;
	}
	/* Pre-order, 0 before 1: ascending (key, depth). */
	stack[sp].t = 0;
	stack[sp].depth = 0;
	stack[sp++].key = 0;
	while (sp > 0) {
		uint32_t t = stack[--sp].t;
		uint8_t d = stack[sp].depth;
		dpr_u128 key = stack[sp].key;
		int b;

		if (t_route(&r->t[t]))
			r->walk[n++] = (struct dpr_pt_route){ key, d, r->t[t].nh & T_NH };
		for (b = 1; b >= 0; b--) {
			uint32_t c = r->t[t].child[b];

			if (c == 0)
				continue;
			stack[sp].t = c;
			stack[sp].depth = (uint8_t)(d + 1);
			stack[sp++].key = key | (dpr_u128)b << (127 - d);
		}
	}
	r->walk_n = n;
	r->walk_gen = pt->gen;
	return 0;
}

int
dpr_pt_walk(struct dpr_poptrie *pt, bool after, dpr_u128 key, uint8_t depth,
	    const struct dpr_pt_route **routes, uint32_t *n, uint32_t *from)
{
	struct dpr_pt_rib *r = pt->rib;
	uint32_t lo = 0, hi;

	if (r->walk_gen != pt->gen && walk_build(pt) < 0)
		return -ENOMEM;
	hi = r->walk_n;
	if (after) {
		key &= key_mask(depth > 128 ? 128 : depth);
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			const struct dpr_pt_route *w = &r->walk[mid];

			if (w->key < key || (w->key == key && w->depth <= depth))
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	*routes = r->walk;
	*n = r->walk_n;
	*from = lo;
	return 0;
}

uint64_t
dpr_pt_memory(const struct dpr_poptrie *pt)
{
	const struct dpr_pt_tables *t = pt->tables;

	return sizeof(*t) + DP_SIZE * sizeof(*t->dp) +
		(uint64_t)t->node_cap * sizeof(*t->nodes) +
		(uint64_t)t->leaf_cap * sizeof(*t->leaves);
}

uint64_t
dpr_pt_control_memory(const struct dpr_poptrie *pt)
{
	const struct dpr_pt_rib *r = pt->rib;
	uint64_t b = sizeof(*pt) + sizeof(*r) + (uint64_t)r->t_cap * sizeof(*r->t) +
		DP_SIZE * sizeof(*r->dirty) + (uint64_t)r->cap_pend * sizeof(*r->pend) +
		(uint64_t)r->walk_cap * sizeof(*r->walk);
	unsigned int s;

	for (s = 0; s <= SLOTS; s++)
		b += ((uint64_t)r->nodes.free[s].cap + r->leaves.free[s].cap) * sizeof(uint32_t);
	return b;
}

void
dpr_pt_usage(const struct dpr_poptrie *pt, uint32_t *nodes, uint32_t *leaves)
{
	*nodes = pt->rib->nodes.used;
	*leaves = pt->rib->leaves.used;
}

/* ---- the check ---- */

struct check {
	const struct dpr_poptrie *pt;
	const struct dpr_pt_tables *t;
	uint64_t nodes, leaves;
	int bad;
};

static void
check_node(struct check *c, uint32_t i, uint32_t tn, uint32_t inh, uint32_t where)
{
	const struct dpr_pt_rib *r = c->pt->rib;
	const struct dpr_pt_node *n;
	struct plan p;
	unsigned int v, j = 0;

	if (i >= c->t->node_cap) {
		DPR_LOG(ERR, fib, "poptrie check: entry %u: node %u past the array", where, i);
		c->bad++;
		return;
	}
	n = &c->t->nodes[i];
	plan_node(r, tn, inh, NULL, &p);
	c->nodes++;
	c->leaves += p.nl;
	if (n->vector != p.vector || n->leafvec != p.leafvec) {
		DPR_LOG(ERR, fib, "poptrie check: entry %u: node %u has vectors %#" PRIx64 "/%#" PRIx64
			", the trie says %#" PRIx64 "/%#" PRIx64, where, i, n->vector, n->leafvec,
			p.vector, p.leafvec);
		c->bad++;
		return;
	}
	for (v = 0; v < SLOTS; v++) {
		uint64_t upto = (UINT64_C(2) << v) - 1;

		if (p.child[v] != 0) {
			check_node(c, n->base1 + j++, p.child[v], p.inh[v], where);
		} else if (c->t->leaves[n->base0 +
			   (uint32_t)__builtin_popcountll(n->leafvec & upto) - 1] != p.inh[v]) {
			DPR_LOG(ERR, fib, "poptrie check: entry %u: node %u slot %u has another leaf than %u",
				where, i, v, p.inh[v]);
			c->bad++;
		}
	}
}

int
dpr_pt_check(const struct dpr_poptrie *pt)
{
	const struct dpr_pt_rib *r = pt->rib;
	struct check c = { .pt = pt, .t = pt->tables };
	uint32_t idx;

	for (idx = 0; idx < DP_SIZE && c.bad < 10; idx++) {
		uint32_t inh, tn = entry_locate(r, idx, &inh), e = c.t->dp[idx];

		if (tn == 0) {
			if (e != (DPR_PT_LEAF | inh)) {
				DPR_LOG(ERR, fib, "poptrie check: entry %u is %#x, the trie says leaf %u",
					idx, e, inh);
				c.bad++;
			}
		} else if (e & DPR_PT_LEAF) {
			DPR_LOG(ERR, fib, "poptrie check: entry %u is a leaf, the trie has a subtree", idx);
			c.bad++;
		} else {
			check_node(&c, e, tn, inh, idx);
		}
	}
	if (c.bad == 0 && (c.nodes != r->nodes.used || c.leaves != r->leaves.used)) {
		DPR_LOG(ERR, fib, "poptrie check: %" PRIu64 " nodes and %" PRIu64 " leaves reachable, the allocator counts %u and %u in use",
			c.nodes, c.leaves, r->nodes.used, r->leaves.used);
		c.bad++;
	}
	if (c.bad == 0 && (r->nodes.top > c.t->node_cap || r->leaves.top > c.t->leaf_cap)) {
		DPR_LOG(ERR, fib, "poptrie check: the pools' tops pass the arrays");
		c.bad++;
	}
	return c.bad == 0 ? 0 : -EFAULT;
}
