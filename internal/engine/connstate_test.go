package engine

import (
	"testing"

	"github.com/sqe-project/sqe/rewriter"
)

// TestConnStateSessionAfterTransaction: session state a statement changed
// inside a transaction is read again when the transaction ends (its end
// may undo the change); state nothing changed is kept.
func TestConnStateSessionAfterTransaction(t *testing.T) {
	for _, touched := range []bool{false, true} {
		cs := NewConnState(nil)
		cs.Apply(rewriter.Effect{BeginsTransaction: true}, "ann", "fp:ann")
		if touched {
			cs.Apply(rewriter.Effect{RefreshSession: true}, "ann", "fp:ann")
			if cs.SessionLoaded() {
				t.Fatal("a statement that changed the session left it loaded")
			}
		}
		cs.SetSession(nil)
		cs.EndTransaction()
		if cs.SessionLoaded() == touched {
			t.Fatalf("touched=%v: loaded=%v after the transaction ended", touched, cs.SessionLoaded())
		}
		if cs.Held() != "" {
			t.Fatalf("touched=%v: holds %q after the transaction ended", touched, cs.Held())
		}
	}
}

// TestConnStateHeldState: what a connection holds, and whether its
// temporary tables may stay with the caller who created them.
func TestConnStateHeldState(t *testing.T) {
	cs := NewConnState(nil)
	cs.Apply(rewriter.Effect{Holds: rewriter.HoldsTemporaryTable}, "ann", "fp:ann")
	if !cs.SameCallerKeeps() || cs.HeldFingerprint() != "fp:ann" || cs.Held() != rewriter.HoldsTemporaryTable {
		t.Fatalf("temporary table: keeps %v, fingerprint %q, held %q", cs.SameCallerKeeps(), cs.HeldFingerprint(), cs.Held())
	}
	cs.Apply(rewriter.Effect{Holds: rewriter.HoldsTemporaryTable}, "bob", "fp:bob")
	if cs.SameCallerKeeps() {
		t.Fatal("temporary tables of two callers stay with one of them")
	}
	tx := NewConnState(nil)
	tx.Apply(rewriter.Effect{BeginsTransaction: true}, "ann", "fp:ann")
	if tx.SameCallerKeeps() || tx.Held() != rewriter.HoldsTransaction {
		t.Fatalf("transaction: keeps %v, held %q", tx.SameCallerKeeps(), tx.Held())
	}
	tx.Apply(rewriter.Effect{EndsTransaction: true}, "ann", "fp:ann")
	if tx.Held() != "" {
		t.Fatalf("held %q after COMMIT", tx.Held())
	}
}
