/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "doctor.h"

/*
 * Facts this file relies on, with their sources:
 * - PCI IDs: DPDK 22.11 drivers/net/{ixgbe/base/ixgbe_type.h,
 *   i40e/base/i40e_devids.h, ice/base/ice_devids.h,
 *   cxgbe/base/t4_pci_id_tbl.h}, drivers/common/mlx5/mlx5_common.h. Chelsio
 *   device IDs carry the PCI function in bits 8-11: the cxgbe PMD takes
 *   function 4 (0x54xx T5, 0x64xx T6), cxgbevf function 8 (0x58xx, 0x68xx).
 * - Minimum and validated versions: DPDK 22.11 nics guides (cxgbe firmware
 *   1.25.6.0 or newer; ice matching list kernel 1.10.1, OS default DDP
 *   1.3.30, NVM 4.1; i40e kernel 2.20.12, NVM 9.01).
 * - EAL (lib/eal/linux/eal_hugepage_info.c): a page size without a
 *   hugetlbfs mount is used only with --in-memory.
 * - dpdk-devbind.py refuses an interface that has routes unless --force.
 */

#define MAX_NICS 256
#define MAX_IFACES 4
#define MAX_NODES 64
#define MAX_PAGE_SIZES 4
#define ROUTED_MAX 64
#define IFNAME_LEN 16

enum family {
	FAM_IXGBE,
	FAM_IXGBEVF,
	FAM_I40E,
	FAM_IAVF,
	FAM_ICE,
	FAM_CXGBE,
	FAM_CXGBEVF,
	FAM_MLX5,
	FAM_VIRTIO,
	FAM_VMXNET3,
};

struct family_info {
	const char *pmd;        /**< DPDK driver, the drivers-cfg profile name */
	const char *kdriver;    /**< the kernel's driver for it */
	bool bifurcated;        /**< the PMD works through the kernel driver */
	bool vf;
};

static const struct family_info families[] = {
	[FAM_IXGBE] = { "net_ixgbe", "ixgbe", false, false },
	[FAM_IXGBEVF] = { "net_ixgbe_vf", "ixgbevf", false, true },
	[FAM_I40E] = { "net_i40e", "i40e", false, false },
	[FAM_IAVF] = { "net_iavf", "iavf", false, true },
	[FAM_ICE] = { "net_ice", "ice", false, false },
	[FAM_CXGBE] = { "net_cxgbe", "cxgb4", false, false },
	[FAM_CXGBEVF] = { "net_cxgbevf", "cxgb4vf", false, true },
	[FAM_MLX5] = { "mlx5_pci", "mlx5_core", true, false },
	[FAM_VIRTIO] = { "net_virtio", "virtio-pci", false, false },
	[FAM_VMXNET3] = { "net_vmxnet3", "vmxnet3", false, false },
};

/**
 * A known device. ports x gbps is what the card must move at line rate
 * (Intel and Mellanox: per PCI function, each function is one port);
 * gbps 0 when the model does not say. card_gbps: what the controller
 * carries in total, where that is less.
 */
struct model {
	uint16_t vendor;
	uint16_t device;
	enum family fam;
	const char *name;
	uint8_t ports;
	uint16_t gbps;
	uint16_t card_gbps;
};

#define INTEL 0x8086
#define CHELSIO 0x1425
#define MELLANOX 0x15b3
#define REDHAT_VIRTIO 0x1af4
#define VMWARE 0x15ad

