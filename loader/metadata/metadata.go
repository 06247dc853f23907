// Package metadata decodes and encodes the AMDHSA code-object metadata:
// the MessagePack map carried by the NT_AMDGPU_METADATA note (code object
// v3 and later). Known keys land in typed fields; every other key is kept
// in Extra so that a decode/encode cycle loses nothing.
//
//	md, err := metadata.Decode(desc)
//	for _, k := range md.Kernels {
//		fmt.Println(k.Name, k.VGPRCount, k.KernargSegmentSize)
//	}
//	b, err := md.Encode()
package metadata

import (
	"bytes"
	"fmt"
	"math/bits"
	"reflect"
	"sort"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// Metadata is the root map of the note.
type Metadata struct {
	// Version is amdhsa.version: major, minor (1.2 for code object v5).
	Version []uint64 `msgpack:"amdhsa.version"`
	// Target is amdhsa.target, the target id
	// ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-").
	Target string `msgpack:"amdhsa.target"`
	// Printf is amdhsa.printf: printf format descriptors.
	Printf []string `msgpack:"amdhsa.printf"`
	// Kernels is amdhsa.kernels.
	Kernels []Kernel `msgpack:"-"`
	// Extra holds root keys this package does not model, by key.
	Extra map[string]any `msgpack:"-"`

	present presence
}

// Kernel is one entry of amdhsa.kernels.
type Kernel struct {
	Name                    string   `msgpack:".name"`
	Symbol                  string   `msgpack:".symbol"`
	Language                string   `msgpack:".language"`
	LanguageVersion         []uint64 `msgpack:".language_version"`
	Args                    []Arg    `msgpack:"-"`
	ReqdWorkgroupSize       []uint64 `msgpack:".reqd_workgroup_size"`
	WorkgroupSizeHint       []uint64 `msgpack:".workgroup_size_hint"`
	VecTypeHint             string   `msgpack:".vec_type_hint"`
	DeviceEnqueueSymbol     string   `msgpack:".device_enqueue_symbol"`
	KernargSegmentSize      uint64   `msgpack:".kernarg_segment_size"`
	KernargSegmentAlign     uint64   `msgpack:".kernarg_segment_align"`
	GroupSegmentFixedSize   uint64   `msgpack:".group_segment_fixed_size"`
	PrivateSegmentFixedSize uint64   `msgpack:".private_segment_fixed_size"`
	WavefrontSize           uint64   `msgpack:".wavefront_size"`
	SGPRCount               uint64   `msgpack:".sgpr_count"`
	VGPRCount               uint64   `msgpack:".vgpr_count"`
	AGPRCount               uint64   `msgpack:".agpr_count"`
	SGPRSpillCount          uint64   `msgpack:".sgpr_spill_count"`
	VGPRSpillCount          uint64   `msgpack:".vgpr_spill_count"`
	MaxFlatWorkgroupSize    uint64   `msgpack:".max_flat_workgroup_size"`
	UsesDynamicStack        bool     `msgpack:".uses_dynamic_stack"`
	UniformWorkGroupSize    uint64   `msgpack:".uniform_work_group_size"`
	WorkgroupProcessorMode  uint64   `msgpack:".workgroup_processor_mode"`
	Kind                    string   `msgpack:".kind"`
	// Extra holds the kernel's keys this package does not model.
	Extra map[string]any `msgpack:"-"`

	present presence
}

// Arg is one entry of a kernel's .args list.
type Arg struct {
	Name         string `msgpack:".name"`
	TypeName     string `msgpack:".type_name"`
	Size         uint64 `msgpack:".size"`
	Offset       uint64 `msgpack:".offset"`
	ValueKind    string `msgpack:".value_kind"`
	ValueType    string `msgpack:".value_type"`
	PointeeAlign uint64 `msgpack:".pointee_align"`
	AddressSpace string `msgpack:".address_space"`
	Access       string `msgpack:".access"`
	ActualAccess string `msgpack:".actual_access"`
	IsConst      bool   `msgpack:".is_const"`
	IsRestrict   bool   `msgpack:".is_restrict"`
	IsVolatile   bool   `msgpack:".is_volatile"`
	IsPipe       bool   `msgpack:".is_pipe"`
	// Extra holds the argument's keys this package does not model.
	Extra map[string]any `msgpack:"-"`

	present presence
}

// Value kinds of hidden arguments and buffers, as .value_kind spells them.
const (
	ValueKindByValue      = "by_value"
	ValueKindGlobalBuffer = "global_buffer"
	ValueKindHiddenPrefix = "hidden_"
)

// Hidden reports whether the argument is one the runtime fills in
// (.value_kind hidden_*).
func (a *Arg) Hidden() bool {
	return len(a.ValueKind) >= len(ValueKindHiddenPrefix) && a.ValueKind[:len(ValueKindHiddenPrefix)] == ValueKindHiddenPrefix
}

// Decode parses the MessagePack payload of an NT_AMDGPU_METADATA note.
func Decode(b []byte) (*Metadata, error) {
	if err := Validate(b); err != nil {
		return nil, err
	}
	if md, ok := decodeDirect(b); ok {
		return md, nil
	}
	return decodeGeneric(b)
}

// decodeGeneric decodes a validated note through the MessagePack
// library's generic maps and lists, then fills the typed form from them;
// its errors name the entry and key of the first value the typed form
// rejects. decodeDirect gives the same value faster where it applies.
func decodeGeneric(b []byte) (*Metadata, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	dec.UseLooseInterfaceDecoding(true)
	raw, err := dec.DecodeInterface()
	if err != nil {
		return nil, fmt.Errorf("metadata: msgpack: %w", err)
	}
	root, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("metadata: root is %T, want a map", raw)
	}
	md := &Metadata{}
	if err := fromMap(root, md, &md.Extra, &md.present, func() string { return "root" }); err != nil {
		return nil, err
	}
	if ks, ok := root["amdhsa.kernels"]; ok {
		delete(md.Extra, "amdhsa.kernels")
		md.present.bits |= listBit
		list, ok := ks.([]any)
		if !ok {
			return nil, fmt.Errorf("metadata: amdhsa.kernels is %T, want a list", ks)
		}
		for i, kv := range list {
			km, ok := kv.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("metadata: amdhsa.kernels[%d] is %T, want a map", i, kv)
			}
			var k Kernel
			// where names the entry in errors only: formatting it for
			// every kernel and argument cost more than the decode's maps.
			where := func() string { return fmt.Sprintf("amdhsa.kernels[%d]", i) }
			if err := fromMap(km, &k, &k.Extra, &k.present, where); err != nil {
				return nil, err
			}
			if as, ok := km[".args"]; ok {
				delete(k.Extra, ".args")
				k.present.bits |= listBit
				al, ok := as.([]any)
				if !ok {
					return nil, fmt.Errorf("metadata: %s.args is %T, want a list", where(), as)
				}
				for j, av := range al {
					am, ok := av.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("metadata: %s.args[%d] is %T, want a map", where(), j, av)
					}
					var a Arg
					if err := fromMap(am, &a, &a.Extra, &a.present, func() string { return fmt.Sprintf("%s.args[%d]", where(), j) }); err != nil {
						return nil, err
					}
					k.Args = append(k.Args, a)
				}
			}
			md.Kernels = append(md.Kernels, k)
		}
	}
	return md, nil
}

