// Internal: shared registration of the director rigid bodies ([Gebhardt2020] §3.5, §4.2, eq.
// (111)), used by nontwisting_body.cpp and rigid_body.cpp (one integrator instantiation set per
// TU).
#pragma once

#include "nhsim/model_impl.hpp"
#include "nhsim/systems/director_body.hpp"

namespace nhsim::detail {

/// Builds DirectorBody<NT> from E11, E12, E22, E33; SpecError("parameters.<name>") for an
/// Euler tensor that is not positive definite.
template <bool NT>
std::unique_ptr<SystemModel> make_director_body(const std::map<std::string, double>& params) {
  const double e11 = params.at("E11"), e12 = params.at("E12"), e22 = params.at("E22"),
               e33 = params.at("E33");
  if (!(e11 * e22 - e12 * e12 > 0.0)) {
    throw SpecError("parameters.E12",
                    "E11 E22 - E12^2 must be > 0 (positive definite Euler inertia tensor)");
  }
  return std::make_unique<ModelImpl<DirectorBody<NT>>>(DirectorBody<NT>(e11, e12, e22, e33));
}

inline std::vector<ParameterInfo> director_body_parameters() {
  const char* unit = "kg m^2";
  return {ParameterInfo{"E11", 3.0, unit,
                        "Euler inertia coefficient int rho0 theta1^2 (eq. (66), (111))", false,
                        1e-12, 1e12},
          ParameterInfo{"E12", 1.0 / 7.0, unit,
                        "Euler inertia coefficient int rho0 theta1 theta2 (E11 E22 > E12^2)", false,
                        -1e12, 1e12},
          ParameterInfo{"E22", 2.0, unit, "Euler inertia coefficient int rho0 theta2^2", false,
                        1e-12, 1e12},
          ParameterInfo{"E33", 1.0, unit,
                        "Euler inertia coefficient int rho0 theta3^2 (D3 principal axis)", false,
                        1e-12, 1e12}};
}

}  // namespace nhsim::detail
