// RateLimiter: token buckets per key (an owner key's hash, a client address), in memory, in a
// table of bounded size.
//
// Each key holds one bucket per TokenRate given at construction (a client address has one for
// requests and one for items). A bucket holds up to `burst` tokens and refills at `per_second`
// tokens per second; Allow takes `cost` tokens from one bucket or, when it holds fewer, takes
// none and refuses. A rate <= 0 disables that bucket (every call is allowed and nothing is
// stored for it).
//
// The table holds at most max_keys keys, so a flood of distinct keys (fresh owner keys, many
// addresses) cannot grow memory without bound: a new key beyond max_keys evicts the least
// recently used one, in O(1). An evicted key starts again from a full bucket, so eviction errs
// towards admitting; to exploit it an attacker must touch more than max_keys other keys between
// two of its own requests, and such an attacker already holds max_keys full buckets. (The
// alternatives are worse: refusing new keys while the table is full lets a flood lock every new
// client out, and clearing the table resets every key at once.)
//
// Thread safety: every member is safe from any thread (one mutex).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace veil::guardian {

struct TokenRate {
  double per_second = 0;  // <= 0: this bucket never refuses
  double burst = 1;       // bucket size; at least 1
};

class RateLimiter {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  static constexpr std::size_t kDefaultMaxKeys = 100000;

  // One bucket per entry of `rates` (at least one); max_keys >= 1.
  explicit RateLimiter(std::vector<TokenRate> rates, Clock clock = nullptr,
                       std::size_t max_keys = kDefaultMaxKeys);
  // A single bucket per key.
  RateLimiter(double rate, double burst, Clock clock = nullptr,
              std::size_t max_keys = kDefaultMaxKeys)
      : RateLimiter(std::vector<TokenRate>{{rate, burst}}, std::move(clock), max_keys) {}

  // Takes `cost` tokens from bucket `bucket` of `key`; false (and nothing taken) when it holds
  // fewer. A cost above the bucket's burst is never allowed.
  bool Allow(const std::string& key, std::size_t bucket = 0, double cost = 1);

  // Keys held now (at most max_keys).
  std::size_t size() const;

 private:
  struct Entry {
    std::vector<double> tokens;
    double updated = 0;
    std::list<std::string>::iterator lru;  // position in lru_
  };
  std::vector<TokenRate> rates_;
  Clock clock_;
  std::size_t max_keys_;
  mutable std::mutex mu_;
  std::list<std::string> lru_;  // most recently used first
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace veil::guardian
