// The integrators' own code over lanes (method_block.hpp), compiled for -mavx2
// (core/CMakeLists.txt); used only where the CPU has AVX2.
#include "method_block.hpp"
#if defined(__x86_64__)
template struct nhsim::lanes::LaneBlockUnit<nhsim::IsaAvx2, nhsim::lanes::MethodLaneSystems>;
#endif
