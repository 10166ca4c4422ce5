package sqe_test

import _ "github.com/go-sql-driver/mysql"

var allBackends = []backend{{name: "mysql", driver: "mysql"}}
