#pragma once
// Test-only: a tiny HTTP/1.1 server on 127.0.0.1 (OS-chosen port) that answers each request with a
// handler's response and closes the connection. Records every request. Not for production use.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/loopback_listener_test_util.h"

namespace det::cli {

struct FakeRequest {
  std::string method;
  std::string target;                          // path and query
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct FakeResponse {
  int status = 200;
  std::string body = "{}";
};

class FakeHttpServer {
 public:
  using Handler = std::function<FakeResponse(const FakeRequest&)>;

  explicit FakeHttpServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = ListenOnLoopback(&port_);
    thread_ = std::thread([this] { Serve(); });
  }

  ~FakeHttpServer() {
    stopping_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<FakeRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void Serve() {
    while (!stopping_) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      Handle(c);
      ::close(c);
    }
  }

  void Handle(int c) {
    std::string data;
    char buf[4096];
    size_t header_end = std::string::npos;
    while (header_end == std::string::npos) {
      ssize_t n = ::read(c, buf, sizeof(buf));
      if (n <= 0) return;
      data.append(buf, static_cast<size_t>(n));
      header_end = data.find("\r\n\r\n");
    }
    FakeRequest req;
    std::string head = data.substr(0, header_end);
    size_t line_end = head.find("\r\n");
    std::string request_line = head.substr(0, line_end);
    size_t sp1 = request_line.find(' ');
    size_t sp2 = request_line.find(' ', sp1 + 1);
    req.method = request_line.substr(0, sp1);
    req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      std::string line = head.substr(pos, e - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        req.headers[name] = value;
      }
      pos = e + 2;
    }
    size_t length = 0;
    if (auto it = req.headers.find("content-length"); it != req.headers.end()) {
      length = std::stoul(it->second);
    }
    req.body = data.substr(header_end + 4);
    while (req.body.size() < length) {
      ssize_t n = ::read(c, buf, sizeof(buf));
      if (n <= 0) break;
      req.body.append(buf, static_cast<size_t>(n));
    }
    FakeResponse resp = handler_(req);
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
    }
    std::string out =
        "HTTP/1.1 " + std::to_string(resp.status) +
        " X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
        std::to_string(resp.body.size()) + "\r\n\r\n" + resp.body;
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = ::write(c, out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<FakeRequest> requests_;
};

}  // namespace det::cli
