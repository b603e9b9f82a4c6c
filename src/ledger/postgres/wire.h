// The PostgreSQL backend's values on the wire (postgres_store.cc): parameters in binary format
// (PgParam, ArrayParam), a reader of binary-format result rows (Row), and the text substitution
// the statements are built with (Fill). Header only: every statement builds its parameters and
// reads its rows with these, so they stay inline.
//
// Internal to the ledger's PostgreSQL store. Thread safety: values, no shared state.
#pragma once

#include <libpq-fe.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "veil/ledger/store.h"

namespace veil::ledger::pg {

// u64 attribute values are stored biased (v XOR 2^63) in BIGINT, as in SQLite: order-preserving
// over the whole u64 range, so range predicates stay index ranges. Other u64 fields (nonces, gas,
// timestamps) are stored as their two's-complement BIGINT bit pattern and read back exactly; no
// query compares them. Block numbers stay below 2^62.
inline constexpr std::uint64_t kBias = std::uint64_t{1} << 63;

inline std::int64_t Biased(std::uint64_t v) { return static_cast<std::int64_t>(v ^ kBias); }
inline std::uint64_t Unbiased(std::int64_t v) { return static_cast<std::uint64_t>(v) ^ kBias; }
inline std::int64_t I64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// Type OIDs (catalog/pg_type.h; stable across PostgreSQL versions).
inline constexpr Oid kByteaOid = 17;
inline constexpr Oid kInt8Oid = 20;
inline constexpr Oid kTextOid = 25;
inline constexpr Oid kTextArrayOid = 1009;
inline constexpr Oid kByteaArrayOid = 1001;
inline constexpr Oid kInt8ArrayOid = 1016;

// A parameter in binary format.
struct PgParam {
  Oid type = 0;
  std::string data;
};

inline void PutBe32(std::string* out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xff));
}
inline void PutBe64(std::string* out, std::uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xff));
}

inline PgParam Int8(std::int64_t v) {
  PgParam p{kInt8Oid, {}};
  PutBe64(&p.data, static_cast<std::uint64_t>(v));
  return p;
}
inline PgParam Text(std::string_view s) { return {kTextOid, std::string(s)}; }
inline PgParam Bytea(ByteView b) { return {kByteaOid, std::string(b.begin(), b.end())}; }

// The binary array format (src/backend/utils/adt/arrayfuncs.c, array_send): ndim, has-null flag,
// element type, per dimension (size, lower bound), then each element as length and bytes.
class ArrayParam {
 public:
  // The header's room is kept at the front of the body, so Build writes it in place and moves
  // the bytes out: no copy of the elements (a block's payloads and bodies among them). The room
  // is made by the first element: a block builds about 45 arrays, most of them empty.
  ArrayParam(Oid array_type, Oid element_type) : array_type_(array_type), element_(element_type) {}
  void Add(std::string_view element) {
    Room();
    PutBe32(&body_, static_cast<std::uint32_t>(element.size()));
    body_.append(element);
    ++n_;
  }
  void AddInt8(std::int64_t v) {
    Room();
    PutBe32(&body_, 8);
    PutBe64(&body_, static_cast<std::uint64_t>(v));
    ++n_;
  }
  void AddBytes(ByteView b) {
    Add(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  }
  std::size_t size() const { return n_; }
  // The parameter; once only (the elements move into it).
  PgParam Build() {
    if (n_ == 0) {  // the header alone, without a dimension
      std::string h;
      PutBe32(&h, 0);
      PutBe32(&h, 0);
      PutBe32(&h, element_);
      return {array_type_, std::move(h)};
    }
    const std::uint32_t header[5] = {1, 0, element_, static_cast<std::uint32_t>(n_), 1};
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t b = 0; b < 4; ++b) {
        body_[4 * i + b] = static_cast<char>(header[i] >> (24 - 8 * b) & 0xff);
      }
    }
    return {array_type_, std::move(body_)};
  }

 private:
  void Room() {
    if (n_ == 0) body_.assign(kHeader, '\0');
  }
  static constexpr std::size_t kHeader = 20;
  Oid array_type_;
  Oid element_;
  std::string body_;
  std::size_t n_ = 0;
};

