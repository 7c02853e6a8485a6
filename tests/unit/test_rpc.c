/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON-RPC layer and every control method, on a router built here
 * without ports or workers: protocol errors get the JSON-RPC codes, every
 * method rejects missing, mistyped and unknown parameters, semantic errors
 * get our codes with a message that names the method and the value, good
 * calls answer the documented shape, and nothing leaks next hops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "api/methods.h"
#include "acl/acl.h"
#include "api/rpc.h"
#include "capture/capture.h"
#include "config/config.h"
#include "datapath/qinq_dp.h"
#include "fib/fib.h"
#include "neigh/neigh.h"
#include "nexthop/nexthop.h"
#include "route/route.h"
#include "rig.h"
#include "router/router.h"
#include "test.h"

/*
 * Two ports, a static neighbour on p0, one gateway route via p1 (gateway
 * unresolved) and no default route, so route.get can miss.
 * Routes: 10.0.1.0/24, 10.0.1.1/32, 10.0.1.255/32, the same three for
 * 10.0.2.1/24, 10.0.1.2/32 (neighbour) and 198.51.100.0/24: 8 in all.
 */
static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"neighbors\": [{\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"}],"
	" \"routes\": [{\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"}],"
	" \"control\": {\"socket\": \"/tmp/dpr-test-rpc.sock\"},"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256}}";
#define CONFIG_ROUTES 8

/* p1's MTU is below IPv6's 1280 (RFC 8200 5): an IPv4-only link. */
static const char config_small_mtu_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"mac\": \"02:00:00:00:02:01\","
	"  \"mtu\": 1000, \"addresses\": [\"10.0.2.1/24\"]}],"
	" \"control\": {\"socket\": \"/tmp/dpr-test-rpc.sock\"},"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256}}";

static struct dpr_router R;
static json_t *last;   /* the last response; results returned are borrowed from it */
static char last_text[1 << 16];

/* Requests are written with ' for " to keep them readable. */
static char *
dequote(const char *s)
{
	char *d = strdup(s), *p;

	for (p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* Send one raw line (no quoting); the parsed response, or NULL for none. */
static json_t *
send_raw(const char *text, size_t len)
{
	char *out = dpr_rpc_handle_text(&R, text, len);
	char why[512];

	/* Whatever the request did, every reference is where it belongs. */
	CHECK(dpr_router_check(&R, why, sizeof(why)) == 0, "after %.200s: %s", text, why);
	json_decref(last);
	last = NULL;
	last_text[0] = '\0';
	if (out == NULL)
		return NULL;
	snprintf(last_text, sizeof(last_text), "%s", out);
	last = json_loads(out, 0, NULL);
	CHECK(last != NULL, "response is not JSON: %.300s", out);
	CHECK(strchr(out, '\n') == NULL, "response spans lines: %.300s", out);
	free(out);
	return last;
}

static json_t *
send_line(const char *quoted)
{
	char *t = dequote(quoted);
	json_t *r = send_raw(t, strlen(t));

	free(t);
	return r;
}

/* method with params (a JSON text with ' for ", or NULL for none), id 7 */
static json_t *
call(const char *method, const char *params)
{
	size_t n = strlen(method) + (params ? strlen(params) : 0) + 64;
	char *buf = malloc(n);
	json_t *r;

	snprintf(buf, n, "{'jsonrpc':'2.0','id':7,'method':'%s'%s%s}", method,
		 params ? ",'params':" : "", params ? params : "");
	r = send_line(buf);
	free(buf);
	return r;
}

static bool
has_all(const char *msg, const char *const *needles, int line)
{
	bool ok = true;

	for (; *needles != NULL; needles++) {
		if (msg == NULL || strstr(msg, *needles) == NULL) {
			fprintf(stderr, "FAIL %s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, line,
				msg ? msg : "(none)", *needles);
			ok = false;
		}
	}
	return ok;
}

/* Check @p r is an error with @p code and id @p id_json; returns its message. */
static const char *
check_error(json_t *r, int code, const char *id_json, int line)
{
	json_t *err = json_object_get(r, "error"), *id;
	char *id_text = dequote(id_json);
	json_t *want_id = json_loads(id_text, JSON_DECODE_ANY, NULL);
	const char *msg = json_string_value(json_object_get(err, "message"));
	bool ok;

	id = json_object_get(r, "id");
	ok = r != NULL && json_is_object(err) && json_object_get(r, "result") == NULL &&
	     json_integer_value(json_object_get(err, "code")) == code && msg != NULL &&
	     strcmp(json_string_value(json_object_get(r, "jsonrpc")) ?: "", "2.0") == 0 &&
	     id != NULL && json_equal(id, want_id) && json_object_size(r) == 3;
	test_checks++;
	if (!ok) {
		test_failures++;
		fprintf(stderr, "FAIL %s:%d: want error %d with id %s, got %s\n", __FILE__, line,
			code, id_json, r ? last_text : "no response");
	}
	json_decref(want_id);
	free(id_text);
	return msg;
}

/* ERR(code, method, params, needles...): the message names the method too. */
#define ERR(code, method, params, ...) \
	err_at(__LINE__, code, method, params, (const char *const[]){ method, __VA_ARGS__, NULL })
static void
err_at(int line, int code, const char *method, const char *params, const char *const *needles)
{
	const char *msg = check_error(call(method, params), code, "7", line);

	test_checks++;
	if (!has_all(msg, needles, line))
		test_failures++;
}

/* ERRT(code, line, id, needles...): a raw request line (with ' for "). */
#define ERRT(code, text, id, ...) \
	errt_at(__LINE__, code, text, id, (const char *const[]){ __VA_ARGS__, NULL })
static void
errt_at(int line, int code, const char *text, const char *id, const char *const *needles)
{
	const char *msg = check_error(send_line(text), code, id, line);

	test_checks++;
	if (!has_all(msg, needles, line))
		test_failures++;
}

/* OK(method, params): the result, borrowed until the next call. */
#define OK(method, params) ok_at(__LINE__, method, params)
static json_t *
ok_at(int line, const char *method, const char *params)
{
	json_t *r = call(method, params), *res = json_object_get(r, "result");

	test_checks++;
	if (res == NULL || json_object_get(r, "error") != NULL ||
	    json_integer_value(json_object_get(r, "id")) != 7) {
		test_failures++;
		fprintf(stderr, "FAIL %s:%d: %s %s: %s\n", __FILE__, line, method,
			params ? params : "", r ? last_text : "no response");
	}
	return res;
}

/* Shape checks: a JSON value of the expected type under @p key. */
#define HAS_STR(o, key, val) has_str_at(__LINE__, o, key, val)
static void
has_str_at(int line, json_t *o, const char *key, const char *val)
{
	const char *s = json_string_value(json_object_get(o, key));

	test_checks++;
	if (s == NULL || (val != NULL && strcmp(s, val) != 0)) {
		test_failures++;
		fprintf(stderr, "FAIL %s:%d: \"%s\" should be \"%s\" in %.400s\n", __FILE__, line,
			key, val ? val : "a string", last_text);
	}
}
#define HAS_INT(o, key, val) \
	CHECK(json_is_integer(json_object_get(o, key)) && \
	      json_integer_value(json_object_get(o, key)) == (json_int_t)(val), \
	      "\"%s\" should be %lld in %s", key, (long long)(val), last_text)

/* config.get's answer is a file the config checker (dpr --check) accepts. */
static void
check_config_file(json_t *res)
{
	char *text = json_dumps(res, 0), err[1024] = "";
	struct dpr_config *cfg = text != NULL ? dpr_config_parse(text, "config.get", err, sizeof(err)) :
				 NULL;

	CHECK(cfg != NULL, "config.get answers a valid config: %s in %.600s", err, last_text);
	dpr_config_free(cfg);
	free(text);
}

static uint32_t
refs_total(void)
{
	uint32_t i, sum = 0;

	for (i = DPR_NH_FIRST_DYNAMIC; i < DPR_NH_MAX; i++) {
		const struct dpr_nh_info *info = dpr_nh_info(R.nh, i);

		if (info != NULL)
			sum += info->refcnt;
	}
	return sum;
}

/* "refs" of @p addr in neigh.list, or -1 when it is not listed. */
static long
neigh_refs(const char *addr)
{
	json_t *res = OK("neigh.list", NULL), *v;
	size_t i;

	json_array_foreach(res, i, v)
		if (strcmp(json_string_value(json_object_get(v, "address")), addr) == 0)
			return (long)json_integer_value(json_object_get(v, "refs"));
	return -1;
}

/* route.get @p addr: the matched prefix, or "" when there is no route. */
static const char *
route_prefix(const char *addr)
{
	static char buf[64];
	char params[128];
	json_t *r;

	snprintf(params, sizeof(params), "{'address':'%s'}", addr);
	r = call("route.get", params);
	snprintf(buf, sizeof(buf), "%s",
		 json_string_value(json_object_get(json_object_get(r, "result"), "prefix")) ?: "");
	return buf;
}

static const char *
route_field(const char *addr, const char *key)
{
	static char buf[64];
	char params[128];
	json_t *r;

	snprintf(params, sizeof(params), "{'address':'%s'}", addr);
	r = call("route.get", params);
	snprintf(buf, sizeof(buf), "%s",
		 json_string_value(json_object_get(json_object_get(r, "result"), key)) ?: "");
	return buf;
}

struct snapshot {
	uint32_t routes, nh, refs;
};

static struct snapshot
snap(void)
{
	return (struct snapshot){ R.fib4->n_routes + dpr_fib6_count(R.fib6), dpr_nh_count(R.nh),
				  refs_total() };
}

#define SAME(a, b) do { \
		struct snapshot a_ = (a), b_ = (b); \
		CHECK(a_.routes == b_.routes && a_.nh == b_.nh && a_.refs == b_.refs, \
		      "routes %u/%u, next hops %u/%u, references %u/%u", a_.routes, b_.routes, \
		      a_.nh, b_.nh, a_.refs, b_.refs); \
	} while (0)

/* --- the protocol --------------------------------------------------------- */

static void
test_protocol(void)
{
	static const char *const methods[] = {
		"route.add", "route.replace", "route.del", "route.get", "route.list",
		"route.load", "addr.add", "addr.del", "addr.list", "neigh.add", "neigh.del",
		"neigh.list", "port.list", "stats.get", "config.get",
	};
	json_t *r, *req;
	unsigned int i;
	char huge[20001];

	/* Parse errors: id null, the column named. */
	ERRT(DPR_RPC_PARSE_ERROR, "{", "null", "parse error");
	ERRT(DPR_RPC_PARSE_ERROR, "", "null", "parse error");
	ERRT(DPR_RPC_PARSE_ERROR, "{'jsonrpc':'2.0','id':1,'method':'stats.get'} x", "null",
	     "parse error");
	ERRT(DPR_RPC_PARSE_ERROR, "{'jsonrpc':'2.0','id':1,'method':'stats.get',}", "null",
	     "parse error");
	ERRT(DPR_RPC_PARSE_ERROR, "{'jsonrpc':'2.0','id':1,'id':2,'method':'stats.get'}", "null",
	     "duplicate");
	ERRT(DPR_RPC_PARSE_ERROR, "{'jsonrpc':'2.0','id':99999999999999999999999,'method':'stats.get'}",
	     "null", "parse error");
	ERRT(DPR_RPC_PARSE_ERROR, "{'jsonrpc':'2.0','id':1,'method':'stats.get\xff'}", "null",
	     "parse error");
	ERRT(DPR_RPC_PARSE_ERROR, "\xc3\x28", "null", "parse error");
	r = send_raw("{\"a\":1}\0{}", 10); /* a NUL inside the line */
	check_error(r, DPR_RPC_PARSE_ERROR, "null", __LINE__);
	memset(huge, '[', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	r = send_raw(huge, strlen(huge)); /* deep nesting: jansson's depth limit */
	check_error(r, DPR_RPC_PARSE_ERROR, "null", __LINE__);

	/* Not a request object. */
	ERRT(DPR_RPC_INVALID_REQUEST, "[{'jsonrpc':'2.0','id':1,'method':'stats.get'}]", "null",
	     "request object");
	ERRT(DPR_RPC_INVALID_REQUEST, "1", "null", "request object");
	ERRT(DPR_RPC_INVALID_REQUEST, "'stats.get'", "null", "request object");
	ERRT(DPR_RPC_INVALID_REQUEST, "null", "null", "request object");
	req = json_integer(3);
	r = dpr_rpc_handle(&R, req);
	CHECK(r != NULL && json_integer_value(json_object_get(json_object_get(r, "error"), "code")) ==
	      DPR_RPC_INVALID_REQUEST, "dpr_rpc_handle on a number");
	json_decref(r);
	json_decref(req);

	/* jsonrpc missing or wrong: the id is still echoed. */
	ERRT(DPR_RPC_INVALID_REQUEST, "{'id':5,'method':'stats.get'}", "5", "\"jsonrpc\"", "2.0");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'1.0','id':5,'method':'stats.get'}", "5",
	     "\"jsonrpc\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':2.0,'id':'x','method':'stats.get'}", "'x'",
	     "\"jsonrpc\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':null,'id':5,'method':'stats.get'}", "5",
	     "\"jsonrpc\"");

	/* Bad id types: id null in the answer. */
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':1.5,'method':'stats.get'}", "null",
	     "\"id\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':[1],'method':'stats.get'}", "null",
	     "\"id\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':{},'method':'stats.get'}", "null",
	     "\"id\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':true,'method':'stats.get'}", "null",
	     "\"id\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':1e300,'method':'stats.get'}", "null",
	     "\"id\"");

	/* Unknown members, missing or mistyped method. */
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':5,'method':'stats.get','param':{}}",
	     "5", "unknown member \"param\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':5}", "5", "\"method\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':5,'method':7}", "5", "\"method\"");
	ERRT(DPR_RPC_INVALID_REQUEST, "{'jsonrpc':'2.0','id':5,'method':null}", "5", "\"method\"");

	/* Unknown method: the message lists every method. */
	r = send_line("{'jsonrpc':'2.0','id':'abc','method':'route.frob'}");
	{
		const char *msg = check_error(r, DPR_RPC_METHOD_NOT_FOUND, "'abc'", __LINE__);

		CHECK(msg != NULL && strstr(msg, "route.frob") != NULL, "names the method: %s",
		      msg ? msg : "(none)");
		for (i = 0; i < RTE_DIM(methods); i++)
			CHECK(msg != NULL && strstr(msg, methods[i]) != NULL, "lists %s: %s",
			      methods[i], msg ? msg : "(none)");
	}
	ERRT(DPR_RPC_METHOD_NOT_FOUND, "{'jsonrpc':'2.0','id':5,'method':''}", "5", "unknown method");
	ERRT(DPR_RPC_METHOD_NOT_FOUND, "{'jsonrpc':'2.0','id':5,'method':'STATS.GET'}", "5",
	     "STATS.GET");

	/* Params must be an object (or null, or absent). */
	ERRT(DPR_RPC_INVALID_PARAMS, "{'jsonrpc':'2.0','id':5,'method':'route.get','params':['10.0.0.1']}",
	     "5", "route.get", "params must be an object");
	ERRT(DPR_RPC_INVALID_PARAMS, "{'jsonrpc':'2.0','id':5,'method':'stats.get','params':'x'}",
	     "5", "stats.get");
	ERRT(DPR_RPC_INVALID_PARAMS, "{'jsonrpc':'2.0','id':5,'method':'stats.get','params':3}",
	     "5", "stats.get");
	ERRT(DPR_RPC_INVALID_PARAMS, "{'jsonrpc':'2.0','id':5,'method':'stats.get','params':true}",
	     "5", "stats.get");
	r = send_line("{'jsonrpc':'2.0','id':5,'method':'stats.get','params':null}");
	CHECK(json_is_object(json_object_get(r, "result")), "params null is no params: %s", last_text);

	/* Ids come back as given: strings, big integers, null, negative. */
	r = send_line("{'jsonrpc':'2.0','id':'req-\\u00e9-1','method':'stats.get'}");
	CHECK(strcmp(json_string_value(json_object_get(r, "id")) ?: "", "req-\xc3\xa9-1") == 0, "%s",
	      last_text);
	r = send_line("{'jsonrpc':'2.0','id':9223372036854775807,'method':'stats.get'}");
	CHECK(json_integer_value(json_object_get(r, "id")) == INT64_MAX, "%s", last_text);
	r = send_line("{'jsonrpc':'2.0','id':-1,'method':'stats.get'}");
	CHECK(json_integer_value(json_object_get(r, "id")) == -1, "%s", last_text);
	r = send_line("{'jsonrpc':'2.0','id':null,'method':'stats.get'}");
	CHECK(r != NULL && json_is_null(json_object_get(r, "id")) &&
	      json_is_object(json_object_get(r, "result")), "id null answered: %s", last_text);
	r = send_line("{'method':'stats.get','id':3,'jsonrpc':'2.0'}"); /* any member order */
	CHECK(json_is_object(json_object_get(r, "result")), "%s", last_text);
	{
		static const char t[] = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"stats.get\"}  \t ";

		r = send_raw(t, strlen(t));
	}
	CHECK(json_is_object(json_object_get(r, "result")), "trailing blanks: %s", last_text);

	/* Notifications: executed, never answered, not even with an error. */
	r = send_line("{'jsonrpc':'2.0','method':'route.add','params':{'prefix':'192.0.2.0/24','via':'10.0.2.2'}}");
	CHECK(r == NULL, "a notification got an answer: %s", last_text);
	CHECK(strcmp(route_prefix("192.0.2.9"), "192.0.2.0/24") == 0,
	      "the notification was executed");
	r = send_line("{'jsonrpc':'2.0','method':'route.del','params':{'prefix':'192.0.2.0/24'}}");
	CHECK(r == NULL, "a notification got an answer: %s", last_text);
	CHECK(strcmp(route_prefix("192.0.2.9"), "") == 0, "the second notification was executed");
	r = send_line("{'jsonrpc':'2.0','method':'route.del','params':{'prefix':'192.0.2.0/24'}}");
	CHECK(r == NULL, "a failing notification got an answer: %s", last_text);
	/* JSON-RPC 2.0: "The Server MUST NOT reply to a Notification". */
	r = send_line("{'jsonrpc':'2.0','method':'route.frob'}");
	CHECK(r == NULL, "a notification of an unknown method got an answer: %s", last_text);
	r = send_line("{'jsonrpc':'2.0','method':'stats.get','params':[1]}");
	CHECK(r == NULL, "a notification with bad params got an answer: %s", last_text);
}

/* --- routes ------------------------------------------------------------- */

