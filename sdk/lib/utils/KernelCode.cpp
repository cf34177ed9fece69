//===- KernelCode.cpp - The kernel function and its loops -----------------===//
#include "gestell/utils/KernelCode.h"

#include "gestell/utils/Locate.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <set>
#include <string>
#include <utility>

using namespace llvm;

namespace gestell {

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

std::vector<uint32_t> loopInstructions(const ControlFlow &CF, uint32_t Loop) {
  std::vector<uint32_t> Out;
  for (uint32_t B : CF.Loops[Loop].Blocks)
    for (uint32_t I = CF.Blocks[B].Begin; I < CF.Blocks[B].End; ++I)
      Out.push_back(I);
  llvm::sort(Out);
  return Out;
}

std::optional<DiagLoc> loopSource(const SassModule &M, const SassFunction &F,
                                  uint32_t Loop, const TtgirModule *Ttgir) {
  const ControlFlow &CF = F.CF;
  if (Loop >= CF.Loops.size())
    return std::nullopt;
  std::vector<uint32_t> Insts = loopInstructions(CF, Loop);
  if (Ttgir) {
    // An instruction's Python line depends only on its line-info frame,
    // which runs of instructions share: each frame is resolved once.
    std::set<std::pair<std::string, uint32_t>> Lines;
    DenseSet<uint32_t> Frames;
    for (uint32_t I : Insts)
      if (Frames.insert(F.Instructions[I].Frame).second)
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

} // namespace gestell
