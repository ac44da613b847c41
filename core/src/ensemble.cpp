// The ensemble's parallel driver (docs/design.md "Ensemble semantics"). The pieces it drives:
// prepared_spec.cpp (validation), initial_condition_source.cpp (trajectory i's state),
// observables.cpp (sampling), accumulation.cpp (statistics and their merge) and, where a pair has
// lane kernels, its LaneStepper (nhsim/lanes.hpp, core/src/lanes/).
//
// Parallel structure: a range of trajectories is cut into blocks (block_size()); a oneTBB
// pipeline runs blocks in parallel, each block in index order, one trajectory at a time with one
// Stepper or a lane batch at a time with one LaneStepper (the same bits either way). The stage
// that runs a block also adds its samples to the choice's cells, under per-stripe locks; a serial
// stage merges the rest (counts, failures, outputs). The statistics are associative
// (nhsim/statistics.hpp), so the order in which blocks finish does not matter: the result is
// bit-identical for any thread count, lane width and any split of the trajectories into partial
// results (partial_result.cpp merges them). Memory holds the cells and at most a few blocks'
// samples, independent of the number of trajectories.
#include "nhsim/ensemble.hpp"

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <variant>

#include "accumulation.hpp"
#include "nhsim/catalogue.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/lanes.hpp"
#include "nhsim/sweep.hpp"
#include "nhsim/tsan.hpp"
#include "observables.hpp"
#include "outputs.hpp"
#include "partial_result.hpp"
#include "prepared_spec.hpp"
#include "until.hpp"

namespace nhsim {
namespace {

/// Blocks hold a multiple of 8 trajectories (every lane width divides it), from 8 to 256.
constexpr std::int64_t kMinBlock = 8, kMaxBlock = 256;
/// The samples a block may hold before they are added to the cells.
constexpr double kBlockSampleBytes = 2.0 * 1024 * 1024;
/// Steps between two looks at the cancel flag: at most about 70 ms for the slowest pair
/// (four_bar ggl, 15k steps/s), so that a cancel or shutdown takes effect promptly.
constexpr std::int64_t kStepsPerCancelCheck = 1024;

std::string failure_reason(const AdvanceResult& r) {
  std::ostringstream os;
  switch (r.status) {
    case StepStatus::kNewtonFailed:
      os << "Newton iteration did not converge (last increment " << r.residual << ")";
      break;
    case StepStatus::kNonFinite:
      os << "state became non-finite";
      break;
    case StepStatus::kOk:
      os << "ok";
      break;
  }
  return os.str();
}

/// What every block of one integrator choice shares.
struct ChoiceRun {
  const PreparedSpec& prepared;
  const InitialConditions& initial_conditions;
  const IntegratorChoice& choice;
  const RunOptions& options;
  TrajectoryRange range;
  std::size_t ci = 0;  ///< the choice's index in the spec
  std::int64_t n_steps = 0, n_samples = 0;
  bool need_state = false;
  LaneSettings lanes = {};         ///< resolved (resolve_lane_settings())
  std::int64_t block = kMinBlock;  ///< trajectories per block (block_size())

  bool cancelled() const {
    return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
  }
};

/// The step of sample k of n_samples: k sample_every, except the last one, at n_steps (t_final
/// is always a sample time, also when sample_every does not divide n_steps).
std::int64_t sample_step(std::int64_t k, std::int64_t sample_every, std::int64_t n_samples,
                         std::int64_t n_steps) {
  return k == n_samples - 1 ? n_steps : k * sample_every;
}

CanonicalState canonical(const Eigen::VectorXd& q, const Eigen::VectorXd& p) {
  return {std::vector<double>(q.begin(), q.end()), std::vector<double>(p.begin(), p.end())};
}

/// What trajectory i records beside the statistics (OutputSpec): its samples' maxima for the
/// summary, and its samples (and states) when it is one of the sampled trajectories.
struct TrajectoryRecord {
  bool summary = false, sampled = false, sampled_state = false;
  std::int64_t reached = 0;  ///< samples taken
  double max_energy_error = 0.0, max_residual = 0.0;
  SampledTrajectory samples;

  TrajectoryRecord(const ChoiceRun& run, std::int64_t i, int nq) {
    const OutputSpec& s = run.prepared.outputs.spec;
    summary = s.summary;
    sampled = selected(s.sampled, i);
    sampled_state = sampled && s.sampled_state;
    samples.trajectory = i;
    if (sampled_state) {
      samples.q.resize(static_cast<std::size_t>(run.n_samples * nq));
      samples.p.resize(static_cast<std::size_t>(run.n_samples * nq));
    }
  }

  /// Source: a Stepper, or a LaneView of one lane.
  template <class Source>
  void sample(const Source& source, double h0, Eigen::VectorXd& q, Eigen::VectorXd& p) {
    if (summary) {
      double energy = 0.0, residual = 0.0;
      source.energy_and_residual(energy, residual);
      max_energy_error = std::max(max_energy_error, std::abs(energy - h0));
      max_residual = std::max(max_residual, residual);
    }
    if (sampled_state) {
      source.get_state(q, p);
      std::copy(q.begin(), q.end(), samples.q.begin() + reached * q.size());
      std::copy(p.begin(), p.end(), samples.p.begin() + reached * p.size());
    }
    ++reached;
  }
};

/// Trajectory i of one choice from its initial state to t_final, whoever steps it (a Stepper, or
/// a lane of a LaneStepper: the Source of the member templates): its samples go to `samples`
/// ([sample * n_obs + obs]), its outcome and requested outputs to `block`, as the trajectory
/// goes. The caller draws the initial state, sets it, then calls start(), took() and fail() or
/// cancel() as it steps, sample() at each sample time while running(), and finish().
class TrajectoryRun {
 public:
  TrajectoryRun(const ChoiceRun& run, std::int64_t i, std::vector<double>& samples,
                std::int64_t block_size, BlockOutcome& block)
      : run_(run),
        i_(i),
        samples_(samples),
        block_size_(block_size),
        block_(block),
        record_(run, i, run.prepared.model->nq()) {}

