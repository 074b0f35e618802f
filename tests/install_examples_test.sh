#!/usr/bin/env bash
# install_examples_test.sh SRC BUILD - installs the project into a temporary
# prefix, moves it (a relocated install), builds examples/ against it with
# find_package(oclreduction) and with pkg-config, and runs reduce_my_buffer
# from both: every type and operator must agree with the CPU loop using the
# kernels compiled into the library, with no kernel directory anywhere to be
# found (the installed cl/ is removed, $OCLREDUCTION_KERNEL_DIR points nowhere).
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/inst" >/dev/null
test -f "$tmp/inst/include/ocr_reducer.h"
mv "$tmp/inst" "$tmp/prefix"
rm -rf "$tmp/prefix/share/oclreduction/cl"
export OCLREDUCTION_KERNEL_DIR=/nonexistent
cmake -S "$src/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/ex" >/dev/null
(cd "$tmp" && "$tmp/ex/reduce_my_buffer" 1 4103 100003) >"$tmp/out"
tail -1 "$tmp/out"
grep -q "FAIL" "$tmp/out" && { cat "$tmp/out"; exit 1; }
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/${LIBDIR:-lib}/pkgconfig"
  cc -std=c11 "$src/examples/reduce_my_buffer.c" -o "$tmp/pc" $(pkg-config --cflags oclreduction) \
     $(pkg-config --libs --static oclreduction)
  (cd "$tmp" && "$tmp/pc" 4103) | tail -1 | sed 's/^/pkg-config build: /'
else
  echo "pkg-config not found: the pkg-config half was not run" >&2
fi
