// The C++ client of nhsim.v1.EnsembleService, used by the `nhsim` CLI and the tests.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/v1/ensemble.grpc.pb.h"

namespace nhsim::client {

/// A call that the server (or the channel) answered with a status other than OK.
/// what() is "<CODE>: <server message>", e.g. "INVALID_ARGUMENT: integrators[0].h: must be > 0".
class RpcError : public std::runtime_error {
 public:
  explicit RpcError(const grpc::Status& status);
  grpc::StatusCode code() const { return code_; }
  /// The server's message alone, without the code.
  const std::string& message() const { return message_; }

 private:
  grpc::StatusCode code_;
  std::string message_;
};

/// Name of a status code, e.g. "INVALID_ARGUMENT".
std::string code_name(grpc::StatusCode code);

/// Where nhsimd is and how to talk to it.
struct Connection {
  std::string address = "127.0.0.1:50051";  ///< "host:port"
  /// TLS instead of plaintext; the server's certificate is verified against `tls_ca`.
  bool tls = false;
  std::string tls_ca;    ///< PEM CA certificates; empty with `tls`: the system's roots
  std::string tls_cert;  ///< PEM client certificate chain, for mutual TLS (with tls_key)
  std::string tls_key;   ///< PEM client private key
  std::string token;     ///< bearer token sent with every call; empty: none
  /// Largest message sent, MiB: nhsimd's default --max-message-mb. A larger request fails at
  /// once (RESOURCE_EXHAUSTED) instead of after its transfer.
  int max_message_mb = 64;
};

/// gRPC channel credentials for `connection`: plaintext, or TLS with its CA and client pair.
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const Connection& connection);

/// A connection to one nhsimd. Every method throws RpcError when the call fails; unary calls
/// give up after `call_timeout` (DEADLINE_EXCEEDED), watch() has no deadline. Responses of any
/// size are accepted (the server bounds them). Thread-safe.
class Client {
 public:
  /// Plaintext, no token, to `address` ("host:port"). Connects lazily: an unreachable server
  /// shows as RpcError UNAVAILABLE on the first call.
  explicit Client(const std::string& address,
                  std::chrono::milliseconds call_timeout = std::chrono::seconds(60));
  /// As `connection` says (TLS, token). A missing or wrong token shows as UNAUTHENTICATED, a
  /// TLS failure as UNAVAILABLE, on the first call.
  explicit Client(const Connection& connection,
                  std::chrono::milliseconds call_timeout = std::chrono::seconds(60));

  nhsim::v1::ListSystemsResponse list_systems() const;
  nhsim::v1::ListIntegratorsResponse list_integrators() const;
  /// Registers a user-defined system under `name` for this caller (RegisterSystem); returns
  /// its ListSystems entry. INVALID_ARGUMENT for a bad definition or name, ALREADY_EXISTS.
  nhsim::v1::SystemInfo register_system(const std::string& name,
                                        const nhsim::v1::CustomSystem& custom_system,
                                        const std::string& description = "") const;
  /// Removes this caller's registered system `name` (DeleteSystem); NOT_FOUND if none.
  void delete_system(const std::string& name) const;
  /// Submits a spec; returns the queued job. Bad specs: INVALID_ARGUMENT; over the server's
  /// limits: RESOURCE_EXHAUSTED.
  /// `idempotency_key` (1 to 128 of A-Z a-z 0-9 - _ . :; empty: a random one) is sent as the
  /// "idempotency-key" metadata: a submit that answers UNAVAILABLE is sent again with it (3
  /// more tries, 0.25 to 1 s apart), and the server answers the job the first try created, if
  /// it did, instead of queuing another. A key used before for another spec: ALREADY_EXISTS.
  nhsim::v1::Job submit(const nhsim::v1::SubmitEnsembleRequest& spec,
                        std::string idempotency_key = "") const;
  nhsim::v1::Job get_job(const std::string& job_id) const;
  /// Follows the job until it ends, calling `on_update` (may be empty) with each message of
  /// the server's stream (the first at once, then on progress). Returns the last job seen,
  /// normally in a terminal state.
  nhsim::v1::Job watch(const std::string& job_id,
                       const std::function<void(const nhsim::v1::Job&)>& on_update) const;
  /// The result of a job that ended SUCCEEDED or CANCELLED, of any size (StreamResult);
  /// FAILED_PRECONDITION otherwise. With `partial`, of a running job its statistics so far
  /// (GetResultRequest.partial).
  nhsim::v1::EnsembleResult result(const std::string& job_id, bool partial = false) const;
  /// Asks the job to stop; returns the job after the request.
  nhsim::v1::Job cancel(const std::string& job_id) const;
  /// Every job the server keeps, oldest first (all pages of ListJobs).
  std::vector<nhsim::v1::Job> list_jobs() const;
  /// Removes a finished job and its result; FAILED_PRECONDITION for one still running.
  void delete_job(const std::string& job_id) const;

  /// The underlying channel (e.g. for the health service).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  /// The call's deadline (unless `deadline` is false) and token.
  void prepare(grpc::ClientContext& context, bool deadline = true) const;

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<nhsim::v1::EnsembleService::Stub> stub_;
  std::chrono::milliseconds call_timeout_;
  std::string authorization_;  ///< "Bearer <token>", or empty
};

}  // namespace nhsim::client
