// SPDX-License-Identifier: GPL-2.0
/*
 * The library's error returns, for host-tests.sh: each check calls a
 * libmemwalk function on a case that must fail (or succeed) and compares
 * the return value and the message it leaves in struct mw_error.  The
 * library must not print: host-tests.sh checks that stderr stays empty.
 * The device is tests/fake-device.c, driven by its MW_FAKE_* variables.
 *
 *   lib-test DATA_DIR TMP_DIR   prints one line per failed check;
 *                               exit 0 if all passed
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "collect.h"
#include "device.h"
#include "diff.h"
#include "error.h"
#include "genl.h"
#include "snapjson.h"

static int failed;
static const char *data_dir, *tmp_dir;

static void __attribute__((format(printf, 2, 3)))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failed++;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* @ret is @code and @e says @code and holds @text. */
static void check_error(const char *what, int ret, int code,
			const struct mw_error *e, const char *text)
{
	check(ret == code, "%s: returned %d, expected %d", what, ret, code);
	check(e->code == code, "%s: error code %d, expected %d", what, e->code, code);
	check(strstr(e->msg, text) != NULL, "%s: message '%s' lacks '%s'", what,
	      e->msg, text);
}

static char *path_of(const char *dir, const char *name)
{
	static char buf[4][4096];
	static unsigned int i;
	char *p = buf[i++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		printf("FAIL: cannot write %s\n", path);
		exit(1);
	}
}

static void test_load(void)
{
	struct mw_snapshot *snap = (void *)1;
	struct mw_error e = { 0 };
	char *p;
	int ret;

	p = path_of(tmp_dir, "no-such.json");
	ret = mw_snapshot_load(p, &snap, &e);
	check_error("load of a missing file", ret, -ENOENT, &e,
		    "[ENOENT: No such file or directory]");
	check(snap == NULL, "load of a missing file: snapshot not NULL");

	p = path_of(tmp_dir, "bad.json");
	write_file(p, "{\n  \"schema_version\": 1,,\n}\n");
	ret = mw_snapshot_load(p, &snap, &e);
	check_error("load of bad JSON", ret, -EINVAL, &e, "bad.json:2:");
	check(!e.unavailable, "load of bad JSON: says unavailable");

	p = path_of(tmp_dir, "newer.json");
	write_file(p, "{\"schema_version\": 2}\n");
	ret = mw_snapshot_load(p, &snap, &e);
	check_error("load of a newer schema", ret, -EINVAL, &e,
		    "schema_version: version 2 is newer than this client reads");

	ret = mw_snapshot_load(path_of(data_dir, "cow-before.json"), &snap, &e);
	check(ret == 0 && snap, "load of cow-before.json: %d %s", ret, e.msg);
	mw_snapshot_free(snap);
}

static void test_diff(void)
{
	struct mw_snapshot *a = NULL, *b = NULL;
	struct mw_error e = { 0 };
	struct mw_diff d;
	int ret;

	if (mw_snapshot_load(path_of(data_dir, "cow-before.json"), &a, &e) ||
	    mw_snapshot_load(path_of(data_dir, "cow-after.json"), &b, &e)) {
		check(false, "diff: cannot load the fixtures: %s", e.msg);
		goto out;
	}
	ret = mw_diff(a, a, &d, &e);
	check(ret == 0 && mw_diff_empty(&d), "diff of a snapshot with itself: not empty");
	mw_diff_free(&d);

	ret = mw_diff(a, b, &d, &e);
	check(ret == 0 && d.changes[MW_CH_COW_BROKEN].pages > 0,
	      "diff cow-before cow-after: no COW broken");
	check(!strcmp(mw_change_name(MW_CH_COW_BROKEN), "COW broken"),
	      "mw_change_name(MW_CH_COW_BROKEN) is '%s'",
	      mw_change_name(MW_CH_COW_BROKEN));
	mw_diff_free(&d);

	b->page_size *= 2;
	ret = mw_diff(a, b, &d, &e);
	check_error("diff of different page sizes", ret, -EINVAL, &e,
		    "the snapshots have different page sizes (4096 and 8192)");
	mw_diff_free(&d);
out:
	mw_snapshot_free(a);
	mw_snapshot_free(b);
}

