#!/usr/bin/env python3
"""grade_class.py - a class in one command: every submission in DIR graded by
`oclReduction --grade`, written into OUTDIR for a spreadsheet, an LMS, the
students and the teacher (docs/labs/grading.md, "A class").

  grade_class.py [-p P] [-d D] [-t TYPE] [--settings FILE] [--rubric FILE]
                 [--kernel NAME] [--elems E] [--local L] [--timeout S]
                 [--deadline ISO-8601] [--worksheet CSV] [--timezone TZ]
                 [--seed S] [--speed-runs K] [--build-options=OPTS]
                 [--canvas-assignment NAME] DIR [OUTDIR]

DIR holds one .cl file per student (the student is the file's name) or one
folder per student, as LMS exports come (the student is the folder's name;
"Name_12345_..." gives student "Name" and id 12345), or Canvas's flat
download (lastnamefirstname[_LATE]_USERID_ATTACHMENTID_file: the student,
the Canvas id, late). A .zip or .tar.gz upload is unpacked safely into
OUTDIR/graded/NAME/ and graded as a folder. A link that leaves DIR, a FIFO
or a device is never read. OUTDIR (default DIR-grades, next to DIR;
never DIR or inside it) receives:
  gradebook.csv   RFC 4180: id,student,verdict,points,max_points,late,reason,replay
                  (reason: the check that decided the verdict; replay: the
                  command that reproduces it). No timing: the same class,
                  settings and seed give the same bytes. A field that begins
                  with = + - @ tab or CR gets a leading ' (no formulas).
  feedback/S.txt  for each student: every failed check with its replay
                  command and the full diagnostics (a cut is always said),
                  and any failure of the checking tool (never the student's)
  run.json        grader version, device, driver, OpenCL version, date,
                  settings, seed, rubric, each submission's SHA-256 and time
  similarity.csv  pairs identical after normalising whitespace, comments,
                  names and optional braces, and near-identical pairs with a
                  score and the lines they share: to look at, never a verdict
  speed.csv       kernel time / reduce6's, median of --speed-runs rounds
                  (timing: it varies; never used for points)
  times.csv       seconds each student's grading took
  report.html     one self-contained page with all of the above
  logs/S.log      what the grader and the kernel printed
  WORKSHEET.csv   Moodle's grading worksheet (--worksheet) written back, its
                  Grade and Feedback comments filled
  canvas_gradebook.csv  Canvas's gradebook import (Canvas names only)
  graded/S/       a flat DIR's file as graded: a copy, alone (the files beside
                  it in DIR are other students', never its includes); the
                  outputs name the file in DIR
Settings: command line, then --settings FILE, then the environment (OCR,
GRADE_ELEMS, GRADE_LOCAL, GRADE_TIMEOUT), then defaults. Exit status: 0 when
every submission was graded (whatever the verdicts), 2 for a usage error
(bad settings or rubric: file and line named; OUTDIR inside DIR, unwritable
or being written by another grade_class), 3 when the environment is broken
(no grader, or the grader said so for some submission), 128+N when stopped
by signal N (the grader stopped too, temporary folders removed).
"""
import argparse
import concurrent.futures
import datetime
import fcntl
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout's classroom/
from grade_class_archive import Refused, is_archive, unpack
from grade_class_input import (DOCUMENTED_MATRIX, SETTINGS, SOURCE_CAP, Usage, choose,
                               find_worksheet, kernel_of, read_bounded, read_rubric, read_settings,
                               read_worksheet, setting_value, source, submissions, walk, zone_of)
from grade_class_report import (feedback, fmt_points, report_html, tool_failures, write_csv)
from grade_class_lms import (check_canvas_export, write_canvas, write_canvas_export,
                             write_worksheet)
from grade_class_similar import ranges, similarity

ENV = {"elems": "GRADE_ELEMS", "local": "GRADE_LOCAL", "timeout": "GRADE_TIMEOUT"}
LOCK = ".grade_class.lock"
# File times this close together are a copy's (cp -r, an unpacked export
# take seconds), not a class's submissions.
COPY_SPREAD = 60


class Stopped(BaseException):
    """SIGTERM or SIGINT: stop the grader, clean up, exit 128 + N."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def on_signal(signum, _frame):
    raise Stopped(signum)


def progress(msg):
    sys.stderr.write("\r\033[K" + msg if sys.stderr.isatty() else msg + "\n")
    sys.stderr.flush()


# ---- child processes ----------------------------------------------------------------------

CHILD_ENV = dict(os.environ)


def grader_tmpdirs(pgid):
    """The grader's own /tmp/ocr-grade-* folders, from the files its case
    processes hold open (a killed grader cannot remove them itself)."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getpgid(int(pid)) != pgid:
                continue
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                m = re.match(r"(/tmp/ocr-grade-\w{6})/stderr\d$", link)
                if m:
                    found.add(m.group(1))
        except OSError:
            pass
    return found