static void
test_route_add(void)
{
	struct snapshot before;
	json_t *res;
	long refs;

	/* Missing, mistyped and unknown parameters. */
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", NULL, "missing parameter \"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{}", "missing parameter \"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'via':'10.0.2.2'}", "\"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':10,'via':'10.0.2.2'}",
	    "\"prefix\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':null,'via':'10.0.2.2'}", "\"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.0.0.0/8','via':['10.0.2.2']}",
	    "\"via\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.0.0.0/8','port':0}",
	    "\"port\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.0.0.0/8','gateway':'10.0.2.2'}",
	    "unknown parameter \"gateway\"");
	/* Destinations the workers never forward (RFC 1812 5.3.7) or keep
	 * for the router (multicast): route.get would answer a route no
	 * packet takes. */
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'127.0.0.0/8','via':'10.0.2.2'}",
	    "127.0.0.0/8", "loopback", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'0.0.0.0/8','via':'10.0.2.2'}",
	    "this network", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", "{'prefix':'239.1.0.0/16','via':'10.0.2.2'}",
	    "multicast", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'255.255.255.255/32','via':'10.0.2.2'}",
	    "class E", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'224.0.0.0/3','via':'10.0.2.2'}",
	    "multicast and class E", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.load", "{'routes':['127.0.0.1/32 via 10.0.2.2']}",
	    "routes[0]", "loopback");
	CHECK(strcmp(route_prefix("127.0.0.1"), "") == 0, "no route to 127.0.0.1: %s", last_text);
	/* Prefixes that hold forwarded destinations too are routes. */
	OK("route.add", "{'prefix':'126.0.0.0/7','via':'10.0.2.2'}");
	OK("route.add", "{'prefix':'192.0.0.0/2','via':'10.0.2.2'}");
	OK("route.del", "{'prefix':'126.0.0.0/7'}");
	OK("route.del", "{'prefix':'192.0.0.0/2'}");

	before = snap();
	/* Semantic errors: the value and what to do. */
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.1.2.3/16','via':'10.0.2.2'}",
	    "10.1.2.3/16", "host bits", "10.1.0.0/16");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'banana','via':'10.0.2.2'}",
	    "\"banana\"", "not a prefix");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.0.0.0/33','via':'10.0.2.2'}",
	    "10.0.0.0/33");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'','via':'10.0.2.2'}", "prefix");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8::/32','via':'10.0.2.2'}",
	    "IPv6");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16'}", "\"via\"", "\"port\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16','via':'192.168.9.9'}",
	    "10.9.0.0/16", "192.168.9.9", "not on a connected subnet");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add",
	    "{'prefix':'10.9.0.0/16','via':'10.0.1.5','port':'p1'}", "10.0.1.5",
	    "not on a connected subnet of port p1");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16','via':'10.0.2'}",
	    "\"10.0.2\"", "not an IPv4 or IPv6 address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16','via':'2001:db8::1'}",
	    "2001:db8::1");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16','via':'10.0.2.1'}",
	    "10.0.2.1", "router's own address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16','via':'10.0.2.255'}",
	    "10.0.2.255", "broadcast");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.9.0.0/16','via':'10.0.2.0'}",
	    "10.0.2.0", "network");
	ERR(DPR_RPC_NOT_FOUND, "route.add", "{'prefix':'10.9.0.0/16','port':'p9'}",
	    "no port \"p9\"", "p0, p1");
	ERR(DPR_RPC_NOT_FOUND, "route.add", "{'prefix':'10.9.0.0/16','via':'10.0.2.2','port':'eth0'}",
	    "\"eth0\"");
	/* Routes the router owns. */
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.1.0/24','via':'10.0.2.2'}",
	    "10.0.1.0/24", "connected subnet", "addr.del");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.2.0/24','port':'p0'}",
	    "10.0.2.0/24", "connected subnet");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.1.1/32','via':'10.0.2.2'}",
	    "10.0.1.1/32", "router's address");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.1.255/32','via':'10.0.2.2'}",
	    "10.0.1.255/32", "broadcast");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.1.2/32','via':'10.0.2.2'}",
	    "10.0.1.2/32", "neighbour", "neigh.del");
	SAME(snap(), before);

	/* Good ones, with their shapes. */
	res = OK("route.add", "{'prefix':'172.16.0.0/12','via':'10.0.2.2'}");
	HAS_STR(res, "prefix", "172.16.0.0/12");
	HAS_STR(res, "via", "10.0.2.2");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "type", "gateway");
	CHECK(json_is_false(json_object_get(res, "resolved")), "10.0.2.2 is unresolved: %s", last_text);
	HAS_STR(res, "source", "api");
	CHECK_EQ(json_object_size(res), 6);
	res = OK("route.add", "{'prefix':'172.32.0.0/16','via':'10.0.1.2','port':'p0'}");
	HAS_STR(res, "port", "p0");
	CHECK(json_is_true(json_object_get(res, "resolved")), "10.0.1.2 is resolved: %s", last_text);
	res = OK("route.add", "{'prefix':'192.168.50.0/24','port':'p0'}");
	HAS_STR(res, "prefix", "192.168.50.0/24");
	HAS_STR(res, "port", "p0");
	HAS_STR(res, "type", "connected");
	CHECK(json_object_get(res, "via") == NULL, "no via on a connected route: %s", last_text);
	res = OK("route.add", "{'prefix':'0.0.0.0/0','via':'10.0.2.3'}");
	HAS_STR(res, "prefix", "0.0.0.0/0");
	res = OK("route.add", "{'prefix':'203.0.113.7/32','via':'10.0.2.2'}");
	HAS_STR(res, "type", "gateway");
	CHECK_EQ(R.fib4->n_routes, before.routes + 5);

	/* Again: -32002, with the route as it is, and no reference kept. */
	before = snap();
	refs = neigh_refs("10.0.2.2");
	ERR(DPR_RPC_EXISTS, "route.add", "{'prefix':'172.16.0.0/12','via':'10.0.2.2'}",
	    "172.16.0.0/12", "exists", "route.replace", "10.0.2.2");
	ERR(DPR_RPC_EXISTS, "route.add", "{'prefix':'172.16.0.0/12','via':'10.0.2.77'}",
	    "172.16.0.0/12", "exists");
	ERR(DPR_RPC_EXISTS, "route.add", "{'prefix':'0.0.0.0/0','port':'p1'}", "0.0.0.0/0", "exists");
	SAME(snap(), before);
	CHECK_EQ(neigh_refs("10.0.2.2"), refs);
	CHECK_EQ(neigh_refs("10.0.2.77"), -1);
	CHECK(strcmp(route_field("172.20.0.1", "via"), "10.0.2.2") == 0, "unchanged");

	/* A host route via the host itself is either refused or removable. */
	before = snap();
	if (json_object_get(call("route.add", "{'prefix':'10.0.2.5/32','via':'10.0.2.5'}"),
			    "result") != NULL) {
		json_t *r = call("route.del", "{'prefix':'10.0.2.5/32'}");

		CHECK(json_object_get(r, "result") != NULL,
		      "route.add 10.0.2.5/32 via 10.0.2.5 succeeded but it cannot be deleted: %s",
		      last_text);
		if (json_object_get(r, "result") == NULL) { /* clean up the way that works */
			call("neigh.add", "{'address':'10.0.2.5','mac':'02:00:00:00:02:05'}");
			call("neigh.del", "{'address':'10.0.2.5'}");
		}
	}
	SAME(snap(), before);
}

static void
test_route_replace(void)
{
	struct snapshot before;
	json_t *res;
	long refs2;

	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", NULL, "missing parameter \"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", "{'prefix':[]}", "\"prefix\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", "{'prefix':'10.9.0.0/16','via':1}",
	    "\"via\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", "{'prefix':'10.9.0.0/16','dev':'p0'}",
	    "unknown parameter \"dev\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", "{'prefix':'172.16.0.1/12','via':'10.0.2.2'}",
	    "172.16.0.1/12", "172.16.0.0/12");
	ERR(DPR_RPC_INVALID_PARAMS, "route.replace", "{'prefix':'172.16.0.0/12','via':'8.8.8.8'}",
	    "8.8.8.8", "not on a connected subnet");
	ERR(DPR_RPC_REFUSED, "route.replace", "{'prefix':'10.0.2.0/24','port':'p1'}",
	    "10.0.2.0/24", "connected subnet");
	ERR(DPR_RPC_REFUSED, "route.replace", "{'prefix':'10.0.1.2/32','via':'10.0.2.2'}",
	    "10.0.1.2/32", "neigh.del");

	/* Replace moves the route and its reference. */
	before = snap();
	refs2 = neigh_refs("10.0.2.2");
	res = OK("route.replace", "{'prefix':'172.16.0.0/12','via':'10.0.1.2'}");
	HAS_STR(res, "via", "10.0.1.2");
	HAS_STR(res, "port", "p0");
	CHECK(strcmp(route_field("172.16.1.1", "via"), "10.0.1.2") == 0, "replaced");
	CHECK_EQ(neigh_refs("10.0.2.2"), refs2 - 1);
	CHECK_EQ(R.fib4->n_routes, before.routes);
	res = OK("route.replace", "{'prefix':'172.16.0.0/12','port':'p1'}");
	HAS_STR(res, "type", "connected");
	res = OK("route.replace", "{'prefix':'172.16.0.0/12','via':'10.0.2.2'}");
	HAS_STR(res, "via", "10.0.2.2");
	SAME(snap(), before);
	/* And adds a route that is not there. */
	res = OK("route.replace", "{'prefix':'172.17.0.0/16','via':'10.0.2.2'}");
	HAS_STR(res, "prefix", "172.17.0.0/16");
	CHECK_EQ(R.fib4->n_routes, before.routes + 1);
	CHECK_EQ(neigh_refs("10.0.2.2"), refs2 + 1);
	OK("route.del", "{'prefix':'172.17.0.0/16'}");
	SAME(snap(), before);
}

static void
test_route_del(void)
{
	struct snapshot before = snap();
	json_t *res;

	ERR(DPR_RPC_INVALID_PARAMS, "route.del", NULL, "missing parameter \"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.del", "{}", "missing parameter \"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.del", "{'prefix':24}", "\"prefix\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.del", "{'prefix':'172.16.0.0/12','via':'10.0.2.2'}",
	    "unknown parameter \"via\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.del", "{'prefix':'172.16.9.9/12'}", "172.16.9.9/12",
	    "172.16.0.0/12");
	ERR(DPR_RPC_INVALID_PARAMS, "route.del", "{'prefix':'nope'}", "nope", "not a prefix",
	    "10.0.0.0/8", "2001:db8::/32");
	ERR(DPR_RPC_NOT_FOUND, "route.del", "{'prefix':'2001:db8::/32'}", "2001:db8::/32",
	    "no such route");
	ERR(DPR_RPC_NOT_FOUND, "route.del", "{'prefix':'10.99.0.0/16'}", "10.99.0.0/16",
	    "no such route");
	ERR(DPR_RPC_NOT_FOUND, "route.del", "{'prefix':'172.16.0.0/13'}", "172.16.0.0/13",
	    "no such route");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'10.0.1.0/24'}", "10.0.1.0/24",
	    "connected subnet", "addr.del");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'10.0.2.1/32'}", "10.0.2.1/32",
	    "router's address");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'10.0.2.1'}", "router's address");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'10.0.2.255/32'}", "10.0.2.255/32", "broadcast");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'10.0.1.2/32'}", "10.0.1.2/32", "neighbour",
	    "neigh.del");
	SAME(snap(), before);
	CHECK(strcmp(route_prefix("10.0.1.2"), "10.0.1.2/32") == 0, "neighbour route kept");

	res = OK("route.del", "{'prefix':'192.168.50.0/24'}");
	HAS_STR(res, "deleted", "192.168.50.0/24");
	CHECK_EQ(json_object_size(res), 1);
	CHECK(strcmp(route_prefix("192.168.50.1"), "0.0.0.0/0") == 0, "falls to the default");
	ERR(DPR_RPC_NOT_FOUND, "route.del", "{'prefix':'192.168.50.0/24'}", "192.168.50.0/24");
	OK("route.del", "{'prefix':'0.0.0.0/0'}");
	OK("route.del", "{'prefix':'172.32.0.0/16'}");
	res = OK("route.del", "{'prefix':'203.0.113.7'}"); /* a bare address is a /32 */
	HAS_STR(res, "deleted", "203.0.113.7");
	CHECK_EQ(R.fib4->n_routes, before.routes - 4);
	CHECK_EQ(neigh_refs("10.0.2.3"), -1); /* the default's gateway went with it */
}

static void
test_route_get(void)
{
	json_t *res;

	ERR(DPR_RPC_INVALID_PARAMS, "route.get", NULL, "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.get", "{}", "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.get", "{'address':167772161}",
	    "\"address\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.get", "{'address':'10.0.0.1','prefix':'10.0.0.0/8'}",
	    "unknown parameter \"prefix\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.get", "{'address':'10.0.0.300'}", "10.0.0.300",
	    "not an IPv4 or IPv6 address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.get", "{'address':'10.0.0.0/8'}", "10.0.0.0/8");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'2001:db8::1'}", "2001:db8::1", "no route");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'8.8.8.8'}", "8.8.8.8", "no route");

	res = OK("route.get", "{'address':'198.51.100.7'}");
	HAS_STR(res, "prefix", "198.51.100.0/24");
	HAS_STR(res, "via", "10.0.2.2");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "address", "198.51.100.7");
	HAS_STR(res, "type", "gateway");
	res = OK("route.get", "{'address':'172.31.255.255'}");
	HAS_STR(res, "prefix", "172.16.0.0/12");
	res = OK("route.get", "{'address':'10.0.1.1'}");
	HAS_STR(res, "prefix", "10.0.1.1/32");
	HAS_STR(res, "type", "local");
	res = OK("route.get", "{'address':'10.0.1.255'}");
	HAS_STR(res, "type", "broadcast");
	res = OK("route.get", "{'address':'10.0.1.77'}");
	HAS_STR(res, "prefix", "10.0.1.0/24");
	HAS_STR(res, "type", "connected");
	HAS_STR(res, "port", "p0");
	res = OK("route.get", "{'address':'10.0.1.2'}");
	HAS_STR(res, "prefix", "10.0.1.2/32");
	HAS_STR(res, "type", "neighbor");
	HAS_STR(res, "via", "10.0.1.2");
	CHECK(json_is_true(json_object_get(res, "resolved")), "%s", last_text);
}

/* A set of prefixes, seen at most once each. */
struct seen {
	char (*p)[64];
	unsigned int n, cap, dups;
};

static bool
seen_has(const struct seen *s, const char *p)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->p[i], p) == 0)
			return true;
	return false;
}

static void
seen_add(struct seen *s, const char *p)
{
	if (seen_has(s, p)) {
		if (s->dups++ < 5)
			fprintf(stderr, "route.list: %s listed twice\n", p);
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->p = realloc(s->p, s->cap * sizeof(*s->p));
	}
	snprintf(s->p[s->n++], sizeof(s->p[0]), "%s", p);
}

/* Page through route.list by @p limit; delete each cursor route when asked. */
static unsigned int
list_all(unsigned int limit, bool delete_cursor, struct seen *s, unsigned int *deleted)
{
	char params[128], cursor[64] = "";
	unsigned int pages = 0;

	for (;;) {
		json_t *res, *v;
		size_t i;

		if (cursor[0])
			snprintf(params, sizeof(params), "{'limit':%u,'after':'%s'}", limit, cursor);
		else
			snprintf(params, sizeof(params), "{'limit':%u}", limit);
		res = OK("route.list", params);
		if (res == NULL)
			break;
		pages++;
		CHECK(json_array_size(json_object_get(res, "routes")) <= limit, "page over the limit");
		HAS_INT(res, "total", snap().routes);
		json_array_foreach(json_object_get(res, "routes"), i, v) {
			CHECK(json_is_string(json_object_get(v, "prefix")) &&
			      json_is_string(json_object_get(v, "type")), "route shape");
			seen_add(s, json_string_value(json_object_get(v, "prefix")));
		}
		v = json_object_get(res, "next");
		if (json_is_null(v))
			break;
		CHECK(json_is_string(v), "next is a string or null: %s", last_text);
		if (!json_is_string(v) || pages > 100000)
			break;
		snprintf(cursor, sizeof(cursor), "%s", json_string_value(v));
		CHECK(json_array_size(json_object_get(res, "routes")) == limit,
		      "a page with a next cursor is full");
		if (delete_cursor && strncmp(cursor, "100.", 4) == 0) {
			char del[128];

			snprintf(del, sizeof(del), "{'prefix':'%s'}", cursor);
			if (json_object_get(call("route.del", del), "result") != NULL)
				(*deleted)++;
		}
	}
	return pages;
}

static void
test_route_list(void)
{
	struct seen all = { 0 }, s = { 0 };
	struct snapshot before;
	json_t *res, *routes, *load;
	unsigned int i, deleted = 0, n_added, pages;
	char buf[64];

	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'limit':0}", "\"limit\"", "from 1 to 100000");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'limit':100001}", "\"limit\"", "100000");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'limit':-1}", "\"limit\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'limit':1.5}", "\"limit\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'limit':'10'}", "\"limit\"");
	/* A bad "prefix" filter: an answer that says why (not stack bytes,
	 * which were no JSON string and left the request unanswered). */
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'prefix':'10.0.0.0/33'}", "10.0.0.0/33",
	    "not a prefix like 10.0.0.0/8");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'prefix':'banana'}", "banana",
	    "not a prefix like 10.0.0.0/8");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'prefix':'10.0.0.1/8'}", "10.0.0.1/8",
	    "did you mean \"10.0.0.0/8\"?");
	/* A message that quotes a long value is cut short, never inside a
	 * character: cut there it is no UTF-8, no JSON string, and the
	 * request went unanswered. */
	{
		static const char *const methods[] = { "route.add", "route.del", "neigh.add",
						       "addr.add", "vlan.add", "vrf.add" };
		char p[1024], e[256];
		unsigned int m, k, n;

		for (m = 0; m < RTE_DIM(methods); m++) {
			for (k = 0; k < 3; k++) {
				n = (unsigned int)snprintf(p, sizeof(p),
							   "{'%s':'%.*s", m < 2 ? "prefix" :
							   m < 3 ? "address" : "name", (int)k, "xx");
				while (n < 600)
					n += (unsigned int)snprintf(p + n, sizeof(p) - n, "\u00e9");
				snprintf(p + n, sizeof(p) - n, "'%s}", m == 0 ? ",'via':'10.0.2.2'" :
					 m == 2 ? ",'mac':'02:00:00:00:01:02'" : m == 3 ? ",'port':'p0'" :
					 m == 4 ? ",'port':'p0','id':5" : m == 5 ? ",'table':7" : "");
				snprintf(e, sizeof(e), "%s with a long non-ASCII value (%u)", methods[m], k);
				CHECK(json_is_object(json_object_get(call(methods[m], p), "error")),
				      "%s is answered with an error: %.200s", e, last_text);
			}
		}
	}
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'limit':9223372036854775807}", "\"limit\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'after':5}", "\"after\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'after':'x'}", "\"after\"", "\"next\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'after':'10.0.0.1/8'}", "\"after\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'offset':5}", "unknown parameter \"offset\"");

	/* Everything in one page. */
	res = OK("route.list", NULL);
	routes = json_object_get(res, "routes");
	CHECK(json_is_array(routes), "routes array: %s", last_text);
	CHECK_EQ(json_array_size(routes), R.fib4->n_routes);
	HAS_INT(res, "total", R.fib4->n_routes);
	CHECK(json_is_null(json_object_get(res, "next")), "one page: %s", last_text);
	HAS_INT(res, "ipv4_routes", R.fib4->n_routes);
	HAS_INT(res, "ipv6_routes", 0);
	CHECK_EQ(json_object_size(res), 5);
	OK("route.list", "{'limit':100000}");
	res = OK("route.list", "{'limit':1}");
	CHECK_EQ(json_array_size(json_object_get(res, "routes")), 1);
	CHECK(json_is_string(json_object_get(res, "next")), "more: %s", last_text);

	/* 300 more routes, nested so the walk order matters. */
	before = snap();
	load = json_array();
	for (i = 0; i < 300; i++) {
		snprintf(buf, sizeof(buf), "100.%u.%u.0/24 via 10.0.2.2", 64 + i / 200, i % 200);
		json_array_append_new(load, json_string(buf));
	}
	json_array_append_new(load, json_string("100.64.0.0/16 via 10.0.1.2"));
	json_array_append_new(load, json_string("100.64.0.0/10 dev p1"));
	json_array_append_new(load, json_string("100.64.7.128/25 via 10.0.1.2"));
	json_array_append_new(load, json_string("100.64.7.0/25 via 10.0.2.2"));
	json_array_append_new(load, json_string("100.64.7.200/32 via 10.0.2.2"));
	n_added = (unsigned int)json_array_size(load);
	{
		json_t *req = json_pack("{s:s,s:i,s:s,s:{s:o}}", "jsonrpc", "2.0", "id", 1,
					"method", "route.load", "params", "routes", load);
		json_t *r = dpr_rpc_handle(&R, req);

		CHECK(json_integer_value(json_object_get(json_object_get(r, "result"), "loaded")) ==
		      n_added, "loaded");
		json_decref(r);
		json_decref(req);
	}
	CHECK_EQ(R.fib4->n_routes, before.routes + n_added);

	res = OK("route.list", "{'limit':100000}");
	json_array_foreach(json_object_get(res, "routes"), i, routes)
		seen_add(&all, json_string_value(json_object_get(routes, "prefix")));
	CHECK_EQ(all.n, R.fib4->n_routes);
	CHECK_EQ(all.dups, 0);

	/* Pages of 7, then 1, then 1000: every route exactly once. */
	pages = list_all(7, false, &s, NULL);
	CHECK_EQ(pages, (all.n + 6) / 7);
	CHECK_EQ(s.n, all.n);
	CHECK_EQ(s.dups, 0);
	s.n = s.dups = 0;
	list_all(1, false, &s, NULL);
	CHECK_EQ(s.n, all.n);
	CHECK_EQ(s.dups, 0);
	s.n = s.dups = 0;
	list_all(1000, false, &s, NULL);
	CHECK_EQ(s.n, all.n);
	CHECK_EQ(s.dups, 0);

	/* Cursor routes deleted between pages: nothing skipped or repeated. */
	for (unsigned int round = 0; round < 2; round++) {
		unsigned int k, limit = round == 0 ? 7 : 1;

		s.n = s.dups = 0;
		deleted = 0;
		list_all(limit, true, &s, &deleted);
		CHECK(deleted > 10, "deleted %u cursors", deleted);
		CHECK_EQ(s.dups, 0);
		for (k = 0; k < all.n; k++)
			if (!seen_has(&s, all.p[k]))
				break;
		CHECK(k == all.n, "route %s was skipped (page size %u)", k < all.n ? all.p[k] : "",
		      limit);
		CHECK_EQ(s.n, all.n);
		/* Put the deleted ones back for the next round. */
		load = json_array();
		for (k = 0; k < all.n; k++) {
			if (strncmp(all.p[k], "100.", 4) != 0)
				continue;
			snprintf(buf, sizeof(buf), "%.30s via 10.0.2.2", all.p[k]);
			json_array_append_new(load, json_string(buf));
		}
		{
			json_t *req = json_pack("{s:s,s:i,s:s,s:{s:o}}", "jsonrpc", "2.0", "id", 1,
						"method", "route.load", "params", "routes", load);

			json_decref(dpr_rpc_handle(&R, req));
			json_decref(req);
		}
		CHECK_EQ(R.fib4->n_routes, all.n);
	}

	/* After the last route: an empty page. */
	snprintf(buf, sizeof(buf), "{'after':'%s'}", all.p[all.n - 1]);
	res = OK("route.list", buf);
	CHECK_EQ(json_array_size(json_object_get(res, "routes")), 0);
	CHECK(json_is_null(json_object_get(res, "next")), "%s", last_text);

	/* Clean up, and every reference taken is gone. */
	for (i = 0; i < all.n; i++) {
		char del[64];

		if (strncmp(all.p[i], "100.", 4) != 0)
			continue;
		snprintf(del, sizeof(del), "{'prefix':'%s'}", all.p[i]);
		OK("route.del", del);
	}
	CHECK_EQ(R.fib4->n_routes, before.routes);
	CHECK_EQ(dpr_nh_count(R.nh), before.nh);
	CHECK_EQ(refs_total(), before.refs);
	free(all.p);
	free(s.p);
}

