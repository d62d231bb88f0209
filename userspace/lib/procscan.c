// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: walk every process (or those asked for) and count its
 * memory as /proc/PID/smaps_rollup does, for "memwalk-client ps".
 *
 * Where the module has MEMWALK_IOC_VMA_SUMMARY, each process is one
 * call (vmasummary.c): the module counts every VMA with smaps' rules and
 * returns the counts alone, with the process's effective uid.  A process
 * with a command line then costs that read and the call; the others
 * (kernel threads, zombies, processes that emptied their command line)
 * and every process under -u are first looked at in /proc/PID/stat and
 * status, as before.
 *
 * Otherwise (an older module, or --by mapping, which needs each VMA's
 * name) each process is one snapshot (collect.c) with folio state, since
 * Pss and USS need each page's mapcount (--no-folio would count every
 * page whole and private; --entry-only would not even know Rss), without
 * PFNs, which ps has no use for and which split runs, and without the
 * header a saved snapshot has.  Its VMAs are summed unrounded (summary.h)
 * and rounded to kB once, as smaps_rollup does.  The snapshot is freed
 * before the next process is walked.
 *
 * /proc is a moving list: a process can exit between readdir() and its
 * walk (ESRCH from the module), and in lab mode the module refuses other
 * users' processes (EACCES); both are counted and skipped.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "procscan.h"
#include "vmasummary.h"

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
#define CMDLINE_MAX	4096

void mw_usage_from_stats(const struct mw_smaps_stats *st, struct mw_usage *u)
{
	u->rss = st->resident >> 10;
	u->pss = st->pss >> MW_PSS_SHIFT >> 10;
	u->uss = (st->private_clean >> 10) + (st->private_dirty >> 10);
	u->swap = st->swap >> 10;
	u->pss_anon = st->pss_anon >> MW_PSS_SHIFT >> 10;
	u->pss_file = st->pss_file >> MW_PSS_SHIFT >> 10;
	u->pss_shmem = st->pss_shmem >> MW_PSS_SHIFT >> 10;
	u->thp = (st->anon_thp >> 10) + (st->shmem_thp >> 10) + (st->file_thp >> 10);
	u->hugetlb = (st->shared_hugetlb >> 10) + (st->private_hugetlb >> 10);
	u->locked = st->pss_locked >> MW_PSS_SHIFT >> 10;
}

void mw_usage_add(struct mw_usage *sum, const struct mw_usage *u)
{
	sum->rss += u->rss;
	sum->pss += u->pss;
	sum->uss += u->uss;
	sum->swap += u->swap;
	sum->pss_anon += u->pss_anon;
	sum->pss_file += u->pss_file;
	sum->pss_shmem += u->pss_shmem;
	sum->thp += u->thp;
	sum->hugetlb += u->hugetlb;
	sum->locked += u->locked;
}

/*
 * A small /proc/PID file into @buf (NUL-terminated): its length, or
 * -errno.  read(2) straight into @buf: no stdio buffer to allocate and
 * copy from, once for every process.
 */
static ssize_t read_proc(int32_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	size_t n = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return -EIO;	/* cut short: gone meanwhile, as a rule */
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* What /proc/PID/stat says: its state letter, flags and comm. */
struct proc_stat {
	char state;
	unsigned long flags;
	char comm[64];
};

static int read_stat(int32_t pid, struct proc_stat *st)
{
	char buf[1024], *open, *close;
	ssize_t n = read_proc(pid, "stat", buf, sizeof(buf));
	size_t len;

	if (n < 0)
		return (int)n;
	/* "PID (COMM) S PPID PGRP SESSION TTY TPGID FLAGS ...": COMM may hold ')' */
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %c %*d %*d %*d %*d %*d %lu", &st->state, &st->flags) != 2)
		return -EPROTO;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(st->comm))
		len = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, len);
	st->comm[len] = '\0';
	return 0;
}

/* The effective uid: the second of status's "Uid:" line. */
static int read_euid(int32_t pid, uint32_t *uid)
{
	char buf[4096], *line;
	ssize_t n = read_proc(pid, "status", buf, sizeof(buf));
	unsigned int ruid, euid;

	if (n < 0)
		return (int)n;
	line = strstr(buf, "\nUid:");
	if (!line || sscanf(line, "\nUid: %u %u", &ruid, &euid) != 2)
		return -EPROTO;
	*uid = euid;
	return 0;
}

/* /proc/PID/cmdline into @buf (CMDLINE_MAX): its length without trailing NULs. */
static ssize_t read_cmdline(int32_t pid, char *buf)
{
	ssize_t n = read_proc(pid, "cmdline", buf, CMDLINE_MAX);

	while (n > 0 && !buf[n - 1])
		n--;
	return n;
}

