// Wire → core conversion (DESIGN.md: conversion lives in one file per direction).
#include "nhsim/server/from_proto.hpp"

namespace nhsim::server {
namespace {

CanonicalState from_proto(const v1::CanonicalState& state) {
  CanonicalState out;
  out.q.assign(state.q().begin(), state.q().end());
  out.p.assign(state.p().begin(), state.p().end());
  return out;
}

EnergyShellGenerator from_proto(const v1::EnergyShell& shell) {
  EnergyShellGenerator out;  // keeps the core defaults of q_std and max_attempts when unset
  out.energy = shell.energy();
  out.seed = shell.seed();
  out.count = shell.count();
  if (shell.has_q_std()) out.q_std = shell.q_std();
  if (shell.has_max_attempts()) out.max_attempts = shell.max_attempts();
  return out;
}

IntegratorChoice from_proto(const v1::IntegratorChoice& choice) {
  IntegratorChoice out;
  out.integrator = choice.integrator();
  out.h = choice.h();
  if (choice.has_sample_every()) out.sample_every = choice.sample_every();
  out.newton_tol = choice.newton_tol();
  out.newton_max_iter = choice.newton_max_iter();
  return out;
}

ControlSpec from_proto(const v1::Control& control) {
  ControlSpec out;
  switch (control.kind()) {
    case v1::Control::CONSTANT:
      out.kind = ControlSpec::Kind::kConstant;
      break;
    case v1::Control::SINE:
      out.kind = ControlSpec::Kind::kSine;
      break;
    case v1::Control::COSINE:
      out.kind = ControlSpec::Kind::kCosine;
      break;
    case v1::Control::TABLE:
      out.kind = ControlSpec::Kind::kTable;
      break;
    default:  // unspecified or unknown: core validation names "controls[i].kind"
      out.kind = ControlSpec::Kind::kUnspecified;
      break;
  }
  out.value = control.value();
  out.amplitude = control.amplitude();
  out.omega = control.omega();
  out.phase = control.phase();
  out.times.assign(control.times().begin(), control.times().end());
  out.values.assign(control.values().begin(), control.values().end());
  return out;
}

VelocityPerturbation from_proto(const v1::VelocityPerturbation& perturbation) {
  VelocityPerturbation out;
  out.base = from_proto(perturbation.base());
  out.v_std = perturbation.v_std();
  out.seed = perturbation.seed();
  out.count = perturbation.count();
  return out;
}

/// The one source the wire message sets. The message has three fields rather than a oneof, so
/// more than one set is refused here; none set maps to an empty ExplicitStates, which the core's
/// validation refuses ("zero trajectories").
InitialConditions from_proto(const v1::InitialConditions& initial) {
  const bool has_states = initial.states_size() > 0;
  const bool has_shell = initial.has_energy_shell();
  const bool has_perturbation = initial.has_velocity_perturbation();
  if (static_cast<int>(has_states) + static_cast<int>(has_shell) +
          static_cast<int>(has_perturbation) >
      1) {
    throw SpecError("initial_conditions",
                    "give exactly one of states, energy_shell, velocity_perturbation");
  }
  if (has_shell) return from_proto(initial.energy_shell());
  if (has_perturbation) return from_proto(initial.velocity_perturbation());
  ExplicitStates out;
  out.states.reserve(static_cast<std::size_t>(initial.states_size()));
  for (const auto& state : initial.states()) out.states.push_back(from_proto(state));
  return out;
}

}  // namespace

EnsembleSpec from_proto(const v1::SubmitEnsembleRequest& request) {
  EnsembleSpec spec;
  spec.system = request.system();
  spec.parameters.insert(request.parameters().begin(), request.parameters().end());
  spec.initial_conditions = from_proto(request.initial_conditions());
  spec.integrators.reserve(static_cast<std::size_t>(request.integrators_size()));
  for (const auto& choice : request.integrators()) spec.integrators.push_back(from_proto(choice));
  spec.t_final = request.t_final();
  spec.observables.assign(request.observables().begin(), request.observables().end());
  spec.controls.reserve(static_cast<std::size_t>(request.controls_size()));
  for (const auto& control : request.controls()) spec.controls.push_back(from_proto(control));
  spec.loads.reserve(static_cast<std::size_t>(request.loads_size()));
  for (const auto& load : request.loads()) {
    LoadSpec l;
    l.direction.assign(load.direction().begin(), load.direction().end());
    l.profile = from_proto(load.profile());
    spec.loads.push_back(std::move(l));
  }
  return spec;
}

}  // namespace nhsim::server
