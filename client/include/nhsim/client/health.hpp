// The standard gRPC health check (grpc.health.v1.Health/Check) from the client side.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace nhsim::client {

/// Calls grpc.health.v1.Health/Check for `service` ("" = the server as a whole) through a
/// generic stub (the health proto is not installed with gRPC) and returns the status field:
/// 1 SERVING, 2 NOT_SERVING, 0 UNKNOWN; std::nullopt when the call fails (an unknown service
/// answers NOT_FOUND) or times out.
std::optional<std::uint64_t> health_status(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& service,
    std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace nhsim::client