def stop(p):
    """End the child P and everything it started (its own process group)."""
    dirs = grader_tmpdirs(p.pid)
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass
    for _ in range(100):  # the group's last members (a case in flight), within 10 s
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            break
        try:
            p.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(0.1)
    for d in dirs:
        for f in glob.glob(os.path.join(d, "stderr[0-9]")):
            os.unlink(f)
        try:
            os.rmdir(d)
        except OSError:
            pass


# The children alive (graders in the worker threads of --jobs N): a signal
# stops them all, from the main thread.
LIVE = set()
LIVE_LOCK = threading.Lock()


def run(cmd, timeout=None):
    """(exit status, stdout, stderr) of CMD in its own process group, which
    a signal to this tool (or TIMEOUT) ends as a whole; None on a timeout."""
    with LIVE_LOCK:
        if STOPPING.is_set():
            raise Stopped(signal.SIGTERM)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, env=CHILD_ENV)
        LIVE.add(p)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(p)
        return None
    except BaseException:
        stop(p)
        raise
    finally:
        with LIVE_LOCK:
            LIVE.discard(p)
    return p.returncode, out, err


STOPPING = threading.Event()


def stop_all():
    """The main thread's answer to a signal: no new child, every live one ended."""
    with LIVE_LOCK:
        STOPPING.set()
        live = list(LIVE)
    for p in live:
        stop(p)


def grade_all(s, ocr, subs, paths, opts, t_start):
    """grade_one's answer for each submission (None where there is no file),
    s["jobs"] at a time; the progress line as each starts. Each grader is one
    process with its own limits (--grade-memory), so N at once take at most N
    times one's memory; verdicts do not depend on the load (a case that times
    out runs again alone, docs/labs/grading.md)."""
    done, todo = [None] * len(subs), [i for i, x in enumerate(subs) if x[2]]
    say = threading.Lock()

    def one(i):
        with say:
            progress(f"grade_class: {i + 1}/{len(subs)} {subs[i][0]} "
                     f"({time.monotonic() - t_start:.0f} s{time_left(done, todo, t_start)})")
        done[i] = grade_one(s, ocr, paths[i], opts)

    if s["jobs"] == 1:
        for i in todo:
            one(i)
        return done
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=s["jobs"])
    try:
        for f in [pool.submit(one, i) for i in todo]:
            f.result()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all()
        raise
    pool.shutdown()
    return done


def time_left(done, todo, t_start):
    """', about N s left' from the graders finished so far (none before the first)."""
    n = sum(1 for i in todo if done[i] is not None)
    if not n:
        return ""
    left = (time.monotonic() - t_start) / n * (len(todo) - n)
    return f", about {left:.0f} s left"


# ---- the grader ---------------------------------------------------------------------------

def find_grader():
    """OCR, else oclReduction on PATH, else the one built in this checkout."""
    if os.environ.get("OCR"):
        return os.environ["OCR"]
    on_path = shutil.which("oclReduction")
    if on_path:
        return on_path
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for cand in [os.path.join(root, "build", "oclReduction")] + sorted(
            glob.glob(os.path.join(root, "build*", "oclReduction"))):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise RuntimeError(f"no oclReduction: not on PATH and not built in {root}/build; build it "
                       "(cmake -B build && cmake --build build) or name it: "
                       "OCR=/path/to/oclReduction")


def grader_caps(ocr):
    """Which of the grader's newer options it has (an older grader lacks them)."""
    r = run([ocr, "--help"])
    text = (r[1] + r[2]).decode("utf-8", "replace") if r else ""
    return {k: f"--{k}" in text for k in ("grade-seed", "grade-types", "list-cases",
                                         "build-options")}


def grade_options(s, caps):
    """The options every --grade run of this class gets."""
    a = ["--elems-per-group", str(s["elems"]), "-w", str(s["local"])] + device_args(s)
    if s["timeout"]:
        a += ["--timeout", str(s["timeout"])]
    if caps["grade-seed"]:
        a += ["--grade-seed", str(s["seed"])]
    a += build_args(s, caps)
    for key in ("types", "ops"):
        if s[key]:
            if not caps["grade-types"]:
                raise Usage(f"{key} = {s[key]}: this oclReduction grades a fixed matrix "
                            "(no --grade-types/--grade-ops); build a newer one")
            a += [f"--grade-{key}", s[key]]
    return a


