/* SPDX-License-Identifier: BSD-3-Clause */
/* The Prometheus text made of a stats.get answer (lib/metrics): names,
 * types, label escaping, grouping, and the bound on its size. No EAL. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "test.h"
#include "metrics/metrics.h"

/* A stats.get answer with what the text is made of, and oddities. */
static json_t *
stats_fixture(void)
{
	json_error_t e;
	json_t *j = json_loads("{"
		"\"ports\": [{\"name\": \"p\\\"0\\\\\", \"rx\": 30, \"forwarded\": 20, \"tx\": 0,"
		"  \"exception\": 7, \"dropped\": 3, \"drops\": {\"martian\": 3, \"runt\": 0},"
		"  \"exceptions\": {\"ttl_expired\": 7}, \"nic\": {\"rx_packets\": 30, \"Bad-Key\": 1}},"
		" {\"name\": \"p1\", \"rx\": 0, \"forwarded\": 0, \"tx\": 20, \"exception\": 0,"
		"  \"drops\": {\"martian\": 0, \"runt\": 0}, \"exceptions\": {\"ttl_expired\": 0}}],"
		"\"workers\": [{\"rx\": 30, \"forwarded\": 20, \"tx\": 20, \"exception\": 7,"
		"  \"drops\": {\"martian\": 3}, \"exceptions\": {\"ttl_expired\": 7}, \"lcore\": 1,"
		"  \"busy_cycles\": 123456789012, \"pipelined\": true, \"pipeline\": \"auto\","
		"  \"pipeline_probes\": 2, \"pipeline_changes\": 1, \"cycles_per_packet\": 4.5}],"
		"\"tsc_hz\": 2000000000,"
		"\"neighbors\": {\"reachable\": 2, \"incomplete\": 1, \"static\": 2},"
		"\"route_sources\": {\"config\": {\"held\": 1, \"active\": 1, \"stale\": 0},"
		"  \"not_installed\": 0},"
		"\"exception_path\": {\"arp_requests_in\": 4, \"learned\": 1, \"ipv6\": {\"ns_in\": 5}},"
		"\"fpm\": {\"enabled\": false}"
		"}", 0, &e);

	if (j == NULL)
		fprintf(stderr, "fixture: %s\n", e.text);
	return j;
}

static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
		p += n;
	}
	return false;
}

/* Every sample's family has # HELP and # TYPE before it, and a family's
 * samples are together (the format requires both). */
static void
check_grouping(char *text)
{
	char seen[256][128], cur[128] = "";
	unsigned int n_seen = 0, i;
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (strncmp(line, "# TYPE ", 7) == 0) {
			sscanf(line + 7, "%127s", cur);
			for (i = 0; i < n_seen; i++)
				CHECK(strcmp(seen[i], cur) != 0, "family %s twice", cur);
			if (n_seen < RTE_DIM(seen))
				snprintf(seen[n_seen++], sizeof(seen[0]), "%s", cur);
			continue;
		}
		if (line[0] == '#')
			continue;
		sscanf(line, "%127[^{ ]", name);
		CHECK(strcmp(name, cur) == 0, "sample %s outside its family (in %s)", name, cur);
	}
}

