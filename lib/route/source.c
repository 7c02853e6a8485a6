/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
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
 * References: each candidate holds one on its next hop, and the FIB one on
 * what it holds (dpr_route_apply() drops it after the grace period that
 * follows a replace or a delete). The installed candidate's two are one
 * (fib_src), so that a route counts once in a next hop's "refs": its
 * candidate gives its reference to the FIB op that installs it, and takes
 * one back only if it stays a candidate when another replaces it there.
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
 * Bring the FIB in line with the entries a batch touched: one op per entry
 * whose winner differs from what the FIB holds, applied as one batch.
 * Entries left with no candidate and nothing in the FIB are erased.
 * @return 0, or the FIB's error for the first op it did not apply (the
 *   entries from there keep their FIB state and are retried by the next
 *   batch that touches them).
 */
static int
sync_fib(struct dpr_rib *rib, unsigned int n_touched)
{
	struct dpr_route_srcs *t = rib->srcs;
	struct dpr_route_op *ops = NULL;
	uint32_t *of = NULL;
	uint8_t *ow = NULL;
	unsigned int i, n = 0, done;
	int err = 0;

	if (n_touched > 0) {
		ops = calloc(n_touched, sizeof(*ops));
		of = calloc(n_touched, sizeof(*of));
		ow = calloc(n_touched, sizeof(*ow));
		if (ops == NULL || of == NULL || ow == NULL) {
			free(ops);
			free(of);
			free(ow);
			return -ENOMEM;
		}
	}
	/* IPv4 first, then IPv6: dpr_route_apply() waits a grace period
	 * per run of one family, so a batch of both costs two, not one per
	 * switch. */
	for (i = 0; i < 2 * n_touched; i++) {
		struct src_entry *x = &t->e[t->touched[i % n_touched]];
		unsigned int w = winner(x);
		uint32_t cur;
		bool there;

		if ((x->pf.addr.af == DPR_AF_IP4) != (i < n_touched))
			continue;
		there = dpr_route_get(rib, &x->pf, &cur) == 0;

		/* The FIB entry is ours only while it holds what we put
		 * there: an address added since (addr.add) owns its subnet
		 * now, and no source may change or delete that. Its op took
		 * the FIB's reference: a candidate that shared it goes. */
		if (x->in_fib && (!there || cur != x->fib_nh)) {
			x->in_fib = 0;
			if (x->fib_src != DPR_RSRC_MAX) {
				x->have &= (uint8_t)~(1u << x->fib_src);
				x->stale &= (uint8_t)~(1u << x->fib_src);
				x->fib_src = DPR_RSRC_MAX;
				w = winner(x);
			}
		}
		if (!x->in_fib && there)
			continue;
		if (w == DPR_RSRC_MAX) {
			if (!x->in_fib)
				continue;
			ops[n] = (struct dpr_route_op){ .prefix = x->pf, .del = 1 };
		} else {
			if (x->in_fib && x->fib_nh == x->nh[w]) {
				/* Already there: share the FIB's reference. */
				if (x->fib_src == DPR_RSRC_MAX) {
					dpr_nh_put(rib->nh, x->nh[w]);
					x->fib_src = (uint8_t)w;
				}
				continue;
			}
			/* The FIB drops its reference on what it held after
			 * the op: a candidate that shared it needs its own. */
			if (x->in_fib && x->fib_src != DPR_RSRC_MAX) {
				dpr_nh_hold(rib->nh, x->fib_nh);
				x->fib_src = DPR_RSRC_MAX;
			}
			/* The winner's reference goes to the op. */
			ops[n] = (struct dpr_route_op){ .prefix = x->pf, .nh = x->nh[w] };
			ow[n] = (uint8_t)w;
		}
		of[n++] = t->touched[i % n_touched];
	}
	done = n > 0 ? dpr_route_apply(rib, ops, n, &err) : 0;
	for (i = 0; i < done; i++) {
		struct src_entry *x = &t->e[of[i]];

		/* Not applied (i >= done): the winner keeps its reference. */
		x->in_fib = !ops[i].del;
		x->fib_nh = ops[i].nh;
		x->fib_src = ops[i].del ? DPR_RSRC_MAX : ow[i];
	}
	for (i = 0; i < n_touched; i++) {
		uint32_t k = t->touched[i];

		if (t->e[k].live && t->e[k].have == 0 && !t->e[k].in_fib)
			erase(t, k);
	}
	free(ops);
	free(of);
	free(ow);
	return done < n ? (err != 0 ? err : -EIO) : 0;
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

unsigned int
dpr_route_src_apply(struct dpr_rib *rib, enum dpr_route_src src, struct dpr_src_op *ops,
		    unsigned int n)
{
	struct dpr_route_srcs *t = rib->srcs;
	const uint8_t bit = (uint8_t)(1u << src);
	unsigned int i, n_touched = 0, ok = 0;
	int err;

	t->gen++;
	for (i = 0; i < n; i++) {
		struct dpr_src_op *op = &ops[i];
		uint32_t h = pf_hash(&op->prefix), k = find(t, &op->prefix, h);
		struct src_entry *x;

		op->result = 0;
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
			if (k == 0) {
				if (router_owned(rib, &op->prefix)) {
					op->result = -EPERM;
					dpr_nh_put(rib->nh, op->nh);
					continue;
				}
				k = insert(t, &op->prefix);
				if (k == 0) {
					op->result = -ENOMEM;
					dpr_nh_put(rib->nh, op->nh);
					continue;
				}
			}
			x = &t->e[k];
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
	err = sync_fib(rib, n_touched);
	for (i = 0; i < n; i++) {
		if (ops[i].result == 0 && err != 0 && !ops[i].del) {
			/* The FIB could not take it: held, not installed. */
			struct dpr_route_cands c;

			if (dpr_route_src_get(rib, &ops[i].prefix, &c) == 0 && !c.in_fib &&
			    c.winner == src)
				ops[i].result = err;
		}
		ok += ops[i].result == 0;
	}
	return ok;
}

void
dpr_route_src_router_changed(struct dpr_rib *rib, const struct dpr_prefix *pfs, unsigned int n)
{
	struct dpr_route_srcs *t = rib->srcs;
	unsigned int i, n_touched = 0;

	if (t == NULL)
		return;
	t->gen++;
	for (i = 0; i < n; i++) {
		uint32_t k = find(t, &pfs[i], pf_hash(&pfs[i]));

		if (k != 0)
			touch(t, k, &n_touched);
	}
	/* sync_fib() sees who holds each FIB entry now. */
	sync_fib(rib, n_touched);
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
		else
			c->not_installed++;
	}
}
