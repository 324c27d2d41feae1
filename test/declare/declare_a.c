/* declare_a.c - the file with the definitions (DECLARE_IMPLEMENTATION):
 * drives a container through its own calls and declare_b.c's, and checks
 * that both files call the same functions (one copy, external). */
#define DECLARE_IMPLEMENTATION
#include "declare.h"

#include <stdio.h>

int main(void)
{
    static struct ditem items[6]; /* zeroed: idle */
    struct tlist due = { NULL, NULL }, *link;
    int i, bad = 0, want = 0;
    dc c;

    for (i = 0; i < 6; i++)
        items[i].id = i;
    dc_init(&c, 0);
    bad |= declare_b_calls(&c, items, 6);
    bad |= dc_size(&c) != 3 || dc_next_expiry(&c) != 10 || dc_first(&c) != &items[0] || dc_check(&c) != NULL;
    bad |= dc_reschedule_range(&c, 0, 25, &items[2]) != 0 || dc_reserve(&c, 8) != 0;
    bad |= dc_pop(&c, 50, &due) != 3;
    tlist_drain(link, &due) {
        bad |= dc_entry(link)->id != want || dc_pending(dc_entry(link)) || dc_due(dc_entry(link));
        want += 2;
    }
    dc_clear(&c);
    bad |= !dc_empty(&c) || dc_min_time(&c) != TIMER_NEVER;
    dc_destroy(&c);
    if (declare_b_insert() != dc_insert || declare_b_remove() != dc_remove) {
        printf("declare (%s): declare_b.c calls other copies of insert and remove\n", DC_KIND);
        return 1;
    }
    printf("declare (%s): %s; both files call one copy of each function\n", DC_KIND, bad ? "FAILED" : "ok");
    return bad;
}
