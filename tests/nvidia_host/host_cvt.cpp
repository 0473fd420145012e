// The host paths of NVIDIA's low-precision conversion headers (cuda_fp8.hpp, cuda_fp6.hpp,
// cuda_fp4.hpp of the PyPI wheel nvidia-cuda-runtime), one PTX spelling at a time, for
// tests/nvidia_host_code.rs. The headers are installed at test time and never committed
// (their licence does not allow redistribution); this file only calls them.
//
//   host_cvt SPELLING START COUNT     the results of inputs START .. START+COUNT
//   host_cvt SPELLING -               the results of the inputs read from standard input
//                                     (little-endian 32-bit words)
//   host_cvt --list                   every spelling it has, with its destination's bytes
//
// write results to standard output as little-endian words of the destination's width (1, 2
// or 4 bytes). Input i is:
//   - for a spelling from two f32 (d, a, b): a = i, b = rotl(i, 16), so that each lane sees
//     every f32 value once as i runs over 2^32;
//   - for a spelling from f16x2 or bf16x2: the word i;
//   - for an up-conversion: the 16-bit (or 8-bit) source word i.
// An unknown spelling exits with status 2 and a message; a short write with status 3.

#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

float f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t rotl16(uint32_t x) { return (x << 16) | (x >> 16); }

// The two f32 operands of input i: a goes to the upper lane, which the headers' float2 holds
// in .y (their device path issues `cvt... %0, %2, %1` with %2 = x.y).
float2 pair(uint64_t i) {
  float2 v;
  v.y = f32(static_cast<uint32_t>(i));
  v.x = f32(rotl16(static_cast<uint32_t>(i)));
  return v;
}

__half2_raw half2(uint64_t i) {
  __half2_raw h;
  h.x = static_cast<unsigned short>(i & 0xFFFF);
  h.y = static_cast<unsigned short>(i >> 16);
  return h;
}

__nv_bfloat162_raw bf162(uint64_t i) {
  __nv_bfloat162_raw h;
  h.x = static_cast<unsigned short>(i & 0xFFFF);
  h.y = static_cast<unsigned short>(i >> 16);
  return h;
}

uint32_t word(__half2_raw h) { return static_cast<uint32_t>(h.y) << 16 | h.x; }
uint32_t word(__nv_bfloat162_raw h) { return static_cast<uint32_t>(h.y) << 16 | h.x; }

struct Spelling {
  int bytes;  // destination width
  std::function<uint32_t(uint64_t)> eval;
};

