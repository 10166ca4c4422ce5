#!/usr/bin/env bash
#
# Runs the sqe checks and tests against real, throwaway MariaDB and PostgreSQL
# servers (CI runs this via .ci/run, as root, on a fresh Debian 12 machine).
#
# Usage (from anywhere; package paths are relative to the repository root):
#
#   ./scripts/test.sh                        gofmt, go vet, staticcheck and
#                                            go test -race -count=1 on ./...
#                                            of each module
#   ./scripts/test.sh ./policy/ ./session/   the same, for these packages only
#                                            (of any module: ./cmd/sqe/ too)
#   ./scripts/test.sh -run Foo -v ./policy/  extra go test flags are passed on
#   ./scripts/test.sh -- -run Foo            everything after -- goes to go test
#                                            (no package given: ./...)
#   ./scripts/test.sh --servers              start the servers, print the
#                                            export lines and wait (Ctrl-C stops)
#   SQE_TEST_SERVERS_ONLY=1 ./scripts/test.sh
#                                            same as --servers
#
# With --servers the variables are also written to $SQE_TEST_ENV_FILE
# (default /tmp/sqe-test-servers.env), so in another terminal:
#
#   source /tmp/sqe-test-servers.env && go test -run Foo ./policy/
#
# Arguments starting with ./ ../ or the module path (and not the value of a flag
# such as -run) are taken as packages: the lint steps then cover only them.
#
# The repository holds three modules: the library (the root), the CLI
# (cmd/sqe, its own module so that the demo's embedded server stays out of
# the library's requirements) and the examples (ORMs and example programs).
# go.work joins them for work in a clone; this script checks each module on
# its own go.mod (GOWORK=off), as its users build it, and each exactly once.
#
# What it does, in order: installs MariaDB, PostgreSQL and MIT Kerberos with
# apt-get when they are missing (as root), runs gofmt, checks that go
# generate leaves the generated files unchanged, runs go vet and
# staticcheck on each module, starts both servers and a Kerberos KDC on
# loopback with throwaway data directories,
# runs go test -race on the library module, then on the CLI module, then on
# the examples module (the ORM suites and the example programs), runs the
# peers' own test suites through sqe (scripts/peer-suites.sh), stops the
# servers and prints a summary: each step's time and the packages that
# failed. A failing step does not stop the later ones; the exit status is 1
# when any step failed. With packages given, only the lint steps and go
# test for those packages run, in the workspace.
#
# Environment: SQE_TEST_LINT=0 skips gofmt/vet/staticcheck and the check
# that go generate leaves the generated files as committed (local use only);
# SQE_TEST_TIMEOUT is go test's -timeout per module (default 40m; a -timeout
# argument wins); SQE_MYSQL_PORT (13306), SQE_POSTGRES_PORT (15432) and the
# other knobs in scripts/lib/servers.sh.
#
# Exit status: 0 when every step passed, 1 otherwise.

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/servers.sh
source scripts/lib/servers.sh

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2

usage() {
	sed -n '3,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

servers_only=${SQE_TEST_SERVERS_ONLY:-0}
case ${1:-} in
-h | --help)
	usage
	exit 0
	;;
--servers)
	servers_only=1
	shift
	;;
esac

