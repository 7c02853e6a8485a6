/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * rtnetlink decoding shared by the FPM server (routes pushed by FRR's zebra
 * through dplane_fpm_nl) and the kernel mirror (routes read from the host's
 * routing table): both deliver the same RTM_NEWROUTE / RTM_NEWNEXTHOP
 * messages, and this module turns them into plain structs. It reads bytes
 * only; what a route means to dpr (which protocols, tables and types it
 * installs, whether a dead hop counts) is the caller's decision.
 *
 * Everything here is untrusted input: no byte is read past the buffer a
 * caller hands in, every length is checked with libmnl, attributes this
 * module does not know are skipped, and every rejection says why in a short
 * sentence written to @p err (for example "RTA_DST length 3 for IPv4").
 * Malformed input returns -EBADMSG; the other errno values say "well formed
 * but not for dpr", so callers can count those apart.
 *
 * No state, no allocation, no locks: any thread may call any function.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "../util/addr.h"

/** Next hops per route or per group that dpr takes (its ECMP width). */
#define DPR_NL_MAX_NH 16

/** FPM (FRR fpm/fpm.h): TCP port zebra connects to. */
#define DPR_FPM_PORT 2620
/** FPM header: version (1), type (1 = netlink), total length (network order). */
#define DPR_FPM_HDR_LEN 4
#define DPR_FPM_VERSION 1
#define DPR_FPM_TYPE_NETLINK 1
/**
 * Longest FPM frame: the length field is 16 bits. fpm.h says 4096, but
 * zebra 8.4's dplane_fpm_nl sends frames up to 8 KiB + 4 and only asserts
 * they stay under 64 KiB, so a reader sized for 4096 would choke on FRR.
 */
#define DPR_FPM_MAX_FRAME UINT16_MAX

/** One path of a route, or a single next-hop object. */
struct dpr_nl_nh {
	/**
	 * RTA_GATEWAY / RTA_VIA / NHA_GATEWAY; af 0 when directly attached.
	 * May be IPv6 for an IPv4 route (RTA_VIA, RFC 5549).
	 */
	struct dpr_ip gw;
	uint32_t ifindex;    /**< kernel ifindex (RTA_OIF, rtnh_ifindex, NHA_OIF); 0 = none */
	uint16_t weight;     /**< 1..256: rtnh_hops + 1; 1 for a single path */
	uint8_t flags;       /**< RTNH_F_* (ONLINK, DEAD, LINKDOWN...) */
	/**
	 * RTA_ENCAP_TYPE / NHA_ENCAP_TYPE (LWTUNNEL_ENCAP_*: MPLS labels,
	 * SRv6...); 0 = plain IP. The encapsulation itself is not decoded: a
	 * caller that cannot push it must refuse the path, not drop it.
	 */
	uint16_t encap_type;
};

/** RTM_NEWROUTE / RTM_DELROUTE (IPv4 or IPv6). */
struct dpr_nl_route {
	bool del;                 /**< RTM_DELROUTE */
	struct dpr_prefix prefix; /**< RTA_DST / rtm_dst_len; no bits past the length */
	uint32_t table;           /**< RTA_TABLE if present, else rtm_table */
	uint8_t protocol;         /**< rtm_protocol: RTPROT_KERNEL, RTPROT_BGP, RTPROT_OSPF... */
	/**
	 * rtm_type: RTN_UNICAST, RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT,
	 * RTN_LOCAL... zebra's deletes carry RTN_UNSPEC (0).
	 */
	uint8_t type;
	uint8_t scope;            /**< rtm_scope */
	uint8_t tos;              /**< rtm_tos: an IPv4 route for packets of that TOS only; 0 = any */
	uint32_t priority;        /**< RTA_PRIORITY (metric); 0 when absent */
	struct dpr_ip prefsrc;    /**< RTA_PREFSRC; af 0 when absent */
	/**
	 * A digest of RTA_METRICS (MTU, window...: not decoded), 0 when
	 * absent: with protocol, scope and prefsrc, what tells two IPv4
	 * routes of one prefix, TOS, metric and paths apart in the kernel
	 * (net/ipv4/fib_semantics.c fib_find_info()).
	 */
	uint32_t metrics;
	/**
	 * RTA_NH_ID: the route points at a next-hop object (RTM_NEWNEXTHOP);
	 * 0 = none. The kernel (nexthop_compat_mode 1, its default) also
	 * expands the object into nh[]; zebra sends the id alone.
	 */
	uint32_t nhg_id;
	/** Paths from RTA_GATEWAY / RTA_VIA / RTA_OIF or from RTA_MULTIPATH. */
	unsigned int n_nh;
	struct dpr_nl_nh nh[DPR_NL_MAX_NH];
};

/** One member of a next-hop group (NHA_GROUP). */
struct dpr_nl_grp {
	uint32_t id;
	uint16_t weight; /**< 1..256: nexthop_grp.weight + 1 */
};

/** RTM_NEWNEXTHOP / RTM_DELNEXTHOP (linux/nexthop.h). */
struct dpr_nl_nexthop {
	bool del;          /**< RTM_DELNEXTHOP (zebra sends NHA_ID only) */
	uint32_t id;       /**< NHA_ID, never 0 */
	enum dpr_af af;    /**< nh_family; 0 (AF_UNSPEC) for groups and deletes */
	uint8_t protocol;  /**< nh_protocol */
	bool blackhole;    /**< NHA_BLACKHOLE */
	/** A single next hop: gateway, NHA_OIF, flags = nh_flags (weight 1). */
	struct dpr_nl_nh nh;
	/** A group: its members (n_grp 0 for a single next hop). */
	unsigned int n_grp;
	struct dpr_nl_grp grp[DPR_NL_MAX_NH];
};

