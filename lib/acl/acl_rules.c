/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL rules: JSON in, checked, JSON out. Pure functions: the config
 * checker, the control API and the fuzzer call them, with no DPDK state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "acl.h"

static const char *const action_names[] = { "permit", "deny", "reject" };

static const struct { const char *name; uint8_t num; } protos[] = {
	{ "icmp", 1 }, { "igmp", 2 }, { "tcp", 6 }, { "udp", 17 }, { "gre", 47 },
	{ "esp", 50 }, { "ah", 51 }, { "icmpv6", 58 }, { "ipv6-icmp", 58 }, { "ospf", 89 },
	{ "pim", 103 }, { "vrrp", 112 }, { "sctp", 132 },
};

static const char *const tcp_flag_names[8] = {
	"fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr",
};

static const char *const rule_keys[] = {
	"action", "family", "proto", "src", "dst", "src_port", "dst_port", "icmp_type",
	"icmp_code", "tcp_flags", "dscp", "fragment", NULL
};

const char *
dpr_acl_action_name(uint8_t action)
{
	return action < RTE_DIM(action_names) ? action_names[action] : "?";
}

static int __rte_format_printf(4, 5)
fail(char *err, size_t err_len, const char *path, const char *fmt, ...)
{
	char msg[512], *c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, err_len, "%s: %s", path, msg);
	/* Names and keys from the input are quoted in it, and the path may
	 * be one (acl.set names it by the ACL's name): one line, always. */
	for (c = err; err_len > 0 && *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

static int
parse_action(const json_t *v, uint8_t *out)
{
	unsigned int i;

	if (!json_is_string(v))
		return -EINVAL;
	for (i = 0; i < RTE_DIM(action_names); i++)
		if (strcmp(json_string_value(v), action_names[i]) == 0) {
			*out = (uint8_t)i;
			return 0;
		}
	return -EINVAL;
}

static int
parse_uint(const json_t *v, unsigned int max, unsigned int *out)
{
	json_int_t n;

	if (!json_is_integer(v))
		return -EINVAL;
	n = json_integer_value(v);
	if (n < 0 || n > (json_int_t)max)
		return -ERANGE;
	*out = (unsigned int)n;
	return 0;
}

/* A port: a number, "N" or "LO-HI" (LO <= HI). */
static int
parse_port(const json_t *v, uint16_t *lo, uint16_t *hi)
{
	unsigned long a, b;
	const char *s;
	char *end;

	if (json_is_integer(v)) {
		unsigned int n;

		if (parse_uint(v, UINT16_MAX, &n) < 0)
			return -EINVAL;
		*lo = *hi = (uint16_t)n;
		return 0;
	}
	if (!json_is_string(v))
		return -EINVAL;
	s = json_string_value(v);
	if (*s < '0' || *s > '9')
		return -EINVAL;
	a = strtoul(s, &end, 10);
	if (*end == '\0') {
		b = a;
	} else {
		if (*end != '-' || end[1] < '0' || end[1] > '9')
			return -EINVAL;
		b = strtoul(end + 1, &end, 10);
		if (*end != '\0')
			return -EINVAL;
	}
	if (a > UINT16_MAX || b > UINT16_MAX || a > b)
		return -EINVAL;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

static int
parse_proto(const json_t *v, uint8_t *out)
{
	unsigned int i, n;

	if (json_is_integer(v)) {
		if (parse_uint(v, 255, &n) < 0)
			return -EINVAL;
		*out = (uint8_t)n;
		return 0;
	}
	if (!json_is_string(v))
		return -EINVAL;
	for (i = 0; i < RTE_DIM(protos); i++)
		if (strcmp(json_string_value(v), protos[i].name) == 0) {
			*out = protos[i].num;
			return 0;
		}
	return -EINVAL;
}

/* "syn,!ack": each name set (or, with '!', clear) among those looked at. */
static int
parse_tcp_flags(const char *s, uint8_t *set, uint8_t *mask)
{
	*set = *mask = 0;
	while (*s != '\0') {
		size_t len = strcspn(s, ",");
		bool neg = *s == '!';
		unsigned int i;

		if (neg) {
			s++;
			len--;
		}
		for (i = 0; i < RTE_DIM(tcp_flag_names); i++)
			if (strlen(tcp_flag_names[i]) == len && strncmp(s, tcp_flag_names[i], len) == 0)
				break;
		if (len == 0 || i == RTE_DIM(tcp_flag_names) || (*mask & (1u << i)))
			return -EINVAL;
		*mask |= (uint8_t)(1u << i);
		if (!neg)
			*set |= (uint8_t)(1u << i);
		s += len;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -EINVAL;
	}
	return *mask != 0 ? 0 : -EINVAL;
}

static int
parse_prefix(const json_t *v, struct dpr_prefix *p)
{
	if (!json_is_string(v))
		return -EINVAL;
	/* Host bits are refused: "10.0.0.1/24" is more likely a mistake
	 * than a wish for 10.0.0.0/24. */
	return dpr_prefix_parse(json_string_value(v), false, p, NULL, 0);
}

static bool
is_icmp(uint8_t proto)
{
	return proto == 1 || proto == 58;
}

static bool
has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 132;
}

static int
parse_rule(json_t *obj, const char *path, struct dpr_acl_rule *r, char *err, size_t err_len)
{
	const char *key, *fam = NULL;
	unsigned int n;
	json_t *v;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(obj))
		return fail(err, err_len, path, "expected a rule object");
	json_object_foreach(obj, key, v) {
		unsigned int i;

		for (i = 0; rule_keys[i] != NULL && strcmp(key, rule_keys[i]) != 0; i++)
			;
		if (rule_keys[i] == NULL)
			return fail(err, err_len, path,
				    "unknown field \"%s\" (expected action, family, proto, src, dst, src_port, dst_port, icmp_type, icmp_code, tcp_flags, dscp, fragment)",
				    key);
	}
	v = json_object_get(obj, "action");
	if (v == NULL || parse_action(v, &r->action) < 0)
		return fail(err, err_len, path, "action: expected \"permit\", \"deny\" or \"reject\"");

	v = json_object_get(obj, "family");
	if (v != NULL) {
		fam = json_is_string(v) ? json_string_value(v) : "";
		if (strcmp(fam, "ipv4") == 0)
			r->family = DPR_AF_IP4;
		else if (strcmp(fam, "ipv6") == 0)
			r->family = DPR_AF_IP6;
		else
			return fail(err, err_len, path, "family: expected \"ipv4\" or \"ipv6\"");
	}
	v = json_object_get(obj, "proto");
	if (v != NULL) {
		if (parse_proto(v, &r->proto) < 0)
			return fail(err, err_len, path,
				    "proto: expected a protocol number 0-255 or one of icmp, igmp, tcp, udp, gre, esp, ah, icmpv6, ospf, pim, vrrp, sctp");
		r->match |= DPR_ACL_M_PROTO;
		/* ICMP and ICMPv6 are each one family's. */
		if (r->proto == 1 || r->proto == 58) {
			uint8_t f = r->proto == 1 ? DPR_AF_IP4 : DPR_AF_IP6;

			if (r->family != 0 && r->family != f)
				return fail(err, err_len, path, "proto %s is not a protocol of %s (use %s)",
					    r->proto == 1 ? "icmp" : "icmpv6", fam,
					    r->proto == 1 ? "icmpv6" : "icmp");
			r->family = f;
		}
	}
	for (n = 0; n < 2; n++) {
		const char *k = n == 0 ? "src" : "dst";
		struct dpr_prefix *p = n == 0 ? &r->src : &r->dst;
		char buf[DPR_PREFIX_STRLEN];

		v = json_object_get(obj, k);
		if (v == NULL)
			continue;
		if (parse_prefix(v, p) < 0)
			return fail(err, err_len, path,
				    "%s: expected a prefix such as \"10.0.0.0/8\" or \"2001:db8::/32\" (no host bits)",
				    k);
		if (r->family != 0 && p->addr.af != r->family)
			return fail(err, err_len, path, "%s %s: prefix of the wrong family (the rule is %s)",
				    k, dpr_prefix_fmt(p, buf, sizeof(buf)),
				    r->family == DPR_AF_IP4 ? "IPv4" : "IPv6");
		r->family = (uint8_t)p->addr.af;
		r->match |= n == 0 ? DPR_ACL_M_SRC : DPR_ACL_M_DST;
	}
	for (n = 0; n < 2; n++) {
		const char *k = n == 0 ? "src_port" : "dst_port";

		v = json_object_get(obj, k);
		if (v == NULL)
			continue;
		if (!(r->match & DPR_ACL_M_PROTO) || !has_ports(r->proto))
			return fail(err, err_len, path, "%s: ports need proto tcp, udp or sctp%s", k,
				    (r->match & DPR_ACL_M_PROTO) && is_icmp(r->proto) ?
				    " (ICMP has none: use icmp_type and icmp_code)" : "");
		if (n == 0 ? parse_port(v, &r->sport_lo, &r->sport_hi) < 0 :
			     parse_port(v, &r->dport_lo, &r->dport_hi) < 0)
			return fail(err, err_len, path, "%s: expected a port 0-65535 or a range \"LO-HI\"",
				    k);
		r->match |= n == 0 ? DPR_ACL_M_SPORT : DPR_ACL_M_DPORT;
	}
	for (n = 0; n < 2; n++) {
		const char *k = n == 0 ? "icmp_type" : "icmp_code";
		unsigned int x;

		v = json_object_get(obj, k);
		if (v == NULL)
			continue;
		if (!(r->match & DPR_ACL_M_PROTO) || !is_icmp(r->proto))
			return fail(err, err_len, path, "%s: needs proto icmp or icmpv6", k);
		if (parse_uint(v, 255, &x) < 0)
			return fail(err, err_len, path, "%s: expected 0-255", k);
		if (n == 0)
			r->icmp_type = (uint8_t)x;
		else
			r->icmp_code = (uint8_t)x;
		r->match |= n == 0 ? DPR_ACL_M_ICMP_TYPE : DPR_ACL_M_ICMP_CODE;
	}
	v = json_object_get(obj, "tcp_flags");
	if (v != NULL) {
		if (!(r->match & DPR_ACL_M_PROTO) || r->proto != 6)
			return fail(err, err_len, path, "tcp_flags: needs proto tcp");
		if (!json_is_string(v) ||
		    parse_tcp_flags(json_string_value(v), &r->tcp_set, &r->tcp_mask) < 0)
			return fail(err, err_len, path,
				    "tcp_flags: expected flag names separated by commas, each maybe after '!' (\"syn,!ack\"): fin syn rst psh ack urg ece cwr");
		r->match |= DPR_ACL_M_TCP_FLAGS;
	}
	v = json_object_get(obj, "dscp");
	if (v != NULL) {
		unsigned int x;

		if (parse_uint(v, 63, &x) < 0)
			return fail(err, err_len, path, "dscp: expected 0-63");
		r->dscp = (uint8_t)x;
		r->match |= DPR_ACL_M_DSCP;
	}
	v = json_object_get(obj, "fragment");
	if (v != NULL) {
		if (!json_is_string(v) || strcmp(json_string_value(v), "non-first") != 0)
			return fail(err, err_len, path, "fragment: expected \"non-first\"");
		if (r->match & DPR_ACL_M_L4)
			return fail(err, err_len, path,
				    "fragment \"non-first\" with ports, ICMP or TCP flags: a non-first fragment carries none");
		r->match |= DPR_ACL_M_NONFIRST;
	}
	return 0;
}

