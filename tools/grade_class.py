#!/usr/bin/env python3
"""grade_class.py - a class in one command: every submission in DIR graded by
`oclReduction --grade`, written into OUTDIR for a spreadsheet, an LMS, the
students and the teacher (docs/labs/grading.md, "A whole class").

  grade_class.py [-p P] [-d D] [-t TYPE] [--settings FILE] [--rubric FILE]
                 [--kernel NAME] [--elems E] [--local L] [--timeout S]
                 [--deadline ISO-8601] [--speed-runs K] DIR [OUTDIR]

DIR holds one .cl file per student (the student is the file's name) or one
folder per student, as LMS exports come (the student is the folder's name;
"Name_12345_..." gives student "Name" and id 12345). OUTDIR (default
DIR/grades) receives:
  gradebook.csv   RFC 4180: id,student,verdict,points,max_points,late,reason,replay
                  (reason: the check that decided the verdict; replay: the
                  command that reproduces it). No timing: the same class
                  graded twice gives the same bytes.
  feedback/S.txt  for each student: every failed check with its replay
                  command and the full diagnostics (a cut is always said)
  run.json        grader version, device, driver, OpenCL version, date,
                  settings, rubric, each submission's SHA-256 and time
  similarity.csv  pairs identical after normalising whitespace, comments and
                  names, and near-identical pairs with a score: for the
                  teacher to look at, never a verdict
  speed.csv       kernel time / reduce6's, median of --speed-runs rounds
                  (timing: it varies; never used for points)
  times.csv       seconds each student's grading took
  report.html     one self-contained page with all of the above
  logs/S.log      what the grader and the kernel printed
Settings: command line, then --settings FILE, then the environment (OCR,
GRADE_ELEMS, GRADE_LOCAL, GRADE_TIMEOUT), then defaults. Exit status: 0 when
every submission was graded (whatever the verdicts), 2 for a usage error
(bad settings or rubric: file and line named), 3 when the environment is
broken (the grader said so for some submission).
"""
import argparse
import csv
import datetime
import difflib
import hashlib
import html
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

VERDICTS = ("PASS", "PASS_UNCHECKED", "WRONG", "BUILD_ERROR", "OUT_OF_BOUNDS", "CRASH",
            "TIMEOUT", "RACE", "ERROR", "NO_SUBMISSION")
TYPES = ("int", "uint", "long", "ulong", "float", "double")
OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
LOG_CAP = 32 * 1024
# Settings file keys: name -> (type, default, what)
SETTINGS = {
    "kernel": (str, "my_reduce", "the kernel's name (a student's '// grade: kernel=NAME' line overrides it)"),
    "elems": (int, 1024, "elements per work-group (the teacher's geometry)"),
    "local": (int, 64, "work-items per work-group (the teacher's geometry)"),
    "timeout": (int, 0, "seconds one case may run (0: the grader's default)"),
    "deadline": (str, "", "ISO 8601 date and time; a later file time is late"),
    "rubric": (str, "", "the rubric file (relative to the settings file)"),
    "speed_runs": (int, 5, "rounds of the speed measurement (0: none)"),
    "speed_size": (int, 1 << 22, "elements of the speed measurement"),
    "similarity": (float, 0.9, "the score from which a pair is near-identical"),
    "platform": (str, "", "-p"), "device": (str, "", "-d"), "device_type": (str, "", "-t"),
}
ENV = {"elems": "GRADE_ELEMS", "local": "GRADE_LOCAL", "timeout": "GRADE_TIMEOUT"}


class Usage(Exception):
    """A usage error: exit 2 with the message."""


def progress(msg):
    sys.stderr.write("\r\033[K" + msg if sys.stderr.isatty() else msg + "\n")
    sys.stderr.flush()


# ---- settings and rubric ------------------------------------------------------------------

