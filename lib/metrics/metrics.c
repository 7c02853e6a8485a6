/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>
#include <rte_common.h>
#include <rte_log.h>

#include "../acl/acl.h"
#include "../api/methods.h"
#include "../api/server.h"
#include "../util/addr.h"
#include "../util/log.h"
#include "metrics.h"

extern int dpr_logtype_metrics;
RTE_LOG_REGISTER(dpr_logtype_metrics, dpr.metrics, INFO);

/* A scraper or two; more are refused by MHD, never queued. */
#define CONNECTIONS_MAX 16u
/* Seconds an idle keep-alive connection is kept. */
#define CONNECTION_TIMEOUT_S 10u

/* Control thread only. */
struct dpr_metrics {
	struct dpr_router *r;
	struct MHD_Daemon *mhd;
	struct dpr_metrics_floor *floor;
	char listen[64];
};

/* --- counters workers take back (metrics.h) ----------------------------- */

/* Control thread only. */
struct dpr_metrics_floor {
	json_t *last;   /**< series key -> last value exported */
};

/* Separates the parts of a series key; no name or label has it. */
#define SEP "\x1f"

struct dpr_metrics_floor *
dpr_metrics_floor_create(void)
{
	struct dpr_metrics_floor *f = calloc(1, sizeof(*f));

	if (f == NULL || (f->last = json_object()) == NULL) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	return f;
}

void
dpr_metrics_floor_free(struct dpr_metrics_floor *f)
{
	if (f == NULL)
		return;
	json_decref(f->last);
	free(f);
}

/*
 * Member @p member of @p o, of the series @p key...: raised to what was
 * last exported, remembered in @p next.
 */
static void
floor_raise(struct dpr_metrics_floor *f, json_t *next, const char *key, json_t *o,
	    const char *member)
{
	json_t *v = json_object_get(o, member);
	json_t *was;
	char k[512];
	json_int_t n;

	if (!json_is_integer(v))
		return;
	n = json_integer_value(v);
	if ((size_t)snprintf(k, sizeof(k), "%s" SEP "%s", key, member) >= sizeof(k))
		return;
	was = json_object_get(f->last, k);
	if (json_is_integer(was) && json_integer_value(was) > n) {
		n = json_integer_value(was);
		json_object_set_new(o, member, json_integer(n));
	}
	if (json_object_size(next) < DPR_METRICS_FLOOR_MAX)
		json_object_set_new(next, k, json_integer(n));
}

/* Each entry's counters of stats.get's @p scope ("ports", "workers"). */
static void
floor_scope(struct dpr_metrics_floor *f, json_t *next, json_t *stats, const char *scope)
{
	static const char *const members[] = { "forwarded", "exception" };
	char id[256], sub[320];
	const char *cls;
	json_t *e, *v;
	unsigned int m;
	size_t i;

	json_array_foreach(json_object_get(stats, scope), i, e) {
		if (strcmp(scope, "ports") == 0) {
			const char *name = json_string_value(json_object_get(e, "name"));
			const char *vrf = json_string_value(json_object_get(e, "vrf"));

			/* As its series are labelled: name and VRF. */
			snprintf(id, sizeof(id), "%s" SEP "%s" SEP "%s", scope,
				 name != NULL ? name : "", vrf != NULL ? vrf : "");
		} else {
			snprintf(id, sizeof(id), "%s" SEP "%zu" SEP, scope, i);
		}
		for (m = 0; m < RTE_DIM(members); m++)
			floor_raise(f, next, id, e, members[m]);
		snprintf(sub, sizeof(sub), "%s" SEP "exceptions", id);
		json_object_foreach(json_object_get(e, "exceptions"), cls, v)
			floor_raise(f, next, sub, json_object_get(e, "exceptions"), cls);
	}
}

void
dpr_metrics_floor_apply(struct dpr_metrics_floor *f, json_t *stats)
{
	json_t *classes = json_object_get(json_object_get(stats, "control_plane"), "classes");
	json_t *next = json_object(), *v;
	const char *cls;
	char key[128];

	if (next == NULL)
		return; /* exported as read: better than nothing */
	floor_scope(f, next, stats, "ports");
	floor_scope(f, next, stats, "workers");
	json_object_foreach(classes, cls, v) {
		snprintf(key, sizeof(key), "control_plane" SEP "%s", cls);
		floor_raise(f, next, key, v, "passed");
	}
	/* What this snapshot did not have (a deleted interface) goes. */
	json_decref(f->last);
	f->last = next;
}

