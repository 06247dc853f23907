/* spec.h: the dispatch description that hip_module and hsa_run read (C and
 * C++). A spec file has one directive a line:
 *
 *   object PATH              the code object file
 *   kernel NAME              the kernel (its descriptor symbol is NAME.kd)
 *   grid X Y Z               grid size in work-items (need not be a multiple of block)
 *   block X Y Z              work-group size
 *   lds BYTES                dynamic group segment bytes added at dispatch
 *   kernarg HEX              the kernarg segment, buffer addresses left zero
 *   buffer OFFSET SIZE IN OUT
 *                            a global buffer of SIZE bytes whose address goes
 *                            at kernarg OFFSET; it starts as the bytes of file
 *                            IN ("-" = zeros) and its contents after the
 *                            kernel are written to file OUT
 *
 * shim/e2erocm writes these from internal/kernelref cases. */
#ifndef ROCJITSU_ROCM_SPEC_H
#define ROCJITSU_ROCM_SPEC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_MAXBUF 16

struct spec_buffer {
  size_t offset, size;
  char in[512], out[512];
  unsigned char *init; /* size bytes */
};

struct spec {
  char object[512], kernel[256];
  uint32_t grid[3], block[3], lds;
  unsigned char *kernarg;
  size_t kernarg_size;
  int nbuf;
  struct spec_buffer buf[SPEC_MAXBUF];
};

static __attribute__((unused)) int spec_hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* spec_read_file reads a whole file of want bytes. */
static __attribute__((unused)) unsigned char *spec_read_file(const char *path, size_t want, char *err, size_t errlen) {
  unsigned char *p = (unsigned char *)calloc(1, want ? want : 1);
  if (!strcmp(path, "-")) return p;
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot open %s", path);
    free(p);
    return NULL;
  }
  size_t n = fread(p, 1, want, f);
  int extra = fgetc(f);
  fclose(f);
  if (n != want || extra != EOF) {
    snprintf(err, errlen, "%s: want exactly %zu bytes", path, want);
    free(p);
    return NULL;
  }
  return p;
}

/* spec_write_file writes n bytes to path. */
static __attribute__((unused)) int spec_write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  size_t w = fwrite(p, 1, n, f);
  return fclose(f) == 0 && w == n;
}

/* spec_parse reads a spec file; on error it returns 0 with a message in err. */
static __attribute__((unused)) int spec_parse(const char *path, struct spec *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->block[0] = s->block[1] = s->block[2] = 1;
  s->grid[0] = s->grid[1] = s->grid[2] = 1;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "cannot open spec %s", path);
    return 0;
  }
  char *line = NULL;
  size_t cap = 0;
  int lineno = 0, ok = 1;
  while (ok && getline(&line, &cap, f) > 0) {
    lineno++;
    line[strcspn(line, "\r\n")] = 0;
    char word[32];
    int used = 0;
    if (sscanf(line, "%31s %n", word, &used) < 1) continue;
    const char *rest = line + used;
    if (!strcmp(word, "object")) {
      ok = sscanf(rest, "%511s", s->object) == 1;
    } else if (!strcmp(word, "kernel")) {
      ok = sscanf(rest, "%255s", s->kernel) == 1;
    } else if (!strcmp(word, "grid")) {
      ok = sscanf(rest, "%u %u %u", &s->grid[0], &s->grid[1], &s->grid[2]) == 3;
    } else if (!strcmp(word, "block")) {
      ok = sscanf(rest, "%u %u %u", &s->block[0], &s->block[1], &s->block[2]) == 3;
    } else if (!strcmp(word, "lds")) {
      ok = sscanf(rest, "%u", &s->lds) == 1;
    } else if (!strcmp(word, "kernarg")) {
      size_t n = strlen(rest);
      ok = n % 2 == 0;
      free(s->kernarg);
      s->kernarg = (unsigned char *)calloc(1, n / 2 + 1);
      s->kernarg_size = n / 2;
      for (size_t i = 0; ok && i < n / 2; i++) {
        int hi = spec_hex(rest[2 * i]), lo = spec_hex(rest[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        s->kernarg[i] = (unsigned char)(hi << 4 | lo);
      }
    } else if (!strcmp(word, "buffer")) {
      if (s->nbuf == SPEC_MAXBUF) {
        snprintf(err, errlen, "%s:%d: more than %d buffers", path, lineno, SPEC_MAXBUF);
        ok = 0;
        break;
      }
      struct spec_buffer *b = &s->buf[s->nbuf++];
      ok = sscanf(rest, "%zu %zu %511s %511s", &b->offset, &b->size, b->in, b->out) == 4;
      if (ok) {
        b->init = spec_read_file(b->in, b->size, err, errlen);
        if (!b->init) {
          fclose(f);
          free(line);
          return 0;
        }
      }
    } else {
      ok = 0;
    }
    if (!ok) snprintf(err, errlen, "%s:%d: bad line: %s", path, lineno, line);
  }
  fclose(f);
  free(line);
  if (!ok) return 0;
  if (!s->object[0] || !s->kernel[0]) {
    snprintf(err, errlen, "%s: needs object and kernel", path);
    return 0;
  }
  for (int i = 0; i < s->nbuf; i++) {
    if (s->buf[i].offset + 8 > s->kernarg_size) {
      snprintf(err, errlen, "%s: buffer %d at kernarg offset %zu past the %zu-byte kernarg", path, i, s->buf[i].offset,
               s->kernarg_size);
      return 0;
    }
  }
  return 1;
}

/* spec_set_address writes a buffer's address into a copy of the kernarg. */
static __attribute__((unused)) void spec_set_address(unsigned char *kernarg, const struct spec_buffer *b, uint64_t addr) {
  memcpy(kernarg + b->offset, &addr, 8);
}

#endif
