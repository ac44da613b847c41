// Security of an in-process nhsimd: bearer tokens, job ownership, unguessable ids, TLS and
// mutual TLS with certificates made at test time (openssl), and the refusal to serve a
// non-loopback address without authentication.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "nhsim/client/client.hpp"
#include "nhsim/client/files.hpp"
#include "nhsim/client/health.hpp"
#include "nhsim/server/server.hpp"
#include "nhsim/wire/auth.hpp"

namespace nhsim::server {
namespace {

namespace fs = std::filesystem;
using client::Client;
using client::Connection;
using client::RpcError;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

const std::string kAliceToken = "nhsim_alice-test-token";
const std::string kBobToken = "nhsim_bob-test-token";
const std::string kAdminToken = "nhsim_admin-test-token";

/// The gRPC status code of `call` (OK when it returns).
grpc::StatusCode code_of(const std::function<void()>& call) {
  try {
    call();
    return grpc::StatusCode::OK;
  } catch (const RpcError& e) {
    return e.code();
  }
}

v1::SubmitEnsembleRequest tiny_spec() {
  v1::SubmitEnsembleRequest spec;
  spec.set_system("chaotic_quartic");
  (*spec.mutable_parameters())["n"] = 3;
  auto* shell = spec.mutable_initial_conditions()->mutable_energy_shell();
  shell->set_energy(3.06);
  shell->set_seed(7);
  shell->set_count(2);
  auto* choice = spec.add_integrators();
  choice->set_integrator("si_dla");
  choice->set_h(0.05);
  choice->set_sample_every(10);
  spec.set_t_final(0.5);
  spec.set_label("private");
  return spec;
}

class SecurityTest : public ::testing::Test {
 protected:
  /// A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA;
  /// and a tokens file for alice, bob and an admin.
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/nhsim-security-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = new fs::path(pattern);
    const std::string script = "cd '" + dir_->string() + R"(' && {
      key='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
      openssl req -x509 $key -keyout ca.key -out ca.pem -days 2 -subj /CN=nhsim-test-ca
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
      openssl req $key -keyout server.key -out server.csr -subj /CN=localhost
      openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
        -out server.pem -days 2 -extfile server.ext
      printf 'extendedKeyUsage=clientAuth\n' > client.ext
      openssl req $key -keyout client.key -out client.csr -subj /CN=alice
      openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
        -out client.pem -days 2 -extfile client.ext
    } > openssl.log 2>&1)";
    ASSERT_EQ(std::system(script.c_str()), 0) << "openssl failed; see " << *dir_ << "/openssl.log";
    std::ofstream tokens(*dir_ / "tokens");
    tokens << "# test identities\n"
           << wire::token_line(kAliceToken, "alice", false) << "\n"
           << wire::token_line(kBobToken, "bob", false) << "\n\n"
           << wire::token_line(kAdminToken, "ops", true) << "  # the operator\n";
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*dir_, ignored);
    delete dir_;
  }

  void TearDown() override { server_.reset(); }

  void start(const std::function<void(ServerOptions&)>& adjust = {}) {
    server_.reset();
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.metrics = "";
    options.threads = 1;
    options.tokens_file = *dir_ / "tokens";
    if (adjust) adjust(options);
    server_ = std::make_unique<Server>(options);
  }

  /// A client of the running server as `token` (plaintext unless `tls`).
  Client as(const std::string& token, const std::function<void(Connection&)>& adjust = {}) const {
    Connection connection;
    connection.address = "127.0.0.1:" + std::to_string(server_->port());
    connection.token = token;
    if (adjust) adjust(connection);
    return Client(connection, std::chrono::seconds(10));
  }

  static std::string pem(const char* name) { return client::read_text_file(*dir_ / name); }

  static void use_tls(ServerOptions& options) {
    options.tls_cert = *dir_ / "server.pem";
    options.tls_key = *dir_ / "server.key";
  }

  inline static fs::path* dir_ = nullptr;
  std::unique_ptr<Server> server_;
};

