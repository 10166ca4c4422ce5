package engine

import (
	"context"
	"database/sql/driver"
	"errors"
	"slices"
	"time"

	"github.com/sqe-project/sqe/audit"
	"github.com/sqe-project/sqe/internal/redact"
	"github.com/sqe-project/sqe/rewriter"
)

// record reports one logical statement to the metrics and the audit sink.
// An attempt that failed with driver.ErrBadConn is not a logical statement
// of its own: database/sql retries it, and the retry is reported.
func (e *Engine) record(ctx context.Context, p *Plan, started time.Time, err error) {
	if errors.Is(err, driver.ErrBadConn) {
		return
	}
	refused := p == nil || p.Refused
	d := decisionAllowed
	switch {
	case refused:
		d = decisionDenied
	case err != nil:
		d = decisionError
	}
	re := rewriterError(err)
	var kind rewriter.Kind
	switch {
	case p != nil && p.Result != nil:
		kind = p.Result.Kind
	case re != nil:
		kind = re.Statement
	}
	e.metrics.statement(ctx, d, kind)
	if e.audit == nil || (p != nil && p.unaudited && !refused && err == nil) {
		return
	}
	r := &audit.Record{Time: time.Now(), Dialect: e.dialect.Name(), Kind: string(kind), Allowed: !refused}
	if p != nil {
		r.Duration = r.Time.Sub(started)
		r.SnapshotVersion = p.version
		r.PolicyRevision = p.revision
		r.SQLFingerprint = p.sqlFingerprint
	}
	if !refused {
		r.User, r.PrimaryRole, r.Groups = p.who.Name, p.who.PrimaryRole, slices.Clone(p.who.Groups)
		r.Tables = p.tables
	} else if u, uerr := e.user(ctx); uerr == nil {
		r.User, r.PrimaryRole, r.Groups = u.Name, u.PrimaryRole, slices.Clone(u.Groups)
	}
	if err != nil {
		// The same text whoever the caller: an error of a statement that
		// read nothing under policy reaches its caller unredacted, but the
		// record keeps no value.
		r.Error = redact.Values(err).Error()
		if refused && re != nil && re.Table != "" {
			r.Tables = []audit.Table{{Name: re.Table, Policies: nonEmpty(re.Policy)}}
		}
	}
	e.audit.Emit(r)
}

// rewriterError returns the *rewriter.Error in err's chain (nil when
// none). A statement that succeeded asks nothing (and allocates nothing:
// errors.As needs its target on the heap).
func rewriterError(err error) *rewriter.Error {
	if err == nil {
		return nil
	}
	var re *rewriter.Error
	if errors.As(err, &re) {
		return re
	}
	return nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
