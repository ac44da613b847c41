// Internal: names joined for error messages ("a, b, c").
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

}  // namespace nhsim
