// Near-miss suggestions (nhsim/client/suggest.hpp).
#include "nhsim/client/suggest.hpp"

#include <algorithm>
#include <sstream>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::client {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance =
      std::min<std::size_t>(3, std::max<std::size_t>(2, (word.size() + 1) / 2));
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string unknown_spec_field_hint(const std::string& parse_error) {
  const std::string tail = ": Cannot find field.";
  if (parse_error.size() < tail.size() ||
      parse_error.compare(parse_error.size() - tail.size(), tail.size(), tail) != 0) {
    return "";
  }
  std::string name = parse_error.substr(0, parse_error.size() - tail.size());
  std::string path;
  if (!name.empty() && name[0] == '(') {
    const std::size_t close = name.find(") ");
    if (close == std::string::npos) return "";
    path = name.substr(1, close - 1);
    name = name.substr(close + 2);
  }
  const google::protobuf::Descriptor* message = v1::SubmitEnsembleRequest::descriptor();
  std::istringstream components(path);
  for (std::string c; std::getline(components, c, '.');) {
    c = c.substr(0, c.find('['));  // integrators[0]: the element's message
    const google::protobuf::FieldDescriptor* f = message->FindFieldByName(c);
    if (f == nullptr) f = message->FindFieldByCamelcaseName(c);
    if (f == nullptr || f->message_type() == nullptr) return "";
    message = f->message_type();
  }
  std::vector<std::string> fields;
  for (int i = 0; i < message->field_count(); ++i) fields.push_back(message->field(i)->name());
  const std::string best = nearest(name, fields);
  return best.empty() ? "" : "did you mean '" + best + "'?";
}

}  // namespace nhsim::client
