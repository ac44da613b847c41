// The expression layer of user-defined systems: parser, register tape, symbolic
// derivatives and the errors with field and position (core/src/custom, nhsim/custom).
#include <ginac/ginac.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "custom/parser.hpp"
#include "custom/tape_compiler.hpp"
#include "nhsim/custom/definition.hpp"
#include "nhsim/custom/tape.hpp"
#include "nhsim/dmath.hpp"
#include "nhsim/spec_types.hpp"
#include "test_support.hpp"

namespace nhsim {
namespace {

using test::sci;

struct Vars {
  GiNaC::realsymbol x{"x"}, y{"y"}, z{"z"};
  std::map<std::string, GiNaC::ex> symbols() const {
    return {{"x", x}, {"y", y}, {"z", z}, {"k", GiNaC::numeric(0.75)}};
  }
  std::vector<GiNaC::ex> inputs() const { return {x, y, z}; }
};

custom::Tape tape_of(const Vars& v, const std::vector<GiNaC::ex>& es) {
  custom::TapeCompiler c(v.inputs());
  for (const auto& e : es) c.add_output(e);
  return c.finish();
}

/// GiNaC's own value of e at (x, y, z), at GiNaC's default 17 digits, as a double.
double ginac_value(const Vars& v, const GiNaC::ex& e, const double* q) {
  const GiNaC::ex s =
      GiNaC::subs(e, GiNaC::lst{v.x == GiNaC::numeric(q[0]), v.y == GiNaC::numeric(q[1]),
                                v.z == GiNaC::numeric(q[2])});
  return GiNaC::ex_to<GiNaC::numeric>(s.evalf()).to_double();
}

TEST(CustomExpression, TapeAgreesWithGinacEvalf) {
  const Vars v;
  const std::vector<std::string> texts = {
      "sin(x)*cos(y) + exp(-z^2/2) + 2",
      "sqrt(x^2 + y^2 + 1) / (1 + abs(z))",
      "pow(x^2 + 1, 1.5) + log(2 + y^2)",
      "tan(x/3) + x^3*y + 2*y^4 + 5",
      "(x + 3)*(y + 2) / (x^2 + y^2 + z^2 + 1)",
      "k*(x^4 + y^4 + z^4)/4 + 1",
      "0.1 - cos(z)",
      "-x/2 - 7",
      "exp(sin(x*y*z)) * 2^(x + 1.25)",
  };
  std::vector<GiNaC::ex> es;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    es.push_back(custom::parse_expression(texts[i], v.symbols(), "e" + std::to_string(i)));
  }
  const custom::Tape tape = tape_of(v, es);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const double q[3] = {u(rng), u(rng), u(rng)};
    std::vector<double> out(es.size());
    tape.evaluate(q, out.data());
    for (std::size_t i = 0; i < es.size(); ++i) {
      const double ref = ginac_value(v, es[i], q);
      const double rel = std::abs(out[i] - ref) / std::abs(ref);
      worst = std::max(worst, rel);
      EXPECT_LE(rel, 1e-15) << texts[i] << " at (" << q[0] << ", " << q[1] << ", " << q[2]
                            << "): tape " << out[i] << ", GiNaC " << ref;
    }
  }
  RecordProperty("worst_relative_error", sci(worst));
}

TEST(CustomExpression, CommonSubexpressionsAreSharedAndConstantsFolded) {
  const Vars v;
  const auto s = v.symbols();
  const GiNaC::ex a = custom::parse_expression("sin(x)^2 + 3*sin(x)*cos(y) + sin(x)", s, "a");
  const GiNaC::ex b = custom::parse_expression("cos(y)*sin(x) + x", s, "b");
  const custom::Tape tape = tape_of(v, {a, b});
  int sines = 0, cosines = 0;
  for (const auto& ins : tape.code()) {
    sines += ins.op == custom::TapeOp::kSin;
    cosines += ins.op == custom::TapeOp::kCos;
  }
  EXPECT_EQ(sines, 1);
  EXPECT_EQ(cosines, 1);
  // 2 sin(pi/6) + 3 + log(exp(2)) - 1 = 5 folds to one constant: x + 5 is two instructions.
  const custom::Tape folded =
      tape_of(v, {custom::parse_expression("x + 2*sin(pi/6) + 3 + log(exp(2)) - 1", s, "c")});
  ASSERT_EQ(folded.code().size(), 2u);
  EXPECT_EQ(folded.code()[0].op, custom::TapeOp::kConst);
  EXPECT_EQ(folded.code()[0].value, 5.0);
  const double q[3] = {0.25, 0.0, 0.0};
  double out = 0.0;
  folded.evaluate(q, &out);
  EXPECT_EQ(out, 5.25);
}

