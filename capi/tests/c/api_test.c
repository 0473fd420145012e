/* The C API against the Rust library: every catalog spelling on edge operands, through the
 * single call, the warp call and the buffer call, compared with the results the Rust library
 * wrote to the cases file (tests/c_programs.rs); then every error path.
 *
 * Valid C99 and C++17: tests/c_programs.rs compiles it as both, and once with AddressSanitizer
 * and UndefinedBehaviorSanitizer. Usage: api_test CASES_FILE [changed-environment]. With the
 * second argument the program first leaves its floating-point environment as hosts do: rounding
 * upward (fesetround) and, with glibc, the invalid, divide-by-zero and overflow exceptions
 * trapping (feenableexcept); built with gcc's -ffast-math, its startup has also set
 * flush-to-zero and denormals-are-zero. It prints what it set; the results must not change.
 * Exit status 0 when everything holds; each failure is printed. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* feenableexcept */
#endif
#include <fenv.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxfp.h"

/* The most source operands an instruction takes (cvt.rs.satfinite.e4m3x4.f32: four values and
   the random bits). */
#define MAX_OPS 5

static unsigned long failures = 0;

#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      failures++;                                              \
      if (failures <= 40) {                                    \
        fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                          \
        fprintf(stderr, "\n");                                 \
      }                                                        \
    }                                                          \
  } while (0)

/* A status and a message containing `needle`. */
static void expect_error(ptxfp_status got, ptxfp_status want, const char *needle, const char *what) {
  const char *message = ptxfp_last_error();
  CHECK(got == want, "%s: status %s, expected %s (%s)", what, ptxfp_status_name((int)got),
        ptxfp_status_name((int)want), message);
  CHECK(needle == NULL || strstr(message, needle) != NULL, "%s: message '%s' lacks '%s'", what, message,
        needle);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n == 0 ? 1 : n);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

/* A buffer of `n` words of `bits` holding `words`. */
static void *typed(const uint64_t *words, size_t n, uint32_t bits) {
  size_t i;
  void *buf = xmalloc(n * (bits / 8));
  for (i = 0; i < n; i++) {
    if (bits == 8) ((uint8_t *)buf)[i] = (uint8_t)words[i];
    if (bits == 16) ((uint16_t *)buf)[i] = (uint16_t)words[i];
    if (bits == 32) ((uint32_t *)buf)[i] = (uint32_t)words[i];
    if (bits == 64) ((uint64_t *)buf)[i] = words[i];
  }
  return buf;
}

static uint64_t word_at(const void *buf, size_t i, uint32_t bits) {
  if (bits == 8) return ((const uint8_t *)buf)[i];
  if (bits == 16) return ((const uint16_t *)buf)[i];
  if (bits == 32) return ((const uint32_t *)buf)[i];
  return ((const uint64_t *)buf)[i];
}

