// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk module lifecycle: loading and unloading, with the module NOT
 * loaded when the program starts; it is left unloaded at the end.
 *
 * Needs root, rmmod in $PATH, devtmpfs on /dev, and in $MEMWALK_KO
 * the path of memwalk.ko.  The client is $MEMWALK_CLIENT or
 * /bin/memwalk-client.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_evlib.h"
#include "memwalk_util.h"

#define MODULE_NAME	"memwalk"
#define SYS_MODULE	"/sys/module/" MODULE_NAME
#define DEBUGFS		MW_DEBUGFS
#define DEBUGFS_DIR	DEBUGFS "/" MODULE_NAME

#define WARMUP_CYCLES	3
/* MEMWALK_CYCLES overrides (the debug kernel, ~10x slower, runs fewer). */
#define CYCLES_DEFAULT	100
/* Growth allowed over 100 load/unload cycles, in kB. */
#define MAX_SUNRECLAIM_GROWTH	256
#define MAX_VMALLOC_GROWTH	512

/* Taint flags a load/unload must never add: B (bad page), D (oops), W, L. */
#define BAD_TAINTS	((1UL << 5) | (1UL << 7) | (1UL << 9) | (1UL << 14))

/*
 * insmod and rmmod as their system calls: an exec of busybox costs a
 * tenth of a second under KASAN and TCG, and the fault-injection test
 * below loads the module some 280 times.
 */
static void load(struct __test_metadata *_metadata, const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	long ret;
	int err;

	ASSERT_LE(0, fd) TH_LOG("%s: %s", ko, strerror(errno));
	ret = syscall(SYS_finit_module, fd, "", 0);
	err = errno;
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s: %s", ko, strerror(err));
	ASSERT_TRUE(module_loaded());
}

static void unload(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK))
		TH_LOG("rmmod %s: %s", MODULE_NAME, strerror(errno));
	ASSERT_FALSE(module_loaded());
}

/* One insmod/rmmod, checking that the device (and debugfs dir) follow. */
static void cycle(struct __test_metadata *_metadata, const char *ko,
		  bool debugfs, int i)
{
	load(_metadata, ko);
	ASSERT_TRUE(mw_wait_path(MEMWALK_DEVICE_PATH, true))
		TH_LOG("cycle %d: no %s after insmod", i, MEMWALK_DEVICE_PATH);
	if (debugfs) {
		ASSERT_TRUE(mw_wait_path(DEBUGFS_DIR, true))
			TH_LOG("cycle %d: no %s after insmod", i, DEBUGFS_DIR);
	}
	unload(_metadata);
	ASSERT_TRUE(mw_wait_path(MEMWALK_DEVICE_PATH, false))
		TH_LOG("cycle %d: %s still there after rmmod", i,
		       MEMWALK_DEVICE_PATH);
	if (debugfs) {
		ASSERT_TRUE(mw_wait_path(DEBUGFS_DIR, false))
			TH_LOG("cycle %d: %s still there after rmmod", i,
			       DEBUGFS_DIR);
	}
}

struct meminfo {
	long sunreclaim_kb;
	long vmalloc_used_kb;
};

static int read_meminfo(struct meminfo *mi)
{
	char buf[8192], *p;

	if (mw_read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nSUnreclaim:");
	if (!p || sscanf(p, "\nSUnreclaim: %ld kB", &mi->sunreclaim_kb) != 1)
		return -1;
	p = strstr(buf, "\nVmallocUsed:");
	if (!p || sscanf(p, "\nVmallocUsed: %ld kB", &mi->vmalloc_used_kb) != 1)
		return -1;
	return 0;
}

static unsigned long read_taint(void)
{
	char buf[32];

	if (mw_read_file("/proc/sys/kernel/tainted", buf, sizeof(buf)))
		return ~0UL;
	return strtoul(buf, NULL, 10);
}

/* Give back what caches hold so that only real growth is left. */
static int settle_caches(void)
{
	struct dirent *de;
	char path[512];
	DIR *dir;
	int ret;

	sleep(1);	/* let RCU callbacks and deferred frees run */
	sync();
	ret = mw_write_file("/proc/sys/vm/drop_caches", "3\n");
	/* SLUB: release empty slabs cached per CPU (best effort). */
	dir = opendir("/sys/kernel/slab");
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || de->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 de->d_name);
		mw_write_file(path, "1");
	}
	if (dir)
		closedir(dir);
	return ret;
}

