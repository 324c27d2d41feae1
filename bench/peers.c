/* peers.c - our three containers beside the timers users would pick instead:
 * libev, libuv and libevent through their public timer APIs, and the timer
 * set many C programs hand-roll on BSD <sys/tree.h> (bsd_timer.h), all in ONE
 * run, over the same ordered-insert protocol and workloads as bench.c, so
 * that every ratio ours/peer compares figures taken side by side. Two
 * columns are optional, each behind a define the Makefile sets when it finds
 * the peer: PEER_WAHERN, William Ahern's timing wheel (timeout.c, compiled
 * into this file through wahern_timer.h), and PEER_DPDK, DPDK's rte_timer
 * skip list (libdpdk); without one the run prints a SKIP line for it.
 *
 *   ./timer_peers [--sizes 10000,100000,1000000] [--reps 5] [--wn 1000000]
 *                 [--conns 100000] [--seed S] [--csv peers.csv]
 *
 * Our containers, the BSD set and wahern's wheel (all three take the
 * caller's time) run bench_kind.h's driver unchanged; the event loops and
 * DPDK's timers (which read the real clock themselves) run peer_kind.h's,
 * which maps each workload onto a loop that keeps its own clock and says how
 * in the report. Like bench.c it
 * measures and reports, never asserts a time, and exits non-zero when a timer
 * fires that should not, or one that should does not.
 *
 * Link order matters: libev's shared library also exports a libevent
 * emulation (event_add, event_del, ...), so libevent_core must come before
 * libev on the link line; main() checks that libevent's own functions were
 * bound.
 */
#define _POSIX_C_SOURCE 200809L
#ifdef PEER_DPDK
/* cpu_set_t: DPDK's headers use it, and main() puts back the CPU affinity
 * that rte_eal_init takes away */
#define _GNU_SOURCE
#endif

#include "bench_common.h"
#include "bench_ours.h"
#include "bsd_timer.h"
#ifdef PEER_WAHERN
#include "wahern_timer.h"
#endif

#include <unistd.h>
#ifdef __linux__
#include <sys/epoll.h>
#endif

#include <ev.h>
#include <uv.h>
#include <event2/event.h>
#include <event2/event_struct.h>   /* struct event embedded in the item, as with event_assign */

#ifdef PEER_DPDK
#include <sched.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
#include <rte_timer.h>
#include <rte_version.h>
#endif

/* ---- the BSD tree.h set: a container, so bench_kind.h drives it ---------- */

#define KIND kbsd
#define KIND_NAME "bsd-tree"
#define KIND_NODE struct bsd_timer_node
#define KIND_DEFINE BSD_TIMER_DEFINE_NAMED
#define KIND_OWNED(c) sizeof(*(c))
#define KIND_MIN_EXACT 1
#include "bench_kind.h"

#ifdef PEER_WAHERN
/* ---- wahern/timeout: a container with injected time, like the BSD set ---- */

#define KIND kwah
#define KIND_NAME "wahern"
#define KIND_NODE union wahern_timer_node
#define KIND_DEFINE WAHERN_TIMER_DEFINE_NAMED
#define KIND_OWNED(c) (sizeof(*(c)) + sizeof(struct timeouts))
#define KIND_MIN_EXACT 0
#include "bench_kind.h"
#endif

/* ---- what the event-loop adapters share ---------------------------------- */

#define PEER_EMPTY_RUNS 1000            /* runs averaged for the empty-run cost */
#define PEER_SENTINEL_TICKS INT64_C(1000000000)   /* every loop holds one timer ~32 years away */
#define PEER_UV_WINDOW_MS 50            /* libuv: due keys spread over this window */

/* The workload's view of one timer, checked by every callback. */
struct peer_mark {
    int64_t when;       /* the workload's expiry, in ticks */
    int state;
};
enum { MARK_IDLE, MARK_EXPECTED, MARK_FIRED };

static size_t peer_fired;               /* callbacks since the last reset */
static const char *peer_running = "?";  /* the kind being measured, for messages */

static void peer_fire(struct peer_mark *m)
{
    if (m->state != MARK_EXPECTED)
        bench_fail("%s: a timer fired that the workload does not expire now (expiry %" PRId64 " ticks, state %d)",
                   peer_running, m->when, m->state);
    m->state = MARK_FIRED;
    peer_fired++;
}

/* A timer to fire, sorted by the workload's expiry (ties: by index). */
struct peer_due {
    int64_t when;
    uint32_t i;
};

static int cmp_due(const void *a, const void *b)
{
    const struct peer_due *x = (const struct peer_due *)a, *y = (const struct peer_due *)b;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static void peer_sort_due(struct peer_due *d, size_t k)
{
    qsort(d, k, sizeof *d, cmp_due);
}

/* Rank of each timer in the workload's expiry order (random, mixed), and one
 * tick past the latest mixed expiry: computed once, before any timing. */
static size_t *peer_random_rank, *peer_mixed_rank;
static int64_t peer_mixed_end;

/* The read end of a pipe nobody writes: every loop watches it, so that each
 * run polls the backend once, as in a program that has I/O to wait for. */
static int peer_idle_fd = -1;

struct peer {
    const char *name;
    size_t node_bytes;
    void (*ordered)(size_t n, struct wl_result *r);
    void (*random)(const struct random_wl *w, struct wl_result *r);
    void (*idle)(const struct idle_wl *w, struct wl_result *r);
    void (*request)(const struct request_wl *w, struct wl_result *r);
    void (*mixed)(const struct mixed_wl *w, struct wl_result *r);
};

/* ---- libev: 4-ary heap, key cached in the heap array --------------------- */

struct pev_ctx {
    struct ev_loop *loop;
    ev_timer sentinel;
    ev_io io;
};

struct pev_item {
    ev_timer timer;
    struct peer_mark mark;
};

static void pev_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    peer_fire(&((struct pev_item *)(void *)w)->mark);
}

static void pev_nop_timer(struct ev_loop *loop, ev_timer *w, int revents) { (void)loop; (void)w; (void)revents; }
static void pev_nop_io(struct ev_loop *loop, ev_io *w, int revents) { (void)loop; (void)w; (void)revents; }

static void pev_open(struct pev_ctx *c)
{
    c->loop = ev_loop_new(EVFLAG_AUTO);
    if (c->loop == NULL)
        bench_fail("libev: ev_loop_new failed");
    ev_io_init(&c->io, pev_nop_io, peer_idle_fd, EV_READ);
    ev_io_start(c->loop, &c->io);
    ev_timer_init(&c->sentinel, pev_nop_timer, (ev_tstamp)PEER_SENTINEL_TICKS, 0.);
    ev_timer_start(c->loop, &c->sentinel);
    ev_run(c->loop, EVRUN_NOWAIT);      /* registers the fd with the backend */
}

static void pev_close(struct pev_ctx *c)
{
    ev_io_stop(c->loop, &c->io);
    ev_timer_stop(c->loop, &c->sentinel);
    ev_loop_destroy(c->loop);
}

static inline void pev_init(struct pev_ctx *c, struct pev_item *it)
{
    (void)c;
    ev_timer_init(&it->timer, pev_cb, 0., 0.);
}

static inline void pev_fini(struct pev_ctx *c, struct pev_item *it) { (void)c; (void)it; }

static inline void pev_arm(struct pev_ctx *c, struct pev_item *it, int64_t ticks)
{
    ev_timer_set(&it->timer, (ev_tstamp)ticks, 0.);
    ev_timer_start(c->loop, &it->timer);
}

/* libev's own idiom for a timeout pushed back on activity: ev_timer_again
 * moves the key in place (no stop + start). This is method 2 of its manual's
 * "Be smart about timeouts", "adequate in most situations"; the manual calls
 * method 3 (record the last activity, re-arm in the callback) better in
 * typical situations, but its work is in callbacks at real-time deadlines
 * that no run here reaches (idle takes less real time than one tick), so
 * it cannot be measured here. The restart in idle and idle-range. */