TEST(CustomExpression, LargeTapesUseTheFullRegisterFile) {
  const Vars v;
  std::string text;
  for (int k = 1; k <= 150; ++k)
    text += (k > 1 ? " + " : "") + std::string("sin(") + std::to_string(k) + "*x + y)";
  const GiNaC::ex e = custom::parse_expression(text, v.symbols(), "e");
  const custom::Tape tape = tape_of(v, {e});
  EXPECT_GT(tape.num_registers(), 256);  // past the small register file
  const double q[3] = {0.37, -0.21, 0.0};
  double out = 0.0, scale = 0.0;
  tape.evaluate(q, &out);
  for (int k = 1; k <= 150; ++k) scale += std::abs(std::sin(k * q[0] + q[1]));
  EXPECT_NEAR(out, ginac_value(v, e, q), 1e-15 * scale);
}

TEST(CustomExpression, ComplexEvaluationGivesTheComplexStepDerivative) {
  const Vars v;
  const GiNaC::ex e =
      custom::parse_expression("sin(x)*exp(y) + abs(z)*x + sqrt(1 + y^2)", v.symbols(), "e");
  const custom::Tape tape = tape_of(v, {e});
  const double q[3] = {0.3, -0.7, -1.1};
  const double dref[3] = {std::cos(0.3) * std::exp(-0.7) + 1.1,
                          std::sin(0.3) * std::exp(-0.7) - 0.7 / std::sqrt(1.49), -0.3};
  for (int j = 0; j < 3; ++j) {
    std::complex<double> qc[3] = {q[0], q[1], q[2]}, out;
    qc[j] += std::complex<double>(0.0, 1e-20);
    tape.evaluate(qc, &out);
    EXPECT_NEAR(out.imag() / 1e-20, dref[j], 1e-15 * std::abs(dref[j])) << j;
  }
}

/// The tape's instructions executed one by one, in the order compiled, at double or complex
/// inputs: the reference semantics of custom::Tape::evaluate (elementary functions:
/// nhsim/dmath.hpp).
template <class T>
std::vector<T> run_compiled(const custom::Tape& tape, const T* in) {
  std::vector<T> r(in, in + tape.num_inputs());
  for (const custom::TapeInstruction& ins : tape.code()) {
    const T a = ins.op == custom::TapeOp::kConst ? T(0.0) : r[static_cast<std::size_t>(ins.a)];
    const T b = r[static_cast<std::size_t>(ins.b)];
    using custom::TapeOp;
    switch (ins.op) {
      case TapeOp::kConst:
        r.push_back(T(ins.value));
        break;
      case TapeOp::kAdd:
        r.push_back(a + b);
        break;
      case TapeOp::kSub:
        r.push_back(a - b);
        break;
      case TapeOp::kMul:
        r.push_back(a * b);
        break;
      case TapeOp::kDiv:
        r.push_back(a / b);
        break;
      case TapeOp::kNeg:
        r.push_back(-a);
        break;
      case TapeOp::kSin:
        r.push_back(dmath::sin(a));
        break;
      case TapeOp::kCos:
        r.push_back(dmath::cos(a));
        break;
      case TapeOp::kTan:
        r.push_back(dmath::tan(a));
        break;
      case TapeOp::kExp:
        r.push_back(dmath::exp(a));
        break;
      case TapeOp::kLog:
        r.push_back(dmath::log(a));
        break;
      case TapeOp::kSqrt:
        r.push_back(dmath::sqrt(a));
        break;
      case TapeOp::kAbs:
        r.push_back(std::real(a) < 0.0 ? -a : a);
        break;
      case TapeOp::kSign:
        r.push_back(T(std::real(a) > 0.0 ? 1.0 : (std::real(a) < 0.0 ? -1.0 : 0.0)));
        break;
      case TapeOp::kPow:
        r.push_back(dmath::pow(a, b));
        break;
    }
  }
  std::vector<T> out;
  for (const std::int32_t o : tape.outputs()) out.push_back(r[static_cast<std::size_t>(o)]);
  return out;
}

