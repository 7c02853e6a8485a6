/* SPDX-License-Identifier: BSD-3-Clause */
#include "log.h"

RTE_LOG_REGISTER(dpr_logtype_main, dpr.main, INFO);
RTE_LOG_REGISTER(dpr_logtype_config, dpr.config, INFO);
RTE_LOG_REGISTER(dpr_logtype_port, dpr.port, INFO);
RTE_LOG_REGISTER(dpr_logtype_fib, dpr.fib, INFO);
