package postgres

import (
	"errors"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protowire"
)

// encoder writes the protobuf encoding of a parse tree, byte for byte what
// proto.Marshal writes, with code generated per message type
// (tree_gen.go: size…, encode…) instead of protobuf's table-driven
// reflection. The first pass records the size of every message in the
// order the second pass writes them (each message's length comes before
// its fields).
type encoder struct {
	sizes []int // message sizes, in the order the messages are met
	next  int   // the next size the write pass uses
	buf   []byte
	err   error
}

// errInvalidUTF8 is proto.Marshal's refusal of a string that is not UTF-8.
var errInvalidUTF8 = errors.New("string field contains invalid UTF-8")

// slot takes the place of the next message's size.
func (e *encoder) slot() int {
	e.sizes = append(e.sizes, 0)
	return len(e.sizes) - 1
}

// message writes the tag and the length of the next message.
func (e *encoder) message(tag uint64) {
	e.buf = protowire.AppendVarint(e.buf, tag)
	e.buf = protowire.AppendVarint(e.buf, uint64(e.sizes[e.next]))
	e.next++
}

func (e *encoder) checkUTF8(s string) {
	if e.err == nil && !utf8.ValidString(s) {
		e.err = errInvalidUTF8
	}
}

// finish runs the write pass of the message whose size pass has run.
func (e *encoder) finish(write func()) ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	e.buf = make([]byte, 0, e.sizes[0])
	e.next = 1
	write()
	if len(e.buf) != e.sizes[0] || e.next != len(e.sizes) {
		return nil, errors.New("the encoding does not have the size measured")
	}
	return e.buf, nil
}

// packedSize is the size of the varints of a packed list.
func packedSize[T uint32 | uint64](s []T) int {
	n := 0
	for _, v := range s {
		n += protowire.SizeVarint(uint64(v))
	}
	return n
}

// marshalParseResult is proto.Marshal(tree), without reflection.
func marshalParseResult(tree *pg.ParseResult) ([]byte, error) {
	var e encoder
	e.sizeParseResult(tree)
	return e.finish(func() { e.encodeParseResult(tree) })
}
