// Package benchshapes holds the statement shapes of the cold-statement
// target, which the dialects' BenchmarkColdRewrite and the engine's
// BenchmarkColdStatement both measure: a simple read of a masked,
// row-filtered table, a 3-table join, a 20-table join and a 200-element
// IN list, each with one %d verb for the literal that changes from one
// statement to the next.
package benchshapes

import (
	"fmt"
	"strings"
)

// Cold returns the shapes by name.
func Cold() map[string]string {
	in := make([]string, 200)
	for i := range in {
		in[i] = fmt.Sprint(i * 7)
	}
	tables := make([]string, 20)
	for i := range tables {
		tables[i] = fmt.Sprintf("JOIN orders o%d ON o%d.customer_id = c.id", i, i)
	}
	return map[string]string{
		"simple":   "SELECT id, name, ssn, email FROM customers WHERE id = %d",
		"3-table":  "SELECT c.name, c.ssn, o.total, m.role FROM customers c JOIN orders o ON o.customer_id = c.id JOIN region_map m ON m.region = c.region WHERE o.total > %d",
		"20-table": "SELECT c.ssn FROM customers c " + strings.Join(tables, " ") + " WHERE c.id = %d",
		"in-200":   "SELECT id, ssn FROM customers WHERE id IN (" + strings.Join(in, ", ") + ") AND name <> '%d'",
	}
}
