/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * One TAP interface (net_tap PMD) per port: the host stack's side of it.
 * Its kernel interface carries the port's MAC and addresses, so SSH, BGP
 * and the like run on the host as usual; what dpr does not answer for
 * itself goes to the kernel here, and what the kernel sends here leaves
 * through the port. Control thread only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "../router/router.h"

/**
 * Descriptors of a TAP's queues. net_tap allocates its whole RX ring from
 * the port's pool at set-up and, without the scatter offload (never asked:
 * mbufs are sized for the largest MTU), reads each frame into the first of
 * them only: more would pin mbufs that nothing uses. The kernel queues
 * what waits (the TAP's txqueuelen). The pool keeps this many per
 * interface dpr can have (DPR_MAX_PORTS), for VLAN interfaces added at
 * run time too (app/dpr/main.c).
 */
#define DPR_TAP_DESC 32

/**
 * Create and start the TAPs of the ports that have one (config "tap"),
 * with the ports' MACs, MTUs and addresses.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_tap_setup(struct dpr_router *r, char *err, size_t err_len);

/** Send what the kernel wrote on the TAPs out of their ports. @return packets moved. */
unsigned int dpr_tap_poll(struct dpr_router *r);

/**
 * Hand @p m (an Ethernet frame that came in on @p port) to the kernel.
 * @return 0, or -ENODEV when the port has no TAP (the caller keeps @p m).
 */
int dpr_tap_to_kernel(struct dpr_router *r, uint16_t port, struct rte_mbuf *m);

/** Mirror an address change on the kernel side. */
void dpr_tap_addr(struct dpr_router *r, uint16_t port, const struct dpr_prefix *a, bool add);

/**
 * Once a second: a TAP whose kernel interface went away (deleted, moved to
 * another namespace) is made again with the port's addresses (counted
 * lost, recreated; logged, and retried every second while that fails);
 * one set down on the host while its port is up is logged once.
 */
void dpr_tap_check(struct dpr_router *r);

/** Port @p port's link went up or down: its TAP (if any) follows. */
void dpr_tap_link(struct dpr_router *r, uint16_t port, bool up);

/** Stop and close the TAPs (their kernel interfaces go away). */
void dpr_tap_close(struct dpr_router *r);

/**
 * Make interface @p p's TAP, if its conf names one (a VLAN interface added
 * at run time), with its addresses. @return 0, or a negative errno with
 * what to change in @p err.
 */
int dpr_tap_open_port(struct dpr_router *r, unsigned int p, char *err, size_t err_len);

/** Remove interface @p p's TAP, if it has one, from DPDK and the host. */
void dpr_tap_close_port(struct dpr_router *r, unsigned int p);
