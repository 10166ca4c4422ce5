# shellcheck shell=bash
#
# Throwaway MariaDB and PostgreSQL servers, and an MIT Kerberos KDC, for the
# integration tests.
# Sourced by scripts/test.sh and scripts/bench.sh; not meant to be run.
#
#   sqe_install_packages   apt-get install mariadb-server/postgresql/krb5-kdc if missing,
#                          and what builds sqe's mask functions (udf/native)
#   sqe_servers_start      start the servers on loopback, export the SQE_* env
#   sqe_servers_stop       stop the servers, remove the data dirs (idempotent)
#   sqe_print_env          print the export lines for the running servers
#   sqe_write_env_file F   write them to F (sourceable)
#   sqe_wait_servers       block until interrupted or a server dies
#
# sqe_servers_start installs an EXIT trap (plus INT/TERM/HUP) that stops the
# servers and removes the data dirs however the script ends; the script's exit
# status is preserved.
#
# Knobs (environment):
#   SQE_MYSQL_PORT        MariaDB TCP port            (default 13306)
#   SQE_POSTGRES_PORT     PostgreSQL TCP port         (default 15432)
#   SQE_KDC_PORT          Kerberos KDC TCP/UDP port   (default 18088)
#   SQE_TEST_PASSWORD     password of the sqe user    (default: random per run)
#   SQE_TEST_TMPDIR       parent of the data dir      (default: $TMPDIR or /tmp)
#   SQE_START_TIMEOUT     seconds to wait per server  (default 120)
#   SQE_STATEMENT_LOGS    1: MariaDB general_log and PostgreSQL log_statement=all
#                         (default 1); 0 leaves the log files empty
#   SQE_PG_BINDIR         PostgreSQL bin dir (default: newest /usr/lib/postgresql/*/bin)
#   SQE_KEEP_DATA=1       keep the data dir (logs) after exit, for debugging
#
# Exported for the tests (see internal/testdb):
#   SQE_MYSQL_DSN, SQE_MYSQL_ADMIN_DSN, SQE_MYSQL_GENERAL_LOG,
#   SQE_POSTGRES_DSN, SQE_POSTGRES_ADMIN_DSN, SQE_POSTGRES_LOG,
#   SQE_KRB5_CONFIG (krb5.conf of realm SQE.TEST), SQE_KRB5_CLIENT (a client
#   principal), SQE_KRB5_CLIENT_PASSWORD, SQE_KRB5_CLIENT_KEYTAB,
#   SQE_KRB5_SERVICE_KEYTAB (the keytab of HTTP/localhost)

: "${SQE_MYSQL_PORT:=13306}"
: "${SQE_POSTGRES_PORT:=15432}"
: "${SQE_KDC_PORT:=18088}"
: "${SQE_START_TIMEOUT:=120}"
: "${SQE_STATEMENT_LOGS:=1}"
: "${SQE_KEEP_DATA:=0}"

SQE_DB_NAME=sqe_test
SQE_DB_USER=sqe

# State, used by sqe_servers_stop.
SQE__DIR=""
SQE__MYSQL_PID=""
SQE__PG_STARTED=0
SQE__KDC_PID=""
SQE__ENV_FILE=""
SQE__POLICY_RC_D=""
SQE__APT_UPDATED=0
SQE__WAIT_PID=""

sqe_log() { printf '==> %s\n' "$*" >&2; }
sqe_warn() { printf 'warning: %s\n' "$*" >&2; }
sqe_die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# sqe__tail FILE: show the end of a server log after a failure.
sqe__tail() {
	if [[ -s $1 ]]; then
		printf -- '----- last lines of %s -----\n' "$1" >&2
		tail -n 40 "$1" >&2 || true
		printf -- '-----\n' >&2
	else
		printf '(%s is empty or missing)\n' "$1" >&2
	fi
}

sqe__is_root() { [[ $(id -u) -eq 0 ]]; }

