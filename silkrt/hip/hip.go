// Package hip is the HIP provider of silkrt: it dlopens the HIP runtime
// (libamdhip64) with purego, without cgo, and runs Silk bundle entries with
// hipModuleLoadData, hipModuleGetFunction and hipModuleLaunchKernel.
// Nothing happens at package initialization; Open loads the library.
package hip

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/rocjitsu/rocjitsu/silkrt"
)

// LibraryNames are the names Open tries, in order, when
// Options.Library is empty.
var LibraryNames = []string{"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}

// HIP launch parameter tags for the extra argument of hipModuleLaunchKernel.
const (
	hipLaunchParamBufferPointer = 1 // HIP_LAUNCH_PARAM_BUFFER_POINTER
	hipLaunchParamBufferSize    = 2 // HIP_LAUNCH_PARAM_BUFFER_SIZE
	hipLaunchParamEnd           = 3 // HIP_LAUNCH_PARAM_END
)

// hipMemcpyKind values.
const (
	hipMemcpyHostToDevice = 1
	hipMemcpyDeviceToHost = 2
)

// HIP error codes that the provider interprets.
const (
	hipSuccess       = 0
	hipErrorNoDevice = 100
)

// hipErrorNames holds the names of hipError_t values, used when the library
// has no hipGetErrorName.
var hipErrorNames = map[int32]string{
	0: "hipSuccess", 1: "hipErrorInvalidValue", 2: "hipErrorOutOfMemory",
	3: "hipErrorNotInitialized", 4: "hipErrorDeinitialized", 9: "hipErrorInvalidConfiguration",
	17: "hipErrorInvalidDevicePointer", 21: "hipErrorInvalidMemcpyDirection",
	35: "hipErrorInsufficientDriver", 98: "hipErrorInvalidDeviceFunction",
	100: "hipErrorNoDevice", 101: "hipErrorInvalidDevice", 200: "hipErrorInvalidImage",
	201: "hipErrorInvalidContext", 209: "hipErrorNoBinaryForGpu", 218: "hipErrorInvalidKernelFile",
	301: "hipErrorFileNotFound", 302: "hipErrorSharedObjectSymbolNotFound",
	303: "hipErrorSharedObjectInitFailed", 400: "hipErrorInvalidHandle", 401: "hipErrorIllegalState",
	500: "hipErrorNotFound", 600: "hipErrorNotReady", 700: "hipErrorIllegalAddress",
	701: "hipErrorLaunchOutOfResources", 719: "hipErrorLaunchFailure", 999: "hipErrorUnknown",
}

// Error is a failed HIP call.
type Error struct {
	// Func is the HIP function, for example "hipModuleLoadData".
	Func string
	// Code is the hipError_t value.
	Code int32
	// Name is HIP's name for the code, for example "hipErrorInvalidImage".
	Name string
	// Text is hipGetErrorString's description.
	Text string
}

// Error formats the error as "hipFunc: hipErrorName (code): description".
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Func, e.Name, e.Code)
	if e.Text != "" && e.Text != e.Name {
		s += ": " + e.Text
	}
	return s
}

// Options configures Open.
type Options struct {
	// Library is the path or name of the HIP runtime library; empty tries
	// LibraryNames.
	Library string
	// Device is the device index passed to hipSetDevice (when the library
	// has it and there is more than one device).
	Device int
}

// Provider is the HIP provider (a silkrt.Provider).
type Provider struct {
	mu      sync.Mutex
	lib     uintptr
	libPath string
	fn      hipFuncs
	bundle  *silkrt.Bundle
	modules map[string]uintptr // entry name -> hipModule_t
	funcs   map[string]uintptr // entry name -> hipFunction_t
	allocs  silkrt.Allocations
	closed  bool
}

type hipFuncs struct {
	init               func(flags uint32) int32
	getDeviceCount     func(count *int32) int32
	setDevice          func(dev int32) int32
	moduleLoadData     func(module *uintptr, image unsafe.Pointer) int32
	moduleUnload       func(module uintptr) int32
	moduleGetFunction  func(function *uintptr, module uintptr, name string) int32
	moduleLaunchKernel func(f uintptr, gx, gy, gz, bx, by, bz, sharedMem uint32, stream uintptr, kernelParams, extra unsafe.Pointer) int32
	malloc             func(ptr *uintptr, size uintptr) int32
	memcpyToDevice     func(dst uintptr, src unsafe.Pointer, size uintptr, kind int32) int32
	memcpyToHost       func(dst unsafe.Pointer, src uintptr, size uintptr, kind int32) int32
	free               func(ptr uintptr) int32
	deviceSynchronize  func() int32
	getErrorString     func(code int32) string
	getErrorName       func(code int32) string
	haveGetDeviceCount bool
	haveSetDevice      bool
	haveModuleUnload   bool
	haveGetErrorName   bool
}

