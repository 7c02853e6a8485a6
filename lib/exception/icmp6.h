/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Building, parsing and checking the IPv6 control packets the router sends
 * and receives for itself: ICMPv6 errors and echo (RFC 4443), Neighbor
 * Discovery and Router Advertisements (RFC 4861, RFC 4862), and the
 * Hop-by-Hop Options header (RFC 8200 4.2-4.3). The IPv6 counterpart of
 * packet.h: no state, unit-testable.
 *
 * Addresses are uint8_t[16] in network order. The Ethernet and IPv6
 * headers of a frame must lie in its first segment, and so must a whole
 * Neighbor Discovery message or echo request; extension headers and the
 * quote of an error may span segments. Every builder returns one
 * contiguous mbuf.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

/* ICMPv6 types (RFC 4443 2.1, RFC 4861 4, RFC 2710 3, RFC 3810 5). */
#define DPR_ICMP6_DEST_UNREACH 1
#define DPR_ICMP6_PACKET_TOO_BIG 2
#define DPR_ICMP6_TIME_EXCEEDED 3
#define DPR_ICMP6_PARAM_PROBLEM 4
#define DPR_ICMP6_ECHO_REQUEST 128
#define DPR_ICMP6_ECHO_REPLY 129
#define DPR_ICMP6_MLD_QUERY 130
#define DPR_ICMP6_MLD_REPORT 131
#define DPR_ICMP6_MLD_DONE 132
#define DPR_ICMP6_ROUTER_SOLICIT 133
#define DPR_ICMP6_ROUTER_ADVERT 134
#define DPR_ICMP6_NEIGH_SOLICIT 135
#define DPR_ICMP6_NEIGH_ADVERT 136
#define DPR_ICMP6_REDIRECT 137
#define DPR_ICMP6_MLD2_REPORT 143

/* Codes (RFC 4443 3.1, 3.3, 3.4). */
#define DPR_ICMP6_UNREACH_NO_ROUTE 0
#define DPR_ICMP6_UNREACH_ADMIN 1        /**< administratively prohibited */
#define DPR_ICMP6_UNREACH_BEYOND_SCOPE 2
#define DPR_ICMP6_UNREACH_ADDR 3
#define DPR_ICMP6_UNREACH_PORT 4
#define DPR_ICMP6_UNREACH_POLICY 5       /**< source failed ingress/egress policy */
#define DPR_ICMP6_UNREACH_REJECT_ROUTE 6
#define DPR_ICMP6_TIME_HOP_LIMIT 0
#define DPR_ICMP6_TIME_REASSEMBLY 1
#define DPR_ICMP6_PARAM_HEADER 0         /**< erroneous header field */
#define DPR_ICMP6_PARAM_NEXT_HEADER 1    /**< unrecognized Next Header type */
#define DPR_ICMP6_PARAM_OPTION 2         /**< unrecognized IPv6 option */

/* Neighbor Discovery option types (RFC 4861 4.6). */
#define DPR_NDP_OPT_SLLA 1
#define DPR_NDP_OPT_TLLA 2
#define DPR_NDP_OPT_PREFIX 3
#define DPR_NDP_OPT_REDIRECTED 4
#define DPR_NDP_OPT_MTU 5

/** Hop limit of every Neighbor Discovery message (RFC 4861 6.1, 7.1, 8.1). */
#define DPR_NDP_HOP_LIMIT 255

/** RFC 4443 2.4(c): an error never exceeds the minimum MTU (RFC 8200 5). */
#define DPR_ICMP6_ERROR_MAX 1280

/** The most prefix information options one dpr_ra_conf carries. */
#define DPR_RA_PREFIXES_MAX 8

/** fe80::/10 (RFC 4291 2.5.6). */
static inline bool
dpr_ip6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/** ff00::/8 (RFC 4291 2.7). */
static inline bool
dpr_ip6_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/** :: (RFC 4291 2.5.2). */
static inline bool
dpr_ip6_is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, sizeof(zero)) == 0;
}

/** ::1 (RFC 4291 2.5.3). */
static inline bool
dpr_ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t one[16] = { [15] = 1 };

	return memcmp(a, one, sizeof(one)) == 0;
}

/**
 * The link-local address of an interface with MAC @p mac: fe80::/64 and the
 * modified EUI-64 interface identifier, ff:fe in the middle and the
 * universal/local bit inverted (RFC 4291 2.5.1 and appendix A, RFC 2464 5).
 */
void dpr_ip6_link_local_from_mac(const struct rte_ether_addr *mac, uint8_t out[16]);

/** The solicited-node multicast address of @p ip: ff02::1:ff00:0/104 and its last 24 bits (RFC 4291 2.7.1). */
void dpr_ip6_solicited_node(const uint8_t *ip, uint8_t out[16]);

