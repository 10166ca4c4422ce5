package sqe

import (
	"context"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
)

type otherRewriter struct{}

func (otherRewriter) RewriteQuery(ctx context.Context, conn *pgx.Conn, sql string, args []any) (string, []any, error) {
	return "SELECT 1", nil, nil
}

func TestPgxNamedArgsAreAppliedBeforePlanning(t *testing.T) {
	q, args, err := applyQueryRewriters(context.Background(), "SELECT id FROM t WHERE id = @id AND name = @name",
		[]driver.NamedValue{{Ordinal: 1, Value: pgx.NamedArgs{"id": 3, "name": "x"}}})
	if err != nil || q != "SELECT id FROM t WHERE id = $1 AND name = $2" || len(args) != 2 || args[0].Value != 3 || args[1].Value != "x" {
		t.Fatalf("%q %v %v", q, args, err)
	}
	if _, _, err := applyQueryRewriters(context.Background(), "SELECT 2", []driver.NamedValue{{Ordinal: 1, Value: otherRewriter{}}}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("another query rewriter: %v", err)
	}
	q, args, err = applyQueryRewriters(context.Background(), "SELECT ?", []driver.NamedValue{{Ordinal: 1, Value: 1}})
	if err != nil || q != "SELECT ?" || len(args) != 1 {
		t.Fatalf("plain arguments changed: %q %v %v", q, args, err)
	}
}
