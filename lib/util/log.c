/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* fopencookie */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <syslog.h>

#include "log.h"

RTE_LOG_REGISTER(dpr_logtype_main, dpr.main, INFO);
RTE_LOG_REGISTER(dpr_logtype_config, dpr.config, INFO);
RTE_LOG_REGISTER(dpr_logtype_port, dpr.port, INFO);
RTE_LOG_REGISTER(dpr_logtype_fib, dpr.fib, INFO);

void
dpr_log_counted(int type, uint64_t n, const char *what, const char *reason, const char *fmt, ...)
{
	uint32_t level = (n & (n - 1)) == 0 ? RTE_LOG_WARNING : RTE_LOG_DEBUG;
	char msg[200];
	va_list ap;

	if (!rte_log_can_log(type, level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_log(level, type, "dpr: %s (%s, %" PRIu64 " so far): %s\n", what, reason, n, msg);
}

char *
dpr_one_line(char *s)
{
	char *p;

	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/* What DPDK 22.11 says at a normal start, in words that look like errors
 * (a part of each line). */
static const char *const start_noise[] = {
	"kB hugepages reported on node",                  /* EAL: a size without pages */
	"No legacy callbacks, legacy socket not created", /* telemetry */
	"Specified qdisc kind is unknown",                /* net_tap: no sch_multiq */
	"Could not add multiq qdisc",
	"failed to create multiq qdisc",
	"Disabling rte flow support",                     /* net_tap: no flow rules, unused */
	"req to secondary",                               /* net_tap: no secondary process */
};

static bool
noise(const char *line, size_t len)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(start_noise); i++)
		if (memmem(line, len, start_noise[i], strlen(start_noise[i])) != NULL)
			return true;
	return false;
}

/* rte_vlog() writes one message and flushes: whole lines, one or more. */
static ssize_t
log_write(void *cookie, const char *buf, size_t size)
{
	const char *p = buf, *end = buf + size, *nl;
	size_t len;

	(void)cookie;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (!noise(p, len)) {
			fwrite(p, 1, len, stderr);
			/* syslog's levels are DPDK's less one. */
			syslog((int)rte_log_cur_msg_loglevel() - 1, "%.*s", (int)len, p);
		}
		p += len;
	}
	fflush(stderr);
	return (ssize_t)size;
}

int
dpr_log_init(void)
{
	static cookie_io_functions_t fns = { .write = log_write };
	FILE *f = fopencookie(NULL, "w", fns);

	if (f == NULL)
		return -1;
	return rte_openlog_stream(f);
}
