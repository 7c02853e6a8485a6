/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "netlink.h"

/*
 * Where a rejection is written, and where in the message the decoder is:
 * hop > 0 while it reads that hop of RTA_MULTIPATH, so each reason names it.
 */
struct nl_err {
	char *buf;
	size_t len;
	unsigned int hop;
};

static int __attribute__((format(printf, 3, 4)))
fail(const struct nl_err *e, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (e->buf == NULL || e->len == 0)
		return rc;
	if (e->hop > 0)
		n = snprintf(e->buf, e->len, "RTA_MULTIPATH hop %u: ", e->hop);
	if (n >= 0 && (size_t)n < e->len) {
		va_start(ap, fmt);
		vsnprintf(e->buf + n, e->len - n, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void
err_clear(char *err, size_t err_len)
{
	if (err != NULL && err_len > 0)
		err[0] = '\0';
}

static const char *
af_name(int family)
{
	return family == AF_INET ? "IPv4" : "IPv6";
}

/* Attribute names for the reasons; only those this module reads. */
static const char *const rta_names[RTA_MAX + 1] = {
	[RTA_DST] = "RTA_DST",
	[RTA_OIF] = "RTA_OIF",
	[RTA_GATEWAY] = "RTA_GATEWAY",
	[RTA_PRIORITY] = "RTA_PRIORITY",
	[RTA_PREFSRC] = "RTA_PREFSRC",
	[RTA_TABLE] = "RTA_TABLE",
	[RTA_VIA] = "RTA_VIA",
	[RTA_ENCAP_TYPE] = "RTA_ENCAP_TYPE",
	[RTA_NH_ID] = "RTA_NH_ID",
};

static const char *const nha_names[NHA_MAX + 1] = {
	[NHA_ID] = "NHA_ID",
	[NHA_OIF] = "NHA_OIF",
	[NHA_GATEWAY] = "NHA_GATEWAY",
	[NHA_ENCAP_TYPE] = "NHA_ENCAP_TYPE",
};

/*
 * Index the @p len bytes of attributes at @p payload by type into @p tb
 * (@p max + 1 entries; the last of a type wins, as in the kernel's
 * nla_parse). Types past @p max are ones this module never reads. libmnl's
 * walk stops quietly at an attribute that does not fit; here that is
 * malformed input, and what it left behind says how.
 */
static int
attr_index(const void *payload, size_t len, const struct nlattr **tb, uint16_t max,
	   const struct nl_err *e)
{
	const struct nlattr *attr;
	size_t used, left;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_for_each_payload(payload, len) {
		if (mnl_attr_type_valid(attr, max) > 0)
			tb[mnl_attr_get_type(attr)] = attr;
	}
	used = (size_t)((const char *)attr - (const char *)payload);
	if (used >= len) /* the last one may lack its padding */
		return 0;
	left = len - used;
	if (left < MNL_ATTR_HDRLEN)
		return fail(e, -EBADMSG, "%zu stray bytes after the attributes", left);
	if (attr->nla_len < MNL_ATTR_HDRLEN)
		return fail(e, -EBADMSG, "attribute type %u: length %u shorter than its header",
			    mnl_attr_get_type(attr), attr->nla_len);
	return fail(e, -EBADMSG, "attribute type %u: length %u runs past the end (%zu bytes left)",
		    mnl_attr_get_type(attr), attr->nla_len, left);
}

static int
attr_u32(const struct nlattr *a, const char *name, uint32_t *v, const struct nl_err *e)
{
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return fail(e, -EBADMSG, "%s length %u, want 4", name, mnl_attr_get_payload_len(a));
	*v = mnl_attr_get_u32(a);
	return 0;
}

static int
attr_u16(const struct nlattr *a, const char *name, uint16_t *v, const struct nl_err *e)
{
	if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
		return fail(e, -EBADMSG, "%s length %u, want 2", name, mnl_attr_get_payload_len(a));
	*v = mnl_attr_get_u16(a);
	return 0;
}

/* Netlink carries addresses in network byte order; dpr keeps IPv4 in host order. */
static void
ip_set(struct dpr_ip *ip, int family, const void *bytes)
{
	uint32_t be;

	memset(ip, 0, sizeof(*ip));
	if (family == AF_INET) {
		memcpy(&be, bytes, sizeof(be));
		ip->af = DPR_AF_IP4;
		ip->ip4 = ntohl(be);
	} else {
		ip->af = DPR_AF_IP6;
		memcpy(ip->ip6, bytes, sizeof(ip->ip6));
	}
}

/* An address of @p family (AF_INET or AF_INET6), exactly its length. */
static int
attr_ip(const struct nlattr *a, const char *name, int family, struct dpr_ip *ip,
	const struct nl_err *e)
{
	size_t alen = family == AF_INET ? 4 : 16;

	if (mnl_attr_validate2(a, MNL_TYPE_BINARY, alen) < 0)
		return fail(e, -EBADMSG, "%s length %u for %s", name, mnl_attr_get_payload_len(a),
			    af_name(family));
	ip_set(ip, family, mnl_attr_get_payload(a));
	return 0;
}

/*
 * RTA_METRICS, nested RTAX_* attributes, as one number (FNV-1a of its
 * payload; never 0): the kernel writes them in RTAX_ order, so equal
 * metrics give equal bytes.
 */
static uint32_t
metrics_digest(const struct nlattr *a)
{
	const uint8_t *p = mnl_attr_get_payload(a);
	uint16_t i, n = mnl_attr_get_payload_len(a);
	uint32_t h = 2166136261u;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h != 0 ? h : 1;
}

/*
 * RTA_VIA (struct rtvia): a gateway that names its own family, how the
 * kernel reports an IPv4 route through an IPv6 neighbour (RFC 5549).
 */
static int
attr_via(const struct nlattr *a, struct dpr_ip *ip, const struct nl_err *e)
{
	uint16_t plen = mnl_attr_get_payload_len(a);
	const struct rtvia *via;
	size_t want;

	if (plen < sizeof(*via))
		return fail(e, -EBADMSG, "RTA_VIA length %u too short for its family", plen);
	via = mnl_attr_get_payload(a);
	if (via->rtvia_family != AF_INET && via->rtvia_family != AF_INET6)
		return fail(e, -EBADMSG, "RTA_VIA family %u is neither IPv4 nor IPv6",
			    via->rtvia_family);
	want = sizeof(*via) + (via->rtvia_family == AF_INET ? 4 : 16);
	if (mnl_attr_validate2(a, MNL_TYPE_BINARY, want) < 0)
		return fail(e, -EBADMSG, "RTA_VIA length %u for %s, want %zu", plen,
			    af_name(via->rtvia_family), want);
	ip_set(ip, via->rtvia_family, via->rtvia_addr);
	return 0;
}

/* The gateway and encapsulation of one path, from its attributes in @p tb. */
static int
path_fill(const struct nlattr *const *tb, int family, struct dpr_nl_nh *nh,
	  const struct nl_err *e)
{
	int rc = 0;

	if (tb[RTA_GATEWAY] != NULL && tb[RTA_VIA] != NULL)
		return fail(e, -EBADMSG, "both RTA_GATEWAY and RTA_VIA");
	/* An IPv4 route's RTA_GATEWAY of an IPv6 address's length: an IPv6
	 * neighbour (RFC 8950), as some FPM clients send it instead of RTA_VIA. */
	if (tb[RTA_GATEWAY] != NULL && family == AF_INET &&
	    mnl_attr_get_payload_len(tb[RTA_GATEWAY]) == 16)
		rc = attr_ip(tb[RTA_GATEWAY], "RTA_GATEWAY", AF_INET6, &nh->gw, e);
	else if (tb[RTA_GATEWAY] != NULL)
		rc = attr_ip(tb[RTA_GATEWAY], "RTA_GATEWAY", family, &nh->gw, e);
	else if (tb[RTA_VIA] != NULL)
		rc = attr_via(tb[RTA_VIA], &nh->gw, e);
	if (rc == 0 && tb[RTA_ENCAP_TYPE] != NULL)
		rc = attr_u16(tb[RTA_ENCAP_TYPE], rta_names[RTA_ENCAP_TYPE], &nh->encap_type, e);
	return rc;
}

/*
 * RTA_MULTIPATH: an array of struct rtnexthop, each followed by its own
 * attributes (RTA_GATEWAY or RTA_VIA, RTA_ENCAP...). RTNH_OK and RTNH_NEXT
 * are the kernel's own walk; each hop's attributes go through libmnl.
 */
static int
multipath_parse(const struct nlattr *mp, int family, struct dpr_nl_route *r, struct nl_err *e)
{
	const struct rtnexthop *rtnh = mnl_attr_get_payload(mp);
	int rem = mnl_attr_get_payload_len(mp);
	const struct nlattr *tb[RTA_MAX + 1];
	struct dpr_nl_nh *nh;
	int rc;

	if (rem == 0)
		return fail(e, -EBADMSG, "RTA_MULTIPATH holds no next hop");
	while (rem > 0) {
		if (rem < (int)sizeof(*rtnh))
			return fail(e, -EBADMSG, "RTA_MULTIPATH: %d stray bytes after hop %u", rem,
				    r->n_nh);
		if (!RTNH_OK(rtnh, rem)) {
			if (rtnh->rtnh_len < sizeof(*rtnh))
				return fail(e, -EBADMSG,
					    "RTA_MULTIPATH: hop %u: rtnh_len %u shorter than struct rtnexthop",
					    r->n_nh + 1, rtnh->rtnh_len);
			return fail(e, -EBADMSG,
				    "RTA_MULTIPATH: hop %u: rtnh_len %u past the attribute (%d bytes left)",
				    r->n_nh + 1, rtnh->rtnh_len, rem);
		}
		if (r->n_nh == DPR_NL_MAX_NH)
			return fail(e, -E2BIG, "more than %u next hops", DPR_NL_MAX_NH);
		nh = &r->nh[r->n_nh];
		e->hop = r->n_nh + 1;
		rc = attr_index(RTNH_DATA(rtnh), rtnh->rtnh_len - sizeof(*rtnh), tb, RTA_MAX, e);
		if (rc == 0)
			rc = path_fill(tb, family, nh, e);
		e->hop = 0;
		if (rc < 0)
			return rc;
		nh->ifindex = (uint32_t)rtnh->rtnh_ifindex;
		nh->weight = (uint16_t)rtnh->rtnh_hops + 1;
		nh->flags = rtnh->rtnh_flags;
		r->n_nh++;
		rem -= RTNH_ALIGN(rtnh->rtnh_len);
		rtnh = RTNH_NEXT(rtnh);
	}
	return 0;
}

int
dpr_nl_route_parse(const struct nlmsghdr *nlh, struct dpr_nl_route *r, char *err, size_t err_len)
{
	struct nl_err e = { .buf = err, .len = err_len };
	const struct nlattr *tb[RTA_MAX + 1];
	char buf[DPR_PREFIX_STRLEN];
	const struct rtmsg *rtm;
	struct dpr_prefix masked;
	unsigned int max_len;
	int family, rc;

	err_clear(err, err_len);
	if (nlh->nlmsg_type != RTM_NEWROUTE && nlh->nlmsg_type != RTM_DELROUTE)
		return fail(&e, -EINVAL, "message type %u is not a route", nlh->nlmsg_type);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*rtm))
		return fail(&e, -EBADMSG, "nlmsg_len %u too short for struct rtmsg",
			    nlh->nlmsg_len);
	rtm = mnl_nlmsg_get_payload(nlh);
	family = rtm->rtm_family;
	if (family != AF_INET && family != AF_INET6)
		return fail(&e, -EAFNOSUPPORT, "route family %u%s is neither IPv4 nor IPv6", family,
			    family == AF_MPLS ? " (MPLS)" : "");
	max_len = family == AF_INET ? 32 : 128;
	if (rtm->rtm_dst_len > max_len)
		return fail(&e, -EBADMSG, "prefix length %u for %s", rtm->rtm_dst_len,
			    af_name(family));
	/* dpr's FIB matches destinations only: dropping the source would
	 * make the route match more than it says. */
	if (rtm->rtm_src_len != 0)
		return fail(&e, -EOPNOTSUPP, "source-specific route (from a /%u) is not supported",
			    rtm->rtm_src_len);
	rc = attr_index(mnl_nlmsg_get_payload_offset(nlh, sizeof(*rtm)),
			nlh->nlmsg_len - NLMSG_HDRLEN - MNL_ALIGN(sizeof(*rtm)), tb, RTA_MAX, &e);
	if (rc < 0)
		return rc;

	memset(r, 0, sizeof(*r));
	r->del = nlh->nlmsg_type == RTM_DELROUTE;
	r->table = rtm->rtm_table;
	r->protocol = rtm->rtm_protocol;
	r->type = rtm->rtm_type;
	r->scope = rtm->rtm_scope;
	r->tos = rtm->rtm_tos;
	r->prefix.len = rtm->rtm_dst_len;
	r->prefix.addr.af = family == AF_INET ? DPR_AF_IP4 : DPR_AF_IP6;
	/* The kernel leaves RTA_DST out of a default route. */
	if (tb[RTA_DST] != NULL) {
		rc = attr_ip(tb[RTA_DST], rta_names[RTA_DST], family, &r->prefix.addr, &e);
		if (rc < 0)
			return rc;
	} else if (rtm->rtm_dst_len != 0) {
		return fail(&e, -EBADMSG, "RTA_DST missing for a /%u", rtm->rtm_dst_len);
	}
	masked = r->prefix;
	dpr_prefix_mask(&masked);
	if (!dpr_ip_equal(&masked.addr, &r->prefix.addr))
		return fail(&e, -EBADMSG, "prefix %s has bits set past its length",
			    dpr_prefix_fmt(&r->prefix, buf, sizeof(buf)));
	if (tb[RTA_TABLE] != NULL && (rc = attr_u32(tb[RTA_TABLE], rta_names[RTA_TABLE],
						    &r->table, &e)) < 0)
		return rc;
	if (tb[RTA_PRIORITY] != NULL && (rc = attr_u32(tb[RTA_PRIORITY], rta_names[RTA_PRIORITY],
						       &r->priority, &e)) < 0)
		return rc;
	if (tb[RTA_PREFSRC] != NULL && (rc = attr_ip(tb[RTA_PREFSRC], rta_names[RTA_PREFSRC],
						     family, &r->prefsrc, &e)) < 0)
		return rc;
	if (tb[RTA_METRICS] != NULL)
		r->metrics = metrics_digest(tb[RTA_METRICS]);
	if (tb[RTA_NH_ID] != NULL) {
		rc = attr_u32(tb[RTA_NH_ID], rta_names[RTA_NH_ID], &r->nhg_id, &e);
		if (rc < 0)
			return rc;
		if (r->nhg_id == 0)
			return fail(&e, -EBADMSG, "RTA_NH_ID 0");
	}

	if (tb[RTA_MULTIPATH] != NULL) {
		if (tb[RTA_GATEWAY] != NULL || tb[RTA_VIA] != NULL || tb[RTA_OIF] != NULL)
			return fail(&e, -EBADMSG,
				    "RTA_MULTIPATH together with RTA_GATEWAY, RTA_VIA or RTA_OIF");
		return multipath_parse(tb[RTA_MULTIPATH], family, r, &e);
	}
	if (tb[RTA_GATEWAY] == NULL && tb[RTA_VIA] == NULL && tb[RTA_OIF] == NULL)
		return 0; /* blackhole, unreachable, or a next-hop object alone */
	if (tb[RTA_OIF] != NULL && (rc = attr_u32(tb[RTA_OIF], rta_names[RTA_OIF],
						  &r->nh[0].ifindex, &e)) < 0)
		return rc;
	rc = path_fill(tb, family, &r->nh[0], &e);
	if (rc < 0)
		return rc;
	r->nh[0].weight = 1;
	/* A single path keeps its RTNH_F_* flags in rtm_flags' low byte. */
	r->nh[0].flags = (uint8_t)rtm->rtm_flags;
	r->n_nh = 1;
	return 0;
}

/* NHA_GROUP: an array of struct nexthop_grp. */
static int
group_parse(const struct nlattr *a, struct dpr_nl_nexthop *nh, const struct nl_err *e)
{
	uint16_t len = mnl_attr_get_payload_len(a);
	const struct nexthop_grp *g = mnl_attr_get_payload(a);
	unsigned int i, j, n = len / sizeof(*g);

	if (len == 0 || len % sizeof(*g) != 0)
		return fail(e, -EBADMSG, "NHA_GROUP length %u is not a positive multiple of %zu",
			    len, sizeof(*g));
	if (n > DPR_NL_MAX_NH)
		return fail(e, -E2BIG, "NHA_GROUP: more than %u next hops (%u)", DPR_NL_MAX_NH, n);
	for (i = 0; i < n; i++) {
		if (g[i].id == 0)
			return fail(e, -EBADMSG, "NHA_GROUP member %u: id 0", i + 1);
		for (j = 0; j < i; j++) {
			if (g[j].id == g[i].id)
				return fail(e, -EBADMSG, "NHA_GROUP member %u: id %u listed twice",
					    i + 1, g[i].id);
		}
		nh->grp[i].id = g[i].id;
		nh->grp[i].weight = (uint16_t)g[i].weight + 1;
	}
	nh->n_grp = n;
	return 0;
}

int
dpr_nl_nexthop_parse(const struct nlmsghdr *nlh, struct dpr_nl_nexthop *nh, char *err,
		     size_t err_len)
{
	struct nl_err e = { .buf = err, .len = err_len };
	const struct nlattr *tb[NHA_MAX + 1];
	const struct nhmsg *nhm;
	int rc;

	err_clear(err, err_len);
	if (nlh->nlmsg_type != RTM_NEWNEXTHOP && nlh->nlmsg_type != RTM_DELNEXTHOP)
		return fail(&e, -EINVAL, "message type %u is not a next hop", nlh->nlmsg_type);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*nhm))
		return fail(&e, -EBADMSG, "nlmsg_len %u too short for struct nhmsg",
			    nlh->nlmsg_len);
	nhm = mnl_nlmsg_get_payload(nlh);
	if (nhm->nh_family != AF_UNSPEC && nhm->nh_family != AF_INET &&
	    nhm->nh_family != AF_INET6)
		return fail(&e, -EAFNOSUPPORT, "next-hop family %u is neither IPv4 nor IPv6",
			    nhm->nh_family);
	rc = attr_index(mnl_nlmsg_get_payload_offset(nlh, sizeof(*nhm)),
			nlh->nlmsg_len - NLMSG_HDRLEN - MNL_ALIGN(sizeof(*nhm)), tb, NHA_MAX, &e);
	if (rc < 0)
		return rc;

	memset(nh, 0, sizeof(*nh));
	nh->del = nlh->nlmsg_type == RTM_DELNEXTHOP;
	nh->af = nhm->nh_family == AF_INET ? DPR_AF_IP4 :
		 nhm->nh_family == AF_INET6 ? DPR_AF_IP6 : 0;
	nh->protocol = nhm->nh_protocol;
	nh->nh.weight = 1;
	nh->nh.flags = (uint8_t)nhm->nh_flags;
	if (tb[NHA_ID] == NULL)
		return fail(&e, -EBADMSG, "NHA_ID missing");
	rc = attr_u32(tb[NHA_ID], nha_names[NHA_ID], &nh->id, &e);
	if (rc < 0)
		return rc;
	if (nh->id == 0)
		return fail(&e, -EBADMSG, "NHA_ID 0");
	if (tb[NHA_BLACKHOLE] != NULL) {
		if (mnl_attr_validate(tb[NHA_BLACKHOLE], MNL_TYPE_FLAG) < 0)
			return fail(&e, -EBADMSG, "NHA_BLACKHOLE length %u, want 0",
				    mnl_attr_get_payload_len(tb[NHA_BLACKHOLE]));
		nh->blackhole = true;
	}
	if (tb[NHA_GATEWAY] != NULL) {
		if (nh->af == 0)
			return fail(&e, -EBADMSG, "NHA_GATEWAY in a next hop of no family");
		rc = attr_ip(tb[NHA_GATEWAY], nha_names[NHA_GATEWAY], nhm->nh_family, &nh->nh.gw,
			     &e);
		if (rc < 0)
			return rc;
	}
	if (tb[NHA_OIF] != NULL && (rc = attr_u32(tb[NHA_OIF], nha_names[NHA_OIF],
						  &nh->nh.ifindex, &e)) < 0)
		return rc;
	if (tb[NHA_ENCAP_TYPE] != NULL &&
	    (rc = attr_u16(tb[NHA_ENCAP_TYPE], nha_names[NHA_ENCAP_TYPE], &nh->nh.encap_type,
			   &e)) < 0)
		return rc;
	if (tb[NHA_GROUP] != NULL) {
		/* linux/nexthop.h: a group has no other attributes. */
		if (tb[NHA_GATEWAY] != NULL || tb[NHA_OIF] != NULL || nh->blackhole)
			return fail(&e, -EBADMSG,
				    "NHA_GROUP together with NHA_GATEWAY, NHA_OIF or NHA_BLACKHOLE");
		return group_parse(tb[NHA_GROUP], nh, &e);
	}
	if (nh->blackhole && (tb[NHA_GATEWAY] != NULL || tb[NHA_OIF] != NULL))
		return fail(&e, -EBADMSG, "NHA_BLACKHOLE together with NHA_GATEWAY or NHA_OIF");
	if (!nh->del && !nh->blackhole && tb[NHA_GATEWAY] == NULL && tb[NHA_OIF] == NULL)
		return fail(&e, -EBADMSG,
			    "next hop %u has neither NHA_GROUP, NHA_BLACKHOLE, NHA_GATEWAY nor NHA_OIF",
			    nh->id);
	return 0;
}

