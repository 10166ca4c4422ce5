// Command sqe is the command-line companion of the sqe driver.
//
//	sqe demo       run the built-in demo on an embedded MySQL-compatible server
//	sqe explain    print a statement as sqe rewrites it for a given user
//
// Run "sqe <command> --help" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"demo", "run the demo: three users, one shop database, the same queries", runDemo},
		{"explain", "print the SQL sqe sends for a user, or why it refuses the statement", runExplain},
		{"fetch", "download a Ranger service's policies, roles and tags into a bundle file", runFetch},
		{"lint", "report the policies of a Ranger bundle that sqe cannot realise", runLint},
	}
}

// errUsage marks an error caused by the command line (exit status 2).
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintln(stderr, "sqe "+c.name+": "+err.Error())
				return 2
			default:
				fmt.Fprintln(stderr, "sqe "+c.name+": "+err.Error())
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "sqe: unknown command %q (run sqe --help)\n", args[0])
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sqe <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "sqe <command> --help" for a command's flags.`)
}

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}
