/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * A trunk's traffic for the tests that check bursts kept tagged (vlan.c)
 * against the untagging path: test_ip4.c and test_ip6.c, whose rigs have
 * p0.100 (dpr port 2) and p0.200 (3) on p0.
 */
#include <inttypes.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "datapath/datapath.h"
#include "datapath/vlan_dp.h"
#include "test.h"

/*
 * Frame *@p m as trunk p0 delivers it, by random word @p r and @p t: mostly
 * tagged VLAN 100 (p0.100, some with priority bits, some with a priority
 * tag inside), else VLAN 200 (p0.200), VLAN 300 (no interface), a
 * priority tag, or untagged; one in 32 for a MAC that
 * differs from p0's in its first 4 bytes only. rte_vlan_insert() refuses
 * a chain whose first segment is a runt: such a frame comes untagged.
 * @return the interface it is for: 2 (p0.100), 3 (p0.200) or 0 (p0).
 */
static inline uint16_t
trunk_tag(struct rte_mbuf **m, uint64_t r, uint64_t t)
{
	if (r % 32 == 0 && (*m)->data_len >= RTE_ETHER_ADDR_LEN)
		rte_pktmbuf_mtod(*m, uint8_t *)[(r >> 8) % 4] ^= 0x10;
	t %= 20;
	if (t >= 18)
		return 0;
	/* A priority tag inside VLAN 100's: p0.100's frame, untagged twice. */
	if (t == 1) {
		(*m)->vlan_tci = 0x2000;
		if (rte_vlan_insert(m) != 0)
			return 0;
	}
	(*m)->vlan_tci = t == 0 ? 0xa064 : t < 14 ? 100 : t < 16 ? 200 : t < 17 ? 300 : 0;
	if (rte_vlan_insert(m) != 0)
		return 0;
	return t < 14 ? 2 : t < 16 ? 3 : 0;
}

/*
 * Whether @p m, in the TX buffer of dpr port @p p, carries that VLAN
 * interface's tag (pass 3 wrote it: dpr_txbuf.pretagged), which is then
 * taken off to compare it with the untagging path's frame.
 */
static inline int
trunk_untag_sent(const struct dpr_worker *w, uint16_t p, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_vlan_hdr *v = (const struct rte_vlan_hdr *)(eth + 1);

	/* The whole TCI: pass 3 writes no priority bits. */
	if (w->ports[p].vlan_tci == 0 || eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	    rte_be_to_cpu_16(v->vlan_tci) != w->ports[p].vlan_tci)
		return 0;
	dpr_vlan_untag_data(m);
	return 1;
}

/*
 * What the tagged run counted in @p got against what the untagging one
 * counted in @p want, on p0, p1, p0.100 and p0.200: rx, forwarded,
 * exceptions and every drop reason the same.
 */
static inline void
trunk_same_counters(const struct dpr_port_counters *got, const struct dpr_port_counters *want)
{
	unsigned int p, i;

	for (p = 0; p < 4; p++) {
		CHECK(got[p].rx == want[p].rx && got[p].forwarded == want[p].forwarded &&
		      got[p].exception == want[p].exception,
		      "port %u: rx %" PRIu64 "/%" PRIu64 ", forwarded %" PRIu64 "/%" PRIu64, p,
		      got[p].rx, want[p].rx, got[p].forwarded, want[p].forwarded);
		for (i = 0; i < DPR_DROP_MAX; i++)
			CHECK(got[p].drops[i] == want[p].drops[i],
			      "port %u drop %s: tagged %" PRIu64 ", untagged %" PRIu64, p,
			      dpr_drop_names[i], got[p].drops[i], want[p].drops[i]);
	}
}

/*
 * The end of a drain of dpr port @p p's TX buffer, @p tagged of whose
 * frames carried its tag (trunk_untag_sent()): pass 3 counted as many
 * (dpr_txbuf.pretagged); the buffer freed and emptied.
 */
static inline void
trunk_tx_done(struct dpr_worker *w, uint16_t p, unsigned int tagged)
{
	CHECK(w->tx[p].pretagged == tagged, "port %u: pretagged %u, %u frames tagged", p,
	      w->tx[p].pretagged, tagged);
	rte_pktmbuf_free_bulk(w->tx[p].pkts, w->tx[p].n);
	w->tx[p].n = 0;
	w->tx[p].pretagged = 0;
}
