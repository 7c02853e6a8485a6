/* SPDX-License-Identifier: BSD-3-Clause */
/* Port profiles (lib/port/profile.c): every file in drivers-cfg/ loads, the
 * link-state source each driver needs, and what a bad file is told. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dpr_paths.h"
#include "port/port.h"
#include "test.h"

static char tmp[] = "/tmp/dpr-test-profile.XXXXXX";

/* Every shipped profile parses; the ones named here read their link where
 * their PMD cannot be trusted (drivers-cfg notes say why). */
static void
test_shipped(const char *dir)
{
	static const struct { const char *driver; enum dpr_link_src link; } want[] = {
		{ "net_af_packet", DPR_LINK_IFACE }, { "net_af_xdp", DPR_LINK_IFACE },
		{ "net_tap", DPR_LINK_IFACE },       { "net_ixgbe", DPR_LINK_PMD },
		{ "net_ice", DPR_LINK_PMD },         { "net_cxgbe", DPR_LINK_PMD },
		{ "no_such_pmd", DPR_LINK_PMD },     /* default.json */
	};
	struct dpr_profile p;
	char err[512];
	struct dirent *de;
	unsigned int i, n = 0;
	DIR *d = opendir(dir);

	CHECK(d != NULL, "opendir %s", dir);
	while (d != NULL && (de = readdir(d)) != NULL) {
		char driver[64];
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || len - 5 >= sizeof(driver))
			continue;
		memcpy(driver, de->d_name, len - 5);
		driver[len - 5] = '\0';
		err[0] = '\0';
		CHECK(dpr_profile_load(dir, driver, &p, err, sizeof(err)) == 0, "%s: %s", driver, err);
		n++;
	}
	if (d != NULL)
		closedir(d);
	CHECK(n >= 10, "%u profiles", n);
	for (i = 0; i < RTE_DIM(want); i++) {
		CHECK_EQ(dpr_profile_load(dir, want[i].driver, &p, err, sizeof(err)), 0);
		CHECK(p.link == want[i].link, "%s: link_state %d, want %d", want[i].driver, p.link,
		      want[i].link);
	}
}

static int
load_text(const char *text, struct dpr_profile *p, char *err, size_t len)
{
	char file[128];
	FILE *f;

	snprintf(file, sizeof(file), "%s/net_x.json", tmp);
	f = fopen(file, "w");
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	return dpr_profile_load(tmp, "net_x", p, err, len);
}

static void
test_link_state(void)
{
	struct dpr_profile p;
	char err[512];

	CHECK_EQ(load_text("{\"link_state\": \"none\"}", &p, err, sizeof(err)), 0);
	CHECK_EQ(p.link, DPR_LINK_NONE);
	CHECK_EQ(load_text("{\"link_state\": \"iface\"}", &p, err, sizeof(err)), 0);
	CHECK_EQ(p.link, DPR_LINK_IFACE);
	CHECK_EQ(load_text("{\"rx_desc\": 512}", &p, err, sizeof(err)), 0);
	CHECK_EQ(p.link, DPR_LINK_PMD);
	CHECK_EQ(load_text("{\"link_state\": \"carrier\"}", &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "net_x.json: link_state: expected \"pmd\", \"iface\" or \"none\"") != NULL,
	      "err: %s", err);
	CHECK_EQ(load_text("{\"link_state\": true}", &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "link_state: expected") != NULL, "err: %s", err);
	CHECK_EQ(load_text("{\"link\": \"pmd\"}", &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "unknown key \"link\"") != NULL, "err: %s", err);
	CHECK_EQ(dpr_link_state_name(DPR_LINK_UP)[0], 'u');
	CHECK(strcmp(dpr_link_state_name(DPR_LINK_UNKNOWN), "unknown") == 0, "unknown");
}

/* Where dpr looks for drivers-cfg/ when not told: the environment, the
 * source tree for the binary in its build tree, the share directory beside
 * an installed (or DESTDIR) bin directory, the configured datadir. */
