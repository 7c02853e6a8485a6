/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference rule of route.h, checked: every next hop's count
 * recomputed from its holders. Slow (it walks both FIBs and every next
 * hop): for tests, fuzzers, the soak and rib.check, never a hot path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"

#define PAGE 4096

/* One holder per FIB route, on the next hop it points at. */
static int
count_fib4(struct dpr_fib4 *fib, uint32_t *refs, char *err, size_t len)
{
	struct dpr_fib4_route *page = malloc(PAGE * sizeof(*page)), after;
	bool more = true, first = true;
	int n, i;

	if (page == NULL)
		return -ENOMEM;
	while (more) {
		n = dpr_fib4_list(fib, first ? NULL : &after, page, PAGE, &more);
		if (n < 0) {
			free(page);
			return n;
		}
		for (i = 0; i < n; i++) {
			if (page[i].nh >= DPR_NH_MAX) {
				snprintf(err, len, "rib: IPv4 route with next hop %u, out of range",
					 page[i].nh);
				free(page);
				return -EINVAL;
			}
			refs[page[i].nh]++;
		}
		if (n > 0)
			after = page[n - 1];
		first = false;
	}
	free(page);
	return 0;
}

static int
count_fib6(struct dpr_fib6 *fib, uint32_t *refs, char *err, size_t len)
{
	struct dpr_fib6_route *page, after;
	bool more = true, first = true;
	int n, i;

	if (fib == NULL)
		return 0;
	page = malloc(PAGE * sizeof(*page));
	if (page == NULL)
		return -ENOMEM;
	while (more) {
		n = dpr_fib6_list(fib, first ? NULL : &after, page, PAGE, &more);
		if (n < 0) {
			free(page);
			return n;
		}
		for (i = 0; i < n; i++) {
			if (page[i].nh >= DPR_NH_MAX) {
				snprintf(err, len, "rib: IPv6 route with next hop %u, out of range",
					 page[i].nh);
				free(page);
				return -EINVAL;
			}
			refs[page[i].nh]++;
		}
		if (n > 0)
			after = page[n - 1];
		first = false;
	}
	free(page);
	return 0;
}

int
dpr_rib_check(struct dpr_rib *rib, uint32_t (*held)(void *arg, uint32_t idx), void *arg,
	      char *err, size_t len)
{
	return dpr_ribs_check(&rib, 1, held, arg, err, len);
}

int
dpr_ribs_check(struct dpr_rib *const *ribs, unsigned int n_ribs,
	       uint32_t (*held)(void *arg, uint32_t idx), void *arg, char *err, size_t len)
{
	struct dpr_rib *rib = ribs[0];
	unsigned int v;
	uint32_t *refs = calloc(DPR_NH_MAX, sizeof(*refs));
	uint32_t *groups = calloc(DPR_NH_MAX, sizeof(*groups));
	uint32_t members[DPR_NH_GROUP_MEMBERS];
	uint16_t weights[DPR_NH_GROUP_MEMBERS];
	uint32_t idx, k, n, end;
	int ret;

	if (refs == NULL || groups == NULL) {
		ret = -ENOMEM;
		snprintf(err, len, "rib: out of memory for the check");
		goto out;
	}
	/* Every VRF's routes hold the shared next hops. */
	for (v = 0, ret = 0; v < n_ribs && ret == 0; v++) {
		ret = count_fib4(ribs[v]->fib4, refs, err, len);
		if (ret == 0)
			ret = count_fib6(ribs[v]->fib6, refs, err, len);
		if (ret == 0)
			ret = dpr_route_src_check(ribs[v], refs, err, len);
	}
	if (ret < 0)
		goto out;
	end = dpr_nh_index_end(rib->nh);
	for (idx = DPR_NH_FIRST_DYNAMIC; idx < end; idx++) {
		n = dpr_nh_group_members(rib->nh, idx, members, weights);
		for (k = 0; k < n; k++) {
			refs[members[k]]++;
			groups[members[k]]++;
		}
	}
	/* Past the end, nothing was ever handed out: a holder there is a
	 * next hop out of range. */
	for (idx = end; idx < DPR_NH_MAX; idx++) {
		if (refs[idx] != 0) {
			snprintf(err, len, "rib: next hop %u was never handed out, but %u holders point at it",
				 idx, refs[idx]);
			ret = -EINVAL;
			goto out;
		}
	}
	for (idx = DPR_NH_FIRST_DYNAMIC; idx < end; idx++) {
		const struct dpr_nh_info *info = dpr_nh_info(rib->nh, idx);
		uint32_t want = refs[idx] + (held != NULL ? held(arg, idx) : 0);

		if (info == NULL && want != 0) {
			snprintf(err, len, "rib: next hop %u is free, but %u holders point at it",
				 idx, want);
			ret = -EINVAL;
			break;
		}
		if (info == NULL)
			continue;
		if (info->refcnt != want || info->groups != groups[idx]) {
			snprintf(err, len, "rib: next hop %u has %u references (%u from groups), its holders are %u (%u groups)",
				 idx, info->refcnt, info->groups, want, groups[idx]);
			ret = -EINVAL;
			break;
		}
	}
out:
	free(refs);
	free(groups);
	return ret;
}
