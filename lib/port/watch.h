/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * What is wrong with a port while dpr runs, said once per condition with
 * its likely cause. The control thread samples each port's counters once a
 * second (dpr_port_watch_step()); a condition starts when its counter moves
 * and ends after DPR_WATCH_CLEAR_S quiet seconds, so a burst of misses is
 * one warning in the log, not one a second. Conditions found at start
 * (NUMA placement, descriptors the device cut) stay for the run.
 * Control thread only: a pure function of the samples, no system call.
 */
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/** Seconds without the counter moving before a condition ends. */
#define DPR_WATCH_CLEAR_S 10
/** Packets a second a port must receive before its spread is judged. */
#define DPR_WATCH_RSS_MIN 1000
/** Share of them on one queue (percent) that counts as "nearly all". */
#define DPR_WATCH_RSS_SKEW 90
#define DPR_WATCH_MAX_RXQ 128

enum dpr_warn {
	DPR_WARN_RX_MISSED,  /**< the NIC found its RX ring full (imissed) */
	DPR_WARN_RX_NOMBUF,  /**< arriving packets found no mbuf */
	DPR_WARN_TX_FULL,    /**< a TX queue did not take what was sent to it */
	DPR_WARN_RSS_SKEW,   /**< several workers, nearly everything on one queue */
	DPR_WARN_LINK_SLOW,  /**< link up at less than the device's best speed */
	DPR_WARN_NUMA,       /**< port, workers or mempool on different nodes (at start) */
	DPR_WARN_DESC,       /**< fewer descriptors granted than the profile asks (at start) */
	DPR_WARN_MAX
};

/** "rx_missed", "rx_nombuf", ...: the names doctor.get and the log use. */
extern const char *const dpr_warn_names[DPR_WARN_MAX];

/** One port's counters as sampled: totals since start. */
struct dpr_port_sample {
	uint64_t rx_missed;
	uint64_t rx_nombuf;
	uint64_t tx_full;                  /**< dropped at this port's TX queues */
	uint64_t rxq[DPR_WATCH_MAX_RXQ];   /**< received by each worker from this port */
	unsigned int n_rxq;
	bool link_up;
	uint32_t speed_mbps;               /**< 0: unknown */
};

struct dpr_warning {
	bool active;
	uint64_t since;      /**< second it started (the caller's clock) */
	uint64_t last;       /**< last second its counter moved */
	uint64_t times;      /**< how often it started */
	char text[512];      /**< what was seen, and the likely cause and fix */
};

/** What the watch knows of its port, set by dpr_port_watch_init(). */
struct dpr_port_watch {
	char name[32];
	unsigned int rx_desc, tx_desc;
	uint32_t best_speed_mbps;          /**< 0: the device does not say */
	char rss[160];                     /**< the RSS fields granted, for the skew text */
	bool have_last;
	struct dpr_port_sample last;
	struct dpr_warning warn[DPR_WARN_MAX];
};

/** Start watching port @p name (descriptors as granted, best speed from speed_capa). */
void dpr_port_watch_init(struct dpr_port_watch *w, const char *name, unsigned int rx_desc,
			 unsigned int tx_desc, uint32_t best_speed_mbps, const char *rss);

/**
 * Raise a condition found once, at start (NUMA, descriptors): it never
 * ends. @p fmt: what and the fix.
 */
void dpr_port_watch_set(struct dpr_port_watch *w, enum dpr_warn c, uint64_t now,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/**
 * Compare sample @p s, taken at second @p now, with the last one.
 * @return the conditions (1 << enum dpr_warn) that started now; @p ended
 *   gets those that ended. The texts of started ones are filled in.
 */
uint32_t dpr_port_watch_step(struct dpr_port_watch *w, const struct dpr_port_sample *s,
			     uint64_t now, uint32_t *ended);

/** The active conditions as JSON objects (port, condition, since, times, text) appended to @p arr. */
void dpr_port_watch_json(const struct dpr_port_watch *w, uint64_t now, json_t *arr);
