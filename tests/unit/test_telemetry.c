/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hand-off between telemetry callers and the control thread, on a
 * router built here without ports or workers: a caller that times out
 * before the control thread starts its request withdraws it, so it never
 * runs; one that times out while its request runs leaves an answer that is
 * freed, never given to the next caller, even when that caller is already
 * waiting; and a notification answers nothing instead of a time-out.
 *
 * This thread is the control thread (it polls the server); callers run in
 * threads of their own. The link wraps dpr_rpc_handle() so that a request
 * can be held while its caller times out, and eventfd() to learn the fd
 * that wakes the control thread (tests/unit/meson.build).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <rte_eal.h>
#include <rte_telemetry.h>

#include "api/rpc.h"
#include "api/server.h"
#include "rig.h"
#include "telemetry/telemetry.h"
#include "test.h"

/* Two addresses whose route.get answers differ: a local /32 and a gateway route. */
static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"routes\": [{\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"}],"
	" \"fib\": {\"ipv4_max_routes\": 1024, \"ipv4_tbl8_groups\": 64}}";
#define A_ID 1
#define A_ADDRESS "10.0.1.1"
#define A_PREFIX "10.0.1.1/32"
#define B_ID 2
#define B_ADDRESS "198.51.100.7"
#define B_PREFIX "198.51.100.0/24"

#define SHORT_WAIT_MS 50
#define LONG_WAIT_MS 10000

static struct dpr_router R;
static struct dpr_server *S;

/* Written on the control thread (this one) only. */
static int handled;            /* requests the control thread ran */
static void (*hold)(void);     /* run inside the handler of request A_ID */
static json_t *a_answer;       /* an extra reference to A's answer */
static int wake_fd = -1;       /* the telemetry eventfd */

json_t *__real_dpr_rpc_handle(struct dpr_router *r, json_t *req);
json_t *__wrap_dpr_rpc_handle(struct dpr_router *r, json_t *req);
int __real_eventfd(unsigned int count, int flags);
int __wrap_eventfd(unsigned int count, int flags);
int __real_rte_telemetry_register_cmd(const char *cmd, telemetry_cb fn, const char *help);
int __wrap_rte_telemetry_register_cmd(const char *cmd, telemetry_cb fn, const char *help);
int __real_rte_tel_data_add_dict_u64(struct rte_tel_data *d, const char *name, uint64_t val);
int __wrap_rte_tel_data_add_dict_u64(struct rte_tel_data *d, const char *name, uint64_t val);

/* stats.get answers this many counters (more than a telemetry dict holds). */
static unsigned int big_stats;
/* /dpr/stats, as dpr_telemetry_init() registers it. */
static telemetry_cb stats_cb;
/* What went into telemetry dicts: values refused, the last one taken. */
static unsigned int dict_refused;
static char dict_last_key[64];
static uint64_t dict_last_val;

int
__wrap_rte_telemetry_register_cmd(const char *cmd, telemetry_cb fn, const char *help)
{
	if (strcmp(cmd, "/dpr/stats") == 0)
		stats_cb = fn;
	return __real_rte_telemetry_register_cmd(cmd, fn, help);
}

int
__wrap_rte_tel_data_add_dict_u64(struct rte_tel_data *d, const char *name, uint64_t val)
{
	int ret = __real_rte_tel_data_add_dict_u64(d, name, val);

	if (ret < 0) {
		dict_refused++;
	} else {
		snprintf(dict_last_key, sizeof(dict_last_key), "%s", name);
		dict_last_val = val;
	}
	return ret;
}

/* stats.get's answer with big_stats counters under "total" and one host stack's. */
static json_t *
big_stats_answer(json_t *req)
{
	json_t *total = json_object();
	char k[16];
	unsigned int i;

	for (i = 0; i < big_stats; i++) {
		snprintf(k, sizeof(k), "c%u", i);
		json_object_set_new(total, k, json_integer(i));
	}
	return json_pack("{s:s,s:O,s:{s:o,s:{s:i}}}", "jsonrpc", "2.0",
			 "id", json_object_get(req, "id"), "result", "total", total,
			 "host_stack", "to_kernel", 7);
}

json_t *
__wrap_dpr_rpc_handle(struct dpr_router *r, json_t *req)
{
	bool is_a = json_integer_value(json_object_get(req, "id")) == A_ID;
	json_t *resp;

	handled++;
	if (big_stats != 0 &&
	    strcmp(json_string_value(json_object_get(req, "method")) ?: "", "stats.get") == 0)
		return big_stats_answer(req);
	if (is_a && hold != NULL)
		hold();
	resp = __real_dpr_rpc_handle(r, req);
	/* Kept to see whether the telemetry code frees its reference. */
	if (is_a && resp != NULL) {
		json_decref(a_answer);
		a_answer = json_incref(resp);
	}
	return resp;
}

/* dpr_telemetry_init() makes the last one; EAL's come before. */
int
__wrap_eventfd(unsigned int count, int flags)
{
	wake_fd = __real_eventfd(count, flags);
	return wake_fd;
}

