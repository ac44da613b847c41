#include "nhsim/client/files.hpp"

#include <google/protobuf/util/json_util.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace nhsim::client {
namespace {

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string() + ": cannot read: " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw FileError(path.string() + ": read error");
  return content.str();
}

}  // namespace

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
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    throw FileError(path.string() + ": cannot create directory " + path.parent_path().string() +
                    ": " + error.message());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw FileError(path.string() + ": cannot write: " + std::strerror(errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw FileError(path.string() + ": write error");
}

}  // namespace nhsim::client
