/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACLs: rules parsed and refused as documented, packets classified by
 * rte_acl as a first-match list says (ports, ICMP, TCP flags, DSCP,
 * fragments, IPv6 extension headers, RFC 7112), the worker's input stage
 * (drops counted, rejects on the exception ring), and the acl.* methods
 * (an acl.set refused keeps the old list, hits summed).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cpuflags.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_vect.h>

#include "acl/acl.h"
#include "acl/acl_dp.h"
#include "api/acl_methods.h"
#include "copp/copp.h"
#include "rig.h"
#include "test.h"

static struct rte_mempool *pool;

/* --- frames ----------------------------------------------------------------------- */

static struct rte_mbuf *
frame(uint16_t type, const void *l3, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*eth) + len));
	memset(eth, 0, sizeof(*eth));
	eth->ether_type = rte_cpu_to_be_16(type);
	memcpy(eth + 1, l3, len);
	return m;
}

/* IPv4 from @p src to @p dst, protocol @p proto, fragment field @p frag
 * (host order), @p l4len bytes of @p l4 after the header. */
static struct rte_mbuf *
ip4(const char *src, const char *dst, uint8_t proto, uint8_t tos, uint16_t frag,
    const uint8_t *l4, uint16_t l4len)
{
	uint8_t b[256] = { 0 };
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)b;
	struct dpr_ip a;

	ip->version_ihl = 0x45;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4len));
	ip->fragment_offset = rte_cpu_to_be_16(frag);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	dpr_ip_parse(src, &a);
	ip->src_addr = rte_cpu_to_be_32(a.ip4);
	dpr_ip_parse(dst, &a);
	ip->dst_addr = rte_cpu_to_be_32(a.ip4);
	memcpy(b + 20, l4, l4len);
	return frame(RTE_ETHER_TYPE_IPV4, b, (uint16_t)(20 + l4len));
}

/* IPv6 with @p ext (extension headers, their next-header fields set by the
 * caller) and then @p l4; @p first: the first header's protocol. */
static struct rte_mbuf *
ip6(const char *src, const char *dst, uint8_t first, const uint8_t *ext, uint16_t extlen,
    const uint8_t *l4, uint16_t l4len)
{
	uint8_t b[512] = { 0 };
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)b;
	struct dpr_ip a;

	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(extlen + l4len));
	ip->proto = first;
	ip->hop_limits = 64;
	dpr_ip_parse(src, &a);
	memcpy(ip->src_addr, a.ip6, 16);
	dpr_ip_parse(dst, &a);
	memcpy(ip->dst_addr, a.ip6, 16);
	if (extlen > 0) /* ext may be NULL then: memcpy's source must not be */
		memcpy(b + 40, ext, extlen);
	memcpy(b + 40 + extlen, l4, l4len);
	return frame(RTE_ETHER_TYPE_IPV6, b, (uint16_t)(40 + extlen + l4len));
}

/* A TCP header (20 bytes) with ports and flags. */
static const uint8_t *
tcp(uint16_t sport, uint16_t dport, uint8_t flags)
{
	static uint8_t h[20];

	memset(h, 0, sizeof(h));
	h[0] = (uint8_t)(sport >> 8);
	h[1] = (uint8_t)sport;
	h[2] = (uint8_t)(dport >> 8);
	h[3] = (uint8_t)dport;
	h[12] = 0x50;
	h[13] = flags;
	return h;
}

#define SYN 0x02
#define ACK 0x10

/* --- parsing ---------------------------------------------------------------------- */

static int
parse(const char *text, struct dpr_acl_list *l, char *err, size_t len)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	int ret;

	if (j == NULL) {
		snprintf(err, len, "bad JSON in the test: %s", je.text);
		return -1;
	}
	ret = dpr_acl_list_parse(j, "t", NULL, l, err, len);
	json_decref(j);
	return ret;
}

/* acl.get's default_hits of ACL "edge" in @p db. */
static json_int_t
default_hits(struct dpr_acl_db *db)
{
	json_t *g = dpr_acl_get_json(db, "edge", NULL, 0);
	json_int_t n = json_integer_value(json_object_get(g, "default_hits"));

	json_decref(g);
	return n;
}

/* The metrics' default hits of the binding on @p iface (p0, p1), @p dir;
 * -1: no such series. */
static json_int_t
binding_hits(struct dpr_acl_db *db, const char *iface, const char *dir)
{
	static const char *const names[] = { "p0", "p1" };
	json_t *a = dpr_acl_hits_json(db, names, 2), *e;
	json_int_t n = -1;
	size_t k;

	json_array_foreach(a, k, e)
		if (strcmp(json_string_value(json_object_get(e, "interface")), iface) == 0 &&
		    strcmp(json_string_value(json_object_get(e, "direction")), dir) == 0 &&
		    strcmp(json_string_value(json_object_get(e, "rule")), "default") == 0)
			n = json_integer_value(json_object_get(e, "hits"));
	json_decref(a);
	return n;
}

static void
test_parse(void)
{
	static const struct { const char *text; const char *msg; } bad[] = {
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"dport\":22}]}",
		  "t.rules[0]: unknown field \"dport\"" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\"},{\"action\":\"deny\",\"proto\":\"icmp\",\"dst_port\":\"1-5\"}]}",
		  "t.rules[1]: dst_port: ports need proto tcp, udp or sctp (ICMP has none" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"src\":\"10.0.0.0/8\",\"dst\":\"2001:db8::/32\"}]}",
		  "t.rules[0]: dst 2001:db8::/32: prefix of the wrong family" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"family\":\"ipv6\",\"proto\":\"icmp\"}]}",
		  "proto icmp is not a protocol of ipv6" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"drop\"}]}", "t.rules[0]: action" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"proto\":\"tcp\",\"dst_port\":\"9-3\"}]}",
		  "dst_port: expected a port" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"proto\":\"tcp\",\"tcp_flags\":\"syn,!fin,bogus\"}]}",
		  "tcp_flags: expected" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"icmp_type\":8}]}",
		  "icmp_type: needs proto icmp" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"proto\":\"udp\",\"dst_port\":53,\"fragment\":\"non-first\"}]}",
		  "a non-first fragment carries none" },
		{ "{\"name\":\"a\",\"rules\":[{\"action\":\"deny\",\"src\":\"10.0.0.1/8\"}]}", "t.rules[0]: src" },
		{ "{\"name\":\"a b\"}", "name \"a b\"" },
		{ "{\"name\":\"a\",\"default\":\"allow\"}", "default" },
		{ "{\"name\":\"a\",\"rule\":[]}", "unknown key \"rule\"" },
	};
	struct dpr_acl_list l;
	char err[512], *big;
	unsigned int i;
	size_t n;
	json_t *j;

	for (i = 0; i < RTE_DIM(bad); i++) {
		err[0] = '\0';
		CHECK(parse(bad[i].text, &l, err, sizeof(err)) < 0, "accepted %s", bad[i].text);
		CHECK(strstr(err, bad[i].msg) != NULL, "%s: \"%s\" lacks \"%s\"", bad[i].text, err,
		      bad[i].msg);
	}

	/* More rules than the limit: refused, naming the limit. */
	n = (DPR_ACL_RULES_MAX + 1) * 20 + 64;
	big = malloc(n);
	{
		char *p = big + sprintf(big, "{\"name\":\"big\",\"rules\":[");

		for (i = 0; i <= DPR_ACL_RULES_MAX; i++)
			p += sprintf(p, "%s{\"action\":\"deny\"}", i ? "," : "");
		strcpy(p, "]}");
	}
	CHECK(parse(big, &l, err, sizeof(err)) < 0 && strstr(err, "at most 16384") != NULL,
	      "too many rules: %s", err);
	free(big);

	/* Round trip: what acl.get shows is what was given. */
	CHECK(parse("{\"name\":\"ok\",\"default\":\"deny\",\"rules\":["
		    "{\"action\":\"permit\",\"proto\":\"tcp\",\"src\":\"10.0.0.0/8\",\"dst_port\":\"1000-2000\",\"tcp_flags\":\"syn,!ack\"},"
		    "{\"action\":\"reject\",\"proto\":\"icmpv6\",\"icmp_type\":128,\"icmp_code\":0},"
		    "{\"action\":\"deny\",\"proto\":99,\"dscp\":46,\"fragment\":\"non-first\"}]}",
		    &l, err, sizeof(err)) == 0, "good list refused: %s", err);
	CHECK_EQ(l.n_rules, 3);
	CHECK_EQ(l.dflt, DPR_ACL_DENY);
	if (l.n_rules == 3) {
		char *s;

		j = dpr_acl_rule_json(&l.rules[0]);
		s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
		CHECK(strcmp(s, "{\"action\":\"permit\",\"dst_port\":\"1000-2000\",\"family\":\"ipv4\",\"proto\":\"tcp\",\"src\":\"10.0.0.0/8\",\"tcp_flags\":\"syn,!ack\"}") == 0,
		      "rule 0 as JSON: %s", s);
		free(s);
		json_decref(j);
		CHECK_EQ(l.rules[1].family, DPR_AF_IP6);
		CHECK_EQ(l.rules[2].match & DPR_ACL_M_NONFIRST, DPR_ACL_M_NONFIRST);
	}
	dpr_acl_list_clear(&l);
}

