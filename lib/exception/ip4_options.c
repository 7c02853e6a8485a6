/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>

#include "ip4_options.h"

/* Offsets from the IP header of the options that forwarding updates, 0 when
 * absent. RFC 791 allows each at most once, so one offset each is enough. */
struct opt_pos {
	uint8_t rr;
	uint8_t ts;
};

/* Options RFC 791 says appear at most once; LSRR and SSRR share a bit, as a
 * header "containing more than one Source Route option MUST NOT be sent"
 * (RFC 1122 3.2.1.8) and RFC 7126 4.3 drops LSRR with SSRR. */
#define ONCE_RR (1u << 0)
#define ONCE_TS (1u << 1)
#define ONCE_SR (1u << 2)
#define ONCE_SID (1u << 3)

static enum dpr_ip4_opt_verdict
bad(uint8_t *ptr, unsigned int at)
{
	*ptr = (uint8_t)at;
	return DPR_IP4_OPT_BAD;
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

static void
put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, sizeof(v));
}

/*
 * RR, LSRR and SSRR (RFC 791): type, length, pointer, then length - 3 bytes
 * of addresses. The pointer counts from 1 at the type byte and names the
 * next slot (4, 8, ...); past the length it says the area is full. A pointer
 * inside the area but off a slot, or on a slot the length cuts short,
 * leaves "some room but not enough room for a full address", which RFC 791
 * makes an error when a router gets there: a length that leaves a partial
 * last slot is no error while the pointer is on a whole one (earlier hops
 * fill those). @return the offset in the option of the bad byte, 0 if none.
 */
static unsigned int
route_error(const uint8_t *o)
{
	uint8_t len = o[1], p;

	if (len < 3)
		return 1;
	p = o[2];
	if (p < 4 || (p <= len && (p % 4 != 0 || p + 3 > len)))
		return 2;
	return 0;
}

/*
 * Internet timestamp (RFC 791): type, length, pointer, overflow/flags, then
 * 4-byte timestamps (flag 0) or address/timestamp pairs (flags 1 and 3).
 * The smallest legal pointer is 5; past the length the area is full. Flag
 * 2 and 4-15 are undefined. As for a route, "some room but not enough room
 * for a full timestamp" is an error once the pointer reaches it, not before.
 */
static unsigned int
ts_error(const uint8_t *o)
{
	uint8_t len = o[1], flag, p;
	unsigned int slot;

	if (len < 4)
		return 1;
	flag = o[3] & 0xf;
	if (flag != DPR_IP4_TS_ONLY && flag != DPR_IP4_TS_ADDR && flag != DPR_IP4_TS_PRESPEC)
		return 3;
	slot = flag == DPR_IP4_TS_ONLY ? 4 : 8;
	p = o[2];
	if (p < 5 || (p <= len && ((p - 5) % slot != 0 || p + slot - 1 > len)))
		return 2;
	return 0;
}

/*
 * The one walk over the option list that both entry points share. RFC 791
 * 3.1: type 0 ends the list (what follows is padding), type 1 is a single
 * byte, every other option has a length byte counting the type byte and
 * itself. The error pointer is an offset from the IP header (RFC 792); an
 * option whose type byte is the header's last has no length byte to point
 * at, so the type byte is named.
 */
