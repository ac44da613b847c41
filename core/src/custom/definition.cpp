// compile_custom_system: a CustomSystemSpec -> the tapes and mass matrix of
// nhsim/custom/definition.hpp. Parsing (parser.hpp), symbolic derivatives (GiNaC diff), tapes
// (tape_compiler.hpp); every error a SpecError naming the field.
#include "nhsim/custom/definition.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "custom/parser.hpp"
#include "custom/tape_compiler.hpp"
#include "nhsim/custom/names.hpp"
#include "nhsim/spec_types.hpp"

namespace nhsim {
namespace {

std::string index(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

bool is_reserved(const std::string& s) {
  static const std::set<std::string> kReserved = {"pi",  "sin",  "cos", "tan", "exp",
                                                  "log", "sqrt", "abs", "pow"};
  return kReserved.count(s) != 0;
}

void check_name(const std::string& name, const std::string& field, std::set<std::string>& seen) {
  if (!is_custom_name(name)) {
    throw SpecError(field, "'" + name.substr(0, 64) +
                               "' is not a name (a letter or '_', then letters, digits or '_'; "
                               "at most 64 characters)");
  }
  if (is_reserved(name)) throw SpecError(field, "'" + name + "' is a reserved name");
  if (!seen.insert(name).second) throw SpecError(field, "'" + name + "' is defined twice");
}

/// Parses rows of expression strings: `rows` x `cols`, each row of length cols.
std::vector<std::vector<GiNaC::ex>> parse_rows(const std::vector<std::vector<std::string>>& rows,
                                               std::size_t cols,
                                               const std::map<std::string, GiNaC::ex>& symbols,
                                               const std::string& field) {
  std::vector<std::vector<GiNaC::ex>> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string row_field = index(field, i);
    if (rows[i].size() != cols) {
      throw SpecError(row_field, "has " + std::to_string(rows[i].size()) + " entries, expected " +
                                     std::to_string(cols) + " (one per coordinate)");
    }
    std::vector<GiNaC::ex> row;
    for (std::size_t j = 0; j < cols; ++j) {
      row.push_back(custom::parse_expression(rows[i][j], symbols, index(row_field, j)));
    }
    out.push_back(std::move(row));
  }
  return out;
}

bool depends_on(const GiNaC::ex& e, const std::vector<GiNaC::ex>& q) {
  return std::any_of(q.begin(), q.end(), [&](const GiNaC::ex& x) { return e.has(x); });
}

double constant_value(const GiNaC::ex& e, const std::string& field) {
  const GiNaC::ex v = e.evalf();
  if (!GiNaC::is_exactly_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) {
    throw SpecError(field, "does not evaluate to a real number");
  }
  const double d = GiNaC::ex_to<GiNaC::numeric>(v).to_double();
  if (!std::isfinite(d)) throw SpecError(field, "is not finite");
  return d;
}

/// Why the symmetric matrix m is not a mass matrix: not finite, or not positive definite
/// (smallest eigenvalue at most 1e-12 times the largest).
std::optional<std::string> mass_matrix_problem(const Eigen::MatrixXd& m) {
  if (!m.allFinite()) return "is not finite";
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m, Eigen::EigenvaluesOnly);
  const double lmin = eig.eigenvalues().minCoeff(), lmax = eig.eigenvalues().maxCoeff();
  if (lmin > 1e-12 * lmax) return std::nullopt;
  std::ostringstream os;
  os << "is not positive definite (smallest eigenvalue " << lmin << ", largest " << lmax << ")";
  return os.str();
}

/// v as GiNaC::numeric(v) makes it, except for a subnormal v, which CLN's floats cannot hold (it
/// throws floating_point_underflow_exception): the exact rational m 2^e instead.
GiNaC::numeric exact_numeric(double v) {
  if (std::fpclassify(v) != FP_SUBNORMAL) return GiNaC::numeric(v);
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m 2^e, 1/2 <= |m| < 1: m 2^53 is an integer
  return GiNaC::numeric(static_cast<long>(std::ldexp(m, 53))) *
         GiNaC::numeric(2).power(GiNaC::numeric(e - 53));
}

/// Compiles `outputs` into a tape over q; a failure is a SpecError on `field`.
custom::Tape compile_tape(const std::vector<GiNaC::ex>& q, const std::vector<GiNaC::ex>& outputs,
                          const std::string& field, const std::string& what) {
  try {
    custom::TapeCompiler c(q);
    for (const GiNaC::ex& e : outputs) c.add_output(e);
    return c.finish();
  } catch (const std::exception& e) {
    throw SpecError(field, what + ": " + e.what());
  }
}

/// One new real symbol per coordinate c, named prefix + c + suffix (p_x, x_dot), added to
/// `symbols`; SpecError(field, ...) when such a name is already a coordinate or parameter.
std::vector<GiNaC::ex> symbols_per_coordinate(const std::vector<std::string>& coordinates,
                                              const std::string& prefix, const std::string& suffix,
                                              const std::string& what, const std::string& field,
                                              std::map<std::string, GiNaC::ex>& symbols) {
  std::vector<GiNaC::ex> out;
  for (const std::string& c : coordinates) {
    const std::string name = prefix + c + suffix;
    if (symbols.count(name) != 0) {
      throw SpecError(field, "the " + what + " of '" + c + "' is named '" + name +
                                 "', which is already a coordinate or parameter");
    }
    const GiNaC::realsymbol s(name);
    symbols.emplace(name, s);
    out.push_back(s);
  }
  return out;
}

/// M = d^2 L / dq'_i dq'_j and V = -L(q, 0) of a Lagrangian L(q, q') = 1/2 q'^T M q' - V(q), the
/// velocity of coordinate c named c_dot. SpecError(lf, ...) for a velocity name that is taken,
/// a term linear in the velocities or an L not quadratic in them.
void from_lagrangian(const CustomSystemSpec& spec, std::map<std::string, GiNaC::ex> symbols,
                     const std::string& lf, std::vector<std::vector<GiNaC::ex>>& mex,
                     GiNaC::ex& v) {
  const std::vector<GiNaC::ex> qdot =
      symbols_per_coordinate(spec.coordinates, "", "_dot", "velocity", lf, symbols);
  GiNaC::lst at_rest;
  for (const GiNaC::ex& s : qdot) at_rest.append(s == 0);
  const GiNaC::ex l = custom::parse_expression(spec.lagrangian, symbols, lf);
  const std::size_t n = qdot.size();
  try {
    mex.clear();
    for (std::size_t i = 0; i < n; ++i) {
      mex.emplace_back(n);  // (assign(n, row) trips GCC 12's -Wfree-nonheap-object falsely)
      const GiNaC::ex dl = l.diff(GiNaC::ex_to<GiNaC::symbol>(qdot[i]));
      if (!dl.subs(at_rest).is_zero()) {
        throw SpecError(lf, "has a term linear in " + spec.coordinates[i] +
                                "_dot; nhsim takes L = 1/2 q'^T M q' - V(q)");
      }
      for (std::size_t j = 0; j < n; ++j) {
        mex[i][j] = dl.diff(GiNaC::ex_to<GiNaC::symbol>(qdot[j]));
        if (depends_on(mex[i][j], qdot)) {
          throw SpecError(lf, "is not quadratic in the velocities (d^2 L / d" +
                                  spec.coordinates[i] + "_dot d" + spec.coordinates[j] +
                                  "_dot depends on them)");
        }
      }
    }
    v = -l.subs(at_rest);
  } catch (const SpecError&) {
    throw;
  } catch (const std::exception& e) {
    throw SpecError(lf, std::string("cannot be differentiated: ") + e.what());
  }
}

/// The error for M_ij != M_ji, on the field of entry (i, j) of `mf`.
SpecError asymmetric(const std::string& mf, std::size_t i, std::size_t j) {
  return SpecError(index(index(mf, i), j), "differs from mass_matrix[" + std::to_string(j) + "][" +
                                               std::to_string(i) + "]: M must be symmetric");
}

/// About how many terms expand() makes of `e` (an upper bound before like terms combine): sums
/// add, products multiply, a power of a sum of t terms to a positive integer n has the
/// multinomial theorem's C(n + t - 1, t - 1); a function's arguments are expanded in place, so
/// their terms count too. Saturates at 1e300.
double expanded_terms(const GiNaC::ex& e) {
  const auto saturated = [](double x) { return std::min(x, 1e300); };
  if (GiNaC::is_a<GiNaC::add>(e)) {
    double terms = 0.0;
    for (const GiNaC::ex& op : e) terms = saturated(terms + expanded_terms(op));
    return terms;
  }
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    double terms = 1.0;
    for (const GiNaC::ex& op : e) terms = saturated(terms * expanded_terms(op));
    return terms;
  }
  if (GiNaC::is_a<GiNaC::power>(e)) {
    const double t = expanded_terms(e.op(0));
    const GiNaC::ex n = e.op(1);
    if (t <= 1.0 || !GiNaC::is_a<GiNaC::numeric>(n) || !n.info(GiNaC::info_flags::posint)) {
      return t;  // expand() does not distribute it
    }
    const double k = GiNaC::ex_to<GiNaC::numeric>(n).to_double();
    return saturated(std::exp(std::lgamma(k + t) - std::lgamma(k + 1.0) - std::lgamma(t)));
  }
  double terms = 1.0;  // a symbol, a number, or a function of its (expanded) arguments
  for (const GiNaC::ex& op : e) terms = saturated(terms + expanded_terms(op));
  return terms;
}

