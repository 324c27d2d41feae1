/* target.c - coverage-guided fuzz target: one container kind against the model.
 *
 * Compiled once per kind (-DTK_SET, -DTK_HEAP, -DTK_WHEEL; see ../tk.h):
 *
 *   clang -fsanitize=fuzzer,address,undefined -DTH_ABORT_ON_FAIL -DTK_WHEEL ...
 *       libFuzzer drives LLVMFuzzerTestOneInput; the first failure aborts,
 *       and libFuzzer saves the input (fuzz.sh: build/fuzz/<kind>-crash-<sha1>).
 *   cc -DFZ_STANDALONE -DTK_WHEEL ...
 *       a main() that replays files or whole directories (the seed corpus,
 *       a crash file) with any compiler, -m32, valgrind...; FZ_TRACE=1
 *       prints each operation and the state after it.
 *
 * The operations include v2's next_expiry (alone, and as an event loop's
 * round: t = next_expiry(); pop(t)) and reserve, v2.1's first,
 * reschedule_range and tlist_foreach walks whose bodies re-arm, remove or
 * free the item and take later ones out, and every pop's sequence is
 * compared item by item (one order for every kind).
 *
 * The input is a program. Its first byte sizes the pool of items (1..312),
 * then a time (the container's initial clock); after that each operation is
 * an opcode byte and its operands. Every operation goes through the
 * harness (../harness.h), which calls the container, predicts the result from
 * the reference model and compares; th_verify after each one compares
 * everything observable and runs the container's own check(). The input
 * ends with pop(INT64_MAX), which must empty the container, and th_fini,
 * which checks every item idle and every heap block freed (and LeakSanitizer
 * checks the rest). Bytes past the end of the input read as 0, so every input
 * is a valid program, and mutating one byte changes one operand.
 *
 * A time operand is a selector byte and its own operands (fz_time): small
 * absolute times, the clock plus or minus anything, every 64^k wheel scale
 * and level boundary, 2^k +- d for every k, INT64_MAX - d, raw 64-bit
 * values (negative ones too: -EINVAL for expiries, "nothing due" for pop),
 * another item's expiry (duplicates), min_time(). test/fuzz/seeds.py writes
 * the seed corpus in this encoding and documents it by example.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, stat, opendir under -std=c99 */
#include "../harness.h"

#include <stdint.h>

/* ---- the input ---------------------------------------------------------- */

#include "input.h"

/* a small signed offset, -128..127 */
static int64_t fz_small(void)
{
    return (int64_t)(int8_t)(uint8_t)fz_byte();
}

/* ---- times -------------------------------------------------------------- */

/* a + d without overflow: saturates at INT64_MIN / INT64_MAX. */
static int64_t fz_add(int64_t a, int64_t d)
{
    if (d > 0 && a > INT64_MAX - d)
        return INT64_MAX;
    if (d < 0 && a < INT64_MIN - d)
        return INT64_MIN;
    return a + d;
}

static int64_t fz_pow2(unsigned k) /* k <= 62 */
{
    return (int64_t)(UINT64_C(1) << k);
}

/* The level-k window boundary after t (k = 1..10): where a wheel moves items
 * from one level to the next; INT64_MAX when there is none. */
static int64_t fz_boundary(int64_t t, unsigned k)
{
    uint64_t b;
    if (t < 0)
        t = 0;
    b = (((uint64_t)t >> (6 * k)) + 1) << (6 * k);
    return b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)b;
}

static int64_t fz_time(const struct th *h)
{
    unsigned s = fz_byte(), k;
    size_t j;
    int64_t t;

    switch (s % 16) {
    case 0: /* small absolute */
        return (int64_t)fz_byte();
    case 1: /* a little after the clock */
        return fz_add(h->clock, (int64_t)fz_byte());
    case 2: /* a little before the clock (may be negative) */
        return fz_add(h->clock, -(int64_t)fz_byte());
    case 3: /* a wheel scale ahead of the clock, +- a little */
        k = fz_byte() % 11;
        return fz_add(fz_add(h->clock, (int64_t)(UINT64_C(1) << (6 * k))), fz_small());
    case 4: /* a wheel scale behind the clock, +- a little */
        k = fz_byte() % 11;
        return fz_add(fz_add(h->clock, -(int64_t)(UINT64_C(1) << (6 * k))), fz_small());
    case 5: /* 2^k +- a little */
        k = fz_byte() % 63;
        return fz_add(fz_pow2(k), fz_small());
    case 6: /* the end of time */
        return INT64_MAX - (int64_t)fz_byte();
    case 7: /* anything, negative included */
        return (int64_t)fz_bytes(8);
    case 8: /* anything valid */
        return (int64_t)(fz_bytes(8) >> 1);
    case 9: /* another item's expiry, +- a little (duplicates, same slot) */
        j = fz_byte() % h->n;
        t = h->m[j].state != TH_IDLE ? h->m[j].expire : h->clock;
        return fz_add(t, fz_small());
    case 10: /* what min_time says */
        t = tc_min_time(&h->c);
        return fz_add(t, fz_small() / 64);
    case 11:
        return h->clock;
    case 12: /* invalid as an expiry */
        return -1 - (int64_t)fz_byte();
    case 13: /* the next level boundary after the clock, +- a little */
        k = 1 + fz_byte() % 10;
        return fz_add(fz_boundary(h->clock, k), fz_small());
    case 14: /* the clock plus up to 2^16 */
        return fz_add(h->clock, (int64_t)fz_bytes(2));
    default: /* the clock plus up to 2^32 */
        return fz_add(h->clock, (int64_t)fz_bytes(4));
    }
}

