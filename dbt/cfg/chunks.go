package cfg

import (
	"sync"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// chunkList is the free list of the decoded-instruction and operand
// chunks of released graphs (Graph.Release), so that translating one
// object after another decodes into memory the last one used instead of
// fresh zeroed memory the collector must then reclaim. DecodeInto
// overwrites every field of an instruction it decodes into, so a chunk
// needs no clearing; entries past what a graph decodes are never read.
type chunkList struct {
	sync.Mutex
	instList [][]isa.Inst
	opList   [][]isa.Operand
	// wordList holds released word indexes (Graph.byWord), at most
	// maxFreeWordIndexes.
	wordList [][]*isa.Inst
	// instBytes and opBytes are what the lists hold, bounded by
	// maxFreeChunkBytes each.
	instBytes, opBytes int
}

// maxFreeChunkBytes bounds the memory each of the chunk lists keeps.
const maxFreeChunkBytes = 8 << 20

// maxFreeWordIndexes bounds the number of word indexes kept.
const maxFreeWordIndexes = 8

// Sizes of the chunk elements, for the bound.
const (
	instBytes    = int(unsafe.Sizeof(isa.Inst{}))
	operandBytes = int(unsafe.Sizeof(isa.Operand{}))
)

// freeChunks is the translation's chunk free list.
var freeChunks chunkList

// insts returns a chunk of decoded instructions: a free one (of any
// size) or a new one of n.
func (c *chunkList) insts(n int) []isa.Inst {
	return popChunk(c, &c.instList, &c.instBytes, instBytes, n)
}

// operands returns a chunk of operands of at least maxOperands: a free
// one or a new one of n.
func (c *chunkList) operands(n int) []isa.Operand {
	return popChunk(c, &c.opList, &c.opBytes, operandBytes, n)
}

// popChunk takes the last chunk of list (held under c's lock), keeping
// bytes, the list's size in bytes of elements of size each, up to date,
// or makes a new chunk of n when the list is empty.
func popChunk[T any](c *chunkList, list *[][]T, bytes *int, size, n int) []T {
	c.Lock()
	if k := len(*list); k > 0 {
		s := (*list)[k-1]
		(*list)[k-1] = nil
		*list = (*list)[:k-1]
		*bytes -= len(s) * size
		c.Unlock()
		return s
	}
	c.Unlock()
	return make([]T, n)
}

// wordIndex returns a word index of n nil entries: a released one with
// room, cleared, or a new one.
func (c *chunkList) wordIndex(n int) []*isa.Inst {
	c.Lock()
	for i, s := range c.wordList {
		if cap(s) >= n {
			last := len(c.wordList) - 1
			c.wordList[i] = c.wordList[last]
			c.wordList[last] = nil
			c.wordList = c.wordList[:last]
			c.Unlock()
			s = s[:n]
			clear(s)
			return s
		}
	}
	c.Unlock()
	return make([]*isa.Inst, n)
}

// Release hands the graph's decoded instructions and operands back for
// the next Build to decode into. Nothing may use the graph, its blocks or
// any of its instructions afterwards (they are overwritten by later
// decodes); a graph that is not released is collected as usual.
func (g *Graph) Release() {
	c := &freeChunks
	c.Lock()
	for _, s := range g.instChunks {
		if c.instBytes+len(s)*instBytes > maxFreeChunkBytes {
			break
		}
		c.instList = append(c.instList, s)
		c.instBytes += len(s) * instBytes
	}
	for _, s := range g.opChunks {
		if len(s) < maxOperands || c.opBytes+len(s)*operandBytes > maxFreeChunkBytes {
			continue
		}
		c.opList = append(c.opList, s)
		c.opBytes += len(s) * operandBytes
	}
	if cap(g.byWord) > 0 && len(c.wordList) < maxFreeWordIndexes {
		clear(g.byWord) // keep no instruction alive through the list
		c.wordList = append(c.wordList, g.byWord[:0])
	}
	c.Unlock()
	*g = Graph{}
}
