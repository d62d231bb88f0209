// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the pages that changed (struct mw_diff's change lists),
 * as text or JSON, for `diff` and `watch` alike: one kind per heading,
 * its ranges under it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "diff.h"
#include "memwalk-client.h"
#include "print.h"

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void mw_changes_text(const struct mw_diff *d, const char *indent)
{
	size_t ch, i;

	for (ch = 0; ch < MW_NR_CHANGES; ch++) {
		const struct mw_change_list *l = &d->changes[ch];

		if (!l->nr)
			continue;
		printf("%s%s: %" PRIu64 " %s in %zu %s\n", indent, mw_change_name(ch),
		       l->pages, plural(l->pages, "page", "pages"), l->nr,
		       plural(l->nr, "range", "ranges"));
		for (i = 0; i < l->nr; i++) {
			const struct mw_change_range *r = &l->ranges[i];

			printf("%s  %016" PRIx64 "-%016" PRIx64 " %" PRIu64 "%s%s\n",
			       indent, r->start, r->end, (r->end - r->start) / d->page_size,
			       r->detail[0] ? " " : "", r->detail);
		}
	}
}

void mw_changes_json(const struct mw_diff *d)
{
	size_t ch, i;

	open_json_array(PRINT_JSON, "changes");
	for (ch = 0; ch < MW_NR_CHANGES; ch++) {
		const struct mw_change_list *l = &d->changes[ch];

		if (!l->nr)
			continue;
		open_json_object(PRINT_JSON, NULL);
		print_string(PRINT_JSON, "kind", "", mw_change_key(ch));
		print_string(PRINT_JSON, "name", "", mw_change_name(ch));
		print_uint(PRINT_JSON, "pages", "", l->pages);
		open_json_array(PRINT_JSON, "ranges");
		for (i = 0; i < l->nr; i++) {
			const struct mw_change_range *r = &l->ranges[i];

			open_json_object(PRINT_JSON, NULL);
			print_uint(PRINT_JSON, "start", "", r->start);
			print_uint(PRINT_JSON, "end", "", r->end);
			print_uint(PRINT_JSON, "pages", "", (r->end - r->start) / d->page_size);
			print_string(PRINT_JSON, "detail", "", r->detail);
			close_json_object(PRINT_JSON);
		}
		close_json_array(PRINT_JSON);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}