FIXTURE(lifecycle) {
	const char *ko;
	int fd;
};

FIXTURE_SETUP(lifecycle)
{
	self->fd = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	self->ko = getenv("MEMWALK_KO");
	ASSERT_NE(NULL, self->ko)
		TH_LOG("set MEMWALK_KO to the path of memwalk.ko");
	ASSERT_EQ(0, access(self->ko, R_OK))
		TH_LOG("MEMWALK_KO=%s: %s", self->ko, strerror(errno));
	ASSERT_FALSE(module_loaded())
		TH_LOG("memwalk is loaded; these tests start without it");
}

FIXTURE_TEARDOWN(lifecycle)
{
	const char *argv[] = { "rmmod", MODULE_NAME, NULL };
	struct mw_run r;

	if (self->fd >= 0)
		close(self->fd);
	if (module_loaded() && (mw_run(&r, 0, argv) || mw_exit_code(&r)))
		TH_LOG("teardown: could not unload memwalk: %s", r.err);
}

TEST_F(lifecycle, client_info_without_module)
{
	const char *argv[] = { mw_client_path(), "info", NULL };
	struct mw_run r;

	ASSERT_EQ(0, mw_run(&r, 0, argv));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "memwalk module not loaded: run 'modprobe memwalk'"))
		TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

TEST_F(lifecycle, client_status_without_module)
{
	const char *argv[] = { mw_client_path(), "status", NULL };
	struct mw_run r;

	ASSERT_EQ(0, mw_run(&r, 0, argv));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "memwalk module not loaded: run 'modprobe memwalk'"))
		TH_LOG("stderr: %s", r.err);
}

/*
 * 100 (MEMWALK_CYCLES) loads and unloads; the device node (and debugfs directory) must
 * come and go with the module, unreclaimable slab and vmalloc must not grow,
 * and the kernel must not warn.
 */
TEST_F_TIMEOUT(lifecycle, load_unload_cycles, 600)
{
	int debugfs = mw_debugfs();
	unsigned long taint_before, taint_new;
	const char *cycles_env = getenv("MEMWALK_CYCLES");
	int cycles = cycles_env ? atoi(cycles_env) : CYCLES_DEFAULT;
	struct meminfo before, after;
	long d_slab, d_vmalloc;
	int i;

	ASSERT_LT(0, cycles);
	if (debugfs == -ENODEV) {
		TH_LOG("kernel without debugfs: no %s to follow", DEBUGFS_DIR);
	} else {
		ASSERT_EQ(0, debugfs) TH_LOG("debugfs is not mounted at %s", DEBUGFS);
	}
	taint_before = read_taint();
	ASSERT_NE(~0UL, taint_before);

	for (i = 0; i < WARMUP_CYCLES; i++)
		cycle(_metadata, self->ko, !debugfs, i);
	ASSERT_EQ(0, settle_caches());
	ASSERT_EQ(0, read_meminfo(&before));

	for (i = 0; i < cycles; i++)
		cycle(_metadata, self->ko, !debugfs, i);
	ASSERT_EQ(0, settle_caches());
	ASSERT_EQ(0, read_meminfo(&after));

	d_slab = after.sunreclaim_kb - before.sunreclaim_kb;
	d_vmalloc = after.vmalloc_used_kb - before.vmalloc_used_kb;
	TH_LOG("%d cycles: SUnreclaim %+ld kB (%ld -> %ld), VmallocUsed %+ld kB (%ld -> %ld)",
	       cycles, d_slab, before.sunreclaim_kb, after.sunreclaim_kb,
	       d_vmalloc, before.vmalloc_used_kb, after.vmalloc_used_kb);
	/*
	 * KASAN's quarantine keeps freed slab objects for a while, so the
	 * slab delta means nothing there; the debug kernel's kmemleak scan
	 * (reliability lane) is the leak oracle instead.
	 */
	if (!mw_kasan_enabled()) {
		EXPECT_LE(d_slab, MAX_SUNRECLAIM_GROWTH);
	} else {
		TH_LOG("KASAN: slab delta not judged (quarantine); kmemleak judges leaks");
	}
	EXPECT_LE(d_vmalloc, MAX_VMALLOC_GROWTH);

	taint_new = read_taint() & ~taint_before;
	EXPECT_EQ(0, taint_new & BAD_TAINTS)
		TH_LOG("kernel taint gained %#lx: see dmesg", taint_new);
}

