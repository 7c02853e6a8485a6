/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ACL database: every ACL by name, compiled with rte_acl on the
 * control thread, and the bindings workers read (acl.h says who owns
 * what). Control thread only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_vect.h>

#include "../util/clock.h"
#include "acl.h"
#include "acl_dp.h"

const struct dpr_acl_binds dpr_acl_unbound;

/* Fields of the IPv6 key (struct dpr_acl_key6), in order. */
enum {
	F_PROTO, F_FLAGS, F_DSCP, F_TCP, F_PAD,
	F_ADDRS, /* src[4], dst[4] */
};
#define FIELDS6 (F_ADDRS + 8 + 2)

/* Fields of IPv4 (struct dpr_acl_key4: its header's image), in the order
 * of their input groups: the protocol; the 4 bytes from the header's
 * first (the DSCP in the second); the 4 from TCP's flags; the destination,
 * the source (dst first: see defs_fill()); the ports. */
enum {
	F4_PROTO, F4_DSCP, F4_TCP, F4_DST, F4_SRC, F4_SPORT, F4_DPORT,
	FIELDS4
};

RTE_ACL_RULE_DEF(acl_rule6, FIELDS6);

struct acl_entry {
	bool used;
	struct dpr_acl_list list;
	struct dpr_acl_dp *dp;
	/** Its view (view_make()) per direction and interface it is or was
	 * bound to since its last acl.set: hits per binding, kept while
	 * unbound (acl.get's sums), dropped with the interface. */
	struct dpr_acl_dp *views[2][DPR_MAX_PORTS];
	uint64_t build_us;        /**< how long its last build took */
	int method;               /**< methods[] its contexts classify with; -1: none has rules */
};

/*
 * rte_acl's classify methods, widest first. EAL caps SIMD at 256 bits
 * unless told otherwise (--force-max-simd-bitwidth), which leaves rte_acl
 * at 16 lanes of AVX-512 where the CPU has 32; a context is given the
 * widest method the CPU and DPDK's build have, the cap raised to 512 for
 * the choice alone (rte_acl checks it then, never while classifying) and
 * put back, so that no PMD's vector path changes. A width the operator
 * forced is kept: the widest method under it.
 */
static const struct {
	enum rte_acl_classify_alg alg;
	const char *name;
} methods[] = {
	{ RTE_ACL_CLASSIFY_AVX512X32, "avx512x32" },
	{ RTE_ACL_CLASSIFY_AVX512X16, "avx512x16" },
	{ RTE_ACL_CLASSIFY_AVX2, "avx2" },
	{ RTE_ACL_CLASSIFY_NEON, "neon" },
	{ RTE_ACL_CLASSIFY_ALTIVEC, "altivec" },
	{ RTE_ACL_CLASSIFY_SSE, "sse" },
	{ RTE_ACL_CLASSIFY_SCALAR, "scalar" },
};

struct dpr_acl_db {
	struct rte_rcu_qsbr *qsbr;
	bool widen;               /**< no width forced: the cap may go to 512 for a choice */
	int method;               /**< methods[] the last context got; -1: none built */
	unsigned int rows;        /**< hit counter rows: workers, then the control thread */
	int socket;
	uint64_t gen;             /**< rte_acl context names must be unique */
	struct acl_entry acls[DPR_ACL_MAX];
	int bound[2][DPR_MAX_PORTS];  /**< entry bound, -1: none */
	uint64_t ctl_drops[DPR_MAX_PORTS]; /**< the control thread's output drops */
	struct dpr_acl_binds binds;
};

/* --- compiling --------------------------------------------------------------- */

static void
defs_common(struct rte_acl_field_def *d)
{
	static const struct { uint8_t type; uint32_t off; uint8_t input; } f[F_ADDRS] = {
		[F_PROTO] = { RTE_ACL_FIELD_TYPE_BITMASK, 0, 0 },
		/* F_FLAGS and F_PAD are always wildcards (an input group is
		 * 4 bytes of trie); rte_acl_build() drops the group when no
		 * rule has a DSCP or TCP flags either. */
		[F_FLAGS] = { RTE_ACL_FIELD_TYPE_BITMASK, 4, 1 },
		[F_DSCP] = { RTE_ACL_FIELD_TYPE_BITMASK, 5, 1 },
		[F_TCP] = { RTE_ACL_FIELD_TYPE_BITMASK, 6, 1 },
		[F_PAD] = { RTE_ACL_FIELD_TYPE_BITMASK, 7, 1 },
	};
	unsigned int i;

	for (i = 0; i < F_ADDRS; i++)
		d[i] = (struct rte_acl_field_def){ .type = f[i].type, .size = 1,
			.field_index = (uint8_t)i, .input_index = f[i].input,
			.offset = f[i].off };
}

/*
 * @p n_addr 4-byte address fields from offset 8 (the source's, then the
 * destination's), then the two ports. The trie tests them in the order of
 * their input groups, which need not be the key's: destination, source,
 * ports. rte_acl_gen() spends most of a build filling each node's 256
 * transitions, and a destination prefix first gave far fewer nodes on
 * ClassBench-like lists (scripts/acl-rules.py, dpr-acl-bench): 10,000
 * IPv4 rules from 0.93 s and 30 MB to 0.32 s and 7 MB of CPU time and
 * memory, 10,000 IPv6 ones from 0.95 s and 40 MB to 0.79 s and 10 MB; a
 * list of source prefixes alone (tests/smoke/acl.sh's) from 0.28 s to 0.20 s.
 */
