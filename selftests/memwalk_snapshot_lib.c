// SPDX-License-Identifier: GPL-2.0
/* Helpers of the snapshot selftests; see memwalk_snapshot_lib.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

void mw_why_set(struct mw_why *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
	va_end(ap);
}

/* ---- /proc files of pages -------------------------------------------------- */

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0)
			return errno;
		if (n == 0)
			return EIO;
		done += n;
	}
	return 0;
}

int mw_pagemap_read(pid_t pid, uint64_t start, size_t nr, uint64_t *out)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = pread_all(fd, out, nr * sizeof(*out), (start >> MW_PAGE_SHIFT) * 8);
	close(fd);
	return ret;
}

static int read_pfn_file(const char *path, int *cache, uint64_t pfn, uint64_t *val)
{
	if (*cache < 0) {
		*cache = open(path, O_RDONLY | O_CLOEXEC);
		if (*cache < 0)
			return errno;
	}
	return pread_all(*cache, val, sizeof(*val), pfn * 8);
}

int mw_kpageflags(uint64_t pfn, uint64_t *flags)
{
	static int fd = -1;

	return read_pfn_file("/proc/kpageflags", &fd, pfn, flags);
}

int mw_kpagecount(uint64_t pfn, uint64_t *count)
{
	static int fd = -1;

	return read_pfn_file("/proc/kpagecount", &fd, pfn, count);
}

/* ---- maps and smaps ------------------------------------------------------------ */

int mw_maps_parse(const char *line, struct mw_maps_line *out)
{
	unsigned long long start, end, offset, ino;
	int pos = 0;

	memset(out, 0, sizeof(*out));
	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end,
		   out->perms, &offset, &out->major, &out->minor, &ino, &pos) != 7 ||
	    !pos)
		return EINVAL;
	out->start = start;
	out->end = end;
	out->offset = offset;
	out->ino = ino;
	snprintf(out->name, sizeof(out->name), "%s", line + pos);
	return 0;
}

static char *slurp(const char *path)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!buf || fd < 0)
		goto fail;
	for (;;) {
		if (cap - len < 4096) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf)
				goto fail;
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

int mw_maps_read(pid_t pid, struct mw_maps_line **lines, size_t *nr)
{
	struct mw_maps_line *arr = NULL;
	size_t n = 0, cap = 0;
	char path[64], *text, *line, *save;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	text = slurp(path);
	if (!text)
		return errno ? errno : EIO;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n == cap) {
			struct mw_maps_line *narr;

			cap = cap ? 2 * cap : 64;
			narr = realloc(arr, cap * sizeof(*arr));
			if (!narr) {
				free(arr);
				free(text);
				return ENOMEM;
			}
			arr = narr;
		}
		if (mw_maps_parse(line, &arr[n])) {
			free(arr);
			free(text);
			return EPROTO;
		}
		n++;
	}
	free(text);
	*lines = arr;
	*nr = n;
	return 0;
}

static bool smaps_field(const char *line, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	unsigned long long v;

	if (strncmp(line, key, klen) || line[klen] != ':')
		return false;
	if (sscanf(line + klen + 1, "%llu", &v) == 1)
		*val = v;
	return true;
}

int mw_smaps_read(pid_t pid, struct mw_smaps **vmas, size_t *nr)
{
	struct mw_smaps *arr = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	char path[64], *text, *line, *save;
	struct mw_maps_line hdr;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	text = slurp(path);
	if (!text)
		return errno ? errno : EIO;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t hex = strspn(line, "0123456789abcdef");

		if (hex && line[hex] == '-') {
			if (mw_maps_parse(line, &hdr)) {
				free(arr);
				free(text);
				return EPROTO;
			}
			if (n == cap) {
				struct mw_smaps *narr;

				cap = cap ? 2 * cap : 64;
				narr = realloc(arr, cap * sizeof(*arr));
				if (!narr) {
					free(arr);
					free(text);
					return ENOMEM;
				}
				arr = narr;
			}
			cur = &arr[n++];
			memset(cur, 0, sizeof(*cur));
			cur->map = hdr;
			continue;
		}
		if (!cur)
			continue;
		if (!strncmp(line, "VmFlags:", 8)) {
			snprintf(cur->vmflags, sizeof(cur->vmflags), "%s", line + 8);
			continue;
		}
		(void)(smaps_field(line, "Size", &cur->size) ||
		smaps_field(line, "KernelPageSize", &cur->kernel_page_size) ||
		smaps_field(line, "Rss", &cur->rss) ||
		smaps_field(line, "Pss", &cur->pss) ||
		smaps_field(line, "Shared_Clean", &cur->shared_clean) ||
		smaps_field(line, "Shared_Dirty", &cur->shared_dirty) ||
		smaps_field(line, "Private_Clean", &cur->private_clean) ||
		smaps_field(line, "Private_Dirty", &cur->private_dirty) ||
		smaps_field(line, "Referenced", &cur->referenced) ||
		smaps_field(line, "Anonymous", &cur->anonymous) ||
		smaps_field(line, "AnonHugePages", &cur->anon_huge) ||
		smaps_field(line, "ShmemPmdMapped", &cur->shmem_pmd) ||
		smaps_field(line, "FilePmdMapped", &cur->file_pmd) ||
		smaps_field(line, "Shared_Hugetlb", &cur->shared_hugetlb) ||
		smaps_field(line, "Private_Hugetlb", &cur->private_hugetlb) ||
		smaps_field(line, "Swap", &cur->swap) ||
		       smaps_field(line, "Locked", &cur->locked));
	}
	free(text);
	*vmas = arr;
	*nr = n;
	return 0;
}

