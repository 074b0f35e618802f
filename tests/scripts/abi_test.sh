#!/usr/bin/env bash
# abi_test.sh exports|opencl3|plugin SRC BUILD - the installed library as an
# application meets it (installed into a temporary prefix):
#   exports  the shared library exports exactly the functions of its ABI,
#            ocr_core.h and ocr_reducer.h (nm -D --defined-only against the
#            headers; ocr_bench.h is the archive's only), no private header
#            is installed, and no header sets CL_TARGET_OPENCL_VERSION (the
#            application's choice)
#   opencl3  tests/consumer's OpenCL 3.0 program (its own
#            CL_TARGET_OPENCL_VERSION, <CL/cl.h> then ocr_reducer.h alone,
#            clCreateCommandQueueWithProperties, -Wall -Wextra -Werror)
#            builds through find_package(oclreduction) and reduces its own
#            buffer right
#   plugin   a SHARED library linking oclreduction::oclreduction, and one
#            linking oclreduction::oclreduction_static, link, load and answer;
#            the one linking the archive exports no ocr_ symbol (the
#            archive's are hidden)
set -euo pipefail
mode=$1 src=$2 build=$3
libdir=${LIBDIR:-lib}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
cmake --install "$build" --prefix "$p" >/dev/null
inc=$p/include/oclreduction
fail() { echo "FAIL: $*" >&2; exit 1; }

consumer() { # TARGET...: builds them from tests/consumer against the prefix
  cmake -S "$src/tests/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" >/dev/null
  cmake --build "$tmp/consumer" --target "$@" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "building $*"; }
}

case $mode in
exports)
  lib=$(ls "$p/$libdir"/liboclreduction.so.*.*.* 2>/dev/null | head -1 || true)
  [ -n "$lib" ] || { echo "SKIPPED: no shared library (OCR_BUILD_SHARED=OFF)"; exit 77; }
  for h in "$inc"/*.h; do
    case $(basename "$h") in ocr.h|ocr_core.h|ocr_bench.h|ocr_reducer.h|ocr_version.h) ;;
      *) fail "an installed header the package does not list: $h" ;; esac
  done
  ! grep -n "define *CL_TARGET_OPENCL_VERSION" "$inc"/*.h || fail "a header sets CL_TARGET_OPENCL_VERSION"
  # Declared: every ocr_ name followed by '(' in the ABI's headers, comments
  # and function-pointer typedefs left out.
  cat "$inc"/ocr_core.h "$inc"/ocr_reducer.h | sed -e 's://.*$::' | perl -0pe 's:/\*.*?\*/::gs' |
    grep -v 'typedef' | grep -o '\bocr_[a-z0-9_]*[[:space:]]*(' | tr -d '( \t' | sort -u > "$tmp/declared"
  # Exported: the dynamic symbols the library defines, less the linker's own.
  nm -D --defined-only "$lib" | awk '{print $NF}' |
    grep -v -x -e _init -e _fini -e _edata -e _end -e __bss_start | sort -u > "$tmp/exported"
  [ "$(wc -l < "$tmp/declared")" -ge 30 ] || fail "found only $(wc -l < "$tmp/declared") declarations: has the header format changed?"
  if ! diff "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
    echo "exported but not declared (>) / declared but not exported (<):" >&2
    cat "$tmp/diff" >&2
    fail "the shared library's exports are not the installed headers' functions"
  fi
  echo "ok: $(wc -l < "$tmp/exported") exports, each declared by ocr_core.h or ocr_reducer.h, each declaration exported"
  ;;
opencl3)
  consumer consumer_opencl3
  (cd "$tmp" && OCLREDUCTION_KERNEL_DIR=/nonexistent "$tmp/consumer/consumer_opencl3") ||
    fail "consumer_opencl3 exited $?"
  ;;
plugin)
  consumer consumer_plugin consumer_plugin_static consumer_dlopen
  for so in "$tmp"/consumer/libconsumer_plugin.so "$tmp"/consumer/libconsumer_plugin_static.so; do
    "$tmp/consumer/consumer_dlopen" "$so" || fail "loading $so"
  done
  readelf -d "$tmp/consumer/libconsumer_plugin_static.so" | grep -q 'NEEDED.*liboclreduction' &&
    fail "the plugin that links the archive needs liboclreduction.so"
  # Its own function only: none of the archive's symbols re-exported.
  if nm -D --defined-only "$tmp/consumer/libconsumer_plugin_static.so" | awk '{print $NF}' |
     grep '^ocr_'; then
    fail "the plugin that links the archive exports the library's symbols above"
  fi
  echo "ok: shared libraries linking the default target and the archive link, load and answer"
  ;;
*) echo "usage: abi_test.sh exports|opencl3|plugin SRC BUILD" >&2; exit 2 ;;
esac
