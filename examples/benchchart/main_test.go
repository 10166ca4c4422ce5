package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `goos: linux
pkg: github.com/sqe-project/sqe
BenchmarkAnalytics/postgres/a-point-select-2   3   100 ns/op   1.20 native/sqe   0.9 rewritten/sqe
BenchmarkAnalytics/postgres/a-point-select-2   3   100 ns/op   0.80 native/sqe   0.9 rewritten/sqe
BenchmarkAnalytics/postgres/a-point-select-2   3   100 ns/op   1.00 native/sqe   0.9 rewritten/sqe
BenchmarkAnalytics/mysql/a-point-select-2      3   100 ns/op   4.50 native/sqe
BenchmarkAnalytics/mysql/b-month-totals-2      3   100 ns/op   0.95 native/sqe
pkg: github.com/sqe-project/sqe/rewriter/mysql
BenchmarkColdRewrite/simple-2   300   5 ns/op   10.5 rewrite/parse+print
pkg: github.com/sqe-project/sqe/internal/engine
BenchmarkColdStatement/postgres/simple-2   300   5 ns/op   8.6 rewrite/parse+print   0.44 template/parse+print
PASS
`

// TestChartsFromBenchmarkOutput: each figure takes the median of its
// metric per benchmark, series and categories in the order the runs met
// them, and the PNG written decodes.
func TestChartsFromBenchmarkOutput(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	c := figures[0].chart(res)
	if strings.Join(c.series, ",") != "postgres,mysql" || len(c.groups) != 2 ||
		c.groups[0].label != "a-point-select" || c.groups[1].label != "b-month-totals" {
		t.Fatalf("analytics chart: %+v", c)
	}
	if got := c.groups[0].values["postgres"]; got != 1.0 {
		t.Errorf("median of 1.20, 0.80, 1.00: %v", got)
	}
	if _, ok := c.groups[1].values["postgres"]; ok {
		t.Error("a bar for a benchmark that did not run")
	}
	cold := figures[1].chart(res)
	if len(cold.groups) != 1 || cold.groups[0].values["mysql"] != 10.5 {
		t.Errorf("cold-rewrite chart: %+v", cold)
	}
	if st := figures[3].chart(res); len(st.groups) != 1 || st.groups[0].label != "simple" || st.groups[0].values["postgres"] != 0.44 {
		t.Errorf("cold-statement chart: %+v", st)
	}
	if scan := figures[2].chart(res); len(scan.groups) != 0 {
		t.Errorf("mask-scan chart without its benchmarks: %+v", scan)
	}
	path := filepath.Join(t.TempDir(), "a.png")
	if err := writePNG(path, c); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() < 100 || img.Bounds().Dy() < 50 {
		t.Fatalf("%v %v", img.Bounds(), err)
	}
}
