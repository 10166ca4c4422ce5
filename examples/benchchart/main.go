// Command benchchart draws the charts of docs/performance.md from the
// output of `go test -bench` (as scripts/bench.sh writes it): one PNG bar
// chart per figure, each bar the median of the runs of one benchmark's
// metric.
//
//	go run ./benchchart -out ../docs/img < /tmp/sqe-bench-….txt
//
// The figures, each drawn when the output holds its benchmarks:
//
//   - analytics.png: BenchmarkAnalytics, native/sqe per query and server
//     (above 1: sqe is faster than the database's own policy);
//   - cold-rewrite.png: BenchmarkColdRewrite, a cache miss's cost over the
//     parser's own parse and print, per statement shape and dialect;
//   - mask-scan.png: BenchmarkMaskScan, a full scan computing a mask over
//     the same scan reading the raw column, per mask and server;
//   - cold-statement.png: BenchmarkColdStatement, a statement with new
//     literals planned by the engine (a literal template fills it in) over
//     the parser's own parse and print, per statement shape and dialect.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

func main() {
	out := flag.String("out", ".", "directory the PNG files are written to")
	flag.Parse()
	results, err := parse(os.Stdin)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	wrote := 0
	for _, f := range figures {
		c := f.chart(results)
		if len(c.groups) == 0 {
			continue
		}
		path := filepath.Join(*out, f.file)
		if err := writePNG(path, c); err != nil {
			log.Fatal(err)
		}
		fmt.Println("wrote", path)
		wrote++
	}
	if wrote == 0 {
		log.Fatal("benchchart: the input holds none of the charted benchmarks")
	}
}

// results maps "package/Benchmark/sub" (without the -GOMAXPROCS suffix)
// and a metric unit to the values of every run; order lists the names as
// the runs first met them.
type results struct {
	values map[string]map[string][]float64
	order  []string
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parse reads go test -bench output: "pkg:" lines name the package of the
// benchmark lines that follow, each "Name iterations value unit …".
func parse(r io.Reader) (results, error) {
	res := results{values: map[string]map[string][]float64{}}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = path(p)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := pkg + "/" + procsSuffix.ReplaceAllString(fields[0], "")
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			if res.values[name] == nil {
				res.values[name] = map[string][]float64{}
				res.order = append(res.order, name)
			}
			res.values[name][fields[i+1]] = append(res.values[name][fields[i+1]], v)
		}
	}
	return res, sc.Err()
}

