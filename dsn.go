package sqe

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqe-project/sqe/session"
)

// DriverName is the name sqe registers with database/sql, so that
//
//	db, err := sql.Open("sqe", "driver=mysql;policy=/etc/sqe/policy.yaml;dsn=app:pw@tcp(127.0.0.1:3306)/shop?parseTime=true")
//
// opens the inner driver "mysql" through sqe.
//
// # DSN
//
// The DSN is a list of key=value elements separated by ";":
//
//	dsn     = *( element ";" ) "dsn=" inner
//	element = key "=" value
//	key     = "driver" / "policy" / "user" / "roles" / "dialect" / "masks"
//	value   = 1*<any character except ";">
//	inner   = 1*<any character>
//
// The keys are lower case and taken literally (no spaces are trimmed). A
// value extends from the first "=" of its element to the next ";", so it
// may contain "=" but not ";". The dsn key must come last: everything after
// "dsn=" is the inner driver's DSN, verbatim, and may contain ";", "=", "?"
// and "&".
//
//	driver   required: the name the inner driver registered with database/sql
//	         (mysql, pgx, …); it cannot be sqe itself
//	policy   a native policy file (WithPolicyFile)
//	user     the default user's name (WithDefaultUser), for statements whose
//	         context carries no session.User
//	roles    the default user's granted roles, comma-separated (requires user)
//	dialect  the SQL dialect, mysql or postgres (WithDialect)
//	masks    inline (the default) or server: the mask functions installed
//	         in the database (WithServerMasks)
//	dsn      required, last: the inner driver's DSN
//
// A DSN with a missing driver or dsn, an unknown or repeated key, an empty
// value, an element without "=", an empty role, or masks other than inline
// or server is rejected. Errors name the key or the element's position,
// never the inner DSN, which may hold a password.
//
// Options that have no DSN key (WithPolicy, WithCatalog, WithRawConnAccess,
// …) are available through Open and NewConnector.
const DriverName = "sqe"

// dsnConfig is a parsed sqe DSN.
type dsnConfig struct {
	driver  string
	policy  string
	user    string
	roles   []string
	dialect string
	// serverMasks: masks=server.
	serverMasks bool
	dsn         string
}

var dsnKeys = []string{"driver", "policy", "user", "roles", "dialect", "masks"}

// parseDSN parses an sqe DSN (see DriverName).
func parseDSN(s string) (*dsnConfig, error) {
	var d dsnConfig
	seen := map[string]bool{}
	haveDSN := false
	for n := 1; s != ""; n++ {
		if rest, ok := strings.CutPrefix(s, "dsn="); ok {
			if rest == "" {
				return nil, errors.New(`sqe: DSN key "dsn" has an empty value`)
			}
			d.dsn, haveDSN = rest, true
			break
		}
		elem, rest, more := strings.Cut(s, ";")
		s = rest
		if elem == "" {
			return nil, fmt.Errorf("sqe: DSN element %d is empty", n)
		}
		key, value, ok := strings.Cut(elem, "=")
		if !ok {
			return nil, fmt.Errorf(`sqe: DSN element %d is not key=value`, n)
		}
		if !slices.Contains(dsnKeys, key) {
			if isIdentifier(key) {
				return nil, fmt.Errorf("sqe: unknown DSN key %q (keys: driver, policy, user, roles, dialect, masks, and dsn last)", key)
			}
			// The "key" may be part of a misplaced inner DSN: do not echo it.
			return nil, fmt.Errorf("sqe: DSN element %d has an invalid key (is the inner DSN missing its dsn= prefix?)", n)
		}
		if seen[key] {
			return nil, fmt.Errorf("sqe: DSN key %q appears more than once", key)
		}
		seen[key] = true
		if value == "" {
			return nil, fmt.Errorf("sqe: DSN key %q has an empty value", key)
		}
		switch key {
		case "driver":
			d.driver = value
		case "policy":
			d.policy = value
		case "user":
			d.user = value
		case "roles":
			for r := range strings.SplitSeq(value, ",") {
				if r == "" {
					return nil, errors.New(`sqe: DSN key "roles" has an empty role`)
				}
				d.roles = append(d.roles, r)
			}
		case "dialect":
			d.dialect = value
		case "masks":
			switch value {
			case "inline":
			case "server":
				d.serverMasks = true
			default:
				return nil, fmt.Errorf(`sqe: DSN key "masks" is %q: inline or server`, value)
			}
		}
		if !more {
			break
		}
		if s == "" {
			return nil, fmt.Errorf("sqe: DSN element %d is empty", n+1)
		}
	}
	switch {
	case d.driver == "":
		return nil, errors.New(`sqe: DSN has no "driver" key`)
	case !haveDSN:
		return nil, errors.New(`sqe: DSN has no "dsn" key (it must be the last element)`)
	case d.driver == DriverName:
		return nil, errors.New(`sqe: DSN key "driver" cannot be sqe itself`)
	case len(d.roles) > 0 && d.user == "":
		return nil, errors.New(`sqe: DSN key "roles" requires the "user" key`)
	}
	return &d, nil
}

// options turns the DSN's keys into Options.
func (d *dsnConfig) options() []Option {
	var opts []Option
	if d.policy != "" {
		opts = append(opts, WithPolicyFile(d.policy))
	}
	if d.user != "" {
		opts = append(opts, WithDefaultUser(session.User{Name: d.user, Roles: d.roles}))
	}
	if d.dialect != "" {
		opts = append(opts, WithDialect(d.dialect))
	}
	if d.serverMasks {
		opts = append(opts, WithServerMasks())
	}
	return opts
}

// isIdentifier reports whether s is a plausible key (letters, digits, _ and
// -, at most 32), safe to repeat in an error message.
func isIdentifier(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
