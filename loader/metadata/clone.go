package metadata

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of md: changing the copy (its kernels, their
// presence sets, any Extra value) leaves md as it was. For an md that
// Decode made, it equals what decoding the same note again gives, without
// the MessagePack decode (decoding md's re-encoding need not: its
// presence sets may differ).
func (md *Metadata) Clone() *Metadata {
	if md == nil {
		return nil
	}
	c := *md
	c.Version = slices.Clone(md.Version)
	c.Printf = slices.Clone(md.Printf)
	c.Extra = cloneExtra(md.Extra)
	c.present.other = maps.Clone(md.present.other)
	if md.Kernels != nil {
		c.Kernels = make([]Kernel, len(md.Kernels))
		for i := range md.Kernels {
			c.Kernels[i] = md.Kernels[i].clone()
		}
	}
	return &c
}

// clone is a deep copy of one kernel entry.
func (k *Kernel) clone() Kernel {
	c := *k
	c.LanguageVersion = slices.Clone(k.LanguageVersion)
	c.ReqdWorkgroupSize = slices.Clone(k.ReqdWorkgroupSize)
	c.WorkgroupSizeHint = slices.Clone(k.WorkgroupSizeHint)
	c.Extra = cloneExtra(k.Extra)
	c.present.other = maps.Clone(k.present.other)
	if k.Args != nil {
		c.Args = make([]Arg, len(k.Args))
		for i := range k.Args {
			a := k.Args[i]
			a.Extra = cloneExtra(a.Extra)
			a.present.other = maps.Clone(a.present.other)
			c.Args[i] = a
		}
	}
	return c
}

// cloneExtra deep-copies a map of generic MessagePack values.
func cloneExtra(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = cloneValue(v)
	}
	return c
}

// cloneValue deep-copies a generic MessagePack value: maps and lists are
// copied, scalars (numbers, strings, booleans, nil) are values already;
// a byte string is copied too.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneExtra(x)
	case map[any]any:
		if x == nil {
			return x
		}
		c := make(map[any]any, len(x))
		for k, e := range x {
			c[k] = cloneValue(e)
		}
		return c
	case []any:
		if x == nil {
			return x
		}
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e)
		}
		return c
	case []byte:
		return slices.Clone(x)
	default:
		return v
	}
}
