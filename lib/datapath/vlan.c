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
		ns = dpr_input_acl_urpf(w, vif, sub, ns);
		if (ns > 0)
			dpr_ip4_input_burst(w, vif, sub, ns);
	}
}

/*
 * dpr_vlan_demux_burst() with the port's map @p vlan_if as the caller read
 * it: read once a burst, as vlan.del may take it away (NULL) meanwhile.
 */
static uint16_t
vlan_demux(struct dpr_worker *w, uint16_t in, const uint8_t *vlan_if, struct rte_mbuf **pkts,
	   uint16_t n)
{
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
				m->hash.usr = DPR_DROP_UNKNOWN_VLAN; /* for a capture */
				dpr_drops_free(w, &m, 1, DPR_DROP_UNKNOWN_VLAN);
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

uint16_t
dpr_vlan_demux_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	const uint8_t *vlan_if = __atomic_load_n(&w->ports[in].vlan_if, __ATOMIC_ACQUIRE);

	/* The map went (vlan.del): every frame is the port's. */
	if (unlikely(vlan_if == NULL))
		return n;
	return vlan_demux(w, in, vlan_if, pkts, n);
}

/*
 * The VLAN interface (1 + its dpr port) whose tag the first of the frames
 * at @p pkts carries in its data, as its tag word (dpr_vlan_word(),
 * masked) into *@p word; 0: none (untagged, another form, or a VLAN id
 * with no interface).
 */
static __rte_always_inline uint8_t
vlan_first(const uint8_t *vlan_if, struct rte_mbuf *const *pkts, uint32_t *word)
{
	uint32_t v = dpr_vlan_word(rte_pktmbuf_mtod(pkts[0], const uint8_t *)) &
		DPR_VLAN_WORD_MASK;

	if ((v & rte_cpu_to_be_32(UINT32_C(0xffff0000))) != DPR_VLAN_WORD(0))
		return 0;
	*word = v;
	return vlan_if[dpr_vlan_word_vid(v)];
}

/*
 * The frames at the start of @p pkts that carry tag word @p word (masked)
 * in their data, the first one's (the common case on a trunk: a NIC's RX
 * queue hands out what came, and one VLAN's flows often come together),
 * found with one load and compare a frame, each untagged there and then
 * and marked as its interface's (@p mport, dpr_mbuf_port()). The first
 * frame of another VLAN, untagged, too short for a tag, or tagged by the
 * device (RTE_MBUF_F_RX_VLAN_STRIPPED, untagged data) ends the run.
 * @return how many frames it has.
 */
static __rte_always_inline uint16_t
vlan_untag_run(struct rte_mbuf *const *pkts, uint16_t n, uint32_t word, uint16_t mport)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		/* A frame too short for its tag is dpr_vlan_rx_tag()'s,
		 * untagged: the demultiplexer's. */
		if (unlikely((dpr_vlan_word(rte_pktmbuf_mtod(m, const uint8_t *)) &
			      DPR_VLAN_WORD_MASK) != word ||
			     m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr)))
			break;
		dpr_vlan_untag_data(m);
		m->port = mport;
	}
	return i;
}

/*
 * Forward, divert or drop the frames of VLAN interface @p in (one tag,
 * software tags on its input: no ACL or uRPF there) among the @p n (at
 * most DPR_BURST) its port received at @p pkts, at once, without taking
 * their tags off; the first is the interface's, and IPv6 if @p v6_first,
 * else IPv4 (vlan_stay_tagged()). The L3 stages read each frame 4 bytes
 * in, where its untagged form would start: the screens' head compares
 * cover the MAC's last 2 bytes and the tag (priority bits aside), the
 * MAC's first 4 bytes are compared on their own, the lengths with the
 * longer header; pass 3 writes MACs and tag in place for a VLAN interface
 * that takes them (DPR_OUT_PRETAG: no byte moved, no length changed), or
 * the MACs and the shorter frame for any other port. Wherever a packet
 * leaves the fast path (the reference, a diversion, a hairpin) it is
 * untagged first (dpr_vlan_untag_data()), so nothing past the fast path
 * sees a tag; in a burst led by IPv4, its IPv6 packets go that way, to
 * dpr_l3_screen_other(), as in an untagged one. Frames that are not the
 * interface's (another VLAN, untagged, too short for a tag) are left
 * out, in their order, for the port's demultiplexer. Never reports RCU
 * quiescence, as dpr_ip4_input_burst().
 * @return how many frames were not the interface's: at the start of
 *   @p pkts now.
 */
