/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <linux/rtnetlink.h>
#include <rte_common.h>
#include <rte_pci.h>

#include "config.h"
#include "../acl/acl.h"
#include "../fpm/fpm.h"
#include "../netlink/netlink.h"
#include "../port/port.h"
#include "../route/route.h"
#include "../util/log.h"

static_assert(DPR_MAX_PORTS <= DPR_IFADDR_MAX_PORTS && DPR_MAX_PORT_ADDRS < DPR_IFADDR_MAX_PER_PORT,
	      "the address table holds every address a config gives, and a link-local one");

/* Parser state: the error buffer and the JSON path of the value at hand. */
struct parser {
	char *err;
	size_t err_len;
	const char *origin;
	struct dpr_config *cfg;
	/* The addresses read so far, to check the rest against (lib/ifaddr). */
	struct dpr_ifaddrs addrs;
};

static int __rte_format_printf(3, 4)
fail(struct parser *ps, const char *path, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* No origin: a check the control API shares, its message bare. */
	if (ps->origin == NULL)
		snprintf(ps->err, ps->err_len, "%s%s%s", path != NULL ? path : "",
			 path != NULL ? ": " : "", msg);
	else
		snprintf(ps->err, ps->err_len, "config: %s: %s%s%s", ps->origin,
			 path != NULL ? path : "", path != NULL ? ": " : "", msg);
	return -EINVAL;
}

static const char *
type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* Every object rejects keys it does not know, naming those it does. */
static int
check_keys(struct parser *ps, const char *path, json_t *obj,
	   const char *const *known)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		char list[256] = "";
		size_t n = 0;
		unsigned int i;
		bool ok = false;

		for (i = 0; known[i] != NULL; i++) {
			if (strcmp(key, known[i]) == 0)
				ok = true;
			n += snprintf(list + n, sizeof(list) - n, "%s%s",
				      i ? ", " : "", known[i]);
			if (n >= sizeof(list))
				n = sizeof(list) - 1;
		}
		if (!ok)
			return fail(ps, path, "unknown key \"%s\" (expected one of: %s)",
				    key, list);
	}
	return 0;
}

static int
get_object(struct parser *ps, const char *path, json_t *v)
{
	if (!json_is_object(v))
		return fail(ps, path, "expected an object, got %s", type_name(v));
	return 0;
}

static int
get_string(struct parser *ps, const char *path, json_t *obj, const char *key,
	   bool required, const char **out)
{
	char p[256];
	json_t *v = json_object_get(obj, key);

	snprintf(p, sizeof(p), "%s.%s", path, key);
	*out = NULL;
	if (v == NULL) {
		if (required)
			return fail(ps, path, "missing required key \"%s\"", key);
		return 0;
	}
	if (!json_is_string(v))
		return fail(ps, p, "expected a string, got %s", type_name(v));
	if (json_string_length(v) == 0)
		return fail(ps, p, "must not be empty");
	*out = json_string_value(v);
	return 0;
}

/* @path.@key: a FIB algorithm by its name (dpr_fib_algo_name()). */
static int
get_algorithm(struct parser *ps, const char *path, json_t *fib, const char *key,
	      enum dpr_fib_algo *out)
{
	static const enum dpr_fib_algo algos[] = { DPR_FIB_DIR24_8, DPR_FIB_POPTRIE };
	char p[64];
	const char *name;
	unsigned int i;
	int ret;

	if ((ret = get_string(ps, path, fib, key, false, &name)) < 0 || name == NULL)
		return ret;
	for (i = 0; i < RTE_DIM(algos); i++)
		if (strcmp(name, dpr_fib_algo_name(algos[i])) == 0) {
			*out = algos[i];
			return 0;
		}
	snprintf(p, sizeof(p), "%s.%s", path, key);
	return fail(ps, p, "unknown FIB algorithm \"%s\" (expected \"dir-24-8\" or \"poptrie\")",
		    name);
}

static int
get_uint(struct parser *ps, const char *path, json_t *obj, const char *key,
	 uint64_t min, uint64_t max, uint64_t *out)
{
	char p[256];
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return 0;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) < min ||
	    (uint64_t)json_integer_value(v) > max)
	{
		char got[32];

		if (json_is_integer(v))
			snprintf(got, sizeof(got), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else
			snprintf(got, sizeof(got), "%s", type_name(v));
		return fail(ps, p, "expected an integer from %" PRIu64 " to %" PRIu64 ", got %s",
			    min, max, got);
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int
get_bool(struct parser *ps, const char *path, json_t *obj, const char *key, bool *out)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return fail(ps, path, "%s: expected true or false, got %s", key, type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* ports[].neighbor_learning, by enum dpr_neigh_learning. */
static const char *const learning_modes[] = {
	[DPR_NEIGH_LEARN] = "learn",
	[DPR_NEIGH_IGNORE_GRATUITOUS] = "ignore_gratuitous",
	[DPR_NEIGH_STATIC_ONLY] = "static_only",
};

const char *
dpr_config_neigh_learning_name(enum dpr_neigh_learning mode)
{
	return (unsigned int)mode < RTE_DIM(learning_modes) ? learning_modes[mode] : NULL;
}

/* Letters, digits, '-' and '_'; a VLAN interface's name may have '.'
 * too ("p0.100", as Linux names them). */
static bool
valid_port_name(const char *s, bool vlan)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > DPR_PORT_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ||
		      (vlan && s[i] == '.')))
			return false;
	return true;
}

