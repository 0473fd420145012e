/* ptxfp.h: the C API of libptxfp, bit-exact CPU evaluation of NVIDIA PTX floating-point
 * instructions. Generated from capi/src/lib.rs by cbindgen; do not edit (regenerate with
 * PTXFP_BLESS=1 cargo test -p ptxfp-capi --test header). C99 and C++. */

#ifndef PTXFP_H
#define PTXFP_H

#include <stddef.h>
#include <stdint.h>

// What a call returns.
typedef enum ptxfp_status {
  PTXFP_OK = 0,
  // A pointer argument that must not be NULL is NULL.
  PTXFP_ERR_NULL_POINTER = 1,
  // The spelling has a word that is no mnemonic, modifier or type, or is not UTF-8.
  PTXFP_ERR_UNKNOWN_SPELLING = 2,
  // The spelling's words are known but PTX does not have their combination.
  PTXFP_ERR_ILLEGAL_SPELLING = 3,
  // The target is not a known `sm_XX`.
  PTXFP_ERR_UNKNOWN_TARGET = 4,
  // The target does not have the instruction (the message names the lowest that does).
  PTXFP_ERR_TARGET_LACKS = 5,
  // The number of operands (or operand buffers) is not one the instruction takes.
  PTXFP_ERR_OPERAND_COUNT = 6,
  // An operand word has bits set above the width of its type.
  PTXFP_ERR_OPERAND_WIDTH = 7,
  // A buffer's word width is not the width of the operand or result type.
  PTXFP_ERR_BUFFER_WIDTH = 8,
  // A buffer is not aligned to its word size.
  PTXFP_ERR_MISALIGNED = 9,
  // A catalog index at or beyond `ptxfp_catalog_len()`.
  PTXFP_ERR_INDEX = 10,
  // A defect of the library (a Rust panic, caught at the boundary).
  PTXFP_ERR_INTERNAL = 11,
} ptxfp_status;

// How well an instruction's bits are established.
typedef enum ptxfp_evidence {
  // IEEE 754 plus NVIDIA's documented NaN, flush-to-zero and saturation rules.
  PTXFP_EVIDENCE_IEEE_EXACT = 0,
  // A model that reproduces published measurements of real GPUs.
  PTXFP_EVIDENCE_HARDWARE_VERIFIED = 1,
  // Follows NVIDIA documentation and ptxas output; no hardware measurement checks it.
  PTXFP_EVIDENCE_DOCUMENTED = 2,
  // A plausible hardware-style model with no public evidence for its exact bits.
  PTXFP_EVIDENCE_MODEL = 3,
  // Public hardware data exists and no known model reproduces it.
  PTXFP_EVIDENCE_NO_MODEL_FITS = 4,
} ptxfp_evidence;

// An instruction prepared for one target: made by `ptxfp_instr_new`, released by
// `ptxfp_instr_free`. Immutable, so one handle may be used from several threads at once.
typedef struct ptxfp_instr ptxfp_instr;

// What a handle evaluates.
typedef struct ptxfp_instr_info {
  // The canonical spelling (owned by the handle).
  const char *spelling;
  // Width of a source operand word in bits: 8, 16, 32 or 64.
  uint32_t source_bits;
  // Width of a result word in bits: 8, 16, 32 or 64.
  uint32_t result_bits;
  // Bit n set: the instruction takes n source operands.
  uint32_t operand_counts;
  // The lowest `sm_XX` (as XX) that has the instruction.
  uint32_t min_sm;
  // The handle's target (as XX).
  uint32_t target_sm;
  enum ptxfp_evidence evidence;
  // The handle's target as PTX spells it: "sm_90", "sm_100a", "sm_120f" (owned by the
  // handle).
  const char *target;
} ptxfp_instr_info;

// One legal (spelling, operand count) pair of the catalog.
typedef struct ptxfp_catalog_entry {
  // The spelling (static storage).
  const char *spelling;
  // The number of source operands.
  uint32_t operands;
  // The lowest `sm_XX` (as XX) that has it, in some variant.
  uint32_t min_sm;
  enum ptxfp_evidence evidence;
  // The lowest target that has it, as `ptxfp_instr_new` takes it: "sm_50", "sm_100f",
  // "sm_100a" (static storage).
  const char *lowest_target;
  // Every target that has it, as `ptxfp ops` lists them: "sm_53+", "sm_50-sm_62",
  // "sm_100f,sm_110f,sm_120f", "sm_100a,sm_103a" (static storage).
  const char *targets;
} ptxfp_catalog_entry;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// The message of the last failed call on the calling thread (empty if none failed). Valid
// until the next failing call on this thread.
const char *ptxfp_last_error(void);

