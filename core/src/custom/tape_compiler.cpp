// GiNaC expression trees -> register tape (tape_compiler.hpp).
#include "custom/tape_compiler.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace nhsim::custom {

TapeCompiler::TapeCompiler(std::vector<GiNaC::ex> inputs) : inputs_(std::move(inputs)) {
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    by_tree_.emplace(inputs_[i], static_cast<int>(i));
}

int TapeCompiler::add_output(const GiNaC::ex& e) {
  outputs_.push_back(compile(e));
  return static_cast<int>(outputs_.size()) - 1;
}

Tape TapeCompiler::finish() const {
  return Tape(static_cast<int>(inputs_.size()), code_, outputs_);
}

bool TapeCompiler::depends_on_inputs(const GiNaC::ex& e) const {
  for (const GiNaC::ex& x : inputs_) {
    if (e.has(x)) return true;
  }
  return false;
}

int TapeCompiler::emit(TapeOp op, int a, int b, double value) {
  // Commutative operations share one instruction for either operand order (a + b == b + a
  // exactly in IEEE arithmetic).
  if ((op == TapeOp::kAdd || op == TapeOp::kMul) && b < a) std::swap(a, b);
  const auto key = std::make_tuple(static_cast<int>(op), a, b, std::bit_cast<std::uint64_t>(value));
  if (const auto it = by_instruction_.find(key); it != by_instruction_.end()) return it->second;
  const int reg = static_cast<int>(inputs_.size() + code_.size());
  if (reg >= kMaxTapeRegisters) {
    throw std::length_error("the compiled expressions need more than " +
                            std::to_string(kMaxTapeRegisters) + " registers");
  }
  code_.push_back(TapeInstruction{op, a, b, value});
  by_instruction_.emplace(key, reg);
  return reg;
}

int TapeCompiler::constant(double v) {
  if (!std::isfinite(v)) throw std::domain_error("a constant subexpression is not finite");
  return emit(TapeOp::kConst, 0, 0, v);
}

int TapeCompiler::compile(const GiNaC::ex& e) {
  if (const auto it = by_tree_.find(e); it != by_tree_.end()) return it->second;
  int reg;
  if (!depends_on_inputs(e)) {
    const GiNaC::ex v = e.evalf();
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) {
      throw std::domain_error("a constant subexpression does not evaluate to a real number");
    }
    reg = constant(GiNaC::ex_to<GiNaC::numeric>(v).to_double());
  } else if (GiNaC::is_exactly_a<GiNaC::add>(e)) {
    reg = compile_add(e);
  } else if (GiNaC::is_exactly_a<GiNaC::mul>(e)) {
    reg = compile_mul(e);
  } else if (GiNaC::is_exactly_a<GiNaC::power>(e)) {
    reg = compile_power(e.op(0), e.op(1));
  } else if (GiNaC::is_a<GiNaC::function>(e)) {
    reg = compile_function(e);
  } else {
    std::ostringstream os;
    os << e;
    throw std::domain_error("unsupported expression '" + os.str() + "'");
  }
  by_tree_.emplace(e, reg);
  return reg;
}

namespace {

/// The numeric coefficient of a term (1 if it has none).
GiNaC::numeric coefficient(const GiNaC::ex& t) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(t)) return GiNaC::ex_to<GiNaC::numeric>(t);
  if (GiNaC::is_exactly_a<GiNaC::mul>(t)) {
    const GiNaC::ex last = t.op(t.nops() - 1);
    if (GiNaC::is_exactly_a<GiNaC::numeric>(last)) return GiNaC::ex_to<GiNaC::numeric>(last);
  }
  return GiNaC::numeric(1);
}

bool negative(const GiNaC::numeric& c) { return c.is_real() && c.is_negative(); }

}  // namespace

const std::string& TapeCompiler::key(const GiNaC::ex& e) {
  if (const auto it = keys_.find(e); it != keys_.end()) return it->second;
  std::ostringstream os;
  auto operands = [&](const char* tag, bool sorted) {
    std::vector<std::string> ks;
    for (std::size_t i = 0; i < e.nops(); ++i) ks.push_back(key(e.op(i)));
    if (sorted) std::sort(ks.begin(), ks.end());
    os << tag << '(';
    for (const auto& k : ks) os << k << ',';
    os << ')';
  };
  if (GiNaC::is_a<GiNaC::symbol>(e)) {
    os << "s:" << GiNaC::ex_to<GiNaC::symbol>(e).get_name();
  } else if (GiNaC::is_exactly_a<GiNaC::add>(e)) {
    operands("+", true);
  } else if (GiNaC::is_exactly_a<GiNaC::mul>(e)) {
    operands("*", true);
  } else if (GiNaC::is_exactly_a<GiNaC::power>(e)) {
    operands("^", false);
  } else if (GiNaC::is_a<GiNaC::function>(e)) {
    operands(GiNaC::ex_to<GiNaC::function>(e).get_name().c_str(), false);
  } else {
    os << "v:" << e;  // numbers and constants print the same whatever the symbols' serials
  }
  return keys_.emplace(e, os.str()).first->second;
}

