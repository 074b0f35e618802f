#!/usr/bin/env bash
# without.sh PROGRAM COMMAND [ARGS...] - runs COMMAND with a PATH on which
# PROGRAM cannot be found and everything else still can: a directory of links
# to every program of PATH but PROGRAM. (A PATH of nothing would also hide
# the linker and tools an OpenCL runtime runs while it builds a kernel: POCL
# aborts without them, which is not the absence under test.)
set -u
hide=$1; shift
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  # The first directory on PATH that has a name wins, as in a lookup.
  for f in "$d"/*; do
    n=${f##*/}
    [ -x "$f" ] && [ ! -e "$bin/$n" ] && [ ! -L "$bin/$n" ] && [ "$n" != "$hide" ] && ln -s "$f" "$bin/$n"
  done
done
PATH=$bin "$@"
