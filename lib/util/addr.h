/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Parsing and printing of addresses, prefixes and MACs, shared by the config
 * loader and the control API. IPv4 addresses are kept in host byte order on
 * the control side (the FIB takes them so); workers convert once per burst.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ether.h>

#define DPR_IP4_STRLEN 16
#define DPR_IP6_STRLEN 46
#define DPR_PREFIX_STRLEN 50

enum dpr_af {
	DPR_AF_IP4 = 4,
	DPR_AF_IP6 = 6,
};

struct dpr_ip {
	enum dpr_af af;
	union {
		uint32_t ip4;     /**< host byte order */
		uint8_t ip6[16];  /**< network byte order */
	};
};

struct dpr_prefix {
	struct dpr_ip addr;
	uint8_t len;
};

/** Same family and address (bytes past an IPv4 address are not compared). */
static inline bool
dpr_ip_equal(const struct dpr_ip *a, const struct dpr_ip *b)
{
	if (a->af != b->af)
		return false;
	if (a->af == DPR_AF_IP4)
		return a->ip4 == b->ip4;
	return memcmp(a->ip6, b->ip6, sizeof(a->ip6)) == 0;
}

/**
 * True for an IPv6 link-local address (fe80::/10, RFC 4291 2.5.6): it names
 * a host only together with a link, so the same address on two ports is two
 * neighbours.
 */
static inline bool
dpr_ip_is_link_local(const struct dpr_ip *ip)
{
	return ip->af == DPR_AF_IP6 && ip->ip6[0] == 0xfe && (ip->ip6[1] & 0xc0) == 0x80;
}

/*
 * RFC 8200 5: every link that carries IPv6 MUST have an MTU of at least
 * 1280. As Linux, dpr runs no IPv6 on an interface whose MTU is below it
 * (no address, no link-local, no NDP or RA, no route out of it, IPv6
 * received there dropped as unsupported_l3); IPv4 works at any MTU.
 */
#define DPR_IP6_MIN_MTU 1280

/** The error text for an IPv6 address, gateway, neighbour or route on an
 * interface whose MTU is below DPR_IP6_MIN_MTU. */
#define DPR_IP6_MTU_WHY "its MTU is below 1280, so it has no IPv6 (RFC 8200 5: an IPv6 link MUST have an MTU of at least 1280); raise its mtu to 1280 or more"

/** Does an interface of MTU @p mtu carry IPv6 (RFC 8200 5)? */
static inline bool
dpr_mtu_carries_ip6(unsigned int mtu)
{
	return mtu >= DPR_IP6_MIN_MTU;
}

/** Parse "10.0.0.1" or "2001:db8::1". Returns 0 or -EINVAL. */
int dpr_ip_parse(const char *s, struct dpr_ip *ip);

/**
 * Parse "10.0.0.0/8". With @p allow_host_bits false, a prefix with bits set
 * past its length fails with -EINVAL and, if @p hint is given, the masked
 * prefix is written there so the caller can suggest it.
 * A missing "/len" means a host prefix (/32 or /128).
 */
int dpr_prefix_parse(const char *s, bool allow_host_bits, struct dpr_prefix *p,
		     char *hint, size_t hint_len);

/** Parse "02:00:00:00:00:01" (also accepts '-' separators). Returns 0 or -EINVAL. */
int dpr_mac_parse(const char *s, struct rte_ether_addr *mac);

/** Format into @p buf; returns @p buf. */
char *dpr_ip_fmt(const struct dpr_ip *ip, char *buf, size_t len);
char *dpr_ip4_fmt(uint32_t ip4, char *buf, size_t len);
char *dpr_prefix_fmt(const struct dpr_prefix *p, char *buf, size_t len);

static inline uint32_t
dpr_ip4_mask(uint8_t len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

/** True if @p ip lies in @p p (same family). */
bool dpr_prefix_contains(const struct dpr_prefix *p, const struct dpr_ip *ip);

/** Clear the bits of @p p past its length. */
void dpr_prefix_mask(struct dpr_prefix *p);

/**
 * Parse a TCP address to listen on: "127.0.0.1:9111", "[::1]:9111" and,
 * when @p default_port is 0 to 65535, an address alone ("127.0.0.1", "::1",
 * "[::1]") for that port. Numeric addresses only: names are not resolved.
 * @param default_port
 *   The port of an address given alone, or -1 when the port is required.
 * @return 0 with the address in @p ss and its length in @p sl, or -EINVAL.
 */
int dpr_sockaddr_parse(const char *s, int default_port, struct sockaddr_storage *ss,
		       socklen_t *sl);

/** The port of an AF_INET or AF_INET6 address, in host byte order. */
uint16_t dpr_sockaddr_port(const struct sockaddr_storage *ss);