/* --- classification --------------------------------------------------------------- */

static const char *const edge = "{\"name\":\"edge\",\"default\":\"permit\",\"rules\":["
	/* 0 */ "{\"action\":\"permit\",\"proto\":\"tcp\",\"src\":\"10.1.0.0/16\",\"dst_port\":22},"
	/* 1 */ "{\"action\":\"deny\",\"proto\":\"tcp\",\"dst_port\":22},"
	/* 2 */ "{\"action\":\"reject\",\"proto\":\"tcp\",\"dst_port\":\"8000-8099\"},"
	/* 3 */ "{\"action\":\"deny\",\"proto\":\"tcp\",\"tcp_flags\":\"syn,!ack\",\"dst\":\"10.9.0.0/16\"},"
	/* 4 */ "{\"action\":\"deny\",\"proto\":\"icmp\",\"icmp_type\":8},"
	/* 5 */ "{\"action\":\"deny\",\"dscp\":46},"
	/* 6 */ "{\"action\":\"deny\",\"proto\":\"udp\",\"fragment\":\"non-first\"},"
	/* 7 */ "{\"action\":\"deny\",\"proto\":\"tcp\",\"dst\":\"2001:db8:9::/48\",\"dst_port\":80},"
	/* 8 */ "{\"action\":\"deny\",\"proto\":\"icmpv6\",\"icmp_type\":128},"
	/* 9 */ "{\"action\":\"deny\",\"src\":\"2001:db8:bad::/48\"}"
	"]}";

static void
test_classify(void)
{
	static const uint8_t echo[8] = { 8, 0 }, reply[8] = { 0 }, udp[8] = { 0, 53, 0, 53 };
	static const uint8_t udp_syn[26] = { 0, 53, 0, 53, 0, 26, [13] = 0x02 };
	static const uint8_t echo6[8] = { 128, 0 };
	struct {
		struct rte_mbuf *m;
		uint8_t want;
		const char *what;
	} c[48];
	struct rte_mbuf *pkts[48];
	uint8_t act[48];
	uint8_t frag_first[8] = { IPPROTO_TCP, 0, 0, 0 }, frag_later[8] = { IPPROTO_TCP, 0, 0, 8 << 3 };
	uint8_t chain[9 * 8], l4big[20];
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	const struct dpr_acl_dp *dp;
	struct dpr_acl_list l;
	char err[512];
	unsigned int n = 0, i;

	CHECK(db != NULL, "db");
	CHECK(parse(edge, &l, err, sizeof(err)) == 0, "edge: %s", err);
	CHECK(dpr_acl_set(db, &l, err, sizeof(err)) == 0, "set: %s", err);
	CHECK(dpr_acl_bind(db, "edge", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "bind: %s", err);
	dp = dpr_acl_db_binds(db)->in[0];
	CHECK(dp != NULL, "bound");
	if (dp == NULL)
		return;

#define ADD(mb, w, s) do { c[n].m = (mb); c[n].want = (w); c[n].what = (s); n++; } while (0)
	ADD(ip4("10.1.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20), DPR_ACL_PERMIT,
	    "ssh from the management net (rule 0 before rule 1)");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20), DPR_ACL_DENY,
	    "ssh from elsewhere");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8050, ACK), 20), DPR_ACL_REJECT,
	    "port range");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8100, ACK), 20), DPR_ACL_PERMIT,
	    "past the range");
	ADD(ip4("10.2.2.3", "10.9.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 443, SYN), 20), DPR_ACL_DENY,
	    "syn,!ack: a SYN");
	ADD(ip4("10.2.2.3", "10.9.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 443, SYN | ACK), 20),
	    DPR_ACL_PERMIT, "syn,!ack: a SYN-ACK");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_ICMP, 0, 0, echo, 8), DPR_ACL_DENY, "echo request");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_ICMP, 0, 0, reply, 8), DPR_ACL_PERMIT, "echo reply");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 46 << 2, 0, udp, 8), DPR_ACL_DENY, "dscp 46");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 0, 0, udp, 8), DPR_ACL_PERMIT, "plain udp");
	/* 60-byte frames: classified in place (dpr_acl_ip4_inplace()). */
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 46 << 2 | 3, 0, udp_syn, 26), DPR_ACL_DENY,
	    "dscp 46 (ECN set), in place");
	ADD(ip4("10.2.2.3", "10.9.0.1", IPPROTO_UDP, 45 << 2, 0, udp_syn, 26), DPR_ACL_PERMIT,
	    "UDP in place, a SYN's bits where TCP has its flags, dscp 45");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 0, 0, udp_syn, 26), DPR_ACL_PERMIT,
	    "plain udp, in place");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 0, 100, udp, 8), DPR_ACL_DENY,
	    "non-first UDP fragment");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 0, RTE_IPV4_HDR_MF_FLAG, udp, 8), DPR_ACL_PERMIT,
	    "first UDP fragment");
	/* A non-first fragment's payload is no TCP header: rule 1 (port 22)
	 * must not match it, whatever its bytes say. */
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 100, tcp(5555, 22, SYN), 20), DPR_ACL_PERMIT,
	    "non-first TCP fragment whose bytes read as port 22");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, RTE_IPV4_HDR_MF_FLAG, tcp(5555, 22, SYN), 12),
	    DPR_ACL_DENY, "first TCP fragment too short for the header (RFC 1858)");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 1, tcp(5555, 22, SYN), 20), DPR_ACL_DENY,
	    "TCP fragment at offset 8 (RFC 1858 3.4)");

	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_TCP, NULL, 0, tcp(1, 80, SYN), 20),
	    DPR_ACL_DENY, "IPv6 TCP 80");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_TCP, NULL, 0, tcp(1, 81, SYN), 20),
	    DPR_ACL_PERMIT, "IPv6 TCP 81");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_HOPOPTS, (uint8_t[16]){ IPPROTO_DSTOPTS, 0, 0, 0, 0, 0, 0, 0,
		IPPROTO_TCP, 0 }, 16, tcp(1, 80, SYN), 20),
	    DPR_ACL_DENY, "IPv6 TCP 80 after hop-by-hop and destination options");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_FRAGMENT, frag_first, 8, tcp(1, 80, SYN), 20),
	    DPR_ACL_DENY, "IPv6 first fragment, TCP 80");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_FRAGMENT, frag_first, 8, tcp(1, 80, SYN), 10),
	    DPR_ACL_DENY, "IPv6 first fragment without the whole TCP header (RFC 7112)");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_FRAGMENT, frag_later, 8, tcp(1, 80, SYN), 20),
	    DPR_ACL_PERMIT, "IPv6 non-first fragment: no ports");
	/* Non-first fragments have contexts of their own: the rules without
	 * L4 fields are there too, in their order. */
	ADD(ip6("2001:db8:bad::1", "2001:db8:9::1", IPPROTO_FRAGMENT, frag_later, 8, tcp(1, 80, SYN), 20),
	    DPR_ACL_DENY, "IPv6 non-first fragment from a denied source prefix");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 46 << 2, 100, tcp(5555, 22, SYN), 20),
	    DPR_ACL_DENY, "non-first TCP fragment, dscp 46");
	memset(chain, 0, sizeof(chain));
	for (i = 0; i < 9; i++)
		chain[8 * i] = i < 8 ? IPPROTO_DSTOPTS : IPPROTO_TCP;
	memset(l4big, 0, sizeof(l4big));
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_DSTOPTS, chain, sizeof(chain), l4big, 20),
	    DPR_ACL_DENY, "IPv6 chain of 9 extension headers: past the bound");
	/* 8 of them, the bound itself: walked to the TCP header. */
	chain[8 * 7] = IPPROTO_TCP;
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_DSTOPTS, chain, 8 * 8, tcp(1, 81, SYN), 20),
	    DPR_ACL_PERMIT, "IPv6 TCP 81 behind 8 extension headers: within the bound");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_DSTOPTS, chain, 8 * 8, tcp(1, 80, SYN), 20),
	    DPR_ACL_DENY, "IPv6 TCP 80 behind 8 extension headers");
	/* Destination options claiming 16 bytes, 8 there, then GRE: the
	 * chain does not fit the packet, whatever protocol it names. */
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_DSTOPTS, (uint8_t[8]){ 47, 1 }, 8, echo6, 0),
	    DPR_ACL_DENY, "IPv6 extension header past the packet, then GRE");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_DSTOPTS, (uint8_t[8]){ 47, 0 }, 8, echo6, 0),
	    DPR_ACL_PERMIT, "IPv6 destination options, then GRE");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_ICMPV6, NULL, 0, echo6, 8), DPR_ACL_DENY,
	    "ICMPv6 echo request");
	ADD(ip6("2001:db8:bad::1", "2001:db8:9::1", IPPROTO_UDP, NULL, 0, udp, 8), DPR_ACL_DENY,
	    "IPv6 source prefix");
	ADD(ip6("2001:db8:bae::1", "2001:db8:9::1", IPPROTO_UDP, NULL, 0, udp, 8), DPR_ACL_PERMIT,
	    "IPv6 source outside the prefix");
	ADD(frame(RTE_ETHER_TYPE_ARP, l4big, 20), DPR_ACL_PERMIT, "ARP: not filtered");
