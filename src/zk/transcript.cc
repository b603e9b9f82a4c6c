// The Fiat-Shamir transcript over SHAKE256; the framing is in docs/notes/transcript.md.
#include "veil/zk/transcript.h"

#include "veil/base/status.h"
#include "veil/crypto/random.h"
#include "veil/crypto/secret.h"

namespace veil::zk {
namespace {

// Operation codes (docs/notes/transcript.md). Never renumber: they are part of every challenge.
enum Op : std::uint8_t {
  kOpFormat = 0x00,
  kOpProtocol = 0x01,
  kOpMessage = 0x02,
  kOpU64 = 0x03,
  kOpPoint = 0x04,
  kOpScalar = 0x05,
  kOpChallengeBytes = 0x06,
  kOpChallengeScalar = 0x07,
  kOpRngWitness = 0x08,
  kOpRngRandomness = 0x09,
};

constexpr std::string_view kFormatLabel = "veil.transcript";

std::array<std::uint8_t, 8> BigEndian64(std::uint64_t v) {
  std::array<std::uint8_t, 8> out{};
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
  return out;
}

// op || len(label) || label || len(data) as 8 bytes big-endian || data.
void AbsorbFrame(crypto::Shake256& sponge, std::uint8_t op, std::string_view label, ByteView data) {
  VEIL_CHECK_MSG(label.size() <= Transcript::kMaxLabelSize, "transcript label over 255 bytes");
  const std::array<std::uint8_t, 2> head = {op, static_cast<std::uint8_t>(label.size())};
  sponge.Absorb(head);
  sponge.Absorb(AsBytes(label));
  sponge.Absorb(BigEndian64(static_cast<std::uint64_t>(data.size())));
  sponge.Absorb(data);
}

}  // namespace

Transcript::Transcript(std::string_view protocol, std::uint64_t version) {
  VEIL_CHECK_MSG(!protocol.empty(), "transcript protocol name must not be empty");
  AbsorbFrame(sponge_, kOpFormat, kFormatLabel, BigEndian64(kFormatVersion));
  AbsorbFrame(sponge_, kOpProtocol, protocol, BigEndian64(version));
}

void Transcript::Frame(std::uint8_t op, std::string_view label, ByteView data) {
  AbsorbFrame(sponge_, op, label, data);
}

void Transcript::AppendMessage(std::string_view label, ByteView data) {
  Frame(kOpMessage, label, data);
}

void Transcript::AppendU64(std::string_view label, std::uint64_t v) {
  Frame(kOpU64, label, BigEndian64(v));
}

void Transcript::AppendPoint(std::string_view label, const ec::CompressedRistretto& point) {
  Frame(kOpPoint, label, point.bytes());
}

void Transcript::AppendPoint(std::string_view label, const ec::RistrettoPoint& point) {
  AppendPoint(label, point.Encode());
}

void Transcript::AppendScalar(std::string_view label, const ec::Scalar& scalar) {
  const ec::Scalar::Bytes b = scalar.ToBytes();
  Frame(kOpScalar, label, b);
}

void Transcript::ChallengeBytes(std::string_view label, MutableByteView out) {
  Frame(kOpChallengeBytes, label, BigEndian64(static_cast<std::uint64_t>(out.size())));
  crypto::Shake256 fork = sponge_;
  fork.Squeeze(out);
}

Bytes Transcript::ChallengeBytes(std::string_view label, std::size_t n) {
  Bytes out(n);
  ChallengeBytes(label, MutableByteView(out));
  return out;
}

ec::Scalar Transcript::ChallengeScalar(std::string_view label) {
  std::array<std::uint8_t, 64> wide{};
  Frame(kOpChallengeScalar, label, BigEndian64(wide.size()));
  crypto::Shake256 fork = sponge_;
  fork.Squeeze(wide);
  return ec::Scalar::FromBytesModOrderWide(wide);
}

TranscriptRng Transcript::BuildRng() const { return TranscriptRng(sponge_); }

// The sponge can only be copied, so the source is reset and marked: nothing may draw from it again.
TranscriptRng::TranscriptRng(TranscriptRng&& o) noexcept
    : sponge_(o.sponge_), finalized_(o.finalized_), moved_from_(o.moved_from_) {
  o.sponge_.Reset();
  o.finalized_ = false;
  o.moved_from_ = true;
}

TranscriptRng& TranscriptRng::operator=(TranscriptRng&& o) noexcept {
  if (this != &o) {
    sponge_ = o.sponge_;
    finalized_ = o.finalized_;
    moved_from_ = o.moved_from_;
    o.sponge_.Reset();
    o.finalized_ = false;
    o.moved_from_ = true;
  }
  return *this;
}

void TranscriptRng::Frame(std::uint8_t op, std::string_view label, ByteView data) {
  VEIL_CHECK_MSG(!moved_from_, "TranscriptRng: used after a move");
  AbsorbFrame(sponge_, op, label, data);
}

TranscriptRng& TranscriptRng::AppendWitness(std::string_view label, const ec::Scalar& witness) {
  ec::Scalar::Bytes b = witness.ToBytes();
  AppendWitnessBytes(label, b);
  crypto::SecureWipe(b.data(), b.size());
  return *this;
}

TranscriptRng& TranscriptRng::AppendWitnessBytes(std::string_view label, ByteView witness) {
  VEIL_CHECK_MSG(!finalized_, "TranscriptRng: AppendWitness after Finalize");
  Frame(kOpRngWitness, label, witness);
  return *this;
}

void TranscriptRng::Finalize() {
  std::array<std::uint8_t, 32> randomness{};
  crypto::RandomBytes(randomness);
  FinalizeWithRandomness(randomness);
  crypto::SecureWipe(randomness.data(), randomness.size());
}

void TranscriptRng::FinalizeWithRandomness(std::span<const std::uint8_t, 32> randomness) {
  VEIL_CHECK_MSG(!finalized_, "TranscriptRng: Finalize called twice");
  Frame(kOpRngRandomness, "rng", randomness);
  finalized_ = true;
}

ec::Scalar TranscriptRng::NextScalar() {
  VEIL_CHECK_MSG(!moved_from_, "TranscriptRng: used after a move");
  VEIL_CHECK_MSG(finalized_, "TranscriptRng: NextScalar before Finalize");
  std::array<std::uint8_t, 64> wide{};
  sponge_.Squeeze(wide);
  ec::Scalar s = ec::Scalar::FromBytesModOrderWide(wide);
  crypto::SecureWipe(wide.data(), wide.size());
  return s;
}

}  // namespace veil::zk
