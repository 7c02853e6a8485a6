/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fpm-dump: run lib/fpm alone and print what zebra's dplane_fpm_nl sends,
 * one line per change, the way the router's sink would receive it.
 *
 *   fpm-dump [ADDR[:PORT]] [TABLE]      (default 127.0.0.1:2620, table 254)
 *
 * SIGUSR1 prints the counters; SIGINT/SIGTERM prints them and exits.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpm/fpm.h"

static volatile sig_atomic_t stop, dump;

static const char *const kinds[] = {
	[DPR_RK_UNICAST] = "unicast", [DPR_RK_BLACKHOLE] = "blackhole",
	[DPR_RK_UNREACHABLE] = "unreachable", [DPR_RK_PROHIBIT] = "prohibit",
};

static void
on_route(void *arg, const struct dpr_route_upd *r)
{
	char p[DPR_PREFIX_STRLEN], gw[DPR_IP6_STRLEN];
	unsigned int i;

	(void)arg;
	dpr_prefix_fmt(&r->prefix, p, sizeof(p));
	if (r->del) {
		printf("del %s proto %u\n", p, r->protocol);
		return;
	}
	printf("add %s %s proto %u metric %u", p, kinds[r->kind], r->protocol, r->priority);
	if (r->nhg_id != 0)
		printf(" nhg %u", r->nhg_id);
	for (i = 0; i < r->n_paths; i++) {
		const struct dpr_route_path *h = &r->paths[i];

		printf("%s", i == 0 ? ":" : ",");
		if (h->gw.af != 0)
			printf(" via %s", dpr_ip_fmt(&h->gw, gw, sizeof(gw)));
		if (h->ifindex != 0)
			printf(" dev %u", h->ifindex);
		printf(" weight %u", h->weight);
	}
	printf("\n");
}

static void
on_batch(void *arg)
{
	(void)arg;
	printf("batch\n");
}

static void
on_connected(void *arg)
{
	(void)arg;
	printf("connected\n");
}

static void
on_disconnected(void *arg)
{
	(void)arg;
	printf("disconnected\n");
}

static void
print_stats(const struct dpr_fpm *f)
{
	const struct dpr_fpm_stats *s = dpr_fpm_stats(f);
	unsigned int i;

	printf("stats: connections %" PRIu64 " replaced %" PRIu64 " closed %" PRIu64
	       " resets %" PRIu64 " bytes %" PRIu64 " frames %" PRIu64 " bad_frames %" PRIu64
	       " messages %" PRIu64 " batches %" PRIu64 " routes_added %" PRIu64
	       " routes_deleted %" PRIu64 " routes_redelivered %" PRIu64
	       " nexthops_added %" PRIu64 " nexthops_deleted %" PRIu64
	       " nexthops_in_use %" PRIu64 " nexthops %u routes_by_id %u\n",
	       s->connections, s->replaced, s->closed, s->resets, s->bytes, s->frames,
	       s->bad_frames, s->messages, s->batches, s->routes_added, s->routes_deleted,
	       s->routes_redelivered, s->nexthops_added, s->nexthops_deleted,
	       s->nexthops_in_use, s->nexthops, s->routes_by_id);
	printf("ignored:");
	for (i = 0; i < DPR_FPM_IGN_MAX; i++)
		printf(" %s %" PRIu64, dpr_fpm_ignore_name(i), s->ignored[i]);
	printf("\nrejected:");
	for (i = 0; i < DPR_FPM_REJ_MAX; i++)
		printf(" %s %" PRIu64, dpr_fpm_reject_name(i), s->rejected[i]);
	printf("\n");
}

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		stop = 1;
}

int
main(int argc, char **argv)
{
	const struct dpr_fpm_sink sink = {
		.route = on_route, .batch_end = on_batch, .connected = on_connected,
		.disconnected = on_disconnected,
	};
	const char *addr = argc > 1 ? argv[1] : NULL;
	uint32_t table = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct dpr_fpm *f;
	struct pollfd p;
	char err[256];

	if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [ADDR[:PORT]] [TABLE]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	f = dpr_fpm_create(addr, table, &sink, err, sizeof(err));
	if (f == NULL) {
		fprintf(stderr, "fpm-dump: %s\n", err);
		return 1;
	}
	p = (struct pollfd){ .fd = dpr_fpm_fd(f), .events = POLLIN };
	while (!stop) {
		if (poll(&p, 1, 1000) > 0)
			dpr_fpm_poll(f);
		if (dump) {
			dump = 0;
			print_stats(f);
		}
	}
	print_stats(f);
	dpr_fpm_free(f);
	return 0;
}
