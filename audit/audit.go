package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// Record is what sqe enforced for one logical statement.
type Record struct {
	Time        time.Time
	User        string
	PrimaryRole string
	Groups      []string
	// Kind is the statement's kind: select, insert, update, delete, ddl,
	// session, other; "" when it could not be parsed. A refused statement
	// has its kind too when sqe parsed it.
	Kind   string
	Tables []Table
	// Allowed is false when sqe refused the statement.
	Allowed bool
	// Error is the error the application received ("" on success), with
	// every value removed (whoever the caller: the application of a
	// statement under no policy gets the server's text as it is).
	Error string
	// Duration runs from the statement's start to its end, or to its
	// refusal.
	Duration time.Duration
	// SnapshotVersion is the version of the policy snapshot the statement ran under.
	SnapshotVersion uint64
	// PolicyRevision is the revision of the policy the statement ran
	// under, for sources that name one (an Open Policy Agent bundle's
	// revision); "" otherwise.
	PolicyRevision string
	// SQLFingerprint identifies the SQL text (see Fingerprint).
	SQLFingerprint string
	// Dialect is the SQL dialect (mysql, postgres).
	Dialect string
}

// Table is one table a statement touched and the policy applied to it.
type Table struct {
	Name string // schema.table
	// Policies names every policy that shaped the table's access, filters and masks.
	Policies []string
	// AllowedBy names the rules that granted the statement its access to
	// the table (select for a read, update for a write's target, …).
	AllowedBy []string
	// RowFilters names the row-filter policies applied.
	RowFilters []string
	// Masks maps masked columns to their mask type.
	Masks map[string]string
	// Restricted lists the columns hidden from the caller.
	Restricted []string
}

// Fingerprint returns a stable, non-reversible identifier of a statement's
// SQL text: the first 16 bytes of its SHA-256, in hex.
func Fingerprint(sql string) string {
	sum := sha256.Sum256([]byte(sql))
	return hex.EncodeToString(sum[:16])
}

// Sink receives records, one at a time, from the dispatcher's goroutine.
type Sink interface {
	Audit(ctx context.Context, r *Record)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(ctx context.Context, r *Record)

// Audit calls f.
func (f SinkFunc) Audit(ctx context.Context, r *Record) { f(ctx, r) }

// DefaultBuffer is the number of records an Async dispatcher queues unless
// NewAsync is told otherwise.
const DefaultBuffer = 4096

// Async delivers records to a sink from a goroutine of its own, through a
// bounded buffer. Emit never blocks: when the buffer is full the record is
// dropped and counted.
type Async struct {
	sink    Sink
	queue   chan *Record
	dropped atomic.Uint64
	written atomic.Uint64
	done    chan struct{}
	once    sync.Once
	mu      sync.RWMutex // held for reading by Emit, for writing by Close
	closed  bool
}

// NewAsync starts a dispatcher for sink with a buffer of n records
// (DefaultBuffer when n <= 0).
func NewAsync(sink Sink, n int) *Async {
	if n <= 0 {
		n = DefaultBuffer
	}
	a := &Async{sink: sink, queue: make(chan *Record, n), done: make(chan struct{})}
	go a.run()
	return a
}

func (a *Async) run() {
	defer close(a.done)
	for r := range a.queue {
		a.sink.Audit(context.Background(), r)
		a.written.Add(1)
	}
}

// Emit queues r, or drops it when the buffer is full or the dispatcher is closed.
func (a *Async) Emit(r *Record) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		a.dropped.Add(1)
		return
	}
	select {
	case a.queue <- r:
	default:
		a.dropped.Add(1)
	}
}

// Dropped is the number of records dropped so far.
func (a *Async) Dropped() uint64 { return a.dropped.Load() }

// Written is the number of records delivered to the sink so far.
func (a *Async) Written() uint64 { return a.written.Load() }

// Close delivers the queued records and stops the dispatcher.
func (a *Async) Close() error {
	a.once.Do(func() {
		a.mu.Lock()
		a.closed = true
		close(a.queue)
		a.mu.Unlock()
		<-a.done
	})
	return nil
}

// Sink returns the sink the dispatcher delivers to.
func (a *Async) Sink() Sink { return a.sink }
