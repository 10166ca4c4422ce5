package ranger

import (
	"context"
	"reflect"
	"testing"

	"github.com/sqe-project/sqe/policy"
)

// TestSnapshotTableTags: the tag download, as a policy.TagSource, gives the
// tags of literally named columns and tables.
func TestSnapshotTableTags(t *testing.T) {
	src, err := LoadBundle("testdata/shop_bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := src.(policy.TagSource).TableTags(context.Background(), policy.TableName{Schema: "shop", Table: "customers"}); err != nil || len(got["phone"]) != 1 {
		t.Fatalf("the source as a TagSource: %v %v", got, err)
	}
	ts, ok := snap.(policy.TagSource)
	if !ok {
		t.Fatalf("%T is not a policy.TagSource", snap)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		table string
		want  map[string][]string
	}{
		{"customers", map[string][]string{"phone": {"PII"}}},
		{"Payments", map[string][]string{"*": {"RESTRICTED"}}},
		{"orders", nil},
	} {
		got, err := ts.TableTags(ctx, policy.TableName{Schema: "shop", Table: tc.table})
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.table, got, err, tc.want)
		}
	}
}
