# The catalogue's (system type, integrator) pairs: each is compiled exactly once, in the generated
# translation unit of its integrator (core/CMakeLists.txt, core/src/pairs.cpp.in; DESIGN.md). The
# compiler checks this list both ways: a listed pair whose integrator does not apply fails a
# static_assert, an applicable pair that is missing fails to link (make_pair_stepper<S, I>
# undefined).
#
# nhsim_pairs(<C++ type> <system header> <integrator ids...>)
# nhsim_pair_unit(<unit id> <ids...>): those ids' pairs compile in the unit of <unit id>.

# gonzalez_r_fd is gonzalez_r with another frame derivative: GonzalezRMethod<S> serves both, so
# one unit instantiates it once per system (as two units they took 304 s and 219 s of compiler
# time, as one 296 s).
nhsim_pair_unit(gonzalez_r gonzalez_r_fd)

nhsim_pairs("ChaoticQuartic<3>" nhsim/systems/chaotic_quartic.hpp
  gonzalez avf si_dla rk4 itoh_abe midpoint gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2
  dla nh_rattle nh_rattle_projected rk2)
nhsim_pairs("ChaoticQuartic<Eigen::Dynamic>" nhsim/systems/chaotic_quartic.hpp
  gonzalez avf si_dla rk4 itoh_abe midpoint gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2
  dla nh_rattle nh_rattle_projected rk2)
nhsim_pairs("RollingDisk" nhsim/systems/rolling_disk.hpp
  gonzalez avf si_dla rk4 itoh_abe midpoint exact gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd
  spark2 dla nh_rattle nh_rattle_projected rk2)
nhsim_pairs("ChaplyginSleigh" nhsim/systems/chaplygin_sleigh.hpp
  gonzalez avf rk4 itoh_abe midpoint gonzalez_r gonzalez_r_fd)
nhsim_pairs("Suslov" nhsim/systems/suslov.hpp
  gonzalez avf rk4 itoh_abe midpoint)
nhsim_pairs("Gearbox" nhsim/systems/gearbox.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2)
nhsim_pairs("NonholonomicParticle" nhsim/systems/nonholonomic_particle.hpp
  gonzalez avf si_dla rk4 itoh_abe midpoint exact gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd
  spark2 dla mla nh_rattle nh_rattle_projected rk2)
nhsim_pairs("KnifeEdge" nhsim/systems/knife_edge.hpp
  gonzalez avf si_dla rk4 itoh_abe midpoint gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2
  dla mla nh_rattle nh_rattle_projected rk2)
nhsim_pairs("ChaplyginSleighCom" nhsim/systems/chaplygin_sleigh_com.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2 rdp_exp rdp_cay)
nhsim_pairs("Snakeboard" nhsim/systems/snakeboard.hpp
  nh_rattle nh_rattle_projected rk2 rdp_exp rdp_cay)
nhsim_pairs("NontwistingBody" nhsim/systems/director_body.hpp
  dla nh_rattle nh_rattle_projected rk2 em)
nhsim_pairs("RigidBody" nhsim/systems/director_body.hpp
  dla nh_rattle nh_rattle_projected rk2 em)
nhsim_pairs("GyroscopicTop" nhsim/systems/gyroscopic_top.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2 ggl)
nhsim_pairs("FourBar" nhsim/systems/four_bar.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2 ggl)
# User-defined systems (issue 16, nhsim/systems/custom_system.hpp): one type per fixed size of
# kCustomFixedSizes (nhsim/custom/definition.hpp) and one dynamic-size type for every other size,
# each with every method that needs only a canonical form with a constant mass matrix. Their pairs
# compile in units of their own (pairs/<id>_custom.cpp): editing custom_system.hpp recompiles
# those alone, and an edited integrator header recompiles two units that two cores build at once.
nhsim_pair_header_unit(nhsim/systems/custom_system.hpp custom)
nhsim_pairs("CustomSystem<3, 1>" nhsim/systems/custom_system.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2)
nhsim_pairs("CustomSystem<7, 1>" nhsim/systems/custom_system.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2)
# The dynamic size also runs holonomic constraints g(q): ggl where the definition admits it
# (custom_integrator_problem).
nhsim_pairs("CustomSystem<Eigen::Dynamic, Eigen::Dynamic>" nhsim/systems/custom_system.hpp
  si_dla gonzalez_f avf_f i_dla gonzalez_r gonzalez_r_fd spark2 dla nh_rattle nh_rattle_projected
  rk2 ggl)
# A q-dependent mass matrix, any size: the methods that need only a canonical form.
nhsim_pairs("CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kVaryingMass>"
  nhsim/systems/custom_system.hpp gonzalez_r gonzalez_r_fd)
# Control forces, any size: the canonical methods that take them.
nhsim_pairs("CustomSystem<Eigen::Dynamic, Eigen::Dynamic, CustomKind::kControlled>"
  nhsim/systems/custom_system.hpp nh_rattle nh_rattle_projected rk2)