/* '-' and '.' as '_': as a telemetry key reads a name. */
static bool
same_key(const char *a, const char *b)
{
	for (; *a != '\0' && *b != '\0'; a++, b++) {
		char x = *a == '-' || *a == '.' ? '_' : *a;
		char y = *b == '-' || *b == '.' ? '_' : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

bool
dpr_port_name_valid(const char *name, bool vlan)
{
	return valid_port_name(name, vlan);
}

bool
dpr_tap_name_valid(const char *name)
{
	size_t k;

	for (k = 0; name[k] != '\0'; k++)
		if (!((name[k] >= 'a' && name[k] <= 'z') || (name[k] >= 'A' && name[k] <= 'Z') ||
		      (name[k] >= '0' && name[k] <= '9') || name[k] == '-' || name[k] == '_' ||
		      name[k] == '.'))
			return false;
	/* Linux refuses "." and ".." (dev_valid_name()). */
	return k >= 1 && k <= 15 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

bool
dpr_vrf_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > DPR_VRF_NAME_MAX || strcmp(name, DPR_VRF_DEFAULT_NAME) == 0)
		return false;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-'))
			return false;
	return true;
}

const char *
dpr_config_iface_path(const struct dpr_config *cfg, unsigned int i, char *buf, size_t len)
{
	if (i < cfg->n_phys)
		snprintf(buf, len, "ports[%u]", i);
	else
		snprintf(buf, len, "vlans[%u]", i - cfg->n_phys);
	return buf;
}

/* An interface address must be a unicast host address (RFC 1812 5.3.7). */
static const char *
bad_ip4_unicast(uint32_t a)
{
	if ((a >> 24) == 0)
		return "in 0.0.0.0/8 (\"this network\")";
	if ((a >> 24) == 127)
		return "a loopback address";
	if ((a >> 28) == 0xe)
		return "a multicast address";
	if ((a >> 28) == 0xf)
		return "a reserved (class E) or broadcast address";
	return NULL;
}

static const char *
bad_ip6_unicast(const struct dpr_prefix *p)
{
	static const uint8_t loopback[16] = { [15] = 1 };
	static const uint8_t zero[16];

	if (p->addr.ip6[0] == 0xff)
		return "a multicast address";
	if (memcmp(p->addr.ip6, zero, 16) == 0)
		return "the unspecified address";
	if (memcmp(p->addr.ip6, loopback, 16) == 0)
		return "the loopback address";
	if (p->len == 0)
		return "on a /0 subnet (every destination would look attached)";
	return NULL;
}

/* "10.0.1.1/24": say which part is wrong. */
static int
check_address(struct parser *ps, const char *path, const char *s, struct dpr_prefix *p)
{
	const char *slash = strchr(s, '/');
	char addr[DPR_PREFIX_STRLEN];
	struct dpr_ip ip;
	size_t n;

	if (slash == NULL)
		return fail(ps, path, "\"%s\": missing the prefix length, like \"%s/24\"", s, s);
	n = (size_t)(slash - s);
	if (n >= sizeof(addr) || (memcpy(addr, s, n), addr[n] = '\0', dpr_ip_parse(addr, &ip) < 0))
		return fail(ps, path, "\"%s\": \"%.*s\" is not an IPv4 or IPv6 address",
			    s, (int)RTE_MIN(n, sizeof(addr) - 1), s);
	if (dpr_prefix_parse(s, true, p, NULL, 0) < 0)
		return fail(ps, path, "\"%s\": prefix length \"%s\" is not a number from 0 to %d",
			    s, slash + 1, ip.af == DPR_AF_IP4 ? 32 : 128);
	return 0;
}

/* One interface address: a unicast host address (RFC 1812 5.3.7, RFC 4291). */
static int
check_port_address(struct parser *ps, const char *ap, const char *text, struct dpr_prefix *p)
{
	const char *why;
	int ret;

	ret = check_address(ps, ap, text, p);
	if (ret < 0)
		return ret;
	if (p->addr.af == DPR_AF_IP6) {
		why = bad_ip6_unicast(p);
		if (why != NULL)
			return fail(ps, ap, "\"%s\": is %s, expected a unicast address",
				    text, why);
	}
	if (p->addr.af == DPR_AF_IP4) {
		why = bad_ip4_unicast(p->addr.ip4);
		if (why != NULL)
			return fail(ps, ap, "\"%s\": is %s, expected a unicast address",
				    text, why);
		if (p->len < 31 && p->len > 0 &&
		    ((p->addr.ip4 & ~dpr_ip4_mask(p->len)) == 0 ||
		     (p->addr.ip4 | dpr_ip4_mask(p->len)) == UINT32_MAX))
			return fail(ps, ap, "\"%s\": is the subnet's network or broadcast address, expected a host address",
				    text);
		if (p->len == 0)
			return fail(ps, ap, "\"%s\": a /0 subnet is not a valid interface address",
				    text);
	}
	return 0;
}

/*
 * ports[].router_advertisements: RFC 4861 6.2.1 variables, with its ranges
 * and defaults. Checked against the port's addresses by the caller.
 */
static int
parse_ra_prefix(struct parser *ps, const char *path, json_t *obj, struct dpr_ra_prefix_conf *pc)
{
	static const char *const keys[] = {
		"prefix", "on_link", "autonomous", "valid_lifetime", "preferred_lifetime", NULL
	};
	char hint[DPR_PREFIX_STRLEN] = "";
	uint64_t valid = 2592000, preferred = 604800; /* 30 and 7 days (RFC 4861 6.2.1) */
	const char *prefix;
	int ret;

	pc->on_link = true;
	pc->autonomous = true;
	if ((ret = get_object(ps, path, obj)) < 0 ||
	    (ret = check_keys(ps, path, obj, keys)) < 0 ||
	    (ret = get_string(ps, path, obj, "prefix", true, &prefix)) < 0 ||
	    (ret = get_bool(ps, path, obj, "on_link", &pc->on_link)) < 0 ||
	    (ret = get_bool(ps, path, obj, "autonomous", &pc->autonomous)) < 0 ||
	    (ret = get_uint(ps, path, obj, "valid_lifetime", 0, UINT32_MAX, &valid)) < 0 ||
	    (ret = get_uint(ps, path, obj, "preferred_lifetime", 0, UINT32_MAX, &preferred)) < 0)
		return ret;
	if (dpr_prefix_parse(prefix, false, &pc->prefix, hint, sizeof(hint)) < 0) {
		if (hint[0] != '\0')
			return fail(ps, path, "prefix \"%s\": has host bits set, did you mean \"%s\"?",
				    prefix, hint);
		return fail(ps, path, "prefix \"%s\": expected an IPv6 prefix like \"2001:db8:1::/64\"",
			    prefix);
	}
	if (pc->prefix.addr.af != DPR_AF_IP6)
		return fail(ps, path, "prefix \"%s\": router advertisements carry IPv6 prefixes, like \"2001:db8:1::/64\"",
			    prefix);
	if (dpr_ip_is_link_local(&pc->prefix.addr) || pc->prefix.addr.ip6[0] == 0xff)
		return fail(ps, path, "prefix \"%s\": is %s prefix, which hosts ignore in advertisements (RFC 4861 6.3.4); give a global or unique local one",
			    prefix, dpr_ip_is_link_local(&pc->prefix.addr) ? "the link-local" : "a multicast");
	if (preferred > valid)
		return fail(ps, path, "preferred_lifetime %" PRIu64 " is longer than valid_lifetime %" PRIu64 " (RFC 4861 4.6.2: preferred <= valid)",
			    preferred, valid);
	pc->valid_lifetime = (uint32_t)valid;
	pc->preferred_lifetime = (uint32_t)preferred;
	return 0;
}

static int
parse_ra(struct parser *ps, const char *path, json_t *obj, struct dpr_ra_conf_port *ra)
{
	static const char *const keys[] = {
		"enabled", "max_interval", "min_interval", "router_lifetime", "hop_limit",
		"managed", "other", "mtu", "reachable_time", "retrans_timer", "prefixes", NULL
	};
	uint64_t max = 600, min, lifetime, hop = 64, reach = 0, retrans = 0;
	json_t *prefixes, *v;
	size_t i;
	int ret;

	ra->enabled = true;
	ra->send_mtu = true;
	if ((ret = get_object(ps, path, obj)) < 0 ||
	    (ret = check_keys(ps, path, obj, keys)) < 0 ||
	    (ret = get_bool(ps, path, obj, "enabled", &ra->enabled)) < 0 ||
	    (ret = get_uint(ps, path, obj, "max_interval", 4, 1800, &max)) < 0)
		return ret;
	/* RFC 4861 6.2.1: MinRtrAdvInterval from 3 to 0.75 x max, by default
	 * 0.33 x max; AdvDefaultLifetime 0 or max to 9000, by default 3 x max. */
	min = RTE_MAX(max * 33 / 100, UINT64_C(3));
	lifetime = 3 * max;
	if ((ret = get_uint(ps, path, obj, "min_interval", 3, max * 3 / 4, &min)) < 0 ||
	    (ret = get_uint(ps, path, obj, "router_lifetime", 0, 9000, &lifetime)) < 0 ||
	    (ret = get_uint(ps, path, obj, "hop_limit", 0, 255, &hop)) < 0 ||
	    (ret = get_bool(ps, path, obj, "managed", &ra->managed)) < 0 ||
	    (ret = get_bool(ps, path, obj, "other", &ra->other)) < 0 ||
	    (ret = get_bool(ps, path, obj, "mtu", &ra->send_mtu)) < 0 ||
	    (ret = get_uint(ps, path, obj, "reachable_time", 0, 3600000, &reach)) < 0 ||
	    (ret = get_uint(ps, path, obj, "retrans_timer", 0, UINT32_MAX, &retrans)) < 0)
		return ret;
	if (lifetime != 0 && lifetime < max)
		return fail(ps, path, "router_lifetime %" PRIu64 ": expected 0 (not a default router) or from max_interval (%" PRIu64 ") to 9000 seconds (RFC 4861 6.2.1)",
			    lifetime, max);
	ra->max_interval = (uint32_t)max;
	ra->min_interval = (uint32_t)min;
	ra->router_lifetime = (uint16_t)lifetime;
	ra->cur_hop_limit = (uint8_t)hop;
	ra->reachable_time = (uint32_t)reach;
	ra->retrans_timer = (uint32_t)retrans;

	prefixes = json_object_get(obj, "prefixes");
	if (prefixes == NULL)
		return 0;
	if (!json_is_array(prefixes))
		return fail(ps, path, "prefixes: expected an array of prefix objects, got %s",
			    type_name(prefixes));
	if (json_array_size(prefixes) > DPR_RA_MAX_PREFIXES)
		return fail(ps, path, "prefixes: at most %d prefixes per port", DPR_RA_MAX_PREFIXES);
	json_array_foreach(prefixes, i, v) {
		char pp[128];
		unsigned int k;

		snprintf(pp, sizeof(pp), "%s.prefixes[%zu]", path, i);
		ret = parse_ra_prefix(ps, pp, v, &ra->prefixes[i]);
		if (ret < 0)
			return ret;
		for (k = 0; k < i; k++)
			if (ra->prefixes[k].prefix.len == ra->prefixes[i].prefix.len &&
			    dpr_ip_equal(&ra->prefixes[k].prefix.addr, &ra->prefixes[i].prefix.addr))
				return fail(ps, pp, "prefix is already given by %s.prefixes[%u]",
					    path, k);
		ra->n_prefixes++;
	}
	return 0;
}

const char *
dpr_config_outer_proto_name(uint16_t tpid)
{
	return tpid == DPR_QINQ_TPID_Q ? "802.1q" : "802.1ad";
}

/* The length of the DPDK device name in devargs @p device: up to its
 * first argument. */
static size_t
device_name_len(const char *device)
{
	return strcspn(device, ",");
}

/* The PCI address and port number (the "_1" of a port of a multi-port
 * device, -1 for none) of devargs @p device; false for no PCI device. */
static bool
pci_device(const char *device, struct rte_pci_addr *addr, long *port)
{
	char buf[DPR_DEVICE_MAX];
	size_t n = device_name_len(device);
	char *us;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, device, n);
	buf[n] = '\0';
	us = strrchr(buf, '_');
	*port = -1;
	if (us != NULL && us[1] != '\0' && strlen(us + 1) < 6 &&
	    strspn(us + 1, "0123456789") == strlen(us + 1)) {
		*port = strtol(us + 1, NULL, 10);
		*us = '\0';
	}
	return rte_pci_addr_parse(buf, addr) == 0;
}

/* Whether devargs @p a and @p b name one PCI port, however spelt
 * ("03:00.0", "0000:03:00.0", "0000:0A:00.0" and "0000:0a:00.0"). */
static bool
same_pci_port(const char *a, const char *b)
{
	struct rte_pci_addr x, y;
	long xp, yp;

	return pci_device(a, &x, &xp) && pci_device(b, &y, &yp) &&
	       rte_pci_addr_cmp(&x, &y) == 0 && xp == yp;
}

int
dpr_config_urpf_mode(const char *text)
{
	static const char *const modes[] = { "off", "loose", "strict" };
	unsigned int k;

	for (k = 0; text != NULL && k < RTE_DIM(modes); k++)
		if (strcmp(text, modes[k]) == 0)
			return (int)k;
	return -1;
}

/* "VLAN 100" or "VLAN 100.20" (outer.inner) of VLAN interface @p pc. */
static const char *
vlan_pair_str(const struct dpr_port_conf *pc, char *buf, size_t len)
{
	if (pc->outer_id != 0)
		snprintf(buf, len, "VLAN %u.%u", pc->outer_id, pc->vlan_id);
	else
		snprintf(buf, len, "VLAN %u", pc->vlan_id);
	return buf;
}