static const struct model models[] = {
	/* ixgbe */
	{ INTEL, 0x10fb, FAM_IXGBE, "82599ES 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x10f7, FAM_IXGBE, "82599 10GbE KX4", 1, 10, 0 },
	{ INTEL, 0x10f8, FAM_IXGBE, "82599 10GbE backplane", 1, 10, 0 },
	{ INTEL, 0x10f9, FAM_IXGBE, "82599 10GbE CX4", 1, 10, 0 },
	{ INTEL, 0x10fc, FAM_IXGBE, "82599 10GbE XAUI", 1, 10, 0 },
	{ INTEL, 0x1507, FAM_IXGBE, "82599 10GbE SFP+ EM", 1, 10, 0 },
	{ INTEL, 0x1514, FAM_IXGBE, "82599 10GbE KX4 mezzanine", 1, 10, 0 },
	{ INTEL, 0x1517, FAM_IXGBE, "82599 10GbE KR", 1, 10, 0 },
	{ INTEL, 0x151c, FAM_IXGBE, "82599 10GbE T3 LOM", 1, 10, 0 },
	{ INTEL, 0x1529, FAM_IXGBE, "82599 10GbE SFP+ FCoE", 1, 10, 0 },
	{ INTEL, 0x152a, FAM_IXGBE, "82599 10GbE backplane FCoE", 1, 10, 0 },
	{ INTEL, 0x154a, FAM_IXGBE, "82599 10GbE SFP+ (X520-4)", 1, 10, 0 },
	{ INTEL, 0x154d, FAM_IXGBE, "82599 10GbE SFP+ SF2", 1, 10, 0 },
	{ INTEL, 0x1557, FAM_IXGBE, "82599EN 10GbE SFP+ (X520)", 1, 10, 0 },
	{ INTEL, 0x1558, FAM_IXGBE, "82599 10GbE QSFP+ (X520-Q1)", 1, 10, 0 },
	{ INTEL, 0x1528, FAM_IXGBE, "X540-AT2 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x1560, FAM_IXGBE, "X540-AT1 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x1563, FAM_IXGBE, "X550-T2 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x15d1, FAM_IXGBE, "X550-T1 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x15aa, FAM_IXGBE, "X552 10GbE KX4", 1, 10, 0 },
	{ INTEL, 0x15ab, FAM_IXGBE, "X552 10GbE KR", 1, 10, 0 },
	{ INTEL, 0x15ac, FAM_IXGBE, "X552 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x15ad, FAM_IXGBE, "X552/X557 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x15ae, FAM_IXGBE, "X552 1000BASE-T", 1, 1, 0 },
	{ INTEL, 0x15b0, FAM_IXGBE, "X552 10GbE XFI", 1, 10, 0 },
	{ INTEL, 0x15c2, FAM_IXGBE, "X553 10GbE KR", 1, 10, 0 },
	{ INTEL, 0x15c3, FAM_IXGBE, "X553 10GbE KR", 1, 10, 0 },
	{ INTEL, 0x15c4, FAM_IXGBE, "X553 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x15c6, FAM_IXGBE, "X553 1GbE SGMII", 1, 1, 0 },
	{ INTEL, 0x15c7, FAM_IXGBE, "X553 1GbE SGMII", 1, 1, 0 },
	{ INTEL, 0x15c8, FAM_IXGBE, "X553 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x15ce, FAM_IXGBE, "X553 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x15e4, FAM_IXGBE, "X553 1GbE", 1, 1, 0 },
	{ INTEL, 0x15e5, FAM_IXGBE, "X553 1GbE", 1, 1, 0 },
	{ INTEL, 0x10ed, FAM_IXGBEVF, "82599 virtual function", 1, 10, 0 },
	{ INTEL, 0x1515, FAM_IXGBEVF, "X540 virtual function", 1, 10, 0 },
	{ INTEL, 0x1565, FAM_IXGBEVF, "X550 virtual function", 1, 10, 0 },
	{ INTEL, 0x15a8, FAM_IXGBEVF, "X552 virtual function", 1, 10, 0 },
	{ INTEL, 0x15c5, FAM_IXGBEVF, "X553 virtual function", 1, 10, 0 },
	/* i40e */
	{ INTEL, 0x1572, FAM_I40E, "X710 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x1581, FAM_I40E, "X710 10GbE backplane", 1, 10, 0 },
	{ INTEL, 0x1583, FAM_I40E, "XL710 40GbE QSFP+", 1, 40, 0 },
	{ INTEL, 0x1584, FAM_I40E, "XL710 40GbE QSFP+", 1, 40, 0 },
	{ INTEL, 0x1585, FAM_I40E, "XL710 QSFP+", 1, 40, 0 },
	{ INTEL, 0x1586, FAM_I40E, "X710 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x1589, FAM_I40E, "X710-T4 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x158a, FAM_I40E, "XXV710 25GbE backplane", 1, 25, 0 },
	{ INTEL, 0x158b, FAM_I40E, "XXV710 25GbE SFP28", 1, 25, 0 },
	{ INTEL, 0x15ff, FAM_I40E, "X710-T 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x104e, FAM_I40E, "X710 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x104f, FAM_I40E, "X710 10GbE backplane", 1, 10, 0 },
	{ INTEL, 0x37ce, FAM_I40E, "X722 10GbE backplane", 1, 10, 0 },
	{ INTEL, 0x37cf, FAM_I40E, "X722 10GbE QSFP+", 1, 10, 0 },
	{ INTEL, 0x37d0, FAM_I40E, "X722 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x37d1, FAM_I40E, "X722 1GbE", 1, 1, 0 },
	{ INTEL, 0x37d2, FAM_I40E, "X722 10GBASE-T", 1, 10, 0 },
	{ INTEL, 0x37d3, FAM_I40E, "X722 10GbE SFP+", 1, 10, 0 },
	{ INTEL, 0x154c, FAM_IAVF, "700/800 series virtual function", 1, 0, 0 },
	{ INTEL, 0x1889, FAM_IAVF, "adaptive virtual function", 1, 0, 0 },
	{ INTEL, 0x37cd, FAM_IAVF, "X722 virtual function", 1, 0, 0 },
	/* ice: the E810 controller carries 100 Gbit/s in total */
	{ INTEL, 0x1591, FAM_ICE, "E810-C backplane", 1, 100, 100 },
	{ INTEL, 0x1592, FAM_ICE, "E810-C QSFP", 1, 100, 100 },
	{ INTEL, 0x1593, FAM_ICE, "E810-C SFP", 1, 25, 100 },
	{ INTEL, 0x1599, FAM_ICE, "E810-XXV backplane", 1, 25, 100 },
	{ INTEL, 0x159a, FAM_ICE, "E810-XXV QSFP", 1, 25, 100 },
	{ INTEL, 0x159b, FAM_ICE, "E810-XXV SFP", 1, 25, 100 },
	{ INTEL, 0x188a, FAM_ICE, "E823-C backplane", 1, 0, 0 },
	{ INTEL, 0x188b, FAM_ICE, "E823-C QSFP", 1, 0, 0 },
	{ INTEL, 0x188c, FAM_ICE, "E823-C SFP", 1, 0, 0 },
	{ INTEL, 0x188d, FAM_ICE, "E823-C 10GBASE-T", 1, 0, 0 },
	{ INTEL, 0x1890, FAM_ICE, "E822-C backplane", 1, 0, 0 },
	{ INTEL, 0x1891, FAM_ICE, "E822-C QSFP", 1, 0, 0 },
	{ INTEL, 0x1892, FAM_ICE, "E822-C SFP", 1, 0, 0 },
	{ INTEL, 0x1897, FAM_ICE, "E822-L backplane", 1, 0, 0 },
	{ INTEL, 0x1898, FAM_ICE, "E822-L SFP", 1, 0, 0 },
	{ INTEL, 0x124c, FAM_ICE, "E823-L backplane", 1, 0, 0 },
	{ INTEL, 0x124d, FAM_ICE, "E823-L SFP", 1, 0, 0 },
	{ INTEL, 0x151d, FAM_ICE, "E823-L QSFP", 1, 0, 0 },
	/* Chelsio: the base IDs of t4_pci_id_tbl.h; the function is added
	 * when matching. Names give ports x speed (T62100: 2 x 100G). */
	{ CHELSIO, 0x5001, FAM_CXGBE, "T520-CR", 2, 10, 0 },
	{ CHELSIO, 0x5002, FAM_CXGBE, "T522-CR", 2, 10, 0 },
	{ CHELSIO, 0x5003, FAM_CXGBE, "T540-CR", 4, 10, 0 },
	{ CHELSIO, 0x5007, FAM_CXGBE, "T520-SO-CR", 2, 10, 0 },
	{ CHELSIO, 0x5009, FAM_CXGBE, "T520-BT", 2, 10, 0 },
	{ CHELSIO, 0x500d, FAM_CXGBE, "T580-CR", 2, 40, 0 },
	{ CHELSIO, 0x5010, FAM_CXGBE, "T580-LP-CR", 2, 40, 0 },
	{ CHELSIO, 0x5011, FAM_CXGBE, "T520-LL-CR", 2, 10, 0 },
	{ CHELSIO, 0x5014, FAM_CXGBE, "T580-SO-CR", 2, 40, 0 },
	{ CHELSIO, 0x5015, FAM_CXGBE, "T502-BT", 2, 1, 0 },
	{ CHELSIO, 0x6001, FAM_CXGBE, "T6225-CR", 2, 25, 0 },
	{ CHELSIO, 0x6002, FAM_CXGBE, "T6225-SO-CR", 2, 25, 0 },
	{ CHELSIO, 0x6003, FAM_CXGBE, "T6425-CR", 4, 25, 0 },
	{ CHELSIO, 0x6004, FAM_CXGBE, "T6425-SO-CR", 4, 25, 0 },
	{ CHELSIO, 0x6007, FAM_CXGBE, "T62100-LP-CR", 2, 100, 0 },
	{ CHELSIO, 0x6008, FAM_CXGBE, "T62100-SO-CR", 2, 100, 0 },
	{ CHELSIO, 0x600d, FAM_CXGBE, "T62100-CR", 2, 100, 0 },
	{ CHELSIO, 0x6011, FAM_CXGBE, "T6225-LL-CR", 2, 25, 0 },
	/* Mellanox: one function per port; the speed comes from the kernel
	 * interface (the same ID covers 25G and 100G parts). */
	{ MELLANOX, 0x1013, FAM_MLX5, "ConnectX-4", 1, 0, 0 },
	{ MELLANOX, 0x1014, FAM_MLX5, "ConnectX-4 VF", 1, 0, 0 },
	{ MELLANOX, 0x1015, FAM_MLX5, "ConnectX-4 Lx", 1, 0, 0 },
	{ MELLANOX, 0x1016, FAM_MLX5, "ConnectX-4 Lx VF", 1, 0, 0 },
	{ MELLANOX, 0x1017, FAM_MLX5, "ConnectX-5", 1, 0, 0 },
	{ MELLANOX, 0x1018, FAM_MLX5, "ConnectX-5 VF", 1, 0, 0 },
	{ MELLANOX, 0x1019, FAM_MLX5, "ConnectX-5 Ex", 1, 0, 0 },
	{ MELLANOX, 0x101a, FAM_MLX5, "ConnectX-5 Ex VF", 1, 0, 0 },
	{ MELLANOX, 0x101b, FAM_MLX5, "ConnectX-6", 1, 0, 0 },
	{ MELLANOX, 0x101c, FAM_MLX5, "ConnectX-6 VF", 1, 0, 0 },
	{ MELLANOX, 0x101d, FAM_MLX5, "ConnectX-6 Dx", 1, 0, 0 },
	{ MELLANOX, 0x101e, FAM_MLX5, "ConnectX VF", 1, 0, 0 },
	{ MELLANOX, 0x101f, FAM_MLX5, "ConnectX-6 Lx", 1, 0, 0 },
	{ MELLANOX, 0x1021, FAM_MLX5, "ConnectX-7", 1, 0, 0 },
	{ MELLANOX, 0xa2d2, FAM_MLX5, "BlueField", 1, 0, 0 },
	{ MELLANOX, 0xa2d6, FAM_MLX5, "BlueField-2", 1, 0, 0 },
	/* virtual machines */
	{ REDHAT_VIRTIO, 0x1000, FAM_VIRTIO, "virtio-net (transitional)", 1, 0, 0 },
	{ REDHAT_VIRTIO, 0x1041, FAM_VIRTIO, "virtio-net", 1, 0, 0 },
	{ VMWARE, 0x07b0, FAM_VMXNET3, "VMXNET3", 1, 0, 0 },
};

/* Chelsio adapters not in the table above still belong to the families. */
static const struct model chelsio_t5_other = { CHELSIO, 0, FAM_CXGBE, "T5 adapter", 0, 0, 0 };
static const struct model chelsio_t6_other = { CHELSIO, 0, FAM_CXGBE, "T6 adapter", 0, 0, 0 };
static const struct model chelsio_t5_vf = { CHELSIO, 0, FAM_CXGBEVF, "T5 virtual function", 1, 0, 0 };
static const struct model chelsio_t6_vf = { CHELSIO, 0, FAM_CXGBEVF, "T6 virtual function", 1, 0, 0 };

struct nic {
	char addr[16];
	uint16_t vendor;
	uint16_t device;
	uint32_t class;
	const struct model *model;   /**< NULL: not a device dpr has a profile for */
	int chelsio_pf;              /**< Chelsio: the PCI function in the ID, else -1 */
	char driver[32];             /**< "" when no driver is bound */
	int numa;
	int iommu_group;             /**< -1 without one */
	unsigned int n_ifaces;
	char ifaces[MAX_IFACES][IFNAME_LEN];
	char iface_dir[MAX_IFACES][96]; /**< path of the interface below the device */
	double cur_gts, max_gts;
	int cur_width, max_width;
	const char *port;            /**< first config port on it, NULL if none */
};

struct page_size {
	unsigned long kb;
	char dir[32];                /**< "hugepages-2048kB" */
	long nr;
	long free;
	long node_nr[MAX_NODES];     /**< -1: unknown */
	char mount[128];             /**< "" when not mounted */
};

struct ctx {
	const struct dpr_doctor_input *in;
	struct dpr_doctor_report *r;
	char root[PATH_MAX];
	int err;
	char cmdline[4096];
	bool intel_cpu;
	bool amd_cpu;
	unsigned int n_nics;
	struct nic nics[MAX_NICS];
	/* interfaces of /proc/net/{route,ipv6_route} */
	unsigned int n_routed;
	char routed[ROUTED_MAX][IFNAME_LEN];
	bool routed_default[ROUTED_MAX];
	/* NUMA nodes and their CPUs */
	int n_nodes;                 /**< highest node + 1, 0 when sysfs has none */
	bool node_present[MAX_NODES];
	uint64_t node_cpus[MAX_NODES][DPR_DOCTOR_MAX_CPUS / 64];
	unsigned int n_sizes;
	struct page_size sizes[MAX_PAGE_SIZES];
	bool iommu_groups;           /**< /sys/kernel/iommu_groups has groups */
	bool noiommu;
	bool vfio_pci;
};

#define CPUSET_WORDS (DPR_DOCTOR_MAX_CPUS / 64)

/* Truncating string copy (snprintf "%s" without the truncation warnings). */
static void
copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ---- the report ---- */

const char *
dpr_doctor_severity_name(enum dpr_doctor_severity sev)
{
	switch (sev) {
	case DPR_DOCTOR_OK: return "ok";
	case DPR_DOCTOR_INFO: return "info";
	case DPR_DOCTOR_WARNING: return "warning";
	case DPR_DOCTOR_ERROR: return "error";
	}
	return "?";
}

static int
report_vadd(struct dpr_doctor_report *r, enum dpr_doctor_severity sev, const char *check,
	    const char *subject, bool preflight, const char *fix, const char *fmt, va_list ap)
{
	struct dpr_doctor_finding *f;

	if (r->n == r->cap) {
		unsigned int cap = r->cap ? r->cap * 2 : 32;
		void *p = realloc(r->items, cap * sizeof(*r->items));

		if (p == NULL)
			return -ENOMEM;
		r->items = p;
		r->cap = cap;
	}
	f = &r->items[r->n];
	memset(f, 0, sizeof(*f));
	f->severity = sev;
	f->preflight = preflight;
	copy_str(f->check, sizeof(f->check), check);
	copy_str(f->subject, sizeof(f->subject), subject ? subject : "");
	if (vasprintf(&f->message, fmt, ap) < 0)
		return -ENOMEM;
	if (fix != NULL && fix[0] != '\0') {
		f->fix = strdup(fix);
		if (f->fix == NULL) {
			free(f->message);
			return -ENOMEM;
		}
	}
	r->n++;
	return 0;
}

int
dpr_doctor_add(struct dpr_doctor_report *r, enum dpr_doctor_severity sev, const char *check,
	       const char *subject, bool preflight, const char *fix, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = report_vadd(r, sev, check, subject, preflight, fix, fmt, ap);
	va_end(ap);
	return ret;
}

static void __attribute__((format(printf, 7, 8)))
add(struct ctx *c, enum dpr_doctor_severity sev, const char *check, const char *subject,
    bool preflight, const char *fix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (report_vadd(c->r, sev, check, subject, preflight, fix, fmt, ap) < 0)
		c->err = -ENOMEM;
	va_end(ap);
}

unsigned int
dpr_doctor_count(const struct dpr_doctor_report *r, enum dpr_doctor_severity sev, bool preflight)
{
	unsigned int i, n = 0;

	for (i = 0; i < r->n; i++)
		if (r->items[i].severity == sev && (!preflight || r->items[i].preflight))
			n++;
	return n;
}

void
dpr_doctor_report_free(struct dpr_doctor_report *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		free(r->items[i].message);
		free(r->items[i].fix);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

json_t *
dpr_doctor_to_json(const struct dpr_doctor_report *r, bool preflight)
{
	json_t *arr = json_array();
	unsigned int i;

	if (arr == NULL)
		return NULL;
	for (i = 0; i < r->n; i++) {
		const struct dpr_doctor_finding *f = &r->items[i];
		json_t *fix = json_array(), *o;
		const char *p = f->fix;

		if (preflight && !f->preflight) {
			json_decref(fix);
			continue;
		}
		while (fix != NULL && p != NULL && *p != '\0') {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			if (json_array_append_new(fix, json_stringn(p, len)) < 0) {
				json_decref(fix);
				fix = NULL;
			}
			p = nl ? nl + 1 : NULL;
		}
		o = json_pack("{s:s, s:s, s:s, s:s, s:o?, s:b}",
			      "severity", dpr_doctor_severity_name(f->severity),
			      "check", f->check, "subject", f->subject,
			      "message", f->message, "fix", fix, "preflight", f->preflight);
		if (o == NULL || json_array_append_new(arr, o) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* ---- reading below the root ---- */

/* The path of @p fmt below the root into @p buf; -ENAMETOOLONG. */
static int __attribute__((format(printf, 4, 0)))
vrpath(const struct ctx *c, char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t n = strlen(c->root);
	int ret;

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, c->root, n);
	ret = vsnprintf(buf + n, len - n, fmt, ap);
	if (ret < 0 || (size_t)ret >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

static int __attribute__((format(printf, 4, 5)))
rpath(const struct ctx *c, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vrpath(c, buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

/* The whole file (up to len - 1 bytes), trailing newlines cut; -errno. */
static int
read_file(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	out[0] = '\0';
	if (f == NULL)
		return -errno;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return 0;
}

static int __attribute__((format(printf, 4, 5)))
read_str(const struct ctx *c, char *out, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int ret;

	out[0] = '\0';
	va_start(ap, fmt);
	ret = vrpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret < 0)
		return ret;
	return read_file(path, out, len);
}

/* A number (decimal, or hex with 0x) from a file; @p dflt when unreadable. */
static long __attribute__((format(printf, 3, 4)))
read_long(const struct ctx *c, long dflt, const char *fmt, ...)
{
	char path[PATH_MAX], buf[64], *end;
	va_list ap;
	long v;
	int ret;

	va_start(ap, fmt);
	ret = vrpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret < 0 || read_file(path, buf, sizeof(buf)) < 0)
		return dflt;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno != 0 || end == buf)
		return dflt;
	return v;
}

static bool __attribute__((format(printf, 2, 3)))
exists(const struct ctx *c, const char *fmt, ...)
{
	char path[PATH_MAX];
	struct stat st;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vrpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return ret == 0 && stat(path, &st) == 0;
}

/* The last component of a symlink's target ("vfio-pci" of .../drivers/vfio-pci). */
static int __attribute__((format(printf, 4, 5)))
read_link_base(const struct ctx *c, char *out, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;
	int ret;

	out[0] = '\0';
	va_start(ap, fmt);
	ret = vrpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret < 0)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if ((size_t)snprintf(out, len, "%s", base) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- CPU sets ---- */

static void
cpuset_set(uint64_t *set, unsigned int cpu)
{
	if (cpu < DPR_DOCTOR_MAX_CPUS)
		set[cpu / 64] |= 1ull << (cpu % 64);
}

static bool
cpuset_has(const uint64_t *set, unsigned int cpu)
{
	return cpu < DPR_DOCTOR_MAX_CPUS && (set[cpu / 64] >> (cpu % 64)) & 1;
}

static unsigned int
cpuset_count(const uint64_t *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < CPUSET_WORDS; i++)
		n += (unsigned int)__builtin_popcountll(set[i]);
	return n;
}

/* Plain "0-3,5" into @p set; -EINVAL on anything else. */
static int
parse_plain_list(const char *s, size_t len, uint64_t *set)
{
	size_t i = 0;

	if (len == 0)
		return -EINVAL;
	while (i < len) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		a = strtoul(s + i, &end, 10);
		i = (size_t)(end - s);
		b = a;
		if (i < len && s[i] == '-') {
			i++;
			if (i >= len || !isdigit((unsigned char)s[i]))
				return -EINVAL;
			b = strtoul(s + i, &end, 10);
			i = (size_t)(end - s);
		}
		if (b < a || b >= DPR_DOCTOR_MAX_CPUS)
			return -EINVAL;
		for (; a <= b; a++)
			cpuset_set(set, (unsigned int)a);
		if (i < len) {
			if (s[i] != ',')
				return -EINVAL;
			i++;
			if (i == len)
				return -EINVAL;
		}
	}
	return 0;
}

int
dpr_doctor_parse_cpulist(const char *s, uint64_t set[DPR_DOCTOR_MAX_CPUS / 64])
{
	const char *p = s;

	memset(set, 0, CPUSET_WORDS * sizeof(set[0]));
	if (s == NULL || *s == '\0')
		return -EINVAL;
	/* Items at the top level are separated by commas; an item is a
	 * list, or LCORES@CPUS where either side may be in parentheses. */
	while (*p != '\0') {
		const char *item = p, *at = NULL, *cpus;
		size_t cpus_len;
		int depth = 0;

		while (*p != '\0' && (depth > 0 || *p != ',')) {
			if (*p == '(')
				depth++;
			else if (*p == ')')
				depth--;
			else if (*p == '@' && depth == 0)
				at = p;
			if (depth < 0)
				return -EINVAL;
			p++;
		}
		if (depth != 0)
			return -EINVAL;
		cpus = at ? at + 1 : item;
		cpus_len = (size_t)(p - cpus);
		if (cpus_len >= 2 && cpus[0] == '(' && cpus[cpus_len - 1] == ')') {
			cpus++;
			cpus_len -= 2;
		} else if (memchr(cpus, '(', cpus_len) != NULL) {
			return -EINVAL;
		}
		if (parse_plain_list(cpus, cpus_len, set) < 0)
			return -EINVAL;
		if (*p == ',') {
			p++;
			if (*p == '\0')
				return -EINVAL;
		}
	}
	return (int)cpuset_count(set);
}

/* "1-3,8" for a set; "none" when empty. */
static void
cpuset_format(const uint64_t *set, char *out, size_t len)
{
	size_t n = 0;
	unsigned int cpu = 0;

	out[0] = '\0';
	while (cpu < DPR_DOCTOR_MAX_CPUS) {
		unsigned int end;
		int w;

		if (!cpuset_has(set, cpu)) {
			cpu++;
			continue;
		}
		end = cpu;
		while (end + 1 < DPR_DOCTOR_MAX_CPUS && cpuset_has(set, end + 1))
			end++;
		if (end == cpu)
			w = snprintf(out + n, len - n, "%s%u", n ? "," : "", cpu);
		else
			w = snprintf(out + n, len - n, "%s%u-%u", n ? "," : "", cpu, end);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
		cpu = end + 1;
	}
	if (n == 0)
		snprintf(out, len, "none");
}

/* ---- kernel command line ---- */

/* The value of @p key= on the command line, "" when absent (last one wins). */
static bool
cmdline_value(const struct ctx *c, const char *key, char *out, size_t len)
{
	const char *p = c->cmdline;
	size_t klen = strlen(key);
	bool found = false;

	out[0] = '\0';
	while (*p != '\0') {
		const char *end;

		while (*p == ' ')
			p++;
		end = p;
		while (*end != '\0' && *end != ' ')
			end++;
		if ((size_t)(end - p) >= klen && strncmp(p, key, klen) == 0 &&
		    (p[klen] == '=' || p + klen == end)) {
			const char *v = p + klen + (p[klen] == '=');
			size_t vlen = (size_t)(end - v);

			if (vlen >= len)
				vlen = len - 1;
			memcpy(out, v, vlen);
			out[vlen] = '\0';
			found = true;
		}
		p = end;
	}
	return found;
}

/* isolcpus=[flag,...,]LIST: the CPU list after any flags. */
static void
cmdline_cpus(const struct ctx *c, const char *key, uint64_t *set, bool *present)
{
	char v[512];
	const char *p = v;

	memset(set, 0, CPUSET_WORDS * sizeof(set[0]));
	*present = cmdline_value(c, key, v, sizeof(v)) && v[0] != '\0';
	if (!*present)
		return;
	while (isalpha((unsigned char)*p)) {
		const char *comma = strchr(p, ',');

		if (comma == NULL)
			return;
		p = comma + 1;
	}
	if (parse_plain_list(p, strlen(p), set) < 0)
		*present = false;
}

static const char *
grub_fix(const char *args)
{
	static char buf[512];

	snprintf(buf, sizeof(buf),
		 "sed -i 's/^GRUB_CMDLINE_LINUX=\"/&%s /' /etc/default/grub\n"
		 "update-grub && reboot", args);
	return buf;
}

/* ---- gathering ---- */

static bool
is_dpdk_driver(const char *drv)
{
	return strcmp(drv, "vfio-pci") == 0 || strcmp(drv, "uio_pci_generic") == 0 ||
	       strcmp(drv, "igb_uio") == 0;
}

static const struct model *
find_model(uint16_t vendor, uint16_t device, int *chelsio_pf)
{
	size_t i;

	*chelsio_pf = -1;
	if (vendor == CHELSIO) {
		unsigned int chip = device >> 12, fn = (device >> 8) & 0xf;
		uint16_t base = device & 0xf0ff;

		*chelsio_pf = (int)fn;
		if (chip != 5 && chip != 6)
			return NULL;
		if (fn == 8)
			return chip == 5 ? &chelsio_t5_vf : &chelsio_t6_vf;
		for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
			if (models[i].vendor == CHELSIO && models[i].device == base)
				return &models[i];
		return chip == 5 ? &chelsio_t5_other : &chelsio_t6_other;
	}
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (models[i].vendor == vendor && models[i].device == device)
			return &models[i];
	return NULL;
}

static const char *
vendor_name(uint16_t vendor)
{
	switch (vendor) {
	case INTEL: return "Intel";
	case CHELSIO: return "Chelsio";
	case MELLANOX: return "Mellanox";
	case REDHAT_VIRTIO: return "Red Hat";
	case VMWARE: return "VMware";
	}
	return "vendor";
}

/* "8.0 GT/s PCIe" (older kernels "8 GT/s"); 0 for "Unknown". */
static double
parse_gts(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end == s ? 0 : v;
}

static void
add_iface(struct ctx *c, struct nic *n, const char *sub)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (rpath(c, path, sizeof(path), "/sys/bus/pci/devices/%s/%s", n->addr, sub) < 0)
		return;
	d = opendir(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL && n->n_ifaces < MAX_IFACES) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= IFNAME_LEN)
			continue;
		copy_str(n->ifaces[n->n_ifaces], IFNAME_LEN, de->d_name);
		if ((size_t)snprintf(n->iface_dir[n->n_ifaces], sizeof(n->iface_dir[0]), "%s/%s",
				     sub, de->d_name) < sizeof(n->iface_dir[0]))
			n->n_ifaces++;
	}
	closedir(d);
}

static int
cmp_nic(const void *a, const void *b)
{
	return strcmp(((const struct nic *)a)->addr, ((const struct nic *)b)->addr);
}

static void
scan_pci(struct ctx *c)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (rpath(c, path, sizeof(path), "/sys/bus/pci/devices") < 0)
		return;
	d = opendir(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL && c->n_nics < MAX_NICS) {
		struct nic *n = &c->nics[c->n_nics];
		char buf[64], sub[64];
		long cls;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(n->addr))
			continue;
		memset(n, 0, sizeof(*n));
		copy_str(n->addr, sizeof(n->addr), de->d_name);
		cls = read_long(c, -1, "/sys/bus/pci/devices/%s/class", n->addr);
		n->vendor = (uint16_t)read_long(c, 0, "/sys/bus/pci/devices/%s/vendor", n->addr);
		n->device = (uint16_t)read_long(c, 0, "/sys/bus/pci/devices/%s/device", n->addr);
		n->class = cls < 0 ? 0 : (uint32_t)cls;
		n->model = find_model(n->vendor, n->device, &n->chelsio_pf);
		/* Every network device, and the known ones whatever their class
		 * (Chelsio's other functions, a VF without its class file). */
		if ((n->class >> 16) != 0x02 && n->model == NULL)
			continue;
		read_link_base(c, n->driver, sizeof(n->driver), "/sys/bus/pci/devices/%s/driver",
			       n->addr);
		n->numa = (int)read_long(c, -1, "/sys/bus/pci/devices/%s/numa_node", n->addr);
		if (read_link_base(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/iommu_group",
				   n->addr) == 0)
			n->iommu_group = atoi(buf);
		else
			n->iommu_group = -1;
		if (read_str(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/current_link_speed",
			     n->addr) == 0)
			n->cur_gts = parse_gts(buf);
		if (read_str(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/max_link_speed",
			     n->addr) == 0)
			n->max_gts = parse_gts(buf);
		n->cur_width = (int)read_long(c, 0, "/sys/bus/pci/devices/%s/current_link_width",
					      n->addr);
		n->max_width = (int)read_long(c, 0, "/sys/bus/pci/devices/%s/max_link_width",
					      n->addr);
		add_iface(c, n, "net");
		/* virtio-net: the interface hangs off the virtio device */
		for (int i = 0; i < 8 && n->n_ifaces == 0; i++) {
			snprintf(sub, sizeof(sub), "virtio%d/net", i);
			add_iface(c, n, sub);
		}
		/* readdir order is the file system's: name order reads better
		 * and the first interface is the port 0 one */
		for (unsigned int i = 1; i < n->n_ifaces; i++)
			for (unsigned int j = i; j > 0 && strcmp(n->ifaces[j], n->ifaces[j - 1]) < 0;
			     j--) {
				char t[IFNAME_LEN], td[sizeof(n->iface_dir[0])];

				memcpy(t, n->ifaces[j], sizeof(t));
				memcpy(td, n->iface_dir[j], sizeof(td));
				memcpy(n->ifaces[j], n->ifaces[j - 1], sizeof(t));
				memcpy(n->iface_dir[j], n->iface_dir[j - 1], sizeof(td));
				memcpy(n->ifaces[j - 1], t, sizeof(t));
				memcpy(n->iface_dir[j - 1], td, sizeof(td));
			}
		c->n_nics++;
	}
	closedir(d);
	qsort(c->nics, c->n_nics, sizeof(c->nics[0]), cmp_nic);
}

static void
routed_add(struct ctx *c, const char *ifname, bool is_default)
{
	unsigned int i;

	if (strcmp(ifname, "lo") == 0 || strcmp(ifname, "*") == 0)
		return;
	for (i = 0; i < c->n_routed; i++)
		if (strcmp(c->routed[i], ifname) == 0)
			break;
	if (i == c->n_routed) {
		if (c->n_routed == ROUTED_MAX)
			return;
		copy_str(c->routed[i], IFNAME_LEN, ifname);
		c->routed_default[i] = false;
		c->n_routed++;
	}
	c->routed_default[i] |= is_default;
}

/* Interfaces with routes, as dpdk-devbind.py sees them, and the ones with a
 * default route; IPv6 link-local and multicast routes every interface has
 * do not count. */
static void
scan_routes(struct ctx *c)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	if (rpath(c, path, sizeof(path), "/proc/net/route") == 0 && (f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			char ifname[IFNAME_LEN + 1];
			unsigned long dst, gw, flags, mask;
			int refcnt, use, metric;

			if (sscanf(line, "%16s %lx %lx %lx %d %d %d %lx", ifname, &dst, &gw, &flags,
				   &refcnt, &use, &metric, &mask) != 8)
				continue; /* the header */
			routed_add(c, ifname, dst == 0 && mask == 0);
		}
		fclose(f);
	}
	if (rpath(c, path, sizeof(path), "/proc/net/ipv6_route") == 0 && (f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			char dst[33], src[33], nh[33], ifname[IFNAME_LEN + 1];
			unsigned int dlen, slen, metric, refcnt, use, flags;

			if (sscanf(line, "%32s %x %32s %x %32s %x %x %x %x %16s", dst, &dlen, src,
				   &slen, nh, &metric, &refcnt, &use, &flags, ifname) != 10)
				continue;
			if (strncmp(dst, "fe80", 4) == 0 || strncmp(dst, "ff", 2) == 0)
				continue;
			/* RTF_REJECT: unreachable routes sit on lo */
			if (flags & 0x0200)
				continue;
			routed_add(c, ifname, dlen == 0);
		}
		fclose(f);
	}
}

static int
routed_state(const struct ctx *c, const char *ifname)
{
	unsigned int i;

	for (i = 0; i < c->n_routed; i++)
		if (strcmp(c->routed[i], ifname) == 0)
			return c->routed_default[i] ? 2 : 1;
	return 0;
}

static void
scan_nodes(struct ctx *c)
{
	char path[PATH_MAX], buf[1024];
	struct dirent *de;
	DIR *d;

	if (rpath(c, path, sizeof(path), "/sys/devices/system/node") < 0)
		return;
	d = opendir(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long n;

		if (strncmp(de->d_name, "node", 4) != 0 || !isdigit((unsigned char)de->d_name[4]))
			continue;
		n = strtol(de->d_name + 4, &end, 10);
		if (*end != '\0' || n < 0 || n >= MAX_NODES)
			continue;
		c->node_present[n] = true;
		if (n + 1 > c->n_nodes)
			c->n_nodes = (int)n + 1;
		if (read_str(c, buf, sizeof(buf), "/sys/devices/system/node/node%ld/cpulist", n) == 0)
			parse_plain_list(buf, strlen(buf), c->node_cpus[n]);
	}
	closedir(d);
}

static int
cpu_node(const struct ctx *c, unsigned int cpu)
{
	int n;

	for (n = 0; n < c->n_nodes; n++)
		if (c->node_present[n] && cpuset_has(c->node_cpus[n], cpu))
			return n;
	return -1;
}

/* ---- IOMMU and VFIO ---- */

static bool
dir_has_entries(const struct ctx *c, const char *rel)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool any = false;
	DIR *d;

	if (rpath(c, path, sizeof(path), "%s", rel) < 0)
		return false;
	d = opendir(path);
	if (d == NULL)
		return false;
	while (!any && (de = readdir(d)) != NULL)
		any = de->d_name[0] != '.';
	closedir(d);
	return any;
}

