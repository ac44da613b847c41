// Prints how many (system type, integrator) pairs the catalogue compiles: every integrator of
// AllIntegrators on every system type of CatalogueSystemTypes and CustomSystemTypes it applies to.
// scripts/check-pair-instantiations compares it with the pairs found in the object files.
#include <cstdio>
#include <tuple>

#include "nhsim/controls.hpp"
#include "nhsim/integrators/registry.hpp"
#include "nhsim/systems/custom_system.hpp"
#include "nhsim/systems/registry.hpp"

namespace {

template <class I, class... Systems>
constexpr int count_for(std::tuple<Systems...>*) {
  return (0 + ... + (nhsim::integrator_applies<I, Systems> ? 1 : 0));
}

template <class SystemList, class... Integrators>
constexpr int count_pairs(SystemList* systems, std::tuple<Integrators...>*) {
  return (0 + ... + count_for<Integrators>(systems));
}

}  // namespace

int main() {
  using All = decltype(std::tuple_cat(std::declval<nhsim::CatalogueSystemTypes>(),
                                      std::declval<nhsim::CustomSystemTypes>()));
  constexpr int n =
      count_pairs(static_cast<All*>(nullptr), static_cast<nhsim::AllIntegrators*>(nullptr));
  std::printf("%d\n", n);
  return 0;
}
