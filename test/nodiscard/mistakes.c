/* mistakes.c - calls whose result reports an error, made as if it did not
 * (test/run.sh, nodiscard): every line marked MISTAKE must warn (an error
 * under -Werror), naming the unused result; no other line may. The due
 * item of an insert is the 2.2 silent loss: -EBUSY, and nothing re-armed. */
#include "timer_containers.h"

typedef struct conn {
    int fd;
    struct timer_wheel_node w;
    struct timer_heap_node h;
    struct timer_set_node s;
} conn;
TIMER_WHEEL_DEFINE(conn, w)
TIMER_HEAP_DEFINE(conn, h)
TIMER_SET_DEFINE(conn, s)
TIMER_HEAP_DECLARE(decl_heap, conn, h) /* the prototypes carry it too */

void mistakes(conn_wheel *w, conn_heap *h, conn_set *s, decl_heap *d, conn *c, struct tlist *due);
void mistakes(conn_wheel *w, conn_heap *h, conn_set *s, decl_heap *d, conn *c, struct tlist *due)
{
    struct tlist *link;
    conn_wheel_pop(w, 5, due);                  /* fine: the count repeats the list */
    tlist_foreach(link, due)
        conn_wheel_insert(w, 10, conn_wheel_entry(link)); /* MISTAKE: -EBUSY, never re-armed */
    conn_wheel_reschedule(w, -1, c);            /* MISTAKE */
    conn_wheel_reschedule_range(w, 9, 8, c);    /* MISTAKE */
    conn_wheel_reschedule_near(w, 9, -1, c);    /* MISTAKE */
    conn_heap_reserve(h, 100);                  /* MISTAKE */
    conn_heap_insert(h, 5, c);                  /* MISTAKE */
    conn_set_insert(s, 5, c);                   /* MISTAKE */
    conn_set_check(s);                          /* MISTAKE */
    decl_heap_insert(d, 5, c);                  /* MISTAKE */
    conn_wheel_remove(w, c);                    /* fine: false only says it was idle */
    conn_set_remove(s, c);                      /* fine */
    decl_heap_pop(d, 7, due);                   /* fine */
}
