// Core → wire conversion (docs/design.md: conversion lives in one file per direction).
#include "nhsim/wire/to_proto.hpp"

#include "nhsim/wire/fingerprint.hpp"

namespace nhsim::wire {
namespace {

template <typename T, typename Repeated>
void copy_into(const std::vector<T>& from, Repeated* to) {
  to->Reserve(static_cast<int>(from.size()));
  to->Add(from.begin(), from.end());
}

void fill(const SeriesStats& stats, v1::SeriesStats* out) {
  out->set_observable(stats.observable);
  copy_into(stats.count, out->mutable_count());
  copy_into(stats.mean, out->mutable_mean());
  copy_into(stats.variance, out->mutable_variance());
  copy_into(stats.min, out->mutable_min());
  copy_into(stats.max, out->mutable_max());
  copy_into(stats.q05, out->mutable_q05());
  copy_into(stats.q50, out->mutable_q50());
  copy_into(stats.q95, out->mutable_q95());
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // still served to old clients
  out->set_variance_slope(stats.variance_slope);
  out->set_variance_slope_over_h4(stats.variance_slope_over_h4);
  out->set_variance_slope_stderr(stats.variance_slope_stderr);
  out->set_variance_fit_samples(stats.variance_fit_samples);
  out->set_variance_fit_t_min(stats.variance_fit_t_min);
  out->set_variance_fit_t_max(stats.variance_fit_t_max);
#pragma GCC diagnostic pop
  copy_into(stats.mean_stderr, out->mutable_mean_stderr());
  copy_into(stats.variance_stderr, out->mutable_variance_stderr());
  copy_into(stats.variance_lower, out->mutable_variance_lower());
  copy_into(stats.variance_upper, out->mutable_variance_upper());
  copy_into(stats.q05_lower, out->mutable_q05_lower());
  copy_into(stats.q05_upper, out->mutable_q05_upper());
  copy_into(stats.q50_lower, out->mutable_q50_lower());
  copy_into(stats.q50_upper, out->mutable_q50_upper());
  copy_into(stats.q95_lower, out->mutable_q95_lower());
  copy_into(stats.q95_upper, out->mutable_q95_upper());
  const VarianceGrowth& g = stats.variance_growth;
  v1::VarianceGrowth* growth = out->mutable_variance_growth();
  growth->set_a(g.a);
  growth->set_a_stderr(g.a_stderr);
  growth->set_b(g.b);
  growth->set_b_stderr(g.b_stderr);
  growth->set_exponent(g.exponent);
  growth->set_exponent_stderr(g.exponent_stderr);
  growth->set_samples(g.samples);
  growth->set_t_min(g.t_min);
  growth->set_t_max(g.t_max);
  growth->set_batches(g.batches);
  growth->set_a_lower(g.a_lower);
  growth->set_a_upper(g.a_upper);
  growth->set_b_lower(g.b_lower);
  growth->set_b_upper(g.b_upper);
  growth->set_exponent_lower(g.exponent_lower);
  growth->set_exponent_upper(g.exponent_upper);
}

void fill(const TrajectoryFailure& failure, v1::TrajectoryFailure* out) {
  out->set_trajectory(failure.trajectory);
  out->set_integrator(failure.integrator);
  out->set_time(failure.time);
  out->set_reason(failure.reason);
}

void fill(const TrajectoryState& state, v1::TrajectoryState* out) {
  out->set_trajectory(state.trajectory);
  copy_into(state.state.q, out->mutable_state()->mutable_q());
  copy_into(state.state.p, out->mutable_state()->mutable_p());
}

void fill(const SampledTrajectory& sampled, v1::SampledTrajectory* out) {
  out->set_trajectory(sampled.trajectory);
  out->set_samples(sampled.samples);
  copy_into(sampled.values, out->mutable_values());
  copy_into(sampled.q, out->mutable_q());
  copy_into(sampled.p, out->mutable_p());
}

void fill(const TrajectorySummary& summary, v1::TrajectorySummary* out) {
  out->set_trajectory(summary.trajectory);
  switch (summary.status) {
    case TrajectorySummary::Status::kOk:
      out->set_status(v1::TRAJECTORY_OK);
      break;
    case TrajectorySummary::Status::kFailed:
      out->set_status(v1::TRAJECTORY_FAILED);
      break;
    case TrajectorySummary::Status::kCancelled:
      out->set_status(v1::TRAJECTORY_CANCELLED);
      break;
  }
  out->set_final_time(summary.final_time);
  out->set_max_abs_energy_error(summary.max_abs_energy_error);
  out->set_max_constraint_residual(summary.max_constraint_residual);
  out->set_reason(summary.reason);
}

void fill(const HistogramResult& histogram, v1::HistogramResult* out) {
  out->set_observable(histogram.observable);
  copy_into(histogram.edges, out->mutable_edges());
  for (const HistogramCounts& at : histogram.at) {
    v1::HistogramCounts* c = out->add_at();
    c->set_time(at.time);
    copy_into(at.counts, c->mutable_counts());
    c->set_below(at.below);
    c->set_above(at.above);
    c->set_non_finite(at.non_finite);
  }
}

/// Records in trajectory order into a repeated message field.
template <typename T, typename Repeated>
void fill_all(const std::vector<T>& from, Repeated* to) {
  to->Reserve(static_cast<int>(from.size()));
  for (const T& record : from) fill(record, to->Add());
}

void fill(const IntegratorResult& result, v1::IntegratorResult* out) {
  *out->mutable_choice() = to_proto(result.choice);
  out->set_n_steps(result.n_steps);
  copy_into(result.sample_times, out->mutable_sample_times());
  out->mutable_observables()->Reserve(static_cast<int>(result.observables.size()));
  for (const auto& stats : result.observables) fill(stats, out->add_observables());
  out->set_trajectories_ok(result.trajectories_ok);
  out->set_trajectories_failed(result.trajectories_failed);
  out->set_trajectories_cancelled(result.trajectories_cancelled);
  out->mutable_failures()->Reserve(static_cast<int>(result.failures.size()));
  for (const auto& failure : result.failures) fill(failure, out->add_failures());
  out->set_steps_completed(result.steps_completed);
  out->set_wall_seconds(result.wall_seconds);
  out->set_steps_per_second(result.steps_per_second);
  fill_all(result.outputs.final_states, out->mutable_final_states());
  fill_all(result.outputs.sampled, out->mutable_sampled());
  fill_all(result.outputs.summary, out->mutable_summary());
  fill_all(result.outputs.histograms, out->mutable_histograms());
  out->set_failed_as_whole(result.failed_as_whole);
}

void fill(const ExactSum& sum, v1::ExactSum* out) {
  std::vector<std::uint32_t> digits;
  bool negative = false;
  sum.magnitude(digits, negative);
  std::size_t shift = 0;
  while (shift < digits.size() && digits[shift] == 0) ++shift;
  out->set_negative(negative);
  out->set_shift(static_cast<std::int32_t>(shift));
  out->mutable_digits()->Add(digits.begin() + static_cast<std::ptrdiff_t>(shift), digits.end());
  out->set_non_finite_flags(sum.non_finite_flags());
}

void fill(const QuantileSketch::Store& store, v1::BucketStore* out) {
  out->set_offset(store.offset);
  copy_into(store.counts, out->mutable_counts());
  out->set_highest(store.highest);
}

void fill(const QuantileSketch& sketch, v1::QuantileSketch* out) {
  out->set_n(sketch.count());
  copy_into(sketch.exact_values(), out->mutable_exact_values());
  out->set_bucketed(sketch.bucketed());
  fill(sketch.positive(), out->mutable_positive());
  fill(sketch.negative(), out->mutable_negative());
  out->set_zeros(sketch.zeros());
  out->set_non_finite(sketch.non_finite());
  out->set_min(sketch.min());
  out->set_max(sketch.max());
}

void fill(const CellStats& cell, v1::CellStats* out) {
  out->set_n(cell.n);
  fill(cell.sum, out->mutable_sum());
  fill(cell.sum_sq, out->mutable_sum_sq());
  out->set_min(cell.min);
  out->set_max(cell.max);
  fill(cell.sketch, out->mutable_sketch());
  fill(cell.sum_cube, out->mutable_sum_cube());
  fill(cell.sum_fourth, out->mutable_sum_fourth());
}

void fill(const MomentSums& cell, v1::MomentSums* out) {
  out->set_n(cell.n);
  fill(cell.sum, out->mutable_sum());
  fill(cell.sum_sq, out->mutable_sum_sq());
}

void fill(const ChoicePartial& choice, v1::ChoicePartial* out) {
  out->mutable_cells()->Reserve(static_cast<int>(choice.cells.size()));
  for (const auto& cell : choice.cells) fill(cell, out->add_cells());
  for (const auto& failure : choice.failures) fill(failure, out->add_failures());
  out->set_ok(choice.ok);
  out->set_failed(choice.failed);
  out->set_cancelled(choice.cancelled);
  out->set_steps(choice.steps);
  out->set_wall_seconds(choice.wall_seconds);
  fill_all(choice.initial_states, out->mutable_initial_states());
  fill_all(choice.final_states, out->mutable_final_states());
  fill_all(choice.sampled, out->mutable_sampled());
  fill_all(choice.summary, out->mutable_summary());
  copy_into(choice.histogram_counts, out->mutable_histogram_counts());
  out->mutable_batch_cells()->Reserve(static_cast<int>(choice.batch_cells.size()));
  for (const auto& cell : choice.batch_cells) fill(cell, out->add_batch_cells());
}

}  // namespace

v1::PartialResult to_proto(const PartialResult& partial, const v1::SubmitEnsembleRequest& spec) {
  v1::PartialResult out;
  out.set_format_version(kPartialResultFormat);
  out.set_spec_sha256(partial.spec_hash);
  out.set_fingerprint(bits_fingerprint());
  *out.mutable_spec() = spec;
  out.set_n_trajectories(partial.n_trajectories);
  for (const auto& range : partial.ranges) {
    auto* r = out.add_ranges();
    r->set_begin(range.begin);
    r->set_end(range.end);
  }
  for (const auto& choice : partial.choices) fill(choice, out.add_choices());
  return out;
}

v1::IntegratorChoice to_proto(const IntegratorChoice& choice) {
  v1::IntegratorChoice out;
  out.set_integrator(choice.integrator);
  out.set_h(choice.h);
  out.set_sample_every(choice.sample_every);
  out.set_newton_tol(choice.newton_tol);
  out.set_newton_max_iter(choice.newton_max_iter);
  return out;
}

v1::EnsembleResult to_proto(const EnsembleResult& result) {
  v1::EnsembleResult out;
  out.set_system(result.system);
  out.mutable_parameters()->insert(result.parameters.begin(), result.parameters.end());
  out.set_n_trajectories(result.n_trajectories);
  out.set_cancelled(result.cancelled);
  out.set_partial(result.partial);
  out.mutable_integrators()->Reserve(static_cast<int>(result.integrators.size()));
  for (const auto& integrator : result.integrators) fill(integrator, out.add_integrators());
  fill_all(result.initial_states, out.mutable_initial_states());
  for (const VarianceRatio& r : result.variance_ratios) {
    v1::VarianceRatio* ratio = out.add_variance_ratios();
    ratio->set_numerator(r.numerator);
    ratio->set_denominator(r.denominator);
    ratio->set_observable(r.observable);
    ratio->set_ratio(r.ratio);
    ratio->set_ratio_stderr(r.ratio_stderr);
    ratio->set_ratio_lower(r.ratio_lower);
    ratio->set_ratio_upper(r.ratio_upper);
    ratio->set_batches(r.batches);
  }
  if (result.until.requested) {
    v1::UntilOutcome* until = out.mutable_until();
    until->set_reached(result.until.reached);
    until->set_trajectories_used(result.until.trajectories_used);
    until->set_trajectories_cap(result.until.trajectories_cap);
    until->set_trajectories_planned(result.until.trajectories_planned);
    copy_into(result.until.relative_stderr, until->mutable_relative_stderr());
  }
  for (const SweepCaseResult& c : result.cases) {
    v1::SweepCase* sweep_case = out.add_cases();
    for (const SweepValue& v : c.values) {
      v1::SweepValue* value = sweep_case->add_values();
      value->set_field(v.field);
      value->set_value(v.value);
    }
    *sweep_case->mutable_result() = to_proto(c.result);
  }
  return out;
}

v1::SystemInfo to_proto(const SystemInfo& system) {
  v1::SystemInfo out;
  out.set_name(system.name);
  out.set_description(system.description);
  out.set_source(system.source);
  for (const auto& parameter : system.parameters) {
    auto* p = out.add_parameters();
    p->set_name(parameter.name);
    p->set_default_value(parameter.default_value);
    p->set_unit(parameter.unit);
    p->set_description(parameter.description);
    p->set_integer(parameter.integer);
    p->set_min_value(parameter.min_value);
    p->set_max_value(parameter.max_value);
  }
  copy_into(system.invariants, out.mutable_invariants());
  copy_into(system.integrators, out.mutable_integrators());
  out.mutable_newton_tol_defaults()->insert(system.newton_tol_defaults.begin(),
                                            system.newton_tol_defaults.end());
  return out;
}

v1::IntegratorInfo to_proto(const IntegratorInfo& integrator) {
  v1::IntegratorInfo out;
  out.set_name(integrator.name);
  out.set_description(integrator.description);
  out.set_source(integrator.source);
  out.set_order(integrator.order);
  out.set_implicit(integrator.implicit);
  out.set_energy_preserving(integrator.energy_preserving);
  copy_into(integrator.requires_, out.mutable_requirements());
  out.set_default_newton_tol(integrator.default_newton_tol);
  out.set_default_newton_max_iter(integrator.default_newton_max_iter);
  return out;
}

}  // namespace nhsim::wire