#undef ADD

	for (i = 0; i < n; i++)
		pkts[i] = c[i].m;
	dpr_acl_classify_bulk(dp, 0, pkts, n, act);
	for (i = 0; i < n; i++)
		CHECK(act[i] == c[i].want, "%s: %s, expected %s", c[i].what,
		      dpr_acl_action_name(act[i]), dpr_acl_action_name(c[i].want));
	CHECK_EQ(dp->hits[0 + 1], 1);  /* rule 0 */
	CHECK_EQ(dp->hits[1 + 1], 1);  /* rule 1 */
	{
		/* The default's hits, its rule's in the contexts among them:
		 * the 13 permitted above that no rule matched. */
		json_t *g = dpr_acl_get_json(db, "edge", NULL, 0);

		CHECK(g != NULL, "acl.get");
		CHECK_EQ(json_integer_value(json_object_get(g, "default_hits")), 13);
		json_decref(g);
	}
	rte_pktmbuf_free_bulk(pkts, n);

	/* A burst all in place that no rule matches: counted at once. */
	for (i = 0; i < 3; i++)
		pkts[i] = ip4("10.2.2.3", "10.0.0.1", i == 1 ? IPPROTO_TCP : IPPROTO_UDP, 0, 0,
			      i == 1 ? tcp(5555, 443, ACK) : udp_syn, i == 1 ? 20 : 26);
	memset(act, 0xff, sizeof(act));
	CHECK_EQ(dpr_acl_classify_bulk(dp, 0, pkts, 3, act), 0);
	CHECK(act[0] == DPR_ACL_PERMIT && act[1] == DPR_ACL_PERMIT && act[2] == DPR_ACL_PERMIT,
	      "all permitted");
	CHECK_EQ(dp->hits[0] + dp->hits[DPR_ACL_DEFAULT_RULE(dp->n_rules)], 13 + 3);
	rte_pktmbuf_free_bulk(pkts, 3);

	/* Replace: the bound slot now holds the new list, hits from 0. */
	CHECK(parse("{\"name\":\"edge\",\"default\":\"deny\",\"rules\":[]}", &l, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(dpr_acl_set(db, &l, err, sizeof(err)) == 0, "replace: %s", err);
	CHECK(dpr_acl_db_binds(db)->in[0] != dp, "the binding follows the new list");
	dp = dpr_acl_db_binds(db)->in[0];
	pkts[0] = ip4("10.1.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20);
	dpr_acl_classify_bulk(dp, 0, pkts, 1, act);
	CHECK_EQ(act[0], DPR_ACL_DENY);
	CHECK_EQ(dp->hits[0], 1);
	rte_pktmbuf_free(pkts[0]);

	/* Per binding: the list on p0 in and on p1 out counts apart (metrics
	 * label each); acl.get sums them, those of bindings gone too. */
	CHECK(dpr_acl_bind(db, "edge", 1, DPR_ACL_OUT, err, sizeof(err)) == 0, "bind: %s", err);
	for (i = 0; i < 2; i++)
		pkts[i] = ip4("10.1.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20);
	dpr_acl_classify_bulk(dpr_acl_db_binds(db)->out[1], 0, pkts, 2, act);
	rte_pktmbuf_free_bulk(pkts, 2);
	CHECK_EQ(binding_hits(db, "p0", "in"), 1);
	CHECK_EQ(binding_hits(db, "p1", "out"), 2);
	CHECK_EQ(default_hits(db), 3);
	dpr_acl_bind(db, NULL, 1, DPR_ACL_OUT, err, sizeof(err));
	CHECK_EQ(binding_hits(db, "p1", "out"), -1);
	CHECK_EQ(default_hits(db), 3);
	/* Bound there again: its count goes on. */
	CHECK(dpr_acl_bind(db, "edge", 1, DPR_ACL_OUT, err, sizeof(err)) == 0, "bind: %s", err);
	CHECK_EQ(binding_hits(db, "p1", "out"), 2);
	/* The interface deleted (vlan.del): its hits stay the list's; an
	 * interface made later in its slot counts from 0. */
	dpr_acl_iface_gone(db, 1);
	dpr_acl_iface_closed(db, 1);
	CHECK_EQ(default_hits(db), 3);
	CHECK(dpr_acl_bind(db, "edge", 1, DPR_ACL_OUT, err, sizeof(err)) == 0, "bind: %s", err);
	CHECK_EQ(binding_hits(db, "p1", "out"), 0);
	dpr_acl_bind(db, NULL, 1, DPR_ACL_OUT, err, sizeof(err));
	CHECK(dpr_acl_del(db, "edge", err, sizeof(err)) == -EBUSY, "deleted while bound");
	dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err));
	CHECK(dpr_acl_db_binds(db)->in[0] == NULL, "unbound");
	CHECK(dpr_acl_del(db, "edge", err, sizeof(err)) == 0, "del: %s", err);
	dpr_acl_db_free(db);
}

/* A worker in a burst that read an ACL's binding before it went. */
struct slow_reader {
	struct rte_rcu_qsbr *qsbr;
	volatile int reported;
};

static void *
slow_reader_main(void *arg)
{
	struct slow_reader *rd = arg;

	usleep(20 * 1000);
	rd->reported = 1;
	rte_rcu_qsbr_quiescent(rd->qsbr, 0);
	return NULL;
}

/*
 * acl.unbind then acl.del (one client's two requests, read at once): the
 * list is freed only after every worker reported quiescence, as one may
 * still classify with it (it read the binding before it went).
 */
static void
test_del_waits(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_rcu_qsbr *q = rte_zmalloc(NULL, sz, RTE_CACHE_LINE_SIZE);
	struct slow_reader rd = { .qsbr = q };
	struct dpr_acl_db *db;
	struct dpr_acl_list l;
	char err[256];
	pthread_t t;

	CHECK(q != NULL && rte_rcu_qsbr_init(q, 1) == 0, "qsbr");
	db = dpr_acl_db_create(q, 1, 0);
	rte_rcu_qsbr_thread_register(q, 0);
	rte_rcu_qsbr_thread_online(q, 0);
	CHECK(parse("{\"name\":\"edge\",\"rules\":[{\"action\":\"deny\",\"proto\":\"tcp\"}]}",
		    &l, err, sizeof(err)) == 0, "%s", err);
	CHECK(dpr_acl_set(db, &l, err, sizeof(err)) == 0, "set: %s", err);
	CHECK(dpr_acl_bind(db, "edge", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "bind: %s", err);
	CHECK(dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err)) == 0, "unbind: %s", err);
	CHECK(pthread_create(&t, NULL, slow_reader_main, &rd) == 0, "reader thread");
	CHECK(dpr_acl_del(db, "edge", err, sizeof(err)) == 0, "del: %s", err);
	CHECK(rd.reported == 1, "acl.del freed the list before the worker's report");
	pthread_join(t, NULL);
	rte_rcu_qsbr_thread_offline(q, 0);
	rte_rcu_qsbr_thread_unregister(q, 0);
	dpr_acl_db_free(db);
	rte_free(q);
}

