package ranger

import (
	"errors"
	"time"
)

// recurrenceEval is Ranger's RangerRecurrenceEvaluator: a recurrence is in
// force from the latest scheduled instant at or before the access time for
// the interval that follows it (both ends inclusive). The scheduled instant
// is found field by field, from the minute up, each field stepping back to
// its closest matching value and borrowing from the next field when it
// wraps, on the calendar of the default zone. The algorithm, including its
// quirks (an hour that borrows moves the day of month back only across the
// first of a month; the later of the day-of-month and day-of-week guesses
// wins), is Ranger's, so that sqe decides exactly as a Ranger plugin would.
type recurrenceEval struct {
	minutes, hours, daysOfMonth, daysOfWeek, months, years []timeMatcher
	hasDayOfMonth, hasDayOfWeek                            bool
	days, intervalHours, intervalMinutes                   int
	zone                                                   *time.Location
}

// timeMatcher matches one calendar value: any value, or lo..hi inclusive.
type timeMatcher struct {
	any    bool
	lo, hi int
}

func (m timeMatcher) match(v int) bool { return m.any || (v >= m.lo && v <= m.hi) }

// newRecurrenceEval builds the evaluator of a validated recurrence.
func newRecurrenceEval(rs *recurrenceSpec, zone *time.Location) *recurrenceEval {
	iv := rs.Interval
	r := &recurrenceEval{days: iv.Days, intervalHours: iv.Hours, intervalMinutes: iv.Minutes, zone: zone,
		// Ranger evaluates the admin's normalized copy, in which a field
		// of only commas is absent.
		hasDayOfMonth: len(splitNonEmpty(deleteSpaces(rs.Schedule.DayOfMonth), ",")) > 0,
		hasDayOfWeek:  len(splitNonEmpty(deleteSpaces(rs.Schedule.DayOfWeek), ",")) > 0}
	r.minutes = matchers(rs.field(&fieldMinute), 0)
	r.hours = matchers(rs.field(&fieldHour), 0)
	r.daysOfMonth = matchers(rs.field(&fieldDayOfMonth), 0)
	r.daysOfWeek = matchers(rs.field(&fieldDayOfWeek), 0)
	r.months = matchers(rs.field(&fieldMonth), 1) // 1-based in schedules, 0-based in the calendar
	r.years = matchers(rs.field(&fieldYear), 0)
	return r
}

// matchers turns a validated field (values, ranges, "*") into matchers.
func matchers(val string, shift int) []timeMatcher {
	var out []timeMatcher
	for _, spec := range splitNonEmpty(deleteSpaces(val), ",") {
		parts := splitNonEmpty(spec, "-")
		if len(parts) == 0 {
			continue
		}
		if parts[0] == scheduleWildcard || (len(parts) > 1 && parts[1] == scheduleWildcard) {
			return []timeMatcher{{any: true}}
		}
		lo, _ := javaParseInt(parts[0])
		hi := lo
		if len(parts) > 1 {
			hi, _ = javaParseInt(parts[1])
		}
		out = append(out, timeMatcher{lo: lo - shift, hi: hi - shift})
	}
	return out
}

func (r *recurrenceEval) intervalMins() int {
	return (r.days*24+r.intervalHours)*60 + r.intervalMinutes
}

// applicable reports whether now (in the default zone, whole milliseconds)
// falls in an interval of the recurrence.
func (r *recurrenceEval) applicable(now time.Time) bool {
	if r.intervalMins() <= 0 {
		return true
	}
	start, err := r.closestPastEpoch(now)
	if err != nil {
		return false
	}
	end := start.Add(time.Duration(r.intervalMinutes) * time.Minute).Add(time.Duration(r.intervalHours) * time.Hour)
	end = addDays(end, r.days)
	return !start.After(now) && !end.Before(now)
}

// fieldValue is a field's value and whether finding it borrowed from the
// next larger field.
type fieldValue struct {
	value  int
	borrow bool
}

var errNoMatch = errors.New("no matching calendar value")

