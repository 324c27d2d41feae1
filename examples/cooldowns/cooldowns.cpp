/* cooldowns.cpp - a game's cooldowns and buffs on std::chrono time, through
 * timer_containers.hpp.
 *
 * A player fights a regenerating enemy. Abilities go on cooldown when cast:
 * each is an item in a timer wheel, pending until it is ready again, and the
 * frame loop pops the ones that are. Effects are callback events: a shield
 * that ends after a few seconds, a poison that ticks every second and
 * destroys itself after its last tick, the enemy's regeneration that re-arms
 * itself, a purge that cancels the regeneration for a while, and the end of
 * the fight, which destroys every effect still armed, those due in the same
 * frame included.
 *
 * The frames are simulated at 60 per second on a clock of our own, so every
 * run prints the same log (examples/cooldowns/expected.txt; the test compares
 * the two). A real game passes std::chrono::steady_clock instead of
 * game_clock, and sleeps until the next frame or the next timer:
 * `wake = std::min(next_frame, effects.next_expiry())`.
 *
 *     ./cooldowns          the fight, one line per event
 */
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "timer_containers.hpp"

namespace tc = timer_containers;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

/* The simulated clock: what steady_clock would say, advanced by the frame
 * loop one frame (16.666667 ms, not a whole tick) at a time. */
struct game_clock {
    typedef nanoseconds duration;
    typedef duration::rep rep;
    typedef duration::period period;
    typedef std::chrono::time_point<game_clock> time_point;
    static const bool is_steady = true;
    static time_point now() { return current; }
    static time_point current;
};
game_clock::time_point game_clock::current;

typedef game_clock::time_point time_point;
typedef tc::wheel_kind kind; /* heap_kind or set_kind: the same fight */

struct ability {
    const char *name;
    milliseconds cooldown;
    kind::node ready; /* pending while the ability cools down */
};

/* Ticks of a millisecond: expiries round up to one, `now` down, so nothing
 * fires before its time point. */
typedef tc::clocked<kind::timers<ability, &ability::ready>, game_clock, milliseconds> cooldowns;
typedef tc::clocked<tc::events<kind>, game_clock, milliseconds> effects;

/* A line of the log, after the time of the frame. */
#if defined(__GNUC__)
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
static void say(const char *fmt, ...)
{
    va_list ap;
    std::printf("%8.3f s  ", std::chrono::duration<double>(game_clock::now().time_since_epoch()).count());
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::putchar('\n');
}

struct fight;

/* The next whole second: poisons tick on the server's second, together. */
static time_point next_second(time_point t)
{
    return time_point(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()) +
                      std::chrono::seconds(1));
}

/* A poison: a tick on every second, `ticks` times, then it destroys itself.
 * Its callable holds a pointer: no allocation, the event is part of the
 * poison. Two poisons tick in the same frame. */
struct poison {
    struct tick {
        poison *p;
        void operator()() const;
    };
    fight *f;
    int ticks, damage;
    tc::event<kind, tick> next;
    poison(fight *fi, int n, int d) : f(fi), ticks(n), damage(d), next(tick{this}) {}
};

struct fight {
    /* Abilities before the containers that hold them; effects after theirs
     * (an effect's destructor cancels it, whatever the order). */
    ability fireball, venom, shield, purge;
    cooldowns cooling;
    effects fx;
    int enemy_hp = 330, shield_left = 0, player_hp = 300;
    bool over = false;
    std::vector<std::unique_ptr<poison> > poisons;

    /* The enemy heals 6 every half second, re-arming itself. */
    tc::event<kind, std::function<void()> > regen{[this] {
        enemy_hp += 6;
        say("enemy regenerates 6 (enemy %d)", enemy_hp);
        arm(regen, fx.expire(regen) + milliseconds(500));
    }};
    /* Purged, regeneration resumes 3 s later. */
    tc::event<kind, std::function<void()> > regen_back{[this] {
        say("enemy regeneration resumes");
        arm(regen, game_clock::now() + milliseconds(500));
    }};
    tc::event<kind, std::function<void()> > shield_ends{[this] {
        say("shield fades (%d left unused)", shield_left);
        shield_left = 0;
    }};
    /* The enemy hits every 1.2 s. */
    tc::event<kind, std::function<void()> > enemy_hits{[this] {
        int blocked = shield_left < 25 ? shield_left : 25;
        shield_left -= blocked;
        player_hp -= 25 - blocked;
        say("enemy hits for 25, %d blocked (player %d)", blocked, player_hp);
        arm(enemy_hits, fx.expire(enemy_hits) + milliseconds(1200));
    }};

