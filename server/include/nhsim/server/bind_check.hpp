// A trial bind of a listening address before gRPC or civetweb binds it, so that a busy port is
// refused at once with the system's reason ("127.0.0.1:50051: address already in use") instead
// of gRPC's C-core error dump or civetweb's "null context".
#pragma once

#include <string>

namespace nhsim::server {

/// Why `address` ("host:port", "[ipv6]:port") cannot be bound for listening now, e.g. "address
/// already in use" or "permission denied" (strerror, lower case); empty when it can, for port 0,
/// and when the host does not resolve (the server's own bind then says why).
std::string bind_problem(const std::string& address);

}  // namespace nhsim::server
