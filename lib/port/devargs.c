/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devargs for software PMDs that fix their queue counts when probed, from
 * their arguments rather than from rte_eth_dev_configure(): dpr adds what
 * its queue layout needs (one RX queue per worker; one TX queue per worker
 * and one for the control thread) instead of asking the user to.
 *
 * net_af_packet: qpairs=N opens N sockets, each one RX and one TX queue
 * (drivers/net/af_packet/rte_eth_af_packet.c, at most 16).
 * net_pcap: one RX queue per rx_pcap= (or, without rx_pcap, per rx_iface=
 * and rx_iface_in=), one TX queue per tx_pcap= (or, without, per
 * tx_iface=), a dropping TX queue per RX stream when there is neither, and
 * exactly one of each with iface= (drivers/net/pcap/pcap_ethdev.c,
 * pmd_pcap_probe). RX streams cannot be multiplied: every handle on one
 * interface or file sees every packet.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "port.h"

#define AF_PACKET_MAX_QPAIRS 16 /* RTE_PMD_AF_PACKET_MAX_RINGS, private to the PMD */

struct fit {
	char *out;
	size_t out_len;
	size_t used;
	char *added;
	size_t added_len;
	size_t added_used;
	unsigned int n_pairs;
};

static bool
driver_is(const char *device, const char *name)
{
	static const char *const prefixes[] = { "net_", "eth_" };
	size_t n = strlen(name);
	unsigned int i;

	/* The vdev bus matches a driver (or its eth_ alias) by name prefix. */
	for (i = 0; i < RTE_DIM(prefixes); i++)
		if (strncmp(device, prefixes[i], 4) == 0 && strncmp(device + 4, name, n) == 0)
			return true;
	return false;
}

/* Append ",KEY=VALUE" to the devargs and "KEY=VALUE" to the note of what
 * was added. */
static int
add_arg(struct fit *f, const char *key, const char *value)
{
	int n;

	n = snprintf(f->out + f->used, f->out_len - f->used, ",%s=%s", key, value);
	if (n < 0 || (size_t)n >= f->out_len - f->used)
		return -ENOSPC;
	f->used += (size_t)n;
	n = snprintf(f->added + f->added_used, f->added_len - f->added_used, "%s%s=%s",
		     f->added_used ? "," : "", key, value);
	if (n > 0 && (size_t)n < f->added_len - f->added_used)
		f->added_used += (size_t)n;
	f->n_pairs++;
	return 0;
}

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
fit_af_packet(struct rte_kvargs *kv, uint16_t n_workers, struct fit *f, char *err,
	      size_t err_len)
{
	unsigned int need = n_workers + 1u;
	const char *qp = rte_kvargs_get(kv, "qpairs");
	char num[16];
	char *end;
	long v;

	if (qp == NULL) {
		if (need > AF_PACKET_MAX_QPAIRS)
			return fail(err, err_len, "net_af_packet has at most %u queue pairs and dpr needs %u for %u workers (one per worker and one for the control thread): give EAL at most %u worker lcores",
				    AF_PACKET_MAX_QPAIRS, need, n_workers, AF_PACKET_MAX_QPAIRS - 1);
		snprintf(num, sizeof(num), "%u", need);
		return add_arg(f, "qpairs", num) < 0 ? -ENOSPC : 1;
	}
	errno = 0;
	v = strtol(qp, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1)
		return 0; /* the PMD says what is wrong with it */
	if ((unsigned long)v < need)
		return fail(err, err_len, "qpairs=%ld gives %ld queue pairs, dpr needs %u for %u workers (one per worker and one for the control thread): set qpairs=%u, or leave qpairs out and dpr sets it",
			    v, v, need, n_workers, need);
	return 0;
}

static unsigned int
count_value(struct rte_kvargs *kv, const char *key, const char *value)
{
	unsigned int i, n = 0;

	for (i = 0; i < kv->count; i++)
		if (strcmp(kv->pairs[i].key, key) == 0 && kv->pairs[i].value != NULL &&
		    strcmp(kv->pairs[i].value, value) == 0)
			n++;
	return n;
}