sqe__pkg_installed() {
	[[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

# sqe__pg_bindir prints the PostgreSQL server bin dir (newest major version).
sqe__pg_bindir() {
	if [[ -n ${SQE_PG_BINDIR:-} ]]; then
		printf '%s\n' "$SQE_PG_BINDIR"
		return
	fi
	local d best="" bestv=0 v
	for d in /usr/lib/postgresql/*/bin; do
		[[ -x $d/postgres && -x $d/initdb ]] || continue
		v=${d#/usr/lib/postgresql/}
		v=${v%%/*}
		[[ $v =~ ^[0-9]+$ ]] || continue
		if ((v > bestv)); then
			bestv=$v
			best=$d
		fi
	done
	printf '%s\n' "$best"
}

sqe__have_servers() {
	command -v mariadbd >/dev/null 2>&1 || [[ -x /usr/sbin/mariadbd ]] || return 1
	command -v mariadb-install-db >/dev/null 2>&1 || return 1
	command -v mariadb >/dev/null 2>&1 || return 1
	[[ -n $(sqe__pg_bindir) ]] || return 1
	[[ -x $(sqe__pg_bindir)/psql && -x $(sqe__pg_bindir)/pg_isready ]] || return 1
	local k
	for k in krb5kdc kdb5_util kadmin.local kinit; do
		command -v "$k" >/dev/null 2>&1 || [[ -x /usr/sbin/$k ]] || return 1
	done
}

# sqe__restore_policy_rc_d removes the policy-rc.d we put in place (if any).
sqe__restore_policy_rc_d() {
	if [[ -n $SQE__POLICY_RC_D ]]; then
		rm -f "$SQE__POLICY_RC_D"
		SQE__POLICY_RC_D=""
	fi
}

# sqe_install_packages installs the database servers with apt-get if they are
# missing. The distro services are never used: a temporary policy-rc.d keeps
# the package scripts from starting them.
sqe_install_packages() {
	local missing=() p
	for p in mariadb-server mariadb-client postgresql krb5-kdc krb5-admin-server krb5-user; do
		sqe__pkg_installed "$p" || missing+=("$p")
	done
	if ((${#missing[@]} == 0)) && sqe__have_servers; then
		return 0
	fi
	((${#missing[@]} > 0)) || missing=(mariadb-server mariadb-client postgresql krb5-kdc krb5-admin-server krb5-user)
	if ! sqe__is_root; then
		sqe_die "missing packages: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) or run as root"
	fi
	command -v apt-get >/dev/null 2>&1 || sqe_die "missing packages ${missing[*]} and no apt-get"

	export DEBIAN_FRONTEND=noninteractive
	local apt_opts=(-q -y -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
	if [[ $SQE__APT_UPDATED != 1 ]]; then
		sqe_log "apt-get update"
		apt-get -q -o DPkg::Lock::Timeout=300 update >/dev/null || sqe_die "apt-get update failed"
		SQE__APT_UPDATED=1
	fi
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 0755 /usr/sbin/policy-rc.d
		SQE__POLICY_RC_D=/usr/sbin/policy-rc.d
	fi
	sqe_log "apt-get install ${missing[*]}"
	local rc=0
	apt-get "${apt_opts[@]}" install --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/sqe-apt.log" 2>&1 || rc=$?
	((rc != 0)) || rm -f "${TMPDIR:-/tmp}/sqe-apt.log"
	sqe__restore_policy_rc_d
	if ((rc != 0)); then
		sqe__tail "${TMPDIR:-/tmp}/sqe-apt.log"
		sqe_die "apt-get install ${missing[*]} failed (exit $rc)"
	fi
	sqe__have_servers || sqe_die "packages installed but mariadbd/initdb/psql/krb5kdc not found"
}

# sqe__install_build_packages installs what builds sqe's mask functions
# for both servers (a C compiler and the servers' development headers),
# once the servers are installed (PostgreSQL's headers follow its version).
sqe__install_build_packages() {
	local bindir v missing=() p
	bindir=$(sqe__pg_bindir)
	v=${bindir#/usr/lib/postgresql/}
	v=${v%%/*}
	for p in gcc make libc6-dev libmariadb-dev "postgresql-server-dev-$v"; do
		sqe__pkg_installed "$p" || missing+=("$p")
	done
	((${#missing[@]} > 0)) || return 0
	sqe__is_root || sqe_die "missing packages: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) or run as root"
	export DEBIAN_FRONTEND=noninteractive
	if [[ $SQE__APT_UPDATED != 1 ]]; then
		sqe_log "apt-get update"
		apt-get -q -o DPkg::Lock::Timeout=300 update >/dev/null || sqe_die "apt-get update failed"
		SQE__APT_UPDATED=1
	fi
	sqe_log "apt-get install ${missing[*]}"
	apt-get -q -y -o DPkg::Lock::Timeout=300 install --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/sqe-apt.log" 2>&1 || {
		sqe__tail "${TMPDIR:-/tmp}/sqe-apt.log"
		sqe_die "apt-get install ${missing[*]} failed"
	}
	rm -f "${TMPDIR:-/tmp}/sqe-apt.log"
}

# sqe__build_native builds sqe's mask functions (udf/native) into
# $SQE__DIR/native, where the servers started next load them from: a
# plugin directory of MariaDB's own plugins and sqe_mask.so, and
# PostgreSQL's dynamic_library_path. The tests install them in their
# databases (udf/native/install-*.sql).
sqe__build_native() {
	local src out=$SQE__DIR/native pgconfig bindir f
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../udf/native" && pwd)
	bindir=$(sqe__pg_bindir)
	pgconfig=$bindir/pg_config
	[[ -x $pgconfig ]] || pgconfig=pg_config
	sqe_log "building the mask functions (udf/native)"
	if ! make -s -C "$src" OUT="$out" PG_CONFIG="$pgconfig" all >"$SQE__DIR/native.log" 2>&1; then
		sqe__tail "$SQE__DIR/native.log"
		sqe_die "building udf/native failed"
	fi
	mkdir -p "$out/plugin"
	for f in /usr/lib/mysql/plugin/*; do
		[[ -e $f ]] && ln -s "$f" "$out/plugin/"
	done
	cp "$out/mariadb/sqe_mask.so" "$out/plugin/sqe_mask.so"
	chmod -R a+rX "$out"
}

# sqe__port_busy PORT: true if something accepts connections on 127.0.0.1:PORT.
sqe__port_busy() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# sqe__as_pg CMD...: run CMD as the PostgreSQL OS user (postgres when root).
sqe__as_pg() {
	if sqe__is_root; then
		(cd "$SQE__DIR/pg" && runuser -u postgres -- "$@")
	else
		(cd "$SQE__DIR/pg" && "$@")
	fi
}

sqe__random_password() {
	od -An -N12 -tx1 /dev/urandom | tr -d ' \n'
}

sqe__start_mysql() {
	local dir=$SQE__DIR/mysql port=$SQE_MYSQL_PORT
	local data=$dir/data sock=$dir/mysqld.sock errlog=$dir/error.log glog=$dir/general.log
	local mariadbd
	mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
	mkdir -p "$data" "$dir/tmp"
	: >"$errlog"
	: >"$glog"
	chmod 0755 "$dir"
	chmod 0644 "$errlog" "$glog"
	local user_opt=()
	if sqe__is_root; then
		chown -R mysql:mysql "$dir"
		user_opt=(--user=mysql)
	fi

	sqe_log "MariaDB: initialising $data ($("$mariadbd" --version 2>/dev/null | awk '{print $3}'))"
	if ! mariadb-install-db --no-defaults "${user_opt[@]}" --datadir="$data" \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$dir/install.log" 2>&1; then
		sqe__tail "$dir/install.log"
		sqe_die "mariadb-install-db failed"
	fi

	local opts=(
		--no-defaults "${user_opt[@]}"
		--datadir="$data" --tmpdir="$dir/tmp"
		--socket="$sock" --pid-file="$dir/mysqld.pid"
		--bind-address=127.0.0.1 --port="$port"
		--skip-name-resolve
		--log-error="$errlog"
		--log-output=FILE --general-log-file="$glog"
		--general-log="$SQE_STATEMENT_LOGS"
		--local-infile=0
		--character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci
		--max-connections=500
		--innodb-buffer-pool-size=256M
		--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0
		--innodb-use-native-aio=0
		--skip-log-bin --sync-binlog=0
		--default-time-zone=+00:00
		--plugin-dir="$SQE__DIR/native/plugin"
	)
	sqe_log "MariaDB: starting on 127.0.0.1:$port"
	"$mariadbd" "${opts[@]}" </dev/null >>"$errlog" 2>&1 &
	SQE__MYSQL_PID=$!

	local deadline=$((SECONDS + SQE_START_TIMEOUT))
	until mariadb-admin --no-defaults --socket="$sock" -uroot --connect-timeout=2 ping >/dev/null 2>&1; do
		if ! kill -0 "$SQE__MYSQL_PID" 2>/dev/null; then
			SQE__MYSQL_PID=""
			sqe__tail "$errlog"
			sqe_die "MariaDB exited during startup (port $port; set SQE_MYSQL_PORT to use another)"
		fi
		if ((SECONDS >= deadline)); then
			sqe__tail "$errlog"
			sqe_die "MariaDB did not accept connections within ${SQE_START_TIMEOUT}s"
		fi
		sleep 0.3
	done

	local pw=$SQE_TEST_PASSWORD u=$SQE_DB_USER
	if ! mariadb --no-defaults --socket="$sock" -uroot >"$dir/setup.log" 2>&1 <<-SQL; then
		CREATE USER '$u'@'127.0.0.1' IDENTIFIED BY '$pw';
		CREATE USER '$u'@'localhost' IDENTIFIED BY '$pw';
		GRANT ALL PRIVILEGES ON *.* TO '$u'@'127.0.0.1' WITH GRANT OPTION;
		GRANT ALL PRIVILEGES ON *.* TO '$u'@'localhost' WITH GRANT OPTION;
		GRANT CREATE USER ON *.* TO '$u'@'127.0.0.1';
		GRANT CREATE USER ON *.* TO '$u'@'localhost';
		CREATE DATABASE $SQE_DB_NAME CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
	SQL
		sqe__tail "$dir/setup.log"
		sqe_die "MariaDB: creating user/database failed"
	fi
	if ! MYSQL_PWD=$pw mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$port" -u"$u" \
		--connect-timeout=5 -e 'SELECT 1' "$SQE_DB_NAME" >/dev/null 2>"$dir/setup.log"; then
		sqe__tail "$dir/setup.log"
		sqe_die "MariaDB: cannot log in as $u over TCP on 127.0.0.1:$port"
	fi

	export SQE_MYSQL_DSN="$u:$pw@tcp(127.0.0.1:$port)/$SQE_DB_NAME?parseTime=true&multiStatements=false"
	export SQE_MYSQL_ADMIN_DSN="$u:$pw@tcp(127.0.0.1:$port)/?parseTime=true&multiStatements=false"
	export SQE_MYSQL_GENERAL_LOG=$glog
	sqe_log "MariaDB: ready (log: $glog)"
}

sqe__start_postgres() {
	local dir=$SQE__DIR/pg port=$SQE_POSTGRES_PORT bindir
	bindir=$(sqe__pg_bindir)
	[[ -n $bindir ]] || sqe_die "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (set SQE_PG_BINDIR)"
	local data=$dir/data sock=$dir/sock log=$dir/postgres.log
	mkdir -p "$data" "$sock"
	: >"$log"
	chmod 0644 "$log"
	chmod 0700 "$data"
	chmod 0755 "$dir"
	if sqe__is_root; then
		chown -R postgres:postgres "$dir"
		runuser -u postgres -- test -w "$dir" ||
			sqe_die "user postgres cannot write $dir (set SQE_TEST_TMPDIR to a dir it can reach)"
	fi

	sqe_log "PostgreSQL: initialising $data ($("$bindir/postgres" --version | awk '{print $3}'))"
	if ! sqe__as_pg "$bindir/initdb" -D "$data" -U postgres --auth-local=trust \
		--auth-host=scram-sha-256 --encoding=UTF8 --locale=C --no-sync \
		>"$dir/initdb.log" 2>&1; then
		sqe__tail "$dir/initdb.log"
		sqe_die "initdb failed"
	fi

	local preload=""
	if [[ -e ${bindir%/bin}/lib/pg_stat_statements.so ]]; then
		preload=pg_stat_statements
	else
		sqe_warn "pg_stat_statements not available; not preloading it"
	fi
	local logstmt=none
	[[ $SQE_STATEMENT_LOGS == 1 ]] && logstmt=all
	cat >>"$data/postgresql.conf" <<-CONF

		# scripts/lib/servers.sh: throwaway test server
		listen_addresses = '127.0.0.1'
		port = $port
		unix_socket_directories = '$sock'
		max_connections = 300
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		logging_collector = off
		log_destination = 'stderr'
		log_statement = '$logstmt'
		log_line_prefix = '%m [%p] %q%u@%d '
		log_min_error_statement = error
		timezone = 'UTC'
		shared_preload_libraries = '$preload'
		dynamic_library_path = '\$libdir:$SQE__DIR/native/postgres'
	CONF
	[[ -n $preload ]] && echo "pg_stat_statements.track = all" >>"$data/postgresql.conf"

	sqe_log "PostgreSQL: starting on 127.0.0.1:$port"
	SQE__PG_STARTED=1
	if ! sqe__as_pg "$bindir/pg_ctl" -D "$data" -l "$log" -w -t "$SQE_START_TIMEOUT" start >/dev/null 2>"$dir/pg_ctl.log"; then
		cat "$dir/pg_ctl.log" >&2
		sqe__tail "$log"
		sqe_die "PostgreSQL did not start within ${SQE_START_TIMEOUT}s (port $port; set SQE_POSTGRES_PORT to use another)"
	fi
	local deadline=$((SECONDS + SQE_START_TIMEOUT))
	until "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -t 2; do
		if ((SECONDS >= deadline)); then
			sqe__tail "$log"
			sqe_die "PostgreSQL did not accept connections on 127.0.0.1:$port within ${SQE_START_TIMEOUT}s"
		fi
		sleep 0.3
	done

	local pw=$SQE_TEST_PASSWORD u=$SQE_DB_USER
	if ! "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U postgres -d postgres >"$dir/setup.log" 2>&1 <<-SQL; then
		CREATE ROLE $u SUPERUSER LOGIN PASSWORD '$pw';
		CREATE DATABASE $SQE_DB_NAME OWNER $u;
	SQL
		sqe__tail "$dir/setup.log"
		sqe_die "PostgreSQL: creating role/database failed"
	fi
	if ! PGPASSWORD=$pw PGCONNECT_TIMEOUT=5 "$bindir/psql" -X -q -At -h 127.0.0.1 -p "$port" -U "$u" -d "$SQE_DB_NAME" \
		-c 'SELECT 1' >/dev/null 2>"$dir/setup.log"; then
		sqe__tail "$dir/setup.log"
		sqe_die "PostgreSQL: cannot log in as $u over TCP on 127.0.0.1:$port"
	fi

	export SQE_POSTGRES_DSN="postgres://$u:$pw@127.0.0.1:$port/$SQE_DB_NAME?sslmode=disable"
	export SQE_POSTGRES_ADMIN_DSN="postgres://$u:$pw@127.0.0.1:$port/postgres?sslmode=disable"
	export SQE_POSTGRES_LOG=$log
	sqe_log "PostgreSQL: ready (log: $log)"
}

# sqe__start_kdc starts an MIT Kerberos KDC for realm SQE.TEST on loopback
# (TCP and UDP), with a client principal (password and keytab) and the
# service principal HTTP/localhost (keytab), for the Ranger download tests.
sqe__start_kdc() {
	local dir=$SQE__DIR/kdc port=$SQE_KDC_PORT realm=SQE.TEST
	local kdb5_util kadmin krb5kdc
	kdb5_util=$(command -v kdb5_util || echo /usr/sbin/kdb5_util)
	kadmin=$(command -v kadmin.local || echo /usr/sbin/kadmin.local)
	krb5kdc=$(command -v krb5kdc || echo /usr/sbin/krb5kdc)
	mkdir -p "$dir"
	cat >"$dir/kdc.conf" <<-EOF
		[kdcdefaults]
		 kdc_ports = $port
		 kdc_tcp_ports = $port
		[realms]
		 $realm = {
		  database_name = $dir/principal
		  key_stash_file = $dir/stash
		  acl_file = $dir/kadm5.acl
		  max_life = 10h
		  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
		 }
		[logging]
		 kdc = FILE:$dir/kdc.log
	EOF
	cat >"$dir/krb5.conf" <<-EOF
		[libdefaults]
		 default_realm = $realm
		 dns_lookup_kdc = false
		 dns_lookup_realm = false
		 udp_preference_limit = 1
		 default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
		 default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
		 permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
		[realms]
		 $realm = {
		  kdc = 127.0.0.1:$port
		 }
		[domain_realm]
		 localhost = $realm
	EOF
	: >"$dir/kadm5.acl"
	local pw master
	pw=$(sqe__random_password)
	master=$(sqe__random_password)
	sqe_log "Kerberos KDC: creating realm $realm in $dir"
	(
		export KRB5_CONFIG=$dir/krb5.conf KRB5_KDC_PROFILE=$dir/kdc.conf
		"$kdb5_util" create -s -r "$realm" -P "$master" &&
			"$kadmin" -r "$realm" -q "addprinc -pw $pw sqe-client" &&
			"$kadmin" -r "$realm" -q "addprinc -randkey HTTP/localhost" &&
			"$kadmin" -r "$realm" -q "ktadd -k $dir/service.keytab HTTP/localhost" &&
			"$kadmin" -r "$realm" -q "ktadd -norandkey -k $dir/client.keytab sqe-client"
	) >"$dir/setup.log" 2>&1 || {
		sqe__tail "$dir/setup.log"
		sqe_die "creating the Kerberos realm failed"
	}
	KRB5_CONFIG=$dir/krb5.conf KRB5_KDC_PROFILE=$dir/kdc.conf "$krb5kdc" -n -r "$realm" >"$dir/krb5kdc.out" 2>&1 &
	SQE__KDC_PID=$!
	local deadline=$((SECONDS + SQE_START_TIMEOUT))
	until sqe__port_busy "$port"; do
		if ! kill -0 "$SQE__KDC_PID" 2>/dev/null; then
			sqe__tail "$dir/krb5kdc.out"
			sqe_die "the Kerberos KDC did not start"
		fi
		((SECONDS < deadline)) || sqe_die "the Kerberos KDC did not listen on 127.0.0.1:$port in ${SQE_START_TIMEOUT}s"
		sleep 0.2
	done
	sqe_log "Kerberos KDC: up on 127.0.0.1:$port"
	export SQE_KRB5_CONFIG=$dir/krb5.conf
	export SQE_KRB5_CLIENT=sqe-client@$realm
	export SQE_KRB5_CLIENT_PASSWORD=$pw
	export SQE_KRB5_CLIENT_KEYTAB=$dir/client.keytab
	export SQE_KRB5_SERVICE_KEYTAB=$dir/service.keytab
}

sqe__stop_kdc() {
	[[ -n $SQE__KDC_PID ]] || return 0
	local pid=$SQE__KDC_PID
	SQE__KDC_PID=""
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

sqe__stop_mysql() {
	[[ -n $SQE__MYSQL_PID ]] || return 0
	local pid=$SQE__MYSQL_PID
	SQE__MYSQL_PID=""
	kill -0 "$pid" 2>/dev/null || return 0
	sqe_log "MariaDB: stopping"
	kill -TERM "$pid" 2>/dev/null
	local deadline=$((SECONDS + 60))
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			sqe_warn "MariaDB (pid $pid) did not stop in 60s; killing it"
			kill -KILL "$pid" 2>/dev/null
			break
		fi
		sleep 0.2
	done
	wait "$pid" 2>/dev/null
	return 0
}

sqe__stop_postgres() {
	[[ $SQE__PG_STARTED == 1 ]] || return 0
	SQE__PG_STARTED=0
	local bindir data=$SQE__DIR/pg/data
	bindir=$(sqe__pg_bindir)
	[[ -f $data/postmaster.pid ]] || return 0
	sqe_log "PostgreSQL: stopping"
	if ! sqe__as_pg "$bindir/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null 2>&1; then
		sqe_warn "PostgreSQL did not stop cleanly; immediate shutdown"
		sqe__as_pg "$bindir/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1
	fi
	return 0
}

# sqe_servers_stop stops both servers and removes the data dir. Safe to call
# more than once.
sqe_servers_stop() {
	if [[ -n $SQE__WAIT_PID ]]; then
		kill "$SQE__WAIT_PID" 2>/dev/null
		wait "$SQE__WAIT_PID" 2>/dev/null
		SQE__WAIT_PID=""
	fi
	sqe__stop_mysql
	sqe__stop_postgres
	sqe__stop_kdc
	sqe__restore_policy_rc_d
	if [[ -n $SQE__ENV_FILE ]]; then
		rm -f "$SQE__ENV_FILE"
		SQE__ENV_FILE=""
	fi
	if [[ -n $SQE__DIR && -d $SQE__DIR ]]; then
		if [[ $SQE_KEEP_DATA == 1 ]]; then
			sqe_log "keeping $SQE__DIR (SQE_KEEP_DATA=1)"
		else
			rm -rf "$SQE__DIR"
		fi
	fi
	SQE__DIR=""
	return 0
}

sqe__on_exit() {
	local rc=$?
	set +e
	trap '' INT TERM HUP
	sqe_servers_stop
	trap - EXIT INT TERM HUP
	exit "$rc"
}

# sqe_servers_start starts MariaDB and PostgreSQL on loopback and exports the
# SQE_* variables. Exits the script with a message on failure (after the EXIT
# trap has cleaned up).
sqe_servers_start() {
	trap sqe__on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP

	sqe_install_packages
	sqe__install_build_packages

	local p
	for p in "$SQE_MYSQL_PORT" "$SQE_POSTGRES_PORT" "$SQE_KDC_PORT"; do
		[[ $p =~ ^[0-9]+$ ]] || sqe_die "invalid port: $p"
		if sqe__port_busy "$p"; then
			sqe_die "127.0.0.1:$p is already in use (servers from another ./scripts/test.sh still running?); set SQE_MYSQL_PORT / SQE_POSTGRES_PORT / SQE_KDC_PORT to other ports"
		fi
	done
	[[ $SQE_MYSQL_PORT != "$SQE_POSTGRES_PORT" && $SQE_KDC_PORT != "$SQE_MYSQL_PORT" && $SQE_KDC_PORT != "$SQE_POSTGRES_PORT" ]] ||
		sqe_die "SQE_MYSQL_PORT, SQE_POSTGRES_PORT and SQE_KDC_PORT must differ"
	[[ $SQE_KDC_PORT =~ ^[0-9]+$ ]] || sqe_die "invalid port: $SQE_KDC_PORT"

	: "${SQE_TEST_PASSWORD:=$(sqe__random_password)}"
	[[ $SQE_TEST_PASSWORD =~ ^[A-Za-z0-9_]+$ ]] || sqe_die "SQE_TEST_PASSWORD must be [A-Za-z0-9_]+ (it goes into DSNs and SQL unquoted)"

	SQE__DIR=$(mktemp -d "${SQE_TEST_TMPDIR:-${TMPDIR:-/tmp}}/sqe-test.XXXXXX")
	chmod 0755 "$SQE__DIR"
	mkdir -p "$SQE__DIR/mysql" "$SQE__DIR/pg"

	sqe__build_native
	sqe__start_mysql
	sqe__start_postgres
	sqe__start_kdc
}

sqe_print_env() {
	local v
	for v in SQE_MYSQL_DSN SQE_MYSQL_ADMIN_DSN SQE_MYSQL_GENERAL_LOG \
		SQE_POSTGRES_DSN SQE_POSTGRES_ADMIN_DSN SQE_POSTGRES_LOG \
		SQE_KRB5_CONFIG SQE_KRB5_CLIENT SQE_KRB5_CLIENT_PASSWORD SQE_KRB5_CLIENT_KEYTAB SQE_KRB5_SERVICE_KEYTAB; do
		local val=${!v}
		printf "export %s='%s'\n" "$v" "${val//\'/\'\\\'\'}"
	done
}

sqe_write_env_file() {
	local f=$1
	(
		umask 077
		{
			echo "# Throwaway sqe test servers (pid $$); removed when they stop."
			sqe_print_env
		} >"$f"
	)
	SQE__ENV_FILE=$f
}

# sqe_wait_servers blocks until the script is interrupted or a server dies.
sqe_wait_servers() {
	local pgpid
	while :; do
		if ! kill -0 "$SQE__MYSQL_PID" 2>/dev/null; then
			sqe__tail "$SQE__DIR/mysql/error.log"
			sqe_die "MariaDB stopped unexpectedly"
		fi
		pgpid=$(head -n 1 "$SQE__DIR/pg/data/postmaster.pid" 2>/dev/null || true)
		if [[ -z $pgpid ]] || ! kill -0 "$pgpid" 2>/dev/null; then
			sqe__tail "$SQE__DIR/pg/postgres.log"
			sqe_die "PostgreSQL stopped unexpectedly"
		fi
		sleep 5 &
		SQE__WAIT_PID=$!
		wait "$SQE__WAIT_PID" || true
		SQE__WAIT_PID=""
	done
}

# sqe_split_go_args ARGS...: finds the package arguments among go test
# arguments. Sets SQE_MODULE, SQE_PKGS (the packages given, or ./...) and
# SQE_GO_ARGS (ARGS, with ./... added before any -args when no package was
# given). A package is an argument starting with ./ ../ or the module path
# that is not the value of a flag such as -run.
# shellcheck disable=SC2034 # SQE_GO_ARGS, SQE_PKGS are for the caller
sqe_split_go_args() {
	SQE_MODULE=$(awk '$1 == "module" { print $2; exit }' go.mod)
	# go test / go build flags that take their value as a separate argument.
	local value_flags=" run skip bench benchtime count cpu parallel timeout tags p list fuzz
 fuzztime fuzzminimizetime coverprofile covermode coverpkg cpuprofile memprofile
 memprofilerate blockprofile blockprofilerate mutexprofile mutexprofilefraction outputdir
 trace shuffle o exec ldflags gcflags asmflags mod modfile overlay pgo toolexec C vet "
	local a name before=() after=() seen_args=0 takes_value=0 dropped_dashes=0
	SQE_PKGS=()
	for a in "$@"; do
		if ((seen_args)); then
			after+=("$a")
			continue
		fi
		if [[ $a == -- ]] && ((!dropped_dashes)); then
			dropped_dashes=1 # separator for this script; not passed on
			continue
		fi
		if [[ $a == -args || $a == --args ]]; then
			seen_args=1
			after+=("$a")
			continue
		fi
		before+=("$a")
		if ((takes_value)); then
			takes_value=0
			continue
		fi
		if [[ $a == -* ]]; then
			name=${a#-}
			name=${name#-}
			name=${name#test.}
			if [[ $name != *=* && $value_flags == *" $name "* ]]; then
				takes_value=1
			fi
			continue
		fi
		case $a in
		. | ./* | .. | ../* | "$SQE_MODULE" | "$SQE_MODULE"/*) SQE_PKGS+=("$a") ;;
		esac
	done
	if ((${#SQE_PKGS[@]} == 0)); then
		SQE_PKGS=(./...)
		before+=(./...)
	fi
	SQE_GO_ARGS=("${before[@]}" "${after[@]}")
}
