"""The package's layout (issue 48): its face is not its base. Every module
python/oclreduction/_*.py imports its siblings (`from . import _cache`,
`from ._cache import x`), never the package itself (`from . import x` of a
name __init__.py defines, `import oclreduction`): moving a helper then never
breaks an import cycle. __init__.py is the public face: re-exports,
constants and docstrings, no class and no function of more than a line or
two (version() and dtypes())."""
import ast
import os

import oclreduction

PACKAGE = os.path.dirname(os.path.abspath(oclreduction.__file__))
LONGEST_DEF = 3  # lines of a function's body in __init__.py (docstring included)


def _modules():
    return sorted(f for f in os.listdir(PACKAGE) if f.startswith("_") and f.endswith(".py"))


def package_imports(source, siblings):
    """The imports in source that reach the package rather than a sibling."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").split(".")[0] == "oclreduction":
                bad.append(f"line {node.lineno}: from {node.module} import ...")
            elif node.level > 1:
                bad.append(f"line {node.lineno}: a relative import above the package")
            elif node.level == 1 and node.module is None:
                bad += [f"line {node.lineno}: from . import {a.name}" for a in node.names
                        if a.name not in siblings]
        elif isinstance(node, ast.Import):
            bad += [f"line {node.lineno}: import {a.name}" for a in node.names
                    if a.name.split(".")[0] == "oclreduction"]
    return bad


def face_defects(source):
    """What __init__.py holds beyond a public face."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            bad.append(f"line {node.lineno}: class {node.name}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.body[-1].end_lineno - node.body[0].lineno + 1
            if lines > LONGEST_DEF:
                bad.append(f"line {node.lineno}: def {node.name}, {lines} lines")
    return bad


def test_submodules_import_siblings_never_the_package():
    siblings = {f[:-3] for f in os.listdir(PACKAGE) if f.endswith(".py")} - {"__init__"}
    found = {}
    for name in _modules():
        if name == "__init__.py":
            continue
        with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
            bad = package_imports(f.read(), siblings)
        if bad:
            found[name] = bad
    assert not found, f"modules importing the package itself: {found}"


def test_init_is_the_face():
    with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as f:
        bad = face_defects(f.read())
    assert not bad, f"__init__.py holds more than re-exports: {bad}"


def test_the_checks_catch_what_they_look_for():
    siblings = {"_cache", "_native"}
    assert package_imports("from . import _cache\nfrom ._native import lib\n", siblings) == []
    assert package_imports("from . import _cached_object\n", siblings)
    assert package_imports("import oclreduction\n", siblings)
    assert package_imports("from oclreduction import _cache\n", siblings)
    assert package_imports("from .. import x\n", siblings)
    assert face_defects("def f():\n    return 1\n") == []
    assert face_defects("def f(x):\n    y = x\n    y += 1\n    y *= 2\n    return y\n")
    assert face_defects("class C:\n    pass\n")