/// The first entry (i, j), i < j, of `mex` whose M_ij and M_ji differ identically in q (after
/// expansion), as SpecError on `mf`; a Lagrangian's M is symmetric by construction. The
/// expansions of one definition make at most kMaxExpandedTerms terms in all (each costs about
/// 5 us: a product of two powers of trinomials of degree 50 took 9 s): beyond, SpecError on the
/// entry that would cross it.
void check_symmetric(const std::vector<std::vector<GiNaC::ex>>& mex, const std::string& mf,
                     bool lagrangian) {
  if (lagrangian) return;
  double expanded = 0.0;
  for (std::size_t i = 0; i < mex.size(); ++i) {
    for (std::size_t j = i + 1; j < mex.size(); ++j) {
      const GiNaC::ex difference = mex[i][j] - mex[j][i];
      expanded += expanded_terms(difference);
      if (expanded > kMaxExpandedTerms) {
        std::ostringstream terms;
        terms.precision(3);
        terms << expanded_terms(difference);
        throw SpecError(index(index(mf, i), j),
                        "checking that M is symmetric expands M_ij - M_ji to about " + terms.str() +
                            " terms, beyond the " +
                            std::to_string(static_cast<long>(kMaxExpandedTerms)) +
                            " a definition may expand to in all (a power of a sum expands by the "
                            "multinomial theorem: factor it, or write M_ij and M_ji alike)");
      }
      if (!difference.expand().is_zero()) throw asymmetric(mf, i, j);
    }
  }
}

