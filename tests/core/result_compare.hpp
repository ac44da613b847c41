// Bit-for-bit comparison of two ensemble results (every statistic, by its bytes: NaN equals
// NaN, -0.0 differs from +0.0), for the determinism tests across threads, blocks and shards.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace nhsim::test {

inline bool bit_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline bool bit_equal(const CanonicalState& a, const CanonicalState& b) {
  return bit_equal(a.q, b.q) && bit_equal(a.p, b.p);
}

inline void expect_bit_identical(const std::vector<TrajectoryState>& a,
                                 const std::vector<TrajectoryState>& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].trajectory, b[k].trajectory) << where;
    EXPECT_TRUE(bit_equal(a[k].state, b[k].state)) << where << " trajectory " << a[k].trajectory;
  }
}

/// The per-trajectory outputs of two choices (nhsim/outputs.hpp), bit for bit.
inline void expect_bit_identical(const ChoiceOutputs& a, const ChoiceOutputs& b,
                                 const std::string& where) {
  expect_bit_identical(a.final_states, b.final_states, where + " final_states");
  ASSERT_EQ(a.sampled.size(), b.sampled.size()) << where;
  for (std::size_t k = 0; k < a.sampled.size(); ++k) {
    EXPECT_EQ(a.sampled[k].trajectory, b.sampled[k].trajectory) << where;
    EXPECT_EQ(a.sampled[k].samples, b.sampled[k].samples) << where;
    EXPECT_TRUE(bit_equal(a.sampled[k].values, b.sampled[k].values)) << where;
    EXPECT_TRUE(bit_equal(a.sampled[k].q, b.sampled[k].q)) << where;
    EXPECT_TRUE(bit_equal(a.sampled[k].p, b.sampled[k].p)) << where;
  }
  ASSERT_EQ(a.summary.size(), b.summary.size()) << where;
  for (std::size_t k = 0; k < a.summary.size(); ++k) {
    const TrajectorySummary& x = a.summary[k];
    const TrajectorySummary& y = b.summary[k];
    EXPECT_EQ(x.trajectory, y.trajectory) << where;
    EXPECT_EQ(x.status, y.status) << where;
    EXPECT_TRUE(bit_equal({x.final_time, x.max_abs_energy_error, x.max_constraint_residual},
                          {y.final_time, y.max_abs_energy_error, y.max_constraint_residual}))
        << where << " trajectory " << x.trajectory;
    EXPECT_EQ(x.reason, y.reason) << where;
  }
  ASSERT_EQ(a.histograms.size(), b.histograms.size()) << where;
  for (std::size_t k = 0; k < a.histograms.size(); ++k) {
    ASSERT_EQ(a.histograms[k].at.size(), b.histograms[k].at.size()) << where;
    for (std::size_t j = 0; j < a.histograms[k].at.size(); ++j) {
      const HistogramCounts& x = a.histograms[k].at[j];
      const HistogramCounts& y = b.histograms[k].at[j];
      EXPECT_EQ(x.counts, y.counts) << where << " histogram " << k << " time " << x.time;
      EXPECT_EQ(x.below, y.below) << where;
      EXPECT_EQ(x.above, y.above) << where;
      EXPECT_EQ(x.non_finite, y.non_finite) << where;
    }
  }
}

