/*
 * hipdouble: a test double for libamdhip64.so.
 *
 * It exports the HIP functions silkrt's HIP provider resolves, checks every
 * argument the way the HIP runtime documents them, keeps device memory in
 * host memory, and appends one line per call to the file named by
 * HIPDOUBLE_LOG. It does not execute kernels: a launch is checked and
 * recorded (grid, block, kernel argument bytes), nothing more.
 *
 * Environment:
 *   HIPDOUBLE_LOG      call log (appended); no log when unset
 *   HIPDOUBLE_DEVICES  device count (default 1); 0 makes hipInit fail with
 *                      hipErrorNoDevice
 *   HIPDOUBLE_FAIL     "NAME:CODE" makes function NAME return CODE
 *
 * Build: gcc -shared -fPIC -o libamdhip64.so hipdouble.c
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;

enum {
	hipSuccess = 0,
	hipErrorInvalidValue = 1,
	hipErrorOutOfMemory = 2,
	hipErrorNotInitialized = 3,
	hipErrorInvalidConfiguration = 9,
	hipErrorInvalidDevicePointer = 17,
	hipErrorNoDevice = 100,
	hipErrorInvalidDevice = 101,
	hipErrorInvalidImage = 200,
	hipErrorInvalidHandle = 400,
	hipErrorNotFound = 500,
};

static const struct {
	int code;
	const char *name, *text;
} errors[] = {
	{hipSuccess, "hipSuccess", "no error"},
	{hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
	{hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
	{hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
	{hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid configuration argument"},
	{hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
	{hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
	{hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
	{hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
	{hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
	{hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
};

const char *hipGetErrorName(hipError_t e) {
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == e)
			return errors[i].name;
	return "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t e) {
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == e)
			return errors[i].text;
	return "unknown error";
}

static void logf_(const char *fmt, ...) {
	const char *path = getenv("HIPDOUBLE_LOG");
	if (!path)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* ret logs the result of a call and returns it, applying HIPDOUBLE_FAIL. */
static hipError_t ret(const char *fn, hipError_t e) {
	const char *fail = getenv("HIPDOUBLE_FAIL");
	size_t n = strlen(fn);
	if (e == hipSuccess && fail && strncmp(fail, fn, n) == 0 && fail[n] == ':')
		e = atoi(fail + n + 1);
	logf_("  -> %s", hipGetErrorName(e));
	return e;
}

static int initialized;

static int devices(void) {
	const char *d = getenv("HIPDOUBLE_DEVICES");
	return d ? atoi(d) : 1;
}

hipError_t hipInit(unsigned int flags) {
	logf_("hipInit flags=%u", flags);
	if (flags != 0)
		return ret("hipInit", hipErrorInvalidValue);
	if (devices() == 0)
		return ret("hipInit", hipErrorNoDevice);
	initialized = 1;
	return ret("hipInit", hipSuccess);
}

hipError_t hipGetDeviceCount(int *count) {
	logf_("hipGetDeviceCount count=%s", count ? "ptr" : "NULL");
	if (!count)
		return ret("hipGetDeviceCount", hipErrorInvalidValue);
	*count = devices();
	if (*count == 0)
		return ret("hipGetDeviceCount", hipErrorNoDevice);
	return ret("hipGetDeviceCount", hipSuccess);
}

hipError_t hipSetDevice(int dev) {
	logf_("hipSetDevice dev=%d", dev);
	if (!initialized)
		return ret("hipSetDevice", hipErrorNotInitialized);
	if (dev < 0 || dev >= devices())
		return ret("hipSetDevice", hipErrorInvalidDevice);
	return ret("hipSetDevice", hipSuccess);
}

/* ---- memory ---- */

#define MAX_ALLOCS 256
static struct {
	uint8_t *p;
	size_t size;
	int id;
} allocs[MAX_ALLOCS];
static int next_alloc_id = 1;

/* find returns the allocation holding [p, p+n), or -1. */
static int find(const void *p, size_t n) {
	const uint8_t *b = p;
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i].p && b >= allocs[i].p && b < allocs[i].p + allocs[i].size)
			return (size_t)(allocs[i].p + allocs[i].size - b) >= n ? i : -2;
	return -1;
}

