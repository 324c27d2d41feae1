/* conform.c - the container contract, case by case, for one kind.
 *
 * Compiled once per kind (-DTK_SET, -DTK_HEAP, -DTK_WHEEL; see tk.h). Each
 * case states the contract row it checks with explicit values, and runs its
 * operations through the harness, which also compares everything against the
 * reference model after each one: a misuse that "changes nothing" is checked
 * by th_verify finding the model, which did not change, still matching.
 */
#include "harness.h"

static int64_t conf_pow64(int k)
{
    return (int64_t)(UINT64_C(1) << (6 * k));
}

/* The id of the item behind a result-list link. */
static size_t conf_id(struct th *h, struct tlist *link)
{
    long id = th_id_of(h, link, __LINE__);
    return id < 0 ? 0 : (size_t)id;
}

static void test_node_size(void)
{
    printf("%s: sizeof(node) = %zu, sizeof(container) = %zu\n", TK_KIND, sizeof(TK_NODE), sizeof(tc));
    TH_EXPECT(sizeof(TK_NODE) <= 32, "the node is %zu bytes, the budget is 32", sizeof(TK_NODE));
}

static titem conf_static_item; /* static storage: all zero */

/* A node whose bytes are all zero is idle, however it got zeroed. */
static void test_zeroed_node_is_idle(void)
{
    titem local, *allocated = th_new_item(7), *item[3], *it;
    struct tlist out;
    tc c;
    int i, n = 0;

    memset(&local, 0, sizeof local);
    item[0] = &conf_static_item;
    item[1] = &local;
    item[2] = allocated;
    tc_init(&c, 0);
    for (i = 0; i < 3; i++) {
        TH_EQ(tc_pending(item[i]), false);
        TH_EQ(tc_remove(&c, item[i]), false);
        TH_EQ(tc_size(&c), 0);
    }
    for (i = 0; i < 3; i++) {
        TH_EQ(tc_insert(&c, 10 + i, item[i]), 0);
        TH_EQ(tc_pending(item[i]), true);
        TH_EQ(tc_expire(item[i]), 10 + i);
    }
    TH_EQ(tc_size(&c), 3);
    TH_EQ(tc_min_time(&c), 10);
    TH_EXPECT(tc_check(&c) == NULL, "check(): %s", tc_check(&c));
    tlist_init(&out);
    TH_EQ(tc_pop(&c, 12, &out), 3);
    while ((it = tc_entry(tlist_pop_front(&out))) != NULL) {
        TH_EQ(tc_pending(it), false);
        n++;
    }
    TH_EQ(n, 3);
    TH_EQ(tc_empty(&c), true);
    tc_destroy(&c);
    free(allocated);
}

/* An empty container, whatever its clock: size 0, TIMER_NEVER, pop adds nothing. */
static void test_empty_container(void)
{
    static const int64_t nows[] = { 0, 12345, -5, INT64_MIN, INT64_MAX };
    struct tlist out, foreign = { NULL, NULL };
    size_t i;
    tc c;

    for (i = 0; i < sizeof nows / sizeof nows[0]; i++) {
        tc_init(&c, nows[i]);
        TH_EQ(tc_size(&c), 0);
        TH_EQ(tc_empty(&c), true);
        TH_EQ(tc_min_time(&c), TIMER_NEVER);
        TH_EXPECT(tc_check(&c) == NULL, "check(): %s", tc_check(&c));
        tlist_init(&out);
        tlist_push_back(&out, &foreign); /* pop appends: what is there stays */
        TH_EQ(tc_pop(&c, 0, &out), 0);
        TH_EQ(tc_pop(&c, INT64_MAX, &out), 0);
        TH_EQ(tlist_size(&out), 1);
        TH_EXPECT(out.next == &foreign, "pop on an empty container changed the result list");
        tlist_remove(&foreign);
        TH_EQ(tc_min_time(&c), TIMER_NEVER);
        tc_destroy(&c);
    }
}

/* idle -> pending -> due -> idle, and every other arrow of the state diagram. */
static void test_state_transitions(void)
{
    struct th h;

    th_init(&h, 4, 0);
    /* idle -> pending (insert) -> due (pop) -> idle (taken off the list) */
    TH_EQ(th_insert(&h, 0, 100), 0);
    TH_EQ(tc_pending(h.item[0]), true);
    TH_EQ(th_pop(&h, 100), 1);
    TH_EQ(tc_pending(h.item[0]), false);
    TH_EQ(tc_expire(h.item[0]), 100); /* a due item still tells its expiry */
    th_verify(&h);
    TH_EQ(th_drain_one(&h), 0);
    th_verify(&h);

    /* pending -> idle (remove); removing again is a no-op */
    TH_EQ(th_insert(&h, 1, 200), 0);
    TH_EQ(th_remove(&h, 1), true);
    TH_EQ(th_remove(&h, 1), false);
    TH_EQ(tc_pending(h.item[1]), false);
    th_verify(&h);

    /* due -> idle (remove): it leaves the result list and is not delivered */
    TH_EQ(th_insert(&h, 2, 300), 0);
    TH_EQ(th_insert(&h, 3, 300), 0);
    TH_EQ(th_pop(&h, 300), 2);
    TH_EQ(th_remove(&h, 2), true);
    TH_EQ(tlist_size(&h.out), 1);
    th_verify(&h);

    /* due -> pending (reschedule): it leaves the result list too */
    TH_EQ(th_reschedule(&h, 3, 400), 0);
    TH_EQ(tlist_empty(&h.out), true);
    TH_EQ(tc_pending(h.item[3]), true);
    TH_EQ(tc_expire(h.item[3]), 400);
    th_verify(&h);

    /* pending -> pending at a new expiry (earlier, then later); idle -> pending */
    TH_EQ(th_reschedule(&h, 3, 350), 0);
    TH_EQ(th_reschedule(&h, 3, 370), 0);
    TH_EQ(th_reschedule(&h, 0, 360), 0);
    TH_EQ(tc_size(&h.c), 2);
    th_verify(&h);
    TH_EQ(th_pop(&h, 369), 1);
    TH_EQ(th_pop(&h, 370), 1);
    th_verify(&h);
    /* a drained item can be inserted again */
    th_drain_all(&h);
    TH_EQ(th_insert(&h, 3, 371), 0);
    th_verify(&h);
    th_fini(&h);
}

/* pop(now) takes exactly the items with expire <= now, at every boundary. */
static void test_pop_exact(void)
{
    static const int64_t ex[] = { 0, 1, 63, 64, 65, 4095, 4096, 4097, 262143, 262144, INT64_C(1) << 30,
                                  (INT64_C(1) << 30) + 1, INT64_C(1) << 36, (INT64_C(1) << 36) + 64 };
    const size_t n = sizeof ex / sizeof ex[0];
    struct th h;
    size_t i;

    th_init(&h, n, 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, ex[i]), 0);
    th_verify(&h);
    for (i = 0; i < n; i++) {
        if (ex[i] > 0)
            TH_EQ(th_pop(&h, ex[i] - 1), 0);
        TH_EQ(th_pop(&h, ex[i]), 1);
        th_verify(&h);
    }
    TH_EQ(tc_empty(&h.c), true);
    th_fini(&h);
}

/* Every kind: non-decreasing expiry, FIFO among equal expiries, a
 * reschedule counting as a new insertion (th_pop checks it too). */
static void test_pop_order(void)
{
    static const int64_t ex[] = { 5, 3, 5, 1, 3, 5, 1 };
    /* after item 0 is rescheduled to 5 and item 3 to 1, both go last among equals */
    static const size_t fifo[] = { 6, 3, 1, 4, 2, 5, 0 };
    struct th h;
    size_t i;

    th_init(&h, 7, 0);
    for (i = 0; i < 7; i++)
        TH_EQ(th_insert(&h, i, ex[i]), 0);
    TH_EQ(th_reschedule(&h, 0, 5), 0);
    TH_EQ(th_reschedule(&h, 3, 1), 0);
    TH_EQ(th_pop(&h, 10), 7);
    for (i = 0; i < 7; i++) {
        long id = th_drain_one(&h);
        TH_EQ(id, fifo[i]);
    }
    th_fini(&h);
}

/* An expiry at or before the clock is allowed: the item waits for the next
 * pop with now >= expire, and a pop with now < expire leaves it alone. */
static void test_overdue_insert(void)
{
    struct th h;

    th_init(&h, 4, 1000);
    TH_EQ(th_insert(&h, 0, 500), 0);
    TH_EQ(tc_min_time(&h.c), 500);
    TH_EQ(th_pop(&h, 499), 0);
    TH_EQ(th_pop(&h, 500), 1);
    TH_EQ(th_insert(&h, 1, 1000), 0); /* exactly at the clock */
    TH_EQ(th_pop(&h, 999), 0);
    TH_EQ(th_pop(&h, 1000), 1);
    th_verify(&h);

    /* after the clock has moved far ahead */
    TH_EQ(th_pop(&h, INT64_C(1) << 40), 0);
    TH_EQ(th_insert(&h, 2, INT64_C(1) << 20), 0);
    TH_EQ(th_insert(&h, 3, 0), 0);
    th_verify(&h);
    TH_EQ(th_pop(&h, (INT64_C(1) << 20) - 1), 1);
    TH_EQ(th_pop(&h, INT64_C(1) << 20), 1);
    th_verify(&h);
    th_fini(&h);
}

