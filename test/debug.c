/* debug.c - misuse stops at once with a message, or changes nothing, for
 * one kind, in the three builds the contract names: TIMER_DEBUG, a plain
 * build with asserts (v2.1), and -DNDEBUG (v2.2: what an O(1) check can
 * tell is refused there too).
 *
 * Compiled once per kind (see tk.h) and build. Each case runs in a child
 * process; it must end in abort() with the expected message on stderr or
 * exit with the expected status. Where the contract says "before anything
 * is changed", the child's SIGABRT handler (or the case itself, when the
 * call returns) checks that both containers are exactly as they were
 * (sizes, the item's state, check()) and exits with 42 when they are.
 *   - remove() of an item pending in another container of the same kind
 *     (in 2.0 without TIMER_DEBUG: the set corrupted both trees, the
 *     wheel's count wrapped around to SIZE_MAX); also with the item among
 *     others in its wheel slot, and through an empty container;
 *   - reschedule() of such an item;
 *   - remove() of an item after init() of the container holding it: the
 *     message names init as well as another container;
 *   - insert() of a due item: aborts naming reschedule and tlist_drain, or
 *     (-DNDEBUG) returns -EBUSY with nothing changed; -EBUSY for a pending
 *     item is silent in every build;
 *   - insert() of an item whose links are not this container's (v2.4): one
 *     pending in another container of the kind (also through an empty
 *     one), one that another list took (idle, then pushed on a list of the
 *     program's), one left in a result list that was inited again while it
 *     held it (stale): aborts saying so, not that the item is due, or
 *     (-DNDEBUG) returns -EBUSY with nothing changed;
 *   - tlist_foreach bodies (v2.2): reschedule, remove, insert and "free"
 *     (remove, then the bytes scribbled over as an allocator would) of the
 *     current item, the previous one, the next one, and one further back
 *     and one further on. None hangs or crashes; those the walk cannot
 *     follow (taking out the previous item) abort naming tlist_drain, or
 *     (-DNDEBUG) end the walk; the others visit exactly what is left;
 *   - TIMER_DEBUG only: a node scribbled on while pending: the check()
 *     after the next call names what is broken;
 * and a control case: correct use aborts nothing (the randomised test also
 * runs in the TIMER_DEBUG build: see the suite).
 *
 * `debug_KIND CASE` runs one case in this process, with no handler of its
 * own, so that test/run.sh's expect_abort sees the abort and its message.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the abort says about an item of another container. */
#if defined(TIMER_DEBUG)
#define DBG_FOREIGN(fn) "tc_" fn ": misuse: the item is not in this container (another holds it, or init was called"
#define DBG_BUILD "TIMER_DEBUG"
#elif !defined(NDEBUG)
#define DBG_FOREIGN(fn) "timer_" TK_KIND "_" fn ": the item is not in this " TK_KIND " (another " TK_KIND " holds it, or init was called"
#define DBG_BUILD "asserts"
#else
#define DBG_BUILD "NDEBUG"
#endif

/* A misuse stops with MSG and nothing changed (exit 42 from the SIGABRT
 * handler); -DNDEBUG: the call returns, refused, nothing changed (42). */
#if defined(NDEBUG)
#define DBG_ABORT(msg) 42, ""
#else
#define DBG_ABORT(msg) 42, msg
#endif

/* What the abort says about an insert of an item linked elsewhere (v2.4). */
#define DBG_LINKED_ELSEWHERE                                                              \
    "tc_insert: the item's links are not this container's (it is pending in another one, " \
    "or another list reused its node, or its links are stale): insert arms nothing "       \
    "(-EBUSY); take it out of that list, or zero the node if nothing links it any more"

/* Which foreign calls a -DNDEBUG build can tell in O(1): the heap always
 * (the stored position), the wheel when the item is alone in its list, any
 * kind through an empty container. */
#if !defined(NDEBUG) || defined(TK_HEAP)
#define DBG_TELLS_BUSY 1
#else
#define DBG_TELLS_BUSY 0
#endif
#if !defined(NDEBUG) || !defined(TK_SET)
#define DBG_TELLS_ALONE 1
#else
#define DBG_TELLS_ALONE 0
#endif

static tc dbg_a, dbg_b;
static titem *dbg_item, *dbg_other;
static size_t dbg_size_a, dbg_size_b;
static struct tlist dbg_out;
static bool dbg_direct;   /* one case run in this process: no SIGABRT handler */
static bool dbg_unarmed;  /* the case leaves the item neither pending nor due */

/* Both containers as they were, and the item pending (or due) still? */
static bool dbg_same(void)
{
    return tc_size(&dbg_a) == dbg_size_a && tc_size(&dbg_b) == dbg_size_b &&
           (dbg_unarmed || tc_pending(dbg_item) || tc_due(dbg_item)) && tc_check(&dbg_a) == NULL &&
           tc_check(&dbg_b) == NULL;
}

