// SPDX-License-Identifier: GPL-2.0
/*
 * jsonc-peer FILE: parse FILE with json-c (strict), as the peer of `show`
 * in scripts/bench.sh: a well-kept JSON library's tree of the same
 * snapshot.  json-c has no event interface: its tokener builds the whole
 * tree.  Exit 0 when the document parsed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *obj = NULL;
	enum json_tokener_error jerr = json_tokener_continue;
	FILE *fp = argc == 2 ? fopen(argv[1], "r") : NULL;
	size_t n;

	if (!fp || !tok) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	while (jerr == json_tokener_continue && (n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		obj = json_tokener_parse_ex(tok, buf, (int)n);
		jerr = json_tokener_get_error(tok);
	}
	if (!obj) {
		fprintf(stderr, "%s: %s\n", argv[1], json_tokener_error_desc(jerr));
		return 1;
	}
	json_object_put(obj);
	json_tokener_free(tok);
	fclose(fp);
	return 0;
}
