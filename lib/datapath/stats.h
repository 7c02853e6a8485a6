/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Reading the workers' counters from the control thread: sums per port and
 * per worker, as JSON (stats.get, --stats-file) and as a table for people.
 */
#include <stdio.h>

#include <jansson.h>

#include "datapath.h"

struct dpr_stats_src {
	struct dpr_worker *const *workers;
	unsigned int n_workers;
	const char *const *port_names;
	unsigned int n_ports;
	uint64_t tsc_hz;
	/** Per worker, counts of interfaces deleted since, in its row and
	 * the total (never in a port's); NULL: none. */
	const struct dpr_port_counters *retired;
};

/** Sum of @p c into @p acc. */
/** enum dpr_pipeline as --pipeline spells it. */
extern const char *const dpr_pipeline_names[];

void dpr_counters_add(struct dpr_port_counters *acc, const struct dpr_port_counters *c);

/** Sum of all drop reasons. */
uint64_t dpr_counters_drops(const struct dpr_port_counters *c);

/**
 * {"ports": [...], "workers": [...], "total": {...}}, each entry with rx,
 * forwarded, tx, exception, exceptions by class and drops by reason.
 * @return a new reference, or NULL (ENOMEM).
 */
json_t *dpr_stats_json(const struct dpr_stats_src *src);

/** The same, as aligned tables. */
void dpr_stats_print(FILE *f, const struct dpr_stats_src *src);
