// SPDX-License-Identifier: GPL-2.0
/* libmicrohttpd, opened when the exporter starts: see exporter-mhd.h. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include "exporter-mhd.h"

bool mw_mhd_open(struct mw_mhd *mhd, char *why, size_t len)
{
	static const struct {
		const char *name;
		size_t offset;
	} fns[] = {
#define FN(f) { "MHD_" #f, offsetof(struct mw_mhd, f) }
		FN(start_daemon),
		FN(stop_daemon),
		FN(create_response_from_buffer),
		FN(add_response_header),
		FN(queue_response),
		FN(destroy_response),
#undef FN
	};
	void *lib, *fn;
	size_t i;

	lib = dlopen(MW_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, len, "%s", dlerror());
		return false;
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		fn = dlsym(lib, fns[i].name);
		if (!fn) {
			snprintf(why, len, "%s", dlerror());
			dlclose(lib);
			return false;
		}
		/* POSIX: a function's address converts through void * */
		*(void **)((char *)mhd + fns[i].offset) = fn;
	}
	return true;
}