/*
 * A rule naming a protocol and no L4 field ("deny tcp": dp->l4 false)
 * against IPv6 TCP whose upper-layer header the walk does not reach: behind
 * 9 extension headers (past DPR_ACL_EH_MAX), or in a later fragment (a
 * first fragment whose chain is cut, RFC 7112). Its protocol is unknown:
 * both are denied, not classified as protocol 60 or 44 and permitted.
 * A rule naming neither lets the long chain through on its addresses.
 */
static void
test_proto_no_upper_layer(void)
{
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct rte_mbuf *pkts[3];
	uint8_t act[3], chain[9 * 8], ff[16] = { IPPROTO_DSTOPTS, 0, 0, 1 };
	struct dpr_acl_list l;
	char err[256];
	unsigned int i;

	CHECK(parse("{\"name\":\"t\",\"default\":\"permit\",\"rules\":[{\"action\":\"deny\",\"proto\":\"tcp\"}]}",
		    &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "t", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "%s", err);
	memset(chain, 0, sizeof(chain));
	for (i = 0; i < 9; i++)
		chain[8 * i] = i < 8 ? IPPROTO_DSTOPTS : IPPROTO_TCP;
	pkts[0] = ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_TCP, NULL, 0, tcp(1, 80, SYN), 20);
	pkts[1] = ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_DSTOPTS, chain, sizeof(chain),
		      tcp(1, 80, SYN), 20);
	/* A fragment header (offset 0, more fragments), then destination
	 * options claiming 16 bytes with 8 present. */
	ff[8] = IPPROTO_TCP;
	ff[9] = 1;
	pkts[2] = ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_FRAGMENT, ff, 16, chain, 0);
	dpr_acl_classify_bulk(dpr_acl_db_binds(db)->in[0], 0, pkts, 3, act);
	CHECK(act[0] == DPR_ACL_DENY, "plain TCP denied");
	CHECK(act[1] == DPR_ACL_DENY, "TCP behind 9 extension headers denied: %s",
	      dpr_acl_action_name(act[1]));
	CHECK(act[2] == DPR_ACL_DENY, "a first fragment without the TCP header denied: %s",
	      dpr_acl_action_name(act[2]));
	CHECK(parse("{\"name\":\"t\",\"default\":\"permit\",\"rules\":[{\"action\":\"deny\",\"dst\":\"2001:db8:7::/48\"}]}",
		    &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0, "%s", err);
	dpr_acl_classify_bulk(dpr_acl_db_binds(db)->in[0], 0, &pkts[1], 1, act);
	CHECK(act[0] == DPR_ACL_PERMIT, "with no protocol rule, the long chain goes on its addresses");
	rte_pktmbuf_free_bulk(pkts, 3);
	dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err));
	dpr_acl_db_free(db);
}

/*
 * NDP is excepted as ARP is (docs/security.md): an ACL denying everything
 * leaves the router and the link's hosts their neighbour discovery. Only
 * what a receiver of NDP takes (RFC 4861: hop limit 255, code 0, types
 * 133-137), so never a forwarded packet, nor other ICMPv6.
 */
static struct rte_mbuf *
icmp6_hl(uint8_t type, uint8_t code, uint8_t hop_limit, bool frag)
{
	static const uint8_t ff[8] = { IPPROTO_ICMPV6, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t body[24] = { type, code };
	struct rte_mbuf *m = ip6("fe80::2", "ff02::1:ff00:1", frag ? IPPROTO_FRAGMENT : IPPROTO_ICMPV6,
				 ff, frag ? 8 : 0, body, sizeof(body));

	rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN)->hop_limits = hop_limit;
	return m;
}

static void
test_ndp(void)
{
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct { struct rte_mbuf *m; uint8_t want; const char *what; } c[] = {
		{ icmp6_hl(135, 0, 255, false), DPR_ACL_PERMIT, "neighbour solicitation" },
		{ icmp6_hl(136, 0, 255, false), DPR_ACL_PERMIT, "neighbour advertisement" },
		{ icmp6_hl(133, 0, 255, false), DPR_ACL_PERMIT, "router solicitation" },
		{ icmp6_hl(134, 0, 255, false), DPR_ACL_PERMIT, "router advertisement" },
		{ icmp6_hl(137, 0, 255, false), DPR_ACL_PERMIT, "redirect" },
		{ icmp6_hl(135, 0, 254, false), DPR_ACL_DENY, "a solicitation's type, forwarded" },
		{ icmp6_hl(135, 1, 255, false), DPR_ACL_DENY, "type 135 code 1: no NDP" },
		{ icmp6_hl(135, 0, 255, true), DPR_ACL_DENY, "type 135 in a fragment (RFC 6980)" },
		{ icmp6_hl(128, 0, 255, false), DPR_ACL_DENY, "echo request" },
		{ icmp6_hl(138, 0, 255, false), DPR_ACL_DENY, "router renumbering" },
	};
	struct rte_mbuf *pkts[RTE_DIM(c)];
	uint8_t act[RTE_DIM(c)];
	struct dpr_acl_list l;
	char err[256];
	unsigned int i;

	CHECK(parse("{\"name\":\"t\",\"default\":\"deny\",\"rules\":[{\"action\":\"permit\",\"proto\":\"tcp\",\"dst_port\":22}]}",
		    &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "t", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "%s", err);
	for (i = 0; i < RTE_DIM(c); i++)
		pkts[i] = c[i].m;
	dpr_acl_classify_bulk(dpr_acl_db_binds(db)->in[0], 0, pkts, RTE_DIM(c), act);
	for (i = 0; i < RTE_DIM(c); i++)
		CHECK(act[i] == c[i].want, "%s: %s, expected %s", c[i].what,
		      dpr_acl_action_name(act[i]), dpr_acl_action_name(c[i].want));
	rte_pktmbuf_free_bulk(pkts, RTE_DIM(c));
	dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err));
	dpr_acl_db_free(db);
}

/*
 * dpr_acl_key()'s fast paths give the key and kind that the full walk
 * (dpr_acl_key_walk()) gives, byte for byte, and a frame classified in
 * place (dpr_acl_ip4_inplace()) holds the walk's key where the IPv4
 * contexts read, on random frames near the fast paths' edges: VLAN
 * tags, IPv4 options and bad IHLs, fragments, short and lying lengths,
 * extension headers, every L4 protocol that has fields. Each key starts as different garbage, so a byte one of them
 * leaves unwritten shows.
 */
static uint32_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

