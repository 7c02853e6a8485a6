/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* pthread_cond_clockwait() */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_telemetry.h>

#include "../api/rpc.h"
#include "../util/log.h"
#include "telemetry.h"

/* How long a telemetry client waits for a busy control thread, by default. */
#define WAIT_MS_DEFAULT 5000

/*
 * The hand-off between telemetry threads and the control thread. DPDK 22.11
 * telemetry callbacks take no user argument, hence a single static instance.
 * `call` serialises telemetry callers, so one request is in flight at a
 * time; `m` guards every other field and `cv` signals answers; `efd` wakes
 * the control thread.
 *
 * A caller that times out leaves, but the control thread may still be
 * running its request, and the next caller may already be waiting when that
 * answer comes. So each request gets a tag, and an answer is handed over
 * only to the caller waiting for that tag; any other answer is freed on the
 * control thread.
 */
static struct {
	pthread_mutex_t call;
	pthread_mutex_t m;
	pthread_cond_t cv;
	int efd;
	bool stopped;
	struct dpr_router *r;
	unsigned int wait_ms;  /**< 0: WAIT_MS_DEFAULT */
	uint64_t last_tag;     /**< tags start at 1; 0 means none */
	json_t *req;           /**< posted by a caller, not yet taken; or NULL */
	uint64_t req_tag;
	uint64_t wait_tag;     /**< the caller waiting now, 0 once it gave up */
	json_t *resp;          /**< the answer to wait_tag (NULL: a notification) */
	bool answered;         /**< resp is set */
} tel = {
	.call = PTHREAD_MUTEX_INITIALIZER,
	.m = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.efd = -1,
};

/* Control thread: answer what is waiting. */
static void
serve(void *arg)
{
	uint64_t v, tag;
	json_t *req, *resp;

	(void)arg;
	if (read(tel.efd, &v, sizeof(v)) < 0)
		return;
	pthread_mutex_lock(&tel.m);
	req = tel.req;
	tag = tel.req_tag;
	tel.req = NULL;
	pthread_mutex_unlock(&tel.m);
	if (req == NULL)
		return; /* withdrawn: its caller gave up before we got here */

	resp = dpr_rpc_handle(tel.r, req);
	json_decref(req);
	pthread_mutex_lock(&tel.m);
	if (tel.wait_tag == tag) {
		tel.resp = resp;
		tel.answered = true;
		pthread_cond_signal(&tel.cv);
		resp = NULL;
	}
	pthread_mutex_unlock(&tel.m);
	/* Its caller timed out; the one waiting now, if any, wants another answer. */
	json_decref(resp);
}

json_t *
dpr_telemetry_call(json_t *req)
{
	bool answered = false, withdrawn = false;
	struct timespec deadline;
	uint64_t one = 1, tag;
	json_t *resp = NULL;
	unsigned int wait_ms;

	/* A request json_pack() could not build (a parameter not UTF-8):
	 * nothing to post; posted, it would read as withdrawn and its caller
	 * would wait its whole time for an answer that never comes. */
	if (req == NULL)
		return dpr_rpc_error(NULL, DPR_RPC_INVALID_PARAMS,
				     "invalid request: its parameters are not UTF-8 text");
	pthread_mutex_lock(&tel.call);
	pthread_mutex_lock(&tel.m);
	if (tel.stopped) {
		pthread_mutex_unlock(&tel.m);
		pthread_mutex_unlock(&tel.call);
		json_decref(req);
		return dpr_rpc_error(NULL, DPR_RPC_INTERNAL_ERROR, "dpr is shutting down");
	}
	tag = ++tel.last_tag;
	tel.req = req;
	tel.req_tag = tag;
	tel.wait_tag = tag;
	tel.resp = NULL;
	tel.answered = false;
	wait_ms = tel.wait_ms != 0 ? tel.wait_ms : WAIT_MS_DEFAULT;
	pthread_mutex_unlock(&tel.m);
	if (write(tel.efd, &one, sizeof(one)) < 0)
		DPR_LOG(ERR, main, "telemetry: cannot wake the control thread");

	/* On CLOCK_MONOTONIC: a step of the wall clock (NTP, a restored VM)
	 * neither cuts the wait short nor makes it hours long. */
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (long)(wait_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&tel.m);
	while (!tel.answered &&
	       pthread_cond_clockwait(&tel.cv, &tel.m, CLOCK_MONOTONIC, &deadline) != ETIMEDOUT)
		;
	if (tel.answered && tel.wait_tag == tag) {
		resp = tel.resp;
		answered = true;
	} else if (tel.req != NULL && tel.req_tag == tag) {
		/* Not started: take it back so that it never runs unasked. */
		json_decref(tel.req);
		tel.req = NULL;
		withdrawn = true;
	}
	/* Either way we stop waiting: an answer to come now is nobody's. */
	tel.wait_tag = 0;
	tel.resp = NULL;
	tel.answered = false;
	pthread_mutex_unlock(&tel.m);
	pthread_mutex_unlock(&tel.call);
	if (answered)
		return resp;
	return dpr_rpc_error(NULL, DPR_RPC_INTERNAL_ERROR,
			     "the control thread did not answer within %u ms (busy loading routes?): %s",
			     wait_ms, withdrawn ?
			     "the request was withdrawn and will not run" :
			     "the request is still running; its result will be dropped");
}

