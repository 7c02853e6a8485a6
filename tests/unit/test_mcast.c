/* SPDX-License-Identifier: BSD-3-Clause */
/* The multicast groups a port's device lets in (lib/port/mcast.c): the
 * fixed ones, each IPv6 address's solicited-node group, and what the host
 * stack joined on the TAPs, sorted and each once. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "datapath/datapath.h"
#include "port/mcast.h"
#include "util/addr.h"

static struct rte_ether_addr
mac(const char *s)
{
	struct rte_ether_addr m;

	CHECK_EQ(rte_ether_unformat_addr(s, &m), 0);
	return m;
}

static bool
has(const struct rte_ether_addr *g, int n, const char *s)
{
	struct rte_ether_addr m = mac(s);
	int k;

	for (k = 0; k < n; k++)
		if (rte_is_same_ether_addr(&g[k], &m))
			return true;
	return false;
}

/* Sorted (memcmp), no group twice: what dpr_port_mcast_set() compares. */
static void
check_sorted(const struct rte_ether_addr *g, int n)
{
	int k;

	for (k = 1; k < n; k++)
		CHECK(memcmp(&g[k - 1], &g[k], sizeof(g[k])) < 0, "groups %d and %d out of order or twice",
		      k - 1, k);
}

static const char *const fixed[] = {
	"01:00:5E:00:00:01", "01:00:5E:00:00:02", "33:33:00:00:00:01", "33:33:00:00:00:02",
};

static void
test_fixed(void)
{
	struct rte_ether_addr g[DPR_MCAST_MAX_GROUPS];
	int n = dpr_mcast_groups(NULL, 0, NULL, 0, g, RTE_DIM(g));
	unsigned int k;

	/* LLDP's and IS-IS's seven, IPv4 and IPv6 all-systems and all-routers. */
	CHECK_EQ(n, DPR_L2_CONTROL_GROUPS + 4);
	for (k = 0; k < DPR_L2_CONTROL_GROUPS; k++) {
		int i;
		bool found = false;

		for (i = 0; i < n; i++)
			found |= rte_is_same_ether_addr(&g[i], &dpr_l2_control_groups[k]);
		CHECK(found, "L2 control group %u missing", k);
	}
	for (k = 0; k < RTE_DIM(fixed); k++)
		CHECK(has(g, n, fixed[k]), "%s missing", fixed[k]);
	check_sorted(g, n);
}

static void
test_addresses(void)
{
	/* A port's global and link-local addresses, its VLAN interface's
	 * (the same link-local one, its MAC being the port's), an IPv4 one
	 * and a second global one with the same last 24 bits. */
	static const char *const addrs[] = {
		"2001:db8:1::1/64", "fe80::211:22ff:fe33:4455/64", "192.0.2.1/24",
		"2001:db8:10::abcd:ef12/64", "fe80::211:22ff:fe33:4455/64", "2001:db8:2::1/64",
	};
	struct dpr_prefix a[RTE_DIM(addrs)];
	struct rte_ether_addr g[DPR_MCAST_MAX_GROUPS];
	unsigned int k;
	int n;

	for (k = 0; k < RTE_DIM(addrs); k++)
		CHECK_EQ(dpr_prefix_parse(addrs[k], true, &a[k], NULL, 0), 0);
	n = dpr_mcast_groups(a, RTE_DIM(a), NULL, 0, g, RTE_DIM(g));
	/* RFC 4291 2.7.1, RFC 2464 7: 33:33:FF and the last three bytes. */
	CHECK(has(g, n, "33:33:FF:00:00:01"), "global address's solicited-node group missing");
	CHECK(has(g, n, "33:33:FF:33:44:55"), "link-local address's solicited-node group missing");
	CHECK(has(g, n, "33:33:FF:CD:EF:12"), "VLAN interface's solicited-node group missing");
	/* RFC 4291 2.8: the router recognizes the Subnet-Router anycast
	 * address of its subnets (2001:db8:1::, ...), and so the
	 * solicited-node group of each, where hosts resolve it. */
	CHECK(has(g, n, "33:33:FF:00:00:00"),
	      "the subnet-router anycast addresses' solicited-node group missing");
	for (k = 0; k < RTE_DIM(fixed); k++)
		CHECK(has(g, n, fixed[k]), "%s missing with addresses", fixed[k]);
	/* Four groups: the IPv4 address makes none, the link-local one,
	 * ::1 twice and the three subnets' anycast ::0 make one each. */
	CHECK_EQ(n, DPR_L2_CONTROL_GROUPS + 4 + 4);
	check_sorted(g, n);

	/* One more than a list takes: all multicast for the caller. */
	CHECK_EQ(dpr_mcast_groups(a, RTE_DIM(a), NULL, 0, g, DPR_L2_CONTROL_GROUPS + 4 + 4),
		 DPR_L2_CONTROL_GROUPS + 4 + 4);
	CHECK_EQ(dpr_mcast_groups(a, RTE_DIM(a), NULL, 0, g, DPR_L2_CONTROL_GROUPS + 4 + 3),
		 -ENOSPC);
}

