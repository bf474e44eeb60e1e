#include "core/communicator.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace synthaudit {

// The defaults are written with all_gather: correct for any transport, if not the cheapest (an
// MPI communicator overrides them with the native calls).
std::vector<std::string> Communicator::gather(std::string_view bytes, int root) {
  auto all = all_gather(bytes);
  if (rank() != root) return {};
  return all;
}

std::string Communicator::broadcast(std::string_view bytes, int root) {
  auto all = all_gather(rank() == root ? bytes : std::string_view{});
  return std::move(all.at(static_cast<std::size_t>(root)));
}

void Communicator::barrier() { all_gather({}); }

// One gather per destination: each rank receives only its own share.
std::vector<std::string> Communicator::all_to_all(std::vector<std::string> outgoing) {
  if (outgoing.size() != static_cast<std::size_t>(size()))
    throw std::invalid_argument("all_to_all: one message per rank expected");
  std::vector<std::string> incoming;
  for (int destination = 0; destination < size(); ++destination) {
    auto received = gather(outgoing[static_cast<std::size_t>(destination)], destination);
    outgoing[static_cast<std::size_t>(destination)].clear();
    outgoing[static_cast<std::size_t>(destination)].shrink_to_fit();
    if (destination == rank()) incoming = std::move(received);
  }
  return incoming;
}

std::vector<std::string> SingleProcess::all_to_all(std::vector<std::string> outgoing) {
  if (outgoing.size() != 1)
    throw std::invalid_argument("all_to_all: one message per rank expected");
  return outgoing;
}

namespace {

// Shared state of a thread group: one exchange at a time. Each rank deposits its bytes in its
// slot; the last to arrive publishes the round; every rank copies the round's bytes and the last
// to leave opens the next round (two phases, so a fast rank cannot overwrite a slot a slow rank
// has not read).
class ThreadGroupState {
 public:
  explicit ThreadGroupState(int ranks) : ranks_(ranks), slots_(static_cast<std::size_t>(ranks)) {}

  std::vector<std::string> exchange(int rank, std::string_view bytes) {
    std::vector<std::string> result;
    round([&] { slots_[static_cast<std::size_t>(rank)] = std::string(bytes); },
          [&] { result = slots_; });
    return result;
  }

  // Each rank deposits one message per rank and takes the messages addressed to it; every
  // message is read by exactly one rank, so it is moved, never copied to the others.
  std::vector<std::string> exchange_each(int rank, std::vector<std::string> outgoing) {
    std::vector<std::string> result(static_cast<std::size_t>(ranks_));
    round([&] { addressed_[static_cast<std::size_t>(rank)] = std::move(outgoing); },
          [&] {
            for (std::size_t from = 0; from < result.size(); ++from)
              result[from] = std::move(addressed_[from][static_cast<std::size_t>(rank)]);
          });
    return result;
  }

  void fail() {
    std::lock_guard lock(mutex_);
    failed_ = true;
    changed_.notify_all();
  }

 private:
  // One exchange: `deposit` runs when this rank may write its slot, `collect` once every rank
  // has deposited; the last rank to collect opens the next round.
  template <typename Deposit, typename Collect>
  void round(Deposit deposit, Collect collect) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return failed_ || !publishing_; });
    if (failed_) throw RankFailed();
    deposit();
    const auto current = round_;
    if (++arrived_ == ranks_) {
      publishing_ = true;
      left_ = 0;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return failed_ || (publishing_ && round_ == current); });
      if (failed_) throw RankFailed();
    }
    collect();
    if (++left_ == ranks_) {
      arrived_ = 0;
      publishing_ = false;
      ++round_;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  const int ranks_;
  std::vector<std::string> slots_;
  std::vector<std::vector<std::string>> addressed_{static_cast<std::size_t>(ranks_)};
  int arrived_ = 0;
  int left_ = 0;
  bool publishing_ = false;
  bool failed_ = false;
  unsigned long round_ = 0;
};

class ThreadRank final : public Communicator {
 public:
  ThreadRank(ThreadGroupState& state, int rank, int size)
      : state_(state), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> all_gather(std::string_view bytes) override {
    return state_.exchange(rank_, bytes);
  }
  std::vector<std::string> all_to_all(std::vector<std::string> outgoing) override {
    if (outgoing.size() != static_cast<std::size_t>(size_))
      throw std::invalid_argument("all_to_all: one message per rank expected");
    return state_.exchange_each(rank_, std::move(outgoing));
  }

 private:
  ThreadGroupState& state_;
  int rank_;
  int size_;
};

}  // namespace

void run_thread_group(int ranks, const std::function<void(Communicator&)>& body) {
  if (ranks < 1) throw std::invalid_argument("run_thread_group: ranks must be at least 1");
  ThreadGroupState state(ranks);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) {
    threads.emplace_back([&, rank] {
      ThreadRank communicator(state, rank, ranks);
      try {
        body(communicator);
      } catch (...) {
        errors[static_cast<std::size_t>(rank)] = std::current_exception();
        state.fail();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  // The failure that caused the others: a RankFailed only says that some other rank failed.
  for (const auto& error : errors) {
    if (!error) continue;
    try {
      std::rethrow_exception(error);
    } catch (const RankFailed&) {
      continue;
    } catch (...) {
      throw;
    }
  }
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace synthaudit
