/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: a subscriber of the event stream (evsub.c): one socket per
 * multicast group, so that a MEMWALK_EV_LOST record (which does not say its
 * group) and a socket overflow are charged to the right group, one on
 * nlctrl's "notify" group to see the family go when the module is
 * unloaded, and the replay files the host tests feed in their place.
 * Messages go to the caller's callbacks; nothing is printed.
 */
#ifndef MEMWALK_EVSUB_H
#define MEMWALK_EVSUB_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "evparse.h"

struct nl_sock;
struct nlmsghdr;
struct mw_genl;

#define MW_EVSUB_RCVBUF		(8 << 20)	/* bytes, where allowed */
#define MW_EVSUB_DGRAM_MAX	(256 << 10)	/* the buffer a datagram is read into */

struct mw_evsub_ops {
	/* One message of the family (not NOOP, DONE, ERROR) from @grp's socket. */
	void (*message)(void *arg, enum mw_group grp, const struct nlmsghdr *nlh);
	/* @grp's socket overflowed (ENOBUFS): events lost, number unknown. */
	void (*overflow)(void *arg, enum mw_group grp);
	/* A datagram of @len bytes was cut to MW_EVSUB_DGRAM_MAX. */
	void (*truncated)(void *arg, size_t len);
};

struct mw_evsub {
	struct nl_sock *sk[MW_NR_GROUPS];	/* NULL: not joined */
	int fd[MW_NR_GROUPS];			/* -1: not joined */
	struct nl_sock *ctrl;			/* NULL: not watching */
	int ctrl_fd;				/* -1: not watching */
	int family;
	bool family_gone;			/* nlctrl said it went */
	unsigned char *buf;			/* MW_EVSUB_DGRAM_MAX */
};

/*
 * Join the groups in @groups (1 << enum mw_group) of @genl's family, and
 * nlctrl's "notify" group if we may (@s->ctrl stays NULL if not).
 * Returns 0, or a negative errno with @err saying why; then, as after
 * success, mw_evsub_close() releases what was made.
 */
int mw_evsub_open(struct mw_evsub *s, struct mw_genl *genl, unsigned int groups,
		  struct mw_error *err);
void mw_evsub_close(struct mw_evsub *s);

/*
 * Read what @grp's socket holds (@grp -1: the nlctrl socket, which sets
 * @s->family_gone) without blocking.  Returns 0 once it is empty, or a
 * negative errno with @err saying why.
 */
int mw_evsub_drain(struct mw_evsub *s, int grp, const struct mw_evsub_ops *ops,
		   void *arg, struct mw_error *err);

/*
 * One record of a replay file: u32 group (enum mw_group), u32 length, then
 * that many bytes of one datagram as the group's socket would have
 * received it; length 0xffffffff stands for an ENOBUFS on the group's
 * socket.  Native byte order.  Every message in it goes to @ops, whatever
 * its family.  Returns 1, 0 at the end of the file, or a negative errno
 * with @err saying why (-EBADMSG: malformed, -EINTR: a signal came).
 */
int mw_evsub_replay(int fd, unsigned char *buf, const struct mw_evsub_ops *ops,
		    void *arg, struct mw_error *err);

#endif /* MEMWALK_EVSUB_H */
