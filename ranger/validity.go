package ranger

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// tri is a three-valued condition result: sqe evaluates what it can and
// reports the rest as unknown, which never grants and always restricts.
type tri int8

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// A validity schedule is evaluated as Ranger's plugin evaluates it, in two
// time zones. The schedule's timeZone (GMT when blank) places startTime and
// endTime: Ranger parses them in the JVM's default zone and shifts them by
// the difference between that zone's offset and the schedule zone's offset.
// Recurrences are matched against the access time's calendar fields in the
// JVM's default zone, whatever the schedule's timeZone says. sqe's stand-in
// for the JVM default zone is the process's local zone (time.Local, set by
// TZ), as for scripts' date functions: a Ranger plugin takes its default
// zone from the host it runs on, and so does sqe.
//
// A schedule Ranger's admin would refuse (RangerValidityScheduleValidator)
// is not evaluated: it may or may not be in force, and fails closed.

// validityEval is RangerValidityScheduleEvaluator for one schedule.
type validityEval struct {
	startMs, endMs int64 // adjusted bounds; 0 is no bound, as in Ranger
	recurrences    []*recurrenceEval
	zone           *time.Location // the default zone recurrences are matched in
	invalid        error          // why the schedule does not validate
}

func newValidityEval(s *ValiditySchedule) *validityEval {
	return newValidityEvalIn(s, time.Local, time.Time{})
}

// newValidityEvalIn builds the evaluator with zone as the default zone.
// savedAt stands for the moment Ranger's admin validated the schedule (a
// blank startTime is validated as "now"); zero when unknown, which skips the
// checks that depend on it.
func newValidityEvalIn(s *ValiditySchedule, zone *time.Location, savedAt time.Time) *validityEval {
	v := &validityEval{zone: zone}
	specs, err := validateSchedule(s, zone, savedAt)
	if err != nil {
		v.invalid = err
		return v
	}
	target := time.UTC
	if tz := s.TimeZone; strings.TrimSpace(tz) != "" {
		target, _ = time.LoadLocation(tz) // validated
	}
	adjust := func(str string) int64 {
		if str == "" {
			return 0
		}
		t, _ := parseScheduleTime(str, zone) // validated
		ms := t.UnixMilli()
		if ms > 0 {
			ms += offsetMs(zone, ms) - offsetMs(target, ms)
		}
		return ms
	}
	v.startMs = adjust(s.StartTime)
	v.endMs = adjust(s.EndTime)
	for _, rs := range specs {
		v.recurrences = append(v.recurrences, newRecurrenceEval(rs, zone))
	}
	return v
}

