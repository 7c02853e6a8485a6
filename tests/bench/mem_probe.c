/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How much of the L3 cache is the benchmark's own right now: the latency
 * of a random pointer chase over parts of the L3 against one over far more
 * than it (DRAM). On a machine of its own a chase over half the L3 hits
 * the L3, several times faster than DRAM; when other tenants of the host
 * share and evict the L3, it drifts towards DRAM's latency, and a FIB
 * working set that "fits in L3" (the cached regime of scripts/bench.sh)
 * no longer does. scripts/bench.py runs this before every round and the
 * report prints what it found, so that a reader can tell which regime a
 * cached case really ran in.
 *
 *   dpr-mem-probe [L3_MIB]      (default: read from sysfs, else 8)
 *
 * Prints one JSON object: mul_ns (ns of one multiply in a dependent chain:
 * how fast the core itself ran, whatever the caches did); l3_mib; dram_mib and dram_ns (ns a load, chasing
 * over 16 x L3, at least 128 MiB); chase_ns, the same over L3/8, L3/4 and
 * L3/2 (at least 1 MiB each); effective_l3_mib, the largest of those whose
 * loads took under a third of DRAM's (0: none did); huge_ns, DRAM through
 * 2 MiB hugetlbfs pages as DPDK maps them, per region (null when no
 * hugepages are free), and huge_pass_ns, each region's passes.
 * Lines of 64 bytes in one random cycle (Sattolo's shuffle), so that every
 * load misses what the load before it brought and the hardware prefetchers
 * find no stride; transparent huge pages asked for, so that the DRAM figure
 * is mostly DRAM, not page walks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64
#define LOADS 4000000u

static uint64_t rnd_state = 0x9e3779b97f4a7c15u;

static uint64_t
rnd(void)
{
	/* xorshift64*: any fixed sequence will do; rand() is too short. */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1du;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One random cycle through the @p n lines at @p mem (Sattolo's shuffle,
 * in @p order, n entries): each line holds the index of the next. */
static void
link_lines(uint8_t *mem, size_t n, size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rnd() % i), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		memcpy(mem + order[i] * LINE, &order[(i + 1) % n], sizeof(size_t));
}

/* Nanoseconds a dependent load over @p mib MiB, or a negative value. */
static double
chase(size_t mib)
{
	size_t n = (mib << 20) / LINE, i;
	size_t bytes = n * LINE;
	uint8_t *mem;
	size_t *order;
	volatile size_t sink;
	size_t p = 0;
	double t0, t1;

	mem = aligned_alloc(2u << 20, bytes);
	order = malloc(n * sizeof(*order));
	if (mem == NULL || order == NULL) {
		free(mem);
		free(order);
		return -1;
	}
	madvise(mem, bytes, MADV_HUGEPAGE);
	link_lines(mem, n, order);
	free(order);
	for (i = 0; i < n; i++) /* once around: the lines and pages in place */
		memcpy(&p, mem + p * LINE, sizeof(p));
	t0 = now_ns();
	for (i = 0; i < LOADS; i++)
		p = *(const size_t *)(const void *)(mem + p * LINE);
	t1 = now_ns();
	sink = p;
	(void)sink;
	free(mem);
	return (t1 - t0) / LOADS;
}

/*
 * DRAM through 2 MiB hugetlbfs pages, as DPDK maps its memory: REGIONS
 * regions of REGION_MIB each, chased in turn, forward then backward over
 * the regions, REGION_PASSES times; the median of each region's passes in
 * @p ns, and each pass in @p pass_ns. On a VM the host backs the guest's
 * pages unevenly: on the AMD host (2026-12-05) one region's passes read
 * 170.8-179.6 ns a load and another's 218.7-229.3 in the same process, so
 * which pages a process gets moves a DRAM-bound rate by as much.
 * @return 0, or -1 when there were not enough free hugepages (or memory).
 */
#define REGIONS 8
#define REGION_MIB 128
#define REGION_PASSES 3
#define REGION_LOADS 300000u
_Static_assert(REGION_PASSES == 3, "huge_regions() takes the median of 3");

static int
huge_regions(double *ns, double pass_ns[][REGION_PASSES])
{
	const size_t bytes = (size_t)REGION_MIB << 20, n = bytes / LINE;
	double t[REGIONS][REGION_PASSES];
	uint8_t *mem[REGIONS] = { NULL };
	size_t *order = malloc(n * sizeof(*order)), p[REGIONS] = { 0 };
	volatile size_t sink;
	unsigned int r, k, j;
	int ret = -1;

	if (order == NULL)
		return -1;
	for (r = 0; r < REGIONS; r++) {
		mem[r] = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
		if (mem[r] == MAP_FAILED) {
			mem[r] = NULL;
			goto out;
		}
		link_lines(mem[r], n, order);
	}
	for (k = 0; k < REGION_PASSES; k++) {
		for (j = 0; j < REGIONS; j++) {
			double t0;
			size_t i;

			r = k & 1 ? REGIONS - 1 - j : j;
			t0 = now_ns();
			for (i = 0; i < REGION_LOADS; i++)
				p[r] = *(const size_t *)(const void *)(mem[r] + p[r] * LINE);
			t[r][k] = (now_ns() - t0) / REGION_LOADS;
			pass_ns[r][k] = t[r][k];
		}
	}
	for (r = 0; r < REGIONS; r++) { /* the median of 3 */
		double a = t[r][0], b = t[r][1], c = t[r][2];

		sink = p[r];
		ns[r] = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
	}
	(void)sink;
	ret = 0;
out:
	for (r = 0; r < REGIONS; r++)
		if (mem[r] != NULL)
			munmap(mem[r], bytes);
	free(order);
	return ret;
}

/*
 * Nanoseconds of one multiply in a dependent chain: the core's own speed,
 * which a host that time-slices or slows its CPUs (the guest sees no steal
 * time here) stretches as it stretches every case, with no cache involved.
 */
static double
spin(void)
{
	volatile uint64_t sink;
	uint64_t x = 1, i;
	double t0 = now_ns();

	for (i = 0; i < 200000000u; i++)
		x = x * 0x9e3779b97f4a7c15u + i;
	sink = x;
	(void)sink;
	return (now_ns() - t0) / 200000000u;
}

static size_t
l3_from_sysfs(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	char unit = 0;
	unsigned long v = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu%c", &v, &unit) < 1)
		v = 0;
	fclose(f);
	return unit == 'K' ? v >> 10 : v;
}

int
main(int argc, char **argv)
{
	size_t l3 = argc > 1 ? strtoul(argv[1], NULL, 10) : l3_from_sysfs();
	size_t big, mib, eff = 0;
	double ns[8], hns[REGIONS], hpass[REGIONS][REGION_PASSES], dram;
	unsigned int k, n = 0;

	if (l3 == 0)
		l3 = 8;
	big = l3 * 16 > 128 ? l3 * 16 : 128;
	dram = chase(big);
	if (dram < 0)
		goto oom;
	printf("{\"mul_ns\": %.3f, \"l3_mib\": %zu, \"dram_mib\": %zu, \"dram_ns\": %.1f, "
	       "\"chase_ns\": {", spin(), l3, big, dram);
	/* L3/8 to L3/2, at least 1 MiB; the largest that stays well below
	 * DRAM's latency is the L3 the benchmark had. */
	for (k = 8; k >= 2; k /= 2) {
		mib = l3 / k > 0 ? l3 / k : 1;
		if (n > 0 && mib == (l3 / (k * 2) > 0 ? l3 / (k * 2) : 1))
			continue;
		ns[n] = chase(mib);
		if (ns[n] < 0)
			goto oom;
		if (ns[n] < dram / 3)
			eff = mib;
		printf("%s\"%zu\": %.1f", n > 0 ? ", " : "", mib, ns[n]);
		n++;
	}
	printf("}, \"effective_l3_mib\": %zu, \"huge_ns\": ", eff);
	if (huge_regions(hns, hpass) == 0) {
		for (k = 0; k < REGIONS; k++)
			printf("%s%.1f%s", k == 0 ? "[" : ", ", hns[k], k == REGIONS - 1 ? "]" : "");
		printf(", \"huge_pass_ns\": ");
		for (k = 0; k < REGIONS; k++)
			printf("%s[%.1f, %.1f, %.1f]%s", k == 0 ? "[" : ", ", hpass[k][0], hpass[k][1],
			       hpass[k][2], k == REGIONS - 1 ? "]" : "");
	} else {
		printf("null");
	}
	printf("}\n");
	return 0;
oom:
	fprintf(stderr, "dpr-mem-probe: out of memory\n");
	return 1;
}