static unsigned int
defs_fill(struct rte_acl_field_def *d, unsigned int n_addr)
{
	unsigned int half = n_addr / 2, i, k = F_ADDRS;
	uint8_t in = 2;

	defs_common(d);
	for (i = 0; i < n_addr; i++, k++) {
		unsigned int dst = i >= half, word = i % half;

		d[k] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4,
			.field_index = (uint8_t)(F_ADDRS + i), .offset = 8 + 4 * i,
			.input_index = (uint8_t)(in + (dst ? word : half + word)) };
	}
	in = (uint8_t)(in + n_addr);
	for (i = 0; i < 2; i++, k++)
		d[k] = (struct rte_acl_field_def){ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2,
			.field_index = (uint8_t)k, .input_index = in,
			.offset = 8 + 4 * n_addr + 2 * i };
	/* rte_acl walks the definitions in order: by input group. */
	for (i = 0; i < half; i++) {
		struct rte_acl_field_def t = d[F_ADDRS + i];

		d[F_ADDRS + i] = d[F_ADDRS + half + i];
		d[F_ADDRS + half + i] = t;
	}
	return k;
}

/*
 * IPv4's fields at their offsets in the IPv4 header (struct dpr_acl_key4).
 * The DSCP and TCP's flags are a byte of a 4-byte bitmask each (an input
 * group is 4 bytes of trie; a 4-byte field's value is in host order, its
 * first byte the most significant); rte_acl_build() drops a field no rule
 * has, which leaves the bench's lists an IPv4 walk of 1 + 3 x 4 bytes, as
 * l3fwd's ACL mode reads, and reads no byte of it.
 */
static unsigned int
defs4(struct rte_acl_field_def *d)
{
	static const struct { uint8_t type, size, input; uint32_t off; } f[FIELDS4] = {
		[F4_PROTO] = { RTE_ACL_FIELD_TYPE_BITMASK, 1, 0,
			       offsetof(struct dpr_acl_key4, proto) },
		[F4_DSCP] = { RTE_ACL_FIELD_TYPE_BITMASK, 4, 1, 0 },
		[F4_TCP] = { RTE_ACL_FIELD_TYPE_BITMASK, 4, 2,
			     offsetof(struct dpr_acl_key4, tcp_flags) },
		[F4_DST] = { RTE_ACL_FIELD_TYPE_MASK, 4, 3, offsetof(struct dpr_acl_key4, dst) },
		[F4_SRC] = { RTE_ACL_FIELD_TYPE_MASK, 4, 4, offsetof(struct dpr_acl_key4, src) },
		[F4_SPORT] = { RTE_ACL_FIELD_TYPE_RANGE, 2, 5,
			       offsetof(struct dpr_acl_key4, sport) },
		[F4_DPORT] = { RTE_ACL_FIELD_TYPE_RANGE, 2, 5,
			       offsetof(struct dpr_acl_key4, dport) },
	};
	unsigned int i;

	for (i = 0; i < FIELDS4; i++)
		d[i] = (struct rte_acl_field_def){ .type = f[i].type, .size = f[i].size,
			.field_index = (uint8_t)i, .input_index = f[i].input,
			.offset = f[i].off };
	return FIELDS4;
}

/* IPv4's rule @p r (the ports but for the caller's). */
static void
rule4(const struct dpr_acl_rule *r, struct rte_acl_field *f)
{
	if (r->match & DPR_ACL_M_PROTO) {
		f[F4_PROTO].value.u8 = r->proto;
		f[F4_PROTO].mask_range.u8 = 0xff;
	}
	/* Bytes 1 and 33: the second and the first of their words. */
	if (r->match & DPR_ACL_M_DSCP) {
		f[F4_DSCP].value.u32 = (uint32_t)r->dscp << (2 + 16);
		f[F4_DSCP].mask_range.u32 = 0xfcu << 16;
	}
	if (r->match & DPR_ACL_M_TCP_FLAGS) {
		f[F4_TCP].value.u32 = (uint32_t)r->tcp_set << 24;
		f[F4_TCP].mask_range.u32 = (uint32_t)r->tcp_mask << 24;
	}
	if (r->match & DPR_ACL_M_SRC) {
		f[F4_SRC].value.u32 = r->src.addr.ip4;
		f[F4_SRC].mask_range.u32 = r->src.len;
	}
	if (r->match & DPR_ACL_M_DST) {
		f[F4_DST].value.u32 = r->dst.addr.ip4;
		f[F4_DST].mask_range.u32 = r->dst.len;
	}
}

_Static_assert(offsetof(struct dpr_acl_key4, tos) == 1 &&
	       offsetof(struct dpr_acl_key4, proto) == 9 &&
	       offsetof(struct dpr_acl_key4, src) == 12 &&
	       offsetof(struct dpr_acl_key4, dst) == 16 &&
	       offsetof(struct dpr_acl_key4, sport) == 20 &&
	       offsetof(struct dpr_acl_key4, tcp_flags) == 20 + 13 &&
	       sizeof(struct dpr_acl_key4) >= offsetof(struct dpr_acl_key4, tcp_flags) + 4 &&
	       offsetof(struct rte_ipv4_hdr, next_proto_id) == 9 &&
	       offsetof(struct rte_ipv4_hdr, src_addr) == 12 &&
	       offsetof(struct dpr_acl_key6, src) == 8 &&
	       offsetof(struct dpr_acl_key6, sport) == 40,
	       "ACL key layouts as defs4(), defs_fill() and dpr_acl_ip4_inplace() say");
_Static_assert(FIELDS4 <= FIELDS6, "a rule of either family fits struct acl_rule6");

/* The fields every family has, for rule @p r. */
static void
rule_common(const struct dpr_acl_rule *r, struct rte_acl_field *f)
{
	if (r->match & DPR_ACL_M_PROTO) {
		f[F_PROTO].value.u8 = r->proto;
		f[F_PROTO].mask_range.u8 = 0xff;
	}
	if (r->match & DPR_ACL_M_DSCP) {
		f[F_DSCP].value.u8 = r->dscp;
		f[F_DSCP].mask_range.u8 = 0x3f;
	}
	if (r->match & DPR_ACL_M_TCP_FLAGS) {
		f[F_TCP].value.u8 = r->tcp_set;
		f[F_TCP].mask_range.u8 = r->tcp_mask;
	}
}

