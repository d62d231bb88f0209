// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk character device and generic netlink family, with the module
 * loaded: MEMWALK_IOC_INFO against the kernel's own answers (uname,
 * sysconf, sysfs), each error path of the ioctl with its exact errno, the
 * permission checks, and the client's and netlink's view of the same module.
 *
 * Needs root and the module loaded.  The client is $MEMWALK_CLIENT or
 * /bin/memwalk-client; uid/gid 65534 is the unprivileged user.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/memwalk.h>

#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define DEBUGFS_DIR	MW_DEBUGFS "/memwalk"
#define KNOWN_FEATURES	(MEMWALK_FEAT_NETLINK | MEMWALK_FEAT_DEBUGFS | \
			 MEMWALK_FEAT_SNAPSHOT | MEMWALK_FEAT_MGLRU | \
			 MEMWALK_FEAT_VMA_SUMMARY | MEMWALK_FEAT_PHYS | \
			 MEMWALK_FEAT_CONTIGUOUS | MEMWALK_FEAT_FOLIO_YOUNG | \
			 MEMWALK_FEAT_NO_ACCESSED)
#define TAIL		64	/* extra bytes for the "caller knows more" tests */

#define PERMISSION_MSG	"permission denied opening " DEV ": need root (CAP_SYS_ADMIN)"

/* MEMWALK_IOC_INFO on @arg: 0, or the errno (a positive return shows as itself). */
static int info_ioctl(int fd, void *arg)
{
	int ret = ioctl(fd, MEMWALK_IOC_INFO, arg);

	return ret < 0 ? errno : ret;
}

static int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? errno : ret;
}

static void get_info(struct __test_metadata *_metadata, int fd,
		     struct memwalk_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ASSERT_EQ(0, info_ioctl(fd, info));
	ASSERT_NE(NULL, memchr(info->module_version, 0, sizeof(info->module_version)));
	ASSERT_NE(NULL, memchr(info->release, 0, sizeof(info->release)));
	ASSERT_NE(NULL, memchr(info->machine, 0, sizeof(info->machine)));
}

static bool all_bytes(const unsigned char *p, size_t len, unsigned char val)
{
	while (len--)
		if (*p++ != val)
			return false;
	return true;
}

/* Whether user space can map a page at 1 << @bit: the VA reaches it. */
static bool user_va_reaches(unsigned int bit)
{
	long page = sysconf(_SC_PAGESIZE);
	void *high = (void *)(1UL << bit);
	void *p = mmap(high, page, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	bool reaches = p == high || (p == MAP_FAILED && errno == EEXIST);

	if (p != MAP_FAILED)
		munmap(p, page);
	return reaches;
}

/* Paging levels in use, as user space can tell; 0 where it cannot. */
static unsigned int levels_oracle(void)
{
#if defined(__x86_64__)
	/* User addresses above 47 bits exist only with 5-level paging. */
	return user_va_reaches(50) ? 5 : 4;
#elif defined(__aarch64__)
	/*
	 * With 4K pages a 52-bit VA (LPA2) takes 5 levels, 48 bits 4, 39
	 * bits 3; other page sizes fold otherwise.
	 */
	if (sysconf(_SC_PAGESIZE) != 4096)
		return 0;
	if (user_va_reaches(50))
		return 5;
	return user_va_reaches(47) ? 4 : 3;
#else
	return 0;
#endif
}

/* Used as mw_as_user() callbacks: 0 or errno. */
static int open_errno(void *arg)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* ---- generic netlink, spoken directly with libnl --------------------- */

struct genl_status {
	char module_version[MEMWALK_MODVER_LEN];
	char release[MEMWALK_RELEASE_LEN];
	uint32_t uapi_version;
	int replies;
	int error;		/* errno from an NLMSG_ERROR */
	bool malformed;
	bool done;
};

static struct nla_policy status_policy[MEMWALK_A_MAX + 1] = {
	[MEMWALK_A_MODULE_VERSION]	= { .type = NLA_STRING,
					    .maxlen = MEMWALK_MODVER_LEN },
	[MEMWALK_A_UAPI_VERSION]	= { .type = NLA_U32 },
	[MEMWALK_A_RELEASE]		= { .type = NLA_STRING,
					    .maxlen = MEMWALK_RELEASE_LEN },
};

static int on_status(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[MEMWALK_A_MAX + 1];
	struct genl_status *st = arg;

	st->replies++;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, MEMWALK_A_MAX, status_policy) < 0 ||
	    !tb[MEMWALK_A_MODULE_VERSION] || !tb[MEMWALK_A_UAPI_VERSION] ||
	    !tb[MEMWALK_A_RELEASE]) {
		st->malformed = true;
		return NL_SKIP;
	}
	snprintf(st->module_version, sizeof(st->module_version), "%s",
		 nla_get_string(tb[MEMWALK_A_MODULE_VERSION]));
	snprintf(st->release, sizeof(st->release), "%s",
		 nla_get_string(tb[MEMWALK_A_RELEASE]));
	st->uapi_version = nla_get_u32(tb[MEMWALK_A_UAPI_VERSION]);
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct genl_status *st = arg;

	(void)msg;
	st->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct genl_status *st = arg;

	(void)nla;
	st->error = -err->error;
	st->done = true;
	return NL_STOP;
}

