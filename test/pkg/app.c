/* app.c - an application with a list.h, a struct timer_heap and a
 * TIMER_TYPES_ONLY setting of its own, that uses a library built on
 * timer_containers (lib_api.h, lib.c). test/pkg.sh builds it with its own
 * include directory before the library's and after it (own_before,
 * own_after): in both, "list.h" must be its own, and the library's public
 * header must neither declare struct timer_heap nor change TIMER_TYPES_ONLY
 * (v2.2). Exit 0: all of that held and the library worked. */
#define TIMER_TYPES_ONLY 3 /* the application's own setting */
#include "list.h"
#include "lib_api.h"

#include <stdio.h>
#include <string.h>

#if !defined(TIMER_TYPES_ONLY) || TIMER_TYPES_ONLY != 3
#error "lib_api.h changed the application's TIMER_TYPES_ONLY"
#endif

struct timer_heap { /* the application's own */
    const char *name;
};

int main(void)
{
    static struct lib_loop loop;
    struct timer_heap mine = { "the application's struct timer_heap" };
    int bad = lib_run(&loop);
    printf("own: %s, %s, TIMER_TYPES_ONLY %d, library %s\n", my_list_name(), mine.name, TIMER_TYPES_ONLY,
           bad ? "FAILED" : "ok");
    return bad || strcmp(my_list_name(), "the application's list.h") != 0;
}
