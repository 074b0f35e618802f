#!/usr/bin/env bash
# mpi_netns_test.sh MPIRUN OCR - --mpi across two hosts on one machine: two
# network namespaces joined by a veth pair are the two hosts (10.A.B.1 and
# 10.A.B.2, each its own hostname through unshare --uts), mpirun runs in the
# first and starts the second's daemon through an rsh agent that is
# `ip netns exec`, and every byte between the ranks goes over the veth (TCP
# only, on its subnet). Checks:
#   1. one rank in each namespace gives the single-host run's Result, PASSED;
#   2. the second host's rank killed (SIGKILL) mid-run ends the job within
#      90 s with mpirun's message naming the killed rank and signal, never a
#      hang, never PASSED, and an exit status that is neither 0 nor 1 (the
#      verdict "wrong"): mpirun's is 137 (128 + SIGKILL, the dead rank's).
#      The survivor, which mpirun ends with SIGTERM, says why on stderr and
#      exits 3 itself (a wrapper keeps its status: mpirun reports only the
#      dead rank's).
# Needs root (ip netns add); where namespaces or veth pairs cannot be made it
# says why and exits 77 (SKIPPED). The namespaces go whatever happens (trap).
set -u
mpirun=$1 ocr=$2
tag=ocr$$
ns1=${tag}a ns2=${tag}b
dir=$(mktemp -d)
# A /24 of 10.0.0.0/8 from the pid: parallel runs of the test do not meet.
net=10.$(( ($$ >> 8) % 200 + 20 )).$(( $$ % 250 ))
cleanup() {
  ip netns del "$ns1" 2>/dev/null
  ip netns del "$ns2" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
skip() { echo "SKIPPED: $1 (two network namespaces need root and CAP_NET_ADMIN)"; exit 77; }
command -v ip >/dev/null || skip "no ip command (iproute2)"
command -v unshare >/dev/null || skip "no unshare command (util-linux)"
err=$(ip netns add "$ns1" 2>&1) || skip "ip netns add: $err"
err=$(ip netns add "$ns2" 2>&1) || skip "ip netns add: $err"
err=$(ip link add "v$tag" type veth peer name "w$tag" 2>&1) || skip "ip link add type veth: $err"
set -e
ip link set "v$tag" netns "$ns1"
ip link set "w$tag" netns "$ns2"
ip -n "$ns1" addr add "$net.1/24" dev "v$tag"
ip -n "$ns2" addr add "$net.2/24" dev "w$tag"
for ns in "$ns1" "$ns2"; do ip -n "$ns" link set lo up; done
ip -n "$ns1" link set "v$tag" up
ip -n "$ns2" link set "w$tag" up
set +e

# The agent: Open MPI calls it as `agent HOST COMMAND...` (ssh's way); HOST is
# one of the hostfile's addresses, the namespace it names runs the command
# under that host's own hostname.
cat > "$dir/agent" <<EOF
#!/bin/sh
host=\$1; shift
case \$host in
  $net.1) ns=$ns1 name=${tag}-a ;;
  $net.2) ns=$ns2 name=${tag}-b ;;
  *) echo "agent: unknown host \$host" >&2; exit 1 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c 'hostname "\$0"; exec "\$@"' "\$name" sh -c "\$*"
