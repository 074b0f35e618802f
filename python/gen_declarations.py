#!/usr/bin/env python3
"""gen_declarations.py - the ctypes declarations of the oclreduction package,
read from the library's public headers (include/oclreduction/*.h) at build time.

    gen_declarations.py OUT.py HEADER...

The Python layer never repeats a prototype or a constant by hand: every enum
of the headers becomes constants, and the functions in FUNCTIONS (the ones the
package calls) become (restype, argtypes) pairs, with the structs and unions
they take. A declaration that cannot be read, or a type with no ctypes
equivalent, stops the build with its name.

The reader understands the headers' style, not all of C: comments, preprocessor
lines (blocks under `#ifdef __cplusplus` are dropped, other conditionals kept),
`typedef enum/struct/union { ... } name;`, opaque `typedef struct x x;`,
function-pointer typedefs, and one prototype per statement. Upper-case words
before a declaration (an export macro such as OCR_API) and __attribute__((...))
are ignored. tests/python/test_declarations.py checks it on the real headers
and on such variants.
"""
import os
import re
import sys

# The functions the package binds.
FUNCTIONS = [
    "ocr_version", "ocr_status_name", "ocr_type_name", "ocr_op_name", "ocr_type_size",
    "ocr_op_valid_for", "ocr_type_widens_to", "ocr_type_accumulator", "ocr_type_is_storage",
    "ocr_last_error",
    "ocr_reducer_create", "ocr_reducer_create_widening", "ocr_reducer_reduce",
    "ocr_reducer_reduce_async", "ocr_reducer_reduce_into", "ocr_reducer_last_error",
    "ocr_reducer_release", "ocr_reducer_reduce_segments", "ocr_reducer_reduce_rows",
    "ocr_reducer_reduce_columns", "ocr_reducer_reduce_strided", "ocr_reducer_create_custom",
    "ocr_reducer_reduce_custom", "ocr_reducer_reduce_custom_into", "ocr_reducer_custom_size",
    "ocr_reducer_custom_finish", "ocr_reducer_histogram", "ocr_histogram_element_size",
]

# C scalar types -> ctypes names.
SCALARS = {
    "int": "c_int", "unsigned": "c_uint", "unsigned int": "c_uint", "long": "c_long",
    "unsigned long": "c_ulong", "size_t": "c_size_t", "double": "c_double", "float": "c_float",
    "char": "c_char", "int32_t": "c_int32", "uint32_t": "c_uint32", "int64_t": "c_int64",
    "uint64_t": "c_uint64", "cl_int": "c_int32", "cl_uint": "c_uint32", "cl_long": "c_int64",
    "cl_ulong": "c_uint64", "cl_bitfield": "c_uint64", "cl_device_type": "c_uint64",
}
# OpenCL objects and other handles the package passes as addresses.
HANDLES = {"cl_context", "cl_device_id", "cl_command_queue", "cl_mem", "cl_event", "cl_program",
           "cl_kernel", "cl_platform_id", "FILE"}


class HeaderError(Exception):
    pass


def _preprocess(text):
    """The text without comments and preprocessor lines; the lines of
    `#ifdef __cplusplus` blocks are dropped."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    out, live = [], []  # live: one flag per open conditional
    for line in text.split("\n"):
        d = line.strip()
        if d.startswith("#"):
            word = d[1:].strip().split(None, 1)
            word, rest = (word[0], word[1] if len(word) > 1 else "") if word else ("", "")
            if word in ("if", "ifdef", "ifndef"):
                live.append(not (word == "ifdef" and rest.strip() == "__cplusplus"))
            elif word in ("else", "elif") and live:
                cplusplus_block = not live[-1]
                live[-1] = cplusplus_block  # the other branch of a dropped block is kept
            elif word == "endif" and live:
                live.pop()
            continue
        if all(live):
            out.append(line)
    return "\n".join(out)


def _strip_noise(decl):
    decl = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", decl)
    decl = re.sub(r"\bextern\b", " ", decl)
    return " ".join(decl.split())


def _statements(text):
    """Top-level statements (split at ';' outside braces)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ";" and depth == 0:
            out.append(_strip_noise("".join(cur)))
            cur = []
        else:
            cur.append(ch)
    return [s for s in out if s]