static void
test_key_paths(void)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_SCTP,
		IPPROTO_ICMPV6, IPPROTO_HOPOPTS, IPPROTO_DSTOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
		IPPROTO_AH, 47, 59 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned int i, fast = 0, bad = 0, inplace = 0;

	for (i = 0; i < 100000 && test_failures < 10; i++) {
		const uint8_t *ip;
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		struct dpr_acl_key4 a4, b4;
		struct dpr_acl_key6 a6, b6;
		uint32_t r = rnd(&seed), k, n;
		unsigned int ka, kb;
		uint8_t *f;
		bool v6 = r & 1, vlan = (r & 0x30) == 0x30;
		uint16_t l3 = vlan ? 18 : 14, size = (uint16_t)(l3 + (v6 ? 40 : 20) + 64);

		if (m == NULL)
			break;
		f = (uint8_t *)rte_pktmbuf_append(m, size);
		for (k = 0; k < size; k++)
			f[k] = (uint8_t)rnd(&seed);
		f[12] = vlan ? 0x81 : (v6 ? 0x86 : 0x08);
		f[13] = vlan ? 0x00 : (v6 ? 0xdd : 0x00);
		if (vlan) {
			f[16] = v6 ? 0x86 : 0x08;
			f[17] = v6 ? 0xdd : 0x00;
		}
		if ((r & 0x1c0) == 0)
			f[13] ^= 1;   /* neither family */
		if (!v6) {
			f[l3] = (r & 0x600) != 0 ? 0x45 : (uint8_t)(0x40 + (rnd(&seed) & 0x1f));
			f[l3 + 9] = protos[rnd(&seed) % 6];
			n = rnd(&seed) % 4;   /* fragment: none, MF, offset 1, later */
			f[l3 + 6] = n == 1 ? 0x20 : (uint8_t)(f[l3 + 6] & 0xc0);
			f[l3 + 7] = n == 2 ? 1 : (n == 3 ? 100 : 0);
			n = rnd(&seed) % 4 == 0 ? rnd(&seed) % 100 : 20 + rnd(&seed) % 45;
		} else {
			f[l3] = (r & 0x600) != 0 ? 0x60 : (uint8_t)rnd(&seed);
			f[l3 + 6] = protos[rnd(&seed) % RTE_DIM(protos)];
			for (k = 0; k < 64; k += 8) {   /* short extension headers */
				f[l3 + 40 + k] = protos[rnd(&seed) % RTE_DIM(protos)];
				f[l3 + 41 + k] = (uint8_t)(rnd(&seed) % 2);
			}
			n = rnd(&seed) % 4 == 0 ? rnd(&seed) % 100 : rnd(&seed) % 65;
		}
		f[l3 + (v6 ? 4 : 2)] = (uint8_t)(n >> 8);
		f[l3 + (v6 ? 5 : 3)] = (uint8_t)n;
		rte_pktmbuf_trim(m, (uint16_t)(rnd(&seed) % 3 == 0 ? rnd(&seed) % size : 0));
		memset(&a4, 0xa5, sizeof(a4));
		memset(&b4, 0x5a, sizeof(b4));
		memset(&a6, 0xa5, sizeof(a6));
		memset(&b6, 0x5a, sizeof(b6));
		ka = dpr_acl_key(m, &a4, &a6);
		kb = dpr_acl_key_walk(m, &b4, &b6);
		CHECK(ka == kb, "frame %u: kind %#x, the walk's %#x", i, ka, kb);
		if ((ka & (DPR_ACL_K_IP4 | DPR_ACL_K_IP6)) == DPR_ACL_K_IP4)
			CHECK(memcmp(&a4, &b4, sizeof(a4)) == 0, "frame %u: IPv4 keys differ", i);
		if ((ka & (DPR_ACL_K_IP4 | DPR_ACL_K_IP6)) == DPR_ACL_K_IP6)
			CHECK(memcmp(&a6, &b6, sizeof(a6)) == 0, "frame %u: IPv6 keys differ", i);
		fast += ka != DPR_ACL_K_OTHER && !(ka & DPR_ACL_K_BAD_L4);
		bad += (ka & DPR_ACL_K_BAD_L4) != 0;
		ip = dpr_acl_ip4_inplace(m);
		if (ip != NULL) {
			/* Classified in place: what a context reads there is
			 * the walk's key; TCP flags only in a rule for TCP. */
			inplace++;
			CHECK(kb == DPR_ACL_K_IP4, "frame %u: in place, the walk's kind %#x", i, kb);
			CHECK(ip + DPR_ACL_IP4_READ <= rte_pktmbuf_mtod(m, uint8_t *) + m->data_len,
			      "frame %u: in place past the segment", i);
			CHECK((ip[1] & 0xfc) == b4.tos && ip[9] == b4.proto &&
			      memcmp(ip + 12, &b4.src, 12) == 0 &&
			      (b4.proto != IPPROTO_TCP || ip[33] == b4.tcp_flags),
			      "frame %u: in place, not the walk's key", i);
		}
		rte_pktmbuf_free(m);
	}
	/* Both sides of each edge were seen. */
	CHECK(fast > 10000 && bad > 5000 && inplace > 1000, "keys %u, cut short %u, in place %u",
	      fast, bad, inplace);
}

/* The worker's input stage: denied ones counted as drops.acl, rejected
 * ones on the exception ring with their class, the rest in order. */
static void
test_worker(void)
{
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct dpr_port_dp ports[1] = { { .port_id = 0 } };
	struct dpr_worker *w = rte_zmalloc(NULL, sizeof(*w), RTE_CACHE_LINE_SIZE);
	struct rte_mbuf *pkts[4], *keep0, *keep1, *got[4];
	struct dpr_acl_list l;
	char err[512];
	uint16_t n;

	CHECK(db != NULL && w != NULL, "alloc");
	w->n_ports = 1;
	w->ports = ports;
	w->exc_ring = rte_ring_create("acl_exc", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->acl = dpr_acl_db_binds(db);
	CHECK(parse(edge, &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "edge", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "%s", err);
	pkts[0] = keep0 = ip4("10.1.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20);
	pkts[1] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20);
	pkts[2] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8000, SYN), 20);
	pkts[3] = keep1 = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 80, SYN), 20);
	n = dpr_acl_input(w, 0, pkts, 4);
	CHECK_EQ(n, 2);
	CHECK(pkts[0] == keep0 && pkts[1] == keep1, "kept in order");
	CHECK_EQ(w->stats[0].drops[DPR_DROP_ACL], 2);
	CHECK_EQ(rte_ring_sc_dequeue_burst(w->exc_ring, (void **)got, 4, NULL), 1);
	CHECK_EQ(DPR_EXC_META_CLASS(got[0]->hash.usr), DPR_ACL_EXC_REJECT);
	rte_pktmbuf_free(got[0]);
	rte_pktmbuf_free_bulk(pkts, n);

	/* A reject of a priority-tagged frame (VLAN id 0: the screen, after
	 * the ACL, would take it off) reaches the control thread untagged;
	 * one tagged for another VLAN is denied, not answered. */
	for (n = 0; n < 2; n++) {
		pkts[n] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8000, SYN), 20);
		pkts[n]->vlan_tci = n == 0 ? 0 : 7;
		CHECK_EQ(rte_vlan_insert(&pkts[n]), 0);
	}
	CHECK_EQ(dpr_acl_input(w, 0, pkts, 2), 0);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_ACL], 4);
	CHECK_EQ(rte_ring_sc_dequeue_burst(w->exc_ring, (void **)got, 4, NULL), 1);
	CHECK(rte_pktmbuf_mtod(got[0], struct rte_ether_hdr *)->ether_type ==
	      RTE_BE16(RTE_ETHER_TYPE_IPV4) && got[0]->pkt_len == RTE_ETHER_HDR_LEN + 40,
	      "the priority-tagged reject goes untagged to the control thread");
	rte_pktmbuf_free(got[0]);

	/* Rejects of frames sent to another host's MAC, or to the broadcast
	 * MAC, are dropped unanswered (the screen would drop the first as
	 * other_host; RFC 1812 4.3.2.7 answers no link-layer broadcast). */
	for (n = 0; n < 2; n++) {
		pkts[n] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8000, SYN), 20);
		memset(rte_pktmbuf_mtod(pkts[n], struct rte_ether_hdr *)->dst_addr.addr_bytes,
		       n == 0 ? 0x02 : 0xff, RTE_ETHER_ADDR_LEN);
	}
	CHECK_EQ(dpr_acl_input(w, 0, pkts, 2), 0);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_ACL], 6);
	CHECK_EQ(rte_ring_sc_dequeue_burst(w->exc_ring, (void **)got, 4, NULL), 0);

	/* Unbound: nothing is looked at. */
	dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err));
	pkts[0] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 22, SYN), 20);
	CHECK_EQ(dpr_acl_input(w, 0, pkts, 1), 1);
	rte_pktmbuf_free(pkts[0]);
	rte_ring_free(w->exc_ring);
	rte_free(w);
	dpr_acl_db_free(db);
}

/* Rejected packets pass the "transit" class's gates before the exception
 * ring (lib/copp): a flood of them is cut at the class's rate, counted
 * there, and never reaches the control thread's ICMP limiter. */
