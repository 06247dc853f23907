// Package freelist keeps the buffers a finished translation gives back,
// within bounds, so that the next translation writes into memory the last
// one used instead of fresh zeroed memory the collector must then reclaim.
package freelist

import (
	"sync"
	"unsafe"
)

// List is a free list of buffers of one element type, safe for concurrent
// use. The zero List keeps nothing; set its bounds before use.
type List[T any] struct {
	// MaxBytes bounds the bytes of the buffers the list keeps (by
	// capacity), MaxBufs their number; 0 is no bound.
	MaxBytes, MaxBufs int

	mu    sync.Mutex
	bufs  [][]T
	bytes int
}

// size is the byte size of one element.
func (l *List[T]) size() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

// Take returns an empty buffer (length 0) of capacity at least n: a kept
// one or a new one. What a user reads past a taken buffer's length it
// must write first.
func (l *List[T]) Take(n int) []T { return l.TakeMin(n, n) }

// TakeMin is Take for a user that can work with any capacity of at least
// min: a kept buffer of such a capacity, or a new one of capacity n.
func (l *List[T]) TakeMin(min, n int) []T {
	l.mu.Lock()
	for i, b := range l.bufs {
		if cap(b) >= min {
			last := len(l.bufs) - 1
			l.bufs[i] = l.bufs[last]
			l.bufs[last] = nil
			l.bufs = l.bufs[:last]
			l.bytes -= cap(b) * l.size()
			l.mu.Unlock()
			return b[:0]
		}
	}
	l.mu.Unlock()
	return make([]T, 0, n)
}

// Give keeps the distinct buffers of bs (by backing array) while the list
// has room; with clean, their elements up to their length are zeroed first,
// so that the list keeps nothing they point to alive.
func (l *List[T]) Give(bs [][]T, clean bool) {
	size := l.size()
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for n, b := range bs {
		if cap(b) == 0 {
			continue
		}
		p := &b[:1][0]
		for _, x := range bs[:n] {
			if cap(x) > 0 && &x[:1][0] == p {
				continue next
			}
		}
		if l.MaxBufs > 0 && len(l.bufs) >= l.MaxBufs || l.MaxBytes > 0 && l.bytes+cap(b)*size > l.MaxBytes {
			return
		}
		if clean {
			clear(b)
		}
		l.bufs = append(l.bufs, b[:0])
		l.bytes += cap(b) * size
	}
}