/* Expiries 0 and INT64_MAX, pop(INT64_MAX), and a clock at the end of time. */
static void test_extremes(void)
{
    struct th h;

    th_init(&h, 4, 0);
    TH_EQ(th_insert(&h, 0, 0), 0);
    TH_EQ(th_insert(&h, 1, INT64_MAX), 0);
    TH_EQ(th_insert(&h, 2, INT64_MAX - 1), 0);
    TH_EQ(th_insert(&h, 3, INT64_MAX), 0);
    TH_EQ(tc_min_time(&h.c), 0);
    TH_EQ(th_pop(&h, 0), 1);
    TH_EQ(th_pop(&h, INT64_MAX - 2), 0);
    TH_EQ(th_pop(&h, INT64_MAX - 1), 1);
    TH_EQ(tc_min_time(&h.c), INT64_MAX);
    TH_EQ(th_pop(&h, INT64_MAX), 2);
    TH_EQ(tc_empty(&h.c), true);
    TH_EQ(tc_min_time(&h.c), TIMER_NEVER);
    th_drain_all(&h);
    /* the clock is INT64_MAX now: everything is overdue */
    TH_EQ(th_insert(&h, 0, 0), 0);
    TH_EQ(th_insert(&h, 1, INT64_MAX), 0);
    TH_EQ(th_pop(&h, 0), 1);
    TH_EQ(th_pop(&h, INT64_MAX), 1);
    th_verify(&h);
    th_fini(&h);

    /* a container that starts at the end of time */
    th_init(&h, 2, INT64_MAX);
    TH_EQ(th_insert(&h, 0, 5), 0);
    TH_EQ(th_insert(&h, 1, INT64_MAX), 0);
    TH_EQ(tc_min_time(&h.c), 5);
    TH_EQ(th_pop(&h, 4), 0);
    TH_EQ(th_pop(&h, 5), 1);
    TH_EQ(th_pop(&h, INT64_MAX), 1);
    th_verify(&h);
    th_fini(&h);
}

/* init with now < 0 starts the clock at 0: for the wheel, an item in [0, 63]
 * is then in the clock's finest window and min_time must be exact. */
static void test_init_negative_now(void)
{
    static const int64_t nows[] = { -1, -4096, INT64_MIN };
    struct th h;
    size_t i;

    for (i = 0; i < sizeof nows / sizeof nows[0]; i++) {
        th_init(&h, 3, nows[i]);
        TH_EQ(th_insert(&h, 1, 63), 0);
        TH_EQ(th_insert(&h, 2, 64), 0);
        TH_EQ(tc_min_time(&h.c), 63);
        TH_EQ(th_insert(&h, 0, 0), 0);
        TH_EQ(tc_min_time(&h.c), 0);
        th_verify(&h);
        TH_EQ(th_pop(&h, 0), 1);
        TH_EQ(th_pop(&h, 63), 1);
        TH_EQ(th_pop(&h, 64), 1);
        th_verify(&h);
        th_fini(&h);
    }
}

/* now may go backwards: an earlier now simply pops what is due by then. */
static void test_now_backwards(void)
{
    struct th h;

    th_init(&h, 5, 0);
    TH_EQ(th_pop(&h, 10000), 0);
    TH_EQ(th_insert(&h, 0, 20), 0);
    TH_EQ(th_insert(&h, 1, 5000), 0);
    TH_EQ(th_insert(&h, 2, 9000), 0);
    TH_EQ(th_insert(&h, 3, 20000), 0);
    TH_EQ(th_insert(&h, 4, 10000), 0);
    th_verify(&h);
    TH_EQ(th_pop(&h, 4999), 1);
    TH_EQ(th_pop(&h, 9000), 2);
    TH_EQ(th_pop(&h, 9999), 0);
    TH_EQ(th_pop(&h, 10000), 1);
    TH_EQ(th_pop(&h, 19999), 0);
    TH_EQ(th_pop(&h, 20000), 1);
    th_drain_all(&h);
    /* a huge jump, then back */
    TH_EQ(th_pop(&h, INT64_C(1) << 50), 0);
    TH_EQ(th_insert(&h, 0, INT64_C(1) << 30), 0);
    TH_EQ(th_insert(&h, 1, (INT64_C(1) << 50) + 1), 0);
    TH_EQ(th_pop(&h, INT64_C(1) << 29), 0);
    TH_EQ(th_pop(&h, INT64_C(1) << 30), 1);
    TH_EQ(th_pop(&h, INT64_C(1) << 49), 0);
    TH_EQ(th_pop(&h, (INT64_C(1) << 50) + 1), 1);
    th_verify(&h);
    th_fini(&h);
}

/* A pop whose now is behind the clock changes nothing (contract v2.4): the
 * clock stays the latest now given to pop, and min_time is exact whenever
 * the earliest expiry lies in its finest 64-tick window. First the case
 * that 2.2 and 2.3 got wrong, then its class at random: pops back by any
 * amount, with inserts, reschedules and removes in, around and far from
 * that window; th_check_min_time judges min_time after every call. */
static void test_min_time_after_pops_back(void)
{
    struct th h;
    int round, k;

    th_init(&h, 2, 760362425000);
    TH_EQ(th_pop(&h, 38041865784721), 0);
    TH_EQ(th_pop(&h, 38041865784451), 0);
    TH_EQ(th_insert(&h, 0, 38041865784741), 0);
    TH_EQ(th_insert(&h, 1, 38041865784724), 0);
    TH_EQ(tc_min_time(&h.c), 38041865784724);
    th_verify(&h);
    th_fini(&h);
    for (round = 0; round < 300; round++) {
        int64_t c = (int64_t)th_below(UINT64_C(1) << 45), back;
        th_init(&h, 16, (int64_t)th_below((uint64_t)c + 1));
        (void)th_pop(&h, c);
        for (k = 0; k < 60; k++) {
            size_t i = (size_t)th_below(16);
            int64_t near = c - 64 + (int64_t)th_below(192), far = c + (int64_t)th_below(UINT64_C(1) << th_below(44));
            switch (th_below(5)) {
            case 0:
                back = (int64_t)th_below(UINT64_C(1) << th_below(44));
                (void)th_pop(&h, c > back ? c - back : 0);
                break;
            case 1:
                (void)th_reschedule(&h, i, near > 0 ? near : 0);
                break;
            case 2:
                (void)th_reschedule(&h, i, th_below(4) == 0 ? c - (int64_t)th_below((uint64_t)c + 1) : far);
                break;
            case 3:
                (void)th_remove(&h, i);
                break;
            default:
                if (th_below(8) == 0)
                    (void)th_pop(&h, c = near > c ? near : c);     /* the clock moves on a little */
                else
                    (void)th_next_expiry(&h);
                break;
            }
            th_check_min_time(&h);
        }
        th_verify(&h);
        th_fini(&h);
    }
}

/* No expiry is negative, so a pop with a negative now has nothing to take. */
static void test_pop_negative_now(void)
{
    struct th h;

    th_init(&h, 2, 0);
    TH_EQ(th_insert(&h, 0, 0), 0);
    TH_EQ(th_insert(&h, 1, 100), 0);
    TH_EQ(th_pop(&h, -1), 0);
    TH_EQ(th_pop(&h, INT64_MIN), 0);
    th_verify(&h);
    TH_EQ(th_pop(&h, 0), 1);
    TH_EQ(th_pop(&h, 100), 1);
    th_fini(&h);
}

/* pop appends to the list it is given: earlier results stay, in front. */
static void test_pop_appends(void)
{
    struct th h;

    th_init(&h, 3, 0);
    TH_EQ(th_insert(&h, 0, 1), 0);
    TH_EQ(th_insert(&h, 1, 2), 0);
    TH_EQ(th_insert(&h, 2, 3), 0);
    TH_EQ(th_pop(&h, 1), 1);
    TH_EQ(th_pop(&h, 2), 1);
    TH_EQ(th_pop(&h, 3), 1);
    TH_EQ(tlist_size(&h.out), 3);
    TH_EQ(th_drain_one(&h), 0);
    TH_EQ(th_drain_one(&h), 1);
    TH_EQ(th_drain_one(&h), 2);
    TH_EQ(th_drain_one(&h), -1);
    th_fini(&h);
}

/* clear: pending items become idle; due items stay the caller's. */
static void test_clear(void)
{
    struct th h;
    size_t i;

    th_init(&h, 6, 0);
    for (i = 0; i < 6; i++)
        TH_EQ(th_insert(&h, i, 10 * (int64_t)(i + 1)), 0);
    TH_EQ(th_pop(&h, 20), 2);
    th_clear(&h);
    th_verify(&h);
    TH_EQ(tc_size(&h.c), 0);
    TH_EQ(tc_min_time(&h.c), TIMER_NEVER);
    TH_EQ(tc_pending(h.item[2]), false);
    TH_EQ(tlist_size(&h.out), 2);
    TH_EQ(tc_expire(h.item[0]), 10);
    /* the container works on; cleared items are idle, due ones can come back */
    TH_EQ(th_insert(&h, 2, 5), 0);
    TH_EQ(th_reschedule(&h, 0, 30), 0);
    th_clear(&h);
    th_verify(&h);
    TH_EQ(th_insert(&h, 2, 5), 0);
    TH_EQ(th_reschedule(&h, 3, 30), 0);
    TH_EQ(th_pop(&h, 30), 2);
    th_fini(&h);
}

/* destroy, then init again (also with an earlier clock); destroy frees memory. */
static void test_destroy_then_init(void)
{
    struct th h;
    size_t i;

    th_init(&h, 6, 100);
    for (i = 0; i < 6; i++)
        TH_EQ(th_insert(&h, i, 100 + 50 * (int64_t)i), 0);
    TH_EQ(th_pop(&h, 150), 2);
    th_reinit(&h, 5);
    TH_EQ(tk_live_blocks(), 0);
    th_verify(&h);
    TH_EQ(tc_size(&h.c), 0);
    TH_EQ(tlist_size(&h.out), 2);
    /* idle ones go in anew, due ones are rescheduled into the new container */
    TH_EQ(th_insert(&h, 3, 7), 0);
    TH_EQ(th_reschedule(&h, 1, 6), 0);
    TH_EQ(th_insert(&h, 4, 200), 0);
    th_verify(&h);
    TH_EQ(th_pop(&h, 7), 2);
    th_reinit(&h, INT64_MAX);
    th_reinit(&h, -7);
    th_verify(&h);
    TH_EQ(th_insert(&h, 4, 0), 0);
    TH_EQ(th_pop(&h, 0), 1);
    th_fini(&h);
}

/* Two containers over one struct through two members, one of each DEFINE
 * form (tc: DEFINE_NAMED over `struct titem`; T2: DEFINE over the typedef). */
