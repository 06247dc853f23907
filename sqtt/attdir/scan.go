package attdir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Record is one shaderdata record: an s_ttracedata value seen by the
// thread trace, in trace order.
type Record struct {
	// Time is the shader-clock cycle at which the record arrived.
	Time int64
	// Value is the traced value (M0 or the 8-bit immediate); the low 32
	// bits are the marker word.
	Value uint64
	// SE is the shader engine (from the file index).
	SE uint32
	// CU is the compute unit (WGP on gfx10+).
	CU uint8
	// SIMD is the SIMD within the CU.
	SIMD uint8
	// WaveID is the wave slot.
	WaveID uint8
	// Flags holds FlagIMM and FlagPRIV.
	Flags uint8
}

// Record flag bits.
const (
	// FlagIMM marks a value from s_ttracedata_imm (only 8 bits meaningful).
	FlagIMM uint8 = 1 << 0
	// FlagPRIV marks a record produced by the trap handler.
	FlagPRIV uint8 = 1 << 1
)

// Slot identifies a hardware wave slot: records of one wave instance share
// it, and a slot runs its waves one after another.
type Slot struct {
	// SE, CU, SIMD and WaveID locate the slot.
	SE     uint32
	CU     uint8
	SIMD   uint8
	WaveID uint8
}

// Slot returns the wave slot of r.
func (r Record) Slot() Slot { return Slot{r.SE, r.CU, r.SIMD, r.WaveID} }

// Scanner reads the records of one shaderdata_<SE>_<idx>.json file as a
// stream without holding the file in memory. Keys other than "records" are
// skipped; the "records" rows are [time, value, cu, simd, wave_id, flags]
// (extra columns are ignored).
type Scanner struct {
	r    *bufio.Reader
	name string
	se   uint32
	off  int64
	// state: 0 = before the records array, 1 = inside it, 2 = done.
	state   int
	row     int
	err     error
	seenRec bool
}

const scanBufSize = 256 << 10

// NewScanner returns a scanner for the shaderdata stream r; name is used in
// error messages and se is stored in every record.
func NewScanner(r io.Reader, name string, se uint32) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, scanBufSize), name: name, se: se}
}

// Err returns the first error met, nil at a clean end of the stream.
func (s *Scanner) Err() error { return s.err }

func (s *Scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%s: offset %d: %s", s.name, s.off, fmt.Sprintf(format, args...))
	}
	s.state = 2
}

func (s *Scanner) next() (byte, bool) {
	c, err := s.r.ReadByte()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			s.fail("read: %v", err)
		}
		return 0, false
	}
	s.off++
	return c, true
}

