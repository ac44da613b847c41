// server/wire::to_proto.cpp: core results and catalogue entries become proto messages field by
// field.
#include "nhsim/wire/to_proto.hpp"

#include <gtest/gtest.h>

namespace nhsim::server {
namespace {

TEST(ToProto, CopiesEveryFieldOfAResult) {
  EnsembleResult result;
  result.system = "chaotic_quartic";
  result.parameters = {{"n", 3.0}};
  result.n_trajectories = 5;
  result.cancelled = true;
  IntegratorResult ir;
  ir.choice = {.integrator = "si_dla",
               .h = 0.05,
               .sample_every = 4,
               .newton_tol = 1e-13,
               .newton_max_iter = 21};
  ir.n_steps = 8;
  ir.sample_times = {0.0, 0.2, 0.4};
  SeriesStats stats;
  stats.observable = "energy_error";
  stats.count = {5, 4, 3};
  stats.mean = {0.0, 1e-3, -2e-3};
  stats.variance = {0.0, 1e-7, 3e-7};
  stats.min = {0.0, -1e-3, -5e-3};
  stats.max = {0.0, 2e-3, 4e-3};
  stats.q05 = {0.0, -9e-4, -4.5e-3};
  stats.q50 = {0.0, 1.5e-3, -1e-3};
  stats.q95 = {0.0, 1.9e-3, 3.5e-3};
  stats.variance_slope = 7e-7;
  stats.variance_slope_over_h4 = 0.112;
  stats.variance_slope_stderr = 2e-8;
  stats.variance_fit_samples = 2;
  stats.variance_fit_t_min = 1.0;
  stats.variance_fit_t_max = 2.0;
  ir.observables = {stats};
  ir.trajectories_ok = 3;
  ir.trajectories_failed = 1;
  ir.trajectories_cancelled = 1;
  ir.failures = {{.trajectory = 2, .integrator = "si_dla", .time = 0.15, .reason = "Newton"}};
  ir.steps_completed = 30;
  ir.wall_seconds = 0.5;
  ir.steps_per_second = 60.0;
  result.integrators = {ir};

  const v1::EnsembleResult out = wire::to_proto(result);
  EXPECT_EQ(out.system(), "chaotic_quartic");
  ASSERT_EQ(out.parameters().size(), 1U);
  EXPECT_EQ(out.parameters().at("n"), 3.0);
  EXPECT_EQ(out.n_trajectories(), 5);
  EXPECT_TRUE(out.cancelled());
  EXPECT_TRUE(out.job_id().empty());
  ASSERT_EQ(out.integrators_size(), 1);
  const auto& o = out.integrators(0);
  EXPECT_EQ(o.choice().integrator(), "si_dla");
  EXPECT_EQ(o.choice().h(), 0.05);
  EXPECT_TRUE(o.choice().has_sample_every());
  EXPECT_EQ(o.choice().sample_every(), 4);
  EXPECT_EQ(o.choice().newton_tol(), 1e-13);
  EXPECT_EQ(o.choice().newton_max_iter(), 21);
  EXPECT_EQ(o.n_steps(), 8);
  EXPECT_EQ(std::vector<double>(o.sample_times().begin(), o.sample_times().end()), ir.sample_times);
  ASSERT_EQ(o.observables_size(), 1);
  const auto& s = o.observables(0);
  EXPECT_EQ(s.observable(), "energy_error");
  EXPECT_EQ(std::vector<std::int64_t>(s.count().begin(), s.count().end()), stats.count);
  EXPECT_EQ(std::vector<double>(s.mean().begin(), s.mean().end()), stats.mean);
  EXPECT_EQ(std::vector<double>(s.variance().begin(), s.variance().end()), stats.variance);
  EXPECT_EQ(std::vector<double>(s.min().begin(), s.min().end()), stats.min);
  EXPECT_EQ(std::vector<double>(s.max().begin(), s.max().end()), stats.max);
  EXPECT_EQ(std::vector<double>(s.q05().begin(), s.q05().end()), stats.q05);
  EXPECT_EQ(std::vector<double>(s.q50().begin(), s.q50().end()), stats.q50);
  EXPECT_EQ(std::vector<double>(s.q95().begin(), s.q95().end()), stats.q95);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // deprecated, still served
  EXPECT_EQ(s.variance_slope(), 7e-7);
  EXPECT_EQ(s.variance_slope_over_h4(), 0.112);
  EXPECT_EQ(s.variance_slope_stderr(), 2e-8);
  EXPECT_EQ(s.variance_fit_samples(), 2);
  EXPECT_EQ(s.variance_fit_t_min(), 1.0);
  EXPECT_EQ(s.variance_fit_t_max(), 2.0);
#pragma GCC diagnostic pop
  EXPECT_EQ(o.trajectories_ok(), 3);
  EXPECT_EQ(o.trajectories_failed(), 1);
  EXPECT_EQ(o.trajectories_cancelled(), 1);
  ASSERT_EQ(o.failures_size(), 1);
  EXPECT_EQ(o.failures(0).trajectory(), 2);
  EXPECT_EQ(o.failures(0).integrator(), "si_dla");
  EXPECT_EQ(o.failures(0).time(), 0.15);
  EXPECT_EQ(o.failures(0).reason(), "Newton");
  EXPECT_EQ(o.steps_completed(), 30);
  EXPECT_EQ(o.wall_seconds(), 0.5);
  EXPECT_EQ(o.steps_per_second(), 60.0);
}

TEST(ToProto, CopiesCatalogueEntries) {
  SystemInfo system{.name = "s",
                    .description = "d",
                    .source = "seed",
                    .parameters = {{.name = "n",
                                    .default_value = 3,
                                    .unit = "1",
                                    .description = "size",
                                    .integer = true,
                                    .min_value = 1,
                                    .max_value = 64}},
                    .invariants = {"momentum"},
                    .integrators = {"gonzalez", "rk4"},
                    .newton_tol_defaults = {{"gonzalez", 1e-10}}};
  const v1::SystemInfo s = wire::to_proto(system);
  EXPECT_EQ(s.name(), "s");
  EXPECT_EQ(s.description(), "d");
  EXPECT_EQ(s.source(), "seed");
  ASSERT_EQ(s.parameters_size(), 1);
  EXPECT_EQ(s.parameters(0).name(), "n");
  EXPECT_EQ(s.parameters(0).default_value(), 3.0);
  EXPECT_EQ(s.parameters(0).unit(), "1");
  EXPECT_EQ(s.parameters(0).description(), "size");
  EXPECT_TRUE(s.parameters(0).integer());
  EXPECT_EQ(s.parameters(0).min_value(), 1.0);
  EXPECT_EQ(s.parameters(0).max_value(), 64.0);
  ASSERT_EQ(s.invariants_size(), 1);
  EXPECT_EQ(s.invariants(0), "momentum");
  ASSERT_EQ(s.integrators_size(), 2);
  EXPECT_EQ(s.integrators(1), "rk4");
  ASSERT_EQ(s.newton_tol_defaults_size(), 1);
  EXPECT_EQ(s.newton_tol_defaults().at("gonzalez"), 1e-10);

  IntegratorInfo integrator{.name = "gonzalez",
                            .description = "dg",
                            .source = "eq. 12",
                            .order = 2,
                            .implicit = true,
                            .energy_preserving = true,
                            .requires_ = {"reduced form"},
                            .default_newton_tol = 1e-14,
                            .default_newton_max_iter = 50};
  const v1::IntegratorInfo i = wire::to_proto(integrator);
  EXPECT_EQ(i.name(), "gonzalez");
  EXPECT_EQ(i.description(), "dg");
  EXPECT_EQ(i.source(), "eq. 12");
  EXPECT_EQ(i.order(), 2);
  EXPECT_TRUE(i.implicit());
  EXPECT_TRUE(i.energy_preserving());
  ASSERT_EQ(i.requirements_size(), 1);
  EXPECT_EQ(i.requirements(0), "reduced form");
  EXPECT_EQ(i.default_newton_tol(), 1e-14);
  EXPECT_EQ(i.default_newton_max_iter(), 50);
}

// Issue 57 item 1: a job whose every trajectory fails served a result of 206 MB against an
// estimate of 11 MiB (10^6 trajectories, a record each). Only the first failures are listed,
// and the estimate holds them.
TEST(ToProto, AJobWhoseEveryTrajectoryFailsServesAResultWithinItsEstimate) {
  EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = 7;
  g.count = 20000;
  s.initial_conditions = g;
  IntegratorChoice c;
  c.integrator = "rk4";
  c.h = 2.5;  // blows up within 200 steps
  s.integrators = {c};
  s.t_final = 500.0;
  const v1::EnsembleResult result = wire::to_proto(run_ensemble(s));
  ASSERT_EQ(result.integrators(0).trajectories_failed(), 20000);
  EXPECT_LE(static_cast<double>(result.ByteSizeLong()), estimate_cost(s).result_bytes);
}

}  // namespace
}  // namespace nhsim::server
