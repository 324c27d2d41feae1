/* heartbeat_test.c - drive heartbeat_server with real connections and check
 * that exactly the connections that fall silent are closed, none early,
 * each in time.
 *
 *   heartbeat_test [-n CONNS] [-s EVERY] [-P PERIOD_MS] [-t TIMEOUT_MS] NAME SERVER
 *
 * Starts SERVER (a heartbeat_server binary) on a free port of 127.0.0.1 and
 * opens CONNS connections to it from this one process. Each sends "ping\n"
 * as soon as it is open and then every PERIOD ms, until its role says stop:
 *
 * phase 1, heartbeats flowing: every EVERY-th connection (SILENT) falls
 *   silent after 1 to 4 heartbeats, while all the others keep heartbeating.
 *   The phase ends when the server has closed every SILENT one.
 * phase 2, no traffic at all: of the others, half (QUIET) simply stop and
 *   half (HANG_UP) close their end. After that nothing reaches the server:
 *   only its timers can wake it, so a server that slept past its earliest
 *   timer fails here (in phase 1 the others' traffic would wake it anyway).
 *   The phase ends when the server has closed every QUIET one.
 * at exit: AT_EXIT_CONNS more connections are opened, and the server is
 *   stopped with SIGTERM while they are open.
 *
 * Checked:
 * - every SILENT and QUIET connection was closed (the server logged it and
 *   we saw the EOF), never early: the close came at least TIMEOUT ms after
 *   our last send began, and at least TIMEOUT ms after the server last
 *   heard us (both exact, no tolerance). The server logs the instant of each
 *   close on CLOCK_MONOTONIC, which both processes read, so this does not
 *   depend on how quickly this busy client notices an EOF;
 * - each was closed in time, judged against a control measured in the same
 *   run, never a fixed bound: the server logs when the epoll_wait before
 *   each close was asked to end. That wait must have been asked to end by
 *   the connection's expiry (within the 1 ms its rounding allows), or at
 *   once if the expiry had passed: then the timers were on time, and all of
 *   the close's lateness after that deadline is the machine's (epoll_wait
 *   ending late, or the server stopped or starved), which no timer can help.
 *   A container that answered next_expiry late, or lost a timer, fails
 *   this exactly; a loaded machine cannot;
 * - no other connection was closed by the server, unless one end stalled:
 *   this client (silent on it for TIMEOUT ms) or the server (running a
 *   heartbeat period or more behind its loop's deadline, reading nothing
 *   meanwhile). Then the close is right if the server had heard nothing
 *   for TIMEOUT ms (a heartbeat may have waited unread in its socket), on
 *   its loop's time;
 * - every connection got the server's greeting, announcing PERIOD and TIMEOUT;
 * - the server exits 0 on SIGTERM and its counts are exactly right;
 * - the server never woke up for nothing: it sleeps until the exact earliest
 *   expiry, so each time its epoll_wait times out (no event), a timer is due.
 *   It counts the wake-ups that found none (idle_wakeups, and an idle-wakeup
 *   line each, placed in a phase by its time), and the test requires none,
 *   in phase 2 above all, where only timers wake it; it also requires some
 *   wake-ups by timers (timer_wakeups), so that the count is not vacuous.
 * So no verdict depends on how busy the machine is: make test-starved runs
 * this beside busy loops while stopping processes for 1.5 s at a time. The
 * waits for what the server must do (start, close, exit) give up only after
 * a backstop far beyond any timer here (20 s), to report a hang.
 *
 * Prints detail lines, then "PASS NAME" or "FAIL NAME: reason"; exits 0 or 1.
 * The server is killed on every way out (atexit, SIGINT/SIGTERM/SIGHUP, and
 * PR_SET_PDEATHSIG should this process be killed outright).
 */
#define _GNU_SOURCE             /* prctl, pipe2, strsignal, epoll */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000              /* ns per ms */
#define LOG_TAG UINT64_MAX      /* epoll tag of the server's stdout; clients use their index */
#define CONNECT_BATCH 50        /* connections opened per loop round, between heartbeats */
#define SEND_SLACK (2 * MS)     /* see send_due() */
#define AT_EXIT_CONNS 10
#define BACKSTOP_MS 20000       /* a wait for the server gives up (a hang) after this */

enum role {
    ROLE_SILENT,                /* falls silent in phase 1, amid the others' heartbeats */
    ROLE_QUIET,                 /* falls silent when phase 2 begins */
    ROLE_HANG_UP,               /* closes its end when phase 2 begins */
    ROLE_AT_EXIT                /* opened after phase 2, open when the server stops */
};

struct client {
    int fd;                     /* -1 once closed */
    unsigned port;              /* local port: how the server's log names this connection */
    enum role role;
    int stop_after;             /* ROLE_SILENT: heartbeats before falling silent */
    int sent;
    int64_t last_send_ns;       /* taken just before send(): the server cannot hear it earlier */
    int64_t sends_ns[4];        /* the last 4 sends' times: a send may follow a close we have not seen yet */
    int64_t opened_ns;          /* before connect(): the server counts silence from its accept */
    int64_t next_send_ns;
    int64_t max_gap_ns;         /* longest gap between two of our sends, each end taken so as to be the longest */
    int64_t closed_ns;          /* when we saw EOF or a reset, or hung up; 0 while open */
    int64_t server_silent_us;   /* from the server's idle-close line: since it last heard us */
    int64_t server_closed_ns;   /* from the same line: when it closed us; 0 if it did not */
    int64_t server_expire_us;   /* from the same line: the expiry of its timer */
    int64_t server_asked_us;    /* and its wait's deadline before the close (-1: none) */
    int64_t server_asked_at_us; /* and when it asked */
    char rx[96];                /* what the server sent: the greeting */
    size_t rx_len;
};