  /// Trajectory i's initial state into q, p. False when it has none: the trajectory is then
  /// recorded (failed, or cancelled where the generator saw the cancel flag) and done.
  bool draw_initial_state(Eigen::VectorXd& q, Eigen::VectorXd& p) {
    std::string reason;
    if (!initial_state(run_.initial_conditions, *run_.prepared.model, i_, q, p, reason,
                       run_.options.cancel)) {
      if (reason == "cancelled") {  // the generator stopped at the cancel flag
        ++block_.cancelled;
        summarise(TrajectorySummary::Status::kCancelled, 0.0, nullptr, "");
        return false;
      }
      ++block_.failed;
      block_.failures.push_back({i_, run_.choice.integrator, 0.0, reason});
      summarise(TrajectorySummary::Status::kFailed, 0.0, nullptr, reason);
      return false;
    }
    if (run_.ci == 0 && selected(run_.prepared.outputs.spec.initial_states, i_)) {
      block_.initial_states.push_back({i_, canonical(q, p)});
    }
    return true;
  }

  /// The state is set: H0, and sample 0.
  template <class Source>
  void start(const Source& source, Eigen::VectorXd& q, Eigen::VectorXd& p) {
    h0_ = source.energy();
    sample(0, source, q, p);
  }

  /// Sample k of the current state.
  template <class Source>
  void sample(std::int64_t k, const Source& source, Eigen::VectorXd& q, Eigen::VectorXd& p) {
    const auto n_obs = static_cast<std::int64_t>(run_.prepared.observables.size());
    sample_observables(run_.prepared.observables, run_.need_state, *run_.prepared.model, source,
                       h0_, initial_.data(), k == 0, q, p, samples_.data() + k * n_obs);
    record_.sample(source, h0_, q, p);
  }

  /// `steps` more steps succeeded.
  void took(std::int64_t steps) { steps_taken_ += steps; }
  /// The last step failed: the trajectory ends at the last good state.
  void fail(std::string reason) {
    reason_ = std::move(reason);
    failed_ = true;
    block_.failures.push_back({i_, run_.choice.integrator, time(), reason_});
  }
  /// The cancel flag was seen: the trajectory ends here.
  void cancel() { stopped_ = true; }
  bool running() const { return !failed_ && !stopped_; }

  /// Records the outcome: counts, summary, and for a successful trajectory its samples,
  /// histogram counts and final state; and the sampled trajectory if it is one.
  template <class Source>
  void finish(const Source& source, Eigen::VectorXd& q, Eigen::VectorXd& p) {
    const PreparedOutputs& outputs = run_.prepared.outputs;
    block_.steps += steps_taken_;
    if (stopped_) {
      ++block_.cancelled;
      summarise(TrajectorySummary::Status::kCancelled, time(), &record_, "");
    } else if (failed_) {
      ++block_.failed;
      summarise(TrajectorySummary::Status::kFailed, time(), &record_, reason_);
    } else {
      add_successful(block_, i_, samples_, block_size_);
      summarise(TrajectorySummary::Status::kOk, time(), &record_, "");
      if (!outputs.histograms.empty()) {
        add_to_histograms(outputs, run_.ci, samples_.data(), run_.prepared.observables.size(),
                          block_.histogram_counts);
      }
      if (selected(outputs.spec.final_states, i_)) {
        source.get_state(q, p);
        block_.final_states.push_back({i_, canonical(q, p)});
      }
    }
    if (record_.sampled) {
      const auto n_values =
          static_cast<std::size_t>(record_.reached) * run_.prepared.observables.size();
      record_.samples.samples = record_.reached;
      record_.samples.values.assign(samples_.begin(), samples_.begin() + n_values);
      const auto n_state = static_cast<std::size_t>(record_.reached * run_.prepared.model->nq());
      if (record_.sampled_state) {
        record_.samples.q.resize(n_state);
        record_.samples.p.resize(n_state);
      }
      block_.sampled.push_back(std::move(record_.samples));
    }
  }

 private:
  double time() const { return static_cast<double>(steps_taken_) * run_.choice.h; }

  void summarise(TrajectorySummary::Status status, double time, const TrajectoryRecord* record,
                 std::string reason) {
    if (!run_.prepared.outputs.spec.summary) return;
    TrajectorySummary s{i_, status, time, 0.0, 0.0, std::move(reason)};
    if (record != nullptr) {
      s.max_abs_energy_error = record->max_energy_error;
      s.max_constraint_residual = record->max_residual;
    }
    block_.summary.push_back(std::move(s));
  }

  const ChoiceRun& run_;
  std::int64_t i_;
  std::vector<double>& samples_;
  std::int64_t block_size_;
  BlockOutcome& block_;
  TrajectoryRecord record_;
  double h0_ = 0.0;
  /// The invariants' values at t = 0 (invariant_error observables), per observable.
  std::vector<double> initial_ = std::vector<double>(run_.prepared.observables.size());
  std::int64_t steps_taken_ = 0;
  bool failed_ = false, stopped_ = false;
  std::string reason_;
};

/// Adds one block's trajectory-steps to RunOptions::steps: those taken, once at least
/// kStepsPerReport have gathered, and at the block's end the rest of its trajectories x n_steps
/// (trajectories that failed, were cancelled or could not start count as done).
class StepReporter {
 public:
  StepReporter(const ChoiceRun& run, std::int64_t trajectories)
      : counter_(run.options.steps), owed_(trajectories * run.n_steps) {}
  ~StepReporter() {
    if (counter_ != nullptr) counter_->fetch_add(owed_ - reported_, std::memory_order_relaxed);
  }
  StepReporter(const StepReporter&) = delete;
  StepReporter& operator=(const StepReporter&) = delete;

  void took(std::int64_t steps) {
    pending_ += steps;
    if (counter_ != nullptr && pending_ >= kStepsPerReport) {
      counter_->fetch_add(pending_, std::memory_order_relaxed);
      reported_ += pending_;
      pending_ = 0;
    }
  }

