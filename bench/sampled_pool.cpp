// The sampled observable of every trajectory of one ensemble on the chaotic quartic system (n = 3,
// the variance example's energy shell), for bench/interval-candidates: many
// independent samples from which interval methods are compared on the same seeds.
//
//   nhsim_sampled_pool INTEGRATOR H T_FINAL SAMPLE_EVERY COUNT SEED OBSERVABLE OUT
//
// OUT (float64, little-endian): the number of trajectories n and of samples s (as int64), the s
// sample times, then each trajectory's s values, in index order. Every trajectory must succeed.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "nhsim/ensemble.hpp"

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: %s INTEGRATOR H T_FINAL SAMPLE_EVERY COUNT SEED OBSERVABLE OUT\n",
                 argv[0]);
    return 2;
  }
  try {
    nhsim::EnsembleSpec s;
    s.system = "chaotic_quartic";
    s.parameters = {{"n", 3}};
    nhsim::EnergyShellGenerator g;
    g.energy = 3.06;
    g.count = std::atoll(argv[5]);
    g.seed = std::strtoull(argv[6], nullptr, 10);
    s.initial_conditions = g;
    nhsim::IntegratorChoice c;
    c.integrator = argv[1];
    c.h = std::atof(argv[2]);
    c.sample_every = std::atoll(argv[4]);
    s.integrators.push_back(c);
    s.t_final = std::atof(argv[3]);
    s.observables = {argv[7]};
    s.outputs.sampled.all = true;
    const nhsim::IntegratorResult r = nhsim::run_ensemble(s).integrators.at(0);
    if (r.trajectories_failed != 0) {
      std::fprintf(stderr, "%lld trajectories failed\n",
                   static_cast<long long>(r.trajectories_failed));
      return 1;
    }
    FILE* out = std::fopen(argv[8], "wb");
    if (out == nullptr) {
      std::perror(argv[8]);
      return 1;
    }
    const auto n = static_cast<long long>(r.outputs.sampled.size());
    const auto samples = static_cast<long long>(r.sample_times.size());
    std::fwrite(&n, sizeof n, 1, out);
    std::fwrite(&samples, sizeof samples, 1, out);
    std::fwrite(r.sample_times.data(), sizeof(double), r.sample_times.size(), out);
    for (const nhsim::SampledTrajectory& t : r.outputs.sampled) {
      std::fwrite(t.values.data(), sizeof(double), t.values.size(), out);
    }
    return std::fclose(out) == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
