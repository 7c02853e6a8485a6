/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_errno.h>

#include "datapath.h"
#include "ip4_dp.h"
#include "ip6_dp.h"

const char *const dpr_drop_names[DPR_DROP_MAX] = {
	[DPR_DROP_NONE] = "none",
	[DPR_DROP_RUNT] = "runt",
	[DPR_DROP_OTHER_HOST] = "other_host",
	[DPR_DROP_UNSUPPORTED_L3] = "unsupported_l3",
	[DPR_DROP_UNKNOWN_VLAN] = "unknown_vlan",
	[DPR_DROP_BAD_HEADER] = "bad_header",
	[DPR_DROP_BAD_LENGTH] = "bad_length",
	[DPR_DROP_BAD_CHECKSUM] = "bad_checksum",
	[DPR_DROP_MARTIAN] = "martian",
	[DPR_DROP_BLACKHOLE] = "blackhole",
	[DPR_DROP_EXCEPTION_FULL] = "exception_full",
	[DPR_DROP_TX_FULL] = "tx_full",
	[DPR_DROP_ACL] = "acl",
	[DPR_DROP_URPF] = "urpf",
	[DPR_DROP_CONTROL_PLANE] = "control_plane",
};

const char *const dpr_exc_names[DPR_EXC_MAX] = {
	[DPR_EXC_ARP] = "arp",
	[DPR_EXC_LOCAL] = "local",
	[DPR_EXC_IP_OPTIONS] = "ip_options",
	[DPR_EXC_TTL_EXPIRED] = "ttl_expired",
	[DPR_EXC_NO_ROUTE] = "no_route",
	[DPR_EXC_UNRESOLVED] = "unresolved",
	[DPR_EXC_MTU_EXCEEDED] = "mtu_exceeded",
	[DPR_EXC_BEYOND_SCOPE] = "beyond_scope",
	[DPR_EXC_L2_CONTROL] = "l2_control",
	[DPR_EXC_REDIRECT] = "redirect",
};

/*
 * The link-layer control protocols the host stack speaks, each with the
 * groups it is sent to besides a port's own MAC. LACP would be one more
 * protocol: slow protocols, EtherType 0x8809, to 01:80:C2:00:00:02 (IEEE
 * 802.1AX 6.2.11.2).
 */
enum { LLDP_GROUPS = 0, N_LLDP_GROUPS = 3, ISIS_GROUPS = 3, N_ISIS_GROUPS = 4 };
_Static_assert(ISIS_GROUPS + N_ISIS_GROUPS == DPR_L2_CONTROL_GROUPS,
	       "every group belongs to one protocol");

const struct rte_ether_addr dpr_l2_control_groups[DPR_L2_CONTROL_GROUPS] = {
	/* LLDP (IEEE 802.1AB 7.1): nearest bridge, nearest non-TPMR bridge,
	 * nearest customer bridge. */
	{ { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e } },
	{ { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x03 } },
	{ { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 } },
	/* IS-IS (ISO/IEC 10589 8.4.8): AllL1ISs, AllL2ISs, and ISO 9542's
	 * AllIntermediateSystems and AllEndSystems. */
	{ { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x14 } },
	{ { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x15 } },
	{ { 0x09, 0x00, 0x2b, 0x00, 0x00, 0x05 } },
	{ { 0x09, 0x00, 0x2b, 0x00, 0x00, 0x04 } },
};

#define LLC_UI 0x03  /* IEEE 802.2 unnumbered information */

static const struct l2_proto {
	rte_be16_t type;   /**< EtherType; 0: LLC after an 802.3 length */
	uint8_t sap;       /**< LLC DSAP and SSAP */
	uint8_t first;     /**< its groups in dpr_l2_control_groups */
	uint8_t n;
} l2_protos[] = {
	/* LLDP (IEEE 802.1AB 7.1) */
	{ .type = RTE_BE16(RTE_ETHER_TYPE_LLDP), .first = LLDP_GROUPS, .n = N_LLDP_GROUPS },
	/* IS-IS (ISO/IEC 10589 8.4.2) */
	{ .sap = 0xfe, .first = ISIS_GROUPS, .n = N_ISIS_GROUPS },
};