hipError_t hipMalloc(void **ptr, size_t size) {
	logf_("hipMalloc ptr=%s size=%zu", ptr ? "ptr" : "NULL", size);
	if (!initialized)
		return ret("hipMalloc", hipErrorNotInitialized);
	if (!ptr || size == 0)
		return ret("hipMalloc", hipErrorInvalidValue);
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].p)
			continue;
		/* 256-byte aligned like device allocations; uninitialized memory is 0xA5. */
		void *p;
		if (posix_memalign(&p, 256, size))
			return ret("hipMalloc", hipErrorOutOfMemory);
		memset(p, 0xA5, size);
		allocs[i].p = p;
		allocs[i].size = size;
		allocs[i].id = next_alloc_id++;
		*ptr = p;
		logf_("  buf#%d", allocs[i].id);
		return ret("hipMalloc", hipSuccess);
	}
	return ret("hipMalloc", hipErrorOutOfMemory);
}

hipError_t hipFree(void *ptr) {
	int i = ptr ? find(ptr, 1) : -1;
	if (i >= 0 && allocs[i].p != ptr)
		i = -1;
	if (i >= 0)
		logf_("hipFree buf#%d", allocs[i].id);
	else
		logf_("hipFree %s", ptr ? "unknown" : "NULL");
	if (!initialized)
		return ret("hipFree", hipErrorNotInitialized);
	if (!ptr)
		return ret("hipFree", hipSuccess);
	if (i < 0)
		return ret("hipFree", hipErrorInvalidDevicePointer);
	free(allocs[i].p);
	allocs[i].p = NULL;
	return ret("hipFree", hipSuccess);
}

static void hexline(char *out, const uint8_t *b, size_t n) {
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t size, int kind) {
	int d = dst ? find(dst, size) : -1, s = src ? find(src, size) : -1;
	char where[64];
	if (kind == 1 && d >= 0)
		snprintf(where, sizeof where, "dst=buf#%d+%zu src=host", allocs[d].id, (size_t)((uint8_t *)dst - allocs[d].p));
	else if (kind == 2 && s >= 0)
		snprintf(where, sizeof where, "dst=host src=buf#%d+%zu", allocs[s].id, (size_t)((const uint8_t *)src - allocs[s].p));
	else
		snprintf(where, sizeof where, "dst=%s src=%s", d >= 0 ? "dev" : d == -2 ? "dev-overrun" : "other", s >= 0 ? "dev" : s == -2 ? "dev-overrun" : "other");
	char data[2 * 64 + 1] = "";
	if (src && size <= 64 && (kind != 2 || s >= 0))
		hexline(data, src, size);
	logf_("hipMemcpy %s size=%zu kind=%d data=%s", where, size, kind, size <= 64 ? data : "...");
	if (!initialized)
		return ret("hipMemcpy", hipErrorNotInitialized);
	if (!dst || !src)
		return ret("hipMemcpy", hipErrorInvalidValue);
	if (kind == 1 && (d < 0 || s != -1))
		return ret("hipMemcpy", hipErrorInvalidValue);
	if (kind == 2 && (s < 0 || d != -1))
		return ret("hipMemcpy", hipErrorInvalidValue);
	if (kind != 1 && kind != 2)
		return ret("hipMemcpy", hipErrorInvalidValue);
	memcpy(dst, src, size);
	return ret("hipMemcpy", hipSuccess);
}

/* ---- modules ---- */

typedef struct {
	uint8_t *image;
	size_t size;
	int id;
} module_t;

typedef struct {
	module_t *mod;
	char name[256];
	int id;
} function_t;

#define MAX_MODULES 64
static module_t *modules[MAX_MODULES];
static function_t *functions[MAX_MODULES * 4];
static int next_module_id = 1, next_function_id = 1;

