// RateLimiter: one token bucket per key (an owner's key encoding), in memory.
//
// Each key's bucket holds up to `burst` tokens and refills at `rate` tokens per second; a request
// takes one token or is refused. Buckets that are full again carry no information and are dropped
// once the table holds more than max_keys entries, so many ephemeral owners cannot grow it without
// bound (if every bucket is in use the table is cleared: that only ever errs towards admitting).
//
// Thread safety: every member is safe from any thread (one mutex).
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace veil::guardian {

class RateLimiter {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic

  // rate <= 0 disables the limiter (every call is allowed).
  RateLimiter(double rate, double burst, Clock clock = nullptr, std::size_t max_keys = 100000);

  // Takes one token from key's bucket; false when it is empty.
  bool Allow(const std::string& key);

 private:
  struct Bucket {
    double tokens;
    double updated;
  };
  double rate_;
  double burst_;
  Clock clock_;
  std::size_t max_keys_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace veil::guardian
