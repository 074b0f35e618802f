#!/bin/sh
# python_wheel_test.sh SRC PYTHON - the package as a user gets it: `pip wheel`
# of the checkout SRC (scikit-build-core from PyPI, the project's CMake
# build), the wheel checked (the package and its library, nothing else)
# and installed into a fresh venv (--system-site-packages: PYTHON's numpy,
# pyopencl and pytest), then tests/python run from an empty directory with
# no OCLREDUCTION_LIBRARY, LD_LIBRARY_PATH or PYTHONPATH. Exit 77 (SKIPPED)
# if no venv can be made or PyPI cannot be reached.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

"$py" -m venv --system-site-packages "$tmp/venv" > "$tmp/venv.log" 2>&1 ||
  skip "cannot create a venv ($(tail -n 1 "$tmp/venv.log"); Debian: apt-get install python3-venv)"
vpy=$tmp/venv/bin/python
"$vpy" -m pip download -q --no-deps -d "$tmp/probe" "scikit-build-core>=0.8" > "$tmp/probe.log" 2>&1 ||
  skip "PyPI cannot be reached for scikit-build-core ($(tail -n 1 "$tmp/probe.log"))"

"$vpy" -m pip wheel -q --no-deps -w "$tmp/wheels" "$src" > "$tmp/wheel.log" 2>&1 ||
  { tail -n 40 "$tmp/wheel.log"; fail "pip wheel $src"; }
whl=$(ls "$tmp"/wheels/oclreduction-*.whl) || fail "no wheel in $tmp/wheels"
echo "built $(basename "$whl")"
"$vpy" - "$whl" "$src/python/oclreduction" <<'PY' || fail "the wheel's contents"
import os, sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
pkg = sorted(n for n in names if not n.startswith("oclreduction-"))
# The source folder's modules and kernels (cl/*.cl), the custom-reduction
# template (the project's cl/custom.cl, the C library's), the generated
# modules, the library and py.typed: nothing missing, nothing else.
src = sys.argv[2]
assert not os.path.exists(os.path.join(src, "cl", "custom.cl")), "a second template"
want = sorted(["oclreduction/" + f for f in os.listdir(src) if f.endswith(".py")]
              + ["oclreduction/cl/" + f for f in os.listdir(os.path.join(src, "cl"))
                 if f.endswith(".cl")]
              + ["oclreduction/cl/custom.cl",
                 "oclreduction/_build_info.py", "oclreduction/_declarations.py",
                 "oclreduction/liboclreduction.so", "oclreduction/py.typed"])
assert "oclreduction/cl/custom.cl" in want and pkg == want, (pkg, want)
print("wheel holds:", " ".join(pkg))
PY
"$vpy" -m pip install -q --no-deps "$whl" > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "pip install $whl"; }
site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" &&
  env -u OCLREDUCTION_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH OCR_EXPECT_PACKAGE_DIR="$site" OCR_EXPECT_INSTALLED=1 \
    PYTHONDONTWRITEBYTECODE=1 "$vpy" -m pytest -q -p no:cacheprovider "$src/tests/python" ||
  fail "pytest against the installed wheel"
