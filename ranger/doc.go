// Package ranger is an Apache Ranger policy source for sqe: the policies
// that govern Spark, Hive and Trino through Ranger's hive service, enforced
// on a Go service's MySQL or PostgreSQL statements with the same outcome
// for the same user.
//
// New polls a Ranger admin's plugin download API (policies with their
// service-def and tag policies, roles, tags, the user store), each part
// refreshed on its own, over the secure endpoints when credentials are
// configured (basic, bearer or Kerberos), with fail-over between several
// admins and a cache directory for cold starts; LoadBundle, OpenBundle and
// NewStatic serve a bundle ("sqe fetch" writes one). A source that has
// never loaded, or whose service the admin no longer has, fails every
// statement closed.
//
//	src, err := ranger.New("https://ranger.example.com:6182", "hivedev",
//		ranger.WithBasicAuth("sqe", password), ranger.WithCacheDir("/var/cache/sqe"))
//	db, err := sqe.Open("mysql", dsn, sqe.WithPolicy(src))
//
// A statement's tables become hive resources (database, table, column;
// WithDatabaseMap renames schemas), and a View asks the engine, a port of
// Ranger's policy engine, the questions a Hive plugin asks: select per
// column, update, create, drop, alter, index and lock per table, the row
// filter and each column's mask, in Ranger's order (deny before allow,
// priority, tag policies, security zones, validity schedules, condition
// scripts on a JavaScript engine, audit decisions). The answers become a
// policy.Decision; a question sqe cannot answer with certainty takes
// access away and never grants it.
//
// docs/ranger-engine.md is the normative text (sources, resources and
// names, decisions, precedence, what sqe cannot evaluate); docs/ranger.md
// covers configuration, the admin connection, tags, zones and scripts.
package ranger
