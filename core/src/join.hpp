// Internal: text for error messages: names joined ("a, b, c"), user input echoed and truncated.
#pragma once

#include <string>
#include <vector>

namespace nhsim {

/// The entries of `v` separated by ", "; empty for an empty list.
inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// User input as echoed in an error message: 'text', cut to its first 64 bytes and marked so
/// ("'abc...' (1048576 bytes)") when longer, so that a huge name does not come back whole.
inline std::string echo(const std::string& text) {
  constexpr std::size_t kMaxEcho = 64;
  std::string out(1, '\'');
  out.append(text, 0, kMaxEcho);
  out += '\'';
  if (text.size() > kMaxEcho) {
    out.insert(out.size() - 1, "...");
    out += " (";
    out += std::to_string(text.size());
    out += " bytes)";
  }
  return out;
}

}  // namespace nhsim