void
dpr_metrics_floor_forget(struct dpr_metrics_floor *f, const char *name)
{
	char prefix[256];
	const char *key;
	size_t n;
	json_t *v;
	void *tmp;

	if (f == NULL)
		return;
	n = (size_t)snprintf(prefix, sizeof(prefix), "ports" SEP "%s" SEP, name);
	if (n >= sizeof(prefix))
		return;
	json_object_foreach_safe(f->last, tmp, key, v)
		if (strncmp(key, prefix, n) == 0)
			json_object_del(f->last, key);
}

void
dpr_metrics_iface_gone(struct dpr_metrics *m, const char *name)
{
	if (m != NULL)
		dpr_metrics_floor_forget(m->floor, name);
}

/* --- the exposition text ------------------------------------------------ */

/* The answer being written, bounded by DPR_METRICS_TEXT_MAX. */
struct text {
	char *p;
	size_t len, cap;
	int err;   /**< 0, ENOMEM or EFBIG: the rest is not written */
};

static void __rte_format_printf(2, 3)
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	size_t cap;
	char *p;
	int n;

	if (t->err != 0)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->err = ENOMEM;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		if (t->cap >= DPR_METRICS_TEXT_MAX) {
			t->err = EFBIG;
			return;
		}
		cap = RTE_MIN((size_t)DPR_METRICS_TEXT_MAX, t->cap * 2);
		p = realloc(t->p, cap);

		if (p == NULL) {
			t->err = ENOMEM;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
}

