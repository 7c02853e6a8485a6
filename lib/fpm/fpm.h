/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The FPM server: FRR's zebra (module dplane_fpm_nl) connects to dpr over
 * TCP and pushes the routes it selected as rtnetlink messages inside FPM
 * frames. This module listens, reads the stream, keeps zebra's next-hop
 * objects, and hands plain route changes to a sink of callbacks. It knows
 * nothing of dpr's FIB: installing, marking stale and sweeping are the
 * sink's business.
 *
 * What zebra 8.4 sends (docs/routing-daemons.md; tests/unit/fpm_frames/
 * holds the frames it really sent):
 *  - on every connect, its whole table again: next-hop objects first, then
 *    routes, with no end marker; a route update is an RTM_DELROUTE then an
 *    RTM_NEWROUTE in one frame;
 *  - with next-hop groups (its default), RTM_NEWNEXTHOP objects and routes
 *    that carry only RTA_NH_ID; with `no fpm use-next-hop-groups`, routes
 *    with their gateways (RTA_GATEWAY/RTA_OIF or RTA_MULTIPATH);
 *  - blackhole, unreachable and prohibit routes as route types, without a
 *    next-hop id;
 *  - connected routes (RTPROT_KERNEL), MPLS LSPs (AF_MPLS routes), EVPN
 *    MACs (RTM_NEWNEIGH): counted as ignored. An ignored RTM_NEWROUTE of a
 *    table the sink takes (connected, local...) is zebra's new route for
 *    its prefix: it is delivered as a delete of what came before (FRR 9.1
 *    and later send a route update as that one message, NLM_F_REPLACE).
 *
 * Next-hop objects belong to one connection (zebra reuses ids for other
 * next hops after a restart) and are forgotten when it closes. A route by
 * RTA_NH_ID is delivered with the object's paths, again whenever the object
 * (or a member of its group) changes, and waits, refused and withdrawn,
 * while its id is unknown: delivered as soon as zebra sends the object.
 * An RTM_DELNEXTHOP of an object still named keeps it until its last
 * route goes (zebra deletes routes first; the kernel would delete the
 * routes with it, dpr keeps them forwarding until zebra re-points them).
 *
 * A frame is applied whole or not at all: all its messages are decoded
 * before any change is delivered, and a frame with one malformed message
 * (or bad framing) delivers nothing; it is logged with its reason,
 * counted, and the connection is reset (zebra reconnects within seconds
 * and replays everything). A batch (what the sink applies with one RCU
 * grace period) is the whole frames one dpr_fpm_poll() read: zebra sends
 * one change a frame, and a full-table replay must not cost a grace period
 * per route. A well-formed message dpr cannot use is never a reset: it
 * is counted under a named reason (enum dpr_fpm_ignore, enum
 * dpr_fpm_reject).
 *
 * Threads: everything here runs on one thread (the control thread), sink
 * callbacks included; nothing is shared with workers.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../netlink/netlink.h"
#include "../route/feed.h"
#include "../util/addr.h"

/** Listen address when none is configured (zebra's default target). */
#define DPR_FPM_LISTEN_DEFAULT "127.0.0.1:2620"
/** Main routing table, the one zebra's default VRF uses. */
#define DPR_FPM_TABLE_MAIN 254

struct dpr_fpm;

/**
 * Where changes go. Callbacks run inside dpr_fpm_poll() and must not call
 * dpr_fpm_free().
 */
struct dpr_fpm_sink {
	/**
	 * One route change (required). @p r is valid during the call only.
	 * A delete may name a prefix the sink never got: zebra's deletes are
	 * passed on as they come, and a route dpr refuses is delivered as a
	 * delete (see enum dpr_fpm_reject).
	 */
	void (*route)(void *arg, const struct dpr_route_upd *r);
	/**
	 * Apply what came since the last call as one batch (one RCU grace
	 * period). Called at the end of a dpr_fpm_poll() that delivered
	 * anything, and before disconnected(); never between two changes of
	 * one frame (a route update's delete and add). May be NULL.
	 */
	void (*batch_end)(void *arg);
	/**
	 * A zebra connection was accepted: it will replay its whole table,
	 * with no marker at the end. May be NULL.
	 */
	void (*connected)(void *arg);
	/**
	 * The connection is gone (closed by zebra, reset after a bad frame,
	 * or replaced by a new one). Next-hop objects are forgotten; the
	 * routes the sink holds are its to keep, mark stale and sweep after
	 * the replay of the next connection. May be NULL.
	 */
	void (*disconnected)(void *arg);
	/**
	 * Whether the sink takes the routes of kernel table @p table (one per
	 * VRF: zebra sends a VRF's routes with its table id). NULL: only the
	 * table given to dpr_fpm_create(). Routes of other tables are ignored
	 * (DPR_FPM_IGN_TABLE).
	 */
	bool (*table)(void *arg, uint32_t table);
	void *arg;
};

