/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Log types, one per component, registered as "dpr.<component>" so that
 * EAL's --log-level=dpr.*:debug works. Control thread only: workers never log.
 */
#include <stdint.h>

#include <rte_log.h>

extern int dpr_logtype_main;
extern int dpr_logtype_config;
extern int dpr_logtype_port;
extern int dpr_logtype_fib;

/**
 * Log the @p n-th event of one kind on log type @p type: the 1st, 2nd,
 * 4th, 8th... as warnings, the rest as debug, so that a full routing table
 * refused for one reason does not flood the log. The message reads
 * "dpr: <what> (<reason>, <n> so far): <fmt...>".
 */
void dpr_log_counted(int type, uint64_t n, const char *what, const char *reason,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define DPR_LOG(level, type, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dpr_logtype_ ## type, \
		"dpr: " fmt "\n", ##__VA_ARGS__)

/**
 * DPDK's log stream as EAL's own (stderr and syslog), less the lines DPDK
 * prints at every normal start that read like errors: no free pages of a
 * hugepage size not used, no legacy telemetry socket, and net_tap's
 * complaints (no multiq qdisc, no rte_flow, no secondary process to tell).
 * Call before rte_eal_init(). @return 0, or -1 (DPDK's stream is kept).
 */
int dpr_log_init(void);

/**
 * Make @p s one printable line in place: control characters (a newline in
 * a JSON parser's "near '...'" quote of the input) become '?'. Returns @p s.
 */
char *dpr_one_line(char *s);