/*
 * MEMWALK_CMD_GET_STATUS on a fresh socket.  Returns 0, the kernel's errno,
 * ENOENT if the family is not registered, EPROTO for a malformed reply, or
 * EIO if libnl failed.
 */
static int genl_get_status(struct genl_status *st)
{
	struct nl_msg *msg = NULL;
	struct nl_cb *cb = NULL;
	struct nl_sock *sk;
	int family, ret = EIO;

	memset(st, 0, sizeof(*st));
	sk = nl_socket_alloc();
	if (!sk)
		return ENOMEM;
	if (genl_connect(sk) < 0)
		goto out;
	family = genl_ctrl_resolve(sk, MEMWALK_GENL_NAME);
	if (family < 0) {
		ret = family == -NLE_OBJ_NOTFOUND ? ENOENT : EIO;
		goto out;
	}
	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 NLM_F_REQUEST, MEMWALK_CMD_GET_STATUS,
			 MEMWALK_GENL_VERSION))
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_status, st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, st);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, st);
	if (nl_send_auto(sk, msg) < 0)	/* asks for an ACK */
		goto out;
	while (!st->done) {
		if (nl_recvmsgs(sk, cb) < 0 && !st->done)
			goto out;
	}
	if (st->error)
		ret = st->error;
	else if (st->malformed || st->replies != 1)
		ret = EPROTO;
	else
		ret = 0;
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	nl_socket_free(sk);
	return ret;
}

static int status_errno(void *arg)
{
	struct genl_status st;

	(void)arg;
	return genl_get_status(&st);
}

static bool family_registered(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	bool found = false;

	if (sk && genl_connect(sk) == 0)
		found = genl_ctrl_resolve(sk, MEMWALK_GENL_NAME) >= 0;
	nl_socket_free(sk);
	return found;
}

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(memwalk) {
	int fd;
	mode_t mode;		/* of the node at setup; restored at teardown */
	struct utsname uts;
};

FIXTURE_SETUP(memwalk)
{
	struct stat st;

	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	ASSERT_EQ(0, stat(DEV, &st))
		TH_LOG("%s: %s (is memwalk loaded?)", DEV, strerror(errno));
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, uname(&self->uts));
	self->fd = open(DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV, strerror(errno));
}

FIXTURE_TEARDOWN(memwalk)
{
	chmod(DEV, self->mode);
	close(self->fd);
}

/* ---- the device ----------------------------------------------------------- */

