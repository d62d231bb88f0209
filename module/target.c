// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: finding the process a request names, and whether the opener of
 * /dev/memwalk may look at it.
 *
 * Full access (CAP_SYS_ADMIN in the initial user namespace at open) may
 * look at any process.  Lab mode (chardev.c) lets other openers look only
 * at processes whose real, effective and saved uids and gids all equal the
 * opener's fsuid/fsgid and that are dumpable by their owner: the
 * credential part of __ptrace_may_access() in kernel/ptrace.c, as
 * mm_access() applies it (under exec_update_lock, so an exec cannot swap
 * the mm between check and use).  ptrace_may_access() and mm_access() are
 * not exported, so the LSM ptrace hooks (Yama's ptrace_scope, SELinux,
 * AppArmor) are NOT consulted: lab mode is for machines whose users may
 * already trace each other's processes.
 */
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uidgid.h>

#include "memwalk.h"

static bool creds_match(const struct memwalk_access *acc,
			struct task_struct *task)
{
	const struct cred *tcred;
	bool ok;

	/* RCU: the task's credentials may be replaced concurrently. */
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = uid_eq(acc->fsuid, tcred->euid) &&
	     uid_eq(acc->fsuid, tcred->suid) &&
	     uid_eq(acc->fsuid, tcred->uid) &&
	     gid_eq(acc->fsgid, tcred->egid) &&
	     gid_eq(acc->fsgid, tcred->sgid) &&
	     gid_eq(acc->fsgid, tcred->gid);
	rcu_read_unlock();
	return ok;
}

/* Lab mode: mm_access() without capabilities and without LSM hooks. */
static struct mm_struct *lab_task_mm(const struct memwalk_access *acc,
				     struct task_struct *task)
{
	struct mm_struct *mm;

	/* exec_update_lock: the task's mm and creds change together. */
	if (down_read_killable(&task->signal->exec_update_lock))
		return ERR_PTR(-EINTR);
	mm = get_task_mm(task);
	if (mm && (!creds_match(acc, task) ||
		   !mw_task_dumpable_by_owner(task, mm))) {
		mmput(mm);
		mm = ERR_PTR(-EACCES);
	}
	up_read(&task->signal->exec_update_lock);
	return mm;
}

/**
 * memwalk_target_mm() - the mm of process @nr, if the opener may see it
 * @acc: the opener's access, from chardev.c
 * @nr: process (or thread) id in the caller's pid namespace
 * @mmp: set to the mm, with an mm_users reference (drop with mmput())
 *
 * Locking: none held; sleeps.
 *
 * Return: 0; -ESRCH if there is no such process or it has no mm (a kernel
 * thread, or a process that has exited); -EACCES if lab-mode rules deny
 * it; -EINTR on a fatal signal.
 */
int memwalk_target_mm(const struct memwalk_access *acc, pid_t nr,
		      struct mm_struct **mmp)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;

	if (nr <= 0)
		return -ESRCH;
	pid = find_get_pid(nr);
	if (!pid)
		return -ESRCH;
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;

	if (acc->full)
		mm = get_task_mm(task);
	else
		mm = lab_task_mm(acc, task);
	put_task_struct(task);

	if (IS_ERR(mm))
		return PTR_ERR(mm);
	if (!mm)
		return -ESRCH;
	*mmp = mm;
	return 0;
}
