/* wahern_timer.h - William Ahern's timing wheel (github.com/wahern/timeout,
 * timeout.c), the closest peer to our wheel, behind the subset of our API
 * that the benchmark driver bench_kind.h calls, so that it runs the same
 * ordered-insert protocol and workloads with the workload's own times.
 *
 * Included by peers.c only when it is built with PEER_WAHERN, with the
 * directory holding timeout.c and timeout.h on the include path (make
 * bench-peers WAHERN_DIR=...). timeout.c is compiled into this translation
 * unit, in its default build (no define: 4 wheels of 64 slots, callbacks,
 * intervals and relative access compiled in), so that its calls can be
 * inlined as ours are. Nothing of it is in this repository.
 *
 * How the API is driven, as its own test and documentation do:
 *   insert, reschedule  timeouts_add(T, to, expire) with TIMEOUT_ABS, so the
 *                       expiry is absolute like ours (timeouts_add of a
 *                       pending timeout moves it)
 *   remove              timeouts_del
 *   pop(now)            timeouts_update(T, now), then timeouts_get until NULL:
 *                       exactly the timeouts with expiry <= now, in no promised
 *                       order (the order of the slots they were collected from)
 *   min_time            the time of the last update + timeouts_timeout(T): never
 *                       later than the earliest expiry, earlier when that lies on
 *                       a coarser wheel (the library's own comment says so)
 * Its struct timeouts is opaque and keeps no count, so the adapter keeps
 * the count, and the time of the last update for min_time. A popped
 * timeout's list link (tqe) is free once timeouts_get returns it, so the
 * result-list link shares its storage, as bsd_timer.h does.
 *
 * Differences a reader of the figures should know: 4 x 64 slots cover
 * 2^24 ticks; a timeout further ahead waits in the top wheel and is
 * re-filed each time that wheel comes round (ours: 11 x 64 slots, 66 bits).
 * struct timeout is 72 bytes in this build (ours 24).
 */
#ifndef WAHERN_TIMER_H
#define WAHERN_TIMER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "timeout.h"
#include "timeout.c"

/* timeout.c's private macros, which would otherwise leak into the includer */
#undef abstime_t
#undef reltime_t
#undef countof
#undef endof
#undef MIN
#undef MAX
#undef ctz
#undef clz
#undef fls
#undef report
#undef check
#undef TO_SET_TIMEOUTS

#include "list.h"

#ifndef TIMER_NEVER
#define TIMER_NEVER INT64_MAX
#endif

union wahern_timer_node {
    struct timeout to;                          /* while pending: wahern's own node */
    struct {                                    /* while in a result list */
        unsigned char before[offsetof(struct timeout, tqe)];
        struct tlist due;                       /* over tqe, unused by then */
    } d;
};

/* the result-list link lies exactly over tqe, and no further */
typedef char wahern_timer_link_fits[(offsetof(union wahern_timer_node, d.due) == offsetof(struct timeout, tqe) &&
                                     sizeof(struct tlist) <= sizeof(((struct timeout *)0)->tqe)) ? 1 : -1];

struct wahern_timer_set {
    struct timeouts *T;
    int64_t now;                                /* the time of the last timeouts_update */
    size_t count;
};

static void wahern_timer_init(struct wahern_timer_set *s, int64_t now)
{
    int error = 0;
    s->T = timeouts_open(0, &error);
    if (s->T == NULL) {
        fprintf(stderr, "wahern: timeouts_open failed (errno %d)\n", error);
        exit(1);
    }
    s->now = now > 0 ? now : 0;
    timeouts_update(s->T, (timeout_t)s->now);
    s->count = 0;
}

static void wahern_timer_destroy(struct wahern_timer_set *s)
{
    if (s->T != NULL)
        timeouts_close(s->T);
    s->T = NULL;
    s->count = 0;
}

/* TIMEOUT_ABS on every call: the benchmark's items start zeroed, where a
 * program would call timeout_init(to, TIMEOUT_ABS) once; one store. */
