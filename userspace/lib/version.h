/* SPDX-License-Identifier: GPL-2.0 */
/* libmemwalk: the client's name and version, as snapshots record them. */
#ifndef MEMWALK_VERSION_H
#define MEMWALK_VERSION_H

#define MEMWALK_CLIENT_VERSION	"0.1.0"
#define MW_PROG			"memwalk-client"

#endif /* MEMWALK_VERSION_H */
