#!/bin/sh
# Instructions per poll, which the load of the machine does not change (CPU time does): one library in one
# scenario under `valgrind --tool=callgrind`, counting only the measured window of bench/profile.ts (from the
# first tool call to the last settled one; start-up, connecting and closing are left out). V8 runs single-
# threaded, so its compiler and GC work is counted where it happens. Under valgrind every interval is late, so
# the run is as saturated as scenario 2 on a busy machine: compare libraries within one such count.
#
#   sh bench/instructions.sh ours 1 [--tasks=200 --polls=20]
set -eu
library=${1:?library: ours or floor}
scenario=${2:?scenario: 1, 2, 3 or 8}
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/cg.out" \
  node --single-threaded --expose-gc --import tsx bench/profile.ts \
  --scenario="$scenario" --lib="$library" --handshake "$@" >"$out/stdout" 2>"$out/valgrind" &
vg=$!
wait_for() {
  until grep -q "^$1 " "$out/stdout" 2>/dev/null; do
    kill -0 "$vg" 2>/dev/null || { cat "$out/valgrind" >&2; exit 1; }
    sleep 1
  done
}
wait_for PROFILE_READY
pid=$(sed -n 's/^PROFILE_READY //p' "$out/stdout")
callgrind_control --instr=on "$pid" >/dev/null
kill -USR2 "$pid"
wait_for PROFILE_DONE
callgrind_control --instr=off "$pid" >/dev/null
kill -USR2 "$pid"
wait "$vg"
instructions=$(sed -n 's/^totals: //p' "$out/cg.out")
polls=$(sed -n 's/.* \([0-9]*\) polls, .*/\1/p' "$out/stdout")
echo "$library scenario $scenario: $polls polls, $instructions instructions, $((instructions / polls)) per poll"