/* ---- operations ----------------------------------------------------------- */

static size_t fz_item(const struct th *h)
{
    return fz_byte() % h->n;
}

static long fz_op; /* operations run in this input (in failure lines as step=) */
static int fz_trace; /* standalone replay with FZ_TRACE=1: print each operation */

/* What a callback does while the result list drains: touch the item just
 * delivered (re-arm it, free it) or any other, due ones included. */
static void fz_callback(struct th *h, size_t self)
{
    unsigned a = fz_byte();
    size_t j = fz_item(h);

    switch (a % 6) {
    case 0:
        th_reschedule(h, self, fz_time(h));
        break;
    case 1:
        th_insert(h, j, fz_time(h));
        break;
    case 2:
        th_reschedule(h, j, fz_time(h));
        break;
    case 3:
        th_remove(h, j);
        break;
    case 4:
        th_free_item(h, j);
        break;
    default:
        th_free_item(h, self);
        break;
    }
}

/* The body of a tlist_foreach walk over the due list (v2.1): re-arm,
 * remove or free the item itself, take a later due item out, or nothing. */
static void fz_walk_body(struct th *h, size_t self, void *ctx)
{
    unsigned a = fz_byte();
    long j;
    (void)ctx;
    switch (a % 6) {
    case 0:
        th_reschedule(h, self, fz_time(h));
        break;
    case 1:
        th_remove(h, self);
        break;
    case 2:
        th_free_item(h, self);
        break;
    case 3:
        if ((j = th_due_after(h, self, fz_byte())) >= 0) {
            if (a & 8)
                th_remove(h, (size_t)j);
            else
                th_reschedule(h, (size_t)j, fz_time(h));
        }
        break;
    case 4:
        th_reschedule_range(h, self, fz_time(h), fz_time(h));
        break;
    default:
        break;
    }
    th_verify(h);
}

static void fz_step(struct th *h)
{
    unsigned op = fz_byte(), k;
    size_t i;
    long id;
    int64_t t;

    switch (op % 16) {
    case 0:
        i = fz_item(h);
        th_insert(h, i, fz_time(h));
        break;
    case 1:
        i = fz_item(h);
        th_reschedule(h, i, fz_time(h));
        break;
    case 2:
        th_remove(h, fz_item(h));
        break;
    case 3:
        th_pop(h, fz_time(h));
        break;
    case 4: /* take up to 8 items off the result list */
        for (k = 1 + fz_byte() % 8; k > 0 && th_drain_one(h) >= 0; k--)
            th_verify(h);
        break;
    case 5: /* pop, then drain everything through callbacks (0..3 each);
               +16: walk the due list with tlist_foreach instead */
        th_pop(h, fz_time(h));
        th_verify(h);
        if (op & 16) {
            th_walk_due(h, fz_walk_body, NULL);
            break;
        }
        while ((id = th_drain_one(h)) >= 0) {
            for (k = fz_byte() % 4; k > 0; k--) {
                fz_callback(h, (size_t)id);
                th_verify(h);
            }
        }
        break;
    case 6: /* the 11-round min_time guarantee (one round for set and heap);
               +16: next_expiry, +32: an event loop's round on it, +64: first */
        if (op & 64)
            th_first(h);
        else if (op & 16)
            th_next_expiry(h);
        else if (op & 32)
            th_next_expiry_round(h);
        else
            th_min_time_rounds(h);
        break;
    case 7:
        th_clear(h);
        break;
    case 8:
        th_reinit(h, fz_time(h));
        TH_EQ(tk_live_blocks(), 0); /* destroy freed the heap's array */
        break;
    case 9:
        th_free_item(h, fz_item(h));
        break;
    case 10: /* NULL items; +16: reserve(n), then maybe every allocation fails */
        if (op & 16) {
            th_reserve(h, fz_byte() % (2 * h->n + 2));
            if (op & 32)
                tk_fail_all(true);
        } else {
            th_null_item(h);
        }
        break;
    case 11: /* the heap's next allocation fails: insert or reschedule */
        i = fz_item(h);
        t = fz_time(h);
        tk_fail_next();
        if (op & 16)
            th_reschedule(h, i, t);
        else
            th_insert(h, i, t);
        tk_fail_none();
        break;
    case 12: /* every allocation fails (shrinks must not care): remove or pop */
        tk_fail_all(true);
        if (op & 16)
            th_remove(h, fz_item(h));
        else
            th_pop(h, fz_time(h));
        tk_fail_none();
        break;
    case 13: /* a burst of inserts at one time or around it */
        t = fz_time(h);
        for (k = 1 + fz_byte() % 16; k > 0; k--) {
            th_insert(h, fz_item(h), fz_add(t, (int64_t)(fz_byte() % 4)));
            th_verify(h);
        }
        break;
    case 14: /* push a timeout back or forward a little: may stay in its slot;
                +16: reschedule_range around its expiry (often nothing changes) */
        i = fz_item(h);
        t = h->m[i].state != TH_IDLE ? h->m[i].expire : h->clock;
        if (op & 16) {
            int64_t lo = fz_add(t, -(int64_t)fz_byte());
            th_reschedule_range(h, i, lo, fz_add(t, fz_small()));
        } else {
            th_reschedule(h, i, fz_add(t, fz_small()));
        }
        break;
    default: /* pop just before, at or just after an item's expiry */
        i = fz_item(h);
        t = h->m[i].state != TH_IDLE ? h->m[i].expire : h->clock;
        th_pop(h, fz_add(t, (int64_t)(fz_byte() % 3) - 1));
        break;
    }
}