/** The Ethernet address of multicast @p ip: 33:33 and its last 32 bits (RFC 2464 7). */
void dpr_ip6_mcast_mac(const uint8_t *ip, struct rte_ether_addr *mac);

/**
 * The ICMPv6 checksum of the @p len bytes at @p icmp, carried in @p ip, over
 * the pseudo-header of RFC 8200 8.1 (source, destination, upper-layer length
 * @p len, next header 58). The destination must be the final one: with a
 * Routing header, that is the address in the IPv6 header once Segments Left
 * is 0. @p ip's own next header and payload length are not used, so this
 * also works when extension headers sit between the two.
 * @return the value to store in the checksum field (computed with that field
 *   zero); over a message with its checksum in place, 0 when it is right.
 */
uint16_t dpr_icmp6_cksum(const struct rte_ipv6_hdr *ip, const void *icmp, uint32_t len);

/** Is the checksum of the ICMPv6 message at @p icmp (@p len bytes, checksum in place) right? */
static inline bool
dpr_icmp6_cksum_ok(const struct rte_ipv6_hdr *ip, const void *icmp, uint32_t len)
{
	return dpr_icmp6_cksum(ip, icmp, len) == 0;
}

/**
 * May an ICMPv6 error of @p type / @p code be sent about the IPv6 packet in
 * @p m (Ethernet frame)? RFC 4443 2.4(e) forbids one about:
 * an ICMPv6 error or a Redirect (extension headers are walked to find the
 * upper layer; an ICMPv6 message too short to hold its 4-byte header counts
 * as one), a packet to an IPv6 multicast address or sent as a link-layer
 * multicast or broadcast (except Packet Too Big and Parameter Problem code 2,
 * RFC 4443 2.4(e.3)), and a packet whose source does not name one node
 * (unspecified, multicast, loopback).
 * A non-first fragment, or a chain of extension headers cut short, does not
 * show its upper layer and may draw an error (the Parameter Problem that
 * reports the damage).
 * @return true when the error may be sent; false also for a frame that is
 *   not IPv6 or is shorter than its IPv6 header.
 */
bool dpr_icmp6_error_allowed(const struct rte_mbuf *m, uint8_t type, uint8_t code);

/**
 * An ICMPv6 error of @p type / @p code about the IPv6 packet in @p orig
 * (Ethernet frame), from @p src to that packet's source, hop limit 64.
 * The 32-bit field after the checksum is @p param: the MTU for Packet Too
 * Big, the pointer for Parameter Problem (a byte offset from the start of
 * the offending IPv6 header); 0 for the other types, whose field is unused
 * (RFC 4443 3.1, 3.3). As much of the offending packet is quoted as fits in
 * DPR_ICMP6_ERROR_MAX bytes of IPv6 packet (RFC 4443 2.4(c)). The Ethernet
 * addresses are left zero for the sender to fill; the EtherType is IPv6.
 * Whether the error may be sent at all is dpr_icmp6_error_allowed()'s call.
 * @return the mbuf, or NULL with errno set: ENOBUFS when @p mp is empty or
 *   its buffers too small, EINVAL when @p type is not an error (>= 128),
 *   @p src is not a unicast address, or @p orig is not an IPv6 packet from
 *   a unicast source.
 */
struct rte_mbuf *dpr_icmp6_error(struct rte_mempool *mp, const struct rte_mbuf *orig,
				 uint8_t type, uint8_t code, uint32_t param, const uint8_t src[16]);

/**
 * Turn the ICMPv6 echo request in @p m (Ethernet frame) into its reply, in
 * place: MACs swapped, sent back to its source from @p src, hop limit 64,
 * the data returned unmodified and the checksum recomputed (RFC 4443 4.2).
 * After the swap the source MAC is the one the request went to: for a
 * request to a multicast MAC the caller puts the port's own there.
 * Extension headers of the request (Hop-by-Hop, Destination Options, a
 * Routing header with no segments left) are removed, and trailing bytes
 * past the IPv6 payload trimmed.
 * @param src the reply's source; NULL: the request's destination. A request
 *   to a multicast address needs one of the interface's unicast addresses
 *   (RFC 4443 4.2).
 * @return 0, or -EINVAL if @p m is not a valid echo request (not contiguous,
 *   truncated, fragmented, code not 0, wrong checksum, from an address that
 *   cannot be answered, or to multicast with @p src NULL); @p m is then
 *   unchanged.
 */
int dpr_icmp6_echo_reply(struct rte_mbuf *m, const uint8_t src[16]);

