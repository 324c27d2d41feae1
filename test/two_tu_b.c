/* two_tu_b.c - the other half of the two-translation-unit link test. */
#include "two_tu.h"

#include <string.h>

int two_tu_b(void)
{
    conn c[2];
    conn_heap h;
    conn_wheel w;
    struct tlist out;
    int bad = 0;

    memset(c, 0, sizeof c);
    tlist_init(&out);
    conn_heap_init(&h, 0);
    conn_wheel_init(&w, 0);
    bad |= conn_heap_insert(&h, 20, &c[1]) != 0;
    bad |= conn_heap_insert(&h, 10, &c[0]) != 0;
    bad |= conn_wheel_insert(&w, 5, &c[1]) != 0;
    bad |= conn_heap_min_time(&h) != 10;
    bad |= conn_heap_pop(&h, 20, &out) != 2;
    bad |= conn_heap_entry(tlist_pop_front(&out)) != &c[0];
    bad |= conn_heap_entry(tlist_pop_front(&out)) != &c[1];
    bad |= !conn_wheel_remove(&w, &c[1]);
    conn_heap_destroy(&h);
    conn_wheel_destroy(&w);
    return bad;
}