static void
rule_ports(const struct dpr_acl_rule *r, struct rte_acl_field *f)
{
	f[0].mask_range.u16 = UINT16_MAX;
	f[1].mask_range.u16 = UINT16_MAX;
	if (r->match & DPR_ACL_M_SPORT) {
		f[0].value.u16 = r->sport_lo;
		f[0].mask_range.u16 = r->sport_hi;
	}
	if (r->match & DPR_ACL_M_DPORT) {
		f[1].value.u16 = r->dport_lo;
		f[1].mask_range.u16 = r->dport_hi;
	}
	if (r->match & DPR_ACL_M_ICMP_TYPE)
		f[0].value.u16 = f[0].mask_range.u16 = r->icmp_type;
	if (r->match & DPR_ACL_M_ICMP_CODE)
		f[1].value.u16 = f[1].mask_range.u16 = r->icmp_code;
}

static void
rule_addr6(const struct dpr_prefix *p, bool has, struct rte_acl_field *f)
{
	unsigned int k;

	for (k = 0; k < 4 && has; k++) {
		uint32_t w;
		int bits = (int)p->len - 32 * (int)k;

		memcpy(&w, &p->addr.ip6[4 * k], 4);
		f[k].value.u32 = rte_be_to_cpu_32(w);
		f[k].mask_range.u32 = (uint32_t)RTE_MAX(0, RTE_MIN(32, bits));
	}
}

/*
 * Whether rule @p r can match a packet of family @p af that is a non-first
 * fragment (@p nonfirst) or not. A non-first fragment has no L4 fields:
 * rules that look at them are for first fragments and whole packets only,
 * and "fragment": "non-first" rules for non-first fragments only. Each
 * family has a context for each, so that no key carries the fragment
 * state into the trie (the 4-byte input group it took cost 4 of an IPv4
 * key's 17 transitions).
 */
static bool
rule_in_ctx(const struct dpr_acl_rule *r, uint8_t af, bool nonfirst)
{
	if (r->family != 0 && r->family != af)
		return false;
	return nonfirst ? !(r->match & DPR_ACL_M_L4) : !(r->match & DPR_ACL_M_NONFIRST);
}

/* The widest classify method @p ctx may have (methods[]); rte_acl_create()
 * gave it DPDK's choice under the cap, which stays if none is taken. */
static void
set_method(struct dpr_acl_db *db, struct rte_acl_ctx *ctx)
{
	uint16_t cap = rte_vect_get_max_simd_bitwidth();
	bool raised = db->widen && cap < RTE_VECT_SIMD_512 &&
		      rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) == 0;
	unsigned int k;

	for (k = 0; k < RTE_DIM(methods); k++)
		if (rte_acl_set_ctx_classify(ctx, methods[k].alg) == 0)
			break;
	if (raised)
		rte_vect_set_max_simd_bitwidth(cap);
	db->method = k < RTE_DIM(methods) ? (int)k : -1;
}

/* One context of list @p l (rule_in_ctx()), or NULL when no rule is in it. */
static struct rte_acl_ctx *
build_ctx(struct dpr_acl_db *db, const struct dpr_acl_list *l, uint8_t af, bool nonfirst,
	  char *err, size_t err_len)
{
	struct rte_acl_field_def defs[FIELDS6];
	struct rte_acl_config cfg = { .num_categories = 1 };
	unsigned int nf = af == DPR_AF_IP4 ? defs4(defs) : defs_fill(defs, 8);
	struct rte_acl_param prm = {
		.socket_id = db->socket,
		.rule_size = RTE_ACL_RULE_SZ(nf),
	};
	struct rte_acl_ctx *ctx = NULL;
	struct acl_rule6 *ar;
	char name[RTE_ACL_NAMESIZE];
	uint32_t i, n = 0;
	uint8_t *rules;
	int ret;

	for (i = 0; i < l->n_rules; i++)
		n += rule_in_ctx(&l->rules[i], af, nonfirst);
	if (n == 0)
		return NULL;
	rules = calloc(n + 1, prm.rule_size);
	if (rules == NULL) {
		snprintf(err, err_len, "acl %s: no memory for %u rules", l->name, n);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0, n = 0; i < l->n_rules; i++) {
		const struct dpr_acl_rule *r = &l->rules[i];

		if (!rule_in_ctx(r, af, nonfirst))
			continue;
		ar = (struct acl_rule6 *)(rules + (size_t)n++ * prm.rule_size);
		/* First match wins: earlier rules weigh more, all more than
		 * the default's rule. */
		ar->data.category_mask = 1;
		ar->data.priority = (int32_t)(RTE_ACL_MIN_PRIORITY + DPR_ACL_RULES_MAX - i);
		ar->data.userdata = i + 1;
		if (af == DPR_AF_IP4) {
			rule4(r, ar->field);
			rule_ports(r, &ar->field[F4_SPORT]);
		} else {
			rule_common(r, ar->field);
			rule_addr6(&r->src, r->match & DPR_ACL_M_SRC, &ar->field[F_ADDRS]);
			rule_addr6(&r->dst, r->match & DPR_ACL_M_DST, &ar->field[F_ADDRS + 4]);
			rule_ports(r, &ar->field[F_ADDRS + 8]);
		}
	}
	/*
	 * The default as a rule of its own, last (the lowest priority): every
	 * packet then walks the whole trie to a match, as with l3fwd's route
	 * rules, instead of leaving it where no rule is left to match.
	 * rte_acl resolves matches for 8 packets at a time, and packets
	 * finishing together cost it about 23 instructions a packet less
	 * (100 rules, the bench's traffic: 255 to 231, l3fwd's figure) than
	 * ones leaving the trie at different depths.
	 */
	ar = (struct acl_rule6 *)(rules + (size_t)n++ * prm.rule_size);
	ar->data.category_mask = 1;
	ar->data.priority = RTE_ACL_MIN_PRIORITY;
	ar->data.userdata = DPR_ACL_DEFAULT_RULE(l->n_rules);
	rule_ports(&(struct dpr_acl_rule){ .match = 0 }, &ar->field[nf - 2]);
	snprintf(name, sizeof(name), "dpracl%" PRIu64 "_%u%s", db->gen++, af,
		 nonfirst ? "f" : "");
	prm.name = name;
	prm.max_rule_num = n;
	cfg.num_fields = nf;
	memcpy(cfg.defs, defs, nf * sizeof(defs[0]));
	ctx = rte_acl_create(&prm);
	if (ctx == NULL) {
		snprintf(err, err_len, "acl %s: cannot create a classifier: %s", l->name,
			 rte_strerror(rte_errno));
		errno = rte_errno != 0 ? rte_errno : ENOMEM;
		goto out;
	}
	ret = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)rules, n);
	if (ret == 0)
		ret = rte_acl_build(ctx, &cfg);
	if (ret == 0)
		set_method(db, ctx);
	if (ret != 0) {
		snprintf(err, err_len, "acl %s: cannot build the %s%s classifier of %u rules: %s",
			 l->name, af == DPR_AF_IP4 ? "IPv4" : "IPv6",
			 nonfirst ? " non-first fragment" : "", n - 1, strerror(-ret));
		rte_acl_free(ctx);
		ctx = NULL;
		errno = -ret;
	}
