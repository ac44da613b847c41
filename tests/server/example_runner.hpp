// Runs a spec of examples/ on the core runner as nhsimd would (JSON -> proto -> core -> proto),
// for the tests that assert a seed's results on its example specs, and the checks that more
// than one example shares.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "nhsim/client/files.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/to_proto.hpp"

namespace nhsim::server::test {

/// The wire result of examples/<name>.
inline v1::EnsembleResult run_example(const std::string& name) {
  const auto request = client::load_spec(std::filesystem::path(NHSIM_EXAMPLES_DIR) / name);
  return wire::to_proto(run_ensemble(wire::from_proto(request)));
}

/// The statistics of `observable` in `r`; std::runtime_error if it was not sampled.
inline const v1::SeriesStats& series(const v1::IntegratorResult& r, const std::string& observable) {
  for (const auto& s : r.observables()) {
    if (s.observable() == observable) return s;
  }
  throw std::runtime_error("no observable " + observable);
}

/// The largest sample maximum of a series.
inline double max_of(const v1::SeriesStats& s) {
  double m = 0.0;
  for (double v : s.max()) m = std::max(m, v);
  return m;
}

/// The gyroscopic top run by [ggl, rk2] (examples/top_precession.json, built in, and
/// examples/custom_gyroscopic_top.json, the same top as a custom_system): ggl keeps L3 to 1e-14
/// (measured drift 4.6e-16) and g(q) = 0 to 1e-14 (measured 1.2e-15, [Kinon2023] Fig. 7); rk2,
/// explicit, drifts off g(q) = 0 (measured 2.5). Call under ASSERT_NO_FATAL_FAILURE.
inline void expect_top_keeps_l3_and_g(const v1::EnsembleResult& result) {
  ASSERT_EQ(result.integrators_size(), 2);
  const auto& ggl = result.integrators(0);
  ASSERT_EQ(ggl.choice().integrator(), "ggl");
  ASSERT_EQ(ggl.trajectories_ok(), 1);
  const auto& l3 = series(ggl, "L3");
  for (double v : l3.mean()) EXPECT_NEAR(v, l3.mean(0), 1e-14);
  EXPECT_LT(max_of(series(ggl, "position_constraint_residual")), 1e-14);
  const auto& rk2 = result.integrators(1);
  ASSERT_EQ(rk2.choice().integrator(), "rk2");
  ASSERT_EQ(rk2.trajectories_ok(), 1);
  EXPECT_GT(max_of(series(rk2, "position_constraint_residual")), 1e-3);
}

}  // namespace nhsim::server::test
