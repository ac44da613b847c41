// nhsimd end to end in-process: a server on ephemeral ports, driven through the client library.
#include "nhsim/server/service.hpp"

#include <SQLiteCpp/Database.h>
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "nhsim/catalogue.hpp"
#include "nhsim/client/client.hpp"
#include "nhsim/client/files.hpp"
#include "nhsim/client/health.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/server/durable_store.hpp"
#include "nhsim/server/rpc_metrics.hpp"
#include "nhsim/server/server.hpp"
#include "nhsim/wire/from_proto.hpp"

namespace nhsim::server {
namespace {

using client::Client;
using client::RpcError;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr std::int64_t kMaxTrajectories = 1000;
constexpr double kMaxTrajectorySteps = 1e10;

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { start_server(""); }

  /// (Re)starts the server on an ephemeral port. The metrics endpoint is off unless asked for:
  /// stopping its HTTP server (civetweb) takes about two seconds.
  void start_server(const std::string& metrics,
                    const std::function<void(ServerOptions&)>& adjust = {}) {
    client_.reset();
    server_.reset();
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.metrics = metrics;
    options.threads = 2;
    options.max_running_jobs = 3;  // one identity (anonymous) runs at most 2 at once
    options.max_trajectories = kMaxTrajectories;
    options.max_trajectory_steps = kMaxTrajectorySteps;
    if (adjust) adjust(options);
    server_ = std::make_unique<Server>(options);
    ASSERT_GT(server_->port(), 0);
    client_ = std::make_unique<Client>("127.0.0.1:" + std::to_string(server_->port()));
  }

  /// The small experiment of the tests: 8 states on the shell E = 3.06, si_dla and rk4.
  static v1::SubmitEnsembleRequest small_spec() {
    v1::SubmitEnsembleRequest spec;
    spec.set_system("chaotic_quartic");
    (*spec.mutable_parameters())["n"] = 3;
    auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
    shell->set_energy(3.06);
    shell->set_seed(20261122);
    shell->set_count(8);
    for (const char* name : {"si_dla", "rk4"}) {
      auto* choice = spec.add_integrators();
      choice->set_integrator(name);
      choice->set_h(0.05);
      choice->set_sample_every(10);
    }
    spec.set_t_final(2.0);
    spec.set_label("small");
    return spec;
  }

  /// A spec of explicit states (n = 3, q = (x, w1..w3, z1..z3)) that lie on the constraint
  /// distribution: p_x + sum_i w_i p_{z_i} = 0.
  static v1::SubmitEnsembleRequest states_spec() {
    v1::SubmitEnsembleRequest spec = small_spec();
    auto* initial = spec.mutable_initial_conditions();
    initial->clear_energy_shell();
    for (int k = 0; k < 2; ++k) {
      auto* state = initial->add_states();
      const double w[3] = {0.1 * (k + 1), -0.2, 0.3};
      const double pz[3] = {0.5, 0.25 * (k + 1), -0.4};
      for (double value : {0.2, w[0], w[1], w[2], 0.0, 0.1, -0.1}) state->add_q(value);
      state->add_p(-(w[0] * pz[0] + w[1] * pz[1] + w[2] * pz[2]));
      for (double value : {0.3, -0.2, 0.1, pz[0], pz[1], pz[2]}) state->add_p(value);
    }
    return spec;
  }

  /// The status the server answers to a submission (OK when accepted).
  grpc::Status submit_status(const v1::SubmitEnsembleRequest& spec) const {
    try {
      client_->submit(spec);
      return grpc::Status::OK;
    } catch (const RpcError& e) {
      return {e.code(), e.message()};
    }
  }

  /// Follows a job to its end; returns the last message.
  v1::Job wait_for_end(const std::string& job_id) const { return client_->watch(job_id, nullptr); }

  /// A new data directory for a durable server; removed after the test, once the server stops.
  std::filesystem::path durable_dir() {
    char pattern[] = "/tmp/nhsim-service-store-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    data_dirs_.emplace_back(pattern);
    return data_dirs_.back();
  }

