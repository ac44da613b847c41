// The cases of a sweep: the grid of the axes' steps, each a spec with the swept fields set.
#include "nhsim/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace nhsim {
namespace {

constexpr const char* kSweepable =
    "parameters.NAME, h, sample_every, newton_tol, newton_max_iter, integrators[i].F or "
    "integrators[i:j].F (F one of those four), t_final, controls[i].value, "
    "controls[i].amplitude, controls[i].omega, controls[i].phase, "
    "initial_conditions.energy_shell.energy, initial_conditions.energy_shell.q_std, "
    "initial_conditions.velocity_perturbation.v_std";

/// Where one swept field goes in a spec: parsed once per field, applied once per case.
struct Target {
  enum class Kind {
    kParameter,
    kChoice,
    kTFinal,
    kControl,
    kShellEnergy,
    kShellQStd,
    kPerturbationVStd
  };
  Kind kind = Kind::kTFinal;
  std::string name;                   ///< parameter name, or choice / control field
  std::size_t begin = 0, end = 0;     ///< choices [begin, end), or the control index
  bool whole = false;                 ///< sample_every, newton_max_iter
  std::vector<std::string> overlaps;  ///< the concrete fields it sets, to find overlaps
};

bool parse_index(const std::string& text, std::size_t& out) {
  if (text.empty() || text.size() > 9) return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

/// "prefix[i].rest" or "prefix[i:j].rest" (ranges only where `range` is allowed).
bool parse_indexed(const std::string& field, const std::string& prefix, bool range,
                   std::size_t& begin, std::size_t& end, std::string& rest) {
  if (field.rfind(prefix + "[", 0) != 0) return false;
  const std::size_t close = field.find("].", prefix.size());
  if (close == std::string::npos) return false;
  const std::string inside = field.substr(prefix.size() + 1, close - prefix.size() - 1);
  rest = field.substr(close + 2);
  const std::size_t colon = inside.find(':');
  if (colon == std::string::npos) {
    if (!parse_index(inside, begin)) return false;
    end = begin + 1;
    return true;
  }
  return range && parse_index(inside.substr(0, colon), begin) &&
         parse_index(inside.substr(colon + 1), end);
}

bool is_choice_field(const std::string& name) {
  return name == "h" || name == "sample_every" || name == "newton_tol" || name == "newton_max_iter";
}

Target parse_target(const EnsembleSpec& spec, const std::string& field, const std::string& where) {
  Target t;
  const std::size_t n_choices = spec.integrators.size();
  std::string rest;
  if (field.rfind("parameters.", 0) == 0) {
    t.kind = Target::Kind::kParameter;
    t.name = field.substr(11);
    if (spec.custom_system) {
      bool found = false;
      for (const auto& [name, value] : spec.custom_system->parameters) found |= name == t.name;
      if (!found) {
        std::string known;
        for (const auto& [name, value] : spec.custom_system->parameters) {
          known += (known.empty() ? "" : ", ") + name;
        }
        throw SpecError(where, "the user-defined system has no parameter '" + t.name +
                                   "'; its parameters: " + (known.empty() ? "none" : known));
      }
    }  // a catalogue system's parameter names are checked with the case's spec (Problem)
    t.overlaps = {field};
  } else if (is_choice_field(field) ||
             (parse_indexed(field, "integrators", true, t.begin, t.end, rest) &&
              is_choice_field(rest))) {
    t.kind = Target::Kind::kChoice;
    if (is_choice_field(field)) {
      t.name = field;
      t.begin = 0;
      t.end = n_choices;
    } else {
      t.name = rest;
    }
    if (t.begin >= t.end || t.end > n_choices) {
      throw SpecError(where, "choices [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                                 ") are not a non-empty range within the spec's " +
                                 std::to_string(n_choices) + " integrator choices");
    }
    t.whole = t.name == "sample_every" || t.name == "newton_max_iter";
    for (std::size_t c = t.begin; c < t.end; ++c) {
      t.overlaps.push_back("integrators[" + std::to_string(c) + "]." + t.name);
    }
  } else if (field == "t_final") {
    t.kind = Target::Kind::kTFinal;
    t.overlaps = {field};
  } else if (parse_indexed(field, "controls", false, t.begin, t.end, rest) &&
             (rest == "value" || rest == "amplitude" || rest == "omega" || rest == "phase")) {
    t.kind = Target::Kind::kControl;
    t.name = rest;
    if (t.begin >= spec.controls.size()) {
      throw SpecError(where, "the spec has " + std::to_string(spec.controls.size()) +
                                 " controls, no controls[" + std::to_string(t.begin) + "]");
    }
    t.overlaps = {field};
  } else if (field == "initial_conditions.energy_shell.energy" ||
             field == "initial_conditions.energy_shell.q_std") {
    if (!std::holds_alternative<EnergyShellGenerator>(spec.initial_conditions)) {
      throw SpecError(where, "the initial conditions are not an energy shell");
    }
    t.kind = field.ends_with("energy") ? Target::Kind::kShellEnergy : Target::Kind::kShellQStd;
    t.overlaps = {field};
  } else if (field == "initial_conditions.velocity_perturbation.v_std") {
    if (!std::holds_alternative<VelocityPerturbation>(spec.initial_conditions)) {
      throw SpecError(where, "the initial conditions are not a velocity perturbation");
    }
    t.kind = Target::Kind::kPerturbationVStd;
    t.overlaps = {field};
  } else {
    throw SpecError(where, std::string("not a field a sweep can set; these can: ") + kSweepable);
  }
  return t;
}

void apply(EnsembleSpec& spec, const Target& t, double value) {
  switch (t.kind) {
    case Target::Kind::kParameter:
      if (spec.custom_system) {
        for (auto& [name, v] : spec.custom_system->parameters) {
          if (name == t.name) v = value;
        }
      } else {
        spec.parameters[t.name] = value;
      }
      break;
    case Target::Kind::kChoice:
      for (std::size_t c = t.begin; c < t.end; ++c) {
        IntegratorChoice& choice = spec.integrators[c];
        if (t.name == "h") choice.h = value;
        if (t.name == "sample_every") choice.sample_every = static_cast<std::int64_t>(value);
        if (t.name == "newton_tol") choice.newton_tol = value;
        if (t.name == "newton_max_iter") choice.newton_max_iter = static_cast<int>(value);
      }
      break;
    case Target::Kind::kTFinal:
      spec.t_final = value;
      break;
    case Target::Kind::kControl: {
      ControlSpec& control = spec.controls[t.begin];
      if (t.name == "value") control.value = value;
      if (t.name == "amplitude") control.amplitude = value;
      if (t.name == "omega") control.omega = value;
      if (t.name == "phase") control.phase = value;
      break;
    }
    case Target::Kind::kShellEnergy:
      std::get<EnergyShellGenerator>(spec.initial_conditions).energy = value;
      break;
    case Target::Kind::kShellQStd:
      std::get<EnergyShellGenerator>(spec.initial_conditions).q_std = value;
      break;
    case Target::Kind::kPerturbationVStd:
      std::get<VelocityPerturbation>(spec.initial_conditions).v_std = value;
      break;
  }
}

}  // namespace