/// A constant M: its values, symmetric (to 1e-14 relative) and positive definite, and M^-1.
void constant_mass(const std::vector<std::vector<GiNaC::ex>>& mex, const std::string& mf,
                   bool lagrangian, CustomSystemDefinition& def) {
  const auto n = static_cast<Eigen::Index>(mex.size());
  def.mass.resize(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
      def.mass(i, j) = constant_value(mex[ui][uj], lagrangian ? mf : index(index(mf, ui), uj));
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i + 1; j < n; ++j) {
      const double a = def.mass(i, j), b = def.mass(j, i);
      if (std::abs(a - b) > 1e-14 * std::max(std::abs(a), std::abs(b))) {  // given rows only
        throw asymmetric(mf, static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      }
      def.mass(j, i) = a;
    }
  }
  if (const auto problem = mass_matrix_problem(def.mass)) throw SpecError(mf, *problem);
  def.mass_inverse = def.mass.llt().solve(Eigen::MatrixXd::Identity(n, n));
}

/// A q-dependent M: symmetric identically in q, the tapes of M(q) and of d/dq (1/2 v^T M v).
/// Positive definiteness is checked at the initial states (check_custom_system_at).
void varying_mass(const std::vector<std::vector<GiNaC::ex>>& mex, const std::vector<GiNaC::ex>& q,
                  const std::string& mf, bool lagrangian, CustomSystemDefinition& def) {
  check_symmetric(mex, mf, lagrangian);
  const std::size_t n = q.size();
  std::vector<GiNaC::ex> entries;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) entries.push_back(mex[std::min(i, j)][std::max(i, j)]);
  }
  def.mass_entries = compile_tape(q, entries, mf, "M(q)");
  // 1/2 v^T M v = sum_i 1/2 M_ii v_i^2 + sum_{i<j} M_ij v_i v_j, differentiated term by term.
  std::vector<GiNaC::ex> inputs = q;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(GiNaC::realsymbol());  // v_i
  std::vector<GiNaC::ex> gradient;
  try {
    for (const GiNaC::ex& x : q) {
      const auto& xs = GiNaC::ex_to<GiNaC::symbol>(x);
      GiNaC::ex d = 0;
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i; j < n; ++j) {
          const GiNaC::ex dm = mex[i][j].diff(xs);
          if (!dm.is_zero()) {
            d += (i == j ? GiNaC::numeric(1, 2) : 1) * dm * inputs[n + i] * inputs[n + j];
          }
        }
      }
      gradient.push_back(d);
    }
  } catch (const std::exception& e) {
    throw SpecError(mf, std::string("cannot be differentiated: ") + e.what());
  }
  def.kinetic_gradient = compile_tape(inputs, gradient, mf, "dM/dq");
}

