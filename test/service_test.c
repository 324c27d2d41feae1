/* service_test.c - timer_service.h from many threads, and in every order.
 *
 *   service_test SEED PART [ARGS...]        (SEED: a number, or "" for a fresh one)
 *
 * Parts (test/run.sh runs them quick in make test, long in make check):
 *   api                      every call's results and errors, on each kind,
 *                            with no thread (the program's loop: run, next_expiry,
 *                            the wake callback counted): arm_range, the result
 *                            struct of the cancels, the end of a periodic
 *                            series, the deadline while a periodic callback
 *                            runs, a timer freed by its callback and a new one
 *                            at its address, destroy handing timers back, the
 *                            slack of a program's loop, a fork()ed child
 *   policies                 the missed-tick policies on a manual clock that
 *                            jumps an hour: every callback's expire and missed
 *   sched BOUND              deterministic interleavings: the service's lock,
 *                            wait, wake and atomic points are yield points of a
 *                            small scheduler (below) that runs one thread at a
 *                            time on a virtual clock and explores every schedule
 *                            with up to BOUND preemptions: cancel against fire,
 *                            an earlier arm while the owner goes to sleep (its
 *                            thread, and a program's loop), cancel_sync from the
 *                            callback, cancel of a running periodic timer,
 *                            shutdown_sync against a callback that re-arms,
 *                            issue 31's input (arms and a cancel_sync around a
 *                            running callback) counted by a ledger, a timer
 *                            freed by its callback and a new one at its address,
 *                            the deadline read while a periodic callback runs,
 *                            DELAY against Java's fixed delay; and the wake-ups
 *                            counted while idle, with far timers only, on an
 *                            earlier arm, on an arm later than the sleeper's own
 *                            wake-up and within the slack, on a clock that jumps
 *                            an hour. Every schedule's history goes through the
 *                            model check too.
 *   stress KINDS SHARDS WORKERS OPS MODE
 *                            the ledger: WORKERS threads arm, arm_range,
 *                            arm_periodic, cancel and cancel_sync timers they
 *                            share (several at once on one timer), and now and
 *                            then retire one (shutdown_sync and free it), on
 *                            SHARDS shards, for each kind in KINDS
 *                            (set,heap,wheel), callbacks run by the service's
 *                            threads (MODE threads) or by a loop per shard
 *                            (loop); callbacks arm and cancel their own timer.
 *                            It counts only what a caller sees: a reference per
 *                            arm that returned 0, given back in the callback
 *                            when f->next is TIMER_NEVER, for each result whose
 *                            .stopped is true and for each timer destroy hands
 *                            back; every retired timer must be at exactly 0. No
 *                            callback of a timer overlaps another, none runs
 *                            early; a retired timer is freed at once (ASan: any
 *                            later touch is a use after free). Then the model
 *                            check: each shard's history, logged under its lock,
 *                            replayed against a single-threaded model.
 *
 * Nothing here waits for wall-clock time to make something happen, or judges a
 * duration: the scheduler's clock is virtual, the stress counts events. Prints
 * its seed; exits non-zero on the first failure, naming it (and the schedule).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the hooks: every sync point of the service goes through these ---------- */
struct timer_service_timer;
struct timer_service_shard_;
static void tst_shard_lock(struct timer_service_shard_ *sh);
static void tst_shard_unlock(struct timer_service_shard_ *sh);
static int tst_shard_sleep(struct timer_service_shard_ *sh, pthread_cond_t *cv, int64_t until);
static void tst_shard_wake(struct timer_service_shard_ *sh, pthread_cond_t *cv, int all);
static int64_t tst_clock(void);
static int tst_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);
static int tst_thread_join(pthread_t th);
static void tst_point(const char *what);
static void tst_step(unsigned shard, int step, struct timer_service_timer *t, int64_t a, int64_t b,
                     int64_t c);
#define TIMER_SERVICE_LOCK_(sh) tst_shard_lock(sh)
#define TIMER_SERVICE_UNLOCK_(sh) tst_shard_unlock(sh)
#define TIMER_SERVICE_SLEEP_(sh, cv, until) tst_shard_sleep(sh, cv, until)
#define TIMER_SERVICE_SIGNAL_(sh, cv) tst_shard_wake(sh, cv, 0)
#define TIMER_SERVICE_BROADCAST_(sh, cv) tst_shard_wake(sh, cv, 1)
#define TIMER_SERVICE_CLOCK_() tst_clock()
#define TIMER_SERVICE_THREAD_START_(th, fn, arg) tst_thread_start(th, fn, arg)
#define TIMER_SERVICE_THREAD_JOIN_(th) tst_thread_join(th)
#define TIMER_SERVICE_POINT_(what) tst_point(what)
#define TIMER_SERVICE_ON_STEP_(shard, step, t, a, b, c) tst_step(shard, step, t, a, b, c)
#include "timer_service.h"

TIMER_SERVICE_DEFINE(svc_set, set)
TIMER_SERVICE_DEFINE(svc_heap, heap)
TIMER_SERVICE_DEFINE(svc_wheel, wheel)