TEST(CustomExpression, EvaluationGivesTheBitsOfTheCompiledInstructions) {
  // The interpreter hoists the constants and dispatches the rest (core/src/custom/tape.cpp); a
  // tape of inputs and constants only is read in place. Either way every output must be the
  // value of the compiled instructions run in order, to the bit, at real and complex inputs.
  const Vars v;
  const std::vector<std::string> texts = {
      "sin(x)*cos(y) + exp(-z^2/2) + 2", "sqrt(x^2 + y^2 + 1) / (1 + abs(z))",
      "pow(x^2 + 1, 1.5) + log(2 + y^2)", "tan(x/3) + x^3*y - 2*y^4 + 5", "abs(x - y)"};
  std::vector<GiNaC::ex> all;
  for (const auto& t : texts) all.push_back(custom::parse_expression(t, v.symbols(), "e"));
  std::vector<GiNaC::ex> only_inputs_and_constants;  // the usual mu of a linear constraint
  for (const char* t : {"1", "z", "0", "x", "k"}) {
    only_inputs_and_constants.push_back(custom::parse_expression(t, v.symbols(), "e"));
  }
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (const auto& es : {all, only_inputs_and_constants}) {
    const custom::Tape tape = tape_of(v, es);
    for (int trial = 0; trial < 50; ++trial) {
      const double q[3] = {u(rng), u(rng), u(rng)};
      std::vector<double> out(es.size());
      tape.evaluate(q, out.data());
      EXPECT_EQ(out, run_compiled(tape, q));
      const std::complex<double> qc[3] = {{q[0], 1e-20}, {q[1], -2e-20}, {q[2], 3e-20}};
      std::vector<std::complex<double>> outc(es.size());
      tape.evaluate(qc, outc.data());
      EXPECT_EQ(outc, run_compiled(tape, qc));
    }
  }
}

/// A valid (3, 1) definition to vary in the tests below.
CustomSystemSpec base_spec() {
  CustomSystemSpec s;
  s.coordinates = {"x", "y", "phi"};
  s.parameters = {{"k", 2.0}, {"eps", 0.1}};
  s.mass_matrix = {{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "2*k"}};
  s.potential = "k*(x^4 + y^4)/4 + sin(x*y) - x/2";
  s.constraints = {{"sin(phi)", "eps - cos(phi)", "0"}};
  return s;
}

TEST(CustomExpression, DerivativesAgreeWithClosedForms) {
  const auto def = compile_custom_system(base_spec());
  EXPECT_EQ(def->nq, 3);
  EXPECT_EQ(def->nc, 1);
  EXPECT_TRUE(def->constraint_affine_along_forces);  // mu(phi), (M^-1 mu^T)_phi = 0
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 50; ++trial) {
    const double q[3] = {u(rng), u(rng), u(rng)};
    const double x = q[0], y = q[1];
    double g[3];
    def->grad_potential.evaluate(q, g);
    const double gx = 2.0 * x * x * x + y * std::cos(x * y) - 0.5;
    const double gy = 2.0 * y * y * y + x * std::cos(x * y);
    EXPECT_NEAR(g[0], gx, 1e-14 * std::max(1.0, std::abs(gx)));
    EXPECT_NEAR(g[1], gy, 1e-14 * std::max(1.0, std::abs(gy)));
    EXPECT_EQ(g[2], 0.0);
    double V;
    def->potential.evaluate(q, &V);
    const double vref = 0.5 * (x * x * x * x + y * y * y * y) + std::sin(x * y) - 0.5 * x;
    EXPECT_NEAR(V, vref, 1e-14 * std::max(1.0, std::abs(vref)));
  }
  EXPECT_EQ(def->mass(2, 2), 4.0);
  EXPECT_EQ(def->mass_inverse(2, 2), 0.25);
}