/* Config ports that need vfio-pci or uio (PCI, not Mellanox). */
static unsigned int
ports_needing_vfio(const struct ctx *c)
{
	unsigned int i, n = 0;
	char addr[32];

	for (i = 0; i < c->in->n_ports; i++) {
		unsigned int j;
		bool exempt = false;

		if (!dpr_doctor_pci_address(c->in->ports[i].device, addr, sizeof(addr)))
			continue;
		/* Mellanox stays on its kernel driver; uio needs no IOMMU */
		for (j = 0; j < c->n_nics; j++)
			if (strcmp(c->nics[j].addr, addr) == 0 &&
			    ((c->nics[j].model && families[c->nics[j].model->fam].bifurcated) ||
			     (is_dpdk_driver(c->nics[j].driver) &&
			      strcmp(c->nics[j].driver, "vfio-pci") != 0)))
				exempt = true;
		n += !exempt;
	}
	return n;
}

static void
check_iommu(struct ctx *c)
{
	char v[128], fix[1024];
	bool intel_on, amd_off, pt, with_config = c->in->n_ports > 0;
	unsigned int need = ports_needing_vfio(c), i, candidates = 0;
	enum dpr_doctor_severity missing;
	const char *args;

	for (i = 0; i < c->n_nics; i++)
		if (c->nics[i].model && !families[c->nics[i].model->fam].bifurcated)
			candidates++;
	/* With a config, only its PCI ports matter; without one, any NIC
	 * dpr could drive might be meant. */
	if (with_config)
		missing = need ? DPR_DOCTOR_ERROR : DPR_DOCTOR_INFO;
	else
		missing = candidates ? DPR_DOCTOR_WARNING : DPR_DOCTOR_INFO;

	intel_on = cmdline_value(c, "intel_iommu", v, sizeof(v)) && strstr(v, "on") != NULL;
	amd_off = cmdline_value(c, "amd_iommu", v, sizeof(v)) && strstr(v, "off") != NULL;
	pt = cmdline_value(c, "iommu", v, sizeof(v)) && strcmp(v, "pt") == 0;
	c->iommu_groups = dir_has_entries(c, "/sys/kernel/iommu_groups");
	read_str(c, v, sizeof(v), "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode");
	c->noiommu = v[0] == 'Y' || v[0] == '1';
	c->vfio_pci = exists(c, "/sys/module/vfio_pci");
	args = c->amd_cpu ? "iommu=pt" : "intel_iommu=on iommu=pt";

	if (c->iommu_groups) {
		add(c, DPR_DOCTOR_OK, "iommu", "/sys/kernel/iommu_groups", need > 0, NULL,
		    "IOMMU on: /sys/kernel/iommu_groups has groups%s",
		    intel_on ? " (intel_iommu=on)" : "");
		if (!pt)
			add(c, DPR_DOCTOR_WARNING, "iommu", "/proc/cmdline", false, grub_fix("iommu=pt"),
			    "iommu=pt is not on the kernel command line: devices left to the kernel "
			    "pay for DMA remapping (DPDK's guides ask for iommu=pt)");
	} else if (c->noiommu) {
		add(c, need ? DPR_DOCTOR_WARNING : DPR_DOCTOR_INFO, "iommu",
		    "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", false,
		    grub_fix(args),
		    "no IOMMU, VFIO in no-IOMMU mode: vfio-pci works without DMA isolation (a "
		    "device can write anywhere in memory); use an IOMMU where the machine has one");
	} else {
		const char *first;

		/* Asked for on the command line (or on by default) and still
		 * absent: the firmware setup has it off. */
		if (c->amd_cpu && amd_off)
			first = "sed -i 's/ *amd_iommu=off//' /etc/default/grub\n"
				"update-grub && reboot";
		else if (c->amd_cpu || intel_on)
			first = "# turn on VT-d (Intel) or AMD-Vi/IOMMU (AMD) in the firmware setup, "
				"then reboot";
		else
			first = grub_fix(args);
		snprintf(fix, sizeof(fix),
			 "%s\n# or, in a VM without a virtual IOMMU (no DMA isolation):\n"
			 "modprobe vfio enable_unsafe_noiommu_mode=1", first);
		add(c, missing, "iommu", "/proc/cmdline", need > 0, fix,
		    "no IOMMU: /sys/kernel/iommu_groups is empty%s and VFIO's no-IOMMU mode is "
		    "off, so vfio-pci cannot take a device%s",
		    c->amd_cpu ? (amd_off ? ", /proc/cmdline has amd_iommu=off" :
				  " (AMD turns its IOMMU on by default: check that the firmware "
				  "setup has it enabled)") :
		    intel_on ? " although intel_iommu=on (check VT-d in the firmware setup)" :
			       ", /proc/cmdline has no intel_iommu=on",
		    need ? " (the config has PCI ports)" : "");
	}

	if (c->vfio_pci)
		add(c, DPR_DOCTOR_OK, "vfio", "/sys/module/vfio_pci", need > 0, NULL,
		    "vfio-pci is loaded");
	else
		add(c, missing, "vfio", "/sys/module/vfio_pci", need > 0,
		    "modprobe vfio-pci\necho vfio-pci > /etc/modules-load.d/vfio-pci.conf",
		    "vfio-pci is not loaded (no /sys/module/vfio_pci)");
}

