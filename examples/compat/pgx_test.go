package compat_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/examples/internal/testenv"
	"github.com/sqe-project/sqe/session"
)

// The profiles table holds the PostgreSQL types pgx maps natively.
var pgxSchema = []string{
	`CREATE TABLE profiles (id int PRIMARY KEY, region varchar(8), tags text[], scores int8[], prefs jsonb,
		balance numeric(10,2), seen timestamptz, token uuid, nick text)`,
	`INSERT INTO profiles VALUES
		(1, 'EU', '{vip,early}', '{10,20,30}', '{"theme":"dark","pin":"PIN-CANARY-1"}', 1234.50, '2024-05-06 07:08:09+00', '6f1c1f6e-0000-4000-8000-000000000001', 'O''Neil \ one'),
		(2, 'EU', '{early}', '{40}', '{"theme":"light","pin":"PIN-CANARY-2"}', 99.99, '2024-06-07 08:09:10+00', '6f1c1f6e-0000-4000-8000-000000000002', 'two'),
		(3, 'US', '{vip}', '{}', '{"theme":"dark","pin":"PIN-CANARY-3"}', 0.01, '2024-07-08 09:10:11+00', '6f1c1f6e-0000-4000-8000-000000000003', 'US-CANARY')`,
}

const pgxPolicy = testenv.Policy + `  {{schema}}.profiles:
    access:
      - {name: admin-all, principals: [role:admin], allow: [all]}
      - {name: staff-rw, principals: [role:analyst, role:support], allow: [select, update]}
    row_filters:
      - {name: eu-only, principals: [role:analyst], filter: "region = 'EU'"}
    masks:
      - {name: prefs-null, principals: [role:support], column: prefs, type: MASK_NULL}
      - {name: no-vip-tag, principals: [role:support], column: tags, type: CUSTOM, expr: "array_remove({col}, 'vip')"}
      - {name: token-redact, principals: [role:support], column: token, type: REDACT}
    restricted:
      - {name: no-scores, principals: [role:support], columns: [scores]}
`

func openPGX(t *testing.T, dsnOptions string, opts ...sqe.Option) (*testenv.Env, *sql.DB) {
	t.Helper()
	e := testenv.New(t, "postgres", pgxPolicy, append(testenv.Shop("postgres"), pgxSchema...)...)
	if dsnOptions != "" {
		e.DSN += "&" + dsnOptions
	}
	return e, e.Open(t, opts...)
}

var pgxCanaries = map[string][]string{
	"eve": {"US-CANARY", "PIN-CANARY-3"},
	"sam": {"PIN-CANARY", "vip", "6f1c1f6e"},
}

func noPGXCanary(t *testing.T, u session.User, what string, v ...any) {
	t.Helper()
	testenv.NoCanary(t, u, what, v...)
	text := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(fmtAll(v), "[", " "), "]", " ")), " "))
	for _, c := range pgxCanaries[u.Name] {
		if strings.Contains(text, strings.ToLower(c)) {
			t.Fatalf("%s: %s received protected value %q", what, u.Name, c)
		}
	}
}