// A q-dependent M: the tapes of M(q) and of d/dq (1/2 v^T M(q) v) against closed forms, with
// M = [[1 + x^2, x y, 0], [x y, 2 + sin(y), 0], [0, 0, 4]].
TEST(CustomExpression, VaryingMassAndItsKineticGradientAgreeWithClosedForms) {
  auto spec = base_spec();
  spec.mass_matrix = {{"1 + x^2", "x*y", "0"}, {"y*x", "2 + sin(y)", "0"}, {"0", "0", "4"}};
  const auto def = compile_custom_system(spec);
  EXPECT_FALSE(def->constant_mass);
  EXPECT_FALSE(def->constraint_affine_along_forces);  // si_dla does not apply anyway
  EXPECT_EQ(def->mass.size(), 0);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 50; ++trial) {
    const double q[3] = {u(rng), u(rng), u(rng)}, v[3] = {u(rng), u(rng), u(rng)};
    const double x = q[0], y = q[1];
    double m[9];
    def->mass_entries.evaluate(q, m);
    const double mref[9] = {1 + x * x, x * y, 0, x * y, 2 + std::sin(y), 0, 0, 0, 4};
    for (int k = 0; k < 9; ++k)
      EXPECT_NEAR(m[k], mref[k], 1e-15 * std::max(1.0, std::abs(mref[k])));
    double in[6] = {q[0], q[1], q[2], v[0], v[1], v[2]}, g[3];
    def->kinetic_gradient.evaluate(in, g);
    // 1/2 v^T M v = 1/2 (1 + x^2) v0^2 + x y v0 v1 + 1/2 (2 + sin y) v1^2 + 2 v2^2.
    const double gx = x * v[0] * v[0] + y * v[0] * v[1];
    const double gy = x * v[0] * v[1] + 0.5 * std::cos(y) * v[1] * v[1];
    EXPECT_NEAR(g[0], gx, 1e-14 * std::max(1.0, std::abs(gx)));
    EXPECT_NEAR(g[1], gy, 1e-14 * std::max(1.0, std::abs(gy)));
    EXPECT_EQ(g[2], 0.0);
  }
  // Positive definiteness is a property of the state: at x = y = 3 the leading 2 x 2 block has
  // determinant 10 (2 + sin 3) - 81 < 0.
  EXPECT_EQ(custom_mass_problem(*def, Eigen::Vector3d(0.3, 0.2, 0.0)), std::nullopt);
  const auto problem = custom_mass_problem(*def, Eigen::Vector3d(3.0, 3.0, 0.0));
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("M(q) is not positive definite"), std::string::npos) << *problem;
}

bool same_tape(const custom::Tape& a, const custom::Tape& b) {
  if (a.num_inputs() != b.num_inputs() || a.outputs() != b.outputs() ||
      a.code().size() != b.code().size()) {
    return false;
  }
  for (std::size_t k = 0; k < a.code().size(); ++k) {
    const auto &x = a.code()[k], &y = b.code()[k];
    if (x.op != y.op || x.a != y.a || x.b != y.b || x.value != y.value) return false;
  }
  return true;
}

// GiNaC orders sums and products by hashes of symbol serial numbers, which grow with every
// symbol the process makes; the tapes must not depend on them (same spec, same bits).
TEST(CustomExpression, TheSameDefinitionGivesTheSameTapeWhateverGinacDidBefore) {
  CustomSystemSpec s;
  s.coordinates = {"x", "w1", "w2", "w3", "z1", "z2", "z3"};
  for (int i = 0; i < 7; ++i) {
    std::vector<std::string> row;
    for (int j = 0; j < 7; ++j) row.emplace_back(i == j ? "2" : "0");
    s.mass_matrix.push_back(row);
  }
  s.potential =
      "(x^2 + w1^2 + w2^2 + w3^2 + z1^2 + z2^2 + z3^2 + z1^2*z2^2 + w1^2*z1^2 + w2^2*z2^2 + "
      "w3^2*z3^2) / 2 + sin(x*w1 - z3) * exp(w2 + z1) / (1 + z2^2)";
  s.constraints = {{"1", "0", "0", "0", "w1*z2", "w2 - z1", "w3 + x*z3"}};
  const auto first = compile_custom_system(s);
  std::vector<GiNaC::realsymbol> others;
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 7 * round + 3; ++k) others.emplace_back("t");  // new serials
    CustomSystemSpec spaced = s;  // other text, the same expression: compiled again, not cached
    spaced.potential += std::string(static_cast<std::size_t>(round) + 1, ' ');
    const auto again = compile_custom_system(spaced);
    ASSERT_NE(again, first);
    EXPECT_TRUE(same_tape(first->potential, again->potential)) << round;
    EXPECT_TRUE(same_tape(first->grad_potential, again->grad_potential)) << round;
    EXPECT_TRUE(same_tape(first->constraint, again->constraint)) << round;
  }
}