int
dpr_config_vlan_check(const struct dpr_config *cfg, const struct dpr_port_conf *pc,
		      unsigned int skip, char *err, size_t len)
{
	const char *port = cfg->ports[pc->parent].name;
	char a[32], b[32];
	unsigned int i;

	if (pc->vlan_id < DPR_VLAN_ID_MIN || pc->vlan_id > DPR_VLAN_ID_MAX) {
		snprintf(err, len, "id %u: expected a VLAN id from %d to %d (0 only marks priority, 4095 is reserved)",
			 pc->vlan_id, DPR_VLAN_ID_MIN, DPR_VLAN_ID_MAX);
		return -EINVAL;
	}
	if (pc->outer_id != 0 && pc->outer_id > DPR_VLAN_ID_MAX) {
		snprintf(err, len, "outer_id %u: expected a VLAN id from %d to %d (4095 is reserved)",
			 pc->outer_id, DPR_VLAN_ID_MIN, DPR_VLAN_ID_MAX);
		return -EINVAL;
	}
	for (i = cfg->n_phys; i < skip && i < DPR_MAX_PORTS; i++) {
		const struct dpr_port_conf *o = &cfg->ports[i];

		if (o == pc || o->name[0] == '\0' || o->parent != pc->parent)
			continue;
		/* The same pair, whatever the outer TPID: net_af_packet
		 * hands an 802.1ad outer tag back as 0x8100. */
		if (o->outer_id == pc->outer_id && o->vlan_id == pc->vlan_id) {
			snprintf(err, len, "%s on port %s is %s's already",
				 vlan_pair_str(pc, a, sizeof(a)), port, o->name);
			return -EEXIST;
		}
		/* One 0x8100 tag as a single-tagged interface's and as a
		 * "double tagged" one's outer: the frame 0x8100/id/0x8100/x
		 * would belong to both. */
		if ((pc->outer_tpid == DPR_QINQ_TPID_Q && o->outer_id == 0 && o->vlan_id == pc->outer_id) ||
		    (o->outer_tpid == DPR_QINQ_TPID_Q && pc->outer_id == 0 && pc->vlan_id == o->outer_id)) {
			snprintf(err, len, "%s on port %s and %s's %s share the 0x8100 tag %u (outer_proto 802.1q); give the QinQ interface outer_proto 802.1ad, or another id",
				 vlan_pair_str(pc, a, sizeof(a)), port, o->name,
				 vlan_pair_str(o, b, sizeof(b)), pc->outer_id != 0 ? pc->outer_id : pc->vlan_id);
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * What a VLAN interface (vlans[]) has instead of a device: its port, a
 * port of ports[] (not another VLAN interface: a QinQ interface names both
 * tags, outer_id and id, on the port), and its id. Its MTU is its port's
 * unless given, and at most that.
 */
static int
parse_vlan_link(struct parser *ps, const char *path, json_t *obj, struct dpr_port_conf *pc,
		uint64_t *mtu)
{
	const struct dpr_config *cfg = ps->cfg;
	const char *port, *proto = NULL;
	uint64_t id, outer = 0;
	char err[256];
	unsigned int i;
	int ret;

	if ((ret = get_string(ps, path, obj, "port", true, &port)) < 0 ||
	    (ret = get_uint(ps, path, obj, "id", 0, UINT32_MAX, &id)) < 0 ||
	    (ret = get_uint(ps, path, obj, "outer_id", 0, UINT32_MAX, &outer)) < 0 ||
	    (ret = get_string(ps, path, obj, "outer_proto", false, &proto)) < 0)
		return ret;
	if (json_object_get(obj, "id") == NULL)
		return fail(ps, path, "missing required key \"id\" (the VLAN id, %d to %d)",
			    DPR_VLAN_ID_MIN, DPR_VLAN_ID_MAX);
	if (id > UINT16_MAX || (json_object_get(obj, "outer_id") != NULL && outer == 0) ||
	    outer > UINT16_MAX)
		return fail(ps, path, "%s %" PRIu64 ": expected a VLAN id from %d to %d",
			    id > UINT16_MAX ? "id" : "outer_id", id > UINT16_MAX ? id : outer,
			    DPR_VLAN_ID_MIN, DPR_VLAN_ID_MAX);
	if (proto != NULL && outer == 0)
		return fail(ps, path, "outer_proto \"%s\": only a QinQ interface (with outer_id) has an outer tag",
			    proto);
	if (proto != NULL && strcmp(proto, "802.1ad") != 0 && strcmp(proto, "802.1q") != 0)
		return fail(ps, path, "outer_proto \"%s\": expected \"802.1ad\" (TPID 0x88a8, the default) or \"802.1q\" (0x8100)",
			    proto);
	for (i = 0; i < cfg->n_phys && strcmp(cfg->ports[i].name, port) != 0; i++)
		;
	if (i == cfg->n_phys)
		return fail(ps, path, "port \"%s\": no port of that name in \"ports\" (a VLAN interface is on a port)",
			    port);
	pc->parent = (int)i;
	pc->vlan_id = (uint16_t)id;
	pc->outer_id = (uint16_t)outer;
	pc->outer_tpid = outer == 0 ? 0 :
			 proto != NULL && strcmp(proto, "802.1q") == 0 ? DPR_QINQ_TPID_Q : DPR_QINQ_TPID_AD;
	if (dpr_config_vlan_check(cfg, pc, (unsigned int)(pc - cfg->ports), err, sizeof(err)) < 0)
		return fail(ps, path, "%s", err);
	if (json_object_get(obj, "mtu") == NULL)
		*mtu = cfg->ports[pc->parent].mtu;
	else if (*mtu > cfg->ports[pc->parent].mtu)
		return fail(ps, path, "mtu %" PRIu64 ": more than its port \"%s\"'s (%u); raise ports[%d].mtu first",
			    *mtu, port, cfg->ports[pc->parent].mtu, pc->parent);
	return 0;
}


/* @path.vrf: a VRF by name into *@p out, left as it is when absent. */
static int
get_vrf(struct parser *ps, const char *path, json_t *obj, uint16_t *out)
{
	const char *name;
	int ret, v;

	if ((ret = get_string(ps, path, obj, "vrf", false, &name)) < 0 || name == NULL)
		return ret;
	v = dpr_config_vrf_index(ps->cfg, name);
	if (v < 0)
		return fail(ps, path, "vrf \"%s\": no VRF of that name in \"vrfs\" (or \"%s\")",
			    name, DPR_VRF_DEFAULT_NAME);
	*out = (uint16_t)v;
	return 0;
}

/* A port (@p vlan false) or a VLAN interface: their keys but the device's
 * and the VLAN's are the same. */
static int
parse_port(struct parser *ps, const char *path, json_t *obj,
	   struct dpr_port_conf *pc, bool vlan)
{
	static const char *const keys[] = {
		"name", "device", "addresses", "mac", "mtu", "tap", "transparent", "broadcast_echo",
		"forward_directed_broadcast", "redirects", "neighbor_learning",
		"router_advertisements", "vrf", "acl_in", "acl_out", "urpf", NULL
	};
	static const char *const vlan_keys[] = {
		"name", "port", "id", "outer_id", "outer_proto", "addresses", "mtu", "tap", "transparent", "broadcast_echo", "redirects",
		"forward_directed_broadcast", "neighbor_learning",
		"router_advertisements", "vrf", "acl_in", "acl_out", "urpf", NULL
	};
	const char *name, *device = "", *mac = NULL;
	uint64_t mtu = DPR_DEFAULT_MTU;
	struct dpr_ifaddr_clash clash;
	json_t *addrs, *a;
	size_t i;
	int ret;

	pc->parent = -1;
	if ((ret = get_object(ps, path, obj)) < 0 ||
	    (ret = check_keys(ps, path, obj, vlan ? vlan_keys : keys)) < 0 ||
	    (ret = get_string(ps, path, obj, "name", true, &name)) < 0 ||
	    (!vlan && (ret = get_string(ps, path, obj, "device", true, &device)) < 0) ||
	    (!vlan && (ret = get_string(ps, path, obj, "mac", false, &mac)) < 0) ||
	    (ret = get_uint(ps, path, obj, "mtu", 68, 9702, &mtu)) < 0 ||
	    (vlan && (ret = parse_vlan_link(ps, path, obj, pc, &mtu)) < 0) ||
	    (ret = get_vrf(ps, path, obj, &pc->vrf)) < 0)
		return ret;
	dpr_ifaddr_set_vrf(&ps->addrs, (unsigned int)(pc - ps->cfg->ports), pc->vrf);
	dpr_ifaddr_set_mtu(&ps->addrs, (unsigned int)(pc - ps->cfg->ports), (unsigned int)mtu);

	if (!valid_port_name(name, vlan))
		return fail(ps, path, "name \"%s\": expected 1 to %d letters, digits, '-' or '_'%s",
			    name, DPR_PORT_NAME_MAX, vlan ? " or '.'" : "");
	snprintf(pc->name, sizeof(pc->name), "%s", name);
	if (strlen(device) >= sizeof(pc->device))
		return fail(ps, path, "device: longer than %zu characters",
			    sizeof(pc->device) - 1);
	snprintf(pc->device, sizeof(pc->device), "%s", device);
	pc->mtu = (uint16_t)mtu;

	/* The host stack's side of the port: a TAP named dpr-<port> unless
	 * given, or none with "tap": false. */
	snprintf(pc->tap, sizeof(pc->tap), "dpr-%s", pc->name);
	{
		json_t *t = json_object_get(obj, "tap"), *tr = json_object_get(obj, "transparent");
		const char *n;
		size_t k;

		if (t != NULL && json_is_false(t)) {
			pc->tap[0] = '\0';
		} else if (t != NULL) {
			if (!json_is_string(t))
				return fail(ps, path, "tap: expected an interface name or false, got %s",
					    type_name(t));
			n = json_string_value(t);
			if (!dpr_tap_name_valid(n))
				return fail(ps, path, "tap \"%s\": " DPR_TAP_NAME_EXPECTED, n);
			snprintf(pc->tap, sizeof(pc->tap), "%s", n);
		}
		if (tr != NULL) {
			if (!json_is_boolean(tr))
				return fail(ps, path, "transparent: expected true or false, got %s",
					    type_name(tr));
			pc->transparent = json_is_true(tr);
		}
		if (pc->transparent && pc->tap[0] == '\0')
			return fail(ps, path, "transparent: needs a TAP (the kernel answers ARP and ICMP there); remove \"tap\": false");
		tr = json_object_get(obj, "broadcast_echo");
		if (tr != NULL) {
			if (!json_is_boolean(tr))
				return fail(ps, path, "broadcast_echo: expected true or false, got %s",
					    type_name(tr));
			pc->broadcast_echo = json_is_true(tr);
		}
		tr = json_object_get(obj, "forward_directed_broadcast");
		if (tr != NULL) {
			if (!json_is_boolean(tr))
				return fail(ps, path, "forward_directed_broadcast: expected true or false, got %s",
					    type_name(tr));
			pc->forward_directed_broadcast = json_is_true(tr);
		}
		tr = json_object_get(obj, "redirects");
		pc->redirects = true; /* as Linux: send_redirects 1 */
		if (tr != NULL) {
			if (!json_is_boolean(tr))
				return fail(ps, path, "redirects: expected true or false, got %s",
					    type_name(tr));
			pc->redirects = json_is_true(tr);
		}
		for (k = 0; k < 2; k++) {
			char *acl = k == 0 ? pc->acl_in : pc->acl_out;
			const char *an;

			if ((ret = get_string(ps, path, obj, k == 0 ? "acl_in" : "acl_out", false,
					      &an)) < 0)
				return ret;
			if (an != NULL && (an[0] == '\0' || strlen(an) >= sizeof(pc->acl_in)))
				return fail(ps, path, "%s: expected the name of an ACL in acls",
					    k == 0 ? "acl_in" : "acl_out");
			if (an != NULL)
				snprintf(acl, sizeof(pc->acl_in), "%s", an);
		}
		tr = json_object_get(obj, "urpf");
		if (tr != NULL) {
			int mode = dpr_config_urpf_mode(json_string_value(tr));

			if (mode < 0 && json_is_string(tr))
				return fail(ps, path, "urpf \"%s\": " DPR_CONFIG_URPF_EXPECTED,
					    json_string_value(tr));
			if (mode < 0)
				return fail(ps, path, "urpf: " DPR_CONFIG_URPF_EXPECTED ", got %s",
					    type_name(tr));
			pc->urpf = (uint8_t)mode;
		}
		tr = json_object_get(obj, "neighbor_learning");
		if (tr != NULL) {
			const char *v = json_is_string(tr) ? json_string_value(tr) : NULL;

			for (k = 0; v != NULL && k < RTE_DIM(learning_modes) &&
			     strcmp(v, learning_modes[k]) != 0; k++)
				;
			if (v == NULL || k == RTE_DIM(learning_modes))
				return fail(ps, path, "neighbor_learning%s%s%s: expected \"learn\", \"ignore_gratuitous\" or \"static_only\"%s%s",
					    v != NULL ? " \"" : "", v != NULL ? v : "", v != NULL ? "\"" : "",
					    v == NULL ? ", got " : "", v == NULL ? type_name(tr) : "");
			pc->neighbor_learning = (uint8_t)k;
		}
	}

	if (mac != NULL) {
		if (dpr_mac_parse(mac, &pc->mac) < 0)
			return fail(ps, path, "mac \"%s\": expected a MAC address like 02:00:00:00:00:01",
				    mac);
		if (!rte_is_unicast_ether_addr(&pc->mac) || rte_is_zero_ether_addr(&pc->mac))
			return fail(ps, path, "mac \"%s\": expected a non-zero unicast MAC address",
				    mac);
		pc->has_mac = true;
	}

	addrs = json_object_get(obj, "addresses");
	if (addrs != NULL && !json_is_array(addrs))
		return fail(ps, path, "addresses: expected an array of strings, got %s",
			    type_name(addrs));
	if (addrs != NULL && json_array_size(addrs) > DPR_MAX_PORT_ADDRS)
		return fail(ps, path, "addresses: at most %d addresses per port",
			    DPR_MAX_PORT_ADDRS);
	json_array_foreach(addrs, i, a) {
		struct dpr_prefix *p = &pc->addrs[pc->n_addrs];
		char ap[128];

		snprintf(ap, sizeof(ap), "%s.addresses[%zu]", path, i);
		if (!json_is_string(a))
			return fail(ps, ap, "expected a string like \"10.0.1.1/24\", got %s",
				    type_name(a));
		ret = check_port_address(ps, ap, json_string_value(a), p);
		if (ret < 0)
			return ret;
		ret = dpr_ifaddr_add(&ps->addrs, (unsigned int)(pc - ps->cfg->ports), p, &clash);
		if (ret == -EAFNOSUPPORT)
			return fail(ps, ap, "\"%s\": an IPv6 address on \"%s\" (mtu %" PRIu64 "): " DPR_IP6_MTU_WHY,
				    json_string_value(a), pc->name, mtu);
		if (ret == -EEXIST)
			return fail(ps, ap, "\"%s\": already given as %s.addresses[%u]",
				    json_string_value(a), path, clash.index);
		if (ret == -EINVAL) {
			char cp[32];

			return fail(ps, ap, "subnet overlaps %s.addresses[%u] (each connected subnet must belong to one port of a VRF)",
				    dpr_config_iface_path(ps->cfg, clash.port, cp, sizeof(cp)), clash.index);
		}
		if (ret < 0)
			return fail(ps, ap, "\"%s\": %s", json_string_value(a), strerror(-ret));
		pc->n_addrs++;
	}

	a = json_object_get(obj, "router_advertisements");
	if (a != NULL) {
		char rp[64];
		unsigned int k;

		snprintf(rp, sizeof(rp), "%s.router_advertisements", path);
		ret = parse_ra(ps, rp, a, &pc->ra);
		if (ret < 0)
			return ret;
		if (pc->ra.enabled && !dpr_mtu_carries_ip6(pc->mtu))
			return fail(ps, rp, "router advertisements on \"%s\" (mtu %u): " DPR_IP6_MTU_WHY ", or set \"enabled\": false",
				    pc->name, pc->mtu);
		for (k = 0; k < pc->n_addrs && pc->addrs[k].addr.af != DPR_AF_IP6; k++)
			;
		if (pc->ra.enabled && k == pc->n_addrs)
			return fail(ps, rp, "port \"%s\" has no IPv6 address, so no IPv6 subnet to advertise; add one to %s.addresses (like \"2001:db8:1::1/64\"), or set \"enabled\": false",
				    pc->name, path);
	}
	return 0;
}

static int
parse_ports(struct parser *ps, json_t *root)
{
	struct dpr_config *cfg = ps->cfg;
	json_t *ports = json_object_get(root, "ports"), *vlans = json_object_get(root, "vlans");
	json_t *v;
	unsigned int i, j;
	size_t idx;
	int ret;

	if (ports == NULL)
		return fail(ps, NULL, "missing required key \"ports\" (an array of ports)");
	if (!json_is_array(ports))
		return fail(ps, "ports", "expected a non-empty array of ports, got %s",
			    type_name(ports));
	if (json_array_size(ports) == 0)
		return fail(ps, "ports", "expected a non-empty array of ports, got an empty one");
	if (json_array_size(ports) > DPR_MAX_PORTS)
		return fail(ps, "ports", "at most %d ports are supported", DPR_MAX_PORTS);
	if (vlans != NULL && !json_is_array(vlans))
		return fail(ps, "vlans", "expected an array of VLAN interfaces, got %s",
			    type_name(vlans));
	if (json_array_size(ports) + json_array_size(vlans) > DPR_MAX_PORTS)
		return fail(ps, "vlans", "%zu ports and %zu VLAN interfaces: at most %d of both together are supported",
			    json_array_size(ports), json_array_size(vlans), DPR_MAX_PORTS);

	dpr_ifaddr_init(&ps->addrs,
			(unsigned int)(json_array_size(ports) + json_array_size(vlans)));
	/* Set now: messages name interfaces by it (dpr_config_iface_path()). */
	cfg->n_phys = (unsigned int)json_array_size(ports);
	json_array_foreach(ports, idx, v) {
		char path[32];

		snprintf(path, sizeof(path), "ports[%zu]", idx);
		ret = parse_port(ps, path, v, &cfg->ports[idx], false);
		if (ret < 0)
			return ret;
		cfg->n_ports++;
	}
	json_array_foreach(vlans, idx, v) {
		char path[32];

		snprintf(path, sizeof(path), "vlans[%zu]", idx);
		ret = parse_port(ps, path, v, &cfg->ports[cfg->n_ports], true);
		if (ret < 0)
			return ret;
		cfg->n_ports++;
	}

	for (i = 0; i < cfg->n_ports; i++) {
		for (j = 0; j < i; j++) {
			char path[32], other[32];

			dpr_config_iface_path(cfg, i, path, sizeof(path));
			dpr_config_iface_path(cfg, j, other, sizeof(other));
			if (strcmp(cfg->ports[i].name, cfg->ports[j].name) == 0)
				return fail(ps, path, "duplicate port name \"%s\" (also %s)",
					    cfg->ports[i].name, other);
			if (same_key(cfg->ports[i].name, cfg->ports[j].name))
				return fail(ps, path, "name \"%s\": reads as %s's \"%s\" in DPDK telemetry keys ('-' and '.' become '_' there): rename one",
					    cfg->ports[i].name, other, cfg->ports[j].name);
			if (cfg->ports[i].device[0] != '\0' &&
			    strcmp(cfg->ports[i].device, cfg->ports[j].device) == 0)
				return fail(ps, path, "device \"%s\" is already used by %s",
					    cfg->ports[i].device, other);
			/* DPDK knows a device by the name before its arguments:
			 * a second port of that name would be the first's. */
			if (cfg->ports[i].device[0] != '\0' &&
			    device_name_len(cfg->ports[i].device) ==
				    device_name_len(cfg->ports[j].device) &&
			    strncmp(cfg->ports[i].device, cfg->ports[j].device,
				    device_name_len(cfg->ports[i].device)) == 0)
				return fail(ps, path, "device \"%s\": DPDK device \"%.*s\" is already %s's (\"%s\"): each port needs a device of its own (a virtual one, a name of its own: the driver and a number, like net_af_packet0, net_af_packet1)",
					    cfg->ports[i].device,
					    (int)device_name_len(cfg->ports[i].device),
					    cfg->ports[i].device, other, cfg->ports[j].device);
			if (cfg->ports[i].device[0] != '\0' &&
			    same_pci_port(cfg->ports[i].device, cfg->ports[j].device))
				return fail(ps, path, "device \"%s\": the PCI port of %s (\"%s\") again: each port needs a device of its own",
					    cfg->ports[i].device, other, cfg->ports[j].device);
			if (cfg->ports[i].tap[0] != '\0' &&
			    strcmp(cfg->ports[i].tap, cfg->ports[j].tap) == 0)
				return fail(ps, path, "tap \"%s\" is already used by %s",
					    cfg->ports[i].tap, other);
		}
	}

	/* A host-stack TAP must not be a port's own interface (net_tap would
	 * quietly share it). */
	for (i = 0; i < cfg->n_ports; i++) {
		for (j = 0; j < cfg->n_phys && cfg->ports[i].tap[0] != '\0'; j++) {
			const char *f = strstr(cfg->ports[j].device, "iface=");
			size_t n = strlen(cfg->ports[i].tap);
			char path[32];

			if (f != NULL && strncmp(f + 6, cfg->ports[i].tap, n) == 0 &&
			    (f[6 + n] == '\0' || f[6 + n] == ',')) {
				dpr_config_iface_path(cfg, i, path, sizeof(path));
				return fail(ps, path, "tap \"%s\" is the interface of ports[%u].device; give the host-stack TAP another name",
					    cfg->ports[i].tap, j);
			}
		}
	}

	/* Each VRF's kernel device is named as the VRF (lib/kernel/kvrf.c):
	 * made after the TAPs, it would find one of them there and leave the
	 * VRF without a device. */
	for (i = 0; i < cfg->n_ports; i++) {
		char path[32], iface[DPR_DEVICE_MAX];

		dpr_config_iface_path(cfg, i, path, sizeof(path));
		for (j = 1; j < cfg->n_vrfs; j++) {
			if (strcmp(cfg->ports[i].tap, cfg->vrfs[j].name) == 0)
				return fail(ps, path, "tap \"%s\" is the name of vrfs[%u]'s kernel VRF device; give the host-stack TAP or the VRF another name",
					    cfg->ports[i].tap, j - 1);
			if (dpr_port_tap_iface(cfg->ports[i].device, iface, sizeof(iface)) == 1 &&
			    strcmp(iface, cfg->vrfs[j].name) == 0)
				return fail(ps, path, "device \"%s\": iface \"%s\" is the name of vrfs[%u]'s kernel VRF device; give the port's interface or the VRF another name",
					    cfg->ports[i].device, iface, j - 1);
		}
	}

	return 0;
}

int
dpr_config_vrf_index(const struct dpr_config *cfg, const char *name)
{
	unsigned int v;

	for (v = 0; v < cfg->n_vrfs; v++)
		if (strcmp(cfg->vrfs[v].name, name) == 0)
			return (int)v;
	return -1;
}

int
dpr_config_port_index(const struct dpr_config *cfg, const char *name)
{
	unsigned int i;

	/* A free interface slot (vlan.del) has no name: none is "". */
	if (name[0] == '\0')
		return -1;
	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
dpr_config_port_clash(const struct dpr_config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].name[0] != '\0' && strcmp(cfg->ports[i].name, name) != 0 &&
		    same_key(cfg->ports[i].name, name))
			return (int)i;
	return -1;
}

/* Routes the router's addresses imply: a static route may not replace them. */
static const char *
owned_prefix(struct parser *ps, uint16_t vrf, const struct dpr_prefix *pf)
{
	struct dpr_prefix a;
	unsigned int port;

	switch (dpr_route_owned(&ps->addrs, vrf, pf, &port, &a)) {
	case DPR_ROUTE_OWN_ADDRESS:
		return "is the router's own address";
	case DPR_ROUTE_OWN_BCAST:
		return "is a connected subnet's broadcast address";
	case DPR_ROUTE_OWN_SUBNET:
		return "is a connected subnet";
	default:
		return NULL;
	}
}

/* Port @p name, which must be in VRF @p vrf: its index into *@p out. */
static int
lookup_port(struct parser *ps, const char *path, uint16_t vrf, const char *name, int *out)
{
	const struct dpr_config *cfg = ps->cfg;

	*out = dpr_config_port_index(cfg, name);
	if (*out < 0)
		return fail(ps, path, "port \"%s\": no port of that name in \"ports\" or \"vlans\"",
			    name);
	if (cfg->ports[*out].vrf != vrf)
		return fail(ps, path, "port \"%s\" is in VRF \"%s\", not \"%s\" (no route or neighbour crosses VRFs)",
			    name, cfg->vrfs[cfg->ports[*out].vrf].name, cfg->vrfs[vrf].name);
	return 0;
}

/*
 * Gateway @p via of a route to @p pf (@p prefix as written) on the port
 * named @p port_name (NULL: any; its index in *@p port, -1 for none): into
 * @p gw, with *@p port set to the port whose subnet holds it.
 */
static int
check_gateway(struct parser *ps, const char *path, uint16_t vrf, const char *via,
	      const char *port_name, const struct dpr_prefix *pf, const char *prefix,
	      struct dpr_ip *gw, int *port)
{
	const char *why;
	int ret;

	if (dpr_ip_parse(via, gw) < 0)
		return fail(ps, path, "via \"%s\": expected a gateway address like \"192.0.2.1\" or \"fe80::1\"",
			    via);
	if (!dpr_route_gw_family_ok(pf, gw))
		return fail(ps, path, "via \"%s\": an IPv4 gateway for IPv6 prefix \"%s\" (an IPv6 route's gateway is IPv6; an IPv4 route may have either)",
			    via, prefix);
	/* fe80::1 names a host only on one link (RFC 4291 2.5.6). */
	if (dpr_ip_is_link_local(gw) && port_name == NULL)
		return fail(ps, path, "via \"%s\": a link-local gateway needs \"port\" (the link it is on)",
			    via);
	if (gw->af == DPR_AF_IP6 && *port >= 0 && !dpr_ifaddr_ip6_on(&ps->addrs, (unsigned int)*port))
		return fail(ps, path, "via \"%s\": an IPv6 gateway on port \"%s\": " DPR_IP6_MTU_WHY,
			    via, port_name);
	ret = dpr_ifaddr_connected(&ps->addrs, vrf, gw, *port);
	if (ret < 0)
		return fail(ps, path, "via \"%s\": not inside any connected subnet%s%s%s%s%s%s (add an address on the gateway's subnet to its port)",
			    via, port_name ? " of port \"" : "", port_name ? port_name : "",
			    port_name ? "\"" : "", port_name || vrf == 0 ? "" : " in VRF \"",
			    port_name || vrf == 0 ? "" : ps->cfg->vrfs[vrf].name,
			    port_name || vrf == 0 ? "" : "\"");
	*port = ret;
	why = dpr_ifaddr_not_a_neighbour(&ps->addrs, vrf, gw, *port);
	if (why != NULL)
		return fail(ps, path, "via \"%s\": is %s, expected another host on the subnet",
			    via, why);
	return 0;
}

/*
 * routes[].nexthops: the gateways of a multipath route, as route.add takes
 * them (lib/api/methods.c): 1 to DPR_NH_GROUP_MEMBERS objects {"via",
 * "port"?, "weight"?}, each gateway once.
 */
static int
parse_route_nexthops(struct parser *ps, const char *path, json_t *a, const char *prefix,
		     struct dpr_route_conf *rc)
{
	static const char *const keys[] = { "via", "port", "weight", NULL };
	struct dpr_route_nh_conf nhs[DPR_NH_GROUP_MEMBERS];
	char np[64], got[48];
	unsigned int j;
	size_t i;
	json_t *v;
	int ret;

	snprintf(np, sizeof(np), "%s.nexthops", path);
	if (!json_is_array(a) || json_array_size(a) < 1 ||
	    json_array_size(a) > DPR_NH_GROUP_MEMBERS) {
		if (!json_is_array(a))
			snprintf(got, sizeof(got), "%s", type_name(a));
		else if (json_array_size(a) == 0)
			snprintf(got, sizeof(got), "an empty one");
		else
			snprintf(got, sizeof(got), "%zu of them", json_array_size(a));
		return fail(ps, np, "expected an array of 1 to %u next hops like [{\"via\": \"10.0.2.2\", \"weight\": 2}, {\"via\": \"10.0.3.2\"}], got %s",
			    DPR_NH_GROUP_MEMBERS, got);
	}
	json_array_foreach(a, i, v) {
		const char *via, *port;
		uint64_t wt = 1;
		char mp[96];

		snprintf(mp, sizeof(mp), "%s[%zu]", np, i);
		if (!json_is_object(v))
			return fail(ps, mp, "expected an object like {\"via\": \"10.0.2.2\", \"port\": \"p1\", \"weight\": 2}, got %s",
				    type_name(v));
		if ((ret = check_keys(ps, mp, v, keys)) < 0 ||
		    (ret = get_string(ps, mp, v, "via", false, &via)) < 0 ||
		    (ret = get_string(ps, mp, v, "port", false, &port)) < 0 ||
		    (ret = get_uint(ps, mp, v, "weight", 1, DPR_NH_WEIGHT_MAX, &wt)) < 0)
			return ret;
		if (via == NULL)
			return fail(ps, mp, "missing \"via\": the next hops of a multipath route are gateways (a directly attached route is {\"prefix\": ..., \"port\": ...} without \"nexthops\")");
		nhs[i].port = -1;
		if (port != NULL && (ret = lookup_port(ps, mp, rc->vrf, port, &nhs[i].port)) < 0)
			return ret;
		ret = check_gateway(ps, mp, rc->vrf, via, port, &rc->prefix, prefix, &nhs[i].via,
				    &nhs[i].port);
		if (ret < 0)
			return ret;
		nhs[i].weight = (uint16_t)wt;
		/* One next hop per address, per link for a link-local one
		 * (dpr_nh_get()): a group holds each member once. */
		for (j = 0; j < i; j++)
			if (dpr_ip_equal(&nhs[j].via, &nhs[i].via) &&
			    (!dpr_ip_is_link_local(&nhs[i].via) || nhs[j].port == nhs[i].port))
				return fail(ps, mp, "via \"%s\": is %s.nexthops[%u] already (list each gateway once; give it a \"weight\" instead)",
					    via, path, j);
	}
	rc->n_nexthops = (unsigned int)json_array_size(a);
	rc->nexthops = malloc(rc->n_nexthops * sizeof(*rc->nexthops));
	if (rc->nexthops == NULL)
		return -ENOMEM;
	memcpy(rc->nexthops, nhs, rc->n_nexthops * sizeof(*rc->nexthops));
	return 0;
}

static int
parse_route(struct parser *ps, const char *path, json_t *obj,
	    struct dpr_route_conf *rc)
{
	static const char *const keys[] = { "prefix", "via", "port", "nexthops", "vrf", NULL };
	const char *prefix, *via, *port, *why;
	char hint[DPR_PREFIX_STRLEN] = "";
	json_t *nexthops;
	int ret;

	if ((ret = get_object(ps, path, obj)) < 0 ||
	    (ret = check_keys(ps, path, obj, keys)) < 0 ||
	    (ret = get_string(ps, path, obj, "prefix", true, &prefix)) < 0 ||
	    (ret = get_string(ps, path, obj, "via", false, &via)) < 0 ||
	    (ret = get_string(ps, path, obj, "port", false, &port)) < 0 ||
	    (ret = get_vrf(ps, path, obj, &rc->vrf)) < 0)
		return ret;
	nexthops = json_object_get(obj, "nexthops");

	if (dpr_prefix_parse(prefix, false, &rc->prefix, hint, sizeof(hint)) < 0) {
		if (hint[0] != '\0')
			return fail(ps, path, "prefix \"%s\": has host bits set, did you mean \"%s\"?",
				    prefix, hint);
		return fail(ps, path, "prefix \"%s\": expected a prefix like \"10.0.0.0/8\" or \"2001:db8::/32\"",
			    prefix);
	}
	if (rc->prefix.len >= 10 && dpr_ip_is_link_local(&rc->prefix.addr))
		return fail(ps, path, "prefix \"%s\": is link-local, never forwarded (RFC 4291 2.5.6); route a global prefix",
			    prefix);
	why = dpr_route_never_forwarded(&rc->prefix);
	if (why != NULL)
		return fail(ps, path, "prefix \"%s\": is in %s, never forwarded; route a unicast prefix",
			    prefix, why);
	if (nexthops != NULL && (via != NULL || port != NULL))
		return fail(ps, path, "give \"via\" and \"port\", or \"nexthops\", not both (a multipath route lists every gateway in \"nexthops\", like [{\"via\": \"10.0.2.2\"}, {\"via\": \"10.0.3.2\"}])");
	if (nexthops == NULL && via == NULL && port == NULL)
		return fail(ps, path, "expected \"via\" (a gateway address) or \"port\" (a directly attached route), or \"nexthops\" (a multipath route)");
	why = owned_prefix(ps, rc->vrf, &rc->prefix);
	if (why != NULL)
		return fail(ps, path, "prefix \"%s\": %s, which the router installs itself", prefix, why);

	rc->port = -1;
	if (nexthops != NULL)
		return parse_route_nexthops(ps, path, nexthops, prefix, rc);
	if (port != NULL && (ret = lookup_port(ps, path, rc->vrf, port, &rc->port)) < 0)
		return ret;
	if (via == NULL && rc->prefix.addr.af == DPR_AF_IP6 &&
	    !dpr_ifaddr_ip6_on(&ps->addrs, (unsigned int)rc->port))
		return fail(ps, path, "prefix \"%s\": an IPv6 route out of port \"%s\": " DPR_IP6_MTU_WHY,
			    prefix, port);
	if (via != NULL) {
		ret = check_gateway(ps, path, rc->vrf, via, port, &rc->prefix, prefix, &rc->via,
				    &rc->port);
		if (ret < 0)
			return ret;
		rc->has_via = true;
	}
	return 0;
}

static int
parse_neigh(struct parser *ps, const char *path, json_t *obj,
	    struct dpr_neigh_conf *nc)
{
	static const char *const keys[] = { "address", "mac", "port", "vrf", NULL };
	const char *addr, *mac, *port, *why;
	uint16_t vrf = DPR_VRF_DEFAULT;
	int ret, p = -1;

	if ((ret = get_object(ps, path, obj)) < 0 ||
	    (ret = check_keys(ps, path, obj, keys)) < 0 ||
	    (ret = get_string(ps, path, obj, "address", true, &addr)) < 0 ||
	    (ret = get_string(ps, path, obj, "mac", true, &mac)) < 0 ||
	    (ret = get_string(ps, path, obj, "port", false, &port)) < 0 ||
	    (ret = get_vrf(ps, path, obj, &vrf)) < 0)
		return ret;
	/* With "port" alone, the port's VRF. */
	if (port != NULL && json_object_get(obj, "vrf") == NULL &&
	    (p = dpr_config_port_index(ps->cfg, port)) >= 0)
		vrf = ps->cfg->ports[p].vrf;

	if (dpr_ip_parse(addr, &nc->addr) < 0)
		return fail(ps, path, "address \"%s\": expected an address like \"10.0.1.2\" or \"2001:db8:1::2\"",
			    addr);
	if (dpr_ip_is_link_local(&nc->addr) && port == NULL)
		return fail(ps, path, "address \"%s\": a link-local neighbour needs \"port\" (the link it is on)",
			    addr);
	if (dpr_mac_parse(mac, &nc->mac) < 0 || !rte_is_unicast_ether_addr(&nc->mac) ||
	    rte_is_zero_ether_addr(&nc->mac))
		return fail(ps, path, "mac \"%s\": expected a non-zero unicast MAC like 02:00:00:00:00:01",
			    mac);
	if (port != NULL && (ret = lookup_port(ps, path, vrf, port, &p)) < 0)
		return ret;
	if (nc->addr.af == DPR_AF_IP6 && p >= 0 && !dpr_ifaddr_ip6_on(&ps->addrs, (unsigned int)p))
		return fail(ps, path, "address \"%s\": an IPv6 neighbour on port \"%s\": " DPR_IP6_MTU_WHY,
			    addr, port);
	nc->port = dpr_ifaddr_connected(&ps->addrs, vrf, &nc->addr, p);
	if (nc->port < 0)
		return fail(ps, path, "address \"%s\": not inside any connected subnet%s%s%s%s%s%s",
			    addr, port ? " of port \"" : "", port ? port : "", port ? "\"" : "",
			    port || vrf == 0 ? "" : " in VRF \"",
			    port || vrf == 0 ? "" : ps->cfg->vrfs[vrf].name,
			    port || vrf == 0 ? "" : "\"");
	why = dpr_ifaddr_not_a_neighbour(&ps->addrs, vrf, &nc->addr, nc->port);
	if (why != NULL)
		return fail(ps, path, "address \"%s\": is %s, expected another host on the subnet",
			    addr, why);
	return 0;
}

static int
parse_array(struct parser *ps, json_t *root, const char *key, size_t elem_size,
	    void **out, unsigned int *n,
	    int (*one)(struct parser *, const char *, json_t *, void *))
{
	json_t *arr = json_object_get(root, key), *v;
	size_t idx;
	int ret;

	*n = 0;
	if (arr == NULL)
		return 0;
	if (!json_is_array(arr))
		return fail(ps, key, "expected an array, got %s", type_name(arr));
	*out = calloc(json_array_size(arr) + 1, elem_size);
	if (*out == NULL)
		return -ENOMEM;
	json_array_foreach(arr, idx, v) {
		char path[48];

		snprintf(path, sizeof(path), "%s[%zu]", key, idx);
		ret = one(ps, path, v, (char *)*out + idx * elem_size);
		if (ret < 0)
			return ret;
		(*n)++;
	}
	return 0;
}

static int
route_one(struct parser *ps, const char *path, json_t *v, void *out)
{
	return parse_route(ps, path, v, out);
}

static int
neigh_one(struct parser *ps, const char *path, json_t *v, void *out)
{
	return parse_neigh(ps, path, v, out);
}

/* qsort() has no context argument; the config being checked. */
static const struct dpr_route_conf *sort_routes;

static int
cmp_route_idx(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	int c = memcmp(&sort_routes[x].prefix, &sort_routes[y].prefix,
		       sizeof(sort_routes[x].prefix));

	if (c != 0)
		return c;
	if (sort_routes[x].vrf != sort_routes[y].vrf)
		return sort_routes[x].vrf < sort_routes[y].vrf ? -1 : 1;
	return x < y ? -1 : x > y; /* the first one given comes first */
}

static int
check_duplicates(struct parser *ps)
{
	struct dpr_config *cfg = ps->cfg;
	unsigned int i, j;
	char path[48], buf[DPR_PREFIX_STRLEN];

	/* Sorted, so a config may carry a full table (benchmarks do). */
	if (cfg->n_routes > 1) {
		unsigned int *idx = malloc(cfg->n_routes * sizeof(*idx));

		if (idx == NULL)
			return -ENOMEM;
		for (i = 0; i < cfg->n_routes; i++)
			idx[i] = i;
		sort_routes = cfg->routes;
		qsort(idx, cfg->n_routes, sizeof(*idx), cmp_route_idx);
		for (i = 1; i < cfg->n_routes; i++) {
			const struct dpr_prefix *a = &cfg->routes[idx[i - 1]].prefix;
			const struct dpr_prefix *b = &cfg->routes[idx[i]].prefix;

			if (memcmp(a, b, sizeof(*a)) == 0 &&
			    cfg->routes[idx[i - 1]].vrf == cfg->routes[idx[i]].vrf) {
				unsigned int first = idx[i - 1];

				snprintf(path, sizeof(path), "routes[%u]", idx[i]);
				free(idx);
				return fail(ps, path, "prefix \"%s\" is already given by routes[%u]",
					    dpr_prefix_fmt(b, buf, sizeof(buf)), first);
			}
		}
		free(idx);
	}
	/* One neighbour per address, per link for a link-local one. */
	for (i = 0; i < cfg->n_neighs; i++)
		for (j = 0; j < i; j++)
			if (dpr_ip_equal(&cfg->neighs[i].addr, &cfg->neighs[j].addr) &&
			    cfg->ports[cfg->neighs[i].port].vrf == cfg->ports[cfg->neighs[j].port].vrf &&
			    (!dpr_ip_is_link_local(&cfg->neighs[i].addr) ||
			     cfg->neighs[i].port == cfg->neighs[j].port)) {
				snprintf(path, sizeof(path), "neighbors[%u]", i);
				return fail(ps, path, "address \"%s\" is already given by neighbors[%u]",
					    dpr_ip_fmt(&cfg->neighs[i].addr, buf, sizeof(buf)), j);
			}
	return 0;
}

/*
 * "fpm": {"listen": "127.0.0.1:2620", "table": 254, "grace_s": 30}, every
 * key optional; without the key dpr takes no routes from zebra.
 */
static int
parse_fpm(struct parser *ps, json_t *o)
{
	static const char *const keys[] = { "listen", "table", "grace_s", NULL };
	struct dpr_fpm_conf *fc = &ps->cfg->fpm;
	uint64_t table = DPR_FPM_TABLE_MAIN, grace = DPR_FPM_GRACE_DEFAULT;
	const char *listen;
	uint16_t port;
	int ret;

	if (!json_is_object(o))
		return fail(ps, "fpm", "expected an object like {\"listen\": \"127.0.0.1:2620\"} ({} for the defaults), got %s",
			    type_name(o));
	if ((ret = check_keys(ps, "fpm", o, keys)) < 0 ||
	    (ret = get_string(ps, "fpm", o, "listen", false, &listen)) < 0 ||
	    (ret = get_uint(ps, "fpm", o, "table", 1, UINT32_MAX, &table)) < 0 ||
	    (ret = get_uint(ps, "fpm", o, "grace_s", 0, DPR_FPM_GRACE_MAX, &grace)) < 0)
		return ret;
	if (listen == NULL)
		listen = DPR_FPM_LISTEN_DEFAULT;
	if (strlen(listen) >= sizeof(fc->listen) || dpr_fpm_listen_check(listen, &port) < 0)
		return fail(ps, "fpm.listen", "\"%s\": expected an IPv4 or IPv6 address (not a name) and a port, like \"127.0.0.1:2620\" or \"[::1]:2620\" (zebra's \"fpm address ADDR port PORT\")",
			    listen);
	if (port == 0)
		return fail(ps, "fpm.listen", "\"%s\": port 0 is no port zebra can connect to; give the one of zebra's \"fpm address ADDR port PORT\" (2620 by default)",
			    listen);
	/* RT_TABLE_LOCAL holds the kernel's own local and broadcast routes. */
	if (table == 255)
		return fail(ps, "fpm.table", "255 is the kernel's local table, which zebra does not send; the main table is 254 (a VRF's is its \"table\" number)");
	fc->enabled = true;
	snprintf(fc->listen, sizeof(fc->listen), "%s", listen);
	fc->table = (uint32_t)table;
	fc->grace_s = (uint32_t)grace;
	return 0;
}

/* RTPROT_* for a protocol given by name ("bird", "static"...) or number. */
static int
protocol_of(const json_t *v)
{
	unsigned int p;

	if (json_is_integer(v))
		return json_integer_value(v) >= 0 && json_integer_value(v) <= 255 ?
		       (int)json_integer_value(v) : -1;
	if (!json_is_string(v))
		return -1;
	for (p = 0; p <= 255; p++) {
		const char *name = dpr_route_proto_name((uint8_t)p);

		if (name != NULL && strcmp(name, json_string_value(v)) == 0)
			return (int)p;
	}
	return -1;
}

/*
 * "kernel_routes": {"table": 254, "ignore_protocols": ["ra"],
 * "socket_buffer": 8388608}, every key optional; without the key dpr
 * mirrors nothing of the kernel's tables.
 */
static int
parse_kernel_routes(struct parser *ps, json_t *o)
{
	static const char *const keys[] = { "table", "ignore_protocols", "socket_buffer", NULL };
	struct dpr_kroute_conf *kc = &ps->cfg->kernel_routes;
	uint64_t table = DPR_KROUTE_TABLE_MAIN, sbuf = DPR_KROUTE_SOCKET_BUFFER_DEFAULT;
	char path[64];
	json_t *a, *v;
	size_t i;
	int ret, p;

	if (!json_is_object(o))
		return fail(ps, "kernel_routes", "expected an object like {\"table\": 254} ({} for the defaults), got %s",
			    type_name(o));
	if ((ret = check_keys(ps, "kernel_routes", o, keys)) < 0 ||
	    (ret = get_uint(ps, "kernel_routes", o, "table", 1, UINT32_MAX, &table)) < 0 ||
	    (ret = get_uint(ps, "kernel_routes", o, "socket_buffer", DPR_KROUTE_SOCKET_BUFFER_MIN,
			    DPR_KROUTE_SOCKET_BUFFER_MAX, &sbuf)) < 0)
		return ret;
	/* RT_TABLE_LOCAL holds the kernel's own local and broadcast routes. */
	if (table == 255)
		return fail(ps, "kernel_routes.table", "255 is the kernel's local table (its own addresses and broadcasts), never forwarded; the main table is 254");
	memset(kc->ignore_protocols, 0, sizeof(kc->ignore_protocols));
	a = json_object_get(o, "ignore_protocols");
	if (a != NULL && !json_is_array(a))
		return fail(ps, "kernel_routes.ignore_protocols", "expected an array of protocol names or numbers like [\"ra\", \"dhcp\", 17], got %s",
			    type_name(a));
	json_array_foreach(a, i, v) {
		snprintf(path, sizeof(path), "kernel_routes.ignore_protocols[%zu]", i);
		p = protocol_of(v);
		if (p < 0)
			return json_is_string(v) ?
				fail(ps, path, "\"%s\": unknown protocol name (known: the kernel's rtnetlink names like \"static\", \"bird\", \"ra\", \"dhcp\", \"babel\"; or give its number, 0 to 255, as in /etc/iproute2/rt_protos)",
				     json_string_value(v)) :
				fail(ps, path, "expected a protocol name or a number from 0 to 255, got %s",
				     json_is_integer(v) ? "an integer out of range" : type_name(v));
		kc->ignore_protocols[p / 64] |= UINT64_C(1) << (p % 64);
	}
	/* The kernel's own routes for its addresses: dpr makes its own. */
	kc->ignore_protocols[RTPROT_KERNEL / 64] |= UINT64_C(1) << (RTPROT_KERNEL % 64);
	kc->enabled = true;
	kc->table = (uint32_t)table;
	kc->socket_buffer = (uint32_t)sbuf;
	return 0;
}

/* "metrics": {"listen": "127.0.0.1:9111"}; without the key, no endpoint. */
static int
parse_metrics(struct parser *ps, json_t *o)
{
	static const char *const keys[] = { "listen", NULL };
	struct dpr_metrics_conf *mc = &ps->cfg->metrics;
	struct sockaddr_storage ss;
	const char *listen;
	socklen_t sl;
	int ret;

	if (!json_is_object(o))
		return fail(ps, "metrics", "expected an object like {\"listen\": \"127.0.0.1:9111\"}, got %s",
			    type_name(o));
	if ((ret = check_keys(ps, "metrics", o, keys)) < 0 ||
	    (ret = get_string(ps, "metrics", o, "listen", true, &listen)) < 0)
		return ret;
	if (strlen(listen) >= sizeof(mc->listen) || dpr_sockaddr_parse(listen, -1, &ss, &sl) < 0)
		return fail(ps, "metrics.listen", "\"%s\": expected an IPv4 or IPv6 address (not a name) and a port, like \"127.0.0.1:9111\" or \"[::1]:9111\"",
			    listen);
	if (dpr_sockaddr_port(&ss) == 0)
		return fail(ps, "metrics.listen", "\"%s\": port 0 would be a random port Prometheus cannot be told of; give a fixed one, like 9111",
			    listen);
	mc->enabled = true;
	snprintf(mc->listen, sizeof(mc->listen), "%s", listen);
	return 0;
}

/* Whether TCP listeners on @p a (FPM's: port 2620 when it gives none) and
 * @p b could not both bind: one port, and one address or a wildcard one
 * (:: takes IPv4 too). */
static bool
same_listener(const char *a, const char *b)
{
	struct sockaddr_storage x, y;
	socklen_t xl, yl;
	bool xany, yany;

	if (dpr_sockaddr_parse(a, DPR_FPM_PORT, &x, &xl) < 0 ||
	    dpr_sockaddr_parse(b, -1, &y, &yl) < 0 ||
	    dpr_sockaddr_port(&x) != dpr_sockaddr_port(&y))
		return false;
	xany = x.ss_family == AF_INET ?
	       ((struct sockaddr_in *)&x)->sin_addr.s_addr == htonl(INADDR_ANY) :
	       IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&x)->sin6_addr);
	yany = y.ss_family == AF_INET ?
	       ((struct sockaddr_in *)&y)->sin_addr.s_addr == htonl(INADDR_ANY) :
	       IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&y)->sin6_addr);
	if (x.ss_family != y.ss_family)
		return (x.ss_family == AF_INET6 && xany) || (y.ss_family == AF_INET6 && yany);
	if (xany || yany)
		return true;
	return x.ss_family == AF_INET ?
	       ((struct sockaddr_in *)&x)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)&y)->sin_addr.s_addr :
	       IN6_ARE_ADDR_EQUAL(&((struct sockaddr_in6 *)&x)->sin6_addr,
				  &((struct sockaddr_in6 *)&y)->sin6_addr);
}

