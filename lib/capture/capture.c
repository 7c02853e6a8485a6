/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "../datapath/datapath.h"
#include "../router/router.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "capture.h"

/* The copies rte_pcapng_copy() makes: written at once, so a few suffice. */
#define COPY_POOL 127

struct dpr_capture {
	/* Control thread only. */
	bool running;
	char file[4096];
	int fd;
	rte_pcapng_t *out;
	struct rte_mempool *pool;    /**< copies, made at the first capture */
	struct dpr_capture_spec spec;
	uint64_t started_ns, stopped_ns, deadline_ns;
	uint64_t packets, bytes;     /**< written */
	uint64_t skipped;            /**< drops of another port, taken off the rings */
	uint64_t missed;             /**< matched but not written: no copy, file error */
	uint64_t ring_missed_base;   /**< workers' cap_missed at start */
	char stopped[128];           /**< why the last one stopped */
};

static struct dpr_capture *
get(struct dpr_router *r)
{
	if (r->capture == NULL)
		r->capture = calloc(1, sizeof(*r->capture));
	return r->capture;
}

/* --- workers ----------------------------------------------------------- */

void
dpr_capture_drops_bulk(struct dpr_worker *w, struct rte_mbuf **pkts, unsigned int n, uint32_t cap)
{
	struct rte_mbuf *keep[2 * DPR_BURST], *gone[2 * DPR_BURST];
	unsigned int i, k = 0, g = 0, q;

	for (i = 0; i < n; i++) {
		if (k < RTE_DIM(keep) && (cap & (1u << (pkts[i]->hash.usr & 31))))
			keep[k++] = pkts[i];
		else
			gone[g++] = pkts[i];
		if (g == RTE_DIM(gone)) {
			rte_pktmbuf_free_bulk(gone, g);
			g = 0;
		}
	}
	q = k > 0 ? rte_ring_sp_enqueue_burst(w->cap_ring, (void **)keep, k, NULL) : 0;
	if (q < k) {
		w->cap_missed += k - q;
		rte_pktmbuf_free_bulk(&keep[q], k - q);
	}
	if (g > 0)
		rte_pktmbuf_free_bulk(gone, g);
}

/* --- control thread ------------------------------------------------------ */

static void
set_workers(struct dpr_router *r, uint32_t drops)
{
	unsigned int w;

	for (w = 0; w < r->n_workers; w++)
		__atomic_store_n(&r->workers[w]->cap_drops, drops, __ATOMIC_RELAXED);
}

static uint64_t
ring_missed(const struct dpr_router *r)
{
	uint64_t n = 0;
	unsigned int w;

	for (w = 0; w < r->n_workers; w++)
		n += __atomic_load_n(&r->workers[w]->cap_missed, __ATOMIC_RELAXED);
	return n;
}