// Random token soup (a deterministic stand-in for a fuzzer, which this release lacks): every
// string either compiles or is refused with a SpecError on the potential, nothing else.
TEST(CustomExpression, RandomStringsCompileOrAreRefusedWithTheField) {
  const std::vector<std::string> tokens = {
      "x",     "y",     "phi",  "k",    "eps",      "pi",   "1",     "0",    "2.5",
      "1e-3",  "1e308", "+",    "-",    "*",        "/",    "^",     "(",    ")",
      ",",     "sin(",  "cos(", "tan(", "exp(",     "log(", "sqrt(", "abs(", "pow(",
      "asin(", "q",     "$",    " ",    "10^10^10", ".",    "e",     "E5"};
  std::mt19937_64 rng(16);
  std::uniform_int_distribution<std::size_t> pick(0, tokens.size() - 1), len(1, 40);
  int compiled = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    CustomSystemSpec s;
    s.coordinates = {"x", "y", "phi"};
    s.parameters = {{"k", 2.0}, {"eps", 0.1}};
    s.mass_matrix = {{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "1"}};
    s.constraints = {{"sin(phi)", "eps - cos(phi)", "0"}};
    const std::size_t n = len(rng);
    for (std::size_t i = 0; i < n; ++i) s.potential += tokens[pick(rng)];
    try {
      (void)compile_custom_system(s);
      ++compiled;
    } catch (const SpecError& e) {
      EXPECT_EQ(e.field(), "custom_system.potential") << s.potential << ": " << e.what();
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "'" << s.potential << "': " << e.what();
    }
  }
  RecordProperty("compiled", compiled);
  RecordProperty("refused", refused);
  EXPECT_GT(compiled, 0);
  EXPECT_GT(refused, 0);
}

/// The SpecError of compile_custom_system(s): field and reason.
std::pair<std::string, std::string> error_of(const CustomSystemSpec& s) {
  try {
    (void)compile_custom_system(s);
  } catch (const SpecError& e) {
    return {e.field(), e.reason()};
  }
  return {"(no error)", ""};
}

void expect_error(const CustomSystemSpec& s, const std::string& field, const std::string& part) {
  const auto [f, why] = error_of(s);
  EXPECT_EQ(f, field) << why;
  EXPECT_NE(why.find(part), std::string::npos) << "'" << why << "' lacks '" << part << "'";
}

TEST(CustomExpression, ParseErrorsNameTheFieldAndPosition) {
  auto with_v = [](const std::string& v) {
    auto s = base_spec();
    s.potential = v;
    return s;
  };
  const std::string f = "custom_system.potential";
  expect_error(with_v("x + * y"), f, "at position 4: unexpected '*'");
  expect_error(with_v("x + w"), f, "at position 4: unknown name 'w'");
  expect_error(with_v("2*asin(x)"), f, "at position 2: unknown function 'asin'");
  expect_error(with_v("sin(x, y)"), f, "at position 0: 'sin' takes 1 argument, given 2");
  expect_error(with_v("pow(x)"), f, "at position 0: 'pow' takes 2 arguments, given 1");
  expect_error(with_v("(x + y"), f, "at position 6: expected ')', found the end");
  expect_error(with_v("x y"), f, "at position 2: unexpected 'y'");
  expect_error(with_v(""), f, "at position 0: empty expression");
  expect_error(with_v("x + 1/0"), f, "at position 5: division by zero");
  expect_error(with_v("1e400*x"), f, "at position 0: number '1e400' is not a finite double");
  expect_error(with_v("x + 2e-310"), f,
               "at position 4: number '2e-310' is below the normal range of doubles");
  expect_error(with_v("x + 10^10^10"), f, "at position 6: a power of numbers beyond double");
  // Constant powers and exponentials GiNaC keeps symbolic and would fold at arbitrary
  // precision (found by tests/fuzz/expression_fuzzer.cpp: 1.1 GB for the first).
  expect_error(with_v("x + 10^10^(1013^pi)"), f, "at position 9: a power of constants beyond");
  expect_error(with_v("x + exp(10^300)"), f, "at position 4: exp of a constant beyond double");
  EXPECT_EQ(error_of(with_v("x*2^pi + exp(700)*y")).first, "(no error)");
  // Any base: an exponent beyond +-1024 (a power of a sum to 2^84 ran for minutes in GMP).
  expect_error(with_v("(y^4 + 1/2)^(2^21)^(2^2) + x"), f, "at position 11: an exponent beyond");
  EXPECT_EQ(error_of(with_v("(y^4 + 1/2)^1024 + x^-1024")).first, "(no error)");
  // Exact rational powers by their size (minutes under the GiNaC lock).
  expect_error(with_v("((10001/10000)^1024)^1024*x^2"), f,
               "at position 20: a power of numbers of more than 65536 bits exactly");
  EXPECT_EQ(error_of(with_v("(10001/10000)^1024*x^2 + 2^1000*y/2^1000")).first, "(no error)");
  expect_error(with_v("x $ y"), f, "at position 2: unexpected '$'");
  expect_error(with_v("sin"), f, "at position 0: function 'sin' needs arguments");
  expect_error(with_v("x + 1.e"), f, "at position 4: malformed number");
  // Depth: 64 nested parentheses parse, 65 do not (the 65th '(' is at position 64).
  expect_error(with_v(std::string(65, '(') + "x" + std::string(65, ')')), f,
               "at position 64: nested deeper than the limit 64");
  EXPECT_EQ(error_of(with_v(std::string(64, '(') + "x" + std::string(64, ')'))).first,
            "(no error)");
  expect_error(with_v(std::string(5000, ' ') + "x"), f,
               "expression of 5001 characters, more than the limit 4096");
  // The register limit: d/dx of a product of 300 factors has 300 products of 299.
  std::string product = "1";
  for (int k = 1; k <= 300; ++k) product += "*(x+" + std::to_string(k) + ")";
  expect_error(with_v(product), f, "dV/dq: the compiled expressions need more than 4096 registers");
  // In a matrix entry: the entry's field.
  auto s = base_spec();
  s.constraints[0][1] = "eps - coz(phi)";
  expect_error(s, "custom_system.constraints[0][1]", "at position 6: unknown function 'coz'");
}

