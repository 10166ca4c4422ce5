package sqe

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"sync"

	"github.com/sqe-project/sqe/internal/engine"
)

// NewConnector returns a driver.Connector whose connections are those of
// base, with every statement rewritten for the caller on its context. Use
// it with sql.OpenDB when the inner driver offers a connector (for example
// pgx's stdlib.GetConnector or mysql.NewConnector):
//
//	db := sql.OpenDB(connector)
//
// The connector implements io.Closer: closing it (sql.DB.Close does) closes
// base if base implements io.Closer and releases the policy engine.
func NewConnector(base driver.Connector, opts ...Option) (driver.Connector, error) {
	return newConnector(base, opts)
}

func newConnector(base driver.Connector, opts []Option) (*connector, error) {
	if base == nil {
		return nil, errors.New("sqe: nil base connector")
	}
	cfg := newConfig(opts)
	p := cfg.planner
	if p == nil {
		e, err := engine.New(cfg.engine, base)
		if err != nil {
			return nil, err
		}
		p = e
	}
	return &connector{base: base, cfg: cfg, planner: p, owner: true}, nil
}

// connector wraps a base connector with a planner.
type connector struct {
	base    driver.Connector
	cfg     *config
	planner planner
	owner   bool // Close closes the planner

	closeOnce sync.Once
	closeErr  error
}

// Connect opens a connection of the base connector and wraps it. The base
// connector's error is returned unchanged.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	ic, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return c.wrap(ic), nil
}

// Driver returns the base connector's driver, wrapped so that connections
// it opens are subject to this connector's policies. It implements
// driver.DriverContext exactly when the base driver does.
func (c *connector) Driver() driver.Driver { return wrapDriver(c.base.Driver(), c) }

// Close closes the base connector (when it is an io.Closer) and the policy
// engine. Closing twice returns the first result.
func (c *connector) Close() error {
	c.closeOnce.Do(func() {
		var errs []error
		if cl, ok := c.base.(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
		if c.owner {
			errs = append(errs, c.planner.Close())
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

func (c *connector) wrap(inner driver.Conn) *Conn {
	cn := newConn(inner, c.planner, c.cfg.rawAccess)
	cn.stmts = newStmtCache(c.cfg.stmtCacheSize)
	return cn
}
