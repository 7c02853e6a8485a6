/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 options (RFC 791, RFC 1812 5.3.13): which headers are well formed,
 * where the parameter problem pointer lands when one is not, and what a
 * forwarding router writes into record route and timestamp options.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "exception/ip4_options.h"
#include "test.h"

#define IP(a, b, c, d) (((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define OPT 20  /* offset of the first option byte from the IP header */

union hdr {
	struct rte_ipv4_hdr ip;
	uint8_t b[60];
};

static const uint32_t out = IP(10, 0, 2, 1);   /* the interface the packet leaves by */
static const uint32_t other = IP(10, 0, 1, 1); /* another of the router's addresses */
static const uint32_t stranger = IP(192, 0, 2, 7);

/* A header whose options are @p opt, padded with End of Option List to a
 * multiple of 4 bytes. */
static struct rte_ipv4_hdr *
mk(union hdr *h, const uint8_t *opt, unsigned int n)
{
	unsigned int olen = RTE_ALIGN_CEIL(n, 4);

	memset(h, 0, sizeof(*h));
	h->ip.version_ihl = (uint8_t)(0x40 | (5 + olen / 4));
	h->ip.total_length = rte_cpu_to_be_16(20 + olen);
	h->ip.time_to_live = 64;
	h->ip.next_proto_id = IPPROTO_UDP;
	h->ip.src_addr = rte_cpu_to_be_32(IP(10, 0, 1, 2));
	h->ip.dst_addr = rte_cpu_to_be_32(IP(192, 0, 2, 1));
	if (n > 0)
		memcpy(h->b + OPT, opt, n);
	return &h->ip;
}

static uint32_t
at32(const union hdr *h, unsigned int off)
{
	uint32_t v;

	memcpy(&v, h->b + off, sizeof(v));
	return rte_be_to_cpu_32(v);
}

static bool
ours(uint32_t addr, const void *arg)
{
	(void)arg;
	return addr == out || addr == other;
}

static const struct dpr_ip4_opt_hop hop = {
	.out_addr = IP(10, 0, 2, 1), .ts_ms = 12345678, .is_local = ours,
};

/* Expect @p opt to be malformed at header offset @p at, and forwarding to
 * leave it untouched. */
static void
expect_bad(const char *what, const uint8_t *opt, unsigned int n, unsigned int at)
{
	union hdr h, before;
	uint8_t ptr = 0xff;
	enum dpr_ip4_opt_verdict v;

	v = dpr_ip4_options_check(mk(&h, opt, n), &ptr);
	CHECK(v == DPR_IP4_OPT_BAD && ptr == at, "%s: verdict %d pointer %u, want BAD at %u",
	      what, (int)v, (unsigned int)ptr, at);
	before = h;
	ptr = 0xff;
	v = dpr_ip4_options_forward(&h.ip, &hop, &ptr);
	CHECK(v == DPR_IP4_OPT_BAD && ptr == at && memcmp(&h, &before, sizeof(h)) == 0,
	      "%s: forwarding must fail the same way and write nothing", what);
}

static void
test_padding(void)
{
	static const uint8_t pad[] = { 1, 1, 1, 0 };
	/* Past End of Option List nothing is read, even bytes that would be
	 * a broken option. */
	static const uint8_t eol[] = { 1, 0, 7, 0xff };
	union hdr h;
	uint8_t ptr;

	CHECK_EQ(dpr_ip4_options_check(mk(&h, pad, sizeof(pad)), &ptr), DPR_IP4_OPT_OK);
	CHECK_EQ(dpr_ip4_options_check(mk(&h, eol, sizeof(eol)), &ptr), DPR_IP4_OPT_OK);
	CHECK_EQ(dpr_ip4_options_check(mk(&h, NULL, 0), &ptr), DPR_IP4_OPT_OK);
}

static void
test_record_route(void)
{
	/* Room for two addresses. */
	static const uint8_t rr[] = { 7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct dpr_ip4_opt_hop next = hop;
	union hdr h, full;
	uint8_t ptr;

	mk(&h, rr, sizeof(rr));
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK_EQ(at32(&h, OPT + 3), out);
	CHECK_EQ(h.b[OPT + 2], 8);
	CHECK_EQ(at32(&h, OPT + 7), 0);
	next.out_addr = other;
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &next, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 7) == other && h.b[OPT + 2] == 12,
	      "second hop in the second slot, pointer past the length");
	/* Full: forwarded as it is (RFC 791). */
	full = h;
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(memcmp(&h, &full, sizeof(h)) == 0, "a full record route is left alone");
}