// CLN (GiNaC's numbers) makes no float from a subnormal double: it throws. A parameter value
// below the normal range is refused with its field (DefinitionErrorsNameTheField; the spec
// fuzzer found one), and an M^-1 entry there, which the definition computes itself, is compiled.
TEST(CustomExpression, MassInverseBelowTheNormalRangeIsCompiled) {
  auto s = base_spec();  // M = diag(k, k, 2 k) = diag(8e307, 8e307, 1.6e308): (M^-1)_22 = 6.25e-309
  s.parameters[0].second = 8e307;
  s.mass_matrix[0][0] = "k";
  s.mass_matrix[1][1] = "k";
  EXPECT_TRUE(compile_custom_system(s)->constraint_affine_along_forces);  // si_dla's check
}

// The symmetry check of a q-dependent M expands M_ij - M_ji; a product of powers of sums expands
// by the multinomial theorem into a number of terms that takes minutes (degree 400 in three
// variables held a request thread for minutes): refused on its entry before it is expanded.
TEST(CustomExpression, AnExpansionBeyondTheBoundIsRefusedBeforeItRuns) {
  auto s = base_spec();
  s.mass_matrix[0][1] = "(x+y+phi)^200*(x-y+phi)^200";  // about 4e8 terms
  s.mass_matrix[1][0] = "((x+phi)^2-y^2)^200";
  expect_error(s, "custom_system.mass_matrix[0][1]",
               "checking that M is symmetric expands M_ij - M_ji to about 4.14e+08 terms, beyond "
               "the 100000 a definition may expand to in all");
  // Within the bound (about 120 terms) the same identity compiles.
  s.mass_matrix[0][1] = "(x+y+phi)^3*(x-y+phi)^3/8";
  s.mass_matrix[1][0] = "((x+phi)^2-y^2)^3/8";
  s.mass_matrix[0][0] = "2 + x^2";  // positive definite near 0
  EXPECT_FALSE(compile_custom_system(s)->constant_mass);
}

// Compiles are deterministic: the same fields give the definition compiled before (a job's spec
// is checked at submission and again at its start; ListSystems and a sweep's cases repeat them).
TEST(CustomExpression, TheSameDefinitionIsCompiledOnce) {
  const auto first = compile_custom_system(base_spec());
  auto named = base_spec();
  named.name = "registered";  // no effect on the computation
  EXPECT_EQ(compile_custom_system(named), first);
  auto other = base_spec();
  other.parameters[0].second = std::nextafter(2.0, 3.0);  // one ulp: another definition
  const auto changed = compile_custom_system(other);
  EXPECT_NE(changed, first);
  EXPECT_NE(changed->mass(2, 2), first->mass(2, 2));
  auto moved = base_spec();
  moved.potential += " + 0";  // another text, though the same function
  EXPECT_NE(compile_custom_system(moved), first);
}