/*
 * An open file pins the module: delete_module() refuses with EWOULDBLOCK
 * (not EBUSY, which is for a module still initialising or going away), and
 * rmmod fails; after close, rmmod succeeds.
 */
TEST_F(lifecycle, unload_refused_while_open)
{
	const char *argv[] = { "rmmod", MODULE_NAME, NULL };
	struct memwalk_info info = { .size = sizeof(info) };
	char refcnt[32];
	struct mw_run r;
	long ret;
	int err;

	load(_metadata, self->ko);
	ASSERT_TRUE(mw_wait_path(MEMWALK_DEVICE_PATH, true));
	self->fd = open(MEMWALK_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));

	ASSERT_EQ(0, mw_read_file(SYS_MODULE "/refcnt", refcnt, sizeof(refcnt)));
	EXPECT_LE(1, atoi(refcnt)) TH_LOG("refcnt with a file open: %s", refcnt);

	ret = syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK);
	err = errno;
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EWOULDBLOCK, err) TH_LOG("delete_module: %s", strerror(err));
	ASSERT_EQ(0, mw_run(&r, 0, argv));
	EXPECT_NE(0, mw_exit_code(&r)) TH_LOG("rmmod succeeded with a file open");
	ASSERT_TRUE(module_loaded());

	/* The module is intact and the file still works. */
	EXPECT_EQ(0, ioctl(self->fd, MEMWALK_IOC_INFO, &info))
		TH_LOG("MEMWALK_IOC_INFO: %s", strerror(errno));

	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	ASSERT_EQ(0, mw_read_file(SYS_MODULE "/refcnt", refcnt, sizeof(refcnt)));
	EXPECT_EQ(0, atoi(refcnt)) TH_LOG("refcnt after close: %s", refcnt);
	unload(_metadata);
	EXPECT_TRUE(mw_wait_path(MEMWALK_DEVICE_PATH, false));
}

/* The debugfs directory exists exactly while the module is loaded. */
TEST_F(lifecycle, debugfs_dir_follows_module)
{
	struct memwalk_info info = { .size = sizeof(info) };
	int debugfs = mw_debugfs();
	struct stat st;

	if (debugfs == -ENODEV)
		SKIP(return, "kernel without debugfs (CONFIG_DEBUG_FS)");
	ASSERT_EQ(0, debugfs) TH_LOG("debugfs is not mounted at %s", DEBUGFS);
	ASSERT_NE(0, access(DEBUGFS_DIR, F_OK));

	load(_metadata, self->ko);
	ASSERT_EQ(0, stat(DEBUGFS_DIR, &st)) TH_LOG("%s: %s", DEBUGFS_DIR, strerror(errno));
	EXPECT_TRUE(S_ISDIR(st.st_mode));

	/* ... and the module says so. */
	self->fd = open(MEMWALK_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, MEMWALK_IOC_INFO, &info))
		TH_LOG("MEMWALK_IOC_INFO: %s", strerror(errno));
	EXPECT_NE(0, info.features & MEMWALK_FEAT_DEBUGFS);
	close(self->fd);
	self->fd = -1;

	unload(_metadata);
	EXPECT_NE(0, access(DEBUGFS_DIR, F_OK));
}

/* ---- GET_STATUS while the module loads ---------------------------------- */

#define RACE_ROUNDS_DEFAULT	30