// Open loads the HIP runtime, resolves the functions the provider uses and
// initializes HIP. A machine without a usable GPU gives an error that
// matches silkrt.ErrNoDevice and carries HIP's error name.
func Open(opts Options) (*Provider, error) {
	names := LibraryNames
	if opts.Library != "" {
		names = []string{opts.Library}
	}
	var lib uintptr
	var path string
	var errs []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			lib, path = h, n
			break
		}
		errs = append(errs, err.Error())
	}
	if lib == 0 {
		return nil, fmt.Errorf("silkrt: hip: cannot load the HIP runtime (%s): %s", strings.Join(names, ", "), strings.Join(errs, "; "))
	}
	h := &Provider{lib: lib, libPath: path, modules: map[string]uintptr{}, funcs: map[string]uintptr{}, allocs: silkrt.Allocations{}}
	if err := h.resolve(); err != nil {
		purego.Dlclose(lib)
		return nil, err
	}
	if err := h.initDevice(opts.Device); err != nil {
		// The library stays loaded: HIP runtimes are not built to be
		// unloaded after hipInit.
		return nil, err
	}
	return h, nil
}

func (h *Provider) resolve() error {
	required := []struct {
		name string
		fptr any
	}{
		{"hipInit", &h.fn.init},
		{"hipModuleLoadData", &h.fn.moduleLoadData},
		{"hipModuleGetFunction", &h.fn.moduleGetFunction},
		{"hipModuleLaunchKernel", &h.fn.moduleLaunchKernel},
		{"hipMalloc", &h.fn.malloc},
		{"hipMemcpy", &h.fn.memcpyToDevice},
		{"hipMemcpy", &h.fn.memcpyToHost},
		{"hipFree", &h.fn.free},
		{"hipDeviceSynchronize", &h.fn.deviceSynchronize},
		{"hipGetErrorString", &h.fn.getErrorString},
	}
	var missing []string
	for _, r := range required {
		sym, err := purego.Dlsym(h.lib, r.name)
		if err != nil || sym == 0 {
			missing = append(missing, r.name)
			continue
		}
		purego.RegisterFunc(r.fptr, sym)
	}
	if len(missing) > 0 {
		return fmt.Errorf("silkrt: hip: %s lacks %s", h.libPath, strings.Join(missing, ", "))
	}
	optional := []struct {
		name string
		fptr any
		have *bool
	}{
		{"hipGetDeviceCount", &h.fn.getDeviceCount, &h.fn.haveGetDeviceCount},
		{"hipSetDevice", &h.fn.setDevice, &h.fn.haveSetDevice},
		{"hipModuleUnload", &h.fn.moduleUnload, &h.fn.haveModuleUnload},
		{"hipGetErrorName", &h.fn.getErrorName, &h.fn.haveGetErrorName},
	}
	for _, o := range optional {
		if sym, err := purego.Dlsym(h.lib, o.name); err == nil && sym != 0 {
			purego.RegisterFunc(o.fptr, sym)
			*o.have = true
		}
	}
	return nil
}

// check turns a hipError_t into a *Error (nil for hipSuccess).
func (h *Provider) check(fn string, code int32) error {
	if code == hipSuccess {
		return nil
	}
	e := &Error{Func: fn, Code: code}
	if h.fn.haveGetErrorName {
		e.Name = h.fn.getErrorName(code)
	}
	if e.Name == "" || strings.Contains(e.Name, "nknown") && hipErrorNames[code] != "" {
		e.Name = hipErrorNames[code]
	}
	if e.Name == "" {
		e.Name = fmt.Sprintf("hipError(%d)", code)
	}
	e.Text = h.fn.getErrorString(code)
	return e
}

func (h *Provider) initDevice(dev int) error {
	initErr := h.check("hipInit", h.fn.init(0))
	var count int32 = -1
	var countErr error
	if h.fn.haveGetDeviceCount {
		countErr = h.check("hipGetDeviceCount", h.fn.getDeviceCount(&count))
	}
	noDevice := count == 0 || isHIPCode(countErr, hipErrorNoDevice) || isHIPCode(initErr, hipErrorNoDevice)
	if noDevice {
		return &noDeviceError{lib: h.libPath, causes: nonNil(initErr, countErr)}
	}
	if initErr != nil {
		return fmt.Errorf("silkrt: hip (%s): %w", h.libPath, initErr)
	}
	if countErr != nil {
		return fmt.Errorf("silkrt: hip (%s): %w", h.libPath, countErr)
	}
	if count >= 0 && (dev < 0 || int32(dev) >= count) {
		return fmt.Errorf("silkrt: hip: device %d does not exist (%d devices)", dev, count)
	}
	if h.fn.haveSetDevice && dev != 0 {
		if err := h.check("hipSetDevice", h.fn.setDevice(int32(dev))); err != nil {
			return fmt.Errorf("silkrt: hip: %w", err)
		}
	}
	return nil
}

