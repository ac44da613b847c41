// The ensemble's observables: name resolution and sampling (observables.hpp).
#include "observables.hpp"

#include <algorithm>

#include "join.hpp"
#include "nhsim/spec_types.hpp"

namespace nhsim {
namespace {

std::string field(std::size_t i) { return "observables[" + std::to_string(i) + "]"; }

}  // namespace

std::vector<ObsDef> resolve_observables(const std::vector<std::string>& requested, int nq,
                                        bool holonomic,
                                        const std::vector<std::string>& system_names,
                                        bool system_by_default) {
  std::vector<ObsDef> out;
  std::vector<std::string> defaults = {"energy_error", "relative_energy_error",
                                       "constraint_residual"};
  if (holonomic) {
    defaults.push_back("position_constraint_residual");
    defaults.push_back("velocity_constraint_residual");
  }
  std::vector<std::string> sampled_by_default = defaults;
  if (system_by_default) {
    sampled_by_default.insert(sampled_by_default.end(), system_names.begin(), system_names.end());
  }
  const auto& names = requested.empty() ? sampled_by_default : requested;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    if (n == "energy_error") {
      out.push_back({n, ObsKind::kEnergyError});
    } else if (n == "relative_energy_error") {
      out.push_back({n, ObsKind::kRelativeEnergyError});
    } else if (n == "constraint_residual") {
      out.push_back({n, ObsKind::kConstraintResidual});
    } else if (holonomic && n == "position_constraint_residual") {
      out.push_back({n, ObsKind::kPositionResidual});
    } else if (holonomic && n == "velocity_constraint_residual") {
      out.push_back({n, ObsKind::kVelocityResidual});
    } else if ((n.rfind("q[", 0) == 0 || n.rfind("p[", 0) == 0) && n.back() == ']') {
      // The index in its one canonical spelling, decimal digits without sign, blanks or leading
      // zeros: "q[ 1]", "q[+1]" and "q[01]" would name q[1] again under another name.
      const std::string num = n.substr(2, n.size() - 3);
      const bool canonical =
          !num.empty() && num.size() <= 9 &&
          std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
          (num.size() == 1 || num[0] != '0');
      const int k = canonical ? std::stoi(num) : -1;
      if (k < 0 || k >= nq) {
        throw SpecError(field(i),
                        "state component index must be in [0, " + std::to_string(nq - 1) +
                            "], written in decimal without sign, blanks or leading zeros");
      }
      out.push_back({n, n[0] == 'q' ? ObsKind::kQ : ObsKind::kP, k});
    } else {
      const std::string prefix = "invariant_error[";
      const bool change = n.rfind(prefix, 0) == 0 && n.back() == ']';
      const std::string base = change ? n.substr(prefix.size(), n.size() - prefix.size() - 1) : n;
      int k = -1;
      for (std::size_t j = 0; j < system_names.size(); ++j) {
        if (system_names[j] == base) k = static_cast<int>(j);
      }
      if (k < 0) {
        throw SpecError(field(i), "unknown observable " + echo(n) + "; known: " + join(defaults) +
                                      ", q[i], p[i]" +
                                      (system_names.empty() ? ""
                                                            : ", " + join(system_names) +
                                                                  " and invariant_error[NAME] "
                                                                  "of each"));
      }
      out.push_back({n, change ? ObsKind::kInvariantError : ObsKind::kSystem, k});
    }
    for (std::size_t j = 0; j + 1 < out.size(); ++j) {
      if (out[j].name == n) throw SpecError(field(i), "duplicate observable");
    }
  }
  return out;
}

bool observables_need_state(const std::vector<ObsDef>& observables) {
  for (const auto& o : observables) {
    if (o.kind == ObsKind::kQ || o.kind == ObsKind::kP || o.kind == ObsKind::kSystem ||
        o.kind == ObsKind::kInvariantError || o.kind == ObsKind::kPositionResidual ||
        o.kind == ObsKind::kVelocityResidual) {
      return true;
    }
  }
  return false;
}

}  // namespace nhsim