def build_args(s, caps):
    """The class's build options for every student's build (class.conf's
    build_options): the grader checks them as it checks its own
    --build-options (no -D/-U of an OpenCL C name), and a refusal stops the
    grading before any student is graded (exit 2)."""
    if not s["build_options"]:
        return []
    if not caps["build-options"]:
        raise Usage(f"build_options = {s['build_options']}: this oclReduction has no "
                    "--build-options; build a newer one")
    return ["--build-options", s["build_options"]]


def graded_pairs(ocr, s, caps):
    """The (type, op) value cases the grader grades with these settings."""
    if not caps["list-cases"]:
        return DOCUMENTED_MATRIX
    cmd = [ocr, "--grade", "--list-cases", "--format", "json"]
    for key in ("types", "ops"):
        if s[key]:
            cmd += [f"--grade-{key}", s[key]]
    r = run(cmd, timeout=60)
    if r is None or r[0] != 0:
        msg = r[2].decode("utf-8", "replace").strip() if r else "it did not answer"
        raise Usage(f"the grader refused the case settings: {msg}")
    try:
        return tuple((c["type"], c["op"]) for c in json.loads(r[1])["graded"])
    except (ValueError, KeyError, TypeError):
        return DOCUMENTED_MATRIX


def device_args(s):
    a = []
    for key, flag in (("platform", "-p"), ("device", "-d"), ("device_type", "-t")):
        if s[key]:
            a += [flag, s[key]]
    return a


def grade_one(s, ocr, path, opts):
    """The grader's JSON report (or None), its exit status, its stderr, seconds."""
    kernel, note = s["kernel"], ""
    head = source(path)[:4096]
    m = re.search(r"grade:(.*)", head)
    if m:
        kernel = kernel_of(head, kernel)
        if re.search(r"(^|\s)(elems|local)=", m.group(1)):
            note = (f"grade_class: ignored in '// grade:{m.group(1).rstrip()}': the teacher's "
                    f"geometry is {s['elems']} elements per group, {s['local']} work-items\n")
    cmd = [ocr, "--grade", "--kernel-file", path, "--kernel-name", kernel, "--format", "json"]
    cmd += opts
    t0 = time.monotonic()
    rc, out, err = run(cmd)
    err = note + err.decode("utf-8", "replace")
    report = None
    if rc in (0, 1):
        try:
            report = json.loads(out.decode("utf-8", "replace"))
        except ValueError as e:
            err += f"grade_class: the grader's report is not JSON ({e})\n"
    return report, rc, err, time.monotonic() - t0


def pass_reason(sm):
    check = sm.get("race_check", "")
    if check.startswith("not checked"):
        return f"every value check passed; races {check}: a tool failure, not the kernel's"
    if check.startswith("skipped") or not check:
        return "every value check passed; races not checked (oclgrind not found)"
    return f"every value check passed; races not checked ({check})"


def verdict_row(student, sid, path, why, report, rc, err):
    """The gradebook's fields except points and late."""
    row = {"id": sid, "student": student, "file": path or "", "late": "", "reason": "",
           "replay": "", "tools": tool_failures(report)}
    if path is None:
        row.update(verdict="NO_SUBMISSION", reason=why)
    elif report is None:
        said = [x for x in err.splitlines() if x.strip() and not x.startswith("grade_class:")]
        first = said[0] if said else "no message"
        row.update(verdict="ERROR", reason=f"the grader exited {rc}: {first}")
    else:
        sm = report["summary"]
        row["verdict"] = sm["verdict"]
        deciding = next((c for c in report["cases"] if c["verdict"] == sm["verdict"]), None)
        if sm["verdict"] == "PASS_UNCHECKED":
            row["reason"] = pass_reason(sm)
        elif sm["verdict"] != "PASS":
            row["reason"] = sm.get("first_failure") or ""
            row["replay"] = deciding["replay"] if deciding else ""
    return row


def points_of(rubric, row, cases):
    """Points for one graded submission."""
    v = row["verdict"]
    p = rubric["verdict"].get(v, 0.0)
    if v in rubric["partial"]:
        for t, op, pts in rubric["groups"]:
            mine = [c for c in cases if c["check"] == "value" and c["type"] == t and c["op"] == op]
            if mine and all(c["verdict"] == "PASS" for c in mine):
                p += pts
    p = min(p, rubric["max_points"])
    if row["late"] == "yes":
        p *= 1 - rubric["late_penalty"]
    return p


def safe_name(student, taken):
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._") or "student"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


# ---- submission times ---------------------------------------------------------------------

