/* heartbeat_server.c - close TCP connections that stop sending heartbeats.
 *
 * Clients send something at least every PERIOD ms; a connection that has
 * been silent for TIMEOUT ms is closed, at most a slack of two periods
 * (TIMEOUT at most) later. One thread handles both kinds of event: epoll
 * reports the network, and a timer container holds one timer per
 * connection, pushed back each time the connection says something: with
 * reschedule_range, which moves the timer only when it would expire before
 * TIMEOUT ms of silence. The timer then moves about once per slack, every
 * other heartbeat: a slack under one period would move it on every one.
 * epoll_wait sleeps until the earliest timer's expiry (next_expiry, exact
 * for every container), or for ever when there is no timer, so the server
 * makes no periodic wake-ups, no wake-up that finds nothing to do, and does
 * no work per connection unless it hears from it.
 *
 *   heartbeat_server -p PORT [-a ADDR] [-P PERIOD_MS] [-t TIMEOUT_MS] [-c MAX_CONNS]
 *
 * Protocol: on connect the server sends one line,
 *   "heartbeat period_ms=P timeout_ms=T\n"
 * so that clients learn the period from the server (as Engine.IO's handshake
 * announces pingInterval and pingTimeout); after that any bytes from the
 * client count as a heartbeat. The server sends nothing else.
 *
 * stdout, one line per event (line-buffered, for people and for the test):
 *   listening ADDR:PORT container=wheel period_ms=P timeout_ms=T
 *   idle-close PEER_ADDR:PEER_PORT silent_us=N at_us=M expire_us=E asked_us=A asked_at_us=B
 *   idle-wakeup at_us=M early_us=N
 *   exit accepted=N idle_closed=N peer_closed=N open_at_exit=N refused=N timer_wakeups=N idle_wakeups=N
 * silent_us: since the server last heard from the connection; at_us: the
 * time its pop found the timer expired (what was ready by then had been
 * read), on CLOCK_MONOTONIC, which every process on the machine
 * shares, so that a client can line it up with its own clock; expire_us:
 * the expiry of the connection's timer; asked_us: when the epoll_wait before
 * the close was asked to end at the latest (-1: no timeout), asked at
 * asked_at_us. A test judges the loop by them: it must ask to wake by the
 * timer's expiry (or at once, if that has passed), and the expiry must be
 * the timeout after the last read, give or take the slack; how much later
 * the close came is the machine's doing (a busy or stopped process), not
 * the timers'.
 * timer_wakeups: times epoll_wait returned with no event (its timeout, i.e.
 * a timer, woke the server) and a timer was due; idle_wakeups: such returns
 * with no timer due, a wasted wake-up, each also logged by an idle-wakeup
 * line (early_us: how long before the earliest expiry it came). The loop is
 * built so that there are none: the test checks that.
 * SIGINT or SIGTERM closes every connection, prints the exit line, exits 0.
 *
 * The container is the wheel; build with -DHEARTBEAT_USE_HEAP or
 * -DHEARTBEAT_USE_SET for the heap or the set. Only the block below names
 * the container; everything else calls it through the conn_timers_ prefix.
 */
#define _GNU_SOURCE             /* accept4, signalfd, epoll */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#if defined(HEARTBEAT_USE_HEAP)
#include "timer_heap.h"
#define CONN_TIMER_NODE struct timer_heap_node
#define CONN_TIMERS_DEFINE TIMER_HEAP_DEFINE_NAMED
#define CONN_TIMERS_KIND "heap"
#elif defined(HEARTBEAT_USE_SET)
#include "timer_set.h"
#define CONN_TIMER_NODE struct timer_set_node
#define CONN_TIMERS_DEFINE TIMER_SET_DEFINE_NAMED
#define CONN_TIMERS_KIND "set"
#else
#include "timer_wheel.h"
#define CONN_TIMER_NODE struct timer_wheel_node
#define CONN_TIMERS_DEFINE TIMER_WHEEL_DEFINE_NAMED
#define CONN_TIMERS_KIND "wheel"
#endif

struct conn {
    int fd;
    int64_t heard_ns;           /* when we last read from it (CLOCK_MONOTONIC) */
    char peer[INET_ADDRSTRLEN + 8];
    CONN_TIMER_NODE timer;      /* pending exactly while the connection is open */
};

/* conn_timers: the container; conn_timers_insert(), _reschedule(), ... */
CONN_TIMERS_DEFINE(conn_timers, struct conn, timer)

