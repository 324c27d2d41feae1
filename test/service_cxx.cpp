// service_cxx.cpp - what timer_service.hpp adds: RAII service and timers,
// callables, std::chrono expiries, the destructor that is shutdown_sync.
//
// Built as C++11 without exceptions or RTTI (make test), and as C++20 under
// ASan + UBSan and under ThreadSanitizer (make check). Every check exits
// non-zero with a message; no check judges a duration.
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "timer_service.hpp"

namespace tc = timer_containers;

#define CHECK(cond, what)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("FAIL service_cxx line %d: %s\n", __LINE__, what);                         \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

static unsigned wakes[2];
static void count_wake(void *arg, unsigned shard)
{
    CHECK(arg == wakes, "the wake callback's argument");
    wakes[shard]++;
}

// The program's loop: run() on a manual clock, on every kind.
template <class Kind> static void loop_mode()
{
    tc::service<Kind> svc(2, count_wake, wakes);
    int runs = 0;
    int64_t last_expire = -1;
    uint64_t last_missed = 0;
    CHECK(svc.error() == 0 && svc.shards() == 2, "init");
    wakes[0] = wakes[1] = 0;
    {
        tc::service_timer<Kind> t(svc, 1, [&](const tc::service_fire &f) {
            runs++;
            last_expire = f.expire;
            last_missed = f.missed;
        });
        CHECK(t.arm(-1) == -EINVAL && !t.pending(), "arm(-1): -EINVAL, nothing changed");
        CHECK(t.arm(100) == 0 && t.pending() && wakes[1] == 1 && wakes[0] == 0,
              "arm wakes shard 1 once");
        CHECK(t.arm(50) == 1 && wakes[1] == 2, "an earlier move wakes again");
        CHECK(svc.next_expiry() == 50 && svc.next_expiry(1) == 50 &&
                  svc.next_expiry(0) == TIMER_NEVER,
              "next_expiry");
        CHECK(svc.run(1, 49, 10) == 0 && svc.run(1, 50, 10) == 1 && runs == 1 && last_expire == 50,
              "run");
        CHECK(t.arm_periodic(100, 10, TIMER_SERVICE_SKIP) == 0, "arm_periodic");
        CHECK(svc.run(1, 135, 10) == 1 && last_missed == 3 && svc.next_expiry(1) == 140,
              "skip policy");
        tc::service_result r = t.cancel();
        CHECK(r.error == 0 && r.stopped && !r.running && !t.pending(), "cancel");
        CHECK(t.arm_range(-1, 5) == -EINVAL && t.arm_range(10, 5) == -EINVAL, "arm_range: errors");
        CHECK(t.arm_range(150, 170) == 0 && svc.next_expiry(1) == 170, "arm_range: at latest");
        CHECK(t.arm_range(160, 200) == 1 && svc.next_expiry(1) == 170, "arm_range: kept");
        CHECK(t.arm(200) == 1, "arm");
    }   // ~service_timer: shutdown_sync takes it out
    CHECK(svc.next_expiry() == TIMER_NEVER && svc.run(1, 1000, 10) == 0 && runs == 2,
          "the destructor");

    // destroyed from its own callback: no deadlock, its periodic re-arm dropped
    std::unique_ptr<tc::service_timer<Kind>> self;
    int self_runs = 0;
    self.reset(new tc::service_timer<Kind>(svc, 0, [&](const tc::service_fire &) {
        self_runs++;
        self.reset();   // as `delete this`: nothing of it is touched afterwards
    }));
    CHECK(self->arm_periodic(10, 10, TIMER_SERVICE_BURST) == 0, "arm_periodic");
    CHECK(svc.run(0, 10, 10) == 1 && self_runs == 1 && !self, "destroyed in its own callback");
    CHECK(svc.run(0, 1000, 10) == 0 && svc.next_expiry() == TIMER_NEVER, "its re-arm was dropped");
}

// The service's threads: the destructor waits for a running callback.
static void threads_mode()
{
    tc::service<tc::wheel_kind> svc(1);
    std::mutex mu;
    std::condition_variable cv;
    bool entered = false, release = false, returned = false, returned_at_destruction = false;
    CHECK(svc.error() == 0 && svc.start() == 0 && svc.start() == -EBUSY, "start");
    CHECK(svc.run(0, 0, 1) == -EBUSY, "run while its thread runs the shard");
    std::unique_ptr<tc::service_timer<tc::wheel_kind>> t(
        new tc::service_timer<tc::wheel_kind>(svc, 0, [&](const tc::service_fire &) {
            std::unique_lock<std::mutex> lock(mu);
            entered = true;
            cv.notify_all();
            cv.wait(lock, [&] { return release; });
            returned = true;    // the last thing it does
        }));
    CHECK(t->arm(std::chrono::steady_clock::now()) == 0, "arm a time point");
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return entered; });
    }
    std::thread destroyer([&] {
        t.reset();  // shutdown_sync: returns once the callback has
        std::lock_guard<std::mutex> lock(mu);
        returned_at_destruction = returned;
    });
    {
        std::lock_guard<std::mutex> lock(mu);
        release = true;
        cv.notify_all();
    }
    destroyer.join();
    CHECK(returned_at_destruction, "~service_timer returned while its callback ran");

    // time points round up to the ns, never early
    int64_t expire = -1;
    tc::service_timer<tc::wheel_kind> u(svc, 0, [&](const tc::service_fire &f) {
        std::lock_guard<std::mutex> lock(mu);
        expire = f.expire;
        cv.notify_all();
    });
    std::chrono::steady_clock::time_point when =
        std::chrono::steady_clock::now() + std::chrono::microseconds(100);
    CHECK(u.arm(when) == 0, "arm");
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return expire >= 0; });
    }
    CHECK(expire == tc::detail::service_ns(when), "the expiry of a time point");
    tc::service_result r = u.cancel_sync(); /* running if its callback had not yet returned */
    CHECK(r.error == 0 && !r.stopped, "cancel_sync after the one run");
    r = u.shutdown_sync();
    CHECK(r.error == 0 && !r.stopped && !r.running && u.arm(when) == -ESHUTDOWN, "shutdown_sync");
}

// A service made from every option: destroy hands its pending timers back to left.
static int left_count;
static void count_left(timer_service_timer *, void *arg)
{
    CHECK(arg == &left_count, "left: the timer's arg");
    left_count++;
}
static void noop(timer_service_timer *, void *, const timer_service_fire *) {}

static void options()
{
    timer_service_timer a, b;
    timer_service_options o = timer_service_options();
    o.shards = 2;
    o.left = count_left;
    timer_service_timer_init(&a, 0, noop, &left_count);
    timer_service_timer_init(&b, 1, noop, &left_count);
    {
        tc::service<tc::heap_kind> svc(o);
        CHECK(svc.error() == 0 && svc.shards() == 2, "init with options");
        CHECK(svc.arm(a, 10) == 0 && svc.arm(b, 20) == 0 && svc.arm(b, 30) == 1, "arms");
        CHECK(svc.arm_periodic(a, 0, INT64_MAX, TIMER_SERVICE_SKIP) == -EINVAL,
              "a series whose second tick is TIMER_NEVER");
    } // ~service: destroy hands both back
    CHECK(left_count == 2 && !timer_service_pending(&a) && !timer_service_pending(&b),
          "destroy handed both pending timers back to left");
}

int main()
{
    loop_mode<tc::set_kind>();
    loop_mode<tc::heap_kind>();
    loop_mode<tc::wheel_kind>();
    threads_mode();
    options();
    std::printf("service_cxx: loop and thread modes, RAII timers and services, every kind: ok\n");
    return 0;
}
