// Human-readable views of results, jobs and the catalogue, and the CSV export of results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::client {

/// One row of the summary table: one integrator choice of a result. The statistics come from
/// the observables energy_error (H(t) - H(0)) and constraint_residual, over the sample times
/// with count > 0; std::nullopt where the observable (or any such sample) is missing, and for
/// an integrator without successful trajectories.
struct SummaryRow {
  std::string integrator;
  double h = 0.0;
  std::int64_t trajectories_ok = 0;
  std::int64_t trajectories_failed = 0;
  std::int64_t trajectories_cancelled = 0;
  double steps_per_second = 0.0;
  /// max over samples of max(|min|, |max|) of energy_error: max |H(t) - H(0)|.
  std::optional<double> max_abs_energy_error;
  /// variance of energy_error at the last sample time (nullopt when its count is 0).
  std::optional<double> final_energy_error_variance;
  /// The drift b of the energy error's variance growth Var = a + b t, divided by h^4 (seed
  /// 001's constant), and its jackknife standard error; nullopt where the fit is undefined.
  std::optional<double> growth_b_over_h4;
  std::optional<double> growth_b_over_h4_stderr;
  /// Why b is not well determined (kMaxGrowthRelativeError); empty when it is. The table marks
  /// b with "?" and prints this under it.
  std::string growth_caveat;
  /// max over samples of the max of constraint_residual.
  std::optional<double> max_constraint_residual;
};

/// b is reported as determined only with a relative standard error of at most this.
inline constexpr double kMaxGrowthRelativeError = 0.25;

/// The summary rows of `result`, one per integrator choice, in the result's order.
std::vector<SummaryRow> summarize(const nhsim::v1::EnsembleResult& result);

/// The summary table (header, one line per row, "-" for missing values), then notes: the growth
/// model's fit range and batches, a caveat per row whose b is not determined, a warning per
/// row with failed trajectories (the statistics are then conditional on success), and a line
/// on cancelled trajectories when the result was cancelled.
std::string summary_table(const nhsim::v1::EnsembleResult& result);

/// CSV with header "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95,
/// mean_stderr,variance_stderr,q05_lower,q05_upper,q50_lower,q50_upper,q95_lower,q95_upper":
/// one row per (integrator choice, observable, sample time); doubles with 17 significant
/// digits. A column from q05 on is empty where the series lacks it (results written before
/// it existed).
std::string to_csv(const nhsim::v1::EnsembleResult& result);

/// One row of the convergence table (an order plot as numbers): one integrator choice of a
/// one-trajectory result whose observables include state components ("q[i]", "p[i]").
struct ConvergenceRow {
  std::string integrator;
  double h = 0.0;
  bool reference = false;  ///< this choice is the reference solution
  /// max over the state observables of |value(t_end) - reference value(t_end)|, the global
  /// error at the last sample time (max-norm over the requested components); nullopt for the
  /// reference itself and for a choice whose trajectory failed.
  std::optional<double> error;
  /// Observed order log(e_prev / e) / log(h_prev / h) against the previous row of the same
  /// integrator (rows in result order); nullopt for the first row of an integrator.
  std::optional<double> order;
};

/// The convergence rows of `result`. The reference is the choice with the smallest h among
/// those of integrator `reference` (or among all choices when `reference` is empty). Throws
/// std::invalid_argument when the result has not exactly one trajectory, has no state
/// observables, the choices' last sample times differ, or `reference` names no choice.
std::vector<ConvergenceRow> convergence(const nhsim::v1::EnsembleResult& result,
                                        const std::string& reference);

/// The convergence table: "integrator h error order", "ref" in the error column of the
/// reference, "-" where undefined. Throws like convergence().
std::string convergence_table(const nhsim::v1::EnsembleResult& result,
                              const std::string& reference);

/// The systems with their parameters (unit, default, bounds), invariants and integrators.
std::string systems_table(const nhsim::v1::ListSystemsResponse& systems);

/// The integrators with order, properties, requirements and Newton defaults.
std::string integrators_table(const nhsim::v1::ListIntegratorsResponse& integrators);

/// One line: "job <id> <STATE> <done>/<total> trajectories[: error]".
std::string job_line(const nhsim::v1::Job& job);

}  // namespace nhsim::client
