package metadata

import (
	"encoding/binary"
	"math"
	"reflect"
)

// decodeDirect decodes a validated note straight from its bytes into the
// typed form, without building the generic maps and lists first. It
// handles the MessagePack a note is made of (maps with string keys, lists,
// strings, integers, booleans, floats, nil) and gives the value the
// general decode (decodeGeneric) gives; it returns false at anything else
// (an extension type, a key that is not a string) and at any value the
// typed form rejects, and Decode then takes the general path, which also
// words the error.
func decodeDirect(b []byte) (*Metadata, bool) {
	d := &direct{b: b}
	md := &Metadata{}
	ok := d.fill(reflect.ValueOf(md).Elem(), fieldsOf(reflect.TypeOf(md).Elem()), &md.Extra, &md.present, func() bool {
		n, ok := d.arrayLen()
		if !ok {
			return false
		}
		md.Kernels = nil // a repeated key: the last list wins
		if n > 0 {
			md.Kernels = make([]Kernel, 0, n)
		}
		kt := fieldsOf(reflect.TypeOf(Kernel{}))
		at := fieldsOf(reflect.TypeOf(Arg{}))
		for range n {
			var k Kernel
			ok := d.fill(reflect.ValueOf(&k).Elem(), kt, &k.Extra, &k.present, func() bool {
				n, ok := d.arrayLen()
				if !ok {
					return false
				}
				k.Args = nil
				if n > 0 {
					k.Args = make([]Arg, 0, n)
				}
				for range n {
					var a Arg
					if !d.fill(reflect.ValueOf(&a).Elem(), at, &a.Extra, &a.present, nil) {
						return false
					}
					k.Args = append(k.Args, a)
				}
				return true
			})
			if !ok {
				return false
			}
			md.Kernels = append(md.Kernels, k)
		}
		return true
	})
	if !ok {
		return nil, false
	}
	return md, true
}

// direct reads MessagePack values from b at off.
type direct struct {
	b   []byte
	off int
	// short holds the short strings read so far, so a value that repeats
	// (".value_kind", ".address_space", ...) is one string.
	short map[string]string
}

// next returns the next byte.
func (d *direct) next() (byte, bool) {
	if d.off >= len(d.b) {
		return 0, false
	}
	c := d.b[d.off]
	d.off++
	return c, true
}

// uint reads a big-endian unsigned integer of width bytes.
func (d *direct) uint(width int) (uint64, bool) {
	if len(d.b)-d.off < width {
		return 0, false
	}
	p := d.b[d.off : d.off+width]
	d.off += width
	switch width {
	case 1:
		return uint64(p[0]), true
	case 2:
		return uint64(binary.BigEndian.Uint16(p)), true
	case 4:
		return uint64(binary.BigEndian.Uint32(p)), true
	}
	return binary.BigEndian.Uint64(p), true
}

// length reads the length that follows a container or string code of
// width bytes and checks it against what is left.
func (d *direct) length(width int) (int, bool) {
	n, ok := d.uint(width)
	if !ok || n > uint64(len(d.b)-d.off) {
		return 0, false
	}
	return int(n), true
}

// mapLen reads a map header.
func (d *direct) mapLen() (int, bool) { return d.header(0x80, 0xde, 0xdf) }

// arrayLen reads a list header.
func (d *direct) arrayLen() (int, bool) { return d.header(0x90, 0xdc, 0xdd) }

// header reads a map or list header: a fix form fix|n (n < 16) or the
// tag w16 or w32 and a 2- or 4-byte length.
func (d *direct) header(fix, w16, w32 byte) (int, bool) {
	c, ok := d.next()
	switch {
	case !ok:
		return 0, false
	case c&0xf0 == fix:
		return int(c & 0x0f), true
	case c == w16:
		return d.length(2)
	case c == w32:
		return d.length(4)
	}
	return 0, false
}

// strAfter reads the bytes of a string or binary value whose code c was
// read (false when c is neither), as a string; strings of up to 32 bytes
// are shared.
func (d *direct) strAfter(c byte) (string, bool) {
	b, ok := d.bytesAfter(c)
	if !ok {
		return "", false
	}
	if len(b) > 32 {
		return string(b), true
	}
	if s, ok := d.short[string(b)]; ok {
		return s, true
	}
	if d.short == nil {
		d.short = map[string]string{}
	}
	s := string(b)
	d.short[s] = s
	return s, true
}

// bytesAfter reads the bytes of a string or binary value whose code c
// was read (false when c is neither); the bytes stay in b.
func (d *direct) bytesAfter(c byte) ([]byte, bool) {
	var n int
	ok := true
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9 || c == 0xc4:
		n, ok = d.length(1)
	case c == 0xda || c == 0xc5:
		n, ok = d.length(2)
	case c == 0xdb || c == 0xc6:
		n, ok = d.length(4)
	default:
		return nil, false
	}
	if !ok || n > len(d.b)-d.off {
		return nil, false
	}
	b := d.b[d.off : d.off+n]
	d.off += n
	return b, true
}