/** One prefix information option (RFC 4861 4.6.2). */
struct dpr_ra_prefix {
	uint8_t prefix[16];          /**< bits past @p len are sent as zero */
	uint8_t len;                 /**< 0-128 */
	bool on_link;                /**< L flag */
	bool autonomous;             /**< A flag: usable for SLAAC (RFC 4862 5.5.3) */
	uint32_t valid_lifetime;     /**< seconds, host order; 0xffffffff: infinity */
	uint32_t preferred_lifetime; /**< seconds, host order; at most the valid lifetime */
};

/** What a Router Advertisement carries (RFC 4861 4.2, 6.2.1). Host byte order. */
struct dpr_ra_conf {
	uint8_t cur_hop_limit;       /**< 0: unspecified */
	bool managed;                /**< M flag */
	bool other;                  /**< O flag */
	uint16_t router_lifetime;    /**< seconds; 0: not a default router */
	uint32_t reachable_time;     /**< milliseconds; 0: unspecified */
	uint32_t retrans_timer;      /**< milliseconds; 0: unspecified */
	uint32_t mtu;                /**< MTU option (4.6.4); 0: none */
	unsigned int n_prefixes;     /**< at most DPR_RA_PREFIXES_MAX */
	struct dpr_ra_prefix prefixes[DPR_RA_PREFIXES_MAX];
};

/** A Neighbor Discovery message, as dpr_ndp_parse() found it. */
struct dpr_ndp {
	uint8_t type;                /**< DPR_ICMP6_ROUTER_SOLICIT .. DPR_ICMP6_REDIRECT */
	uint8_t code;
	uint8_t hop_limit;
	uint8_t src[16];             /**< IPv6 source */
	uint8_t dst[16];             /**< IPv6 destination */
	uint8_t target[16];          /**< NS, NA, Redirect */
	uint8_t dest[16];            /**< Redirect: the Destination Address field */
	bool has_lladdr;
	/** SLLA of NS, RS and RA; TLLA of NA and Redirect (RFC 4861 4.6.1). */
	struct rte_ether_addr lladdr;
	bool router;                 /**< NA R flag */
	bool solicited;              /**< NA S flag */
	bool override;               /**< NA O flag */
	/**
	 * RA: the advertised parameters; prefix options past the first
	 * DPR_RA_PREFIXES_MAX, and those whose length is not 4, are skipped.
	 */
	struct dpr_ra_conf ra;
};

/**
 * Parse and validate the Neighbor Discovery message in @p m (Ethernet frame
 * of an IPv6 packet whose next header is ICMPv6; NDP messages never carry
 * extension headers, so a packet with any is refused). Validity follows
 * RFC 4861 6.1.1 (RS), 6.1.2 (RA), 7.1.1 (NS), 7.1.2 (NA) and 8.1
 * (Redirect): hop limit 255, right checksum, code 0, the minimum length of
 * the type, every option of non-zero length and inside the message; RA and
 * Redirect from a link-local source; NS and NA targets (and the Redirect
 * destination) not multicast; from :: only an NS to a solicited-node
 * address, or an RS, without a source link-layer address option; an NA to
 * multicast with the Solicited flag clear. Unknown options are skipped.
 * Link-layer address options are taken only at Ethernet length (1); one
 * that names no unicast host (multicast, broadcast, zero) makes the message
 * invalid, as for an ARP sender.
 * @return 0; -EINVAL for an invalid message, to be dropped silently;
 *   -ENOTSUP for an ICMPv6 message that is not Neighbor Discovery.
 */
int dpr_ndp_parse(const struct rte_mbuf *m, struct dpr_ndp *n);

/**
 * A Neighbor Solicitation for @p target (RFC 4861 4.3, 7.2.2) from
 * @p smac, hop limit 255, with a source link-layer address option unless the
 * source is :: (Duplicate Address Detection, RFC 4862 5.4.2).
 * @param src NULL: :: (DAD).
 * @param unicast_probe true: to @p target itself and @p dmac (reachability
 *   confirmation, 7.3.1); false: to the target's solicited-node multicast
 *   address and its MAC.
 * @return the mbuf, or NULL with errno set: ENOBUFS when @p mp is empty,
 *   EINVAL when @p target is multicast or unspecified, @p src is multicast,
 *   or a unicast probe lacks @p dmac or is a DAD probe.
 */
struct rte_mbuf *dpr_ndp_ns_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
				  const uint8_t src[16], const uint8_t target[16],
				  bool unicast_probe, const struct rte_ether_addr *dmac);

/**
 * A Neighbor Advertisement for @p target (RFC 4861 4.4, 7.2.4) from
 * @p smac / @p src to @p dst, hop limit 255, with @p smac as target
 * link-layer address option.
 * @param dst unicast (the solicitor) or a multicast address (ff02::1 for
 *   unsolicited ones and answers to DAD); then @p solicited must be false.
 * @param dmac the destination MAC when @p dst is unicast; for a multicast
 *   @p dst the MAC is derived from it and @p dmac may be NULL.
 * @return the mbuf, or NULL with errno set: ENOBUFS when @p mp is empty,
 *   EINVAL for a multicast or unspecified @p target or @p src, a multicast
 *   @p dst with @p solicited, or a unicast one without @p dmac.
 */