  void TearDown() override {
    client_.reset();
    server_.reset();
    for (const auto& dir : data_dirs_) std::filesystem::remove_all(dir);
  }

  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
  std::vector<std::filesystem::path> data_dirs_;
};

// ---------------------------------------------------------------------------------------------
// Bit-identity with the core

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

template <typename Repeated>
void expect_same_doubles(const std::vector<double>& core, const Repeated& wire,
                         const std::string& what) {
  ASSERT_EQ(core.size(), static_cast<std::size_t>(wire.size())) << what;
  for (std::size_t i = 0; i < core.size(); ++i) {
    EXPECT_TRUE(same_bits(core[i], wire.Get(static_cast<int>(i))))
        << what << "[" << i << "]: core " << core[i] << " vs served "
        << wire.Get(static_cast<int>(i));
  }
}

/// Every field of the served result equals the core's, doubles bit for bit; the timing fields
/// (wall_seconds, steps_per_second) are the only ones left out.
void expect_same_result(const EnsembleResult& core, const v1::EnsembleResult& served) {
  EXPECT_EQ(core.system, served.system());
  ASSERT_EQ(core.parameters.size(), served.parameters().size());
  for (const auto& [name, value] : core.parameters) {
    ASSERT_TRUE(served.parameters().contains(name)) << name;
    EXPECT_TRUE(same_bits(value, served.parameters().at(name))) << name;
  }
  EXPECT_EQ(core.n_trajectories, served.n_trajectories());
  EXPECT_EQ(core.cancelled, served.cancelled());
  EXPECT_EQ(core.partial, served.partial());
  ASSERT_EQ(core.integrators.size(), static_cast<std::size_t>(served.integrators_size()));
  for (std::size_t c = 0; c < core.integrators.size(); ++c) {
    const IntegratorResult& a = core.integrators[c];
    const v1::IntegratorResult& b = served.integrators(static_cast<int>(c));
    const std::string where = "integrators[" + std::to_string(c) + "]";
    EXPECT_EQ(a.choice.integrator, b.choice().integrator()) << where;
    EXPECT_TRUE(same_bits(a.choice.h, b.choice().h())) << where;
    EXPECT_EQ(a.choice.sample_every, b.choice().sample_every()) << where;
    EXPECT_TRUE(same_bits(a.choice.newton_tol, b.choice().newton_tol())) << where;
    EXPECT_EQ(a.choice.newton_max_iter, b.choice().newton_max_iter()) << where;
    EXPECT_EQ(a.n_steps, b.n_steps()) << where;
    expect_same_doubles(a.sample_times, b.sample_times(), where + ".sample_times");
    ASSERT_EQ(a.observables.size(), static_cast<std::size_t>(b.observables_size())) << where;
    for (std::size_t o = 0; o < a.observables.size(); ++o) {
      const SeriesStats& s = a.observables[o];
      const v1::SeriesStats& t = b.observables(static_cast<int>(o));
      const std::string name = where + "." + s.observable;
      EXPECT_EQ(s.observable, t.observable()) << name;
      EXPECT_EQ(s.count, std::vector<std::int64_t>(t.count().begin(), t.count().end())) << name;
      expect_same_doubles(s.mean, t.mean(), name + ".mean");
      expect_same_doubles(s.variance, t.variance(), name + ".variance");
      expect_same_doubles(s.min, t.min(), name + ".min");
      expect_same_doubles(s.max, t.max(), name + ".max");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // deprecated, still served
      EXPECT_TRUE(same_bits(s.variance_slope, t.variance_slope())) << name;
      EXPECT_TRUE(same_bits(s.variance_slope_over_h4, t.variance_slope_over_h4())) << name;
      EXPECT_TRUE(same_bits(s.variance_slope_stderr, t.variance_slope_stderr())) << name;
      EXPECT_EQ(s.variance_fit_samples, t.variance_fit_samples()) << name;
      EXPECT_TRUE(same_bits(s.variance_fit_t_min, t.variance_fit_t_min())) << name;
      EXPECT_TRUE(same_bits(s.variance_fit_t_max, t.variance_fit_t_max())) << name;
#pragma GCC diagnostic pop
      expect_same_doubles(s.mean_stderr, t.mean_stderr(), name + ".mean_stderr");
      expect_same_doubles(s.variance_stderr, t.variance_stderr(), name + ".variance_stderr");
      expect_same_doubles(s.q50_lower, t.q50_lower(), name + ".q50_lower");
      expect_same_doubles(s.q95_upper, t.q95_upper(), name + ".q95_upper");
      expect_same_doubles(s.variance_lower, t.variance_lower(), name + ".variance_lower");
      expect_same_doubles(s.variance_upper, t.variance_upper(), name + ".variance_upper");
      const VarianceGrowth& g = s.variance_growth;
      const v1::VarianceGrowth& w = t.variance_growth();
      EXPECT_TRUE(same_bits(g.b, w.b()) && same_bits(g.b_stderr, w.b_stderr()) &&
                  same_bits(g.a, w.a()) && same_bits(g.exponent, w.exponent()) &&
                  same_bits(g.b_lower, w.b_lower()) && same_bits(g.b_upper, w.b_upper()))
          << name;
      EXPECT_EQ(g.batches, w.batches()) << name;
    }
    EXPECT_EQ(a.trajectories_ok, b.trajectories_ok()) << where;
    EXPECT_EQ(a.trajectories_failed, b.trajectories_failed()) << where;
    EXPECT_EQ(a.trajectories_cancelled, b.trajectories_cancelled()) << where;
    ASSERT_EQ(a.failures.size(), static_cast<std::size_t>(b.failures_size())) << where;
    for (std::size_t f = 0; f < a.failures.size(); ++f) {
      const auto& x = a.failures[f];
      const auto& y = b.failures(static_cast<int>(f));
      EXPECT_EQ(x.trajectory, y.trajectory());
      EXPECT_EQ(x.integrator, y.integrator());
      EXPECT_TRUE(same_bits(x.time, y.time()));
      EXPECT_EQ(x.reason, y.reason());
    }
    EXPECT_EQ(a.steps_completed, b.steps_completed()) << where;
  }
}

TEST_F(ServiceTest, ResultIsBitIdenticalToTheInProcessCoreRun) {
  const v1::SubmitEnsembleRequest spec = small_spec();
  const v1::Job submitted = client_->submit(spec);
  EXPECT_EQ(submitted.state(), v1::QUEUED);
  EXPECT_EQ(submitted.label(), "small");
  EXPECT_EQ(submitted.trajectories_total(), 16);

  std::vector<v1::Job> updates;
  const v1::Job done =
      client_->watch(submitted.job_id(), [&](const v1::Job& job) { updates.push_back(job); });
  ASSERT_EQ(done.state(), v1::SUCCEEDED) << done.error();
  EXPECT_EQ(done.trajectories_done(), 16);
  EXPECT_TRUE(done.has_started_time());
  EXPECT_TRUE(done.has_finished_time());
  ASSERT_FALSE(updates.empty());
  for (std::size_t i = 1; i < updates.size(); ++i) {  // progress never goes back
    EXPECT_GE(updates[i].trajectories_done(), updates[i - 1].trajectories_done());
  }

  const v1::EnsembleResult served = client_->result(submitted.job_id());
  EXPECT_EQ(served.job_id(), submitted.job_id());
  EXPECT_EQ(served.label(), "small");

  // The server ran with 2 threads; the reference runs with 1 (results do not depend on it).
  RunOptions options;
  options.threads = 1;
  const EnsembleResult core = run_ensemble(wire::from_proto(spec), options);
  // The comparison is not vacuous: the run has samples, observables and trajectories.
  ASSERT_EQ(core.integrators.size(), 2U);
  EXPECT_EQ(core.integrators[0].sample_times.size(), 5U);  // t = 0, 0.5, 1, 1.5, 2
  EXPECT_FALSE(core.integrators[0].observables.empty());
  EXPECT_EQ(core.integrators[0].trajectories_ok + core.integrators[0].trajectories_failed, 8);
  expect_same_result(core, served);
}

TEST_F(ServiceTest, ExplicitStatesOnTheConstraintDistributionAreAccepted) {
  const v1::Job job = client_->submit(states_spec());
  const v1::Job done = wait_for_end(job.job_id());
  ASSERT_EQ(done.state(), v1::SUCCEEDED) << done.error();
  const v1::EnsembleResult result = client_->result(job.job_id());
  EXPECT_EQ(result.n_trajectories(), 2);
  EXPECT_EQ(result.integrators(0).trajectories_ok() + result.integrators(0).trajectories_failed(),
            2);
}

// The non-twisting body ensemble ([Gebhardt2020] §6): perturbed initial angular velocities
// of case 1 through the service. The served result is the core's, bit for bit, and the physics
// holds for every member: Pi3 = 0 to the Newton-tolerance level, the kinetic energy and Pi1, Pi2
// constant (no load), the directors orthonormal to round-off.
TEST_F(ServiceTest, NontwistingBodyEnsembleOfPerturbedAngularVelocities) {
  const v1::SubmitEnsembleRequest spec =
      client::load_spec(std::filesystem::path(NHSIM_EXAMPLES_DIR) / "nontwisting_ensemble.json");
  ASSERT_TRUE(spec.initial_conditions().has_velocity_perturbation());
  const v1::Job submitted = client_->submit(spec);
  const v1::Job done = wait_for_end(submitted.job_id());
  ASSERT_EQ(done.state(), v1::SUCCEEDED) << done.error();
  const v1::EnsembleResult served = client_->result(submitted.job_id());
  RunOptions options;
  options.threads = 1;
  const EnsembleResult core = run_ensemble(wire::from_proto(spec), options);
  ASSERT_EQ(core.integrators.size(), 2U);
  expect_same_result(core, served);
  auto stats = [](const IntegratorResult& r, const std::string& name) -> const SeriesStats& {
    for (const auto& s : r.observables) {
      if (s.observable == name) return s;
    }
    throw std::runtime_error("no observable " + name);
  };
  for (const auto& r : core.integrators) {
    SCOPED_TRACE(r.choice.integrator);
    EXPECT_EQ(r.trajectories_ok, 64);
    EXPECT_EQ(r.trajectories_failed, 0);
    const auto& pi1 = stats(r, "Pi1");
    const auto& pi3 = stats(r, "Pi3");
    const auto& rel = stats(r, "relative_energy_error");
    const auto& g = stats(r, "position_constraint_residual");
    // The perturbations differ: Pi1 spreads across the ensemble at t = 0.
    EXPECT_GT(pi1.variance.front(), 0.1);
    for (std::size_t k = 0; k < pi3.max.size(); ++k) {
      EXPECT_LE(std::max(std::abs(pi3.min[k]), std::abs(pi3.max[k])), 1e-7) << k;
      EXPECT_LE(rel.max[k], 1e-9) << k;
      EXPECT_LE(g.max[k], 1e-11) << k;
      // Pi1 of every member is constant: the ensemble's min and max do not move.
      EXPECT_NEAR(pi1.min[k], pi1.min.front(), 1e-6 * std::abs(pi1.min.front()) + 1e-9) << k;
      EXPECT_NEAR(pi1.max[k], pi1.max.front(), 1e-6 * std::abs(pi1.max.front()) + 1e-9) << k;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Validation: each case answers its code, and the message starts with the field path.

void expect_invalid(const grpc::Status& status, const std::string& field) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(field + ": "));
}

TEST_F(ServiceTest, UnknownSystemIsInvalidAndListsTheKnownOnes) {
  auto spec = small_spec();
  spec.set_system("no_such_system");
  const auto status = submit_status(spec);
  expect_invalid(status, "system");
  EXPECT_THAT(status.error_message(), HasSubstr("chaotic_quartic"));
}

TEST_F(ServiceTest, AHugeUnknownNameIsEchoedTruncated) {
  auto spec = small_spec();
  spec.set_system(std::string(1 << 20, 'x'));
  const auto status = submit_status(spec);
  expect_invalid(status, "system");
  EXPECT_THAT(status.error_message(), HasSubstr("...' (1048576 bytes)"));
  EXPECT_LT(status.error_message().size(), 2000u);
  spec = small_spec();
  (*spec.mutable_parameters())[std::string(100000, 'y')] = 1.0;
  EXPECT_LT(submit_status(spec).error_message().size(), 2000u);
}

TEST_F(ServiceTest, UnknownIntegratorIsInvalidAndListsTheKnownOnes) {
  auto spec = small_spec();
  spec.mutable_integrators(1)->set_integrator("euler_forward");
  const auto status = submit_status(spec);
  expect_invalid(status, "integrators[1].integrator");
  for (const char* known : {"gonzalez", "avf", "si_dla", "rk4"}) {
    EXPECT_THAT(status.error_message(), HasSubstr(known));
  }
}

TEST_F(ServiceTest, IntegratorThatDoesNotApplyIsInvalid) {
  std::vector<std::string> applicable;
  for (const auto& system : list_systems()) {
    if (system.name == "chaotic_quartic") applicable = system.integrators;
  }
  int checked = 0;
  for (const auto& integrator : list_integrators()) {
    if (std::find(applicable.begin(), applicable.end(), integrator.name) != applicable.end()) {
      continue;
    }
    auto spec = small_spec();
    spec.mutable_integrators(0)->set_integrator(integrator.name);
    expect_invalid(submit_status(spec), "integrators[0].integrator");
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "every known integrator applies to chaotic_quartic";
}

TEST_F(ServiceTest, NonPositiveOrNonFiniteStepIsInvalid) {
  for (double h : {0.0, -0.05, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity()}) {
    auto spec = small_spec();
    spec.mutable_integrators(1)->set_h(h);
    SCOPED_TRACE(h);
    expect_invalid(submit_status(spec), "integrators[1].h");
  }
}

TEST_F(ServiceTest, NonPositiveOrNonFiniteFinalTimeIsInvalid) {
  for (double t_final : {0.0, -2.0, std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity()}) {
    auto spec = small_spec();
    spec.set_t_final(t_final);
    SCOPED_TRACE(t_final);
    expect_invalid(submit_status(spec), "t_final");
  }
}

TEST_F(ServiceTest, SampleEveryZeroIsInvalid) {
  auto spec = small_spec();
  spec.mutable_integrators(0)->set_sample_every(0);
  expect_invalid(submit_status(spec), "integrators[0].sample_every");
}

TEST_F(ServiceTest, ZeroTrajectoriesIsInvalid) {
  auto spec = small_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(0);
  const auto status = submit_status(spec);
  expect_invalid(status, "initial_conditions.energy_shell.count");

  auto none = small_spec();
  none.clear_initial_conditions();  // no states and no generator
  expect_invalid(submit_status(none), "initial_conditions");
}

/// The Fig. 4 snakeboard spec of [Kobilarov2010] (one explicit state on the constraint
/// distribution, nh_rattle, the two harmonic controls).
v1::SubmitEnsembleRequest snakeboard_spec() {
  v1::SubmitEnsembleRequest spec;
  spec.set_system("snakeboard");
  auto* state = spec.mutable_initial_conditions()->add_states();
  for (double v : {1.5707963267948966, 1.0471975511965976, 0.0, 0.0, 0.0}) state->add_q(v);
  // state_from_shape(pi/2, pi/3, 0, 0, 0, 2.5, -0.02, p1 = -1) with the default parameters.
  for (double v : {0.34823729810778081, -0.08, -0.55352540378443837, 1.0412658773652743, 0.0}) {
    state->add_p(v);
  }
  auto* choice = spec.add_integrators();
  choice->set_integrator("nh_rattle");
  choice->set_h(10.0 / 128);
  choice->set_sample_every(32);
  spec.set_t_final(10.0);
  auto* u_psi = spec.add_controls();
  u_psi->set_kind(v1::Control::COSINE);
  u_psi->set_amplitude(1.0);
  u_psi->set_omega(20 * M_PI);
  auto* u_phi = spec.add_controls();
  u_phi->set_kind(v1::Control::SINE);
  u_phi->set_amplitude(1.0);
  u_phi->set_omega(2 * M_PI);
  return spec;
}

TEST_F(ServiceTest, InvalidControlsAreInvalidWithTheFieldPath) {
  auto bad_omega = snakeboard_spec();
  bad_omega.mutable_controls(1)->set_omega(std::numeric_limits<double>::infinity());
  expect_invalid(submit_status(bad_omega), "controls[1].omega");

  auto no_kind = snakeboard_spec();
  no_kind.mutable_controls(0)->set_kind(v1::Control::KIND_UNSPECIFIED);
  expect_invalid(submit_status(no_kind), "controls[0].kind");

  auto table = snakeboard_spec();
  auto* t = table.mutable_controls(0);
  t->Clear();
  t->set_kind(v1::Control::TABLE);
  t->add_times(1.0);
  t->add_times(0.5);
  t->add_values(0.0);
  t->add_values(1.0);
  expect_invalid(submit_status(table), "controls[0].times[1]");

  auto one = snakeboard_spec();
  one.mutable_controls()->RemoveLast();
  const auto status = submit_status(one);
  expect_invalid(status, "controls");
  EXPECT_THAT(status.error_message(), HasSubstr("2 control inputs"));

  auto uncontrolled_system = small_spec();
  uncontrolled_system.add_controls()->set_kind(v1::Control::CONSTANT);
  expect_invalid(submit_status(uncontrolled_system), "controls");
}

TEST_F(ServiceTest, StatesAndGeneratorTogetherAreInvalid) {
  auto spec = states_spec();
  *spec.mutable_initial_conditions()->mutable_energy_shell() =
      small_spec().initial_conditions().energy_shell();
  expect_invalid(submit_status(spec), "initial_conditions");
}

TEST_F(ServiceTest, MoreTrajectoriesThanTheLimitAreResourceExhausted) {
  auto spec = small_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(kMaxTrajectories + 1);
  const auto status = submit_status(spec);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("--max-trajectories=1000"));
  // At the limit it is accepted.
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(kMaxTrajectories);
  const auto accepted = submit_status(spec);
  EXPECT_TRUE(accepted.ok()) << accepted.error_message();
}

TEST_F(ServiceTest, MoreTrajectoryStepsThanTheLimitAreResourceExhausted) {
  auto spec = small_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(kMaxTrajectories);
  // 1000 trajectories x 2 integrators x (1e6 / 0.05) steps = 4e10 > 1e10.
  spec.set_t_final(1e6);
  const auto status = submit_status(spec);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("--max-trajectory-steps"));
}

TEST_F(ServiceTest, StateOfTheWrongDimensionIsInvalid) {
  auto short_q = states_spec();
  short_q.mutable_initial_conditions()->mutable_states(1)->mutable_q()->RemoveLast();
  expect_invalid(submit_status(short_q), "initial_conditions.states[1].q");

  auto long_p = states_spec();
  long_p.mutable_initial_conditions()->mutable_states(0)->add_p(0.0);
  expect_invalid(submit_status(long_p), "initial_conditions.states[0].p");
}

TEST_F(ServiceTest, NonFiniteStateIsInvalid) {
  auto nan_q = states_spec();
  nan_q.mutable_initial_conditions()->mutable_states(0)->set_q(
      4, std::numeric_limits<double>::quiet_NaN());
  expect_invalid(submit_status(nan_q), "initial_conditions.states[0].q");

  auto inf_p = states_spec();
  inf_p.mutable_initial_conditions()->mutable_states(1)->set_p(
      2, std::numeric_limits<double>::infinity());
  expect_invalid(submit_status(inf_p), "initial_conditions.states[1].p");
}

TEST_F(ServiceTest, StateOffTheConstraintDistributionIsInvalid) {
  // Residual p_x + sum_i w_i p_{z_i} = 1e-8, more than the tolerance 1e-10.
  auto spec = states_spec();
  auto* state = spec.mutable_initial_conditions()->mutable_states(1);
  state->set_p(0, state->p(0) + 1e-8);
  expect_invalid(submit_status(spec), "initial_conditions.states[1].p");
}

TEST_F(ServiceTest, UnknownJobIsNotFound) {
  for (const auto& call :
       std::vector<std::function<void()>>{[&] { client_->get_job("0123456789abcdef"); },
                                          [&] { client_->result("0123456789abcdef"); },
                                          [&] { client_->cancel("0123456789abcdef"); },
                                          [&] { client_->watch("0123456789abcdef", nullptr); }}) {
    try {
      call();
      ADD_FAILURE() << "an unknown job was answered";
    } catch (const RpcError& e) {
      EXPECT_EQ(e.code(), grpc::StatusCode::NOT_FOUND) << e.what();
    }
  }
}

TEST_F(ServiceTest, AJobIsNamedByAnUnambiguousStartOfItsId) {
  // Progress lines show 8 characters of the id.
  const v1::Job submitted = client_->submit(small_spec());
  const std::string id = submitted.job_id();
  const std::string start = id.substr(0, 8);
  EXPECT_EQ(client_->get_job(start).job_id(), id);
  ASSERT_EQ(client_->watch(start, nullptr).state(), v1::SUCCEEDED);
  EXPECT_EQ(client_->result(start).job_id(), id);
  EXPECT_EQ(client_->cancel(start).job_id(), id);  // a finished job: nothing changes
  try {
    client_->get_job(id.substr(0, kMinJobIdPrefix - 1));
    ADD_FAILURE() << "too short a start was answered";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::NOT_FOUND) << e.what();
  }
}