EOF
chmod +x "$dir/agent"
# The survivor's own exit status, kept by a wrapper of rank 0 (mpirun ends
# the job with SIGTERM, then SIGKILL a second later: the wrapper ignores the
# first and writes at once; the rank's own handler replaces the ignore).
cat > "$dir/rank" <<EOF
#!/bin/sh
[ "\$OMPI_COMM_WORLD_RANK" = 0 ] || exec "\$@"
trap '' TERM
"\$@"
echo \$? > "$dir/exit.0"
EOF
chmod +x "$dir/rank"
printf '%s slots=1\n%s slots=1\n' "$net.1" "$net.2" > "$dir/hosts"
# mpirun in the first namespace, as the first host (the hostfile's first
# line is its own address: Open MPI starts that rank itself).
launch() {
  ip netns exec "$ns1" unshare --uts sh -c 'hostname "$0"; exec "$@"' "${tag}-a" \
    "$mpirun" --hostfile "$dir/hosts" -np 2 --map-by node \
    --mca plm_rsh_agent "$dir/agent" --mca btl tcp,self \
    --mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24" \
    -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x POCL_DEVICES \
    ${wrap:-} "$ocr" --mpi "$@"
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# 1. The answer of two hosts is the single host's.
fail=0
for args in "--type int --op sum -s 1000003" "--type double --op sum -s 300007" \
            "--type float --op max -s 65539"; do
  # shellcheck disable=SC2086 # the arguments are words on purpose
  want=$("$ocr" $args -r 2 2>&1 | sed -n 's/^Result: \([^ ]*\) .*/\1/p')
  # shellcheck disable=SC2086
  out=$(timeout 120 bash -c "$(declare -f launch); $(declare -p tag ns1 dir net mpirun ocr); launch $args -r 2" 2>&1)
  rc=$?
  got=$(printf '%s\n' "$out" | sed -n 's/^Result: \([^ ]*\) .*/\1/p')
  hosts=$(printf '%s\n' "$out" | grep -cE "^ *[01] +${tag}-[ab] ")
  if [ "$rc" != 0 ] || [ -z "$want" ] || [ "$got" != "$want" ] || [ "$hosts" != 2 ] ||
     ! printf '%s\n' "$out" | grep -q '^Test PASSED!$'; then
    echo "FAIL: $args: exit $rc, result '$got', single host '$want', $hosts rows of the two hosts"
    printf '%s\n' "$out" | sed 's/^/  | /'
    fail=1
  else
    echo "ok: $args: $got on two hosts, as on one"
  fi
done
[ "$fail" = 0 ] || exit 1

# 2. The second host's rank killed mid-run: the job ends, saying so.
out="$dir/killed.txt"
start=$(date +%s)
wrap=$dir/rank timeout 90 bash -c "$(declare -f launch); $(declare -p tag ns1 dir net mpirun ocr); launch --type float -s 4000037 -r 100000" > "$out" 2>&1 &
job=$!
victim=
for _ in $(seq 1 300); do  # up to 60 s for it to start running
  for p in $(ip netns pids "$ns2" 2>/dev/null); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = oclReduction ] && victim=$p
  done
  [ -n "$victim" ] && break
  sleep 0.2
done
[ -n "$victim" ] || { echo "FAIL: no rank started in the second namespace"; sed 's/^/  | /' "$out"; exit 1; }
sleep 2  # past the build, into the runs
kill -9 "$victim"
wait "$job"
rc=$?
took=$(( $(date +%s) - start ))
sed 's/^/  | /' "$out" | tail -20
if [ "$rc" = 124 ]; then echo "FAIL: the job hung after a rank was killed (stopped at 90 s)"; exit 1; fi
case $rc in 0|1) echo "FAIL: exit status $rc after a rank was killed"; exit 1 ;; esac
grep -qE "process rank 1 .* exited on signal 9" "$out" ||
  { echo "FAIL: no message names the killed rank"; exit 1; }
grep -q '^Test PASSED!$' "$out" && { echo "FAIL: PASSED after a rank was killed"; exit 1; }
survivor=$(cat "$dir/exit.0" 2>/dev/null)
[ "$survivor" = 3 ] || { echo "FAIL: the surviving rank 0 exited with '$survivor', not 3"; exit 1; }
grep -qE "rank 0 of 2 \(${tag}-a\) ended by the launcher \(SIGTERM\)" "$out" ||
  { echo "FAIL: the surviving rank did not say why it ended"; exit 1; }
echo "ok: rank 1 killed: exit $rc after ${took} s; rank 0 said why and exited 3"
