/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the memwalk selftests: running a program (the client,
 * insmod, rmmod) and capturing what it says, and running code as an
 * unprivileged user.  Independent of kselftest_harness.h, which can only be
 * included by one object of a program.
 */
#ifndef MEMWALK_UTIL_H
#define MEMWALK_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

#define MW_NOBODY		65534	/* uid and gid of the unprivileged user */
#define MW_CLIENT_DEFAULT	"/bin/memwalk-client"

struct mw_run {
	int status;		/* from waitpid() */
	char out[4096];		/* standard output, NUL-terminated, truncated */
	char err[4096];		/* standard error, likewise */
};

/* $MEMWALK_CLIENT, or /bin/memwalk-client. */
const char *mw_client_path(void);

/*
 * Run @argv (searched in $PATH) to completion as @uid (0: as we are), with
 * MEMWALK_DEVICE removed from its environment and stdin from /dev/null.
 * Returns 0, or -errno if it could not be started.
 */
int mw_run(struct mw_run *r, uid_t uid, const char *const argv[]);

/* Exit code of a finished run, or -1 if it was killed by a signal. */
int mw_exit_code(const struct mw_run *r);

/*
 * Call @fn(@arg) in a child that has become @uid/@uid without
 * supplementary groups (and so without capabilities).  @fn returns 0 or an
 * errno value; that is returned, or -1 if the child could not drop its
 * privileges or did not exit normally.
 */
int mw_as_user(uid_t uid, int (*fn)(void *arg), void *arg);

/* Wait up to 2 s for @path to exist (@present) or not. */
bool mw_wait_path(const char *path, bool present);

/* Whether a file system of @type is mounted at @dir (per /proc/mounts). */
bool mw_mounted(const char *type, const char *dir);

#define MW_DEBUGFS		"/sys/kernel/debug"

/*
 * Whether debugfs is mounted at MW_DEBUGFS: 0 if it is, -ENODEV if the
 * kernel has none (CONFIG_DEBUG_FS), -ENOENT if it has one not mounted there.
 */
int mw_debugfs(void);

/*
 * Whether this kernel runs with KASAN (its report function is in
 * kallsyms): some ten times slower under TCG, so tests size their work.
 */
bool mw_kasan_enabled(void);

/* Read a whole small file into @buf (NUL-terminated); 0 or -errno. */
int mw_read_file(const char *path, char *buf, size_t len);

/* Write @s to @path; 0 or -errno. */
int mw_write_file(const char *path, const char *s);

/*
 * A cap on what a loop logs per item (event, page, allocation): the first
 * @cap items are logged, the others only counted, so a failure's first
 * lines stay readable and the rest is one "N more" line.
 *
 *	struct mw_logcap lc = MW_LOGCAP(10);
 *	for (...)
 *		if (mw_logcap_take(&lc))
 *			TH_LOG(...);
 *	if (mw_logcap_dropped(&lc))
 *		TH_LOG("... and %u more", mw_logcap_dropped(&lc));
 */
struct mw_logcap {
	unsigned int cap;
	unsigned int seen;
};

#define MW_LOGCAP(n)	((struct mw_logcap){ .cap = (n) })

/* Count one item; true if it is still to be logged. */
static inline bool mw_logcap_take(struct mw_logcap *lc)
{
	return lc->seen++ < lc->cap;
}

/* How many items were counted but not logged. */
static inline unsigned int mw_logcap_dropped(const struct mw_logcap *lc)
{
	return lc->seen > lc->cap ? lc->seen - lc->cap : 0;
}

#endif /* MEMWALK_UTIL_H */
