#!/bin/sh
# readme_options_test.sh OCR README - the README's options block is exactly
# the option lines of --help (from "Options:" to the first empty line), so the
# two cannot drift apart.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" --help | sed -n '/^Options:$/,/^$/p' | sed '1d;$d' > "$tmp/help"
sed -n '/^## Options$/,/^## /p' "$2" | sed -n '/^```$/,/^```$/p' | sed '1d;$d' > "$tmp/readme"
[ -s "$tmp/help" ] || { echo "FAIL: no options in --help"; exit 1; }
diff -u "$tmp/help" "$tmp/readme" && echo "ok: README options = --help ($(wc -l < "$tmp/help") lines)"
