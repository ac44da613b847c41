// Internal: the infix expression parser of user-defined systems. Turns one string
// into a GiNaC expression over the given symbols, or throws SpecError naming the field and the
// position (0-based character offset) of the problem.
//
// Grammar (whitespace between tokens ignored):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('+' | '-') unary | power
//   power   := primary ('^' unary)?            (right associative: a^b^c = a^(b^c); -x^2 = -(x^2))
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
//   number  := digits ['.' digits] [('e' | 'E') ['+' | '-'] digits]   (also '.5')
// Names are the given symbols (coordinates, parameters), the constant `pi` and the functions of
// the whitelist: sin, cos, tan, exp, log, sqrt, abs (one argument), pow (two). Integers without
// '.' or exponent are exact (so 1/2 and x^2 stay exact); other numbers are IEEE doubles.
//
// Why not GiNaC's own reader: it accepts every GiNaC function (the whitelist would be checked
// after the fact, without positions) and evaluates numeric powers eagerly (10^10^10 would build
// a 10^10-digit integer before any check could run). This parser builds the same GiNaC trees
// with each check at its token.
#pragma once

#include <ginac/ginac.h>

#include <map>
#include <string>

namespace nhsim::custom {

/// Limits on one expression string.
inline constexpr std::size_t kMaxExpressionLength = 4096;  ///< characters
inline constexpr int kMaxExpressionDepth = 64;     ///< nesting of parentheses, unary signs, calls
inline constexpr long kMaxIntegerExponent = 1024;  ///< |n| of a numeric base ^ integer n
/// |n| (bits of b's numerator + bits of its denominator) of a rational b ^ n, which GiNaC
/// evaluates exactly: ((10001/10000)^1024)^1024, 25 characters, is 2.9e7 bits and held the
/// GiNaC lock for minutes; 2^1000 is 3000, (10001/10000)^1024 28672.
inline constexpr double kMaxExactPowerBits = 65536.0;

/// Parses `text` into an expression over `symbols` (name -> symbol or value). Throws
/// SpecError(field, "...at position k: ...") for a syntax error, an unknown name, a function
/// outside the whitelist or with the wrong number of arguments, a number that is not finite,
/// a division by zero between constants, a power whose numeric result would be too large, or
/// a string longer than kMaxExpressionLength or nested deeper than kMaxExpressionDepth.
GiNaC::ex parse_expression(const std::string& text, const std::map<std::string, GiNaC::ex>& symbols,
                           const std::string& field);

}  // namespace nhsim::custom
