// The names a user gives in a custom_system (coordinates, parameters, invariants) and to a
// registered system: one rule for both.
#pragma once

#include <cstddef>
#include <string>

namespace nhsim {

/// The longest name, in characters.
inline constexpr std::size_t kMaxCustomNameLength = 64;

/// True for an identifier: a letter or '_', then letters, digits or '_'; 1 to
/// kMaxCustomNameLength characters (ASCII).
bool is_custom_name(const std::string& s);

}  // namespace nhsim
