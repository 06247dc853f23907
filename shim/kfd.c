// The driver boundary of the simulated GPU: libc interposers for the calls
// libhsakmt, libdrm and rocminfo make on /dev/kfd, the DRM render nodes and
// the KFD sysfs. Active only when ROCJITSU_GPU (or ROCJITSU_CONFIG) is set
// and the library is LD_PRELOADed; everything else goes to libc untouched.
//
// What is decided here, in C, on every call: whether a path or descriptor
// belongs to the simulated driver (a prefix table and a per-descriptor
// byte). What is decided in Go (hsa/kfd, through shim/kfd.go): everything
// the driver answers. Sysfs paths are rewritten into the tree the driver
// generated; device opens return descriptors of the driver's memfds; ioctls
// and mmaps of those descriptors go to Go. A forked child never enters Go:
// its device calls fail cleanly.
#define _GNU_SOURCE
// glibc marks path arguments nonnull; callers still pass NULL at times.
#pragma GCC diagnostic ignored "-Wnonnull-compare"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "shim.h"

// Go side (shim/kfd.go).
extern char *rjKfdStart(void);
extern int rjKfdOpen(int kind, int minor, int flags);
extern int rjKfdIoctl(int fd, int kind, unsigned long req, void *arg);
extern int rjKfdMmapTarget(uint64_t off, uint64_t len, int *fd, int64_t *foff);
extern void rjKfdClose(int fd, int kind);

enum { KIND_NONE = 0, KIND_KFD = 1, KIND_RENDER = 2 };
#define RJ_MAXFD 65536
static unsigned char fdkind[RJ_MAXFD];

static int kfd_wanted = -1;   // -1: not decided yet
static int kfd_on;            // driver started
static char sysroot[PATH_MAX];
static size_t sysroot_len;
static pid_t kfd_pid;
static pthread_once_t kfd_once = PTHREAD_ONCE_INIT;

#define KFD_MAJOR 238

static int kfd_in_child(void) { return kfd_pid != 0 && getpid() != kfd_pid; }

static int wanted(void) {
	if (kfd_wanted < 0) {
		const char *g = getenv("ROCJITSU_GPU");
		const char *c = getenv("ROCJITSU_CONFIG");
		kfd_wanted = (g && *g && strcmp(g, "off") != 0 && strcmp(g, "hardware") != 0) || (c && *c);
	}
	return kfd_wanted;
}

static void kfd_start(void) {
	char *root = rjKfdStart();
	if (root && strlen(root) < sizeof sysroot) {
		strcpy(sysroot, root);
		sysroot_len = strlen(root);
		kfd_pid = getpid();
		kfd_on = 1;
	}
	free(root);
}

// active reports whether the simulated driver serves this process, starting
// it on first use.
static int active(void) {
	if (!wanted())
		return 0;
	if (kfd_in_child())
		return kfd_on;
	pthread_once(&kfd_once, kfd_start);
	return kfd_on;
}

