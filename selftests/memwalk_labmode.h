/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A main() for suites whose fixture has root variants and lab variants
 * (a bool "lab" in its FIXTURE_VARIANT): lab_mode is a read-only module
 * parameter, fixed at insmod, so a variant runs only under the load that
 * fits it (selftests.sh loads the module both ways).  The harness this
 * suite builds with (6.1's) has no variant filter, so the variant list is
 * pruned before it runs; the plan line counts what runs.  Include after
 * kselftest_harness.h.
 */
#ifndef MEMWALK_LABMODE_H
#define MEMWALK_LABMODE_H

#include <stdbool.h>

#include "memwalk_util.h"

#define MW_LAB_PARAM	"/sys/module/memwalk/parameters/lab_mode"

/* Whether the module is loaded with lab_mode=1. */
static inline bool mw_lab_loaded(void)
{
	char param[8] = "";

	return !mw_read_file(MW_LAB_PARAM, param, sizeof(param)) && param[0] == 'Y';
}

/*
 * Keep only the variants of @fixture that fit the loaded module, call
 * @start(lab) (the suite's one target), then run the harness.
 */
#define MW_LAB_HARNESS_MAIN(fixture, start)				\
int main(int argc, char **argv)						\
{									\
	struct __fixture_variant_metadata *v, *next, *head = NULL, *tail = NULL; \
	bool lab = mw_lab_loaded();					\
									\
	for (v = _##fixture##_fixture_object.variant; v; v = next) {	\
		next = v->next;						\
		if (((const FIXTURE_VARIANT(fixture) *)v->data)->lab != lab) \
			continue;					\
		v->next = NULL;						\
		if (!head)						\
			head = v;					\
		else							\
			tail->next = v;					\
		v->prev = tail ? tail : v;				\
		tail = v;						\
	}								\
	if (head)							\
		head->prev = tail;					\
	_##fixture##_fixture_object.variant = head;			\
	start(lab);							\
	ksft_print_msg("%s=%s: the %s variants of the " #fixture " tests\n", \
		       MW_LAB_PARAM, lab ? "Y" : "N", lab ? "lab" : "root"); \
	return test_harness_run(argc, argv);				\
}

#endif /* MEMWALK_LABMODE_H */
