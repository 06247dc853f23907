package enc

import "strconv"

// Style is how a source operand's constants print, after LLVM's
// AMDGPUInstPrinter operand types.
type Style uint8

// Constant styles.
const (
	S32    Style = iota // 32-bit operands (f32, i32, b32)
	F16                 // f16 operand
	BF16                // bf16 operand
	I16                 // i16 operand
	F64                 // f64 operand (a literal is the high half)
	I64                 // i64/b64 operand
	V2F16               // packed f16
	V2BF16              // packed bf16
	V2I16               // packed i16
	I16H                // i16 operand whose inline floats print as f16 bits
	NumStyles
)

// StyleNames are the Go identifiers of the styles (for the generator).
var StyleNames = [NumStyles]string{"S32", "F16", "BF16", "I16", "F64", "I64", "V2F16", "V2BF16", "V2I16", "I16H"}

var (
	f32Names  = map[uint64]string{0x3f000000: "0.5", 0xbf000000: "-0.5", 0x3f800000: "1.0", 0xbf800000: "-1.0", 0x40000000: "2.0", 0xc0000000: "-2.0", 0x40800000: "4.0", 0xc0800000: "-4.0", 0x3e22f983: "0.15915494"}
	f16Names  = map[uint64]string{0x3800: "0.5", 0xb800: "-0.5", 0x3c00: "1.0", 0xbc00: "-1.0", 0x4000: "2.0", 0xc000: "-2.0", 0x4400: "4.0", 0xc400: "-4.0", 0x3118: "0.15915494"}
	bf16Names = map[uint64]string{0x3f00: "0.5", 0xbf00: "-0.5", 0x3f80: "1.0", 0xbf80: "-1.0", 0x4000: "2.0", 0xc000: "-2.0", 0x4080: "4.0", 0xc080: "-4.0", 0x3e22: "0.15915494"}
	f64Names  = map[uint64]string{0x3fe0000000000000: "0.5", 0xbfe0000000000000: "-0.5", 0x3ff0000000000000: "1.0", 0xbff0000000000000: "-1.0", 0x4000000000000000: "2.0", 0xc000000000000000: "-2.0", 0x4010000000000000: "4.0", 0xc010000000000000: "-4.0", 0x3fc45f306dc9c882: "0.15915494309189532"}
)

var (
	f32Inline  = [9]uint64{0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983}
	f16Inline  = [9]uint64{0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118}
	bf16Inline = [9]uint64{0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22}
	f64Inline  = [9]uint64{0x3fe0000000000000, 0xbfe0000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x4000000000000000, 0xc000000000000000, 0x4010000000000000, 0xc010000000000000, 0x3fc45f306dc9c882}
)

func inlineInt(v int64) bool { return v >= -16 && v <= 64 }

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// IsConst reports whether a source code is an inline constant.
func IsConst(code uint32) bool {
	return code >= 128 && code <= 208 || code >= 240 && code <= 248
}

// value returns the operand value LLVM's disassembler builds for an inline
// constant code or a literal (lit is used when code is 255).
func value(s Style, code uint32, lit uint32) uint64 {
	switch {
	case code >= 128 && code <= 192:
		return uint64(code - 128)
	case code >= 193 && code <= 208:
		return uint64(-int64(code - 192))
	case code >= 240 && code <= 248:
		i := code - 240
		switch s {
		case F16, I16, V2F16, V2I16, I16H:
			return f16Inline[i]
		case BF16, V2BF16:
			return bf16Inline[i]
		case F64, I64:
			return f64Inline[i]
		}
		return f32Inline[i]
	}
	if s == F64 {
		return uint64(lit) << 32
	}
	return uint64(lit)
}

// FormatConst returns the text of an inline constant code, or of literal lit
// when code is 255, for an operand of style s.
func FormatConst(s Style, code uint32, lit uint32) string {
	v := value(s, code, lit)
	if code >= 128 && code <= 208 {
		return strconv.FormatInt(int64(v), 10)
	}
	switch s {
	case S32, V2I16:
		if inlineInt(int64(int32(v))) {
			return strconv.Itoa(int(int32(v)))
		}
		if n, ok := f32Names[v&0xffffffff]; ok && v <= 0xffffffff {
			return n
		}
		return hex(v)
	case I16, I16H:
		if code >= 240 && code <= 248 {
			if s == I16H {
				return hex(v)
			}
			return f16Names[v]
		}
		if inlineInt(int64(int32(v))) {
			return strconv.Itoa(int(int32(v)))
		}
		if n, ok := f32Names[v]; ok {
			return n
		}
		return hex(v & 0xffff)
	case BF16:
		if inlineInt(int64(int16(v))) {
			return strconv.Itoa(int(int16(v)))
		}
		if n, ok := bf16Names[v]; ok {
			return n
		}
		return hex(v)
	case F16:
		if inlineInt(int64(int16(v))) {
			return strconv.Itoa(int(int16(v)))
		}
		if n, ok := f16Names[v&0xffff]; ok {
			return n
		}
		return hex(v & 0xffff)
	case V2F16, V2BF16:
		if inlineInt(int64(int32(v))) {
			return strconv.Itoa(int(int32(v)))
		}
		names := f16Names
		if s == V2BF16 {
			names = bf16Names
		}
		if v <= 0xffff {
			if n, ok := names[v]; ok {
				return n
			}
		}
		return hex(v)
	case F64, I64:
		if inlineInt(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		if n, ok := f64Names[v]; ok {
			return n
		}
		if s == F64 {
			return hex(v >> 32)
		}
		return hex(v)
	}
	return hex(v)
}