// peekNonSpace returns the next non-blank byte without consuming it.
func (s *Scanner) peekNonSpace() (byte, bool) {
	for {
		c, ok := s.next()
		if !ok {
			return 0, false
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		s.r.UnreadByte()
		s.off--
		return c, true
	}
}

func (s *Scanner) expect(want byte, what string) bool {
	c, ok := s.peekNonSpace()
	if !ok {
		s.fail("unexpected end of file, want %q (%s)", want, what)
		return false
	}
	if c != want {
		s.fail("found %q, want %q (%s)", c, want, what)
		return false
	}
	s.next()
	return true
}

// Next returns the next record. It returns false at the end of the records
// or on error (see Err).
func (s *Scanner) Next() (Record, bool) {
	for {
		switch s.state {
		case 0:
			if !s.seekRecords() {
				return Record{}, false
			}
		case 1:
			c, ok := s.peekNonSpace()
			if !ok {
				s.fail("unexpected end of file in records")
				return Record{}, false
			}
			if c == ']' {
				s.next()
				s.state = 0
				if !s.afterValue() {
					return Record{}, false
				}
				continue
			}
			if s.row > 0 {
				if !s.expect(',', "between records") {
					return Record{}, false
				}
			}
			rec, ok := s.readRow()
			if !ok {
				return Record{}, false
			}
			s.row++
			return rec, true
		default:
			return Record{}, false
		}
	}
}

// seekRecords reads object members until the "records" array opens (state
// 1) or the object ends (state 2).
func (s *Scanner) seekRecords() bool {
	if s.off == 0 {
		if !s.expect('{', "start of shaderdata object") {
			return false
		}
		c, ok := s.peekNonSpace()
		if ok && c == '}' {
			s.next()
			return s.finish()
		}
	}
	for {
		key, ok := s.readString("member name")
		if !ok {
			return false
		}
		if !s.expect(':', "after member name") {
			return false
		}
		if key == "records" {
			if s.seenRec {
				s.fail(`duplicate "records" member`)
				return false
			}
			s.seenRec = true
			c, ok := s.peekNonSpace()
			if ok && c == 'n' { // null: no records
				if !s.skipValue(0) {
					return false
				}
				if !s.afterValue() {
					return false
				}
				if s.state == 2 {
					return false
				}
				continue
			}
			if !s.expect('[', `"records" array`) {
				return false
			}
			s.state = 1
			return true
		}
		if !s.skipValue(0) {
			return false
		}
		if !s.afterValue() {
			return false
		}
		if s.state == 2 {
			return false
		}
	}
}

// afterValue consumes the ',' or '}' after an object member; at '}' the
// scanner is done.
func (s *Scanner) afterValue() bool {
	c, ok := s.peekNonSpace()
	if !ok {
		s.fail("unexpected end of file in shaderdata object")
		return false
	}
	s.next()
	switch c {
	case ',':
		return true
	case '}':
		return s.finish()
	}
	s.fail("found %q after a member, want ',' or '}'", c)
	return false
}

func (s *Scanner) finish() bool {
	if c, ok := s.peekNonSpace(); ok {
		s.fail("trailing data %q after the shaderdata object", c)
		return false
	}
	s.state = 2
	return false
}

var fieldNames = [6]string{"time", "value", "cu", "simd", "wave_id", "flags"}

// fastRow parses a plain row of six non-negative-or-negative-time
// integers directly from the read buffer. It consumes nothing and returns
// false for anything unusual (floats, extra columns, errors, a row that is
// not fully buffered), leaving it to the general path.
func (s *Scanner) fastRow() (Record, bool) {
	buf, _ := s.r.Peek(s.r.Buffered())
	if len(buf) < 128 {
		buf, _ = s.r.Peek(128)
	}
	i := 0
	ws := func() {
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r') {
			i++
		}
	}
	ws()
	if i >= len(buf) || buf[i] != '[' {
		return Record{}, false
	}
	i++
	var v [6]uint64
	neg := false
	for col := 0; col < 6; col++ {
		ws()
		if col == 0 && i < len(buf) && buf[i] == '-' {
			neg = true
			i++
		}
		start := i
		var x uint64
		for i < len(buf) && buf[i] >= '0' && buf[i] <= '9' {
			if x > (1<<63-10)/10 {
				return Record{}, false
			}
			x = x*10 + uint64(buf[i]-'0')
			i++
		}
		n := i - start
		if n == 0 || (n > 1 && buf[start] == '0') {
			return Record{}, false
		}
		v[col] = x
		ws()
		if i >= len(buf) {
			return Record{}, false
		}
		want := byte(',')
		if col == 5 {
			want = ']'
		}
		if buf[i] != want {
			return Record{}, false
		}
		i++
	}
	if v[2]|v[3]|v[4]|v[5] > 255 {
		return Record{}, false
	}
	t := int64(v[0])
	if neg {
		t = -t
	}
	s.r.Discard(i)
	s.off += int64(i)
	return Record{Time: t, Value: v[1], SE: s.se, CU: uint8(v[2]), SIMD: uint8(v[3]), WaveID: uint8(v[4]), Flags: uint8(v[5])}, true
}

func (s *Scanner) readRow() (Record, bool) {
	if r, ok := s.fastRow(); ok {
		return r, true
	}
	if !s.expect('[', fmt.Sprintf("records[%d]", s.row)) {
		return Record{}, false
	}
	var v [6]uint64
	var neg bool
	col := 0
	for {
		c, ok := s.peekNonSpace()
		if !ok {
			s.fail("unexpected end of file in records[%d]", s.row)
			return Record{}, false
		}
		if c == ']' {
			s.next()
			break
		}
		if col > 0 && !s.expect(',', fmt.Sprintf("records[%d]", s.row)) {
			return Record{}, false
		}
		if col < 6 {
			x, n, ok := s.readInt(fmt.Sprintf("records[%d][%d] %s", s.row, col, fieldNames[col]), col == 0)
			if !ok {
				return Record{}, false
			}
			v[col] = x
			if col == 0 {
				neg = n
			}
		} else if !s.skipValue(0) {
			return Record{}, false
		}
		col++
	}
	if col < 6 {
		s.fail("records[%d] has %d columns, want 6 (time, value, cu, simd, wave_id, flags)", s.row, col)
		return Record{}, false
	}
	for i := 2; i < 6; i++ {
		if v[i] > 255 {
			s.fail("records[%d][%d] %s = %d does not fit in 8 bits", s.row, i, fieldNames[i], v[i])
			return Record{}, false
		}
	}
	t := int64(v[0])
	if neg {
		t = -t
	}
	return Record{Time: t, Value: v[1], SE: s.se, CU: uint8(v[2]), SIMD: uint8(v[3]), WaveID: uint8(v[4]), Flags: uint8(v[5])}, true
}

