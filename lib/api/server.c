/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>

#include "../util/log.h"
#include "rpc.h"
#include "server.h"

#define READ_CHUNK (64u << 10)
/* A client that does not read its answers is dropped past this. */
#define OUT_MAX (64u << 20)

enum watch_kind { W_LISTEN, W_CLIENT, W_EXTRA };

struct watch {
	enum watch_kind kind;
	int fd;
};

struct client {
	struct watch w;
	char *in;
	size_t in_len, in_cap, scanned;
	char *out;
	size_t out_len, out_off, out_cap;
	bool closing;      /**< close once the output is written */
	bool want_out;     /**< registered for EPOLLOUT */
	bool eof;          /**< it sent all it will (shut down its side) */
};

struct extra {
	struct watch w;
	void (*cb)(void *arg);
	void *arg;
};

/* Control thread only. */
struct dpr_server {
	struct dpr_router *r;
	int epfd;
	struct watch listen;
	char path[108];
	struct client *clients[DPR_SERVER_MAX_CLIENTS];
	unsigned int n_clients;
	struct extra extras[8];
	unsigned int n_extras;
};

static int
make_dir(const char *path, gid_t gid, char *err, size_t err_len)
{
	char buf[108], *dir;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	if (stat(dir, &st) == 0)
		return 0;
	/* Create parents as needed; only the last one is ours to lock down. */
	{
		char tmp[108], *p;

		snprintf(tmp, sizeof(tmp), "%s", dir);
		for (p = tmp + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		snprintf(err, err_len, "control socket: cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (gid != (gid_t)-1 && chown(dir, 0, gid) < 0)
		DPR_LOG(WARNING, main, "cannot give %s to group %u: %s", dir, gid, strerror(errno));
	return 0;
}

bool
dpr_server_in_use(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	bool used = false;
	int probe;

	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0) {
		used = connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0;
		close(probe);
	}
	return used;
}

struct dpr_server *
dpr_server_create(struct dpr_router *r, const char *path, const char *group,
		  char *err, size_t err_len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	struct dpr_server *s;
	gid_t gid = (gid_t)-1;
	int fd = -1, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, err_len, "control socket: path %s is too long", path);
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (group != NULL && group[0] != '\0') {
		struct group *g = getgrnam(group);

		if (g == NULL) {
			snprintf(err, err_len, "control socket: no group \"%s\" (create it, or leave control.group out)",
				 group);
			errno = ENOENT;
			return NULL;
		}
		gid = g->gr_gid;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	s->r = r;
	s->epfd = -1;
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);

	if (make_dir(path, gid, err, err_len) < 0)
		goto fail;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail_errno;
	/* A socket file left by a dead dpr is removed; a live one is not. */
	if (access(path, F_OK) == 0) {
		if (dpr_server_in_use(path)) {
			snprintf(err, err_len, "control socket %s is in use: is another dpr running? (set control.socket to run several)",
				 path);
			errno = EADDRINUSE;
			goto fail_quiet;
		}
		unlink(path);
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0)
		goto fail_errno;
	if (chmod(path, 0660) < 0 || (gid != (gid_t)-1 && chown(path, 0, gid) < 0))
		DPR_LOG(WARNING, main, "cannot set mode or group of %s: %s", path, strerror(errno));

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		goto fail_errno;
	s->listen = (struct watch){ .kind = W_LISTEN, .fd = fd };
	ev.data.ptr = &s->listen;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		goto fail_errno;
	DPR_LOG(INFO, main, "control socket %s (JSON-RPC 2.0, one request per line)", path);
	return s;

fail_errno:
	snprintf(err, err_len, "control socket %s: %s", path, strerror(errno));
fail_quiet:
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s);
	errno = e;
	return NULL;
}

int
dpr_server_watch(struct dpr_server *s, int fd, void (*cb)(void *arg), void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct extra *x;

	if (s->n_extras == RTE_DIM(s->extras))
		return -ENOSPC;
	x = &s->extras[s->n_extras++];
	*x = (struct extra){ .w = { .kind = W_EXTRA, .fd = fd }, .cb = cb, .arg = arg };
	ev.data.ptr = &x->w;
	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

unsigned int
dpr_server_clients(const struct dpr_server *s)
{
	return s->n_clients;
}

static void
client_close(struct dpr_server *s, struct client *c)
{
	unsigned int i;

	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->w.fd, NULL);
	close(c->w.fd);
	for (i = 0; i < s->n_clients; i++) {
		if (s->clients[i] == c) {
			s->clients[i] = s->clients[--s->n_clients];
			break;
		}
	}
	free(c->in);
	free(c->out);
	free(c);
}

static void
client_events(struct dpr_server *s, struct client *c, bool want_out)
{
	struct epoll_event ev = { .events = (c->eof ? 0 : EPOLLIN) | (want_out ? EPOLLOUT : 0),
				  .data.ptr = &c->w };

	if (c->want_out == want_out)
		return;
	c->want_out = want_out;
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->w.fd, &ev);
}

/* Write what can be written now. Returns -1 when the client is gone. */
static int
client_flush(struct dpr_server *s, struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->w.fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				client_events(s, c, true);
				return 0;
			}
			if (errno == EINTR)
				continue;
			return -1;
		}
		c->out_off += (size_t)n;
	}
	c->out_off = c->out_len = 0;
	client_events(s, c, false);
	return c->closing ? -1 : 0;
}

