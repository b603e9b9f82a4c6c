// The canonical binary encoding (see codec.h for the format and its rules).
#include "veil/base/codec.h"

#include <cstring>

namespace veil {

Writer& Writer::Header(std::uint16_t tag, std::uint8_t version) { return U16(tag).U8(version); }

Writer& Writer::U8(std::uint8_t v) {
  out_.push_back(v);
  return *this;
}
Writer& Writer::U16(std::uint16_t v) {
  out_.push_back(static_cast<std::uint8_t>(v >> 8));
  out_.push_back(static_cast<std::uint8_t>(v));
  return *this;
}
Writer& Writer::U32(std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out_.push_back(static_cast<std::uint8_t>(v >> s));
  return *this;
}
Writer& Writer::U64(std::uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out_.push_back(static_cast<std::uint8_t>(v >> s));
  return *this;
}
Writer& Writer::Varint(std::uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<std::uint8_t>(v));
  return *this;
}
Writer& Writer::Fixed(ByteView b) {
  out_.insert(out_.end(), b.begin(), b.end());
  return *this;
}
Writer& Writer::VarBytes(ByteView b) { return Varint(b.size()).Fixed(b); }

bool Reader::NeedFailed(const char* what) {
  if (status_.ok()) status_ = InvalidArgument(std::string("truncated input reading ") + what);
  return false;
}

void Reader::Fail(std::string message) {
  if (status_.ok()) status_ = InvalidArgument(std::move(message));
}

Reader& Reader::Header(std::uint16_t tag, std::uint8_t version) {
  const std::uint16_t got_tag = U16();
  const std::uint8_t got_version = U8();
  if (!ok()) return *this;
  if (got_tag != tag) {
    Fail("wrong structure tag");
  } else if (got_version != version) {
    Fail("unsupported version " + std::to_string(got_version));
  }
  return *this;
}

std::uint16_t Reader::U16() {
  if (!Need(2, "u16")) return 0;
  const auto v = static_cast<std::uint16_t>((in_[pos_] << 8) | in_[pos_ + 1]);
  pos_ += 2;
  return v;
}
std::uint32_t Reader::U32() {
  if (!Need(4, "u32")) return 0;
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | in_[pos_++];
  return v;
}
bool Reader::Bool() {
  const std::uint8_t b = U8();
  if (b > 1) Fail("boolean must be 0 or 1");
  return b == 1;
}
std::uint64_t Reader::VarintSlow() {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (!Need(1, "varint")) return 0;
    const std::uint8_t b = in_[pos_++];
    const std::uint64_t part = b & 0x7fu;
    if (shift == 63 && part > 1) {
      Fail("varint overflows 64 bits");
      return 0;
    }
    v |= part << shift;
    if ((b & 0x80u) == 0) {
      // Minimal: no trailing zero group (except the value 0 itself, one byte).
      if (b == 0 && shift != 0) {
        Fail("non-minimal varint");
        return 0;
      }
      return v;
    }
  }
  Fail("varint too long");
  return 0;
}
void Reader::Fixed(MutableByteView out) {
  if (!Need(out.size(), "bytes")) {
    std::memset(out.data(), 0, out.size());
    return;
  }
  std::memcpy(out.data(), in_.data() + pos_, out.size());
  pos_ += out.size();
}
ByteView Reader::FixedView(std::size_t n) {
  if (!Need(n, "bytes")) return {};
  ByteView v = in_.subspan(pos_, n);
  pos_ += n;
  return v;
}
ByteView Reader::VarBytes(std::size_t max_len) {
  const std::uint64_t n = Varint();
  if (!ok()) return {};
  if (n > max_len) {
    Fail("length " + std::to_string(n) + " exceeds limit " + std::to_string(max_len));
    return {};
  }
  return FixedView(static_cast<std::size_t>(n));
}
std::string Reader::String(std::size_t max_len) {
  ByteView b = VarBytes(max_len);
  return std::string(AsChars(b));
}

Status Reader::Finish() const {
  if (!status_.ok()) return status_;
  if (remaining() != 0) {
    return InvalidArgument(std::to_string(remaining()) + " trailing bytes");
  }
  return Status::Ok();
}

}  // namespace veil
