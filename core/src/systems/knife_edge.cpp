// Registration of the (perturbed) knife edge (seed 000 Examples 4-5). epsilon = 0 is Example 4
// (Fig. 5), epsilon = 0.1 Example 5 (Fig. 6).
#include "nhsim/systems/knife_edge.hpp"

#include "nhsim/model_impl.hpp"
#include "registry_internal.hpp"
#include "stepper_dispatch.hpp"

namespace nhsim {
namespace {

std::unique_ptr<SystemModel> make(const std::map<std::string, double>& params) {
  return std::make_unique<ModelImpl<KnifeEdge>>(KnifeEdge(params.at("epsilon")));
}

std::optional<std::string> not_applicable(const std::string& id) {
  return integrator_not_applicable<KnifeEdge>(id);
}

}  // namespace

SystemEntry knife_edge_entry() {
  SystemEntry e;
  e.info.name = "knife_edge";
  e.info.description =
      "Knife edge with potential, q = (x, y, phi), L = (x'^2 + y'^2 + phi'^2) / 2 + x / 2, "
      "constraint sin(phi) x' - (cos(phi) - epsilon) y' = 0 (epsilon = 0: Example 4, "
      "epsilon = 0.1: the perturbed knife edge of Example 5); reduced form on D* in the "
      "orthonormal frame X1 = ((cos(phi) - epsilon) d/dx + sin(phi) d/dy) / r(phi), "
      "X2 = d/dphi; MLA discretisation of Examples 4-5 as integrator 'mla'";
  e.info.source = "seed 000 Examples 4-5, Figs. 5-6";
  e.info.parameters = {ParameterInfo{
      "epsilon", 0.0, "1", "perturbation of the constraint (Example 5: 0.1)", false, -0.9, 0.9}};
  e.info.invariants = {};
  e.info.integrators = applicable_integrators<KnifeEdge>();
  e.make = &make;
  e.not_applicable = &not_applicable;
  return e;
}

NHSIM_INSTANTIATE_STEPPER_FACTORY(KnifeEdge);

}  // namespace nhsim
