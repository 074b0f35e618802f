#!/usr/bin/env bash
# install_test.sh SRC BUILD - installs the project into a temporary prefix, then
# builds a program against it twice, with find_package(oclreduction) and with
# pkg-config, and runs both: each must reduce correctly using the installed
# kernels (the source tree is not on their search path).
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/oclReduction"
test -f "$tmp/prefix/share/oclreduction/cl/reduce6.cl"
test -f "$tmp/prefix/share/man/man1/oclReduction.1"
# The installed binary finds the installed kernels (beside it, relocated).
mv "$tmp/prefix" "$tmp/moved"
(cd "$tmp" && "$tmp/moved/bin/oclReduction" -n 6 -s 4103 -r 1 | grep -q "Test PASSED!")
mv "$tmp/moved" "$tmp/prefix"
cmake -S "$src/tests/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
# The consumer is no build-tree binary of ours: point it at the installed kernels.
OCLREDUCTION_KERNEL_DIR="$tmp/prefix/share/oclreduction/cl" "$tmp/consumer/consumer"
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/${LIBDIR:-lib}/pkgconfig"
  cc -std=c11 "$src/tests/consumer/main.c" -o "$tmp/pc" $(pkg-config --cflags oclreduction) \
     $(pkg-config --libs --static oclreduction)
  OCLREDUCTION_KERNEL_DIR="$tmp/prefix/share/oclreduction/cl" "$tmp/pc" | sed 's/consumer/pkg-config consumer/'
else
  echo "pkg-config not found: the pkg-config half was not run" >&2
fi