static enum dpr_ip4_opt_verdict
walk(const struct rte_ipv4_hdr *ip, struct opt_pos *pos, uint8_t *ptr)
{
	const uint8_t *h = (const uint8_t *)ip;
	unsigned int hlen = (ip->version_ihl & 0xf) * 4u;
	unsigned int i = sizeof(*ip), seen = 0, once, err;

	pos->rr = 0;
	pos->ts = 0;
	while (i < hlen) {
		const uint8_t *o = h + i;

		if (o[0] == DPR_IP4_OPT_EOL)
			break;
		if (o[0] == DPR_IP4_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= hlen)
			return bad(ptr, i);
		if (o[1] < 2 || i + o[1] > hlen)
			return bad(ptr, i + 1);

		switch (o[0]) {
		case DPR_IP4_OPT_RR:
			once = ONCE_RR;
			break;
		case DPR_IP4_OPT_TS:
			once = ONCE_TS;
			break;
		case DPR_IP4_OPT_LSRR:
		case DPR_IP4_OPT_SSRR:
			once = ONCE_SR;
			break;
		case DPR_IP4_OPT_SID:
			once = ONCE_SID;
			break;
		default:
			once = 0;
		}
		if (seen & once)
			return bad(ptr, i);
		seen |= once;

		switch (o[0]) {
		case DPR_IP4_OPT_RR:
		case DPR_IP4_OPT_LSRR:
		case DPR_IP4_OPT_SSRR:
			err = route_error(o);
			break;
		case DPR_IP4_OPT_TS:
			err = ts_error(o);
			break;
		case DPR_IP4_OPT_SID:
			/* Obsolete and ignored (RFC 1812 4.2.2.1), but RFC 791
			 * gives it length 4. */
		case DPR_IP4_OPT_RA:
			/* RFC 2113 2.1: length 4, a 2-byte value. */
			err = o[1] != 4 ? 1 : 0;
			break;
		default:
			/* Security and unknown options: "A router MUST ignore
			 * IP options which it does not recognize" (RFC 1812
			 * 4.2.2.6); forwarded unchanged. */
			err = 0;
		}
		if (err != 0)
			return bad(ptr, i + err);

		if (o[0] == DPR_IP4_OPT_RR)
			pos->rr = (uint8_t)i;
		else if (o[0] == DPR_IP4_OPT_TS)
			pos->ts = (uint8_t)i;
		i += o[1];
	}
	/* Only now: a malformed option after the source route wins. */
	return (seen & ONCE_SR) ? DPR_IP4_OPT_SOURCE_ROUTE : DPR_IP4_OPT_OK;
}

enum dpr_ip4_opt_verdict
dpr_ip4_options_check(const struct rte_ipv4_hdr *ip, uint8_t *ptr)
{
	struct opt_pos pos;

	return walk(ip, &pos, ptr);
}

/* RFC 791: the router "inserts its own internet address as known in the
 * environment into which this datagram is being forwarded"; a full area is
 * left as it is, no error (RFC 1812 5.3.13.5). */
static void
record_route(uint8_t *o, uint32_t out_addr)
{
	uint8_t p = o[2];

	if (p > o[1])
		return;
	put32(o + p - 1, out_addr);
	o[2] = (uint8_t)(p + 4);
}

/* RFC 791 and RFC 1812 5.3.13.6. Called with room left or the overflow
 * count below 15. */
static void
timestamp(uint8_t *o, const struct dpr_ip4_opt_hop *hop)
{
	uint8_t p = o[2];
	uint32_t addr;

	if (p > o[1]) {
		/* Full: "forwarded without inserting the timestamp, but the
		 * overflow count is incremented by one". */
		o[3] = (uint8_t)(o[3] + 0x10);
		return;
	}
	switch (o[3] & 0xf) {
	case DPR_IP4_TS_ONLY:
		put32(o + p - 1, hop->ts_ms);
		o[2] = (uint8_t)(p + 4);
		break;
	case DPR_IP4_TS_ADDR:
		put32(o + p - 1, hop->out_addr);
		put32(o + p + 3, hop->ts_ms);
		o[2] = (uint8_t)(p + 8);
		break;
	case DPR_IP4_TS_PRESPEC:
		/* The router "MUST add its timestamp if the next prespecified
		 * address matches any of the router's IP addresses"; others
		 * leave the option alone. */
		addr = get32(o + p - 1);
		if (hop->is_local != NULL ? !hop->is_local(addr, hop->arg) : addr != hop->out_addr)
			break;
		put32(o + p + 3, hop->ts_ms);
		o[2] = (uint8_t)(p + 8);
		break;
	}
}

enum dpr_ip4_opt_verdict
dpr_ip4_options_forward(struct rte_ipv4_hdr *ip, const struct dpr_ip4_opt_hop *hop,
			uint8_t *ptr)
{
	uint8_t *h = (uint8_t *)ip;
	enum dpr_ip4_opt_verdict v;
	struct opt_pos pos;

	v = walk(ip, &pos, ptr);
	if (v != DPR_IP4_OPT_OK)
		return v;
	/* RFC 791: when "the overflow count itself overflows, the original
	 * datagram is considered to be in error". Found before anything is
	 * written, so the ICMP error quotes the header as received: for a
	 * parameter problem in a modified field the router must undo the
	 * modification (RFC 1812 4.3.2.3, 4.3.3.5). */
	if (pos.ts != 0 && h[pos.ts + 2] > h[pos.ts + 1] && (h[pos.ts + 3] >> 4) == 15)
		return bad(ptr, pos.ts + 3u);
	if (pos.rr != 0)
		record_route(h + pos.rr, hop->out_addr);
	if (pos.ts != 0)
		timestamp(h + pos.ts, hop);
	return DPR_IP4_OPT_OK;
}