/** Well-formed messages that are none of dpr's business. */
enum dpr_fpm_ignore {
	DPR_FPM_IGN_MSG_TYPE,   /**< neither a route nor a next hop (RTM_NEWNEIGH...) */
	DPR_FPM_IGN_FAMILY,     /**< neither IPv4 nor IPv6 (MPLS LSPs) */
	DPR_FPM_IGN_TABLE,      /**< a table the sink does not take (no VRF's) */
	DPR_FPM_IGN_PROTOCOL,   /**< RTPROT_KERNEL: connected and kernel routes */
	DPR_FPM_IGN_ROUTE_TYPE, /**< local, broadcast, multicast, anycast */
	DPR_FPM_IGN_MAX
};

/**
 * Routes and next-hop objects meant for dpr that it cannot install. A
 * refused RTM_NEWROUTE is delivered as a delete of its prefix, so dpr never
 * keeps forwarding on a route zebra has replaced. Each is logged (at
 * WARNING for the 1st, 2nd, 4th, 8th... of a reason, else at DEBUG).
 */
enum dpr_fpm_reject {
	DPR_FPM_REJ_NH_UNKNOWN,  /**< RTA_NH_ID (or a group member) not received */
	DPR_FPM_REJ_NH_NESTED,   /**< a group member is a group or a blackhole */
	DPR_FPM_REJ_ENCAP,       /**< a path with an encapsulation (MPLS, SRv6...) */
	DPR_FPM_REJ_NO_OIF,      /**< a path with neither gateway nor interface */
	DPR_FPM_REJ_NO_PATH,     /**< a unicast route with no path at all */
	DPR_FPM_REJ_ROUTE_TYPE,  /**< RTN_THROW, RTN_NAT...: no forwarding meaning */
	DPR_FPM_REJ_SOURCE,      /**< source-specific (rtm_src_len != 0) */
	DPR_FPM_REJ_TOO_MANY,    /**< more than DPR_NL_MAX_NH paths or members */
	DPR_FPM_REJ_MAX
};

/**
 * Counters since create; gauges say what is held now. Written by
 * dpr_fpm_poll() on the control thread, read on the same thread.
 */
struct dpr_fpm_stats {
	uint64_t connections;       /**< zebra connections accepted */
	uint64_t replaced;          /**< connections dropped for a newer one */
	uint64_t closed;            /**< connections zebra closed (or a read error) */
	uint64_t resets;            /**< connections dpr reset: a bad frame, a VRF for a table
					 zebra had sent (dpr_fpm_table_added()) */
	uint64_t bytes;             /**< bytes read */
	uint64_t frames;            /**< well-formed frames */
	uint64_t bad_frames;        /**< frames refused whole (each caused a reset) */
	uint64_t messages;          /**< netlink messages in well-formed frames */
	uint64_t batches;           /**< batch_end() calls */
	uint64_t routes_added;      /**< adds delivered (redelivered ones included) */
	uint64_t routes_deleted;    /**< deletes delivered (refusals, and routes replaced by an ignored one, included) */
	uint64_t routes_redelivered; /**< adds and deletes caused by a next-hop object change */
	uint64_t nexthops_added;    /**< RTM_NEWNEXTHOP taken (new or replacing) */
	uint64_t nexthops_deleted;  /**< RTM_DELNEXTHOP taken */
	uint64_t nexthops_in_use;   /**< RTM_DELNEXTHOP of an object routes still use */
	uint64_t ignored[DPR_FPM_IGN_MAX];
	uint64_t rejected[DPR_FPM_REJ_MAX];
	uint32_t nexthops;          /**< gauge: next-hop objects held */
	uint32_t routes_by_id;      /**< gauge: routes held by next-hop id */
};

