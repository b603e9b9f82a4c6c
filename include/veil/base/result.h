// Result<T>: a value or a non-ok Status.
//
// std::expected would be the natural choice, but clang 14 cannot use it with Debian 12's libstdc++,
// and the fuzzers build with clang 14; this small type has the subset of its interface we use.
// Reading the value of a failed Result is a programming error and aborts with the status text.
//
// Thread safety: a value type.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "veil/base/status.h"

namespace veil {

template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Status>, "use Status directly");

 public:
  // Implicit on purpose: `return value;` and `return InvalidArgument(...);` both read naturally.
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}        // NOLINT
  Result(Status status) : v_(std::in_place_index<1>, std::move(status)) {  // NOLINT
    VEIL_CHECK_MSG(!std::get<1>(v_).ok(), "Result constructed from an ok Status");
  }

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<1>(v_);
  }

  T& value() & {
    Check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    Check();
    return std::get<0>(v_);
  }
  T&& value() && {
    Check();
    return std::get<0>(std::move(v_));
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void Check() const {
    if (!ok()) CheckFailed(__FILE__, __LINE__, "Result::ok()", std::get<1>(v_).ToString().c_str());
  }
  std::variant<T, Status> v_;
};

template <class T>
const Status& ToStatus(const Result<T>& r) {
  return r.status();
}

}  // namespace veil

#define VEIL_CONCAT_INNER_(a, b) a##b
#define VEIL_CONCAT_(a, b) VEIL_CONCAT_INNER_(a, b)

// VEIL_ASSIGN_OR_RETURN(auto x, Parse(bytes)); declares x or returns the error.
#define VEIL_ASSIGN_OR_RETURN(lhs, expr) \
  VEIL_ASSIGN_OR_RETURN_IMPL_(VEIL_CONCAT_(veil_result_, __LINE__), lhs, expr)
#define VEIL_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