static void test_two_containers_one_struct(void)
{
    titem *a = th_new_item(0), *b = th_new_item(1);
    struct tlist o1, o2;
    tc c1;
    T2_TYPE c2;

    tc_init(&c1, 0);
    T2(init)(&c2, 0);
    tlist_init(&o1);
    tlist_init(&o2);
    TH_EQ(tc_insert(&c1, 10, a), 0);
    TH_EQ(T2(insert)(&c2, 20, a), 0);
    TH_EQ(T2(insert)(&c2, 5, b), 0);
    TH_EQ(tc_pending(a), true);
    TH_EQ(T2(pending)(a), true);
    TH_EQ(tc_pending(b), false);
    TH_EQ(tc_expire(a), 10);
    TH_EQ(T2(expire)(a), 20);
    TH_EQ(tc_size(&c1), 1);
    TH_EQ(T2(size)(&c2), 2);
    TH_EQ(T2(min_time)(&c2), 5);

    TH_EQ(T2(pop)(&c2, 10, &o2), 1);
    TH_EXPECT(T2(entry)(o2.next) == b, "second container popped the wrong item");
    TH_EQ(tc_pending(a), true);
    TH_EQ(tc_pop(&c1, 10, &o1), 1);
    TH_EXPECT(tc_entry(o1.next) == a, "first container popped the wrong item");
    TH_EQ(tc_pending(a), false); /* due in c1 ... */
    TH_EQ(T2(pending)(a), true); /* ... still pending in c2 */
    TH_EQ(T2(remove)(&c2, a), true);
    TH_EQ(T2(empty)(&c2), true);
    TH_EQ(tc_remove(&c1, a), true); /* due: unlinked from o1 */
    TH_EQ(tlist_empty(&o1), true);
    TH_EQ(tlist_size(&o2), 1);
    TH_EXPECT(tc_check(&c1) == NULL, "check(c1): %s", tc_check(&c1));
    TH_EXPECT(T2(check)(&c2) == NULL, "check(c2): %s", T2(check)(&c2));
    TH_EXPECT(T2(entry)(tlist_pop_front(&o2)) == b, "entry of the second container's list");
    tc_destroy(&c1);
    T2(destroy)(&c2);
    free(a);
    free(b);
}

static void test_entry_null(void)
{
    TH_EXPECT(tc_entry(NULL) == NULL, "entry(NULL) is not NULL");
    TH_EXPECT(T2(entry)(NULL) == NULL, "entry(NULL) is not NULL");
}

/* Every misuse the contract names: the exact error, and nothing changed
 * (th_verify: size, min_time, every item's state and expiry, the list). */
static void test_misuse(void)
{
    struct th h;
    int rc;

    th_init(&h, 5, 1000);
    /* insert NULL / negative expiry: -EINVAL */
    th_null_item(&h);
    TH_EQ(th_insert(&h, 0, -1), -EINVAL);
    TH_EQ(th_insert(&h, 0, INT64_MIN), -EINVAL);
    TH_EQ(tc_pending(h.item[0]), false);
    th_verify(&h);

    /* insert of a pending item: -EBUSY, its expiry and place unchanged */
    TH_EQ(th_insert(&h, 1, 2000), 0);
    TH_EQ(th_insert(&h, 1, 3000), -EBUSY);
    TH_EQ(th_insert(&h, 1, 500), -EBUSY);
    TH_EQ(tc_expire(h.item[1]), 2000);
    rc = th_insert(&h, 1, -1);
    TH_EXPECT(rc == -EINVAL || rc == -EBUSY, "insert(-1) of a pending item returned %d", rc);
    th_verify(&h);

    /* insert of a due item: -EBUSY, and it stays in its result list (made
     * with NDEBUG only: builds with asserts abort, see debug.c) */
    TH_EQ(th_insert(&h, 2, 900), 0);
    TH_EQ(th_insert(&h, 3, 900), 0);
    TH_EQ(th_pop(&h, 900), 2);
    TH_EQ(th_insert(&h, 2, 5000), -EBUSY);
    TH_EQ(th_insert(&h, 2, 0), -EBUSY);
    TH_EQ(tlist_size(&h.out), 2);
    th_verify(&h);

    /* reschedule with a negative expiry: -EINVAL in every state, nothing changed */
    TH_EQ(th_reschedule(&h, 0, -1), -EINVAL);
    TH_EQ(th_reschedule(&h, 1, -5), -EINVAL);
    TH_EQ(th_reschedule(&h, 2, INT64_MIN), -EINVAL);
    TH_EQ(tc_expire(h.item[1]), 2000);
    TH_EQ(tc_expire(h.item[2]), 900);
    TH_EQ(tlist_size(&h.out), 2);
    th_verify(&h);

    /* remove of an idle item or NULL: false, nothing changes */
    TH_EQ(th_remove(&h, 0), false);
    TH_EQ(th_remove(&h, 4), false);
    th_null_item(&h);
    TH_EQ(th_remove(&h, 3), true);
    TH_EQ(th_remove(&h, 3), false);
    TH_EQ(tc_size(&h.c), 1);
    TH_EQ(tlist_size(&h.out), 1);
    th_verify(&h);
    th_fini(&h);
}

/* A drain loop whose "callback" touches other items, including due ones
 * still in the same list: removed ones are not delivered, rescheduled ones
 * are pending again, a freed one is never touched again (ASan watches). */
static void test_drain_with_callbacks(void)
{
    struct th h;
    size_t i, victim, moved, freed;
    long first, n = 0;

    th_init(&h, 8, 0);
    for (i = 0; i < 6; i++)
        TH_EQ(th_insert(&h, i, 10), 0);
    TH_EQ(th_insert(&h, 6, 1000), 0);
    TH_EQ(th_pop(&h, 10), 6);

    first = th_drain_one(&h);
    if (!TH_EQ(tlist_size(&h.out), 5)) {
        th_fini(&h);
        return;
    }
    /* the callback of the first item: */
    victim = conf_id(&h, h.out.prev);
    TH_EQ(th_remove(&h, victim), true);
    moved = conf_id(&h, h.out.prev);
    TH_EQ(th_reschedule(&h, moved, 20), 0);
    freed = conf_id(&h, h.out.next); /* the very next one to be delivered */
    th_free_item(&h, freed);
    TH_EQ(th_insert(&h, 7, 5), 0); /* overdue: waits for the next pop */
    if (first >= 0)
        TH_EQ(th_reschedule(&h, (size_t)first, 30), 0); /* a periodic timer re-arms */
    TH_EQ(th_remove(&h, 6), true);
    th_verify(&h);

    while (th_drain_one(&h) >= 0)
        n++;
    TH_EQ(n, 2);
    TH_EQ(tc_pending(h.item[victim]), false);
    TH_EQ(tc_pending(h.item[moved]), true);
    TH_EQ(th_pop(&h, 20), 2);
    TH_EQ(th_pop(&h, 30), 1);
    th_verify(&h);
    th_fini(&h);
}

/* t = min_time(); pop(t) reaches the earliest item within 11 rounds, from
 * items at every wheel level and its boundaries, also after a removal. */
static void test_min_time_rounds(void)
{
    static const int64_t clocks[] = { 0, 4242, (INT64_C(1) << 40) + 7, INT64_MAX - (INT64_C(1) << 61) };
    struct th h;
    size_t ci;
    int k, off;

    for (ci = 0; ci < sizeof clocks / sizeof clocks[0]; ci++) {
        for (k = 0; k <= 10; k++) {
            for (off = -1; off <= 1; off++) {
                int64_t c0 = clocks[ci], d = conf_pow64(k) + off, e;
                e = c0 > INT64_MAX - d ? INT64_MAX : c0 + d;
                th_init(&h, 3, c0);
                TH_EQ(th_insert(&h, 0, c0 + 1), 0); /* the earliest, then removed */
                TH_EQ(th_insert(&h, 1, e), 0);
                TH_EQ(th_insert(&h, 2, e > INT64_MAX - d ? INT64_MAX : e + d), 0);
                TH_EQ(th_remove(&h, 0), true);
                th_verify(&h);
                th_min_time_rounds(&h);
                th_min_time_rounds(&h);
                th_fini(&h);
            }
        }
    }
}

/* Thousands of items: deep trees, crowded wheel slots, and a heap array that
 * grows and then shrinks as the items leave (ASan watches its bounds). */
static void test_bulk(void)
{
    const size_t n = 3000;
    const int64_t span = INT64_C(1) << 20;
    struct th h;
    size_t i;
    int64_t t;

    th_init(&h, n, 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, (int64_t)th_below((uint64_t)span)), 0);
    th_verify(&h);
    for (i = 0; i < n; i += 2)
        TH_EQ(th_remove(&h, i), true);
    th_verify(&h);
    for (t = 0; t <= span; t += span / 64) {
        th_pop(&h, t);
        th_drain_all(&h);
        th_verify(&h);
    }
    TH_EQ(tc_size(&h.c), 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, span + (int64_t)th_below((uint64_t)span)), 0);
    TH_EQ(th_pop(&h, INT64_MAX), n);
    th_verify(&h);
    th_fini(&h);
}


/* v2: a struct tlist whose bytes are all zero is an empty list for every
 * tlist function and for pop; so is one that was emptied again. */
static void test_zeroed_result_list(void)
{
    static struct tlist zs; /* static storage: all zero */
    struct tlist z, z2, *pos, *tmp;
    titem *a = th_new_item(0), *b = th_new_item(1);
    tc c;
    int n = 0;

    memset(&z, 0, sizeof z);
    memset(&z2, 0, sizeof z2);
    TH_EQ(tlist_empty(&z), true);
    TH_EQ(tlist_empty(&zs), true);
    TH_EQ(tlist_size(&z), 0);
    TH_EXPECT(tlist_pop_front(&z) == NULL, "pop_front of a zeroed list");
    tlist_foreach(pos, &z)
        n++;
    tlist_foreach_safe(pos, tmp, &zs)
        n++;
    TH_EQ(n, 0);
    tlist_splice_back(&z, &z2); /* zeroed into zeroed: nothing */
    TH_EQ(tlist_empty(&z), true);

    /* pop into a zeroed list: nothing due leaves it zeroed-empty; then items */
    tc_init(&c, 0);
    TH_EQ(tc_insert(&c, 10, a), 0);
    TH_EQ(tc_insert(&c, 10, b), 0);
    TH_EQ(tc_pop(&c, 5, &z), 0);
    TH_EQ(tlist_empty(&z), true);
    TH_EQ(tc_pop(&c, 10, &z), 2);
    TH_EQ(tlist_size(&z), 2);
    TH_EXPECT(tc_entry(tlist_pop_front(&z)) == a, "first of a zeroed result list");
    TH_EXPECT(tc_entry(tlist_pop_front(&z)) == b, "second of a zeroed result list");
    TH_EQ(tlist_empty(&z), true);

    /* push_back / push_front into zeroed heads, splice a zeroed source */
    memset(&z, 0, sizeof z);
    tlist_push_back(&z, TH_LINK(a));
    memset(&z2, 0, sizeof z2);
    tlist_push_front(&z2, TH_LINK(b));
    tlist_splice_back(&z, &zs);
    TH_EQ(tlist_size(&z), 1);
    tlist_splice_back(&z, &z2);
    TH_EQ(tlist_size(&z), 2);
    TH_EQ(tlist_empty(&z2), true);
    TH_EXPECT(z.next == TH_LINK(a) && z.prev == TH_LINK(b), "splice into a list from a zeroed head");
    memset(&z2, 0, sizeof z2);
    tlist_splice_back(&z2, &z); /* a non-empty list into a zeroed one */
    TH_EQ(tlist_size(&z2), 2);
    TH_EQ(tlist_empty(&z), true);
    while (tlist_pop_front(&z2) != NULL)
        n++;
    TH_EQ(n, 2);
    TH_EQ(tc_pending(a), false);
    TH_EQ(tc_due(a), false);
    tc_destroy(&c);
    free(a);
    free(b);
}

