#include "harness/worker_group.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace det::harness {
namespace {

using Clock = std::chrono::steady_clock;

absl::Status Errno(const std::string& what) {
  return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Errno("sending to a worker");
    data += w;
    n -= static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

absl::Status ReadAll(int fd, char* data, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, data, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return absl::UnavailableError("a worker closed its connection (it exited or crashed)");
    if (r < 0) return Errno("receiving from a worker");
    data += r;
    n -= static_cast<size_t>(r);
  }
  return absl::OkStatus();
}

// A frame: 8-byte big-endian length, then the bytes.
std::string FrameHeader(uint64_t n) {
  std::string header(8, '\0');
  for (int i = 7; i >= 0; --i, n >>= 8) header[i] = static_cast<char>(n & 0xff);
  return header;
}

uint64_t FrameLength(const unsigned char* header) {
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n = (n << 8) | header[i];
  return n;
}

absl::Status SendFrame(int fd, const std::string& data) {
  std::string header = FrameHeader(data.size());
  RETURN_IF_ERROR(WriteAll(fd, header.data(), header.size()));
  return WriteAll(fd, data.data(), data.size());
}

absl::StatusOr<std::string> ReceiveFrame(int fd) {
  unsigned char header[8];
  RETURN_IF_ERROR(ReadAll(fd, reinterpret_cast<char*>(header), sizeof header));
  uint64_t n = FrameLength(header);
  std::string data(n, '\0');
  RETURN_IF_ERROR(ReadAll(fd, data.data(), n));
  return data;
}

// A list of strings as one frame's payload: each as a frame of its own.
std::string Pack(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += FrameHeader(item.size()) + item;
  return out;
}

absl::StatusOr<std::vector<std::string>> Unpack(const std::string& packed) {
  std::vector<std::string> items;
  size_t at = 0;
  while (at < packed.size()) {
    if (packed.size() - at < 8) return absl::DataLossError("a truncated allgather message");
    uint64_t n = FrameLength(reinterpret_cast<const unsigned char*>(packed.data() + at));
    at += 8;
    if (packed.size() - at < n) return absl::DataLossError("a truncated allgather message");
    items.push_back(packed.substr(at, n));
    at += n;
  }
  return items;
}

sockaddr_in Address(const std::string& ip, int port, absl::Status& status) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) {
    status = absl::InvalidArgumentError(absl::StrCat("chief_ip \"", ip, "\": not an IPv4 address"));
  }
  return addr;
}

void NoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

absl::StatusOr<std::vector<int>> AcceptWorkers(const WorkerGroupOptions& o) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return Errno("socket");
  int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(o.port));
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  std::vector<int> peers(o.size, -1);
  auto fail = [&](absl::Status st) {
    ::close(listener);
    for (int fd : peers) {
      if (fd >= 0) ::close(fd);
    }
    return st;
  };
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener, o.size) != 0) {
    return fail(Errno(absl::StrCat("the chief listening on port ", o.port)));
  }
  Clock::time_point deadline = Clock::now() + o.join_timeout;
  for (int joined = 1; joined < o.size;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{listener, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      return fail(absl::DeadlineExceededError(absl::StrCat("only ", joined, " of ", o.size, " workers joined within ",
                                                           o.join_timeout.count(), " ms")));
    }
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    NoDelay(fd);
    absl::StatusOr<std::string> hello = ReceiveFrame(fd);
    int rank = -1;
    if (hello.ok() && hello->size() == 4) {
      rank = (static_cast<unsigned char>((*hello)[0]) << 24) | (static_cast<unsigned char>((*hello)[1]) << 16) |
             (static_cast<unsigned char>((*hello)[2]) << 8) | static_cast<unsigned char>((*hello)[3]);
    }
    if (rank <= 0 || rank >= o.size || peers[rank] >= 0) {
      ::close(fd);
      return fail(absl::InvalidArgumentError(
          absl::StrCat("a worker joined with rank ", rank, ", which is out of 1..", o.size - 1, " or taken")));
    }
    peers[rank] = fd;
    ++joined;
  }
  ::close(listener);
  return peers;
}

absl::StatusOr<int> ConnectToChief(const WorkerGroupOptions& o) {
  absl::Status bad;
  sockaddr_in addr = Address(o.chief_ip, o.port, bad);
  RETURN_IF_ERROR(bad);
  Clock::time_point deadline = Clock::now() + o.join_timeout;
  while (true) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Errno("socket");
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      NoDelay(fd);
      std::string hello(4, '\0');
      for (int i = 0; i < 4; ++i) hello[i] = static_cast<char>((o.rank >> (24 - 8 * i)) & 0xff);
      if (absl::Status st = SendFrame(fd, hello); !st.ok()) {
        ::close(fd);
        return st;
      }
      return fd;
    }
    int err = errno;
    ::close(fd);
    if (Clock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("worker ", o.rank, " could not reach the chief at ", o.chief_ip,
                                                      ":", o.port, " within ", o.join_timeout.count(),
                                                      " ms: ", std::strerror(err)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerGroup>> WorkerGroup::Join(const WorkerGroupOptions& o) {
  if (o.size < 1 || o.rank < 0 || o.rank >= o.size) {
    return absl::InvalidArgumentError(absl::StrCat("rank ", o.rank, " of size ", o.size, ": need 0 <= rank < size"));
  }
  if (o.port <= 0 || o.port > 65535) return absl::InvalidArgumentError(absl::StrCat("port ", o.port, ": out of range"));
  if (o.size == 1) return std::unique_ptr<WorkerGroup>(new WorkerGroup(0, 1, {}));
  if (o.rank == 0) {
    ASSIGN_OR_RETURN(std::vector<int> peers, AcceptWorkers(o));
    return std::unique_ptr<WorkerGroup>(new WorkerGroup(0, o.size, std::move(peers)));
  }
  ASSIGN_OR_RETURN(int chief, ConnectToChief(o));
  return std::unique_ptr<WorkerGroup>(new WorkerGroup(o.rank, o.size, {chief}));
}

WorkerGroup::~WorkerGroup() {
  for (int fd : peers_) {
    if (fd >= 0) ::close(fd);
  }
}

absl::StatusOr<std::optional<std::vector<std::string>>> WorkerGroup::Gather(const std::string& data) {
  if (rank_ != 0) {
    RETURN_IF_ERROR(SendFrame(peers_[0], data));
    return std::nullopt;
  }
  std::vector<std::string> all{data};
  for (int r = 1; r < size_; ++r) {
    ASSIGN_OR_RETURN(std::string theirs, ReceiveFrame(peers_[r]));
    all.push_back(std::move(theirs));
  }
  return all;
}

absl::StatusOr<std::string> WorkerGroup::Broadcast(const std::string& data) {
  if (rank_ != 0) return ReceiveFrame(peers_[0]);
  for (int r = 1; r < size_; ++r) RETURN_IF_ERROR(SendFrame(peers_[r], data));
  return data;
}

absl::StatusOr<std::vector<std::string>> WorkerGroup::AllGather(const std::string& data) {
  ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> gathered, Gather(data));
  ASSIGN_OR_RETURN(std::string packed, Broadcast(gathered ? Pack(*gathered) : std::string()));
  return Unpack(packed);
}

}  // namespace det::harness
