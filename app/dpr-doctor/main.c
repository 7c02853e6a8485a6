/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpr-doctor: checks the machine before dpr starts and prints each finding
 * with the commands that fix it (lib/doctor), or binds a configuration's
 * ports to vfio-pci. No EAL, no root: it only reads sysfs and /proc.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "acl/acl.h"
#include "config/config.h"
#include "doctor/doctor.h"

#define EXIT_USAGE 2

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: dpr-doctor [--sysroot DIR] [-c CONFIG] [--lcores LIST] [--preflight]\n"
		"                  [--bind [--force]] [--devbind PATH] [--json]\n"
		"  -c, --config FILE  check the configuration's ports against the machine\n"
		"      --lcores LIST  the EAL lcores dpr will run on (0-3, 1,2,4, 0@0,1@2):\n"
		"                     checked against CPU isolation and the ports' NUMA nodes\n"
		"      --preflight    only what would stop dpr from starting (hugepages, the\n"
		"                     ports' binding, IOMMU/VFIO); exit 1 if anything would\n"
		"      --bind         bind the configuration's PCI ports to vfio-pci with\n"
		"                     dpdk-devbind.py, refusing interfaces that carry routes\n"
		"      --force        with --bind: take those interfaces too\n"
		"      --devbind PATH dpdk-devbind.py to run (default $DPR_DEVBIND, else\n"
		"                     dpdk-devbind.py from PATH)\n"
		"      --json         the findings as a JSON array\n"
		"      --sysroot DIR  read sysfs and /proc below DIR (default /)\n"
		"Exit: 0 no errors, 1 errors (or a refused/failed bind), 2 usage.\n");
}

/* The config's ACLs: bound nowhere, rules shadowed by an earlier one. */
static void
acl_findings(struct dpr_doctor_report *r, const struct dpr_config *cfg)
{
	json_t *warn = dpr_acl_config_warnings_json(cfg->acls, cfg), *w;
	size_t i;

	json_array_foreach(warn, i, w)
		dpr_doctor_add(r, DPR_DOCTOR_WARNING, "acl", "", false, NULL, "%s",
			       json_string_value(w));
	json_decref(warn);
}

static void
print_text(const struct dpr_doctor_report *r, bool preflight)
{
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		const struct dpr_doctor_finding *f = &r->items[i];
		const char *p = f->fix;

		if (preflight && !f->preflight)
			continue;
		printf("%s: %s: %s\n", dpr_doctor_severity_name(f->severity), f->check, f->message);
		while (p != NULL && *p != '\0') {
			const char *nl = strchr(p, '\n');
			int len = nl ? (int)(nl - p) : (int)strlen(p);

			printf(p[0] == '#' ? "  %.*s\n" : "  fix: %.*s\n", len, p);
			p = nl ? nl + 1 : NULL;
		}
		printf("\n");
	}
	printf("%u errors, %u warnings, %u ok, %u info%s\n",
	       dpr_doctor_count(r, DPR_DOCTOR_ERROR, preflight),
	       dpr_doctor_count(r, DPR_DOCTOR_WARNING, preflight),
	       dpr_doctor_count(r, DPR_DOCTOR_OK, preflight),
	       dpr_doctor_count(r, DPR_DOCTOR_INFO, preflight),
	       !preflight ? "" :
	       dpr_doctor_count(r, DPR_DOCTOR_ERROR, true) ? ": dpr cannot start" :
							     ": nothing stops dpr from starting");
}

