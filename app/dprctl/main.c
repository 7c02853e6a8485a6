/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dprctl: the command-line client of dpr's control socket.
 *
 *   dprctl [-s SOCKET] [--json] COMMAND ...
 *
 * Talks JSON-RPC 2.0, one request per line. Exit status: 0 done, 1 dpr
 * refused the request, 2 bad usage, 3 cannot reach dpr.
 */
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

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: dprctl [-s SOCKET] [--json] COMMAND ...\n"
		"\n"
		"  route add PREFIX via GATEWAY [dev PORT]   add a route (PREFIX dev PORT: attached);\n"
		"                                            a link-local gateway (fe80::1) needs dev PORT;\n"
		"                                            more \"via GATEWAY [dev PORT] [weight W]\":\n"
		"                                            multipath (up to 16, weights 1-256)\n"
		"  route replace PREFIX via GATEWAY ...      add or replace\n"
		"  route del PREFIX                          delete\n"
		"  route get ADDRESS [from SRC] [proto P] [sport N] [dport N]\n"
		"                                            longest-prefix match; with a flow, the\n"
		"                                            multipath member it takes (no RSS hash)\n"
		"  route list [--limit N] [source S]         all routes, IPv4 then IPv6 (or the first N;\n"
		"                                            S: router, config, api, fpm or kernel)\n"
		"  route load FILE|-                         many routes, one per line: \"PREFIX via\n"
		"                                            GATEWAY [dev PORT] [weight W] [via ...]\",\n"
		"                                            \"PREFIX dev PORT\", \"del PREFIX\"\n"
		"  addr add|del PORT ADDRESS/LEN             addresses of a port (10.0.1.1/24, 2001:db8::1/64)\n"
		"  addr list [PORT]\n"
		"  neigh add ADDRESS MAC [dev PORT]          static neighbour (link-local: dev PORT)\n"
		"  neigh del ADDRESS [dev PORT]\n"
		"  neigh list\n"
		"  port list\n"
		"  port show PORT                            what the device granted it: driver, link,\n"
		"                                            queues, offloads, RSS, NUMA; its warnings\n"
		"  doctor                                    warnings going on (dropped by the NIC, no\n"
		"                                            mbufs, TX full, RSS skew, slow link, NUMA)\n"
		"  stats                                     counters, drops by reason, cycles/packet\n"
		"  capture -w FILE [--drop R|all]... [--exception C|all]... [--port P]...\n"
		"          [-c COUNT] [-s SNAPLEN] [--seconds N] [--max-bytes N]\n"
		"                                            what dpr dropped (by reason) or sent to its\n"
		"                                            exception path (by class), as pcapng with the\n"
		"                                            reason in each packet's comment; until COUNT\n"
		"                                            (1000) or Ctrl-C. Without --drop/--exception:\n"
		"                                            every drop\n"
		"  capture status|stop                       the capture running (or the last one)\n"
		"  config [show]                             the running configuration, as a config file\n"
		"  config save FILE                          write it to FILE (atomically: whole or\n"
		"                                            not at all), for the next start\n"
		"  rib check                                 every next hop's references against the\n"
		"                                            routes, candidates and neighbours holding\n"
		"                                            it (exit 1 and the mismatch: a defect)\n"
		"  call METHOD [PARAMS-JSON]                 any JSON-RPC method\n"
		"\n"
		"  -s, --socket PATH   control socket (default $DPR_SOCKET or %s)\n"
		"  -j, --json          print results as JSON\n",
		DEFAULT_SOCKET);
}

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

