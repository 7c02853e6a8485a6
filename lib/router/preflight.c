/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What would make dpr refuse to start, checked before EAL probes a port or
 * a worker starts: another process on the control socket, on the metrics
 * or FPM address, or holding a kernel interface dpr would create (a host
 * stack TAP, or a net_tap port's iface=); a kernel interface a port's
 * devargs name that is not there (the PMD would say "No such device"). net_tap joins an existing TAP
 * as one more queue, so a second dpr with the same port names would set
 * its MAC and addresses on the first one's TAPs, and leave them down when
 * it exits.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../api/server.h"
#include "../netlink/netlink.h"
#include "../port/port.h"
#include "../util/addr.h"
#include "router.h"

/* Bind @p listen as the listener will (SO_REUSEADDR: a TIME_WAIT left by
 * a restart is no conflict), and let go. 0, or an errno. */
static int
probe_listen(const char *listen, int default_port)
{
	struct sockaddr_storage ss;
	int fd, one = 1, e = 0;
	socklen_t sl;

	if (dpr_sockaddr_parse(listen, default_port, &ss, &sl) < 0)
		return 0; /* the listener names the mistake */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) < 0)
		e = errno;
	close(fd);
	return e;
}

int
dpr_preflight(const struct dpr_config *cfg, char *err, size_t err_len)
{
	char iface[IF_NAMESIZE + 16];
	unsigned int i;
	int e;

	if (dpr_server_in_use(cfg->socket)) {
		snprintf(err, err_len, "control socket %s is in use: is another dpr running? (set control.socket to run several)",
			 cfg->socket);
		return -EADDRINUSE;
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct dpr_port_conf *pc = &cfg->ports[i];
		char path[32];

		if (pc->tap[0] != '\0' && if_nametoindex(pc->tap) != 0) {
			snprintf(err, err_len, "port %s: interface %s exists already (another dpr's host-stack TAP?): dpr would take it over; stop what made it, or set %s.tap to another name (or false)",
				 pc->name, pc->tap, dpr_config_iface_path(cfg, i, path, sizeof(path)));
			return -EEXIST;
		}
		if (dpr_port_missing_iface(pc->device, iface, sizeof(iface)) == 1) {
			snprintf(err, err_len, "config: ports[%u].device \"%s\": %s: no such interface (ip link shows the ones there are)",
				 i, pc->device, iface);
			return -ENODEV;
		}
		if (dpr_port_tap_iface(pc->device, iface, sizeof(iface)) == 1 &&
		    if_nametoindex(iface) != 0) {
			snprintf(err, err_len, "port %s: interface %s exists already (another dpr's port?): net_tap would join it; stop what made it, or give ports[%u].device another iface=",
				 pc->name, iface, i);
			return -EEXIST;
		}
	}
	if (cfg->metrics.enabled && (e = probe_listen(cfg->metrics.listen, -1)) != 0) {
		snprintf(err, err_len, "metrics: listen on %s: %s%s", cfg->metrics.listen,
			 strerror(e),
			 e == EADDRINUSE ? " (another dpr or exporter there? set another metrics.listen)" : "");
		return -e;
	}
	if (cfg->fpm.enabled && (e = probe_listen(cfg->fpm.listen, DPR_FPM_PORT)) != 0) {
		snprintf(err, err_len, "fpm: listen on %s: %s%s", cfg->fpm.listen, strerror(e),
			 e == EADDRINUSE ? " (another dpr or zebra's FPM listener there? set another fpm.listen)" : "");
		return -e;
	}
	return 0;
}