bool
dpr_l2_control(const struct rte_mbuf *m, const struct rte_ether_addr *mac)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const uint8_t *llc = (const uint8_t *)(eth + 1);
	/* At most 1500: an 802.3 length, not an EtherType (IEEE 802.3 3.2.6). */
	bool is_len = rte_be_to_cpu_16(eth->ether_type) <= RTE_ETHER_MTU;
	unsigned int i, g;

	for (i = 0; i < RTE_DIM(l2_protos); i++) {
		const struct l2_proto *p = &l2_protos[i];

		if (p->type != 0 ? eth->ether_type != p->type :
		    !is_len || m->data_len < sizeof(*eth) + 3 || llc[0] != p->sap ||
		    llc[1] != p->sap || llc[2] != LLC_UI)
			continue;
		if (rte_is_same_ether_addr(&eth->dst_addr, mac))
			return true;
		for (g = p->first; g < (unsigned int)p->first + p->n; g++)
			if (rte_is_same_ether_addr(&eth->dst_addr, &dpr_l2_control_groups[g]))
				return true;
		return false;
	}
	return false;
}

/* ::/8 (unspecified, loopback, IPv4-mapped among others), fe00::/8
 * (link-local fe80::/10 among others) and ff00::/8 (multicast). */
const uint8_t dpr_ip6_special_byte[256] = {
	[0] = 1, [0xfe] = 1, [0xff] = 1,
};

