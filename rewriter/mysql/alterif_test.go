package mysql

import (
	"errors"
	"testing"

	"github.com/sqe-project/sqe/policy"
	"github.com/sqe-project/sqe/rewriter"
)

func TestAlterTableIfExistsClausesPrintAsWritten(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"ALTER TABLE orders ADD COLUMN IF NOT EXISTS note VARCHAR(10)", "alter table `orders` add column if not exists `note` VARCHAR(10)"},
		{"alter table shop.orders add if not exists note varchar(10) default 'a, if not exists' after id, drop column if exists total, drop if exists x",
			"alter table `shop`.`orders` add column if not exists `note` varchar(10) default 'a, if not exists' after `id`, drop column if exists `total`, drop column if exists `x`"},
		{"ALTER TABLE orders ADD INDEX IF NOT EXISTS k (total), ADD UNIQUE IF NOT EXISTS k2 (id), ADD KEY k3 (id)",
			"alter table `orders` add key if not exists `k` (`total`), add unique key if not exists `k2` (`id`), add key `k3` (`id`)"},
		{"ALTER TABLE orders DROP INDEX IF EXISTS k, DROP FOREIGN KEY IF EXISTS fk, DROP CONSTRAINT IF EXISTS c",
			"alter table `orders` drop key if exists `k`, drop foreign key if exists `fk`, drop constraint if exists `c`"},
		{"ALTER TABLE orders MODIFY IF EXISTS total BIGINT, CHANGE COLUMN IF EXISTS id id2 INT",
			"alter table `orders` modify column if exists `total` BIGINT, change column if exists `id` `id2` INT"},
	} {
		res, err := rewriteMariaDB(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if res.SQL != c.want || res.Kind != rewriter.KindDDL {
			t.Errorf("%s:\n got %s %q\nwant %q", c.sql, res.Kind, res.SQL, c.want)
		}
	}
}

func TestAlterTableIfExistsClausesNeedThePlainAccess(t *testing.T) {
	dec := map[string]*policy.Decision{
		"shop.customers": customersDecision(),
		"shop.orders": {Table: policy.TableName{Schema: "shop", Table: "orders"},
			Allowed: map[policy.Access]bool{policy.Select: true}},
	}
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"ALTER TABLE orders ADD COLUMN IF NOT EXISTS note INT", policy.ErrAccessDenied},
		{"ALTER TABLE customers ADD COLUMN IF NOT EXISTS note INT", nil},
		{"ALTER TABLE customers DROP COLUMN IF EXISTS note", nil},
		// Under the policy, what the plain ALTER TABLE may not do.
		{"ALTER TABLE customers ADD COLUMN IF NOT EXISTS s2 VARCHAR(20) AS (ssn)", rewriter.ErrUnsupported},
		{"ALTER TABLE customers CHANGE COLUMN IF EXISTS ssn s2 VARCHAR(20)", rewriter.ErrUnsupported},
		{"ALTER TABLE customers ADD COLUMN IF NOT EXISTS x INT, ADD FOREIGN KEY (x) REFERENCES customers (id)", rewriter.ErrUnsupported},
		// The words where MariaDB has none, or the wrong ones, are not read.
		{"ALTER TABLE customers ADD COLUMN IF EXISTS note INT", rewriter.ErrUnsupported},
		{"ALTER TABLE customers DROP COLUMN IF NOT EXISTS note", rewriter.ErrUnsupported},
		{"ALTER TABLE customers ADD PRIMARY KEY IF NOT EXISTS (id)", rewriter.ErrUnsupported},
		{"ALTER TABLE customers ADD COLUMN IF NOT EXISTS (a INT, b INT)", rewriter.ErrUnsupported},
		{"ALTER TABLE customers RENAME COLUMN IF EXISTS a TO b", rewriter.ErrUnsupported},
		{"ALTER TABLE customers ADD COLUMN /* c */ IF NOT EXISTS note INT", rewriter.ErrUnsupported},
	} {
		_, err := rewriteMariaDB(c.sql, dec)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.sql, err, c.want)
		}
	}
}

func TestAlterTableIfExistsWordsInsideLiteralsAreNotRead(t *testing.T) {
	for _, sql := range []string{
		"ALTER TABLE orders ADD COLUMN note VARCHAR(10) DEFAULT 'IF NOT EXISTS'",
		"ALTER TABLE orders ADD COLUMN `if` INT",
		"ALTER TABLE orders COMMENT 'DROP COLUMN IF EXISTS total'",
	} {
		rd, err := read(sql, true)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if rd.mod != nil {
			t.Errorf("%s: read with %q", sql, rd.mod.words)
		}
	}
}