/* In the child, on abort(): was anything changed? */
static void dbg_on_abort(int sig)
{
    (void)sig;
    _exit(dbg_same() ? 42 : 43);
}

/* The call returned (-DNDEBUG): refused, with nothing changed? */
static void dbg_returned(bool refused)
{
    _exit(refused && dbg_same() ? 42 : 43);
}

/* A call of the set-up that must succeed (exit 47 if it did not). */
static void dbg_ok(int rc)
{
    if (rc != 0)
        _exit(47);
}

/* Two containers of this kind, an item pending in b and one in a (unless
 * a stays empty). */
static void dbg_setup(bool a_empty)
{
    dbg_item = th_new_item(0);
    dbg_other = th_new_item(1);
    tc_init(&dbg_a, 0);
    tc_init(&dbg_b, 0);
    dbg_ok(tc_insert(&dbg_b, 5000, dbg_item));
    if (!a_empty)
        dbg_ok(tc_insert(&dbg_a, 4000, dbg_other));
    dbg_size_a = tc_size(&dbg_a);
    dbg_size_b = tc_size(&dbg_b);
    if (!dbg_direct)
        signal(SIGABRT, dbg_on_abort);
}

static void case_remove_foreign(int a_empty)
{
    dbg_setup(a_empty != 0);
    dbg_returned(!tc_remove(&dbg_a, dbg_item)); /* held by b */
}

static void case_reschedule_foreign(int a_empty)
{
    dbg_setup(a_empty != 0);
    dbg_returned(tc_reschedule(&dbg_a, 100, dbg_item) == -EINVAL);
}

/* init of a container that still holds an item, then a remove of that
 * item: the message names init as a cause, not only another container
 * (2.2 said "pending in another KIND" of the very container it was in). */
static void case_remove_after_init(int unused)
{
    (void)unused;
    dbg_setup(true);
    tc_init(&dbg_b, 0); /* the misuse: clear() empties a container in use */
    dbg_size_b = 0;
    dbg_returned(!tc_remove(&dbg_b, dbg_item));
}

#if DBG_TELLS_BUSY
/* The same with the item second of four in its list (one wheel slot). */
static void case_remove_foreign_busy(int unused)
{
    int i;
    (void)unused;
    dbg_setup(false);
    tc_remove(&dbg_b, dbg_item);
    dbg_ok(tc_insert(&dbg_b, 5000, th_new_item(10)));
    dbg_ok(tc_insert(&dbg_b, 5000, dbg_item));
    for (i = 0; i < 2; i++)
        dbg_ok(tc_insert(&dbg_b, 5000, th_new_item(11 + (size_t)i)));
    dbg_size_b = tc_size(&dbg_b);
    dbg_returned(!tc_remove(&dbg_a, dbg_item));
}
#endif

/* insert() of a due item (popped, in a result list): a mistake in every
 * build; of a pending item: -EBUSY, silently ("arm unless armed"). */
static void case_insert_busy(int due)
{
    dbg_setup(false);
    if (due) {
        tc_pop(&dbg_b, 5000, &dbg_out);
        dbg_size_b = tc_size(&dbg_b);
    }
    dbg_returned(tc_insert(&dbg_b, 7000, dbg_item) == -EBUSY && (due ? tc_due(dbg_item) : tc_pending(dbg_item)));
}

/* insert() of an item pending in another container (b holds it; a is
 * empty when a_empty): its links are not a's, and an abort must say that,
 * not "due" (2.3: -EBUSY without a word, in every build). */
static void case_insert_foreign(int a_empty)
{
    dbg_setup(a_empty != 0);
    dbg_returned(tc_insert(&dbg_a, 7000, dbg_item) == -EBUSY && tc_pending(dbg_item));
}

/* insert() of an idle item whose node another list took (a program's own
 * queue that reuses the node's memory; 2.3's set called it due, the heap
 * and the wheel said nothing). A plain struct tlist list stands for it. */
static void case_insert_reused(int unused)
{
    static struct tlist theirs;
    titem *item = th_new_item(3);
    (void)unused;
    dbg_setup(false);
    dbg_item = item;
    dbg_unarmed = true;
    tlist_push_back(&theirs, (struct tlist *)(void *)&item->node);
    dbg_returned(tc_insert(&dbg_b, 7000, item) == -EBUSY && tlist_size(&theirs) == 1);
}

/* insert() of an item left in a result list that was inited again while it
 * held it: the item is marked due, but its list no longer holds it. */
static void case_insert_stale(int unused)
{
    (void)unused;
    dbg_setup(false);
    tc_pop(&dbg_b, 5000, &dbg_out);
    tlist_init(&dbg_out); /* the misuse: the list forgets its items */
    dbg_size_b = tc_size(&dbg_b);
    dbg_returned(tc_insert(&dbg_b, 7000, dbg_item) == -EBUSY && tc_due(dbg_item));
}

