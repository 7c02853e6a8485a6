/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Log types, one per component, registered as "dpr.<component>" so that
 * EAL's --log-level=dpr.*:debug works. Control thread only: workers never log.
 */
#include <rte_log.h>

extern int dpr_logtype_main;
extern int dpr_logtype_config;
extern int dpr_logtype_port;
extern int dpr_logtype_fib;

#define DPR_LOG(level, type, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dpr_logtype_ ## type, \
		"dpr: " fmt "\n", ##__VA_ARGS__)
