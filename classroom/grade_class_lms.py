"""grade_class_lms.py - the gradebook in the LMSs' own import formats
(docs/labs/grading.md, "Back into the LMS"):

  Moodle: the grading worksheet the teacher downloaded (Assignment, "Download
  grading worksheet": Identifier "Participant N", Full name, Email address,
  Status, Grade, Maximum Grade, ..., Feedback comments) written back whole,
  its columns and rows as they were, with Grade and Feedback comments filled
  for the students graded; Moodle's "Upload grading worksheet" takes it.
  Canvas: a gradebook CSV for Grades, Import: Student, ID, SIS User ID, SIS
  Login ID, Section, then the assignment's column, a "Points Possible" row
  first; ID is the Canvas user id of the download's file names. Given the
  course's own gradebook export (Grades, Export), that file is written back
  instead, cut to its student columns and the assignment's, filled."""
import csv
import io
import re

from grade_class_input import SHEET_CAP, Usage, read_bounded

CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def number(text):
    try:
        return float(text.strip())
    except ValueError:
        return None


def comment(row):
    """The short feedback a worksheet cell gets (feedback/NAME.txt has it all)."""
    why = row["reason"] or ("every check passed" if row["verdict"].startswith("PASS") else "")
    late = " (late)" if row["late"] == "yes" else ""
    return f"{row['verdict']}{late}: {why}" if why else row["verdict"] + late


def read_sheet(path):
    """(rows, BOM, line end) of the worksheet PATH as csv reads it."""
    data = read_bounded(path, SHEET_CAP, "worksheet")
    bom = data.startswith(b"\xef\xbb\xbf")
    text = data[3 if bom else 0:].decode("utf-8", "replace")
    end = "\r\n" if "\r\n" in text else "\n"
    return list(csv.reader(io.StringIO(text, newline=""))), bom, end


def sheet_key(row, head):
    """(participant id, full name) of a worksheet row."""
    get = {h: (row[i] if i < len(row) else "") for i, h in enumerate(head)}
    m = re.search(r"(\d+)\s*$", get.get("Identifier", ""))
    return (m.group(1) if m else None), get.get("Full name", "").strip()


def write_worksheet(src, dest, rows, max_points):
    """DEST: the Moodle worksheet SRC with Grade (points scaled to its Maximum
    Grade) and Feedback comments filled for every graded student it has;
    returns (students graded but not in it, its rows without a graded student
    as (name, Status))."""
    table, bom, end = read_sheet(src)
    if not table or "Grade" not in table[0]:
        raise Usage(f"{src}:1: no 'Grade' column: not a Moodle grading worksheet")
    head = table[0]
    gc, mc = head.index("Grade"), head.index("Maximum Grade") if "Maximum Grade" in head else None
    fc = head.index("Feedback comments") if "Feedback comments" in head else None
    by_id = {r["id"]: r for r in rows}
    by_name = {}
    for r in rows:
        by_name.setdefault(r["student"], []).append(r)
    used, empty = set(), []
    for line in table[1:]:
        pid, name = sheet_key(line, head)
        r = by_id.get(pid) if pid else None
        if r is None and len(by_name.get(name, [])) == 1:
            r = by_name[name][0]
        if r is None or id(r) in used:
            status = line[head.index("Status")] if "Status" in head and len(line) > head.index(
                "Status") else ""
            empty.append((name or pid or "?", status))
            continue
        used.add(id(r))
        line += [""] * (len(head) - len(line))
        scale = number(line[mc]) if mc is not None else None
        pts = float(r["points"])
        if scale is not None and max_points > 0:
            pts = pts * scale / max_points
        line[gc] = "%.2f" % pts
        if fc is not None:
            line[fc] = comment(r)
    with open(dest, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
        csv.writer(f, lineterminator=end).writerows(table)
    return [r["student"] for r in rows if id(r) not in used], empty


def canvas_key(name):
    """A Canvas name as its download's file names spell it: 'Smith, John' and
    'John Smith' are both read as 'smithjohn' (the export's Student is
    'Last, First')."""
    last, comma, first = name.partition(",")
    return re.sub(r"[^a-z]", "", (last + first if comma else name).lower())


def assignment_column(head, assignment, src):
    """The index of ASSIGNMENT's column in the export's header HEAD: its
    exact header ('Lab 3 (4321)') or its name before Canvas's ' (id)'."""
    for i, h in enumerate(head):
        if h == assignment or re.sub(r" \(\d+\)$", "", h) == assignment:
            return i
    cols = [h for h in head[head.index("Section") + 1:] if re.search(r"\(\d+\)$", h)]
    raise Usage(f"{src}:1: no column for the assignment '{assignment}': set canvas_assignment "
                "to one of " + ", ".join(repr(c) for c in cols))


def check_canvas_export(src, assignment):
    """Usage unless SRC reads as a Canvas export with ASSIGNMENT's column
    (checked before grading, not after)."""
    table = read_sheet(src)[0]
    head = table[0] if table else []
    if not all(h in head for h in ("Student", "ID", "Section")):
        raise Usage(f"{src}:1: no Student, ID and Section columns: not a Canvas gradebook export")
    assignment_column(head, assignment, src)


def write_canvas_export(src, dest, rows, max_points, assignment):
    """DEST: Canvas's gradebook export SRC cut to its student columns
    (Student .. Section) and the assignment's, the points (scaled to its
    Points Possible) filled for every graded Canvas student it has, matched
    by ID, else by name; returns (graded but not in it, its students not
    graded)."""
    table, bom, end = read_sheet(src)
    head = table[0] if table else []
    if not all(h in head for h in ("Student", "ID", "Section")):
        raise Usage(f"{src}:1: no Student, ID and Section columns: not a Canvas gradebook export")
    ids, col = head.index("Section") + 1, assignment_column(head, assignment, src)
    by_id = {r["id"]: r for r in rows if r.get("lms") == "canvas"}
    by_name = {}
    for r in rows:
        by_name.setdefault(canvas_key(r["student"]), []).append(r)
    out, used, empty, possible = [head[:ids] + [head[col]]], set(), [], None
    for line in table[1:]:
        line = line + [""] * (len(head) - len(line))
        name, sid = line[0], line[head.index("ID")].strip()
        if not sid:  # Points Possible, Manual Posting: Canvas's own rows, kept
            if name.strip() == "Points Possible":
                possible = number(line[col])
            out.append(line[:ids] + [line[col]])
            continue
        r = by_id.get(sid)
        if r is None and len(by_name.get(canvas_key(name), [])) == 1:
            r = by_name[canvas_key(name)][0]
        if r is None or id(r) in used:
            empty.append(name or sid)
            out.append(line[:ids] + [line[col]])
            continue
        used.add(id(r))
        pts = float(r["points"])
        if possible is not None and max_points > 0:
            pts = pts * possible / max_points
        out.append(line[:ids] + ["%.2f" % pts])
    with open(dest, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
        csv.writer(f, lineterminator=end).writerows(out)
    return [r["student"] for r in rows if id(r) not in used], empty


def write_canvas(dest, rows, max_points, assignment):
    """DEST: a Canvas gradebook import of the students with a Canvas user id;
    the others' names (returned) cannot be matched by Canvas."""
    ok = [r for r in rows if r.get("lms") == "canvas"]
    with open(dest, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(CANVAS_HEAD + [assignment])
        w.writerow(["    Points Possible", "", "", "", "", "%g" % max_points])
        for r in ok:
            w.writerow([r["student"], r["id"], "", "", "", r["points"]])
    return [r["student"] for r in rows if r.get("lms") != "canvas"]
