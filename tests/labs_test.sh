#!/usr/bin/env bash
# labs_test.sh SRC OCR - runs every ```sh block of docs/labs/*.md on the default
# device at small N; any command that exits non-zero fails the test.
#
# How the blocks run, and why:
#  - in a scratch directory holding links to cl/, docs/ and tools/, so what the
#    labs write (my-lab/, sweep-out/) stays out of the source tree;
#  - `oclReduction` is a wrapper that appends `-r 2`, and `-s 64K` where the
#    command gives no size (the default is 2^25; the labs' explicit sizes are
#    small already), so every lab runs at small N; tools/sweep.sh gets the
#    wrapper through OCR;
#  - package installs (`sudo apt-get ...`) and the PATH setup line are skipped:
#    the test machine has the packages, and the wrapper is already on PATH;
#  - each block runs under `bash -e`.
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/work"
cat > "$tmp/bin/oclReduction" <<WRAP
#!/bin/sh
size="-s 64K"
for a in "\$@"; do case "\$a" in -s|-s*|--size|--size=*) size="" ;; esac; done
exec "$ocr" "\$@" \$size -r 2
WRAP
chmod +x "$tmp/bin/oclReduction"
for d in cl docs tools; do ln -s "$src/$d" "$tmp/work/$d"; done
export PATH="$tmp/bin:$PATH" OCR="$tmp/bin/oclReduction"
blocks=0 failed=0
for md in "$src"/docs/labs/*.md; do
  # Split the page's ```sh blocks into files block.1, block.2, ...
  rm -f "$tmp"/block.*
  awk -v dir="$tmp" '/^```sh$/ { n++; on = 1; next } /^```$/ { on = 0; next }
                     on { print > (dir "/block." n) }' "$md"
  for b in "$tmp"/block.*; do
    [ -e "$b" ] || continue
    blocks=$((blocks + 1))
    sed -i -E 's/^(sudo apt-get .*|export PATH=.*)$/: skipped: \1/' "$b"
    if (cd "$tmp/work" && bash -e "$b") > "$tmp/out" 2>&1; then
      echo "ok: $(basename "$md") block ${b##*.}"
    else
      failed=$((failed + 1))
      echo "FAIL: $(basename "$md") block ${b##*.}:"; sed 's/^/    /' "$b"; tail -20 "$tmp/out"
    fi
  done
done
echo "$((blocks - failed)) passed, $failed failed"
[ "$failed" = 0 ] && [ "$blocks" -gt 0 ]