static void
test_text(void)
{
	json_t *stats = stats_fixture();
	size_t len = 0;
	char *text, *z;

	CHECK(stats != NULL, "fixture parses");
	if (stats == NULL)
		return;
	text = dpr_metrics_text(stats, &len);
	CHECK(text != NULL, "text made");
	if (text == NULL)
		return;
	z = strndup(text, len);
	CHECK(has_line(z, "# TYPE dpr_port_rx_packets_total counter"), "rx type");
	CHECK(has_line(z, "dpr_port_rx_packets_total{port=\"p\\\"0\\\\\"} 30"), "escaped label");
	CHECK(has_line(z, "dpr_port_drops_total{port=\"p1\",reason=\"martian\"} 0"), "drops p1");
	CHECK(has_line(z, "dpr_port_drops_total{port=\"p\\\"0\\\\\",reason=\"martian\"} 3"), "drops p0");
	CHECK(has_line(z, "dpr_port_exceptions_total{port=\"p1\",class=\"ttl_expired\"} 0"), "exc");
	CHECK(has_line(z, "dpr_port_tx_packets_total{port=\"p1\"} 20"), "tx");
	CHECK(has_line(z, "dpr_port_nic_rx_packets_total{port=\"p\\\"0\\\\\"} 30"), "nic");
	CHECK(strstr(z, "Bad-Key") == NULL, "a key that is no name part is left out");
	CHECK(has_line(z, "dpr_worker_busy_cycles_total{worker=\"0\"} 123456789012"), "busy");
	CHECK(has_line(z, "dpr_worker_pipelined{worker=\"0\"} 1"), "boolean as 1");
	CHECK(has_line(z, "dpr_worker_info{worker=\"0\",lcore=\"1\",pipeline=\"auto\"} 1"), "info");
	CHECK(strstr(z, "cycles_per_packet") == NULL, "ratios are left to PromQL");
	CHECK(has_line(z, "dpr_tsc_hz 2000000000"), "tsc");
	CHECK(has_line(z, "dpr_neighbors{state=\"incomplete\"} 1"), "neighbours");
	CHECK(has_line(z, "dpr_routes_active{source=\"config\"} 1"), "routes by source");
	CHECK(has_line(z, "dpr_exception_path_events_total{event=\"arp_requests_in\"} 4"), "event");
	CHECK(strstr(z, "event=\"learned\"") == NULL, "gauges are no events");
	CHECK(has_line(z, "dpr_neighbors_learned 1"), "learned gauge");
	CHECK(has_line(z, "dpr_exception_path_ipv6_events_total{event=\"ns_in\"} 5"), "ipv6");
	CHECK(strstr(z, "dpr_fib_") == NULL, "no FIB families without stats.get's fib");
	CHECK(strstr(z, "dpr_fpm_connected") == NULL, "no fpm gauge when fpm is off");
	check_grouping(z);
	free(z);
	free(text);
	json_decref(stats);
}

/* Past DPR_METRICS_TEXT_MAX the text is refused, not cut. */
static void
test_bound(void)
{
	json_t *stats = stats_fixture(), *ports = json_array();
	size_t len, i;
	char *text;

	for (i = 0; i < 100000; i++)
		json_array_append(ports, json_array_get(json_object_get(stats, "ports"), 0));
	json_object_set_new(stats, "ports", ports);
	errno = 0;
	text = dpr_metrics_text(stats, &len);
	CHECK(text == NULL && errno == EFBIG, "refused with EFBIG (errno %d)", errno);
	free(text);
	json_decref(stats);
}

/* VRFs: the interfaces' series carry their VRF; each VRF's FIB figures
 * and interface count are labelled vrf (and family). */