static inline void pev_restart(struct pev_ctx *c, struct pev_item *it, int64_t ticks)
{
    it->timer.repeat = (ev_tstamp)ticks;
    ev_timer_again(c->loop, &it->timer);
}

static inline void pev_cancel(struct pev_ctx *c, struct pev_item *it)
{
    ev_timer_stop(c->loop, &it->timer);
}

/* libev takes negative `after` values: the key lies `ago` seconds before
 * the loop's now, so the next run fires it. */
static inline void pev_arm_due(struct pev_ctx *c, struct pev_item *it, int64_t ago, size_t rank, size_t nrank)
{
    (void)rank;
    (void)nrank;
    ev_timer_set(&it->timer, -(ev_tstamp)ago, 0.);
    ev_timer_start(c->loop, &it->timer);
}

static inline void pev_wait_due(struct pev_ctx *c) { (void)c; }
static inline void pev_fixed(struct pev_ctx *c, int64_t ticks) { (void)c; (void)ticks; }
static inline void pev_run(struct pev_ctx *c) { ev_run(c->loop, EVRUN_NOWAIT); }
static inline int pev_pending(const struct pev_item *it) { return ev_is_active(&it->timer) || ev_is_pending(&it->timer); }

#define PEER pev
#define PEER_NAME "libev"
#define PEER_TIMER ev_timer
#include "peer_kind.h"

/* ---- libuv: binary heap linked through the handles ----------------------- */

struct puv_ctx {
    uv_loop_t loop;
    uv_timer_t sentinel;
    uv_poll_t io;
};

struct puv_item {
    uv_timer_t timer;
    struct peer_mark mark;
};

static void puv_cb(uv_timer_t *h)
{
    peer_fire(&((struct puv_item *)(void *)h)->mark);
}

static void puv_nop_timer(uv_timer_t *h) { (void)h; }
static void puv_nop_io(uv_poll_t *h, int status, int events) { (void)h; (void)status; (void)events; }

static void puv_open(struct puv_ctx *c)
{
    if (uv_loop_init(&c->loop) != 0 || uv_poll_init(&c->loop, &c->io, peer_idle_fd) != 0 ||
        uv_poll_start(&c->io, UV_READABLE, puv_nop_io) != 0 || uv_timer_init(&c->loop, &c->sentinel) != 0 ||
        uv_timer_start(&c->sentinel, puv_nop_timer, (uint64_t)PEER_SENTINEL_TICKS * 1000, 0) != 0)
        bench_fail("libuv: cannot set up a loop");
    uv_run(&c->loop, UV_RUN_NOWAIT);
}

static void puv_close(struct puv_ctx *c)
{
    uv_close((uv_handle_t *)&c->io, NULL);
    uv_close((uv_handle_t *)&c->sentinel, NULL);
    uv_run(&c->loop, UV_RUN_DEFAULT);   /* completes every uv_close */
    if (uv_loop_close(&c->loop) != 0)
        bench_fail("libuv: uv_loop_close: handles left open");
}

static inline void puv_init(struct puv_ctx *c, struct puv_item *it)
{
    if (uv_timer_init(&c->loop, &it->timer) != 0)
        bench_fail("libuv: uv_timer_init failed");
}

static inline void puv_fini(struct puv_ctx *c, struct puv_item *it)
{
    (void)c;
    uv_close((uv_handle_t *)&it->timer, NULL);
}

static inline void puv_arm(struct puv_ctx *c, struct puv_item *it, int64_t ticks)
{
    (void)c;
    if (uv_timer_start(&it->timer, puv_cb, (uint64_t)ticks * 1000, 0) != 0)
        bench_fail("libuv: uv_timer_start failed");
}

/* uv_timer_start on a pending timer restarts it (libuv stops it first): its
 * documentation says "If the timer is already active, it is simply updated."
 * uv_timer_again restarts only a repeating timer, which would then fire
 * again every repeat: a one-shot timeout is restarted with uv_timer_start.
 * The restart in idle and idle-range. */
static inline void puv_restart(struct puv_ctx *c, struct puv_item *it, int64_t ticks)
{
    puv_arm(c, it, ticks);
}

static inline void puv_cancel(struct puv_ctx *c, struct puv_item *it)
{
    (void)c;
    uv_timer_stop(&it->timer);
}

/* libuv's timeout is unsigned ms from its cached now, so it cannot lie in
 * the past: the key is the rank in expiry order spread over a short window,
 * equal keys ordered by start (libuv breaks ties by start order), and
 * wait_due lets the loop's clock pass the window. */
static inline void puv_arm_due(struct puv_ctx *c, struct puv_item *it, int64_t ago, size_t rank, size_t nrank)
{
    (void)c;
    (void)ago;
    if (uv_timer_start(&it->timer, puv_cb, (uint64_t)rank * PEER_UV_WINDOW_MS / (uint64_t)nrank, 0) != 0)
        bench_fail("libuv: uv_timer_start failed");
}

static void puv_wait_due(struct puv_ctx *c)
{
    uint64_t until = uv_now(&c->loop) + PEER_UV_WINDOW_MS + 1;
    struct timespec ms = { 0, 1000000 };
    do {
        nanosleep(&ms, NULL);
        uv_update_time(&c->loop);
    } while (uv_now(&c->loop) < until);
}

static inline void puv_fixed(struct puv_ctx *c, int64_t ticks) { (void)c; (void)ticks; }
static inline void puv_run(struct puv_ctx *c) { uv_run(&c->loop, UV_RUN_NOWAIT); }
static inline int puv_pending(const struct puv_item *it) { return uv_is_active((const uv_handle_t *)&it->timer); }

#define PEER puv
#define PEER_NAME "libuv"
#define PEER_TIMER uv_timer_t
#include "peer_kind.h"

/* ---- libevent: binary min-heap of event pointers ------------------------- */

struct plev_ctx {
    struct event_base *base;
    struct event sentinel, io;
};

struct plev_item {
    struct event ev;
    struct peer_mark mark;
};

static void plev_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    peer_fire(&((struct plev_item *)arg)->mark);
}

static void plev_nop(evutil_socket_t fd, short what, void *arg) { (void)fd; (void)what; (void)arg; }

static void plev_open(struct plev_ctx *c)
{
    struct timeval far;
    far.tv_sec = (time_t)PEER_SENTINEL_TICKS;
    far.tv_usec = 0;
    c->base = event_base_new();
    if (c->base == NULL || event_assign(&c->io, c->base, peer_idle_fd, EV_READ | EV_PERSIST, plev_nop, NULL) != 0 ||
        event_add(&c->io, NULL) != 0 || event_assign(&c->sentinel, c->base, -1, 0, plev_nop, NULL) != 0 ||
        event_add(&c->sentinel, &far) != 0)
        bench_fail("libevent: cannot set up an event base");
    event_base_loop(c->base, EVLOOP_NONBLOCK);
}

static void plev_close(struct plev_ctx *c)
{
    event_del(&c->io);
    event_del(&c->sentinel);
    event_base_free(c->base);
}

static inline void plev_init(struct plev_ctx *c, struct plev_item *it)
{
    if (event_assign(&it->ev, c->base, -1, 0, plev_cb, it) != 0)
        bench_fail("libevent: event_assign failed");
}

static inline void plev_fini(struct plev_ctx *c, struct plev_item *it) { (void)c; (void)it; }

/* event_add of a pending event moves its timeout (in place in the heap). */
static inline void plev_arm(struct plev_ctx *c, struct plev_item *it, int64_t ticks)
{
    struct timeval tv;
    (void)c;
    tv.tv_sec = (time_t)ticks;
    tv.tv_usec = 0;
    if (event_add(&it->ev, &tv) != 0)
        bench_fail("libevent: event_add failed");
}

/* event_add on a pending event "replaces the old timeout with the new one"
 * (event2/event.h): the restart in idle and idle-range. */