struct server {
    int epoll_fd, listen_fd, signal_fd;
    int spare_fd;               /* kept open to recover from running out of descriptors */
    int period_ms, timeout_ms;
    int slack_ms;               /* how late a silent connection may close: 2 periods, at most the timeout */
    size_t max_conns;
    char greeting[80];
    size_t greeting_len;
    conn_timers timers;         /* time unit: ms of CLOCK_MONOTONIC */
    size_t open, accepted, idle_closed, peer_closed, refused;
    size_t timer_wakeups, idle_wakeups;
    int64_t asked_ms, asked_at_ms;  /* the last epoll_wait's deadline (-1: none), and when it was asked */
    int64_t judged_ns;              /* the time the last pop judged the timers by */
};

static const char *prog = "heartbeat_server";

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* why == NULL: -h, the help asked for. */
static void usage(const char *why)
{
    FILE *f = why ? stderr : stdout;
    if (why)
        fprintf(f, "%s: %s\n", prog, why);
    fprintf(f,
            "usage: %s -p PORT [-a ADDR] [-P PERIOD_MS] [-t TIMEOUT_MS] [-c MAX_CONNS]\n"
            "  -p PORT        TCP port to listen on (0: any free port, printed at start)\n"
            "  -a ADDR        IPv4 address to listen on (default 127.0.0.1)\n"
            "  -P PERIOD_MS   heartbeat period announced to clients (default 5000)\n"
            "  -t TIMEOUT_MS  close a connection silent for this long (default 10000;\n"
            "                 must be longer than the period)\n"
            "  -c MAX_CONNS   most connections open at once; more are refused (default 1000)\n",
            prog);
    exit(why ? 2 : 0);
}

/* A whole decimal number in [min, max], or a usage error naming the option. */
static long parse_number(const char *s, long min, long max, const char *what)
{
    char *end, msg[160];
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        snprintf(msg, sizeof msg, "%s must be a number from %ld to %ld, not '%s'", what, min, max, s);
        usage(msg);
    }
    return v;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The timers count whole ms and pop(now) fires what has expire <= now, with
 * now rounded down. A message heard at 12.9 ms therefore gets expire
 * 12 + timeout + 1: it then fires no earlier than 13 + timeout ms, which is
 * at least `timeout` ms of real silence, never a fraction of a ms less. */
static int64_t expiry_after(const struct server *srv, int64_t heard_ns)
{
    return heard_ns / 1000000 + srv->timeout_ms + 1;
}

/* How long epoll_wait may sleep, read at now_ns: until the earliest expiry,
 * or for ever when there is no timer. empty() is the test for "no timer":
 * next_expiry is TIMER_NEVER then, but a timer may also be set for
 * TIMER_NEVER itself. next_expiry is exact (min_time, the wheel's O(1)
 * lower bound, may be early: sleeping until it would wake the server to
 * pop nothing).
 *
 * Rounding. The timer at `next` is due once the clock's ms, rounded down,
 * reaches next, i.e. from the instant next * 1 ms on. With now_ms = now_ns
 * rounded down to a ms, a timeout of next - now_ms whole ms ends at
 * now_ns + (next - now_ms) ms >= next ms: never before the expiry, and no
 * later than 1 ms after it (one ms less could end before it). The kernel
 * starts the timeout after we read the clock, and ends it no earlier, on
 * the same CLOCK_MONOTONIC; should it ever return before the expiry all the
 * same, pop finds nothing, the loop asks again, and the answer is a timeout
 * of at least 1 ms: it waits again, it never spins. */
static int wait_ms(conn_timers *timers, int64_t now_ns)
{
    int64_t next, now_ms = now_ns / 1000000;
    if (conn_timers_empty(timers))
        return -1;
    next = conn_timers_next_expiry(timers);
    if (next <= now_ms)
        return 0;
    if (next - now_ms > INT_MAX)
        return INT_MAX;         /* 24.8 days: then one wake-up finds nothing due and waits again */
    return (int)(next - now_ms);
}

enum close_reason { CLOSE_IDLE, CLOSE_PEER, CLOSE_EXIT };

