// Human-readable views of results, jobs and the catalogue, and the CSV export of results.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nhsim/v1/ensemble.pb.h"

namespace nhsim::client {

/// The largest value over the sample times of one constraint residual observable.
struct ResidualMax {
  std::string observable;  ///< constraint_residual, position_constraint_residual, ...
  std::optional<double> max;
};

/// One row of the summary table: one integrator choice of a result. The statistics come from
/// the accuracy observables the result tracks (energy_observable() and residual_observables()),
/// over the sample times with count > 0; std::nullopt where the observable (or any such sample)
/// is missing, and for an integrator without successful trajectories.
struct SummaryRow {
  std::string integrator;
  double h = 0.0;
  std::int64_t trajectories_ok = 0;
  std::int64_t trajectories_failed = 0;
  std::int64_t trajectories_cancelled = 0;
  double steps_per_second = 0.0;
  /// max over samples of max(|min|, |max|) of the energy observable: max |H(t) - H(0)| (or
  /// max |H(t) / H(0) - 1| for relative_energy_error).
  std::optional<double> max_abs_energy_error;
  /// variance of the energy observable at the last sample time (nullopt when its count < 2).
  std::optional<double> final_energy_error_variance;
  /// The drift b of the energy error's variance growth Var = a + b t, divided by h^4 (seed
  /// 001's constant), and its jackknife standard error; nullopt where the fit is undefined
  /// (fewer than two sample times or batches: one trajectory, for one).
  std::optional<double> growth_b_over_h4;
  std::optional<double> growth_b_over_h4_stderr;
  /// Why b is not well determined (kMaxGrowthRelativeError) or not a drift
  /// (kMaxLinearGrowthExponent), or why an ensemble of two or more trajectories has no fit;
  /// empty otherwise. The table marks b with "?" and prints this under it.
  std::string growth_caveat;
  /// One per residual_observables(result), in that order.
  std::vector<ResidualMax> max_residuals;
};

/// The energy observable the summary reads: "energy_error" when the result has it, else
/// "relative_energy_error" when it has that, else "".
std::string energy_observable(const nhsim::v1::EnsembleResult& result);

/// The constraint residual observables of the result (constraint_residual and
/// *_constraint_residual), in the order they first appear.
std::vector<std::string> residual_observables(const nhsim::v1::EnsembleResult& result);

/// b is reported as determined only with a relative standard error of at most this.
inline constexpr double kMaxGrowthRelativeError = 0.25;

/// Var = a + b t with a, b >= 0 grows at most like t^1 (its log-log slope bt / (a + bt) is at
/// most 1): where the exponent's 95 % interval lies wholly above 1, the variance grows faster
/// than the model allows (a comes out negative, b is a secant's slope) and b is marked.
inline constexpr double kMaxLinearGrowthExponent = 1.0;

/// The summary rows of `result`, one per integrator choice, in the result's order.
std::vector<SummaryRow> summarize(const nhsim::v1::EnsembleResult& result);

/// The summary table (header, one line per row, "-" for missing values; the energy columns
/// only when the result has an energy observable, one column per residual observable; columns
/// as wide as their widest cell), then notes: the growth model's fit range and batches, a caveat
/// per row whose b is not determined, a warning per row with failed trajectories (the statistics
/// are then conditional on success), and a line on cancelled trajectories when the result was
/// cancelled. A sweep's (EnsembleResult.cases) is one table: a column per swept field, the
/// case's values on its first row, its rows under them; the notes name their case.
std::string summary_table(const nhsim::v1::EnsembleResult& result);

/// CSV with header "choice,integrator,h,observable,t,count,mean,variance,min,max,q05,q50,q95,
/// mean_stderr,variance_stderr,q05_lower,q05_upper,q50_lower,q50_upper,q95_lower,q95_upper,
/// variance_lower,variance_upper":
/// one row per (integrator choice, observable, sample time); doubles as the shortest decimal
/// that reads back as the same double (h as 0.05). A column from q05 on is empty where the series
/// lacks it (results written before it existed). A sweep's in long format: "case" and a column
/// per swept field (named as in the sweep, e.g. parameters.n; a swept h is the h column) before
/// those columns.
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
/// observables, the choices' last sample times differ, or `reference` names no choice. A
/// sweep's choices count case by case, as one result's (an h-sweep is an order plot); a choice
/// with the reference's integrator and h in another case is marked reference too.
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

/// "<STATE> <done>/<total> trajectories[ (cancelling)][ (waits: reason)][: error]".
std::string job_status(const nhsim::v1::Job& job);

/// job_status() with `done` in place of the job's trajectories_done.
std::string job_status(const nhsim::v1::Job& job, const std::string& done);

/// One line: "job <id> " then job_status().
std::string job_line(const nhsim::v1::Job& job);

/// The job list of `nhsim jobs`: a header, then one line per job, "job state done/total system
/// age label" (age since created_time at `now`, as eta_text() writes it; the label on one line,
/// cut after kJobsLabelWidth characters), then the error of each failed job and why each queued
/// job waits ("job <id> waits: <waiting_reason>"); empty for no jobs.
std::string jobs_table(const std::vector<nhsim::v1::Job>& jobs,
                       std::chrono::system_clock::time_point now);

/// Labels longer than this are cut in the job list.
inline constexpr std::size_t kJobsLabelWidth = 40;

}  // namespace nhsim::client
