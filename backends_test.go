package sqe_test

import (
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	_ "github.com/sqe-project/sqe/rewriter/postgres"
)

// allBackends are the real databases every integration test runs against.
var allBackends = []backend{{name: "mysql", driver: "mysql"}, {name: "postgres", driver: "pgx"}}