/*
 * What a GET_STATUS reply must say of the hooks whenever it comes: each
 * has a name, a leg and one of the states the uapi defines, "attached"
 * agrees with the state, a failed hook has its errno, and no event has two
 * live hooks (its others are in standby).  Returns NULL or what is wrong.
 */
static const char *probes_invalid(const struct status *st, char *why, size_t len)
{
	unsigned int live[MEMWALK_EV_MAX + 1] = { 0 };
	int i;

	if (!st->nr_probes)
		return "no hooks";
	for (i = 0; i < st->nr_probes; i++) {
		const typeof(st->probe[0]) *p = &st->probe[i];
		const char *bad = NULL;

		if (!p->name[0])
			bad = "no name";
		else if (p->leg < MEMWALK_LEG_TRACEPOINT || p->leg > MEMWALK_LEG_KRETPROBE)
			bad = "no such leg";
		else if (p->state > MEMWALK_PROBE_DISABLED)
			bad = "no such state";
		else if (p->attached != (p->state == MEMWALK_PROBE_ATTACHED))
			bad = "ATTACHED disagrees with STATE";
		else if ((p->state == MEMWALK_PROBE_FAILED) != (p->error < 0))
			bad = "ERROR disagrees with STATE";
		else if (p->event > MEMWALK_EV_MAX)
			bad = "no such event";
		else if (p->attached && ++live[p->event] > 1)
			bad = "a second live hook for its event";
		if (bad) {
			snprintf(why, len, "hook %d (%s, leg %u, state %u, error %d): %s",
				 i, p->name, p->leg, p->state, p->error, bad);
			return why;
		}
	}
	return NULL;
}

/* The hooks of two replies are the same (hits and misses aside). */
static const char *probes_differ(const struct status *a, const struct status *b,
				 char *why, size_t len)
{
	int i;

	if (a->nr_probes != b->nr_probes) {
		snprintf(why, len, "%d hooks, then %d", a->nr_probes, b->nr_probes);
		return why;
	}
	for (i = 0; i < a->nr_probes; i++) {
		if (!strcmp(a->probe[i].name, b->probe[i].name) &&
		    a->probe[i].leg == b->probe[i].leg &&
		    a->probe[i].event == b->probe[i].event &&
		    a->probe[i].state == b->probe[i].state &&
		    a->probe[i].error == b->probe[i].error)
			continue;
		snprintf(why, len, "hook %d: %s leg %u state %u error %d, then %s leg %u state %u error %d",
			 i, a->probe[i].name, a->probe[i].leg, a->probe[i].state, a->probe[i].error,
			 b->probe[i].name, b->probe[i].leg, b->probe[i].state, b->probe[i].error);
		return why;
	}
	return NULL;
}

struct racer {
	volatile bool loading;		/* insmod has not returned yet */
	int replies;			/* GET_STATUS answered while loading */
	int errors;			/* ... refused (other than ENOENT) */
	int last_error;
	struct status first;		/* the first answer of the round */
	char bad[256];			/* the first invalid answer */
};

/*
 * Ask for GET_STATUS as fast as the family can be resolved, from the
 * moment it appears, until insmod has returned.  Runs SCHED_FIFO so it
 * gets in between the family's registration and whatever follows it.
 */
static void *racer_fn(void *arg)
{
	struct racer *rc = arg;
	static struct status st;
	char why[256];
	int ret;

	while (rc->loading) {
		ret = status_get(&st);
		if (ret == ENOENT)
			continue;
		if (ret) {
			rc->errors++;
			rc->last_error = ret;
			continue;
		}
		if (!rc->replies++)
			rc->first = st;
		if (!rc->bad[0] && probes_invalid(&st, why, sizeof(why)))
			snprintf(rc->bad, sizeof(rc->bad), "%s", why);
	}
	return NULL;
}

/*
 * GET_STATUS raced against insmod, MEMWALK_RACE_ROUNDS times: each answer
 * that comes before insmod returns must describe the hooks as they are
 * once it has (valid names and states, nothing "attached" that is not),
 * and nothing may oops or hang (vm-run.sh fails a guest with a splat).
 */
