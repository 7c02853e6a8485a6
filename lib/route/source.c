/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include <rte_common.h>
#include <rte_jhash.h>

#include "route.h"
#include "source.h"

/*
 * The table: prefixes hashed into chains of entries that live in one
 * array (indices, not pointers, so the array can grow with realloc()).
 * Entry 0 is never used: index 0 ends a chain. Freed entries are chained
 * on a free list through next.
 *
 * References (the rule is route.h's): each candidate holds one on its next
 * hop, and the FIB one on what it holds (dpr_route_fib_apply() drops it
 * after the grace period that follows a replace or a delete). The
 * installed candidate's two are one (fib_src), so that a route counts once
 * in a next hop's "refs": its candidate gives its reference to the FIB op
 * that installs it, and takes one back only if it stays a candidate when
 * another replaces it there. An op the FIB does not apply leaves every
 * reference where it was.
 *
 * The router's own routes (route.h: addresses, neighbours) go through
 * dpr_route_src_router_apply(), so that this table knows, rather than
 * guesses from next-hop indices, which FIB entries are the router's
 * ("router"): the candidates of such a prefix wait under it, not
 * installed, and the most preferred comes back in the op that deletes the
 * router's route.
 */
struct src_entry {
	struct dpr_prefix pf;
	uint32_t next;               /**< chain (or free list) */
	uint32_t nh[DPR_RSRC_MAX];   /**< each candidate's next hop (a reference) */
	uint32_t fib_nh;             /**< what the FIB holds, when in_fib */
	uint32_t dirty_gen;          /**< batch that last touched it */
	uint8_t proto[DPR_RSRC_MAX];
	uint8_t have;                /**< bit s: source s holds a candidate */
	uint8_t stale;               /**< bit s: that candidate is stale */
	uint8_t in_fib;              /**< the FIB holds fib_nh for it, from us */
	/**
	 * The source whose candidate's reference is the FIB's (DPR_RSRC_MAX:
	 * none, the FIB holds its own): a route costs its next hop one
	 * reference, as before there were sources.
	 */
	uint8_t fib_src;
	uint8_t router;              /**< the FIB holds the router's own route (in_fib 0) */
	uint8_t waiting;             /**< in the waiting list: the FIB had no room */
	int8_t fib_err;              /**< why the FIB last refused the winner (-errno) */
	uint8_t live;
};

struct dpr_route_srcs {
	uint32_t *buckets;       /**< heads of chains; n_buckets a power of 2 */
	uint32_t n_buckets;
	struct src_entry *e;     /**< e[0] unused */
	uint32_t n_alloc;        /**< entries allocated in e */
	uint32_t n_used;         /**< entries ever handed out (high-water mark) */
	uint32_t free_head;
	uint32_t count;          /**< live entries */
	uint32_t gen;            /**< batch number (dirty_gen) */
	uint32_t *touched;       /**< entries a batch changed */
	uint32_t n_touched_alloc;
	/**
	 * Entries whose change the FIB refused (full), oldest first: retried
	 * when a later batch frees room. May hold entries since installed,
	 * erased or reused: a retry looks at what each entry is then.
	 */
	uint32_t *waiting;
	uint32_t n_waiting;
	uint32_t n_waiting_alloc;
	dpr_route_yield_fn yield;  /**< dpr_route_srcs_set_yield() */
	void *yield_ctx;
};

static const char *const src_names[DPR_RSRC_MAX] = {
	[DPR_RSRC_CONFIG] = "config",
	[DPR_RSRC_API] = "api",
	[DPR_RSRC_FPM] = "fpm",
	[DPR_RSRC_KERNEL] = "kernel",
};

const char *
dpr_route_src_name(enum dpr_route_src s)
{
	return (unsigned int)s < DPR_RSRC_MAX ? src_names[s] : "?";
}

int
dpr_route_src_parse(const char *name)
{
	unsigned int s;

	for (s = 0; s < DPR_RSRC_MAX; s++)
		if (strcmp(name, src_names[s]) == 0)
			return (int)s;
	return -EINVAL;
}

