/* debug.c - misuse stops at once with a message, before anything changes,
 * for one kind: under TIMER_DEBUG, and (v2.1) in a plain build with asserts.
 *
 * Compiled once per kind (see tk.h), with -DTIMER_DEBUG, or without it and
 * without NDEBUG (the asserts a user has on while developing). Each case
 * runs in a child process and must end in abort() with the expected
 * message on stderr, and, where the contract says "before anything is
 * changed", with both containers exactly as they were: the child's SIGABRT
 * handler checks that (sizes, the item's state, check()) and exits with 42
 * when it holds.
 *   - remove() of an item pending in another container of the same kind
 *     (in 2.0 without TIMER_DEBUG: the set corrupted both trees, the
 *     wheel's count wrapped around to SIZE_MAX); also with the item among
 *     others in its wheel slot;
 *   - reschedule() of such an item;
 *   - a tlist_foreach body that takes out an item already walked: the
 *     assert names tlist_drain;
 *   - TIMER_DEBUG only: a node scribbled on while pending: the check()
 *     after the next call names what is broken;
 * and a control case: correct use aborts nothing (the randomised test also
 * runs in the TIMER_DEBUG build: see the suite).
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(NDEBUG)
#error "compile debug.c without NDEBUG: it tests what asserts catch"
#endif

/* What the abort says about an item of another container. */
#if defined(TIMER_DEBUG)
#define DBG_FOREIGN(fn) "tc_" fn ": misuse: the item is pending in another container"
#else
#define DBG_FOREIGN(fn) "timer_" TK_KIND "_" fn ": the item is pending in another " TK_KIND ", not this one"
#endif

#if defined(TIMER_DEBUG)
#define DBG_BUILD "TIMER_DEBUG"
#else
#define DBG_BUILD "asserts"
#endif

static tc dbg_a, dbg_b;
static titem *dbg_item, *dbg_other;
static size_t dbg_size_a, dbg_size_b;

/* In the child, on abort(): was anything changed? */
static void dbg_on_abort(int sig)
{
    bool same = tc_size(&dbg_a) == dbg_size_a && tc_size(&dbg_b) == dbg_size_b && tc_pending(dbg_item) &&
                tc_check(&dbg_a) == NULL && tc_check(&dbg_b) == NULL;
    (void)sig;
    _exit(same ? 42 : 43);
}

/* Two containers of this kind, an item pending in b and one in a. */
static void dbg_setup(void)
{
    dbg_item = th_new_item(0);
    dbg_other = th_new_item(1);
    tc_init(&dbg_a, 0);
    tc_init(&dbg_b, 0);
    tc_insert(&dbg_b, 5000, dbg_item);
    tc_insert(&dbg_a, 4000, dbg_other);
    dbg_size_a = tc_size(&dbg_a);
    dbg_size_b = tc_size(&dbg_b);
}

static void case_remove_foreign(void)
{
    dbg_setup();
    signal(SIGABRT, dbg_on_abort);
    tc_remove(&dbg_a, dbg_item); /* held by b */
}

static void case_reschedule_foreign(void)
{
    dbg_setup();
    signal(SIGABRT, dbg_on_abort);
    tc_reschedule(&dbg_a, 100, dbg_item);
}

/* The same with the item second of four in its list (one wheel slot). */
static void case_remove_foreign_busy(void)
{
    int i;
    dbg_setup();
    tc_remove(&dbg_b, dbg_item);
    tc_insert(&dbg_b, 5000, th_new_item(10));
    tc_insert(&dbg_b, 5000, dbg_item);
    for (i = 0; i < 2; i++)
        tc_insert(&dbg_b, 5000, th_new_item(11 + (size_t)i));
    dbg_size_b = tc_size(&dbg_b);
    signal(SIGABRT, dbg_on_abort);
    tc_remove(&dbg_a, dbg_item);
}

