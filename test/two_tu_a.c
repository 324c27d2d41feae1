/* two_tu_a.c - one half of the two-translation-unit link test (see two_tu.h). */
#include "two_tu.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    conn c[2];
    conn_wheel w;
    conn_set s;
    struct tlist out;
    int bad = 0;

    memset(c, 0, sizeof c);
    tlist_init(&out);
    conn_wheel_init(&w, 0);
    conn_set_init(&s, 0);
    bad |= conn_wheel_insert(&w, 100, &c[0]) != 0;
    bad |= conn_set_insert(&s, 50, &c[0]) != 0;
    bad |= conn_set_insert(&s, 60, &c[1]) != 0;
    bad |= conn_wheel_pop(&w, 100, &out) != 1;
    bad |= conn_wheel_entry(tlist_pop_front(&out)) != &c[0];
    bad |= conn_set_pop(&s, 55, &out) != 1;
    bad |= conn_set_entry(tlist_pop_front(&out)) != &c[0];
    bad |= !conn_set_remove(&s, &c[1]);
    conn_wheel_destroy(&w);
    conn_set_destroy(&s);
    bad |= two_tu_b() != 0;
    printf("two translation units: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
