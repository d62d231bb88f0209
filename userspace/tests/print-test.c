// SPDX-License-Identifier: GPL-2.0
/*
 * Drives the print layer with awkward values so host-tests.sh can check the
 * text output byte for byte and the JSON output with a JSON parser.
 * Usage: print-test text|json
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "print.h"

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "text") && strcmp(argv[1], "json"))) {
		fprintf(stderr, "usage: %s text|json\n", argv[0]);
		return 1;
	}
	print_begin(!strcmp(argv[1], "json"));
	print_string(PRINT_ANY, "plain", "plain: %s\n", "6.1.0-56-amd64");
	print_string(PRINT_ANY, "escapes", "escapes: %s\n",
		     "q\" b\\ t\t n\n c\x01 u\x1f d\x7f /");
	print_string(PRINT_ANY, "utf8", "utf8: %s\n", "gr\xc3\xbc\xc3\x9f");
	print_string(PRINT_ANY, "latin1", "latin1: %s\n", "caf\xe9 \xc3(");
	print_string(PRINT_ANY, "empty", "empty: [%s]\n", "");
	print_uint(PRINT_ANY, "zero", "zero: %" PRIu64 "\n", 0);
	print_uint(PRINT_ANY, "max", "max: %" PRIu64 "\n", UINT64_MAX);
	print_string(PRINT_FP, NULL, "%s", "text only\n");
	print_string(PRINT_JSON, "json_only", "%s", "yes");
	print_string(PRINT_FP, NULL, "%s", "list:");
	open_json_array(PRINT_JSON, "list");
	print_string(PRINT_ANY, NULL, " %s", "a");
	print_string(PRINT_ANY, NULL, " %s", "b\"");
	print_uint(PRINT_ANY, NULL, " %" PRIu64, 3);
	close_json_array(PRINT_JSON);
	print_string(PRINT_FP, NULL, "%s", "\n");
	open_json_array(PRINT_JSON, "none");
	close_json_array(PRINT_JSON);
	print_string(PRINT_ANY, "last", "last: %s\n", "end");
	print_end();
	return 0;
}
