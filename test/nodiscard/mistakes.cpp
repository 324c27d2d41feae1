// mistakes.cpp - the same through timer_containers.hpp, in C++11 and 14
// (warn_unused_result) and 17 and later ([[nodiscard]]): a pop whose range
// no loop takes pops nothing for good (the items go back when it ends).
#include "timer_containers.hpp"

#include <chrono>

namespace tc = timer_containers;
struct conn {
    int fd;
    tc::wheel_node w;
};
typedef tc::wheel<conn, &conn::w> timers;
typedef tc::clocked<timers, std::chrono::steady_clock> clocked;

void mistakes(timers &t, clocked &k, tc::events<tc::heap_kind> &loop, tc::event<tc::heap_kind, tc::callback> &e,
              conn &c);
void mistakes(timers &t, clocked &k, tc::events<tc::heap_kind> &loop, tc::event<tc::heap_kind, tc::callback> &e,
              conn &c)
{
    t.pop(5);                                   // MISTAKE: a silent no-op in 2.2 before C++17
    t.insert(5, c);                             // MISTAKE
    t.reschedule(5, c);                         // MISTAKE
    t.reschedule_range(5, 9, c);                // MISTAKE
    t.reschedule_near(5, 9, c);                 // MISTAKE
    t.reserve(9);                               // MISTAKE
    k.insert(std::chrono::steady_clock::now(), c); // MISTAKE
    loop.insert(5, e);                          // MISTAKE
    t.remove(c);                                // fine
    loop.run_due(9);                            // fine: the events ran
    for (conn &x : t.pop(9))                    // fine: the loop takes the range
        (void)x;
}