int
main(int argc, char **argv)
{
	enum { OPT_SYSROOT = 256, OPT_LCORES, OPT_PREFLIGHT, OPT_BIND, OPT_FORCE, OPT_DEVBIND,
	       OPT_JSON };
	static const struct option longopts[] = {
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "config", required_argument, NULL, 'c' },
		{ "lcores", required_argument, NULL, OPT_LCORES },
		{ "preflight", no_argument, NULL, OPT_PREFLIGHT },
		{ "bind", no_argument, NULL, OPT_BIND },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "devbind", required_argument, NULL, OPT_DEVBIND },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dpr_doctor_input in = { 0 };
	struct dpr_doctor_report r = { 0 };
	struct dpr_doctor_port ports[DPR_MAX_PORTS];
	struct dpr_config *cfg = NULL;
	const char *config = NULL, *lcores = NULL, *devbind = getenv("DPR_DEVBIND");
	bool preflight = false, bind = false, force = false, json = false;
	char err[1024];
	struct stat st;
	int opt, ret;
	unsigned int i;

	while ((opt = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_SYSROOT: in.sysroot = optarg; break;
		case 'c': config = optarg; break;
		case OPT_LCORES: lcores = optarg; break;
		case OPT_PREFLIGHT: preflight = true; break;
		case OPT_BIND: bind = true; break;
		case OPT_FORCE: force = true; break;
		case OPT_DEVBIND: devbind = optarg; break;
		case OPT_JSON: json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dpr-doctor: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (in.sysroot != NULL && (stat(in.sysroot, &st) < 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "dpr-doctor: --sysroot %s: not a directory\n", in.sysroot);
		return EXIT_USAGE;
	}
	if (force && !bind) {
		fprintf(stderr, "dpr-doctor: --force goes with --bind\n");
		return EXIT_USAGE;
	}
	if (bind && (preflight || json)) {
		fprintf(stderr, "dpr-doctor: --bind does not go with --preflight or --json\n");
		return EXIT_USAGE;
	}
	if (bind && config == NULL) {
		fprintf(stderr, "dpr-doctor: --bind needs the configuration: -c CONFIG\n");
		return EXIT_USAGE;
	}
	if (lcores != NULL) {
		ret = dpr_doctor_parse_cpulist(lcores, in.lcores);
		if (ret <= 0) {
			fprintf(stderr, "dpr-doctor: --lcores \"%s\": expected CPUs like 0-3, 1,2,4 "
				"or 0@0,1@2 (below %d)\n", lcores, DPR_DOCTOR_MAX_CPUS);
			return EXIT_USAGE;
		}
		in.n_lcores = (unsigned int)ret;
	}

	if (config != NULL) {
		in.config_path = config;
		cfg = dpr_config_load(config, err, sizeof(err));
		if (cfg == NULL) {
			if (bind) {
				fprintf(stderr, "dpr-doctor: %s\n", err);
				return 1;
			}
			dpr_doctor_add(&r, DPR_DOCTOR_ERROR, "config", config, true, NULL,
				       "%s (dpr --check gives the same message)", err);
		} else {
			for (i = 0; i < cfg->n_phys; i++) {
				ports[i].name = cfg->ports[i].name;
				ports[i].device = cfg->ports[i].device;
			}
			in.ports = ports;
			in.n_ports = cfg->n_phys;
			acl_findings(&r, cfg);
		}
	}

	if (bind) {
		struct dpr_doctor_bind_opts bo = {
			.sysroot = in.sysroot,
			.devbind = devbind && devbind[0] ? devbind : "dpdk-devbind.py",
			.force = force,
		};

		ret = dpr_doctor_bind(&bo, in.n_ports, in.ports);
		dpr_config_free(cfg);
		if (ret < 0) {
			fprintf(stderr, "dpr-doctor: %s\n", strerror(-ret));
			return 1;
		}
		if (ret > 0)
			printf("%d device(s) refused or failed\n", ret);
		return ret > 0;
	}

	ret = dpr_doctor_run(&in, &r);
	/* The config's VRFs and VLAN interfaces: advice, none of it preflight. */
	if (ret == 0 && cfg != NULL)
		ret = dpr_doctor_check_vrfs(cfg, config, &r);
	if (ret == 0 && cfg != NULL)
		ret = dpr_doctor_check_vlan_links(cfg, in.sysroot, NULL, &r);
	if (ret < 0) {
		fprintf(stderr, "dpr-doctor: %s\n", strerror(-ret));
		dpr_doctor_report_free(&r);
		dpr_config_free(cfg);
		return 1;
	}
	if (json) {
		json_t *arr = dpr_doctor_to_json(&r, preflight);

		if (arr == NULL || json_dumpf(arr, stdout, JSON_INDENT(2)) < 0) {
			fprintf(stderr, "dpr-doctor: out of memory\n");
			ret = -ENOMEM;
		}
		printf("\n");
		json_decref(arr);
	} else {
		print_text(&r, preflight);
	}
	ret = ret < 0 || dpr_doctor_count(&r, DPR_DOCTOR_ERROR, preflight) > 0;
	dpr_doctor_report_free(&r);
	dpr_config_free(cfg);
	return ret;
}
