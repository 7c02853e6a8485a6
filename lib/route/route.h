/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Routes on the control side: FIB changes that keep next-hop reference
 * counts right, and installing what the config file gives (connected
 * subnets, the router's own addresses, static neighbours and routes).
 * Control thread only.
 */
#include <stdbool.h>
#include <stddef.h>

#include "../config/config.h"
#include "../fib/fib.h"
#include "../nexthop/nexthop.h"

/**
 * Apply a batch of FIB ops. Each add must carry a next-hop reference taken
 * by the caller; it is kept by the route, or dropped if the op is not applied.
 * Next hops of replaced and deleted routes are released after every worker
 * has stopped using them.
 * @return as dpr_fib4_update().
 */
unsigned int dpr_route4_apply(struct dpr_fib4 *fib, struct dpr_nh_table *nh,
			      struct dpr_fib4_op *ops, unsigned int n, int *err);

/**
 * The routes IPv4 address @p a of a port implies, as ops for
 * dpr_route4_apply(): its connected subnet (next hop @p connected, a
 * reference the caller took; ignored when deleting), the address itself
 * (DPR_NH_LOCAL) and the subnet's broadcast address (DPR_NH_BCAST). The one
 * place that says which routes an address implies.
 * @return the number of ops written to @p ops (at most 3; 0 for IPv6).
 */
unsigned int dpr_route4_addr_ops(const struct dpr_prefix *a, uint32_t connected, bool del,
				 struct dpr_fib4_op ops[3]);

/**
 * Install the routes a config implies, in one batch.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_route_install_config(struct dpr_fib4 *fib, struct dpr_nh_table *nh,
			     const struct dpr_config *cfg, char *err, size_t err_len);