static inline void plev_restart(struct plev_ctx *c, struct plev_item *it, int64_t ticks)
{
    plev_arm(c, it, ticks);
}

static inline void plev_cancel(struct plev_ctx *c, struct plev_item *it)
{
    (void)c;
    event_del(&it->ev);
}

/* A negative relative timeout: now + tv lies `ago` seconds in the past. */
static inline void plev_arm_due(struct plev_ctx *c, struct plev_item *it, int64_t ago, size_t rank, size_t nrank)
{
    (void)rank;
    (void)nrank;
    plev_arm(c, it, -ago);
}

static inline void plev_wait_due(struct plev_ctx *c) { (void)c; }
static inline void plev_fixed(struct plev_ctx *c, int64_t ticks) { (void)c; (void)ticks; }
static inline void plev_run(struct plev_ctx *c) { event_base_loop(c->base, EVLOOP_NONBLOCK); }
static inline int plev_pending(const struct plev_item *it) { return event_pending(&it->ev, EV_TIMEOUT, NULL) != 0; }

#define PEER plev
#define PEER_NAME "libevent"
#define PEER_TIMER struct event
#include "peer_kind.h"

/* ---- libevent with a common timeout: its O(1) queue for one shared delay -- */

/* libevent's documented optimisation for many timers of the same duration
 * (event_base_init_common_timeout): they queue in arrival order instead of
 * entering the min-heap; one heap entry per queue. It applies only where the
 * workload has one delay (idle, request). Timers of other delays (idle's
 * first expiries, untimed) still go to the heap; the due re-arm before the
 * fire run uses a common timeout of 0, so the fire goes through the queue. */
struct plct_ctx {
    struct plev_ctx b;
    const struct timeval *fixed_tv, *zero_tv;
    int64_t fixed;
};

struct plct_item {
    struct event ev;
    struct peer_mark mark;
};

static void plct_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    peer_fire(&((struct plct_item *)arg)->mark);
}

static void plct_open(struct plct_ctx *c)
{
    struct timeval zero;
    zero.tv_sec = 0;
    zero.tv_usec = 0;
    plev_open(&c->b);
    c->zero_tv = event_base_init_common_timeout(c->b.base, &zero);
    c->fixed_tv = NULL;
    c->fixed = -1;
    if (c->zero_tv == NULL)
        bench_fail("libevent: event_base_init_common_timeout failed");
}

static void plct_close(struct plct_ctx *c) { plev_close(&c->b); }

static inline void plct_init(struct plct_ctx *c, struct plct_item *it)
{
    if (event_assign(&it->ev, c->b.base, -1, 0, plct_cb, it) != 0)
        bench_fail("libevent: event_assign failed");
}

static inline void plct_fini(struct plct_ctx *c, struct plct_item *it) { (void)c; (void)it; }

static void plct_fixed(struct plct_ctx *c, int64_t ticks)
{
    struct timeval tv;
    tv.tv_sec = (time_t)ticks;
    tv.tv_usec = 0;
    c->fixed = ticks;
    c->fixed_tv = event_base_init_common_timeout(c->b.base, &tv);
    if (c->fixed_tv == NULL)
        bench_fail("libevent: event_base_init_common_timeout failed");
}

static inline void plct_arm(struct plct_ctx *c, struct plct_item *it, int64_t ticks)
{
    struct timeval tv;
    const struct timeval *p = &tv;
    if (ticks == c->fixed) {
        p = c->fixed_tv;
    } else {
        tv.tv_sec = (time_t)ticks;
        tv.tv_usec = 0;
    }
    if (event_add(&it->ev, p) != 0)
        bench_fail("libevent: event_add failed");
}

/* event_add again, with the common timeout: the event moves to its queue's
 * end. The restart in idle and idle-range. */
static inline void plct_restart(struct plct_ctx *c, struct plct_item *it, int64_t ticks)
{
    plct_arm(c, it, ticks);
}

static inline void plct_cancel(struct plct_ctx *c, struct plct_item *it)
{
    (void)c;
    event_del(&it->ev);
}

/* Due now through the common timeout of 0, armed in expiry order. */
static inline void plct_arm_due(struct plct_ctx *c, struct plct_item *it, int64_t ago, size_t rank, size_t nrank)
{
    (void)ago;
    (void)rank;
    (void)nrank;
    if (event_add(&it->ev, c->zero_tv) != 0)
        bench_fail("libevent: event_add failed");
}

static inline void plct_wait_due(struct plct_ctx *c) { (void)c; }
static inline void plct_run(struct plct_ctx *c) { event_base_loop(c->b.base, EVLOOP_NONBLOCK); }
static inline int plct_pending(const struct plct_item *it) { return event_pending(&it->ev, EV_TIMEOUT, NULL) != 0; }

#define PEER plct
#define PEER_NAME "libevent-ct"
#define PEER_TIMER struct event
#define PEER_FIXED_ONLY
#include "peer_kind.h"

#ifdef PEER_DPDK
/* ---- DPDK rte_timer: a skip list per lcore, driven by the TSC ------------- */

/* rte_timer_reset(tim, ticks, ...) files the timer at rte_get_timer_cycles()
 * + ticks, and rte_timer_manage() fires every timer whose key is <= a fresh
 * rte_get_timer_cycles(): the TSC itself (this build has no HPET), read
 * inside the library, so no "now" can be injected. Like the event loops,
 * then: 1 tick = 1 s of TSC (rte_get_timer_hz() cycles) for the timers
 * armed ahead (idle, request), and keys already due for the rest. A skip
 * list compares keys only, so its work depends on their order, which must
 * be the workload's: a due key is the timer's rank in expiry order,
 * PEER_DPDK_RANK_CYCLES apart, below the TSC at open, and the adapter
 * subtracts the TSC it reads just before the call (the library reads it
 * again a few cycles later, which shifts every key by those few cycles:
 * far less than the gap). That read is one rdtsc more per timed arm than
 * the library makes itself (its cost is printed in the notes). The fire
 * callback counts timers fired out of the workload's order: 0 unless an
 * interrupt fell between the two reads. */
#define PEER_DPDK_RANK_CYCLES 4096

struct pdpdk_ctx {
    uint64_t t_ref;                     /* TSC at open: every due key lies below it */
    unsigned lcore;
};

struct pdpdk_item {
    struct rte_timer tim;
    struct peer_mark mark;
};

static int pdpdk_on;                    /* rte_eal_init and rte_timer_subsystem_init succeeded */
static uint64_t pdpdk_hz;
static int64_t pdpdk_last_when;         /* workload expiry of the timer fired last in this run */
static size_t pdpdk_out_of_order;       /* timers fired before one with an earlier expiry */

static void pdpdk_cb(struct rte_timer *tim, void *arg)
{
    struct pdpdk_item *it = (struct pdpdk_item *)arg;
    (void)tim;
    peer_fire(&it->mark);
    if (it->mark.when < pdpdk_last_when)
        pdpdk_out_of_order++;
    pdpdk_last_when = it->mark.when;
}

static void pdpdk_open(struct pdpdk_ctx *c)
{
    c->t_ref = rte_get_timer_cycles();
    c->lcore = rte_lcore_id();
}

static void pdpdk_close(struct pdpdk_ctx *c) { (void)c; }

static inline void pdpdk_init(struct pdpdk_ctx *c, struct pdpdk_item *it)
{
    (void)c;
    rte_timer_init(&it->tim);
}

static inline void pdpdk_fini(struct pdpdk_ctx *c, struct pdpdk_item *it) { (void)c; (void)it; }

static inline void pdpdk_reset(struct pdpdk_ctx *c, struct pdpdk_item *it, uint64_t cycles)
{
    if (rte_timer_reset(&it->tim, cycles, SINGLE, c->lcore, pdpdk_cb, it) != 0)
        bench_fail("dpdk: rte_timer_reset failed");
}

