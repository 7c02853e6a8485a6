/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

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