std::vector<GiNaC::ex> TapeCompiler::sorted_operands(const GiNaC::ex& e) {
  std::vector<GiNaC::ex> out;
  for (std::size_t i = 0; i < e.nops(); ++i) out.push_back(e.op(i));
  sort_by_key(out);
  return out;
}

void TapeCompiler::sort_by_key(std::vector<GiNaC::ex>& es) {
  std::stable_sort(es.begin(), es.end(),
                   [&](const GiNaC::ex& a, const GiNaC::ex& b) { return key(a) < key(b); });
}

int TapeCompiler::compile_add(const GiNaC::ex& e) {
  // Start from a term with a positive coefficient where there is one: x - y, not -y + x.
  const std::vector<GiNaC::ex> terms = sorted_operands(e);
  const std::size_t n = terms.size();
  std::size_t first = 0;
  while (first < n && negative(coefficient(terms[first]))) ++first;
  if (first == n) first = 0;
  int acc = compile(terms[first]);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == first) continue;
    const GiNaC::ex& t = terms[i];
    if (negative(coefficient(t))) {
      acc = emit(TapeOp::kSub, acc, compile(-t));
    } else {
      acc = emit(TapeOp::kAdd, acc, compile(t));
    }
  }
  return acc;
}

int TapeCompiler::compile_mul(const GiNaC::ex& e) {
  GiNaC::numeric c(1);
  std::vector<GiNaC::ex> num, den;
  for (std::size_t i = 0; i < e.nops(); ++i) {
    const GiNaC::ex f = e.op(i);
    if (GiNaC::is_exactly_a<GiNaC::numeric>(f)) {
      c *= GiNaC::ex_to<GiNaC::numeric>(f);
    } else if (GiNaC::is_exactly_a<GiNaC::power>(f) &&
               GiNaC::is_exactly_a<GiNaC::numeric>(f.op(1)) &&
               negative(GiNaC::ex_to<GiNaC::numeric>(f.op(1)))) {
      den.push_back(GiNaC::pow(f.op(0), -f.op(1)));
    } else {
      num.push_back(f);
    }
  }
  if (!c.is_real()) throw std::domain_error("a complex coefficient");
  sort_by_key(num);
  sort_by_key(den);
  auto product = [&](const std::vector<GiNaC::ex>& fs) {
    int r = compile(fs[0]);
    for (std::size_t i = 1; i < fs.size(); ++i) r = emit(TapeOp::kMul, r, compile(fs[i]));
    return r;
  };
  if (num.empty()) {  // c / den
    return emit(TapeOp::kDiv, constant(c.to_double()), product(den));
  }
  int r = product(num);
  if (!den.empty()) r = emit(TapeOp::kDiv, r, product(den));
  if (c == 1) return r;
  if (c == -1) return emit(TapeOp::kNeg, r);
  const GiNaC::numeric k = c.denom();
  const GiNaC::numeric top = c.numer();
  if (c.is_rational() && (top == 1 || top == -1) && k < GiNaC::numeric(1L << 53)) {
    r = emit(TapeOp::kDiv, r, constant(k.to_double()));  // x/k as written, correctly rounded
    return top == 1 ? r : emit(TapeOp::kNeg, r);
  }
  return emit(TapeOp::kMul, constant(c.to_double()), r);
}

int TapeCompiler::int_power(int base, long n) {
  if (n == 1) return base;
  const int half = int_power(base, n / 2);
  const int sq = emit(TapeOp::kMul, half, half);
  return n % 2 == 0 ? sq : emit(TapeOp::kMul, sq, base);
}

int TapeCompiler::compile_power(const GiNaC::ex& base, const GiNaC::ex& expo) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(expo)) {
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(expo);
    if (n.is_integer() && n != 0 && GiNaC::abs(n) <= 64) {
      const long k = n.to_long();
      const int p = int_power(compile(base), k < 0 ? -k : k);
      return k > 0 ? p : emit(TapeOp::kDiv, constant(1.0), p);
    }
    if (n == GiNaC::numeric(1, 2)) return emit(TapeOp::kSqrt, compile(base));
    if (n == GiNaC::numeric(-1, 2)) {
      return emit(TapeOp::kDiv, constant(1.0), emit(TapeOp::kSqrt, compile(base)));
    }
  }
  return emit(TapeOp::kPow, compile(base), compile(expo));
}

int TapeCompiler::compile_function(const GiNaC::ex& e) {
  const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
  if (e.nops() != 1) throw std::domain_error("unsupported function '" + name + "'");
  const GiNaC::ex a = e.op(0);
  if (name == "real_part" || name == "conjugate") return compile(a);  // real inputs
  if (name == "imag_part") return constant(0.0);
  static const std::map<std::string, TapeOp> kOps = {
      {"sin", TapeOp::kSin}, {"cos", TapeOp::kCos}, {"tan", TapeOp::kTan},  {"exp", TapeOp::kExp},
      {"log", TapeOp::kLog}, {"abs", TapeOp::kAbs}, {"csgn", TapeOp::kSign}};
  const auto it = kOps.find(name);
  if (it == kOps.end()) throw std::domain_error("unsupported function '" + name + "'");
  return emit(it->second, compile(a));
}

}  // namespace nhsim::custom