def read_settings(path):
    out = {}
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, eq, val = (x.strip() for x in line.partition("="))
        if not eq or key not in SETTINGS:
            raise Usage(f"{path}:{no}: expected KEY = VALUE with KEY one of {', '.join(SETTINGS)}")
        try:
            out[key] = SETTINGS[key][0](val)
        except ValueError:
            kind = {int: "a whole number", float: "a number", str: "text"}[SETTINGS[key][0]]
            raise Usage(f"{path}:{no}: {key} wants {kind}, not '{val}'")
    if out.get("rubric"):
        out["rubric"] = os.path.join(os.path.dirname(os.path.abspath(path)), out["rubric"])
    return out


def read_rubric(path):
    """The rubric (docs/labs/rubric.example): points per verdict, partial
    credit per case group for some verdicts, a late penalty."""
    r = {"max_points": 10.0, "verdict": {"PASS": 10.0, "PASS_UNCHECKED": 10.0}, "partial": [],
         "groups": [], "late_penalty": 0.0, "file": path or "(built in)"}
    if not path:
        return r
    r["verdict"] = {}
    for no, raw in enumerate(open(path, encoding="utf-8"), 1):
        w = raw.split("#", 1)[0].split()
        if not w:
            continue
        where = f"{path}:{no}"
        if True:
            if w[0] == "max_points" and len(w) == 2:
                r["max_points"] = number(w[1], where)
            elif w[0] == "verdict" and len(w) == 3 and w[1] in VERDICTS:
                r["verdict"][w[1]] = number(w[2], where)
            elif w[0] == "partial" and len(w) >= 2 and all(v in VERDICTS for v in w[1:]):
                r["partial"] += w[1:]
            elif w[0] == "group" and len(w) == 4 and w[1] in TYPES and w[2] in OPS:
                r["groups"].append((w[1], w[2], number(w[3], where)))
            elif w[0] == "late_penalty" and len(w) == 2 and w[1].endswith("%"):
                r["late_penalty"] = number(w[1][:-1], where) / 100
                if not 0 <= r["late_penalty"] <= 1:
                    raise Usage(f"{where}: late_penalty is a percentage from 0% to 100%")
            else:
                raise Usage(f"{where}: cannot read '{raw.strip()}' (see docs/labs/rubric.example)")
    for v, p in r["verdict"].items():
        if p > r["max_points"]:
            raise Usage(f"{path}: verdict {v} gives {p} points, more than max_points {r['max_points']}")
    return r


def number(s, where):
    try:
        x = float(s)
    except ValueError:
        raise Usage(f"{where}: '{s}' is not a number")
    if not x >= 0 or x == float("inf"):
        raise Usage(f"{where}: '{s}' is not a number of points (0 or more)")
    return x


def points_of(rubric, row, cases):
    """Points for one graded submission, and what they are made of."""
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


def fmt_points(p):
    return ("%.2f" % p).rstrip("0").rstrip(".")


# ---- submissions --------------------------------------------------------------------------

def who(name):
    """LMS folder names carry an id: 'Smith, John_12345_assignsubmission_file_'."""
    m = re.match(r"^(.*?)_(\d+)_", name)
    return (m.group(1), m.group(2)) if m else (name, name)


def kernel_of(head, kernel):
    """The kernel a file's '// grade: kernel=NAME' line names, else KERNEL."""
    m = re.search(r"grade:.*?kernel=([A-Za-z_]\w*)", head)
    return m.group(1) if m else kernel


def defines(path, kernel):
    """Whether PATH defines KERNEL (None: any kernel), its own grade line heard."""
    try:
        src = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return False
    name = r"\w+" if kernel is None else re.escape(kernel_of(src[:4096], kernel))
    return re.search(r"\b(__)?kernel\s+void\s+" + name + r"\s*\(", src) is not None