void
dpr_telemetry_set_wait(unsigned int ms)
{
	pthread_mutex_lock(&tel.m);
	tel.wait_ms = ms;
	pthread_mutex_unlock(&tel.m);
}

static json_t *
call_method(const char *method)
{
	return dpr_telemetry_call(json_pack("{s:s,s:i,s:s}", "jsonrpc", "2.0", "id", 0,
					    "method", method));
}

/* Telemetry keys take letters, digits, '_' and '/' only. No two interfaces'
 * names read the same here (dpr_config_port_clash()). */
static void
key_join(char *key, size_t len, const char *prefix, const char *name)
{
	char *p;

	snprintf(key, len, "%s%s%s", prefix, prefix[0] ? "/" : "", name);
	for (p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '/'))
			*p = '_';
}

/*
 * A flat dict being filled. DPDK 22.11's holds RTE_TEL_MAX_DICT_ENTRIES
 * values and refuses the rest without a word: a view of more (stats.get
 * of two workers has some 300) would end short, its last values (the host
 * stack's, the exception path's) simply absent. So the last place is kept
 * for "values_left_out", how many did not fit (dict_end()): the control
 * socket has them all.
 */
struct dict {
	struct rte_tel_data *d;
	unsigned int n;         /**< values in d */
	unsigned int left_out;  /**< values that found no place */
};

#define LEFT_OUT_KEY "values_left_out"

static void
dict_start(struct dict *t, struct rte_tel_data *d)
{
	*t = (struct dict){ .d = d };
	rte_tel_data_start_dict(d);
}

/* Whether one more value has a place; counts it either way. */
static bool
dict_room(struct dict *t)
{
	if (t->n + 1 < RTE_TEL_MAX_DICT_ENTRIES) {
		t->n++;
		return true;
	}
	t->left_out++;
	return false;
}

static void
dict_end(struct dict *t)
{
	if (t->left_out != 0)
		rte_tel_data_add_dict_u64(t->d, LEFT_OUT_KEY, t->left_out);
}

/*
 * Scalars of @p v into dict @p t, nested keys joined with '/'. DPDK 22.11
 * telemetry nests only arrays in a dict, so each view is one flat dict
 * ("port/p0/drops/ttl_expired"), at most RTE_TEL_MAX_DICT_ENTRIES keys; the
 * control socket has the rest.
 */
static void
flatten(struct dict *t, const char *prefix, json_t *v)
{
	char key[RTE_TEL_MAX_STRING_LEN], idx[24];
	struct rte_tel_data *d = t->d;
	const char *k;
	json_t *x;
	size_t i;

	if (v == NULL || json_is_null(v)) /* a key the result does not have (yet) */
		return;
	if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			key_join(key, sizeof(key), prefix, k);
			flatten(t, key, x);
		}
		return;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			snprintf(idx, sizeof(idx), "%zu", i);
			key_join(key, sizeof(key), prefix, idx);
			flatten(t, key, x);
		}
		return;
	}
	if (!dict_room(t))
		return;
	switch (json_typeof(v)) {
	case JSON_INTEGER:
		if (json_integer_value(v) >= 0)
			rte_tel_data_add_dict_u64(d, prefix, (uint64_t)json_integer_value(v));
		else
			rte_tel_data_add_dict_int(d, prefix, (int)json_integer_value(v));
		break;
	case JSON_REAL: {
		char num[32];

		snprintf(num, sizeof(num), "%.2f", json_real_value(v));
		rte_tel_data_add_dict_string(d, prefix, num);
		break;
	}
	case JSON_STRING:
		rte_tel_data_add_dict_string(d, prefix, json_string_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		rte_tel_data_add_dict_int(d, prefix, json_is_true(v));
		break;
	default:
		break;
	}
}

