#include "nhsim/server/rpc_metrics.hpp"

#include <google/protobuf/descriptor.h>

#include <chrono>
#include <string>

#include "nhsim/tsan.hpp"
#include "nhsim/v1/ensemble.grpc.pb.h"

namespace nhsim::server {

std::string rpc_method_label(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  if (path.size() < 3 || path.front() != '/' || slash == 0 || slash == std::string_view::npos) {
    return "unknown";
  }
  const std::string_view service = path.substr(1, slash - 1);
  const std::string method(path.substr(slash + 1));
  const bool served = [&] {
    if (service == nhsim::v1::EnsembleService::service_full_name()) {
      const auto* descriptor =
          google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
              std::string(service));
      return descriptor != nullptr && descriptor->FindMethodByName(method) != nullptr;
    }
    if (service == "grpc.health.v1.Health") return method == "Check" || method == "Watch";
    if (service == "grpc.reflection.v1alpha.ServerReflection" ||
        service == "grpc.reflection.v1.ServerReflection") {
      return method == "ServerReflectionInfo";
    }
    return false;
  }();
  return served ? method : "unknown";
}

namespace {

using Clock = std::chrono::steady_clock;
using grpc::experimental::InterceptionHookPoints;

/// One per call: created when the call starts, records when its status is sent. gRPC creates it,
/// calls it and deletes it on its threads, in an order its uninstrumented code keeps; `this` states
/// that order to TSan (tsan.hpp): each use acquires what the earlier ones released.
class RpcMetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(Metrics& metrics, const std::string& method)
      : metrics_(metrics), method_(rpc_method_label(method)) {
    tsan_release(this);
  }
  ~RpcMetricsInterceptor() override { tsan_acquire(this); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    tsan_acquire(this);
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
      metrics_.rpc_done(method_, methods->GetSendStatus().error_code(), seconds);
    }
    tsan_release(this);  // before Proceed(), after which gRPC may delete this interceptor
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
  // For a method no service has, info->method() is gRPC's string of this call, which gRPC frees
  // on another thread after the call, in an order TSan cannot see: copied unrecorded (tsan.hpp).
  const std::string method =
      tsan_unrecorded([&] { return std::string(info->method() == nullptr ? "" : info->method()); });
  return new RpcMetricsInterceptor(metrics_, method);
}

}  // namespace nhsim::server
