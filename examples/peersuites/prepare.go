package peersuites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Prepared is a suite copied, patched and compiled.
type Prepared struct {
	Suite Suite
	Dir   string // the module's directory in the patched copy
	Bin   string // the compiled test binary
}

// PkgDir is the directory the suite's tests run in.
func (p *Prepared) PkgDir() string { return filepath.Join(p.Dir, p.Suite.Package) }

// Prepare copies s's module from the module cache into work, applies its
// patch from patchDir, makes the copy use the sqe module at repo (and
// its examples module) and compiles the test binary. The go command
// fetches the module from the proxy when the cache lacks it.
func Prepare(ctx context.Context, s Suite, repo, patchDir, work string) (*Prepared, error) {
	if s.Unavailable != "" {
		return nil, fmt.Errorf("%s: %s", s.Name, s.Unavailable)
	}
	src := s.Source
	if src == "" {
		var dl struct{ Dir, Error string }
		out, err := run(ctx, work, nil, "go", "mod", "download", "-json", s.Module+"@"+s.Version)
		if jerr := json.Unmarshal(out, &dl); jerr != nil || dl.Dir == "" {
			return nil, fmt.Errorf("%s: go mod download %s@%s: %v %s %s", s.Name, s.Module, s.Version, err, dl.Error, out)
		}
		src = dl.Dir
	}
	dir := filepath.Join(work, s.Name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		return nil, fmt.Errorf("%s: copy %s: %w", s.Name, src, err)
	}
	// The module cache is read-only; the copy must be writable.
	if err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	}); err != nil {
		return nil, err
	}
	patch, err := os.ReadFile(filepath.Join(patchDir, s.Patch))
	if err != nil {
		return nil, err
	}
	if out, err := runIn(ctx, dir, bytes.NewReader(patch), "patch", "-p1", "--forward", "--batch"); err != nil {
		return nil, fmt.Errorf("%s: %s does not apply to %s@%s: %v\n%s", s.Name, s.Patch, s.Module, s.Version, err, out)
	}
	const none = "@v0.0.0-00010101000000-000000000000"
	edit := []string{"mod", "edit", "-go=1.26.8",
		"-require=github.com/sqe-project/sqe" + none,
		"-require=github.com/sqe-project/sqe/examples" + none,
		"-replace=github.com/sqe-project/sqe=" + repo,
		"-replace=github.com/sqe-project/sqe/examples=" + filepath.Join(repo, "examples"),
	}
	mod := filepath.Join(dir, s.ModuleDir)
	for _, args := range [][]string{edit, {"mod", "tidy"}} {
		if out, err := runIn(ctx, mod, nil, "go", args...); err != nil {
			return nil, fmt.Errorf("%s: go %s: %v\n%s", s.Name, strings.Join(args, " "), err, out)
		}
	}
	bin := filepath.Join(work, s.Name+".test")
	if out, err := runIn(ctx, mod, nil, "go", "test", "-c", "-o", bin, s.Package); err != nil {
		return nil, fmt.Errorf("%s: compile the tests: %v\n%s", s.Name, err, out)
	}
	return &Prepared{Suite: s, Dir: mod, Bin: bin}, nil
}

// run runs name with args in dir and returns its standard output.
func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, err
}

// runIn runs name with args in dir, stdin from in, and returns its
// combined output.
func runIn(ctx context.Context, dir string, in *bytes.Reader, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if in != nil {
		cmd.Stdin = in
	}
	return cmd.CombinedOutput()
}
