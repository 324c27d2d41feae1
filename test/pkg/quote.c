/* quote.c - the copied-headers form: a project that adds the library as a
 * subproject (add_subdirectory, FetchContent, meson) may write
 * #include "timer_wheel.h". Mixed with the <timer_containers/...> form in
 * one translation unit, each header must still be seen once. Exit 0: the
 * wheel popped the right item. */
#include "timer_wheel.h"
#include <timer_containers/timer_wheel.h>
#include "timer_heap.h"
#include "timer_set.h"

#include <stdio.h>

typedef struct tick { int id; struct timer_wheel_node tw; } tick;
TIMER_WHEEL_DEFINE(tick, tw)

int main(void)
{
    static tick a, b; /* zeroed nodes are idle */
    tick_wheel w;
    struct tlist out;
    tick *t;
    int ok;

    a.id = 1;
    b.id = 2;
    tick_wheel_init(&w, 0);
    tick_wheel_insert(&w, 7, &a);
    tick_wheel_insert(&w, 9000, &b);
    tlist_init(&out);
    ok = tick_wheel_pop(&w, 100, &out) == 1;
    t = tick_wheel_entry(tlist_pop_front(&out));
    ok = ok && t == &a && tick_wheel_size(&w) == 1 && tick_wheel_pending(&b);
    printf("quote: \"timer_wheel.h\" form: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
