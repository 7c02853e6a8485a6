/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is a configuration file's text, through the
 * loader dpr -c and dpr --check use. A file is taken, or refused with one
 * line that says why; a taken one also gives its address table, and what
 * it says of VRFs and VLAN interfaces holds together (check_vrfs()).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "ifaddr/ifaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
broken(const char *what, unsigned int i)
{
	fprintf(stderr, "fuzz_config: a taken config with %s (%u)\n", what, i);
	abort();
}

/* A taken config's VRFs, VLAN interfaces, routes and neighbours: every
 * index within its table, names valid and unique, the default VRF first. */
static void
check_vrfs(const struct dpr_config *cfg)
{
	unsigned int i, j;

	if (cfg->n_vrfs < 1 || cfg->n_vrfs > DPR_MAX_VRFS ||
	    strcmp(cfg->vrfs[0].name, DPR_VRF_DEFAULT_NAME) != 0)
		broken("no default VRF first, or too many VRFs", cfg->n_vrfs);
	for (i = 1; i < cfg->n_vrfs; i++) {
		if (!dpr_vrf_name_valid(cfg->vrfs[i].name) ||
		    dpr_config_vrf_index(cfg, cfg->vrfs[i].name) != (int)i)
			broken("a VRF name that is not valid or not unique", i);
		for (j = 0; j < i; j++)
			if (cfg->vrfs[j].table == cfg->vrfs[i].table)
				broken("two VRFs on one kernel table", i);
	}
	if (cfg->n_phys > cfg->n_ports || cfg->n_ports > DPR_MAX_PORTS)
		broken("more ports than it can hold", cfg->n_ports);
	for (i = 0; i < cfg->n_ports; i++) {
		const struct dpr_port_conf *pc = &cfg->ports[i];

		if (pc->vrf >= cfg->n_vrfs)
			broken("an interface in a VRF that does not exist", i);
		if (i < cfg->n_phys && (pc->parent != -1 || pc->vlan_id != 0))
			broken("a port with a parent or a VLAN id", i);
		if (i >= cfg->n_phys &&
		    (pc->parent < 0 || (unsigned int)pc->parent >= cfg->n_phys ||
		     pc->vlan_id < DPR_VLAN_ID_MIN || pc->vlan_id > DPR_VLAN_ID_MAX))
			broken("a VLAN interface with no port or a VLAN id out of range", i);
		for (j = cfg->n_phys; j < i; j++)
			if (i >= cfg->n_phys && cfg->ports[j].parent == pc->parent &&
			    cfg->ports[j].vlan_id == pc->vlan_id)
				broken("two VLAN interfaces for one VLAN of one port", i);
	}
	for (i = 0; i < cfg->n_routes; i++)
		if (cfg->routes[i].vrf >= cfg->n_vrfs)
			broken("a route into a VRF that does not exist", i);
	for (i = 0; i < cfg->n_neighs; i++)
		if (cfg->neighs[i].port < 0 || (unsigned int)cfg->neighs[i].port >= cfg->n_ports)
			broken("a neighbour on no interface", i);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512] = "";
	struct dpr_config *cfg;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	cfg = dpr_config_parse(text, "fuzz.json", err, sizeof(err));
	if (cfg == NULL) {
		/* Refused: with a reason, on one line, naming the file. */
		if (err[0] == '\0' || strchr(err, '\n') != NULL || strstr(err, "fuzz.json") == NULL) {
			fprintf(stderr, "fuzz_config: refused with a bad message: \"%s\"\n", err);
			abort();
		}
	} else {
		struct dpr_ifaddrs *t = malloc(sizeof(*t));

		check_vrfs(cfg);
		if (t != NULL)
			dpr_config_addresses(cfg, t);
		free(t);
		dpr_config_free(cfg);
	}
	free(text);
	return 0;
}
