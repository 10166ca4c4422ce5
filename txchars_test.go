package sqe_test

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// SET [SESSION] TRANSACTION reaches MariaDB in a form it reads, with the
// scope the application wrote: SESSION until changed, without it the next
// transaction only.
func TestTransactionCharacteristicsOnMariaDB(t *testing.T) {
	for _, b := range backends() {
		if b.name != "mysql" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			e := newEnv(t, b, fixturePolicy)
			ctx := as(admin)
			conn, err := e.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			exec := func(q string) error {
				_, err := conn.ExecContext(ctx, q)
				return err
			}
			readOnly := func(err error) bool {
				var me *mysql.MySQLError
				return errors.As(err, &me) && me.Number == 1792 // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
			}
			insert := func(id int) error {
				_, err := conn.ExecContext(ctx, "UPDATE customers SET name = name WHERE id = ?", id)
				return err
			}
			must := func(q string) {
				t.Helper()
				if err := exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}

			must("SET SESSION TRANSACTION READ ONLY")
			if err := insert(1); !readOnly(err) {
				t.Fatalf("a write after SET SESSION TRANSACTION READ ONLY: %v", err)
			}
			must("SET SESSION TRANSACTION READ WRITE")
			if err := insert(1); err != nil {
				t.Fatalf("a write after READ WRITE: %v", err)
			}

			// Next transaction only.
			must("SET TRANSACTION READ ONLY")
			must("START TRANSACTION")
			if err := insert(1); !readOnly(err) {
				t.Fatalf("a write in the transaction after SET TRANSACTION READ ONLY: %v", err)
			}
			must("COMMIT")
			if err := insert(1); err != nil {
				t.Fatalf("a write after that transaction: %v", err)
			}

			for _, level := range []string{"READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"} {
				must("SET SESSION TRANSACTION ISOLATION LEVEL " + level)
				var got string
				if err := conn.QueryRowContext(ctx, "SELECT @@tx_isolation").Scan(&got); err != nil {
					t.Fatalf("read the isolation level: %v", err)
				}
				if want := map[string]string{"READ UNCOMMITTED": "READ-UNCOMMITTED", "READ COMMITTED": "READ-COMMITTED",
					"REPEATABLE READ": "REPEATABLE-READ", "SERIALIZABLE": "SERIALIZABLE"}[level]; got != want {
					t.Fatalf("isolation %q after SET SESSION TRANSACTION ISOLATION LEVEL %s", got, level)
				}
			}
			must("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY")
			must("START TRANSACTION")
			if err := insert(2); !readOnly(err) {
				t.Fatalf("a write after SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY: %v", err)
			}
			must("ROLLBACK")
		})
	}
}
