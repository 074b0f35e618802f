"""grade_class_report.py - what classroom/grade_class.py writes for people: the
feedback files, the CSV files (RFC 4180, formulas neutralised) and the
self-contained report.html (docs/labs/grading.md, "A whole class")."""
import csv
import html
import io

from grade_class_similar import ranges, shared_text

LOG_CAP = 32 * 1024
# A spreadsheet evaluates a cell that begins with one of these (OWASP, "CSV
# injection"), quoted or not: such a field gets a leading "'".
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def fmt_points(p):
    return ("%.2f" % p).rstrip("0").rstrip(".")


def neutral(field):
    s = str(field)
    return "'" + s if s.startswith(FORMULA_START) else s


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        w.writerow(header)
        w.writerows([neutral(x) for x in r] for r in rows)


def tool_failures(report):
    """What the checking tool (oclgrind), not the kernel, failed at: one line
    per race check (the grader's checker_failed cases and its retries)."""
    out = []
    for c in (report or {}).get("cases", []):
        detail = (c.get("detail") or "").strip()
        first = detail.splitlines()[0] if detail else ""
        if c.get("checker_failed") or ("failed (signal" in first and "checked without" in first):
            out.append(f"race check {c.get('type', '')} n={c.get('n', '')}: {first}")
    return out


def tool_cell(row):
    n = len(row.get("tools", []))
    return f"<br><em>tool failure{'s' * (n > 1)}: {n} race check{'s' * (n > 1)} the checker " \
           "could not run (not counted against the kernel)</em>" if n else ""


def not_graded(report):
    return ["%s %s (%s)" % (c.get("type", ""), c.get("op", ""), c.get("why", ""))
            for c in (report or {}).get("not_graded", [])]


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
    if (report or {}).get("regrade"):
        f.write(f"Regrade: {report['regrade']}\n")
    summary = (report or {}).get("summary", {})
    failed = [c for c in (report or {}).get("cases", []) if c["verdict"] not in ("PASS", "SKIPPED")]
    if failed and summary.get("feedback"):
        # The grader's own feedback: the first failing case, the rule it
        # breaks, its replay and a count of the rest (a few KB, where a list
        # of every case ran to 150 KB for a BUILD_ERROR or a TIMEOUT).
        f.write("\n" + summary["feedback"].rstrip("\n") + "\n")
    elif failed:
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
    tools = tool_failures(report)
    if tools:
        f.write(f"\nTool failures ({len(tools)}), not the kernel's and not counted against it:\n")
        f.writelines(f"- {t}\n" for t in tools)
    skipped = not_graded(report)
    if skipped:
        f.write("\nNot graded: " + ", ".join(skipped) + "\n")
    if err.strip():
        f.write("\nWhat the grader and the kernel printed:\n" + cap_text(err))
    return f.getvalue()


def svg_speed(speeds, meaningful, note=""):
    rows = [(s, v[0]) for s, v in speeds.items() if v]
    if not rows:
        why = note or "no passing kernel, or --speed-runs 0"
        return f"<p>No speed measured ({html.escape(why)}).</p>"
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
.ref{stroke:#c00;stroke-dasharray:4}code{word-break:break-all}.warn{background:#ffd;padding:.3em}"""


def report_html(path, rows, sims, speeds, dev, settings, rubric, fbs, meaningful, notes):
    """NOTES: {"warnings": [...], "seed": text, "sources": {student: source text}}."""
    e = html.escape
    o = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         "<title>oclReduction class report</title>", f"<style>{STYLE}</style></head><body>",
         "<h1>Class report</h1>",
         f"<p>{e(dev['grader_version'])} on {e(dev['device'])} ({e(dev['platform'])}, driver "
         f"{e(dev['driver'])}, {e(dev['opencl'])}); kernel <code>{e(settings['kernel'])}</code>, "
         f"{settings['elems']} elements per group, {settings['local']} work-items; rubric "
         f"{e(rubric['file'])}; {e(notes['seed'])}.</p>"]
    o += [f'<p class="warn"><strong>Warning:</strong> {e(w)}</p>' for w in notes["warnings"]]
    o += ["<h2>Verdicts</h2><table><tr><th>id</th><th>student</th>"
          "<th>verdict</th><th>points</th><th>late</th><th>reason</th></tr>"]
    for i, r in enumerate(rows):
        cls = r["verdict"] if r["verdict"].startswith("PASS") else "bad"
        o.append(f'<tr><td>{e(r["id"])}</td><td><a href="#s{i}">{e(r["student"])}'
                 f'</a></td><td class="{cls}">{e(r["verdict"])}</td><td>{r["points"]} / '
                 f'{fmt_points(rubric["max_points"])}</td><td>{e(r["late"])}</td>'
                 f'<td>{e(r["reason"])}{tool_cell(r)}</td></tr>')
    o.append("</table><h2>Similarity</h2><p>Pairs to look at, never a verdict: identical after "
             "removing comments, whitespace and optional braces, renaming every name and "
             "normalising numbers (the same statements, in any order), or near-identical: the "
             "share of statement tokens in common, in any order; the shared lines are "
             "numbered as in each file. Kernels that all start from one starter file are alike by "
             "design.</p>")
    if sims:
        o.append("<table><tr><th>student</th><th>student</th><th>kind</th><th>score</th>"
                 "<th>shared lines</th></tr>")
        for a, b, k, sc, la, lb in sims:
            if sc is None:  # a file without a statement: compared with none
                o.append(f"<tr><td>{e(a)}</td><td></td><td>{k}</td><td>no score</td><td>"
                         "no statement to compare (empty, comments or #include only)</td></tr>")
                continue
            o.append(f"<tr><td>{e(a)}</td><td>{e(b)}</td><td>{k}</td><td>{sc:.3f}</td><td>"
                     f"<details><summary>{e(ranges(la))} | {e(ranges(lb))}</summary><pre>"
                     f"{e(shared_text(notes['sources'][a], la))}</pre></details></td></tr>")
        o.append("</table>")
    else:
        o.append("<p>No pair reached the threshold.</p>")
    o.append("<h2>Speed</h2><p>Kernel time / reduce6's at the same size, median of the rounds "
             "(lower is faster). Timing: never used for points.")
    if not meaningful:
        o.append(f" <strong>Not meaningful on this device</strong>: a CPU device with "
                 f"{dev['compute_units']} compute units (fewer than 4) times other load as much "
                 f"as the kernels.")
    o.append("</p>" + svg_speed(speeds, meaningful, settings.get("speed_note", ""))
             + "<h2>Feedback</h2>")
    for i, r in enumerate(rows):
        o.append(f'<h3 id="s{i}">{e(r["student"])}: {e(r["verdict"])}</h3>')
        if r["replay"]:
            o.append(f"<p>Replay: <code>{e(r['replay'])}</code></p>")
        o.append(f"<pre>{e(fbs[i])}</pre>")
    o.append("</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(o))


