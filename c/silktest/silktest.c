/*
 * silktest links libsilk.a and checks silk_amdgpu_aql_dispatch_packet_build
 * through the C ABI.
 *
 *   silktest          run the built-in table: struct layout, every packet
 *                     field offset, every validation status; exit 1 on any
 *                     failure.
 *   silktest --stdin  read configs, one a line as 16 integers in struct
 *                     order (dimensions, workgroup x y z, grid x y z,
 *                     private, group, max_flat, kernel_object, kernarg,
 *                     completion, barrier, acquire, release); print
 *                     "STATUS HEX64BYTES" per line.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "silk.h"

/* The Go side (silkrt.CConfigOffset*) reads the struct at these offsets. */
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, dimensions) == 0, "dimensions");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, workgroup_size_x) == 2, "wg x");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, workgroup_size_y) == 4, "wg y");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, workgroup_size_z) == 6, "wg z");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, grid_size_x) == 8, "grid x");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, grid_size_y) == 12, "grid y");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, grid_size_z) == 16, "grid z");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, private_segment_size) == 20, "private");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, group_segment_size) == 24, "group");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, max_flat_workgroup_size) == 28, "max flat");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, kernel_object) == 32, "kernel_object");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, kernarg_address) == 40, "kernarg");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, completion_signal) == 48, "signal");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, barrier) == 56, "barrier");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, acquire_fence_scope) == 60, "acquire");
_Static_assert(offsetof(SilkAmdGpuAqlDispatchPacketConfig, release_fence_scope) == 64, "release");
_Static_assert(sizeof(SilkAmdGpuAqlDispatchPacketConfig) == 72, "size");
_Static_assert(SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE == 64, "packet size");

static int failures, checks;

#define CHECK(cond, ...)                                   \
	do {                                               \
		checks++;                                  \
		if (!(cond)) {                             \
			failures++;                        \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);      \
			fputc('\n', stderr);               \
		}                                          \
	} while (0)

static uint64_t field(const uint8_t *p, int off, int size) {
	uint64_t v = 0;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | p[off + i];
	return v;
}

static SilkAmdGpuAqlDispatchPacketConfig base3d(void) {
	SilkAmdGpuAqlDispatchPacketConfig c;
	memset(&c, 0, sizeof c);
	c.dimensions = 3;
	c.workgroup_size_x = 8;
	c.workgroup_size_y = 4;
	c.workgroup_size_z = 2;
	c.grid_size_x = 64;
	c.grid_size_y = 16;
	c.grid_size_z = 6;
	c.private_segment_size = 0x11223344;
	c.group_segment_size = 0x55667788;
	c.kernel_object = 0x0102030405060708ull;
	c.kernarg_address = 0x1112131415161718ull;
	c.completion_signal = 0x2122232425262728ull;
	c.barrier = 1;
	c.acquire_fence_scope = SILK_AMDGPU_AQL_FENCE_SCOPE_SYSTEM;
	c.release_fence_scope = SILK_AMDGPU_AQL_FENCE_SCOPE_AGENT;
	return c;
}

static SilkAmdGpuAqlDispatchPacketConfig base1d(void) {
	SilkAmdGpuAqlDispatchPacketConfig c;
	memset(&c, 0, sizeof c);
	c.dimensions = 1;
	c.workgroup_size_x = 64;
	c.workgroup_size_y = c.workgroup_size_z = 1;
	c.grid_size_x = 256;
	c.grid_size_y = c.grid_size_z = 1;
	return c;
}

static void offsets(void) {
	SilkAmdGpuAqlDispatchPacketConfig c = base3d();
	uint8_t p[SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE];
	memset(p, 0xee, sizeof p);
	int32_t st = silk_amdgpu_aql_dispatch_packet_build(&c, p);
	CHECK(st == SILK_AMDGPU_AQL_STATUS_OK, "status %d", st);
	static const struct {
		const char *name;
		int off, size;
		uint64_t want;
	} f[] = {
		{"header", 0, 2, 2 | 1 << 8 | 2 << 9 | 1 << 11},
		{"setup", 2, 2, 3},
		{"workgroup_size_x", 4, 2, 8},
		{"workgroup_size_y", 6, 2, 4},
		{"workgroup_size_z", 8, 2, 2},
		{"reserved0", 10, 2, 0},
		{"grid_size_x", 12, 4, 64},
		{"grid_size_y", 16, 4, 16},
		{"grid_size_z", 20, 4, 6},
		{"private_segment_size", 24, 4, 0x11223344},
		{"group_segment_size", 28, 4, 0x55667788},
		{"kernel_object", 32, 8, 0x0102030405060708ull},
		{"kernarg_address", 40, 8, 0x1112131415161718ull},
		{"reserved2", 48, 8, 0},
		{"completion_signal", 56, 8, 0x2122232425262728ull},
	};
	int covered = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		uint64_t got = field(p, f[i].off, f[i].size);
		CHECK(got == f[i].want, "%s at %d: got %#" PRIx64 " want %#" PRIx64, f[i].name, f[i].off, got, f[i].want);
		covered += f[i].size;
	}
	CHECK(covered == 64, "fields cover %d bytes", covered);
}