TEST_F(memwalk, open_close_1000)
{
	int i, fd;

	for (i = 0; i < 1000; i++) {
		fd = open(DEV, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open #%d: %s", i, strerror(errno));
		ASSERT_EQ(0, close(fd));
	}
}

TEST_F(memwalk, info_versions)
{
	struct memwalk_info info;
	char sysfs[64];

	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(sizeof(info), info.size);
	EXPECT_EQ(MEMWALK_UAPI_VERSION, info.uapi_version);
	EXPECT_NE(0, info.module_version[0]) TH_LOG("empty module_version");

	/* MODULE_VERSION() (module/main.c) shows in sysfs: the same string. */
	ASSERT_EQ(0, mw_read_file("/sys/module/memwalk/version", sysfs, sizeof(sysfs)))
		TH_LOG("/sys/module/memwalk/version: the module has a MODULE_VERSION()");
	sysfs[strcspn(sysfs, "\n")] = '\0';
	EXPECT_STREQ(sysfs, info.module_version);
}

TEST_F(memwalk, info_page_shift)
{
	long page_size = sysconf(_SC_PAGESIZE);
	struct memwalk_info info;

	ASSERT_LT(0, page_size);
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(__builtin_ctzl(page_size), info.page_shift);
}

TEST_F(memwalk, info_release_and_machine)
{
	struct memwalk_info info;

	get_info(_metadata, self->fd, &info);
	EXPECT_STREQ(self->uts.release, info.release);
	EXPECT_STREQ(self->uts.machine, info.machine);
}

TEST_F(memwalk, info_levels_nodes_features)
{
	unsigned int levels, nr_node_ids;
	struct memwalk_snapshot snap = { .size = 0 };
	struct memwalk_info info;
	char possible[256], *last;
	int debugfs;

	get_info(_metadata, self->fd, &info);
	levels = levels_oracle();
	if (levels) {
		EXPECT_EQ(levels, info.pgtable_levels);
	} else {
		EXPECT_LE(2, info.pgtable_levels);
		EXPECT_GE(5, info.pgtable_levels);
	}

	/* nr_node_ids is one more than the highest possible node. */
	ASSERT_EQ(0, mw_read_file("/sys/devices/system/node/possible", possible,
				  sizeof(possible)));
	last = possible + strcspn(possible, "\n");
	while (last > possible && !strchr("-,", last[-1]))
		last--;
	nr_node_ids = atoi(last) + 1;
	EXPECT_EQ(nr_node_ids, info.nr_node_ids) TH_LOG("possible nodes: %s", possible);

	EXPECT_EQ(0, info.features & ~KNOWN_FEATURES)
		TH_LOG("unknown feature bits %#llx",
		       (unsigned long long)(info.features & ~KNOWN_FEATURES));
	EXPECT_EQ(family_registered(), !!(info.features & MEMWALK_FEAT_NETLINK));
	/* The snapshot ioctl is there: a bad request is refused, not unknown. */
	EXPECT_NE(0, info.features & MEMWALK_FEAT_SNAPSHOT);
	EXPECT_EQ(EINVAL, ioctl_errno(self->fd, MEMWALK_IOC_SNAPSHOT, &snap));
	/* So are the summary and the census (their own suites test them). */
	EXPECT_NE(0, info.features & MEMWALK_FEAT_VMA_SUMMARY);
	EXPECT_NE(0, info.features & MEMWALK_FEAT_PHYS);
	EXPECT_NE(0, info.features & MEMWALK_FEAT_FOLIO_YOUNG);
	EXPECT_NE(0, info.features & MEMWALK_FEAT_NO_ACCESSED);
	/* Of the architectures memwalk knows, arm64 has a contiguous bit. */
	EXPECT_EQ(!strcmp(info.machine, "aarch64"), !!(info.features & MEMWALK_FEAT_CONTIGUOUS))
		TH_LOG("machine %s, features %#llx", info.machine,
		       (unsigned long long)info.features);
	/* CONFIG_LRU_GEN: /sys/kernel/mm/lru_gen exists. */
	EXPECT_EQ(access("/sys/kernel/mm/lru_gen", F_OK) == 0,
		  !!(info.features & MEMWALK_FEAT_MGLRU));
	debugfs = mw_debugfs();
	if (debugfs == -ENODEV) {
		EXPECT_EQ(0, info.features & MEMWALK_FEAT_DEBUGFS)
			TH_LOG("MEMWALK_FEAT_DEBUGFS on a kernel without debugfs");
	} else {
		ASSERT_EQ(0, debugfs) TH_LOG("debugfs is not mounted at " MW_DEBUGFS);
		EXPECT_EQ(access(DEBUGFS_DIR, F_OK) == 0,
			  !!(info.features & MEMWALK_FEAT_DEBUGFS));
	}
}

/* A caller that knows a larger struct, with a zero tail: the kernel writes what it knows. */
TEST_F(memwalk, info_larger_zero_tail)
{
	union {
		struct memwalk_info info;
		unsigned char bytes[sizeof(struct memwalk_info) + 2 * TAIL];
	} buf;
	unsigned char *tail = buf.bytes + sizeof(struct memwalk_info);

	memset(&buf, 0, sizeof(buf));
	memset(tail + TAIL, 0xa5, TAIL);	/* beyond the size given */
	buf.info.size = sizeof(struct memwalk_info) + TAIL;

	ASSERT_EQ(0, info_ioctl(self->fd, &buf));
	EXPECT_EQ(sizeof(struct memwalk_info), buf.info.size);
	EXPECT_EQ(MEMWALK_UAPI_VERSION, buf.info.uapi_version);
	EXPECT_TRUE(all_bytes(tail, TAIL, 0)) TH_LOG("tail written");
	EXPECT_TRUE(all_bytes(tail + TAIL, TAIL, 0xa5)) TH_LOG("bytes past size written");
}

/* ... with a non-zero tail: E2BIG, and nothing written. */
TEST_F(memwalk, info_larger_nonzero_tail)
{
	union {
		struct memwalk_info info;
		unsigned char bytes[sizeof(struct memwalk_info) + TAIL];
	} buf, saved;
	const size_t positions[] = { sizeof(struct memwalk_info),
				     sizeof(struct memwalk_info) + TAIL - 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(positions); i++) {
		memset(&buf, 0, sizeof(buf));
		buf.info.size = sizeof(buf);
		buf.bytes[positions[i]] = 1;
		saved = buf;
		EXPECT_EQ(E2BIG, info_ioctl(self->fd, &buf))
			TH_LOG("non-zero byte at offset %zu", positions[i]);
		EXPECT_EQ(0, memcmp(&saved, &buf, sizeof(buf)))
			TH_LOG("buffer written on failure");
	}
}

/*
 * A client built with a larger struct encodes a larger size in the command;
 * the module ignores the size bits (the struct's size field versions it).
 */
TEST_F(memwalk, info_cmd_with_larger_size)
{
	union {
		struct memwalk_info info;
		unsigned char bytes[sizeof(struct memwalk_info) + TAIL];
	} buf;

	memset(&buf, 0, sizeof(buf));
	buf.info.size = sizeof(buf);
	ASSERT_EQ(0, ioctl_errno(self->fd,
				 _IOWR(MEMWALK_IOC_MAGIC, 0x00, buf.bytes), &buf));
	EXPECT_EQ(sizeof(struct memwalk_info), buf.info.size);
	EXPECT_EQ(MEMWALK_UAPI_VERSION, buf.info.uapi_version);
}

/* Like openat2(), the struct may grow but not beyond a page: E2BIG. */
TEST_F(memwalk, info_size_above_page)
{
	struct memwalk_info info = { .size = sysconf(_SC_PAGESIZE) + 1 };

	EXPECT_EQ(E2BIG, info_ioctl(self->fd, &info));
}

TEST_F(memwalk, info_size_too_small)
{
	const __u32 sizes[] = { 0, 8, MEMWALK_INFO_SIZE_VER0 - 1 };
	struct memwalk_info info, saved;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizes[i];
		saved = info;
		EXPECT_EQ(EINVAL, info_ioctl(self->fd, &info))
			TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(0, memcmp(&saved, &info, sizeof(info)))
			TH_LOG("buffer written on failure");
	}
}