static inline void pdpdk_arm(struct pdpdk_ctx *c, struct pdpdk_item *it, int64_t ticks)
{
    pdpdk_reset(c, it, (uint64_t)ticks * pdpdk_hz);
}

/* rte_timer_reset of a pending timer takes it out of the skip list and files
 * it again: DPDK has no cheaper move. */
static inline void pdpdk_restart(struct pdpdk_ctx *c, struct pdpdk_item *it, int64_t ticks)
{
    pdpdk_arm(c, it, ticks);
}

static inline void pdpdk_cancel(struct pdpdk_ctx *c, struct pdpdk_item *it)
{
    (void)c;
    if (rte_timer_stop(&it->tim) != 0)
        bench_fail("dpdk: rte_timer_stop failed");
}

/* Key t_ref - (nrank - rank) * PEER_DPDK_RANK_CYCLES: due, in rank order.
 * The unsigned sum cur + ticks inside the library wraps back to it. */
static inline void pdpdk_arm_due(struct pdpdk_ctx *c, struct pdpdk_item *it, int64_t ago, size_t rank, size_t nrank)
{
    uint64_t back = (uint64_t)(nrank - rank) * PEER_DPDK_RANK_CYCLES;
    (void)ago;
    if (back >= c->t_ref)
        bench_fail("dpdk: the TSC (%" PRIu64 ") is too young for %zu due keys", c->t_ref, nrank);
    pdpdk_reset(c, it, c->t_ref - back - rte_get_timer_cycles());
}

/* every due key is in the past already; start the order count of the run */
static inline void pdpdk_wait_due(struct pdpdk_ctx *c)
{
    (void)c;
    pdpdk_last_when = INT64_MIN;
}

static inline void pdpdk_fixed(struct pdpdk_ctx *c, int64_t ticks) { (void)c; (void)ticks; }
static inline void pdpdk_run(struct pdpdk_ctx *c) { (void)c; rte_timer_manage(); }
static inline int pdpdk_pending(const struct pdpdk_item *it) { return rte_timer_pending((struct rte_timer *)&it->tim); }

#define PEER pdpdk
#define PEER_NAME "dpdk"
#define PEER_TIMER struct rte_timer
#include "peer_kind.h"

/* One timed rdtsc, as pdpdk_arm_due adds: the median of 15 batches. */
static double pdpdk_tsc_ns(void)
{
    double v[15];
    uint64_t sum = 0;
    int b, i;
    for (b = 0; b < 15; b++) {
        double t0 = bench_now();
        for (i = 0; i < 10000; i++)
            sum += rte_get_timer_cycles();
        v[b] = bench_since(t0) / 10000;
    }
    bench_sink += sum;
    return median_of(v, 15);
}

/* Starts DPDK's EAL for one lcore, with no hugepages, no PCI scan, no shared
 * config file and no telemetry socket: all rte_timer needs. rte_eal_init
 * pins this thread to the lcore's CPU; the affinity before it is put back,
 * so that every column runs as it did without DPDK. 0, or -1 with why. */
static int pdpdk_start(char *why, size_t len)
{
    char *argv[] = { "timer_peers", "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry", "-m", "64",
                     "-l", "0", "--log-level=error", NULL };
    cpu_set_t cpus;
    int have_cpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0, r;

    fflush(stdout);
    if (rte_eal_init((int)(sizeof argv / sizeof argv[0]) - 1, argv) < 0) {
        snprintf(why, len, "rte_eal_init failed: %s (rte_errno %d)", rte_strerror(rte_errno), rte_errno);
        return -1;
    }
    if (have_cpus)
        sched_setaffinity(0, sizeof cpus, &cpus);
    if ((r = rte_timer_subsystem_init()) != 0) {
        snprintf(why, len, "rte_timer_subsystem_init failed: %d", r);
        rte_eal_cleanup();
        return -1;
    }
    pdpdk_hz = rte_get_timer_hz();
    return 0;
}
#endif /* PEER_DPDK */

/* ---- the run ------------------------------------------------------------- */

/* One column of the report: a container (driven by bench_kind.h) or an
 * event loop (driven by peer_kind.h). */
struct entry {
    const char *name;
    int ours;
    const struct kind *k;
    const struct peer *p;
};

#define NOURS 3
/* The columns built in; main() drops dpdk when its EAL does not start. */
static struct entry entries[] = {
    { "set", 1, &kset_kind, NULL },
    { "heap", 1, &kheap_kind, NULL },
    { "wheel", 1, &kwheel_kind, NULL },
    { "bsd-tree", 0, &kbsd_kind, NULL },
#ifdef PEER_WAHERN
    { "wahern", 0, &kwah_kind, NULL },
#endif
    { "libev", 0, NULL, &pev_peer },
    { "libuv", 0, NULL, &puv_peer },
    { "libevent", 0, NULL, &plev_peer },
    { "libevent-ct", 0, NULL, &plct_peer },
#ifdef PEER_DPDK
    { "dpdk", 0, NULL, &pdpdk_peer },
#endif
};
static int nentries = (int)(sizeof entries / sizeof entries[0]);

#ifdef PEER_DPDK
/* Drops a column from the run (a peer that cannot start here). */
static void drop_entry(const char *name)
{
    int e, k = 0;
    for (e = 0; e < nentries; e++)
        if (strcmp(entries[e].name, name) != 0)
            entries[k++] = entries[e];
    nentries = k;
}
#endif

static void record_ops(const char *workload, const struct entry *e, size_t n,
                       const struct wl_result *r, double floor_insert)
{
    int i;
    if (e->k != NULL) {
        record_wl(workload, e->k, n, r, floor_insert);
        return;
    }
    for (i = 0; i < r->nops; i++)
        record(workload, e->name, n, r->op[i], r->ns[i], r->derived[i], floor_insert, e->p->node_bytes);
}

/* On a terminal: which kind and workload runs; in a log: one line per repetition. */
static void progress(int rep, int reps, const char *name, const char *what)
{
    static int last_rep = -1, tty = -1;
    if (tty < 0)
        tty = isatty(2);
    peer_running = name;
    if (!tty && rep == last_rep)
        return;
    last_rep = rep;
    if (!tty)
        fprintf(stderr, rep == 0 ? "warm-up ..." : "repetition %d/%d ...", rep, reps);
    else if (rep == 0)
        fprintf(stderr, "\rwarm-up: %-8s %-8s", name, what);
    else
        fprintf(stderr, "\rrepetition %d/%d: %-8s %-8s", rep, reps, name, what);
}

/* References measured in each repetition (rep 0 dropped): a bare
 * epoll_wait(fd, ev, 1, 0) on an idle fd, which every loop run includes, and
 * one read of CLOCK_MONOTONIC_COARSE, which libevent's event_add does
 * outside a callback. Medians are printed. */
static double ref_epoll[MAX_REPS], ref_coarse[MAX_REPS];

static double bare_epoll_ns(void)
{
#ifdef __linux__
    struct epoll_event ev, out;
    int ep = epoll_create1(0), i;
    double t0;
    if (ep < 0)
        return NAN;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, peer_idle_fd, &ev) != 0) {
        close(ep);
        return NAN;
    }
    for (i = 0; i < 1000; i++)          /* warm up */
        epoll_wait(ep, &out, 1, 0);
    t0 = bench_now();
    for (i = 0; i < 20000; i++)
        if (epoll_wait(ep, &out, 1, 0) != 0)
            bench_fail("the idle pipe became readable");
    t0 = (bench_now() - t0) / 20000;
    close(ep);
    return t0;
#else
    return NAN;
#endif
}

static double coarse_clock_ns(void)
{
#ifdef CLOCK_MONOTONIC_COARSE
    struct timespec ts;
    long sum = 0;
    int i;
    double t0 = bench_now();
    for (i = 0; i < 100000; i++) {
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
        sum += ts.tv_nsec;
    }
    bench_sink += (uint64_t)sum;
    return (bench_now() - t0) / 100000;
#else
    return NAN;
#endif
}

