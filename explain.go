package sqe

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/session"
)

// Explanation is what sqe would send to the database for one statement
// and one user, and which policies shaped it.
type Explanation struct {
	// SQL is the statement as it would be sent.
	SQL string
	// Kind classifies the statement (select, insert, update, delete, ddl, session, other).
	Kind string
	// Tables lists every base table the statement touches, with the
	// filters, masks and restrictions that apply to the user.
	Tables []TableExplanation
}

// TableExplanation is the policy applied to one table.
type TableExplanation struct {
	Table      policy.TableName
	RowFilters []policy.RowFilter
	// Masks maps column names to their mask (with the policy that set it).
	Masks map[string]policy.Mask
	// Restricted maps restricted column names to the policy that restricts them.
	Restricted map[string]string
}

// Explain rewrites query as user on one of db's connections without
// running it, like Snowflake's POLICY_CONTEXT: the result shows the SQL
// that would be sent and the policies behind each filter and mask. db must
// have been opened through sqe. A statement sqe would refuse returns the
// same error it would return when run.
func Explain(ctx context.Context, db *sql.DB, user session.User, query string) (*Explanation, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx = session.NewContext(ctx, user)
	var out *Explanation
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*Conn)
		if !ok {
			return errors.New("sqe: Explain needs a database opened through sqe")
		}
		e, ok := c.planner.(*engine.Engine)
		if !ok {
			p, err := c.planner.Plan(ctx, c.cs, query)
			if err != nil {
				return err
			}
			out = &Explanation{SQL: p.SQL}
			if p.Result != nil {
				out.Kind = string(p.Result.Kind)
			}
			return nil
		}
		x, err := e.Explain(ctx, c.cs, query)
		if err != nil {
			return err
		}
		out = &Explanation{SQL: x.SQL, Kind: x.Kind}
		for _, t := range x.Tables {
			out.Tables = append(out.Tables, TableExplanation(t))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