/// The control forces: one tape of the nu rows b_j(q), row-major.
void compile_control_forces(const CustomSystemSpec& spec,
                            const std::map<std::string, GiNaC::ex>& symbols,
                            const std::vector<GiNaC::ex>& q, const std::string& field,
                            CustomSystemDefinition& def) {
  const std::string bf = field + ".control_forces";
  const std::size_t nu = spec.control_forces.size();
  if (nu == 0) return;
  if (nu > static_cast<std::size_t>(kMaxCustomInputs)) {
    throw SpecError(bf, "has " + std::to_string(nu) + " rows (control inputs), at most " +
                            std::to_string(kMaxCustomInputs));
  }
  if (!def.constant_mass) {
    throw SpecError(bf,
                    "needs a constant mass matrix: the methods that take control forces "
                    "(nh_rattle, nh_rattle_projected, rk2) need one");
  }
  const auto rows = parse_rows(spec.control_forces, q.size(), symbols, bf);
  std::vector<GiNaC::ex> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  def.control_forces = compile_tape(q, flat, bf, "control forces");
  def.nu = static_cast<int>(nu);
}

/// The holonomic constraints: the tapes of g(q), G(q) = dg/dq and, where every Hessian D^2 g_k
/// is constant, of w -> rows (D^2 g_k w)^T. Returns the rows of G, the first rows of mu.
std::vector<std::vector<GiNaC::ex>> compile_holonomic(
    const CustomSystemSpec& spec, const std::map<std::string, GiNaC::ex>& symbols,
    const std::vector<GiNaC::ex>& q, const std::string& field, CustomSystemDefinition& def) {
  const std::string hf = field + ".holonomic_constraints";
  const std::size_t ng = spec.holonomic_constraints.size();
  if (ng == 0) return {};
  if (!def.constant_mass) {
    throw SpecError(hf, "need a constant mass matrix in this release (M depends on q)");
  }
  if (!spec.control_forces.empty()) {
    throw SpecError(hf, "cannot be combined with control_forces in this release");
  }
  std::vector<GiNaC::ex> g, jacobian, contraction;
  std::vector<std::vector<GiNaC::ex>> rows;
  for (std::size_t k = 0; k < ng; ++k) {
    const std::string f = index(hf, k);
    const GiNaC::ex gk = custom::parse_expression(spec.holonomic_constraints[k], symbols, f);
    std::vector<GiNaC::ex> row;
    try {
      for (const GiNaC::ex& x : q) row.push_back(gk.diff(GiNaC::ex_to<GiNaC::symbol>(x)));
      // (D^2 g_k w)_j = sum_i d^2 g_k / dq_j dq_i w_i, with w in the coordinates' slots.
      for (const GiNaC::ex& gj : row) {
        GiNaC::ex c = 0;
        for (const GiNaC::ex& x : q) {
          const GiNaC::ex h = gj.diff(GiNaC::ex_to<GiNaC::symbol>(x));
          if (depends_on(h, q) && def.nonquadratic_holonomic < 0) {
            def.nonquadratic_holonomic = static_cast<int>(k);
          }
          c += h * x;
        }
        contraction.push_back(c);
      }
    } catch (const std::exception& e) {
      throw SpecError(f, std::string("cannot be differentiated: ") + e.what());
    }
    if (std::all_of(row.begin(), row.end(), [](const GiNaC::ex& e) { return e.is_zero(); })) {
      throw SpecError(f, "is constant in q: a holonomic constraint must depend on the coordinates");
    }
    g.push_back(gk);
    jacobian.insert(jacobian.end(), row.begin(), row.end());
    rows.push_back(std::move(row));
  }
  def.holonomic = compile_tape(q, g, hf, "g");
  def.holonomic_jacobian = compile_tape(q, jacobian, hf, "dg/dq");
  if (def.nonquadratic_holonomic < 0) {
    def.holonomic_hessian_contract = compile_tape(q, contraction, hf, "D^2 g");
  }
  def.ng = static_cast<int>(ng);
  return rows;
}

