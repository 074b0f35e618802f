/* grade_matrix.h - what the parts of the grader share (cli_grade.h says which part
 * does what): the case records, the matrix and its summary, and the calls
 * grade.c makes into grade_run.c and grade_report.c. Neither of those calls
 * back into grade.c: grade_run.c returns what grade.c plans from. */
#ifndef OCR_GRADE_MATRIX_H
#define OCR_GRADE_MATRIX_H

#include "cli.h"

#include <limits.h>
#include <sys/types.h>

typedef enum {
    V_PASS,
    V_PASS_UNCHECKED, /* every value check passed; races not checked (no oclgrind) */
    V_WRONG,
    V_BUILD_ERROR,
    V_OUT_OF_BOUNDS, /* the guard past an output buffer was written, or oclgrind saw an
                        invalid access */
    V_CRASH,
    V_TIMEOUT,
    V_RACE,
    V_UNINITIALIZED, /* oclgrind: a value read before anything was stored there */
    V_SKIPPED,
    V_NOT_RUN,
    V_NVERDICTS
} grade_verdict;
extern const char *const grade_verdict_names[V_NVERDICTS]; /* grade_report.c */

/* One case's record: what every report writer reads. */
typedef struct {
    int race;     /* 0: a value check in a child; 1: a race check under oclgrind */
    unsigned geo; /* index in grader.geo */
    ocr_type type;
    ocr_op op;
    uint64_t n;
    grade_verdict verdict;
    int data; /* the data set that failed (an ocr_data_kind), or -1 */
    char got[64], want[64];
    /* Race checks: the checker (oclgrind) failed on its own: first with
     * --uninitialized, then (no_uninit) without; checker_failed when it failed
     * both ways and the case is not checked; tool says how ("signal 11"). */
    int no_uninit, checker_failed;
    int retried; /* timed out once: run again with twice the limit before TIMEOUT */
    char tool[48];
    char detail[4096]; /* cut at a line's end, and the cut said, when longer */
} grade_case;

/* A work-group size and the elements one group reduces. */
typedef struct {
    size_t local;
    uint64_t elems;
} grade_geometry;

/* A type and an operator. */
typedef struct {
    ocr_type type;
    ocr_op op;
} type_op;
enum { GRADE_PAIRS = 42 }; /* at most 6 types x 7 operators */

/* The cases one child runs: one build of one (type, operator, geometry). */
typedef struct {
    ocr_type type;
    ocr_op op;
    unsigned geo, first, count; /* cases [first, first + count) */
} grade_group;

enum {
    GRADE_DRAWN = 4, /* sizes per geometry drawn from the grade seed */
    GRADE_MAX_SIZES = 16,
    GRADE_MAX_GROUPS = 48,
    GRADE_MAX_CASES = 720,
    GRADE_GEOS = 2
};

typedef struct {
    const cli_options *o;
    grade_geometry geo[GRADE_GEOS];
    unsigned ngeo;
    uint64_t sizes[GRADE_GEOS][GRADE_MAX_SIZES];
    unsigned nsizes[GRADE_GEOS];
    uint64_t grade_seed;                     /* --grade-seed, or drawn fresh */
    uint64_t drawn[GRADE_GEOS][GRADE_DRAWN]; /* the unpublished sizes it drew */
    unsigned npublished[GRADE_GEOS];         /* sizes[geo][0, npublished) are published */
    grade_group groups[GRADE_MAX_GROUPS];
    unsigned ngroups;
    grade_case cases[GRADE_MAX_CASES];
    unsigned ncases, nvalue; /* cases[0, nvalue) are value checks, the rest race checks */
    char self[PATH_MAX], oclgrind[PATH_MAX];
    char tmpdir[64]; /* the children's stderr files */
    int have_oclgrind;
    size_t device_limit; /* the device's largest work-group as a child told it, 0: not yet */
    int env_broken, timed_out;
    /* A case crashed or hung (a child over a limit): no more children for
     * this kernel; the cases not run are NOT_RUN for this reason. */
    int stopped;
    char stop_why[320];
    /* What the grading cost (--grade-profile) and how far it is (the
     * progress line): children started, builds and their time, cases done,
     * each phase's wall time. */
    unsigned children, builds, cases_done, races_done, nraces;
    unsigned long long build_ms;
    double t_start, ref_s, values_s, speed_s, races_s, t_values0, t_races0;
    char env_msg[1024];
    uint64_t speed_ns, ref_ns; /* the speed case's kernel time, and reduce6's at its size */
    uint64_t ref_n;            /* that size */
    double ref_wall;           /* reduce6's whole case there, in seconds (0: not known) */
    /* The kernel's own output (its printf, the children's stdout): the first
     * GRADE_OUTPUT_CAP bytes are kept for the log, the rest only counted. */
    char *output;
    size_t output_len;
    uint64_t output_total;
    /* The summary (grade.c) */
    grade_verdict verdict;
    unsigned passed, total;
    unsigned checker_failures, races_run; /* race checks the checker failed; those it ran */
    unsigned wrong_values;                /* value cases WRONG */
    int first;                            /* the first case with the verdict, or -1 */
    double ratio;                         /* speed: kernel time / reduce6's, 0: none */
    unsigned speed;                       /* the speed case's index */
    /* The kernel contract's (type, operator) pairs not graded, and why not. */
    type_op not_graded[GRADE_PAIRS];
    const char *not_graded_why[GRADE_PAIRS];
    unsigned nnot_graded;
} grader;