int
dpr_nl_msg_next(const uint8_t **buf, size_t *len, const struct nlmsghdr **nlh, char *err,
		size_t err_len)
{
	struct nl_err e = { .buf = err, .len = err_len };
	const struct nlmsghdr *m = (const void *)*buf;
	size_t adv;

	err_clear(err, err_len);
	if (*len == 0)
		return 0;
	if ((uintptr_t)*buf % NLMSG_ALIGNTO != 0)
		return fail(&e, -EINVAL, "netlink buffer %p is not 4-byte aligned",
			    (const void *)*buf);
	if (*len < sizeof(*m))
		return fail(&e, -EBADMSG, "%zu bytes left, too few for a netlink header", *len);
	/* mnl_nlmsg_ok() compares nlmsg_len as an int: one of 2^31 or more
	 * passes as negative, hence the unsigned comparison too. */
	if (!mnl_nlmsg_ok(m, *len > INT32_MAX ? INT32_MAX : (int)*len) || m->nlmsg_len > *len) {
		if (m->nlmsg_len < sizeof(*m))
			return fail(&e, -EBADMSG, "nlmsg_len %u shorter than its header",
				    m->nlmsg_len);
		return fail(&e, -EBADMSG, "nlmsg_len %u runs past the buffer (%zu bytes left)",
			    m->nlmsg_len, *len);
	}
	*nlh = m;
	/* The last message may lack its padding. */
	adv = MNL_ALIGN(m->nlmsg_len);
	if (adv > *len)
		adv = *len;
	*buf += adv;
	*len -= adv;
	return 1;
}

