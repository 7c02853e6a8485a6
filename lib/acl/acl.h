/* SPDX-License-Identifier: BSD-3-Clause */
#pragma once

/*
 * Access control lists (docs/security.md, "ACLs"): named, ordered rule
 * lists, first match wins, a default action each, bound to an interface
 * (a port or a VLAN interface) for what enters it (in) or leaves it (out).
 *
 * Three parts. Rules (acl_rules.c): JSON in, checked, JSON out; no DPDK
 * state, so the config checker and the fuzzer call it. The database
 * (acl.c): the ACLs by name, each compiled into one rte_acl context per
 * family on the control thread, and the bindings workers read. Workers'
 * side (acl_dp.h): one classification per family per burst.
 *
 * Ownership: the control thread is the only writer of everything here.
 * Workers reach a compiled ACL (struct dpr_acl_dp) only through struct
 * dpr_acl_binds, whose pointers the control thread swaps with atomic
 * stores; the one a swap replaced is freed after an RCU grace period
 * (rte_rcu_qsbr_synchronize), so a worker sees the old list or the new,
 * never a mix, and never freed memory.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <rte_rcu_qsbr.h>

#include "../config/config.h"
#include "../util/addr.h"

struct rte_mbuf;

#define DPR_ACL_NAME_MAX 31
/** Rules one ACL may hold. */
#define DPR_ACL_RULES_MAX 16384
/** ACLs the router holds. */
#define DPR_ACL_MAX 64

enum dpr_acl_action {
	DPR_ACL_PERMIT = 0,
	DPR_ACL_DENY,     /**< counted drop (drop reason acl) */
	DPR_ACL_REJECT,   /**< deny, and ICMP/ICMPv6 administratively prohibited */
};

enum dpr_acl_dir {
	DPR_ACL_IN = 0,
	DPR_ACL_OUT,
};

/* Which fields a rule matches on (struct dpr_acl_rule fields). */
#define DPR_ACL_M_PROTO     0x001
#define DPR_ACL_M_SRC       0x002
#define DPR_ACL_M_DST       0x004
#define DPR_ACL_M_SPORT     0x008
#define DPR_ACL_M_DPORT     0x010
#define DPR_ACL_M_ICMP_TYPE 0x020
#define DPR_ACL_M_ICMP_CODE 0x040
#define DPR_ACL_M_TCP_FLAGS 0x080
#define DPR_ACL_M_DSCP      0x100
#define DPR_ACL_M_NONFIRST  0x200
/** Fields only the first fragment carries (ports, ICMP, TCP flags). */
#define DPR_ACL_M_L4 (DPR_ACL_M_SPORT | DPR_ACL_M_DPORT | DPR_ACL_M_ICMP_TYPE | \
		      DPR_ACL_M_ICMP_CODE | DPR_ACL_M_TCP_FLAGS)

/** One rule, as parsed. */
struct dpr_acl_rule {
	uint16_t match;        /**< DPR_ACL_M_* */
	uint8_t action;        /**< enum dpr_acl_action */
	uint8_t family;        /**< 0: both, DPR_AF_IP4 or DPR_AF_IP6 */
	uint8_t proto;
	uint8_t icmp_type, icmp_code;
	uint8_t tcp_set;       /**< TCP flag bits that must be set ... */
	uint8_t tcp_mask;      /**< ... among those looked at */
	uint8_t dscp;
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	struct dpr_prefix src, dst;
};

/** A whole ACL, as parsed: an input to dpr_acl_set(). */
struct dpr_acl_list {
	char name[DPR_ACL_NAME_MAX + 1];
	uint8_t dflt;          /**< enum dpr_acl_action when no rule matches */
	uint32_t n_rules;
	struct dpr_acl_rule *rules;
};

/**
 * Parse ACL @p obj ({"name", "default", "rules"}); @p path names it in
 * messages ("acls[0]"). A name given in @p name (not NULL) is used instead
 * of the object's own, which may then be left out (acl.set). Every
 * problem is an error naming the rule: an unknown field, a port range on
 * ICMP, a prefix of the wrong family, more than DPR_ACL_RULES_MAX rules.
 * @return 0 with @p out filled (free with dpr_acl_list_clear()), or
 * -EINVAL / -ENOMEM with a message in @p err.
 */
int dpr_acl_list_parse(json_t *obj, const char *path, const char *name,
		       struct dpr_acl_list *out, char *err, size_t err_len);

/** Parse the rules of array @p rules alone into @p out (name, default left). */
int dpr_acl_rules_parse(json_t *rules, const char *path, struct dpr_acl_list *out,
			char *err, size_t err_len);

void dpr_acl_list_clear(struct dpr_acl_list *l);

/** Rule @p r as the config file writes it. */
json_t *dpr_acl_rule_json(const struct dpr_acl_rule *r);

/** "permit", "deny", "reject". */
const char *dpr_acl_action_name(uint8_t action);

/**
 * Check the config's "acls" array @p acls, and that every acl_in and
 * acl_out of @p cfg's interfaces names one of them.
 * @return 0, or -EINVAL with a message in @p err.
 */
int dpr_acl_config_check(json_t *acls, const struct dpr_config *cfg, char *err,
			 size_t err_len);

