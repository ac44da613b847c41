// Registration of the chaotic quartic system ([Celledoni2019] §4.1). n = 3 (the seed's experiment)
// runs on fixed-size Eigen types; other n on dynamic-size types sized once per stepper.
#include "nhsim/systems/chaotic_quartic.hpp"

#include <cmath>

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  const int n = static_cast<int>(std::lround(params.at("n")));
  if (n == 3) return std::make_unique<ModelImpl<ChaoticQuartic<3>>>(ChaoticQuartic<3>(3));
  return std::make_unique<ModelImpl<ChaoticQuartic<Eigen::Dynamic>>>(
      ChaoticQuartic<Eigen::Dynamic>(n));
}

}  // namespace

SystemEntry chaotic_quartic_entry() {
  SystemInfo info;
  info.name = "chaotic_quartic";
  info.description =
      "Fully chaotic quartic nonholonomic system on R^(2n+1), q = (x, w_1..w_n, z_1..z_n), "
      "M = I, V = 1/2 (|q|^2 + z_1^2 z_2^2 + sum w_i^2 z_i^2), constraint x' + sum w_i z_i' = 0; "
      "reduced form on D* with the adapted frame X_i = d/dw_i, X_{n+i} = w_i d/dx - d/dz_i";
  info.source = "[Celledoni2019] §4.1 eq. (19)-(21); [McLachlan2006] §5";
  info.parameters = {ParameterInfo{
      "n", 3.0, "1", "number of (w_i, z_i) pairs; configuration dimension 2n+1", true, 1.0, 64.0}};
  info.invariants = {};
  SystemEntry entry = catalogue_entry<ChaoticQuartic<3>>(std::move(info), &make);
  entry.potential_lower_bound = &zero_potential_bound;  // V >= 0
  return entry;
}

}  // namespace nhsim
