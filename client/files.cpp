#include "nhsim/client/files.hpp"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "nhsim/wire/part_file.hpp"
#include "nhsim/wire/spec_hash.hpp"

namespace nhsim::client {
namespace {

/// Creates the directories above `path`; FileError "<path>: cannot create directory ..." if it
/// cannot.
void create_parent_directories(const std::filesystem::path& path) {
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    throw FileError(path.string() + ": cannot create directory " + path.parent_path().string() +
                    ": " + error.message());
  }
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string() + ": cannot read: " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw FileError(path.string() + ": read error");
  return content.str();
}

v1::SubmitEnsembleRequest parse_spec(std::string_view json, const std::string& source_name) {
  v1::SubmitEnsembleRequest spec;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &spec, options);
  if (!status.ok()) {
    throw FileError(source_name + ": not a valid nhsim.v1.SubmitEnsembleRequest JSON spec: " +
                    std::string(status.message()));
  }
  return spec;
}

v1::SubmitEnsembleRequest load_spec(const std::filesystem::path& path) {
  return parse_spec(read_text_file(path), path.string());
}

v1::EnsembleResult load_result(const std::filesystem::path& path) {
  v1::EnsembleResult result;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const std::string json = read_text_file(path);
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &result, options);
  if (!status.ok()) {
    throw FileError(path.string() + ": not a valid nhsim.v1.EnsembleResult JSON result: " +
                    std::string(status.message()));
  }
  return result;
}

std::string to_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok())
    throw std::runtime_error("JSON printing failed: " + std::string(status.message()));
  if (json.empty() || json.back() != '\n') json += '\n';
  return json;
}

void write_text_file(const std::filesystem::path& path, std::string_view content) {
  create_parent_directories(path);
  // Unique per process, beside the target so that rename() stays within one file system.
  const std::string temporary = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw FileError(path.string() + ": cannot write: " + std::strerror(errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = written == content.size() && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int cause = ok ? errno : saved_errno;
    ::unlink(temporary.c_str());
    throw FileError(path.string() + ": write error: " + std::strerror(cause));
  }
}

v1::PartialResult load_partial(const std::filesystem::path& path) {
  const std::string bytes = read_text_file(path);
  try {
    return wire::parse_part_file(bytes, path.string());
  } catch (const std::invalid_argument& e) {
    throw FileError(e.what());
  }
}

void check_writable(const std::filesystem::path& path) {
  create_parent_directories(path);
  const std::string probe = path.string() + ".probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw FileError(path.string() + ": cannot write: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_partial(const std::filesystem::path& path, const v1::PartialResult& partial) {
  write_text_file(path, wire::part_file_bytes(partial));
}

}  // namespace nhsim::client