out:
	free(rules);
	return ctx;
}

static void
dp_free(struct dpr_acl_dp *dp)
{
	unsigned int c;

	if (dp == NULL)
		return;
	for (c = 0; c < RTE_DIM(dp->ctx) && !dp->view; c++)
		rte_acl_free(dp->ctx[c]);
	rte_free(dp);
}

/*
 * A binding's view of compiled list @p base: its contexts, actions and
 * flags, and hit counters of its own, so that hits are known per
 * interface and direction. NULL: no memory.
 */
static struct dpr_acl_dp *
view_make(const struct dpr_acl_db *db, const struct dpr_acl_dp *base)
{
	size_t hits_off = RTE_ALIGN_CEIL(sizeof(struct dpr_acl_dp), RTE_CACHE_LINE_SIZE);
	struct dpr_acl_dp *v;

	v = rte_zmalloc_socket("dpr_acl_view",
			       hits_off + (size_t)db->rows * base->stride * sizeof(uint64_t),
			       RTE_CACHE_LINE_SIZE, db->socket);
	if (v == NULL)
		return NULL;
	memcpy(v->ctx, base->ctx, sizeof(v->ctx));
	v->action = base->action;
	v->hits = (uint64_t *)((uint8_t *)v + hits_off);
	v->stride = base->stride;
	v->n_rules = base->n_rules;
	v->l4 = base->l4;
	v->proto = base->proto;
	v->view = true;
	return v;
}

/* Add view @p v's hits, no longer counted, to its list @p base's. */
static void
view_fold(const struct dpr_acl_db *db, struct dpr_acl_dp *base, const struct dpr_acl_dp *v)
{
	size_t k, n;

	if (base == NULL || v == NULL || base->stride != v->stride)
		return;
	n = (size_t)db->rows * v->stride;
	for (k = 0; k < n; k++)
		base->hits[k] += v->hits[k];
}

static void
views_free(struct dpr_acl_dp *views[2][DPR_MAX_PORTS])
{
	unsigned int d, p;

	for (d = 0; d < 2; d++)
		for (p = 0; p < DPR_MAX_PORTS; p++) {
			dp_free(views[d][p]);
			views[d][p] = NULL;
		}
}

static struct dpr_acl_dp *
dp_build(struct dpr_acl_db *db, const struct dpr_acl_list *l, char *err, size_t err_len)
{
	uint32_t slots = DPR_ACL_DEFAULT_RULE(l->n_rules) + 1;
	uint32_t stride = RTE_ALIGN_CEIL(slots, RTE_CACHE_LINE_SIZE / sizeof(uint64_t));
	size_t hits_off = RTE_ALIGN_CEIL(sizeof(struct dpr_acl_dp) + slots,
					 RTE_CACHE_LINE_SIZE);
	size_t sz = hits_off + (size_t)db->rows * stride * sizeof(uint64_t);
	struct dpr_acl_dp *dp;
	uint8_t *action;
	uint32_t i, c;

	dp = rte_zmalloc_socket("dpr_acl", sz, RTE_CACHE_LINE_SIZE, db->socket);
	if (dp == NULL) {
		snprintf(err, err_len, "acl %s: no memory for %u rules' counters", l->name,
			 l->n_rules);
		errno = ENOMEM;
		return NULL;
	}
	action = (uint8_t *)(dp + 1);
	action[0] = l->dflt;
	action[DPR_ACL_DEFAULT_RULE(l->n_rules)] = l->dflt;
	for (i = 0; i < l->n_rules; i++) {
		action[i + 1] = l->rules[i].action;
		dp->l4 |= (l->rules[i].match & DPR_ACL_M_L4) != 0;
		dp->proto |= (l->rules[i].match & DPR_ACL_M_PROTO) != 0;
	}
	dp->action = action;
	dp->hits = (uint64_t *)((uint8_t *)dp + hits_off);
	dp->stride = stride;
	dp->n_rules = l->n_rules;
	for (c = 0; c < RTE_DIM(dp->ctx); c++) {
		errno = 0;
		dp->ctx[c] = build_ctx(db, l, c / 2 == 0 ? DPR_AF_IP4 : DPR_AF_IP6, c % 2 != 0,
				       err, err_len);
		if (dp->ctx[c] == NULL && errno != 0)
			goto fail;
	}
	return dp;
fail:
	dp_free(dp);
	return NULL;
}

