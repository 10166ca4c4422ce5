package sqe

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	const inner = "app:s3cret@tcp(127.0.0.1:3306)/shop?parseTime=true&loc=UTC;x=y"
	for _, tc := range []struct {
		dsn  string
		want dsnConfig
	}{
		{"driver=mysql;dsn=" + inner, dsnConfig{driver: "mysql", dsn: inner}},
		{"driver=mysql;policy=/etc/sqe/policy.yaml;dsn=app:pw@tcp(127.0.0.1:3306)/shop?parseTime=true",
			dsnConfig{driver: "mysql", policy: "/etc/sqe/policy.yaml", dsn: "app:pw@tcp(127.0.0.1:3306)/shop?parseTime=true"}},
		{"dialect=postgres;user=svc;roles=analyst,support;driver=pgx;policy=p=1.yaml;dsn=host=db password=x;dbname=a",
			dsnConfig{driver: "pgx", policy: "p=1.yaml", user: "svc", roles: []string{"analyst", "support"}, dialect: "postgres", dsn: "host=db password=x;dbname=a"}},
		{"driver=x;dsn=dsn=;;", dsnConfig{driver: "x", dsn: "dsn=;;"}},
		{"driver=x;user=u;dsn=d", dsnConfig{driver: "x", user: "u", dsn: "d"}},
		{"driver=x;masks=server;dsn=d", dsnConfig{driver: "x", serverMasks: true, dsn: "d"}},
		{"driver=x;masks=inline;dsn=d", dsnConfig{driver: "x", dsn: "d"}},
	} {
		got, err := parseDSN(tc.dsn)
		if err != nil {
			t.Fatalf("parseDSN(%q): %v", tc.dsn, err)
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Fatalf("parseDSN(%q) = %+v, want %+v", tc.dsn, *got, tc.want)
		}
	}
}

func TestParseDSNErrors(t *testing.T) {
	const secret = "s3cret"
	for _, tc := range []struct {
		dsn, want string
	}{
		{"", `no "driver" key`},
		{"dsn=app:" + secret + "@tcp(h)/db", `no "driver" key`},
		{"driver=mysql", `no "dsn" key`},
		{"driver=mysql;policy=p", `no "dsn" key`},
		{"driver=mysql;", "element 2 is empty"},
		{"driver=mysql;;dsn=x", "element 2 is empty"},
		{"driver=;dsn=app:" + secret + "@/db", `"driver" has an empty value`},
		{"driver=mysql;policy=;dsn=x", `"policy" has an empty value`},
		{"driver=mysql;user=;dsn=x", `"user" has an empty value`},
		{"driver=mysql;user=u;roles=;dsn=x", `"roles" has an empty value`},
		{"driver=mysql;user=u;roles=a,,b;dsn=x", `"roles" has an empty role`},
		{"driver=mysql;roles=a;dsn=x", `"roles" requires the "user" key`},
		{"driver=mysql;dialect=;dsn=x", `"dialect" has an empty value`},
		{"driver=mysql;dsn=", `"dsn" has an empty value`},
		{"driver=mysql;driver=pgx;dsn=x", `"driver" appears more than once`},
		{"driver=mysql;user=a;user=b;dsn=x", `"user" appears more than once`},
		{"driver=mysql;password=" + secret + ";dsn=x", `unknown DSN key "password"`},
		{"driver=mysql;DSN=app:" + secret + "@/db", `unknown DSN key "DSN"`},
		{"driver=mysql; dsn=app:" + secret + "@/db", "element 2 has an invalid key"},
		{"driver=mysql;app:" + secret + "@tcp(h)/db?parseTime=true", "element 2 has an invalid key"},
		{"driver=mysql;app:" + secret + "@tcp(h)/db", "element 2 is not key=value"},
		{"driver=pgx;host=h password=" + secret, `unknown DSN key "host"`},
		{"driver=sqe;dsn=driver=mysql;dsn=x", "cannot be sqe itself"},
		{"driver=mysql;masks=udf;dsn=x", `"masks" is "udf": inline or server`},
		{"driver=mysql;masks=;dsn=x", `"masks" has an empty value`},
	} {
		_, err := parseDSN(tc.dsn)
		if err == nil {
			t.Fatalf("parseDSN(%q) succeeded, want an error containing %q", tc.dsn, tc.want)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("parseDSN(%q) = %v, want an error containing %q", tc.dsn, err, tc.want)
		}
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("parseDSN(%q) error %q contains the password", tc.dsn, err)
		}
	}
}

func TestDSNOptions(t *testing.T) {
	d, err := parseDSN("driver=x;policy=/p.yaml;user=svc;roles=a,b;dialect=postgres;masks=server;dsn=d")
	if err != nil {
		t.Fatal(err)
	}
	cfg := newConfig(d.options())
	if cfg.engine.PolicyFile != "/p.yaml" || cfg.engine.Dialect != "postgres" || !cfg.engine.ServerMasks || cfg.engine.DefaultUser == nil ||
		cfg.engine.DefaultUser.Name != "svc" || !reflect.DeepEqual(cfg.engine.DefaultUser.Roles, []string{"a", "b"}) {
		t.Fatalf("config %+v (user %+v)", cfg, cfg.engine.DefaultUser)
	}
	d, _ = parseDSN("driver=x;dsn=d")
	if cfg := newConfig(d.options()); cfg.engine.PolicyFile != "" || cfg.engine.DefaultUser != nil || cfg.engine.Dialect != "" || cfg.engine.ServerMasks {
		t.Fatalf("config %+v, want defaults", cfg)
	}
}
