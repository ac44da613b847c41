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

inline void expect_bit_identical(const EnsembleResult& a, const EnsembleResult& b) {
  ASSERT_EQ(a.integrators.size(), b.integrators.size());
  for (std::size_t i = 0; i < a.integrators.size(); ++i) {
    const IntegratorResult& x = a.integrators[i];
    const IntegratorResult& y = b.integrators[i];
    EXPECT_EQ(x.trajectories_ok, y.trajectories_ok);
    EXPECT_EQ(x.trajectories_failed, y.trajectories_failed);
    EXPECT_EQ(x.steps_completed, y.steps_completed);
    ASSERT_EQ(x.observables.size(), y.observables.size());
    for (std::size_t j = 0; j < x.observables.size(); ++j) {
      const SeriesStats& u = x.observables[j];
      const SeriesStats& v = y.observables[j];
      const std::string where = x.choice.integrator + " " + u.observable;
      EXPECT_EQ(u.count, v.count) << where;
      for (auto field :
           {&SeriesStats::mean, &SeriesStats::variance, &SeriesStats::min, &SeriesStats::max,
            &SeriesStats::q05, &SeriesStats::q50, &SeriesStats::q95}) {
        EXPECT_TRUE(bit_equal(u.*field, v.*field)) << where;
      }
      EXPECT_EQ(std::memcmp(&u.variance_slope, &v.variance_slope, sizeof(double)), 0) << where;
    }
  }
}

}  // namespace nhsim::test