const char *
dpr_route_proto_name(uint8_t proto)
{
	/* linux/rtnetlink.h; zebra's own values from FRR lib/route_types.h
	 * (rt_netlink.h: RTPROT_ZEBRA and above). */
	switch (proto) {
	case RTPROT_UNSPEC: return NULL;
	case RTPROT_REDIRECT: return "redirect";
	case RTPROT_KERNEL: return "kernel";
	case RTPROT_BOOT: return "boot";
	case RTPROT_STATIC: return "static";
	case RTPROT_ZEBRA: return "zebra";
	case RTPROT_BIRD: return "bird";
	case RTPROT_RA: return "ra";
	case RTPROT_DHCP: return "dhcp";
	case RTPROT_KEEPALIVED: return "keepalived";
	case RTPROT_BABEL: return "babel";
	case RTPROT_BGP: return "bgp";
	case RTPROT_ISIS: return "isis";
	case RTPROT_OSPF: return "ospf";
	case RTPROT_RIP: return "rip";
	case RTPROT_EIGRP: return "eigrp";
	case 193: return "ldp";
	case 194: return "sharp";
	case 195: return "pbr";
	case 196: return "static";   /* FRR staticd (RTPROT_ZSTATIC) */
	case 197: return "openfabric";
	case 198: return "srte";
	default: return NULL;
	}
}

struct dpr_route_srcs *
dpr_route_srcs_create(void)
{
	struct dpr_route_srcs *t = calloc(1, sizeof(*t));

	if (t == NULL)
		goto fail;
	t->n_buckets = 1024;
	t->buckets = calloc(t->n_buckets, sizeof(*t->buckets));
	t->n_alloc = 1024;
	t->e = calloc(t->n_alloc, sizeof(*t->e));
	if (t->buckets == NULL || t->e == NULL)
		goto fail;
	t->n_used = 1;
	return t;
fail:
	if (t != NULL) {
		free(t->buckets);
		free(t->e);
		free(t);
	}
	errno = ENOMEM;
	return NULL;
}

void
dpr_route_srcs_free(struct dpr_route_srcs *t, struct dpr_nh_table *nh)
{
	uint32_t i;
	unsigned int s;

	if (t == NULL)
		return;
	for (i = 1; i < t->n_used && nh != NULL; i++)
		for (s = 0; s < DPR_RSRC_MAX; s++)
			if (t->e[i].live && (t->e[i].have & (1u << s)) && t->e[i].fib_src != s)
				dpr_nh_put(nh, t->e[i].nh[s]);
	free(t->buckets);
	free(t->e);
	free(t->touched);
	free(t->waiting);
	free(t);
}

/* The prefix as hashed and compared: family, length and the address
 * bytes that count (an IPv4 prefix's unused union bytes never do). */
static uint32_t
pf_hash(const struct dpr_prefix *pf)
{
	if (pf->addr.af == DPR_AF_IP4)
		return rte_jhash_2words(pf->addr.ip4, pf->len, DPR_AF_IP4);
	return rte_jhash(pf->addr.ip6, 16, (uint32_t)pf->len << 8 | DPR_AF_IP6);
}

static bool
pf_equal(const struct dpr_prefix *a, const struct dpr_prefix *b)
{
	return a->len == b->len && dpr_ip_equal(&a->addr, &b->addr);
}

static uint32_t
find(const struct dpr_route_srcs *t, const struct dpr_prefix *pf, uint32_t h)
{
	uint32_t i;

	for (i = t->buckets[h & (t->n_buckets - 1)]; i != 0; i = t->e[i].next)
		if (pf_equal(&t->e[i].pf, pf))
			return i;
	return 0;
}

/* Double the buckets when chains would average over one entry. */
static int
grow_buckets(struct dpr_route_srcs *t)
{
	uint32_t n = t->n_buckets * 2, i;
	uint32_t *b = calloc(n, sizeof(*b));

	if (b == NULL)
		return -ENOMEM;
	for (i = 1; i < t->n_used; i++) {
		uint32_t k;

		if (!t->e[i].live)
			continue;
		k = pf_hash(&t->e[i].pf) & (n - 1);
		t->e[i].next = b[k];
		b[k] = i;
	}
	free(t->buckets);
	t->buckets = b;
	t->n_buckets = n;
	return 0;
}