static void conn_close(struct server *srv, struct conn *c, enum close_reason why)
{
    if (why == CLOSE_IDLE) {
        int64_t now = srv->judged_ns;   /* when its timer was found expired */
        printf("idle-close %s silent_us=%lld at_us=%lld expire_us=%lld asked_us=%lld asked_at_us=%lld\n", c->peer,
               (long long)((now - c->heard_ns) / 1000), (long long)(now / 1000),
               (long long)conn_timers_expire(c) * 1000,
               srv->asked_ms < 0 ? -1LL : (long long)srv->asked_ms * 1000, (long long)srv->asked_at_ms * 1000);
        srv->idle_closed++;
    } else if (why == CLOSE_PEER) {
        srv->peer_closed++;
    }
    /* An expired connection's timer is already idle (pop handed it out and
     * tlist_drain took it off the list): remove() then just returns false. */
    conn_timers_remove(&srv->timers, c);
    close(c->fd);               /* also takes it out of the epoll set */
    srv->open--;
    free(c);
}

static void conn_open(struct server *srv, int fd, const struct sockaddr_in *peer)
{
    struct conn *c = calloc(1, sizeof *c);     /* zeroed: its timer node is idle */
    struct epoll_event ev;
    char addr[INET_ADDRSTRLEN];
    int err;

    if (c == NULL) {
        fprintf(stderr, "%s: out of memory: refusing a connection\n", prog);
        close(fd);
        srv->refused++;
        return;
    }
    c->fd = fd;
    inet_ntop(AF_INET, &peer->sin_addr, addr, sizeof addr);
    snprintf(c->peer, sizeof c->peer, "%s:%u", addr, (unsigned)ntohs(peer->sin_port));
    c->heard_ns = mono_ns();    /* silence is counted from the connection's start */

    /* The heap may fail to grow (-ENOMEM); the wheel and the set never fail here. */
    err = conn_timers_insert(&srv->timers, expiry_after(srv, c->heard_ns), c);
    if (err != 0) {
        fprintf(stderr, "%s: cannot add a timer (%s): refusing %s\n", prog, strerror(-err), c->peer);
        close(fd);
        free(c);
        srv->refused++;
        return;
    }
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.ptr = c;
    if (epoll_ctl(srv->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        fprintf(stderr, "%s: epoll_ctl: %s: refusing %s\n", prog, strerror(errno), c->peer);
        conn_timers_remove(&srv->timers, c);
        close(fd);
        free(c);
        srv->refused++;
        return;
    }
    srv->open++;
    srv->accepted++;

    /* A fresh socket's send buffer always has room for one short line; a
     * failure means the peer is already gone. MSG_NOSIGNAL: no SIGPIPE. */
    if (send(fd, srv->greeting, srv->greeting_len, MSG_NOSIGNAL) != (ssize_t)srv->greeting_len)
        conn_close(srv, c, CLOSE_PEER);
}

/* Running out of descriptors would leave the listener readable for ever and
 * epoll_wait would spin: give back the spare descriptor, accept the
 * connection and close it at once, and take the spare again. */
static void shed_one_connection(struct server *srv)
{
    int fd;
    close(srv->spare_fd);
    fd = accept(srv->listen_fd, NULL, NULL);
    if (fd >= 0)
        close(fd);
    srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    srv->refused++;
    fprintf(stderr, "%s: out of file descriptors: refused a connection\n", prog);
}

static void accept_all(struct server *srv)
{
    for (;;) {
        struct sockaddr_in peer;
        socklen_t len = sizeof peer;
        int fd = accept4(srv->listen_fd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if ((errno == EMFILE || errno == ENFILE) && srv->spare_fd >= 0) {
                shed_one_connection(srv);
                continue;
            }
            die("accept: %s", strerror(errno));
        }
        if (srv->open >= srv->max_conns) {
            close(fd);
            srv->refused++;
            continue;
        }
        conn_open(srv, fd, &peer);
    }
}

/* Any bytes are a heartbeat: read them all, then push the timer back once. */
static void conn_readable(struct server *srv, struct conn *c)
{
    char buf[1024];
    bool heard = false;
    int err;

    for (;;) {
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n > 0) {
            heard = true;
        } else if (n == 0) {
            conn_close(srv, c, CLOSE_PEER);             /* orderly shutdown */
            return;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            break;
        } else if (errno != EINTR) {
            conn_close(srv, c, CLOSE_PEER);             /* reset by the peer */
            return;
        }
    }
    if (!heard)
        return;
    /* The clock is read after the data: a message that arrived while this
     * loop was busy with other connections is not counted as heard earlier.
     * A timer that already expires at least `timeout` of silence from now,
     * and no more than the slack after that, stays where it is: most
     * heartbeats change nothing in the container (libev's advice for
     * timeouts, "be smart about timeouts", in one call). */
    c->heard_ns = mono_ns();
    err = conn_timers_reschedule_range(&srv->timers, expiry_after(srv, c->heard_ns),
                                       expiry_after(srv, c->heard_ns) + srv->slack_ms, c);
    if (err != 0) {
        fprintf(stderr, "%s: cannot reschedule %s (%s): closing it\n", prog, c->peer, strerror(-err));
        conn_close(srv, c, CLOSE_PEER);
    }
}

