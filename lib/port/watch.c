/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "watch.h"

const char *const dpr_warn_names[DPR_WARN_MAX] = {
	[DPR_WARN_RX_MISSED] = "rx_missed",
	[DPR_WARN_RX_NOMBUF] = "rx_nombuf",
	[DPR_WARN_TX_FULL] = "tx_full",
	[DPR_WARN_RSS_SKEW] = "rss_skew",
	[DPR_WARN_LINK_SLOW] = "link_slow",
	[DPR_WARN_NUMA] = "numa",
	[DPR_WARN_DESC] = "descriptors",
};

void
dpr_port_watch_init(struct dpr_port_watch *w, const char *name, unsigned int rx_desc,
		    unsigned int tx_desc, uint32_t best_speed_mbps, const char *rss)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->rx_desc = rx_desc;
	w->tx_desc = tx_desc;
	w->best_speed_mbps = best_speed_mbps;
	snprintf(w->rss, sizeof(w->rss), "%s", rss != NULL && rss[0] != '\0' ? rss : "none");
}

void
dpr_port_watch_set(struct dpr_port_watch *w, enum dpr_warn c, uint64_t now, const char *fmt, ...)
{
	struct dpr_warning *x = &w->warn[c];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	va_end(ap);
	if (!x->active) {
		x->active = true;
		x->since = now;
		x->times++;
	}
	x->last = UINT64_MAX; /* never ends */
}

/* Condition @p c seen at @p now: started (true) or going on. */
static bool
seen(struct dpr_port_watch *w, enum dpr_warn c, uint64_t now)
{
	struct dpr_warning *x = &w->warn[c];

	x->last = now;
	if (x->active)
		return false;
	x->active = true;
	x->since = now;
	x->times++;
	return true;
}

#define SAY(w, c, ...) snprintf((w)->warn[c].text, sizeof((w)->warn[c].text), __VA_ARGS__)

uint32_t
dpr_port_watch_step(struct dpr_port_watch *w, const struct dpr_port_sample *s, uint64_t now,
		    uint32_t *ended)
{
	const struct dpr_port_sample *o = &w->last;
	uint32_t started = 0;
	unsigned int c, q;

	*ended = 0;
	if (w->have_last) {
		uint64_t d;

		d = s->rx_missed - o->rx_missed;
		if (s->rx_missed > o->rx_missed && seen(w, DPR_WARN_RX_MISSED, now)) {
			started |= 1u << DPR_WARN_RX_MISSED;
			SAY(w, DPR_WARN_RX_MISSED, "port %s: the device dropped %" PRIu64 " packets in a second with its RX ring full (imissed): the workers polling it are too slow for the traffic (see cycles per packet in stats), or its %u RX descriptors are too few for the bursts (raise rx_desc in its drivers-cfg profile), or it needs more workers",
			    w->name, d, w->rx_desc);
		}
		d = s->rx_nombuf - o->rx_nombuf;
		if (s->rx_nombuf > o->rx_nombuf && seen(w, DPR_WARN_RX_NOMBUF, now)) {
			started |= 1u << DPR_WARN_RX_NOMBUF;
			SAY(w, DPR_WARN_RX_NOMBUF, "port %s: %" PRIu64 " packets in a second found no mbuf (rx_nombuf): the pool is exhausted; if stats.get mbufs.in_use stays near its size at rest something holds them (hold queues of unresolved neighbours, the host stack), else give dpr more (--pool-size) or fewer descriptors",
			    w->name, d);
		}
		d = s->tx_full - o->tx_full;
		if (s->tx_full > o->tx_full && seen(w, DPR_WARN_TX_FULL, now)) {
			started |= 1u << DPR_WARN_TX_FULL;
			SAY(w, DPR_WARN_TX_FULL, "port %s: %" PRIu64 " packets in a second dropped with its TX queue full (drops.tx_full on their input ports): more is routed out of it than its link or peer takes, or its %u TX descriptors are too few for the bursts (raise tx_desc in its profile)",
			    w->name, d, w->tx_desc);
		}
		if (s->n_rxq > 1 && s->n_rxq == o->n_rxq) {
			uint64_t total = 0, top = 0;
			unsigned int topq = 0;

			for (q = 0; q < s->n_rxq; q++) {
				uint64_t n = s->rxq[q] - o->rxq[q];

				total += n;
				if (n > top) {
					top = n;
					topq = q;
				}
			}
			if (total >= DPR_WATCH_RSS_MIN && top * 100 >= total * DPR_WATCH_RSS_SKEW &&
			    seen(w, DPR_WARN_RSS_SKEW, now)) {
				started |= 1u << DPR_WARN_RSS_SKEW;
				SAY(w, DPR_WARN_RSS_SKEW, "port %s: worker %u took %" PRIu64 "%% of the %" PRIu64 " packets received in a second, its %u other workers the rest: RSS puts nearly everything on one queue. Few flows (one flow always lands on one queue), or the device hashes on fields the traffic does not vary (RSS fields: %s)",
				    w->name, topq, top * 100 / total, total, s->n_rxq - 1, w->rss);
			}
		}
	}
	if (s->link_up && s->speed_mbps != 0 && w->best_speed_mbps > s->speed_mbps &&
	    seen(w, DPR_WARN_LINK_SLOW, now)) {
		started |= 1u << DPR_WARN_LINK_SLOW;
		SAY(w, DPR_WARN_LINK_SLOW, "port %s: link up at %" PRIu32 " Mb/s, the device can do %" PRIu32 " Mb/s: check the cable or transceiver, the peer's port speed and autonegotiation",
		    w->name, s->speed_mbps, w->best_speed_mbps);
	}

	for (c = 0; c < DPR_WARN_MAX; c++) {
		struct dpr_warning *x = &w->warn[c];

		if (x->active && x->last != UINT64_MAX && now >= x->last + DPR_WATCH_CLEAR_S) {
			x->active = false;
			*ended |= 1u << c;
		}
	}
	w->last = *s;
	w->have_last = true;
	return started;
}

void
dpr_port_watch_json(const struct dpr_port_watch *w, uint64_t now, json_t *arr)
{
	unsigned int c;

	for (c = 0; c < DPR_WARN_MAX; c++) {
		const struct dpr_warning *x = &w->warn[c];

		if (!x->active)
			continue;
		json_array_append_new(arr, json_pack("{s:s,s:s,s:I,s:I,s:s}",
			"port", w->name, "condition", dpr_warn_names[c],
			"for_s", (json_int_t)(now - x->since), "times", (json_int_t)x->times,
			"text", x->text));
	}
}
