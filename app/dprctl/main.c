/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dprctl: the command-line client of dpr's control socket.
 *
 *   dprctl [-s SOCKET] [--json] [-6] COMMAND ...
 *
 * Talks JSON-RPC 2.0, one request per line. Commands follow iproute2's
 * words and order where dpr has the same concept (addr add ADDRESS dev
 * PORT, route add default via GATEWAY, neigh add ADDRESS lladdr MAC);
 * each is a row of cmds[], with its syntax and an example for help.
 * Exit status: 0 done, 1 dpr refused the request, 2 bad usage, 3 cannot
 * reach dpr.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define DEFAULT_SOCKET "/run/dpr/dpr.sock"
#define LOAD_CHUNK 20000
#define LIST_PAGE 5000

static const char *sock_path;
static bool json_out;
static int sock = -1;
static char *rbuf;
static size_t rbuf_len, rbuf_cap;
static unsigned int next_id = 1;
/* "vrf NAME" anywhere after the command: the VRF its requests are about. */
static const char *vrf_name;

static void __attribute__((format(printf, 2, 3), noreturn))
die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dprctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(status);
}

/* @p s as a JSON string, or exit 2 saying why not: JSON carries UTF-8
 * only, and a parameter dropped for it would change the request. */
static json_t *
arg_string(const char *s)
{
	json_t *v = json_string(s);

	if (v == NULL)
		die(2, "\"%s\": not UTF-8 text (dpr's requests are JSON, which carries UTF-8 only)", s);
	return v;
}

/* An object of string members, NULL-terminated pairs of key and value,
 * each value through arg_string(): json_pack() would answer NULL for a
 * value that is not UTF-8, and the request would go without its params
 * ("addr list dev PORT" listing every port's addresses). */
static json_t * __attribute__((sentinel))
str_object(const char *key, ...)
{
	json_t *o = json_object();
	va_list ap;

	va_start(ap, key);
	for (; key != NULL; key = va_arg(ap, const char *))
		json_object_set_new(o, key, arg_string(va_arg(ap, const char *)));
	va_end(ap);
	return o;
}

static void
connect_dpr(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(sock_path) >= sizeof(sa.sun_path))
		die(2, "socket path too long: %s", sock_path);
	strcpy(sa.sun_path, sock_path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(3, "cannot connect to %s: %s (is dpr running? -s picks another socket)",
		    sock_path, strerror(errno));
}