void
dpr_worker_prepare_port(struct dpr_worker *w, uint16_t p)
{
	uint8_t b[16] = { 0 };

	memcpy(b, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
	b[12] = RTE_ETHER_TYPE_IPV4 >> 8;
	b[13] = RTE_ETHER_TYPE_IPV4 & 0xff;
	b[14] = 0x45;
	memcpy(&w->head[p], b, sizeof(b));
	memcpy(b + RTE_ETHER_ADDR_LEN, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
	b[12] = RTE_ETHER_TYPE_IPV4 >> 8;
	memcpy(&w->src_mac_type[p], b + RTE_ETHER_ADDR_LEN, sizeof(uint64_t));
	memset(b, 0, sizeof(b));
	memcpy(b, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
	b[12] = RTE_ETHER_TYPE_IPV6 >> 8;
	b[13] = RTE_ETHER_TYPE_IPV6 & 0xff;
	b[14] = 0x60;
	memcpy(&w->head6[p], b, sizeof(b));
	memcpy(b + RTE_ETHER_ADDR_LEN, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
	b[12] = RTE_ETHER_TYPE_IPV6 >> 8;
	b[13] = RTE_ETHER_TYPE_IPV6 & 0xff;
	memcpy(&w->src_mac_type6[p], b + RTE_ETHER_ADDR_LEN, sizeof(uint64_t));
	w->tag_word[p] = w->ports[p].vlan_tci != 0 && w->ports[p].vlan_outer == 0 ?
		DPR_VLAN_WORD(w->ports[p].vlan_tci) : 0;
	memset(b, 0, sizeof(b));
	memcpy(b + RTE_ETHER_ADDR_LEN, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
	memcpy(b + 2 * RTE_ETHER_ADDR_LEN, &w->tag_word[p], sizeof(uint32_t));
	memcpy(&w->tag_head[p], b, sizeof(b));
	memset(b, 0, sizeof(b));
	memcpy(b, &w->ports[p].mac.addr_bytes[4], 2);
	memcpy(b + 4, &w->ports[p].mac, 4);
	memcpy(b + 8, &w->tag_word[p], sizeof(uint32_t));
	b[12] = RTE_ETHER_TYPE_IPV4 >> 8;
	b[13] = RTE_ETHER_TYPE_IPV4 & 0xff;
	b[14] = 0x45;
	memcpy(&w->head_tag[p], b, sizeof(b));
	b[12] = RTE_ETHER_TYPE_IPV6 >> 8;
	b[13] = RTE_ETHER_TYPE_IPV6 & 0xff;
	b[14] = 0x60;
	memcpy(&w->head6_tag[p], b, sizeof(b));
	w->redirect_tsc[p] = 0;
}

void
dpr_worker_prepare(struct dpr_worker *w)
{
	/* Destination MAC, EtherType, version/IHL; not the source MAC (6-11)
	 * nor the TOS byte (15). */
	static const uint8_t mask[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0,
	};
	uint32_t min_mtu = UINT16_MAX;
	uint16_t p;

	/* IPv6: destination MAC, EtherType and the version nibble. */
	static const uint8_t mask6[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xf0, 0,
	};
	/* IPv4 seen 4 bytes into a tagged frame: the MAC's last 2 bytes,
	 * its first 4 (put where the source MAC's last 4 are, dpr_head_ok()),
	 * the tag less its priority bits, EtherType, version/IHL. */
	static const uint8_t mask_tag[16] = {
		0xff, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0,
	};
	static const uint8_t mask6_tag[16] = {
		0xff, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xf0, 0,
	};

	if (w->acl == NULL)
		w->acl = &dpr_acl_unbound;
	memcpy(&w->head_mask, mask, sizeof(mask));
	memcpy(&w->head6_mask, mask6, sizeof(mask6));
	memcpy(&w->head_tag_mask, mask_tag, sizeof(mask_tag));
	memcpy(&w->head6_tag_mask, mask6_tag, sizeof(mask6_tag));
	for (p = 0; p < w->n_ports; p++) {
		dpr_worker_prepare_port(w, p);
		min_mtu = RTE_MIN(min_mtu, (uint32_t)w->ports[p].mtu);
	}
	w->fast_max_len = min_mtu + RTE_ETHER_HDR_LEN;
	w->redirect_gap = rte_get_tsc_hz() / DPR_REDIRECT_DIVERTS_PER_S;
}

/* The EtherType of frame @p m, past a priority tag (VLAN id 0); 0 for a
 * frame too short to say (the screen drops it as a runt). */
static uint16_t
l3_type(const struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type, tci;

	if (m->data_len < RTE_ETHER_HDR_LEN)
		return 0;
	memcpy(&type, eth + 2 * RTE_ETHER_ADDR_LEN, sizeof(type));
	if (type != RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	    m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))
		return type;
	memcpy(&tci, eth + RTE_ETHER_HDR_LEN, sizeof(tci));
	if ((rte_be_to_cpu_16(tci) & RTE_VLAN_ID_MASK) != 0)
		return type;
	memcpy(&type, eth + RTE_ETHER_HDR_LEN + sizeof(tci), sizeof(type));
	return type;
}

uint16_t
dpr_no_ip6_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *drop[DPR_BURST];
	uint16_t i, keep = 0, nd = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (likely(l3_type(m) != RTE_BE16(RTE_ETHER_TYPE_IPV6))) {
			pkts[keep++] = m;
		} else {
			m->hash.usr = DPR_DROP_UNSUPPORTED_L3;
			drop[nd++] = m;
		}
	}
	if (nd == 0)
		return keep;
	w->stats[in].drops[DPR_DROP_UNSUPPORTED_L3] += nd;
	dpr_drops_free(w, drop, nd, DPR_DROP_UNSUPPORTED_L3);
	return keep;
}

void
dpr_port_in_stages_sync(struct dpr_port_dp *ports, unsigned int n,
			const struct dpr_acl_binds *acl)
{
	unsigned int p;

	for (p = 0; p < n; p++) {
		uint8_t s = 0;

		if (__atomic_load_n(&ports[p].vlan_if, __ATOMIC_RELAXED) != NULL)
			s |= DPR_IN_VLAN;
		if (acl != NULL && __atomic_load_n(&acl->in[p], __ATOMIC_RELAXED) != NULL)
			s |= DPR_IN_ACL;
		if (ports[p].urpf != 0)
			s |= DPR_IN_URPF;
		if (!dpr_mtu_carries_ip6(ports[p].mtu))
			s |= DPR_IN_NO_IP6;
		/* After the setting it stands for (the caller stored that
		 * first): a worker that sees the bit finds the stage's data. */
		__atomic_store_n(&ports[p].in_stages, s, __ATOMIC_RELEASE);
		s = 0;
		if (acl != NULL && __atomic_load_n(&acl->out[p], __ATOMIC_RELAXED) != NULL)
			s |= DPR_OUT_ACL;
		if (ports[p].vlan_tci != 0)
			s |= DPR_OUT_TAG;
		if (ports[p].vlan_tci != 0 && ports[p].vlan_outer == 0 && !ports[p].vlan_insert &&
		    !(s & DPR_OUT_ACL))
			s |= DPR_OUT_PRETAG;
		__atomic_store_n(&ports[p].out_stages, s, __ATOMIC_RELEASE);
	}
}

int dpr_rss_dynfield = -1;

int
dpr_flow_hash_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "dpr_rss_hash",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};
	int off;

	if (dpr_rss_dynfield >= 0)
		return 0;
	off = rte_mbuf_dynfield_register(&desc);
	if (off < 0)
		return -rte_errno;
	dpr_rss_dynfield = off;
	return 0;
}

