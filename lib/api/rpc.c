/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods.h"
#include "rpc.h"

/*
 * @p s made valid UTF-8 in place: each byte that starts no whole character
 * in its shortest form (RFC 3629 3) becomes '?'. A message is cut short at
 * a byte count, so a long value it quotes (a name, a prefix) can end inside
 * a character; JSON strings are UTF-8 (RFC 8259 8.1) and jansson refuses
 * anything else, which would leave the request without an answer.
 */
static void
utf8_repair(char *s)
{
	unsigned char *p = (unsigned char *)s;
	unsigned int n, i;
	uint32_t cp;

	while (*p != '\0') {
		if (*p < 0x80) {
			p++;
			continue;
		}
		n = *p >= 0xc2 && *p <= 0xdf ? 1 : *p >= 0xe0 && *p <= 0xef ? 2 :
		    *p >= 0xf0 && *p <= 0xf4 ? 3 : 0;
		cp = *p & (0x3f >> n);
		for (i = 1; n != 0 && i <= n && (p[i] & 0xc0) == 0x80; i++)
			cp = cp << 6 | (p[i] & 0x3f);
		if (n == 0 || i <= n || (n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
			*p++ = '?';
			continue;
		}
		p += n + 1;
	}
}

json_t *
dpr_rpc_error(json_t *id, int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	utf8_repair(msg);
	return json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0",
			 "id", id ? id : json_null(), "error", "code", code, "message", msg);
}

json_t *
dpr_rpc_handle(struct dpr_router *r, json_t *req)
{
	struct dpr_method_err e = { 0 };
	const struct dpr_method *m;
	json_t *id, *method, *params, *ver, *result;
	const char *key;
	json_t *v;

	if (!json_is_object(req))
		return dpr_rpc_error(NULL, DPR_RPC_INVALID_REQUEST,
				     "invalid request: expected a JSON-RPC 2.0 request object");
	id = json_object_get(req, "id");
	if (id != NULL && !json_is_string(id) && !json_is_integer(id) && !json_is_null(id))
		return dpr_rpc_error(NULL, DPR_RPC_INVALID_REQUEST,
				     "invalid request: \"id\" must be a string, an integer or null");
	ver = json_object_get(req, "jsonrpc");
	if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0)
		return dpr_rpc_error(id, DPR_RPC_INVALID_REQUEST,
				     "invalid request: \"jsonrpc\" must be \"2.0\"");
	json_object_foreach(req, key, v) {
		if (strcmp(key, "jsonrpc") != 0 && strcmp(key, "id") != 0 &&
		    strcmp(key, "method") != 0 && strcmp(key, "params") != 0)
			return dpr_rpc_error(id, DPR_RPC_INVALID_REQUEST,
					     "invalid request: unknown member \"%s\"", key);
	}
	method = json_object_get(req, "method");
	if (!json_is_string(method))
		return dpr_rpc_error(id, DPR_RPC_INVALID_REQUEST,
				     "invalid request: \"method\" must be a string");
	params = json_object_get(req, "params");
	/* From here on the request is well-formed: a notification (no id)
	 * gets no answer, not even an error (JSON-RPC 2.0, section 4.1). */
	if (params != NULL && !json_is_object(params) && !json_is_null(params))
		return id == NULL ? NULL :
			dpr_rpc_error(id, DPR_RPC_INVALID_PARAMS, "%s: params must be an object",
				      json_string_value(method));
	if (json_is_null(params))
		params = NULL;

	for (m = dpr_method_table; m->name != NULL; m++)
		if (strcmp(m->name, json_string_value(method)) == 0)
			break;
	if (m->name == NULL && id == NULL)
		return NULL;
	if (m->name == NULL) {
		char list[512];
		size_t n = 0;

		list[0] = '\0';
		for (m = dpr_method_table; m->name != NULL && n < sizeof(list); m++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s",
				      m == dpr_method_table ? "" : ", ", m->name);
		return dpr_rpc_error(id, DPR_RPC_METHOD_NOT_FOUND,
				     "unknown method \"%.100s\" (methods: %s)",
				     json_string_value(method), list);
	}

	result = m->fn(r, params, &e);
	if (id == NULL) { /* a notification: no answer, by the spec */
		json_decref(result);
		return NULL;
	}
	if (result == NULL)
		return dpr_rpc_error(id, e.code ? e.code : DPR_RPC_INTERNAL_ERROR, "%s",
				     e.message[0] ? e.message : "internal error");
	return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result);
}

char *
dpr_rpc_handle_text(struct dpr_router *r, const char *text, size_t len)
{
	json_error_t je;
	json_t *req, *resp;
	char *out;

	req = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (req == NULL)
		resp = dpr_rpc_error(NULL, DPR_RPC_PARSE_ERROR, "parse error at column %d: %s",
				     je.column, je.text);
	else
		resp = dpr_rpc_handle(r, req);
	json_decref(req);
	if (resp == NULL)
		return NULL;
	out = json_dumps(resp, JSON_COMPACT);
	json_decref(resp);
	return out;
}
