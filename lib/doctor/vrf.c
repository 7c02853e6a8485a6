/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doctor's checks of a configuration's VRFs and VLAN interfaces: what
 * the file alone says (a VRF no interface is in, what each VRF's FIBs take
 * in hugepage memory), and the links VLAN interfaces ride on, from the
 * running router (doctor.get) or from sysfs for ports on a kernel interface
 * (dpr-doctor). Advice, never a refusal: the config parser refuses what
 * cannot work.
 */
#include <stdio.h>
#include <string.h>

#include "../config/config.h"
#include "doctor.h"

#define MIB (1024.0 * 1024.0)

/* One DIR-24-8 table's lookup structure: tbl24 (2^24 entries of 4 bytes)
 * and its tbl8 groups (256 entries of 4 bytes), allocated whole at start
 * whatever the routes (lib/fib: dpr_fib4_memory(), dpr_fib6_memory()). */
static uint64_t
dir24_8_bytes(uint32_t tbl8_groups)
{
	return (UINT64_C(1) << 24) * 4 + (uint64_t)tbl8_groups * 256 * 4;
}

uint64_t
dpr_doctor_vrf_dir24_8_bytes(const struct dpr_vrf_conf *v)
{
	uint64_t b = 0;

	if (v->ip4_algorithm == DPR_FIB_DIR24_8)
		b += dir24_8_bytes(v->ip4_tbl8_groups);
	if (v->ip6_algorithm == DPR_FIB_DIR24_8)
		b += dir24_8_bytes(v->ip6_tbl8_groups);
	return b;
}

/* Interfaces (ports and VLAN interfaces) of @p cfg in VRF @p v. */
static unsigned int
vrf_interfaces(const struct dpr_config *cfg, unsigned int v, char *names, size_t len)
{
	unsigned int p, n = 0;
	size_t used = 0;

	if (len > 0)
		names[0] = '\0';
	for (p = 0; p < cfg->n_ports; p++) {
		/* A slot vlan.del freed (no name) is no interface. */
		if (cfg->ports[p].vrf != v || cfg->ports[p].name[0] == '\0')
			continue;
		if (used < len)
			used += (size_t)snprintf(names + used, len - used, "%s%s", n ? ", " : "",
						 cfg->ports[p].name);
		n++;
	}
	return n;
}

int
dpr_doctor_check_vrfs(const struct dpr_config *cfg, const char *config_path,
		      struct dpr_doctor_report *r)
{
	const char *file = config_path != NULL ? config_path : "the config";
	uint64_t total = 0, extra = 0;
	unsigned int v, n_dir = 0, n_vrfs = 0;
	char names[256], fix[512];
	int ret;

	/* A running router's (doctor.get): a slot vrf.del freed has no name. */
	for (v = 0; v < cfg->n_vrfs; v++)
		n_vrfs += v == DPR_VRF_DEFAULT || cfg->vrfs[v].name[0] != '\0';
	for (v = 0; v < cfg->n_vrfs; v++) {
		const struct dpr_vrf_conf *vc = &cfg->vrfs[v];
		uint64_t b = dpr_doctor_vrf_dir24_8_bytes(vc);
		unsigned int n;

		if (v != DPR_VRF_DEFAULT && vc->name[0] == '\0')
			continue;
		n = vrf_interfaces(cfg, v, names, sizeof(names));
		total += b;
		if (v == DPR_VRF_DEFAULT) {
			if (n == 0 && n_vrfs > 1 &&
			    (ret = dpr_doctor_add(r, DPR_DOCTOR_INFO, "vrf", vc->name, false, NULL,
						  "VRF %s (table %u): no interface is in it; its routes serve only the router's own traffic",
						  vc->name, vc->table)) < 0)
				return ret;
			continue;
		}
		extra += b;
		if (n == 0) {
			snprintf(fix, sizeof(fix),
				 "# in %s: \"vrf\": \"%s\" on the ports or vlans[] entries that belong to it, or remove it from vrfs[]",
				 file, vc->name);
			if ((ret = dpr_doctor_add(r, DPR_DOCTOR_WARNING, "vrf", vc->name, false, fix,
						  "VRF %s (table %u): no port or VLAN interface is in it, so no packet is ever looked up in its routes",
						  vc->name, vc->table)) < 0)
				return ret;
		}
		if (b == 0)
			continue;
		n_dir++;
		/* A VRF beyond the default one on DIR-24-8 pays 64 MiB of tbl24
		 * a family before its first route; Poptrie grows with its routes
		 * and takes a few MiB for a full table. */
		snprintf(fix, sizeof(fix),
			 "# in %s, vrfs[] entry \"%s\": \"fib\": {\"ipv4_algorithm\": \"poptrie\", \"ipv6_algorithm\": \"poptrie\"}\n"
			 "# (Poptrie grows with its routes instead: about 4.3 MiB for full IPv4 and IPv6 tables, docs/configuration.md#vrfs)",
			 file, vc->name);
		if ((ret = dpr_doctor_add(r, DPR_DOCTOR_WARNING, "vrf", vc->name, false, fix,
					  "VRF %s: its DIR-24-8 FIBs (%s%s%s) take %.0f MiB of hugepages before any route (64 MiB of tbl24 and %u + %u tbl8 groups of 1 KiB)",
					  vc->name,
					  vc->ip4_algorithm == DPR_FIB_DIR24_8 ? "IPv4" : "",
					  vc->ip4_algorithm == DPR_FIB_DIR24_8 &&
					  vc->ip6_algorithm == DPR_FIB_DIR24_8 ? " and " : "",
					  vc->ip6_algorithm == DPR_FIB_DIR24_8 ? "IPv6" : "",
					  (double)b / MIB,
					  vc->ip4_algorithm == DPR_FIB_DIR24_8 ? vc->ip4_tbl8_groups : 0,
					  vc->ip6_algorithm == DPR_FIB_DIR24_8 ? vc->ip6_tbl8_groups : 0)) < 0)
			return ret;
	}
	if (n_vrfs > 1 &&
	    (ret = dpr_doctor_add(r, n_dir > 0 ? DPR_DOCTOR_INFO : DPR_DOCTOR_OK, "vrf", "", false,
				  NULL,
				  "%u VRFs; their DIR-24-8 lookup tables take %.0f MiB of hugepages (%.0f MiB beyond the default VRF's), Poptrie tables more as routes come",
				  n_vrfs, (double)total / MIB, (double)extra / MIB)) < 0)
		return ret;
	return 0;
}