int
dpr_acl_rules_parse(json_t *rules, const char *path, struct dpr_acl_list *out, char *err,
		    size_t err_len)
{
	char rpath[160];
	size_t i, n;
	int ret;

	if (!json_is_array(rules))
		return fail(err, err_len, path, "rules: expected an array of rules");
	n = json_array_size(rules);
	if (n > DPR_ACL_RULES_MAX)
		return fail(err, err_len, path, "rules: %zu rules, at most %d are supported", n,
			    DPR_ACL_RULES_MAX);
	free(out->rules);
	out->rules = n > 0 ? calloc(n, sizeof(*out->rules)) : NULL;
	out->n_rules = 0;
	if (n > 0 && out->rules == NULL) {
		snprintf(err, err_len, "%s: no memory for %zu rules", path, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		snprintf(rpath, sizeof(rpath), "%s.rules[%zu]", path, i);
		ret = parse_rule(json_array_get(rules, i), rpath, &out->rules[i], err, err_len);
		if (ret < 0)
			return ret;
		out->n_rules++;
	}
	return 0;
}

static bool
valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > DPR_ACL_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

int
dpr_acl_list_parse(json_t *obj, const char *path, const char *name, struct dpr_acl_list *out,
		   char *err, size_t err_len)
{
	const char *key;
	json_t *v;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(obj))
		return fail(err, err_len, path, "expected an object with name, default and rules");
	json_object_foreach(obj, key, v)
		if (strcmp(key, "name") != 0 && strcmp(key, "default") != 0 &&
		    strcmp(key, "rules") != 0)
			return fail(err, err_len, path,
				    "unknown key \"%s\" (expected one of: name, default, rules)", key);
	v = json_object_get(obj, "name");
	if (name == NULL) {
		if (v == NULL || !json_is_string(v))
			return fail(err, err_len, path, "name: expected a string");
		name = json_string_value(v);
	}
	if (!valid_name(name))
		return fail(err, err_len, path,
			    "name \"%s\": expected 1-%d letters, digits, '-', '_' or '.'", name,
			    DPR_ACL_NAME_MAX);
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->dflt = DPR_ACL_PERMIT;
	v = json_object_get(obj, "default");
	if (v != NULL && parse_action(v, &out->dflt) < 0)
		return fail(err, err_len, path, "default: expected \"permit\", \"deny\" or \"reject\"");
	v = json_object_get(obj, "rules");
	if (v == NULL)
		return 0;
	ret = dpr_acl_rules_parse(v, path, out, err, err_len);
	if (ret < 0)
		dpr_acl_list_clear(out);
	return ret;
}

