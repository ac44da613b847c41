// Who is calling: bearer tokens mapped to identities (docs/design.md "Jobs and the service",
// security). The server keeps only SHA-256 hashes of the tokens, read from a tokens file; the
// CLI's `nhsim token` makes a token and its line. Also the CSPRNG that makes tokens and job ids.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace nhsim::wire {

/// An authenticated caller. Jobs belong to the identity that submitted them; `admin` may see,
/// list, cancel and delete every job.
struct Caller {
  std::string identity;
  bool admin = false;
};

/// The caller of a server without a tokens file (loopback only, or --insecure): every client is
/// this one identity, not admin.
inline const Caller kAnonymous{"anonymous", false};

/// Whether `identity` may name a caller: 1 to 64 characters of [A-Za-z0-9._@-].
bool valid_identity(std::string_view identity);

/// `bytes` bytes from the OS CSPRNG (getrandom), as 2 x `bytes` lower-case hex digits. Throws
/// std::runtime_error if the kernel cannot supply them.
std::string random_hex(std::size_t bytes);

/// The tokens file's line for `token`: "<sha256 hex of token> <identity>[ admin]". Throws
/// std::invalid_argument for an identity TokenTable would refuse.
std::string token_line(std::string_view token, const std::string& identity, bool admin);

/// Hashes of bearer tokens and the caller each stands for, from a tokens file:
///
///   # comment
///   <64 hex digits: SHA-256 of the token> <identity> [admin]
///
/// Identities are 1..64 characters of [A-Za-z0-9._@-]; one identity may have several tokens.
class TokenTable {
 public:
  /// Reads `path`. Throws std::runtime_error naming the file and line for an unreadable file,
  /// a malformed line, a bad identity, a repeated hash, or a file without any token.
  static TokenTable load(const std::filesystem::path& path);
  /// Parses the text of a tokens file; `source` names it in errors. Same errors as load().
  static TokenTable parse(std::string_view text, const std::string& source);

  /// The caller for the `authorization` metadata value "Bearer <token>"; std::nullopt for a
  /// missing scheme, an empty token or an unknown one.
  std::optional<Caller> authenticate(std::string_view authorization) const;

  std::size_t size() const { return by_hash_.size(); }

 private:
  std::unordered_map<std::string, Caller> by_hash_;
};

/// True for addresses only this machine can reach: 127.0.0.0/8, [::1], localhost and unix:
/// sockets. `address` is a gRPC listen address "host:port".
bool is_loopback(const std::string& address);

}  // namespace nhsim::wire