// pastValue steps back from value (one less when borrow) to the closest
// value the matchers accept, wrapping below the field's minimum to maximum
// (and then borrowing). A field without matchers keeps its value.
func pastValue(f *fieldSpec, ms []timeMatcher, value int, borrow bool, maximum int) (fieldValue, error) {
	if borrow {
		value--
	}
	if len(ms) == 0 {
		if value < f.min {
			value = maximum
		}
		return fieldValue{value: value}, nil
	}
	borrowed := false
	for i := 0; i < f.max-f.min+1; i, value = i+1, value-1 {
		if value < f.min {
			value, borrowed = maximum, true
		}
		for _, m := range ms {
			if m.match(value) {
				return fieldValue{value, borrowed}, nil
			}
		}
	}
	return fieldValue{}, errNoMatch
}

func (r *recurrenceEval) closestPastEpoch(cur time.Time) (time.Time, error) {
	minute, err := pastValue(&fieldMinute, r.minutes, cur.Minute(), false, fieldMinute.max)
	if err != nil {
		return time.Time{}, err
	}
	hour, err := pastValue(&fieldHour, r.hours, cur.Hour(), minute.borrow, fieldHour.max)
	if err != nil {
		return time.Time{}, err
	}
	var byDayOfMonth, byDayOfWeek *time.Time
	if r.hasDayOfMonth {
		t, err := r.closestDayOfMonth(cur, minute, hour)
		if err != nil {
			return time.Time{}, err
		}
		if t, err = r.fillOut(t); err != nil {
			return time.Time{}, err
		}
		byDayOfMonth = &t
	}
	if r.hasDayOfWeek {
		t, err := r.closestDayOfWeek(cur, minute, hour)
		if err != nil {
			return time.Time{}, err
		}
		if t, err = r.fillOut(t); err != nil {
			return time.Time{}, err
		}
		byDayOfWeek = &t
	}
	switch {
	case byDayOfMonth != nil && byDayOfWeek != nil:
		if byDayOfMonth.After(*byDayOfWeek) {
			return *byDayOfMonth, nil
		}
		return *byDayOfWeek, nil
	case byDayOfMonth != nil:
		return *byDayOfMonth, nil
	case byDayOfWeek != nil:
		return *byDayOfWeek, nil
	}
	return time.Time{}, errNoMatch
}

// month0 is the 0-based month, as Java's Calendar numbers them.
func month0(t time.Time) int { return int(t.Month()) - 1 }

// dateIn is a lenient GregorianCalendar built from fields (month 0-based):
// values out of range roll over into the neighbouring fields. A wall time
// that a daylight-saving change skips or repeats resolves as Java resolves
// it: from the instant a change takes effect on the wall clock, the new
// offset applies (a skipped 02:30 is 03:30 after the change; a repeated
// 01:30 is the second one), where time.Date takes the earlier offset.
func dateIn(loc *time.Location, year, month, day, hour, minute, sec, nsec int) time.Time {
	t := time.Date(year, time.Month(month+1), day, hour, minute, sec, nsec, loc)
	wall := time.Date(year, time.Month(month+1), day, hour, minute, sec, nsec, time.UTC)
	secs := func(s int) time.Duration { return time.Duration(s) * time.Second }
	// Each offset holds from the wall time at which its period starts.
	start, end := t.ZoneBounds()
	_, off := t.Zone()
	if !start.IsZero() && wall.Before(start.Add(secs(off))) {
		_, off = start.Add(-time.Nanosecond).In(loc).Zone()
	} else if !end.IsZero() {
		if _, next := end.In(loc).Zone(); !wall.Before(end.Add(secs(next))) {
			off = next
		}
	}
	return wall.Add(-secs(off)).In(loc)
}