// fromMap fills the tagged fields of the struct pointed to by dst from m
// and stores the remaining keys in its Extra field and the presence set.
func fromMap(m map[string]any, dst any, extraOut *map[string]any, presentOut *presence, where func() string) error {
	v := reflect.ValueOf(dst).Elem()
	tf := fieldsOf(v.Type())
	var present presence
	var extra map[string]any
	for key, val := range m {
		f, ok := tf.ref[key]
		if !ok {
			if extra == nil {
				extra = map[string]any{}
			}
			extra[key] = val
			continue
		}
		present.bits |= 1 << f.n
		if err := assign(v.Field(f.idx), val); err != nil {
			return fmt.Errorf("metadata: %s key %q: %w", where(), key, err)
		}
	}
	*extraOut, *presentOut = extra, present
	return nil
}

// typeFields lists the msgpack-tagged fields of a struct type.
type typeFields struct {
	keys  []string
	idx   []int
	index map[string]int
	// ref maps a key to its field.
	ref map[string]fieldRef
	// list is the struct's list key (see listBit), if it has one.
	list string
}

// fieldRef is a tagged field: its index in the struct, its position n in
// keys and its key.
type fieldRef struct {
	idx, n int
	key    string
}

// listBit is the presence bit of a struct's list key (amdhsa.kernels of
// the root, .args of a kernel), which has no tagged field.
const listBit = 1 << 63

