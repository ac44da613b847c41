// client/report.cpp and client/files.cpp: the summary table's numbers, the CSV export and the
// spec/result file handling of the CLI.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "nhsim/client/files.hpp"
#include "nhsim/client/report.hpp"

namespace nhsim::client {
namespace {

using ::testing::HasSubstr;

v1::SeriesStats series(const std::string& name, std::vector<std::int64_t> count,
                       std::vector<double> min, std::vector<double> max,
                       std::vector<double> variance) {
  v1::SeriesStats s;
  s.set_observable(name);
  for (auto c : count) s.add_count(c);
  for (std::size_t i = 0; i < min.size(); ++i) {
    s.add_min(min[i]);
    s.add_max(max[i]);
    s.add_mean(0.5 * (min[i] + max[i]));
    s.add_variance(variance[i]);
  }
  return s;
}

v1::EnsembleResult example_result() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  v1::EnsembleResult result;
  result.set_n_trajectories(3);
  auto* a = result.add_integrators();
  a->mutable_choice()->set_integrator("si_dla");
  a->mutable_choice()->set_h(0.05);
  a->set_trajectories_ok(2);
  a->set_trajectories_failed(1);
  a->set_steps_per_second(1.5e7);
  for (double t : {0.0, 1.0, 2.0}) a->add_sample_times(t);
  // |min| wins at t = 2; the sample at t = 1 has count 0 and its NaNs are skipped.
  *a->add_observables() =
      series("energy_error", {2, 0, 2}, {0.0, nan, -3e-4}, {0.0, nan, 2e-4}, {0.0, 0.0, 4e-8});
  a->mutable_observables(0)->set_variance_slope(1e-8);
  a->mutable_observables(0)->set_variance_slope_over_h4(1.25e-4);
  a->mutable_observables(0)->set_variance_fit_samples(1);
  a->mutable_observables(0)->set_variance_fit_t_min(2.0);
  a->mutable_observables(0)->set_variance_fit_t_max(2.0);
  auto* growth = a->mutable_observables(0)->mutable_variance_growth();
  growth->set_a(1e-9);
  growth->set_b(6.25e-10);  // b / h^4 = 1e-4
  growth->set_b_stderr(6.25e-11);
  growth->set_exponent(0.9);
  growth->set_exponent_stderr(0.1);
  growth->set_samples(2);
  growth->set_t_min(1.0);
  growth->set_t_max(2.0);
  growth->set_batches(2);
  *a->add_observables() = series("constraint_residual", {2, 0, 2}, {0.0, nan, 1e-17},
                                 {1e-16, nan, 5e-16}, {0.0, 0.0, 0.0});
  auto* b = result.add_integrators();  // statistics present, but no successful trajectory
  b->mutable_choice()->set_integrator("rk4");
  b->mutable_choice()->set_h(0.1);
  b->set_trajectories_failed(3);
  *b->add_observables() = a->observables(0);
  return result;
}

TEST(ClientReport, SummaryRowsTakeTheDocumentedStatistics) {
  const auto rows = summarize(example_result());
  ASSERT_EQ(rows.size(), 2U);
  const SummaryRow& a = rows[0];
  EXPECT_EQ(a.integrator, "si_dla");
  EXPECT_EQ(a.h, 0.05);
  EXPECT_EQ(a.trajectories_ok, 2);
  EXPECT_EQ(a.trajectories_failed, 1);
  EXPECT_EQ(a.steps_per_second, 1.5e7);
  EXPECT_EQ(a.max_abs_energy_error, std::optional<double>(3e-4));
  EXPECT_EQ(a.final_energy_error_variance, std::optional<double>(4e-8));
  EXPECT_NEAR(*a.growth_b_over_h4, 1e-4, 1e-19);
  EXPECT_NEAR(*a.growth_b_over_h4_stderr, 1e-5, 1e-20);
  EXPECT_EQ(a.growth_caveat, "");
  EXPECT_EQ(a.max_constraint_residual, std::optional<double>(5e-16));
  const SummaryRow& b = rows[1];
  EXPECT_EQ(b.integrator, "rk4");
  EXPECT_EQ(b.trajectories_failed, 3);
  EXPECT_FALSE(b.max_abs_energy_error.has_value());
  EXPECT_FALSE(b.final_energy_error_variance.has_value());
  EXPECT_FALSE(b.growth_b_over_h4.has_value());
  EXPECT_FALSE(b.max_constraint_residual.has_value());

  // A final sample without successful trajectories has no variance.
  auto result = example_result();
  result.mutable_integrators(0)->mutable_observables(0)->set_count(2, 0);
  EXPECT_FALSE(summarize(result)[0].final_energy_error_variance.has_value());
}

TEST(ClientReport, AGrowthDriftIsMarkedUnlessItsStandardErrorIsSmall) {
  auto result = example_result();
  auto* g = result.mutable_integrators(0)->mutable_observables(0)->mutable_variance_growth();
  g->set_b_stderr(1.25e-10);  // 20 %
  EXPECT_EQ(summarize(result)[0].growth_caveat, "");
  g->set_b_stderr(3.125e-10);  // 50 %
  EXPECT_EQ(summarize(result)[0].growth_caveat,
            "relative standard error 50 %: more trajectories, or a variance that does not grow "
            "(exponent 0.90 +- 0.10)");
  g->set_batches(1);
  EXPECT_EQ(summarize(result)[0].growth_caveat, "no fit: 2 sample times, 1 non-empty batches");
  // A result without the model (one trajectory, or written before it existed): "-".
  result.mutable_integrators(0)->mutable_observables(0)->clear_variance_growth();
  EXPECT_EQ(summarize(result)[0].growth_b_over_h4, std::nullopt);
}

TEST(ClientReport, SummaryTableHasOneLinePerIntegratorThenNotesAndWarnings) {
  auto result = example_result();
  const std::string table = summary_table(result);
  std::istringstream lines(table);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  ASSERT_EQ(all.size(), 6U) << table;
  EXPECT_THAT(all[0], HasSubstr("max|H-H0|"));
  EXPECT_THAT(all[0], HasSubstr("b/h^4"));
  EXPECT_THAT(all[1], HasSubstr("si_dla"));
  EXPECT_THAT(all[1], HasSubstr("3.000e-04"));
  EXPECT_THAT(all[1], HasSubstr("1.000e-04   1.00e-05"));
  EXPECT_THAT(all[2], HasSubstr("rk4"));
  EXPECT_THAT(all[2], HasSubstr(" -"));
  EXPECT_EQ(all[3],
            "b/h^4: drift of Var(H - H0) = a + b t over 2 sample times in t [1, 2], +- its "
            "standard error from 2 batches of trajectories");
  EXPECT_EQ(all[4],
            "warning: si_dla (h 0.05): 1 of 3 trajectories failed (33.3 %); its statistics are "
            "over the successful ones only");
  EXPECT_THAT(all[5], HasSubstr("warning: rk4 (h 0.1): 3 of 3 trajectories failed (100.0 %)"));

  result.mutable_integrators(0)->mutable_observables(0)->mutable_variance_growth()->set_b_stderr(
      5e-10);
  EXPECT_THAT(summary_table(result), HasSubstr("1.000e-04?"));
  EXPECT_THAT(summary_table(result), HasSubstr("? b/h^4 of si_dla (h 0.05): relative standard"));
  result.set_cancelled(true);
  result.mutable_integrators(1)->set_trajectories_cancelled(3);
  EXPECT_THAT(summary_table(result), HasSubstr("cancelled: 3 trajectory runs were not run"));
}

TEST(ClientReport, CsvHasOneRowPerIntegratorObservableAndSample) {
  const std::string csv = to_csv(example_result());
  std::istringstream lines(csv);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  // header + si_dla's 2 observables x 3 samples + rk4's 1 observable x 0 samples (rk4 has no
  // sample times in this example)
  ASSERT_EQ(all.size(), 1U + 2 * 3);
  EXPECT_EQ(all[0],
            "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95,mean_stderr,"
            "variance_stderr,q05_lower,q05_upper,q50_lower,q50_upper,q95_lower,q95_upper");
  // The example has no quantiles nor standard errors: the columns are there, empty.
  EXPECT_EQ(all[2], "0,si_dla,0.050000000000000003,energy_error,1,0,nan,0,nan,nan,,,,,,,,,,,");
  EXPECT_EQ(all[3],
            "0,si_dla,0.050000000000000003,energy_error,2,2,-4.9999999999999982e-05,"
            "4.0000000000000001e-08,-0.00029999999999999997,0.00020000000000000001,,,,,,,,,,,");
}

TEST(ClientReport, CsvQuantileColumns) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  v1::EnsembleResult result = example_result();
  auto* s = result.mutable_integrators(0)->mutable_observables(0);
  for (double q : {0.0, nan, -2.5e-4}) s->add_q05(q);
  for (double q : {0.0, nan, 1e-4}) s->add_q50(q);
  for (double q : {0.0, nan, 0.5}) s->add_q95(q);
  std::istringstream lines(to_csv(result));
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  ASSERT_EQ(all.size(), 1U + 2 * 3);
  // The standard errors and intervals (absent in this example) follow, empty.
  EXPECT_EQ(all[1], "0,si_dla,0.050000000000000003,energy_error,0,2,0,0,0,0,0,0,0,,,,,,,,");
  EXPECT_EQ(all[2],
            "0,si_dla,0.050000000000000003,energy_error,1,0,nan,0,nan,nan,nan,nan,nan,,,,,,,,");
  EXPECT_EQ(all[3],
            "0,si_dla,0.050000000000000003,energy_error,2,2,-4.9999999999999982e-05,"
            "4.0000000000000001e-08,-0.00029999999999999997,0.00020000000000000001,"
            "-0.00025000000000000001,0.0001,0.5,,,,,,,,");
  // The series without quantiles keeps empty columns.
  EXPECT_EQ(all[4].substr(all[4].size() - 3), ",,,");
}

