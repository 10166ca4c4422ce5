#!/usr/bin/env bash
#
# Runs the data-access libraries' own test suites (sqlx, pgx's stdlib
# package, GORM) with their databases opened through sqe, on real MariaDB
# and PostgreSQL, raw, with an allow-all policy and with a policy on a table
# the suites do not use, and prints per suite passed/failed/skipped and every
# test that passes raw but not through sqe (see examples/peersuites).
#
# Usage:
#
#   ./scripts/peer-suites.sh [-suites sqlx,pgx-stdlib,gorm] [-out FILE] [-work DIR]
#
# The servers: those named by SQE_MYSQL_ADMIN_DSN and SQE_POSTGRES_ADMIN_DSN
# (scripts/test.sh exports them and calls this script); when neither is set,
# the script starts its own (scripts/lib/servers.sh, same knobs).
#
# sqlx and pgx are fetched from the Go module proxy by the go command. GORM's
# tests (the module gorm.io/gorm/tests) are not published there: they are
# taken from SQE_PEER_GORM_SRC, a checkout of github.com/go-gorm/gorm at
# the commit pinned below, or else downloaded from GitHub at that commit;
# when neither works the GORM suite is skipped with the reason printed.
#
# Exit status: 0 when every test that passes raw passes through sqe, or is
# listed with its reason in examples/peersuites/known-failures.txt, and
# every policy run enforced its policy; 1 otherwise; 2 when the harness
# itself failed.

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib/servers.sh
source scripts/lib/servers.sh

# GORM's tests: v1.31.2 of github.com/go-gorm/gorm (the version
# examples/go.mod requires); keep in step with examples/peersuites/suites.go.
GORM_VERSION=v1.31.2
GORM_COMMIT=1d6ce99528060be18a42be09aca8d39efcb47f28

case ${1:-} in
-h | --help)
	sed -n '3,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
	exit 0
	;;
esac

if [[ -z ${SQE_MYSQL_ADMIN_DSN:-} && -z ${SQE_POSTGRES_ADMIN_DSN:-} ]]; then
	sqe_servers_start
fi

if [[ -z ${SQE_PEER_GORM_SRC:-} ]] && ! command -v curl >/dev/null; then
	sqe_warn "GORM's tests skipped: no curl to download GORM $GORM_VERSION ($GORM_COMMIT), and the Go module proxy does not serve gorm.io/gorm/tests; set SQE_PEER_GORM_SRC to a checkout to run them"
elif [[ -z ${SQE_PEER_GORM_SRC:-} ]]; then
	gorm_dir=$(mktemp -d "${TMPDIR:-/tmp}/sqe-gorm-src.XXXXXX")
	url=https://codeload.github.com/go-gorm/gorm/tar.gz/$GORM_COMMIT
	if curl -fsSL --connect-timeout 10 --max-time 120 "$url" 2>"$gorm_dir.err" |
		tar -xz -C "$gorm_dir" --strip-components=1 2>>"$gorm_dir.err" &&
		[[ -f $gorm_dir/tests/go.mod ]]; then
		export SQE_PEER_GORM_SRC=$gorm_dir
		sqe_log "GORM $GORM_VERSION ($GORM_COMMIT) downloaded"
	else
		sqe_warn "GORM's tests skipped: GORM $GORM_VERSION ($GORM_COMMIT) could not be downloaded from GitHub ($(tr '\n' ' ' <"$gorm_dir.err" | cut -c1-200)), and the Go module proxy does not serve gorm.io/gorm/tests; set SQE_PEER_GORM_SRC to a checkout to run them"
	fi
	rm -f "$gorm_dir.err"
fi

# Not exec: when this script started the servers, its EXIT trap stops them.
rc=0
(cd examples && go run ./peersuites/cmd/peersuites "$@") || rc=$?
exit "$rc"
