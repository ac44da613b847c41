// The out-of-line members of CustomSystem (nhsim/systems/custom_system.hpp), compiled for every
// type of CustomSystemTypes.
#include "nhsim/systems/custom_system.hpp"

#include <tuple>
#include <type_traits>

namespace nhsim {

template <int NQ_, int NC_, CustomKind MF>
CustomSystem<NQ_, NC_, MF>::~CustomSystem() = default;

static_assert(
    std::is_same_v<
        CustomSystemTypes,
        std::tuple<CustomSystem<3, 1>, CustomSystem<7, 1>,
                   CustomSystem<Eigen::Dynamic, Eigen::Dynamic>,
                   CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kVaryingMass>,
                   CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kControlled>>>,
    "instantiate the destructor of every type of CustomSystemTypes below");

template CustomSystem<3, 1>::~CustomSystem();
template CustomSystem<7, 1>::~CustomSystem();
template CustomSystem<Eigen::Dynamic, Eigen::Dynamic>::~CustomSystem();
template CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kVaryingMass>::~CustomSystem();
template CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kControlled>::~CustomSystem();

}  // namespace nhsim