/* v2: one pop order for every kind. Twenty timers started in order with one
 * timeout fire in start order (libuv's rule); equal expiries reached through
 * every wheel level, after reschedules in place and jumps of the clock,
 * still come out FIFO (th_pop compares each pop's exact sequence). */
static void test_pop_order_ties(void)
{
    struct th h;
    size_t i;
    int k;

    th_init(&h, 40, 1000);
    for (i = 0; i < 20; i++)
        TH_EQ(th_insert(&h, i, 1500), 0);
    TH_EQ(th_pop(&h, 1500), 20);
    for (i = 0; i < 20; i++)
        TH_EQ(th_drain_one(&h), (long)i);

    /* ties at every scale: inserted far apart in time, so that the wheel
     * meets them in coarse slots; some rescheduled onto an equal expiry */
    for (k = 1; k <= 9; k++) {
        int64_t base = h.clock, e = base + conf_pow64(k) + 5;
        for (i = 0; i < 40; i++)
            TH_EQ(th_insert(&h, i, i % 3 == 0 ? e : e + (int64_t)(i % 5)), 0);
        TH_EQ(th_reschedule(&h, 0, e + 1), 0);  /* goes after the others at e + 1 */
        TH_EQ(th_reschedule(&h, 6, e), 0);      /* stays at e, goes last there */
        th_verify(&h);
        if (k & 1) {
            th_pop(&h, e + 4); /* one jump takes it all */
        } else {
            th_pop(&h, e - 1);
            th_pop(&h, e + 2);
            th_pop(&h, e + 4);
        }
        th_verify(&h);
        th_drain_all(&h);
    }
    th_fini(&h);
}

/* The one-place switch of the README: the same calls give the same result
 * lists whichever container. (lockstep.c runs all three side by side; here
 * one kind replays a fixed script and compares with a fixed expectation.) */
static void test_pop_order_script(void)
{
    static const long want[] = { 3, 5, 0, 2, 4, 1 };
    struct th h;
    size_t i;

    th_init(&h, 6, 0);
    TH_EQ(th_insert(&h, 0, 7000), 0);
    TH_EQ(th_insert(&h, 1, 9000), 0);
    TH_EQ(th_insert(&h, 2, 7000), 0);
    TH_EQ(th_insert(&h, 3, 100), 0);
    TH_EQ(th_insert(&h, 4, 7000), 0);
    TH_EQ(th_insert(&h, 5, 6999), 0);
    TH_EQ(th_reschedule(&h, 2, 7000), 0); /* after 0 and 4 now */
    TH_EQ(th_reschedule(&h, 4, 7000), 0); /* after 2 */
    TH_EQ(th_pop(&h, 10000), 6);
    for (i = 0; i < 6; i++)
        TH_EQ(th_drain_one(&h), want[i]);
    th_fini(&h);
}

/* Ties across a boundary of every wheel scale, after next_expiry: two
 * items at 64^k + 5, next_expiry (the wheel refines them to its finest
 * level and leaves its clock at 64^k - 1), then eight more at the same
 * expiry (the wheel files them a level up, where a sorted slot may become a
 * run): all ten must pop in arrival order. 2.2's wheel, before its review,
 * handed the eight out first. */
static void test_ties_after_next_expiry(void)
{
    int k;
    for (k = 1; k <= 9; k++) {
        int64_t e = conf_pow64(k) + 5;
        struct th h;
        long i;
        th_init(&h, 10, 0);
        TH_EQ(th_insert(&h, 0, e), 0);
        TH_EQ(th_insert(&h, 1, e), 0);
        TH_EQ(th_next_expiry(&h), e);
        for (i = 2; i < 10; i++)
            TH_EQ(th_insert(&h, (size_t)i, e), 0);
        TH_EQ(th_pop(&h, e), 10);
        for (i = 0; i < 10; i++)
            TH_EQ(th_drain_one(&h), i);
        th_fini(&h);
    }
}

/* Fixed-delay timeouts, the wheel's sorted runs: items armed at now + D
 * arrive in expiry order, so the wheel hands whole coarse slots out from
 * their fronts. Four delay streams are offset so that items armed later
 * (into finer slots of a run's range, or into the same coarse slot) land on
 * expiries an earlier stream holds: they must pop after those; so must
 * items armed at the expiry of the earliest pending one a little ahead. Ticks of
 * uneven length make runs at several levels at once; removals (also of a
 * run's first item) and reschedules run in between; every pop is compared
 * item by item with the model, min_time and next_expiry too. */
static void test_fixed_delay_runs(void)
{
    static const int64_t delay[] = { 300, 5000, 70000, 1100000 };
    const size_t n = 700;
    struct th h;
    size_t i, next = 0;
    int64_t now = 123;
    int tick;

    /* First by hand: 20580 and 20600 sit in one coarse slot (64^2 ticks
     * from 20480) in order; once the clock is in that slot, three more
     * items, two at the same times, go to a finer one (64 ticks from 20544),
     * also in order. Each group is then a run in the wheel, and the first
     * arrivals go first at both times. */
    th_init(&h, 6, 0);
    TH_EQ(th_insert(&h, 0, 20580), 0);
    TH_EQ(th_insert(&h, 1, 20600), 0);
    TH_EQ(th_insert(&h, 2, 20700), 0);
    TH_EQ(th_pop(&h, 20480), 0);
    TH_EQ(th_insert(&h, 3, 20580), 0);
    TH_EQ(th_insert(&h, 4, 20600), 0);
    TH_EQ(th_insert(&h, 5, 20601), 0);
    th_verify(&h);
    TH_EQ(th_pop(&h, 20580), 2);
    TH_EQ(th_drain_one(&h), 0);
    TH_EQ(th_drain_one(&h), 3);
    TH_EQ(th_pop(&h, 20700), 4);
    th_fini(&h);

    /* The finer run's first item is earlier than the coarser run's, and
     * its second ties with the coarser run's second: 0 3 1 4 2. */
    th_init(&h, 5, 0);
    TH_EQ(th_insert(&h, 0, 20580), 0);
    TH_EQ(th_insert(&h, 1, 20600), 0);
    TH_EQ(th_insert(&h, 2, 20700), 0);
    TH_EQ(th_pop(&h, 20480), 0);
    TH_EQ(th_insert(&h, 3, 20590), 0);
    TH_EQ(th_insert(&h, 4, 20600), 0);
    TH_EQ(th_pop(&h, 20580), 1);
    TH_EQ(th_pop(&h, 20700), 4);
    th_fini(&h);

    /* Runs that next_expiry made (a coarse one, then a finer one with a
     * tie), dissolved by an insert behind the clock that next_expiry
     * moved: the tie keeps its order, 4 6 5 0 2 3 1. */
    th_init(&h, 7, 0);
    TH_EQ(th_insert(&h, 0, 12615), 0);
    TH_EQ(th_insert(&h, 1, 12700), 0);
    th_next_expiry(&h);
    TH_EQ(th_insert(&h, 2, 12615), 0);
    TH_EQ(th_insert(&h, 3, 12620), 0);
    th_next_expiry(&h);
    TH_EQ(th_insert(&h, 4, 50), 0);
    TH_EQ(th_insert(&h, 5, 200), 0);
    TH_EQ(th_insert(&h, 6, 100), 0);
    th_verify(&h);
    TH_EQ(th_pop(&h, 20000), 7);
    th_fini(&h);

    th_init(&h, n, now);
    for (tick = 0; tick < 6000; tick++) {
        size_t d;
        now += 1 + (int64_t)th_below(tick % 500 < 250 ? 8 : 64);
        for (d = 0; d < sizeof delay / sizeof delay[0]; d++) {
            /* stream d is offset by d ticks of the clock's finest groups:
             * its expiries meet stream d - 1's a little later */
            int64_t e = now + delay[d] - (int64_t)d * 64;
            i = next++ % n;
            if (th_count(&h, TH_PENDING) > n - 8)
                break;
            if (tc_pending(h.item[i]))
                TH_EQ(th_reschedule(&h, i, e), 0);
            else
                TH_EQ(th_insert(&h, i, e), 0);
        }
        if (tick % 3 == 0) {                /* a tie with an item armed earlier, */
            int64_t t = TIMER_NEVER;        /* which may sit in a coarser run by now */
            for (i = 0; i < n; i++)
                if (tc_pending(h.item[i]) && tc_expire(h.item[i]) > now + 64 && tc_expire(h.item[i]) < t)
                    t = tc_expire(h.item[i]);
            i = next++ % n;
            if (t != TIMER_NEVER && !tc_pending(h.item[i]))
                TH_EQ(th_insert(&h, i, t), 0);
        }
        if (tick % 7 == 0)                  /* a cancel: often the earliest */
            th_remove(&h, th_below(n));
        if (tick % 11 == 0) {
            int64_t t = th_earliest(&h);
            for (i = 0; i < n; i++)
                if (h.item[i] != NULL && tc_pending(h.item[i]) && tc_expire(h.item[i]) == t) {
                    th_remove(&h, i);
                    break;
                }
        }
        th_check_min_time(&h);
        if (tick % 13 == 0)
            th_next_expiry(&h);
        th_pop(&h, now);
        th_drain_all(&h);
        if (tick % 97 == 0)
            th_verify(&h);
    }
    th_pop(&h, TIMER_NEVER);
    th_drain_all(&h);
    th_verify(&h);
    th_fini(&h);
}

