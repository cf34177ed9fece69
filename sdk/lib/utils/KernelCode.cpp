//===- KernelCode.cpp - The kernel function and its loops -----------------===//
#include "gestell/utils/KernelCode.h"

#include "gestell/utils/Locate.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

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
  // Loop::Blocks is sorted, and blocks are numbered in instruction order:
  // their runs of instructions come out sorted.
  std::vector<uint32_t> Out;
  for (uint32_t B : CF.Loops[Loop].Blocks)
    for (uint32_t I = CF.Blocks[B].Begin; I < CF.Blocks[B].End; ++I)
      Out.push_back(I);
  return Out;
}

namespace {
/// The scf.for of Ttgir whose body holds the most of Lines (sorted, each
/// once; the innermost loop on a tie), or null. Each op's Python line is
/// resolved once (ops share locations), only for an op inside an scf.for,
/// and counts for every scf.for around it: a loop keeps the lines it holds
/// as bits, by their place in Lines.
const Operation *loopHolding(const TtgirModule &Ttgir,
                             ArrayRef<PythonLine> Lines) {
  DenseMap<const Location *, int> ByLoc; // index into Lines, -1: none
  DenseMap<const Operation *, BitVector> Bodies;
  for (const Operation *Op : Ttgir.ops()) {
    // Only an op inside an scf.for counts: its Python line (the costly
    // part) is not resolved for the others.
    const Operation *Loop = Op->parentOp();
    while (Loop && Loop->Name != "scf.for")
      Loop = Loop->parentOp();
    if (!Loop)
      continue;
    auto [It, New] = ByLoc.try_emplace(aliasTarget(Op->Loc), -1);
    if (New)
      if (std::optional<PythonLine> L = pythonLine(Ttgir, *Op)) {
        const PythonLine *At = llvm::lower_bound(Lines, *L);
        if (At != Lines.end() && *At == *L)
          It->second = At - Lines.begin();
      }
    if (It->second < 0)
      continue;
    for (const Operation *P = Loop; P; P = P->parentOp())
      if (P->Name == "scf.for") {
        BitVector &Held = Bodies[P];
        if (Held.empty())
          Held.resize(Lines.size());
        Held.set(It->second);
      }
  }
  const Operation *Best = nullptr;
  size_t BestShared = 0;
  // Ops are in pre-order: an inner loop comes after the loop holding it,
  // so ">=" prefers the innermost on a tie.
  for (const Operation *Op : Ttgir.ops())
    if (auto It = Bodies.find(Op); It != Bodies.end())
      if (size_t Shared = It->second.count(); Shared >= BestShared) {
        Best = Op;
        BestShared = Shared;
      }
  return Best;
}
} // namespace

std::optional<DiagLoc> loopSource(const SassModule &M, const SassFunction &F,
                                  uint32_t Loop, const TtgirModule *Ttgir) {
  const ControlFlow &CF = F.CF;
  if (Loop >= CF.Loops.size())
    return std::nullopt;
  std::vector<uint32_t> Insts = loopInstructions(CF, Loop);
  if (Ttgir) {
    // An instruction's Python line depends only on its line-info frame,
    // which runs of instructions share: each frame is resolved once.
    std::vector<PythonLine> Lines;
    DenseSet<uint32_t> Frames;
    for (uint32_t I : Insts)
      if (Frames.insert(F.Instructions[I].Frame).second)
        if (std::optional<PythonLine> L = pythonLine(M, F.Instructions[I]))
          Lines.push_back(*L);
    llvm::sort(Lines);
    Lines.erase(std::unique(Lines.begin(), Lines.end()), Lines.end());
    if (const Operation *Best = loopHolding(*Ttgir, Lines))
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
