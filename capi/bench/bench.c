/* The cost of a call into libptxfp from C, on one core: the median over 31 rounds of the time
 * per lane of
 *   - ptxfp_eval, one call per lane (fma.rn.f32 and the other spellings given), cycling
 *     through 4096 varied operand triples;
 *   - ptxfp_eval_warp, a full warp (32 active lanes) per call.
 * scripts/bench_capi.sh builds the release library and runs it.
 * A first round of each loop warms up and is not counted.
 * Usage: bench [SPELLING...] (default: fma.rn.f32 add.rn.f32 rcp.approx.ftz.f32). */

#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ptxfp.h"

#define N 4096
#define ROUNDS 31
#define CALLS (1 << 20)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v) {
  qsort(v, ROUNDS, sizeof *v, by_value);
  return v[ROUNDS / 2];
}

/* Mostly normal f32 values within 2^±20 of 1, of either sign; one in 16 a zero, subnormal,
 * infinity or NaN (as in benches/scalar.rs). */
static uint32_t operand(uint64_t *state) {
  uint64_t r;
  uint32_t sign, frac;
  *state = *state * 6364136223846793005u + 1442695040888963407u;
  r = *state;
  sign = (uint32_t)(r >> 63) << 31;
  frac = (uint32_t)(r >> 8) & 0x7FFFFF;
  if ((r >> 40) & 15) return sign | (107 + (uint32_t)((r >> 44) % 41)) << 23 | frac;
  switch ((r >> 48) % 4) {
    case 0: return sign;
    case 1: return sign | (frac >> 3 | 1);
    case 2: return sign | 0x7F800000u;
    default: return 0x7FC00000u | frac;
  }
}

int main(int argc, char **argv) {
  static const char *defaults[] = {"fma.rn.f32", "add.rn.f32", "rcp.approx.ftz.f32"};
  const char **spellings = argc > 1 ? (const char **)(argv + 1) : defaults;
  int count = argc > 1 ? argc - 1 : 3, s, round;
  static uint64_t ops[3][N];
  uint64_t state = 42, sink = 0;
  size_t i, k;

  for (k = 0; k < 3; k++)
    for (i = 0; i < N; i++) ops[k][i] = operand(&state);
  printf("libptxfp %s, SIMD level %s; median of %d rounds, ns per lane\n", ptxfp_version(), ptxfp_simd_level(),
         ROUNDS);
  for (s = 0; s < count; s++) {
    ptxfp_instr *h = NULL;
    ptxfp_instr_info info;
    double single[ROUNDS], warp[ROUNDS];
    size_t n;
    if (ptxfp_instr_new(spellings[s], NULL, &h) != PTXFP_OK || ptxfp_instr_get_info(h, &info) != PTXFP_OK) {
      fprintf(stderr, "%s: %s\n", spellings[s], ptxfp_last_error());
      return 1;
    }
    for (n = 0; n < 4 && !(info.operand_counts >> n & 1u); n++) {
    }
    /* Round -1 warms up (caches, clock) and is not counted. */
    for (round = -1; round < ROUNDS; round++) {
      double t0 = now();
      for (i = 0; i < CALLS; i++) {
        uint64_t operands[3], r;
        size_t j = i & (N - 1);
        operands[0] = ops[0][j];
        operands[1] = ops[1][j];
        operands[2] = ops[2][j];
        if (ptxfp_eval(h, operands, n, &r) != PTXFP_OK) return 1;
        sink ^= r;
      }
      if (round >= 0) single[round] = (now() - t0) * 1e9 / CALLS;
    }
    for (round = -1; round < ROUNDS; round++) {
      uint64_t results[32];
      double t0 = now();
      for (i = 0; i < CALLS / 32; i++) {
        size_t j = (i * 32) & (N - 1);
        const uint64_t *columns[3] = {ops[0] + j, ops[1] + j, ops[2] + j};
        if (ptxfp_eval_warp(h, UINT32_MAX, columns, n, results) != PTXFP_OK) return 1;
        sink ^= results[i & 31];
      }
      if (round >= 0) warp[round] = (now() - t0) * 1e9 / CALLS;
    }
    printf("%-24s ptxfp_eval %6.2f   ptxfp_eval_warp (32 lanes) %6.2f\n", spellings[s], median(single),
           median(warp));
    ptxfp_instr_free(h);
  }
  return sink == 0x123456789ABCDEFu ? 2 : 0;
}