/* v2: next_expiry is exact for every kind (the wheel's min_time may be a
 * lower bound), TIMER_NEVER when empty, and also TIMER_NEVER for an item
 * pending there: empty() tells the two apart. */
static void test_next_expiry(void)
{
    struct th h;

    th_init(&h, 6, 0);
    TH_EQ(th_next_expiry(&h), TIMER_NEVER);
    TH_EQ(tc_empty(&h.c), true);
    TH_EQ(th_insert(&h, 0, 1000), 0);
    TH_EQ(th_insert(&h, 1, 1010), 0);
    TH_EXPECT(tc_min_time(&h.c) <= 1000, "min_time is later than the earliest expiry");
    TH_EQ(th_next_expiry(&h), 1000);
    th_verify(&h);
    TH_EQ(th_pop(&h, 999), 0);
    TH_EQ(th_next_expiry(&h), 1000);
    TH_EQ(th_remove(&h, 0), true); /* cancel the earliest: the next one at once */
    TH_EQ(th_next_expiry(&h), 1010);
    TH_EQ(th_insert(&h, 2, 500), 0); /* earlier than the clock may have moved to */
    TH_EQ(th_next_expiry(&h), 500);
    TH_EQ(th_pop(&h, 500), 1);
    TH_EQ(th_next_expiry(&h), 1010);
    TH_EQ(th_pop(&h, 1010), 1);
    th_drain_all(&h);
    TH_EQ(th_next_expiry(&h), TIMER_NEVER);

    /* an item at TIMER_NEVER: not empty, but next_expiry says TIMER_NEVER */
    TH_EQ(th_insert(&h, 3, TIMER_NEVER), 0);
    TH_EQ(th_next_expiry(&h), TIMER_NEVER);
    TH_EQ(tc_empty(&h.c), false);
    TH_EQ(th_pop(&h, TIMER_NEVER - 1), 0);
    TH_EQ(th_pop(&h, TIMER_NEVER), 1);
    th_drain_all(&h);

    /* far items, several per coarse slot, and next_expiry between pops */
    TH_EQ(th_insert(&h, 0, (INT64_C(1) << 40) + 77), 0);
    TH_EQ(th_insert(&h, 1, (INT64_C(1) << 40) + 12), 0);
    TH_EQ(th_insert(&h, 2, (INT64_C(1) << 40) + 12), 0);
    TH_EQ(th_insert(&h, 3, (INT64_C(1) << 41)), 0);
    TH_EQ(th_next_expiry(&h), (INT64_C(1) << 40) + 12);
    th_verify(&h);
    TH_EQ(th_pop(&h, (INT64_C(1) << 40) + 11), 0);
    TH_EQ(th_pop(&h, (INT64_C(1) << 40) + 12), 2);
    TH_EQ(th_next_expiry(&h), (INT64_C(1) << 40) + 77);
    th_next_expiry_round(&h);
    th_next_expiry_round(&h);
    TH_EQ(th_next_expiry(&h), TIMER_NEVER);
    th_fini(&h);
}

/* ceil(log2(n)) */
static double conf_log2(size_t n)
{
    double k = 0;
    for (n -= 1; n > 0; n >>= 1)
        k++;
    return k;
}

/* Steps per call (tk.h: every step whose number can grow with n) at n and
 * at 64n, within the bound of an operation of cost O(1) or O(log n), by
 * adversarial.c's rules: O(1) may at most double from n to 64n (+ 0.25 for
 * steps that do not grow at all) and stays under 32 a call; O(log n) stays
 * under 4 log2(size) + 8 a call at each size (a path of a red-black tree is
 * at most 2 log2(n + 1) levels; a step per level of the walk, of the
 * fix-up and each rotation), where a cost linear in n would be thousands.
 * Counted, never timed: a busy machine cannot fail it. */
static void conf_steps_bound(const char *what, double small, double big, size_t n, bool log_n)
{
    double cap_small = log_n ? 4 * conf_log2(n) + 8 : 32, cap_big = log_n ? 4 * conf_log2(64 * n) + 8 : 32;
    if (!log_n && 2 * small + 0.25 < cap_big)
        cap_big = 2 * small + 0.25;
    printf("%s: %s: %.2f steps per call at %zu items (bound %.2f), %.2f at %zu (bound %.2f)\n", TK_KIND, what, small,
           n, cap_small, big, 64 * n, cap_big);
    TH_EXPECT(small <= cap_small && big <= cap_big, "%s: %.2f steps per call at %zu items, %.2f at %zu: over %.2f "
              "and %.2f, not O(%s)", what, small, n, big, 64 * n, cap_small, cap_big, log_n ? "log n" : "1");
}

/* The cancel-oldest-then-next_expiry loop over n requests: the steps of
 * its next_expiry calls per call, and the wheel's refinement moves. */
static double conf_cancel_loop(size_t n, unsigned long long *moves)
{
    titem *items = (titem *)th_alloc(n, sizeof *items);
    unsigned long long m0 = tk_moves(), steps = 0, s0;
    int64_t now = 123456789;
    size_t i;
    tc c;

    tc_init(&c, now);
    for (i = 0; i < n; i++) /* one request per tick, 30 s timeout in ms */
        TH_EQ(tc_insert(&c, now + 30000 + (int64_t)i, &items[i]), 0);
    for (i = 0; i < n; i++) {
        s0 = tk_steps();
        TH_EQ(tc_next_expiry(&c), now + 30000 + (int64_t)i);
        steps += tk_steps() - s0;
        TH_EQ(tc_remove(&c, &items[i]), true); /* answered: cancel the oldest */
    }
    TH_EQ(tc_next_expiry(&c), TIMER_NEVER);
    TH_EXPECT(tc_check(&c) == NULL, "check(): %s", tc_check(&c));
    tc_destroy(&c);
    *moves = tk_moves() - m0;
    free(items);
    return (double)steps / (double)n;
}

/* v2: next_expiry is amortised O(1): request timeouts with one delay,
 * cancelled oldest-first with next_expiry after each cancel. The items the
 * wheel's refinement moves must stay below 11 per item whatever N, and the
 * steps of the next_expiry calls (moves and links walked) per call must
 * not grow from 1000 to 64000 requests (a scan of the remaining items
 * would grow them 64x). */
static void test_next_expiry_amortised(void)
{
    unsigned long long m_small, m_big;
    double s_small = conf_cancel_loop(1000, &m_small), s_big = conf_cancel_loop(64000, &m_big);

    printf("%s: next_expiry + cancel of the oldest: items moved by refinement per call: %.2f and %.2f\n", TK_KIND,
           (double)m_small / 1000, (double)m_big / 64000);
    TH_EXPECT(m_small <= 11 * 1000ULL && m_big <= 11 * 64000ULL, "%llu and %llu moves: not amortised O(1)", m_small, m_big);
    conf_steps_bound("next_expiry after each cancel of the oldest", s_small, s_big, 1000, false);
}

/* Inserts after next_expiry: far timers, next_expiry (the wheel refines and
 * moves its clock to them), then a burst of n earlier timers at two delays,
 * interleaved (out of order), then pop them all in order. The steps of the
 * inserts per insert. */
static double conf_burst_after_next_expiry(size_t n)
{
    titem *items = (titem *)th_alloc(n + 2, sizeof *items);
    struct tlist out = { NULL, NULL };
    unsigned long long s0;
    int64_t last = -1;
    double steps;
    size_t i, k;
    tc c;

    tc_init(&c, 0);
    TH_EQ(tc_insert(&c, 600000, &items[n]), 0);
    TH_EQ(tc_insert(&c, 600001, &items[n + 1]), 0);
    TH_EQ(tc_next_expiry(&c), 600000);
    s0 = tk_steps();
    for (i = 0; i < n; i++)
        TH_EQ(tc_insert(&c, (int64_t)(i / 10) + ((i & 1) ? 10000 : 50000), &items[i]), 0);
    steps = (double)(tk_steps() - s0) / (double)n;
    TH_EQ(tc_next_expiry(&c), 10000);
    TH_EXPECT(tc_check(&c) == NULL, "check(): %s", tc_check(&c));
    TH_EQ(tc_pop(&c, INT64_MAX, &out), n + 2);
    for (k = 0; k < n + 2; k++) { /* in expiry order */
        titem *it = tc_entry(tlist_pop_front(&out));
        TH_EXPECT(it != NULL && tc_expire(it) >= last, "pop out of order after a burst");
        if (it == NULL)
            break;
        last = tc_expire(it);
    }
    tc_destroy(&c);
    free(items);
    return steps;
}

/* next_expiry may move the wheel's clock ahead of the caller's time; the
 * inserts that then land behind it, in any order, must stay O(1) amortised
 * each for the wheel (a sorted insert cost O(n) apiece there; its runs
 * merge in O(log k) at most, within the doubling allowed) and O(log n) for
 * the set and the heap: counted at 1000 and 64000. */
static void test_insert_after_next_expiry(void)
{
    double s_small = conf_burst_after_next_expiry(1000), s_big = conf_burst_after_next_expiry(64000);
#if defined(TK_WHEEL)
    conf_steps_bound("inserts behind a clock moved by next_expiry", s_small, s_big, 1000, false);
#else
    conf_steps_bound("inserts behind a clock moved by next_expiry", s_small, s_big, 1000, true);
#endif
}

/* v2: due() is true exactly while an item is popped and still linked. */
static void test_due_state(void)
{
    struct th h;

    th_init(&h, 3, 0);
    TH_EQ(tc_due(h.item[0]), false);
    TH_EQ(tc_due(NULL), false);
    TH_EQ(th_insert(&h, 0, 5), 0);
    TH_EQ(th_insert(&h, 1, 5), 0);
    TH_EQ(th_insert(&h, 2, 5), 0);
    TH_EQ(tc_due(h.item[0]), false);
    TH_EQ(th_pop(&h, 5), 3);
    TH_EQ(tc_due(h.item[0]), true);
    TH_EQ(tc_pending(h.item[0]), false);
    TH_EQ(th_remove(&h, 1), true);       /* cancelled while due */
    TH_EQ(tc_due(h.item[1]), false);
    TH_EQ(th_reschedule(&h, 2, 9), 0);   /* re-armed while due */
    TH_EQ(tc_due(h.item[2]), false);
    TH_EQ(th_drain_one(&h), 0);          /* taken off the list: idle */
    TH_EQ(tc_due(h.item[0]), false);
    th_verify(&h);
    th_fini(&h);
}