struct test {
    const char *name, *server_path;
    int conns, every, period_ms, timeout_ms;
    struct client *c;           /* conns + AT_EXIT_CONNS */
    int opened;
    int count[4];               /* connections per role */
    int phase;
    int64_t phase2_ns;          /* when phase 2 began */
    int64_t phase2_end_ns;      /* when it ended (the exit's connections opened) */
    int64_t connect_ns;         /* how long opening the CONNS connections took */
    int64_t stop_ns;            /* when the server was sent SIGTERM */
    int by_port[65536];         /* local port -> client index + 1 */
    int epoll_fd;
    pid_t server;
    int server_port;
    char container[16];
    char greeting[96];
    int log_fd;                 /* the server's stdout */
    char log[8192];
    size_t log_len;
    bool log_eof;
    bool got_exit;
    long accepted, idle_closed, peer_closed, open_at_exit, refused, timer_wakeups, idle_wakeups;
    int idle_wakeup_lines[3];   /* idle-wakeup lines in phase 1, phase 2, at exit */
    double idle_wakeup_early_ms; /* the earliest of them: how long before the expiry */
    int failures;
    char reason[300];
};

static volatile sig_atomic_t server_pid;    /* for the atexit and signal handlers */

static void kill_server_now(void)
{
    pid_t pid = (pid_t)server_pid;
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        server_pid = 0;
    }
}

static void on_signal(int sig)
{
    pid_t pid = (pid_t)server_pid;
    if (pid > 0)
        kill(pid, SIGKILL);     /* async-signal-safe; the kernel reaps it after our _exit */
    _exit(128 + sig);
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Record a failure: the first becomes the verdict's reason; the first few
 * are also printed as detail lines. */
static void fail(struct test *t, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t->failures == 0)
        snprintf(t->reason, sizeof t->reason, "%s", msg);
    if (t->failures < 10)
        printf("  error: %s\n", msg);
    t->failures++;
}

/* Print the verdict line and exit; the server dies in the atexit handler. */
static void finish(struct test *t)
{
    if (t->failures == 0)
        printf("PASS %s\n", t->name);
    else if (t->failures == 1)
        printf("FAIL %s: %s\n", t->name, t->reason);
    else
        printf("FAIL %s: %s (and %d more errors)\n", t->name, t->reason, t->failures - 1);
    fflush(stdout);
    exit(t->failures == 0 ? 0 : 1);
}

static void usage(const char *why)
{
    fprintf(stderr,
            "heartbeat_test: %s\n"
            "usage: heartbeat_test [-n CONNS] [-s EVERY] [-P PERIOD_MS] [-t TIMEOUT_MS] NAME SERVER\n"
            "  NAME            test name for the PASS/FAIL line\n"
            "  SERVER          path of a heartbeat_server binary\n"
            "  -n CONNS        connections to open (default 1000)\n"
            "  -s EVERY        every EVERY-th connection falls silent (default 10)\n"
            "  -P PERIOD_MS    heartbeat period (default 50)\n"
            "  -t TIMEOUT_MS   the server's idle timeout (default 300)\n",
            why);
    exit(2);
}

static int parse_number(const char *s, long min, long max, const char *what)
{
    char *end, msg[160];
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        snprintf(msg, sizeof msg, "%s must be a number from %ld to %ld, not '%s'", what, min, max, s);
        usage(msg);
    }
    return (int)v;
}

/* 1,010 clients need 1,010 descriptors: more than a soft limit of 1024
 * leaves once stdio, epoll and the log pipe are counted. */
static void raise_fd_limit(struct test *t, rlim_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
        fail(t, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
        finish(t);
    }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
            fail(t, "%d connections need %lu file descriptors, but the hard limit (ulimit -Hn) is %lu",
                 t->conns, (unsigned long)need, (unsigned long)rl.rlim_max);
            finish(t);
        }
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
            fail(t, "setrlimit(RLIMIT_NOFILE, %lu): %s", (unsigned long)rl.rlim_cur, strerror(errno));
            finish(t);
        }
    }
}

