// SPDX-License-Identifier: GPL-2.0
/* memwalk-client info: what the loaded module is and can do (MEMWALK_IOC_INFO). */
#include <inttypes.h>
#include <stdio.h>

#include "device.h"
#include "memwalk-client.h"
#include "print.h"

static const char *const feature_names[64] = {
	[0] = "netlink",	/* MEMWALK_FEAT_NETLINK */
	[1] = "debugfs",	/* MEMWALK_FEAT_DEBUGFS */
	[2] = "snapshot",	/* MEMWALK_FEAT_SNAPSHOT */
	[3] = "mglru",		/* MEMWALK_FEAT_MGLRU */
	[4] = "vma_summary",	/* MEMWALK_FEAT_VMA_SUMMARY */
	[5] = "phys",		/* MEMWALK_FEAT_PHYS */
	[6] = "contiguous",	/* MEMWALK_FEAT_CONTIGUOUS */
	[7] = "folio_young",	/* MEMWALK_FEAT_FOLIO_YOUNG */
	[8] = "no_accessed",	/* MEMWALK_FEAT_NO_ACCESSED */
};

static void print_features(uint64_t features)
{
	char unknown[16];
	unsigned int bit;

	print_string(PRINT_FP, NULL, "%s", "features:       ");
	open_json_array(PRINT_JSON, "features");
	for (bit = 0; bit < 64; bit++) {
		const char *name = feature_names[bit];

		if (!(features & (1ULL << bit)))
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%u", bit);
			name = unknown;
		}
		print_string(PRINT_ANY, NULL, " %s", name);
	}
	close_json_array(PRINT_JSON);
	print_string(PRINT_FP, NULL, "%s\n", features ? "" : " none");
}

static int info_run(const struct mw_command *cmd, int argc, char **argv)
{
	const struct memwalk_info *info;
	struct mw_device *dev;
	bool json;
	int ret;

	ret = mw_parse_output_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	ret = mw_open_device(&dev);
	if (ret)
		return ret;
	info = &dev->info;

	print_begin(json);
	print_string(PRINT_ANY, "module_version", "module version:  %s\n",
		     info->module_version);
	print_uint(PRINT_ANY, "uapi_version", "uapi version:    %" PRIu64 "\n",
		   info->uapi_version);
	print_string(PRINT_ANY, "release", "kernel release:  %s\n", info->release);
	print_string(PRINT_ANY, "machine", "machine:         %s\n", info->machine);
	print_uint(PRINT_ANY, "page_size", "page size:       %" PRIu64 "\n",
		   UINT64_C(1) << info->page_shift);
	print_uint(PRINT_ANY, "pgtable_levels", "paging levels:   %" PRIu64 "\n",
		   info->pgtable_levels);
	print_features(info->features);
	print_end();
	mw_device_close(dev);
	return MW_EXIT_OK;
}

MW_COMMAND(info,
	.name = "info",
	.args = "[-J|--json]",
	.help = "show what the loaded module is and can do (ioctl)",
	.run = info_run);
