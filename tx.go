package sqe

import "database/sql/driver"

// tx is a transaction on the inner connection.
type tx struct {
	c     *Conn
	inner driver.Tx
}

// Commit commits the inner transaction. The end of a transaction may undo
// session settings made inside it (PostgreSQL's SET LOCAL, or a SET in a
// transaction that rolls back), so when a statement changed them the
// connection's session state is read again before the next statement.
func (t *tx) Commit() error {
	err := t.inner.Commit()
	t.c.cs.EndTransaction()
	return err
}

// Rollback rolls the inner transaction back; see Commit.
func (t *tx) Rollback() error {
	err := t.inner.Rollback()
	t.c.cs.EndTransaction()
	return err
}
