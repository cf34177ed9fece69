//===- Opcodes.cpp - The opcodes the nvidia checks tell apart -------------===//
#include "Opcodes.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdio>

using namespace llvm;

namespace gestell::nvidia {

namespace {
/// The opcode before its first '.' (split('.') searches for a string).
StringRef baseOf(StringRef Opcode) {
  return Opcode.substr(0, Opcode.find('.'));
}
/// HGMMA, QGMMA, IGMMA, BGMMA, by byte compares: asked of every SASS
/// instruction, here rather than through the exported isSassWarpgroupMma
/// (a call through the PLT).
bool isWarpgroupMma(StringRef Opcode) {
  return !Opcode.empty() && hasBaseOpcode(Opcode.drop_front(), "GMMA") &&
         StringRef("HQIB").contains(Opcode[0]);
}
} // namespace

bool inFamily(Isa I, StringRef Opcode, StringRef Id) {
  const FamilyTable &T = FamilyTable::active();
  std::optional<unsigned> F = T.indexOf(Id);
  return F && T.classify(I, Opcode) == *F;
}

bool isSassWarpgroupMma(StringRef Opcode) { return isWarpgroupMma(Opcode); }

bool isSassAsyncMma(StringRef Opcode) {
  if (Opcode.starts_with("UTC"))
    return baseOf(Opcode).ends_with("MMA");
  return isWarpgroupMma(Opcode);
}

bool isSassFullWarpgroupWait(const SassInstruction &I) {
  if (I.Opcode != "WARPGROUP.DEPBAR.LE")
    return false;
  SmallVector<StringRef, 2> Ops;
  I.Operands.split(Ops, ',');
  if (Ops.size() != 2)
    return false;
  unsigned long long N = 0;
  return !getAsUnsignedInteger(Ops[1].trim(), 0, N) && N == 0;
}

bool isSassBarrier(StringRef Opcode) { return hasBaseOpcode(Opcode, "BAR"); }

bool isSassShuffle(StringRef Opcode) { return hasBaseOpcode(Opcode, "SHFL"); }

bool isSassSharedLoad(StringRef Opcode) { return hasBaseOpcode(Opcode, "LDS"); }

bool isPtxBarrier(StringRef Opcode) {
  return hasBaseOpcode(Opcode, "bar") || hasBaseOpcode(Opcode, "barrier");
}

bool isPtxShuffle(StringRef Opcode) { return hasBaseOpcode(Opcode, "shfl"); }

bool isPtxSharedLoad(StringRef Opcode) {
  return Opcode.starts_with("ld.") && Opcode.contains(".shared");
}

std::string formatRatio(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2f", V);
  StringRef S(Buf);
  S = S.rtrim('0').rtrim('.');
  return S.empty() ? "0" : S.str();
}

} // namespace gestell::nvidia