/* The kernel interface a devargs string names ("...,iface=NAME,..."). */
static bool
devargs_iface(const char *device, char *out, size_t len)
{
	const char *p = strstr(device, "iface=");
	size_t n;

	if (p == NULL || (p != device && p[-1] != ','))
		return false;
	p += 6;
	n = strcspn(p, ",");
	if (n == 0 || n >= len)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

int
dpr_doctor_check_vlan_links(const struct dpr_config *cfg, const char *sysroot,
			    const bool *link_up, struct dpr_doctor_report *r)
{
	unsigned int p;
	int ret;

	for (p = cfg->n_phys; p < cfg->n_ports; p++) {
		const struct dpr_port_conf *vc = &cfg->ports[p];
		const struct dpr_port_conf *pc = &cfg->ports[vc->parent];
		char iface[64], path[512], state[32] = "", how[128], fix[256], vid[16];
		bool down;

		if (vc->name[0] == '\0') /* a slot vlan.del freed */
			continue;
		if (link_up != NULL) {
			down = !link_up[vc->parent];
			snprintf(how, sizeof(how), "port %s's link is down", pc->name);
			snprintf(fix, sizeof(fix), "dprctl port show %s", pc->name);
		} else {
			FILE *f;

			/* Without the router: ports on a kernel interface
			 * (af_packet, af_xdp) show their link in sysfs. */
			if (!devargs_iface(pc->device, iface, sizeof(iface)))
				continue;
			snprintf(path, sizeof(path), "%s/sys/class/net/%s/operstate",
				 sysroot != NULL ? sysroot : "", iface);
			f = fopen(path, "r");
			if (f == NULL)
				continue;
			if (fgets(state, sizeof(state), f) == NULL)
				state[0] = '\0';
			fclose(f);
			state[strcspn(state, "\n")] = '\0';
			down = strcmp(state, "down") == 0 || strcmp(state, "lowerlayerdown") == 0;
			snprintf(how, sizeof(how), "port %s's interface %s is %s", pc->name, iface,
				 state);
			snprintf(fix, sizeof(fix), "ip link set %s up", iface);
		}
		if (!down)
			continue;
		/* A QinQ interface's VLAN is its pair, outer.inner. */
		if (vc->outer_id != 0)
			snprintf(vid, sizeof(vid), "%u.%u", vc->outer_id, vc->vlan_id);
		else
			snprintf(vid, sizeof(vid), "%u", vc->vlan_id);
		if ((ret = dpr_doctor_add(r, DPR_DOCTOR_WARNING, "vlan", vc->name, false, fix,
					  "VLAN interface %s (VLAN %s of %s, VRF %s): %s, so nothing is sent or received in VLAN %s",
					  vc->name, vid, pc->name, cfg->vrfs[vc->vrf].name, how,
					  vid)) < 0)
			return ret;
	}
	return 0;
}