/* One service of any kind; the tests are written once over these. */
struct svc {
    int kind; /* 0 set, 1 heap, 2 wheel */
    union {
        svc_set set;
        svc_heap heap;
        svc_wheel wheel;
    } u;
};
static const char *const kind_name[3] = {"set", "heap", "wheel"};
#define ON_KIND(s, fn, ...)                                                                        \
    ((s)->kind == 0   ? svc_set_##fn(&(s)->u.set, __VA_ARGS__)                                     \
     : (s)->kind == 1 ? svc_heap_##fn(&(s)->u.heap, __VA_ARGS__)                                   \
                      : svc_wheel_##fn(&(s)->u.wheel, __VA_ARGS__))
static int s_init(struct svc *s, int kind, const struct timer_service_options *o)
{
    s->kind = kind;
    return ON_KIND(s, init, o);
}
#define s_arm(s, t, e) ON_KIND(s, arm, t, e)
#define s_arm_range(s, t, lo, hi) ON_KIND(s, arm_range, t, lo, hi)
#define s_arm_periodic(s, t, e, p, y) ON_KIND(s, arm_periodic, t, e, p, y)
#define s_cancel(s, t) ON_KIND(s, cancel, t)
#define s_cancel_sync(s, t) ON_KIND(s, cancel_sync, t)
#define s_shutdown_sync(s, t) ON_KIND(s, shutdown_sync, t)
#define s_run(s, i, now, b) ON_KIND(s, run, i, now, b)
#define s_shard_next(s, i) ON_KIND(s, shard_next_expiry, i)
#define s_stats(s, i, out) ON_KIND(s, stats, i, out)
#define s_reserve(s, i, n) ON_KIND(s, reserve, i, n)
/* The calls that take the service alone (void ? void : void is fine in C). */
#define ON_KIND0(s, fn)                                                                            \
    ((s)->kind == 0   ? svc_set_##fn(&(s)->u.set)                                                  \
     : (s)->kind == 1 ? svc_heap_##fn(&(s)->u.heap)                                                \
                      : svc_wheel_##fn(&(s)->u.wheel))
#define s_start(s) ON_KIND0(s, start)
#define s_stop(s) ON_KIND0(s, stop)
#define s_destroy(s) ON_KIND0(s, destroy)
#define s_next(s) ON_KIND0(s, next_expiry)

/* A cancel's result as the hook logs it (and as the messages print it). */
#define RES(r) TIMER_SERVICE_STEP_RESULT_(r)

/* ---- failing --------------------------------------------------------------- */

static const char *part_name = "?";
static uint64_t seed;
static void sched_print_trace(void);

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL service_test %s (seed %llu): ", part_name, (unsigned long long)seed);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    sched_print_trace();
    fflush(stdout);
    _exit(1);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            die(__VA_ARGS__);                                                                      \
    } while (0)

static uint64_t rnd(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* The test's small thread ids (the model keys cancels and fires by them). */
static __thread int tst_tid;
static int next_tid = 1; /* atomic */

/* ---- the deterministic scheduler --------------------------------------------
 * Logical threads are real threads, but only the one holding the baton
 * (S.cur) runs; at every hook it may hand the baton on. A choice among two or
 * more runnable threads is recorded; a run replays a prefix of choices and
 * then keeps the running thread (no preemption), and exploration branches at
 * every recorded choice beyond the prefix (stateless search, as CHESS does,
 * bounded by the count of preemptions). Mutexes are the real ones taken with
 * trylock; condition variables are lists of blocked threads; time is virtual
 * and moves only when no thread can run, to the earliest timed wait. */
#define LT_MAX 6
#define TRACE_MAX 4096
#define STEP_LIMIT 100000
enum { LT_FREE, LT_RUN, LT_LOCK, LT_COND, LT_JOIN, LT_DONE };
struct lt {
    int state;
    const void *on;
    int64_t deadline;
    int timed_out;
    pthread_t th;
    void *(*fn)(void *);
    void *arg;
};
struct choice {
    unsigned char set, pick, me;
};
static struct {
    int on;
    pthread_mutex_t mu;
    pthread_cond_t turn;
    int cur, n, finished;
    struct lt t[LT_MAX];
    int64_t now;
    const unsigned char *prefix;
    int nprefix;
    struct choice trace[TRACE_MAX];
    int ntrace;
    long steps;
    const char *scenario;
} S = {0,
       PTHREAD_MUTEX_INITIALIZER,
       PTHREAD_COND_INITIALIZER,
       0,
       0,
       0,
       {{0, NULL, 0, 0, 0, NULL, NULL}},
       0,
       NULL,
       0,
       {{0, 0, 0}},
       0,
       0,
       NULL};
static __thread int lt_self = -1;

static void sched_print_trace(void)
{
    int i;
    if (!S.on)
        return;
    printf("  scenario %s, virtual time %lld; the schedule (thread picked at each choice):",
           S.scenario, (long long)S.now);
    for (i = 0; i < S.ntrace; i++)
        printf(" %d", S.trace[i].pick);
    printf("\n");
}

static unsigned sched_runnable(void)
{
    unsigned set = 0;
    int i;
    for (i = 0; i < S.n; i++)
        if (S.t[i].state == LT_RUN)
            set |= 1u << i;
    return set;
}

/* The thread to run next (S.mu held), or -1 when every thread is done. */
static int sched_pick(int me)
{
    unsigned set = sched_runnable();
    int i, pick;
    if (set == 0) {
        int64_t when = TIMER_NEVER;
        for (i = 0; i < S.n; i++)
            if (S.t[i].state == LT_COND && S.t[i].deadline < when)
                when = S.t[i].deadline;
        if (when != TIMER_NEVER) {
            if (when > S.now)
                S.now = when;
            for (i = 0; i < S.n; i++)
                if (S.t[i].state == LT_COND && S.t[i].deadline <= S.now) {
                    S.t[i].state = LT_RUN;
                    S.t[i].timed_out = 1;
                }
            set = sched_runnable();
        }
    }
    if (set == 0) {
        for (i = 0; i < S.n; i++)
            CHECK(S.t[i].state == LT_DONE, "deadlock: thread %d waits (state %d) and none can run",
                  i, S.t[i].state);
        return -1;
    }
    CHECK(++S.steps < STEP_LIMIT, "more than %d steps: a thread spins", STEP_LIMIT);
    if ((set & (set - 1)) == 0) {
        for (pick = 0; !(set & (1u << pick)); pick++)
            ;
        return pick;
    }
    CHECK(S.ntrace < TRACE_MAX, "more than %d choices: a thread spins", TRACE_MAX);
    if (S.ntrace < S.nprefix) {
        pick = S.prefix[S.ntrace];
        CHECK(set & (1u << pick), "replay diverged at choice %d", S.ntrace);
    } else if (me >= 0 && (set & (1u << me))) {
        pick = me;
    } else {
        for (pick = 0; !(set & (1u << pick)); pick++)
            ;
    }
    S.trace[S.ntrace].set = (unsigned char)set;
    S.trace[S.ntrace].pick = (unsigned char)pick;
    S.trace[S.ntrace].me = (unsigned char)(me < 0 ? 255 : me);
    S.ntrace++;
    return pick;
}

/* Hand the baton on (S.mu held; me's state set already) and wait for it. */
static void sched_switch(int me)
{
    int next = sched_pick(me);
    if (next != me) {
        S.cur = next;
        if (next < 0)
            S.finished = 1;
        pthread_cond_broadcast(&S.turn);
        while (S.cur != me)
            pthread_cond_wait(&S.turn, &S.mu);
    }
}

static bool sched_mine(void)
{
    return S.on && lt_self >= 0;
}

static void tst_point(const char *what)
{
    (void)what;
    if (!sched_mine())
        return;
    pthread_mutex_lock(&S.mu);
    sched_switch(lt_self);
    pthread_mutex_unlock(&S.mu);
}

static void sched_block(int state, const void *on, int64_t deadline)
{
    struct lt *me = &S.t[lt_self];
    me->state = state;
    me->on = on;
    me->deadline = deadline;
    me->timed_out = 0;
    sched_switch(lt_self);
}

static void sched_unblock(int state, const void *on, int all)
{
    int i;
    for (i = 0; i < S.n; i++)
        if (S.t[i].state == state && S.t[i].on == on) {
            S.t[i].state = LT_RUN;
            if (!all)
                return;
        }
}

/* The test's own mutexes and condition variables (its sleeps on the virtual
 * clock, the program's loop of the loop-mode scenarios), under the scheduler. */
static void tst_mlock(pthread_mutex_t *m)
{
    if (!sched_mine()) {
        pthread_mutex_lock(m);
        return;
    }
    tst_point("lock");
    pthread_mutex_lock(&S.mu);
    while (pthread_mutex_trylock(m) != 0)
        sched_block(LT_LOCK, m, TIMER_NEVER);
    pthread_mutex_unlock(&S.mu);
}

static void tst_munlock(pthread_mutex_t *m)
{
    if (!sched_mine()) {
        pthread_mutex_unlock(m);
        return;
    }
    pthread_mutex_lock(&S.mu);
    pthread_mutex_unlock(m);
    sched_unblock(LT_LOCK, m, 1);
    pthread_mutex_unlock(&S.mu);
}

/* S.mu held, `lock` released by the caller: block on cv until signalled or
 * `until` (virtual); 1 if it timed out. */
static int sched_cond_block(pthread_cond_t *cv, int64_t until)
{
    if (until <= S.now)
        return 1; /* its time has come: it goes on, as a timed wait would */
    sched_block(LT_COND, cv, until);
    return S.t[lt_self].timed_out;
}

static void tst_msleep(pthread_cond_t *cv, pthread_mutex_t *m, int64_t until)
{
    tst_point("wait");
    pthread_mutex_lock(&S.mu);
    pthread_mutex_unlock(m);
    sched_unblock(LT_LOCK, m, 1);
    sched_cond_block(cv, until);
    while (pthread_mutex_trylock(m) != 0)
        sched_block(LT_LOCK, m, TIMER_NEVER);
    pthread_mutex_unlock(&S.mu);
}

static void tst_mwake(pthread_cond_t *cv)
{
    tst_point("signal");
    pthread_mutex_lock(&S.mu);
    sched_unblock(LT_COND, cv, 0);
    pthread_mutex_unlock(&S.mu);
}

/* The shard's lock and its condition variables: the header's own functions
 * outside the scheduler; under it, the lock taken with trylock and the waits
 * as blocked threads of the scheduler. */
static void tst_shard_lock(struct timer_service_shard_ *sh)
{
    if (!sched_mine()) {
        timer_service_lock_real_(sh);
        return;
    }
    tst_point("lock");
    pthread_mutex_lock(&S.mu);
    while (!timer_service_trylock_(sh))
        sched_block(LT_LOCK, sh, TIMER_NEVER);
    pthread_mutex_unlock(&S.mu);
}

static void tst_shard_unlock(struct timer_service_shard_ *sh)
{
    if (!sched_mine()) {
        timer_service_unlock_real_(sh);
        return;
    }
    pthread_mutex_lock(&S.mu);
    timer_service_unlock_real_(sh);
    sched_unblock(LT_LOCK, sh, 1);
    pthread_mutex_unlock(&S.mu);
}

static int tst_shard_sleep(struct timer_service_shard_ *sh, pthread_cond_t *cv, int64_t until)
{
    int timed_out;
    if (!sched_mine())
        return timer_service_sleep_(sh, cv, until);
    tst_point("wait");
    pthread_mutex_lock(&S.mu);
    timer_service_unlock_real_(sh);
    sched_unblock(LT_LOCK, sh, 1);
    timed_out = sched_cond_block(cv, until);
    while (!timer_service_trylock_(sh))
        sched_block(LT_LOCK, sh, TIMER_NEVER);
    pthread_mutex_unlock(&S.mu);
    return timed_out ? ETIMEDOUT : 0;
}

static void tst_shard_wake(struct timer_service_shard_ *sh, pthread_cond_t *cv, int all)
{
    if (!sched_mine()) {
        timer_service_signal_(sh, cv, all != 0);
        return;
    }
    tst_point("signal");
    pthread_mutex_lock(&S.mu);
    sched_unblock(LT_COND, cv, all);
    pthread_mutex_unlock(&S.mu);
}


/* The manual clock of the policy tests and the scheduler's virtual one. */
static int64_t manual_now = -1;

static int64_t tst_clock(void)
{
    if (sched_mine())
        return S.now;
    return manual_now >= 0 ? manual_now : timer_service_now();
}

static void *lt_main(void *arg)
{
    int me = (int)(intptr_t)arg;
    void *r;
    pthread_mutex_lock(&S.mu);
    lt_self = me;
    tst_tid = 200 + me;
    while (S.cur != me)
        pthread_cond_wait(&S.turn, &S.mu);
    pthread_mutex_unlock(&S.mu);
    r = S.t[me].fn(S.t[me].arg);
    pthread_mutex_lock(&S.mu);
    S.t[me].state = LT_DONE;
    sched_unblock(LT_JOIN, &S.t[me], 1);
    S.cur = sched_pick(-1);
    if (S.cur < 0)
        S.finished = 1;
    pthread_cond_broadcast(&S.turn);
    pthread_mutex_unlock(&S.mu);
    return r;
}

/* A new logical thread (S.mu held), runnable. */
static int lt_spawn_locked(pthread_t *th, void *(*fn)(void *), void *arg)
{
    int id = S.n++;
    CHECK(id < LT_MAX, "more than %d threads", LT_MAX);
    memset(&S.t[id], 0, sizeof S.t[id]);
    S.t[id].state = LT_RUN;
    S.t[id].fn = fn;
    S.t[id].arg = arg;
    CHECK(pthread_create(&S.t[id].th, NULL, lt_main, (void *)(intptr_t)id) == 0, "pthread_create");
    if (th != NULL)
        *th = S.t[id].th;
    return id;
}

struct trampoline {
    void *(*fn)(void *);
    void *arg;
};

static void *real_thread_main(void *arg)
{
    struct trampoline tr = *(struct trampoline *)arg;
    free(arg);
    tst_tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
    return tr.fn(tr.arg);
}

static int tst_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    struct trampoline *tr;
    if (sched_mine()) {
        pthread_mutex_lock(&S.mu);
        lt_spawn_locked(th, fn, arg);
        pthread_mutex_unlock(&S.mu);
        tst_point("spawn");
        return 0;
    }
    tr = malloc(sizeof *tr);
    if (tr == NULL)
        return ENOMEM;
    tr->fn = fn;
    tr->arg = arg;
    return pthread_create(th, NULL, real_thread_main, tr);
}

static int tst_thread_join(pthread_t th)
{
    int i;
    if (sched_mine()) {
        pthread_mutex_lock(&S.mu);
        for (i = 0; i < S.n && !pthread_equal(S.t[i].th, th); i++)
            ;
        CHECK(i < S.n, "join of a thread the scheduler does not know");
        while (S.t[i].state != LT_DONE)
            sched_block(LT_JOIN, &S.t[i], TIMER_NEVER);
        pthread_mutex_unlock(&S.mu);
        return 0; /* sched_run joins every logical thread at the end */
    }
    return pthread_join(th, NULL);
}

/* Run fn as logical thread 0 under the schedule `prefix`, until every
 * logical thread is done; the trace is left in S. */
static void sched_run(const char *scenario, void *(*fn)(void *), const unsigned char *prefix,
                      int nprefix)
{
    int i;
    pthread_mutex_lock(&S.mu);
    S.on = 1;
    S.scenario = scenario;
    S.n = 0;
    S.finished = 0;
    S.now = 0;
    S.prefix = prefix;
    S.nprefix = nprefix;
    S.ntrace = 0;
    S.steps = 0;
    S.cur = 0;
    lt_spawn_locked(NULL, fn, NULL);
    pthread_cond_broadcast(&S.turn);
    while (!S.finished)
        pthread_cond_wait(&S.turn, &S.mu);
    pthread_mutex_unlock(&S.mu);
    for (i = 0; i < S.n; i++)
        pthread_join(S.t[i].th, NULL);
    S.on = 0;
}

/* ---- the model check ----------------------------------------------------------
 * Each shard's steps, logged under its lock (so in the order they took
 * effect), replayed against a single-threaded model: per timer pending or
 * not, its expiry and arrival, period and policy, shut down or not, the
 * re-arms a runner took out for waiting cancel_syncs and not yet reported;
 * per shard the timer whose callback runs and the thread running it. */
struct slot;
struct tt {
    struct timer_service_timer t; /* what the service sees */
    uint32_t id;                  /* the model's key: new on every timer_init */
    struct slot *slot;
    long refs;                    /* atomic: the ledger's references (part stress) */
    int in_cb;                    /* atomic: its callbacks running now */
    int quiet;                    /* atomic: retired, or cancel_sync returned: none may start */
    int runs, started, finished;  /* the scenarios' counts (atomic) */
    int64_t ran_at[8];
    struct timer_service_fire last;
};
static uint32_t next_id = 1; /* atomic */

struct ev {
    uint32_t id;
    unsigned char step, tid, policy;
    int64_t a, b, c;
};
struct evlog {
    struct ev *e;
    size_t n, cap;
};
#define MAX_SHARDS 4
static struct evlog logs[MAX_SHARDS];
static int logging;

static void tst_step(unsigned shard, int step, struct timer_service_timer *t, int64_t a, int64_t b,
                     int64_t c)
{
    struct evlog *l = &logs[shard];
    struct ev *e;
    if (!logging)
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->e = realloc(l->e, l->cap * sizeof *l->e);
        CHECK(l->e != NULL, "out of memory");
    }
    e = &l->e[l->n++];
    /* a callback may have freed its timer before DONE: only the address then */
    e->id = step == TIMER_SERVICE_STEP_DONE_ ? 0 : ((struct tt *)t->arg)->id;
    e->step = (unsigned char)step;
    e->tid = (unsigned char)tst_tid;
    e->policy = step == TIMER_SERVICE_STEP_ARM_ ? t->policy : 0;
    e->a = a;
    e->b = b;
    e->c = c;
}

struct mt {
    unsigned char pending, shut, policy;
    int64_t expire, period;
    uint64_t arrival;
    int owed; /* re-arms its runner took out for waiters, not yet reported */
};

/* The model's pending timers of one shard, as a list of ids: a fire is
 * checked against each of them (the pool is small, the ids many). */
struct pendset {
    uint32_t *id;
    size_t n;
};

static void pend_set(struct pendset *p, struct mt *m, uint32_t id, int on)
{
    size_t i;
    if (m[id].pending == on)
        return;
    m[id].pending = (unsigned char)on;
    if (on) {
        p->id[p->n++] = id;
        return;
    }
    for (i = 0; p->id[i] != id; i++)
        ;
    p->id[i] = p->id[--p->n];
}

/* The next tick, written from the policies' definitions: -1 when it would
 * be at or past TIMER_NEVER (the series ends). */
static int64_t model_next(int policy, int64_t expire, int64_t now, int64_t period)
{
    int64_t k = 1, base = expire;
    if (policy == TIMER_SERVICE_SKIP)
        k = (now - expire) / period + 1;
    else if (policy == TIMER_SERVICE_DELAY)
        base = now;
    if (base > TIMER_NEVER - 1 || k > (TIMER_NEVER - 1 - base) / period)
        return -1;
    return base + k * period;
}

