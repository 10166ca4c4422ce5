package ranger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestValiditySchedulerFixtures runs Ranger's validity-schedule fixtures as
// Ranger's TestPolicyEngine runs them: every schedule of a case must
// validate, and then the case applies when any schedule applies at its
// access time, with America/Los_Angeles as the default zone.
func TestValiditySchedulerFixtures(t *testing.T) {
	zone, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/validityscheduler/*.json")
	if len(files) != 3 {
		t.Fatalf("%d fixture files, want 3", len(files))
	}
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Name              string              `json:"name"`
			ValiditySchedules []*ValiditySchedule `json:"validitySchedules"`
			AccessTime        string              `json:"accessTime"`
			Result            struct {
				IsValid      bool `json:"isValid"`
				IsApplicable bool `json:"isApplicable"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cases {
			total++
			at, err := time.Parse("20060102-15:04:05.000-0700", c.AccessTime)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, c.Name, err)
			}
			valid, applicable := true, false
			var why error
			var evals []*validityEval
			for _, s := range c.ValiditySchedules {
				v := newValidityEvalIn(s, zone, time.Now())
				if v.invalid != nil {
					valid, why = false, v.invalid
					break
				}
				evals = append(evals, v)
			}
			if valid {
				for _, v := range evals {
					if v.applicable(at) == triTrue {
						applicable = true
						break
					}
				}
			}
			if valid != c.Result.IsValid || applicable != c.Result.IsApplicable {
				t.Errorf("%s: %s: valid=%v (%v) applicable=%v, want valid=%v applicable=%v",
					filepath.Base(f), c.Name, valid, why, applicable, c.Result.IsValid, c.Result.IsApplicable)
			}
		}
	}
	t.Logf("%d validity-schedule cases", total)
}

// Ranger's step back, quirks included: when the hour borrows from the day,
// the day-of-month guess moves back only across the first of a month, while
// the day-of-week guess always moves back a day.
func TestRecurrenceStepsBackAsRanger(t *testing.T) {
	schedule := func(dayOfMonth, dayOfWeek string) *ValiditySchedule {
		return &ValiditySchedule{Recurrences: []json.RawMessage{json.RawMessage(`{"schedule": {"minute": "30", "hour": "23", "dayOfMonth": "` +
			dayOfMonth + `", "dayOfWeek": "` + dayOfWeek + `", "month": "*", "year": "*"}, "interval": {"hours": 2}}`)}}
	}
	for _, c := range []struct {
		name                  string
		dayOfMonth, dayOfWeek string
		at                    time.Time
		want                  tri
	}{
		{"day of week, hour borrows", "", "*", time.Date(2030, 6, 15, 0, 10, 0, 0, time.UTC), triTrue},
		{"day of month, hour borrows mid-month", "*", "", time.Date(2030, 6, 15, 0, 10, 0, 0, time.UTC), triFalse},
		{"day of month, hour borrows on the first", "*", "", time.Date(2030, 7, 1, 0, 10, 0, 0, time.UTC), triTrue},
		{"day of month, inside the interval", "*", "", time.Date(2030, 6, 15, 23, 45, 0, 0, time.UTC), triTrue},
		{"day of month, after the interval", "*", "", time.Date(2030, 6, 15, 22, 0, 0, 0, time.UTC), triFalse},
	} {
		v := newValidityEvalIn(schedule(c.dayOfMonth, c.dayOfWeek), time.UTC, time.Time{})
		if v.invalid != nil {
			t.Fatalf("%s: %v", c.name, v.invalid)
		}
		if got := v.applicable(c.at); got != c.want {
			t.Errorf("%s: applicable = %v, want %v", c.name, got, c.want)
		}
	}
}

// Wall times a daylight-saving change skips or repeats resolve as Java's
// lenient GregorianCalendar resolves them.
func TestCalendarFieldsAcrossDaylightSaving(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  time.Time
		want string
	}{
		{dateIn(la, 2030, 2, 10, 2, 30, 0, 0), "2030-03-10T10:30:00Z"},  // skipped: 03:30 PDT
		{dateIn(la, 2030, 10, 3, 1, 30, 0, 0), "2030-11-03T09:30:00Z"},  // repeated: the second, PST
		{dateIn(la, 2030, 10, 3, 0, 30, 0, 0), "2030-11-03T07:30:00Z"},  // before the change
		{dateIn(la, 2030, 12, 32, 12, 0, 0, 0), "2031-02-01T20:00:00Z"}, // lenient overflow
		// Calendar.add keeps the old offset when the new one would
		// change the date: 02:30 a day later is 01:30 PST.
		{addDays(dateIn(la, 2030, 2, 9, 2, 30, 0, 0), 1), "2030-03-10T09:30:00Z"},
		{addDays(dateIn(la, 2030, 2, 9, 12, 0, 0, 0), 1), "2030-03-10T19:00:00Z"},
	} {
		if s := c.got.UTC().Format(time.RFC3339); s != c.want {
			t.Errorf("got %s, want %s", s, c.want)
		}
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  time.Time
		want string
	}{
		{dateIn(berlin, 2030, 2, 31, 2, 30, 0, 0), "2030-03-31T01:30:00Z"},  // skipped: 03:30 CEST
		{dateIn(berlin, 2030, 9, 27, 2, 30, 0, 0), "2030-10-27T01:30:00Z"},  // repeated: the second, CET
		{dateIn(berlin, 2030, 9, 27, 1, 30, 0, 0), "2030-10-26T23:30:00Z"},  // before the change
		{dateIn(berlin, 2030, 2, 31, 3, 0, 0, 0), "2030-03-31T01:00:00Z"},   // the change itself
		{dateIn(berlin, 2030, 2, 31, 1, 59, 59, 0), "2030-03-31T00:59:59Z"}, // just before it
	} {
		if s := c.got.UTC().Format(time.RFC3339); s != c.want {
			t.Errorf("Berlin: got %s, want %s", s, c.want)
		}
	}
	if _, ok := parseScheduleTime("2030/03/10 02:30:00", la); ok {
		t.Error("a skipped wall time parsed; Java's strict parser refuses it")
	}
	if _, ok := parseScheduleTime("2030/02/29 10:00:00", la); ok {
		t.Error("February 29 of a common year parsed")
	}
	if got, ok := parseScheduleTime(" 2030/1/2  3:04:05 trailing", time.UTC); !ok || got.Format(time.DateTime) != "2030-01-02 03:04:05" {
		t.Errorf("leading spaces, short fields and trailing text: %v %v", got, ok)
	}
}

// Field text is read as Ranger reads it: Java's notion of white space and
// of digits, and a range with an empty bound, which Ranger's admin accepts
// but its plugin cannot read, fails closed.
func TestScheduleFieldText(t *testing.T) {
	for _, c := range []struct {
		hour  string
		valid bool
	}{
		{" 9 , 1 1-13", true},
		{"\u0669", true},     // ARABIC-INDIC DIGIT NINE
		{"9\u00a010", false}, // a non-breaking space is not white space to Java
		{"9\u2003,10", true}, // an em space is
		{"1--5", false},      // empty range bound
		{"5-1", false},       // decreasing range
		{"1-5,5-9", true},    // touching ranges
		{"1-5,4-9", false},   // overlapping ranges
		{"24", false},        // out of range
		{"+9", false},        // '+' is not a permitted character
	} {
		s := &ValiditySchedule{Recurrences: []json.RawMessage{json.RawMessage(`{"schedule": {"minute": "0", "hour": "` + c.hour +
			`", "dayOfWeek": "*", "month": "*", "year": "*"}, "interval": {"hours": 1}}`)}}
		v := newValidityEvalIn(s, time.UTC, time.Time{})
		if (v.invalid == nil) != c.valid {
			t.Errorf("hour %q: invalid = %v, want valid = %v", c.hour, v.invalid, c.valid)
		}
	}
	if n, err := javaParseInt("\u0663\u0661"); err != nil || n != 31 {
		t.Errorf("Arabic-Indic 31: %d %v", n, err)
	}
}
