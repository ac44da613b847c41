// The identity of a spec: which partial results belong together (docs/design.md "Ensemble
// semantics": merging refuses partials of different specs).
#pragma once

#include <string>
#include <string_view>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::wire {

/// Lower-case hex SHA-256 (64 characters) of `bytes` (OpenSSL EVP). Throws std::runtime_error if
/// OpenSSL fails.
std::string sha256_hex(std::string_view bytes);

/// Incremental SHA-256 (OpenSSL EVP): update() with the pieces in order, then hex() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  /// Lower-case hex digest (64 characters) of everything update() was given.
  std::string hex();

 private:
  struct Context;
  Context* context_;
};

/// Lower-case hex SHA-256 (64 characters) of the deterministic binary serialisation of `spec`
/// (map entries sorted by key). Equal specs give equal hashes; any change of a field, the label
/// included, changes it. Stable for a given nhsim.v1 schema and protobuf library (protobuf
/// does not promise a canonical encoding across versions): partials are merged by the nhsim
/// build that wrote them.
std::string spec_sha256(const nhsim::v1::SubmitEnsembleRequest& spec);

}  // namespace nhsim::wire
