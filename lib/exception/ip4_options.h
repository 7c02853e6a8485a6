/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * IPv4 options on the slow path: the worker hands every packet with IHL > 5
 * to the control thread (DPR_EXC_IP_OPTIONS), which checks the options with
 * dpr_ip4_options_check() or, for a packet it forwards,
 * dpr_ip4_options_forward(). Pure functions on a header in memory: no state,
 * no logging, nothing allocated (RFC 791 3.1, RFC 1812 4.2.2.1, 5.3.13).
 *
 * Source routes. RFC 1812 5.3.13.4: "A router MUST implement support for
 * source route options in forwarded packets. A router MAY implement a
 * configuration option that, when enabled, causes all source-routed packets
 * to be discarded. However, such an option MUST NOT be enabled by default."
 * The later BCP 186, RFC 7126 4.3.5 (LSRR) and 4.4.5 (SSRR), reverses that
 * default: routers SHOULD drop packets carrying these options by default,
 * because they bypass filters, reach hosts that routing keeps apart and
 * amplify traffic (4.3.3). dpr follows RFC 7126, with no switch to turn them
 * on: a well-formed packet with LSRR or SSRR gets DPR_IP4_OPT_SOURCE_ROUTE,
 * and the caller drops and counts it. Because the packet is dropped by policy,
 * not because the route's next hop is unreachable, the answer is ICMP
 * Destination Unreachable code 13, "Communication Administratively
 * Prohibited - generated if a router cannot forward a packet due to
 * administrative filtering" (RFC 1812 5.2.7.1), not code 5 "Source Route
 * Failed - generated if a router cannot forward a packet to the next hop in a
 * source route option": 5.2.7.1 says a router "SHOULD choose a response code
 * that most closely matches the reason", and the rules of RFC 1812 4.3.2.7
 * on when no ICMP error is sent still apply.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_ip.h>

/* Option types (RFC 791 3.1; router alert: RFC 2113). */
#define DPR_IP4_OPT_EOL 0          /**< End of Option List */
#define DPR_IP4_OPT_NOP 1          /**< No Operation */
#define DPR_IP4_OPT_RR 7           /**< Record Route */
#define DPR_IP4_OPT_TS 68          /**< Internet Timestamp */
#define DPR_IP4_OPT_SEC 130        /**< (DoD basic) Security */
#define DPR_IP4_OPT_LSRR 131       /**< Loose Source and Record Route */
#define DPR_IP4_OPT_SID 136        /**< Stream Identifier (obsolete) */
#define DPR_IP4_OPT_SSRR 137       /**< Strict Source and Record Route */
#define DPR_IP4_OPT_RA 148         /**< Router Alert */

/* Timestamp flags, the low nibble of the option's fourth byte (RFC 791). */
#define DPR_IP4_TS_ONLY 0          /**< timestamps only */
#define DPR_IP4_TS_ADDR 1          /**< address of the registering router, then timestamp */
#define DPR_IP4_TS_PRESPEC 3       /**< prespecified addresses, timestamp after each */

/** Timestamp bit saying the value is not milliseconds since midnight UT (RFC 791). */
#define DPR_IP4_TS_NONSTANDARD (UINT32_C(1) << 31)

enum dpr_ip4_opt_verdict {
	DPR_IP4_OPT_OK = 0,        /**< forward (options updated in place where needed) */
	DPR_IP4_OPT_BAD,           /**< malformed: ICMP parameter problem, pointer in *ptr */
	DPR_IP4_OPT_SOURCE_ROUTE,  /**< LSRR/SSRR present and the header well formed: drop by policy */
};

/** What the router records in a packet it forwards. */
struct dpr_ip4_opt_hop {
	/** Address of the interface the packet leaves by, host order: what
	 * record route and timestamp flag 1 record (RFC 791, RFC 1812 5.3.13.5). */
	uint32_t out_addr;
	/** Milliseconds since midnight UT, or any value with
	 * DPR_IP4_TS_NONSTANDARD set when that time is not known (RFC 791). */
	uint32_t ts_ms;
	/** Is @p addr (host order) one of the router's addresses? Decides
	 * timestamp flag 3 (RFC 1812 5.3.13.6: "any of the router's IP
	 * addresses"). NULL: only @p out_addr is ours. */
	bool (*is_local)(uint32_t addr, const void *arg);
	const void *arg;           /**< passed to @p is_local */
};

/**
 * Check every option of the IPv4 header @p ip: the option list fits the
 * header, each option's length and pointer are legal for its type, and no
 * option RFC 791 allows once appears twice. The whole header (IHL * 4 bytes)
 * must be in memory; with IHL <= 5 there is nothing to check. The packet is
 * not changed.
 *
 * @param ip
 *   The IPv4 header.
 * @param ptr
 *   For DPR_IP4_OPT_BAD: the offset from the start of the IP header of the
 *   byte found wrong, the pointer of an ICMP parameter problem (RFC 792).
 *   Not written otherwise.
 * @return
 *   DPR_IP4_OPT_OK, DPR_IP4_OPT_BAD, or DPR_IP4_OPT_SOURCE_ROUTE when the
 *   header is well formed and carries LSRR or SSRR (a malformed header is
 *   DPR_IP4_OPT_BAD even then).
 */
enum dpr_ip4_opt_verdict dpr_ip4_options_check(const struct rte_ipv4_hdr *ip, uint8_t *ptr);

/**
 * Check the options as dpr_ip4_options_check() does, then do what a router
 * forwarding the packet must: record @p hop->out_addr in a record route
 * option with room left, and add a timestamp (flag 0 and 1; flag 3 when the
 * next prespecified address is the router's) or, the timestamp area full,
 * count the router in its overflow field (RFC 791, RFC 1812 5.3.13.5-6).
 * An overflow field already at 15 makes the datagram bad, pointing at the
 * overflow/flags byte. Nothing is written unless the verdict is
 * DPR_IP4_OPT_OK, so an ICMP error quotes the header as received
 * (RFC 1812 4.3.2.3). The header checksum is left for the caller.
 *
 * @param ip
 *   The IPv4 header, IHL * 4 bytes in memory and writable.
 * @param hop
 *   The addresses and time to record.
 * @param ptr
 *   As for dpr_ip4_options_check().
 * @return
 *   As dpr_ip4_options_check().
 */
enum dpr_ip4_opt_verdict dpr_ip4_options_forward(struct rte_ipv4_hdr *ip,
						 const struct dpr_ip4_opt_hop *hop,
						 uint8_t *ptr);