static void rules(void) {
	static const struct {
		const char *name;
		int which; /* 1 = 1D base, 3 = 3D base */
		int set;   /* which mutation */
		int32_t want;
	} t[] = {
		{"ok 1D", 1, 0, SILK_AMDGPU_AQL_STATUS_OK},
		{"ok 3D", 3, 0, SILK_AMDGPU_AQL_STATUS_OK},
		{"dimensions 0", 1, 1, SILK_AMDGPU_AQL_STATUS_INVALID_DIMENSIONS},
		{"dimensions 4", 1, 2, SILK_AMDGPU_AQL_STATUS_INVALID_DIMENSIONS},
		{"zero workgroup x", 1, 3, SILK_AMDGPU_AQL_STATUS_ZERO_WORKGROUP_SIZE},
		{"zero workgroup z", 3, 4, SILK_AMDGPU_AQL_STATUS_ZERO_WORKGROUP_SIZE},
		{"zero grid x", 1, 5, SILK_AMDGPU_AQL_STATUS_ZERO_GRID_SIZE},
		{"zero grid y", 3, 6, SILK_AMDGPU_AQL_STATUS_ZERO_GRID_SIZE},
		{"grid < workgroup", 1, 7, SILK_AMDGPU_AQL_STATUS_GRID_SMALLER_THAN_WORKGROUP},
		{"unused grid y", 1, 8, SILK_AMDGPU_AQL_STATUS_UNUSED_DIMENSION_NOT_ONE},
		{"unused workgroup z", 1, 9, SILK_AMDGPU_AQL_STATUS_UNUSED_DIMENSION_NOT_ONE},
		{"flat 2048 > default 1024", 1, 10, SILK_AMDGPU_AQL_STATUS_FLAT_WORKGROUP_SIZE_TOO_LARGE},
		{"flat 64 > max 32", 1, 11, SILK_AMDGPU_AQL_STATUS_FLAT_WORKGROUP_SIZE_TOO_LARGE},
		{"flat 1024, max 0", 1, 12, SILK_AMDGPU_AQL_STATUS_OK},
		{"acquire scope 3", 1, 13, SILK_AMDGPU_AQL_STATUS_INVALID_FENCE_SCOPE},
		{"release scope -1", 1, 14, SILK_AMDGPU_AQL_STATUS_INVALID_FENCE_SCOPE},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		SilkAmdGpuAqlDispatchPacketConfig c = t[i].which == 3 ? base3d() : base1d();
		switch (t[i].set) {
		case 1: c.dimensions = 0; break;
		case 2: c.dimensions = 4; break;
		case 3: c.workgroup_size_x = 0; break;
		case 4: c.workgroup_size_z = 0; break;
		case 5: c.grid_size_x = 0; break;
		case 6: c.grid_size_y = 0; break;
		case 7: c.grid_size_x = 63; break;
		case 8: c.grid_size_y = 2; break;
		case 9: c.workgroup_size_z = 2; c.grid_size_z = 2; break;
		case 10: c.workgroup_size_x = 2048; c.grid_size_x = 2048; break;
		case 11: c.max_flat_workgroup_size = 32; break;
		case 12: c.workgroup_size_x = 1024; c.grid_size_x = 4096; break;
		case 13: c.acquire_fence_scope = 3; break;
		case 14: c.release_fence_scope = -1; break;
		}
		uint8_t p[SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE];
		memset(p, 0xee, sizeof p);
		int32_t st = silk_amdgpu_aql_dispatch_packet_build(&c, p);
		CHECK(st == t[i].want, "%s: status %d want %d", t[i].name, st, t[i].want);
		if (t[i].want != SILK_AMDGPU_AQL_STATUS_OK) {
			uint8_t zero[64] = {0};
			CHECK(memcmp(p, zero, 64) == 0, "%s: packet not zeroed", t[i].name);
		} else {
			CHECK(field(p, 0, 1) == 2, "%s: packet type %d", t[i].name, p[0]);
		}
	}
	uint8_t p[SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE];
	memset(p, 0xee, sizeof p);
	CHECK(silk_amdgpu_aql_dispatch_packet_build(NULL, p) == SILK_AMDGPU_AQL_STATUS_NULL_POINTER, "NULL config");
	CHECK(p[0] == 0 && p[63] == 0, "NULL config: packet not zeroed");
	SilkAmdGpuAqlDispatchPacketConfig c = base1d();
	CHECK(silk_amdgpu_aql_dispatch_packet_build(&c, NULL) == SILK_AMDGPU_AQL_STATUS_NULL_POINTER, "NULL out");
}

static int from_stdin(void) {
	unsigned long long v[16];
	char line[1024];
	while (fgets(line, sizeof line, stdin)) {
		int n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11],
			&v[12], &v[13], &v[14], &v[15]);
		if (n != 16) {
			fprintf(stderr, "silktest: bad input line: %s", line);
			return 2;
		}
		SilkAmdGpuAqlDispatchPacketConfig c;
		memset(&c, 0, sizeof c);
		c.dimensions = (uint16_t)v[0];
		c.workgroup_size_x = (uint16_t)v[1];
		c.workgroup_size_y = (uint16_t)v[2];
		c.workgroup_size_z = (uint16_t)v[3];
		c.grid_size_x = (uint32_t)v[4];
		c.grid_size_y = (uint32_t)v[5];
		c.grid_size_z = (uint32_t)v[6];
		c.private_segment_size = (uint32_t)v[7];
		c.group_segment_size = (uint32_t)v[8];
		c.max_flat_workgroup_size = (uint32_t)v[9];
		c.kernel_object = v[10];
		c.kernarg_address = v[11];
		c.completion_signal = v[12];
		c.barrier = (uint8_t)v[13];
		c.acquire_fence_scope = (int32_t)v[14];
		c.release_fence_scope = (int32_t)v[15];
		uint8_t p[SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE];
		memset(p, 0xee, sizeof p);
		int32_t st = silk_amdgpu_aql_dispatch_packet_build(&c, p);
		printf("%d ", st);
		for (int i = 0; i < 64; i++)
			printf("%02x", p[i]);
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "--stdin") == 0)
		return from_stdin();
	offsets();
	rules();
	if (failures) {
		fprintf(stderr, "silktest: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("silktest: %d checks passed\n", checks);
	return 0;
}