enum { GRADE_OUTPUT_CAP = 64 * 1024, GRADE_REPLAY_LEN = 2 * PATH_MAX + 2048 };

/* grade_run.c, the value checks in three steps (grade.c plans between
 * them): grade_run_reference runs reduce6 alone at the speed case's size
 * (the speed reference, and the measure of this machine's pace for
 * grade_case_limit); grade_run_groups runs the value groups [from, ngroups)
 * in one child (one device, each group built once); grade_run_speed times
 * the speed case alone. Never more than one child at a time. Both runs
 * return the device's largest work-group once a child has told it (0: not
 * yet), which decides the second geometry. A case that crashes, or hangs
 * twice (the second time with twice the limit), stops the kernel: every
 * case after it is NOT_RUN (g->stopped, g->stop_why). */
size_t grade_run_reference(grader *g);
size_t grade_run_groups(grader *g, unsigned from);
void grade_run_speed(grader *g);
/* grade_run.c: the progress line on a terminal, with a time-left estimate
 * from the pace so far (race: a race check just ended). */
void grade_progress(const grader *g, int race);
double grade_now(void);
/* grade_run.c: case n's time limit in seconds (see LIMIT_FACTOR). */
double grade_case_limit(const grader *g, uint64_t n);
/* grade_run.c: the race checks cases[idx[0..count)] under oclgrind, one at a
 * time. */
void grade_run_races(grader *g, const unsigned *idx, unsigned count);

/* grade_oclgrind.c: a race check's verdict and detail from oclgrind's log
 * (the run exited `status`, 0 or 1); -1 when the log holds text that is no
 * report, no compiler warning and not the run's: the checker's failure. */
int grade_race_verdict(grade_case *c, const char *log, int status);

/* grade_report.c: the report in o->format on stdout. */
void grade_report(const grader *g);
/* grade_report.c: the command line that replays case i on its own (a race
 * check: the same run under oclgrind), file names quoted for a shell. */
void grade_replay(const grader *g, unsigned i, char *buf, size_t len);

/* grade_report.c: the student's feedback (the first failing case, the rule
 * it breaks, its replay, a count of the rest), at most GRADE_FEEDBACK_LEN
 * bytes; "" when every case passed. */
enum { GRADE_FEEDBACK_LEN = 4096 };
void grade_feedback(const grader *g, char *buf, size_t len);

/* grade_report.c: the command that repeats the whole grading (its grade
 * seed included). */
void grade_regrade(const grader *g, char *buf, size_t len);

/* AddressSanitizer reserves terabytes of address space for its shadow
 * memory: under an address-space limit an ASan grader's every child would
 * die at its start, so such a build sets none (--grade-memory is then
 * unenforced; the sanitized build exists to test the grader, not to grade). */
#if defined(__SANITIZE_ADDRESS__)
#define OCR_ADDRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OCR_ADDRESS_SANITIZED 1
#endif
#endif
#ifndef OCR_ADDRESS_SANITIZED
#define OCR_ADDRESS_SANITIZED 0
#endif

#endif