func offsetMs(loc *time.Location, ms int64) int64 {
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

func (v *validityEval) hasRecurrences() bool { return len(v.recurrences) > 0 }

// applicable is RangerValidityScheduleEvaluator.isApplicable, at Ranger's
// millisecond resolution: the bounds are inclusive.
func (v *validityEval) applicable(t time.Time) tri {
	if v.invalid != nil {
		return triUnknown
	}
	ms := t.UnixMilli()
	if (v.startMs != 0 && ms < v.startMs) || (v.endMs != 0 && ms > v.endMs) {
		return triFalse
	}
	if len(v.recurrences) == 0 {
		return triTrue
	}
	now := time.UnixMilli(ms).In(v.zone)
	for _, r := range v.recurrences {
		if r.applicable(now) {
			return triTrue
		}
	}
	return triFalse
}

// transitions lists the instants at which the start and end bounds change
// applicability (the end is inclusive: the change comes a millisecond
// later). Recurrences change it only at whole minutes of the default zone
// and a millisecond after them; the minute clock covers those.
func (v *validityEval) transitions() []time.Time {
	if v.invalid != nil {
		return nil
	}
	var out []time.Time
	if v.startMs != 0 {
		out = append(out, time.UnixMilli(v.startMs))
	}
	if v.endMs != 0 {
		out = append(out, time.UnixMilli(v.endMs+1))
	}
	return out
}

// schedulesApplicable is true when any schedule applies (no schedule: always).
func schedulesApplicable(vs []*validityEval, t time.Time) tri {
	if len(vs) == 0 {
		return triTrue
	}
	ret := triFalse
	for _, v := range vs {
		switch v.applicable(t) {
		case triTrue:
			return triTrue
		case triUnknown:
			ret = triUnknown
		}
	}
	return ret
}

// parseScheduleTime parses "yyyy/MM/dd HH:mm:ss" as Java's SimpleDateFormat
// does when it is not lenient: spaces and tabs may precede each number,
// fields must be in range, trailing text is ignored, and a local time the
// zone skips (a daylight-saving gap) does not parse.
func parseScheduleTime(s string, loc *time.Location) (time.Time, bool) {
	var f [6]int
	seps := []byte{'/', '/', ' ', ':', ':'}
	i := 0
	for k := range f {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil {
			return time.Time{}, false
		}
		f[k] = n
		i = j
		if k < len(seps) {
			if i >= len(s) || s[i] != seps[k] {
				return time.Time{}, false
			}
			i++
		}
	}
	y, mo, d, h, mi, sec := f[0], f[1], f[2], f[3], f[4], f[5]
	if y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo-1) || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := dateIn(loc, y, mo-1, d, h, mi, sec, 0)
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d || t.Hour() != h || t.Minute() != mi {
		return time.Time{}, false
	}
	return t, true
}

// daysIn is the number of days of month0 (0-based, as in Java's Calendar;
// out-of-range values roll into the neighbouring years).
func daysIn(year, month0 int) int {
	return time.Date(year, time.Month(month0+2), 0, 0, 0, 0, 0, time.UTC).Day()
}

// recurrenceSpec is RangerValidityRecurrence as it arrives in JSON.
type recurrenceSpec struct {
	Schedule *struct {
		Minute     string `json:"minute"`
		Hour       string `json:"hour"`
		DayOfMonth string `json:"dayOfMonth"`
		DayOfWeek  string `json:"dayOfWeek"`
		Month      string `json:"month"`
		Year       string `json:"year"`
	} `json:"schedule"`
	Interval *struct {
		Days    int `json:"days"`
		Hours   int `json:"hours"`
		Minutes int `json:"minutes"`
	} `json:"interval"`
}

func (rs *recurrenceSpec) field(f *fieldSpec) string {
	s := rs.Schedule
	switch f {
	case &fieldMinute:
		return s.Minute
	case &fieldHour:
		return s.Hour
	case &fieldDayOfMonth:
		return s.DayOfMonth
	case &fieldDayOfWeek:
		return s.DayOfWeek
	case &fieldMonth:
		return s.Month
	}
	return s.Year
}

// fieldSpec is a schedule field: its name, its Calendar range (month is
// 0-based there, 1-based in schedules; day of week runs from Sunday = 1)
// and the characters it may use besides digits and spaces.
type fieldSpec struct {
	name     string
	min, max int
	special  string
}

var (
	fieldMinute     = fieldSpec{"minute", 0, 59, ","}
	fieldHour       = fieldSpec{"hour", 0, 23, "*,-"}
	fieldDayOfMonth = fieldSpec{"dayOfMonth", 1, 31, "*,-"}
	fieldDayOfWeek  = fieldSpec{"dayOfWeek", 1, 7, "*,-"}
	fieldMonth      = fieldSpec{"month", 0, 11, "*,-"}
	fieldYear       = fieldSpec{"year", 2017, 2100, "*,-"}
	scheduleFields  = []*fieldSpec{&fieldMinute, &fieldHour, &fieldDayOfMonth, &fieldDayOfWeek, &fieldMonth, &fieldYear}
)

// rejectedZones are the time-zone IDs Ranger's validator refuses although
// Java knows them (ambiguous abbreviations and SystemV zones).
var rejectedZones = map[string]bool{}