// addDays is Calendar.add(DAY_OF_MONTH, n): the wall-clock time is kept,
// moved by the change of offset when one lies between unless that would
// change the date.
func addDays(t time.Time, n int) time.Time {
	loc := t.Location()
	_, oldOff := t.Zone()
	wall := time.Date(t.Year(), t.Month(), t.Day()+n, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	u := wall.Add(-time.Duration(oldOff) * time.Second).In(loc)
	if _, newOff := u.Zone(); newOff != oldOff {
		v := u.Add(time.Duration(oldOff-newOff) * time.Second)
		if v.Year() == wall.Year() && v.YearDay() == wall.YearDay() {
			u = v
		}
	}
	return u
}

// addMonths is Calendar.add(MONTH, n): the day is clamped to the new month.
func addMonths(t time.Time, n int) time.Time {
	y, m := t.Year(), month0(t)+n
	first := dateIn(t.Location(), y, m, 1, 0, 0, 0, 0)
	d := min(t.Day(), daysIn(first.Year(), month0(first)))
	return dateIn(t.Location(), first.Year(), month0(first), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond())
}

// daysInPreviousMonth is the length of the month before t's.
func daysInPreviousMonth(t time.Time) int { return daysIn(t.Year(), month0(t)-1) }

func (r *recurrenceEval) closestDayOfMonth(cur time.Time, minute, hour fieldValue) (time.Time, error) {
	initial := cur.Day()
	day, month, year := initial, month0(cur), cur.Year()
	maxPrev := daysInPreviousMonth(cur)
	if hour.borrow {
		initial--
		prev := addDays(cur, -1)
		switch {
		case initial < prev.Day(): // the hour went back across the first of the month
			day, month, year = prev.Day(), month0(prev), prev.Year()
			maxPrev = daysInPreviousMonth(prev)
		case initial > prev.Day():
			return time.Time{}, errNoMatch
		}
	}
	var found fieldValue
	for tries := 0; ; tries++ {
		v, err := pastValue(&fieldDayOfMonth, r.daysOfMonth, day, false, maxPrev)
		if err == nil {
			found = v
			break
		}
		if tries > 48 { // validated schedules always match within a few months
			return time.Time{}, err
		}
		c := addMonths(dateIn(r.zone, year, month, day, cur.Hour(), cur.Minute(), cur.Second(), cur.Nanosecond()), -1)
		day, month, year = c.Day(), month0(c), c.Year()
		maxPrev = daysInPreviousMonth(c)
	}
	if found.borrow {
		month--
	}
	return dateIn(r.zone, year, month, found.value, hour.value, minute.value, 0, 0), nil
}

func (r *recurrenceEval) closestDayOfWeek(cur time.Time, minute, hour fieldValue) (time.Time, error) {
	dow := int(cur.Weekday()) + 1 // Calendar.DAY_OF_WEEK: Sunday is 1
	found, err := pastValue(&fieldDayOfWeek, r.daysOfWeek, dow, hour.borrow, fieldDayOfWeek.max)
	if err != nil {
		return time.Time{}, err
	}
	back := 0
	if hour.borrow {
		back = 1
	}
	if found.borrow {
		if dow-found.value != back {
			back = fieldDayOfWeek.max - fieldDayOfWeek.min + 1 + dow - found.value
		}
	} else {
		back = dow - found.value
	}
	t := dateIn(r.zone, cur.Year(), month0(cur), cur.Day(), hour.value, minute.value, cur.Second(), cur.Nanosecond())
	t = addDays(t, -back)
	return dateIn(r.zone, t.Year(), month0(t), t.Day(), t.Hour(), t.Minute(), 0, 0), nil
}

// fillOut steps the month and then the year back to matching values; the
// day and time are kept (leniently: a day the month lacks rolls over).
func (r *recurrenceEval) fillOut(t time.Time) (time.Time, error) {
	month, err := pastValue(&fieldMonth, r.months, month0(t), false, fieldMonth.max)
	if err != nil {
		return time.Time{}, err
	}
	year, err := pastValue(&fieldYear, r.years, t.Year(), month.borrow, fieldYear.max)
	if err != nil {
		return time.Time{}, err
	}
	return dateIn(r.zone, year.value, month.value, t.Day(), t.Hour(), t.Minute(), 0, t.Nanosecond()), nil
}
