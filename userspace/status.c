// SPDX-License-Identifier: GPL-2.0
/* memwalk-client status: the module's status over generic netlink. */
#include <inttypes.h>
#include <stdio.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "memwalk-client.h"
#include "print.h"

static struct nla_policy status_policy[MEMWALK_A_MAX + 1] = {
	[MEMWALK_A_MODULE_VERSION]	= { .type = NLA_STRING,
					    .maxlen = MEMWALK_MODVER_LEN },
	[MEMWALK_A_UAPI_VERSION]	= { .type = NLA_U32 },
	[MEMWALK_A_RELEASE]		= { .type = NLA_STRING,
					    .maxlen = MEMWALK_RELEASE_LEN },
};

static const char *const status_attr_names[MEMWALK_A_MAX + 1] = {
	[MEMWALK_A_MODULE_VERSION]	= "MEMWALK_A_MODULE_VERSION",
	[MEMWALK_A_UAPI_VERSION]	= "MEMWALK_A_UAPI_VERSION",
	[MEMWALK_A_RELEASE]		= "MEMWALK_A_RELEASE",
};

static int status_parse(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[MEMWALK_A_MAX + 1];
	bool json = *(bool *)arg;
	uint32_t uapi_version;
	int err, attr;

	err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, MEMWALK_A_MAX, status_policy);
	if (err < 0) {
		mw_err("malformed GET_STATUS reply [%s]", nl_geterror(err));
		return MW_EXIT_FAILURE;
	}
	for (attr = 0; attr <= MEMWALK_A_MAX; attr++) {
		if (status_attr_names[attr] && !tb[attr]) {
			mw_err("malformed GET_STATUS reply: no %s",
			       status_attr_names[attr]);
			return MW_EXIT_FAILURE;
		}
	}
	uapi_version = nla_get_u32(tb[MEMWALK_A_UAPI_VERSION]);
	mw_check_uapi("module", uapi_version);

	print_begin(json);
	print_string(PRINT_ANY, "module_version", "module version:  %s\n",
		     nla_get_string(tb[MEMWALK_A_MODULE_VERSION]));
	print_uint(PRINT_ANY, "uapi_version", "uapi version:    %" PRIu64 "\n",
		   uapi_version);
	print_string(PRINT_ANY, "release", "kernel release:  %s\n",
		     nla_get_string(tb[MEMWALK_A_RELEASE]));
	print_end();
	return MW_EXIT_OK;
}

static int status_run(const struct mw_command *cmd, int argc, char **argv)
{
	struct mw_genl genl;
	bool json;
	int ret;

	ret = mw_parse_output_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	ret = mw_genl_open(&genl);
	if (ret)
		return ret;
	ret = mw_genl_do(&genl, MEMWALK_CMD_GET_STATUS, "MEMWALK_CMD_GET_STATUS",
			 status_parse, &json);
	mw_genl_close(&genl);
	return ret;
}

MW_COMMAND(status,
	.name = "status",
	.args = "[-J|--json]",
	.help = "show the module's status over generic netlink",
	.run = status_run);