/* One block of the cases file: a spelling on a target, its operands and the Rust results. */
static unsigned long check_block(const char *spelling, const char *target, unsigned n_ops, size_t n_cases,
                                 uint64_t *ops[MAX_OPS], const uint64_t *want) {
  ptxfp_instr *h = NULL;
  ptxfp_instr_info info;
  size_t i, k, lane, base;
  unsigned long checked = 0;
  const uint64_t sentinel = UINT64_C(0xA5A5A5A5A5A5A5A5);

  ptxfp_status st = ptxfp_instr_new(spelling, target, &h);
  CHECK(st == PTXFP_OK, "%s on %s: %s", spelling, target, ptxfp_last_error());
  if (st != PTXFP_OK) return 0;
  CHECK(ptxfp_instr_get_info(h, &info) == PTXFP_OK, "info of %s", spelling);
  CHECK(strcmp(info.spelling, spelling) == 0, "info spelling %s for %s", info.spelling, spelling);
  CHECK(info.operand_counts & (1u << n_ops), "%s: operand counts %#x lack %u", spelling, info.operand_counts, n_ops);
  CHECK(strcmp(info.target, target) == 0, "%s: target %s", spelling, info.target);

  /* One call per case. */
  for (i = 0; i < n_cases; i++) {
    uint64_t operands[MAX_OPS], r = sentinel;
    for (k = 0; k < n_ops; k++) operands[k] = ops[k][i];
    st = ptxfp_eval(h, operands, n_ops, &r);
    CHECK(st == PTXFP_OK && r == want[i], "%s on %s case %zu: status %d result %#" PRIx64 ", Rust %#" PRIx64,
          spelling, target, i, (int)st, r, want[i]);
    checked++;
  }

  /* Warps of 32 cases; every other warp has a partial mask, and inactive lanes keep their word. */
  for (base = 0; base < n_cases; base += 32) {
    uint64_t columns[MAX_OPS][32], results[32];
    const uint64_t *column_ptrs[MAX_OPS];
    uint32_t mask = ((base / 32) % 2 == 0) ? UINT32_MAX : (uint32_t)(0x9E3779B9u * (uint32_t)(base + 1));
    size_t lanes = n_cases - base < 32 ? n_cases - base : 32;
    if (lanes < 32) mask &= (UINT32_C(1) << lanes) - 1;
    for (k = 0; k < MAX_OPS; k++) {
      for (lane = 0; lane < 32; lane++) columns[k][lane] = (k < n_ops && lane < lanes) ? ops[k][base + lane] : 0;
      column_ptrs[k] = columns[k];
    }
    for (lane = 0; lane < 32; lane++) results[lane] = sentinel;
    st = ptxfp_eval_warp(h, mask, n_ops ? column_ptrs : NULL, n_ops, results);
    CHECK(st == PTXFP_OK, "%s warp: %s", spelling, ptxfp_last_error());
    for (lane = 0; lane < 32; lane++) {
      int active = (mask >> lane) & 1u;
      uint64_t expected = active ? want[base + lane] : sentinel;
      CHECK(results[lane] == expected, "%s on %s warp lane %zu (active %d): %#" PRIx64 ", expected %#" PRIx64,
            spelling, target, base + lane, active, results[lane], expected);
    }
    checked += lanes;
  }

  /* Flat buffers on the calling thread and on two threads, and in place. */
  {
    const void *srcs[MAX_OPS] = {NULL};
    void *bufs[MAX_OPS] = {NULL};
    void *out = xmalloc(n_cases * (info.result_bits / 8));
    size_t threads;
    for (k = 0; k < n_ops; k++) {
      bufs[k] = typed(ops[k], n_cases, info.source_bits);
      srcs[k] = bufs[k];
    }
    for (threads = 0; threads <= 2; threads += 2) {
      memset(out, 0x5A, n_cases * (info.result_bits / 8));
      st = ptxfp_eval_buffers(h, n_ops ? srcs : NULL, n_ops, info.source_bits, out, info.result_bits, n_cases,
                              threads);
      CHECK(st == PTXFP_OK, "%s buffers: %s", spelling, ptxfp_last_error());
      for (i = 0; i < n_cases; i++) {
        uint64_t got = word_at(out, i, info.result_bits);
        CHECK(got == want[i], "%s on %s buffer[%zu] (%zu threads): %#" PRIx64 ", Rust %#" PRIx64, spelling,
              target, i, threads, got, want[i]);
      }
      checked += n_cases;
    }
    if (n_ops > 0 && info.source_bits == info.result_bits) {
      st = ptxfp_eval_buffers(h, srcs, n_ops, info.source_bits, bufs[0], info.result_bits, n_cases, 1);
      CHECK(st == PTXFP_OK, "%s in place: %s", spelling, ptxfp_last_error());
      for (i = 0; i < n_cases; i++) {
        uint64_t got = word_at(bufs[0], i, info.result_bits);
        CHECK(got == want[i], "%s in place [%zu]: %#" PRIx64 ", Rust %#" PRIx64, spelling, i, got, want[i]);
      }
      checked += n_cases;
    }
    for (k = 0; k < MAX_OPS; k++) free(bufs[k]);
    free(out);
  }
  ptxfp_instr_free(h);
  return checked;
}

