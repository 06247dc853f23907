package metadata

import (
	"encoding/binary"
	"fmt"
)

// maxDepth bounds the nesting of maps and arrays in a metadata note.
const maxDepth = 32

// scan walks one MessagePack value starting at b[off] without decoding it
// and returns the offset after it. Every declared length is checked
// against the bytes that remain (an array of n values needs at least n
// bytes, a map 2n), so that decoding afterwards cannot be made to
// allocate more than the input justifies.
func scan(b []byte, off, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("metadata: offset %d: nesting deeper than %d", off, maxDepth)
	}
	if off >= len(b) {
		return 0, fmt.Errorf("metadata: offset %d: value expected, input ends", off)
	}
	c := b[off]
	need := func(n uint64) (int, error) {
		if n > uint64(len(b)-off) {
			return 0, fmt.Errorf("metadata: offset %d: msgpack value (type 0x%02x) needs %d bytes, %d left", off, c, n, len(b)-off)
		}
		return off + int(n), nil
	}
	length := func(width int) (uint64, error) {
		if len(b)-off-1 < width {
			return 0, fmt.Errorf("metadata: offset %d: msgpack length (type 0x%02x) truncated", off, c)
		}
		p := b[off+1:]
		switch width {
		case 1:
			return uint64(p[0]), nil
		case 2:
			return uint64(binary.BigEndian.Uint16(p)), nil
		}
		return uint64(binary.BigEndian.Uint32(p)), nil
	}
	seq := func(hdr int, n uint64, perItem uint64) (int, error) {
		if n*perItem > uint64(len(b)-off-hdr) {
			return 0, fmt.Errorf("metadata: offset %d: msgpack container (type 0x%02x) declares %d entries, only %d bytes left", off, c, n, len(b)-off-hdr)
		}
		p := off + hdr
		for i := uint64(0); i < n*perItem; i++ {
			var err error
			if p, err = scan(b, p, depth+1); err != nil {
				return 0, err
			}
		}
		return p, nil
	}
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		return off + 1, nil
	case c >= 0x80 && c <= 0x8f:
		return seq(1, uint64(c&0x0f), 2)
	case c >= 0x90 && c <= 0x9f:
		return seq(1, uint64(c&0x0f), 1)
	case c >= 0xa0 && c <= 0xbf:
		return need(1 + uint64(c&0x1f))
	}
	switch c {
	case 0xcc, 0xd0:
		return need(2)
	case 0xcd, 0xd1:
		return need(3)
	case 0xca, 0xce, 0xd2:
		return need(5)
	case 0xcb, 0xcf, 0xd3:
		return need(9)
	case 0xd4:
		return need(3)
	case 0xd5:
		return need(4)
	case 0xd6:
		return need(6)
	case 0xd7:
		return need(10)
	case 0xd8:
		return need(18)
	case 0xc4, 0xd9, 0xc5, 0xda, 0xc6, 0xdb:
		w := map[byte]int{0xc4: 1, 0xd9: 1, 0xc5: 2, 0xda: 2, 0xc6: 4, 0xdb: 4}[c]
		n, err := length(w)
		if err != nil {
			return 0, err
		}
		return need(1 + uint64(w) + n)
	case 0xc7, 0xc8, 0xc9:
		w := map[byte]int{0xc7: 1, 0xc8: 2, 0xc9: 4}[c]
		n, err := length(w)
		if err != nil {
			return 0, err
		}
		return need(2 + uint64(w) + n)
	case 0xdc, 0xdd, 0xde, 0xdf:
		w := 2
		if c == 0xdd || c == 0xdf {
			w = 4
		}
		n, err := length(w)
		if err != nil {
			return 0, err
		}
		per := uint64(1)
		if c >= 0xde {
			per = 2
		}
		return seq(1+w, n, per)
	}
	return 0, fmt.Errorf("metadata: offset %d: invalid msgpack type byte 0x%02x", off, c)
}

// Validate checks that b holds exactly one well-formed MessagePack value
// whose declared lengths fit the input (zero padding may follow it).
func Validate(b []byte) error {
	end, err := scan(b, 0, 0)
	if err != nil {
		return err
	}
	for _, c := range b[end:] {
		if c != 0 {
			return fmt.Errorf("metadata: offset %d: %d bytes after the metadata map", end, len(b)-end)
		}
	}
	return nil
}
