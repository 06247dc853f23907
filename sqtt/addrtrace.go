package sqtt

import (
	"fmt"
	"strings"
)

// AddressTracePrefix starts the P: names of address-trace markers.
const AddressTracePrefix = "addr_trace_"

// AddressProtocol describes the payload block that follows an address-trace
// header: exec_lo, exec_hi, Fixed words, then WordsPerLane words per lane.
type AddressProtocol struct {
	// Fixed is the number of words after the exec mask and before the
	// lanes (3 for buffers: rsrc_lo, rsrc_hi, soffset).
	Fixed int
	// WordsPerLane is 2 for 64-bit addresses, 1 for 32-bit ones and
	// buffer offsets, 2 for struct buffers (voffset and vindex loops).
	WordsPerLane int
	// Buffer reports the buffer component protocol.
	Buffer bool
	// Struct reports a struct buffer (vindex loop; no address produced).
	Struct bool
	// Wide reports 64-bit lane addresses (lo, hi pairs).
	Wide bool
}

// AddressProtocolFor returns the payload protocol of an address-trace
// marker name (the P: name without its source location).
func AddressProtocolFor(name string) (AddressProtocol, bool) {
	op, ok := strings.CutPrefix(name, AddressTracePrefix)
	if !ok {
		return AddressProtocol{}, false
	}
	switch op {
	case "load", "store", "atomic":
		return AddressProtocol{WordsPerLane: 2, Wide: true}, true
	case "lds_load", "lds_store", "lds_atomic", "ds_permute", "ds_bpermute":
		return AddressProtocol{WordsPerLane: 1}, true
	case "buffer_load", "buffer_store", "buffer_atomic":
		return AddressProtocol{Fixed: 3, WordsPerLane: 1, Buffer: true}, true
	case "struct_buffer_load", "struct_buffer_store", "struct_buffer_atomic":
		return AddressProtocol{Fixed: 3, WordsPerLane: 2, Buffer: true, Struct: true}, true
	}
	return AddressProtocol{}, false
}

// PayloadWords returns the number of records after the header for a wave
// of waveSize lanes (2 exec words + fixed + lanes).
func (p AddressProtocol) PayloadWords(waveSize int) int {
	return 2 + p.Fixed + p.WordsPerLane*waveSize
}

// AddressBlock is a decoded address-trace payload.
type AddressBlock struct {
	// Exec is the EXEC mask.
	Exec uint64
	// Lanes are the active lane numbers, ascending.
	Lanes []int
	// Addresses holds one address per active lane (empty for struct
	// buffers, whose stride is not decoded).
	Addresses []uint64
}

// DecodeAddressBlock decodes the payload words after an address-trace
// header: buffers give ((rsrc_hi:rsrc_lo) & 0xFFFFFFFFFFFF) + soffset +
// voffset[lane]; other kinds give the lane words (lo | hi<<32 when wide).
// Only lanes set in EXEC are reported.
func DecodeAddressBlock(p AddressProtocol, waveSize int, words []uint32) (*AddressBlock, error) {
	if waveSize != 32 && waveSize != 64 {
		return nil, fmt.Errorf("sqtt: address block: wave size %d, want 32 or 64", waveSize)
	}
	if need := p.PayloadWords(waveSize); len(words) < need {
		return nil, fmt.Errorf("sqtt: address block: %d payload words, want %d", len(words), need)
	}
	b := &AddressBlock{Exec: uint64(words[0]) | uint64(words[1])<<32}
	lanes := words[2+p.Fixed:]
	var base uint64
	if p.Buffer {
		f := words[2:]
		base = (uint64(f[0])|uint64(f[1])<<32)&0xFFFFFFFFFFFF + uint64(f[2])
	}
	for lane := 0; lane < waveSize; lane++ {
		if b.Exec&(1<<lane) == 0 {
			continue
		}
		b.Lanes = append(b.Lanes, lane)
		switch {
		case p.Struct:
		case p.Buffer:
			b.Addresses = append(b.Addresses, base+uint64(lanes[lane]))
		case p.Wide:
			b.Addresses = append(b.Addresses, uint64(lanes[2*lane])|uint64(lanes[2*lane+1])<<32)
		default:
			b.Addresses = append(b.Addresses, uint64(lanes[lane]))
		}
	}
	return b, nil
}