static long model_check(unsigned shard, uint32_t nids)
{
    struct evlog *l = &logs[shard];
    struct mt *m = calloc((size_t)nids + 1, sizeof *m);
    struct pendset pend;
    unsigned char removed[256] = {0}, took[256] = {0};
    uint64_t waited[256] = {0}, run_seq = 0, running_seq = 0;
    uint32_t running = 0, i;
    int runner = -1;
    uint64_t arrivals = 0;
    int64_t last_now = INT64_MIN;
    size_t k, j;
    long fires = 0;

    pend.id = malloc(((size_t)nids + 1) * sizeof *pend.id);
    pend.n = 0;
    CHECK(m != NULL && pend.id != NULL, "out of memory");
    for (k = 0; k < l->n; k++) {
        const struct ev *e = &l->e[k];
        struct mt *x = &m[e->id];
        int tid = e->tid;
        CHECK(e->id <= nids, "model: step %zu names timer %u of %u", k, e->id, nids);
        switch (e->step) {
        case TIMER_SERVICE_STEP_ARM_:
            if (e->c == -ENOMEM)    /* a heap that could not grow: an idle timer, unchanged */
                CHECK(!x->pending && !x->shut, "model: shard %u step %zu: -ENOMEM", shard, k);
            else if (x->shut)
                CHECK(e->c == -ESHUTDOWN,
                      "model: shard %u step %zu: arm of a shut-down timer gave %lld", shard, k,
                      (long long)e->c);
            else
                CHECK(e->c == x->pending,
                      "model: shard %u step %zu: arm gave %lld, the timer was %s", shard, k,
                      (long long)e->c, x->pending ? "pending" : "not pending");
            if (e->c >= 0) {
                pend_set(&pend, m, e->id, 1);
                x->expire = e->a;
                x->period = e->b;
                x->policy = e->policy;
                x->arrival = ++arrivals;
            }
            break;
        case TIMER_SERVICE_STEP_KEEP_:
            CHECK(x->pending && !x->shut && x->period == 0 && x->expire == e->a && e->c == 1,
                  "model: shard %u step %zu: arm_range kept a timer that was not pending "
                  "one-shot at %lld",
                  shard, k, (long long)e->a);
            break;
        case TIMER_SERVICE_STEP_SHUT_:
            x->shut = 1;
            break;
        case TIMER_SERVICE_STEP_REMOVE_:
            CHECK(x->pending && x->expire == e->a,
                  "model: shard %u step %zu: cancel removed a timer not pending at %lld", shard, k,
                  (long long)e->a);
            pend_set(&pend, m, e->id, 0);
            removed[tid] = 1;
            break;
        case TIMER_SERVICE_STEP_HANDOFF_:
            CHECK(running == e->id && runner == tid && x->pending && x->expire == e->a,
                  "model: shard %u step %zu: a hand-off of a timer whose callback did not just "
                  "return, or not pending at %lld",
                  shard, k, (long long)e->a);
            pend_set(&pend, m, e->id, 0);
            x->owed++;
            break;
        case TIMER_SERVICE_STEP_WAIT_:
            CHECK(running == e->id && runner != tid,
                  "model: shard %u step %zu: cancel_sync waits for a callback that does not "
                  "run on another thread",
                  shard, k);
            waited[tid] = running_seq;
            break;
        case TIMER_SERVICE_STEP_TAKE_:
            CHECK(waited[tid] != 0 && running_seq != waited[tid],
                  "model: shard %u step %zu: cancel_sync woke before the callback it waited "
                  "for returned",
                  shard, k);
            if (e->a) {
                CHECK(x->owed > 0, "model: shard %u step %zu: a hand-off reported twice", shard,
                      k);
                x->owed--;
                took[tid] = 1;
            }
            break;
        case TIMER_SERVICE_STEP_CANCEL_:
            if (e->c == -EDEADLK) {
                CHECK(e->a > 0 && running == e->id && runner == tid && !removed[tid] &&
                          !waited[tid],
                      "model: shard %u step %zu: -EDEADLK not from the timer's own callback",
                      shard, k);
            } else {
                int stopped = (int)(e->c & 1), run = (e->c & 2) != 0;
                CHECK(e->c >= 0 && e->c <= 3, "model: shard %u step %zu: cancel gave %lld", shard,
                      k, (long long)e->c);
                CHECK(stopped == (removed[tid] || took[tid]),
                      "model: shard %u step %zu: cancel said stopped %d, but it %s", shard, k,
                      stopped, removed[tid] || took[tid] ? "took one out" : "took none out");
                CHECK(waited[tid] || !x->pending,
                      "model: shard %u step %zu: the timer is pending after a cancel", shard, k);
                if (e->a > 0)
                    CHECK(run == (waited[tid] != 0),
                          "model: shard %u step %zu: cancel_sync said running %d, waited %d",
                          shard, k, run, waited[tid] != 0);
                else
                    CHECK(run == (running == e->id && runner != tid),
                          "model: shard %u step %zu: cancel said running %d; its callback %s on "
                          "another thread",
                          shard, k, run,
                          running == e->id && runner != tid ? "runs" : "does not run");
            }
            removed[tid] = took[tid] = 0;
            waited[tid] = 0;
            break;
        case TIMER_SERVICE_STEP_FIRE_:
            CHECK(running == 0, "model: shard %u step %zu: a callback starts while another runs",
                  shard, k);
            CHECK(x->pending && x->expire == e->a && e->a <= e->b,
                  "model: shard %u step %zu: fired a timer that was not due (pending %d, "
                  "expire %lld, fired for %lld at %lld)",
                  shard, k, x->pending, (long long)x->expire, (long long)e->a, (long long)e->b);
            CHECK(e->b >= last_now, "model: shard %u step %zu: time went back", shard, k);
            last_now = e->b;
            for (j = 0; j < pend.n; j++) { /* the first in pop order: expiry, then arrival */
                i = pend.id[j];
                CHECK(m[i].expire > x->expire ||
                          (m[i].expire == x->expire && m[i].arrival >= x->arrival),
                      "model: shard %u step %zu: timer %u fired before timer %u, due at %lld",
                      shard, k, e->id, i, (long long)m[i].expire);
            }
            if (x->period == 0) {
                CHECK(e->c == -1, "model: shard %u step %zu: a one-shot timer re-armed", shard, k);
                pend_set(&pend, m, e->id, 0);
            } else {
                int64_t want = model_next(x->policy, e->a, e->b, x->period);
                CHECK(e->c == want,
                      "model: shard %u step %zu: policy %d re-armed at %lld, not %lld", shard, k,
                      x->policy, (long long)e->c, (long long)want);
                pend_set(&pend, m, e->id, want >= 0);
                x->expire = want;
                x->arrival = ++arrivals;
            }
            running = e->id;
            runner = tid;
            running_seq = ++run_seq;
            fires++;
            break;
        case TIMER_SERVICE_STEP_DONE_:
            CHECK(running != 0, "model: shard %u step %zu: a callback returned that did not run",
                  shard, k);
            running = 0;
            runner = -1;
            running_seq = 0;
            break;
        default:
            die("model: unknown step %d", e->step);
        }
    }
    CHECK(running == 0, "model: shard %u: a callback still runs at the end", shard);
    for (i = 0; i <= nids; i++)
        CHECK(m[i].owed == 0, "model: shard %u: timer %u: %d hand-offs never reported", shard, i,
              m[i].owed);
    free(pend.id);
    free(m);
    return fires;
}

static void logs_reset(void)
{
    int i;
    for (i = 0; i < MAX_SHARDS; i++)
        logs[i].n = 0;
}

static long model_check_all(unsigned shards)
{
    long fires = 0;
    unsigned i;
    for (i = 0; i < shards; i++)
        fires += model_check(i, __atomic_load_n(&next_id, __ATOMIC_RELAXED));
    return fires;
}

/* A new timer in x's memory: a new id for the model, the service's part zeroed. */
static void tt_init(struct tt *x, unsigned shard, timer_service_fn *fn)
{
    x->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    timer_service_timer_init(&x->t, shard, fn, x);
}

static struct tt *tt_new(unsigned shard, timer_service_fn *fn)
{
    struct tt *x = calloc(1, sizeof *x);
    CHECK(x != NULL, "out of memory");
    tt_init(x, shard, fn);
    return x;
}

/* ---- part api: every call, no thread ------------------------------------------ */

/* What the next callback does besides counting (part api's checks from inside). */
static void (*api_action)(struct tt *x, const struct timer_service_fire *f);
static struct svc *api_s;
static int api_runs;

static void count_cb(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    struct tt *x = arg;
    void (*action)(struct tt *, const struct timer_service_fire *) = api_action;
    (void)t;
    x->runs++;
    x->ran_at[x->runs < 8 ? x->runs : 7] = f->now;
    x->last = *f;
    api_runs++;
    api_action = NULL;
    if (action != NULL)
        action(x, f);
}

static unsigned wake_calls_seen[MAX_SHARDS];
static void count_wake(void *arg, unsigned shard)
{
    CHECK(arg == (void *)wake_calls_seen, "wake: wrong argument");
    wake_calls_seen[shard]++;
}

static int left_seen;
static struct tt *left_last;
static void count_left(struct timer_service_timer *t, void *arg)
{
    struct tt *x = arg;
    CHECK(t == &x->t && !timer_service_pending(t), "left: not the timer's arg, or still pending");
    left_seen++;
    left_last = x;
}

static bool res_is(struct timer_service_result r, int error, bool stopped, bool running)
{
    return r.error == error && r.stopped == stopped && r.running == running;
}

/* From inside the callback: the deadline is the re-arm's, not the past run's. */
static int64_t api_seen_next;
static void action_read_next(struct tt *x, const struct timer_service_fire *f)
{
    (void)x;
    (void)f;
    api_seen_next = s_shard_next(api_s, 0);
}

/* From inside the callback: the sync cancels are refused, and the result
 * says neither stopped nor running. */
static struct timer_service_result api_r1, api_r2, api_r3;
static void action_sync_itself(struct tt *x, const struct timer_service_fire *f)
{
    (void)f;
    api_r1 = s_cancel_sync(api_s, &x->t);
    api_r2 = s_shutdown_sync(api_s, &x->t);
}

/* The callback frees its timer, and a new timer takes the same memory (here
 * the very bytes, so the address is sure to repeat): the new one is not
 * "running", so cancel says so and cancel_sync from this thread works. */
static int api_r_arm;
static void action_reinit(struct tt *x, const struct timer_service_fire *f)
{
    tt_init(x, 0, count_cb);    /* "free" x; a new timer at its address */
    api_r_arm = s_arm(api_s, &x->t, f->now + 50);
    api_r1 = s_cancel(api_s, &x->t);
    api_r_arm += s_arm(api_s, &x->t, f->now + 60);
    api_r2 = s_cancel_sync(api_s, &x->t);
    api_r3 = s_cancel_sync(api_s, &x->t);
}

/* A fork()ed child: every call that takes a lock says -ECHILD (the parent
 * keeps the threads and whatever the locks protected), and destroy frees
 * the child's copy. Exits 0 when all of that holds. */
static void api_child(struct svc *s, struct tt *a)
{
    struct timer_service_stats st;
    int ok = s_arm(s, &a->t, 5000) == -ECHILD &&
             s_arm_periodic(s, &a->t, 5000, 10, TIMER_SERVICE_SKIP) == -ECHILD &&
             s_cancel(s, &a->t).error == -ECHILD && !s_cancel(s, &a->t).stopped &&
             s_cancel_sync(s, &a->t).error == -ECHILD && s_run(s, 0, 9999, 1) == -ECHILD &&
             s_start(s) == -ECHILD && s_stats(s, 0, &st) == -ECHILD &&
             s_reserve(s, 0, 10) == -ECHILD;
    s_stop(s);
    ok = ok && s_destroy(s) == 0;
    _exit(ok ? 0 : 1);
}