// presence records which keys a map held when it was decoded, and the
// keys MarkPresent named: bit n of bits for the struct's n-th tagged key,
// listBit for its list key, other for any other key.
type presence struct {
	bits  uint64
	other map[string]bool
}

// mark records key as present in a struct whose fields tf describes.
func (p *presence) mark(tf *typeFields, key string) {
	switch f, ok := tf.ref[key]; {
	case ok:
		p.bits |= 1 << f.n
	case key == tf.list && key != "":
		p.bits |= listBit
	default:
		if p.other == nil {
			p.other = map[string]bool{}
		}
		p.other[key] = true
	}
}

// has reports whether key is recorded as present.
func (p *presence) has(tf *typeFields, key string) bool {
	switch f, ok := tf.ref[key]; {
	case ok:
		return p.bits>>f.n&1 != 0
	case key == tf.list && key != "":
		return p.bits&listBit != 0
	}
	return p.other[key]
}

var fieldCache sync.Map // reflect.Type -> *typeFields

func fieldsOf(t reflect.Type) *typeFields {
	if c, ok := fieldCache.Load(t); ok {
		return c.(*typeFields)
	}
	tf := &typeFields{index: map[string]int{}, ref: map[string]fieldRef{}}
	switch t {
	case reflect.TypeOf(Metadata{}):
		tf.list = "amdhsa.kernels"
	case reflect.TypeOf(Kernel{}):
		tf.list = ".args"
	}
	for i := 0; i < t.NumField(); i++ {
		key := t.Field(i).Tag.Get("msgpack")
		if key == "" || key == "-" {
			continue
		}
		tf.keys = append(tf.keys, key)
		tf.idx = append(tf.idx, i)
		tf.index[key] = i
		tf.ref[key] = fieldRef{i, len(tf.keys) - 1, key}
	}
	fieldCache.Store(t, tf)
	return tf
}

