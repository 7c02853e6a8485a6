/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is one or more request lines for the JSON-RPC
 * handler, on a router built here (both families, no ports or workers),
 * exactly as the control socket hands them over. Every request gets one
 * line of JSON back (a notification gets none). The router's state carries
 * from one input to the next, as a long-running dpr's does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_log.h>

#include "api/rpc.h"
#include "../unit/test.h"
#include "../unit/rig.h"

static const char config_text[] =
	"{\"ports\": ["
	" {\"name\": \"p0\", \"device\": \"net_null0\", \"mac\": \"02:00:00:00:01:01\","
	"  \"addresses\": [\"10.0.1.1/24\", \"2001:db8:1::1/64\"]},"
	" {\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.2.1/24\", \"2001:db8:2::1/64\"]}],"
	" \"neighbors\": [{\"address\": \"10.0.1.2\", \"mac\": \"02:00:00:00:01:02\", \"port\": \"p0\"}],"
	" \"routes\": [{\"prefix\": \"198.51.100.0/24\", \"via\": \"10.0.2.2\"},"
	"             {\"prefix\": \"2001:db8:77::/48\", \"via\": \"2001:db8:2::2\"}],"
	" \"control\": {\"socket\": \"/tmp/dpr-fuzz-rpc.sock\"},"
#ifdef FUZZ_SMALL_FIB
	/* fuzz_rpc_small: a FIB of a few routes and groups, refusing all the time. */
	" \"fib\": {\"ipv4_max_routes\": 24, \"ipv4_tbl8_groups\": 16,"
	"          \"ipv6_max_routes\": 24, \"ipv6_tbl8_groups\": 16}}";
#else
	" \"fib\": {\"ipv4_max_routes\": 4096, \"ipv4_tbl8_groups\": 256,"
	"          \"ipv6_max_routes\": 4096}}";
#endif

static struct dpr_router R;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	if (test_eal_init((*argv)[0]) < 0 || test_router_init(&R, config_text, "fuzz_rpc") < 0)
		abort();
	rte_log_set_global_level(RTE_LOG_CRIT);
	R.n_workers = 0;
	R.n_ports = 0;
	return 0;
}

/* Whatever a request did, every next-hop reference is where it belongs. */
static void
check_rib(void)
{
	char why[512];

	if (dpr_router_check(&R, why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz_rpc: %s\n", why);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	/* Line by line, as the server splits what a client sends. */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl != NULL ? nl : end) - p);
		char *line = malloc(len + 1), *out;

		if (line == NULL)
			return 0;
		memcpy(line, p, len);
		line[len] = '\0';
		out = dpr_rpc_handle_text(&R, line, len);
		if (out != NULL) {
			json_t *j = json_loads(out, 0, NULL);

			if (j == NULL || strchr(out, '\n') != NULL) {
				fprintf(stderr, "fuzz_rpc: response is not one line of JSON: %.300s\n", out);
				abort();
			}
			json_decref(j);
			free(out);
		}
		free(line);
		p += len + 1;
		check_rib();
	}
	return 0;
}
