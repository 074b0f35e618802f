#!/usr/bin/env bash
# install_examples_test.sh SRC BUILD - installs the project into a temporary
# prefix, moves it (a relocated install), builds examples/ against it with
# find_package(oclreduction) (the default target, shared through its RPATH
# where built, and the archive) and with
# pkg-config (oclreduction-static, and oclreduction run with LD_LIBRARY_PATH),
# and runs reduce_my_buffer from each: every type and operator must agree with
# the CPU loop using the kernels compiled into the library, with no kernel
# directory anywhere to be found (the installed cl/ is removed,
# $OCLREDUCTION_KERNEL_DIR points nowhere).
set -euo pipefail
src=$1 build=$2
libdir=${LIBDIR:-lib}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/inst" >/dev/null
test -f "$tmp/inst/include/oclreduction/ocr_reducer.h"
mv "$tmp/inst" "$tmp/prefix"
rm -rf "$tmp/prefix/share/oclreduction/cl"
export OCLREDUCTION_KERNEL_DIR=/nonexistent
# run LABEL COMMAND...: the whole matrix must pass; its last line is shown.
run() {
  local label=$1
  shift
  (cd "$tmp" && "$@") >"$tmp/out"
  tail -1 "$tmp/out" | sed "s/^/$label: /"
  if grep -q "FAIL" "$tmp/out"; then cat "$tmp/out"; exit 1; fi
}
cmake -S "$src/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/ex" >/dev/null
run "cmake, static" "$tmp/ex/reduce_my_buffer_static" 1 4103 100003
if ls "$tmp/prefix/$libdir"/liboclreduction.so.* >/dev/null 2>&1; then
  run "cmake, default target: shared (RPATH)" "$tmp/ex/reduce_my_buffer" 4103
fi
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$tmp/prefix/$libdir/pkgconfig"
  cc -std=c11 "$src/examples/reduce_my_buffer.c" -o "$tmp/pc_static" \
     $(pkg-config --cflags --libs oclreduction-static)
  run "pkg-config, static" "$tmp/pc_static" 4103
  if ls "$tmp/prefix/$libdir"/liboclreduction.so.* >/dev/null 2>&1; then
    cc -std=c11 "$src/examples/reduce_my_buffer.c" -o "$tmp/pc_shared" \
       $(pkg-config --cflags --libs oclreduction)
    run "pkg-config, shared (LD_LIBRARY_PATH)" env LD_LIBRARY_PATH="$tmp/prefix/$libdir" "$tmp/pc_shared" 4103
  fi
else
  echo "pkg-config not found: the pkg-config half was not run" >&2
fi
