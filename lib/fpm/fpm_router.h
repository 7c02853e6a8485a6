/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The router's side of FPM: the routes FRR's zebra sends (lib/fpm) become
 * routes of source DPR_RSRC_FPM (lib/route/source.h), so a route of the
 * config file or the control API on the same prefix wins over zebra's, and
 * zebra's comes back when that one goes.
 *
 * What a route becomes:
 *  - unicast, one path: the next hop of its gateway on the dpr port whose
 *    TAP has the path's ifindex (dpr_nh_get()), or, with no gateway, the
 *    port's connected next hop (directly attached: the destination is the
 *    neighbour); several paths: the multipath group of their gateways with
 *    zebra's weights (dpr_nh_group_get());
 *  - blackhole: DPR_NH_BLACKHOLE, a counted silent drop;
 *  - unreachable and prohibit: DPR_NH_NONE, answered like no route at all
 *    (ICMP destination unreachable, network; prohibit's code 13 is not
 *    sent);
 *  - a path dpr cannot use (an ifindex that is no dpr port's TAP, a
 *    gateway that is not on a connected subnet or cannot be a neighbour, an
 *    IPv6 gateway for an IPv4 route, an interface route inside a multipath
 *    one) or a full next-hop table: the route is refused, counted under
 *    its reason, and withdrawn (as lib/fpm does with those it refuses).
 * The changes of one dpr_fpm_poll() go to the FIB in one
 * dpr_route_src_apply() call: one RCU grace period a batch.
 *
 * When zebra goes away its routes stay and forward, marked stale; a sweep
 * grace_s seconds later removes those not sent again by then (zebra
 * replays its whole table on every connect, with no end marker).
 *
 * Threads: all of it runs on the control thread (the fd is watched by the
 * control socket's loop); workers see its work only through the FIB.
 */
#include <stddef.h>

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
void dpr_fpm_router_free(struct dpr_router *r);
