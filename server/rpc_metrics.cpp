#include "nhsim/server/rpc_metrics.hpp"

#include <chrono>
#include <string>

namespace nhsim::server {
namespace {

using Clock = std::chrono::steady_clock;
using grpc::experimental::InterceptionHookPoints;

/// One per call: created when the call starts, records when its status is sent.
class RpcMetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(Metrics& metrics, const char* method)
      : metrics_(metrics), method_(method == nullptr ? "unknown" : method) {
    method_.erase(0, method_.rfind('/') + 1);  // "/nhsim.v1.EnsembleService/GetJob" → "GetJob"
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
      metrics_.rpc_done(method_, methods->GetSendStatus().error_code(), seconds);
    }
    methods->Proceed();
  }

 private:
  Metrics& metrics_;
  std::string method_;
  Clock::time_point start_ = Clock::now();
};

}  // namespace

grpc::experimental::Interceptor* RpcMetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new RpcMetricsInterceptor(metrics_, info->method());
}

}  // namespace nhsim::server
