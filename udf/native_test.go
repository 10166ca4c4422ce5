package udf

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"
)

// TestNativeMasksMatchReference compiles native/mask.h into a harness
// (testdata/native_harness.c, with the address and undefined-behaviour
// sanitizers where the compiler has them) and checks that it masks
// random byte strings exactly as the Go reference does: valid UTF-8 of
// every class and plane, ill-formed sequences (which the servers never
// pass, but which must neither read past the value nor differ), every
// function, counts around the value's length, and replacements that are
// ASCII, BMP, supplementary, surrogate code units or keep; both the
// general path and the ASCII one. scripts/test.sh installs the compiler.
func TestNativeMasksMatchReference(t *testing.T) {
	bin := buildHarness(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SQE_UDF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set SQE_UDF_SEED to repeat)", seed)
	r := rand.New(rand.NewPCG(seed, 0xc0de))
	type call struct {
		fn, n int32
		rep   [4]int32
		value []byte
	}
	reps := []int32{keep, 'X', 'x', 'n', '*', '#', 0x7F, 0xE9, 0x2603, 0xD800, 0xDC00, 0xFFFD, 0x1F600, 0x10FFFF}
	var calls []call
	for i := 0; i < 20000; i++ {
		c := call{fn: int32(r.IntN(5)), value: randomBytes(r)}
		c.n = int32(r.IntN(len(c.value)+4) - 2)
		for k := range c.rep {
			c.rep[k] = reps[r.IntN(len(reps))]
			if r.IntN(2) == 0 {
				c.rep[k] = []int32{keep, 'X', 'x', 'n'}[k%4]
			}
		}
		calls = append(calls, c)
	}
	var in bytes.Buffer
	for _, c := range calls {
		binary.Write(&in, binary.LittleEndian, []int32{c.fn, c.n, c.rep[0], c.rep[1], c.rep[2], c.rep[3]})
		binary.Write(&in, binary.LittleEndian, uint32(len(c.value)))
		in.Write(c.value)
	}
	out := runHarness(t, bin, &in)
	read := func() (int32, []byte) {
		var l int32
		if err := binary.Read(out, binary.LittleEndian, &l); err != nil {
			t.Fatalf("harness output: %v", err)
		}
		if l <= 0 {
			return l, nil
		}
		b := make([]byte, l)
		if _, err := io.ReadFull(out, b); err != nil {
			t.Fatal(err)
		}
		return l, b
	}
	fails, ascii := 0, 0
	for _, c := range calls {
		tr := newTransformer(fn(c.fn))
		tr.n = int(c.n)
		for k, v := range c.rep {
			tr.chars[k] = int(v)
		}
		want, err := tr.str(string(c.value))
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		l, got := read()
		la, gotASCII := read()
		if l < 0 || string(got) != want {
			fails++
			if fails <= 10 {
				t.Errorf("fn %d n %d rep %q on %q: C %q (%d), Go %q", c.fn, c.n, c.rep, c.value, got, l, want)
			}
		}
		if la != -2 {
			ascii++
			if string(gotASCII) != want {
				t.Errorf("ASCII path: fn %d n %d rep %q on %q: C %q, Go %q", c.fn, c.n, c.rep, c.value, gotASCII, want)
			}
		}
	}
	if ascii == 0 || ascii == len(calls) {
		t.Errorf("the ASCII path ran on %d of %d calls: the cases do not reach both paths", ascii, len(calls))
	}
}

