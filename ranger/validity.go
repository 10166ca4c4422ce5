package ranger

import (
	"strings"
	"time"
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

var validityLayouts = []string{"2006/01/02 15:04:05", "2006/01/02 15:04", "2006/01/02", time.RFC3339}

// validityEval is RangerValidityScheduleEvaluator for schedules with a start
// and an end; recurring schedules are not evaluated (unknown).
type validityEval struct {
	start, end     time.Time
	hasStart       bool
	hasEnd         bool
	hasRecurrences bool
	invalid        bool
}

func newValidityEval(s *ValiditySchedule) *validityEval {
	v := &validityEval{hasRecurrences: len(s.Recurrences) > 0}
	loc := time.UTC
	if tz := strings.TrimSpace(s.TimeZone); tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			v.invalid = true
		} else {
			loc = l
		}
	}
	parse := func(x string) (time.Time, bool) {
		x = strings.TrimSpace(x)
		if x == "" {
			return time.Time{}, false
		}
		for _, l := range validityLayouts {
			if t, err := time.ParseInLocation(l, x, loc); err == nil {
				return t, true
			}
		}
		v.invalid = true
		return time.Time{}, false
	}
	v.start, v.hasStart = parse(s.StartTime)
	v.end, v.hasEnd = parse(s.EndTime)
	return v
}

func (v *validityEval) applicable(t time.Time) tri {
	if v.invalid || v.hasRecurrences {
		return triUnknown
	}
	if v.hasStart && t.Before(v.start) {
		return triFalse
	}
	if v.hasEnd && !t.Before(v.end) {
		return triFalse
	}
	return triTrue
}

// transitions lists the instants at which applicability changes.
func (v *validityEval) transitions() []time.Time {
	var out []time.Time
	if v.hasStart {
		out = append(out, v.start)
	}
	if v.hasEnd {
		out = append(out, v.end)
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
