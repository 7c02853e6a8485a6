/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_ethdev.h>

#include "../util/log.h"
#include "dpr_paths.h"
#include "port.h"

#define DEFAULT_DESC 1024

static const struct {
	const char *name;
	uint64_t bit;
} rss_names[] = {
	{ "ipv4", RTE_ETH_RSS_IPV4 },
	{ "frag_ipv4", RTE_ETH_RSS_FRAG_IPV4 },
	{ "nonfrag_ipv4_tcp", RTE_ETH_RSS_NONFRAG_IPV4_TCP },
	{ "nonfrag_ipv4_udp", RTE_ETH_RSS_NONFRAG_IPV4_UDP },
	{ "nonfrag_ipv4_sctp", RTE_ETH_RSS_NONFRAG_IPV4_SCTP },
	{ "nonfrag_ipv4_other", RTE_ETH_RSS_NONFRAG_IPV4_OTHER },
	{ "ipv6", RTE_ETH_RSS_IPV6 },
	{ "frag_ipv6", RTE_ETH_RSS_FRAG_IPV6 },
	{ "nonfrag_ipv6_tcp", RTE_ETH_RSS_NONFRAG_IPV6_TCP },
	{ "nonfrag_ipv6_udp", RTE_ETH_RSS_NONFRAG_IPV6_UDP },
	{ "nonfrag_ipv6_sctp", RTE_ETH_RSS_NONFRAG_IPV6_SCTP },
	{ "nonfrag_ipv6_other", RTE_ETH_RSS_NONFRAG_IPV6_OTHER },
	{ "ipv6_ex", RTE_ETH_RSS_IPV6_EX },
	{ "ipv6_tcp_ex", RTE_ETH_RSS_IPV6_TCP_EX },
	{ "ipv6_udp_ex", RTE_ETH_RSS_IPV6_UDP_EX },
	{ "l2_payload", RTE_ETH_RSS_L2_PAYLOAD },
};

const char *
dpr_rss_field_name(uint64_t bit)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(rss_names); i++)
		if (rss_names[i].bit == bit)
			return rss_names[i].name;
	return NULL;
}

/* Profiles name offloads as DPDK prints them, in lower case. */
static int
offload_bit(const char *name, bool rx, uint64_t *bit)
{
	unsigned int i;

	for (i = 0; i < 64; i++) {
		uint64_t b = UINT64_C(1) << i;
		const char *n = rx ? rte_eth_dev_rx_offload_name(b) :
				     rte_eth_dev_tx_offload_name(b);

		if (n != NULL && strcasecmp(n, name) == 0 && strcmp(n, "UNKNOWN") != 0) {
			*bit = b;
			return 0;
		}
	}
	return -EINVAL;
}

static int
rss_bit(const char *name, uint64_t *bit)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(rss_names); i++)
		if (strcmp(rss_names[i].name, name) == 0) {
			*bit = rss_names[i].bit;
			return 0;
		}
	return -EINVAL;
}

static int
parse_flags(json_t *obj, const char *key, int kind, uint64_t *out,
	    const char *file, char *err, size_t err_len)
{
	json_t *arr = json_object_get(obj, key), *v;
	size_t i;

	if (arr == NULL)
		return 0;
	if (!json_is_array(arr)) {
		snprintf(err, err_len, "drivers-cfg: %s: %s: expected an array of names", file, key);
		return -EINVAL;
	}
	*out = 0;
	json_array_foreach(arr, i, v) {
		uint64_t bit;
		int ret;

		if (!json_is_string(v)) {
			snprintf(err, err_len, "drivers-cfg: %s: %s[%zu]: expected a string", file, key, i);
			return -EINVAL;
		}
		ret = kind == 0 ? rss_bit(json_string_value(v), &bit) :
				  offload_bit(json_string_value(v), kind == 1, &bit);
		if (ret < 0) {
			snprintf(err, err_len, "drivers-cfg: %s: %s[%zu]: unknown name \"%s\"%s",
				 file, key, i, json_string_value(v),
				 kind == 0 ? " (see docs/tuning.md for RSS field names)" :
					     " (use DPDK's offload names in lower case, e.g. \"ipv4_cksum\")");
			return -EINVAL;
		}
		*out |= bit;
	}
	return 0;
}

static int
parse_desc(json_t *obj, const char *key, uint16_t *out, const char *file,
	   char *err, size_t err_len)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 64 ||
	    json_integer_value(v) > 16384) {
		snprintf(err, err_len, "drivers-cfg: %s: %s: expected an integer from 64 to 16384",
			 file, key);
		return -EINVAL;
	}
	*out = (uint16_t)json_integer_value(v);
	return 0;
}

