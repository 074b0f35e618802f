#!/usr/bin/env bash
# subdirectory_test.sh SRC BUILD - an application that builds the source
# tree inside its own (tests/consumer/subdirectory: add_subdirectory, as
# FetchContent does): it configures with the source tree's tests, examples,
# bench/ and Python package OFF and the application's build type left alone,
# registers its own test and none of ours, links oclreduction::oclreduction
# (the shared library), and its program reduces correctly. Builds only the
# application's target (the shared library's floors), in a folder under
# BUILD that it removes.
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d "$build/subdirectory_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake -S "$src/tests/consumer/subdirectory" -B "$tmp" -DOCR_SOURCE="$src" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "the application did not configure"; }
cache=$tmp/CMakeCache.txt
for opt in OCR_BUILD_TESTS OCR_BUILD_EXAMPLES OCR_BUILD_BENCH OCR_BUILD_PYTHON; do
  grep -qx "$opt:BOOL=OFF" "$cache" || fail "$opt is not OFF in a sub-build: $(grep "^$opt:" "$cache" || echo unset)"
done
grep -qx "CMAKE_BUILD_TYPE:STRING=" "$cache" ||
  fail "the sub-build set the application's build type: $(grep '^CMAKE_BUILD_TYPE:' "$cache")"
tests=$(cd "$tmp" && ctest -N)
total=$(sed -n 's/^Total Tests: //p' <<<"$tests")
[ "$total" = 1 ] && grep -q "consumer_subdirectory" <<<"$tests" ||
  { echo "$tests"; fail "the build registers $total tests, not the application's one"; }
echo "ok: the sub-build registers no test of its own (ctest -N: Total Tests: $total, the application's)"
cmake --build "$tmp" --target consumer_subdirectory -j2 >"$tmp/build.log" 2>&1 ||
  { tail -30 "$tmp/build.log"; fail "the application did not build"; }
app=$tmp/consumer_subdirectory
readelf -d "$app" | grep -q 'NEEDED.*liboclreduction\.so' ||
  fail "oclreduction::oclreduction is not the shared library: $(readelf -d "$app" | grep NEEDED)"
grep -q 'host/lib/run/' "$tmp/build.log" && fail "the shared library's build compiled run/"
out=$("$app") || fail "the application failed ($?): $out"
[ "$out" = "consumer: PASSED" ] || fail "the application printed '$out'"
echo "ok: $out (oclreduction::oclreduction, the shared library, built in the application's tree)"
