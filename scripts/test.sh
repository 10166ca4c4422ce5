#!/usr/bin/env bash
#
# Runs the sqe checks and tests against real, throwaway MariaDB and PostgreSQL
# servers (CI runs this via .ci/run, as root, on a fresh Debian 12 machine).
#
# Usage (from anywhere; package paths are relative to the repository root):
#
#   ./scripts/test.sh                        gofmt, go vet, staticcheck and
#                                            go test -race -count=1 on ./...
#   ./scripts/test.sh ./policy/ ./session/   the same, for these packages only
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
# Environment: SQE_TEST_LINT=0 skips gofmt/vet/staticcheck (local use only);
# SQE_MYSQL_PORT (13306), SQE_POSTGRES_PORT (15432) and the other knobs in
# scripts/lib/servers.sh.
#
# Exit status: that of go test (or of the first failing step before it).

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

if [[ ${SQE_TEST_LINT:-1} != 0 ]]; then
	sqe_log "gofmt -l (${pkgs[*]})"
	mapfile -t targets < <(gofmt_targets)
	if ((${#targets[@]} > 0)); then
		unformatted=$(gofmt -l "${targets[@]}")
		if [[ -n $unformatted ]]; then
			printf '%s\n' "$unformatted" >&2
			sqe_die "gofmt: the files above need formatting (gofmt -w)"
		fi
	fi

	sqe_log "go vet ${pkgs[*]}"
	go vet "${pkgs[@]}"

	sqe_log "staticcheck ${pkgs[*]}"
	go run "$STATICCHECK" "${pkgs[@]}"

	if [[ "${pkgs[*]}" == ./... ]]; then
		sqe_log "go vet + staticcheck (examples module)"
		(cd examples && go vet ./... && go run "$STATICCHECK" ./...)
	fi
else
	sqe_warn "SQE_TEST_LINT=0: skipping gofmt, go vet and staticcheck"
fi

sqe_servers_start

sqe_log "go test -race -count=1 ${test_args[*]}"
rc=0
go test -race -count=1 "${test_args[@]}" || rc=$?
if ((rc == 0)) && [[ "${test_args[*]}" == ./... ]]; then
	# The ORM suites and the example programs (each built and run against
	# both servers) live in their own module, so that the library's
	# go.mod stays free of GORM, sqlx and the embedded server.
	sqe_log "go test -race -count=1 ./... (examples module)"
	(cd examples && go test -race -count=1 ./...) || rc=$?
fi
if ((rc == 0)); then
	sqe_log "go test: ok"
else
	sqe_log "go test: FAILED (exit $rc)"
fi
exit "$rc"