static void
test_vrf(void)
{
	json_t *stats = stats_fixture(), *ports;
	json_error_t je;
	size_t len = 0;
	char *text, *z;

	CHECK(stats != NULL, "fixture parses");
	if (stats == NULL)
		return;
	ports = json_object_get(stats, "ports");
	json_object_set_new(json_array_get(ports, 0), "vrf", json_string("default"));
	json_object_set_new(json_array_get(ports, 1), "vrf", json_string("red"));
	json_array_append_new(ports, json_loads("{\"name\": \"p1.100\", \"vrf\": \"red\","
		" \"parent\": \"p1\", \"vlan_id\": 100, \"rx\": 5, \"forwarded\": 4, \"tx\": 1,"
		" \"exception\": 0, \"drops\": {\"martian\": 1}, \"exceptions\": {}}", 0, &je));
	json_object_set_new(stats, "vrfs", json_loads("["
		"{\"name\": \"default\", \"table\": 254, \"fib\": {\"ipv4_routes\": 3,"
		"  \"ipv4_memory_bytes\": 67108864, \"ipv6_routes\": 2}},"
		"{\"name\": \"red\", \"table\": 100, \"fib\": {\"ipv4_routes\": 7,"
		"  \"ipv4_memory_bytes\": 4096, \"ipv6_routes\": 0, \"ipv6_memory_bytes\": 512}},"
		"{\"name\": \"blue\", \"table\": 200, \"fib\": {}}]", 0, &je));
	text = dpr_metrics_text(stats, &len);
	CHECK(text != NULL, "text made");
	if (text == NULL) {
		json_decref(stats);
		return;
	}
	z = strndup(text, len);
	CHECK(has_line(z, "dpr_port_rx_packets_total{port=\"p1\",vrf=\"red\"} 0"), "vrf label");
	CHECK(has_line(z, "dpr_port_rx_packets_total{port=\"p1.100\",vrf=\"red\"} 5"),
	      "a VLAN interface's series");
	CHECK(has_line(z, "dpr_port_drops_total{port=\"p1.100\",vrf=\"red\",reason=\"martian\"} 1"),
	      "drops of a VLAN interface");
	CHECK(has_line(z, "dpr_vrf_info{vrf=\"red\",table=\"100\"} 1"), "vrf info");
	CHECK(has_line(z, "dpr_vrf_interfaces{vrf=\"red\"} 2"), "red has two interfaces");
	CHECK(has_line(z, "dpr_vrf_interfaces{vrf=\"blue\"} 0"), "blue has none");
	CHECK(has_line(z, "dpr_vrf_routes{vrf=\"red\",family=\"ipv4\"} 7"), "routes");
	CHECK(has_line(z, "dpr_vrf_routes{vrf=\"default\",family=\"ipv6\"} 2"), "routes v6");
	CHECK(has_line(z, "dpr_vrf_fib_memory_bytes{vrf=\"default\",family=\"ipv4\"} 67108864"),
	      "memory");
	CHECK(has_line(z, "dpr_vrf_fib_memory_bytes{vrf=\"red\",family=\"ipv6\"} 512"), "memory v6");
	check_grouping(z);
	free(z);
	free(text);
	json_decref(stats);
}

/* The exposition of @p stats after floor @p f, as a C string. */
static char *
floored_text(struct dpr_metrics_floor *f, const char *stats_text)
{
	json_error_t je;
	json_t *stats = json_loads(stats_text, 0, &je);
	char *text, *z = NULL;
	size_t len;

	CHECK(stats != NULL, "snapshot parses: %s", stats == NULL ? je.text : "");
	if (stats == NULL)
		return NULL;
	dpr_metrics_floor_apply(f, stats);
	text = dpr_metrics_text(stats, &len);
	if (text != NULL)
		z = strndup(text, len);
	free(text);
	json_decref(stats);
	return z;
}

/*
 * A worker takes back forwarded (full TX queue), exception and its class
 * (protection, full ring) and control_plane passed in the loop that counted
 * them: a scrape in between saw more than the next. The second exposition
 * must not fall; an interface deleted (vlan.del) and made again under its
 * name starts from its own counters.
 */