/// The named invariants: one tape over (q, p), p_c the momentum conjugate to coordinate c.
void compile_invariants(const CustomSystemSpec& spec, std::map<std::string, GiNaC::ex> symbols,
                        const std::vector<GiNaC::ex>& q, const std::string& field,
                        CustomSystemDefinition& def) {
  const std::string inf = field + ".invariants";
  if (spec.invariants.size() > static_cast<std::size_t>(kMaxCustomInvariants)) {
    throw SpecError(inf, "has " + std::to_string(spec.invariants.size()) + " entries, at most " +
                             std::to_string(kMaxCustomInvariants));
  }
  if (spec.invariants.empty()) return;
  std::vector<GiNaC::ex> inputs = q;
  const std::vector<GiNaC::ex> p =
      symbols_per_coordinate(spec.coordinates, "p_", "", "momentum", inf, symbols);
  inputs.insert(inputs.end(), p.begin(), p.end());
  static const std::set<std::string> kStandard = {
      "energy_error", "relative_energy_error", "constraint_residual",
      "position_constraint_residual", "velocity_constraint_residual"};
  std::set<std::string> seen;
  std::vector<GiNaC::ex> values;
  for (std::size_t k = 0; k < spec.invariants.size(); ++k) {
    const auto& [name, text] = spec.invariants[k];
    const std::string f = index(inf, k);
    check_name(name, f + ".name", seen);
    if (kStandard.count(name) != 0) {
      throw SpecError(f + ".name", "'" + name + "' is the name of a standard observable");
    }
    values.push_back(custom::parse_expression(text, symbols, f + ".expression"));
    def.invariant_names.push_back(name);
  }
  def.invariants = compile_tape(inputs, values, inf, "invariants");
}

}  // namespace