static __rte_always_inline uint16_t
vlan_tagged_burst(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n,
		  const bool v6_first)
{
	struct dpr_vlan_left left = { .pkts = pkts, .n = 0 };
	const bool hw = w->ports[in].rx_ip_cksum;
	struct dpr_ip4_pending p;

	RTE_ASSERT(n <= DPR_BURST);
	memcpy(p.pkts, pkts, n * sizeof(*pkts));
	dpr_burst_begin(w, &p.b, in);
	p.n = n;
	p.v6 = 0;
	p.v6_slow = 0;
	p.stage = DPR_PEND_SCREENED;
	p.v6_tagged = v6_first;
	if (v6_first) {
		uint64_t marks = hw ? dpr_ip6_screen_loop_(w, &p, n, true, true, &left) :
			dpr_ip6_screen_loop_(w, &p, n, false, true, &left);

		p.slow = (uint32_t)marks;
		p.gone = (uint32_t)(marks >> 32);
	} else {
		struct dpr_ip4_fast f = dpr_ip4_fast_init_tagged(w, &p.b, &left);

		if (hw)
			dpr_ip4_screen_loop(w, &f, &p, n, true, true);
		else
			dpr_ip4_screen_loop(w, &f, &p, n, false, true);
		p.slow = f.slow;
		p.gone = f.gone;
	}
	w->stats[in].rx += n - left.n;
	dpr_ip4_lookup_burst(&p);
	w->stats[in].forwarded += dpr_l3_pass3_tagged(w, &p, v6_first);
	dpr_burst_finish(w, &p.b);
	return left.n;
}

/* vlan_tagged_burst() led by IPv4; a copy of its own, out of line. */
static __rte_noinline uint16_t
vlan_tagged_burst4(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	return vlan_tagged_burst(w, in, pkts, n, false);
}

/* vlan_tagged_burst() led by IPv6. */
static __rte_noinline uint16_t
vlan_tagged_burst6(struct dpr_worker *w, uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	return vlan_tagged_burst(w, in, pkts, n, true);
}

/*
 * Whether the frames of VLAN interface @p vif (dpr port) of a burst led by
 * one of them may go through the L3 stages still tagged
 * (vlan_tagged_burst()): one tag, no input ACL, uRPF or IPv6 drop (which
 * read frames untagged), and the first frame IP, IPv6 into *@p v6 (the burst's
 * screen is that family's, as for an untagged burst).
 */
static __rte_always_inline bool
vlan_stay_tagged(const struct dpr_worker *w, uint16_t vif, const struct rte_mbuf *first,
		 bool *v6)
{
	const uint8_t *eth = rte_pktmbuf_mtod(first, const uint8_t *);
	uint16_t type;

	memcpy(&type, eth + RTE_ETHER_HDR_LEN + sizeof(uint16_t), sizeof(type));
	*v6 = type == RTE_BE16(RTE_ETHER_TYPE_IPV6);
	return (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) || *v6) && w->ports[vif].vlan_outer == 0 &&
		first->data_len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr) &&
		(__atomic_load_n(&w->ports[vif].in_stages, __ATOMIC_RELAXED) &
		 (DPR_IN_ACL | DPR_IN_URPF | DPR_IN_NO_IP6)) == 0;
}

uint16_t
dpr_vlan_input_burst(struct dpr_worker *w, uint16_t *in, struct rte_mbuf **pkts, uint16_t n)
{
	const uint8_t *vlan_if = __atomic_load_n(&w->ports[*in].vlan_if, __ATOMIC_ACQUIRE);
	uint16_t run = 0, k, vif = 0;
	uint32_t word = 0;
	bool v6;
	uint8_t v;

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
	/* A device that strips leaves a tag in the data only inside the one
	 * it took off (vlan_dp.h): such a port's tagged frames are the
	 * split's, frame by frame. */
	v = likely(!w->ports[*in].vlan_strip) ? vlan_first(vlan_if, pkts, &word) : 0;
	if (v != 0) {
		vif = (uint16_t)(v - 1);
		/* The first frame's interface takes its frames still tagged
		 * where it may; the others of the burst are split below. */
		if (likely(vlan_stay_tagged(w, vif, pkts[0], &v6))) {
			n = v6 ? vlan_tagged_burst6(w, vif, pkts, n) :
				vlan_tagged_burst4(w, vif, pkts, n);
			if (likely(n == 0))
				return 0;
			return vlan_demux(w, *in, vlan_if, pkts, n);
		}
		run = vlan_untag_run(pkts, n, word, dpr_mbuf_port(w->ports, vif));
	}
	/* A burst all of one VLAN interface goes on whole, as one received
	 * there, untagged: through the worker's pipeline, no split, no copy. */
	if (likely(run == n)) {
		*in = vif;
		return n;
	}
	/* Mixed: the run, untagged already, as a sub-burst of its interface
	 * (as dpr_vlan_demux_burst() forwards its own), then the rest split. */
	if (run > 0) {
		k = dpr_input_acl_urpf(w, vif, pkts, run);
		if (k > 0)
			dpr_ip4_input_burst(w, vif, pkts, k);
		n -= run;
		memmove(pkts, pkts + run, n * sizeof(*pkts));
	}
	return vlan_demux(w, *in, vlan_if, pkts, n);
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
