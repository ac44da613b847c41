// The integrators' own code over lanes (method_block.hpp), compiled for the baseline x86-64 target
// (or the machine's own elsewhere).
#include "method_block.hpp"

template struct nhsim::lanes::LaneBlockUnit<nhsim::IsaBaseline, nhsim::lanes::MethodLaneSystems>;
