/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the "memwalk" generic netlink family (genl.c): requests,
 * GET_STATUS, and sockets subscribed to its multicast groups.
 */
#ifndef MEMWALK_GENL_H
#define MEMWALK_GENL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "evparse.h"

struct nl_sock;
struct nl_msg;
struct nlmsghdr;

struct mw_genl {
	struct nl_sock *sock;
	int family;
};

/*
 * Connect and resolve the family.  Returns 0, or a negative errno with
 * @err saying why (unavailable when the family is not registered: the
 * module is not loaded).
 */
int mw_genl_open(struct mw_genl *genl, struct mw_error *err);
void mw_genl_close(struct mw_genl *genl);

/*
 * Send a "do" request for @cmd, without attributes, and hand the reply to
 * @parse, which returns 0 or a negative errno with @err filled in.  @what
 * names the request in messages.  Returns 0 or a negative errno with @err
 * saying why (unavailable when the family refuses us).
 */
int mw_genl_do(struct mw_genl *genl, uint8_t cmd, const char *what,
	       int (*parse)(struct nl_msg *msg, void *arg, struct mw_error *err),
	       void *arg, struct mw_error *err);

/*
 * MEMWALK_CMD_GET_STATUS into @st (large: not for the stack), zeroed or
 * from an earlier call, whose reply it releases.  @st's strings live in
 * its copy of the reply until mw_status_release(@st).
 */
int mw_genl_get_status(struct mw_genl *genl, struct mw_status *st,
		       struct mw_error *err);
void mw_status_release(struct mw_status *st);

/*
 * A new socket subscribed to multicast group @group of family @family
 * (resolved through @resolver's socket), with a receive buffer of
 * @rcvbuf bytes where allowed.  Returns 0 with *@skp set, or a negative
 * errno with @err saying why (unavailable when we may not subscribe).
 */
int mw_genl_join(struct nl_sock *resolver, const char *family,
		 const char *group, int rcvbuf, struct nl_sock **skp,
		 struct mw_error *err);

/*
 * Whether @nlh, received on nlctrl's "notify" group, says that family
 * @family was unregistered (CTRL_CMD_DELFAMILY): the module was unloaded.
 */
bool mw_genl_family_deleted(const struct nlmsghdr *nlh, const char *family);

#endif /* MEMWALK_GENL_H */
