// Helpers shared by the tests of user-defined systems (custom_system_test.cpp,
// custom_holonomic_test.cpp): a spec over explicit states, and running a catalogue system and its
// custom_system twin side by side.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace nhsim::test {

/// A spec over `states` with one choice per id (step h, sampled every 100 steps) to t_final,
/// with every final state in the result.
inline EnsembleSpec spec_with(const std::vector<CanonicalState>& states,
                              const std::vector<std::string>& ids, double h, double t_final) {
  EnsembleSpec s;
  s.initial_conditions = ExplicitStates{states};
  for (const auto& id : ids) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = h;
    c.sample_every = 100;
    s.integrators.push_back(c);
  }
  s.t_final = t_final;
  s.outputs.final_states.all = true;
  return s;
}

/// max_i |a_i - b_i| / max_i |a_i|.
inline double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0, n = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    n = std::max(n, std::abs(a[i]));
  }
  return d / n;
}

/// `builtin` with its catalogue system replaced by `custom`.
inline EnsembleSpec with_custom_system(EnsembleSpec builtin, const CustomSystemSpec& custom) {
  builtin.system.clear();
  builtin.parameters.clear();
  builtin.custom_system = custom;
  return builtin;
}

/// Runs `builtin` and the same spec with `custom` instead, and compares the final states of
/// every trajectory and integrator to `tol` relative; returns the largest relative difference.
inline double compare(const EnsembleSpec& builtin, const CustomSystemSpec& custom,
                      double tol = 1e-12) {
  const EnsembleResult a = run_ensemble(builtin);
  const EnsembleResult b = run_ensemble(with_custom_system(builtin, custom));
  EXPECT_EQ(b.system, "custom_system");
  double worst = 0.0;
  for (std::size_t c = 0; c < a.integrators.size(); ++c) {
    const auto& fa = a.integrators[c].outputs.final_states;
    const auto& fb = b.integrators[c].outputs.final_states;
    EXPECT_EQ(a.integrators[c].trajectories_ok, b.integrators[c].trajectories_ok);
    EXPECT_EQ(b.integrators[c].trajectories_failed, 0);
    EXPECT_EQ(fa.size(), fb.size());
    for (std::size_t i = 0; i < std::min(fa.size(), fb.size()); ++i) {
      const double dq = rel_diff(fa[i].state.q, fb[i].state.q);
      const double dp = rel_diff(fa[i].state.p, fb[i].state.p);
      EXPECT_LE(dq, tol) << builtin.integrators[c].integrator << " trajectory " << i;
      EXPECT_LE(dp, tol) << builtin.integrators[c].integrator << " trajectory " << i;
      worst = std::max({worst, dq, dp});
    }
  }
  return worst;
}

}  // namespace nhsim::test
