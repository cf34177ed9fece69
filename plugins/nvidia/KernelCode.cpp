//===- KernelCode.cpp - What the nvidia checks share about PTX and SASS ---===//
#include "KernelCode.h"

#include "gestell/utils/Locate.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

using namespace llvm;

namespace gestell::nvidia {

const PtxFunction *kernelFunction(const PtxModule &M, StringRef Kernel) {
  const PtxFunction *First = nullptr;
  for (const PtxFunction &F : M.Functions) {
    if (!F.IsEntry)
      continue;
    if (F.Name == Kernel)
      return &F;
    if (!First)
      First = &F;
  }
  return First;
}

const SassFunction *kernelFunction(const SassModule &M, StringRef Kernel) {
  for (const SassFunction &F : M.Functions)
    if (F.Name == Kernel)
      return &F;
  return M.Functions.empty() ? nullptr : &M.Functions.front();
}

DiagLoc locate(const PtxModule &M, const PtxFunction &F) {
  return DiagLoc::artifact(Stage::PTX, M.Path, F.Line);
}

DiagLoc locate(const SassModule &M, const SassFunction &F) {
  Stage S = StringRef(M.Path).ends_with(stageSuffix(Stage::SASSAlt))
                ? Stage::SASSAlt
                : Stage::SASS;
  return DiagLoc::artifact(S, M.Path, F.Line);
}

SmallVector<uint32_t, 4> outermostLoops(const ControlFlow &CF) {
  SmallVector<uint32_t, 4> Out;
  for (uint32_t L = 0; L < CF.Loops.size(); ++L)
    if (CF.Loops[L].Parent == NoIndex)
      Out.push_back(L);
  return Out;
}

uint32_t outermostLoopOf(const ControlFlow &CF, uint32_t Inst) {
  uint32_t L = CF.loopOf(Inst);
  while (L != NoIndex && CF.Loops[L].Parent != NoIndex)
    L = CF.Loops[L].Parent;
  return L;
}

const TtgirModule *optionalTtgir(KernelView &V) {
  if (!V.kernel().has(Stage::TTGIR))
    return nullptr;
  Expected<const TtgirModule &> T = V.ttgir();
  if (!T) {
    consumeError(T.takeError());
    return nullptr;
  }
  return &*T;
}

std::vector<uint32_t> loopInstructions(const ControlFlow &CF, uint32_t Loop) {
  std::vector<uint32_t> Out;
  for (uint32_t B : CF.Loops[Loop].Blocks)
    for (uint32_t I = CF.Blocks[B].Begin; I < CF.Blocks[B].End; ++I)
      Out.push_back(I);
  llvm::sort(Out);
  return Out;
}

bool inFamily(Isa I, StringRef Opcode, StringRef Id) {
  const FamilyTable &T = FamilyTable::active();
  std::optional<unsigned> F = T.indexOf(Id);
  return F && T.classify(I, Opcode) == *F;
}

bool isSassWarpgroupMma(StringRef Opcode) {
  StringRef Base = Opcode.split('.').first;
  return Base == "HGMMA" || Base == "QGMMA" || Base == "IGMMA" ||
         Base == "BGMMA";
}

bool isSassAsyncMma(StringRef Opcode) {
  if (isSassWarpgroupMma(Opcode))
    return true;
  StringRef Base = Opcode.split('.').first;
  return Base.starts_with("UTC") && Base.ends_with("MMA");
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

bool isSassBarrier(StringRef Opcode) {
  return Opcode.split('.').first == "BAR";
}

bool isSassShuffle(StringRef Opcode) {
  return Opcode.split('.').first == "SHFL";
}

bool isSassSharedLoad(StringRef Opcode) {
  return Opcode.split('.').first == "LDS";
}

bool isPtxBarrier(StringRef Opcode) {
  StringRef Base = Opcode.split('.').first;
  return Base == "bar" || Base == "barrier";
}

bool isPtxShuffle(StringRef Opcode) {
  return Opcode.split('.').first == "shfl";
}

bool isPtxSharedLoad(StringRef Opcode) {
  return Opcode.starts_with("ld.") && Opcode.contains(".shared");
}

std::optional<DiagLoc> loopSource(const SassModule &M, const SassFunction &F,
                                  uint32_t Loop, const TtgirModule *Ttgir) {
  const ControlFlow &CF = F.CF;
  if (Loop >= CF.Loops.size())
    return std::nullopt;
  std::vector<uint32_t> Insts = loopInstructions(CF, Loop);
  if (Ttgir) {
    std::set<std::pair<std::string, uint32_t>> Lines;
    for (uint32_t I : Insts)
      if (std::optional<DiagLoc> L = pythonSource(M, F.Instructions[I]))
        Lines.insert({L->File, L->Line});
    const Operation *Best = nullptr;
    size_t BestShared = 0;
    for (const Operation *Op : Ttgir->ops()) {
      if (Op->Name != "scf.for")
        continue;
      std::set<std::pair<std::string, uint32_t>> Body;
      Op->walk([&](Operation &Inner) {
        if (std::optional<DiagLoc> L = pythonSource(*Ttgir, Inner))
          if (Lines.count({L->File, L->Line}))
            Body.insert({L->File, L->Line});
      });
      // Ops are in pre-order: an inner loop comes after the loop holding
      // it, so ">=" prefers the innermost on a tie.
      if (!Body.empty() && Body.size() >= BestShared) {
        Best = Op;
        BestShared = Body.size();
      }
    }
    if (Best)
      if (std::optional<DiagLoc> L = pythonSource(*Ttgir, *Best))
        return L;
  }
  for (uint32_t Latch : CF.Loops[Loop].Latches) {
    const BasicBlock &B = CF.Blocks[Latch];
    if (B.End > B.Begin)
      if (std::optional<DiagLoc> L = pythonSource(M, F.Instructions[B.End - 1]))
        return L;
  }
  return std::nullopt;
}

std::string formatRatio(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2f", V);
  StringRef S(Buf);
  S = S.rtrim('0').rtrim('.');
  return S.empty() ? "0" : S.str();
}

} // namespace gestell::nvidia
