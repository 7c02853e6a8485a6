/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is an ACL's JSON text ({"name", "default",
 * "rules"}, as the config's "acls" and acl.set take it), through the rule
 * parser (lib/acl/acl_rules.c). An ACL is taken, or refused with one line
 * that names where; a taken one, written back as JSON (config.get) and
 * parsed again, gives the same rules.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "acl/acl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *
rules_json(const struct dpr_acl_list *l)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; i < l->n_rules; i++)
		json_array_append_new(a, dpr_acl_rule_json(&l->rules[i]));
	return a;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dpr_acl_list l, again;
	json_t *obj, *back, *back2;
	char err[512] = "";

	obj = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	if (obj == NULL)
		return 0;
	if (dpr_acl_list_parse(obj, "acls[0]", NULL, &l, err, sizeof(err)) < 0) {
		if (err[0] == '\0' || strchr(err, '\n') != NULL || strncmp(err, "acls[0]", 7) != 0) {
			fprintf(stderr, "fuzz_acl: refused with a bad message: \"%s\"\n", err);
			abort();
		}
		json_decref(obj);
		return 0;
	}
	back = rules_json(&l);
	memset(&again, 0, sizeof(again));
	if (dpr_acl_rules_parse(back, "back", &again, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_acl: a taken ACL's rules, written back, are refused: %s\n", err);
		abort();
	}
	back2 = rules_json(&again);
	if (again.n_rules != l.n_rules || !json_equal(back, back2)) {
		fprintf(stderr, "fuzz_acl: rules changed on the way back (%u, %u rules)\n",
			l.n_rules, again.n_rules);
		abort();
	}
	json_decref(back2);
	json_decref(back);
	dpr_acl_list_clear(&again);
	dpr_acl_list_clear(&l);
	json_decref(obj);
	return 0;
}
