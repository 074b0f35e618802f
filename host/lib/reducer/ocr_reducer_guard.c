/* ocr_reducer_guard.c - which reducers are live, and which are in a call.
 *
 * Misuse must be refused, not crash: a call on a reducer another thread is
 * in (its scratch, queue and last event would be shared mid-call), a second
 * ocr_reducer_release, a call after release. A set of the live reducers'
 * addresses (a hash set under one mutex) answers "is this a reducer?"
 * without reading the memory a pointer points to, so a released pointer is
 * refused without touching freed memory (AddressSanitizer stays quiet); an
 * atomic flag in each live reducer says a call is in it. The flag is taken
 * under the set's mutex, so release (which takes it too, then removes the
 * reducer and frees it) can never free a reducer a call is in.
 *
 * Not detectable: a released reducer's address handed out again by malloc
 * to a later reducer (a stale pointer then reaches that reducer), and a call
 * from the message callback of a call on the same reducer (refused as if
 * from another thread). ocr_reducer.h says so.
 */
#include "ocr_reducer_priv.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static ocr_reducer **live; /* open addressing, linear probing; NULL: empty */
static size_t live_cap, live_count;

static size_t home(const ocr_reducer *r, size_t cap) {
    uint64_t h = (uint64_t)(uintptr_t)r;
    h ^= h >> 29;
    h *= UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (cap - 1);
}

/* r's slot, or live_cap when r is not in the set. */
static size_t find(const ocr_reducer *r) {
    if (!live_cap) return 0;
    for (size_t i = home(r, live_cap);; i = (i + 1) & (live_cap - 1)) {
        if (!live[i]) return live_cap;
        if (live[i] == r) return i;
    }
}

static void put(ocr_reducer **tab, size_t cap, ocr_reducer *r) {
    size_t i = home(r, cap);
    while (tab[i])
        i = (i + 1) & (cap - 1);
    tab[i] = r;
}

/* Empties slot i, moving later entries of its run back (no tombstones). */
static void take_out(size_t i) {
    size_t mask = live_cap - 1;
    for (size_t j = (i + 1) & mask; live[j]; j = (j + 1) & mask) {
        size_t k = home(live[j], live_cap);
        /* live[j] may move to i unless its home lies cyclically in (i, j] */
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) live[i] = live[j], i = j;
    }
    live[i] = NULL;
    --live_count;
}

ocr_status ocr_reducer_register(ocr_reducer *r) {
    ocr_status st = OCR_OK;
    atomic_flag_clear(&r->busy);
    pthread_mutex_lock(&live_lock);
    if (2 * (live_count + 1) > live_cap) { /* at most half full */
        size_t cap = live_cap ? 2 * live_cap : 16;
        ocr_reducer **tab = calloc(cap, sizeof *tab);
        if (!tab) {
            st = OCR_NO_MEMORY;
            goto out;
        }
        for (size_t i = 0; i < live_cap; ++i)
            if (live[i]) put(tab, cap, live[i]);
        free(live);
        live = tab, live_cap = cap;
    }
    put(live, live_cap, r);
    ++live_count;
out:
    pthread_mutex_unlock(&live_lock);
    if (st != OCR_OK) ocr_errorf("out of host memory");
    return st;
}

/* The flag taken (GUARD_TAKEN), else why not; with remove, r also leaves the set. */
enum { GUARD_TAKEN, GUARD_NOT_LIVE, GUARD_BUSY };
static int take(const ocr_reducer *r, int remove) {
    int got = GUARD_NOT_LIVE;
    ocr_reducer *m = (ocr_reducer *)r; /* the flag only: the const reducer's state is untouched */
    pthread_mutex_lock(&live_lock);
    size_t i = find(r);
    if (i != live_cap) {
        got = atomic_flag_test_and_set(&m->busy) ? GUARD_BUSY : GUARD_TAKEN;
        if (got == GUARD_TAKEN && remove) take_out(i);
    }
    pthread_mutex_unlock(&live_lock);
    return got;
}

/* The words for a refusal (NULL when taken). */
static const char *refusal(int got) {
    static const char *const words[] = {
        [GUARD_NOT_LIVE] = "is not a live reducer (released already, or never created)",
        [GUARD_BUSY] = "is used from two threads at once (another call is in it); use a reducer "
                       "from one thread at a time",
    };
    return words[got];
}

ocr_status ocr_reducer_enter(const ocr_reducer *r, const char *fn) {
    int got = r ? take(r, 0) : GUARD_NOT_LIVE;
    if (!r) ocr_errorf("%s: the reducer must not be NULL", fn);
    if (r && got != GUARD_TAKEN) ocr_errorf("%s: reducer %p %s", fn, (const void *)r, refusal(got));
    return got == GUARD_TAKEN ? OCR_OK : OCR_USAGE;
}

void ocr_reducer_leave(const ocr_reducer *r) {
    atomic_flag_clear(&((ocr_reducer *)r)->busy);
}

const char *ocr_reducer_enter_quiet(const ocr_reducer *r) {
    return refusal(take(r, 0));
}

ocr_status ocr_reducer_unregister(ocr_reducer *r) {
    int got = take(r, 1);
    if (got != GUARD_TAKEN)
        ocr_errorf("ocr_reducer_release: reducer %p %s; not released", (const void *)r,
                   refusal(got));
    return got == GUARD_TAKEN ? OCR_OK : OCR_USAGE;
}

const ocr_geometry *ocr_reducer_geometry(const ocr_reducer *r) {
    const ocr_geometry *g = NULL;
    pthread_mutex_lock(&live_lock); /* release cannot free r meanwhile */
    if (r && find(r) != live_cap)   /* fixed at create: no flag needed */
        g = r->form && r->form->geometry ? r->form->geometry(r->state) : NULL;
    pthread_mutex_unlock(&live_lock);
    return g;
}