int
dpr_capture_start(struct dpr_router *r, const struct dpr_capture_spec *spec, char *err,
		  size_t err_len)
{
	struct dpr_capture *c = get(r);
	char comment[256];
	const char *cp;
	unsigned int w;
	int fd, ret;

	if (c == NULL) {
		snprintf(err, err_len, "capture: out of memory");
		return -ENOMEM;
	}
	if (c->running) {
		snprintf(err, err_len, "capture: one is running (to %s): stop it first", c->file);
		return -EBUSY;
	}
	if (spec->drops == 0 && spec->exceptions == 0) {
		snprintf(err, err_len, "capture: nothing to capture: name drop reasons or exception classes (or \"all\")");
		return -EINVAL;
	}
	if (spec->file == NULL || spec->file[0] != '/' || strlen(spec->file) >= sizeof(c->file)) {
		snprintf(err, err_len, "capture: file must be an absolute path (dpr writes it, from its own working directory)");
		return -EINVAL;
	}
	/* The name goes into the log, one line an event: a newline in it
	 * would forge a line of its own. */
	for (cp = spec->file; *cp != '\0'; cp++)
		if ((unsigned char)*cp < 0x20 || *cp == 0x7f) {
			snprintf(err, err_len, "capture: file: character %zu is a control character (0x%02x): give a name without",
				 (size_t)(cp - spec->file), (unsigned char)*cp);
			return -EINVAL;
		}
	if (spec->snaplen > DPR_CAPTURE_SNAPLEN_MAX) {
		snprintf(err, err_len, "capture: snaplen %u is more than %u", spec->snaplen,
			 DPR_CAPTURE_SNAPLEN_MAX);
		return -EINVAL;
	}
	for (w = 0; w < r->n_workers; w++)
		if (r->workers[w]->cap_ring == NULL) {
			snprintf(err, err_len, "capture: worker %u has no capture ring", w);
			return -ENODEV;
		}
	if (c->pool == NULL) {
		/* Room for a whole jumbo frame, the block around it and the comment. */
		c->pool = rte_pktmbuf_pool_create("dpr_capture", COPY_POOL, 0, 0,
			(uint16_t)(rte_pcapng_mbuf_size(DPR_CAPTURE_SNAPLEN_MAX) + 256),
			(int)rte_socket_id());
		if (c->pool == NULL) {
			snprintf(err, err_len, "capture: cannot make the copy pool: %s",
				 rte_strerror(rte_errno));
			return -rte_errno;
		}
	}

	/* Never an existing file, nor through a link: dpr runs as root. */
	fd = open(spec->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_len, "capture: cannot create %s: %s", spec->file, strerror(errno));
		return ret;
	}
	snprintf(comment, sizeof(comment), "dpr capture: drops 0x%" PRIx32 ", exceptions 0x%" PRIx32,
		 spec->drops, spec->exceptions);
	c->out = rte_pcapng_fdopen(fd, NULL, NULL, "dpr", comment);
	if (c->out == NULL) {
		ret = -rte_errno;
		snprintf(err, err_len, "capture: cannot write pcapng to %s: %s", spec->file,
			 rte_strerror(rte_errno));
		close(fd);
		unlink(spec->file);
		return ret;
	}
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	/* From 23.11 the file names only the interfaces it is given. */
	for (w = 0; w < r->cfg->n_phys; w++)
		rte_pcapng_add_interface(c->out, r->ports[w].port_id, r->port_names[w],
					 r->ports[w].conf->device, NULL);
#endif
	c->fd = fd;
	snprintf(c->file, sizeof(c->file), "%s", spec->file);
	c->spec = *spec;
	c->spec.file = c->file;
	if (c->spec.max_packets == 0)
		c->spec.max_packets = DPR_CAPTURE_PACKETS;
	if (c->spec.max_bytes == 0)
		c->spec.max_bytes = DPR_CAPTURE_BYTES;
	if (c->spec.snaplen == 0)
		c->spec.snaplen = DPR_CAPTURE_SNAPLEN;
	c->packets = c->bytes = c->skipped = c->missed = 0;
	c->ring_missed_base = ring_missed(r);
	c->started_ns = dpr_clock_now();
	c->deadline_ns = spec->seconds != 0 ? c->started_ns + spec->seconds * DPR_CLOCK_HZ : 0;
	c->stopped[0] = '\0';
	c->running = true;
	set_workers(r, c->spec.drops);
	DPR_LOG(INFO, main, "capture to %s: drops 0x%" PRIx32 ", exceptions 0x%" PRIx32 ", up to %" PRIu64 " packets, %" PRIu64 " bytes",
		c->file, c->spec.drops, c->spec.exceptions, c->spec.max_packets, c->spec.max_bytes);
	return 0;
}

void
dpr_capture_stop(struct dpr_router *r, const char *why)
{
	struct dpr_capture *c = r->capture;

	if (c == NULL || !c->running)
		return;
	set_workers(r, 0);
	c->running = false;
	c->stopped_ns = dpr_clock_now();
	/* Drops already on the rings: freed at the next poll, uncounted. */
	rte_pcapng_close(c->out); /* closes the fd */
	c->out = NULL;
	c->fd = -1;
	snprintf(c->stopped, sizeof(c->stopped), "%s", why);
	DPR_LOG(INFO, main, "capture to %s stopped (%s): %" PRIu64 " packets, %" PRIu64 " bytes",
		c->file, why, c->packets, c->bytes);
}