static json_t *
load(const char *routes_json)
{
	char *p = malloc(strlen(routes_json) + 32);
	json_t *r;

	sprintf(p, "{'routes':%s}", routes_json);
	r = call("route.load", p);
	free(p);
	return r;
}

#define LOAD_ERR(code, routes, ...) do { \
		struct snapshot lb_ = snap(); \
		long r2_ = neigh_refs("10.0.2.2"), r1_ = neigh_refs("10.0.1.2"); \
		const char *m_ = check_error(load(routes), code, "7", __LINE__); \
		test_checks++; \
		if (!has_all(m_, (const char *const[]){ "route.load", __VA_ARGS__, NULL }, __LINE__)) \
			test_failures++; \
		SAME(snap(), lb_); \
		CHECK_EQ(neigh_refs("10.0.2.2"), r2_); \
		CHECK_EQ(neigh_refs("10.0.1.2"), r1_); \
	} while (0)

static void
test_route_load(void)
{
	struct snapshot before;
	json_t *res;

	ERR(DPR_RPC_INVALID_PARAMS, "route.load", NULL, "\"routes\"", "array");
	ERR(DPR_RPC_INVALID_PARAMS, "route.load", "{}", "\"routes\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.load", "{'routes':'10.0.0.0/8 via 10.0.2.2'}",
	    "\"routes\" must be an array");
	ERR(DPR_RPC_INVALID_PARAMS, "route.load", "{'routes':{}}", "\"routes\" must be an array");
	ERR(DPR_RPC_INVALID_PARAMS, "route.load", "{'routes':[],'replace':true}",
	    "unknown parameter \"replace\"");

	/* A bad entry anywhere: nothing applied, no reference left behind. */
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2', 5]", "routes[1]",
		 "string or an object");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2', null]", "routes[1]");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2', ['x']]", "routes[1]");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS,
		 "['203.0.113.0/24 via 10.0.2.2', '203.0.114.0/24 via 10.0.1.2', '203.0.115.0/24 by 10.0.2.2']",
		 "routes[2]", "203.0.115.0/24 by 10.0.2.2", "PREFIX via GATEWAY");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2', '203.0.114.0/24']",
		 "routes[1]", "203.0.114.0/24");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2 via 10.0.2.2']",
		 "routes[0]", "nexthops[1]", "already");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2 dev p1 extra']",
		 "routes[0]");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2', '']", "routes[1]");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS,
		 "['203.0.113.0/24 via 10.0.2.2', '203.0.114.9/24 via 10.0.2.2']", "routes[1]",
		 "203.0.114.9/24", "203.0.114.0/24");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS,
		 "['203.0.113.0/24 via 10.0.2.2', '203.0.114.0/24 via 192.168.0.1']", "routes[1]",
		 "192.168.0.1", "not on a connected subnet");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS,
		 "['203.0.113.0/24 via 10.0.2.2', '203.0.114.0/24 via 10.0.2.9 dev p0']",
		 "routes[1]", "10.0.2.9", "p0");
	LOAD_ERR(DPR_RPC_NOT_FOUND, "['203.0.113.0/24 via 10.0.2.2', '203.0.114.0/24 dev p7']",
		 "routes[1]", "\"p7\"");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS,
		 "['203.0.113.0/24 via 10.0.2.2', {'prefix':'203.0.114.0/24','via':'10.0.2.2','metric':1}]",
		 "routes[1]", "unknown parameter \"metric\"");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via 10.0.2.2', {'via':'10.0.2.2'}]",
		 "routes[1]", "missing parameter \"prefix\"");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS,
		 "['203.0.113.0/24 via 10.0.2.2', {'prefix':'203.0.114.0/24','via':7}]",
		 "routes[1]", "\"via\" must be a string");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "[{'prefix':'203.0.114.0/24'}]", "routes[0]", "\"via\"");
	LOAD_ERR(DPR_RPC_REFUSED, "['203.0.113.0/24 via 10.0.2.2', '10.0.1.0/24 via 10.0.2.2']",
		 "routes[1]", "connected subnet");
	LOAD_ERR(DPR_RPC_REFUSED, "['203.0.113.0/24 via 10.0.2.2', '10.0.2.1/32 dev p1']",
		 "routes[1]", "router's address");
	LOAD_ERR(DPR_RPC_NOT_FOUND, "['203.0.113.0/24 via 10.0.2.2', 'del 203.0.120.0/24']",
		 "routes[1]", "del 203.0.120.0/24", "no such route");
	LOAD_ERR(DPR_RPC_REFUSED, "['203.0.113.0/24 via 10.0.2.2', 'del 10.0.1.0/24']",
		 "routes[1]", "10.0.1.0/24", "connected subnet");
	LOAD_ERR(DPR_RPC_REFUSED, "['del 10.0.1.2/32']", "routes[0]", "neigh.del");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['del 203.0.113.1/24']", "routes[0]", "203.0.113.0/24");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['del']", "routes[0]");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['del 198.51.100.0/24 now']", "routes[0]");
	/* A delete before the bad entry is not applied either. */
	OK("route.add", "{'prefix':'203.0.119.0/24','via':'10.0.2.2'}");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['del 203.0.119.0/24', 'oops']", "routes[1]", "oops");
	CHECK(strcmp(route_prefix("203.0.119.1"), "203.0.119.0/24") == 0, "still there");
	OK("route.del", "{'prefix':'203.0.119.0/24'}");
	/* The config's static route is source config's: the api may not
	 * delete it, nor take it over by route.load's "del". */
	LOAD_ERR(DPR_RPC_NOT_FOUND, "['del 198.51.100.0/24']", "routes[0]", "from the api");
	ERR(DPR_RPC_NOT_FOUND, "route.del", "{'prefix':'198.51.100.0/24'}", "source config");
	CHECK(strcmp(route_prefix("198.51.100.1"), "198.51.100.0/24") == 0, "config route kept");
	/* Too long a line, and many bad entries: the first one is named. */
	{
		char big[1200];

		memset(big, 'x', sizeof(big));
		sprintf(big + 1100, "']");
		memcpy(big, "['", 2);
		LOAD_ERR(DPR_RPC_INVALID_PARAMS, big, "routes[0]", "too long");
	}
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['a', 'b', 'c']", "routes[0]");
	/* iproute2's "via inet6 GW" (as ip route show prints an IPv4 route
	 * over an IPv6 next hop): the family word must be the gateway's. */
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via inet6 10.0.2.2']", "routes[0]",
		 "via inet6 10.0.2.2", "not an inet6 address");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via inet 2001:db8:1::2']", "routes[0]",
		 "not an inet address");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.113.0/24 via inet6']", "routes[0]");
	before = snap();
	res = json_object_get(load("['203.0.113.0/24 via inet6 fe80::2 dev p0',"
				   " '203.0.114.0/24 via inet 10.0.2.2']"), "result");
	HAS_INT(res, "added", 2);
	CHECK(strcmp(route_field("203.0.113.1", "via"), "fe80::2") == 0,
	      "via inet6: an IPv4 route over an IPv6 gateway (%s)", route_field("203.0.113.1", "via"));
	CHECK(strcmp(route_field("203.0.114.1", "via"), "10.0.2.2") == 0, "via inet");
	load("['del 203.0.113.0/24', 'del 203.0.114.0/24']");
	SAME(snap(), before);

	/* Good: strings and objects mixed, "del" entries, replace in place. */
	before = snap();
	res = load("[]");
	res = json_object_get(res, "result");
	HAS_INT(res, "loaded", 0);
	HAS_INT(res, "routes", before.routes);
	res = json_object_get(load("['203.0.113.0/24 via 10.0.2.2',"
				   " {'prefix':'203.0.114.0/24','port':'p0'},"
				   " '203.0.115.0/24 dev p1',"
				   " '203.0.116.0/24 via 10.0.1.2 dev p0',"
				   " {'prefix':'203.0.117.0/24','via':'10.0.2.2','port':'p1'},"
				   " '203.0.118.0/24\\tvia  10.0.2.44']"), "result");
	HAS_INT(res, "loaded", 6);
	HAS_INT(res, "routes", before.routes + 6);
	HAS_INT(res, "ipv4_routes", before.routes + 6);
	HAS_INT(res, "ipv6_routes", 0);
	HAS_INT(res, "added", 6);
	HAS_INT(res, "deleted", 0);
	CHECK(json_is_false(json_object_get(res, "checked_only")), "applied");
	CHECK_EQ(json_object_size(res), 7);
	CHECK(strcmp(route_field("203.0.114.1", "type"), "connected") == 0, "dev p0");
	CHECK(strcmp(route_field("203.0.114.1", "port"), "p0") == 0, "dev p0");
	CHECK(strcmp(route_field("203.0.116.1", "via"), "10.0.1.2") == 0, "via dev");
	CHECK(strcmp(route_field("203.0.118.1", "via"), "10.0.2.44") == 0, "tabs and spaces");
	res = json_object_get(load("['del 203.0.113.0/24', '203.0.114.0/24 via 10.0.2.2',"
				   " 'del 203.0.115.0/24', 'del 203.0.116.0/24',"
				   " 'del 203.0.117.0/24', 'del 203.0.118.0/24']"), "result");
	HAS_INT(res, "loaded", 6);
	HAS_INT(res, "added", 1);
	HAS_INT(res, "deleted", 5);
	HAS_INT(res, "routes", before.routes + 1);
	CHECK(strcmp(route_field("203.0.114.1", "via"), "10.0.2.2") == 0, "replaced by load");
	CHECK(strcmp(route_prefix("203.0.113.1"), "") == 0, "deleted by load");
	CHECK_EQ(neigh_refs("10.0.2.44"), -1);
	/* "check": every entry taken as route.load would, nothing applied,
	 * no next hop left held. */
	{
		struct snapshot cb = snap();

		res = json_object_get(call("route.load", "{'check':true,'routes':['203.0.120.0/24 via 10.0.2.2',"
						     "'203.0.121.0/24 via 10.0.2.46']}"), "result");
		HAS_INT(res, "loaded", 2);
		HAS_INT(res, "added", 2);
		CHECK(json_is_true(json_object_get(res, "checked_only")), "check only");
		CHECK(strcmp(route_prefix("203.0.120.1"), "") == 0, "a check applies nothing");
		CHECK_EQ(neigh_refs("10.0.2.46"), -1);
		SAME(snap(), cb);
		CHECK(strstr(check_error(call("route.load", "{'check':true,'routes':['del 203.0.120.0/24']}"),
					 DPR_RPC_NOT_FOUND, "7", __LINE__) ?: "", "no such route") != NULL,
		      "a check finds what a load would refuse");
		CHECK(strstr(check_error(call("route.load", "{'check':1,'routes':[]}"),
					 DPR_RPC_INVALID_PARAMS, "7", __LINE__) ?: "",
			     "\"check\" must be true or false") != NULL, "check is a boolean");
	}
	/* The same prefix twice in one load: the last one wins. */
	res = json_object_get(load("['203.0.113.0/24 via 10.0.2.2', '203.0.113.0/24 via 10.0.2.45']"),
			      "result");
	HAS_INT(res, "loaded", 2);
	CHECK(strcmp(route_field("203.0.113.1", "via"), "10.0.2.45") == 0, "last wins");
	CHECK_EQ(neigh_refs("10.0.2.45"), 1);
	load("['del 203.0.113.0/24', 'del 203.0.114.0/24']");
	SAME(snap(), before);

	/* Deleting one route twice in a load: the second cannot be applied.
	 * All or nothing: the first must not have been applied either. */
	OK("route.add", "{'prefix':'203.0.113.0/24','via':'10.0.2.2'}");
	{
		json_t *r = load("['del 203.0.113.0/24', 'del 203.0.113.0/24']");

		check_error(r, DPR_RPC_INVALID_PARAMS, "7", __LINE__);
		CHECK(strstr(last_text, "deleted twice") != NULL, "says why: %s", last_text);
		CHECK(strcmp(route_prefix("203.0.113.1"), "203.0.113.0/24") == 0,
		      "route.load failed with %s yet applied its first entry", last_text);
	}
	call("route.del", "{'prefix':'203.0.113.0/24'}");
	SAME(snap(), before);
}

/* The FIB fills up (routes, or with /32s in as many /24 blocks its tbl8
 * groups): -32003, the limit to raise is named, references balance. */
static void
route_load_full(bool groups)
{
	struct snapshot before = snap();
	uint32_t used = dpr_fib4_tbl8_used(R.fib4);
	json_t *routes = json_array(), *req, *r;
	const char *msg;
	unsigned int i, n = groups ? R.fib4->conf.tbl8_groups + 10 : R.fib4->conf.max_routes + 100;
	char buf[64];

	for (i = 0; i < n; i++) {
		if (groups)
			snprintf(buf, sizeof(buf), "30.%u.%u.1/32 via 10.0.2.%u", i / 256, i % 256,
				 100 + i % 50);
		else
			snprintf(buf, sizeof(buf), "%u.%u.%u.0/24 via 10.0.2.%u", 20 + i / 65536,
				 (i / 256) % 256, i % 256, 100 + i % 50);
		json_array_append_new(routes, json_string(buf));
	}
	req = json_pack("{s:s,s:i,s:s,s:{s:O}}", "jsonrpc", "2.0", "id", 9, "method", "route.load",
			"params", "routes", routes);
	r = dpr_rpc_handle(&R, req);
	msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	CHECK(json_integer_value(json_object_get(json_object_get(r, "error"), "code")) ==
	      DPR_RPC_NO_SPACE, "FIB full: %s", msg ? msg : "no error");
	CHECK(msg != NULL && strstr(msg, "route.load") != NULL &&
	      strstr(msg, groups ? "raise fib.ipv4_tbl8_groups" : "raise fib.ipv4_max_routes") != NULL,
	      "%s", msg);
	json_decref(r);
	json_decref(req);
	/* Remove what went in. */
	for (i = 0; i < n; i++) {
		struct dpr_prefix pf;
		char pfx[32];

		sscanf(json_string_value(json_array_get(routes, i)), "%31s", pfx);
		dpr_prefix_parse(pfx, false, &pf, NULL, 0);
		if (dpr_fib4_get(R.fib4, pf.addr.ip4, pf.len, &(uint32_t){ 0 }) == 0) {
			snprintf(buf, sizeof(buf), "{'prefix':'%s'}", pfx);
			OK("route.del", buf);
		}
	}
	json_decref(routes);
	SAME(snap(), before);
	CHECK_EQ(dpr_fib4_tbl8_used(R.fib4), used);
}

static void
test_route_load_full(void)
{
	route_load_full(false);
	route_load_full(true);
}

/* 1000 routes added, replaced and deleted through the API: no next hop leaks. */
static void
test_route_churn(void)
{
	struct snapshot before = snap();
	long refs2 = neigh_refs("10.0.2.2");
	unsigned int i;
	char p[160];

	for (i = 0; i < 1000; i++) {
		if (i % 3 == 0)
			snprintf(p, sizeof(p), "{'prefix':'100.%u.%u.0/24','port':'p%u'}", i / 256,
				 i % 256, i % 2);
		else
			snprintf(p, sizeof(p), "{'prefix':'100.%u.%u.0/24','via':'10.0.2.%u'}", i / 256,
				 i % 256, 2 + i % 60);
		OK("route.add", p);
	}
	CHECK_EQ(R.fib4->n_routes, before.routes + 1000);
	CHECK(dpr_nh_count(R.nh) >= before.nh + 40, "gateways became next hops");
	for (i = 0; i < 1000; i += 2) {
		snprintf(p, sizeof(p), "{'prefix':'100.%u.%u.0/24','via':'10.0.1.%u'}", i / 256,
			 i % 256, 3 + i % 100);
		OK("route.replace", p);
		/* A failed add in between must not hold a reference. */
		snprintf(p, sizeof(p), "{'prefix':'100.%u.%u.0/24','via':'10.0.2.%u'}", i / 256,
			 i % 256, 150 + i % 50);
		ERR(DPR_RPC_EXISTS, "route.add", p, "exists");
	}
	for (i = 0; i < 1000; i++) {
		snprintf(p, sizeof(p), "{'prefix':'100.%u.%u.0/24'}", i / 256, i % 256);
		OK("route.del", p);
	}
	SAME(snap(), before);
	CHECK_EQ(neigh_refs("10.0.2.2"), refs2);
	CHECK_EQ(neigh_refs("10.0.2.150"), -1);
	CHECK_EQ(neigh_refs("10.0.1.3"), -1);
}

/* --- addresses ------------------------------------------------------------ */

/*
 * Issue 50, case 3: an address over the operator's route takes the
 * prefix; removing it gives the route back (route.get, route.list), in
 * either family, and a daemon-free router's references all come back.
 */
static void
addr_shadows(const char *route, const char *gw, const char *port, const char *addr,
	     const char *probe)
{
	struct snapshot before = snap();
	char p[256], pfx[64];
	json_t *res;

	snprintf(pfx, sizeof(pfx), "%s", route);
	snprintf(p, sizeof(p), "{'prefix':'%s','via':'%s'}", route, gw);
	OK("route.add", p);
	CHECK(strcmp(route_field(probe, "via"), gw) == 0, "%s via %s", route, gw);
	snprintf(p, sizeof(p), "{'port':'%s','address':'%s'}", port, addr);
	OK("addr.add", p);
	CHECK(strcmp(route_field(probe, "type"), "connected") == 0, "%s: the address's subnet wins",
	      probe);
	CHECK(strcmp(route_field(probe, "source"), "router") == 0, "the router's");
	snprintf(p, sizeof(p), "{'address':'%s'}", probe);
	res = json_object_get(call("route.get", p), "result");
	CHECK(json_array_size(json_object_get(res, "waiting")) == 1 &&
	      strcmp(json_string_value(json_array_get(json_object_get(res, "waiting"), 0)), "api") == 0,
	      "the api's route waits under it: %s", last_text);
	/* An operator may not add on it meanwhile. */
	snprintf(p, sizeof(p), "{'prefix':'%s','via':'%s'}", route, gw);
	ERR(DPR_RPC_REFUSED, "route.replace", p, "connected subnet of address", addr);
	snprintf(p, sizeof(p), "{'port':'%s','address':'%s'}", port, addr);
	OK("addr.del", p);
	CHECK(strcmp(route_field(probe, "via"), gw) == 0, "%s via %s again after addr.del (got %s)",
	      route, gw, last_text);
	CHECK(strcmp(route_field(probe, "source"), "api") == 0, "the api's again");
	call("route.list", "{'source':'api'}");
	CHECK(strstr(last_text, pfx) != NULL, "route.list shows %s: %s", pfx, last_text);
	snprintf(p, sizeof(p), "{'prefix':'%s'}", route);
	OK("route.del", p);
	SAME(snap(), before);

	/* The api's route waiting under the address is the api's to delete:
	 * the address's stays, and the api's does not come back after it. */
	snprintf(p, sizeof(p), "{'prefix':'%s','via':'%s'}", route, gw);
	OK("route.add", p);
	snprintf(p, sizeof(p), "{'port':'%s','address':'%s'}", port, addr);
	OK("addr.add", p);
	snprintf(p, sizeof(p), "{'prefix':'%s'}", route);
	OK("route.del", p);
	CHECK(strcmp(route_field(probe, "type"), "connected") == 0,
	      "%s: the address's subnet stays after route.del: %s", probe, last_text);
	CHECK(json_object_get(json_object_get(last, "result"), "waiting") == NULL,
	      "nothing waits under it: %s", last_text);
	snprintf(p, sizeof(p), "{'port':'%s','address':'%s'}", port, addr);
	OK("addr.del", p);
	CHECK(strcmp(route_field(probe, "prefix"), "") == 0,
	      "no route to %s once the address went: %s", probe, last_text);
	SAME(snap(), before);
	/* route.load's "del PREFIX" likewise. */
	snprintf(p, sizeof(p), "{'prefix':'%s','via':'%s'}", route, gw);
	OK("route.add", p);
	snprintf(p, sizeof(p), "{'port':'%s','address':'%s'}", port, addr);
	OK("addr.add", p);
	snprintf(p, sizeof(p), "{'routes':['del %s']}", route);
	OK("route.load", p);
	snprintf(p, sizeof(p), "{'port':'%s','address':'%s'}", port, addr);
	OK("addr.del", p);
	CHECK(strcmp(route_field(probe, "prefix"), "") == 0,
	      "no route to %s once the address went (route.load): %s", probe, last_text);
	SAME(snap(), before);
}

/*
 * Two addresses of a port on nested subnets of different lengths imply one
 * broadcast (IPv4) or subnet-router anycast (IPv6) address together:
 * deleting one must leave it to the other (@p wide stays, @p narrow goes,
 * @p shared is the address both imply, @p type its route's type).
 */