bool mw_vmflags_has(const char *vmflags, const char *mn)
{
	const char *p = vmflags;

	while ((p = strstr(p, mn))) {
		if ((p == vmflags || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\0'))
			return true;
		p += 2;
	}
	return false;
}

/* ---- snapshots ------------------------------------------------------------------ */

uint64_t mw_task_size = (1ULL << 47) - MW_PAGE;
bool mw_strict_runs;
bool mw_allow_overlap;
unsigned long mw_overlaps;
char mw_first_overlap[512];

void mw_snap_free(struct mw_snap *s)
{
	size_t i;

	for (i = 0; i < s->nr_vmas; i++)
		free(s->vmas[i].name);
	free(s->vmas);
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

int mw_snap_ioctl(int fd, struct memwalk_snapshot *arg)
{
	return ioctl(fd, MEMWALK_IOC_SNAPSHOT, arg) < 0 ? errno : 0;
}

const char *mw_run_str(const struct memwalk_page_run *r, char *buf, size_t len)
{
	snprintf(buf, len,
		 "run %#llx+%u pages: pfn %#llx flags %#x (state %u level %u) "
		 "folio %#x map %u ref %u nid %u order %u gen %d",
		 (unsigned long long)r->start, r->nr_pages,
		 (unsigned long long)r->pfn, r->flags, mw_run_state(r),
		 mw_run_level(r), r->folio_flags, r->mapcount, r->refcount,
		 r->nid, r->order, r->lru_gen);
	return buf;
}

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int check_vma(const struct memwalk_vma *v, size_t room, struct mw_why *why)
{
	const char *name = v->name;
	size_t len = v->name_len;

	if (room < sizeof(*v) || v->size < sizeof(*v) + len + 1 || v->size % 8 ||
	    v->size > room) {
		mw_why_set(why, "VMA record size %u (name_len %u, %zu bytes left)",
			   v->size, v->name_len, room);
		return -1;
	}
	if (name[len] || strlen(name) != len) {
		mw_why_set(why, "VMA %#llx: name not NUL-terminated at name_len %zu",
			   (unsigned long long)v->start, len);
		return -1;
	}
	if (v->start >= v->end || v->start % MW_PAGE || v->end % MW_PAGE) {
		mw_why_set(why, "VMA %#llx-%#llx: bad bounds",
			   (unsigned long long)v->start, (unsigned long long)v->end);
		return -1;
	}
	if (v->flags & ~(uint64_t)MW_VMA_KNOWN_FLAGS) {
		mw_why_set(why, "VMA %#llx: undefined flags %#llx",
			   (unsigned long long)v->start,
			   (unsigned long long)(v->flags & ~(uint64_t)MW_VMA_KNOWN_FLAGS));
		return -1;
	}
	if (!!(v->flags & MEMWALK_VMA_HUGETLB) != (v->page_shift != MW_PAGE_SHIFT) ||
	    (v->page_shift != MW_PAGE_SHIFT && v->page_shift != 21 &&
	     v->page_shift != 30)) {
		mw_why_set(why, "VMA %#llx: page_shift %u with flags %#llx",
			   (unsigned long long)v->start, v->page_shift,
			   (unsigned long long)v->flags);
		return -1;
	}
	if (((v->flags & MEMWALK_VMA_SHMEM) && !(v->flags & MEMWALK_VMA_FILE)) ||
	    ((v->flags & MEMWALK_VMA_ANON) && (v->flags & MEMWALK_VMA_FILE))) {
		mw_why_set(why, "VMA %#llx: contradictory flags %#llx",
			   (unsigned long long)v->start, (unsigned long long)v->flags);
		return -1;
	}
	switch (v->name_kind) {
	case MEMWALK_NAME_NONE:
		if (len)
			goto bad_name;
		break;
	case MEMWALK_NAME_FILE:
		if (!len || !(v->flags & MEMWALK_VMA_FILE))
			goto bad_name;
		break;
	case MEMWALK_NAME_HEAP:
		if (strcmp(name, "[heap]"))
			goto bad_name;
		break;
	case MEMWALK_NAME_STACK:
		if (strcmp(name, "[stack]"))
			goto bad_name;
		break;
	case MEMWALK_NAME_SPECIAL:
		if (len < 3 || name[0] != '[' || name[len - 1] != ']')
			goto bad_name;
		break;
	case MEMWALK_NAME_ANON:
		if (!prefix(name, "[anon:") || name[len - 1] != ']')
			goto bad_name;
		break;
	case MEMWALK_NAME_ANON_SHMEM:
		if (!prefix(name, "[anon_shmem:") || name[len - 1] != ']')
			goto bad_name;
		break;
	default:
		goto bad_name;
	}
	return 0;
bad_name:
	mw_why_set(why, "VMA %#llx: name_kind %u with name \"%s\" flags %#llx",
		   (unsigned long long)v->start, v->name_kind, name,
		   (unsigned long long)v->flags);
	return -1;
}

static int check_run(const struct memwalk_page_run *r, uint32_t flags,
		     struct mw_why *why)
{
	unsigned int state = mw_run_state(r);
	char buf[256];

	if (!r->nr_pages || r->start % MW_PAGE || mw_run_end(r) <= r->start ||
	    r->flags & ~(uint32_t)MW_RUN_KNOWN_FLAGS ||
	    state < MEMWALK_STATE_PRESENT || state > MEMWALK_STATE_SHMEM_SWAP ||
	    mw_run_level(r) > MEMWALK_LEVEL_PUD ||
	    (state != MEMWALK_STATE_SWAP && state != MEMWALK_STATE_SHMEM_SWAP &&
	     mw_run_swap_type(r)) ||
	    r->folio_flags & ~(uint32_t)MW_FOLIO_KNOWN_FLAGS ||
	    r->lru_gen < -1 || r->lru_gen > 3 || r->order > 20) {
		mw_why_set(why, "malformed %s", mw_run_str(r, buf, sizeof(buf)));
		return -1;
	}
	if ((flags & MEMWALK_SNAP_NO_PFN) && r->pfn) {
		mw_why_set(why, "PFN with MEMWALK_SNAP_NO_PFN: %s",
			   mw_run_str(r, buf, sizeof(buf)));
		return -1;
	}
	if (!(flags & MEMWALK_SNAP_FOLIO) && r->folio_flags) {
		mw_why_set(why, "folio flags without MEMWALK_SNAP_FOLIO: %s",
			   mw_run_str(r, buf, sizeof(buf)));
		return -1;
	}
	/* No entry: a shmem page in swap, known from its file's page cache. */
	if (state == MEMWALK_STATE_SHMEM_SWAP &&
	    ((flags & MEMWALK_SNAP_ENTRY_ONLY) ||
	     mw_run_level(r) != MEMWALK_LEVEL_PTE || r->folio_flags || r->mapcount ||
	     (r->flags & MW_RUN_FROM_PAGE) != (MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM) ||
	     (r->flags & ~(MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_SWAP_TYPE_MASK |
			   MW_RUN_FROM_PAGE)))) {
		mw_why_set(why, "malformed shmem-swap run %s",
			   mw_run_str(r, buf, sizeof(buf)));
		return -1;
	}
	if ((r->flags & MEMWALK_RUN_PFN_LIST) &&
	    (!(flags & MEMWALK_SNAP_PFN_LIST) || (flags & MEMWALK_SNAP_NO_PFN) ||
	     state != MEMWALK_STATE_PRESENT)) {
		mw_why_set(why, "listed run not asked for, or not present: %s",
			   mw_run_str(r, buf, sizeof(buf)));
		return -1;
	}
	if ((flags & MEMWALK_SNAP_ENTRY_ONLY) && (r->flags & MW_RUN_FROM_PAGE)) {
		mw_why_set(why, "page-derived flags with MEMWALK_SNAP_ENTRY_ONLY: %s",
			   mw_run_str(r, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

/* Whether the module's merge rule (memwalk_run_extends()) joins @a and @b. */
static bool runs_would_merge(const struct memwalk_page_run *a,
			     const struct memwalk_page_run *b, uint32_t flags)
{
	/* Listed runs are cut where PFNs follow each other, not by this rule. */
	if (a->flags & MEMWALK_RUN_PFN_LIST)
		return false;
	if (a->flags != b->flags || a->folio_flags != b->folio_flags ||
	    a->mapcount != b->mapcount || a->refcount != b->refcount ||
	    a->nid != b->nid || a->order != b->order || a->lru_gen != b->lru_gen)
		return false;
	if ((uint64_t)a->nr_pages + b->nr_pages > UINT32_MAX)
		return false;
	return (flags & MEMWALK_SNAP_NO_PFN) ||
	       mw_run_state(a) == MEMWALK_STATE_MARKER ||
	       a->pfn + a->nr_pages == b->pfn;
}

/*
 * Whether [start, end) lies inside one of @vmas (@one), or inside their
 * union; for records that may overlap or be out of order.
 */
static bool covered(const struct memwalk_vma *const *vmas, size_t nv,
		    uint64_t start, uint64_t end, bool one)
{
	uint64_t cur = start, best;
	size_t i;

	while (cur < end) {
		best = cur;
		for (i = 0; i < nv; i++)
			if (vmas[i]->start <= cur && vmas[i]->end > best)
				best = vmas[i]->end;
		if (best == cur || (one && cur == start && best < end))
			return false;
		cur = best;
	}
	return true;
}

int mw_snap_check_call(const struct memwalk_snapshot *arg, const void *vbuf,
		       const void *rbuf, struct mw_why *why)
{
	uint64_t lim = arg->end ? arg->end : mw_task_size;
	/* With end 0 ("all"), walk_end 0 says the walk is done. */
	uint64_t wend = !arg->end && !arg->walk_end ? lim : arg->walk_end;
	const struct memwalk_vma *v, *prev = NULL;
	const struct memwalk_page_run *r;
	struct memwalk_page_run run;
	uint64_t prev_end = 0, off;
	const char *vp = vbuf;
	size_t i, vi = 0, nv = 0;
	const struct memwalk_vma *vmas[8192];
	const uint64_t *pfns = (const uint64_t *)(uintptr_t)arg->pfn_buf;
	uint64_t pfn_next = 0, k;
	bool overlap = false;

	if (wend % MW_PAGE || wend <= arg->start ||
	    wend > lim) {
		mw_why_set(why, "call [%#llx, %#llx): walk_end %#llx",
			   (unsigned long long)arg->start, (unsigned long long)arg->end,
			   (unsigned long long)wend);
		return -1;
	}
	if (arg->vma_bytes > arg->vma_buf_len || arg->vma_bytes % 8 ||
	    (!(arg->flags & MEMWALK_SNAP_VMAS) && arg->vma_bytes)) {
		mw_why_set(why, "vma_bytes %llu of %llu (flags %#x)",
			   (unsigned long long)arg->vma_bytes,
			   (unsigned long long)arg->vma_buf_len, arg->flags);
		return -1;
	}
	if (arg->flags & MEMWALK_SNAP_PAGES) {
		if (arg->run_size < sizeof(struct memwalk_page_run) || arg->run_size % 8 ||
		    arg->nr_runs > arg->run_buf_len / arg->run_size) {
			mw_why_set(why, "%llu runs of %u bytes in %llu",
				   (unsigned long long)arg->nr_runs, arg->run_size,
				   (unsigned long long)arg->run_buf_len);
			return -1;
		}
	} else if (arg->nr_runs) {
		mw_why_set(why, "%llu runs without MEMWALK_SNAP_PAGES",
			   (unsigned long long)arg->nr_runs);
		return -1;
	}
	if (arg->nr_pfns > arg->pfn_buf_len / sizeof(uint64_t) ||
	    (arg->nr_pfns && !(arg->flags & MEMWALK_SNAP_PFN_LIST))) {
		mw_why_set(why, "%llu PFNs listed in %llu bytes (flags %#x)",
			   (unsigned long long)arg->nr_pfns,
			   (unsigned long long)arg->pfn_buf_len, arg->flags);
		return -1;
	}
	if (arg->total_lock_ns < arg->max_lock_ns) {
		mw_why_set(why, "max_lock_ns %llu > total_lock_ns %llu",
			   (unsigned long long)arg->max_lock_ns,
			   (unsigned long long)arg->total_lock_ns);
		return -1;
	}

	for (off = 0; off < arg->vma_bytes; off += v->size) {
		v = (const void *)(vp + off);
		if (check_vma(v, arg->vma_bytes - off, why))
			return -1;
		if (prev && v->start < prev->end) {
			mw_why_set(why, "VMA %#llx-%#llx after %#llx-%#llx: not sorted or overlapping",
				   (unsigned long long)v->start, (unsigned long long)v->end,
				   (unsigned long long)prev->start,
				   (unsigned long long)prev->end);
			if (!mw_allow_overlap)
				return -1;
			/* Counted; the runs are then checked against the union. */
			if (!mw_overlaps++)
				snprintf(mw_first_overlap, sizeof(mw_first_overlap), "%.500s", why->msg);
			overlap = true;
		}
		if (v->end <= arg->start || v->start >= wend) {
			mw_why_set(why, "VMA %#llx-%#llx outside the call's [%#llx, %#llx)",
				   (unsigned long long)v->start, (unsigned long long)v->end,
				   (unsigned long long)arg->start,
				   (unsigned long long)wend);
			return -1;
		}
		if (nv == sizeof(vmas) / sizeof(vmas[0])) {
			mw_why_set(why, "more than %zu VMA records in one call", nv);
			return -1;
		}
		vmas[nv++] = v;
		prev = v;
	}

	for (i = 0; i < arg->nr_runs; i++) {
		static struct memwalk_page_run last;
		static bool have_last;
		char buf[256];

		if (!i)
			have_last = false;

		memset(&run, 0, sizeof(run));
		memcpy(&run, (const char *)rbuf + i * arg->run_size, sizeof(run));
		r = &run;
		if (check_run(r, arg->flags, why))
			return -1;
		if (r->start < prev_end || r->start < arg->start ||
		    mw_run_end(r) > wend) {
			mw_why_set(why, "%s: not sorted, overlapping or outside [%#llx, %#llx)",
				   mw_run_str(r, buf, sizeof(buf)),
				   (unsigned long long)arg->start,
				   (unsigned long long)wend);
			return -1;
		}
		prev_end = mw_run_end(r);
		/*
		 * Listed PFNs: in run order, each run's own, not all following
		 * each other (that is a plain run).
		 */
		if (r->flags & MEMWALK_RUN_PFN_LIST) {
			if (r->pfn != pfn_next || r->nr_pages < 2 ||
			    r->pfn + r->nr_pages > arg->nr_pfns) {
				mw_why_set(why, "%s: PFN list index not %llu or past %llu PFNs",
					   mw_run_str(r, buf, sizeof(buf)),
					   (unsigned long long)pfn_next,
					   (unsigned long long)arg->nr_pfns);
				return -1;
			}
			for (k = r->pfn + 1; k < r->pfn + r->nr_pages; k++)
				if (pfns[k] != pfns[k - 1] + 1)
					break;
			if (k == r->pfn + r->nr_pages) {
				mw_why_set(why, "%s: lists PFNs that all follow each other",
					   mw_run_str(r, buf, sizeof(buf)));
				return -1;
			}
			pfn_next += r->nr_pages;
		}
		if (!(arg->flags & MEMWALK_SNAP_VMAS))
			continue;
		if (overlap) {
			if (!covered(vmas, nv, r->start, mw_run_end(r), mw_strict_runs)) {
				mw_why_set(why, "%s: not inside the VMA records of the same call",
					   mw_run_str(r, buf, sizeof(buf)));
				return -1;
			}
			continue;
		}
		while (vi < nv && vmas[vi]->end <= r->start)
			vi++;
		if (vi == nv || vmas[vi]->start > r->start) {
			mw_why_set(why, "%s: not inside a VMA record of the same call",
				   mw_run_str(r, buf, sizeof(buf)));
			return -1;
		}
		/* Strict: alike neighbours in one VMA must have been one run. */
		if (mw_strict_runs && have_last && mw_run_end(&last) == r->start &&
		    last.start >= vmas[vi]->start &&
		    runs_would_merge(&last, r, arg->flags)) {
			mw_why_set(why, "%s: should have merged with the run before it",
				   mw_run_str(r, buf, sizeof(buf)));
			return -1;
		}
		last = *r;
		have_last = true;
		if (vmas[vi]->end < mw_run_end(r)) {
			size_t k = vi;

			/* It crosses into the next VMA: covered by adjacent records? */
			while (k + 1 < nv && vmas[k]->end == vmas[k + 1]->start &&
			       vmas[k]->end < mw_run_end(r))
				k++;
			if (vmas[k]->end < mw_run_end(r)) {
				mw_why_set(why, "%s: not inside the VMA records of the same call",
					   mw_run_str(r, buf, sizeof(buf)));
				return -1;
			}
			if (mw_strict_runs) {
				mw_why_set(why, "%s: crosses from VMA %#llx-%#llx into the next",
					   mw_run_str(r, buf, sizeof(buf)),
					   (unsigned long long)vmas[vi]->start,
					   (unsigned long long)vmas[vi]->end);
				return -1;
			}
		}
	}
	if (pfn_next != arg->nr_pfns) {
		mw_why_set(why, "%llu PFNs listed, runs use %llu",
			   (unsigned long long)arg->nr_pfns,
			   (unsigned long long)pfn_next);
		return -1;
	}
	return 0;
}

/* Whether @a and @b lie in one VMA of @s (runs never cross VMAs). */
static bool one_vma(const struct mw_snap *s, const struct memwalk_page_run *a,
		    const struct memwalk_page_run *b)
{
	const struct mw_vma *v = mw_snap_vma(s, a->start);

	return v && b->start >= v->rec.start && mw_run_end(b) <= v->rec.end;
}

/*
 * Append @r to s->runs (room for it is there), joined to the run before
 * when @join and the module would have merged them without PFN lists
 * (by the rule of the call's returned @flags: MEMWALK_SNAP_NO_PFN says
 * PFNs were hidden and do not cut runs).
 */
static void add_run(struct mw_snap *s, const struct memwalk_page_run *r, bool join,
		    uint32_t flags)
{
	struct memwalk_page_run *last = s->nr_runs ? &s->runs[s->nr_runs - 1] : NULL;

	if (join && last && mw_run_end(last) == r->start &&
	    runs_would_merge(last, r, flags) && one_vma(s, last, r)) {
		last->nr_pages += r->nr_pages;
		return;
	}
	s->runs[s->nr_runs++] = *r;
}

/* The runs of one call, listed ones as the runs they stand for. */
static int add_runs(struct mw_snap *s, const struct memwalk_snapshot *arg,
		    const void *rbuf, const uint64_t *pfns)
{
	struct memwalk_page_run *nr, r;
	size_t i, pages = 0;
	bool after_list = false;
	uint32_t k;

	for (i = 0; i < arg->nr_runs; i++) {
		memcpy(&r, (const char *)rbuf + i * arg->run_size, sizeof(r));
		pages += r.flags & MEMWALK_RUN_PFN_LIST ? r.nr_pages : 1;
	}
	nr = realloc(s->runs, (s->nr_runs + pages + 1) * sizeof(*nr));
	if (!nr)
		return ENOMEM;
	s->runs = nr;
	for (i = 0; i < arg->nr_runs; i++) {
		memset(&r, 0, sizeof(r));
		memcpy(&r, (const char *)rbuf + i * arg->run_size, sizeof(r));
		if (!(r.flags & MEMWALK_RUN_PFN_LIST)) {
			add_run(s, &r, after_list, arg->flags);
			after_list = false;
			continue;
		}
		s->nr_listed++;
		s->nr_pfns += r.nr_pages;
		for (k = 0; k < r.nr_pages; k++) {
			struct memwalk_page_run page = r;

			page.flags &= ~MEMWALK_RUN_PFN_LIST;
			page.start += (uint64_t)k * MW_PAGE;
			page.nr_pages = 1;
			page.pfn = pfns[r.pfn + k];
			add_run(s, &page, true, arg->flags);
		}
		after_list = true;
	}
	return 0;
}

static int add_vma(struct mw_snap *s, const struct memwalk_vma *v, struct mw_why *why)
{
	struct mw_vma *last = s->nr_vmas ? &s->vmas[s->nr_vmas - 1] : NULL;
	struct mw_vma *nv;

	if (last && last->rec.start == v->start) {
		/* The same VMA again, from a call that resumed inside it. */
		if (last->rec.end != v->end || last->rec.flags != v->flags ||
		    last->rec.pgoff != v->pgoff || last->rec.ino != v->ino ||
		    strcmp(last->name, v->name)) {
			mw_why_set(why, "VMA %#llx reported differently by two calls",
				   (unsigned long long)v->start);
			return -1;
		}
		return 0;
	}
	if (last && v->start < last->rec.end) {
		mw_why_set(why, "VMA %#llx-%#llx overlaps %#llx-%#llx of an earlier call",
			   (unsigned long long)v->start, (unsigned long long)v->end,
			   (unsigned long long)last->rec.start,
			   (unsigned long long)last->rec.end);
		return -1;
	}
	nv = realloc(s->vmas, (s->nr_vmas + 1) * sizeof(*nv));
	if (!nv)
		return ENOMEM;
	s->vmas = nv;
	nv = &s->vmas[s->nr_vmas];
	memcpy(&nv->rec, v, sizeof(nv->rec));
	nv->name = strdup(v->name);
	if (!nv->name)
		return ENOMEM;
	s->nr_vmas++;
	return 0;
}

int mw_snapshot(int fd, pid_t pid, uint64_t start, uint64_t end, uint32_t flags,
		size_t vma_len, size_t run_len, struct mw_snap *s,
		struct mw_why *why)
{
	uint64_t lim = end ? end : mw_task_size, cur = start, off;
	void *vbuf = malloc(vma_len ? vma_len : 1);
	void *rbuf = malloc(run_len ? run_len : 1);
	uint64_t *pfns = malloc(run_len ? run_len : 1);
	struct memwalk_snapshot arg;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	why->msg[0] = '\0';
	if (!vbuf || !rbuf || !pfns) {
		ret = ENOMEM;
		goto out;
	}
	while (cur < lim) {

		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.flags = flags;
		arg.pid = pid;
		arg.start = cur;
		arg.end = end;
		arg.vma_buf = (uintptr_t)vbuf;
		arg.vma_buf_len = vma_len;
		arg.run_buf = (uintptr_t)rbuf;
		arg.run_buf_len = run_len;
		if (flags & MEMWALK_SNAP_PFN_LIST) {
			arg.pfn_buf = (uintptr_t)pfns;
			arg.pfn_buf_len = run_len;
		}
		ret = mw_snap_ioctl(fd, &arg);
		if (ret) {
			mw_why_set(why, "call %u from %#llx: %s", s->calls + 1,
				   (unsigned long long)cur, strerror(ret));
			goto out;
		}
		s->calls++;
		if (mw_snap_check_call(&arg, vbuf, rbuf, why)) {
			size_t l = strlen(why->msg);

			snprintf(why->msg + l, sizeof(why->msg) - l, " (call %u)", s->calls);
			ret = -1;
			goto out;
		}
		if (s->calls == 1)
			s->first_walk_end = !end && !arg.walk_end ? lim : arg.walk_end;
		s->run_size = arg.run_size;
		s->flags = arg.flags;
		s->lock_drops += arg.lock_drops;
		if (arg.max_lock_ns > s->max_lock_ns)
			s->max_lock_ns = arg.max_lock_ns;
		s->total_lock_ns += arg.total_lock_ns;
		for (off = 0; off < arg.vma_bytes;) {
			const struct memwalk_vma *v = (const void *)((char *)vbuf + off);

			ret = add_vma(s, v, why);
			if (ret)
				goto out;
			off += v->size;
		}
		ret = add_runs(s, &arg, rbuf, pfns);
		if (ret)
			goto out;
		cur = !end && !arg.walk_end ? lim : arg.walk_end;
	}
out:
	free(vbuf);
	free(rbuf);
	free(pfns);
	if (ret)
		mw_snap_free(s);
	return ret;
}

struct memwalk_page_run *mw_runs_expand(const struct memwalk_page_run *runs,
					size_t nr, size_t *nr_pages)
{
	struct memwalk_page_run *pages;
	size_t i, n = 0, total = 0;
	uint32_t k;

	for (i = 0; i < nr; i++)
		total += runs[i].nr_pages;
	pages = malloc((total ? total : 1) * sizeof(*pages));
	if (!pages)
		return NULL;
	for (i = 0; i < nr; i++) {
		unsigned int state = mw_run_state(&runs[i]);
		/* As the kernel merges: every state but a marker has a PFN or offset. */
		bool step = runs[i].pfn && state != MEMWALK_STATE_MARKER;

		for (k = 0; k < runs[i].nr_pages; k++) {
			pages[n] = runs[i];
			pages[n].start += (uint64_t)k * MW_PAGE;
			pages[n].nr_pages = 1;
			if (step)
				pages[n].pfn += k;
			n++;
		}
	}
	*nr_pages = n;
	return pages;
}

size_t mw_run_find(const struct memwalk_page_run *runs, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mw_run_end(&runs[mid]) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct mw_vma *mw_snap_vma(const struct mw_snap *s, uint64_t addr)
{
	size_t i;

	for (i = 0; i < s->nr_vmas; i++)
		if (s->vmas[i].rec.start <= addr && addr < s->vmas[i].rec.end)
			return &s->vmas[i];
	return NULL;
}

/* ---- memwalk_target ------------------------------------------------------------- */

const char *mw_target_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("MEMWALK_TARGET");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0)
		return "./memwalk_target";
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "memwalk_target");
	return path;
}

int mw_target_start(struct mw_target *t, uid_t uid, const char *const args[])
{
	int in[2], out[2], n = 0;
	const char *argv[32];

	memset(t, 0, sizeof(*t));
	t->pid = -1;
	t->to = t->from = -1;
	argv[n++] = mw_target_path();
	while (args && *args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(in, O_CLOEXEC))
		return errno;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return errno;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		int err = errno;

		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return err;
	}
	if (t->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(126);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->to = in[1];
	t->from = out[0];
	return 0;
}

static void target_line(void *arg, const char *line)
{
	struct mw_target *t = arg;
	struct mw_region *r;
	unsigned long long start, end;
	char name[32];
	size_t l;

	if (sscanf(line, "region %31s %llx %llx", name, &start, &end) == 3 &&
	    t->nr_regions < MW_MAX_REGIONS) {
		r = &t->regions[t->nr_regions++];
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->start = start;
		r->end = end;
	} else if (!strncmp(line, "skip ", 5) || !strncmp(line, "error ", 6)) {
		l = strlen(t->notes);
		snprintf(t->notes + l, sizeof(t->notes) - l, "%s; ", line);
	}
}

int mw_target_expect(struct mw_target *t, const char *word, int timeout_ms)
{
	return mw_target_read_until(t, word, timeout_ms, target_line, t);
}

int mw_target_read_until(struct mw_target *t, const char *word, int timeout_ms,
			 void (*line)(void *arg, const char *line), void *arg)
{
	struct timespec t0, now;
	struct pollfd pfd = { .fd = t->from, .events = POLLIN };
	char *nl;
	ssize_t n;
	int left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		while ((nl = memchr(t->buf, '\n', t->len))) {
			size_t used = nl - t->buf + 1;
			bool match;

			*nl = '\0';
			match = !strcmp(t->buf, word);
			if (!strncmp(t->buf, "error ", 6) && !match) {
				line(arg, t->buf);
				memmove(t->buf, t->buf + used, t->len - used);
				t->len -= used;
				return EPROTO;
			}
			line(arg, t->buf);
			memmove(t->buf, t->buf + used, t->len - used);
			t->len -= used;
			if (match)
				return 0;
		}
		if (t->len == sizeof(t->buf))
			return EPROTO;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - (int)((now.tv_sec - t0.tv_sec) * 1000 +
					  (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return ETIMEDOUT;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(t->from, t->buf + t->len, sizeof(t->buf) - t->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return EPIPE;
		t->len += n;
	}
}

int mw_target_send(struct mw_target *t, const char *line)
{
	size_t len = strlen(line);

	return write(t->to, line, len) == (ssize_t)len ? 0 : errno ? errno : EIO;
}

int mw_target_freeze(struct mw_target *t)
{
	int status;

	if (kill(t->pid, SIGSTOP))
		return errno;
	if (waitpid(t->pid, &status, WUNTRACED) != t->pid)
		return errno;
	return WIFSTOPPED(status) ? 0 : ECHILD;
}

int mw_target_thaw(struct mw_target *t)
{
	return kill(t->pid, SIGCONT) ? errno : 0;
}

void mw_target_kill(struct mw_target *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
			;
		t->pid = -1;
	}
	if (t->to >= 0)
		close(t->to);
	if (t->from >= 0)
		close(t->from);
	t->to = t->from = -1;
}

const struct mw_region *mw_target_region(const struct mw_target *t,
					 const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_regions; i++)
		if (!strcmp(t->regions[i].name, name))
			return &t->regions[i];
	return NULL;
}

void mw_lru_drain_all(void)
{
	static char page[MW_PAGE] __attribute__((aligned(MW_PAGE)));
	void *pages[1] = { page };
	int node = -1, status = -1;

	page[0] = 1;
	/* Where it is, then "move" it there: lru_cache_disable() drains all CPUs. */
	if (syscall(SYS_move_pages, 0, 1, pages, NULL, &status, 0) || status < 0)
		return;
	node = status;
	syscall(SYS_move_pages, 0, 1, pages, &node, &status, 0);
}

pid_t mw_free_pid(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

int mw_watch_hits(const char *out, const char *kind, uint64_t start, size_t n,
		  unsigned char *hits)
{
	char key[64];
	const char *line, *p, *end, *next;
	unsigned long long s, e, a;

	snprintf(key, sizeof(key), "\"kind\":\"%s\"", kind);
	for (line = out; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		p = strstr(line, key);
		if (!p || (next && p >= next))
			continue;
		/* This kind's ranges: up to the next kind, or the line's end. */
		end = strstr(p + 1, "\"kind\":");
		if (!end || (next && end > next))
			end = next ? next : p + strlen(p);
		while ((p = strstr(p, "\"start\":")) && p < end) {
			if (sscanf(p, "\"start\":%llu,\"end\":%llu", &s, &e) != 2)
				return -1;
			p++;
			for (a = s; a < e; a += MW_PAGE)
				if (a >= start && a < start + n * MW_PAGE)
					hits[(a - start) / MW_PAGE]++;
		}
	}
	return 0;
}

static char *read_all_fd(int fd)
{
	size_t len = 0, cap = 1 << 14;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return NULL;
	while ((n = pread(fd, buf + len, cap - len - 1, len)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf)
				break;
			buf = nbuf;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	return buf;
}

int mw_capture(const char *const argv[], int *status, char **out, char **err)
{
	int ofd = memfd_create("stdout", MFD_CLOEXEC);
	int efd = memfd_create("stderr", MFD_CLOEXEC);
	pid_t pid;
	int ret = 0;

	*out = *err = NULL;
	if (ofd < 0 || efd < 0) {
		ret = errno;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = errno;
		goto out;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, status, 0) < 0)
		ret = errno;
	*out = read_all_fd(ofd);
	*err = read_all_fd(efd);
	if (!*out || !*err)
		ret = ENOMEM;
out:
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	return ret;
}

/* ---- added for the split suites: device, states target, lab opener ------ */

const char *mw_tmpfs_dir(void)
{
	const char *d = getenv("MEMWALK_TMPFS");

	return d && *d ? d : "/tmp";
}

const char *mw_disk_dir(void)
{
	const char *d = getenv("MEMWALK_DISK");

	return d && *d ? d : NULL;
}

int mw_dev_info(int fd, struct memwalk_info *info, struct mw_why *why)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(fd, MEMWALK_IOC_INFO, info)) {
		mw_why_set(why, "MEMWALK_IOC_INFO: %s", strerror(errno));
		return errno;
	}
	if (info->pgtable_levels != 4 && info->pgtable_levels != 5) {
		mw_why_set(why, "MEMWALK_IOC_INFO: %u page-table levels", info->pgtable_levels);
		return EPROTO;
	}
	mw_task_size = mw_task_size_for(info->pgtable_levels);
	return 0;
}

int mw_open_as(uid_t uid, const char *path, int flags, struct mw_why *why)
{
	char c[CMSG_SPACE(sizeof(int))] = "";
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = c, .msg_controllen = sizeof(c) };
	struct cmsghdr *cm;
	int sv[2], fd = -1, status, err;
	char byte;
	pid_t pid;

	if (!uid) {
		fd = open(path, flags | O_CLOEXEC);
		if (fd < 0)
			mw_why_set(why, "open %s: %s", path, strerror(errno));
		return fd < 0 ? -errno : fd;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		return -err;
	}
	if (pid == 0) {
		close(sv[0]);
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(255);
		fd = open(path, flags | O_CLOEXEC);
		if (fd < 0)
			_exit(errno);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		_exit(sendmsg(sv[1], &mh, 0) == 1 ? 0 : 254);
	}
	close(sv[1]);
	err = waitpid(pid, &status, 0) < 0 ? errno :
	      !WIFEXITED(status) ? EINTR : WEXITSTATUS(status);
	if (!err) {
		iov.iov_base = &byte;
		if (recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC) == 1 &&
		    (cm = CMSG_FIRSTHDR(&mh)) && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		else
			err = EPROTO;
	}
	close(sv[0]);
	if (err == 255)
		mw_why_set(why, "cannot become uid %u", uid);
	else if (err)
		mw_why_set(why, "open %s as uid %u: %s", path, uid, strerror(err));
	return err ? -err : fd;
}

int mw_states_start(struct mw_target *t, uid_t uid, const char *disk,
		    struct mw_why *why)
{
	const char *args[8] = { "states", "--tmpfs", mw_tmpfs_dir() };
	char path[64];
	int n = 3, ret;

	if (disk) {
		args[n++] = "--disk";
		args[n++] = disk;
	}
	args[n] = NULL;
	ret = mw_target_start(t, uid, args);
	if (ret) {
		mw_why_set(why, "start %s: %s", mw_target_path(), strerror(ret));
		return ret;
	}
	ret = mw_target_expect(t, "built", MW_READY_MS);
	if (ret) {
		mw_why_set(why, "target not built (%s): %s", strerror(ret), t->notes);
		return ret;
	}
	/* The oracle's setup: clear soft-dirty bits (memwalk never does). */
	snprintf(path, sizeof(path), "/proc/%d/clear_refs", t->pid);
	ret = -mw_write_file(path, "4");
	if (!ret)
		ret = mw_target_send(t, "go\n");
	if (ret) {
		mw_why_set(why, "clear_refs, go: %s", strerror(ret));
		return ret;
	}
	ret = mw_target_expect(t, "ready", MW_READY_MS);
	if (!ret)
		ret = mw_target_freeze(t);
	if (ret)
		mw_why_set(why, "target not ready (%s): %s", strerror(ret), t->notes);
	return ret;
}

const struct memwalk_page_run *mw_run_at(const struct mw_snap *s, uint64_t addr)
{
	size_t i = mw_run_find(s->runs, s->nr_runs, addr);

	return i < s->nr_runs && s->runs[i].start <= addr ? &s->runs[i] : NULL;
}

int mw_translate(int fd, pid_t pid, uint64_t addr, struct memwalk_translate *t)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->pid = pid;
	t->addr = addr;
	return ioctl(fd, MEMWALK_IOC_TRANSLATE, t) ? errno : 0;
}

bool mw_folio_hidden(const struct memwalk_page_run *r)
{
	return !r->folio_flags && !r->mapcount && !r->refcount && !r->nid &&
	       !r->order && r->lru_gen == -1;
}

uint64_t mw_pagemap_expected(const struct mw_vma *v, const struct memwalk_page_run *r,
			     uint64_t addr, uint64_t *mask)
{
	bool hugetlb = v->rec.flags & MEMWALK_VMA_HUGETLB;
	uint64_t e = 0, idx;

	*mask = PM_COMPARED;
	if (v->rec.flags & MEMWALK_VMA_SOFTDIRTY)
		e |= PM_SOFT_DIRTY;
	if (!r)
		return e;
	idx = (addr - r->start) >> MW_PAGE_SHIFT;
	if ((r->flags & MEMWALK_RUN_SOFT_DIRTY) && !hugetlb)
		e |= PM_SOFT_DIRTY;
	if (r->flags & MEMWALK_RUN_UFFD_WP)
		e |= PM_UFFD_WP;
	switch (mw_run_state(r)) {
	case MEMWALK_STATE_PRESENT:
		e |= PM_PRESENT | ((r->pfn + idx) & PM_PFN_MASK);
		if (r->flags & MEMWALK_RUN_FILE)
			e |= PM_FILE;
		if (r->flags & MEMWALK_RUN_EXCLUSIVE)
			e |= PM_MMAP_EXCLUSIVE;
		/* pagemap's PMD path calls the huge zero page a file page */
		if ((r->flags & MEMWALK_RUN_ZERO) &&
		    mw_run_level(r) == MEMWALK_LEVEL_PMD)
			*mask &= ~PM_FILE;
		break;
	case MEMWALK_STATE_SWAP:
		e |= PM_SWAP | mw_run_swap_type(r) |
		     ((r->pfn + idx) << PM_SWAP_TYPE_BITS);
		break;
	case MEMWALK_STATE_MIGRATION:
		e |= PM_SWAP | ((r->pfn + idx) << PM_SWAP_TYPE_BITS);
		*mask &= ~((1ULL << PM_SWAP_TYPE_BITS) - 1) & ~PM_FILE & ~PM_MMAP_EXCLUSIVE;
		break;
	case MEMWALK_STATE_SHMEM_SWAP:
		break;		/* no entry: pagemap shows none */
	default:	/* device, hwpoison, marker: swap-like, frame not compared */
		e |= PM_SWAP;
		*mask &= ~PM_PFN_MASK & ~PM_FILE & ~PM_MMAP_EXCLUSIVE;
		break;
	}
	return e;
}

bool mw_swap_on(void)
{
	char buf[1024];

	return !mw_read_file("/proc/swaps", buf, sizeof(buf)) &&
	       strchr(buf, '\n') && strchr(buf, '\n')[1];
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

int mw_page_out(void *p, size_t len, struct mw_why *why)
{
	size_t n = len / MW_PAGE, k;
	unsigned char *vec = malloc(n);
	int tries, ret = -1;

	if (!vec) {
		mw_why_set(why, "out of memory");
		return -1;
	}
	for (tries = 0; tries < 30; tries++) {
		if (madvise(p, len, MADV_PAGEOUT) || mincore(p, len, vec)) {
			mw_why_set(why, "MADV_PAGEOUT/mincore: %s", strerror(errno));
			break;
		}
		for (k = 0; k < n && !(vec[k] & 1); k++)
			;
		if (k == n) {
			ret = 0;
			break;
		}
		mw_why_set(why, "page %zu of %zu still resident after %d MADV_PAGEOUT", k, n,
			   tries + 1);
		/*
		 * Left in the swap cache under writeback, and unmapped: once
		 * written, mapped again (a minor fault) the next MADV_PAGEOUT
		 * reaches it and frees it.
		 */
		usleep(100 * 1000);
		for (; k < n; k++)
			if (vec[k] & 1)
				(void)*(volatile char *)((char *)p + k * MW_PAGE);
	}
	free(vec);
	return ret;
}

const char *mw_region_unsupported(const char *name)
{
	char buf[64] = "";

	if (!strncmp(name, "thp", 3)) {
		if (mw_read_file("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)))
			return "kernel without THP (CONFIG_TRANSPARENT_HUGEPAGE)";
		if (strstr(buf, "[never]"))
			return "THP disabled (transparent_hugepage=never)";
		if (!strcmp(name, "thp_zero") &&
		    access("/sys/kernel/mm/transparent_hugepage/use_zero_page", F_OK))
			return "kernel without the huge zero page (no use_zero_page)";
		return NULL;
	}
	if (!strncmp(name, "hugetlb", 7)) {
		if (mw_read_file("/proc/sys/vm/nr_hugepages", buf, sizeof(buf)))
			return "kernel without hugetlb (CONFIG_HUGETLB_PAGE)";
		if (!strtoul(buf, NULL, 10))
			return "no hugetlb pages reserved (vm.nr_hugepages 0)";
		return NULL;
	}
	if ((!strncmp(name, "swapped", 7) || !strcmp(name, "shmem_swapped")) && !mw_swap_on())
		return "no swap device (/proc/swaps)";
	if (!strncmp(name, "disk_", 5) && !mw_disk_dir())
		return "no disk file system (MEMWALK_DISK unset)";
	return NULL;
}

uint64_t *mw_pagemap_of(pid_t pid, uint64_t start, uint64_t end)
{
	size_t n = (end - start) >> MW_PAGE_SHIFT;
	uint64_t *pm = malloc((n ? n : 1) * sizeof(*pm));

	if (pm && mw_pagemap_read(pid, start, n, pm)) {
		free(pm);
		return NULL;
	}
	return pm;
}

int mw_dev_open(struct memwalk_info *info, struct mw_why *why)
{
	int fd = open(MEMWALK_DEVICE_PATH, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		ret = errno;
		mw_why_set(why, "open %s: %s (is memwalk loaded?)", MEMWALK_DEVICE_PATH,
			   strerror(ret));
		return -ret;
	}
	ret = mw_dev_info(fd, info, why);
	if (!ret && !(info->features & MEMWALK_FEAT_SNAPSHOT)) {
		mw_why_set(why, "module without MEMWALK_FEAT_SNAPSHOT");
		ret = ENOTSUP;
	}
	if (ret) {
		close(fd);
		return -ret;
	}
	return fd;
}
