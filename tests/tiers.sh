#!/usr/bin/env bash
# `make test`'s three tiers (docs/tests.md, "Which target runs what"):
# - the Batfish tier: every check that asks the live Batfish service, in one process (one JVM
#   answers them all). It mostly waits on that service, and it measures nothing, so it starts at
#   once and runs in the background for the whole suite; its output is printed whole when it ends;
# - the offline tier and the linters, on every core at once;
# - then the lab tier (namespaces, measurements), which must not share the CPUs with the offline
#   tier: measurements taken beside it were disturbed (docs/benchmarks.md, ci88).
# The suite fails if any tier fails; an interrupted run stops the Batfish tier too.
set -u
bin=${BIN:-.venv/bin}
log=build/tests/batfish-tier.log
mkdir -p "$(dirname "$log")"

# its own session, so that stopping it stops what it started (ansible-playbook, a service)
setsid "$bin/pytest" -q -m "batfish and not soak" --durations=10 tests checks > "$log" 2>&1 &
batfish=$!
trap 'kill -- -"$batfish" 2> /dev/null' EXIT
trap 'exit 130' INT TERM
echo "batfish tier: running in the background (its output: $log, printed here when it ends)"

"${MAKE:-make}" --no-print-directory -j 2 --output-sync=target lint offline || exit
"$bin/pytest" -q -n "${LIVE_WORKERS:-4}" --dist loadfile --no-loadscope-reorder -m "lab and not soak" \
    --durations=20 tests checks
lab=$?

kill -0 "$batfish" 2> /dev/null && echo "batfish tier: still running, waiting for it"
wait "$batfish"
batfish_status=$?
trap - EXIT
echo "================================ batfish tier ================================"
cat "$log"
if ((lab != 0)); then exit "$lab"; fi
exit "$batfish_status"