TEST_F(SecurityTest, EveryCallWithoutAValidTokenIsUnauthenticated) {
  start();
  for (const std::string& token : {std::string(), std::string("nhsim_not-a-token")}) {
    const Client anonymous = as(token);
    EXPECT_EQ(code_of([&] { anonymous.list_systems(); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.list_integrators(); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.register_system("mine", v1::CustomSystem()); }),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.delete_system("mine"); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.submit(tiny_spec()); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.get_job("0"); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.watch("0", nullptr); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.result("0"); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.cancel("0"); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.list_jobs(); }), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(code_of([&] { anonymous.delete_job("0"); }), grpc::StatusCode::UNAUTHENTICATED);
  }
  // Health checks need no token (kubelet probes have none).
  EXPECT_EQ(client::health_status(as("").channel(), ""), std::optional<std::uint64_t>(1));
}

TEST_F(SecurityTest, AJobIsVisibleOnlyToItsOwnerAndToAdmins) {
  start();
  const Client alice = as(kAliceToken);
  const Client bob = as(kBobToken);
  const Client admin = as(kAdminToken);
  const v1::Job job = alice.submit(tiny_spec());
  EXPECT_EQ(job.owner(), "alice");
  const std::string id = job.job_id();
  EXPECT_EQ(alice.watch(id, nullptr).state(), v1::SUCCEEDED);

  // Another identity cannot tell the job from one that does not exist.
  EXPECT_EQ(code_of([&] { bob.get_job(id); }), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(code_of([&] { bob.watch(id, nullptr); }), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(code_of([&] { bob.result(id); }), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(code_of([&] { bob.cancel(id); }), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(code_of([&] { bob.delete_job(id); }), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(bob.list_jobs().empty());
  try {
    bob.get_job(id);
  } catch (const RpcError& e) {
    EXPECT_EQ(e.message(), "job_id: no job '" + id + "'");  // same text as an unknown id
  }
  const v1::Job bobs = bob.submit(tiny_spec());

  // The owner sees its own jobs only; the admin sees, reads and deletes every job.
  ASSERT_EQ(alice.list_jobs().size(), 1u);
  EXPECT_EQ(alice.list_jobs()[0].job_id(), id);
  EXPECT_EQ(alice.result(id).label(), "private");
  EXPECT_EQ(admin.list_jobs().size(), 2u);
  EXPECT_EQ(admin.get_job(bobs.job_id()).owner(), "bob");
  EXPECT_EQ(admin.result(id).label(), "private");
  EXPECT_EQ(code_of([&] { admin.cancel(bobs.job_id()); }), grpc::StatusCode::OK);
  bob.watch(bobs.job_id(), nullptr);
  EXPECT_EQ(code_of([&] { admin.delete_job(id); }), grpc::StatusCode::OK);
  EXPECT_EQ(code_of([&] { alice.get_job(id); }), grpc::StatusCode::NOT_FOUND);
}

TEST_F(SecurityTest, LogLinesNameTheJobAndItsOwnerAndNeverAToken) {
  ::testing::internal::CaptureStderr();
  start();
  const Client alice = as(kAliceToken);
  const std::string id = alice.submit(tiny_spec()).job_id();
  alice.watch(id, nullptr);
  v1::SubmitEnsembleRequest bad = tiny_spec();
  bad.set_t_final(-1.0);
  EXPECT_EQ(code_of([&] { alice.submit(bad); }), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { as("nhsim_wrong-token").list_jobs(); }),
            grpc::StatusCode::UNAUTHENTICATED);
  server_.reset();
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("\"job\":\"" + id + "\",\"identity\":\"alice\",\"msg\":\"job " + id +
                             " queued"));
  EXPECT_THAT(log,
              HasSubstr("\"identity\":\"alice\",\"msg\":\"submit rejected (INVALID_ARGUMENT)"));
  EXPECT_THAT(log, HasSubstr("\"level\":\"warning\",\"msg\":\"unauthenticated call from"));
  for (const std::string& token : {kAliceToken, std::string("nhsim_wrong-token")}) {
    EXPECT_THAT(log, Not(HasSubstr(token)));
  }
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("E1", 0) == 0 || line.rfind("I1", 0) == 0) continue;  // gRPC's own log
    EXPECT_THAT(line, MatchesRegex("\\{\"time\":.*\\}")) << line;
  }
}

// Issue 49: each unauthenticated call wrote a log line, unthrottled (2434 in one run). They are
// logged once per 10 s; the next such line says how many it stands for.
TEST_F(SecurityTest, AFloodOfUnauthenticatedCallsWritesFewLogLines) {
  ::testing::internal::CaptureStderr();
  start();
  constexpr int kCalls = 300;
  const Client anonymous = as("nhsim_wrong-token");
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_EQ(code_of([&] { anonymous.get_job("0"); }), grpc::StatusCode::UNAUTHENTICATED);
  }
  server_.reset();
  const std::string log = ::testing::internal::GetCapturedStderr();
  int lines = 0;
  for (std::size_t at = log.find("unauthenticated call from"); at != std::string::npos;
       at = log.find("unauthenticated call from", at + 1)) {
    ++lines;
  }
  EXPECT_GE(lines, 1);
  EXPECT_LE(lines, 2) << "300 calls in well under 10 s";
}

