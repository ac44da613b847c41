// The integrator registry: every integrator descriptor (kId, kApplies<S>, kRequirement,
// Method<S>, metadata) and the applicability rules over them. Adding an integrator
// (docs/development.md) = its method header nhsim/integrators/<name>.hpp + a descriptor header
// descriptors/<name>.hpp of the same name that names the method without defining it + its
// #include and one entry in AllIntegrators here. The build generates its pair units from the
// descriptor header (core/CMakeLists.txt): they compile it on every system type of the system
// registry (nhsim/systems/registry.hpp) it applies to. Only the pair units see the methods, so
// editing a method recompiles its pair units and its tests, not the registry or the dispatch.
// Included by the library's dispatch and by tests that ask about a test-local system type;
// everything else includes nhsim/stepper_factory.hpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nhsim/catalogue.hpp"
#include "nhsim/controls.hpp"
#include "nhsim/integrators/descriptors/avf.hpp"
#include "nhsim/integrators/descriptors/avf_f.hpp"
#include "nhsim/integrators/descriptors/dla.hpp"
#include "nhsim/integrators/descriptors/em.hpp"
#include "nhsim/integrators/descriptors/exact.hpp"
#include "nhsim/integrators/descriptors/ggl.hpp"
#include "nhsim/integrators/descriptors/gonzalez.hpp"
#include "nhsim/integrators/descriptors/gonzalez_f.hpp"
#include "nhsim/integrators/descriptors/gonzalez_r.hpp"
#include "nhsim/integrators/descriptors/i_dla.hpp"
#include "nhsim/integrators/descriptors/itoh_abe.hpp"
#include "nhsim/integrators/descriptors/midpoint.hpp"
#include "nhsim/integrators/descriptors/mla.hpp"
#include "nhsim/integrators/descriptors/nh_rattle.hpp"
#include "nhsim/integrators/descriptors/nh_rattle_projected.hpp"
#include "nhsim/integrators/descriptors/rdp.hpp"
#include "nhsim/integrators/descriptors/rk2.hpp"
#include "nhsim/integrators/descriptors/rk4.hpp"
#include "nhsim/integrators/descriptors/si_dla.hpp"
#include "nhsim/integrators/descriptors/spark2.hpp"
#include "nhsim/stepper.hpp"
#include "nhsim/stepper_factory.hpp"

namespace nhsim {

using AllIntegrators =
    std::tuple<GonzalezIntegrator, AvfIntegrator, SiDlaIntegrator, Rk4Integrator, ItohAbeIntegrator,
               MidpointIntegrator, ExactIntegrator, GonzalezFIntegrator, IDlaIntegrator,
               GonzalezRIntegrator, GonzalezRFdIntegrator, Spark2Integrator, DlaIntegrator,
               MlaIntegrator, NhRattleIntegrator, NhRattleProjectedIntegrator, Rk2Integrator,
               RdpExpIntegrator, RdpCayIntegrator, EmIntegrator, GglIntegrator, AvfFIntegrator>;

template <class I>
IntegratorInfo integrator_info() {
  IntegratorInfo info;
  info.name = I::kId;
  info.description = I::kDescription;
  info.source = I::kSource;
  info.order = I::kOrder;
  info.implicit = I::kImplicit;
  info.energy_preserving = I::kEnergyPreserving;
  info.requires_ = {I::kRequirement};
  info.default_newton_tol = I::kNewtonTol;
  info.default_newton_max_iter = I::kNewtonMaxIter;
  return info;
}

/// Newton settings of `choice`, with the integrator's defaults where the choice says 0.
template <class I>
NewtonSettings newton_settings(const IntegratorChoice& choice) {
  NewtonSettings ns;
  ns.tol = choice.newton_tol > 0.0 ? choice.newton_tol : I::kNewtonTol;
  ns.max_iter = choice.newton_max_iter > 0 ? choice.newton_max_iter : I::kNewtonMaxIter;
  return ns;
}

template <class S>
std::optional<std::string> integrator_not_applicable(const std::string& id) {
  std::optional<std::string> why;
  std::apply(
      [&](auto... integrators) {
        (
            [&](auto integ) {
              using I = decltype(integ);
              if (id == I::kId && !I::template kApplies<S>) {
                why = std::string(I::kId) + " needs " + I::kRequirement;
              } else if (id == I::kId && !integrator_applies<I, S>) {
                why = std::string(I::kId) +
                      " does not take the control forces or loads of this system";
              }
            }(integrators),
            ...);
      },
      AllIntegrators{});
  return why;
}

template <class S>
std::vector<std::string> applicable_integrators() {
  // Collected as const char* first: GCC 12 at -O3 reports a false -Warray-bounds for
  // push_back(std::string&&) of a temporary in this fold.
  std::vector<const char*> ids;
  std::apply(
      [&](auto... integrators) {
        ((integrator_applies<decltype(integrators), S> ? ids.push_back(decltype(integrators)::kId)
                                                       : void()),
         ...);
      },
      AllIntegrators{});
  return std::vector<std::string>(ids.begin(), ids.end());
}

/// Catalogue entries of every integrator, in registry order.
inline std::vector<IntegratorInfo> all_integrator_infos() {
  std::vector<IntegratorInfo> out;
  std::apply(
      [&](auto... integrators) { (out.push_back(integrator_info<decltype(integrators)>()), ...); },
      AllIntegrators{});
  return out;
}

}  // namespace nhsim