static const char *
last_value(struct rte_kvargs *kv, const char *key)
{
	const char *v = NULL;
	unsigned int i;

	for (i = 0; i < kv->count; i++)
		if (strcmp(kv->pairs[i].key, key) == 0)
			v = kv->pairs[i].value;
	return v;
}

/*
 * iface=IF is one handle for both directions: one RX and one TX queue. The
 * same with separate handles is rx_iface_in=IF (what arrives; a handle of
 * its own would also see what the TX handles send) and a tx_iface=IF per
 * TX queue.
 */
static int
fit_pcap_iface(struct rte_kvargs *kv, uint16_t n_workers, struct fit *f, char *err,
	       size_t err_len)
{
	const char *iface = rte_kvargs_get(kv, "iface");
	unsigned int i, need_tx = n_workers + 1u;
	char *comma;

	if (n_workers > 1)
		return fail(err, err_len, "net_pcap iface=%s gives one RX queue and dpr needs %u (one per worker): run one worker (EAL -l 0,1); each handle on an interface sees every packet, so dpr cannot open more",
			    iface, n_workers);
	if (rte_kvargs_count(kv, "phy_mac") > 0)
		return fail(err, err_len, "net_pcap iface=%s gives one TX queue and dpr needs %u, which takes rx_iface_in= and tx_iface= instead, where phy_mac does not apply: leave phy_mac out and set the port's \"mac\" in the config",
			    iface, need_tx);
	/* Rebuild: the driver name, every argument but iface=, then ours. */
	comma = strchr(f->out, ',');
	if (comma != NULL)
		*comma = '\0';
	f->used = strlen(f->out);
	for (i = 0; i < kv->count; i++) {
		const struct rte_kvargs_pair *a = &kv->pairs[i];
		int n;

		if (strcmp(a->key, "iface") == 0)
			continue;
		n = snprintf(f->out + f->used, f->out_len - f->used, ",%s%s%s", a->key,
			     a->value != NULL ? "=" : "", a->value != NULL ? a->value : "");
		if (n < 0 || (size_t)n >= f->out_len - f->used)
			return -ENOSPC;
		f->used += (size_t)n;
	}
	if (add_arg(f, "rx_iface_in", iface) < 0)
		return -ENOSPC;
	for (i = 0; i < need_tx; i++)
		if (add_arg(f, "tx_iface", iface) < 0)
			return -ENOSPC;
	snprintf(f->added + f->added_used, f->added_len - f->added_used, ", in place of iface=%s",
		 iface);
	return 1;
}

static int
fit_pcap(struct rte_kvargs *kv, uint16_t n_workers, struct fit *f, char *err, size_t err_len)
{
	unsigned int need_tx = n_workers + 1u, rx, tx, i;
	unsigned int rx_pcap = rte_kvargs_count(kv, "rx_pcap");
	unsigned int tx_pcap = rte_kvargs_count(kv, "tx_pcap");
	unsigned int tx_iface = rte_kvargs_count(kv, "tx_iface");
	const char *key, *value;
	int added = 0;

	if (rte_kvargs_count(kv, "iface") > 0)
		return fit_pcap_iface(kv, n_workers, f, err, err_len);
	rx = rx_pcap ? rx_pcap :
		       rte_kvargs_count(kv, "rx_iface") + rte_kvargs_count(kv, "rx_iface_in");
	tx = tx_pcap ? tx_pcap : tx_iface;
	if (rx == 0 && tx == 0)
		return 0; /* the PMD refuses it */
	if (rx != 0 && rx < n_workers)
		return fail(err, err_len, "net_pcap has one RX queue per rx_pcap=/rx_iface=/rx_iface_in= argument, here %u, and dpr needs %u (one per worker): give %u, or run fewer workers (each stream is read in full by its queue, so dpr cannot repeat one)",
			    rx, n_workers, n_workers);
	if (tx >= need_tx || (tx == 0 && rx >= need_tx))
		return 0;

	if (tx == 0) {
		/* No TX stream: the PMD drops on one TX queue per RX stream,
		 * too few; /dev/null dumpers drop as well. */
		key = "tx_pcap";
		value = "/dev/null";
	} else if (tx_pcap) {
		key = "tx_pcap";
		value = "/dev/null";
		if (count_value(kv, key, value) != tx_pcap)
			return fail(err, err_len, "net_pcap has one TX queue per tx_pcap= file, here %u, and dpr needs %u (one per worker and one for the control thread): name %u files (queues cannot share one)",
				    tx, need_tx, need_tx);
	} else {
		/* Several handles can send on one interface. */
		key = "tx_iface";
		value = last_value(kv, key);
		if (value == NULL)
			return 0;
	}
	for (i = tx; i < need_tx; i++) {
		if (kv->count + f->n_pairs >= RTE_KVARGS_MAX)
			return fail(err, err_len, "net_pcap: %u TX queues for %u workers need more than the %u arguments DPDK parses: run fewer workers",
				    need_tx, n_workers, RTE_KVARGS_MAX);
		if (add_arg(f, key, value) < 0)
			return -ENOSPC;
		added = 1;
	}
	return added;
}

