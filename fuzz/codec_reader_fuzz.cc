// Fuzzes the canonical binary Reader with a small structure of every field kind: no crash, and
// any input that decodes re-encodes byte for byte (one encoding per value).
#include <cstdlib>

#include "veil/base/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  veil::Reader r({data, size});
  r.Header(0x7665, 1);
  const auto a = r.U8();
  const auto b = r.U16();
  const auto c = r.U32();
  const auto d = r.U64();
  const bool e = r.Bool();
  const auto f = r.Varint();
  const auto g = r.VarBytes(64);
  const std::string h = r.String(32);
  if (!r.Finish().ok()) return 0;
  veil::Writer w(0x7665, 1);
  w.U8(a).U16(b).U32(c).U64(d).Bool(e).Varint(f).VarBytes(g).String(h);
  const veil::Bytes& out = w.bytes();
  if (out.size() != size || !std::equal(out.begin(), out.end(), data)) std::abort();
  return 0;
}