static void
send_all(const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = send(sock, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(3, "lost the connection to dpr: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

/* One response line. */
static json_t *
recv_response(void)
{
	size_t scanned = 0;
	json_error_t je;
	json_t *resp;
	char *nl;

	for (;;) {
		nl = rbuf_len > scanned ? memchr(rbuf + scanned, '\n', rbuf_len - scanned) : NULL;
		if (nl != NULL)
			break;
		scanned = rbuf_len;
		if (rbuf_cap - rbuf_len < 65536) {
			rbuf_cap = rbuf_cap ? rbuf_cap * 2 : 1 << 20;
			rbuf = realloc(rbuf, rbuf_cap);
			if (rbuf == NULL)
				die(1, "out of memory");
		}
		ssize_t n = recv(sock, rbuf + rbuf_len, rbuf_cap - rbuf_len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(3, "dpr closed the connection%s", n < 0 ? strerror(errno) : "");
		rbuf_len += (size_t)n;
	}
	resp = json_loadb(rbuf, (size_t)(nl - rbuf), 0, &je);
	rbuf_len -= (size_t)(nl - rbuf) + 1;
	memmove(rbuf, nl + 1, rbuf_len);
	if (resp == NULL)
		die(3, "unreadable answer from dpr: %s", je.text);
	return resp;
}

/* Send @p method with @p params (stolen) and wait for the response. */
static json_t *
request(const char *method, json_t *params)
{
	json_t *req = json_pack("{s:s,s:i,s:s}", "jsonrpc", "2.0", "id", next_id++,
				"method", method);
	char *text;

	/* The methods of one VRF's tables take it; the others have none. */
	if (vrf_name != NULL && (strncmp(method, "route.", 6) == 0 ||
				 strncmp(method, "neigh.", 6) == 0)) {
		if (params == NULL)
			params = json_object();
		json_object_set_new(params, "vrf", arg_string(vrf_name));
	}
	if (params != NULL)
		json_object_set_new(req, "params", params);
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (text == NULL)
		die(1, "out of memory");
	if (sock < 0)
		connect_dpr();
	send_all(text, strlen(text));
	send_all("\n", 1);
	free(text);
	return recv_response();
}

/* JSON-RPC methods and the dprctl commands that send them, for messages:
 * a person reads "route replace", not "route.replace". */
static const char *const method_cmds[][2] = {
	{ "route.add", "route add" }, { "route.replace", "route replace" },
	{ "route.del", "route del" }, { "route.get", "route get" },
	{ "route.list", "route list" }, { "route.load", "route load" },
	{ "addr.add", "addr add" }, { "addr.del", "addr del" }, { "addr.list", "addr list" },
	{ "neigh.add", "neigh add" }, { "neigh.del", "neigh del" },
	{ "neigh.list", "neigh list" }, { "port.list", "port list" },
	{ "port.show", "port show" }, { "stats.get", "stats" }, { "doctor.get", "doctor" },
	{ "capture.start", "capture" }, { "capture.get", "capture status" },
	{ "capture.stop", "capture stop" }, { "config.get", "config show" },
	{ "rib.check", "rib check" }, { "vrf.list", "vrf list" }, { "acl.set", "acl set" },
	{ "acl.get", "acl show" }, { "acl.list", "acl list" }, { "acl.bind", "acl bind" },
	{ "acl.unbind", "acl unbind" }, { "acl.del", "acl del" },
	{ "vrf.add", "vrf add" }, { "vrf.del", "vrf del" }, { "vlan.add", "vlan add" },
	{ "vlan.del", "vlan del" },
};

/* dpr's message @p msg with each method named as its dprctl command: at
 * the start as the command ("route add 10.0.0.0/8: exists ..."), later as
 * what to run ("use `dprctl route replace`"). */
static void
print_error(const char *msg)
{
	const char *p = msg;
	size_t i, n;

	fprintf(stderr, "dprctl: ");
	while (*p != '\0') {
		for (i = 0; i < sizeof(method_cmds) / sizeof(method_cmds[0]); i++) {
			n = strlen(method_cmds[i][0]);
			if (strncmp(p, method_cmds[i][0], n) == 0 &&
			    (p == msg || !(p[-1] == '.' || p[-1] == '_' || isalnum((unsigned char)p[-1]))) &&
			    !(p[n] == '.' || p[n] == '_' || isalnum((unsigned char)p[n])))
				break;
		}
		if (i < sizeof(method_cmds) / sizeof(method_cmds[0])) {
			fprintf(stderr, p == msg ? "%s" : "`dprctl %s`", method_cmds[i][1]);
			p += n;
		} else {
			fputc(*p++, stderr);
		}
	}
	fputc('\n', stderr);
}

/* Call @p method; returns its result or exits with dpr's error message. */
static json_t *
call(const char *method, json_t *params)
{
	json_t *resp = request(method, params), *err, *res;

	err = json_object_get(resp, "error");
	if (err != NULL) {
		const char *msg = json_string_value(json_object_get(err, "message"));

		if (msg != NULL)
			print_error(msg);
		else
			fprintf(stderr, "dprctl: dpr refused the request (error %" JSON_INTEGER_FORMAT ")\n",
				json_integer_value(json_object_get(err, "code")));
		exit(1);
	}
	res = json_incref(json_object_get(resp, "result"));
	json_decref(resp);
	return res;
}

static void
print_json(json_t *v)
{
	json_dumpf(v, stdout, JSON_INDENT(2));
	printf("\n");
}

static const char *
str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

static json_int_t
num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* --- route ------------------------------------------------------------- */

/* -6 on the line: "default" is ::/0 (as iproute2's ip -6). */
static bool family6;

/* "default" as iproute2 reads it: 0.0.0.0/0, or ::/0 with -6 or an IPv6
 * gateway among the words after it. */
static const char *
prefix_word(int argc, char **argv)
{
	int i;

	if (strcmp(argv[0], "default") != 0)
		return argv[0];
	for (i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "via") == 0 && strcmp(argv[i + 1], "inet6") != 0 &&
		    strchr(argv[i + 1], ':') != NULL)
			return "::/0";
	return family6 ? "::/0" : "0.0.0.0/0";
}

/*
 * PREFIX|default [via GW] [dev PORT] into params; several "via GW [dev PORT]
 * [weight W]" into "nexthops" (multipath). "dev" and "weight" belong to
 * the "via" they follow (before any, to the first), as the server reads
 * route.load lines.
 */
static json_t *
route_params(int argc, char **argv)
{
	json_t *p, *nhs = json_array(), *nh = NULL;
	bool weighted = false;
	int i;

	/* iproute2's route types other than unicast, before the prefix or
	 * after it: read as a prefix or a keyword missing its value, they
	 * would get a message about something else. */
	for (i = 0; i < argc; i++)
		if ((i == 0 || (strcmp(argv[i - 1], "dev") != 0 && strcmp(argv[i - 1], "port") != 0)) &&
		    (strcmp(argv[i], "blackhole") == 0 || strcmp(argv[i], "unreachable") == 0 ||
		     strcmp(argv[i], "prohibit") == 0 || strcmp(argv[i], "throw") == 0))
			die(2, "%s routes: dpr takes only routes via a gateway or out of a port from dprctl: route add PREFIX via GATEWAY [dev PORT], or PREFIX dev PORT",
			    argv[i]);
	if (argc < 2)
		die(2, "give a prefix and where it goes: route add PREFIX via GATEWAY [dev PORT], or PREFIX dev PORT (dprctl help route add)");
	p = str_object("prefix", prefix_word(argc, argv), NULL);
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			die(2, "\"%s\" needs a value", argv[i]);
		if (nh == NULL || (strcmp(argv[i], "via") == 0 && json_object_get(nh, "via") != NULL)) {
			nh = json_object();
			json_array_append_new(nhs, nh);
		}
		if (strcmp(argv[i], "via") == 0) {
			/* iproute2's "via inet6 GW": an IPv6 gateway for an
			 * IPv4 route (RFC 8950); "default" stays IPv4. The
			 * family word must fit the gateway, as iproute2 and
			 * route.load's lines have it. */
			if (strcmp(argv[i + 1], "inet6") == 0 || strcmp(argv[i + 1], "inet") == 0) {
				const char *fam = argv[++i];

				if (i + 1 >= argc)
					die(2, "\"via %s\" needs a gateway", fam);
				if ((strchr(argv[i + 1], ':') != NULL) != (strcmp(fam, "inet6") == 0))
					die(2, "\"via %s %s\": not an %s address", fam, argv[i + 1],
					    strcmp(fam, "inet6") == 0 ? "IPv6" : "IPv4");
			}
			json_object_set_new(nh, "via", arg_string(argv[i + 1]));
		} else if ((strcmp(argv[i], "dev") == 0 || strcmp(argv[i], "port") == 0) &&
			   json_object_get(nh, "port") == NULL) {
			json_object_set_new(nh, "port", arg_string(argv[i + 1]));
		} else if (strcmp(argv[i], "weight") == 0 && json_object_get(nh, "weight") == NULL) {
			char *end;
			unsigned long w = strtoul(argv[i + 1], &end, 10);

			if (*end != '\0' || w < 1 || w > 256)
				die(2, "weight \"%s\": give an integer from 1 to 256", argv[i + 1]);
			json_object_set_new(nh, "weight", json_integer((json_int_t)w));
			weighted = true;
		} else {
			die(2, "unexpected \"%s\": expected via GATEWAY, dev PORT or weight W", argv[i]);
		}
	}
	if (json_array_size(nhs) > 1 || weighted) {
		json_object_set_new(p, "nexthops", nhs);
	} else {
		if (nh != NULL)
			json_object_update(p, nh);
		json_decref(nhs);
	}
	return p;
}

/* Who holds a route, as iproute2 puts "proto": "  source fpm proto bgp
 * stale"; nothing for the router's own (addresses, neighbours). Ends the line. */
static void
print_route_source(json_t *r)
{
	json_t *src = json_object_get(r, "source"), *proto = json_object_get(r, "protocol");

	if (json_is_string(src) && strcmp(json_string_value(src), "router") != 0)
		printf("  source %s", json_string_value(src));
	if (json_is_string(proto))
		printf(" proto %s", json_string_value(proto));
	if (json_is_true(json_object_get(r, "stale")))
		printf(" stale");
	printf("\n");
}

/* One route a line, a multipath one too (its next hops after ";");
 * IPv6 ones get wider columns (aligned among themselves). */
static void
print_route(json_t *r)
{
	const char *type = str(r, "type"), *prefix = str(r, "prefix");
	int pw = strchr(prefix, ':') != NULL ? 28 : 18, gw = pw == 18 ? 15 : 25;
	json_t *nh;
	size_t i;

	if (strcmp(type, "local") == 0 || strcmp(type, "broadcast") == 0 ||
	    strcmp(type, "blackhole") == 0 || strcmp(type, "unreachable") == 0) {
		printf("%-*s %s", pw, prefix, type);
	} else if (strcmp(type, "connected") == 0) {
		printf("%-*s dev %-11s connected", pw, prefix, str(r, "port"));
	} else if (strcmp(type, "multipath") == 0) {
		printf("%-*s multipath", pw, prefix);
		json_array_foreach(json_object_get(r, "nexthops"), i, nh)
			printf("%s via %s dev %s weight %" JSON_INTEGER_FORMAT "%s", i ? ";" : "",
			       str(nh, "via"), str(nh, "port"), num(nh, "weight"),
			       json_is_false(json_object_get(nh, "resolved")) ? ", unresolved" : "");
	} else {
		printf("%-*s via %-*s dev %-11s %s%s", pw, prefix, gw, str(r, "via"),
		       str(r, "port"), type,
		       json_is_false(json_object_get(r, "resolved")) ? ", unresolved" : "");
	}
	print_route_source(r);
}

/* route.get's params: "ADDRESS [from SRC] [proto P] [sport N] [dport N]". */
static json_t *
route_get_params(int argc, char **argv)
{
	static const char *const usage =
		"usage: route get ADDRESS [from SOURCE] [proto tcp|udp|icmp|icmpv6|N] [sport N] [dport N]";
	json_t *p;
	char *end;

	if (argc < 1 || argc % 2 != 1)
		die(2, "%s", usage);
	p = str_object("address", argv[0], NULL);
	for (argc--, argv++; argc >= 2; argc -= 2, argv += 2) {
		unsigned long v = strtoul(argv[1], &end, 10);
		bool number = argv[1][0] >= '0' && argv[1][0] <= '9' && *end == '\0';

		if (strcmp(argv[0], "from") == 0) {
			json_object_set_new(p, "source", arg_string(argv[1]));
		} else if (strcmp(argv[0], "proto") == 0) {
			json_object_set_new(p, "protocol", number ? json_integer((json_int_t)v) :
					    arg_string(argv[1]));
		} else if (strcmp(argv[0], "sport") == 0 || strcmp(argv[0], "dport") == 0) {
			if (!number)
				die(2, "route get: %s \"%s\": expected a port number (0-65535)",
				    argv[0], argv[1]);
			json_object_set_new(p, argv[0][0] == 's' ? "source_port" : "destination_port",
					    json_integer((json_int_t)(v > 65536 ? 65536 : v)));
		} else {
			die(2, "route get: unknown word \"%s\"; %s", argv[0], usage);
		}
	}
	return p;
}

/* A number for @p what, or exit 2 naming it. */
static unsigned long long
number(const char *what, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0)
		die(2, "%s \"%s\": expected a number", what, s);
	return v;
}

static void
route_add(int argc, char **argv, const char *method)
{
	json_t *res = call(method, route_params(argc, argv)), *src = json_object_get(res, "source");

	if (json_out) {
		print_json(res);
	} else {
		print_route(res);
		/* The config's route of that prefix wins over the api's:
		 * this one is kept, and takes over when that one goes. */
		if (json_is_string(src) && strcmp(json_string_value(src), "api") != 0)
			printf("note: stored but not active: the %s's route above is preferred for %s; this one takes over if it goes (route list %s shows the sources)\n",
			       json_string_value(src), str(res, "prefix"), str(res, "prefix"));
	}
	json_decref(res);
}

static void
run_route_add(int argc, char **argv)
{
	route_add(argc, argv, "route.add");
}

static void
run_route_replace(int argc, char **argv)
{
	route_add(argc, argv, "route.replace");
}

static void
run_route_del(int argc, char **argv)
{
	json_t *res;

	if (argc != 1)
		die(2, "usage: route del PREFIX|default");
	res = call("route.del", str_object("prefix", prefix_word(argc, argv), NULL));
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_route_get(int argc, char **argv)
{
	json_t *res = call("route.get", route_get_params(argc, argv)), *m;

	if (json_out) {
		print_json(res);
	} else {
		print_route(res);
		m = json_object_get(res, "member");
		if (m != NULL)
			printf("  this flow: via %s dev %s\n", str(m, "via"), str(m, "port"));
	}
	json_decref(res);
}

/* route list [PREFIX|default] [source S] [dev PORT] [--limit N] */
static void
run_route_list(int argc, char **argv)
{
	static const char *const usage =
		"usage: route list [PREFIX|default] [source router|config|api|fpm|kernel] [dev PORT] [--limit N]";
	const char *source = NULL, *port = NULL, *prefix = NULL;
	uint64_t limit = UINT64_MAX, shown = 0;
	json_t *all = json_array(), *res, *r;
	char after[64] = "";
	size_t i;
	int k;

	for (k = 0; k < argc; k++) {
		if (k + 1 < argc && strcmp(argv[k], "--limit") == 0)
			limit = number("--limit", argv[++k]);
		else if (k + 1 < argc && strcmp(argv[k], "source") == 0)
			source = argv[++k];
		else if (k + 1 < argc && strcmp(argv[k], "dev") == 0)
			port = argv[++k];
		else if (prefix == NULL && (strchr(argv[k], '/') != NULL || strchr(argv[k], '.') != NULL ||
					    strchr(argv[k], ':') != NULL || strcmp(argv[k], "default") == 0))
			prefix = prefix_word(argc - k, argv + k);
		else
			die(2, "route list: unexpected \"%s\"; %s", argv[k], usage);
	}
	do {
		uint64_t page = limit - shown < LIST_PAGE ? limit - shown : LIST_PAGE;
		json_t *p = json_pack("{s:I}", "limit", (json_int_t)page);

		if (after[0] != '\0')
			json_object_set_new(p, "after", arg_string(after));
		if (source != NULL)
			json_object_set_new(p, "source", arg_string(source));
		if (port != NULL)
			json_object_set_new(p, "port", arg_string(port));
		if (prefix != NULL)
			json_object_set_new(p, "prefix", arg_string(prefix));
		res = call("route.list", p);
		json_array_foreach(json_object_get(res, "routes"), i, r) {
			if (json_out)
				json_array_append(all, r);
			else
				print_route(r);
			shown++;
		}
		after[0] = '\0';
		if (json_is_string(json_object_get(res, "next")))
			snprintf(after, sizeof(after), "%s", str(res, "next"));
		json_decref(res);
	} while (after[0] != '\0' && shown < limit);
	if (json_out)
		print_json(all);
	json_decref(all);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
progress(uint64_t done, long pos, long size, double t0)
{
	int width = 40, fill = size > 0 ? (int)((double)pos / (double)size * width) : 0;

	printf("\r[%.*s%*s] %3d%% %" PRIu64 " routes, %.1f s", fill,
	       "########################################", width - fill, "",
	       size > 0 ? (int)(100.0 * (double)pos / (double)size) : 0, done, now() - t0);
	fflush(stdout);
}

struct load_totals {
	uint64_t lines, added, deleted;
	json_t *last;  /**< the last chunk's result (the FIB's counts) */
};

/* Apply the first @p n routes of @p chunk (the lines before a bad one,
 * with --partial); quietly, the bad line is what to report. */
static void
load_head(json_t *chunk, size_t n, struct load_totals *t)
{
	json_t *head = json_array(), *resp, *res;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append(head, json_array_get(chunk, i));
	resp = request("route.load", json_pack("{s:o}", "routes", head));
	res = json_object_get(resp, "result");
	if (res != NULL) {
		t->added += (uint64_t)num(res, "added");
		t->deleted += (uint64_t)num(res, "deleted");
	}
	json_decref(resp);
}

/*
 * One pass over a route file, in chunks: route.load with "check" (nothing
 * applied) or for real. A refused chunk ends dprctl, naming the file and
 * line; @p applied says what it left behind.
 */
static void
load_pass(FILE *f, const char *file, bool check, bool bar, long size, double t0,
	  struct load_totals *t)
{
	unsigned long *lines = malloc(LOAD_CHUNK * sizeof(*lines)), lineno = 0;
	json_t *chunk = json_array(), *js;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (lines == NULL)
		die(1, "out of memory");
	for (;;) {
		n = getline(&line, &cap, f);
		if (n >= 0) {
			char *s = line, *e = line + n;

			lineno++;
			while (s < e && (*s == ' ' || *s == '\t'))
				s++;
			while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
				e--;
			*e = '\0';
			if (*s == '\0' || *s == '#')
				continue;
			js = json_string(s);
			if (js == NULL) {
				/* JSON carries UTF-8 only: the line cannot go, and
				 * is not to be left out without a word. */
				if (bar)
					printf("\n");
				if (check) {
					fprintf(stderr, "dprctl: %s:%lu: not UTF-8 text (nothing applied: the file is checked whole first; --partial applies the lines before a bad one)\n",
						file, lineno);
				} else {
					if (json_array_size(chunk) > 0)
						load_head(chunk, json_array_size(chunk), t);
					fprintf(stderr, "dprctl: %s:%lu: not UTF-8 text (%" PRIu64 " added and %" PRIu64 " deleted before it)\n",
						file, lineno, t->added, t->deleted);
				}
				exit(1);
			}
			lines[json_array_size(chunk)] = lineno;
			json_array_append_new(chunk, js);
		}
		if (json_array_size(chunk) == LOAD_CHUNK || (n < 0 && json_array_size(chunk) > 0)) {
			json_t *resp = request("route.load", json_pack("{s:O,s:b}", "routes", chunk,
									"check", check));
			json_t *err = json_object_get(resp, "error"), *res;
			const char *msg, *p;
			char where[64];
			size_t idx;

			if (err != NULL) {
				msg = str(err, "message");
				if (bar)
					printf("\n");
				/* "route.load: routes[12]: ..." -> "FILE:LINE: ..." */
				p = strstr(msg, "routes[");
				if (p != NULL && sscanf(p, "routes[%zu]", &idx) == 1 &&
				    idx < json_array_size(chunk) && (p = strstr(p, "]: ")) != NULL) {
					snprintf(where, sizeof(where), "%lu", lines[idx]);
					msg = p + 3;
					/* dpr refused the whole chunk: the lines before
					 * the bad one go on their own. */
					if (!check && idx > 0)
						load_head(chunk, idx, t);
				} else {
					snprintf(where, sizeof(where), "%lu-%lu", lines[0],
						 lines[json_array_size(chunk) - 1]);
				}
				if (check)
					fprintf(stderr, "dprctl: %s:%s: %s (nothing applied: the file is checked whole first; --partial applies the lines before a bad one)\n",
						file, where, msg);
				else
					fprintf(stderr, "dprctl: %s:%s: %s (%" PRIu64 " added and %" PRIu64 " deleted before it)\n",
						file, where, msg, t->added, t->deleted);
				exit(1);
			}
			res = json_object_get(resp, "result");
			t->lines += json_array_size(chunk);
			if (!check) {
				t->added += (uint64_t)num(res, "added");
				t->deleted += (uint64_t)num(res, "deleted");
				json_decref(t->last);
				t->last = json_incref(res);
			}
			json_decref(resp);
			json_array_clear(chunk);
			if (bar)
				progress(t->lines, f == stdin ? -1 : ftell(f), size, t0);
		}
		if (n < 0)
			break;
	}
	free(line);
	free(lines);
	json_decref(chunk);
}

/*
 * route load FILE|- [--partial]: stream a route file in chunks, any size
 * in bounded memory. The whole file is checked before any change (one bad
 * line applies nothing), unless --partial: then each chunk goes as read.
 */
static void
run_route_load(int argc, char **argv)
{
	bool partial = false, bar = isatty(STDOUT_FILENO) && !json_out;
	struct load_totals t = { 0 };
	const char *file = NULL;
	double t0 = now(), checked = 0;
	long size = -1;
	FILE *f;
	int k;

	for (k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--partial") == 0)
			partial = true;
		else if (file == NULL)
			file = argv[k];
		else
			die(2, "route load: unexpected \"%s\"; usage: route load FILE|- [--partial]", argv[k]);
	}
	if (file == NULL)
		die(2, "usage: route load FILE|- [--partial]");
	f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	if (f == NULL)
		die(2, "%s: %s", file, strerror(errno));
	if (f == stdin && !partial) {
		/* Read twice: the first time into a file of our own. */
		FILE *tmp = tmpfile();
		char buf[65536];
		size_t n;

		if (tmp == NULL)
			die(1, "route load: no temporary file for standard input: %s", strerror(errno));
		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			if (fwrite(buf, 1, n, tmp) != n)
				die(1, "route load: temporary file: %s", strerror(errno));
		f = tmp;
	}
	if (f != stdin && fseek(f, 0, SEEK_END) == 0) {
		size = ftell(f);
		rewind(f);
	}
	if (!partial) {
		load_pass(f, file, true, bar, size, t0, &t);
		checked = now() - t0;
		rewind(f);
		t.lines = 0;
	}
	load_pass(f, file, false, bar, size, t0, &t);
	if (bar)
		printf("\n");
	if (json_out) {
		printf("{\"loaded\": %" PRIu64 ", \"added\": %" PRIu64 ", \"deleted\": %" PRIu64
		       ", \"seconds\": %.3f, \"check_seconds\": %.3f, \"routes\": %" JSON_INTEGER_FORMAT
		       ", \"ipv4_routes\": %" JSON_INTEGER_FORMAT ", \"ipv6_routes\": %" JSON_INTEGER_FORMAT
		       "}\n", t.lines, t.added, t.deleted, now() - t0, checked, num(t.last, "routes"),
		       num(t.last, "ipv4_routes"), num(t.last, "ipv6_routes"));
	} else {
		double s = now() - t0;

		if (t.added != 0 && t.deleted != 0)
			printf("added %" PRIu64 " and deleted %" PRIu64 " routes", t.added, t.deleted);
		else if (t.deleted != 0)
			printf("deleted %" PRIu64 " routes", t.deleted);
		else
			printf("loaded %" PRIu64 " routes", t.added);
		printf(" in %.2f s (%.0f routes/s); the FIB holds %" JSON_INTEGER_FORMAT "\n", s,
		       (double)t.lines / (s > 0 ? s : 1), num(t.last, "routes"));
	}
	json_decref(t.last);
	if (f != stdin)
		fclose(f);
}

/* --- addr, neigh, port --------------------------------------------------- */

/* "ADDRESS/LEN dev PORT" (iproute2's order), or "PORT ADDRESS/LEN". */
static json_t *
addr_params(const char *verb, int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "dev") == 0)
		return str_object("port", argv[2], "address", argv[0], NULL);
	if (argc == 3 && strcmp(argv[0], "dev") == 0)
		return str_object("port", argv[1], "address", argv[2], NULL);
	if (argc == 2 && strcmp(argv[0], "dev") != 0 && strcmp(argv[1], "dev") != 0)
		return str_object("port", argv[0], "address", argv[1], NULL);
	die(2, "usage: addr %s ADDRESS/LEN dev PORT", verb);
}

static void
addr_change(int argc, char **argv, const char *verb, const char *method)
{
	json_t *res = call(method, addr_params(verb, argc, argv));

	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_addr_add(int argc, char **argv)
{
	addr_change(argc, argv, "add", "addr.add");
}

static void
run_addr_del(int argc, char **argv)
{
	addr_change(argc, argv, "del", "addr.del");
}

/* [dev PORT], or a bare PORT: the port to show, NULL for all. */
static const char *
dev_filter(const char *cmd, int argc, char **argv)
{
	if (argc == 0)
		return NULL;
	if (argc == 2 && strcmp(argv[0], "dev") == 0)
		return argv[1];
	if (argc == 1 && strcmp(argv[0], "dev") != 0)
		return argv[0];
	die(2, "usage: %s [dev PORT]", cmd);
}

static void
run_addr_list(int argc, char **argv)
{
	const char *port = dev_filter("addr list", argc, argv);
	json_t *res = call("addr.list", port != NULL ? str_object("port", port, NULL) : NULL), *a;
	size_t i;

	if (json_out) {
		print_json(res);
	} else {
		printf("%-11s %s\n", "PORT", "ADDRESS");
		json_array_foreach(res, i, a)
			printf("%-11s %s\n", str(a, "port"), str(a, "address"));
	}
	json_decref(res);
}

/* neigh add ADDRESS lladdr MAC [dev PORT] [nud permanent]; the MAC may
 * come bare after the address (dprctl's older form). */
static void
run_neigh_add(int argc, char **argv)
{
	static const char *const usage = "usage: neigh add ADDRESS lladdr MAC [dev PORT]";
	const char *mac = NULL, *port = NULL;
	json_t *p, *res;
	int k;

	if (argc < 2)
		die(2, "%s", usage);
	for (k = 1; k < argc; k++) {
		if (k + 1 < argc && strcmp(argv[k], "lladdr") == 0 && mac == NULL)
			mac = argv[++k];
		else if (k + 1 < argc && strcmp(argv[k], "dev") == 0 && port == NULL)
			port = argv[++k];
		else if (k + 1 < argc && strcmp(argv[k], "nud") == 0 &&
			 strcmp(argv[k + 1], "permanent") == 0)
			k++; /* what a neighbour added here is: static */
		else if (k == 1 && strchr(argv[k], ':') != NULL)
			mac = argv[k];
		else
			die(2, "neigh add: unexpected \"%s\"; %s", argv[k], usage);
	}
	if (mac == NULL)
		die(2, "neigh add: no MAC; %s", usage);
	p = str_object("address", argv[0], "mac", mac, NULL);
	if (port != NULL)
		json_object_set_new(p, "port", arg_string(port));
	res = call("neigh.add", p);
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_neigh_del(int argc, char **argv)
{
	json_t *p, *res;

	if (argc != 1 && !(argc == 3 && strcmp(argv[1], "dev") == 0))
		die(2, "usage: neigh del ADDRESS [dev PORT]");
	p = str_object("address", argv[0], NULL);
	if (argc == 3)
		json_object_set_new(p, "port", arg_string(argv[2]));
	res = call("neigh.del", p);
	if (json_out)
		print_json(res);
	json_decref(res);
}

/* dpr's port names, for filters that dprctl applies itself: an unknown
 * one is an error, as dpr's own filters say. */
static void
check_port(const char *name)
{
	json_t *res = call("port.list", NULL), *p;
	char list[512] = "";
	size_t i, n = 0;

	json_array_foreach(res, i, p) {
		if (strcmp(str(p, "name"), name) == 0) {
			json_decref(res);
			return;
		}
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      str(p, "name"));
	}
	die(1, "no port \"%s\" (ports: %s)", name, list);
}

static void
run_neigh_list(int argc, char **argv)
{
	const char *port = NULL;
	json_t *res, *n, *shown = json_array();
	size_t i;
	int w = 15;

	if (argc != 0 && !(argc == 2 && strcmp(argv[0], "dev") == 0))
		die(2, "usage: neigh list [dev PORT]");
	if (argc == 2) {
		port = argv[1];
		check_port(port);
	}
	res = call("neigh.list", NULL);
	json_array_foreach(res, i, n)
		if (port == NULL || strcmp(str(n, "port"), port) == 0)
			json_array_append(shown, n);
	json_decref(res);
	if (json_out) {
		print_json(shown);
		json_decref(shown);
		return;
	}
	/* As wide as the longest address (IPv6 ones). */
	json_array_foreach(shown, i, n)
		if ((int)strlen(str(n, "address")) > w)
			w = (int)strlen(str(n, "address"));
	printf("%-*s %-17s %-11s %-10s %s\n", w, "ADDRESS", "MAC", "PORT", "STATE", "STATIC");
	json_array_foreach(shown, i, n)
		printf("%-*s %-17s %-11s %-10s %s\n", w, str(n, "address"), str(n, "mac"),
		       str(n, "port"), str(n, "state"),
		       json_is_true(json_object_get(n, "static")) ? "yes" : "no");
	json_decref(shown);
}

/* "a,b,c" from a JSON array of strings; "none" when empty. */
static const char *
names(json_t *arr, char *buf, size_t len)
{
	json_t *v;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(arr, i, v)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "",
					      json_string_value(v));
	return n == 0 ? "none" : buf;
}

static void
print_warnings(json_t *warn, const char *indent)
{
	json_t *w;
	size_t i;

	json_array_foreach(warn, i, w)
		printf("%s%s %s (for %" JSON_INTEGER_FORMAT " s, started %" JSON_INTEGER_FORMAT
		       " time%s): %s\n", indent, str(w, "port"), str(w, "condition"),
		       num(w, "for_s"), num(w, "times"), num(w, "times") == 1 ? "" : "s",
		       str(w, "text"));
}

static void
print_facts(json_t *f)
{
	json_t *link = json_object_get(f, "link"), *q = json_object_get(f, "queues");
	json_t *rss = json_object_get(f, "rss"), *numa = json_object_get(f, "numa"), *w, *vlan;
	static const char *const offl[] = { "rx_offloads", "tx_offloads" };
	char a[512], b[512];
	size_t i;

	printf("%s: %s (%s, bus %s), device %s\n", str(f, "name"), str(f, "driver"),
	       str(f, "kind"), str(f, "bus"), str(f, "device"));
	printf("  expect:   %s\n", str(f, "expect"));
	printf("  link:     %s, %" JSON_INTEGER_FORMAT " Mb/s %s duplex%s (device best: %"
	       JSON_INTEGER_FORMAT " Mb/s)\n", str(link, "state"), num(link, "speed_mbps"),
	       str(link, "duplex"), json_is_true(json_object_get(link, "autoneg")) ? ", autoneg" : "",
	       num(link, "best_speed_mbps"));
	printf("  queues:   %" JSON_INTEGER_FORMAT " RX (device max %" JSON_INTEGER_FORMAT ") x %"
	       JSON_INTEGER_FORMAT " descriptors (profile %" JSON_INTEGER_FORMAT "), %"
	       JSON_INTEGER_FORMAT " TX (max %" JSON_INTEGER_FORMAT ") x %" JSON_INTEGER_FORMAT
	       " (profile %" JSON_INTEGER_FORMAT ")\n", num(q, "rx"), num(q, "rx_max"),
	       num(q, "rx_desc"), num(q, "rx_desc_profile"), num(q, "tx"), num(q, "tx_max"),
	       num(q, "tx_desc"), num(q, "tx_desc_profile"));
	printf("  rss:      granted %s; refused %s; key %" JSON_INTEGER_FORMAT " bytes, table %"
	       JSON_INTEGER_FORMAT "\n", names(json_object_get(rss, "granted"), a, sizeof(a)),
	       names(json_object_get(rss, "refused"), b, sizeof(b)), num(rss, "key_size"),
	       num(rss, "reta_size"));
	for (i = 0; i < 2; i++) {
		json_t *o = json_object_get(f, offl[i]);

		printf("  %s offloads: granted %s; refused %s\n", i == 0 ? "rx" : "tx",
		       names(json_object_get(o, "granted"), a, sizeof(a)),
		       names(json_object_get(o, "refused"), b, sizeof(b)));
	}
	vlan = json_object_get(f, "vlan");
	if (vlan != NULL) {
		printf("  vlan:     strip %s%s%s%s, insert %s%s%s%s\n",
		       str(vlan, "strip"), *str(vlan, "strip_why") ? " (" : "",
		       str(vlan, "strip_why"), *str(vlan, "strip_why") ? ")" : "",
		       str(vlan, "insert"), *str(vlan, "insert_why") ? " (" : "",
		       str(vlan, "insert_why"), *str(vlan, "insert_why") ? ")" : "");
	}
	printf("  numa:     port node %" JSON_INTEGER_FORMAT ", mempool node %" JSON_INTEGER_FORMAT
	       ", workers", num(numa, "port_socket"), num(numa, "mempool_socket"));
	json_array_foreach(json_object_get(numa, "workers"), i, w)
		printf(" lcore %" JSON_INTEGER_FORMAT " (node %" JSON_INTEGER_FORMAT ")",
		       num(w, "lcore"), num(w, "socket"));
	printf(": %s\n", json_is_true(json_object_get(numa, "ok")) ? "ok" : "NOT all on one node");
	printf("  profile:  %s\n", str(f, "profile"));
	if (json_array_size(json_object_get(f, "warnings")) == 0)
		printf("  warnings: none\n");
	else
		print_warnings(json_object_get(f, "warnings"), "  warning:  ");
}

static void
run_port_show(int argc, char **argv)
{
	json_t *res;

	if (argc != 1)
		die(2, "usage: port show PORT");
	res = call("port.show", str_object("port", argv[0], NULL));
	if (json_out)
		print_json(res);
	else
		print_facts(res);
	json_decref(res);
}

static void
run_vrf_list(int argc, char **argv)
{
	json_t *res, *v, *a;
	size_t i, k;

	(void)argv;
	if (argc != 0)
		die(2, "usage: vrf list");
	res = call("vrf.list", NULL);
	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	printf("%-15s %-10s %-11s %-11s %s\n", "NAME", "TABLE", "IPV4", "IPV6", "INTERFACES");
	json_array_foreach(res, i, v) {
		printf("%-15s %-10" JSON_INTEGER_FORMAT " %-11" JSON_INTEGER_FORMAT " %-11"
		       JSON_INTEGER_FORMAT " ", str(v, "name"), num(v, "table"),
		       num(v, "ipv4_routes"), num(v, "ipv6_routes"));
		json_array_foreach(json_object_get(v, "interfaces"), k, a)
			printf("%s%s", k ? " " : "", json_string_value(a));
		printf("\n");
	}
	json_decref(res);
}

/* vrf add NAME table N [poptrie]: a VRF at run time. */
static void
run_vrf_add(int argc, char **argv)
{
	json_t *params, *res;
	int i;

	if (argc < 3 || strcmp(argv[1], "table") != 0)
		die(2, "usage: vrf add NAME table N [poptrie]");
	params = str_object("name", argv[0], NULL);
	json_object_set_new(params, "table", json_integer((json_int_t)number("table", argv[2])));
	for (i = 3; i < argc; i++) {
		if (strcmp(argv[i], "poptrie") != 0)
			die(2, "vrf add: unexpected \"%s\" (usage: vrf add NAME table N [poptrie])",
			    argv[i]);
		json_object_set_new(params, "fib", json_pack("{s:s,s:s}", "ipv4_algorithm",
				    "poptrie", "ipv6_algorithm", "poptrie"));
	}
	res = call("vrf.add", params);
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_vrf_del(int argc, char **argv)
{
	json_t *res;

	if (argc != 1)
		die(2, "usage: vrf del NAME");
	res = call("vrf.del", str_object("name", argv[0], NULL));
	if (json_out)
		print_json(res);
	json_decref(res);
}

/* vlan add NAME dev PORT [outer N [proto P]] id N [vrf V] [mtu M] [urpf strict|loose|off] [notap]. */
static void
run_vlan_add(int argc, char **argv)
{
	static const char usage_line[] =
		"usage: vlan add NAME dev PORT [outer N [proto 802.1ad|802.1q]] id N [vrf V] [mtu M] [urpf strict|loose|off] [notap]";
	json_t *params, *res;
	int i;

	if (argc < 1)
		die(2, "%s", usage_line);
	params = str_object("name", argv[0], NULL);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "notap") == 0) {
			json_object_set_new(params, "tap", json_false());
			continue;
		}
		if (i + 1 >= argc)
			die(2, "%s", usage_line);
		if (strcmp(argv[i], "dev") == 0)
			json_object_set_new(params, "port", arg_string(argv[i + 1]));
		else if (strcmp(argv[i], "id") == 0)
			json_object_set_new(params, "id", json_integer((json_int_t)number("id", argv[i + 1])));
		else if (strcmp(argv[i], "mtu") == 0)
			json_object_set_new(params, "mtu",
					    json_integer((json_int_t)number("mtu", argv[i + 1])));
		else if (strcmp(argv[i], "outer") == 0)
			json_object_set_new(params, "outer_id",
					    json_integer((json_int_t)number("outer", argv[i + 1])));
		else if (strcmp(argv[i], "proto") == 0)
			json_object_set_new(params, "outer_proto", arg_string(argv[i + 1]));
		else if (strcmp(argv[i], "urpf") == 0)
			json_object_set_new(params, "urpf", arg_string(argv[i + 1]));
		else
			die(2, "vlan add: unexpected \"%s\" (%s)", argv[i], usage_line);
		i++;
	}
	if (json_object_get(params, "port") == NULL || json_object_get(params, "id") == NULL)
		die(2, "%s", usage_line);
	if (vrf_name != NULL)
		json_object_set_new(params, "vrf", arg_string(vrf_name));
	res = call("vlan.add", params);
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_vlan_del(int argc, char **argv)
{
	json_t *res;

	if (argc != 1)
		die(2, "usage: vlan del NAME");
	res = call("vlan.del", str_object("name", argv[0], NULL));
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_port_list(int argc, char **argv)
{
	json_t *res, *p, *a;
	size_t i, k;

	(void)argv;
	if (argc != 0)
		die(2, "usage: port list (port show PORT: one port's details)");
	res = call("port.list", NULL);
	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	printf("%-11s %-14s %-17s %-5s %-7s %-4s %-4s %-9s %s\n", "NAME", "DRIVER", "MAC", "MTU",
	       "LINK", "RXQ", "TXQ", "VRF", "ADDRESSES");
	json_array_foreach(res, i, p) {
		char drv[64];

		/* A VLAN interface: its id (a QinQ one's outer.inner) and port
		 * instead of the driver. */
		if (strcmp(str(p, "type"), "vlan") == 0 && json_object_get(p, "outer_id") != NULL)
			snprintf(drv, sizeof(drv), "vlan %" JSON_INTEGER_FORMAT ".%" JSON_INTEGER_FORMAT "@%s",
				 num(p, "outer_id"), num(p, "vlan_id"), str(p, "parent"));
		else if (strcmp(str(p, "type"), "vlan") == 0)
			snprintf(drv, sizeof(drv), "vlan %" JSON_INTEGER_FORMAT "@%s",
				 num(p, "vlan_id"), str(p, "parent"));
		else
			snprintf(drv, sizeof(drv), "%s", str(p, "driver"));
		printf("%-11s %-14s %-17s %-5" JSON_INTEGER_FORMAT " %-7s %-4" JSON_INTEGER_FORMAT
		       " %-4" JSON_INTEGER_FORMAT " ", str(p, "name"), drv, str(p, "mac"),
		       num(p, "mtu"), str(p, "link"),
		       num(p, "rx_queues"), num(p, "tx_queues"));
		printf("%-9s ", str(p, "vrf"));
		json_array_foreach(json_object_get(p, "addresses"), k, a)
			printf("%s%s", k ? " " : "", json_string_value(a));
		printf("\n");
	}
	json_decref(res);
}

static void
run_doctor(int argc, char **argv)
{
	json_t *res, *warn, *f;
	size_t i, found = 0;

	(void)argv;
	if (argc != 0)
		die(2, "usage: doctor");
	res = call("doctor.get", NULL);
	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	warn = json_object_get(res, "warnings");
	print_warnings(warn, "warning: ");
	found = json_array_size(warn);
	json_array_foreach(json_object_get(res, "acl"), i, f) {
		printf("warning: acl: %s\n", json_string_value(f));
		found++;
	}
	/* The doctor's findings on the config's VRFs and VLAN interfaces, then
	 * dpr-doctor's on this machine: errors and warnings, with fixes. */
	for (i = 0; i < json_array_size(json_object_get(res, "config")) +
			json_array_size(json_object_get(res, "machine")); i++) {
		size_t nc = json_array_size(json_object_get(res, "config"));
		const char *sev;
		json_t *fix;
		size_t k;

		f = i < nc ? json_array_get(json_object_get(res, "config"), i) :
			     json_array_get(json_object_get(res, "machine"), i - nc);
		sev = str(f, "severity");
		if (strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0)
			continue;
		found++;
		printf("%s: %s: %s\n", sev, str(f, "check"), str(f, "message"));
		json_array_foreach(json_object_get(f, "fix"), k, fix)
			printf(json_string_value(fix)[0] == '#' ? "  %s\n" : "  fix: %s\n",
			       json_string_value(fix));
	}
	if (found == 0)
		printf("no warnings\n");
	json_array_foreach(json_object_get(res, "ports"), i, f) {
		json_t *link = json_object_get(f, "link"), *q = json_object_get(f, "queues");

		printf("%-11s %-14s %-8s link %-7s %6" JSON_INTEGER_FORMAT " Mb/s %3" JSON_INTEGER_FORMAT
		       " rxq  numa %s\n", str(f, "name"), str(f, "driver"), str(f, "kind"),
		       str(link, "state"), num(link, "speed_mbps"), num(q, "rx"),
		       json_is_true(json_object_get(json_object_get(f, "numa"), "ok")) ? "ok" : "split");
	}
	json_decref(res);
}

/* --- capture -------------------------------------------------------------- */

static volatile sig_atomic_t interrupted;

static void
on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void
capture_summary(json_t *st)
{
	printf("%s: %" JSON_INTEGER_FORMAT " packets, %" JSON_INTEGER_FORMAT " bytes in %.1f s",
	       str(st, "file"), num(st, "packets"), num(st, "bytes"),
	       json_real_value(json_object_get(st, "seconds")));
	if (num(st, "missed") != 0)
		printf(", %" JSON_INTEGER_FORMAT " missed", num(st, "missed"));
	printf(json_is_true(json_object_get(st, "running")) ? " (running)\n" : " (%s)\n",
	       str(st, "stopped"));
}

/* "all", or a name added to the list under @p key. */
static void
add_name(json_t *params, const char *key, const char *name)
{
	json_t *v = json_object_get(params, key);

	if (strcmp(name, "all") == 0) {
		json_object_set_new(params, key, json_string("all"));
		return;
	}
	if (json_is_string(v))
		return; /* "all" already */
	if (v == NULL) {
		v = json_array();
		json_object_set_new(params, key, v);
	}
	json_array_append_new(v, arg_string(name));
}

static void
capture_state(const char *method)
{
	json_t *st = call(method, NULL);

	if (json_out)
		print_json(st);
	else if (!json_is_true(json_object_get(st, "running")) &&
		 json_object_get(st, "file") == NULL)
		printf("no capture\n");
	else
		capture_summary(st);
	json_decref(st);
}

static void
run_capture_status(int argc, char **argv)
{
	(void)argv;
	if (argc != 0)
		die(2, "usage: capture status");
	capture_state("capture.get");
}

static void
run_capture_stop(int argc, char **argv)
{
	(void)argv;
	if (argc != 0)
		die(2, "usage: capture stop");
	capture_state("capture.stop");
}

/* capture -w FILE ... */
static void
run_capture(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write", required_argument, NULL, 'w' },
		{ "drop", required_argument, NULL, 'd' },
		{ "exception", required_argument, NULL, 'e' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "snaplen", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *params, *st;
	char path[PATH_MAX + 2], cwd[PATH_MAX];
	const char *file = NULL;
	struct sigaction sa;
	int c;

	/* getopt_long starts after argv[0]: the word "capture" before these. */
	argc++;
	argv--;
	params = json_object();
	optind = 0;
	while ((c = getopt_long(argc, argv, "w:c:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			file = optarg;
			break;
		case 'd':
			add_name(params, "drops", optarg);
			break;
		case 'e':
			add_name(params, "exceptions", optarg);
			break;
		case 'p':
			add_name(params, "ports", optarg);
			break;
		case 'c':
		case 's':
		case 't':
		case 'b': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);

			if (*optarg == '\0' || *end != '\0')
				die(2, "capture: %s: expected a number", optarg);
			json_object_set_new(params, c == 'c' ? "count" : c == 's' ? "snaplen" :
						    c == 't' ? "seconds" : "max_bytes",
					    json_integer((json_int_t)v));
			break;
		}
		default:
			die(2, "usage: capture -w FILE [--drop R|all]... [--exception C|all]... [--port P]... [-c COUNT] [-s SNAPLEN] [--seconds N] [--max-bytes N]");
		}
	}
	if (file == NULL || optind != argc)
		die(2, "usage: capture -w FILE [--drop R|all]... [--exception C|all]... [--port P]... [-c COUNT] [-s SNAPLEN] [--seconds N] [--max-bytes N]");
	/* dpr writes the file, from its own working directory. */
	if (file[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			die(1, "capture: %s", strerror(errno));
		snprintf(path, sizeof(path), "%s/%s", cwd, file);
		file = path;
	}
	json_object_set_new(params, "file", arg_string(file));
	if (json_object_get(params, "drops") == NULL && json_object_get(params, "exceptions") == NULL)
		json_object_set_new(params, "drops", json_string("all"));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	st = call("capture.start", params);
	if (!json_out)
		fprintf(stderr, "capturing to %s (Ctrl-C stops)\n", str(st, "file"));
	while (json_is_true(json_object_get(st, "running"))) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		json_decref(st);
		nanosleep(&ts, NULL);
		st = call(interrupted ? "capture.stop" : "capture.get", NULL);
	}
	if (json_out)
		print_json(st);
	else
		capture_summary(st);
	json_decref(st);
}

/* --- stats ---------------------------------------------------------------- */

/* "    LABEL: a=1 b=2" for the non-zero counters of @p o; nothing if none. */
static void
print_reasons(const char *label, json_t *o)
{
	const char *reason;
	bool any = false;
	json_t *v;

	json_object_foreach(o, reason, v) {
		if (json_integer_value(v) == 0)
			continue;
		printf("%s%s=%" JSON_INTEGER_FORMAT, any ? " " : label, reason,
		       json_integer_value(v));
		any = true;
	}
	if (any)
		printf("\n");
}

static void
stats_row(const char *name, json_t *c, const char *extra)
{
	printf("%-11s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT
	       " %10" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT "%s\n", name, num(c, "rx"),
	       num(c, "forwarded"), num(c, "tx"), num(c, "exception"), num(c, "dropped"), extra);
	print_reasons("    drops: ", json_object_get(c, "drops"));
	print_reasons("    exceptions: ", json_object_get(c, "exceptions"));
}

/*
 * Control-plane protection: each class's passed and dropped exceptions, its
 * rate and share; then what neighbour resolution refused (RFC 6583).
 */
static void
print_control_plane(json_t *res)
{
	json_t *cp = json_object_get(res, "control_plane");
	json_t *exc = json_object_get(res, "exception_path");
	const char *name;
	json_t *c;

	if (cp == NULL)
		return;
	printf("\n%-11s %14s %14s %10s %10s %10s %7s %6s\n", "CP CLASS", "PASSED", "DROPPED",
	       "OVER RATE", "OVER SHARE", "RATE/PORT", "BURST", "SHARE");
	json_object_foreach(json_object_get(cp, "classes"), name, c)
		printf("%-11s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT
		       " %10" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT " %7" JSON_INTEGER_FORMAT
		       " %5" JSON_INTEGER_FORMAT "%%\n", name, num(c, "passed"), num(c, "dropped"),
		       num(c, "over_rate"), num(c, "over_share"), num(c, "rate"), num(c, "burst"),
		       num(c, "ring_share"));
	if (exc != NULL)
		printf("resolution: %" JSON_INTEGER_FORMAT " under way (at most %" JSON_INTEGER_FORMAT
		       " per interface and family, besides gateways and former neighbours); refused: %"
		       JSON_INTEGER_FORMAT " over an interface's budget, %" JSON_INTEGER_FORMAT
		       " table full; %" JSON_INTEGER_FORMAT " given up for a gateway\n",
		       num(exc, "resolving"), num(exc, "resolving_per_interface"),
		       num(exc, "resolve_refused_budget"), num(exc, "resolve_refused_full"),
		       num(exc, "resolve_preempted"));
}

/* stats [PORT]: one port's counters and its NIC's, or everything. */
static void
run_stats(int argc, char **argv)
{
	json_t *res, *p, *fib, *ports;
	const char *only = NULL;
	char name[32], extra[64];
	bool light = false;
	size_t i;

	if (argc > 1)
		die(2, "usage: stats [PORT]");
	only = argc == 1 ? argv[0] : NULL;
	res = call("stats.get", NULL);
	ports = json_object_get(res, "ports");
	if (only != NULL) {
		json_t *keep = NULL;

		json_array_foreach(ports, i, p)
			if (strcmp(str(p, "name"), only) == 0)
				keep = p;
		if (keep == NULL) {
			json_decref(res);
			check_port(only); /* exits, listing the ports */
			die(1, "no port \"%s\"", only);
		}
		if (json_out) {
			print_json(keep);
			json_decref(res);
			return;
		}
		ports = json_pack("[O]", keep);
	} else if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	} else {
		json_incref(ports);
	}
	printf("%-11s %14s %14s %14s %10s %10s\n", "PORT", "RX", "FORWARDED", "TX", "EXCEPTION",
	       "DROPPED");
	json_array_foreach(ports, i, p)
		stats_row(str(p, "name"), p, "");
	if (only == NULL) {
		stats_row("total", json_object_get(res, "total"), "");
		printf("\n%-11s %14s %14s %14s %10s %10s %11s %s\n", "WORKER", "RX", "FORWARDED",
		       "TX", "EXCEPTION", "DROPPED", "CYCLES/PKT", "PIPELINED");
		json_array_foreach(json_object_get(res, "workers"), i, p) {
			/* The tuner's last verdict: pipelined's cost over at once's. */
			json_t *probe = json_object_get(json_object_get(p, "pipeline_last_probe"),
							"pipelined_over_at_once");
			json_t *cpp = json_object_get(p, "cycles_per_packet");
			char verdict[32] = "", cycles[16] = "-";

			if (probe != NULL)
				snprintf(verdict, sizeof(verdict), ", last probe %.3f",
					 json_real_value(probe));
			/* None until enough packets came in bursts to say. */
			if (json_is_real(cpp))
				snprintf(cycles, sizeof(cycles), "%.1f", json_real_value(cpp));
			else
				light = true;
			snprintf(name, sizeof(name), "lcore %" JSON_INTEGER_FORMAT, num(p, "lcore"));
			snprintf(extra, sizeof(extra), " %11s %s (%s%s)", cycles,
				 json_is_true(json_object_get(p, "pipelined")) ? "yes" : "no",
				 str(p, "pipeline"), verdict);
			stats_row(name, p, extra);
		}
		if (light)
			printf("  (cycles/packet -: fewer than 10000 packets, or fewer than 2 a poll: each\n"
			       "   then pays a whole poll, which says nothing of a packet's cost)\n");
	}
	printf("\n%-11s %14s %14s %14s %10s %14s %10s\n", "NIC", "RX", "MISSED", "NO MBUF",
	       "RX ERRORS", "TX", "TX ERRORS");
	json_array_foreach(ports, i, p) {
		json_t *n = json_object_get(p, "nic");

		if (n != NULL)
			printf("%-11s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT
			       " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT
			       " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT "\n",
			       str(p, "name"), num(n, "rx_packets"), num(n, "rx_missed"),
			       num(n, "rx_nombuf"), num(n, "rx_errors"), num(n, "tx_packets"),
			       num(n, "tx_errors"));
	}
	json_decref(ports);
	fib = json_object_get(res, "fib");
	if (fib != NULL && only == NULL)
		printf("\nfib: %" JSON_INTEGER_FORMAT " IPv4 routes (of %" JSON_INTEGER_FORMAT
		       "), %.1f MiB; %" JSON_INTEGER_FORMAT " IPv6 routes (of %" JSON_INTEGER_FORMAT
		       "), %.1f MiB, %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
		       " tbl8 groups; %" JSON_INTEGER_FORMAT " next hops\n",
		       num(fib, "ipv4_routes"), num(fib, "ipv4_max_routes"),
		       (double)num(fib, "ipv4_memory_bytes") / (1 << 20),
		       num(fib, "ipv6_routes"), num(fib, "ipv6_max_routes"),
		       (double)num(fib, "ipv6_memory_bytes") / (1 << 20),
		       num(fib, "ipv6_tbl8_used"), num(fib, "ipv6_tbl8_groups"), num(res, "nexthops"));
	if (only == NULL)
		print_control_plane(res);
	json_decref(res);
}