TEST_F(SecurityTest, OwnershipSurvivesARestart) {
  char pattern[] = "/tmp/nhsim-security-store-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path data_dir = pattern;
  const auto durable = [&](ServerOptions& options) { options.data_dir = data_dir; };
  start(durable);
  const std::string id = as(kAliceToken).submit(tiny_spec()).job_id();
  as(kAliceToken).watch(id, nullptr);
  start(durable);  // a new server on the same store
  EXPECT_EQ(as(kAliceToken).get_job(id).owner(), "alice");
  EXPECT_EQ(code_of([&] { as(kBobToken).get_job(id); }), grpc::StatusCode::NOT_FOUND);
  server_.reset();
  fs::remove_all(data_dir);
}

TEST_F(SecurityTest, JobIdsAre128RandomBitsThatDifferAcrossRestarts) {
  std::set<std::string> ids;
  for (int restart = 0; restart < 2; ++restart) {
    start([](ServerOptions& options) { options.max_jobs_per_client = 1000; });
    const Client alice = as(kAliceToken);
    v1::SubmitEnsembleRequest spec = tiny_spec();
    spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(1);
    for (int k = 0; k < 20; ++k) {
      const std::string id = alice.submit(spec).job_id();
      EXPECT_THAT(id, MatchesRegex("[0-9a-f]{32}"));
      ids.insert(id);
    }
  }
  EXPECT_EQ(ids.size(), 40u);  // an in-memory server restarting from the same seed would repeat
}

TEST_F(SecurityTest, TlsWithATestCaWorksAndAPlaintextClientIsRefused) {
  start(use_tls);
  const Client tls = as(kAliceToken, [](Connection& c) {
    c.tls = true;
    c.tls_ca = pem("ca.pem");
  });
  EXPECT_FALSE(tls.list_systems().systems().empty());
  const Client plaintext = as(kAliceToken);
  EXPECT_EQ(code_of([&] { plaintext.list_systems(); }), grpc::StatusCode::UNAVAILABLE);
  // A client that does not trust the server's CA refuses the connection.
  const Client untrusting = as(kAliceToken, [](Connection& c) {
    c.tls = true;
    c.tls_ca = pem("client.pem");  // not a CA of the server's certificate
  });
  EXPECT_EQ(code_of([&] { untrusting.list_systems(); }), grpc::StatusCode::UNAVAILABLE);
}

