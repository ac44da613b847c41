// The bias of a run to a requested precision (`until`): the statistic where the
// run stopped, against an unbiased reference on the same seeds, for nhsim's rule (a count
// planned from a pilot, run_ensemble) and for the sequential rule it replaced (stop at the first
// round where the targets hold).
//
//   nhsim_until_bias [--runs 200] [--target 0.1] [--reference-rounds 12] [--threads 0]
//
// Each run is one generator seed (1, 2, ...) of the heavy-tailed case: rk4 at h = 0.2 on the
// chaotic quartic system (n = 3, the variance example's energy shell, excess kurtosis about 11),
// t_final = 1000, target: b of the energy error's variance growth. The reference is b over the
// seed's first REFERENCE_ROUNDS x 320 trajectories, a fixed count, so unbiased: b is linear in
// the unbiased variances. Paired on a seed, a rule's b minus the reference's shares most of its
// trajectories, so the mean difference over the runs measures the bias with a small standard
// error. Prints, per rule, the bias relative to b with its standard error, the mean count, and
// how many runs stopped at the fewest rounds the rule allows. Two cores: 3.6 minutes for 600 runs
// at a 10 % target (docs/statistics.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <vector>

#include "nhsim/ensemble.hpp"

namespace {

nhsim::EnsembleSpec heavy_tailed_spec(std::uint64_t seed, double target) {
  nhsim::EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.parameters = {{"n", 3}};
  nhsim::EnergyShellGenerator g;
  g.energy = 3.06;
  g.seed = seed;
  g.count = 20000;
  s.initial_conditions = g;
  nhsim::IntegratorChoice c;
  c.integrator = "rk4";
  c.h = 0.2;
  c.sample_every = 20;
  s.integrators.push_back(c);
  s.t_final = 1000.0;
  nhsim::PrecisionTarget b;
  b.integrator = "rk4";
  b.statistic = nhsim::PrecisionTarget::Statistic::kGrowthDrift;
  b.relative_stderr = target;
  s.until.targets = {b};
  return s;
}

double drift(const nhsim::EnsembleResult& r) {
  return r.integrators.at(0).observables.at(0).variance_growth.b;
}

/// Mean and standard error of the mean.
struct MeanSe {
  double mean = 0.0, se = 0.0;
};

MeanSe mean_se(const std::vector<double>& x) {
  double sum = 0.0;
  for (double v : x) sum += v;
  const double mean = sum / static_cast<double>(x.size());
  double ss = 0.0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double n = static_cast<double>(x.size());
  return {mean, std::sqrt(ss / (n - 1.0) / n)};
}

struct Rule {
  const char* name;
  std::int64_t fewest;  ///< the fewest trajectories the rule can stop at
  std::vector<double> minus_reference, count;
  int at_fewest = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int runs = 200, threads = 0;
  double target = 0.1;
  std::int64_t reference_rounds = 12;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) {
      runs = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--target") == 0) {
      target = std::atof(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--reference-rounds") == 0) {
      reference_rounds = std::atoll(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--threads") == 0) {
      threads = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (argc % 2 != 1 || runs < 2 || reference_rounds < 1) {
    std::fprintf(stderr, "usage: %s [--runs N >= 2] [--target R] [--reference-rounds K >= 1]\n",
                 argv[0]);
    return 2;
  }
  try {
    nhsim::RunOptions options;
    options.threads = threads;
    Rule planned{
        "planned from a pilot (nhsim)", nhsim::kUntilMinRounds * nhsim::kUntilRound, {}, {}, 0};
    Rule sequential{"sequential (before)", nhsim::kUntilRound, {}, {}, 0};
    std::vector<double> reference;
    for (int r = 0; r < runs; ++r) {
      const nhsim::Problem problem(heavy_tailed_spec(static_cast<std::uint64_t>(r) + 1, target));
      const nhsim::EnsembleResult stopped = nhsim::run_ensemble(problem, options);
      const std::int64_t m_planned = stopped.until.trajectories_used;
      const std::int64_t plan = stopped.until.trajectories_planned;  // reported only
      // Rounds in index order: the sequential rule's stop and the reference's count.
      const std::int64_t m_reference = reference_rounds * nhsim::kUntilRound;
      nhsim::PartialResult prefix;
      const std::int64_t cap = stopped.until.trajectories_cap;
      std::int64_t m = 0, m_sequential = 0;
      double b_sequential = 0.0, b_reference = 0.0;
      while (m < cap && (m_sequential == 0 || m < m_reference || m < m_planned)) {
        const std::int64_t end = std::min(cap, m + nhsim::kUntilRound);
        nhsim::PartialResult round = nhsim::run_partial(problem, {m, end}, options);
        if (m == 0) {
          prefix = std::move(round);
        } else {
          nhsim::merge_partial(prefix, round);
        }
        m = end;
        if (m_sequential == 0 && (nhsim::until_reached(problem, prefix) || m == cap)) {
          m_sequential = m;
          b_sequential = drift(nhsim::finish_until(problem, prefix, plan));
        }
        if (m == m_reference) b_reference = drift(nhsim::finish_until(problem, prefix, plan));
        if (m == m_planned && drift(nhsim::finish_until(problem, prefix, plan)) != drift(stopped)) {
          std::fprintf(stderr, "seed %d: run_ensemble's b differs from its prefix's\n", r + 1);
          return 1;
        }
      }
      reference.push_back(b_reference);
      for (auto [rule, count, b] : {std::tuple{&planned, m_planned, drift(stopped)},
                                    std::tuple{&sequential, m_sequential, b_sequential}}) {
        rule->minus_reference.push_back(b - b_reference);
        rule->count.push_back(static_cast<double>(count));
        rule->at_fewest += count == rule->fewest ? 1 : 0;
      }
    }
    const MeanSe b = mean_se(reference);
    std::printf(
        "rk4 h = 0.2, b of the energy error to a %.3g relative standard error, %d runs (seeds "
        "1..%d)\nreference: b over the first %lld trajectories = %.5g +- %.2g\n",
        target, runs, runs, static_cast<long long>(reference_rounds * nhsim::kUntilRound), b.mean,
        b.se);
    std::printf("%-30s %18s %16s %14s\n", "rule", "bias (%)", "mean count", "at fewest");
    for (const Rule* rule : {&planned, &sequential}) {
      const MeanSe d = mean_se(rule->minus_reference);
      std::printf("%-30s %8.2f +- %6.2f %16.0f %8d (%lld)\n", rule->name, 100.0 * d.mean / b.mean,
                  100.0 * d.se / b.mean, mean_se(rule->count).mean, rule->at_fewest,
                  static_cast<long long>(rule->fewest));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