static uint64_t rd(const uint8_t *p, int n) {
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* elf_size returns the extent of a 64-bit little-endian AMDGPU ELF, or 0. */
static size_t elf_size(const uint8_t *b) {
	if (memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 2 || b[5] != 1)
		return 0;
	if (rd(b + 18, 2) != 224) /* EM_AMDGPU */
		return 0;
	uint64_t shoff = rd(b + 40, 8), shentsize = rd(b + 58, 2), shnum = rd(b + 60, 2);
	uint64_t phoff = rd(b + 32, 8), phentsize = rd(b + 54, 2), phnum = rd(b + 56, 2);
	if (shentsize != 64 || shnum == 0 || shnum > 4096)
		return 0;
	uint64_t end = shoff + shnum * shentsize;
	if (phoff + phnum * phentsize > end)
		end = phoff + phnum * phentsize;
	/* Section contents may follow the section header table. */
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *sh = b + shoff + i * 64;
		if (rd(sh + 4, 4) == 8) /* SHT_NOBITS */
			continue;
		uint64_t e = rd(sh + 24, 8) + rd(sh + 32, 8);
		if (e > end)
			end = e;
	}
	return end;
}

/* has_symbol reports whether .symtab or .dynsym names sym. */
static int has_symbol(const module_t *m, const char *sym) {
	const uint8_t *b = m->image;
	uint64_t shoff = rd(b + 40, 8), shnum = rd(b + 60, 2);
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *sh = b + shoff + i * 64;
		uint32_t type = rd(sh + 4, 4);
		if (type != 2 && type != 11) /* SHT_SYMTAB, SHT_DYNSYM */
			continue;
		uint64_t off = rd(sh + 24, 8), size = rd(sh + 32, 8), link = rd(sh + 40, 4);
		if (link >= shnum || off + size > m->size)
			continue;
		const uint8_t *str = b + shoff + link * 64;
		uint64_t stroff = rd(str + 24, 8), strsize = rd(str + 32, 8);
		if (stroff + strsize > m->size)
			continue;
		for (uint64_t s = 0; s + 24 <= size; s += 24) {
			uint64_t name = rd(b + off + s, 4);
			if (name < strsize && strncmp((const char *)b + stroff + name, sym, strsize - name) == 0)
				return 1;
		}
	}
	return 0;
}