/* v2: reserve(n). The set and the wheel never allocate: 0 for any n. The
 * heap sizes its array at once, keeps that size through pops, and then
 * cannot fail an insert while fewer than n are pending, even when every
 * allocation would fail; a reserve it cannot satisfy changes nothing. */
static void test_reserve(void)
{
    const size_t n = 1000;
    struct th h;
    size_t i;

    th_init(&h, n + 1, 0);
    TH_EQ(th_reserve(&h, 0), 0);
#if defined(TK_HEAP)
    {
        size_t cap, npending;
        TH_EQ(tc_reserve(&h.c, SIZE_MAX), -ENOMEM); /* too big: nothing changed */
        TH_EQ(tc_ccore_(&h.c)->cap, 0);
        tk_fail_next();
        TH_EQ(th_reserve(&h, n), -ENOMEM);
        TH_EQ(tc_ccore_(&h.c)->cap, 0);
        TH_EQ(th_reserve(&h, n), 0);
        cap = tc_ccore_(&h.c)->cap;
        TH_EXPECT(cap >= n, "reserve(%zu) left a capacity of %zu", n, cap);
        tk_fail_all(true);
        for (i = 0; i < n; i++)
            TH_EQ(th_insert(&h, i, (int64_t)i), 0);
        TH_EQ(th_insert(&h, n, 5), cap > n ? 0 : -ENOMEM);
        npending = th_count(&h, TH_PENDING);
        TH_EQ(th_pop(&h, INT64_MAX), npending);
        TH_EQ(tc_ccore_(&h.c)->cap, cap); /* no shrink below the reservation */
        th_drain_all(&h);
        for (i = 0; i < n; i++)
            TH_EQ(th_insert(&h, i, (int64_t)i), 0);
        tk_fail_all(false);
        th_verify(&h);
        th_reinit(&h, 0); /* destroy drops the reservation */
        TH_EQ(tc_ccore_(&h.c)->cap, 0);
    }
#else
    TH_EQ(th_reserve(&h, n), 0);
    TH_EQ(tc_reserve(&h.c, SIZE_MAX), 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, (int64_t)i), 0);
    TH_EQ(th_pop(&h, INT64_MAX), n);
#endif
    th_fini(&h);
}

/* v2: rescheduling a pending item never allocates, so it cannot fail with
 * -ENOMEM, even in a full heap whose allocator fails every time. */
static void test_reschedule_pending_no_alloc(void)
{
    const size_t n = 300;
    struct th h;
    size_t i;

    th_init(&h, n, 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, 1000 + (int64_t)i), 0);
    tk_fail_all(true);
    for (i = 0; i < n; i++)
        TH_EQ(th_reschedule(&h, i, 5000 - (int64_t)i), 0);
    for (i = 0; i < n; i += 7)
        TH_EQ(th_reschedule(&h, i, 1), 0);
    tk_fail_all(false);
    th_verify(&h);
    TH_EQ(th_pop(&h, INT64_MAX), n);
    th_fini(&h);
}

/* ---- v2.1 ------------------------------------------------------------------ */

/* The natural handler loop: walk the due list with tlist_foreach and re-arm
 * periodic timers in the body (it hung the wheel and crashed the others in
 * 2.0). The body may also remove or free the current item and cancel a
 * later due one; the walk visits what is still due, once each, and ends. */
static void test_foreach_rearm(void)
{
    struct th h;
    struct tlist *pos;
    size_t i, id, n = 0;
    long seen[8];

    th_init(&h, 8, 0);
    for (i = 0; i < 7; i++)
        TH_EQ(th_insert(&h, i, 10), 0);
    TH_EQ(th_pop(&h, 10), 7);
    tlist_foreach(pos, &h.out) {
        id = conf_id(&h, pos);
        if (n < 8)
            seen[n] = (long)id;
        if (++n > 8)
            break;                              /* it would loop: fail below */
        switch (id) {
        case 1:
            TH_EQ(th_remove(&h, 2), true);      /* cancel the next due timer */
            break;                              /* and stay due */
        case 3:
            th_free_item(&h, 3);                /* a one-shot: freed */
            break;
        case 4:
            TH_EQ(th_remove(&h, 4), true);
            break;
        case 5:
            TH_EQ(th_reschedule(&h, 6, 15), 0); /* a later due one re-armed, */
            TH_EQ(th_reschedule(&h, id, 20), 0); /* and this one too */
            break;
        default:
            TH_EQ(th_reschedule(&h, id, 20), 0); /* periodic: re-armed */
            break;
        }
    }
    TH_EQ(n, 5);
    if (n == 5)
        TH_EXPECT(seen[0] == 0 && seen[1] == 1 && seen[2] == 3 && seen[3] == 4 && seen[4] == 5,
                  "tlist_foreach visited %ld %ld %ld %ld %ld, want 0 1 3 4 5", seen[0], seen[1], seen[2], seen[3], seen[4]);
    th_verify(&h);
    TH_EQ(tlist_size(&h.out), 1);               /* item 1, left due */
    TH_EQ(th_pop(&h, 15), 1);                   /* 6 */
    TH_EQ(th_pop(&h, 20), 2);                   /* 0, then 5: their re-arm order */
    th_verify(&h);

    /* the same through tlist_drain, which takes each link off first */
    n = 0;
    tlist_drain(pos, &h.out) {
        id = conf_id(&h, pos);
        h.m[id].state = TH_IDLE;                /* off the list: idle (model) */
        TH_EQ(th_reschedule(&h, id, 40), 0);
        n++;
    }
    TH_EQ(n, 4);
    TH_EQ(th_pop(&h, 40), 4);
    th_verify(&h);
#if defined(NDEBUG)
    /* Not supported: a body that removes the item walked before pos. With
     * asserts on it aborts (test/debug.c); off, the walk ends there, and
     * what it did not reach stays due. */
    n = 0;
    tlist_foreach(pos, &h.out) {
        id = conf_id(&h, pos);
        if (++n > 4)
            break;
        if (n == 2)
            TH_EQ(th_remove(&h, (size_t)conf_id(&h, h.out.next)), true);
    }
    TH_EQ(n, 2);
    TH_EQ(tlist_size(&h.out), 3);
    th_verify(&h);
#endif
    th_fini(&h);
}

/* first(): the pending item pop hands out first (earliest expiry, then
 * earliest arrival), NULL when empty; checked against the model at each
 * step, through ties, cancels of the first, reschedules onto a tie, and
 * items at every wheel level. Then libevent's loop, which takes timers with
 * first() and remove() instead of pop(): it must see pop's order, and
 * stay O(1) amortised per timer (the wheel's moves are counted). */
static void test_first(void)
{
    const size_t n = 4000;
    struct th h;
    unsigned long long moves;
    size_t i, k = 0;
    titem *it;
    int64_t prev = -1;

    th_init(&h, 64, 0);
    th_first(&h);
    for (i = 0; i < 11; i++) {
        TH_EQ(th_insert(&h, i, conf_pow64((int)i) + 3), 0);
        TH_EQ(th_insert(&h, 11 + i, conf_pow64((int)i) + 3), 0); /* a tie at each level */
        th_first(&h);
    }
    TH_EQ(th_reschedule(&h, 30, 4), 0);     /* ties with the first two (1 + 3, 64^0 + 3) */
    th_first(&h);
    for (i = 0; i < 22; i++) {
        TH_EQ(th_remove(&h, i), true);
        th_first(&h);
        TH_EQ(th_remove(&h, 30), i == 0);
        th_first(&h);
        th_next_expiry(&h);
        th_first(&h);
    }
    th_reinit(&h, 0);

    /* first + remove over n timers, many sharing one expiry */
    {
        titem *items = (titem *)th_alloc(n, sizeof *items);
        tc c;
        tc_init(&c, 0);
        for (i = 0; i < n; i++) {
            items[i].id = (int)i;
            TH_EQ(tc_insert(&c, 5000 + (int64_t)(i % 3) * 4096 + (int64_t)(i % 2) * 262144, &items[i]), 0);
        }
        moves = tk_moves();
        while ((it = tc_first(&c)) != NULL) {
            int64_t e = tc_expire(it);
            TH_EXPECT(e > prev || (e == prev && it->id > (int)k), "first() out of pop order at %zu", k);
            prev = e;
            k = (size_t)it->id;
            TH_EQ(tc_remove(&c, it), true);
        }
        moves = tk_moves() - moves;
        TH_EXPECT(moves <= 11 * n, "first() + remove of %zu timers moved items %llu times: not O(1) amortised", n, moves);
        TH_EQ(tc_size(&c), 0);
        tc_destroy(&c);
        free(items);
    }
    th_fini(&h);
}

/* reschedule_range(c, lo, hi, item): a pending item inside [lo, hi] stays
 * exactly as it is (not even its place among equal expiries); anything
 * else is reschedule(hi); bad arguments change nothing. */
static void test_reschedule_range(void)
{
    struct th h;

    th_init(&h, 6, 100);
    TH_EQ(th_insert(&h, 0, 500), 0);
    TH_EQ(th_insert(&h, 1, 500), 0);
    TH_EQ(th_reschedule_range(&h, 0, 450, 550), 0);    /* inside: no new arrival */
    TH_EQ(th_reschedule_range(&h, 0, 500, 500), 0);    /* both ends inclusive */
    TH_EQ(th_reschedule_range(&h, 1, 400, 500), 0);
    TH_EQ(tc_expire(h.item[0]), 500);
    TH_EQ(th_reschedule_range(&h, 2, 10, 20), 0);      /* idle: armed at the latest */
    TH_EQ(tc_expire(h.item[2]), 20);
    TH_EQ(th_reschedule_range(&h, 2, 21, 30), 0);      /* outside: to the latest */
    TH_EQ(tc_expire(h.item[2]), 30);
    TH_EQ(th_reschedule_range(&h, 2, 0, 29), 0);       /* earlier than it is: also moved */
    TH_EQ(tc_expire(h.item[2]), 29);
    TH_EQ(th_reschedule_range(&h, 3, -1, 5), -EINVAL);  /* bad: nothing changes */
    TH_EQ(th_reschedule_range(&h, 0, 600, 599), -EINVAL);
    TH_EQ(th_reschedule_range(&h, 0, 0, -1), -EINVAL);
    TH_EQ(tc_reschedule_range(&h.c, 0, 10, NULL), -EINVAL);
    th_verify(&h);
    TH_EQ(th_pop(&h, 29), 1);
    TH_EQ(th_reschedule_range(&h, 2, 0, INT64_MAX), 0); /* due: leaves the list, pending at the latest */
    TH_EQ(tc_expire(h.item[2]), INT64_MAX);
    TH_EQ(th_pop(&h, 500), 2);                         /* 0 then 1: arrival order kept */
    TH_EQ(th_drain_one(&h), 0);
    TH_EQ(th_drain_one(&h), 1);
    th_verify(&h);
    th_fini(&h);
}