/* The reason stays in the mbuf for a capture (lib/capture). */
#define DROP(b, m, why) do { \
		w->stats[(b)->in].drops[why]++; \
		(m)->hash.usr = (why); \
		(b)->drop[(b)->n_drop++] = (m); \
	} while (0)
/* Counted now, while the mbuf is ours: once on the ring the control
 * thread may free it (dpr_burst_finish() takes back what the ring refused). */
#define EXCEPT(b, m, cls) do { \
		w->stats[(b)->in].exc[cls]++; \
		w->stats[(b)->in].exception++; \
		dpr_flow_hash_keep(m); \
		(m)->hash.usr = DPR_EXC_META(cls, (b)->in); \
		(b)->exc[(b)->n_exc++] = (m); \
	} while (0)
#define EXCEPT_ARG(b, m, cls, arg) do { \
		DPR_EXC_ARG(m) = (arg); \
		EXCEPT(b, m, cls); \
	} while (0)

/* What dpr_l3_decide() said, done to packet @p m of burst @p b; both
 * families. */
static bool
l3_act(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint32_t nh,
       union dpr_nh_word h, enum dpr_l3_verdict v, union dpr_nh_word *out)
{
	switch (v) {
	case DPR_L3_FORWARD:
		*out = h;
		return true;
	case DPR_L3_LOCAL:
		EXCEPT(b, m, DPR_EXC_LOCAL);
		break;
	case DPR_L3_UNRESOLVED:
		EXCEPT_ARG(b, m, DPR_EXC_UNRESOLVED, nh);
		break;
	case DPR_L3_BLACKHOLE:
		DROP(b, m, DPR_DROP_BLACKHOLE);
		break;
	case DPR_L3_LINK_LOCAL:
		DROP(b, m, DPR_DROP_MARTIAN);
		break;
	case DPR_L3_NO_ROUTE:
		EXCEPT(b, m, DPR_EXC_NO_ROUTE);
		break;
	case DPR_L3_TTL_EXPIRED:
		EXCEPT(b, m, DPR_EXC_TTL_EXPIRED);
		break;
	case DPR_L3_TOO_BIG:
		EXCEPT_ARG(b, m, DPR_EXC_MTU_EXCEEDED, h.port);
		break;
	case DPR_L3_L2_BCAST:
		DROP(b, m, DPR_DROP_OTHER_HOST);
		break;
	}
	return false;
}

bool
dpr_l3_hairpin(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint8_t *eth,
	       bool v6)
{
	uint64_t now;

	if (!w->ports[b->in].redirects)
		return false;
	now = rte_rdtsc();
	if (now - w->redirect_tsc[b->in] < w->redirect_gap)
		return false;
	w->redirect_tsc[b->in] = now;
	/* The control thread forwards it as it came, and quotes it so. The
	 * checksum is computed again: the decrement may have taken the
	 * end-around carry, which an increment does not undo. */
	if (v6) {
		DPR_IP6_HDR(eth)->hop_limits++;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + RTE_ETHER_HDR_LEN);

		ip->time_to_live++;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	EXCEPT(b, m, DPR_EXC_REDIRECT);
	return true;
}

/*
 * The next hop that acts for @p nh on packet @p m, with its word in *@p h:
 * @p nh itself, or for a multipath group the member @p m's flow takes. The
 * fast path never comes here with a forwarding next hop: a group costs
 * plain routes nothing.
 */
static inline uint32_t
nh_of_flow(const struct dpr_worker *w, const struct rte_mbuf *m, uint32_t nh,
	   union dpr_nh_word *h)
{
	h->u64 = __atomic_load_n(&w->nh[nh].u64, __ATOMIC_RELAXED);
	if (h->kind == DPR_NH_KIND_GROUP) {
		nh = dpr_nh_group_pick_rcu(w->nh, *h, dpr_flow_hash_rx(m));
		h->u64 = __atomic_load_n(&w->nh[nh].u64, __ATOMIC_RELAXED);
	}
	return nh;
}

bool
dpr_ip4_act(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint32_t nh,
	    bool l2_bcast, union dpr_nh_word *out)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
								RTE_ETHER_HDR_LEN);
	union dpr_nh_word h;

	nh = nh_of_flow(w, m, nh, &h);
	return l3_act(w, b, m, nh, h, dpr_ip4_decide(h, ip, l2_bcast, w->ports), out);
}

