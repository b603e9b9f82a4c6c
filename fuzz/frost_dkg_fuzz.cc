// Fuzzes the FROST DKG's network inputs, both ciphersuites (zk/frost.h): participant 1 of a fixed
// 2-of-3 ceremony runs Part2 on fuzzed round-one packages, or Part3 on fuzzed round-two packages
// (after an honest Part2 against the fixed round-one packages of participants 2 and 3), each
// package with a fuzzed sender. No input may crash or read out of bounds; a failure is
// kInvalidArgument or VerificationFailed(); a culprit is the sender of a package that was given,
// or a participant of the ceremony that sent nothing; a VerificationFailed() always has a culprit.
//
// Input: byte 0 picks the suite (bit 7) and the round (bit 0); then records of
// sender (1 byte, the identifier) || length (u16 big-endian) || package encoding, to the end.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "veil/zk/frost.h"

namespace {

using namespace veil;
using namespace veil::zk::frost;

void Check(bool ok) {
  if (!ok) std::abort();
}

Identifier Id(std::uint64_t v) { return Identifier::FromInteger(v).value(); }

const dkg::Ceremony& TheCeremony() {
  static const dkg::Ceremony c =
      dkg::Ceremony::Create(AsBytes("fuzz"), {Id(1), Id(2), Id(3)}, 2).value();
  return c;
}

// Participants 2 and 3's round-one packages, made once; their polynomials are dropped, so no
// round-two package can match their commitments.
template <class S>
struct Peers {
  std::vector<dkg::Received<dkg::Round1Package<S>>> round1;
};

template <class S>
const Peers<S>& ThePeers() {
  static const Peers<S> peers = [] {
    Peers<S> p;
    for (const std::uint64_t i : {std::uint64_t{2}, std::uint64_t{3}}) {
      auto out = dkg::Part1<S>(TheCeremony(), Id(i)).value();
      p.round1.push_back({Id(i), out.package});
    }
    return p;
  }();
  return peers;
}

struct Record {
  Identifier from;
  ByteView bytes;
};

std::vector<Record> Records(ByteView in) {
  std::vector<Record> out;
  std::size_t pos = 0;
  while (pos + 3 <= in.size() && out.size() < 8) {
    const std::uint8_t from = in[pos];
    const std::size_t len = (std::size_t{in[pos + 1]} << 8) | in[pos + 2];
    pos += 3;
    if (len > in.size() - pos) break;
    const ByteView bytes = in.subspan(pos, len);
    pos += len;
    if (from == 0) continue;  // not an identifier
    out.push_back({Id(from), bytes});
  }
  return out;
}

template <class T>
void CheckOutcome(const FrostResult<T>& r, const std::vector<Identifier>& senders) {
  if (r.ok()) return;
  const Code code = r.status().code();
  Check(code == Code::kInvalidArgument || code == Code::kVerificationFailed);
  if (code == Code::kVerificationFailed) Check(r.culprit().has_value());
  if (!r.culprit()) return;
  const Identifier& who = r.culprit()->participant;
  if (r.culprit()->fault == Fault::kMissingShare) {
    Check(TheCeremony().Contains(who));
    for (const Identifier& s : senders) Check(!(s == who));
    return;
  }
  bool given = false;
  for (const Identifier& s : senders) given = given || s == who;
  Check(given);
}

template <class S>
void Run(bool round_two, ByteView in) {
  auto mine = dkg::Part1<S>(TheCeremony(), Id(1)).value();
  std::vector<Identifier> senders;
  if (!round_two) {
    std::vector<dkg::Received<dkg::Round1Package<S>>> packages;
    for (const Record& rec : Records(in)) {
      auto p = dkg::Round1Package<S>::Decode(rec.bytes);
      if (!p.ok()) continue;
      senders.push_back(rec.from);
      packages.push_back({rec.from, std::move(p).value()});
    }
    CheckOutcome(dkg::Part2<S>(std::move(mine.secret), packages), senders);
    Check(mine.secret.used());
    return;
  }
  auto r2 = dkg::Part2<S>(std::move(mine.secret), ThePeers<S>().round1);
  Check(r2.ok());
  std::vector<dkg::Received<dkg::Round2Package<S>>> packages;
  for (const Record& rec : Records(in)) {
    auto p = dkg::Round2Package<S>::Decode(rec.bytes);
    if (!p.ok()) continue;
    senders.push_back(rec.from);
    packages.push_back({rec.from, std::move(p).value()});
  }
  auto out = dkg::Part3<S>(std::move(r2->secret), packages);
  CheckOutcome(out, senders);
  // Nobody but 2 and 3 knows f_2(1) and f_3(1) of this run's commitments: nothing completes.
  Check(!out.ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ByteView in(data + 1, size - 1);
  const bool round_two = (data[0] & 1) != 0;
  if ((data[0] & 0x80) == 0) {
    Run<Ristretto255Sha512>(round_two, in);
  } else {
    Run<Ed25519Sha512>(round_two, in);
  }
  return 0;
}
