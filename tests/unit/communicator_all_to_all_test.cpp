// all_to_all on one process, on threads standing in for ranks, and through the default written
// with gather (what a transport without its own all-to-all gets).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/communicator.hpp"

namespace synthaudit {
namespace {

// The message rank `from` sends to rank `to`: its length varies with both (uneven, some empty,
// one large) and its bytes say who sent it to whom.
std::string message(int from, int to, int round) {
  std::size_t length = static_cast<std::size_t>((from * 7 + to * 3 + round) % 5) * 13;
  if ((from + to + round) % 4 == 0) length = 0;
  if (from == 1 && to == 0 && round == 2) length = std::size_t{3} << 20;  // 3 MiB
  std::string bytes(length, '\0');
  for (std::size_t k = 0; k < length; ++k)
    bytes[k] = static_cast<char>((from * 31 + to * 17 + static_cast<int>(k)) & 0xff);
  return bytes;
}

void exchange_and_check(Communicator& communicator, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::string> outgoing;
    for (int to = 0; to < communicator.size(); ++to)
      outgoing.push_back(message(communicator.rank(), to, round));
    const auto incoming = communicator.all_to_all(std::move(outgoing));
    ASSERT_EQ(incoming.size(), static_cast<std::size_t>(communicator.size()));
    for (int from = 0; from < communicator.size(); ++from)
      ASSERT_EQ(incoming[static_cast<std::size_t>(from)], message(from, communicator.rank(), round))
          << "round " << round << ", from " << from << " to " << communicator.rank();
  }
}

// Forwards everything but all_to_all, so the base class's version runs.
class GatherOnly final : public Communicator {
 public:
  explicit GatherOnly(Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::vector<std::string> all_gather(std::string_view bytes) override {
    return inner_.all_gather(bytes);
  }

 private:
  Communicator& inner_;
};

TEST(CommunicatorAllToAll, SingleProcessKeepsItsOwnMessage) {
  SingleProcess one;
  EXPECT_EQ(one.all_to_all({"abc"}), std::vector<std::string>{"abc"});
  EXPECT_EQ(one.all_to_all({""}), std::vector<std::string>{""});
  EXPECT_THROW(one.all_to_all({"a", "b"}), std::invalid_argument);
}

TEST(CommunicatorAllToAll, ThreadRanksReceiveWhatEachRankAddressedToThem) {
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    // Many rounds back to back, interleaved with all_gather: no round may see another's messages.
    run_thread_group(ranks, [&](Communicator& communicator) {
      exchange_and_check(communicator, 40);
      EXPECT_EQ(communicator.all_gather("x").size(), static_cast<std::size_t>(ranks));
      exchange_and_check(communicator, 5);
    });
  }
}

TEST(CommunicatorAllToAll, DefaultThroughGatherDeliversTheSame) {
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    run_thread_group(ranks, [&](Communicator& communicator) {
      GatherOnly through_gather(communicator);
      exchange_and_check(through_gather, 6);
    });
  }
}

TEST(CommunicatorAllToAll, WrongNumberOfMessagesIsAProgrammingError) {
  EXPECT_THROW(run_thread_group(
                   2, [](Communicator& communicator) { communicator.all_to_all({"only one"}); }),
               std::invalid_argument);
}

}  // namespace
}  // namespace synthaudit
