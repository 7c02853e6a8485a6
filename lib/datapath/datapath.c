/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "datapath.h"
#include "ip4_dp.h"

const char *const dpr_drop_names[DPR_DROP_MAX] = {
	[DPR_DROP_NONE] = "none",
	[DPR_DROP_RUNT] = "runt",
	[DPR_DROP_OTHER_HOST] = "other_host",
	[DPR_DROP_UNSUPPORTED_L3] = "unsupported_l3",
	[DPR_DROP_BAD_HEADER] = "bad_header",
	[DPR_DROP_BAD_LENGTH] = "bad_length",
	[DPR_DROP_BAD_CHECKSUM] = "bad_checksum",
	[DPR_DROP_MARTIAN] = "martian",
	[DPR_DROP_BLACKHOLE] = "blackhole",
	[DPR_DROP_EXCEPTION_FULL] = "exception_full",
	[DPR_DROP_TX_FULL] = "tx_full",
};

const char *const dpr_exc_names[DPR_EXC_MAX] = {
	[DPR_EXC_ARP] = "arp",
	[DPR_EXC_LOCAL] = "local",
	[DPR_EXC_IP_OPTIONS] = "ip_options",
	[DPR_EXC_TTL_EXPIRED] = "ttl_expired",
	[DPR_EXC_NO_ROUTE] = "no_route",
	[DPR_EXC_UNRESOLVED] = "unresolved",
	[DPR_EXC_MTU_EXCEEDED] = "mtu_exceeded",
};

const uint8_t dpr_ip4_special_octet[256] = {
	[0] = 1, [127] = 1, [224 ... 255] = 1,
};

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

	memcpy(&w->head_mask, mask, sizeof(mask));
	for (p = 0; p < w->n_ports; p++) {
		uint8_t b[16] = { 0 };

		memcpy(b, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
		b[12] = RTE_ETHER_TYPE_IPV4 >> 8;
		b[13] = RTE_ETHER_TYPE_IPV4 & 0xff;
		b[14] = 0x45;
		memcpy(&w->head[p], b, sizeof(b));
		memcpy(b + RTE_ETHER_ADDR_LEN, &w->ports[p].mac, RTE_ETHER_ADDR_LEN);
		b[12] = RTE_ETHER_TYPE_IPV4 >> 8;
		memcpy(&w->src_mac_type[p], b + RTE_ETHER_ADDR_LEN, sizeof(uint64_t));
		min_mtu = RTE_MIN(min_mtu, (uint32_t)w->ports[p].mtu);
	}
	w->fast_max_len = min_mtu + RTE_ETHER_HDR_LEN;
}

#define DROP(b, m, why) do { \
		w->stats[(b)->in].drops[why]++; \
		(b)->drop[(b)->n_drop++] = (m); \
	} while (0)
/* Counted now, while the mbuf is ours: once on the ring the control
 * thread may free it (dpr_burst_finish() takes back what the ring refused). */
#define EXCEPT(b, m, cls) do { \
		w->stats[(b)->in].exc[cls]++; \
		w->stats[(b)->in].exception++; \
		(m)->hash.usr = DPR_EXC_META(cls, (b)->in); \
		(b)->exc[(b)->n_exc++] = (m); \
	} while (0)
#define EXCEPT_ARG(b, m, cls, arg) do { \
		DPR_EXC_ARG(m) = (arg); \
		EXCEPT(b, m, cls); \
	} while (0)

bool
dpr_ip4_act(struct dpr_worker *w, struct dpr_burst *b, struct rte_mbuf *m, uint32_t nh,
	    bool l2_bcast, union dpr_nh_word *out)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
							  RTE_ETHER_HDR_LEN);
	union dpr_nh_word h;

	h.u64 = __atomic_load_n(&w->nh[nh].u64, __ATOMIC_RELAXED);
	switch (dpr_ip4_decide(h, ip, l2_bcast, w->ports)) {
	case DPR_IP4_FORWARD:
		*out = h;
		return true;
	case DPR_IP4_LOCAL:
		EXCEPT(b, m, DPR_EXC_LOCAL);
		break;
	case DPR_IP4_UNRESOLVED:
		EXCEPT_ARG(b, m, DPR_EXC_UNRESOLVED, nh);
		break;
	case DPR_IP4_BLACKHOLE:
		DROP(b, m, DPR_DROP_BLACKHOLE);
		break;
	case DPR_IP4_NO_ROUTE:
		EXCEPT(b, m, DPR_EXC_NO_ROUTE);
		break;
	case DPR_IP4_TTL_EXPIRED:
		EXCEPT(b, m, DPR_EXC_TTL_EXPIRED);
		break;
	case DPR_IP4_TOO_BIG:
		EXCEPT_ARG(b, m, DPR_EXC_MTU_EXCEEDED, h.port);
		break;
	case DPR_IP4_L2_BCAST:
		DROP(b, m, DPR_DROP_OTHER_HOST);
		break;
	}
	return false;
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
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	bcast = !rte_is_unicast_ether_addr(&eth->dst_addr);
	if (!bcast && !rte_is_same_ether_addr(&eth->dst_addr, mac)) {
		DROP(b, m, DPR_DROP_OTHER_HOST);
		return false;
	}
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
			EXCEPT(b, m, DPR_EXC_ARP);
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
		if (dpr_fib4_lookup(w->fib, rte_be_to_cpu_32(ip->src_addr)) == DPR_NH_BCAST)
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
		nh = dpr_fib4_lookup(w->fib, *dst);
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
dpr_tune_step(struct dpr_tune *t, uint64_t rx, uint64_t cycles)
{
	if (t->window == 0) {
		/* Settled: a probe starts, in the way it runs now. */
		t->pkts[0] = t->pkts[1] = 0;
		t->cycles[0] = t->cycles[1] = 0;
		t->settled_way = t->pipelined;
		t->window = 1;
	} else {
		t->pkts[t->pipelined] += rx - t->mark_rx;
		t->cycles[t->pipelined] += cycles - t->mark_cycles;
		if (t->window < DPR_TUNE_WINDOWS) {
			t->window++;
			t->pipelined = !t->pipelined;
		} else {
			bool pipe = t->settled_way;

			/* cycles[1] / pkts[1] < cycles[0] / pkts[0], without
			 * a division (128-bit products cannot overflow). */
			if (t->pkts[0] != 0 && t->pkts[1] != 0)
				pipe = (unsigned __int128)t->cycles[1] * t->pkts[0] <
					(unsigned __int128)t->cycles[0] * t->pkts[1];

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