TEST(JobIdsNamed, TheIdItselfOrEveryIdItStartsWithAtLeastSixCharacters) {
  const std::vector<std::string> ids = {"abcdef0123", "abcdef4567", "abcdef", "0f1e2d3c4b"};
  EXPECT_EQ(job_ids_named("abcdef", ids), std::vector<std::string>{"abcdef"});  // exact wins
  EXPECT_EQ(job_ids_named("abcdef4", ids), std::vector<std::string>{"abcdef4567"});
  EXPECT_EQ(job_ids_named("abcdef0", ids), std::vector<std::string>{"abcdef0123"});
  EXPECT_EQ(job_ids_named("0f1e2d", ids), std::vector<std::string>{"0f1e2d3c4b"});
  EXPECT_EQ(job_ids_named("abcde", ids), std::vector<std::string>{});  // under 6: not a start
  EXPECT_EQ(job_ids_named("0f1e2", ids), std::vector<std::string>{});
  const std::vector<std::string> two = {"abcdef0123", "abcdef4567"};
  EXPECT_EQ(job_ids_named("abcdef", two).size(), 2U);  // ambiguous: INVALID_ARGUMENT
}

// ---------------------------------------------------------------------------------------------
// Cancellation

/// A job long enough that it is still running when cancelled: 1000 trajectories of 2e5 steps.
v1::SubmitEnsembleRequest long_spec() {
  v1::SubmitEnsembleRequest spec;
  spec.set_system("chaotic_quartic");
  auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(1);
  shell->set_count(kMaxTrajectories);
  auto* choice = spec.add_integrators();
  choice->set_integrator("rk4");
  choice->set_h(0.05);
  choice->set_sample_every(100);
  spec.set_t_final(1e4);
  return spec;
}