bool is_custom_name(const std::string& s) {
  if (s.empty() || s.size() > kMaxCustomNameLength) return false;
  if (!std::isalpha(static_cast<unsigned char>(s[0])) && s[0] != '_') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

namespace {

/// Every field of `spec` that the compile reads (not its name), unambiguously: each string ends
/// in a NUL, each list starts with its length, each parameter value is its 8 bytes.
std::string definition_key(const CustomSystemSpec& spec) {
  std::string key;
  const auto text = [&](const std::string& s) { key.append(s).push_back('\0'); };
  const auto count = [&](std::size_t n) { text(std::to_string(n)); };
  const auto rows = [&](const std::vector<std::vector<std::string>>& m) {
    count(m.size());
    for (const auto& row : m) {
      count(row.size());
      for (const std::string& e : row) text(e);
    }
  };
  count(spec.coordinates.size());
  for (const std::string& c : spec.coordinates) text(c);
  count(spec.parameters.size());
  for (const auto& [name, value] : spec.parameters) {
    text(name);
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  rows(spec.mass_matrix);
  text(spec.potential);
  text(spec.lagrangian);
  rows(spec.constraints);
  count(spec.holonomic_constraints.size());
  for (const std::string& g : spec.holonomic_constraints) text(g);
  rows(spec.control_forces);
  count(spec.invariants.size());
  for (const auto& [name, expression] : spec.invariants) {
    text(name);
    text(expression);
  }
  return key;
}

std::shared_ptr<const CustomSystemDefinition> compile_uncached(const CustomSystemSpec& spec,
                                                               const std::string& field);

}  // namespace

std::shared_ptr<const CustomSystemDefinition> compile_custom_system(const CustomSystemSpec& spec,
                                                                    const std::string& field) {
  // The compile is deterministic, so the latest kCached definitions are kept by their fields and
  // answered again: a job's spec is checked at its submission and again at its start, a sweep's
  // cases and ListSystems compile the same definitions over and over. Failures are not kept.
  constexpr std::size_t kCached = 128;
  static std::mutex mutex;
  static std::list<std::pair<std::string, std::shared_ptr<const CustomSystemDefinition>>> cache;
  const std::string key = definition_key(spec);
  {
    const std::lock_guard lock(mutex);
    const auto hit = std::find_if(cache.begin(), cache.end(),
                                  [&](const auto& entry) { return entry.first == key; });
    if (hit != cache.end()) {
      cache.splice(cache.begin(), cache, hit);  // the most recently used first
      return hit->second;
    }
  }
  auto def = compile_uncached(spec, field);
  const std::lock_guard lock(mutex);
  cache.emplace_front(key, def);
  if (cache.size() > kCached) cache.pop_back();
  return def;
}

namespace {

std::shared_ptr<const CustomSystemDefinition> compile_uncached(const CustomSystemSpec& spec,
                                                               const std::string& field) {
  // GiNaC is not thread-safe (its shared constants are reference-counted without atomics) and
  // the service prepares specs on several threads: one definition at a time. The lock is taken
  // before, and released after, every GiNaC object of this call.
  static std::mutex ginac_mutex;
  const std::lock_guard<std::mutex> lock(ginac_mutex);
  auto def = std::make_shared<CustomSystemDefinition>();
  const std::size_t n = spec.coordinates.size();
  const std::size_t m = spec.constraints.size();

  // Names and sizes.
  std::set<std::string> seen;
  std::map<std::string, GiNaC::ex> symbols;
  std::vector<GiNaC::ex> q;
  if (n == 0) throw SpecError(field + ".coordinates", "no coordinates");
  for (std::size_t i = 0; i < n; ++i) {
    check_name(spec.coordinates[i], index(field + ".coordinates", i), seen);
    // Real symbols: derivatives of abs() and the like simplify for real arguments.
    const GiNaC::realsymbol s(spec.coordinates[i]);
    symbols.emplace(spec.coordinates[i], s);
    q.push_back(s);
  }
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
    const auto& [name, value] = spec.parameters[k];
    const std::string pf = index(field + ".parameters", k);
    check_name(name, pf + ".name", seen);
    if (!std::isfinite(value)) throw SpecError(pf + ".value", "must be finite");
    if (std::fpclassify(value) == FP_SUBNORMAL) {
      throw SpecError(pf + ".value",
                      "is subnormal (nonzero, below 2.2e-308 in magnitude): the symbolic algebra "
                      "has no such numbers");
    }
    symbols.emplace(name, GiNaC::numeric(value));
  }
  if (n > static_cast<std::size_t>(kMaxCustomCoordinates)) {
    throw SpecError(field + ".coordinates", std::to_string(n) + " coordinates: at most " +
                                                std::to_string(kMaxCustomCoordinates));
  }
  const std::size_t ng = spec.holonomic_constraints.size();
  if (ng == 0 && (m == 0 || m >= n)) {
    throw SpecError(field + ".constraints",
                    std::to_string(m) + " rows for " + std::to_string(n) +
                        " coordinates: a nonholonomic system has 1 <= rows < coordinates");
  }
  if (ng + m >= n) {
    throw SpecError(field + ".holonomic_constraints",
                    std::to_string(ng) + " holonomic constraints and " + std::to_string(m) +
                        " constraint rows for " + std::to_string(n) +
                        " coordinates: together they must be fewer than the coordinates");
  }
  def->nq = static_cast<int>(n);
  def->nc = static_cast<int>(ng + m);
  def->coordinates = spec.coordinates;

  // M and V, given as such or derived from a Lagrangian (then every error on them is the
  // Lagrangian's).
  const bool lagrangian = !spec.lagrangian.empty();
  const std::string mf = lagrangian ? field + ".lagrangian" : field + ".mass_matrix";
  const std::string vf = lagrangian ? field + ".lagrangian" : field + ".potential";
  std::vector<std::vector<GiNaC::ex>> mex;
  GiNaC::ex v;
  if (lagrangian) {
    if (!spec.mass_matrix.empty() || !spec.potential.empty()) {
      throw SpecError(mf, "set either mass_matrix and potential, or lagrangian, not both");
    }
    from_lagrangian(spec, symbols, mf, mex, v);
  } else {
    if (spec.mass_matrix.size() != n) {
      throw SpecError(mf, "has " + std::to_string(spec.mass_matrix.size()) + " rows, expected " +
                              std::to_string(n) + " (one per coordinate)");
    }
    mex = parse_rows(spec.mass_matrix, n, symbols, mf);
    v = custom::parse_expression(spec.potential, symbols, vf);
  }

  def->mass_field = lagrangian ? "lagrangian" : "mass_matrix";
  def->constant_mass = std::none_of(mex.begin(), mex.end(), [&](const auto& row) {
    return std::any_of(row.begin(), row.end(),
                       [&](const GiNaC::ex& e) { return depends_on(e, q); });
  });
  if (def->constant_mass) {
    constant_mass(mex, mf, lagrangian, *def);
  } else {
    varying_mass(mex, q, mf, lagrangian, *def);
  }

  // The gradient of the potential.
  std::vector<GiNaC::ex> grad;
  try {
    for (const GiNaC::ex& x : q) grad.push_back(v.diff(GiNaC::ex_to<GiNaC::symbol>(x)));
  } catch (const std::exception& e) {
    // GiNaC evaluates while it differentiates and throws where that fails (d/dy 0^y divides by
    // zero; the parser refuses that one, found by tests/fuzz/expression_fuzzer.cpp, before).
    throw SpecError(vf, std::string("cannot be differentiated: ") + e.what());
  }
  def->potential = compile_tape(q, {v}, vf, "V");
  def->grad_potential = compile_tape(q, grad, vf, "dV/dq");

  // The constraint one-forms: G(q) of the holonomic constraints, then the nonholonomic rows.
  std::vector<std::vector<GiNaC::ex>> mu = compile_holonomic(spec, symbols, q, field, *def);
  const std::string cf = field + ".constraints";
  const auto nonholonomic = parse_rows(spec.constraints, n, symbols, cf);
  for (std::size_t a = 0; a < m; ++a) {
    // A row that vanishes identically has rank 0 at every state, generated ones included.
    const auto& row = nonholonomic[a];
    if (std::all_of(row.begin(), row.end(), [](const GiNaC::ex& e) { return e.is_zero(); })) {
      throw SpecError(index(cf, a), "is zero for every q: a constraint one-form must not vanish");
    }
  }
  mu.insert(mu.end(), nonholonomic.begin(), nonholonomic.end());
  std::vector<GiNaC::ex> flat;
  for (const auto& row : mu) flat.insert(flat.end(), row.begin(), row.end());
  def->constraint =
      compile_tape(q, flat, def->ng > 0 && m == 0 ? field + ".holonomic_constraints" : cf, "mu");

  // si_dla's affine case: mu depends only on coordinates j where M^-1 mu^T vanishes identically
  // (si_dla needs a constant M).
  bool affine = def->constant_mass;
  for (std::size_t j = 0; j < n && affine; ++j) {
    const bool used =
        std::any_of(flat.begin(), flat.end(), [&](const GiNaC::ex& e) { return e.has(q[j]); });
    if (!used) continue;
    for (std::size_t a = 0; a < mu.size() && affine; ++a) {
      GiNaC::ex s = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const double w =
            def->mass_inverse(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k));
        if (w != 0.0) s += exact_numeric(w) * mu[a][k];
      }
      affine = expanded_terms(s) <= kMaxExpandedTerms && s.expand().is_zero();  // else: general
    }
  }
  def->constraint_affine_along_forces = affine;

  compile_control_forces(spec, symbols, q, field, *def);
  compile_invariants(spec, symbols, q, field, *def);
  return def;
}

}  // namespace

