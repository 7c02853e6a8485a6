/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "datapath.h"
#include "ip4_dp.h"
#include "qinq_dp.h"
#include "urpf_dp.h"
#include "vlan_dp.h"

/*
 * RX demultiplexing of a port with VLAN interfaces. A tagged frame whose
 * VLAN id names one of the port's VLAN interfaces is untagged and taken out
 * of the burst; those of each interface then go through the L3 stages at
 * once, as a burst received on that interface, and are counted there (rx
 * and what became of them). Everything else stays in the port's burst, in
 * order: untagged frames, priority-tagged ones (VLAN id 0, untagged by the
 * screen) and tags for no interface (dropped as unknown_vlan on the port).
 * A tag the PMD took off (vlan_tci) for no interface is put back in the
 * data, so that the screen sees it; a priority tag it took off is
 * forgotten (the frame is the port's). A port whose device strips tags
 * keeps its VLAN map, empty or not, for as long as it runs, so that
 * every burst of it comes here (lib/router/iface.c).
 *
 * The sub-bursts are finished here, before the port's own burst, and not
 * pipelined: they never report RCU quiescence (dpr_ip4_input_burst()), so
 * a burst of the port waiting with FIB entries is safe across them.
 */
void
dpr_vif_deliver(struct dpr_worker *w, struct rte_mbuf **tagged, uint8_t *to, uint16_t nt)
{
	uint16_t i;

	/* By interface, each in the order received (usually all one). */
	while (nt > 0) {
		struct rte_mbuf *sub[DPR_BURST];
		uint8_t vif = to[0];
		uint16_t ns = 0, left = 0;

		for (i = 0; i < nt; i++) {
			if (to[i] == vif) {
				sub[ns++] = tagged[i];
			} else {
				tagged[left] = tagged[i];
				to[left++] = to[i];
			}
		}
		nt = left;
		w->stats[vif].rx += ns;
		ns = dpr_acl_input(w, vif, sub, ns);
		ns = dpr_urpf_input(w, vif, sub, ns);
		if (ns > 0)
			dpr_ip4_input_burst(w, vif, sub, ns);
	}
}

uint16_t
dpr_vlan_demux_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	const uint8_t *vlan_if = w->ports[in].vlan_if;
	struct rte_mbuf *tagged[DPR_BURST];
	uint8_t to[DPR_BURST];
	uint16_t i, keep, nt = 0;

	/* Most bursts of most ports are all untagged: found out with a read
	 * of two fields a packet, nothing written. */
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];

		if (rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
		    RTE_BE16(RTE_ETHER_TYPE_VLAN) || (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED))
			break;
	}
	if (i == n)
		return n;
	for (keep = i; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum dpr_vlan_form form;
		uint16_t tci = 0;
		uint8_t v;

		form = dpr_vlan_rx_tag(m, &tci);
		v = form != DPR_VLAN_UNTAGGED ? vlan_if[DPR_VLAN_VID(tci)] : 0;
		if (v == 0) {
			/* A priority tag the device took off: the port's
			 * frame, untagged (802.1Q), and said so. */
			if (form == DPR_VLAN_IN_MBUF && DPR_VLAN_VID(tci) == 0)
				dpr_vlan_untag(m, form);
			else if (unlikely(form == DPR_VLAN_IN_MBUF && !dpr_vlan_push(m, tci))) {
				/* No room to put the tag back: untagged, the
				 * screen would take it for the port's own
				 * frame. It is for no VLAN interface. */
				w->stats[in].rx++;
				w->stats[in].drops[DPR_DROP_UNKNOWN_VLAN]++;
				rte_pktmbuf_free(m);
				continue;
			}
			pkts[keep++] = m;
			continue;
		}
		dpr_vlan_untag(m, form);
		tagged[nt] = m;
		to[nt++] = (uint8_t)(v - 1);
	}

	dpr_vif_deliver(w, tagged, to, nt);
	return keep;
}

