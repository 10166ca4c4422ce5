package main

import (
	_ "github.com/go-sql-driver/mysql"               // --dsn for --dialect mysql
	_ "github.com/jackc/pgx/v5/stdlib"               // --dsn for --dialect postgres
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the postgres dialect
)