/* A new entry for @p pf; 0 when out of memory. */
static uint32_t
insert(struct dpr_route_srcs *t, const struct dpr_prefix *pf)
{
	uint32_t i, k;

	if (t->count + 1 > t->n_buckets && grow_buckets(t) < 0)
		return 0;
	if (t->free_head != 0) {
		i = t->free_head;
		t->free_head = t->e[i].next;
	} else {
		if (t->n_used == t->n_alloc) {
			uint32_t n = t->n_alloc * 2;
			struct src_entry *e = realloc(t->e, n * sizeof(*e));

			if (e == NULL)
				return 0;
			t->e = e;
			t->n_alloc = n;
		}
		i = t->n_used++;
	}
	memset(&t->e[i], 0, sizeof(t->e[i]));
	t->e[i].pf = *pf;
	t->e[i].fib_src = DPR_RSRC_MAX;
	t->e[i].live = 1;
	k = pf_hash(pf) & (t->n_buckets - 1);
	t->e[i].next = t->buckets[k];
	t->buckets[k] = i;
	t->count++;
	return i;
}

static void
erase(struct dpr_route_srcs *t, uint32_t i)
{
	uint32_t *link = &t->buckets[pf_hash(&t->e[i].pf) & (t->n_buckets - 1)];

	while (*link != i)
		link = &t->e[*link].next;
	*link = t->e[i].next;
	t->e[i].live = 0;
	t->e[i].next = t->free_head;
	t->free_head = i;
	t->count--;
}

/* The most preferred source holding a candidate, or DPR_RSRC_MAX. */
static unsigned int
winner(const struct src_entry *x)
{
	return x->have != 0 ? (unsigned int)__builtin_ctz(x->have) : DPR_RSRC_MAX;
}

static int
touch(struct dpr_route_srcs *t, uint32_t i, unsigned int *n_touched)
{
	if (t->e[i].dirty_gen == t->gen)
		return 0;
	if (*n_touched == t->n_touched_alloc) {
		uint32_t n = t->n_touched_alloc ? t->n_touched_alloc * 2 : 256;
		uint32_t *a = realloc(t->touched, n * sizeof(*a));

		if (a == NULL)
			return -ENOMEM;
		t->touched = a;
		t->n_touched_alloc = n;
	}
	t->e[i].dirty_gen = t->gen;
	t->touched[(*n_touched)++] = i;
	return 0;
}

/* A prefix that is in the FIB but that no source put there: the router's. */
static bool
router_owned(const struct dpr_rib *rib, const struct dpr_prefix *pf)
{
	uint32_t nh;

	return dpr_route_get(rib, pf, &nh) == 0;
}

/*
 * The FIB does not hold what @p x's sources want there: a winner not
 * installed, or a route none holds any more still installed (a FIB that
 * could not grow refuses deletes and replaces too: Poptrie).
 */
static bool
fib_behind(const struct src_entry *x)
{
	unsigned int w = winner(x);

	if (!x->live || x->router)
		return false;
	if (w == DPR_RSRC_MAX)
		return x->in_fib;
	return !x->in_fib || x->fib_nh != x->nh[w];
}

/* Remember that the FIB refused @p x's change, for a retry. */
static void
wait_for_room(struct dpr_route_srcs *t, uint32_t k, int err)
{
	struct src_entry *x = &t->e[k];

	x->fib_err = (int8_t)(err < 0 && err >= -127 ? err : -EIO);
	if (x->waiting)
		return;
	if (t->n_waiting == t->n_waiting_alloc) {
		uint32_t n = t->n_waiting_alloc ? t->n_waiting_alloc * 2 : 256;
		uint32_t *a = realloc(t->waiting, n * sizeof(*a));

		if (a == NULL)
			return; /* retried with the next change of its prefix */
		t->waiting = a;
		t->n_waiting_alloc = n;
	}
	x->waiting = 1;
	t->waiting[t->n_waiting++] = k;
}

/* Ranks op_rank() gives: four per family. */
#define OP_RANKS 8u

/* The order ops go to the FIB in: per family, deletes (which make room),
 * then replaces (which need none), then new prefixes (which may not fit):
 * those of /24 and shorter before the longer ones, which alone need a
 * tbl8 group, so that the last group taken holds back no short prefix
 * (sync_fib() stops a family's new prefixes at the first refused). */
