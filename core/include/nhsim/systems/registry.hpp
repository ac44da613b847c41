// The system registry: every catalogue system, one entry each in AllSystems. Beside
// AllIntegrators (nhsim/integrators/registry.hpp) it is the one list the catalogue is derived
// from: ListSystems and find_system (core/src/catalogue.cpp), the stepper dispatch
// (core/src/stepper_dispatch.cpp) and every generated pair unit (core/src/pairs.cpp.in), which
// compiles each integrator on each system type it applies to (integrator_applies,
// nhsim/controls.hpp).
//
// Adding a system (docs/development.md): its header in nhsim/systems/, its catalogue entry in
// core/src/systems/<system>.cpp, and here its #include, its entry function and its line in
// AllSystems. User-defined systems are not listed here: CustomSystemTypes
// (nhsim/systems/custom_system.hpp) lists theirs.
#pragma once

#include <tuple>
#include <utility>

#include "nhsim/systems/chaotic_quartic.hpp"
#include "nhsim/systems/chaplygin_sleigh.hpp"
#include "nhsim/systems/chaplygin_sleigh_com.hpp"
#include "nhsim/systems/director_body.hpp"
#include "nhsim/systems/four_bar.hpp"
#include "nhsim/systems/gearbox.hpp"
#include "nhsim/systems/gyroscopic_top.hpp"
#include "nhsim/systems/knife_edge.hpp"
#include "nhsim/systems/nonholonomic_particle.hpp"
#include "nhsim/systems/rolling_disk.hpp"
#include "nhsim/systems/snakeboard.hpp"
#include "nhsim/systems/suslov.hpp"

namespace nhsim {

struct SystemEntry;  // nhsim/model.hpp

/// One catalogue system: `Entry` builds its catalogue entry (name, parameters, model factory;
/// core/src/systems/), `Types` are the system types its models step. The first type states
/// which integrators apply (the entry's applicable_integrators); the others are size variants.
template <SystemEntry (*Entry)(), class... Types>
struct CatalogueSystem {
  static_assert(sizeof...(Types) > 0, "a catalogue system steps at least one system type");
  static constexpr SystemEntry (*entry)() = Entry;
  using StepTypes = std::tuple<Types...>;
};

SystemEntry chaotic_quartic_entry();
SystemEntry rolling_disk_entry();
SystemEntry chaplygin_sleigh_entry();
SystemEntry suslov_entry();
SystemEntry gearbox_entry();
SystemEntry nonholonomic_particle_entry();
SystemEntry knife_edge_entry();
SystemEntry chaplygin_sleigh_com_entry();
SystemEntry snakeboard_entry();
SystemEntry nontwisting_body_entry();
SystemEntry rigid_body_entry();
SystemEntry gyroscopic_top_entry();
SystemEntry four_bar_entry();

/// The catalogue's systems, in ListSystems order.
using AllSystems = std::tuple<
    CatalogueSystem<&chaotic_quartic_entry, ChaoticQuartic<3>, ChaoticQuartic<Eigen::Dynamic>>,
    CatalogueSystem<&rolling_disk_entry, RollingDisk>,
    CatalogueSystem<&chaplygin_sleigh_entry, ChaplyginSleigh>,
    CatalogueSystem<&suslov_entry, Suslov>, CatalogueSystem<&gearbox_entry, Gearbox>,
    CatalogueSystem<&nonholonomic_particle_entry, NonholonomicParticle>,
    CatalogueSystem<&knife_edge_entry, KnifeEdge>,
    CatalogueSystem<&chaplygin_sleigh_com_entry, ChaplyginSleighCom>,
    CatalogueSystem<&snakeboard_entry, Snakeboard>,
    CatalogueSystem<&nontwisting_body_entry, NontwistingBody>,
    CatalogueSystem<&rigid_body_entry, RigidBody>,
    CatalogueSystem<&gyroscopic_top_entry, GyroscopicTop>,
    CatalogueSystem<&four_bar_entry, FourBar>>;

/// The system types of a list of CatalogueSystem, flattened into one std::tuple.
template <class Systems>
struct StepTypesOf;
template <class... Systems>
struct StepTypesOf<std::tuple<Systems...>> {
  using type = decltype(std::tuple_cat(std::declval<typename Systems::StepTypes>()...));
};

/// Every system type of the catalogue systems: the generated pair units compile each
/// integrator on each of them it applies to.
using CatalogueSystemTypes = typename StepTypesOf<AllSystems>::type;

}  // namespace nhsim