static uint64_t fnv1a(const uint8_t *b, size_t n) {
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

hipError_t hipModuleLoadData(void **module, const void *image) {
	size_t size = image ? elf_size(image) : 0;
	logf_("hipModuleLoadData module=%s image=%s size=%zu fnv=%016llx", module ? "ptr" : "NULL",
		image ? "ptr" : "NULL", size, image && size ? (unsigned long long)fnv1a(image, size) : 0ull);
	if (!initialized)
		return ret("hipModuleLoadData", hipErrorNotInitialized);
	if (!module || !image)
		return ret("hipModuleLoadData", hipErrorInvalidValue);
	if (size == 0)
		return ret("hipModuleLoadData", hipErrorInvalidImage);
	for (int i = 0; i < MAX_MODULES; i++) {
		if (modules[i])
			continue;
		module_t *m = calloc(1, sizeof *m);
		m->image = malloc(size);
		memcpy(m->image, image, size);
		m->size = size;
		m->id = next_module_id++;
		modules[i] = m;
		*module = m;
		logf_("  mod#%d", m->id);
		return ret("hipModuleLoadData", hipSuccess);
	}
	return ret("hipModuleLoadData", hipErrorOutOfMemory);
}

static int module_index(const void *m) {
	for (int i = 0; i < MAX_MODULES; i++)
		if (m && modules[i] == m)
			return i;
	return -1;
}

hipError_t hipModuleUnload(void *module) {
	int i = module_index(module);
	logf_("hipModuleUnload mod#%d", i >= 0 ? modules[i]->id : 0);
	if (i < 0)
		return ret("hipModuleUnload", hipErrorInvalidHandle);
	for (size_t f = 0; f < sizeof functions / sizeof functions[0]; f++)
		if (functions[f] && functions[f]->mod == modules[i]) {
			free(functions[f]);
			functions[f] = NULL;
		}
	free(modules[i]->image);
	free(modules[i]);
	modules[i] = NULL;
	return ret("hipModuleUnload", hipSuccess);
}

hipError_t hipModuleGetFunction(void **function, void *module, const char *kname) {
	int i = module_index(module);
	logf_("hipModuleGetFunction function=%s mod#%d name=%s", function ? "ptr" : "NULL", i >= 0 ? modules[i]->id : 0, kname ? kname : "NULL");
	if (!initialized)
		return ret("hipModuleGetFunction", hipErrorNotInitialized);
	if (!function || !kname)
		return ret("hipModuleGetFunction", hipErrorInvalidValue);
	if (i < 0)
		return ret("hipModuleGetFunction", hipErrorInvalidHandle);
	char kd[300];
	if (strlen(kname) > 255)
		return ret("hipModuleGetFunction", hipErrorNotFound);
	snprintf(kd, sizeof kd, "%s.kd", kname);
	if (!has_symbol(modules[i], kd))
		return ret("hipModuleGetFunction", hipErrorNotFound);
	for (size_t f = 0; f < sizeof functions / sizeof functions[0]; f++) {
		if (functions[f])
			continue;
		function_t *fn = calloc(1, sizeof *fn);
		fn->mod = modules[i];
		strcpy(fn->name, kname);
		fn->id = next_function_id++;
		functions[f] = fn;
		*function = fn;
		logf_("  fn#%d", fn->id);
		return ret("hipModuleGetFunction", hipSuccess);
	}
	return ret("hipModuleGetFunction", hipErrorOutOfMemory);
}

hipError_t hipModuleLaunchKernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
	unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, void *stream,
	void **kernelParams, void **extra) {
	function_t *fn = NULL;
	for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
		if (f && functions[i] == f)
			fn = functions[i];
	size_t argsize = 0;
	const uint8_t *args = NULL;
	int extra_ok = extra && extra[0] == (void *)1 && extra[2] == (void *)2 && extra[4] == (void *)3 && extra[3];
	if (extra_ok) {
		args = extra[1];
		argsize = *(size_t *)extra[3];
	}
	char hex[2 * 4096 + 1] = "";
	if (args && argsize <= 4096)
		hexline(hex, args, argsize);
	logf_("hipModuleLaunchKernel fn#%d(%s) grid=%u,%u,%u block=%u,%u,%u shared=%u stream=%s kernelParams=%s extra=%s args[%zu]=%s",
		fn ? fn->id : 0, fn ? fn->name : "?", gx, gy, gz, bx, by, bz, shared, stream ? "ptr" : "NULL",
		kernelParams ? "ptr" : "NULL", extra ? (extra_ok ? "buffer" : "malformed") : "NULL", argsize, hex);
	if (!initialized)
		return ret("hipModuleLaunchKernel", hipErrorNotInitialized);
	if (!fn)
		return ret("hipModuleLaunchKernel", hipErrorInvalidHandle);
	if (kernelParams && extra)
		return ret("hipModuleLaunchKernel", hipErrorInvalidValue);
	if (extra && !extra_ok)
		return ret("hipModuleLaunchKernel", hipErrorInvalidValue);
	if ((argsize == 0) != (args == NULL) || argsize > 4096)
		return ret("hipModuleLaunchKernel", hipErrorInvalidValue);
	if (gx == 0 || gy == 0 || gz == 0)
		return ret("hipModuleLaunchKernel", hipErrorInvalidValue);
	if (bx == 0 || by == 0 || bz == 0)
		return ret("hipModuleLaunchKernel", hipErrorInvalidConfiguration);
	if ((unsigned long long)bx * by * bz > 1024)
		return ret("hipModuleLaunchKernel", hipErrorInvalidValue);
	if (gx > 0x7fffffffu || gy > 65536 || gz > 65536)
		return ret("hipModuleLaunchKernel", hipErrorInvalidValue);
	if ((unsigned long long)gx * bx > 0xffffffffull)
		return ret("hipModuleLaunchKernel", hipErrorInvalidConfiguration);
	return ret("hipModuleLaunchKernel", hipSuccess);
}

hipError_t hipDeviceSynchronize(void) {
	logf_("hipDeviceSynchronize");
	if (!initialized)
		return ret("hipDeviceSynchronize", hipErrorNotInitialized);
	return ret("hipDeviceSynchronize", hipSuccess);
}
