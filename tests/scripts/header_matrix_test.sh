#!/bin/sh
# header_matrix_test.sh SRC BUILD CC CXX - every public header, alone, compiles
# clean (-Wall -Wextra -pedantic -Werror) as C89, C99, C11, C17, C++98, C++11
# and C++17, with CL_TARGET_OPENCL_VERSION unset, 120 and 300: the headers laid
# out as installed (<oclreduction/X.h>), included by a file that includes
# nothing else. Prints each failing combination with the compiler's words.
# An empty CXX (no C++ compiler found): the C half runs, then exit 77 (skipped)
# if it passed.
set -u
src=$1 build=$2 cc=$3 cxx=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/inc/oclreduction"
cp "$src"/include/oclreduction/*.h "$build/include/oclreduction/ocr_version.h" \
  "$tmp/inc/oclreduction/" || exit 1
headers=$(cd "$tmp/inc/oclreduction" && ls ocr*.h | grep -v ocr_version.h)
ran=0 failed=0
for h in $headers; do
  printf '#include <oclreduction/%s>\nint main(void) { return 0; }\n' "$h" > "$tmp/c.c"
  printf '#include <oclreduction/%s>\nint main() { return 0; }\n' "$h" > "$tmp/cxx.cpp"
  for std in c89 c99 c11 c17 c++98 c++11 c++17; do
    case $std in c++*) comp=$cxx file=$tmp/cxx.cpp ;; *) comp=$cc file=$tmp/c.c ;; esac
    [ -n "$comp" ] || continue
    for ver in unset 120 300; do
      def=""
      [ "$ver" = unset ] || def="-DCL_TARGET_OPENCL_VERSION=$ver"
      ran=$((ran + 1))
      # shellcheck disable=SC2086 # def is one word or none
      if ! out=$("$comp" -std=$std -Wall -Wextra -pedantic -Werror $def -I"$tmp/inc" \
                 -fsyntax-only "$file" 2>&1); then
        failed=$((failed + 1))
        echo "FAIL $h -std=$std CL_TARGET_OPENCL_VERSION=$ver:"
        echo "$out" | head -5
      fi
    done
  done
done
echo "$ran compilations, $failed failed"
[ "$ran" -gt 0 ] && [ "$failed" -eq 0 ] || exit 1
if [ -z "$cxx" ]; then
  echo "SKIPPED: the C++ standards (no C++ compiler: c++, g++ or clang++)"
  exit 77
fi
