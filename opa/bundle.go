package opa

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// ErrBundle marks a bundle that could not be read or compiled: a corrupt
// tarball, Rego that does not compile, a decision path the bundle does
// not define. The source keeps its last good revision.
var ErrBundle = errors.New("sqe: opa bundle")

//go:embed lib/sqe/lib.rego
var libraryRego string

// LibraryPackage is the package of the helper library.
const LibraryPackage = "sqe.lib"

// Library returns the source of the helper library (package sqe.lib),
// which is compiled with every bundle that does not define the package
// itself (see WithoutLibrary).
func Library() string { return libraryRego }

// Bundle is a Rego bundle read from a directory, a tarball or a bundle
// server, not yet compiled.
type Bundle struct {
	b bundle.Bundle
	// Revision is the manifest's revision; when the manifest has none, the
	// hash of the bundle's content ("sha256:…").
	Revision string
	// Origin says where the bundle came from (a path or URL).
	Origin string
}

// LoadBundle reads a bundle from a directory (its .rego files, data.json
// and data.yaml files and .manifest), from a bundle tarball (.tar.gz), as
// "opa build" writes it, or from a single .rego file (a bundle of one
// module and no data).
func LoadBundle(path string) (*Bundle, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	if !st.IsDir() && strings.HasSuffix(path, ".rego") {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBundle, err)
		}
		m, err := ast.ParseModuleWithOpts(path, string(raw), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBundle, err)
		}
		b := bundle.Bundle{Data: map[string]any{}, Modules: []bundle.ModuleFile{{URL: path, Path: path, Raw: raw, Parsed: m}}}
		return newBundle(b, path), nil
	}
	if st.IsDir() {
		r := bundle.NewCustomReader(bundle.NewDirectoryLoader(path)).WithRegoVersion(ast.RegoV1)
		b, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBundle, path, err)
		}
		return newBundle(b, path), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	return ReadBundle(data, path)
}

// ReadBundle reads a bundle tarball (gzipped tar, as a bundle server
// serves it). origin names it in errors.
func ReadBundle(data []byte, origin string) (*Bundle, error) {
	r := bundle.NewReader(bytes.NewReader(data)).WithRegoVersion(ast.RegoV1)
	b, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBundle, origin, err)
	}
	return newBundle(b, origin), nil
}

func newBundle(b bundle.Bundle, origin string) *Bundle {
	rev := b.Manifest.Revision
	if rev == "" {
		h := sha256.New()
		for _, m := range b.Modules {
			h.Write([]byte(m.Path))
			h.Write([]byte{0})
			h.Write(m.Raw)
			h.Write([]byte{0})
		}
		// Data is hashed in its canonical JSON form.
		if v, err := ast.InterfaceToValue(b.Data); err == nil {
			h.Write([]byte(v.String()))
		}
		rev = "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
	}
	return &Bundle{b: b, Revision: rev, Origin: origin}
}

// Data returns the bundle's data document (read-only).
func (b *Bundle) Data() map[string]any { return b.b.Data }

// Modules returns the paths of the bundle's Rego modules.
func (b *Bundle) Modules() []string {
	out := make([]string, len(b.b.Modules))
	for i, m := range b.b.Modules {
		out[i] = m.Path
	}
	return out
}

// definesLibrary reports whether a module of the bundle is in package
// sqe.lib.
func (b *Bundle) definesLibrary() bool {
	for _, m := range b.b.Modules {
		if m.Parsed != nil && strings.TrimPrefix(m.Parsed.Package.Path.String(), "data.") == LibraryPackage {
			return true
		}
	}
	return false
}

// compiled is a bundle compiled for one decision path: the prepared query
// every View of the snapshot evaluates.
type compiled struct {
	query    rego.PreparedEvalQuery
	decision string
}

// compileBundle compiles b once; the prepared query is safe for
// concurrent use.
func compileBundle(ctx context.Context, b *Bundle, cfg *config) (*compiled, error) {
	ref, err := ast.ParseRef(cfg.decision)
	if err != nil || !ref.HasPrefix(ast.DefaultRootRef) || len(ref) < 2 {
		return nil, fmt.Errorf("%w: decision path %q: want a data path such as data.sqe.decision", ErrBundle, cfg.decision)
	}
	modules := map[string]*ast.Module{}
	for _, m := range b.b.Modules {
		if m.Parsed == nil {
			p, err := ast.ParseModuleWithOpts(m.Path, string(m.Raw), ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrBundle, b.Origin, err)
			}
			m.Parsed = p
		}
		modules[m.Path] = m.Parsed
	}
	if !cfg.noLibrary && !b.definesLibrary() {
		lib, err := ast.ParseModuleWithOpts("sqe/lib.rego", libraryRego, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("%w: helper library: %v", ErrBundle, err)
		}
		modules["sqe/lib.rego"] = lib
	}
	comp := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	if comp.Compile(modules); comp.Failed() {
		return nil, fmt.Errorf("%w: %s: %v", ErrBundle, b.Origin, comp.Errors)
	}
	if !definesRef(comp, ref) {
		return nil, fmt.Errorf("%w: %s: no rule defines %s", ErrBundle, b.Origin, cfg.decision)
	}
	data := b.b.Data
	if data == nil {
		data = map[string]any{}
	}
	store := inmem.NewFromObjectWithOpts(data, inmem.OptRoundTripOnWrite(false))
	pq, err := rego.New(
		rego.ParsedQuery(ast.NewBody(ast.NewExpr(ast.NewTerm(ref)))),
		rego.Compiler(comp),
		rego.Store(store),
		// A builtin that fails (to_number of a non-number, say) fails the
		// evaluation, and so the statement, instead of making its rule
		// undefined: an undefined row filter rule would show every row.
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBundle, b.Origin, err)
	}
	return &compiled{query: pq, decision: cfg.decision}, nil
}

// definesRef reports whether some rule of the compiled modules defines
// ref (or a document under it).
func definesRef(c *ast.Compiler, ref ast.Ref) bool {
	if len(c.GetRulesForVirtualDocument(ref)) > 0 || len(c.GetRulesWithPrefix(ref)) > 0 {
		return true
	}
	return len(c.GetRules(ref)) > 0
}
