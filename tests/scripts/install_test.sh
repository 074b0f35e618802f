#!/usr/bin/env bash
# install_test.sh SRC BUILD - installs the project into a temporary prefix,
# checks the installed layout (headers under include/oclreduction/, the static
# and the shared library, its SONAME, no path of the source or build tree in
# any installed text file), then builds programs against it and runs each:
# tests/consumer's main.c (the reducer, the stable API) and bench.c (the
# benchmark API, the archive's only, reduce6 from the installed kernels: the
# source tree is not on its search path) must reduce correctly.
#   find_package(oclreduction): main.c with oclreduction::oclreduction (the
#     shared library, run through the RPATH CMake gives it; the archive in a
#     build without it), oclreduction::oclreduction_static and the shared
#     library's earlier name oclreduction::oclreduction_shared; bench.c with
#     oclreduction::oclreduction_bench
#   pkg-config: main.c with oclreduction (shared; run with LD_LIBRARY_PATH, as
#     a user of a private prefix would), bench.c with oclreduction-static
# Each shared build must need liboclreduction.so.0.MINOR, each static one must
# not.
set -euo pipefail
src=$1 build=$2
libdir=${LIBDIR:-lib}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
p=$tmp/prefix
test -x "$p/bin/oclReduction"
test -f "$p/share/oclreduction/cl/reduce6.cl"
test -f "$p/share/man/man1/oclReduction.1"
for h in ocr.h ocr_core.h ocr_bench.h ocr_reducer.h ocr_version.h; do test -f "$p/include/oclreduction/$h"; done
test ! -e "$p/include/ocr.h"
test -f "$p/$libdir/liboclreduction.a"
test -f "$p/$libdir/pkgconfig/oclreduction.pc"
test -f "$p/$libdir/pkgconfig/oclreduction-static.pc"
test -f "$p/$libdir/cmake/oclreduction/oclreductionConfig.cmake"
shared=yes
ls "$p/$libdir"/liboclreduction.so.* >/dev/null 2>&1 || shared=
if [ -n "$shared" ]; then
  test -L "$p/$libdir/liboclreduction.so"
  # While the major version is 0 the minor version is part of the SONAME.
  soname=$(sed -n 's/^#define OCR_VERSION "\([0-9]*\)\.\([0-9]*\)\..*"$/\1.\2/p' \
    "$p/include/oclreduction/ocr_version.h")
  case $soname in 0.*) ;; *) soname=${soname%%.*} ;; esac
  readelf -d "$p/$libdir/liboclreduction.so" | grep -F "[liboclreduction.so.$soname]" >/dev/null ||
    { echo "FAIL: the SONAME is not liboclreduction.so.$soname" >&2; exit 1; }
else
  echo "liboclreduction.so not installed (OCR_BUILD_SHARED=OFF): the shared halves are not run" >&2
