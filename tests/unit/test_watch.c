/* SPDX-License-Identifier: BSD-3-Clause */
/* Port warnings (lib/port/watch.c): each condition starts when its counter
 * moves, is said once however long it lasts, ends after DPR_WATCH_CLEAR_S
 * quiet seconds and can start again; RSS skew needs volume and a share;
 * conditions found at start never end. */
#include <string.h>

#include "test.h"
#include "config/config.h"
#include "doctor/doctor.h"
#include "port/watch.h"

#define BIT(c) (1u << (c))

static void
test_counters(void)
{
	struct dpr_port_watch w;
	struct dpr_port_sample s = { .n_rxq = 1, .link_up = true };
	uint32_t started, ended;
	uint64_t t;
	json_t *arr;

	dpr_port_watch_init(&w, "p0", 512, 256, 0, "ipv4");
	started = dpr_port_watch_step(&w, &s, 100, &ended);
	CHECK_EQ(started, 0);
	/* The first sample is the base: counters already up at start say nothing. */
	s.rx_missed = 5;
	started = dpr_port_watch_step(&w, &s, 101, &ended);
	CHECK_EQ(started, BIT(DPR_WARN_RX_MISSED));
	CHECK(strstr(w.warn[DPR_WARN_RX_MISSED].text, "port p0: the device dropped 5 packets") != NULL,
	      "%s", w.warn[DPR_WARN_RX_MISSED].text);
	CHECK(strstr(w.warn[DPR_WARN_RX_MISSED].text, "512 RX descriptors") != NULL, "%s",
	      w.warn[DPR_WARN_RX_MISSED].text);
	/* Going on: not said again. */
	for (t = 102; t < 110; t++) {
		s.rx_missed += 10;
		started = dpr_port_watch_step(&w, &s, t, &ended);
		CHECK_EQ(started, 0);
		CHECK_EQ(ended, 0);
	}
	/* Quiet from 110: ends at 109 + DPR_WATCH_CLEAR_S, not before. */
	for (t = 110; t < 109 + DPR_WATCH_CLEAR_S; t++) {
		dpr_port_watch_step(&w, &s, t, &ended);
		CHECK_EQ(ended, 0);
	}
	dpr_port_watch_step(&w, &s, t, &ended);
	CHECK_EQ(ended, BIT(DPR_WARN_RX_MISSED));
	CHECK(!w.warn[DPR_WARN_RX_MISSED].active, "still active");
	/* And again: a second start. */
	s.rx_missed++;
	s.rx_nombuf = 3;
	s.tx_full = 7;
	started = dpr_port_watch_step(&w, &s, t + 1, &ended);
	CHECK_EQ(started, BIT(DPR_WARN_RX_MISSED) | BIT(DPR_WARN_RX_NOMBUF) | BIT(DPR_WARN_TX_FULL));
	CHECK_EQ(w.warn[DPR_WARN_RX_MISSED].times, 2);
	CHECK(strstr(w.warn[DPR_WARN_TX_FULL].text, "256 TX descriptors") != NULL, "%s",
	      w.warn[DPR_WARN_TX_FULL].text);

	arr = json_array();
	dpr_port_watch_json(&w, t + 4, arr);
	CHECK_EQ(json_array_size(arr), 3);
	CHECK(strcmp(json_string_value(json_object_get(json_array_get(arr, 0), "condition")),
		     "rx_missed") == 0, "first condition");
	CHECK_EQ(json_integer_value(json_object_get(json_array_get(arr, 0), "for_s")), 3);
	json_decref(arr);
}

static void
test_rss(void)
{
	struct dpr_port_watch w;
	struct dpr_port_sample s = { .n_rxq = 4 };
	uint32_t started, ended;

	dpr_port_watch_init(&w, "p1", 1024, 1024, 0, "ipv4,ipv6");
	dpr_port_watch_step(&w, &s, 1, &ended);
	/* Nearly all on one queue, but too few packets to judge. */
	s.rxq[2] = DPR_WATCH_RSS_MIN - 1;
	CHECK_EQ(dpr_port_watch_step(&w, &s, 2, &ended), 0);
	/* Spread: 85 % is not "nearly all". */
	s.rxq[2] += 8500;
	s.rxq[0] += 1500;
	CHECK_EQ(dpr_port_watch_step(&w, &s, 3, &ended), 0);
	/* 95 % on queue 2. */
	s.rxq[2] += 9500;
	s.rxq[1] += 500;
	started = dpr_port_watch_step(&w, &s, 4, &ended);
	CHECK_EQ(started, BIT(DPR_WARN_RSS_SKEW));
	CHECK(strstr(w.warn[DPR_WARN_RSS_SKEW].text, "worker 2 took 95% of the 10000 packets") != NULL &&
	      strstr(w.warn[DPR_WARN_RSS_SKEW].text, "RSS fields: ipv4,ipv6") != NULL,
	      "%s", w.warn[DPR_WARN_RSS_SKEW].text);
	/* One worker: never judged. */
	dpr_port_watch_init(&w, "p2", 1024, 1024, 0, NULL);
	s.n_rxq = 1;
	dpr_port_watch_step(&w, &s, 1, &ended);
	s.rxq[0] += 100000;
	CHECK_EQ(dpr_port_watch_step(&w, &s, 2, &ended), 0);
}

