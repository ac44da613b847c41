// Registration of the (perturbed) knife edge ([AnahorySimoes2022] Examples 4-5). epsilon = 0 is
// Example 4 (Fig. 5), epsilon = 0.1 Example 5 (Fig. 6).
#include "nhsim/systems/knife_edge.hpp"

#include "catalogue_entry.hpp"
#include "nhsim/model_impl.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<KnifeEdge>>(KnifeEdge(params.at("epsilon")));
}

}  // namespace

SystemEntry knife_edge_entry() {
  SystemInfo info;
  info.name = "knife_edge";
  info.description =
      "Knife edge with potential, q = (x, y, phi), L = (x'^2 + y'^2 + phi'^2) / 2 + x / 2, "
      "constraint sin(phi) x' - (cos(phi) - epsilon) y' = 0 (epsilon = 0: Example 4, "
      "epsilon = 0.1: the perturbed knife edge of Example 5); reduced form on D* in the "
      "orthonormal frame X1 = ((cos(phi) - epsilon) d/dx + sin(phi) d/dy) / r(phi), "
      "X2 = d/dphi; MLA discretisation of Examples 4-5 as integrator 'mla'";
  info.source = "[AnahorySimoes2022] Examples 4-5, Figs. 5-6";
  info.parameters = {ParameterInfo{
      "epsilon", 0.0, "1", "perturbation of the constraint (Example 5: 0.1)", false, -0.9, 0.9}};
  info.invariants = {};
  return catalogue_entry<KnifeEdge>(std::move(info), &make);
}

}  // namespace nhsim
