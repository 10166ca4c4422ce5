// Command sqe is the command-line companion of the sqe driver.
//
//	sqe demo       run the built-in demo on an embedded MySQL-compatible server
//	sqe explain    print a statement as sqe rewrites it for a given user
//	sqe fetch      download a Ranger service's policies into a bundle file
//	sqe lint       check a policy file (native or Ranger bundle) before it is deployed
//
// Run "sqe help <command>" or "sqe <command> --help" for a command's
// flags, "sqe --version" for the version. Flags may follow the
// positional arguments: sqe explain "SELECT …" --user ann.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
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
		{"lint", "check a policy file (native YAML or Ranger bundle) before it is deployed", runLint},
	}
}

// errUsage marks an error caused by the command line (exit status 2).
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "help" {
		// sqe help COMMAND is sqe COMMAND --help.
		args = []string{args[1], "--help"}
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintln(stdout, "sqe "+version())
		return 0
	}
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
	fmt.Fprintln(w, `Run "sqe help <command>" or "sqe <command> --help" for a command's flags,`)
	fmt.Fprintln(w, `"sqe --version" for the version.`)
}

// version is the module's version as the build recorded it: a release
// tag for "go install …@vX.Y.Z", "(devel)" for a build from a checkout,
// followed by the commit when the build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		v += " " + rev[:min(12, len(rev))] + modified
	}
	return v + " " + info.GoVersion
}

// parseFlags parses a command's arguments: flags may come before or
// after its positional arguments ("--" ends the flags). --help prints the
// command's usage once, to stderr; a bad flag is one line naming the
// command, without the usage. fs.Usage must write to fs.Output().
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stderr)
				fs.Usage()
				return nil, err
			}
			return nil, usageError("%v (run sqe %s --help)", err, fs.Name())
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}
