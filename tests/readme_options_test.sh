#!/bin/sh
# readme_options_test.sh OCR README - the README's options block is exactly
# the option lines of --help, so the two cannot drift apart.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" --help | grep '^  -' > "$tmp/help"
sed -n '/^## Options$/,/^## /p' "$2" | grep '^  -' > "$tmp/readme"
diff -u "$tmp/help" "$tmp/readme" && echo "ok: README options = --help ($(wc -l < "$tmp/help") lines)"
