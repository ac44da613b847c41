// Internal: the per-system registration functions, collected by registry.cpp.
#pragma once

#include "nhsim/model.hpp"

namespace nhsim {

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

}  // namespace nhsim
