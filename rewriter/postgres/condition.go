package postgres

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/sqe-project/sqe/rewriter"
)

var _ rewriter.ConditionSyntax = syntax{}

// aggregateNames are pg_catalog's aggregates that the function allow-list
// admits: called without an aggregate's marks (count(x), max(x)) they
// are ordinary function calls to the parser.
var aggregateNames = rewriter.NameSet(`
array_agg avg bit_and bit_or bit_xor bool_and bool_or corr count covar_pop
covar_samp every json_agg json_object_agg jsonb_agg jsonb_object_agg max min
range_agg range_intersect_agg regr_avgx regr_avgy regr_count regr_intercept
regr_r2 regr_slope regr_sxx regr_sxy regr_syy stddev stddev_pop stddev_samp
string_agg sum var_pop var_samp variance xmlagg any_value mode percentile_cont
percentile_disc rank dense_rank percent_rank cume_dist
`)

// ConditionColumns implements rewriter.ConditionSyntax: text must be one
// expression over unqualified columns of its row and functions (context
// functions among them), with no subquery, aggregate, window or
// placeholder.
func (syntax) ConditionColumns(text string) ([]string, error) {
	e, err := parseExpr(text)
	if err != nil {
		return nil, errors.New("does not parse as one postgres SQL expression")
	}
	var cols []string
	var bad error
	_ = walk(e, func(m proto.Message, _ *pg.Node) (bool, error) {
		switch n := m.(type) {
		case *pg.SubLink, *pg.SelectStmt, *pg.RangeSubselect:
			bad = errors.New("a subquery may not be read: a condition reads only its own row")
		case *pg.ColumnRef:
			names, star, ok := colFields(n)
			switch {
			case !ok || star:
				bad = errors.New("a row or star may not be read: a condition reads only its own row's columns, by name")
			case len(names) != 1:
				bad = fmt.Errorf("column %s is qualified: a condition reads only its own row's columns, unqualified", strings.Join(names, "."))
			default:
				if name := strings.ToLower(names[0]); !slices.Contains(cols, name) {
					cols = append(cols, name)
				}
			}
		case *pg.FuncCall:
			name, _ := funcName(n)
			switch {
			case n.Over != nil:
				bad = errors.New("a window function may not be computed: a condition reads only its own row")
			case n.AggStar || n.AggDistinct || n.AggFilter != nil || len(n.AggOrder) > 0 || n.AggWithinGroup ||
				aggregateNames[strings.ToLower(name)]:
				bad = errors.New("an aggregate may not be computed: a condition reads only its own row")
			}
		case *pg.ParamRef:
			bad = errors.New("a placeholder may not appear in a condition")
		}
		return bad == nil, nil
	})
	if bad != nil {
		return nil, bad
	}
	return cols, nil
}

var _ rewriter.ValueSyntax = syntax{}
