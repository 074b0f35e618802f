"""grade_class_similar.py - pairs of submissions for the teacher to look at
(docs/labs/grading.md, "similarity.csv"). A program is compared as the
multiset of its statements' fingerprints, after normalising away what a
copier changes for free: comments, layout, preprocessor lines, the names of
its own variables (every one becomes the same placeholder, so renaming and
the order names are first used change nothing), the spelling of a number
(0x10, 16u and 16 are one literal) and optional braces around a single
statement. Statement order is not compared, so moving declarations or
swapping independent lines keeps a copy a copy. Equal multisets are
"identical"; otherwise the score is the share of statement tokens the two
have in common (weighted Dice), so a one-token change costs one statement
and two kernels written apart score well below a copy. A file without a
statement (empty, comments only, only #include lines) gets no score."""
import collections
import re

KEEP = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while bool half size_t ptrdiff_t uchar ushort uint ulong
kernel global local constant private read_only write_only""".split())
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*(?:[eEpP][+-]\d+\w*)?|\.\d[\w.]*|\S")
BUILTIN = ("get_", "CLK_", "__", "atomic_", "vload", "vstore", "mem_fence", "barrier",
           "work_group_", "sub_group_")
TYPES = set("""char double float half int long short bool size_t ptrdiff_t uchar ushort uint ulong
void unsigned signed""".split())
NAME = "$"  # every name of the program's own
TRIVIAL = {"}", ";", "{"}  # statements every program has: no evidence of copying


def strip(src):
    """SRC without comments, strings and preprocessor lines, line breaks kept."""
    def keep_lines(m):
        return "\n" * m.group(0).count("\n") or " "
    src = re.sub(r"/\*.*?(\*/|\Z)|//[^\n]*", keep_lines, src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"(?m)^[ \t]*#.*$", "", src)


def literal(t):
    """A number's value as one spelling: 0x10, 020, 16u and 16UL are '16',
    1.0f and 1.0 are '1.0'; a token that is no number is kept as it is."""
    body = re.sub(r"(?i)(?<![xX\da-fA-F])[uUlL]+$|(?<=[\d.])[fFhH]$", "", t)
    try:
        if re.fullmatch(r"(?i)0x[\da-f]+", body):
            return str(int(body, 16))
        if re.fullmatch(r"0[0-7]+", body):
            return str(int(body, 8))
        if re.fullmatch(r"\d+", body):
            return str(int(body))
        return repr(float(body))
    except ValueError:
        return t


def tokens(src):
    """[(token, line)] with the program's own names made NAME and numbers normalised."""
    out, src = [], strip(src)
    found = [(m.group(0), m.start()) for m in TOKEN.finditer(src)]
    # A type's name declared as a variable ('uint half = ...') is a name.
    declared = {t for (p, _), (t, _) in zip(found, found[1:]) if p in TYPES and t in TYPES
                and p not in ("unsigned", "signed", "long", "short")}
    line, pos = 1, 0
    for t, start in found:
        line += src.count("\n", pos, start)
        pos = start
        if t[0].isdigit() or (t[0] == "." and len(t) > 1):
            t = literal(t)
        elif (t[0].isalpha() or t[0] == "_") and (t in declared or not (
                t in KEEP or re.sub(r"\d+$", "", t) in KEEP or t.startswith(BUILTIN))):
            t = NAME
        out.append((t, line))
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
    """[(fingerprint, weight, lines)]: the statements, split at ';', '{' and
    '}' outside parentheses; the trivial ones ('}' alone) left out. A
    statement's weight is its number of tokens."""
    out, cur, depth = [], [], 0

    def close():
        text = " ".join(x for x, _ in cur)
        if text not in TRIVIAL:
            out.append((text, len(cur), {n for _, n in cur}))

    for t, line in toks:
        cur.append((t, line))
        depth += (t == "(") - (t == ")")
        if t in "{}" or (t == ";" and depth <= 0):
            close()
            cur, depth = [], 0
    if cur:
        close()
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
    """(score, A's shared lines, B's shared lines) of two normalised programs:
    the weighted share of the statements they have in common, in any order."""
    ca = collections.Counter(s for s, _, _ in a)
    cb = collections.Counter(s for s, _, _ in b)
    common = ca & cb
    weight = {s: w for s, w, _ in a + b}
    shared = sum(weight[s] * k for s, k in common.items())
    total = sum(w for _, w, _ in a) + sum(w for _, w, _ in b)
    return 2 * shared / total, shared_lines(a, common), shared_lines(b, common)


def shared_lines(prog, common):
    """The lines of PROG's statements in COMMON, each counted as often as common."""
    left, out = collections.Counter(common), []
    for s, _, lines in prog:
        if left[s] > 0:
            left[s] -= 1
            out += lines
    return out


def similarity(progs, threshold):
    """Rows (a, b, kind, score, a's shared lines, b's shared lines) for every
    pair of PROGS ({name: source}) at least THRESHOLD alike, the most alike
    first; then a row (a, '', 'no statements', None, [], []) for each program
    without a statement, which is compared with none."""
    norm = {k: normalise(v) for k, v in progs.items()}
    empty = sorted(k for k, v in norm.items() if not v)
    rows, names = [], sorted(k for k, v in norm.items() if v)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            score, la, lb = compare(norm[a], norm[b])
            same = sorted(s for s, _, _ in norm[a]) == sorted(s for s, _, _ in norm[b])
            if same:
                rows.append((a, b, "identical", 1.0, la, lb))
            elif score >= threshold:
                rows.append((a, b, "near", score, la, lb))
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return rows + [(a, "", "no statements", None, [], []) for a in empty]


def shared_text(src, lines):
    """The source lines LINES of SRC, numbered, for the report."""
    text = src.split("\n")
    return "\n".join(f"{n:4}  {text[n - 1]}" for n in sorted(set(lines)) if 0 < n <= len(text))
