// NHSIM_TARGET_CLONES: a function compiled for AVX-512, AVX2 and baseline x86-64, the copy picked
// at load time for the CPU (GCC and Clang target_clones, an ifunc). Only for code whose every
// operation is exact or correctly rounded (+ - * fma on doubles, integer operations), so that
// each copy gives the same bits and results stay CPU-independent.
#pragma once

#if defined(__x86_64__)
#define NHSIM_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NHSIM_TARGET_CLONES
#endif
