// Per-owner token buckets (rate_limiter.h).
#include "veil/guardian/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace veil::guardian {

RateLimiter::RateLimiter(double rate, double burst, Clock clock, std::size_t max_keys)
    : rate_(rate), burst_(std::max(burst, 1.0)), clock_(std::move(clock)), max_keys_(max_keys) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

bool RateLimiter::Allow(const std::string& key) {
  if (rate_ <= 0) return true;
  const double now = clock_();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_keys_) {
      // Drop buckets that have refilled: they hold no state worth keeping.
      for (auto i = buckets_.begin(); i != buckets_.end();) {
        const double t = std::min(burst_, i->second.tokens + (now - i->second.updated) * rate_);
        i = t >= burst_ ? buckets_.erase(i) : std::next(i);
      }
      if (buckets_.size() >= max_keys_) buckets_.clear();
    }
    it = buckets_.emplace(key, Bucket{burst_, now}).first;
  }
  Bucket& b = it->second;
  b.tokens = std::min(burst_, b.tokens + std::max(0.0, now - b.updated) * rate_);
  b.updated = now;
  if (b.tokens < 1.0) return false;
  b.tokens -= 1.0;
  return true;
}

}  // namespace veil::guardian
