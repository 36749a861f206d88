#pragma once
// Test-only: a small WebSocket server on 127.0.0.1 (OS-chosen port) over plain sockets, to test the
// tunnel against a real peer: it answers the upgrade (or refuses it with an HTTP error), then
// echoes the payload of every data frame back as a binary frame, answers pings and the closing
// handshake. Records each upgrade request. Not for production use.
#include <netinet/in.h>
#include <openssl/evp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/loopback_listener_test_util.h"
#include "common/base64.h"

namespace det::cli {

struct FakeWsRequest {
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
};

struct FakeWsServerOptions {
  int refuse_status = 0;  // != 0: answer every upgrade with this HTTP status and refuse_body
  std::string refuse_body;
  int close_after_frames = 0;  // > 0: after echoing this many frames, start the closing handshake
};

class FakeWsServer {
 public:
  explicit FakeWsServer(FakeWsServerOptions options = {}) : options_(std::move(options)) {
    fd_ = ListenOnLoopback(&port_);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }

  ~FakeWsServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    accept_thread_.join();
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int c : open_) ::shutdown(c, SHUT_RDWR);
      threads.swap(threads_);
    }
    for (std::thread& t : threads) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<FakeWsRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  // Whether a client's close frame was received (a clean end from the client's side).
  bool saw_client_close() const { return saw_client_close_; }

 private:
  void AcceptLoop() {
    while (true) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::lock_guard<std::mutex> lock(mu_);
      open_.push_back(c);
      threads_.emplace_back([this, c] {
        Handle(c);
        std::lock_guard<std::mutex> lock(mu_);
        open_.erase(std::find(open_.begin(), open_.end(), c));
        ::close(c);
      });
    }
  }

  static bool ReadExact(int c, void* buf, size_t n) {
    char* p = static_cast<char*>(buf);
    while (n > 0) {
      ssize_t r = ::read(c, p, n);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }
  static bool WriteAll(int c, const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::send(c, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  static std::string Frame(uint8_t opcode, const std::string& payload) {
    std::string f;
    f.push_back(static_cast<char>(0x80 | opcode));
    if (payload.size() < 126) {
      f.push_back(static_cast<char>(payload.size()));
    } else if (payload.size() < 65536) {
      f.push_back(static_cast<char>(126));
      f.push_back(static_cast<char>(payload.size() >> 8));
      f.push_back(static_cast<char>(payload.size() & 0xff));
    } else {
      f.push_back(static_cast<char>(127));
      for (int i = 7; i >= 0; --i)
        f.push_back(static_cast<char>((payload.size() >> (8 * i)) & 0xff));
    }
    return f + payload;
  }
  static std::string AcceptKey(const std::string& key) {
    std::string in = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(in.data(), in.size(), md, &len, EVP_sha1(), nullptr);
    return Base64Encode(std::string(reinterpret_cast<char*>(md), len));
  }

  void Handle(int c) {
    std::string head;
    char ch;
    while (head.find("\r\n\r\n") == std::string::npos) {
      if (::read(c, &ch, 1) != 1) return;
      head.push_back(ch);
    }
    FakeWsRequest req;
    size_t line_end = head.find("\r\n");
    std::string request_line = head.substr(0, line_end);
    size_t sp1 = request_line.find(' ');
    size_t sp2 = request_line.find(' ', sp1 + 1);
    req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      std::string line = head.substr(pos, e - pos);
      pos = e + 2;
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& x : name) x = static_cast<char>(std::tolower(static_cast<unsigned char>(x)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      req.headers[name] = value;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
    }
    if (options_.refuse_status != 0) {
      WriteAll(c, "HTTP/1.1 " + std::to_string(options_.refuse_status) +
                      " Refused\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(options_.refuse_body.size()) +
                      "\r\nConnection: close\r\n\r\n" + options_.refuse_body);
      return;
    }
    WriteAll(c,
             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Accept: " +
                 AcceptKey(req.headers["sec-websocket-key"]) + "\r\n\r\n");
    int echoed = 0;
    bool closing = false;
    while (true) {
      unsigned char h[2];
      if (!ReadExact(c, h, 2)) return;
      uint8_t opcode = h[0] & 0x0f;
      uint64_t len = h[1] & 0x7f;
      if (len == 126) {
        unsigned char e[2];
        if (!ReadExact(c, e, 2)) return;
        len = (uint64_t{e[0]} << 8) | e[1];
      } else if (len == 127) {
        unsigned char e[8];
        if (!ReadExact(c, e, 8)) return;
        len = 0;
        for (unsigned char b : e) len = (len << 8) | b;
      }
      unsigned char mask[4] = {0, 0, 0, 0};
      if ((h[1] & 0x80) != 0 && !ReadExact(c, mask, 4)) return;
      std::string payload(len, '\0');
      if (len > 0 && !ReadExact(c, payload.data(), len)) return;
      for (size_t i = 0; i < payload.size(); ++i)
        payload[i] = static_cast<char>(payload[i] ^ mask[i % 4]);
      if (opcode == 0x8) {  // close: answer it (unless it answers ours); the server closes TCP
        if (!closing) {
          saw_client_close_ = true;
          WriteAll(c, Frame(0x8, payload.substr(0, 2)));
        }
        return;
      }
      if (opcode == 0x9) {
        WriteAll(c, Frame(0xA, payload));
        continue;
      }
      if (opcode == 0xA) continue;
      if (closing) continue;  // after our close frame: wait for the client's
      if (!WriteAll(c, Frame(0x2, payload))) return;
      if (options_.close_after_frames > 0 && ++echoed == options_.close_after_frames) {
        WriteAll(c, Frame(0x8, std::string("\x03\xe8", 2)));  // 1000, normal
        closing = true;
      }
    }
  }

  FakeWsServerOptions options_;
  int fd_ = -1;
  int port_ = 0;
  std::thread accept_thread_;
  std::mutex mu_;
  std::vector<int> open_;
  std::vector<std::thread> threads_;
  std::vector<FakeWsRequest> requests_;
  std::atomic<bool> saw_client_close_{false};
};

}  // namespace det::cli