static void
addr_nested(const char *wide, const char *narrow, const char *shared, const char *type)
{
	struct snapshot before = snap();
	char p[128];

	snprintf(p, sizeof(p), "{'port':'p0','address':'%s'}", wide);
	OK("addr.add", p);
	snprintf(p, sizeof(p), "{'port':'p0','address':'%s'}", narrow);
	OK("addr.add", p);
	CHECK(strcmp(route_field(shared, "type"), type) == 0, "%s: %s", shared, last_text);
	OK("addr.del", p);
	CHECK(strcmp(route_field(shared, "type"), type) == 0,
	      "%s is still %s's after %s went: %s", shared, wide, narrow, last_text);
	snprintf(p, sizeof(p), "{'port':'p0','address':'%s'}", wide);
	OK("addr.del", p);
	SAME(snap(), before);
}

/*
 * addr.add that the FIB cannot take whole (no tbl8 group left for the
 * address's /32 after its /24 went in) fails and leaves nothing behind:
 * no route to a subnet the router does not have.
 */
/* Take every tbl8 group left with /32s of 30/8 (one group each): @return
 * how many, for tbl8_give_back(). */
static unsigned int
tbl8_take_all(void)
{
	unsigned int i, n = R.fib4->conf.tbl8_groups - dpr_fib4_tbl8_used(R.fib4);
	char p[128];

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "{'prefix':'30.%u.%u.1/32','via':'10.0.2.2'}", i / 256,
			 i % 256);
		OK("route.add", p);
	}
	CHECK_EQ(dpr_fib4_tbl8_used(R.fib4), R.fib4->conf.tbl8_groups);
	return n;
}

static void
tbl8_give_back(unsigned int n)
{
	unsigned int i;
	char p[128];

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "{'prefix':'30.%u.%u.1/32'}", i / 256, i % 256);
		OK("route.del", p);
	}
}

static void
addr_fib_full(void)
{
	struct snapshot before = snap();
	unsigned int n = tbl8_take_all();

	ERR(DPR_RPC_NO_SPACE, "addr.add", "{'port':'p0','address':'10.0.3.1/24'}", "tbl8");
	CHECK(strcmp(route_prefix("10.0.3.77"), "") == 0,
	      "no route to 10.0.3.0/24 after the failed addr.add: %s", last_text);
	OK("addr.list", "{'port':'p0'}");
	CHECK(strstr(last_text, "10.0.3.1") == NULL, "no address either: %s", last_text);
	tbl8_give_back(n);
	SAME(snap(), before);
}

/*
 * route.load on a FIB out of tbl8 groups: the /32 is refused, the /16 after
 * it in the request fits and goes in (route sources apply short prefixes
 * first), and the error counts it rather than stopping at the /32's index.
 */
/*
 * neigh.add of a gateway's address that the FIB has no room to route to:
 * refused, and the gateway stays as it was (unresolved here), not static
 * with the MAC given, forwarded to and saved by config.get as if the
 * request had succeeded.
 */
static void
neigh_add_fib_full(void)
{
	struct snapshot before = snap();
	unsigned int n;

	OK("addr.add", "{'port':'p1','address':'10.50.0.1/16'}");
	OK("route.add", "{'prefix':'10.60.0.0/16','via':'10.50.7.7'}");
	n = tbl8_take_all();
	ERR(DPR_RPC_NO_SPACE, "neigh.add", "{'address':'10.50.7.7','mac':'02:00:00:00:07:07'}",
	    "no room for its host route");
	OK("route.get", "{'address':'10.60.1.1'}");
	CHECK(strstr(last_text, "\"resolved\":false") != NULL,
	      "the gateway stays unresolved after the failed neigh.add: %s", last_text);
	OK("neigh.list", NULL);
	CHECK(strstr(last_text, "02:00:00:00:07:07") == NULL,
	      "no static entry with that MAC after the failed neigh.add: %s", last_text);
	OK("config.get", NULL);
	CHECK(strstr(last_text, "02:00:00:00:07:07") == NULL,
	      "config.get saves no such neighbour: %.300s", last_text);
	tbl8_give_back(n);
	OK("route.del", "{'prefix':'10.60.0.0/16'}");
	OK("addr.del", "{'port':'p1','address':'10.50.0.1/16'}");
	SAME(snap(), before);
}

static void
route_load_full_count(void)
{
	struct snapshot before = snap();
	unsigned int n = tbl8_take_all();

	ERR(DPR_RPC_NO_SPACE, "route.load",
	    "{'routes':['31.0.0.1/32 via 10.0.2.2','31.1.0.0/16 via 10.0.2.3']}",
	    "after 1 of 2 routes", "tbl8");
	CHECK(strcmp(route_prefix("31.1.2.3"), "31.1.0.0/16") == 0,
	      "the /16 that fit is in: %s", last_text);
	CHECK(strcmp(route_prefix("31.0.0.1"), "") == 0, "the refused /32 is not: %s", last_text);
	OK("route.del", "{'prefix':'31.1.0.0/16'}");
	tbl8_give_back(n);
	SAME(snap(), before);
}

static void
test_addr(void)
{
	struct snapshot before = snap();
	json_t *res, *v;
	unsigned int i;
	size_t k;
	char p[128];

	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", NULL, "missing parameter \"port\"");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'address':'10.0.3.1/24'}",
	    "missing parameter \"port\"");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0'}", "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':0,'address':'10.0.3.1/24'}",
	    "\"port\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':['10.0.3.1/24']}",
	    "\"address\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.3.1/24','mtu':9000}",
	    "unknown parameter \"mtu\"");
	ERR(DPR_RPC_NOT_FOUND, "addr.add", "{'port':'p5','address':'10.0.3.1/24'}", "\"p5\"",
	    "p0, p1");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.3.1'}", "10.0.3.1",
	    "prefix length");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'banana/24'}", "banana");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.3.1/33'}",
	    "10.0.3.1/33");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.3.0/24'}",
	    "10.0.3.0/24", "network or broadcast");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.3.255/24'}",
	    "10.0.3.255/24");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'224.0.0.1/24'}",
	    "224.0.0.1/24", "unicast");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.3.1/0'}", "/0");
	/* Overlaps another port's subnet, either way round. */
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.2.9/24'}",
	    "10.0.2.9/24", "overlaps 10.0.2.1/24 on port p1");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.0.1/16'}",
	    "10.0.0.1/16", "overlaps", "p1");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'10.0.1.201/30'}",
	    "10.0.1.201/30", "overlaps", "p0");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'10.0.1.1/24'}",
	    "overlaps");
	/* Already there. */
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.1.1/24'}",
	    "10.0.1.1/24", "already");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p0','address':'10.0.1.1/25'}",
	    "10.0.1.1/25", "already");
	SAME(snap(), before);

	/* A new subnet: connected, local and broadcast routes come with it. */
	res = OK("addr.add", "{'port':'p0','address':'10.0.3.1/24'}");
	HAS_STR(res, "port", "p0");
	HAS_STR(res, "address", "10.0.3.1/24");
	CHECK_EQ(json_object_size(res), 2);
	CHECK_EQ(R.fib4->n_routes, before.routes + 3);
	CHECK(strcmp(route_field("10.0.3.1", "type"), "local") == 0, "own address");
	CHECK(strcmp(route_field("10.0.3.255", "type"), "broadcast") == 0, "broadcast");
	CHECK(strcmp(route_field("10.0.3.77", "type"), "connected") == 0, "subnet");
	CHECK(strcmp(route_field("10.0.3.77", "port"), "p0") == 0, "subnet port");
	res = OK("addr.list", NULL);
	CHECK_EQ(json_array_size(res), 3);
	res = OK("addr.list", "{'port':'p0'}");
	CHECK_EQ(json_array_size(res), 2);
	json_array_foreach(res, k, v)
		HAS_STR(v, "port", "p0");
	HAS_STR(json_array_get(res, 1), "address", "10.0.3.1/24");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'10.0.3.2/24'}",
	    "overlaps 10.0.3.1/24 on port p0");
	/* Now a gateway there is accepted, and the subnet refused as a route. */
	OK("route.add", "{'prefix':'172.30.0.0/16','via':'10.0.3.9'}");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.3.0/24','port':'p1'}",
	    "connected subnet of address 10.0.3.1/24 on port p0");
	OK("route.del", "{'prefix':'172.30.0.0/16'}");
	/* A second address on the same subnet of the same port. */
	OK("addr.add", "{'port':'p0','address':'10.0.3.2/24'}");
	CHECK_EQ(R.fib4->n_routes, before.routes + 4);

	/* addr.del: errors, then the routes go, but a shared subnet stays. */
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", NULL, "missing parameter \"port\"");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':'p0'}", "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':['p0'],'address':'10.0.3.1/24'}",
	    "\"port\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':'p0','address':false}",
	    "\"address\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':'p0','address':'10.0.3.1/24','force':1}",
	    "unknown parameter \"force\"");
	ERR(DPR_RPC_NOT_FOUND, "addr.del", "{'port':'lan','address':'10.0.3.1/24'}", "\"lan\"");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':'p0','address':'10.0.3.1'}", "10.0.3.1",
	    "with its length");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':'p0','address':'x/24'}", "x/24");
	ERR(DPR_RPC_NOT_FOUND, "addr.del", "{'port':'p0','address':'10.0.3.3/24'}", "10.0.3.3/24",
	    "no such address");
	ERR(DPR_RPC_NOT_FOUND, "addr.del", "{'port':'p0','address':'10.0.3.1/25'}", "10.0.3.1/25",
	    "no such address");
	ERR(DPR_RPC_NOT_FOUND, "addr.del", "{'port':'p1','address':'10.0.3.1/24'}", "p1",
	    "no such address");
	CHECK_EQ(R.fib4->n_routes, before.routes + 4);
	CHECK(strcmp(route_field("10.0.3.2", "type"), "local") == 0, "10.0.3.2 is local");
	res = OK("addr.del", "{'port':'p0','address':'10.0.3.2/24'}");
	HAS_STR(res, "port", "p0");
	HAS_STR(res, "address", "10.0.3.2/24");
	CHECK_EQ(R.fib4->n_routes, before.routes + 3);
	CHECK(strcmp(route_field("10.0.3.77", "type"), "connected") == 0,
	      "the subnet stays with 10.0.3.1/24");
	CHECK(strcmp(route_field("10.0.3.2", "type"), "connected") == 0, "10.0.3.2 not local");
	CHECK(strcmp(route_field("10.0.3.255", "type"), "broadcast") == 0,
	      "10.0.3.255 is still the broadcast address of 10.0.3.1/24: %s", last_text);
	OK("addr.del", "{'port':'p0','address':'10.0.3.1/24'}");
	CHECK(strcmp(route_prefix("10.0.3.1"), "") == 0, "no route left to 10.0.3.1");
	CHECK(strcmp(route_prefix("10.0.3.77"), "") == 0, "no route left to 10.0.3.0/24");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'172.30.0.0/16','via':'10.0.3.9'}",
	    "not on a connected subnet");
	SAME(snap(), before);

	/* A /32 and a /31 address. */
	OK("addr.add", "{'port':'p1','address':'192.0.2.1/32'}");
	CHECK_EQ(R.fib4->n_routes, before.routes + 1);
	OK("addr.add", "{'port':'p1','address':'192.0.2.10/31'}");
	CHECK_EQ(R.fib4->n_routes, before.routes + 3);
	CHECK(strcmp(route_field("192.0.2.11", "type"), "connected") == 0, "/31 peer");
	OK("addr.del", "{'port':'p1','address':'192.0.2.1/32'}");
	OK("addr.del", "{'port':'p1','address':'192.0.2.10/31'}");
	SAME(snap(), before);

	/* At most 16 addresses a port: -32003. */
	for (i = 0; i < 15; i++) {
		snprintf(p, sizeof(p), "{'port':'p1','address':'192.0.2.%u/32'}", 100 + i);
		OK("addr.add", p);
	}
	ERR(DPR_RPC_NO_SPACE, "addr.add", "{'port':'p1','address':'192.0.2.200/32'}", "p1", "16");
	for (i = 0; i < 15; i++) {
		snprintf(p, sizeof(p), "{'port':'p1','address':'192.0.2.%u/32'}", 100 + i);
		OK("addr.del", p);
	}
	SAME(snap(), before);

	/* addr.list */
	ERR(DPR_RPC_INVALID_PARAMS, "addr.list", "{'port':1}", "\"port\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.list", "{'name':'p0'}", "unknown parameter \"name\"");
	ERR(DPR_RPC_NOT_FOUND, "addr.list", "{'port':'p3'}", "\"p3\"");
	res = OK("addr.list", NULL);
	CHECK_EQ(json_array_size(res), 2);
	HAS_STR(json_array_get(res, 0), "port", "p0");
	HAS_STR(json_array_get(res, 0), "address", "10.0.1.1/24");
	HAS_STR(json_array_get(res, 1), "port", "p1");
	HAS_STR(json_array_get(res, 1), "address", "10.0.2.1/24");
}

/* Prefix @p prefix among config.get's routes: its JSON, or NULL. */
static json_t *
conf_route(json_t *res, const char *prefix)
{
	json_t *v;
	size_t k;

	json_array_foreach(json_object_get(res, "routes"), k, v)
		if (strcmp(json_string_value(json_object_get(v, "prefix")), prefix) == 0)
			return v;
	return NULL;
}

/*
 * Addresses deleted and added after routes and static neighbours were
 * given leave gateways on no connected subnet, or make them the router's
 * own or a subnet's network address: the router keeps the routes (they
 * wait for their subnet), but config.get leaves those gateways out, or
 * the saved file would not load at all (dpr --check, the next start).
 */
static void
config_get_stranded(void)
{
	struct snapshot before = snap();
	json_t *res, *v;
	size_t k;

	OK("addr.add", "{'port':'p1','address':'10.0.3.1/24'}");
	OK("route.add", "{'prefix':'172.30.0.0/16','via':'10.0.3.9'}");
	OK("route.add", "{'prefix':'172.29.0.0/16','via':'10.0.2.5'}");
	OK("route.add", "{'prefix':'172.28.0.0/16','nexthops':[{'via':'10.0.3.9'},"
	   "{'via':'10.0.2.3','weight':2}]}");
	OK("neigh.add", "{'address':'10.0.2.128','mac':'02:00:00:00:02:80'}");
	OK("addr.del", "{'port':'p1','address':'10.0.3.1/24'}");
	OK("addr.add", "{'port':'p1','address':'10.0.2.5/24'}");
	OK("addr.add", "{'port':'p1','address':'10.0.2.130/25'}");
	/* The router still holds them. */
	CHECK(strcmp(route_prefix("172.30.0.1"), "172.30.0.0/16") == 0, "172.30.0.0/16 kept");
	CHECK(strcmp(route_prefix("172.29.0.1"), "172.29.0.0/16") == 0, "172.29.0.0/16 kept");

	res = OK("config.get", NULL);
	check_config_file(res);
	CHECK(conf_route(res, "172.30.0.0/16") == NULL,
	      "config.get leaves out 172.30.0.0/16 via 10.0.3.9, on no subnet now: %s", last_text);
	CHECK(conf_route(res, "172.29.0.0/16") == NULL,
	      "config.get leaves out 172.29.0.0/16 via 10.0.2.5, the router's own now: %s",
	      last_text);
	v = json_object_get(conf_route(res, "172.28.0.0/16"), "nexthops");
	CHECK(json_array_size(v) == 1 &&
	      strcmp(json_string_value(json_object_get(json_array_get(v, 0), "via")) ?: "",
		     "10.0.2.3") == 0 &&
	      json_integer_value(json_object_get(json_array_get(v, 0), "weight")) == 2,
	      "config.get keeps 172.28.0.0/16's member 10.0.2.3 (weight 2), not 10.0.3.9: %s",
	      last_text);
	CHECK(conf_route(res, "198.51.100.0/24") != NULL, "the config's route is kept: %s",
	      last_text);
	json_array_foreach(json_object_get(res, "neighbors"), k, v)
		CHECK(strcmp(json_string_value(json_object_get(v, "address")), "10.0.2.128") != 0,
		      "config.get leaves out neighbour 10.0.2.128, 10.0.2.130/25's network address now: %s",
		      last_text);

	OK("addr.del", "{'port':'p1','address':'10.0.2.130/25'}");
	OK("addr.del", "{'port':'p1','address':'10.0.2.5/24'}");
	OK("neigh.del", "{'address':'10.0.2.128'}");
	OK("route.del", "{'prefix':'172.28.0.0/16'}");
	OK("route.del", "{'prefix':'172.29.0.0/16'}");
	OK("route.del", "{'prefix':'172.30.0.0/16'}");
	SAME(snap(), before);
}

/* --- neighbours ----------------------------------------------------------- */

static void
test_neigh(void)
{
	struct snapshot before = snap();
	json_t *res, *v;
	size_t k;
	long refs;

	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", NULL, "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'mac':'02:00:00:00:02:02'}",
	    "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2'}",
	    "missing parameter \"mac\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':10,'mac':'02:00:00:00:02:02'}",
	    "\"address\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2','mac':2}",
	    "\"mac\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add",
	    "{'address':'10.0.2.2','mac':'02:00:00:00:02:02','port':{}}", "\"port\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add",
	    "{'address':'10.0.2.2','mac':'02:00:00:00:02:02','state':'reachable'}",
	    "unknown parameter \"state\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2','mac':'02:00:00:00:02:02'}",
	    "10.0.2", "not an IPv4 or IPv6 address");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'fe80::1','mac':'02:00:00:00:02:02'}",
	    "fe80::1", "link-local", "needs \"port\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2','mac':'zz:00:00:00:02:02'}",
	    "10.0.2.2", "zz:00:00:00:02:02", "unicast MAC");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2','mac':'02:00:00:00:02'}",
	    "02:00:00:00:02");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2','mac':'01:00:5e:00:00:01'}",
	    "01:00:5e:00:00:01", "unicast");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2','mac':'ff:ff:ff:ff:ff:ff'}",
	    "ff:ff:ff:ff:ff:ff");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.2','mac':'00:00:00:00:00:00'}",
	    "00:00:00:00:00:00");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'192.168.1.1','mac':'02:00:00:00:02:02'}",
	    "192.168.1.1", "not on a connected subnet");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add",
	    "{'address':'10.0.2.2','mac':'02:00:00:00:02:02','port':'p0'}", "10.0.2.2",
	    "not on a connected subnet of port p0");
	ERR(DPR_RPC_NOT_FOUND, "neigh.add",
	    "{'address':'10.0.2.2','mac':'02:00:00:00:02:02','port':'wan'}", "\"wan\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.1','mac':'02:00:00:00:02:02'}",
	    "10.0.2.1", "router's own address");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.255','mac':'02:00:00:00:02:02'}",
	    "10.0.2.255", "broadcast");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'10.0.2.0','mac':'02:00:00:00:02:02'}",
	    "10.0.2.0", "network");
	SAME(snap(), before);

	/* The gateway 10.0.2.2 gets its MAC: routes through it resolve. */
	refs = neigh_refs("10.0.2.2");
	CHECK(refs >= 1, "10.0.2.2 is a gateway");
	res = OK("neigh.add", "{'address':'10.0.2.2','mac':'02:00:00:00:02:02'}");
	HAS_STR(res, "address", "10.0.2.2");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "state", "reachable");
	HAS_STR(res, "mac", "02:00:00:00:02:02");
	CHECK(json_is_true(json_object_get(res, "static")), "%s", last_text);
	HAS_INT(res, "refs", refs + 1);
	HAS_STR(res, "vrf", "default");
	CHECK_EQ(json_object_size(res), 7);
	CHECK_EQ(R.fib4->n_routes, before.routes + 1);
	res = OK("route.get", "{'address':'198.51.100.1'}");
	CHECK(json_is_true(json_object_get(res, "resolved")), "%s", last_text);
	HAS_STR(OK("route.get", "{'address':'10.0.2.2'}"), "type", "neighbor");
	/* Again, with a new MAC and the port named: same references. */
	res = OK("neigh.add", "{'address':'10.0.2.2','mac':'02-00-00-00-02-03','port':'p1'}");
	HAS_STR(res, "mac", "02:00:00:00:02:03");
	HAS_INT(res, "refs", refs + 1);
	CHECK_EQ(R.fib4->n_routes, before.routes + 1);
	/* A new one: one next hop, one route. */
	res = OK("neigh.add", "{'address':'10.0.1.50','mac':'02:00:00:00:01:50'}");
	HAS_STR(res, "port", "p0");
	HAS_INT(res, "refs", 1);
	CHECK_EQ(dpr_nh_count(R.nh), before.nh + 1);
	/* Its host route belongs to neigh.* now. */
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'10.0.1.50/32','via':'10.0.1.2'}",
	    "10.0.1.50/32", "neigh.del");

	/* neigh.list */
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.list", "{'port':'p0'}", "unknown parameter \"port\"");
	res = OK("neigh.list", NULL);
	CHECK_EQ(json_array_size(res), 3);
	json_array_foreach(res, k, v) {
		CHECK(json_is_string(json_object_get(v, "address")) &&
		      json_is_string(json_object_get(v, "port")) &&
		      json_is_string(json_object_get(v, "state")) &&
		      json_is_boolean(json_object_get(v, "static")) &&
		      json_is_integer(json_object_get(v, "refs")), "neighbour shape: %s", last_text);
	}

	/* neigh.del */
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.del", NULL, "missing parameter \"address\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.del", "{'address':null}", "\"address\" must be a string");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.del", "{'address':'10.0.1.50','mac':'02:00:00:00:01:50'}",
	    "unknown parameter \"mac\"");
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'10.0.1.50','port':'p9'}", "\"p9\"");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.del", "{'address':'ten'}", "ten",
	    "not an IPv4 or IPv6 address");
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'10.0.1.99'}", "10.0.1.99",
	    "no such neighbour");
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'8.8.8.8'}", "8.8.8.8", "no such neighbour");
	/* The port named is the one it must be on: not another's entry. */
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'10.0.1.50','port':'p1'}", "10.0.1.50",
	    "no such neighbour on port p1");
	CHECK_EQ(neigh_refs("10.0.1.50"), 1);
	res = OK("neigh.del", "{'address':'10.0.1.50'}");
	HAS_STR(res, "deleted", "10.0.1.50");
	CHECK_EQ(json_object_size(res), 1);
	CHECK_EQ(neigh_refs("10.0.1.50"), -1);
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'10.0.1.50'}", "10.0.1.50");
	CHECK(strcmp(route_field("10.0.1.50", "type"), "connected") == 0, "host route gone");
	/* A gateway's MAC forgotten: routes stay, unresolved. */
	OK("neigh.del", "{'address':'10.0.2.2'}");
	CHECK(strcmp(route_field("198.51.100.1", "via"), "10.0.2.2") == 0, "gateway route kept");
	res = OK("route.get", "{'address':'198.51.100.1'}");
	CHECK(json_is_false(json_object_get(res, "resolved")), "%s", last_text);
	res = OK("neigh.list", NULL);
	json_array_foreach(res, k, v)
		if (strcmp(json_string_value(json_object_get(v, "address")), "10.0.2.2") == 0) {
			HAS_STR(v, "state", "incomplete");
			HAS_INT(v, "refs", refs);
			CHECK(json_object_get(v, "mac") == NULL, "no MAC: %s", last_text);
		}
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'10.0.2.2'}", "10.0.2.2",
	    "no such neighbour");
	SAME(snap(), before);
}