/* Every device in a vfio-pci device's IOMMU group must be on vfio-pci or
 * on no driver (bridges aside), or VFIO refuses the group. */
static void
check_iommu_group(struct ctx *c, const struct nic *n, bool preflight)
{
	char path[PATH_MAX], drv[64], fix[1024] = "", others[512] = "";
	size_t fl = 0, ol = 0;
	struct dirent *de;
	DIR *d;

	if (n->iommu_group < 0 ||
	    rpath(c, path, sizeof(path), "/sys/kernel/iommu_groups/%d/devices", n->iommu_group) < 0)
		return;
	d = opendir(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		long cls;
		int w;

		if (de->d_name[0] == '.' || strcmp(de->d_name, n->addr) == 0)
			continue;
		cls = read_long(c, 0, "/sys/bus/pci/devices/%s/class", de->d_name);
		if ((cls >> 8) == 0x0604) /* PCI bridge */
			continue;
		if (read_link_base(c, drv, sizeof(drv), "/sys/bus/pci/devices/%s/driver",
				   de->d_name) < 0 || is_dpdk_driver(drv) || strcmp(drv, "pcieport") == 0)
			continue;
		w = snprintf(others + ol, sizeof(others) - ol, "%s%s (%s)", ol ? ", " : "",
			     de->d_name, drv);
		if (w > 0 && (size_t)w < sizeof(others) - ol)
			ol += (size_t)w;
		w = snprintf(fix + fl, sizeof(fix) - fl, "%sdpdk-devbind.py -u %s", fl ? "\n" : "",
			     de->d_name);
		if (w > 0 && (size_t)w < sizeof(fix) - fl)
			fl += (size_t)w;
	}
	closedir(d);
	if (ol > 0)
		add(c, preflight ? DPR_DOCTOR_ERROR : DPR_DOCTOR_WARNING, "iommu", n->addr, preflight,
		    fix,
		    "IOMMU group %d of %s also holds %s: vfio-pci takes a group only when every "
		    "device in it is on vfio-pci or on no driver",
		    n->iommu_group, n->addr, others);
}

/* ---- hugepages ---- */

static const char *
size_name(unsigned long kb)
{
	static char buf[32];

	if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
		snprintf(buf, sizeof(buf), "%luG", kb / (1024 * 1024));
	else if (kb >= 1024 && kb % 1024 == 0)
		snprintf(buf, sizeof(buf), "%luM", kb / 1024);
	else
		snprintf(buf, sizeof(buf), "%luK", kb);
	return buf;
}

/* "pagesize=1G" / "1024M" / "2M" / "2048k" in kB. */
static unsigned long
parse_size_kb(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	switch (toupper((unsigned char)*end)) {
	case 'G': return v * 1024 * 1024;
	case 'M': return v * 1024;
	case 'K': return v;
	default: return v / 1024;
	}
}

