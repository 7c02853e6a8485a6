/* SPDX-License-Identifier: BSD-3-Clause */
#include "datapath.h"

const char *const dpr_drop_names[DPR_DROP_MAX] = {
	[DPR_DROP_NONE] = "none",
	[DPR_DROP_RUNT] = "runt",
	[DPR_DROP_OTHER_HOST] = "other_host",
	[DPR_DROP_UNSUPPORTED_L3] = "unsupported_l3",
	[DPR_DROP_BAD_HEADER] = "bad_header",
	[DPR_DROP_BAD_LENGTH] = "bad_length",
	[DPR_DROP_BAD_CHECKSUM] = "bad_checksum",
	[DPR_DROP_MARTIAN] = "martian",
	[DPR_DROP_BLACKHOLE] = "blackhole",
	[DPR_DROP_EXCEPTION_FULL] = "exception_full",
	[DPR_DROP_TX_FULL] = "tx_full",
};

const char *const dpr_exc_names[DPR_EXC_MAX] = {
	[DPR_EXC_ARP] = "arp",
	[DPR_EXC_LOCAL] = "local",
	[DPR_EXC_IP_OPTIONS] = "ip_options",
	[DPR_EXC_TTL_EXPIRED] = "ttl_expired",
	[DPR_EXC_NO_ROUTE] = "no_route",
	[DPR_EXC_UNRESOLVED] = "unresolved",
	[DPR_EXC_MTU_EXCEEDED] = "mtu_exceeded",
};
