"""grade_class_input.py - what classroom/grade_class.py reads: its settings and
rubric files, the class folder's submissions and the LMS worksheet's times.
Every file is read with a bound and only if it is a regular file, so a FIFO,
a device or a huge file is a clear error, never a hang; a link that leaves
the class folder is never read (docs/labs/grading.md, "A whole class")."""
import csv
import datetime
import io
import os
import re
import stat

from grade_class_archive import SOURCES, is_archive

VERDICTS = ("PASS", "PASS_UNCHECKED", "WRONG", "BUILD_ERROR", "OUT_OF_BOUNDS", "CRASH",
            "TIMEOUT", "RACE", "UNINITIALIZED", "ERROR", "NO_SUBMISSION")
TYPES = ("int", "uint", "long", "ulong", "float", "double")
OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
# The (type, op) value cases of the grader's fixed matrix (docs/labs/grading.md,
# "The matrix"), for a grader that cannot list its cases (--grade --list-cases).
DOCUMENTED_MATRIX = (("int", "sum"), ("int", "prod"), ("int", "max"), ("long", "sum"),
                     ("long", "min"), ("long", "xor"), ("float", "sum"), ("float", "max"),
                     ("float", "prod"))
TEXT_CAP = 64 * 1024  # a settings file or rubric is a few lines
SOURCE_CAP = 1 << 20  # a kernel file
SHEET_CAP = 16 << 20  # an LMS worksheet of a large class
# Settings file keys: name -> (type, default, smallest, largest)
SETTINGS = {
    "kernel": (str, "my_reduce", None, None),
    "elems": (int, 1024, 1, 1 << 20),
    "local": (int, 64, 1, 1024),
    "timeout": (int, 0, 0, 3600),
    "deadline": (str, "", None, None),
    "worksheet": (str, "", None, None),
    "timezone": (str, "UTC", None, None),
    "rubric": (str, "", None, None),
    "speed_runs": (int, None, 0, 100),  # None: 5 where the timing means something (below)
    "jobs": (int, 1, 1, 64),
    "speed_size": (int, 1 << 22, 1, 1 << 28),
    "similarity": (float, 0.8, 0.0, 1.0),
    "seed": (int, None, 0, (1 << 64) - 1),
    "types": (str, "", None, None),
    "build_options": (str, "", None, None),
    "canvas_assignment": (str, "oclReduction", None, None),
    "canvas_gradebook": (str, "", None, None),
    "ops": (str, "", None, None),
    "platform": (str, "", None, None), "device": (str, "", None, None),
    "device_type": (str, "", None, None),
}
PATH_KEYS = ("rubric", "worksheet", "canvas_gradebook")  # relative to the settings file


class Usage(Exception):
    """A usage error: exit 2 with the message."""


def read_bounded(path, cap, what):
    """The bytes of the regular file PATH, at most CAP of them. Opened without
    blocking, so a FIFO or a device is refused, never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise Usage(f"{path}: cannot read the {what}: {e.strerror}")
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Usage(f"{path}: the {what} is not a regular file")
        data = f.read(cap + 1)
    if len(data) > cap:
        raise Usage(f"{path}: the {what} is larger than {cap >> 10} KiB")
    return data


def read_text(path, what, cap=TEXT_CAP):
    """PATH's text as UTF-8 (a BOM dropped); an error names the line."""
    data = read_bounded(path, cap, what)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise Usage(f"{path}:{line}: the {what} is not UTF-8 text (byte 0x{data[e.start]:02x})")
    if "\0" in text:
        line = text[:text.index("\0")].count("\n") + 1
        raise Usage(f"{path}:{line}: the {what} holds a NUL byte: not a text file")
    return text


def setting_value(key, val, where):
    kind, _, lo, hi = SETTINGS[key]
    if kind is str:
        return val
    try:
        x = kind(val)
    except ValueError:
        what = {int: "a whole number", float: "a number"}[kind]
        raise Usage(f"{where}: {key} wants {what}, not '{val}'")
    if not lo <= x <= hi:  # also refuses nan
        raise Usage(f"{where}: {key} is from {lo} to {hi}, not {val}")
    return x