static unsigned int
op_rank(const struct src_entry *x, const struct dpr_route_op *op)
{
	unsigned int fam = x->pf.addr.af == DPR_AF_IP4 ? 0 : 4;

	return fam + (op->del ? 0 : x->in_fib ? 1 : x->pf.len <= 24 ? 2 : 3);
}

/*
 * Bring the FIB in line with the entries a batch touched: one op per entry
 * whose winner differs from what the FIB holds, applied as one batch
 * (deletes first). An add the FIB has no room for leaves its winner a
 * candidate, waiting (wait_for_room()), and the other adds of its family
 * wait with it without being tried; everything else is applied. Entries
 * left with no candidate, nothing in the FIB and no router's route are
 * erased.
 * @return the number of deletes applied (room made); *@p applied (when
 * not NULL): the number of ops applied.
 */
static unsigned int
sync_fib(struct dpr_rib *rib, unsigned int n_touched, unsigned int *applied)
{
	struct dpr_route_srcs *t = rib->srcs;
	struct dpr_route_op *ops = NULL;
	uint32_t *of = NULL;
	uint8_t *ow = NULL;
	unsigned int i, r, n = 0, pos, done, freed = 0, n_applied = 0;
	bool all;
	int err = 0;

	if (n_touched > 0) {
		ops = calloc(n_touched, sizeof(*ops));
		of = calloc(n_touched, sizeof(*of));
		ow = calloc(n_touched, sizeof(*ow));
		if (ops == NULL || of == NULL || ow == NULL) {
			free(ops);
			free(of);
			free(ow);
			return 0;
		}
	}
	/* One pass per rank (op_rank()): IPv4 before IPv6, because
	 * dpr_route_fib_apply() waits a grace period per run of one family. */
	for (r = 0; r < OP_RANKS; r++) {
		for (i = 0; i < n_touched; i++) {
			uint32_t k = t->touched[i];
			struct src_entry *x = &t->e[k];
			unsigned int w = winner(x);
			struct dpr_route_op op = { .prefix = x->pf };

			if (!x->live || x->router)
				continue; /* the router's route stays; candidates wait */
			if (w == DPR_RSRC_MAX) {
				if (!x->in_fib)
					continue;
				op.del = 1;
			} else if (x->in_fib && x->fib_nh == x->nh[w]) {
				/* Already there: share the FIB's reference. */
				if (r == 0 && x->fib_src == DPR_RSRC_MAX) {
					dpr_nh_put(rib->nh, x->nh[w]);
					x->fib_src = (uint8_t)w;
				}
				continue;
			} else {
				op.nh = x->nh[w];
			}
			if (op_rank(x, &op) != r)
				continue;
			/* The FIB drops its reference on what it held after
			 * the op: a candidate that shared it needs its own. */
			if (x->in_fib && x->fib_src != DPR_RSRC_MAX) {
				dpr_nh_hold(rib->nh, x->fib_nh);
				x->fib_src = DPR_RSRC_MAX;
			}
			/* The winner's reference goes to the op if applied. */
			ops[n] = op;
			ow[n] = (uint8_t)w;
			of[n++] = k;
		}
	}
	for (pos = 0; pos < n; pos = done + 1) {
		enum dpr_af af;

		done = pos + dpr_route_fib_apply(rib, &ops[pos], n - pos, &err);
		for (i = pos; i < done; i++) {
			struct src_entry *x = &t->e[of[i]];

			x->in_fib = !ops[i].del;
			x->fib_nh = ops[i].nh;
			x->fib_src = ops[i].del ? DPR_RSRC_MAX : ow[i];
			x->fib_err = 0;
			freed += ops[i].del;
		}
		n_applied += done - pos;
		if (done == n)
			break;
		/* Op done is an add the FIB refused; so would it the rest of
		 * its family's new prefixes (a full rule table: all of them;
		 * no tbl8 group: the longer than /24 ones, which alone come
		 * after a long one, op_rank()). They wait for room. */
		af = ops[done].prefix.addr.af;
		/* A delete or a replace is refused only by a FIB that found no
		 * memory to grow (Poptrie): so is every op after it, and trying
		 * the rest again one op shorter each time would cost the square
		 * of a full table's withdrawal (and a log line each). */
		all = ops[done].del || t->e[of[done]].in_fib;
		wait_for_room(t, of[done], err);
		while (done + 1 < n && ops[done + 1].prefix.addr.af == af &&
		       (all || (!ops[done + 1].del && !t->e[of[done + 1]].in_fib)))
			wait_for_room(t, of[++done], err);
	}
	for (i = 0; i < n_touched; i++) {
		uint32_t k = t->touched[i];

		if (t->e[k].live && t->e[k].have == 0 && !t->e[k].in_fib)
			erase(t, k);
	}
	free(ops);
	free(of);
	free(ow);
	if (applied != NULL)
		*applied = n_applied;
	return freed;
}