/*
 * The sizes and algorithms of a FIB pair (the top level's "fib", a VRF's
 * "fib"), into @p v, which holds what applies when a key is absent.
 */
static int
parse_fib_sizes(struct parser *ps, const char *path, json_t *o, struct dpr_vrf_conf *v)
{
	uint64_t x;
	int ret;

	x = v->ip4_max_routes;
	if ((ret = get_uint(ps, path, o, "ipv4_max_routes", 16, 16u << 20, &x)) < 0)
		return ret;
	v->ip4_max_routes = (uint32_t)x;
	x = v->ip4_tbl8_groups;
	if ((ret = get_uint(ps, path, o, "ipv4_tbl8_groups", 16, 1u << 24, &x)) < 0)
		return ret;
	v->ip4_tbl8_groups = (uint32_t)x;
	x = v->ip6_max_routes;
	if ((ret = get_uint(ps, path, o, "ipv6_max_routes", 16, 16u << 20, &x)) < 0)
		return ret;
	v->ip6_max_routes = (uint32_t)x;
	x = v->ip6_tbl8_groups;
	if ((ret = get_uint(ps, path, o, "ipv6_tbl8_groups", 16, 1u << 23, &x)) < 0)
		return ret;
	v->ip6_tbl8_groups = (uint32_t)x;
	if ((ret = get_algorithm(ps, path, o, "ipv4_algorithm", &v->ip4_algorithm)) < 0 ||
	    (ret = get_algorithm(ps, path, o, "ipv6_algorithm", &v->ip6_algorithm)) < 0)
		return ret;
	return 0;
}