static void
test_timestamp(void)
{
	static const uint8_t ts0[] = { 68, 12, 5, 0x00, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t ts1[] = { 68, 20, 5, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t full[] = { 68, 12, 13, 0x20, 0, 0, 0, 1, 0, 0, 0, 2 };
	/* A full timestamp whose overflow count is spent, after a record
	 * route with room. */
	static const uint8_t spent[] = { 7, 7, 4, 0, 0, 0, 0, 1,
					 68, 8, 9, 0xf0, 0, 0, 0, 1 };
	/* One 8-byte slot and 4 bytes more; one 4-byte slot and 1 more. */
	static const uint8_t ts_partial[] = { 68, 16, 5, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0 };
	static const uint8_t rr_partial[] = { 7, 8, 4, 0, 0, 0, 0, 0 };
	union hdr h, before;
	uint8_t ptr = 0;

	mk(&h, ts0, sizeof(ts0));
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 4) == hop.ts_ms && h.b[OPT + 2] == 9,
	      "flag 0: timestamp in the first slot, pointer + 4");

	mk(&h, ts1, sizeof(ts1));
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 4) == out && at32(&h, OPT + 8) == hop.ts_ms &&
	      h.b[OPT + 2] == 13, "flag 1: address then timestamp, pointer + 8");

	mk(&h, full, sizeof(full));
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(h.b[OPT + 3] == 0x30 && h.b[OPT + 2] == 13 && at32(&h, OPT + 8) == 2,
	      "full: overflow 2 -> 3, flags and stamps kept");

	/* RFC 791: a length that leaves a partial last slot is an error only
	 * when the pointer gets there: this hop stamps the whole slot, the
	 * next finds "some room but not enough room" and answers it. Record
	 * route alike. */
	mk(&h, ts_partial, sizeof(ts_partial));
	CHECK_EQ(dpr_ip4_options_check(&h.ip, &ptr), DPR_IP4_OPT_OK);
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 4) == out && at32(&h, OPT + 8) == hop.ts_ms &&
	      h.b[OPT + 2] == 13, "partial last slot: the whole first one stamped");
	before = h;
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_BAD);
	CHECK_EQ(ptr, OPT + 2);
	CHECK(memcmp(&h, &before, sizeof(h)) == 0, "partial slot reached: nothing written");
	mk(&h, rr_partial, sizeof(rr_partial));
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 3) == out && h.b[OPT + 2] == 8, "RR: the whole slot recorded");
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_BAD);
	CHECK_EQ(ptr, OPT + 2);

	/* Overflow at 15 cannot count one more: parameter problem at the
	 * oflw/flg byte, and the record route before it not written. */
	mk(&h, spent, sizeof(spent));
	before = h;
	CHECK_EQ(dpr_ip4_options_check(&h.ip, &ptr), DPR_IP4_OPT_OK);
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_BAD);
	CHECK_EQ(ptr, OPT + 11);
	CHECK(memcmp(&h, &before, sizeof(h)) == 0, "nothing written before the error");
}

static void
test_prespecified(void)
{
	uint8_t ts3[] = { 68, 20, 5, 0x03, 10, 0, 1, 1, 0, 0, 0, 0,
			  192, 0, 2, 7, 0, 0, 0, 0 };
	union hdr h, before;
	struct dpr_ip4_opt_hop only_out = hop;
	uint8_t ptr;

	/* The next address is one of ours, though not the outgoing one
	 * (RFC 1812 5.3.13.6). */
	mk(&h, ts3, sizeof(ts3));
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 4) == other && at32(&h, OPT + 8) == hop.ts_ms &&
	      h.b[OPT + 2] == 13, "ours: timestamp after the address, pointer + 8");

	/* The next one now names a stranger: skipped. */
	before = h;
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &hop, &ptr), DPR_IP4_OPT_OK);
	CHECK(memcmp(&h, &before, sizeof(h)) == 0, "another router's turn: untouched");

	/* Without a predicate only the outgoing address counts as ours. */
	only_out.is_local = NULL;
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &only_out, &ptr), DPR_IP4_OPT_OK);
	CHECK(memcmp(&h, &before, sizeof(h)) == 0, "no predicate, not out_addr: untouched");
	only_out.out_addr = stranger;
	CHECK_EQ(dpr_ip4_options_forward(&h.ip, &only_out, &ptr), DPR_IP4_OPT_OK);
	CHECK(at32(&h, OPT + 16) == hop.ts_ms && h.b[OPT + 2] == 21,
	      "the stranger stamps its own slot");
}

