// Ensemble validation and runner (DESIGN.md "Ensemble semantics").
//
// Parallel structure: trajectories are cut into fixed blocks of kBlock indices; a oneTBB
// pipeline runs blocks in parallel (each block sequentially, in index order) and a
// serial_in_order stage merges block statistics into the totals in block order. The result
// is therefore bit-identical for any thread count, and memory holds at most a few blocks'
// statistics at once, independent of the number of trajectories.
//
// Quantiles: a block keeps the samples of its successful trajectories (at most kBlock x
// samples x observables values); the merge stage adds them, in trajectory index order, to one
// bounded QuantileSketch per (sample, observable) of the totals, so the order of additions
// into each sketch is fixed.
#include "nhsim/ensemble.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "nhsim/catalog.hpp"
#include "nhsim/initial_conditions.hpp"
#include "nhsim/model.hpp"
#include "nhsim/quantiles.hpp"
#include "nhsim/statistics.hpp"

namespace nhsim {
namespace {

constexpr std::int64_t kBlock = 8;
constexpr double kConstraintTolerance = 1e-10;

/// kSystem: the system's own observable `index` of SystemModel::observable_names().
/// kPositionResidual / kVelocityResidual: max |g(q)| and max |G(q) M^-1 p| of a system with
/// holonomic constraints (SystemModel::ng() > 0).
enum class ObsKind {
  kEnergyError,
  kRelativeEnergyError,
  kConstraintResidual,
  kPositionResidual,
  kVelocityResidual,
  kQ,
  kP,
  kSystem
};

struct ObsDef {
  std::string name;
  ObsKind kind;
  int index = 0;
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string idx(const char* base, std::size_t i) {
  return std::string(base) + "[" + std::to_string(i) + "]";
}

std::vector<ObsDef> resolve_observables(const EnsembleSpec& spec, int nq, bool holonomic,
                                        const std::vector<std::string>& system_names) {
  std::vector<ObsDef> out;
  std::vector<std::string> defaults = {"energy_error", "relative_energy_error",
                                       "constraint_residual"};
  if (holonomic) {
    defaults.push_back("position_constraint_residual");
    defaults.push_back("velocity_constraint_residual");
  }
  const auto& names = spec.observables.empty() ? defaults : spec.observables;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    if (n == "energy_error") {
      out.push_back({n, ObsKind::kEnergyError});
    } else if (n == "relative_energy_error") {
      out.push_back({n, ObsKind::kRelativeEnergyError});
    } else if (n == "constraint_residual") {
      out.push_back({n, ObsKind::kConstraintResidual});
    } else if (holonomic && n == "position_constraint_residual") {
      out.push_back({n, ObsKind::kPositionResidual});
    } else if (holonomic && n == "velocity_constraint_residual") {
      out.push_back({n, ObsKind::kVelocityResidual});
    } else if ((n.rfind("q[", 0) == 0 || n.rfind("p[", 0) == 0) && n.back() == ']') {
      const std::string num = n.substr(2, n.size() - 3);
      std::size_t pos = 0;
      int k = -1;
      try {
        k = std::stoi(num, &pos);
      } catch (...) {
        pos = 0;
      }
      if (pos != num.size() || num.empty() || k < 0 || k >= nq) {
        throw SpecError(idx("observables", i),
                        "state component index must be in [0, " + std::to_string(nq - 1) + "]");
      }
      out.push_back({n, n[0] == 'q' ? ObsKind::kQ : ObsKind::kP, k});
    } else {
      int k = -1;
      for (std::size_t j = 0; j < system_names.size(); ++j) {
        if (system_names[j] == n) k = static_cast<int>(j);
      }
      if (k < 0) {
        throw SpecError(idx("observables", i),
                        "unknown observable '" + n + "'; known: " + join(defaults) +
                            ", q[i], p[i]" +
                            (system_names.empty() ? "" : ", " + join(system_names)));
      }
      out.push_back({n, ObsKind::kSystem, k});
    }
    for (std::size_t j = 0; j + 1 < out.size(); ++j) {
      if (out[j].name == n) throw SpecError(idx("observables", i), "duplicate observable");
    }
  }
  return out;
}

bool all_finite_vec(const std::vector<double>& v) {
  for (double x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

struct Prepared {
  const SystemEntry* entry = nullptr;
  std::map<std::string, double> parameters;
  std::unique_ptr<SystemModel> model;
  std::vector<ObsDef> observables;
  std::vector<std::int64_t> n_steps;  // per choice
};

Prepared prepare(const EnsembleSpec& spec) {
  Prepared pr;
  pr.entry = find_system(spec.system);
  if (pr.entry == nullptr) {
    std::vector<std::string> known;
    for (const auto& e : system_registry()) known.push_back(e.info.name);
    throw SpecError("system", "unknown system '" + spec.system + "'; known: " + join(known));
  }
  pr.parameters = complete_parameters(*pr.entry, spec.parameters);
  pr.model = pr.entry->make(pr.parameters);
  pr.model->set_controls(spec.controls);
  const int nq = pr.model->nq();

  if (!std::isfinite(spec.t_final) || spec.t_final <= 0.0) {
    throw SpecError("t_final", "must be finite and > 0");
  }
  if (spec.integrators.empty()) {
    throw SpecError("integrators", "at least one integrator choice is required");
  }
  std::vector<std::string> known_integrators;
  for (const auto& info : list_integrators()) known_integrators.push_back(info.name);
  for (std::size_t i = 0; i < spec.integrators.size(); ++i) {
    const auto& c = spec.integrators[i];
    const std::string f = idx("integrators", i);
    bool known = false;
    for (const auto& k : known_integrators) known = known || k == c.integrator;
    if (!known) {
      throw SpecError(f + ".integrator", "unknown integrator '" + c.integrator +
                                             "'; known: " + join(known_integrators));
    }
    if (auto why = pr.entry->not_applicable(c.integrator)) {
      throw SpecError(f + ".integrator", "does not apply to system '" + spec.system + "': " + *why);
    }
    if (!std::isfinite(c.h) || c.h <= 0.0) throw SpecError(f + ".h", "must be finite and > 0");
    if (c.sample_every < 1) throw SpecError(f + ".sample_every", "must be >= 1");
    if (!std::isfinite(c.newton_tol) || c.newton_tol < 0.0) {
      throw SpecError(f + ".newton_tol", "must be finite and >= 0 (0 = integrator default)");
    }
    if (c.newton_max_iter < 0) {
      throw SpecError(f + ".newton_max_iter", "must be >= 0 (0 = integrator default)");
    }
    const double ratio = spec.t_final / c.h;
    if (!(ratio <= 9.0e15)) throw SpecError(f + ".h", "t_final / h is too large");
    const double steps = std::round(ratio);
    if (steps < 1.0 || std::abs(steps * c.h - spec.t_final) > 1e-9 * spec.t_final) {
      std::ostringstream os;
      os.precision(17);
      os << "t_final = " << spec.t_final << " must be an integer multiple of h = " << c.h;
      throw SpecError(f + ".h", os.str());
    }
    pr.n_steps.push_back(static_cast<std::int64_t>(steps));
  }

  const auto& ic = spec.initial_conditions;
  const int n_sources = static_cast<int>(!ic.states.empty()) +
                        static_cast<int>(ic.use_energy_shell) +
                        static_cast<int>(ic.use_velocity_perturbation);
  if (n_sources != 1) {
    throw SpecError("initial_conditions",
                    n_sources == 0
                        ? "zero trajectories: give states, energy_shell or velocity_perturbation"
                        : "give exactly one of states, energy_shell, velocity_perturbation");
  }
  // An explicit state (or a perturbation's base state) must lie on the constraints.
  auto check_state = [&](const CanonicalState& s, const std::string& f) {
    if (static_cast<int>(s.q.size()) != nq) {
      throw SpecError(f + ".q", "has " + std::to_string(s.q.size()) + " entries, system '" +
                                    spec.system + "' needs " + std::to_string(nq));
    }
    if (static_cast<int>(s.p.size()) != nq) {
      throw SpecError(f + ".p", "has " + std::to_string(s.p.size()) + " entries, system '" +
                                    spec.system + "' needs " + std::to_string(nq));
    }
    if (!all_finite_vec(s.q)) throw SpecError(f + ".q", "must be finite");
    if (!all_finite_vec(s.p)) throw SpecError(f + ".p", "must be finite");
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(s.q.data(), nq);
    const Eigen::VectorXd p = Eigen::Map<const Eigen::VectorXd>(s.p.data(), nq);
    if (pr.model->ng() > 0) {
      const double g = pr.model->position_constraint_residual(q);
      if (!(g <= kConstraintTolerance)) {
        std::ostringstream os;
        os << "off the holonomic constraints: max |g(q)| = " << g << " > " << kConstraintTolerance;
        throw SpecError(f + ".q", os.str());
      }
    }
    const double res = pr.model->constraint_residual(q, p);
    if (!(res <= kConstraintTolerance)) {
      std::ostringstream os;
      os << "off the constraint distribution: max |mu(q) M^-1 p| = " << res << " > "
         << kConstraintTolerance;
      throw SpecError(f + ".p", os.str());
    }
  };
  if (ic.use_velocity_perturbation) {
    const auto& g = ic.velocity_perturbation;
    const std::string f = "initial_conditions.velocity_perturbation";
    if (g.count < 1) throw SpecError(f + ".count", "zero trajectories: count must be >= 1");
    if (!std::isfinite(g.v_std) || g.v_std <= 0.0) {
      throw SpecError(f + ".v_std", "must be finite and > 0");
    }
    check_state(g.base, f + ".base");
  } else if (ic.use_energy_shell) {
    if (pr.model->ng() > 0) {
      throw SpecError("initial_conditions.energy_shell",
                      "not available for a system with holonomic constraints (a random q "
                      "violates g(q) = 0): give states or velocity_perturbation");
    }
    const auto& g = ic.energy_shell;
    const std::string f = "initial_conditions.energy_shell";
    if (g.count < 1) throw SpecError(f + ".count", "zero trajectories: count must be >= 1");
    if (!std::isfinite(g.energy)) throw SpecError(f + ".energy", "must be finite");
    if (!std::isfinite(g.q_std) || g.q_std <= 0.0) {
      throw SpecError(f + ".q_std", "must be finite and > 0");
    }
    if (g.max_attempts < 1) throw SpecError(f + ".max_attempts", "must be >= 1");
  } else {
    for (std::size_t i = 0; i < ic.states.size(); ++i) {
      check_state(ic.states[i], idx("initial_conditions.states", i));
    }
  }
  pr.observables = resolve_observables(spec, nq, pr.model->ng() > 0, pr.model->observable_names());
  return pr;
}

/// Statistics of one block of trajectories, or of the running total.
struct Accum {
  std::vector<RunningStats> stats;  // [sample * n_obs + obs]
  /// Totals: one sketch per cell [sample * n_obs + obs]. Blocks: empty.
  std::vector<QuantileSketch> quantiles;
  /// Blocks: the samples of each successful trajectory in index order,
  /// [trajectory * n_cells + cell]. Totals: empty.
  std::vector<double> ok_samples;
  std::vector<TrajectoryFailure> failures;
  std::int64_t ok = 0, failed = 0, cancelled = 0, steps = 0;
};

struct BlockOut {
  std::int64_t block = 0;
  Accum acc;
};

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

}  // namespace

void validate(const EnsembleSpec& spec) { (void)prepare(spec); }

std::int64_t trajectory_count(const EnsembleSpec& spec) {
  const auto& ic = spec.initial_conditions;
  if (ic.use_energy_shell) return ic.energy_shell.count;
  if (ic.use_velocity_perturbation) return ic.velocity_perturbation.count;
  return static_cast<std::int64_t>(ic.states.size());
}

EnsembleResult run_ensemble(const EnsembleSpec& spec, const RunOptions& options) {
  Prepared pr = prepare(spec);
  const SystemModel& model = *pr.model;
  const std::int64_t n_traj = trajectory_count(spec);
  const int nq = model.nq();
  const int n_obs = static_cast<int>(pr.observables.size());
  const auto& ic = spec.initial_conditions;

  EnsembleResult result;
  result.system = spec.system;
  result.parameters = pr.parameters;
  result.n_trajectories = n_traj;

  auto cancelled = [&] {
    return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
  };
  const std::int64_t total_work = n_traj * static_cast<std::int64_t>(spec.integrators.size());
  std::int64_t done_work = 0;

  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);

  for (std::size_t ci = 0; ci < spec.integrators.size(); ++ci) {
    const IntegratorChoice& choice = spec.integrators[ci];
    const std::int64_t n_steps = pr.n_steps[ci];
    const std::int64_t se = choice.sample_every;
    const std::int64_t n_samples = n_steps / se + 1;
    const double h = choice.h;

    IntegratorResult ir;
    ir.choice = choice;
    // Report the settings actually used: 0 in the spec means the integrator's default.
    for (const auto& info : list_integrators()) {
      if (info.name != choice.integrator) continue;
      if (ir.choice.newton_tol == 0.0) ir.choice.newton_tol = info.default_newton_tol;
      if (ir.choice.newton_max_iter == 0) ir.choice.newton_max_iter = info.default_newton_max_iter;
    }
    ir.n_steps = n_steps;
    ir.sample_times.resize(static_cast<std::size_t>(n_samples));
    for (std::int64_t k = 0; k < n_samples; ++k) {
      ir.sample_times[static_cast<std::size_t>(k)] = static_cast<double>(k * se) * h;
    }

    Accum total;
    const auto n_cells = static_cast<std::size_t>(n_samples * n_obs);
    total.stats.assign(n_cells, RunningStats{});
    total.quantiles.assign(n_cells, QuantileSketch{});
    for (auto& qs : total.quantiles) qs.reserve(static_cast<std::size_t>(n_traj));
    const std::int64_t n_blocks = (n_traj + kBlock - 1) / kBlock;

    bool need_state = false;
    for (const auto& o : pr.observables) {
      need_state = need_state || o.kind == ObsKind::kQ || o.kind == ObsKind::kP ||
                   o.kind == ObsKind::kSystem || o.kind == ObsKind::kPositionResidual ||
                   o.kind == ObsKind::kVelocityResidual;
    }

    auto run_block = [&](std::int64_t b) {
      auto out = std::make_shared<BlockOut>();
      out->block = b;
      Accum& acc = out->acc;
      acc.stats.assign(static_cast<std::size_t>(n_samples * n_obs), RunningStats{});
      std::vector<double> buf(static_cast<std::size_t>(n_samples * n_obs));
      std::unique_ptr<Stepper> stepper = model.make_stepper(choice);
      Eigen::VectorXd q(nq), p(nq);
      const std::int64_t i0 = b * kBlock, i1 = std::min(n_traj, i0 + kBlock);
      for (std::int64_t i = i0; i < i1; ++i) {
        if (cancelled()) {
          ++acc.cancelled;
          continue;
        }
        if (ic.use_energy_shell) {
          std::string reason;
          if (!energy_shell_state(model, ic.energy_shell, i, q, p, reason)) {
            ++acc.failed;
            acc.failures.push_back({i, choice.integrator, 0.0, reason});
            continue;
          }
        } else if (ic.use_velocity_perturbation) {
          velocity_perturbation_state(model, ic.velocity_perturbation, i, q, p);
        } else {
          const auto& s = ic.states[static_cast<std::size_t>(i)];
          q = Eigen::Map<const Eigen::VectorXd>(s.q.data(), nq);
          p = Eigen::Map<const Eigen::VectorXd>(s.p.data(), nq);
        }
        stepper->set_state(q, p);
        const double h0 = stepper->energy();
        auto sample = [&](std::int64_t k) {
          double* row = buf.data() + k * n_obs;
          if (need_state) stepper->get_state(q, p);
          double energy = 0.0, residual = 0.0;
          stepper->energy_and_residual(energy, residual);
          for (int j = 0; j < n_obs; ++j) {
            const ObsDef& o = pr.observables[static_cast<std::size_t>(j)];
            switch (o.kind) {
              case ObsKind::kEnergyError:
                row[j] = energy - h0;
                break;
              case ObsKind::kRelativeEnergyError: {
                const double d = std::abs(energy - h0);
                row[j] = h0 != 0.0 ? d / std::abs(h0) : d;
                break;
              }
              case ObsKind::kConstraintResidual:
                row[j] = residual;
                break;
              case ObsKind::kPositionResidual:
                row[j] = model.position_constraint_residual(q);
                break;
              case ObsKind::kVelocityResidual:
                row[j] = model.velocity_constraint_residual(q, p);
                break;
              case ObsKind::kQ:
                row[j] = q(o.index);
                break;
              case ObsKind::kP:
                row[j] = p(o.index);
                break;
              case ObsKind::kSystem:
                row[j] = model.observable(o.index, q, p);
                break;
            }
          }
        };
        sample(0);
        bool ok = true, stopped = false;
        std::int64_t steps_taken = 0;
        for (std::int64_t k = 1; k <= n_samples && ok; ++k) {
          const std::int64_t todo = k < n_samples ? se : n_steps - (n_samples - 1) * se;
          if (todo == 0) break;
          if (cancelled()) {
            stopped = true;
            break;
          }
          const AdvanceResult r = stepper->advance(todo);
          steps_taken += r.steps_done;
          if (r.status != StepStatus::kOk) {
            ok = false;
            acc.failures.push_back(
                {i, choice.integrator, static_cast<double>(steps_taken) * h, failure_reason(r)});
            break;
          }
          if (k < n_samples) sample(k);
        }
        acc.steps += steps_taken;
        if (stopped) {
          ++acc.cancelled;
        } else if (!ok) {
          ++acc.failed;
        } else {
          ++acc.ok;
          for (std::size_t j = 0; j < buf.size(); ++j) acc.stats[j].add(buf[j]);
          if (acc.ok_samples.empty())
            acc.ok_samples.reserve(static_cast<std::size_t>(i1 - i0) * n_cells);
          acc.ok_samples.insert(acc.ok_samples.end(), buf.begin(), buf.end());
        }
      }
      return out;
    };

    const auto t0 = std::chrono::steady_clock::now();
    std::int64_t next_block = 0;
    arena.execute([&] {
      const std::size_t tokens =
          static_cast<std::size_t>(2 * std::max(1, tbb::this_task_arena::max_concurrency()));
      tbb::parallel_pipeline(
          tokens,
          tbb::make_filter<void, std::int64_t>(tbb::filter_mode::serial_in_order,
                                               [&](tbb::flow_control& fc) -> std::int64_t {
                                                 if (next_block >= n_blocks || cancelled()) {
                                                   fc.stop();
                                                   return 0;
                                                 }
                                                 return next_block++;
                                               }) &
              tbb::make_filter<std::int64_t, std::shared_ptr<BlockOut>>(tbb::filter_mode::parallel,
                                                                        run_block) &
              tbb::make_filter<std::shared_ptr<BlockOut>, void>(
                  tbb::filter_mode::serial_in_order, [&](std::shared_ptr<BlockOut> out) {
                    Accum& a = out->acc;
                    for (std::size_t j = 0; j < a.stats.size(); ++j) {
                      total.stats[j].merge(a.stats[j]);
                    }
                    const std::size_t n_ok = a.ok_samples.size() / n_cells;
                    if (n_ok > 0) {
                      // Each cell's sketch gets its values in trajectory order: deterministic.
                      // (Serial: a nested parallel_for here cost more than it saved.)
                      for (std::size_t j = 0; j < n_cells; ++j) {
                        for (std::size_t m = 0; m < n_ok; ++m) {
                          total.quantiles[j].add(a.ok_samples[m * n_cells + j]);
                        }
                      }
                    }
                    total.failures.insert(total.failures.end(), a.failures.begin(),
                                          a.failures.end());
                    total.ok += a.ok;
                    total.failed += a.failed;
                    total.cancelled += a.cancelled;
                    total.steps += a.steps;
                    done_work += a.ok + a.failed + a.cancelled;
                    if (options.progress) options.progress(done_work, total_work);
                  }));
    });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Blocks never started (cancellation) count as cancelled: the counts always add up.
    const std::int64_t unstarted = n_traj - (total.ok + total.failed + total.cancelled);
    total.cancelled += unstarted;
    done_work += unstarted;
    if (unstarted > 0 && options.progress) options.progress(done_work, total_work);

    ir.trajectories_ok = total.ok;
    ir.trajectories_failed = total.failed;
    ir.trajectories_cancelled = total.cancelled;
    ir.failures = std::move(total.failures);
    ir.steps_completed = total.steps;
    ir.wall_seconds = wall;
    ir.steps_per_second = wall > 0.0 ? static_cast<double>(total.steps) / wall : 0.0;
    for (int j = 0; j < n_obs; ++j) {
      SeriesStats s;
      s.observable = pr.observables[static_cast<std::size_t>(j)].name;
      const auto ns = static_cast<std::size_t>(n_samples);
      s.count.resize(ns);
      s.mean.resize(ns);
      s.variance.resize(ns);
      s.min.resize(ns);
      s.max.resize(ns);
      s.q05.resize(ns);
      s.q50.resize(ns);
      s.q95.resize(ns);
      for (std::size_t k = 0; k < ns; ++k) {
        const RunningStats& r =
            total.stats[k * static_cast<std::size_t>(n_obs) + static_cast<std::size_t>(j)];
        s.count[k] = r.n;
        s.mean[k] = r.n > 0 ? r.mean : std::numeric_limits<double>::quiet_NaN();
        s.variance[k] = r.variance();
        s.min[k] = r.n > 0 ? r.min : std::numeric_limits<double>::quiet_NaN();
        s.max[k] = r.n > 0 ? r.max : std::numeric_limits<double>::quiet_NaN();
      }
      // Quantiles (NaN where count = 0): independent per sample, so in parallel; each value
      // depends only on its own sketch, so the result does not depend on the partition.
      arena.execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, ns, 64),
            [&](const tbb::blocked_range<std::size_t>& r) {
              static constexpr double kP[3] = {0.05, 0.5, 0.95};
              double q[3];
              for (std::size_t k = r.begin(); k < r.end(); ++k) {
                total.quantiles[k * static_cast<std::size_t>(n_obs) + static_cast<std::size_t>(j)]
                    .quantiles(kP, q);
                s.q05[k] = q[0];
                s.q50[k] = q[1];
                s.q95[k] = q[2];
              }
            });
      });
      s.variance_slope = slope_through_origin(ir.sample_times, s.variance, s.count);
      s.variance_slope_over_h4 = s.variance_slope / (h * h * h * h);
      ir.observables.push_back(std::move(s));
    }
    result.integrators.push_back(std::move(ir));
  }
  for (const auto& ir : result.integrators) {
    result.cancelled = result.cancelled || ir.trajectories_cancelled > 0;
  }
  return result;
}

}  // namespace nhsim