// Real libc entry points, resolved on first use.
#define REAL(ret, name, ...)                                                    \
	static ret (*real_##name)(__VA_ARGS__);                                 \
	static ret (*get_##name(void))(__VA_ARGS__) {                           \
		if (!real_##name)                                               \
			real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name); \
		return real_##name;                                             \
	}

REAL(int, open, const char *, int, ...)
REAL(int, open64, const char *, int, ...)
REAL(int, openat, int, const char *, int, ...)
REAL(int, openat64, int, const char *, int, ...)
REAL(int, __open_2, const char *, int)
REAL(int, __open64_2, const char *, int)
REAL(int, __openat_2, int, const char *, int)
REAL(int, __openat64_2, int, const char *, int)
REAL(FILE *, fopen, const char *, const char *)
REAL(FILE *, fopen64, const char *, const char *)
REAL(DIR *, opendir, const char *)
REAL(int, stat, const char *, struct stat *)
REAL(int, lstat, const char *, struct stat *)
REAL(int, stat64, const char *, struct stat64 *)
REAL(int, lstat64, const char *, struct stat64 *)
REAL(int, fstat, int, struct stat *)
REAL(int, fstat64, int, struct stat64 *)
REAL(int, fstatat, int, const char *, struct stat *, int)
REAL(int, fstatat64, int, const char *, struct stat64 *, int)
REAL(int, __xstat, int, const char *, struct stat *)
REAL(int, __lxstat, int, const char *, struct stat *)
REAL(int, __xstat64, int, const char *, struct stat64 *)
REAL(int, __lxstat64, int, const char *, struct stat64 *)
REAL(int, __fxstat, int, int, struct stat *)
REAL(int, __fxstat64, int, int, struct stat64 *)
REAL(int, statx, int, const char *, int, unsigned int, struct statx *)
REAL(int, access, const char *, int)
REAL(int, faccessat, int, const char *, int, int)
REAL(ssize_t, readlink, const char *, char *, size_t)
REAL(ssize_t, readlinkat, int, const char *, char *, size_t)
REAL(char *, realpath, const char *, char *)
REAL(int, close, int)
REAL(int, dup, int)
REAL(int, dup2, int, int)
REAL(int, dup3, int, int, int)
REAL(int, fcntl, int, int, ...)
REAL(int, fcntl64, int, int, ...)
REAL(int, ioctl, int, unsigned long, ...)
REAL(void *, mmap, void *, size_t, int, int, int, off_t)
REAL(void *, mmap64, void *, size_t, int, int, int, off64_t)

// Paths the driver serves from its sysfs tree.
static const char *const redirected[] = {
	"/sys/devices/virtual/kfd",
	"/sys/class/kfd",
	"/sys/class/drm",
	"/sys/dev/char/226:",
	"/sys/module/amdgpu",
	"/sys/devices/pci0000:00/0000:0",
	"/sys/bus/pci/drivers/amdgpu",
	"/dev/dri",
	NULL,
};

static int has_prefix(const char *p, const char *pre) {
	size_t n = strlen(pre);
	if (strncmp(p, pre, n) != 0)
		return 0;
	// a whole component, or the prefix ends in a separator-like char
	return p[n] == 0 || p[n] == '/' || pre[n - 1] == ':' || pre[n - 1] == '0';
}

static int prefix_match(const char *p) {
	if (!p || p[0] != '/' || (p[1] != 's' && p[1] != 'd'))
		return 0;
	for (int i = 0; redirected[i]; i++)
		if (has_prefix(p, redirected[i]))
			return 1;
	return 0;
}

// rewrite returns the path to use for p: p itself, or buf holding the
// sysfs-tree path.
static const char *rewrite(const char *p, char *buf) {
	if (!prefix_match(p) || !active())
		return p;
	if (sysroot_len + strlen(p) + 1 > PATH_MAX)
		return p;
	memcpy(buf, sysroot, sysroot_len);
	strcpy(buf + sysroot_len, p);
	return buf;
}

// device classifies a device path: KIND_KFD, KIND_RENDER (with its minor)
// or KIND_NONE.
static int device(const char *p, int *minor) {
	if (!p || p[0] != '/' || p[1] != 'd')
		return KIND_NONE;
	if (strcmp(p, "/dev/kfd") == 0)
		return active() ? KIND_KFD : KIND_NONE;
	if (strncmp(p, "/dev/dri/renderD", 16) == 0) {
		char *end;
		long m = strtol(p + 16, &end, 10);
		if (*end || m < 128 || m > 255)
			return KIND_NONE;
		if (!active())
			return KIND_NONE;
		*minor = (int)m;
		return KIND_RENDER;
	}
	return KIND_NONE;
}

static void track(int fd, int kind) {
	if (fd >= 0 && fd < RJ_MAXFD)
		__atomic_store_n(&fdkind[fd], (unsigned char)kind, __ATOMIC_RELEASE);
}

static int kind_of(int fd) {
	if (fd < 0 || fd >= RJ_MAXFD)
		return KIND_NONE;
	return __atomic_load_n(&fdkind[fd], __ATOMIC_ACQUIRE);
}

static int open_device(int kind, int minor, int flags) {
	if (kfd_in_child()) {
		errno = ENOENT; // the forked child has no driver of its own
		return -1;
	}
	int fd = rjKfdOpen(kind, minor, flags);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	track(fd, kind);
	return fd;
}

#define OPEN_BODY(realcall, path, flags)                                  \
	int minor = 0, kind = device(path, &minor);                        \
	if (kind != KIND_NONE)                                             \
		return open_device(kind, minor, flags);                        \
	char buf[PATH_MAX];                                                \
	const char *np = rewrite(path, buf);                               \
	return realcall;

static mode_t open_mode(int flags, va_list ap) {
	if (flags & (O_CREAT | __O_TMPFILE))
		return (mode_t)va_arg(ap, int);
	return 0;
}

int open(const char *path, int flags, ...) {
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	OPEN_BODY(get_open()(np, flags, mode), path, flags)
}

int open64(const char *path, int flags, ...) {
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	OPEN_BODY(get_open64()(np, flags, mode), path, flags)
}

int __open_2(const char *path, int flags) { OPEN_BODY(get___open_2()(np, flags), path, flags) }
int __open64_2(const char *path, int flags) { OPEN_BODY(get___open64_2()(np, flags), path, flags) }

int openat(int dirfd, const char *path, int flags, ...) {
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	OPEN_BODY(get_openat()(dirfd, np, flags, mode), path, flags)
}

int openat64(int dirfd, const char *path, int flags, ...) {
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	OPEN_BODY(get_openat64()(dirfd, np, flags, mode), path, flags)
}

int __openat_2(int dirfd, const char *path, int flags) { OPEN_BODY(get___openat_2()(dirfd, np, flags), path, flags) }
int __openat64_2(int dirfd, const char *path, int flags) { OPEN_BODY(get___openat64_2()(dirfd, np, flags), path, flags) }

static int fopen_flags(const char *mode) {
	int f = strchr(mode, '+') ? O_RDWR : (mode[0] == 'r' ? O_RDONLY : O_WRONLY);
	if (strchr(mode, 'e'))
		f |= O_CLOEXEC;
	return f;
}

static FILE *fopen_device(int kind, int minor, const char *mode) {
	int fd = open_device(kind, minor, fopen_flags(mode));
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

FILE *fopen(const char *path, const char *mode) {
	int minor = 0, kind = device(path, &minor);
	if (kind != KIND_NONE)
		return fopen_device(kind, minor, mode);
	char buf[PATH_MAX];
	return get_fopen()(rewrite(path, buf), mode);
}

FILE *fopen64(const char *path, const char *mode) {
	int minor = 0, kind = device(path, &minor);
	if (kind != KIND_NONE)
		return fopen_device(kind, minor, mode);
	char buf[PATH_MAX];
	return get_fopen64()(rewrite(path, buf), mode);
}

DIR *opendir(const char *path) {
	char buf[PATH_MAX];
	return get_opendir()(rewrite(path, buf));
}

// Device nodes: character devices with the numbers of the real driver.
static int fake_devstat(int kind, int minor, struct stat *st) {
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = kind == KIND_KFD ? makedev(KFD_MAJOR, 0) : makedev(226, minor);
	st->st_nlink = 1;
	st->st_blksize = 4096;
	st->st_ino = kind == KIND_KFD ? 1 : 100 + minor;
	return 0;
}

static void to64(const struct stat *s, struct stat64 *d) {
	memset(d, 0, sizeof *d);
	d->st_dev = s->st_dev;
	d->st_ino = s->st_ino;
	d->st_mode = s->st_mode;
	d->st_nlink = s->st_nlink;
	d->st_rdev = s->st_rdev;
	d->st_blksize = s->st_blksize;
}

static int path_devstat(const char *path, struct stat *st) {
	int minor = 0, kind = device(path, &minor);
	if (kind == KIND_NONE)
		return -1;
	return fake_devstat(kind, minor, st);
}

int stat(const char *path, struct stat *st) {
	if (path_devstat(path, st) == 0)
		return 0;
	char buf[PATH_MAX];
	return get_stat()(rewrite(path, buf), st);
}

int lstat(const char *path, struct stat *st) {
	if (path_devstat(path, st) == 0)
		return 0;
	char buf[PATH_MAX];
	return get_lstat()(rewrite(path, buf), st);
}

int stat64(const char *path, struct stat64 *st) {
	struct stat s;
	if (path_devstat(path, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	char buf[PATH_MAX];
	return get_stat64()(rewrite(path, buf), st);
}

int lstat64(const char *path, struct stat64 *st) {
	struct stat s;
	if (path_devstat(path, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	char buf[PATH_MAX];
	return get_lstat64()(rewrite(path, buf), st);
}

int __xstat(int ver, const char *path, struct stat *st) {
	if (path_devstat(path, st) == 0)
		return 0;
	char buf[PATH_MAX];
	return get___xstat()(ver, rewrite(path, buf), st);
}

int __lxstat(int ver, const char *path, struct stat *st) {
	if (path_devstat(path, st) == 0)
		return 0;
	char buf[PATH_MAX];
	return get___lxstat()(ver, rewrite(path, buf), st);
}

int __xstat64(int ver, const char *path, struct stat64 *st) {
	struct stat s;
	if (path_devstat(path, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	char buf[PATH_MAX];
	return get___xstat64()(ver, rewrite(path, buf), st);
}

int __lxstat64(int ver, const char *path, struct stat64 *st) {
	struct stat s;
	if (path_devstat(path, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	char buf[PATH_MAX];
	return get___lxstat64()(ver, rewrite(path, buf), st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
	if (path && path[0] == '/' && path_devstat(path, st) == 0)
		return 0;
	if ((flags & AT_EMPTY_PATH) && path && !*path && kind_of(dirfd) != KIND_NONE)
		return fake_devstat(kind_of(dirfd), 128, st);
	char buf[PATH_MAX];
	return get_fstatat()(dirfd, rewrite(path, buf), st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) {
	struct stat s;
	if (path && path[0] == '/' && path_devstat(path, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	char buf[PATH_MAX];
	return get_fstatat64()(dirfd, rewrite(path, buf), st, flags);
}

static int render_minor_of(int fd);

static int fd_devstat(int fd, struct stat *st) {
	int k = kind_of(fd);
	if (k == KIND_NONE)
		return -1;
	return fake_devstat(k, k == KIND_RENDER ? render_minor_of(fd) : 0, st);
}

int fstat(int fd, struct stat *st) {
	if (fd_devstat(fd, st) == 0)
		return 0;
	return get_fstat()(fd, st);
}

int fstat64(int fd, struct stat64 *st) {
	struct stat s;
	if (fd_devstat(fd, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	return get_fstat64()(fd, st);
}

int __fxstat(int ver, int fd, struct stat *st) {
	if (fd_devstat(fd, st) == 0)
		return 0;
	return get___fxstat()(ver, fd, st);
}

int __fxstat64(int ver, int fd, struct stat64 *st) {
	struct stat s;
	if (fd_devstat(fd, &s) == 0) {
		to64(&s, st);
		return 0;
	}
	return get___fxstat64()(ver, fd, st);
}

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *sx) {
	struct stat s;
	int k = KIND_NONE, minor = 0;
	if (path && path[0] == '/')
		k = device(path, &minor);
	else if ((flags & AT_EMPTY_PATH) && path && !*path && (k = kind_of(dirfd)) == KIND_RENDER)
		minor = render_minor_of(dirfd);
	if (k != KIND_NONE) {
		fake_devstat(k, minor, &s);
		memset(sx, 0, sizeof *sx);
		sx->stx_mask = STATX_BASIC_STATS;
		sx->stx_mode = s.st_mode;
		sx->stx_nlink = 1;
		sx->stx_ino = s.st_ino;
		sx->stx_rdev_major = major(s.st_rdev);
		sx->stx_rdev_minor = minor(s.st_rdev);
		sx->stx_blksize = 4096;
		return 0;
	}
	char buf[PATH_MAX];
	return get_statx()(dirfd, rewrite(path, buf), flags, mask, sx);
}

int access(const char *path, int mode) {
	int minor = 0;
	if (device(path, &minor) != KIND_NONE)
		return 0;
	char buf[PATH_MAX];
	return get_access()(rewrite(path, buf), mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags) {
	int minor = 0;
	if (path && path[0] == '/' && device(path, &minor) != KIND_NONE)
		return 0;
	char buf[PATH_MAX];
	return get_faccessat()(dirfd, rewrite(path, buf), mode, flags);
}

ssize_t readlink(const char *path, char *out, size_t n) {
	char buf[PATH_MAX];
	return get_readlink()(rewrite(path, buf), out, n);
}

ssize_t readlinkat(int dirfd, const char *path, char *out, size_t n) {
	char buf[PATH_MAX];
	return get_readlinkat()(dirfd, rewrite(path, buf), out, n);
}

// realpath resolves inside the tree and answers with the path the real
// sysfs would give.
char *realpath(const char *path, char *resolved) {
	char buf[PATH_MAX];
	const char *np = rewrite(path, buf);
	char *r = get_realpath()(np, resolved);
	if (r && np == buf && strncmp(r, sysroot, sysroot_len) == 0)
		memmove(r, r + sysroot_len, strlen(r + sysroot_len) + 1);
	return r;
}

int close(int fd) {
	int k = kind_of(fd);
	if (k != KIND_NONE) {
		track(fd, KIND_NONE);
		if (!kfd_in_child())
			rjKfdClose(fd, k);
	}
	return get_close()(fd);
}

static int dup_tracked(int oldfd, int newfd) {
	if (newfd >= 0) {
		int k = kind_of(oldfd);
		if (newfd != oldfd)
			track(newfd, k);
	}
	return newfd;
}

int dup(int fd) { return dup_tracked(fd, get_dup()(fd)); }

int dup2(int fd, int fd2) {
	if (fd2 != fd && kind_of(fd2) != KIND_NONE)
		track(fd2, KIND_NONE);
	return dup_tracked(fd, get_dup2()(fd, fd2));
}

int dup3(int fd, int fd2, int flags) {
	if (fd2 != fd && kind_of(fd2) != KIND_NONE)
		track(fd2, KIND_NONE);
	return dup_tracked(fd, get_dup3()(fd, fd2, flags));
}

int fcntl(int fd, int cmd, ...) {
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	int r = get_fcntl()(fd, cmd, arg);
	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0)
		dup_tracked(fd, r);
	return r;
}

int fcntl64(int fd, int cmd, ...) {
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	int (*f)(int, int, ...) = get_fcntl64();
	if (!f)
		f = get_fcntl();
	int r = f(fd, cmd, arg);
	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0)
		dup_tracked(fd, r);
	return r;
}

int ioctl(int fd, unsigned long req, ...) {
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int k = kind_of(fd);
	if (k == KIND_NONE)
		return get_ioctl()(fd, req, arg);
	if (kfd_in_child()) {
		errno = EBADF; // as the kernel: the device belongs to the process that opened it
		return -1;
	}
	int e = rjKfdIoctl(fd, k, req, arg);
	if (e != 0) {
		errno = e;
		return -1;
	}
	return 0;
}

static void *kfd_mmap(void *addr, size_t len, int prot, int flags, int fd, uint64_t off) {
	if (kfd_in_child()) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	int mfd = -1;
	int64_t foff = 0;
	int e = rjKfdMmapTarget(off, len, &mfd, &foff);
	if (e != 0) {
		errno = e;
		return MAP_FAILED;
	}
	(void)fd;
	return get_mmap()(addr, len, prot, flags, mfd, (off_t)foff);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
	if (kind_of(fd) == KIND_KFD)
		return kfd_mmap(addr, len, prot, flags, fd, (uint64_t)off);
	void *(*f)(void *, size_t, int, int, int, off_t) = get_mmap();
	if (!f)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return f(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off) {
	if (kind_of(fd) == KIND_KFD)
		return kfd_mmap(addr, len, prot, flags, fd, (uint64_t)off);
	void *(*f)(void *, size_t, int, int, int, off64_t) = get_mmap64();
	if (!f)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return f(addr, len, prot, flags, fd, off);
}

// render_minor_of finds the minor of a render descriptor: the driver's memfds
// are named rocjitsu-renderD<minor>, which /proc shows as the link target.
static int render_minor_of(int fd) {
	char p[64], t[256];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	ssize_t n = syscall(SYS_readlink, p, t, sizeof t - 1);
	if (n > 0) {
		t[n] = 0;
		char *s = strstr(t, "rocjitsu-renderD");
		if (s)
			return atoi(s + 16);
	}
	return 128;
}
