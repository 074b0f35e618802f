#!/bin/sh
# options_page_test.sh OCR PAGE - the options block of PAGE (docs/output.md:
# the first code block under "## Options") is exactly the option lines of
# --help (from "Options:" to the first empty line), so the two cannot drift
# apart. (The block lived in README.md until the README became a front door.)
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" --help | sed -n '/^Options:$/,/^$/p' | sed '1d;$d' > "$tmp/help"
sed -n '/^## Options$/,/^## /p' "$2" | sed -n '/^```$/,/^```$/p' | sed '1d;$d' > "$tmp/page"
[ -s "$tmp/help" ] || { echo "FAIL: no options in --help"; exit 1; }
[ -s "$tmp/page" ] || { echo "FAIL: no options block under '## Options' in $2"; exit 1; }
diff -u "$tmp/help" "$tmp/page" && echo "ok: $2's options = --help ($(wc -l < "$tmp/help") lines)"
