// The Fiat-Shamir transcript: the one source of every challenge in the proofs floor.
//
// A Transcript is a SHAKE256 sponge (crypto/keccak.h) that only ever absorbs. Every operation
// absorbs one self-delimiting frame
//
//     op (1 byte) || len(label) (1 byte) || label || len(data) (8 bytes, big-endian) || data
//
// so a sequence of operations maps injectively to the absorbed string (docs/notes/transcript.md
// gives the byte layout and the argument). The constructor absorbs a fixed format frame, then the
// protocol name and version. A challenge absorbs its own frame (op, label, requested length) into
// the main state, then squeezes from a copy of the sponge: it depends on everything before it, and
// everything after it depends on it having been drawn.
//
// Binding to a context: prover and verifier each build a Transcript with the same protocol name and
// version and append the same public context (session id, statement, parties) before proving or
// verifying; a proof verifies only against a transcript in the same state. Proof functions take the
// transcript by reference and append their own statement and commitments.
//
// TranscriptRng derives a prover's secret nonces (Merlin's construction): a copy of the transcript
// absorbs the witness and 32 fresh random bytes, then squeezes. The nonces depend on the whole
// public statement, the witness and the randomness, so a broken RNG still never repeats a nonce for
// two different statements (hedged), and good randomness hides the witness even from a fault that
// replays the statement.
//
// Constant time: every operation's running time depends only on lengths (labels, data, outputs),
// never on the bytes, so appending secret data (TranscriptRng witnesses) is fine. Labels must be at
// most 255 bytes (longer is a programming error and aborts); they are constants of the protocols.
//
// Thread safety: values; the usual rules for a non-const object shared between threads. Copying a
// transcript forks it (both copies continue independently).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/crypto/keccak.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::zk {

class TranscriptRng;

class Transcript {
 public:
  // The version of the framing itself (absorbed first, docs/notes/transcript.md).
  static constexpr std::uint64_t kFormatVersion = 1;
  static constexpr std::size_t kMaxLabelSize = 255;

  // Absorbs the format frame, then `protocol` (1..255 bytes) and `version`.
  Transcript(std::string_view protocol, std::uint64_t version);

  Transcript(const Transcript&) = default;
  Transcript& operator=(const Transcript&) = default;

  void AppendMessage(std::string_view label, ByteView data);
  // v as 8 big-endian bytes.
  void AppendU64(std::string_view label, std::uint64_t v);
  // The canonical 32-byte encoding; the RistrettoPoint overload encodes first.
  void AppendPoint(std::string_view label, const ec::CompressedRistretto& point);
  void AppendPoint(std::string_view label, const ec::RistrettoPoint& point);
  // The canonical 32-byte little-endian encoding.
  void AppendScalar(std::string_view label, const ec::Scalar& scalar);

  // 64 squeezed bytes reduced mod l (uniform up to 2^-259).
  ec::Scalar ChallengeScalar(std::string_view label);
  // out.size() squeezed bytes; the length is part of the frame, so asking for 16 bytes is not a
  // prefix of asking for 32.
  void ChallengeBytes(std::string_view label, MutableByteView out);
  Bytes ChallengeBytes(std::string_view label, std::size_t n);

  // A generator of secret nonces forked from the current state (see TranscriptRng).
  TranscriptRng BuildRng() const;

 private:
  friend class TranscriptRng;
  void Frame(std::uint8_t op, std::string_view label, ByteView data);
  crypto::Shake256 sponge_;
};

// Secret nonces for a prover: fork the transcript (BuildRng), absorb each witness with
// AppendWitness, then Finalize with fresh randomness and draw scalars. Move-only; the sponge state
// is wiped on destruction and when moved from. Calling Append* after Finalize, Next* before it, or
// anything on a moved-from generator is a programming error and aborts: a moved-from generator
// that kept its state would draw the very nonces its successor draws.
class TranscriptRng {
 public:
  TranscriptRng(TranscriptRng&& o) noexcept;
  TranscriptRng& operator=(TranscriptRng&& o) noexcept;
  TranscriptRng(const TranscriptRng&) = delete;
  TranscriptRng& operator=(const TranscriptRng&) = delete;

  TranscriptRng& AppendWitness(std::string_view label, const ec::Scalar& witness);
  TranscriptRng& AppendWitnessBytes(std::string_view label, ByteView witness);
  // Absorbs 32 bytes from the CSPRNG.
  void Finalize();
  // Absorbs the given 32 bytes instead: for known-answer tests and for callers that must be
  // deterministic (all zeros is then still safe: the nonce is a function of witness and statement).
  void FinalizeWithRandomness(std::span<const std::uint8_t, 32> randomness);

  ec::Scalar NextScalar();

 private:
  friend class Transcript;
  explicit TranscriptRng(const crypto::Shake256& s) : sponge_(s) {}
  void Frame(std::uint8_t op, std::string_view label, ByteView data);
  crypto::Shake256 sponge_;
  bool finalized_ = false;
  bool moved_from_ = false;
};

}  // namespace veil::zk