/* Every catalog entry is listed with a spelling the library accepts. */
static void check_catalog(void) {
  size_t i, n = ptxfp_catalog_len();
  ptxfp_catalog_entry e;
  CHECK(n > 500, "catalog has %zu entries", n);
  for (i = 0; i < n; i++) {
    ptxfp_instr *h = NULL;
    ptxfp_instr_info info;
    CHECK(ptxfp_catalog_get(i, &e) == PTXFP_OK, "entry %zu: %s", i, ptxfp_last_error());
    CHECK(ptxfp_instr_new(e.spelling, e.lowest_target, &h) == PTXFP_OK, "%s on %s: %s", e.spelling,
          e.lowest_target, ptxfp_last_error());
    if (h == NULL) continue;
    CHECK(ptxfp_instr_get_info(h, &info) == PTXFP_OK && (info.operand_counts & (1u << e.operands)) &&
              info.evidence == e.evidence && info.min_sm <= e.min_sm &&
              strcmp(info.target, e.lowest_target) == 0 && strncmp(e.targets, "sm_", 3) == 0,
          "%s: info disagrees with the catalog", e.spelling);
    CHECK(strcmp(ptxfp_evidence_name((int)e.evidence), "unknown evidence") != 0, "%s evidence", e.spelling);
    ptxfp_instr_free(h);
  }
  expect_error(ptxfp_catalog_get(n, &e), PTXFP_ERR_INDEX, "catalog index", "index past the end");
  expect_error(ptxfp_catalog_get(0, NULL), PTXFP_ERR_NULL_POINTER, "out", "NULL entry");
}

