// Near-miss suggestions for what a user typed: a command, a spec field.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nhsim::client {

/// Levenshtein distance of two short words.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate nearest `word` if it is a near miss (one edit, or fewer than 3 and than half of
/// the word's letters), else "".
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

/// For a protobuf JSON parse error "(a.b[0]) name: Cannot find field." of a
/// nhsim.v1.SubmitEnsembleRequest: "did you mean 'x'?" with the nearest field of the message at
/// that path, else "".
std::string unknown_spec_field_hint(const std::string& parse_error);

}  // namespace nhsim::client
