package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const exprsFile = `version: 1
default: allow
tables:
  shop.t:
    row_filters:
      - {name: f, principals: [public], filter: "a = 1"}
      - {principals: [public], mapping: {table: shop.m, column: k, key: k, match: user, match_column: u}}
    masks:
      - {name: c, principals: [public], column: x, type: CUSTOM, expr: "UPPER({col})"}
      - {name: n, principals: [public], column: y, type: MASK_NULL}
tag_masks:
  - {name: tm, principals: [public], tag: PII, type: CUSTOM, expr: "LOWER({col})"}
`

func TestExpressions(t *testing.T) {
	f, err := Parse("p.yaml", []byte(exprsFile))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Expression{
		{Kind: ExprFilter, Text: "a = 1", Rule: "f", Line: 6, Path: `tables."shop.t".row_filters[0].filter`},
		{Kind: ExprFilter, Text: "k IN (SELECT sqe_map.k FROM shop.m sqe_map WHERE sqe_map.u = current_user)", Rule: "shop.t/row_filters[1]", Line: 7, Path: `tables."shop.t".row_filters[1].mapping`},
		{Kind: ExprCustomMask, Text: "UPPER({col})", Rule: "c", Line: 9, Path: `tables."shop.t".masks[0].expr`},
		{Kind: ExprCustomMask, Text: "LOWER({col})", Rule: "tm", Line: 12, Path: "tag_masks[0].expr"},
	}
	if got := c.Expressions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Expressions:\n got %+v\nwant %+v", got, want)
	}
	err = c.CheckExpressions(func(e Expression) error {
		if strings.Contains(e.Text, "UPPER") || e.Kind == ExprFilter && e.Rule == "f" {
			return errors.New("does not parse")
		}
		return nil
	})
	var fe *FileError
	if !errors.Is(err, ErrInvalidFile) || !errors.As(err, &fe) ||
		err.Error() != "p.yaml:6: tables.\"shop.t\".row_filters[0].filter: rule \"f\": does not parse\n"+
			"p.yaml:9: tables.\"shop.t\".masks[0].expr: rule \"c\": does not parse" {
		t.Fatalf("CheckExpressions: %v", err)
	}
}

// TestValidatorFailsLoads: a validator's error fails the first load of a
// FileSource, and a later reload or Publish keeps the last good snapshot
// and counts the failure; SetValidator installs one on a built source.
func TestValidatorFailsLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(exprsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	refuseUpper := func(c *Compiled) error {
		return c.CheckExpressions(func(e Expression) error {
			if strings.Contains(e.Text, "UPPER") {
				return errors.New("refused")
			}
			return nil
		})
	}
	if _, err := NewFileSource(path, WithValidator(refuseUpper)); !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), "masks[0].expr") {
		t.Fatalf("first load: %v", err)
	}
	src, err := NewFileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := src.Snapshot()
	src.SetValidator("test", refuseUpper)
	if err := os.WriteFile(path, []byte(exprsFile+"# changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := src.Reload(); !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("reload: %v", err)
	}
	after, _ := src.Snapshot()
	if st := src.Stats(); after != before || st.ReloadFailures != 1 {
		t.Fatalf("a failed reload must keep the snapshot and be counted: %+v", st)
	}
	src.SetValidator("test", nil)
	if err := src.Reload(); err != nil {
		t.Fatalf("reload without the validator: %v", err)
	}

	f, err := Parse("p.yaml", []byte(exprsFile))
	if err != nil {
		t.Fatal(err)
	}
	ms := NewMemorySource(WithValidator(refuseUpper))
	if _, err := ms.Publish(f); err == nil {
		t.Fatal("Publish passed a refused policy set")
	}
	if _, err := ms.Snapshot(); !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("a refused Publish published: %v", err)
	}
}