std::map<std::string, Spelling> spellings() {
  std::map<std::string, Spelling> m;
  const __nv_saturation_t sat = __NV_SATFINITE, nosat = __NV_NOSAT;
  // FP8 from f32, f16x2 and bf16x2 (round to nearest, satfinite).
  const std::pair<const char *, __nv_fp8_interpretation_t> fp8[] = {{"e4m3x2", __NV_E4M3}, {"e5m2x2", __NV_E5M2}};
  for (auto [name, kind] : fp8) {
    const std::string to = name;
    m["cvt.rn.satfinite." + to + ".f32"] = {2, [kind](uint64_t i) { return uint32_t(__nv_cvt_float2_to_fp8x2(pair(i), __NV_SATFINITE, kind)); }};
    m["cvt.rn.satfinite." + to + ".f16x2"] = {2, [kind](uint64_t i) { return uint32_t(__nv_cvt_halfraw2_to_fp8x2(half2(i), __NV_SATFINITE, kind)); }};
    m["cvt.rn.satfinite." + to + ".bf16x2"] = {2, [kind](uint64_t i) { return uint32_t(__nv_cvt_bfloat16raw2_to_fp8x2(bf162(i), __NV_SATFINITE, kind)); }};
    m["cvt.rn.f16x2." + to] = {4, [kind](uint64_t i) { return word(__nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(i), kind)); }};
    m["cvt.rn.bf16x2." + to] = {4, [kind](uint64_t i) { return word(__nv_cvt_fp8x2_to_bf162raw(__nv_fp8x2_storage_t(i), kind)); }};
  }
  // FP6 and FP4 from f32, f16x2 and bf16x2, to nearest and (PTX 9.4) toward zero; both
  // saturate. FP4 pairs are one byte.
  const std::pair<const char *, cudaRoundMode> fp64_modes[] = {{"rn", cudaRoundNearest}, {"rz", cudaRoundZero}};
  const std::pair<const char *, __nv_fp6_interpretation_t> fp6[] = {{"e2m3x2", __NV_E2M3}, {"e3m2x2", __NV_E3M2}};
  for (auto [mode, rnd] : fp64_modes) {
    const std::string r = mode;
    for (auto [name, kind] : fp6) {
      const std::string to = name;
      m["cvt." + r + ".satfinite." + to + ".f32"] = {2, [kind, rnd](uint64_t i) { return uint32_t(__nv_cvt_float2_to_fp6x2(pair(i), kind, rnd)); }};
      m["cvt." + r + ".satfinite." + to + ".f16x2"] = {2, [kind, rnd](uint64_t i) { return uint32_t(__nv_cvt_halfraw2_to_fp6x2(half2(i), kind, rnd)); }};
      m["cvt." + r + ".satfinite." + to + ".bf16x2"] = {2, [kind, rnd](uint64_t i) { return uint32_t(__nv_cvt_bfloat16raw2_to_fp6x2(bf162(i), kind, rnd)); }};
    }
    m["cvt." + r + ".satfinite.e2m1x2.f32"] = {1, [rnd](uint64_t i) { return uint32_t(__nv_cvt_float2_to_fp4x2(pair(i), __NV_E2M1, rnd)); }};
    m["cvt." + r + ".satfinite.e2m1x2.f16x2"] = {1, [rnd](uint64_t i) { return uint32_t(__nv_cvt_halfraw2_to_fp4x2(half2(i), __NV_E2M1, rnd)); }};
    m["cvt." + r + ".satfinite.e2m1x2.bf16x2"] = {1, [rnd](uint64_t i) { return uint32_t(__nv_cvt_bfloat16raw2_to_fp4x2(bf162(i), __NV_E2M1, rnd)); }};
  }
  for (auto [name, kind] : fp6) {
    const std::string from = name;
    m["cvt.rn.f16x2." + from] = {4, [kind](uint64_t i) { return word(__nv_cvt_fp6x2_to_halfraw2(__nv_fp6x2_storage_t(i), kind)); }};
    m["cvt.rn.bf16x2." + from] = {4, [kind](uint64_t i) { return word(__nv_cvt_fp6x2_to_bf162raw(__nv_fp6x2_storage_t(i), kind)); }};
  }
  m["cvt.rn.f16x2.e2m1x2"] = {4, [](uint64_t i) { return word(__nv_cvt_fp4x2_to_halfraw2(__nv_fp4x2_storage_t(i), __NV_E2M1)); }};
  m["cvt.rn.bf16x2.e2m1x2"] = {4, [](uint64_t i) { return word(__nv_cvt_fp4x2_to_bf162raw(__nv_fp4x2_storage_t(i), __NV_E2M1)); }};
  // ue8m0 from f32 and bf16x2: toward zero or up, saturating or not; and up to bf16x2.
  const std::pair<const char *, cudaRoundMode> e8m0_modes[] = {{"rz", cudaRoundZero}, {"rp", cudaRoundPosInf}};
  for (auto [mode, rnd] : e8m0_modes) {
    const std::string r = mode;
    for (auto [s, saturate] : {std::pair<const char *, __nv_saturation_t>{".satfinite", sat}, {"", nosat}}) {
      const std::string f = s;
      m["cvt." + r + f + ".ue8m0x2.f32"] = {2, [saturate, rnd](uint64_t i) { return uint32_t(__nv_cvt_float2_to_e8m0x2(pair(i), saturate, rnd)); }};
      m["cvt." + r + f + ".ue8m0x2.bf16x2"] = {2, [saturate, rnd](uint64_t i) { return uint32_t(__nv_cvt_bfloat162raw_to_e8m0x2(bf162(i), saturate, rnd)); }};
    }
  }
  m["cvt.rn.bf16x2.ue8m0x2"] = {4, [](uint64_t i) { return word(__nv_cvt_e8m0x2_to_bf162raw(__nv_fp8x2_storage_t(i))); }};
  // ue5m3 (PTX 9.4) from f32, f16x2 and bf16x2 in three directions, and up.
  const std::pair<const char *, cudaRoundMode> ue5m3_modes[] = {{"rn", cudaRoundNearest}, {"rz", cudaRoundZero}, {"rp", cudaRoundPosInf}};
  for (auto [mode, rnd] : ue5m3_modes) {
    const std::string r = mode;
    for (auto [s, saturate] : {std::pair<const char *, __nv_saturation_t>{".satfinite", sat}, {"", nosat}}) {
      const std::string f = s;
      m["cvt." + r + f + ".ue5m3x2.f32"] = {2, [saturate, rnd](uint64_t i) { return uint32_t(__nv_cvt_float2_to_ue5m3x2(pair(i), saturate, rnd)); }};
      m["cvt." + r + f + ".ue5m3x2.f16x2"] = {2, [saturate, rnd](uint64_t i) { return uint32_t(__nv_cvt_half2raw_to_ue5m3x2(half2(i), saturate, rnd)); }};
      m["cvt." + r + f + ".ue5m3x2.bf16x2"] = {2, [saturate, rnd](uint64_t i) { return uint32_t(__nv_cvt_bfloat162raw_to_ue5m3x2(bf162(i), saturate, rnd)); }};
    }
  }
  m["cvt.rn.f16x2.ue5m3x2"] = {4, [](uint64_t i) { return word(__nv_cvt_ue5m3x2_to_halfraw2(__nv_fp8x2_storage_t(i))); }};
  m["cvt.rn.bf16x2.ue5m3x2"] = {4, [](uint64_t i) { return word(__nv_cvt_ue5m3x2_to_bf162raw(__nv_fp8x2_storage_t(i))); }};
  return m;
}

}  // namespace