static void
scan_hugepages(struct ctx *c)
{
	char path[PATH_MAX], line[1024], buf[128];
	unsigned long dflt_kb = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	if (rpath(c, path, sizeof(path), "/sys/kernel/mm/hugepages") == 0 &&
	    (d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL && c->n_sizes < MAX_PAGE_SIZES) {
			struct page_size *ps = &c->sizes[c->n_sizes];
			int node;

			if (strncmp(de->d_name, "hugepages-", 10) != 0 ||
			    strlen(de->d_name) >= sizeof(ps->dir))
				continue;
			memset(ps, 0, sizeof(*ps));
			copy_str(ps->dir, sizeof(ps->dir), de->d_name);
			ps->kb = strtoul(de->d_name + 10, NULL, 10);
			ps->nr = read_long(c, 0, "/sys/kernel/mm/hugepages/%s/nr_hugepages", ps->dir);
			ps->free = read_long(c, 0, "/sys/kernel/mm/hugepages/%s/free_hugepages",
					     ps->dir);
			for (node = 0; node < MAX_NODES; node++)
				ps->node_nr[node] = read_long(c, -1,
					"/sys/devices/system/node/node%d/hugepages/%s/nr_hugepages",
					node, ps->dir);
			c->n_sizes++;
		}
		closedir(d);
	}
	/* smallest first */
	for (unsigned int i = 1; i < c->n_sizes; i++)
		for (unsigned int j = i; j > 0 && c->sizes[j].kb < c->sizes[j - 1].kb; j--) {
			struct page_size t = c->sizes[j];

			c->sizes[j] = c->sizes[j - 1];
			c->sizes[j - 1] = t;
		}

	/* Line by line: Hugepagesize comes after the first KiB of the file. */
	if (rpath(c, path, sizeof(path), "/proc/meminfo") == 0 && (f = fopen(path, "r")) != NULL) {
		while (dflt_kb == 0 && fgets(line, sizeof(line), f))
			if (strncmp(line, "Hugepagesize:", 13) == 0)
				dflt_kb = strtoul(line + 13, NULL, 10);
		fclose(f);
	}
	if (dflt_kb == 0)
		dflt_kb = 2048;
	if (rpath(c, path, sizeof(path), "/proc/mounts") < 0 || (f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		char dev[128], mnt[128], type[32], opts[512];
		unsigned long kb = dflt_kb;
		const char *ps;
		unsigned int i;

		if (sscanf(line, "%127s %127s %31s %511s", dev, mnt, type, opts) != 4 ||
		    strcmp(type, "hugetlbfs") != 0)
			continue;
		ps = strstr(opts, "pagesize=");
		if (ps) {
			copy_str(buf, sizeof(buf), ps + 9);
			buf[strcspn(buf, ",")] = '\0';
			kb = parse_size_kb(buf);
		}
		for (i = 0; i < c->n_sizes; i++)
			if (c->sizes[i].kb == kb && c->sizes[i].mount[0] == '\0')
				copy_str(c->sizes[i].mount, sizeof(c->sizes[i].mount), mnt);
	}
	fclose(f);
}

/* Nodes where dpr will want memory: the config's PCI ports', or without a
 * config every NIC dpr could drive. */
static void
interesting_nodes(const struct ctx *c, bool *nodes, bool from_config)
{
	unsigned int i;

	memset(nodes, 0, MAX_NODES * sizeof(bool));
	for (i = 0; i < c->n_nics; i++) {
		const struct nic *n = &c->nics[i];

		if (n->numa < 0 || n->numa >= MAX_NODES)
			continue;
		if (from_config ? n->port != NULL : n->model != NULL)
			nodes[n->numa] = true;
	}
}

static void
check_hugepages(struct ctx *c)
{
	bool with_config = c->in->n_ports > 0, nodes[MAX_NODES];
	const struct page_size *big = NULL, *used = NULL;
	unsigned int i;
	char fix[1024];
	int node;

	for (i = 0; i < c->n_sizes; i++) {
		const struct page_size *ps = &c->sizes[i];
		char subj[64];

		if (ps->kb == 1024 * 1024)
			big = ps;
		if (ps->nr <= 0)
			continue;
		used = ps;
		copy_str(subj, sizeof(subj), ps->dir);
		if (ps->mount[0] != '\0') {
			add(c, DPR_DOCTOR_OK, "hugepages", subj, true, NULL,
			    "%ld pages of %s reserved (%ld MiB, %ld free), hugetlbfs mounted at %s",
			    ps->nr, size_name(ps->kb), ps->nr * (long)ps->kb / 1024, ps->free,
			    ps->mount);
		} else {
			const char *sz = size_name(ps->kb);

			snprintf(fix, sizeof(fix),
				 "mkdir -p /dev/hugepages-%s && mount -t hugetlbfs -o pagesize=%s nodev "
				 "/dev/hugepages-%s\n"
				 "echo 'nodev /dev/hugepages-%s hugetlbfs pagesize=%s 0 0' >> /etc/fstab",
				 sz, sz, sz, sz, sz);
			add(c, DPR_DOCTOR_ERROR, "hugepages", subj, true, fix,
			    "%ld pages of %s reserved but no hugetlbfs is mounted with that page size "
			    "(in /proc/mounts): EAL uses them only with --in-memory",
			    ps->nr, sz);
		}
		if (ps->free == 0)
			add(c, DPR_DOCTOR_WARNING, "hugepages", subj, false,
			    "# find the processes holding them:\n"
			    "grep -l -e rtemap -e anon_hugepage /proc/[0-9]*/maps",
			    "all %ld pages of %s are in use (another DPDK process running?)",
			    ps->nr, size_name(ps->kb));
	}
	if (used == NULL) {
		const char *where = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";
		char pernode[128];

		/* Reserve on the ports' node when there is a single one. */
		interesting_nodes(c, nodes, with_config);
		for (node = 0, pernode[0] = '\0'; node < MAX_NODES; node++)
			if (nodes[node] && c->node_present[node] && c->n_nodes > 1) {
				snprintf(pernode, sizeof(pernode),
					 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/"
					 "nr_hugepages", node);
				break;
			}
		snprintf(fix, sizeof(fix), "echo 1024 > %s%s", pernode[0] ? pernode : where,
			 c->n_sizes > 0 && c->sizes[0].mount[0] == '\0' ?
			 "\nmkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages" : "");
		add(c, DPR_DOCTOR_ERROR, "hugepages", "/sys/kernel/mm/hugepages", true,
		    c->n_sizes ? fix : NULL,
		    c->n_sizes ? "no hugepages reserved (nr_hugepages is 0 for every size): EAL "
				 "needs them unless dpr runs with --no-huge -m MB" :
				 "no /sys/kernel/mm/hugepages: the kernel has no hugepage support "
				 "visible here; EAL needs hugepages unless dpr runs with --no-huge");
		return;
	}
	if (big != NULL && big->nr <= 0)
		add(c, DPR_DOCTOR_INFO, "hugepages", big->dir, false,
		    grub_fix("default_hugepagesz=1G hugepagesz=1G hugepages=16"),
		    "the CPU has 1 GiB pages and none are reserved: routers should use them (fewer "
		    "TLB misses on the FIB and pools); reserve them at boot, the kernel spreads them "
		    "over the nodes");

	/* Per node: memory must exist where the ports are. */
	interesting_nodes(c, nodes, with_config);
	for (node = 0; node < MAX_NODES; node++) {
		char have[256] = "", subj[64];
		size_t hl = 0;
		long on_node = 0, other = 0;
		const struct page_size *pick = used;

		if (!nodes[node] || !c->node_present[node])
			continue;
		for (i = 0; i < c->n_sizes; i++) {
			const struct page_size *ps = &c->sizes[i];
			int m, w;

			if (ps->nr <= 0)
				continue;
			if (ps->node_nr[node] > 0)
				on_node += ps->node_nr[node];
			for (m = 0; m < c->n_nodes; m++) {
				if (m == node || ps->node_nr[m] <= 0)
					continue;
				other += ps->node_nr[m];
				pick = ps;
				w = snprintf(have + hl, sizeof(have) - hl, "%s%ld of %s on node%d",
					     hl ? ", " : "", ps->node_nr[m], size_name(ps->kb), m);
				if (w > 0 && (size_t)w < sizeof(have) - hl)
					hl += (size_t)w;
			}
		}
		snprintf(subj, sizeof(subj), "node%d", node);
		if (on_node > 0) {
			add(c, DPR_DOCTOR_OK, "hugepages", subj, with_config, NULL,
			    "node%d, where %s, has %ld hugepages", node,
			    with_config ? "config ports are" : "NICs are", on_node);
			continue;
		}
		if (other == 0 && c->n_nodes <= 1)
			continue; /* no per-node view: the totals above say it */
		snprintf(fix, sizeof(fix),
			 "echo %ld > /sys/devices/system/node/node%d/hugepages/%s/nr_hugepages",
			 pick->node_nr[0] > 0 ? pick->node_nr[0] : pick->nr, node, pick->dir);
		add(c, with_config ? DPR_DOCTOR_ERROR : DPR_DOCTOR_WARNING, "hugepages", subj,
		    with_config, fix,
		    "node%d has no hugepages but %s there (%s): dpr's mbuf pool for node%d cannot "
		    "be created",
		    node, with_config ? "config ports are" : "NICs are", hl ? have : "none elsewhere",
		    node);
	}
}

/* ---- NICs ---- */

static double
lane_gbps(double gts)
{
	/* 8b/10b up to 5 GT/s (gen 1-2), 128b/130b from 8 GT/s (gen 3-5) */
	return gts <= 5.0 ? gts * 8 / 10 : gts * 128 / 130;
}

/* Functions of the same card: same domain:bus:device. */
static bool
same_slot(const char *a, const char *b)
{
	const char *da = strrchr(a, '.'), *db = strrchr(b, '.');

	return da && db && da - a == db - b && strncmp(a, b, (size_t)(da - a)) == 0;
}

static void
check_pcie(struct ctx *c, const struct nic *n)
{
	const struct model *m = n->model;
	double cur, cap, need;
	unsigned int i, ports = 0;
	char fix[512];

	if (m == NULL || families[m->fam].vf || n->cur_width <= 0 || n->cur_gts <= 0)
		return;
	if (m->gbps == 0) {
		long speed = 0;

		/* Mellanox and friends: what the kernel interface reports */
		for (i = 0; i < n->n_ifaces && speed <= 0; i++)
			speed = read_long(c, -1, "/sys/bus/pci/devices/%s/%s/speed", n->addr,
					  n->iface_dir[i]);
		if (speed <= 0)
			return;
		need = (double)speed / 1000;
		for (i = 0; i < c->n_nics; i++)
			if (&c->nics[i] != n && same_slot(c->nics[i].addr, n->addr) &&
			    c->nics[i].model == m)
				need += (double)speed / 1000;
	} else if (m->fam == FAM_CXGBE) {
		need = (double)m->ports * m->gbps;
		ports = m->ports;
	} else {
		/* one port per function: add the card's other functions */
		for (i = 0; i < c->n_nics; i++)
			if (same_slot(c->nics[i].addr, n->addr) && c->nics[i].model &&
			    c->nics[i].model->fam == m->fam && !families[m->fam].vf)
				ports++;
		need = (double)ports * m->gbps;
	}
	if (m->card_gbps && need > m->card_gbps)
		need = m->card_gbps;
	cur = lane_gbps(n->cur_gts) * n->cur_width;
	cap = n->max_width > 0 && n->max_gts > 0 ? lane_gbps(n->max_gts) * n->max_width : cur;

	if (cur + 0.5 >= need) {
		add(c, DPR_DOCTOR_OK, "pcie", n->addr, false, NULL,
		    "%s: PCIe x%d at %g GT/s carries %.0f Gbit/s (before protocol overhead), enough "
		    "for %.0f Gbit/s of ports", n->addr, n->cur_width, n->cur_gts, cur, need);
		return;
	}
	if (cap > cur + 0.5) {
		snprintf(fix, sizeof(fix),
			 "# move the card to a slot with x%d lanes at %g GT/s or better, then check:\n"
			 "lspci -s %s -vv | grep -E 'LnkCap|LnkSta'",
			 n->max_width, n->max_gts, n->addr);
		add(c, DPR_DOCTOR_WARNING, "pcie", n->addr, false, fix,
		    "%s (%s %s): the slot gives x%d at %g GT/s = %.0f Gbit/s, the card's ports need "
		    "%.0f Gbit/s at line rate%s; the card can do x%d at %g GT/s = %.0f Gbit/s",
		    n->addr, vendor_name(m->vendor), m->name, n->cur_width, n->cur_gts, cur, need,
		    ports > 1 && cur < m->gbps ? " and even one port cannot reach it" : "",
		    n->max_width, n->max_gts, cap);
	} else {
		add(c, DPR_DOCTOR_INFO, "pcie", n->addr, false, NULL,
		    "%s (%s %s): its own PCIe link, x%d at %g GT/s, carries %.0f Gbit/s, less than "
		    "the %.0f Gbit/s of all its ports at line rate: the card cannot fill them all "
		    "at once", n->addr, vendor_name(m->vendor), m->name, n->cur_width, n->cur_gts,
		    cur, need);
	}
}

/* Versions "1.3.30.0": <0, 0, >0 like strcmp. */
static int
version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10);
		unsigned long y = strtoul(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
		if (!isdigit((unsigned char)*a) && !isdigit((unsigned char)*b))
			break;
	}
	return 0;
}

static void
check_ice_firmware(struct ctx *c, const struct nic *n, bool needed)
{
	static const char *const dirs[] = {
		"/lib/firmware/updates/intel/ice/ddp", "/lib/firmware/intel/ice/ddp",
	};
	char target[128] = "", path[PATH_MAX];
	const char *found = NULL;
	size_t i;

	for (i = 0; i < 2 && found == NULL; i++)
		if (exists(c, "%s/ice.pkg", dirs[i])) {
			found = dirs[i];
			if (rpath(c, path, sizeof(path), "%s/ice.pkg", dirs[i]) == 0) {
				ssize_t len = readlink(path, target, sizeof(target) - 1);

				target[len > 0 ? len : 0] = '\0';
			}
		}
	if (found == NULL) {
		add(c, needed ? DPR_DOCTOR_ERROR : DPR_DOCTOR_WARNING, "firmware", n->addr, needed,
		    "apt install firmware-misc-nonfree   # Debian: non-free-firmware in "
		    "/etc/apt/sources.list",
		    "%s (ice): no DDP package (ice.pkg in /lib/firmware/updates/intel/ice/ddp or "
		    "/lib/firmware/intel/ice/ddp): the ice PMD fails to probe, and with "
		    "safe-mode-support=1 runs in Safe Mode (no RSS, one queue: one worker)",
		    n->addr);
		return;
	}
	{
		const char *base = strrchr(target, '/');
		const char *v;

		base = base ? base + 1 : target;
		v = strncmp(base, "ice-", 4) == 0 ? base + 4 : NULL;
		if (v != NULL && isdigit((unsigned char)*v) && version_cmp(v, "1.3.30") < 0)
			add(c, DPR_DOCTOR_WARNING, "firmware", n->addr, false,
			    "apt install -t bookworm-backports firmware-misc-nonfree",
			    "%s (ice): DDP package %s/ice.pkg is %s, older than 1.3.30, the OS "
			    "default package DPDK 22.11 was validated with", n->addr, found, base);
		else
			add(c, DPR_DOCTOR_OK, "firmware", n->addr, false, NULL,
			    "%s (ice): DDP package %s/ice.pkg%s%s", n->addr, found,
			    target[0] ? " -> " : "", target);
	}
}