func assign(dst reflect.Value, val any) error {
	switch dst.Kind() {
	case reflect.String:
		s, ok := val.(string)
		if !ok {
			return fmt.Errorf("value %v is %T, want a string", val, val)
		}
		dst.SetString(s)
	case reflect.Bool:
		switch b := val.(type) {
		case bool:
			dst.SetBool(b)
		case int64:
			dst.SetBool(b != 0)
		case uint64:
			dst.SetBool(b != 0)
		default:
			return fmt.Errorf("value %v is %T, want a bool", val, val)
		}
	case reflect.Uint64:
		n, err := toUint(val)
		if err != nil {
			return err
		}
		dst.SetUint(n)
	case reflect.Slice:
		l, ok := val.([]any)
		if !ok {
			return fmt.Errorf("value %v is %T, want a list", val, val)
		}
		s := reflect.MakeSlice(dst.Type(), len(l), len(l))
		for i, e := range l {
			if err := assign(s.Index(i), e); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		dst.Set(s)
	default:
		return fmt.Errorf("unsupported field kind %s", dst.Kind())
	}
	return nil
}

func toUint(val any) (uint64, error) {
	switch n := val.(type) {
	case uint64:
		return n, nil
	case int64:
		if n < 0 {
			return 0, fmt.Errorf("value %d is negative", n)
		}
		return uint64(n), nil
	case bool:
		if n {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("value %v is %T, want an integer", val, val)
}

// Keys written even when zero: the AMDGPU metadata verifier (and the ROCm
// loader) reject maps without them.
var (
	rootRequired   = map[string]bool{"amdhsa.version": true}
	kernelRequired = map[string]bool{
		".name": true, ".symbol": true, ".kernarg_segment_size": true, ".group_segment_fixed_size": true,
		".private_segment_fixed_size": true, ".kernarg_segment_align": true, ".wavefront_size": true,
		".sgpr_count": true, ".vgpr_count": true, ".max_flat_workgroup_size": true,
	}
	argRequired = map[string]bool{".size": true, ".offset": true, ".value_kind": true}
)

// toMap renders the struct's known fields (present or non-zero) and its
// Extra keys as a map.
func toMap(src any, extra map[string]any, present presence, required map[string]bool) map[string]any {
	v := reflect.ValueOf(src).Elem()
	tf := fieldsOf(v.Type())
	out := make(map[string]any, bits.OnesCount64(present.bits)+len(extra)+len(required))
	for n, key := range tf.keys {
		fv := v.Field(tf.idx[n])
		if present.bits>>n&1 == 0 && !required[key] && fv.IsZero() {
			continue
		}
		if fv.Kind() == reflect.Slice && fv.IsNil() {
			out[key] = []any{}
			continue
		}
		out[key] = fv.Interface()
	}
	for k, val := range extra {
		out[k] = val
	}
	return out
}

// Map returns the argument as a map keyed by metadata key (".name").
func (a *Arg) Map() map[string]any { return toMap(a, a.Extra, a.present, argRequired) }

// Map returns the kernel as a map keyed by metadata key, args included.
func (k *Kernel) Map() map[string]any {
	m := toMap(k, k.Extra, k.present, kernelRequired)
	if len(k.Args) > 0 || k.present.bits&listBit != 0 {
		args := make([]any, len(k.Args))
		for i := range k.Args {
			args[i] = k.Args[i].Map()
		}
		m[".args"] = args
	}
	return m
}

// Map returns the whole metadata as a map keyed by metadata key.
func (md *Metadata) Map() map[string]any {
	m := toMap(md, md.Extra, md.present, rootRequired)
	if len(md.Kernels) > 0 || md.present.bits&listBit != 0 {
		ks := make([]any, len(md.Kernels))
		for i := range md.Kernels {
			ks[i] = md.Kernels[i].Map()
		}
		m["amdhsa.kernels"] = ks
	}
	return m
}

// Has reports whether the kernel's map held key when it was decoded.
func (k *Kernel) Has(key string) bool { return k.present.has(fieldsOf(reflect.TypeOf(*k)), key) }

// Encode renders the metadata as MessagePack with map keys sorted, so the
// same metadata always gives the same bytes.
func (md *Metadata) Encode() ([]byte, error) {
	if b, ok := encodeDirect(md); ok {
		return b, nil
	}
	return md.encodeGeneric()
}

// encodeGeneric is Encode through the MessagePack library, from Map.
// encodeDirect gives the same bytes faster where it applies.
func (md *Metadata) encodeGeneric() ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	if err := enc.Encode(md.Map()); err != nil {
		return nil, fmt.Errorf("metadata: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// Keys returns the sorted keys of m; a helper for stable printing.
func Keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// MarkPresent records keys as present so that Encode writes them even when
// their value is zero (for example ".uses_dynamic_stack: false").
func (k *Kernel) MarkPresent(keys ...string) {
	tf := fieldsOf(reflect.TypeOf(*k))
	for _, key := range keys {
		k.present.mark(tf, key)
	}
}
