// The peers of bench/peers: nhsim's ensemble in process, and the loop a C++ user would
// write instead with Boost.Odeint's runge_kutta4 over oneTBB, on the chaotic quartic system
// (n = 3, [Celledoni2019] §4.1) from the same initial states.
//
//   nhsim_peers states N FILE
//       writes trajectories 0..N-1 of the energy-shell generator (E = 3.06, seed 20261122) to
//       FILE: N rows of 14 float64 (q[7], p[7]), native byte order.
//   nhsim_peers nhsim INTEGRATOR FILE N THREADS T_FINAL [SAMPLE_EVERY]
//       run_ensemble over the first N states of FILE as explicit states, h = 0.05, statistics
//       of the three default observables every 20 steps (or every SAMPLE_EVERY: as many as the
//       steps to t_final leaves only the first and last sample, i.e. the steps' own cost).
//   nhsim_peers odeint FILE N THREADS T_FINAL
//       the peer: boost::numeric::odeint::runge_kutta4 on the reduced ODE of [Celledoni2019]
//       eq. (9), tbb::parallel_for over trajectories, Welford mean and variance, min and max of
//       the same three observables at the same sample times, merged over threads (Chan et al.).
//   nhsim_peers final INTEGRATOR FILE N STEPS OUT
//       nhsim's stepper from each of the first N states for STEPS steps; writes the final
//       (q, p) rows to OUT (the numpy peer checks itself against them).
//   nhsim_peers check-odeint FILE N STEPS
//       the largest difference between the Odeint peer's and nhsim's rk4 states after STEPS
//       steps, relative to the largest component.
// The timed modes print "seconds S trajectory_steps K checksum C": S is the wall time of the
// ensemble alone (states already in memory; nothing printed or written inside it), C a sum over
// the statistics so that nothing is optimised away and runs can be compared.
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "nhsim/ensemble.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model_impl.hpp"
#include "nhsim/systems/chaotic_quartic.hpp"

namespace {

constexpr double kH = 0.05;
constexpr std::int64_t kSampleEvery = 20;
constexpr int kNq = 7;

using Sys = nhsim::ChaoticQuartic<3>;

/// N rows of (q[7], p[7]).
std::vector<double> read_states(const std::string& file, std::int64_t n) {
  std::vector<double> s(static_cast<std::size_t>(n * 2 * kNq));
  std::ifstream in(file, std::ios::binary);
  in.read(reinterpret_cast<char*>(s.data()), static_cast<std::streamsize>(s.size() * 8));
  if (!in) {
    std::fprintf(stderr, "cannot read %lld states from %s\n", static_cast<long long>(n),
                 file.c_str());
    std::exit(1);
  }
  return s;
}

void write_rows(const std::string& file, const std::vector<double>& rows) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(rows.data()),
            static_cast<std::streamsize>(rows.size() * 8));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", file.c_str());
    std::exit(1);
  }
}

int states(std::int64_t n, const std::string& file) {
  nhsim::ModelImpl<Sys> model(Sys(3));
  const nhsim::EnergyShellGenerator g{3.06, 20261122, n, 0.5, 10000};
  std::vector<double> rows;
  Eigen::VectorXd q, p;
  std::string reason;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!nhsim::energy_shell_state(model, g, i, q, p, reason)) {
      std::fprintf(stderr, "trajectory %lld: %s\n", static_cast<long long>(i), reason.c_str());
      return 1;
    }
    rows.insert(rows.end(), q.begin(), q.end());
    rows.insert(rows.end(), p.begin(), p.end());
  }
  write_rows(file, rows);
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run_nhsim(const std::string& integrator, const std::string& file, std::int64_t n, int threads,
              double t_final, std::int64_t sample_every) {
  const std::vector<double> rows = read_states(file, n);
  nhsim::EnsembleSpec s;
  s.system = "chaotic_quartic";
  nhsim::ExplicitStates states;
  for (std::int64_t i = 0; i < n; ++i) {
    const double* r = rows.data() + i * 2 * kNq;
    states.states.push_back({{r, r + kNq}, {r + kNq, r + 2 * kNq}});
  }
  s.initial_conditions = std::move(states);
  nhsim::IntegratorChoice c;
  c.integrator = integrator;
  c.h = kH;
  c.sample_every = sample_every;
  s.integrators = {c};
  s.t_final = t_final;
  nhsim::RunOptions o;
  o.threads = threads;
  const auto t0 = std::chrono::steady_clock::now();
  const nhsim::EnsembleResult r = nhsim::run_ensemble(s, o);
  const double secs = seconds_since(t0);
  double checksum = 0.0;
  for (const auto& obs : r.integrators[0].observables) {
    for (double v : obs.variance) checksum += v;
  }
  std::printf("seconds %.6f trajectory_steps %lld checksum %.17g\n", secs,
              static_cast<long long>(r.integrators[0].steps_completed), checksum);
  return r.integrators[0].trajectories_ok == n ? 0 : 1;
}

