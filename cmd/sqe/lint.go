package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqe-project/sqe/ranger"
)

func runLint(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	errorsOnly := fs.Bool("errors-only", false, "report errors only, not warnings")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: sqe lint [--errors-only] FILE

Reports the policies of a Ranger bundle (written by "sqe fetch", or a
Ranger policy download) that sqe cannot realise as Ranger would:
condition types it cannot evaluate, mask types and CUSTOM or row-filter
expressions it cannot use, recurring validity schedules, security zones.
Errors are enforced more strictly than Ranger would (an item never grants,
a column is restricted, a table fails closed); warnings have no effect on
SQL statements. Exits 1 when there are errors.`)
		fs.PrintDefaults()
	}
	fs.SetOutput(io.Discard) // a bad flag is reported in one line, not with the usage
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return err
		}
		return usageError("%v (run sqe lint --help)", err)
	}
	if fs.NArg() != 1 {
		return usageError("give exactly one bundle file")
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !ranger.IsBundle(data) {
		return fmt.Errorf("%s is not a Ranger bundle (a JSON object with \"policies\" and \"serviceDef\")", path)
	}
	b, err := ranger.ParseBundle(data)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	nerr, nwarn := 0, 0
	for _, f := range ranger.Lint(b) {
		if f.Severity == ranger.SeverityError {
			nerr++
		} else {
			nwarn++
			if *errorsOnly {
				continue
			}
		}
		fmt.Fprintf(stdout, "%s: %s\n", path, f)
	}
	if _, err := ranger.NewStatic(b); err != nil {
		return fmt.Errorf("%s does not load: %v", path, err)
	}
	fmt.Fprintf(stdout, "%s: %s; %d error(s), %d warning(s)\n", path, bundleSummary(b), nerr, nwarn)
	if nerr > 0 {
		return fmt.Errorf("%s: %d policy part(s) sqe cannot realise", path, nerr)
	}
	return nil
}