static void run(const struct config *cfg, const struct random_wl *rw, const struct idle_wl *iw,
                const struct request_wl *qw, const struct mixed_wl *mw)
{
    int rep, s, j;
    /* rep 0 is a warm-up whose figures are dropped, as in bench.c */
    for (rep = 0; rep <= cfg->reps; rep++) {
        struct floor_cache fc;
        fc.count = 0;
        recording = rep > 0;
        bench_clock_cost = clock_cost();
        if (recording) {
            ref_epoll[rep - 1] = bare_epoll_ns();
            ref_coarse[rep - 1] = coarse_clock_ns();
        }
        for (s = 0; s < cfg->nsizes; s++) {
            size_t n = cfg->sizes[s];
            double fl = floor_for(&fc, n);
            for (j = 0; j < nentries; j++) {
                const struct entry *e = &entries[(j + rep) % nentries];
                struct wl_result r;
                r.nops = 0;
                progress(rep, cfg->reps, e->name, "ordered");
                if (e->k != NULL) {
                    size_t owned;
                    e->k->ordered(n, &r, &owned);
                    record_ops("ordered", e, n, &r, fl);
                    if (recording)
                        rec_get("ordered", e->name, n, "insert")->owned_kb = (double)owned / 1024.0;
                } else if (e->p->ordered != NULL) {
                    e->p->ordered(n, &r);
                    record_ops("ordered", e, n, &r, fl);
                }
            }
        }
        for (j = 0; j < nentries; j++) {
            const struct entry *e = &entries[(j + rep) % nentries];
            struct wl_result r;
            r.nops = 0;
            if (e->k != NULL || e->p->random != NULL) {
                progress(rep, cfg->reps, e->name, "random");
                if (e->k != NULL) e->k->random(rw, &r); else e->p->random(rw, &r);
                record_ops("random", e, rw->n, &r, floor_for(&fc, rw->n));
            }
            r.nops = 0;
            progress(rep, cfg->reps, e->name, "idle");
            if (e->k != NULL) e->k->idle(iw, &r); else e->p->idle(iw, &r);
            record_ops("idle", e, iw->conns, &r, floor_for(&fc, iw->conns));
            /* idle-range: ours and bsd-tree call reschedule_range over [now + timeout, now +
             * timeout + slack]; a loop has no such window, so it restarts its timer on every
             * message as its documentation shows (its adapter's restart), as in idle */
            r.nops = 0;
            progress(rep, cfg->reps, e->name, "idle-range");
            if (e->k != NULL) e->k->idle_range(iw, &r); else e->p->idle(iw, &r);
            record_ops("idle-range", e, iw->conns, &r, floor_for(&fc, iw->conns));
            r.nops = 0;
            progress(rep, cfg->reps, e->name, "request");
            if (e->k != NULL) e->k->request(qw, &r); else e->p->request(qw, &r);
            record_ops("request", e, qw->n, &r, floor_for(&fc, qw->n));
            r.nops = 0;
            if (e->k != NULL || e->p->mixed != NULL) {
                progress(rep, cfg->reps, e->name, "mixed");
                if (e->k != NULL) e->k->mixed(mw, &r); else e->p->mixed(mw, &r);
                record_ops("mixed", e, mw->n, &r, floor_for(&fc, mw->n));
            }
        }
    }
    fprintf(stderr, "\r%*s\r", 50, "");
}

/* ---- report -------------------------------------------------------------- */

/* The median, NAN when missing or below the noise (rec_noise): no ratio is
 * taken of a figure this run cannot resolve. */
static double rec_median(const char *workload, const char *kind, size_t n, const char *op)
{
    return rec_resolved(rec_find(workload, kind, n, op));
}

/* 0.0123, 0.123, 1.23, 12.3, 123 */
static void print_ratio(double x, int width)
{
    char buf[32];
    if (x != x || x <= 0)
        snprintf(buf, sizeof buf, "-");
    else if (x < 0.1)
        snprintf(buf, sizeof buf, "%.3f", x);
    else if (x < 10)
        snprintf(buf, sizeof buf, "%.2f", x);
    else if (x < 100)
        snprintf(buf, sizeof buf, "%.1f", x);
    else
        snprintf(buf, sizeof buf, "%.0f", x);
    printf(" %*s", width, buf);
}

/* A median as make bench prints it: "12.3", "<0.8" below the noise, "-". */
static void print_ns(const char *workload, const char *kind, size_t n, const char *op, int width)
{
    char buf[32];
    printf(" %*s", width, fmt_median(rec_find(workload, kind, n, op), buf, sizeof buf));
}

static const char *const report_ops[] = { "insert", "reschedule", "remove", "pop", "pop_call", "min_time", "run" };
#define NREPORT_OPS 7

/* The rows of both tables: each (workload, N) in the order measured, each op
 * that some kind reported. */
struct row { const char *workload, *op; size_t n; };

static size_t table_rows(const struct config *cfg, size_t wn, size_t conns, struct row *rows, size_t cap)
{
    static const char *const wls[] = { "random", "idle", "idle-range", "request", "mixed" };
    size_t k = 0, ns[5];
    int s, o, e;
    ns[0] = wn, ns[1] = conns, ns[2] = conns, ns[3] = wn, ns[4] = wn;
    for (s = 0; s < cfg->nsizes + 5; s++) {
        const char *wl = s < cfg->nsizes ? "ordered" : wls[s - cfg->nsizes];
        size_t n = s < cfg->nsizes ? cfg->sizes[s] : ns[s - cfg->nsizes];
        for (o = 0; o < NREPORT_OPS; o++)
            for (e = 0; e < nentries; e++)
                if (rec_find(wl, entries[e].name, n, report_ops[o]) != NULL) {
                    if (k < cap) {
                        rows[k].workload = wl;
                        rows[k].op = report_ops[o];
                        rows[k].n = n;
                    }
                    k++;
                    break;
                }
    }
    return k < cap ? k : cap;
}

static double best_of(const struct row *r, int ours)
{
    double best = NAN;
    int e;
    for (e = 0; e < nentries; e++)
        if (entries[e].ours == ours) {
            double x = rec_median(r->workload, entries[e].name, r->n, r->op);
            if (x == x && x > 0 && !(best <= x))
                best = x;
        }
    return best;
}

/* idle, idle-range and request pops of ours are per item over all pop calls: see the notes */
static const char *row_op(const struct row *r)
{
    if (!strcmp(r->op, "pop") && (!strncmp(r->workload, "idle", 4) || !strcmp(r->workload, "request")))
        return "pop*";
    return r->op;
}

static int col_width(int e)
{
    int w = (int)strlen(entries[e].name);
    return w < 8 ? 8 : w;
}

static void print_ns_table(const struct row *rows, size_t nrows)
{
    size_t i;
    int e;
    printf("\nns per operation (median over the repetitions; min and max in the CSV; <x: a difference\n"
           "below its noise x = twice the median distance of its repetitions from their median, or a\n"
           "negative median, as make bench prints it; no ratio is taken of it):\n\n");
    printf("%-10s %8s %-10s", "workload", "N", "op");
    for (e = 0; e < nentries; e++)
        printf(" %*s%s", col_width(e), entries[e].name, e == NOURS - 1 ? " |" : "");
    printf(" | %s\n", "best ours / best peer");
    for (i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        int ratio_ok = strcmp(r->op, "min_time") != 0 && strcmp(r->op, "run") != 0;
        if (i > 0 && (strcmp(r->workload, rows[i - 1].workload) || r->n != rows[i - 1].n))
            printf("\n");
        printf("%-10s %8zu %-10s", r->workload, r->n, row_op(r));
        for (e = 0; e < nentries; e++) {
            print_ns(r->workload, entries[e].name, r->n, r->op, col_width(e));
            if (e == NOURS - 1)
                printf(" |");
        }
        printf(" |");
        if (ratio_ok) {
            double o = best_of(r, 1), p = best_of(r, 0);
            print_ratio(o / p, 8);
        } else {
            printf(" %8s", "-");
        }
        printf("\n");
    }
}

