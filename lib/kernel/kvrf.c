/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <rte_log.h>

#include "../exception/tap.h"
#include "../router/router.h"
#include "kvrf.h"

RTE_LOG_REGISTER(dpr_logtype_kvrf, dpr.kernel_vrf, INFO);

#define VLOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, dpr_logtype_kvrf, "dpr: kernel_vrf: " fmt "\n", ##__VA_ARGS__)

/* One VRF's device. */
struct kvrf_dev {
	char name[IF_NAMESIZE];
	uint32_t ifindex;   /* 0: none */
	bool created;       /* dpr made it: deleted at exit */
	int err;            /* why it has none (negative errno), 0 if it has one */
};

/* Control thread only. */
struct dpr_kvrf {
	int supported;      /* 1, 0, -1: not known */
	struct kvrf_dev dev[DPR_MAX_VRFS];
};

/*
 * Send @p nlh on a fresh rtnetlink socket and wait for its answer; a
 * RTM_NEWLINK reply goes to @p cb. @return 0 or the kernel's negative errno.
 */
static int
nl_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	uint32_t portid;
	ssize_t n;
	int ret;

	if (nl == NULL)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		ret = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > 0);
	ret = ret < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	return ret;
}

static struct nlmsghdr *
link_msg(uint8_t *buf, uint16_t type, uint16_t flags, uint32_t ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	return nlh;
}

/* ip link add NAME type vrf table TABLE */
static int
vrf_add(const char *name, uint32_t table)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *li, *data;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vrf");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, IFLA_VRF_TABLE, table);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, li);
	return nl_request(nlh, NULL, NULL);
}

/* ip link set dev IFINDEX up */
static int
link_up(uint32_t ifindex)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_request(nlh, NULL, NULL);
}

/* ip link set dev IFINDEX master MASTER */
static int
link_master(uint32_t ifindex, uint32_t master)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);

	mnl_attr_put_u32(nlh, IFLA_MASTER, master);
	return nl_request(nlh, NULL, NULL);
}

static int
link_del(uint32_t ifindex)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];

	return nl_request(link_msg(buf, RTM_DELLINK, 0, ifindex), NULL, NULL);
}

/* What an existing interface is: a VRF device's table, else 0. */
struct link_kind {
	bool vrf;
	uint32_t table;
};

static int
info_data_cb(const struct nlattr *a, void *data)
{
	struct link_kind *k = data;

	if (mnl_attr_get_type(a) == IFLA_VRF_TABLE && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		k->table = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int
linkinfo_cb(const struct nlattr *a, void *data)
{
	struct link_kind *k = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_INFO_KIND:
		if (mnl_attr_validate(a, MNL_TYPE_STRING) == 0 &&
		    strcmp(mnl_attr_get_str(a), "vrf") == 0)
			k->vrf = true;
		break;
	case IFLA_INFO_DATA:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
			mnl_attr_parse_nested(a, info_data_cb, k);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int
link_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_LINKINFO && mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, linkinfo_cb, data);
	return MNL_CB_OK;
}

static int
link_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWLINK)
		mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb, data);
	return MNL_CB_OK;
}

/* Is interface @p ifindex a VRF device of table @p table? */
static bool
is_vrf_of(uint32_t ifindex, uint32_t table)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];
	struct link_kind k = { 0 };

	if (nl_request(link_msg(buf, RTM_GETLINK, 0, ifindex), link_cb, &k) < 0)
		return false;
	return k.vrf && k.table == table;
}

/* Make VRF @p v's device, or say why not. */
static void
dev_open(struct dpr_router *r, struct dpr_kvrf *k, unsigned int v)
{
	const struct dpr_vrf_conf *vc = &r->vrfs[v].conf;
	struct kvrf_dev *d = &k->dev[v];
	int ret;

	snprintf(d->name, sizeof(d->name), "%s", vc->name);
	if (k->supported == 0) {
		d->err = -EOPNOTSUPP;
		return;
	}
	ret = vrf_add(d->name, vc->table);
	if (ret == -EOPNOTSUPP) {
		k->supported = 0;
		d->err = ret;
		VLOG(WARNING, "this kernel has no VRF devices (CONFIG_NET_VRF, \"ip link add %s type vrf table %u\" fails): the VRFs' TAPs stay in the kernel's default VRF, so routing daemons see them there; routes per VRF still come by table id (fpm, kernel_routes) and forwarding is per VRF as configured",
		     d->name, vc->table);
		return;
	}
	if (ret == -EEXIST) {
		d->ifindex = if_nametoindex(d->name);
		if (d->ifindex != 0 && is_vrf_of(d->ifindex, vc->table)) {
			k->supported = 1;
			VLOG(INFO, "VRF %s: using the kernel VRF device %s (table %u) that is there already",
			     vc->name, d->name, vc->table);
			return;
		}
		d->ifindex = 0;
		d->err = ret;
		VLOG(WARNING, "VRF %s: interface %s exists and is no VRF device of table %u: the VRF has no kernel device (delete or rename that interface)",
		     vc->name, d->name, vc->table);
		return;
	}
	if (ret < 0) {
		d->err = ret;
		VLOG(WARNING, "VRF %s: cannot create the kernel VRF device %s (table %u): %s",
		     vc->name, d->name, vc->table, strerror(-ret));
		return;
	}
	k->supported = 1;
	d->created = true;
	d->ifindex = if_nametoindex(d->name);
	if (d->ifindex == 0)
		d->err = -errno;
	if (d->ifindex == 0 || (ret = link_up(d->ifindex)) < 0)
		VLOG(WARNING, "VRF %s: kernel VRF device %s: cannot set it up: %s", vc->name,
		     d->name, strerror(d->ifindex == 0 ? errno : -ret));
	else
		VLOG(INFO, "VRF %s: kernel VRF device %s, table %u", vc->name, d->name, vc->table);
}