def submissions(root, outdir, kernel):
    """(student, id, file or None, why not) for every entry of ROOT, in name order."""
    subs = []
    skip = os.path.abspath(outdir)
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.startswith(".") or os.path.abspath(path) == skip:
            continue
        if os.path.isfile(path) and name.endswith(".cl"):
            student, sid = who(name[:-3])
            subs.append((student, sid, path, ""))
        elif os.path.isdir(path):
            student, sid = who(name)
            cls = sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
                         if f.endswith(".cl"))
            named = [f for f in cls if defines(f, kernel)]
            kernels = [f for f in cls if defines(f, None)]
            if len(cls) == 1:
                subs.append((student, sid, cls[0], ""))
            elif len(named) == 1 or (not named and len(kernels) == 1):
                subs.append((student, sid, (named or kernels)[0], ""))
            elif not cls:
                subs.append((student, sid, None, "no .cl file in the folder"))
            else:
                subs.append((student, sid, None, "%d .cl files, %s define kernel %s: %s" % (
                    len(cls), len(named) or "none", kernel,
                    ", ".join(os.path.relpath(f, path) for f in cls))))
    return subs


def safe_name(student, taken):
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", student).strip("._") or "student"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


# ---- grading ------------------------------------------------------------------------------

def device_args(s):
    a = []
    for key, flag in (("platform", "-p"), ("device", "-d"), ("device_type", "-t")):
        if s[key]:
            a += [flag, s[key]]
    return a


def grade_one(s, ocr, path):
    """The grader's JSON report (or None), its exit status, its stderr, seconds."""
    kernel, note = s["kernel"], ""
    head = open(path, encoding="utf-8", errors="replace").read(4096)
    m = re.search(r"grade:(.*)", head)
    if m:
        kernel = kernel_of(head, kernel)
        if re.search(r"(^|\s)(elems|local)=", m.group(1)):
            note = (f"grade_class: ignored in '// grade:{m.group(1).rstrip()}': the teacher's "
                    f"geometry is {s['elems']} elements per group, {s['local']} work-items\n")
    cmd = [ocr, "--grade", "--kernel-file", path, "--kernel-name", kernel, "--elems-per-group",
           str(s["elems"]), "-w", str(s["local"]), "--format", "json"] + device_args(s)
    if s["timeout"]:
        cmd += ["--timeout", str(s["timeout"])]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    secs = time.monotonic() - t0
    err = note + p.stderr.decode("utf-8", "replace")
    report = None
    if p.returncode in (0, 1):
        try:
            report = json.loads(p.stdout.decode("utf-8", "replace"))
        except ValueError as e:
            err += f"grade_class: the grader's report is not JSON ({e})\n"
    return report, p.returncode, err, secs


def verdict_row(student, sid, path, why, report, rc, err):
    """The gradebook's fields except points."""
    row = {"id": sid, "student": student, "file": path or "", "late": "", "reason": "",
           "replay": ""}
    if path is None:
        row.update(verdict="NO_SUBMISSION", reason=why)
    elif report is None:
        first = next((l for l in err.splitlines() if l.strip()), "no message")
        row.update(verdict="ERROR", reason=f"the grader exited {rc}: {first}")
    else:
        sm = report["summary"]
        row["verdict"] = sm["verdict"]
        deciding = next((c for c in report["cases"] if c["verdict"] == sm["verdict"]), None)
        if sm["verdict"] == "PASS_UNCHECKED":
            row["reason"] = "every value check passed; races not checked (oclgrind not found)"
        elif sm["verdict"] != "PASS":
            row["reason"] = sm.get("first_failure") or ""
            row["replay"] = deciding["replay"] if deciding else ""
    return row


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


def late_flag(s, path):
    if s["deadline_t"] is None or not path:
        return ""
    return "yes" if os.path.getmtime(path) > s["deadline_t"] else "no"


# ---- speed --------------------------------------------------------------------------------

def kernel_ms(cmd, limit):
    """The median kernel time of one process, or None (failed, or past LIMIT
    seconds: a kernel may pass the grader's sizes and hang at this one)."""
    try:
        p = subprocess.run(cmd + ["--format", "json", "--cpu-baseline", "none", "-r", "10",
                                  "--timeout", str(limit)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=limit + 30)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout)["median"]["t_kernels_ms"]
    except (ValueError, KeyError, TypeError):
        return None