/* The soft limit on open files is often 1024: raise it to the hard limit
 * when that is not enough for max_conns connections and our own few. */
static void raise_fd_limit(rlim_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        die("getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
            die("%lu connections need %lu file descriptors, but the hard limit is %lu: "
                "raise it (ulimit -Hn) or lower -c",
                (unsigned long)(need - 16), (unsigned long)need, (unsigned long)rl.rlim_max);
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
            die("setrlimit(RLIMIT_NOFILE, %lu): %s", (unsigned long)rl.rlim_cur, strerror(errno));
    }
}

static void watch(struct server *srv, int fd, void *tag)
{
    struct epoll_event ev;
    ev.events = EPOLLIN;
    ev.data.ptr = tag;
    if (epoll_ctl(srv->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0)
        die("epoll_ctl(ADD): %s", strerror(errno));
}

static void server_open(struct server *srv, const char *addr, int port)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    sigset_t stop_signals;
    int one = 1;

    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
        usage("-a needs an IPv4 address such as 127.0.0.1");

    srv->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (srv->listen_fd < 0)
        die("socket: %s", strerror(errno));
    if (setsockopt(srv->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
        die("setsockopt(SO_REUSEADDR): %s", strerror(errno));
    if (bind(srv->listen_fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        die("cannot listen on %s:%d: %s", addr, port, strerror(errno));
    if (listen(srv->listen_fd, SOMAXCONN) < 0)
        die("listen: %s", strerror(errno));
    if (getsockname(srv->listen_fd, (struct sockaddr *)&sa, &len) < 0)
        die("getsockname: %s", strerror(errno));

    /* Signals arrive as epoll events: no handler, no race with epoll_wait. */
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &stop_signals, NULL) < 0)
        die("sigprocmask: %s", strerror(errno));
    srv->signal_fd = signalfd(-1, &stop_signals, SFD_NONBLOCK | SFD_CLOEXEC);
    if (srv->signal_fd < 0)
        die("signalfd: %s", strerror(errno));

    srv->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (srv->epoll_fd < 0)
        die("epoll_create1: %s", strerror(errno));
    watch(srv, srv->listen_fd, &srv->listen_fd);
    watch(srv, srv->signal_fd, &srv->signal_fd);
    srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

    printf("listening %s:%u container=%s period_ms=%d timeout_ms=%d\n", addr,
           (unsigned)ntohs(sa.sin_port), CONN_TIMERS_KIND, srv->period_ms, srv->timeout_ms);
}

/* epoll_wait returned no event, so its timeout woke us, yet no timer was
 * due: wait_ms() is built to make this never happen. Count and log it. */
static void idle_wakeup(struct server *srv, int64_t now_ns)
{
    int64_t next = conn_timers_next_expiry(&srv->timers);
    srv->idle_wakeups++;
    printf("idle-wakeup at_us=%lld early_us=%lld\n", (long long)(now_ns / 1000),
           conn_timers_empty(&srv->timers) || next > INT64_MAX / 1000 ? -1LL
           : (long long)(next * 1000 - now_ns / 1000));
}

/* What epoll_wait reported: new connections, the stop signals, and data,
 * EOF or a reset on a connection (read tells which). */
static void handle_events(struct server *srv, const struct epoll_event *events, int n, bool *stop)
{
    int i;
    for (i = 0; i < n; i++) {
        void *tag = events[i].data.ptr;
        if (tag == &srv->listen_fd)
            accept_all(srv);
        else if (tag == &srv->signal_fd)
            *stop = true;
        else
            conn_readable(srv, (struct conn *)tag);
    }
}

static void server_run(struct server *srv)
{
    struct epoll_event events[256];
    struct tlist due = {0};     /* zeroed: an empty list */
    struct tlist *link;
    bool stop = false;
    size_t popped;
    int64_t now_ns;
    int n, batch;

    while (!stop) {
        int wait;
        now_ns = mono_ns();
        wait = wait_ms(&srv->timers, now_ns);
        srv->asked_at_ms = now_ns / 1000000;
        srv->asked_ms = wait < 0 ? -1 : srv->asked_at_ms + wait;
        n = epoll_wait(srv->epoll_fd, events, 256, wait);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die("epoll_wait: %s", strerror(errno));
        }
        /* The instant the timers are judged by; then everything that is
         * ready is read, so that a heartbeat that arrived before it, even
         * one epoll_wait did not report (it came after, or the batch was
         * full: after a stall every connection has something), is heard,
         * not taken for silence. One more epoll_wait, with no timeout,
         * each round. */
        now_ns = mono_ns();
        srv->judged_ns = now_ns;
        handle_events(srv, events, n, &stop);
        do {
            batch = epoll_wait(srv->epoll_fd, events, 256, 0);
            if (batch > 0)
                handle_events(srv, events, batch, &stop);
            n += batch > 0 ? batch : 0;
        } while (batch == 256);
        /* Everything silent for the timeout is due now. conn_close() may run
         * while other expired connections are still in `due`: safe, as
         * tlist_drain has already taken the one being closed off the list. */
        popped = conn_timers_pop(&srv->timers, now_ns / 1000000, &due);
        tlist_drain(link, &due)
            conn_close(srv, conn_timers_entry(link), CLOSE_IDLE);
        if (n == 0 && popped > 0)
            srv->timer_wakeups++;
        else if (n == 0)
            idle_wakeup(srv, now_ns);
    }

    /* Every open connection has a pending timer, and pop(TIMER_NEVER) hands
     * out every pending timer: that is the list of connections to close. */
    conn_timers_pop(&srv->timers, TIMER_NEVER, &due);
    n = 0;
    tlist_drain(link, &due) {
        conn_close(srv, conn_timers_entry(link), CLOSE_EXIT);
        n++;
    }
    conn_timers_destroy(&srv->timers);
    printf("exit accepted=%zu idle_closed=%zu peer_closed=%zu open_at_exit=%d refused=%zu timer_wakeups=%zu "
           "idle_wakeups=%zu\n", srv->accepted, srv->idle_closed, srv->peer_closed, n, srv->refused,
           srv->timer_wakeups, srv->idle_wakeups);
    if (srv->open != 0)
        die("%zu connections were open without a pending timer", srv->open);
}

int main(int argc, char **argv)
{
    static struct server srv;   /* the wheel is 11 KiB: keep it off the stack */
    const char *addr = "127.0.0.1";
    int port = -1, opt;

    srv.period_ms = 5000;
    srv.timeout_ms = 10000;
    srv.max_conns = 1000;
    while ((opt = getopt(argc, argv, "a:p:P:t:c:h")) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'p': port = (int)parse_number(optarg, 0, 65535, "-p PORT"); break;
        case 'P': srv.period_ms = (int)parse_number(optarg, 1, 86400000, "-P PERIOD_MS"); break;
        case 't': srv.timeout_ms = (int)parse_number(optarg, 1, 86400000, "-t TIMEOUT_MS"); break;
        case 'c': srv.max_conns = (size_t)parse_number(optarg, 1, 1000000, "-c MAX_CONNS"); break;
        case 'h': usage(NULL); break;
        default: usage("unknown option"); break;
        }
    }
    if (optind != argc)
        usage("unexpected argument");
    if (port < 0)
        usage("-p PORT is required");
    if (srv.timeout_ms <= srv.period_ms)
        usage("-t TIMEOUT_MS must be longer than -P PERIOD_MS, or healthy clients get closed");
    srv.slack_ms = 2 * srv.period_ms < srv.timeout_ms ? 2 * srv.period_ms : srv.timeout_ms;

    /* stdout may be a pipe to a log reader: one write per line, not per 4 KiB. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    raise_fd_limit((rlim_t)srv.max_conns + 16);
    srv.greeting_len = (size_t)snprintf(srv.greeting, sizeof srv.greeting,
                                        "heartbeat period_ms=%d timeout_ms=%d\n", srv.period_ms, srv.timeout_ms);
    conn_timers_init(&srv.timers, mono_ns() / 1000000);
    server_open(&srv, addr, port);
    server_run(&srv);
    return 0;
}
