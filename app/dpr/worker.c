/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>

#include "datapath/datapath.h"
#include "datapath/ip4_dp.h"
#include "datapath/urpf_dp.h"

/* Empty polls before an idle worker may sleep. */
#define IDLE_POLLS 256
/* Busy loops between TSC reads (dpr_worker_main()). */
#define TSC_EVERY 16

/*
 * The worker loop: poll every RX queue this lcore owns, forward each burst,
 * drain TX buffers, report RCU quiescence. Pipelined, a burst just received
 * waits while the burst before it reads its tbl24 entries (pass 2), then is
 * screened, then the burst before it is forwarded (pass 3), and the new
 * one waits in turn (dpr_ip4_pipeline()): its packet data has time
 * to arrive (DMA, or a software PMD's copy) before the screen reads it, its
 * tbl24 entries have a whole RX poll to arrive before they are read, and
 * the tbl8 entries pass 2 asks for have a screen. At once, passes 2 and 3
 * follow the screen: half the packets in flight, which pays when the FIB
 * entries are cached anyway. --pipeline picks one, or (auto) the tuner
 * does, by measuring both (dpr_tune_step()). A poll that brings nothing
 * finishes the waiting burst. Packets are held by the worker only
 * between two polls, and nothing FIB-derived is held across a quiescent
 * report: a waiting burst has addresses, not entries, and the loop reports
 * quiescence after the flush; a burst whose IPv6 packets went ahead in a
 * deep FIB waits with their tbl24 entries (dpr_ip4_holds_entries()):
 * quiescence was reported before they were read, inside
 * dpr_ip4_pipeline(), and the loop does not report it again before that
 * burst's pass 3. Nothing here locks, logs,
 * allocates or makes a system call, except the optional idle sleep, which
 * is taken offline from RCU so the control thread never waits on it.
 */
int
dpr_worker_main(void *arg)
{
	struct dpr_worker *w = arg;
	/* Pipelined, two bursts in flight: one screened and waiting (its
	 * FIB entries on their way into the cache) while the next one is
	 * received. */
	struct dpr_ip4_pending pend[2];
	struct dpr_ip4_pending *waiting = NULL;
	uint32_t idle = 0;
	unsigned int cur = 0;
	bool pipelined = w->tune.pipelined;
	/* The TSC is read at the end of a loop only when busy_cycles is to
	 * take it: at the end of a busy streak (the first idle loop after
	 * it, whose poll it then counts), every TSC_EVERY busy loops, and
	 * before a tuner step. rdtsc costs tens of cycles in a VM: read
	 * every loop, it was 7.6 % of dpr_worker_main's samples on the small
	 * table, about 0.4 ns a packet (perf, PERF=1 scripts/bench-ab.sh). */
	uint64_t start;
	uint32_t busy_loops = 0;

	rte_rcu_qsbr_thread_register(w->qsbr, w->index);
	rte_rcu_qsbr_thread_online(w->qsbr, w->index);

	start = rte_rdtsc();
	while (!*w->quit) {
		uint64_t now;
		uint32_t got = 0;
		bool tune;
		uint16_t q;

		for (q = 0; q < w->n_rxq; q++) {
			const struct dpr_rxq *rq = &w->rxq[q];
			struct dpr_ip4_pending *next = &pend[cur];
			uint16_t want = DPR_BURST, n, in;
			uint8_t stages;

			if (unlikely(w->max_rx != 0)) {
				if (w->rx_total >= w->max_rx)
					break;
				if (w->max_rx - w->rx_total < want)
					want = (uint16_t)(w->max_rx - w->rx_total);
			}
			/* Straight into the burst's slots: pend[cur] is
			 * not the waiting one. */
			n = rte_eth_rx_burst(w->ports[rq->port].port_id, rq->queue,
					     next->pkts, want);
			if (n == 0)
				continue;
			w->rx_total += n;
			w->rx_bursts++;
			got += n;
			in = rq->port;
			/* One test a burst for a port without VLAN
			 * interfaces, input ACL or uRPF; a burst all of one
			 * VLAN interface goes on as that interface's. */
			stages = __atomic_load_n(&w->ports[in].in_stages, __ATOMIC_RELAXED);
			if (unlikely(stages != 0)) {
				n = dpr_input_stages(w, &in, next->pkts, n, stages);
				if (n == 0) {
					/* Nothing of it left to forward as the
					 * port's (its VLAN interfaces' sub-bursts,
					 * or drops): the waiting burst goes now, or
					 * it would wait for as long as such bursts
					 * come (a busy trunk, a flood an ACL
					 * drops). */
					if (waiting != NULL) {
						dpr_ip4_finish_burst(w, waiting);
						waiting = NULL;
					}
					continue;
				}
			} else {
				w->stats[in].rx += n;
			}
			waiting = dpr_ip4_pipeline(w, in, n, next, waiting);
			cur ^= 1;
			/* A VLAN interface's burst never waits across a
			 * quiescent report: vlan.del resets and reuses its
			 * slot one grace period after unpublishing it. */
			if (!pipelined || unlikely(in != rq->port)) {
				dpr_ip4_finish_burst(w, waiting);
				waiting = NULL;
			}
		}
		/* Nothing more came in: the waiting burst goes now. */
		if (got == 0 && waiting != NULL) {
			dpr_ip4_finish_burst(w, waiting);
			waiting = NULL;
			got = 1; /* busy, not idle */
		}
		dpr_tx_flush_all(w);
		if (!dpr_ip4_holds_entries(waiting))
			rte_rcu_qsbr_quiescent(w->qsbr, w->index);
		w->loops++;

		/* A tuner step is due: it takes busy_cycles as of now. */
		tune = w->pipeline == DPR_PIPELINE_AUTO && w->rx_total >= w->tune.next_rx;
		if (got != 0) {
			idle = 0;
			if (++busy_loops >= TSC_EVERY || tune) {
				now = rte_rdtsc();
				w->busy_cycles += dpr_tsc_span(now, start);
				busy_loops = 0;
				start = now;
			}
		} else {
			now = rte_rdtsc();
			if (busy_loops != 0) {
				w->busy_cycles += dpr_tsc_span(now, start);
				busy_loops = 0;
			}
			if (w->idle_sleep_us != 0 && ++idle >= IDLE_POLLS) {
				rte_rcu_qsbr_thread_offline(w->qsbr, w->index);
				rte_delay_us_sleep(w->idle_sleep_us);
				rte_rcu_qsbr_thread_online(w->qsbr, w->index);
				now = rte_rdtsc();
			}
			start = now;
		}
		if (unlikely(w->max_rx != 0 && w->rx_total >= w->max_rx))
			break;
		if (tune) {
			pipelined = dpr_tune_step(&w->tune, w->rx_total, w->busy_cycles);
			/* At once from now: the waiting burst goes first. */
			if (!pipelined && waiting != NULL) {
				dpr_ip4_finish_burst(w, waiting);
				dpr_tx_flush_all(w);
				waiting = NULL;
			}
		}
	}

	if (waiting != NULL)
		dpr_ip4_finish_burst(w, waiting);
	dpr_tx_flush_all(w);
	if (busy_loops != 0)
		w->busy_cycles += dpr_tsc_span(rte_rdtsc(), start);
	rte_rcu_qsbr_thread_offline(w->qsbr, w->index);
	rte_rcu_qsbr_thread_unregister(w->qsbr, w->index);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return 0;
}
