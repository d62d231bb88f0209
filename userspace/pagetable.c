// SPDX-License-Identifier: GPL-2.0
/* memwalk-client PID: page-table dump of a process (to come). */
#include "memwalk-client.h"

static int pagetable_run(const struct mw_command *cmd, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return mw_not_implemented(cmd);
}

MW_COMMAND(pagetable,
	.name = "PID",
	.args = "",
	.help = "dump the page tables of process PID (not implemented yet)",
	.flags = MW_CMD_PID,
	.run = pagetable_run);