void
dpr_acl_list_clear(struct dpr_acl_list *l)
{
	free(l->rules);
	l->rules = NULL;
	l->n_rules = 0;
}

static json_t *
port_json(uint16_t lo, uint16_t hi)
{
	char buf[16];

	if (lo == hi)
		return json_integer(lo);
	snprintf(buf, sizeof(buf), "%u-%u", lo, hi);
	return json_string(buf);
}

json_t *
dpr_acl_rule_json(const struct dpr_acl_rule *r)
{
	json_t *o = json_object();
	char buf[DPR_PREFIX_STRLEN];
	unsigned int i;

	json_object_set_new(o, "action", json_string(dpr_acl_action_name(r->action)));
	if (r->family != 0)
		json_object_set_new(o, "family", json_string(r->family == DPR_AF_IP4 ? "ipv4" : "ipv6"));
	if (r->match & DPR_ACL_M_PROTO) {
		const char *pn = NULL;

		for (i = 0; i < RTE_DIM(protos) && pn == NULL; i++)
			if (protos[i].num == r->proto)
				pn = protos[i].name;
		json_object_set_new(o, "proto", pn != NULL ? json_string(pn) : json_integer(r->proto));
	}
	if (r->match & DPR_ACL_M_SRC)
		json_object_set_new(o, "src", json_string(dpr_prefix_fmt(&r->src, buf, sizeof(buf))));
	if (r->match & DPR_ACL_M_DST)
		json_object_set_new(o, "dst", json_string(dpr_prefix_fmt(&r->dst, buf, sizeof(buf))));
	if (r->match & DPR_ACL_M_SPORT)
		json_object_set_new(o, "src_port", port_json(r->sport_lo, r->sport_hi));
	if (r->match & DPR_ACL_M_DPORT)
		json_object_set_new(o, "dst_port", port_json(r->dport_lo, r->dport_hi));
	if (r->match & DPR_ACL_M_ICMP_TYPE)
		json_object_set_new(o, "icmp_type", json_integer(r->icmp_type));
	if (r->match & DPR_ACL_M_ICMP_CODE)
		json_object_set_new(o, "icmp_code", json_integer(r->icmp_code));
	if (r->match & DPR_ACL_M_TCP_FLAGS) {
		char f[64] = "";
		size_t n = 0;

		for (i = 0; i < 8; i++)
			if (r->tcp_mask & (1u << i))
				n += (size_t)snprintf(f + n, sizeof(f) - n, "%s%s%s", n ? "," : "",
						      (r->tcp_set & (1u << i)) ? "" : "!",
						      tcp_flag_names[i]);
		json_object_set_new(o, "tcp_flags", json_string(f));
	}
	if (r->match & DPR_ACL_M_DSCP)
		json_object_set_new(o, "dscp", json_integer(r->dscp));
	if (r->match & DPR_ACL_M_NONFIRST)
		json_object_set_new(o, "fragment", json_string("non-first"));
	return o;
}

