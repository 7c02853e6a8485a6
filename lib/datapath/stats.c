/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <string.h>

#include "stats.h"

/* When cycles_per_packet says something (cycles_per_packet()). */
#define DPR_CPP_MIN_PACKETS 10000u
#define DPR_CPP_MIN_BURST 2u

/* Workers write their counters without atomics; a relaxed 64-bit load per
 * field is all a reader needs on the platforms DPDK runs on. */
static inline uint64_t
rd(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

const char *const dpr_pipeline_names[] = {
	[DPR_PIPELINE_AUTO] = "auto",
	[DPR_PIPELINE_ON] = "on",
	[DPR_PIPELINE_OFF] = "off",
};

/* How the worker runs its bursts now (written by the worker alone). */
static bool
pipelined(const struct dpr_worker *wk)
{
	return __atomic_load_n(&wk->tune.pipelined, __ATOMIC_RELAXED);
}

void
dpr_counters_add(struct dpr_port_counters *acc, const struct dpr_port_counters *c)
{
	unsigned int i;

	acc->rx += rd(&c->rx);
	acc->forwarded += rd(&c->forwarded);
	acc->tx += rd(&c->tx);
	acc->tx_refused += rd(&c->tx_refused);
	acc->exception += rd(&c->exception);
	for (i = 0; i < DPR_EXC_MAX; i++)
		acc->exc[i] += rd(&c->exc[i]);
	for (i = 0; i < DPR_DROP_MAX; i++)
		acc->drops[i] += rd(&c->drops[i]);
}

uint64_t
dpr_counters_drops(const struct dpr_port_counters *c)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 1; i < DPR_DROP_MAX; i++)
		sum += c->drops[i];
	return sum;
}

static json_t *
counters_json(const struct dpr_port_counters *c)
{
	json_t *o = json_object(), *drops = json_object(), *exc = json_object();
	unsigned int i;

	for (i = 1; i < DPR_DROP_MAX; i++)
		json_object_set_new(drops, dpr_drop_names[i], json_integer((json_int_t)c->drops[i]));
	for (i = 0; i < DPR_EXC_MAX; i++)
		json_object_set_new(exc, dpr_exc_names[i], json_integer((json_int_t)c->exc[i]));
	json_object_set_new(o, "rx", json_integer((json_int_t)c->rx));
	json_object_set_new(o, "forwarded", json_integer((json_int_t)c->forwarded));
	json_object_set_new(o, "tx", json_integer((json_int_t)c->tx));
	json_object_set_new(o, "tx_refused", json_integer((json_int_t)c->tx_refused));
	json_object_set_new(o, "exception", json_integer((json_int_t)c->exception));
	json_object_set_new(o, "dropped", json_integer((json_int_t)dpr_counters_drops(c)));
	json_object_set_new(o, "exceptions", exc);
	json_object_set_new(o, "drops", drops);
	return o;
}

/* What the tuner's last probe measured (struct dpr_tune): cycles a packet
 * each way, how many pairs of windows pipelined won, and each window. */
static json_t *
last_probe_json(const struct dpr_tune *t)
{
	json_t *o = json_object(), *wins = json_array();
	uint32_t ways = __atomic_load_n(&t->last_win_pipe, __ATOMIC_RELAXED);
	unsigned int k;

	json_object_set_new(o, "at_once_cycles_per_packet",
			    json_real((double)rd(&t->last_cpp100[0]) / 100.0));
	json_object_set_new(o, "pipelined_cycles_per_packet",
			    json_real((double)rd(&t->last_cpp100[1]) / 100.0));
	json_object_set_new(o, "pipelined_over_at_once",
			    json_real((double)rd(&t->last_median_ratio) / 65536.0));
	json_object_set_new(o, "pairs", json_integer(DPR_TUNE_WINDOWS / 2));
	json_object_set_new(o, "pairs_pipelined_cheaper",
			    json_integer(__atomic_load_n(&t->last_pipe_pairs, __ATOMIC_RELAXED)));
	for (k = 0; k < DPR_TUNE_WINDOWS; k++) {
		json_t *w = json_object();

		json_object_set_new(w, "pipelined", json_boolean(ways >> k & 1));
		json_object_set_new(w, "cycles_per_packet",
				    json_real(__atomic_load_n(&t->last_win_cpp100[k],
							      __ATOMIC_RELAXED) / 100.0));
		json_array_append_new(wins, w);
	}
	json_object_set_new(o, "windows", wins);
	return o;
}

/*
 * Busy cycles over packets, once they say what a packet costs: at least
 * DPR_CPP_MIN_PACKETS, in bursts of DPR_CPP_MIN_BURST or more on average.
 * A router that sees a packet now and then pays a whole poll for each (an
 * idle one showed 87,000 cycles a packet), which is no per-packet cost:
 * null then.
 */
static bool
cycles_per_packet(uint64_t busy, uint64_t rx, uint64_t bursts, double *cpp)
{
	if (rx < DPR_CPP_MIN_PACKETS || rx < bursts * DPR_CPP_MIN_BURST)
		return false;
	*cpp = (double)busy / (double)rx;
	return true;
}