if [[ $servers_only == 1 ]]; then
	((${#} == 0)) || sqe_die "--servers takes no arguments"
	sqe_servers_start
	env_file=${SQE_TEST_ENV_FILE:-${TMPDIR:-/tmp}/sqe-test-servers.env}
	sqe_write_env_file "$env_file"
	echo
	sqe_print_env
	echo
	sqe_log "servers are up; in another shell:  source $env_file && go test ./..."
	sqe_log "press Ctrl-C to stop them (data dir and $env_file are removed)"
	sqe_wait_servers
fi

sqe_split_go_args "$@"
pkgs=("${SQE_PKGS[@]}")
test_args=("${SQE_GO_ARGS[@]}")
module=$SQE_MODULE

# gofmt works on files and directories, not package patterns.
gofmt_targets() {
	local p rel
	for p in "${pkgs[@]}"; do
		rel=$p
		if [[ $rel == "$module" || $rel == "$module"/* ]]; then
			rel=.${rel#"$module"}
		fi
		if [[ $rel == */... || $rel == ... ]]; then
			rel=${rel%...}
			rel=${rel%/}
			printf '%s\n' "${rel:-.}"
		else
			shopt -s nullglob
			local f
			for f in "${rel%/}"/*.go; do printf '%s\n' "$f"; done
			shopt -u nullglob
		fi
	done
}

# Each step records its outcome; a failing step does not stop the next.
script_start=$SECONDS
failed=()      # steps that failed
failed_pkgs=() # packages whose tests failed
summary=() # one line per step: time and outcome

# step NAME CMD...: runs CMD, records its time and outcome.
step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	sqe_log "$name"
	"$@" || rc=$?
	local took=$((SECONDS - t0))
	if ((rc == 0)); then
		summary+=("$(printf '%-48s %4ds  ok' "$name" "$took")")
	else
		summary+=("$(printf '%-48s %4ds  FAILED (exit %d)' "$name" "$took" "$rc")")
		failed+=("$name")
	fi
	return 0
}

check_gofmt() {
	local targets unformatted
	mapfile -t targets < <(gofmt_targets)
	((${#targets[@]} > 0)) || return 0
	unformatted=$(gofmt -l "${targets[@]}")
	if [[ -n $unformatted ]]; then
		printf '%s\n' "$unformatted" >&2
		printf 'gofmt: the files above need formatting (gofmt -w)\n' >&2
		return 1
	fi
}

# go_test DIR LOG ARGS...: go test -race with the timeout in the module at
# DIR, its output also in LOG; the packages that failed are added to
# failed_pkgs.
go_test() {
	local dir=$1 log=$2 rc=0 pkg
	shift 2
	local timeout=(-timeout "${SQE_TEST_TIMEOUT:-40m}")
	if [[ " $* " == *" -timeout "* || " $* " == *" -timeout="* || " $* " == *" -test.timeout"* ]]; then
		timeout=()
	fi
	(cd "$dir" && go test -race -count=1 "${timeout[@]}" "$@") 2>&1 | tee "$log" || rc=$?
	while read -r pkg; do
		failed_pkgs+=("$pkg")
	done < <(sed -n -E 's/^FAIL[[:space:]]+([^[:space:]]+).*/\1/p' "$log" | sort -u)
	return "$rc"
}

logdir=$(mktemp -d "${TMPDIR:-/tmp}/sqe-test-logs.XXXXXX")

# Without packages given, each module is checked on its own go.mod; with
# packages, the workspace (go.work) resolves them, whichever module holds
# them.
modules=(.)
if [[ "${pkgs[*]}" == ./... ]]; then
	export GOWORK=off
	modules=(. cmd/sqe examples)
fi

# in_module DIR: how a step's name says which module it ran in (nothing
# when packages were given).
in_module() {
	((${#modules[@]} > 1)) || return 0
	case $1 in
	.) echo " (library module)" ;;
	cmd/sqe) echo " (CLI module)" ;;
	*) echo " ($1 module)" ;;
	esac
}

# generated_sums: the checksums of the Go files that say they are
# generated (rows_gen.go, internal/fakedriver/shapes_gen.go, ...).
generated_sums() {
	grep -rlE --include='*.go' '^// Code generated .* DO NOT EDIT\.$' . | LC_ALL=C sort | xargs -r sha256sum
}

# check_generated: go generate in each module must leave every generated
# file as it was, else the committed file is out of date with its
# generator or the code it is generated from.
check_generated() {
	local before after m changed
	before=$(generated_sums)
	for m in "${modules[@]}"; do
		(cd "$m" && go generate "${pkgs[@]}") || return 1
	done
	after=$(generated_sums)
	if [[ $before != "$after" ]]; then
		changed=$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") |
			sed -n -E 's/^[<>] [0-9a-f]+  //p' | LC_ALL=C sort -u)
		printf '%s\n' "$changed" >&2
		printf 'generated files out of date: go generate changed the files above (the work tree now has the regenerated ones; review and commit them)\n' >&2
		return 1
	fi
}

if [[ ${SQE_TEST_LINT:-1} != 0 ]]; then
	# gofmt walks directories: for ./... it covers every module at once.
	step "gofmt -l ${pkgs[*]}" check_gofmt
	step "go generate ${pkgs[*]} (no change)" check_generated
	for m in "${modules[@]}"; do
		step "go vet ${pkgs[*]}$(in_module "$m")" bash -c 'cd "$1" && shift && go vet "$@"' _ "$m" "${pkgs[@]}"
		step "staticcheck ${pkgs[*]}$(in_module "$m")" bash -c 'cd "$1" && shift && go run "$@"' _ "$m" "$STATICCHECK" "${pkgs[@]}"
	done
else
	sqe_warn "SQE_TEST_LINT=0: skipping gofmt, go vet and staticcheck"
fi

# A server that does not start ends the script here (no test could run).
t0=$SECONDS
sqe_servers_start
summary+=("$(printf '%-48s %4ds  ok' "install and start MariaDB, PostgreSQL, KDC" "$((SECONDS - t0))")")

step "go test -race ${test_args[*]}$(in_module .)" go_test . "$logdir/core.log" "${test_args[@]}"
if [[ "${pkgs[*]}" == ./... ]]; then
	# The CLI and its demo (with the embedded MySQL-compatible server) live
	# in their own module, so that the library's go.mod stays free of the
	# embedded server; its tests take the same flags.
	step "go test -race ${test_args[*]} (CLI module)" go_test cmd/sqe "$logdir/cli.log" "${test_args[@]}"
fi
if [[ "${test_args[*]}" == ./... ]]; then
	# The ORM suites and the example programs (each built and run against
	# both servers) live in their own module too, so that the library's
	# go.mod stays free of GORM and sqlx.
	step "go test -race ./... (examples module)" go_test examples "$logdir/examples.log" ./...
	# The peers' own test suites (sqlx, pgx, GORM when its source can be
	# had) through sqe, on the servers started above.
	step "peer suites through sqe (scripts/peer-suites.sh)" \
		./scripts/peer-suites.sh -work "$logdir/peer-suites" -out "$logdir/peer-suites.md"
fi

total=$((SECONDS - script_start))
echo >&2
sqe_log "summary ($((total / 60))m$((total % 60))s; logs in $logdir)"
printf '    %s\n' "${summary[@]}" >&2
if ((${#failed[@]} > 0)); then
	sqe_log "FAILED:"
	printf '    %s\n' "${failed[@]}" >&2
	if ((${#failed_pkgs[@]} > 0)); then
		sqe_log "packages that failed:"
		printf '    %s\n' "${failed_pkgs[@]}" >&2
	fi
	exit 1
fi
sqe_log "all passed"
exit 0