/*
 * A batch made room in the FIB (@p freed deletes): try again the oldest
 * changes it had refused, about as many as may fit now, and again while
 * a round gets some in (a FIB that could not grow refused replaces and
 * deletes too, which fit again together). Ends: a round that goes on
 * brought an entry in line with its sources, which it then stays.
 */
static void
retry_waiting(struct dpr_rib *rib, unsigned int freed)
{
	struct dpr_route_srcs *t = rib->srcs;

	while (t->n_waiting > 0 && freed > 0) {
		unsigned int n_touched = 0, budget = 2 * freed + 16, i, took = 0;

		t->gen++;
		for (i = 0; i < t->n_waiting && n_touched < budget; i++) {
			uint32_t k = t->waiting[i];
			struct src_entry *x = &t->e[k];

			took = i + 1;
			x->waiting = 0;
			if (fib_behind(x) && touch(t, k, &n_touched) < 0)
				break;
		}
		memmove(t->waiting, t->waiting + took,
			(t->n_waiting - took) * sizeof(*t->waiting));
		t->n_waiting -= took;
		sync_fib(rib, n_touched, &freed);
	}
}

/*
 * Source @p src's candidate of @p x is replaced or removed: its reference
 * goes, unless it is the FIB's, which the FIB drops itself after the op
 * that replaces or deletes what it holds (sync_fib() issues it).
 */
static void
drop_cand(struct dpr_rib *rib, struct src_entry *x, unsigned int src)
{
	if (x->fib_src == src)
		x->fib_src = DPR_RSRC_MAX;
	else
		dpr_nh_put(rib->nh, x->nh[src]);
}

/* Drop source @p src's candidate of entry @p k, which the FIB refused. */
static void
forget_refused(struct dpr_rib *rib, uint32_t k, unsigned int src)
{
	struct src_entry *x = &rib->srcs->e[k];

	drop_cand(rib, x, src);
	x->have &= (uint8_t)~(1u << src);
	x->stale &= (uint8_t)~(1u << src);
	if (x->have == 0 && !x->in_fib)
		erase(rib->srcs, k);
}

/*
 * Source @p src's candidate of entry @p k, which the FIB refused, gives way
 * to @p old, the one it replaced (with its reference): the FIB still holds
 * that, as it refused the replace.
 */
static void
keep_replaced(struct dpr_rib *rib, uint32_t k, unsigned int src, uint32_t old)
{
	struct src_entry *x = &rib->srcs->e[k];

	dpr_nh_put(rib->nh, x->nh[src]);
	x->nh[src] = old;
	if (x->in_fib && x->fib_nh == old && x->fib_src == DPR_RSRC_MAX) {
		dpr_nh_put(rib->nh, old);  /* shares the FIB's again */
		x->fib_src = (uint8_t)src;
	}
}

void
dpr_route_srcs_set_yield(struct dpr_route_srcs *t, dpr_route_yield_fn fn, void *ctx)
{
	t->yield = fn;
	t->yield_ctx = ctx;
}