// TestNativeIntegerMasksMatchReference: the harness's integer masks equal
// the Go reference (hiveIntResult) in every width, for every function,
// on the boundaries of each width and each number of digits, zero, and
// random values, with counts around the number of digits.
func TestNativeIntegerMasksMatchReference(t *testing.T) {
	bin := buildHarness(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SQE_UDF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set SQE_UDF_SEED to repeat)", seed)
	r := rand.New(rand.NewPCG(seed, 0x1e7))
	type call struct {
		fn, n, bits, number int32
		v                   int64
	}
	var calls []call
	for _, bits := range []int32{8, 16, 32, 64} {
		lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
		values := []int64{0, 1, -1, 9, -9, 10, -10, lo, lo + 1, hi, hi - 1}
		for p := int64(10); p > 0 && p <= hi/10*10; p *= 10 {
			values = append(values, p, p-1, -p, 1-p, p+1)
		}
		for i := 0; i < 3000; i++ {
			v := int64(r.Uint64())
			if bits < 64 {
				v = lo + int64(r.Uint64N(uint64(hi-lo)+1))
			}
			values = append(values, v)
		}
		for _, v := range values {
			if v < lo || v > hi {
				continue
			}
			for fn := int32(0); fn < 5; fn++ {
				calls = append(calls, call{fn: fn, n: int32(r.IntN(23) - 1), bits: bits, number: int32(r.IntN(10)), v: v})
			}
		}
	}
	var in bytes.Buffer
	for _, c := range calls {
		binary.Write(&in, binary.LittleEndian, []int32{100 + c.fn, c.n, c.bits, c.number, 0, 0})
		binary.Write(&in, binary.LittleEndian, uint32(8))
		binary.Write(&in, binary.LittleEndian, c.v)
	}
	out := runHarness(t, bin, &in)
	fails := 0
	for _, c := range calls {
		var l int32
		var got int64
		if err := binary.Read(out, binary.LittleEndian, &l); err != nil || l != 8 {
			t.Fatalf("harness output: %d %v", l, err)
		}
		binary.Read(out, binary.LittleEndian, &got)
		tr := newTransformer(fn(c.fn))
		tr.n, tr.number = max(int(c.n), 0), int(c.number)
		if want := hiveIntResult(tr, int(c.bits), c.v); got != want {
			fails++
			if fails <= 10 {
				t.Errorf("fn %d n %d number %d, %d bits, %d: C %d, Go %d", c.fn, c.n, c.number, c.bits, c.v, got, want)
			}
		}
	}
}

// buildHarness compiles testdata/native_harness.c with native/mask.h,
// with the address and undefined-behaviour sanitizers where the compiler
// has them.
func buildHarness(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Fatal("no C compiler (cc): scripts/test.sh installs gcc")
	}
	bin := filepath.Join(t.TempDir(), "harness")
	build := func(flags ...string) error {
		args := append(flags, "-O1", "-std=gnu99", "-Wall", "-Werror", "-Inative", "-o", bin, "testdata/native_harness.c")
		out, err := exec.Command(cc, args...).CombinedOutput()
		if err != nil {
			t.Logf("%s %v: %s", cc, flags, out)
		}
		return err
	}
	if build("-fsanitize=address,undefined", "-fno-sanitize-recover=all") != nil {
		if err := build(); err != nil {
			t.Fatal("the harness does not compile")
		}
	}
	return bin
}

// runHarness runs the harness on in and returns its output.
func runHarness(t *testing.T, bin string, in io.Reader) *bytes.Buffer {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness: %v\n%s", err, stderr.String())
	}
	return &out
}

// randomBytes is a value of up to 24 code points or stray bytes: ASCII,
// Latin-1 and other BMP letters and digits, supplementary characters,
// and ill-formed UTF-8 (lone continuation bytes, truncated sequences,
// overlong forms, encoded surrogates, past U+10FFFF).
func randomBytes(r *rand.Rand) []byte {
	var b []byte
	ascii := r.IntN(3) == 0
	for n := r.IntN(25); n > 0; n-- {
		if ascii {
			b = append(b, byte(r.IntN(128)))
			continue
		}
		switch r.IntN(10) {
		case 0, 1, 2:
			b = append(b, byte(r.IntN(128)))
		case 3:
			b = utf8.AppendRune(b, rune(0x80+r.IntN(0x780)))
		case 4, 5:
			b = utf8.AppendRune(b, rune(0x800+r.IntN(0xF800)))
		case 6:
			b = utf8.AppendRune(b, rune(0x10000+r.IntN(0x100000)))
		case 7:
			b = append(b, []byte{0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF}[r.IntN(6)])
		case 8:
			bad := [][]byte{{0xE2, 0x82}, {0xF0, 0x9F, 0x98}, {0xC0, 0xAF}, {0xE0, 0x80, 0xAF}, {0xED, 0xA0, 0x80},
				{0xED, 0xBF, 0xBF}, {0xF4, 0x90, 0x80, 0x80}, {0xF0, 0x80, 0x80, 0x80}, {0xE2, 0x28, 0xA1}}
			b = append(b, bad[r.IntN(len(bad))]...)
		default:
			b = utf8.AppendRune(b, []rune{'A', 'z', '5', 'É', 'ß', '٣', 'Ω', 'ǅ', '\uFFFF', 0}[r.IntN(10)])
		}
	}
	return b
}
