// Control inputs of controlled systems ([Kobilarov2010] §4.2: forces f(q, u) = B(q) u - grad V(q)).
//
// A control is data (ControlSpec in nhsim/spec_types.hpp), from a closed set: constant, sine,
// cosine, piecewise-linear table. validate_controls() checks a list against a system's number
// of inputs and throws SpecError naming the field ("controls[0].omega"); ControlSignal
// evaluates a validated spec without allocating.
//
// A controlled system declares
//   static constexpr bool kHasControls = true;
//   static constexpr int NU;                                  // number of inputs
//   void set_controls(const std::vector<ControlSpec>&);       // validates, throws SpecError
//   template <class VQ, class Out> void applied_force(const VQ& q, double t, Out& f) const;
//                                                             // f = B(q) u(t) - grad V(q)
// Integrators that integrate forced systems declare `static constexpr bool kTakesControls =
// true` and use applied_force() below; the registry refuses every other integrator on a
// controlled system (it would silently drop the control forces).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "nhsim/dmath.hpp"
#include "nhsim/spec_types.hpp"

namespace nhsim {

/// True when S declares kHasControls = true.
template <class S>
inline constexpr bool has_controls = requires {
  requires S::kHasControls;
};

/// True when integrator descriptor I declares kTakesControls = true.
template <class I>
inline constexpr bool takes_controls = requires {
  requires I::kTakesControls;
};

/// True when S declares kHasLoads = true: external loads from EnsembleSpec::loads ([Gebhardt2020]
/// eq. (84)), bound by `void set_loads(const std::vector<LoadSpec>&)` and applied through
/// `applied_force(q, t, f)` like controls.
template <class S>
inline constexpr bool has_loads = requires {
  requires S::kHasLoads;
};

/// True when integrator descriptor I takes time-dependent loads: it declares kTakesLoads = true,
/// or kTakesControls = true (both arrive through applied_force() below).
template <class I>
inline constexpr bool takes_loads = takes_controls<I> || requires {
  requires I::kTakesLoads;
};

/// Integrator I applies to system S: its own requirement, and it takes control forces when S
/// has controls and loads when S has loads.
template <class I, class S>
inline constexpr bool integrator_applies = I::template kApplies<S> &&
                                           (!has_controls<S> ||
                                            takes_controls<I>)&&(!has_loads<S> || takes_loads<I>);

/// Checks one ControlSpec; `f` is its field path ("controls[0]", "loads[1].profile"). Throws
/// SpecError("<f>.<field>", ...) for a missing kind, a non-finite number, a field the kind does
/// not use, or a bad table.
inline void validate_control(const ControlSpec& c, const std::string& f);

/// Checks `controls` for a system with `n_inputs` inputs. Empty is always valid (all zero).
/// Throws SpecError("controls", ...) for a count mismatch and SpecError("controls[i].<field>",
/// ...) for a missing kind, a non-finite number, a field the kind does not use, or a bad table.
inline void validate_controls(const std::vector<ControlSpec>& controls, int n_inputs,
                              const std::string& system) {
  if (controls.empty()) return;
  if (n_inputs == 0) {
    throw SpecError("controls", "system '" + system + "' has no control inputs");
  }
  if (static_cast<int>(controls.size()) != n_inputs) {
    throw SpecError("controls", "system '" + system + "' has " + std::to_string(n_inputs) +
                                    " control inputs, got " + std::to_string(controls.size()));
  }
  for (std::size_t i = 0; i < controls.size(); ++i) {
    validate_control(controls[i], "controls[" + std::to_string(i) + "]");
  }
}

inline void validate_control(const ControlSpec& c, const std::string& f) {
  using K = ControlSpec::Kind;
  auto finite = [&](double v, const char* name) {
    if (!std::isfinite(v)) throw SpecError(f + "." + name, "must be finite");
  };
  auto unused = [&](double v, const char* name, const char* kind) {
    if (v != 0.0) throw SpecError(f + "." + name, std::string("not used by kind ") + kind);
  };
  finite(c.value, "value");
  finite(c.amplitude, "amplitude");
  finite(c.omega, "omega");
  finite(c.phase, "phase");
  const bool harmonic = c.kind == K::kSine || c.kind == K::kCosine;
  if (c.kind == K::kUnspecified) {
    throw SpecError(f + ".kind", "must be one of constant, sine, cosine, table");
  }
  if (c.kind != K::kTable) {
    if (!c.times.empty()) throw SpecError(f + ".times", "only used by kind table");
    if (!c.values.empty()) throw SpecError(f + ".values", "only used by kind table");
  }
  if (c.kind == K::kConstant) {
    unused(c.amplitude, "amplitude", "constant");
    unused(c.omega, "omega", "constant");
    unused(c.phase, "phase", "constant");
  } else if (harmonic) {
    unused(c.value, "value", "sine/cosine");
  } else {  // table
    unused(c.value, "value", "table");
    unused(c.amplitude, "amplitude", "table");
    unused(c.omega, "omega", "table");
    unused(c.phase, "phase", "table");
    if (c.times.empty()) throw SpecError(f + ".times", "a table needs at least one point");
    if (c.values.size() != c.times.size()) {
      throw SpecError(f + ".values", "has " + std::to_string(c.values.size()) +
                                         " entries, times has " + std::to_string(c.times.size()));
    }
    for (std::size_t j = 0; j < c.times.size(); ++j) {
      const std::string tj = f + ".times[" + std::to_string(j) + "]";
      if (!std::isfinite(c.times[j])) throw SpecError(tj, "must be finite");
      if (j > 0 && !(c.times[j] > c.times[j - 1])) {
        throw SpecError(tj, "times must be strictly increasing");
      }
      if (!std::isfinite(c.values[j])) {
        throw SpecError(f + ".values[" + std::to_string(j) + "]", "must be finite");
      }
    }
  }
}

/// Checks `loads` for a system (`has_loads`: it declares loads). Empty is always valid.
/// Throws SpecError("loads", ...) when the system has no loads, SpecError("loads[i].direction",
/// ...) unless direction has 3 finite entries, and validate_control()'s errors under
/// "loads[i].profile".
inline void validate_loads(const std::vector<LoadSpec>& loads, bool system_has_loads,
                           const std::string& system) {
  if (loads.empty()) return;
  if (!system_has_loads) throw SpecError("loads", "system '" + system + "' takes no loads");
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const std::string f = "loads[" + std::to_string(i) + "]";
    const auto& d = loads[i].direction;
    if (d.size() != 3) {
      throw SpecError(f + ".direction",
                      "needs 3 material components, got " + std::to_string(d.size()));
    }
    for (double x : d) {
      if (!std::isfinite(x)) throw SpecError(f + ".direction", "must be finite");
    }
    validate_control(loads[i].profile, f + ".profile");
  }
}

