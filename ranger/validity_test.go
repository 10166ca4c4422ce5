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