int main(int argc, char **argv) {
  const auto all = spellings();
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const auto &[name, s] : all) std::printf("%s %d\n", name.c_str(), s.bytes);
    return 0;
  }
  if (argc != 4 && !(argc == 3 && std::strcmp(argv[2], "-") == 0)) {
    std::fprintf(stderr, "usage: host_cvt SPELLING START COUNT | host_cvt SPELLING - | host_cvt --list\n");
    return 2;
  }
  const auto it = all.find(argv[1]);
  if (it == all.end()) {
    std::fprintf(stderr, "host_cvt: no host code for %s\n", argv[1]);
    return 2;
  }
  const Spelling &s = it->second;
  std::vector<unsigned char> buf(size_t(1) << 20);
  if (argc == 3) {
    std::vector<uint32_t> in(buf.size() / 4);
    for (size_t n; (n = std::fread(in.data(), 4, in.size(), stdin)) > 0;) {
      for (size_t k = 0; k < n; k++) {
        const uint32_t r = s.eval(in[k]);
        std::memcpy(&buf[k * s.bytes], &r, s.bytes);
      }
      if (std::fwrite(buf.data(), s.bytes, n, stdout) != n) return 3;
    }
    return std::fflush(stdout) == 0 ? 0 : 3;
  }
  const uint64_t start = std::strtoull(argv[2], nullptr, 0), count = std::strtoull(argv[3], nullptr, 0);
  const size_t per = buf.size() / s.bytes;
  for (uint64_t done = 0; done < count;) {
    const size_t n = size_t(count - done < per ? count - done : per);
    for (size_t k = 0; k < n; k++) {
      const uint32_t r = s.eval(start + done + k);
      std::memcpy(&buf[k * s.bytes], &r, s.bytes);  // little-endian host
    }
    if (std::fwrite(buf.data(), s.bytes, n, stdout) != n) return 3;
    done += n;
  }
  return std::fflush(stdout) == 0 ? 0 : 3;
}