/// u(t) of one validated ControlSpec. Default-constructed: u = 0. Evaluation allocates nothing.
class ControlSignal {
 public:
  ControlSignal() = default;
  explicit ControlSignal(const ControlSpec& c) : spec_(c) {}

  /// u(t) (see ControlSpec for the kinds).
  double operator()(double t) const {
    using K = ControlSpec::Kind;
    switch (spec_.kind) {
      case K::kUnspecified:
        return 0.0;
      case K::kConstant:
        return spec_.value;
      case K::kSine:
        return spec_.amplitude * dmath::sin(spec_.omega * t + spec_.phase);
      case K::kCosine:
        return spec_.amplitude * dmath::cos(spec_.omega * t + spec_.phase);
      case K::kTable: {
        const auto& ts = spec_.times;
        const auto& vs = spec_.values;
        if (t <= ts.front()) return vs.front();
        if (t >= ts.back()) return vs.back();
        std::size_t lo = 0, hi = ts.size() - 1;  // ts[lo] < t < ts[hi]
        while (hi - lo > 1) {
          const std::size_t mid = (lo + hi) / 2;
          (ts[mid] <= t ? lo : hi) = mid;
        }
        const double w = (t - ts[lo]) / (ts[hi] - ts[lo]);
        return (1.0 - w) * vs[lo] + w * vs[hi];
      }
    }
    return 0.0;
  }

 private:
  ControlSpec spec_;
};

/// The applied generalised force f(q, t) = B(q) u(t) - grad V(q) of S (length nq): the
/// system's applied_force for controlled or loaded systems, -grad V otherwise.
template <class S, class VQ, class Out>
inline void applied_force(const S& sys, const VQ& q, double t, Out& f) {
  if constexpr (has_controls<S> || has_loads<S>) {
    sys.applied_force(q, t, f);
  } else {
    (void)t;
    sys.grad_potential(q, f);
    f = -f;
  }
}

}  // namespace nhsim
