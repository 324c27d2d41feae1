/* consumer.cpp - consumer.c's check through the C++ interface: a program
 * written against the installed package that includes
 * <timer_containers/timer_containers.hpp>, pops the same jobs from each
 * container, runs an event on std::chrono time, and checks the exact results
 * and the version. Exit 0: all correct. test/pkg.sh builds it with
 * -DEXPECTED_VERSION='"X.Y.Z"' on every route (consumer_cxx). */
#include <timer_containers/timer_containers.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>

#ifndef EXPECTED_VERSION
#error "build with -DEXPECTED_VERSION='\"X.Y.Z\"'"
#endif

namespace tc = timer_containers;

struct job {
    int id;
    tc::wheel_node tw;
    tc::heap_node th;
    tc::set_node ts;
};

/* As consumer.c: job i expires at EXPIRE[i]; pop(25) gives jobs 1, 2, then
 * pop(100) jobs 0, 4, 3. */
static const int64_t EXPIRE[5] = {30, 10, 20, 50, 40};
static const int WANT[5] = {1, 2, 0, 4, 3};
static int failures;

static void expect(bool ok, const char *kind, const char *what)
{
    if (!ok) {
        std::printf("FAIL %s: %s\n", kind, what);
        failures++;
    }
}

/* Written once over the shared interface: the same calls for every kind. */
template <class Timers>
static void run(job *jobs, const char *kind)
{
    Timers c(0);
    int got[5], n = 0;
    for (int i = 0; i < 5; i++)
        expect(c.insert(EXPIRE[i], jobs[i]) == 0, kind, "insert");
    expect(c.size() == 5, kind, "size after inserts");
    for (job &j : c.pop(25))
        got[n++] = j.id;
    expect(n == 2, kind, "pop(25) count");
    for (job &j : c.pop(100))
        if (n < 5)
            got[n++] = j.id;
    expect(n == 5 && std::memcmp(got, WANT, sizeof got) == 0, kind, "popped ids or their order");
    expect(c.empty() && c.check() == nullptr, kind, "empty and sound at the end");
}

int main()
{
    job jobs[5] = {};
    for (int i = 0; i < 5; i++)
        jobs[i].id = i;
    run<tc::wheel<job, &job::tw> >(jobs, "wheel");
    run<tc::heap<job, &job::th> >(jobs, "heap");
    run<tc::set<job, &job::ts> >(jobs, "set");

    /* an event on steady_clock time: not due a tick early, due after it */
    using namespace std::chrono;
    steady_clock::time_point t0 = steady_clock::now();
    tc::clocked<tc::events<tc::wheel_kind>, steady_clock, milliseconds> loop(t0);
    int ran = 0;
    tc::event<tc::wheel_kind, tc::callback> ev(tc::callback([](void *p) { ++*static_cast<int *>(p); }, &ran));
    expect(loop.insert(t0 + milliseconds(5), ev) == 0, "events", "insert");
    expect(loop.run_due(t0 + milliseconds(4)) == 0 && ran == 0, "events", "ran early");
    expect(loop.run_due(t0 + milliseconds(6)) == 1 && ran == 1, "events", "did not run");

    expect(std::strcmp(TIMER_VERSION, EXPECTED_VERSION) == 0, "version", "TIMER_VERSION differs from the package's");
    std::printf("consumer_cxx: timer_containers %s (expected %s): %s\n", TIMER_VERSION, EXPECTED_VERSION,
                failures ? "FAILED" : "ok");
    return failures != 0;
}