TEST_F(memwalk, info_flags_nonzero)
{
	const __u32 flags[] = { 1, 0x80000000 };
	struct memwalk_info info, saved;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		info.flags = flags[i];
		saved = info;
		EXPECT_EQ(EINVAL, info_ioctl(self->fd, &info))
			TH_LOG("flags %#x", flags[i]);
		EXPECT_EQ(0, memcmp(&saved, &info, sizeof(info)))
			TH_LOG("buffer written on failure");
	}
}

TEST_F(memwalk, info_null)
{
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, NULL));
}

TEST_F(memwalk, info_prot_none)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, p));
	munmap(p, page);
}

/* size and flags are readable, the rest of the struct is in an unmapped page. */
TEST_F(memwalk, info_straddles_unmapped_page)
{
	long page = sysconf(_SC_PAGESIZE);
	struct memwalk_info head = { .size = sizeof(head) };
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *start;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + page, page));
	start = p + page - 64;
	memcpy(start, &head, 64);
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, start));
	munmap(p, page);
}

/* The kernel can read the request but not write the answer. */
TEST_F(memwalk, info_read_only_buffer)
{
	long page = sysconf(_SC_PAGESIZE);
	struct memwalk_info *info = mmap(NULL, page, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, info);
	info->size = sizeof(*info);
	ASSERT_EQ(0, mprotect(info, page, PROT_READ));
	EXPECT_EQ(EFAULT, info_ioctl(self->fd, info));
	munmap(info, page);
}

