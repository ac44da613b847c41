#include "nhsim/wire/part_file.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <stdexcept>

#include "nhsim/wire/spec_hash.hpp"

namespace nhsim::wire {
namespace {

constexpr int kContentSha256Field = 8;  // PartialResult.content_sha256
constexpr std::size_t kDigestLength = 64;
// The trailer: the field's tag (8 << 3 | length-delimited), the length 64, the digest.
constexpr std::size_t kTrailerLength = 2 + kDigestLength;

std::string trailer_tag() {
  return {static_cast<char>((kContentSha256Field << 3) | 2), static_cast<char>(kDigestLength)};
}

}  // namespace

std::string part_file_bytes(const v1::PartialResult& partial) {
  v1::PartialResult content = partial;
  content.clear_content_sha256();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!content.SerializeToCodedStream(&coded)) {
      throw std::runtime_error("partial result serialisation failed");
    }
  }
  const std::string digest = sha256_hex(bytes);
  return bytes + trailer_tag() + digest;
}

v1::PartialResult parse_part_file(std::string_view bytes, const std::string& name) {
  v1::PartialResult partial;
  if (!partial.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw std::invalid_argument(name + ": not a partial result (nhsim.v1.PartialResult, binary)");
  }
  if (!partial.content_sha256().empty()) {
    const bool trailer = bytes.size() >= kTrailerLength &&
                         bytes.substr(bytes.size() - kTrailerLength, 2) == trailer_tag() &&
                         bytes.substr(bytes.size() - kDigestLength) == partial.content_sha256();
    if (!trailer ||
        sha256_hex(bytes.substr(0, bytes.size() - kTrailerLength)) != partial.content_sha256()) {
      throw std::invalid_argument(name + ": damaged (its content_sha256 does not match its bytes)");
    }
  }
  if (partial.spec_sha256() != spec_sha256(partial.spec())) {
    throw std::invalid_argument(name +
                                ": spec_sha256 is not the hash of the spec it carries "
                                "(a damaged or edited file)");
  }
  return partial;
}

void check_same_fingerprint(const std::vector<std::string>& names,
                            const std::vector<std::string>& fingerprints,
                            const std::string& remedy) {
  bool mixed = false;
  for (const std::string& fingerprint : fingerprints) mixed |= fingerprint != fingerprints.front();
  if (!mixed) return;
  std::string message =
      "the parts were written by different builds or math libraries, whose bits may differ" +
      (remedy.empty() ? std::string() : " (" + remedy + ")") + ":";
  for (std::size_t k = 0; k < names.size(); ++k) {
    message += "\n  " + names[k] + ": " +
               (fingerprints[k].empty() ? "(no fingerprint: an older nhsim)" : fingerprints[k]);
  }
  throw std::invalid_argument(message);
}

}  // namespace nhsim::wire
