// The communicator seam and the root-driven requests, on threads standing in for ranks.
#include "core/cluster.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/communicator.hpp"
#include "core/error.hpp"

namespace synthaudit {
namespace {

TEST(Communicator, SingleProcessReturnsItsOwnBytes) {
  SingleProcess one;
  EXPECT_EQ(one.all_gather("abc"), std::vector<std::string>{"abc"});
  EXPECT_EQ(one.gather("x"), std::vector<std::string>{"x"});
  EXPECT_EQ(one.broadcast("y"), "y");
  EXPECT_TRUE(one.is_root());
}

TEST(Communicator, ThreadGroupCollectivesDeliverEveryRanksBytesInRankOrder) {
  for (int ranks : {1, 2, 3, 4}) {
    std::atomic<int> checked{0};
    run_thread_group(ranks, [&](Communicator& comm) {
      ASSERT_EQ(comm.size(), ranks);
      // Many rounds back to back: a fast rank must not overwrite a slot a slow one still reads.
      for (int round = 0; round < 200; ++round) {
        const std::string mine = std::to_string(comm.rank()) + ":" + std::to_string(round);
        const auto all = comm.all_gather(mine);
        ASSERT_EQ(all.size(), static_cast<std::size_t>(ranks));
        for (int r = 0; r < ranks; ++r)
          ASSERT_EQ(all[static_cast<std::size_t>(r)],
                    std::to_string(r) + ":" + std::to_string(round));
        const auto gathered = comm.gather(mine, ranks - 1);
        ASSERT_EQ(gathered.size(), comm.rank() == ranks - 1 ? all.size() : 0u);
        ASSERT_EQ(comm.broadcast(comm.is_root() ? "root" + std::to_string(round) : "ignored"),
                  "root" + std::to_string(round));
      }
      comm.barrier();
      ++checked;
    });
    EXPECT_EQ(checked.load(), ranks);
  }
}

TEST(Communicator, AFailingRankReleasesTheOthersAndItsErrorIsRethrown) {
  EXPECT_THROW(run_thread_group(3,
                                [](Communicator& comm) {
                                  if (comm.rank() == 1) throw InputError("bad.csv: row 7");
                                  comm.barrier();  // would wait forever for rank 1
                                }),
               InputError);
}

TEST(Cluster, EveryRankRunsTheHandlerAndTheRootGetsTheRepliesInRankOrder) {
  for (int ranks : {1, 2, 4}) {
    run_thread_group(ranks, [&](Communicator& comm) {
      Cluster cluster(comm);
      cluster.on("square", [&](const std::string& payload) {
        const int x = std::stoi(payload) + comm.rank();
        return std::to_string(x * x);
      });
      // A handler may use collectives: every rank runs it at the same time.
      cluster.on("sum", [&](const std::string&) {
        int sum = 0;
        for (const auto& part : comm.all_gather(std::to_string(comm.rank() + 1)))
          sum += std::stoi(part);
        return std::to_string(sum);
      });
      cluster.on("fail_on_last", [&](const std::string&) -> std::string {
        if (comm.rank() == comm.size() - 1) throw InputError("part.csv: row 3 is bad");
        return "fine";
      });
      if (!cluster.is_root()) {
        cluster.serve();
        return;
      }
      const auto replies = cluster.call("square", "3");
      ASSERT_EQ(replies.size(), static_cast<std::size_t>(ranks));
      for (int r = 0; r < ranks; ++r)
        EXPECT_EQ(replies[static_cast<std::size_t>(r)], std::to_string((3 + r) * (3 + r)));
      const auto sums = cluster.call("sum", "");
      for (const auto& sum : sums) EXPECT_EQ(sum, std::to_string(ranks * (ranks + 1) / 2));
      // The error comes back to the root as the same kind, and the others keep serving.
      EXPECT_THROW(cluster.call("fail_on_last", ""), InputError);
      EXPECT_THROW(cluster.call("no_such_kind", ""), std::runtime_error);
      EXPECT_EQ(cluster.call("square", "0").front(), "0");
      cluster.stop();
    });
  }
}

}  // namespace
}  // namespace synthaudit

namespace synthaudit {
namespace {

TEST(Cluster, CallsFromSeveralRootThreadsAreSerialised) {
  run_thread_group(3, [](Communicator& comm) {
    Cluster cluster(comm);
    cluster.on("echo", [&](const std::string& payload) {
      // A collective inside the handler: interleaved calls would mix up the rounds.
      const auto all = comm.all_gather(payload);
      for (const auto& part : all)
        if (part != payload) throw std::logic_error("calls interleaved");
      return payload;
    });
    if (!cluster.is_root()) {
      cluster.serve();
      return;
    }
    std::vector<std::thread> threads;
    std::atomic<int> good{0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          const std::string payload = std::to_string(t) + "/" + std::to_string(i);
          if (cluster.call("echo", payload).at(2) == payload) ++good;
        }
      });
    for (auto& thread : threads) thread.join();
    cluster.stop();
    EXPECT_EQ(good.load(), 200);
  });
}

}  // namespace
}  // namespace synthaudit