/**
 * Listen for zebra.
 *
 * @param listen
 *   "ADDR[:PORT]": "127.0.0.1:2620", "[::1]:2620", "127.0.0.1", "::1";
 *   port 2620 when left out, port 0 for any free one (tests). NULL means
 *   DPR_FPM_LISTEN_DEFAULT. Names are not resolved.
 * @param table
 *   The kernel table whose routes dpr takes (0 = DPR_FPM_TABLE_MAIN), when
 *   the sink has no table() callback.
 * @param sink
 *   Copied; sink->route is required.
 * @param err
 *   On failure, what went wrong and how to fix it.
 * @return
 *   The server, or NULL with errno set:
 *   EINVAL for a bad address or a sink without route();
 *   EADDRINUSE, EACCES... from socket(), bind() or listen();
 *   ENOMEM.
 */
struct dpr_fpm *dpr_fpm_create(const char *listen, uint32_t table,
			       const struct dpr_fpm_sink *sink, char *err, size_t err_len);

/**
 * Check a listen address as dpr_fpm_create() takes it, without a socket
 * (the config checker's).
 * @return 0 with its port in *@p port (2620 when left out), or -EINVAL.
 */
int dpr_fpm_listen_check(const char *listen, uint16_t *port);

/**
 * The one descriptor to wait on: readable when dpr_fpm_poll() has work
 * (an epoll set holding the listening socket and zebra's connection, so
 * it stays the same across connections). Level-triggered.
 */
int dpr_fpm_fd(const struct dpr_fpm *f);

/**
 * Accept, read and deliver what is ready, without blocking. Reads at most
 * about 1 MiB a call, so a replay of a full table does not hold the
 * control thread: the fd stays readable until everything is read.
 */
void dpr_fpm_poll(struct dpr_fpm *f);

/** dpr_fpm_poll() for dpr_server_watch(s, dpr_fpm_fd(f), dpr_fpm_poll_cb, f). */
void dpr_fpm_poll_cb(void *fpm);

/** True while a zebra connection is open. */
bool dpr_fpm_is_connected(const struct dpr_fpm *f);

/** The port listened on (the one picked when asked for port 0). */
uint16_t dpr_fpm_port(const struct dpr_fpm *f);

/** Counters and gauges. */
const struct dpr_fpm_stats *dpr_fpm_stats(const struct dpr_fpm *f);

/** Short names for counters ("table", "nexthop_unknown"...); NULL past the end. */
const char *dpr_fpm_ignore_name(enum dpr_fpm_ignore i);
const char *dpr_fpm_reject_name(enum dpr_fpm_reject i);

/**
 * Forget which next-hop object each route of @p table names (its VRF is
 * gone: vrf.del): no change of an object brings them back to the sink.
 * Calls no sink callback. Control thread.
 */
void dpr_fpm_forget_table(struct dpr_fpm *f, uint32_t table);

/**
 * Kernel table @p table now has a VRF (vrf.add). zebra sends a table's
 * routes again only on connect: when this connection sent routes of
 * @p table that the sink did not take (no VRF had it, or its VRF was
 * deleted), the connection is reset (counted in resets), so that zebra
 * reconnects and replays; the sink is called as for any disconnect
 * (batch_end(), disconnected()). Control thread, outside dpr_fpm_poll().
 */
void dpr_fpm_table_added(struct dpr_fpm *f, uint32_t table);

/** Close both sockets and free everything. Calls no sink callback. NULL is a no-op. */
void dpr_fpm_free(struct dpr_fpm *f);

/**
 * Take @p len bytes as one whole zebra connection: connect, the bytes in
 * the pieces a read could bring, then close (as when zebra goes: routes
 * go stale for the sink). What a socket would do, with no socket; for the
 * fuzz harness (tests/fuzz/fuzz_fpm.c). Control thread, no connection open.
 * @return 0; -EBADMSG when a bad frame reset the connection; -EBUSY when
 *   zebra is connected; -errno from socket().
 */
int dpr_fpm_feed(struct dpr_fpm *f, const uint8_t *buf, size_t len);