static void print_ratio_table(const struct row *rows, size_t nrows)
{
    size_t i;
    int e, p;
    printf("\nRatio ours / peer of the medians above (below 1: ours is faster; 0.10 = ten times faster):\n\n");
    printf("%-10s %8s %-10s", "", "", "");
    for (p = NOURS; p < nentries; p++)
        printf(" | %-17s", entries[p].name);
    printf("\n%-10s %8s %-10s", "workload", "N", "op");
    for (p = NOURS; p < nentries; p++) {
        printf(" |");
        for (e = 0; e < NOURS; e++)
            printf(" %5s", entries[e].name);
    }
    printf("\n");
    for (i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        if (!strcmp(r->op, "min_time") || !strcmp(r->op, "run"))
            continue;
        printf("%-10s %8zu %-10s", r->workload, r->n, row_op(r));
        for (p = NOURS; p < nentries; p++) {
            double peer = rec_median(r->workload, entries[p].name, r->n, r->op);
            printf(" |");
            for (e = 0; e < NOURS; e++)
                print_ratio(rec_median(r->workload, entries[e].name, r->n, r->op) / peer, 5);
        }
        printf("\n");
    }
}

static void print_floor_line(const struct config *cfg, size_t wn, size_t conns)
{
    size_t seen[MAX_SIZES + 2];
    int s, k = 0, i;
    printf("floor insert (the cheapest intrusive list link, ratio_to_floor_insert in the CSV), median ns:");
    for (s = 0; s < cfg->nsizes + 2; s++) {
        size_t n = s < cfg->nsizes ? cfg->sizes[s] : s == cfg->nsizes ? wn : conns;
        int dup = 0;
        for (i = 0; i < k; i++)
            dup |= seen[i] == n;
        if (dup)
            continue;
        seen[k++] = n;
        printf(" N=%zu %.2f", n, rec_median("ordered", "floor", n, "insert"));
    }
    printf("\n");
}

static void print_notes(const struct config *cfg, const struct idle_wl *iw)
{
    double epoll_ns = stats_of(ref_epoll, cfg->reps).median;
    double coarse_ns = stats_of(ref_coarse, cfg->reps).median;
    printf(
"\nWhat the figures include:\n"
"  insert, remove, reschedule  one call each. libev: ev_timer_start / ev_timer_stop / ev_timer_again\n"
"       (its 4-ary heap; ev_timer_again, libev's idiom for a timeout pushed back, moves the key in\n"
"       place). libuv: uv_timer_start / uv_timer_stop / uv_timer_start again (stop + start; a binary\n"
"       heap linked through the handles). libevent: event_add with a timeout / event_del / event_add\n"
"       again (a binary min-heap of pointers, adjusted in place); outside a callback each event_add\n"
"       reads CLOCK_MONOTONIC_COARSE (%.1f ns here; inside a callback it uses its cached time).\n"
"       bsd-tree: RB_INSERT / RB_REMOVE / both. Ours: insert / remove / reschedule.\n"
"  reschedule in idle-range  ours: reschedule_range(now + timeout, now + timeout + slack), which\n"
"       leaves an expiry already in that window; bsd-tree: the same compare on its node, else\n"
"       RB_REMOVE + RB_INSERT. The loops have no window: each message restarts the timer to now +\n"
"       timeout with the call above, as their documentation shows (libev: method 2 of its manual's\n"
"       \"Be smart about timeouts\"; its method 3 re-arms in the callback, at real-time deadlines\n"
"       that no run here reaches), so their idle-range is their idle measured a second time.\n"
"       What is said of idle below holds for idle-range.\n", coarse_ns);
    printf(
"  pop  ours and bsd-tree: pop(now) plus draining the result list, per item popped. libev, libuv,\n"
"       libevent: one non-blocking run (ev_run EVRUN_NOWAIT, uv_run UV_RUN_NOWAIT, event_base_loop\n"
"       EVLOOP_NONBLOCK) fires every due timer: heap removal, queueing and the callback call, per\n"
"       timer fired, less the run's fixed cost (the `run` row; a libevent run that fired something\n"
"       polls a second time before it returns, which stays in its pop). Two differences favour the loops:\n"
"       ordered: ours pop each item in a pop call of its own, the loops fire the whole half in one run;\n"
"       idle, request (marked pop*): ours and bsd-tree report, as make bench does, the time of ALL\n"
"       per-tick pop calls (most pop nothing) divided by the items popped, while the loops' figure is\n"
"       the firing alone; their per-tick cost is pop_call.\n"
"  pop_call  idle, request: ours: one pop(now) per tick, including the items it pops. The loops: one\n"
"       non-blocking run per tick, which fires nothing (see below) and includes one epoll_wait on the\n"
"       loop's idle fd: %.1f ns here for a bare epoll_wait(fd, ev, 1, 0), which no container pays.\n"
"  run  the loops' fixed cost per non-blocking run that fires nothing: clock reads, one epoll_wait,\n"
"       their bookkeeping. A loop pays it every iteration, whatever its timers do.\n"
"  min_time  libev, libuv and libevent have no public query of the earliest expiry (their run\n"
"       computes it for the poll timeout, inside `run`): not expressible, shown as -.\n"
"How the workloads map onto the loops, whose clock is the real one and cannot take the workload's\n"
"tick: 1 tick = 1 s of the loop's clock (heaps compare keys only: the order decides their work).\n"
"  ordered, random, mixed: every timer is armed already due, its key in the workload's expiry order:\n"
"       libev a negative `after` (the ticks before the latest expiry, as seconds), libevent the same\n"
"       as a negative struct timeval; libuv's timeout is unsigned ms from its cached now, so it gets\n"
"       the timer's rank spread over a %d ms window (ties broken by libuv's start order) and the\n"
"       fire run comes after the loop's clock has passed the window (the wait is not timed).\n"
"  idle, request: timers are armed 1 tick = 1 s ahead of the loop's clock, and the loop runs once\n"
"       per tick; no run fires anything, as the workload takes far less real time than one tick.\n"
"       Then the timers the workload expires (idle: the connections gone silent, %zu of them plus the\n"
"       few that went quiet for %" PRId64 " ticks by chance, with every other timer still pending; request:\n"
"       the unanswered 5%%) are stopped and re-armed due, untimed, and fired in one run, as above.\n"
"  Not expressible through the loops' APIs: popping at the workload's own times (a loop fires when\n"
"  the real clock says so), hence pop from one run over due timers; and min_time.\n"
"Checks: each loop callback verifies that its timer was expected to fire, and each run's count of\n"
"fired timers must equal the count expected; ours, bsd-tree and wahern run bench_kind.h's checks\n"
"(every popped item due and not due before, the counts, empty at the end).\n",
        epoll_ns, PEER_UV_WINDOW_MS, iw->silent, iw->timeout);
#ifdef PEER_WAHERN
    printf(
"wahern (William Ahern's timeout.c: 4 wheels x 64 slots over 2^24 ticks, timeouts further ahead\n"
"       re-filed each time the top wheel comes round) runs bench_kind.h's driver with the workload's\n"
"       own times, as ours and bsd-tree do: insert / reschedule timeouts_add with TIMEOUT_ABS (it moves\n"
"       a pending timeout), remove timeouts_del, pop timeouts_update(now) then timeouts_get until NULL,\n"
"       each appended to the result list; min_time the last update's time + timeouts_timeout, a bound\n"
"       (see the wake-ups below).\n");
#endif
#ifdef PEER_DPDK
    if (pdpdk_on)
        printf(
"dpdk (rte_timer: a skip list per lcore, levels drawn with p = 1/4, keys compared only) runs as the\n"
"       loops do, as its clock is the TSC read inside the library: insert rte_timer_reset, remove\n"
"       rte_timer_stop, reschedule rte_timer_reset again (out of the list and in again); pop and run\n"
"       rte_timer_manage, which fires every key <= the TSC; its run polls no fd (DPDK polls). 1 tick =\n"
"       1 s of TSC ahead in idle and request; due keys are the rank in expiry order, %d cycles apart,\n"
"       below the TSC at the start of the run, and each arm reads the TSC once more to aim at that key\n"
"       (%.1f ns here, inside dpdk's ordered, random and mixed insert). Timers fired out of the\n"
"       workload's expiry order, in all runs: %zu.\n",
            PEER_DPDK_RANK_CYCLES, pdpdk_tsc_ns(), pdpdk_out_of_order);
#endif
}