/* The EPB rte_pcapng_copy() builds (pcapng 4.3), to add a comment to in 22.11. */
struct epb_head {
	uint32_t block_type;
	uint32_t block_length;
	uint32_t interface_id;
	uint32_t timestamp_hi;
	uint32_t timestamp_lo;
	uint32_t capture_length;
	uint32_t original_length;
};

#if RTE_VERSION < RTE_VERSION_NUM(23, 11, 0, 0)
/*
 * 22.11's rte_pcapng_copy() takes no comment: its block ends in options
 * (flags, queue) and the trailing block length. Put opt_comment (code 1)
 * and opt_endofopt before that length, which grows to match (pcapng 3.5).
 * The copy is one segment (the pool's room holds the largest snap length).
 */
static int
add_comment(struct rte_mbuf *mc, const char *text)
{
	uint16_t len = (uint16_t)strlen(text), pad = (uint16_t)RTE_ALIGN(len, 4);
	uint16_t hdr[2] = { 1, len };
	struct epb_head *epb = rte_pktmbuf_mtod(mc, struct epb_head *);
	uint8_t *p;
	uint32_t blen;

	if (mc->nb_segs != 1 || rte_pktmbuf_trim(mc, sizeof(uint32_t)) < 0)
		return -1;
	p = (uint8_t *)rte_pktmbuf_append(mc, (uint16_t)(4 + pad + 4 + 4));
	if (p == NULL)
		return -1;
	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + 4, text, len);
	memset(p + 4 + len, 0, (size_t)(pad - len) + 4); /* padding, opt_endofopt */
	blen = rte_pktmbuf_data_len(mc);
	memcpy(p + 4 + pad + 4, &blen, sizeof(blen));
	epb->block_length = blen;
	return 0;
}
#endif

void
dpr_capture_clock_init(void)
{
#if RTE_VERSION < RTE_VERSION_NUM(23, 11, 0, 0)
	struct rte_mempool *mp;
	struct rte_mbuf *m, *mc;

	/* One copy of a small frame, stamped 10 ms ahead: the library's
	 * clock is read in the call, before that TSC, so the stamp falls
	 * after it and leaves it where it was read. */
	mp = rte_pktmbuf_pool_create("dpr_pcapng_clock", 2, 0, 0,
				     (uint16_t)(rte_pcapng_mbuf_size(64) + RTE_PKTMBUF_HEADROOM),
				     (int)rte_socket_id());
	if (mp == NULL) {
		DPR_LOG(WARNING, main, "capture clock: no pool (%s): the first capture's times may be wrong",
			rte_strerror(rte_errno));
		return;
	}
	m = rte_pktmbuf_alloc(mp);
	if (m != NULL && rte_pktmbuf_append(m, 64) != NULL) {
		memset(rte_pktmbuf_mtod(m, void *), 0, 64);
		mc = rte_pcapng_copy(0, 0, m, mp, 64, rte_get_tsc_cycles() + rte_get_tsc_hz() / 100,
				     RTE_PCAPNG_DIRECTION_IN);
		rte_pktmbuf_free(mc);
	}
	rte_pktmbuf_free(m);
	rte_mempool_free(mp);
#endif
}

#if RTE_VERSION < RTE_VERSION_NUM(23, 11, 0, 0)
/* Now on the wall clock, in ns: pcapng's time (if_tsresol 9). */
static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * DPR_CLOCK_HZ + (uint64_t)ts.tv_nsec;
}
#endif

