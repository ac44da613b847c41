// Helpers shared by the lane tests (lanes_test.cpp, custom_lanes_test.cpp): every forced lane
// setting this CPU runs, its name, run options with lanes, and a spec's result at every setting.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/lanes.hpp"
#include "result_compare.hpp"

namespace nhsim::test {

/// Every forced setting this CPU runs: each available instruction set at widths 2, 4 and 8.
inline std::vector<LaneSettings> forced_settings() {
  std::vector<LaneSettings> out;
  for (LaneIsa isa : available_lane_isas()) {
    for (int width : {2, 4, 8}) out.push_back({isa, width});
  }
  return out;
}

/// "avx2:4" and the like, as NHSIM_LANES spells it.
inline std::string name(const LaneSettings& s) {
  return std::string(lane_isa_name(s.isa)) + ":" + std::to_string(s.width);
}

/// Run options of `threads` threads with lanes `s`.
inline RunOptions with_lanes(const LaneSettings& s, int threads = 2) {
  RunOptions o;
  o.threads = threads;
  o.lanes = s;
  return o;
}

/// Spec s run at every forced setting (two threads) gives `reference`'s bits.
inline void expect_bit_identical_at_every_setting(const EnsembleResult& reference,
                                                  const EnsembleSpec& s) {
  for (const LaneSettings& l : forced_settings()) {
    SCOPED_TRACE(name(l));
    expect_bit_identical(reference, run_ensemble(s, with_lanes(l)));
  }
}

}  // namespace nhsim::test