TEST(ClientFiles, SpecParseErrorsNameTheFile) {
  try {
    parse_spec(R"({"system": 3})", "my_spec.json");
    FAIL() << "a number was accepted as the system name";
  } catch (const FileError& e) {
    EXPECT_THAT(e.what(), ::testing::StartsWith("my_spec.json: "));
  }
  try {
    parse_spec(R"({"sytem": "chaotic_quartic"})", "typo.json");
    FAIL() << "an unknown field was accepted";
  } catch (const FileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("sytem"));
  }
  try {
    load_spec("/nonexistent/dir/spec.json");
    FAIL() << "a missing file was read";
  } catch (const FileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/dir/spec.json"));
  }
}

TEST(ClientFiles, SpecAcceptsProtoNamesAndOptionalFields) {
  const auto spec = parse_spec(R"({
    "system": "chaotic_quartic", "parameters": {"n": 3},
    "initial_conditions": {"energy_shell": {"energy": 3.06, "seed": "20261122", "count": 200,
                                            "q_std": 0.25}},
    "integrators": [{"integrator": "gonzalez", "h": 0.05, "sample_every": 20}],
    "t_final": 1000})",
                               "inline");
  EXPECT_EQ(spec.parameters().at("n"), 3.0);
  EXPECT_EQ(spec.initial_conditions().energy_shell().seed(), 20261122U);
  EXPECT_TRUE(spec.initial_conditions().energy_shell().has_q_std());
  EXPECT_FALSE(spec.initial_conditions().energy_shell().has_max_attempts());
  EXPECT_EQ(spec.integrators(0).sample_every(), 20);
  EXPECT_EQ(spec.t_final(), 1000.0);
}

