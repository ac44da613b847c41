// Wire → core conversion (docs/design.md: conversion lives in one file per direction).
#include "nhsim/wire/from_proto.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "nhsim/wire/to_proto.hpp"  // kPartialResultFormat

namespace nhsim::wire {
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

std::vector<std::vector<std::string>> from_proto(
    const google::protobuf::RepeatedPtrField<v1::ExpressionRow>& rows) {
  std::vector<std::vector<std::string>> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (const auto& row : rows) out.emplace_back(row.entries().begin(), row.entries().end());
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

/// Runs `convert`, prefixing what a std::invalid_argument says with `field`.
template <typename Convert>
auto at_field(const std::string& field, Convert&& convert) {
  try {
    return convert();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(field + ": " + e.what());
  }
}

ExactSum from_proto(const v1::ExactSum& sum) {
  if (sum.shift() < 0) throw std::invalid_argument("negative shift");
  std::vector<std::uint32_t> digits(static_cast<std::size_t>(sum.shift()), 0u);
  if (digits.size() + static_cast<std::size_t>(sum.digits_size()) > ExactSum::kLimbs + 1) {
    throw std::invalid_argument("more digits than the accumulator has");
  }
  digits.insert(digits.end(), sum.digits().begin(), sum.digits().end());
  return ExactSum::from_magnitude(digits, sum.negative(), sum.non_finite_flags());
}

QuantileSketch::Store from_proto(const v1::BucketStore& store) {
  QuantileSketch::Store out;
  out.offset = store.offset();
  out.counts.assign(store.counts().begin(), store.counts().end());
  out.highest = store.highest();
  return out;
}

QuantileSketch from_proto(const v1::QuantileSketch& sketch) {
  return QuantileSketch::from_state(
      sketch.n(), {sketch.exact_values().begin(), sketch.exact_values().end()}, sketch.bucketed(),
      from_proto(sketch.positive()), from_proto(sketch.negative()), sketch.zeros(),
      sketch.non_finite(), sketch.min(), sketch.max());
}

CellStats from_proto(const v1::CellStats& cell, const std::string& field) {
  CellStats out;
  out.n = cell.n();
  out.sum = at_field(field + ".sum", [&] { return from_proto(cell.sum()); });
  out.sum_sq = at_field(field + ".sum_sq", [&] { return from_proto(cell.sum_sq()); });
  out.min = cell.min();
  out.max = cell.max();
  out.sketch = at_field(field + ".sketch", [&] { return from_proto(cell.sketch()); });
  out.sum_cube = at_field(field + ".sum_cube", [&] { return from_proto(cell.sum_cube()); });
  out.sum_fourth = at_field(field + ".sum_fourth", [&] { return from_proto(cell.sum_fourth()); });
  if (out.sketch.count() != out.n) {
    throw std::invalid_argument(field + ": sketch count " + std::to_string(out.sketch.count()) +
                                " is not n = " + std::to_string(out.n));
  }
  return out;
}

MomentSums from_proto(const v1::MomentSums& cell, const std::string& field) {
  if (cell.n() < 0) throw std::invalid_argument(field + ".n: negative count");
  MomentSums out;
  out.n = cell.n();
  out.sum = at_field(field + ".sum", [&] { return from_proto(cell.sum()); });
  out.sum_sq = at_field(field + ".sum_sq", [&] { return from_proto(cell.sum_sq()); });
  return out;
}

TrajectorySelection from_proto(const v1::TrajectorySelection& selection) {
  return {selection.all(), {selection.indices().begin(), selection.indices().end()}};
}

OutputSpec from_proto(const v1::Outputs& outputs) {
  OutputSpec out;
  out.initial_states = from_proto(outputs.initial_states());
  out.final_states = from_proto(outputs.final_states());
  out.sampled = from_proto(outputs.sampled());
  out.sampled_state = outputs.sampled_state();
  out.summary = outputs.summary();
  for (const auto& h : outputs.histograms()) {
    out.histograms.push_back({h.observable(),
                              {h.times().begin(), h.times().end()},
                              {h.edges().begin(), h.edges().end()}});
  }
  return out;
}

TrajectoryState from_proto(const v1::TrajectoryState& state) {
  return {state.trajectory(), from_proto(state.state())};
}

SampledTrajectory from_proto(const v1::SampledTrajectory& sampled) {
  return {sampled.trajectory(),
          sampled.samples(),
          {sampled.values().begin(), sampled.values().end()},
          {sampled.q().begin(), sampled.q().end()},
          {sampled.p().begin(), sampled.p().end()}};
}

TrajectorySummary from_proto(const v1::TrajectorySummary& summary, const std::string& field) {
  TrajectorySummary out;
  out.trajectory = summary.trajectory();
  switch (summary.status()) {
    case v1::TRAJECTORY_OK:
      out.status = TrajectorySummary::Status::kOk;
      break;
    case v1::TRAJECTORY_FAILED:
      out.status = TrajectorySummary::Status::kFailed;
      break;
    case v1::TRAJECTORY_CANCELLED:
      out.status = TrajectorySummary::Status::kCancelled;
      break;
    default:
      throw std::invalid_argument(field + ": unknown trajectory status " +
                                  std::to_string(summary.status()));
  }
  out.final_time = summary.final_time();
  out.max_abs_energy_error = summary.max_abs_energy_error();
  out.max_constraint_residual = summary.max_constraint_residual();
  out.reason = summary.reason();
  return out;
}

/// The records of a repeated field, which must be in strictly increasing trajectory order.
template <typename Record, typename Repeated, typename Convert>
std::vector<Record> in_trajectory_order(const Repeated& from, const std::string& field,
                                        Convert&& convert) {
  std::vector<Record> out;
  out.reserve(static_cast<std::size_t>(from.size()));
  for (int k = 0; k < from.size(); ++k) {
    out.push_back(convert(from.Get(k), field + "[" + std::to_string(k) + "]"));
    if (k > 0 && out[out.size() - 2].trajectory >= out.back().trajectory) {
      throw std::invalid_argument(field + "[" + std::to_string(k) +
                                  "]: not in increasing trajectory order");
    }
  }
  return out;
}

ChoicePartial from_proto(const v1::ChoicePartial& choice, const std::string& field) {
  ChoicePartial out;
  out.cells.reserve(static_cast<std::size_t>(choice.cells_size()));
  for (int k = 0; k < choice.cells_size(); ++k) {
    out.cells.push_back(from_proto(choice.cells(k), field + ".cells[" + std::to_string(k) + "]"));
  }
  for (const auto& failure : choice.failures()) {
    out.failures.push_back(
        {failure.trajectory(), failure.integrator(), failure.time(), failure.reason()});
  }
  out.ok = choice.ok();
  out.failed = choice.failed();
  out.cancelled = choice.cancelled();
  out.steps = choice.steps();
  out.wall_seconds = choice.wall_seconds();
  const auto plain = [](const auto& m, const std::string&) { return from_proto(m); };
  out.initial_states = in_trajectory_order<TrajectoryState>(choice.initial_states(),
                                                            field + ".initial_states", plain);
  out.final_states =
      in_trajectory_order<TrajectoryState>(choice.final_states(), field + ".final_states", plain);
  out.sampled = in_trajectory_order<SampledTrajectory>(choice.sampled(), field + ".sampled", plain);
  out.summary = in_trajectory_order<TrajectorySummary>(
      choice.summary(), field + ".summary",
      [](const v1::TrajectorySummary& m, const std::string& f) { return from_proto(m, f); });
  out.histogram_counts.assign(choice.histogram_counts().begin(), choice.histogram_counts().end());
  out.batch_cells.reserve(static_cast<std::size_t>(choice.batch_cells_size()));
  for (int k = 0; k < choice.batch_cells_size(); ++k) {
    out.batch_cells.push_back(
        from_proto(choice.batch_cells(k), field + ".batch_cells[" + std::to_string(k) + "]"));
  }
  // Every failure listed, or at least the first kMaxListedFailures (a partial written before
  // the cap lists more: the first are kept).
  const auto listed = out.failures.size();
  if (out.ok < 0 || out.failed < 0 || out.cancelled < 0 || out.steps < 0 ||
      listed > static_cast<std::size_t>(out.failed) ||
      (listed < static_cast<std::size_t>(out.failed) && listed < kMaxListedFailures)) {
    throw std::invalid_argument(field + ": counts do not add up");
  }
  if (listed > kMaxListedFailures) {
    out.failures.erase(out.failures.begin() + static_cast<std::ptrdiff_t>(kMaxListedFailures),
                       out.failures.end());
  }
  return out;
}

UntilSpec from_proto(const v1::Until& until) {
  UntilSpec out;
  for (int i = 0; i < until.targets_size(); ++i) {
    const v1::PrecisionTarget& t = until.targets(i);
    PrecisionTarget target;
    target.integrator = t.integrator();
    if (!t.observable().empty()) target.observable = t.observable();
    using Statistic = PrecisionTarget::Statistic;
    if (t.statistic() == "growth_b") {
      target.statistic = Statistic::kGrowthDrift;
    } else if (t.statistic() == "final_variance") {
      target.statistic = Statistic::kFinalVariance;
    } else if (t.statistic() == "final_mean") {
      target.statistic = Statistic::kFinalMean;
    } else if (!t.statistic().empty()) {
      throw SpecError("until.targets[" + std::to_string(i) + "].statistic",
                      "unknown statistic '" + t.statistic().substr(0, 64) +
                          "'; known: growth_b, final_variance, final_mean");
    }
    target.relative_stderr = t.relative_stderr();
    out.targets.push_back(std::move(target));
  }
  return out;
}

}  // namespace

CustomSystemSpec from_proto(const v1::CustomSystem& system) {
  CustomSystemSpec out;
  out.coordinates.assign(system.coordinates().begin(), system.coordinates().end());
  for (const auto& p : system.parameters()) out.parameters.emplace_back(p.name(), p.value());
  out.mass_matrix = from_proto(system.mass_matrix());
  out.potential = system.potential();
  out.lagrangian = system.lagrangian();
  out.constraints = from_proto(system.constraints());
  out.holonomic_constraints.assign(system.holonomic_constraints().begin(),
                                   system.holonomic_constraints().end());
  out.control_forces = from_proto(system.control_forces());
  for (const auto& i : system.invariants()) out.invariants.emplace_back(i.name(), i.expression());
  out.name = system.name();
  return out;
}

PartialResult from_proto(const v1::PartialResult& partial) {
  if (partial.format_version() != kPartialResultFormat) {
    throw std::invalid_argument(
        "partial result format_version " + std::to_string(partial.format_version()) + " is not " +
        std::to_string(kPartialResultFormat) + " (written by another nhsim version?)");
  }
  PartialResult out;
  out.spec_hash = partial.spec_sha256();
  out.n_trajectories = partial.n_trajectories();
  std::int64_t covered_to = 0;
  for (int k = 0; k < partial.ranges_size(); ++k) {
    const auto& r = partial.ranges(k);
    if (r.begin() < covered_to || r.end() <= r.begin() || r.end() > out.n_trajectories) {
      throw std::invalid_argument("partial result ranges[" + std::to_string(k) +
                                  "]: not sorted, disjoint, non-empty ranges within [0, " +
                                  std::to_string(out.n_trajectories) + ")");
    }
    out.ranges.push_back({r.begin(), r.end()});
    covered_to = r.end();
  }
  out.choices.reserve(static_cast<std::size_t>(partial.choices_size()));
  for (int c = 0; c < partial.choices_size(); ++c) {
    out.choices.push_back(
        from_proto(partial.choices(c), "partial result choices[" + std::to_string(c) + "]"));
  }
  return out;
}

/// One axis of a sweep: a Struct whose every value is a list of numbers; the fields in name
/// order (a Struct's keys have none).
SweepAxis from_proto(const google::protobuf::Struct& axis, const std::string& where) {
  SweepAxis out;
  std::vector<std::string> names;
  for (const auto& [name, value] : axis.fields()) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const google::protobuf::Value& value = axis.fields().at(name);
    const std::string field_where = where + "." + name.substr(0, 128);
    if (!value.has_list_value()) throw SpecError(field_where, "not a list of numbers");
    SweepAxis::Field field{name, {}};
    for (const google::protobuf::Value& v : value.list_value().values()) {
      if (!v.has_number_value()) throw SpecError(field_where, "not a list of numbers");
      field.values.push_back(v.number_value());
    }
    out.fields.push_back(std::move(field));
  }
  return out;
}

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
  spec.outputs = from_proto(request.outputs());
  if (request.has_custom_system()) spec.custom_system = from_proto(request.custom_system());
  spec.until = from_proto(request.until());
  if (request.failure_policy() == "fail_choice") {
    spec.failure_policy = EnsembleSpec::FailurePolicy::kFailChoice;
  } else if (!request.failure_policy().empty() && request.failure_policy() != "exclude") {
    throw SpecError("failure_policy", "unknown policy '" + request.failure_policy().substr(0, 64) +
                                          "'; known: exclude, fail_choice");
  }
  for (int a = 0; a < request.sweep_size(); ++a) {
    spec.sweep.push_back(from_proto(request.sweep(a), "sweep[" + std::to_string(a) + "]"));
  }
  return spec;
}

}  // namespace nhsim::wire