func init() {
	for _, z := range strings.Fields(`JST IST BET ACT AET AGT VST SystemV/AST4 CNT NET SystemV/MST7 PLT CST SST
		SystemV/CST6 CTT PNT BST SystemV/YST9 MIT ART AST PRT SystemV/HST10 PST SystemV/EST5 IET SystemV/PST8
		SystemV/CST6CDT NST EAT ECT SystemV/MST7MDT SystemV/YST9YDT CAT SystemV/PST8PDT SystemV/AST4ADT
		SystemV/EST5EDT Local`) {
		rejectedZones[z] = true
	}
}

// validateSchedule is RangerValidityScheduleValidator.validate reduced to its
// verdict: nil when Ranger's admin accepts the schedule. It returns the
// parsed recurrences.
func validateSchedule(s *ValiditySchedule, zone *time.Location, savedAt time.Time) ([]*recurrenceSpec, error) {
	if s.StartTime == "" && s.EndTime == "" && len(s.Recurrences) == 0 {
		return nil, errors.New("has no start, end or recurrence")
	}
	start, hasStart := parseScheduleTime(s.StartTime, zone)
	if s.StartTime != "" && !hasStart {
		return nil, errors.New("startTime is not yyyy/MM/dd HH:mm:ss")
	}
	end, hasEnd := parseScheduleTime(s.EndTime, zone)
	if s.EndTime != "" && !hasEnd {
		return nil, errors.New("endTime is not yyyy/MM/dd HH:mm:ss")
	}
	if !hasStart && !savedAt.IsZero() {
		start, hasStart = savedAt.In(zone), true
	}
	if hasStart && hasEnd && !start.Before(end) {
		return nil, errors.New("endTime is not later than startTime")
	}
	if tz := s.TimeZone; strings.TrimSpace(tz) != "" {
		if _, err := time.LoadLocation(tz); err != nil || rejectedZones[tz] {
			return nil, fmt.Errorf("time zone %q is not a Java time-zone ID Ranger accepts", tz)
		}
	}
	firstYear, lastYear := fieldYear.min, int(^uint(0)>>1)
	if hasStart {
		firstYear = start.Year()
	}
	if hasEnd {
		lastYear = end.Year()
	}
	var specs []*recurrenceSpec
	for i, raw := range s.Recurrences {
		rs := &recurrenceSpec{}
		if err := json.Unmarshal(raw, rs); err != nil {
			return nil, fmt.Errorf("recurrence %d does not parse", i+1)
		}
		if err := validateRecurrence(rs, firstYear, lastYear); err != nil {
			return nil, fmt.Errorf("recurrence %d: %v", i+1, err)
		}
		specs = append(specs, rs)
	}
	return specs, nil
}