TEST_F_TIMEOUT(lifecycle, get_status_during_insmod, 600)
{
	const char *rounds_env = getenv("MEMWALK_RACE_ROUNDS");
	int rounds = rounds_env ? atoi(rounds_env) : RACE_ROUNDS_DEFAULT;
	struct sched_param sp = { .sched_priority = 50 };
	static struct racer rc;
	static struct status ref;
	int i, early = 0, refused = 0;
	pthread_attr_t attr;
	pthread_t t;
	char why[256];

	ASSERT_LT(0, rounds);
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED));
	ASSERT_EQ(0, pthread_attr_setschedpolicy(&attr, SCHED_FIFO));
	ASSERT_EQ(0, pthread_attr_setschedparam(&attr, &sp));

	for (i = 0; i < rounds; i++) {
		memset(&rc, 0, sizeof(rc));
		rc.loading = true;
		ASSERT_EQ(0, pthread_create(&t, &attr, racer_fn, &rc));
		load(_metadata, self->ko);
		rc.loading = false;
		ASSERT_EQ(0, pthread_join(t, NULL));

		ASSERT_EQ(0, status_get(&ref)) TH_LOG("round %d: GET_STATUS after insmod", i);
		ASSERT_EQ(NULL, probes_invalid(&ref, why, sizeof(why)))
			TH_LOG("round %d, after insmod: %s", i, why);
		EXPECT_STREQ("", rc.bad) TH_LOG("round %d, during insmod", i);
		if (rc.replies) {
			early++;
			EXPECT_EQ(NULL, probes_differ(&rc.first, &ref, why, sizeof(why)))
				TH_LOG("round %d: during insmod vs after: %s", i, why);
		}
		refused += rc.errors;
		if (rc.errors)
			TH_LOG("round %d: %d GET_STATUS refused during insmod (last: %s)",
			       i, rc.errors, strerror(rc.last_error));
		unload(_metadata);
	}
	pthread_attr_destroy(&attr);
	TH_LOG("%d rounds: %d with GET_STATUS answered before insmod returned, %d refused",
	       rounds, early, refused);
	EXPECT_EQ(0, refused);
	/* Without an early answer the race was not run. */
	EXPECT_LT(0, early);
}

/* ---- init failure paths (fault injection) ------------------------------- */

#define FI_DIR		DEBUGFS
#define FAILNTH_MAX_DEFAULT	2000
#define MODULES_END	"0xffffffffff000000"	/* x86-64: end of the module mapping space */

static int fi_write(const char *attr, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), FI_DIR "/%s/%s", attr, file);
	return mw_write_file(path, val);
}