def deadline_of(text):
    """The deadline as a POSIX time (no zone given: UTC), or None."""
    if not text:
        return None
    try:
        d = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise Usage(f"deadline '{text}' is not an ISO 8601 date and time (2026-12-01T23:59:00Z)")
    if d.tzinfo is None:
        d = d.replace(tzinfo=datetime.timezone.utc)
    return d.timestamp()


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat() if t else None


def submission_times(s, subs, sheet):
    """[(time, source)] per submission, from the LMS worksheet SHEET where it
    has the student, else the file's time (an archive's, not its unpacked
    copy's); and warnings about file times."""
    out, warn, by_file = [], [], []
    for student, sid, path, _, meta in subs:
        key = next((k for k in ("id:" + sid, "name:" + student) if k in sheet), None)
        if key and sheet[key] is not None:
            out.append((sheet[key], "worksheet"))
        elif path:
            out.append((os.path.getmtime(meta.get("time_file") or path), "file time"))
            by_file.append((student, out[-1][0]))
        else:
            out.append((None, ""))
    if sheet and by_file:
        warn.append("no submission time in the worksheet for " + ", ".join(n for n, _ in by_file)
                    + ": their file times were used")
    if s["deadline_t"] is not None and by_file:
        stamps = [t for _, t in by_file]
        if len(stamps) > 1 and max(stamps) - min(stamps) <= COPY_SPREAD:
            warn.append(f"every file has the same time (within {COPY_SPREAD} s), so it is the "
                        "time of a copy, not of the submissions: late is unreliable (use the LMS "
                        "worksheet: --worksheet)")
        elif all(t > s["deadline_t"] for t in stamps):
            warn.append("every file time is after the deadline (a copy without its times?): "
                        "late is unreliable (use the LMS worksheet: --worksheet)")
    return out, warn


# ---- speed --------------------------------------------------------------------------------

def kernel_ms(cmd, limit):
    """The median kernel time of one process, or None (failed, or past LIMIT
    seconds: a kernel may pass the grader's sizes and hang at this one)."""
    r = run(cmd + ["--format", "json", "--cpu-baseline", "none", "-r", "10", "--timeout",
                   str(limit)], timeout=limit + 30)
    if r is None or r[0] != 0:
        return None
    try:
        return json.loads(r[1])["median"]["t_kernels_ms"]
    except (ValueError, KeyError, TypeError):
        return None


def speed(s, ocr, path, kernel):
    """Median over rounds of (the kernel's time / reduce6's), each round running
    both, alternately first; (median, min, max, rounds) or None."""
    base = [ocr, "--type", "int", "-s", str(s["speed_size"])] + device_args(s)
    mine = base + ["--kernel-file", path, "--kernel-name", kernel, "--elems-per-group",
                   str(s["elems"]), "-w", str(s["local"])] + s["build_args"]
    ref = base + ["-n", "6"]
    ratios, limit = [], min(3600, 3 * (s["timeout"] or 20))
    for r in range(s["speed_runs"]):
        order = (mine, ref) if r % 2 == 0 else (ref, mine)
        t = {id(c): kernel_ms(c, limit) for c in order}
        if not t[id(mine)]:
            break  # failed or hung at this size: no speed, and no more rounds of it
        if t[id(ref)]:
            ratios.append(t[id(mine)] / t[id(ref)])
    if not ratios:
        return None
    return statistics.median(ratios), min(ratios), max(ratios), len(ratios)


# ---- the device ---------------------------------------------------------------------------

def device_record(s, ocr):
    """What the grader's device is, from one ordinary run on it and --list."""
    rec = {"grader_version": "", "device": "", "platform": "", "driver": "", "opencl": "",
           "type": "", "compute_units": None}
    v = run([ocr, "--version"], timeout=60)
    rec["grader_version"] = v[1].decode("utf-8", "replace").strip() if v else ""
    p = run([ocr, "-n", "6", "-s", "1024", "-r", "1", "--cpu-baseline", "none", "--format",
             "json"] + device_args(s), timeout=300)
    if p is None:
        raise RuntimeError("a run of reduce6 on the device did not end in 300 s")
    msg = p[2].decode("utf-8", "replace").strip()
    if p[0] == 2:  # -p/-d/-t the grader refuses
        raise Usage(msg or "the grader refused the device options")
    if p[0] != 0:
        raise RuntimeError(msg or "no device")
    try:
        j = json.loads(p[1])
        rec.update(device=j["device"], platform=j["platform"], driver=j["driver"],
                   opencl=j["device_version"])
    except (ValueError, KeyError):
        pass
    lst = run([ocr, "--list"], timeout=300)
    lines = lst[1].decode("utf-8", "replace").splitlines() if lst else []
    for i, line in enumerate(lines):
        m = re.match(r"\s*Device \d+: (.*) \[(\w+)\]$", line)
        if m and m.group(1) == rec["device"]:
            rec["type"] = m.group(2)
            cu = re.search(r"compute units (\d+)", lines[i + 1] if i + 1 < len(lines) else "")
            rec["compute_units"] = int(cu.group(1)) if cu else None
            break
    return rec


