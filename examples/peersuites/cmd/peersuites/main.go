// Command peersuites runs the peers' own test suites through sqe on the
// MariaDB and PostgreSQL servers named by SQE_MYSQL_ADMIN_DSN and
// SQE_POSTGRES_ADMIN_DSN (as scripts/test.sh and scripts/peer-suites.sh
// export them) and prints, per suite, server and mode, how many tests
// passed, failed and were skipped, and every test that passes on the raw
// driver but not through sqe. See package peersuites.
//
// Usage, from the examples module:
//
//	go run ./peersuites/cmd/peersuites [-suites sqlx,pgx-stdlib] [-work DIR] [-out FILE]
//
// The exit status is 1 when a test passing raw does not pass through sqe
// or a policy run did not enforce its policy, 2 when the harness failed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/examples/peersuites"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("peersuites: ")
	only := flag.String("suites", "", "comma-separated suites to run (default: all)")
	work := flag.String("work", "", "directory for the copies, binaries and logs (default: a new temporary one)")
	out := flag.String("out", "", "also write the report (Markdown) to this file")
	flag.Parse()

	repo, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	if *work == "" {
		if *work, err = os.MkdirTemp("", "sqe-peer-suites-"); err != nil {
			log.Fatal(err)
		}
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		log.Fatal(err)
	}
	servers := map[string]peersuites.Server{}
	for name, env := range map[string]string{peersuites.MySQL: "SQE_MYSQL_ADMIN_DSN", peersuites.Postgres: "SQE_POSTGRES_ADMIN_DSN"} {
		if dsn := os.Getenv(env); dsn != "" {
			servers[name] = peersuites.Server{Name: name, Admin: dsn}
		} else {
			log.Printf("%s is not set: no %s runs", env, name)
		}
	}
	ctx := context.Background()
	known, err := os.ReadFile(filepath.Join(repo, "examples", "peersuites", "known-failures.txt"))
	if err != nil {
		log.Fatal(err)
	}
	rep := &peersuites.Report{Skipped: map[string]string{}}
	if rep.Known, err = peersuites.ParseKnown(string(known)); err != nil {
		log.Fatal(err)
	}
	for _, s := range peersuites.Suites() {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.Name) {
			continue
		}
		if s.Unavailable != "" {
			log.Printf("%s: skipped: %s", s.Name, s.Unavailable)
			rep.Skipped[s.Name] = s.Unavailable
			continue
		}
		log.Printf("%s: preparing %s@%s", s.Name, s.Module, s.Version)
		p, err := peersuites.Prepare(ctx, s, repo, filepath.Join(repo, "examples", "peersuites", "patches"), *work)
		if err != nil {
			log.Printf("harness failure: %v", err)
			os.Exit(2)
		}
		for _, name := range s.Servers {
			srv, ok := servers[name]
			if !ok {
				continue
			}
			for _, mode := range peersuites.Modes {
				r, err := peersuites.RunSuite(ctx, p, srv, mode, *work)
				if err != nil {
					log.Printf("harness failure: %v", err)
					os.Exit(2)
				}
				log.Printf("%s on %s, %s: %d passed, %d failed, %d skipped",
					s.Name, name, mode, r.Count(peersuites.Pass), r.Count(peersuites.Fail), r.Count(peersuites.Skip))
				rep.Runs = append(rep.Runs, r)
			}
		}
	}
	if err := rep.WriteMarkdown(os.Stdout); err != nil {
		log.Fatal(err)
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		if err := rep.WriteMarkdown(f); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
	if b, err := json.MarshalIndent(rep, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(*work, "report.json"), b, 0o644)
	}
	fmt.Fprintf(os.Stderr, "peersuites: files (report.json: every test's outcome and output) in %s\n", *work)
	if !rep.OK() {
		os.Exit(1)
	}
}

// repoRoot returns the root of the sqe repository: the nearest directory
// up from the working directory whose go.mod is the sqe module's.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/sqe-project/sqe\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the sqe repository")
		}
		dir = parent
	}
}
