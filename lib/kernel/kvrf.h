/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Kernel VRF devices for dpr's VRFs, so that routing daemons that know
 * VRFs (FRR's zebra, bgpd, ospfd... with "vrf NAME") see each dpr VRF as
 * the kernel VRF they would use on a Linux router: for every VRF but the
 * default one, dpr creates a kernel VRF device (CONFIG_NET_VRF, what
 * `ip link add NAME type vrf table N` makes) named as the VRF (a VRF name
 * is at most 15 characters: an interface name) with the VRF's table, sets
 * it up, and enslaves the host-stack TAPs of that VRF's interfaces to it.
 * The kernel then puts the TAPs' connected and local routes in that table,
 * its sockets bound to the device (bgpd's) talk through those TAPs, and
 * zebra sends the VRF's routes over FPM with that table id, which is how
 * dpr's route feeds (lib/route/feed.h) know their VRF.
 *
 * An interface of that name that is already a VRF device of the same table
 * is used as it is and left at exit; one that is anything else is left
 * alone (the VRF then has no device; said once). Devices dpr created go at
 * exit.
 *
 * A kernel without VRF devices refuses the first one (EOPNOTSUPP): dpr says
 * so once in the log and in stats.get (vrfs[].kernel_device), and the rest
 * works the same: routes per VRF still come by table id, from FPM and from
 * the kernel tables, and the TAPs stay in the kernel's default VRF.
 *
 * VRFs added at run time (vrf.add) get their device the same way, and
 * TAPs made at run time (vlan.add, a TAP made again) are enslaved as they
 * come; vrf.del deletes the device dpr made for it.
 *
 * Threads: control thread only, at start, on vrf.add/vrf.del, when a TAP
 * is made, and at exit. Netlink requests wait for the kernel's answer.
 */
#include <stdbool.h>

#include <jansson.h>

struct dpr_router;

/**
 * Create the kernel VRF devices (when the router has VRFs besides the
 * default one) and enslave the TAPs. Call after the TAPs exist. Never
 * fails dpr: what cannot be done is logged.
 * @return the number of VRFs with a device.
 */
unsigned int dpr_kvrf_setup(struct dpr_router *r);

/**
 * Make the device of VRF @p vrf, added at run time (vrf.add); its
 * interfaces' TAPs come later and are enslaved as they are made. Never
 * fails the VRF: what cannot be done is logged and in dpr_kvrf_json().
 */
void dpr_kvrf_add(struct dpr_router *r, unsigned int vrf);

/** Delete VRF @p vrf's device if dpr made it (vrf.del); forget it either way. */
void dpr_kvrf_del(struct dpr_router *r, unsigned int vrf);

/** Enslave interface @p port's TAP to its VRF's device (a TAP made again). */
void dpr_kvrf_enslave(struct dpr_router *r, unsigned int port);

/** Delete the devices dpr created. No-op when none. */
void dpr_kvrf_close(struct dpr_router *r);

/**
 * VRF @p vrf's kernel device for stats.get: {"name", "ifindex", "created"}
 * or, without one, {"error": why}; null for the default VRF or before
 * setup. A new reference.
 */
json_t *dpr_kvrf_json(const struct dpr_router *r, unsigned int vrf);

/** Whether this kernel has VRF devices: 1, 0, or -1 when not tried. */
int dpr_kvrf_supported(const struct dpr_router *r);