/* Write @p m, which came in on dpr port @p port, with comment @p what. */
static void
write_one(struct dpr_router *r, struct dpr_capture *c, const struct rte_mbuf *m,
	  unsigned int port, const char *what)
{
	char text[96];
	struct rte_mbuf *mc;
	ssize_t n;

	/* A VLAN interface's packets are its port's DPDK port's in the file;
	 * the comment names the interface. */
	uint16_t pid = port < r->n_ports ? r->ports[port].port_id : m->port;

	snprintf(text, sizeof(text), "%s on %s", what,
		 port < r->n_ports ? r->port_names[port] : "?");
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	mc = rte_pcapng_copy(pid, 0, m, c->pool, c->spec.snaplen, RTE_PCAPNG_DIRECTION_IN,
			     text);
#else
	mc = rte_pcapng_copy(pid, 0, m, c->pool, c->spec.snaplen, rte_get_tsc_cycles(),
			     RTE_PCAPNG_DIRECTION_IN);
	if (mc != NULL && add_comment(mc, text) < 0) {
		rte_pktmbuf_free(mc);
		mc = NULL;
	}
	if (mc != NULL) {
		/* The wall clock's own time, not the library's from the TSC:
		 * workers copying for dpdk-dumpcap move that clock too, and a
		 * copy whose TSC it has passed gets a time centuries off. */
		struct epb_head *epb = rte_pktmbuf_mtod(mc, struct epb_head *);
		uint64_t ns = wall_ns();

		epb->timestamp_hi = (uint32_t)(ns >> 32);
		epb->timestamp_lo = (uint32_t)ns;
	}
#endif
	if (mc == NULL) {
		c->missed++;
		return;
	}
	n = rte_pcapng_write_packets(c->out, &mc, 1);
	rte_pktmbuf_free(mc);
	if (n < 0) {
		c->missed++;
		dpr_capture_stop(r, "write error");
		DPR_LOG(ERR, main, "capture to %s: %s", c->file, rte_strerror(rte_errno));
		return;
	}
	c->packets++;
	c->bytes += (uint64_t)n;
	if (c->packets >= c->spec.max_packets)
		dpr_capture_stop(r, "packet limit");
	else if (c->bytes >= c->spec.max_bytes)
		dpr_capture_stop(r, "size limit");
}

/* dpr's index of mbuf->port @p pid (dpr_mbuf_port()), or r->n_ports. */
static unsigned int
port_index(const struct dpr_router *r, uint16_t pid)
{
	unsigned int p;

	if (pid >= RTE_MAX_ETHPORTS)
		return RTE_MIN((unsigned int)(pid - RTE_MAX_ETHPORTS), r->n_ports);

	for (p = 0; p < r->n_ports; p++)
		if (r->ports[p].port_id == pid)
			return p;
	return r->n_ports;
}

static bool
port_wanted(const struct dpr_capture *c, unsigned int port)
{
	return c->spec.ports == 0 || (port < 64 && (c->spec.ports & (UINT64_C(1) << port)));
}

void
dpr_capture_exception(struct dpr_router *r, const struct rte_mbuf *m, unsigned int cls,
		      unsigned int port)
{
	struct dpr_capture *c = r->capture;
	char what[64];

	if (c == NULL || !c->running || cls >= DPR_EXC_MAX ||
	    !(c->spec.exceptions & (1u << cls)) || !port_wanted(c, port))
		return;
	snprintf(what, sizeof(what), "exception %s", dpr_exc_names[cls]);
	write_one(r, c, m, port, what);
}

void
dpr_capture_drop(struct dpr_router *r, const struct rte_mbuf *m, unsigned int why,
		 unsigned int port)
{
	struct dpr_capture *c = r->capture;
	char what[64];

	if (c == NULL || !c->running || why >= DPR_DROP_MAX || !(c->spec.drops & (1u << why)) ||
	    !port_wanted(c, port))
		return;
	snprintf(what, sizeof(what), "drop %s", dpr_drop_names[why]);
	write_one(r, c, m, port, what);
}

