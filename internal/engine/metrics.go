package engine

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/sqe-project/sqe/rewriter"
)

// Metrics, through the OpenTelemetry metric API (the application chooses
// the SDK and exporter; without one the global no-op provider is used):
//
//	sqe.statements              counter    logical statements, by decision (allowed, denied, error) and kind
//	sqe.rewrite.duration        histogram  seconds spent rewriting a statement (cache misses)
//	sqe.rewrite_cache.lookups   counter    rewrite-cache lookups, by result (hit, miss)
//	sqe.fail_closed             counter    statements refused, by reason
//	sqe.audit.dropped           counter    audit records dropped because the buffer was full
//	sqe.policy.reloads          counter    policy reloads, by result (ok, failed), for sources that count them
const meterName = "github.com/sqe-project/sqe"

type metrics struct {
	statements metric.Int64Counter
	rewrite    metric.Float64Histogram
	lookups    metric.Int64Counter
	failClosed metric.Int64Counter
	reg        metric.Registration
}

// The options of the per-statement measurements are built once: a
// statement's measurements allocate nothing.
var (
	attrHit  = []metric.AddOption{metric.WithAttributes(attribute.String("result", "hit"))}
	attrMiss = []metric.AddOption{metric.WithAttributes(attribute.String("result", "miss"))}
	// outcomes holds the options of every (decision, kind) a statement
	// can have, indexed by decision and by the kind's place in
	// outcomeKinds (no string hashing per statement); read-only after
	// init.
	outcomes = func() (o [len(decisions)][len(outcomeKinds)][]metric.AddOption) {
		for d, decision := range decisions {
			for k, kind := range outcomeKinds {
				o[d][k] = outcomeOptions(decision, string(kind))
			}
		}
		return o
	}()
)

// decision is how a statement ended, as the sqe.statements counter names
// it (decisions).
type decision int

const (
	decisionAllowed decision = iota
	decisionDenied
	decisionError
)

var decisions = [...]string{decisionAllowed: "allowed", decisionDenied: "denied", decisionError: "error"}

// outcomeKinds are the statement kinds whose options outcomes holds; ""
// is a statement refused before its kind was known.
var outcomeKinds = [...]rewriter.Kind{"", rewriter.KindSelect, rewriter.KindInsert, rewriter.KindUpdate,
	rewriter.KindDelete, rewriter.KindDDL, rewriter.KindSession, rewriter.KindOther}

func outcomeOptions(decision, kind string) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributes(attribute.String("decision", decision), attribute.String("kind", kind))}
}

func newMetrics(mp metric.MeterProvider) (*metrics, error) {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(meterName)
	out := &metrics{}
	var err error
	if out.statements, err = m.Int64Counter("sqe.statements", metric.WithUnit("{statement}"),
		metric.WithDescription("Logical statements, by decision and kind.")); err != nil {
		return nil, err
	}
	if out.rewrite, err = m.Float64Histogram("sqe.rewrite.duration", metric.WithUnit("s"),
		metric.WithDescription("Time spent rewriting a statement (rewrite-cache misses).")); err != nil {
		return nil, err
	}
	if out.lookups, err = m.Int64Counter("sqe.rewrite_cache.lookups", metric.WithUnit("{lookup}"),
		metric.WithDescription("Rewrite-cache lookups, by result.")); err != nil {
		return nil, err
	}
	if out.failClosed, err = m.Int64Counter("sqe.fail_closed", metric.WithUnit("{statement}"),
		metric.WithDescription("Statements sqe refused, by reason.")); err != nil {
		return nil, err
	}
	return out, nil
}

// observe registers the observable instruments: audit drops and policy
// reloads, read when the reader collects.
func (m *metrics) observe(mp metric.MeterProvider, dropped func() uint64, reloads func() (ok, failed uint64, known bool)) error {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(meterName)
	drops, err := meter.Int64ObservableCounter("sqe.audit.dropped", metric.WithUnit("{record}"),
		metric.WithDescription("Audit records dropped because the buffer was full."))
	if err != nil {
		return err
	}
	loads, err := meter.Int64ObservableCounter("sqe.policy.reloads", metric.WithUnit("{reload}"),
		metric.WithDescription("Policy reloads, by result."))
	if err != nil {
		return err
	}
	m.reg, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(drops, int64(dropped()))
		if ok, failed, known := reloads(); known {
			o.ObserveInt64(loads, int64(ok), metric.WithAttributes(attribute.String("result", "ok")))
			o.ObserveInt64(loads, int64(failed), metric.WithAttributes(attribute.String("result", "failed")))
		}
		return nil
	}, drops, loads)
	return err
}

func (m *metrics) cacheHit(ctx context.Context)  { m.lookups.Add(ctx, 1, attrHit...) }
func (m *metrics) cacheMiss(ctx context.Context) { m.lookups.Add(ctx, 1, attrMiss...) }

func (m *metrics) rewritten(ctx context.Context, d time.Duration) {
	m.rewrite.Record(ctx, d.Seconds())
}

func (m *metrics) statement(ctx context.Context, d decision, kind rewriter.Kind) {
	for k, known := range outcomeKinds {
		if kind == known {
			m.statements.Add(ctx, 1, outcomes[d][k]...)
			return
		}
	}
	m.statements.Add(ctx, 1, outcomeOptions(decisions[d], string(kind))...)
}

func (m *metrics) refused(reason string) {
	m.failClosed.Add(context.Background(), 1, metric.WithAttributes(attribute.String("reason", reason)))
}

func (m *metrics) close() {
	if m.reg != nil {
		_ = m.reg.Unregister()
	}
}