// ---- the Odeint peer, written as a user would: the reduced vector field by hand ----

/// zeta = (x, w[3], z[3], xi[3], eta[3]) on D*, [Celledoni2019] eq. (21)
/// (nhsim/systems/chaotic_quartic.hpp for the frame and the corrections to the printed equation).
using Zeta = std::array<double, 13>;

struct ReducedField {
  void operator()(const Zeta& s, Zeta& out, double /*t*/) const {
    const double* w = &s[1];
    const double* z = &s[4];
    const double* xi = &s[7];
    const double* eta = &s[10];
    const double k = (w[0] * eta[0] + w[1] * eta[1] + w[2] * eta[2]) /
                     (1.0 + w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double gw[3], gz[3], ge[3];
    for (int i = 0; i < 3; ++i) {
      gw[i] = w[i] + w[i] * z[i] * z[i] - k * eta[i] + k * k * w[i];
      gz[i] = z[i] + w[i] * w[i] * z[i];
      ge[i] = eta[i] - k * w[i];
    }
    gz[0] += z[0] * z[1] * z[1];
    gz[1] += z[0] * z[0] * z[1];
    out[0] = w[0] * ge[0] + w[1] * ge[1] + w[2] * ge[2];
    for (int i = 0; i < 3; ++i) {
      out[1 + i] = xi[i];
      out[4 + i] = -ge[i];
      out[7 + i] = -gw[i] - k * ge[i];
      out[10 + i] = -w[i] * s[0] + gz[i] + k * xi[i];
    }
  }
};

Zeta to_zeta(const double* q, const double* p) {
  Zeta s{};
  std::copy(q, q + kNq, s.begin());
  for (int i = 0; i < 3; ++i) {
    s[7 + i] = p[1 + i];
    s[10 + i] = q[1 + i] * p[0] - p[4 + i];
  }
  return s;
}

/// Canonical p from zeta ([Celledoni2019] eq. (16a)), then H = |p|^2 / 2 + V(q) and the constraint
/// residual |p_x + w . p_z|: the observables energy_error, relative_energy_error and
/// constraint_residual, as nhsim computes them.
void energy_and_residual(const Zeta& s, double& energy, double& residual) {
  const double* w = &s[1];
  const double* z = &s[4];
  const double k = (w[0] * s[10] + w[1] * s[11] + w[2] * s[12]) /
                   (1.0 + w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double p[kNq];
  double px = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double u = s[10 + i] - k * w[i];
    px += w[i] * u;
    p[1 + i] = s[7 + i];
    p[4 + i] = -u;
  }
  p[0] = px;
  double pp = 0.0, qq = 0.0;
  for (int j = 0; j < kNq; ++j) {
    pp += p[j] * p[j];
    qq += s[j] * s[j];
  }
  double v = qq + z[0] * z[0] * z[1] * z[1];
  for (int i = 0; i < 3; ++i) v += w[i] * w[i] * z[i] * z[i];
  energy = 0.5 * pp + 0.5 * v;
  residual = std::abs(p[0] + w[0] * p[4] + w[1] * p[5] + w[2] * p[6]);
}

struct Welford {
  std::int64_t n = 0;
  double mean = 0.0, m2 = 0.0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
    min = std::min(min, x);
    max = std::max(max, x);
  }
  /// Chan, Golub & LeVeque's pairwise update.
  void merge(const Welford& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double na = static_cast<double>(n), nb = static_cast<double>(o.n);
    const double d = o.mean - mean;
    mean += d * nb / (na + nb);
    m2 += o.m2 + d * d * na * nb / (na + nb);
    n += o.n;
    min = std::min(min, o.min);
    max = std::max(max, o.max);
  }
  double variance() const { return n > 1 ? m2 / static_cast<double>(n - 1) : 0.0; }
};

std::int64_t steps_of(double t_final) { return std::llround(t_final / kH); }

