// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim lab (labs/reclaim/README.md): in a memory cgroup of its own,
 * page cache of a file on disk and anonymous memory side by side; half
 * the file read twice more; a child that writes more than the cgroup may
 * hold, so that the cgroup's reclaim drops page cache and swaps; then,
 * without swap, a child that the cgroup's OOM killer kills.
 *
 * Needs a cgroup v2 hierarchy with the memory controller: as root it makes
 * memwalk-reclaim under the root (or under $LAB_CGROUP, a delegated cgroup
 * directory); and a disk file system for the file ($LAB_DISK, default the
 * current directory; not tmpfs, whose pages are not page cache that can be
 * dropped).
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "../lab.h"

#define NPAGES		512		/* of the file, and of the anonymous memory */
#define READ_TWICE	256		/* pages 0-255 of the file read twice more */
#define LIMIT_MB	12		/* the cgroup's memory.max */
#define HOG_MB		24		/* step 3's child writes this much */
#define OOM_MB		64		/* step 4's child tries to */
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_NAME		"memwalk-reclaim"

static char cg_parent[400], cg_dir[440], file[512];

static int write_str(const char *dir, const char *name, const char *s)
{
	char path[600];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* Back to the parent cgroup and remove ours; the file goes too. */
static void cleanup(void)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cg_dir[0] && !write_str(cg_parent, "cgroup.procs", pid))
		rmdir(cg_dir);
	if (file[0])
		unlink(file);
}

/* A cgroup of our own with memory.max LIMIT_MB, and we in it. */
static void join_cgroup(void)
{
	const char *parent = getenv("LAB_CGROUP");
	char pid[16], line[512];
	FILE *f;

	snprintf(cg_parent, sizeof(cg_parent), "%s", parent && *parent ? parent : CG_ROOT);
	snprintf(cg_dir, sizeof(cg_dir), "%s/" CG_NAME, cg_parent);
	rmdir(cg_dir);		/* a leftover of an earlier run, if empty */
	/* Already on in most parents; the root has no processes to mind. */
	write_str(cg_parent, "cgroup.subtree_control", "+memory");
	if (mkdir(cg_dir, 0755)) {
		cg_dir[0] = '\0';
		lab_fail("mkdir " CG_NAME " (cgroup v2 at " CG_ROOT ", as root, or $LAB_CGROUP)");
	}
	atexit(cleanup);
	snprintf(line, sizeof(line), "%dM", LIMIT_MB);
	if (write_str(cg_dir, "memory.max", line))
		lab_fail("memory.max (is the memory controller on?)");
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(cg_dir, "cgroup.procs", pid))
		lab_fail("joining the cgroup");
	/* Its path as the events name it: "0::/memwalk-reclaim". */
	f = fopen("/proc/self/cgroup", "r");
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "0::", 3))
		lab_fail("/proc/self/cgroup");
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	lab_export("CGROUP", "%s", line + 3);
	lab_export("CGDIR", "%s", cg_dir);
}

/* The file, written, on disk and out of the page cache. */
static int make_file(void)
{
	const char *dir = getenv("LAB_DISK");
	char page[LAB_PAGE];
	int fd, i;

	snprintf(file, sizeof(file), "%s/reclaim-lab.data", dir && *dir ? dir : ".");
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		file[0] = '\0';
		lab_fail("creating the file");
	}
	for (i = 0; i < NPAGES; i++) {
		memset(page, 'a' + i % 26, sizeof(page));
		if (write(fd, page, sizeof(page)) != sizeof(page))
			lab_fail("writing the file");
	}
	/* Clean, then dropped: its pages come back only when touched. */
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		lab_fail("fsync and POSIX_FADV_DONTNEED");
	return fd;
}

/* A child in our cgroup that writes @mb MiB, a page at a time, and exits. */
static pid_t spawn_writer(int mb, int oom_score_adj)
{
	size_t len = (size_t)mb << 20, i;
	char *p;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		lab_fail("fork");
	if (pid)
		return pid;
	if (oom_score_adj) {
		char adj[16];

		snprintf(adj, sizeof(adj), "%d", oom_score_adj);
		write_str("/proc/self", "oom_score_adj", adj);
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	madvise(p, len, MADV_NOHUGEPAGE);
	/* One byte value a page: zram keeps such a page without compressing. */
	for (i = 0; i < len; i += LAB_PAGE)
		memset(p + i, 0x5a, LAB_PAGE);
	_exit(0);
}

int main(void)
{
	char *area, *buf, *anon;
	size_t i;
	pid_t pid;
	int fd, status;
	unsigned int sum = 0;

	join_cgroup();
	fd = make_file();
	/* The file's pages and the anonymous ones side by side: one range. */
	area = lab_anon_pages(2 * NPAGES);
	if (mmap(area, NPAGES * LAB_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		lab_fail("mmap of the file");
	anon = area + NPAGES * LAB_PAGE;
	/* Not in the children: their fork would share (and COW-protect) it. */
	if (madvise(area, 2 * NPAGES * LAB_PAGE, MADV_DONTFORK))
		lab_fail("madvise(MADV_DONTFORK)");
	for (i = 0; i < NPAGES; i++) {
		sum += ((volatile char *)area)[i * LAB_PAGE];
		memset(anon + i * LAB_PAGE, 1 + i % 250, LAB_PAGE);
	}
	lab_lru_drain_all(anon);
	lab_note("in cgroup %s (memory.max %d MiB): mapped %d pages of %s and read one byte of each (sum %u); wrote %d anonymous pages",
		 cg_dir, LIMIT_MB, NPAGES, file, sum, NPAGES);
	lab_export("PID", "%d", getpid());
	lab_export_range("FILE", area, NPAGES);
	lab_export_range("ANON", anon, NPAGES);
	lab_export_range("BOTH", area, 2 * NPAGES);
	lab_step(1);

	buf = malloc(READ_TWICE * LAB_PAGE);
	if (!buf)
		lab_fail("malloc");
	for (i = 0; i < 2; i++)
		if (pread(fd, buf, READ_TWICE * LAB_PAGE, 0) != READ_TWICE * LAB_PAGE)
			lab_fail("read");
	free(buf);
	lab_lru_drain_all(anon);
	lab_note("read pages 0-%d of the file twice with read(2)", READ_TWICE - 1);
	lab_export_range("TWICE", area, READ_TWICE);
	lab_step(2);

	pid = spawn_writer(HOG_MB, 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		lab_fail("the child that fills the cgroup");
	lab_note("child %d wrote %d MiB in the cgroup's %d MiB and exited", pid, HOG_MB, LIMIT_MB);
	lab_export("HOG", "%d", pid);
	lab_step(3);

	if (write_str(cg_dir, "memory.swap.max", "0"))
		lab_fail("memory.swap.max");
	pid = spawn_writer(OOM_MB, 1000);
	if (waitpid(pid, &status, 0) != pid)
		lab_fail("waitpid");
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		errno = EAGAIN;
		lab_fail("the child writing past the limit was not killed by SIGKILL");
	}
	lab_note("memory.swap.max 0: child %d (oom_score_adj 1000) tried to write %d MiB and was killed by signal %d",
		 pid, OOM_MB, WTERMSIG(status));
	lab_export("VICTIM", "%d", pid);
	lab_export("VICTIM_SIGNAL", "%d", WTERMSIG(status));
	lab_step(4);
	return 0;
}