/* Call @p method; returns its result or exits with dpr's error message. */
static json_t *
call(const char *method, json_t *params)
{
	json_t *resp = request(method, params), *err, *res;

	err = json_object_get(resp, "error");
	if (err != NULL) {
		fprintf(stderr, "dprctl: %s\n",
			json_string_value(json_object_get(err, "message")));
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

/*
 * PREFIX [via GW] [dev PORT] into params; several "via GW [dev PORT]
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

	if (argc < 1)
		die(2, "give a prefix: route add PREFIX via GATEWAY [dev PORT]");
	p = json_pack("{s:s}", "prefix", argv[0]);
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			die(2, "\"%s\" needs a value", argv[i]);
		if (nh == NULL || (strcmp(argv[i], "via") == 0 && json_object_get(nh, "via") != NULL)) {
			nh = json_object();
			json_array_append_new(nhs, nh);
		}
		if (strcmp(argv[i], "via") == 0) {
			json_object_set_new(nh, "via", json_string(argv[i + 1]));
		} else if ((strcmp(argv[i], "dev") == 0 || strcmp(argv[i], "port") == 0) &&
			   json_object_get(nh, "port") == NULL) {
			json_object_set_new(nh, "port", json_string(argv[i + 1]));
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
	p = json_pack("{s:s}", "address", argv[0]);
	for (argc--, argv++; argc >= 2; argc -= 2, argv += 2) {
		unsigned long v = strtoul(argv[1], &end, 10);
		bool number = argv[1][0] >= '0' && argv[1][0] <= '9' && *end == '\0';

		if (strcmp(argv[0], "from") == 0) {
			json_object_set_new(p, "source", json_string(argv[1]));
		} else if (strcmp(argv[0], "proto") == 0) {
			json_object_set_new(p, "protocol", number ? json_integer((json_int_t)v) :
					    json_string(argv[1]));
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

static void
route_list(int argc, char **argv)
{
	uint64_t limit = UINT64_MAX, shown = 0;
	json_t *all = json_array(), *res, *r;
	char after[64] = "";
	size_t i;

	const char *source = NULL;

	for (; argc >= 2; argc -= 2, argv += 2) {
		if (strcmp(argv[0], "--limit") == 0)
			limit = strtoull(argv[1], NULL, 10);
		else if (strcmp(argv[0], "source") == 0)
			source = argv[1];
		else
			break;
	}
	if (argc != 0)
		die(2, "usage: route list [--limit N] [source router|config|api|fpm|kernel]");
	do {
		uint64_t page = limit - shown < LIST_PAGE ? limit - shown : LIST_PAGE;
		json_t *p = json_pack("{s:I}", "limit", (json_int_t)page);

		if (after[0] != '\0')
			json_object_set_new(p, "after", json_string(after));
		if (source != NULL)
			json_object_set_new(p, "source", json_string(source));
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

/*
 * Stream a route file in chunks: any size, bounded memory. Errors name the
 * file and line.
 */
static void
route_load(const char *file)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	bool bar = isatty(STDOUT_FILENO) && !json_out;
	unsigned long *lines = malloc(LOAD_CHUNK * sizeof(*lines)), lineno = 0;
	uint64_t loaded = 0;
	char *line = NULL;
	size_t cap = 0;
	long size = -1;
	double t0 = now();
	json_t *chunk = json_array(), *res = NULL;
	ssize_t n;

	if (f == NULL)
		die(2, "%s: %s", file, strerror(errno));
	if (f != stdin && fseek(f, 0, SEEK_END) == 0) {
		size = ftell(f);
		rewind(f);
	}
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
			lines[json_array_size(chunk)] = lineno;
			json_array_append_new(chunk, json_string(s));
		}
		if (json_array_size(chunk) == LOAD_CHUNK || (n < 0 && json_array_size(chunk) > 0)) {
			json_t *resp = request("route.load", json_pack("{s:O}", "routes", chunk));
			json_t *err = json_object_get(resp, "error");
			const char *p;
			size_t idx;

			if (err != NULL) {
				const char *msg = str(err, "message");

				if (bar)
					printf("\n");
				/* "route.load: routes[12]: ..." -> "FILE:LINE: ..." */
				p = strstr(msg, "routes[");
				if (p != NULL && sscanf(p, "routes[%zu]", &idx) == 1 &&
				    idx < json_array_size(chunk) && (p = strstr(p, "]: ")) != NULL)
					fprintf(stderr, "dprctl: %s:%lu: %s (%" PRIu64 " routes loaded before it)\n",
						file, lines[idx], p + 3, loaded);
				else
					fprintf(stderr, "dprctl: %s: %s (%" PRIu64 " routes loaded before it)\n",
						file, msg, loaded);
				exit(1);
			}
			loaded += json_array_size(chunk);
			json_decref(res);
			res = json_incref(json_object_get(resp, "result"));
			json_decref(resp);
			json_array_clear(chunk);
			if (bar)
				progress(loaded, f == stdin ? -1 : ftell(f), size, t0);
		}
		if (n < 0)
			break;
	}
	if (bar)
		printf("\n");
	if (json_out)
		printf("{\"loaded\": %" PRIu64 ", \"seconds\": %.3f, \"routes\": %" JSON_INTEGER_FORMAT
		       ", \"ipv4_routes\": %" JSON_INTEGER_FORMAT ", \"ipv6_routes\": %" JSON_INTEGER_FORMAT
		       "}\n", loaded, now() - t0, res ? num(res, "routes") : 0,
		       res ? num(res, "ipv4_routes") : 0, res ? num(res, "ipv6_routes") : 0);
	else
		printf("loaded %" PRIu64 " routes in %.2f s (%.0f routes/s); the FIB holds %" JSON_INTEGER_FORMAT "\n",
		       loaded, now() - t0, (double)loaded / (now() - t0 > 0 ? now() - t0 : 1),
		       res ? num(res, "routes") : 0);
	json_decref(res);
	json_decref(chunk);
	free(line);
	free(lines);
	if (f != stdin)
		fclose(f);
}

