// Package cocache is the on-disk cache of translated code objects. Entries
// are content-addressed: the key is a SHA-256 over the guest bytes, the host
// processor, the translator's name and the rocjitsu version. Files are
// written atomically (temporary file, fsync, rename) and verified by hash on
// every read, so a torn or corrupted entry is a miss, never bad code.
package cocache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Key identifies one translation.
type Key [sha256.Size]byte

// String is the key in hex, as used in file names.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// MakeKey hashes the inputs that decide a translation's output.
func MakeKey(guest []byte, host, translator, version string) Key {
	h := sha256.New()
	in := sha256.Sum256(guest)
	h.Write([]byte("rocjitsu-cocache-v1\x00"))
	h.Write(in[:])
	for _, s := range []string{host, translator, version} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	var k Key
	copy(k[:], h.Sum(nil))
	return k
}

// magic starts every cache file, followed by the SHA-256 of the payload.
const magic = "RJCOC1\n"

// Cache is a directory of cached translations.
type Cache struct {
	Dir string
}

// DefaultDir is $ROCJITSU_CACHE_DIR, else $XDG_CACHE_HOME/rocjitsu, else
// $HOME/.cache/rocjitsu.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("ROCJITSU_CACHE_DIR"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "rocjitsu"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "rocjitsu"), nil
	}
	return "", errors.New("cocache: no ROCJITSU_CACHE_DIR, XDG_CACHE_HOME or HOME")
}

func (c *Cache) path(k Key) string {
	s := k.String()
	return filepath.Join(c.Dir, s[:2], s+".co")
}

// ErrCorrupt marks an entry whose contents do not match its hash.
var ErrCorrupt = errors.New("cocache: corrupt entry")

// Get returns the cached bytes for k. A missing entry is (nil, false, nil);
// a corrupt one is (nil, false, error wrapping ErrCorrupt) and is removed.
func (c *Cache) Get(k Key) ([]byte, bool, error) {
	p := c.path(k)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cocache: %w", err)
	}
	hdr := len(magic) + sha256.Size
	if len(data) < hdr || string(data[:len(magic)]) != magic {
		os.Remove(p)
		return nil, false, fmt.Errorf("%w: %s: bad header", ErrCorrupt, p)
	}
	payload := data[hdr:]
	sum := sha256.Sum256(payload)
	if !bytes.Equal(sum[:], data[len(magic):hdr]) {
		os.Remove(p)
		return nil, false, fmt.Errorf("%w: %s: payload hash mismatch", ErrCorrupt, p)
	}
	return payload, true, nil
}

// Put stores data under k atomically.
func (c *Cache) Put(k Key, data []byte) error {
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cocache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cocache: %w", err)
	}
	tmp := f.Name()
	sum := sha256.Sum256(data)
	_, err = f.Write(append(append([]byte(magic), sum[:]...), data...))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cocache: %w", err)
	}
	return nil
}
