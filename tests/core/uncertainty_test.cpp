// The uncertainties of an ensemble result on [Celledoni2019]'s variance experiment in small: the
// growth model separates SI-DLA's random walk from its bounded part, and the ratio of two step
// sizes' variances on the same initial states is 2^4 within its (paired) standard error.
#include <gtest/gtest.h>

#include <cmath>

#include "nhsim/ensemble.hpp"

namespace nhsim {
namespace {

/// SI-DLA at h = 0.1 and 0.05 from the same 640 states up to t_final.
EnsembleSpec two_step_sizes(double t_final) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 4;
  g.count = 640;
  s.initial_conditions = g;
  for (double h : {0.1, 0.05}) {
    IntegratorChoice c;
    c.integrator = "si_dla";
    c.h = h;
    c.sample_every = static_cast<std::int64_t>(std::lround(1.0 / h));
    s.integrators.push_back(c);
  }
  s.t_final = t_final;
  return s;
}

TEST(Uncertainty, TheVarianceRatioOfTwoStepSizesIsTwoToTheFourthWithinItsPairedError) {
  // Up to t = 200 the two step sizes' energy errors are still correlated (by t = 1000 the chaos
  // has decorrelated them, and pairing no longer helps).
  const EnsembleResult r = run_ensemble(two_step_sizes(200.0));
  ASSERT_EQ(r.variance_ratios.size(), 3U);  // one pair, three default observables
  const VarianceRatio& e = r.variance_ratios[0];
  EXPECT_EQ(e.numerator, 0);
  EXPECT_EQ(e.denominator, 1);
  EXPECT_EQ(e.observable, "energy_error");
  EXPECT_EQ(e.batches, kBatches);
  // h^4 scaling ([Celledoni2019] Fig. 2): Var(0.1) / Var(0.05) = 16, within three standard errors.
  EXPECT_NEAR(e.ratio, 16.0, 3.0 * e.ratio_stderr) << e.ratio << " +- " << e.ratio_stderr;
  EXPECT_LT(e.ratio_stderr, 0.2 * e.ratio);
  // The pairing is used: the ratio is better determined than two independent variances
  // (relative errors added in quadrature) would make it.
  const SeriesStats& coarse = r.integrators[0].observables[0];
  const SeriesStats& fine = r.integrators[1].observables[0];
  const double rel_coarse = coarse.variance_stderr.back() / coarse.variance.back();
  const double rel_fine = fine.variance_stderr.back() / fine.variance.back();
  EXPECT_LT(e.ratio_stderr / e.ratio, 0.8 * std::hypot(rel_coarse, rel_fine));
}

TEST(Uncertainty, TheGrowthModelSeparatesTheRandomWalkFromTheBoundedPart) {
  // Over [100, 1000] the walk is detected at 640 states (over [20, 200] it is not yet).
  const EnsembleResult r = run_ensemble(two_step_sizes(1000.0));
  for (const IntegratorResult& ir : r.integrators) {
    const VarianceGrowth& g = ir.observables[0].variance_growth;
    const double h4 = std::pow(ir.choice.h, 4);
    EXPECT_EQ(g.batches, kBatches);
    EXPECT_EQ(g.samples, kMaxBatchSamples);
    EXPECT_EQ(g.t_min, 100.0);  // t_final / 10
    EXPECT_EQ(g.t_max, 1000.0);
    // A random walk: b > 0 by many standard errors, b / h^4 of the paper's order 1e-4.
    EXPECT_GT(g.b, 4.0 * g.b_stderr) << ir.choice.h;
    EXPECT_GT(g.b / h4, 2e-5) << ir.choice.h;
    EXPECT_LT(g.b / h4, 5e-4) << ir.choice.h;
    // ... on top of a bounded part a > 0 of the size of Var / h^4 at t = 1 (about 0.1-0.3).
    EXPECT_GT(g.a / h4, 0.02) << ir.choice.h;
    EXPECT_LT(g.a / h4, 1.0) << ir.choice.h;
    EXPECT_GT(g.exponent, 0.0);
    EXPECT_LT(g.exponent, 1.1);
    EXPECT_GT(g.exponent_stderr, 0.0);
    // The constraint residual of SI-DLA stays at round-off: no growth to speak of.
    const VarianceGrowth& residual = ir.observables[2].variance_growth;
    EXPECT_LT(std::abs(residual.b), 1e-30);
  }
}

TEST(Uncertainty, FailChoiceWithholdsTheStatisticsOfAChoiceWithFailures) {
  EnsembleSpec s = two_step_sizes(5.0);
  s.integrators[0].integrator = "gonzalez";
  s.integrators[0].newton_max_iter = 1;  // gonzalez cannot converge in one iteration
  std::get<EnergyShellGenerator>(s.initial_conditions).count = 40;
  const EnsembleResult excluded = run_ensemble(s);
  EXPECT_FALSE(excluded.integrators[0].failed_as_whole);
  EXPECT_FALSE(excluded.integrators[0].observables.empty());
  EXPECT_EQ(excluded.variance_ratios.size(), 3U);

  s.failure_policy = EnsembleSpec::FailurePolicy::kFailChoice;
  const EnsembleResult failed = run_ensemble(s);
  const IntegratorResult& g = failed.integrators[0];
  EXPECT_TRUE(g.failed_as_whole);
  EXPECT_TRUE(g.observables.empty());
  EXPECT_EQ(g.trajectories_failed, 40);
  EXPECT_EQ(g.failures.size(), 40U);                   // which and why, as always
  const IntegratorResult& ok = failed.integrators[1];  // si_dla, no failure: served
  EXPECT_FALSE(ok.failed_as_whole);
  EXPECT_EQ(ok.trajectories_ok, 40);
  ASSERT_FALSE(ok.observables.empty());
  EXPECT_GT(ok.observables[0].variance.back(), 0.0);
  EXPECT_TRUE(failed.variance_ratios.empty());  // no ratio with a withheld choice
}

TEST(Uncertainty, InvariantErrorIsTheChangeOfADeclaredInvariant) {
  // The gyroscopic top's steady precession (examples/top_precession.json): ggl keeps the
  // momentum map L3 to round-off, rk2 does not.
  EnsembleSpec s;
  s.system = "gyroscopic_top";
  s.parameters = {{"m", 0.7069},     {"J1", 5.3014e-4}, {"J2", 5.3014e-4},
                  {"J3", 5.3014e-4}, {"l", 0.075},      {"g", 9.81}};
  s.initial_conditions = ExplicitStates{
      {{{0, -0.064951905283832892, 0.037500000000000006, 1, 0, 0, 0, 0.50000000000000011,
         0.8660254037844386, 0, -0.8660254037844386, 0.50000000000000011},
        {0.45914501845141475, 0, 0, 0, 0.020623632500000003, 0.031130032251005916,
         -0.037271214999999996, 0, 0, 0.0022955735378114121, 0, 0}}}};
  for (const char* id : {"ggl", "rk2"}) {
    IntegratorChoice c;
    c.integrator = id;
    c.h = 0.002;
    c.sample_every = 10;
    if (c.integrator == "ggl") c.newton_tol = 1e-14;
    s.integrators.push_back(c);
  }
  s.t_final = 0.5;
  s.observables = {"L3", "invariant_error[L3]"};
  const EnsembleResult r = run_ensemble(s);
  double drift[2] = {0.0, 0.0};
  for (std::size_t c = 0; c < 2; ++c) {
    const SeriesStats& value = r.integrators[c].observables[0];
    const SeriesStats& change = r.integrators[c].observables[1];
    EXPECT_EQ(change.observable, "invariant_error[L3]");
    EXPECT_EQ(change.mean[0], 0.0);
    for (std::size_t k = 0; k < change.mean.size(); ++k) {  // one trajectory: J(t) - J(0)
      EXPECT_EQ(change.mean[k], value.mean[k] - value.mean[0]) << k;
      drift[c] = std::max(drift[c], std::abs(change.mean[k]));
    }
  }
  EXPECT_LT(drift[0], 1e-12);           // ggl: round-off
  EXPECT_GT(drift[1], 1e3 * drift[0]);  // rk2: drifts
  // Only a system observable has an invariant_error.
  s.observables = {"invariant_error[energy]"};
  try {
    validate(s);
    FAIL() << "accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "observables[0]");
    EXPECT_NE(std::string(e.what()).find("invariant_error[NAME]"), std::string::npos);
  }
}

}  // namespace
}  // namespace nhsim
