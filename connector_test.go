package sqe

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/internal/engine"
	"github.com/sqe-project/sqe/internal/fakedriver"
)

func TestConnectorCloseForwarded(t *testing.T) {
	for _, closer := range []bool{false, true} {
		f := fakedriver.AllFlags()
		f.ConnectorCloser = closer
		fdb := fakedriver.New(f)
		fp := testPlanner()
		c, err := NewConnector(fdb.Connector("d"), withPlanner(fp))
		if err != nil {
			t.Fatal(err)
		}
		cl, ok := c.(interface{ Close() error })
		if !ok {
			t.Fatal("connector does not implement io.Closer")
		}
		if err := cl.Close(); err != nil {
			t.Fatal(err)
		}
		if err := cl.Close(); err != nil {
			t.Fatal(err)
		}
		if got := len(fdb.CallsOf(fakedriver.OpConnectorClose)); (got == 1) != closer || got > 1 {
			t.Fatalf("base Close called %d times (base is a closer: %v)", got, closer)
		}
		if fp.closeCount() != 1 {
			t.Fatalf("planner closed %d times, want 1", fp.closeCount())
		}
	}

	// Both errors are reported.
	f := fakedriver.AllFlags()
	fdb := fakedriver.New(f)
	fdb.Fail(fakedriver.OpConnectorClose, "", fakedriver.ErrFake, 0)
	fp := testPlanner()
	errPlanner := errors.New("planner close")
	fp.closeErr = errPlanner
	c, _ := NewConnector(fdb.Connector("d"), withPlanner(fp))
	err := c.(interface{ Close() error }).Close()
	if !errors.Is(err, fakedriver.ErrFake) || !errors.Is(err, errPlanner) {
		t.Fatalf("Close = %v, want both errors", err)
	}
}

func TestConnectorConnectErrorUnchanged(t *testing.T) {
	fdb := fakedriver.New(fakedriver.AllFlags())
	fdb.Fail(fakedriver.OpConnect, "", fakedriver.ErrFake, 0)
	c, _ := NewConnector(fdb.Connector("d"), withPlanner(testPlanner()))
	if _, err := c.Connect(t.Context()); err != fakedriver.ErrFake {
		t.Fatalf("Connect = %v, want the base error", err)
	}
}

func TestConnectorConnsShareOnePlannerWithOwnState(t *testing.T) {
	db, _, fp := newTestDB(t, fakedriver.AllFlags())
	ctx := userCtx(t, "alice")
	c1, _ := db.Conn(ctx)
	c2, _ := db.Conn(ctx)
	if _, err := c1.ExecContext(ctx, qUpdate, "a", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.ExecContext(ctx, qUpdate, "a", 1); err != nil {
		t.Fatal(err)
	}
	_ = c1.Close()
	_ = c2.Close()
	plans := fp.planCalls()
	if len(plans) != 2 || plans[0].cs == plans[1].cs {
		t.Fatalf("plans %+v, want one connection state per inner connection", plans)
	}
}

// The engine runs anonymous statements as the user sqe documents.
func TestAnonymousUserIsTheEngines(t *testing.T) {
	if AnonymousUser != engine.AnonymousUser {
		t.Fatalf("sqe.AnonymousUser %q, engine.AnonymousUser %q", AnonymousUser, engine.AnonymousUser)
	}
}
