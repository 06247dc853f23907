/* check.h: what every program of c/rocm shares (C and HIP C++ alike).
 *
 * Output protocol, read by shim/e2erocm: one line per check on stdout,
 *   "ok NAME detail" or "FAIL NAME detail",
 * optional "info NAME detail" lines, and a last line
 *   "PASS N checks" or "FAIL K of N checks failed".
 * Exit status: 0 all checks passed, 1 a check failed, 2 bad usage, 3 the
 * runtime found no device (nothing checked), 124 the watchdog fired (a
 * hang; the line names the last check started).
 */
#ifndef ROCJITSU_ROCM_CHECK_H
#define ROCJITSU_ROCM_CHECK_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_CHECKS 1
#define EXIT_USAGE 2
#define EXIT_NODEVICE 3
#define EXIT_WATCHDOG 124

static int checks_run, checks_failed;
static char check_current[160] = "start";
static const char *check_prog = "program";
static unsigned check_timeout;

/* begin names the check about to run, so a watchdog report can say where
 * the program hung. */
static __attribute__((unused)) void begin(const char *name) {
  size_t i = 0;
  for (; name[i] && i + 1 < sizeof check_current; i++) check_current[i] = name[i];
  check_current[i] = 0;
}

static void vreport(const char *kind, const char *name, const char *fmt, va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%s %s ", kind, name);
  if (n < 0 || n >= (int)sizeof buf) n = 0;
  vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
  /* one write per line: lines of concurrent threads do not mix */
  size_t len = strlen(buf);
  if (len + 1 < sizeof buf) {
    buf[len++] = '\n';
  }
  fflush(stdout);
  ssize_t w = write(1, buf, len);
  (void)w;
}

/* check records one check: ok when cond is true. */
static __attribute__((unused, format(printf, 3, 4))) int check(int cond, const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  __atomic_fetch_add(&checks_run, 1, __ATOMIC_SEQ_CST);
  if (!cond) __atomic_fetch_add(&checks_failed, 1, __ATOMIC_SEQ_CST);
  vreport(cond ? "ok" : "FAIL", name, fmt, ap);
  va_end(ap);
  return cond;
}

/* info prints a line that is not a check. */
static __attribute__((unused, format(printf, 2, 3))) void info(const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("info", name, fmt, ap);
  va_end(ap);
}

static void watchdog_fired(int sig) {
  (void)sig;
  char buf[512];
  int n = snprintf(buf, sizeof buf, "FAIL watchdog %s still running after %u s (hang in: %s)\n", check_prog,
                   check_timeout, check_current);
  if (n > 0) {
    ssize_t w = write(1, buf, (size_t)n);
    (void)w;
  }
  _exit(EXIT_WATCHDOG);
}

/* watchdog arms an alarm: after seconds the program prints a FAIL line
 * naming the check in progress and exits with EXIT_WATCHDOG. */
static __attribute__((unused)) void watchdog(const char *prog, unsigned seconds) {
  check_prog = prog;
  check_timeout = seconds;
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGALRM, watchdog_fired);
  alarm(seconds);
}

/* finish prints the summary line and returns the exit status. */
static __attribute__((unused)) int finish(void) {
  if (checks_failed) {
    printf("FAIL %d of %d checks failed\n", checks_failed, checks_run);
    return EXIT_CHECKS;
  }
  printf("PASS %d checks\n", checks_run);
  return 0;
}

#endif
