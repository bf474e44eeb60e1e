#pragma once
// Plain threads for the readers' passes (io), which split their work themselves and own their
// threads for the call, whatever OpenMP region the caller is in (core/threads.hpp is the OpenMP
// side).
#include <cstddef>
#include <functional>

namespace synthaudit {

// Runs body(0), ..., body(workers - 1) at once, body(0) on the calling thread and the others on
// threads of their own; once every one has returned, rethrows the exception of the lowest worker
// that threw.
void run_on_threads(std::size_t workers, const std::function<void(std::size_t worker)>& body);
// Runs item(0), ..., item(count - 1) on `workers` threads (run_on_threads), each item taken by the
// next free worker.
void run_items_on_threads(std::size_t count, std::size_t workers,
                          const std::function<void(std::size_t item)>& item);

}  // namespace synthaudit
