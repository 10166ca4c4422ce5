package dialecttest

import (
	"context"
	"errors"
	"testing"

	"github.com/sqe-project/sqe/rewriter"
	"github.com/sqe-project/sqe/udf"
)

// ClassProbeServer is a fake server for ReadSession's probe of how the
// server classifies characters.
type ClassProbeServer struct {
	// Dialect is the dialect whose ReadSession is tested.
	Dialect rewriter.Server
	// Target is the dialect's mask target (udf.ClassProbe's argument).
	Target udf.Dialect
	// Connect is a connection to the server instance named instance,
	// whose class probe answers probe, or fails with probeErr; each probe
	// adds one to *Probes.
	Connect func(instance, probe string, probeErr error) rewriter.Query
	Probes  *int
	// ProbeError is how the probe fails on a server that cannot run it.
	ProbeError error
	// Named reads a session's NamedClasses.
	Named func(rewriter.Session) bool
}

// ReadSessionNamedClasses: a server whose probe answers Go's
// classification gets NamedClasses, any other answer or an error does
// not, and the answer is kept per server instance.
func ReadSessionNamedClasses(t *testing.T, s ClassProbeServer) {
	t.Helper()
	_, want, _ := udf.ClassProbe(s.Target)
	for _, c := range []struct {
		instance, probe string
		err             error
		named           bool
	}{
		{"same", want, nil, true},
		{"differs", "1:0", nil, false},
		{"fails", want, s.ProbeError, false},
	} {
		sess, err := s.Dialect.ReadSession(context.Background(), s.Connect(c.instance, c.probe, c.err))
		if err != nil || s.Named(sess) != c.named {
			t.Errorf("%s: %+v %v, want NamedClasses %v", c.instance, sess, err, c.named)
		}
	}
	before := *s.Probes
	if sess, err := s.Dialect.ReadSession(context.Background(), s.Connect("same", "", nil)); err != nil || !s.Named(sess) || *s.Probes != before {
		t.Errorf("the same server instance was probed again (%d probes) or lost its answer: %+v %v", *s.Probes-before, sess, err)
	}
}

// AnotherDialectsSessionIsRefused: a session state the dialect did not
// make (foreign) is never taken for its default.
func AnotherDialectsSessionIsRefused(t *testing.T, d Dialect, foreign rewriter.Session) {
	t.Helper()
	req := d.Request("SELECT 1", nil)
	req.Session = foreign
	if _, err := d.Rewriter.Rewrite(context.Background(), req); !errors.Is(err, rewriter.ErrUnsupported) {
		t.Fatalf("want a refusal, got %v", err)
	}
}
