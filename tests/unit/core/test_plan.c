/* test_plan.c - the pass plan on its own: sizes, counts, termination, limits. */
#include "check.h"
#include "ocr.h"

static uint64_t ceil_div(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

/* Invariants every plan must satisfy. */
static void check_plan(const ocr_geometry *g, uint64_t n, uint64_t m) {
    ocr_plan p;
    CHECK(ocr_plan_make(g, n, m, &p) == OCR_OK);
    uint64_t cur = n, elems = 0;
    for (unsigned i = 0; i < p.npasses; ++i) {
        const ocr_pass *s = &p.pass[i];
        CHECK(s->n_in == cur);     /* each pass reads what the last one wrote */
        CHECK(cur > m);            /* a pass runs only while more than M remain */
        CHECK(s->n_out < s->n_in); /* progress */
        CHECK(s->global_size % s->local_size == 0);
        CHECK(s->groups * s->local_size == s->global_size);
        if (g->kind == OCR_PER_GROUP) CHECK(s->n_out == ceil_div(s->n_in, g->elems_per_group));
        if (g->kind == OCR_PER_ITEM)
            CHECK(s->n_out == ceil_div(s->n_in, 2) && s->global_size >= s->n_out);
        if (g->kind == OCR_PER_GRID) CHECK(s->groups <= g->max_groups && s->n_out == s->groups);
        elems += cur;
        cur = s->n_out;
    }
    CHECK(p.leftover == cur);
    CHECK(p.leftover <= m || p.npasses == 0);
    CHECK(p.npasses > 0 || p.leftover == n);
    CHECK(p.elems_read == elems);
    CHECK(p.depth >= p.leftover - 1);
}

int main(void) {
    ocr_geometry item = {OCR_PER_ITEM, 256, 2, 0, 1, 0, 0, 0};
    ocr_geometry group = {OCR_PER_GROUP, 128, 1024, 0, 1, 0, 0, 0};
    ocr_geometry grid = {OCR_PER_GRID, 256, 16, 8, 1, 0, 0, 0};
    const uint64_t sizes[] = {1,
                              2,
                              3,
                              63,
                              64,
                              65,
                              1023,
                              1024,
                              1025,
                              4103,
                              1u << 20,
                              (1u << 20) + 13,
                              1u << 25,
                              (uint64_t)1 << 33,
                              ((uint64_t)1 << 40) - 1};
    const uint64_t ms[] = {1, 2, 64, 1024, 2048};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i)
        for (size_t j = 0; j < sizeof ms / sizeof *ms; ++j) {
            check_plan(&item, sizes[i], ms[j]);
            check_plan(&group, sizes[i], ms[j]);
            check_plan(&grid, sizes[i], ms[j]);
        }

    ocr_plan p;
    /* The tutorial's case: 2^25 ints, reduce6 geometry (1024 per group), M = 1024. */
    CHECK(ocr_plan_make(&group, 1u << 25, 1024, &p) == OCR_OK);
    CHECK(p.npasses == 2 && p.pass[0].n_out == 32768 && p.pass[1].n_out == 32 && p.leftover == 32);
    CHECK(p.pass[0].global_size == 32768u * 128);
    /* reduce0-style halving from 2^25 down to 64: 19 launches. */
    CHECK(ocr_plan_make(&item, 1u << 25, 64, &p) == OCR_OK);
    CHECK(p.npasses == 19 && p.leftover == 64);
    /* The last pass gets the partial count, not n (NVIDIA's sample got this wrong). */
    CHECK(ocr_plan_make(&group, 4103, 1, &p) == OCR_OK);
    CHECK(p.npasses == 2 && p.pass[0].n_out == 5 && p.pass[1].n_in == 5 && p.leftover == 1);
    /* n <= M: nothing to launch, the CPU does it all. */
    CHECK(ocr_plan_make(&group, 1000, 1024, &p) == OCR_OK);
    CHECK(p.npasses == 0 && p.leftover == 1000);
    /* Grid kernels: at most max_groups outputs, then done in one more pass. */
    CHECK(ocr_plan_make(&grid, 1u << 30, 1, &p) == OCR_OK);
    CHECK(p.npasses == 2 && p.pass[0].n_out == 8 && p.pass[1].n_out == 1);
    CHECK(ocr_plan_make(&grid, 5000, 8, &p) == OCR_OK); /* 5000 / 4096 per group */
    CHECK(p.npasses == 1 && p.pass[0].groups == 2);
    /* A kernel that finishes in its own launch: M = 1 takes one pass, whose
     * output is the one value; any other M plans as before. */
    ocr_geometry fin = grid;
    fin.finishes = 1;
    CHECK(ocr_plan_make(&fin, 1u << 20, 1, &p) == OCR_OK);
    CHECK(p.npasses == 1 && p.pass[0].finish && p.pass[0].n_out == 1 && p.leftover == 1);
    CHECK(p.pass[0].groups == 8 && p.elems_read == (1u << 20));
    CHECK(ocr_plan_make(&fin, 1u << 20, 8, &p) == OCR_OK);
    CHECK(p.npasses == 1 && !p.pass[0].finish && p.leftover == 8);
    CHECK(ocr_plan_make(&grid, 1u << 20, 1, &p) == OCR_OK);
    CHECK(p.npasses == 2 && !p.pass[0].finish && !p.pass[1].finish);
    /* finish_max_groups: one launch up to it and at a full grid, two between;
     * 0 lifts it. 4096 elements per group of 256 x 16, 1000 groups at most. */
    ocr_geometry cap = {OCR_PER_GRID, 256, 16, 1000, 1, 1, 0, 255};
    const struct {
        uint64_t groups, launches, launches_lifted;
    } caps[] = {{1, 1, 1},   {2, 1, 1},    {255, 1, 1}, {256, 2, 1},
                {999, 2, 1}, {1000, 1, 1}, {5000, 1, 1}};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; ++i) {
        uint64_t n = caps[i].groups * 4096 - 7;
        CHECK(ocr_plan_make(&cap, n, 1, &p) == OCR_OK && p.npasses == caps[i].launches);
        CHECK(p.pass[0].groups == (caps[i].groups < 1000 ? caps[i].groups : 1000));
        CHECK(p.leftover == 1 && p.pass[p.npasses - 1].n_out == 1);
        cap.finish_max_groups = 0;
        CHECK(ocr_plan_make(&cap, n, 1, &p) == OCR_OK && p.npasses == caps[i].launches_lifted);
        cap.finish_max_groups = 255;
    }
    /* Bad requests are refused, not looped on. */
    CHECK(ocr_plan_make(&group, 0, 10, &p) == OCR_USAGE);
    CHECK(ocr_plan_make(&group, 10, 0, &p) == OCR_USAGE);
    ocr_geometry bad = {OCR_PER_GROUP, 64, 1, 0, 1, 0, 0, 0};
    CHECK(ocr_plan_make(&bad, 100, 1, &p) == OCR_USAGE);
    /* An accurate sum: a pass of several groups writes its accumulators
     * (OCR_ACCURATE_PARTS values per group), a single group one value; it
     * always ends, even with tiny groups. */
    ocr_geometry acc = {OCR_PER_GRID, 256, 16, 8, 1, 0, 1, 0};
    ocr_geometry tiny = {OCR_PER_GRID, 1, 2, 4096, 1, 0, 1, 0};
    for (uint64_t n = 1; n < ((uint64_t)1 << 24); n = n * 3 + 1) {
        CHECK(ocr_plan_make(&acc, n, 1, &p) == OCR_OK);
        CHECK(p.leftover == 1);
        for (unsigned i = 0; i < p.npasses; ++i) {
            const ocr_pass *s = &p.pass[i];
            CHECK(s->n_out == (s->groups > 1 ? OCR_ACCURATE_PARTS * s->groups : 1));
            CHECK(s->n_out < s->n_in || s->n_in == 1);
        }
        CHECK(ocr_plan_make(&tiny, n, 1, &p) == OCR_OK && p.leftover == 1);
    }
    return check_summary("test_plan");
}
