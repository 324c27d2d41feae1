/* two_tu_a.c - one half of the two-translation-unit link test (see two_tu.h),
 * and the const calls a poll-timeout function makes, in C and C++. */
#include "two_tu.h"

#include <stdio.h>
#include <string.h>

/* v2.1: what a poll-timeout function over a const loop may call (libuv's
 * uv_backend_timeout takes a const uv_loop_t *): next_expiry, first,
 * visit and min_time all take const containers, in C and in C++. */
struct loop {
    conn_wheel w;
    conn_heap h;
    conn_set s;
};

static int visited;

static void count_conn(conn *c, void *arg)
{
    (void)arg;
    visited += c->fd;
}

static int64_t loop_timeout(const struct loop *l, int64_t now)
{
    int64_t t = conn_wheel_next_expiry(&l->w), u = conn_heap_next_expiry(&l->h), v = conn_set_next_expiry(&l->s);
    if (u < t)
        t = u;
    if (v < t)
        t = v;
    return t == TIMER_NEVER ? -1 : t - now;
}

static int const_loop(void)
{
    static struct loop l;
    const struct loop *cl = &l;
    conn c[3];
    int bad = 0;

    memset(c, 0, sizeof c);
    c[0].fd = 1;
    c[1].fd = 2;
    c[2].fd = 4;
    conn_wheel_init(&l.w, 0);
    conn_heap_init(&l.h, 0);
    conn_set_init(&l.s, 0);
    bad |= loop_timeout(cl, 0) != -1;
    bad |= conn_wheel_insert(&l.w, 300005, &c[0]) != 0;  /* a coarse slot: next_expiry refines it */
    bad |= conn_wheel_insert(&l.w, 300001, &c[1]) != 0;
    bad |= conn_heap_insert(&l.h, 400000, &c[2]) != 0;
    bad |= conn_set_insert(&l.s, 500000, &c[2]) != 0;
    bad |= loop_timeout(cl, 1000) != 299001;
    bad |= conn_wheel_first(&cl->w) != &c[1] || conn_heap_first(&cl->h) != &c[2] || conn_set_first(&cl->s) != &c[2];
    bad |= conn_wheel_visit(&cl->w, count_conn, NULL) != 2 || visited != 3;
    bad |= conn_heap_visit(&cl->h, count_conn, NULL) != 1 || conn_set_visit(&cl->s, count_conn, NULL) != 1 || visited != 11;
    bad |= conn_wheel_min_time(&cl->w) > 300001 || conn_heap_min_time(&cl->h) != 400000;
    bad |= conn_wheel_reschedule_range(&l.w, 300000, 300010, &c[1]) != 0 || conn_wheel_expire(&c[1]) != 300001;
    conn_wheel_destroy(&l.w);
    conn_heap_destroy(&l.h);
    conn_set_destroy(&l.s);
    return bad;
}

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
    bad |= const_loop() != 0;
    printf("two translation units: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