/* reschedule_near(c, expire, slack, item) (v2.3, nginx's lazy rule): a
 * pending item whose expiry lies in [expire - slack, expire + slack] stays
 * exactly as it is; anything else is reschedule(expire), exactly there (not
 * at the window's end, as reschedule_range would); bad arguments change
 * nothing. */
static void test_reschedule_near(void)
{
    struct th h;

    th_init(&h, 6, 100);
    TH_EQ(th_insert(&h, 0, 500), 0);
    TH_EQ(th_insert(&h, 1, 500), 0);
    TH_EQ(th_reschedule_near(&h, 0, 700, 200), 0);     /* 500 >= 700 - 200: kept, no new arrival */
    TH_EQ(th_reschedule_near(&h, 0, 300, 200), 0);     /* 500 <= 300 + 200: kept */
    TH_EQ(th_reschedule_near(&h, 1, 500, 0), 0);       /* slack 0: kept only when equal */
    TH_EQ(tc_expire(h.item[0]), 500);
    TH_EQ(th_reschedule_near(&h, 0, 701, 200), 0);     /* 1 beyond the window: moved, exactly */
    TH_EQ(tc_expire(h.item[0]), 701);
    TH_EQ(th_reschedule_near(&h, 0, 400, 300), 0);     /* earlier, out of reach: moved back */
    TH_EQ(tc_expire(h.item[0]), 400);
    TH_EQ(th_reschedule_near(&h, 2, 20, 1000), 0);     /* idle: armed at expire */
    TH_EQ(tc_expire(h.item[2]), 20);
    TH_EQ(th_reschedule_near(&h, 3, INT64_MAX, INT64_MAX), 0);   /* no overflow at the ends */
    TH_EQ(th_reschedule_near(&h, 3, 0, INT64_MAX), 0);
    TH_EQ(tc_expire(h.item[3]), INT64_MAX);
    TH_EQ(th_reschedule_near(&h, 4, -1, 5), -EINVAL);  /* bad: nothing changes */
    TH_EQ(th_reschedule_near(&h, 0, 500, -1), -EINVAL);
    TH_EQ(tc_reschedule_near(&h.c, 10, 0, NULL), -EINVAL);
    TH_EQ(tc_expire(h.item[0]), 400);
    th_verify(&h);
    TH_EQ(th_pop(&h, 20), 1);
    TH_EQ(th_reschedule_near(&h, 2, 20, 5), 0);        /* due: never kept; pending again at expire */
    TH_EQ(tc_pending(h.item[2]), true);
    TH_EQ(th_pop(&h, 500), 3);                         /* 2, 0, then 1 */
    TH_EQ(th_drain_one(&h), 2);
    TH_EQ(th_drain_one(&h), 0);
    TH_EQ(th_drain_one(&h), 1);
    th_verify(&h);
    th_fini(&h);
}

/* visit_until (v2.2): the walk of visit that stops at the first fn that
 * returns non-zero, and returns that value (libevent's
 * event_base_foreach_event): the items it hands fn are visit's, in visit's
 * order, up to the stop; 0 after all of them; nothing for an empty
 * container. */
struct conf_until {
    const titem *order[128]; /* visit's order */
    size_t calls, stop_at, wrong;
};

static void conf_record(titem *it, void *arg)
{
    struct conf_until *u = (struct conf_until *)arg;
    u->order[u->calls++] = it;
}

static int conf_until_one(titem *it, void *arg)
{
    struct conf_until *u = (struct conf_until *)arg;
    u->wrong += u->order[u->calls] != it || !tc_pending(it);
    return ++u->calls == u->stop_at ? -7 - (int)u->calls : 0;
}

static void test_visit_until(void)
{
    struct th h;
    struct conf_until u;
    size_t i, n = 100;

    th_init(&h, n, 0);
    memset(&u, 0, sizeof u);
    u.stop_at = 1;
    TH_EQ(tc_visit_until(&h.c, conf_until_one, &u), 0);
    TH_EQ(u.calls, 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, (int64_t)(i * 7919 % 100) * conf_pow64((int)(i % 5))), 0);
    u.calls = 0;
    TH_EQ(tc_visit(&h.c, conf_record, &u), n);
    TH_EQ(u.calls, n);
    for (u.stop_at = 1; u.stop_at <= n + 1; u.stop_at += u.stop_at < 12 ? 1 : 11) {
        u.calls = 0;
        TH_EQ(tc_visit_until(&h.c, conf_until_one, &u), u.stop_at <= n ? -7 - (int)u.stop_at : 0);
        TH_EQ(u.calls, u.stop_at <= n ? u.stop_at : n);
        TH_EQ(u.wrong, 0);
    }
    th_verify(&h);
    th_fini(&h);
}

/* visit(): fn once per pending item (th_verify checks that after every
 * other operation); the count; nothing for an empty container; and fn may
 * call the const next_expiry and first (in the wheel those refine: a walk
 * through the very slot they open looped for ever in 2.1.0's first draft). */
static void test_visit(void)
{
    struct th h;
    size_t i;

    th_init(&h, 100, 0);
    th_check_visit(&h, 0);
    for (i = 0; i < 4; i++)     /* one coarse slot, [64, 128), not in order */
        TH_EQ(th_insert(&h, i, 64 + (int64_t)((i * 37) % 64)), 0);
    th_check_visit(&h, 4);
    for (i = 4; i < 100; i++)
        TH_EQ(th_insert(&h, i, (int64_t)(i * 7919 % 100) * conf_pow64((int)(i % 5))), 0);
    th_check_visit(&h, 100);
    i = th_pending_upto(&h, 50);
    TH_EQ(th_pop(&h, 50), i);
    th_check_visit(&h, 100 - i);
    th_next_expiry(&h);
    th_check_visit(&h, 100 - i);
    th_verify(&h);
    th_fini(&h);
}

/* The items behind the wheel's clock (0 for the other kinds): the due run
 * and the merge, O(log n) each when out of order. */
static size_t conf_overdue(const tc *c)
{
    size_t k = 0;
#if defined(TK_WHEEL)
    const struct timer_wheel *w = tc_ccore_(c);
    size_t i;
    for (i = TIMER_WHEEL_DUE; i < TIMER_WHEEL_NSLOTS; i++) {
        const struct tlist *head = &w->slot[i], *pos;
        if (tbitmap_test(w->occupied, i))
            for (pos = head->next; pos != head; pos = pos->next)
                k++;
    }
#else
    (void)c;
#endif
    return k;
}

/* 1000 rounds of an event loop: next_expiry (answering the same time every
 * round), then k short timers (items[0..k-1]) inserted at the times given,
 * then removed. The moves the wheel's refinement made in all. */
static unsigned long long conf_round_moves(tc *c, titem *items, const int64_t *at, size_t k)
{
    unsigned long long moves = tk_moves();
    int64_t next = tc_next_expiry(c);
    size_t j;
    int r;
    for (r = 0; r < 1000; r++) {
        TH_EQ(tc_next_expiry(c), next);
        for (j = 0; j < k; j++)
            TH_EQ(tc_insert(c, at[j], &items[j]), 0);
        for (j = 0; j < k; j++)
            TH_EQ(tc_remove(c, &items[j]), true);
    }
    return tk_moves() - moves;
}

/* No call pattern makes later calls slow (v2.1), checked by counts: the
 * heap's reallocations when an event loop reserves one more before every
 * insert (one per insert, quadratic, in 2.0), and the wheel's overdue list
 * after a far-ahead pop (every later insert went into it, sorted: O(n)
 * each). */
