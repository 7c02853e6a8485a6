/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A traffic feed for scripts/bench.sh that costs the same in every regime:
 * the packets of a pcap file, replayed from one contiguous array, into an
 * application that does not know it is fed.
 *
 * net_pcap's infinite_rx keeps each packet of the file in an mbuf of its
 * own (2.4 KiB apart) and copies it out for every packet received: two
 * cache misses a packet once the file is larger than the cache. With the
 * 1M packets of the DRAM-bound regime those misses cost every application
 * more than its own route lookups do (testpmd io, which looks nothing up,
 * was only 1.4x the routers), so the regime measured the feed. Here each
 * packet takes a slot of 64 bytes (128 when a frame is longer) in one
 * array read front to back, which the hardware prefetchers stream from
 * DRAM ahead of the reads: the feed's cost no longer grows with the file.
 *
 * How: the application's RX port is a net_null device (it allocates mbufs
 * and sets their lengths, nothing else); this library, preloaded,
 * interposes rte_eth_dev_start() and, once that device has started, adds
 * an RX callback on each of its queues (rte_eth_add_rx_callback(), DPDK's
 * public API) that writes the next frames of the file into the mbufs
 * net_null returned. The callback runs inside rte_eth_rx_burst(), before
 * the application sees the packets. Each queue starts at its own offset in
 * the file. dpr, l3fwd and testpmd run unchanged.
 *
 *   LD_PRELOAD=libdpr-bench-feed.so DPR_FEED_PCAP=FILE \
 *   DPR_FEED_DEVICE=net_null_feed0 APP ... --vdev net_null_feed0 ...
 *
 * DPR_FEED_DEVICE: the ethdev name to feed (default net_null_feed0).
 * Errors (no file, unreadable pcap, frames over 128 bytes) end the
 * application at its first port start, with a message on stderr: a bench
 * must not measure zero-filled frames.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pcap/pcap.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#define SLOT_MAX 128
#define QUEUES_MAX 64
#define AHEAD 64 /* frames prefetched ahead of the one copied */

struct feed_queue {
	uint32_t pos;
} __attribute__((aligned(64)));

static struct {
	uint8_t *frames;   /**< n slots of slot bytes */
	uint16_t *lens;
	uint32_t n;
	uint32_t slot;
	struct feed_queue q[QUEUES_MAX];
	const struct rte_eth_rxtx_callback *cb[RTE_MAX_ETHPORTS][QUEUES_MAX];
} feed;

static void
fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "dpr-bench-feed: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

/* Each frame of @p path to @p frame (libpcap reads the file). */
static uint32_t
each_frame(const char *path, void (*frame)(uint32_t i, const uint8_t *data, uint32_t len))
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	uint32_t i = 0;
	int ret;

	if (p == NULL)
		fail("DPR_FEED_PCAP: %s", err);
	while ((ret = pcap_next_ex(p, &h, &data)) == 1)
		frame(i++, data, h->caplen);
	if (ret != PCAP_ERROR_BREAK)
		fail("DPR_FEED_PCAP: %s", pcap_geterr(p));
	pcap_close(p);
	return i;
}

static uint32_t maxlen;

static void
measure(uint32_t i, const uint8_t *data, uint32_t len)
{
	(void)i;
	(void)data;
	if (len > maxlen)
		maxlen = len;
}

static void
store(uint32_t i, const uint8_t *data, uint32_t len)
{
	if (i < feed.n) {
		memcpy(feed.frames + (size_t)i * feed.slot, data, len);
		feed.lens[i] = (uint16_t)len;
	}
}

