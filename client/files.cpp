#include "nhsim/client/files.hpp"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

#include "nhsim/client/suggest.hpp"
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

/// Adds to `counts` the names of the signed 64-bit integer fields of `type` and the messages it
/// holds, and to `others` the names of every other field (the well-known types left out: none
/// of them prints an integer).
void collect_field_names(const google::protobuf::Descriptor& type, std::set<std::string>& counts,
                         std::set<std::string>& others,
                         std::set<const google::protobuf::Descriptor*>& seen) {
  using google::protobuf::FieldDescriptor;
  if (!seen.insert(&type).second || type.file()->package() == "google.protobuf") return;
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    const bool int64 = field.type() == FieldDescriptor::TYPE_INT64 ||
                       field.type() == FieldDescriptor::TYPE_SINT64 ||
                       field.type() == FieldDescriptor::TYPE_SFIXED64;
    (int64 ? counts : others).insert(field.name());
    if (field.message_type() != nullptr) {
      collect_field_names(*field.message_type(), counts, others, seen);
    }
  }
}

/// Whether `text` is an optional minus and decimal digits.
bool is_integer(std::string_view text) {
  if (!text.empty() && text.front() == '-') text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::string unquote_counts(std::string_view json, const google::protobuf::Descriptor& type) {
  std::set<std::string> counts, others;
  std::set<const google::protobuf::Descriptor*> seen;
  collect_field_names(type, counts, others, seen);
  for (const auto& name : others) counts.erase(name);  // a name both ways stays quoted
  // The key each open object or array belongs to: an array's values are its key's.
  std::vector<std::string> keys;
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '{' || c == '[') {
      keys.push_back(c == '[' && !keys.empty() ? keys.back() : std::string());
    } else if ((c == '}' || c == ']') && !keys.empty()) {
      keys.pop_back();
    }
    if (c != '"') {
      out += c;
      continue;
    }
    std::size_t end = i + 1;  // the closing quote
    while (end < json.size() && json[end] != '"') end += json[end] == '\\' ? 2 : 1;
    const std::string_view text = json.substr(i + 1, end - i - 1);
    const std::size_t next = json.find_first_not_of(" \n\r\t", end + 1);
    const bool key = next != std::string_view::npos && json[next] == ':';
    if (key && !keys.empty()) keys.back() = std::string(text);
    if (!key && !keys.empty() && counts.contains(keys.back()) && is_integer(text)) {
      out += text;
    } else {
      out += json.substr(i, end + 1 - i);
    }
    i = end;
  }
  return out;
}

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
    std::string error(status.message());
    const std::string hint = unknown_spec_field_hint(error);
    if (!hint.empty()) error.back() = ';', error += " " + hint;  // "...: Cannot find field; did..."
    throw FileError(source_name +
                    ": not a valid nhsim.v1.SubmitEnsembleRequest JSON spec: " + error);
  }
  return spec;
}

v1::SubmitEnsembleRequest load_spec(const std::filesystem::path& path) {
  if (path == "-") {
    std::ostringstream content;
    content << std::cin.rdbuf();
    if (std::cin.bad()) throw FileError("standard input: read error");
    return parse_spec(content.str(), "standard input");
  }
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
  json = unquote_counts(json, *message.GetDescriptor());
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