static void part_api(void)
{
    int kind;
    for (kind = 0; kind < 3; kind++) {
        struct svc s, s2;
        struct timer_service_options o;
        struct timer_service_timer zero;
        struct tt *a = tt_new(0, count_cb), *b = tt_new(1, count_cb), *c = tt_new(2, count_cb);
        struct timer_service_stats st;
        struct timer_service_result r;
        const int64_t big = INT64_MAX;
        pid_t child;
        int status, i;

        memset(&o, 0, sizeof o);
        memset(&zero, 0, sizeof zero);
        memset(wake_calls_seen, 0, sizeof wake_calls_seen);
        o.shards = 2;
        o.now = 100;
        o.wake = count_wake;
        o.wake_arg = wake_calls_seen;
        o.left = count_left;
        CHECK(s_init(&s, kind, &o) == 0, "init");
        api_s = &s;
        api_runs = 0;
        /* bad input: an error, and nothing changes; an error is never "stopped" */
        CHECK(s_arm(&s, (struct timer_service_timer *)NULL, 5) == -EINVAL, "arm(NULL)");
        CHECK(s_arm(&s, &zero, 5) == -EINVAL, "arm of a timer with no callback");
        CHECK(s_arm(&s, &c->t, 5) == -EINVAL, "arm of a timer whose shard is not the service's");
        CHECK(s_arm(&s, &a->t, -1) == -EINVAL, "arm at -1");
        CHECK(s_arm_range(&s, &a->t, -1, 5) == -EINVAL && s_arm_range(&s, &a->t, 6, 5) == -EINVAL,
              "arm_range: earliest < 0, latest < earliest");
        CHECK(s_arm_periodic(&s, &a->t, 5, 0, TIMER_SERVICE_SKIP) == -EINVAL, "period 0");
        CHECK(s_arm_periodic(&s, &a->t, 5, -3, TIMER_SERVICE_SKIP) == -EINVAL, "period < 0");
        CHECK(s_arm_periodic(&s, &a->t, 5, 3, (enum timer_service_policy)7) == -EINVAL,
              "unknown policy");
        CHECK(s_arm_periodic(&s, &a->t, -1, 3, TIMER_SERVICE_SKIP) == -EINVAL, "first < 0");
        CHECK(s_arm_periodic(&s, &a->t, TIMER_NEVER, 3, TIMER_SERVICE_SKIP) == -EINVAL,
              "first at TIMER_NEVER: it could never run");
        CHECK(s_arm_periodic(&s, &a->t, 0, big, TIMER_SERVICE_SKIP) == -EINVAL,
              "first 0, period INT64_MAX: its second tick is TIMER_NEVER");
        CHECK(s_arm_periodic(&s, &a->t, big - 10, 10, TIMER_SERVICE_BURST) == -EINVAL,
              "a second tick at TIMER_NEVER");
        r = s_cancel(&s, &c->t);
        CHECK(res_is(r, -EINVAL, false, false) && res_is(s_cancel_sync(&s, &c->t), -EINVAL, 0, 0),
              "cancel of a timer of another shard: %d", RES(r));
        CHECK(res_is(s_cancel(&s, (struct timer_service_timer *)NULL), -EINVAL, false, false) &&
                  res_is(s_shutdown_sync(&s, &zero), -EINVAL, false, false),
              "cancel(NULL), shutdown_sync of a timer with no callback");
        CHECK(s_run(&s, 2, 1000, 1) == -EINVAL && s_run(&s, 0, 1000, 0) == -EINVAL,
              "run: bad shard, budget");
        CHECK(!timer_service_pending(&a->t) && s_next(&s) == TIMER_NEVER,
              "the errors changed something");
        CHECK(wake_calls_seen[0] + wake_calls_seen[1] == 0, "an error called wake");

        /* arm: 0, then 1 when it moves a pending timer; the wake callback
         * exactly when a shard's deadline becomes earlier */
        CHECK(s_arm(&s, &a->t, 500) == 0 && wake_calls_seen[0] == 1,
              "arm into an empty shard wakes once");
        CHECK(s_arm(&s, &a->t, 600) == 1 && wake_calls_seen[0] == 1, "a later move does not wake");
        CHECK(s_shard_next(&s, 0) == 600, "the deadline follows a moved earliest timer: %lld",
              (long long)s_shard_next(&s, 0));
        CHECK(s_arm(&s, &a->t, 400) == 1 && wake_calls_seen[0] == 2, "an earlier move wakes");
        CHECK(s_arm(&s, &b->t, 450) == 0 && wake_calls_seen[1] == 1, "shard 1's wake");
        CHECK(s_next(&s) == 400 && s_shard_next(&s, 1) == 450, "next_expiry");
        CHECK(timer_service_pending(&a->t) && svc_wheel_pending(&b->t), "pending");
        CHECK(s_run(&s, 0, 399, 10) == 0 && a->runs == 0, "nothing is due before its time");
        CHECK(s_run(&s, 0, 400, 10) == 1 && a->runs == 1 && a->ran_at[1] == 400 &&
                  a->last.next == TIMER_NEVER && a->last.period == 0,
              "run: a one-shot run ends its arm (f->next TIMER_NEVER)");
        CHECK(!timer_service_pending(&a->t) && s_shard_next(&s, 0) == TIMER_NEVER, "after the run");
        CHECK(res_is(s_cancel(&s, &a->t), 0, false, false) &&
                  res_is(s_cancel_sync(&s, &a->t), 0, false, false),
              "cancel of an idle timer");
        r = s_cancel(&s, &b->t);
        CHECK(res_is(r, 0, true, false) && s_shard_next(&s, 1) == TIMER_NEVER,
              "cancel of a pending timer (%d), and its shard's deadline", RES(r));
        CHECK(s_arm(&s, &b->t, 450) == 0 && wake_calls_seen[1] == 2,
              "arm again after a cancel wakes again");
        CHECK(res_is(s_cancel_sync(&s, &b->t), 0, true, false), "cancel_sync of a pending timer");

        /* arm_range: idle, at latest; inside the window nothing changes (no
         * move, no wake); outside it, moved to latest */
        CHECK(s_arm_range(&s, &a->t, 1000, 1100) == 0 && s_shard_next(&s, 0) == 1100,
              "arm_range of an idle timer: at latest");
        i = (int)wake_calls_seen[0];
        CHECK(s_arm_range(&s, &a->t, 1050, 1200) == 1 && s_shard_next(&s, 0) == 1100 &&
                  (int)wake_calls_seen[0] == i,
              "arm_range within the window: 1, nothing changed");
        CHECK(s_arm_range(&s, &a->t, 1150, 1300) == 1 && s_shard_next(&s, 0) == 1300,
              "arm_range outside the window: moved to latest");
        /* arm and arm_range on a periodic timer make it one-shot, and say
         * that they took out its pending run */
        CHECK(s_arm_periodic(&s, &a->t, 2000, 100, TIMER_SERVICE_SKIP) == 1, "arm_periodic");
        CHECK(s_arm_range(&s, &a->t, 1900, 2100) == 1 && s_shard_next(&s, 0) == 2100,
              "arm_range of a periodic timer within the window: one-shot at latest");
        CHECK(s_run(&s, 0, 2100, 10) == 1 && a->last.period == 0 && a->last.next == TIMER_NEVER &&
                  !timer_service_pending(&a->t),
              "arm_range made it one-shot");
        CHECK(s_arm_periodic(&s, &a->t, 3000, 10, TIMER_SERVICE_BURST) == 0 &&
                  s_arm(&s, &a->t, 3005) == 1,
              "arm of a pending periodic timer: 1");
        CHECK(s_run(&s, 0, 4000, 10) == 1 && a->last.period == 0 && a->last.next == TIMER_NEVER &&
                  !timer_service_pending(&a->t),
              "arm made a periodic timer one-shot");

        /* the end of a series reaches its callback: f->next TIMER_NEVER */
        CHECK(s_arm_periodic(&s, &a->t, big - 25, 10, TIMER_SERVICE_BURST) == 0, "arm_periodic");
        i = a->runs;
        CHECK(s_run(&s, 0, big - 15, 10) == 2 && a->last.next == big - 5 &&
                  s_shard_next(&s, 0) == big - 5,
              "a series near its end: %d runs, next %lld", a->runs - i, (long long)a->last.next);
        CHECK(s_run(&s, 0, big - 1, 10) == 1 && a->last.expire == big - 5 &&
                  a->last.next == TIMER_NEVER && !timer_service_pending(&a->t) &&
                  s_shard_next(&s, 0) == TIMER_NEVER,
              "the last tick of a series: next %lld, pending %d", (long long)a->last.next,
              timer_service_pending(&a->t));
        CHECK(s_arm_periodic(&s, &a->t, big - 20, 10, TIMER_SERVICE_BURST) == 0 &&
                  s_run(&s, 0, big - 1, 10) == 2 && a->last.expire == big - 10 &&
                  a->last.next == TIMER_NEVER && !timer_service_pending(&a->t),
              "a series whose next tick is TIMER_NEVER ends: next %lld, pending %d",
              (long long)a->last.next, timer_service_pending(&a->t));
        CHECK(s_arm_periodic(&s, &a->t, big - 25, 10, TIMER_SERVICE_SKIP) == 0 &&
                  s_run(&s, 0, big - 1, 10) == 1 && a->last.missed == 2 &&
                  a->last.next == TIMER_NEVER && !timer_service_pending(&a->t),
              "skip: the last tick of a series");

        /* the deadline is the re-arm's while a periodic callback runs */
        CHECK(s_arm_periodic(&s, &a->t, 5000, 100, TIMER_SERVICE_SKIP) == 0, "arm_periodic");
        api_action = action_read_next;
        CHECK(s_run(&s, 0, 5000, 10) == 1 && api_seen_next == 5100 && a->last.next == 5100,
              "the deadline seen from the periodic callback: %lld, not 5100",
              (long long)api_seen_next);
        /* from its own callback: the sync cancels refuse, flags false */
        api_action = action_sync_itself;
        CHECK(s_run(&s, 0, 5100, 10) == 1, "run");
        CHECK(res_is(api_r1, -EDEADLK, false, false) && res_is(api_r2, -EDEADLK, false, false),
              "cancel_sync, shutdown_sync from the callback: %d, %d", RES(api_r1), RES(api_r2));
        CHECK(s_shard_next(&s, 0) == 5200 && res_is(s_cancel(&s, &a->t), 0, true, false),
              "-EDEADLK changed nothing");
        /* a timer freed by its callback, and a new one at its address */
        CHECK(s_arm(&s, &a->t, 6000) == 0, "arm");
        api_action = action_reinit;
        CHECK(s_run(&s, 0, 6000, 10) == 1 && api_r_arm == 0, "run: the new timer's arms");
        CHECK(res_is(api_r1, 0, true, false) && res_is(api_r2, 0, true, false) &&
                  res_is(api_r3, 0, false, false) && !timer_service_pending(&a->t),
              "a new timer at a freed one's address is not running: cancel %d, cancel_sync %d",
              RES(api_r1), RES(api_r2));

        /* shutdown: arms refused, cancels have nothing to do; init revives */
        CHECK(s_arm(&s, &a->t, 700) == 0 && res_is(s_shutdown_sync(&s, &a->t), 0, true, false),
              "shutdown");
        CHECK(s_arm(&s, &a->t, 700) == -ESHUTDOWN &&
                  s_arm_periodic(&s, &a->t, 7, 7, TIMER_SERVICE_BURST) == -ESHUTDOWN &&
                  s_arm_range(&s, &a->t, 7, 7) == -ESHUTDOWN,
              "arm after shutdown");
        CHECK(res_is(s_cancel(&s, &a->t), 0, false, false) &&
                  res_is(s_cancel_sync(&s, &a->t), 0, false, false) &&
                  res_is(s_shutdown_sync(&s, &a->t), 0, false, false),
              "cancels after shutdown");
        CHECK(!timer_service_pending(&a->t) && s_run(&s, 0, TIMER_NEVER, 10) == 0,
              "a shut-down timer runs");
        tt_init(a, 0, count_cb);
        CHECK(s_arm(&s, &a->t, 800) == 0, "timer_init revives a shut-down timer");

        /* budget: at most that many callbacks, the rest stay due */
        CHECK(s_arm(&s, &b->t, 801) == 0, "arm");
        api_runs = 0;
        CHECK(s_run(&s, 0, 900, 1) == 1 && s_run(&s, 1, 900, 1) == 1 && api_runs == 2, "budget 1");
        CHECK(s_reserve(&s, 0, 100) == 0 && s_reserve(&s, 2, 100) == -EINVAL, "reserve");
        CHECK(s_stats(&s, 0, &st) == 0 && st.callbacks == (uint64_t)a->runs && st.wakeups == 0 &&
                  st.wake_calls == wake_calls_seen[0] && st.handoffs == 0,
              "stats: %llu callbacks, %llu wake calls", (unsigned long long)st.callbacks,
              (unsigned long long)st.wake_calls);

        /* a fork()ed child: -ECHILD; the parent's service goes on */
        CHECK(s_arm(&s, &a->t, 5000) == 0, "arm");
        fflush(stdout);
        child = fork();
        CHECK(child >= 0, "fork");
        if (child == 0)
            api_child(&s, a);
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "in a fork()ed child, a call other than -ECHILD, or destroy failed (status %d)",
              status);
        CHECK(res_is(s_cancel(&s, &a->t), 0, true, false), "the parent's service after the fork");

        /* start: the shards' threads take run() over; stop gives it back */
        CHECK(s_start(&s) == 0 && s_start(&s) == -EBUSY && s_run(&s, 0, 1000, 1) == -EBUSY,
              "start");
        s_stop(&s);
        CHECK(s_run(&s, 0, 1000, 1) == 0, "run after stop");
        /* destroy: each pending timer handed back to opt->left, idle */
        CHECK(s_arm(&s, &a->t, TIMER_NEVER) == 0 && s_arm(&s, &b->t, 5000) == 0, "arm");
        left_seen = 0;
        CHECK(s_destroy(&s) == 2 && left_seen == 2, "destroy handed back %d timers, not 2",
              left_seen);
        CHECK(!timer_service_pending(&a->t) && !timer_service_pending(&b->t),
              "destroy leaves a timer pending");

        /* a program's loop with a slack: an arm earlier than the published
         * deadline by less than 0.1% of its distance (at most opt->slack)
         * does not call wake; the loop runs it at the deadline it had */
        memset(&o, 0, sizeof o);
        memset(wake_calls_seen, 0, sizeof wake_calls_seen);
        o.wake = count_wake;
        o.wake_arg = wake_calls_seen;
        o.slack = 1000;
        tt_init(a, 0, count_cb);
        tt_init(b, 0, count_cb);
        CHECK(s_init(&s2, kind, &o) == 0, "init");
        CHECK(s_run(&s2, 0, 0, 1) == 0, "run at 0");
        CHECK(s_arm(&s2, &a->t, 1000000) == 0 && wake_calls_seen[0] == 1, "arm: wake");
        CHECK(s_arm(&s2, &b->t, 999500) == 0 && wake_calls_seen[0] == 1 &&
                  s_shard_next(&s2, 0) == 999500,
              "an arm 500 earlier, within the slack (976): no wake, the deadline published");
        CHECK(s_arm(&s2, &b->t, 900000) == 1 && wake_calls_seen[0] == 2,
              "an arm 100,000 earlier, past the slack: wake");
        CHECK(s_destroy(&s2) == 2, "destroy: 2 pending");

        free(a);
        free(b);
        free(c);
        printf("  api, %s: errors change nothing and are never stopped or running; arm, "
               "arm_range, cancel, cancel_sync, shutdown_sync, run, budget, wake calls, the end of "
               "a series, the deadline in a periodic callback, a new timer at a freed one's "
               "address, start/stop, fork, destroy's hand-back, a loop's slack\n",
               kind_name[kind]);
    }
}

