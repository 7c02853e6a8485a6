/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Machine checks before dpr starts: IOMMU and VFIO, hugepages, the PCI NICs
 * dpr has profiles for, CPU isolation, and a configuration's ports and
 * lcores against what the machine has. Everything is read from sysfs and
 * /proc below a root that can be pointed elsewhere, so tests build fake
 * machines as directory trees. Nothing here needs EAL or root; a file that
 * is missing means an absent feature, never an error of the checker.
 *
 * Each check adds findings to a report: a severity, what was found (naming
 * the device, path or value) and the exact commands that fix it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum dpr_doctor_severity {
	DPR_DOCTOR_OK,
	DPR_DOCTOR_INFO,
	DPR_DOCTOR_WARNING,
	DPR_DOCTOR_ERROR,
};

struct dpr_doctor_finding {
	enum dpr_doctor_severity severity;
	char check[16];       /**< "iommu", "vfio", "hugepages", "nic", "pcie", ... */
	char subject[64];     /**< the device, path or value it is about, "" for none */
	char *message;        /**< what was found */
	char *fix;            /**< commands, one per line; NULL when nothing to do */
	bool preflight;       /**< it decides whether dpr can start with the config */
};

struct dpr_doctor_report {
	unsigned int n;
	unsigned int cap;
	struct dpr_doctor_finding *items;
};

/** A port of the configuration, as the checks need it. */
struct dpr_doctor_port {
	const char *name;
	const char *device;   /**< the config's "device": PCI address or devargs */
};

#define DPR_DOCTOR_MAX_CPUS 1024

/** What to check against. */
struct dpr_doctor_input {
	const char *sysroot;        /**< "" or NULL for "/" */
	const char *config_path;    /**< named in fix commands; NULL without a config */
	unsigned int n_ports;
	const struct dpr_doctor_port *ports;
	/** The EAL lcores' CPUs (bit per CPU); n_lcores 0 when unknown. The
	 * first (lowest) is taken as the main lcore, the others as workers. */
	unsigned int n_lcores;
	uint64_t lcores[DPR_DOCTOR_MAX_CPUS / 64];
};

/**
 * Run every check and add its findings to @p r.
 * @return 0, or -ENOMEM (the report keeps what was added).
 */
int dpr_doctor_run(const struct dpr_doctor_input *in, struct dpr_doctor_report *r);

/** Number of findings of @p sev, counting only preflight ones when @p preflight. */
unsigned int dpr_doctor_count(const struct dpr_doctor_report *r, enum dpr_doctor_severity sev,
			      bool preflight);

void dpr_doctor_report_free(struct dpr_doctor_report *r);

/** "ok", "info", "warning" or "error". */
const char *dpr_doctor_severity_name(enum dpr_doctor_severity sev);

/**
 * The findings as a JSON array of {"severity", "check", "subject",
 * "message", "fix": [commands], "preflight"}; only preflight ones when
 * @p preflight. NULL on allocation failure.
 */
json_t *dpr_doctor_to_json(const struct dpr_doctor_report *r, bool preflight);

/**
 * Parse an EAL CPU list ("0-3", "1,2,4", or --lcores' "0@2,(1-3)@(4-6)",
 * where the CPUs after '@' are the ones taken) into @p set.
 * @return the number of CPUs in the set, or -EINVAL.
 */
int dpr_doctor_parse_cpulist(const char *s, uint64_t set[DPR_DOCTOR_MAX_CPUS / 64]);

/**
 * The PCI address ("0000:03:00.0") a config "device" names: a PCI address,
 * with or without the domain, followed by nothing, ",devargs" or "_<port>".
 * @return true with the normalised address in @p out (13 bytes at least).
 */
bool dpr_doctor_pci_address(const char *device, char *out, size_t len);

/* --bind: binding a config's ports to vfio-pci. */

struct dpr_doctor_bind_opts {
	const char *sysroot;
	const char *devbind;     /**< dpdk-devbind.py to run (searched in PATH) */
	bool force;              /**< bind interfaces that carry routes too */
};

/**
 * Bind the PCI devices of @p ports to vfio-pci with dpdk-devbind.py, each
 * once, skipping devices already on vfio-pci or a uio driver and Mellanox
 * ones (mlx5 works beside the kernel driver), and refusing devices whose
 * kernel interface carries routes (the default route above all) unless
 * @p opts->force. Prints what it does and each undo command to stdout.
 * @return the number of devices refused or failed (0: all done).
 */
int dpr_doctor_bind(const struct dpr_doctor_bind_opts *opts, unsigned int n_ports,
		    const struct dpr_doctor_port *ports);

/** Add a finding to @p r (for callers' own checks). @return 0 or -ENOMEM. */
int dpr_doctor_add(struct dpr_doctor_report *r, enum dpr_doctor_severity sev, const char *check,
		   const char *subject, bool preflight, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* VRFs and VLAN interfaces (lib/doctor/vrf.c). */

struct dpr_config;
struct dpr_vrf_conf;

/**
 * Bytes VRF @p v's DIR-24-8 lookup tables take whatever their routes
 * (64 MiB of tbl24 and 1 KiB a tbl8 group, for each family on DIR-24-8);
 * 0 when both families use Poptrie.
 */
uint64_t dpr_doctor_vrf_dir24_8_bytes(const struct dpr_vrf_conf *v);

/**
 * Findings about @p cfg's VRFs: one that no interface is in (warning), one
 * beyond the default VRF on DIR-24-8 (warning: what it costs, and the
 * Poptrie setting), and what their tables take in all. @p config_path is
 * named in the fixes (NULL: "the config").
 * @return 0, or -ENOMEM.
 */
int dpr_doctor_check_vrfs(const struct dpr_config *cfg, const char *config_path,
			  struct dpr_doctor_report *r);

/**
 * A warning for each VLAN interface of @p cfg whose port's link is down:
 * from @p link_up (indexed by port, the running router's view) when not
 * NULL; else from @p sysroot's /sys/class/net/IFACE/operstate for ports on
 * a kernel interface (devargs "iface=IFACE": af_packet, af_xdp), others
 * unknown and skipped.
 * @return 0, or -ENOMEM.
 */
int dpr_doctor_check_vlan_links(const struct dpr_config *cfg, const char *sysroot,
				const bool *link_up, struct dpr_doctor_report *r);
