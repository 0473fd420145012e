// A warp executor as a GPU simulator has one: per-thread registers holding raw bits (the
// ptx_reg_t of GPGPU-Sim), an active mask after a divergent branch, and a loop over the
// active lanes. Each static instruction gets one ptxfp handle when the kernel is loaded;
// executing it calls ptxfp per lane (ptxfp_eval) or once per warp (ptxfp_eval_warp).
//
// Build: c++ -std=c++17 -I capi/include examples/warp_executor.cpp -L target/release -lptxfp
// (see the README, "Embedding in a simulator").

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptxfp.h"

namespace {

constexpr int kWarpSize = 32;
constexpr int kRegisters = 8;

// One thread's registers: raw bit patterns, zero-extended to 64 bits.
using Registers = std::array<uint64_t, kRegisters>;

// A decoded static instruction: its ptxfp handle and register operands.
class Instruction {
 public:
  Instruction(const std::string& spelling, const char* target, int dst, std::vector<int> srcs)
      : dst_(dst), srcs_(std::move(srcs)) {
    if (ptxfp_instr_new(spelling.c_str(), target, &handle_) != PTXFP_OK) {
      throw std::runtime_error(std::string("ptxfp: ") + ptxfp_last_error());
    }
  }
  ~Instruction() { ptxfp_instr_free(handle_); }
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;
  Instruction(Instruction&& other) noexcept : handle_(other.handle_), dst_(other.dst_), srcs_(std::move(other.srcs_)) {
    other.handle_ = nullptr;
  }

  // The simulator's per-thread loop: one call per active lane.
  void execute_per_lane(std::array<Registers, kWarpSize>& regs, uint32_t active) const {
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(active >> lane & 1u)) continue;
      uint64_t operands[3];
      for (size_t k = 0; k < srcs_.size(); ++k) operands[k] = regs[lane][srcs_[k]];
      uint64_t result;
      check(ptxfp_eval(handle_, operands, srcs_.size(), &result));
      regs[lane][dst_] = result;
    }
  }

  // The same instruction once per warp: operand columns in, results of active lanes out.
  void execute_per_warp(std::array<Registers, kWarpSize>& regs, uint32_t active) const {
    uint64_t columns[3][kWarpSize];
    const uint64_t* column_ptrs[3] = {columns[0], columns[1], columns[2]};
    uint64_t results[kWarpSize];
    for (size_t k = 0; k < srcs_.size(); ++k) {
      for (int lane = 0; lane < kWarpSize; ++lane) columns[k][lane] = regs[lane][srcs_[k]];
    }
    check(ptxfp_eval_warp(handle_, active, column_ptrs, srcs_.size(), results));
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (active >> lane & 1u) regs[lane][dst_] = results[lane];
    }
  }

 private:
  static void check(ptxfp_status status) {
    if (status != PTXFP_OK) throw std::runtime_error(std::string("ptxfp: ") + ptxfp_last_error());
  }
  ptxfp_instr* handle_ = nullptr;
  int dst_;
  std::vector<int> srcs_;
};

uint64_t f32_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float bits_f32(uint64_t w) {
  uint32_t u = static_cast<uint32_t>(w);
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

}  // namespace

int main() {
  // r3 = fma.rn.f32 r0, r1, r2; r4 = rcp.approx.ftz.f32 r3; r5 = ex2.approx.ftz.f32 r4;
  // r6 = cvt.rn.f16.f32 r5; r7 = mul.rz.ftz.f32 r5, r0
  std::vector<Instruction> program;
  program.emplace_back("fma.rn.f32", "sm_90", 3, std::vector<int>{0, 1, 2});
  program.emplace_back("rcp.approx.ftz.f32", "sm_90", 4, std::vector<int>{3});
  program.emplace_back("ex2.approx.ftz.f32", "sm_90", 5, std::vector<int>{4});
  program.emplace_back("cvt.rn.f16.f32", "sm_90", 6, std::vector<int>{5});
  program.emplace_back("mul.rz.ftz.f32", "sm_90", 7, std::vector<int>{5, 0});

  std::array<Registers, kWarpSize> initial{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    initial[lane][0] = f32_bits(1.0f + 0.125f * static_cast<float>(lane));
    initial[lane][1] = f32_bits(2.0f - 0.5f * static_cast<float>(lane % 5));
    initial[lane][2] = f32_bits(static_cast<float>(lane) / 3.0f);
  }
  // After a divergent branch only the odd lanes and lane 0 run the block.
  const uint32_t active = 0xAAAAAAABu;

  std::array<Registers, kWarpSize> per_lane = initial, per_warp = initial;
  try {
    for (const Instruction& inst : program) {
      inst.execute_per_lane(per_lane, active);
      inst.execute_per_warp(per_warp, active);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  if (per_lane != per_warp) {
    std::fprintf(stderr, "per-lane and per-warp results differ\n");
    return 1;
  }
  // Inactive lanes keep their registers.
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(active >> lane & 1u) && per_warp[lane] != initial[lane]) {
      std::fprintf(stderr, "inactive lane %d was written\n", lane);
      return 1;
    }
  }
  // Lane 0: fma(1, 2, 0) = 2, and rcp.approx(2) = 0.5 exactly (MUFU.RCP of a power of two is
  // exact).
  if (per_warp[0][3] != f32_bits(2.0f) || per_warp[0][4] != f32_bits(0.5f)) {
    std::fprintf(stderr, "lane 0: fma %#llx rcp %#llx\n", static_cast<unsigned long long>(per_warp[0][3]),
                 static_cast<unsigned long long>(per_warp[0][4]));
    return 1;
  }
  for (int lane : {0, 1, 7}) {
    std::printf("lane %2d: fma %-12g rcp %-12g ex2 %-12g f16 %#06llx\n", lane, bits_f32(per_warp[lane][3]),
                bits_f32(per_warp[lane][4]), bits_f32(per_warp[lane][5]),
                static_cast<unsigned long long>(per_warp[lane][6]));
  }
  std::printf("per-lane and per-warp results agree (libptxfp %s, SIMD level %s)\n", ptxfp_version(),
              ptxfp_simd_level());
  return 0;
}