func nonNil(errs ...error) []error {
	var out []error
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		out = append(out, errors.New("hipGetDeviceCount reports 0 devices"))
	}
	return out
}

// noDeviceError is OpenHIP's error on a machine without a usable GPU; it
// matches silkrt.ErrNoDevice and unwraps to the HIP errors behind it.
type noDeviceError struct {
	lib    string
	causes []error
}

// Error lists the HIP errors that showed there is no device.
func (e *noDeviceError) Error() string {
	s := "silkrt: hip: " + silkrt.ErrNoDevice.Error() + " (" + e.lib + ")"
	for i, c := range e.causes {
		if i == 0 {
			s += ": "
		} else {
			s += "; "
		}
		s += c.Error()
	}
	return s
}

// Unwrap returns silkrt.ErrNoDevice and the HIP errors.
func (e *noDeviceError) Unwrap() []error { return append([]error{silkrt.ErrNoDevice}, e.causes...) }

func isHIPCode(err error, code int32) bool {
	var he *Error
	return errors.As(err, &he) && he.Code == code
}

// Name returns "hip".
func (h *Provider) Name() string { return "hip" }

// LibraryPath returns the name the HIP runtime was loaded under.
func (h *Provider) LibraryPath() string { return h.libPath }

// Load loads every entry's code object with hipModuleLoadData and resolves
// the kernel with hipModuleGetFunction.
func (h *Provider) Load(b *silkrt.Bundle) error {
	if b.Provider != silkrt.ProviderHIP {
		return fmt.Errorf("silkrt: hip: bundle is for provider %v; HIP loads only hip bundles", b.Provider)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errors.New("silkrt: hip: provider is closed")
	}
	if h.bundle != nil {
		return errors.New("silkrt: hip: a bundle is already loaded")
	}
	modules, funcs := map[string]uintptr{}, map[string]uintptr{}
	fail := func(name string, err error) error {
		// Unload what this call loaded; the provider stays usable.
		if h.fn.haveModuleUnload {
			for _, m := range modules {
				h.fn.moduleUnload(m)
			}
		}
		return fmt.Errorf("silkrt: hip: entry %q: %w", name, err)
	}
	for _, e := range b.Entries {
		var mod uintptr
		code := e.CodeObject
		if err := h.check("hipModuleLoadData", h.fn.moduleLoadData(&mod, unsafe.Pointer(&code[0]))); err != nil {
			return fail(e.Name, err)
		}
		runtime.KeepAlive(code)
		modules[e.Name] = mod
		var fn uintptr
		if err := h.check("hipModuleGetFunction", h.fn.moduleGetFunction(&fn, mod, e.Name)); err != nil {
			return fail(e.Name, err)
		}
		funcs[e.Name] = fn
	}
	h.bundle, h.modules, h.funcs = b, modules, funcs
	return nil
}

// Alloc allocates device memory with hipMalloc.
func (h *Provider) Alloc(size uint64) (silkrt.DevicePtr, error) {
	if size == 0 {
		return 0, errors.New("silkrt: hip: zero-byte allocation")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var p uintptr
	if err := h.check("hipMalloc", h.fn.malloc(&p, uintptr(size))); err != nil {
		return 0, fmt.Errorf("silkrt: hip: %w", err)
	}
	h.allocs[silkrt.DevicePtr(p)] = size
	return silkrt.DevicePtr(p), nil
}

// CopyIn copies host bytes to the device with hipMemcpy (host to device).
func (h *Provider) CopyIn(dst silkrt.DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.allocs.Check(dst, uint64(len(src))); err != nil {
		return err
	}
	if err := h.check("hipMemcpy", h.fn.memcpyToDevice(uintptr(dst), unsafe.Pointer(&src[0]), uintptr(len(src)), hipMemcpyHostToDevice)); err != nil {
		return fmt.Errorf("silkrt: hip: %w", err)
	}
	return nil
}

// CopyOut copies device bytes to the host with hipMemcpy (device to host).
func (h *Provider) CopyOut(dst []byte, src silkrt.DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.allocs.Check(src, uint64(len(dst))); err != nil {
		return err
	}
	if err := h.check("hipMemcpy", h.fn.memcpyToHost(unsafe.Pointer(&dst[0]), uintptr(src), uintptr(len(dst)), hipMemcpyDeviceToHost)); err != nil {
		return fmt.Errorf("silkrt: hip: %w", err)
	}
	return nil
}

// Free releases an allocation with hipFree.
func (h *Provider) Free(p silkrt.DevicePtr) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.allocs[p]; !ok {
		return fmt.Errorf("silkrt: hip: free of %#x, which is not a live allocation", uint64(p))
	}
	delete(h.allocs, p)
	if err := h.check("hipFree", h.fn.free(uintptr(p))); err != nil {
		return fmt.Errorf("silkrt: hip: %w", err)
	}
	return nil
}