/*
 * The database. Control thread only.
 */
struct dpr_acl_db;
struct dpr_acl_binds;

/**
 * @p qsbr: the workers' RCU (NULL: no reader runs concurrently, as in unit
 * tests); @p n_workers: rows of hit counters, one per worker (a worker's
 * RCU thread id), plus one for the control thread.
 * @return the database, or NULL with errno set (ENOMEM).
 */
struct dpr_acl_db *dpr_acl_db_create(struct rte_rcu_qsbr *qsbr, unsigned int n_workers,
				     int socket);
void dpr_acl_db_free(struct dpr_acl_db *db);

/** What workers read: struct dpr_worker acl. */
const struct dpr_acl_binds *dpr_acl_db_binds(const struct dpr_acl_db *db);

/**
 * Create or replace ACL @p l (consumed: its rules are the database's now,
 * even on failure). Compiled first; the old one, bound where it was, is
 * replaced only when the new one built, and freed after a grace period.
 * @return 0, or a negative errno with a message in @p err.
 */
int dpr_acl_set(struct dpr_acl_db *db, struct dpr_acl_list *l, char *err, size_t err_len);

/** Delete ACL @p name; refused (-EBUSY) while it is bound. */
int dpr_acl_del(struct dpr_acl_db *db, const char *name, char *err, size_t err_len);

/**
 * Bind ACL @p name to interface @p port (named @p port_name in messages)
 * for direction @p dir, replacing what was bound there; @p name NULL
 * unbinds. @return 0, or -ENOENT with a message.
 */
int dpr_acl_bind(struct dpr_acl_db *db, const char *name, unsigned int port,
		 enum dpr_acl_dir dir, char *err, size_t err_len);

/** The name bound to @p port in @p dir, or NULL. */
const char *dpr_acl_bound(const struct dpr_acl_db *db, unsigned int port, enum dpr_acl_dir dir);

/** Every ACL: name, default, rule count, where bound (@p port_names). */
json_t *dpr_acl_list_json(const struct dpr_acl_db *db, const char *const *port_names,
			  unsigned int n_ports);

/**
 * ACL @p name with its rules and their hits summed over the workers and
 * the control thread; NULL if there is none.
 */
json_t *dpr_acl_get_json(const struct dpr_acl_db *db, const char *name,
			 const char *const *port_names, unsigned int n_ports);

/**
 * Hits for metrics, per binding: [{"acl", "rule" (its index from 0, or
 * "default"), "action", "interface" (@p port_names), "direction" ("in",
 * "out"), "hits"}], summed over the workers and the control thread, since
 * the ACL was bound there or last replaced; each binding's default, and
 * the rules it saw hit (a 10,000-rule list would be 10,000 series).
 * @p db NULL: none.
 */
json_t *dpr_acl_hits_json(const struct dpr_acl_db *db, const char *const *port_names,
			  unsigned int n_ports);

/** Every ACL as the config file's "acls" array (config.get). */
json_t *dpr_acl_config_json(const struct dpr_acl_db *db);

/**
 * Load the config's ACLs (@p acls, checked by dpr_acl_config_check())
 * and bind them as @p cfg's interfaces say. @return 0, or a negative errno.
 */
int dpr_acl_load_config(struct dpr_acl_db *db, json_t *acls, const struct dpr_config *cfg,
			char *err, size_t err_len);

/**
 * The control thread's output ACL for packet @p m (a frame from its
 * Ethernet header) leaving through interface @p port: what the ACL
 * bound there says. Counted in the rule's hits and, unless permitted,
 * in the ACL's control-thread drops of @p port.
 */
enum dpr_acl_action dpr_acl_ctl_out(struct dpr_acl_db *db, unsigned int port,
				    const struct rte_mbuf *m);

/**
 * Interface @p port is deleted (vlan.del): nothing bound to it any more,
 * either way, and its control-thread drops forgotten, so that the next
 * interface in its slot starts from none, as its other counters do.
 */
void dpr_acl_iface_gone(struct dpr_acl_db *db, unsigned int port);

/**
 * Interface @p port is gone a grace period since dpr_acl_iface_gone(), its
 * transmit queues drained: its bindings' hits join their ACLs' sums, so
 * that an interface made later in its slot counts from 0.
 */
void dpr_acl_iface_closed(struct dpr_acl_db *db, unsigned int port);

/** Whether anything is bound out of @p port (cheap). */
bool dpr_acl_ctl_out_bound(const struct dpr_acl_db *db, unsigned int port);

/** Counters of the control thread's side, for stats.get. */
json_t *dpr_acl_stats_json(const struct dpr_acl_db *db, const char *const *port_names,
			   unsigned int n_ports);

/**
 * Warnings for dpr-doctor and doctor.get, as strings: ACLs bound nowhere,
 * rules an earlier rule shadows (looked for in ACLs of up to 2048 rules:
 * the check is quadratic).
 */
json_t *dpr_acl_warnings_json(const struct dpr_acl_db *db);

/** The same for a config file's "acls" (@p acls, NULL: none) and bindings. */
json_t *dpr_acl_config_warnings_json(json_t *acls, const struct dpr_config *cfg);