def read_settings(path):
    out = {}
    for no, line in enumerate(read_text(path, "settings file").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, eq, val = (x.strip() for x in line.partition("="))
        if not eq or key not in SETTINGS:
            raise Usage(f"{path}:{no}: expected KEY = VALUE with KEY one of {', '.join(SETTINGS)}")
        out[key] = setting_value(key, val, f"{path}:{no}")
    for key in PATH_KEYS:
        if out.get(key):
            out[key] = os.path.join(os.path.dirname(os.path.abspath(path)), out[key])
    return out


def number(s, where, most=1e6):
    try:
        x = float(s)
    except ValueError:
        raise Usage(f"{where}: '{s}' is not a number")
    if not 0 <= x <= most:  # also refuses nan and inf
        raise Usage(f"{where}: '{s}' is not a number of points (0 to {most:g})")
    return x


def read_rubric(path, graded):
    """The rubric (docs/labs/rubric.example): points per verdict, partial
    credit per case group for some verdicts, a late penalty. A group the
    matrix does not grade (GRADED: its (type, op) pairs) could never pay."""
    r = {"max_points": 10.0, "verdict": {"PASS": 10.0, "PASS_UNCHECKED": 10.0}, "partial": [],
         "groups": [], "late_penalty": 0.0, "file": path or "(built in)"}
    if not path:
        return r
    r["verdict"] = {}
    for no, raw in enumerate(read_text(path, "rubric").splitlines(), 1):
        w = raw.split("#", 1)[0].split()
        where = f"{path}:{no}"
        if not w:
            continue
        if w[0] == "max_points" and len(w) == 2:
            r["max_points"] = number(w[1], where)
        elif w[0] == "verdict" and len(w) == 3 and w[1] in VERDICTS:
            r["verdict"][w[1]] = number(w[2], where)
        elif w[0] == "partial" and len(w) >= 2 and all(v in VERDICTS for v in w[1:]):
            r["partial"] += w[1:]
        elif w[0] == "group" and len(w) == 4 and w[1] in TYPES and w[2] in OPS:
            if (w[1], w[2]) not in graded:
                raise Usage(f"{where}: no {w[1]} {w[2]} case is graded, so this group could never "
                            "pay (graded: " + ", ".join(f"{t} {o}" for t, o in graded) + ")")
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


# ---- submissions --------------------------------------------------------------------------

def who(name):
    """LMS folder names carry an id: 'Smith, John_12345_assignsubmission_file_'."""
    m = re.match(r"^(.*?)_(\d+)_", name, re.S)
    return (m.group(1), m.group(2)) if m else (name, name)


def kernel_of(head, kernel):
    """The kernel a file's '// grade: kernel=NAME' line names, else KERNEL."""
    m = re.search(r"grade:.*?kernel=([A-Za-z_]\w*)", head)
    return m.group(1) if m else kernel


def source(path):
    """A submission's text (already checked by refusal())."""
    return read_bounded(path, SOURCE_CAP, "submission").decode("utf-8", "replace")


# A comment, a string or a character literal, as the compiler reads them.
CODE_NOISE = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?', re.S)


def code_of(src):
    """SRC as the compiler sees it, for finding kernels: lines spliced (a
    backslash, blanks and a line end), then each comment a blank and each
    string or character literal emptied: a commented-out kernel is none."""
    src = re.sub(r"\\[ \t\f\v]*\r?\n", "", src)
    return CODE_NOISE.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0)[0] * 2, src)


def defines(path, kernel):
    """Whether PATH's code defines KERNEL (None: any kernel), its own grade
    line (a comment: read from the text as written) heard."""
    src = source(path)
    name = r"\w+" if kernel is None else re.escape(kernel_of(src[:4096], kernel))
    return re.search(r"\b(__)?kernel\s+void\s+" + name + r"\s*\(", code_of(src)) is not None


