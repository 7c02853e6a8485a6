/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The router's own addresses, per port: the one place that says whether an
 * address is the router's, which port's connected subnet holds an address,
 * and which of its addresses the router speaks from.
 *
 * Owner: the control thread. main() fills the table from the config (an
 * input, copied here once) and adds each port's link-local address;
 * addr.add and addr.del change it. The config checker keeps a table of its
 * own while it reads a file, to check routes and neighbours against the
 * same rules. Workers never read it: they see the router's addresses as
 * LOCAL and BCAST routes in the FIB (lib/route says which).
 *
 * Link-local addresses (fe80::/10) are scoped to their link (RFC 4007 6):
 * one is the router's only on the port that has it, the same one may be on
 * several ports, and its subnet is on every port, so it makes no connected
 * subnet. Each connected subnet of global scope belongs to one port.
 *
 * A port whose MTU is below 1280 has no IPv6 at all (RFC 8200 5,
 * dpr_ifaddr_set_mtu()): no IPv6 address, link-local included, and no
 * IPv6 host is on its link, so no IPv6 gateway or neighbour either.
 */
#include <stdbool.h>
#include <stdint.h>

#include "../util/addr.h"

#define DPR_IFADDR_MAX_PORTS 32
/* The config's 16 a port and the link-local one dpr adds. */
#define DPR_IFADDR_MAX_PER_PORT 17

struct dpr_ifaddrs {
	unsigned int n_ports;
	unsigned int n[DPR_IFADDR_MAX_PORTS];
	/** Each port's VRF (0: the default VRF). The questions about "any
	 * port" are asked of one VRF's ports: the same subnet may be
	 * connected in two VRFs. */
	uint16_t vrf[DPR_IFADDR_MAX_PORTS];
	/** Ports without IPv6: MTU below DPR_IP6_MIN_MTU (dpr_ifaddr_set_mtu()). */
	bool no_ip6[DPR_IFADDR_MAX_PORTS];
	/** address + subnet length, in the order added */
	struct dpr_prefix a[DPR_IFADDR_MAX_PORTS][DPR_IFADDR_MAX_PER_PORT];
};

/** Where dpr_ifaddr_add() found a clash. */
struct dpr_ifaddr_clash {
	unsigned int port;
	unsigned int index;
};

/** An empty table for @p n_ports ports (at most DPR_IFADDR_MAX_PORTS), all
 * in the default VRF. */
void dpr_ifaddr_init(struct dpr_ifaddrs *t, unsigned int n_ports);

/** Put @p port, which has no address yet, in VRF @p vrf. */
void dpr_ifaddr_set_vrf(struct dpr_ifaddrs *t, unsigned int port, uint16_t vrf);

/**
 * Tell the table port @p port's MTU, before it has an address: below
 * DPR_IP6_MIN_MTU the port has no IPv6 (RFC 8200 5). A port the table was
 * not told of has IPv6.
 */
void dpr_ifaddr_set_mtu(struct dpr_ifaddrs *t, unsigned int port, unsigned int mtu);

/** Does port @p port carry IPv6 (its MTU is 1280 or more)? */
static inline bool
dpr_ifaddr_ip6_on(const struct dpr_ifaddrs *t, unsigned int port)
{
	return port >= DPR_IFADDR_MAX_PORTS || !t->no_ip6[port];
}

/**
 * Add address @p a (address and subnet length) to port @p port.
 * @return 0; -EEXIST when the port has that address already, -EINVAL when
 *   its subnet overlaps a connected subnet of another port (both with the
 *   other address in *@p clash when not NULL), -ENOSPC when the port is
 *   full (DPR_IFADDR_MAX_PER_PORT - 1 addresses, and one more only if it
 *   is link-local or the port has a link-local one), -ENODEV for a port out of range, -EAFNOSUPPORT for an
 *   IPv6 address on a port without IPv6 (DPR_IP6_MTU_WHY says why).
 */
int dpr_ifaddr_add(struct dpr_ifaddrs *t, unsigned int port, const struct dpr_prefix *a,
		   struct dpr_ifaddr_clash *clash);

/** Remove address @p a (exact address and length) of @p port: 0 or -ENOENT. */
int dpr_ifaddr_del(struct dpr_ifaddrs *t, unsigned int port, const struct dpr_prefix *a);

/** The addresses of @p port, their number in *@p n. */
const struct dpr_prefix *dpr_ifaddr_list(const struct dpr_ifaddrs *t, unsigned int port,
					 unsigned int *n);

/** Is @p ip an address of the router on @p port (exactly; link-local included)? */
bool dpr_ifaddr_on(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *ip);

/**
 * The first port of VRF @p vrf that has @p ip as its address, or -1: "is
 * this one of my addresses", for any link. A link-local address is the
 * router's only on its own link: ask dpr_ifaddr_on() for one that arrived
 * on a port.
 */
int dpr_ifaddr_owner(const struct dpr_ifaddrs *t, uint16_t vrf, const struct dpr_ip *ip);

/**
 * The port of VRF @p vrf whose connected subnet holds @p ip, or -1; with
 * @p port >= 0 that port only (whatever @p vrf). A link-local address is
 * on the link it is named with: @p port itself (-1 when not given). No
 * IPv6 address is on a port without IPv6 (dpr_ifaddr_ip6_on()).
 */
int dpr_ifaddr_connected(const struct dpr_ifaddrs *t, uint16_t vrf, const struct dpr_ip *ip,
			 int port);

/**
 * Are @p a and @p b both inside one connected subnet of @p port (one of its
 * addresses holds both)? What an ICMP host redirect needs of the source and
 * the better gateway (RFC 1812 5.2.7.2).
 */
bool dpr_ifaddr_same_subnet(const struct dpr_ifaddrs *t, unsigned int port,
			    const struct dpr_ip *a, const struct dpr_ip *b);

/**
 * Is @p ip the subnet-router anycast address (RFC 4291 2.6.1) of a global
 * IPv6 subnet of @p port (not a /127 or /128, RFC 6164 6)?
 */
bool dpr_ifaddr_anycast_on(const struct dpr_ifaddrs *t, unsigned int port,
			   const struct dpr_ip *ip);

/**
 * Why @p ip cannot be a neighbour or a gateway in VRF @p vrf (multicast, the router's own
 * address, a connected subnet's network, broadcast or subnet-router anycast
 * address), or NULL if it can. A link-local address is the router's own
 * only on its own link: on port @p port's (any port of the VRF's when
 * @p port is -1); on another link it is another host's (RFC 4007 6).
 */
const char *dpr_ifaddr_not_a_neighbour(const struct dpr_ifaddrs *t, uint16_t vrf,
				       const struct dpr_ip *ip, int port);

/**
 * The address the router speaks from on @p port to @p peer, of @p peer's
 * family, into *@p out: for a link-local peer the port's link-local
 * address; else one on the peer's subnet, else the port's first global one,
 * else any port's of its VRF (RFC 1812 4.3.2.4: the router-id when the interface has
 * none), else (IPv6) the port's link-local one.
 * @return 0, or -ENOENT when the router has no address of that family.
 */
int dpr_ifaddr_source(const struct dpr_ifaddrs *t, unsigned int port, const struct dpr_ip *peer,
		      struct dpr_ip *out);