/* ---- part policies: a manual clock that jumps an hour -------------------------- */

#define MS INT64_C(1000000)
static int64_t pol_expect_expire;
static long pol_calls;
static int64_t pol_period, pol_now;
static int pol_policy;

static void policy_cb(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    int64_t want_next = model_next(pol_policy, f->expire, f->now, f->period);
    (void)t;
    (void)arg;
    CHECK(f->expire == pol_expect_expire, "policy %d: callback %ld for %lld, not %lld", pol_policy,
          pol_calls, (long long)f->expire, (long long)pol_expect_expire);
    CHECK(f->now == pol_now && f->period == pol_period, "policy %d: now or period", pol_policy);
    CHECK(f->missed == (uint64_t)((f->now - f->expire) / f->period),
          "policy %d: missed %llu at %lld for %lld", pol_policy, (unsigned long long)f->missed,
          (long long)f->now, (long long)f->expire);
    CHECK(f->next == (want_next < 0 ? TIMER_NEVER : want_next), "policy %d: next %lld, not %lld",
          pol_policy, (long long)f->next, (long long)want_next);
    pol_calls++;
    pol_expect_expire += pol_period; /* burst's next; the others see one callback */
}

static void part_policies(void)
{
    static const char *const names[3] = {"burst", "skip", "delay"};
    int kind, policy;
    for (kind = 0; kind < 3; kind++)
        for (policy = 0; policy < 3; policy++) {
            struct svc s;
            struct tt *x = tt_new(0, policy_cb);
            const int64_t hour = 3600000 * MS, first = 10 * MS;
            int64_t next, want_next;
            long want_calls;
            int n, total = 0;

            CHECK(s_init(&s, kind, NULL) == 0, "init");
            pol_policy = policy;
            pol_period = 10 * MS;
            pol_calls = 0;
            CHECK(s_arm_periodic(&s, &x->t, first, pol_period, (enum timer_service_policy)policy) ==
                      0,
                  "arm");
            pol_now = first;
            pol_expect_expire = first;
            CHECK(s_run(&s, 0, pol_now, INT_MAX) == 1 && pol_calls == 1, "first tick");
            CHECK(s_shard_next(&s, 0) == first + pol_period, "re-armed before the callback");
            /* the clock jumps an hour (and 5 ms): 360,000 ticks are due at once */
            pol_now = first + hour + 5 * MS;
            pol_expect_expire = first + pol_period;
            if (policy == TIMER_SERVICE_BURST) { /* in slices of a budget, every tick */
                while ((n = s_run(&s, 0, pol_now, 100000)) > 0)
                    total += n;
                want_calls = 1 + hour / pol_period;
                want_next = first + hour + pol_period;
            } else {
                total = s_run(&s, 0, pol_now, INT_MAX);
                want_calls = 2;
                want_next =
                    policy == TIMER_SERVICE_SKIP ? first + hour + pol_period : pol_now + pol_period;
            }
            next = s_shard_next(&s, 0);
            CHECK(pol_calls == want_calls && total == want_calls - 1,
                  "policy %s: %ld callbacks, not %ld", names[policy], pol_calls, want_calls);
            CHECK(next == want_next, "policy %s: next tick at %lld, not %lld", names[policy],
                  (long long)next, (long long)want_next);
            CHECK(s_run(&s, 0, pol_now, INT_MAX) == 0, "policy %s: more due after the catch-up",
                  names[policy]);
            CHECK(s_destroy(&s) == 1, "destroy: the series pending");
            free(x);
            if (kind == 0)
                printf("  policy %s, after the clock jumped an hour over 10 ms ticks: %ld "
                       "callback%s, next tick +%lld ms after now (the same on heap and wheel)\n",
                       names[policy], pol_calls - 1, pol_calls == 2 ? "" : "s",
                       (long long)((next - pol_now) / MS));
        }
}

/* ---- part sched: the scenarios ------------------------------------------------- */

/* What the other thread does (op) and what the callback does (cb). */
enum { OP_CANCEL, OP_CANCEL_PERIODIC, OP_CANCEL_SYNC, OP_SHUTDOWN_THEN_ARM, OP_SHUTDOWN };
enum {
    CB_PLAIN,
    CB_SYNC_ITSELF, /* cancel_sync and shutdown_sync of its own timer */
    CB_REARM,       /* arm its own timer 10 on */
    CB_SLEEP,       /* sleep 10 (virtual), and count the ledger */
    CB_REINIT,      /* free its timer; a new one at its address, armed; sleep 10 */
    CB_LONG,        /* sleep 250 */
    CB_JAVA         /* sleep 250, then arm itself 100 on: Java's fixed delay */
};

/* The scenarios' shared state: reset before every schedule. */
static struct {
    struct svc s;
    struct tt *x, *y;
    int kind, loop_mode, op, cb;
    int r2, ra[2], started_at_return, finished_at_return, cb_r1;
    struct timer_service_result r, cr, cb_res1, cb_res2, re1, re3;
    int re2;
    long refs;              /* the ledger of issue 31's input */
    int64_t at_return, seen_next, seen_all;
    pthread_mutex_t loop_mu;
    pthread_cond_t loop_cv;
    int loop_woken, loop_stop;
    uint64_t loop_wakeups;
    pthread_t th[4];
} V;

static void main_sleep_until(int64_t when) /* a logical thread sleeps on the virtual clock */
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    CHECK(sched_mine(), "main_sleep_until outside the scheduler");
    tst_mlock(&mu);
    while (tst_clock() < when)
        tst_msleep(&cv, &mu, when);
    tst_munlock(&mu);
}

static void sched_cb(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    struct tt *x = arg;
    CHECK(__atomic_fetch_add(&x->in_cb, 1, __ATOMIC_SEQ_CST) == 0,
          "two callbacks of one timer at once");
    CHECK(!__atomic_load_n(&x->quiet, __ATOMIC_SEQ_CST), "a callback after cancel_sync returned");
    x->ran_at[x->started < 8 ? x->started : 7] = f->now;
    x->started++;
    tst_point("callback");
    if (x == V.x && V.cb == CB_SYNC_ITSELF) { /* refused: they would wait for themselves */
        V.cb_res1 = s_cancel_sync(&V.s, t);
        V.cb_res2 = s_shutdown_sync(&V.s, t);
    } else if (x == V.x && V.cb == CB_REARM) {
        V.cb_r1 = s_arm(&V.s, t, f->now + 10);
    } else if (x == V.x && V.cb == CB_SLEEP) {
        if (f->next == TIMER_NEVER)
            V.refs--; /* this run ends its arm */
        main_sleep_until(f->now + 10);
    } else if (x == V.x && V.cb == CB_REINIT) {
        V.cb = CB_PLAIN;
        tt_init(x, 0, sched_cb); /* x "freed"; a new timer at its address */
        V.cb_r1 = s_arm(&V.s, t, f->now + 50);
        main_sleep_until(f->now + 10);
    } else if (x == V.x && (V.cb == CB_LONG || V.cb == CB_JAVA)) {
        main_sleep_until(f->now + 250);
        if (V.cb == CB_JAVA)
            V.cb_r1 = s_arm(&V.s, t, tst_clock() + 100);
    }
    tst_point("callback");
    x->finished++;
    __atomic_fetch_sub(&x->in_cb, 1, __ATOMIC_SEQ_CST);
}

/* Another logical thread runs fn(arg); this one waits until it is done. */
static void in_thread(void *(*fn)(void *), void *arg)
{
    tst_thread_start(&V.th[0], fn, arg);
    tst_thread_join(V.th[0]);
}

static void *canceller(void *arg)
{
    (void)arg;
    main_sleep_until(10); /* it wakes at the fire's time: the two race */
    if (V.op == OP_CANCEL || V.op == OP_CANCEL_PERIODIC)
        V.r = s_cancel(&V.s, &V.x->t);
    else if (V.op == OP_CANCEL_SYNC)
        V.r = s_cancel_sync(&V.s, &V.x->t);
    else
        V.r = s_shutdown_sync(&V.s, &V.x->t);
    V.started_at_return = V.x->started;
    V.finished_at_return = V.x->finished;
    if (V.op >= OP_CANCEL_SYNC)
        __atomic_store_n(&V.x->quiet, 1, __ATOMIC_SEQ_CST);
    if (V.op == OP_SHUTDOWN_THEN_ARM)
        V.r2 = s_arm(&V.s, &V.x->t, 20);
    return NULL;
}

/* The program's loop of the loop-mode scenarios: a flag and a condition
 * variable stand for an eventfd. */
static void loop_wake(void *arg, unsigned shard)
{
    (void)arg;
    (void)shard;
    tst_mlock(&V.loop_mu);
    V.loop_woken = 1;
    tst_mwake(&V.loop_cv);
    tst_munlock(&V.loop_mu);
}

static void *event_loop(void *arg)
{
    (void)arg;
    for (;;) {
        int64_t next;
        s_run(&V.s, 0, tst_clock(), INT_MAX);
        next = s_next(&V.s);
        tst_mlock(&V.loop_mu);
        if (V.loop_stop) {
            tst_munlock(&V.loop_mu);
            return NULL;
        }
        if (!V.loop_woken && next > tst_clock()) {
            tst_msleep(&V.loop_cv, &V.loop_mu, next);
            V.loop_wakeups++;
        }
        V.loop_woken = 0;
        tst_munlock(&V.loop_mu);
    }
}

static uint64_t scenario_stat(int which)
{
    struct timer_service_stats st;
    uint64_t n;
    s_stats(&V.s, 0, &st);
    if (which == 1)
        return st.wake_signals;
    if (!V.loop_mode)
        return st.wakeups;
    tst_mlock(&V.loop_mu);
    n = V.loop_wakeups;
    tst_munlock(&V.loop_mu);
    return n;
}

static void scenario_begin(void)
{
    struct timer_service_options o;
    memset(&o, 0, sizeof o);
    if (V.loop_mode)
        o.wake = loop_wake;
    CHECK(s_init(&V.s, V.kind, &o) == 0, "init");
    V.x = tt_new(0, sched_cb);
    V.y = tt_new(0, sched_cb);
    if (V.loop_mode)
        tst_thread_start(&V.th[3], event_loop, NULL);
    else
        CHECK(s_start(&V.s) == 0, "start");
}

static void scenario_end(void)
{
    struct timer_service_stats st;
    if (V.loop_mode) {
        tst_mlock(&V.loop_mu);
        V.loop_stop = 1;
        tst_mwake(&V.loop_cv);
        tst_munlock(&V.loop_mu);
        tst_thread_join(V.th[3]);
    }
    CHECK(s_stats(&V.s, 0, &st) == 0 && st.wakeups_for_nothing == 0, "%llu wake-ups for nothing",
          (unsigned long long)st.wakeups_for_nothing);
    s_destroy(&V.s);
    free(V.x);
    free(V.y);
}