def speed_meaningful(dev):
    return not (dev["type"] == "CPU" and (dev["compute_units"] or 0) < 4)


SPEED_RUNS = 5  # rounds where speed_runs is not set and the timing means something


def resolve_speed_runs(s, dev):
    """Set speed_runs where the teacher did not: SPEED_RUNS rounds, or none on
    a device where other load moves a time as much as the kernel does (they
    would be marked not meaningful, and cost 2 processes a round a student:
    2 minutes for a class of 30 on 2 cores). The note says why, or is ''."""
    s["speed_note"] = ""
    if s["speed_runs"] is not None:
        return
    s["speed_runs"] = SPEED_RUNS if speed_meaningful(dev) else 0
    if not s["speed_runs"]:
        s["speed_note"] = (f"not measured: the device is a CPU of {dev['compute_units'] or '?'} "
                           "compute units, where other load moves a kernel's time as much as the "
                           "kernel does (--speed-runs K measures anyway)")


# ---- the output folder --------------------------------------------------------------------

def inside(out, indir):
    ro, ri = os.path.realpath(out), os.path.realpath(indir)
    if ro == ri or ro.startswith(ri + os.sep):
        raise Usage(f"the output folder {out} is the class folder {indir} or inside it: its files "
                    "would be read as submissions; choose a folder outside it")