void
dpr_kvrf_enslave(struct dpr_router *r, unsigned int port)
{
	struct dpr_kvrf *k = r->kvrf;
	const struct dpr_prefix *a;
	const struct kvrf_dev *d;
	unsigned int i, n;
	const char *tap;
	uint32_t ifindex;
	int ret;

	if (k == NULL || port >= r->n_ports || !r->ports[port].has_tap)
		return;
	d = &k->dev[dpr_router_port_vrf(r, port)];
	if (d->ifindex == 0)
		return;
	tap = r->cfg->ports[port].tap;
	ifindex = if_nametoindex(tap);
	ret = ifindex != 0 ? link_master(ifindex, d->ifindex) : -errno;
	if (ret < 0) {
		VLOG(WARNING, "TAP %s: cannot put it in kernel VRF %s: %s", tap, d->name,
		     strerror(-ret));
		return;
	}
	/* Enslaving cycles the link down and up (drivers/net/vrf.c
	 * cycle_netdev()), which flushes IPv6 addresses unless
	 * keep_addr_on_down is set: give the TAP the interface's again. */
	a = dpr_ifaddr_list(&r->addrs, port, &n);
	for (i = 0; i < n; i++)
		dpr_tap_addr(r, (uint16_t)port, &a[i], true);
}

/* The router's device table, made on first use. NULL: out of memory. */
static struct dpr_kvrf *
kvrf_get(struct dpr_router *r)
{
	struct dpr_kvrf *k = r->kvrf;

	if (k != NULL)
		return k;
	k = calloc(1, sizeof(*k));
	if (k == NULL) {
		VLOG(WARNING, "out of memory: no kernel VRF devices");
		return NULL;
	}
	k->supported = -1;
	r->kvrf = k;
	return k;
}

/* Delete VRF @p v's device if dpr made it, and forget it. */
static void
dev_close(struct dpr_kvrf *k, unsigned int v)
{
	struct kvrf_dev *d = &k->dev[v];
	int ret;

	/* The TAPs leave it as it goes. */
	if (d->created) {
		ret = link_del(d->ifindex);
		if (ret < 0 && ret != -ENODEV)
			VLOG(WARNING, "cannot delete kernel VRF device %s: %s", d->name,
			     strerror(-ret));
	}
	memset(d, 0, sizeof(*d));
}

unsigned int
dpr_kvrf_setup(struct dpr_router *r)
{
	struct dpr_kvrf *k;
	unsigned int v, p, n = 0;

	for (v = 1; v < DPR_MAX_VRFS && dpr_router_rib(r, v) == NULL; v++)
		;
	if (v == DPR_MAX_VRFS)
		return 0; /* the default VRF alone: the kernel's own */
	k = kvrf_get(r);
	if (k == NULL)
		return 0;
	for (v = 1; v < DPR_MAX_VRFS; v++) {
		if (dpr_router_rib(r, v) == NULL)
			continue;
		dev_open(r, k, v);
		n += k->dev[v].ifindex != 0;
	}
	for (p = 0; p < r->n_ports; p++)
		dpr_kvrf_enslave(r, p);
	return n;
}

void
dpr_kvrf_add(struct dpr_router *r, unsigned int vrf)
{
	struct dpr_kvrf *k;

	if (vrf == 0 || vrf >= DPR_MAX_VRFS || dpr_router_rib(r, vrf) == NULL)
		return;
	k = kvrf_get(r);
	if (k == NULL)
		return;
	dev_close(k, vrf); /* a slot used before */
	dev_open(r, k, vrf);
}

void
dpr_kvrf_del(struct dpr_router *r, unsigned int vrf)
{
	if (r->kvrf != NULL && vrf != 0 && vrf < DPR_MAX_VRFS)
		dev_close(r->kvrf, vrf);
}

void
dpr_kvrf_close(struct dpr_router *r)
{
	struct dpr_kvrf *k = r->kvrf;
	unsigned int v;

	if (k == NULL)
		return;
	/* The TAPs are gone already at exit. */
	for (v = 1; v < DPR_MAX_VRFS; v++)
		dev_close(k, v);
	free(k);
	r->kvrf = NULL;
}

json_t *
dpr_kvrf_json(const struct dpr_router *r, unsigned int vrf)
{
	const struct dpr_kvrf *k = r->kvrf;
	const struct kvrf_dev *d;

	if (k == NULL || vrf == 0 || vrf >= DPR_MAX_VRFS)
		return json_null();
	d = &k->dev[vrf];
	if (d->ifindex == 0)
		return json_pack("{s:s}", "error", d->err == -EOPNOTSUPP ?
				 "this kernel has no VRF devices (CONFIG_NET_VRF)" : strerror(-d->err));
	return json_pack("{s:s,s:I,s:b}", "name", d->name, "ifindex", (json_int_t)d->ifindex,
			 "created", d->created);
}

int
dpr_kvrf_supported(const struct dpr_router *r)
{
	return r->kvrf != NULL ? r->kvrf->supported : -1;
}
