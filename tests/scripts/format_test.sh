#!/bin/sh
# format_test.sh SRC - every C file of the tree is as .clang-format says
# (host/, include/, tests/unit/, examples/, bench/): a file that differs fails
# the test with its name and the first lines of the diff. Kernels (cl/) and
# test fixtures keep the layout they are written in (a kernel reads as a
# lesson; a fixture may be malformed on purpose). Exit 77 (SKIPPED) where
# clang-format is not installed, except under CI, which installs it.
set -u
src=$1
fmt=$(command -v clang-format || command -v clang-format-14 || true)
if [ -z "$fmt" ]; then
  if [ -n "${CI:-}" ]; then echo "FAIL: clang-format is not installed (CI installs it)"; exit 1; fi
  echo "SKIPPED: clang-format is not installed"; exit 77
fi
cd "$src" || exit 1
fail=0 n=0
files=$(git ls-files -- 'host/*.[ch]' 'include/*.h' 'tests/unit/*.[ch]' 'examples/*.[ch]' \
  'bench/*.[ch]' 'tests/consumer/*.[ch]' 2>/dev/null)
[ -n "$files" ] || files=$(find host include tests/unit examples bench tests/consumer -name '*.[ch]' 2>/dev/null)
for f in $files; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  if ! "$fmt" --style=file "$f" | diff -u "$f" - > /tmp/ocr_fmt_$$.diff; then
    echo "FAIL: $f is not clang-format clean (clang-format -i $f):"
    head -n 12 /tmp/ocr_fmt_$$.diff
    fail=1
  fi
done
rm -f /tmp/ocr_fmt_$$.diff
[ "$n" -gt 50 ] || { echo "FAIL: only $n C files found"; exit 1; }
[ $fail = 0 ] && echo "PASSED: $n C files are clang-format clean ($("$fmt" --version))"
exit $fail
