// Package wave is a functional interpreter for gfx9 wave64 machine code
// (gfx942 and gfx950): it decodes instructions on the fly with a per-PC
// cache and executes them on a wave's register state.
package wave
