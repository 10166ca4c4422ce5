package ranger

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
)

// This file is Ranger's file-based geolocation context enricher
// (RangerFileBasedGeolocationProvider with its GeolocationFileStore): a
// service-def context enricher that reads a file of IPv4 address ranges
// and, for a request with a client IP address, puts the location the
// address falls in into the request context as LOCATION_<prefix><NAME>
// attributes, which conditions read (ctx.getRequestContextAttribute,
// RangerContextAttributeValueInCondition, RangerSimpleMatcher).

// geolocationEnricherClass is the enricher class a service-def names.
const geolocationEnricherClass = "org.apache.ranger.plugin.contextenricher.RangerFileBasedGeolocationProvider"

// Ranger's option names and defaults for the file-based provider.
const (
	geoOptionFile       = "FilePath"
	geoOptionDotFormat  = "IPInDotFormat"
	geoOptionMetaPrefix = "geolocation.meta.prefix"
	geoDefaultFile      = "/etc/ranger/data/geo.txt"
	geoContextPrefix    = "LOCATION_"
)

// geoDatabase is a geolocation file: the names of the location items and
// the address ranges, sorted and disjoint.
type geoDatabase struct {
	names  []string
	ranges []geoRange
}

type geoRange struct {
	from, to uint32
	values   []string
	line     int
}