TEST(ClientFiles, ResultJsonUsesProtoFieldNamesAndRoundTrips) {
  const auto result = example_result();
  const std::string json = to_json(result);
  EXPECT_THAT(json, HasSubstr("\"n_trajectories\""));
  EXPECT_THAT(json, HasSubstr("\"variance_slope_over_h4\""));
  EXPECT_THAT(json, HasSubstr("\"trajectories_cancelled\""));  // zero values are printed
  EXPECT_THAT(json, ::testing::Not(HasSubstr("nTrajectories")));

  const auto dir = std::filesystem::temp_directory_path() / "nhsim-client-report-test";
  std::filesystem::remove_all(dir);
  const auto file = dir / "nested" / "result.json";
  write_text_file(file, json);  // creates the missing directories
  std::ifstream in(file);
  std::ostringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), json);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nhsim::client

namespace nhsim::client {
namespace {

/// A one-trajectory result: integrator `id` at step h ends (t = 10) at q[0] = x, p[0] = y.
void add_final_state(v1::EnsembleResult& result, const std::string& id, double h, double x,
                     double y) {
  auto* c = result.add_integrators();
  c->mutable_choice()->set_integrator(id);
  c->mutable_choice()->set_h(h);
  c->set_trajectories_ok(1);
  c->add_sample_times(0.0);
  c->add_sample_times(10.0);
  *c->add_observables() = series("q[0]", {1, 1}, {0.0, x}, {0.0, x}, {0.0, 0.0});
  *c->add_observables() = series("p[0]", {1, 1}, {0.0, y}, {0.0, y}, {0.0, 0.0});
}

TEST(ClientConvergence, ErrorsAgainstTheReferenceAndObservedOrder) {
  v1::EnsembleResult result;
  result.set_n_trajectories(1);
  // Second-order errors 4e-2, 1e-2 (in q) and a first-order pair 1e-1, 5e-2 (in p).
  add_final_state(result, "gonzalez", 0.2, 1.0 + 4e-2, 2.0);
  add_final_state(result, "gonzalez", 0.1, 1.0 - 1e-2, 2.0 + 1e-3);
  add_final_state(result, "euler", 0.2, 1.0, 2.0 + 1e-1);
  add_final_state(result, "euler", 0.1, 1.0, 2.0 - 5e-2);
  add_final_state(result, "rk4", 0.01, 1.0, 2.0);
  add_final_state(result, "rk4", 0.001, 1.0, 2.0);
  const auto rows = convergence(result, "rk4");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_TRUE(rows[5].reference);  // the smallest h of the named reference integrator
  EXPECT_FALSE(rows[5].error.has_value());
  EXPECT_NEAR(*rows[0].error, 4e-2, 1e-15);
  EXPECT_FALSE(rows[0].order.has_value());
  EXPECT_NEAR(*rows[1].error, 1e-2, 1e-15);
  EXPECT_NEAR(*rows[1].order, 2.0, 1e-12);
  EXPECT_NEAR(*rows[3].order, 1.0, 1e-12);
  EXPECT_EQ(*rows[4].error, 0.0);
  EXPECT_THAT(convergence_table(result, "rk4"), HasSubstr("ref"));
  // Without a named reference the smallest h of all choices is the reference.
  EXPECT_TRUE(convergence(result, "")[5].reference);
}

TEST(ClientConvergence, RefusesWhatItCannotCompare) {
  v1::EnsembleResult result;
  result.set_n_trajectories(2);
  add_final_state(result, "gonzalez", 0.1, 1.0, 2.0);
  EXPECT_THROW(convergence(result, ""), std::invalid_argument);  // an ensemble, not a trajectory
  result.set_n_trajectories(1);
  EXPECT_THROW(convergence(result, "rk4"), std::invalid_argument);  // no such reference
  v1::EnsembleResult no_state;
  no_state.set_n_trajectories(1);
  *no_state.add_integrators() = result.integrators(0);
  no_state.mutable_integrators(0)->clear_observables();
  EXPECT_THROW(convergence(no_state, ""), std::invalid_argument);
}

}  // namespace
}  // namespace nhsim::client