json_t *
dpr_stats_json(const struct dpr_stats_src *src)
{
	json_t *root = json_object(), *ports = json_array(), *workers = json_array();
	struct dpr_port_counters total, c;
	unsigned int p, w;

	memset(&total, 0, sizeof(total));
	for (p = 0; p < src->n_ports; p++) {
		json_t *o;

		if (src->port_names[p] == NULL)
			continue; /* a free interface slot (vlan.del) */
		memset(&c, 0, sizeof(c));
		for (w = 0; w < src->n_workers; w++)
			dpr_counters_add(&c, &src->workers[w]->stats[p]);
		dpr_counters_add(&total, &c);
		o = counters_json(&c);
		json_object_set_new(o, "name", json_string(src->port_names[p]));
		json_array_append_new(ports, o);
	}
	for (w = 0; w < src->n_workers; w++) {
		const struct dpr_worker *wk = src->workers[w];
		uint64_t busy = rd(&wk->busy_cycles);
		double cpp;
		json_t *o;

		memset(&c, 0, sizeof(c));
		for (p = 0; p < src->n_ports; p++)
			dpr_counters_add(&c, &wk->stats[p]);
		if (src->retired != NULL) {
			dpr_counters_add(&c, &src->retired[w]);
			dpr_counters_add(&total, &src->retired[w]);
		}
		o = counters_json(&c);
		json_object_set_new(o, "lcore", json_integer(wk->lcore));
		json_object_set_new(o, "busy_cycles", json_integer((json_int_t)busy));
		json_object_set_new(o, "rx_bursts", json_integer((json_int_t)rd(&wk->rx_bursts)));
		json_object_set_new(o, "cycles_per_packet",
				    cycles_per_packet(busy, c.rx, rd(&wk->rx_bursts), &cpp) ?
				    json_real(cpp) : json_null());
		json_object_set_new(o, "pipeline", json_string(dpr_pipeline_names[wk->pipeline]));
		json_object_set_new(o, "pipelined", json_boolean(pipelined(wk)));
		json_object_set_new(o, "pipeline_probes",
				    json_integer((json_int_t)rd(&wk->tune.probes)));
		json_object_set_new(o, "pipeline_changes",
				    json_integer((json_int_t)rd(&wk->tune.changes)));
		if (rd(&wk->tune.probes) != 0)
			json_object_set_new(o, "pipeline_last_probe", last_probe_json(&wk->tune));
		json_array_append_new(workers, o);
	}
	json_object_set_new(root, "ports", ports);
	json_object_set_new(root, "workers", workers);
	json_object_set_new(root, "total", counters_json(&total));
	json_object_set_new(root, "tsc_hz", json_integer((json_int_t)src->tsc_hz));
	return root;
}

static void
print_row(FILE *f, const char *name, const struct dpr_port_counters *c,
	  const char *extra)
{
	unsigned int i;
	bool any = false;

	fprintf(f, "  %-10s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64 "%s\n",
		name, c->rx, c->forwarded, c->tx, c->exception, dpr_counters_drops(c),
		extra);
	for (i = 1; i < DPR_DROP_MAX; i++) {
		if (c->drops[i] == 0)
			continue;
		fprintf(f, "%s%s=%" PRIu64, any ? " " : "    drops: ", dpr_drop_names[i],
			c->drops[i]);
		any = true;
	}
	if (any)
		fprintf(f, "\n");
}

void
dpr_stats_print(FILE *f, const struct dpr_stats_src *src)
{
	struct dpr_port_counters c, total;
	unsigned int p, w;
	char name[32], extra[64], verdict[32], cycles[16];
	double cpp;

	memset(&total, 0, sizeof(total));
	fprintf(f, "  %-10s %14s %14s %14s %10s %10s\n", "port", "rx", "forwarded",
		"tx", "exception", "dropped");
	for (p = 0; p < src->n_ports; p++) {
		if (src->port_names[p] == NULL)
			continue;
		memset(&c, 0, sizeof(c));
		for (w = 0; w < src->n_workers; w++)
			dpr_counters_add(&c, &src->workers[w]->stats[p]);
		dpr_counters_add(&total, &c);
		print_row(f, src->port_names[p], &c, "");
	}
	for (w = 0; src->retired != NULL && w < src->n_workers; w++)
		dpr_counters_add(&total, &src->retired[w]);
	print_row(f, "total", &total, "");
	fprintf(f, "  %-10s %14s %14s %14s %10s %10s %s\n", "worker", "rx", "forwarded",
		"tx", "exception", "dropped", "cycles/pkt pipelined");
	for (w = 0; w < src->n_workers; w++) {
		const struct dpr_worker *wk = src->workers[w];

		memset(&c, 0, sizeof(c));
		for (p = 0; p < src->n_ports; p++)
			dpr_counters_add(&c, &wk->stats[p]);
		if (src->retired != NULL)
			dpr_counters_add(&c, &src->retired[w]);
		snprintf(name, sizeof(name), "lcore %u", wk->lcore);
		verdict[0] = '\0';
		if (rd(&wk->tune.probes) != 0)
			snprintf(verdict, sizeof(verdict), ", last probe %.3f",
				 (double)rd(&wk->tune.last_median_ratio) / 65536.0);
		if (cycles_per_packet(rd(&wk->busy_cycles), c.rx, rd(&wk->rx_bursts), &cpp))
			snprintf(cycles, sizeof(cycles), "%.1f", cpp);
		else
			snprintf(cycles, sizeof(cycles), "-");
		snprintf(extra, sizeof(extra), " %10s %s (%s%s)", cycles,
			 pipelined(wk) ? "yes" : "no", dpr_pipeline_names[wk->pipeline], verdict);
		print_row(f, name, &c, extra);
	}
	fflush(f);
}
