// The outcomes every libFuzzer target of tests/fuzz documents: the input is accepted, or it is
// refused with a std::invalid_argument (nhsim::SpecError, the service's INVALID_ARGUMENT).
// Anything else is a finding that aborts, so that libFuzzer keeps the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

namespace nhsim::fuzz {

/// Prints "<target>: <what>: <detail>" and aborts.
[[noreturn]] inline void finding(const char* target, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s: %s\n", target, what, detail.c_str());
  std::abort();
}

/// Runs `f`; a std::invalid_argument is the documented refusal, any other exception a finding.
template <class F>
void expect_accepted_or_refused(const char* target, F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    // A refused input (SpecError is a std::invalid_argument): the documented answer.
  } catch (const std::exception& e) {
    finding(target, "unexpected exception", e.what());
  } catch (...) {
    finding(target, "unexpected exception", "not a std::exception");
  }
}

}  // namespace nhsim::fuzz
