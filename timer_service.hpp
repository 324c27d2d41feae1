/* SPDX-License-Identifier: MIT */
/* timer_service.hpp - timer_service.h (timers from any thread) as C++:
 * timer_containers::service<Kind> and an RAII timer whose destructor is
 * shutdown_sync. C++11 and up, with or without exceptions and RTTI. Thin over
 * the C core: the same calls, results and errors. A header of its own, not
 * in timer_containers.hpp: it needs POSIX threads.
 *
 *     #include "timer_service.hpp"
 *     namespace tc = timer_containers;
 *
 *     tc::service<tc::wheel_kind> svc(2);           // 2 shards; svc.error(): init's result
 *     if (svc.error() != 0 || svc.start() != 0)     // a thread per shard runs callbacks
 *         return 1;
 *     {
 *         tc::service_timer<tc::wheel_kind> tick(svc, 0, [&](const tc::service_fire &f) {
 *             std::printf("tick, %llu missed\n", static_cast<unsigned long long>(f.missed));
 *         });                                        // home: shard 0, for life
 *         if (tick.arm_periodic(std::chrono::steady_clock::now(), std::chrono::milliseconds(1),
 *                               TIMER_SERVICE_SKIP) < 0)
 *             return 1;
 *         ...                                        // any thread may arm, cancel, cancel_sync
 *         if (tick.cancel().stopped) ...             // tc::service_result: error, stopped,
 *                                                    // running
 *     }   // ~service_timer: shutdown_sync: the callback is not running and never runs again
 *
 * API (Kind = tc::set_kind, heap_kind or wheel_kind: the container of every
 * shard; each call is the C call of the same name, with its results):
 *   explicit service(unsigned shards = 1, void (*wake)(void *arg, unsigned shard) = nullptr,
 *                    void *wake_arg = nullptr);     init; ~service: destroy (stops its threads,
 *                                    hands pending timers to opt.left)
 *   explicit service(const timer_service_options &opt);   init with every option (slack, left)
 *   int error() const;               init's result: 0, -EINVAL, -ENOMEM, pthread's error;
 *                                    a service in error refuses every call with it
 *   int start();  void stop();  int run(unsigned shard, int64_t now, int budget);
 *   int64_t next_expiry() const;  int64_t next_expiry(unsigned shard) const;
 *   unsigned shards() const;  int reserve(unsigned shard, size_t n);
 *   int stats(unsigned shard, timer_service_stats &out);
 *   int arm(timer_service_timer &, int64_t expire), arm_range(...), arm_periodic(...);
 *   service_result cancel(timer_service_timer &), cancel_sync(...), shutdown_sync(...);
 *                                    C timers (timer_service_timer_init)
 * service_timer<Kind, F = std::function<void(const service_fire &)>>:
 *   service_timer(service<Kind> &s, unsigned shard, F fn);   fn(f) runs when it fires
 *   ~service_timer();                shutdown_sync: waits for a running callback (from its
 *                                    own callback: drops a re-arm, waits for nothing, as
 *                                    after `delete this`: touch nothing of it afterwards)
 *   int arm(int64_t expire_ns);  int arm(steady_clock::time_point expire);
 *   int arm_range(int64_t earliest_ns, int64_t latest_ns);
 *   int arm_range(steady_clock::time_point earliest, steady_clock::time_point latest);
 *   int arm_periodic(int64_t first_ns, int64_t period_ns, timer_service_policy p);
 *   int arm_periodic(steady_clock::time_point first, nanoseconds period, timer_service_policy p);
 *   service_result cancel();  service_result cancel_sync();  service_result shutdown_sync();
 *   bool pending() const;
 *   F &callable();  timer_service_timer &c_timer();
 * Times are ns of CLOCK_MONOTONIC, which std::chrono::steady_clock is on Linux
 * (libstdc++, libc++); a time point rounds up to its ns (never early). In a
 * program's loop (no start()), time is whatever run() is given.
 * Neither class is copyable or movable: the service's threads and the shards'
 * containers hold their addresses.
 */
#if !defined(__cplusplus)
#error "timer_service.hpp is C++: C code includes timer_service.h"
#endif

#ifndef TIMER_SERVICE_HPP
#define TIMER_SERVICE_HPP

#include "timer_containers.hpp"
#include "timer_service.h"

#include <chrono>
#include <functional>
#include <utility>

namespace timer_containers {

typedef struct timer_service_fire service_fire;
/* what cancel, cancel_sync and shutdown_sync did: .error, .stopped, .running */
typedef struct timer_service_result service_result;

namespace detail {

/* Each kind's table of container calls (timer_service.h), a constant the
 * always-inlined C cores turn into direct calls. */
template <class Kind> struct service_ops;
template <> struct service_ops<set_kind> {
    static const timer_service_ops_ *get() { return &timer_service_set_ops_; }
};
template <> struct service_ops<heap_kind> {
    static const timer_service_ops_ *get() { return &timer_service_heap_ops_; }
};
template <> struct service_ops<wheel_kind> {
    static const timer_service_ops_ *get() { return &timer_service_wheel_ops_; }
};

/* ns since steady_clock's epoch, rounded up; saturating (-EINVAL's domain
 * below 0 is the C call's to refuse). */
inline int64_t service_ns(std::chrono::steady_clock::time_point t)
{
    typedef std::chrono::steady_clock::duration D;
    D d = t.time_since_epoch();
    std::chrono::nanoseconds ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d);
    if (std::chrono::duration_cast<D>(ns) < d)
        ns += std::chrono::nanoseconds(1);
    return static_cast<int64_t>(ns.count());
}

} // namespace detail

