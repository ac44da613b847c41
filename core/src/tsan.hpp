// Internal: ThreadSanitizer annotations for the hand-offs that oneTBB's scheduler orders. The
// Debian libtbb is not instrumented, so TSan does not see that a pipeline filter or a
// parallel_for body runs after the code that started it, and reports the data it reads as racing
// with the thread that wrote it (scripts/sanitize tsan). Each filter and body calls
// tbb_handoff_acquire() first and tbb_handoff_release() last; the code that starts them releases
// before and acquires after. No-ops in builds without TSan.
//
// One address stands for every hand-off: a worker reads a body's captures before its code could
// name a per-loop object. So filters and bodies that do not run at the same time are ordered for
// TSan; races between ones that do are still reported.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define NHSIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NHSIM_TSAN 1
#endif
#endif

#ifdef NHSIM_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace nhsim {

#ifdef NHSIM_TSAN
inline char tsan_tbb_handoff;
#endif

/// What this thread did so far happens before what follows any later tbb_handoff_acquire().
inline void tbb_handoff_release() {
#ifdef NHSIM_TSAN
  __tsan_release(&tsan_tbb_handoff);
#endif
}

/// What preceded every tbb_handoff_release() so far happens before what this thread does next.
inline void tbb_handoff_acquire() {
#ifdef NHSIM_TSAN
  __tsan_acquire(&tsan_tbb_handoff);
#endif
}

}  // namespace nhsim
