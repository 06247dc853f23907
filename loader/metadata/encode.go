package metadata

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"strings"
)

// encodeDirect writes the MessagePack of md.Map() as the general encoder
// (sorted map keys, compact integers) writes it, straight from the typed
// form: no maps are built. It covers the values a decode produces (nil,
// strings, booleans, int64, uint64, float64, lists and string-keyed maps
// of them) and returns false for anything else (for example an Extra
// value of another Go type, or an Extra key that shadows a field), and
// Encode then takes the general path.
func encodeDirect(md *Metadata) ([]byte, bool) {
	e := &encoder{b: make([]byte, 0, 4096)}
	ok := e.object(reflect.ValueOf(md).Elem(), fieldsOf(reflect.TypeOf(*md)), md.Extra, md.present, rootRequired, len(md.Kernels) > 0 || md.present.bits&listBit != 0, func() bool {
		e.arrayLen(len(md.Kernels))
		kt := fieldsOf(reflect.TypeOf(Kernel{}))
		at := fieldsOf(reflect.TypeOf(Arg{}))
		for i := range md.Kernels {
			k := &md.Kernels[i]
			ok := e.object(reflect.ValueOf(k).Elem(), kt, k.Extra, k.present, kernelRequired, len(k.Args) > 0 || k.present.bits&listBit != 0, func() bool {
				e.arrayLen(len(k.Args))
				for j := range k.Args {
					a := &k.Args[j]
					if !e.object(reflect.ValueOf(a).Elem(), at, a.Extra, a.present, argRequired, false, nil) {
						return false
					}
				}
				return true
			})
			if !ok {
				return false
			}
		}
		return true
	})
	if !ok {
		return nil, false
	}
	return e.b, true
}

// encoder appends MessagePack to b.
type encoder struct{ b []byte }

func (e *encoder) code(c byte) { e.b = append(e.b, c) }

// header writes the short form of a length (fixed code base|n when n is
// below short) or code c8/c16/c32 with a 1-, 2- or 4-byte length; c8 0
// means there is no 1-byte form.
func (e *encoder) header(n int, base byte, short int, c8, c16, c32 byte) {
	switch {
	case n < short:
		e.code(base | byte(n))
	case n < 256 && c8 != 0:
		e.b = append(e.b, c8, byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, c16), uint16(n))
	default:
		e.b = binary.BigEndian.AppendUint32(append(e.b, c32), uint32(n))
	}
}

func (e *encoder) mapLen(n int)   { e.header(n, 0x80, 16, 0, 0xde, 0xdf) }
func (e *encoder) arrayLen(n int) { e.header(n, 0x90, 16, 0, 0xdc, 0xdd) }

func (e *encoder) str(s string) {
	e.header(len(s), 0xa0, 32, 0xd9, 0xda, 0xdb)
	e.b = append(e.b, s...)
}

// uint writes n in the fewest bytes (a positive fixed number up to 127).
func (e *encoder) uint(n uint64) {
	switch {
	case n <= math.MaxInt8:
		e.code(byte(n))
	case n <= math.MaxUint8:
		e.b = append(e.b, 0xcc, byte(n))
	case n <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, 0xcd), uint16(n))
	case n <= math.MaxUint32:
		e.b = binary.BigEndian.AppendUint32(append(e.b, 0xce), uint32(n))
	default:
		e.b = binary.BigEndian.AppendUint64(append(e.b, 0xcf), n)
	}
}

// int writes n in the fewest bytes (as uint when it is not negative).
func (e *encoder) int(n int64) {
	switch {
	case n >= 0:
		e.uint(uint64(n))
	case n >= -32:
		e.code(byte(n))
	case n >= math.MinInt8:
		e.b = append(e.b, 0xd0, byte(n))
	case n >= math.MinInt16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, 0xd1), uint16(n))
	case n >= math.MinInt32:
		e.b = binary.BigEndian.AppendUint32(append(e.b, 0xd2), uint32(n))
	default:
		e.b = binary.BigEndian.AppendUint64(append(e.b, 0xd3), uint64(n))
	}
}