/**
 * Decode one route message.
 *
 * @param nlh
 *   An RTM_NEWROUTE or RTM_DELROUTE message whose nlmsg_len bytes are
 *   readable (dpr_nl_msg_next() checks that).
 * @param r
 *   Filled on success; left in an unspecified state on failure.
 * @param err
 *   On failure, a short reason, truncated to @p err_len (may be NULL).
 * @return
 *   0 on success;
 *   -EINVAL when @p nlh is not a route message;
 *   -EBADMSG when it is malformed (lengths, prefix length, address length,
 *     bits set past the prefix length, a missing RTA_DST, RTA_NH_ID 0, an
 *     empty or broken RTA_MULTIPATH or one beside RTA_GATEWAY/RTA_OIF,
 *     both RTA_GATEWAY and RTA_VIA);
 *   -EAFNOSUPPORT when the family is neither IPv4 nor IPv6 (zebra sends
 *     its MPLS LSPs as AF_MPLS routes);
 *   -EOPNOTSUPP for a source-specific route (rtm_src_len != 0);
 *   -E2BIG for more than DPR_NL_MAX_NH paths: every field but nh[] and
 *     n_nh is then filled, so a caller can tell which route it was.
 */
int dpr_nl_route_parse(const struct nlmsghdr *nlh, struct dpr_nl_route *r, char *err,
		       size_t err_len);

/**
 * The table, protocol and destination of a route message that
 * dpr_nl_route_parse() refused as a whole (source-specific, too many
 * paths), so a caller can tell whether it was its business and withdraw
 * the prefix.
 *
 * @param nlh
 *   An RTM_NEWROUTE or RTM_DELROUTE message of family AF_INET or AF_INET6
 *   whose nlmsg_len bytes are readable and hold a struct rtmsg.
 * @param p
 *   Out: the destination (all zero when RTA_DST is absent or malformed).
 * @param table
 *   Out: RTA_TABLE if present, else rtm_table.
 * @param proto
 *   Out: rtm_protocol.
 */
void dpr_nl_route_peek(const struct nlmsghdr *nlh, struct dpr_prefix *p, uint32_t *table,
		       uint8_t *proto);

/**
 * Decode one next-hop object message.
 *
 * @param nlh
 *   An RTM_NEWNEXTHOP or RTM_DELNEXTHOP message whose nlmsg_len bytes are
 *   readable.
 * @param nh
 *   Filled on success; left in an unspecified state on failure.
 * @param err
 *   On failure, a short reason (may be NULL).
 * @return
 *   0 on success;
 *   -EINVAL when @p nlh is not a next-hop message;
 *   -EBADMSG when it is malformed (no NHA_ID, a bad address or group
 *     length, a group member with id 0 or listed twice, NHA_GROUP or
 *     NHA_BLACKHOLE mixed with a gateway, a new next hop with nothing to
 *     forward to);
 *   -EAFNOSUPPORT when the family is neither unspecified, IPv4 nor IPv6;
 *   -E2BIG for a group of more than DPR_NL_MAX_NH members.
 */
int dpr_nl_nexthop_parse(const struct nlmsghdr *nlh, struct dpr_nl_nexthop *nh, char *err,
			 size_t err_len);

/**
 * Step through the netlink messages in a buffer: one FPM frame's payload
 * (zebra 8.4 sends a route update as RTM_DELROUTE then RTM_NEWROUTE in one
 * frame) or one datagram read from a netlink socket.
 *
 * @param buf
 *   In: where the next message starts, 4-byte aligned. Out: past it.
 * @param len
 *   In: bytes left at *@p buf. Out: bytes left after the message.
 * @param nlh
 *   Out: the message, all nlmsg_len bytes of it inside the buffer.
 * @param err
 *   On failure, a short reason (may be NULL).
 * @return
 *   1 with *@p nlh set; 0 when no bytes are left;
 *   -EBADMSG when the next message's header is cut short or its nlmsg_len
 *     is shorter than the header or runs past the buffer (the rest of the
 *     buffer cannot be framed then);
 *   -EINVAL when *@p buf is not 4-byte aligned.
 */
int dpr_nl_msg_next(const uint8_t **buf, size_t *len, const struct nlmsghdr **nlh, char *err,
		    size_t err_len);

/**
 * Find the first FPM frame in bytes read from zebra's stream.
 *
 * @param buf
 *   Bytes received and not consumed yet. A reader keeps its buffer start
 *   4-byte aligned (frames are a multiple of 4 long) and at least
 *   DPR_FPM_MAX_FRAME bytes big.
 * @param len
 *   Number of bytes at @p buf.
 * @param payload
 *   Out: the frame's netlink messages (walk them with dpr_nl_msg_next()).
 * @param plen
 *   Out: their length.
 * @param err
 *   On failure, a short reason (may be NULL).
 * @return
 *   The frame's length (header included) to consume, > 0;
 *   0 when the frame is not complete yet (read more);
 *   -EPROTO for a version other than 1 or a type other than netlink (1);
 *   -EBADMSG for a length under 4 or not a multiple of 4 (fpm.h requires
 *     netlink frames to keep their alignment).
 *   After an error the stream cannot be resynchronised: close it.
 */
int dpr_fpm_frame(const uint8_t *buf, size_t len, const uint8_t **payload, size_t *plen,
		  char *err, size_t err_len);
