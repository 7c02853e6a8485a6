/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is one whole zebra connection (FPM frames of
 * netlink route and next-hop messages, as dplane_fpm_nl sends them) fed
 * through lib/fpm, the route sources and into the FIBs of a router built
 * here. Grace 0: the routes go when the connection does, so every input
 * starts from the configured state, which is checked after each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_log.h>

#include "api/server.h"
#include "fpm/fpm_router.h"
#include "nexthop/nexthop.h"
#include "../unit/test.h"
#include "../unit/rig.h"

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"tap\": \"lo\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\"]}],"
	" \"routes\": [{\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"}],"
	" \"fpm\": {\"listen\": \"127.0.0.1\", \"grace_s\": 0},"
#ifdef FUZZ_SMALL_FIB
	/* fuzz_fpm_small: a FIB of a few routes and groups, refusing all the time. */
	" \"fib\": {\"ipv4_max_routes\": 24, \"ipv4_tbl8_groups\": 16,"
	"          \"ipv6_max_routes\": 24, \"ipv6_tbl8_groups\": 16}}";
#else
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256,"
	"          \"ipv6_max_routes\": 4096}}";
#endif

static struct dpr_router R;
static uint32_t routes4, routes6, nexthops;

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* FUZZ_STATS=1: what the inputs did, at exit (is the harness reaching
 * the FIB at all?). */
static void
print_stats(void)
{
	json_t *j = dpr_fpm_router_stats_json(&R);
	char *s = json_dumps(j, JSON_COMPACT);

	fprintf(stderr, "fuzz_fpm: %s\n", s);
	free(s);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct dpr_config *cfg;
	char err[512], sock[64];

	(void)argc;
	if (test_eal_init((*argv)[0]) < 0 || test_router_init(&R, config_text, "fuzz_fpm") < 0)
		abort();
	rte_log_set_global_level(RTE_LOG_CRIT);
	/* Port 0 (any free one) is for tests only: the config checker refuses it. */
	cfg = (struct dpr_config *)(uintptr_t)R.cfg;
	snprintf(cfg->fpm.listen, sizeof(cfg->fpm.listen), "127.0.0.1:0");
	/* p0's "TAP" is lo: zebra's ifindex 1 is p0. */
	R.n_ports = 2;
	R.ports[0].has_tap = true;
	snprintf(sock, sizeof(sock), "/tmp/dpr-fuzz-fpm.%d.sock", (int)getpid());
	unlink(sock);
	R.server = dpr_server_create(&R, sock, "", err, sizeof(err));
	unlink(sock); /* the harness never connects: no file left behind */
	if (R.server == NULL || dpr_fpm_router_start(&R, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_fpm: %s\n", err);
		abort();
	}
	if (getenv("FUZZ_STATS") != NULL)
		atexit(print_stats);
	routes4 = R.fib4->n_routes;
	routes6 = dpr_fib6_count(R.fib6);
	nexthops = dpr_nh_count(R.nh);
	return 0;
}

/* Every next-hop reference is where it belongs (lib/route's rule). */
static void
check_rib(const char *when)
{
	char why[512];

	if (dpr_router_check(&R, why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz_fpm: %s: %s\n", when, why);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Frames keep netlink's 4-byte alignment: feed from an aligned copy. */
	uint8_t *buf = malloc(size + 1);

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	dpr_fpm_router_feed(&R, buf, size);
	free(buf);
	check_rib("after the frames");
	dpr_fpm_router_timers(&R); /* grace 0: the sweep is due now */
	check_rib("after the connection");
	/* Whatever came is gone again, and nothing leaked. */
	if (R.fib4->n_routes != routes4 || dpr_fib6_count(R.fib6) != routes6 ||
	    dpr_nh_count(R.nh) != nexthops) {
		fprintf(stderr, "fuzz_fpm: after the connection: %u IPv4 routes (want %u), %u IPv6 (want %u), %u next hops (want %u)\n",
			R.fib4->n_routes, routes4, dpr_fib6_count(R.fib6), routes6,
			dpr_nh_count(R.nh), nexthops);
		abort();
	}
	return 0;
}