TEST_F(memwalk, unknown_ioctl_same_magic)
{
	const unsigned long cmds[] = {
		_IOWR(MEMWALK_IOC_MAGIC, 0x05, struct memwalk_info),	/* after PHYS (0x04) */
		_IOR(MEMWALK_IOC_MAGIC, 0x06, __u64),
		_IO(MEMWALK_IOC_MAGIC, 0xff),
	};
	struct memwalk_info info = { .size = sizeof(info) };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(ENOTTY, ioctl_errno(self->fd, cmds[i], &info))
			TH_LOG("cmd %#lx", cmds[i]);
	}
}

/* Number 0 with another direction is not MEMWALK_IOC_INFO. */
TEST_F(memwalk, unknown_ioctl_info_nr_other_direction)
{
	const unsigned long cmds[] = {
		_IOR(MEMWALK_IOC_MAGIC, 0x00, struct memwalk_info),
		_IOW(MEMWALK_IOC_MAGIC, 0x00, struct memwalk_info),
		_IO(MEMWALK_IOC_MAGIC, 0x00),
	};
	struct memwalk_info info = { .size = sizeof(info) };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(ENOTTY, ioctl_errno(self->fd, cmds[i], &info))
			TH_LOG("cmd %#lx", cmds[i]);
	}
}

TEST_F(memwalk, unknown_ioctl_other_magic)
{
	const unsigned long cmds[] = {
		_IOWR(MEMWALK_IOC_MAGIC + 1, 0x00, struct memwalk_info),
		_IOWR('m', 0x00, struct memwalk_info),
		TCGETS,
	};
	struct memwalk_info info = { .size = sizeof(info) };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(ENOTTY, ioctl_errno(self->fd, cmds[i], &info))
			TH_LOG("cmd %#lx", cmds[i]);
	}
}

/* ---- permissions -------------------------------------------------------- */

/* The node lets everybody in; the module's own CAP_SYS_ADMIN check refuses. */
TEST_F(memwalk, open_unprivileged_eperm)
{
	ASSERT_EQ(0, chmod(DEV, 0666));
	EXPECT_EQ(EPERM, mw_as_user(MW_NOBODY, open_errno, NULL));
}

/* The node's mode refuses first. */
TEST_F(memwalk, open_unprivileged_eacces)
{
	ASSERT_EQ(0, chmod(DEV, 0600));
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, open_errno, NULL));
	EXPECT_EQ(0, open_errno(NULL));		/* root still may */
}

TEST_F(memwalk, client_unprivileged_eacces)
{
	const char *argv[] = { mw_client_path(), "info", NULL };
	struct mw_run r;

	ASSERT_EQ(0, chmod(DEV, 0600));
	ASSERT_EQ(0, mw_run(&r, MW_NOBODY, argv));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, PERMISSION_MSG)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "EACCES")) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

TEST_F(memwalk, client_unprivileged_eperm)
{
	const char *argv[] = { mw_client_path(), "info", NULL };
	struct mw_run r;

	ASSERT_EQ(0, chmod(DEV, 0666));
	ASSERT_EQ(0, mw_run(&r, MW_NOBODY, argv));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, PERMISSION_MSG)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "EPERM")) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