/* Answer with the JSON-RPC error if there is one; true if so. */
static bool
answer_error(json_t *resp, struct rte_tel_data *d)
{
	json_t *err = json_object_get(resp, "error");
	struct dict t;

	if (err == NULL)
		return false;
	dict_start(&t, d);
	flatten(&t, "error", err);
	dict_end(&t);
	return true;
}

/* Run @p method on the control thread and show its result through @p fill. */
static int
view(const char *method, struct rte_tel_data *d,
     void (*fill)(struct dict *t, json_t *result))
{
	json_t *resp = call_method(method);
	struct dict t;

	if (!answer_error(resp, d)) {
		dict_start(&t, d);
		fill(&t, json_object_get(resp, "result"));
		dict_end(&t);
	}
	json_decref(resp);
	return 0;
}

static void
fill_ports(struct dict *t, json_t *res)
{
	json_t *p;
	size_t i;

	json_array_foreach(res, i, p)
		flatten(t, json_string_value(json_object_get(p, "name")), p);
}

static void
fill_stats(struct dict *t, json_t *res)
{
	char name[64];
	json_t *p;
	size_t i;

	flatten(t, "total", json_object_get(res, "total"));
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		snprintf(name, sizeof(name), "port/%s", json_string_value(json_object_get(p, "name")));
		flatten(t, name, p);
	}
	json_array_foreach(json_object_get(res, "workers"), i, p) {
		snprintf(name, sizeof(name), "worker/%zu", i);
		/* The tuner's last probe is /dpr/workers' (its summary): its
		 * 16 windows would crowd the dict's 256 keys. */
		json_object_del(p, "pipeline_last_probe");
		flatten(t, name, p);
	}
	flatten(t, "control_exceptions", json_object_get(res, "control_exceptions"));
	flatten(t, "exception_path", json_object_get(res, "exception_path"));
	flatten(t, "host_stack", json_object_get(res, "host_stack"));
}

static void
fill_workers(struct dict *t, json_t *res)
{
	static const char *const keys[] = {
		"lcore", "rx", "forwarded", "exception", "dropped", "busy_cycles",
		"cycles_per_packet", "pipeline", "pipelined", "pipeline_probes",
		"pipeline_changes",
	};
	/* The tuner's last probe without its windows (stats.get has them). */
	static const char *const probe_keys[] = {
		"pipelined_over_at_once", "pairs_pipelined_cheaper", "pairs",
		"at_once_cycles_per_packet", "pipelined_cycles_per_packet",
	};
	char name[64];
	unsigned int k;
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(res, "workers"), i, w) {
		for (k = 0; k < RTE_DIM(keys); k++) {
			snprintf(name, sizeof(name), "worker/%zu/%s", i, keys[k]);
			flatten(t, name, json_object_get(w, keys[k]));
		}
		for (k = 0; k < RTE_DIM(probe_keys); k++) {
			snprintf(name, sizeof(name), "worker/%zu/pipeline_last_probe/%s", i,
				 probe_keys[k]);
			flatten(t, name, json_object_get(json_object_get(w, "pipeline_last_probe"),
							 probe_keys[k]));
		}
	}
}

static void
fill_routes(struct dict *t, json_t *res)
{
	flatten(t, "", json_object_get(res, "fib"));
	flatten(t, "nexthops", json_object_get(res, "nexthops"));
}

static void
fill_fpm(struct dict *t, json_t *res)
{
	flatten(t, "", json_object_get(res, "fpm"));
}

static int
cmd_fpm(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	return view("stats.get", d, fill_fpm);
}

static void
fill_kernel_routes(struct dict *t, json_t *res)
{
	flatten(t, "", json_object_get(res, "kernel_routes"));
}

static int
cmd_kernel_routes(const char *cmd __rte_unused, const char *params __rte_unused,
		  struct rte_tel_data *d)
{
	return view("stats.get", d, fill_kernel_routes);
}

/* Each warning going on as "PORT/CONDITION": seconds it has lasted (the
 * texts outgrow telemetry's strings: dprctl doctor has them). */
static void
fill_doctor(struct dict *t, json_t *res)
{
	char name[64];
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(res, "warnings"), i, w) {
		snprintf(name, sizeof(name), "%s/%s", json_string_value(json_object_get(w, "port")),
			 json_string_value(json_object_get(w, "condition")));
		if (dict_room(t))
			rte_tel_data_add_dict_u64(t->d, name,
				(uint64_t)json_integer_value(json_object_get(w, "for_s")));
	}
}

static int
cmd_doctor(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	return view("doctor.get", d, fill_doctor);
}