/* The kernel image's end (_end): module text is above it. */
static int kernel_end(char *buf, size_t len)
{
	char line[256], addr[32], type[4], name[128];
	FILE *f = fopen("/proc/kallsyms", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %3s %127s", addr, type, name) == 3 &&
		    !strcmp(name, "_end") && strspn(addr, "0") != strlen(addr)) {
			snprintf(buf, len, "0x%s", addr);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * failslab consulted for every slab allocation, but only counted (by
 * fail-nth) when module code is on the stack: in an insmod, that is
 * memwalk's init and what it calls, not the module loader.  Slab only:
 * page allocations (percpu chunks, vmalloc) come and go with the
 * allocators' state, so the n-th of them would not be the same one from
 * one insmod to the next, and an allocation site could be skipped.
 *
 * On the stack within FAILSLAB_DEPTH frames of the allocation: memwalk's
 * own allocations and those of the kernel calls it makes, a few levels
 * down (each step of the init, genetlink's and the misc device's
 * included: 107 allocations on the debug kernel).  Deeper ones, 150 of
 * them inside register_kretprobe()'s object pool, return the same error
 * to the same memwalk code as a shallower one, and cost the lane two
 * minutes; MEMWALK_FAILSLAB_DEPTH=32 takes them too (262 allocations).
 */
#define FAILSLAB_DEPTH	"10"
static int fi_aim_at_modules(void)
{
	char start[40];
	int ret = 0;

	if (kernel_end(start, sizeof(start)))
		return -1;
	ret |= fi_write("failslab", "probability", "0");
	ret |= fi_write("failslab", "verbose", "0");
	ret |= fi_write("failslab", "task-filter", "N");
	ret |= fi_write("failslab", "ignore-gfp-wait", "N");
	ret |= fi_write("failslab", "stacktrace-depth",
			getenv("MEMWALK_FAILSLAB_DEPTH") ?: FAILSLAB_DEPTH);
	ret |= fi_write("failslab", "require-start", start);
	ret |= fi_write("failslab", "require-end", MODULES_END);
	return ret;
}

static void fi_reset(void)
{
	fi_write("failslab", "require-start", "0");
	fi_write("failslab", "require-end", "0xffffffffffffffff");
	fi_write("failslab", "ignore-gfp-wait", "Y");
}

/*
 * A kernel thread (no command line) named after the module: the events
 * workqueue's rescuer, "kworker/R-memwalk_events".
 */
static bool memwalk_thread(char *name, size_t len)
{
	struct dirent *de;
	char path[300], comm[64], cmdline[8];
	bool found = false;
	DIR *dir = opendir("/proc");

	while (dir && !found && (de = readdir(dir))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (mw_read_file(path, comm, sizeof(comm)))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		if (mw_read_file(path, cmdline, sizeof(cmdline)) || cmdline[0])
			continue;
		found = strstr(comm, "memwalk") != NULL;
		if (found)
			snprintf(name, len, "%.16s: %.64s", de->d_name, comm);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* What a failed insmod left behind, or NULL. */
static const char *leftover(char *why, size_t len)
{
	struct family f;
	char t[128];

	if (module_loaded())
		return SYS_MODULE;
	if (!mw_wait_path(MEMWALK_DEVICE_PATH, false))
		return MEMWALK_DEVICE_PATH;
	if (!mw_wait_path(DEBUGFS_DIR, false))
		return DEBUGFS_DIR;
	if (!family_resolve(&f))
		return "the generic netlink family";
	if (memwalk_thread(t, sizeof(t))) {
		snprintf(why, len, "thread %.100s", t);
		return why;
	}
	return NULL;
}

/* The memwalk lines /dev/kmsg got since @fd was opened or last read. */
static void kmsg_memwalk(int fd, char *out, size_t len)
{
	char rec[1024], *msg;
	ssize_t n;

	out[0] = '\0';
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || strncmp(msg + 1, MODULE_NAME ": ", strlen(MODULE_NAME) + 2))
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		if (strlen(out) + strlen(msg) + 2 < len)
			strcat(strcat(out, out[0] ? " |" : ""), msg + strlen(MODULE_NAME) + 2);
	}
}

/*
 * Each step of memwalk_init() that can fail, by what it says then, and
 * whether every insmod's run of it allocates.  genl_register_family()
 * allocates only when its IDR needs a node (family ids are handed out
 * cyclically: now and then) or the multicast groups' bitmap must grow, so
 * whether any allocation of it comes up depends on the loads before: not
 * seeing it fail is said, not failed (a run saw none in 276 allocations).
 */
static const struct {
	const char *says;
	bool always_allocates;
} init_steps[] = {
	{ "cannot allocate the event buffers", true },
	{ "cannot set up the hooks", true },
	{ "cannot register genetlink family", false },
	{ "cannot register /dev/memwalk", true },
};

/*
 * Every slab allocation memwalk's init makes, directly or in what it
 * calls (fail-nth, counted only with module code on the stack within
 * FAILSLAB_DEPTH frames), fails in turn, until an insmod goes through
 * without one.  Each insmod either
 * fails with the injected ENOMEM and leaves nothing (module, device,
 * debugfs directory, family, the events workqueue's rescuer thread), or
 * loads a module that answers GET_STATUS and unloads.  Every step of the
 * init that always allocates must have failed (init_steps).  kmemleak
 * after the suite (reliability lane) judges what was freed.
 */
TEST_F_TIMEOUT(lifecycle, init_failure_unwinds, 3000)
{
	const char *max_env = getenv("MEMWALK_FAILNTH_MAX");
	int max = max_env ? atoi(max_env) : FAILNTH_MAX_DEFAULT;
	int n, ret, err, failed = 0, survived = 0, kfd, mfd;
	char why[256], msgs[512], left[32], t[128];
	static struct status st;
	int steps[ARRAY_SIZE(init_steps)] = { 0 };
	struct mw_logcap lc = MW_LOGCAP(20);
	const char *bad = NULL;
	bool done = false;
	size_t i;

	ret = mw_debugfs();
	if (ret == -ENODEV)
		SKIP(return, "kernel without debugfs (CONFIG_DEBUG_FS), so without failslab");
	ASSERT_EQ(0, ret) TH_LOG("debugfs is not mounted at %s", DEBUGFS);
	if (access("/proc/thread-self/fail-nth", F_OK))
		SKIP(return, "kernel without fail-nth (CONFIG_FAULT_INJECTION)");
	if (access(FI_DIR "/failslab", F_OK))
		SKIP(return, "kernel without failslab (CONFIG_FAILSLAB)");
	if (access(FI_DIR "/failslab/require-start", F_OK))
		SKIP(return, "kernel without failslab's stack filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)");
	ASSERT_FALSE(memwalk_thread(t, sizeof(t))) TH_LOG("before the test: %s", t);
	ASSERT_EQ(0, fi_aim_at_modules());
	mfd = open(self->ko, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, mfd);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, kfd);

	for (n = 1; n <= max && !done; n++) {
		lseek(kfd, 0, SEEK_END);
		snprintf(left, sizeof(left), "%d", n);
		ASSERT_EQ(0, mw_write_file("/proc/thread-self/fail-nth", left));
		ret = syscall(SYS_finit_module, mfd, "", 0);
		err = errno;
		ASSERT_EQ(0, mw_read_file("/proc/thread-self/fail-nth", left, sizeof(left)));
		ASSERT_EQ(0, mw_write_file("/proc/thread-self/fail-nth", "0"));
		kmsg_memwalk(kfd, msgs, sizeof(msgs));
		done = atoi(left) != 0;		/* fewer than n allocations */

		if (ret) {
			for (i = 0; i < ARRAY_SIZE(init_steps); i++)
				steps[i] += strstr(msgs, init_steps[i].says) != NULL;
			failed++;
			if (mw_logcap_take(&lc))
				TH_LOG("allocation %d failed: insmod %s;%s", n, strerror(err), msgs);
			EXPECT_FALSE(done) TH_LOG("insmod failed without an injected failure");
			EXPECT_EQ(ENOMEM, err);
			bad = leftover(why, sizeof(why));
			EXPECT_EQ(NULL, bad)
				TH_LOG("allocation %d failed in init, which left %s", n, bad ?: "?");
			if (bad)
				break;
			continue;
		}
		if (!done)
			survived++;
		EXPECT_EQ(0, status_get(&st)) TH_LOG("allocation %d failed, module loaded", n);
		EXPECT_TRUE(mw_wait_path(MEMWALK_DEVICE_PATH, true));
		unload(_metadata);
		bad = leftover(why, sizeof(why));
		EXPECT_EQ(NULL, bad) TH_LOG("rmmod after allocation %d failed left %s", n, bad ?: "?");
	}
	close(kfd);
	close(mfd);
	fi_reset();
	if (mw_logcap_dropped(&lc))
		TH_LOG("... and %u more failed insmods", mw_logcap_dropped(&lc));
	TH_LOG("%d allocations in init: %d failed the insmod, %d were survived",
	       n - 2, failed, survived);
	if (!bad)
		EXPECT_TRUE(done) TH_LOG("more than %d allocations (MEMWALK_FAILNTH_MAX)", max);
	for (i = 0; i < ARRAY_SIZE(init_steps); i++) {
		const char *step = init_steps[i].says;

		if (!bad && !steps[i])
			TH_LOG("no insmod failed with \"%s\"%s", step,
			       init_steps[i].always_allocates ? "" :
			       " (none of its allocations came up this time)");
		EXPECT_TRUE(bad || steps[i] || !init_steps[i].always_allocates);
	}
}

TEST_HARNESS_MAIN