std::optional<std::string> custom_mass_problem(const CustomSystemDefinition& def,
                                               const Eigen::VectorXd& q) {
  if (def.constant_mass) return std::nullopt;
  Eigen::MatrixXd m(def.nq, def.nq);
  def.mass_entries.evaluate(q.data(), m.data());  // symmetric: row- and column-major agree
  if (const auto problem = mass_matrix_problem(m)) return "M(q) " + *problem;
  return std::nullopt;
}

std::optional<std::string> custom_constraint_problem(const CustomSystemDefinition& def,
                                                     const Eigen::VectorXd& q) {
  Eigen::VectorXd mu(def.nc * def.nq);
  def.constraint.evaluate(q.data(), mu.data());
  const Eigen::MatrixXd m =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          mu.data(), def.nc, def.nq);
  if (!m.allFinite()) return "mu(q) is not finite";
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(m);
  const auto& sv = svd.singularValues();
  const double tol = 1e-12 * std::max(1.0, sv.maxCoeff());
  const Eigen::Index rank = (sv.array() > tol).count();
  if (rank < def.nc) {
    return "mu(q) has rank " + std::to_string(rank) + " < " + std::to_string(def.nc) + " rows";
  }
  return std::nullopt;
}

std::optional<std::string> custom_state_problem(const CustomSystemDefinition& def,
                                                const Eigen::VectorXd& q) {
  if (auto problem = custom_mass_problem(def, q)) return problem;
  return custom_constraint_problem(def, q);
}