// The name of a status code, as spelled in this header ("PTXFP_OK", ...); "unknown status"
// for a value that is none.
const char *ptxfp_status_name(int status);

// The name `ptxfp ops` gives an evidence level ("ieee-exact", "hardware-verified",
// "documented", "model", "no-model-fits"); "unknown evidence" for a value that is none.
const char *ptxfp_evidence_name(int evidence);

// The library version, e.g. "0.1.0".
const char *ptxfp_version(void);

// The SIMD level the buffer and warp calls use on this processor: "baseline", "avx2" or
// "avx512" (chosen once; the environment variable PTXFP_SIMD can force a lower one).
const char *ptxfp_simd_level(void);

// Make a handle for `spelling` (e.g. "fma.rn.ftz.f32", "MUFU.EX2") on `target` ("sm_90",
// "sm_80", ...; NULL for sm_90). On success `*out` is the handle; on failure it is set to
// NULL and the message says what is wrong and what is legal instead.
//
// # Safety
// `spelling` and a non-NULL `target` are NUL-terminated strings; `out` points to writable
// storage for one pointer.
enum ptxfp_status ptxfp_instr_new(const char *spelling,
                                  const char *target,
                                  struct ptxfp_instr **out);

// Release a handle (NULL is ignored).
//
// # Safety
// `instr` is NULL or a handle from `ptxfp_instr_new` not yet released.
void ptxfp_instr_free(struct ptxfp_instr *instr);

// What the handle evaluates: its spelling, word widths, operand counts, architectures and
// evidence.
//
// # Safety
// `instr` is a live handle or NULL; `out` points to writable storage or is NULL.
enum ptxfp_status ptxfp_instr_get_info(const struct ptxfp_instr *instr,
                                       struct ptxfp_instr_info *out);

// Evaluate once: `operands[0..n_operands]` (bit patterns in the low bits of each word) in,
// the result's bit pattern out. Allocates nothing unless it fails.
//
// # Safety
// `instr` is a live handle or NULL; `operands` points to `n_operands` words (or is NULL
// when `n_operands` is 0); `result` points to one writable word or is NULL.
enum ptxfp_status ptxfp_eval(const struct ptxfp_instr *instr,
                             const uint64_t *operands,
                             size_t n_operands,
                             uint64_t *result);

// Evaluate one warp: lane i (0 ≤ i < 32) is active when bit i of `active_mask` is set, and
// reads `operands[k][i]` for each of the `n_operands` operands; its result goes to
// `results[i]`. Only active lanes' words are read or written. The lanes go through the same
// SIMD kernel as a buffer.
//
// # Safety
// `instr` is a live handle or NULL; `operands` points to `n_operands` pointers (or is NULL
// when `n_operands` is 0), each to 32 words of which the active lanes' are readable;
// `results` points to 32 words of which the active lanes' are writable, or is NULL.
enum ptxfp_status ptxfp_eval_warp(const struct ptxfp_instr *instr,
                                  uint32_t active_mask,
                                  const uint64_t *const *operands,
                                  size_t n_operands,
                                  uint64_t *results);

// Evaluate element-wise over flat buffers of `len` words: `results[j] = instr(sources[0][j],
// sources[1][j], …)`. `source_bits` and `result_bits` state the buffers' word widths (8, 16,
// 32 or 64), which must be the instruction's (`ptxfp_instr_get_info`). `threads` 0 or 1 evaluates
// on the calling thread; n ≥ 2 splits the work over n threads started for this call and
// joined before it returns. A result buffer may be one of the source buffers (in place).
//
// # Safety
// `instr` is a live handle or NULL; `sources` points to `n_sources` pointers (or is NULL when
// `n_sources` is 0), each to `len` readable words of `source_bits`; `results` points to `len`
// writable words of `result_bits`. Buffers may be NULL when `len` is 0.
enum ptxfp_status ptxfp_eval_buffers(const struct ptxfp_instr *instr,
                                     const void *const *sources,
                                     size_t n_sources,
                                     uint32_t source_bits,
                                     void *results,
                                     uint32_t result_bits,
                                     size_t len,
                                     size_t threads);

// The number of catalog entries: one per legal (spelling, operand count) pair.
size_t ptxfp_catalog_len(void);

// Catalog entry `index` (0 ≤ index < `ptxfp_catalog_len()`).
//
// # Safety
// `out` points to writable storage or is NULL.
enum ptxfp_status ptxfp_catalog_get(size_t index, struct ptxfp_catalog_entry *out);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* PTXFP_H */
