#include "core/cluster.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace synthaudit {

namespace {

// A request on the wire: the kind, a NUL, the payload. A reply: one status byte, then the handler's
// bytes or the error message.
constexpr char kStop[] = "\x01stop";
constexpr char kReplyOk = 'o';
constexpr char kReplyInputError = 'i';
constexpr char kReplyNotApplicable = 'n';
constexpr char kReplyOtherError = 'e';

}  // namespace

void Cluster::on(std::string kind, Handler handler) {
  if (kind.empty() || kind.find('\0') != std::string::npos || kind == kStop)
    throw std::invalid_argument("Cluster::on: bad request kind");
  handlers_[std::move(kind)] = std::move(handler);
}

std::string Cluster::run_handler(const std::string& kind, const std::string& payload) {
  auto handler = handlers_.find(kind);
  try {
    if (handler == handlers_.end())
      throw std::logic_error("no handler for cluster request '" + kind + "'");
    return kReplyOk + handler->second(payload);
  } catch (const InputError& error) {
    return kReplyInputError + std::string(error.what());
  } catch (const MetricNotApplicable& error) {
    return kReplyNotApplicable + std::string(error.what());
  } catch (const std::exception& error) {
    return kReplyOtherError + std::string(error.what());
  }
}

std::vector<std::string> Cluster::call(const std::string& kind, const std::string& payload) {
  if (!is_root()) throw std::logic_error("Cluster::call on a rank other than the root");
  const std::lock_guard<std::mutex> lock(calling_);
  std::string request = kind;
  request.push_back('\0');
  request += payload;
  communicator_.broadcast(request);
  auto replies = communicator_.gather(run_handler(kind, payload));
  // Every rank has finished; the first failure (in rank order) is the call's.
  std::vector<std::string> results;
  results.reserve(replies.size());
  for (std::size_t rank = 0; rank < replies.size(); ++rank) {
    const std::string& reply = replies[rank];
    const char status = reply.empty() ? kReplyOtherError : reply.front();
    std::string body = reply.empty() ? "empty reply" : reply.substr(1);
    const std::string where = replies.size() > 1 ? " (rank " + std::to_string(rank) + ")" : "";
    if (status == kReplyInputError) throw InputError(body);
    if (status == kReplyNotApplicable) throw MetricNotApplicable(body);
    if (status != kReplyOk) throw std::runtime_error(body + where);
    results.push_back(std::move(body));
  }
  return results;
}

void Cluster::serve() {
  if (is_root()) throw std::logic_error("Cluster::serve on the root");
  for (;;) {
    const std::string request = communicator_.broadcast({});
    if (request == kStop) return;
    const auto split = request.find('\0');
    const std::string kind = request.substr(0, split);
    const std::string payload = split == std::string::npos ? "" : request.substr(split + 1);
    communicator_.gather(run_handler(kind, payload));
  }
}

void Cluster::stop() {
  if (!is_root()) throw std::logic_error("Cluster::stop on a rank other than the root");
  const std::lock_guard<std::mutex> lock(calling_);
  if (ranks() > 1) communicator_.broadcast(kStop);
}

}  // namespace synthaudit
