/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

int
dpr_ip_parse(const char *s, struct dpr_ip *ip)
{
	struct in_addr a4;

	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		ip->af = DPR_AF_IP4;
		ip->ip4 = ntohl(a4.s_addr);
		return 0;
	}
	if (inet_pton(AF_INET6, s, ip->ip6) == 1) {
		ip->af = DPR_AF_IP6;
		return 0;
	}
	return -EINVAL;
}

void
dpr_prefix_mask(struct dpr_prefix *p)
{
	unsigned int i;

	if (p->addr.af == DPR_AF_IP4) {
		p->addr.ip4 &= dpr_ip4_mask(p->len);
		return;
	}
	for (i = 0; i < 16; i++) {
		unsigned int bits = i * 8;

		if (bits >= p->len)
			p->addr.ip6[i] = 0;
		else if (bits + 8 > p->len)
			p->addr.ip6[i] &= (uint8_t)(0xff << (8 - (p->len - bits)));
	}
}

int
dpr_prefix_parse(const char *s, bool allow_host_bits, struct dpr_prefix *p,
		 char *hint, size_t hint_len)
{
	char buf[DPR_PREFIX_STRLEN];
	const char *slash = strchr(s, '/');
	struct dpr_prefix masked;
	unsigned long len;
	size_t alen;
	char *end;

	alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (alen == 0 || alen >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (dpr_ip_parse(buf, &p->addr) < 0)
		return -EINVAL;

	if (slash == NULL) {
		p->len = p->addr.af == DPR_AF_IP4 ? 32 : 128;
		return 0;
	}
	if (slash[1] < '0' || slash[1] > '9')
		return -EINVAL;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' ||
	    len > (p->addr.af == DPR_AF_IP4 ? 32u : 128u))
		return -EINVAL;
	p->len = (uint8_t)len;

	if (!allow_host_bits) {
		masked = *p;
		dpr_prefix_mask(&masked);
		if (memcmp(&masked, p, sizeof(masked)) != 0) {
			if (hint != NULL)
				dpr_prefix_fmt(&masked, hint, hint_len);
			return -EINVAL;
		}
	}
	return 0;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
dpr_mac_parse(const char *s, struct rte_ether_addr *mac)
{
	int i;

	/* Exactly "xx:xx:xx:xx:xx:xx", one separator (':' or '-') throughout. */
	if (strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		if (i < RTE_ETHER_ADDR_LEN - 1 && s[3 * i + 2] != s[2])
			return -EINVAL;
		mac->addr_bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	if (s[2] != ':' && s[2] != '-')
		return -EINVAL;
	return 0;
}

char *
dpr_ip4_fmt(uint32_t ip4, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip4 >> 24, (ip4 >> 16) & 0xff,
		 (ip4 >> 8) & 0xff, ip4 & 0xff);
	return buf;
}

char *
dpr_ip_fmt(const struct dpr_ip *ip, char *buf, size_t len)
{
	if (ip->af == DPR_AF_IP4)
		return dpr_ip4_fmt(ip->ip4, buf, len);
	if (inet_ntop(AF_INET6, ip->ip6, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

char *
dpr_prefix_fmt(const struct dpr_prefix *p, char *buf, size_t len)
{
	char a[DPR_IP6_STRLEN];

	snprintf(buf, len, "%s/%u", dpr_ip_fmt(&p->addr, a, sizeof(a)), p->len);
	return buf;
}

bool
dpr_prefix_contains(const struct dpr_prefix *p, const struct dpr_ip *ip)
{
	struct dpr_prefix a = { .addr = *ip, .len = p->len }, b = *p;

	if (p->addr.af != ip->af)
		return false;
	dpr_prefix_mask(&a);
	dpr_prefix_mask(&b);
	if (ip->af == DPR_AF_IP4)
		return a.addr.ip4 == b.addr.ip4;
	return memcmp(a.addr.ip6, b.addr.ip6, 16) == 0;
}

int
dpr_sockaddr_parse(const char *s, int default_port, struct sockaddr_storage *ss,
		   socklen_t *sl)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN];
	const char *port = NULL, *end, *colon = strchr(s, ':');
	unsigned long p = default_port < 0 ? 0 : (unsigned long)default_port;
	size_t hlen;
	char *stop;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (end == NULL || (end[1] != '\0' && end[1] != ':'))
			return -EINVAL;
		hlen = (size_t)(end - s - 1);
		s++;
		if (end[1] == ':')
			port = end + 2;
	} else if (colon != NULL && strchr(colon + 1, ':') == NULL) {
		hlen = (size_t)(colon - s);
		port = colon + 1;
	} else {
		hlen = strlen(s);
	}
	if (hlen == 0 || hlen >= sizeof(host) || (port == NULL && default_port < 0))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (port != NULL) {
		errno = 0;
		p = strtoul(port, &stop, 10);
		if (port[0] < '0' || port[0] > '9' || *stop != '\0' || errno != 0 || p > 65535)
			return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)p);
		*sl = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		*sl = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
}

uint16_t
dpr_sockaddr_port(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port :
		     ((const struct sockaddr_in6 *)ss)->sin6_port);
}
