// The integrator registry: every integrator descriptor, and the generic glue that turns an id
// into a stepper for a concrete system type. Adding an integrator = one header with a
// descriptor (kId, kApplies<S>, kRequirement, Method<S>, metadata) + one entry in the list.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nhsim/catalog.hpp"
#include "nhsim/controls.hpp"
#include "nhsim/ensemble.hpp"
#include "nhsim/integrators/avf.hpp"
#include "nhsim/integrators/dla.hpp"
#include "nhsim/integrators/em.hpp"
#include "nhsim/integrators/exact.hpp"
#include "nhsim/integrators/ggl.hpp"
#include "nhsim/integrators/gonzalez.hpp"
#include "nhsim/integrators/gonzalez_f.hpp"
#include "nhsim/integrators/gonzalez_r.hpp"
#include "nhsim/integrators/i_dla.hpp"
#include "nhsim/integrators/itoh_abe.hpp"
#include "nhsim/integrators/midpoint.hpp"
#include "nhsim/integrators/mla.hpp"
#include "nhsim/integrators/nh_rattle.hpp"
#include "nhsim/integrators/nh_rattle_projected.hpp"
#include "nhsim/integrators/rdp.hpp"
#include "nhsim/integrators/rk2.hpp"
#include "nhsim/integrators/rk4.hpp"
#include "nhsim/integrators/si_dla.hpp"
#include "nhsim/integrators/spark2.hpp"
#include "nhsim/stepper.hpp"

namespace nhsim {

using AllIntegrators =
    std::tuple<GonzalezIntegrator, AvfIntegrator, SiDlaIntegrator, Rk4Integrator, ItohAbeIntegrator,
               MidpointIntegrator, ExactIntegrator, GonzalezFIntegrator, IDlaIntegrator,
               GonzalezRIntegrator, GonzalezRFdIntegrator, Spark2Integrator, DlaIntegrator,
               MlaIntegrator, NhRattleIntegrator, NhRattleProjectedIntegrator, Rk2Integrator,
               RdpExpIntegrator, RdpCayIntegrator, EmIntegrator, GglIntegrator>;

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

/// Stepper of integrator `choice.integrator` on system `sys`; nullptr if the id is unknown or
/// the integrator does not apply to S (see integrator_applies<S>).
template <class S>
std::unique_ptr<Stepper> make_stepper_for(const S& sys, const IntegratorChoice& choice) {
  std::unique_ptr<Stepper> out;
  std::apply(
      [&](auto... integrators) {
        (
            [&](auto integ) {
              using I = decltype(integ);
              if constexpr (integrator_applies<I, S>) {
                if (!out && choice.integrator == I::kId) {
                  out = std::make_unique<StepperImpl<S, typename I::template Method<S>>>(
                      sys, choice.h, newton_settings<I>(choice));
                }
              }
            }(integrators),
            ...);
      },
      AllIntegrators{});
  return out;
}

/// Why integrator `id` does not apply to system type S (nullopt if it applies or is unknown).
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

/// Ids of the integrators that apply to S, in registry order.
template <class S>
std::vector<std::string> applicable_integrators() {
  std::vector<std::string> ids;
  std::apply(
      [&](auto... integrators) {
        ((integrator_applies<decltype(integrators), S> ? ids.push_back(decltype(integrators)::kId)
                                                       : void()),
         ...);
      },
      AllIntegrators{});
  return ids;
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