int
dpr_acl_config_check(json_t *acls, const struct dpr_config *cfg, char *err, size_t err_len)
{
	char path[64];
	size_t i, j;
	unsigned int p, d;

	if (acls != NULL && !json_is_array(acls))
		return fail(err, err_len, "acls", "expected an array of ACLs");
	if (acls != NULL && json_array_size(acls) > DPR_ACL_MAX)
		return fail(err, err_len, "acls", "%zu ACLs, at most %d are supported",
			    json_array_size(acls), DPR_ACL_MAX);
	for (i = 0; acls != NULL && i < json_array_size(acls); i++) {
		struct dpr_acl_list l;
		int ret;

		snprintf(path, sizeof(path), "acls[%zu]", i);
		ret = dpr_acl_list_parse(json_array_get(acls, i), path, NULL, &l, err, err_len);
		if (ret < 0)
			return ret;
		dpr_acl_list_clear(&l);
		for (j = 0; j < i; j++)
			if (strcmp(json_string_value(json_object_get(json_array_get(acls, j), "name")),
				   l.name) == 0)
				return fail(err, err_len, path, "name \"%s\": a second ACL of that name",
					    l.name);
	}
	for (p = 0; p < cfg->n_ports; p++)
		for (d = 0; d < 2; d++) {
			const char *name = d == 0 ? cfg->ports[p].acl_in : cfg->ports[p].acl_out;
			bool found = false;

			if (name[0] == '\0')
				continue;
			for (i = 0; acls != NULL && i < json_array_size(acls) && !found; i++)
				found = strcmp(json_string_value(json_object_get(json_array_get(acls, i),
										 "name")), name) == 0;
			if (!found) {
				snprintf(path, sizeof(path), "%s[%u].%s",
					 p < cfg->n_phys ? "ports" : "vlans",
					 p < cfg->n_phys ? p : p - cfg->n_phys, d == 0 ? "acl_in" : "acl_out");
				return fail(err, err_len, path, "no ACL named \"%s\" in acls", name);
			}
		}
	return 0;
}