/* --- ports, stats, config ---------------------------------------------------- */

static void
test_read_only(void)
{
	json_t *res, *v;
	size_t k, n, total;
	char after[128];

	/* port.list: no port probed, then one filled in as dpr would. */
	ERR(DPR_RPC_INVALID_PARAMS, "port.list", "{'name':'p0'}", "unknown parameter \"name\"");
	res = OK("port.list", NULL);
	CHECK(json_is_array(res) && json_array_size(res) == 0, "%s", last_text);
	if (rte_eth_dev_count_avail() > 0) {
		struct dpr_port *p = &R.ports[0];

		memset(p, 0, sizeof(*p));
		p->conf = &R.cfg->ports[0];
		p->port_id = 0;
		snprintf(p->driver, sizeof(p->driver), "net_null");
		rte_eth_macaddr_get(0, &p->mac);
		p->mtu = 1500;
		p->nb_rxq = p->nb_txq = 1;
		p->nb_rxd = p->nb_txd = 512;
		snprintf(p->profile.source, sizeof(p->profile.source), "built-in");
		R.n_ports = 1;
		res = OK("port.list", "{}");
		CHECK_EQ(json_array_size(res), 1);
		v = json_array_get(res, 0);
		HAS_STR(v, "name", "p0");
		HAS_STR(v, "device", "net_null0");
		HAS_STR(v, "driver", "net_null");
		HAS_INT(v, "port_id", 0);
		HAS_INT(v, "mtu", 1500);
		HAS_STR(v, "profile", "built-in");
		CHECK(json_is_string(json_object_get(v, "mac")) &&
		      json_is_boolean(json_object_get(v, "link_up")) &&
		      json_is_integer(json_object_get(v, "speed_mbps")) &&
		      json_is_integer(json_object_get(v, "rx_queues")) &&
		      json_is_integer(json_object_get(v, "rss_hf")), "port shape: %s", last_text);
		CHECK_EQ(json_array_size(json_object_get(v, "addresses")), 1);
		R.n_ports = 0;
	}

	ERR(DPR_RPC_INVALID_PARAMS, "stats.get", "{'port':'p0'}", "unknown parameter \"port\"");
	res = OK("stats.get", NULL);
	CHECK(json_is_array(json_object_get(res, "ports")) &&
	      json_is_array(json_object_get(res, "workers")) &&
	      json_is_object(json_object_get(res, "total")) &&
	      json_is_object(json_object_get(res, "control_exceptions")), "stats shape: %s",
	      last_text);
	HAS_INT(json_object_get(res, "fib"), "ipv4_routes", R.fib4->n_routes);
	HAS_INT(json_object_get(res, "fib"), "ipv4_max_routes", 4096);
	HAS_INT(res, "nexthops", dpr_nh_count(R.nh));
	HAS_INT(json_object_get(res, "total"), "rx", 0);

	ERR(DPR_RPC_INVALID_PARAMS, "config.get", "{'section':'ports'}",
	    "unknown parameter \"section\"");
	res = OK("config.get", NULL);
	check_config_file(res);
	CHECK_EQ(json_array_size(json_object_get(res, "ports")), 2);
	json_array_foreach(json_object_get(res, "ports"), k, v) {
		HAS_STR(v, "name", k == 0 ? "p0" : "p1");
		HAS_STR(v, "device", k == 0 ? "net_null0" : "net_null1");
		HAS_INT(v, "mtu", 1500);
		CHECK_EQ(json_array_size(json_object_get(v, "addresses")), 1);
	}
	HAS_STR(json_array_get(json_object_get(res, "ports"), 0), "mac", "02:00:00:00:01:01");
	CHECK_EQ(json_array_size(json_object_get(res, "neighbors")), 1);
	HAS_STR(json_array_get(json_object_get(res, "neighbors"), 0), "address", "10.0.1.2");
	HAS_STR(json_object_get(res, "control"), "socket", "/tmp/dpr-test-rpc.sock");
	HAS_INT(json_object_get(res, "fib"), "ipv4_max_routes", 4096);
	HAS_INT(json_object_get(res, "fib"), "learned_neighbors_max", DPR_LEARNED_NEIGHBORS_DEFAULT);
	CHECK(json_is_false(json_object_get(json_array_get(json_object_get(res, "ports"), 0),
					    "broadcast_echo")), "broadcast_echo reported, off by default");
	/* The routes of the config and the api, not the router's own. */
	total = n = json_array_size(json_object_get(res, "routes"));
	res = OK("route.list", "{'source':'config'}");
	n -= json_array_size(json_object_get(res, "routes"));
	res = OK("route.list", "{'source':'api'}");
	CHECK(n == json_array_size(json_object_get(res, "routes")) && n > 0,
	      "config.get's routes: those of sources config and api: %s", last_text);

	/* A static neighbour whose link is down (its MAC parked) is saved too. */
	dpr_neigh_link(R.neigh, 0, false);
	res = OK("config.get", NULL);
	CHECK_EQ(json_array_size(json_object_get(res, "neighbors")), 1);
	HAS_STR(json_array_get(json_object_get(res, "neighbors"), 0), "mac", "02:00:00:00:01:02");
	dpr_neigh_link(R.neigh, 0, true);

	/* Paged: each page a whole file with its share of the routes. */
	ERR(DPR_RPC_INVALID_PARAMS, "config.get", "{'limit':0}", "\"limit\" must be an integer");
	ERR(DPR_RPC_INVALID_PARAMS, "config.get", "{'after':'10.0.0.1/8'}", "\"after\" must be");
	res = OK("config.get", "{'limit':1}");
	check_config_file(res);
	CHECK_EQ(json_array_size(json_object_get(res, "routes")), 1);
	snprintf(after, sizeof(after), "{'limit':100,'after':'%s'}",
		 json_string_value(json_object_get(json_array_get(json_object_get(res, "routes"), 0),
						   "prefix")));
	res = OK("config.get", after);
	CHECK_EQ(json_array_size(json_object_get(res, "routes")), total - 1);
}

/* --- IPv6 and both families ----------------------------------------------- */

/*
 * The second router: both families. p0 and p1 each have an IPv4 and an IPv6
 * subnet and the same link-local address fe80::1 (one link each); static
 * neighbours 10.0.1.2 and 2001:db8:1::2 on p0 and the link-local fe80::2 on
 * p1; routes 198.51.100.0/24 via 10.0.2.2, 2001:db8:100::/48 via
 * 2001:db8:2::2 and 2001:db8:200::/48 via fe80::9 on p1. Router
 * advertisements on p0.
 * IPv4 routes: the 8 of config_text. IPv6 routes: 2001:db8:1::/64,
 * 2001:db8:2::/64, 2001:db8:1::1/128, 2001:db8:2::1/128, fe80::1/128 (once
 * for both ports), 2001:db8:1::2/128 (neighbour), the two /48s: 8. The
 * link-local neighbour has no host route.
 */
static const char config6_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\", \"fe80::1/64\"],"
	"  \"router_advertisements\": {\"max_interval\": 30,"
	"   \"prefixes\": [{\"prefix\": \"2001:db8:1::/64\", \"valid_lifetime\": 3600,"
	"                   \"preferred_lifetime\": 1800}]}},"
	" {\"name\": \"p1\", \"device\": \"net_null1\","
	"  \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\", \"fe80::1/64\"]}],"
	" \"neighbors\": [{\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"},"
	"  {\"address\": \"2001:db8:1::2\", \"mac\": \"02:00:00:00:01:03\"},"
	"  {\"address\": \"fe80::2\", \"mac\": \"02:00:00:00:02:03\", \"port\": \"p1\"}],"
	" \"routes\": [{\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"},"
	"  {\"prefix\": \"2001:db8:100::/48\", \"via\": \"2001:db8:2::2\"},"
	"  {\"prefix\": \"2001:db8:200::/48\", \"via\": \"fe80::9\", \"port\": \"p1\"}],"
	" \"control\": {\"socket\": \"/tmp/dpr-test-rpc.sock\"},"
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256,"
	"         \"ipv6_max_routes\": 600, \"ipv6_tbl8_groups\": 1024}}";
#define CONFIG6_ROUTES4 8
/* The two subnets, their subnet-router anycast addresses (RFC 4291 2.6.1),
 * the two addresses, fe80::1, ... */
#define CONFIG6_ROUTES6 10

static struct dpr_ip
ip_of_text(const char *s)
{
	struct dpr_ip ip;

	dpr_ip_parse(s, &ip);
	return ip;
}

static uint32_t
routes6(void)
{
	return dpr_fib6_count(R.fib6);
}

/* What the config installs, of both families. */
static void
test6_config(void)
{
	json_t *res, *v;
	size_t k;
	bool ll = false;

	CHECK_EQ(R.fib4->n_routes, CONFIG6_ROUTES4);
	CHECK_EQ(routes6(), CONFIG6_ROUTES6);
	res = OK("route.get", "{'address':'2001:db8:1::1'}");
	HAS_STR(res, "prefix", "2001:db8:1::1/128");
	HAS_STR(res, "type", "local");
	HAS_STR(res, "address", "2001:db8:1::1");
	res = OK("route.get", "{'address':'2001:db8:1::77'}");
	HAS_STR(res, "prefix", "2001:db8:1::/64");
	HAS_STR(res, "type", "connected");
	HAS_STR(res, "port", "p0");
	res = OK("route.get", "{'address':'2001:db8:1::2'}");
	HAS_STR(res, "prefix", "2001:db8:1::2/128");
	HAS_STR(res, "type", "neighbor");
	HAS_STR(res, "via", "2001:db8:1::2");
	HAS_STR(res, "port", "p0");
	CHECK(json_is_true(json_object_get(res, "resolved")), "%s", last_text);
	res = OK("route.get", "{'address':'2001:db8:100:5::1'}");
	HAS_STR(res, "prefix", "2001:db8:100::/48");
	HAS_STR(res, "via", "2001:db8:2::2");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "type", "gateway");
	CHECK(json_is_false(json_object_get(res, "resolved")), "%s", last_text);
	res = OK("route.get", "{'address':'2001:db8:200::1'}");
	HAS_STR(res, "via", "fe80::9");
	HAS_STR(res, "port", "p1");
	/* The link-local address: one local route for both ports, no
	 * fe80::/64 route (which port would it name?). */
	HAS_STR(OK("route.get", "{'address':'fe80::1'}"), "type", "local");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'fe80::2'}", "fe80::2", "no route");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'2001:db8:9::1'}", "no route");
	/* IPv4 still answers beside it. */
	HAS_STR(OK("route.get", "{'address':'10.0.1.77'}"), "prefix", "10.0.1.0/24");
	/* The link-local static neighbour is there, resolved, on its port. */
	res = OK("neigh.list", NULL);
	json_array_foreach(res, k, v)
		if (strcmp(json_string_value(json_object_get(v, "address")), "fe80::2") == 0) {
			ll = true;
			HAS_STR(v, "port", "p1");
			HAS_STR(v, "mac", "02:00:00:00:02:03");
			CHECK(json_is_true(json_object_get(v, "static")), "%s", last_text);
		}
	CHECK(ll, "fe80::2 in neigh.list: %s", last_text);
}

/* Link-local next hops are (address, port); others by address alone. */
static void
test6_nexthop_scope(void)
{
	struct dpr_ip ll = ip_of_text("fe80::9"), g = ip_of_text("2001:db8:2::2");
	const struct dpr_nh_info *info;
	int a, b;

	CHECK(dpr_ip_is_link_local(&ll), "fe80::9 is link-local");
	CHECK(!dpr_ip_is_link_local(&g), "2001:db8:2::2 is not");
	CHECK(dpr_ip_is_link_local(&(struct dpr_ip){ .af = DPR_AF_IP6, .ip6 = { 0xfe, 0xbf } }),
	      "febf:: is in fe80::/10");
	CHECK(!dpr_ip_is_link_local(&(struct dpr_ip){ .af = DPR_AF_IP6, .ip6 = { 0xfe, 0xc0 } }),
	      "fec0:: is not");
	/* fe80::9 on p1 is the config route's gateway; on p0 it is unknown. */
	b = dpr_nh_find_port(R.nh, &ll, 1);
	CHECK(b >= 0, "fe80::9 on p1");
	CHECK_EQ(dpr_nh_find_port(R.nh, &ll, 0), -ENOENT);
	CHECK_EQ(dpr_nh_find(R.nh, &ll), b); /* one port knows it: unambiguous */
	a = dpr_nh_get(R.nh, &ll, 0);
	CHECK(a >= 0 && a != b, "fe80::9 on p0 is another next hop (%d, %d)", a, b);
	info = dpr_nh_info(R.nh, (uint32_t)a);
	CHECK(info != NULL && dpr_ip_equal(&info->ip, &ll), "info->ip is the address itself");
	CHECK_EQ(dpr_nh_word_get(R.nh, (uint32_t)a).port, 0);
	CHECK_EQ(dpr_nh_find_port(R.nh, &ll, 0), a);
	CHECK_EQ(dpr_nh_find(R.nh, &ll), -ENOENT); /* two ports know it: ambiguous */
	CHECK_EQ(dpr_nh_get(R.nh, &ll, 0), a);
	dpr_nh_put(R.nh, (uint32_t)a);
	dpr_nh_put(R.nh, (uint32_t)a);
	CHECK_EQ(dpr_nh_find_port(R.nh, &ll, 0), -ENOENT);
	CHECK_EQ(dpr_nh_find(R.nh, &ll), b);
	/* A global address: the port does not matter. */
	a = dpr_nh_find(R.nh, &g);
	CHECK(a >= 0, "2001:db8:2::2 is a gateway");
	CHECK_EQ(dpr_nh_find_port(R.nh, &g, 0), a);
	CHECK_EQ(dpr_nh_find_port(R.nh, &g, 1), a);
}

/*
 * RFC 8950: IPv4 routes through IPv6 neighbours, from route.add, route.load
 * lines and in a multipath route beside an IPv4 gateway; shown by
 * route.get and taken back by config.get's file.
 */
static void
test6_v4_via_v6(void)
{
	struct snapshot before = snap();
	json_t *res, *a;

	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.50.0.0/16','via':'fe80::2'}",
	    "fe80::2", "needs \"port\"");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:50::/48','via':'10.0.2.2'}",
	    "10.0.2.2", "not an IPv6 address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'10.50.0.0/16','via':'2001:db8:9::2'}",
	    "2001:db8:9::2", "not on a connected subnet");
	OK("route.add", "{'prefix':'10.50.0.0/16','via':'fe80::2','port':'p1'}");
	res = OK("route.get", "{'address':'10.50.1.1'}");
	HAS_STR(res, "prefix", "10.50.0.0/16");
	HAS_STR(res, "via", "fe80::2");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "type", "gateway");
	/* The static neighbour fe80::2's MAC: one next hop for both families. */
	CHECK(json_is_true(json_object_get(res, "resolved")), "%s", last_text);
	OK("route.add", "{'prefix':'10.51.0.0/16','via':'2001:db8:2::7'}");
	res = OK("route.get", "{'address':'10.51.0.1'}");
	HAS_STR(res, "via", "2001:db8:2::7");
	HAS_STR(res, "port", "p1");
	CHECK(json_is_false(json_object_get(res, "resolved")), "%s", last_text);
	OK("route.add", "{'prefix':'10.53.0.0/16','nexthops':[{'via':'10.0.2.2'},"
	   "{'via':'fe80::2','port':'p1','weight':2}]}");
	res = OK("route.get", "{'address':'10.53.0.1'}");
	HAS_STR(res, "type", "multipath");
	a = json_object_get(res, "nexthops");
	CHECK(json_array_size(a) == 2 && strstr(last_text, "\"fe80::2\"") != NULL, "%s", last_text);
	res = OK("route.load", "{'routes':['10.52.0.0/16 via fe80::2 dev p1']}");
	HAS_STR(OK("route.get", "{'address':'10.52.9.9'}"), "via", "fe80::2");
	res = OK("config.get", NULL);
	check_config_file(res);
	CHECK(strstr(last_text, "\"10.50.0.0/16\", \"via\": \"fe80::2\"") != NULL ||
	      strstr(last_text, "\"10.50.0.0/16\",\"via\":\"fe80::2\"") != NULL,
	      "config.get keeps 10.50.0.0/16 via fe80::2: %.600s", last_text);
	OK("route.del", "{'prefix':'10.50.0.0/16'}");
	OK("route.del", "{'prefix':'10.51.0.0/16'}");
	OK("route.del", "{'prefix':'10.52.0.0/16'}");
	OK("route.del", "{'prefix':'10.53.0.0/16'}");
	SAME(snap(), before);
}

