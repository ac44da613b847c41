// ThreadSanitizer annotations of nhsim's code (the core and the server) for orders that an
// uninstrumented library keeps. The Debian libtbb and gRPC are not instrumented, so TSan does not
// see that a pipeline filter or a parallel_for body runs after the code that started it, or that
// gRPC runs a call's interceptor on one of its threads after another created it, and reports the
// data they read as racing with the thread that wrote it (scripts/sanitize tsan). No-ops in
// builds without TSan.
//
// oneTBB: each filter and body calls tbb_handoff_acquire() first and tbb_handoff_release() last;
// the code that starts them releases before and acquires after. One address stands for every
// hand-off: a worker reads a body's captures before its code could name a per-loop object. So
// filters and bodies that do not run at the same time are ordered for TSan; races between ones
// that do are still reported.
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
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace nhsim {

/// What this thread did so far happens before what follows any later tsan_acquire(`key`).
inline void tsan_release([[maybe_unused]] const void* key) {
#ifdef NHSIM_TSAN
  __tsan_release(const_cast<void*>(key));
#endif
}

/// What preceded every tsan_release(`key`) so far happens before what this thread does next.
inline void tsan_acquire([[maybe_unused]] const void* key) {
#ifdef NHSIM_TSAN
  __tsan_acquire(const_cast<void*>(key));
#endif
}

/// `read()`, with TSan recording none of this thread's memory accesses meanwhile: only for
/// copying memory that an uninstrumented library owns and frees in an order TSan cannot see.
template <class Read>
auto tsan_unrecorded(Read read) {
#ifdef NHSIM_TSAN
  __tsan_ignore_thread_begin();
  auto value = read();
  __tsan_ignore_thread_end();
  return value;
#else
  return read();
#endif
}

inline char tsan_tbb_handoff;

/// tsan_release() of oneTBB's hand-offs.
inline void tbb_handoff_release() { tsan_release(&tsan_tbb_handoff); }

/// tsan_acquire() of oneTBB's hand-offs.
inline void tbb_handoff_acquire() { tsan_acquire(&tsan_tbb_handoff); }

}  // namespace nhsim
