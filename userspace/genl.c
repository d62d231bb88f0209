// SPDX-License-Identifier: GPL-2.0
/* memwalk-client: the "memwalk" generic netlink family. */
#include <errno.h>
#include <stdlib.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "memwalk-client.h"

/* Connect and resolve the family; on failure say why, return the exit status. */
int mw_genl_open(struct mw_genl *genl)
{
	int err;

	genl->sock = nl_socket_alloc();
	if (!genl->sock) {
		mw_err("cannot allocate a netlink socket");
		return MW_EXIT_FAILURE;
	}
	err = genl_connect(genl->sock);
	if (err < 0) {
		mw_err("cannot open a generic netlink socket [%s]",
		       nl_geterror(err));
		goto out_free;
	}
	genl->family = genl_ctrl_resolve(genl->sock, MEMWALK_GENL_NAME);
	if (genl->family == -NLE_OBJ_NOTFOUND) {
		mw_err("memwalk module not loaded: run 'modprobe memwalk' [generic netlink family \"%s\" not found]",
		       MEMWALK_GENL_NAME);
		nl_socket_free(genl->sock);
		return MW_EXIT_UNAVAILABLE;
	}
	if (genl->family < 0) {
		mw_err("cannot resolve generic netlink family \"%s\" [%s]",
		       MEMWALK_GENL_NAME, nl_geterror(genl->family));
		goto out_free;
	}
	return MW_EXIT_OK;

out_free:
	nl_socket_free(genl->sock);
	return MW_EXIT_FAILURE;
}

void mw_genl_close(struct mw_genl *genl)
{
	nl_socket_free(genl->sock);
}

struct request {
	int (*parse)(struct nl_msg *msg, void *arg);
	void *arg;
	int status;	/* MW_EXIT_* from parse */
	int error;	/* errno from an NLMSG_ERROR, 0 if none */
	bool replied;
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	req->replied = true;
	req->status = req->parse(msg, req->arg);
	if (req->status != MW_EXIT_OK) {
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

/*
 * Send a "do" request for @cmd, without attributes, and hand the reply to
 * @parse, which returns an MW_EXIT_* status (and says what was wrong).
 * Returns the exit status; @what names the request in messages.
 */
int mw_genl_do(struct mw_genl *genl, uint8_t cmd, const char *what,
	       int (*parse)(struct nl_msg *msg, void *arg), void *arg)
{
	struct request req = { .parse = parse, .arg = arg };
	struct nl_msg *msg;
	struct nl_cb *cb;
	int err, ret = MW_EXIT_FAILURE;

	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb) {
		mw_err("%s: out of memory", what);
		goto out_free;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, genl->family, 0,
			 NLM_F_REQUEST, cmd, MEMWALK_GENL_VERSION)) {
		mw_err("%s: cannot build the request", what);
		goto out_free;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);

	/* nl_send_auto() adds NLM_F_ACK: the kernel ends with an ACK or an error. */
	err = nl_send_auto(genl->sock, msg);
	if (err < 0) {
		mw_err("%s: cannot send the request [%s]", what, nl_geterror(err));
		goto out_free;
	}
	while (!req.done) {
		err = nl_recvmsgs(genl->sock, cb);
		if (err < 0 && !req.done) {
			mw_err("%s: cannot receive the reply [%s]", what,
			       nl_geterror(err));
			goto out_free;
		}
	}

	if (req.error == EPERM || req.error == EACCES) {
		mw_err("permission denied by generic netlink family \"%s\": need root (CAP_NET_ADMIN) [%s]",
		       MEMWALK_GENL_NAME, mw_errno_text(req.error));
		ret = MW_EXIT_UNAVAILABLE;
	} else if (req.error) {
		mw_err("%s failed [%s]", what, mw_errno_text(req.error));
	} else if (!req.replied) {
		mw_err("%s: the module acknowledged without a reply", what);
	} else {
		ret = req.status;	/* parse said what went wrong, if anything */
	}

out_free:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}
