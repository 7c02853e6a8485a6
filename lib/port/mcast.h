/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The multicast groups a port's device must let in: what its multicast
 * list holds where the PMD keeps one (dpr_port_mcast_set()). A NIC drops
 * multicast it was not given before any queue, so a group missing here is
 * a protocol that cannot work on the port. Pure: no state, no I/O.
 */
#include <stdint.h>

#include <rte_ether.h>

#include "../util/addr.h"

/**
 * The most groups dpr puts in a port's list (the fixed ones, two
 * solicited-node groups an interface and what the host stack joins make a
 * few dozen); past it, all multicast. Each PMD has a limit of its own
 * (ixgbe hashes any number): a device that refuses a list gets all
 * multicast as well.
 */
#define DPR_MCAST_MAX_GROUPS 256

/**
 * The groups a port needs, sorted (memcmp order) and each once, into
 * @p out: the link-layer control groups (dpr_l2_control_groups: LLDP,
 * IS-IS); IPv4 all-systems and all-routers (01:00:5e:00:00:01, :02,
 * RFC 1112 6.4); IPv6 all-nodes and all-routers (33:33:00:00:00:01, :02,
 * RFC 4291 2.7.1, RFC 2464 7); the solicited-node group of each IPv6
 * address of @p addrs (the port's and its VLAN interfaces', link-local
 * ones included; IPv4 ones make none), without which neighbour
 * solicitations for the router never arrive (RFC 4861 7.2.2), and of
 * the Subnet-Router anycast address of each global one's subnet (RFC
 * 4291 2.6.1, 2.8; none for a /127 or /128); and
 * @p joined, the link-layer groups the kernel holds on the port's TAPs
 * (what FRR, BIRD or the kernel itself joined there: OSPF, MLD, ...).
 * @return the number of groups, or -ENOSPC when there are more than
 *   @p max (out then holds @p max of them).
 */
int dpr_mcast_groups(const struct dpr_prefix *addrs, unsigned int n_addrs,
		     const struct rte_ether_addr *joined, unsigned int n_joined,
		     struct rte_ether_addr *out, unsigned int max);

/** Solicited-node group MAC of IPv6 address @p ip6 (RFC 4291 2.7.1: ff02::1:ffXX:XXXX;
 * RFC 2464 7: 33:33 and its last four bytes). */
void dpr_mcast_solicited_mac(const uint8_t ip6[16], struct rte_ether_addr *mac);