static void
test_reject_gate(void)
{
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct dpr_port_dp ports[1] = { { .port_id = 0 } };
	struct dpr_worker *w = rte_zmalloc(NULL, sizeof(*w), RTE_CACHE_LINE_SIZE);
	struct dpr_copp_conf conf;
	struct dpr_copp *cp;
	struct rte_mbuf *pkts[8], *got[8];
	struct dpr_acl_list l;
	char err[512];
	unsigned int i, q;

	dpr_copp_conf_defaults(&conf);
	/* One a second, bursts of 3: 3 of 8 at once pass. */
	conf.cls[DPR_COPP_TRANSIT].rate = 1;
	conf.cls[DPR_COPP_TRANSIT].burst = 3;
	cp = dpr_copp_create(&conf, 0);
	CHECK(db != NULL && w != NULL && cp != NULL, "alloc");
	if (db == NULL || w == NULL || cp == NULL)
		return;
	w->n_ports = 1;
	w->ports = ports;
	w->exc_ring = rte_ring_create("acl_gate", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->acl = dpr_acl_db_binds(db);
	dpr_copp_worker_init(cp, &conf, &w->copp, 1, rte_get_tsc_hz(), 64);
	CHECK(parse(edge, &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "edge", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "%s", err);
	/* A capture of drops.acl runs: what the gate refuses goes to it. */
	w->cap_ring = rte_ring_create("acl_cap", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->cap_drops = 1u << DPR_DROP_ACL;
	for (i = 0; i < 8; i++)
		pkts[i] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8000, SYN), 20);
	CHECK_EQ(dpr_acl_input(w, 0, pkts, 8), 0);
	CHECK_EQ(w->stats[0].drops[DPR_DROP_ACL], 8);
	q = rte_ring_sc_dequeue_burst(w->cap_ring, (void **)got, 8, NULL);
	CHECK_EQ(q, 5);
	for (i = 0; i < q; i++)
		CHECK_EQ(got[i]->hash.usr, DPR_DROP_ACL);
	rte_pktmbuf_free_bulk(got, q);
	q = rte_ring_sc_dequeue_burst(w->exc_ring, (void **)got, 8, NULL);
	CHECK_EQ(q, 3);
	CHECK_EQ(w->copp.passed[DPR_COPP_TRANSIT], 3);
	CHECK_EQ(w->copp.over_rate[DPR_COPP_TRANSIT], 5);
	for (i = 0; i < q; i++) {
		CHECK_EQ(DPR_EXC_META_CLASS(got[i]->hash.usr), DPR_ACL_EXC_REJECT);
		CHECK_EQ(DPR_EXC_META_COPP(got[i]->hash.usr), DPR_COPP_TRANSIT + 1);
		dpr_copp_drained(&w->copp, DPR_EXC_META_COPP(got[i]->hash.usr));
	}
	rte_pktmbuf_free_bulk(got, q);
	/* Other classes keep their own rate: none of theirs was spent. */
	CHECK_EQ(w->copp.passed[DPR_COPP_ICMP] + w->copp.over_rate[DPR_COPP_ICMP] +
		 w->copp.passed[DPR_COPP_LOCAL] + w->copp.over_rate[DPR_COPP_LOCAL], 0);

	/* Its share of the ring: one entry; the rate opened wide. A second
	 * reject while the first is held is refused (over_share). */
	conf.cls[DPR_COPP_TRANSIT].rate = 1000000;
	conf.cls[DPR_COPP_TRANSIT].burst = 1000;
	conf.cls[DPR_COPP_TRANSIT].share = 1;
	dpr_copp_worker_init(cp, &conf, &w->copp, 1, rte_get_tsc_hz(), 64);
	for (i = 0; i < 2; i++)
		pkts[i] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8000, SYN), 20);
	CHECK_EQ(dpr_acl_input(w, 0, pkts, 2), 0);
	CHECK_EQ(rte_ring_sc_dequeue_burst(w->exc_ring, (void **)got, 8, NULL), 1);
	CHECK_EQ(w->copp.over_share[DPR_COPP_TRANSIT], 1);
	rte_pktmbuf_free(got[0]);
	CHECK_EQ(rte_ring_sc_dequeue_burst(w->cap_ring, (void **)got, 8, NULL), 1);
	CHECK_EQ(got[0]->hash.usr, DPR_DROP_ACL);
	rte_pktmbuf_free(got[0]);

	/* The exception ring full, protection off: refused, captured. */
	w->copp.enabled = false;
	while (rte_ring_free_count(w->exc_ring) > 0)
		CHECK_EQ(rte_ring_sp_enqueue(w->exc_ring, w), 0);
	pkts[0] = ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(5555, 8000, SYN), 20);
	CHECK_EQ(dpr_acl_input(w, 0, pkts, 1), 0);
	CHECK_EQ(rte_ring_sc_dequeue_burst(w->cap_ring, (void **)got, 8, NULL), 1);
	CHECK(got[0] == pkts[0] && got[0]->hash.usr == DPR_DROP_ACL,
	      "a reject the full ring refused is captured");
	rte_pktmbuf_free(got[0]);
	rte_ring_reset(w->exc_ring);
	w->cap_drops = 0;
	rte_ring_free(w->cap_ring);

	dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err));
	rte_ring_free(w->exc_ring);
	rte_free(w);
	dpr_copp_free(cp);
	dpr_acl_db_free(db);
}

/* --- the methods ------------------------------------------------------------------ */

static json_t *
rpc(struct dpr_router *r, json_t *(*fn)(struct dpr_router *, json_t *, struct dpr_method_err *),
    const char *params, struct dpr_method_err *e)
{
	json_t *p = json_loads(params, 0, NULL), *res;

	memset(e, 0, sizeof(*e));
	res = fn(r, p, e);
	json_decref(p);
	return res;
}

/*
 * The classify method: the widest SIMD the CPU has (EAL's 256-bit cap,
 * which nobody forced here, raised for the choice alone and put back);
 * an ACL with no rule has no context, so none. test_classify()'s cases
 * run through it.
 */
static void
test_simd(void)
{
	static const char *const names[] = { "p0" };
	uint16_t cap = rte_vect_get_max_simd_bitwidth();
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	const char *want = "scalar", *got;
	struct dpr_acl_list l;
	char err[512];
	json_t *a;

#ifdef RTE_ARCH_X86
	if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VL) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512CD) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0)
		want = "avx512x32";
	else if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0)
		want = "avx2";
	else if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_1) > 0)
		want = "sse";
#else
	want = NULL;