/* Wait until no worker can hold @p dp, then free it. */
static void
dp_retire(struct dpr_acl_db *db, struct dpr_acl_dp *dp)
{
	if (dp == NULL)
		return;
	if (db->qsbr != NULL)
		rte_rcu_qsbr_synchronize(db->qsbr, RTE_QSBR_THRID_INVALID);
	dp_free(dp);
}

/* --- the database ------------------------------------------------------------- */

struct dpr_acl_db *
dpr_acl_db_create(struct rte_rcu_qsbr *qsbr, unsigned int n_workers, int socket)
{
	struct dpr_acl_db *db = rte_zmalloc_socket("dpr_acl_db", sizeof(*db), RTE_CACHE_LINE_SIZE,
						   socket);
	unsigned int p;
	uint16_t cap;

	if (db == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	db->qsbr = qsbr;
	/* Whether the operator forced a width: EAL refuses a change then. */
	cap = rte_vect_get_max_simd_bitwidth();
	db->widen = cap >= RTE_VECT_SIMD_512 || rte_vect_set_max_simd_bitwidth(cap) == 0;
	db->method = -1;
	db->rows = n_workers + 1;
	db->socket = socket;
	for (p = 0; p < DPR_MAX_PORTS; p++)
		db->bound[0][p] = db->bound[1][p] = -1;
	return db;
}

void
dpr_acl_db_free(struct dpr_acl_db *db)
{
	unsigned int i;

	if (db == NULL)
		return;
	for (i = 0; i < DPR_ACL_MAX; i++) {
		views_free(db->acls[i].views);
		dp_free(db->acls[i].dp);
		dpr_acl_list_clear(&db->acls[i].list);
	}
	rte_free(db);
}

const struct dpr_acl_binds *
dpr_acl_db_binds(const struct dpr_acl_db *db)
{
	return &db->binds;
}

static int
find(const struct dpr_acl_db *db, const char *name)
{
	int i;

	for (i = 0; i < DPR_ACL_MAX; i++)
		if (db->acls[i].used && strcmp(db->acls[i].list.name, name) == 0)
			return i;
	return -1;
}

/* The binding slot of interface @p port, direction @p d. */
static struct dpr_acl_dp **
slot_of(struct dpr_acl_db *db, unsigned int d, unsigned int port)
{
	return d == DPR_ACL_IN ? &db->binds.in[port] : &db->binds.out[port];
}

/*
 * Views of compiled list @p dp for every binding of entry @p i, into
 * @p views (NULL where it is not bound). @return 0, or -ENOMEM with none
 * left made.
 */
static int
views_make(struct dpr_acl_db *db, int i, const struct dpr_acl_dp *dp,
	   struct dpr_acl_dp *views[2][DPR_MAX_PORTS])
{
	unsigned int d, p;

	memset(views, 0, 2 * sizeof(views[0]));
	for (d = 0; d < 2; d++)
		for (p = 0; p < DPR_MAX_PORTS; p++)
			if (db->bound[d][p] == i && (views[d][p] = view_make(db, dp)) == NULL)
				goto fail;
	return 0;
fail:
	views_free(views);
	return -ENOMEM;
}

/*
 * Entry @p i's views become @p views (views_make()), its bindings pointed
 * at them now; its old views go into @p views, for freeing a grace period
 * on.
 */
static void
publish(struct dpr_acl_db *db, int i, struct dpr_acl_dp *views[2][DPR_MAX_PORTS])
{
	struct acl_entry *e = &db->acls[i];
	unsigned int d, p;

	for (d = 0; d < 2; d++)
		for (p = 0; p < DPR_MAX_PORTS; p++) {
			struct dpr_acl_dp *old = e->views[d][p];

			e->views[d][p] = views[d][p];
			if (db->bound[d][p] == i)
				__atomic_store_n(slot_of(db, d, p), views[d][p], __ATOMIC_RELEASE);
			views[d][p] = old;
		}
}

int
dpr_acl_set(struct dpr_acl_db *db, struct dpr_acl_list *l, char *err, size_t err_len)
{
	static struct dpr_acl_dp *views[2][DPR_MAX_PORTS]; /* control thread only */
	struct dpr_acl_dp *dp, *old;
	uint64_t t0 = dpr_clock_now();
	int i = find(db, l->name);

	if (i < 0) {
		for (i = 0; i < DPR_ACL_MAX && db->acls[i].used; i++)
			;
		if (i == DPR_ACL_MAX) {
			snprintf(err, err_len, "acl %s: %d ACLs already, the most there can be (acl.del one)",
				 l->name, DPR_ACL_MAX);
			dpr_acl_list_clear(l);
			return -ENOSPC;
		}
	}
	db->method = -1;
	dp = dp_build(db, l, err, err_len);
	if (dp == NULL) {
		int e = errno != 0 ? errno : ENOMEM;

		dpr_acl_list_clear(l);
		return -e;
	}
	if (views_make(db, i, dp, views) < 0) {
		snprintf(err, err_len, "acl %s: no memory for its bindings' counters", l->name);
		dp_free(dp);
		dpr_acl_list_clear(l);
		return -ENOMEM;
	}
	old = db->acls[i].dp;
	dpr_acl_list_clear(&db->acls[i].list);
	db->acls[i].list = *l;
	l->rules = NULL;
	l->n_rules = 0;
	db->acls[i].dp = dp;
	db->acls[i].used = true;
	db->acls[i].build_us = (dpr_clock_now() - t0) / 1000;
	db->acls[i].method = db->method;
	publish(db, i, views);
	/* The old list's hits go with it and its views: a replaced ACL
	 * counts from 0. (A new entry had neither.) */
	if (old != NULL && db->qsbr != NULL)
		rte_rcu_qsbr_synchronize(db->qsbr, RTE_QSBR_THRID_INVALID);
	views_free(views);
	dp_free(old);
	return 0;
}

int
dpr_acl_del(struct dpr_acl_db *db, const char *name, char *err, size_t err_len)
{
	int i = find(db, name);
	unsigned int p, d;

	if (i < 0) {
		snprintf(err, err_len, "acl %s: no such ACL", name);
		return -ENOENT;
	}
	for (d = 0; d < 2; d++)
		for (p = 0; p < DPR_MAX_PORTS; p++)
			if (db->bound[d][p] == i) {
				snprintf(err, err_len, "acl %s: bound to an interface (%s): unbind it first",
					 name, d == DPR_ACL_IN ? "in" : "out");
				return -EBUSY;
			}
	/* Bound nowhere now, but a worker may still classify with it: an
	 * unbind just before is no grace period. */
	dp_retire(db, db->acls[i].dp);
	views_free(db->acls[i].views);
	dpr_acl_list_clear(&db->acls[i].list);
	memset(&db->acls[i], 0, sizeof(db->acls[i]));
	return 0;
}

int
dpr_acl_bind(struct dpr_acl_db *db, const char *name, unsigned int port, enum dpr_acl_dir dir,
	     char *err, size_t err_len)
{
	struct dpr_acl_dp *v = NULL;
	int i = -1;

	if (port >= DPR_MAX_PORTS) {
		snprintf(err, err_len, "no interface %u", port);
		return -ENOENT;
	}
	if (name != NULL && (i = find(db, name)) < 0) {
		snprintf(err, err_len, "acl %s: no such ACL (acl.set it first)", name);
		return -ENOENT;
	}
	/* The entry's view for this binding: the one it had here before (its
	 * hits go on), or a new one. A view it replaces stays its entry's,
	 * counted in its sums: nothing to free, no grace period to wait. */
	if (i >= 0) {
		struct dpr_acl_dp **own = &db->acls[i].views[dir][port];

		if (*own == NULL && (*own = view_make(db, db->acls[i].dp)) == NULL) {
			snprintf(err, err_len, "acl %s: no memory for its counters on one more interface",
				 name);
			return -ENOMEM;
		}
		v = *own;
	}
	db->bound[dir][port] = i;
	__atomic_store_n(slot_of(db, dir, port), v, __ATOMIC_RELEASE);
	return 0;
}

void
dpr_acl_iface_gone(struct dpr_acl_db *db, unsigned int port)
{
	char err[128];

	if (port >= DPR_MAX_PORTS)
		return;
	dpr_acl_bind(db, NULL, port, DPR_ACL_IN, err, sizeof(err));
	dpr_acl_bind(db, NULL, port, DPR_ACL_OUT, err, sizeof(err));
	db->ctl_drops[port] = 0;
}

void
dpr_acl_iface_closed(struct dpr_acl_db *db, unsigned int port)
{
	unsigned int i, d;

	for (i = 0; db != NULL && port < DPR_MAX_PORTS && i < DPR_ACL_MAX; i++)
		for (d = 0; d < 2; d++) {
			struct dpr_acl_dp **v = &db->acls[i].views[d][port];

			if (*v == NULL)
				continue;
			view_fold(db, db->acls[i].dp, *v);
			dp_free(*v);
			*v = NULL;
		}
}

const char *
dpr_acl_bound(const struct dpr_acl_db *db, unsigned int port, enum dpr_acl_dir dir)
{
	int i = port < DPR_MAX_PORTS ? db->bound[dir][port] : -1;

	return i >= 0 ? db->acls[i].list.name : NULL;
}

static json_t *
bound_json(const struct dpr_acl_db *db, int i, const char *const *port_names,
	   unsigned int n_ports)
{
	json_t *a = json_array();
	unsigned int p, d;

	for (p = 0; p < n_ports && p < DPR_MAX_PORTS; p++)
		for (d = 0; d < 2; d++)
			if (db->bound[d][p] == i)
				json_array_append_new(a, json_pack("{s:s,s:s}", "interface", port_names[p],
								   "direction", d == DPR_ACL_IN ? "in" : "out"));
	return a;
}

/* The classify method of entry @p e's contexts: null when it has none. */
static json_t *
method_json(const struct acl_entry *e)
{
	return e->method >= 0 ? json_string(methods[e->method].name) : json_null();
}

json_t *
dpr_acl_list_json(const struct dpr_acl_db *db, const char *const *port_names,
		  unsigned int n_ports)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < DPR_ACL_MAX; i++) {
		const struct acl_entry *e = &db->acls[i];

		if (!e->used)
			continue;
		json_array_append_new(a, json_pack("{s:s,s:s,s:I,s:o,s:I,s:o}", "name", e->list.name,
			"default", dpr_acl_action_name(e->list.dflt), "rules", (json_int_t)e->list.n_rules,
			"bound", bound_json(db, i, port_names, n_ports),
			"build_us", (json_int_t)e->build_us, "classifier", method_json(e)));
	}
	return a;
}