template <class Kind>
class service {
public:
    explicit service(unsigned shards = 1, void (*wake)(void *arg, unsigned shard) = nullptr,
                     void *wake_arg = nullptr)
    {
        struct timer_service_options o;
        o.shards = shards;
        o.now = 0;
        o.wake = wake;
        o.wake_arg = wake_arg;
        o.slack = 0;
        o.left = nullptr;
        error_ = timer_service_init_(&core_, ops(), &o);
    }
    explicit service(const timer_service_options &opt) : error_(0)
    {
        error_ = timer_service_init_(&core_, ops(), &opt);
    }
    ~service() { timer_service_destroy_(&core_); }
    service(const service &) = delete;
    service &operator=(const service &) = delete;

    int error() const { return error_; }
    TIMER_CXX_NODISCARD_ int start() { return error_ ? error_ : timer_service_start_(&core_); }
    void stop() { timer_service_stop_(&core_); }
    TIMER_CXX_NODISCARD_ int run(unsigned shard, int64_t now, int budget)
    {
        return error_ ? error_ : timer_service_run_(&core_, shard, now, budget);
    }
    int64_t next_expiry() const { return timer_service_next_(&core_); }
    int64_t next_expiry(unsigned shard) const { return timer_service_shard_next_(&core_, shard); }
    unsigned shards() const { return core_.nshards; }
    TIMER_CXX_NODISCARD_ int reserve(unsigned shard, size_t n)
    {
        return error_ ? error_ : timer_service_reserve_(&core_, shard, n);
    }
    int stats(unsigned shard, timer_service_stats &out)
    {
        return timer_service_stats_(&core_, shard, &out);
    }

    TIMER_CXX_NODISCARD_ int arm(timer_service_timer &t, int64_t expire)
    {
        return error_ ? error_ : timer_service_arm_(&core_, ops(), &t, -1, expire, 0, 0);
    }
    TIMER_CXX_NODISCARD_ int arm_range(timer_service_timer &t, int64_t earliest, int64_t latest)
    {
        return error_ ? error_
               : earliest < 0 ? -EINVAL
                              : timer_service_arm_(&core_, ops(), &t, earliest, latest, 0, 0);
    }
    TIMER_CXX_NODISCARD_ int arm_periodic(timer_service_timer &t, int64_t first, int64_t period,
                                          timer_service_policy policy)
    {
        return error_ ? error_
               : period <= 0
                   ? -EINVAL
                   : timer_service_arm_(&core_, ops(), &t, -1, first, period,
                                        static_cast<int>(policy));
    }
    service_result cancel(timer_service_timer &t) { return stop(t, 0); }
    service_result cancel_sync(timer_service_timer &t) { return stop(t, 1); }
    service_result shutdown_sync(timer_service_timer &t) { return stop(t, 2); }

private:
    service_result stop(timer_service_timer &t, int sync)
    {
        service_result r = {error_, false, false};
        return error_ ? r : timer_service_cancel_(&core_, ops(), &t, sync);
    }
    static const timer_service_ops_ *ops() { return detail::service_ops<Kind>::get(); }
    struct timer_service core_;
    int error_;
};

template <class Kind, class F = std::function<void(const service_fire &)>>
class service_timer {
public:
    service_timer(service<Kind> &s, unsigned shard, F fn) : s_(s), fn_(std::move(fn))
    {
        timer_service_timer_init(&t_, shard, &service_timer::fire, this);
    }
    /* shutdown_sync; from its own callback (-EDEADLK) a cancel drops the
     * re-arm, and the service touches nothing of it after the callback. */
    ~service_timer()
    {
        if (s_.shutdown_sync(t_).error == -EDEADLK)
            s_.cancel(t_);
    }
    service_timer(const service_timer &) = delete;
    service_timer &operator=(const service_timer &) = delete;

    TIMER_CXX_NODISCARD_ int arm(int64_t expire_ns) { return s_.arm(t_, expire_ns); }
    TIMER_CXX_NODISCARD_ int arm(std::chrono::steady_clock::time_point expire)
    {
        return s_.arm(t_, detail::service_ns(expire));
    }
    TIMER_CXX_NODISCARD_ int arm_range(int64_t earliest_ns, int64_t latest_ns)
    {
        return s_.arm_range(t_, earliest_ns, latest_ns);
    }
    TIMER_CXX_NODISCARD_ int arm_range(std::chrono::steady_clock::time_point earliest,
                                       std::chrono::steady_clock::time_point latest)
    {
        return s_.arm_range(t_, detail::service_ns(earliest), detail::service_ns(latest));
    }
    TIMER_CXX_NODISCARD_ int arm_periodic(int64_t first_ns, int64_t period_ns,
                                          timer_service_policy p)
    {
        return s_.arm_periodic(t_, first_ns, period_ns, p);
    }
    TIMER_CXX_NODISCARD_ int arm_periodic(std::chrono::steady_clock::time_point first,
                                          std::chrono::nanoseconds period, timer_service_policy p)
    {
        int64_t period_ns = static_cast<int64_t>(period.count());
        return s_.arm_periodic(t_, detail::service_ns(first), period_ns, p);
    }
    service_result cancel() { return s_.cancel(t_); }
    service_result cancel_sync() { return s_.cancel_sync(t_); }
    service_result shutdown_sync() { return s_.shutdown_sync(t_); }
    bool pending() const { return timer_service_pending(&t_); }
    F &callable() { return fn_; }
    timer_service_timer &c_timer() { return t_; }

private:
    static void fire(timer_service_timer *, void *self, const timer_service_fire *f)
    {
        static_cast<service_timer *>(self)->fn_(*f);
    }
    service<Kind> &s_;
    F fn_;
    timer_service_timer t_;
};

} // namespace timer_containers

#endif /* TIMER_SERVICE_HPP */