// number reads an integer or boolean as the general path's loose form
// holds it: its bits, whether it is a (possibly negative) signed integer
// and whether it is a boolean; false for any other value.
func (d *direct) number() (n uint64, signed, isBool, ok bool) {
	c, ok := d.next()
	if !ok {
		return 0, false, false, false
	}
	switch {
	case c <= 0x7f || c >= 0xe0:
		return uint64(int64(int8(c))), true, false, true
	}
	switch c {
	case 0xc2:
		return 0, false, true, true
	case 0xc3:
		return 1, false, true, true
	case 0xcc, 0xcd, 0xce, 0xcf:
		n, ok := d.uint(1 << (c - 0xcc))
		return n, false, false, ok
	case 0xd0:
		n, ok := d.uint(1)
		return uint64(int64(int8(n))), true, false, ok
	case 0xd1:
		n, ok := d.uint(2)
		return uint64(int64(int16(n))), true, false, ok
	case 0xd2:
		n, ok := d.uint(4)
		return uint64(int64(int32(n))), true, false, ok
	case 0xd3:
		n, ok := d.uint(8)
		return n, true, false, ok
	}
	return 0, false, false, false
}

// str reads a string (or binary) value.
func (d *direct) str() (string, bool) {
	c, ok := d.next()
	if !ok {
		return "", false
	}
	return d.strAfter(c)
}

// value reads any value as the general decode's loose form does:
// integers as int64 (fixed numbers and signed codes) or uint64 (unsigned
// codes), floats as float64, strings and binaries as string, lists as
// []any, maps as map[string]any.
func (d *direct) value() (any, bool) {
	at := d.off
	c, ok := d.next()
	if !ok {
		return nil, false
	}
	switch {
	case c <= 0x7f || c >= 0xe0:
		return int64(int8(c)), true
	case c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf:
		d.off = at
		n, ok := d.mapLen()
		if !ok {
			return nil, false
		}
		m := make(map[string]any, n)
		for range n {
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			v, ok := d.value()
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		return m, true
	case c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd:
		d.off = at
		n, ok := d.arrayLen()
		if !ok {
			return nil, false
		}
		l := make([]any, 0, n)
		for range n {
			v, ok := d.value()
			if !ok {
				return nil, false
			}
			l = append(l, v)
		}
		return l, true
	}
	switch c {
	case 0xc0:
		return nil, true
	case 0xc2:
		return false, true
	case 0xc3:
		return true, true
	case 0xca:
		n, ok := d.uint(4)
		return float64(math.Float32frombits(uint32(n))), ok
	case 0xcb:
		n, ok := d.uint(8)
		return math.Float64frombits(n), ok
	case 0xcc, 0xcd, 0xce, 0xcf:
		n, ok := d.uint(1 << (c - 0xcc))
		return n, ok
	case 0xd0:
		n, ok := d.uint(1)
		return int64(int8(n)), ok
	case 0xd1:
		n, ok := d.uint(2)
		return int64(int16(n)), ok
	case 0xd2:
		n, ok := d.uint(4)
		return int64(int32(n)), ok
	case 0xd3:
		n, ok := d.uint(8)
		return int64(n), ok
	}
	if s, ok := d.strAfter(c); ok {
		return s, true
	}
	return nil, false // an extension type
}

// assign reads one value into dst as the general path's assign does
// (strings into strings; integers and booleans into uint64 and bool;
// lists element by element into slices).
func (d *direct) assign(dst reflect.Value) bool {
	switch dst.Kind() {
	case reflect.String:
		s, ok := d.str()
		if !ok {
			return false
		}
		dst.SetString(s)
		return true
	case reflect.Slice:
		n, ok := d.arrayLen()
		if !ok {
			return false
		}
		s := reflect.MakeSlice(dst.Type(), n, n)
		for i := range n {
			if !d.assign(s.Index(i)) {
				return false
			}
		}
		dst.Set(s)
		return true
	case reflect.Uint64, reflect.Bool:
		n, signed, _, ok := d.number()
		if !ok || signed && int64(n) < 0 && dst.Kind() == reflect.Uint64 {
			return false
		}
		if dst.Kind() == reflect.Bool {
			dst.SetBool(n != 0)
		} else {
			dst.SetUint(n)
		}
		return true
	}
	return false
}

// fill reads a map into the struct v: tagged keys into their fields, the
// struct's list key (tf.list, when it has one) through onList, every other
// key into a new Extra map (made when the map has any key without a
// field, the list key included, as the general path leaves it), and every
// key read into a new presence set.
func (d *direct) fill(v reflect.Value, tf *typeFields, extraOut *map[string]any, presentOut *presence, onList func() bool) bool {
	n, ok := d.mapLen()
	if !ok {
		return false
	}
	var present presence
	var extra map[string]any
	for range n {
		c, ok := d.next()
		if !ok {
			return false
		}
		kb, ok := d.bytesAfter(c)
		if !ok {
			return false
		}
		if f, ok := tf.ref[string(kb)]; ok {
			present.bits |= 1 << f.n
			if !d.assign(v.Field(f.idx)) {
				return false
			}
			continue
		}
		key := string(kb)
		if extra == nil {
			extra = map[string]any{}
		}
		if tf.list != "" && key == tf.list {
			present.bits |= listBit
			if !onList() {
				return false
			}
			continue
		}
		val, ok := d.value()
		if !ok {
			return false
		}
		extra[key] = val
	}
	*extraOut, *presentOut = extra, present
	return true
}