static void
test_joined(void)
{
	/* What the kernel lists on a TAP: OSPF's AllSPFRouters and
	 * AllDRouters (224.0.0.5, .6, ff02::5, ::6), its own all-nodes,
	 * a solicited-node group of a port's address; broadcast and a
	 * unicast address are no multicast list's. */
	static const char *const joined[] = {
		"01:00:5E:00:00:05", "01:00:5E:00:00:06", "33:33:00:00:00:05", "33:33:00:00:00:06",
		"33:33:00:00:00:01", "33:33:FF:00:00:01", "FF:FF:FF:FF:FF:FF", "02:11:22:33:44:55",
		"01:00:5E:00:00:05",
	};
	struct rte_ether_addr j[RTE_DIM(joined)], g[DPR_MCAST_MAX_GROUPS];
	struct dpr_prefix a;
	unsigned int k;
	int n;

	for (k = 0; k < RTE_DIM(joined); k++)
		j[k] = mac(joined[k]);
	CHECK_EQ(dpr_prefix_parse("2001:db8:1::1/64", true, &a, NULL, 0), 0);
	n = dpr_mcast_groups(&a, 1, j, RTE_DIM(j), g, RTE_DIM(g));
	for (k = 0; k < 4; k++)
		CHECK(has(g, n, joined[k]), "joined %s missing", joined[k]);
	CHECK(!has(g, n, "FF:FF:FF:FF:FF:FF"), "broadcast in a multicast list");
	CHECK(!has(g, n, "02:11:22:33:44:55"), "unicast in a multicast list");
	/* The four OSPF groups, the address's and its subnet's anycast
	 * address's; all-nodes once. */
	CHECK_EQ(n, DPR_L2_CONTROL_GROUPS + 4 + 2 + 4);
	check_sorted(g, n);

	/* Too many groups joined: -ENOSPC, not a list cut short. */
	{
		static struct rte_ether_addr many[DPR_MCAST_MAX_GROUPS];

		for (k = 0; k < RTE_DIM(many); k++)
			many[k] = (struct rte_ether_addr){ { 0x01, 0x00, 0x5e, 0x01,
							     (uint8_t)(k >> 8), (uint8_t)k } };
		CHECK_EQ(dpr_mcast_groups(NULL, 0, many, RTE_DIM(many), g, RTE_DIM(g)), -ENOSPC);
		n = dpr_mcast_groups(NULL, 0, many, RTE_DIM(many) - DPR_L2_CONTROL_GROUPS - 4, g,
				     RTE_DIM(g));
		CHECK_EQ(n, DPR_MCAST_MAX_GROUPS);
		check_sorted(g, n);
	}
}

int
main(void)
{
	test_fixed();
	test_addresses();
	test_joined();
	printf("test_mcast: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
