// Peak resident memory of one ensemble run, to show it does not grow with the number of
// trajectories (statistics stream; trajectories are not stored).
// Usage: build/bench/nhsim_peak_memory TRAJECTORIES [INTEGRATOR]
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "nhsim/ensemble.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRAJECTORIES [INTEGRATOR]\n", argv[0]);
    return 2;
  }
  nhsim::EnsembleSpec s;
  s.system = "chaotic_quartic";
  s.initial_conditions =
      nhsim::EnergyShellGenerator{3.06, 20261122, std::atoll(argv[1]), 0.5, 10000};
  nhsim::IntegratorChoice c;
  c.integrator = argc > 2 ? argv[2] : "si_dla";
  c.h = 0.05;
  c.sample_every = 20;
  s.integrators = {c};
  s.t_final = 100.0;
  const auto r = nhsim::run_ensemble(s);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("trajectories=%lld ok=%lld peak_rss_kib=%ld\n",
              static_cast<long long>(r.n_trajectories),
              static_cast<long long>(r.integrators[0].trajectories_ok), ru.ru_maxrss);
  return 0;
}
