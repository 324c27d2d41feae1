/* lib.c - the library's one file with the timer functions. */
#include "lib_api.h"
#include <timer_containers/timer_heap.h>

TIMER_HEAP_DEFINE_FUNCTIONS(lib_timers, struct lib_timer, node)

int lib_run(struct lib_loop *loop)
{
    struct tlist due = { NULL, NULL }, *link;
    int i, want = 2, bad = 0;
    lib_timers_init(&loop->timers, 0);
    for (i = 0; i < 3; i++) {
        loop->t[i].id = i;
        bad |= lib_timers_insert(&loop->timers, 30 - 10 * i, &loop->t[i]) != 0;
    }
    bad |= lib_timers_pop(&loop->timers, 100, &due) != 3;
    tlist_drain(link, &due)
        bad |= lib_timers_entry(link)->id != want--;
    lib_timers_destroy(&loop->timers);
    return bad;
}
