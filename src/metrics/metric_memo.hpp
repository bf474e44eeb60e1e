#pragma once
// Work a metric shares between its calls within one evaluation. The engine scores the same
// confidential data against every candidate, replicate and baseline draw; a part of a metric that
// depends on the confidential data alone (k_marginal's subsample anchor: over 90 % of its passes)
// need not be redone for each. Values are kept by key for the evaluation's lifetime and computed
// once; the key must name everything the value depends on. The engine passes a memo only with
// the evaluation's own confidential table (MetricInput::memo), so a key may name that table by
// address; metrics run without one (bindings' single calls, subgroups, partitioned states)
// compute directly.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace synthaudit {

class MetricMemo {
 public:
  // The value under `key`, computing it with `compute` the first time. Two threads asking for a
  // new key at once may both compute it; the first stored value is kept, and since a key names
  // everything its value depends on, both are the same.
  template <class T>
  std::shared_ptr<const T> get_or_compute(const std::string& key,
                                          const std::function<T()>& compute) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto found = values_.find(key);
      if (found != values_.end()) return std::static_pointer_cast<const T>(found->second);
    }
    auto value = std::make_shared<const T>(compute());
    const std::lock_guard<std::mutex> lock(mutex_);
    ++computations_;
    const auto [at, inserted] = values_.emplace(key, value);
    return inserted ? value : std::static_pointer_cast<const T>(at->second);
  }

  // How many values were computed (a test's view of the sharing).
  std::size_t computations() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return computations_;
  }

 private:
  std::mutex mutex_;
  std::size_t computations_ = 0;
  std::map<std::string, std::shared_ptr<const void>> values_;
};

}  // namespace synthaudit