// Issue 49 item 15: renewed TLS certificates took a restart. The certificate files are read again
// every second: a server certificate of another CA takes effect for new connections, without a
// restart, while the job that runs goes on.
TEST_F(SecurityTest, ARenewedServerCertificateTakesEffectWithoutARestart) {
  const fs::path renewed = *dir_ / "renewed";
  fs::create_directories(renewed);
  const std::string script = "cd '" + renewed.string() + R"(' && {
      key='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
      openssl req -x509 $key -keyout ca2.key -out ca2.pem -days 2 -subj /CN=nhsim-test-ca-2
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
      openssl req $key -keyout server2.key -out server2.csr -subj /CN=localhost
      openssl x509 -req -in server2.csr -CA ca2.pem -CAkey ca2.key -CAcreateserial \
        -out server2.pem -days 2 -extfile server.ext
    } > openssl.log 2>&1)";
  ASSERT_EQ(std::system(script.c_str()), 0) << "openssl failed; see " << renewed << "/openssl.log";
  fs::copy_file(*dir_ / "server.pem", renewed / "live.pem");
  fs::copy_file(*dir_ / "server.key", renewed / "live.key");
  start([&](ServerOptions& options) {
    options.tls_cert = renewed / "live.pem";
    options.tls_key = renewed / "live.key";
  });
  const auto trusting = [](const std::string& ca) {
    return [ca](Connection& c) {
      c.tls = true;
      c.tls_ca = ca;
    };
  };
  const std::string first_ca = pem("ca.pem");
  const std::string second_ca = client::read_text_file(renewed / "ca2.pem");
  const Client before = as(kAliceToken, trusting(first_ca));
  v1::SubmitEnsembleRequest spec = tiny_spec();
  spec.mutable_initial_conditions()->mutable_energy_shell()->set_count(400);
  spec.set_t_final(200.0);
  const std::string job = before.submit(spec).job_id();
  // The renewal, as a certificate manager writes it: the key, then the certificate.
  fs::copy_file(renewed / "server2.key", renewed / "live.key",
                fs::copy_options::overwrite_existing);
  fs::copy_file(renewed / "server2.pem", renewed / "live.pem",
                fs::copy_options::overwrite_existing);
  grpc::StatusCode renewed_code = grpc::StatusCode::UNAVAILABLE;
  for (int i = 0; i < 50 && renewed_code != grpc::StatusCode::OK; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    renewed_code = code_of([&] { as(kAliceToken, trusting(second_ca)).list_systems(); });
  }
  EXPECT_EQ(renewed_code, grpc::StatusCode::OK) << "the renewed certificate was not served";
  EXPECT_EQ(code_of([&] { as(kAliceToken, trusting(first_ca)).list_systems(); }),
            grpc::StatusCode::UNAVAILABLE);  // a new connection now needs the new CA
  const Client after = as(kAliceToken, trusting(second_ca));
  EXPECT_NE(after.get_job(job).state(), v1::JOB_STATE_UNSPECIFIED);  // the job is still there
  after.cancel(job);
  EXPECT_TRUE(after.watch(job, nullptr).state() == v1::CANCELLED ||
              after.get_job(job).state() == v1::SUCCEEDED);
}

TEST_F(SecurityTest, MutualTlsRejectsAClientWithoutACertificate) {
  start([](ServerOptions& options) {
    use_tls(options);
    options.tls_client_ca = *dir_ / "ca.pem";
  });
  const auto trusting = [](Connection& c) {
    c.tls = true;
    c.tls_ca = pem("ca.pem");
  };
  EXPECT_EQ(code_of([&] { as(kAliceToken, trusting).list_systems(); }),
            grpc::StatusCode::UNAVAILABLE);
  const Client with_certificate = as(kAliceToken, [&](Connection& c) {
    trusting(c);
    c.tls_cert = pem("client.pem");
    c.tls_key = pem("client.key");
  });
  EXPECT_FALSE(with_certificate.list_systems().systems().empty());
}

// Issue 49 item 16: with mutual TLS and no tokens every client certificate was "anonymous". The
// certificate's name (its common name here, CN=alice) is the caller's identity.
TEST_F(SecurityTest, MutualTlsWithoutTokensIdentifiesTheCallerByItsCertificate) {
  start([](ServerOptions& options) {
    use_tls(options);
    options.tls_client_ca = *dir_ / "ca.pem";
    options.tokens_file.clear();
  });
  const Client alice = as("", [](Connection& c) {
    c.tls = true;
    c.tls_ca = pem("ca.pem");
    c.tls_cert = pem("client.pem");
    c.tls_key = pem("client.key");
  });
  const v1::Job job = alice.submit(tiny_spec());
  EXPECT_EQ(job.owner(), "alice");
  EXPECT_EQ(alice.get_job(job.job_id()).owner(), "alice");
  alice.watch(job.job_id(), nullptr);
}

TEST_F(SecurityTest, ANonLoopbackAddressNeedsAuthenticationOrInsecure) {
  ServerOptions options;
  options.listen = "0.0.0.0:0";
  options.metrics = "";
  try {
    Server server(options);
    ADD_FAILURE() << "served 0.0.0.0 without authentication";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--listen 0.0.0.0:0 is reachable from other machines"));
  }
  // With --insecure or a tokens file the check passes and the address then fails to bind: a
  // documentation address (RFC 5737), so that the test never listens beyond loopback.
  const auto expect_check_passes = [&](const char* how) {
    options.listen = "192.0.2.1:0";
    try {
      Server server(options);
      ADD_FAILURE() << "bound 192.0.2.1";
    } catch (const std::invalid_argument& e) {
      ADD_FAILURE() << "refused with " << how << ": " << e.what();
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("cannot listen on 192.0.2.1:0")) << how;
    }
  };
  options.insecure = true;
  expect_check_passes("--insecure");
  options.insecure = false;
  options.tls_cert = *dir_ / "server.pem";
  options.tls_key = *dir_ / "server.key";
  options.tls_client_ca = *dir_ / "ca.pem";
  expect_check_passes("--tls-client-ca");
  options.tls_client_ca.clear();
  options.tls_cert.clear();
  options.tls_key.clear();
  options.tokens_file = *dir_ / "tokens";
  expect_check_passes("--tokens-file");
}

