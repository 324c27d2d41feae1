/* declare_b.c - a file that only includes the DECLARE header: its calls
 * go to the one copy declare_a.c defines (test/run.sh checks with nm that
 * this object defines none). Built as C, and as C++ against a C declare_a. */
#include "declare.h"

#ifdef __cplusplus
extern "C" {
#endif

dc_insert_fn declare_b_insert(void)
{
    return dc_insert;
}

dc_remove_fn declare_b_remove(void)
{
    return dc_remove;
}

/* Insert n items at 10, 20, ...; remove the odd ones; 0 when every call
 * answered as it must. */
int declare_b_calls(dc *c, struct ditem *items, int n)
{
    int i, bad = 0;
    for (i = 0; i < n; i++)
        bad |= dc_insert(c, 10 * (i + 1), &items[i]) != 0;
    bad |= dc_insert(c, 5, &items[0]) != -EBUSY;
    for (i = 1; i < n; i += 2)
        bad |= !dc_remove(c, &items[i]);
    bad |= dc_reschedule_near(c, 15, 5, &items[0]) != 0 || dc_expire(&items[0]) != 10;
    return bad;
}

#ifdef __cplusplus
}
#endif