static void
test_monotonic(void)
{
#define SNAP(fwd, exc, passed, vlan) \
	"{\"ports\": [{\"name\": \"p0\", \"vrf\": \"default\", \"rx\": 100," \
	" \"forwarded\": " #fwd ", \"tx\": 0, \"exception\": " #exc "," \
	" \"drops\": {}, \"exceptions\": {\"arp\": " #exc "}}" vlan "]," \
	"\"workers\": [{\"rx\": 100, \"forwarded\": " #fwd ", \"tx\": 0," \
	" \"exception\": " #exc ", \"drops\": {}, \"exceptions\": {\"arp\": " #exc "}}]," \
	"\"control_plane\": {\"classes\": {\"arp\": {\"passed\": " #passed "," \
	" \"over_rate\": 0, \"over_share\": 0, \"rate\": 100}}}}"
#define VLAN(fwd) ", {\"name\": \"p0.10\", \"vrf\": \"default\", \"rx\": 50," \
	" \"forwarded\": " #fwd ", \"tx\": 0, \"exception\": 0, \"drops\": {}," \
	" \"exceptions\": {}}"
	struct dpr_metrics_floor *f = dpr_metrics_floor_create();
	char *z;

	CHECK(f != NULL, "floor made");
	if (f == NULL)
		return;
	z = floored_text(f, SNAP(90, 9, 9, VLAN(40)));
	CHECK(z != NULL && has_line(z, "dpr_port_forwarded_packets_total{port=\"p0\",vrf=\"default\"} 90"),
	      "first scrape as read");
	free(z);
	/* Taken back: a full TX queue, a full exception ring. */
	z = floored_text(f, SNAP(88, 7, 7, VLAN(39)));
	CHECK(z != NULL, "second text");
	if (z != NULL) {
		CHECK(has_line(z, "dpr_port_forwarded_packets_total{port=\"p0\",vrf=\"default\"} 90"),
		      "port forwarded does not fall");
		CHECK(has_line(z, "dpr_port_exception_packets_total{port=\"p0\",vrf=\"default\"} 9"),
		      "port exception does not fall");
		CHECK(has_line(z, "dpr_port_exceptions_total{port=\"p0\",vrf=\"default\",class=\"arp\"} 9"),
		      "port exceptions by class do not fall");
		CHECK(has_line(z, "dpr_worker_forwarded_packets_total{worker=\"0\"} 90"),
		      "worker forwarded does not fall");
		CHECK(has_line(z, "dpr_worker_exception_packets_total{worker=\"0\"} 9"),
		      "worker exception does not fall");
		CHECK(has_line(z, "dpr_worker_exceptions_total{worker=\"0\",class=\"arp\"} 9"),
		      "worker exceptions by class do not fall");
		CHECK(has_line(z, "dpr_control_plane_packets_total{class=\"arp\",result=\"passed\"} 9"),
		      "control plane passed does not fall");
		CHECK(has_line(z, "dpr_port_forwarded_packets_total{port=\"p0.10\",vrf=\"default\"} 40"),
		      "VLAN interface forwarded does not fall");
		CHECK(has_line(z, "dpr_port_rx_packets_total{port=\"p0\",vrf=\"default\"} 100"),
		      "rx as read");
	}
	free(z);
	/* Counting went on past the floor: exported as read. */
	z = floored_text(f, SNAP(95, 12, 12, VLAN(45)));
	CHECK(z != NULL && has_line(z, "dpr_port_forwarded_packets_total{port=\"p0\",vrf=\"default\"} 95"),
	      "a higher value is exported");
	free(z);
	/* vlan.del p0.10, vlan.add p0.10: its counters start again. */
	dpr_metrics_floor_forget(f, "p0.10");
	z = floored_text(f, SNAP(95, 12, 12, VLAN(3)));
	CHECK(z != NULL && has_line(z, "dpr_port_forwarded_packets_total{port=\"p0.10\",vrf=\"default\"} 3"),
	      "an interface made again starts from its own counters");
	CHECK(z != NULL && has_line(z, "dpr_port_forwarded_packets_total{port=\"p0\",vrf=\"default\"} 95"),
	      "forgetting one interface keeps the others");
	free(z);
	/* A scrape without it (deleted) forgets it too. */
	z = floored_text(f, SNAP(95, 12, 12, ""));
	CHECK(z != NULL && strstr(z, "p0.10") == NULL, "deleted interface has no series");
	free(z);
	z = floored_text(f, SNAP(95, 12, 12, VLAN(1)));
	CHECK(z != NULL && has_line(z, "dpr_port_forwarded_packets_total{port=\"p0.10\",vrf=\"default\"} 1"),
	      "nothing kept of an interface a scrape did not see");
	free(z);
	dpr_metrics_floor_free(f);
#undef SNAP
#undef VLAN
}

int
main(void)
{
	test_text();
	test_vrf();
	test_bound();
	test_monotonic();
	printf("test_metrics: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