func (e *encoder) bool(v bool) {
	if v {
		e.code(0xc3)
	} else {
		e.code(0xc2)
	}
}

// value writes a generic value (false for a type it does not cover).
func (e *encoder) value(v any) bool {
	switch x := v.(type) {
	case nil:
		e.code(0xc0)
	case string:
		e.str(x)
	case bool:
		e.bool(x)
	case int64:
		e.int(x)
	case uint64:
		e.uint(x)
	case float64:
		e.b = binary.BigEndian.AppendUint64(append(e.b, 0xcb), math.Float64bits(x))
	case []any:
		if x == nil {
			e.code(0xc0)
			return true
		}
		e.arrayLen(len(x))
		for _, y := range x {
			if !e.value(y) {
				return false
			}
		}
	case map[string]any:
		if x == nil {
			e.code(0xc0)
			return true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.mapLen(len(keys))
		for _, k := range keys {
			e.str(k)
			if !e.value(x[k]) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// field writes a tagged field's value as Map holds it (a nil slice as
// an empty list).
func (e *encoder) field(fv reflect.Value) bool {
	switch fv.Kind() {
	case reflect.String:
		e.str(fv.String())
	case reflect.Bool:
		e.bool(fv.Bool())
	case reflect.Uint64:
		e.uint(fv.Uint())
	case reflect.Slice:
		e.arrayLen(fv.Len())
		for i := range fv.Len() {
			if !e.field(fv.Index(i)) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// objectKey is one key of a struct's map: a tagged field (n its position
// in the type's keys), an Extra key (n -1) or the list key (n -2).
type objectKey struct {
	key string
	n   int
}

// object writes the map toMap makes of the struct v (tagged fields that
// are present, required or not zero; Extra; the list key through list
// when withList), keys sorted.
func (e *encoder) object(v reflect.Value, tf *typeFields, extra map[string]any, present presence, required map[string]bool, withList bool, list func() bool) bool {
	keys := make([]objectKey, 0, len(tf.keys)+len(extra)+1)
	for n, key := range tf.keys {
		if present.bits>>n&1 != 0 || required[key] || !v.Field(tf.idx[n]).IsZero() {
			keys = append(keys, objectKey{key, n})
		}
	}
	for k := range extra {
		if _, ok := tf.ref[k]; ok || k == tf.list && tf.list != "" {
			return false // toMap lets it shadow the field: not covered
		}
		keys = append(keys, objectKey{k, -1})
	}
	if withList {
		keys = append(keys, objectKey{tf.list, -2})
	}
	slices.SortFunc(keys, func(a, b objectKey) int { return strings.Compare(a.key, b.key) })
	e.mapLen(len(keys))
	for _, k := range keys {
		e.str(k.key)
		var ok bool
		switch k.n {
		case -1:
			ok = e.value(extra[k.key])
		case -2:
			ok = list()
		default:
			ok = e.field(v.Field(tf.idx[k.n]))
		}
		if !ok {
			return false
		}
	}
	return true
}

// EncodeDecoded returns Encode's bytes and the value Decode gives for
// them, or nil for the value when the bytes do not decode (Decode's error
// then says why). Where the direct encoding applies the value is worked
// out from md (what the encoding keeps: the keys written become the
// presence sets, lists become fresh non-nil slices, integers the types
// their compact encoding decodes to), so the note is not decoded;
// otherwise it is decoded. The value shares no slice or map with md.
func (md *Metadata) EncodeDecoded() ([]byte, *Metadata, error) {
	b, ok := encodeDirect(md)
	if ok {
		if d, ok := decodedForm(md); ok {
			return b, d, nil
		}
	} else {
		var err error
		if b, err = md.encodeGeneric(); err != nil {
			return nil, nil, err
		}
	}
	d, err := Decode(b)
	if err != nil {
		return b, nil, nil
	}
	return b, d, nil
}

// decodedForm is Decode(encodeDirect(md)) without the bytes (false where
// it does not apply: values encodeDirect does not cover, nesting deeper
// than Validate allows).
func decodedForm(md *Metadata) (*Metadata, bool) {
	c := &Metadata{}
	withList := len(md.Kernels) > 0 || md.present.bits&listBit != 0
	if !formObject(reflect.ValueOf(md).Elem(), reflect.ValueOf(c).Elem(), fieldsOf(reflect.TypeOf(*md)), md.Extra, md.present, rootRequired, withList, &c.Extra, &c.present, 0) {
		return nil, false
	}
	if !withList {
		return c, true
	}
	for i := range md.Kernels {
		k := &md.Kernels[i]
		var ck Kernel
		kl := len(k.Args) > 0 || k.present.bits&listBit != 0
		// A kernel map is at depth 2 (root map, kernels list), its
		// arguments' maps at 4.
		if !formObject(reflect.ValueOf(k).Elem(), reflect.ValueOf(&ck).Elem(), fieldsOf(reflect.TypeOf(*k)), k.Extra, k.present, kernelRequired, kl, &ck.Extra, &ck.present, 2) {
			return nil, false
		}
		for j := range k.Args {
			a := &k.Args[j]
			var ca Arg
			if !formObject(reflect.ValueOf(a).Elem(), reflect.ValueOf(&ca).Elem(), fieldsOf(reflect.TypeOf(*a)), a.Extra, a.present, argRequired, false, &ca.Extra, &ca.present, 4) {
				return nil, false
			}
			ck.Args = append(ck.Args, ca)
		}
		c.Kernels = append(c.Kernels, ck)
	}
	return c, true
}

// formObject fills dst, extraOut and presentOut with what decoding the map
// object writes for src gives (depth is the map's nesting depth).
func formObject(src, dst reflect.Value, tf *typeFields, extra map[string]any, present presence, required map[string]bool, withList bool, extraOut *map[string]any, presentOut *presence, depth int) bool {
	var p presence
	for n, key := range tf.keys {
		fv := src.Field(tf.idx[n])
		if p0 := present.bits>>n&1 != 0; !p0 && !required[key] && fv.IsZero() {
			continue
		}
		p.bits |= 1 << n
		if fv.Kind() == reflect.Slice {
			s := reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len())
			reflect.Copy(s, fv)
			dst.Field(tf.idx[n]).Set(s)
		} else {
			dst.Field(tf.idx[n]).Set(fv)
		}
	}
	if withList {
		p.bits |= listBit
	}
	var ex map[string]any
	if len(extra) > 0 || withList {
		ex = make(map[string]any, len(extra))
	}
	for k, v := range extra {
		if _, ok := tf.ref[k]; ok || k == tf.list && tf.list != "" {
			return false
		}
		d, ok := decodedValue(v, depth+1)
		if !ok {
			return false
		}
		ex[k] = d
	}
	*extraOut, *presentOut = ex, p
	return true
}

// decodedValue is what decoding encoder.value's bytes for v at nesting
// depth gives.
func decodedValue(v any, depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil, string, bool, float64:
		return v, true
	case int64:
		if x > math.MaxInt8 {
			return uint64(x), true // an unsigned code
		}
		return x, true
	case uint64:
		if x <= math.MaxInt8 {
			return int64(x), true // a positive fixed number
		}
		return x, true
	case []any:
		if x == nil {
			return nil, true
		}
		l := make([]any, len(x))
		for i, e := range x {
			d, ok := decodedValue(e, depth+1)
			if !ok {
				return nil, false
			}
			l[i] = d
		}
		return l, true
	case map[string]any:
		if x == nil {
			return nil, true
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			d, ok := decodedValue(e, depth+1)
			if !ok {
				return nil, false
			}
			m[k] = d
		}
		return m, true
	}
	return nil, false
}
