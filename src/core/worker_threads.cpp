#include "core/worker_threads.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace synthaudit {

void run_on_threads(std::size_t workers, const std::function<void(std::size_t worker)>& body) {
  if (workers <= 1) {
    body(0);
    return;
  }
  std::vector<std::exception_ptr> errors(workers);
  auto guarded = [&](std::size_t w) {
    try {
      body(w);
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(guarded, w);
  guarded(0);
  for (auto& thread : pool) thread.join();
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);
}

void run_items_on_threads(std::size_t count, std::size_t workers,
                          const std::function<void(std::size_t item)>& item) {
  std::atomic<std::size_t> next{0};
  run_on_threads(std::min(workers, count), [&](std::size_t) {
    for (std::size_t i = next++; i < count; i = next++) item(i);
  });
}

}  // namespace synthaudit