static int
parse_fib(struct parser *ps, json_t *o)
{
	static const char *const fib_keys[] = {
		"ipv4_max_routes", "ipv4_tbl8_groups", "ipv6_max_routes", "ipv6_tbl8_groups",
		"ipv4_algorithm", "ipv6_algorithm", "learned_neighbors_max", NULL
	};
	struct dpr_config *cfg = ps->cfg;
	struct dpr_vrf_conf *v = &cfg->vrfs[DPR_VRF_DEFAULT];
	uint64_t x;
	int ret;

	if (o != NULL) {
		if ((ret = get_object(ps, "fib", o)) < 0 ||
		    (ret = check_keys(ps, "fib", o, fib_keys)) < 0 ||
		    (ret = parse_fib_sizes(ps, "fib", o, v)) < 0)
			return ret;
		x = cfg->learned_neighbors_max;
		if ((ret = get_uint(ps, "fib", o, "learned_neighbors_max", 0,
				    DPR_LEARNED_NEIGHBORS_LIMIT, &x)) < 0)
			return ret;
		cfg->learned_neighbors_max = (uint32_t)x;
	}
	cfg->ip4_max_routes = v->ip4_max_routes;
	cfg->ip4_tbl8_groups = v->ip4_tbl8_groups;
	cfg->ip6_max_routes = v->ip6_max_routes;
	cfg->ip6_tbl8_groups = v->ip6_tbl8_groups;
	cfg->ip4_algorithm = v->ip4_algorithm;
	cfg->ip6_algorithm = v->ip6_algorithm;
	return 0;
}

