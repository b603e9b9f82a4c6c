// Canonical binary encoding: the one wire format helper for every structure the project serialises.
//
// An encoding starts with a header (a 16-bit type tag and a 8-bit version), then fields in order:
// fixed-width big-endian integers, booleans as 0/1, fixed-length byte strings, and variable-length
// byte strings prefixed by their length as a minimal LEB128 varint. Every value has exactly one
// encoding, and the Reader rejects anything else: a short buffer, a non-minimal varint, a boolean
// other than 0 or 1, a length over the caller's bound, or bytes left over when Finish() is called.
// Errors are sticky: after the first failure every Get returns zeros and Finish() reports the first
// error, so decoders can read all fields and check once.
//
// Thread safety: Writer and Reader are single-threaded values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"

namespace veil {

class Writer {
 public:
  Writer() = default;
  // Starts an encoding of structure `tag` at `version`.
  Writer(std::uint16_t tag, std::uint8_t version) { Header(tag, version); }

  Writer& Header(std::uint16_t tag, std::uint8_t version);
  Writer& U8(std::uint8_t v);
  Writer& U16(std::uint16_t v);
  Writer& U32(std::uint32_t v);
  Writer& U64(std::uint64_t v);
  Writer& Bool(bool v) { return U8(v ? 1 : 0); }
  Writer& Varint(std::uint64_t v);
  Writer& Fixed(ByteView b);     // no length: the reader knows it
  Writer& VarBytes(ByteView b);  // varint length, then the bytes
  Writer& String(std::string_view s) { return VarBytes(AsBytes(s)); }

  const Bytes& bytes() const& { return out_; }
  Bytes Take() && { return std::move(out_); }

 private:
  Bytes out_;
};

class Reader {
 public:
  explicit Reader(ByteView in) : in_(in) {}

  // Checks the header; a wrong tag or an unsupported version is an error.
  Reader& Header(std::uint16_t tag, std::uint8_t version);
  // U8, U64 and a one-byte Varint (every value below 128, always minimal) are inline: the
  // decoders of stored entities call them several times an attribute.
  std::uint8_t U8() { return Need(1, "u8") ? in_[pos_++] : 0; }
  std::uint16_t U16();
  std::uint32_t U32();
  std::uint64_t U64() {
    if (!Need(8, "u64")) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | in_[pos_ + static_cast<std::size_t>(i)];
    pos_ += 8;
    return v;
  }
  bool Bool();
  std::uint64_t Varint() {
    if (status_.ok() && pos_ < in_.size() && in_[pos_] < 0x80) [[likely]] {
      return in_[pos_++];
    }
    return VarintSlow();
  }
  // Reads exactly out.size() bytes.
  void Fixed(MutableByteView out);
  ByteView FixedView(std::size_t n);
  // Reads a varint length (at most max_len) and that many bytes.
  ByteView VarBytes(std::size_t max_len);
  std::string String(std::size_t max_len);

  // Records a semantic error found by the caller (e.g. a field out of range).
  void Fail(std::string message);

  bool ok() const { return status_.ok(); }
  std::size_t remaining() const { return in_.size() - pos_; }
  // The first error, or trailing bytes, or ok.
  Status Finish() const;

 private:
  // True when no error is recorded and n more bytes are there; otherwise records the truncation
  // (unless an error is already recorded) and is false. Inline: every read checks it.
  bool Need(std::size_t n, const char* what) {
    if (status_.ok() && remaining() >= n) [[likely]] {
      return true;
    }
    return NeedFailed(what);
  }
  bool NeedFailed(const char* what);
  std::uint64_t VarintSlow();
  ByteView in_;
  std::size_t pos_ = 0;
  Status status_;
};

}  // namespace veil