static int
client_queue(struct client *c, const char *text)
{
	size_t len = strlen(text);

	if (c->out_len - c->out_off + len + 1 > OUT_MAX)
		return -1;
	if (c->out_off > 0 && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + len + 1 > c->out_cap) {
		size_t cap = RTE_MAX(c->out_cap * 2, c->out_len + len + 1);
		char *p = realloc(c->out, cap);

		if (p == NULL)
			return -1;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, text, len);
	c->out[c->out_len + len] = '\n';
	c->out_len += len + 1;
	return 0;
}

static int
queue_error(struct client *c, int code, const char *msg)
{
	json_t *e = dpr_rpc_error(NULL, code, "%s", msg);
	char *t = json_dumps(e, JSON_COMPACT);
	int ret = t ? client_queue(c, t) : -1;

	free(t);
	json_decref(e);
	return ret;
}

/* Answer every complete line in the input buffer. */
static int
client_lines(struct dpr_server *s, struct client *c)
{
	size_t start = 0;
	char *nl;

	if (c->closing) {
		/* Past an oversized line nothing it sends is a request. */
		c->in_len = c->scanned = 0;
		return 0;
	}
	while ((nl = memchr(c->in + c->scanned, '\n', c->in_len - c->scanned)) != NULL) {
		size_t len = (size_t)(nl - (c->in + start));
		char *resp;

		if (len > 0 && c->in[start + len - 1] == '\r')
			len--;
		if (len > 0) {
			resp = dpr_rpc_handle_text(s->r, c->in + start, len);
			if (resp != NULL) {
				int ret = client_queue(c, resp);

				free(resp);
				if (ret < 0)
					return -1;
			}
		}
		start = (size_t)(nl - c->in) + 1;
		c->scanned = start;
	}
	if (start > 0) {
		memmove(c->in, c->in + start, c->in_len - start);
		c->in_len -= start;
		c->scanned -= start;
	}
	c->scanned = c->in_len;
	if (c->in_len > DPR_RPC_MAX_LINE) {
		/* No way to find where the next request starts: say why, then close. */
		queue_error(c, DPR_RPC_TOO_LARGE,
			    "request line longer than 16 MiB: split it (dprctl route load sends files in chunks)");
		c->closing = true;
		c->in_len = c->scanned = 0;
	}
	return 0;
}

static void
client_read(struct dpr_server *s, struct client *c)
{
	for (;;) {
		ssize_t n;

		if (c->in_cap - c->in_len < READ_CHUNK) {
			size_t cap = c->in_cap ? c->in_cap * 2 : 2 * READ_CHUNK;
			char *p;

			if (cap > DPR_RPC_MAX_LINE + 2 * READ_CHUNK)
				cap = DPR_RPC_MAX_LINE + 2 * READ_CHUNK;
			p = cap > c->in_cap ? realloc(c->in, cap) : c->in;
			if (p == NULL) {
				client_close(s, c);
				return;
			}
			c->in = p;
			c->in_cap = cap;
		}
		n = recv(c->w.fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n == 0 && !c->eof && c->out_off < c->out_len) {
			/* Done sending (shutdown(SHUT_WR), as socat and nc -N
			 * do), not reading: the answers it waits for still go,
			 * then it is closed. A line it left unfinished is no
			 * request. */
			c->eof = true;
			c->closing = true;
			c->want_out = false;
			client_events(s, c, true);
			return;
		}
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			/* Gone, maybe mid-request: whatever it half-sent is dropped. */
			client_close(s, c);
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		c->in_len += (size_t)n;
		if (client_lines(s, c) < 0 || client_flush(s, c) < 0) {
			client_close(s, c);
			return;
		}
		if (c->closing)
			return;
	}
}

static void
accept_clients(struct dpr_server *s)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct client *c;
		int fd = accept4(s->listen.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		if (s->n_clients == DPR_SERVER_MAX_CLIENTS) {
			static const char busy[] =
				"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32005,"
				"\"message\":\"too many clients (64 at most): try again later\"}}\n";

			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				DPR_LOG(DEBUG, main, "client refused and gone");
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(fd);
			return;
		}
		c->w = (struct watch){ .kind = W_CLIENT, .fd = fd };
		ev.data.ptr = &c->w;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		s->clients[s->n_clients++] = c;
	}
}

void
dpr_server_poll(struct dpr_server *s, int timeout_ms)
{
	struct epoll_event ev[32];
	int n, i;

	n = epoll_wait(s->epfd, ev, RTE_DIM(ev), timeout_ms);
	for (i = 0; i < n; i++) {
		struct watch *w = ev[i].data.ptr;

		switch (w->kind) {
		case W_LISTEN:
			accept_clients(s);
			break;
		case W_EXTRA: {
			struct extra *x = (struct extra *)w;

			x->cb(x->arg);
			break;
		}
		case W_CLIENT: {
			struct client *c = (struct client *)w;

			if (ev[i].events & EPOLLOUT) {
				if (client_flush(s, c) < 0) {
					client_close(s, c);
					break;
				}
			}
			if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				client_read(s, c);
			break;
		}
		}
	}
}

void
dpr_server_free(struct dpr_server *s)
{
	if (s == NULL)
		return;
	while (s->n_clients > 0)
		client_close(s, s->clients[0]);
	close(s->listen.fd);
	close(s->epfd);
	unlink(s->path);
	free(s);
}