def claim(out, indir):
    """Make OUT and hold its lock (a second grade_class into OUT is refused);
    OUT may not be the class folder or inside it (its files would be read as
    students). The lock's file descriptor."""
    inside(out, indir)
    try:
        for d in ("", "feedback", "logs"):
            os.makedirs(os.path.join(out, d), exist_ok=True)
        fd = os.open(os.path.join(out, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise Usage(f"cannot write the output folder {out}: {e.strerror}")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        other = os.read(fd, 32).decode("ascii", "replace").strip()
        os.close(fd)
        raise Usage(f"{out} is being written by another grade_class (pid {other or '?'}): wait "
                    "for it, or choose another output folder")
    os.ftruncate(fd, 0)
    os.write(fd, b"%d\n" % os.getpid())
    return fd


# ---- main ---------------------------------------------------------------------------------

OPTION_HELP = {
    "settings": "the settings file (KEY = VALUE lines)",
    "rubric": "the rubric file (docs/labs/rubric.example)",
    "kernel": "the kernel's name (default my_reduce)",
    "elems": "elements per work-group (default 1024)",
    "local": "work-items per work-group (default 64)",
    "timeout": "seconds one case may run (default: the grader's)",
    "deadline": "ISO 8601: a submission after it is late",
    "worksheet": "Moodle's grading worksheet: times in, grades written back to OUTDIR",
    "timezone": "the worksheet's zone (UTC, +01:00, Europe/Berlin)",
    "seed": "the grade seed (default: drawn; run.json has it)",
    "speed-runs": "rounds of the speed measurement (0: none; default 5, or none on a CPU "
                  "device of fewer than 4 compute units, where the timing means nothing)",
    "jobs": "students graded at once (default 1; each grader is one process with its own "
            "memory limit)",
    "types": "the graded types, e.g. int,float (default: all)",
    "ops": "the graded operators, e.g. sum,max (default: all)",
    "build-options": "build options for every student's kernel (--build-options=-DCHUNK=4)",
    "canvas-assignment": "canvas_gradebook.csv's assignment column, e.g. 'Lab 3 (4321)'",
    "canvas-gradebook": "Canvas's gradebook export: written back with the assignment filled",
}


def options(argv):
    ap = argparse.ArgumentParser(prog="grade_class.py", description=__doc__.split("\n\n")[0],
                                 epilog="Every option is also a settings-file key "
                                 "(docs/labs/grading.md, \"A class\").")
    ap.add_argument("dir", help="the class: one .cl file, archive or folder per student")
    ap.add_argument("outdir", nargs="?", help="where the outputs go (default DIR-grades)")
    ap.add_argument("-p", dest="platform", help="the grader's platform (-p)")
    ap.add_argument("-d", dest="device", help="the grader's device (-d)")
    ap.add_argument("-t", dest="device_type", help="the grader's device type (-t)")
    for opt, what in OPTION_HELP.items():
        ap.add_argument("--" + opt, dest=opt.replace("-", "_"), help=what)
    a = ap.parse_args(argv)
    s = {k: v[1] for k, v in SETTINGS.items()}
    for key, var in ENV.items():
        if os.environ.get(var):
            s[key] = setting_value(key, os.environ[var], var)
    if a.settings:
        s.update(read_settings(a.settings))
    for key in SETTINGS:
        if getattr(a, key, None) is not None:
            s[key] = setting_value(key, getattr(a, key), "--" + key.replace("_", "-"))
    s["deadline_t"] = deadline_of(s["deadline"])
    if not os.path.isdir(a.dir):
        raise Usage(f"{a.dir} is not a directory")
    if not s["worksheet"]:
        s["worksheet"] = find_worksheet(a.dir)
    if s["canvas_gradebook"]:
        check_canvas_export(s["canvas_gradebook"], s["canvas_assignment"])
    zone_of(s["timezone"])
    return a, s


def private_copy(out, name, path, root):
    """The file to grade for PATH: a flat folder's file is graded from a copy in
    OUTDIR/graded/NAME/, as the files beside it in DIR are other students' (an
    '#include "bob.cl"' would read one); a student's folder holds only theirs."""
    if os.path.dirname(os.path.abspath(path)) != os.path.abspath(root):
        return path
    d = os.path.join(out, "graded", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    copy = os.path.join(d, os.path.basename(path))
    with open(copy, "wb") as f:
        f.write(read_bounded(path, SOURCE_CAP, "submission"))
    return copy


def materialise(subs, names, out, kernel):
    """SUBS with every pending submission (an archive, a Canvas student's
    several files) copied or unpacked into OUTDIR/graded/NAME/, its own
    folder, and its file to grade chosen there as in a student's folder."""
    done = []
    for (student, sid, path, why, meta), name in zip(subs, names):
        if not meta["pending"]:
            done.append((student, sid, path, why, meta))
            continue
        d = os.path.join(out, "graded", name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        meta["time_file"] = meta["pending"][0][0]
        try:
            for src, rel in meta["pending"]:
                if is_archive(src):
                    sub = d if len(meta["pending"]) == 1 else os.path.join(
                        d, re.sub(r"(?i)(\.zip|\.tar\.gz|\.tgz)$", "", os.path.basename(rel)))
                    meta["left_packed"] = meta.get("left_packed", 0) + unpack(src, sub)
                else:
                    with open(os.path.join(d, os.path.basename(rel)), "xb") as f:
                        f.write(read_bounded(src, SOURCE_CAP, "submission"))
        except (Refused, FileExistsError) as e:
            shutil.rmtree(d, ignore_errors=True)
            why = str(e) if isinstance(e, Refused) else f"two uploads named {e.filename}"
            done.append((student, sid, None, f"{os.path.basename(src)} refused: {why}", meta))
            continue
        cls, _, why = walk(d, d)
        path, why = choose(d, cls, kernel) if not why else (None, why)
        if path is None and not cls:
            why = "no .cl file in the upload" + (" (an archive's own archives are not unpacked)"
                                                  if glob.glob(os.path.join(d, "**", "*.zip"),
                                                               recursive=True) else "")
        done.append((student, sid, path, why, meta))
    return done


def renamed(x, old, new):
    """X (strings, lists, dicts, tuples) with every OLD in a string made NEW."""
    if isinstance(x, str):
        return x.replace(old, new)
    if isinstance(x, (list, tuple)):
        return type(x)(renamed(v, old, new) for v in x)
    if isinstance(x, dict):
        return {k: renamed(v, old, new) for k, v in x.items()}
    return x


def grade_class(a, s, ocr, out, held):
    """Grade the class; the exit status."""
    caps = grader_caps(ocr)
    s["drawn"] = caps["grade-seed"]
    if s["seed"] is None:  # one seed for the whole class: every student gets the same sizes
        s["seed"] = secrets.randbits(63) if caps["grade-seed"] else 1
    opts = grade_options(s, caps)
    s["build_args"] = build_args(s, caps)
    s["graded"] = [list(p) for p in graded_pairs(ocr, s, caps)]
    rubric = read_rubric(s["rubric"], [tuple(p) for p in s["graded"]])
    subs = submissions(a.dir, s["kernel"])
    if not subs:
        raise Usage(f"no .cl files or student folders in {a.dir}")
    sheet = read_worksheet(s["worksheet"], zone_of(s["timezone"])) if s["worksheet"] else {}
    held["lock"] = claim(out, a.dir)
    taken = set()
    names = [safe_name(x[0], taken) for x in subs]
    subs = materialise(subs, names, out, s["kernel"])
    times, warnings = submission_times(s, subs, sheet)
    try:
        dev = device_record(s, ocr)
    except (RuntimeError, OSError) as e:
        sys.stderr.write(f"grade_class: the grader cannot run: {e}\n")
        return 3
    resolve_speed_runs(s, dev)
    if s["speed_note"]:
        warnings.append("speed " + s["speed_note"])
    rows, fbs, speeds, took, record, rc = [], [], {}, [], [], 0
    t_start = time.monotonic()
    copies = [private_copy(out, names[i], x[2], a.dir) if x[2] else None
              for i, x in enumerate(subs)]
    answers = grade_all(s, ocr, subs, copies, opts, t_start)
    for i, (student, sid, path, why, meta) in enumerate(subs):
        name, graded = names[i], copies[i]
        report, grc, err, secs = answers[i] if path else (None, 0, "", 0.0)
        if graded != path:  # the outputs name the submission in DIR, not OUTDIR's copy
            report, err = renamed((report, err), os.path.dirname(graded), os.path.dirname(path))
        if grc == 2:  # the grader refused the teacher's options, not this student's file
            said = [x for x in err.splitlines() if x.startswith("oclReduction")]
            raise Usage("the grader refused the class's settings: " + (said[0] if said else err))
        row = verdict_row(student, sid, path, why, report, grc, err)
        row["lms"] = meta["lms"]
        if row["verdict"] == "ERROR":
            rc = 3
        if meta["late"] is not None:  # Canvas marked it (its file times are the download's)
            row["late"] = "yes" if meta["late"] else "no"
        elif s["deadline_t"] is not None and times[i][0] is not None:
            row["late"] = "yes" if times[i][0] > s["deadline_t"] else "no"
        row["sha256"] = hashlib.sha256(read_bounded(path, SOURCE_CAP, "submission")).hexdigest() \
            if path else ""
        row["points"] = fmt_points(points_of(rubric, row, (report or {}).get("cases", [])))
        if row["verdict"] in ("PASS", "PASS_UNCHECKED") and s["speed_runs"]:
            progress(f"grade_class: speed {i + 1}/{len(subs)} {student} "
                     f"({time.monotonic() - t_start:.0f} s)")
            speeds[student] = speed(s, ocr, graded, report["kernel_name"])
        fb = feedback(row, report, err, fmt_points(rubric["max_points"]))
        with open(os.path.join(out, "feedback", name + ".txt"), "w", encoding="utf-8") as f:
            f.write(fb)
        with open(os.path.join(out, "logs", name + ".log"), "w", encoding="utf-8") as f:
            f.write(err)
        rows.append(row), fbs.append(fb), took.append((student, "%.1f" % secs))
        record.append({k: row[k] for k in ("student", "id", "file", "sha256", "verdict", "points",
                                           "late", "tools")} | {
            "seconds": round(secs, 1), "files": name, "time": iso(times[i][0]),
            "time_source": times[i][1], "regrade": (report or {}).get("regrade")})
    for w in warnings:
        sys.stderr.write(f"grade_class: warning: {w}\n")
    write_outputs(out, a, s, rubric, dev, subs, rows, fbs, speeds, took, record, warnings,
                  time.monotonic() - t_start)
    return rc


def lms_outputs(out, s, rows, max_points):
    """The worksheet written back (Moodle) and the Canvas import; (warnings,
    what was written and who was not matched, for run.json)."""
    warn, rec = [], {}
    if s["worksheet"]:
        dest = os.path.join(out, os.path.basename(s["worksheet"]))
        try:
            missing, empty = write_worksheet(s["worksheet"], dest, rows, max_points)
        except Usage as e:
            missing, empty = [], []
            warn.append(f"the worksheet is not written back: {e}")
        rec["worksheet"] = {"written": dest, "graded_not_in_worksheet": missing,
                            "in_worksheet_not_graded": [n for n, _ in empty]}
        if missing:
            warn.append("graded but not in the worksheet (no grade written for them): "
                        + ", ".join(missing))
        submitted = [n for n, st in empty if not st.lower().startswith("no submission")]
        if submitted:  # Moodle says they submitted, yet no folder of theirs was graded
            warn.append("in the worksheet with a submission but not graded (left as they "
                        "were): " + ", ".join(submitted))
    dest = os.path.join(out, "canvas_gradebook.csv")
    if s["canvas_gradebook"]:  # the course's export: written back, filled
        others, empty = write_canvas_export(s["canvas_gradebook"], dest, rows, max_points,
                                            s["canvas_assignment"])
        rec["canvas"] = {"written": dest, "not_written": others, "in_export_not_graded": empty}
        if others:
            warn.append("graded but not in the Canvas export (no points written for them): "
                        + ", ".join(others))
    elif any(r["lms"] == "canvas" for r in rows):
        others = write_canvas(dest, rows, max_points, s["canvas_assignment"])
        rec["canvas"] = {"written": dest, "not_written": others}
        if others:
            warn.append("not in canvas_gradebook.csv (no Canvas user id in their file names): "
                        + ", ".join(others))
    for w in warn:
        sys.stderr.write(f"grade_class: warning: {w}\n")
    return warn, rec


def write_outputs(out, a, s, rubric, dev, subs, rows, fbs, speeds, took, record, warnings, secs):
    progs = {}
    names = [x[0] for x in subs]
    for student, sid, path, _, _ in subs:
        if path:  # two students of one name are told apart by their ids
            progs[student if names.count(student) == 1 else f"{student} ({sid})"] = source(path)
    sims = similarity(progs, s["similarity"])
    meaningful = speed_meaningful(dev)
    maxp = fmt_points(rubric["max_points"])
    write_csv(os.path.join(out, "gradebook.csv"),
              ["id", "student", "verdict", "points", "max_points", "late", "reason", "replay"],
              [[r["id"], r["student"], r["verdict"], r["points"], maxp, r["late"], r["reason"],
                r["replay"]] for r in rows])
    write_csv(os.path.join(out, "similarity.csv"),
              ["student_a", "student_b", "kind", "score", "shared_lines_a", "shared_lines_b"],
              [[x, y, k, "" if sc is None else "%.3f" % sc, ranges(la), ranges(lb)]
               for x, y, k, sc, la, lb in sims])
    write_csv(os.path.join(out, "speed.csv"),
              ["student", "ratio", "min", "max", "rounds", "meaningful"],
              [[st] + (["%.3f" % v[0], "%.3f" % v[1], "%.3f" % v[2], v[3]] if v else ["", "", "", 0])
               + ["yes" if meaningful else "no"] for st, v in sorted(speeds.items())])
    write_csv(os.path.join(out, "times.csv"), ["student", "seconds"], took)
    lms_warnings, lms = lms_outputs(out, s, rows, rubric["max_points"])
    warnings += lms_warnings
    seed = (f"grade seed {s['seed']} (--seed {s['seed']} repeats this grading)" if s["drawn"]
            else "a grader without drawn sizes: its matrix is fixed")
    with open(os.path.join(out, "run.json"), "w", encoding="utf-8") as f:
        json.dump({"tool": "grade_class.py", "date": datetime.datetime.now(
            datetime.timezone.utc).isoformat(timespec="seconds"), "grader": s["ocr"], **dev,
            "settings": s, "seed": s["seed"], "seed_note": seed, "rubric": rubric,
            "speed_meaningful": meaningful, "warnings": warnings, "lms": lms,
            "seconds": round(secs, 1), "submissions": record}, f, indent=1)
        f.write("\n")
    report_html(os.path.join(out, "report.html"), rows, sims, speeds, dev, s, rubric, fbs,
                meaningful, {"warnings": warnings, "seed": seed, "sources": progs})
    progress(f"grade_class: {len(subs)} submissions in {secs:.0f} s: "
             f"{os.path.join(out, 'gradebook.csv')}")
    if sys.stderr.isatty():
        sys.stderr.write("\n")


def main(argv):
    global CHILD_ENV
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    lock, tmp = None, None
    try:
        a, s = options(argv)
        out = a.outdir or os.path.normpath(a.dir) + "-grades"
        inside(out, a.dir)
        try:
            s["ocr"] = find_grader()
        except RuntimeError as e:
            sys.stderr.write(f"grade_class: {e}\n")
            return 3
        # The tool's own temporary folder, for the grader and its children too.
        tmp = tempfile.mkdtemp(prefix="grade_class-")
        CHILD_ENV = dict(os.environ, TMPDIR=tmp)
        held = {}
        try:
            return grade_class(a, s, s["ocr"], out, held)
        finally:
            lock = held.get("lock")
    except Usage as e:
        sys.stderr.write(f"grade_class: {e}\n")
        return 2
    except Stopped as e:
        sys.stderr.write(f"\ngrade_class: stopped by {signal.Signals(e.signum).name}; the output "
                         "folder is incomplete\n")
        return 128 + e.signum
    except OSError as e:
        sys.stderr.write(f"grade_class: {e.filename or ''}: {e.strerror}\n")
        return 3
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        if lock is not None:
            os.close(lock)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