TEST(CustomExpression, DefinitionErrorsNameTheField) {
  auto s = base_spec();
  s.mass_matrix[1] = {"0", "1"};
  expect_error(s, "custom_system.mass_matrix[1]", "has 2 entries, expected 3");
  s = base_spec();
  s.mass_matrix.pop_back();
  expect_error(s, "custom_system.mass_matrix", "has 2 rows, expected 3");
  s = base_spec();
  s.mass_matrix[1][2] = "0.5";
  expect_error(s, "custom_system.mass_matrix[1][2]", "differs from mass_matrix[2][1]");
  s = base_spec();
  s.mass_matrix[0][0] = "-1";
  expect_error(s, "custom_system.mass_matrix", "not positive definite");
  s = base_spec();  // a q-dependent M must be symmetric identically in q
  s.mass_matrix[1][2] = "x";
  s.mass_matrix[2][1] = "x^2";
  expect_error(s, "custom_system.mass_matrix[1][2]", "differs from mass_matrix[2][1]");
  s = base_spec();
  s.constraints[0] = {"sin(phi)", "1"};
  expect_error(s, "custom_system.constraints[0]", "has 2 entries, expected 3");
  s = base_spec();
  s.coordinates[2] = "x";
  expect_error(s, "custom_system.coordinates[2]", "'x' is defined twice");
  s = base_spec();
  s.parameters[0].first = "sin";
  expect_error(s, "custom_system.parameters[0].name", "'sin' is a reserved name");
  s = base_spec();
  s.parameters[1].second = std::nan("");
  expect_error(s, "custom_system.parameters[1].value", "must be finite");
  s = base_spec();  // CLN, GiNaC's numbers, has no subnormal floats
  s.parameters[1].second = 2.65071e-312;
  expect_error(s, "custom_system.parameters[1].value", "is subnormal");
  s = base_spec();
  s.coordinates[1] = "2y";
  expect_error(s, "custom_system.coordinates[1]", "is not a name");
  s = base_spec();
  s.constraints.push_back({"0", "0", "1"});
  s.constraints.push_back({"0", "1", "0"});
  expect_error(s, "custom_system.constraints",
               "3 rows for 3 coordinates: a nonholonomic system has 1 <= rows < coordinates");
  s = base_spec();
  s.constraints.clear();
  expect_error(s, "custom_system.constraints", "0 rows for 3 coordinates");
  s = base_spec();
  for (int i = 0; i < kMaxCustomCoordinates; ++i) {
    s.coordinates.push_back(std::string("w").append(std::to_string(i)));  // (GCC 12: no "w" + s)
  }
  expect_error(s, "custom_system.coordinates", "35 coordinates: at most 32");
  // d/dy 0^y divides by zero inside GiNaC: found by tests/fuzz/expression_fuzzer.cpp
  // (tests/fuzz/expression_regressions/), it escaped as GiNaC's std::runtime_error instead of a
  // SpecError. The parser refuses 0 to a non-constant power, with its position.
  s = base_spec();
  s.potential = "log(0^y + 2)";
  expect_error(s, "custom_system.potential", "at position 5: 0 to a power that is not a number");
  s = base_spec();
  s.potential = "pow(x - x, y)";
  expect_error(s, "custom_system.potential", "0 to a power that is not a number");
  s = base_spec();
  s.potential = "x + 0^exp(-1)";  // a constant power GiNaC keeps: the same division inside
  expect_error(s, "custom_system.potential", "at position 5: 0 to a power that is not a number");
  // Rank of mu at a state.
  s = base_spec();
  s.constraints[0] = {"sin(phi)", "0", "0"};
  const auto def = compile_custom_system(s);
  EXPECT_NO_THROW(check_custom_system_at(*def, Eigen::Vector3d(0, 0, 1.0), "here"));
  try {
    check_custom_system_at(*def, Eigen::Vector3d(0, 0, 0.0), "initial_conditions.states[2]");
    ADD_FAILURE() << "no error for mu = 0";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "custom_system.constraints");
    EXPECT_EQ(e.reason(), "mu(q) has rank 0 < 1 rows at initial_conditions.states[2]");
  }
}

}  // namespace
}  // namespace nhsim