static void
cmd_route(int argc, char **argv)
{
	json_t *res;

	if (argc < 1)
		die(2, "route: add, replace, del, get, list or load");
	if (strcmp(argv[0], "add") == 0 || strcmp(argv[0], "replace") == 0) {
		res = call(argv[0][0] == 'a' ? "route.add" : "route.replace",
			   route_params(argc - 1, argv + 1));
		json_out ? print_json(res) : print_route(res);
	} else if (strcmp(argv[0], "del") == 0) {
		if (argc != 2)
			die(2, "usage: route del PREFIX");
		res = call("route.del", json_pack("{s:s}", "prefix", argv[1]));
		if (json_out)
			print_json(res);
	} else if (strcmp(argv[0], "get") == 0) {
		res = call("route.get", route_get_params(argc - 1, argv + 1));
		if (json_out) {
			print_json(res);
		} else {
			json_t *m = json_object_get(res, "member");

			print_route(res);
			if (m != NULL)
				printf("  this flow: via %s dev %s\n", str(m, "via"), str(m, "port"));
		}
	} else if (strcmp(argv[0], "list") == 0 || strcmp(argv[0], "show") == 0) {
		route_list(argc - 1, argv + 1);
		return;
	} else if (strcmp(argv[0], "load") == 0) {
		if (argc != 2)
			die(2, "usage: route load FILE (or - for standard input)");
		route_load(argv[1]);
		return;
	} else {
		die(2, "route: unknown command \"%s\"", argv[0]);
	}
	json_decref(res);
}

/* --- addr, neigh, port --------------------------------------------------- */

static void
cmd_addr(int argc, char **argv)
{
	json_t *res, *a;
	size_t i;

	if (argc >= 1 && (strcmp(argv[0], "add") == 0 || strcmp(argv[0], "del") == 0)) {
		if (argc != 3)
			die(2, "usage: addr %s PORT ADDRESS/LEN", argv[0]);
		res = call(argv[0][0] == 'a' ? "addr.add" : "addr.del",
			   json_pack("{s:s,s:s}", "port", argv[1], "address", argv[2]));
	} else if (argc >= 1 && (strcmp(argv[0], "list") == 0 || strcmp(argv[0], "show") == 0)) {
		res = call("addr.list", argc == 2 ? json_pack("{s:s}", "port", argv[1]) : NULL);
		if (!json_out) {
			printf("%-11s %s\n", "PORT", "ADDRESS");
			json_array_foreach(res, i, a)
				printf("%-11s %s\n", str(a, "port"), str(a, "address"));
		}
	} else {
		die(2, "addr: add, del or list");
	}
	if (json_out)
		print_json(res);
	json_decref(res);
}