static int
parse_profile(const char *file, struct dpr_profile *p, char *err, size_t err_len)
{
	static const char *const known[] = {
		"driver", "description", "rx_desc", "tx_desc", "rss_hf",
		"rx_offloads", "tx_offloads", "equal_queues", "link_state", "expect", "notes", NULL
	};
	json_error_t je;
	const char *key;
	json_t *root, *v;
	int ret = -EINVAL;

	root = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		snprintf(err, err_len, "drivers-cfg: %s:%d:%d: invalid JSON: %s", file,
			 je.line, je.column, dpr_one_line(je.text));
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		snprintf(err, err_len, "drivers-cfg: %s: expected an object", file);
		goto out;
	}
	json_object_foreach(root, key, v) {
		unsigned int i;

		for (i = 0; known[i] != NULL; i++)
			if (strcmp(known[i], key) == 0)
				break;
		if (known[i] == NULL) {
			snprintf(err, err_len, "drivers-cfg: %s: unknown key \"%s\"", file, key);
			goto out;
		}
	}
	if (parse_desc(root, "rx_desc", &p->rx_desc, file, err, err_len) < 0 ||
	    parse_desc(root, "tx_desc", &p->tx_desc, file, err, err_len) < 0 ||
	    parse_flags(root, "rss_hf", 0, &p->rss_hf, file, err, err_len) < 0 ||
	    parse_flags(root, "rx_offloads", 1, &p->rx_offloads, file, err, err_len) < 0 ||
	    parse_flags(root, "tx_offloads", 2, &p->tx_offloads, file, err, err_len) < 0)
		goto out;
	v = json_object_get(root, "equal_queues");
	if (v != NULL) {
		if (!json_is_boolean(v)) {
			snprintf(err, err_len, "drivers-cfg: %s: equal_queues: expected true or false", file);
			goto out;
		}
		p->equal_queues = json_is_true(v);
	}
	v = json_object_get(root, "link_state");
	if (v != NULL) {
		static const char *const names[] = {
			[DPR_LINK_PMD] = "pmd", [DPR_LINK_IFACE] = "iface", [DPR_LINK_NONE] = "none"
		};
		unsigned int i;

		for (i = 0; i < RTE_DIM(names) && json_is_string(v); i++)
			if (strcmp(json_string_value(v), names[i]) == 0)
				break;
		if (!json_is_string(v) || i == RTE_DIM(names)) {
			snprintf(err, err_len, "drivers-cfg: %s: link_state: expected \"pmd\", \"iface\" or \"none\"",
				 file);
			goto out;
		}
		p->link = (enum dpr_link_src)i;
	}
	v = json_object_get(root, "expect");
	if (v != NULL) {
		if (!json_is_string(v)) {
			snprintf(err, err_len, "drivers-cfg: %s: expect: expected a string (the rate to expect of the PMD)",
				 file);
			goto out;
		}
		snprintf(p->expect, sizeof(p->expect), "%s", json_string_value(v));
	}
	snprintf(p->source, sizeof(p->source), "%s", file);
	ret = 0;
out:
	json_decref(root);
	return ret;
}

static bool
is_dir(const char *dir)
{
	return access(dir, R_OK | X_OK) == 0;
}

const char *
dpr_profile_find_dir(const char *exe, char *buf, size_t len, const char **why)
{
	const char *env = getenv("DPR_DRIVERS_CFG");
	char root[PATH_MAX];
	size_t n;

	if (env != NULL && env[0] != '\0') {
		*why = "$DPR_DRIVERS_CFG";
		return env;
	}
	/* The binary meson built, run where it built it: the source tree's
	 * profiles, wherever the build directory is (/proc/self/exe has
	 * symbolic links resolved; so must the build root). */
	if (realpath(DPR_BUILD_ROOT, root) == NULL)
		snprintf(root, sizeof(root), "%s", DPR_BUILD_ROOT);
	n = strlen(root);
	if (exe != NULL && strncmp(exe, root, n) == 0 && exe[n] == '/' &&
	    is_dir(DPR_SOURCE_DRIVERS_CFG)) {
		*why = "source tree of this build";
		return DPR_SOURCE_DRIVERS_CFG;
	}
	/* Installed, possibly moved (a DESTDIR, a relocated prefix): the share
	 * directory beside the bin directory the binary runs from. */
	if (exe != NULL && DPR_DRIVERS_CFG_FROM_BIN[0] != '\0') {
		char copy[PATH_MAX];

		snprintf(copy, sizeof(copy), "%s", exe);
		if ((size_t)snprintf(buf, len, "%s/%s", dirname(copy), DPR_DRIVERS_CFG_FROM_BIN) < len &&
		    is_dir(buf)) {
			*why = "beside the executable";
			return buf;
		}
	}
	*why = "install directory";
	return DPR_INSTALL_DRIVERS_CFG;
}

const char *
dpr_profile_default_dir(const char **why)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	return dpr_profile_find_dir(n > 0 ? exe : NULL, dir, sizeof(dir), why);
}

int
dpr_profile_load(const char *dir, const char *driver, struct dpr_profile *p,
		 char *err, size_t err_len)
{
	char file[PATH_MAX];

	memset(p, 0, sizeof(*p));
	p->rx_desc = DEFAULT_DESC;
	p->tx_desc = DEFAULT_DESC;
	p->rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	snprintf(p->source, sizeof(p->source), "built-in");

	snprintf(file, sizeof(file), "%s/%s.json", dir, driver);
	if (access(file, R_OK) == 0)
		return parse_profile(file, p, err, err_len);
	snprintf(file, sizeof(file), "%s/default.json", dir);
	if (access(file, R_OK) == 0)
		return parse_profile(file, p, err, err_len);
	DPR_LOG(WARNING, port, "no profile for %s in %s and no default.json there: using built-in defaults",
		driver, dir);
	return 0;
}