func validateRecurrence(rs *recurrenceSpec, firstYear, lastYear int) error {
	if rs.Schedule == nil || rs.Interval == nil {
		return errors.New("has no schedule or no interval")
	}
	iv := rs.Interval
	if iv.Days < 0 || iv.Hours < 0 || iv.Hours > 23 || iv.Minutes < 0 || iv.Minutes > 59 || (iv.Days == 0 && iv.Hours == 0 && iv.Minutes == 0) {
		return errors.New("invalid interval")
	}
	if isBlank(rs.Schedule.DayOfMonth) && isBlank(rs.Schedule.DayOfWeek) {
		return errors.New("has neither dayOfMonth nor dayOfWeek")
	}
	for _, f := range scheduleFields {
		val := rs.field(f)
		if isBlank(val) && f != &fieldDayOfMonth && f != &fieldDayOfWeek {
			return fmt.Errorf("%s: no value", f.name)
		}
		for _, r := range val {
			if !unicode.IsDigit(r) && !javaSpace(r) && !strings.ContainsRune(f.special, r) {
				return fmt.Errorf("%s: invalid character", f.name)
			}
		}
		lo, hi := f.min, f.max
		if f == &fieldMonth {
			lo, hi = lo+1, hi+1
		}
		if err := validateRanges(val, f, lo, hi); err != nil {
			return err
		}
		if f == &fieldYear {
			if err := validateRanges(val, f, firstYear, lastYear); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateRanges checks a field's comma-separated values and ranges: each
// within [lo, hi] (a year range needs only one bound inside), ranges
// increasing, neither duplicated nor overlapping.
func validateRanges(val string, f *fieldSpec, lo, hi int) error {
	type span struct{ lower, upper int }
	var spans []span
	for _, spec := range splitNonEmpty(deleteSpaces(val), ",") {
		if strings.HasPrefix(spec, "-") || strings.HasSuffix(spec, "-") {
			return fmt.Errorf("%s: incorrect range", f.name)
		}
		parts := splitNonEmpty(spec, "-")
		if strings.Contains(spec, "--") {
			// Ranger's admin reads "1--5" as 1-5, its plugin cannot read
			// it at all.
			return fmt.Errorf("%s: empty range bound", f.name)
		}
		switch len(parts) {
		case 1:
			if parts[0] == scheduleWildcard {
				continue
			}
			n, err := javaParseInt(parts[0])
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("%s: value out of range", f.name)
			}
		case 2:
			bound := func(s string, def int) (int, error) {
				if s == scheduleWildcard {
					return def, nil
				}
				return javaParseInt(s)
			}
			v1, err1 := bound(parts[0], lo)
			v2, err2 := bound(parts[1], hi)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("%s: incorrect range", f.name)
			}
			if f == &fieldYear {
				if v1 < lo && v2 > hi {
					return fmt.Errorf("%s: range out of range", f.name)
				}
			} else if v1 < lo || v1 > hi || v2 < lo || v2 > hi {
				return fmt.Errorf("%s: range out of range", f.name)
			}
			if v1 >= v2 {
				return fmt.Errorf("%s: range does not increase", f.name)
			}
			for _, s := range spans {
				if s.lower == v1 || s.upper == v2 {
					return fmt.Errorf("%s: duplicate range", f.name)
				}
			}
			spans = append(spans, span{v1, v2})
		default:
			return fmt.Errorf("%s: incorrect range", f.name)
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.lower != b.lower {
			return a.lower - b.lower
		}
		return a.upper - b.upper
	})
	for i := range spans {
		for j := i + 1; j < len(spans); j++ {
			if spans[i].upper > spans[j].lower {
				return fmt.Errorf("%s: overlapping ranges", f.name)
			}
		}
	}
	return nil
}

const scheduleWildcard = "*"

// javaParseInt is Integer.parseInt: an optional sign and decimal digits of
// any script (Unicode decimal digits come in runs of ten from zero).
func javaParseInt(s string) (int, error) {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9', i == 0 && (r == '+' || r == '-'):
			b.WriteRune(r)
		case unicode.IsDigit(r):
			zero := r
			for unicode.IsDigit(zero - 1) {
				zero--
			}
			b.WriteByte(byte('0' + (r-zero)%10))
		default:
			return 0, strconv.ErrSyntax
		}
	}
	n, err := strconv.ParseInt(b.String(), 10, 32)
	return int(n), err
}

// javaSpace is Character.isWhitespace: space separators other than the
// non-breaking ones, and the ASCII controls for tab, line feed, vertical
// tab, form feed, carriage return and the file to unit separators.
func javaSpace(r rune) bool {
	switch r {
	case '\u00a0', '\u2007', '\u202f':
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
}

func isBlank(s string) bool { return strings.TrimFunc(s, javaSpace) == "" }

func deleteSpaces(s string) string {
	return strings.Map(func(r rune) rune {
		if javaSpace(r) {
			return -1
		}
		return r
	}, s)
}

// splitNonEmpty splits s at sep and drops empty parts.
func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
