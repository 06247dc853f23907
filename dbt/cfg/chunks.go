package cfg

import (
	"github.com/rocjitsu/rocjitsu/dbt/internal/freelist"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The free lists of the decoded-instruction chunks, operand chunks and
// word indexes of released graphs (Graph.Release), so that translating one
// object after another decodes into memory the last one used. DecodeInto
// overwrites every field of an instruction it decodes into, so a chunk
// needs no clearing; entries past what a graph decodes are never read. A
// word index is cleared when it is given back.
var (
	freeInsts       = freelist.List[isa.Inst]{MaxBytes: maxFreeChunkBytes}
	freeOperands    = freelist.List[isa.Operand]{MaxBytes: maxFreeChunkBytes}
	freeWordIndexes = freelist.List[*isa.Inst]{MaxBufs: maxFreeWordIndexes}
	freeMemoSlots   = freelist.List[memoSlot]{MaxBufs: maxFreeWordIndexes}
)

// maxFreeChunkBytes bounds the memory each of the chunk lists keeps.
const maxFreeChunkBytes = 8 << 20

// maxFreeWordIndexes bounds the number of word indexes kept, and of decode
// memo tables.
const maxFreeWordIndexes = 8

// instChunk returns a chunk of decoded instructions: a free one (of any
// size) or a new one of n.
func instChunk(n int) []isa.Inst {
	s := freeInsts.TakeMin(1, n)
	return s[:cap(s)]
}

// operandChunk returns a chunk of operands of at least maxOperands: a free
// one or a new one of n.
func operandChunk(n int) []isa.Operand {
	s := freeOperands.TakeMin(maxOperands, n)
	return s[:cap(s)]
}

// wordIndex returns a word index of n nil entries: a released one with
// room, cleared, or a new one.
func wordIndex(n int) []*isa.Inst {
	s := freeWordIndexes.Take(n)[:n]
	clear(s)
	return s
}

// memoSlots returns n empty decode memo slots: a released table with
// room, cleared, or a new one.
func memoSlots(n int) []memoSlot {
	s := freeMemoSlots.Take(n)[:n]
	clear(s)
	return s
}

// Release hands the graph's decoded instructions and operands back for
// the next Build to decode into. Nothing may use the graph, its blocks or
// any of its instructions afterwards (they are overwritten by later
// decodes); a graph that is not released is collected as usual.
func (g *Graph) Release() {
	freeInsts.Give(g.instChunks, false)
	var ops [][]isa.Operand
	for _, c := range g.opChunks {
		if len(c) >= maxOperands {
			ops = append(ops, c)
		}
	}
	freeOperands.Give(ops, false)
	freeWordIndexes.Give([][]*isa.Inst{g.byWord}, true) // keep no instruction alive through the list
	if g.memo.slots != nil {
		freeMemoSlots.Give([][]memoSlot{g.memo.slots}, false)
	}
	*g = Graph{}
}