// readInt reads a JSON integer (an integral float such as 7.0 is accepted).
func (s *Scanner) readInt(field string, allowNeg bool) (uint64, bool, bool) {
	var v uint64
	neg := false
	digits := 0
	c, _ := s.peekNonSpace()
	if c == '-' && allowNeg {
		neg = true
		s.next()
	}
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			break
		}
		if c >= '0' && c <= '9' {
			s.off++
			if digits == 1 && v == 0 {
				s.fail("%s: leading zero", field)
				return 0, false, false
			}
			if v > (1<<64-1-uint64(c-'0'))/10 {
				s.fail("%s: integer overflows 64 bits", field)
				return 0, false, false
			}
			v = v*10 + uint64(c-'0')
			digits++
			continue
		}
		if c == '.' && digits > 0 {
			s.off++
			// Accept only zeros after the point, at least one.
			zeros := 0
			for {
				d, err := s.r.ReadByte()
				if err != nil {
					break
				}
				if d == '0' {
					s.off++
					zeros++
					continue
				}
				if d >= '1' && d <= '9' || d == 'e' || d == 'E' {
					s.off++
					s.fail("%s: not an integer", field)
					return 0, false, false
				}
				s.r.UnreadByte()
				break
			}
			if zeros == 0 {
				s.fail("%s: no digits after the decimal point", field)
				return 0, false, false
			}
			break
		}
		s.r.UnreadByte()
		break
	}
	if digits == 0 {
		c, _ := s.peekNonSpace()
		s.fail("%s: found %q, want an integer", field, c)
		return 0, false, false
	}
	if neg && v > 1<<63 {
		s.fail("%s: integer overflows 64 bits", field)
		return 0, false, false
	}
	if !neg && allowNeg && v > 1<<63-1 {
		s.fail("%s: integer overflows int64", field)
		return 0, false, false
	}
	return v, neg, true
}

// readString reads a JSON string. Only its first 64 bytes are kept (enough
// to compare member names); the rest is validated and dropped, so a huge
// string value does not grow memory.
func (s *Scanner) readString(what string) (string, bool) {
	if !s.expect('"', what) {
		return "", false
	}
	var b []byte
	var carry [utf8.UTFMax]byte
	nc := 0
	keep := func(c byte) {
		if len(b) < 64 {
			b = append(b, c)
		}
	}
	for {
		c, ok := s.next()
		if !ok {
			s.fail("unexpected end of file in string (%s)", what)
			return "", false
		}
		if nc > 0 || c >= utf8.RuneSelf {
			// Validate multi-byte sequences as they complete.
			carry[nc] = c
			nc++
			if utf8.FullRune(carry[:nc]) {
				if r, size := utf8.DecodeRune(carry[:nc]); r == utf8.RuneError && size <= 1 {
					s.fail("invalid UTF-8 in string (%s)", what)
					return "", false
				}
				for _, x := range carry[:nc] {
					keep(x)
				}
				nc = 0
			} else if nc == utf8.UTFMax {
				s.fail("invalid UTF-8 in string (%s)", what)
				return "", false
			}
			continue
		}
		switch c {
		case '"':
			// Escapes are kept raw: the members looked for have none.
			return string(b), true
		case '\\':
			d, ok := s.next()
			if !ok {
				s.fail("unexpected end of file in string (%s)", what)
				return "", false
			}
			if d == 'u' {
				for i := 0; i < 4; i++ {
					h, ok := s.next()
					if !ok || !isHex(h) {
						s.fail("bad \\u escape in string (%s)", what)
						return "", false
					}
				}
				keep('?')
				continue
			}
			if !isEscape(d) {
				s.fail("bad escape \\%c in string (%s)", d, what)
				return "", false
			}
			keep('\\')
			keep(d)
		default:
			if c < 0x20 {
				s.fail("control character %#x in string (%s)", c, what)
				return "", false
			}
			keep(c)
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isEscape(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

// skipValue consumes one JSON value of any type.
func (s *Scanner) skipValue(depth int) bool {
	if depth > 64 {
		s.fail("values nested deeper than 64 levels")
		return false
	}
	c, ok := s.peekNonSpace()
	if !ok {
		s.fail("unexpected end of file, want a value")
		return false
	}
	switch {
	case c == '"':
		_, ok := s.readString("value")
		return ok
	case c == '{' || c == '[':
		s.next()
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		first := true
		for {
			d, ok := s.peekNonSpace()
			if !ok {
				s.fail("unexpected end of file in %c...%c", c, closer)
				return false
			}
			if d == closer {
				s.next()
				return true
			}
			if !first && !s.expect(',', "between elements") {
				return false
			}
			first = false
			if c == '{' {
				if _, ok := s.readString("member name"); !ok {
					return false
				}
				if !s.expect(':', "after member name") {
					return false
				}
			}
			if !s.skipValue(depth + 1) {
				return false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		var lit []byte
		for {
			d, err := s.r.ReadByte()
			if err != nil {
				break
			}
			if d >= '0' && d <= '9' || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E' {
				s.off++
				lit = append(lit, d)
				continue
			}
			s.r.UnreadByte()
			break
		}
		if !validNumber(lit) {
			s.fail("bad number %q", lit)
			return false
		}
		return true
	default:
		for _, word := range []string{"true", "false", "null"} {
			if c == word[0] {
				for i := 0; i < len(word); i++ {
					d, ok := s.next()
					if !ok || d != word[i] {
						s.fail("bad literal, want %q", word)
						return false
					}
				}
				return true
			}
		}
	}
	s.fail("found %q, want a value", c)
	return false
}

// validNumber checks the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}
