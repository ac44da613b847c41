// A gRPC server interceptor that counts every call by method and status code and times it
// (Metrics::rpc_done), for all services of the server: EnsembleService, health, reflection.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include "nhsim/server/metrics.hpp"

namespace nhsim::server {

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