/* Highest "t6fw-1.27.4.0.bin" in /lib/firmware/cxgb4. */
static void
check_chelsio_firmware(struct ctx *c, const struct nic *n, bool t5)
{
	char path[PATH_MAX], best[64] = "", pattern[32], fix[512];
	const char *chip = t5 ? "t5" : "t6";
	struct dirent *de;
	DIR *d;

	snprintf(pattern, sizeof(pattern), "%sfw-*.bin", chip);
	if (rpath(c, path, sizeof(path), "/lib/firmware/cxgb4") == 0 && (d = opendir(path))) {
		while ((de = readdir(d)) != NULL) {
			const char *v = de->d_name + 5;

			if (fnmatch(pattern, de->d_name, 0) != 0 || !isdigit((unsigned char)*v))
				continue;
			if (best[0] == '\0' || version_cmp(v, best) > 0)
				snprintf(best, sizeof(best), "%.*s", (int)(strlen(v) - 4), v);
		}
		closedir(d);
	}
	snprintf(fix, sizeof(fix), "ethtool -i %s | grep firmware-version",
		 n->n_ifaces ? n->ifaces[0] : "<interface of cxgb4>");
	if (best[0] == '\0')
		add(c, DPR_DOCTOR_INFO, "firmware", n->addr, false, fix,
		    "%s (cxgbe): the cxgbe PMD needs adapter firmware 1.25.6.0 or newer; no "
		    "/lib/firmware/cxgb4/%sfw-*.bin to update it from, so check what the card has "
		    "while cxgb4 drives it (flash with cxgbtool IFACE loadfw from Chelsio's Unified "
		    "Wire package)", n->addr, chip);
	else if (version_cmp(best, "1.25.6.0") < 0)
		add(c, DPR_DOCTOR_WARNING, "firmware", n->addr, false, fix,
		    "%s (cxgbe): newest firmware file is /lib/firmware/cxgb4/%sfw-%s.bin, older "
		    "than the 1.25.6.0 the cxgbe PMD needs", n->addr, chip, best);
	else
		add(c, DPR_DOCTOR_OK, "firmware", n->addr, false, NULL,
		    "%s (cxgbe): /lib/firmware/cxgb4/%sfw-%s.bin (PMD needs 1.25.6.0 or newer on "
		    "the card; cxgb4 flashes a newer file when it loads)", n->addr, chip, best);
	if (exists(c, "/lib/firmware/cxgb4/%s-config.txt", chip))
		add(c, DPR_DOCTOR_INFO, "firmware", n->addr, false, NULL,
		    "%s (cxgbe): /lib/firmware/cxgb4/%s-config.txt exists; the PMD applies it at "
		    "init, and it decides how many queues each port gets", n->addr, chip);
}

static void
check_kernel_driver_version(struct ctx *c, const struct nic *n)
{
	const char *kdrv = families[n->model->fam].kdriver, *want = NULL;
	char ver[64];

	if (n->model->fam == FAM_ICE)
		want = "1.10.1";
	else if (n->model->fam == FAM_I40E)
		want = "2.20.12";
	if (want == NULL || read_str(c, ver, sizeof(ver), "/sys/module/%s/version", kdrv) < 0 ||
	    ver[0] == '\0')
		return;
	if (version_cmp(ver, want) < 0)
		add(c, DPR_DOCTOR_WARNING, "firmware", n->addr, false, NULL,
		    "%s: kernel %s driver %s is older than %s, the one DPDK 22.11 was validated "
		    "with; the NVM and DDP versions it carries are the ones that matter for the PMD",
		    n->addr, kdrv, ver, want);
	else
		add(c, DPR_DOCTOR_OK, "firmware", n->addr, false, NULL,
		    "%s: kernel %s driver %s (DPDK 22.11 validated %s)", n->addr, kdrv, ver, want);
}

static void
describe_ifaces(const struct ctx *c, const struct nic *n, char *out, size_t len, int *routed)
{
	size_t l = 0;
	unsigned int i;

	out[0] = '\0';
	*routed = 0;
	for (i = 0; i < n->n_ifaces; i++) {
		char oper[32] = "", speed[32] = "";
		int st = routed_state(c, n->ifaces[i]), w;
		long mbps;

		read_str(c, oper, sizeof(oper), "/sys/bus/pci/devices/%s/%s/operstate", n->addr,
			 n->iface_dir[i]);
		mbps = read_long(c, -1, "/sys/bus/pci/devices/%s/%s/speed", n->addr,
				 n->iface_dir[i]);
		if (mbps > 0)
			snprintf(speed, sizeof(speed), " %ld Mbit/s", mbps);
		w = snprintf(out + l, len - l, "%s%s (link %s%s%s)", l ? ", " : "", n->ifaces[i],
			     oper[0] ? oper : "unknown", speed,
			     st == 2 ? ", carries the default route" : st == 1 ? ", has routes" : "");
		if (w > 0 && (size_t)w < len - l)
			l += (size_t)w;
		if (st > *routed)
			*routed = st;
	}
}

static const char *
port_of(const struct ctx *c, const char *addr)
{
	unsigned int i;
	char a[32];

	for (i = 0; i < c->in->n_ports; i++)
		if (dpr_doctor_pci_address(c->in->ports[i].device, a, sizeof(a)) &&
		    strcmp(a, addr) == 0)
			return c->in->ports[i].name;
	return NULL;
}

static void
check_nic(struct ctx *c, struct nic *n)
{
	const struct model *m = n->model;
	const struct family_info *fi = m ? &families[m->fam] : NULL;
	char ifs[512], numa[32], fix[512], what[160];
	bool in_cfg = n->port != NULL, dpdk = is_dpdk_driver(n->driver);
	enum dpr_doctor_severity sev;
	int routed;

	describe_ifaces(c, n, ifs, sizeof(ifs), &routed);
	if (n->numa >= 0)
		snprintf(numa, sizeof(numa), "NUMA node %d", n->numa);
	else
		snprintf(numa, sizeof(numa), "no NUMA node");
	if (m == NULL) {
		if (in_cfg || n->vendor == INTEL || n->vendor == CHELSIO || n->vendor == MELLANOX)
			add(c, in_cfg ? DPR_DOCTOR_WARNING : DPR_DOCTOR_INFO, "nic", n->addr, false,
			    NULL,
			    "%s: network device %04x:%04x (%s), driver %s%s%s: not a model dpr has a "
			    "profile for; it would get drivers-cfg/default.json",
			    n->addr, n->vendor, n->device, vendor_name(n->vendor),
			    n->driver[0] ? n->driver : "none", n->n_ifaces ? ", " : "", ifs);
		return;
	}
	if (m->fam == FAM_CXGBE && n->chelsio_pf != 4) {
		/* PF0-3 and PF5-6 are the adapter's other functions (storage,
		 * SR-IOV parents): only PF4 carries the NIC ports for DPDK. */
		add(c, in_cfg ? DPR_DOCTOR_ERROR : DPR_DOCTOR_INFO, "nic", n->addr, in_cfg, NULL,
		    "%s: Chelsio %s function %d (driver %s): dpr's cxgbe PMD drives physical "
		    "function 4 only%s", n->addr, m->name, n->chelsio_pf,
		    n->driver[0] ? n->driver : "none",
		    in_cfg ? "; name the adapter's .4 function in the config" : "");
		return;
	}
	snprintf(what, sizeof(what), "%s%s%s%s %s (%04x:%04x, %s)", in_cfg ? "port " : "",
		 in_cfg ? n->port : "", in_cfg ? ", " : "", vendor_name(m->vendor), m->name,
		 n->vendor, n->device, fi->pmd);

	if (fi->bifurcated) {
		bool ok = strcmp(n->driver, fi->kdriver) == 0;

		snprintf(fix, sizeof(fix), "dpdk-devbind.py --bind=mlx5_core %s", n->addr);
		add(c, ok ? DPR_DOCTOR_OK : in_cfg ? DPR_DOCTOR_ERROR : DPR_DOCTOR_WARNING, "nic",
		    n->addr, in_cfg, ok ? NULL : fix,
		    "%s: %s, driver %s, %s%s%s: the mlx5 PMD works beside the kernel's mlx5_core "
		    "(bifurcated), so it must stay on mlx5_core, never on vfio-pci",
		    n->addr, what, n->driver[0] ? n->driver : "none", numa, n->n_ifaces ? ", " : "",
		    ifs);
		if (in_cfg && (!exists(c, "/sys/module/mlx5_ib") || !exists(c, "/sys/module/ib_uverbs")))
			add(c, DPR_DOCTOR_ERROR, "nic", n->addr, true,
			    "modprobe mlx5_ib ib_uverbs\napt install rdma-core ibverbs-providers",
			    "%s: the mlx5 PMD needs the mlx5_ib and ib_uverbs kernel modules "
			    "(rdma-core's libibverbs in user space)", n->addr);
	} else if (dpdk) {
		add(c, DPR_DOCTOR_OK, "nic", n->addr, in_cfg, NULL,
		    "%s: %s, bound to %s, %s%s", n->addr, what, n->driver, numa,
		    in_cfg ? "" : " (not in the config)");
		if (strcmp(n->driver, "vfio-pci") == 0 || in_cfg)
			check_iommu_group(c, n, in_cfg);
	} else {
		/* On a kernel driver (or none). */
		const char *cfg = c->in->config_path ? c->in->config_path : "CONFIG";

		if (in_cfg) {
			snprintf(fix, sizeof(fix), "%s%sdpr-doctor --bind -c %s%s",
				 m->fam == FAM_CXGBE ? "modprobe -r cxgb4 csiostor\n" : "",
				 routed ? "# move this machine's own addresses off the interface "
					  "first, then:\n" : "",
				 cfg, routed ? " --force" : "");
			sev = DPR_DOCTOR_ERROR;
		} else {
			snprintf(fix, sizeof(fix), "dpdk-devbind.py --bind=vfio-pci %s", n->addr);
			sev = DPR_DOCTOR_INFO;
		}
		add(c, sev, "nic", n->addr, in_cfg, routed == 2 && !in_cfg ? NULL : fix,
		    "%s: %s, %s%s, %s%s%s: %s",
		    n->addr, what, n->driver[0] ? "on kernel driver " : "on no driver", n->driver,
		    numa,
		    n->n_ifaces ? ", " : "", ifs,
		    in_cfg ? "config port is not bound to vfio-pci or a uio driver, dpr cannot "
			     "probe it" :
		    routed == 2 ? "it holds the default route, probably the machine's own "
				  "management interface: never give it to dpr" :
				  "not used by dpr until bound to vfio-pci");
		if (in_cfg && routed)
			add(c, DPR_DOCTOR_WARNING, "nic", n->addr, false, NULL,
			    "%s: config port %s is %s: binding it to vfio-pci cuts the "
			    "machine off that network%s", n->addr, n->port,
			    routed == 2 ? "the interface with the default route (the machine's own "
					  "management address)" : "an interface with routes",
			    routed == 2 ? "; use another interface for management first" : "");
		if (in_cfg)
			check_iommu_group(c, n, true);
	}

	if (in_cfg && !fi->bifurcated && (m->fam == FAM_VIRTIO || m->fam == FAM_VMXNET3) &&
	    !c->iommu_groups && !c->noiommu)
		add(c, DPR_DOCTOR_INFO, "nic", n->addr, false,
		    "modprobe vfio enable_unsafe_noiommu_mode=1",
		    "%s: a VM device; without a virtual IOMMU vfio-pci needs no-IOMMU mode", n->addr);

	check_pcie(c, n);
	if (m->fam == FAM_ICE)
		check_ice_firmware(c, n, in_cfg || strcmp(n->driver, "vfio-pci") == 0);
	if (m->fam == FAM_CXGBE)
		check_chelsio_firmware(c, n, (n->device >> 12) == 5);
	if (m->fam == FAM_ICE || m->fam == FAM_I40E)
		check_kernel_driver_version(c, n);
}

