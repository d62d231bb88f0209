// SPDX-License-Identifier: GPL-2.0
/* memwalk-client events: the reclaim/OOM/LRU event stream (to come). */
#include "memwalk-client.h"

static int events_run(const struct mw_command *cmd, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return mw_not_implemented(cmd);
}

MW_COMMAND(events,
	.name = "events",
	.args = "",
	.help = "stream reclaim, OOM and LRU events (not implemented yet)",
	.run = events_run);