TEST_F(ServiceTest, StatisticsOverTheMemoryLimitAreRefusedAtSubmission) {
  // 500 trajectories, 10^6 sample times of 3 observables: tens of GB of statistics.
  auto spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(500);
  spec.mutable_integrators(0)->set_sample_every(1);
  spec.set_t_final(0.05 * 1'000'000);
  const auto status = submit_status(spec);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("observables: the statistics of 3000003 cells"));
  EXPECT_THAT(status.error_message(), HasSubstr("--max-job-memory-mb=2048"));
}

TEST_F(ServiceTest, OutputsOverTheMemoryLimitAreRefusedAtSubmission) {
  // 1000 trajectories sampled with their states at 2001 times: about 260 MiB of outputs beside
  // 72 MiB of statistics, over a 128 MiB limit.
  start_server("", [](ServerOptions& options) { options.max_job_memory_mb = 128; });
  auto spec = long_spec();
  spec.set_t_final(0.05 * 200'000);
  spec.mutable_outputs()->mutable_sampled()->set_all(true);
  spec.mutable_outputs()->set_sampled_state(true);
  const auto status = submit_status(spec);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("outputs: the per-trajectory outputs need about"));
  EXPECT_THAT(status.error_message(), HasSubstr("--max-job-memory-mb=128"));
  // The same outputs for 10 chosen trajectories fit.
  spec.mutable_outputs()->mutable_sampled()->set_all(false);
  for (int i = 0; i < 10; ++i) spec.mutable_outputs()->mutable_sampled()->add_indices(i * 100);
  const v1::Job job = client_->submit(spec);
  EXPECT_EQ(client_->cancel(job.job_id()).job_id(), job.job_id());
}

TEST_F(ServiceTest, AResultLargerThanOneMessageIsStreamed) {
  start_server("", [](ServerOptions& options) { options.max_message_mb = 1; });
  // One trajectory, 30001 sample times of 3 observables: about 5 MiB of result.
  auto spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(1);
  spec.mutable_integrators(0)->set_sample_every(1);
  spec.set_t_final(0.05 * 30'000);
  const v1::Job job = client_->submit(spec);
  ASSERT_EQ(wait_for_end(job.job_id()).state(), v1::SUCCEEDED);
  const v1::EnsembleResult result = client_->result(job.job_id());  // StreamResult
  EXPECT_GT(result.ByteSizeLong(), 4u << 20);
  ASSERT_EQ(result.integrators_size(), 1);
  EXPECT_EQ(result.integrators(0).sample_times_size(), 30001);
  EXPECT_EQ(result.job_id(), job.job_id());
  // The unary GetResult cannot carry it and says where to read it.
  auto stub = v1::EnsembleService::NewStub(client_->channel());
  grpc::ClientContext context;
  v1::GetResultRequest request;
  request.set_job_id(job.job_id());
  v1::EnsembleResult unary;
  const grpc::Status status = stub->GetResult(&context, request, &unary);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("read it with StreamResult"));
}

TEST_F(ServiceTest, AResultOverTheResultLimitIsRefusedAtSubmission) {
  start_server("", [](ServerOptions& options) { options.max_result_mb = 1; });
  auto spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(1);
  spec.mutable_integrators(0)->set_sample_every(1);
  spec.set_t_final(0.05 * 30'000);
  const auto status = submit_status(spec);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("integrators: the result would have about 11 MiB"));
  EXPECT_THAT(status.error_message(), HasSubstr("--max-result-mb=1"));
  spec.mutable_integrators(0)->set_sample_every(100);  // 301 sample times: fits
  EXPECT_TRUE(submit_status(spec).ok());
}

TEST_F(ServiceTest, GeneratorDrawsCountAsWork) {
  auto spec = long_spec();  // 1000 trajectories
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_max_attempts(1'000'000);
  spec.set_t_final(1.0);
  start_server("", [](ServerOptions& options) { options.max_trajectory_steps = 1e8; });
  const auto status = submit_status(spec);  // up to 1e9 draws
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("initial_conditions.energy_shell.max_attempts: up to 1e+09 generator "
                         "draws"));
}

// ---------------------------------------------------------------------------------------------
// Listing, deleting, the queue bound and retention

/// The status code of a call that must fail.
template <typename Call>
grpc::StatusCode failure_code(Call&& call) {
  try {
    call();
  } catch (const RpcError& e) {
    return e.code();
  }
  return grpc::StatusCode::OK;
}

TEST_F(ServiceTest, ListJobsPagesThroughTheJobsOldestFirst) {
  std::vector<std::string> ids;
  for (int k = 0; k < 5; ++k) ids.push_back(client_->submit(small_spec()).job_id());
  auto stub = v1::EnsembleService::NewStub(client_->channel());
  v1::ListJobsRequest request;
  request.set_page_size(2);
  std::vector<std::string> listed;
  int pages = 0;
  do {
    grpc::ClientContext context;
    v1::ListJobsResponse page;
    ASSERT_TRUE(stub->ListJobs(&context, request, &page).ok());
    for (const auto& job : page.jobs()) listed.push_back(job.job_id());
    request.set_page_token(page.next_page_token());
    ++pages;
  } while (!request.page_token().empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(listed, ids);
  EXPECT_EQ(client_->list_jobs().size(), 5u);
  request.set_page_size(1001);
  grpc::ClientContext context;
  v1::ListJobsResponse page;
  EXPECT_EQ(stub->ListJobs(&context, request, &page).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(ServiceTest, DeleteRemovesAFinishedJobAndRefusesARunningOne) {
  const v1::Job running = client_->submit(long_spec());
  EXPECT_EQ(failure_code([&] { client_->delete_job(running.job_id()); }),
            grpc::StatusCode::FAILED_PRECONDITION);
  const v1::Job small = client_->submit(small_spec());
  ASSERT_EQ(wait_for_end(small.job_id()).state(), v1::SUCCEEDED);
  client_->delete_job(small.job_id());
  EXPECT_EQ(failure_code([&] { client_->get_job(small.job_id()); }), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(failure_code([&] { client_->delete_job(small.job_id()); }),
            grpc::StatusCode::NOT_FOUND);
  client_->cancel(running.job_id());
  wait_for_end(running.job_id());
}

TEST_F(ServiceTest, TheQueueIsBounded) {
  start_server("", [](ServerOptions& options) {
    options.max_running_jobs = 1;
    options.max_queued_jobs = 1;
  });
  const v1::Job running = client_->submit(long_spec());
  while (client_->get_job(running.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const v1::Job queued = client_->submit(small_spec());
  const auto status = submit_status(small_spec());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("queue: 1 jobs wait to run"));
  client_->cancel(queued.job_id());
  client_->cancel(running.job_id());
  wait_for_end(running.job_id());
}

// Issue 49 item 11: a damaged checkpoint failed its job after a restart ("its checkpoint is
// damaged") instead of running it again from the start, and a damaged request failed with the
// misleading "system: no system".
TEST_F(ServiceTest, ADamagedCheckpointRunsItsJobAgainAndADamagedRequestIsNamed) {
  const std::filesystem::path data_dir = durable_dir();
  const std::string resumed = "0123456789abcdef0123456789abcdef";
  const std::string broken = "fedcba9876543210fedcba9876543210";
  {
    DurableStore store(data_dir);
    StoredJob job;
    job.id = resumed;
    job.owner = "anonymous";
    job.state = v1::RUNNING;
    job.request = small_spec().SerializeAsString();
    job.created_ms = 1700000000000;
    job.trajectories_total = 16;
    store.insert(job);
    store.save_checkpoint(resumed, std::string("\xff\xfe not a partial result", 24), 8);
    job.id = broken;
    job.request = std::string("\xff\xff\xff not a request", 24);
    store.insert(job);
  }
  start_server("", [&](ServerOptions& options) { options.data_dir = data_dir; });
  ASSERT_EQ(wait_for_end(resumed).state(), v1::SUCCEEDED);
  const v1::Job fresh = client_->submit(small_spec());
  ASSERT_EQ(wait_for_end(fresh.job_id()).state(), v1::SUCCEEDED);
  const v1::EnsembleResult again = client_->result(resumed);
  const v1::EnsembleResult reference = client_->result(fresh.job_id());
  ASSERT_EQ(again.integrators_size(), reference.integrators_size());
  for (int i = 0; i < again.integrators_size(); ++i) {  // the statistics, bit for bit
    ASSERT_EQ(again.integrators(i).observables_size(), reference.integrators(i).observables_size());
    for (int j = 0; j < again.integrators(i).observables_size(); ++j) {
      EXPECT_EQ(again.integrators(i).observables(j).SerializeAsString(),
                reference.integrators(i).observables(j).SerializeAsString());
    }
  }
  // Issue 49 item 9: a record whose request fails its checksum is quarantined, answered with
  // DATA_LOSS naming it, until deleted.
  try {
    client_->get_job(broken);
    ADD_FAILURE() << "a damaged job was answered";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::DATA_LOSS) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("job " + broken + ": its stored request is damaged"));
  }
  // ... and listed, never silently missing: FAILED, the error naming the damage.
  const auto listed = [&] {
    for (const v1::Job& job : client_->list_jobs()) {
      if (job.job_id() == broken) return std::optional<v1::Job>(job);
    }
    return std::optional<v1::Job>();
  };
  ASSERT_TRUE(listed().has_value());
  EXPECT_EQ(listed()->state(), v1::FAILED);
  EXPECT_THAT(listed()->error(), HasSubstr("quarantined: its stored request is damaged"));
  client_->delete_job(broken);
  EXPECT_FALSE(listed().has_value());
  try {
    client_->get_job(broken);
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::NOT_FOUND) << e.what();
  }
}

// Issue 49 item 10: a truncated stored result was served as OK. A result that fails its
// checksum answers DATA_LOSS naming the job, by GetResult and by StreamResult.
TEST_F(ServiceTest, ADamagedStoredResultIsDataLoss) {
  const std::filesystem::path data_dir = durable_dir();
  start_server("", [&](ServerOptions& options) { options.data_dir = data_dir; });
  const std::string id = client_->submit(small_spec()).job_id();
  ASSERT_EQ(wait_for_end(id).state(), v1::SUCCEEDED);
  client_.reset();
  server_.reset();
  {
    SQLite::Database raw((data_dir / "nhsimd.sqlite3").string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE jobs SET result = randomblob(length(result)) WHERE id = '" + id + "'");
  }
  start_server("", [&](ServerOptions& options) { options.data_dir = data_dir; });
  EXPECT_EQ(client_->get_job(id).state(), v1::SUCCEEDED);
  try {
    client_->result(id);  // StreamResult
    ADD_FAILURE() << "damaged bytes were served";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::DATA_LOSS) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("the stored result of job " + id + " is damaged"));
  }
  auto stub = v1::EnsembleService::NewStub(client_->channel());
  grpc::ClientContext context;
  v1::GetResultRequest request;
  request.set_job_id(id);
  v1::EnsembleResult unary;
  const grpc::Status status = stub->GetResult(&context, request, &unary);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("the stored result of job " + id + " is damaged"));
}