/// Two results, every statistic and output, bit for bit.
inline void expect_bit_identical(const EnsembleResult& a, const EnsembleResult& b) {
  expect_bit_identical(a.initial_states, b.initial_states, "initial_states");
  ASSERT_EQ(a.variance_ratios.size(), b.variance_ratios.size());
  for (std::size_t k = 0; k < a.variance_ratios.size(); ++k) {
    const VarianceRatio& x = a.variance_ratios[k];
    const VarianceRatio& y = b.variance_ratios[k];
    EXPECT_EQ(x.numerator, y.numerator);
    EXPECT_EQ(x.denominator, y.denominator);
    EXPECT_EQ(x.observable, y.observable);
    EXPECT_TRUE(bit_equal({x.ratio, x.ratio_stderr, x.ratio_lower, x.ratio_upper},
                          {y.ratio, y.ratio_stderr, y.ratio_lower, y.ratio_upper}))
        << x.observable;
    EXPECT_EQ(x.batches, y.batches);
  }
  ASSERT_EQ(a.integrators.size(), b.integrators.size());
  for (std::size_t i = 0; i < a.integrators.size(); ++i) {
    const IntegratorResult& x = a.integrators[i];
    const IntegratorResult& y = b.integrators[i];
    EXPECT_EQ(x.trajectories_ok, y.trajectories_ok);
    EXPECT_EQ(x.trajectories_failed, y.trajectories_failed);
    EXPECT_EQ(x.steps_completed, y.steps_completed);
    ASSERT_EQ(x.failures.size(), y.failures.size());
    for (std::size_t k = 0; k < x.failures.size(); ++k) {
      EXPECT_EQ(x.failures[k].trajectory, y.failures[k].trajectory);
      EXPECT_EQ(x.failures[k].integrator, y.failures[k].integrator);
      EXPECT_TRUE(bit_equal({x.failures[k].time}, {y.failures[k].time}));
      EXPECT_EQ(x.failures[k].reason, y.failures[k].reason);
    }
    ASSERT_EQ(x.observables.size(), y.observables.size());
    for (std::size_t j = 0; j < x.observables.size(); ++j) {
      const SeriesStats& u = x.observables[j];
      const SeriesStats& v = y.observables[j];
      const std::string where = x.choice.integrator + " " + u.observable;
      EXPECT_EQ(u.count, v.count) << where;
      for (auto field :
           {&SeriesStats::mean, &SeriesStats::variance, &SeriesStats::min, &SeriesStats::max,
            &SeriesStats::q05, &SeriesStats::q50, &SeriesStats::q95, &SeriesStats::mean_stderr,
            &SeriesStats::variance_stderr, &SeriesStats::variance_lower,
            &SeriesStats::variance_upper, &SeriesStats::q05_lower, &SeriesStats::q05_upper,
            &SeriesStats::q50_lower, &SeriesStats::q50_upper, &SeriesStats::q95_lower,
            &SeriesStats::q95_upper}) {
        EXPECT_TRUE(bit_equal(u.*field, v.*field)) << where;
      }
      EXPECT_EQ(std::memcmp(&u.variance_slope, &v.variance_slope, sizeof(double)), 0) << where;
      const VarianceGrowth& g = u.variance_growth;
      const VarianceGrowth& k = v.variance_growth;
      EXPECT_TRUE(bit_equal(
          {g.a, g.a_stderr, g.b, g.b_stderr, g.exponent, g.exponent_stderr, g.t_min, g.t_max,
           g.a_lower, g.a_upper, g.b_lower, g.b_upper, g.exponent_lower, g.exponent_upper},
          {k.a, k.a_stderr, k.b, k.b_stderr, k.exponent, k.exponent_stderr, k.t_min, k.t_max,
           k.a_lower, k.a_upper, k.b_lower, k.b_upper, k.exponent_lower, k.exponent_upper}))
          << where;
      EXPECT_EQ(g.samples, k.samples) << where;
      EXPECT_EQ(g.batches, k.batches) << where;
    }
    expect_bit_identical(x.outputs, y.outputs, x.choice.integrator);
  }
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (std::size_t k = 0; k < a.cases.size(); ++k) {
    ASSERT_EQ(a.cases[k].values.size(), b.cases[k].values.size());
    for (std::size_t f = 0; f < a.cases[k].values.size(); ++f) {
      EXPECT_EQ(a.cases[k].values[f].field, b.cases[k].values[f].field);
      EXPECT_TRUE(bit_equal({a.cases[k].values[f].value}, {b.cases[k].values[f].value}));
    }
    expect_bit_identical(a.cases[k].result, b.cases[k].result);
  }
}

}  // namespace nhsim::test