static void test_no_quadratic_traps(void)
{
    const size_t n = 50000;
    titem *items = (titem *)th_alloc(n, sizeof *items);
    struct tlist out = { NULL, NULL }, *link;
    uint64_t x = 12345;
    size_t i, k = 0;
    int64_t prev = -1;
    tc c;
#if defined(TK_HEAP)
    long calls = tk_alloc.calls;
#endif

    tc_init(&c, 0);
    for (i = 0; i < n; i++) {
        TH_EQ(tc_reserve(&c, tc_size(&c) + 1), 0);
        TH_EQ(tc_insert(&c, 1000 + (int64_t)i, &items[i]), 0);
    }
#if defined(TK_HEAP)
    calls = tk_alloc.calls - calls;
    TH_EXPECT(calls <= 24, "reserve(size + 1) before each of %zu inserts reallocated %ld times", n, calls);
#endif
    /* drain everything far ahead, then back at the real time */
    TH_EQ(tc_pop(&c, TIMER_NEVER, &out), n);
    tlist_drain(link, &out)
        k++;
    TH_EQ(k, n);
    TH_EQ(tc_pop(&c, 2000, &out), 0);
    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        TH_EQ(tc_insert(&c, 2001 + (int64_t)(x % (1u << 20)), &items[i]), 0);
    }
    TH_EXPECT(conf_overdue(&c) <= 64, "%zu of %zu random inserts after pop(TIMER_NEVER) went into the wheel's sorted overdue list",
              conf_overdue(&c), n);
    TH_EXPECT(tc_check(&c) == NULL, "check(): %s", tc_check(&c));
    /* Zero-delay timers (at the time of the latest pop) after the drain:
     * the second lands between the first and the later items, which in a
     * draft of 2.1.0 searched every item inserted since the drain (the clock had stayed
     * ahead). In the wheel, only items due by that time may stay in the
     * sorted list once one insert lands in its middle. */
    TH_EQ(tc_pop(&c, TIMER_NEVER, &out), n);
    tlist_drain(link, &out)
        ;
    TH_EQ(tc_pop(&c, 2000, &out), 0);
    for (i = 0; i < n - 100; i++)
        TH_EQ(tc_insert(&c, 3000 + (int64_t)i, &items[i]), 0);
    for (; i < n; i++)
        TH_EQ(tc_insert(&c, 2000, &items[i]), 0);
    TH_EXPECT(conf_overdue(&c) <= 100, "%zu items in the wheel's sorted overdue list after %zu ordered and 100 zero-delay inserts",
              conf_overdue(&c), n - 100);
    TH_EXPECT(tc_check(&c) == NULL, "check(): %s", tc_check(&c));
    TH_EQ(tc_pop(&c, TIMER_NEVER - 1, &out), n);
    k = 0;
    tlist_drain(link, &out) {
        titem *it = tc_entry(link);
        TH_EXPECT(tc_expire(it) >= prev, "pop out of order after a far-ahead drain");
        TH_EXPECT(k >= 100 || it == &items[n - 100 + k], "zero-delay timer %zu popped out of arrival order", k);
        prev = tc_expire(it);
        k++;
    }
    TH_EQ(k, n);

    /* An event loop's round: next_expiry (the wheel refines the coarse slot
     * that holds 10,000 timeouts, and its clock moves to them), then three
     * short timers out of order, then their removal. In 2.1.0's draft the
     * third insert rewound the clock, which undid the refinement, so every
     * round moved all 10,000 items again; a few out of order must not. */
    TH_EQ(tc_pop(&c, 3000, &out), 0);
    for (i = 0; i < 10000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        TH_EQ(tc_insert(&c, 3000 + 4096 + (int64_t)(x % 4096), &items[i]), 0);
    }
    {
        static const int64_t shorts[] = { 3100, 3300, 3200 };
        unsigned long long moves = conf_round_moves(&c, &items[10000], shorts, 3);
        TH_EXPECT(moves <= 11 * 10003ULL, "1000 rounds of next_expiry and 3 inserts out of order moved items %llu times",
                  moves);
    }
    TH_EQ(tc_pop(&c, TIMER_NEVER - 1, &out), 10000);
    tlist_drain(link, &out)
        ;
    tc_destroy(&c);

    /* The same round with 100 timeouts sharing one expiry on a slot start
     * and two short timers in order before them (in 2.3 next_expiry moved
     * the clock there and put the 100 at the overdue list's back; a search
     * from the back only rewound at the second, and every round moved the
     * 100). Since 2.4 no query moves the clock: the count still bounds it. */
    tc_init(&c, 0);
    for (i = 0; i < 100; i++)
        TH_EQ(tc_insert(&c, 8192, &items[i]), 0);
    {
        static const int64_t shorts[] = { 0, 10 };
        unsigned long long moves = conf_round_moves(&c, &items[100], shorts, 2);
        TH_EXPECT(moves <= 11 * 102ULL, "1000 rounds of next_expiry and 2 short timers before 100 equal timeouts moved items %llu times",
                  moves);
    }
    TH_EQ(tc_next_expiry(&c), 8192);
    TH_EQ(tc_pop(&c, 8192, &out), 100);
    tlist_drain(link, &out)
        ;
    tc_destroy(&c);
    free(items);
}

#if defined(TK_HEAP)
/* A heap that cannot grow: -ENOMEM from insert and from reschedule of idle
 * and due items, with nothing changed; failed shrinks are harmless. */
static void test_heap_nomem(void)
{
    const size_t ndue = 20, nfill = 1200;
    long calls = tk_alloc.calls;
    size_t i, nfull = 0;
    struct th h;
    int rc;

    th_init(&h, 1 + ndue + nfill, 0);
    TH_EQ(tk_alloc.calls - calls, 0); /* init allocates nothing ... */
    TH_EQ(tk_live_blocks(), 0);
    tk_fail_next(); /* ... so the first insert must */
    TH_EQ(th_insert(&h, 1, 10), -ENOMEM);
    tk_fail_none();
    TH_EQ(tc_size(&h.c), 0);
    th_verify(&h);

    for (i = 1; i <= ndue; i++)
        TH_EQ(th_insert(&h, i, (int64_t)i), 0);
    TH_EQ(th_pop(&h, (int64_t)ndue), ndue);

    /* Whenever an insert cannot grow the heap it is full, and a reschedule
     * of an idle or a due item then needs memory too. */
    for (i = 1 + ndue; i < h.n; i++) {
        int64_t e = 100 + (int64_t)th_below(1000);
        tk_fail_next();
        rc = th_insert(&h, i, e);
        tk_fail_none();
        th_verify(&h);
        if (rc != -ENOMEM)
            continue;
        nfull++;
        tk_fail_next();
        TH_EQ(th_reschedule(&h, 0, 50), -ENOMEM); /* idle */
        tk_fail_none();
        th_verify(&h);
        if (nfull <= ndue) {
            tk_fail_next();
            TH_EQ(th_reschedule(&h, nfull, 60), -ENOMEM); /* due: stays in its list */
            tk_fail_none();
            TH_EQ(tlist_size(&h.out), ndue);
            th_verify(&h);
        }
        tk_fail_next();
        th_reschedule(&h, i - 1, 70); /* pending: needs no memory, may not fail */
        tk_fail_none();
        th_verify(&h);
        TH_EQ(th_insert(&h, i, e), 0);
        th_verify(&h);
    }
    printf("heap: %zu inserts into a full heap failed as asked\n", nfull);
    TH_EXPECT(nfull >= 1, "no insert failed although every one was given a failing allocator");

    /* shrinking fails from here on: pop and remove must not care */
    tk_fail_all(true);
    for (i = 1 + ndue; i < h.n; i += 3)
        th_remove(&h, i);
    th_verify(&h);
    th_pop(&h, 400);
    th_verify(&h);
    th_pop(&h, INT64_MAX);
    th_verify(&h);
    tk_fail_all(false);
    th_fini(&h); /* checks that destroy freed every block */
}

/* The documented bound: the array holds at most max(64, 4n) entries after
 * any pop or remove, even when one pop empties a big heap. */
static void test_heap_memory_bound(void)
{
    const size_t n = 5000;
    size_t i;
    struct th h;

    th_init(&h, n, 0);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, (int64_t)i), 0);
    TH_EXPECT(tc_ccore_(&h.c)->cap >= n && tc_ccore_(&h.c)->cap <= 2 * n, "capacity after the inserts");
    TH_EQ(th_pop(&h, INT64_MAX), n);            /* one pop empties it ... */
    TH_EQ(tc_ccore_(&h.c)->cap, (size_t)TIMER_HEAP_MIN_CAP); /* ... and gives the array back */
    th_drain_all(&h);
    for (i = 0; i < n; i++)
        TH_EQ(th_insert(&h, i, (int64_t)i), 0);
    for (i = 0; i < n; i++) {                   /* removals one by one */
        th_remove(&h, i);
        TH_EXPECT(tc_ccore_(&h.c)->cap <= 4 * (n - i - 1) || tc_ccore_(&h.c)->cap == TIMER_HEAP_MIN_CAP,
                  "capacity above max(64, 4n) after a remove");
    }
    th_verify(&h);
    th_fini(&h);
}
#endif

static const struct {
    const char *name;
    void (*run)(void);
} conf_cases[] = {
    { "node_size", test_node_size },
    { "zeroed_node_is_idle", test_zeroed_node_is_idle },
    { "empty_container", test_empty_container },
    { "state_transitions", test_state_transitions },
    { "pop_exact", test_pop_exact },
    { "pop_order", test_pop_order },
    { "overdue_insert", test_overdue_insert },
    { "extremes", test_extremes },
    { "init_negative_now", test_init_negative_now },
    { "now_backwards", test_now_backwards },
    { "min_time_after_pops_back", test_min_time_after_pops_back },
    { "pop_negative_now", test_pop_negative_now },
    { "pop_appends", test_pop_appends },
    { "clear", test_clear },
    { "destroy_then_init", test_destroy_then_init },
    { "two_containers_one_struct", test_two_containers_one_struct },
    { "entry_null", test_entry_null },
    { "misuse", test_misuse },
    { "drain_with_callbacks", test_drain_with_callbacks },
    { "min_time_rounds", test_min_time_rounds },
    { "bulk", test_bulk },
    { "zeroed_result_list", test_zeroed_result_list },
    { "pop_order_ties", test_pop_order_ties },
    { "ties_after_next_expiry", test_ties_after_next_expiry },
    { "pop_order_script", test_pop_order_script },
    { "fixed_delay_runs", test_fixed_delay_runs },
    { "next_expiry", test_next_expiry },
    { "next_expiry_amortised", test_next_expiry_amortised },
    { "insert_after_next_expiry", test_insert_after_next_expiry },
    { "due_state", test_due_state },
    { "reserve", test_reserve },
    { "reschedule_pending_no_alloc", test_reschedule_pending_no_alloc },
    { "foreach_rearm", test_foreach_rearm },
    { "first", test_first },
    { "reschedule_range", test_reschedule_range },
    { "reschedule_near", test_reschedule_near },
    { "visit", test_visit },
    { "visit_until", test_visit_until },
    { "no_quadratic_traps", test_no_quadratic_traps },
#if defined(TK_HEAP)
    { "heap_nomem", test_heap_nomem },
    { "heap_memory_bound", test_heap_memory_bound },
#endif
};

int main(void)
{
    const size_t n = sizeof conf_cases / sizeof conf_cases[0];
    size_t i, failed = 0;

    th_rng = 1; /* the only randomness here is fixed */
    signal(SIGABRT, th_on_abort);
    for (i = 0; i < n; i++) {
        long before = th_failures;
        th_ctx.test = conf_cases[i].name;
        th_ctx.op = NULL;
        conf_cases[i].run();
        tk_fail_none();
        if (th_failures != before)
            failed++;
        printf("%s %s %s\n", th_failures == before ? "pass" : "FAIL", TK_KIND, conf_cases[i].name);
    }
    printf("conform %s: %zu of %zu cases failed\n", TK_KIND, failed, n);
    return failed != 0;
}
