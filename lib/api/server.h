/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * The control socket: JSON-RPC 2.0 over a Unix stream socket, one request
 * per line, one response per line, served from one epoll loop on the
 * control thread. Never blocks: slow or vanishing clients cost nothing.
 */
#include <stdbool.h>
#include <stddef.h>

#include "../router/router.h"

#define DPR_SERVER_MAX_CLIENTS 64

struct dpr_server;

/** Whether a process listens on the socket at @p path (another dpr). */
bool dpr_server_in_use(const char *path);

/**
 * Create the socket at @p path (its directory is created mode 0750;
 * the socket is mode 0660, both owned by @p group when not empty).
 * @return the server, or NULL with errno set and a message in @p err.
 */
struct dpr_server *dpr_server_create(struct dpr_router *r, const char *path,
				     const char *group, char *err, size_t err_len);

/** Also wait on @p fd; @p cb runs on the control thread when it is readable. */
int dpr_server_watch(struct dpr_server *s, int fd, void (*cb)(void *arg), void *arg);

/** Serve whatever is ready, waiting at most @p timeout_ms. */
void dpr_server_poll(struct dpr_server *s, int timeout_ms);

/** Clients connected now. */
unsigned int dpr_server_clients(const struct dpr_server *s);

/** Close every client and remove the socket file. */
void dpr_server_free(struct dpr_server *s);