static void
test6_route_add(void)
{
	struct snapshot before = snap();
	json_t *res;

	/* Bad values: what is wrong and what to do. */
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::1/48','via':'2001:db8:2::3'}",
	    "2001:db8:300::1/48", "host bits", "2001:db8:300::/48");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8::/129','via':'2001:db8:2::3'}",
	    "2001:db8::/129", "not a prefix");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'10.0.2.2'}",
	    "10.0.2.2", "not an IPv6 address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'2001:db8:9::1'}",
	    "2001:db8:9::1", "not on a connected subnet");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add",
	    "{'prefix':'2001:db8:300::/48','via':'2001:db8:1::5','port':'p1'}", "2001:db8:1::5",
	    "not on a connected subnet of port p1");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'fe80::9'}",
	    "link-local gateway fe80::9 needs \"port\"", "dev PORT");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'2001:db8:2::1'}",
	    "2001:db8:2::1", "router's own address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'fe80::1','port':'p0'}",
	    "fe80::1", "router's own address");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'2001:db8:2::'}",
	    "2001:db8:2::", "subnet-router anycast");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:300::/48','via':'ff02::2','port':'p0'}",
	    "ff02::2", "multicast");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'fe80::/64','port':'p0'}", "fe80::/64",
	    "link-local", "global prefix");
	/* Destinations the workers never forward: a route there would be
	 * route.get's answer and nothing's path. */
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'ff0e::/16','via':'2001:db8:2::2'}",
	    "ff0e::/16", "multicast", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'::ffff:0:0/96','via':'2001:db8:2::2'}",
	    "IPv4-mapped", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'::1/128','via':'2001:db8:2::2'}",
	    "loopback", "never forwarded");
	ERR(DPR_RPC_INVALID_PARAMS, "route.load", "{'routes':['::/128 via 2001:db8:2::2']}",
	    "routes[0]", "unspecified", "never forwarded");
	OK("route.add", "{'prefix':'fe00::/7','via':'2001:db8:2::2'}");
	OK("route.del", "{'prefix':'fe00::/7'}");
	ERR(DPR_RPC_NOT_FOUND, "route.add", "{'prefix':'2001:db8:300::/48','via':'fe80::9','port':'p7'}",
	    "\"p7\"");
	/* Routes the router owns: addresses, subnets, neighbours. */
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'2001:db8:1::/64','via':'2001:db8:2::2'}",
	    "2001:db8:1::/64", "connected subnet of address 2001:db8:1::1/64 on port p0", "addr.del");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'2001:db8:2::1/128','port':'p0'}",
	    "2001:db8:2::1/128", "router's address 2001:db8:2::1/64 on port p1");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'2001:db8:1::2/128','via':'2001:db8:2::2'}",
	    "2001:db8:1::2/128", "neighbour", "neigh.del");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'2001:db8:2::5/128','via':'2001:db8:2::5'}",
	    "neigh.add");
	SAME(snap(), before);

	/* Good ones, with their shapes. */
	res = OK("route.add", "{'prefix':'2001:db8:300::/48','via':'2001:db8:2::3'}");
	HAS_STR(res, "prefix", "2001:db8:300::/48");
	HAS_STR(res, "via", "2001:db8:2::3");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "type", "gateway");
	CHECK(json_is_false(json_object_get(res, "resolved")), "%s", last_text);
	HAS_STR(res, "source", "api");
	CHECK_EQ(json_object_size(res), 6);
	CHECK_EQ(routes6(), before.routes - CONFIG6_ROUTES4 + 1);
	CHECK_EQ(R.fib4->n_routes, CONFIG6_ROUTES4);
	HAS_STR(OK("route.get", "{'address':'2001:db8:300:1::1'}"), "prefix", "2001:db8:300::/48");
	ERR(DPR_RPC_EXISTS, "route.add", "{'prefix':'2001:db8:300::/48','via':'2001:db8:2::4'}",
	    "2001:db8:300::/48", "exists", "route.replace", "2001:db8:2::3");
	CHECK_EQ(neigh_refs("2001:db8:2::4"), -1);
	/* Through a link-local gateway: the port goes with it. */
	res = OK("route.add", "{'prefix':'2001:db8:400::/48','via':'fe80::9','port':'p0'}");
	HAS_STR(res, "via", "fe80::9");
	HAS_STR(res, "port", "p0");
	HAS_STR(OK("route.get", "{'address':'2001:db8:200::1'}"), "port", "p1");
	CHECK(dpr_nh_find_port(R.nh, &(struct dpr_ip){ .af = DPR_AF_IP6,
		.ip6 = { 0xfe, 0x80, [15] = 9 } }, 0) !=
	      dpr_nh_find_port(R.nh, &(struct dpr_ip){ .af = DPR_AF_IP6,
		.ip6 = { 0xfe, 0x80, [15] = 9 } }, 1), "two next hops for fe80::9");
	/* A default route, a host route, a directly attached one. */
	HAS_STR(OK("route.add", "{'prefix':'::/0','via':'fe80::9','port':'p1'}"), "prefix", "::/0");
	HAS_STR(OK("route.get", "{'address':'2001:4860::8888'}"), "prefix", "::/0");
	HAS_STR(OK("route.add", "{'prefix':'2001:db8:500::7','via':'2001:db8:1::2'}"), "prefix",
		"2001:db8:500::7/128");
	res = OK("route.add", "{'prefix':'2001:db8:600::/64','port':'p0'}");
	HAS_STR(res, "type", "connected");
	HAS_STR(res, "port", "p0");
	CHECK(json_object_get(res, "via") == NULL, "%s", last_text);

	/* Replace moves the route and its reference, across ports. */
	res = OK("route.replace", "{'prefix':'2001:db8:300::/48','via':'2001:db8:1::2'}");
	HAS_STR(res, "port", "p0");
	CHECK(json_is_true(json_object_get(res, "resolved")), "%s", last_text);
	CHECK_EQ(neigh_refs("2001:db8:2::3"), -1);
	HAS_STR(OK("route.replace", "{'prefix':'2001:db8:300::/48','port':'p1'}"), "type", "connected");
	HAS_STR(OK("route.replace", "{'prefix':'2001:db8:700::/48','via':'fe80::9','port':'p1'}"),
		"prefix", "2001:db8:700::/48");

	/* route.del, and what it refuses. */
	ERR(DPR_RPC_NOT_FOUND, "route.del", "{'prefix':'2001:db8:999::/48'}", "2001:db8:999::/48",
	    "no such route");
	ERR(DPR_RPC_INVALID_PARAMS, "route.del", "{'prefix':'2001:db8:300::1/48'}", "2001:db8:300::/48");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'2001:db8:1::/64'}", "connected subnet", "addr.del");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'2001:db8:1::1'}", "router's address");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'fe80::1/128'}", "fe80::1/128", "router's address");
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'2001:db8:1::2/128'}", "neighbour", "neigh.del");
	HAS_STR(OK("route.del", "{'prefix':'2001:db8:300::/48'}"), "deleted", "2001:db8:300::/48");
	CHECK(strcmp(route_prefix("2001:db8:300::1"), "::/0") == 0, "falls to the default");
	OK("route.del", "{'prefix':'::/0'}");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'2001:db8:300::1'}", "no route");
	OK("route.del", "{'prefix':'2001:db8:400::/48'}");
	OK("route.del", "{'prefix':'2001:db8:500::7'}");
	OK("route.del", "{'prefix':'2001:db8:600::/64'}");
	OK("route.del", "{'prefix':'2001:db8:700::/48'}");
	CHECK_EQ(dpr_nh_find_port(R.nh, &(struct dpr_ip){ .af = DPR_AF_IP6,
		.ip6 = { 0xfe, 0x80, [15] = 9 } }, 0), -ENOENT);
	SAME(snap(), before);
}

/* route.list: IPv4, then IPv6, pages crossing between them. */
static void
test6_route_list(void)
{
	struct seen all = { 0 }, s = { 0 };
	struct snapshot before = snap();
	unsigned int i, first6 = 0, last4 = 0, limit;
	char buf[160];
	json_t *res, *v, *load;

	/* Some more of each family. */
	load = json_array();
	for (i = 0; i < 40; i++) {
		snprintf(buf, sizeof(buf), "100.%u.0.0/16 via 10.0.2.2", 64 + i);
		json_array_append_new(load, json_string(buf));
		snprintf(buf, sizeof(buf), "2001:db8:%x::/48 via 2001:db8:2::2", 0x1000 + i);
		json_array_append_new(load, json_string(buf));
	}
	{
		json_t *req = json_pack("{s:s,s:i,s:s,s:{s:o}}", "jsonrpc", "2.0", "id", 1,
					"method", "route.load", "params", "routes", load);
		json_t *r = dpr_rpc_handle(&R, req);

		CHECK(json_integer_value(json_object_get(json_object_get(r, "result"), "loaded")) == 80,
		      "loaded both families");
		json_decref(r);
		json_decref(req);
	}
	CHECK_EQ(R.fib4->n_routes, CONFIG6_ROUTES4 + 40);
	CHECK_EQ(routes6(), CONFIG6_ROUTES6 + 40);

	/* One page: every route, IPv4 first. */
	res = OK("route.list", "{'limit':100000}");
	HAS_INT(res, "total", snap().routes);
	HAS_INT(res, "ipv4_routes", CONFIG6_ROUTES4 + 40);
	HAS_INT(res, "ipv6_routes", CONFIG6_ROUTES6 + 40);
	CHECK(json_is_null(json_object_get(res, "next")), "%s", last_text);
	json_array_foreach(json_object_get(res, "routes"), i, v) {
		const char *p = json_string_value(json_object_get(v, "prefix"));

		seen_add(&all, p);
		if (strchr(p, ':') == NULL)
			last4 = i;
		else if (first6 == 0)
			first6 = i;
	}
	CHECK_EQ(all.n, snap().routes);
	CHECK_EQ(all.dups, 0);
	CHECK(last4 + 1 == first6 && first6 == R.fib4->n_routes,
	      "IPv4 (up to %u) before IPv6 (from %u)", last4, first6);
	CHECK(seen_has(&all, "2001:db8:1::/64") && seen_has(&all, "fe80::1/128") &&
	      seen_has(&all, "2001:db8:1::2/128") && seen_has(&all, "2001:db8:200::/48"),
	      "the config's IPv6 routes are listed");

	/* Pages of every size around the boundary: every route once. */
	for (limit = 1; limit <= 12; limit++) {
		s.n = s.dups = 0;
		list_all(limit, false, &s, NULL);
		CHECK(s.n == all.n && s.dups == 0, "limit %u: %u of %u routes, %u twice", limit,
		      s.n, all.n, s.dups);
	}
	s.n = s.dups = 0;
	list_all(R.fib4->n_routes, false, &s, NULL);
	CHECK_EQ(s.n, all.n);

	/* A page that ends on the last IPv4 route says there is more. */
	snprintf(buf, sizeof(buf), "{'limit':%u}", R.fib4->n_routes);
	res = OK("route.list", buf);
	CHECK(json_is_string(json_object_get(res, "next")) &&
	      strchr(json_string_value(json_object_get(res, "next")), ':') == NULL,
	      "next is the last IPv4 route: %s", last_text);
	snprintf(buf, sizeof(buf), "{'limit':1,'after':'%s'}",
		 json_string_value(json_object_get(res, "next")) ?: "");
	res = OK("route.list", buf);
	v = json_array_get(json_object_get(res, "routes"), 0);
	CHECK(strchr(json_string_value(json_object_get(v, "prefix")) ?: "", ':') != NULL,
	      "then the first IPv6 route: %s", last_text);
	/* An IPv6 cursor, even one not in the table. */
	res = OK("route.list", "{'after':'2001:db8:1::/64'}");
	v = json_array_get(json_object_get(res, "routes"), 0);
	HAS_STR(v, "prefix", "2001:db8:1::/128"); /* the subnet-router anycast address */
	HAS_STR(v, "type", "local");
	HAS_STR(json_array_get(json_object_get(res, "routes"), 1), "prefix", "2001:db8:1::1/128");
	res = OK("route.list", "{'after':'2001:db8:1::/60','limit':1}");
	HAS_STR(json_array_get(json_object_get(res, "routes"), 0), "prefix", "2001:db8:1::/64");
	snprintf(buf, sizeof(buf), "{'after':'%s'}", all.p[all.n - 1]);
	res = OK("route.list", buf);
	CHECK_EQ(json_array_size(json_object_get(res, "routes")), 0);
	CHECK(json_is_null(json_object_get(res, "next")), "%s", last_text);
	ERR(DPR_RPC_INVALID_PARAMS, "route.list", "{'after':'2001:db8::1/32'}", "\"after\"");

	load = json_array();
	for (i = 0; i < 40; i++) {
		snprintf(buf, sizeof(buf), "del 100.%u.0.0/16", 64 + i);
		json_array_append_new(load, json_string(buf));
		snprintf(buf, sizeof(buf), "del 2001:db8:%x::/48", 0x1000 + i);
		json_array_append_new(load, json_string(buf));
	}
	{
		json_t *req = json_pack("{s:s,s:i,s:s,s:{s:o}}", "jsonrpc", "2.0", "id", 1,
					"method", "route.load", "params", "routes", load);

		json_decref(dpr_rpc_handle(&R, req));
		json_decref(req);
	}
	SAME(snap(), before);
	free(all.p);
	free(s.p);
}

static void
test6_route_load(void)
{
	struct snapshot before = snap();
	json_t *res;

	/* Both families in one request, strings and objects. */
	res = json_object_get(load("['2001:db8:500::/48 via 2001:db8:2::2', '203.0.113.0/24 via 10.0.2.2',"
				   " {'prefix':'2001:db8:501::/48','via':'fe80::9','port':'p1'},"
				   " '2001:db8:502::/48 via fe80::9 dev p0', '2001:db8:503::/48 dev p1',"
				   " '203.0.114.0/24 dev p0', '2001:db8:504::/48\\tvia  2001:db8:1::2']"),
			      "result");
	HAS_INT(res, "loaded", 7);
	HAS_INT(res, "routes", before.routes + 7);
	HAS_INT(res, "ipv4_routes", CONFIG6_ROUTES4 + 2);
	HAS_INT(res, "ipv6_routes", CONFIG6_ROUTES6 + 5);
	HAS_STR(OK("route.get", "{'address':'2001:db8:501::1'}"), "port", "p1");
	HAS_STR(OK("route.get", "{'address':'2001:db8:502::1'}"), "port", "p0");
	HAS_STR(OK("route.get", "{'address':'2001:db8:503::1'}"), "type", "connected");
	HAS_STR(OK("route.get", "{'address':'2001:db8:504::1'}"), "via", "2001:db8:1::2");
	HAS_STR(OK("route.get", "{'address':'203.0.113.1'}"), "via", "10.0.2.2");

	/* A bad IPv6 entry anywhere: nothing of either family is applied. */
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['203.0.115.0/24 via 10.0.2.2', '2001:db8:600::/48 via 2001:db8:2::2',"
		 " '2001:db8:601::/48 via fe80::9']", "routes[2]",
		 "link-local gateway fe80::9 needs \"port\"");
	CHECK(strcmp(route_prefix("203.0.115.1"), "") == 0, "IPv4 entry not applied");
	CHECK(strcmp(route_prefix("2001:db8:600::1"), "") == 0, "IPv6 entry not applied");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['del 203.0.113.0/24', '2001:db8:600::1/48 via 2001:db8:2::2']",
		 "routes[1]", "2001:db8:600::/48");
	CHECK(strcmp(route_prefix("203.0.113.1"), "203.0.113.0/24") == 0, "delete not applied");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['2001:db8:600::/48 via 2001:db8:9::9']", "routes[0]",
		 "not on a connected subnet");
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['2001:db8:600::/48 via 10.0.2.2']", "routes[0]",
		 "not an IPv6 address");
	LOAD_ERR(DPR_RPC_NOT_FOUND, "['del 2001:db8:600::/48']", "routes[0]", "no such route");
	LOAD_ERR(DPR_RPC_REFUSED, "['del 2001:db8:2::/64']", "routes[0]", "connected subnet");
	LOAD_ERR(DPR_RPC_REFUSED, "['2001:db8:1::2/128 dev p0']", "routes[0]", "neigh.del");
	/* Deleting one prefix twice is caught per family... */
	LOAD_ERR(DPR_RPC_INVALID_PARAMS, "['del 2001:db8:500::/48', 'del 203.0.113.0/24',"
		 " 'del 2001:db8:500::/48']", "routes[2]", "2001:db8:500::/48", "deleted twice");
	/* ...and the same-looking prefixes of both families are not twice. */
	OK("route.add", "{'prefix':'0.0.0.0/0','via':'10.0.2.2'}");
	OK("route.add", "{'prefix':'::/0','via':'2001:db8:2::2'}");
	res = json_object_get(load("['del 0.0.0.0/0', 'del ::/0']"), "result");
	HAS_INT(res, "loaded", 2);

	res = json_object_get(load("['del 2001:db8:500::/48', 'del 203.0.113.0/24',"
				   " 'del 2001:db8:501::/48', 'del 2001:db8:502::/48',"
				   " 'del 2001:db8:503::/48', 'del 203.0.114.0/24',"
				   " 'del 2001:db8:504::/48']"), "result");
	HAS_INT(res, "loaded", 7);
	SAME(snap(), before);
	CHECK_EQ(neigh_refs("fe80::9"), 1); /* the config route's, on p1 */
}

/* The IPv6 FIB fills up: -32003 naming the IPv6 limit to raise. */
static void
route6_load_full(bool groups)
{
	struct snapshot before = snap();
	uint32_t used = dpr_fib6_tbl8_used(R.fib6);
	unsigned int i, n = groups ? 200 : R.fib6->conf.max_routes + 50;
	json_t *routes = json_array(), *req, *r;
	const char *msg;
	char buf[96];

	for (i = 0; i < n; i++) {
		/* A /128 in a /24 block of its own takes a chain of 13 groups. */
		if (groups)
			snprintf(buf, sizeof(buf), "3fff:%02x%02x::1/128 via 2001:db8:2::%u",
				 i / 256, i % 256, 10 + i % 20);
		else
			snprintf(buf, sizeof(buf), "2001:db8:7:%x::/64 via 2001:db8:2::%u", i,
				 10 + i % 20);
		json_array_append_new(routes, json_string(buf));
	}
	req = json_pack("{s:s,s:i,s:s,s:{s:O}}", "jsonrpc", "2.0", "id", 9, "method", "route.load",
			"params", "routes", routes);
	r = dpr_rpc_handle(&R, req);
	msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	CHECK(json_integer_value(json_object_get(json_object_get(r, "error"), "code")) ==
	      DPR_RPC_NO_SPACE, "IPv6 FIB full: %s", msg ? msg : "no error");
	CHECK(msg != NULL && strstr(msg, "route.load") != NULL && strstr(msg, "IPv6") != NULL &&
	      strstr(msg, groups ? "raise fib.ipv6_tbl8_groups" : "raise fib.ipv6_max_routes") != NULL,
	      "%s", msg ? msg : "");
	json_decref(r);
	json_decref(req);
	for (i = 0; i < n; i++) {
		struct dpr_prefix pf;
		char pfx[64];

		sscanf(json_string_value(json_array_get(routes, i)), "%63s", pfx);
		dpr_prefix_parse(pfx, false, &pf, NULL, 0);
		if (dpr_route_get(&R.rib, &pf, &(uint32_t){ 0 }) == 0) {
			snprintf(buf, sizeof(buf), "{'prefix':'%s'}", pfx);
			OK("route.del", buf);
		}
	}
	json_decref(routes);
	SAME(snap(), before);
	CHECK_EQ(dpr_fib6_tbl8_used(R.fib6), used);
}

static void
test6_addr(void)
{
	struct snapshot before = snap();
	json_t *res, *v;
	size_t k;
	bool found;

	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'2001:db8:3::1'}",
	    "2001:db8:3::1", "prefix length");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'ff02::1/64'}", "multicast");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'2001:db8:1::9/64'}",
	    "overlaps 2001:db8:1::1/64 on port p0");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'2001:db8::9/32'}",
	    "overlaps");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.del", "{'port':'p1','address':'2001:db8:2::1'}",
	    "with its length", "2001:db8:1::1/64");
	ERR(DPR_RPC_NOT_FOUND, "addr.del", "{'port':'p0','address':'2001:db8:2::1/64'}",
	    "no such address");
	SAME(snap(), before);

	/* A new subnet: its connected /64, the address's /128 and the
	 * subnet-router anycast /128, no broadcast. */
	res = OK("addr.add", "{'port':'p1','address':'2001:db8:3::1/64'}");
	HAS_STR(res, "address", "2001:db8:3::1/64");
	CHECK_EQ(snap().routes, before.routes + 3);
	HAS_STR(OK("route.get", "{'address':'2001:db8:3::'}"), "type", "local");
	CHECK_EQ(R.fib4->n_routes, CONFIG6_ROUTES4);
	res = OK("route.get", "{'address':'2001:db8:3::1'}");
	HAS_STR(res, "prefix", "2001:db8:3::1/128");
	HAS_STR(res, "type", "local");
	res = OK("route.get", "{'address':'2001:db8:3::ffff'}");
	HAS_STR(res, "prefix", "2001:db8:3::/64");
	HAS_STR(res, "type", "connected");
	HAS_STR(res, "port", "p1");
	found = false;
	res = OK("route.list", "{'after':'2001:db8:2::1/128'}");
	json_array_foreach(json_object_get(res, "routes"), k, v)
		if (strcmp(json_string_value(json_object_get(v, "prefix")), "2001:db8:3::/64") == 0)
			found = true;
	CHECK(found, "2001:db8:3::/64 in route.list: %s", last_text);
	/* A gateway there is accepted now, and the subnet refused as a route. */
	OK("route.add", "{'prefix':'2001:db8:800::/48','via':'2001:db8:3::fe'}");
	ERR(DPR_RPC_REFUSED, "route.add", "{'prefix':'2001:db8:3::/64','port':'p0'}",
	    "connected subnet of address 2001:db8:3::1/64 on port p1");
	OK("route.del", "{'prefix':'2001:db8:800::/48'}");
	/* A second address on the subnet; deleting it keeps the subnet. */
	OK("addr.add", "{'port':'p1','address':'2001:db8:3::2/64'}");
	CHECK_EQ(snap().routes, before.routes + 4);
	OK("addr.del", "{'port':'p1','address':'2001:db8:3::2/64'}");
	CHECK_EQ(snap().routes, before.routes + 3);
	HAS_STR(OK("route.get", "{'address':'2001:db8:3::'}"), "type", "local");
	HAS_STR(OK("route.get", "{'address':'2001:db8:3::2'}"), "type", "connected");
	HAS_STR(OK("route.get", "{'address':'2001:db8:3::1'}"), "type", "local");
	res = OK("addr.del", "{'port':'p1','address':'2001:db8:3::1/64'}");
	HAS_STR(res, "address", "2001:db8:3::1/64");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'2001:db8:3::1'}", "no route");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'2001:db8:3::ffff'}", "no route");
	SAME(snap(), before);

	/* Whatever addr.add takes, config.get's file holds: at most 16
	 * addresses a port besides the link-local one dpr derives, which p1
	 * lacks here (as after addr.del of it): its place takes no 17th, of
	 * either kind. */
	{
		unsigned int i;
		char p[128];

		for (i = 0; i < 13; i++) {
			snprintf(p, sizeof(p), "{'port':'p1','address':'192.0.2.%u/32'}", 100 + i);
			OK("addr.add", p);
		}
		ERR(DPR_RPC_NO_SPACE, "addr.add", "{'port':'p1','address':'fe80::7/64'}", "p1", "16");
		ERR(DPR_RPC_NO_SPACE, "addr.add", "{'port':'p1','address':'192.0.2.113/32'}", "p1",
		    "16");
		check_config_file(OK("config.get", NULL));
		for (i = 0; i < 13; i++) {
			snprintf(p, sizeof(p), "{'port':'p1','address':'192.0.2.%u/32'}", 100 + i);
			OK("addr.del", p);
		}
		SAME(snap(), before);
	}

	/* A /128 address: its local route only. */
	OK("addr.add", "{'port':'p0','address':'2001:db8:9::9/128'}");
	CHECK_EQ(snap().routes, before.routes + 1);
	HAS_STR(OK("route.get", "{'address':'2001:db8:9::9'}"), "type", "local");
	OK("addr.del", "{'port':'p0','address':'2001:db8:9::9/128'}");
	SAME(snap(), before);

	/* Link-local: the /128 only, never fe80::/64 (every port is on it). */
	OK("addr.add", "{'port':'p0','address':'fe80::5/64'}");
	CHECK_EQ(snap().routes, before.routes + 1);
	HAS_STR(OK("route.get", "{'address':'fe80::5'}"), "type", "local");
	ERR(DPR_RPC_NOT_FOUND, "route.get", "{'address':'fe80::6'}", "no route");
	OK("addr.del", "{'port':'p0','address':'fe80::5/64'}");
	SAME(snap(), before);
	/* fe80::1 is on both ports: its route stays while either has it. */
	OK("addr.del", "{'port':'p0','address':'fe80::1/64'}");
	HAS_STR(OK("route.get", "{'address':'fe80::1'}"), "type", "local");
	CHECK_EQ(snap().routes, before.routes);
	OK("addr.add", "{'port':'p0','address':'fe80::1/64'}");
	CHECK_EQ(snap().routes, before.routes);
	res = OK("addr.list", "{'port':'p0'}");
	CHECK_EQ(json_array_size(res), 3);
	HAS_STR(json_array_get(res, 1), "address", "2001:db8:1::1/64");
	SAME(snap(), before);
}

