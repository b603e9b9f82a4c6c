// Entities of the ledger (Arkiv's model): keys, addresses, typed attributes and their rules.
//
// An entity has a 32-byte key derived from its creator and the creator's create counter (so a
// client can predict it), an owner (the only one who may mutate it), an immutable creator, an
// opaque payload with a content type, up to 30 typed attributes (unsigned 64-bit or string) with
// lowercase names, and the blocks where it was created, last updated and where it expires. An
// address is 20 bytes derived from a signature scheme tag and a public key, so a post-quantum
// scheme can own entities beside Ed25519 (docs/notes/ledger.md, "Addresses").
//
// Thread safety: values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/codec.h"
#include "veil/base/result.h"
#include "veil/ledger/limits.h"

namespace veil::ledger {

inline constexpr std::size_t kKeySize = 32;
inline constexpr std::size_t kAddressSize = 20;
inline constexpr std::size_t kHashSize = 32;

using EntityKey = std::array<std::uint8_t, kKeySize>;
using Address = std::array<std::uint8_t, kAddressSize>;
using Hash32 = std::array<std::uint8_t, kHashSize>;

// Signature schemes a transaction may carry (the tag is part of the signed encoding).
enum class SigScheme : std::uint8_t {
  kEd25519 = 1,
  // Composite ML-DSA-65 + Ed25519 (crypto/composite_sig.h): both signatures must verify.
  kCompositeMlDsa65Ed25519 = 2,
};

// address = SHA-256("veil.ledger.address.v1" || scheme || public key)[0..20)
Address AddressOf(SigScheme scheme, ByteView public_key);
// key = SHA-256("veil.ledger.entity-key.v1" || chain_id u64 || creator || create_nonce u64)
EntityKey DeriveEntityKey(std::uint64_t chain_id, const Address& creator,
                          std::uint64_t create_nonce);

// Arkiv's type ids (SDK 0.8.1): u64 = 3, str = 8.
enum class AttrType : std::uint8_t { kNumeric = 3, kString = 8 };

struct Attribute {
  std::string name;
  std::variant<std::uint64_t, std::string> value;

  AttrType type() const { return value.index() == 0 ? AttrType::kNumeric : AttrType::kString; }
  static Attribute Num(std::string n, std::uint64_t v) { return {std::move(n), v}; }
  static Attribute Str(std::string n, std::string v) { return {std::move(n), std::move(v)}; }
  friend bool operator==(const Attribute&, const Attribute&) = default;
};

// Creation flags (Arkiv 0.8.1's `creationFlags`), fixed when the entity is created: no operation
// changes them. kReadonly: the entity cannot be updated (its payload, content type and
// attributes stay as created; it may still be extended, transferred and deleted by its owner).
// kPermissionlessExtension: anyone may extend it, not only its owner.
inline constexpr std::uint8_t kFlagReadonly = 1;
inline constexpr std::uint8_t kFlagPermissionlessExtension = 2;
inline constexpr std::uint8_t kKnownFlags = kFlagReadonly | kFlagPermissionlessExtension;

// The full state of an entity. `id` is the store's sequential integer id (0 until stored).
struct Entity {
  std::int64_t id = 0;
  EntityKey key{};
  Address owner{};
  Address creator{};
  std::uint8_t flags = 0;  // kFlag*
  std::string content_type;
  Bytes payload;
  std::vector<Attribute> attributes;  // sorted strictly ascending by name
  std::uint64_t created_block = 0;
  std::uint64_t updated_block = 0;
  std::uint64_t expires_block = 0;
  std::uint64_t last_change = 0;  // sequence number of the change that produced this state

  friend bool operator==(const Entity&, const Entity&) = default;
};

// H("veil.ledger.entity.v1" || key || owner || creator || created || updated || expires ||
//   content type || SHA-256(payload) || attributes): the entity hash in the change set, for an
// entity without flags; with flags the label is "veil.ledger.entity.v2" and the flags byte
// follows the creator (so every entity hashed before flags existed keeps its hash).
Hash32 EntityHash(const Entity& e);

// The attributes' binary form (a varint count, then each name, type byte and value), in a
// transaction's operations, in the entity hash and in a store's copy of an entity's attributes.
void PutAttributes(Writer& w, const std::vector<Attribute>& attrs);
// Reads PutAttributes' form: at most `max_count` attributes, names of at most `max_name` bytes,
// string values of at most `max_value`; a violation fails `r` (names are not validated here).
std::vector<Attribute> GetAttributes(Reader& r, std::size_t max_count, std::size_t max_name,
                                     std::size_t max_value);

// Name rules: [a-z][a-z0-9._-]*, at most limits.max_attribute_name bytes, not a reserved word.
Status ValidateAttributeName(std::string_view name, const Limits& limits);
// Strings: well-formed UTF-8 of at most limits.max_string_value bytes, no C0 controls or DEL.
Status ValidateStringValue(std::string_view value, const Limits& limits);
// Lowercase type/subtype, no parameters, at most limits.max_content_type bytes.
Status ValidateContentType(std::string_view content_type, const Limits& limits);
// Every name and value valid, names strictly ascending (so unique), at most `max_count`.
Status ValidateAttributes(const std::vector<Attribute>& attrs, std::size_t max_count,
                          const Limits& limits);

std::string ToHex(ByteView b);

}  // namespace veil::ledger
