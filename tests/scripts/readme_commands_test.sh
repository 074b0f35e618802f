#!/bin/sh
# readme_commands_test.sh SRC - the README's two commands (Quick start, and the
# test command) are what .ci/run runs, and they work as root (no sudo on the
# machine, as in a fresh Debian container) and as a user.
#
# The commands run for real under sh and bash, with every program they call
# replaced by a logging stand-in on a PATH that holds nothing else: `id` says
# root or not, `apt-get` refuses non-root callers as the real one does, `sudo`
# (present or absent) runs its command as root, and cmake, ctest and
# ./build/oclReduction only log. So the check is what the line does, not how it
# is spelled.
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

quick=$("$src/.ci/readme-command" quick "$src/README.md") || exit 1
test=$("$src/.ci/readme-command" test "$src/README.md") || exit 1

# .ci/run runs both commands through readme-command (never a pasted copy).
for w in quick test; do
  grep -Fqx "$w=\$(.ci/readme-command $w)" "$src/.ci/run" && grep -Fqx "bash -c \"\$$w\"" "$src/.ci/run" ||
    say ".ci/run does not run the README's $w command (as $w=\$(.ci/readme-command $w); bash -c \"\$$w\")"
done
case $test in *"ctest --test-dir build"*) ;; *) say "the test command runs no ctest: $test" ;; esac
case $quick in *"./build/oclReduction"*) ;; *) say "the quick start runs no oclReduction: $quick" ;; esac

# Stand-ins. FAKE_UID is the caller's uid; every call is logged to $tmp/log.
mkdir -p "$tmp/bin" "$tmp/sudo" "$tmp/work/build"
stub() { # stub FILE BODY
  printf '#!/bin/sh\n%s\n' "$2" > "$1"
  chmod +x "$1"
}
stub "$tmp/bin/id" 'echo "$FAKE_UID"'
stub "$tmp/bin/apt-get" "echo \"apt-get \$* (uid \$FAKE_UID)\" >> $tmp/log
[ \"\$FAKE_UID\" = 0 ] || { echo 'E: Could not open lock file - open (13: Permission denied); are you root?' >&2; exit 100; }"
stub "$tmp/bin/cmake" "echo \"cmake \$*\" >> $tmp/log"
stub "$tmp/bin/ctest" "echo \"ctest \$*\" >> $tmp/log"
stub "$tmp/work/build/oclReduction" "echo \"oclReduction \$*\" >> $tmp/log"
stub "$tmp/sudo/sudo" "echo \"sudo \$*\" >> $tmp/log; FAKE_UID=0 exec \"\$@\""

# run SHELL NAME CMD UID PATH: runs CMD; leaves its status in $rc, its log in $tmp/log
run() {
  : > "$tmp/log"
  (cd "$tmp/work" && FAKE_UID=$4 PATH=$5 "$1" -c "$3") > "$tmp/out" 2>&1
  rc=$?
  cp "$tmp/log" "$tmp/log.$2"
}
has() { grep -Fqx -- "$1" "$tmp/log" || say "$2: expected the call '$1'; calls were: $(tr '\n' '|' < "$tmp/log")"; }
hasnt() { grep -Fq -- "$1" "$tmp/log" && say "$2: unexpected '$1' in: $(tr '\n' '|' < "$tmp/log")"; }

shells=""
for s in sh bash; do p=$(command -v $s) && shells="$shells $p"; done
for sh in $shells; do
  for w in quick test; do
    eval "cmd=\$$w"
    name="$(basename "$sh") $w"
    "$sh" -n -c "$cmd" || say "$name: syntax error"
    apt=$(printf '%s\n' "$cmd" | grep -o 'apt-get install -y [^&]*' | sed 's/ *$//')
    last=$(printf '%s\n' "$cmd" | sed 's/.*&& //')

    # Root, no sudo installed: apt-get runs directly, then the build and the rest.
    run "$sh" root "$cmd" 0 "$tmp/bin"
    [ "$rc" = 0 ] || say "$name as root without sudo: exit $rc: $(cat "$tmp/out")"
    has "$apt (uid 0)" "$name as root"
    hasnt "sudo" "$name as root"
    grep -q "^cmake -B build" "$tmp/log" || say "$name as root: cmake did not run"
    case $last in
      ./build/oclReduction*) has "oclReduction ${last#./build/oclReduction }" "$name as root" ;;
      ctest*) has "$last" "$name as root" ;;
    esac

    # Root with sudo installed: still no sudo.
    run "$sh" root_sudo "$cmd" 0 "$tmp/bin:$tmp/sudo"
    [ "$rc" = 0 ] || say "$name as root with sudo: exit $rc"
    hasnt "sudo" "$name as root with sudo"

    # A user with sudo: every apt-get goes through sudo and runs as root.
    run "$sh" user_sudo "$cmd" 1000 "$tmp/bin:$tmp/sudo"
    [ "$rc" = 0 ] || say "$name as a user with sudo: exit $rc: $(cat "$tmp/out")"
    has "sudo $apt" "$name as a user with sudo"
    has "$apt (uid 0)" "$name as a user with sudo"
    hasnt "(uid 1000)" "$name as a user with sudo"

    # A user without sudo: stops at apt-get, whose message says why; nothing after it runs.
    run "$sh" user "$cmd" 1000 "$tmp/bin"
    [ "$rc" != 0 ] || say "$name as a user without sudo: exit 0"
    grep -q "are you root" "$tmp/out" || say "$name as a user without sudo: no message from apt-get: $(cat "$tmp/out")"
    hasnt "cmake" "$name as a user without sudo"
  done
done
[ "$fail" = 0 ] && echo "ok: README commands = .ci/run's, as root and as a user, under$shells"
exit $fail