// Issue 49 item 14: a client whose submit was in flight at a crash could end up with a job it
// never got an id for. A submit sent again with its idempotency key answers the job the first
// one created, also after a restart; the key names one spec.
TEST_F(ServiceTest, ASubmitSentAgainWithItsIdempotencyKeyAnswersTheSameJob) {
  const std::filesystem::path data_dir = durable_dir();
  start_server("", [&](ServerOptions& options) { options.data_dir = data_dir; });
  const std::string first = client_->submit(small_spec(), "retry-1").job_id();
  EXPECT_EQ(client_->submit(small_spec(), "retry-1").job_id(), first);
  EXPECT_NE(client_->submit(small_spec()).job_id(), first);  // a fresh key: a new job
  EXPECT_EQ(client_->list_jobs().size(), 2u);
  v1::SubmitEnsembleRequest other = small_spec();
  other.set_label("another spec");
  try {
    client_->submit(other, "retry-1");
    ADD_FAILURE() << "a key was used for two specs";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::ALREADY_EXISTS) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("idempotency-key retry-1: already used for job " + first));
  }
  try {
    client_->submit(small_spec(), "no spaces");
    ADD_FAILURE() << "a bad key was taken";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::INVALID_ARGUMENT) << e.what();
  }
  wait_for_end(first);
  start_server("", [&](ServerOptions& options) { options.data_dir = data_dir; });
  EXPECT_EQ(client_->submit(small_spec(), "retry-1").job_id(), first);
  EXPECT_EQ(client_->list_jobs().size(), 2u);
}

// Issue 49 item 12: after the disk filled, health stayed NOT_SERVING until some write
// succeeded, so behind a readiness probe it might never recover; a submit on a full disk named
// the server's file path. A file size limit of one byte (RLIMIT_FSIZE) stands in for the full
// disk: every write of the store fails with EFBIG.
TEST_F(ServiceTest, AFullDiskAnswersUnavailableAndHealthRecoversByItself) {
  const std::filesystem::path data_dir = durable_dir();
  start_server("", [&](ServerOptions& options) { options.data_dir = data_dir; });
  const auto health = [&](const char* service) {
    return nhsim::client::health_status(client_->channel(), service).value_or(0);
  };
  const auto wait_for_health = [&](std::uint64_t status) {
    for (int i = 0; i < 50 && health("nhsim.v1.EnsembleService") != status; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return health("nhsim.v1.EnsembleService");
  };
  constexpr std::uint64_t kServing = 1, kNotServing = 2;
  ASSERT_EQ(health("nhsim.v1.EnsembleService"), kServing);
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit full = saved;
  full.rlim_cur = 1;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &full), 0);
  const grpc::Status refused = submit_status(small_spec());
  const std::uint64_t while_full = wait_for_health(kNotServing);
  const std::uint64_t alive = health("");
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
  EXPECT_THAT(refused.error_message(), HasSubstr("cannot store jobs now"));
  EXPECT_THAT(refused.error_message(), Not(HasSubstr(data_dir.string())));
  EXPECT_EQ(while_full, kNotServing);  // readiness: jobs cannot be stored
  EXPECT_EQ(alive, kServing);          // liveness: the process serves
  EXPECT_EQ(wait_for_health(kServing), kServing) << "health did not recover by itself";
  EXPECT_EQ(submit_status(small_spec()).error_code(), grpc::StatusCode::OK);
}

TEST_F(ServiceTest, FinishedJobsAreEvictedAfterTheRetentionPeriod) {
  start_server("",
               [](ServerOptions& options) { options.keep_finished_for = std::chrono::seconds(1); });
  const v1::Job job = client_->submit(small_spec());
  ASSERT_EQ(wait_for_end(job.job_id()).state(), v1::SUCCEEDED);
  grpc::StatusCode code = grpc::StatusCode::OK;
  for (int attempt = 0; attempt < 100 && code == grpc::StatusCode::OK; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    code = failure_code([&] { client_->get_job(job.job_id()); });
  }
  EXPECT_EQ(code, grpc::StatusCode::NOT_FOUND);  // within 5 s: 1 s kept, checked every 1 s
}

