// The integrators' own code over lanes (method_block.hpp), compiled for -mavx512f
// (core/CMakeLists.txt); used only where the CPU has AVX-512F.
#include "method_block.hpp"
#if defined(__x86_64__)
template struct nhsim::lanes::LaneBlockUnit<nhsim::IsaAvx512, nhsim::lanes::MethodLaneSystems>;
#endif