/* Another thread's cancel, cancel_sync or shutdown_sync racing the fire at 10. */
static void *scenario_cancel(void *arg)
{
    (void)arg;
    scenario_begin();
    if (V.op == OP_CANCEL_PERIODIC)
        CHECK(s_arm_periodic(&V.s, &V.x->t, 10, 10, TIMER_SERVICE_SKIP) == 0, "arm");
    else
        CHECK(s_arm(&V.s, &V.x->t, 10) == 0, "arm");
    in_thread(canceller, NULL);
    main_sleep_until(100);   /* whatever may still run, runs */
    CHECK(V.r.error == 0, "the cancel failed: %d", V.r.error);
    if (V.op == OP_CANCEL) { /* one-shot: exactly one of the two */
        CHECK(!V.r.stopped == (V.x->started == 1),
              "cancel gave %d and the callback ran %d times", RES(V.r), V.x->started);
        CHECK(!V.r.running || V.started_at_return == 1, "running, but no callback had started");
        CHECK(V.r.stopped || V.r.running || V.finished_at_return == 1,
              "nothing (idle), but the callback had not returned");
    } else if (V.op == OP_CANCEL_PERIODIC) { /* the running one finishes; no later run */
        CHECK(V.r.stopped && V.x->started == V.started_at_return,
              "cancel of a periodic timer gave %d; %d runs at its return, %d in all", RES(V.r),
              V.started_at_return, V.x->started);
        CHECK(!V.r.running || V.started_at_return == 1, "running, but no callback had started");
    } else { /* sync: nothing running at the return, nothing after */
        CHECK(V.started_at_return == V.finished_at_return && V.x->started == V.started_at_return,
              "%s gave %d: %d callbacks started at its return, %d finished, %d in all",
              V.op == OP_CANCEL_SYNC ? "cancel_sync" : "shutdown_sync", RES(V.r),
              V.started_at_return, V.finished_at_return, V.x->started);
        CHECK(V.op != OP_SHUTDOWN_THEN_ARM || V.r2 == -ESHUTDOWN, "arm after shutdown_sync gave %d",
              V.r2);
        CHECK(V.cb != CB_REARM || V.x->started == 0 || V.cb_r1 == 0 || V.cb_r1 == -ESHUTDOWN,
              "the callback's re-arm gave %d", V.cb_r1);
        /* every arm that made it pending ended once: the arm at 10 and the
         * callback's re-arm (if it returned 0) against the callback's one
         * run and the one stopped */
        CHECK(1 + (V.cb == CB_REARM && V.x->started == 1 && V.cb_r1 == 0) ==
                  V.x->started + V.r.stopped,
              "%d arms made it pending; %d callbacks and %d stopped", 1 + (V.cb_r1 == 0),
              V.x->started, V.r.stopped);
    }
    scenario_end();
    return NULL;
}

static void *early_armer(void *arg)
{
    V.ra[0] = s_arm(&V.s, &V.y->t, (int64_t)(intptr_t)arg);
    return NULL;
}

/* An arm earlier than the deadline the owner sleeps until, at every point
 * of its going to sleep: the timer runs at its time, not at the far one. */
static void *scenario_early_arm(void *arg)
{
    (void)arg;
    scenario_begin();
    CHECK(s_arm(&V.s, &V.x->t, 1000) == 0, "arm");
    in_thread(early_armer, (void *)(intptr_t)10);
    main_sleep_until(2000);
    CHECK(V.ra[0] == 0 && V.y->started == 1 && V.y->ran_at[0] == 10,
          "the earlier timer ran %d times, at %lld (a lost wake-up runs it at 1000)",
          V.y->started, (long long)V.y->ran_at[0]);
    CHECK(V.x->started == 1 && V.x->ran_at[0] == 1000, "the far timer");
    scenario_end();
    return NULL;
}

/* cancel_sync and shutdown_sync from the timer's own callback fail at once
 * (never deadlock: the scheduler would say so), and change nothing; another
 * thread's cancel_sync meanwhile waits for the callback. */
static void *scenario_own_callback(void *arg)
{
    (void)arg;
    scenario_begin();
    CHECK(s_arm_periodic(&V.s, &V.x->t, 10, 10, TIMER_SERVICE_BURST) == 0, "arm");
    in_thread(canceller, NULL);
    main_sleep_until(100);
    CHECK(V.x->started == 0 || (V.cb_res1.error == -EDEADLK && V.cb_res2.error == -EDEADLK &&
                                !V.cb_res1.stopped && !V.cb_res1.running && !V.cb_res2.stopped),
          "from its own callback: cancel_sync %d, shutdown_sync %d", RES(V.cb_res1),
          RES(V.cb_res2));
    CHECK(V.r.error == 0 && V.started_at_return == V.finished_at_return &&
              V.x->started == V.started_at_return,
          "cancel_sync from another thread gave %d; %d started, %d finished at its return, %d in "
          "all",
          RES(V.r), V.started_at_return, V.finished_at_return, V.x->started);
    scenario_end();
    return NULL;
}

/* Wake-ups counted on a clock that jumps: an idle hour, an hour with only a
 * far timer, then an earlier arm from another thread. */
static void *scenario_wakeups_counted(void *arg)
{
    const int64_t hour = 3600 * 1000 * MS;
    uint64_t w[4];
    (void)arg;
    scenario_begin();
    main_sleep_until(hour);
    w[0] = scenario_stat(0);
    CHECK(s_arm(&V.s, &V.x->t, 3 * hour) == 0, "arm");
    main_sleep_until(hour + 1);
    w[1] = scenario_stat(0);
    main_sleep_until(2 * hour);
    w[2] = scenario_stat(0);
    in_thread(early_armer, (void *)(intptr_t)(2 * hour + 5));
    main_sleep_until(2 * hour + 10);
    w[3] = scenario_stat(0);
    CHECK(w[0] == 0, "%llu wake-ups in an idle hour", (unsigned long long)w[0]);
    CHECK(w[1] <= 1 && w[2] == w[1],
          "a far timer: %llu wake-ups for its arm, %llu in the hour after",
          (unsigned long long)w[1], (unsigned long long)(w[2] - w[1]));
    CHECK(V.y->started == 1 && V.y->ran_at[0] == 2 * hour + 5 && w[3] - w[2] <= 2,
          "an earlier arm: ran %d times at %lld, %llu wake-ups", V.y->started,
          (long long)V.y->ran_at[0], (unsigned long long)(w[3] - w[2]));
    CHECK(s_cancel(&V.s, &V.x->t).stopped, "cancel the far timer");
    if (S.ntrace == 0 || S.nprefix == 0)
        printf("  wake-ups on a clock that jumps (%s, %s): %llu in an idle hour, %llu for a far "
               "timer's arm, %llu in the hour it waits, %llu for an earlier arm and its run\n",
               kind_name[V.kind], V.loop_mode ? "a program's loop" : "the service's thread",
               (unsigned long long)w[0], (unsigned long long)w[1],
               (unsigned long long)(w[2] - w[1]), (unsigned long long)(w[3] - w[2]));
    scenario_end();
    return NULL;
}

/* The service's thread is signalled only for an arm earlier than the time
 * it wakes by itself, by more than the slack: an arm after the earliest
 * timer was cancelled (the deadline went up, the thread still sleeps until
 * the old one) does not signal, nor one within the slack of a far wake-up;
 * both run on time, the second within its slack. */
static void *scenario_wake_later(void *arg)
{
    const int64_t hour = 3600 * 1000 * MS;
    uint64_t sig[4];
    (void)arg;
    scenario_begin();
    CHECK(s_arm(&V.s, &V.x->t, 1000) == 0, "arm");
    main_sleep_until(500);
    sig[0] = scenario_stat(1);
    CHECK(s_cancel(&V.s, &V.x->t).stopped, "cancel");
    CHECK(s_arm(&V.s, &V.y->t, 1500) == 0, "arm");
    sig[1] = scenario_stat(1);
    main_sleep_until(2000);
    CHECK(V.y->started == 1 && V.y->ran_at[0] == 1500, "the later arm ran at %lld",
          (long long)V.y->ran_at[0]);
    CHECK(s_arm(&V.s, &V.x->t, 3 * hour) == 0, "arm");
    main_sleep_until(hour);
    sig[2] = scenario_stat(1);
    CHECK(s_arm(&V.s, &V.y->t, 3 * hour - MS) == 0, "arm"); /* 1 ms early: in a 100 ms slack */
    sig[3] = scenario_stat(1);
    main_sleep_until(3 * hour + 1);
    CHECK(sig[1] == sig[0], "an arm after the sleeper's own wake-up: %llu signals",
          (unsigned long long)(sig[1] - sig[0]));
    CHECK(sig[3] == sig[2], "an arm within the slack of a far wake-up: %llu signals",
          (unsigned long long)(sig[3] - sig[2]));
    CHECK(V.y->started == 2 && V.y->ran_at[1] == 3 * hour && V.x->started == 1 &&
              V.x->ran_at[0] == 3 * hour,
          "the arm within the slack ran at %lld, %lld ns late", (long long)V.y->ran_at[1],
          (long long)(V.y->ran_at[1] - (3 * hour - MS)));
    scenario_end();
    return NULL;
}

/* Issue 31's input, counted by a ledger of what the callers see: a one-shot
 * timer's callback runs (and sleeps); thread A arms it (0: pending again);
 * thread C calls cancel_sync, which waits; thread B arms it again. Each arm
 * that returned 0 takes a reference, the callback gives one back when its
 * run ends its arm, each stopped result gives one back. */
/* who 0 is A (arms at 12), 1 is C (cancel_sync at 13), 2 is B (arms at 14) */
static void *issue_thread(void *arg)
{
    int who = (int)(intptr_t)arg;
    main_sleep_until(12 + who);
    if (who == 1) {
        V.cr = s_cancel_sync(&V.s, &V.x->t);
        V.at_return = tst_clock();
        if (V.cr.stopped)
            V.refs--;
    } else {
        V.ra[who / 2] = s_arm(&V.s, &V.x->t, 15 + who / 2);
        if (V.ra[who / 2] == 0)
            V.refs++;
    }
    return NULL;
}

static void *scenario_issue31(void *arg)
{
    struct timer_service_result r;
    int i;
    (void)arg;
    scenario_begin();
    CHECK(s_arm(&V.s, &V.x->t, 10) == 0, "arm");
    V.refs = 1;
    for (i = 0; i < 3; i++)
        tst_thread_start(&V.th[i], issue_thread, (void *)(intptr_t)i);
    for (i = 0; i < 3; i++)
        tst_thread_join(V.th[i]);
    main_sleep_until(100);
    r = s_cancel_sync(&V.s, &V.x->t);
    CHECK(r.error == 0, "cancel_sync");
    if (r.stopped)
        V.refs--;
    CHECK(V.refs == 0,
          "the ledger is off by %ld: A's arm %d, C's cancel_sync %d (at %lld), B's arm %d, %d "
          "callbacks, the last cancel_sync %d",
          V.refs, V.ra[0], RES(V.cr), (long long)V.at_return, V.ra[1], V.x->started, RES(r));
    if (S.nprefix == 0) { /* the issue's order, exactly */
        CHECK(V.ra[0] == 0 && V.ra[1] == 1 && V.cr.running && V.cr.stopped &&
                  V.at_return == 20 && V.x->started == 1,
              "issue 31's order: A %d, C %d at %lld, B %d, %d runs", V.ra[0], RES(V.cr),
              (long long)V.at_return, V.ra[1], V.x->started);
        if (V.kind == 0 && !V.loop_mode)
            printf("  issue 31's input: A's arm 0, C's cancel_sync running + stopped at the "
                   "callback's return, B's arm 1 (A's run still pending): 2 references taken, 1 "
                   "callback + 1 stopped\n");
    }
    scenario_end();
    return NULL;
}

/* "Running" names a run: the callback frees its timer and a new one comes to
 * the same address (armed from the callback), while the callback still runs.
 * Another thread's cancel of the new timer says stopped, not running, and its
 * cancel_sync returns at once (at 12, not when the old callback returns). */
static void *reinit_d(void *arg)
{
    (void)arg;
    main_sleep_until(12);
    V.re1 = s_cancel(&V.s, &V.x->t);
    V.re2 = s_arm(&V.s, &V.x->t, 60);
    V.re3 = s_cancel_sync(&V.s, &V.x->t);
    V.at_return = tst_clock();
    return NULL;
}

static void *scenario_reinit(void *arg)
{
    (void)arg;
    scenario_begin();
    CHECK(s_arm(&V.s, &V.x->t, 10) == 0, "arm");
    in_thread(reinit_d, NULL);
    main_sleep_until(100);
    CHECK(V.x->started == 1 && V.cb_r1 == 0, "the old timer's one run, the new one's arm %d",
          V.cb_r1);
    CHECK(res_is(V.re1, 0, true, false) && V.re2 == 0 && res_is(V.re3, 0, true, false) &&
              V.at_return == 12,
          "the new timer at the old one's address: cancel %d, arm %d, cancel_sync %d at %lld",
          RES(V.re1), V.re2, RES(V.re3), (long long)V.at_return);
    scenario_end();
    return NULL;
}

