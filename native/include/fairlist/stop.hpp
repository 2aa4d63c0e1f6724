// Why a search stops, and the check that long loops poll to stop it in time.
//
// The search loop checks the stop flag (request_stop, from another thread) before every node and
// the clock every 64 nodes; but one node can be long: expanding a prefix on a large table, or
// finishing one by counting (terminal_solver.hpp) on many classes, runs for seconds.  So the
// loops inside a node poll a StopCheck too: each poll adds the work done since the last one;
// the flag (one relaxed load) is read at every poll, the clock once kClockWork units of work
// have gone by (a unit is about one addition of counts: 2^20 of them take about a
// millisecond).  Once a poll finds a reason to stop, the check stays stopped: the loops unwind
// without finishing their node, and the search reports that reason, keeping that node's bound
// in its lower bound (it proves nothing about the node's lists).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace fairlist {

enum class StopReason : int {
    COMPLETED = 0,
    NODE_LIMIT = 1,
    TIME_LIMIT = 2,
    MEMORY_LIMIT = 3,
    INTERRUPTED = 4,
    GAP_LIMIT = 5,  // the incumbent is within Config::gap_tolerance of the global lower bound
    MAX_LISTS = 6,  // the search completed, but Config::max_lists cut its Rashomon set
};

class StopCheck {
 public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::int64_t kClockWork = std::int64_t{1} << 20;

    // flag: set by request_stop (may be null: never); time_limit <= 0: none.
    StopCheck(const std::atomic<bool>* flag, double time_limit)
        : flag_(flag), time_limit_(time_limit) {}
    // A second flag: the parallel search's halt, set when one worker stops them all (null:
    // none); a poll that finds it reports INTERRUPTED, and the search keeps the first
    // worker's reason.
    void set_halt(const std::atomic<bool>* halt) { halt_ = halt; }

    void start(Clock::time_point t) { start_ = t; }
    double elapsed() const {
        return std::chrono::duration<double>(Clock::now() - start_).count();
    }
    bool time_up() const { return time_limit_ > 0 && elapsed() >= time_limit_; }
    bool flagged() const {
        return (flag_ != nullptr && flag_->load(std::memory_order_relaxed)) ||
               (halt_ != nullptr && halt_->load(std::memory_order_relaxed));
    }

    // After `work` more units: true when the search must stop (and from then on).
    bool poll(std::int64_t work) {
        if (reason_ != StopReason::COMPLETED) return true;
        if (flagged()) {
            reason_ = StopReason::INTERRUPTED;
            return true;
        }
        work_ += work;
        if (work_ < kClockWork) return false;
        work_ = 0;
        if (time_up()) reason_ = StopReason::TIME_LIMIT;
        return reason_ != StopReason::COMPLETED;
    }
    bool stopped() const { return reason_ != StopReason::COMPLETED; }
    // COMPLETED while no poll has stopped.
    StopReason reason() const { return reason_; }

 private:
    // Atomics, relaxed, no lock (docs/design.md §8.3): Search::stop_ and Search::halt_ publish
    // no data, and a late read delays the stop by one poll.  The rest is this worker's own.
    const std::atomic<bool>* flag_;
    const std::atomic<bool>* halt_ = nullptr;
    double time_limit_;
    Clock::time_point start_ = Clock::now();
    std::int64_t work_ = 0;
    StopReason reason_ = StopReason::COMPLETED;
};

}  // namespace fairlist
