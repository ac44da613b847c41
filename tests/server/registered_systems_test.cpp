// Registered user-defined systems (RegisterSystem, ListSystems, DeleteSystem) on an
// in-process nhsimd with tokens for alice and bob: a system is its owner's only, runs by name
// with the bits of the same definition sent inline, survives a restart on the same data
// directory, and every bad request answers its exact code with the field.
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "nhsim/client/client.hpp"
#include "nhsim/server/server.hpp"
#include "nhsim/wire/auth.hpp"

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;
using client::Client;
using client::Connection;
using client::RpcError;

const std::string kAliceToken = "nhsim_alice-registry-token";
const std::string kBobToken = "nhsim_bob-registry-token";

/// The contact oscillator of examples/custom_contact_oscillator.json.
v1::CustomSystem contact_oscillator() {
  v1::CustomSystem s;
  for (const char* c : {"x", "y", "z"}) s.add_coordinates(c);
  auto* eps = s.add_parameters();
  eps->set_name("epsilon");
  eps->set_value(0.5);
  eps->set_unit("1");
  for (const auto& entries :
       {std::vector<std::string>{"1", "0", "0"}, std::vector<std::string>{"0", "1", "0"},
        std::vector<std::string>{"0", "0", "1"}}) {
    *s.add_mass_matrix()->mutable_entries() = {entries.begin(), entries.end()};
  }
  s.set_potential("(x^2 + y^2 + z^2)/2 + epsilon*x^2*z^2/2");
  auto* mu = s.add_constraints();
  for (const char* e : {"1", "0", "y"}) mu->add_entries(e);
  return s;
}

/// 4 states on H = 1, gonzalez_r and si_dla to t = 2, of the system named `system` (or of
/// `inline_system` when given).
v1::SubmitEnsembleRequest spec_of(const std::string& system,
                                  const v1::CustomSystem* inline_system = nullptr) {
  v1::SubmitEnsembleRequest spec;
  if (inline_system != nullptr) {
    *spec.mutable_custom_system() = *inline_system;
  } else {
    spec.set_system(system);
  }
  auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(1.0);
  shell->set_seed(16);
  shell->set_count(4);
  for (const char* id : {"gonzalez_r", "si_dla"}) {
    auto* choice = spec.add_integrators();
    choice->set_integrator(id);
    choice->set_h(0.05);
    choice->set_sample_every(10);
  }
  spec.set_t_final(2.0);
  return spec;
}

/// The gRPC status of `call`: its code and message (OK, "" when it returns).
std::pair<grpc::StatusCode, std::string> status_of(const std::function<void()>& call) {
  try {
    call();
    return {grpc::StatusCode::OK, ""};
  } catch (const RpcError& e) {
    return {e.code(), e.message()};
  }
}

std::vector<std::string> names(const v1::ListSystemsResponse& list) {
  std::vector<std::string> out;
  for (const auto& s : list.systems()) out.push_back(s.name());
  return out;
}

/// Clears what differs between runs of the same bits: the job id, the system's name, timings.
void clear_names_and_timings(v1::EnsembleResult& r) {
  r.clear_job_id();
  r.clear_system();
  for (auto& choice : *r.mutable_integrators()) {
    choice.clear_wall_seconds();
    choice.clear_steps_per_second();
  }
}

/// Whether two results hold the same values, a NaN (an undefined growth fit) equal to a NaN.
bool same_bits(const v1::EnsembleResult& a, const v1::EnsembleResult& b) {
  google::protobuf::util::DefaultFieldComparator nan_equal;
  nan_equal.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&nan_equal);
  return differencer.Compare(a, b);
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class RegisteredSystemsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nhsim-registry-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream tokens(dir_ / "tokens");
    tokens << wire::token_line(kAliceToken, "alice", false) << "\n"
           << wire::token_line(kBobToken, "bob", false) << "\n";
  }
  void TearDown() override {
    server_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  /// (Re)starts the server; with `durable`, on the data directory dir_/data.
  void start(bool durable) {
    server_.reset();
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.metrics = "";
    options.threads = 2;
    options.tokens_file = dir_ / "tokens";
    if (durable) options.data_dir = dir_ / "data";
    server_ = std::make_unique<Server>(options);
  }

  Client as(const std::string& token) const {
    Connection connection;
    connection.address = "127.0.0.1:" + std::to_string(server_->port());
    connection.token = token;
    return Client(connection, std::chrono::seconds(30));
  }

  /// The finished result of `spec` submitted as `who`.
  static v1::EnsembleResult run(const Client& who, const v1::SubmitEnsembleRequest& spec) {
    const std::string id = who.submit(spec).job_id();
    EXPECT_EQ(who.watch(id, nullptr).state(), v1::SUCCEEDED);
    return who.result(id);
  }

  fs::path dir_;
  std::unique_ptr<Server> server_;
};

