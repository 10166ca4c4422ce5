package sqe

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"
	"time"
)

// pgx lets an argument rewrite the statement (a pgx.QueryRewriter such as
// pgx.NamedArgs turns @name placeholders into $n). That would happen inside
// the inner driver, after sqe has rewritten the statement, on SQL sqe did
// not see. pgx's own named-argument rewriters are applied here instead,
// before planning, so that sqe plans the statement the server will run;
// any other query rewriter is refused.

// pgxPath is the package of pgx's named-argument types.
const pgxPath = "github.com/jackc/pgx/v5"

// applyQueryRewriters returns the statement and arguments with pgx's
// named-argument rewriting applied, or an ErrUnsupported error for an
// argument that would rewrite the statement in another way.
func applyQueryRewriters(ctx context.Context, query string, args []driver.NamedValue) (string, []driver.NamedValue, error) {
	for i, a := range args {
		switch a.Value.(type) {
		case nil, int64, float64, bool, []byte, string, time.Time, int, int32:
			// The values database/sql passes on (and the commonest
			// others) have no RewriteQuery method: no reflection.
			continue
		}
		v := reflect.ValueOf(a.Value)
		m := v.MethodByName("RewriteQuery")
		if !m.IsValid() {
			continue
		}
		t := v.Type()
		named := t.PkgPath() == pgxPath && (t.Name() == "NamedArgs" || t.Name() == "StrictNamedArgs")
		if !named || len(args) != 1 || m.Type().NumIn() != 4 || m.Type().NumOut() != 3 {
			return "", nil, fmt.Errorf("%w: argument %d (%s) would rewrite the statement after sqe; use positional arguments",
				ErrUnsupported, i+1, t)
		}
		out := m.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.Zero(m.Type().In(1)), reflect.ValueOf(query), reflect.ValueOf([]any(nil))})
		if err, _ := out[2].Interface().(error); err != nil {
			return "", nil, err
		}
		newSQL, _ := out[0].Interface().(string)
		newArgs, _ := out[1].Interface().([]any)
		nv := make([]driver.NamedValue, len(newArgs))
		for j, x := range newArgs {
			nv[j] = driver.NamedValue{Ordinal: j + 1, Value: x}
		}
		return newSQL, nv, nil
	}
	return query, args, nil
}