/* The file's frames into feed.frames: one pass to count and size them, one to copy. */
static void
load(const char *path)
{
	uint32_t n = each_frame(path, measure);
	size_t bytes;

	if (n < AHEAD)
		fail("%s: fewer than 64 packets", path);
	if (maxlen > SLOT_MAX)
		fail("%s: a frame is longer than 128 bytes (the feed is for small frames)", path);
	feed.slot = maxlen <= 64 ? 64 : SLOT_MAX;
	bytes = (size_t)n * feed.slot;
	/* 2 MiB aligned, transparent huge pages: no page walk a few packets. */
	bytes = (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	feed.frames = aligned_alloc(2u << 20, bytes);
	feed.lens = calloc(n, sizeof(*feed.lens));
	if (feed.frames == NULL || feed.lens == NULL)
		fail("%s: out of memory", path);
	madvise(feed.frames, bytes, MADV_HUGEPAGE);
	memset(feed.frames, 0, bytes);
	feed.n = n;
	each_frame(path, store);
	fprintf(stderr, "dpr-bench-feed: %u frames from %s, %u-byte slots, %zu MiB\n", n, path,
		feed.slot, ((size_t)n * feed.slot) >> 20);
}

static uint16_t
feed_rx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t nb, uint16_t max,
	void *arg)
{
	struct feed_queue *q = arg;
	uint32_t pos = q->pos, slot = feed.slot;
	uint16_t i;

	(void)port;
	(void)queue;
	(void)max;
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *src = feed.frames + (size_t)pos * slot;
		uint32_t ahead = pos + AHEAD < feed.n ? pos + AHEAD : pos + AHEAD - feed.n;

		/* DRAM is ~300 ns away on these VMs: the stream prefetcher alone
		 * stalled this loop on each frame; two bursts ahead hides it. */
		rte_prefetch0(feed.frames + (size_t)ahead * slot);
		if (slot > 64)
			rte_prefetch0(feed.frames + (size_t)ahead * slot + 64);
		if ((ahead & 31) == 0)
			rte_prefetch0(&feed.lens[ahead]);

		if (slot == 64)
			rte_memcpy(rte_pktmbuf_mtod(m, void *), src, 64);
		else
			rte_memcpy(rte_pktmbuf_mtod(m, void *), src, SLOT_MAX);
		m->data_len = feed.lens[pos];
		m->pkt_len = feed.lens[pos];
		if (++pos == feed.n)
			pos = 0;
	}
	q->pos = pos;
	return nb;
}

static void
attach(uint16_t port)
{
	const char *want = getenv("DPR_FEED_DEVICE"), *path = getenv("DPR_FEED_PCAP");
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev_info info;
	uint16_t q, nq;

	if (want == NULL)
		want = "net_null_feed0";
	if (rte_eth_dev_get_name_by_port(port, name) != 0 || strcmp(name, want) != 0)
		return;
	if (path == NULL)
		fail("%s", "DPR_FEED_PCAP is not set");
	if (feed.frames == NULL)
		load(path);
	if (rte_eth_dev_info_get(port, &info) != 0)
		fail("cannot read the ports of %s", want);
	nq = info.nb_rx_queues;
	if (nq > QUEUES_MAX)
		fail("%s has more RX queues than 64", want);
	for (q = 0; q < nq; q++) {
		if (feed.cb[port][q] != NULL)
			continue;
		feed.q[q].pos = (uint32_t)((uint64_t)feed.n * q / nq);
		feed.cb[port][q] = rte_eth_add_rx_callback(port, q, feed_rx, &feed.q[q]);
		if (feed.cb[port][q] == NULL)
			fail("cannot add an RX callback on %s (DPDK built without RTE_ETHDEV_RXTX_CALLBACKS?)",
			     want);
	}
}

int
rte_eth_dev_start(uint16_t port_id)
{
	static int (*real)(uint16_t);
	int ret;

	if (real == NULL) {
		real = (int (*)(uint16_t))dlsym(RTLD_NEXT, "rte_eth_dev_start");
		if (real == NULL)
			fail("%s", "rte_eth_dev_start not found: preload this into a DPDK application");
	}
	ret = real(port_id);
	if (ret == 0)
		attach(port_id);
	return ret;
}
