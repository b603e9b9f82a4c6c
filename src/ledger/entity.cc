// Entity keys, addresses, hashes and attribute rules (see entity.h).
#include "veil/ledger/entity.h"

#include <algorithm>
#include <array>
#include <string>

#include "veil/base/codec.h"
#include "veil/base/encoding.h"
#include "veil/crypto/hash.h"

namespace veil::ledger {
namespace {

// Arkiv's reserved words (SDK 0.8.1) plus our own operators.
constexpr std::array<std::string_view, 20> kReserved = {
    "and", "or",   "not", "true",    "false", "startswith", "exists", "typeof", "bool", "i32",
    "u64", "u256", "dec", "bytes32", "bytes", "str",        "addr",   "key",    "in",   "glob"};

Hash32 Digest(const Bytes& b) {
  const auto d = crypto::Sha256(b);
  Hash32 out;
  std::copy(d.begin(), d.end(), out.begin());
  return out;
}

bool IsMimeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '!' || c == '#' || c == '$' ||
         c == '&' || c == '^' || c == '_' || c == '.' || c == '+' || c == '-';
}

}  // namespace

std::size_t Limits::MaxTxBytes() const {
  // Header, chain id, nonce, scheme, key, op count, signature: well under 8 KiB even for the
  // composite scheme; each operation at most its payload, content type and attributes.
  const std::size_t attr = 1 + max_attribute_name + 1 + 2 + max_string_value;
  const std::size_t op =
      64 + max_payload_bytes + max_content_type + 8 + 2 * max_entity_attributes * attr;
  return 8192 + max_ops_per_tx * op;
}

Address AddressOf(SigScheme scheme, ByteView public_key) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.address.v1"))
      .U8(static_cast<std::uint8_t>(scheme))
      .Fixed(public_key);
  const auto d = crypto::Sha256(w.bytes());
  Address a;
  std::copy_n(d.begin(), kAddressSize, a.begin());
  return a;
}

EntityKey DeriveEntityKey(std::uint64_t chain_id, const Address& creator,
                          std::uint64_t create_nonce) {
  Writer w;
  w.Fixed(AsBytes("veil.ledger.entity-key.v1")).U64(chain_id).Fixed(creator).U64(create_nonce);
  return Digest(w.bytes());
}

Hash32 EntityHash(const Entity& e) {
  Writer w;
  w.Fixed(AsBytes(e.flags == 0 ? "veil.ledger.entity.v1" : "veil.ledger.entity.v2"))
      .Fixed(e.key)
      .Fixed(e.owner)
      .Fixed(e.creator);
  if (e.flags != 0) w.U8(e.flags);
  w.U64(e.created_block)
      .U64(e.updated_block)
      .U64(e.expires_block)
      .String(e.content_type)
      .Fixed(crypto::Sha256(e.payload));
  PutAttributes(w, e.attributes);
  return Digest(w.bytes());
}

void PutAttributes(Writer& w, const std::vector<Attribute>& attrs) {
  w.Varint(attrs.size());
  for (const auto& a : attrs) {
    w.String(a.name).U8(static_cast<std::uint8_t>(a.type()));
    if (a.type() == AttrType::kNumeric) {
      w.U64(std::get<std::uint64_t>(a.value));
    } else {
      w.String(std::get<std::string>(a.value));
    }
  }
}

std::vector<Attribute> GetAttributes(Reader& r, std::size_t max_count, std::size_t max_name,
                                     std::size_t max_value) {
  std::vector<Attribute> out;
  const std::uint64_t n = r.Varint();
  if (n > max_count) {
    r.Fail("too many attributes");
    return out;
  }
  // An attribute takes at least 3 bytes (name length, type, value), so a count the input cannot
  // hold reserves no more than the input could fill.
  out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, r.remaining() / 3)));
  for (std::uint64_t i = 0; i < n && r.ok(); ++i) {
    Attribute a;
    a.name = r.String(max_name);
    const std::uint8_t type = r.U8();
    if (type == static_cast<std::uint8_t>(AttrType::kNumeric)) {
      a.value = r.U64();
    } else if (type == static_cast<std::uint8_t>(AttrType::kString)) {
      a.value = r.String(max_value);
    } else {
      r.Fail("unknown attribute type");
    }
    out.push_back(std::move(a));
  }
  return out;
}

Status ValidateAttributeName(std::string_view name, const Limits& limits) {
  if (name.empty()) return InvalidArgument("attribute name is empty");
  if (name.size() > limits.max_attribute_name) {
    return InvalidArgument("attribute name '" + std::string(name) + "' longer than " +
                           std::to_string(limits.max_attribute_name) + " bytes");
  }
  if (!(name[0] >= 'a' && name[0] <= 'z')) {
    return InvalidArgument("attribute name must start with a-z");
  }
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return InvalidArgument("attribute name may hold only a-z 0-9 . _ -");
  }
  if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end()) {
    return InvalidArgument("attribute name '" + std::string(name) + "' is reserved");
  }
  return Status::Ok();
}

Status ValidateStringValue(std::string_view value, const Limits& limits) {
  if (value.size() > limits.max_string_value) {
    return InvalidArgument("string attribute longer than " +
                           std::to_string(limits.max_string_value) + " bytes");
  }
  // Well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF), no C0 controls or DEL.
  std::size_t i = 0;
  while (i < value.size()) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return InvalidArgument("string attribute holds a control byte");
      ++i;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1, cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2, cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3, cp = c & 0x07u;
    } else {
      return InvalidArgument("string attribute is not UTF-8");
    }
    if (i + n >= value.size()) {
      return InvalidArgument("string attribute is not UTF-8");
    }
    for (std::size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(value[i + k]);
      if ((cc & 0xc0) != 0x80) return InvalidArgument("string attribute is not UTF-8");
      cp = (cp << 6) | (cc & 0x3fu);
    }
    const bool overlong = (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return InvalidArgument("string attribute is not UTF-8");
    }
    i += n + 1;
  }
  return Status::Ok();
}

Status ValidateContentType(std::string_view ct, const Limits& limits) {
  if (ct.size() > limits.max_content_type) {
    return InvalidArgument("content type longer than " + std::to_string(limits.max_content_type) +
                           " bytes");
  }
  const auto slash = ct.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == ct.size()) {
    return InvalidArgument("content type must be type/subtype");
  }
  for (std::size_t i = 0; i < ct.size(); ++i) {
    if (i != slash && !IsMimeChar(ct[i])) {
      return InvalidArgument("content type must be lowercase type/subtype without parameters");
    }
  }
  return Status::Ok();
}

Status ValidateAttributes(const std::vector<Attribute>& attrs, std::size_t max_count,
                          const Limits& limits) {
  if (attrs.size() > max_count) {
    return InvalidArgument("too many attributes: " + std::to_string(attrs.size()) + " > " +
                           std::to_string(max_count));
  }
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    VEIL_RETURN_IF_ERROR(ValidateAttributeName(attrs[i].name, limits));
    if (i > 0 && !(attrs[i - 1].name < attrs[i].name)) {
      return InvalidArgument(attrs[i - 1].name == attrs[i].name
                                 ? "duplicate attribute name '" + attrs[i].name + "'"
                                 : "attributes must be sorted by name");
    }
    if (attrs[i].type() == AttrType::kString) {
      VEIL_RETURN_IF_ERROR(ValidateStringValue(std::get<std::string>(attrs[i].value), limits));
    }
  }
  return Status::Ok();
}

// Keys, addresses and hashes are public: the variable-time codec.
std::string ToHex(ByteView b) { return HexEncodeVartime(b); }

}  // namespace veil::ledger
