// Per-trajectory outputs and histograms (outputs.hpp).
#include "outputs.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace nhsim {
namespace {

std::string at(const std::string& field, std::size_t k) {
  return field + "[" + std::to_string(k) + "]";
}

void check_selection(const TrajectorySelection& s, const std::string& field, std::int64_t n) {
  if (s.all && !s.indices.empty()) {
    throw SpecError(field + ".indices", "give either all or indices, not both");
  }
  for (std::size_t k = 0; k < s.indices.size(); ++k) {
    const std::int64_t i = s.indices[k];
    if (i < 0 || i >= n) {
      throw SpecError(
          at(field + ".indices", k),
          std::to_string(i) + " is not a trajectory index in [0, " + std::to_string(n) + ")");
    }
    if (k > 0 && i <= s.indices[k - 1]) {
      throw SpecError(at(field + ".indices", k), "indices must be strictly increasing");
    }
  }
}

/// The sample index of time t for a choice (h, sample_every, n_steps), or -1 when t is not one
/// of its sample times (k sample_every h, and t_final).
std::int64_t sample_index_of(double t, const IntegratorChoice& c, std::int64_t n_steps) {
  const double ratio = t / c.h;
  if (!(ratio >= 0.0) || ratio > static_cast<double>(n_steps) + 0.5) return -1;
  const auto step = static_cast<std::int64_t>(std::llround(ratio));
  if (std::abs(static_cast<double>(step) * c.h - t) > 1e-9 * std::max(1.0, std::abs(t))) {
    return -1;
  }
  if (step == n_steps) {  // t_final: the last sample
    return n_steps / c.sample_every + (n_steps % c.sample_every != 0 ? 1 : 0);
  }
  if (step % c.sample_every != 0) return -1;
  return step / c.sample_every;
}

PreparedHistogram prepare_histogram(const HistogramSpec& h, const std::string& field,
                                    const std::vector<ObsDef>& observables,
                                    const std::vector<IntegratorChoice>& choices,
                                    const std::vector<std::int64_t>& n_steps) {
  PreparedHistogram out;
  const auto found = std::find_if(observables.begin(), observables.end(),
                                  [&](const ObsDef& o) { return o.name == h.observable; });
  if (found == observables.end()) {
    std::string known;
    for (const ObsDef& o : observables) known += (known.empty() ? "" : ", ") + o.name;
    throw SpecError(
        field + ".observable",
        "'" + h.observable.substr(0, 64) + "' is not an observable of this spec; it has " + known);
  }
  out.observable = static_cast<std::size_t>(found - observables.begin());
  if (h.edges.size() < 2)
    throw SpecError(field + ".edges", "at least 2 edges (one bin) are needed");
  for (std::size_t k = 0; k < h.edges.size(); ++k) {
    if (!std::isfinite(h.edges[k])) throw SpecError(at(field + ".edges", k), "must be finite");
    if (k > 0 && !(h.edges[k] > h.edges[k - 1])) {
      throw SpecError(at(field + ".edges", k), "edges must be strictly increasing");
    }
  }
  out.edges = h.edges;
  if (h.times.empty()) throw SpecError(field + ".times", "at least one sample time is needed");
  out.sample_index.resize(choices.size());
  for (std::size_t j = 0; j < h.times.size(); ++j) {
    for (std::size_t ci = 0; ci < choices.size(); ++ci) {
      const std::int64_t k = sample_index_of(h.times[j], choices[ci], n_steps[ci]);
      if (k < 0) {
        std::ostringstream os;
        os.precision(17);
        os << h.times[j] << " is not a sample time of integrators[" << ci
           << "] (h = " << choices[ci].h << ", sample_every = " << choices[ci].sample_every << ")";
        throw SpecError(at(field + ".times", j), os.str());
      }
      out.sample_index[ci].push_back(k);
    }
  }
  return out;
}

}  // namespace

PreparedOutputs prepare_outputs(const OutputSpec& spec, std::int64_t n_trajectories,
                                const std::vector<ObsDef>& observables,
                                const std::vector<IntegratorChoice>& choices,
                                const std::vector<std::int64_t>& n_steps) {
  PreparedOutputs out;
  out.spec = spec;
  check_selection(spec.initial_states, "outputs.initial_states", n_trajectories);
  check_selection(spec.final_states, "outputs.final_states", n_trajectories);
  check_selection(spec.sampled, "outputs.sampled", n_trajectories);
  if (spec.sampled_state && spec.sampled.empty()) {
    throw SpecError("outputs.sampled_state",
                    "does not apply: no trajectory is sampled "
                    "(outputs.sampled selects none)");
  }
  for (std::size_t k = 0; k < spec.histograms.size(); ++k) {
    out.histograms.push_back(prepare_histogram(spec.histograms[k], at("outputs.histograms", k),
                                               observables, choices, n_steps));
    out.histogram_cells += spec.histograms[k].times.size() * (spec.histograms[k].edges.size() + 2);
  }
  return out;
}

