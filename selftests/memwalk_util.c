// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the memwalk selftests; see memwalk_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memwalk_util.h"

#define CHILD_SETUP_FAILED	126	/* exit code: could not prepare the child */

const char *mw_client_path(void)
{
	const char *path = getenv("MEMWALK_CLIENT");

	return path && *path ? path : MW_CLIENT_DEFAULT;
}

static int drop_privileges(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	return 0;
}

static void read_back(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

int mw_run(struct mw_run *r, uid_t uid, const char *const argv[])
{
	int out, err, ret = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	out = memfd_create("stdout", MFD_CLOEXEC);
	err = memfd_create("stderr", MFD_CLOEXEC);
	if (out < 0 || err < 0) {
		ret = -errno;
		goto out_close;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out_close;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0)
			_exit(CHILD_SETUP_FAILED);
		unsetenv("MEMWALK_DEVICE");
		if (!getenv("PATH"))
			setenv("PATH", "/sbin:/usr/sbin:/bin:/usr/bin", 1);
		if (uid && drop_privileges(uid)) {
			dprintf(2, "cannot become uid %u: %s\n", uid, strerror(errno));
			_exit(CHILD_SETUP_FAILED);
		}
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &r->status, 0) < 0)
		ret = -errno;
	read_back(out, r->out, sizeof(r->out));
	read_back(err, r->err, sizeof(r->err));
out_close:
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return ret;
}

int mw_exit_code(const struct mw_run *r)
{
	return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
}

int mw_as_user(uid_t uid, int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (drop_privileges(uid))
			_exit(255);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

bool mw_wait_path(const char *path, bool present)
{
	const struct timespec step = { .tv_nsec = 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 200; i++) {
		if ((access(path, F_OK) == 0) == present)
			return true;
		nanosleep(&step, NULL);
	}
	return false;
}

bool mw_mounted(const char *type, const char *dir)
{
	char line[512], dev[128], mnt[256], fstype[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %255s %63s", dev, mnt, fstype) == 3)
			found = !strcmp(mnt, dir) && !strcmp(fstype, type);
	}
	fclose(f);
	return found;
}

/* Whether the kernel knows file system @type (per /proc/filesystems). */
static bool fs_known(const char *type)
{
	char line[128], a[64], b[64];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%63s %63s", a, b);

		found = !strcmp(n == 2 ? b : a, type);
	}
	fclose(f);
	return found;
}

bool mw_kasan_enabled(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " kasan_report\n") != NULL;
	fclose(f);
	return found;
}

int mw_debugfs(void)
{
	if (mw_mounted("debugfs", MW_DEBUGFS))
		return 0;
	return fs_known("debugfs") ? -ENOENT : -ENODEV;
}

int mw_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	close(fd);
	return 0;
}

int mw_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	return (size_t)n == len ? 0 : -EIO;
}