/* tlist_foreach over six due items (ids 0-5); at item 2 the body does OP
 * to the item at offset AT from it. */
enum { OP_RESCHEDULE, OP_REMOVE, OP_INSERT, OP_FREE, N_OPS };
static const char *const dbg_op_name[N_OPS] = { "reschedule", "remove", "insert", "free" };
static const int dbg_at[] = { 0, -1, 1, -2, 2 };
static const char *const dbg_at_name[] = { "current", "previous", "next", "earlier", "later" };
#define N_AT (sizeof dbg_at / sizeof dbg_at[0])

static void case_foreach(int arg)
{
    int op = arg / (int)N_AT, at = dbg_at[arg % (int)N_AT], seen[16], want[6], n_seen = 0, n_want = 0, i;
    struct tlist out = { NULL, NULL }, *pos;
    titem *it[6], *target;
    size_t pending = 0;
    tc c;
    tc_init(&c, 0);
    for (i = 0; i < 6; i++) {
        it[i] = th_new_item((size_t)i);
        dbg_ok(tc_insert(&c, 5, it[i]));
    }
    tc_pop(&c, 5, &out);
    target = it[2 + at];
    tlist_foreach(pos, &out) {
        titem *cur = tc_entry(pos);
        if (n_seen == 16)
            _exit(45); /* walking in circles */
        seen[n_seen++] = cur->id;
        if (cur->id != 2)
            continue;
        switch (op) {
        case OP_RESCHEDULE:
            if (tc_reschedule(&c, 100, target) != 0)
                _exit(46);
            pending = 1;
            break;
        case OP_REMOVE:
            if (!tc_remove(&c, target))
                _exit(46);
            break;
        case OP_INSERT:
            if (tc_insert(&c, 100, target) != -EBUSY) /* -DNDEBUG: refused, nothing changed */
                _exit(46);
            break;
        default: /* free: removed, then its bytes are the allocator's */
            if (!tc_remove(&c, target))
                _exit(46);
            memset(target, 0xA5, sizeof *target);
            break;
        }
    }
    /* What it must have visited: everything still in the list when the walk
     * got there; a walk whose previous item was taken out ends. */
    for (i = 0; i < 6; i++)
        if (op == OP_INSERT || i <= 2 || i != 2 + at)
            want[n_want++] = i;
    if (op != OP_INSERT && at == -1)
        n_want = 3;
    if (n_seen != n_want || memcmp(seen, want, sizeof want[0] * (size_t)n_want) != 0 || tc_size(&c) != pending ||
        tc_check(&c) != NULL) {
        fprintf(stderr, "visited %d items:", n_seen);
        for (i = 0; i < n_seen; i++)
            fprintf(stderr, " %d", seen[i]);
        fprintf(stderr, "; size %zu\n", tc_size(&c));
        _exit(44);
    }
    _exit(0);
}

#if defined(TIMER_DEBUG)
/* A pending node's expiry scribbled on (as a stray write would): the
 * check after the next call must name what is broken. (Scribbled links
 * would crash any walk; the expiry is what a checker can catch.) */
static void case_corrupted(int unused)
{
    titem *more = th_new_item(2);
    (void)unused;
    dbg_setup(false);
    signal(SIGABRT, SIG_DFL);
    dbg_ok(tc_insert(&dbg_b, 6000, more));
    dbg_item->node.expire = 9999; /* was 5000: now out of order, in the wrong slot */
    dbg_ok(tc_insert(&dbg_b, 7000, th_new_item(3)));
}
#endif

/* Correct use, including an item in two containers of this kind through two
 * members, must not abort. */
static void case_control(int unused)
{
    struct tlist out = { NULL, NULL };
    T2_TYPE c2;
    (void)unused;
    dbg_setup(false);
    T2(init)(&c2, 0);
    dbg_ok(T2(insert)(&c2, 10, dbg_item));
    dbg_ok(tc_reschedule(&dbg_b, 3, dbg_item));
    tc_pop(&dbg_b, 3, &out);
    dbg_ok(tc_reserve(&dbg_b, 10));
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
    void (*run)(int);
    int arg;
    int want_exit;    /* -1: killed by SIGABRT */
    const char *want; /* in stderr; "" means nothing at all */
};

/* An assert prints its expression as written: a message split into
 * adjacent string literals (to keep a header's lines short) shows `" "`
 * between its parts. Join them, as the compiler does, before matching. */
