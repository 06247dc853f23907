// Command otherruntime is a second Go c-shared library for the shim's
// end-to-end tests: loaded next to librocjitsu.so it puts another Go runtime
// into the process, which the shim must detect and refuse to join.
package main

import "C"

//export OtherRuntimeAlive
func OtherRuntimeAlive() C.int { return 1 }

func main() {}