/* --- config ------------------------------------------------------------ */

/* Routes per config.get answer: a full table takes many, and dpr's control
 * thread builds each between its other work (as route list's pages). */
#define CONFIG_PAGE 20000

/* The temporary file of "config save" ("" for none), removed if dprctl
 * exits or is stopped before the rename. */
static char save_tmp[PATH_MAX];

static void
remove_save_tmp(void)
{
	if (save_tmp[0] != '\0')
		unlink(save_tmp);
}

/* Ctrl-C during "config save": the old file stays, the temporary one goes. */
static void
save_interrupted(int sig)
{
	remove_save_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* @p text, its lines after the first indented by two more spaces. */
static void
put_indented(FILE *f, const char *text)
{
	const char *nl;

	while ((nl = strchr(text, '\n')) != NULL) {
		fwrite(text, 1, (size_t)(nl - text), f);
		fputs("\n  ", f);
		text = nl + 1;
	}
	fputs(text, f);
}

/* The routes of one config.get answer into @p f, one a line; @p n: written so far. */
static void
put_routes(FILE *f, json_t *routes, size_t *n)
{
	json_t *r;
	size_t i;

	json_array_foreach(routes, i, r) {
		char *text = json_dumps(r, 0);

		if (text == NULL)
			die(1, "out of memory");
		fprintf(f, "%s\n    %s", (*n)++ ? "," : "", text);
		free(text);
	}
}

/*
 * The running configuration (config.get) as a file into @p f, named
 * @p file in messages; its routes one a line, fetched page by page after
 * the last one written: a full table is more than one answer holds, and
 * dprctl keeps one page at a time. A route changed while it pages may be
 * either way. Exits on an error. @return the number of routes.
 */
static size_t
config_write(FILE *f, const char *file)
{
	json_t *cfg = call("config.get", json_pack("{s:i}", "limit", CONFIG_PAGE)), *v;
	json_t *page = NULL, *routes;
	const char *key, *sep = "";
	size_t n = 0;
	char *text;

	fputs("{", f);
	json_object_foreach(cfg, key, v) {
		fprintf(f, "%s\n  \"%s\": ", sep, key);
		sep = ",";
		if (strcmp(key, "routes") != 0) {
			text = json_dumps(v, JSON_INDENT(2));
			if (text == NULL)
				die(1, "out of memory");
			put_indented(f, text);
			free(text);
			continue;
		}
		fputs("[", f);
		for (routes = v;; routes = json_object_get(page, "routes")) {
			size_t got = json_array_size(routes);
			char *last;

			put_routes(f, routes, &n);
			if (got < CONFIG_PAGE)
				break;
			last = strdup(str(json_array_get(routes, got - 1), "prefix"));
			if (last == NULL)
				die(1, "out of memory");
			json_decref(page);
			page = call("config.get", json_pack("{s:i,s:s}", "limit", CONFIG_PAGE,
							     "after", last));
			free(last);
		}
		json_decref(page);
		fputs(n ? "\n  ]" : "]", f);
	}
	fputs("\n}\n", f);
	json_decref(cfg);
	if (fflush(f) != 0 || ferror(f))
		die(1, "config: writing %s: %s", file, strerror(errno));
	return n;
}

/*
 * "config save FILE": written whole or not at all. A temporary file beside
 * it (same file system), flushed to disk, renamed over it, and the
 * directory flushed: a crash leaves the old file or the new one. It keeps
 * the mode of the file it replaces; a symbolic link (/etc/dpr/dpr.json
 * into a repository) stays one, its target written so. dpr never opens the
 * path itself.
 */
static void
config_save(const char *given)
{
	char *real = realpath(given, NULL), *dir;
	const char *file = given;
	struct stat st;
	mode_t mask;
	FILE *f;
	size_t n;
	int fd;

	if (real != NULL)
		file = real;
	else if (lstat(given, &st) == 0 && S_ISLNK(st.st_mode))
		die(2, "config save: %s is a symbolic link to nothing (%s): link it to a file, or remove it",
		    given, strerror(errno));
	dir = strdup(file);
	if (dir == NULL)
		die(1, "out of memory");
	if ((size_t)snprintf(save_tmp, sizeof(save_tmp), "%s.XXXXXX", file) >= sizeof(save_tmp)) {
		save_tmp[0] = '\0';
		die(2, "config save: %s: path too long", file);
	}
	fd = mkstemp(save_tmp);
	if (fd < 0) {
		save_tmp[0] = '\0';
		die(2, "config save: cannot create a file in the directory of %s: %s", file,
		    strerror(errno));
	}
	atexit(remove_save_tmp);
	signal(SIGINT, save_interrupted);
	signal(SIGTERM, save_interrupted);
	signal(SIGHUP, save_interrupted);
	if (stat(file, &st) == 0) {
		(void)fchmod(fd, st.st_mode & 07777);
	} else {
		mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	f = fdopen(fd, "w");
	if (f == NULL)
		die(1, "config save: %s: %s", save_tmp, strerror(errno));
	n = config_write(f, save_tmp);
	if (fsync(fd) != 0 || fclose(f) != 0)
		die(1, "config save: writing %s: %s", save_tmp, strerror(errno));
	if (rename(save_tmp, file) != 0)
		die(1, "config save: cannot rename %s to %s: %s", save_tmp, file, strerror(errno));
	save_tmp[0] = '\0';
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0)
		die(1, "config save: %s saved, but its directory not flushed to disk: %s", file,
		    strerror(errno));
	close(fd);
	free(dir);
	file = given;
	free(real);
	if (json_out) {
		json_t *res = json_pack("{s:s,s:I}", "file", file, "routes", (json_int_t)n);

		print_json(res);
		json_decref(res);
	} else {
		printf("saved the running configuration to %s (%zu routes)\n", file, n);
	}
}

static void
run_config_show(int argc, char **argv)
{
	(void)argv;
	if (argc != 0)
		die(2, "usage: config show");
	config_write(stdout, "standard output");
}

static void
run_config_save(int argc, char **argv)
{
	if (argc != 1)
		die(2, "usage: config save FILE");
	config_save(argv[0]);
}

/* --- acl ------------------------------------------------------------------------ */

/* acl set NAME [default permit|deny|reject] FILE|-|RULES: RULES is JSON on
 * the line; FILE (or - for stdin) holds the same: an array of rules, or an
 * object with "rules" and maybe "default". */
static void
run_acl_set(int argc, char **argv)
{
	const char *dflt = NULL, *src;
	json_t *j, *p, *res;
	json_error_t je;

	if (argc == 4 && strcmp(argv[1], "default") == 0) {
		dflt = argv[2];
		src = argv[3];
	} else if (argc == 2) {
		src = argv[1];
	} else {
		die(2, "usage: acl set NAME [default permit|deny|reject] FILE|-|RULES");
	}
	if (src[0] == '[' || src[0] == '{')
		j = json_loads(src, JSON_REJECT_DUPLICATES, &je);
	else if (strcmp(src, "-") == 0)
		j = json_loadf(stdin, JSON_REJECT_DUPLICATES, &je);
	else
		j = json_load_file(src, JSON_REJECT_DUPLICATES, &je);
	if (j == NULL)
		die(2, "acl set: %s: line %d: %s", src[0] == '[' || src[0] == '{' ? "rules" : src,
		    je.line, je.text);
	if (json_is_array(j)) {
		p = str_object("name", argv[0], NULL);
		json_object_set_new(p, "rules", j);
	} else if (json_is_object(j)) {
		p = json_deep_copy(j);
		json_decref(j);
		json_object_set_new(p, "name", arg_string(argv[0]));
	} else {
		die(2, "acl set: expected an array of rules or an object with \"rules\"");
	}
	if (dflt != NULL)
		json_object_set_new(p, "default", arg_string(dflt));
	res = call("acl.set", p);
	if (json_out)
		print_json(res);
	else
		printf("acl %s: %" JSON_INTEGER_FORMAT " rules, default %s, built in %" JSON_INTEGER_FORMAT " us\n",
		       str(res, "name"), (json_int_t)json_array_size(json_object_get(res, "rules")),
		       str(res, "default"), num(res, "build_us"));
	json_decref(res);
}

static void
print_bound(json_t *bound)
{
	json_t *b;
	size_t i;

	if (json_array_size(bound) == 0)
		printf("bound nowhere");
	json_array_foreach(bound, i, b)
		printf("%s%s %s", i ? ", " : "bound ", str(b, "interface"), str(b, "direction"));
}

static void
run_acl_show(int argc, char **argv)
{
	json_t *res, *r, *v;
	const char *key;
	size_t i;

	if (argc != 1)
		die(2, "usage: acl show NAME");
	res = call("acl.get", str_object("name", argv[0], NULL));
	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	printf("acl %s: default %s, ", str(res, "name"), str(res, "default"));
	print_bound(json_object_get(res, "bound"));
	printf("\n%5s %-7s %12s  %s\n", "rule", "action", "hits", "match");
	json_array_foreach(json_object_get(res, "rules"), i, r) {
		printf("%5zu %-7s %12" JSON_INTEGER_FORMAT " ", i, str(r, "action"), num(r, "hits"));
		json_object_foreach(r, key, v) {
			if (strcmp(key, "action") == 0 || strcmp(key, "hits") == 0)
				continue;
			if (json_is_integer(v))
				printf(" %s %" JSON_INTEGER_FORMAT, key, json_integer_value(v));
			else
				printf(" %s %s", key, json_string_value(v));
		}
		printf("%s\n", json_object_size(r) <= 2 ? " any" : "");
	}
	printf("%5s %-7s %12" JSON_INTEGER_FORMAT "   (no rule matched)\n", "-", str(res, "default"),
	       num(res, "default_hits"));
	json_decref(res);
}

static void
run_acl_list(int argc, char **argv)
{
	json_t *res, *a;
	size_t i;

	(void)argv;
	if (argc != 0)
		die(2, "usage: acl list");
	res = call("acl.list", NULL);
	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	json_array_foreach(json_object_get(res, "acls"), i, a) {
		printf("%s: %" JSON_INTEGER_FORMAT " rules, default %s, ", str(a, "name"),
		       num(a, "rules"), str(a, "default"));
		print_bound(json_object_get(a, "bound"));
		/* The rte_acl method its contexts run; none without rules. */
		if (json_is_string(json_object_get(a, "classifier")))
			printf(", classifier %s", str(a, "classifier"));
		printf("\n");
	}
	json_array_foreach(json_object_get(res, "warnings"), i, a)
		printf("warning: %s\n", json_string_value(a));
	json_decref(res);
}

static void
run_acl_bind(int argc, char **argv)
{
	json_t *res;

	if (argc != 3 || (strcmp(argv[2], "in") != 0 && strcmp(argv[2], "out") != 0))
		die(2, "usage: acl bind NAME IFACE in|out");
	res = call("acl.bind", str_object("name", argv[0], "interface", argv[1],
					  "direction", argv[2], NULL));
	if (json_out)
		print_json(res);
	json_decref(res);
}

/* acl unbind [NAME] IFACE in|out */
static void
run_acl_unbind(int argc, char **argv)
{
	json_t *p, *res;

	if ((argc != 2 && argc != 3) ||
	    (strcmp(argv[argc - 1], "in") != 0 && strcmp(argv[argc - 1], "out") != 0))
		die(2, "usage: acl unbind [NAME] IFACE in|out");
	p = str_object("interface", argv[argc - 2], "direction", argv[argc - 1], NULL);
	if (argc == 3)
		json_object_set_new(p, "name", arg_string(argv[0]));
	res = call("acl.unbind", p);
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
run_acl_del(int argc, char **argv)
{
	json_t *res;

	if (argc != 1)
		die(2, "usage: acl del NAME");
	res = call("acl.del", str_object("name", argv[0], NULL));
	if (json_out)
		print_json(res);
	json_decref(res);
}

/* --- rib, call ------------------------------------------------------------------ */

static void
run_rib_check(int argc, char **argv)
{
	json_t *res;

	(void)argv;
	if (argc != 0)
		die(2, "usage: rib check");
	res = call("rib.check", NULL);
	if (json_out)
		print_json(res);
	else
		printf("ok: %" JSON_INTEGER_FORMAT " next hops, %" JSON_INTEGER_FORMAT
		       " IPv4 and %" JSON_INTEGER_FORMAT " IPv6 routes agree\n",
		       num(res, "nexthops"), num(res, "ipv4_routes"), num(res, "ipv6_routes"));
	json_decref(res);
}

static void
run_call(int argc, char **argv)
{
	json_t *params = NULL, *res;
	json_error_t je;

	if (argc < 1 || argc > 2)
		die(2, "usage: call METHOD [PARAMS-JSON]");
	if (argc == 2 && (params = json_loads(argv[1], 0, &je)) == NULL)
		die(2, "params: %s", je.text);
	res = call(argv[0], params);
	print_json(res);
	json_decref(res);
}

/* --- commands --------------------------------------------------------------- */

struct cmd {
	const char *name;      /**< one or two words */
	const char *alias;     /**< another name, or NULL */
	const char *args;      /**< what follows the name */
	const char *about;     /**< what it does, one or more lines */
	const char *example;   /**< a line to run */
	void (*run)(int argc, char **argv);
};

static void run_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "route add", NULL, "PREFIX|default via GATEWAY [dev PORT] [weight W] [via ...] | PREFIX dev PORT [vrf NAME]",
	  "Add a route. Several \"via\" make a multipath route (up to 16, weights 1-256);\n"
	  "\"dev PORT\" alone, an attached one; a link-local gateway needs \"dev PORT\".\n"
	  "\"default\" is 0.0.0.0/0, or ::/0 with an IPv6 gateway or -6. An IPv4 prefix\n"
	  "may go through an IPv6 gateway (RFC 8950): \"via fe80::1 dev p0\"; with\n"
	  "\"default\", \"via inet6 fe80::1\" as iproute2 says it keeps it IPv4.",
	  "dprctl route add default via 192.0.2.1 dev p1", run_route_add },
	{ "route replace", NULL, "PREFIX|default via GATEWAY ... | PREFIX dev PORT [vrf NAME]",
	  "Add a route, or replace the one of that prefix.",
	  "dprctl route replace 10.0.0.0/8 via 192.0.2.2", run_route_replace },
	{ "route del", NULL, "PREFIX|default [vrf NAME]", "Delete a route added with dprctl.",
	  "dprctl route del 10.0.0.0/8", run_route_del },
	{ "route get", NULL, "ADDRESS [from SOURCE] [proto tcp|udp|icmp|icmpv6|N] [sport N] [dport N] [vrf NAME]",
	  "The route an address takes (longest-prefix match); with a flow, the\n"
	  "multipath member it takes (no RSS hash).",
	  "dprctl route get 10.1.2.3", run_route_get },
	{ "route list", "route show", "[PREFIX|default] [source router|config|api|fpm|kernel] [dev PORT] [--limit N] [vrf NAME]",
	  "Routes, IPv4 then IPv6: all, one prefix's, a source's or a port's.",
	  "dprctl route list source fpm dev p1", run_route_list },
	{ "route load", NULL, "FILE|- [--partial] [vrf NAME]",
	  "Many routes, one a line: \"PREFIX via GATEWAY [dev PORT] [weight W] [via ...]\",\n"
	  "\"PREFIX dev PORT\" or \"del PREFIX\". The whole file is checked first: a bad\n"
	  "line applies nothing and is named; --partial applies what comes before it.",
	  "dprctl route load routes.txt", run_route_load },
	{ "addr add", NULL, "ADDRESS/LEN dev PORT", "Add an address to a port (also: addr add PORT ADDRESS/LEN).",
	  "dprctl addr add 10.0.3.1/24 dev p1", run_addr_add },
	{ "addr del", NULL, "ADDRESS/LEN dev PORT", "Remove an address from a port.",
	  "dprctl addr del 10.0.3.1/24 dev p1", run_addr_del },
	{ "addr list", "addr show", "[dev PORT]", "Addresses, of every port or one.",
	  "dprctl addr list dev p1", run_addr_list },
	{ "neigh add", NULL, "ADDRESS lladdr MAC [dev PORT] [vrf NAME]",
	  "A static neighbour (also: neigh add ADDRESS MAC); a link-local address needs\n"
	  "\"dev PORT\".",
	  "dprctl neigh add 10.0.2.2 lladdr 02:00:00:00:02:02 dev p1", run_neigh_add },
	{ "neigh del", NULL, "ADDRESS [dev PORT] [vrf NAME]", "Forget a neighbour.",
	  "dprctl neigh del 10.0.2.2", run_neigh_del },
	{ "neigh list", "neigh show", "[dev PORT] [vrf NAME]", "Neighbours, learned and static, of every port or one.",
	  "dprctl neigh list dev p1", run_neigh_list },
	{ "vrf list", "vrf show", "", "VRFs: kernel table, routes of each family, interfaces.",
	  "dprctl vrf list", run_vrf_list },
	{ "vrf add", NULL, "NAME table N [poptrie]",
	  "Add a VRF at run time, with its kernel table; its FIBs sized as the\n"
	  "default VRF's (\"poptrie\": both of that algorithm, cheap in memory).",
	  "dprctl vrf add red table 100", run_vrf_add },
	{ "vrf del", NULL, "NAME",
	  "Delete a VRF and its routes; refused while interfaces are in it.",
	  "dprctl vrf del red", run_vrf_del },
	{ "vlan add", NULL, "NAME dev PORT [outer N [proto 802.1ad|802.1q]] id N [vrf V] [mtu M] [urpf strict|loose|off] [notap]",
	  "Add a VLAN interface (802.1Q id N on PORT) at run time, with a TAP\n"
	  "dpr-NAME unless notap; addresses follow with \"addr add\". With outer,\n"
	  "a QinQ interface: outer tag N (TPID 0x88a8, or 0x8100 with proto 802.1q),\n"
	  "then inner tag id.",
	  "dprctl vlan add p0.100 dev p0 id 100 vrf red\n"
	  "dprctl vlan add p0.100.20 dev p0 outer 100 id 20", run_vlan_add },
	{ "vlan del", NULL, "NAME",
	  "Delete a VLAN interface with its addresses, routes and neighbours;\n"
	  "refused while routes go through it.",
	  "dprctl vlan del p0.100", run_vlan_del },
	{ "port list", NULL, "", "Ports: driver, MAC, MTU, link, queues, VRF, addresses.",
	  "dprctl port list", run_port_list },
	{ "port show", NULL, "PORT",
	  "What the device granted a port: driver, link, queues, offloads, RSS, NUMA;\n"
	  "its warnings.",
	  "dprctl port show p0", run_port_show },
	{ "stats", NULL, "[PORT]",
	  "Counters per port and worker: drops by reason, exceptions by class,\n"
	  "cycles per packet; the NICs' own counters.",
	  "dprctl stats p0", run_stats },
	{ "doctor", NULL, "",
	  "Warnings going on (dropped by the NIC, no mbufs, TX full, RSS skew, slow\n"
	  "link, NUMA) and the machine's (dpr-doctor's), with fixes.",
	  "dprctl doctor", run_doctor },
	{ "capture", NULL, "-w FILE [--drop R|all]... [--exception C|all]... [--port P]... [-c COUNT] [-s SNAPLEN] [--seconds N] [--max-bytes N]",
	  "What dpr dropped (by reason) or sent to its exception path (by class), as\n"
	  "pcapng with the reason in each packet's comment; until COUNT (1000) or\n"
	  "Ctrl-C. Without --drop or --exception: every drop.",
	  "dprctl capture -w /tmp/drops.pcapng --drop all -c 10", run_capture },
	{ "capture status", NULL, "", "The capture running, or the last one.",
	  "dprctl capture status", run_capture_status },
	{ "capture stop", NULL, "", "Stop the capture running.", "dprctl capture stop",
	  run_capture_stop },
	{ "config show", "config", "",
	  "The running configuration as a config file: ports, addresses, static\n"
	  "neighbours and the routes of the config and the api as they are now\n"
	  "(FPM's and the kernel's come back from their daemons).",
	  "dprctl config show", run_config_show },
	{ "config save", NULL, "FILE",
	  "Write the running configuration to FILE, atomically (a temporary file\n"
	  "beside it, then rename): dpr started with it comes back as it is now.",
	  "dprctl config save /etc/dpr/dpr.json", run_config_save },
	{ "rib check", NULL, "",
	  "Every next hop's references against the routes, candidates and neighbours\n"
	  "holding it (exit 1 and the mismatch: a defect).",
	  "dprctl rib check", run_rib_check },
	{ "acl set", NULL, "NAME [default permit|deny|reject] FILE|-|RULES",
	  "Create or replace an ACL at once (docs/security.md): RULES is JSON on the line, FILE\n"
	  "(- for stdin) holds the same: an array of rules, or {\"default\": ..., \"rules\": [...]}.\n"
	  "Refused input leaves the old ACL as it was.",
	  "dprctl acl set edge-in '[{\"action\": \"deny\", \"proto\": \"tcp\", \"dst_port\": 22}]'",
	  run_acl_set },
	{ "acl show", "acl get", "NAME", "An ACL's rules with their hits, summed over the workers.",
	  "dprctl acl show edge-in", run_acl_show },
	{ "acl list", NULL, "", "ACLs, where each is bound, and what looks wrong (unbound, shadowed rules).",
	  "dprctl acl list", run_acl_list },
	{ "acl bind", NULL, "NAME IFACE in|out",
	  "Filter what enters (in) or leaves (out) a port or VLAN interface with an ACL.",
	  "dprctl acl bind edge-in p0 in", run_acl_bind },
	{ "acl unbind", NULL, "[NAME] IFACE in|out", "Stop filtering an interface in one direction.",
	  "dprctl acl unbind p0 in", run_acl_unbind },
	{ "acl del", NULL, "NAME", "Delete an ACL that is bound nowhere.", "dprctl acl del edge-in",
	  run_acl_del },
	{ "call", NULL, "METHOD [PARAMS-JSON]", "Any JSON-RPC method (docs/control-api.md); prints its JSON.",
	  "dprctl call route.get '{\"address\": \"10.1.2.3\"}'", run_call },
	{ "help", NULL, "[COMMAND]", "All commands, or one command's syntax and an example.",
	  "dprctl help route add", run_help },
};