int
dpr_fpm_frame(const uint8_t *buf, size_t len, const uint8_t **payload, size_t *plen, char *err,
	      size_t err_len)
{
	struct nl_err e = { .buf = err, .len = err_len };
	unsigned int flen;

	err_clear(err, err_len);
	if (len < DPR_FPM_HDR_LEN)
		return 0;
	if (buf[0] != DPR_FPM_VERSION)
		return fail(&e, -EPROTO, "FPM version %u, want %u", buf[0], DPR_FPM_VERSION);
	if (buf[1] != DPR_FPM_TYPE_NETLINK)
		return fail(&e, -EPROTO, "FPM message type %u%s is not netlink (%u)", buf[1],
			    buf[1] == 2 ? " (protobuf)" : "", DPR_FPM_TYPE_NETLINK);
	flen = (unsigned int)buf[2] << 8 | buf[3];
	if (flen < DPR_FPM_HDR_LEN)
		return fail(&e, -EBADMSG, "FPM length %u shorter than its header", flen);
	if (flen % NLMSG_ALIGNTO != 0)
		return fail(&e, -EBADMSG, "FPM length %u is not a multiple of %u", flen,
			    NLMSG_ALIGNTO);
	if (len < flen)
		return 0;
	*payload = buf + DPR_FPM_HDR_LEN;
	*plen = flen - DPR_FPM_HDR_LEN;
	return (int)flen;
}

/* libmnl's walk stays inside the message. */
void
dpr_nl_route_peek(const struct nlmsghdr *nlh, struct dpr_prefix *p, uint32_t *table, uint8_t *proto)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	size_t alen = rtm->rtm_family == AF_INET ? 4 : 16;

	memset(p, 0, sizeof(*p));
	p->addr.af = rtm->rtm_family == AF_INET ? DPR_AF_IP4 : DPR_AF_IP6;
	p->len = rtm->rtm_dst_len;
	*table = rtm->rtm_table;
	*proto = rtm->rtm_protocol;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		if (mnl_attr_get_type(a) == RTA_TABLE && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			*table = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == RTA_DST && mnl_attr_get_payload_len(a) == alen) {
			uint32_t be;

			if (alen == 4) {
				memcpy(&be, mnl_attr_get_payload(a), sizeof(be));
				p->addr.ip4 = ntohl(be);
			} else {
				memcpy(p->addr.ip6, mnl_attr_get_payload(a), 16);
			}
		}
	}
}
