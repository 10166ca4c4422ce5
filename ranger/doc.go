// Package ranger is an Apache Ranger policy source for sqe: the policies
// that govern Spark, Hive and Trino through Ranger's hive service, enforced
// on a Go service's MySQL or PostgreSQL statements with the same outcome
// for the same user.
//
// # Sources
//
// New polls a Ranger admin's plugin download API (policies with their
// serviceDef and tag policies, roles, tags and, WithUserStore, the user
// store) and keeps the last good download in a cache directory
// (WithCacheDir), loaded at start when the admin is unreachable, the way a
// Ranger plugin keeps policy.cache.dir. LoadBundle and OpenBundle serve a
// bundle file, which "sqe fetch" writes and which a plain policy download
// also is; NewStatic serves a Bundle in memory:
//
//	src, err := ranger.New("https://ranger.example.com:6182", "hivedev",
//		ranger.WithBasicAuth("sqe", password), ranger.WithCacheDir("/var/cache/sqe"))
//	db, err := sqe.Open("mysql", dsn, sqe.WithPolicy(src))
//
// With credentials (WithBasicAuth, WithBearerToken, an Authorization
// header) every part comes from the admin's secure download endpoints, as
// a hardened admin requires (WithDownloadMode forces either kind). The
// admin URL may list several admins, comma-separated, as Ranger's
// policy.rest.url does: a transport error or a 5xx sends a request to the
// next, and the one that answered is asked first from then on.
//
// The roles, tags and user store refresh independently of the policies: a
// part that fails to download keeps its last version while the others
// advance (a part never downloaded keeps the source from loading).
//
// A download answered 200 replaces its part, 304 and 204 keep it. A 404
// (ErrServiceNotFound: the admin does not have the service) drops the
// snapshot and removes the cache file, as Ranger's PolicyRefresher does:
// every statement is refused, with policy.ErrNotLoaded wrapping
// ErrServiceNotFound, until a download succeeds again, and a cold start
// never loads the cache of such a service. Any other answer, a transport
// error or malformed JSON keeps the last good snapshot. Both count a
// failure (Stats); polls back off after failures. A Source that has never loaded anything fails
// closed: Snapshot returns an error wrapping policy.ErrNotLoaded and every
// statement is refused. Snapshots are compiled off the statement path and
// published with one atomic swap.
//
// # Resources and names
//
// The service-def must have the hive resources database, table and column
// (the downloaded serviceDef's matchers, wildcards, ignoreCase and
// hierarchies are honoured as Ranger honours them). A statement's table
// policy.TableName{Schema, Table} is the Ranger resource
// {database: Schema, table: Table}, a column adds {column: name}:
//
//   - MySQL and MariaDB: the database (schema) is the Ranger database.
//     "SELECT ssn FROM shop.customers" asks about database=shop,
//     table=customers, column=ssn; an unqualified table is in the
//     connection's current database.
//   - PostgreSQL: the schema is the Ranger database and the PostgreSQL
//     database (catalog) selects the Ranger service: one Source per
//     PostgreSQL database. In database erp, "SELECT * FROM sales.orders"
//     asks service erp_hive (ranger.New(url, "erp_hive")) about
//     database=sales, table=orders; an unqualified table resolves through
//     the search_path first.
//
// WithDatabaseMap renames schemas on the way in, for a Ranger database
// named differently from the SQL schema (the default is the identity):
//
//	ranger.WithDatabaseMap(map[string]string{"public": "erp", "shop_v2": "shop"})
//
// WithDatabaseMapper takes any function of the table name.
//
// # Decisions
//
// A View resolves the caller: the user, the session's groups together with
// the user store's groups, the public group, and the roles granted to the
// user, its groups and public, closed over role membership. Roles the
// session activates (User.PrimaryRole, User.SecondaryRoles) narrow what
// allow items, deny exceptions, masks and filters see; deny items and allow
// exceptions apply for every held role. Users and groups named in the
// serviceConfig's ranger.plugin.super.users / super.groups (and
// WithSuperUsers, WithSuperGroups) are allowed everything, unmasked and
// unfiltered, as in Ranger.
//
// The Decision for a table holds:
//
//   - Allowed and DeniedBy: Ranger's access result for update, create,
//     drop, alter, index and lock on the table (create also on the
//     database, as Hive authorises CREATE TABLE), select column by column,
//     and all when every one is allowed. Ranger's read and write do not
//     apply to hive; refresh, repladmin, serviceadmin and tempudfadmin are
//     never asked for. DeniedBy names the policy ("ranger policy 12",
//     "ranger tag policy 7") or ReasonNoPolicy; AllowedBy names the policy
//     that allowed each granted type (for select, the one that allowed the
//     first allowed column).
//   - Restricted: when select is allowed on some columns, each column
//     without an allowed select (a column-level policy that does not cover
//     it, a deny on it), with the policy that denied it or "no policy". A
//     mask sqe cannot realise restricts its column too.
//   - Masks: per column, Ranger's datamask result: the first matching
//     policy in Ranger's order and its first matching item. MASK,
//     MASK_SHOW_LAST_4, MASK_SHOW_FIRST_4, MASK_HASH, MASK_NULL,
//     MASK_DATE_SHOW_YEAR and CUSTOM map to the udf types of the same
//     names (a tag policy's "hive:MASK" loses its component prefix);
//     MASK_NONE leaves the column as it is. A CUSTOM valueExpr is Hive SQL
//     with {col}: one that is exactly a Hive mask UDF call
//     (mask_show_last_n({col}, 4, 'x', 'x', 'x', -1, '1')) becomes that
//     mask type with its arguments, any other is passed as Mask.Expr.
//   - RowFilters: at most one, the first matching rowfilter policy and
//     item (Ranger does not AND filters); an empty filterExpr filters
//     nothing.
//
// Filter and CUSTOM expressions are passed through as Hive SQL text; the
// rewriter parses them with the target dialect's parser and fails closed
// on what does not parse. sqe translates only what is safe textually:
// current_user() stays (the rewriter inlines it), logged_in_user() becomes
// current_user(), and ${{USER.dept}}-style request expressions are
// resolved for the caller: inside a quoted literal with the quotes
// doubled, outside one only to a number. An expression that uses a
// Hive-only function (reflect, java_method, in_file, mask_* outside the
// whole-expression form, ...) or a request expression beyond the supported
// forms makes the table fail closed with an error naming the policy.
//
// When the decision depends on column names no policy spells out (a
// column pattern such as ssn* or an excluded list, a column-level grant
// covering only some columns, a mask or tag on every column), Decide
// returns a ColumnsNeededError (wrapping policy.ErrNeedsColumns, which
// matches policy.ErrAccessDenied, so a caller that does not handle it
// fails closed) and View.DecideColumnInfo, given the table's columns,
// answers exactly.
//
// # Precedence
//
// Evaluation follows Ranger's policy engine, on indexes compiled per
// principal (user, group, role, everyone) and per database and table, so
// the cost of a decision does not grow with the number of policies that
// cannot apply to the caller. A snapshot also keeps the decisions it made,
// keyed by the View's fingerprint (everything a decision depends on), for
// the next statement of a caller with the same principals
// (WithDecisionCacheSize). The rules are Ranger's:
//
//   - Within a repository, policies are taken by policyPriority (override
//     first), then Ranger's evaluation order, and only those whose
//     resources can match the whole request (database, table and column),
//     as Ranger's resource tries select them: an allow by a policy
//     without deny items ends the evaluation, which a policy on another
//     column, table or database must not do; in a policy, deny items
//     (less their deny exceptions) win over allow items (less their allow
//     exceptions); isDenyAllElse denies what the policy does not allow;
//     an access type implies the grants the service-def lists (all implies
//     every other).
//   - Tag policies are evaluated first, for the tags the service's tags
//     put on the database, table and column (and, as Ranger's tag enricher
//     does, the descendants' tags for a table-level question). A tag-policy
//     deny stands unless a resource policy of higher priority decides; a
//     tag-policy allow stands unless a resource policy of the same or
//     higher priority denies. Tag masks and filters are likewise taken
//     before resource ones.
//   - Resource matching honours wildcards (* and ?), isExcludes,
//     isRecursive, ignoreCase, Ranger's match scopes (self, descendants,
//     ancestors) and the {USER} and {OWNER} tokens; users, groups, roles
//     and public; validity schedules (start, end, time zone and
//     recurrences, evaluated as RangerValidityScheduleEvaluator does, with
//     the process's local zone as Ranger's JVM default zone); conditions
//     the service-def declares with Ranger's evaluators (scripts run on
//     goja, a JavaScript engine in Go, with Ranger's preamble: the ctx
//     methods, tag and tagAttr, the REQ, RES, USER, UG, UGA, UGNAMES,
//     URNAMES, TAG, TAGS and TAGNAMES objects, J, intersects, and the
//     macros such as IS_IN_GROUP, GET_TAG_ATTR and IS_ACCESS_TIME_BETWEEN).
//   - Security zones: a question on a resource that exactly one zone's
//     resources match is decided by that zone's policies only; one in no
//     zone (or that a zone matches only below it, such as a table whose
//     zone names some of its columns) by the unzoned policies. The zone is
//     chosen per question, so per column for select and masks. Tag
//     policies of a zone apply in that zone when it has an associated tag
//     service; otherwise the tag policies of no zone apply. A resource
//     inside two zones (which Ranger's admin refuses) fails closed.
//
// # What sqe cannot evaluate
//
// A condition sqe cannot evaluate (an evaluator it does not implement, a
// script that is not valid JavaScript, a request-context condition such as
// the client IP address, which sqe requests do not carry) never grants and
// always restricts: an allow item (or a deny exception) with it does not
// match, a deny item (or an allow exception) with it matches, a mask item
// with it restricts the column and a filter item with it fails the table
// closed. A script that compiles but fails while it runs (Ranger counts
// it false) is such a condition too: one that throws, one still running
// at its time limit (WithScriptTimeLimit, 25ms by default) or one that
// recurses too deep. The deny it guards applies, naming the policy, and
// Snapshot.ScriptFailures counts it. Scripts reach nothing of the host
// (no require, console, Java bridge or Go value with methods), and one
// run cannot leave anything for the next. A validity schedule Ranger's
// admin would refuse (RangerValidityScheduleValidator) is treated the same
// way, on policies and on tags (a tag that may not be in force takes
// access away but does not grant it). {OWNER} matches nobody: a
// statement's tables carry no owner. Policy and tag deltas are not
// supported; isAudited follows Ranger (audit modes, the service config's
// and WithAuditExclusions' exclusions, ranger.plugin.audit.filters) and
// reaches sqe's audit as policy.Decision.Unaudited; sqe sends no audit
// events to Ranger itself. "sqe lint" (Lint) lists what a bundle uses of these.
package ranger