static void check_errors(void) {
  ptxfp_instr *h = (ptxfp_instr *)&failures; /* any non-NULL value: a failure must reset it */
  ptxfp_instr *fma = NULL, *f16 = NULL;
  ptxfp_instr_info info;
  uint64_t ops[3] = {0x3F800000u, 0x40000000u, 0x3F800000u}, r = 7;
  const uint64_t *cols[3];
  uint64_t col[32], res[32];
  uint32_t a32[8] = {0}, d32[8] = {0};
  const void *srcs[3];

  expect_error(ptxfp_instr_new(NULL, NULL, &h), PTXFP_ERR_NULL_POINTER, "spelling", "NULL spelling");
  CHECK(h == NULL, "handle not reset on failure");
  expect_error(ptxfp_instr_new("add.f32", NULL, NULL), PTXFP_ERR_NULL_POINTER, "out", "NULL out");
  expect_error(ptxfp_instr_new("fmaa.rn.f32", NULL, &h), PTXFP_ERR_UNKNOWN_SPELLING, "unknown mnemonic",
               "unknown mnemonic");
  expect_error(ptxfp_instr_new("fma.rn.f33", NULL, &h), PTXFP_ERR_UNKNOWN_SPELLING, ".ftz", "unknown word");
  expect_error(ptxfp_instr_new("\xff\xfe", NULL, &h), PTXFP_ERR_UNKNOWN_SPELLING, "UTF-8", "not UTF-8");
  expect_error(ptxfp_instr_new("add.rn.sat.f64", NULL, &h), PTXFP_ERR_ILLEGAL_SPELLING, ".rm .rn .rp .rz",
               "illegal modifier");
  expect_error(ptxfp_instr_new("add.f32", "sm_99", &h), PTXFP_ERR_UNKNOWN_TARGET, "sm_90", "unknown target");
  expect_error(ptxfp_instr_new("tanh.approx.f32", "sm_70", &h), PTXFP_ERR_TARGET_LACKS, "sm_75",
               "missing on the target");
  expect_error(ptxfp_instr_new("RRO.EX2", "sm_90", &h), PTXFP_ERR_TARGET_LACKS, "sm_62", "RRO after sm_6x");
  CHECK(h == NULL, "handle not reset on failure");

  CHECK(ptxfp_instr_new("fma.rn.f32", "sm_90", &fma) == PTXFP_OK, "fma: %s", ptxfp_last_error());
  CHECK(ptxfp_instr_new("abs.f16", "sm_90", &f16) == PTXFP_OK, "abs.f16: %s", ptxfp_last_error());
  CHECK(ptxfp_eval(fma, ops, 3, &r) == PTXFP_OK && r == 0x40400000u, "1*2+1 = %#" PRIx64, r);

  r = 7;
  expect_error(ptxfp_eval(NULL, ops, 3, &r), PTXFP_ERR_NULL_POINTER, "instr", "NULL handle");
  expect_error(ptxfp_eval(fma, NULL, 3, &r), PTXFP_ERR_NULL_POINTER, "operands", "NULL operands");
  expect_error(ptxfp_eval(fma, ops, 3, NULL), PTXFP_ERR_NULL_POINTER, "result", "NULL result");
  expect_error(ptxfp_eval(fma, ops, 2, &r), PTXFP_ERR_OPERAND_COUNT, "takes 3", "two operands for fma");
  ops[1] = UINT64_C(1) << 32;
  expect_error(ptxfp_eval(fma, ops, 3, &r), PTXFP_ERR_OPERAND_WIDTH, "operand 2", "a 33-bit f32 operand");
  CHECK(r == 7, "result written by a failing call");

  /* min.f32 exists on sm_90 with two operands; its three-operand form needs sm_100. */
  {
    ptxfp_instr *min = NULL;
    uint64_t three[3] = {0x3F800000u, 0x40000000u, 0};
    const uint64_t *min_cols[3] = {three, three, three};
    uint32_t buf[32] = {0};
    const void *min_srcs[3] = {buf, buf, buf};
    CHECK(ptxfp_instr_new("min.f32", "sm_90", &min) == PTXFP_OK, "min.f32: %s", ptxfp_last_error());
    CHECK(ptxfp_eval(min, three, 2, &r) == PTXFP_OK && r == 0x3F800000u, "min(1, 2) = %#" PRIx64, r);
    expect_error(ptxfp_eval(min, three, 3, &r), PTXFP_ERR_TARGET_LACKS, "sm_100", "three-input min on sm_90");
    expect_error(ptxfp_eval_warp(min, 1, min_cols, 3, res), PTXFP_ERR_TARGET_LACKS, "sm_100", "warp of it");
    expect_error(ptxfp_eval_buffers(min, min_srcs, 3, 32, buf, 32, 32, 0), PTXFP_ERR_TARGET_LACKS, "sm_100",
                 "buffers of it");
    ptxfp_instr_free(min);
  }

  /* Warp: a wide operand in an inactive lane is never read; in an active lane it fails. */
  memset(col, 0, sizeof col);
  col[5] = UINT64_C(1) << 40;
  cols[0] = col;
  cols[1] = col;
  cols[2] = col;
  CHECK(ptxfp_eval_warp(fma, ~(UINT32_C(1) << 5), cols, 3, res) == PTXFP_OK, "inactive wide lane: %s",
        ptxfp_last_error());
  res[0] = 7;
  expect_error(ptxfp_eval_warp(fma, UINT32_MAX, cols, 3, res), PTXFP_ERR_OPERAND_WIDTH, "lane 5",
               "wide active lane");
  CHECK(res[0] == 7, "warp results written by a failing call");
  expect_error(ptxfp_eval_warp(fma, 1, cols, 1, res), PTXFP_ERR_OPERAND_COUNT, "takes 3", "warp operand count");
  expect_error(ptxfp_eval_warp(fma, 1, NULL, 3, res), PTXFP_ERR_NULL_POINTER, "operands", "NULL warp operands");
  cols[1] = NULL;
  expect_error(ptxfp_eval_warp(fma, 1, cols, 3, res), PTXFP_ERR_NULL_POINTER, "operands[1]", "NULL column");
  expect_error(ptxfp_eval_warp(fma, 1, cols, 3, NULL), PTXFP_ERR_NULL_POINTER, "results", "NULL warp results");
  col[0] = 0x10000; /* 17 bits for a 16-bit operand */
  expect_error(ptxfp_eval_warp(f16, 1, cols, 1, res), PTXFP_ERR_OPERAND_WIDTH, ".f16", "wide f16 lane");

  /* Buffers. */
  srcs[0] = a32;
  srcs[1] = a32;
  srcs[2] = a32;
  CHECK(ptxfp_eval_buffers(fma, srcs, 3, 32, d32, 32, 8, 0) == PTXFP_OK, "buffers: %s", ptxfp_last_error());
  expect_error(ptxfp_eval_buffers(fma, srcs, 3, 16, d32, 32, 8, 0), PTXFP_ERR_BUFFER_WIDTH, "32-bit words",
               "16-bit sources for f32");
  expect_error(ptxfp_eval_buffers(fma, srcs, 3, 32, d32, 64, 8, 0), PTXFP_ERR_BUFFER_WIDTH, "result buffer",
               "64-bit results for f32");
  expect_error(ptxfp_eval_buffers(fma, srcs, 2, 32, d32, 32, 8, 0), PTXFP_ERR_OPERAND_COUNT, "takes 3",
               "two buffers for fma");
  expect_error(ptxfp_eval_buffers(fma, NULL, 3, 32, d32, 32, 8, 0), PTXFP_ERR_NULL_POINTER, "sources",
               "NULL sources");
  srcs[2] = NULL;
  expect_error(ptxfp_eval_buffers(fma, srcs, 3, 32, d32, 32, 8, 0), PTXFP_ERR_NULL_POINTER, "sources[2]",
               "NULL source buffer");
  CHECK(ptxfp_eval_buffers(fma, srcs, 3, 32, NULL, 32, 0, 0) == PTXFP_OK, "empty buffers: %s",
        ptxfp_last_error());
  srcs[2] = a32;
  expect_error(ptxfp_eval_buffers(fma, srcs, 3, 32, NULL, 32, 8, 0), PTXFP_ERR_NULL_POINTER, "results",
               "NULL results");
  srcs[1] = (const char *)a32 + 1;
  expect_error(ptxfp_eval_buffers(fma, srcs, 3, 32, d32, 32, 4, 0), PTXFP_ERR_MISALIGNED, "aligned",
               "misaligned source");
  expect_error(ptxfp_eval_buffers(NULL, srcs, 3, 32, d32, 32, 4, 0), PTXFP_ERR_NULL_POINTER, "instr",
               "NULL handle");

  expect_error(ptxfp_instr_get_info(NULL, &info), PTXFP_ERR_NULL_POINTER, "instr", "info of NULL");
  expect_error(ptxfp_instr_get_info(fma, NULL), PTXFP_ERR_NULL_POINTER, "out", "info into NULL");
  CHECK(strcmp(ptxfp_status_name(PTXFP_ERR_TARGET_LACKS), "PTXFP_ERR_TARGET_LACKS") == 0, "status name");
  CHECK(strcmp(ptxfp_status_name(-1), "unknown status") == 0, "unknown status name");
  CHECK(strcmp(ptxfp_evidence_name(99), "unknown evidence") == 0, "unknown evidence name");
  CHECK(strcmp(ptxfp_evidence_name(PTXFP_EVIDENCE_NO_MODEL_FITS), "no-model-fits") == 0, "no-model-fits name");
  ptxfp_instr_free(NULL);
  ptxfp_instr_free(fma);
  ptxfp_instr_free(f16);
}