unsigned int
dpr_route_src_apply(struct dpr_rib *rib, enum dpr_route_src src, struct dpr_src_op *ops,
		    unsigned int n)
{
	struct dpr_route_srcs *t = rib->srcs;
	const uint8_t bit = (uint8_t)(1u << src);
	/* The operator's own routes are refused on the router's prefixes, to
	 * say so at once; a daemon's are held under them, as the daemon
	 * holds them, for when the router gives the prefix back. */
	const bool told = src == DPR_RSRC_CONFIG || src == DPR_RSRC_API;
	/* The operator's candidates that ops replace, each with a reference:
	 * a replace the FIB refuses leaves the route it replaced (NULL when
	 * out of memory: the refused replace then takes the route away). */
	uint32_t *prev = told ? malloc((n + 1) * sizeof(*prev)) : NULL;
	unsigned int i, n_touched = 0, ok = 0;

	t->gen++;
	for (i = 0; i < n; i++) {
		struct dpr_src_op *op = &ops[i];
		uint32_t h = pf_hash(&op->prefix), k = find(t, &op->prefix, h);
		struct src_entry *x;

		op->result = 0;
		if (prev != NULL)
			prev[i] = UINT32_MAX;
		if (op->del) {
			if (k == 0 || !(t->e[k].have & bit)) {
				op->result = -ENOENT;
				continue;
			}
			x = &t->e[k];
			drop_cand(rib, x, src);
			x->have &= (uint8_t)~bit;
			x->stale &= (uint8_t)~bit;
		} else {
			bool router = k == 0 ? router_owned(rib, &op->prefix) : t->e[k].router;

			if (router && told) {
				op->result = -EPERM;
				dpr_nh_put(rib->nh, op->nh);
				continue;
			}
			if (k == 0) {
				k = insert(t, &op->prefix);
				if (k == 0) {
					op->result = -ENOMEM;
					dpr_nh_put(rib->nh, op->nh);
					continue;
				}
				t->e[k].router = router;
			}
			x = &t->e[k];
			if ((x->have & bit) && prev != NULL) {
				prev[i] = x->nh[src];
				dpr_nh_hold(rib->nh, prev[i]);
			}
			if (x->have & bit)
				drop_cand(rib, x, src);
			x->nh[src] = op->nh;
			x->proto[src] = op->proto;
			x->have |= bit;
			x->stale &= (uint8_t)~bit;
		}
		if (touch(t, k, &n_touched) < 0) {
			op->result = -ENOMEM;
			continue;
		}
	}
	retry_waiting(rib, sync_fib(rib, n_touched, NULL));
	/* A daemon's candidate held under a route of the router that yields
	 * (a learned neighbour's host route): the router deletes its route,
	 * and the candidate takes the prefix (dpr_route_src_router_apply()). */
	for (i = 0; !told && t->yield != NULL && i < n; i++) {
		if (ops[i].result == 0 && !ops[i].del) {
			uint32_t k = find(t, &ops[i].prefix, pf_hash(&ops[i].prefix));

			if (k != 0 && t->e[k].router && winner(&t->e[k]) != DPR_RSRC_MAX)
				t->yield(t->yield_ctx, rib, &ops[i].prefix);
		}
	}
	for (i = 0; i < n; i++) {
		if (ops[i].result == 0 && !ops[i].del) {
			uint32_t k = find(t, &ops[i].prefix, pf_hash(&ops[i].prefix));
			const struct src_entry *x = &t->e[k];

			/* Held, not installed: under the router's route, or
			 * the FIB had no room for it. */
			if (k != 0 && x->router) {
				ops[i].result = -EPERM;
			} else if (k != 0 && winner(x) == src &&
				   !(x->in_fib && x->fib_nh == x->nh[src])) {
				ops[i].result = x->fib_err != 0 ? x->fib_err : -ENOSPC;
				/* The operator is told it did not fit: not
				 * kept, to come in unasked later; what it
				 * replaced stays. */
				if (told && prev != NULL && prev[i] != UINT32_MAX) {
					keep_replaced(rib, k, src, prev[i]);
					prev[i] = UINT32_MAX;
				} else if (told) {
					forget_refused(rib, k, src);
				}
			}
		}
		ok += ops[i].result == 0;
	}
	for (i = 0; prev != NULL && i < n; i++)
		if (prev[i] != UINT32_MAX)
			dpr_nh_put(rib->nh, prev[i]);
	free(prev);
	return ok;
}

