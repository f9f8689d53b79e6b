// The JSON line of one intercepted call (see capture_record.h).
#define _GNU_SOURCE
#include "capture_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

// A line under construction in a fixed buffer (the longest is under 1.5 KiB).
typedef struct Line {
  char text[4096];
  size_t n;
} Line;

static void put(Line* l, const char* fmt, ...) {
  if (l->n >= sizeof l->text) return;
  va_list ap;
  va_start(ap, fmt);
  const int k = vsnprintf(l->text + l->n, sizeof l->text - l->n, fmt, ap);
  va_end(ap);
  if (k > 0) l->n += (size_t)k;
  if (l->n > sizeof l->text) l->n = sizeof l->text;
}

// Arrays: at most 5 entries (the driver's limit); a NULL pointer is written as an empty array.
static void put_u64s(Line* l, const char* key, const uint64_t* v, unsigned n) {
  put(l, ",\"%s\":[", key);
  for (unsigned i = 0; v && i < n; ++i) put(l, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
  put(l, "]");
}
static void put_u32s(Line* l, const char* key, const uint32_t* v, unsigned n) {
  put(l, ",\"%s\":[", key);
  for (unsigned i = 0; v && i < n; ++i) put(l, "%s%u", i ? "," : "", v[i]);
  put(l, "]");
}
static void put_i32s(Line* l, const char* key, const int* v, unsigned n) {
  put(l, ",\"%s\":[", key);
  for (unsigned i = 0; v && i < n; ++i) put(l, "%s%d", i ? "," : "", v[i]);
  put(l, "]");
}

static const char* const kKindName[] = {"tiled", "im2col", "im2col_wide", "tiled"};

// The encoder's arguments, in the jsonl schema.
static void put_params(Line* l, const CaptureCall* c) {
  const unsigned r = c->rank <= 5 ? c->rank : 5;
  put(l, ",\"kind\":\"%s\",\"dtype\":%d,\"rank\":%u", kKindName[c->kind], c->dtype, c->rank);
  put_u64s(l, "dims", c->dims, r);
  put_u64s(l, "strides", c->strides, r ? r - 1 : 0);
  if (c->kind == kCaptureTiled) put_u32s(l, "box", c->box, r);
  put_u32s(l, "elem_strides", c->elem_strides, r);
  if (c->kind == kCaptureIm2col || c->kind == kCaptureIm2colWide) {
    const unsigned corners = c->kind == kCaptureIm2colWide ? 1 : (r > 2 ? r - 2 : 0);
    put_i32s(l, "lower", c->lower, corners);
    put_i32s(l, "upper", c->upper, corners);
    put(l, ",\"channels\":%u,\"pixels\":%u", c->channels, c->pixels);
  }
  if (c->kind == kCaptureIm2colWide) put(l, ",\"mode\":%d", c->mode);
  put(l, ",\"interleave\":%d,\"swizzle\":%d,\"l2\":%d,\"oob\":%d", c->interleave, c->swizzle, c->l2, c->oob);
}

// The 128 bytes the call left in the map (all zeros when it failed: the map holds nothing then).
static void put_bytes(Line* l, const CaptureCall* c) {
  const unsigned char* b = (const unsigned char*)c->map;
  put(l, ",\"bytes\":\"");
  for (int i = 0; i < 128; ++i) put(l, "%02x", c->result == kCudaSuccess && b ? b[i] : 0);
  put(l, "\"");
}

void capture_trace_lookup(const char* how, const char* name) {
  const char* path = getenv("TMAKIT_CAPTURE_TRACE");
  if (!path || !*path || !name) return;
  const int saved_errno = errno;
  Line l = {.n = 0};
  put(&l, "%s %.200s\n", how, name);
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    if (write(fd, l.text, l.n) < 0) { /* nothing to do: the program must not notice the trace */ }
    close(fd);
  }
  errno = saved_errno;
}

void capture_record(const CaptureCall* c) {
  const int saved_errno = errno;  // the program must see the errno the driver left
  Line l = {.n = 0};
  put(&l, "{\"call\":\"%s\",\"via\":\"%s\",\"result\":%d,\"driver\":%s,\"pid\":%ld,\"map\":%llu,\"address\":%llu",
      c->call, c->via, c->result, c->driver ? "true" : "false", (long)getpid(),
      (unsigned long long)(uintptr_t)c->map, (unsigned long long)(uintptr_t)c->address);
  if (c->kind != kCaptureReplaceAddress) put_params(&l, c);
  char cc[8];
  const char* arch = c->driver && c->result != kCudaStubLibrary ? capture_device_arch(cc) : NULL;
  if (arch) put(&l, ",\"arch\":\"%s\",\"cc\":\"%s\"", arch, cc);
  put_bytes(&l, c);
  put(&l, "}\n");
  capture_write_line(l.text, l.n);
  errno = saved_errno;
}

void capture_write_line(const char* text, size_t n) {
  const int saved_errno = errno;
  const char* path = getenv("TMAKIT_CAPTURE");
  const int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : 2;
  if (fd >= 0) {
    if (write(fd, text, n) < 0) { /* nothing to do: the program must not notice the capture */ }
    if (fd != 2) close(fd);
  }
  errno = saved_errno;
}