int run_odeint(const std::string& file, std::int64_t n, int threads, double t_final) {
  const std::vector<double> rows = read_states(file, n);
  const std::int64_t n_steps = steps_of(t_final);
  const std::int64_t n_samples = n_steps / kSampleEvery + (n_steps % kSampleEvery != 0 ? 1 : 0) + 1;
  const auto n_cells = static_cast<std::size_t>(n_samples * 3);
  const auto t0 = std::chrono::steady_clock::now();
  tbb::enumerable_thread_specific<std::vector<Welford>> local(n_cells);
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n), [&](const auto& r) {
      std::vector<Welford>& cells = local.local();
      boost::numeric::odeint::runge_kutta4<Zeta> rk4;
      const ReducedField field;
      for (std::int64_t i = r.begin(); i < r.end(); ++i) {
        const double* row = rows.data() + i * 2 * kNq;
        Zeta s = to_zeta(row, row + kNq);
        double h0 = 0.0, e = 0.0, res = 0.0;
        energy_and_residual(s, h0, res);
        auto sample = [&](std::int64_t k) {
          energy_and_residual(s, e, res);
          Welford* c = &cells[static_cast<std::size_t>(k * 3)];
          c[0].add(e - h0);
          c[1].add(std::abs(e - h0) / std::abs(h0));
          c[2].add(res);
        };
        sample(0);
        double t = 0.0;
        for (std::int64_t k = 1; k < n_samples; ++k) {
          const std::int64_t todo = std::min(kSampleEvery, n_steps - (k - 1) * kSampleEvery);
          for (std::int64_t j = 0; j < todo; ++j) {
            rk4.do_step(field, s, t, kH);
            t += kH;
          }
          sample(k);
        }
      }
    });
  });
  std::vector<Welford> total(n_cells);
  for (const auto& cells : local) {
    for (std::size_t j = 0; j < n_cells; ++j) total[j].merge(cells[j]);
  }
  const double secs = seconds_since(t0);
  double checksum = 0.0;
  for (const Welford& w : total) checksum += w.variance();
  std::printf("seconds %.6f trajectory_steps %lld checksum %.17g\n", secs,
              static_cast<long long>(n * n_steps), checksum);
  return 0;
}

/// nhsim's stepper `integrator` from each state for `steps` steps; rows of the final (q, p).
std::vector<double> nhsim_final(const std::string& integrator, const std::vector<double>& rows,
                                std::int64_t n, std::int64_t steps) {
  nhsim::ModelImpl<Sys> model(Sys(3));
  nhsim::IntegratorChoice c;
  c.integrator = integrator;
  c.h = kH;
  auto st = model.make_stepper(c);
  std::vector<double> out;
  Eigen::VectorXd q(kNq), p(kNq);
  for (std::int64_t i = 0; i < n; ++i) {
    const double* r = rows.data() + i * 2 * kNq;
    q = Eigen::Map<const Eigen::VectorXd>(r, kNq);
    p = Eigen::Map<const Eigen::VectorXd>(r + kNq, kNq);
    st->set_state(q, p);
    if (st->advance(steps).status != nhsim::StepStatus::kOk) {
      std::fprintf(stderr, "trajectory %lld failed\n", static_cast<long long>(i));
      std::exit(1);
    }
    st->get_state(q, p);
    out.insert(out.end(), q.begin(), q.end());
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

int check_odeint(const std::string& file, std::int64_t n, std::int64_t steps) {
  const std::vector<double> rows = read_states(file, n);
  const std::vector<double> ref = nhsim_final("rk4", rows, n, steps);
  boost::numeric::odeint::runge_kutta4<Zeta> rk4;
  double worst = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double* r = rows.data() + i * 2 * kNq;
    Zeta s = to_zeta(r, r + kNq);
    double t = 0.0;
    for (std::int64_t j = 0; j < steps; ++j, t += kH) rk4.do_step(ReducedField{}, s, t, kH);
    const double* want = ref.data() + i * 2 * kNq;
    const Zeta w = to_zeta(want, want + kNq);
    double scale = 0.0, diff = 0.0;
    for (int j = 0; j < 13; ++j) {
      scale = std::max(scale, std::abs(w[static_cast<std::size_t>(j)]));
      diff =
          std::max(diff, std::abs(s[static_cast<std::size_t>(j)] - w[static_cast<std::size_t>(j)]));
    }
    worst = std::max(worst, diff / scale);
  }
  std::printf(
      "odeint rk4 against nhsim rk4, %lld trajectories x %lld steps: largest relative "
      "difference %.3g\n",
      static_cast<long long>(n), static_cast<long long>(steps), worst);
  return 0;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s states N FILE\n"
               "       %s nhsim INTEGRATOR FILE N THREADS T_FINAL [SAMPLE_EVERY]\n"
               "       %s odeint FILE N THREADS T_FINAL\n"
               "       %s final INTEGRATOR FILE N STEPS OUT\n"
               "       %s check-odeint FILE N STEPS\n",
               argv0, argv0, argv0, argv0, argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "states" && argc == 4) return states(std::atoll(argv[2]), argv[3]);
  if (mode == "nhsim" && (argc == 7 || argc == 8)) {
    return run_nhsim(argv[2], argv[3], std::atoll(argv[4]), std::atoi(argv[5]), std::atof(argv[6]),
                     argc == 8 ? std::atoll(argv[7]) : kSampleEvery);
  }
  if (mode == "odeint" && argc == 6) {
    return run_odeint(argv[2], std::atoll(argv[3]), std::atoi(argv[4]), std::atof(argv[5]));
  }
  if (mode == "final" && argc == 7) {
    const std::int64_t n = std::atoll(argv[4]);
    write_rows(argv[6], nhsim_final(argv[2], read_states(argv[3], n), n, std::atoll(argv[5])));
    return 0;
  }
  if (mode == "check-odeint" && argc == 5) {
    return check_odeint(argv[2], std::atoll(argv[3]), std::atoll(argv[4]));
  }
  return usage(argv[0]);
}
