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
 * What dpr holds: per prefix of the configured table, the route the kernel
 * forwards with, over its live paths only (lib/kernel/kmirror.h says how the
 * kernel chooses). kroute.c keeps a copy of the table (every route of each
 * prefix, in the kernel's order) and of the kernel's next-hop objects
 * (RTNLGRP_NEXTHOP), and after each read hands the route feed the choice of
 * every prefix that changed: an add or replace, or a withdrawal. What each
 * route becomes is lib/route/feed.h's translation, shared with FPM.
 *
 * Which routes are kept: those of the configured table that are unicast,
 * blackhole, unreachable or prohibit, and not of an ignored protocol
 * (RTPROT_KERNEL, the kernel's connected routes for the TAPs' addresses,
 * always; kernel_routes.ignore_protocols more). Local, broadcast, multicast
 * and anycast routes, cloned ones (RTM_F_CLONED: the route cache), other
 * tables, other families and source-specific routes are ignored, each under
 * a counted reason. Routes of an ignored protocol or type are still handed
 * to the mirror (DPR_KMIRROR_IGNORED), which never selects them: a replace
 * by one ends the route it replaces, and the kernel says so with nothing
 * but that replace. A kept route dpr cannot take (a path through an
 * interface that is none of dpr's TAPs, an encapsulation, a throw route,
 * more paths than dpr's ECMP width) leaves its prefix without a dpr route
 * while the kernel chooses it: dpr never forwards on a route the kernel
 * does not use.
 *
 * Consistency: every datagram read in one poll is one batch (one RCU
 * grace period). A netlink overflow (ENOBUFS: events were lost), a dump
 * interrupted by changes (NLM_F_DUMP_INTR), and the events after which the
 * kernel changes routes without telling (a TAP going down, up or away: IPv4
 * routes whose paths all died are flushed, next-hop objects on the link
 * removed, paths marked dead or alive; an IPv4 address leaving a TAP) start
 * a full resync: the copy is marked stale, the next-hop objects and then
 * the routes are dumped again, and at each dump's end (NLMSG_DONE) what is
 * still stale is swept. Never a silent gap.
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
 * mark the copy of the kernel's table stale, dump the next-hop objects and
 * the routes.
 * @return the next-hop dump's sequence number (the route dump's is the
 *   next one: its NLMSG_DONE ends the resync and sweeps),
 *   or a negative errno when the request could not be sent (retried by
 *   dpr_kroute_timers()).
 */
int64_t dpr_kroute_resync(struct dpr_router *r);

/**
 * VRF table @p table is gone (vrf.del, its routes with it): its copy is
 * dropped, and its events are ignored until it comes back. No-op when off.
 */
void dpr_kroute_vrf_del(struct dpr_router *r, uint32_t table);

/**
 * VRF table @p table is mirrored again, or for the first time (vrf.add):
 * what the kernel has there, and what changed while it was not, comes
 * with a full resync (counted as "vrf"). No-op when off.
 */
void dpr_kroute_vrf_add(struct dpr_router *r, uint32_t table);

/**
 * State and counters for stats.get's "kernel_routes": {"enabled": false}
 * when off. A new reference.
 */
json_t *dpr_kroute_stats_json(struct dpr_router *r);

/** Close the socket. NULL r->kroute: no-op. */
void dpr_kroute_free(struct dpr_router *r);