unsigned int
dpr_route_src_router_apply(struct dpr_rib *rib, struct dpr_route_op *ops, unsigned int n,
			   int *err)
{
	struct dpr_route_srcs *t = rib->srcs;
	struct dpr_route_op *fo = malloc((n + 1) * sizeof(*fo));
	uint32_t *ent = malloc((n + 1) * sizeof(*ent));
	unsigned int *from = malloc((n + 1) * sizeof(*from));
	unsigned int i = 0, j, m, d, q, freed = 0;

	if (fo == NULL || ent == NULL || from == NULL) {
		free(fo);
		free(ent);
		free(from);
		*err = -ENOMEM;
		return 0;
	}
	while (i < n) {
		/* A chunk of ops on distinct prefixes: each op sees its
		 * entry as the previous chunks left it. */
		t->gen++;
		m = 0;
		for (j = i; j < n; j++) {
			uint32_t k = find(t, &ops[j].prefix, pf_hash(&ops[j].prefix));
			struct src_entry *x = &t->e[k];
			unsigned int w;

			if (k != 0 && x->dirty_gen == t->gen)
				break;
			ops[j].existed = 0;
			ops[j].old_nh = 0;
			ent[j] = k;
			if (k != 0)
				x->dirty_gen = t->gen;
			fo[m] = ops[j];
			if (k == 0) {
				from[m++] = j;
				continue;
			}
			if (!ops[j].del) {
				/* The FIB drops what it held after the op: an
				 * installed candidate that shared it needs its
				 * own reference to wait with. */
				if (x->in_fib && x->fib_src != DPR_RSRC_MAX) {
					dpr_nh_hold(rib->nh, x->fib_nh);
					x->fib_src = DPR_RSRC_MAX;
				}
			} else if (!x->router) {
				continue; /* a source's route: not the router's to delete */
			} else if ((w = winner(x)) != DPR_RSRC_MAX) {
				/* The waiting candidate takes the prefix back in
				 * the same op: no gap. Its reference goes to the
				 * FIB if the op is applied. */
				fo[m].del = 0;
				fo[m].nh = x->nh[w];
			}
			from[m++] = j;
		}
		d = m > 0 ? dpr_route_fib_apply(rib, fo, m, err) : 0;
		for (q = 0; q < d; q++) {
			unsigned int o = from[q];
			struct src_entry *x = &t->e[ent[o]];

			ops[o].existed = fo[q].existed;
			ops[o].old_nh = fo[q].old_nh;
			freed += ops[o].del;
			if (ent[o] == 0)
				continue;
			if (!ops[o].del) {
				x->router = 1;
				x->in_fib = 0;
				x->fib_src = DPR_RSRC_MAX;
				continue;
			}
			x->router = 0;
			x->in_fib = !fo[q].del;
			x->fib_nh = fo[q].nh;
			x->fib_src = fo[q].del ? DPR_RSRC_MAX : (uint8_t)winner(x);
			if (x->have == 0 && !x->in_fib)
				erase(t, ent[o]);
		}
		if (d < m) {
			i = from[d];
			break;
		}
		i = j;
	}
	free(fo);
	free(ent);
	free(from);
	retry_waiting(rib, freed);
	return i;
}

unsigned int
dpr_route_src_mark_stale(struct dpr_rib *rib, enum dpr_route_src src)
{
	struct dpr_route_srcs *t = rib->srcs;
	const uint8_t bit = (uint8_t)(1u << src);
	unsigned int n = 0;
	uint32_t i;

	for (i = 1; i < t->n_used; i++) {
		if (t->e[i].live && (t->e[i].have & bit)) {
			t->e[i].stale |= bit;
			n++;
		}
	}
	return n;
}

unsigned int
dpr_route_src_sweep(struct dpr_rib *rib, enum dpr_route_src src)
{
	struct dpr_route_srcs *t = rib->srcs;
	const uint8_t bit = (uint8_t)(1u << src);
	struct dpr_src_op *ops;
	unsigned int n = 0, done;
	uint32_t i;

	for (i = 1; i < t->n_used; i++)
		n += t->e[i].live && (t->e[i].stale & bit);
	if (n == 0)
		return 0;
	ops = calloc(n, sizeof(*ops));
	if (ops == NULL)
		return 0;
	n = 0;
	for (i = 1; i < t->n_used; i++)
		if (t->e[i].live && (t->e[i].stale & bit))
			ops[n++] = (struct dpr_src_op){ .prefix = t->e[i].pf, .del = 1 };
	done = dpr_route_src_apply(rib, src, ops, n);
	free(ops);
	return done;
}