std::optional<std::string> custom_integrator_problem(const CustomSystemDefinition& def,
                                                     const std::string& id) {
  if (id != "ggl") return std::nullopt;
  if (def.ng == 0) return "needs holonomic constraints (custom_system.holonomic_constraints)";
  if (def.nc > def.ng) {
    return "needs holonomic constraints only, and custom_system.constraints has " +
           std::to_string(def.nc - def.ng) + " nonholonomic rows";
  }
  if (def.nonquadratic_holonomic >= 0) {
    return "needs constant constraint Hessians, and custom_system.holonomic_constraints[" +
           std::to_string(def.nonquadratic_holonomic) + "] is not at most quadratic in q";
  }
  return std::nullopt;
}

void check_custom_system_at(const CustomSystemDefinition& def, const Eigen::VectorXd& q,
                            const std::string& where, const std::string& field) {
  if (const auto problem = custom_mass_problem(def, q)) {
    throw SpecError(field + "." + def.mass_field, *problem + " at " + where);
  }
  if (const auto problem = custom_constraint_problem(def, q)) {
    const bool holonomic_only = def.ng > 0 && def.nc == def.ng;
    throw SpecError(field + (holonomic_only ? ".holonomic_constraints" : ".constraints"),
                    *problem + " at " + where);
  }
}

}  // namespace nhsim