#endif
	CHECK(db != NULL, "db");
	CHECK(parse("{\"name\": \"web\", \"rules\": [{\"action\": \"deny\", \"proto\": \"tcp\"}]}",
		    &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0,
	      "web: %s", err);
	CHECK(parse("{\"name\": \"empty\", \"default\": \"deny\", \"rules\": []}", &l, err,
		    sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0, "empty: %s", err);
	a = dpr_acl_list_json(db, names, 1);
	got = json_string_value(json_object_get(json_array_get(a, 0), "classifier"));
	CHECK(got != NULL && (want == NULL || strcmp(got, want) == 0),
	      "web classifies with %s, the widest the CPU has (%s)", got ? got : "nothing",
	      want ? want : "any");
	CHECK(json_is_null(json_object_get(json_array_get(a, 1), "classifier")),
	      "an ACL without rules has no classifier");
	CHECK(rte_vect_get_max_simd_bitwidth() == cap, "EAL's SIMD cap put back: %u, was %u",
	      rte_vect_get_max_simd_bitwidth(), cap);
	json_decref(a);
	dpr_acl_db_free(db);
}

/*
 * Every classify method this CPU runs gives the scalar one's results, on
 * the edge list's IPv4 and IPv6 contexts and random keys steered at its
 * rules (addresses, ports, protocols, flags near the ones it names): the
 * method dpr picks only changes the speed. Bursts of 1 to 64, so that the
 * wide methods' tails (fewer than 32, 16, 8 left) run too.
 */
static void
test_simd_same(void)
{
	static const enum rte_acl_classify_alg algs[] = {
		RTE_ACL_CLASSIFY_SSE, RTE_ACL_CLASSIFY_AVX2, RTE_ACL_CLASSIFY_AVX512X16,
		RTE_ACL_CLASSIFY_AVX512X32,
	};
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6, 99 };
	static const uint16_t ports[] = { 22, 80, 8000, 8050, 8099, 8100, 53, 0 };
	enum { N = 4096 };
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	static struct dpr_acl_key4 k4[N];
	static struct dpr_acl_key6 k6[N];
	static const uint8_t *d4[N], *d6[N];
	static uint32_t want4[N], want6[N], got[N];
	const struct dpr_acl_dp *dp;
	uint16_t cap = rte_vect_get_max_simd_bitwidth();
	struct dpr_acl_list l;
	unsigned int i, a, ran = 0;
	char err[512];

	CHECK(db != NULL && parse(edge, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "edge", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "edge: %s", err);
	dp = dpr_acl_db_binds(db)->in[0];
	if (dp == NULL || dp->ctx[0] == NULL || dp->ctx[DPR_ACL_CTX(1, 0)] == NULL) {
		CHECK(0, "edge has no IPv4 and IPv6 contexts");
		return;
	}
	srand(52);
	for (i = 0; i < N; i++) {
		uint8_t p = protos[rand() % RTE_DIM(protos)];
		uint16_t sp = ports[rand() % RTE_DIM(ports)], dpt = ports[rand() % RTE_DIM(ports)];

		k4[i] = (struct dpr_acl_key4){
			.proto = p, .tos = (uint8_t)((rand() % 2 ? 46 : rand() % 64) << 2),
			.src = rte_cpu_to_be_32((rand() % 2 ? 0x0a010000u : 0x0a000000u) | (uint32_t)(rand() & 0x1ffff)),
			.dst = rte_cpu_to_be_32((rand() % 2 ? 0x0a090000u : 0x0a080000u) | (uint32_t)(rand() & 0x1ffff)),
			.sport = rte_cpu_to_be_16(sp), .dport = rte_cpu_to_be_16(dpt),
			.tcp_flags = (uint8_t)(rand() % 2 ? SYN : rand()),
		};
		k6[i] = (struct dpr_acl_key6){
			.proto = p, .dscp = (uint8_t)(rand() % 2 ? 46 : rand() % 64),
			.flags = (uint8_t)(rand() % 8 == 0 ? DPR_ACL_F_NONFIRST : 0),
			.tcp_flags = (uint8_t)(rand() % 2 ? SYN : rand()),
			.sport = rte_cpu_to_be_16(sp), .dport = rte_cpu_to_be_16(dpt),
		};
		memcpy(k6[i].src, (const uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0x0b, 0xa0, 0x0d }, 8);
		memcpy(k6[i].dst, (const uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, 0, 0x09, 0, 0 }, 8);
		k6[i].src[5] = (uint8_t)(rand() % 2 ? 0xba : rand());
		k6[i].src[15] = (uint8_t)rand();
		k6[i].dst[5] = (uint8_t)(rand() % 2 ? 0x09 : rand());
		k6[i].dst[15] = (uint8_t)rand();
		d4[i] = (const uint8_t *)&k4[i];
		d6[i] = (const uint8_t *)&k6[i];
	}
	CHECK(rte_acl_classify_alg(dp->ctx[0], d4, want4, N, 1, RTE_ACL_CLASSIFY_SCALAR) == 0 &&
	      rte_acl_classify_alg(dp->ctx[DPR_ACL_CTX(1, 0)], d6, want6, N, 1,
				   RTE_ACL_CLASSIFY_SCALAR) == 0, "scalar");
	for (a = 0; a < RTE_DIM(algs); a++) {
		struct rte_acl_ctx *c4 = dp->ctx[0], *c6 = dp->ctx[DPR_ACL_CTX(1, 0)];
		unsigned int off, n, bad4 = 0, bad6 = 0;
		bool raised = cap < RTE_VECT_SIMD_512 &&
			      rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) == 0;
		bool ok = rte_acl_set_ctx_classify(c4, algs[a]) == 0 &&
			  rte_acl_set_ctx_classify(c6, algs[a]) == 0;

		if (raised)
			rte_vect_set_max_simd_bitwidth(cap);
		if (!ok)
			continue; /* not this CPU's */
		ran++;
		for (off = 0, n = 1; off < N; off += n, n = n % 64 + 1) {
			n = RTE_MIN(n, N - off);
			rte_acl_classify(c4, d4 + off, got + off, n, 1);
		}
		for (i = 0; i < N; i++)
			bad4 += got[i] != want4[i];
		for (off = 0, n = 1; off < N; off += n, n = n % 64 + 1) {
			n = RTE_MIN(n, N - off);
			rte_acl_classify(c6, d6 + off, got + off, n, 1);
		}
		for (i = 0; i < N; i++)
			bad6 += got[i] != want6[i];
		CHECK(bad4 == 0 && bad6 == 0, "method %d: %u IPv4 and %u IPv6 keys differ from scalar's",
		      (int)algs[a], bad4, bad6);
	}
	CHECK(ran > 0, "no vector method ran");
	dpr_acl_db_free(db);
}

static void
test_methods(void)
{
	static const char cfg[] =
		"{\"ports\": [{\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.1.1/24\"],"
		"  \"acl_in\": \"mgmt\"}],"
		" \"acls\": [{\"name\": \"mgmt\", \"default\": \"permit\", \"rules\": ["
		"   {\"action\": \"deny\", \"proto\": \"tcp\", \"dst_port\": 22}]}]}";
	struct dpr_config *cfg2;
	struct dpr_router r;
	struct dpr_method_err e;
	char err[512];
	json_t *res;

	memset(&r, 0, sizeof(r));
	if (test_router_init(&r, cfg, "test_acl") < 0) {
		CHECK(0, "router");
		return;
	}
	r.n_ports = r.cfg->n_ports;
	r.acl = dpr_acl_db_create(NULL, 1, 0);
	CHECK(dpr_acl_load_config(r.acl, r.cfg->acls, r.cfg, err, sizeof(err)) == 0, "%s", err);
	CHECK(dpr_acl_db_binds(r.acl)->in[0] != NULL, "config bound mgmt in on p0");

	/* Refused: the old list stays, and the message names the rule. */
	res = rpc(&r, dpr_m_acl_set, "{\"name\": \"mgmt\", \"rules\": [{\"action\": \"deny\"},"
		  "{\"action\": \"deny\", \"proto\": \"icmp\", \"src_port\": 1}]}", &e);
	CHECK(res == NULL && strstr(e.message, "mgmt.rules[1]: src_port") != NULL &&
	      strstr(e.message, "unchanged") != NULL, "refused set: %s", e.message);
	/* A name that is no name is quoted on one line, the path included. */
	res = rpc(&r, dpr_m_acl_set, "{\"name\": \"a\\nb\", \"rules\": []}", &e);
	CHECK(res == NULL && strstr(e.message, "name \"a?b\"") != NULL &&
	      strchr(e.message, '\n') == NULL, "refused name: %s", e.message);
	res = rpc(&r, dpr_m_acl_get, "{\"name\": \"mgmt\"}", &e);
	CHECK(res != NULL && json_array_size(json_object_get(res, "rules")) == 1, "old list kept");
	json_decref(res);

	res = rpc(&r, dpr_m_acl_set, "{\"name\": \"web\", \"default\": \"deny\", \"rules\": ["
		  "{\"action\": \"permit\", \"proto\": \"tcp\", \"dst_port\": \"80-443\"}]}", &e);
	CHECK(res != NULL, "acl.set web: %s", e.message);
	json_decref(res);
	res = rpc(&r, dpr_m_acl_bind, "{\"name\": \"web\", \"interface\": \"p0\", \"direction\": \"out\"}", &e);
	CHECK(res != NULL, "acl.bind: %s", e.message);
	json_decref(res);
	res = rpc(&r, dpr_m_acl_bind, "{\"name\": \"web\", \"interface\": \"p9\", \"direction\": \"out\"}", &e);
	CHECK(res == NULL && strstr(e.message, "no interface \"p9\"") != NULL, "%s", e.message);
	res = rpc(&r, dpr_m_acl_del, "{\"name\": \"web\"}", &e);
	CHECK(res == NULL && strstr(e.message, "unbind it first") != NULL, "%s", e.message);
	res = rpc(&r, dpr_m_acl_list, "{}", &e);
	CHECK(res != NULL && json_array_size(json_object_get(res, "acls")) == 2, "acl.list");
	json_decref(res);
	res = rpc(&r, dpr_m_acl_unbind, "{\"interface\": \"p0\", \"direction\": \"out\"}", &e);
	CHECK(res != NULL, "acl.unbind: %s", e.message);
	json_decref(res);
	res = rpc(&r, dpr_m_acl_list, "{}", &e);
	CHECK(res != NULL && strstr(json_string_value(json_array_get(json_object_get(res, "warnings"), 0)),
				    "web is bound to no interface") != NULL, "doctor's warning");
	json_decref(res);
	res = rpc(&r, dpr_m_acl_del, "{\"name\": \"web\"}", &e);
	CHECK(res != NULL, "acl.del: %s", e.message);
	json_decref(res);

	/* dpr-doctor on the config: mgmt is bound there; a shadowed rule. */
	res = dpr_acl_config_warnings_json(r.cfg->acls, r.cfg);
	CHECK(json_array_size(res) == 0, "config: no warning (%zu)", json_array_size(res));
	json_decref(res);
	json_array_append_new(json_object_get(json_array_get(r.cfg->acls, 0), "rules"),
			      json_pack("{s:s,s:s,s:i}", "action", "permit", "proto", "tcp",
					"dst_port", 22));
	cfg2 = malloc(sizeof(*cfg2));
	memcpy(cfg2, r.cfg, sizeof(*cfg2));
	cfg2->ports[0].acl_in[0] = '\0';
	res = dpr_acl_config_warnings_json(r.cfg->acls, cfg2);
	free(cfg2);
	CHECK(json_array_size(res) == 2 &&
	      strstr(json_string_value(json_array_get(res, 0)), "mgmt is bound to no interface") &&
	      strstr(json_string_value(json_array_get(res, 1)), "rule 1 is never reached: rule 0"),
	      "config: unbound, shadowed");
	json_decref(res);

	dpr_acl_db_free(r.acl);
	r.acl = NULL;
	test_router_free(&r);
}