def _drop_macros(decl):
    """Leading upper-case words (export macros) before a declaration."""
    words = decl.split(" ")
    while words and re.fullmatch(r"[A-Z][A-Z0-9_]*", words[0]):
        words.pop(0)
    return " ".join(words)


def _enum(body, name, model):
    values, nxt = {}, 0
    for item in filter(None, (x.strip() for x in body.split(","))):
        m = re.fullmatch(r"(\w+)(?:\s*=\s*(.+))?", item)
        if not m:
            raise HeaderError(f"enum {name}: cannot read {item!r}")
        if m.group(2) is not None:
            expr = m.group(2)
            for k, v in {**model["constants"], **values}.items():
                expr = re.sub(rf"\b{k}\b", str(v), expr)
            if not re.fullmatch(r"[-+()0-9xXa-fA-F<>| uUlL]*", expr):
                raise HeaderError(f"enum {name}: cannot evaluate {item!r}")
            nxt = eval(re.sub(r"(?<=[0-9a-fA-F])[uUlL]+", "", expr))  # digits and operators only
        values[m.group(1)] = nxt
        nxt += 1
    model["enums"][name] = values
    model["constants"].update(values)


def _record(kind, body, name, model):
    fields = []
    for f in filter(None, (x.strip() for x in body.split(";"))):
        f = _strip_noise(f)
        # `double lower, upper`: more names of the first one's type (plain
        # names or arrays; a pointer among them is not read).
        first, *more = f.split(",")
        m = re.fullmatch(r"(.+?)\s*\b(\w+)\s*((?:\[\s*\w+\s*\])*)", first.strip())
        decls = [re.fullmatch(r"\s*(\w+)\s*((?:\[\s*\w+\s*\])*)\s*", d) for d in more]
        if not m or "(" in f or not all(decls):
            fields.append((None, f))  # read on use: only a record the package needs must parse
            continue
        ctype = " ".join(m.group(1).split())
        for fname, fdims in [(m.group(2), m.group(3))] + [(d.group(1), d.group(2)) for d in decls]:
            fields.append((fname, (ctype, re.findall(r"\[\s*(\w+)\s*\]", fdims))))
    model["records"][name] = (kind, fields)


def parse(texts):
    """The declarations of the headers' texts: {'enums', 'constants',
    'records', 'opaque' (structs known by address), 'handles' (function
    pointers), 'functions'}."""
    model = {"enums": {}, "constants": {}, "records": {}, "opaque": set(), "handles": set(),
             "functions": {}}
    for text in texts:
        for st in _statements(_preprocess(text)):
            st = _drop_macros(st)
            m = re.fullmatch(r"typedef (enum|struct|union) (?:\w+ )?\{(.*)\} (\w+)", st, re.S)
            if m:
                if m.group(1) == "enum":
                    _enum(m.group(2), m.group(3), model)
                else:
                    _record(m.group(1), m.group(2), m.group(3), model)
                continue
            m = re.fullmatch(r"typedef (?:struct|union) (\w+) (\w+)", st)
            if m:
                model["opaque"].add(m.group(2))
                continue
            m = re.fullmatch(r"typedef .*\(\s*\*\s*(\w+)\s*\)\s*\(.*\)", st)
            if m:
                model["handles"].add(m.group(1))  # a function pointer: an address
                continue
            if st.startswith("typedef"):
                continue
            m = re.fullmatch(r"(.+?)\s*\b(\w+)\s*\((.*)\)", st)
            if m:
                params = [] if m.group(3).strip() in ("", "void") else [
                    _param(p) for p in m.group(3).split(",")]
                model["functions"][m.group(2)] = (" ".join(m.group(1).split()), params)
    return model


def _param(p):
    """The type of one parameter (its name dropped)."""
    toks = p.replace("*", " * ").split()
    kinds = [t for t in toks[:-1] if t not in ("const", "volatile", "restrict")]
    keyword = toks[-1] in ("int", "long", "char", "short", "double", "float", "void", "unsigned",
                           "signed", "*")
    if kinds and not keyword and re.fullmatch(r"[A-Za-z_]\w*", toks[-1]):
        toks = toks[:-1]
    return " ".join(toks)


