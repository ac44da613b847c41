// The math library probe of bits_fingerprint(): nhsim's elementary functions (nhsim/dmath.hpp,
// SLEEF) on fixed arguments, so that a build with another SLEEF (or other functions behind
// dmath) has another fingerprint. The arguments were found by evaluating glibc's functions on 2e6
// random arguments with and without GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2_Usable,-FMA_Usable,
// -AVX2,-FMA (glibc 2.36, 2026-11-29): the first three of each function where glibc's two code
// paths differ, i.e. arguments that are hard to round. dmath gives the same bits under both.
#include "nhsim/wire/fingerprint.hpp"

#include <bit>
#include <cstdint>
#include <string>

#include "nhsim/dmath.hpp"
#include "nhsim/wire/spec_hash.hpp"

namespace nhsim::wire {
namespace {

#define NHSIM_STRINGIFY2(x) #x
#define NHSIM_STRINGIFY(x) NHSIM_STRINGIFY2(x)

std::string math_probe() {
  // volatile: the calls are made at run time, by the library this process loaded.
  static const volatile double kSin[] = {0x1.2b4c23b11996p-1, 0x1.e2e0c158d2fp-3,
                                         -0x1.5a68c4844863fp+2};
  static const volatile double kCos[] = {-0x1.f5d3adf3000dp-1, 0x1.7a3ecf710b668p+2,
                                         0x1.4b116f92b1cf8p+0};
  static const volatile double kExp[] = {0x1.39bb0987514f4p+3, -0x1.525202ec7c0b2p+2,
                                         0x1.a2f40f428dbap+1};
  static const volatile double kLog[] = {0x1.5abfb05359d1ap+1, 0x1.3e8940264aee8p+6,
                                         0x1.0d4e7fbd8f5b4p+0};
  static const volatile double kAtan2[][2] = {{-0x1.de984cfeffeep-2, 0x1.735192a8de89cp+2},
                                              {-0x1.d2ac7153d7f42p+2, 0x1.e28aeb2a7625p+2},
                                              {0x1.e737579ab8958p+2, 0x1.2992ea81c3a6ap+3}};
  static const volatile double kPow[][2] = {{0x1.b7f250a51baf6p+1, 0x1.1a029e9b4a5ap+1},
                                            {0x1.8e72edf88ebf9p+3, -0x1.bb28eedf06fp-5},
                                            {0x1.8f6792e1801c5p+6, 0x1.5cde31abfbcp-1}};
  std::string bits;
  const auto add = [&](double value) {
    const auto word = std::bit_cast<std::uint64_t>(value);
    for (int k = 0; k < 8; ++k) bits += static_cast<char>((word >> (8 * k)) & 0xff);
  };
  for (int k = 0; k < 3; ++k) {
    add(dmath::sin(kSin[k]));
    add(dmath::cos(kCos[k]));
    add(dmath::exp(kExp[k]));
    add(dmath::log(kLog[k]));
    add(dmath::atan2(kAtan2[k][0], kAtan2[k][1]));
    add(dmath::pow(kPow[k][0], kPow[k][1]));
  }
  return sha256_hex(bits).substr(0, 16);
}

}  // namespace

const std::string& bits_fingerprint() {
  static const std::string fingerprint = "nhsim " NHSIM_STRINGIFY(NHSIM_VERSION) " " +
                                         std::string(__VERSION__) + "; math " + math_probe();
  return fingerprint;
}

}  // namespace nhsim::wire
