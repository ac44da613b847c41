// The SystemModel of a user-defined system, for callers that build a model outside
// the spec runner (tests, benchmarks). The runner itself does this in prepare().
#pragma once

#include <memory>

#include "nhsim/custom/definition.hpp"
#include "nhsim/model.hpp"

namespace nhsim {

/// The model of a compiled definition: ModelImpl<CustomSystem<nq, nc>> for a size of
/// kCustomFixedSizes, else ModelImpl<CustomSystem<Eigen::Dynamic, Eigen::Dynamic>>.
std::unique_ptr<SystemModel> make_custom_model(
    const std::shared_ptr<const CustomSystemDefinition>& def);

}  // namespace nhsim