// A statement's parameters, moved into their vector (an initializer list would copy each one).
template <class... P>
std::vector<PgParam> Params(P&&... p) {
  std::vector<PgParam> v;
  v.reserve(sizeof...(p));
  (v.push_back(std::forward<P>(p)), ...);
  return v;
}

inline ArrayParam Int8Array() { return {kInt8ArrayOid, kInt8Oid}; }
inline ArrayParam ByteaArray() { return {kByteaArrayOid, kByteaOid}; }
inline ArrayParam TextArray() { return {kTextArrayOid, kTextOid}; }

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

inline std::uint64_t GetBe(const char* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Reads binary-format columns; a malformed value becomes a DataLoss status in status().
class Row {
 public:
  Row(const PGresult* r, int row) : r_(r), row_(row) {}
  bool IsNull(int c) const { return PQgetisnull(r_, row_, c) != 0; }
  std::int64_t Int(int c) {
    const char* p = PQgetvalue(r_, row_, c);
    const int n = PQgetlength(r_, row_, c);
    switch (n) {
      case 8:
        return static_cast<std::int64_t>(GetBe(p, 8));
      case 4:
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(GetBe(p, 4)));
      case 2:
        return static_cast<std::int16_t>(static_cast<std::uint16_t>(GetBe(p, 2)));
      default:
        Fail("integer column of length " + std::to_string(n));
        return 0;
    }
  }
  std::uint64_t U64(int c) { return static_cast<std::uint64_t>(Int(c)); }
  std::string Str(int c) const {
    return std::string(PQgetvalue(r_, row_, c), static_cast<std::size_t>(PQgetlength(r_, row_, c)));
  }
  Bytes Blob(int c) const {
    const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r_, row_, c));
    return Bytes(p, p + PQgetlength(r_, row_, c));
  }
  template <std::size_t N>
  std::array<std::uint8_t, N> Array(int c) {
    std::array<std::uint8_t, N> out{};
    if (static_cast<std::size_t>(PQgetlength(r_, row_, c)) != N) {
      Fail("stored value has the wrong length");
      return out;
    }
    std::memcpy(out.data(), PQgetvalue(r_, row_, c), N);
    return out;
  }
  // A one-dimensional binary array's elements (NULL column: none).
  std::vector<std::string> Elements(int c) {
    std::vector<std::string> out;
    if (IsNull(c)) return out;
    const char* p = PQgetvalue(r_, row_, c);
    const std::size_t n = static_cast<std::size_t>(PQgetlength(r_, row_, c));
    std::size_t i = 0;
    auto be32 = [&](std::uint32_t* v) {
      if (n - i < 4) return false;
      *v = static_cast<std::uint32_t>(GetBe(p + i, 4));
      i += 4;
      return true;
    };
    std::uint32_t ndim = 0, flags = 0, elem = 0, count = 0, lower = 0;
    if (!be32(&ndim) || !be32(&flags) || !be32(&elem) || ndim > 1) {
      Fail("malformed array");
      return out;
    }
    if (ndim == 0) return out;
    if (!be32(&count) || !be32(&lower)) {
      Fail("malformed array");
      return out;
    }
    for (std::uint32_t k = 0; k < count; ++k) {
      std::uint32_t len = 0;
      if (!be32(&len) || len == 0xffffffffu || n - i < len) {
        Fail("malformed array element");
        return out;
      }
      out.emplace_back(p + i, len);
      i += len;
    }
    return out;
  }
  const Status& status() const { return status_; }

 private:
  void Fail(std::string m) {
    if (status_.ok()) status_ = DataLoss("postgres: " + std::move(m));
  }
  const PGresult* r_;
  int row_;
  Status status_;
};

// `text` with each `{key}` replaced by its value.
inline std::string Fill(std::string text,
                        std::initializer_list<std::pair<std::string_view, std::string>> subs) {
  for (const auto& [key, value] : subs) {
    const std::string mark = "{" + std::string(key) + "}";
    for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at)) {
      text.replace(at, mark.size(), value);
      at += value.size();
    }
  }
  return text;
}

}  // namespace veil::ledger::pg