TEST(Auth, LoopbackAddresses) {
  for (const char* address :
       {"127.0.0.1:1", "127.1.2.3:1", "localhost:1", "[::1]:1", "unix:/tmp/nhsim.sock"}) {
    EXPECT_TRUE(wire::is_loopback(address)) << address;
  }
  for (const char* address :
       {"0.0.0.0:1", "[::]:1", "10.0.0.1:1", "example.org:1", "127.example.org:1", ":1"}) {
    EXPECT_FALSE(wire::is_loopback(address)) << address;
  }
}

// Issue 49: whoever can write the tokens file can make themselves an admin, so one that group or
// others can write is refused, naming its mode.
TEST(Auth, ATokensFileOthersCanWriteIsRefused) {
  char pattern[] = "/tmp/nhsim-tokens-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path file = fs::path(pattern) / "tokens";
  std::ofstream(file) << wire::token_line("secret", "carol", true) << "\n";
  for (const unsigned bad : {0664U, 0646U, 0666U}) {
    fs::permissions(file, static_cast<fs::perms>(bad));
    try {
      (void)wire::TokenTable::load(file);
      ADD_FAILURE() << "loaded a tokens file of mode " << std::oct << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("writable by group or others")) << std::oct << bad;
      char octal[8];
      std::snprintf(octal, sizeof octal, "%04o", bad);
      EXPECT_THAT(e.what(), HasSubstr(octal));
    }
  }
  fs::permissions(file, static_cast<fs::perms>(0640));
  EXPECT_EQ(wire::TokenTable::load(file).size(), 1u);
  std::error_code ignored;
  fs::remove_all(pattern, ignored);
}

// Issue 61 item 9: where the host file is missing, docker creates a directory at the mount
// point; nhsimd said only "no tokens".
TEST(Auth, ATokensFileThatIsADirectoryIsNamedSo) {
  char pattern[] = "/tmp/nhsim-tokens-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  try {
    (void)wire::TokenTable::load(pattern);
    ADD_FAILURE() << "loaded a directory as a tokens file";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(std::string("--tokens-file ") + pattern +
                                    ": is a directory, not a tokens file"));
    EXPECT_THAT(e.what(), HasSubstr("nhsim token NAME --append FILE"));
  }
  std::error_code ignored;
  fs::remove_all(pattern, ignored);
}

TEST(Auth, TokensFilesAreCheckedLineByLine) {
  const std::string hash(64, 'a');
  const wire::TokenTable table = wire::TokenTable::parse(
      hash + " alice\n# x\n" + std::string(64, 'b') + " ops admin # comment\n", "tokens");
  EXPECT_EQ(table.size(), 2u);
  const auto expect_refused = [](const std::string& text, const std::string& why) {
    try {
      wire::TokenTable::parse(text, "tokens");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr(why)) << text;
    }
  };
  expect_refused("nhsim_plaintext-token alice\n", "line 1: expected the token's SHA-256");
  expect_refused(hash + "\n", "line 1: identity");
  expect_refused(hash + " al/ice\n", "line 1: identity");
  expect_refused(hash + " alice root\n", "line 1: expected \"<sha256> <identity> [admin]\"");
  expect_refused(hash + " alice\n" + hash + " bob\n", "line 2: this token hash appears twice");
  expect_refused("# nobody\n", "tokens: no tokens");
  EXPECT_THROW(wire::token_line("t", "", false), std::invalid_argument);
  const wire::TokenTable one =
      wire::TokenTable::parse(wire::token_line("secret", "carol", true), "tokens");
  const auto carol = one.authenticate("Bearer secret");
  ASSERT_TRUE(carol.has_value());
  EXPECT_EQ(carol->identity, "carol");
  EXPECT_TRUE(carol->admin);
  EXPECT_FALSE(one.authenticate("Bearer secre").has_value());
  EXPECT_FALSE(one.authenticate("Basic secret").has_value());
  EXPECT_FALSE(one.authenticate("secret").has_value());
}

}  // namespace
}  // namespace nhsim::server