static void
family(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format quotes it: backslash, quote and newline escaped. */
static const char *
label_value(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s != '\0' && n + 3 < len; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			buf[n++] = '\\';
			buf[n++] = *s == '\n' ? 'n' : *s;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* A key of stats.get that becomes part of a metric name: [a-z0-9_] only. */
static bool
name_part(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Integer (or boolean, as 0/1) member @p key of @p o. */
static bool
get_int(json_t *o, const char *key, json_int_t *v)
{
	json_t *j = json_object_get(o, key);

	if (json_is_integer(j))
		*v = json_integer_value(j);
	else if (json_is_boolean(j))
		*v = json_is_true(j);
	else
		return false;
	return true;
}

/* One sample: NAME{LABELS} VALUE, LABELS as written ("" for none). */
static void
sample(struct text *t, const char *name, const char *labels, json_int_t v)
{
	put(t, "%s%s%s%s %lld\n", name, labels[0] != '\0' ? "{" : "", labels,
	    labels[0] != '\0' ? "}" : "", (long long)v);
}

/* Ports and workers: stats.get's "ports" and "workers" arrays. */
struct scope {
	const char *key;     /**< array in stats.get */
	const char *prefix;  /**< of the metric names */
	const char *label;   /**< naming one entry */
	const char *per;     /**< for HELP texts */
};

static const struct scope scopes[] = {
	{ "ports", "dpr_port", "port", "per port (tx: what left it; the rest: what came in on it)" },
	{ "workers", "dpr_worker", "worker", "per worker" },
};

/* Each entry's counters that every scope has. */
static const struct {
	const char *key, *name, *help;
} packet_counters[] = {
	{ "rx", "rx_packets_total", "Packets received" },
	{ "forwarded", "forwarded_packets_total", "Packets forwarded by the workers" },
	{ "tx", "tx_packets_total", "Packets the workers sent" },
	{ "exception", "exception_packets_total", "Packets handed to the control thread (exception path)" },
};

/* label="value" of entry @p i of @p s: the port's name, the worker's index. */
static const char *
entry_label(const struct scope *s, json_t *e, size_t i, char *buf, size_t len)
{
	char v[64];

	if (strcmp(s->key, "ports") == 0) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *vrf = json_string_value(json_object_get(e, "vrf"));
		char w[64];
		int n;

		/* An interface's series carry its VRF too (VLAN interfaces
		 * included), so that sums by VRF need no join. */
		n = snprintf(buf, len, "%s=\"%s\"", s->label,
			     label_value(name != NULL ? name : "", v, sizeof(v)));
		if (vrf != NULL && n >= 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, ",vrf=\"%s\"",
				 label_value(vrf, w, sizeof(w)));
	} else {
		snprintf(buf, len, "%s=\"%zu\"", s->label, i);
	}
	return buf;
}

/*
 * A counter family by the keys of one object member of each entry (drops
 * by reason, exceptions by class), the key as label @p label.
 */
static void
by_key(struct text *t, const struct scope *s, json_t *arr, const char *member,
       const char *suffix, const char *label, const char *help)
{
	char name[128], lbl[192], h[256], v[64];
	const char *key;
	json_t *e, *val;
	size_t i;

	snprintf(name, sizeof(name), "%s_%s", s->prefix, suffix);
	snprintf(h, sizeof(h), "%s, %s", help, s->per);
	family(t, name, "counter", h);
	json_array_foreach(arr, i, e) {
		char labels[300];

		entry_label(s, e, i, lbl, sizeof(lbl));
		json_object_foreach(json_object_get(e, member), key, val) {
			if (!json_is_integer(val))
				continue;
			snprintf(labels, sizeof(labels), "%s,%s=\"%s\"", lbl, label,
				 label_value(key, v, sizeof(v)));
			sample(t, name, labels, json_integer_value(val));
		}
	}
}

/* One family of one integer member of each entry. */
static void
per_entry(struct text *t, const struct scope *s, json_t *arr, const char *key,
	  const char *suffix, const char *type, const char *help)
{
	char name[128], lbl[192], h[256];
	json_int_t v;
	json_t *e;
	size_t i;

	snprintf(name, sizeof(name), "%s_%s", s->prefix, suffix);
	snprintf(h, sizeof(h), "%s, %s", help, s->per);
	family(t, name, type, h);
	json_array_foreach(arr, i, e)
		if (get_int(e, key, &v))
			sample(t, name, entry_label(s, e, i, lbl, sizeof(lbl)), v);
}

static void
scope_text(struct text *t, const struct scope *s, json_t *stats)
{
	json_t *arr = json_object_get(stats, s->key);
	unsigned int i;

	for (i = 0; i < RTE_DIM(packet_counters); i++)
		per_entry(t, s, arr, packet_counters[i].key, packet_counters[i].name, "counter",
			  packet_counters[i].help);
	by_key(t, s, arr, "drops", "drops_total", "reason", "Packets dropped by reason");
	by_key(t, s, arr, "exceptions", "exceptions_total", "class",
	       "Packets handed to the exception path by class");
}

/* The device's own counters of each port (stats.get ports[].nic). */
static void
nic_text(struct text *t, json_t *stats)
{
	json_t *ports = json_object_get(stats, "ports");
	json_t *first = json_object_get(json_array_get(ports, 0), "nic");
	const struct scope *s = &scopes[0];
	char name[128], lbl[192], h[256];
	const char *key;
	json_t *val, *e;
	size_t i;

	json_object_foreach(first, key, val) {
		if (!name_part(key))
			continue;
		snprintf(name, sizeof(name), "dpr_port_nic_%s_total", key);
		snprintf(h, sizeof(h), "The device's own counter %s (rte_eth_stats), per port", key);
		family(t, name, "counter", h);
		json_array_foreach(ports, i, e) {
			json_int_t v;

			if (get_int(json_object_get(e, "nic"), key, &v))
				sample(t, name, entry_label(s, e, i, lbl, sizeof(lbl)), v);
		}
	}
}

static void
worker_text(struct text *t, json_t *stats)
{
	const struct scope *s = &scopes[1];
	json_t *arr = json_object_get(stats, "workers");
	char lbl[192], labels[300], v[64];
	json_int_t lcore;
	json_t *e;
	size_t i;

	per_entry(t, s, arr, "busy_cycles", "busy_cycles_total", "counter",
		  "TSC cycles spent in loops that received packets (divide by dpr_tsc_hz for seconds)");
	per_entry(t, s, arr, "pipelined", "pipelined", "gauge",
		  "1 while bursts run pipelined across RX polls, 0 when at once");
	per_entry(t, s, arr, "pipeline_probes", "pipeline_probes_total", "counter",
		  "Measurements of the other way to run bursts (--pipeline auto)");
	per_entry(t, s, arr, "pipeline_changes", "pipeline_changes_total", "counter",
		  "Switches between pipelined and at once (--pipeline auto)");
	family(t, "dpr_worker_info", "gauge",
	       "Always 1: the worker's lcore and --pipeline setting as labels");
	json_array_foreach(arr, i, e) {
		const char *pl = json_string_value(json_object_get(e, "pipeline"));

		if (!get_int(e, "lcore", &lcore))
			continue;
		snprintf(labels, sizeof(labels), "%s,lcore=\"%lld\",pipeline=\"%s\"",
			 entry_label(s, e, i, lbl, sizeof(lbl)), (long long)lcore,
			 label_value(pl != NULL ? pl : "", v, sizeof(v)));
		sample(t, "dpr_worker_info", labels, 1);
	}
}

/* A gauge of one integer member of @p o, when it has it. */
static void
gauge(struct text *t, json_t *o, const char *key, const char *name, const char *help)
{
	json_int_t v;

	if (!get_int(o, key, &v))
		return;
	family(t, name, "gauge", help);
	sample(t, name, "", v);
}

/* stats.get's fib: the same figures per family, as a label. */
static void
fib_text(struct text *t, json_t *stats)
{
	static const struct {
		const char *key, *name, *help;
	} figures[] = {
		{ "routes", "dpr_fib_routes", "Routes in the FIB" },
		{ "max_routes", "dpr_fib_max_routes", "Routes the FIB has room for (fib.*_max_routes)" },
		{ "memory_bytes", "dpr_fib_memory_bytes",
		  "Bytes of the lookup structure workers read (DIR-24-8: tbl24 and tbl8 groups; Poptrie: its arrays)" },
		{ "control_bytes", "dpr_fib_control_bytes",
		  "Bytes of the FIB's control side: rules or route trie, free lists, listing snapshot" },
		{ "tbl8_groups", "dpr_fib_tbl8_groups", "tbl8 groups allocated (fib.*_tbl8_groups)" },
		{ "tbl8_used", "dpr_fib_tbl8_groups_used", "tbl8 groups in use or waiting for an RCU grace period" },
	};
	static const char *const families[] = { "ipv4", "ipv6" };
	json_t *fib = json_object_get(stats, "fib");
	unsigned int i, f;

	if (fib == NULL)
		return;
	for (i = 0; i < RTE_DIM(figures); i++) {
		family(t, figures[i].name, "gauge", figures[i].help);
		for (f = 0; f < RTE_DIM(families); f++) {
			char key[64], labels[64];
			json_int_t v;

			snprintf(key, sizeof(key), "%s_%s", families[f], figures[i].key);
			snprintf(labels, sizeof(labels), "family=\"%s\"", families[f]);
			if (get_int(fib, key, &v))
				sample(t, figures[i].name, labels, v);
		}
	}
}

/*
 * stats.get's vrfs: each VRF's FIB figures per family, labelled vrf and
 * family, and how many interfaces each VRF has (from the ports' "vrf").
 * The default VRF is among them; dpr_fib_* above stay its figures.
 */
static void
vrf_text(struct text *t, json_t *stats)
{
	static const struct {
		const char *key, *name, *help;
	} figures[] = {
		{ "routes", "dpr_vrf_routes", "Routes in each VRF's FIB" },
		{ "max_routes", "dpr_vrf_fib_max_routes", "Routes each VRF's FIB has room for" },
		{ "memory_bytes", "dpr_vrf_fib_memory_bytes",
		  "Bytes of each VRF's lookup structures workers read (DIR-24-8: 64 MiB of tbl24 and its tbl8 groups a family)" },
		{ "control_bytes", "dpr_vrf_fib_control_bytes", "Bytes of each VRF's FIB control side" },
		{ "tbl8_used", "dpr_vrf_fib_tbl8_groups_used", "tbl8 groups in use in each VRF's FIB" },
	};
	static const char *const families[] = { "ipv4", "ipv6" };
	json_t *vrfs = json_object_get(stats, "vrfs");
	json_t *ports = json_object_get(stats, "ports");
	char labels[160], v[64];
	unsigned int i, f;
	json_t *o, *p;
	size_t k, q;

	if (!json_is_array(vrfs))
		return;
	family(t, "dpr_vrf_info", "gauge", "Always 1: each VRF, its kernel table as a label");
	json_array_foreach(vrfs, k, o) {
		const char *name = json_string_value(json_object_get(o, "name"));
		json_int_t table;

		if (name == NULL || !get_int(o, "table", &table))
			continue;
		snprintf(labels, sizeof(labels), "vrf=\"%s\",table=\"%lld\"",
			 label_value(name, v, sizeof(v)), (long long)table);
		sample(t, "dpr_vrf_info", labels, 1);
	}
	family(t, "dpr_vrf_interfaces", "gauge", "Interfaces (ports and VLAN interfaces) in each VRF");
	json_array_foreach(vrfs, k, o) {
		const char *name = json_string_value(json_object_get(o, "name"));
		json_int_t n = 0;

		if (name == NULL)
			continue;
		json_array_foreach(ports, q, p) {
			const char *pv = json_string_value(json_object_get(p, "vrf"));

			n += pv != NULL && strcmp(pv, name) == 0;
		}
		snprintf(labels, sizeof(labels), "vrf=\"%s\"", label_value(name, v, sizeof(v)));
		sample(t, "dpr_vrf_interfaces", labels, n);
	}
	for (i = 0; i < RTE_DIM(figures); i++) {
		family(t, figures[i].name, "gauge", figures[i].help);
		json_array_foreach(vrfs, k, o) {
			const char *name = json_string_value(json_object_get(o, "name"));
			json_t *fib = json_object_get(o, "fib");

			if (name == NULL)
				continue;
			for (f = 0; f < RTE_DIM(families); f++) {
				char key[64];
				json_int_t n;

				snprintf(key, sizeof(key), "%s_%s", families[f], figures[i].key);
				if (!get_int(fib, key, &n))
					continue;
				snprintf(labels, sizeof(labels), "vrf=\"%s\",family=\"%s\"",
					 label_value(name, v, sizeof(v)), families[f]);
				sample(t, figures[i].name, labels, n);
			}
		}
	}
}

static void
neigh_text(struct text *t, json_t *stats)
{
	json_t *n = json_object_get(stats, "neighbors");
	json_t *exc = json_object_get(stats, "exception_path");
	json_int_t v;

	gauge(t, stats, "nexthops", "dpr_nexthops", "Next hops in use");
	if (n != NULL) {
		family(t, "dpr_neighbors", "gauge",
		       "Neighbours and gateways (neigh.list) by state: reachable (MAC known), incomplete, or link_down (static, its port down)");
		if (get_int(n, "reachable", &v))
			sample(t, "dpr_neighbors", "state=\"reachable\"", v);
		if (get_int(n, "incomplete", &v))
			sample(t, "dpr_neighbors", "state=\"incomplete\"", v);
		if (get_int(n, "link_down", &v))
			sample(t, "dpr_neighbors", "state=\"link_down\"", v);
		gauge(t, n, "static", "dpr_neighbors_static", "Static neighbours (config, neigh.add)");
	}
	gauge(t, exc, "learned", "dpr_neighbors_learned",
	      "Learned neighbours that only their host route holds (the budget's count)");
	gauge(t, exc, "learned_max", "dpr_neighbors_learned_max",
	      "Next hops learning may create (fib.learned_neighbors_max)");
	gauge(t, exc, "resolving", "dpr_neighbors_resolving", "Addresses being resolved now");
	gauge(t, exc, "resolving_per_interface", "dpr_neighbors_resolving_per_interface",
	      "Addresses without priority resolved at once per interface and family (control_plane.resolving_per_interface)");
}

static void
route_source_text(struct text *t, json_t *stats)
{
	static const struct {
		const char *key, *name, *help;
	} figures[] = {
		{ "held", "dpr_routes_held", "Routes each source holds (its candidates)" },
		{ "active", "dpr_routes_active", "Routes of each source in the FIB (it won the prefix)" },
		{ "stale", "dpr_routes_stale", "Routes of each source marked stale (their daemon went away)" },
	};
	json_t *rs = json_object_get(stats, "route_sources");
	const char *src;
	unsigned int i;
	json_t *o;

	if (rs == NULL)
		return;
	for (i = 0; i < RTE_DIM(figures); i++) {
		family(t, figures[i].name, "gauge", figures[i].help);
		json_object_foreach(rs, src, o) {
			char labels[128], v[64];
			json_int_t n;

			if (!json_is_object(o) || !get_int(o, figures[i].key, &n))
				continue;
			snprintf(labels, sizeof(labels), "source=\"%s\"",
				 label_value(src, v, sizeof(v)));
			sample(t, figures[i].name, labels, n);
		}
	}
	gauge(t, rs, "not_installed", "dpr_routes_not_installed",
	      "Winning routes the FIB had no room for");
	gauge(t, rs, "shadowed", "dpr_routes_shadowed",
	      "Sources' routes waiting under a route of the router's own addresses");
}

/* stats.get's host_stack: traffic to and from the kernel through the TAPs. */
static void
host_stack_text(struct text *t, json_t *stats)
{
	static const struct {
		const char *key, *name, *help;
	} counters[] = {
		{ "to_kernel", "dpr_host_stack_to_kernel_packets_total",
		  "Packets handed to the kernel through the TAPs" },
		{ "to_kernel_dropped", "dpr_host_stack_to_kernel_dropped_total",
		  "Packets for the kernel that its TAP did not take" },
		{ "from_kernel", "dpr_host_stack_from_kernel_packets_total",
		  "Packets the kernel sent through the TAPs" },
		{ "from_kernel_dropped", "dpr_host_stack_from_kernel_dropped_total",
		  "Packets from the kernel that their port did not take" },
		{ "taps_lost", "dpr_host_stack_taps_lost_total",
		  "TAPs whose kernel interface went away" },
		{ "taps_recreated", "dpr_host_stack_taps_recreated_total",
		  "TAPs made again after their kernel interface went away" },
		{ "tap_addresses_restored", "dpr_host_stack_tap_addresses_restored_total",
		  "Port addresses gone from an up TAP on the host, put back" },
	};
	json_t *o = json_object_get(stats, "host_stack");
	unsigned int i;
	json_int_t v;

	for (i = 0; i < RTE_DIM(counters); i++) {
		if (!get_int(o, counters[i].key, &v))
			continue;
		family(t, counters[i].name, "counter", counters[i].help);
		sample(t, counters[i].name, "", v);
	}
}

/*
 * Every integer member of @p o as one sample of counter @p name, the key as
 * label "event", except those in @p skip. Labels, not names: the exception
 * path's keys are many and free-form ("ns_in" would read as nanoseconds in
 * a name).
 */
static void
events_of(struct text *t, json_t *o, const char *name, const char *help,
	  const char *const *skip)
{
	const char *key;
	unsigned int i;
	json_t *v;

	family(t, name, "counter", help);
	json_object_foreach(o, key, v) {
		char labels[128], buf[64];
		bool skipped = false;

		for (i = 0; skip != NULL && skip[i] != NULL; i++)
			skipped |= strcmp(key, skip[i]) == 0;
		if (skipped || !json_is_integer(v))
			continue;
		snprintf(labels, sizeof(labels), "event=\"%s\"", label_value(key, buf, sizeof(buf)));
		sample(t, name, labels, json_integer_value(v));
	}
}

/* Control-plane protection (lib/copp): stats.get control_plane. */
static void
copp_text(struct text *t, json_t *stats)
{
	static const char *const results[] = { "passed", "over_rate", "over_share" };
	json_t *classes = json_object_get(json_object_get(stats, "control_plane"), "classes");
	const char *key;
	json_t *v;
	unsigned int r;

	if (classes == NULL)
		return;
	family(t, "dpr_control_plane_packets_total", "counter",
	       "Exceptions by protection class: passed to the control thread, or dropped over the class's rate or its share of the exception ring");
	json_object_foreach(classes, key, v) {
		for (r = 0; r < RTE_DIM(results); r++) {
			char labels[128], buf[64];
			json_int_t n;

			if (!get_int(v, results[r], &n))
				continue;
			snprintf(labels, sizeof(labels), "class=\"%s\",result=\"%s\"",
				 label_value(key, buf, sizeof(buf)), results[r]);
			sample(t, "dpr_control_plane_packets_total", labels, n);
		}
	}
	family(t, "dpr_control_plane_rate", "gauge",
	       "Each protection class's rate, packets a second per port (control_plane.classes)");
	json_object_foreach(classes, key, v) {
		char labels[128], buf[64];
		json_int_t n;

		if (!get_int(v, "rate", &n))
			continue;
		snprintf(labels, sizeof(labels), "class=\"%s\"", label_value(key, buf, sizeof(buf)));
		sample(t, "dpr_control_plane_rate", labels, n);
	}
}

static void
control_text(struct text *t, json_t *stats)
{
	static const char *const neigh_gauges[] = { "learned", "learned_max", "resolving",
						    "resolving_per_interface", NULL };
	json_t *exc = json_object_get(stats, "exception_path");
	json_t *o;
	const char *key;
	json_t *v;
	size_t i;

	family(t, "dpr_control_exceptions_total", "counter",
	       "Packets the control thread took off the exception rings, by class");
	json_object_foreach(json_object_get(stats, "control_exceptions"), key, v) {
		char labels[128], buf[64];

		if (!json_is_integer(v))
			continue;
		snprintf(labels, sizeof(labels), "class=\"%s\"", label_value(key, buf, sizeof(buf)));
		sample(t, "dpr_control_exceptions_total", labels, json_integer_value(v));
	}
	events_of(t, exc, "dpr_exception_path_events_total",
		  "What the control thread's exception path did, by stats.get exception_path key",
		  neigh_gauges);
	events_of(t, json_object_get(exc, "ipv6"), "dpr_exception_path_ipv6_events_total",
		  "What the exception path did for IPv6, by stats.get exception_path.ipv6 key", NULL);
	host_stack_text(t, stats);
	copp_text(t, stats);

	o = json_object_get(stats, "mbufs");
	family(t, "dpr_mbufs", "gauge", "Mbufs in each pool, per NUMA socket");
	json_array_foreach(o, i, v) {
		char labels[64];
		json_int_t sock, n;

		if (get_int(v, "socket", &sock) && get_int(v, "size", &n)) {
			snprintf(labels, sizeof(labels), "socket=\"%lld\"", (long long)sock);
			sample(t, "dpr_mbufs", labels, n);
		}
	}
	family(t, "dpr_mbufs_in_use", "gauge",
	       "Mbufs taken from each pool (lcore caches included), per NUMA socket");
	json_array_foreach(o, i, v) {
		char labels[64];
		json_int_t sock, n;

		if (get_int(v, "socket", &sock) && get_int(v, "in_use", &n)) {
			snprintf(labels, sizeof(labels), "socket=\"%lld\"", (long long)sock);
			sample(t, "dpr_mbufs_in_use", labels, n);
		}
	}
	o = json_object_get(stats, "fpm");
	if (json_is_true(json_object_get(o, "enabled")))
		gauge(t, o, "connected", "dpr_fpm_connected", "1 while zebra is connected over FPM");
}

/* Hits of ACL rules (stats "acl_rule_hits", dpr_acl_hits_json()). */
static void
acl_text(struct text *t, json_t *stats)
{
	json_t *arr = json_object_get(stats, "acl_rule_hits"), *e;
	char labels[384], a[64], r[64], x[64], f[64], d[8];
	json_int_t n;
	size_t i;

	if (arr == NULL)
		return;
	family(t, "dpr_acl_rule_hits_total", "counter",
	       "Packets each ACL rule matched on each interface and direction it is bound to (rule: its index from 0, or default), summed over workers and the control thread, since bound there or last replaced; rules never hit are left out");
	json_array_foreach(arr, i, e) {
		if (!get_int(e, "hits", &n))
			continue;
		snprintf(labels, sizeof(labels),
			 "acl=\"%s\",rule=\"%s\",action=\"%s\",interface=\"%s\",direction=\"%s\"",
			 label_value(json_string_value(json_object_get(e, "acl")), a, sizeof(a)),
			 label_value(json_string_value(json_object_get(e, "rule")), r, sizeof(r)),
			 label_value(json_string_value(json_object_get(e, "action")), x, sizeof(x)),
			 label_value(json_string_value(json_object_get(e, "interface")), f, sizeof(f)),
			 label_value(json_string_value(json_object_get(e, "direction")), d, sizeof(d)));
		sample(t, "dpr_acl_rule_hits_total", labels, n);
	}
}

char *
dpr_metrics_text(json_t *stats, size_t *len)
{
	struct text t = { .cap = 64 << 10 };
	unsigned int i;

	t.p = malloc(t.cap);
	if (t.p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < RTE_DIM(scopes); i++)
		scope_text(&t, &scopes[i], stats);
	nic_text(&t, stats);
	worker_text(&t, stats);
	gauge(&t, stats, "tsc_hz", "dpr_tsc_hz", "TSC cycles per second: busy cycles to seconds");
	fib_text(&t, stats);
	vrf_text(&t, stats);
	neigh_text(&t, stats);
	route_source_text(&t, stats);
	control_text(&t, stats);
	acl_text(&t, stats);
	if (t.err != 0) {
		free(t.p);
		errno = t.err;
		return NULL;
	}
	*len = t.len;
	return t.p;
}

/* --- the HTTP side -------------------------------------------------------- */

static enum MHD_Result
reply(struct MHD_Connection *conn, unsigned int status, const char *body)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body,
					       MHD_RESPMEM_PERSISTENT);
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* Runs inside MHD_run(), so on the control thread. */
static enum MHD_Result
answer(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
       const char *version, const char *upload_data, size_t *upload_data_size, void **req)
{
	struct dpr_metrics *m = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	json_t *stats;
	size_t len;
	char *text;

	RTE_SET_USED(version);
	RTE_SET_USED(upload_data);
	RTE_SET_USED(upload_data_size);
	RTE_SET_USED(req);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics is served here\n");
	if (strcmp(url, "/metrics") != 0)
		return reply(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");

	stats = dpr_router_stats_json(m->r);
	if (stats != NULL && m->r->acl != NULL)
		json_object_set_new(stats, "acl_rule_hits",
				    dpr_acl_hits_json(m->r->acl, m->r->port_names, m->r->n_ports));
	if (stats != NULL)
		dpr_metrics_floor_apply(m->floor, stats);
	text = stats != NULL ? dpr_metrics_text(stats, &len) : NULL;
	json_decref(stats);
	if (text == NULL) {
		DPR_LOG(ERR, metrics, "metrics: cannot build the answer: %s",
			errno == EFBIG ? "larger than DPR_METRICS_TEXT_MAX" : strerror(errno));
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot build the metrics\n");
	}
	resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct dpr_metrics *m = cls;
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	DPR_LOG(WARNING, metrics, "metrics %s: %s", m->listen, msg);
}

/* The epoll descriptor is readable: accept, read, answer, write. */
static void
run_cb(void *arg)
{
	struct dpr_metrics *m = arg;

	MHD_run(m->mhd);
}

void
dpr_metrics_poll(struct dpr_metrics *m)
{
	MHD_UNSIGNED_LONG_LONG ms;

	/* MHD asks to be run again when its timeout comes, also with 0 when it
	 * has work left that its descriptor no longer signals. */
	if (m != NULL && MHD_get_timeout(m->mhd, &ms) == MHD_YES && ms == 0)
		MHD_run(m->mhd);
}

struct dpr_metrics *
dpr_metrics_create(struct dpr_router *r, const char *listen_addr, char *err, size_t err_len)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	struct dpr_metrics *m;
	int fd = -1, one = 1, e;
	socklen_t sl;

	if (dpr_sockaddr_parse(listen_addr, -1, &ss, &sl) < 0) {
		snprintf(err, err_len, "metrics: listen address \"%s\": want ADDR:PORT with a numeric address, e.g. 127.0.0.1:9111 or [::1]:9111",
			 listen_addr);
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		snprintf(err, err_len, "metrics: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	m->r = r;
	snprintf(m->listen, sizeof(m->listen), "%s", listen_addr);
	m->floor = dpr_metrics_floor_create();
	if (m->floor == NULL) {
		snprintf(err, err_len, "metrics: out of memory");
		free(m);
		errno = ENOMEM;
		return NULL;
	}

	/* Our own socket, so that a failure says why (MHD's start does not). */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail_errno;
	/* A restart must not wait for the old sockets' TIME_WAIT; a second
	 * listener still gets EADDRINUSE (no SO_REUSEPORT). */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 16) < 0)
		goto fail_errno;

	m->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, answer, m,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, m,
				  MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				  MHD_OPTION_CONNECTION_LIMIT, CONNECTIONS_MAX,
				  MHD_OPTION_CONNECTION_TIMEOUT, CONNECTION_TIMEOUT_S,
				  MHD_OPTION_END);
	if (m->mhd == NULL) {
		/* Whether MHD closed the socket on failure differs by version. */
		if (fcntl(fd, F_GETFD) != -1)
			close(fd);
		snprintf(err, err_len, "metrics: listen on %s: libmicrohttpd would not start (built without epoll?)",
			 listen_addr);
		dpr_metrics_floor_free(m->floor);
		free(m);
		errno = ENOTSUP;
		return NULL;
	}
	info = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	e = info != NULL ? dpr_server_watch(r->server, info->epoll_fd, run_cb, m) : -ENOTSUP;
	if (e < 0) {
		snprintf(err, err_len, "metrics: cannot watch the endpoint from the control loop: %s",
			 strerror(-e));
		dpr_metrics_free(m);
		errno = -e;
		return NULL;
	}
	DPR_LOG(INFO, metrics, "metrics: serving Prometheus metrics on http://%s/metrics", listen_addr);
	return m;

fail_errno:
	e = errno;
	snprintf(err, err_len, "metrics: listen on %s: %s%s", listen_addr, strerror(e),
		 e == EADDRINUSE ? " (another dpr or exporter there? set another metrics.listen)" : "");
	if (fd >= 0)
		close(fd);
	dpr_metrics_floor_free(m->floor);
	free(m);
	errno = e;
	return NULL;
}

void
dpr_metrics_free(struct dpr_metrics *m)
{
	if (m == NULL)
		return;
	/* Closes the listening socket and every client. */
	MHD_stop_daemon(m->mhd);
	dpr_metrics_floor_free(m->floor);
	free(m);
}
