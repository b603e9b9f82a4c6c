// Token buckets per key in a bounded LRU table (rate_limiter.h).
#include "veil/guardian/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

#include "veil/base/status.h"

namespace veil::guardian {

RateLimiter::RateLimiter(std::vector<TokenRate> rates, Clock clock, std::size_t max_keys)
    : rates_(std::move(rates)), clock_(std::move(clock)), max_keys_(max_keys) {
  VEIL_CHECK_MSG(!rates_.empty(), "a rate limiter needs at least one bucket");
  VEIL_CHECK_MSG(max_keys_ >= 1, "a rate limiter table needs room for a key");
  for (TokenRate& r : rates_) r.burst = std::max(r.burst, 1.0);
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

bool RateLimiter::Allow(const std::string& key, std::size_t bucket, double cost) {
  VEIL_CHECK(bucket < rates_.size());
  const TokenRate& rate = rates_[bucket];
  if (rate.per_second <= 0) return true;
  const double now = clock_();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= max_keys_) {
      // Evict the least recently used key: the one whose buckets have had the longest to refill.
      auto victim = entries_.find(lru_.back());
      lru_.pop_back();
      entries_.erase(victim);
    }
    lru_.push_front(key);
    Entry e;
    e.tokens.reserve(rates_.size());
    for (const TokenRate& r : rates_) e.tokens.push_back(r.burst);
    e.updated = now;
    e.lru = lru_.begin();
    it = entries_.emplace(key, std::move(e)).first;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  Entry& e = it->second;
  const double elapsed = std::max(0.0, now - e.updated);
  for (std::size_t i = 0; i < rates_.size(); ++i) {
    if (rates_[i].per_second > 0) {
      e.tokens[i] = std::min(rates_[i].burst, e.tokens[i] + elapsed * rates_[i].per_second);
    }
  }
  e.updated = std::max(e.updated, now);
  if (e.tokens[bucket] < cost) return false;
  e.tokens[bucket] -= cost;
  return true;
}

std::size_t RateLimiter::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace veil::guardian