/*
 * The frames of one VLAN interface of port @p in at the start of a burst,
 * their tags in the data (the common case on a trunk: a NIC's RX queue
 * hands out what came, and one VLAN's flows often come together): each
 * frame's tag word (dpr_vlan_word()) names the VLAN id of the first, which
 * has an interface (*@p vif: 1 + its dpr port). Found with one load and
 * compare a frame, each untagged there and then and marked as the
 * interface's (mbuf->port, dpr_mbuf_port()). A burst all of them goes on
 * whole, as one received there, through the worker's pipeline: no split,
 * no copy, no L3 stages of its own. The first frame of another VLAN,
 * untagged, too short for a tag, or tagged by the device
 * (RTE_MBUF_F_RX_VLAN_STRIPPED, untagged data) ends the run; it and the
 * rest are dpr_vlan_demux_burst()'s.
 * @return how many frames at the start of @p pkts are the interface's.
 */
static __rte_always_inline uint16_t
vlan_one_run(struct dpr_worker *w, const uint8_t *vlan_if, struct rte_mbuf **pkts, uint16_t n,
	     uint8_t *vif)
{
	const uint32_t mask = DPR_VLAN_WORD_MASK;
	uint32_t word = dpr_vlan_word(rte_pktmbuf_mtod(pkts[0], const uint8_t *)) & mask;
	uint16_t i, mport;
	uint8_t v;

	if ((word & rte_cpu_to_be_32(UINT32_C(0xffff0000))) != DPR_VLAN_WORD(0))
		return 0;
	v = vlan_if[dpr_vlan_word_vid(word)];
	if (v == 0)
		return 0;
	*vif = v;
	mport = dpr_mbuf_port(w->ports, (uint16_t)(v - 1));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		/* A frame too short for its tag is dpr_vlan_rx_tag()'s,
		 * untagged: the demultiplexer's. */
		if (unlikely((dpr_vlan_word(rte_pktmbuf_mtod(m, const uint8_t *)) & mask) != word ||
			     m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr)))
			break;
		dpr_vlan_untag_data(m);
		m->port = mport;
	}
	return i;
}

uint16_t
dpr_vlan_input_burst(struct dpr_worker *w, uint16_t *in, struct rte_mbuf **pkts, uint16_t n)
{
	const uint8_t *vlan_if = __atomic_load_n(&w->ports[*in].vlan_if, __ATOMIC_ACQUIRE);
	uint16_t run, k;
	uint8_t vif = 0;

	/* The map went (vlan.del) after the worker read in_stages; or a
	 * harness's empty burst. */
	if (unlikely(vlan_if == NULL || n == 0))
		return n;
	/* A port with QinQ interfaces has a VLAN map too: its double tags
	 * (and 802.1ad ones) go first. */
	if (unlikely(w->ports[*in].qinq != NULL)) {
		n = dpr_qinq_demux_burst(w, *in, pkts, n);
		if (n == 0)
			return 0;
	}
	run = vlan_one_run(w, vlan_if, pkts, n, &vif);
	if (likely(run == n)) {
		*in = (uint16_t)(vif - 1);
		return n;
	}
	/* Mixed: the run, untagged already, as a sub-burst of its interface
	 * (as dpr_vlan_demux_burst() forwards its own), then the rest split. */
	if (run > 0) {
		k = dpr_input_acl_urpf(w, (uint16_t)(vif - 1), pkts, run);
		if (k > 0)
			dpr_ip4_input_burst(w, (uint16_t)(vif - 1), pkts, k);
		n -= run;
		memmove(pkts, pkts + run, n * sizeof(*pkts));
	}
	return dpr_vlan_demux_burst(w, *in, pkts, n);
}

uint16_t
dpr_vif_tx_burst(const struct dpr_port_dp *pd, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	if (pd->vlan_outer != 0)
		return dpr_qinq_tx_burst(pd->port_id, queue, pd->vlan_tci, pd->vlan_outer, pkts, n);
	return dpr_vlan_tx_burst(pd->port_id, queue, pd->vlan_tci, pd->vlan_insert, pkts, n);
}

uint16_t
dpr_input_stages_burst(struct dpr_worker *w, uint16_t *in, struct rte_mbuf **pkts, uint16_t n)
{
	return dpr_input_stages(w, in, pkts, n, __atomic_load_n(&w->ports[*in].in_stages,
								  __ATOMIC_RELAXED));
}
