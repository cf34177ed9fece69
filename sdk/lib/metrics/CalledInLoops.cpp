//===- CalledInLoops.cpp - Code a call inside a loop runs -----------------===//
#include "metrics/CalledInLoops.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

using namespace llvm;

namespace gestell {

namespace {
/// The function a PTX call names: its first operand that is not a
/// parenthesized parameter list (`call.uni (retval0), f, (param0);`).
StringRef calleeOf(const PtxInstruction &I) {
  for (StringRef Op : I.operands())
    if (!Op.empty() && Op.front() != '(')
      return Op;
  return {};
}
} // namespace

std::vector<BitVector> calledInLoops(const PtxModule &M) {
  std::vector<BitVector> Out;
  StringMap<uint32_t> Callees;
  for (uint32_t K = 0; K < M.Functions.size(); ++K)
    if (!M.Functions[K].IsEntry && !M.Functions[K].Tuning.NoReturn)
      Callees.try_emplace(M.Functions[K].Name, K);
  if (Callees.empty())
    return Out;
  // Functions called from a loop, and every call between functions: a
  // function that one called from a loop calls runs in that loop too.
  std::vector<uint8_t> Repeated(M.Functions.size(), 0);
  std::vector<uint32_t> Work;
  SmallVector<std::pair<uint32_t, uint32_t>, 8> Calls; // caller, callee
  for (uint32_t K = 0; K < M.Functions.size(); ++K) {
    const PtxFunction &F = M.Functions[K];
    for (uint32_t I = 0; I < F.Instructions.size(); ++I) {
      if (F.Instructions[I].Kind != Flow::Call)
        continue;
      auto It = Callees.find(calleeOf(F.Instructions[I]));
      if (It == Callees.end())
        continue;
      Calls.push_back({K, It->second});
      if (F.CF.inLoop(I) && !Repeated[It->second]) {
        Repeated[It->second] = 1;
        Work.push_back(It->second);
      }
    }
  }
  while (!Work.empty()) {
    uint32_t Caller = Work.back();
    Work.pop_back();
    for (auto [From, To] : Calls)
      if (From == Caller && !Repeated[To]) {
        Repeated[To] = 1;
        Work.push_back(To);
      }
  }
  for (uint32_t K = 0; K < M.Functions.size(); ++K)
    if (Repeated[K]) {
      Out.resize(M.Functions.size());
      Out[K].resize(M.Functions[K].Instructions.size(), true);
    }
  return Out;
}

namespace {
/// The subroutines of one SASS function that calls in loops run.
BitVector calledInLoops(const SassFunction &F) {
  const ControlFlow &CF = F.CF;
  // Each call into code the entry does not reach: the call, and the block
  // its target starts.
  SmallVector<std::pair<uint32_t, uint32_t>, 8> Sites;
  for (uint32_t I = 0; I < F.Instructions.size(); ++I) {
    const SassInstruction &In = F.Instructions[I];
    if (In.Kind != Flow::Call || In.BranchTarget == NoAddress)
      continue;
    uint32_t T = F.indexAtOrAfter(In.BranchTarget);
    if (T < CF.BlockOf.size() && !CF.Blocks[CF.BlockOf[T]].Reachable)
      Sites.push_back({I, CF.BlockOf[T]});
  }
  if (Sites.empty())
    return {};
  BitVector Marked(CF.Blocks.size()), Tried(CF.Blocks.size());
  SmallVector<uint32_t, 8> Work;
  for (auto [Call, Entry] : Sites)
    if (CF.inLoop(Call))
      Work.push_back(Entry);
  while (!Work.empty()) {
    uint32_t Entry = Work.pop_back_val();
    if (Tried.test(Entry))
      continue;
    Tried.set(Entry);
    // The subroutine: what its entry reaches outside the function's own
    // reachable code; it counts when it can return.
    SmallVector<uint32_t, 16> Region{Entry};
    BitVector InRegion(CF.Blocks.size());
    InRegion.set(Entry);
    bool Returns = false;
    for (size_t K = 0; K < Region.size(); ++K) {
      const BasicBlock &B = CF.Blocks[Region[K]];
      if (B.End > B.Begin && F.Instructions[B.End - 1].Kind == Flow::Return)
        Returns = true;
      for (uint32_t S : B.Succs)
        if (!CF.Blocks[S].Reachable && !InRegion.test(S)) {
          InRegion.set(S);
          Region.push_back(S);
        }
    }
    if (!Returns)
      continue;
    Marked |= InRegion;
    // What the subroutine calls runs as often as it does.
    for (auto [Call, Target] : Sites)
      if (InRegion.test(CF.BlockOf[Call]))
        Work.push_back(Target);
  }
  if (Marked.none())
    return {};
  BitVector Out(F.Instructions.size());
  for (unsigned B : Marked.set_bits())
    Out.set(CF.Blocks[B].Begin, CF.Blocks[B].End);
  return Out;
}
} // namespace

std::vector<BitVector> calledInLoops(const SassModule &M) {
  std::vector<BitVector> Out;
  for (uint32_t K = 0; K < M.Functions.size(); ++K)
    if (BitVector B = calledInLoops(M.Functions[K]); B.any()) {
      Out.resize(M.Functions.size());
      Out[K] = std::move(B);
    }
  return Out;
}

} // namespace gestell