def refusal(path, root):
    """Why PATH (a file to read, or a folder to walk) is not read, or ''."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    rel = os.path.relpath(path, root)
    if real != top and not real.startswith(top + os.sep):
        return f"{rel} is a link that leaves the class folder (to {real}): not read"
    if re.search(r"[\n\r]", path):
        return (f"the path {rel!r} holds a line break, which the grader cannot name in the "
                "kernel's build: rename it")
    try:
        st = os.stat(path)
    except OSError as e:
        return f"{rel}: {e.strerror}"
    if stat.S_ISDIR(st.st_mode):
        return ""
    if not stat.S_ISREG(st.st_mode):
        return f"{rel} is not a regular file (a FIFO, socket or device): not read"
    if st.st_size > SOURCE_CAP:
        return f"{rel} is larger than {SOURCE_CAP >> 20} MiB: not a kernel"
    return ""


def walk(path, root):
    """The .cl files and the archives under the folder PATH, and the first
    refusal met (a link out of the class or a file that cannot be read
    refuses the whole folder)."""
    cls, packed = [], []
    for d, dirs, files in os.walk(path):
        for n in sorted(dirs + files):
            full = os.path.join(d, n)
            wanted = n in files and (n.endswith(".cl") or is_archive(n))
            if wanted or os.path.islink(full):
                why = refusal(full, root)
                if why:
                    return [], [], why
                if wanted:
                    (cls if n.endswith(".cl") else packed).append(full)
        dirs.sort()
    return sorted(cls), sorted(packed), ""


LISTED = 10  # file names a reason lists (a folder of 10,000 files: one short cell)


def choose(path, cls, kernel):
    """(the file to grade or None, why not) among the .cl files CLS of the
    student's folder PATH: the only one, else the one that defines KERNEL,
    else the only one with any kernel."""
    named = [f for f in cls if defines(f, kernel)]
    kernels = [f for f in cls if defines(f, None)]
    if len(cls) == 1:
        return cls[0], ""
    if len(named) == 1 or (not named and len(kernels) == 1):
        return (named or kernels)[0], ""
    if not cls:
        return None, "no .cl file in the folder"
    shown = [os.path.relpath(f, path) for f in cls[:LISTED]]
    more = f" and {len(cls) - LISTED} more" if len(cls) > LISTED else ""
    return None, "%d .cl files, %s define kernel %s: %s%s" % (
        len(cls), len(named) or "none", kernel, ", ".join(shown), more)


# Canvas's "Download Submissions": one flat folder, every file named
# lastnamefirstname[_LATE]_USERID_ATTACHMENTID_uploadedname (the name in
# lower case letters only; LATE when Canvas marked the submission late).
CANVAS = re.compile(r"^([a-z]+)(_LATE)?_(\d+)_(\d+)_(.+)$", re.S)


def canvas_name(name):
    """(student, Canvas user id, late, the uploaded file's name) of a Canvas
    download's file name, or None."""
    m = CANVAS.match(name)
    return (m.group(1), m.group(3), bool(m.group(2)), m.group(5)) if m else None


def wanted_file(name):
    return name.endswith(".cl") or is_archive(name)


def submissions(root, kernel):
    """(student, id, file or None, why not, meta) for every entry of ROOT, in
    name order. META: 'late' (Canvas's marker: True, False, or None where
    the export has none), 'pending' [(source, name)] to copy or unpack into
    the student's own folder before grading (an archive, or a Canvas
    student's several files; grade_class.py's materialise), 'lms'."""
    subs, canvas = [], {}
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.startswith("."):
            continue
        is_dir = os.path.isdir(path)
        c = None if is_dir else canvas_name(name)
        if c and (wanted_file(name) or name.endswith(SOURCES)):
            why = refusal(path, root)
            if (c[0], c[1]) not in canvas:  # its row where its first file is
                canvas[(c[0], c[1])] = {"late": False, "files": [], "why": "", "at": len(subs)}
                subs.append(None)
            g = canvas[(c[0], c[1])]
            g["late"] |= c[2]
            g["why"] = g["why"] or why
            g["files"].append((path, c[3]))
            continue
        if not is_dir and not wanted_file(name):
            continue
        stem = name if is_dir else re.sub(r"(?i)(\.cl|\.zip|\.tar\.gz|\.tgz)$", "", name)
        student, sid = who(stem)
        meta = {"late": None, "pending": [], "lms": "moodle" if sid != student else ""}
        why = refusal(path, root)
        if why:
            subs.append((student, sid, None, why, meta))
        elif not is_dir:
            if is_archive(name):
                meta["pending"] = [(path, "")]
            subs.append((student, sid, None if meta["pending"] else path, "", meta))
        else:
            cls, packed, why = walk(path, root)
            if not why and not cls and packed:  # an upload that is an archive
                meta["pending"] = [(p, os.path.relpath(p, path)) for p in packed]
                subs.append((student, sid, None, "", meta))
                continue
            subs.append((student, sid, *(choose(path, cls, kernel) if not why else (None, why)),
                         meta))
    for (student, uid), g in canvas.items():
        meta = {"late": g["late"], "pending": [], "lms": "canvas"}
        files = g["files"]
        if g["why"]:
            subs[g["at"]] = (student, uid, None, g["why"], meta)
        elif len(files) == 1 and files[0][0].endswith(".cl"):
            subs[g["at"]] = (student, uid, files[0][0], "", meta)
        else:
            meta["pending"] = files
            subs[g["at"]] = (student, uid, None, "", meta)
    return subs


# ---- submission times ---------------------------------------------------------------------

SHEET_COLUMN = "Last modified (submission)"
# Moodle writes the worksheet's dates in the downloading user's language and
# format; these are the English ones ("Monday, 24 November 2026, 3:05 PM").
SHEET_FORMATS = ("%A, %d %B %Y, %I:%M %p", "%A, %d %B %Y, %H:%M", "%d %B %Y, %I:%M %p",
                 "%d %B %Y, %H:%M", "%A, %d %B %Y, %I:%M:%S %p", "%Y-%m-%d %H:%M:%S",
                 "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%d/%m/%Y, %H:%M")


def zone_of(text):
    """A time zone: UTC, +HH:MM / -HH:MM, or an IANA name (Europe/Berlin)."""
    if text in ("", "UTC", "Z"):
        return datetime.timezone.utc
    m = re.fullmatch(r"([+-])(\d\d):?(\d\d)", text)
    if m:
        off = datetime.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)))
        return datetime.timezone(off if m.group(1) == "+" else -off)
    try:
        import zoneinfo
        return zoneinfo.ZoneInfo(text)
    except Exception:
        raise Usage(f"timezone '{text}' is not UTC, +HH:MM or a zone name such as Europe/Berlin")