std::int64_t sweep_case_count(const EnsembleSpec& spec) {
  std::int64_t count = 1;
  for (const SweepAxis& axis : spec.sweep) {
    const auto steps = axis.fields.empty()
                           ? std::int64_t{0}
                           : static_cast<std::int64_t>(axis.fields.front().values.size());
    count = std::min(count * steps, kMaxSweepCases + 1);
  }
  return count;
}

std::vector<SweepCase> sweep_cases(const EnsembleSpec& spec) {
  struct Swept {
    Target target;
    const SweepAxis::Field* field;
  };
  std::vector<std::vector<Swept>> axes;
  std::vector<std::size_t> steps;
  std::set<std::string> set_fields;
  for (std::size_t a = 0; a < spec.sweep.size(); ++a) {
    const std::string where = "sweep[" + std::to_string(a) + "]";
    const SweepAxis& axis = spec.sweep[a];
    if (axis.fields.empty()) throw SpecError(where, "an axis sets at least one field");
    axes.emplace_back();
    for (const SweepAxis::Field& field : axis.fields) {
      const std::string field_where = where + "." + field.field;
      Swept swept{parse_target(spec, field.field, field_where), &field};
      for (const std::string& concrete : swept.target.overlaps) {
        if (!set_fields.insert(concrete).second) {
          throw SpecError(field_where, concrete + " is set by another field of the sweep");
        }
      }
      if (field.values.empty()) throw SpecError(field_where, "no values");
      if (field.values.size() != axis.fields.front().values.size()) {
        throw SpecError(field_where, std::to_string(field.values.size()) + " values, " +
                                         axis.fields.front().field + " of the same axis has " +
                                         std::to_string(axis.fields.front().values.size()));
      }
      for (std::size_t k = 0; k < field.values.size(); ++k) {
        const double v = field.values[k];
        const bool bad =
            !std::isfinite(v) || (swept.target.whole && (v != std::trunc(v) || std::abs(v) > 2e9));
        if (bad) {
          throw SpecError(field_where, "values[" + std::to_string(k) + "] is not " +
                                           (swept.target.whole ? "a whole number" : "finite"));
        }
      }
      axes.back().push_back(std::move(swept));
    }
    steps.push_back(axis.fields.front().values.size());
  }
  const std::int64_t count = sweep_case_count(spec);
  if (count > kMaxSweepCases) {
    throw SpecError("sweep", "more than " + std::to_string(kMaxSweepCases) +
                                 " cases (the product of the axes' lengths)");
  }
  if (spec.custom_system && count > kMaxCustomSweepCases) {
    throw SpecError("sweep", std::to_string(count) +
                                 " cases; a sweep of a user-defined system has "
                                 "at most " +
                                 std::to_string(kMaxCustomSweepCases) +
                                 " (each case compiles the system: split it into several jobs)");
  }
  EnsembleSpec base = spec;
  base.sweep.clear();
  std::vector<SweepCase> cases;
  cases.reserve(static_cast<std::size_t>(count));
  std::vector<std::size_t> step(axes.size(), 0);  // the grid position, the last axis fastest
  for (std::int64_t k = 0; k < count; ++k) {
    SweepCase c{{}, base};
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (const Swept& swept : axes[a]) {
        const double value = swept.field->values[step[a]];
        apply(c.spec, swept.target, value);
        c.values.push_back({swept.field->field, value});
      }
    }
    cases.push_back(std::move(c));
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++step[a] < steps[a]) break;
      step[a] = 0;
    }
  }
  return cases;
}

}  // namespace nhsim
