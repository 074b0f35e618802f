#!/usr/bin/env bash
# labs_test.sh SRC OCR - runs every ```sh block of docs/labs/*.md on the default
# device at small N and checks what it prints: the lines a student is told to
# look at.
#
# Each block is followed by one or more annotations (HTML comments, invisible
# on the rendered page), right after the closing fence:
#   <!-- expect: REGEX -->       some line of the block's output matches REGEX
#   <!-- expect-not: REGEX -->   no line matches REGEX
# REGEX is a grep -E pattern, matched against stdout and stderr together. A
# block without an `expect` fails the test: a command whose output nobody
# checks teaches nothing we know to be true. Expectations must hold on any
# device (a GPU or POCL) and at the test's small N.
#
# How the blocks run, and why:
#  - in a scratch directory holding links to cl/, docs/, bench/ and classroom/;
#    a block that leaves anything in it, or under those, fails the test
#    (a student runs the blocks in the checkout);
#  - `oclReduction` is a wrapper that appends `-r 2`, and `-s 64K` where the
#    command gives no size (nothing to --grade: its matrix fixes its sizes) (the default is 2^25; the labs' explicit sizes are
#    small already), so every lab runs at small N; bench/drivers/sweep.sh and
#    docs/labs/variants/run.sh get the wrapper through OCR;
#  - package installs (`sudo apt-get ...`, or the README's root-or-sudo
#    idiom `SUDO=...; $SUDO apt-get ...`) and the PATH setup line are skipped:
#    the test machine has the packages, and the wrapper is already on PATH;
#  - each block runs under `bash -e`;
#  - a block that runs oclgrind is skipped, and says so, where oclgrind is not
#    installed (as the oclgrind tests are not registered there).
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/work"
cat > "$tmp/bin/oclReduction" <<WRAP
#!/bin/sh
size="-s 64K"
for a in "\$@"; do case "\$a" in -s|-s*|--size|--size=*) size="" ;; --grade) exec "$ocr" "\$@" ;; esac; done
exec "$ocr" "\$@" \$size -r 2
WRAP
chmod +x "$tmp/bin/oclReduction"
for d in cl docs bench classroom; do ln -s "$src/$d" "$tmp/work/$d"; done
export PATH="$tmp/bin:$PATH" OCR="$tmp/bin/oclReduction"
blocks=0 failed=0 checks=0 skipped=0
have_oclgrind=0
command -v oclgrind >/dev/null && have_oclgrind=1
for md in "$src"/docs/labs/*.md; do
  # Split the page's ```sh blocks into block.N and their annotations into
  # expect.N / expect-not.N (one regular expression a line).
  rm -f "$tmp"/block.* "$tmp"/expect.* "$tmp"/expect-not.*
  awk -v dir="$tmp" '
    /^```sh$/ { n++; on = 1; after = 0; next }
    on && /^```$/ { on = 0; after = 1; next }
    on { print > (dir "/block." n); next }
    after && /^<!-- expect(-not)?: .* -->$/ {
      kind = ($0 ~ /^<!-- expect-not: /) ? "expect-not" : "expect"
      re = $0; sub(/^<!-- expect(-not)?: /, "", re); sub(/ -->$/, "", re)
      print re > (dir "/" kind "." n); next }
    after && !/^$/ { after = 0 }' "$md"
  for b in "$tmp"/block.*; do
    [ -e "$b" ] || continue
    n=${b##*.} page=$(basename "$md")
    blocks=$((blocks + 1))
    sed -i -E 's/^(sudo apt-get .*|SUDO=.*apt-get .*|export PATH=.*)$/: skipped: \1/' "$b"
    if [ "$have_oclgrind" = 0 ] && grep -q '^[^:#]*oclgrind ' "$b"; then
      skipped=$((skipped + 1))
      echo "skip: $page block $n (oclgrind is not installed)"
      continue
    fi
    why=""
    if ! (cd "$tmp/work" && bash -e "$b") > "$tmp/out" 2>&1; then
      why="a command failed"
    elif [ ! -s "$tmp/expect.$n" ]; then
      why="no <!-- expect: REGEX --> after the block"
    else
      while IFS= read -r re; do
        checks=$((checks + 1))
        grep -Eq -- "$re" "$tmp/out" || why="${why}no line matches /$re/; "
      done < "$tmp/expect.$n"
      if [ -e "$tmp/expect-not.$n" ]; then
        while IFS= read -r re; do
          checks=$((checks + 1))
          grep -Eq -- "$re" "$tmp/out" && why="${why}a line matches /$re/; "
        done < "$tmp/expect-not.$n"
      fi
    fi
    if [ -z "$why" ]; then
      echo "ok: $page block $n"
    else
      failed=$((failed + 1))
      echo "FAIL: $page block $n: $why"; sed 's/^/    /' "$b"; echo "  output (last 30 lines):"
      tail -30 "$tmp/out" | sed 's/^/    /'
    fi
  done
done
# Nothing a lab block does may land in the checkout (a student runs them there):
# the blocks ran in a scratch folder whose cl/, docs/, bench/ and classroom/ are the
# checkout's own, so anything new under them is a write into the checkout.
new=$(find "$src/cl" "$src/docs" "$src/bench" "$src/classroom" -newer "$tmp/bin/oclReduction" -print 2>/dev/null | head -5)
# ... nor into the folder a student runs them from (the checkout too).
# (sweep-out and my-sweep are output folders their commands name with -o: allowed.)
new="$new$(cd "$tmp/work" && find . -mindepth 1 -maxdepth 1 ! -name cl ! -name docs ! -name bench ! -name classroom ! -name sweep-out ! -name my-sweep)"
if [ -n "$new" ]; then
  failed=$((failed + 1))
  echo "FAIL: the lab blocks wrote into the checkout:"; echo "$new" | sed 's/^/    /'
fi
echo "$((blocks - failed - skipped)) blocks passed, $failed failed, $skipped skipped ($checks output checks)"
[ "$failed" = 0 ] && [ "$blocks" -gt "$skipped" ]