def speed(s, ocr, path, kernel):
    """Median over rounds of (the kernel's time / reduce6's), each round running
    both, alternately first; (median, min, max, rounds) or None."""
    base = [ocr, "--type", "int", "-s", str(s["speed_size"])] + device_args(s)
    mine = base + ["--kernel-file", path, "--kernel-name", kernel, "--elems-per-group",
                   str(s["elems"]), "-w", str(s["local"])]
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


# ---- similarity ---------------------------------------------------------------------------

KEEP = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while bool half size_t ptrdiff_t uchar ushort uint ulong
kernel global local constant private read_only write_only""".split())
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")


def normalise(src):
    """Tokens with comments, whitespace and the program's own names gone
    (each name becomes its order of first use); keywords, types and OpenCL
    built-ins stay, so the program's shape is what is compared."""
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    src = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    names, out = {}, []
    for t in TOKEN.findall(src):
        base = re.sub(r"\d+$", "", t)
        if (t[0].isalpha() or t[0] == "_") and not (
                t in KEEP or base in KEEP or t.startswith(("get_", "CLK_", "__", "atomic_", "vload",
                                                            "vstore", "mem_fence", "barrier"))):
            t = names.setdefault(t, "v%d" % len(names))
        out.append(t)
    return out


def similarity(subs, threshold):
    toks, seen = {}, [s[0] for s in subs]
    for student, sid, path, _ in subs:
        if path:  # two students of one name are told apart by their ids
            key = student if seen.count(student) == 1 else f"{student} ({sid})"
            toks[key] = normalise(open(path, encoding="utf-8", errors="replace").read())
    rows, names = [], sorted(toks)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if toks[a] == toks[b]:
                rows.append((a, b, "identical", 1.0))
                continue
            sm = difflib.SequenceMatcher(None, toks[a], toks[b], autojunk=False)
            if sm.real_quick_ratio() >= threshold and sm.quick_ratio() >= threshold:
                score = sm.ratio()
                if score >= threshold:
                    rows.append((a, b, "near", score))
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return rows


# ---- the device ---------------------------------------------------------------------------