static inline int wahern_timer_insert(struct wahern_timer_set *s, int64_t expire, union wahern_timer_node *n)
{
    if (n->to.pending != NULL)
        return -1;
    n->to.flags = TIMEOUT_ABS;
    timeouts_add(s->T, &n->to, (timeout_t)expire);
    s->count++;
    return 0;
}

static inline int wahern_timer_reschedule(struct wahern_timer_set *s, int64_t expire, union wahern_timer_node *n)
{
    s->count += n->to.pending == NULL;
    n->to.flags = TIMEOUT_ABS;
    timeouts_add(s->T, &n->to, (timeout_t)expire);
    return 0;
}

/* The same window test as ours (reschedule_range): a pending timeout whose
 * (absolute) expiry is already in [lo, hi] stays as it is. */
static inline int wahern_timer_reschedule_range(struct wahern_timer_set *s, int64_t lo, int64_t hi,
                                                union wahern_timer_node *n)
{
    if (n->to.pending != NULL && (int64_t)n->to.expires >= lo && (int64_t)n->to.expires <= hi)
        return 0;
    return wahern_timer_reschedule(s, hi, n);
}

static inline int wahern_timer_remove(struct wahern_timer_set *s, union wahern_timer_node *n)
{
    if (n->to.pending == NULL)
        return 0;
    timeouts_del(s->T, &n->to);
    s->count--;
    return 1;
}

static inline size_t wahern_timer_pop(struct wahern_timer_set *s, int64_t now, struct tlist *out)
{
    struct timeout *to;
    size_t k = 0;
    timeouts_update(s->T, (timeout_t)now);
    s->now = now;
    while ((to = timeouts_get(s->T)) != NULL) {
        tlist_push_back(out, &((union wahern_timer_node *)(void *)to)->d.due);
        k++;
    }
    s->count -= k;
    return k;
}

static inline int64_t wahern_timer_min_time(const struct wahern_timer_set *s)
{
    timeout_t t = timeouts_timeout(s->T);
    return t == ~TIMEOUT_C(0) ? TIMER_NEVER : s->now + (int64_t)t;
}

/* Typed wrappers with the names bench_kind.h calls: NAME_init, NAME_insert, ... */
#define WAHERN_TIMER_DEFINE_NAMED(name, type, member)                                       \
    typedef struct name { struct wahern_timer_set s; } name;                                \
    static inline void name##_init(name *c, int64_t now) { wahern_timer_init(&c->s, now); } \
    static inline void name##_destroy(name *c) { wahern_timer_destroy(&c->s); }             \
    static inline int name##_insert(name *c, int64_t expire, type *item)                    \
    { return wahern_timer_insert(&c->s, expire, &item->member); }                           \
    static inline int name##_reschedule(name *c, int64_t expire, type *item)                \
    { return wahern_timer_reschedule(&c->s, expire, &item->member); }                       \
    static inline int name##_reschedule_range(name *c, int64_t lo, int64_t hi, type *item)  \
    { return wahern_timer_reschedule_range(&c->s, lo, hi, &item->member); }                 \
    static inline int name##_remove(name *c, type *item)                                    \
    { return wahern_timer_remove(&c->s, &item->member); }                                   \
    static inline size_t name##_pop(name *c, int64_t now, struct tlist *out)                \
    { return wahern_timer_pop(&c->s, now, out); }                                           \
    static inline int64_t name##_min_time(const name *c) { return wahern_timer_min_time(&c->s); } \
    static inline size_t name##_size(const name *c) { return c->s.count; }                  \
    static inline int name##_empty(const name *c) { return c->s.count == 0; }               \
    static inline type *name##_entry(struct tlist *link)                                    \
    {                                                                                       \
        return link == NULL ? NULL                                                          \
            : (type *)(void *)((char *)link - offsetof(union wahern_timer_node, d.due)      \
                               - offsetof(type, member));                                   \
    }

#endif /* WAHERN_TIMER_H */
