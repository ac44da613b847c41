// Internal: the per-trajectory outputs and histograms of a spec (nhsim/outputs.hpp), checked
// and bound to the spec's observables and sample times; recording, merging and sizing them.
#pragma once

#include <cstdint>
#include <vector>

#include "nhsim/outputs.hpp"
#include "nhsim/variance_growth.hpp"
#include "observables.hpp"

namespace nhsim {

/// A histogram bound to the spec: its observable's column and, per integrator choice, the
/// sample index of each of its times.
struct PreparedHistogram {
  std::size_t observable = 0;
  std::vector<double> edges;
  std::vector<std::vector<std::int64_t>> sample_index;  ///< [choice][time]
};

struct PreparedOutputs {
  OutputSpec spec;
  std::vector<PreparedHistogram> histograms;
  /// Counts per histogram and time: the bins, then below, above and non-finite.
  std::size_t histogram_cells = 0;
};

/// Checks `spec` against the ensemble (n_trajectories, its resolved observables, each choice's
/// sample_every and n_steps). Throws SpecError naming the field ("outputs.sampled.indices[2]",
/// "outputs.histograms[0].times[1]", ...).
PreparedOutputs prepare_outputs(const OutputSpec& spec, std::int64_t n_trajectories,
                                const std::vector<ObsDef>& observables,
                                const std::vector<IntegratorChoice>& choices,
                                const std::vector<std::int64_t>& n_steps);

/// True when trajectory i is in the selection.
bool selected(const TrajectorySelection& selection, std::int64_t i);

/// How many trajectories of [0, n) the selection holds.
std::int64_t selected_count(const TrajectorySelection& selection, std::int64_t n);

/// Adds one successful trajectory's samples ([sample * n_observables + observable]) of choice
/// `ci` to `counts` (histogram_cells entries).
void add_to_histograms(const PreparedOutputs& outputs, std::size_t ci, const double* samples,
                       std::size_t n_observables, std::vector<std::int64_t>& counts);

/// The histograms of choice `ci` from its merged counts.
std::vector<HistogramResult> histogram_results(const PreparedOutputs& outputs,
                                               const std::vector<double>& sample_times,
                                               std::size_t ci,
                                               const std::vector<std::int64_t>& counts);

/// Appends `from` to `into`, both in trajectory order and with disjoint trajectories; the
/// result is in trajectory order (blocks and partials arrive in any order).
template <class Record>
void merge_by_trajectory(std::vector<Record>& into, const std::vector<Record>& from);

/// Bytes the outputs add to the result (and, while the job runs, to its memory): 8 per value.
double output_bytes(const PreparedOutputs& outputs, std::int64_t n_trajectories, int nq,
                    std::size_t n_observables, const std::vector<std::int64_t>& n_samples);

}  // namespace nhsim
