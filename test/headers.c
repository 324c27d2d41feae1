/* headers.c - every header in one translation unit, every DEFINE form
 * instantiated, nothing called.
 *
 * Built with -Werror: a generated function that a program does not use must
 * not warn (clang's -Wunused-function), and the headers must not clash with
 * each other. Also compiled as C++11, and with -Wconversion.
 * -DUSE_SINGLE_HEADER: the same through timer_containers.h alone.
 */
#if defined(USE_SINGLE_HEADER)
#include "timer_containers.h"
#else
#include "list.h"
#include "bitmap.h"
#include "timer_set.h"
#include "timer_heap.h"
#include "timer_wheel.h"
#endif

/* DEFINE: a typedef name and a member; prefix conn_set, conn_heap, conn_wheel. */
typedef struct conn {
    int fd;
    struct timer_set_node ts;
    struct timer_heap_node th;
    struct timer_wheel_node tw;
} conn;
TIMER_SET_DEFINE(conn, ts)
TIMER_HEAP_DEFINE(conn, th)
TIMER_WHEEL_DEFINE(conn, tw)

/* DEFINE_NAMED: any type, a prefix chosen freely. */
struct job {
    struct timer_set_node a;
    struct timer_heap_node b;
    struct timer_wheel_node c;
};
TIMER_SET_DEFINE_NAMED(job_set, struct job, a)
TIMER_HEAP_DEFINE_NAMED(job_heap, struct job, b)
TIMER_WHEEL_DEFINE_NAMED(job_wheel, struct job, c)

/* The tlist iteration macros over a const head, as list.h always allowed. */
static size_t count_links(const struct tlist *head)
{
    const struct tlist *pos;
    struct tlist *p2, *tmp;
    size_t n = 0;
    tlist_foreach(pos, head)
        n++;
    tlist_foreach_safe(p2, tmp, head)
        n++;
    return n / 2;
}

int main(void)
{
    static struct tlist zeroed; /* static: zeroed, as C and C++ agree without a NULL */
    return count_links(&zeroed) != 0;
}
