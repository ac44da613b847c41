// Lane settings: the instruction sets this build and CPU offer, and NHSIM_LANES
// (nhsim/lane_settings.hpp). NHSIM_LANES_AVX2 and NHSIM_LANES_AVX512 say which units the build
// compiled (core/CMakeLists.txt, NHSIM_LANE_ISAS).
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "lane_block.hpp"
#include "nhsim/lane_settings.hpp"

namespace nhsim {
namespace {

bool cpu_has(LaneIsa isa) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's cpu model also checks that the OS saves the wider registers (XCR0).
  if (isa == LaneIsa::kAvx2) return NHSIM_LANES_AVX2 && __builtin_cpu_supports("avx2");
  if (isa == LaneIsa::kAvx512) return NHSIM_LANES_AVX512 && __builtin_cpu_supports("avx512f");
#endif
  return isa == LaneIsa::kBaseline;
}

int default_width(LaneIsa isa) {
  switch (isa) {
    case LaneIsa::kAvx512:
      return 8;
    default:  // kAvx2: one register of 4; kBaseline: two of 2 (more independent work than one)
      return 4;
  }
}

LaneSettings parse(const std::string& text) {
  LaneSettings s;
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  bool known = false;
  for (LaneIsa isa :
       {LaneIsa::kAuto, LaneIsa::kOff, LaneIsa::kBaseline, LaneIsa::kAvx2, LaneIsa::kAvx512}) {
    if (name == lane_isa_name(isa)) {
      s.isa = isa;
      known = true;
    }
  }
  const std::string width = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (!width.empty()) s.width = width == "2" ? 2 : width == "4" ? 4 : width == "8" ? 8 : -1;
  if (!known || s.width < 0 || (colon != std::string::npos && width.empty())) {
    throw std::invalid_argument("NHSIM_LANES=" + text +
                                ": expected off, auto, baseline, avx2 or avx512, optionally "
                                "followed by :2, :4 or :8");
  }
  return s;
}

}  // namespace

lanes::LaneBlock::~LaneBlock() = default;  // the key function: the vtable lives here

const char* lane_isa_name(LaneIsa isa) {
  switch (isa) {
    case LaneIsa::kAuto:
      return "auto";
    case LaneIsa::kOff:
      return "off";
    case LaneIsa::kBaseline:
      return "baseline";
    case LaneIsa::kAvx2:
      return "avx2";
    case LaneIsa::kAvx512:
      return "avx512";
  }
  return "?";
}

std::vector<LaneIsa> available_lane_isas() {
  std::vector<LaneIsa> out;
  for (LaneIsa isa : {LaneIsa::kBaseline, LaneIsa::kAvx2, LaneIsa::kAvx512}) {
    if (cpu_has(isa)) out.push_back(isa);
  }
  return out;
}

LaneSettings resolve_lane_settings(const LaneSettings& settings) {
  LaneSettings s = settings;
  if (s.isa == LaneIsa::kAuto) {
    const char* env = std::getenv("NHSIM_LANES");
    const LaneSettings from_env = env != nullptr && *env != '\0' ? parse(env) : LaneSettings{};
    s.isa = from_env.isa;
    if (s.width == 0) s.width = from_env.width;
  }
  if (s.isa == LaneIsa::kAuto) s.isa = available_lane_isas().back();
  if (s.isa == LaneIsa::kOff) return {LaneIsa::kOff, 0};
  if (!cpu_has(s.isa)) {
    throw std::invalid_argument(std::string("lanes: instruction set ") + lane_isa_name(s.isa) +
                                " is not available on this CPU or in this build");
  }
  if (s.width == 0) s.width = default_width(s.isa);
  if (s.width != 2 && s.width != 4 && s.width != 8) {
    throw std::invalid_argument("lanes: width " + std::to_string(s.width) +
                                " (expected 0, 2, 4 or 8)");
  }
  return s;
}

}  // namespace nhsim