/* A walk whose body removes the item it visited before the current one. */
static void case_foreach_visited(void)
{
    struct tlist out = { NULL, NULL }, *pos;
    titem *it[3];
    size_t i;
    tc c;
    tc_init(&c, 0);
    for (i = 0; i < 3; i++) {
        it[i] = th_new_item(i);
        tc_insert(&c, 5, it[i]);
    }
    tc_pop(&c, 5, &out);
    tlist_foreach(pos, &out)
        if (tc_entry(pos) == it[1])
            tc_remove(&c, it[0]);
}

#if defined(TIMER_DEBUG)
/* A pending node's expiry scribbled on (as a stray write would): the
 * check after the next call must name what is broken. (Scribbled links
 * would crash any walk; the expiry is what a checker can catch.) */
static void case_corrupted(void)
{
    titem *more = th_new_item(2);
    dbg_setup();
    tc_insert(&dbg_b, 6000, more);
    dbg_item->node.expire = 9999; /* was 5000: now out of order, in the wrong slot */
    tc_insert(&dbg_b, 7000, th_new_item(3));
}
#endif

/* Correct use, including an item in two containers of this kind through two
 * members, must not abort. */
static void case_control(void)
{
    struct tlist out = { NULL, NULL };
    T2_TYPE c2;
    dbg_setup();
    T2(init)(&c2, 0);
    T2(insert)(&c2, 10, dbg_item);
    tc_reschedule(&dbg_b, 3, dbg_item);
    tc_pop(&dbg_b, 3, &out);
    tc_reserve(&dbg_b, 10);
    tc_next_expiry(&dbg_a);
    tc_remove(&dbg_b, dbg_item); /* due: out of the list */
    tc_remove(&dbg_a, dbg_other);
    T2(remove)(&c2, dbg_item);
    tc_clear(&dbg_a);
    tc_destroy(&dbg_b);
    T2(destroy)(&c2);
    exit(0);
}

struct dbg_case {
    const char *name;
    void (*run)(void);
    int want_exit;    /* -1: killed by SIGABRT */
    const char *want; /* in stderr */
};

static int dbg_run(const struct dbg_case *c)
{
    int fds[2], status;
    char err[4096];
    ssize_t n, got = 0;
    pid_t pid;

    fflush(stdout); /* or the child flushes our buffer a second time */
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        printf("FAIL %s %s: cannot fork\n", TK_KIND, c->name);
        return 1;
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        c->run();
        _exit(0); /* no abort: the misuse went unnoticed */
    }
    close(fds[1]);
    while (got < (ssize_t)sizeof err - 1 && (n = read(fds[0], err + got, sizeof err - 1 - (size_t)got)) > 0)
        got += n;
    err[got] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    if ((c->want_exit < 0 ? !(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)
                          : !(WIFEXITED(status) && WEXITSTATUS(status) == c->want_exit)) ||
        strstr(err, c->want) == NULL) {
        printf("FAIL %s %s: exit %d, signal %d, stderr \"%s\"; want %s %d and \"%s\"\n", TK_KIND, c->name,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0, err,
               c->want_exit < 0 ? "signal" : "exit", c->want_exit < 0 ? SIGABRT : c->want_exit, c->want);
        return 1;
    }
    printf("pass %s %s: %s", TK_KIND, c->name, *err ? err : "(no message, as wanted)\n");
    return 0;
}

int main(void)
{
    static const struct dbg_case cases[] = {
        { "remove_foreign", case_remove_foreign, 42, DBG_FOREIGN("remove") },
        { "remove_foreign_busy", case_remove_foreign_busy, 42, DBG_FOREIGN("remove") },
        { "reschedule_foreign", case_reschedule_foreign, 42, DBG_FOREIGN("reschedule") },
        { "foreach_visited", case_foreach_visited, -1, "walk a due list with tlist_drain" },
#if defined(TIMER_DEBUG)
        { "corrupted_node", case_corrupted, -1, "timer_containers: tc_insert: " },
#endif
        { "control", case_control, 0, "" },
    };
    size_t i;
    int failed = 0;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failed += dbg_run(&cases[i]);
    printf("debug %s (%s): %d of %zu cases failed\n", TK_KIND, DBG_BUILD, failed, sizeof cases / sizeof cases[0]);
    return failed != 0;
}