int
dpr_route_src_get(const struct dpr_rib *rib, const struct dpr_prefix *pf,
		  struct dpr_route_cands *c)
{
	const struct dpr_route_srcs *t = rib->srcs;
	const struct src_entry *x;
	uint32_t k;

	if (t == NULL)
		return -ENOENT;
	k = find(t, pf, pf_hash(pf));
	if (k == 0 || t->e[k].have == 0)
		return -ENOENT;
	x = &t->e[k];
	c->have = x->have;
	c->stale = x->stale;
	memcpy(c->proto, x->proto, sizeof(c->proto));
	memcpy(c->nh, x->nh, sizeof(c->nh));
	c->winner = (uint8_t)winner(x);
	c->in_fib = x->in_fib && x->fib_nh == x->nh[c->winner];
	c->router = x->router;
	return 0;
}

void
dpr_route_src_counts(const struct dpr_rib *rib, struct dpr_route_src_counts *c)
{
	const struct dpr_route_srcs *t = rib->srcs;
	uint32_t i;
	unsigned int s;

	memset(c, 0, sizeof(*c));
	if (t == NULL)
		return;
	for (i = 1; i < t->n_used; i++) {
		const struct src_entry *x = &t->e[i];
		unsigned int w;

		if (!x->live || x->have == 0)
			continue;
		for (s = 0; s < DPR_RSRC_MAX; s++) {
			c->held[s] += (x->have >> s) & 1;
			c->stale[s] += (x->stale >> s) & 1;
		}
		w = winner(x);
		if (x->in_fib && x->fib_nh == x->nh[w])
			c->active[w]++;
		else if (x->router)
			c->shadowed++;
		else
			c->not_installed++;
	}
}

int
dpr_route_src_check(const struct dpr_rib *rib, uint32_t *refs, char *err, size_t len)
{
	const struct dpr_route_srcs *t = rib->srcs;
	char buf[DPR_PREFIX_STRLEN];
	uint32_t i, count = 0;
	unsigned int s;

	if (t == NULL)
		return 0;
	for (i = 1; i < t->n_used; i++) {
		const struct src_entry *x = &t->e[i];
		const char *bad = NULL;
		uint32_t cur;
		bool there;

		if (!x->live)
			continue;
		count++;
		there = dpr_route_get(rib, &x->pf, &cur) == 0;
		for (s = 0; s < DPR_RSRC_MAX; s++) {
			if (!(x->have & (1u << s)))
				continue;
			if (x->nh[s] >= DPR_NH_MAX)
				bad = "a candidate's next hop is out of range";
			else if (x->fib_src != s)
				refs[x->nh[s]]++;
		}
		if (x->have == 0 && !x->in_fib)
			bad = "an entry with no candidate and nothing installed";
		else if (x->in_fib && x->router)
			bad = "installed and the router's at once";
		else if (x->in_fib && (!there || cur != x->fib_nh))
			bad = "installed, but the FIB holds something else";
		else if (x->router && !there)
			bad = "the router's, but not in the FIB";
		else if (!x->in_fib && !x->router && there)
			bad = "in the FIB from nobody";
		else if (x->fib_src != DPR_RSRC_MAX &&
			 (!x->in_fib || !(x->have & (1u << x->fib_src)) ||
			  x->nh[x->fib_src] != x->fib_nh))
			bad = "shares the FIB's reference with a candidate it does not hold";
		else if (fib_behind(x) && !x->waiting)
			bad = "a refused change that waits for no room";
		if (bad != NULL) {
			snprintf(err, len, "route sources: %s: %s (have 0x%x, in_fib %u, router %u, fib_src %u)",
				 dpr_prefix_fmt(&x->pf, buf, sizeof(buf)), bad, x->have, x->in_fib,
				 x->router, x->fib_src);
			return -EINVAL;
		}
	}
	if (count != t->count) {
		snprintf(err, len, "route sources: %u live entries, counted %u", count, t->count);
		return -EINVAL;
	}
	return 0;
}