def _ctype(ctype, model, needed):
    """The ctypes expression of a C type."""
    t = ctype.replace("*", " * ")
    stars = t.count("*")
    words = [w for w in t.split() if w not in ("*", "const", "volatile", "restrict", "struct",
                                                "union", "enum")]
    base = " ".join(words)
    if base == "void":
        expr = None if stars == 0 else "ctypes.c_void_p"
        stars = max(stars - 1, 0)
    elif base == "char" and stars >= 1:
        expr, stars = "ctypes.c_char_p", stars - 1
    elif base in HANDLES or base in model["handles"]:
        expr = "ctypes.c_void_p"
    elif base in model["opaque"]:
        if stars == 0:
            raise HeaderError(f"{ctype}: an opaque type passed by value")
        expr, stars = "ctypes.c_void_p", stars - 1
    elif base in SCALARS:
        expr = "ctypes." + SCALARS[base]
    elif base in model["enums"]:
        expr = "ctypes.c_int"
    elif base in model["records"]:
        needed.append(base)
        expr = base
    else:
        raise HeaderError(f"no ctypes type for {ctype!r}")
    for _ in range(stars):
        expr = f"ctypes.POINTER({expr})"
    return expr if expr is not None else "None"


def emit(model, sources):
    """The generated module's text."""
    needed, funcs = [], []
    for name in FUNCTIONS:
        if name not in model["functions"]:
            raise HeaderError(f"{name} is not declared in {', '.join(sources)}")
        ret, params = model["functions"][name]
        try:
            funcs.append((name, _ctype(ret, model, needed),
                          [_ctype(p, model, needed) for p in params]))
        except HeaderError as e:
            raise HeaderError(f"{name}: {e}") from None
    lines = [f'"""Generated at build time by python/gen_declarations.py from {", ".join(sources)}:',
             'do not edit. ENUMS, the records and FUNCTIONS repeat the headers; bind(lib) sets',
             'each function\'s restype and argtypes."""', "import ctypes", "",
             f"ENUMS = {model['enums']!r}", ""]
    for values in model["enums"].values():
        lines += [f"{k} = {v}" for k, v in values.items()]
    done = set()
    while needed:  # records, each after those it uses
        name = needed.pop(0)
        if name in done:
            continue
        kind, fields = model["records"][name]
        inner, rows = [], []
        for fname, spec in fields:
            if fname is None:
                raise HeaderError(f"{name}: cannot read the field {spec!r}")
            ctype, dims = spec
            expr = _ctype(ctype, model, inner)
            for d in reversed(dims):
                expr = f"({expr}) * {model['constants'].get(d, d)}"
            rows.append(f"        ({fname!r}, {expr}),")
        if [i for i in inner if i not in done]:
            needed = inner + [name] + needed
            continue
        base = "ctypes.Structure" if kind == "struct" else "ctypes.Union"
        lines += ["", "", f"class {name}({base}):", "    _fields_ = [", *rows, "    ]"]
        done.add(name)
    lines += ["", "", "FUNCTIONS = {"]
    lines += [f"    {n!r}: ({r}, [{', '.join(a)}])," for n, r, a in funcs]
    lines += ["}", "", "# The C declarations they come from, for the tests.",
              "PROTOTYPES = " + repr({n: model["functions"][n] for n in FUNCTIONS}), "", "",
              "def bind(lib):", "    for name, (restype, argtypes) in FUNCTIONS.items():",
              "        fn = getattr(lib, name)", "        fn.restype = restype",
              "        fn.argtypes = argtypes", "    return lib", ""]
    return "\n".join(lines)


def generate(headers):
    texts = []
    for h in headers:
        with open(h, encoding="utf-8") as f:
            texts.append(f.read())
    return emit(parse(texts), [os.path.basename(h) for h in headers])


def main(argv):
    if len(argv) < 3:
        print("usage: gen_declarations.py OUT.py HEADER...", file=sys.stderr)
        return 2
    try:
        text = generate(sorted(argv[2:]))
    except (OSError, HeaderError) as e:
        print(f"gen_declarations.py: {e}", file=sys.stderr)
        return 1
    tmp = argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
