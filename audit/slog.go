package audit

import (
	"context"
	"log/slog"
)

// NewSlogSink writes records through logger: allowed statements at
// LevelDebug, refused and failed ones at LevelWarn. A nil logger means
// slog.Default(). The log record's time is the statement's (Record.Time),
// under the handler's own time key.
func NewSlogSink(logger *slog.Logger) Sink {
	return SinkFunc(func(ctx context.Context, r *Record) {
		l := logger
		if l == nil {
			l = slog.Default()
		}
		level := slog.LevelDebug
		if !r.Allowed || r.Error != "" {
			level = slog.LevelWarn
		}
		if !l.Enabled(ctx, level) {
			return
		}
		tables := make([]any, 0, len(r.Tables))
		for _, t := range r.Tables {
			tables = append(tables, slog.Group(t.Name,
				slog.Any("policies", t.Policies),
				slog.Any("allowed_by", t.AllowedBy),
				slog.Any("row_filters", t.RowFilters),
				slog.Any("masks", t.Masks),
				slog.Any("restricted", t.Restricted)))
		}
		// The record's time is the log record's time: the handler writes
		// it under its own time key, once.
		rec := slog.NewRecord(r.Time, level, "sqe statement", 0)
		rec.AddAttrs(
			slog.String("user", r.User),
			slog.String("primary_role", r.PrimaryRole),
			slog.Any("groups", r.Groups),
			slog.String("kind", r.Kind),
			slog.Bool("allowed", r.Allowed),
			slog.String("error", r.Error),
			slog.Duration("duration", r.Duration),
			slog.Uint64("snapshot_version", r.SnapshotVersion),
			slog.String("sql_fingerprint", r.SQLFingerprint),
			slog.String("dialect", r.Dialect),
			slog.Group("tables", tables...))
		if r.PolicyRevision != "" {
			rec.AddAttrs(slog.String("policy_revision", r.PolicyRevision))
		}
		_ = l.Handler().Handle(ctx, rec)
	})
}