static void
test_malformed(void)
{
	static const uint8_t len0[] = { 7, 0, 4, 0 };
	/* Security: no rule of its own to catch the length. */
	static const uint8_t len1[] = { 130, 1, 0, 0 };
	static const uint8_t past_end[] = { 1, 7, 11, 4, 0, 0, 0, 0 };
	static const uint8_t no_len[] = { 1, 1, 1, 7 };
	static const uint8_t rr_cut[] = { 7, 8, 8, 0, 0, 0, 0, 0 };
	/* Pointer 0 sits on a slot boundary: only the minimum rejects it. */
	static const uint8_t rr_ptr[] = { 7, 7, 0, 0, 0, 0, 0 };
	static const uint8_t rr_half[] = { 7, 11, 6, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t ts_ptr[] = { 68, 8, 1, 0, 0, 0, 0, 0 };
	static const uint8_t ts_flag[] = { 68, 12, 5, 0x02, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t ts_cut[] = { 68, 16, 13, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
					  0, 0, 0, 0 };
	static const uint8_t rr_twice[] = { 7, 7, 4, 0, 0, 0, 0, 1, 7, 7, 4, 0, 0, 0, 0 };
	static const uint8_t sid_len[] = { 136, 3, 0, 1 };

	expect_bad("length 0", len0, sizeof(len0), OPT + 1);
	expect_bad("length 1", len1, sizeof(len1), OPT + 1);
	expect_bad("length past the header", past_end, sizeof(past_end), OPT + 2);
	expect_bad("type byte last, no length", no_len, sizeof(no_len), OPT + 3);
	expect_bad("RR pointer on a slot the length cuts short", rr_cut, sizeof(rr_cut), OPT + 2);
	expect_bad("RR pointer < 4", rr_ptr, sizeof(rr_ptr), OPT + 2);
	expect_bad("RR pointer between slots", rr_half, sizeof(rr_half), OPT + 2);
	expect_bad("TS pointer < 5", ts_ptr, sizeof(ts_ptr), OPT + 2);
	expect_bad("TS flag 2", ts_flag, sizeof(ts_flag), OPT + 3);
	expect_bad("TS flag 1, pointer on a slot the length cuts short", ts_cut, sizeof(ts_cut),
		   OPT + 2);
	expect_bad("RR twice", rr_twice, sizeof(rr_twice), OPT + 8);
	expect_bad("stream id length 3", sid_len, sizeof(sid_len), OPT + 1);
}

static void
test_source_route(void)
{
	static const uint8_t lsrr[] = { 131, 7, 4, 192, 0, 2, 9 };
	static const uint8_t ssrr[] = { 1, 137, 7, 4, 192, 0, 2, 9 };
	/* Well-formed LSRR, then a broken timestamp: the error wins. */
	static const uint8_t lsrr_bad[] = { 131, 7, 4, 192, 0, 2, 9, 68, 8, 3, 0, 0, 0, 0, 0 };
	static const uint8_t both[] = { 131, 7, 4, 192, 0, 2, 9, 137, 7, 4, 192, 0, 2, 9 };
	/* Record route with room next to it: not written for a packet dropped. */
	static const uint8_t with_rr[] = { 7, 7, 4, 0, 0, 0, 0, 131, 7, 4, 192, 0, 2, 9 };
	union hdr h, before;
	uint8_t ptr;

	CHECK_EQ(dpr_ip4_options_check(mk(&h, lsrr, sizeof(lsrr)), &ptr),
		 DPR_IP4_OPT_SOURCE_ROUTE);
	CHECK_EQ(dpr_ip4_options_check(mk(&h, ssrr, sizeof(ssrr)), &ptr),
		 DPR_IP4_OPT_SOURCE_ROUTE);
	expect_bad("LSRR then a bad timestamp", lsrr_bad, sizeof(lsrr_bad), OPT + 9);
	expect_bad("LSRR and SSRR", both, sizeof(both), OPT + 7);
	mk(&h, with_rr, sizeof(with_rr));
	before = h;
	CHECK(dpr_ip4_options_forward(&h.ip, &hop, &ptr) == DPR_IP4_OPT_SOURCE_ROUTE &&
	      memcmp(&h, &before, sizeof(h)) == 0, "forward: source route, nothing recorded");
}

static void
test_passed(void)
{
	/* Router alert, security, and option 158 (an RFC 4727 experiment
	 * dpr does not know): length-checked and forwarded unchanged. */
	static const uint8_t opts[] = { 148, 4, 0, 0, 130, 3, 0xab, 158, 5, 1, 2, 3 };
	union hdr h, before;
	uint8_t ptr;

	mk(&h, opts, sizeof(opts));
	before = h;
	CHECK_EQ(dpr_ip4_options_check(&h.ip, &ptr), DPR_IP4_OPT_OK);
	CHECK(dpr_ip4_options_forward(&h.ip, &hop, &ptr) == DPR_IP4_OPT_OK &&
	      memcmp(&h, &before, sizeof(h)) == 0, "unknown options pass unchanged");
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0)
		return 1;
	test_padding();
	test_record_route();
	test_timestamp();
	test_prespecified();
	test_malformed();
	test_source_route();
	test_passed();
	return test_done("test_options");
}