/* Hits of slot @p k of @p dp (a list or a view), summed over its rows. */
static uint64_t
dp_hits(const struct dpr_acl_db *db, const struct dpr_acl_dp *dp, uint32_t k)
{
	uint64_t s = 0;
	unsigned int r;

	for (r = 0; r < db->rows; r++) {
		const uint64_t *row = &dp->hits[(size_t)r * dp->stride];

		s += __atomic_load_n(&row[k], __ATOMIC_RELAXED);
		/* The default: no context, or the default's rule. */
		if (k == 0)
			s += __atomic_load_n(&row[DPR_ACL_DEFAULT_RULE(dp->n_rules)],
					     __ATOMIC_RELAXED);
	}
	return s;
}

/* Hits of slot @p k of entry @p i: its bindings' now and before. */
static uint64_t
hits_sum(const struct dpr_acl_db *db, int i, uint32_t k)
{
	uint64_t s = dp_hits(db, db->acls[i].dp, k);
	unsigned int p, d;

	for (d = 0; d < 2; d++)
		for (p = 0; p < DPR_MAX_PORTS; p++)
			if (db->acls[i].views[d][p] != NULL)
				s += dp_hits(db, db->acls[i].views[d][p], k);
	return s;
}

json_t *
dpr_acl_get_json(const struct dpr_acl_db *db, const char *name, const char *const *port_names,
		 unsigned int n_ports)
{
	int i = find(db, name);
	const struct acl_entry *e;
	json_t *rules;
	uint32_t k;

	if (i < 0)
		return NULL;
	e = &db->acls[i];
	rules = json_array();
	for (k = 0; k < e->list.n_rules; k++) {
		json_t *r = dpr_acl_rule_json(&e->list.rules[k]);

		json_object_set_new(r, "hits", json_integer((json_int_t)hits_sum(db, i, k + 1)));
		json_array_append_new(rules, r);
	}
	return json_pack("{s:s,s:s,s:I,s:o,s:o,s:I,s:o}", "name", e->list.name,
			 "default", dpr_acl_action_name(e->list.dflt),
			 "default_hits", (json_int_t)hits_sum(db, i, 0),
			 "rules", rules, "bound", bound_json(db, i, port_names, n_ports),
			 "build_us", (json_int_t)e->build_us, "classifier", method_json(e));
}