/*
 * The fields of the contract on both families, at their edges: ports 0
 * and 65535 and a range ending there, ICMP type and code together, IPv6
 * DSCP and TCP flags, TCP behind an atomic fragment (RFC 6946) and behind
 * AH (RFC 4302: its length in 4-byte units), ESP and No Next Header as
 * protocols, IPv4 options skipped to reach the ports.
 */
static void
test_fields(void)
{
	struct dpr_acl_db *db = dpr_acl_db_create(NULL, 1, 0);
	struct { struct rte_mbuf *m; uint8_t want; const char *what; } c[24];
	struct rte_mbuf *pkts[24];
	uint8_t act[24];
	uint8_t atomic[8] = { IPPROTO_TCP, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t ah[12] = { IPPROTO_TCP, 1 };
	uint8_t ah2[16] = { IPPROTO_TCP, 2 };
	static const uint8_t unreach[8] = { 3, 4 }, unreach3[8] = { 3, 3 };
	static const uint8_t esp[16] = { 0 };
	struct dpr_acl_list l;
	char err[512];
	unsigned int n = 0, i;

	CHECK(parse("{\"name\":\"e\",\"default\":\"permit\",\"rules\":["
		    "{\"action\":\"deny\",\"proto\":\"tcp\",\"dst_port\":80},"
		    "{\"action\":\"deny\",\"proto\":\"tcp\",\"dst_port\":0},"
		    "{\"action\":\"deny\",\"proto\":\"tcp\",\"src_port\":65535},"
		    "{\"action\":\"deny\",\"proto\":\"udp\",\"dst_port\":\"65000-65535\"},"
		    "{\"action\":\"deny\",\"proto\":\"icmp\",\"icmp_type\":3,\"icmp_code\":4},"
		    "{\"action\":\"deny\",\"family\":\"ipv6\",\"dscp\":46},"
		    "{\"action\":\"deny\",\"proto\":\"tcp\",\"family\":\"ipv6\",\"tcp_flags\":\"syn,!ack\"},"
		    "{\"action\":\"deny\",\"proto\":\"esp\"},"
		    "{\"action\":\"deny\",\"proto\":59},"
		    "{\"action\":\"deny\",\"proto\":\"tcp\",\"dst_port\":22}"
		    "]}", &l, err, sizeof(err)) == 0 && dpr_acl_set(db, &l, err, sizeof(err)) == 0 &&
	      dpr_acl_bind(db, "e", 0, DPR_ACL_IN, err, sizeof(err)) == 0, "%s", err);
#define ADD(mb, w, s) do { c[n].m = (mb); c[n].want = (w); c[n].what = (s); n++; } while (0)
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(1, 0, ACK), 20),
	    DPR_ACL_DENY, "port 0");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(65535, 1, ACK), 20),
	    DPR_ACL_DENY, "sport 65535");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_TCP, 0, 0, tcp(65534, 1, ACK), 20),
	    DPR_ACL_PERMIT, "sport 65534");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 0, 0, tcp(1, 65535, 0), 8),
	    DPR_ACL_DENY, "udp 65535");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_UDP, 0, 0, tcp(1, 64999, 0), 8),
	    DPR_ACL_PERMIT, "udp 64999");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_ICMP, 0, 0, unreach, 8), DPR_ACL_DENY, "icmp 3/4");
	ADD(ip4("10.2.2.3", "10.0.0.1", IPPROTO_ICMP, 0, 0, unreach3, 8),
	    DPR_ACL_PERMIT, "icmp 3/3");
	{
		struct rte_mbuf *m = ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_UDP, NULL, 0,
					 tcp(1, 2, 0), 8);
		struct rte_ipv6_hdr *h = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, 14);

		h->vtc_flow = rte_cpu_to_be_32(6u << 28 | (46u << 2) << 20);
		ADD(m, DPR_ACL_DENY, "ipv6 dscp 46");
	}
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_TCP, NULL, 0, tcp(1, 81, SYN), 20),
	    DPR_ACL_DENY, "ipv6 syn");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_TCP, NULL, 0, tcp(1, 81, SYN|ACK), 20),
	    DPR_ACL_PERMIT, "ipv6 synack");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_FRAGMENT, atomic, 8, tcp(1, 80, ACK), 20),
	    DPR_ACL_DENY, "atomic frag tcp 80");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_AH, ah, 12, tcp(1, 80, ACK), 20),
	    DPR_ACL_DENY, "AH tcp 80");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", IPPROTO_AH, ah2, 16, tcp(1, 80, ACK), 20),
	    DPR_ACL_DENY, "AH(16) tcp 80");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", 50, NULL, 0, esp, 16), DPR_ACL_DENY, "esp6");
	ADD(ip4("10.2.2.3", "10.0.0.1", 50, 0, 0, esp, 16), DPR_ACL_DENY, "esp4");
	ADD(ip6("2001:db8:1::1", "2001:db8:9::1", 59, NULL, 0, esp, 0),
	    DPR_ACL_DENY, "no next header");
	{
		/* IPv4 with 8 bytes of options (7 NOPs, EOL), TCP 22. */
		uint8_t b[60] = { 0 };
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)b;

		ip->version_ihl = 0x47;
		ip->total_length = rte_cpu_to_be_16(48);
		ip->time_to_live = 9;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = RTE_BE32(0x0a020203);
		ip->dst_addr = RTE_BE32(0x0a000001);
		memset(b + 20, 1, 7);
		memcpy(b + 28, tcp(1, 22, SYN), 20);
		ADD(frame(RTE_ETHER_TYPE_IPV4, b, 48), DPR_ACL_DENY, "ipv4 options tcp 22");
	}
#undef ADD
	for (i = 0; i < n; i++)
		pkts[i] = c[i].m;
	dpr_acl_classify_bulk(dpr_acl_db_binds(db)->in[0], 0, pkts, n, act);
	for (i = 0; i < n; i++)
		CHECK(act[i] == c[i].want, "%s: %s, expected %s", c[i].what,
		      dpr_acl_action_name(act[i]), dpr_acl_action_name(c[i].want));
	/* One at a time, as the control thread classifies. */
	for (i = 0; i < n; i++) {
		dpr_acl_classify_bulk(dpr_acl_db_binds(db)->in[0], 0, &pkts[i], 1, act);
		CHECK(act[0] == c[i].want, "alone: %s: %s, expected %s", c[i].what,
		      dpr_acl_action_name(act[0]), dpr_acl_action_name(c[i].want));
	}
	rte_pktmbuf_free_bulk(pkts, n);
	dpr_acl_bind(db, NULL, 0, DPR_ACL_IN, err, sizeof(err));
	dpr_acl_db_free(db);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (test_eal_init(argv[0]) < 0) {
		fprintf(stderr, "test_acl: cannot initialise EAL\n");
		return EXIT_FAILURE;
	}
	pool = rte_pktmbuf_pool_create("acl_test", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL) {
		fprintf(stderr, "test_acl: no mbuf pool\n");
		return EXIT_FAILURE;
	}
	test_parse();
	test_simd();
	test_simd_same();
	test_classify();
	test_del_waits();
	test_proto_no_upper_layer();
	test_ndp();
	test_fields();
	test_key_paths();
	test_worker();
	test_reject_gate();
	test_methods();
	rte_mempool_free(pool);
	return test_done("test_acl");
}
