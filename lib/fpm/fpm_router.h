/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The router's side of FPM: the routes FRR's zebra sends (lib/fpm) become
 * routes of source DPR_RSRC_FPM (lib/route/source.h), so a route of the
 * config file or the control API on the same prefix wins over zebra's, and
 * zebra's comes back when that one goes.
 *
 * What a route becomes, and which ones are refused (counted, withdrawn),
 * is lib/route/feed.h's translation, shared with the kernel table mirror
 * (lib/kernel/kroute.h).
 * The changes of one dpr_fpm_poll() go to the FIB in one
 * dpr_route_feed_apply() call: one RCU grace period a batch.
 *
 * When zebra goes away its routes stay and forward, marked stale; a sweep
 * grace_s seconds later removes those not sent again by then (zebra
 * replays its whole table on every connect, with no end marker).
 *
 * Threads: all of it runs on the control thread (the fd is watched by the
 * control socket's loop); workers see its work only through the FIB.
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct dpr_router;
struct dpr_fpm_router;

/**
 * Listen for zebra when the config has "fpm" (else do nothing), and watch
 * the socket from @p r's control server. Call after the config's routes
 * are installed and the TAPs exist.
 * @return 0, or a negative errno with a message in @p err (a listen
 *   address in use, ENOMEM).
 */
int dpr_fpm_router_start(struct dpr_router *r, char *err, size_t err_len);

/**
 * The grace period's end: remove the routes still stale. Called from the
 * control loop; returns at once when no sweep is due.
 */
void dpr_fpm_router_timers(struct dpr_router *r);

/**
 * State and counters for stats.get's "fpm": {"enabled": false} when FPM is
 * off. A new reference.
 */
json_t *dpr_fpm_router_stats_json(struct dpr_router *r);

/** Close the socket and drop what a batch still held. NULL r->fpm: no-op. */
/**
 * dpr_fpm_feed() on the router's FPM server: @p len bytes as one whole
 * zebra connection, through to route sources and the FIB (tests/fuzz).
 * @return as dpr_fpm_feed(); -ENODEV without FPM.
 */
int dpr_fpm_router_feed(struct dpr_router *r, const uint8_t *buf, size_t len);

/**
 * VRF table @p table is gone (vrf.del): forget which next-hop objects its
 * routes named (dpr_fpm_forget_table()). No-op without FPM.
 */
void dpr_fpm_router_vrf_del(struct dpr_router *r, uint32_t table);

/**
 * VRF table @p table is new (vrf.add): when zebra sent routes of it before,
 * ask for them again (dpr_fpm_table_added()). No-op without FPM.
 */
void dpr_fpm_router_vrf_add(struct dpr_router *r, uint32_t table);

void dpr_fpm_router_free(struct dpr_router *r);