struct rte_mbuf *dpr_ndp_na_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
				  const uint8_t src[16], const uint8_t dst[16],
				  const struct rte_ether_addr *dmac, const uint8_t target[16],
				  bool router, bool solicited, bool override);

/**
 * A Redirect (RFC 4861 4.5, 8.2) about the IPv6 packet in @p orig (Ethernet
 * frame) to its source, from @p smac / @p src (the interface's link-local
 * address: hosts drop others, 8.1) to @p dmac, hop limit 255: @p target is
 * the better first hop (a link-local address) or the destination itself
 * when it is on the link, @p dest the packet's destination. Options: the
 * target's link-layer address when @p tlla is not NULL, then the
 * Redirected Header with as much of @p orig as keeps the redirect within
 * DPR_ICMP6_ERROR_MAX bytes of IPv6 packet (8.2), zero-padded to 8 octets.
 * @return the mbuf, or NULL with errno set: ENOBUFS when @p mp is empty or
 *   its buffers too small, EINVAL when @p src is not link-local, @p target
 *   is neither link-local nor @p dest, or @p orig is not an IPv6 packet
 *   from a unicast source.
 */
struct rte_mbuf *dpr_ndp_redirect_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
					const uint8_t src[16], const struct rte_ether_addr *dmac,
					const uint8_t target[16], const uint8_t dest[16],
					const struct rte_ether_addr *tlla,
					const struct rte_mbuf *orig);

/**
 * A Router Advertisement of @p ra (RFC 4861 4.2, 6.2.3) from @p smac /
 * @p src to @p dst, hop limit 255: the source link-layer address option,
 * the MTU option when @p ra->mtu is set, then one prefix information option
 * per prefix (4.6).
 * @param src the interface's link-local address (receivers drop others, 6.1.2).
 * @param dst ff02::1, or the soliciting host (then @p dmac is its MAC; for a
 *   multicast @p dst the MAC is derived and @p dmac may be NULL).
 * @return the mbuf, or NULL with errno set: ENOBUFS when @p mp is empty or
 *   its buffers too small, EINVAL when @p src is not link-local, a unicast
 *   @p dst lacks @p dmac, there are more than DPR_RA_PREFIXES_MAX prefixes, a
 *   prefix is longer than 128 bits or prefers longer than it is valid
 *   (RFC 4862 5.5.3(c): hosts would ignore it).
 */
struct rte_mbuf *dpr_ndp_ra_build(struct rte_mempool *mp, const struct rte_ether_addr *smac,
				  const uint8_t src[16], const uint8_t dst[16],
				  const struct rte_ether_addr *dmac, const struct dpr_ra_conf *ra);

/** What a router must do with a packet, by its Hop-by-Hop Options header. */
enum dpr_ip6_hbh {
	/** No such header, or only Pad1, PadN and Router Alerts not for us. */
	DPR_IP6_HBH_FORWARD,
	/** A Router Alert for MLD (RFC 2711 2.1, value 0): for the router. */
	DPR_IP6_HBH_LOCAL,
	/**
	 * Discard silently: an unrecognized option whose action is 01, or 11
	 * when the destination is multicast (RFC 8200 4.2); or a frame shorter
	 * than its IPv6 header or payload length.
	 */
	DPR_IP6_HBH_DROP,
	/**
	 * Discard and send a Parameter Problem (dpr_icmp6_error_allowed() still
	 * applies): code 2 for an unrecognized option whose action is 10, or 11
	 * to a unicast destination; code 0 for a malformed header (its length
	 * past the payload, an option past its end, a Router Alert whose data is
	 * not 2 bytes).
	 */
	DPR_IP6_HBH_PARAM_PROBLEM,
};

/**
 * Check the Hop-by-Hop Options header of the IPv6 packet in @p m (Ethernet
 * frame) as a router must (RFC 8200 4.2, 4.3): the only extension header a
 * router looks at, and only when it follows the IPv6 header directly.
 * @param code set for DPR_IP6_HBH_PARAM_PROBLEM: the Parameter Problem code.
 * @param pointer set for DPR_IP6_HBH_PARAM_PROBLEM: the offset of the
 *   faulty byte (the option type, or the length field that overruns) from
 *   the start of the IPv6 header, as the error's pointer field wants.
 * @return what to do with the packet (enum dpr_ip6_hbh).
 */
enum dpr_ip6_hbh dpr_ip6_hbh_check(const struct rte_mbuf *m, uint8_t *code, uint32_t *pointer);