bool
dpr_ip6_act(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint32_t nh,
	    bool l2_bcast, union dpr_nh_word *out)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
								RTE_ETHER_HDR_LEN);
	enum dpr_l3_verdict v;
	union dpr_nh_word h;

	nh = nh_of_flow(w, m, nh, &h);
	v = dpr_ip6_decide(h, ip, l2_bcast, w->ports);
	/* A link-local source leaves by the link it came in on only (RFC
	 * 4291 2.5.6, RFC 4007 9): dpr_ip6_slow() found its route so, but
	 * pass 3 looks it up again, maybe after a route change. The fast
	 * path never has one. */
	if ((v == DPR_L3_FORWARD || v == DPR_L3_UNRESOLVED) && h.port != b->in &&
	    dpr_ip6_addr_class(ip->src_addr) == DPR_IP6_ADDR_LINK_LOCAL) {
		EXCEPT(b, m, DPR_EXC_BEYOND_SCOPE);
		return false;
	}
	return l3_act(w, b, m, nh, h, v, out);
}

static inline rte_be16_t
eth_type_of(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type;
}

bool
dpr_ip4_slow(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint32_t *dst)
{
	const struct rte_ether_addr *mac = &w->ports[b->in].mac;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	enum dpr_drop why;
	uint32_t nh;
	uint16_t tlen;
	bool bcast;
	int addr;

	if (unlikely(m->data_len < sizeof(*eth))) {
		DROP(b, m, DPR_DROP_RUNT);
		return false;
	}
	/* As dpr_l3_screen_other() does before it calls here: a priority
	 * tag is taken off (802.1Q). */
	if (eth_type_of(m) == RTE_BE16(RTE_ETHER_TYPE_VLAN))
		(void)dpr_vlan_untag_priority(m);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	bcast = !rte_is_unicast_ether_addr(&eth->dst_addr);
	if (!bcast && !rte_is_same_ether_addr(&eth->dst_addr, mac)) {
		DROP(b, m, DPR_DROP_OTHER_HOST);
		return false;
	}
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
			EXCEPT(b, m, DPR_EXC_ARP);
		else if (dpr_l2_control(m, mac))
			EXCEPT(b, m, DPR_EXC_L2_CONTROL);
		else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
			 eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_QINQ))
			/* What dpr_vlan_demux_burst() and the priority
			 * tags dpr_l3_screen_other() takes off leave, and
			 * 802.1ad tags on a port without QinQ interfaces. */
			DROP(b, m, DPR_DROP_UNKNOWN_VLAN);
		else
			DROP(b, m, DPR_DROP_UNSUPPORTED_L3);
		return false;
	}

	ip = (struct rte_ipv4_hdr *)(eth + 1);
	/* A port without RX checksum offload gives no verdict, whatever
	 * its ol_flags hold. */
	why = dpr_ip4_validate(ip, m->pkt_len - sizeof(*eth), m->data_len - sizeof(*eth),
			       w->ports[b->in].rx_ip_cksum ? m->ol_flags : 0);
	if (why != DPR_DROP_NONE) {
		DROP(b, m, why);
		return false;
	}
	addr = dpr_ip4_check_addrs(ip->src_addr, ip->dst_addr);
	/* A connected subnet's broadcast address names no one host: never a
	 * source to forward from, nor to answer (RFC 1812 5.3.7, 4.2.2.11). */
	if (addr == DPR_DROP_NONE || addr < 0) {
		if (dpr_fib4_lookup(b->fib4, rte_be_to_cpu_32(ip->src_addr)) == DPR_NH_BCAST)
			addr = DPR_DROP_MARTIAN;
	}
	if (addr != DPR_DROP_NONE) {
		if (addr < 0)
			EXCEPT(b, m, DPR_EXC_LOCAL);
		else
			DROP(b, m, (enum dpr_drop)addr);
		return false;
	}
	/* Drop link-layer padding (and anything past the IP packet) before
	 * anything else sees the packet: the slow path and the fragmenter
	 * work on the frame, which must be the packet (RFC 1812 5.2.2). */
	tlen = rte_be_to_cpu_16(ip->total_length);
	dpr_pktmbuf_cut(m, sizeof(*eth) + tlen);

	*dst = rte_be_to_cpu_32(ip->dst_addr);
	if (bcast) {
		/* Broadcast or multicast frames are never forwarded (RFC 1812
		 * 5.3.4), options or not: settle them here. */
		nh = dpr_fib4_lookup(b->fib4, *dst);
		dpr_ip4_act(w, b, m, nh, true, &(union dpr_nh_word){ .u64 = 0 });
		return false;
	}
	if ((ip->version_ihl & 0xf) != 5) {
		EXCEPT(b, m, DPR_EXC_IP_OPTIONS);
		return false;
	}
	return true;
}