/* The @n bytes of a command line in @buf, arguments joined by blanks. */
static char *command_of(char *buf, ssize_t n)
{
	ssize_t i;

	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	return mw_strdup(buf);
}

/* The command line; "[COMM]" when empty. */
static char *read_command(int32_t pid, const char *comm)
{
	char buf[CMDLINE_MAX];
	ssize_t n = read_cmdline(pid, buf);

	if (n <= 0) {
		snprintf(buf, sizeof(buf), "[%s]", comm);
		return mw_strdup(buf);
	}
	return command_of(buf, n);
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Every PID in /proc, sorted, in a malloc()ed array. */
static int list_pids(int32_t **pidsp, size_t *nrp, struct mw_error *err)
{
	size_t nr = 0, cap = 0;
	int32_t *pids = NULL, *p;
	struct dirent *de;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return mw_error_set(err, -errno, "cannot list /proc [%s]",
				    mw_errno_text(errno));
	while ((de = readdir(dir))) {
		const char *c = de->d_name;
		long pid;

		for (; isdigit((unsigned char)*c); c++)
			;
		if (*c || c == de->d_name)
			continue;
		pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0 || pid > INT32_MAX)
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 256;
			p = realloc(pids, cap * sizeof(*p));
			if (!p) {
				free(pids);
				closedir(dir);
				return mw_error_set(err, -ENOMEM, "ps: out of memory");
			}
			pids = p;
		}
		pids[nr++] = (int32_t)pid;
	}
	closedir(dir);
	qsort(pids, nr, sizeof(*pids), cmp_pid);
	*pidsp = pids;
	*nrp = nr;
	return 0;
}

static int add_missing(struct mw_procscan *scan, int32_t pid, struct mw_error *err)
{
	int32_t *p = realloc(scan->missing, (scan->nr_missing + 1) * sizeof(*p));

	if (!p)
		return mw_error_set(err, -ENOMEM, "ps: out of memory");
	scan->missing = p;
	p[scan->nr_missing++] = pid;
	return 0;
}

static struct mw_proc *add_proc(struct mw_procscan *scan)
{
	struct mw_proc *p;

	if (scan->nr_procs == scan->cap_procs) {
		size_t cap = scan->cap_procs ? scan->cap_procs * 2 : 128;

		p = realloc(scan->procs, cap * sizeof(*p));
		if (!p)
			return NULL;
		scan->procs = p;
		scan->cap_procs = cap;
	}
	p = &scan->procs[scan->nr_procs];
	memset(p, 0, sizeof(*p));
	return p;
}

/*
 * What the module's refusal @ret of a walk means for the scan: 1 when the
 * process is skipped (and counted), else 0 or the error.
 */
static int walk_skipped(struct mw_procscan *scan, int ret)
{
	switch (ret) {
	case -ESRCH:
		scan->nr_exited++;
		return 1;
	case -EACCES:
	case -EPERM:
		scan->nr_denied++;
		return 1;
	case -EAGAIN:
		scan->nr_changing++;
		return 1;
	default:
		return 0;
	}
}

/* @proc's totals (and uid) from the module's summaries, and keep it. */
static int walk_summary(struct mw_device *dev, struct mw_procscan *scan,
			struct mw_proc *proc, struct mw_error *err)
{
	struct mw_vma_totals t;
	int ret;

	ret = mw_vma_totals(dev, proc->pid, &t, err);
	if (ret)
		return walk_skipped(scan, ret) ? 0 : ret;
	mw_usage_from_stats(&t.st, &proc->usage);
	proc->uid = t.uid;
	proc->folio = true;
	scan->calls += t.calls;
	if (t.max_lock_ns > scan->max_lock_ns)
		scan->max_lock_ns = t.max_lock_ns;
	scan->nr_procs++;
	return 0;
}

/* Whether the processes are walked by summaries (see the top). */
static bool use_summary(const struct mw_device *dev,
			const struct mw_procscan_opts *opts)
{
	return !opts->each && mw_vma_summary_supported(dev);
}

/* Walk @proc (filled in but its usage) and keep it; skipped ones counted. */
static int walk_one(struct mw_device *dev, const struct mw_procscan_opts *opts,
		    struct mw_procscan *scan, struct mw_proc *proc,
		    struct mw_error *err)
{
	struct mw_collect_opts co = { .pid = proc->pid, .no_pfn = true, .bare = true };
	struct mw_smaps_stats st = { 0 };
	struct mw_snapshot *snap;
	size_t v;
	int ret;

