/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole router's tables checked against each other: every next hop's
 * reference count against its holders (lib/route's rule, with lib/neigh's
 * own references), and lib/neigh's per-index side tables against the
 * next hops in use. For tests, fuzzers, the soak and rib.check.
 */
#include <stdint.h>

#include "../neigh/neigh.h"
#include "router.h"

static uint32_t
neigh_held(void *arg, uint32_t idx)
{
	return dpr_neigh_refs_held(arg, idx);
}

int
dpr_router_check(struct dpr_router *r, char *err, size_t len)
{
	struct dpr_rib *ribs[DPR_MAX_VRFS];
	unsigned int v, n = 0;
	int ret;

	ribs[n++] = &r->rib;
	for (v = 1; v < DPR_MAX_VRFS; v++)
		if (r->vrfs[v].rib != NULL)
			ribs[n++] = r->vrfs[v].rib;
	ret = dpr_ribs_check(ribs, n, r->neigh != NULL ? neigh_held : NULL, r->neigh, err, len);
	if (ret == 0 && r->neigh != NULL)
		ret = dpr_neigh_check(r->neigh, err, len);
	return ret;
}