/*
 * A link-local address is the router's only on its own link (RFC 4007 6):
 * with fe80::1 on p0 alone, fe80::1 on p1's link is another host, which
 * may be a gateway or a neighbour there (every router on its link may
 * call itself fe80::1).
 */
static void
test6_ll_elsewhere(void)
{
	struct snapshot before = snap();

	OK("addr.del", "{'port':'p1','address':'fe80::1/64'}");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add",
	    "{'prefix':'2001:db8:700::/48','via':'fe80::1','port':'p0'}", "router's own");
	OK("route.add", "{'prefix':'2001:db8:700::/48','via':'fe80::1','port':'p1'}");
	OK("neigh.add", "{'address':'fe80::1','mac':'02:00:00:00:02:77','port':'p1'}");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add",
	    "{'address':'fe80::1','mac':'02:00:00:00:02:77','port':'p0'}", "router's own");
	OK("neigh.del", "{'address':'fe80::1','port':'p1'}");
	OK("route.del", "{'prefix':'2001:db8:700::/48'}");
	OK("addr.add", "{'port':'p1','address':'fe80::1/64'}");
	SAME(snap(), before);
}

static void
test6_neigh(void)
{
	struct snapshot before = snap();
	json_t *res;

	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'fe80::9','mac':'02:00:00:00:02:09'}",
	    "link-local neighbour fe80::9 needs \"port\"", "dev PORT");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'2001:db8:9::5','mac':'02:00:00:00:02:09'}",
	    "2001:db8:9::5", "not on a connected subnet");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'2001:db8:2::1','mac':'02:00:00:00:02:09'}",
	    "router's own address");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add", "{'address':'2001:db8:2::','mac':'02:00:00:00:02:09'}",
	    "subnet-router anycast");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.del", "{'address':'fe80::2'}",
	    "link-local neighbour fe80::2 needs \"port\"");
	SAME(snap(), before);

	/* A global one: its /128 host route, and the gateway resolves. */
	res = OK("neigh.add", "{'address':'2001:db8:2::2','mac':'02:00:00:00:02:02'}");
	HAS_STR(res, "address", "2001:db8:2::2");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "state", "reachable");
	CHECK_EQ(snap().routes, before.routes + 1);
	res = OK("route.get", "{'address':'2001:db8:2::2'}");
	HAS_STR(res, "prefix", "2001:db8:2::2/128");
	HAS_STR(res, "type", "neighbor");
	CHECK(json_is_true(json_object_get(OK("route.get", "{'address':'2001:db8:100::1'}"),
					   "resolved")), "gateway resolved: %s", last_text);
	ERR(DPR_RPC_REFUSED, "route.del", "{'prefix':'2001:db8:2::2/128'}", "neigh.del");
	/* A link-local one, on its port: no host route. */
	res = OK("neigh.add", "{'address':'fe80::9','mac':'02:00:00:00:02:09','port':'p1'}");
	HAS_STR(res, "port", "p1");
	HAS_STR(res, "state", "reachable");
	CHECK_EQ(snap().routes, before.routes + 1);
	CHECK(json_is_true(json_object_get(OK("route.get", "{'address':'2001:db8:200::1'}"),
					   "resolved")), "fe80::9 on p1 resolved: %s", last_text);
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'fe80::9','port':'p0'}", "no such neighbour",
	    "on port p0");
	OK("neigh.del", "{'address':'fe80::9','port':'p1'}");
	CHECK(json_is_false(json_object_get(OK("route.get", "{'address':'2001:db8:200::1'}"),
					    "resolved")), "fe80::9 unresolved again: %s", last_text);
	OK("neigh.del", "{'address':'2001:db8:2::2'}");
	ERR(DPR_RPC_NOT_FOUND, "neigh.del", "{'address':'2001:db8:2::2'}", "no such neighbour");
	CHECK(strcmp(route_field("2001:db8:2::2", "type"), "connected") == 0, "host route gone");
	SAME(snap(), before);
}

static void
test6_read_only(void)
{
	json_t *res, *fib, *ports, *ra, *v;
	size_t k;
	bool seen2 = false, seenll = false;

	res = OK("stats.get", NULL);
	fib = json_object_get(res, "fib");
	HAS_INT(fib, "ipv4_routes", R.fib4->n_routes);
	HAS_INT(fib, "ipv6_routes", routes6());
	HAS_INT(fib, "ipv6_max_routes", 600);
	HAS_INT(fib, "ipv6_tbl8_groups", R.fib6->conf.tbl8_groups);
	HAS_INT(fib, "ipv6_tbl8_used", dpr_fib6_tbl8_used(R.fib6));
	HAS_INT(fib, "ipv6_deep_groups", R.fib6->conf.deep_groups);
	CHECK(json_is_boolean(json_object_get(fib, "ipv6_deep")) &&
	      json_is_true(json_object_get(fib, "ipv6_deep")) ==
	      (dpr_fib6_tbl8_used(R.fib6) > R.fib6->conf.deep_groups),
	      "fib.ipv6_deep: more groups in use than ipv6_deep_groups: %s", last_text);
	CHECK(json_integer_value(json_object_get(fib, "ipv6_memory_bytes")) >= 64 << 20,
	      "IPv6 FIB memory counts tbl24: %s", last_text);

	res = OK("config.get", NULL);
	fib = json_object_get(res, "fib");
	HAS_INT(fib, "ipv6_max_routes", 600);
	HAS_INT(fib, "ipv6_tbl8_groups", 1024);
	HAS_INT(fib, "ipv4_max_routes", 4096);
	check_config_file(res);
	ports = json_object_get(res, "ports");
	CHECK_EQ(json_array_size(json_object_get(json_array_get(ports, 0), "addresses")), 3);
	ra = json_object_get(json_array_get(ports, 0), "router_advertisements");
	CHECK(json_is_object(ra), "p0 advertises: %s", last_text);
	HAS_INT(ra, "max_interval", 30);
	HAS_INT(ra, "min_interval", 9);       /* 0.33 x max */
	HAS_INT(ra, "router_lifetime", 90);   /* 3 x max */
	HAS_INT(ra, "hop_limit", 64);
	CHECK(json_is_true(json_object_get(ra, "mtu")) && json_is_false(json_object_get(ra, "managed")),
	      "RFC 4861 defaults: %s", last_text);
	HAS_STR(json_array_get(json_object_get(ra, "prefixes"), 0), "prefix", "2001:db8:1::/64");
	HAS_INT(json_array_get(json_object_get(ra, "prefixes"), 0), "preferred_lifetime", 1800);
	CHECK(json_object_get(json_array_get(ports, 1), "router_advertisements") == NULL,
	      "p1 does not advertise: %s", last_text);
	json_array_foreach(json_object_get(res, "neighbors"), k, v) {
		const char *a = json_string_value(json_object_get(v, "address"));

		seen2 |= strcmp(a, "2001:db8:1::2") == 0;
		if (strcmp(a, "fe80::2") == 0) {
			seenll = true;
			HAS_STR(v, "port", "p1");
		}
	}
	CHECK(seen2 && seenll, "static IPv6 neighbours in config.get: %s", last_text);
}


/*
 * config.get paged as dprctl config save pages it (config_write()): each
 * page after the last route of the one before, until one has fewer than
 * @p limit. Every route of the unpaged answer comes once, whatever VRF.
 */
static void
config_get_pages(unsigned int limit)
{
	json_t *all = json_array(), *res, *o;
	char params[160], last[DPR_PREFIX_STRLEN] = "", key[80];
	unsigned int pages = 0;
	size_t i, got, want;

	do {
		if (last[0] == '\0')
			snprintf(params, sizeof(params), "{'limit':%u}", limit);
		else
			snprintf(params, sizeof(params), "{'limit':%u,'after':'%s'}", limit, last);
		res = OK("config.get", params);
		got = json_array_size(json_object_get(res, "routes"));
		json_array_foreach(json_object_get(res, "routes"), i, o) {
			snprintf(key, sizeof(key), "%s %s",
				 json_string_value(json_object_get(o, "prefix")),
				 json_is_string(json_object_get(o, "vrf")) ?
				 json_string_value(json_object_get(o, "vrf")) : "default");
			json_array_append_new(all, json_string(key));
		}
		if (got > 0)
			snprintf(last, sizeof(last), "%s", json_string_value(json_object_get(
				 json_array_get(json_object_get(res, "routes"), got - 1), "prefix")));
	} while (got >= limit && ++pages < 100);
	want = json_array_size(json_object_get(OK("config.get", NULL), "routes"));
	CHECK(json_array_size(all) == want, "limit %u: %zu routes over the pages, %zu in one answer",
	      limit, json_array_size(all), want);
	for (i = 1; i < json_array_size(all); i++) {
		size_t j;

		for (j = 0; j < i; j++)
			CHECK(strcmp(json_string_value(json_array_get(all, i)),
				     json_string_value(json_array_get(all, j))) != 0,
			      "limit %u: route %s saved twice", limit,
			      json_string_value(json_array_get(all, i)));
	}
	json_decref(all);
}

/* One request built in C, sent without send_raw()'s table check after
 * it (100k routes): its response. */
static json_t *
send_big(const char *method, json_t *params)
{
	json_t *req = json_pack("{s:s,s:i,s:s,s:o}", "jsonrpc", "2.0", "id", 9, "method", method,
				"params", params);
	json_t *res = dpr_rpc_handle(&R, req);

	json_decref(req);
	return res;
}

/*
 * config.get gives a VRF's routes whole on its first page (only the
 * default VRF's page): a VRF with more than one answer holds (100000) is
 * refused by name, never written to the file cut short.
 */
static void
config_get_vrf_whole(void)
{
	unsigned int i, n = 100001;
	json_t *adds = json_array(), *dels = json_array(), *res, *err;
	const char *msg;
	char buf[64];

	OK("vrf.add", "{'name':'big','table':300,'fib':{'ipv4_algorithm':'poptrie','ipv6_algorithm':'poptrie','ipv4_max_routes':131072}}");
	OK("vlan.add", "{'name':'p1.200','port':'p1','id':200,'vrf':'big','tap':false}");
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%u.%u.%u.0/24", 20 + i / 65536, (i / 256) % 256, i % 256);
		json_array_append_new(dels, json_sprintf("del %s", buf));
		json_array_append_new(adds, json_sprintf("%s dev p1.200", buf));
	}
	res = send_big("route.load", json_pack("{s:o,s:s}", "routes", adds, "vrf", "big"));
	CHECK(json_integer_value(json_object_get(json_object_get(res, "result"), "added")) == n,
	      "route.load put %u routes in VRF big", n);
	json_decref(res);

	res = send_big("config.get", json_object());
	err = json_object_get(res, "error");
	msg = json_string_value(json_object_get(err, "message"));
	CHECK(json_integer_value(json_object_get(err, "code")) == DPR_RPC_NO_SPACE,
	      "config.get refuses VRF big's %u routes (got %zu routes in its answer)", n,
	      json_array_size(json_object_get(json_object_get(res, "result"), "routes")));
	CHECK(msg != NULL && strstr(msg, "VRF big has 100001 routes to save") != NULL, "%s",
	      msg ? msg : "(no message)");
	json_decref(res);

	res = send_big("route.load", json_pack("{s:o,s:s}", "routes", dels, "vrf", "big"));
	CHECK(json_integer_value(json_object_get(json_object_get(res, "result"), "deleted")) == n,
	      "route.load took VRF big's routes away");
	json_decref(res);
	OK("vlan.del", "{'name':'p1.200'}");
	OK("vrf.del", "{'name':'big'}");
	/* Its slot free again (as drain_exceptions() finds the rings empty). */
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
}

/*
 * capture.start's file name goes into the log (one line an event): one
 * with a control character is refused before anything is created.
 */
static void
test_capture_file(void)
{
	char file[64], bad[80], params[160];

	snprintf(file, sizeof(file), "/tmp/dpr-test-rpc-%d.pcapng", (int)getpid());
	snprintf(bad, sizeof(bad), "%s\\ndpr: forged", file);
	snprintf(params, sizeof(params), "{'file':'%s','drops':'all'}", bad);
	ERR(DPR_RPC_INVALID_PARAMS, "capture.start", params,
	    "is a control character (0x0a)");
	OK("capture.stop", NULL);
	snprintf(bad, sizeof(bad), "%s\ndpr: forged", file);
	CHECK(access(bad, F_OK) != 0, "no file %s made", bad);
	unlink(bad);
	/* The same name without it is taken. */
	snprintf(params, sizeof(params), "{'file':'%s','drops':'all'}", file);
	OK("capture.start", params);
	OK("capture.stop", NULL);
	CHECK(access(file, F_OK) == 0, "capture.start made %s", file);
	unlink(file);
	dpr_capture_free(&R);
}

/*
 * A capture's port filter names VLAN interface p1.5 (in slot 2, @p dp its
 * ports' view), which vlan.del deletes: the next interface in its slot is
 * not captured under that filter, and a filter that named only deleted
 * interfaces stops its capture. Deletes p1.5.
 */
static void
capture_iface_gone(struct dpr_port_dp *dp)
{
	char file[64], params[160];
	json_t *res;

	snprintf(file, sizeof(file), "/tmp/dpr-test-rpc-gone-%d.pcapng", (int)getpid());
	unlink(file);
	snprintf(params, sizeof(params), "{'file':'%s','drops':'all','ports':['p0','p1.5']}", file);
	OK("capture.start", params);
	OK("vlan.del", "{'name':'p1.5'}");
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	OK("vlan.add", "{'name':'p1.6','port':'p1','id':6,'tap':false}");
	CHECK(dp[1].vlan_if != NULL && dp[1].vlan_if[6] == 3, "p1.6 in p1.5's slot");
	res = OK("capture.get", NULL);
	CHECK(json_is_true(json_object_get(res, "running")), "the capture of p0 goes on");
	CHECK(json_array_size(json_object_get(res, "ports")) == 1 &&
	      strcmp(json_string_value(json_array_get(json_object_get(res, "ports"), 0)),
		     "p0") == 0, "the filter names p0 only, not p1.6 in p1.5's slot");
	OK("capture.stop", NULL);
	unlink(file);

	/* A filter of p1.6 alone: nothing left to capture once it goes. */
	snprintf(params, sizeof(params), "{'file':'%s','drops':'all','ports':['p1.6']}", file);
	OK("capture.start", params);
	OK("vlan.del", "{'name':'p1.6'}");
	res = OK("capture.get", NULL);
	CHECK(json_is_false(json_object_get(res, "running")), "a capture of p1.6 alone stops");
	CHECK(strstr(json_string_value(json_object_get(res, "stopped")) ?: "", "p1.6") != NULL,
	      "it says p1.6 was deleted");
	unlink(file);
	dpr_capture_free(&R);
}

/*
 * An output ACL on VLAN interface p1.5 (slot 2) kept a packet the control
 * thread sent from leaving: stats.get counts it as p1.5's
 * (acl.control_thread_out_drops). vlan.del takes the count with the
 * interface: the next interface in its slot, p1.6, starts from nothing, as
 * its other counters do. Deletes p1.5.
 */
static void
acl_iface_gone(void)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("rpc_acl", 63, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_mbuf *m;
	json_t *res, *drops;

	R.acl = dpr_acl_db_create(NULL, 1, 0);
	CHECK(mp != NULL && R.acl != NULL, "alloc");
	if (mp == NULL || R.acl == NULL)
		return;
	OK("acl.set", "{'name':'closed','default':'deny'}");
	OK("acl.bind", "{'name':'closed','interface':'p1.5','direction':'out'}");
	m = rte_pktmbuf_alloc(mp);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip));
	memset(eth, 0, sizeof(*eth) + sizeof(*ip));
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = RTE_BE16(sizeof(*ip));
	ip->time_to_live = 64;
	ip->src_addr = RTE_BE32(0x0a050001);
	ip->dst_addr = RTE_BE32(0x0a050002);
	CHECK_EQ(dpr_acl_ctl_out(R.acl, 2, m), DPR_ACL_DENY);
	rte_pktmbuf_free(m);
	res = OK("stats.get", NULL);
	drops = json_object_get(json_object_get(res, "acl"), "control_thread_out_drops");
	HAS_INT(drops, "p1.5", 1);
	OK("vlan.del", "{'name':'p1.5'}");
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	OK("vlan.add", "{'name':'p1.6','port':'p1','id':6,'tap':false}");
	CHECK(R.port_dp[1].vlan_if[6] == 3, "p1.6 in p1.5's slot");
	res = OK("stats.get", NULL);
	drops = json_object_get(json_object_get(res, "acl"), "control_thread_out_drops");
	CHECK(json_object_size(drops) == 0,
	      "p1.6 in p1.5's slot inherits none of its ACL drops (%zu interfaces with some)",
	      json_object_size(drops));
	OK("vlan.del", "{'name':'p1.6'}");
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	OK("vlan.add", "{'name':'p1.5','port':'p1','id':5,'tap':false,'addresses':['10.5.0.1/24']}");
	OK("acl.del", "{'name':'closed'}");
	dpr_acl_db_free(R.acl);
	R.acl = NULL;
	rte_mempool_free(mp);
}

/*
 * Whether doctor.get's findings on the running config (its VRFs and VLAN
 * interfaces) have one whose subject is @p subject and whose message holds
 * @p text.
 */
static bool
doctor_finds(const char *subject, const char *text)
{
	json_t *cfg = json_object_get(OK("doctor.get", "{'machine':false}"), "config"), *f;
	size_t i;

	json_array_foreach(cfg, i, f)
		if (strcmp(json_string_value(json_object_get(f, "subject")) ?: "", subject) == 0 &&
		    strstr(json_string_value(json_object_get(f, "message")) ?: "", text) != NULL)
			return true;
	return false;
}

/*
 * A worker's fast path takes frames up to the smallest MTU of the
 * interfaces (fast_max_len): vlan.add of an interface of MTU 1000 lowers
 * it, and its vlan.del raises it again, or every frame over 1014 bytes
 * between the 1500-byte ports would go on taking the reference path. @p dp
 * is the ports' datapath view.
 */
