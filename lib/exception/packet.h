/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Building and checking the packets the control thread sends for itself:
 * ARP (RFC 826) and ICMP (RFC 792, RFC 1812 4.3). No state; unit-testable.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#define DPR_ICMP_ECHO_REPLY 0
#define DPR_ICMP_DEST_UNREACH 3
#define DPR_ICMP_REDIRECT 5
#define DPR_ICMP_ECHO_REQUEST 8
#define DPR_ICMP_TIME_EXCEEDED 11
#define DPR_ICMP_PARAM_PROBLEM 12
#define DPR_ICMP_UNREACH_NET 0
#define DPR_ICMP_UNREACH_HOST 1
#define DPR_ICMP_UNREACH_FRAG_NEEDED 4
#define DPR_ICMP_UNREACH_ADMIN 13   /**< communication administratively prohibited */
#define DPR_ICMP_REDIRECT_HOST 1    /**< RFC 1812 5.2.7.2: the only code a router sends */

/** Total size of an ICMP error, quoted datagram included (RFC 1812 4.3.2.3). */
#define DPR_ICMP_ERROR_MAX 576

struct dpr_arp {
	uint16_t op;                  /**< RTE_ARP_OP_REQUEST or _REPLY */
	struct rte_ether_addr sha;
	uint32_t sip;                 /**< host byte order */
	struct rte_ether_addr tha;
	uint32_t tip;                 /**< host byte order */
};

/**
 * Parse the Ethernet/IPv4 ARP packet in @p m.
 * @return 0, or -EINVAL for anything but a well-formed Ethernet/IPv4 request or reply.
 */
int dpr_arp_parse(const struct rte_mbuf *m, struct dpr_arp *a);

/**
 * An ARP packet from @p a, in an Ethernet frame to @p dst (broadcast for
 * requests) from @p a->sha.
 * @return the mbuf, or NULL when @p mp is empty.
 */
struct rte_mbuf *dpr_arp_build(struct rte_mempool *mp, const struct dpr_arp *a,
			       const struct rte_ether_addr *dst);

/**
 * May an ICMP error be sent about the IPv4 packet in @p m (Ethernet frame)?
 * Not about ICMP errors, non-first fragments, link-layer broadcast and
 * multicast, IP multicast and the limited broadcast, or packets from
 * addresses that do not name one host (RFC 1812 4.3.2.7). A connected
 * subnet's broadcast address takes the routes to know: the caller's to
 * refuse (lib/exception's to_broadcast()).
 */
bool dpr_icmp4_error_allowed(const struct rte_mbuf *m);

/**
 * An ICMP error of @p type / @p code about the IPv4 packet in @p orig, from
 * @p src (host order) to its source. @p rest is the header's second word
 * (the next-hop MTU for fragmentation needed, the better gateway for a
 * redirect), host order. The Ethernet
 * header is left for the sender to fill. As much of the datagram is quoted
 * as fits in DPR_ICMP_ERROR_MAX bytes.
 * @return the mbuf, or NULL when @p mp is empty.
 */
struct rte_mbuf *dpr_icmp4_error(struct rte_mempool *mp, const struct rte_mbuf *orig,
				 uint8_t type, uint8_t code, uint32_t rest, uint32_t src);

/**
 * Turn the ICMP echo request in @p m into its reply, in place: MACs swapped,
 * sent back to its source from @p src (host order; 0: from the address it
 * was sent to, RFC 1812 4.3.3.6), TTL 64, checksums updated.
 * @return 0, or -EINVAL if @p m is not a valid echo request.
 */
int dpr_icmp4_echo_reply(struct rte_mbuf *m, uint32_t src);
