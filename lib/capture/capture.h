/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Capturing what dpr did with packets, for "why was this dropped?": the
 * packets workers dropped (by reason) and those they sent to the exception
 * path (by class), filtered by input port, written as pcapng with DPDK's
 * rte_pcapng, each packet's comment saying what happened to it
 * ("drop other_host on p0", "exception ttl_expired on p1"). Bounded in
 * packets, bytes and snap length; one capture at a time.
 *
 * Threads: a worker's part is one relaxed load a burst of the reasons
 * being captured (struct dpr_worker.cap_drops, 0 when none: nothing else
 * changes) and, while a capture runs, enqueuing its matching drops on its
 * own ring (cap_ring) instead of freeing them; what the ring refuses is
 * freed and counted as missed. Everything else runs on the control
 * thread: it drains the rings, copies exceptions as they come off the
 * exception rings, writes the file (a system call a batch, off the workers).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct dpr_router;
struct rte_mbuf;

/** What to capture; limits of 0 take the defaults. */
struct dpr_capture_spec {
	const char *file;          /**< absolute path, created (never overwritten) */
	uint64_t ports;            /**< dpr port indexes (bit per port); 0: every port */
	uint32_t drops;            /**< bit per enum dpr_drop */
	uint32_t exceptions;       /**< bit per enum dpr_exc */
	uint64_t max_packets;      /**< default 1000 */
	uint64_t max_bytes;        /**< of file, default 16 MiB */
	uint32_t snaplen;          /**< bytes of each packet, default 256, at most 9600 */
	uint32_t seconds;          /**< stop after, 0: when a limit is reached or stopped */
};

#define DPR_CAPTURE_PACKETS 1000
#define DPR_CAPTURE_BYTES (16u << 20)
#define DPR_CAPTURE_SNAPLEN 256
#define DPR_CAPTURE_SNAPLEN_MAX 9600

/**
 * Start capturing into @p spec->file.
 * @return 0, or a negative errno with a message in @p err: -EBUSY (one is
 *   running), -EINVAL (nothing to capture, a relative path), -EEXIST, or
 *   what open() or the copy pool's creation failed with.
 */
/**
 * Set DPDK 22.11's pcapng clock (the TSC and the wall clock it maps to)
 * before anything captures: dpr's own captures and dpdk-dumpcap's, whose
 * copies workers make through rte_pdump. 22.11 reads that clock lazily in
 * the first rte_pcapng_copy(), after its caller read the TSC, and a TSC
 * older than the clock's puts every later packet near the year 2305.
 * Main lcore, before the workers start; nothing to do from 23.11.
 */
void dpr_capture_clock_init(void);

int dpr_capture_start(struct dpr_router *r, const struct dpr_capture_spec *spec,
		      char *err, size_t err_len);

/** Stop the capture, if one runs, and close its file; @p why goes in its status. */
void dpr_capture_stop(struct dpr_router *r, const char *why);

/**
 * Take the workers' captured drops off their rings (and free them), end
 * the capture when a limit or its time is reached. Control loop.
 * @return packets handled.
 */
unsigned int dpr_capture_poll(struct dpr_router *r);

/**
 * An exception of class @p cls from port @p port, as it comes off a
 * worker's ring: copied into the capture when it matches. @p m stays the
 * caller's.
 */
void dpr_capture_exception(struct dpr_router *r, const struct rte_mbuf *m, unsigned int cls,
			   unsigned int port);

/**
 * A drop of reason @p why from port @p port that a worker counted but
 * handed to the control thread (an ACL's reject, for its ICMP error):
 * copied into the capture when it matches. @p m stays the caller's.
 */
void dpr_capture_drop(struct dpr_router *r, const struct rte_mbuf *m, unsigned int why,
		      unsigned int port);

/**
 * Interface slot @p p is being deleted (vlan.del): a running capture's port
 * filter forgets it, so that an interface made later in the slot is not
 * captured under a filter that named the deleted one. A capture whose
 * filter named only deleted interfaces stops (it could match nothing more).
 */
void dpr_capture_iface_gone(struct dpr_router *r, unsigned int p);

/** The capture's state: running or why it stopped, file, filters, counts. */
json_t *dpr_capture_json(const struct dpr_router *r);

/** Stop any capture and free what capturing made. */
void dpr_capture_free(struct dpr_router *r);

/**
 * Workers' side, called by dpr_burst_finish() when cap_drops is not 0:
 * drops of a reason in @p cap (each carries it in hash.usr) go on the
 * worker's capture ring, the rest are freed.
 */
struct dpr_worker;
void dpr_capture_drops_bulk(struct dpr_worker *w, struct rte_mbuf **pkts, unsigned int n,
			    uint32_t cap);