	if (use_summary(dev, opts))
		return walk_summary(dev, scan, proc, err);
	ret = mw_collect(dev, &co, &snap, err);
	if (ret)
		return walk_skipped(scan, ret) ? 0 : ret;
	for (v = 0; v < snap->nr_vmas; v++)
		mw_smaps_accumulate(snap, &snap->vmas[v], &st);
	mw_usage_from_stats(&st, &proc->usage);
	proc->folio = mw_snap_has_folio(snap);
	scan->calls += snap->cost.calls;
	if (snap->cost.max_lock_ns > scan->max_lock_ns)
		scan->max_lock_ns = snap->cost.max_lock_ns;
	ret = opts->each ? opts->each(opts->arg, proc, snap, err) : 0;
	mw_snapshot_free(snap);
	if (!ret)
		scan->nr_procs++;
	return ret;
}

/*
 * Keep process @pid with @command (taken) if @opts select it, and walk
 * it; @command is freed if it is not kept.
 */
static int keep_proc(struct mw_device *dev, const struct mw_procscan_opts *opts,
		     struct mw_procscan *scan, int32_t pid, uint32_t uid,
		     char *command, struct mw_error *err)
{
	struct mw_proc *proc;
	int ret = 0;

	if (!command)
		return mw_error_set(err, -ENOMEM, "ps: out of memory");
	proc = add_proc(scan);
	if (!proc) {
		free(command);
		return mw_error_set(err, -ENOMEM, "ps: out of memory");
	}
	proc->pid = pid;
	proc->uid = uid;
	proc->command = command;
	if (!(opts->match && regexec(opts->match, proc->command, 0, NULL, 0)))
		ret = walk_one(dev, opts, scan, proc, err);
	if (scan->nr_procs == (size_t)(proc - scan->procs))
		free(proc->command);	/* not kept */
	return ret;
}

/* Look at process @pid (@asked: named on the command line) and walk it. */
static int scan_one(struct mw_device *dev, const struct mw_procscan_opts *opts,
		    struct mw_procscan *scan, int32_t pid, bool asked,
		    struct mw_error *err)
{
	char cmdline[CMDLINE_MAX];
	struct proc_stat st;
	uint32_t uid = 0;
	ssize_t n;
	int ret;

	/* A command line: a live user process; its uid comes with the walk. */
	if (use_summary(dev, opts) && !opts->by_uid) {
		n = read_cmdline(pid, cmdline);
		if (n > 0) {
			if (opts->match && pid == getpid())
				return 0;
			return keep_proc(dev, opts, scan, pid, 0, command_of(cmdline, n),
					 err);
		}
	}
	ret = read_stat(pid, &st);
	if (ret == -ENOENT || ret == -ESRCH)
		return asked ? add_missing(scan, pid, err) : (scan->nr_exited++, 0);
	if (!ret && st.state != 'Z' && st.state != 'X' && !(st.flags & PF_KTHREAD))
		ret = read_euid(pid, &uid);
	switch (ret) {
	case 0:
		break;
	case -EACCES:		/* hidepid, or an LSM */
	case -EPERM:
		scan->nr_denied++;
		return 0;
	case -ENOMEM:
		return mw_error_set(err, ret, "ps: out of memory");
	default:		/* gone meanwhile, or cut short as it went */
		scan->nr_exited++;
		return 0;
	}
	if (st.flags & PF_KTHREAD) {
		scan->nr_kthreads += asked;
		return 0;
	}
	if (st.state == 'Z' || st.state == 'X') {
		scan->nr_exited++;
		return 0;
	}
	if ((opts->by_uid && uid != opts->uid) || (opts->match && pid == getpid()))
		return 0;
	return keep_proc(dev, opts, scan, pid, uid, read_command(pid, st.comm), err);
}

int mw_procscan(struct mw_device *dev, const struct mw_procscan_opts *opts,
		struct mw_procscan *scan, struct mw_error *err)
{
	size_t nr = opts->nr_pids, i, n;
	int32_t *all = NULL;
	int ret = 0;

	memset(scan, 0, sizeof(*scan));
	if (!nr) {
		ret = list_pids(&all, &nr, err);
		if (ret)
			return ret;
	} else {
		/* in order, each once */
		all = malloc(nr * sizeof(*all));
		if (!all)
			return mw_error_set(err, -ENOMEM, "ps: out of memory");
		memcpy(all, opts->pids, nr * sizeof(*all));
		qsort(all, nr, sizeof(*all), cmp_pid);
		for (i = 1, n = 1; i < nr; i++)
			if (all[i] != all[n - 1])
				all[n++] = all[i];
		nr = n;
	}
	for (i = 0; !ret && i < nr; i++)
		ret = scan_one(dev, opts, scan, all[i], opts->nr_pids, err);
	free(all);
	return ret;
}

void mw_procscan_free(struct mw_procscan *scan)
{
	size_t i;

	for (i = 0; i < scan->nr_procs; i++)
		free(scan->procs[i].command);
	free(scan->procs);
	free(scan->missing);
	memset(scan, 0, sizeof(*scan));
}