/* Large buffers split over threads give what the calling thread gives. */
static void check_threads(void) {
  const size_t n = (size_t)1 << 20;
  uint32_t *a = (uint32_t *)xmalloc(n * 4), *d1 = (uint32_t *)xmalloc(n * 4), *d3 = (uint32_t *)xmalloc(n * 4);
  const void *srcs[3];
  ptxfp_instr *h = NULL;
  size_t i;
  uint32_t x = 12345;
  for (i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    a[i] = x;
  }
  srcs[0] = a;
  srcs[1] = a + 1;
  srcs[2] = a;
  CHECK(ptxfp_instr_new("fma.rz.ftz.f32", NULL, &h) == PTXFP_OK, "%s", ptxfp_last_error());
  CHECK(ptxfp_eval_buffers(h, srcs, 3, 32, d1, 32, n - 1, 0) == PTXFP_OK, "%s", ptxfp_last_error());
  CHECK(ptxfp_eval_buffers(h, srcs, 3, 32, d3, 32, n - 1, 3) == PTXFP_OK, "%s", ptxfp_last_error());
  CHECK(memcmp(d1, d3, (n - 1) * 4) == 0, "three threads differ from one");
  ptxfp_instr_free(h);
  free(a);
  free(d1);
  free(d3);
}

/* Leave the floating-point environment as a host may (see the top of this file), and print
 * what holds: flush-to-zero (a product that underflows is zero), the rounding, the traps. */