// Launch validates the geometry with the AQL dispatch rules, checks the
// kernarg byte count against the bundle entry and calls
// hipModuleLaunchKernel with the arguments passed through
// HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END on the null stream. HIP launches
// whole workgroups, so each grid dimension must be a multiple of the block.
func (h *Provider) Launch(entry string, grid, block silkrt.Dim3, kernargs []byte) error {
	return h.LaunchWith(entry, grid, block, kernargs, silkrt.LaunchOptions{})
}

// LaunchWith is Launch with options; dynamic LDS is passed as
// hipModuleLaunchKernel's sharedMemBytes. HIP has no global offset: a
// nonzero one is an error.
func (h *Provider) LaunchWith(entry string, grid, block silkrt.Dim3, kernargs []byte, opts silkrt.LaunchOptions) error {
	if opts.GlobalOffset != [3]uint64{} {
		return fmt.Errorf("silkrt: hip: global offset %v: hipModuleLaunchKernel has no global offset", opts.GlobalOffset)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bundle == nil {
		return errors.New("silkrt: hip: no bundle loaded")
	}
	e, ok := h.bundle.Entry(entry)
	if !ok {
		return fmt.Errorf("silkrt: hip: bundle has no entry %q", entry)
	}
	if uint64(len(kernargs)) != uint64(e.KernargSize) {
		return fmt.Errorf("silkrt: hip: entry %q takes %d bytes of kernel arguments, got %d", entry, e.KernargSize, len(kernargs))
	}
	if _, err := silkrt.LaunchConfig(grid, block, 0); err != nil {
		return err
	}
	g := [3]uint32{grid.X, grid.Y, grid.Z}
	b := [3]uint32{block.X, block.Y, block.Z}
	var blocks [3]uint32
	for i := range 3 {
		if g[i]%b[i] != 0 {
			return fmt.Errorf("silkrt: hip: grid_size_%s %d is not a multiple of workgroup_size_%s %d", axes[i], g[i], axes[i], b[i])
		}
		blocks[i] = g[i] / b[i]
	}
	// The extra array and what it points to live in pinned Go memory for
	// the duration of the call.
	args := &launchArgs{size: uintptr(len(kernargs))}
	if len(kernargs) > 0 {
		args.buf = make([]byte, len(kernargs))
		copy(args.buf, kernargs)
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(args)
	var bufPtr uintptr // a zero-argument kernel passes a null buffer
	if len(args.buf) > 0 {
		pin.Pin(&args.buf[0])
		bufPtr = uintptr(unsafe.Pointer(&args.buf[0]))
	}
	args.extra = [5]uintptr{
		hipLaunchParamBufferPointer, bufPtr,
		hipLaunchParamBufferSize, uintptr(unsafe.Pointer(&args.size)),
		hipLaunchParamEnd,
	}
	code := h.fn.moduleLaunchKernel(h.funcs[entry], blocks[0], blocks[1], blocks[2], b[0], b[1], b[2], opts.DynamicGroupSegmentSize, 0, nil, unsafe.Pointer(&args.extra[0]))
	runtime.KeepAlive(args)
	if err := h.check("hipModuleLaunchKernel", code); err != nil {
		return fmt.Errorf("silkrt: hip: entry %q: %w", entry, err)
	}
	return nil
}

var axes = [3]string{"x", "y", "z"}

type launchArgs struct {
	extra [5]uintptr
	size  uintptr
	buf   []byte
}

// Synchronize calls hipDeviceSynchronize.
func (h *Provider) Synchronize() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.check("hipDeviceSynchronize", h.fn.deviceSynchronize()); err != nil {
		return fmt.Errorf("silkrt: hip: %w", err)
	}
	return nil
}

// Close frees remaining allocations and unloads the modules. The HIP
// library itself stays loaded.
func (h *Provider) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	for p := range h.allocs {
		errs = append(errs, h.check("hipFree", h.fn.free(uintptr(p))))
	}
	h.allocs = silkrt.Allocations{}
	if h.fn.haveModuleUnload {
		for _, m := range h.modules {
			errs = append(errs, h.check("hipModuleUnload", h.fn.moduleUnload(m)))
		}
	}
	h.modules, h.funcs = map[string]uintptr{}, map[string]uintptr{}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("silkrt: hip: close: %w", err)
	}
	return nil
}
