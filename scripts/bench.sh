#!/usr/bin/env bash
#
# Runs the sqe benchmarks against real, throwaway MariaDB and PostgreSQL
# servers (the same setup as scripts/test.sh) and summarises them with
# benchstat when it can be built.
#
# Usage (package paths relative to the repository root):
#
#   ./scripts/bench.sh                         all benchmarks, 6 runs each
#   ./scripts/bench.sh ./rewriter/             only these packages
#   ./scripts/bench.sh -bench Rewrite ./rewriter/
#                                              arguments are passed to go test
#                                              after the defaults (./... unless
#                                              a package is given)
#   COUNT=10 ./scripts/bench.sh                runs per benchmark (default 6)
#   SQE_BENCH_BASE=old.txt ./scripts/bench.sh  compare against an earlier run
#   CHARTS=docs/img ./scripts/bench.sh …       also draw the charts of
#                                              docs/performance.md from the
#                                              results (examples/benchchart)
#   ./scripts/bench.sh --charts FILE DIR       only draw them, from an earlier
#                                              run's raw output
#
# The raw output is kept in $SQE_BENCH_OUT (default
# /tmp/sqe-bench-YYYYmmdd-HHMMSS.txt) for later comparisons.
#
# Statement logging on the servers is off by default here, so that it does
# not weigh on the numbers (SQE_STATEMENT_LOGS=1 turns it on; the log paths
# are exported either way).

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${SQE_STATEMENT_LOGS:=0}"
# shellcheck source=scripts/lib/servers.sh
source scripts/lib/servers.sh

BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

# draw_charts FILE DIR: the PNG charts of the benchmarks in FILE.
draw_charts() {
	local in dir
	in=$(realpath "$1")
	mkdir -p "$2"
	dir=$(cd "$2" && pwd)
	(cd examples && go run ./benchchart -out "$dir") <"$in"
}

case ${1:-} in
-h | --help)
	sed -n '3,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
	exit 0
	;;
--charts)
	[[ $# -eq 3 ]] || sqe_die "usage: $0 --charts FILE DIR"
	draw_charts "$2" "$3"
	exit 0
	;;
esac

count=${COUNT:-6}
out=${SQE_BENCH_OUT:-${TMPDIR:-/tmp}/sqe-bench-$(date +%Y%m%d-%H%M%S).txt}
if [[ -n ${SQE_BENCH_BASE:-} && ! -r $SQE_BENCH_BASE ]]; then
	sqe_die "SQE_BENCH_BASE=$SQE_BENCH_BASE is not readable"
fi

sqe_servers_start

sqe_split_go_args "$@"
args=("${SQE_GO_ARGS[@]}")
sqe_log "go test -run '^\$' -bench . -benchmem -count $count ${args[*]}"
rc=0
go test -run '^$' -bench . -benchmem -count "$count" "${args[@]}" | tee "$out" || rc=$?
if ((rc != 0)); then
	sqe_log "go test: FAILED (exit $rc); output in $out"
	exit "$rc"
fi
sqe_log "raw results: $out"

# The servers are not needed for the summary.
sqe_servers_stop

if ! grep -q '^Benchmark' "$out"; then
	sqe_log "no benchmarks ran"
	exit 0
fi
sqe_log "benchstat"
if [[ -n ${SQE_BENCH_BASE:-} ]]; then
	files=("$SQE_BENCH_BASE" "$out")
else
	files=("$out")
fi
if ! go run "$BENCHSTAT" "${files[@]}"; then
	sqe_warn "benchstat unavailable (could not build $BENCHSTAT); raw results are in $out"
fi
if [[ -n ${CHARTS:-} ]]; then
	sqe_log "charts in $CHARTS"
	draw_charts "$out" "$CHARTS"
fi
exit 0