static void change_environment(void) {
  volatile float tiny = 1e-30f, scale = 1e-10f;
  float product = tiny * scale;
  CHECK(fesetround(FE_UPWARD) == 0, "fesetround");
#ifdef __GLIBC__
  CHECK(feenableexcept(FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW) != -1, "feenableexcept");
  printf("environment: flush-to-zero %s, rounding %s, traps %s\n", product == 0.0f ? "on" : "off",
         fegetround() == FE_UPWARD ? "upward" : "other", fegetexcept() ? "on" : "off");
#else
  printf("environment: flush-to-zero %s, rounding %s, traps off\n", product == 0.0f ? "on" : "off",
         fegetround() == FE_UPWARD ? "upward" : "other");
#endif
}

int main(int argc, char **argv) {
  FILE *f;
  char spelling[128], target[16];
  unsigned n_ops;
  size_t n_cases, i, k, blocks = 0;
  unsigned long checked = 0;

  if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "changed-environment") != 0) ||
      (f = fopen(argv[1], "r")) == NULL) {
    fprintf(stderr, "usage: api_test CASES_FILE [changed-environment]\n");
    return 2;
  }
  if (argc == 3) change_environment();
  printf("libptxfp %s, SIMD level %s\n", ptxfp_version(), ptxfp_simd_level());
  while (fscanf(f, "%127s %15s %u %zu", spelling, target, &n_ops, &n_cases) == 4) {
    uint64_t *ops[MAX_OPS] = {NULL};
    uint64_t *want = (uint64_t *)xmalloc(n_cases * 8);
    if (n_ops > MAX_OPS) {
      fprintf(stderr, "bad block header for %s\n", spelling);
      return 2;
    }
    for (k = 0; k < n_ops; k++) ops[k] = (uint64_t *)xmalloc(n_cases * 8);
    for (i = 0; i < n_cases; i++) {
      for (k = 0; k < n_ops; k++) {
        if (fscanf(f, "%" SCNx64, &ops[k][i]) != 1) return 2;
      }
      if (fscanf(f, "%" SCNx64, &want[i]) != 1) return 2;
    }
    checked += check_block(spelling, target, n_ops, n_cases, ops, want);
    blocks++;
    for (k = 0; k < n_ops; k++) free(ops[k]);
    free(want);
  }
  fclose(f);
  CHECK(blocks > 500, "only %zu blocks in the cases file", blocks);
  check_catalog();
  check_errors();
  check_threads();
  printf("%zu blocks, %lu results compared with the Rust library, %lu failures\n", blocks, checked, failures);
  return failures == 0 ? 0 : 1;
}