/* @p v as text for a message; the last two stay valid. */
static const char *
text(json_t *v)
{
	static char buf[2][512];
	static unsigned int n;
	char *t = v != NULL ? json_dumps(v, JSON_COMPACT) : NULL;

	n ^= 1;
	snprintf(buf[n], sizeof(buf[n]), "%s", t != NULL ? t : "(none)");
	free(t);
	return buf[n];
}

/* A telemetry client: one route.get on a thread of its own. */
struct caller {
	pthread_t thread;
	json_int_t id;
	const char *address;
	json_t *resp;
	bool done;   /* resp is set; atomic */
};

static struct caller A = { .id = A_ID, .address = A_ADDRESS };
static struct caller B = { .id = B_ID, .address = B_ADDRESS };

static void *
caller_main(void *arg)
{
	struct caller *c = arg;

	c->resp = dpr_telemetry_call(json_pack("{s:s,s:I,s:s,s:{s:s}}", "jsonrpc", "2.0",
					       "id", c->id, "method", "route.get",
					       "params", "address", c->address));
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void
caller_start(struct caller *c)
{
	json_decref(c->resp);
	c->resp = NULL;
	c->done = false;
	if (pthread_create(&c->thread, NULL, caller_main, c) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		exit(EXIT_FAILURE);
	}
}

static void
caller_join(struct caller *c)
{
	pthread_join(c->thread, NULL);
}

/* Be the control thread until @p c has its answer, then reap it. */
static void
serve_until(struct caller *c)
{
	unsigned int i;

	for (i = 0; i < 1000 && !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE); i++)
		dpr_server_poll(S, 10);
	caller_join(c);
}

/* Be the control thread until it has run a request (its caller may be gone). */
static void
serve_until_handled(void)
{
	unsigned int i;

	for (i = 0; i < 1000 && handled == 0; i++)
		dpr_server_poll(S, 10);
	CHECK(handled > 0, "the control thread was never woken");
}

/* @p c got a timeout error whose message says @p what. */
static void
check_timed_out(const struct caller *c, const char *what)
{
	json_t *err = json_object_get(c->resp, "error");
	const char *msg = json_string_value(json_object_get(err, "message"));

	CHECK(err != NULL, "caller %d: no error: %s", (int)c->id, text(c->resp));
	CHECK_EQ(json_integer_value(json_object_get(err, "code")), DPR_RPC_INTERNAL_ERROR);
	CHECK(msg != NULL && strstr(msg, "did not answer") != NULL && strstr(msg, what) != NULL,
	      "caller %d: message \"%s\" lacks \"%s\"", (int)c->id, msg ? msg : "(none)", what);
}

/* @p c got its own answer: its id, and the route of its address. */
static void
check_own_answer(const struct caller *c, const char *prefix)
{
	json_t *res = json_object_get(c->resp, "result");
	const char *got = json_string_value(json_object_get(res, "prefix"));

	CHECK(json_integer_value(json_object_get(c->resp, "id")) == c->id,
	      "caller %d got the answer to request %d: %s", (int)c->id,
	      (int)json_integer_value(json_object_get(c->resp, "id")), text(c->resp));
	CHECK(res != NULL, "caller %d: no result: %s", (int)c->id, text(c->resp));
	CHECK(got != NULL && strcmp(got, prefix) == 0, "caller %d: prefix %s, not %s",
	      (int)c->id, got ? got : "(none)", prefix);
}

/* A's answer was made, and only our reference to it is left. */
static void
check_a_answer_freed(void)
{
	CHECK(a_answer != NULL, "request %d never ran", A_ID);
	if (a_answer != NULL)
		CHECK(a_answer->refcount == 1,
		      "the answer nobody waits for is kept (%zu references, not 1)",
		      (size_t)a_answer->refcount);
	json_decref(a_answer);
	a_answer = NULL;
}

/* B after A: B gets B's answer, with a long wait so that only A times out. */
static void
run_b(void)
{
	dpr_telemetry_set_wait(LONG_WAIT_MS);
	caller_start(&B);
	serve_until(&B);
	check_own_answer(&B, B_PREFIX);
}

/* A times out before the control thread looks: A is withdrawn and never runs. */
static void
test_withdrawn(void)
{
	handled = 0;
	dpr_telemetry_set_wait(SHORT_WAIT_MS);
	caller_start(&A);
	caller_join(&A);
	check_timed_out(&A, "withdrawn");
	dpr_server_poll(S, 0); /* the wake-up for A is still pending */
	CHECK_EQ(handled, 0);

	run_b();
	CHECK_EQ(handled, 1);
}

static void
hold_until_a_gave_up(void)
{
	caller_join(&A);
}

/* A times out while it runs: its answer is freed, B still gets B's. */
static void
test_answer_dropped(void)
{
	handled = 0;
	hold = hold_until_a_gave_up;
	dpr_telemetry_set_wait(SHORT_WAIT_MS);
	caller_start(&A);
	serve_until_handled();
	hold = NULL;
	check_timed_out(&A, "still running");
	check_a_answer_freed();

	run_b();
	CHECK_EQ(handled, 2);
}