static void test_device(void)
{
	struct mw_snapshot *s1 = NULL, *s2 = NULL;
	struct mw_collect_opts opts = { .pid = 4242 };
	struct memwalk_translate t;
	struct mw_device *dev = NULL;
	struct mw_error e = { 0 };
	size_t vma_len;
	int ret;

	unsetenv("MW_FAKE_SNAPSHOT");
	ret = mw_device_open(&dev, &e);
	check_error("open without the module", ret, -ENOENT, &e,
		    "memwalk module not loaded: run 'modprobe memwalk'");
	check(e.unavailable && !dev, "open without the module: not unavailable");

	setenv("MW_FAKE_SNAPSHOT", path_of(data_dir, "cow-before.json"), 1);
	ret = mw_device_open(&dev, &e);
	check(ret == 0 && dev && dev->info.page_shift == 12,
	      "open of the fake device: %d %s", ret, e.msg);
	if (ret)
		return;

	/* One handle, two snapshots: the grown buffers are kept. */
	setenv("MW_FAKE_MIN_BUF", "600000", 1);
	ret = mw_collect(dev, &opts, &s1, &e);
	check(ret == 0 && s1, "first snapshot: %d %s", ret, e.msg);
	vma_len = dev->vma_len;
	check(vma_len >= 600000, "first snapshot: VMA buffer of %zu bytes", vma_len);
	ret = mw_collect(dev, &opts, &s2, &e);
	check(ret == 0 && s2, "second snapshot: %d %s", ret, e.msg);
	check(dev->vma_len == vma_len, "second snapshot: buffer not kept");
	check(s1 && s2 && s1->nr_vmas == s2->nr_vmas && s1->nr_vmas > 0,
	      "the two snapshots differ");
	unsetenv("MW_FAKE_MIN_BUF");
	mw_snapshot_free(s2);

	setenv("MW_FAKE_ERRNO", "EPERM", 1);
	ret = mw_collect(dev, &opts, &s2, &e);
	check_error("snapshot refused", ret, -EPERM, &e,
		    "snapshot: permission denied reading the page tables of pid 4242: need root (CAP_SYS_ADMIN) [EPERM: ");
	check(e.unavailable && !s2, "snapshot refused: not unavailable");
	setenv("MW_FAKE_ERRNO", "ESRCH", 1);
	ret = mw_translate(dev, 4242, 0x1000, &t, &e);
	check_error("translate of a gone process", ret, -ESRCH, &e,
		    "translate: no such process, or it has no user address space");
	check(!e.unavailable, "translate of a gone process: unavailable");
	unsetenv("MW_FAKE_ERRNO");
	mw_device_close(dev);

	/* The features are read once, at open. */
	setenv("MW_FAKE_FEATURES", "0", 1);
	ret = mw_device_open(&dev, &e);
	check(ret == 0, "open of a module without features: %d %s", ret, e.msg);
	if (!ret) {
		ret = mw_collect(dev, &opts, &s2, &e);
		check_error("snapshot without the feature", ret, -EOPNOTSUPP, &e,
			    "cannot take snapshots: it lacks the 'snapshot' feature");
		ret = mw_translate(dev, 4242, 0x1000, &t, &e);
		check_error("translate without the feature", ret, -EOPNOTSUPP, &e,
			    "cannot translate: it lacks the 'snapshot' feature");
		mw_device_close(dev);
	}
	unsetenv("MW_FAKE_FEATURES");
	mw_snapshot_free(s1);
	mw_snapshot_free(s2);
}

/* The family is not registered here (host-tests.sh runs without the module). */
static void test_genl(void)
{
	struct mw_genl genl = { 0 };
	struct mw_error e = { 0 };
	struct nl_sock *resolver, *sk = NULL;
	int ret;

	if (access("/sys/module/memwalk", F_OK) == 0)
		return;
	ret = mw_genl_open(&genl, &e);
	check_error("netlink without the family", ret, -ENOENT, &e,
		    "memwalk module not loaded: run 'modprobe memwalk' [generic netlink family \"memwalk\" not found]");
	check(e.unavailable && !genl.sock, "netlink without the family: not unavailable");

	resolver = nl_socket_alloc();
	if (!resolver || genl_connect(resolver) < 0) {
		check(false, "cannot open a generic netlink socket");
		nl_socket_free(resolver);
		return;
	}
	ret = mw_genl_join(resolver, "nlctrl", "no-such-group", 4096, &sk, &e);
	check_error("join of a group that does not exist", ret, -ENOENT, &e,
		    "generic netlink family \"nlctrl\" has no multicast group \"no-such-group\"");
	check(!sk, "join of a group that does not exist: a socket");
	ret = mw_genl_join(resolver, "nlctrl", "notify", 4096, &sk, &e);
	check(ret == 0 && sk, "join of nlctrl notify: %d %s", ret, e.msg);
	nl_socket_free(sk);
	nl_socket_free(resolver);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: lib-test DATA_DIR TMP_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	tmp_dir = argv[2];
	test_load();
	test_diff();
	test_device();
	test_genl();
	return failed ? 1 : 0;
}
