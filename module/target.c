// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: finding the process a request names, and whether the opener of
 * /dev/memwalk may look at it and at a mapping's page cache.
 *
 * Full access (CAP_SYS_ADMIN in the initial user namespace at open) may
 * look at any process.  Lab mode (chardev.c) allows what ptrace-read with
 * the opener's fs credentials allows, PTRACE_MODE_READ_FSCREDS as
 * /proc/PID/maps and pagemap check it, on a kernel without LSMs: the
 * credential and dumpability rules of __ptrace_may_access() in
 * kernel/ptrace.c and the capability rule of cap_ptrace_access_check() in
 * security/commoncap.c, applied as mm_access() does (under
 * exec_update_lock, so an exec cannot swap the mm between check and use).
 * ptrace_may_access() and mm_access() are not exported, so the LSM ptrace
 * hooks (Yama's ptrace_scope, SELinux, AppArmor) are NOT consulted: lab
 * mode is for machines whose users may already trace their own processes.
 * Unlike ptrace, a process is not exempt for looking at itself.
 *
 * Every check uses the opener's credentials, file->f_cred (capabilities
 * through file_ns_capable()), never current's.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "memwalk.h"

/* ptrace_has_cap(): CAP_SYS_PTRACE in @ns, with the opener's credentials. */
static bool opener_ptrace_cap(const struct memwalk_access *acc,
			      struct user_namespace *ns)
{
	return file_ns_capable(acc->file, ns, CAP_SYS_PTRACE);
}

/*
 * The credential part of __ptrace_may_access() (fsuid/fsgid: FSCREDS) and
 * cap_ptrace_access_check(): a target holding capabilities the opener
 * lacks in effect, or living in another user namespace, needs
 * CAP_SYS_PTRACE there.
 */
static bool creds_allow(const struct memwalk_access *acc,
			struct task_struct *task)
{
	const struct cred *cred = acc->file->f_cred, *tcred;
	bool ok;

	/* RCU: the task's credentials may be replaced concurrently. */
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->fsuid, tcred->euid) &&
	      uid_eq(cred->fsuid, tcred->suid) &&
	      uid_eq(cred->fsuid, tcred->uid) &&
	      gid_eq(cred->fsgid, tcred->egid) &&
	      gid_eq(cred->fsgid, tcred->sgid) &&
	      gid_eq(cred->fsgid, tcred->gid)) ||
	     opener_ptrace_cap(acc, tcred->user_ns);
	ok = ok && ((cred->user_ns == tcred->user_ns &&
		     cap_issubset(tcred->cap_permitted, cred->cap_effective)) ||
		    opener_ptrace_cap(acc, tcred->user_ns));
	rcu_read_unlock();
	return ok;
}

/*
 * Not dumpable by its owner: CAP_SYS_PTRACE in the user namespace its
 * dumpability belongs to (mm->user_ns; 7.x: task->exec_state's).
 */
static bool dumpable_allows(const struct memwalk_access *acc,
			    struct task_struct *task, struct mm_struct *mm)
{
	struct user_namespace *ns;
	bool ok;

	/* RCU: 7.x keeps dumpability and its namespace in task->exec_state. */
	rcu_read_lock();
	ns = mw_task_undumpable_ns(task, mm);
	ok = !ns || opener_ptrace_cap(acc, ns);
	rcu_read_unlock();
	return ok;
}

/* Lab mode: mm_access(task, PTRACE_MODE_READ_FSCREDS) without LSM hooks. */
static struct mm_struct *lab_task_mm(const struct memwalk_access *acc,
				     struct task_struct *task)
{
	struct mm_struct *mm;
	bool ok;

	/* exec_update_lock: the task's mm and creds change together. */
	if (down_read_killable(&task->signal->exec_update_lock))
		return ERR_PTR(-EINTR);
	mm = get_task_mm(task);
	if (mm) {
		ok = creds_allow(acc, task);
		/*
		 * Dumpability after the credentials, as __ptrace_may_access():
		 * pairs with commit_creds()' barrier, so a task that dropped
		 * privileges is seen non-dumpable.
		 */
		smp_rmb();
		if (!ok || !dumpable_allows(acc, task, mm)) {
			mmput(mm);
			mm = ERR_PTR(-EACCES);
		}
	}
	up_read(&task->signal->exec_update_lock);
	return mm;
}

/**
 * memwalk_may_mincore() - whether the opener may learn @vma's page cache
 * @acc: the opener's access, from chardev.c
 * @vma: a VMA of the target
 *
 * Which pages of a shared file are cached or in swap is what mincore()
 * tells only about anonymous memory and files the caller owns or could
 * open for writing (can_do_mincore() in mm/mincore.c): elsewhere it is a
 * side channel on other users of the file.  Full access may always.
 *
 * Locking: mmap_lock of @vma's mm held (it pins the file); may sleep.
 *
 * Return: true if the rule of can_do_mincore(), applied with the opener's
 * credentials, allows it.
 */
bool memwalk_may_mincore(const struct memwalk_access *acc,
			 struct vm_area_struct *vma)
{
	const struct cred *old;
	bool ok;

	if (acc->full || vma_is_anonymous(vma))
		return true;
	if (!vma->vm_file)
		return false;
	/* The file's owner and permission checks read current's creds. */
	old = override_creds(acc->file->f_cred);
	ok = file_owner_or_capable(vma->vm_file) ||
	     file_permission(vma->vm_file, MAY_WRITE) == 0;
	revert_creds(old);
	return ok;
}

/**
 * memwalk_target() - process @nr and its mm, if the opener may see it
 * @acc: the opener's access, from chardev.c
 * @nr: process (or thread) id in the caller's pid namespace
 * @mmp: set to the mm, with an mm_users reference (drop with mmput())
 * @taskp: set to the task, with a reference (put_task_struct())
 *
 * Locking: none held; sleeps.
 *
 * Return: 0; -ESRCH if there is no such process or it has no mm (a kernel
 * thread, or a process that has exited); -EACCES if lab-mode rules (those
 * of ptrace-read) deny it; -EINTR on a fatal signal.
 */
int memwalk_target(const struct memwalk_access *acc, pid_t nr,
		   struct mm_struct **mmp, struct task_struct **taskp)
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

	if (IS_ERR_OR_NULL(mm)) {
		put_task_struct(task);
		return mm ? PTR_ERR(mm) : -ESRCH;
	}
	*mmp = mm;
	*taskp = task;
	return 0;
}

/* memwalk_target() for the mm alone. */
int memwalk_target_mm(const struct memwalk_access *acc, pid_t nr,
		      struct mm_struct **mmp)
{
	struct task_struct *task;
	int ret = memwalk_target(acc, nr, mmp, &task);

	if (!ret)
		put_task_struct(task);
	return ret;
}