def sheet_time(text, zone, where):
    text = " ".join(text.split())
    for f in SHEET_FORMATS:
        try:
            d = datetime.datetime.strptime(text, f)
        except ValueError:
            continue
        return d.replace(tzinfo=zone).timestamp()
    raise Usage(f"{where}: cannot read the date '{text}' (as Moodle writes it: "
                "'Monday, 24 November 2026, 3:05 PM')")


def is_worksheet(path):
    try:
        head = read_bounded(path, SHEET_CAP, "worksheet")[:4096]
    except Usage:
        return False
    return SHEET_COLUMN.encode() in head.split(b"\n", 1)[0]


def find_worksheet(root):
    """The one top-level CSV file of ROOT with Moodle's submission-time column."""
    found = [os.path.join(root, n) for n in sorted(os.listdir(root))
             if n.lower().endswith(".csv") and not refusal(os.path.join(root, n), root)
             and os.path.isfile(os.path.join(root, n)) and is_worksheet(os.path.join(root, n))]
    if len(found) > 1:
        raise Usage(f"{len(found)} grading worksheets in {root}: name one with --worksheet")
    return found[0] if found else ""


def read_worksheet(path, zone):
    """{'id:N' or 'name:NAME': POSIX time or None (no submission)} from a
    Moodle grading worksheet ("Identifier" is "Participant N")."""
    rows = list(csv.reader(io.StringIO(read_text(path, "worksheet", SHEET_CAP), newline="")))
    if not rows or SHEET_COLUMN not in rows[0]:
        raise Usage(f"{path}:1: no '{SHEET_COLUMN}' column: not a Moodle grading worksheet")
    head = rows[0]
    col = head.index(SHEET_COLUMN)
    idc = head.index("Identifier") if "Identifier" in head else None
    namec = head.index("Full name") if "Full name" in head else None
    times = {}
    for no, r in enumerate(rows[1:], 2):
        if len(r) <= col:
            continue
        val = r[col].strip()
        t = None if val in ("", "-") else sheet_time(val, zone, f"{path}:{no}")
        if idc is not None and len(r) > idc:
            m = re.search(r"(\d+)\s*$", r[idc])
            if m:
                times["id:" + m.group(1)] = t
        if namec is not None and len(r) > namec:
            times["name:" + r[namec].strip()] = t
    return times