 private:
  std::atomic<std::int64_t>* counter_;
  std::int64_t owed_, reported_ = 0, pending_ = 0;
};

/// The steps of sample interval k (from sample k - 1 to sample k).
std::int64_t interval_steps(const ChoiceRun& run, std::int64_t k) {
  return sample_step(k, run.choice.sample_every, run.n_samples, run.n_steps) -
         (k - 1) * run.choice.sample_every;
}

/// Trajectory i with one Stepper.
void run_trajectory(const ChoiceRun& run, std::int64_t i, Stepper& stepper, Eigen::VectorXd& q,
                    Eigen::VectorXd& p, std::vector<double>& samples, std::int64_t block_size,
                    BlockOutcome& block, StepReporter& steps) {
  TrajectoryRun t(run, i, samples, block_size, block);
  if (!t.draw_initial_state(q, p)) return;
  stepper.set_state(q, p);
  t.start(stepper, q, p);
  for (std::int64_t k = 1; k < run.n_samples && t.running(); ++k) {
    // A long sample interval is advanced in pieces, so that a cancel is seen within
    // kStepsPerCancelCheck steps (advance(a) then advance(b) is advance(a + b), bit for bit).
    for (std::int64_t left = interval_steps(run, k); left > 0 && t.running();) {
      if (run.cancelled()) {
        t.cancel();
        break;
      }
      const std::int64_t piece = std::min(left, kStepsPerCancelCheck);
      const AdvanceResult r = stepper.advance(piece);
      t.took(r.steps_done);
      steps.took(r.steps_done);
      left -= piece;
      if (r.status != StepStatus::kOk) t.fail(failure_reason(r));
    }
    if (t.running()) t.sample(k, stepper, q, p);
  }
  t.finish(stepper, q, p);
}

/// Trajectories [i0, i0 + n) (n <= lanes.width()) together, one lane each. Every lane goes
/// through what run_trajectory() does, with the same steps between the same looks at the cancel
/// flag; what Stepper::advance reports (a failed step, or a state no longer finite after a piece
/// of steps: none of the piece's steps count) comes per lane from LaneStepper::result(). Each
/// lane records into its own outcome, appended to `block` in index order, so that the block holds
/// what the scalar path's would.
void run_lanes(const ChoiceRun& run, std::int64_t i0, int n, LaneStepper& lanes, Eigen::VectorXd& q,
               Eigen::VectorXd& p, std::vector<std::vector<double>>& samples, BlockOutcome& block,
               StepReporter& steps) {
  std::vector<BlockOutcome> outcomes(static_cast<std::size_t>(n));
  std::vector<std::unique_ptr<TrajectoryRun>> runs;
  std::vector<LaneView> views;
  views.reserve(static_cast<std::size_t>(lanes.width()));
  std::vector<int> live;  // lanes with a state, in order
  for (int l = 0; l < lanes.width(); ++l) {
    views.emplace_back(lanes, l);
    if (l >= n) {  // an empty lane steps zeros
      q.setZero();
      p.setZero();
      lanes.set_state(l, q, p);
      continue;
    }
    BlockOutcome& outcome = outcomes[static_cast<std::size_t>(l)];
    outcome.histogram_counts.assign(block.histogram_counts.size(), 0);
    runs.push_back(std::make_unique<TrajectoryRun>(
        run, i0 + l, samples[static_cast<std::size_t>(l)], 1, outcome));
    if (runs.back()->draw_initial_state(q, p)) {
      lanes.set_state(l, q, p);
      runs.back()->start(views.back(), q, p);
      live.push_back(l);
    } else {
      runs.back().reset();
      q.setZero();
      p.setZero();
      lanes.set_state(l, q, p);
    }
  }
  const auto running = [&] {
    for (int l : live) {
      if (runs[static_cast<std::size_t>(l)]->running()) return true;
    }
    return false;
  };
  for (std::int64_t k = 1; k < run.n_samples && running(); ++k) {
    for (std::int64_t left = interval_steps(run, k); left > 0 && running();) {
      if (run.cancelled()) {
        for (int l : live) runs[static_cast<std::size_t>(l)]->cancel();
        break;
      }
      const std::int64_t piece = std::min(left, kStepsPerCancelCheck);
      lanes.advance(piece);
      left -= piece;
      for (int l : live) {
        TrajectoryRun& t = *runs[static_cast<std::size_t>(l)];
        if (!t.running()) continue;
        const AdvanceResult r = lanes.result(l);
        t.took(r.steps_done);
        steps.took(r.steps_done);
        if (r.status != StepStatus::kOk) t.fail(failure_reason(r));
      }
    }
    for (int l : live) {
      TrajectoryRun& t = *runs[static_cast<std::size_t>(l)];
      if (t.running()) t.sample(k, views[static_cast<std::size_t>(l)], q, p);
    }
  }
  for (int l : live)
    runs[static_cast<std::size_t>(l)]->finish(views[static_cast<std::size_t>(l)], q, p);
  for (BlockOutcome& outcome : outcomes) append_outcome(block, std::move(outcome));
}

/// Trajectories [b, min(end, b + run.block)) in index order: in lane batches where the pair has
/// lane kernels and lanes are on, else one at a time with one stepper.
std::unique_ptr<BlockOutcome> run_block(const ChoiceRun& run, std::int64_t b) {
  const auto n_cells = static_cast<std::size_t>(run.n_samples) * run.prepared.observables.size();
  auto block = std::make_unique<BlockOutcome>();
  block->histogram_counts.assign(run.prepared.outputs.histogram_cells, 0);
  const int nq = run.prepared.model->nq();
  Eigen::VectorXd q(nq), p(nq);
  const std::int64_t i0 = b, i1 = std::min(run.range.end, i0 + run.block);
  StepReporter steps(run, i1 - i0);
  if (std::unique_ptr<LaneStepper> lanes =
          run.lanes.isa == LaneIsa::kOff
              ? nullptr
              : run.prepared.model->make_lane_stepper(run.choice, run.lanes)) {
    const int w = lanes->width();
    // Each lane's samples are appended to the block (append_outcome): room for all at once.
    block->ok_samples.reserve(static_cast<std::size_t>(i1 - i0) * n_cells);
    std::vector<std::vector<double>> samples(static_cast<std::size_t>(w),
                                             std::vector<double>(n_cells));
    for (std::int64_t i = i0; i < i1; i += w) {
      const int n = static_cast<int>(std::min<std::int64_t>(w, i1 - i));
      if (run.cancelled()) {
        block->cancelled += n;
        continue;
      }
      run_lanes(run, i, n, *lanes, q, p, samples, *block, steps);
    }
    return block;
  }
  std::vector<double> samples(n_cells);
  std::unique_ptr<Stepper> stepper = run.prepared.model->make_stepper(run.choice);
  for (std::int64_t i = i0; i < i1; ++i) {
    if (run.cancelled()) {
      ++block->cancelled;
      continue;
    }
    run_trajectory(run, i, *stepper, q, p, samples, i1 - i0, *block, steps);
  }
  return block;
}

/// a x b and a + b of counts (a, b >= 0), saturated at the int64 maximum: a cost estimate of
/// an absurd spec (t_final / h near its limit of 9e15, hundreds of observables, several choices)
/// must come out too large to admit, not overflow.
std::int64_t multiply_saturated(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<std::int64_t>::max() : out;
}
std::int64_t add_saturated(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? std::numeric_limits<std::int64_t>::max() : out;
}

/// The choice as run: 0 in the spec's Newton settings means the integrator's default.
IntegratorChoice choice_as_run(const IntegratorChoice& choice) {
  IntegratorChoice out = choice;
  for (const auto& info : list_integrators()) {
    if (info.name != choice.integrator) continue;
    if (out.newton_tol == 0.0) out.newton_tol = info.default_newton_tol;
    if (out.newton_max_iter == 0) out.newton_max_iter = info.default_newton_max_iter;
  }
  return out;
}

/// Samples of a choice with n_steps steps: t = 0, then every sample_every steps, and t_final
/// (also when sample_every does not divide n_steps).
std::int64_t sample_count(const IntegratorChoice& choice, std::int64_t n_steps) {
  const std::int64_t se = choice.sample_every;
  return n_steps / se + (n_steps % se != 0 ? 1 : 0) + 1;
}

/// The sample times of a choice with n_steps steps: sample k at step min(k sample_every,
/// n_steps).
std::vector<double> sample_times(const IntegratorChoice& choice, std::int64_t n_steps) {
  const std::int64_t n_samples = sample_count(choice, n_steps);
  std::vector<double> t(static_cast<std::size_t>(n_samples));
  for (std::int64_t k = 0; k < n_samples; ++k) {
    t[static_cast<std::size_t>(k)] =
        static_cast<double>(sample_step(k, choice.sample_every, n_samples, n_steps)) * choice.h;
  }
  return t;
}

/// Trajectories per block for `n` trajectories, `n_cells` statistics cells and `concurrency`
/// threads: at least 4 blocks per thread where n allows (balance), at most about
/// kBlockSampleBytes of samples, a multiple of 8 in [kMinBlock, kMaxBlock]. Any size gives the
/// same bits (the statistics are associative). Larger blocks add each cell's values in larger
/// batches: a cell's exact sums and sketch, which no cache holds for all cells at once, are then
/// fetched once per up to 256 trajectories (the statistics' cost is mostly these fetches; it
/// also limited 2-thread scaling once the steps got cheap, lanes).
std::int64_t block_size(std::int64_t n, std::size_t n_cells, int concurrency) {
  const std::int64_t balance = (n + 4 * concurrency - 1) / (4 * std::max(1, concurrency));
  const auto by_memory = static_cast<std::int64_t>(
      kBlockSampleBytes / (8.0 * static_cast<double>(std::max<std::size_t>(n_cells, 1))));
  const std::int64_t b = std::min(balance, by_memory);
  return std::clamp((b + kMinBlock - 1) / kMinBlock * kMinBlock, kMinBlock, kMaxBlock);
}

/// Runs the trajectories of `range` with integrator choice `ci`; `done_work` counts finished
/// trajectories over all choices for the progress callback.
ChoicePartial run_choice(const PreparedSpec& pr, const EnsembleSpec& spec, std::size_t ci,
                         TrajectoryRange range, const RunOptions& options,
                         const LaneSettings& lanes, tbb::task_arena& arena, std::int64_t& done_work,
                         std::int64_t total_work) {
  const IntegratorChoice& choice = pr.choices[ci];
  ChoiceRun run{pr, spec.initial_conditions, choice, options, range, ci};
  run.lanes = lanes;
  run.n_steps = pr.n_steps[ci];
  run.n_samples = sample_count(choice, run.n_steps);
  run.need_state = observables_need_state(pr.observables);

  BatchLayout batches{batch_sample_indices(sample_times(choice, run.n_steps)),
                      pr.observables.size()};
  ChoicePartial partial = empty_choice_partial(
      static_cast<std::size_t>(run.n_samples) * pr.observables.size(), batches,
      pr.outputs.histogram_cells, static_cast<std::size_t>(range.end - range.begin));
  const int concurrency = std::max(1, arena.max_concurrency());
  BlockSampleSink sink(partial, std::move(batches), range.end - range.begin, concurrency);
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t next_block = range.begin;
  arena.execute([&] {
    const auto tokens = static_cast<std::size_t>(2 * concurrency);
    run.block = block_size(range.end - range.begin, partial.cells.size(), concurrency);
    // Each filter is a hand-off of oneTBB's, stated for ThreadSanitizer (tsan.hpp).
    auto next = [&](tbb::flow_control& fc) -> std::int64_t {
      tbb_handoff_acquire();
      std::int64_t b = 0;
      if (next_block >= range.end || run.cancelled()) {
        fc.stop();
      } else {
        b = next_block;
        next_block += run.block;
      }
      tbb_handoff_release();
      return b;
    };
    // A block's outcome travels as a plain pointer, owned by the merge that receives it: a
    // pointer token is the pointer itself, while a class-type token (a smart pointer) would be
    // moved through oneTBB's own storage between threads, out of ThreadSanitizer's sight. (An
    // exception that cancels the pipeline leaks the blocks in flight; only bad_alloc can.)
    // The block adds its samples to the cells in the parallel stage, under the stripes' locks
    // (they cost the most: exact sums and quantile sketches of every value); the serial stage
    // merges the rest (counts, failures and outputs in index order) and reports progress.
    auto block = [&](std::int64_t b) -> BlockOutcome* {
      tbb_handoff_acquire();
      BlockOutcome* outcome = run_block(run, b).release();
      sink.add(*outcome, (b - range.begin) / run.block);
      tbb_handoff_release();
      return outcome;
    };
    auto merge = [&](BlockOutcome* received) {
      tbb_handoff_acquire();
      const std::unique_ptr<BlockOutcome> a(received);
      merge_block_outcome(partial, *a);
      done_work += a->ok + a->failed + a->cancelled;
      if (options.progress) options.progress(done_work, total_work);
      tbb_handoff_release();
    };
    tbb_handoff_release();
    tbb::parallel_pipeline(
        tokens,
        tbb::make_filter<void, std::int64_t>(tbb::filter_mode::serial_in_order, next) &
            tbb::make_filter<std::int64_t, BlockOutcome*>(tbb::filter_mode::parallel, block) &
            tbb::make_filter<BlockOutcome*, void>(tbb::filter_mode::serial_out_of_order, merge));
  });
  tbb_handoff_acquire();
  sink.finish(arena);
  partial.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Blocks never started (cancellation) count as cancelled: the counts always add up.
  const std::int64_t unstarted =
      (range.end - range.begin) - (partial.ok + partial.failed + partial.cancelled);
  partial.cancelled += unstarted;
  done_work += unstarted;
  if (unstarted > 0 && options.progress) options.progress(done_work, total_work);
  return partial;
}

/// The result of choice `ci` from its merged statistics; takes the partial's outputs.
IntegratorResult choice_result(const PreparedSpec& pr, const IntegratorChoice& choice,
                               std::size_t ci, std::int64_t n_steps, ChoicePartial& partial,
                               tbb::task_arena& arena) {
  IntegratorResult ir;
  ir.choice = choice_as_run(choice);
  ir.n_steps = n_steps;
  ir.sample_times = sample_times(choice, n_steps);
  ir.trajectories_ok = partial.ok;
  ir.trajectories_failed = partial.failed;
  ir.trajectories_cancelled = partial.cancelled;
  ir.failures = partial.failures;
  ir.steps_completed = partial.steps;
  ir.wall_seconds = partial.wall_seconds;
  ir.steps_per_second =
      partial.wall_seconds > 0.0 ? static_cast<double>(partial.steps) / partial.wall_seconds : 0.0;
  std::vector<std::string> names;
  for (const auto& o : pr.observables) names.push_back(o.name);
  ir.observables = series_statistics(partial, names, ir.sample_times, choice.h, arena);
  // Moved, not copied: finish() owns the partial, and nothing after reads its outputs.
  ir.outputs.final_states = std::move(partial.final_states);
  ir.outputs.sampled = std::move(partial.sampled);
  ir.outputs.summary = std::move(partial.summary);
  ir.outputs.histograms =
      histogram_results(pr.outputs, ir.sample_times, ci, partial.histogram_counts);
  return ir;
}

/// The shortest decimal that reads back as v (a sweep case's value in an error message).
std::string shortest_decimal(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  return std::string(buffer, end);
}

/// finish() of a sweep: each case's choices (consecutive in `partial`) finished as that case's
/// ensemble. `result` has the sweep's system and trajectory count.
EnsembleResult finish_sweep(const Problem& problem, PartialResult partial, int threads,
                            EnsembleResult result) {
  const std::size_t per_case = problem.spec().integrators.size();
  const std::size_t n_cases = problem.cases().size();
  if (partial.choices.size() != per_case * n_cases) {
    throw PartialMismatch("partial result has " + std::to_string(partial.choices.size()) +
                          " integrator choices, the sweep " + std::to_string(per_case) + " x " +
                          std::to_string(n_cases) + " cases");
  }
  for (std::size_t k = 0; k < n_cases; ++k) {
    PartialResult part;
    part.spec_hash = partial.spec_hash;
    part.n_trajectories = partial.n_trajectories;
    part.ranges = partial.ranges;
    const auto first = partial.choices.begin() + static_cast<std::ptrdiff_t>(k * per_case);
    part.choices.assign(std::make_move_iterator(first),
                        std::make_move_iterator(first + static_cast<std::ptrdiff_t>(per_case)));
    const Problem::Case& c = problem.cases()[k];
    result.cases.push_back({c.values, finish(c.problem, std::move(part), threads)});
    result.cancelled = result.cancelled || result.cases.back().result.cancelled;
  }
  // The parameters every case shares: the first case's, less the swept ones.
  result.parameters = result.cases.front().result.parameters;
  for (const SweepValue& v : result.cases.front().values) {
    if (v.field.starts_with("parameters.")) result.parameters.erase(v.field.substr(11));
  }
  return result;
}

}  // namespace

Problem::Problem(EnsembleSpec spec, const std::function<bool()>& abandon)
    : spec_(std::make_shared<const EnsembleSpec>(std::move(spec))),
      cases_(std::make_shared<const std::vector<Case>>()) {
  if (spec_->sweep.empty()) {
    prepared_ = std::make_shared<const PreparedSpec>(prepare(*spec_));
    return;
  }
  if (spec_->until.active()) {
    throw SpecError("until", "not with a sweep (a run to a requested precision is one ensemble)");
  }
  auto cases = std::make_shared<std::vector<Case>>();
  for (SweepCase& c : sweep_cases(*spec_)) {
    if (abandon && abandon()) {
      throw Abandoned("abandoned after " + std::to_string(cases->size()) + " of " +
                      std::to_string(sweep_case_count(*spec_)) + " sweep cases were checked");
    }
    try {
      cases->push_back({c.values, Problem(std::move(c.spec))});
    } catch (const SpecError& e) {
      std::string values;
      for (const SweepValue& v : c.values) {
        values += (values.empty() ? "" : ", ") + v.field + " = " + shortest_decimal(v.value);
      }
      throw SpecError(e.field(), e.reason() + " (in sweep case " + std::to_string(cases->size()) +
                                     ": " + values + ")");
    }
  }
  cases_ = std::move(cases);
}

void validate(const EnsembleSpec& spec) { (void)Problem(spec); }

std::int64_t trajectory_count(const EnsembleSpec& spec) {
  return trajectory_count(spec.initial_conditions);
}

std::int64_t choice_count(const EnsembleSpec& spec) {
  return static_cast<std::int64_t>(spec.integrators.size()) * sweep_case_count(spec);
}

PartialResult run_partial(const EnsembleSpec& spec, TrajectoryRange range,
                          const RunOptions& options) {
  return run_partial(Problem(spec), range, options);
}

PartialResult run_partial(const Problem& problem, TrajectoryRange range,
                          const RunOptions& options) {
  const EnsembleSpec& spec = problem.spec();
  PartialResult partial;
  partial.n_trajectories = trajectory_count(spec);
  if (range.begin < 0 || range.end < range.begin || range.end > partial.n_trajectories) {
    throw SpecError("range", "trajectories [" + std::to_string(range.begin) + ", " +
                                 std::to_string(range.end) + ") are not within [0, " +
                                 std::to_string(partial.n_trajectories) + ")");
  }
  if (range.end > range.begin) partial.ranges.push_back(range);
  if (problem.is_sweep()) {  // case by case, each as its own ensemble
    const std::int64_t per_case =
        (range.end - range.begin) * static_cast<std::int64_t>(spec.integrators.size());
    const std::int64_t total = per_case * static_cast<std::int64_t>(problem.cases().size());
    std::int64_t base = 0;
    for (const Problem::Case& c : problem.cases()) {
      RunOptions case_options = options;
      if (options.progress) {
        case_options.progress = [&options, base, total](std::int64_t done, std::int64_t) {
          options.progress(base + done, total);
        };
      }
      PartialResult part = run_partial(c.problem, range, case_options);
      std::move(part.choices.begin(), part.choices.end(), std::back_inserter(partial.choices));
      base += per_case;
    }
    return partial;
  }
  const PreparedSpec& pr = problem.prepared();
  const std::int64_t total_work =
      (range.end - range.begin) * static_cast<std::int64_t>(spec.integrators.size());
  std::int64_t done_work = 0;
  const LaneSettings lanes = resolve_lane_settings(options.lanes);
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  for (std::size_t ci = 0; ci < spec.integrators.size(); ++ci) {
    partial.choices.push_back(
        run_choice(pr, spec, ci, range, options, lanes, arena, done_work, total_work));
  }
  return partial;
}

EnsembleResult finish(const EnsembleSpec& spec, PartialResult partial, int threads) {
  return finish(Problem(spec), std::move(partial), threads);
}

EnsembleResult finish(const Problem& problem, PartialResult partial, int threads) {
  const EnsembleSpec& spec = problem.spec();
  check_complete(partial, trajectory_count(spec));
  EnsembleResult result;
  result.system = !spec.custom_system                ? spec.system
                  : spec.custom_system->name.empty() ? std::string("custom_system")
                                                     : spec.custom_system->name;
  result.n_trajectories = partial.n_trajectories;
  if (problem.is_sweep()) return finish_sweep(problem, std::move(partial), threads, result);
  const PreparedSpec& pr = problem.prepared();
  result.parameters = pr.parameters;
  if (partial.choices.size() != spec.integrators.size()) {
    throw PartialMismatch("partial result has " + std::to_string(partial.choices.size()) +
                          " integrator choices, the spec " +
                          std::to_string(spec.integrators.size()));
  }
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  for (std::size_t ci = 0; ci < spec.integrators.size(); ++ci) {
    const std::int64_t n_steps = pr.n_steps[ci];
    const std::size_t n_cells =
        static_cast<std::size_t>(sample_count(spec.integrators[ci], n_steps)) *
        pr.observables.size();
    if (partial.choices[ci].cells.size() != n_cells) {
      throw PartialMismatch("partial result: integrator choice " + std::to_string(ci) + " has " +
                            std::to_string(partial.choices[ci].cells.size()) +
                            " statistics cells, the spec " + std::to_string(n_cells));
    }
    const std::size_t n_batch_cells =
        BatchLayout{batch_sample_indices(sample_times(spec.integrators[ci], n_steps)),
                    pr.observables.size()}
            .size();
    if (partial.choices[ci].batch_cells.size() != n_batch_cells) {
      throw PartialMismatch("partial result: integrator choice " + std::to_string(ci) + " has " +
                            std::to_string(partial.choices[ci].batch_cells.size()) +
                            " batch cells, the spec " + std::to_string(n_batch_cells));
    }
    if (partial.choices[ci].histogram_counts.size() != pr.outputs.histogram_cells) {
      throw PartialMismatch("partial result: integrator choice " + std::to_string(ci) + " has " +
                            std::to_string(partial.choices[ci].histogram_counts.size()) +
                            " histogram counts, the spec " +
                            std::to_string(pr.outputs.histogram_cells));
    }
    result.integrators.push_back(
        choice_result(pr, pr.choices[ci], ci, n_steps, partial.choices[ci], arena));
    IntegratorResult& ir = result.integrators.back();
    if (spec.failure_policy == EnsembleSpec::FailurePolicy::kFailChoice &&
        ir.trajectories_failed > 0) {
      ir.failed_as_whole = true;
      ir.observables.clear();
    }
    result.cancelled = result.cancelled || result.integrators.back().trajectories_cancelled > 0;
  }
  if (!partial.choices.empty())
    result.initial_states = std::move(partial.choices[0].initial_states);
  std::vector<BatchLayout> layouts;
  for (std::size_t ci = 0; ci < spec.integrators.size(); ++ci) {
    layouts.push_back(
        {batch_sample_indices(result.integrators[ci].sample_times), pr.observables.size()});
  }
  for (std::size_t a = 0; a < layouts.size(); ++a) {
    for (std::size_t b = a + 1; b < layouts.size(); ++b) {
      if (result.integrators[a].failed_as_whole || result.integrators[b].failed_as_whole) {
        continue;
      }
      for (std::size_t j = 0; j < pr.observables.size(); ++j) {
        VarianceRatio r =
            variance_ratio(partial.choices[a], layouts[a], partial.choices[b], layouts[b], j);
        r.numerator = static_cast<std::int64_t>(a);
        r.denominator = static_cast<std::int64_t>(b);
        r.observable = pr.observables[j].name;
        result.variance_ratios.push_back(std::move(r));
      }
    }
  }
  return result;
}

CostEstimate estimate_cost(const EnsembleSpec& spec) { return estimate_cost(Problem(spec)); }

CostEstimate estimate_cost(const Problem& problem) {
  const EnsembleSpec& spec = problem.spec();
  CostEstimate cost;
  if (problem.is_sweep()) {  // the cases' sums; each runs the same trajectories
    for (const Problem::Case& c : problem.cases()) {
      const CostEstimate part = estimate_cost(c.problem);
      cost.trajectories = part.trajectories;
      cost.trajectory_steps += part.trajectory_steps;
      cost.generator_draws += part.generator_draws;
      cost.cells = add_saturated(cost.cells, part.cells);
      cost.statistics_bytes += part.statistics_bytes;
      cost.result_bytes += part.result_bytes;
      cost.output_bytes += part.output_bytes;
    }
    return cost;
  }
  const PreparedSpec& pr = problem.prepared();
  cost.trajectories = trajectory_count(spec);
  const auto n = static_cast<double>(cost.trajectories);
  if (const auto* shell = std::get_if<EnergyShellGenerator>(&spec.initial_conditions)) {
    cost.generator_draws = n * shell->max_attempts;
  }
  const auto n_obs = static_cast<std::int64_t>(pr.observables.size());
  double batch_cells = 0.0;
  for (std::size_t ci = 0; ci < spec.integrators.size(); ++ci) {
    const std::int64_t samples = sample_count(spec.integrators[ci], pr.n_steps[ci]);
    // At most kMaxBatchSamples batch sample times (without listing the sample times: a spec
    // being estimated may have more than memory holds).
    batch_cells += static_cast<double>(kBatches) *
                   static_cast<double>(std::min(samples, kMaxBatchSamples)) *
                   static_cast<double>(n_obs);
    cost.trajectory_steps += n * static_cast<double>(pr.n_steps[ci]);
    cost.cells = add_saturated(cost.cells, multiply_saturated(samples, n_obs));
    cost.result_bytes += 8.0 * static_cast<double>(samples);  // sample_times
  }
  const double values_per_cell =
      std::min<double>(n, static_cast<double>(QuantileSketch::kExactCapacity));
  const auto cells = static_cast<double>(cost.cells);
  const double failure_bytes = kFailureBytes * static_cast<double>(spec.integrators.size()) *
                               std::min<double>(n, static_cast<double>(kMaxListedFailures));
  cost.statistics_bytes = 2.0 * (cells * (sizeof(CellStats) + 8.0 * values_per_cell) +
                                 batch_cells * sizeof(MomentSums) + failure_bytes);
  // count, mean, variance, min, max, 3 quantiles, 2 standard errors, 6 interval bounds
  cost.result_bytes += 125.0 * cells + failure_bytes;
  std::vector<std::int64_t> n_samples;
  for (std::size_t ci = 0; ci < spec.integrators.size(); ++ci) {
    n_samples.push_back(sample_count(spec.integrators[ci], pr.n_steps[ci]));
  }
  cost.output_bytes =
      output_bytes(pr.outputs, cost.trajectories, pr.model->nq(), pr.observables.size(), n_samples);
  cost.result_bytes += cost.output_bytes;
  return cost;
}

EnsembleResult finish_cancelled(const EnsembleSpec& spec, PartialResult partial, int threads) {
  return finish_cancelled(Problem(spec), std::move(partial), threads);
}

EnsembleResult finish_cancelled(const Problem& problem, PartialResult partial, int threads) {
  const std::int64_t n = trajectory_count(problem.spec());
  if (partial.ranges.empty() && partial.choices.empty()) {  // nothing ran: the empty partial
    const std::string hash = partial.spec_hash;
    partial = run_partial(problem, {0, 0});
    partial.spec_hash = hash;
  }
  const std::int64_t covered = covered_count(partial);
  if (partial.n_trajectories != n || covered > n) {
    throw PartialMismatch("partial result of " + std::to_string(partial.n_trajectories) +
                          " trajectories, the spec has " + std::to_string(n));
  }
  for (ChoicePartial& choice : partial.choices) choice.cancelled += n - covered;
  partial.ranges = {TrajectoryRange{0, n}};
  return finish(problem, std::move(partial), threads);
}

namespace {

/// The end m of a partial that covers exactly [0, m); throws PartialMismatch otherwise.
std::int64_t prefix_end(const PartialResult& prefix) {
  if (prefix.ranges.empty()) return 0;
  if (prefix.ranges.size() != 1 || prefix.ranges[0].begin != 0) {
    throw PartialMismatch(
        "a run to a requested precision needs a partial result that covers "
        "trajectories [0, m)");
  }
  return prefix.ranges[0].end;
}

/// `spec` with its first m trajectories only: the generator's count (a trajectory's state
/// depends only on the source and its index) or the first m explicit states, and the outputs'
/// trajectory selections cut to them.
EnsembleSpec first_trajectories(const EnsembleSpec& spec, std::int64_t m) {
  EnsembleSpec s = spec;
  std::visit(
      [&](auto& source) {
        if constexpr (std::is_same_v<std::decay_t<decltype(source)>, ExplicitStates>) {
          source.states = StateList(std::vector<CanonicalState>(
              source.states.begin(), source.states.begin() + static_cast<std::ptrdiff_t>(m)));
        } else {
          source.count = m;
        }
      },
      s.initial_conditions);
  for (TrajectorySelection* selection :
       {&s.outputs.initial_states, &s.outputs.final_states, &s.outputs.sampled}) {
    std::erase_if(selection->indices, [&](std::int64_t i) { return i >= m; });
  }
  return s;
}

/// The statistics of the first m trajectories from `prefix`, a partial covering [0, m): the first
/// m trajectories are a spec of their own (counts and output selections cut), checked once more
/// here; the run itself used `problem`.
EnsembleResult finish_first(const Problem& problem, PartialResult prefix, int threads) {
  const std::int64_t m = prefix_end(prefix);
  prefix.n_trajectories = m;
  return finish(first_trajectories(problem.spec(), m), std::move(prefix), threads);
}

/// The relative standard error of `target` over the trajectories of `partial`.
double relative_stderr_over(const PreparedSpec& pr, const PreparedTarget& target,
                            const PartialResult& partial) {
  const std::size_t c = target.choice;
  return target_relative_stderr(target, partial.choices.at(c),
                                sample_times(pr.choices[c], pr.n_steps[c]), pr.observables.size());
}

}  // namespace

bool until_reached(const EnsembleSpec& spec, const PartialResult& prefix,
                   std::vector<double>* relative_stderr) {
  return until_reached(Problem(spec), prefix, relative_stderr);
}

bool until_reached(const Problem& problem, const PartialResult& prefix,
                   std::vector<double>* relative_stderr) {
  if (problem.is_sweep()) throw SpecError("until", "not with a sweep");
  const PreparedSpec& pr = problem.prepared();
  const std::int64_t m = prefix_end(prefix);
  bool reached = !pr.until.empty() && m > 0;
  if (relative_stderr != nullptr) relative_stderr->clear();
  for (const PreparedTarget& target : pr.until) {
    const double relative =
        m > 0 ? relative_stderr_over(pr, target, prefix) : std::numeric_limits<double>::quiet_NaN();
    reached = reached && relative <= target.relative_stderr;
    if (relative_stderr != nullptr) relative_stderr->push_back(relative);
  }
  return reached;
}

std::int64_t until_planned_count(const Problem& problem, const RunOptions& options) {
  if (problem.is_sweep()) throw SpecError("until", "not with a sweep");
  const std::int64_t n = trajectory_count(problem.spec());
  if (n <= kUntilMinRounds * kUntilRound) return n;
  RunOptions quiet = options;
  quiet.progress = nullptr;
  quiet.steps = nullptr;
  const PartialResult pilot = run_partial(problem, {n - kUntilRound, n}, quiet);
  const PreparedSpec& pr = problem.prepared();
  double rounds = static_cast<double>(kUntilMinRounds);
  for (const PreparedTarget& target : pr.until) {
    const double ratio = relative_stderr_over(pr, target, pilot) / target.relative_stderr;
    const double needed = kUntilPlanInflation * ratio * ratio;
    if (!(needed * kUntilRound < static_cast<double>(n))) return n;  // NaN too: undefined
    rounds = std::max(rounds, needed);
  }
  return std::min(n, static_cast<std::int64_t>(std::ceil(rounds)) * kUntilRound);
}

EnsembleResult finish_until(const EnsembleSpec& spec, PartialResult prefix, std::int64_t planned,
                            int threads) {
  return finish_until(Problem(spec), std::move(prefix), planned, threads);
}

EnsembleResult finish_until(const Problem& problem, PartialResult prefix, std::int64_t planned,
                            int threads) {
  const EnsembleSpec& spec = problem.spec();
  UntilOutcome until;
  until.requested = spec.until.active();
  until.trajectories_cap = trajectory_count(spec);
  until.trajectories_planned = planned;
  until.reached = until_reached(problem, prefix, &until.relative_stderr);
  until.trajectories_used = prefix_end(prefix);
  EnsembleResult result = finish_first(problem, std::move(prefix), threads);
  result.until = std::move(until);
  return result;
}

EnsembleResult finish_prefix(const Problem& problem, PartialResult prefix, int threads) {
  EnsembleResult result = finish_first(problem, std::move(prefix), threads);
  result.partial = true;
  return result;
}

EnsembleResult run_ensemble(const EnsembleSpec& spec, const RunOptions& options) {
  return run_ensemble(Problem(spec), options);
}

EnsembleResult run_ensemble(const Problem& problem, const RunOptions& options) {
  const EnsembleSpec& spec = problem.spec();
  const std::int64_t n = trajectory_count(spec);
  if (!spec.until.active()) {
    return finish(problem, run_partial(problem, {0, n}, options), options.threads);
  }
  // Rounds in index order, the targets checked after each from the planned count on (UntilSpec).
  const std::int64_t planned = until_planned_count(problem, options);
  const auto choices = static_cast<std::int64_t>(spec.integrators.size());
  PartialResult done;
  for (std::int64_t m = 0; m < n;) {
    const std::int64_t end = std::min(n, m + kUntilRound);
    RunOptions round = options;
    if (options.progress) {
      round.progress = [&, base = m * choices](std::int64_t d, std::int64_t) {
        options.progress(base + d, n * choices);
      };
    }
    PartialResult part = run_partial(problem, {m, end}, round);
    if (m == 0) {
      done = std::move(part);
    } else {
      merge_partial(done, part);
    }
    m = end;
    if (options.cancel != nullptr && options.cancel->load()) {
      return finish_cancelled(problem, std::move(done), options.threads);
    }
    if (m >= planned && until_reached(problem, done)) break;
  }
  return finish_until(problem, std::move(done), planned, options.threads);
}

}  // namespace nhsim
