// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: --save FILE, a snapshot written as JSON ("-": standard
 * output).
 *
 * PFNs are root's data (pagemap shows them to root only), so FILE gets
 * mode 0600.  It is written whole or not at all: into a temporary file in
 * FILE's directory (mkstemp: O_EXCL, 0600), fsync'ed, then renamed over
 * FILE, so that a full disk or a crash never leaves half a document where
 * an older one was, and a reader sees the old file or the new one.
 *
 * rename(2) replaces FILE's directory entry and never follows a symbolic
 * link there, so nothing is ever written through one.  A FILE that is a
 * symbolic link (or anything but a regular file: renaming over /dev/null
 * would replace the device node) is refused all the same, checked with
 * lstat() first: replacing the user's link with a file would leave the
 * file it points to stale without a word.  A link made between the check
 * and the rename is replaced, not followed.  O_TMPFILE and linkat() were
 * not used: linkat() cannot replace an existing FILE, and not every file
 * system has O_TMPFILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memwalk-client.h"
#include "print.h"
#include "snapjson.h"

/* FILE may be replaced: it does not exist, or is a regular file. */
static bool replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return true;
		mw_err("cannot save to %s [%s]", path, mw_errno_text(errno));
		return false;
	}
	if (S_ISLNK(st.st_mode)) {
		mw_err("refusing to save to %s: it is a symbolic link (give the file it points to)",
		       path);
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		mw_err("refusing to save to %s: it is not a regular file", path);
		return false;
	}
	return true;
}

/* "DIR/.BASE.XXXXXX" for mkstemp; NULL when out of memory. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path) + sizeof("/..XXXXXX");
	char *tmp = malloc(len);

	if (tmp)
		snprintf(tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
	return tmp;
}

/* The rename made durable; some file systems cannot fsync a directory. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) :
			    strdup(".");
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* The JSON into @fd and onto the disk; 0 or an errno. */
static int write_json(const struct mw_snapshot *snap, int fd)
{
	FILE *fp = fdopen(fd, "w");
	int err = 0;

	if (!fp) {
		err = errno;
		close(fd);
		return err;
	}
	print_set_output(fp);
	mw_snapshot_print_json(snap);
	print_set_output(NULL);
	if (fflush(fp) || ferror(fp))
		err = errno ? errno : EIO;
	else if (fsync(fd))
		err = errno;
	if (fclose(fp) && !err)
		err = errno;
	return err;
}

int mw_save_snapshot(const struct mw_snapshot *snap, const char *path)
{
	char *tmp;
	int fd, err;

	if (!strcmp(path, "-")) {
		mw_snapshot_print_json(snap);	/* main() checks stdout's errors */
		return MW_EXIT_OK;
	}
	if (!replaceable(path))
		return MW_EXIT_FAILURE;
	tmp = temp_name(path);
	if (!tmp) {
		mw_err("out of memory");
		return MW_EXIT_FAILURE;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		mw_err("cannot create %s: no temporary file in its directory [%s]", path,
		       mw_errno_text(errno));
		free(tmp);
		return MW_EXIT_FAILURE;
	}
	/* mkstemp's mode is 0600 less the umask: exactly 0600 */
	err = fchmod(fd, 0600) ? errno : 0;
	if (err)
		close(fd);
	else
		err = write_json(snap, fd);
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		unlink(tmp);
		mw_err("cannot write %s, left as it was [%s]", path, mw_errno_text(err));
		free(tmp);
		return MW_EXIT_FAILURE;
	}
	free(tmp);
	sync_dir(path);
	return MW_EXIT_OK;
}
