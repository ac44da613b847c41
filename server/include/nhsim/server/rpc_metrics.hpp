// A gRPC server interceptor that counts every call by method and status code and times it
// (Metrics::rpc_done), for all services of the server: EnsembleService, health, reflection.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <string>
#include <string_view>

#include "nhsim/server/metrics.hpp"

namespace nhsim::server {

/// The `method` label of a call to `path` ("/nhsim.v1.EnsembleService/GetJob" -> "GetJob"): the
/// method's name for a method this server serves (EnsembleService's, health's Check and Watch,
/// reflection's ServerReflectionInfo), "unknown" for any other path, so that nothing a caller
/// sends, before or without authentication, creates a metric series.
std::string rpc_method_label(std::string_view path);

class RpcMetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  /// `metrics` must outlive the server.
  explicit RpcMetricsInterceptorFactory(Metrics& metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics& metrics_;
};

}  // namespace nhsim::server
