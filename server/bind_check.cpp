#include "nhsim/server/bind_check.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace nhsim::server {

std::string bind_problem(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {};
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (port.empty() || port == "0") return {};
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found) != 0) {
    return {};
  }
  std::string problem;
  const int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
  if (fd >= 0) {
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);  // as the servers bind
    if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
      problem = std::strerror(errno);
      if (!problem.empty()) {
        problem[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(problem[0])));
      }
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return problem;
}

}  // namespace nhsim::server