bool
dpr_ip6_slow(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m)
{
	const struct rte_ether_addr *mac = &w->ports[b->in].mac;
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	enum dpr_ip6_addr_class sc, dc;
	union dpr_nh_word h;
	uint32_t plen, nh;
	enum dpr_drop why;
	bool bcast;

	if (unlikely(m->data_len < sizeof(*eth) + sizeof(*ip))) {
		DROP(b, m, DPR_DROP_RUNT);
		return false;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	bcast = !rte_is_unicast_ether_addr(&eth->dst_addr);
	if (!bcast && !rte_is_same_ether_addr(&eth->dst_addr, mac)) {
		DROP(b, m, DPR_DROP_OTHER_HOST);
		return false;
	}
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	why = dpr_ip6_validate(ip, m->pkt_len - sizeof(*eth), &sc, &dc);
	if (why != DPR_DROP_NONE) {
		DROP(b, m, why);
		return false;
	}
	plen = rte_be_to_cpu_16(ip->payload_len);
	dpr_pktmbuf_cut(m, sizeof(*eth) + sizeof(*ip) + plen);
	/* Multicast is for the control thread (NDP, MLD) and never
	 * forwarded: dpr does not route multicast. */
	if (dc == DPR_IP6_ADDR_MULTICAST) {
		EXCEPT(b, m, DPR_EXC_LOCAL);
		return false;
	}
	if (bcast || sc == DPR_IP6_ADDR_LINK_LOCAL || dc == DPR_IP6_ADDR_LINK_LOCAL) {
		nh = dpr_fib6_lookup(b->fib6, ip->dst_addr);
		nh_of_flow(w, m, nh, &h);
		/* Unicast to us in a broadcast frame, or to one of our
		 * link-local addresses: ours. The rest of link-layer
		 * broadcast is dropped (RFC 4443 2.4 e.3). */
		if (h.kind == DPR_NH_KIND_LOCAL) {
			EXCEPT(b, m, DPR_EXC_LOCAL);
		} else if (h.kind == DPR_NH_KIND_BLACKHOLE) {
			/* Discarded on purpose, silently, before any
			 * other rule (dpr_l3_decide()). */
			DROP(b, m, DPR_DROP_BLACKHOLE);
		} else if (bcast) {
			DROP(b, m, DPR_DROP_OTHER_HOST);
		} else if (dc == DPR_IP6_ADDR_LINK_LOCAL) {
			/* Someone else's link-local address: never
			 * forwarded off its link (RFC 4291 2.5.6). */
			DROP(b, m, DPR_DROP_MARTIAN);
		} else if ((h.kind == DPR_NH_KIND_FORWARD || h.kind == DPR_NH_KIND_UNRESOLVED) &&
			   h.port == b->in) {
			/* Back out of the link it came from: still in the
			 * source's zone (RFC 4007 9), forwarded; its
			 * hop-by-hop options read first, as below. */
			if (ip->proto == IPPROTO_HOPOPTS) {
				EXCEPT(b, m, DPR_EXC_IP_OPTIONS);
				return false;
			}
			return true;
		} else {
			/* A link-local source leaving its link: RFC 4007 9
			 * says drop, and answer "beyond scope". */
			EXCEPT(b, m, DPR_EXC_BEYOND_SCOPE);
		}
		return false;
	}
	/* RFC 8200 4: hop-by-hop options are the only extension header a
	 * router examines; the control thread does. The rest is forwarded
	 * untouched. */
	if (ip->proto == IPPROTO_HOPOPTS) {
		EXCEPT(b, m, DPR_EXC_IP_OPTIONS);
		return false;
	}
	return true;
}

void
dpr_tune_init(struct dpr_tune *t, bool pipelined)
{
	*t = (struct dpr_tune){ .pipelined = pipelined, .next_rx = DPR_TUNE_FIRST };
}

static uint64_t
tune_cpp100(uint64_t cycles, uint64_t pkts)
{
	return pkts != 0 ? (uint64_t)((unsigned __int128)cycles * 100 / pkts) : 0;
}

/* The way the probe just finished picks (see struct dpr_tune): pipelined
 * when the median over the pairs of windows of pipelined's cost over at
 * once's is below 1, at once when it is above, the way it ran when it is
 * 1. What it measured is kept for the operator. */
static bool
tune_verdict(struct dpr_tune *t)
{
	uint64_t pkts[2] = { 0, 0 }, cycles[2] = { 0, 0 };
	uint64_t ratio[DPR_TUNE_WINDOWS / 2], median;
	const unsigned int pairs = DPR_TUNE_WINDOWS / 2;
	unsigned int j, k, pipe_pairs = 0;
	uint32_t win_pipe = 0;
	bool pipe = t->settled_way;

	for (k = 0; k < DPR_TUNE_WINDOWS; k++) {
		bool way = dpr_tune_way(t->settled_way, k + 1);

		pkts[way] += t->win_pkts[k];
		cycles[way] += t->win_cycles[k];
		win_pipe |= (uint32_t)way << k;
		__atomic_store_n(&t->last_win_cpp100[k],
				 (uint32_t)RTE_MIN(tune_cpp100(t->win_cycles[k], t->win_pkts[k]),
						   UINT32_MAX), __ATOMIC_RELAXED);
	}
	/* Windows 2j and 2j + 1 ran one each way: their ratio, pipelined
	 * over at once, in units of 2^-16, sorted in (8 values). */
	for (j = 0; j < pairs; j++) {
		unsigned int p = dpr_tune_way(t->settled_way, 2 * j + 1) ? 2 * j : 2 * j + 1;
		unsigned __int128 num = (unsigned __int128)t->win_cycles[p] * t->win_pkts[p ^ 1];
		unsigned __int128 den = (unsigned __int128)t->win_cycles[p ^ 1] * t->win_pkts[p];
		uint64_t r = UINT64_MAX;

		if (den != 0)
			r = (uint64_t)RTE_MIN((num << 16) / den, (unsigned __int128)UINT64_MAX);

		pipe_pairs += num < den;
		for (k = j; k > 0 && ratio[k - 1] > r; k--)
			ratio[k] = ratio[k - 1];
		ratio[k] = r;
	}
	/* The mean of the middle two (pairs is even), without overflow. */
	median = ratio[pairs / 2 - 1] / 2 + ratio[pairs / 2] / 2 +
		(ratio[pairs / 2 - 1] & ratio[pairs / 2] & 1);
	if (median != UINT64_C(1) << 16)
		pipe = median < UINT64_C(1) << 16;
	__atomic_store_n(&t->last_cpp100[0], tune_cpp100(cycles[0], pkts[0]), __ATOMIC_RELAXED);
	__atomic_store_n(&t->last_cpp100[1], tune_cpp100(cycles[1], pkts[1]), __ATOMIC_RELAXED);
	__atomic_store_n(&t->last_pipe_pairs, pipe_pairs, __ATOMIC_RELAXED);
	__atomic_store_n(&t->last_median_ratio, median, __ATOMIC_RELAXED);
	__atomic_store_n(&t->last_win_pipe, win_pipe, __ATOMIC_RELAXED);
	return pipe;
}

bool
dpr_tune_step(struct dpr_tune *t, uint64_t rx, uint64_t cycles)
{
	if (t->window == 0) {
		/* Settled: a probe starts, in the way it runs now. */
		t->settled_way = t->pipelined;
		t->window = 1;
	} else {
		t->win_pkts[t->window - 1] = rx - t->mark_rx;
		t->win_cycles[t->window - 1] = cycles - t->mark_cycles;
		if (t->window < DPR_TUNE_WINDOWS) {
			t->window++;
			t->pipelined = dpr_tune_way(t->settled_way, t->window);
		} else {
			bool pipe = tune_verdict(t);

			t->changes += pipe != t->settled_way;
			t->pipelined = pipe;
			t->probes++;
			t->window = 0;
			t->mark_rx = rx;
			t->mark_cycles = cycles;
			t->next_rx = rx + DPR_TUNE_SETTLE;
			return t->pipelined;
		}
	}
	t->mark_rx = rx;
	t->mark_cycles = cycles;
	t->next_rx = rx + DPR_TUNE_WINDOW;
	return t->pipelined;
}
