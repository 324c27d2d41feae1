/* void_casts.c - what an nginx or libevent port writes where a result is
 * safe to drop: a (void) cast, before insert, the reschedules and reserve,
 * on every kind and through a DECLAREd prototype (test/run.sh, void_casts).
 * Built with their -Werror flags, as C (C99, C11, C2x) and as C++ (11,
 * 17), with gcc and clang, it must compile clean. Built with -DVC_CAST=
 * (the casts gone), each line marked DROPPED must fail, and no other: the
 * results are marked, and (void) is all it takes to drop one. */
#include "timer_containers.h"

#ifndef VC_CAST
#define VC_CAST (void)
#endif

typedef struct ev {
    int fd;
    struct timer_set_node s;
    struct timer_heap_node h;
    struct timer_wheel_node w;
} ev;
TIMER_SET_DEFINE(ev, s)
TIMER_HEAP_DEFINE(ev, h)
TIMER_WHEEL_DEFINE(ev, w)
TIMER_WHEEL_DECLARE(ev_decl, ev, w)

/* nginx's ngx_event_add_timer returns void: its port re-arms with the lazy
 * rule (less than 300 ms from the new expiry: keep), and the set's and the
 * wheel's reschedule cannot fail for a valid item. */
void vc_calls(ev_set *s, ev_heap *h, ev_wheel *w, ev_decl *d, ev *e, int64_t t,
              struct tlist *due);
void vc_calls(ev_set *s, ev_heap *h, ev_wheel *w, ev_decl *d, ev *e, int64_t t, struct tlist *due)
{
    VC_CAST ev_set_insert(s, t, e);                     /* DROPPED */
    VC_CAST ev_set_reschedule(s, t, e);                 /* DROPPED */
    VC_CAST ev_set_reschedule_range(s, t, t + 5, e);    /* DROPPED */
    VC_CAST ev_set_reschedule_near(s, t, 299, e);       /* DROPPED */
    VC_CAST ev_set_reserve(s, 64);                      /* DROPPED */
    VC_CAST ev_heap_insert(h, t, e);                    /* DROPPED */
    VC_CAST ev_heap_reschedule(h, t, e);                /* DROPPED */
    VC_CAST ev_heap_reschedule_range(h, t, t + 5, e);   /* DROPPED */
    VC_CAST ev_heap_reschedule_near(h, t, 299, e);      /* DROPPED */
    VC_CAST ev_heap_reserve(h, 64);                     /* DROPPED */
    VC_CAST ev_wheel_insert(w, t, e);                   /* DROPPED */
    VC_CAST ev_wheel_reschedule(w, t, e);               /* DROPPED */
    VC_CAST ev_wheel_reschedule_range(w, t, t + 5, e);  /* DROPPED */
    VC_CAST ev_wheel_reschedule_near(w, t, 299, e);     /* DROPPED */
    VC_CAST ev_wheel_reserve(w, 64);                    /* DROPPED */
    VC_CAST ev_decl_insert(d, t, e);                    /* DROPPED */
    VC_CAST ev_decl_reschedule_near(d, t, 299, e);      /* DROPPED */
    ev_set_remove(s, e);                                /* fine: not marked */
    ev_wheel_pop(w, t, due);                            /* fine */
}