    fight()
        : fireball{"fireball", milliseconds(2500), {}}, venom{"venom", milliseconds(3000), {}},
          shield{"shield", milliseconds(8000), {}}, purge{"purge", milliseconds(10000), {}},
          cooling(game_clock::now()), fx(game_clock::now())
    {
        arm(regen, game_clock::now() + milliseconds(500));
        arm(enemy_hits, game_clock::now() + milliseconds(1200));
    }

    template <class Event> void arm(Event &e, time_point when)
    {
        if (fx.reschedule(when, e) != 0)
            say("cannot arm an effect");
    }

    void damage(const char *what, int n)
    {
        enemy_hp -= n;
        say("%s hits for %d (enemy %d)", what, n, enemy_hp);
        if (enemy_hp <= 0 && !over)
            win();
    }

    /* The end: every effect still armed is destroyed or cancelled, those due
     * in this very frame too (they do not run). */
    void win()
    {
        int due = fx.due(regen) + fx.due(regen_back) + fx.due(shield_ends) + fx.due(enemy_hits);
        for (const std::unique_ptr<poison> &p : poisons)
            due += fx.due(p->next);
        over = true;
        say("enemy defeated: %zu poisons destroyed, every effect cancelled (%d due this frame)", poisons.size(),
            due);
        poisons.clear();
        regen.cancel();
        regen_back.cancel();
        shield_ends.cancel();
        enemy_hits.cancel();
    }

    bool cast(ability &a)
    {
        if (cooling.pending(a))
            return false;
        if (cooling.insert(game_clock::now() + a.cooldown, a) != 0)
            return false;
        if (&a == &fireball) {
            damage("fireball", 40);
        } else if (&a == &venom) {
            poisons.emplace_back(new poison(this, 5, 9));
            arm(poisons.back()->next, next_second(game_clock::now()));
            say("venom: a poison, 5 ticks of 9 (%zu poisons)", poisons.size());
        } else if (&a == &shield) {
            shield_left = 60;
            arm(shield_ends, game_clock::now() + milliseconds(4000));
            say("shield up: 60 for 4 s");
        } else {
            regen.cancel();
            arm(regen_back, game_clock::now() + milliseconds(3000));
            say("purge: enemy regeneration stopped for 3 s");
        }
        return true;
    }

    void cure(poison *p)
    {
        for (size_t i = 0; i < poisons.size(); i++)
            if (poisons[i].get() == p) {
                poisons.erase(poisons.begin() + static_cast<std::ptrdiff_t>(i));
                return;
            }
    }

    /* One frame: abilities that are ready, effects that are due, then the
     * player acts (the first ready ability of the rotation). */
    void frame()
    {
        for (ability &a : cooling.pop(game_clock::now()))
            say("%s ready (due %.3f s)", a.name,
                std::chrono::duration<double>(cooling.expire(a).time_since_epoch()).count());
        fx.run_due(game_clock::now());
        if (over)
            return;
        ability *rotation[] = {&shield, &purge, &venom, &fireball};
        for (ability *a : rotation)
            if (cast(*a))
                break;
    }
};

void poison::tick::operator()() const
{
    poison *q = p; /* this callable lives in q: after cure(q), touch nothing of it */
    fight *fi = q->f;
    fi->damage("poison", q->damage);
    if (fi->over)
        return; /* the fight's end destroyed q, and this event with it */
    if (--q->ticks > 0)
        fi->arm(q->next, next_second(game_clock::now()));
    else {
        say("a poison wears off");
        fi->cure(q);
    }
}

int main()
{
    const nanoseconds frame(16666667); /* 60 frames a second */
    fight f;
    int frames = 0;
    while (!f.over && f.player_hp > 0 && frames < 60 * 60) {
        f.frame();
        game_clock::current += frame;
        frames++;
    }
    say("%s after %d frames; %zu timers pending, %zu effects armed", f.over ? "won" : "lost", frames,
        f.cooling.size(), f.fx.size());
    return f.over ? 0 : 1;
}