static void
check_nics(struct ctx *c)
{
	unsigned int i, known = 0;

	for (i = 0; i < c->n_nics; i++)
		known += c->nics[i].model != NULL;
	if (c->n_nics == 0)
		add(c, DPR_DOCTOR_INFO, "nic", "/sys/bus/pci/devices", false, NULL,
		    "no PCI network devices in /sys/bus/pci/devices");
	else if (known == 0)
		add(c, DPR_DOCTOR_INFO, "nic", "/sys/bus/pci/devices", false, NULL,
		    "%u PCI network device(s), none of a model dpr has a profile for (Intel "
		    "ixgbe/i40e/ice, Chelsio T5/T6, Mellanox ConnectX, virtio, vmxnet3)", c->n_nics);
	for (i = 0; i < c->n_nics; i++)
		check_nic(c, &c->nics[i]);
}

/* ---- the config against the machine ---- */

static const struct nic *
nic_by_addr(const struct ctx *c, const char *addr)
{
	unsigned int i;

	for (i = 0; i < c->n_nics; i++)
		if (strcmp(c->nics[i].addr, addr) == 0)
			return &c->nics[i];
	return NULL;
}

static void
check_config_ports(struct ctx *c)
{
	unsigned int i;
	char addr[32];

	if (c->in->n_ports == 0) {
		add(c, DPR_DOCTOR_INFO, "config", "", false, "dpr-doctor -c /etc/dpr/dpr.json",
		    "no configuration given (-c): its ports are not checked against the machine");
		return;
	}
	for (i = 0; i < c->in->n_ports; i++) {
		const struct dpr_doctor_port *p = &c->in->ports[i];

		if (!dpr_doctor_pci_address(p->device, addr, sizeof(addr))) {
			add(c, DPR_DOCTOR_INFO, "config", p->name, false, NULL,
			    "port %s: virtual device \"%s\": nothing to check on the machine",
			    p->name, p->device);
			continue;
		}
		if (!exists(c, "/sys/bus/pci/devices/%s", addr)) {
			add(c, DPR_DOCTOR_ERROR, "config", p->name, true,
			    "dpdk-devbind.py --status-dev net",
			    "port %s: device %s is not in /sys/bus/pci/devices: no such PCI device "
			    "on this machine", p->name, addr);
			continue;
		}
		if (nic_by_addr(c, addr) == NULL)
			add(c, DPR_DOCTOR_ERROR, "config", p->name, true,
			    "dpdk-devbind.py --status-dev net",
			    "port %s: %s is not a network device (class %06lx)", p->name, addr,
			    read_long(c, 0, "/sys/bus/pci/devices/%s/class", addr));
	}
}

/* ---- CPU isolation and NUMA ---- */

static bool
irqbalance_running(const struct ctx *c)
{
	char path[PATH_MAX], comm[64];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (rpath(c, path, sizeof(path), "/proc") < 0 || (d = opendir(path)) == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (read_str(c, comm, sizeof(comm), "/proc/%s/comm", de->d_name) == 0 &&
		    strcmp(comm, "irqbalance") == 0)
			found = true;
	}
	closedir(d);
	return found;
}

/* IRQBALANCE_BANNED_CPULIST (or the hex IRQBALANCE_BANNED_CPUS) of
 * /etc/default/irqbalance. */
static void
irqbalance_banned(const struct ctx *c, uint64_t *set)
{
	char buf[4096], *line, *save = NULL;

	memset(set, 0, CPUSET_WORDS * sizeof(set[0]));
	if (read_str(c, buf, sizeof(buf), "/etc/default/irqbalance") < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v;

		while (*line == ' ' || *line == '\t')
			line++;
		if (strncmp(line, "IRQBALANCE_BANNED_CPULIST=", 26) == 0) {
			v = line + 26;
			v += *v == '"';
			v[strcspn(v, "\" \t")] = '\0';
			parse_plain_list(v, strlen(v), set);
		} else if (strncmp(line, "IRQBALANCE_BANNED_CPUS=", 23) == 0) {
			unsigned int bit = 0;
			size_t len;

			v = line + 23;
			v += *v == '"';
			v[strcspn(v, "\" \t")] = '\0';
			/* hex mask, comma-separated 32-bit groups, lowest last */
			for (len = strlen(v); len > 0; len--) {
				char ch = v[len - 1];
				int x;

				if (ch == ',')
					continue;
				x = isdigit((unsigned char)ch) ? ch - '0' :
				    isxdigit((unsigned char)ch) ? tolower((unsigned char)ch) - 'a' + 10 : -1;
				if (x < 0)
					break;
				for (int b = 0; b < 4; b++, bit++)
					if (x >> b & 1)
						cpuset_set(set, bit);
			}
		}
	}
}

static void check_clock(struct ctx *c, const char *cpuinfo);

static void
check_isolation(struct ctx *c)
{
	uint64_t iso[CPUSET_WORDS], nohz[CPUSET_WORDS], rcu[CPUSET_WORDS], workers[CPUSET_WORDS];
	/* parse_plain_list() adds to a set: it must start empty. */
	uint64_t banned[CPUSET_WORDS] = { 0 }, online[CPUSET_WORDS] = { 0 }, missing[CPUSET_WORDS];
	bool has_iso, present, irqb = irqbalance_running(c);
	char s_iso[256], s_nohz[256], s_rcu[256], s_w[256], s_miss[256], args[900], buf[1024];
	unsigned int main_cpu = 0, i, cpu;
	size_t al = 0;

	cmdline_cpus(c, "isolcpus", iso, &has_iso);
	cmdline_cpus(c, "nohz_full", nohz, &present);
	cmdline_cpus(c, "rcu_nocbs", rcu, &present);
	cpuset_format(iso, s_iso, sizeof(s_iso));
	cpuset_format(nohz, s_nohz, sizeof(s_nohz));
	cpuset_format(rcu, s_rcu, sizeof(s_rcu));

	if (c->in->n_lcores == 0) {
		add(c, DPR_DOCTOR_INFO, "isolation", "/proc/cmdline", false, NULL,
		    "no lcores given (--lcores): isolation not checked against them; isolcpus=%s "
		    "nohz_full=%s rcu_nocbs=%s%s", s_iso, s_nohz, s_rcu,
		    irqb ? "; irqbalance is running" : "");
		return;
	}
	/* The lowest CPU runs the main lcore (the control thread); the
	 * others run workers. */
	memcpy(workers, c->in->lcores, sizeof(workers));
	for (cpu = 0; cpu < DPR_DOCTOR_MAX_CPUS; cpu++)
		if (cpuset_has(workers, cpu)) {
			main_cpu = cpu;
			workers[cpu / 64] &= ~(1ull << (cpu % 64));
			break;
		}
	cpuset_format(workers, s_w, sizeof(s_w));

	/* CPUs that exist */
	if (read_str(c, buf, sizeof(buf), "/sys/devices/system/cpu/online") == 0 &&
	    parse_plain_list(buf, strlen(buf), online) == 0) {
		for (i = 0; i < CPUSET_WORDS; i++)
			missing[i] = c->in->lcores[i] & ~online[i];
		if (cpuset_count(missing) > 0) {
			cpuset_format(missing, s_miss, sizeof(s_miss));
			add(c, DPR_DOCTOR_ERROR, "lcores", s_miss, true, NULL,
			    "lcores on CPUs %s, which are not online (online: %s): EAL cannot start "
			    "there", s_miss, buf);
		}
	}

	if (cpuset_count(workers) == 0) {
		add(c, DPR_DOCTOR_ERROR, "lcores", "", true, NULL,
		    "one lcore (CPU %u) only: dpr runs a worker on every lcore but the main one, so "
		    "it needs two or more (-l 0,1)", main_cpu);
		return;
	}
	for (i = 0; i < CPUSET_WORDS; i++)
		missing[i] = workers[i] & ~(iso[i] & nohz[i] & rcu[i]);
	s_miss[0] = '\0';
	for (i = 0, al = 0; i < 3; i++) {
		static const char *const keys[] = { "isolcpus", "nohz_full", "rcu_nocbs" };
		const uint64_t *sets[] = { iso, nohz, rcu };
		uint64_t out[CPUSET_WORDS];
		unsigned int j;
		int w;

		for (j = 0; j < CPUSET_WORDS; j++)
			out[j] = workers[j] & ~sets[i][j];
		if (cpuset_count(out) == 0)
			continue;
		cpuset_format(out, buf, sizeof(buf));
		w = snprintf(s_miss + al, sizeof(s_miss) - al, "%s%s lacks %s", al ? ", " : "",
			     keys[i], buf);
		if (w > 0 && (size_t)w < sizeof(s_miss) - al)
			al += (size_t)w;
	}
	al = 0;
	if (cpuset_count(missing) == 0) {
		add(c, DPR_DOCTOR_OK, "isolation", s_w, false, NULL,
		    "worker CPUs %s are in isolcpus (%s), nohz_full (%s) and rcu_nocbs (%s)",
		    s_w, s_iso, s_nohz, s_rcu);
	} else {
		uint64_t all_iso[CPUSET_WORDS];

		for (i = 0; i < CPUSET_WORDS; i++)
			all_iso[i] = iso[i] | workers[i];
		cpuset_format(all_iso, buf, sizeof(buf));
		/* New values keep what is isolated already and add the
		 * workers; an existing option is replaced, not repeated. */
		for (i = 0; i < 3; i++) {
			static const char *const keys[] = { "isolcpus", "nohz_full", "rcu_nocbs" };
			int w = snprintf(args + al, sizeof(args) - al, "%s%s=%s", al ? " " : "",
					 keys[i], buf);

			if (w > 0 && (size_t)w < sizeof(args) - al)
				al += (size_t)w;
		}
		if ((size_t)snprintf(buf, sizeof(buf),
				     "sed -i -E 's/ ?(isolcpus|nohz_full|rcu_nocbs)=[^ \"]*//g; "
				     "s/^GRUB_CMDLINE_LINUX=\"/&%s /' /etc/default/grub\n"
				     "update-grub && reboot", args) >= sizeof(buf))
			buf[0] = '\0';
		add(c, DPR_DOCTOR_WARNING, "isolation", s_w, false, buf,
		    "worker CPUs %s are not all isolated: %s (isolcpus=%s nohz_full=%s "
		    "rcu_nocbs=%s): the scheduler, timer ticks and RCU callbacks interrupt the "
		    "workers", s_w, s_miss, s_iso, s_nohz, s_rcu);
	}
	if (has_iso && cpuset_has(iso, main_cpu))
		add(c, DPR_DOCTOR_WARNING, "isolation", "", false, NULL,
		    "main lcore CPU %u is isolated: it runs the control thread (control socket, "
		    "ARP/ND, ICMP, TAP) and belongs on a housekeeping CPU; start dpr with "
		    "--main-lcore on one outside isolcpus", main_cpu);

	if (irqb) {
		irqbalance_banned(c, banned);
		for (i = 0; i < CPUSET_WORDS; i++)
			missing[i] = workers[i] & ~banned[i];
		if (cpuset_count(missing) > 0) {
			uint64_t all[CPUSET_WORDS];

			for (i = 0; i < CPUSET_WORDS; i++)
				all[i] = banned[i] | workers[i];
			cpuset_format(missing, s_miss, sizeof(s_miss));
			cpuset_format(all, s_iso, sizeof(s_iso));
			snprintf(buf, sizeof(buf),
				 "sed -i '/^IRQBALANCE_BANNED_CPU/d' /etc/default/irqbalance\n"
				 "echo 'IRQBALANCE_BANNED_CPULIST=%s' >> /etc/default/irqbalance\n"
				 "systemctl restart irqbalance\n"
				 "# or stop it: systemctl disable --now irqbalance", s_iso);
			add(c, DPR_DOCTOR_WARNING, "isolation", "irqbalance", false, buf,
			    "irqbalance is running and worker CPUs %s are not in "
			    "IRQBALANCE_BANNED_CPULIST (/etc/default/irqbalance): it may move "
			    "interrupts onto them", s_miss);
		} else {
			add(c, DPR_DOCTOR_OK, "isolation", "irqbalance", false, NULL,
			    "irqbalance is running with the worker CPUs %s banned", s_w);
		}
	}

	/* Workers on the ports' NUMA nodes. */
	for (i = 0; i < c->n_nics; i++) {
		const struct nic *n = &c->nics[i];
		uint64_t off[CPUSET_WORDS];
		unsigned int j;
		char s_node[256];

		if (n->port == NULL || n->numa < 0 || n->numa >= MAX_NODES ||
		    !c->node_present[n->numa])
			continue;
		for (j = 0; j < CPUSET_WORDS; j++)
			off[j] = workers[j] & ~c->node_cpus[n->numa][j];
		if (cpuset_count(off) == 0) {
			add(c, DPR_DOCTOR_OK, "numa", n->addr, false, NULL,
			    "port %s (%s) is on node %d with all worker CPUs", n->port, n->addr,
			    n->numa);
			continue;
		}
		for (cpu = 0; cpu < DPR_DOCTOR_MAX_CPUS && !cpuset_has(off, cpu); cpu++)
			;
		cpuset_format(off, s_miss, sizeof(s_miss));
		cpuset_format(c->node_cpus[n->numa], s_node, sizeof(s_node));
		snprintf(buf, sizeof(buf), "dpr -l %s -- -c %s", s_node,
			 c->in->config_path ? c->in->config_path : "CONFIG");
		add(c, DPR_DOCTOR_WARNING, "numa", n->addr, false, buf,
		    "port %s (%s) is on NUMA node %d but worker CPUs %s are on node %d: every "
		    "descriptor and packet crosses the interconnect; run the lcores on node %d's "
		    "CPUs (%s)", n->port, n->addr, n->numa, s_miss, cpu_node(c, cpu), n->numa, s_node);
	}
}