fi
# One version: the header's, the library's, the .pc's, the package's, the man page's.
version=$(sed -n 's/^#define OCR_VERSION "\(.*\)"$/\1/p' "$p/include/oclreduction/ocr_version.h")
test -n "$version"
grep -q "^Version: $version\$" "$p/$libdir/pkgconfig/oclreduction.pc"
grep -q "PACKAGE_VERSION \"$version\"" "$p/$libdir/cmake/oclreduction/oclreductionConfigVersion.cmake"
grep -q "\"oclreduction $version\"" "$p/share/man/man1/oclReduction.1"
# No installed file names the source or the build tree: text files (headers,
# .pc, CMake files, man page) and, unless built with debug information (whose
# paths are its purpose), the binaries. No @VAR@ left unfilled.
trees=(-e "$(cd "$src" && pwd -P)" -e "$(cd "$build" && pwd -P)" -e "$src" -e "$build")
if grep -rIl "${trees[@]}" "$p" ||
   grep -l "@[A-Za-z_]*@" "$p"/include/oclreduction/* "$p/$libdir"/pkgconfig/* \
     "$p/share/man/man1/oclReduction.1"; then
  echo "FAIL: the installed files above name the source or build tree, or hold an unfilled @VAR@" >&2
  exit 1
fi
for f in "$p/bin/oclReduction" "$p/$libdir"/liboclreduction.*; do
  [ -L "$f" ] && continue
  # (grep reads all of readelf's output: with -q, pipefail would see a SIGPIPE)
  readelf -S "$f" 2>/dev/null | grep '\.debug_info' >/dev/null && continue
  if grep -q -a "${trees[@]}" "$f"; then
    echo "FAIL: $f names the source or build tree:" >&2
    strings "$f" | grep "${trees[@]}" >&2
    exit 1
  fi
done
# needs FILE YES|NO: whether FILE needs liboclreduction.so.
needs() {
  if readelf -d "$1" | grep 'NEEDED.*liboclreduction\.so' >/dev/null; then got=yes; else got=no; fi
  [ "$got" = "$2" ] || { echo "FAIL: $1 needs liboclreduction.so: $got, expected $2" >&2; exit 1; }
}
# The installed binary finds the installed kernels (beside it, relocated).
mv "$p" "$tmp/moved"
(cd "$tmp" && "$tmp/moved/bin/oclReduction" -n 6 -s 4103 -r 1 | grep -q "Test PASSED!")
# The installed shared library in a moved prefix, found through the RPATH,
# for a program that lies elsewhere and runs from elsewhere, with no
# OCLREDUCTION_KERNEL_DIR: the reducer needs no kernel files.
if [ -n "$shared" ]; then
  cmake -S "$src/tests/consumer" -B "$tmp/consumer_moved" -DCMAKE_PREFIX_PATH="$tmp/moved" >/dev/null
  cmake --build "$tmp/consumer_moved" --target consumer >/dev/null
  if ! out=$(cd / && env -u OCLREDUCTION_KERNEL_DIR "$tmp/consumer_moved/consumer" 2>&1) ||
     [ "$out" != "consumer: PASSED" ]; then
    echo "FAIL: the consumer of the moved prefix did not pass: $out" >&2
    exit 1
  fi
  echo "cmake default-target consumer, moved prefix: PASSED"
fi
mv "$tmp/moved" "$p"
export OCLREDUCTION_KERNEL_DIR="$p/share/oclreduction/cl" # not a build-tree binary of ours
cmake -S "$src/tests/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" >/dev/null
cmake --build "$tmp/consumer" --target consumer consumer_static consumer_bench >/dev/null
"$tmp/consumer/consumer" | sed 's/consumer/cmake default-target consumer/'
needs "$tmp/consumer/consumer" "$([ -n "$shared" ] && echo yes || echo no)"
"$tmp/consumer/consumer_static" | sed 's/consumer/cmake static consumer/'
needs "$tmp/consumer/consumer_static" no
"$tmp/consumer/consumer_bench" | sed 's/consumer/cmake benchmark-API consumer/'
needs "$tmp/consumer/consumer_bench" no
if [ -n "$shared" ]; then
  cmake --build "$tmp/consumer" --target consumer_shared >/dev/null
  "$tmp/consumer/consumer_shared" | sed 's/consumer/cmake shared consumer (RPATH)/'
  needs "$tmp/consumer/consumer_shared" yes
fi
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$p/$libdir/pkgconfig"
  test "$(pkg-config --modversion oclreduction)" = "$version"
  pkg-config --static --libs oclreduction >/dev/null # the private dependencies resolve
  cc -std=c11 "$src/tests/consumer/bench.c" -o "$tmp/pc_static" \
     $(pkg-config --cflags oclreduction-static) $(pkg-config --libs oclreduction-static)
  "$tmp/pc_static" | sed 's/consumer/pkg-config static benchmark-API consumer/'
  needs "$tmp/pc_static" no
  if [ -n "$shared" ]; then
    cc -std=c11 "$src/tests/consumer/main.c" -o "$tmp/pc_shared" \
       $(pkg-config --cflags oclreduction) $(pkg-config --libs oclreduction)
    LD_LIBRARY_PATH="$p/$libdir" "$tmp/pc_shared" |
      sed 's/consumer/pkg-config shared consumer (LD_LIBRARY_PATH)/'
    needs "$tmp/pc_shared" yes
  fi
else
  echo "pkg-config not found: the pkg-config half was not run" >&2
fi