json_t *
dpr_acl_hits_json(const struct dpr_acl_db *db, const char *const *port_names,
		  unsigned int n_ports)
{
	json_t *a = json_array();
	unsigned int p, d;
	uint64_t h;
	uint32_t k;

	for (p = 0; db != NULL && p < n_ports && p < DPR_MAX_PORTS; p++) {
		for (d = 0; d < 2; d++) {
			const struct dpr_acl_dp *v = d == DPR_ACL_IN ? db->binds.in[p] : db->binds.out[p];
			int i = db->bound[d][p];
			const struct acl_entry *e;
			const char *dir = d == DPR_ACL_IN ? "in" : "out";

			if (i < 0 || v == NULL || port_names[p] == NULL)
				continue;
			e = &db->acls[i];
			json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "acl",
				e->list.name, "rule", "default", "action",
				dpr_acl_action_name(e->list.dflt), "interface", port_names[p],
				"direction", dir, "hits", (json_int_t)dp_hits(db, v, 0)));
			for (k = 0; k < e->list.n_rules; k++) {
				char rule[16];

				h = dp_hits(db, v, k + 1);
				if (h == 0)
					continue;
				snprintf(rule, sizeof(rule), "%u", k);
				json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "acl",
					e->list.name, "rule", rule, "action",
					dpr_acl_action_name(e->list.rules[k].action),
					"interface", port_names[p], "direction", dir,
					"hits", (json_int_t)h));
			}
		}
	}
	return a;
}

json_t *
dpr_acl_config_json(const struct dpr_acl_db *db)
{
	json_t *a = json_array();
	uint32_t k;
	int i;

	for (i = 0; i < DPR_ACL_MAX; i++) {
		const struct acl_entry *e = &db->acls[i];
		json_t *rules;

		if (!e->used)
			continue;
		rules = json_array();
		for (k = 0; k < e->list.n_rules; k++)
			json_array_append_new(rules, dpr_acl_rule_json(&e->list.rules[k]));
		json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "name", e->list.name,
			"default", dpr_acl_action_name(e->list.dflt), "rules", rules));
	}
	return a;
}

int
dpr_acl_load_config(struct dpr_acl_db *db, json_t *acls, const struct dpr_config *cfg,
		    char *err, size_t err_len)
{
	char path[32];
	unsigned int p, d;
	size_t i;
	int ret;

	for (i = 0; acls != NULL && i < json_array_size(acls); i++) {
		struct dpr_acl_list l;

		snprintf(path, sizeof(path), "acls[%zu]", i);
		ret = dpr_acl_list_parse(json_array_get(acls, i), path, NULL, &l, err, err_len);
		if (ret < 0 || (ret = dpr_acl_set(db, &l, err, err_len)) < 0)
			return ret;
	}
	for (p = 0; p < cfg->n_ports; p++)
		for (d = 0; d < 2; d++) {
			const char *name = d == 0 ? cfg->ports[p].acl_in : cfg->ports[p].acl_out;

			if (name[0] != '\0' &&
			    (ret = dpr_acl_bind(db, name, p, (enum dpr_acl_dir)d, err, err_len)) < 0)
				return ret;
		}
	return 0;
}

/* --- the control thread's packets -------------------------------------------- */

bool
dpr_acl_ctl_out_bound(const struct dpr_acl_db *db, unsigned int port)
{
	return db != NULL && port < DPR_MAX_PORTS && db->binds.out[port] != NULL;
}

enum dpr_acl_action
dpr_acl_ctl_out(struct dpr_acl_db *db, unsigned int port, const struct rte_mbuf *m)
{
	struct rte_mbuf *pkts[1] = { (struct rte_mbuf *)(uintptr_t)m };
	uint8_t act;

	if (!dpr_acl_ctl_out_bound(db, port))
		return DPR_ACL_PERMIT;
	dpr_acl_classify_bulk(db->binds.out[port], db->rows - 1, pkts, 1, &act);
	if (act != DPR_ACL_PERMIT)
		db->ctl_drops[port]++;
	return (enum dpr_acl_action)act;
}