// A queued job of a durable server holds neither its request nor its spec in memory: both are
// read back from the store when it starts, to the same bits.
TEST_F(ServiceTest, AQueuedJobsRequestLivesInTheStoreNotInMemory) {
  start_server("", [&](ServerOptions& options) {
    options.data_dir = durable_dir();
    options.max_running_jobs = 1;
    options.max_trajectories = 100000;
  });
  v1::SubmitEnsembleRequest blocking = long_spec();  // 2 x 2e8 steps: cancelled below
  blocking.mutable_initial_conditions()->mutable_energy_shell()->set_count(2);
  blocking.set_t_final(1e7);
  blocking.mutable_integrators(0)->set_sample_every(10000000);
  const v1::Job running = client_->submit(blocking);
  while (client_->get_job(running.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  v1::SubmitEnsembleRequest big = states_spec();  // 20 000 states: about 9 MB as message + spec
  for (int k = 0; k < 9999; ++k) {
    for (int i = 0; i < 2; ++i) {
      *big.mutable_initial_conditions()->add_states() = big.initial_conditions().states(i);
    }
  }
  std::vector<std::string> queued;
  const std::size_t before = mallinfo2().uordblks;
  for (int k = 0; k < 8; ++k) queued.push_back(client_->submit(big).job_id());
  const double grown_mb = (static_cast<double>(mallinfo2().uordblks) - before) / (1 << 20);
  // Measured: 5.6 MB in all (the store's page cache and gRPC's buffers), 36 MB for 4 jobs when
  // each held its request and spec.
  EXPECT_LT(grown_mb, 12.0) << "MB held by 8 queued jobs of 20 000 states";
  for (const std::string& id : queued) ASSERT_EQ(client_->get_job(id).state(), v1::QUEUED);
  client_->cancel(running.job_id());
  for (const std::string& id : queued) ASSERT_EQ(wait_for_end(id).state(), v1::SUCCEEDED);
  const EnsembleResult core = run_ensemble(wire::from_proto(big), RunOptions{});
  expect_same_result(core, client_->result(queued.back()));
}

TEST_F(ServiceTest, CancelStopsARunningJobWhichKeepsItsPartialResult) {
  const v1::Job job = client_->submit(long_spec());
  // Wait until it runs, then cancel from inside the watch.
  bool cancel_sent = false;
  const v1::Job done = client_->watch(job.job_id(), [&](const v1::Job& update) {
    if (update.state() == v1::RUNNING && !cancel_sent) {
      cancel_sent = true;
      const v1::Job after = client_->cancel(job.job_id());
      EXPECT_TRUE(after.cancel_requested());
    }
  });
  ASSERT_TRUE(cancel_sent);
  EXPECT_EQ(done.state(), v1::CANCELLED);
  EXPECT_LT(done.trajectories_done(), done.trajectories_total());

  // GetJob agrees, and the partial result is retrievable with consistent counts.
  EXPECT_EQ(client_->get_job(job.job_id()).state(), v1::CANCELLED);
  const v1::EnsembleResult partial = client_->result(job.job_id());
  EXPECT_TRUE(partial.cancelled());
  ASSERT_EQ(partial.integrators_size(), 1);
  const auto& r = partial.integrators(0);
  EXPECT_GT(r.trajectories_cancelled(), 0);
  EXPECT_EQ(r.trajectories_ok() + r.trajectories_failed() + r.trajectories_cancelled(),
            kMaxTrajectories);

  // Cancelling again changes nothing.
  EXPECT_EQ(client_->cancel(job.job_id()).state(), v1::CANCELLED);
}

/// Seconds from CancelJob until the job is CANCELLED, cancelling 0.3 s after it runs.
double cancel_latency(const Client& client, const v1::SubmitEnsembleRequest& spec) {
  const v1::Job job = client.submit(spec);
  while (client.get_job(job.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto cancelled = std::chrono::steady_clock::now();
  client.cancel(job.job_id());
  const v1::Job done = client.watch(job.job_id(), nullptr);
  EXPECT_EQ(done.state(), v1::CANCELLED);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled).count();
}

TEST_F(ServiceTest, CancelTakesEffectWithinOneSecondInsideALongSampleInterval) {
  // One trajectory, one sample interval of 5e8 steps (about a minute of rk4).
  v1::SubmitEnsembleRequest spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(1);
  spec.mutable_integrators(0)->set_sample_every(500'000'000);
  spec.set_t_final(0.05 * 500'000'000);
  const double seconds = cancel_latency(*client_, spec);
  RecordProperty("cancel_latency_seconds", std::to_string(seconds));
  EXPECT_LT(seconds, 1.0);
}

TEST_F(ServiceTest, CancelTakesEffectWithinOneSecondOnAnUnreachableEnergyShell) {
  // V < 1e-12 needs |q|^2 < 2e-12 in 7 dimensions: no draw succeeds, and each trajectory tries
  // 1e6 draws (~0.4 s). (Energies <= 0 are refused at submission.)
  v1::SubmitEnsembleRequest spec = long_spec();
  auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(1e-12);
  shell->set_max_attempts(1'000'000);
  const double seconds = cancel_latency(*client_, spec);
  RecordProperty("cancel_latency_seconds", std::to_string(seconds));
  EXPECT_LT(seconds, 1.0);
}

TEST_F(ServiceTest, CancelTakesEffectWithinOneSecondInADivergingSweep) {
  // rk4 at h = 50 over 1000 cases of the shell's energy: every trajectory fails within a few
  // steps, so the job is all failure records and case switches (a cancel once took 18.7 s).
  v1::SubmitEnsembleRequest spec = long_spec();
  spec.mutable_integrators(0)->set_h(50);
  auto* energy = (*spec.add_sweep()->mutable_fields())["initial_conditions.energy_shell.energy"]
                     .mutable_list_value();
  for (int k = 0; k < 1000; ++k) energy->add_values()->set_number_value(3.0 + 0.01 * k);
  const double seconds = cancel_latency(*client_, spec);
  RecordProperty("cancel_latency_seconds", std::to_string(seconds));
  EXPECT_LT(seconds, 1.0);
}

TEST_F(ServiceTest, MaxAttemptsAboveTheBoundIsInvalid) {
  v1::SubmitEnsembleRequest spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_max_attempts(1'000'001);
  const auto status = submit_status(spec);
  expect_invalid(status, "initial_conditions.energy_shell.max_attempts");
  EXPECT_THAT(status.error_message(), HasSubstr("must be in [1, 1000000]"));
}

TEST_F(ServiceTest, ASmallJobDoesNotWaitForALargeOne) {
  const v1::Job large = client_->submit(long_spec());  // about half a minute of work
  while (client_->get_job(large.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto submitted = std::chrono::steady_clock::now();
  const v1::Job small = client_->submit(small_spec());
  EXPECT_EQ(wait_for_end(small.job_id()).state(), v1::SUCCEEDED);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - submitted).count();
  RecordProperty("small_job_seconds_behind_a_large_one", std::to_string(seconds));
  EXPECT_EQ(client_->get_job(large.job_id()).state(), v1::RUNNING) << "it waited " << seconds;
  client_->cancel(large.job_id());
  EXPECT_EQ(wait_for_end(large.job_id()).state(), v1::CANCELLED);
}

/// The nice values of this process's threads, from /proc/self/task/TID/stat (field 19).
std::vector<int> thread_nice_values() {
  std::vector<int> nice;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t end_of_name = stat.rfind(')');
    if (end_of_name == std::string::npos) continue;
    std::istringstream fields(stat.substr(end_of_name + 2));  // from field 3, the state
    std::string field;
    for (int k = 3; k <= 19 && fields >> field; ++k) {
      if (k == 19) nice.push_back(std::stoi(field));
    }
  }
  return nice;
}

// Issue 49 item 7: health p99 was 65 ms with both cores computing. The threads that compute jobs
// run at nice 10; the gRPC threads that answer health checks keep the process's priority.
TEST_F(ServiceTest, JobThreadsRunBelowThePriorityOfTheThreadsThatAnswer) {
  const v1::Job job = client_->submit(long_spec());
  while (client_->get_job(job.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the workers have joined
  const std::vector<int> nice = thread_nice_values();
  const auto at = [&](int value) { return std::count(nice.begin(), nice.end(), value); };
  EXPECT_GE(at(10), 2) << "the job's thread and its oneTBB worker (threads = 2)";
  EXPECT_GE(at(0), 2) << "the test's thread and gRPC's";
  EXPECT_EQ(at(0) + at(10), static_cast<std::ptrdiff_t>(nice.size()));
  client_->cancel(job.job_id());
  wait_for_end(job.job_id());
}

TEST_F(ServiceTest, CancelOfAQueuedJobEndsItAtOnceWithoutResult) {
  // Two long jobs run (the most one identity runs at once with max_running_jobs = 3); the
  // third, long too (a short one would take the free runner), waits.
  const v1::Job running[] = {client_->submit(long_spec()), client_->submit(long_spec())};
  const v1::Job queued = client_->submit(long_spec());
  const v1::Job cancelled = client_->cancel(queued.job_id());
  // The first jobs run for long: the third is still queued (or was just picked up, in which
  // case it ends CANCELLED when the core returns).
  if (cancelled.state() == v1::CANCELLED) {
    try {
      client_->result(queued.job_id());
      ADD_FAILURE() << "a job cancelled before it started has a result";
    } catch (const RpcError& e) {
      EXPECT_EQ(e.code(), grpc::StatusCode::FAILED_PRECONDITION) << e.what();
    }
  }
  EXPECT_EQ(wait_for_end(queued.job_id()).state(), v1::CANCELLED);
  for (const v1::Job& job : running) {
    client_->cancel(job.job_id());
    EXPECT_EQ(wait_for_end(job.job_id()).state(), v1::CANCELLED);
  }
}

TEST_F(ServiceTest, ResultOfARunningJobIsAFailedPrecondition) {
  const v1::Job job = client_->submit(long_spec());
  try {
    client_->result(job.job_id());  // QUEUED or RUNNING: the job takes far longer than this call
    ADD_FAILURE() << "a result was served before the job ended";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::FAILED_PRECONDITION) << e.what();
  }
  client_->cancel(job.job_id());
  EXPECT_EQ(wait_for_end(job.job_id()).state(), v1::CANCELLED);
}

TEST_F(ServiceTest, ARunningJobsResultSoFarIsThatOfItsFirstTrajectories) {
  // With and without a durable store: the live view of a running job, from its latest
  // checkpoint, is bit for bit the result of the spec cut to the trajectories it covers.
  for (const bool durable : {false, true}) {
    SCOPED_TRACE(durable ? "durable" : "in memory");
    start_server("", [&](ServerOptions& o) {
      o.checkpoint_seconds = 0.2;
      if (durable) o.data_dir = durable_dir();
    });
    const v1::SubmitEnsembleRequest spec = long_spec();
    const v1::Job job = client_->submit(spec);
    std::optional<v1::EnsembleResult> so_far;
    while (!so_far) {
      try {
        so_far = client_->result(job.job_id(), /*partial=*/true);
      } catch (const RpcError& e) {  // no checkpoint yet
        ASSERT_EQ(e.code(), grpc::StatusCode::FAILED_PRECONDITION) << e.what();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    EXPECT_TRUE(so_far->partial());
    const std::int64_t m = so_far->n_trajectories();
    ASSERT_GT(m, 0);
    ASSERT_LT(m, kMaxTrajectories) << "the job ended before a checkpoint was read";
    EXPECT_EQ(so_far->job_id(), job.job_id());
    v1::SubmitEnsembleRequest first = spec;
    first.mutable_initial_conditions()->mutable_energy_shell()->set_count(m);
    EnsembleResult core = run_ensemble(wire::from_proto(first), RunOptions{});
    core.partial = true;
    expect_same_result(core, *so_far);
    client_->cancel(job.job_id());
    EXPECT_EQ(wait_for_end(job.job_id()).state(), v1::CANCELLED);
    // Once it has ended, the job's result, not a live view.
    EXPECT_FALSE(client_->result(job.job_id(), /*partial=*/true).partial());
  }
}

TEST_F(ServiceTest, ARunningJobWithoutACheckpointHasNoResultSoFar) {
  start_server("", [](ServerOptions& o) { o.checkpoint_seconds = 3600.0; });
  const v1::Job job = client_->submit(long_spec());
  try {
    client_->result(job.job_id(), /*partial=*/true);
    ADD_FAILURE() << "a result was served before the first checkpoint";
  } catch (const RpcError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::FAILED_PRECONDITION) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("no checkpoint yet"));
  }
  client_->cancel(job.job_id());
  EXPECT_EQ(wait_for_end(job.job_id()).state(), v1::CANCELLED);
}

TEST_F(ServiceTest, ProgressAdvancesInStepsWithinLongTrajectories) {
  // Two trajectories of 2e7 rk4 steps each (seconds): the watch sees steps taken while no
  // trajectory has finished, and at the end every step counted.
  v1::SubmitEnsembleRequest spec = long_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(2);
  spec.mutable_integrators(0)->set_sample_every(1'000'000);
  spec.set_t_final(0.05 * 20'000'000);
  const v1::Job job = client_->submit(spec);
  EXPECT_EQ(job.steps_total(), 40'000'000);
  std::int64_t steps_before_any_trajectory = 0;
  const v1::Job done = client_->watch(job.job_id(), [&](const v1::Job& update) {
    if (update.trajectories_done() == 0 && update.steps_done() > 0) {
      steps_before_any_trajectory = update.steps_done();
    }
  });
  EXPECT_EQ(done.state(), v1::SUCCEEDED);
  EXPECT_GT(steps_before_any_trajectory, 0);
  EXPECT_LT(steps_before_any_trajectory, done.steps_total());
  EXPECT_EQ(done.steps_done(), done.steps_total());
  EXPECT_EQ(done.trajectories_done(), 2);
}

// ---------------------------------------------------------------------------------------------
// Catalogue, health, metrics

TEST_F(ServiceTest, ListsTheCatalogueOfTheCore) {
  const auto systems = client_->list_systems();
  ASSERT_EQ(static_cast<std::size_t>(systems.systems_size()), list_systems().size());
  bool found = false;
  for (const auto& system : systems.systems()) {
    if (system.name() != "chaotic_quartic") continue;
    found = true;
    ASSERT_FALSE(system.parameters().empty());
    EXPECT_EQ(system.parameters(0).name(), "n");
    EXPECT_EQ(system.parameters(0).default_value(), 3.0);
    EXPECT_TRUE(system.parameters(0).integer());
    for (const char* integrator : {"gonzalez", "avf", "si_dla", "rk4"}) {
      EXPECT_THAT(system.integrators(), ::testing::Contains(integrator));
    }
  }
  EXPECT_TRUE(found);
  const auto integrators = client_->list_integrators();
  ASSERT_EQ(static_cast<std::size_t>(integrators.integrators_size()), list_integrators().size());
  for (const auto& integrator : integrators.integrators()) {
    if (integrator.name() == "rk4") {
      EXPECT_EQ(integrator.order(), 4);
      EXPECT_FALSE(integrator.implicit());
    }
    if (integrator.name() == "gonzalez") {
      EXPECT_TRUE(integrator.implicit());
      EXPECT_TRUE(integrator.energy_preserving());
      EXPECT_GT(integrator.default_newton_max_iter(), 0);
    }
  }
}

// Issue 47 item 9: a busy port answered with gRPC's C-core error dump and "cannot listen", a busy
// metrics port with "null context when constructing CivetServer". Both name the address and the
// reason.
TEST_F(ServiceTest, ATakenPortIsAnErrorNamingTheAddressAndTheReason) {
  const std::string taken = "127.0.0.1:" + std::to_string(server_->port());
  for (const bool metrics : {false, true}) {
    ServerOptions options;
    options.listen = metrics ? "127.0.0.1:0" : taken;
    options.metrics = metrics ? taken : "";
    options.data_dir.clear();
    try {
      Server refused(options);
      ADD_FAILURE() << "a taken port was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()),
                taken + ": address already in use (" + (metrics ? "--metrics" : "--listen") + ")");
    }
  }
}

TEST_F(ServiceTest, HealthCheckReportsServing) {
  EXPECT_EQ(nhsim::client::health_status(client_->channel(), ""), std::optional<std::uint64_t>(1));
}

/// Asks the server reflection service to list the services (a generic bidi call: the reflection
/// proto is not installed with gRPC); returns the raw response, empty on failure.
std::string reflection_list_services(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::CompletionQueue queue;
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  const auto next = [&] {
    void* tag = nullptr;
    bool ok = false;
    return queue.Next(&tag, &ok) && ok;
  };
  // ServerReflectionRequest { string list_services = 7; } with an empty string.
  const std::string request("\x3a\x00", 2);
  grpc::Slice slice(request);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;
  call->StartCall(reinterpret_cast<void*>(1));
  if (!next()) return {};
  call->Write(request_buffer, reinterpret_cast<void*>(2));
  if (!next()) return {};
  call->WritesDone(reinterpret_cast<void*>(3));
  if (!next()) return {};
  call->Read(&response_buffer, reinterpret_cast<void*>(4));
  const bool read = next();
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  next();
  if (!read) return {};
  std::vector<grpc::Slice> slices;
  if (!response_buffer.Dump(&slices).ok()) return {};
  std::string response;
  for (const auto& s : slices) response.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return response;
}

TEST_F(ServiceTest, ReflectionListsTheServices) {
  const std::string services = reflection_list_services(client_->channel());
  EXPECT_THAT(services, HasSubstr("nhsim.v1.EnsembleService"));
  EXPECT_THAT(services, HasSubstr("grpc.health.v1.Health"));
}

/// GET /metrics over a plain TCP socket; returns the body.
std::string http_get_metrics(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request =
        "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t n = 0;
      while ((n = read(fd, buffer, sizeof buffer)) > 0)
        response.append(buffer, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  return response;
}

/// The value of the sample line that starts with `series` followed by a space.
std::optional<double> sample_value(const std::string& text, const std::string& series) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
    start = end + 1;
  }
  return std::nullopt;
}

TEST_F(ServiceTest, MetricsEndpointServesTheCounters) {
  EXPECT_EQ(server_->metrics_port(), 0);  // off in the fixture
  start_server("127.0.0.1:0");
  ASSERT_GT(server_->metrics_port(), 0);
  const v1::Job job = client_->submit(small_spec());
  ASSERT_EQ(wait_for_end(job.job_id()).state(), v1::SUCCEEDED);
  const v1::EnsembleResult result = client_->result(job.job_id());
  std::int64_t trajectories = 0;
  std::int64_t steps = 0;
  for (const auto& integrator : result.integrators()) {
    trajectories += integrator.trajectories_ok() + integrator.trajectories_failed();
    steps += integrator.steps_completed();
  }
  ASSERT_GT(steps, 0);
  v1::SubmitEnsembleRequest bad = small_spec();
  bad.set_t_final(-1.0);
  EXPECT_EQ(submit_status(bad).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Every draw misses the shell: the job succeeds, and every trajectory run failed.
  v1::SubmitEnsembleRequest unreachable = small_spec();
  unreachable.mutable_initial_conditions()->mutable_energy_shell()->set_energy(1e-12);
  unreachable.mutable_initial_conditions()->mutable_energy_shell()->set_max_attempts(10);
  const v1::Job failing = client_->submit(unreachable);
  ASSERT_EQ(wait_for_end(failing.job_id()).state(), v1::SUCCEEDED);

  const std::string response = http_get_metrics(server_->metrics_port());
  ASSERT_THAT(response, StartsWith("HTTP/1.1 200")) << response;
  const auto value = [&](const std::string& series) { return sample_value(response, series); };
  const auto is = [](double expected) { return std::optional<double>(expected); };
  EXPECT_EQ(value("nhsim_trajectories_completed_total"),
            is(static_cast<double>(trajectories + 16)));
  EXPECT_EQ(value("nhsim_steps_completed_total"), is(static_cast<double>(steps)));
  EXPECT_EQ(value("nhsim_trajectories_failed_total{reason=\"initial_condition\"}"), is(16));
  EXPECT_EQ(value("nhsim_jobs{state=\"succeeded\"}"), is(2));
  EXPECT_EQ(value("nhsim_jobs{state=\"running\"}"), is(0));
  EXPECT_EQ(value("nhsim_jobs{state=\"queued\"}"), is(0));
  EXPECT_EQ(value("nhsim_jobs_finished_total{outcome=\"succeeded\"}"), is(1));
  EXPECT_EQ(value("nhsim_jobs_finished_total{outcome=\"all_trajectories_failed\"}"), is(1));
  EXPECT_EQ(value("nhsim_job_duration_seconds_count"), is(2));
  EXPECT_EQ(value("nhsim_queue_wait_seconds_count"), is(2));
  EXPECT_EQ(value("nhsim_submissions_total{code=\"OK\",outcome=\"accepted\"}"), is(2));
  EXPECT_EQ(value("nhsim_submissions_total{code=\"INVALID_ARGUMENT\",outcome=\"rejected\"}"),
            is(1));
  EXPECT_EQ(value("nhsim_rpc_requests_total{code=\"OK\",method=\"SubmitEnsemble\"}"), is(2));
  EXPECT_EQ(value("nhsim_rpc_requests_total{code=\"INVALID_ARGUMENT\",method=\"SubmitEnsemble\"}"),
            is(1));
  EXPECT_EQ(value("nhsim_rpc_duration_seconds_count{method=\"SubmitEnsemble\"}"), is(3));
  EXPECT_EQ(value("nhsim_health_serving"), is(1));
  EXPECT_GT(value("process_resident_memory_bytes").value_or(0), 1e6);
  EXPECT_GT(value("process_threads").value_or(0), 2);
  EXPECT_GT(value("process_cpu_seconds_total").value_or(0), 0);
  EXPECT_GT(value("process_open_fds").value_or(0), 2);
  EXPECT_GT(value("process_start_time_seconds").value_or(0), 1.7e9);
}

// Issue 49: every made-up method name became a label of the RPC metrics, counted before any
// token check (20 000 calls took /metrics to 104 MB). Paths this server does not serve share the
// label "unknown".
TEST(RpcMetrics, OnlyServedMethodsGetALabelOfTheirOwn) {
  EXPECT_EQ(rpc_method_label("/nhsim.v1.EnsembleService/GetJob"), "GetJob");
  EXPECT_EQ(rpc_method_label("/nhsim.v1.EnsembleService/SubmitEnsemble"), "SubmitEnsemble");
  EXPECT_EQ(rpc_method_label("/grpc.health.v1.Health/Check"), "Check");
  EXPECT_EQ(rpc_method_label("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"),
            "ServerReflectionInfo");
  for (const char* path :
       {"/nhsim.v1.EnsembleService/Made1", "/nhsim.v1.EnsembleService/getjob", "/x.Y/GetJob",
        "/grpc.health.v1.Health/Other", "GetJob", "/GetJob", "", "/", "//", "/a/b/GetJob"}) {
    EXPECT_EQ(rpc_method_label(path), "unknown") << path;
  }
}

TEST_F(ServiceTest, CallsToMadeUpMethodsCreateNoMetricSeries) {
  start_server("127.0.0.1:0");
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  constexpr int kCalls = 200;
  for (int i = 0; i < kCalls; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::CompletionQueue queue;
    grpc::ByteBuffer request, response;
    auto call = stub.PrepareUnaryCall(
        &context, "/nhsim.v1.EnsembleService/MadeUp" + std::to_string(i), request, &queue);
    call->StartCall();
    grpc::Status status;
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    ASSERT_TRUE(queue.Next(&tag, &ok));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
  const std::string response = http_get_metrics(server_->metrics_port());
  EXPECT_THAT(response, Not(HasSubstr("MadeUp")));
  EXPECT_EQ(
      sample_value(response, "nhsim_rpc_requests_total{code=\"UNIMPLEMENTED\",method=\"unknown\"}"),
      std::optional<double>(kCalls));
}

// Issue 49: the queue wait was recorded only when a job started, so a stuck queue never showed.
// The age of the oldest queued job is a gauge, refreshed every second.
TEST_F(ServiceTest, OpenWatchesAreExported) {
  start_server("127.0.0.1:0");
  const auto open_watches = [&] {
    return sample_value(http_get_metrics(server_->metrics_port()), "nhsim_open_watches")
        .value_or(-1.0);
  };
  EXPECT_EQ(open_watches(), 0.0);
  const v1::Job job = client_->submit(long_spec());  // cancelled below
  auto stub = v1::EnsembleService::NewStub(client_->channel());
  v1::WatchJobRequest request;
  request.set_job_id(job.job_id());
  grpc::ClientContext first_context, second_context;
  const auto first = stub->WatchJob(&first_context, request);
  const auto second = stub->WatchJob(&second_context, request);
  v1::Job update;
  ASSERT_TRUE(first->Read(&update));
  ASSERT_TRUE(second->Read(&update));
  double seen = -1;  // refreshed every second
  for (int attempt = 0; attempt < 100 && seen != 2.0; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    seen = open_watches();
  }
  EXPECT_EQ(seen, 2.0);
  EXPECT_EQ(sample_value(http_get_metrics(server_->metrics_port()), "nhsim_open_result_streams"),
            std::optional<double>(0.0));
  client_->cancel(job.job_id());
  while (first->Read(&update)) {
  }
  while (second->Read(&update)) {
  }
  EXPECT_TRUE(first->Finish().ok());
  EXPECT_TRUE(second->Finish().ok());
  for (int attempt = 0; attempt < 100 && seen != 0.0; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    seen = open_watches();
  }
  EXPECT_EQ(seen, 0.0);
}

TEST_F(ServiceTest, TheOldestQueuedJobsAgeIsExported) {
  start_server("127.0.0.1:0", [](ServerOptions& options) { options.max_running_jobs = 1; });
  const auto age = [&] {
    return sample_value(http_get_metrics(server_->metrics_port()),
                        "nhsim_oldest_queued_job_age_seconds")
        .value_or(-1.0);
  };
  v1::SubmitEnsembleRequest blocking = long_spec();  // about 40 s: cancelled below
  blocking.mutable_integrators(0)->set_integrator("gonzalez");
  const v1::Job running = client_->submit(blocking);
  while (client_->get_job(running.job_id()).state() == v1::QUEUED) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto submitted = std::chrono::steady_clock::now();
  const v1::Job queued = client_->submit(small_spec());
  const auto waited = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - submitted).count();
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ASSERT_EQ(client_->get_job(queued.job_id()).state(), v1::QUEUED);
  const double first = age();
  EXPECT_GE(first, 1.0);  // refreshed at least once after 1.5 s of waiting
  EXPECT_LE(first, waited());
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  EXPECT_GT(age(), first);  // still queued: it grows
  // Cancelled while the other job still runs: nothing is queued any more, though the cancelled
  // job's id waits in the queue until a runner is free.
  client_->cancel(queued.job_id());
  double after = -1.0;
  for (int i = 0; i < 100 && after != 0.0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = age();
  }
  EXPECT_EQ(after, 0.0);
  EXPECT_EQ(client_->get_job(running.job_id()).state(), v1::RUNNING);
  client_->cancel(running.job_id());
  wait_for_end(running.job_id());
}

TEST_F(ServiceTest, TrajectoriesAndStepsAreCountedWhileAJobRuns) {
  start_server("127.0.0.1:0");
  v1::SubmitEnsembleRequest spec = long_spec();  // 1000 trajectories of 40000 rk4 steps
  spec.set_t_final(2000.0);
  const v1::Job job = client_->submit(spec);
  double trajectories = 0, steps = 0;
  v1::JobState state = v1::QUEUED;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (trajectories == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::string metrics = http_get_metrics(server_->metrics_port());
    trajectories = sample_value(metrics, "nhsim_trajectories_completed_total").value_or(0);
    steps = sample_value(metrics, "nhsim_steps_completed_total").value_or(0);
    state = client_->get_job(job.job_id()).state();  // read after the metrics
  }
  EXPECT_GT(trajectories, 0);
  EXPECT_LT(trajectories, 1000);
  EXPECT_EQ(steps, trajectories * 40000);  // no failures: every run takes every step
  EXPECT_EQ(state, v1::RUNNING);           // the counters moved before the job ended
  client_->cancel(job.job_id());
  wait_for_end(job.job_id());
}

}  // namespace
}  // namespace nhsim::server