/* /dpr/port,NAME: port.show for NAME, flattened (link/speed_mbps, ...). */
static int
cmd_port(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct dict t;
	json_t *resp;

	if (params == NULL || params[0] == '\0') {
		rte_tel_data_string(d, "usage: /dpr/port,NAME (a port of the config: /dpr/ports lists them)");
		return 0;
	}
	resp = dpr_telemetry_call(json_pack("{s:s,s:i,s:s,s:{s:s}}", "jsonrpc", "2.0", "id", 0,
					    "method", "port.show", "params", "port", params));
	if (!answer_error(resp, d)) {
		dict_start(&t, d);
		flatten(&t, "", json_object_get(resp, "result"));
		dict_end(&t);
	}
	json_decref(resp);
	return 0;
}

static int
cmd_ports(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	return view("port.list", d, fill_ports);
}

static int
cmd_stats(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	return view("stats.get", d, fill_stats);
}

static int
cmd_workers(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	return view("stats.get", d, fill_workers);
}

static int
cmd_routes(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	return view("stats.get", d, fill_routes);
}

static int
cmd_rpc(const char *cmd, const char *params, struct rte_tel_data *d)
{
	json_error_t je;
	json_t *req, *resp;
	char *text;

	(void)cmd;
	if (params == NULL || params[0] == '\0') {
		rte_tel_data_string(d, "usage: /dpr/rpc,{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"route.get\",\"params\":{\"address\":\"10.1.2.3\"}}");
		return 0;
	}
	req = json_loads(params, JSON_REJECT_DUPLICATES, &je);
	resp = req == NULL ?
		dpr_rpc_error(NULL, DPR_RPC_PARSE_ERROR, "parse error at column %d: %s",
			      je.column, je.text) :
		dpr_telemetry_call(req);
	if (resp == NULL) /* a notification */
		resp = json_pack("{s:s}", "jsonrpc", "2.0");
	text = json_dumps(resp, JSON_COMPACT);
	if (text != NULL && strlen(text) < RTE_TEL_MAX_SINGLE_STRING_LEN) {
		rte_tel_data_string(d, text);
	} else {
		json_t *e = dpr_rpc_error(json_object_get(resp, "id"), DPR_RPC_TOO_LARGE,
					  "response over %d bytes: use the control socket (dprctl)",
					  RTE_TEL_MAX_SINGLE_STRING_LEN);
		free(text);
		text = json_dumps(e, JSON_COMPACT);
		json_decref(e);
		rte_tel_data_string(d, text ? text : "error");
	}
	free(text);
	json_decref(resp);
	return 0;
}

int
dpr_telemetry_init(struct dpr_router *r, struct dpr_server *s)
{
	int ret;

	tel.r = r;
	tel.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tel.efd < 0)
		return -errno;
	ret = dpr_server_watch(s, tel.efd, serve, NULL);
	if (ret < 0)
		return ret;
	rte_telemetry_register_cmd("/dpr/ports", cmd_ports,
				   "dpr ports: driver, MAC, queues, link, addresses. No parameters");
	rte_telemetry_register_cmd("/dpr/stats", cmd_stats,
				   "dpr counters per port and worker, drops by reason. No parameters");
	rte_telemetry_register_cmd("/dpr/workers", cmd_workers,
				   "dpr workers: packets and busy cycles per packet. No parameters");
	rte_telemetry_register_cmd("/dpr/routes", cmd_routes,
				   "dpr FIB summary: routes, memory, next hops. No parameters");
	rte_telemetry_register_cmd("/dpr/fpm", cmd_fpm,
				   "dpr routes from zebra (FPM): connection, counters, stale routes. No parameters");
	rte_telemetry_register_cmd("/dpr/kernel_routes", cmd_kernel_routes,
				   "dpr routes mirrored from the kernel table: counters, resyncs. No parameters");
	rte_telemetry_register_cmd("/dpr/port", cmd_port,
				   "what the device granted dpr port NAME: driver, link, queues, RSS, offloads, NUMA. Parameters: NAME");
	rte_telemetry_register_cmd("/dpr/doctor", cmd_doctor,
				   "dpr warnings going on, PORT/CONDITION: seconds (dprctl doctor has the texts). No parameters");
	rte_telemetry_register_cmd("/dpr/rpc", cmd_rpc,
				   "One dpr JSON-RPC 2.0 request (under 1 KiB); answers its response. Parameters: the request");
	return 0;
}

void
dpr_telemetry_stop(void)
{
	pthread_mutex_lock(&tel.m);
	tel.stopped = true;
	pthread_mutex_unlock(&tel.m);
}