int
dpr_config_vrf_fib(json_t *fib, const char *path, struct dpr_vrf_conf *v, char *err, size_t len)
{
	static const char *const fib_keys[] = {
		"ipv4_max_routes", "ipv4_tbl8_groups", "ipv6_max_routes", "ipv6_tbl8_groups",
		"ipv4_algorithm", "ipv6_algorithm", NULL
	};
	struct parser ps = { .err = err, .err_len = len };
	int ret;

	if ((ret = get_object(&ps, path, fib)) < 0 ||
	    (ret = check_keys(&ps, path, fib, fib_keys)) < 0)
		return ret;
	return parse_fib_sizes(&ps, path, fib, v);
}

/*
 * "vrfs": [{"name": "red", "table": 100, "fib": {...}}]: VRFs besides the
 * default one, each with its kernel table (unique; not the kernel's own
 * tables, which the default VRF's sources use) and its FIBs' sizes.
 */
static int
parse_vrfs(struct parser *ps, json_t *root)
{
	static const char *const keys[] = { "name", "table", "fib", NULL };
	struct dpr_config *cfg = ps->cfg;
	json_t *a = json_object_get(root, "vrfs"), *o;
	unsigned int j;
	size_t i;
	int ret;

	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return fail(ps, "vrfs", "expected an array of VRFs like [{\"name\": \"red\", \"table\": 100}], got %s",
			    type_name(a));
	if (json_array_size(a) > DPR_MAX_VRFS - 1)
		return fail(ps, "vrfs", "%zu VRFs: at most %d besides the default one are supported",
			    json_array_size(a), DPR_MAX_VRFS - 1);
	json_array_foreach(a, i, o) {
		struct dpr_vrf_conf *v = &cfg->vrfs[cfg->n_vrfs];
		char path[32], fp[40];
		const char *name;
		uint64_t table;
		json_t *f;

		snprintf(path, sizeof(path), "vrfs[%zu]", i);
		*v = cfg->vrfs[DPR_VRF_DEFAULT];
		if ((ret = get_object(ps, path, o)) < 0 ||
		    (ret = check_keys(ps, path, o, keys)) < 0 ||
		    (ret = get_string(ps, path, o, "name", true, &name)) < 0 ||
		    (ret = get_uint(ps, path, o, "table", 0, UINT32_MAX, &table)) < 0)
			return ret;
		if (!dpr_vrf_name_valid(name))
			return fail(ps, path, "name \"%s\": expected 1 to %d letters, digits, '-' or '_' (\"%s\" is the default VRF's)",
				    name, DPR_VRF_NAME_MAX, DPR_VRF_DEFAULT_NAME);
		if (json_object_get(o, "table") == NULL)
			return fail(ps, path, "missing required key \"table\" (the VRF's kernel routing table, like 100)");
		if (table == 0 || (table >= 253 && table <= 255))
			return fail(ps, path, "table %" PRIu64 ": the kernel's own (0 unspec, 253 default, 254 main, 255 local); give another, like 100",
				    table);
		for (j = 1; j < cfg->n_vrfs; j++) {
			if (strcmp(cfg->vrfs[j].name, name) == 0)
				return fail(ps, path, "name \"%s\" is already vrfs[%u]", name, j - 1);
			if (cfg->vrfs[j].table == table)
				return fail(ps, path, "table %" PRIu64 " is already vrfs[%u]'s (\"%s\")",
					    table, j - 1, cfg->vrfs[j].name);
		}
		snprintf(v->name, sizeof(v->name), "%s", name);
		v->table = (uint32_t)table;
		f = json_object_get(o, "fib");
		snprintf(fp, sizeof(fp), "%s.fib", path);
		if (f != NULL && dpr_config_vrf_fib(f, fp, v, ps->err, ps->err_len) < 0) {
			char msg[768];

			snprintf(msg, sizeof(msg), "%s", ps->err);
			return fail(ps, NULL, "%s", msg);
		}
		cfg->n_vrfs++;
	}
	return 0;
}


