/* epoll_shards.c - an epoll loop per thread, each owning one shard of a timer
 * service, arming timers on the other loops' shards.
 *
 *   epoll_shards [-l LOOPS] [-b BATONS] [-r ROUNDS] [NAME]
 *
 * The way a server with a loop per core keeps its timers (timer_service.h,
 * "the program's loop"): shard i belongs to loop i, which alone runs its
 * callbacks, in the same thread as its sockets. Any thread may arm or cancel
 * any timer; when an arm from another thread makes a shard's deadline
 * earlier, the service calls the wake callback, which writes that loop's
 * eventfd; epoll_wait returns and the loop sleeps again until the new
 * deadline. Nothing else wakes a loop.
 *
 *     static void wake(void *arg, unsigned shard)          // any thread, no lock held
 *     {
 *         uint64_t one = 1;
 *         (void)arg;
 *         if (write(loops[shard].efd, &one, sizeof one) < 0) ...
 *     }
 *
 *     for (;;) {                                           // loop i's thread
 *         svc_run(&svc, i, timer_service_now(), 64);      // its due callbacks, at most 64
 *         int64_t next = svc_shard_next_expiry(&svc, i);  // lock-free
 *         n = epoll_wait(ep, &ev, 1, ms_until(next));     // -1 when TIMER_NEVER
 *         if (n == 1) read(efd, &count, 8);               // an arm made next earlier
 *         ...                                              // and the sockets' events
 *     }
 *
 * The work: BATONS batons go around the ring of loops ROUNDS times. A baton
 * has a timer on every shard; when its timer on shard i fires (on loop i),
 * the callback arms its timer on shard i + 1 one to three ms ahead: an arm
 * from loop i onto loop i + 1's shard. Each baton also has a watchdog timer
 * on one shard, pushed back to a second ahead at every hop, from whichever
 * loop the baton is on, and cancelled when the baton is done: it fires only
 * if a baton was lost. The push is an arm_range with a slack of 100 ms: the
 * watchdog moves only when its expiry is no longer within [now + 1 s, now +
 * 1.1 s], once in about 30 hops, where an arm would move it at every hop (an
 * idle timeout re-armed on activity, the same way).
 *
 * Checks (the last line is "PASS NAME" or "FAIL NAME: reason"; exit 0 or 1):
 * exactly BATONS x ROUNDS x LOOPS hops, each on the thread that owns its
 * shard and none before its expiry; no watchdog fired and every final cancel
 * stopped one. It prints the loops' wake-ups: by an arm's eventfd write, at a
 * deadline, and at a deadline that found nothing due (a pushed-back
 * watchdog's old deadline can cost one; not judged: timing).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "timer_service.h"

TIMER_SERVICE_DEFINE(shard_svc, heap)

#define MAX_LOOPS 16
#define MS INT64_C(1000000)

struct loop {
    pthread_t thread;
    unsigned index;
    int efd, ep;
    long by_arm, at_deadline, for_nothing;  /* this loop's wake-ups */
};

struct baton {
    unsigned id;
    int rounds_left;
    struct timer_service_timer hop[MAX_LOOPS];  /* hop[i] lives on shard i */
    struct timer_service_timer watchdog;
    uint64_t rng;
};

static shard_svc svc;
static struct loop loops[MAX_LOOPS];
static unsigned nloops = 4;
static int stopping;                /* atomic */
static long hops, early, wrong_thread, watchdogs_fired, cancels_missed;    /* atomic */
static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int batons_done;

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* The service calls this when an arm from any thread makes a shard's
 * deadline earlier: that shard's loop wakes and sleeps again until it. */
static void wake(void *arg, unsigned shard)
{
    uint64_t one = 1;
    (void)arg;
    if (write(loops[shard].efd, &one, sizeof one) != (ssize_t)sizeof one)
        perror("eventfd write");
}

/* How long epoll_wait may sleep: until the deadline, rounded up to a whole
 * ms (never early); -1 (for ever) when there is none. */