#ifdef PEER_WAHERN
/* ---- wake-ups: a loop that sleeps until the container's answer ------------ */

/* wahern's "when is the next wake-up" (timeouts_timeout) is a bound that may
 * be early, like our min_time; our next_expiry is exact. How often early
 * shows as wake-ups that fire nothing, in a loop that asks, sleeps until the
 * answer and pops at it, until the container is empty. Untimed, once, over
 * the timers of a workload; bench_kind.h's drain checks every pop. */
struct wake_query {
    const char *name;
    void (*fill)(const int64_t *when, size_t n, int64_t now0);
    int64_t (*next)(void);
    size_t (*pop)(int64_t prev, int64_t now);
    void (*done)(void);
};

static kwah_c wake_wah;
static kwheel_c wake_wheel;
static struct tlist wake_out;

static void wake_wah_fill(const int64_t *when, size_t n, int64_t now0)
{
    struct kwah_item *it = (struct kwah_item *)bench_items(n * sizeof *it);
    size_t i;
    kwah_c_init(&wake_wah, now0);
    for (i = 0; i < n; i++) {
        it[i].when = when[i];
        if (kwah_c_insert(&wake_wah, when[i], &it[i]) != 0)
            bench_fail("wahern: insert failed");
    }
    if (!timeouts_check(wake_wah.s.T, stderr))
        bench_fail("wahern: timeouts_check failed after the inserts");
}
static int64_t wake_wah_next(void) { return kwah_c_min_time(&wake_wah); }
static size_t wake_wah_pop(int64_t prev, int64_t now) { return kwah_drain(&wake_wah, &wake_out, prev, now); }
static void wake_wah_done(void)
{
    if (!timeouts_check(wake_wah.s.T, stderr))
        bench_fail("wahern: timeouts_check failed at the end");
    kwah_expect_empty(&wake_wah, "wake-ups");
    kwah_c_destroy(&wake_wah);
}

static void wake_wheel_fill(const int64_t *when, size_t n, int64_t now0)
{
    struct kwheel_item *it = (struct kwheel_item *)bench_items(n * sizeof *it);
    size_t i;
    kwheel_c_init(&wake_wheel, now0);
    for (i = 0; i < n; i++) {
        it[i].when = when[i];
        if (kwheel_c_insert(&wake_wheel, when[i], &it[i]) != 0)
            bench_fail("wheel: insert failed");
    }
}
static int64_t wake_wheel_min_time(void) { return kwheel_c_min_time(&wake_wheel); }
static int64_t wake_wheel_next_expiry(void) { return kwheel_c_next_expiry(&wake_wheel); }
static size_t wake_wheel_pop(int64_t prev, int64_t now) { return kwheel_drain(&wake_wheel, &wake_out, prev, now); }
static void wake_wheel_done(void)
{
    kwheel_expect_empty(&wake_wheel, "wake-ups");
    kwheel_c_destroy(&wake_wheel);
}

static const struct wake_query wake_queries[] = {
    { "wahern timeouts_timeout", wake_wah_fill, wake_wah_next, wake_wah_pop, wake_wah_done },
    { "wheel min_time", wake_wheel_fill, wake_wheel_min_time, wake_wheel_pop, wake_wheel_done },
    { "wheel next_expiry", wake_wheel_fill, wake_wheel_next_expiry, wake_wheel_pop, wake_wheel_done },
};

/* Wake-ups of the loop over n timers at `when`, the container's time at
 * now0; *early: those that fired nothing. */
static size_t wake_run(const struct wake_query *q, const int64_t *when, size_t n, int64_t now0, size_t *early)
{
    size_t left = n, wakes = 0;
    int64_t prev = now0 - 1;
    tlist_init(&wake_out);
    *early = 0;
    q->fill(when, n, now0);
    while (left > 0) {
        int64_t t = q->next();
        size_t k;
        if (t == TIMER_NEVER || t <= prev)
            bench_fail("%s: answered %" PRId64 " after a pop at %" PRId64 " with %zu timers left", q->name, t, prev, left);
        k = q->pop(prev, t);
        if (k > left)
            bench_fail("%s: popped more timers than were inserted", q->name);
        left -= k;
        *early += k == 0;
        wakes++;
        prev = t;
    }
    q->done();
    return wakes;
}

/* wahern's 24-bit wheels wake a loop every 2^18 ticks while a timer lies
 * beyond 2^24 ticks, and re-file every such timer once per 2^24 ticks: over
 * mixed's 2^40 ticks, millions of wake-ups whatever N, and minutes of
 * re-filing at N = 1M. The mixed count takes its first timers only. */
#define WAKE_MIXED_MAX 20000

static void print_wakeups(const struct config *cfg, const struct random_wl *rw, const struct mixed_wl *mw)
{
    size_t n = 0, half, i, q, nm = mw->n < WAKE_MIXED_MAX ? mw->n : WAKE_MIXED_MAX;
    int s;
    int64_t *ordered;
    for (s = 0; s < cfg->nsizes; s++)
        if (cfg->sizes[s] > n)
            n = cfg->sizes[s];
    half = n / 2;
    ordered = (int64_t *)xmalloc((n - half + 1) * sizeof *ordered);
    for (i = half; i < n; i++)
        ordered[i - half] = ORDERED_WHEN(i);
    printf("\nWake-ups (untimed, once): a loop that asks when the next timer is due, sleeps until the answer\n"
           "and pops, until none is left; \"early\": wake-ups that fire nothing (wahern's timeouts_timeout and\n"
           "our min_time are bounds, next_expiry is exact):\n");
    for (q = 0; q < sizeof wake_queries / sizeof wake_queries[0]; q++) {
        size_t e1, e2, e3, w1, w2, w3;
        w1 = wake_run(&wake_queries[q], ordered, n - half, 0, &e1);
        w2 = wake_run(&wake_queries[q], rw->when, rw->n, 0, &e2);
        w3 = wake_run(&wake_queries[q], mw->when, nm, mw->now0, &e3);
        printf("  %-24s ordered %zu (2nd half): %zu wake-ups, %zu early | random %zu: %zu, %zu early"
               " | mixed (first %zu): %zu, %zu early\n",
               wake_queries[q].name, n, w1, e1, rw->n, w2, e2, nm, w3, e3);
    }
    free(ordered);
}
#endif /* PEER_WAHERN */

/* ---- machine, libraries -------------------------------------------------- */

static const char *ev_backend_name(unsigned b)
{
    switch (b) {
    case EVBACKEND_SELECT: return "select";
    case EVBACKEND_POLL: return "poll";
    case EVBACKEND_EPOLL: return "epoll";
    case EVBACKEND_KQUEUE: return "kqueue";
    case EVBACKEND_DEVPOLL: return "devpoll";
    case EVBACKEND_PORT: return "port";
    default: return "other";
    }
}