static void
test_find_dir(void)
{
	char buf[PATH_MAX], root[PATH_MAX], exe[PATH_MAX + 32], share[PATH_MAX + 64];
	const char *dir, *why;

	setenv("DPR_DRIVERS_CFG", "/somewhere/profiles", 1);
	dir = dpr_profile_find_dir(DPR_BUILD_ROOT "/app/dpr", buf, sizeof(buf), &why);
	CHECK(strcmp(dir, "/somewhere/profiles") == 0, "env: %s (%s)", dir, why);
	unsetenv("DPR_DRIVERS_CFG");

	CHECK(realpath(DPR_BUILD_ROOT, root) != NULL, "realpath %s", DPR_BUILD_ROOT);
	snprintf(exe, sizeof(exe), "%s/app/dpr", root);
	dir = dpr_profile_find_dir(exe, buf, sizeof(buf), &why);
	CHECK(strcmp(dir, DPR_SOURCE_DRIVERS_CFG) == 0, "build tree: %s (%s)", dir, why);
	/* A sibling directory whose name starts like the build root's is not it. */
	snprintf(exe, sizeof(exe), "%s-other/app/dpr", root);
	dir = dpr_profile_find_dir(exe, buf, sizeof(buf), &why);
	CHECK(strcmp(dir, DPR_SOURCE_DRIVERS_CFG) != 0, "%s: %s (%s)", exe, dir, why);

	/* An installed tree under a DESTDIR: usr/bin/dpr, usr/share/dpr/drivers-cfg. */
	snprintf(share, sizeof(share), "%s/usr", tmp);
	mkdir(share, 0755);
	snprintf(share, sizeof(share), "%s/usr/bin", tmp);
	mkdir(share, 0755);
	snprintf(share, sizeof(share), "%s/usr/share", tmp);
	mkdir(share, 0755);
	snprintf(share, sizeof(share), "%s/usr/share/dpr", tmp);
	mkdir(share, 0755);
	snprintf(share, sizeof(share), "%s/usr/share/dpr/drivers-cfg", tmp);
	CHECK(mkdir(share, 0755) == 0, "mkdir %s", share);
	snprintf(exe, sizeof(exe), "%s/usr/bin/dpr", tmp);
	dir = dpr_profile_find_dir(exe, buf, sizeof(buf), &why);
	snprintf(exe, sizeof(exe), "%s/usr/bin/../share/dpr/drivers-cfg", tmp);
	CHECK(strcmp(dir, exe) == 0, "installed: %s (%s), want %s", dir, why, exe);
	rmdir(share);

	/* Nothing beside it: the configured install directory. */
	snprintf(exe, sizeof(exe), "%s/usr/bin/dpr", tmp);
	dir = dpr_profile_find_dir(exe, buf, sizeof(buf), &why);
	CHECK(strcmp(dir, DPR_INSTALL_DRIVERS_CFG) == 0, "fallback: %s (%s)", dir, why);
	dir = dpr_profile_find_dir(NULL, buf, sizeof(buf), &why);
	CHECK(strcmp(dir, DPR_INSTALL_DRIVERS_CFG) == 0, "no exe: %s (%s)", dir, why);
	snprintf(share, sizeof(share), "%s/usr/share/dpr", tmp);
	rmdir(share);
	snprintf(share, sizeof(share), "%s/usr/share", tmp);
	rmdir(share);
	snprintf(share, sizeof(share), "%s/usr/bin", tmp);
	rmdir(share);
	snprintf(share, sizeof(share), "%s/usr", tmp);
	rmdir(share);
}

/*
 * The largest MTU a device takes, as rte_eth_dev_configure() judges it:
 * software PMDs that give only max_rx_pktlen (their max_mtu is ethdev's
 * default, UINT16_MAX) take that less 18 bytes, not 65535 (dpr told a
 * user of mtu 9000 on af_packet only "setup failed: Invalid argument").
 */
static void
test_max_mtu(void)
{
	static const struct {
		uint32_t max_rx_pktlen;
		uint16_t max_mtu, want;
		const char *what;
	} cases[] = {
		{ 1518, UINT16_MAX, 1500, "net_af_packet (22.11)" },
		{ 1522, UINT16_MAX, 1504, "net_tap (22.11)" },
		{ UINT32_MAX, UINT16_MAX, UINT16_MAX, "net_null, net_ring: no limit" },
		{ 9728, 9702, 9702, "max_mtu and its frame (overhead 26)" },
		{ 9728, 9710, 9710, "max_mtu below max_rx_pktlen" },
		{ 15872, 9702, 9702, "max_mtu the lower" },
		{ 10, UINT16_MAX, 0, "nothing fits" },
	};
	struct rte_eth_dev_info info;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		memset(&info, 0, sizeof(info));
		info.max_rx_pktlen = cases[i].max_rx_pktlen;
		info.max_mtu = cases[i].max_mtu;
		CHECK(dpr_port_max_mtu(&info) == cases[i].want, "%s: max MTU %u, want %u",
		      cases[i].what, dpr_port_max_mtu(&info), cases[i].want);
	}
}

int
main(int argc, char **argv)
{
	char file[160];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DRIVERS_CFG_DIR\n", argv[0]);
		return 2;
	}
	if (mkdtemp(tmp) == NULL)
		return 2;
	test_shipped(argv[1]);
	test_link_state();
	test_find_dir();
	test_max_mtu();
	snprintf(file, sizeof(file), "%s/net_x.json", tmp);
	unlink(file);
	rmdir(tmp);
	printf("test_profile: %d checks, %d failed\n", test_checks, test_failures);
	return test_failures == 0 ? 0 : 1;
}