/* ---- the client as root ------------------------------------------------- */

TEST_F(memwalk, client_info)
{
	const char *argv[] = { mw_client_path(), "info", NULL };
	struct memwalk_info info;
	char line[128];
	struct mw_run r;

	get_info(_metadata, self->fd, &info);
	ASSERT_EQ(0, mw_run(&r, 0, argv));
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);

	snprintf(line, sizeof(line), "kernel release:  %s\n", self->uts.release);
	EXPECT_NE(NULL, strstr(r.out, line)) TH_LOG("stdout: %s", r.out);
	snprintf(line, sizeof(line), "module version:  %s\n", info.module_version);
	EXPECT_NE(NULL, strstr(r.out, line)) TH_LOG("stdout: %s", r.out);
	snprintf(line, sizeof(line), "page size:       %ld\n", sysconf(_SC_PAGESIZE));
	EXPECT_NE(NULL, strstr(r.out, line)) TH_LOG("stdout: %s", r.out);
	EXPECT_STREQ("", r.err);
}

TEST_F(memwalk, client_info_json)
{
	const char *argv[] = { mw_client_path(), "info", "--json", NULL };
	struct memwalk_info info;
	char member[128];
	struct mw_run r;
	size_t len;

	get_info(_metadata, self->fd, &info);
	ASSERT_EQ(0, mw_run(&r, 0, argv));
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);

	len = strlen(r.out);
	ASSERT_LT(2, len);
	EXPECT_EQ('{', r.out[0]);
	EXPECT_STREQ("}\n", r.out + len - 2);
	EXPECT_EQ(len - 1, strcspn(r.out, "\n")) TH_LOG("not one line");
	snprintf(member, sizeof(member), "\"release\":\"%s\"", self->uts.release);
	EXPECT_NE(NULL, strstr(r.out, member)) TH_LOG("stdout: %s", r.out);
	snprintf(member, sizeof(member), "\"module_version\":\"%s\"",
		 info.module_version);
	EXPECT_NE(NULL, strstr(r.out, member)) TH_LOG("stdout: %s", r.out);
	snprintf(member, sizeof(member), "\"uapi_version\":%u", MEMWALK_UAPI_VERSION);
	EXPECT_NE(NULL, strstr(r.out, member)) TH_LOG("stdout: %s", r.out);
}

/* The netlink side reports the same module as the ioctl. */
TEST_F(memwalk, client_status)
{
	const char *argv[] = { mw_client_path(), "status", NULL };
	struct memwalk_info info;
	char line[128];
	struct mw_run r;

	get_info(_metadata, self->fd, &info);
	ASSERT_EQ(0, mw_run(&r, 0, argv));
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);

	snprintf(line, sizeof(line), "module version:  %s\n", info.module_version);
	EXPECT_NE(NULL, strstr(r.out, line)) TH_LOG("stdout: %s", r.out);
	snprintf(line, sizeof(line), "kernel release:  %s\n", self->uts.release);
	EXPECT_NE(NULL, strstr(r.out, line)) TH_LOG("stdout: %s", r.out);
}

TEST_F(memwalk, client_status_unprivileged)
{
	const char *argv[] = { mw_client_path(), "status", NULL };
	struct mw_run r;

	ASSERT_EQ(0, mw_run(&r, MW_NOBODY, argv));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "permission denied")) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "EPERM")) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

/* ---- generic netlink ---------------------------------------------------- */

TEST_F(memwalk, netlink_get_status)
{
	struct memwalk_info info;
	struct genl_status st;

	get_info(_metadata, self->fd, &info);
	ASSERT_EQ(0, genl_get_status(&st));
	EXPECT_STREQ(info.module_version, st.module_version);
	EXPECT_EQ(MEMWALK_UAPI_VERSION, st.uapi_version);
	EXPECT_STREQ(self->uts.release, st.release);
}

TEST_F(memwalk, netlink_get_status_unprivileged)
{
	EXPECT_EQ(EPERM, mw_as_user(MW_NOBODY, status_errno, NULL));
}

TEST_HARNESS_MAIN
