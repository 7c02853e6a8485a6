/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * JSON-RPC 2.0 dispatcher: one for every transport (control socket,
 * telemetry), so no method exists twice. Control thread only.
 */
#include <stddef.h>

#include <jansson.h>

#include "../router/router.h"

/* Codes from the JSON-RPC 2.0 specification. */
#define DPR_RPC_PARSE_ERROR -32700
#define DPR_RPC_INVALID_REQUEST -32600
#define DPR_RPC_METHOD_NOT_FOUND -32601
#define DPR_RPC_INVALID_PARAMS -32602
#define DPR_RPC_INTERNAL_ERROR -32603
/* Server errors (-32000 to -32099), ours. */
#define DPR_RPC_NOT_FOUND -32001  /**< no such route, neighbour, address */
#define DPR_RPC_EXISTS -32002     /**< already there (use replace) */
#define DPR_RPC_NO_SPACE -32003   /**< FIB or next-hop table full */
#define DPR_RPC_REFUSED -32004    /**< not allowed: owned by an address, ... */
#define DPR_RPC_TOO_MANY -32005   /**< client limit reached */
#define DPR_RPC_TOO_LARGE -32006  /**< request line over the limit */

/** Longest request line accepted, in bytes. */
#define DPR_RPC_MAX_LINE (16u << 20)

/**
 * Handle one request object.
 * @return the response (a new reference), or NULL for a notification.
 */
json_t *dpr_rpc_handle(struct dpr_router *r, json_t *req);

/**
 * Handle one request line of @p len bytes (no newline).
 * @return the response as a malloc'ed string without newline, or NULL for a
 *   notification. Never NULL for a malformed request.
 */
char *dpr_rpc_handle_text(struct dpr_router *r, const char *text, size_t len);

/** An error response for request id @p id (NULL: null id). */
json_t *dpr_rpc_error(json_t *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
