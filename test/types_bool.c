/* types_bool.c - v2.1: a public header built with TIMER_TYPES_ONLY changes
 * the meaning of no code that includes it. Types-only mode defines no bool,
 * true or false (it does not include <stdbool.h>) and no macro without the
 * TIMER_, TBITMAP_ or TLIST_ prefix (run.sh lists the macros it defines,
 * types_macros); here, code with its own bool compiles after it. */
#include "types_pub.h"

#include <stdio.h>

#if defined(bool) || defined(true) || defined(false) || defined(__bool_true_false_are_defined)
#error "TIMER_TYPES_ONLY brought in <stdbool.h>"
#endif
#if defined(TIMER_INLINE_) || defined(TIMER_NOINLINE_) || defined(TIMER_FUNCTIONS_BEGIN_)
#error "TIMER_TYPES_ONLY defined a macro that only the functions need"
#endif

typedef int bool; /* an older library's own, as C89 code has */
enum { false, true };

static bool embeds_nodes(const struct srv_conn *c)
{
    return sizeof c->idle > 0 && sizeof c->request > 0 && sizeof c->job > 0 ? true : false;
}

int main(void)
{
    static struct srv_conn conn; /* zeroed: idle */
    bool ok = embeds_nodes(&conn) == true && conn.idle.link.next == NULL;
    printf("types only with a bool of its own: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