static void
cmd_neigh(int argc, char **argv)
{
	json_t *res, *n;
	size_t i;

	if (argc >= 1 && strcmp(argv[0], "add") == 0) {
		json_t *p;

		if (argc != 3 && !(argc == 5 && strcmp(argv[3], "dev") == 0))
			die(2, "usage: neigh add ADDRESS MAC [dev PORT]");
		p = json_pack("{s:s,s:s}", "address", argv[1], "mac", argv[2]);
		if (argc == 5)
			json_object_set_new(p, "port", json_string(argv[4]));
		res = call("neigh.add", p);
	} else if (argc >= 1 && strcmp(argv[0], "del") == 0) {
		json_t *p;

		if (argc != 2 && !(argc == 4 && strcmp(argv[2], "dev") == 0))
			die(2, "usage: neigh del ADDRESS [dev PORT]");
		p = json_pack("{s:s}", "address", argv[1]);
		if (argc == 4)
			json_object_set_new(p, "port", json_string(argv[3]));
		res = call("neigh.del", p);
	} else if (argc >= 1 && (strcmp(argv[0], "list") == 0 || strcmp(argv[0], "show") == 0)) {
		int w = 15;

		res = call("neigh.list", NULL);
		if (!json_out) {
			/* As wide as the longest address (IPv6 ones). */
			json_array_foreach(res, i, n)
				if ((int)strlen(str(n, "address")) > w)
					w = (int)strlen(str(n, "address"));
			printf("%-*s %-17s %-11s %-10s %s\n", w, "ADDRESS", "MAC", "PORT", "STATE",
			       "STATIC");
			json_array_foreach(res, i, n)
				printf("%-*s %-17s %-11s %-10s %s\n", w, str(n, "address"),
				       str(n, "mac"), str(n, "port"), str(n, "state"),
				       json_is_true(json_object_get(n, "static")) ? "yes" : "no");
		}
	} else {
		die(2, "neigh: add, del or list");
	}
	if (json_out)
		print_json(res);
	json_decref(res);
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
	json_t *rss = json_object_get(f, "rss"), *numa = json_object_get(f, "numa"), *w;
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
port_show(const char *name)
{
	json_t *res = call("port.show", json_pack("{s:s}", "port", name));

	if (json_out)
		print_json(res);
	else
		print_facts(res);
	json_decref(res);
}

static void
cmd_doctor(void)
{
	json_t *res = call("doctor.get", NULL), *warn, *f;
	size_t i;

	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	warn = json_object_get(res, "warnings");
	if (json_array_size(warn) == 0)
		printf("no warnings\n");
	else
		print_warnings(warn, "warning: ");
	/* dpr-doctor's findings on this machine: errors and warnings, with fixes. */
	json_array_foreach(json_object_get(res, "machine"), i, f) {
		const char *sev = str(f, "severity");
		json_t *fix;
		size_t k;

		if (strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0)
			continue;
		printf("%s: %s: %s\n", sev, str(f, "check"), str(f, "message"));
		json_array_foreach(json_object_get(f, "fix"), k, fix)
			printf(json_string_value(fix)[0] == '#' ? "  %s\n" : "  fix: %s\n",
			       json_string_value(fix));
	}
	json_array_foreach(json_object_get(res, "ports"), i, f) {
		json_t *link = json_object_get(f, "link"), *q = json_object_get(f, "queues");

		printf("%-11s %-14s %-8s link %-7s %6" JSON_INTEGER_FORMAT " Mb/s %3" JSON_INTEGER_FORMAT
		       " rxq  numa %s\n", str(f, "name"), str(f, "driver"), str(f, "kind"),
		       str(link, "state"), num(link, "speed_mbps"), num(q, "rx"),
		       json_is_true(json_object_get(json_object_get(f, "numa"), "ok")) ? "ok" : "split");
	}
	json_decref(res);
}

static void
cmd_port(int argc, char **argv)
{
	json_t *res, *p, *a;
	size_t i, k;

	if (argc == 2 && strcmp(argv[0], "show") == 0) {
		port_show(argv[1]);
		return;
	}
	if (argc > 1 || (argc == 1 && strcmp(argv[0], "list") != 0))
		die(2, "usage: port list | port show PORT");
	res = call("port.list", NULL);
	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	printf("%-11s %-14s %-17s %-5s %-7s %-4s %-4s %s\n", "NAME", "DRIVER", "MAC", "MTU",
	       "LINK", "RXQ", "TXQ", "ADDRESSES");
	json_array_foreach(res, i, p) {
		printf("%-11s %-14s %-17s %-5" JSON_INTEGER_FORMAT " %-7s %-4" JSON_INTEGER_FORMAT
		       " %-4" JSON_INTEGER_FORMAT " ", str(p, "name"), str(p, "driver"), str(p, "mac"),
		       num(p, "mtu"), str(p, "link"),
		       num(p, "rx_queues"), num(p, "tx_queues"));
		json_array_foreach(json_object_get(p, "addresses"), k, a)
			printf("%s%s", k ? " " : "", json_string_value(a));
		printf("\n");
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
	json_array_append_new(v, json_string(name));
}

static void
cmd_capture(int argc, char **argv)
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

	if (argc == 2 && (strcmp(argv[1], "status") == 0 || strcmp(argv[1], "stop") == 0)) {
		st = call(strcmp(argv[1], "stop") == 0 ? "capture.stop" : "capture.get", NULL);
		if (json_out)
			print_json(st);
		else if (!json_is_true(json_object_get(st, "running")) &&
			 json_object_get(st, "file") == NULL)
			printf("no capture\n");
		else
			capture_summary(st);
		json_decref(st);
		return;
	}
	params = json_object();
	optind = 0; /* argv[0] is "capture": getopt_long starts after it */
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
	json_object_set_new(params, "file", json_string(file));
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

static void
stats_row(const char *name, json_t *c, const char *extra)
{
	json_t *drops = json_object_get(c, "drops"), *v;
	const char *reason;
	bool any = false;

	printf("%-11s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT
	       " %10" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT "%s\n", name, num(c, "rx"),
	       num(c, "forwarded"), num(c, "tx"), num(c, "exception"), num(c, "dropped"), extra);
	json_object_foreach(drops, reason, v) {
		if (json_integer_value(v) == 0)
			continue;
		printf("%s%s=%" JSON_INTEGER_FORMAT, any ? " " : "    drops: ", reason,
		       json_integer_value(v));
		any = true;
	}
	if (any)
		printf("\n");
}

static void
cmd_stats(void)
{
	json_t *res = call("stats.get", NULL), *p, *fib;
	char name[32], extra[64];
	size_t i;

	if (json_out) {
		print_json(res);
		json_decref(res);
		return;
	}
	printf("%-11s %14s %14s %14s %10s %10s\n", "PORT", "RX", "FORWARDED", "TX", "EXCEPTION",
	       "DROPPED");
	json_array_foreach(json_object_get(res, "ports"), i, p)
		stats_row(str(p, "name"), p, "");
	stats_row("total", json_object_get(res, "total"), "");
	printf("\n%-11s %14s %14s %14s %10s %10s %11s %s\n", "WORKER", "RX", "FORWARDED", "TX",
	       "EXCEPTION", "DROPPED", "CYCLES/PKT", "PIPELINED");
	json_array_foreach(json_object_get(res, "workers"), i, p) {
		/* The tuner's last verdict: pipelined's cost over at once's. */
		json_t *probe = json_object_get(json_object_get(p, "pipeline_last_probe"),
						"pipelined_over_at_once");
		char verdict[32] = "";

		if (probe != NULL)
			snprintf(verdict, sizeof(verdict), ", last probe %.3f",
				 json_real_value(probe));
		snprintf(name, sizeof(name), "lcore %" JSON_INTEGER_FORMAT, num(p, "lcore"));
		snprintf(extra, sizeof(extra), " %11.1f %s (%s%s)",
			 json_real_value(json_object_get(p, "cycles_per_packet")),
			 json_is_true(json_object_get(p, "pipelined")) ? "yes" : "no",
			 str(p, "pipeline"), verdict);
		stats_row(name, p, extra);
	}
	printf("\n%-11s %14s %14s %14s %10s %14s %10s\n", "NIC", "RX", "MISSED", "NO MBUF",
	       "RX ERRORS", "TX", "TX ERRORS");
	json_array_foreach(json_object_get(res, "ports"), i, p) {
		json_t *n = json_object_get(p, "nic");

		if (n != NULL)
			printf("%-11s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT
			       " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT
			       " %14" JSON_INTEGER_FORMAT " %10" JSON_INTEGER_FORMAT "\n",
			       str(p, "name"), num(n, "rx_packets"), num(n, "rx_missed"),
			       num(n, "rx_nombuf"), num(n, "rx_errors"), num(n, "tx_packets"),
			       num(n, "tx_errors"));
	}
	fib = json_object_get(res, "fib");
	if (fib != NULL)
		printf("\nfib: %" JSON_INTEGER_FORMAT " IPv4 routes (of %" JSON_INTEGER_FORMAT
		       "), %.1f MiB; %" JSON_INTEGER_FORMAT " IPv6 routes (of %" JSON_INTEGER_FORMAT
		       "), %.1f MiB, %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
		       " tbl8 groups; %" JSON_INTEGER_FORMAT " next hops\n",
		       num(fib, "ipv4_routes"), num(fib, "ipv4_max_routes"),
		       (double)num(fib, "ipv4_memory_bytes") / (1 << 20),
		       num(fib, "ipv6_routes"), num(fib, "ipv6_max_routes"),
		       (double)num(fib, "ipv6_memory_bytes") / (1 << 20),
		       num(fib, "ipv6_tbl8_used"), num(fib, "ipv6_tbl8_groups"), num(res, "nexthops"));
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
 * the mode of the file it replaces. dpr never opens the path itself.
 */
static void
config_save(const char *file)
{
	char *dir = strdup(file);
	struct stat st;
	mode_t mask;
	FILE *f;
	size_t n;
	int fd;

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
	if (json_out) {
		json_t *res = json_pack("{s:s,s:I}", "file", file, "routes", (json_int_t)n);

		print_json(res);
		json_decref(res);
	} else {
		printf("saved the running configuration to %s (%zu routes)\n", file, n);
	}
}

/* "config [show]", "config save FILE". */
static void
cmd_config(int argc, char **argv)
{
	if (argc == 0 || (argc == 1 && strcmp(argv[0], "show") == 0))
		config_write(stdout, "standard output");
	else if (argc == 2 && strcmp(argv[0], "save") == 0)
		config_save(argv[1]);
	else
		die(2, "usage: config [show] | config save FILE");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	sock_path = getenv("DPR_SOCKET") ? getenv("DPR_SOCKET") : DEFAULT_SOCKET;
	while ((c = getopt_long(argc, argv, "+s:jh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock_path = optarg;
			break;
		case 'j':
			json_out = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[0], "route") == 0) {
		cmd_route(argc - 1, argv + 1);
	} else if (strcmp(argv[0], "addr") == 0) {
		cmd_addr(argc - 1, argv + 1);
	} else if (strcmp(argv[0], "neigh") == 0) {
		cmd_neigh(argc - 1, argv + 1);
	} else if (strcmp(argv[0], "port") == 0) {
		cmd_port(argc - 1, argv + 1);
	} else if (strcmp(argv[0], "stats") == 0) {
		cmd_stats();
	} else if (strcmp(argv[0], "doctor") == 0) {
		cmd_doctor();
	} else if (strcmp(argv[0], "capture") == 0) {
		cmd_capture(argc, argv);
	} else if (strcmp(argv[0], "config") == 0) {
		cmd_config(argc - 1, argv + 1);
	} else if (strcmp(argv[0], "rib") == 0) {
		json_t *res;

		if (argc != 2 || strcmp(argv[1], "check") != 0)
			die(2, "usage: rib check");
		res = call("rib.check", NULL);
		if (json_out)
			print_json(res);
		else
			printf("ok: %" JSON_INTEGER_FORMAT " next hops, %" JSON_INTEGER_FORMAT
			       " IPv4 and %" JSON_INTEGER_FORMAT " IPv6 routes agree\n",
			       num(res, "nexthops"), num(res, "ipv4_routes"), num(res, "ipv6_routes"));
		json_decref(res);
	} else if (strcmp(argv[0], "call") == 0) {
		json_t *params = NULL, *res;
		json_error_t je;

		if (argc < 2 || argc > 3)
			die(2, "usage: call METHOD [PARAMS-JSON]");
		if (argc == 3 && (params = json_loads(argv[2], 0, &je)) == NULL)
			die(2, "params: %s", je.text);
		res = call(argv[1], params);
		print_json(res);
		json_decref(res);
	} else {
		usage(stderr);
		return 2;
	}
	return 0;
}
