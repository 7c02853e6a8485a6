/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "acl/acl_dp.h"
#include "api/methods.h"
#include "api/server.h"
#include "capture/capture.h"
#include "datapath/stats.h"
#include "dpr.h"
#include "exception/exception.h"
#include "exception/tap.h"
#include "fpm/fpm_router.h"
#include "kernel/kroute.h"
#include "metrics/metrics.h"
#include "neigh/neigh.h"
#include "util/clock.h"
#include "util/log.h"

/* Set from signal handlers, read by the control loop. */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stats_signal;

static void
on_stop(int sig)
{
	stop_signal = sig;
}

static void
on_stats(int sig)
{
	(void)sig;
	stats_signal = 1;
}

void
dpr_control_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	/* Start-up's reads and writes carry on; the control loop's waits
	 * (epoll_wait) end at a signal whatever SA_RESTART says. */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_stats;
	sigaction(SIGUSR1, &sa, NULL);
}

void
dpr_stats_report(struct dpr_router *d, const char *why)
{
	struct dpr_stats_src src = {
		.workers = d->workers,
		.n_workers = d->n_workers,
		.port_names = d->port_names,
		.n_ports = d->n_ports,
		.tsc_hz = rte_get_tsc_hz(),
		.retired = d->retired,
	};
	json_t *j;

	printf("dpr: counters (%s)\n", why);
	dpr_stats_print(stdout, &src);
	if (d->opt.stats_file == NULL)
		return;

	j = dpr_router_stats_json(d);
	if (json_dump_file(j, d->opt.stats_file, JSON_INDENT(2) | JSON_SORT_KEYS) < 0)
		DPR_LOG(ERR, main, "cannot write stats to %s: %s", d->opt.stats_file,
			strerror(errno));
	json_decref(j);
}

/* Packets workers could not forward, to the exception path. */
static unsigned int
drain_exceptions(struct dpr_router *d)
{
	uint64_t mark = dpr_nh_quarantine_mark(d->nh);
	uint32_t slots = dpr_router_slots_mark(d);
	struct rte_mbuf *pkts[64];
	unsigned int w, n, i, total = 0;
	bool emptied = true;

	for (w = 0; w < d->n_workers; w++) {
		n = rte_ring_sc_dequeue_burst(d->workers[w]->exc_ring, (void **)pkts,
					      RTE_DIM(pkts), NULL);
		emptied &= n < RTE_DIM(pkts);
		for (i = 0; i < n; i++) {
			uint32_t cls = DPR_EXC_META_CLASS(pkts[i]->hash.usr);

			if (cls < DPR_EXC_MAX)
				d->exc_received[cls]++;
			/* Its class's share of the ring is free again. */
			dpr_copp_drained(&d->workers[w]->copp,
					 DPR_EXC_META_COPP(pkts[i]->hash.usr));
			/* An ACL's reject, here for its ICMP error, is a drop
			 * (drops.acl) the worker could not capture. */
			if (cls == DPR_ACL_EXC_REJECT)
				dpr_capture_drop(d, pkts[i], DPR_DROP_ACL,
						 DPR_EXC_META_PORT(pkts[i]->hash.usr));
			else
				dpr_capture_exception(d, pkts[i], cls,
						      DPR_EXC_META_PORT(pkts[i]->hash.usr));
			dpr_exc_input(d->exc, pkts[i]);
		}
		total += n;
	}
	/* Every ring ran empty: the next-hop indices and interface slots
	 * freed before this pass began are in no ring entry any more
	 * (lib/nexthop, lib/router/iface.c). */
	if (emptied) {
		dpr_nh_quarantine_release(d->nh, mark);
		dpr_router_slots_drained(d, slots);
		dpr_exc_rings_drained(d->exc);
	}
	return total;
}

void
dpr_control_drain(struct dpr_router *d)
{
	while (drain_exceptions(d) > 0)
		;
}

static bool
limit_reached(struct dpr_router *d)
{
	uint64_t rx = 0;
	bool all_done = true;
	unsigned int w;

	for (w = 0; w < d->n_workers; w++) {
		rx += __atomic_load_n(&d->workers[w]->rx_total, __ATOMIC_RELAXED);
		all_done &= __atomic_load_n(&d->workers[w]->done, __ATOMIC_ACQUIRE);
	}
	return all_done || rx >= d->opt.max_packets;
}

/*
 * Every port's link, as its profile says to read it (an unknown state
 * counts as up): one going down has its next hops unresolved, so they
 * leave multipath spreads at once, and its TAP set down; coming back,
 * the reverse. And the TAPs' own health (dpr_tap_check()), and the
 * groups their kernel side joined (dpr_router_mcast_sync_all()).
 */
