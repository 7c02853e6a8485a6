/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The kernel table mirror ("kernel_routes" in the config): dpr listens to
 * rtnetlink route events in its own network namespace, dumps the tables at
 * start, and keeps the routes of one kernel table (main, 254, by default)
 * as routes of source DPR_RSRC_KERNEL (lib/route/source.h): the least
 * preferred source, so the config file's, the API's and zebra's win. That
 * is what lets BIRD's `kernel` protocol, or `ip route add ... dev dpr-p1`,
 * drive dpr.
 *
 * Which routes: those of the configured table that are
 *  - unicast with every path's output interface one of dpr's TAPs (one
 *    path, or RTA_MULTIPATH, the kernel's expansion of a next-hop object
 *    included), or
 *  - blackhole, unreachable or prohibit (they have no interface);
 * and not of an ignored protocol (RTPROT_KERNEL, the kernel's connected
 * routes for the TAPs' addresses, always; kernel_routes.ignore_protocols
 * more). Local, broadcast, multicast and anycast routes, cloned ones
 * (RTM_F_CLONED: the route cache), other tables, other families and
 * source-specific routes are ignored, each under a counted reason. What
 * each route becomes is lib/route/feed.h's translation, shared with FPM.
 *
 * An add of the table that is not taken (its interface is none of dpr's,
 * say) withdraws the prefix, so dpr never forwards on a route the kernel
 * replaced; the kernel keeps one route per (prefix, metric) and dpr one
 * per prefix: with several metrics for one prefix, the last one announced
 * is the one dpr holds, and a delete of any of them withdraws the prefix.
 *
 * Consistency: every datagram read in one poll is one batch (one RCU
 * grace period). A netlink overflow (ENOBUFS: events were lost), a dump
 * interrupted by changes (NLM_F_DUMP_INTR), and the events after which the
 * kernel drops routes without telling (an IPv4 TAP going down or losing an
 * address: the kernel flushes its routes and sends no RTM_DELROUTE) start
 * a full resync: the kernel routes in dpr are marked stale, the tables are
 * dumped again, and at the dump's end (NLMSG_DONE) the routes still stale
 * are swept. Never a silent gap.
 *
 * Threads: control thread only (the socket is watched by the control
 * server's loop); workers see its work only through the FIB.
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct dpr_router;

/**
 * Open the rtnetlink socket when the config has "kernel_routes" (else do
 * nothing), watch it from @p r's control server, and ask for the first
 * dump. Call after the config's routes are installed and the TAPs exist.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_kroute_start(struct dpr_router *r, char *err, size_t err_len);

/**
 * Retry a dump the kernel refused, restart one that never ended. Called
 * from the control loop; returns at once when nothing is due.
 */
void dpr_kroute_timers(struct dpr_router *r);

/**
 * Handle one datagram as read from the socket (routes, link and address
 * events, dump replies) and apply its routes as one batch. The socket's
 * reader calls it; tests feed it crafted messages.
 */
void dpr_kroute_input(struct dpr_router *r, const void *buf, size_t len);

/**
 * Start a full resync now, as after an overflow: apply what is queued,
 * mark every kernel route stale, dump the tables.
 * @return the dump's sequence number (its NLMSG_DONE ends it and sweeps),
 *   or a negative errno when the request could not be sent (retried by
 *   dpr_kroute_timers()).
 */
int64_t dpr_kroute_resync(struct dpr_router *r);

/**
 * State and counters for stats.get's "kernel_routes": {"enabled": false}
 * when off. A new reference.
 */
json_t *dpr_kroute_stats_json(struct dpr_router *r);

/** Close the socket. NULL r->kroute: no-op. */
void dpr_kroute_free(struct dpr_router *r);