static void
fast_path_after_vlan_del(struct dpr_port_dp *dp)
{
	struct dpr_worker *w = rte_zmalloc("rpc_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);

	CHECK(w != NULL, "alloc");
	if (w == NULL)
		return;
	dp[0].mtu = dp[1].mtu = 1500;
	w->ports = dp;
	w->n_ports = (uint16_t)R.n_ports;
	w->fast_max_len = 1500 + RTE_ETHER_HDR_LEN;
	R.workers[0] = w;
	R.n_workers = 1;
	OK("vlan.add", "{'name':'p1.7','port':'p1','id':7,'mtu':1000,'tap':false}");
	CHECK_EQ(w->fast_max_len, 1000u + RTE_ETHER_HDR_LEN);
	OK("vlan.del", "{'name':'p1.7'}");
	CHECK(w->fast_max_len == 1500u + RTE_ETHER_HDR_LEN,
	      "vlan.del of the 1000-byte interface gives 1500-byte frames the fast path again (fast_max_len %u)",
	      w->fast_max_len);
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	R.n_workers = 0;
	R.workers[0] = NULL;
	memset(&R.retired[0], 0, sizeof(R.retired[0]));
	dp[0].mtu = dp[1].mtu = 0;
	rte_free(w);
}

/*
 * vrf.add, vrf.del, vlan.add, vlan.del: a VRF and a VLAN interface in it
 * come and go, with what is refused on the way; the tables check after
 * every request (send_raw()), and config.get shows them while they are.
 */
static void
test_vrf_vlan_live(void)
{
	static struct dpr_port_dp dp[DPR_MAX_PORTS];
	json_t *res, *v;
	unsigned int p;

	/* What vlan.add needs beside the rig: the ports' datapath view and a
	 * router-owned interface table. */
	R.conf = (struct dpr_config *)(uintptr_t)R.cfg;
	R.port_dp = dp;
	R.n_ports = R.cfg->n_ports;
	for (p = 0; p < R.n_ports; p++)
		R.ports[p].conf = &R.cfg->ports[p];

	res = OK("vrf.add", "{'name':'red','table':100,'fib':{'ipv4_algorithm':'poptrie','ipv6_algorithm':'poptrie','ipv4_max_routes':1024}}");
	HAS_STR(res, "ipv4_algorithm", "poptrie");
	/* doctor.get sees the running VRFs, not the file's: red, which no
	 * interface is in yet. */
	CHECK(doctor_finds("red", "no port or VLAN interface is in it"),
	      "doctor.get: red, added at run time, has no interface yet");
	/* Poptrie has no tbl8 groups: stats.get says 0, not the setting. */
	res = OK("stats.get", NULL);
	v = json_array_get(json_object_get(res, "vrfs"), 1);
	HAS_STR(v, "name", "red");
	v = json_object_get(v, "fib");
	HAS_INT(v, "ipv4_tbl8_groups", 0);
	HAS_INT(v, "ipv6_tbl8_groups", 0);
	HAS_INT(v, "ipv6_deep_groups", 0);
	HAS_INT(json_object_get(res, "fib"), "ipv4_tbl8_groups", R.fib4->conf.tbl8_groups);
	ERR(DPR_RPC_EXISTS, "vrf.add", "{'name':'red','table':101}", "exists already");
	ERR(DPR_RPC_EXISTS, "vrf.add", "{'name':'blue','table':100}", "table 100 is VRF red's already");
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'blue','table':254}", "the kernel's own");
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'default','table':7}", "name \"default\"");
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'blue','table':7,'fib':{'ipv4_algorithm':'x'}}",
	    "expected \"dir-24-8\" or \"poptrie\"");
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'blue','table':7,'size':1}",
	    "unknown parameter \"size\"");
	/* The fib is checked as the config file's: the same keys and ranges. */
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'blue','table':7,'fib':{'ipv4_max_routes':8}}",
	    "vrf.add blue: fib.ipv4_max_routes: expected an integer from 16");
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'blue','table':7,'fib':{'learned_neighbors_max':8}}",
	    "fib: unknown key \"learned_neighbors_max\"");
	ERR(DPR_RPC_INVALID_PARAMS, "vrf.add", "{'name':'blue'}", "missing parameter \"table\"");

	/* A VLAN interface's uRPF is its own (off by default), not its
	 * port's, as in the config file. */
	dp[0].urpf = 2;
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.100','port':'p0','id':100,'urpf':'on'}",
	    "urpf \"on\": expected \"strict\", \"loose\" or \"off\"");
	/* A TAP name as the config file takes it: it goes into net_tap's
	 * devargs, where a ',' would add an argument ("remote=" mirrors
	 * another interface's traffic). Nothing is opened. */
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.100','port':'p0','id':100,'tap':'t,remote=p0'}",
	    "tap \"t,remote=p0\": expected a Linux interface name (1 to 15 letters");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.100','port':'p0','id':100,'tap':'a b'}",
	    "tap \"a b\": expected a Linux interface name");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.100','port':'p0','id':100,'tap':true}",
	    "tap \"\": expected a Linux interface name");
	CHECK_EQ(R.cfg->n_ports, 2u);
	res = OK("vlan.add", "{'name':'p0.100','port':'p0','id':100,'vrf':'red','tap':false,'addresses':['10.0.1.1/24']}");
	HAS_STR(res, "vrf", "red");
	HAS_STR(res, "urpf", "off");
	CHECK(dp[2].urpf == 0, "p0.100 has no uRPF though p0 has strict");
	dp[0].urpf = 0;
	CHECK_EQ(R.cfg->n_ports, 3u);
	CHECK(dp[0].vlan_if != NULL && dp[0].vlan_if[100] == 3, "p0's VLAN map names slot 2 for VLAN 100");
	CHECK(dp[2].vlan_tci == 100 && dp[2].fib4 == R.vrfs[1].rib->fib4,
	      "p0.100 tags 100 and looks up in red");
	/* route.list by an interface alone: its VRF's routes through it. */
	{
		json_t *rl = json_object_get(OK("route.list", "{'port':'p0.100'}"), "routes");
		bool subnet = false;
		size_t k;

		for (k = 0; k < json_array_size(rl); k++)
			subnet |= strcmp(json_string_value(json_object_get(json_array_get(rl, k),
									   "prefix")) ?: "",
					 "10.0.1.0/24") == 0;
		CHECK(subnet, "route.list port p0.100 (no vrf): red's 10.0.1.0/24 through it");
		CHECK_EQ(json_array_size(json_object_get(OK("route.list", "{'port':'p0.100','vrf':'default'}"),
							 "routes")), 0u);
	}
	ERR(DPR_RPC_EXISTS, "vlan.add", "{'name':'p0.x','port':'p0','id':100,'tap':false}",
	    "VLAN 100 on port p0 is p0.100's already");
	ERR(DPR_RPC_EXISTS, "vlan.add", "{'name':'p0.100','port':'p1','id':100,'tap':false}",
	    "exists already");
	/* Telemetry keys read '-' and '.' as '_': p0_100 would share
	 * p0.100's (/dpr/stats port/p0_100/...). */
	ERR(DPR_RPC_EXISTS, "vlan.add", "{'name':'p0_100','port':'p1','id':101,'tap':false}",
	    "name \"p0_100\": reads as interface p0.100's in DPDK telemetry keys");
	ERR(DPR_RPC_EXISTS, "vlan.add", "{'name':'p0-100','port':'p1','id':101,'tap':false}",
	    "reads as interface p0.100's");
	ERR(DPR_RPC_NOT_FOUND, "vlan.add", "{'name':'q.1','port':'q','id':1}", "no port \"q\"");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.1','port':'p0.100','id':1}",
	    "a VLAN interface is on a port");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.0','port':'p0','id':0,'tap':false}",
	    "expected a VLAN id from 1 to 4094");
	ERR(DPR_RPC_NOT_FOUND, "vlan.add", "{'name':'p0.7','port':'p0','id':7,'vrf':'blue'}",
	    "no VRF \"blue\"");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'p0.7','port':'p0','id':7,'addresses':['10.0.1.0/24']}",
	    "p0.7");
	CHECK_EQ(R.cfg->n_ports, 3u);

	/* The same subnet in two VRFs; a route through the VLAN holds it. */
	OK("route.add", "{'prefix':'10.66.0.0/16','via':'10.0.1.9','vrf':'red'}");
	ERR(DPR_RPC_REFUSED, "vlan.del", "{'name':'p0.100'}", "routes go through gateway 10.0.1.9");
	ERR(DPR_RPC_REFUSED, "vrf.del", "{'name':'red'}", "has interfaces in it: p0.100");
	ERR(DPR_RPC_REFUSED, "vrf.del", "{'name':'default'}", "cannot be deleted");
	ERR(DPR_RPC_NOT_FOUND, "vrf.del", "{'name':'blue'}", "no VRF \"blue\"");
	ERR(DPR_RPC_REFUSED, "vlan.del", "{'name':'p0'}", "is a port, not a VLAN interface");

	res = OK("config.get", NULL);
	v = json_array_get(json_object_get(res, "vlans"), 0);
	HAS_STR(v, "name", "p0.100");
	HAS_STR(v, "vrf", "red");
	HAS_STR(json_array_get(json_object_get(res, "vrfs"), 0), "name", "red");
	/* Red's route and the default VRF's, paged. */
	OK("route.add", "{'prefix':'10.67.0.0/16','via':'10.0.1.9','vrf':'red'}");
	config_get_pages(1);
	config_get_pages(2);
	OK("route.del", "{'prefix':'10.67.0.0/16','vrf':'red'}");
	config_get_vrf_whole();

	OK("route.del", "{'prefix':'10.66.0.0/16','vrf':'red'}");
	OK("vlan.del", "{'name':'p0.100'}");
	CHECK_EQ(R.cfg->n_ports, 2u);
	CHECK(dp[0].vlan_if == NULL, "p0 has no VLAN map once its last VLAN interface went");
	res = OK("port.list", NULL);
	CHECK_EQ(json_array_size(res), 2u);
	CHECK(doctor_finds("", "2 VRFs"), "doctor.get: the default VRF and red");
	/* A route of red's own (no interface holds it) goes with it. */
	OK("vrf.del", "{'name':'red'}");
	/* Gone for doctor.get too; a VRF added then in red's slot is named
	 * as itself. */
	CHECK(!doctor_finds("red", "") && !doctor_finds("", "VRFs"),
	      "doctor.get: red and its VRF count went with vrf.del");
	OK("vrf.add", "{'name':'blue','table':101,'fib':{'ipv4_algorithm':'poptrie','ipv6_algorithm':'poptrie'}}");
	CHECK(doctor_finds("blue", "VRF blue (table 101): no port") && !doctor_finds("red", ""),
	      "doctor.get: blue in red's slot, red not named");
	OK("vrf.del", "{'name':'blue'}");
	res = OK("vrf.list", NULL);
	CHECK_EQ(json_array_size(res), 1u);
	ERR(DPR_RPC_NOT_FOUND, "vlan.del", "{'name':'p0.100'}", "no VLAN interface");
	/* A free slot is nobody's, not an interface named "". */
	ERR(DPR_RPC_NOT_FOUND, "addr.add", "{'port':'','address':'10.9.9.1/24'}", "no port \"\"");

	/* The freed slot waits until every exception ring ran empty since
	 * (p0.100's packets may be on one; they would pass for the next
	 * interface's): the next vlan.add takes slot 3. */
	OK("vlan.add", "{'name':'p1.5','port':'p1','id':5,'tap':false,'addresses':['10.5.0.1/24']}");
	CHECK(dp[1].vlan_if != NULL && dp[1].vlan_if[5] == 4, "p1.5 in slot 3, slot 2 draining");
	OK("vlan.del", "{'name':'p1.5'}");
	/* The control loop found every ring empty (drain_exceptions()). */
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	OK("vlan.add", "{'name':'p1.5','port':'p1','id':5,'tap':false,'addresses':['10.5.0.1/24']}");
	CHECK(dp[1].vlan_if != NULL && dp[1].vlan_if[5] == 3, "p1.5 in slot 2 once drained");
	acl_iface_gone();
	capture_iface_gone(dp);
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	/* With no other slot free, vlan.add says to retry. */
	for (p = 1; p <= DPR_MAX_PORTS - 2; p++) {
		char params[96];

		snprintf(params, sizeof(params), "{'name':'p1.%u','port':'p1','id':%u,'tap':false}", p, p);
		OK("vlan.add", params);
	}
	ERR(DPR_RPC_NO_SPACE, "vlan.add", "{'name':'p1.99','port':'p1','id':99,'tap':false}",
	    "no free interface slot: dpr has 32");
	OK("vlan.del", "{'name':'p1.7'}");
	ERR(DPR_RPC_NO_SPACE, "vlan.add", "{'name':'p1.99','port':'p1','id':99,'tap':false}",
	    "no free interface slot yet", "retry");
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	OK("vlan.add", "{'name':'p1.99','port':'p1','id':99,'tap':false}");
	CHECK(dp[1].vlan_if[99] == dp[1].vlan_if[6] + 1, "p1.99 in p1.7's slot");
	for (p = 1; p <= DPR_MAX_PORTS - 2; p++) {
		char params[64];

		snprintf(params, sizeof(params), "{'name':'p1.%u'}", p == 7 ? 99 : p);
		OK("vlan.del", params);
	}
	CHECK(dp[1].vlan_if == NULL, "p1 has no VLAN map once its last VLAN interface went");
	dpr_router_slots_drained(&R, dpr_router_slots_mark(&R));
	fast_path_after_vlan_del(dp);

	/* QinQ: the pair in p1's QinQ map (and p1 with a VLAN map, empty),
	 * the outer tag for TX in the interface's slot. */
	res = OK("vlan.add", "{'name':'p1.100.20','port':'p1','outer_id':100,'id':20,'tap':false}");
	HAS_STR(res, "outer_proto", "802.1ad");
	CHECK(dp[1].qinq != NULL && dp[1].qinq->inner[100] != NULL &&
	      dp[1].qinq->inner[100][20] == 3, "p1's QinQ map names slot 2 for 100.20");
	CHECK(dp[1].vlan_if != NULL && dp[1].vlan_if[20] == 0 && dp[1].vlan_if[100] == 0,
	      "p1 has a VLAN map, without 20 or 100 in it");
	/* p1 had no VLAN interface left: its workers split its bursts from
	 * now on, or its QinQ frames would be dropped as unknown_vlan. */
	CHECK(dp[1].in_stages & DPR_IN_VLAN, "p1's bursts go through the VLAN stage (QinQ demux)");
	CHECK(dp[2].vlan_tci == 20 && dp[2].vlan_outer == DPR_QINQ_OUTER(0x88a8, 100),
	      "p1.100.20 tags 0x88a8 100, then 20");
	ERR(DPR_RPC_EXISTS, "vlan.add", "{'name':'x','port':'p1','outer_id':100,'id':20,'outer_proto':'802.1q','tap':false}",
	    "VLAN 100.20 on port p1 is p1.100.20's already");
	/* An 802.1ad outer id may be a single-tagged id; an 802.1q one not. */
	OK("vlan.add", "{'name':'p1.100','port':'p1','id':100,'tap':false}");
	ERR(DPR_RPC_EXISTS, "vlan.add", "{'name':'y','port':'p1','outer_id':100,'id':21,'outer_proto':'802.1q','tap':false}",
	    "share the 0x8100 tag 100");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'y','port':'p1','outer_id':4095,'id':21,'tap':false}",
	    "outer_id 4095: expected a VLAN id from 1 to 4094");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'y','port':'p1','outer_id':5,'id':21,'outer_proto':'0x9100'}",
	    "expected \"802.1ad\" (TPID 0x88a8, the default) or \"802.1q\"");
	ERR(DPR_RPC_INVALID_PARAMS, "vlan.add", "{'name':'y','port':'p1','id':21,'outer_proto':'802.1q'}",
	    "only a QinQ interface (with outer_id) has an outer tag");
	res = OK("config.get", NULL);
	v = json_array_get(json_object_get(res, "vlans"), 0);
	HAS_STR(v, "name", "p1.100.20");
	CHECK(json_integer_value(json_object_get(v, "outer_id")) == 100 &&
	      json_object_get(v, "outer_proto") == NULL, "config.get: outer_id 100, 802.1ad unsaid");
	res = OK("port.list", NULL);
	HAS_STR(json_array_get(res, 2), "outer_proto", "802.1ad");
	OK("vlan.del", "{'name':'p1.100.20'}");
	CHECK(dp[1].qinq->inner[100][20] == 0, "p1's QinQ map forgets 100.20");
	OK("vlan.del", "{'name':'p1.100'}");
	CHECK(dp[1].vlan_if != NULL, "p1 keeps its VLAN map while it has a QinQ map");
	dpr_qinq_map_free(&dp[1]);
	rte_free((void *)(uintptr_t)dp[1].vlan_if);
	dp[1].vlan_if = NULL;

	R.conf = NULL;
	R.port_dp = NULL;
	R.n_ports = 0;
}

/*
 * RFC 8200 5: an IPv6 link MUST have an MTU of at least 1280. p1's is 1000:
 * no IPv6 address (global or link-local), IPv6 gateway, IPv6 route or IPv6
 * neighbour on it, each refused naming the rule, and no link-local address
 * derived for it; its IPv4 works, and p0's IPv6.
 */
static void
test_mtu_below_1280(void)
{
	const uint8_t ll1[16] = { 0xfe, 0x80, [8] = 0x00, 0, 0, 0xff, 0xfe, 0, 0x02, 0x01 };
	const uint8_t ll0[16] = { 0xfe, 0x80, [8] = 0x00, 0, 0, 0xff, 0xfe, 0, 0x01, 0x01 };
	const struct dpr_prefix *a;
	struct snapshot before = snap();
	unsigned int n, k, v6;

	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'2001:db8:2::1/64'}",
	    "port p1", "RFC 8200 5", "raise its mtu to 1280");
	ERR(DPR_RPC_INVALID_PARAMS, "addr.add", "{'port':'p1','address':'fe80::5/64'}",
	    "RFC 8200 5");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add",
	    "{'prefix':'2001:db8:9::/48','via':'fe80::2','port':'p1'}", "port p1", "RFC 8200 5");
	ERR(DPR_RPC_INVALID_PARAMS, "route.add", "{'prefix':'2001:db8:9::/48','port':'p1'}",
	    "RFC 8200 5");
	/* RFC 5549's IPv6 gateway needs NDP on the link too. */
	ERR(DPR_RPC_INVALID_PARAMS, "route.add",
	    "{'prefix':'10.9.0.0/16','via':'fe80::2','port':'p1'}", "RFC 8200 5");
	ERR(DPR_RPC_INVALID_PARAMS, "neigh.add",
	    "{'address':'fe80::2','mac':'02:00:00:00:02:02','port':'p1'}", "RFC 8200 5");
	SAME(snap(), before);

	/* Its link-local address is not made; p0's is. */
	CHECK_EQ(dpr_route_link_local(&R.rib, &R.addrs, 1, ll1), 0);
	CHECK_EQ(dpr_route_link_local(&R.rib, &R.addrs, 0, ll0), 0);
	a = dpr_ifaddr_list(&R.addrs, 1, &n);
	for (k = 0, v6 = 0; k < n; k++)
		v6 += a[k].addr.af == DPR_AF_IP6;
	CHECK(n == 1 && v6 == 0, "p1 has its IPv4 address only (%u, %u IPv6)", n, v6);
	a = dpr_ifaddr_list(&R.addrs, 0, &n);
	CHECK(n == 3 && dpr_ip_is_link_local(&a[2].addr), "p0 has its link-local address (%u)", n);

	/* IPv4 as ever, at any MTU; p0's IPv6 too. */
	OK("addr.add", "{'port':'p1','address':'10.0.3.1/24'}");
	OK("route.add", "{'prefix':'10.9.0.0/16','via':'10.0.2.2'}");
	OK("route.add", "{'prefix':'2001:db8:9::/48','via':'2001:db8:1::2'}");
	OK("route.del", "{'prefix':'2001:db8:9::/48'}");
	OK("route.del", "{'prefix':'10.9.0.0/16'}");
	OK("addr.del", "{'port':'p1','address':'10.0.3.1/24'}");
}

int
main(int argc, char **argv)
{
	struct snapshot start;

	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return EXIT_FAILURE;
	}
	if (test_router_init(&R, config_text, "test_rpc") < 0)
		return EXIT_FAILURE;
	R.n_workers = 0;
	R.n_ports = 0;
	CHECK_EQ(R.fib4->n_routes, CONFIG_ROUTES);
	start = snap();

	test_protocol();
	test_route_add();
	test_route_replace();
	test_route_del();
	test_route_get();
	test_route_list();
	test_route_load();
	test_route_load_full();
	test_route_churn();
	test_addr();
	addr_shadows("10.88.0.0/24", "10.0.2.2", "p0", "10.88.0.1/24", "10.88.0.5");
	addr_nested("10.0.3.1/24", "10.0.3.129/25", "10.0.3.255", "broadcast");
	addr_fib_full();
	neigh_add_fib_full();
	config_get_stranded();
	route_load_full_count();
	test_neigh();
	test_read_only();
	test_capture_file();
	test_vrf_vlan_live();

	/* Whatever was added was removed: the state is as configured. */
	OK("route.del", "{'prefix':'172.16.0.0/12'}");
	SAME(snap(), start);
	test_router_free(&R);

	/* Both families. */
	memset(&R, 0, sizeof(R));
	if (test_router_init(&R, config6_text, "test_rpc (IPv6)") < 0)
		return EXIT_FAILURE;
	start = snap();
	test6_config();
	test6_nexthop_scope();
	test6_v4_via_v6();
	test6_route_add();
	test6_route_list();
	test6_route_load();
	route6_load_full(false);
	route6_load_full(true);
	test6_addr();
	addr_shadows("2001:db8:88::/64", "2001:db8:2::2", "p0", "2001:db8:88::1/64",
		     "2001:db8:88::5");
	addr_nested("2001:db8:3::1/64", "2001:db8:3::1:1/48", "2001:db8:3::", "local");
	test6_ll_elsewhere();
	test6_neigh();
	test6_read_only();
	SAME(snap(), start);

	test_router_free(&R);

	memset(&R, 0, sizeof(R));
	if (test_router_init(&R, config_small_mtu_text, "test_rpc (MTU 1000)") < 0)
		return EXIT_FAILURE;
	test_mtu_below_1280();

	json_decref(last);
	test_router_free(&R);
	return test_done("test_rpc");
}
