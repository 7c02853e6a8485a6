/* SPDX-License-Identifier: BSD-3-Clause */
/* Devargs dpr adds to software PMDs for its queue layout
 * (lib/port/devargs.c): what is added, what is left alone, what is refused. */
#include <errno.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "port/port.h"
#include "test.h"

/* Fit @p device for @p workers; expect @p want_ret and, for 1, @p want. */
static void
fit(const char *device, uint16_t workers, int want_ret, const char *want)
{
	char out[512], added[256], err[512] = "";
	int ret = dpr_port_fit_devargs(device, workers, out, sizeof(out), added, sizeof(added),
				       err, sizeof(err));

	CHECK(ret == want_ret, "%s, %u workers: returned %d, want %d (%s)", device, workers, ret,
	      want_ret, err);
	if (ret == 1 && want_ret == 1)
		CHECK(strcmp(out, want) == 0, "%s, %u workers: got \"%s\", want \"%s\" (added %s)",
		      device, workers, out, want, added);
	if (ret < 0 && want_ret < 0 && want != NULL)
		CHECK(strstr(err, want) != NULL, "%s, %u workers: \"%s\" lacks \"%s\"", device,
		      workers, err, want);
}

static void
test_af_packet(void)
{
	char out[512], added[256], err[256];

	/* qpairs = workers + 1: one TX queue each and one for the control thread. */
	fit("net_af_packet0,iface=v0", 2, 1, "net_af_packet0,iface=v0,qpairs=3");
	fit("eth_af_packet_x,iface=v0,framecnt=4096", 1, 1,
	    "eth_af_packet_x,iface=v0,framecnt=4096,qpairs=2");
	fit("net_af_packet0", 1, 1, "net_af_packet0,qpairs=2"); /* the PMD wants iface= */
	CHECK_EQ(dpr_port_fit_devargs("net_af_packet0,iface=v0", 4, out, sizeof(out), added,
				      sizeof(added), err, sizeof(err)), 1);
	CHECK(strcmp(added, "qpairs=5") == 0, "added \"%s\"", added);
	/* The user's own value stands when it is enough. */
	fit("net_af_packet0,iface=v0,qpairs=3", 2, 0, NULL);
	fit("net_af_packet0,iface=v0,qpairs=4", 2, 0, NULL);
	/* Too few cannot work. */
	fit("net_af_packet0,iface=v0,qpairs=2", 2, -EINVAL, "set qpairs=3, or leave qpairs out");
	/* The PMD has at most 16. */
	fit("net_af_packet0,iface=v0", 16, -EINVAL, "at most 15 worker lcores");
	fit("net_af_packet0,iface=v0", 15, 1, "net_af_packet0,iface=v0,qpairs=16");
	/* Too long for the buffer. */
	CHECK_EQ(dpr_port_fit_devargs("net_af_packet0,iface=v0", 2, out, 24, added,
				      sizeof(added), err, sizeof(err)), -ENOSPC);
}