/* The default VRF's sources take the tables "fpm" and "kernel_routes"
 * name: no other VRF may have one of them. */
static int
check_vrf_tables(struct parser *ps)
{
	const struct dpr_config *cfg = ps->cfg;
	unsigned int v;
	char path[32];

	for (v = 1; v < cfg->n_vrfs; v++) {
		const char *by = cfg->fpm.enabled && cfg->fpm.table == cfg->vrfs[v].table ? "fpm" :
				 cfg->kernel_routes.enabled &&
				 cfg->kernel_routes.table == cfg->vrfs[v].table ? "kernel_routes" : NULL;

		snprintf(path, sizeof(path), "vrfs[%u]", v - 1);
		if (by != NULL)
			return fail(ps, path, "table %u is %s.table, the default VRF's; give the VRF another",
				    cfg->vrfs[v].table, by);
	}
	return 0;
}

static int
parse_root(struct parser *ps, json_t *root)
{
	static const char *const keys[] = {
		"ports", "vlans", "vrfs", "routes", "neighbors", "control", "fib", "fpm",
		"kernel_routes", "metrics", "acls", "control_plane", NULL
	};
	static const char *const control_keys[] = { "socket", "group", NULL };
	struct dpr_config *cfg = ps->cfg;
	json_t *o;
	int ret;

	if (!json_is_object(root))
		return fail(ps, NULL, "expected a JSON object at the top level, got %s",
			    type_name(root));
	if ((ret = check_keys(ps, "(top level)", root, keys)) < 0 ||
	    (ret = parse_fib(ps, json_object_get(root, "fib"))) < 0 ||
	    (ret = parse_vrfs(ps, root)) < 0 ||
	    (ret = parse_ports(ps, root)) < 0 ||
	    (ret = parse_array(ps, root, "routes", sizeof(struct dpr_route_conf),
			       (void **)&cfg->routes, &cfg->n_routes, route_one)) < 0 ||
	    (ret = parse_array(ps, root, "neighbors", sizeof(struct dpr_neigh_conf),
			       (void **)&cfg->neighs, &cfg->n_neighs, neigh_one)) < 0 ||
	    (ret = check_duplicates(ps)) < 0)
		return ret;

	o = json_object_get(root, "control");
	if (o != NULL) {
		const char *sock, *grp;

		if ((ret = get_object(ps, "control", o)) < 0 ||
		    (ret = check_keys(ps, "control", o, control_keys)) < 0 ||
		    (ret = get_string(ps, "control", o, "socket", false, &sock)) < 0)
			return ret;
		if ((ret = get_string(ps, "control", o, "group", false, &grp)) < 0)
			return ret;
		if (grp != NULL) {
			if (strlen(grp) >= sizeof(cfg->socket_group))
				return fail(ps, "control.group", "longer than %zu characters",
					    sizeof(cfg->socket_group) - 1);
			snprintf(cfg->socket_group, sizeof(cfg->socket_group), "%s", grp);
		}
		if (sock != NULL) {
			if (strlen(sock) >= sizeof(cfg->socket))
				return fail(ps, "control.socket", "longer than %zu characters (a Unix socket path limit)",
					    sizeof(cfg->socket) - 1);
			snprintf(cfg->socket, sizeof(cfg->socket), "%s", sock);
		}
	}

	o = json_object_get(root, "fpm");
	if (o != NULL && (ret = parse_fpm(ps, o)) < 0)
		return ret;
	o = json_object_get(root, "kernel_routes");
	if (o != NULL && (ret = parse_kernel_routes(ps, o)) < 0)
		return ret;
	o = json_object_get(root, "metrics");
	if (o != NULL && (ret = parse_metrics(ps, o)) < 0)
		return ret;
	if (cfg->fpm.enabled && cfg->metrics.enabled && same_listener(cfg->fpm.listen,
								       cfg->metrics.listen))
		return fail(ps, "metrics.listen", "\"%s\": fpm.listen \"%s\" takes that address and port already; give the two listeners other ports",
			    cfg->metrics.listen, cfg->fpm.listen);
	/* ACLs: lib/acl checks them, and the names the interfaces give. */
	o = json_object_get(root, "acls");
	if (dpr_acl_config_check(o, cfg, ps->err, ps->err_len) < 0) {
		char msg[768];

		snprintf(msg, sizeof(msg), "%s", ps->err);
		return fail(ps, NULL, "%s", msg);
	}
	if (o != NULL && (cfg->acls = json_deep_copy(o)) == NULL)
		return fail(ps, "acls", "no memory");
	o = json_object_get(root, "control_plane");
	if (o != NULL) {
		char why[512];

		unsigned int k;

		if (dpr_copp_conf_parse(o, &cfg->control_plane, why, sizeof(why)) < 0)
			return fail(ps, NULL, "%s", why);
		for (k = 0; k < cfg->control_plane.n_peers; k++) {
			const char *v = cfg->control_plane.peer_vrf[k];

			if (v[0] != '\0' && dpr_config_vrf_index(cfg, v) < 0) {
				snprintf(why, sizeof(why), "control_plane.peers[%u]", k);
				return fail(ps, why, "vrf \"%s\": no VRF of that name in \"vrfs\" (or \"%s\")",
					    v, DPR_VRF_DEFAULT_NAME);
			}
		}
	}
	return check_vrf_tables(ps);
}