static int ms_until(int64_t next)
{
    int64_t now = timer_service_now(), ms;
    if (next == TIMER_NEVER)
        return -1;
    if (next <= now)
        return 0;
    ms = (next - now + MS - 1) / MS;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

static void *loop_main(void *arg)
{
    struct loop *l = arg;
    struct epoll_event ev;
    for (;;) {
        int n, ran = shard_svc_run(&svc, l->index, timer_service_now(), 64);
        if (ran < 0) {
            fprintf(stderr, "run: %s\n", strerror(-ran));
            exit(1);
        }
        if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
            return NULL;
        n = epoll_wait(l->ep, &ev, 1, ms_until(shard_svc_shard_next_expiry(&svc, l->index)));
        if (n == 1) {
            uint64_t count;
            if (read(l->efd, &count, sizeof count) != (ssize_t)sizeof count)
                perror("eventfd read");
            l->by_arm++;
        } else if (n == 0) {
            l->at_deadline++;
            if (shard_svc_shard_next_expiry(&svc, l->index) > timer_service_now())
                l->for_nothing++;   /* the deadline it slept until had moved */
        }
    }
}

static void baton_done(void)
{
    pthread_mutex_lock(&done_mu);
    batons_done++;
    pthread_cond_signal(&done_cv);
    pthread_mutex_unlock(&done_mu);
}

/* A baton's timer on shard i fired, on loop i: pass it on to loop i + 1. */
static void hop(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    struct baton *b = arg;
    unsigned i = (unsigned)(t - b->hop), next = (i + 1) % nloops;
    int64_t now = timer_service_now();

    __atomic_fetch_add(&hops, 1, __ATOMIC_RELAXED);
    if (!pthread_equal(pthread_self(), loops[i].thread))
        __atomic_fetch_add(&wrong_thread, 1, __ATOMIC_RELAXED);
    if (now < f->expire)
        __atomic_fetch_add(&early, 1, __ATOMIC_RELAXED);
    if (next == 0 && --b->rounds_left == 0) {   /* around the ring ROUNDS times: done */
        if (!shard_svc_cancel(&svc, &b->watchdog).stopped)
            __atomic_fetch_add(&cancels_missed, 1, __ATOMIC_RELAXED);
        baton_done();
        return;
    }
    /* pushed back to 1 to 1.1 s ahead: moved only when it would go off sooner */
    shard_svc_arm_range(&svc, &b->watchdog, now + 1000 * MS, now + 1100 * MS);
    shard_svc_arm(&svc, &b->hop[next], now + MS + (int64_t)(next_random(&b->rng) % (2 * MS)));
}

static void watchdog(struct timer_service_timer *t, void *arg, const struct timer_service_fire *f)
{
    (void)t;
    (void)arg;
    (void)f;
    __atomic_fetch_add(&watchdogs_fired, 1, __ATOMIC_RELAXED);
    baton_done();
}

/* A cancel's result that found nothing to do. */
static int idle(struct timer_service_result r)
{
    return r.error == 0 && !r.stopped && !r.running;
}

static long parse(const char *s, long min, long max, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "epoll_shards: %s must be %ld to %ld\n", what, min, max);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    struct timer_service_options opt;
    const char *name = "epoll_shards";
    struct baton *batons;
    long nbatons = 64, rounds = 20, want, by_arm = 0, at_deadline = 0, for_nothing = 0;
    unsigned i;
    int c, b, fail = 0;

    while ((c = getopt(argc, argv, "l:b:r:")) != -1) {
        if (c == 'l')
            nloops = (unsigned)parse(optarg, 2, MAX_LOOPS, "-l LOOPS");
        else if (c == 'b')
            nbatons = parse(optarg, 1, 100000, "-b BATONS");
        else if (c == 'r')
            rounds = parse(optarg, 1, 100000, "-r ROUNDS");
        else
            return 2;
    }
    if (optind < argc)
        name = argv[optind];
    setvbuf(stdout, NULL, _IOLBF, 0);

    memset(&opt, 0, sizeof opt);
    opt.shards = nloops;
    opt.wake = wake;
    batons = calloc((size_t)nbatons, sizeof *batons);
    if (batons == NULL || shard_svc_init(&svc, &opt) != 0) {
        printf("FAIL %s: setup\n", name);
        return 1;
    }
    for (i = 0; i < nloops; i++) {
        struct epoll_event ev;
        memset(&ev, 0, sizeof ev);
        ev.events = EPOLLIN;
        loops[i].index = i;
        loops[i].efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        loops[i].ep = epoll_create1(EPOLL_CLOEXEC);
        if (loops[i].efd < 0 || loops[i].ep < 0 ||
            epoll_ctl(loops[i].ep, EPOLL_CTL_ADD, loops[i].efd, &ev) != 0 ||
            pthread_create(&loops[i].thread, NULL, loop_main, &loops[i]) != 0) {
            printf("FAIL %s: setup: %s\n", name, strerror(errno));
            return 1;
        }
    }
    /* Start every baton on shard 0, from this thread: arms into loop 0's shard. */
    for (b = 0; b < nbatons; b++) {
        batons[b].id = (unsigned)b;
        batons[b].rounds_left = (int)rounds;
        batons[b].rng = UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(b + 1);
        for (i = 0; i < nloops; i++)
            timer_service_timer_init(&batons[b].hop[i], i, hop, &batons[b]);
        timer_service_timer_init(&batons[b].watchdog, (unsigned)b % nloops, watchdog, &batons[b]);
        shard_svc_arm(&svc, &batons[b].watchdog, timer_service_now() + 1000 * MS);
        shard_svc_arm(&svc, &batons[b].hop[0], timer_service_now() + MS);
    }
    pthread_mutex_lock(&done_mu);
    while (batons_done < nbatons)
        pthread_cond_wait(&done_cv, &done_mu);
    pthread_mutex_unlock(&done_mu);

    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
    for (i = 0; i < nloops; i++)
        wake(NULL, i);
    for (i = 0; i < nloops; i++) {
        pthread_join(loops[i].thread, NULL);
        by_arm += loops[i].by_arm;
        at_deadline += loops[i].at_deadline;
        for_nothing += loops[i].for_nothing;
        close(loops[i].efd);
        close(loops[i].ep);
    }
    for (b = 0; b < nbatons; b++) {     /* all idle: cancel_sync has nothing to do */
        for (i = 0; i < nloops; i++)
            fail |= !idle(shard_svc_cancel_sync(&svc, &batons[b].hop[i]));
        fail |= !idle(shard_svc_cancel_sync(&svc, &batons[b].watchdog));
    }
    fail |= shard_svc_destroy(&svc) != 0;   /* nothing left to hand back */
    free(batons);

    want = nbatons * rounds * (long)nloops;
    printf("  %u loops, %ld batons x %ld rounds: %ld hops (want %ld), %ld on a wrong thread, "
           "%ld early; %ld watchdogs fired, %ld final cancels found none\n", nloops, nbatons,
           rounds, hops, want, wrong_thread, early, watchdogs_fired, cancels_missed);
    printf("  the loops woke %ld times by an arm's eventfd write, %ld at a deadline (%ld of those "
           "found the deadline moved)\n", by_arm, at_deadline, for_nothing);
    if (hops != want || wrong_thread || early || watchdogs_fired || cancels_missed || fail) {
        const char *why = hops != want         ? "hops lost or doubled"
                          : wrong_thread       ? "a callback ran on another loop's thread"
                          : early              ? "a callback ran early"
                          : watchdogs_fired    ? "a watchdog fired"
                          : cancels_missed     ? "a final cancel stopped nothing"
                                               : "a timer was still pending at the end";
        printf("FAIL %s: %s\n", name, why);
        return 1;
    }
    printf("PASS %s\n", name);
    return 0;
}
