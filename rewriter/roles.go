package rewriter

import (
	"strings"

	"github.com/sqe-project/sqe/session"
)

// Roles in the session, Snowflake style:
//
//	USE ROLE analyst
//	USE SECONDARY ROLES ALL | NONE | r1, r2
//
// are sqe's own statements (the engine answers them; they never reach the
// database). They are read from the tokens of the dialect's own scanner
// (Tokenizer), so that what is a word, a quoted name, a string or a
// comment is what the database's grammar says, and no statement is
// classified by a pattern over its text.

// TokenKind is the class of a Token.
type TokenKind int

// Token kinds.
const (
	TokenOther   TokenKind = iota // anything else (an operator of several characters …)
	TokenWord                     // a keyword or an unquoted identifier
	TokenName                     // a quoted identifier (or MySQL's "double-quoted" text)
	TokenString                   // a string literal
	TokenNumber                   // a numeric literal
	TokenPunct                    // one punctuation character: ; , . - $ …
	TokenComment                  // a comment
)

// Token is one token of a statement as the dialect's scanner reads it.
type Token struct {
	Kind TokenKind
	// Text is a word as written, a quoted name's name (quotes removed,
	// doubled quotes undone), a punctuation character.
	Text string
	// Start and End are the token's byte offsets in the statement; two
	// tokens are adjacent when one's End is the other's Start.
	Start, End int
}

// Tokenizer is the dialect's scanner. Tokens reads sql with the
// database's own lexical rules, comments included (TokenComment); ok is false when the
// scanner stopped at something it cannot read (the tokens before it are
// returned).
type Tokenizer interface {
	Tokens(sql string) (tokens []Token, ok bool)
}

// RoleStatement is a USE ROLE or USE SECONDARY ROLES statement.
type RoleStatement struct {
	// Primary is USE ROLE's role, when IsPrimary.
	Primary   string
	IsPrimary bool
	// Secondary are USE SECONDARY ROLES' roles (session.AllSecondaryRoles
	// for ALL); None is USE SECONDARY ROLES NONE.
	Secondary []string
	None      bool
}

// MaybeRoleStatement reports whether sql, after leading white space,
// starts with USE and one more character: the only statements that can
// be role statements. It looks at bytes, so that the statements that are
// not (every other one) cost nothing more.
func MaybeRoleStatement(sql string) bool {
	i := 0
	for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\f' || sql[i] == '\r') {
		i++
	}
	rest := sql[i:]
	return len(rest) >= 4 && strings.EqualFold(rest[:3], "use")
}

// ParseRoleStatement reads sql as a role statement with the dialect's
// scanner. ok is false for any other statement; ok with an error is a
// role statement that is malformed (it is refused, never sent). A role
// name is a quoted name, or bare: adjacent words, numbers and the
// characters - . $ (eu-analyst, team.lead), as written.
func ParseRoleStatement(tk Tokenizer, sql string) (st RoleStatement, ok bool, err error) {
	if !MaybeRoleStatement(sql) {
		return st, false, nil
	}
	all, read := tk.Tokens(sql)
	toks := make([]Token, 0, len(all))
	for _, t := range all {
		if t.Kind != TokenComment {
			toks = append(toks, t)
		}
	}
	word := func(i int, w ...string) bool {
		if i >= len(toks) || toks[i].Kind != TokenWord {
			return false
		}
		for _, x := range w {
			if strings.EqualFold(toks[i].Text, x) {
				return true
			}
		}
		return false
	}
	var rest []Token
	switch {
	case word(0, "use") && word(1, "role"):
		st.IsPrimary, rest = true, toks[2:]
	case word(0, "use") && word(1, "secondary") && word(2, "role", "roles"):
		rest = toks[3:]
	default:
		return st, false, nil
	}
	malformed := Unsupported("malformed role name in USE ROLE (quote it with double quotes)")
	if !read {
		return st, true, malformed
	}
	if n := len(rest); n > 0 && rest[n-1].Kind == TokenPunct && rest[n-1].Text == ";" {
		rest = rest[:n-1]
	}
	if !st.IsPrimary && len(rest) == 1 && rest[0].Kind == TokenWord {
		switch strings.ToUpper(rest[0].Text) {
		case "ALL":
			st.Secondary = []string{session.AllSecondaryRoles}
			return st, true, nil
		case "NONE":
			st.None = true
			return st, true, nil
		}
	}
	for {
		name, n := roleName(rest)
		if n == 0 {
			return st, true, malformed
		}
		rest = rest[n:]
		if st.IsPrimary {
			if len(rest) > 0 {
				return st, true, malformed
			}
			st.Primary = name
			return st, true, nil
		}
		st.Secondary = append(st.Secondary, name)
		if len(rest) == 0 {
			return st, true, nil
		}
		if rest[0].Kind != TokenPunct || rest[0].Text != "," {
			return st, true, malformed
		}
		rest = rest[1:]
	}
}

// roleName reads one role name at the start of toks, and how many tokens
// it took (0: none).
func roleName(toks []Token) (string, int) {
	if len(toks) == 0 {
		return "", 0
	}
	if toks[0].Kind == TokenName {
		if toks[0].Text == "" {
			return "", 0
		}
		return toks[0].Text, 1
	}
	var b strings.Builder
	n := 0
	for n < len(toks) {
		t := toks[n]
		if n > 0 && t.Start != toks[n-1].End {
			break
		}
		bare := t.Kind == TokenWord || t.Kind == TokenNumber ||
			t.Kind == TokenPunct && (t.Text == "-" || t.Text == "." || t.Text == "$")
		if !bare || n == 0 && t.Kind == TokenPunct {
			break
		}
		b.WriteString(t.Text)
		n++
	}
	return b.String(), n
}