static struct dpr_config *
parse_json(json_t *root, const char *origin, char *err, size_t err_len)
{
	struct parser ps = { .err = err, .err_len = err_len, .origin = origin };
	struct dpr_config *cfg;
	int ret;

	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL) {
		snprintf(err, err_len, "config: %s: out of memory", origin);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", origin);
	snprintf(cfg->socket, sizeof(cfg->socket), "%s", DPR_DEFAULT_SOCKET);
	cfg->ip4_max_routes = DPR_DEFAULT_IP4_MAX_ROUTES;
	cfg->ip4_tbl8_groups = DPR_DEFAULT_IP4_TBL8;
	cfg->ip6_max_routes = DPR_DEFAULT_IP6_MAX_ROUTES;
	cfg->ip6_tbl8_groups = DPR_DEFAULT_IP6_TBL8;
	cfg->learned_neighbors_max = DPR_LEARNED_NEIGHBORS_DEFAULT;
	cfg->n_vrfs = 1;
	cfg->vrfs[DPR_VRF_DEFAULT] = (struct dpr_vrf_conf){
		.name = DPR_VRF_DEFAULT_NAME, .table = DPR_KROUTE_TABLE_MAIN,
		.ip4_max_routes = cfg->ip4_max_routes, .ip4_tbl8_groups = cfg->ip4_tbl8_groups,
		.ip6_max_routes = cfg->ip6_max_routes, .ip6_tbl8_groups = cfg->ip6_tbl8_groups,
	};
	dpr_copp_conf_defaults(&cfg->control_plane);
	ps.cfg = cfg;

	ret = parse_root(&ps, root);
	if (ret < 0) {
		dpr_config_free(cfg);
		errno = -ret;
		return NULL;
	}
	return cfg;
}

static struct dpr_config *
syntax_error(const json_error_t *je, const char *origin, char *err, size_t err_len)
{
	char text[sizeof(je->text)];

	snprintf(text, sizeof(text), "%s", je->text);
	snprintf(err, err_len, "config: %s:%d:%d: invalid JSON: %s", origin,
		 je->line, je->column, dpr_one_line(text));
	errno = EINVAL;
	return NULL;
}

struct dpr_config *
dpr_config_parse(const char *text, const char *origin, char *err, size_t err_len)
{
	struct dpr_config *cfg;
	json_error_t je;
	json_t *root;

	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL)
		return syntax_error(&je, origin, err, err_len);
	cfg = parse_json(root, origin, err, err_len);
	json_decref(root);
	if (cfg == NULL && err_len > 0)
		dpr_one_line(err); /* messages quote values, which may hold a newline */
	return cfg;
}

struct dpr_config *
dpr_config_load(const char *path, char *err, size_t err_len)
{
	struct dpr_config *cfg;
	json_error_t je;
	struct stat st;
	json_t *root;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		int e = errno;

		snprintf(err, err_len, "config: %s: cannot open: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	/* fopen() opens a directory too: its read fails as an empty file. */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(err, err_len, "config: %s: cannot open: %s (give the configuration file)",
			 path, strerror(EISDIR));
		errno = EISDIR;
		return NULL;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (root == NULL)
		return syntax_error(&je, path, err, err_len);
	cfg = parse_json(root, path, err, err_len);
	json_decref(root);
	if (cfg == NULL && err_len > 0)
		dpr_one_line(err); /* messages quote values, which may hold a newline */
	return cfg;
}

void
dpr_config_free(struct dpr_config *cfg)
{
	unsigned int i;

	if (cfg == NULL)
		return;
	for (i = 0; cfg->routes != NULL && i < cfg->n_routes; i++)
		free(cfg->routes[i].nexthops);
	free(cfg->routes);
	free(cfg->neighs);
	json_decref(cfg->acls);
	free(cfg);
}

int
dpr_config_check_address(const char *port_name, const char *text, struct dpr_prefix *out,
			 char *err, size_t err_len)
{
	struct parser ps = { .err = err, .err_len = err_len };
	char origin[64];
	int ret;

	snprintf(origin, sizeof(origin), "port %s", port_name);
	ps.origin = origin;
	ret = check_port_address(&ps, "address", text, out);
	/* Messages from the file checker start "config: "; here the caller
	 * names the request. */
	if (ret < 0 && strncmp(err, "config: ", 8) == 0)
		memmove(err, err + 8, strnlen(err, err_len) - 8 + 1);
	return ret;
}

void
dpr_config_addresses(const struct dpr_config *cfg, struct dpr_ifaddrs *t)
{
	unsigned int p, k;

	dpr_ifaddr_init(t, cfg->n_ports);
	for (p = 0; p < cfg->n_ports; p++) {
		dpr_ifaddr_set_vrf(t, p, cfg->ports[p].vrf);
		dpr_ifaddr_set_mtu(t, p, cfg->ports[p].mtu);
	}
	for (p = 0; p < cfg->n_ports; p++)
		for (k = 0; k < cfg->ports[p].n_addrs; k++)
			(void)dpr_ifaddr_add(t, p, &cfg->ports[p].addrs[k], NULL);
}
