// Package e2e holds the end-to-end tests of librocjitsu.so. They build the
// stand-in HSA runtime (c/hsart), the HIP-like application and the second
// tool (c/apps) with gcc, the shim with go build -buildmode=c-shared, and a
// test kernel with clang-19, then run the application under HSA_TOOLS_LIB or
// LD_PRELOAD and check what reached the fake GPU. The package has no code of
// its own.
package e2e