/* The deadline a lock-free reader sees while a periodic callback runs: the
 * next tick's, armed before the callback. */
static void *reader(void *arg)
{
    (void)arg;
    main_sleep_until(15);
    V.seen_next = s_shard_next(&V.s, 0);
    V.seen_all = s_next(&V.s);
    return NULL;
}

static void *scenario_deadline(void *arg)
{
    (void)arg;
    scenario_begin();
    CHECK(s_arm_periodic(&V.s, &V.x->t, 10, 100, TIMER_SERVICE_SKIP) == 0, "arm");
    in_thread(reader, NULL);
    V.r = s_cancel_sync(&V.s, &V.x->t);
    CHECK(V.seen_next == 110 && V.seen_all == 110,
          "the deadline read while the periodic callback ran: %lld, not 110",
          (long long)V.seen_next);
    CHECK(V.r.stopped && V.x->started == 1, "cancel_sync: %d, %d runs", RES(V.r), V.x->started);
    scenario_end();
    return NULL;
}

/* DELAY: a period from when the run was found due (libuv's repeat), so a
 * 250 callback of a 100 period starts every 250; Java's fixed delay (a
 * period from the callback's return) is a one-shot timer that arms itself
 * at the callback's end: every 350. */
static void *scenario_delay(void *arg)
{
    (void)arg;
    scenario_begin();
    V.cb = CB_LONG;
    CHECK(s_arm_periodic(&V.s, &V.x->t, 10, 100, TIMER_SERVICE_DELAY) == 0, "arm");
    main_sleep_until(600);
    V.r = s_cancel_sync(&V.s, &V.x->t); /* the third run: 510 to 760 */
    CHECK(V.x->started == 3 && V.x->ran_at[0] == 10 && V.x->ran_at[1] == 260 &&
              V.x->ran_at[2] == 510 && V.r.running && V.r.stopped,
          "DELAY: %d runs at %lld, %lld, %lld; cancel_sync %d", V.x->started,
          (long long)V.x->ran_at[0], (long long)V.x->ran_at[1], (long long)V.x->ran_at[2],
          RES(V.r));
    V.x->started = 0;
    V.cb = CB_JAVA;
    CHECK(s_arm(&V.s, &V.x->t, 1000) == 0, "arm");
    main_sleep_until(1800);
    V.r = s_cancel_sync(&V.s, &V.x->t); /* the third run: 1700 to 1950, then its re-arm */
    CHECK(V.x->started == 3 && V.x->ran_at[0] == 1000 && V.x->ran_at[1] == 1350 &&
              V.x->ran_at[2] == 1700 && V.r.running && V.r.stopped,
          "Java's fixed delay: %d runs at %lld, %lld, %lld; cancel_sync %d", V.x->started,
          (long long)V.x->ran_at[0], (long long)V.x->ran_at[1], (long long)V.x->ran_at[2],
          RES(V.r));
    scenario_end();
    return NULL;
}

struct scenario {
    const char *name;
    void *(*fn)(void *);
    int op, cb;
    int modes; /* 1: the service's threads, 2: a program's loop */
};

/* Prefixes still to run, as a stack of byte strings each followed by its length. */
struct prefixes {
    unsigned char *b;
    size_t n, cap;
};

static void prefix_push(struct prefixes *p, const unsigned char *choice, int len)
{
    if (p->n + (size_t)len + sizeof len > p->cap) {
        p->cap = 2 * (p->cap + (size_t)len + sizeof len);
        p->b = realloc(p->b, p->cap);
        CHECK(p->b != NULL, "out of memory");
    }
    memcpy(p->b + p->n, choice, (size_t)len);
    memcpy(p->b + p->n + len, &len, sizeof len);
    p->n += (size_t)len + sizeof len;
}

static int prefix_pop(struct prefixes *p, unsigned char *choice)
{
    int len;
    memcpy(&len, p->b + p->n - sizeof len, sizeof len);
    p->n -= (size_t)len + sizeof len;
    memcpy(choice, p->b + p->n, (size_t)len);
    return len;
}

/* Every schedule with up to `bound` preemptions, each checked by the
 * scenario and by the model: run one, then stack the runs that differ from
 * it at one choice beyond its prefix. */
static long explore(const struct scenario *sc, int kind, int loop_mode, int bound)
{
    static unsigned char prefix[TRACE_MAX], next[TRACE_MAX];
    struct prefixes todo = {NULL, 0, 0};
    long runs = 0;
    char name[128];
    snprintf(name, sizeof name, "%s (%s, %s)", sc->name, kind_name[kind],
             loop_mode ? "loop" : "threads");
    prefix_push(&todo, prefix, 0);
    while (todo.n > 0) {
        int n = prefix_pop(&todo, prefix), i, alt, preempt = 0;
        memset(&V, 0, sizeof V);
        pthread_mutex_init(&V.loop_mu, NULL);
        pthread_cond_init(&V.loop_cv, NULL);
        V.kind = kind;
        V.loop_mode = loop_mode;
        V.op = sc->op;
        V.cb = sc->cb;
        logs_reset();
        logging = 1;
        sched_run(name, sc->fn, prefix, n);
        logging = 0;
        model_check_all(1);
        runs++;
        for (i = 0; i < S.ntrace; i++) {
            const struct choice *c = &S.trace[i];
            int me_runnable = c->me != 255 && (c->set & (1u << c->me));
            next[i] = c->pick;
            if (i >= n)
                for (alt = 0; alt < LT_MAX; alt++)
                    if (alt != c->pick && (c->set & (1u << alt)) &&
                        preempt + (me_runnable && alt != c->me) <= bound) {
                        next[i] = (unsigned char)alt;
                        prefix_push(&todo, next, i + 1);
                        next[i] = c->pick;
                    }
            preempt += me_runnable && c->pick != c->me;
        }
        pthread_mutex_destroy(&V.loop_mu);
        pthread_cond_destroy(&V.loop_cv);
    }
    S.scenario = NULL;
    free(todo.b);
    return runs;
}

static void part_sched(int bound)
{
    static const struct scenario scenarios[] = {
        {"cancel against fire", scenario_cancel, OP_CANCEL, CB_PLAIN, 3},
        {"cancel_sync against fire", scenario_cancel, OP_CANCEL_SYNC, CB_PLAIN, 3},
        {"shutdown_sync against fire, then arm", scenario_cancel, OP_SHUTDOWN_THEN_ARM, CB_PLAIN,
         3},
        {"shutdown_sync against a callback that re-arms", scenario_cancel, OP_SHUTDOWN, CB_REARM,
         3},
        {"cancel of a running periodic timer", scenario_cancel, OP_CANCEL_PERIODIC, CB_PLAIN, 3},
        {"an earlier arm while the owner goes to sleep", scenario_early_arm, 0, CB_PLAIN, 3},
        {"cancel_sync from the callback itself", scenario_own_callback, OP_CANCEL_SYNC,
         CB_SYNC_ITSELF, 3},
        {"wake-ups: idle, far timers, an earlier arm", scenario_wakeups_counted, 0, CB_PLAIN, 3},
        {"wake-ups: an arm after the sleeper's own wake-up, one within the slack",
         scenario_wake_later, 0, CB_PLAIN, 1},
        {"issue 31's input: arms and a cancel_sync around a running callback", scenario_issue31,
         0, CB_SLEEP, 3},
        {"a timer freed by its callback, a new one at its address", scenario_reinit, 0, CB_REINIT,
         3},
        {"the deadline read while a periodic callback runs", scenario_deadline, 0, CB_SLEEP, 3},
        {"DELAY against Java's fixed delay", scenario_delay, 0, CB_LONG, 3},
    };
    size_t i;
    int loop_mode, kind;
    for (i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        long runs[2] = {0, 0};
        for (loop_mode = 0; loop_mode < 2; loop_mode++)
            for (kind = 0; kind < 3; kind++) /* one kind each; every kind from bound 3 */
                if ((kind == (int)(i % 3) || bound >= 3) && (scenarios[i].modes >> loop_mode & 1))
                    runs[loop_mode] += explore(&scenarios[i], kind, loop_mode, bound);
        printf("  sched, %s: %ld schedules with the service's threads, %ld with a program's loop "
               "(up to %d preemptions)\n",
               scenarios[i].name, runs[0], runs[1], bound);
    }
}

/* ---- part stress: the ledger ------------------------------------------------- */

/* A timer that workers share: any of them may arm or cancel it at once
 * (each under the slot's read lock); only a retirement, which frees it,
 * takes the write lock. Callbacks take the read lock with trylock only, so
 * that a retirement waiting in shutdown_sync never waits on them. */
struct slot {
    pthread_rwlock_t rw;
    struct tt *x;
};

static struct {
    struct svc s;
    struct slot *slots;
    int nslots;
    unsigned shards;
    uint64_t seed;
    /* what the callers saw (atomic): arms that returned 0 and 1, callbacks
     * that ended an arm, stopped results, results that said running,
     * timers retired, handed back by destroy */
    long armed, moved, ended, stopped, running, retired, left, periodic;
    /* the loops of MODE loop, one per shard */
    pthread_mutex_t mu[MAX_SHARDS];
    pthread_cond_t cv[MAX_SHARDS];
    int woken[MAX_SHARDS], stop;
    pthread_t drivers[MAX_SHARDS];
} X;

