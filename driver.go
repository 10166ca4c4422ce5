package sqe

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
)

func init() { sql.Register(DriverName, &sqeDriver{}) }

// Open opens a database through sqe: driverName is the name an inner
// driver registered with database/sql ("mysql", "pgx", …) and dsn is that
// driver's DSN. Every statement the returned *sql.DB runs is rewritten for
// the caller on its context (see session.NewContext) before it reaches the
// inner driver.
//
// With driverName "sqe" (DriverName), dsn is an sqe DSN naming the inner
// driver and opts are applied after the DSN's own settings.
//
// Open does not connect; like sql.Open it fails only when the inner driver
// is unknown, rejects the DSN, or the options are invalid (for example a
// malformed policy file).
func Open(driverName, dsn string, opts ...Option) (*sql.DB, error) {
	if driverName == DriverName {
		c, err := (&sqeDriver{opts: opts}).open(dsn)
		if err != nil {
			return nil, err
		}
		return sql.OpenDB(c), nil
	}
	base, err := innerConnector(driverName, dsn)
	if err != nil {
		return nil, err
	}
	c, err := NewConnector(base, opts...)
	if err != nil {
		closeConnector(base)
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// innerConnector returns a connector for the registered driver name: the
// driver's own (driver.DriverContext) or one that calls its Open with dsn.
func innerConnector(name, dsn string) (driver.Connector, error) {
	switch {
	case name == "":
		return nil, errors.New("sqe: no inner driver name")
	case name == DriverName:
		return nil, errors.New("sqe: the inner driver cannot be sqe itself")
	case !slices.Contains(sql.Drivers(), name):
		return nil, fmt.Errorf("sqe: unknown inner driver %q (forgotten import?)", name)
	}
	// database/sql offers no lookup of a driver by name other than opening
	// it; sql.Open does not connect.
	db, err := sql.Open(name, dsn)
	if err != nil {
		return nil, fmt.Errorf("sqe: inner driver %q: %w", name, err)
	}
	drv := db.Driver()
	_ = db.Close()
	if dc, ok := drv.(driver.DriverContext); ok {
		c, err := dc.OpenConnector(dsn)
		if err != nil {
			return nil, fmt.Errorf("sqe: inner driver %q: %w", name, err)
		}
		return c, nil
	}
	return dsnConnector{drv: drv, dsn: dsn}, nil
}

// dsnConnector is the connector of a driver that is not a
// driver.DriverContext, as database/sql builds one.
type dsnConnector struct {
	drv driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

func closeConnector(c driver.Connector) {
	if cl, ok := c.(io.Closer); ok {
		_ = cl.Close()
	}
}

// sqeDriver is the driver registered as "sqe"; its DSN names the inner
// driver (see DriverName).
type sqeDriver struct {
	opts []Option // applied after the DSN's options (Open with DriverName)
}

// OpenConnector parses the DSN once and returns a connector that shares
// one policy engine between all its connections. database/sql uses it for
// sql.Open("sqe", dsn).
func (d *sqeDriver) OpenConnector(dsn string) (driver.Connector, error) {
	return d.open(dsn)
}

// Open parses the DSN and opens one connection with a policy engine of its
// own, released when the connection closes. Prefer OpenConnector (which
// sql.Open uses).
func (d *sqeDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.open(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := c.Connect(context.Background())
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	sc := conn.(*Conn)
	sc.onClose = c.Close
	return sc, nil
}

func (d *sqeDriver) open(dsn string) (*connector, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	base, err := innerConnector(cfg.driver, cfg.dsn)
	if err != nil {
		return nil, err
	}
	c, err := newConnector(base, append(cfg.options(), d.opts...))
	if err != nil {
		closeConnector(base)
		return nil, err
	}
	return c, nil
}

// wrappedDriver is what Connector.Driver returns: the inner driver, with
// connections it opens wrapped by the connector's policy engine.
type wrappedDriver struct {
	inner driver.Driver
	c     *connector
}

func wrapDriver(inner driver.Driver, c *connector) driver.Driver {
	if inner == nil {
		return nil
	}
	d := &wrappedDriver{inner: inner, c: c}
	if _, ok := inner.(driver.DriverContext); ok {
		return wrappedDriverContext{d}
	}
	return d
}

// Open opens a connection of the inner driver, subject to the connector's
// policies.
func (d *wrappedDriver) Open(name string) (driver.Conn, error) {
	ic, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return d.c.wrap(ic), nil
}

// wrappedDriverContext is a wrappedDriver whose inner driver implements
// driver.DriverContext.
type wrappedDriverContext struct{ *wrappedDriver }

// OpenConnector returns a connector of the inner driver for name whose
// connections are subject to the original connector's policies (the policy
// engine is shared, and closed only with the original connector).
func (d wrappedDriverContext) OpenConnector(name string) (driver.Connector, error) {
	base, err := d.inner.(driver.DriverContext).OpenConnector(name)
	if err != nil {
		return nil, err
	}
	return &connector{base: base, cfg: d.c.cfg, planner: d.c.planner}, nil
}
