/* types_a.c - uses the public header alone: the types are complete (sizeof,
 * embedding, static storage) and no timer function was brought in; v2.2:
 * nor any name but the nodes' and DEFINE_TYPE's (so this program may have
 * its own struct timer_heap, as a libuv user may), and its own setting of
 * TIMER_TYPES_ONLY survives the public header. */
#define TIMER_TYPES_ONLY 7 /* this program's own setting, whatever it means to it */
#include "types_pub.h"

#include <stdio.h>
#include <string.h>

#if !defined(TIMER_TYPES_ONLY) || TIMER_TYPES_ONLY != 7
#error "the public header changed TIMER_TYPES_ONLY"
#endif
#if defined(TIMER_WHEEL_H_FUNCTIONS) || defined(TIMER_HEAP_H_FUNCTIONS) || defined(TIMER_SET_H_FUNCTIONS) || \
    defined(TIMER_LIST_H_FUNCTIONS) || defined(TIMER_BITMAP_H)
#error "the types brought in functions"
#endif
#if defined(TIMER_NEVER) || defined(TIMER_WHEEL_SLOTS) || defined(TIMER_WHEEL_NSLOTS)
#error "the types defined a macro that only the functions use"
#endif

/* These would clash with the headers' functions and cores had they been declared. */
static int timer_wheel_insert(int x) { return x + 1; }
static int tlist_init(int x) { return x * 2; }
static int srv_idle_timers_insert(int x) { return x - 1; }
struct timer_heap { int mine; };
struct timer_set { int mine; };
struct timer_wheel { int mine; };
struct timer_heap_entry { int mine; };

static struct srv server; /* static storage: zeroed */

int main(void)
{
    struct srv_conn conns[3];
    int fds[8], n, bad = 0;

    memset(conns, 0, sizeof conns); /* zeroed nodes: idle */
    bad |= timer_wheel_insert(1) != 2 || tlist_init(2) != 4 || srv_idle_timers_insert(3) != 2;
    bad |= TIMER_VERSION_MAJOR != 2;
    {
        struct timer_heap mine = { 1 };
        struct timer_set mine2 = { 2 };
        struct timer_wheel mine3 = { 3 };
        struct timer_heap_entry mine4 = { 4 };
        bad |= mine.mine + mine2.mine + mine3.mine + mine4.mine != 10;
    }
    srv_init(&server, 1000);
    conns[0].fd = 10;
    conns[1].fd = 11;
    conns[2].fd = 12;
    bad |= srv_watch(&server, &conns[0], 5000, 2500, 9000) != 0;
    bad |= srv_watch(&server, &conns[1], 2500, 7000, 2500) != 0;
    bad |= srv_watch(&server, &conns[2], 2500, 2500, 2500) != 0;
    n = srv_expire(&server, 2500, fds, 8);
    /* by 2500: idle 11, 12; request 10, 12; job 11, 12 (each kind FIFO) */
    bad |= n != 6 || fds[0] != 11 || fds[1] != 12 || fds[2] != 10 || fds[3] != 12 || fds[4] != 11 || fds[5] != 12;
    n = srv_expire(&server, 10000, fds, 8);
    bad |= n != 3 || fds[0] != 10 || fds[1] != 11 || fds[2] != 10;
    srv_fini(&server);
    printf("types only: public header with %zu-byte struct srv and %zu-byte struct srv_conn, no functions: %s\n",
           sizeof server, sizeof conns[0], bad ? "FAILED" : "ok");
    return bad;
}