static void
test_link_and_static(void)
{
	struct dpr_port_watch w;
	struct dpr_port_sample s = { .n_rxq = 1, .link_up = true, .speed_mbps = 10000 };
	uint32_t ended;
	uint64_t t;

	dpr_port_watch_init(&w, "p3", 1024, 1024, 100000, NULL);
	CHECK_EQ(dpr_port_watch_step(&w, &s, 1, &ended), BIT(DPR_WARN_LINK_SLOW));
	CHECK(strstr(w.warn[DPR_WARN_LINK_SLOW].text, "10000 Mb/s, the device can do 100000") != NULL,
	      "%s", w.warn[DPR_WARN_LINK_SLOW].text);
	/* Down is not slow; at full speed it ends after the quiet time. */
	s.link_up = false;
	CHECK_EQ(dpr_port_watch_step(&w, &s, 2, &ended), 0);
	s.link_up = true;
	s.speed_mbps = 100000;
	for (t = 3; t < 1 + DPR_WATCH_CLEAR_S; t++) {
		dpr_port_watch_step(&w, &s, t, &ended);
		CHECK_EQ(ended, 0);
	}
	dpr_port_watch_step(&w, &s, t, &ended);
	CHECK_EQ(ended, BIT(DPR_WARN_LINK_SLOW));

	/* A speed the device does not report: nothing to compare. */
	dpr_port_watch_init(&w, "p4", 1024, 1024, 0, NULL);
	CHECK_EQ(dpr_port_watch_step(&w, &s, 1, &ended), 0);

	dpr_port_watch_set(&w, DPR_WARN_NUMA, 1, "port %s on node %d", "p4", 1);
	for (t = 2; t < 100; t++) {
		dpr_port_watch_step(&w, &s, t, &ended);
		CHECK_EQ(ended, 0);
	}
	CHECK(w.warn[DPR_WARN_NUMA].active && strcmp(w.warn[DPR_WARN_NUMA].text, "port p4 on node 1") == 0,
	      "%s", w.warn[DPR_WARN_NUMA].text);
}

/*
 * The doctor's VLAN checks on a running router's interfaces: a slot that
 * vlan.del freed (no name, zeroed) is no VLAN interface of port 0, and no
 * interface of the default VRF.
 */
static void
test_doctor_free_slot(void)
{
	static struct dpr_config cfg;
	struct dpr_doctor_report r = { 0 };
	bool up[3] = { false, false, false };
	unsigned int i, vlan = 0, vrf = 0;

	cfg.n_phys = 1;
	cfg.n_ports = 3;
	cfg.n_vrfs = 2;
	snprintf(cfg.vrfs[0].name, sizeof(cfg.vrfs[0].name), "default");
	snprintf(cfg.vrfs[1].name, sizeof(cfg.vrfs[1].name), "red");
	cfg.vrfs[1].table = 100;
	snprintf(cfg.ports[0].name, sizeof(cfg.ports[0].name), "p0");
	cfg.ports[0].vrf = 1;
	/* ports[1]: freed by vlan.del, all zero. */
	snprintf(cfg.ports[2].name, sizeof(cfg.ports[2].name), "p0.200");
	cfg.ports[2].parent = 0;
	cfg.ports[2].vlan_id = 200;
	cfg.ports[2].vrf = 1;
	CHECK_EQ(dpr_doctor_check_vlan_links(&cfg, NULL, up, &r), 0);
	CHECK_EQ(dpr_doctor_check_vrfs(&cfg, NULL, &r), 0);
	for (i = 0; i < r.n; i++) {
		vlan += strcmp(r.items[i].check, "vlan") == 0;
		vrf += strcmp(r.items[i].check, "vrf") == 0 &&
		       strstr(r.items[i].message, "VRF default (table 0): no interface") != NULL;
		CHECK(strstr(r.items[i].message, "interface  (") == NULL, "%s", r.items[i].message);
	}
	CHECK(vlan == 1, "%u vlan findings: p0.200's alone", vlan);
	CHECK(vrf == 1, "the default VRF has no interface: the freed slot is none");
	dpr_doctor_report_free(&r);
}

int
main(void)
{
	test_counters();
	test_rss();
	test_link_and_static();
	test_doctor_free_slot();
	printf("watch: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
