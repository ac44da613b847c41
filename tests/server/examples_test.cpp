// Every spec in examples/ parses (protobuf JSON mapping, unknown fields are errors), converts to
// a core spec and passes the same validation a submission gets: a broken example is a test
// failure, not a surprise for the user who runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "example_runner.hpp"
#include "nhsim/client/files.hpp"
#include "nhsim/client/report.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/wire/from_proto.hpp"
#include "nhsim/wire/to_proto.hpp"

namespace nhsim::server {
namespace {

using test::max_of;
using test::run_example;
using test::series;

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(NHSIM_EXAMPLES_DIR)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Examples, DirectoryHasSpecs) { EXPECT_GE(example_files().size(), 19u); }

TEST(Examples, EverySpecParsesAndValidates) {
  for (const auto& path : example_files()) {
    SCOPED_TRACE(path.filename().string());
    try {
      const auto request = client::load_spec(path);
      const EnsembleSpec spec = wire::from_proto(request);
      validate(spec);
      EXPECT_GT(trajectory_count(spec), 0);
      EXPECT_FALSE(request.label().empty()) << "every example says what it reproduces";
    } catch (const SpecError& e) {
      ADD_FAILURE() << "invalid spec: " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

/// The largest |value| over the samples of a signed series (energy errors).
double max_abs_of(const v1::SeriesStats& s) {
  double m = 0.0;
  for (double v : s.max()) m = std::max(m, std::abs(v));
  for (double v : s.min()) m = std::max(m, std::abs(v));
  return m;
}

// A user-defined system: the contact oscillator as custom_system. gonzalez_r keeps
// energy and constraint to round-off; si_dla and dla keep the constraint only (their energy error
// is O(h^2)).
TEST(Examples, CustomContactOscillatorGonzalezRConservesEnergyAndConstraint) {
  const auto result = run_example("custom_contact_oscillator.json");
  EXPECT_EQ(result.system(), "custom_system");
  for (const auto& r : result.integrators()) {
    const std::string id = r.choice().integrator();
    SCOPED_TRACE(id);
    ASSERT_EQ(r.trajectories_ok(), 50);
    EXPECT_LT(max_of(series(r, "constraint_residual")), 1e-13);
    const double energy = max_abs_of(series(r, "relative_energy_error"));
    if (id == "gonzalez_r") {
      EXPECT_LT(energy, 1e-12);
    } else {
      EXPECT_GT(energy, 1e-6);
      EXPECT_LT(energy, 1e-1);
    }
  }
}

// A user-defined system whose mass matrix depends on q: the Chaplygin sleigh on an inclined
// plane. gonzalez_r and gonzalez_r_fd keep energy and constraint to round-off ([Celledoni2019]
// §3.3: Pi skew, the frame exact, whichever frame derivative) while the sleigh slides and turns.
// Its kinetic and potential energies grow to about m g sin(alpha) x1 (x1 ~ 1000 m by t = 50), so
// the energy is kept to round-off of that scale, not of H0.
TEST(Examples, CustomSleighInclineKeepsEnergyAndConstraint) {
  const auto result = run_example("custom_sleigh_incline.json");
  ASSERT_EQ(result.integrators_size(), 2);
  const double m_g_sin_alpha = 1.0 * 9.81 * std::sin(0.1);
  for (const auto& r : result.integrators()) {
    SCOPED_TRACE(r.choice().integrator());
    ASSERT_EQ(r.trajectories_ok(), 3);
    EXPECT_LT(max_of(series(r, "constraint_residual")), 1e-13);
    // It moved: the sleigh that starts at rest has slid downhill (x1 grows) by t = 50.
    const double x1 = max_of(series(r, "q[0]"));
    EXPECT_GT(x1, 100.0);
    EXPECT_LT(max_abs_of(series(r, "energy_error")), 1e-13 * (1.0 + m_g_sin_alpha * x1));
  }
}

// The gyroscopic top of [Kinon2023] §5.1 written as custom_system, with holonomic constraints: as
// on the built-in (ExamplesSeed003.TopPrecessionKeepsL3AndPhi3), ggl keeps g(q) = 0 and the
// momentum map L3 to round-off, and rk2, which keeps only G(q) M^-1 p = 0, drifts off g(q) = 0.
TEST(Examples, CustomGyroscopicTopKeepsTheConstraintsAndL3) {
  test::expect_top_keeps_l3_and_g(run_example("custom_gyroscopic_top.json"));
}

// [Celledoni2019] Fig. 2 top left: all five methods are second order (errors at t = 10 against rk4
// at h = 0.001, whose own error is ~1e-12, far below the smallest error measured here).
TEST(Examples, ChaoticFig2OrderPlotIsSecondOrderForAllFiveMethods) {
  const auto result = run_example("chaotic_fig2_order.json");
  for (const auto& r : result.integrators()) ASSERT_EQ(r.trajectories_ok(), 1);
  int orders = 0;
  for (const auto& row : client::convergence(result, "rk4")) {
    if (!row.order) continue;
    SCOPED_TRACE(row.integrator + " h = " + std::to_string(row.h));
    EXPECT_GT(*row.error, 1e-9);  // well above the reference's own error
    EXPECT_NEAR(*row.order, 2.0, 0.25);
    ++orders;
  }
  EXPECT_EQ(orders, 10);  // five methods, two halvings each
}

// The same order plot as one h-sweep: `nhsim convergence` reads the sweep, and
// every error and order is the hand-written spec's, bit for bit.
TEST(Examples, ChaoticFig2OrderSweepGivesTheOrderPlotsRows) {
  const auto sweep = run_example("chaotic_fig2_order_sweep.json");
  ASSERT_EQ(sweep.cases_size(), 3);
  const auto by_hand = client::convergence(run_example("chaotic_fig2_order.json"), "rk4");
  const auto rows = client::convergence(sweep, "rk4");
  ASSERT_EQ(rows.size(), 18u);  // 3 cases x (reference + five methods)
  int matched = 0;
  for (const auto& row : rows) {
    if (row.integrator == "rk4") {
      EXPECT_TRUE(row.reference);  // the same reference in every case
      continue;
    }
    for (const auto& expected : by_hand) {
      if (expected.integrator != row.integrator || expected.h != row.h) continue;
      SCOPED_TRACE(row.integrator + " h = " + std::to_string(row.h));
      ASSERT_TRUE(row.error && expected.error);
      EXPECT_EQ(*row.error, *expected.error);
      EXPECT_EQ(row.order.has_value(), expected.order.has_value());
      if (row.order) {
        EXPECT_EQ(*row.order, *expected.order);
      }
      ++matched;
    }
  }
  EXPECT_EQ(matched, 15);
}

// [Celledoni2019] Fig. 2 top right and bottom left on one trajectory: the constraint at round-off
// for si_dla, spark2 and the discrete gradients (i_dla keeps its midpoint discrete constraint, not
// the canonical one at the nodes: O(h^2), documented in i_dla.hpp); the relative energy error
// at round-off only for the discrete gradient methods.
TEST(Examples, ChaoticFig2TrajectoryConstraintAndEnergyPanels) {
  const auto result = run_example("chaotic_fig2_trajectory.json");
  for (const auto& r : result.integrators()) {
    const std::string id = r.choice().integrator();
    SCOPED_TRACE(id);
    ASSERT_EQ(r.trajectories_ok(), 1);
    const double constraint = max_of(series(r, "constraint_residual"));
    const double energy = max_of(series(r, "relative_energy_error"));
    if (id == "i_dla") {
      EXPECT_LT(constraint, 1e-2);
      EXPECT_GT(constraint, 1e-6);
    } else {
      EXPECT_LT(constraint, 1e-13);
    }
    if (id == "gonzalez" || id == "avf") {
      EXPECT_LT(energy, 1e-12);
    } else {
      EXPECT_GT(energy, 1e-6);  // O(h^2) oscillation and random walk, far above round-off
      EXPECT_LT(energy, 1e-2);
    }
  }
}

}  // namespace
}  // namespace nhsim::server
