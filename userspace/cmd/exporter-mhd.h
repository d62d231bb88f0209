/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmicrohttpd, opened when the exporter starts (dlopen), not linked:
 * its GnuTLS closure (ten libraries, their relocations and constructors)
 * was 80 % of every other command's start-up, which never serves HTTP.
 */
#ifndef MEMWALK_EXPORTER_MHD_H
#define MEMWALK_EXPORTER_MHD_H

#include <microhttpd.h>

/* The ABI microhttpd.h describes: Debian's libmicrohttpd12 (bookworm to sid). */
#define MW_MHD_SONAME	"libmicrohttpd.so.12"

/* The functions the exporter calls, each with its declared type. */
struct mw_mhd {
	typeof(MHD_start_daemon) *start_daemon;
	typeof(MHD_stop_daemon) *stop_daemon;
	typeof(MHD_create_response_from_buffer) *create_response_from_buffer;
	typeof(MHD_add_response_header) *add_response_header;
	typeof(MHD_queue_response) *queue_response;
	typeof(MHD_destroy_response) *destroy_response;
};

/*
 * Open the library and fill @mhd; false, with what went wrong in @why
 * (dlerror()'s words), if it cannot.  The library stays open.
 */
bool mw_mhd_open(struct mw_mhd *mhd, char *why, size_t len);

#endif
