// The infix parser of user-defined systems (parser.hpp): recursive descent over the string,
// building GiNaC expressions, with every check at the token it concerns.
#include "custom/parser.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "nhsim/dmath.hpp"
#include "nhsim/spec_types.hpp"

namespace nhsim::custom {
namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, GiNaC::ex>& symbols,
         const std::string& field)
      : s_(text), symbols_(symbols), field_(field) {}

  GiNaC::ex parse() {
    if (s_.size() > kMaxExpressionLength) {
      throw SpecError(field_, "expression of " + std::to_string(s_.size()) +
                                  " characters, more than the limit " +
                                  std::to_string(kMaxExpressionLength));
    }
    skip_space();
    if (pos_ == s_.size()) fail(pos_, "empty expression");
    GiNaC::ex e = expr();
    skip_space();
    if (pos_ != s_.size()) fail(pos_, "unexpected '" + std::string(1, s_[pos_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& why) const {
    throw SpecError(field_, "at position " + std::to_string(at) + ": " + why);
  }

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return;
    }
    // Appended piece by piece: GCC 12's -Warray-bounds misreads the inlined operator+ chain
    // under -fsanitize=thread (scripts/sanitize tsan) as an overflow.
    std::string what = "expected '";
    what += c;
    if (pos_ >= s_.size()) {
      what += "', found the end";
    } else {
      what += "', found '";
      what += s_[pos_];
      what += '\'';
    }
    fail(pos_, what);
  }

  /// Enters one nesting level (parenthesis, unary sign, call, exponent); checks the limit.
  struct Depth {
    Depth(Parser& p, std::size_t at) : p_(p) {
      if (++p_.depth_ > kMaxExpressionDepth) {
        p_.fail(at, "nested deeper than the limit " + std::to_string(kMaxExpressionDepth));
      }
    }
    ~Depth() { --p_.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    Parser& p_;
  };

  /// a op b where GiNaC may throw on constants (division by zero): the error at `at`.
  template <class F>
  GiNaC::ex guarded(std::size_t at, F&& f) {
    try {
      return f();
    } catch (const SpecError&) {
      throw;
    } catch (const std::exception& e) {
      fail(at, e.what());
    }
  }

  GiNaC::ex expr() {
    GiNaC::ex e = term();
    for (;;) {
      skip_space();
      const std::size_t at = pos_;
      if (accept('+')) {
        GiNaC::ex r = term();
        e = guarded(at, [&] { return e + r; });
      } else if (accept('-')) {
        GiNaC::ex r = term();
        e = guarded(at, [&] { return e - r; });
      } else {
        return e;
      }
    }
  }

  GiNaC::ex term() {
    GiNaC::ex e = unary();
    for (;;) {
      skip_space();
      const std::size_t at = pos_;
      if (accept('*')) {
        GiNaC::ex r = unary();
        e = guarded(at, [&] { return e * r; });
      } else if (accept('/')) {
        GiNaC::ex r = unary();
        if (r.is_zero()) fail(at, "division by zero");
        e = guarded(at, [&] { return e / r; });
      } else {
        return e;
      }
    }
  }

  GiNaC::ex unary() {
    skip_space();
    const std::size_t at = pos_;
    if (accept('-')) {
      Depth d(*this, at);
      GiNaC::ex e = unary();
      return guarded(at, [&] { return -e; });
    }
    if (accept('+')) {
      Depth d(*this, at);
      return unary();
    }
    return power();
  }

  GiNaC::ex power() {
    GiNaC::ex base = primary();
    skip_space();
    const std::size_t at = pos_;
    if (!accept('^')) return base;
    Depth d(*this, at);
    GiNaC::ex expo = unary();
    check_numeric_power(base, expo, at);
    return guarded(at, [&] { return GiNaC::pow(base, expo); });
  }

  /// number ^ number is evaluated by GiNaC at once, exactly for integers: refuse what would
  /// be huge (or has no finite double value) before it is built. 0 ^ (anything but a number) is
  /// refused too: GiNaC keeps it unevaluated, and its derivative divides by zero and leaks the
  /// expression it was building (0^y and 0^exp(-1), found by tests/fuzz/expression_fuzzer.cpp);
  /// 0^y has no derivative at y = 0 anyway.
  void check_numeric_power(const GiNaC::ex& base, const GiNaC::ex& expo, std::size_t at) const {
    if (base.is_zero() && !GiNaC::is_exactly_a<GiNaC::numeric>(expo)) {
      fail(at, "0 to a power that is not a number");
    }
    // A non-numeric base (number ^ number is checked below): a numeric exponent beyond the
    // integer limit. GiNaC's exact arithmetic on such powers can take unbounded time (a
    // 159-character definition with (...)^(2^84) ran for minutes in GMP; found by
    // tests/fuzz/expression_fuzzer.cpp).
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(base) && GiNaC::is_exactly_a<GiNaC::numeric>(expo) &&
        !(std::abs(GiNaC::ex_to<GiNaC::numeric>(expo).to_double()) <=
          static_cast<double>(kMaxIntegerExponent))) {
      fail(at, "an exponent beyond +-" + std::to_string(kMaxIntegerExponent));
    }
    if (has_symbol(base) || has_symbol(expo)) return;  // evaluated by the tape, in doubles
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(base) || !GiNaC::is_exactly_a<GiNaC::numeric>(expo)) {
      // A constant power GiNaC keeps symbolic (pi or a function of a number in it), folded by
      // evalf later at arbitrary precision: 10^10^(1013^pi) made CLN allocate 1.1 GB (found by
      // tests/fuzz/expression_fuzzer.cpp). Its operands' values are bounded by these checks
      // when they were built, so they evaluate safely to doubles.
      const double b = constant_value(base), n = constant_value(expo);
      if (!std::isfinite(b) || !std::isfinite(n) || (b == 0.0 && n <= 0.0) ||
          (b != 0.0 && std::abs(n) * std::abs(dmath::log2(std::abs(b))) > 1000.0)) {
        fail(at, "a power of constants beyond double range");
      }
      return;
    }
    const auto& b = GiNaC::ex_to<GiNaC::numeric>(base);
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(expo);
    if (!b.is_real() || !n.is_real()) fail(at, "complex number in a power");
    if (b.is_zero() && !n.is_positive()) fail(at, "0 to a power <= 0");
    const double bd = std::abs(b.to_double()), nd = std::abs(n.to_double());
    if (!std::isfinite(bd) || !std::isfinite(nd) ||
        (bd != 0.0 && nd * std::abs(dmath::log2(bd)) > 1000.0) ||
        (n.is_integer() && nd > static_cast<double>(kMaxIntegerExponent))) {
      fail(at, "a power of numbers beyond double range or with an integer exponent beyond +-" +
                   std::to_string(kMaxIntegerExponent));
    }
    if (b.is_rational() &&
        nd * static_cast<double>(b.numer().int_length() + b.denom().int_length()) >
            kMaxExactPowerBits) {
      fail(at, "a power of numbers of more than " +
                   std::to_string(static_cast<long>(kMaxExactPowerBits)) + " bits exactly");
    }
  }

  /// Whether e depends on a coordinate (the parameters are numbers here, pi is a constant).
  static bool has_symbol(const GiNaC::ex& e) {
    if (GiNaC::is_a<GiNaC::symbol>(e)) return true;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      if (has_symbol(e.op(i))) return true;
    }
    return false;
  }

  /// The double value of a coordinate-free expression (NaN where it is not real).
  static double constant_value(const GiNaC::ex& e) {
    const GiNaC::ex v = e.evalf();
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    return GiNaC::ex_to<GiNaC::numeric>(v).to_double();
  }

  GiNaC::ex primary() {
    skip_space();
    const std::size_t at = pos_;
    if (pos_ >= s_.size()) fail(pos_, "expected a number, a name or '(', found the end");
    const char c = s_[pos_];
    if (c == '(') {
      Depth d(*this, at);
      ++pos_;
      GiNaC::ex e = expr();
      expect(')');
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(at, std::string("unexpected '") + c + "'");
  }

  GiNaC::ex number() {
    const std::size_t at = pos_;
    std::size_t i = pos_;
    auto digits = [&] {
      const std::size_t start = i;
      while (i < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i]))) ++i;
      return i - start;
    };
    std::size_t nd = digits();
    bool exact = true;
    if (i < s_.size() && s_[i] == '.') {
      exact = false;
      ++i;
      nd += digits();
    }
    if (nd == 0) fail(at, "malformed number");
    if (i < s_.size() && (s_[i] == 'e' || s_[i] == 'E')) {
      exact = false;
      ++i;
      if (i < s_.size() && (s_[i] == '+' || s_[i] == '-')) ++i;
      if (digits() == 0) fail(at, "malformed number (exponent without digits)");
    }
    const std::string tok = s_.substr(pos_, i - pos_);
    pos_ = i;
    if (exact && tok.size() <= 15) return GiNaC::numeric(std::stol(tok));
    errno = 0;
    const double v = std::strtod(tok.c_str(), nullptr);
    if (!std::isfinite(v)) fail(at, "number '" + tok + "' is not a finite double");
    // Below the normal range (rounded to a subnormal or to 0): CLN, GiNaC's numbers, has no
    // subnormals.
    if (errno == ERANGE || std::fpclassify(v) == FP_SUBNORMAL) {
      fail(at, "number '" + tok + "' is below the normal range of doubles (2.2e-308)");
    }
    return GiNaC::numeric(v);
  }

  GiNaC::ex name() {
    const std::size_t at = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      ++pos_;
    }
    const std::string id = s_.substr(at, pos_ - at);
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '(') {
      Depth d(*this, at);
      ++pos_;
      std::vector<GiNaC::ex> args;
      args.push_back(expr());
      while (accept(',')) args.push_back(expr());
      expect(')');
      return call(id, args, at);
    }
    if (const auto it = symbols_.find(id); it != symbols_.end()) return it->second;
    if (id == "pi") return GiNaC::Pi;
    if (is_function(id)) fail(at, "function '" + id + "' needs arguments in parentheses");
    fail(at, "unknown name '" + id + "' (not a coordinate, parameter or pi)");
  }

  static bool is_function(const std::string& id) {
    return id == "sin" || id == "cos" || id == "tan" || id == "exp" || id == "log" ||
           id == "sqrt" || id == "abs" || id == "pow";
  }

  GiNaC::ex call(const std::string& id, const std::vector<GiNaC::ex>& args, std::size_t at) {
    if (!is_function(id)) {
      fail(at, "unknown function '" + id + "' (allowed: sin, cos, tan, exp, log, sqrt, abs, pow)");
    }
    const std::size_t want = id == "pow" ? 2 : 1;
    if (args.size() != want) {
      fail(at, "'" + id + "' takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") +
                   ", given " + std::to_string(args.size()));
    }
    const GiNaC::ex& a = args[0];
    if (id == "log" && a.is_zero()) fail(at, "log(0)");
    return guarded(at, [&]() -> GiNaC::ex {
      if (id == "sin") return GiNaC::sin(a);
      if (id == "cos") return GiNaC::cos(a);
      if (id == "tan") return GiNaC::tan(a);
      if (id == "exp") {
        // exp of a huge constant: CLN's evalf converts it to an integer first (as above).
        if (!has_symbol(a) && !(constant_value(a) <= 709.0)) {
          fail(at, "exp of a constant beyond double range (or not real)");
        }
        return GiNaC::exp(a);
      }
      if (id == "log") return GiNaC::log(a);
      if (id == "sqrt") return GiNaC::sqrt(a);
      if (id == "abs") return GiNaC::abs(a);
      check_numeric_power(a, args[1], at);
      return GiNaC::pow(a, args[1]);
    });
  }

  const std::string& s_;
  const std::map<std::string, GiNaC::ex>& symbols_;
  const std::string& field_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

GiNaC::ex parse_expression(const std::string& text, const std::map<std::string, GiNaC::ex>& symbols,
                           const std::string& field) {
  return Parser(text, symbols, field).parse();
}

}  // namespace nhsim::custom