#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

/* How many of @p argv's words name @p name (1 or 2), or 0. */
static int
matches(const char *name, int argc, char **argv)
{
	const char *sp;
	size_t n;

	if (name == NULL || argc < 1)
		return 0;
	sp = strchr(name, ' ');
	if (sp == NULL)
		return strcmp(argv[0], name) == 0;
	n = (size_t)(sp - name);
	if (argc < 2 || strlen(argv[0]) != n || strncmp(argv[0], name, n) != 0)
		return 0;
	return strcmp(argv[1], sp + 1) == 0 ? 2 : 0;
}

/* The command @p argv names (the longest match), its words in @p used. */
static const struct cmd *
lookup(int argc, char **argv, int *used)
{
	const struct cmd *best = NULL;
	size_t i;
	int m;

	*used = 0;
	for (i = 0; i < N_CMDS; i++) {
		m = matches(cmds[i].name, argc, argv);
		if (m == 0)
			m = matches(cmds[i].alias, argc, argv);
		if (m > *used) {
			*used = m;
			best = &cmds[i];
		}
	}
	return best;
}

static void
help_one(FILE *f, const struct cmd *c)
{
	fprintf(f, "usage: dprctl %s%s%s\n", c->name, c->args[0] ? " " : "", c->args);
	if (c->alias != NULL)
		fprintf(f, "   or: dprctl %s ...\n", c->alias);
	fprintf(f, "\n%s\n\nexample: %s\n", c->about, c->example);
}

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: dprctl [-s SOCKET] [--json] [-6] COMMAND ...\n\n");
	for (i = 0; i < N_CMDS; i++)
		fprintf(f, "  %s%s%s\n", cmds[i].name, cmds[i].args[0] ? " " : "", cmds[i].args);
	fprintf(f, "\n"
		"  -s, --socket PATH   control socket (default $DPR_SOCKET or %s)\n"
		"  -j, --json          print results as JSON (anywhere on the line)\n"
		"  -6                  \"default\" is ::/0\n"
		"  -V, --version       dprctl's version\n"
		"\n"
		"dprctl help COMMAND (or COMMAND --help): its syntax and an example.\n"
		"Exit status: 0 done, 1 dpr refused, 2 bad usage, 3 cannot reach dpr.\n",
		DEFAULT_SOCKET);
}