/* ---- entry points ---- */

bool
dpr_doctor_pci_address(const char *device, char *out, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	int n = 0;
	const char *p = device;

	if (device == NULL)
		return false;
	if (sscanf(p, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) == 4 && n == 12) {
		/* with the domain */
	} else if (dom = 0, n = 0,
		   sscanf(p, "%2x:%2x.%1u%n", &bus, &dev, &fn, &n) == 3 && n == 7) {
		/* without */
	} else {
		return false;
	}
	if (!isxdigit((unsigned char)p[0]) || fn > 7 || dev > 0x1f ||
	    (p[n] != '\0' && p[n] != ',' && p[n] != '_'))
		return false;
	return snprintf(out, len, "%04x:%02x:%02x.%u", dom, bus, dev, fn) < (int)len;
}

int
dpr_doctor_run(const struct dpr_doctor_input *in, struct dpr_doctor_report *r)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char cpuinfo[8192];
	int ret;

	if (c == NULL)
		return -ENOMEM;
	c->in = in;
	c->r = r;
	copy_str(c->root, sizeof(c->root), in->sysroot ? in->sysroot : "");
	/* "/" and "" both mean the real root; no trailing slash */
	while (strlen(c->root) > 0 && c->root[strlen(c->root) - 1] == '/')
		c->root[strlen(c->root) - 1] = '\0';

	if (read_str(c, c->cmdline, sizeof(c->cmdline), "/proc/cmdline") < 0)
		add(c, DPR_DOCTOR_INFO, "system", "/proc/cmdline", false, NULL,
		    "no /proc/cmdline: kernel options (IOMMU, isolation, hugepages) unknown");
	if (read_str(c, cpuinfo, sizeof(cpuinfo), "/proc/cpuinfo") == 0) {
		c->intel_cpu = strstr(cpuinfo, "GenuineIntel") != NULL;
		c->amd_cpu = strstr(cpuinfo, "AuthenticAMD") != NULL;
	}
	scan_pci(c);
	scan_routes(c);
	scan_nodes(c);
	scan_hugepages(c);
	for (unsigned int i = 0; i < c->n_nics; i++)
		c->nics[i].port = port_of(c, c->nics[i].addr);

	check_config_ports(c);
	check_iommu(c);
	check_hugepages(c);
	check_nics(c);
	check_isolation(c);
	check_clock(c, cpuinfo);

	ret = c->err;
	free(c);
	return ret;
}

/* ---- the TSC and the kernel's clock ---- */

/* Whether the flags line of the first CPU in @p cpuinfo has @p flag. */
static bool
cpu_flag(const char *cpuinfo, const char *flag)
{
	const char *line = strstr(cpuinfo, "\nflags"), *colon;
	char flags[4096], word[64];

	if (line == NULL || (colon = strchr(line, ':')) == NULL)
		return false;
	/* " flag1 flag2 ... ": each flag is then " flag " in it. */
	snprintf(flags, sizeof(flags), "%.*s ", (int)strcspn(colon + 1, "\n"), colon + 1);
	snprintf(word, sizeof(word), " %s ", flag);
	return strstr(flags, word) != NULL;
}

/*
 * DPDK counts time in TSC cycles (rte_rdtsc(), rte_get_tsc_hz()), and so do
 * dpr's cycles_per_packet, busy_cycles and the --pipeline auto tuner; dpr's
 * timers run on CLOCK_MONOTONIC (lib/util/clock.h). A TSC whose rate follows
 * the CPU's frequency skews every cycle count; a kernel that keeps time on
 * another clocksource does not trust the TSC, which on a VM can jump when
 * the VM is paused, restored or moved (a test here saw 12 hours back).
 */
static void
check_clock(struct ctx *c, const char *cpuinfo)
{
	char cs[64], avail[256];
	bool has_flags = strstr(cpuinfo, "\nflags") != NULL;
	bool unstable_opt = strstr(c->cmdline, "tsc=unstable") != NULL;

	if (has_flags && !cpu_flag(cpuinfo, "constant_tsc"))
		add(c, DPR_DOCTOR_WARNING, "clock", "constant_tsc", false,
		    "# BIOS: a performance profile without frequency scaling; or a CPU with constant_tsc",
		    "the CPU's TSC does not tick at a constant rate (no constant_tsc in /proc/cpuinfo): "
		    "its rate follows the CPU's frequency, and so DPDK's TSC rate, dpr's "
		    "cycles_per_packet and what the --pipeline auto tuner measures");
	else if (has_flags && !cpu_flag(cpuinfo, "nonstop_tsc"))
		add(c, DPR_DOCTOR_INFO, "clock", "nonstop_tsc", false, NULL,
		    "the TSC may stop in deep C-states (no nonstop_tsc in /proc/cpuinfo); dpr's "
		    "workers poll and never idle there unless --idle-sleep is given");
	if (read_str(c, cs, sizeof(cs),
		     "/sys/devices/system/clocksource/clocksource0/current_clocksource") < 0 ||
	    cs[0] == '\0')
		return;
	if (read_str(c, avail, sizeof(avail),
		     "/sys/devices/system/clocksource/clocksource0/available_clocksource") < 0)
		avail[0] = '\0';
	if (strcmp(cs, "tsc") == 0) {
		add(c, DPR_DOCTOR_OK, "clock", cs, false, NULL,
		    "the kernel keeps time on the TSC: it found the TSC steady, and so are the "
		    "cycle counts dpr reports");
	} else if (strcmp(cs, "kvm-clock") == 0 || strcmp(cs, "xen") == 0 ||
		   strcmp(cs, "hyperv_clocksource_tsc_page") == 0 || unstable_opt) {
		add(c, DPR_DOCTOR_INFO, "clock", cs, false, NULL,
		    "the kernel keeps time on %s, not the TSC%s: a virtual machine's TSC can "
		    "jump when the VM is paused, restored or moved. dpr's timers (neighbours, "
		    "grace periods, captures) run on CLOCK_MONOTONIC and do not mind; a jump "
		    "spoils one window of cycles_per_packet and of the tuner's probe", cs,
		    unstable_opt ? ", and the kernel command line says tsc=unstable" : "");
	} else {
		add(c, DPR_DOCTOR_WARNING, "clock", cs, false, "dmesg | grep -i -E 'tsc|clocksource'",
		    "the kernel keeps time on %s, not the TSC (available: %s): it found the TSC "
		    "unreliable (its log says why), so DPDK's cycle counts, dpr's cycles_per_packet "
		    "and the --pipeline auto tuner may drift or jump", cs,
		    avail[0] != '\0' ? avail : "?");
	}
}

/* ---- --bind ---- */

static int
run_devbind(const char *devbind, const char *addr, bool force)
{
	char arg[32];
	pid_t pid;
	int status;

	snprintf(arg, sizeof(arg), "--bind=vfio-pci");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (force)
			execlp(devbind, devbind, "--force", arg, addr, (char *)NULL);
		else
			execlp(devbind, devbind, arg, addr, (char *)NULL);
		fprintf(stderr, "dpr-doctor: cannot run %s: %s\n", devbind, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
dpr_doctor_bind(const struct dpr_doctor_bind_opts *opts, unsigned int n_ports,
		const struct dpr_doctor_port *ports)
{
	struct dpr_doctor_input in = { .sysroot = opts->sysroot };
	struct dpr_doctor_report r = { 0 };
	struct ctx *c = calloc(1, sizeof(*c));
	char done[64][16];
	unsigned int i, j, n_done = 0;
	int failed = 0;

	if (c == NULL)
		return -ENOMEM;
	c->in = &in;
	c->r = &r;
	copy_str(c->root, sizeof(c->root), opts->sysroot ? opts->sysroot : "");
	while (strlen(c->root) > 0 && c->root[strlen(c->root) - 1] == '/')
		c->root[strlen(c->root) - 1] = '\0';
	scan_pci(c);
	scan_routes(c);
	c->vfio_pci = exists(c, "/sys/module/vfio_pci");

	for (i = 0; i < n_ports; i++) {
		const struct dpr_doctor_port *p = &ports[i];
		const struct nic *n;
		char addr[32], ifs[512], drv[64];
		int routed, rc;

		if (!dpr_doctor_pci_address(p->device, addr, sizeof(addr))) {
			printf("port %s: %s is a virtual device: nothing to bind\n", p->name, p->device);
			continue;
		}
		for (j = 0; j < n_done; j++)
			if (strcmp(done[j], addr) == 0)
				break;
		if (j < n_done) {
			printf("port %s: %s handled above\n", p->name, addr);
			continue;
		}
		if (n_done < sizeof(done) / sizeof(done[0]) &&
		    (size_t)snprintf(done[n_done], sizeof(done[0]), "%s", addr) < sizeof(done[0]))
			n_done++;
		n = nic_by_addr(c, addr);
		if (n == NULL) {
			printf("port %s: %s: no such PCI network device in /sys/bus/pci/devices: "
			       "refused\n", p->name, addr);
			failed++;
			continue;
		}
		if (n->model && families[n->model->fam].bifurcated) {
			printf("port %s: %s (%s) stays on %s: the mlx5 PMD works beside the kernel "
			       "driver, nothing to bind\n", p->name, addr, n->model->name,
			       n->driver[0] ? n->driver : "mlx5_core");
			continue;
		}
		if (is_dpdk_driver(n->driver)) {
			printf("port %s: %s already bound to %s\n", p->name, addr, n->driver);
			continue;
		}
		if (n->model && n->model->fam == FAM_CXGBE && n->chelsio_pf != 4) {
			printf("port %s: %s is Chelsio function %d, dpr drives function 4: refused\n",
			       p->name, addr, n->chelsio_pf);
			failed++;
			continue;
		}
		if (!c->vfio_pci) {
			printf("port %s: %s: vfio-pci is not loaded: run modprobe vfio-pci first\n",
			       p->name, addr);
			failed++;
			continue;
		}
		describe_ifaces(c, n, ifs, sizeof(ifs), &routed);
		if (routed && !opts->force) {
			printf("port %s: %s: refused: its interface %s %s; dpdk-devbind.py would "
			       "take it from the kernel%s (--force to bind anyway)\n",
			       p->name, addr, ifs,
			       routed == 2 ? "holds the default route, probably the machine's own "
					     "management address" : "has routes",
			       routed == 2 ? " and cut this machine off" : "");
			failed++;
			continue;
		}
		printf("port %s: %s: %s --bind=vfio-pci %s%s\n", p->name, addr, opts->devbind, addr,
		       routed ? " (--force)" : "");
		rc = run_devbind(opts->devbind, addr, routed && opts->force);
		if (rc != 0) {
			printf("port %s: %s: %s failed (exit %d)\n", p->name, addr, opts->devbind, rc);
			failed++;
			continue;
		}
		if (read_link_base(c, drv, sizeof(drv), "/sys/bus/pci/devices/%s/driver", addr) == 0 &&
		    strcmp(drv, "vfio-pci") != 0) {
			printf("port %s: %s: still on %s after %s\n", p->name, addr, drv, opts->devbind);
			failed++;
			continue;
		}
		if (n->driver[0])
			printf("port %s: %s bound to vfio-pci; undo: dpdk-devbind.py --bind=%s %s\n",
			       p->name, addr, n->driver, addr);
		else
			printf("port %s: %s bound to vfio-pci; undo: dpdk-devbind.py -u %s\n", p->name,
			       addr, addr);
	}
	dpr_doctor_report_free(&r);
	free(c);
	return failed;
}