static void dbg_join_literals(char *s)
{
    char *out = s;
    for (; *s != '\0'; s++) {
        if (s[0] == '"' && s[1] == ' ' && s[2] == '"')
            s += 2;
        else
            *out++ = *s;
    }
    *out = '\0';
}

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
        c->run(c->arg);
        _exit(0); /* no abort: the misuse went unnoticed */
    }
    close(fds[1]);
    while (got < (ssize_t)sizeof err - 1 && (n = read(fds[0], err + got, sizeof err - 1 - (size_t)got)) > 0)
        got += n;
    err[got] = '\0';
    close(fds[0]);
    dbg_join_literals(err);
    waitpid(pid, &status, 0);
    if ((c->want_exit < 0 ? !(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)
                          : !(WIFEXITED(status) && WEXITSTATUS(status) == c->want_exit)) ||
        strstr(err, c->want) == NULL || (*c->want == '\0' && *err != '\0')) {
        printf("FAIL %s %s: exit %d, signal %d, stderr \"%s\"; want %s %d and \"%s\"\n", TK_KIND, c->name,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0, err,
               c->want_exit < 0 ? "signal" : "exit", c->want_exit < 0 ? SIGABRT : c->want_exit, c->want);
        return 1;
    }
    printf("pass %s %s: %s", TK_KIND, c->name, *err ? err : "(no message, as wanted)\n");
    return 0;
}

int main(int argc, char **argv)
{
    static const struct dbg_case cases[] = {
#if DBG_TELLS_ALONE
        { "remove_foreign", case_remove_foreign, 0, DBG_ABORT(DBG_FOREIGN("remove")) },
        { "reschedule_foreign", case_reschedule_foreign, 0, DBG_ABORT(DBG_FOREIGN("reschedule")) },
#endif
#if DBG_TELLS_BUSY
        { "remove_foreign_busy", case_remove_foreign_busy, 0, DBG_ABORT(DBG_FOREIGN("remove")) },
#endif
        { "remove_foreign_empty", case_remove_foreign, 1, DBG_ABORT(DBG_FOREIGN("remove")) },
        { "reschedule_foreign_empty", case_reschedule_foreign, 1, DBG_ABORT(DBG_FOREIGN("reschedule")) },
        { "remove_after_init", case_remove_after_init, 0, DBG_ABORT(DBG_FOREIGN("remove")) },
        { "insert_due", case_insert_busy, 1,
          DBG_ABORT("tc_insert: the item is due (popped, still in a result list): re-arm it with tc_reschedule, "
                    "or take each item off the list first (tlist_drain)") },
        { "insert_pending", case_insert_busy, 0, 42, "" },
        { "insert_foreign", case_insert_foreign, 0, DBG_ABORT(DBG_LINKED_ELSEWHERE) },
        { "insert_foreign_empty", case_insert_foreign, 1, DBG_ABORT(DBG_LINKED_ELSEWHERE) },
        { "insert_reused", case_insert_reused, 0, DBG_ABORT(DBG_LINKED_ELSEWHERE) },
        { "insert_stale", case_insert_stale, 0, DBG_ABORT(DBG_LINKED_ELSEWHERE) },
#if defined(TIMER_DEBUG)
        { "corrupted_node", case_corrupted, 0, -1, "timer_containers: tc_insert: " },
#endif
        { "control", case_control, 0, 0, "" },
    };
    struct dbg_case walk;
    char name[64];
    size_t i;
    int failed = 0, n = 0;

    if (argc > 1) { /* one case, here: its abort is this process's */
        dbg_direct = true;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (strcmp(argv[1], cases[i].name) == 0)
                cases[i].run(cases[i].arg);
        printf("%s: no case ran or it returned\n", argv[1]);
        return 1;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++, n++) {
        struct dbg_case c = cases[i];
        failed += dbg_run(&c);
    }
    /* Every tlist_foreach body: the walk goes on, or it stops (asserts:
     * abort naming tlist_drain; -DNDEBUG: the walk ends, checked inside). */
    walk.run = case_foreach;
    walk.name = name;
    for (walk.arg = 0; walk.arg < (int)(N_OPS * N_AT); walk.arg++, n++) {
        int op = walk.arg / (int)N_AT, at = walk.arg % (int)N_AT;
        snprintf(name, sizeof name, "foreach_%s_%s", dbg_op_name[op], dbg_at_name[at]);
        walk.want_exit = 0;
        walk.want = "";
#if !defined(NDEBUG)
        if (op == OP_INSERT) {
            walk.want_exit = -1;
            walk.want = "re-arm it with tc_reschedule, or take each item off the list first (tlist_drain)";
        } else if (dbg_at[at] == -1) {
            walk.want_exit = -1;
            walk.want = "walk a due list with tlist_drain instead";
        }
#endif
        failed += dbg_run(&walk);
    }
    printf("debug %s (%s): %d of %d cases failed\n", TK_KIND, DBG_BUILD, failed, n);
    return failed != 0;
}
