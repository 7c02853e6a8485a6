/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer: each input is a configuration file's text, through the
 * loader dpr -c and dpr --check use. A file is taken, or refused with one
 * line that says why; a taken one also gives its address table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "ifaddr/ifaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

		if (t != NULL)
			dpr_config_addresses(cfg, t);
		free(t);
		dpr_config_free(cfg);
	}
	free(text);
	return 0;
}
