package sqe

import (
	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/internal/redact"
)

// Database errors echo values: a failed cast names the text it could not
// convert, a duplicate key names the key, PostgreSQL's DETAIL repeats the
// row. For a statement that read data under a mask or row filter, those
// values may be protected ones (the server may evaluate an application's
// predicate on a row before the policy's filter rejects it), so sqe removes
// every quoted value from the error before the application sees it, with
// package internal/redact: names stay in messages of known forms, and a
// driver's error struct keeps its type.

// redactError returns err with protected values removed when the plan's
// statement read data under policy; errors that carry no text from the
// server pass unchanged.
func redactError(p *engine.Plan, err error) error {
	if err == nil || p == nil || p.Result == nil || !p.Result.Protected {
		return err
	}
	return redact.Values(err)
}