// path is the last element of an import path (the package's name).
func path(importPath string) string {
	return importPath[strings.LastIndex(importPath, "/")+1:]
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// chart is a grouped bar chart: one group per category, one bar per
// series in each group.
type chart struct {
	title, unit string
	reference   float64 // a horizontal line (1 for a ratio), 0 for none
	series      []string
	groups      []group
}

type group struct {
	label  string
	values map[string]float64 // by series
}

// figure picks one metric of the benchmarks whose names match match: its
// submatches name the series and the category.
type figure struct {
	file, title, metric string
	reference           float64
	match               *regexp.Regexp
	series, category    func(m []string) string
}

var figures = []figure{
	{
		file: "analytics.png", title: "native policy time / sqe time (above 1: sqe faster)", metric: "native/sqe", reference: 1,
		match:    regexp.MustCompile(`^sqe/BenchmarkAnalytics/([^/]+)/(.+)$`),
		series:   func(m []string) string { return m[1] },
		category: func(m []string) string { return m[2] },
	},
	{
		file: "cold-rewrite.png", title: "cache miss / parser's parse+print, by statement shape", metric: "rewrite/parse+print", reference: 3,
		match:    regexp.MustCompile(`^(mysql|postgres)/BenchmarkColdRewrite/(.+)$`),
		series:   func(m []string) string { return m[1] },
		category: func(m []string) string { return m[2] },
	},
	{
		file: "mask-scan.png", title: "masked scan / unmasked scan, 1,000,000 rows", metric: "masked/unmasked", reference: 1.5,
		match:    regexp.MustCompile(`^udf/BenchmarkMaskScan/([^/]+)/(.+)$`),
		series:   func(m []string) string { return m[1] },
		category: func(m []string) string { return m[2] },
	},
	{
		file: "cold-statement.png", title: "new literals, through the engine / parser's parse+print", metric: "template/parse+print", reference: 3,
		match:    regexp.MustCompile(`^engine/BenchmarkColdStatement/(mysql|postgres)/(.+)$`),
		series:   func(m []string) string { return m[1] },
		category: func(m []string) string { return m[2] },
	},
}

func (f figure) chart(res results) chart {
	c := chart{title: f.title, unit: f.metric, reference: f.reference}
	byLabel := map[string]*group{}
	var order []string
	for _, n := range res.order {
		m := f.match.FindStringSubmatch(n)
		vals := res.values[n][f.metric]
		if m == nil || len(vals) == 0 {
			continue
		}
		s, cat := f.series(m), f.category(m)
		if !slices.Contains(c.series, s) {
			c.series = append(c.series, s)
		}
		g := byLabel[cat]
		if g == nil {
			g = &group{label: cat, values: map[string]float64{}}
			byLabel[cat] = g
			order = append(order, cat)
		}
		g.values[s] = median(vals)
	}
	for _, l := range order {
		c.groups = append(c.groups, *byLabel[l])
	}
	return c
}

var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff}}

// Layout in pixels: a row per group, bars drawn horizontally so that long
// category names fit on the left.
const (
	barHeight  = 14
	groupGap   = 10
	labelWidth = 300
	plotWidth  = 520
	margin     = 16
	lineHeight = 16
)

func writePNG(path string, c chart) error {
	hi := c.reference
	for _, g := range c.groups {
		for _, v := range g.values {
			hi = math.Max(hi, v)
		}
	}
	hi *= 1.1
	rows := 0
	for range c.groups {
		rows += len(c.series)
	}
	height := 2*margin + 3*lineHeight + rows*barHeight + len(c.groups)*groupGap + lineHeight
	width := 2*margin + labelWidth + plotWidth + 60
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	text(img, margin, margin+lineHeight, c.title, color.Black)
	// Legend.
	x := margin
	for i, s := range c.series {
		fill(img, x, margin+lineHeight+6, 10, 10, palette[i%len(palette)])
		text(img, x+14, margin+2*lineHeight+1, s, color.Black)
		x += 14 + 7*len(s) + 20
	}
	left := margin + labelWidth
	scale := float64(plotWidth) / hi
	y := margin + 3*lineHeight
	top := y
	for _, g := range c.groups {
		text(img, margin, y+barHeight-2, clip(g.label, labelWidth/7-1), color.Black)
		for i, s := range c.series {
			v, ok := g.values[s]
			if ok {
				w := int(v * scale)
				fill(img, left, y, max(w, 1), barHeight-2, palette[i%len(palette)])
				text(img, left+w+4, y+barHeight-3, strconv.FormatFloat(v, 'f', 2, 64), color.Black)
			}
			y += barHeight
		}
		y += groupGap
	}
	// Axis and reference line.
	fill(img, left, top, 1, y-top, color.Black)
	if c.reference > 0 {
		rx := left + int(c.reference*scale)
		for yy := top; yy < y; yy += 4 {
			fill(img, rx, yy, 1, 2, color.RGBA{0x55, 0x55, 0x55, 0xff})
		}
		text(img, rx-8, y+lineHeight-2, strconv.FormatFloat(c.reference, 'g', -1, 64), color.Black)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}

func fill(img *image.RGBA, x, y, w, h int, c color.Color) {
	draw.Draw(img, image.Rect(x, y, x+w, y+h), image.NewUniform(c), image.Point{}, draw.Src)
}

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
