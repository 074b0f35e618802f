#!/usr/bin/env bash
# grade_class.sh DIR [OUTDIR] [OPTIONS] - grades a whole class with
# oclReduction --grade: every DIR/*.cl (one file per student) or every
# DIR/STUDENT/ folder (an LMS export), a .zip/.tar.gz upload or Canvas's
# flat download, into OUTDIR (default DIR-grades, next to DIR; never inside
# it): gradebook.csv, feedback/, run.json, similarity.csv, speed.csv,
# times.csv, report.html, logs/, graded/, the Moodle worksheet written back,
# canvas_gradebook.csv. The work is
# classroom/grade_class.py's (Python 3, standard library only); its --help and
# docs/labs/grading.md ("A class") say every option: -p/-d/-t, --settings
# FILE, --rubric FILE, --kernel, --elems, --local, --timeout, --deadline,
# --worksheet, --timezone, --seed, --types, --ops, --speed-runs,
# --build-options, --canvas-assignment (grade_class.sh --help).
# Environment: OCR (the oclReduction binary; default: the one on PATH, else
# this checkout's build/oclReduction), GRADE_ELEMS, GRADE_LOCAL,
# GRADE_TIMEOUT; PYTHON (default python3).
# Exit status: 0 when every submission was graded (whatever the verdicts), 2 for
# a usage error, 3 when the environment is broken, 128+N when stopped by signal N.
exec "${PYTHON:-python3}" "$(dirname "$0")/grade_class.py" "$@"