bool selected(const TrajectorySelection& selection, std::int64_t i) {
  return selection.all || std::binary_search(selection.indices.begin(), selection.indices.end(), i);
}

std::int64_t selected_count(const TrajectorySelection& selection, std::int64_t n) {
  return selection.all ? n : static_cast<std::int64_t>(selection.indices.size());
}

void add_to_histograms(const PreparedOutputs& outputs, std::size_t ci, const double* samples,
                       std::size_t n_observables, std::vector<std::int64_t>& counts) {
  std::size_t base = 0;
  for (const PreparedHistogram& h : outputs.histograms) {
    const std::size_t n_bins = h.edges.size() - 1;
    for (const std::int64_t k : h.sample_index[ci]) {
      const double v = samples[static_cast<std::size_t>(k) * n_observables + h.observable];
      std::size_t cell = 0;
      if (!std::isfinite(v)) {
        cell = n_bins + 2;
      } else if (v < h.edges.front()) {
        cell = n_bins;
      } else if (v > h.edges.back()) {
        cell = n_bins + 1;
      } else {  // the bin [e_k, e_k+1) holding v; the last bin is closed
        const auto upper = std::upper_bound(h.edges.begin(), h.edges.end(), v);
        cell = std::min<std::size_t>(static_cast<std::size_t>(upper - h.edges.begin()) - 1,
                                     n_bins - 1);
      }
      ++counts[base + cell];
      base += n_bins + 3;
    }
  }
}

std::vector<HistogramResult> histogram_results(const PreparedOutputs& outputs,
                                               const std::vector<double>& sample_times,
                                               std::size_t ci,
                                               const std::vector<std::int64_t>& counts) {
  std::vector<HistogramResult> out;
  std::size_t base = 0;
  for (std::size_t m = 0; m < outputs.histograms.size(); ++m) {
    const PreparedHistogram& h = outputs.histograms[m];
    const std::size_t n_bins = h.edges.size() - 1;
    HistogramResult r;
    r.observable = outputs.spec.histograms[m].observable;
    r.edges = h.edges;
    for (const std::int64_t k : h.sample_index[ci]) {
      HistogramCounts c;
      c.time = sample_times[static_cast<std::size_t>(k)];
      const auto first = counts.begin() + static_cast<std::ptrdiff_t>(base);
      c.counts.assign(first, first + static_cast<std::ptrdiff_t>(n_bins));
      c.below = counts[base + n_bins];
      c.above = counts[base + n_bins + 1];
      c.non_finite = counts[base + n_bins + 2];
      r.at.push_back(std::move(c));
      base += n_bins + 3;
    }
    out.push_back(std::move(r));
  }
  return out;
}

template <class Record>
void merge_by_trajectory(std::vector<Record>& into, const std::vector<Record>& from) {
  const auto middle = static_cast<std::ptrdiff_t>(into.size());
  into.insert(into.end(), from.begin(), from.end());
  std::inplace_merge(into.begin(), into.begin() + middle, into.end(),
                     [](const Record& a, const Record& b) { return a.trajectory < b.trajectory; });
}

template void merge_by_trajectory(std::vector<TrajectoryState>&,
                                  const std::vector<TrajectoryState>&);
template void merge_by_trajectory(std::vector<SampledTrajectory>&,
                                  const std::vector<SampledTrajectory>&);
template void merge_by_trajectory(std::vector<TrajectorySummary>&,
                                  const std::vector<TrajectorySummary>&);

double output_bytes(const PreparedOutputs& outputs, std::int64_t n_trajectories, int nq,
                    std::size_t n_observables, const std::vector<std::int64_t>& n_samples) {
  const OutputSpec& s = outputs.spec;
  const double state = 8.0 * 2.0 * nq + 16.0;
  double bytes = static_cast<double>(selected_count(s.initial_states, n_trajectories)) * state;
  const auto sampled = static_cast<double>(selected_count(s.sampled, n_trajectories));
  const double per_sample =
      8.0 * (static_cast<double>(n_observables) + (s.sampled_state ? 2.0 * nq : 0.0));
  for (const std::int64_t samples : n_samples) {
    bytes += static_cast<double>(selected_count(s.final_states, n_trajectories)) * state;
    bytes += sampled * (per_sample * static_cast<double>(samples) + 32.0);
    if (s.summary) bytes += 48.0 * static_cast<double>(n_trajectories);
    bytes += 8.0 * static_cast<double>(outputs.histogram_cells);
  }
  return bytes;
}

}  // namespace nhsim
