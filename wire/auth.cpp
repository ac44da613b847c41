#include "nhsim/wire/auth.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "nhsim/wire/spec_hash.hpp"

namespace nhsim::wire {

bool valid_identity(std::string_view identity) {
  if (identity.empty() || identity.size() > 64) return false;
  return std::all_of(identity.begin(), identity.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '@' || c == '-';
  });
}

namespace {

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> buffer(bytes);
  std::size_t filled = 0;
  while (filled < bytes) {
    const ssize_t n = ::getrandom(buffer.data() + filled, bytes - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    filled += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes);
  for (const unsigned char b : buffer) {
    hex += kHex[b >> 4];
    hex += kHex[b & 0xf];
  }
  return hex;
}

std::string token_line(std::string_view token, const std::string& identity, bool admin) {
  if (!valid_identity(identity)) {
    throw std::invalid_argument("identity: \"" + identity.substr(0, 64) +
                                "\" is not 1..64 characters of A-Z a-z 0-9 . _ @ -");
  }
  std::string line = sha256_hex(token);
  line.append(" ").append(identity);
  if (admin) line.append(" admin");
  return line;
}

TokenTable TokenTable::load(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  // A directory opens as an empty stream; it is what `docker compose` (short volume syntax) and
  // `docker run -v` create where the host file to mount is missing.
  std::error_code ignored;
  if (fs::is_directory(path, ignored)) {
    throw std::runtime_error("--tokens-file " + path.string() +
                             ": is a directory, not a tokens file (container runtimes create an "
                             "empty one where the host file to mount is missing): remove it, "
                             "make the file with `nhsim token NAME --append FILE`, mount that");
  }
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("--tokens-file " + path.string() + ": " + std::strerror(errno));
  }
  // Whoever can write this file can make themselves an admin.
  const fs::perms mode = fs::status(path).permissions();
  if ((mode & (fs::perms::group_write | fs::perms::others_write)) != fs::perms::none) {
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode) & 07777U);
    throw std::runtime_error("--tokens-file " + path.string() +
                             ": writable by group or others (mode " + octal +
                             "), so anyone who can write it can make themselves an admin: "
                             "chmod go-w it");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), "--tokens-file " + path.string());
}

TokenTable TokenTable::parse(std::string_view text, const std::string& source) {
  TokenTable table;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string where = source + " line " + std::to_string(number) + ": ";
    std::istringstream words(line.substr(0, line.find('#')));
    std::string hash, identity, role, extra;
    if (!(words >> hash)) continue;  // blank or comment
    words >> identity >> role >> extra;
    if (!is_sha256_hex(hash)) {
      throw std::runtime_error(where +
                               "expected the token's SHA-256 as 64 lower-case hex digits (the "
                               "token itself never goes in this file; see `nhsim token`)");
    }
    if (!valid_identity(identity)) {
      throw std::runtime_error(where +
                               "identity: expected 1..64 characters of A-Z a-z 0-9 . _ @ -");
    }
    if (!(role.empty() || role == "admin") || !extra.empty()) {
      throw std::runtime_error(where + "expected \"<sha256> <identity> [admin]\"");
    }
    if (!table.by_hash_.emplace(hash, Caller{identity, role == "admin"}).second) {
      throw std::runtime_error(where + "this token hash appears twice");
    }
  }
  if (table.by_hash_.empty()) throw std::runtime_error(source + ": no tokens");
  return table;
}

std::optional<Caller> TokenTable::authenticate(std::string_view authorization) const {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() <= kScheme.size() ||
      authorization.substr(0, kScheme.size()) != kScheme) {
    return std::nullopt;
  }
  const auto it = by_hash_.find(sha256_hex(authorization.substr(kScheme.size())));
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

bool is_loopback(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) return true;
  const std::size_t colon = address.rfind(':');
  std::string host = address.substr(0, colon == std::string::npos ? address.size() : colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

}  // namespace nhsim::wire