func fmtAll(v []any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPGXArrays(t *testing.T) {
	_, db := openPGX(t, "")
	m := pgtype.NewMap()
	for _, c := range []struct {
		u      session.User
		ids    []int64
		tags   [][]string
		scores [][]int64
	}{
		{testenv.Admin, []int64{1, 2, 3}, [][]string{{"vip", "early"}, {"early"}, {"vip"}}, [][]int64{{10, 20, 30}, {40}, {}}},
		{testenv.Analyst, []int64{1, 2}, [][]string{{"vip", "early"}, {"early"}}, [][]int64{{10, 20, 30}, {40}}},
		{testenv.Support, []int64{1, 2, 3}, [][]string{{"early"}, {"early"}, {}}, nil},
	} {
		ctx := testenv.As(c.u)
		q := "SELECT id, tags, scores FROM profiles WHERE id = ANY($1) ORDER BY id"
		if c.scores == nil {
			q = "SELECT id, tags FROM profiles WHERE id = ANY($1) ORDER BY id"
		}
		// A []int64 argument is sent as a PostgreSQL array.
		rows, err := db.QueryContext(ctx, q, []int64{1, 2, 3})
		if err != nil {
			t.Fatalf("arrays as %s: %v", c.u.Name, err)
		}
		var ids []int64
		var tags [][]string
		var scores [][]int64
		for rows.Next() {
			var id int64
			var tg []string
			var sc []int64
			dest := []any{&id, m.SQLScanner(&tg)}
			if c.scores != nil {
				dest = append(dest, m.SQLScanner(&sc))
			}
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			ids, tags = append(ids, id), append(tags, tg)
			if c.scores != nil {
				scores = append(scores, sc)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		noPGXCanary(t, c.u, "arrays", ids, tags, scores)
		if !reflect.DeepEqual(ids, c.ids) || !reflect.DeepEqual(tags, c.tags) || !reflect.DeepEqual(scores, c.scores) {
			t.Fatalf("arrays as %s: %v %v %v", c.u.Name, ids, tags, scores)
		}
		// pgtype.FlatArray and a predicate on the masked array: support's
		// tags have no "vip", so "vip" = ANY(tags) matches nothing.
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM profiles WHERE $1 = ANY(tags)", "vip").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"ann": 2, "eve": 1, "sam": 0}[c.u.Name]; n != want {
			t.Fatalf("rows tagged vip as %s: %d, want %d", c.u.Name, n, want)
		}
		var flat pgtype.FlatArray[string]
		if err := db.QueryRowContext(ctx, "SELECT tags FROM profiles WHERE id = 1").Scan(m.SQLScanner(&flat)); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"ann": 2, "eve": 2, "sam": 1}[c.u.Name]; len(flat) != want {
			t.Fatalf("FlatArray as %s: %v", c.u.Name, flat)
		}
	}
	// The restricted array column.
	if _, err := db.QueryContext(testenv.As(testenv.Support), "SELECT scores[1] FROM profiles"); !errors.Is(err, sqe.ErrColumnDenied) {
		t.Fatalf("scores as support: %v", err)
	}
	var cols []string
	rows, err := db.QueryContext(testenv.As(testenv.Support), "SELECT * FROM profiles")
	if err == nil {
		cols, err = rows.Columns()
		rows.Close()
	}
	if err != nil || strings.Contains(strings.Join(cols, ","), "scores") {
		t.Fatalf("support's * over profiles: %v %v", cols, err)
	}
}

func TestPGXJSONBAndPgtype(t *testing.T) {
	_, db := openPGX(t, "")
	for _, u := range []session.User{testenv.Admin, testenv.Analyst, testenv.Support} {
		ctx := testenv.As(u)
		rows, err := db.QueryContext(ctx, "SELECT id, prefs, prefs->>'theme', balance, seen, token FROM profiles ORDER BY id")
		if err != nil {
			t.Fatalf("as %s: %v", u.Name, err)
		}
		var got []any
		for rows.Next() {
			var (
				id      int
				raw     []byte
				prefs   map[string]any
				theme   pgtype.Text
				balance pgtype.Numeric
				seen    pgtype.Timestamptz
				token   pgtype.UUID
			)
			// jsonb arrives as its JSON text.
			if err := rows.Scan(&id, &raw, &theme, &balance, &seen, &token); err != nil {
				t.Fatalf("scan as %s: %v", u.Name, err)
			}
			if raw != nil {
				if err := json.Unmarshal(raw, &prefs); err != nil {
					t.Fatal(err)
				}
			}
			got = append(got, prefs, theme, token)
			masked := u.Name == testenv.Support.Name
			if (prefs == nil) != masked || theme.Valid == masked || token.Valid == masked {
				t.Fatalf("row %d as %s: prefs %v theme %v token %v", id, u.Name, prefs, theme, token)
			}
			if !balance.Valid || !seen.Valid || seen.Time.Year() != 2024 {
				t.Fatalf("row %d as %s: balance %v seen %v", id, u.Name, balance, seen)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		noPGXCanary(t, u, "jsonb", got)
		// A JSONB containment predicate on the masked column is no oracle.
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM profiles WHERE prefs @> $1", `{"pin":"PIN-CANARY-3"}`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"ann": 1, "eve": 0, "sam": 0}[u.Name]; n != want {
			t.Fatalf("JSONB containment as %s: %d, want %d", u.Name, n, want)
		}
	}
	// pgtype values as arguments.
	admin := testenv.As(testenv.Admin)
	bal := pgtype.Numeric{Int: big.NewInt(4200), Exp: -2, Valid: true}
	seen := pgtype.Timestamptz{Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Valid: true}
	if _, err := db.ExecContext(admin, "UPDATE profiles SET balance = $1, seen = $2, prefs = $3 WHERE id = $4",
		bal, seen, map[string]any{"theme": "blue"}, pgtype.Int4{Int32: 2, Valid: true}); err != nil {
		t.Fatal(err)
	}
	var gotBal pgtype.Numeric
	var gotSeen time.Time
	var theme string
	if err := db.QueryRowContext(testenv.As(testenv.Analyst), "SELECT balance, seen, prefs->>'theme' FROM profiles WHERE id = $1", 2).Scan(&gotBal, &gotSeen, &theme); err != nil {
		t.Fatal(err)
	}
	if f, _ := gotBal.Float64Value(); f.Float64 != 42 || !gotSeen.Equal(seen.Time) || theme != "blue" {
		t.Fatalf("after the update: %v %v %q", f, gotSeen, theme)
	}
}

// TestPGXExecModes: every pgx query execution mode, the simple protocol
// included (pgx then interpolates the arguments into the SQL on the
// client, into the statement sqe rewrote).
func TestPGXExecModes(t *testing.T) {
	modes := []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	}
	check := func(t *testing.T, db *sql.DB, extra ...any) {
		t.Helper()
		for _, c := range []struct {
			u    session.User
			want [][]string
		}{
			{testenv.Admin, [][]string{{"1", "O'Neil \\ one", "111-22-9999"}}},
			{testenv.Support, [][]string{{"1", "O'Neil \\ one", "xxx-xx-9999"}}},
			{testenv.Analyst, [][]string{{"1", "O'Neil \\ one", "111-22-9999"}}},
		} {
			// A string argument with a quote and a backslash, a masked
			// column and a filtered table in one statement.
			q := "SELECT p.id, p.nick, c.ssn FROM profiles p JOIN customers c ON c.id = p.id WHERE p.nick = $1 AND c.region = $2"
			args := append(append([]any{}, extra...), "O'Neil \\ one", "EU")
			got, err := testenv.Query(testenv.As(c.u), db, q, args...)
			if err != nil {
				t.Fatalf("as %s: %v", c.u.Name, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("as %s: %v, want %v", c.u.Name, got, c.want)
			}
			// An argument is data, never SQL.
			got, err = testenv.Query(testenv.As(c.u), db, "SELECT id FROM customers WHERE name = $1",
				append(append([]any{}, extra...), "x' OR '1'='1")...)
			if err != nil || len(got) != 0 {
				t.Fatalf("quote in an argument as %s: %v %v", c.u.Name, got, err)
			}
		}
		// The analyst's US row stays hidden whatever the mode.
		got, err := testenv.Query(testenv.As(testenv.Analyst), db, "SELECT nick FROM profiles WHERE id > $1",
			append(append([]any{}, extra...), 0)...)
		if err != nil || len(got) != 2 {
			t.Fatalf("analyst: %v %v", got, err)
		}
	}
	for _, mode := range modes {
		t.Run(mode.String()+"/argument", func(t *testing.T) {
			// The mode as the first argument, per statement.
			_, db := openPGX(t, "")
			check(t, db, mode)
		})
	}
	t.Run("simple_protocol/dsn", func(t *testing.T) {
		_, db := openPGX(t, "default_query_exec_mode=simple_protocol")
		check(t, db)
		// Several statements in one simple-protocol string are each
		// rewritten.
		if _, err := db.ExecContext(testenv.As(testenv.Analyst), "UPDATE customers SET name = 'x'; UPDATE profiles SET nick = 'y'"); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPGXRawConn: sql.Conn.Raw reaches sqe's connection, never pgx's,
// unless the connector was opened with WithRawConnAccess.
func TestPGXRawConn(t *testing.T) {
	ctx := context.Background()
	t.Run("default", func(t *testing.T) {
		_, db := openPGX(t, "")
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		err = conn.Raw(func(dc any) error {
			if _, ok := dc.(*stdlib.Conn); ok {
				t.Error("Raw handed out pgx's connection")
			}
			sc, ok := dc.(*sqe.Conn)
			if !ok {
				t.Fatalf("Raw gave %T", dc)
			}
			_, err := sc.Unwrap()
			return err
		})
		if !errors.Is(err, sqe.ErrAccessDenied) {
			t.Fatalf("Unwrap without WithRawConnAccess: %v", err)
		}
	})
	t.Run("WithRawConnAccess", func(t *testing.T) {
		_, db := openPGX(t, "", sqe.WithRawConnAccess())
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		err = conn.Raw(func(dc any) error {
			inner, err := dc.(interface{ Unwrap() (driver.Conn, error) }).Unwrap()
			if err != nil {
				return err
			}
			pc := inner.(*stdlib.Conn).Conn()
			// pgx's native API on the raw connection: no policy applies here,
			// which is why this needs the explicit opt-in.
			n, err := pc.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"id", "customer_id", "total"},
				pgx.CopyFromRows([][]any{{30, 1, 1}, {31, 2, 2}}))
			if err != nil || n != 2 {
				return errors.Join(err, errors.New("CopyFrom"))
			}
			var salary int
			return pc.QueryRow(ctx, "SELECT salary FROM customers WHERE id = 3").Scan(&salary)
		})
		if err != nil {
			t.Fatalf("raw pgx connection: %v", err)
		}
		// The pooled connection goes on enforcing policy through database/sql.
		var ssn string
		if err := conn.QueryRowContext(testenv.As(testenv.Support), "SELECT ssn FROM customers WHERE id = 1").Scan(&ssn); err != nil || ssn != "xxx-xx-9999" {
			t.Fatalf("after Raw: %q %v", ssn, err)
		}
	})
}

// TestPGXNamedArgs: pgx.NamedArgs replace @name placeholders on the
// client, after sqe has rewritten the statement.
func TestPGXNamedArgs(t *testing.T) {
	_, db := openPGX(t, "")
	for _, c := range []struct {
		u    session.User
		want [][]string
	}{
		{testenv.Admin, [][]string{{"3", "555-55-5555"}}},
		{testenv.Support, [][]string{{"3", "xxx-xx-5555"}}},
		{testenv.Analyst, nil},
	} {
		got, err := testenv.Query(testenv.As(c.u), db, "SELECT id, ssn FROM customers WHERE id = @id AND region = @region", pgx.NamedArgs{"id": 3, "region": "US"})
		if err != nil {
			t.Fatalf("NamedArgs as %s: %v", c.u.Name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Fatalf("NamedArgs as %s: %v, want %v", c.u.Name, got, c.want)
		}
	}
}