def device_record(s, ocr):
    """What the grader's device is, from one ordinary run on it and --list."""
    rec = {"grader_version": "", "device": "", "platform": "", "driver": "", "opencl": "",
           "type": "", "compute_units": None}
    v = subprocess.run([ocr, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rec["grader_version"] = v.stdout.decode().strip()
    p = subprocess.run([ocr, "-n", "6", "-s", "1024", "-r", "1", "--cpu-baseline", "none",
                        "--format", "json"] + device_args(s),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    msg = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode == 2:  # -p/-d/-t the grader refuses
        raise Usage(msg or "the grader refused the device options")
    if p.returncode == 3:
        raise RuntimeError(msg or "no device")
    try:
        j = json.loads(p.stdout)
        rec.update(device=j["device"], platform=j["platform"], driver=j["driver"],
                   opencl=j["device_version"])
    except (ValueError, KeyError):
        pass
    lst = subprocess.run([ocr, "--list"], stdout=subprocess.PIPE).stdout.decode("utf-8", "replace")
    lines = lst.splitlines()
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


# ---- outputs ------------------------------------------------------------------------------

def cap_text(text, cap=LOG_CAP):
    """TEXT up to CAP bytes, cut at a line's end, the cut said."""
    b = text.encode("utf-8", "replace")
    if len(b) <= cap:
        return text
    head = b[:cap].rsplit(b"\n", 1)[0]
    return head.decode("utf-8", "replace") + f"\n[cut: {len(b) - len(head)} more bytes]\n"


def feedback(row, report, err, max_points):
    f = io.StringIO()
    f.write(f"Student: {row['student']} (id {row['id']})\n")
    f.write(f"Submission: {row['file'] or '(none)'}\n")
    if row.get("sha256"):
        f.write(f"SHA-256: {row['sha256']}\n")
    late = {"yes": " (late)", "no": "", "": ""}[row["late"]]
    f.write(f"Verdict: {row['verdict']}, {row['points']} of {max_points} points{late}\n")
    if row["reason"]:
        f.write(f"Reason: {row['reason']}\n")
    if row["replay"]:
        f.write(f"Replay: {row['replay']}\n")
    failed = [c for c in (report or {}).get("cases", []) if c["verdict"] not in ("PASS", "SKIPPED")]
    if failed:
        f.write(f"\nFailed checks ({len(failed)}):\n")
        seen = set()
        for c in failed:
            what = (f"{c['type']} {c['op']} n={c['n']}" if c["check"] == "value"
                    else f"race check {c['type']} n={c['n']}")
            f.write(f"\n- {what} ({c['local_size']} x {c['elems_per_group']}): {c['verdict']}")
            if c["check"] == "value" and c["verdict"] == "WRONG":
                f.write(f", got {c['result']}, expected {c['expected']} ({c['data']} data)")
            f.write(f"\n  replay: {c.get('replay', '')}\n")
            if c["detail"]:
                if c["detail"] in seen:
                    f.write("  (the same diagnostics as above)\n")
                else:
                    seen.add(c["detail"])
                    f.write("  " + c["detail"].replace("\n", "\n  ") + "\n")
    if err.strip():
        f.write("\nWhat the grader and the kernel printed:\n" + cap_text(err))
    return f.getvalue()


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        w.writerow(header)
        w.writerows(rows)


def svg_speed(speeds, meaningful):
    rows = [(s, v[0]) for s, v in speeds.items() if v]
    if not rows:
        return "<p>No speed measured (no passing kernel, or --speed-runs 0).</p>"
    top = max(max(r for _, r in rows), 1.0) * 1.1
    h, out = 22 * len(rows) + 30, []
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="640" height="{h}" role="img" '
               'aria-label="kernel time / reduce6 time">')
    x1 = 180 + 440 / top
    for i, (s, r) in enumerate(sorted(rows)):
        y = 10 + 22 * i
        out.append(f'<text x="175" y="{y + 14}" text-anchor="end">{html.escape(s)}</text>')
        out.append(f'<rect x="180" y="{y}" width="{440 * r / top:.1f}" height="16" '
                   f'class="{"bar" if meaningful else "bar dim"}"/>')
        out.append(f'<text x="{184 + 440 * r / top:.1f}" y="{y + 13}">{r:.2f}</text>')
    out.append(f'<line x1="{x1:.1f}" y1="5" x2="{x1:.1f}" y2="{h - 15}" class="ref"/>')
    out.append(f'<text x="{x1:.1f}" y="{h - 2}" text-anchor="middle">1.0 = reduce6</text></svg>')
    return "\n".join(out)


STYLE = """body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}
td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left;vertical-align:top}
.PASS{background:#cfc}.PASS_UNCHECKED{background:#efc}.bad{background:#fcc}
pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}.bar{fill:#48c}.dim{fill:#bbb}
.ref{stroke:#c00;stroke-dasharray:4}code{word-break:break-all}"""


def report_html(path, rows, sims, speeds, dev, settings, rubric, fbs, meaningful):
    e = html.escape
    o = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         "<title>oclReduction class report</title>", f"<style>{STYLE}</style></head><body>",
         "<h1>Class report</h1>",
         f"<p>{e(dev['grader_version'])} on {e(dev['device'])} ({e(dev['platform'])}, driver "
         f"{e(dev['driver'])}, {e(dev['opencl'])}); kernel <code>{e(settings['kernel'])}</code>, "
         f"{settings['elems']} elements per group, {settings['local']} work-items; rubric "
         f"{e(rubric['file'])}.</p>", "<h2>Verdicts</h2><table><tr><th>id</th><th>student</th>"
         "<th>verdict</th><th>points</th><th>late</th><th>reason</th></tr>"]
    for i, r in enumerate(rows):
        cls = r["verdict"] if r["verdict"].startswith("PASS") else "bad"
        o.append(f'<tr><td>{e(r["id"])}</td><td><a href="#s{i}">{e(r["student"])}'
                 f'</a></td><td class="{cls}">{e(r["verdict"])}</td><td>{r["points"]} / '
                 f'{fmt_points(rubric["max_points"])}</td><td>{e(r["late"])}</td>'
                 f'<td>{e(r["reason"])}</td></tr>')
    o.append("</table><h2>Similarity</h2><p>Pairs to look at, never a verdict: identical after "
             "removing comments and whitespace and renaming every name, or near-identical by "
             "token similarity. Kernels that all start from one starter file are alike by "
             "design.</p>")
    if sims:
        o.append("<table><tr><th>student</th><th>student</th><th>kind</th><th>score</th></tr>")
        o += [f"<tr><td>{e(a)}</td><td>{e(b)}</td><td>{k}</td><td>{s:.3f}</td></tr>"
              for a, b, k, s in sims]
        o.append("</table>")
    else:
        o.append("<p>No pair reached the threshold.</p>")
    o.append("<h2>Speed</h2><p>Kernel time / reduce6's at the same size, median of the rounds "
             "(lower is faster). Timing: never used for points.")
    if not meaningful:
        o.append(f" <strong>Not meaningful on this device</strong>: a CPU device with "
                 f"{dev['compute_units']} compute units (fewer than 4) times other load as much "
                 f"as the kernels.")
    o.append("</p>" + svg_speed(speeds, meaningful) + "<h2>Feedback</h2>")
    for i, r in enumerate(rows):
        o.append(f'<h3 id="s{i}">{e(r["student"])}: {e(r["verdict"])}</h3>')
        if r["replay"]:
            o.append(f"<p>Replay: <code>{e(r['replay'])}</code></p>")
        o.append(f"<pre>{e(fbs[i])}</pre>")
    o.append("</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(o))


# ---- main ---------------------------------------------------------------------------------

def options(argv):
    ap = argparse.ArgumentParser(prog="grade_class.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("-p", dest="platform")
    ap.add_argument("-d", dest="device")
    ap.add_argument("-t", dest="device_type")
    ap.add_argument("--settings")
    ap.add_argument("--rubric")
    ap.add_argument("--kernel")
    ap.add_argument("--elems", type=int)
    ap.add_argument("--local", type=int)
    ap.add_argument("--timeout", type=int)
    ap.add_argument("--deadline")
    ap.add_argument("--speed-runs", type=int, dest="speed_runs")
    a = ap.parse_args(argv)
    s = {k: v[1] for k, v in SETTINGS.items()}
    for key, var in ENV.items():
        if os.environ.get(var):
            try:
                s[key] = int(os.environ[var])
            except ValueError:
                raise Usage(f"{var}={os.environ[var]} is not a whole number")
    if a.settings:
        s.update(read_settings(a.settings))
    for key in SETTINGS:
        if getattr(a, key, None) is not None:
            s[key] = getattr(a, key)
    if a.rubric:
        s["rubric"] = a.rubric
    for key in ("elems", "local"):
        if s[key] < 1:
            raise Usage(f"{key} must be at least 1, not {s[key]}")
    if s["speed_runs"] < 0 or not 0 <= s["timeout"] <= 3600:
        raise Usage("--speed-runs is 0 or more, --timeout from 0 (the grader's) to 3600 seconds")
    s["deadline_t"] = deadline_of(s["deadline"])
    if not os.path.isdir(a.dir):
        raise Usage(f"{a.dir} is not a directory")
    return a, s


def main(argv):
    try:
        a, s = options(argv)
        rubric = read_rubric(s["rubric"])
    except (Usage, OSError) as e:
        sys.stderr.write(f"grade_class: {e}\n")
        return 2
    ocr = os.environ.get("OCR") or shutil.which("oclReduction") or "oclReduction"
    out = a.outdir or os.path.join(a.dir, "grades")
    subs = submissions(a.dir, out, s["kernel"])
    if not subs:
        sys.stderr.write(f"grade_class: no .cl files or student folders in {a.dir}\n")
        return 2
    try:
        dev = device_record(s, ocr)
    except Usage as e:
        sys.stderr.write(f"grade_class: {e}\n")
        return 2
    except (RuntimeError, OSError) as e:
        sys.stderr.write(f"grade_class: the grader cannot run: {e}\n")
        return 3
    for d in ("feedback", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    rows, fbs, speeds, times, record, taken, rc = [], [], {}, [], [], set(), 0
    t_start = time.monotonic()
    for i, (student, sid, path, why) in enumerate(subs, 1):
        progress(f"grade_class: {i}/{len(subs)} {student} ({time.monotonic() - t_start:.0f} s)")
        report, grc, err, secs = grade_one(s, ocr, path) if path else (None, 0, "", 0.0)
        if grc == 3:
            rc = 3
        row = verdict_row(student, sid, path, why, report, grc, err)
        row["late"] = late_flag(s, path)
        row["sha256"] = hashlib.sha256(open(path, "rb").read()).hexdigest() if path else ""
        row["points"] = fmt_points(points_of(rubric, row, (report or {}).get("cases", [])))
        if row["verdict"] in ("PASS", "PASS_UNCHECKED") and s["speed_runs"]:
            speeds[student] = speed(s, ocr, path, report["kernel_name"])
        name = safe_name(student, taken)
        fb = feedback(row, report, err, fmt_points(rubric["max_points"]))
        open(os.path.join(out, "feedback", name + ".txt"), "w", encoding="utf-8").write(fb)
        open(os.path.join(out, "logs", name + ".log"), "w", encoding="utf-8").write(err)
        rows.append(row), fbs.append(fb), times.append((student, "%.1f" % secs))
        record.append({k: row[k] for k in ("student", "id", "file", "sha256", "verdict", "points",
                                           "late")} | {"seconds": round(secs, 1), "files": name,
                       "mtime": (datetime.datetime.fromtimestamp(os.path.getmtime(path),
                                 datetime.timezone.utc).isoformat() if path else None)})
    sims = similarity(subs, s["similarity"])
    meaningful = speed_meaningful(dev)
    write_csv(os.path.join(out, "gradebook.csv"),
              ["id", "student", "verdict", "points", "max_points", "late", "reason", "replay"],
              [[r["id"], r["student"], r["verdict"], r["points"], fmt_points(rubric["max_points"]),
                r["late"], r["reason"], r["replay"]] for r in rows])
    write_csv(os.path.join(out, "similarity.csv"), ["student_a", "student_b", "kind", "score"],
              [[x, y, k, "%.3f" % sc] for x, y, k, sc in sims])
    write_csv(os.path.join(out, "speed.csv"),
              ["student", "ratio", "min", "max", "rounds", "meaningful"],
              [[st] + (["%.3f" % v[0], "%.3f" % v[1], "%.3f" % v[2], v[3]] if v else ["", "", "", 0])
               + ["yes" if meaningful else "no"] for st, v in sorted(speeds.items())])
    write_csv(os.path.join(out, "times.csv"), ["student", "seconds"], times)
    with open(os.path.join(out, "run.json"), "w", encoding="utf-8") as f:
        json.dump({"tool": "grade_class.py", "date": datetime.datetime.now(
            datetime.timezone.utc).isoformat(timespec="seconds"), "grader": ocr, **dev,
            "settings": s, "rubric": rubric, "speed_meaningful": meaningful,
            "seconds": round(time.monotonic() - t_start, 1), "submissions": record}, f, indent=1)
        f.write("\n")
    report_html(os.path.join(out, "report.html"), rows, sims, speeds, dev, s, rubric, fbs,
                meaningful)
    progress(f"grade_class: {len(subs)} submissions in {time.monotonic() - t_start:.0f} s: "
             f"{os.path.join(out, 'gradebook.csv')}")
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