// splitGeoFields splits a line on commas as Ranger does (Commons Lang's
// StringUtils.split): empty fields are dropped.
func splitGeoFields(line string) []string {
	var out []string
	for _, f := range strings.Split(line, ",") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseGeoAddress reads one end of a range: an IPv4 address in dot
// notation, or, when dot is false, the address as an unsigned decimal
// number.
func parseGeoAddress(s string, dot bool) (uint32, bool) {
	if !dot {
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		n, err := strconv.ParseUint(s, 10, 32)
		return uint32(n), err == nil
	}
	return ipv4Number(s)
}

// ipv4Number is an IPv4 address (or an IPv4-mapped IPv6 address) as a
// number.
func ipv4Number(s string) (uint32, bool) {
	ip := net.ParseIP(strings.TrimSpace(s))
	if ip == nil {
		return 0, false
	}
	v4 := ip.To4()
	if v4 == nil {
		return 0, false
	}
	return uint32(v4[0])<<24 | uint32(v4[1])<<16 | uint32(v4[2])<<8 | uint32(v4[3]), true
}

// parseGeolocation reads a geolocation file in Ranger's format: lines
// whose first non-blank character is '#' are comments; the first other
// line names the columns (FROM_IP,TO_IP, then the location items, such
// as COUNTRY_CODE); each later line is a range (from and to inclusive)
// and its location values. Ranger skips a data line it cannot read and
// picks one of two overlapping ranges by the shape of its search tree;
// sqe refuses the file instead, since an address whose location is lost
// or uncertain could escape a condition that denies by location.
func parseGeolocation(r io.Reader, dot bool) (*geoDatabase, error) {
	db := &geoDatabase{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	n := 0
	meta := false
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := splitGeoFields(line)
		if !meta {
			if len(fields) < 3 {
				return nil, fmt.Errorf("line %d: the first line that is not a comment must name FROM_IP, TO_IP and at least one location item", n)
			}
			db.names = fields[2:]
			meta = true
			continue
		}
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 3 {
			return nil, fmt.Errorf("line %d: a range needs a start address, an end address and at least one location value", n)
		}
		from, ok1 := parseGeoAddress(fields[0], dot)
		to, ok2 := parseGeoAddress(fields[1], dot)
		if !ok1 || !ok2 {
			form := "IPv4 addresses in dot notation"
			if !dot {
				form = "IPv4 addresses as unsigned decimal numbers"
			}
			return nil, fmt.Errorf("line %d: the range's addresses are not %s (IPInDotFormat)", n, form)
		}
		if to < from {
			return nil, fmt.Errorf("line %d: the range ends before it starts", n)
		}
		db.ranges = append(db.ranges, geoRange{from: from, to: to, values: fields[2:], line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !meta {
		return nil, fmt.Errorf("the file names no location items (it has no line that is not a comment)")
	}
	sort.Slice(db.ranges, func(i, j int) bool {
		a, b := db.ranges[i], db.ranges[j]
		if a.from != b.from {
			return a.from < b.from
		}
		return a.to < b.to
	})
	for i := 1; i < len(db.ranges); i++ {
		prev, cur := db.ranges[i-1], db.ranges[i]
		if cur.from <= prev.to {
			if cur.from == prev.from && cur.to == prev.to && equalStrings(cur.values, prev.values) {
				// Ranger keeps one of two identical lines.
				db.ranges = append(db.ranges[:i], db.ranges[i+1:]...)
				i--
				continue
			}
			return nil, fmt.Errorf("lines %d and %d: the ranges overlap", prev.line, cur.line)
		}
	}
	return db, nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lookup returns the location values of the range ip falls in; nil when
// ip is not an IPv4 address or falls in no range.
func (db *geoDatabase) lookup(ip string) []string {
	n, ok := ipv4Number(ip)
	if !ok {
		return nil
	}
	i := sort.Search(len(db.ranges), func(i int) bool { return db.ranges[i].to >= n })
	if i < len(db.ranges) && db.ranges[i].from <= n {
		return db.ranges[i].values
	}
	return nil
}

// geoEnricher is one geolocation enricher of the service-def.
type geoEnricher struct {
	name   string // the enricher's name in the service-def
	path   string // the file the enricher names (FilePath)
	prefix string // LOCATION_ and geolocation.meta.prefix
	db     *geoDatabase
	err    error // why the file could not be read; db is then nil
}

// GeolocationOpener opens the geolocation file a service-def's
// geolocation enricher names in its FilePath option (see
// WithGeolocationFile).
type GeolocationOpener func(path string) (io.ReadCloser, error)

// newGeoEnrichers reads the files of the service-def's geolocation
// enrichers. A file that cannot be opened or read is kept as the
// enricher's error: its location attributes are then unknown.
func newGeoEnrichers(defs []*ContextEnricherDef, open GeolocationOpener) []*geoEnricher {
	var out []*geoEnricher
	for _, d := range defs {
		if d == nil || strings.TrimSpace(d.Enricher) != geolocationEnricherClass {
			continue
		}
		opts := d.EnricherOptions
		ge := &geoEnricher{name: d.Name, path: strings.TrimSpace(opts[geoOptionFile]), prefix: geoContextPrefix + opts[geoOptionMetaPrefix]}
		if ge.path == "" {
			ge.path = geoDefaultFile
		}
		// Ranger reads the option with Boolean.parseBoolean; absent means true.
		dot := true
		if v, ok := opts[geoOptionDotFormat]; ok {
			dot = strings.EqualFold(strings.TrimSpace(v), "true")
		}
		if open == nil {
			open = openGeolocationFile
		}
		f, err := open(ge.path)
		if err == nil {
			ge.db, err = parseGeolocation(f, dot)
			_ = f.Close()
		}
		if err != nil {
			ge.db, ge.err = nil, fmt.Errorf("ranger: geolocation enricher %q: file %q: %w", d.Name, ge.path, err)
		}
		out = append(out, ge)
	}
	return out
}

func openGeolocationFile(path string) (io.ReadCloser, error) { return os.Open(path) }

// enrich adds the location attributes of clientIP to ctx, as Ranger's
// RangerAbstractGeolocationProvider does: one attribute per location
// item the file names and the range has a value for.
func (ge *geoEnricher) enrich(clientIP string, ctx map[string]any) {
	if ge.db == nil || strings.TrimSpace(clientIP) == "" {
		return
	}
	vals := ge.db.lookup(clientIP)
	for i := 0; i < len(vals) && i < len(ge.db.names); i++ {
		ctx[ge.prefix+ge.db.names[i]] = vals[i]
	}
}
