package engine

import (
	"context"
	"sort"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

// Explanation is what the engine would send to the database for one
// statement and one caller, and which policies shaped it. Its fields are
// those of sqe.Explanation, which converts it and documents them.
type Explanation struct {
	SQL    string
	Kind   string
	Tables []TableExplanation
}

// TableExplanation is the policy applied to one table (sqe.TableExplanation).
type TableExplanation struct {
	Table      policy.TableName
	RowFilters []policy.RowFilter
	Masks      map[string]policy.Mask
	Restricted map[string]string
}

// Explain plans query for the caller on ctx on the connection whose state
// is cs, without running or finishing it, and tells the policy each table
// it touches gets. A statement the engine would refuse returns the same
// error it would return when run.
func (e *Engine) Explain(ctx context.Context, cs *ConnState, query string) (*Explanation, error) {
	p, err := e.Plan(ctx, cs, query)
	if err != nil {
		return nil, err
	}
	out := &Explanation{SQL: p.SQL, Kind: string(p.Result.Kind)}
	v, err := e.view(ctx, cs)
	if err != nil {
		return nil, err
	}
	req := &rewriter.Request{Dialect: e.dialect.Name(), View: v, User: v.User(), Catalog: e.catalog(cs), TagSources: e.tagSources}
	for _, t := range p.Result.Tables {
		// A View that decides with the table's columns gets them.
		d, err := rewriter.DecideTable(ctx, req, t)
		if err != nil {
			return nil, err
		}
		if len(d.TagMasks) > 0 && d.Allows(policy.Select) {
			// The masks and restrictions the tags give the table's
			// columns, as the rewrite applied them.
			tp, err := rewriter.PlanTable(ctx, req, t, policy.Select)
			if err != nil {
				return nil, err
			}
			d = tp.Decision
		}
		out.Tables = append(out.Tables, TableExplanation{Table: t, RowFilters: d.RowFilters, Masks: d.Masks, Restricted: d.Restricted})
	}
	sort.Slice(out.Tables, func(i, j int) bool { return out.Tables[i].Table.Key() < out.Tables[j].Table.Key() })
	return out, nil
}
