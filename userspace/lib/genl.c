// SPDX-License-Identifier: GPL-2.0
/* libmemwalk: the "memwalk" generic netlink family, see genl.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "genl.h"

int mw_genl_open(struct mw_genl *genl, struct mw_error *err)
{
	int ret;

	genl->sock = nl_socket_alloc();
	if (!genl->sock)
		return mw_error_set(err, -ENOMEM, "cannot allocate a netlink socket");
	ret = genl_connect(genl->sock);
	if (ret < 0) {
		ret = mw_error_set(err, -EIO, "cannot open a generic netlink socket [%s]",
				   nl_geterror(ret));
		goto out_free;
	}
	genl->family = genl_ctrl_resolve(genl->sock, MEMWALK_GENL_NAME);
	if (genl->family == -NLE_OBJ_NOTFOUND) {
		ret = mw_error_unavailable(err, -ENOENT,
					   "memwalk module not loaded: run 'modprobe memwalk' [generic netlink family \"%s\" not found]",
					   MEMWALK_GENL_NAME);
		goto out_free;
	}
	if (genl->family < 0) {
		ret = mw_error_set(err, -EIO,
				   "cannot resolve generic netlink family \"%s\" [%s]",
				   MEMWALK_GENL_NAME, nl_geterror(genl->family));
		goto out_free;
	}
	return 0;

out_free:
	nl_socket_free(genl->sock);
	genl->sock = NULL;
	return ret;
}

void mw_genl_close(struct mw_genl *genl)
{
	nl_socket_free(genl->sock);
	genl->sock = NULL;
}

struct request {
	int (*parse)(struct nl_msg *msg, void *arg, struct mw_error *err);
	void *arg;
	struct mw_error *err;
	int status;	/* from parse */
	int error;	/* errno from an NLMSG_ERROR, 0 if none */
	bool replied;
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	req->replied = true;
	req->status = req->parse(msg, req->arg, req->err);
	if (req->status) {
		req->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	(void)msg;
	req->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *nlerr, void *arg)
{
	struct request *req = arg;

	(void)nla;
	req->error = -nlerr->error;
	req->done = true;
	return NL_STOP;
}

int mw_genl_do(struct mw_genl *genl, uint8_t cmd, const char *what,
	       int (*parse)(struct nl_msg *msg, void *arg, struct mw_error *err),
	       void *arg, struct mw_error *err)
{
	struct request req = { .parse = parse, .arg = arg, .err = err };
	struct nl_msg *msg;
	struct nl_cb *cb;
	int ret;

	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb) {
		ret = mw_error_set(err, -ENOMEM, "%s: out of memory", what);
		goto out_free;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, genl->family, 0,
			 NLM_F_REQUEST, cmd, MEMWALK_GENL_VERSION)) {
		ret = mw_error_set(err, -ENOMEM, "%s: cannot build the request", what);
		goto out_free;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);

	/* nl_send_auto() adds NLM_F_ACK: the kernel ends with an ACK or an error. */
	ret = nl_send_auto(genl->sock, msg);
	if (ret < 0) {
		ret = mw_error_set(err, -EIO, "%s: cannot send the request [%s]", what,
				   nl_geterror(ret));
		goto out_free;
	}
	while (!req.done) {
		ret = nl_recvmsgs(genl->sock, cb);
		if (ret < 0 && !req.done) {
			ret = mw_error_set(err, -EIO, "%s: cannot receive the reply [%s]",
					   what, nl_geterror(ret));
			goto out_free;
		}
	}

	if (req.error == EPERM || req.error == EACCES)
		ret = mw_error_unavailable(err, -req.error,
					   "permission denied by generic netlink family \"%s\": need root (CAP_NET_ADMIN) [%s]",
					   MEMWALK_GENL_NAME, mw_errno_text(req.error));
	else if (req.error)
		ret = mw_error_set(err, -req.error, "%s failed [%s]", what,
				   mw_errno_text(req.error));
	else if (!req.replied)
		ret = mw_error_set(err, -EPROTO, "%s: the module acknowledged without a reply",
				   what);
	else
		ret = req.status;	/* parse said what went wrong, if anything */

out_free:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

/*
 * The reply's strings are read after libnl has freed the message (once
 * the ACK is in): parse a copy that @st keeps.
 */
static int parse_status(struct nl_msg *msg, void *arg, struct mw_error *err)
{
	const struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct mw_status *st = arg;
	const char *why;
	void *copy;

	copy = malloc(nlh->nlmsg_len);
	if (!copy)
		return mw_error_set(err, -ENOMEM, "GET_STATUS reply: out of memory");
	memcpy(copy, nlh, nlh->nlmsg_len);
	if (mw_status_parse(copy, st, &why)) {
		free(copy);
		return mw_error_set(err, -EPROTO, "malformed GET_STATUS reply: %s", why);
	}
	st->reply = copy;
	return 0;
}

void mw_status_release(struct mw_status *st)
{
	free(st->reply);
	st->reply = NULL;
}

int mw_genl_get_status(struct mw_genl *genl, struct mw_status *st,
		       struct mw_error *err)
{
	mw_status_release(st);
	return mw_genl_do(genl, MEMWALK_CMD_GET_STATUS, "MEMWALK_CMD_GET_STATUS",
			  parse_status, st, err);
}

/* Of a CTRL_CMD_DELFAMILY notification, only the name is read. */
static const struct nla_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_NAME]	= { .type = NLA_STRING },
};

bool mw_genl_family_deleted(const struct nlmsghdr *nlh, const char *family)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct genlmsghdr *g;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return false;
	g = NLMSG_DATA(nlh);
	/* genlmsg_parse() takes a non-const header; it only reads it. */
	if (g->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, ctrl_policy) < 0)
		return false;
	return tb[CTRL_ATTR_FAMILY_NAME] &&
	       !strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), family);
}

int mw_genl_join(struct nl_sock *resolver, const char *family,
		 const char *group, int rcvbuf, struct nl_sock **skp,
		 struct mw_error *err)
{
	struct nl_sock *sk;
	int id, fd, ret;

	*skp = NULL;
	id = genl_ctrl_resolve_grp(resolver, family, group);
	if (id < 0)
		return mw_error_set(err, -ENOENT,
				    "generic netlink family \"%s\" has no multicast group \"%s\" [%s]",
				    family, group, nl_geterror(id));
	sk = nl_socket_alloc();
	if (!sk)
		return mw_error_set(err, -ENOMEM, "cannot allocate a netlink socket");
	nl_socket_disable_seq_check(sk);
	ret = nl_connect(sk, NETLINK_GENERIC);
	if (ret < 0) {
		ret = mw_error_set(err, -EIO, "cannot open a generic netlink socket [%s]",
				   nl_geterror(ret));
		goto out_free;
	}
	fd = nl_socket_get_fd(sk);
	/* Root may go past rmem_max; others get what they get. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &id, sizeof(id))) {
		ret = errno;
		if (ret == EPERM || ret == EACCES)
			ret = mw_error_unavailable(err, -ret,
						   "permission denied subscribing to the \"%s\" events of generic netlink family \"%s\": need root (CAP_SYS_ADMIN) [%s]",
						   group, family, mw_errno_text(ret));
		else
			ret = mw_error_set(err, -ret,
					   "cannot subscribe to the \"%s\" events of generic netlink family \"%s\" [%s]",
					   group, family, mw_errno_text(ret));
		goto out_free;
	}
	*skp = sk;
	return 0;

out_free:
	nl_socket_free(sk);
	return ret;
}