unsigned int
dpr_capture_poll(struct dpr_router *r)
{
	struct dpr_capture *c = r->capture;
	struct rte_mbuf *pkts[32];
	unsigned int w, i, n, total = 0;

	if (c == NULL)
		return 0;
	for (w = 0; w < r->n_workers; w++) {
		if (r->workers[w]->cap_ring == NULL)
			continue;
		n = rte_ring_sc_dequeue_burst(r->workers[w]->cap_ring, (void **)pkts,
					      RTE_DIM(pkts), NULL);
		for (i = 0; i < n; i++) {
			uint32_t why = pkts[i]->hash.usr & 31;
			unsigned int port = port_index(r, pkts[i]->port);
			char what[64];

			if (!c->running || !port_wanted(c, port) || why >= DPR_DROP_MAX) {
				c->skipped++;
			} else {
				snprintf(what, sizeof(what), "drop %s", dpr_drop_names[why]);
				write_one(r, c, pkts[i], port, what);
			}
			rte_pktmbuf_free(pkts[i]);
		}
		total += n;
	}
	if (c->running && c->deadline_ns != 0 && dpr_clock_now() >= c->deadline_ns)
		dpr_capture_stop(r, "time limit");
	return total;
}

void
dpr_capture_iface_gone(struct dpr_router *r, unsigned int p)
{
	struct dpr_capture *c = r->capture;
	char why[128];

	if (c == NULL || p >= 64 || !(c->spec.ports & (UINT64_C(1) << p)))
		return;
	/* Also when stopped: capture.get names the ports it had. */
	c->spec.ports &= ~(UINT64_C(1) << p);
	if (c->running && c->spec.ports == 0) {
		/* Not 0 = every port: the filter named only this one. */
		snprintf(why, sizeof(why), "its interface %s was deleted",
			 r->port_names[p] != NULL ? r->port_names[p] : "?");
		dpr_capture_stop(r, why);
	}
}

static json_t *
bits_json(uint32_t bits, const char *const *names, unsigned int n, unsigned int first)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = first; i < n; i++)
		if (bits & (1u << i))
			json_array_append_new(a, json_string(names[i]));
	return a;
}

json_t *
dpr_capture_json(const struct dpr_router *r)
{
	const struct dpr_capture *c = r->capture;
	json_t *o, *ports;
	unsigned int p;

	if (c == NULL || (c->file[0] == '\0'))
		return json_pack("{s:b}", "running", false);
	ports = json_array();
	for (p = 0; p < r->n_ports; p++)
		if (c->spec.ports & (UINT64_C(1) << p))
			json_array_append_new(ports, json_string(r->port_names[p]));
	o = json_pack("{s:b,s:s,s:o,s:o,s:o,s:I,s:I,s:i,s:I,s:I,s:I,s:f}",
		"running", c->running, "file", c->file,
		"ports", ports,
		"drops", bits_json(c->spec.drops, dpr_drop_names, DPR_DROP_MAX, 1),
		"exceptions", bits_json(c->spec.exceptions, dpr_exc_names, DPR_EXC_MAX, 0),
		"max_packets", (json_int_t)c->spec.max_packets,
		"max_bytes", (json_int_t)c->spec.max_bytes, "snaplen", (int)c->spec.snaplen,
		"packets", (json_int_t)c->packets, "bytes", (json_int_t)c->bytes,
		"missed", (json_int_t)(c->missed + ring_missed(r) - c->ring_missed_base),
		"seconds", (double)((c->running ? dpr_clock_now() : c->stopped_ns) - c->started_ns) /
			   (double)DPR_CLOCK_HZ);
	if (!c->running)
		json_object_set_new(o, "stopped", json_string(c->stopped));
	return o;
}

void
dpr_capture_free(struct dpr_router *r)
{
	struct dpr_capture *c = r->capture;

	if (c == NULL)
		return;
	dpr_capture_stop(r, "dpr stopping");
	dpr_capture_poll(r); /* free what is left on the rings */
	rte_mempool_free(c->pool);
	free(c);
	r->capture = NULL;
}
