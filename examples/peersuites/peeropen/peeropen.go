// Package peeropen is the one place where a peer library's test suite,
// copied and patched by the peer-suite harness (package peersuites), opens
// its databases. The patch replaces the suite's own sql.Open (or
// stdlib.OpenDB, …) by a call to Open or OpenDB here, which open the
// database through sqe — or, for the baseline run, through the raw driver —
// as the harness says in the environment:
//
//	SQE_PEER_MODE    "raw" opens the inner driver directly; anything else
//	                 opens it through sqe
//	SQE_PEER_POLICY  the policy file sqe enforces
//	SQE_PEER_USER    the default user (the suites pass no user on their
//	SQE_PEER_ROLES   contexts), and its roles, separated by spaces
//	SQE_PEER_REFUSED a file that receives one JSON line per statement sqe
//	                 refused or that failed (kind and error, values removed)
//
// It is for the harness only: a service opens sqe with its own options.
package peeropen

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sqe-project/sqe"
	"github.com/sqe-project/sqe/audit"
	_ "github.com/sqe-project/sqe/rewriter/postgres" // the PostgreSQL dialect
	"github.com/sqe-project/sqe/session"
)

// Raw reports whether the harness asked for the raw driver.
func Raw() bool { return os.Getenv("SQE_PEER_MODE") == "raw" }

// Options are the sqe options the environment describes.
func Options() []sqe.Option {
	opts := []sqe.Option{
		sqe.WithPolicyFile(os.Getenv("SQE_PEER_POLICY")),
		sqe.WithoutPolicyWatch(),
		sqe.WithDefaultUser(session.User{
			Name:  os.Getenv("SQE_PEER_USER"),
			Roles: strings.Fields(os.Getenv("SQE_PEER_ROLES")),
		}),
	}
	if path := os.Getenv("SQE_PEER_REFUSED"); path != "" {
		opts = append(opts, sqe.WithAudit(refusedSink(path)))
	} else {
		opts = append(opts, sqe.WithoutAudit())
	}
	return opts
}

// Open is sql.Open(driverName, dsn), through sqe unless Raw.
func Open(driverName, dsn string) (*sql.DB, error) {
	if Raw() {
		return sql.Open(driverName, dsn)
	}
	return sqe.Open(driverName, dsn, Options()...)
}

// OpenDB is sql.OpenDB(c), through sqe unless Raw. A policy file that
// does not load is the harness's fault: it panics.
func OpenDB(c driver.Connector) *sql.DB {
	if Raw() {
		return sql.OpenDB(c)
	}
	sc, err := sqe.NewConnector(c, Options()...)
	if err != nil {
		panic(fmt.Sprintf("peeropen: %v", err))
	}
	return sql.OpenDB(sc)
}

// Refusal is one line of the SQE_PEER_REFUSED file.
type Refusal struct {
	Kind    string `json:"kind"`
	Allowed bool   `json:"allowed"`
	Error   string `json:"error"`
}

var (
	refusedMu    sync.Mutex
	refusedFiles = map[string]*os.File{}
)

// refusedSink appends the statements that were refused or failed to the
// file at path (shared by every database the suite opens).
func refusedSink(path string) audit.Sink {
	return audit.SinkFunc(func(_ context.Context, r *audit.Record) {
		if r.Allowed && r.Error == "" {
			return
		}
		line, err := json.Marshal(Refusal{Kind: r.Kind, Allowed: r.Allowed, Error: r.Error})
		if err != nil {
			return
		}
		refusedMu.Lock()
		defer refusedMu.Unlock()
		f := refusedFiles[path]
		if f == nil {
			if f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
				return
			}
			refusedFiles[path] = f
		}
		_, _ = f.Write(append(line, '\n'))
	})
}