/* Hold A until A gave up and B waits for its own answer. */
static void
hold_until_b_waits(void)
{
	struct pollfd p = { .fd = wake_fd, .events = POLLIN };

	caller_join(&A);
	dpr_telemetry_set_wait(LONG_WAIT_MS);
	caller_start(&B);
	/* B posts its request before it wakes us, then waits. */
	CHECK_EQ(poll(&p, 1, LONG_WAIT_MS), 1);
}

/* A's answer comes while B waits: B must not take it. */
static void
test_next_caller_waiting(void)
{
	handled = 0;
	hold = hold_until_b_waits;
	dpr_telemetry_set_wait(SHORT_WAIT_MS);
	caller_start(&A);
	serve_until_handled();
	hold = NULL;
	serve_until(&B);
	check_timed_out(&A, "still running");
	check_own_answer(&B, B_PREFIX);
	CHECK_EQ(handled, 2);
	check_a_answer_freed();
}

static void *
notification_main(void *arg)
{
	struct caller *c = arg;

	c->resp = dpr_telemetry_call(json_pack("{s:s,s:s,s:{s:s}}", "jsonrpc", "2.0",
					       "method", "route.get",
					       "params", "address", c->address));
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* A notification has no answer: NULL at once, not a time-out. */
static void
test_notification(void)
{
	struct caller n = { .address = A_ADDRESS };

	handled = 0;
	dpr_telemetry_set_wait(LONG_WAIT_MS);
	if (pthread_create(&n.thread, NULL, notification_main, &n) != 0) {
		CHECK(false, "pthread_create failed");
		return;
	}
	serve_until(&n);
	CHECK_EQ(handled, 1);
	CHECK(n.resp == NULL, "a notification was answered: %s", text(n.resp));
	json_decref(n.resp);
}

/*
 * /dpr/port,NAME with a NAME that is not UTF-8: no request can be built;
 * the answer says so at once, not that the control thread did not answer
 * (after the whole wait, telemetry blocked meanwhile).
 */
static void
test_port_not_utf8(void)
{
	json_t *resp;
	const char *msg;

	handled = 0;
	dpr_telemetry_set_wait(SHORT_WAIT_MS);
	resp = dpr_telemetry_call(json_pack("{s:s,s:i,s:s,s:{s:s}}", "jsonrpc", "2.0", "id", 0,
					    "method", "port.show", "params", "port", "p\xe9"));
	msg = json_string_value(json_object_get(json_object_get(resp, "error"), "message"));
	CHECK(msg != NULL && strstr(msg, "not UTF-8") != NULL,
	      "a request that could not be built is named so: %s", text(resp));
	json_decref(resp);
	dpr_server_poll(S, 0);
	CHECK_EQ(handled, 0);
}

static void *
stats_main(void *arg)
{
	struct caller *c = arg;
	struct rte_tel_data *d = rte_tel_data_alloc();

	if (d != NULL && stats_cb != NULL)
		stats_cb("/dpr/stats", NULL, d);
	rte_tel_data_free(d);
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * /dpr/stats of more values than a DPDK 22.11 telemetry dict holds (256):
 * none is refused without a word; the last place says how many were left
 * out (the control socket's stats.get has them).
 */
static void
test_stats_too_many(void)
{
	struct caller c = { .address = A_ADDRESS };

	CHECK(stats_cb != NULL, "/dpr/stats was registered");
	big_stats = 300;
	dict_refused = 0;
	dict_last_key[0] = '\0';
	dpr_telemetry_set_wait(LONG_WAIT_MS);
	if (pthread_create(&c.thread, NULL, stats_main, &c) != 0) {
		CHECK(false, "pthread_create failed");
		return;
	}
	serve_until(&c);
	big_stats = 0;
	CHECK_EQ(dict_refused, 0);
	CHECK(strcmp(dict_last_key, "values_left_out") == 0,
	      "the last key says what was left out, not \"%s\"", dict_last_key);
	/* 300 counters and the host stack's one; all but one place hold them. */
	CHECK_EQ(dict_last_val, 301 - (RTE_TEL_MAX_DICT_ENTRIES - 1));
}

int
main(int argc, char **argv)
{
	char err[512], path[108];

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	if (test_router_init(&R, config_text, "test_telemetry") < 0)
		return EXIT_FAILURE;
	snprintf(path, sizeof(path), "/tmp/dpr-test-telemetry-%d.sock", (int)getpid());
	S = dpr_server_create(&R, path, NULL, err, sizeof(err));
	if (S == NULL) {
		fprintf(stderr, "server: %s\n", err);
		return EXIT_FAILURE;
	}
	if (dpr_telemetry_init(&R, S) < 0) {
		fprintf(stderr, "telemetry: init failed\n");
		return EXIT_FAILURE;
	}

	test_withdrawn();
	test_answer_dropped();
	test_next_caller_waiting();
	test_notification();
	test_stats_too_many();
	test_port_not_utf8();

	json_decref(A.resp);
	json_decref(B.resp);
	dpr_telemetry_stop();
	dpr_server_free(S);
	test_router_free(&R);
	return test_done("test_telemetry");
}