static void libraries(char *buf, size_t len)
{
    struct ev_loop *l = ev_loop_new(EVFLAG_AUTO);
    struct event_base *b = event_base_new();
    const char *v = event_get_version();
    int k;
    /* libev's libevent emulation answers "EV_VERSION_MAJOR.EV_VERSION_MINOR" */
    if (v == NULL || strncmp(v, "2.", 2) != 0 || event_get_version_number() < 0x02000000)
        bench_fail("libevent's functions are not libevent's (got version '%s'): link -levent_core before -lev",
                   v ? v : "?");
    if (l == NULL || b == NULL)
        bench_fail("cannot create a libev loop or a libevent base");
    k = snprintf(buf, len, "libev %d.%d (%s), libuv %s, libevent %s (%s)", ev_version_major(), ev_version_minor(),
                 ev_backend_name(ev_backend(l)), uv_version_string(), v, event_base_get_method(b));
#ifdef PEER_WAHERN
    if (k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, ", wahern/timeout %x (%s, timeout.c default build)",
                      (unsigned)timeout_version(), WAHERN_COMMIT);
#endif
#ifdef PEER_DPDK
    if (k > 0 && (size_t)k < len && pdpdk_on)
        k += snprintf(buf + k, len - (size_t)k, ", %s rte_timer (TSC %.2f GHz)", rte_version(), (double)pdpdk_hz / 1e9);
#endif
    (void)k;
    ev_loop_destroy(l);
    event_base_free(b);
}

#ifdef PEER_WAHERN
#ifndef WAHERN_COMMIT
#define WAHERN_COMMIT "unknown"
#endif
#endif

/* ---- options, main ------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: timer_peers [--sizes N,N,...] [--reps R] [--wn N] [--conns N] [--seed S] [--csv PATH]\n"
            "  --sizes  ordered-insert protocol sizes (default 10000,100000,1000000)\n"
            "  --reps   repetitions; median and spread are over them (default 5)\n"
            "  --wn     items in the random, request and mixed workloads (default 1000000)\n"
            "  --conns  connections in the idle workload (default 100000)\n"
            "  --seed   RNG seed of the workloads (default 1)\n"
            "  --csv    where to write the CSV (default peers.csv; '-' for none); PATH.info gets\n"
            "           the machine line the charts show\n");
    exit(2);
}

static void ranks_of(const int64_t *when, size_t n, size_t *rank)
{
    struct peer_due *d = (struct peer_due *)xmalloc(n * sizeof *d);
    size_t i;
    for (i = 0; i < n; i++) {
        d[i].when = when[i];
        d[i].i = (uint32_t)i;
    }
    peer_sort_due(d, n);
    for (i = 0; i < n; i++)
        rank[d[i].i] = i;
    free(d);
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct workloads wl;
    char cpu[256], cc[256], machine[640], libs[512], dpdk_why[256];
    size_t maxn, item_bytes = sizeof(struct floor_node), nrows, i;
    size_t sizes[] = { sizeof(struct kset_item), sizeof(struct kheap_item), sizeof(struct kwheel_item),
                       sizeof(struct kbsd_item), sizeof(struct pev_item), sizeof(struct puv_item),
                       sizeof(struct plev_item), sizeof(struct plct_item),
#ifdef PEER_WAHERN
                       sizeof(struct kwah_item),
#endif
#ifdef PEER_DPDK
                       sizeof(struct pdpdk_item),
#endif
    };
    struct row rows[256];
    int pipefd[2];

    parse_args(&cfg, argc, argv, "10000,100000,1000000", 5, 0, "peers.csv", usage);

    if (pipe(pipefd) != 0)
        bench_fail("pipe failed");
    peer_idle_fd = pipefd[0];
    bench_clock_cost = clock_cost();

#ifdef PEER_DPDK
    pdpdk_on = pdpdk_start(dpdk_why, sizeof dpdk_why) == 0;
    if (!pdpdk_on)
        drop_entry("dpdk");
#else
    snprintf(dpdk_why, sizeof dpdk_why, "not built in: pkg-config finds no libdpdk (make peers-deps installs libdpdk-dev)");
#endif
    libraries(libs, sizeof libs);
    cpu_model(cpu, sizeof cpu);
    compiler_name(cc, sizeof cc);
    machine_desc(machine, sizeof machine);
    printf("Timer peers benchmark | %s\n", machine);
    printf("peers: %s; bsd-tree: libbsd <bsd/sys/tree.h> RB_GENERATE, keyed by (expiry, sequence)\n", libs);
    printf("reps %d + 1 warm-up (median) | RNG seed %" PRIu64 " | clock_gettime(CLOCK_MONOTONIC) pair %.1f ns, subtracted\n"
           "per timed batch in idle/request, as in make bench\n", cfg.reps, cfg.seed, bench_clock_cost);
    printf("node B (CSV node_bytes): ours, bsd-tree and wahern (struct timeout) the embedded node; libev ev_timer,\n"
           "libuv uv_timer_t, libevent struct event (embedded with event_assign), dpdk struct rte_timer, each in\n"
           "an item array like ours.\n");
#ifndef PEER_WAHERN
    printf("SKIP wahern: not built in: make bench-peers WAHERN_DIR=/path/to/wahern/timeout, or make peers-deps to clone it\n");
#endif
#ifdef PEER_DPDK
    if (!pdpdk_on)
#endif
        printf("SKIP dpdk: %s\n", dpdk_why);
    fflush(stdout);

    rng_state = cfg.seed;               /* the same workloads as bench.c with the same seed and sizes */
    workloads_make(&wl, cfg.wn, cfg.conns);
    peer_random_rank = (size_t *)xmalloc(wl.rw.n * sizeof *peer_random_rank);
    peer_mixed_rank = (size_t *)xmalloc(wl.mw.n * sizeof *peer_mixed_rank);
    ranks_of(wl.rw.when, wl.rw.n, peer_random_rank);
    ranks_of(wl.mw.when, wl.mw.n, peer_mixed_rank);
    peer_mixed_end = 0;
    for (i = 0; i < wl.mw.n; i++)
        if (wl.mw.when[i] >= peer_mixed_end)
            peer_mixed_end = wl.mw.when[i] + 1;

    maxn = cfg.wn > cfg.conns ? cfg.wn : cfg.conns;
    for (i = 0; i < (size_t)cfg.nsizes; i++)
        if (cfg.sizes[i] > maxn)
            maxn = cfg.sizes[i];
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] > item_bytes)
            item_bytes = sizes[i];
    bench_arena_bytes = maxn * item_bytes;
    bench_arena = xmalloc(bench_arena_bytes);
    memset(bench_arena, 1, bench_arena_bytes);

    run(&cfg, &wl.rw, &wl.iw, &wl.qw, &wl.mw);

    print_notes(&cfg, &wl.iw);
#ifdef PEER_WAHERN
    print_wakeups(&cfg, &wl.rw, &wl.mw);
#endif
    printf("\n");
    print_floor_line(&cfg, cfg.wn, cfg.conns);
    nrows = table_rows(&cfg, cfg.wn, cfg.conns, rows, sizeof rows / sizeof rows[0]);
    print_ns_table(rows, nrows);
    print_ratio_table(rows, nrows);
    if (strcmp(cfg.csv, "-") != 0) {
        char info[1024];
        FILE *f;
        write_csv(cfg.csv);
        snprintf(info, sizeof info, "%s.info", cfg.csv);
        f = fopen(info, "w");
        if (f == NULL)
            bench_fail("cannot write %s", info);
        fprintf(f, "%s, %ld cores | %s %s | %s\n", cpu, sysconf(_SC_NPROCESSORS_ONLN), cc, BENCH_CFLAGS, libs);
        if (fclose(f) != 0)
            bench_fail("error writing %s", info);
        printf("\nCSV: %s (machine: %s)\n", cfg.csv, info);
    }
    close(pipefd[0]);
    close(pipefd[1]);
    workloads_free(&wl);
    free(peer_random_rank);
    free(peer_mixed_rank);
    free(bench_arena);
    free(recs);
#ifdef PEER_DPDK
    if (pdpdk_on)
        rte_eal_cleanup();
#endif
    return 0;
}
