/* ocr_plan.c - the pass plan: how many launches, of what size, until at most M
 * values are left for the CPU. Pure arithmetic, unit-tested on its own. */
#include "ocr.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}
static uint64_t round_up(uint64_t a, uint64_t b) {
    return ceil_div(a, b) * b;
}
static uint64_t ceil_log2(uint64_t x) {
    uint64_t l = 0;
    while (((uint64_t)1 << l) < x && l < 63)
        ++l;
    return l;
}

ocr_status ocr_plan_make(const ocr_geometry *g, uint64_t n, uint64_t m, ocr_plan *p) {
    p->n = n;
    p->m = m;
    p->npasses = 0;
    p->elems_read = 0;
    p->depth = 0;
    if (n == 0 || m == 0 || g->local_size == 0 || g->elems_per_group < 2 ||
        (g->kind == OCR_PER_GRID && g->max_groups == 0))
        return OCR_USAGE;
    uint64_t cur = n;
    /* Each pass at least halves cur (elems_per_group >= 2), so this ends. A
     * kernel under test (not a built-in tree) always runs at least once, even
     * when n <= m: otherwise the CPU would do all the work and it would pass. */
    while (cur > m || (p->npasses == 0 && !g->tree)) {
        if (p->npasses == OCR_MAX_PASSES) return OCR_USAGE;
        ocr_pass *s = &p->pass[p->npasses++];
        uint64_t L = g->local_size, depth;
        s->n_in = cur;
        s->local_size = L;
        s->finish = 0;
        switch (g->kind) {
        case OCR_PER_ITEM: /* one output per work-item */
            s->n_out = ceil_div(cur, 2);
            s->global_size = round_up(s->n_out, L);
            s->groups = s->global_size / L;
            depth = 1;
            break;
        case OCR_PER_GROUP: /* one output per group of elems_per_group elements */
            s->n_out = s->groups = ceil_div(cur, g->elems_per_group);
            s->global_size = s->groups * L;
            /* A built-in tree over E elements is ceil(log2 E) deep; a student
             * kernel may combine them in any order, so count E - 1. */
            depth = g->tree ? ceil_log2(g->elems_per_group) : g->elems_per_group - 1;
            break;
        default: { /* PER_GRID: enough groups to fill the device, no more than needed */
            uint64_t per_group = L * g->elems_per_group;
            s->groups = ceil_div(cur, per_group);
            if (s->groups > g->max_groups) s->groups = g->max_groups;
            /* accurate: OCR_ACCURATE_PARTS values per group; never as many
             * values as came in */
            if (g->accurate && s->groups > 1 && OCR_ACCURATE_PARTS * s->groups >= cur)
                s->groups = (cur + 2 * OCR_ACCURATE_PARTS - 1) / (2 * OCR_ACCURATE_PARTS);
            s->n_out = g->accurate && s->groups > 1 ? OCR_ACCURATE_PARTS * s->groups : s->groups;
            s->global_size = s->groups * L;
            /* each lane of a work-item runs sequentially over its share, then
             * the lanes (up to 16) fold and the group's tree runs */
            depth = ceil_div(cur, s->global_size) + g->elems_per_group + 16 + ceil_log2(L);
            /* One group writes the answer itself. More finish in one launch
             * up to finish_max_groups and once the grid is full; in between
             * the kernel runs long enough that a read right after it waits
             * several microseconds more than after a short second launch
             * (latency runs on an H100 and an H200, docs/perf/latency.md). */
            if (g->finishes && m == 1 && s->groups > 1 &&
                (!g->finish_max_groups || s->groups <= g->finish_max_groups ||
                 s->groups == g->max_groups)) {
                /* the last group folds every group's value, then its tree */
                s->finish = 1;
                s->n_out = 1;
                depth += ceil_div(s->groups, L) + ceil_log2(L);
            }
            break;
        }
        }
        p->elems_read += cur;
        p->depth += depth;
        cur = s->n_out;
    }
    p->leftover = cur;
    p->depth += cur - 1; /* the CPU finishes sequentially */
    return OCR_OK;
}
