// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: a subscriber of the event stream.  See evsub.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "evsub.h"
#include "genl.h"

#define REPLAY_ENOBUFS	0xffffffffu

int mw_evsub_open(struct mw_evsub *s, struct mw_genl *genl, unsigned int groups,
		  struct mw_error *err)
{
	int g, ret;

	memset(s, 0, sizeof(*s));
	for (g = 0; g < MW_NR_GROUPS; g++)
		s->fd[g] = -1;
	s->ctrl_fd = -1;
	s->family = genl->family;
	s->buf = malloc(MW_EVSUB_DGRAM_MAX);
	if (!s->buf)
		return mw_error_set(err, -ENOMEM, "out of memory");
	for (g = 0; g < MW_NR_GROUPS; g++) {
		if (!(groups & (1u << g)))
			continue;
		ret = mw_genl_join(genl->sock, MEMWALK_GENL_NAME, mw_group_name(g),
				   MW_EVSUB_RCVBUF, &s->sk[g], err);
		if (ret)
			return ret;
		s->fd[g] = nl_socket_get_fd(s->sk[g]);
	}
	/* Best effort: without it an unloaded module just goes quiet. */
	if (!mw_genl_join(genl->sock, "nlctrl", "notify", MW_EVSUB_RCVBUF, &s->ctrl, NULL))
		s->ctrl_fd = nl_socket_get_fd(s->ctrl);
	return 0;
}

void mw_evsub_close(struct mw_evsub *s)
{
	int g;

	for (g = 0; g < MW_NR_GROUPS; g++)
		if (s->sk[g])
			nl_socket_free(s->sk[g]);
	if (s->ctrl)
		nl_socket_free(s->ctrl);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* Every message of the datagram; @family -1: any (replay). */
static void each_message(const void *buf, size_t len, int family, enum mw_group grp,
			 const struct mw_evsub_ops *ops, void *arg)
{
	const struct nlmsghdr *nlh = buf;
	int left = len;

	for (; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left)) {
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;	/* NOOP, DONE, ERROR: not for a subscriber */
		if (family >= 0 && nlh->nlmsg_type != family)
			continue;
		ops->message(arg, grp, nlh);
	}
}

static void ctrl_messages(struct mw_evsub *s, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = len;

	for (; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left))
		if (mw_genl_family_deleted(nlh, MEMWALK_GENL_NAME))
			s->family_gone = true;
}

int mw_evsub_drain(struct mw_evsub *s, int grp, const struct mw_evsub_ops *ops,
		   void *arg, struct mw_error *err)
{
	int fd = grp < 0 ? s->ctrl_fd : s->fd[grp];

	for (;;) {
		ssize_t n = recv(fd, s->buf, MW_EVSUB_DGRAM_MAX, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == ENOBUFS) {
				if (grp >= 0)
					ops->overflow(arg, grp);
				continue;
			}
			return mw_error_set(err, -errno, "cannot receive events [%s]",
					    mw_errno_text(errno));
		}
		if (n > MW_EVSUB_DGRAM_MAX) {
			ops->truncated(arg, n);
			n = MW_EVSUB_DGRAM_MAX;
		}
		if (grp < 0)
			ctrl_messages(s, s->buf, n);
		else
			each_message(s->buf, n, s->family, grp, ops, arg);
	}
}

/* 0, -ENODATA at the end, -EINTR, or -EIO. */
static int read_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0)
			return errno == EINTR ? -EINTR : -EIO;
		if (n == 0)
			return -ENODATA;
		p += n;
		len -= n;
	}
	return 0;
}

int mw_evsub_replay(int fd, unsigned char *buf, const struct mw_evsub_ops *ops,
		    void *arg, struct mw_error *err)
{
	uint32_t hdr[2];
	int ret;

	ret = read_all(fd, hdr, sizeof(hdr));
	if (ret == -ENODATA)
		return 0;
	if (ret)
		return mw_error_set(err, ret, "cannot read the replay [%s]", mw_errno_text(-ret));
	if (hdr[0] >= MW_NR_GROUPS ||
	    (hdr[1] != REPLAY_ENOBUFS && hdr[1] > MW_EVSUB_DGRAM_MAX))
		return mw_error_set(err, -EBADMSG, "malformed replay record (group %u, length %u)",
				    hdr[0], hdr[1]);
	if (hdr[1] == REPLAY_ENOBUFS) {
		ops->overflow(arg, hdr[0]);
		return 1;
	}
	ret = read_all(fd, buf, hdr[1]);
	if (ret == -ENODATA)
		return mw_error_set(err, -EBADMSG, "replay record cut short");
	if (ret)
		return mw_error_set(err, ret, "cannot read the replay [%s]", mw_errno_text(-ret));
	each_message(buf, hdr[1], -1, hdr[0], ops, arg);
	return 1;
}