int
dpr_port_fit_devargs(const char *device, uint16_t n_workers, char *out, size_t out_len,
		     char *added, size_t added_len, char *err, size_t err_len)
{
	struct fit f = {
		.out = out, .out_len = out_len, .added = added, .added_len = added_len,
	};
	const char *comma = strchr(device, ',');
	struct rte_kvargs *kv;
	bool af_packet = driver_is(device, "af_packet"), pcap = driver_is(device, "pcap");
	int ret;

	if (!af_packet && !pcap)
		return 0;
	kv = rte_kvargs_parse(comma != NULL ? comma + 1 : "", NULL);
	if (kv == NULL)
		return 0; /* not key=value pairs: the PMD says what is wrong */
	f.used = (size_t)snprintf(out, out_len, "%s", device);
	if (f.used >= out_len) {
		rte_kvargs_free(kv);
		return -ENOSPC;
	}
	if (added_len > 0)
		added[0] = '\0';
	ret = af_packet ? fit_af_packet(kv, n_workers, &f, err, err_len) :
			  fit_pcap(kv, n_workers, &f, err, err_len);
	if (ret == -ENOSPC)
		snprintf(err, err_len, "devargs too long once dpr adds %s", added);
	rte_kvargs_free(kv);
	return ret;
}

int
dpr_port_tap_iface(const char *device, char *out, size_t out_len)
{
	const char *comma = strchr(device, ','), *v;
	struct rte_kvargs *kv;
	int ret = 0;

	if (!driver_is(device, "tap") || comma == NULL)
		return 0;
	kv = rte_kvargs_parse(comma + 1, NULL);
	if (kv == NULL)
		return 0;
	v = last_value(kv, "iface");
	if (v != NULL && v[0] != '\0') {
		snprintf(out, out_len, "%s", v);
		ret = 1;
	}
	rte_kvargs_free(kv);
	return ret;
}

int
dpr_port_missing_iface(const char *device, char *out, size_t out_len)
{
	static const char *const keys[] = { "iface", "rx_iface", "rx_iface_in", "tx_iface" };
	const char *comma = strchr(device, ',');
	struct rte_kvargs *kv;
	unsigned int i, k;
	int ret = 0;

	if (comma == NULL ||
	    !(driver_is(device, "af_packet") || driver_is(device, "af_xdp") || driver_is(device, "pcap")))
		return 0;
	kv = rte_kvargs_parse(comma + 1, NULL);
	if (kv == NULL)
		return 0;
	for (i = 0; i < kv->count && ret == 0; i++)
		for (k = 0; k < RTE_DIM(keys); k++)
			if (strcmp(kv->pairs[i].key, keys[k]) == 0 && kv->pairs[i].value != NULL &&
			    if_nametoindex(kv->pairs[i].value) == 0) {
				snprintf(out, out_len, "%s=%s", keys[k], kv->pairs[i].value);
				ret = 1;
				break;
			}
	rte_kvargs_free(kv);
	return ret;
}
