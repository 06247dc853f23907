module github.com/rocjitsu/rocjitsu

go 1.26.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/vmihailenco/msgpack/v5 v5.4.1
	golang.org/x/sys v0.50.0
)

require github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
