// The guardian's identity and its key file (identity.h).
#include "veil/guardian/identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "veil/base/codec.h"
#include "veil/base/encoding.h"
#include "veil/base/file.h"
#include "veil/crypto/hash.h"
#include "veil/crypto/random.h"

namespace veil::guardian {
namespace {

constexpr std::uint16_t kPublicTag = 0x4750;  // "GP"
constexpr std::uint16_t kSecretTag = 0x4749;  // "GI"
constexpr std::uint8_t kVersion = 1;
constexpr std::size_t kSecretFileSize =
    3 + crypto::kCompositePrivateKeySize + crypto::kXWingSeedSize + kStorageKeySize;

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

Bytes EncodePublic(const crypto::CompositeVerifyingKey& sk, const crypto::XWingPublicKey& kem) {
  Writer w(kPublicTag, kVersion);
  w.Fixed(sk.bytes()).Fixed(kem);
  return std::move(w).Take();
}

}  // namespace

PublicIdentity::PublicIdentity(crypto::CompositeVerifyingKey signing_key,
                               const crypto::XWingPublicKey& kem_public_key)
    : signing_key_(std::move(signing_key)), kem_public_key_(kem_public_key) {
  encoded_ = EncodePublic(signing_key_, kem_public_key_);
  fingerprint_ = crypto::Sha256(encoded_);
}

Result<PublicIdentity> PublicIdentity::Decode(ByteView encoded) {
  Reader r(encoded);
  r.Header(kPublicTag, kVersion);
  const ByteView sk = r.FixedView(crypto::kCompositePublicKeySize);
  crypto::XWingPublicKey kem{};
  r.Fixed(kem);
  VEIL_RETURN_IF_ERROR(r.Finish());
  VEIL_ASSIGN_OR_RETURN(auto vk, crypto::CompositeVerifyingKey::Decode(sk));
  return PublicIdentity(std::move(vk), kem);
}

std::string PublicIdentity::FingerprintHex() const { return HexEncode(fingerprint_); }

GuardianIdentity::GuardianIdentity(crypto::CompositeSigningKey signing_key,
                                   crypto::XWingDecapsulationKey kem,
                                   crypto::Secret<kStorageKeySize> storage_key)
    : signing_key_(std::make_unique<crypto::CompositeSigningKey>(std::move(signing_key))),
      kem_private_key_(crypto::SecretBytes::CopyFrom(kem.seed().Expose())),
      storage_key_(std::move(storage_key)) {
  public_ = std::unique_ptr<PublicIdentity>(
      new PublicIdentity(signing_key_->verifying_key(), kem.public_key()));
}

GuardianIdentity::GuardianIdentity(GuardianIdentity&&) noexcept = default;
GuardianIdentity& GuardianIdentity::operator=(GuardianIdentity&&) noexcept = default;
GuardianIdentity::~GuardianIdentity() = default;

GuardianIdentity GuardianIdentity::Generate() {
  return GuardianIdentity(crypto::CompositeSigningKey::Generate(),
                          crypto::XWingDecapsulationKey::Generate(),
                          crypto::RandomSecret<kStorageKeySize>());
}

crypto::SecretBytes GuardianIdentity::EncodeSecret() const {
  // Written by hand into the wiping buffer: a Writer's vector could leave copies behind.
  crypto::SecretBytes out(kSecretFileSize);
  auto o = out.ExposeMutable();
  o[0] = static_cast<std::uint8_t>(kSecretTag >> 8);
  o[1] = static_cast<std::uint8_t>(kSecretTag & 0xff);
  o[2] = kVersion;
  std::size_t pos = 3;
  auto put = [&](ByteView b) {
    std::memcpy(o.data() + pos, b.data(), b.size());
    pos += b.size();
  };
  const crypto::SecretBytes sk = signing_key_->Encode();
  put(sk.Expose());
  put(kem_private_key_.Expose());
  put(storage_key_.Expose());
  VEIL_CHECK(pos == kSecretFileSize);
  return out;
}

Status GuardianIdentity::Save(const std::filesystem::path& dir) const {
  const crypto::SecretBytes secret = EncodeSecret();
  // kNeverReplace (link(2)): an identity is never overwritten, and an existing one gives
  // kFailedPrecondition, on which LoadOrCreate loads it instead.
  return WriteFileAtomically(dir / kIdentityFileName, secret.Expose(), 0600,
                             ReplacePolicy::kNeverReplace);
}

Result<GuardianIdentity> GuardianIdentity::Load(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kIdentityFileName;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) {
    if (errno == ENOENT) return NotFound(path.string() + " does not exist");
    return Unavailable(Errno("open " + path.string()));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Unavailable(Errno("stat " + path.string()));
  if ((st.st_mode & 077) != 0) {
    return FailedPrecondition(path.string() + " is readable by group or others; chmod 600 it");
  }
  if (static_cast<std::size_t>(st.st_size) != kSecretFileSize) {
    return DataLoss(path.string() + " has the wrong size");
  }
  crypto::SecretBytes secret(kSecretFileSize);
  std::size_t done = 0;
  while (done < kSecretFileSize) {
    const ssize_t n =
        ::read(fd.get(), secret.ExposeMutable().data() + done, kSecretFileSize - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(Errno("read " + path.string()));
    done += static_cast<std::size_t>(n);
  }
  Reader r(secret.Expose());
  r.Header(kSecretTag, kVersion);
  const ByteView sk = r.FixedView(crypto::kCompositePrivateKeySize);
  const ByteView seed = r.FixedView(crypto::kXWingSeedSize);
  const ByteView storage = r.FixedView(kStorageKeySize);
  if (!r.Finish().ok()) return DataLoss(path.string() + " is malformed");
  auto signing = crypto::CompositeSigningKey::Decode(sk);
  auto kem = crypto::XWingDecapsulationKey::FromSeedBytes(seed);
  if (!signing.ok() || !kem.ok()) return DataLoss(path.string() + " holds malformed keys");
  return GuardianIdentity(
      std::move(*signing), std::move(*kem),
      crypto::Secret<kStorageKeySize>::CopyFrom(
          std::span<const std::uint8_t, kStorageKeySize>(storage.data(), kStorageKeySize)));
}

Result<GuardianIdentity> GuardianIdentity::LoadOrCreate(const std::filesystem::path& dir) {
  auto loaded = Load(dir);
  if (loaded.ok() || loaded.status().code() != Code::kNotFound) return loaded;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return Unavailable(Errno("mkdir " + dir.string()));
    }
  }
  GuardianIdentity identity = Generate();
  const Status saved = identity.Save(dir);
  if (saved.code() == Code::kFailedPrecondition) return Load(dir);  // another process won
  VEIL_RETURN_IF_ERROR(saved);
  return identity;
}

}  // namespace veil::guardian