/* help [COMMAND...]: one command, every command of an object ("help
 * route"), or all. */
static void
run_help(int argc, char **argv)
{
	const struct cmd *c;
	size_t i, shown = 0;
	int used;

	if (argc == 0) {
		usage(stdout);
		return;
	}
	c = lookup(argc, argv, &used);
	if (c != NULL && used == argc) {
		help_one(stdout, c);
		return;
	}
	for (i = 0; argc == 1 && i < N_CMDS; i++)
		if (strncmp(cmds[i].name, argv[0], strlen(argv[0])) == 0 &&
		    (cmds[i].name[strlen(argv[0])] == ' ' || cmds[i].name[strlen(argv[0])] == '\0')) {
			if (shown++ > 0)
				printf("\n");
			help_one(stdout, &cmds[i]);
		}
	if (shown == 0)
		die(2, "help: no command \"%s\" (dprctl help lists them)", argv[0]);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *c;
	bool want_help = false;
	int i, k, used;

	/* --json, -j and -6 anywhere on the line; --help or -h after a
	 * command asks for its help. "call" takes its words as they are. */
	for (i = 1, k = 1; i < argc; i++) {
		if (i > 1 && strcmp(argv[i - 1], "call") == 0) {
			while (i < argc)
				argv[k++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0)
			json_out = true;
		else if (strcmp(argv[i], "-6") == 0)
			family6 = true;
		else if (k > 1 && argv[k - 1][0] != '-' &&
			 (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0))
			want_help = true;
		else
			argv[k++] = argv[i];
	}
	argc = k;
	argv[argc] = NULL;

	sock_path = getenv("DPR_SOCKET") ? getenv("DPR_SOCKET") : DEFAULT_SOCKET;
	while ((i = getopt_long(argc, argv, "+s:hV", opts, NULL)) != -1) {
		switch (i) {
		case 's':
			sock_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("dprctl %s\n", DPR_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	/* "vrf NAME" past the command's first word ("vrf list" is a command;
	 * "help vrf add" names one). */
	for (i = 1, k = 1; i < argc && strcmp(argv[0], "call") != 0 &&
	     strcmp(argv[0], "help") != 0; i++) {
		if (strcmp(argv[i], "vrf") == 0 && i + 1 < argc)
			vrf_name = argv[++i];
		else
			argv[k++] = argv[i];
	}
	if (argc > 0 && strcmp(argv[0], "call") != 0 && strcmp(argv[0], "help") != 0) {
		argc = k;
		argv[argc] = NULL;
	}
	if (argc < 1) {
		usage(want_help ? stdout : stderr);
		return want_help ? 0 : 2;
	}
	c = lookup(argc, argv, &used);
	if (c == NULL) {
		size_t n = 0;

		/* An object without its verb: its commands. */
		for (k = 0; k < (int)N_CMDS; k++)
			if (strncmp(cmds[k].name, argv[0], strlen(argv[0])) == 0 &&
			    cmds[k].name[strlen(argv[0])] == ' ') {
				if (n++ == 0)
					fprintf(stderr, "dprctl: %s%s%s: expected one of:\n", argv[0],
						argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
				fprintf(stderr, "  dprctl %s %s\n", cmds[k].name, cmds[k].args);
			}
		if (n == 0)
			fprintf(stderr, "dprctl: unknown command \"%s\" (dprctl help lists them)\n",
				argv[0]);
		return 2;
	}
	if (want_help) {
		help_one(stdout, c);
		return 0;
	}
	/* Only the route and neigh commands act in a VRF (request()), and
	 * vlan add puts its interface in one: left out of another command's
	 * request, "vrf NAME" would change nothing it says ("addr list vrf
	 * red" listing every VRF's addresses). */
	if (vrf_name != NULL && strcmp(argv[0], "route") != 0 && strcmp(argv[0], "neigh") != 0 &&
	    strcmp(c->name, "vlan add") != 0)
		die(2, "%s: takes no \"vrf %s\": the route and neigh commands act in a VRF, vlan add puts an interface in one; the others act on interfaces, each in its own VRF (port list shows which)",
		    c->name, vrf_name);
	c->run(argc - used, argv + used);
	return 0;
}
