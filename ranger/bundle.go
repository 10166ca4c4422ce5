package ranger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sqe-project/sqe/policy"
)

// Bundle is a self-contained Ranger policy set for one service: the policy
// download (ServicePolicies: serviceDef, policies, tag policies, service
// config) with the service's roles, tags and, optionally, user store. Its
// JSON form is the ServicePolicies object with the extra members "roles",
// "serviceTags" and "userStore", so a plain policy download is a bundle too.
// "sqe fetch" writes bundles; the on-disk cache is one.
type Bundle struct {
	ServicePolicies
	Roles     *Roles       `json:"roles,omitempty"`
	Tags      *ServiceTags `json:"serviceTags,omitempty"`
	UserStore *UserStore   `json:"userStore,omitempty"`
	FetchedAt Time         `json:"fetchedAt"`
	AdminURL  string       `json:"fetchedFrom,omitempty"`
}

// ParseBundle decodes a bundle.
func ParseBundle(data []byte) (*Bundle, error) {
	var b Bundle
	if err := decodeJSON(data, &b); err != nil {
		return nil, fmt.Errorf("ranger: bundle: %w", err)
	}
	if b.ServiceDef == nil {
		return nil, fmt.Errorf("ranger: bundle: %w", errNoServiceDef)
	}
	return &b, nil
}

// Marshal encodes the bundle as indented JSON.
func (b *Bundle) Marshal() ([]byte, error) {
	return json.MarshalIndent(b, "", "  ")
}

// IsBundle reports whether data looks like a Ranger bundle or policy
// download: a JSON object with top-level "policies" and "serviceDef".
func IsBundle(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return false
	}
	_, p := top["policies"]
	_, s := top["serviceDef"]
	return p && s
}

// IsBundleFile reports whether the file at path looks like a Ranger bundle
// (see IsBundle). Only the file's beginning need be JSON for the check to
// fail fast on YAML.
func IsBundleFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 1)
	for {
		if _, err := f.Read(head); err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		if head[0] != ' ' && head[0] != '\n' && head[0] != '\r' && head[0] != '\t' {
			break
		}
	}
	if head[0] != '{' {
		return false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	return IsBundle(data), nil
}

// LoadBundle reads a bundle file and returns a Source serving it (a
// *Source; its Reload re-reads the file). The file must parse and compile:
// an error here means nothing was loaded.
func LoadBundle(path string, opts ...Option) (policy.Source, error) {
	s, err := OpenBundle(path, opts...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenBundle is LoadBundle returning the concrete *Source.
func OpenBundle(path string, opts ...Option) (*Source, error) {
	s := newSource(buildConfig(opts))
	s.bundlePath = path
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

func readBundleFile(path string) (*Bundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ranger: %w", err)
	}
	b, err := ParseBundle(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// writeFileAtomic writes data to path through a temporary file and rename.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// WriteFile writes the bundle to path atomically (a temporary file renamed
// over path), readable by the owner only.
func (b *Bundle) WriteFile(path string) error {
	data, err := b.Marshal()
	if err != nil {
		return fmt.Errorf("ranger: bundle: %w", err)
	}
	if err := writeFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("ranger: %w", err)
	}
	return nil
}
