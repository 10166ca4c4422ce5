package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/rewriter/internal/dialecttest"
	"github.com/sqe-project/sqe/udf"
)

func TestGeneratedExtra(t *testing.T) {
	for extra, want := range map[string]bool{
		"VIRTUAL GENERATED": true, "STORED GENERATED": true, "PERSISTENT GENERATED": true,
		"on update current_timestamp()": true, "DEFAULT_GENERATED": false, "auto_increment": false, "": false,
		"DEFAULT_GENERATED on update CURRENT_TIMESTAMP": true,
	} {
		if got := generatedExtra(extra); got != want {
			t.Errorf("%q: %v, want %v", extra, got, want)
		}
	}
}

// TestReadSession reads the session state from the server's answers: the
// modes from sql_mode, and refuses an unsafe character set or MariaDB's
// regular-expression flags that change masks.
func TestReadSession(t *testing.T) {
	answer := func(mode, version, client string, flags string) rewriter.Query {
		return func(_ context.Context, q string, _ ...any) ([][]any, error) {
			if q == "SELECT @@SESSION.default_regex_flags" {
				return [][]any{{flags}}, nil
			}
			if q == serverIdentity || strings.Contains(q, "REGEXP") {
				return nil, errors.New("no probe here")
			}
			return [][]any{{[]byte("shop"), mode, version, client, "utf8mb4"}}, nil
		}
	}
	s, err := Dialect{}.ReadSession(context.Background(), answer("STRICT_TRANS_TABLES,ANSI,NO_BACKSLASH_ESCAPES", "8.0.40", "utf8mb4", ""))
	if err != nil || s != (Session{Database: "shop", NoBackslashEscapes: true, ANSIQuotes: true}) {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = Dialect{}.ReadSession(context.Background(), answer("", "11.4.2-MariaDB", "latin1", "DOTALL"))
	if err != nil || s != (Session{Database: "shop", MariaDB: true}) {
		t.Fatalf("%+v %v", s, err)
	}
	for _, q := range []rewriter.Query{answer("", "8.0.40", "gbk", ""), answer("", "11.4.2-MariaDB", "utf8mb4", "DOTALL,UNGREEDY")} {
		if _, err := (Dialect{}).ReadSession(context.Background(), q); !errors.Is(err, rewriter.ErrUnsupported) {
			t.Errorf("want a refusal, got %v", err)
		}
	}
}

// TestReadSessionNamedClasses: a MariaDB whose probe answers Go's
// classification gets NamedClasses, any other answer or an error does
// not, and the answer is kept per server instance.
func TestReadSessionNamedClasses(t *testing.T) {
	probes := 0
	dialecttest.ReadSessionNamedClasses(t, dialecttest.ClassProbeServer{
		Dialect: Dialect{}, Target: udf.MySQL, Probes: &probes, ProbeError: errors.New("refused"),
		Connect: func(host, probe string, probeErr error) rewriter.Query {
			return func(_ context.Context, q string, _ ...any) ([][]any, error) {
				switch {
				case q == "SELECT @@SESSION.default_regex_flags":
					return [][]any{{""}}, nil
				case q == serverIdentity:
					return [][]any{{host, int64(3306), int64(1700000000)}}, nil
				case strings.Contains(q, "REGEXP"):
					probes++
					return [][]any{{probe}}, probeErr
				}
				return [][]any{{"shop", "", "10.11.19-MariaDB", "utf8mb4", "utf8mb4"}}, nil
			}
		},
		Named: func(s rewriter.Session) bool { return s.(Session).NamedClasses },
	})
	// MySQL (not MariaDB) is never probed.
	mysql8 := func(_ context.Context, q string, _ ...any) ([][]any, error) {
		if q != "SELECT DATABASE(), @@SESSION.sql_mode, @@version, @@SESSION.character_set_client, @@SESSION.character_set_connection" {
			t.Errorf("unexpected query %.60s", q)
		}
		return [][]any{{"shop", "", "8.0.40", "utf8mb4", "utf8mb4"}}, nil
	}
	if s, err := (Dialect{}).ReadSession(context.Background(), mysql8); err != nil || s.(Session).NamedClasses {
		t.Errorf("MySQL: %+v %v", s, err)
	}
}

// TestAnotherDialectsSessionIsRefused: a session state the dialect did not
// make is never taken for its default.
func TestAnotherDialectsSessionIsRefused(t *testing.T) {
	dialecttest.AnotherDialectsSessionIsRefused(t, testDialect, struct{ Path string }{"shop"})
}

// TestNoConfirmingCodes: a statement the MySQL dialect refused is never
// sent to the server to be prepared.
func TestNoConfirmingCodes(t *testing.T) {
	for _, e := range []*rewriter.Error{{Kind: rewriter.ErrSyntax}, {Kind: rewriter.ErrUnsupported, NotFound: true}} {
		if got := (Dialect{}).ConfirmingCodes(e); got != nil {
			t.Errorf("%v: %q", e, got)
		}
	}
}

// TestNamedClassesReachTheMasks: a connection whose server classifies as
// Go does gets masks that name the classes, the others the code point
// lists, in the read form and in a write's guard alike.
func TestNamedClassesReachTheMasks(t *testing.T) {
	decisions := map[string]*policy.Decision{"shop.customers": dialecttest.CustomersDecision()}
	for _, sql := range []string{"SELECT ssn FROM customers", "UPDATE customers SET name = 'x' WHERE ssn = '1234'"} {
		for _, named := range []bool{false, true} {
			req := request(sql, decisions)
			req.Session = Session{Database: "shop", NamedClasses: named}
			res, err := Dialect{}.Rewrite(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			if got := strings.Contains(res.SQL, "p{Lu}"); got != named || len(res.SQL) > 2000 != !named {
				t.Errorf("%s, named classes %v: %d bytes: %s", sql, named, len(res.SQL), dialecttest.Short(res.SQL))
			}
		}
	}
}

// TestColumnsRefuseTemporaryTables: a server that lists the connection's
// temporary tables in information_schema (MariaDB from 11.2) would mix a
// temporary table's columns into the columns every connection shares; a
// table of that name is refused. Without one the columns are read.
func TestColumnsRefuseTemporaryTables(t *testing.T) {
	answer := func(temporary int64) rewriter.Query {
		return func(_ context.Context, q string, _ ...any) ([][]any, error) {
			if strings.Contains(q, "TABLE_TYPE = 'TEMPORARY'") {
				return [][]any{{temporary}}, nil
			}
			return [][]any{{"t", "id", "int", "int(11)", "", ""}}, nil
		}
	}
	tn := policy.TableName{Schema: "shop", Table: "t"}
	if _, err := (Dialect{}).Columns(context.Background(), answer(1), tn); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("temporary table: %v, want a refusal", err)
	}
	cols, err := Dialect{}.Columns(context.Background(), answer(0), tn)
	if err != nil || len(cols) != 1 || cols[0].Name != "id" {
		t.Fatalf("base table: %v %v", cols, err)
	}
}
