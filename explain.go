package sqe

import (
	"context"
	"database/sql"
	"errors"
	"sort"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
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
		p, err := c.planner.plan(ctx, c.cs, query)
		if err != nil {
			return err
		}
		out = &Explanation{SQL: p.sql, Kind: string(p.result.Kind)}
		e, ok := c.planner.(*engine)
		if !ok {
			return nil
		}
		v, err := e.view(ctx, c.cs)
		if err != nil {
			return err
		}
		req := &rewriter.Request{Dialect: e.dialect.Name(), View: v, User: v.User(), Catalog: e.catalog(c.cs), TagSources: e.tagSources}
		for _, t := range p.result.Tables {
			// A View that decides with the table's columns gets them.
			d, err := rewriter.DecideTable(ctx, req, t)
			if err != nil {
				return err
			}
			if len(d.TagMasks) > 0 && d.Allows(policy.Select) {
				// The masks and restrictions the tags give the table's
				// columns, as the rewrite applied them.
				tp, err := rewriter.PlanTable(ctx, req, t, policy.Select)
				if err != nil {
					return err
				}
				d = tp.Decision
			}
			out.Tables = append(out.Tables, TableExplanation{Table: t, RowFilters: d.RowFilters, Masks: d.Masks, Restricted: d.Restricted})
		}
		sort.Slice(out.Tables, func(i, j int) bool { return out.Tables[i].Table.Key() < out.Tables[j].Table.Key() })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