static void
test_pcap(void)
{
	/* TX streams to /dev/null repeat; a worker and the control thread each need one. */
	fit("net_pcap0,rx_pcap=a.pcap,tx_pcap=/dev/null", 1, 1,
	    "net_pcap0,rx_pcap=a.pcap,tx_pcap=/dev/null,tx_pcap=/dev/null");
	fit("net_pcap0,rx_pcap=a,rx_pcap=b,tx_pcap=/dev/null,tx_pcap=/dev/null,tx_pcap=/dev/null",
	    2, 0, NULL);
	fit("net_pcap0,rx_pcap=a,infinite_rx=1,tx_pcap=/dev/null,tx_pcap=/dev/null", 1, 0, NULL);
	/* No TX stream: the PMD's one dropping queue per RX stream is too few. */
	fit("net_pcap0,rx_pcap=a", 1, 1, "net_pcap0,rx_pcap=a,tx_pcap=/dev/null,tx_pcap=/dev/null");
	fit("eth_pcap1,rx_pcap=a,rx_pcap=b,rx_pcap=c", 2, 0, NULL);
	/* TX only: a dummy RX queue per TX stream. */
	fit("net_pcap0,tx_pcap=/dev/null", 1, 1, "net_pcap0,tx_pcap=/dev/null,tx_pcap=/dev/null");
	/* Interfaces: several handles send on one. */
	fit("net_pcap0,rx_iface_in=v0,tx_iface=v0", 2, -EINVAL, "one per worker");
	fit("net_pcap0,rx_iface_in=v0,rx_iface_in=v0,tx_iface=v0", 2, 1,
	    "net_pcap0,rx_iface_in=v0,rx_iface_in=v0,tx_iface=v0,tx_iface=v0,tx_iface=v0");
	fit("net_pcap0,rx_iface=v0,tx_iface=v1", 1, 1,
	    "net_pcap0,rx_iface=v0,tx_iface=v1,tx_iface=v1");
	/* iface= is one handle each way: split it for one worker. */
	fit("net_pcap0,iface=v0", 1, 1, "net_pcap0,rx_iface_in=v0,tx_iface=v0,tx_iface=v0");
	fit("net_pcap0,iface=v0", 2, -EINVAL, "run one worker");
	fit("net_pcap0,iface=v0,phy_mac=1", 1, -EINVAL, "leave phy_mac out");
	/* A file per TX queue: queues cannot share one. */
	fit("net_pcap0,rx_pcap=a,tx_pcap=out.pcap", 1, -EINVAL, "name 2 files");
	fit("net_pcap0,rx_pcap=a,tx_pcap=o1,tx_pcap=o2", 1, 0, NULL);
	/* RX streams cannot be repeated. */
	fit("net_pcap0,rx_pcap=a,tx_pcap=/dev/null", 2, -EINVAL, "give 2");
}

static void
test_others(void)
{
	fit("net_tap0,iface=dpr-p0", 4, 0, NULL);
	fit("net_null0,no-rx=1", 4, 0, NULL);
	fit("net_af_xdp0,iface=v0", 4, 0, NULL);
	fit("0000:03:00.0", 4, 0, NULL);
	fit("0000:81:00.4_1", 4, 0, NULL);
}

/*
 * A device EAL probed already (test_eal_init()'s --vdev net_null0, as EAL
 * probes every device bound to vfio-pci when not told which) that the
 * config gives arguments: dpr_port_probe() probes it again with them,
 * instead of taking EAL's and losing them without a word; the same
 * arguments, or none, keep EAL's.
 */
static void
test_probe_again(void)
{
	static const struct {
		const char *device, *want;
	} cases[] = {
		{ "net_null0", "" },                  /* no arguments: EAL's */
		{ "net_null0,size=128", "size=128" }, /* probed again with them */
		{ "net_null0,size=128", "size=128" }, /* the same: kept */
	};
	struct dpr_port_conf conf;
	struct dpr_port port;
	char err[512] = "";
	unsigned int i;

	if (test_eal_init("test_devargs") < 0) {
		CHECK(false, "cannot init EAL");
		return;
	}
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_eth_dev_info info;
		const struct rte_devargs *da;
		const char *args;

		memset(&conf, 0, sizeof(conf));
		snprintf(conf.name, sizeof(conf.name), "p0");
		snprintf(conf.device, sizeof(conf.device), "%s", cases[i].device);
		CHECK(dpr_port_probe(&port, &conf, 0, 1, err, sizeof(err)) == 0, "%s: %s",
		      cases[i].device, err);
		if (rte_eth_dev_info_get(port.port_id, &info) < 0 || info.device == NULL) {
			CHECK(false, "%s: no device info", cases[i].device);
			continue;
		}
		da = rte_dev_devargs(info.device);
		args = da != NULL && da->args != NULL ? da->args : "";
		CHECK(strcmp(args, cases[i].want) == 0, "%s: the device has arguments \"%s\", want \"%s\"",
		      cases[i].device, args, cases[i].want);
	}
	rte_eal_cleanup();
}

int
main(void)
{
	test_af_packet();
	test_pcap();
	test_others();
	test_probe_again();
	printf("test_devargs: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