json_t *
dpr_acl_stats_json(const struct dpr_acl_db *db, const char *const *port_names,
		   unsigned int n_ports)
{
	json_t *o = json_object();
	unsigned int p;

	for (p = 0; p < n_ports && p < DPR_MAX_PORTS; p++)
		if (db->ctl_drops[p] != 0)
			json_object_set_new(o, port_names[p], json_integer((json_int_t)db->ctl_drops[p]));
	return json_pack("{s:o}", "control_thread_out_drops", o);
}

/* --- advice -------------------------------------------------------------------- */

/* Whether a packet matched by rule @p b is always matched by @p a. */
static bool
covers(const struct dpr_acl_rule *a, const struct dpr_acl_rule *b)
{
	uint16_t am = a->match, bm = b->match;
	bool a_first = (am & DPR_ACL_M_L4) != 0, b_first = (bm & DPR_ACL_M_L4) != 0;

	if (a->family != 0 && a->family != b->family)
		return false;
	if ((am & DPR_ACL_M_PROTO) && (!(bm & DPR_ACL_M_PROTO) || a->proto != b->proto))
		return false;
	if ((am & DPR_ACL_M_SRC) && (!(bm & DPR_ACL_M_SRC) || a->src.len > b->src.len ||
				     !dpr_prefix_contains(&a->src, &b->src.addr)))
		return false;
	if ((am & DPR_ACL_M_DST) && (!(bm & DPR_ACL_M_DST) || a->dst.len > b->dst.len ||
				     !dpr_prefix_contains(&a->dst, &b->dst.addr)))
		return false;
	if ((am & DPR_ACL_M_SPORT) && (!(bm & DPR_ACL_M_SPORT) || a->sport_lo > b->sport_lo ||
				       a->sport_hi < b->sport_hi))
		return false;
	if ((am & DPR_ACL_M_DPORT) && (!(bm & DPR_ACL_M_DPORT) || a->dport_lo > b->dport_lo ||
				       a->dport_hi < b->dport_hi))
		return false;
	if ((am & DPR_ACL_M_ICMP_TYPE) && (!(bm & DPR_ACL_M_ICMP_TYPE) || a->icmp_type != b->icmp_type))
		return false;
	if ((am & DPR_ACL_M_ICMP_CODE) && (!(bm & DPR_ACL_M_ICMP_CODE) || a->icmp_code != b->icmp_code))
		return false;
	if ((am & DPR_ACL_M_TCP_FLAGS) &&
	    (!(bm & DPR_ACL_M_TCP_FLAGS) || (a->tcp_mask & ~b->tcp_mask) != 0 ||
	     (a->tcp_set & a->tcp_mask) != (b->tcp_set & a->tcp_mask)))
		return false;
	if ((am & DPR_ACL_M_DSCP) && (!(bm & DPR_ACL_M_DSCP) || a->dscp != b->dscp))
		return false;
	/* Fragments: "non-first" only, first and whole only (L4 fields), or any. */
	if ((am & DPR_ACL_M_NONFIRST) && !(bm & DPR_ACL_M_NONFIRST))
		return false;
	if (a_first && !b_first)
		return false;
	return true;
}

/* Pairs of rules compared at most per ACL: the check is quadratic. */
#define SHADOW_RULES_MAX 2048

/* Warnings about list @p l into @p a: bound nowhere (@p bound false), rules shadowed. */
static void
list_warnings(const struct dpr_acl_list *l, bool bound, json_t *a)
{
	char msg[256];
	uint32_t j, k;

	if (!bound) {
		snprintf(msg, sizeof(msg),
			 "acl %s is bound to no interface: it filters nothing (dprctl acl bind %s IFACE in|out)",
			 l->name, l->name);
		json_array_append_new(a, json_string(msg));
	}
	if (l->n_rules > SHADOW_RULES_MAX)
		return;
	for (k = 1; k < l->n_rules; k++)
		for (j = 0; j < k; j++)
			if (covers(&l->rules[j], &l->rules[k])) {
				snprintf(msg, sizeof(msg),
					 "acl %s: rule %u is never reached: rule %u before it matches everything it does",
					 l->name, k, j);
				json_array_append_new(a, json_string(msg));
				break;
			}
}

json_t *
dpr_acl_warnings_json(const struct dpr_acl_db *db)
{
	json_t *a = json_array();
	unsigned int p, d;
	int i;

	for (i = 0; i < DPR_ACL_MAX; i++) {
		const struct acl_entry *e = &db->acls[i];
		bool bound = false;

		if (!e->used)
			continue;
		for (d = 0; d < 2; d++)
			for (p = 0; p < DPR_MAX_PORTS; p++)
				bound |= db->bound[d][p] == i;
		list_warnings(&e->list, bound, a);
	}
	return a;
}

json_t *
dpr_acl_config_warnings_json(json_t *acls, const struct dpr_config *cfg)
{
	json_t *a = json_array();
	char err[256];
	unsigned int p;
	size_t i;

	for (i = 0; i < json_array_size(acls); i++) {
		struct dpr_acl_list l;
		bool bound = false;

		if (dpr_acl_list_parse(json_array_get(acls, i), "acls", NULL, &l, err,
				       sizeof(err)) < 0)
			continue; /* the config check says what is wrong */
		for (p = 0; p < cfg->n_ports; p++)
			bound |= strcmp(cfg->ports[p].acl_in, l.name) == 0 ||
				 strcmp(cfg->ports[p].acl_out, l.name) == 0;
		list_warnings(&l, bound, a);
		dpr_acl_list_clear(&l);
	}
	return a;
}