TEST_F(RegisteredSystemsTest, ARegisteredSystemRunsByNameForItsOwnerOnly) {
  start(false);
  const Client alice = as(kAliceToken), bob = as(kBobToken);
  const v1::SystemInfo info =
      alice.register_system("contact", contact_oscillator(), "McLachlan & Perlmutter 2006 §5.2");
  EXPECT_EQ(info.name(), "contact");
  EXPECT_EQ(info.description(), "McLachlan & Perlmutter 2006 §5.2");
  EXPECT_EQ(info.source(), "registered by alice (custom_system)");
  ASSERT_EQ(info.parameters_size(), 1);  // its constants, with their values and units
  EXPECT_EQ(info.parameters(0).name(), "epsilon");
  EXPECT_EQ(info.parameters(0).default_value(), 0.5);
  EXPECT_EQ(info.parameters(0).unit(), "1");
  EXPECT_TRUE(has({info.integrators().begin(), info.integrators().end()}, "gonzalez_r"));
  EXPECT_TRUE(has({info.integrators().begin(), info.integrators().end()}, "si_dla"));
  // With an M that depends on q, the methods that need only a canonical form.
  v1::CustomSystem varying = contact_oscillator();
  varying.mutable_mass_matrix(0)->set_entries(0, "1 + x^2");
  const v1::SystemInfo varying_info = alice.register_system("contact_mq", varying, "M(q)");
  EXPECT_EQ(std::vector<std::string>(varying_info.integrators().begin(),
                                     varying_info.integrators().end()),
            (std::vector<std::string>{"gonzalez_r", "gonzalez_r_fd"}));

  EXPECT_TRUE(has(names(alice.list_systems()), "contact"));
  EXPECT_TRUE(has(names(alice.list_systems()), "knife_edge"));  // the catalogue too
  EXPECT_FALSE(has(names(bob.list_systems()), "contact"));

  // By name and inline: the same job, bit for bit, but for the system's name in the job and the
  // result.
  const v1::CustomSystem definition = contact_oscillator();
  EXPECT_EQ(alice.submit(spec_of("contact")).system(), "contact");
  EXPECT_EQ(alice.submit(spec_of("", &definition)).system(), "custom_system");
  v1::EnsembleResult by_name = run(alice, spec_of("contact"));
  v1::EnsembleResult by_value = run(alice, spec_of("", &definition));
  ASSERT_EQ(by_name.integrators_size(), 2);
  EXPECT_EQ(by_name.integrators(0).trajectories_ok(), 4);
  EXPECT_EQ(by_name.system(), "contact");
  EXPECT_EQ(by_value.system(), "custom_system");
  for (auto* r : {&by_name, &by_value}) clear_names_and_timings(*r);
  EXPECT_TRUE(same_bits(by_name, by_value));

  // Its parameters are set as a catalogue system's: the same bits as the definition sent inline
  // with that value; a name it does not have is refused with the field and the known names.
  v1::SubmitEnsembleRequest stiffer = spec_of("contact");
  (*stiffer.mutable_parameters())["epsilon"] = 0.75;
  v1::CustomSystem stiffer_definition = contact_oscillator();
  stiffer_definition.mutable_parameters(0)->set_value(0.75);
  v1::EnsembleResult set_by_name = run(alice, stiffer);
  v1::EnsembleResult set_by_value = run(alice, spec_of("", &stiffer_definition));
  EXPECT_EQ(set_by_name.parameters().at("epsilon"), 0.75);
  for (auto* r : {&set_by_name, &set_by_value}) clear_names_and_timings(*r);
  EXPECT_TRUE(same_bits(set_by_name, set_by_value));
  EXPECT_FALSE(same_bits(set_by_name, by_name));
  v1::SubmitEnsembleRequest unknown = spec_of("contact");
  (*unknown.mutable_parameters())["k"] = 0.2;
  const auto [unknown_code, unknown_message] = status_of([&] { alice.submit(unknown); });
  EXPECT_EQ(unknown_code, grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(unknown_message,
            "parameters.k: the registered system 'contact' has no such parameter; its "
            "parameters: epsilon");
  (*unknown.mutable_parameters()).clear();
  (*unknown.mutable_parameters())["epsilon"] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(status_of([&] { alice.submit(unknown); }).second, "parameters.epsilon: must be finite");

  // Bob does not have it: to him it is an unknown system.
  const auto [code, message] = status_of([&] { bob.submit(spec_of("contact")); });
  EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(message.rfind("system: ", 0), 0u) << message;
  EXPECT_EQ(status_of([&] { bob.delete_system("contact"); }).first, grpc::StatusCode::NOT_FOUND);
}

TEST_F(RegisteredSystemsTest, BadRegistrationsAnswerTheirCodeWithTheField) {
  start(false);
  const Client alice = as(kAliceToken);
  alice.register_system("contact", contact_oscillator());
  const auto again = status_of([&] { alice.register_system("contact", contact_oscillator()); });
  EXPECT_EQ(again.first, grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(again.second.rfind("name: ", 0), 0u) << again.second;
  for (const char* bad : {"knife_edge", "custom_system", "", "2fast", "a b"}) {
    const auto [code, message] =
        status_of([&] { alice.register_system(bad, contact_oscillator()); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_EQ(message.rfind("name: ", 0), 0u) << message;
  }
  v1::CustomSystem broken = contact_oscillator();
  broken.set_potential("x^2 + w");
  const auto [code, message] = status_of([&] { alice.register_system("broken", broken); });
  EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(message.rfind("custom_system.potential: ", 0), 0u) << message;
  EXPECT_FALSE(has(names(alice.list_systems()), "broken"));

  // custom_system.name is the server's to set, in a registration and in a submission.
  v1::CustomSystem named = contact_oscillator();
  named.set_name("contact");
  for (const auto& [call_code, call_message] :
       {status_of([&] { alice.register_system("named", named); }),
        status_of([&] { alice.submit(spec_of("", &named)); })}) {
    EXPECT_EQ(call_code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(call_message.rfind("custom_system.name: ", 0), 0u) << call_message;
  }

  // 100 systems per identity; bob's count is his own.
  for (int k = 1; k < 100; ++k) {
    std::string name = std::to_string(k);
    name.insert(name.begin(), 's');  // (not "s" + ...: GCC 12 warns falsely on that)
    alice.register_system(name, contact_oscillator());
  }
  EXPECT_EQ(status_of([&] { alice.register_system("s100", contact_oscillator()); }).first,
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(as(kBobToken).register_system("s100", contact_oscillator()).name(), "s100");
  alice.delete_system("s1");
  EXPECT_EQ(alice.register_system("s100", contact_oscillator()).name(), "s100");
}

TEST_F(RegisteredSystemsTest, RegisteredSystemsSurviveARestartUntilDeleted) {
  start(true);
  as(kAliceToken).register_system("contact", contact_oscillator(), "kept");
  start(true);  // a new server on the same data directory
  const Client alice = as(kAliceToken);
  const auto list = alice.list_systems();
  ASSERT_TRUE(has(names(list), "contact"));
  EXPECT_EQ(list.systems(list.systems_size() - 1).description(), "kept");
  EXPECT_EQ(run(alice, spec_of("contact")).integrators(0).trajectories_ok(), 4);
  alice.delete_system("contact");
  EXPECT_EQ(status_of([&] { alice.delete_system("contact"); }).first, grpc::StatusCode::NOT_FOUND);
  start(true);
  EXPECT_FALSE(has(names(as(kAliceToken).list_systems()), "contact"));
  EXPECT_EQ(status_of([&] { as(kAliceToken).submit(spec_of("contact")); }).first,
            grpc::StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace nhsim::server