static void ledger_add(struct tt *x, long d, long *counter)
{
    __atomic_fetch_add(&x->refs, d, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* An arm's result: a reference when it made the timer pending. */
static void ledger_armed(struct tt *x, int r, const char *what)
{
    CHECK(r == 0 || r == 1, "timer %u: %s gave %d", x->id, what, r);
    if (r == 0)
        ledger_add(x, 1, &X.armed);
    else
        __atomic_fetch_add(&X.moved, 1, __ATOMIC_RELAXED);
}

/* A cancel's result: a reference back when it stopped a run. */
static void ledger_cancelled(struct tt *x, struct timer_service_result r)
{
    CHECK(r.error == 0, "timer %u: a cancel gave %d", x->id, r.error);
    if (r.stopped)
        ledger_add(x, -1, &X.stopped);
    if (r.running)
        __atomic_fetch_add(&X.running, 1, __ATOMIC_RELAXED);
}

static __thread uint64_t cb_rng;

static void stress_cb(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    struct tt *x = arg;
    struct slot *sl = x->slot;
    CHECK(__atomic_fetch_add(&x->in_cb, 1, __ATOMIC_SEQ_CST) == 0,
          "two callbacks of timer %u at once", x->id);
    CHECK(!__atomic_load_n(&x->quiet, __ATOMIC_SEQ_CST), "timer %u: a callback after it retired",
          x->id);
    CHECK(f->now >= f->expire && timer_service_now() >= f->expire, "timer %u ran early", x->id);
    if (f->next == TIMER_NEVER)
        ledger_add(x, -1, &X.ended); /* this run ends its arm */
    if (cb_rng == 0)
        cb_rng = X.seed ^ (uint64_t)tst_tid * UINT64_C(0x9E3779B97F4A7C15);
    if (rnd(&cb_rng) % 4 == 0) { /* a longer callback: cancels find it running */
        volatile int spin;
        for (spin = 0; spin < 3000; spin++)
            ;
    }
    if (rnd(&cb_rng) % 4 == 0 && pthread_rwlock_tryrdlock(&sl->rw) == 0) {
        if (sl->x == x) {
            struct timer_service_result r;
            int64_t d;
            switch (rnd(&cb_rng) % 3) {
            case 0:
                d = (int64_t)(rnd(&cb_rng) % 50000);
                ledger_armed(x, s_arm(&X.s, t, timer_service_now() + d), "arm from the callback");
                break;
            case 1:
                r = s_cancel(&X.s, t);
                CHECK(!r.running, "cancel from its own callback says running");
                ledger_cancelled(x, r);
                break;
            default:
                r = s_cancel_sync(&X.s, t);
                CHECK(r.error == -EDEADLK && !r.stopped && !r.running,
                      "cancel_sync from its own callback gave %d", RES(r));
                break;
            }
        }
        pthread_rwlock_unlock(&sl->rw);
    }
    __atomic_fetch_sub(&x->in_cb, 1, __ATOMIC_SEQ_CST);
}

static struct tt *slot_new_timer(struct slot *sl, uint64_t *rng)
{
    struct tt *x = tt_new((unsigned)(rnd(rng) % X.shards), stress_cb);
    x->slot = sl;
    return x;
}

/* The slot's timer is the caller's alone (write lock): shut it down; then
 * every arm it ever made pending has ended, and it is freed at once (ASan
 * reports any later touch). */
static void ledger_retire(struct slot *sl, uint64_t *rng)
{
    struct tt *x = sl->x;
    ledger_cancelled(x, s_shutdown_sync(&X.s, &x->t));
    __atomic_store_n(&x->quiet, 1, __ATOMIC_SEQ_CST);
    CHECK(__atomic_load_n(&x->in_cb, __ATOMIC_SEQ_CST) == 0 && !timer_service_pending(&x->t),
          "timer %u: running or pending after shutdown_sync", x->id);
    CHECK(s_arm(&X.s, &x->t, 1) == -ESHUTDOWN && !s_cancel(&X.s, &x->t).stopped,
          "timer %u: after shutdown_sync", x->id);
    CHECK(__atomic_load_n(&x->refs, __ATOMIC_SEQ_CST) == 0,
          "timer %u retired with %ld references: an arm ended %s", x->id, x->refs,
          x->refs > 0 ? "never (a stopped folded into another, or lost)" : "twice");
    free(x);
    __atomic_fetch_add(&X.retired, 1, __ATOMIC_RELAXED);
    sl->x = rng != NULL ? slot_new_timer(sl, rng) : NULL;
}

static void ledger_op(struct slot *sl, uint64_t *rng)
{
    struct tt *x = sl->x;
    int64_t now = timer_service_now(), d = rnd(rng) % 4 == 0 ? 0 : (int64_t)(rnd(rng) % 100000);
    int op = (int)(rnd(rng) % 100);
    if (op < 40) { /* a quarter due at once, the rest within 100 us */
        ledger_armed(x, s_arm(&X.s, &x->t, now + d), "arm");
    } else if (op < 48) {
        ledger_armed(x, s_arm_range(&X.s, &x->t, now + d, now + d + 20000), "arm_range");
    } else if (op < 52) {
        int64_t period = 20000 + (int64_t)(rnd(rng) % 100000);
        ledger_armed(x,
                     s_arm_periodic(&X.s, &x->t, now + period, period,
                                    (enum timer_service_policy)(rnd(rng) % 3)),
                     "arm_periodic");
        __atomic_fetch_add(&X.periodic, 1, __ATOMIC_RELAXED);
    } else if (op < 76) {
        ledger_cancelled(x, s_cancel(&X.s, &x->t));
    } else {
        ledger_cancelled(x, s_cancel_sync(&X.s, &x->t));
    }
}

struct worker {
    pthread_t th;
    uint64_t rng;
    long ops;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    long i;
    tst_tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
    for (i = 0; i < w->ops; i++) {
        struct slot *sl = &X.slots[rnd(&w->rng) % (uint64_t)X.nslots];
        if (rnd(&w->rng) % 64 == 0) {
            CHECK(pthread_rwlock_wrlock(&sl->rw) == 0, "wrlock");
            ledger_retire(sl, &w->rng);
        } else {
            CHECK(pthread_rwlock_rdlock(&sl->rw) == 0, "rdlock");
            ledger_op(sl, &w->rng);
        }
        pthread_rwlock_unlock(&sl->rw);
        if (rnd(&w->rng) % 2 == 0) { /* a pause: timers come due between the calls */
            volatile int spin;
            for (spin = 0; spin < 2000; spin++)
                ;
        }
    }
    return NULL;
}

/* MODE loop: a loop per shard sleeps until its shard's deadline, woken by
 * the wake callback (a flag and a condition variable for an eventfd). */
static void driver_wake(void *arg, unsigned shard)
{
    (void)arg;
    pthread_mutex_lock(&X.mu[shard]);
    X.woken[shard] = 1;
    pthread_cond_signal(&X.cv[shard]);
    pthread_mutex_unlock(&X.mu[shard]);
}

static void *driver_main(void *arg)
{
    unsigned shard = (unsigned)(uintptr_t)arg;
    tst_tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&X.mu[shard]);
    while (!__atomic_load_n(&X.stop, __ATOMIC_SEQ_CST)) {
        int64_t next;
        pthread_mutex_unlock(&X.mu[shard]);
        CHECK(s_run(&X.s, shard, timer_service_now(), 64) >= 0, "run");
        next = s_shard_next(&X.s, shard);
        pthread_mutex_lock(&X.mu[shard]);
        if (!X.woken[shard] && !__atomic_load_n(&X.stop, __ATOMIC_SEQ_CST) &&
            next > timer_service_now()) {
            struct timespec ts;
            ts.tv_sec = (time_t)(next / 1000000000);
            ts.tv_nsec = (long)(next % 1000000000);
            pthread_cond_timedwait(&X.cv[shard], &X.mu[shard], &ts);
        }
        X.woken[shard] = 0;
    }
    pthread_mutex_unlock(&X.mu[shard]);
    return NULL;
}

/* destroy hands back what is still pending: the reference goes back. */
static void stress_left(struct timer_service_timer *t, void *arg)
{
    struct tt *x = arg;
    CHECK(t == &x->t && !timer_service_pending(t), "left: not idle");
    ledger_add(x, -1, &X.left);
}

static void stress_one(int kind, unsigned shards, int workers, long ops, int loop_mode)
{
    struct timer_service_options o;
    struct worker *w = calloc((size_t)workers, sizeof *w);
    struct timer_service_stats st;
    uint64_t wakeups = 0, for_nothing = 0, callbacks = 0, wake_calls = 0, handoffs = 0, sleeps = 0;
    uint64_t rng = seed * UINT64_C(0x9E3779B97F4A7C15) + 12345;
    long fires;
    size_t left;
    unsigned i;
    int k;

    memset(&o, 0, sizeof o);
    memset(&X, 0, sizeof X);
    o.shards = shards;
    o.left = stress_left;
    if (loop_mode)
        o.wake = driver_wake;
    X.shards = shards;
    X.seed = seed;
    X.nslots = workers + 2; /* few timers: several threads on one at once */
    X.slots = calloc((size_t)X.nslots, sizeof *X.slots);
    CHECK(w != NULL && X.slots != NULL, "out of memory");
    logs_reset();
    logging = 1;
    CHECK(s_init(&X.s, kind, &o) == 0, "init");
    for (k = 0; k < X.nslots; k++) {
        pthread_rwlock_init(&X.slots[k].rw, NULL);
        X.slots[k].x = slot_new_timer(&X.slots[k], &rng);
    }
    if (loop_mode) {
        for (i = 0; i < shards; i++) {
            pthread_condattr_t attr;
            pthread_mutex_init(&X.mu[i], NULL);
            pthread_condattr_init(&attr);
            pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
            pthread_cond_init(&X.cv[i], &attr);
            pthread_condattr_destroy(&attr);
            CHECK(pthread_create(&X.drivers[i], NULL, driver_main, (void *)(uintptr_t)i) == 0,
                  "thread");
        }
    } else {
        CHECK(s_start(&X.s) == 0, "start");
    }
    for (k = 0; k < workers; k++) {
        w[k].rng = (seed + 1) * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)k * 7919 + 1;
        w[k].ops = ops;
        CHECK(pthread_create(&w[k].th, NULL, worker_main, &w[k]) == 0, "thread");
    }
    for (k = 0; k < workers; k++)
        pthread_join(w[k].th, NULL);
    /* the end: half the timers retired, the other half left to destroy */
    for (k = 0; k < X.nslots; k += 2) { /* callbacks may still take a read lock */
        CHECK(pthread_rwlock_wrlock(&X.slots[k].rw) == 0, "wrlock");
        ledger_retire(&X.slots[k], NULL);
        pthread_rwlock_unlock(&X.slots[k].rw);
    }
    s_stop(&X.s); /* no callback from here on: the counts below hold still */
    if (loop_mode) {
        for (i = 0; i < shards; i++) {
            pthread_mutex_lock(&X.mu[i]);
            __atomic_store_n(&X.stop, 1, __ATOMIC_SEQ_CST);
            pthread_cond_signal(&X.cv[i]);
            pthread_mutex_unlock(&X.mu[i]);
        }
        for (i = 0; i < shards; i++) {
            pthread_join(X.drivers[i], NULL);
            pthread_mutex_destroy(&X.mu[i]);
            pthread_cond_destroy(&X.cv[i]);
        }
    }
    for (i = 0; i < shards; i++) {
        s_stats(&X.s, i, &st);
        wakeups += st.wakeups;
        for_nothing += st.wakeups_for_nothing;
        callbacks += st.callbacks;
        wake_calls += st.wake_calls;
        handoffs += st.handoffs;
        sleeps += st.lock_sleeps;
    }
    left = s_destroy(&X.s); /* stops the threads, hands the pending back */
    logging = 0;
    CHECK((long)left == X.left, "destroy said %zu, handed back %ld", left, X.left);
    for (k = 1; k < X.nslots; k += 2) {
        struct tt *x = X.slots[k].x;
        CHECK(x->refs == 0, "timer %u at the end with %ld references", x->id, x->refs);
        free(x);
    }
    for (k = 0; k < X.nslots; k++)
        pthread_rwlock_destroy(&X.slots[k].rw);
    CHECK(X.armed == X.ended + X.stopped + X.left,
          "ledger: %ld arms made a timer pending, %ld ended in a callback + %ld stopped + %ld "
          "handed back",
          X.armed, X.ended, X.stopped, X.left);
    fires = model_check_all(shards);
    CHECK((uint64_t)fires == callbacks, "the model saw %ld fires, the service counted %llu", fires,
          (unsigned long long)callbacks);
    CHECK(for_nothing == 0, "%llu wake-ups for nothing", (unsigned long long)for_nothing);
    printf("  stress, %s, %u shard%s, %d threads x %ld ops on %d shared timers, callbacks run by "
           "%s: %ld arms made one pending = %ld runs that ended one + %ld stopped + %ld handed "
           "back by destroy (%ld arms found one pending; %ld periodic); %ld results said "
           "running, %llu re-arms handed to a waiting cancel_sync; %ld timers retired and "
           "freed; %ld callbacks replayed against the model; %llu lock sleeps; %llu %s\n",
           kind_name[kind], shards, shards == 1 ? "" : "s", workers, ops, X.nslots,
           loop_mode ? "loops" : "the service's threads", X.armed, X.ended, X.stopped, X.left,
           X.moved, X.periodic, X.running, (unsigned long long)handoffs, X.retired, fires,
           (unsigned long long)sleeps, (unsigned long long)(loop_mode ? wake_calls : wakeups),
           loop_mode ? "wake calls" : "wake-ups");
    free(X.slots);
    free(w);
}

/* ---- main ------------------------------------------------------------------- */

static int kind_of(const char *s)
{
    int k;
    for (k = 0; k < 3; k++)
        if (strcmp(s, kind_name[k]) == 0)
            return k;
    die("unknown kind %s", s);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3) {
        fprintf(stderr,
                "usage: service_test SEED api|policies|sched BOUND|stress KINDS SHARDS WORKERS OPS "
                "threads|loop\n");
        return 2;
    }
    seed = argv[1][0] != '\0' ? strtoull(argv[1], NULL, 10)
                              : (uint64_t)timer_service_now() % 1000000007;
    part_name = argv[2];
    tst_tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
    printf("service_test %s: seed %llu (replay: service_test %llu %s ...)\n", part_name,
           (unsigned long long)seed, (unsigned long long)seed, part_name);
    if (strcmp(part_name, "api") == 0) {
        part_api();
    } else if (strcmp(part_name, "policies") == 0) {
        part_policies();
    } else if (strcmp(part_name, "sched") == 0 && argc == 4) {
        part_sched(atoi(argv[3]));
    } else if (strcmp(part_name, "stress") == 0 && argc == 8) {
        char kinds[64], *tok, *save = NULL;
        const char *shard_list = argv[4];
        snprintf(kinds, sizeof kinds, "%s", argv[3]);
        for (tok = strtok_r(kinds, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
            const char *p = shard_list;
            while (*p != '\0') {
                unsigned shards = (unsigned)strtoul(p, (char **)&p, 10);
                CHECK(shards >= 1 && shards <= MAX_SHARDS, "shards: 1 to %d", MAX_SHARDS);
                stress_one(kind_of(tok), shards, atoi(argv[5]), atol(argv[6]),
                           strcmp(argv[7], "loop") == 0);
                if (*p == ',')
                    p++;
            }
        }
    } else {
        fprintf(stderr, "service_test: unknown part or wrong arguments\n");
        return 2;
    }
    printf("PASS service_test %s\n", part_name);
    return 0;
}