/* At most this many operations per input, so that one input cannot run for long. */
#define FZ_MAX_OPS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct th h;
    size_t n;

    fz_in = data;
    fz_left = size;
    th_ctx.test = "libfuzzer";
    th_ctx.input = true;
    th_ctx.stop = true;
    th_ctx.step = 0;
    th_ctx.op = NULL;
    tk_fail_none();

    /* mostly small pools (collisions); 64..312 items let the heap's array
     * grow past its first 64 entries and shrink again */
    n = fz_byte();
    n = n < 0xE0 ? 1 + n % 48 : 64 + (n - 0xE0) * 8;
    /* the initial clock: a time relative to clock 0 (init takes < 0 as 0) */
    th_init(&h, n, 0);
    th_reinit(&h, fz_time(&h));
    th_verify(&h);
    for (fz_op = 0; fz_left > 0 && fz_op < FZ_MAX_OPS; fz_op++) {
        th_ctx.step = fz_op;
        fz_step(&h);
        th_verify(&h);
        if (fz_trace) {
            printf("step %ld: last op %s", fz_op, th_ctx.op ? th_ctx.op : "-");
            if (th_ctx.op && th_ctx.op_item >= 0)
                printf(" item=%ld", th_ctx.op_item);
            if (th_ctx.op && th_ctx.op_timed)
                printf(" time=%" PRId64, th_ctx.op_time);
            printf("; size %zu, clock %" PRId64 ", min_time %" PRId64 ", due %zu\n", tc_size(&h.c), h.clock,
                   tc_min_time(&h.c), th_count(&h, TH_DUE));
        }
    }
    th_ctx.step = fz_op;
    /* by INT64_MAX everything is due */
    th_pop(&h, INT64_MAX);
    th_verify(&h);
    TH_EQ(tc_size(&h.c), 0);
    th_fini(&h);
    return 0;
}

#if defined(FZ_STANDALONE)
/* Replay inputs without libFuzzer: each argument is a file or a directory of
 * files. Exits non-zero at the first failure (th_fail), like the fuzzer. */
#include <dirent.h>
#include <sys/stat.h>

static long fz_runs;

static int fz_run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long len;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        printf("FAIL cannot read %s\n", path);
        if (f)
            fclose(f);
        return 1;
    }
    buf = (uint8_t *)th_alloc((size_t)len, 1);
    if (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        printf("FAIL cannot read %s\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    fz_runs++;
    return 0;
}

static int fz_run_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char sub[4096];
    int bad = 0;

    if (stat(path, &st) != 0) {
        printf("FAIL no such file or directory: %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return fz_run_file(path);
    if ((d = opendir(path)) == NULL) {
        printf("FAIL cannot open %s\n", path);
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        bad |= fz_run_path(sub);
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    int i, bad = 0;

    signal(SIGABRT, th_on_abort);
    fz_trace = getenv("FZ_TRACE") != NULL && *getenv("FZ_TRACE") == '1';
    for (i = 1; i < argc; i++)
        bad |= fz_run_path(argv[i]);
    printf("replay %s: %ld inputs, %s\n", TK_KIND, fz_runs, bad || th_failures ? "FAILED" : "ok");
    return bad || th_failures || fz_runs == 0;
}
#endif
