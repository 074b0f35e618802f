"""grade_class_similar.py - pairs of submissions for the teacher to look at
(docs/labs/grading.md, "similarity.csv"). A program is compared as its
statements after normalising away what a copier changes for free: comments,
layout, preprocessor lines, the names of its own variables (each becomes its
order of first use) and optional braces around a single statement. Equal
normalised programs are "identical"; otherwise the score is the share of
statements the two have in common, in order, so a one-token difference costs
a whole statement and two kernels written apart score well below a copy."""
import difflib
import re

KEEP = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while bool half size_t ptrdiff_t uchar ushort uint ulong
kernel global local constant private read_only write_only""".split())
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
BUILTIN = ("get_", "CLK_", "__", "atomic_", "vload", "vstore", "mem_fence", "barrier",
           "work_group_", "sub_group_")


def strip(src):
    """SRC without comments, strings and preprocessor lines, line breaks kept."""
    keep_lines = lambda m: "\n" * m.group(0).count("\n") or " "
    src = re.sub(r"/\*.*?\*/|//[^\n]*", keep_lines, src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"(?m)^[ \t]*#.*$", "", src)


def tokens(src):
    """[(token, line)] with the program's own names renamed."""
    names, out, src = {}, [], strip(src)
    for m in TOKEN.finditer(src):
        t = m.group(0)
        if (t[0].isalpha() or t[0] == "_") and not (
                t in KEEP or re.sub(r"\d+$", "", t) in KEEP or t.startswith(BUILTIN)):
            t = names.setdefault(t, "v%d" % len(names))
        out.append((t, src.count("\n", 0, m.start()) + 1))
    return out


def drop_optional_braces(toks):
    """Braces after ')', 'else' or 'do' that hold one statement go."""
    out, opened = [], []
    for tok in toks:
        if tok[0] == "{":
            opened.append(len(out))
        elif tok[0] == "}" and opened:
            i = opened.pop()
            body, depth, semis = out[i + 1:], 0, 0
            for t, _ in body:
                depth += (t == "(") - (t == ")")
                semis += t == ";" and depth == 0
            if (i > 0 and out[i - 1][0] in (")", "else", "do") and semis == 1 and body
                    and body[-1][0] == ";" and not any(t in "{}" for t, _ in body)):
                del out[i]
                continue
        out.append(tok)
    return out


def statements(toks):
    """[(statement text, its lines)], split at ';', '{' and '}' outside parentheses."""
    out, cur, depth = [], [], 0
    for t, line in toks:
        cur.append((t, line))
        depth += (t == "(") - (t == ")")
        if t in "{}" or (t == ";" and depth <= 0):
            out.append((" ".join(x for x, _ in cur), {n for _, n in cur}))
            cur, depth = [], 0
    if cur:
        out.append((" ".join(x for x, _ in cur), {n for _, n in cur}))
    return out


def normalise(src):
    return statements(drop_optional_braces(tokens(src)))


def ranges(lines):
    """'3-5, 9' for the sorted line numbers LINES."""
    out, lines = [], sorted(set(lines))
    for n in lines:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def compare(a, b):
    """(score, A's shared lines, B's shared lines) of two normalised programs."""
    sa, sb = [s for s, _ in a], [s for s, _ in b]
    sm = difflib.SequenceMatcher(None, sa, sb, autojunk=False)
    la, lb = [], []
    for i, j, n in sm.get_matching_blocks():
        la += [line for _, lines in a[i:i + n] for line in lines]
        lb += [line for _, lines in b[j:j + n] for line in lines]
    return sm.ratio(), la, lb


def similarity(progs, threshold):
    """Rows (a, b, kind, score, a's shared lines, b's shared lines) for every
    pair of PROGS ({name: source}) at least THRESHOLD alike, the most alike first."""
    norm = {k: normalise(v) for k, v in progs.items()}
    rows, names = [], sorted(norm)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            score, la, lb = compare(norm[a], norm[b])
            if [s for s, _ in norm[a]] == [s for s, _ in norm[b]]:
                rows.append((a, b, "identical", 1.0, la, lb))
            elif score >= threshold:
                rows.append((a, b, "near", score, la, lb))
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return rows


def shared_text(src, lines):
    """The source lines LINES of SRC, numbered, for the report."""
    text = src.split("\n")
    return "\n".join(f"{n:4}  {text[n - 1]}" for n in sorted(set(lines)) if 0 < n <= len(text))
