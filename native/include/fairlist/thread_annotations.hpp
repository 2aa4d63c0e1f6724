// Clang's thread-safety analysis (-Wthread-safety; docs/design.md §8.3 and §8.7): the attribute
// macros that say which lock guards a member and which lock a function needs, and a mutex and
// scoped lock that carry them (libstdc++'s std::mutex and std::lock_guard are not annotated).
// With another compiler (GCC, MSVC) the macros expand to nothing and Mutex is a std::mutex.
//
// The vocabulary (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html):
//   CAPABILITY(name)        a class whose objects are locks ("capabilities")
//   SCOPED_CAPABILITY       a class whose objects hold a lock for their lifetime (RAII)
//   GUARDED_BY(lock)        a member read or written only with `lock` held
//   PT_GUARDED_BY(lock)     the data a pointer member points to, likewise
//   REQUIRES(locks...)      a function called only with `locks` held
//   ACQUIRE / RELEASE       a function that takes / gives back a lock (no argument: the scoped
//                           object's own)
//   EXCLUDES(locks...)      a function called only with `locks` NOT held (it takes them)
//   ACQUIRED_BEFORE(locks)  the lock order: this lock is never taken while `locks` are held
//   ASSERT_CAPABILITY(locks) a function after whose call the analysis takes `locks` as held
//   RETURN_CAPABILITY(lock) a getter returning `lock` (the analysis sees through it)
//   NO_THREAD_SAFETY_ANALYSIS  a function left unchecked; each use says why it is safe
// .ci/clang builds the core with -Wthread-safety -Wthread-safety-beta -Werror (meson option
// thread_safety), so that a member touched without its lock fails the build.
#pragma once

#include <mutex>

#if defined(__clang__)
#define FAIRLIST_THREAD_ATTRIBUTE(x) __attribute__((x))
#else
#define FAIRLIST_THREAD_ATTRIBUTE(x)
#endif

#define CAPABILITY(x) FAIRLIST_THREAD_ATTRIBUTE(capability(x))
#define SCOPED_CAPABILITY FAIRLIST_THREAD_ATTRIBUTE(scoped_lockable)
#define GUARDED_BY(x) FAIRLIST_THREAD_ATTRIBUTE(guarded_by(x))
#define PT_GUARDED_BY(x) FAIRLIST_THREAD_ATTRIBUTE(pt_guarded_by(x))
#define REQUIRES(...) FAIRLIST_THREAD_ATTRIBUTE(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) FAIRLIST_THREAD_ATTRIBUTE(acquire_capability(__VA_ARGS__))
#define RELEASE(...) FAIRLIST_THREAD_ATTRIBUTE(release_capability(__VA_ARGS__))
#define EXCLUDES(...) FAIRLIST_THREAD_ATTRIBUTE(locks_excluded(__VA_ARGS__))
#define ACQUIRED_BEFORE(...) FAIRLIST_THREAD_ATTRIBUTE(acquired_before(__VA_ARGS__))
#define ASSERT_CAPABILITY(...) FAIRLIST_THREAD_ATTRIBUTE(assert_capability(__VA_ARGS__))
#define RETURN_CAPABILITY(x) FAIRLIST_THREAD_ATTRIBUTE(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS FAIRLIST_THREAD_ATTRIBUTE(no_thread_safety_analysis)

namespace fairlist {

// A std::mutex the analysis knows as a lock.
class CAPABILITY("mutex") Mutex {
 public:
    void lock() ACQUIRE() { mutex_.lock(); }
    void unlock() RELEASE() { mutex_.unlock(); }
    // The std::mutex itself, for a std::condition_variable (the caller holds it).
    std::mutex& native() { return mutex_; }

 private:
    std::mutex mutex_;
};

// Holds a Mutex for its scope (std::lock_guard, annotated).
class SCOPED_CAPABILITY MutexLock {
 public:
    explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : mutex_(mutex) { mutex_.lock(); }
    ~MutexLock() RELEASE() { mutex_.unlock(); }
    MutexLock(const MutexLock&) = delete;
    MutexLock& operator=(const MutexLock&) = delete;

 private:
    Mutex& mutex_;
};

// The search's two locks as the analysis names them (docs/design.md §8.3, §8.4).  A search has
// one frontier lock (FrontierLock, frontier.hpp) and one lock per permutation-map shard
// (Frontier's ShardLocks), and a thread works for one search at a time, so the analysis checks
// them as two roles: `frontier_lock`, held by a FrontierHold, and `map_shard_lock`, held by a
// ShardHold (which takes its hash's shard: which shard is the right one is ShardHold's one
// line, not the analysis's).  The roles are empty tags that no code reads or writes (no global
// state); the lock order is the map shard's, then the frontier's (§8.4), checked by
// -Wthread-safety-beta.  In the serial search the holds take no lock: the one thread owns
// everything, and the hold only tells the analysis so.
class CAPABILITY("role") LockRole {};
inline LockRole frontier_lock;
inline LockRole map_shard_lock ACQUIRED_BEFORE(frontier_lock);

// Tells the analysis that the caller owns the frontier and the map without holding their locks:
// only where no worker thread runs (before the parallel search starts its workers, after they
// joined, and between phases; §8.1 "thread start and join order them").  No code runs.
inline void assert_no_workers() ASSERT_CAPABILITY(frontier_lock, map_shard_lock) {}

}  // namespace fairlist