static void
link_poll(struct dpr_router *d)
{
	unsigned int p;

	dpr_tap_check(d);
	/* Groups the host stack joined or left on the TAPs. */
	dpr_router_mcast_sync_all(d);
	for (p = 0; p < d->n_ports; p++) {
		struct dpr_port *port = &d->ports[p];
		enum dpr_link_state s;
		bool up;

		if (!dpr_router_iface_used(d, p))
			continue;
		s = dpr_port_link(port, NULL);
		up = s != DPR_LINK_DOWN;

		if (up != port->link_down)
			continue;
		port->link_down = !up;
		if (port->profile.link == DPR_LINK_IFACE)
			DPR_LOG(INFO, port, "port %s: link %s (kernel interface %s)",
				d->cfg->ports[p].name, dpr_link_state_name(s), port->link_iface);
		else
			DPR_LOG(INFO, port, "port %s: link %s", d->cfg->ports[p].name,
				dpr_link_state_name(s));
		if (d->neigh != NULL)
			dpr_neigh_link(d->neigh, (uint16_t)p, up);
		dpr_tap_link(d, (uint16_t)p, up);
	}
}

/*
 * Each port's counters against a second ago (lib/port/watch.h): a
 * condition is logged when it starts and when it ends, and doctor.get
 * lists those going on.
 */
static void
watch_poll(struct dpr_router *d, uint64_t now)
{
	unsigned int p, w, c;

	/* Ports only: a VLAN interface's device is its port's. */
	for (p = 0; p < d->cfg->n_phys; p++) {
		struct dpr_port *port = &d->ports[p];
		struct dpr_port_sample s = { 0 };
		struct rte_eth_stats es;
		uint32_t started, ended;

		if (rte_eth_stats_get(port->port_id, &es) == 0) {
			s.rx_missed = es.imissed;
			s.rx_nombuf = es.rx_nombuf;
		}
		s.n_rxq = RTE_MIN(d->n_workers, (unsigned int)DPR_WATCH_MAX_RXQ);
		for (w = 0; w < d->n_workers; w++) {
			const struct dpr_port_counters *pc = &d->workers[w]->stats[p];

			if (w < s.n_rxq)
				s.rxq[w] = __atomic_load_n(&pc->rx, __ATOMIC_RELAXED);
			s.tx_full += __atomic_load_n(&pc->tx_refused, __ATOMIC_RELAXED);
		}
		s.link_up = dpr_port_link(port, &s.speed_mbps) == DPR_LINK_UP;
		started = dpr_port_watch_step(&port->watch, &s, now, &ended);
		for (c = 0; c < DPR_WARN_MAX; c++) {
			if (started & (1u << c))
				DPR_LOG(WARNING, port, "%s", port->watch.warn[c].text);
			if (ended & (1u << c))
				DPR_LOG(INFO, port, "port %s: %s: over (quiet for %d s)",
					d->cfg->ports[p].name, dpr_warn_names[c], DPR_WATCH_CLEAR_S);
		}
	}
}

void
dpr_control_run(struct dpr_router *d)
{
	DPR_LOG(INFO, main, "forwarding on %u workers; SIGUSR1 prints counters, SIGINT/SIGTERM stop",
		d->n_workers);

	uint64_t next_link = 0;

	while (stop_signal == 0) {
		unsigned int busy = drain_exceptions(d) + dpr_tap_poll(d) + dpr_capture_poll(d);

		/* Exception rings and TAPs are polled: wait for the socket only
		 * while they are empty, and never long. */
		dpr_server_poll(d->server, busy == 0 ? 1 : 0);
		dpr_metrics_poll(d->metrics);
		dpr_exc_timers(d->exc);
		dpr_copp_timers(d->copp, d);
		dpr_fpm_router_timers(d);
		dpr_kroute_timers(d);
		if (dpr_clock_now() > next_link) {
			link_poll(d);
			watch_poll(d, dpr_clock_s());
			next_link = dpr_clock_now() + DPR_CLOCK_HZ;
		}
		if (stats_signal) {
			stats_signal = 0;
			dpr_stats_report(d, "SIGUSR1");
		}
		if (d->opt.max_packets != 0 && limit_reached(d)) {
			DPR_LOG(INFO, main, "packet limit %" PRIu64 " reached", d->opt.max_packets);
			break;
		}
	}
	if (stop_signal != 0)
		DPR_LOG(INFO, main, "%s: stopping", strsignal(stop_signal));
}