static void start_server(struct test *t)
{
    char period[16], timeout[16], max_conns[16];
    char *argv[12];
    int out[2];
    pid_t parent = getpid(), pid;

    snprintf(period, sizeof period, "%d", t->period_ms);
    snprintf(timeout, sizeof timeout, "%d", t->timeout_ms);
    snprintf(max_conns, sizeof max_conns, "%d", t->conns + AT_EXIT_CONNS);
    argv[0] = (char *)t->server_path;
    argv[1] = (char *)"-a";
    argv[2] = (char *)"127.0.0.1";
    argv[3] = (char *)"-p";
    argv[4] = (char *)"0";
    argv[5] = (char *)"-P";
    argv[6] = period;
    argv[7] = (char *)"-t";
    argv[8] = timeout;
    argv[9] = (char *)"-c";
    argv[10] = max_conns;
    argv[11] = NULL;

    if (pipe2(out, O_CLOEXEC) < 0) {
        fail(t, "pipe: %s", strerror(errno));
        finish(t);
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        fail(t, "fork: %s", strerror(errno));
        finish(t);
    }
    if (pid == 0) {
        /* Die with the test, even if it is SIGKILLed and no handler runs. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
            _exit(127);
        if (dup2(out[1], STDOUT_FILENO) < 0)
            _exit(127);
        execv(t->server_path, argv);
        fprintf(stderr, "heartbeat_test: cannot run %s: %s\n", t->server_path, strerror(errno));
        _exit(127);
    }
    server_pid = pid;
    t->server = pid;
    close(out[1]);
    t->log_fd = out[0];
}

/* One line of the server's stdout. */
static void log_line(struct test *t, const char *line)
{
    unsigned port;
    long long silent_us, at_us;
    int period, timeout;

    long long expire_us, asked_us, asked_at_us;

    if (sscanf(line, "idle-close 127.0.0.1:%u silent_us=%lld at_us=%lld expire_us=%lld asked_us=%lld asked_at_us=%lld",
               &port, &silent_us, &at_us, &expire_us, &asked_us, &asked_at_us) == 6) {
        int i = port < 65536 ? t->by_port[port] - 1 : -1;
        if (i < 0) {
            fail(t, "the server closed a connection we do not know: %s", line);
        } else {
            t->c[i].server_silent_us = silent_us;
            t->c[i].server_closed_ns = (int64_t)at_us * 1000;
            t->c[i].server_expire_us = expire_us;
            t->c[i].server_asked_us = asked_us;
            t->c[i].server_asked_at_us = asked_at_us;
        }
    } else if (sscanf(line, "idle-wakeup at_us=%lld early_us=%lld", &at_us, &silent_us) == 2) {
        int64_t at = (int64_t)at_us * 1000;
        int phase = t->phase2_ns == 0 || at < t->phase2_ns ? 0 : t->phase2_end_ns == 0 || at < t->phase2_end_ns ? 1 : 2;
        if (t->idle_wakeup_lines[0] + t->idle_wakeup_lines[1] + t->idle_wakeup_lines[2] < 5)
            printf("  server said: %s\n", line);
        t->idle_wakeup_lines[phase]++;
        if ((double)silent_us / 1000 > t->idle_wakeup_early_ms)
            t->idle_wakeup_early_ms = (double)silent_us / 1000;
    } else if (sscanf(line, "exit accepted=%ld idle_closed=%ld peer_closed=%ld open_at_exit=%ld refused=%ld "
                      "timer_wakeups=%ld idle_wakeups=%ld", &t->accepted, &t->idle_closed, &t->peer_closed,
                      &t->open_at_exit, &t->refused, &t->timer_wakeups, &t->idle_wakeups) == 7) {
        t->got_exit = true;
    } else if (sscanf(line, "listening 127.0.0.1:%u container=%15s period_ms=%d timeout_ms=%d", &port,
                      t->container, &period, &timeout) == 4) {
        t->server_port = (int)port;
        if (period != t->period_ms || timeout != t->timeout_ms)
            fail(t, "the server reports period %d ms and timeout %d ms, not what it was given", period, timeout);
    } else {
        printf("  server said: %s\n", line);
    }
}

/* Read what the server has written (waiting up to wait_ms) and handle each
 * complete line. False when there was nothing to read. */
static bool log_read(struct test *t, int wait_ms)
{
    struct pollfd p;
    char *nl, *line;
    ssize_t n;

    if (t->log_eof)
        return false;
    p.fd = t->log_fd;
    p.events = POLLIN;
    if (poll(&p, 1, wait_ms) <= 0)
        return false;
    n = read(t->log_fd, t->log + t->log_len, sizeof t->log - 1 - t->log_len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return false;
    if (n <= 0) {
        t->log_eof = true;
        return false;
    }
    t->log_len += (size_t)n;
    t->log[t->log_len] = '\0';
    line = t->log;
    while ((nl = strchr(line, '\n')) != NULL) {
        *nl = '\0';
        log_line(t, line);
        line = nl + 1;
    }
    t->log_len -= (size_t)(line - t->log);
    memmove(t->log, line, t->log_len);
    if (t->log_len == sizeof t->log - 1) {
        fail(t, "the server wrote a line longer than %zu bytes", sizeof t->log);
        t->log_len = 0;
    }
    return true;
}

static void wait_listening(struct test *t)
{
    int64_t deadline = mono_ns() + BACKSTOP_MS * (int64_t)MS;
    while (t->server_port == 0 && !t->log_eof && mono_ns() < deadline)
        log_read(t, 100);
    if (t->server_port == 0) {
        fail(t, "the server did not print its 'listening' line within %d s", BACKSTOP_MS / 1000);
        finish(t);
    }
}

static void connect_one(struct test *t, int i)
{
    struct client *cl = &t->c[i];
    struct sockaddr_in server, local;
    socklen_t len = sizeof local;
    struct epoll_event ev;
    int one = 1;

    memset(&server, 0, sizeof server);
    server.sin_family = AF_INET;
    server.sin_port = htons((uint16_t)t->server_port);
    server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cl->opened_ns = mono_ns();
    cl->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (cl->fd < 0) {
        fail(t, "socket for connection #%d: %s", i, strerror(errno));
        finish(t);
    }
    /* Blocking connect: on loopback the handshake completes inside the call. */
    if (connect(cl->fd, (const struct sockaddr *)&server, sizeof server) < 0 ||
        getsockname(cl->fd, (struct sockaddr *)&local, &len) < 0) {
        fail(t, "connection #%d to 127.0.0.1:%d: %s", i, t->server_port, strerror(errno));
        finish(t);
    }
    /* Each ping must leave at once, not wait for the previous one's ACK:
     * heartbeats are timing, and Nagle would hold them back. */
    setsockopt(cl->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(cl->fd, F_SETFL, fcntl(cl->fd, F_GETFL) | O_NONBLOCK);
    cl->port = ntohs(local.sin_port);
    t->by_port[cl->port] = i + 1;
    cl->next_send_ns = mono_ns();           /* the first heartbeat goes right away */
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = (uint64_t)i;
    if (epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, cl->fd, &ev) < 0) {
        fail(t, "epoll_ctl: %s", strerror(errno));
        finish(t);
    }
}

static void client_closed(struct client *cl, int64_t when)
{
    cl->closed_ns = when;
    close(cl->fd);
    cl->fd = -1;
}

/* Whether a connection still sends heartbeats, by its role and the phase. */
static bool heartbeating(const struct test *t, const struct client *cl)
{
    if (cl->fd < 0)
        return false;
    switch (cl->role) {
    case ROLE_SILENT: return cl->sent < cl->stop_after;
    case ROLE_QUIET:
    case ROLE_HANG_UP: return t->phase == 1;
    default: return false;
    }
}

/* Send every heartbeat due within SEND_SLACK; return the time of the next.
 * The slack lets one wake-up serve many connections (all 1,000 live in this
 * one thread); sending a little early only makes a heartbeat more frequent. */
static int64_t send_due(struct test *t)
{
    int64_t next = INT64_MAX, period = (int64_t)t->period_ms * MS;
    int i;

    for (i = 0; i < t->opened; i++) {
        struct client *cl = &t->c[i];
        int64_t now, after;
        if (!heartbeating(t, cl))
            continue;
        now = mono_ns();
        if (cl->next_send_ns <= now + SEND_SLACK) {
            /* The gap: from the time taken before the previous send (or
             * before connect) to the time after this one, the longest the
             * server can have waited for this data: a client stopped
             * between taking `now` and send() sends late. */
            int64_t prev = cl->sent > 0 ? cl->last_send_ns : cl->opened_ns;
            cl->last_send_ns = now;
            cl->sends_ns[cl->sent % 4] = now;
            cl->sent++;
            if (send(cl->fd, "ping\n", 5, MSG_NOSIGNAL) != 5) {
                if (errno != EPIPE && errno != ECONNRESET)
                    fail(t, "send on connection #%d: %s", i, strerror(errno));
                client_closed(cl, now);
                continue;
            }
            if ((after = mono_ns()) - prev > cl->max_gap_ns)
                cl->max_gap_ns = after - prev;
            /* Keep to the schedule; after a stall, resume rather than burst. */
            cl->next_send_ns += period;
            if (cl->next_send_ns <= now)
                cl->next_send_ns = now + period;
        }
        if (heartbeating(t, cl) && cl->next_send_ns < next)
            next = cl->next_send_ns;
    }
    return next;
}

/* The greeting, then nothing until EOF (or a reset). */
static void client_readable(struct test *t, int i)
{
    struct client *cl = &t->c[i];
    char buf[256];

    if (cl->fd < 0)
        return;
    for (;;) {
        ssize_t n = read(cl->fd, buf, sizeof buf);
        if (n > 0) {
            size_t room = sizeof cl->rx - 1 - cl->rx_len, k = (size_t)n < room ? (size_t)n : room;
            memcpy(cl->rx + cl->rx_len, buf, k);
            cl->rx_len += k;
            cl->rx[cl->rx_len] = '\0';
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        client_closed(cl, mono_ns());       /* EOF, or a reset */
        return;
    }
}

/* Wait for the server, whose output has ended; false (a failure recorded)
 * unless it exited with status 0. */
static bool reap_server(struct test *t, const char *when)
{
    int status;
    if (waitpid(t->server, &status, 0) != t->server) {
        fail(t, "waitpid: %s", strerror(errno));
        return false;
    }
    server_pid = 0;
    if (WIFSIGNALED(status))
        fail(t, "the server was killed by signal %d (%s) %s", WTERMSIG(status), strsignal(WTERMSIG(status)), when);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail(t, "the server exited with status %d %s", WEXITSTATUS(status), when);
    else
        return true;
    return false;
}

/* Wait up to wait_ms for events, and handle them. */
static void handle_events(struct test *t, int wait_ms)
{
    struct epoll_event events[256];
    int i, n = epoll_wait(t->epoll_fd, events, 256, wait_ms);

    if (n < 0 && errno != EINTR) {
        fail(t, "epoll_wait: %s", strerror(errno));
        finish(t);
    }
    for (i = 0; i < n; i++) {
        if (events[i].data.u64 == LOG_TAG)
            log_read(t, 0);
        else
            client_readable(t, (int)events[i].data.u64);
    }
}

/* Whether every connection with the role `expiring` has sent its last
 * heartbeat and been closed by the server (its idle-close line read). */
static bool all_expired(const struct test *t, enum role expiring)
{
    int i;
    if (t->opened < t->conns)
        return false;
    for (i = 0; i < t->conns; i++)
        if (t->c[i].role == expiring && (heartbeating(t, &t->c[i]) || t->c[i].server_closed_ns == 0))
            return false;
    return true;
}

/* Run one phase (see the top of the file): heartbeat until the server has
 * closed every connection with the role `expiring` (each once it has sent
 * its last heartbeat), or BACKSTOP_MS have passed. False if the server
 * died. */
static bool run_phase(struct test *t, int phase, enum role expiring)
{
    int64_t start = mono_ns();
    int64_t give_up = start + BACKSTOP_MS * (int64_t)MS;
    int i;

    t->phase = phase;
    if (phase == 2) {
        t->phase2_ns = start;
        for (i = 0; i < t->conns; i++)
            if (t->c[i].role == ROLE_HANG_UP && t->c[i].fd >= 0)
                client_closed(&t->c[i], start);
    }
    for (;;) {
        int64_t next, now;
        int wait;

        /* Open connections in batches, so that the first ones heartbeat on
         * time while the rest are still being opened. */
        for (i = 0; i < CONNECT_BATCH && t->opened < t->conns; i++)
            connect_one(t, t->opened++);
        if (t->opened == t->conns && t->connect_ns == 0)
            t->connect_ns = mono_ns() - start;
        next = send_due(t);
        if (all_expired(t, expiring))
            break;
        now = mono_ns();
        if (t->log_eof) {
            if (reap_server(t, "during the run"))
                fail(t, "the server exited during the run");
            return false;
        }
        if (now >= give_up)
            break;              /* check_idle_close names what was not closed */
        if (t->opened < t->conns) {
            wait = 0;
        } else {
            if (now + 100 * MS < next)
                next = now + 100 * MS;  /* the server's log wakes us too */
            wait = next <= now ? 0 : (int)((next - now + MS - 1) / MS);
        }
        handle_events(t, wait);
    }

    /* The server prints each close before it closes, so every idle-close
     * line is in the pipe already. The verdicts come from those lines; here
     * we only wait (not timed) for the EOF of each such close, the proof
     * that the connection really was closed. */
    while (log_read(t, 0))
        continue;
    give_up = mono_ns() + BACKSTOP_MS * (int64_t)MS;
    for (i = 0; i < t->conns && mono_ns() < give_up; i++)
        while (t->c[i].server_closed_ns != 0 && t->c[i].fd >= 0 && mono_ns() < give_up)
            handle_events(t, 10);
    return true;
}

/* Open AT_EXIT_CONNS more connections and wait for their greetings, so
 * that the server has them open when it is told to stop. */
static void open_at_exit(struct test *t)
{
    int64_t give_up = mono_ns() + BACKSTOP_MS * (int64_t)MS;
    size_t want = strlen(t->greeting);
    int i;

    while (t->opened < t->conns + AT_EXIT_CONNS)
        connect_one(t, t->opened++);
    for (i = t->conns; i < t->opened && mono_ns() < give_up; i++)
        while (t->c[i].rx_len < want && t->c[i].fd >= 0 && mono_ns() < give_up)
            handle_events(t, 10);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One row of the lateness table: min / median / p99 / max of n values. */
static void print_spread(const char *what, double *v, int n)
{
    if (n == 0) {
        printf("    %-40s none\n", what);
        return;
    }
    qsort(v, (size_t)n, sizeof *v, compare_double);
    printf("    %-40s %6.1f %6.1f %6.1f %6.1f\n", what, v[0], v[n / 2], v[(int)(0.99 * (n - 1) + 0.5)], v[n - 1]);
}

/* How late each idle close came, per phase: from our last send to the
 * server's close, from the server's last read (its timer alone), and to
 * our EOF (what a client sees); and of the second, what came after the
 * deadline the server's loop asked for (the machine's part). */
struct lateness {
    double *close, *timer, *eof, *loop;
    int n;
};

/* Our last send on a connection at or before `when` (0: none): a send may
 * follow a close we had not seen yet. */
static int64_t last_send_before(const struct client *cl, int64_t when)
{
    int64_t best = 0;
    int k;
    for (k = 0; k < 4 && k < cl->sent; k++)
        if (cl->sends_ns[k] <= when && cl->sends_ns[k] > best)
            best = cl->sends_ns[k];
    return best;
}

/* A connection the server closed for silence: never early, exactly, from
 * our last send before the close (or our connect, if we sent nothing) and
 * from the server's last read; and in time, judged against the loop's own
 * deadline: its timer's expiry must be TIMEOUT after the last read, within
 * the server's slack (reschedule_range: 2 periods, at most the timeout;
 * + 1 ms for the ms the read is rounded to, and 1 for knowing the read's
 * time to the us), and the epoll_wait before the close must have been
 * asked to end by that expiry, or at once if it had passed. Whatever came
 * later is the machine's, not the timers'. */
static void check_close(struct test *t, int i, struct lateness *late, bool from_our_send)
{
    struct client *cl = &t->c[i];
    int64_t timeout = (int64_t)t->timeout_ms * MS, last = last_send_before(cl, cl->server_closed_ns);
    int64_t silence, heard_us = cl->server_closed_ns / 1000 - cl->server_silent_us;
    int64_t expiry_ms = cl->server_expire_us / 1000, asked_ms = cl->server_asked_us / 1000;
    int64_t due_ms = expiry_ms > cl->server_asked_at_us / 1000 ? expiry_ms : cl->server_asked_at_us / 1000;
    int64_t slack_ms = 2 * t->period_ms < t->timeout_ms ? 2 * t->period_ms : t->timeout_ms;
    int64_t from_read_ms = expiry_ms - heard_us / 1000 - t->timeout_ms;

    if (last < cl->opened_ns)
        last = cl->opened_ns;   /* the server counts from its accept, after our connect began */
    silence = cl->server_closed_ns - last;
    if (late != NULL) {
        late->close[late->n] = (double)(silence - timeout) / MS;
        late->timer[late->n] = (double)cl->server_silent_us / 1000 - t->timeout_ms;
        late->eof[late->n] = cl->closed_ns == 0 ? 0 : (double)(cl->closed_ns - last - timeout) / MS;
        late->loop[late->n] = cl->server_asked_us < 0 ? 0 : (double)(cl->server_closed_ns / 1000 - cl->server_asked_us) / 1000;
        late->n++;
    }
    if ((from_our_send && silence < timeout) || cl->server_silent_us < (int64_t)t->timeout_ms * 1000)
        fail(t, "connection #%d (port %u) was closed early: %.3f ms after our last send, %.3f ms after the "
             "server last heard it (our longest gap between heartbeats: %.1f ms)", i, cl->port,
             (double)silence / MS, (double)cl->server_silent_us / 1000, (double)cl->max_gap_ns / MS);
    else if (from_read_ms < 0 || from_read_ms > slack_ms + 2)
        fail(t, "connection #%d (port %u): its timer expired %lld ms after the server's last read: not the %d ms "
             "timeout within the slack of %lld ms", i, cl->port, (long long)(from_read_ms + t->timeout_ms), t->timeout_ms,
             (long long)slack_ms);
    else if (cl->server_asked_us < 0 || asked_ms > due_ms)
        fail(t, "connection #%d (port %u) was closed %.1f ms after the server last heard it, and the server's loop "
             "had asked to wake %s: its timers were late", i, cl->port, (double)cl->server_silent_us / 1000,
             cl->server_asked_us < 0 ? "only for an event (no timeout)" : "only after the timer's expiry");
}

/* A SILENT or QUIET connection: it must have been closed, and by check_close's rules. */
static void check_idle_close(struct test *t, int i, struct lateness *late)
{
    struct client *cl = &t->c[i];
    if (cl->server_closed_ns == 0) {
        fail(t, "connection #%d (port %u) was not closed within %d s of its last heartbeat%s", i, cl->port,
             BACKSTOP_MS / 1000, cl->role == ROLE_QUIET ? ", with no traffic to wake the server" : "");
        return;
    }
    /* If this client stalled on it (a gap of the timeout), a heartbeat may
     * have reached the server after the time it stamped: the server's
     * silence is the measure then, as for the closes below. */
    check_close(t, i, late, cl->max_gap_ns < (int64_t)t->timeout_ms * MS);
    if (cl->closed_ns == 0)
        fail(t, "the server logged closing connection #%d (port %u), but we saw no EOF", i, cl->port);
}

static void check_connections(struct test *t)
{
    struct lateness late[2];
    int i, k, closed[4] = {0, 0, 0, 0}, stalled = 0, no_greeting = 0;
    double longest_gap = 0;

    for (k = 0; k < 2; k++) {
        late[k].close = calloc((size_t)t->conns, sizeof(double));
        late[k].timer = calloc((size_t)t->conns, sizeof(double));
        late[k].eof = calloc((size_t)t->conns, sizeof(double));
        late[k].loop = calloc((size_t)t->conns, sizeof(double));
        late[k].n = 0;
        if (late[k].close == NULL || late[k].timer == NULL || late[k].eof == NULL || late[k].loop == NULL) {
            fail(t, "out of memory");
            finish(t);
        }
    }
    for (i = 0; i < t->opened; i++) {
        struct client *cl = &t->c[i];
        bool meant = cl->role == ROLE_SILENT || cl->role == ROLE_QUIET;

        if (strcmp(cl->rx, t->greeting) != 0 && no_greeting++ == 0)
            fail(t, "connection #%d got \"%.40s\" from the server instead of the greeting \"%.40s\"", i,
                 cl->rx, t->greeting);
        if ((double)cl->max_gap_ns / MS > longest_gap)
            longest_gap = (double)cl->max_gap_ns / MS;
        closed[cl->role] += cl->server_closed_ns != 0;
        /* Closed while this client still heartbeated on it: right if one
         * end stalled, this client (a gap of the timeout between two of
         * its sends) or the server (its close a heartbeat period or more
         * after the deadline its loop had asked for: it did not run, and
         * read nothing, meanwhile). The server's silence, not ours, is
         * then the measure: a heartbeat may have waited unread in its
         * socket. With neither, a heartbeating connection was closed. */
        if (cl->server_closed_ns != 0 && cl->role != ROLE_AT_EXIT &&
            (!meant || (cl->role == ROLE_QUIET && cl->server_closed_ns < t->phase2_ns) ||
             (cl->role == ROLE_SILENT && cl->last_send_ns > cl->server_closed_ns))) {
            stalled++;
            check_close(t, i, NULL, false);
            if (cl->max_gap_ns < (int64_t)t->timeout_ms * MS &&
                (cl->server_asked_us < 0 ||
                 cl->server_closed_ns / 1000 - cl->server_asked_us < (int64_t)t->period_ms * 1000))
                fail(t, "heartbeating connection #%d (port %u) was closed %.1f ms after the server last heard it, "
                     "with no stall to explain it (our longest gap between heartbeats: %.1f ms; the server ran "
                     "%.1f ms behind its loop's deadline)", i, cl->port, (double)cl->server_silent_us / 1000,
                     (double)cl->max_gap_ns / MS,
                     (double)(cl->server_closed_ns / 1000 - cl->server_asked_us) / 1000);
            continue;
        }
        if (cl->role == ROLE_AT_EXIT && cl->server_closed_ns != 0) {
            check_close(t, i, NULL, true);  /* never heartbeats: closed once this client took the timeout */
            continue;
        }
        switch (cl->role) {
        case ROLE_SILENT: check_idle_close(t, i, &late[0]); break;
        case ROLE_QUIET: check_idle_close(t, i, &late[1]); break;
        case ROLE_HANG_UP:
            if (cl->closed_ns < t->phase2_ns)
                fail(t, "heartbeating connection #%d (port %u) was closed without an idle-close line", i, cl->port);
            break;
        case ROLE_AT_EXIT:
            if (cl->closed_ns != 0 && cl->closed_ns < t->stop_ns)
                fail(t, "connection #%d (port %u), opened for the exit, was closed before it", i, cl->port);
            break;
        }
    }
    printf("  phase 1, heartbeats flowing: %d of %d silent connections closed (opening all %d took %.0f ms; "
           "our longest gap between heartbeats: %.1f ms)\n", closed[ROLE_SILENT], t->count[ROLE_SILENT], t->conns,
           (double)t->connect_ns / MS, longest_gap);
    printf("  phase 2, no traffic, timers alone wake the server: %d of %d quiet connections closed, "
           "%d of %d hung up\n", closed[ROLE_QUIET], t->count[ROLE_QUIET], closed[ROLE_HANG_UP],
           t->count[ROLE_HANG_UP]);
    if (stalled > 0)
        printf("  %d heartbeating connections were closed after one end stalled (stopped or starved): each "
               "after the timeout of the server's silence, on its loop's time\n", stalled);
    printf("  lateness after the %d ms timeout, ms:             min median    p99    max\n", t->timeout_ms);
    for (k = 0; k < 2; k++) {
        char what[64];
        snprintf(what, sizeof what, "phase %d: last send -> server closes", k + 1);
        print_spread(what, late[k].close, late[k].n);
        snprintf(what, sizeof what, "phase %d: last read -> server closes", k + 1);
        print_spread(what, late[k].timer, late[k].n);
        snprintf(what, sizeof what, "phase %d: of that, after the loop's deadline", k + 1);
        print_spread(what, late[k].loop, late[k].n);
        snprintf(what, sizeof what, "phase %d: last send -> client sees EOF", k + 1);
        print_spread(what, late[k].eof, late[k].n);
        free(late[k].close);
        free(late[k].timer);
        free(late[k].eof);
        free(late[k].loop);
    }
    printf("  required: every silent and quiet connection closed, none >= %d ms (exact) after our last send, "
           "each on a wait the loop asked to end by its expiry (the lateness after that is the machine's)\n",
           t->timeout_ms);
}

/* Its exit line counts the server's wake-ups with no event: by a timer that
 * was due (timer_wakeups), or for nothing (idle_wakeups, each also logged).
 * It sleeps until next_expiry, which is exact, and rounds the timeout up to
 * the expiry's ms, so there must be none for nothing; epoll_wait ends no
 * earlier than its timeout on the clock the server reads, so this holds on a
 * busy machine too (being late only makes more timers due). */
static void check_wakeups(struct test *t)
{
    const int *lines = t->idle_wakeup_lines;
    printf("  wake-ups with no event: %ld by a due timer, %ld that found no timer due (phase 1: %d, phase 2: "
           "%d, exit: %d); required: none found nothing\n", t->timer_wakeups, t->idle_wakeups, lines[0],
           lines[1], lines[2]);
    if (lines[0] + lines[1] + lines[2] != t->idle_wakeups)
        fail(t, "the server counts %ld idle wake-ups but logged %d", t->idle_wakeups, lines[0] + lines[1] + lines[2]);
    if (lines[1] != 0)
        fail(t, "the server woke %d times in phase 2, with only timers to wake it, and found no timer due "
             "(the earliest %.3f ms before the expiry)", lines[1], t->idle_wakeup_early_ms);
    else if (t->idle_wakeups != 0)
        fail(t, "the server woke %ld times with no event and found no timer due (the earliest %.3f ms before "
             "the expiry)", t->idle_wakeups, t->idle_wakeup_early_ms);
    if (t->timer_wakeups == 0)
        fail(t, "no timer ever woke the server: in phase 2 only timers could close the quiet connections");
}

/* Stop the server with SIGTERM while the AT_EXIT connections are open, and
 * check its exit line: every count is known exactly. */
static void stop_server(struct test *t)
{
    int64_t deadline;

    if (server_pid == 0)
        return;                 /* it died during the run: reported already */
    t->stop_ns = mono_ns();
    kill(t->server, SIGTERM);
    deadline = mono_ns() + BACKSTOP_MS * (int64_t)MS;
    while (!t->log_eof && mono_ns() < deadline)
        log_read(t, 100);
    if (!t->log_eof) {
        fail(t, "the server did not exit within %d s of SIGTERM", BACKSTOP_MS / 1000);
        return;                 /* the atexit handler kills it */
    }
    if (!reap_server(t, "after SIGTERM"))
        return;
    if (!t->got_exit) {
        fail(t, "the server exited without its 'exit' line");
        return;
    }
    /* Every count is known: the idle closes are the lines we read (a
     * connection of any role, if this client stalled on it), the peer
     * closes the hung-up connections it had not closed first, and the
     * exit's connections are open unless closed so. */
    {
        long idle = 0, peer = 0, open = 0;
        int i;
        for (i = 0; i < t->opened; i++) {
            idle += t->c[i].server_closed_ns != 0;
            peer += t->c[i].role == ROLE_HANG_UP && t->c[i].server_closed_ns == 0;
            open += t->c[i].role == ROLE_AT_EXIT && t->c[i].server_closed_ns == 0;
        }
        printf("  at exit, %ld connections open; server: accepted=%ld idle_closed=%ld peer_closed=%ld "
               "open_at_exit=%ld refused=%ld\n", open, t->accepted, t->idle_closed, t->peer_closed,
               t->open_at_exit, t->refused);
        if (t->accepted != t->opened || t->idle_closed != idle || t->peer_closed != peer ||
            t->open_at_exit != open || t->refused != 0)
            fail(t, "the server's counts are wrong: expected accepted=%d idle_closed=%ld peer_closed=%ld "
                 "open_at_exit=%ld refused=0", t->opened, idle, peer, open);
    }
    check_wakeups(t);
}

int main(int argc, char **argv)
{
    static struct test test;
    struct test *t = &test;
    struct sigaction sa;
    struct epoll_event ev;
    int opt, i;

    t->conns = 1000;
    t->every = 10;
    t->period_ms = 50;
    t->timeout_ms = 300;
    while ((opt = getopt(argc, argv, "n:s:P:t:")) != -1) {
        switch (opt) {
        case 'n': t->conns = parse_number(optarg, 2, 20000, "-n CONNS"); break;
        case 's': t->every = parse_number(optarg, 2, 1000000, "-s EVERY"); break;
        case 'P': t->period_ms = parse_number(optarg, 1, 60000, "-P PERIOD_MS"); break;
        case 't': t->timeout_ms = parse_number(optarg, 1, 60000, "-t TIMEOUT_MS"); break;
        default: usage("unknown option"); break;
        }
    }
    if (argc - optind != 2)
        usage("need the test NAME and the SERVER binary");
    t->name = argv[optind];
    t->server_path = argv[optind + 1];
    if (t->timeout_ms <= 2 * t->period_ms)
        usage("-t TIMEOUT_MS must be more than twice -P PERIOD_MS, so that heartbeating is never silence");

    /* stdout may be a file or pipe: keep detail lines in order with stderr. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    t->c = calloc((size_t)t->conns + AT_EXIT_CONNS, sizeof *t->c);
    if (t->c == NULL) {
        fail(t, "out of memory");
        finish(t);
    }
    for (i = 0; i < t->conns + AT_EXIT_CONNS; i++) {
        struct client *cl = &t->c[i];
        cl->fd = -1;
        if (i >= t->conns)
            cl->role = ROLE_AT_EXIT;
        else if (i % t->every == t->every / 2)
            cl->role = ROLE_SILENT;
        else
            cl->role = i % 2 == 0 ? ROLE_QUIET : ROLE_HANG_UP;
        cl->stop_after = 1 + (i / t->every) % 4;
        t->count[cl->role]++;
    }
    snprintf(t->greeting, sizeof t->greeting, "heartbeat period_ms=%d timeout_ms=%d\n", t->period_ms,
             t->timeout_ms);
    raise_fd_limit(t, (rlim_t)t->conns + AT_EXIT_CONNS + 64);
    t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (t->epoll_fd < 0) {
        fail(t, "epoll_create1: %s", strerror(errno));
        finish(t);
    }

    atexit(kill_server_now);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    start_server(t);
    wait_listening(t);
    ev.events = EPOLLIN;
    ev.data.u64 = LOG_TAG;
    if (epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, t->log_fd, &ev) < 0) {
        fail(t, "epoll_ctl: %s", strerror(errno));
        finish(t);
    }
    printf("  %d connections to the %s server on 127.0.0.1:%d, heartbeats every %d ms, timeout %d ms\n", t->conns,
           t->container, t->server_port, t->period_ms, t->timeout_ms);

    if (run_phase(t, 1, ROLE_SILENT) && run_phase(t, 2, ROLE_QUIET)) {
        t->phase2_end_ns = mono_ns();
        open_at_exit(t);
    }
    stop_server(t);             /* reads the server's log to its end: every close is known */
    check_connections(t);
    finish(t);
    return 0;
}
