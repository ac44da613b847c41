// Lane settings (docs/design.md "Lanes"): whether the ensemble runner steps trajectories in SIMD
// lanes, and with which instruction set and width. The lane steppers themselves: nhsim/lanes.hpp.
// Results are the same bits for every setting.
#pragma once

#include <vector>

namespace nhsim {

/// The instruction set of the lane kernels. kBaseline: the build's own target (SSE2 on x86-64);
/// kAvx2 and kAvx512: AVX2 and AVX-512F kernels (x86-64 builds only, where the CPU has them).
enum class LaneIsa { kAuto = 0, kOff, kBaseline, kAvx2, kAvx512 };

/// How the ensemble runner uses lanes. kAuto: the best instruction set of this CPU, or what the
/// environment variable NHSIM_LANES says (resolve_lane_settings()); kOff: one trajectory at a
/// time. Results are the same bits for every setting.
struct LaneSettings {
  LaneIsa isa = LaneIsa::kAuto;
  /// Trajectories per batch: 2, 4 or 8; 0 = the instruction set's default (kBaseline 4, kAvx2
  /// 4, kAvx512 8: the fastest measured, docs/performance-lanes.md).
  int width = 0;
};

/// The name of `isa`: "auto", "off", "baseline", "avx2", "avx512".
const char* lane_isa_name(LaneIsa isa);

/// The instruction sets this build has lane kernels for and this CPU runs, best last (kBaseline
/// always).
std::vector<LaneIsa> available_lane_isas();

/// `settings` with kAuto resolved (NHSIM_LANES, else the best available instruction set) and
/// width 0 replaced by the instruction set's default. Throws std::invalid_argument, naming the
/// setting, for an instruction set this build or CPU lacks, a width other than 0, 2, 4 or 8, or
/// an NHSIM_LANES that is not "off", "auto", "baseline", "avx2" or "avx512", each optionally
/// followed by ":2", ":4" or ":8".
LaneSettings resolve_lane_settings(const LaneSettings& settings);

}  // namespace nhsim
