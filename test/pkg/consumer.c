/* consumer.c - a program written against the installed package: it includes
 * the headers as <timer_containers/...>, instantiates each container, pops a
 * few timers, and checks the exact result and the version. Exit 0: all
 * correct. test/pkg.sh builds it with -DEXPECTED_VERSION='"X.Y.Z"', a version
 * read from the package (pkg-config, find_package, meson) or from list.h, and
 * again with -DUSE_SINGLE_HEADER (consumer_single): the same program through
 * <timer_containers/timer_containers.h>, the five headers in one file. */
#if defined(USE_SINGLE_HEADER)
#include <timer_containers/timer_containers.h>
#define CONSUMER_NAME "consumer_single"
#else
#include <timer_containers/timer_wheel.h>
#include <timer_containers/timer_heap.h>
#include <timer_containers/timer_set.h>
#define CONSUMER_NAME "consumer"
#endif

#include <stdio.h>
#include <string.h>

#ifndef EXPECTED_VERSION
#error "build with -DEXPECTED_VERSION='\"X.Y.Z\"'"
#endif

#define N_JOBS 5

typedef struct job {
    int id;
    struct timer_wheel_node tw;
    struct timer_heap_node th;
    struct timer_set_node ts;
} job;

TIMER_WHEEL_DEFINE(job, tw)
TIMER_HEAP_DEFINE(job, th)
TIMER_SET_DEFINE(job, ts)

/* Job i expires at EXPIRE[i]; pop(25) must give jobs 1, 2 (expiries 10, 20),
 * then pop(100) jobs 0, 4, 3. The expiries lie in one 64-tick window of a
 * clock started at 0, so the wheel delivers them in expiry order too. */
static const int64_t EXPIRE[N_JOBS] = {30, 10, 20, 50, 40};
static const int FIRST[] = {1, 2};
static const int REST[] = {0, 4, 3};

static int failures;

static void expect(int ok, const char *kind, const char *what)
{
    if (!ok) {
        printf("FAIL %s: %s\n", kind, what);
        failures++;
    }
}

/* The popped ids, in order, against `want`. */
static void expect_ids(const char *kind, const int *got, size_t n_got, const int *want, size_t n_want)
{
    size_t i;
    int same = n_got == n_want;
    for (i = 0; same && i < n_got; i++)
        same = got[i] == want[i];
    expect(same, kind, "popped ids or their order");
}

/* One run per container, written once over the shared API: NAME is the
 * generated prefix, so the same calls exercise the wheel, heap and set. */
#define RUN(NAME)                                                                   \
    static void run_##NAME(job *jobs)                                               \
    {                                                                               \
        NAME c;                                                                     \
        struct tlist out;                                                           \
        int got[N_JOBS];                                                            \
        size_t n = 0;                                                               \
        job *j;                                                                     \
        int i;                                                                      \
        NAME##_init(&c, 0);                                                         \
        for (i = 0; i < N_JOBS; i++)                                                \
            expect(NAME##_insert(&c, EXPIRE[i], &jobs[i]) == 0, #NAME, "insert");   \
        expect(NAME##_size(&c) == N_JOBS, #NAME, "size after inserts");             \
        tlist_init(&out);                                                           \
        expect(NAME##_pop(&c, 25, &out) == 2, #NAME, "pop(25) count");             \
        while ((j = NAME##_entry(tlist_pop_front(&out))) != NULL && n < N_JOBS)     \
            got[n++] = j->id;                                                       \
        expect_ids(#NAME " pop(25)", got, n, FIRST, 2);                             \
        n = 0;                                                                      \
        expect(NAME##_pop(&c, 100, &out) == 3, #NAME, "pop(100) count");            \
        while ((j = NAME##_entry(tlist_pop_front(&out))) != NULL && n < N_JOBS)     \
            got[n++] = j->id;                                                       \
        expect_ids(#NAME " pop(100)", got, n, REST, 3);                             \
        expect(NAME##_empty(&c), #NAME, "empty at the end");                        \
        expect(NAME##_check(&c) == NULL, #NAME, "invariant check");                 \
        NAME##_destroy(&c);                                                         \
    }

RUN(job_wheel)
RUN(job_heap)
RUN(job_set)

int main(void)
{
    job jobs[N_JOBS];
    char parts[64];
    int i;

    memset(jobs, 0, sizeof jobs); /* zeroed nodes are idle: no init call */
    for (i = 0; i < N_JOBS; i++)
        jobs[i].id = i;
    run_job_wheel(jobs);
    run_job_heap(jobs);
    run_job_set(jobs);

    snprintf(parts, sizeof parts, "%d.%d.%d", TIMER_VERSION_MAJOR, TIMER_VERSION_MINOR,
             TIMER_VERSION_PATCH);
    expect(strcmp(TIMER_VERSION, EXPECTED_VERSION) == 0, "version", "TIMER_VERSION differs from the package's");
    expect(strcmp(parts, TIMER_VERSION) == 0, "version", "MAJOR.MINOR.PATCH differ from TIMER_VERSION");
    printf("%s: timer_containers %s (expected %s): %s\n", CONSUMER_NAME, TIMER_VERSION, EXPECTED_VERSION,
           failures ? "FAILED" : "ok");
    return failures != 0;
}
