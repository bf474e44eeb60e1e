#pragma once
// Root-driven work on every rank's partition. In a partitioned evaluation the root rank runs the
// evaluation as one process would; when it needs something from every rank's rows (a metric's
// partial state, a neighbour search over each rank's share of the reference records, the rows
// themselves) it calls `call(kind, payload)`: every rank, the root included, runs the handler
// registered under `kind` with the payload, and the root receives the replies in rank order. The
// other ranks sit in `serve()` until the root calls `stop()`.
//
// Handlers run on all ranks at once, so a handler may itself use the communicator's collectives
// (every rank runs the same handler in the same order). An exception in a handler on any rank is
// returned to the root and rethrown there by `call` (an InputError stays an InputError, with the
// rank's message), after every rank has finished the call; the serving ranks carry on serving.
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/communicator.hpp"

namespace synthaudit {

class Cluster {
 public:
  using Handler = std::function<std::string(const std::string& payload)>;

  explicit Cluster(Communicator& communicator) : communicator_(communicator) {}
  Communicator& communicator() { return communicator_; }
  int rank() const { return communicator_.rank(); }
  int ranks() const { return communicator_.size(); }
  bool is_root() const { return communicator_.is_root(); }

  // Registers the handler of `kind`; every rank must register the same kinds before serving.
  void on(std::string kind, Handler handler);
  // Root only: runs `kind` on every rank; the replies in rank order. Safe to call from several
  // threads of the root (metrics run in parallel): calls are serialised, since the ranks must see
  // the collectives in one order. A handler must not call `call` itself.
  std::vector<std::string> call(const std::string& kind, const std::string& payload);
  // Every rank but the root: runs the root's calls until it stops.
  void serve();
  // Root only: releases the serving ranks from serve().
  void stop();

 private:
  std::string run_handler(const std::string& kind, const std::string& payload);

  Communicator& communicator_;
  std::map<std::string, Handler, std::less<>> handlers_;
  std::mutex calling_;
};

}  // namespace synthaudit
